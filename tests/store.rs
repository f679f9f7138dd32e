//! The store on both backends: sequences round-trip and never shrink; the job life cycle;
//! leases (a second owner cannot take a live job, can take an expired one, and the first
//! owner's late writes are refused).
//!
//! SQLite runs in plain `cargo test`. The PostgreSQL variants are `#[ignore]`d there (no server
//! on a fresh machine) and run by `.ci/run` with `cargo test -- --ignored` against the local
//! server (`GRUNDY_TEST_POSTGRES_URL`, default postgres://postgres@127.0.0.1:5432/test), each
//! in a fresh database.

mod common;

use grundy::store::{Checkpoint, CheckpointArgs, JobStatus, NewJob, Store, CHUNK};

async fn sqlite() -> Store {
    Store::connect(&common::temp_sqlite_url()).await.unwrap()
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
    assert_eq!(
        store.load_sequence("0.07").await.unwrap().unwrap().values,
        values[..1000]
    );
    store
        .save_sequence("0.07", &values, 1000, Some(r#"{"status":"periodic"}"#))
        .await
        .unwrap();
    let s = store.load_sequence("0.07").await.unwrap().unwrap();
    assert_eq!(s.values, values);
    assert_eq!(s.periodicity.as_deref(), Some(r#"{"status":"periodic"}"#));
    // A shorter write (a slower concurrent writer) never shrinks what is stored.
    store
        .save_sequence("0.07", &values[..10], 0, None)
        .await
        .unwrap();
    let s = store.load_sequence("0.07").await.unwrap().unwrap();
    assert_eq!(s.values, values);
    assert!(s.periodicity.is_some());
}

async fn exercise_jobs(store: &Store) {
    let a = store
        .create_job(
            &NewJob {
                code: "0.6".into(),
                max_n: 5000,
            },
            "job-a",
            0,
        )
        .await
        .unwrap();
    assert_eq!(a.status, JobStatus::Queued);
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    let b = store
        .create_job(
            &NewJob {
                code: "0.07".into(),
                max_n: 100,
            },
            "job-b",
            0,
        )
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
            .checkpoint(CheckpointArgs {
                job_id: "job-a",
                owner: "r1",
                code: "0.6",
                offset: 0,
                tail: &values[..10],
                periodicity: None,
                rate: None,
                lease_ms: 60_000
            })
            .await
            .unwrap(),
        Checkpoint::Continue
    );
    assert_eq!(
        store
            .checkpoint(CheckpointArgs {
                job_id: "job-a",
                owner: "r1",
                code: "0.6",
                offset: 0,
                tail: &values,
                periodicity: None,
                rate: Some(1e5),
                lease_ms: 60_000
            })
            .await
            .unwrap(),
        Checkpoint::Continue
    );
    assert_eq!(
        store
            .checkpoint(CheckpointArgs {
                job_id: "job-a",
                owner: "r2",
                code: "0.6",
                offset: 0,
                tail: &values,
                periodicity: None,
                rate: None,
                lease_ms: 60_000
            })
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
            .checkpoint(CheckpointArgs {
                job_id: "job-b",
                owner: "r2",
                code: "0.07",
                offset: 0,
                tail: &values[..50],
                periodicity: None,
                rate: None,
                lease_ms: 60_000
            })
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
                job_id: "job-a",
                owner: "r1",
                code: "0.6",
                offset: 0,
                tail: &values,
                periodicity: None,
                rate: None,
                lease_ms: -1
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
            .checkpoint(CheckpointArgs {
                job_id: "job-a",
                owner: "r1",
                code: "0.6",
                offset: 0,
                tail: &values,
                periodicity: None,
                rate: None,
                lease_ms: 60_000
            })
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
        .create_job(
            &NewJob {
                code: "0.77".into(),
                max_n: 10,
            },
            "job-c",
            0,
        )
        .await
        .unwrap();
    assert_eq!(
        store.cancel_job("job-c").await.unwrap().unwrap().status,
        JobStatus::Cancelled
    );
    store
        .create_job(
            &NewJob {
                code: "0.77".into(),
                max_n: 10,
            },
            "job-d",
            0,
        )
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

#[tokio::test]
async fn sqlite_sequences() {
    exercise_sequences(&sqlite().await).await;
}

#[tokio::test]
async fn sqlite_jobs() {
    exercise_jobs(&sqlite().await).await;
}

/// A store on a fresh PostgreSQL database for this test run.
pub async fn postgres() -> Store {
    Store::connect(&common::fresh_postgres_url().await)
        .await
        .unwrap()
}

#[tokio::test]
#[ignore = "needs PostgreSQL; run by .ci/run with --ignored"]
async fn postgres_sequences() {
    exercise_sequences(&postgres().await).await;
}

#[tokio::test]
#[ignore = "needs PostgreSQL; run by .ci/run with --ignored"]
async fn postgres_jobs() {
    exercise_jobs(&postgres().await).await;
}

#[tokio::test]
#[ignore = "needs PostgreSQL; run by .ci/run with --ignored"]
async fn postgres_concurrent_claims_never_double_claim() {
    let store = postgres().await;
    for i in 0..40 {
        store
            .create_job(
                &NewJob {
                    code: "0.07".into(),
                    max_n: 10,
                },
                &format!("j{i:02}"),
                0,
            )
            .await
            .unwrap();
    }
    let mut tasks = Vec::new();
    for r in 0..8 {
        let s = store.clone();
        tasks.push(tokio::spawn(async move {
            let mut mine = Vec::new();
            while let Some(j) = s.claim_job(&format!("r{r}"), 60_000).await.unwrap() {
                mine.push(j.id);
            }
            mine
        }));
    }
    let mut all = Vec::new();
    for t in tasks {
        all.extend(t.await.unwrap());
    }
    all.sort();
    let before = all.len();
    all.dedup();
    assert_eq!(before, 40, "every job claimed");
    assert_eq!(all.len(), 40, "no job claimed twice");
}
