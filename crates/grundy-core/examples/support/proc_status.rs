//! `/proc/self/status` for the timing examples (`octal_time` here, the service's
//! `examples/store_size.rs` compiles this file too): a field in KiB, 0 where there is none.

/// The value of `key` (e.g. `"VmHWM:"`, the peak resident set) in KiB.
pub fn status_kb(key: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with(key))
                .and_then(|l| l.split_whitespace().nth(1).and_then(|v| v.parse().ok()))
        })
        .unwrap_or(0)
}
