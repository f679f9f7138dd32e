//! The store on both backends: sequences round-trip and never shrink; the job life cycle;
//! leases (a second owner cannot take a live job, can take an expired one, and the first
//! owner's late writes are refused).
//!
//! SQLite runs in plain `cargo test`. The PostgreSQL variants are `#[ignore]`d there (no server
//! on a fresh machine) and run by `.ci/run` with `cargo test -- --ignored` against the local
//! server (`GRUNDY_TEST_POSTGRES_URL`, default postgres://postgres@127.0.0.1:5432/test), each
//! in a fresh database.

mod common;

use grundy::core::octal::{Game, Solver, Values};
use grundy::store::chunk::{encode_legacy, FORMAT_LEGACY, FORMAT_V2};
use grundy::store::{
    Admission, Checkpoint, CheckpointArgs, Job, JobQuota, JobStatus, NewJob, QuotientCheckpoint,
    QuotientJob, QuotientProgress, RunRecord, Store, StoreError, CHUNK,
};
use sqlx::Row;

async fn sqlite() -> Store {
    Store::connect(&common::temp_sqlite_url()).await.unwrap()
}

/// The SQLite test of an `exercise_*` (plain `cargo test`) and its PostgreSQL twin (`#[ignore]`d:
/// `.ci/run` runs it with `--ignored`).
macro_rules! on_both_backends {
    ($exercise:ident, $sqlite:ident, $postgres:ident) => {
        #[tokio::test]
        async fn $sqlite() {
            $exercise(&sqlite().await).await;
        }

        #[tokio::test]
        #[ignore = "needs PostgreSQL; run by .ci/run with --ignored"]
        async fn $postgres() {
            $exercise(&postgres().await).await;
        }
    };
}

async fn exercise_sequences(store: &Store) {
    assert_eq!(store.load_sequence("0.07").await.unwrap(), None);
    let values: Vec<u32> = (0..(CHUNK as u32 * 2 + 123))
        .map(|i| i.wrapping_mul(2654435761) % 97)
        .collect();
    store
        .save_sequence("0.07", &values[..1000], 0, None)
        .await
        .unwrap();
    let stored = store.load_sequence("0.07").await.unwrap().unwrap();
    assert_eq!(stored.values.to_u32_vec(), values[..1000]);
    store
        .save_sequence("0.07", &values, 1000, Some(r#"{"status":"periodic"}"#))
        .await
        .unwrap();
    let s = store.load_sequence("0.07").await.unwrap().unwrap();
    assert_eq!(s.values.to_u32_vec(), values);
    assert_eq!(s.periodicity.as_deref(), Some(r#"{"status":"periodic"}"#));
    // A shorter write (a slower concurrent writer) never shrinks what is stored.
    store
        .save_sequence("0.07", &values[..10], 0, None)
        .await
        .unwrap();
    let s = store.load_sequence("0.07").await.unwrap().unwrap();
    assert_eq!(s.values.to_u32_vec(), values);
    assert!(s.periodicity.is_some());
}

/// The values of chunks `first..=last` of `code`, read chunk by chunk.
async fn chunk_values(store: &Store, code: &str, first: usize, last: usize) -> Vec<u32> {
    store
        .read_chunks(code, first, last)
        .await
        .unwrap()
        .into_iter()
        .flat_map(|(_, v)| v)
        .collect()
}

/// (chunk, format, value_count, length(data), width byte) of each stored chunk of `code`.
async fn chunk_rows(store: &Store, code: &str) -> Vec<(i64, i64, Option<i64>, usize, u8)> {
    sqlx::query(
        "SELECT chunk, format, value_count, data FROM sequence_chunks WHERE code = $1 ORDER BY chunk",
    )
    .bind(code)
    .fetch_all(&store.raw_pool_for_tests())
    .await
    .unwrap()
    .iter()
    .map(|r| {
        let data: Vec<u8> = r.get("data");
        (
            r.get("chunk"),
            r.get("format"),
            r.get("value_count"),
            data.len(),
            data.get(1).copied().unwrap_or(0),
        )
    })
    .collect()
}

/// Narrow, compressed chunks: g(0..300000) of `.6` takes under a byte a value and reads back
/// exactly, in the width it is held in; each chunk takes the width of its own largest value.
async fn exercise_narrow_chunks(store: &Store) {
    let mut solver = Solver::new(&Game::parse("0.6").unwrap());
    solver.run(300_000, false, &mut || false).unwrap();
    let values = solver.values();
    assert_eq!(values.len(), 300_000);
    store.save_sequence("0.6", values, 0, None).await.unwrap();
    let loaded = store.load_sequence("0.6").await.unwrap().unwrap().values;
    assert_eq!(loaded.width(), values.width());
    assert_eq!(&loaded, values);
    let rows = chunk_rows(store, "0.6").await;
    assert_eq!(rows.len(), 300_000usize.div_ceil(CHUNK));
    let bytes: usize = rows.iter().map(|r| r.3).sum();
    assert!(
        bytes < 300_000,
        "{bytes} bytes stored for 300000 values of .6 (at least a byte a value)"
    );
    for (i, r) in rows.iter().enumerate() {
        assert_eq!(r.1, FORMAT_V2);
        assert_eq!(r.2, Some((300_000 - i * CHUNK).min(CHUNK) as i64));
    }

    // Widths chunk by chunk: 1 byte, then 2, then 4; loaded as u32 (the widest needed).
    let mixed: Vec<u32> = (0..CHUNK as u32 * 3)
        .map(|i| match i / CHUNK as u32 {
            0 => i % 200,
            1 => i % 300,
            _ => i % 70_000,
        })
        .collect();
    store.save_sequence("0.16", &mixed, 0, None).await.unwrap();
    let rows = chunk_rows(store, "0.16").await;
    assert_eq!(rows.iter().map(|r| r.4).collect::<Vec<_>>(), [1, 2, 4]);
    let loaded = store.load_sequence("0.16").await.unwrap().unwrap().values;
    assert_eq!(loaded, Values::U32(mixed.clone()));
    let read = chunk_values(store, "0.16", 0, 2).await;
    assert_eq!(read, mixed);
    // The widest chunk of a range, from the headers alone (the download's width bound).
    for (first, last, widest) in [(0, 0, 1), (0, 1, 2), (1, 1, 2), (1, 2, 4), (0, 2, 4)] {
        assert_eq!(
            store.max_chunk_width("0.16", first, last).await.unwrap(),
            Some(widest),
            "{first}..={last}"
        );
    }
    assert_eq!(
        store.max_chunk_width("0.16", 2, 3).await.unwrap(),
        None,
        "chunk 3 is missing"
    );
    assert_eq!(store.max_chunk_width("0.99", 0, 0).await.unwrap(), None);

    // Concurrent writers: a chunk is replaced only by one holding more values, whatever the
    // compressed sizes (the longer chunk may well compress smaller).
    let periodic: Vec<u32> = (0..CHUNK as u32).map(|i| i % 3).collect();
    let noisy: Vec<u32> = (0..1000u32)
        .map(|i| i.wrapping_mul(2654435761) >> 24)
        .collect();
    store.save_sequence("0.26", &noisy, 0, None).await.unwrap();
    let mut longer = noisy.clone();
    longer.extend_from_slice(&periodic[1000..]);
    store.save_sequence("0.26", &longer, 0, None).await.unwrap();
    store.save_sequence("0.26", &noisy, 0, None).await.unwrap();
    let s = store.load_sequence("0.26").await.unwrap().unwrap();
    assert_eq!(s.values.to_u32_vec(), longer);
    assert_eq!(chunk_rows(store, "0.26").await[0].2, Some(CHUNK as i64));
}

/// Damaged rows are reported as corrupt, never a panic (nor an absurd allocation).
async fn exercise_corrupt_rows(store: &Store) {
    let pool = store.raw_pool_for_tests();
    let values: Vec<u32> = (0..CHUNK as u32 + 10).map(|i| i % 9).collect();
    store.save_sequence("0.36", &values, 0, None).await.unwrap();
    let corrupt = |r: Result<Option<grundy::store::StoredSequence>, StoreError>| match r {
        Err(StoreError::Corrupt(m)) => m,
        other => panic!("expected Corrupt, got {other:?}"),
    };
    // A chunk's bytes flipped after the header.
    sqlx::query("UPDATE sequence_chunks SET data = $1 WHERE code = '0.36' AND chunk = 1")
        .bind(vec![0xC1u8, 1, 10, 0, 0, 0, 1, 2, 3])
        .execute(&pool)
        .await
        .unwrap();
    assert!(corrupt(store.load_sequence("0.36").await).contains("chunk 1"));
    assert!(matches!(
        store.read_chunks("0.36", 1, 1).await,
        Err(StoreError::Corrupt(_))
    ));
    // A count column that disagrees with the header.
    store.save_sequence("0.37", &values, 0, None).await.unwrap();
    sqlx::query("UPDATE sequence_chunks SET value_count = 3 WHERE code = '0.37' AND chunk = 1")
        .execute(&pool)
        .await
        .unwrap();
    corrupt(store.load_sequence("0.37").await);
    // A missing chunk, and an absurd recorded length.
    store.save_sequence("0.38", &values, 0, None).await.unwrap();
    sqlx::query("DELETE FROM sequence_chunks WHERE code = '0.38' AND chunk = 0")
        .execute(&pool)
        .await
        .unwrap();
    corrupt(store.load_sequence("0.38").await);
    sqlx::query("UPDATE sequences SET computed = 4000000000000 WHERE code = '0.36'")
        .execute(&pool)
        .await
        .unwrap();
    corrupt(store.load_sequence("0.36").await);
}

/// A database holding legacy chunks (raw u32, as every version before the narrow format wrote
/// them) is read correctly, extended with new chunks, and never shrunk by a shorter write.
async fn exercise_legacy_chunks(store: &Store) {
    let values: Vec<u32> = (0..CHUNK as u32 + 1000).map(|i| i % 300).collect();
    let pool = store.raw_pool_for_tests();
    for (i, c) in values.chunks(CHUNK).enumerate() {
        sqlx::query("INSERT INTO sequence_chunks (code, chunk, data) VALUES ($1, $2, $3)")
            .bind("0.17")
            .bind(i as i64)
            .bind(encode_legacy(c))
            .execute(&pool)
            .await
            .unwrap();
    }
    sqlx::query(
        "INSERT INTO sequences (code, computed, periodicity, updated_at) VALUES ($1, $2, NULL, 0)",
    )
    .bind("0.17")
    .bind(values.len() as i64)
    .execute(&pool)
    .await
    .unwrap();
    let rows = chunk_rows(store, "0.17").await;
    assert_eq!(
        rows.iter().map(|r| (r.1, r.2)).collect::<Vec<_>>(),
        [(FORMAT_LEGACY, None); 2]
    );
    let s = store.load_sequence("0.17").await.unwrap().unwrap();
    assert_eq!(s.values.width(), 2, "loaded in the narrowest width");
    assert_eq!(
        store.max_chunk_width("0.17", 0, 1).await.unwrap(),
        Some(4),
        "a legacy chunk is u32"
    );
    assert_eq!(s.values.to_u32_vec(), values);
    let read = chunk_values(store, "0.17", 0, 1).await;
    assert_eq!(read, values);

    // Extending: the partial legacy chunk is replaced by a new one holding more values; the
    // full one stays as it is.
    let mut longer = values.clone();
    longer.extend((0..5000).map(|i| i % 7));
    store
        .save_sequence("0.17", &longer, values.len(), None)
        .await
        .unwrap();
    let rows = chunk_rows(store, "0.17").await;
    assert_eq!(
        rows.iter().map(|r| (r.1, r.2)).collect::<Vec<_>>(),
        [(FORMAT_LEGACY, None), (FORMAT_V2, Some(6000))]
    );
    // A shorter write in the new format never replaces a legacy chunk holding more values.
    store
        .save_sequence("0.17", &longer[..10], 0, None)
        .await
        .unwrap();
    assert_eq!(chunk_rows(store, "0.17").await[0].1, FORMAT_LEGACY);
    let s = store.load_sequence("0.17").await.unwrap().unwrap();
    assert_eq!(s.values.to_u32_vec(), longer);
}

async fn exercise_jobs(store: &Store) {
    let a = store
        .create_job(&common::new_job("0.6", 5000), "job-a", 0)
        .await
        .unwrap();
    assert_eq!(a.status, JobStatus::Queued);
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    let b = store
        .create_job(&common::new_job("0.07", 100), "job-b", 0)
        .await
        .unwrap();
    let list = store.list_jobs(10, None).await.unwrap();
    assert_eq!(
        list.iter().map(|j| j.id.as_str()).collect::<Vec<_>>(),
        ["job-b", "job-a"],
        "newest first"
    );
    let page2 = store
        .list_jobs(1, Some((b.created_at, b.id.clone())))
        .await
        .unwrap();
    assert_eq!(page2.len(), 1);
    assert_eq!(page2[0].id, "job-a");

    // Oldest first: replica r1 claims a; r2 then gets b; nothing is left.
    let claimed = store.claim_job("r1", 60_000).await.unwrap().unwrap();
    assert_eq!(claimed.id, "job-a");
    assert_eq!(claimed.status, JobStatus::Running);
    let other = store.claim_job("r2", 60_000).await.unwrap().unwrap();
    assert_eq!(other.id, "job-b");
    assert!(
        store.claim_job("r3", 60_000).await.unwrap().is_none(),
        "live leases are not taken over"
    );

    // Checkpoints write values and renew the lease; a non-owner's checkpoint is refused.
    // (A checkpoint without a rate before one with a rate: a NULL f64 once poisoned the
    // PostgreSQL statement cache through sqlx's Any driver.)
    let values: Vec<u32> = (0..300).map(|i| i % 7).collect();
    assert_eq!(
        store
            .checkpoint(CheckpointArgs::of_tail("job-a", "r1", "0.6", &values[..10]))
            .await
            .unwrap(),
        Checkpoint::Continue
    );
    assert_eq!(
        store
            .checkpoint(CheckpointArgs {
                rate: Some(1e5),
                ..CheckpointArgs::of_tail("job-a", "r1", "0.6", &values)
            })
            .await
            .unwrap(),
        Checkpoint::Continue
    );
    assert_eq!(
        store
            .checkpoint(CheckpointArgs::of_tail("job-a", "r2", "0.6", &values))
            .await
            .unwrap(),
        Checkpoint::Lost
    );
    assert_eq!(store.get_job("job-a").await.unwrap().unwrap().computed, 300);

    // Cancel a running job: flagged, seen at the next checkpoint.
    let c = store.cancel_job("job-b").await.unwrap().unwrap();
    assert!(c.cancel_requested);
    assert_eq!(
        store
            .checkpoint(CheckpointArgs::of_tail(
                "job-b",
                "r2",
                "0.07",
                &values[..50]
            ))
            .await
            .unwrap(),
        Checkpoint::Cancel
    );
    assert!(store
        .finish_job("job-b", "r2", JobStatus::Cancelled, 50, None, None)
        .await
        .unwrap());
    assert_eq!(
        store.get_job("job-b").await.unwrap().unwrap().status,
        JobStatus::Cancelled
    );

    // Lease expiry: r1's lease lapses, r3 takes the job over, r1's late writes are refused.
    assert_eq!(
        store
            .checkpoint(CheckpointArgs {
                lease_ms: -1,
                ..CheckpointArgs::of_tail("job-a", "r1", "0.6", &values)
            })
            .await
            .unwrap(),
        Checkpoint::Continue
    );
    let taken = store.claim_job("r3", 60_000).await.unwrap().unwrap();
    assert_eq!(taken.id, "job-a");
    assert_eq!(taken.attempts, 2);
    assert_eq!(taken.computed, 300, "resumes from the checkpoint");
    assert_eq!(
        store
            .checkpoint(CheckpointArgs::of_tail("job-a", "r1", "0.6", &values))
            .await
            .unwrap(),
        Checkpoint::Lost
    );
    assert!(!store
        .finish_job("job-a", "r1", JobStatus::Done, 300, None, None)
        .await
        .unwrap());
    assert!(store
        .finish_job("job-a", "r3", JobStatus::Done, 5000, None, Some("{}"))
        .await
        .unwrap());
    let done = store.get_job("job-a").await.unwrap().unwrap();
    assert_eq!(done.status, JobStatus::Done);
    assert_eq!(done.lease_owner, None);

    // Queued jobs cancel at once; release puts a running job back in the queue.
    store
        .create_job(&common::new_job("0.77", 10), "job-c", 0)
        .await
        .unwrap();
    assert_eq!(
        store.cancel_job("job-c").await.unwrap().unwrap().status,
        JobStatus::Cancelled
    );
    store
        .create_job(&common::new_job("0.77", 10), "job-d", 0)
        .await
        .unwrap();
    let d = store.claim_job("r1", 60_000).await.unwrap().unwrap();
    store.release_job(&d.id, "r1").await.unwrap();
    assert_eq!(
        store.get_job("job-d").await.unwrap().unwrap().status,
        JobStatus::Queued
    );
    assert!(store.cancel_job("nope").await.unwrap().is_none());
}

on_both_backends!(exercise_sequences, sqlite_sequences, postgres_sequences);

on_both_backends!(
    exercise_narrow_chunks,
    sqlite_narrow_chunks,
    postgres_narrow_chunks
);

on_both_backends!(
    exercise_corrupt_rows,
    sqlite_corrupt_rows,
    postgres_corrupt_rows
);

on_both_backends!(
    exercise_legacy_chunks,
    sqlite_legacy_chunks,
    postgres_legacy_chunks
);

/// A database created by the version before the chunk format (only the first migration
/// applied, legacy rows) is migrated on connect and read correctly.
#[tokio::test]
async fn sqlite_database_of_the_previous_version_is_migrated_and_read() {
    let url = common::temp_sqlite_url();
    let dir = std::env::temp_dir().join(format!("grundy-mig-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let init = "20261122000001_init.sql";
    std::fs::copy(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("migrations/sqlite")
            .join(init),
        dir.join(init),
    )
    .unwrap();
    sqlx::any::install_default_drivers();
    let pool = sqlx::AnyPool::connect(&format!("{url}?mode=rwc"))
        .await
        .unwrap();
    sqlx::migrate::Migrator::new(dir.as_path())
        .await
        .unwrap()
        .run(&pool)
        .await
        .unwrap();
    let values: Vec<u32> = (0..1000).map(|i| i % 11).collect();
    sqlx::query("INSERT INTO sequence_chunks (code, chunk, data) VALUES ('0.6', 0, $1)")
        .bind(encode_legacy(&values))
        .execute(&pool)
        .await
        .unwrap();
    sqlx::query("INSERT INTO sequences (code, computed, periodicity, updated_at) VALUES ('0.6', 1000, NULL, 0)")
        .execute(&pool)
        .await
        .unwrap();
    pool.close().await;
    let _ = std::fs::remove_dir_all(&dir);
    let store = Store::connect(&url).await.unwrap();
    let s = store.load_sequence("0.6").await.unwrap().unwrap();
    assert_eq!(
        s.values,
        Values::U8(values.iter().map(|&v| v as u8).collect())
    );
    store
        .save_sequence("0.6", &values[..10], 0, None)
        .await
        .unwrap();
    assert_eq!(
        store
            .load_sequence("0.6")
            .await
            .unwrap()
            .unwrap()
            .values
            .len(),
        1000
    );
}

/// A window-mode job's values: the front and the tail written with checkpoints, the chunks
/// the tail left behind kept as its archive (checked, read back from any heap, its bytes
/// counted), its rare positions beyond the window saved, statistics saved, everything read
/// back exactly; a damaged archive found, a reset only under the lease; a deleted job takes
/// its chunks with it.
async fn exercise_windows(store: &Store) {
    use grundy::store::{WindowState, WindowWrite};
    let job = store
        .create_job(
            &NewJob {
                code: "0.167".into(),
                max_n: 1 << 40,
                keep_window: Some(CHUNK as u64),
                store_values: false,
            },
            "job-w",
            0,
        )
        .await
        .unwrap();
    assert_eq!(job.keep_window, Some(CHUNK as u64));
    assert!(!job.store_values);
    let claimed = store.claim_job("r1", 60_000).await.unwrap().unwrap();
    assert_eq!(claimed.keep_window, Some(CHUNK as u64));
    assert!(store.load_window("job-w").await.unwrap().is_none());
    // Values with a pattern per heap, so that a chunk read back out of place shows.
    let value = |h: usize| ((h * 7 + h / CHUNK) % 251) as u32;
    let range = |a: usize, b: usize| (a..b).map(value).collect::<Vec<u32>>();
    let checkpoint = |state: WindowState, parts: [(usize, Vec<u32>); 2]| async move {
        let parts_ref = [
            (parts[0].0, (&parts[0].1[..]).into()),
            (parts[1].0, (&parts[1].1[..]).into()),
        ];
        store
            .checkpoint(CheckpointArgs {
                computed: state.computed,
                window: Some(WindowWrite {
                    state,
                    parts: parts_ref,
                    report: Some("{\"reads\": 3}".into()),
                }),
                statistics: Some(&[1, 2, 3]),
                rate: Some(1.0),
                ..CheckpointArgs::of_tail("job-w", "r1", "0.167", &[0u32; 0][..])
            })
            .await
            .unwrap()
    };
    let c = CHUNK;
    // Before the gap: G(0..2.5 chunks) kept whole.
    let state = WindowState {
        front: c as u64,
        window: c as u64,
        base: 0,
        computed: (5 * c / 2) as u64,
        mask: 0x3d,
        far: Vec::new(),
    };
    assert_eq!(
        checkpoint(state.clone(), [(0, range(0, c)), (c, range(c, 5 * c / 2))]).await,
        Checkpoint::Continue
    );
    let w = store.load_window("job-w").await.unwrap().unwrap();
    assert_eq!(w.state, state);
    assert_eq!(w.front.to_u32_vec(), range(0, 5 * c / 2));
    assert!(w.tail.is_empty());
    let bytes_before = store.get_job("job-w").await.unwrap().unwrap().archive_bytes;
    assert!(bytes_before > 0);
    // The gap opens: the tail is G(3c..5c+10); chunks 1 and 2 stay, the archive (the
    // partial chunk 2 written again whole). Two rare positions beyond the window.
    let state = WindowState {
        base: (3 * c) as u64,
        computed: (5 * c + 10) as u64,
        far: vec![(c as u64 + 3, 7), (4 * c as u64, 65_535)],
        ..state
    };
    assert_eq!(
        checkpoint(
            state.clone(),
            [(c, range(c, c)), (2 * c, range(2 * c, 5 * c + 10))]
        )
        .await,
        Checkpoint::Continue
    );
    let w = store.load_window("job-w").await.unwrap().unwrap();
    assert_eq!(w.state, state);
    assert_eq!(w.front.to_u32_vec(), range(0, c));
    assert_eq!(w.tail.to_u32_vec(), range(3 * c, 5 * c + 10));
    // The archive: every chunk in place, read back in order, from any heap.
    assert_eq!(state.archive_chunks(), (1, 3));
    assert_eq!(store.check_archive("job-w", (1, 3)).await.unwrap(), None);
    for (from, len) in [(c, 2 * c), (c + 5, 100), (2 * c - 3, 10), (0, 5 * c + 10)] {
        let mut out = vec![0u16; len];
        store
            .read_archive("job-w", from as u64, &mut out)
            .await
            .unwrap();
        let want: Vec<u16> = range(from, from + len).iter().map(|&v| v as u16).collect();
        assert_eq!(out, want, "{from}+{len}");
    }
    // Its bytes: what the chunks take, the partial chunk counted once.
    let job = store.get_job("job-w").await.unwrap().unwrap();
    let sum: i64 = sqlx::query_scalar(
        "SELECT CAST(SUM(LENGTH(data)) AS BIGINT) FROM job_window_chunks WHERE job_id = 'job-w'",
    )
    .fetch_one(&store.raw_pool_for_tests())
    .await
    .unwrap();
    assert_eq!(job.archive_bytes, sum as u64);
    assert!(job.archive_bytes > bytes_before);
    assert_eq!(job.archive.as_deref(), Some("{\"reads\": 3}"));
    assert_eq!(
        store.job_statistics("job-w").await.unwrap(),
        Some(vec![1, 2, 3])
    );
    assert_eq!(
        store.get_job("job-w").await.unwrap().unwrap().computed,
        (5 * c + 10) as u64
    );
    // A corrupt archive chunk is found by the check and by a read, never used.
    let (data,): (Vec<u8>,) =
        sqlx::query_as("SELECT data FROM job_window_chunks WHERE job_id = 'job-w' AND chunk = 2")
            .fetch_one(&store.raw_pool_for_tests())
            .await
            .unwrap();
    let mut bad = data.clone();
    bad[8] ^= 0x40; // the stored checksum
    sqlx::query("UPDATE job_window_chunks SET data = $1 WHERE job_id = 'job-w' AND chunk = 2")
        .bind(bad)
        .execute(&store.raw_pool_for_tests())
        .await
        .unwrap();
    let damage = store.check_archive("job-w", (1, 3)).await.unwrap().unwrap();
    assert_eq!(damage.chunk, 2);
    assert!(damage.detail.contains("checksum"), "{}", damage.detail);
    let mut out = vec![0u16; 10];
    assert!(matches!(
        store.read_archive("job-w", 2 * c as u64, &mut out).await,
        Err(StoreError::Corrupt(_))
    ));
    // A missing one too.
    sqlx::query("DELETE FROM job_window_chunks WHERE job_id = 'job-w' AND chunk = 1")
        .execute(&store.raw_pool_for_tests())
        .await
        .unwrap();
    let damage = store.check_archive("job-w", (1, 3)).await.unwrap().unwrap();
    assert_eq!(damage.chunk, 1);
    assert!(damage.detail.contains("missing"), "{}", damage.detail);
    assert!(matches!(
        store.read_archive("job-w", c as u64, &mut out).await,
        Err(StoreError::Corrupt(_))
    ));
    // A missing tail chunk is corruption, never a short read.
    sqlx::query("DELETE FROM job_window_chunks WHERE job_id = 'job-w' AND chunk = 4")
        .execute(&store.raw_pool_for_tests())
        .await
        .unwrap();
    assert!(matches!(
        store.load_window("job-w").await,
        Err(StoreError::Corrupt(_))
    ));
    // Starting over: only under its lease; then nothing of the old run is left.
    assert!(!store.reset_window("job-w", "r2", "damaged").await.unwrap());
    assert!(store.reset_window("job-w", "r1", "damaged").await.unwrap());
    assert!(store.load_window("job-w").await.unwrap().is_none());
    let job = store.get_job("job-w").await.unwrap().unwrap();
    assert_eq!((job.computed, job.archive_bytes), (0, 0));
    assert!(job.archive.unwrap().contains("damaged"));
    let left: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM job_window_chunks")
        .fetch_one(&store.raw_pool_for_tests())
        .await
        .unwrap();
    assert_eq!(left, 0);
    checkpoint(state.clone(), [(0, range(0, c)), (c, range(c, 2 * c))]).await;
    // Finished and deleted: its chunks go too.
    assert!(store
        .finish_job("job-w", "r1", JobStatus::Done, (5 * c) as u64, None, None)
        .await
        .unwrap());
    assert!(store.delete_job("job-w").await.unwrap());
    let left: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM job_window_chunks")
        .fetch_one(&store.raw_pool_for_tests())
        .await
        .unwrap();
    assert_eq!(left, 0);
}

on_both_backends!(exercise_windows, sqlite_windows, postgres_windows);

on_both_backends!(exercise_jobs, sqlite_jobs, postgres_jobs);

/// A store on a fresh PostgreSQL database for this test run.
pub async fn postgres() -> Store {
    Store::connect(&common::fresh_postgres_url().await)
        .await
        .unwrap()
}

#[tokio::test]
#[ignore = "needs PostgreSQL; run by .ci/run with --ignored"]
async fn postgres_concurrent_claims_never_double_claim() {
    let store = postgres().await;
    for i in 0..40 {
        store
            .create_job(&common::new_job("0.07", 10), &format!("j{i:02}"), 0)
            .await
            .unwrap();
    }
    common::assert_claimed_once(&store, |r| format!("r{r}"), 40, |_| {}).await;
}

/// Owned jobs (issue 24): the owner is stored and read back, listed by owner, kept through a
/// claim and a restore, and the quotas admit exactly up to their limits — concurrent
/// submissions of one owner included — writing nothing when they refuse.
async fn exercise_owned_jobs(store: &Store) {
    use grundy::store::{Refusal, SequenceJob};
    let job = |max_n| NewJob {
        code: "0.07".into(),
        max_n,
        keep_window: None,
        store_values: true,
    };
    let quota = JobQuota {
        active_jobs: 3,
        heaps_per_day: 100,
    };
    let Admission::Created(a) = store
        .create_rows::<SequenceJob>(&job(10), "a", Some(("alice", quota)))
        .await
        .unwrap()
    else {
        panic!("refused")
    };
    assert_eq!(a.owner.as_deref(), Some("alice"));
    assert_eq!(store.get_job("a").await.unwrap().unwrap(), *a);
    store.create_job(&job(5), "anon", 0).await.unwrap();
    assert_eq!(store.get_job("anon").await.unwrap().unwrap().owner, None);
    // Concurrent submissions: exactly two more fit under three active jobs.
    let mut tasks = Vec::new();
    for i in 0..8 {
        let s = store.clone();
        tasks.push(tokio::spawn(async move {
            s.create_rows::<SequenceJob>(&job(10), &format!("c{i}"), Some(("alice", quota)))
                .await
                .unwrap()
        }));
    }
    let mut created = 0;
    for t in tasks {
        match t.await.unwrap() {
            Admission::Created(_) => created += 1,
            Admission::Refused(Refusal::ActiveJobs { limit, active }) => {
                assert_eq!((limit, active), (3, 3))
            }
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(created, 2, "exactly up to the limit");
    let mine = store.list_jobs_of(Some("alice"), 100, None).await.unwrap();
    assert_eq!(mine.len(), 3);
    assert!(mine.iter().all(|j| j.owner.as_deref() == Some("alice")));
    let page = store.list_jobs_of(Some("alice"), 2, None).await.unwrap();
    let last = page.last().unwrap();
    let rest = store
        .list_jobs_of(Some("alice"), 2, Some((last.created_at, last.id.clone())))
        .await
        .unwrap();
    assert_eq!(page.len() + rest.len(), 3);
    assert_eq!(store.list_jobs_of(None, 100, None).await.unwrap().len(), 4);
    assert!(store
        .list_jobs_of(Some("bob"), 100, None)
        .await
        .unwrap()
        .is_empty());
    // The refused submissions wrote nothing: 30 heaps requested today, not 90.
    let used: i64 = sqlx::query("SELECT heaps FROM job_usage WHERE owner = 'alice'")
        .fetch_one(&store.raw_pool_for_tests())
        .await
        .unwrap()
        .get("heaps");
    assert_eq!(used, 30);
    // Heaps of the day: 70 more fit exactly, 71 do not.
    let loose = JobQuota {
        active_jobs: 0,
        heaps_per_day: 100,
    };
    match store
        .create_rows::<SequenceJob>(&job(71), "h1", Some(("alice", loose)))
        .await
        .unwrap()
    {
        Admission::Refused(Refusal::HeapsPerDay {
            limit,
            used,
            day_ends_ms,
        }) => {
            assert_eq!((limit, used), (100, 30));
            assert!(day_ends_ms > grundy::store::now_ms());
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        store
            .create_rows::<SequenceJob>(&job(70), "h2", Some(("alice", loose)))
            .await
            .unwrap(),
        Admission::Created(_)
    ));
    let unlimited = JobQuota {
        active_jobs: 0,
        heaps_per_day: 0,
    };
    assert!(matches!(
        store
            .create_rows::<SequenceJob>(&job(1_000_000), "h3", Some(("alice", unlimited)))
            .await
            .unwrap(),
        Admission::Created(_)
    ));
    // The owner survives a claim and a restore.
    let claimed = store.claim_job("w", 60_000).await.unwrap().unwrap();
    assert_eq!(claimed.id, "a");
    assert_eq!(claimed.owner.as_deref(), Some("alice"));
    sqlx::query("DELETE FROM jobs WHERE id = 'a'")
        .execute(&store.raw_pool_for_tests())
        .await
        .unwrap();
    store.restore_job(&claimed, "w", 60_000).await.unwrap();
    let restored = store.get_job("a").await.unwrap().unwrap();
    assert_eq!(restored.owner.as_deref(), Some("alice"));
    let active = store.active_jobs_by_owner().await.unwrap();
    assert!(
        active.contains(&(Some("alice".to_owned()), 5)),
        "{active:?}"
    );
    assert!(active.contains(&(None, 1)), "{active:?}");
}

on_both_backends!(exercise_owned_jobs, sqlite_owned_jobs, postgres_owned_jobs);

/// The job list's filters and count (issue 46): by owner, kind and status, each page of a
/// filtered list holds only its jobs, the pages together hold every one, and the count is theirs.
async fn exercise_job_filters(store: &Store) {
    use grundy::store::{JobFilter, JobKind, SequenceJob};
    let job = |max_n| NewJob {
        code: "0.07".into(),
        max_n,
        keep_window: None,
        store_values: true,
    };
    for i in 0..7u64 {
        store
            .create_job(&job(10 + i), &format!("f{i}"), 0)
            .await
            .unwrap();
    }
    let quota = JobQuota {
        active_jobs: 10,
        heaps_per_day: 1000,
    };
    for id in ["a0", "a1"] {
        let r = store
            .create_rows::<SequenceJob>(&job(10), id, Some(("alice", quota)))
            .await;
        assert!(matches!(r, Ok(Admission::Created(_))), "{r:?}");
    }
    for (status, ids) in [("done", "'f0', 'f1', 'f2', 'a0'"), ("cancelled", "'f3'")] {
        sqlx::query(&format!(
            "UPDATE jobs SET status = '{status}' WHERE id IN ({ids})"
        ))
        .execute(&store.raw_pool_for_tests())
        .await
        .unwrap();
    }
    let f = |owner, kind, status| JobFilter {
        owner,
        kind,
        status,
    };
    let done = Some(JobStatus::Done);
    for (filter, want) in [
        (JobFilter::default(), 9),
        (f(None, None, done), 4),
        (f(None, None, Some(JobStatus::Cancelled)), 1),
        (f(None, None, Some(JobStatus::Queued)), 4),
        (f(None, None, Some(JobStatus::Running)), 0),
        (f(None, Some(JobKind::Sequence), done), 4),
        (f(None, Some(JobKind::MisereQuotient), None), 0),
        (f(Some("alice"), None, None), 2),
        (f(Some("alice"), Some(JobKind::Sequence), done), 1),
        (f(Some("bob"), None, None), 0),
    ] {
        assert_eq!(
            store.count_jobs_filtered(filter).await.unwrap(),
            want,
            "{filter:?}"
        );
        // Page by page, two at a time: the same jobs, each once, each matching.
        let mut seen = Vec::new();
        let mut after = None;
        loop {
            let page = store.list_jobs_filtered(filter, 2, after).await.unwrap();
            for j in &page {
                assert!(filter.status.is_none_or(|s| j.status == s), "{j:?}");
                assert!(filter.kind.is_none_or(|k| j.kind == k), "{j:?}");
                assert!(filter.owner.is_none_or(|o| j.owner.as_deref() == Some(o)));
            }
            seen.extend(page.iter().map(|j| j.id.clone()));
            if page.len() < 2 {
                break;
            }
            let last = page.last().unwrap();
            after = Some((last.created_at, last.id.clone()));
        }
        let distinct: std::collections::HashSet<_> = seen.iter().collect();
        assert_eq!(
            (seen.len(), distinct.len()),
            (want as usize, want as usize),
            "{filter:?}: {seen:?}"
        );
    }
}

on_both_backends!(
    exercise_job_filters,
    sqlite_job_filters,
    postgres_job_filters
);

/// Misère quotients round-trip (every part and every answer), a second write replaces the
/// row, the sizes are listed without the data, and a corrupt row is an error, not a panic.
async fn exercise_quotients(store: &Store) {
    use grundy::core::misere::{MisereQuotient, QuotientBudget};
    let game = Game::parse("0.123").unwrap();
    assert!(store.load_quotient(&game, 20).await.unwrap().is_none());
    let q = MisereQuotient::compute(&game, 20, &QuotientBudget::DEFAULT, &mut || false).unwrap();
    store.save_quotient(&q).await.unwrap();
    store.save_quotient(&q).await.unwrap();
    let back = store.load_quotient(&game, 20).await.unwrap().unwrap();
    assert_eq!(back.parts(), q.parts());
    assert_eq!(back.presentation(), q.presentation());
    assert_eq!(back.periodicity(), q.periodicity());
    assert_eq!((back.size(), back.p_size()), (20, 5));
    for heaps in [vec![1u64, 3, 6], vec![9, 9, 2], vec![20, 13, 4, 1]] {
        assert_eq!(back.winning_moves(&heaps), q.winning_moves(&heaps));
    }
    assert!(store.load_quotient(&game, 19).await.unwrap().is_none());
    let infos = store.quotient_infos("0.123").await.unwrap();
    assert_eq!(infos.len(), 1);
    assert_eq!(
        (infos[0].bound, infos[0].q_size, infos[0].p_size),
        (20, 20, 5)
    );
    let pool = store.raw_pool_for_tests();
    for bad in [
        "not json",
        r#"{"version":1,"bound":20,"size":2,"table":[0,1,1],"p":[1],"phi":[0],"words":[[],[]],"expansions":[]}"#,
        r#"{"version":9,"bound":20,"size":1,"table":[0],"p":[],"phi":[0],"words":[[]],"expansions":[]}"#,
    ] {
        sqlx::query("UPDATE misere_quotients SET data = $1 WHERE code = '0.123'")
            .bind(bad)
            .execute(&pool)
            .await
            .unwrap();
        let err = store.load_quotient(&game, 20).await.unwrap_err();
        assert!(matches!(err, StoreError::Corrupt(_)), "{bad}: {err}");
    }
}

on_both_backends!(exercise_quotients, sqlite_quotients, postgres_quotients);

/// Issue 41: what computed a job — its threads, CPU time and engine — is saved with each
/// checkpoint and read back as written; a checkpoint that says nothing of them (`None`) keeps
/// what is stored, so a run that cannot measure CPU time never erases the earlier runs'; the
/// next owner of a job reads the CPU time to go on from. A misère-quotient job's go with its
/// checkpoints and its end, and a job waiting for the same quotient gets the engine only.
async fn exercise_run_records(store: &Store) {
    let new = NewJob {
        code: "0.6".into(),
        max_n: 5000,
        keep_window: None,
        store_values: true,
    };
    let created = store.create_job(&new, "job-r", 0).await.unwrap();
    let fields = |j: &grundy::store::Job| {
        (
            j.threads,
            j.cpu_ms,
            j.engine_version.clone(),
            j.engine_commit.clone(),
        )
    };
    assert_eq!(fields(&created), (None, None, None, None));
    store.claim_job("r1", 60_000).await.unwrap().unwrap();
    let values: Vec<u32> = (0..100).map(|i| i % 5).collect();
    let checkpoint = |run: RunRecord<'static>, owner: &'static str, lease_ms: i64| {
        let values = values.clone();
        async move {
            store
                .checkpoint(CheckpointArgs {
                    lease_ms,
                    run,
                    ..CheckpointArgs::of_tail("job-r", owner, "0.6", &values[..])
                })
                .await
                .unwrap()
        }
    };
    let get = || async { fields(&store.get_job("job-r").await.unwrap().unwrap()) };
    // NULLs first, then numbers: the PostgreSQL statement cache must take both.
    assert_eq!(
        checkpoint(RunRecord::default(), "r1", 60_000).await,
        Checkpoint::Continue
    );
    assert_eq!(get().await, (None, None, None, None));
    let engine = ("0.1.0", "0123456789abcdef0123456789abcdef01234567-dirty");
    let run = RunRecord {
        threads: Some(6),
        cpu_ms: Some(1_234),
        engine: Some(engine),
    };
    assert_eq!(checkpoint(run, "r1", 60_000).await, Checkpoint::Continue);
    let want = (
        Some(6),
        Some(1_234),
        Some(engine.0.to_owned()),
        Some(engine.1.to_owned()),
    );
    assert_eq!(get().await, want);
    assert_eq!(
        checkpoint(RunRecord::default(), "r1", -1).await,
        Checkpoint::Continue,
        "nothing said, nothing changed"
    );
    assert_eq!(get().await, want);
    // The lease lapsed: the next owner reads the CPU time so far, and adds its own.
    let taken = store.claim_job("r2", 60_000).await.unwrap().unwrap();
    assert_eq!(fields(&taken), want);
    let run = RunRecord {
        threads: Some(1),
        cpu_ms: Some(taken.cpu_ms.unwrap() + 10),
        engine: Some(("0.2.0", "unknown")),
    };
    assert_eq!(checkpoint(run, "r2", 60_000).await, Checkpoint::Continue);
    let late = RunRecord {
        threads: Some(64),
        ..RunRecord::default()
    };
    assert_eq!(checkpoint(late, "r1", 60_000).await, Checkpoint::Lost);
    let back = store.get_job("job-r").await.unwrap().unwrap();
    assert_eq!(
        fields(&back),
        (
            Some(1),
            Some(1_244),
            Some("0.2.0".to_owned()),
            Some("unknown".to_owned())
        )
    );

    // A quotient job, and another key's job waiting for the same quotient.
    let quota = JobQuota {
        active_jobs: 10,
        heaps_per_day: 1_000,
    };
    let job = |a: Admission<Box<Job>>| match a {
        Admission::Created(j) => *j,
        other => panic!("{other:?}"),
    };
    let q = job(store
        .create_rows::<QuotientJob>(&("0.07".into(), 20), "q-a", Some(("alice", quota)))
        .await
        .unwrap());
    job(store
        .create_rows::<QuotientJob>(&("0.07".into(), 20), "q-b", Some(("bob", quota)))
        .await
        .unwrap());
    assert_eq!(fields(&q), (None, None, None, None));
    let claimed = store.claim_job("r1", 60_000).await.unwrap().unwrap();
    assert_eq!(claimed.id, "q-a");
    let progress = QuotientProgress {
        heap: 7,
        ..QuotientProgress::default()
    };
    let run = RunRecord {
        threads: Some(1),
        cpu_ms: Some(30),
        engine: Some(engine),
    };
    let cp = store
        .checkpoint_quotient(QuotientCheckpoint {
            job_id: "q-a",
            owner: "r1",
            code: "0.07",
            bound: 20,
            progress: &progress,
            state: None,
            lease_ms: 60_000,
            run,
        })
        .await
        .unwrap();
    assert_eq!(cp, Checkpoint::Continue);
    let a = store.get_job("q-a").await.unwrap().unwrap();
    let b = store.get_job("q-b").await.unwrap().unwrap();
    let with_engine = |threads, cpu| {
        (
            threads,
            cpu,
            Some(engine.0.to_owned()),
            Some(engine.1.to_owned()),
        )
    };
    assert_eq!(fields(&a), with_engine(Some(1), Some(30)));
    assert_eq!(
        fields(&b),
        with_engine(None, None),
        "waiting: the engine only"
    );
    let end = RunRecord {
        cpu_ms: Some(45),
        ..run
    };
    let failed = store
        .finish_quotient_job(
            &a,
            "r1",
            JobStatus::Failed,
            &progress,
            Some("test"),
            None,
            end,
        )
        .await
        .unwrap();
    assert!(failed);
    let a = store.get_job("q-a").await.unwrap().unwrap();
    let b = store.get_job("q-b").await.unwrap().unwrap();
    assert_eq!((a.status, b.status), (JobStatus::Failed, JobStatus::Failed));
    assert_eq!(fields(&a), with_engine(Some(1), Some(45)));
    assert_eq!(fields(&b), with_engine(None, None));
}

on_both_backends!(
    exercise_run_records,
    sqlite_run_records,
    postgres_run_records
);

/// A misère-quotient job on the queue's way (what its kind does there, `StoredKind`): a queued
/// job waits while another job computes its quotient; cancelling one drops the quotient's
/// saved state once no queued or running job computes it any more, and keeps it while one
/// does; a sequence job's cancel and delete leave the quotients' states alone.
async fn exercise_quotient_queue(store: &Store) {
    let quota = JobQuota {
        active_jobs: 10,
        heaps_per_day: 1_000,
    };
    for (id, owner, bound) in [
        ("q-a", "alice", 24),
        ("q-b", "bob", 24),
        ("q-c", "carol", 25),
    ] {
        let r = store
            .create_rows::<QuotientJob>(&("0.07".into(), bound), id, Some((owner, quota)))
            .await
            .unwrap();
        assert!(matches!(r, Admission::Created(_)), "{r:?}");
    }
    let claimed = store.claim_job("r1", 60_000).await.unwrap().unwrap();
    assert_eq!(claimed.id, "q-a");
    // q-b waits for q-a's computation; q-c, another quotient, does not.
    let next = store.claim_job("r2", 60_000).await.unwrap().unwrap();
    assert_eq!(next.id, "q-c");
    assert_eq!(store.claim_job("r3", 60_000).await.unwrap(), None);
    store.release_job("q-c", "r2").await.unwrap();
    let pool = store.raw_pool_for_tests();
    for bound in [24i64, 25] {
        sqlx::query(
            "INSERT INTO misere_job_states (code, bound, heap, data, updated_at) \
             VALUES ('0.07', $1, 5, '{}', 0)",
        )
        .bind(bound)
        .execute(&pool)
        .await
        .unwrap();
    }
    let states = || async {
        let rows = sqlx::query("SELECT bound FROM misere_job_states ORDER BY bound")
            .fetch_all(&store.raw_pool_for_tests())
            .await
            .unwrap();
        rows.iter()
            .map(|r| r.get::<i64, _>("bound"))
            .collect::<Vec<_>>()
    };
    // A sequence job cancelled and deleted: the quotients' states stay.
    let seq = NewJob {
        code: "0.07".into(),
        max_n: 24,
        keep_window: None,
        store_values: true,
    };
    store.create_job(&seq, "s", 0).await.unwrap();
    store.cancel_job("s").await.unwrap().unwrap();
    assert!(store.delete_job("s").await.unwrap());
    assert_eq!(states().await, [24, 25]);
    // q-b cancelled while q-a computes Q_24: its state stays; q-a flagged, still running.
    let b = store.cancel_job("q-b").await.unwrap().unwrap();
    assert_eq!(b.status, JobStatus::Cancelled);
    let a = store.cancel_job("q-a").await.unwrap().unwrap();
    assert_eq!((a.status, a.cancel_requested), (JobStatus::Running, true));
    assert_eq!(states().await, [24, 25]);
    // q-c, the only job of Q_25, cancelled while queued: its state goes.
    let c = store.cancel_job("q-c").await.unwrap().unwrap();
    assert_eq!(c.status, JobStatus::Cancelled);
    assert_eq!(states().await, [24]);
    assert!(store.delete_job("q-c").await.unwrap());
    assert!(
        !store.delete_job("q-a").await.unwrap(),
        "running: not deleted"
    );
}

on_both_backends!(
    exercise_quotient_queue,
    sqlite_quotient_queue,
    postgres_quotient_queue
);
