//! Bytes per value in the store.
//!
//! ```text
//! store_size [--n N] [--until-proved] [--levels] CODE [CODE ...]
//! ```
//! For each game computes G(0..N) (default 10^6; stops earlier when periodicity is proved only
//! if `--until-proved` is given), saves it through [`Store::save_sequence`] into a fresh
//! SQLite file, and prints: the values' width in memory, the stored bytes (the sum of
//! `length(data)` over the game's rows of `sequence_chunks`) per value, the order-0 entropy of
//! the values in bytes per value (a bound for any coder that looks at values one at a time),
//! the bytes per value at zstd level 19 instead of 3 (`zstd-19`, for the choice of level) and
//! with the values interleaved instead of in byte planes (`interlvd`, level 3), what the
//! legacy format took (`legacy`: 4 bytes a value), the time to load the stored sequence
//! back into memory, and the time to save it (`save ms`: one `save_sequence`, encoding
//! included) against writing the same chunks in the legacy format (`legacy ms`). `--levels` adds, per game, the bytes per value and compression time at
//! several zstd levels. `store_size --synthetic COUNT` instead stores COUNT incompressible
//! one-byte values and reports the peak memory and the time of loading them back. Run it with
//! `--release`.

use std::time::Instant;

use grundy::core::octal::values::width_for;
use grundy::core::octal::{Game, Solver, Values};
use grundy::store::chunk::{encode, encode_legacy, planes};
use grundy::store::{Store, CHUNK};
use sqlx::Row;

#[path = "../crates/grundy-core/examples/support/proc_status.rs"]
mod proc_status;
use proc_status::status_kb;

fn entropy_bits(values: &Values) -> f64 {
    let mut counts = std::collections::HashMap::<u32, u64>::new();
    for v in values.iter() {
        *counts.entry(v).or_default() += 1;
    }
    let n = values.len() as f64;
    counts
        .values()
        .map(|&c| {
            let p = c as f64 / n;
            -p * p.log2()
        })
        .sum()
}

/// Compressed bytes of the whole sequence in chunks of [`CHUNK`] at zstd `level`, each chunk
/// in its narrowest width, as byte planes (the store's layout) or interleaved (values
/// little-endian one after another); headers excluded.
fn zstd_bytes(values: &Values, level: i32, as_planes: bool) -> usize {
    let mut total = 0;
    let v = values.as_ref();
    for c in 0..v.len().div_ceil(CHUNK) {
        let slice = v.slice(c * CHUNK..((c + 1) * CHUNK).min(v.len()));
        let width = width_for(slice.iter().max().unwrap_or(0));
        let raw = if as_planes {
            planes(slice, width)
        } else {
            slice
                .iter()
                .flat_map(|x| x.to_le_bytes()[..width].to_vec())
                .collect()
        };
        total += zstd::bulk::compress(&raw, level).map_or(raw.len(), |f| f.len());
    }
    total
}

/// Writes `values` as the format before this one stored them (u32 little-endian chunks, one
/// transaction), to compare the time a save takes.
async fn legacy_save(store: &Store, code: &str, values: &Values) {
    let pool = store.raw_pool_for_tests();
    let mut tx = pool.begin().await.expect("begin");
    let all = values.to_u32_vec();
    for (i, c) in all.chunks(CHUNK).enumerate() {
        sqlx::query(
            "INSERT INTO sequence_chunks (code, chunk, data) VALUES ($1, $2, $3) \
             ON CONFLICT (code, chunk) DO UPDATE SET data = excluded.data \
             WHERE length(excluded.data) > length(sequence_chunks.data)",
        )
        .bind(code)
        .bind(i as i64)
        .bind(encode_legacy(c))
        .execute(&mut *tx)
        .await
        .expect("legacy insert");
    }
    tx.commit().await.expect("commit");
}

/// `--synthetic COUNT`: stores COUNT pseudo-random one-byte values (they do not compress, so
/// the store holds about COUNT bytes), then resets the peak RSS and loads them back: the peak
/// during the load against the values' own size shows what loading holds besides them.
async fn synthetic_load(count: usize) {
    let dir = std::env::temp_dir().join(format!("grundy-store-load-{}", std::process::id()));
    let url = format!("sqlite://{}/store.db", dir.display());
    let store = Store::connect(&url).await.expect("store");
    {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut values = Values::new();
        values.reserve(count);
        for _ in 0..count {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            values.push((x >> 56) as u32);
        }
        for start in (0..count).step_by(64 * CHUNK) {
            let end = (start + 64 * CHUNK).min(count);
            store
                .save_sequence("synthetic", values.as_ref().slice(..end), start, None)
                .await
                .expect("save");
        }
    }
    // Forget the peak so far (Linux: writing 5 to clear_refs resets VmHWM).
    std::fs::write("/proc/self/clear_refs", "5").expect("clear_refs");
    let before = status_kb("VmRSS:");
    let t = Instant::now();
    let loaded = store
        .load_sequence("synthetic")
        .await
        .expect("load")
        .expect("stored");
    let secs = t.elapsed().as_secs_f64();
    let peak = status_kb("VmHWM:");
    println!(
        "synthetic: {count} values of width {} loaded in {secs:.2} s ({:.0} M values/s); \
         RSS before the load {before} kB, peak during it {peak} kB: +{:.2} bytes per value",
        loaded.values.width(),
        count as f64 / secs / 1e6,
        (peak.saturating_sub(before) * 1024) as f64 / count as f64
    );
    drop(store);
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut n = 1_000_000usize;
    let mut until_proved = false;
    let mut levels = false;
    let mut synthetic: Option<usize> = None;
    let mut codes = Vec::new();
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--n" => {
                n = args[i + 1].parse().expect("--n N");
                i += 1;
            }
            "--until-proved" => until_proved = true,
            "--levels" => levels = true,
            "--synthetic" => {
                synthetic = Some(args[i + 1].parse().expect("--synthetic COUNT"));
                i += 1;
            }
            code => codes.push(code.to_owned()),
        }
        i += 1;
    }
    if let Some(count) = synthetic {
        synthetic_load(count).await;
        return;
    }
    if codes.is_empty() {
        eprintln!("usage: store_size [--n N] [--until-proved] [--levels] CODE [CODE ...]");
        std::process::exit(2);
    }
    let dir = std::env::temp_dir().join(format!("grundy-store-size-{}", std::process::id()));
    let url = format!("sqlite://{}/store.db", dir.display());
    let store = Store::connect(&url).await.expect("store");
    println!(
        "{:<8} {:>10} {:>5} {:>11} {:>8} {:>7} {:>8} {:>8} {:>8} {:>8} {:>8} {:>9}",
        "code",
        "values",
        "width",
        "stored B",
        "B/value",
        "H0 B/v",
        "zstd-19",
        "interlvd",
        "legacy",
        "load ms",
        "save ms",
        "legacy ms"
    );
    for code in codes {
        let game = Game::parse(&code).expect("code");
        let mut solver = Solver::new(&game);
        solver
            .run(n, until_proved, &mut || false)
            .expect("computation");
        let values = solver.values();
        let canonical = game.canonical();
        let t = Instant::now();
        store
            .save_sequence(&canonical, values, 0, None)
            .await
            .expect("save");
        let save_ms = t.elapsed().as_secs_f64() * 1e3;
        // The same rows in the legacy format (u32, uncompressed), for the time it took.
        let t = Instant::now();
        legacy_save(&store, &format!("legacy-{canonical}"), values).await;
        let legacy_ms = t.elapsed().as_secs_f64() * 1e3;
        let row = sqlx::query(
            "SELECT CAST(SUM(length(data)) AS BIGINT) AS bytes FROM sequence_chunks WHERE code = $1",
        )
        .bind(&canonical)
        .fetch_one(&store.raw_pool_for_tests())
        .await
        .expect("size");
        let bytes: i64 = row.get("bytes");
        let t = Instant::now();
        let loaded = store
            .load_sequence(&canonical)
            .await
            .expect("load")
            .expect("stored");
        let load_ms = t.elapsed().as_secs_f64() * 1e3;
        assert_eq!(&loaded.values, values, "round trip");
        let len = values.len() as f64;
        if levels {
            for level in [-1, 1, 3, 6, 9, 12, 15, 19] {
                let t = Instant::now();
                let b = zstd_bytes(values, level, true);
                println!(
                    "  zstd level {level:>2}: {:.3} B/value, compressed in {:.1} ms",
                    b as f64 / len,
                    t.elapsed().as_secs_f64() * 1e3
                );
            }
        }
        // The store's own encoder on the first chunk, as a check of the header size.
        debug_assert!(encode(values.as_ref().slice(..values.len().min(CHUNK))).is_ok());
        println!(
            "{:<8} {:>10} {:>5} {:>11} {:>8.3} {:>7.3} {:>8.3} {:>8.3} {:>8.3} {:>8.1} {:>8.1} {:>9.1}",
            canonical,
            values.len(),
            values.width(),
            bytes,
            bytes as f64 / len,
            entropy_bits(values) / 8.0,
            zstd_bytes(values, 19, true) as f64 / len,
            zstd_bytes(values, 3, false) as f64 / len,
            4.0,
            load_ms,
            save_ms,
            legacy_ms
        );
    }
    drop(store);
    let _ = std::fs::remove_dir_all(&dir);
}
