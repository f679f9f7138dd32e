#!/usr/bin/env bash
# Record-scale octal run: `.1777` (Flammenkamp: periodic, period > 6·10^7, preperiod > 1.6·10^8,
# so Austin's Thm 4.1 with h = 2, t = 4 needs about 2(e + p) + 5 ≈ 4.4·10^8 values or more)
# computed until proved, with peak RSS and the detector's cost per value.
#
# Usage: scripts/octal-record.sh [CODE] [N] [THREADS]
#   defaults: 0.1777 500000000 $(nproc)
# Needs about 1 byte per value while every value is below 256 (0.5 GB for 5·10^8; 2 bytes per
# value below 2^16) plus ~20 MB, and many CPU hours (≈ 200 ns per value on one core at 10^7,
# growing with the number of rare positions). Output: target/octal-record-CODE.log.
set -euo pipefail
cd "$(dirname "$0")/.."
code="${1:-0.1777}"
n="${2:-500000000}"
threads="${3:-$(nproc)}"
cargo build --release --example octal_time
bin="${CARGO_TARGET_DIR:-target}/release/examples/octal_time"
log="${CARGO_TARGET_DIR:-target}/octal-record-${code}.log"
echo "== $code to $n heaps (until proved), $threads threads; log: $log"
/usr/bin/time -v "$bin" "$code" --n "$n" --until-proved --threads "$threads" --detector-cost 2>&1 | tee "$log"
echo "== summary"
grep -E "^(threads=|peak_rss|verdict|detector)|Maximum resident|Elapsed" "$log"
