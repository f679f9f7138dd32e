//! The SQLite store under faults (issue #17, issue #15 item 2), all without root:
//!
//! - a connection whose COMMIT failed is never pooled again (the cause of the lost jobs);
//! - the store made full (`PRAGMA max_page_count`, through a test hook) while a job runs: no
//!   accepted job is lost (also across a restart), the job document and `/readyz` show the
//!   fault, only 2xx/503/507 answers, and the job finishes by itself once space returns, with
//!   values equal to an uninterrupted run and without being claimed again;
//! - the database file deleted, or replaced by another, while a job runs: the file is reopened,
//!   the schema re-applied and the running job re-registered from memory;
//! - concurrent claims on SQLite never claim a job twice;
//! - a crash loop (8 × `kill -9` mid-job) still finishes the job with the right values and an
//!   intact database;
//! - a window job (`"keep": "window"`, values past its window on disk) on a full store stalls
//!   visibly, holds no more than its window and the values not yet checkpointed, and goes on
//!   by itself once space returns, with exact statistics.

mod common;
mod fault_harness;

use fault_harness::{assert_values_match, fast, spawn_fresh, start, stored_status};
use grundy::store::{Checkpoint, CheckpointArgs, FaultKind, Store, CHUNK};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

fn path_of(url: &str) -> std::path::PathBuf {
    url.trim_start_matches("sqlite://").into()
}

async fn integrity_ok(url: &str) {
    let store = Store::connect(url).await.unwrap();
    let row: (String,) = sqlx::query_as("PRAGMA integrity_check")
        .fetch_one(&store.raw_pool_for_tests())
        .await
        .unwrap();
    assert_eq!(row.0, "ok");
}

/// The defect itself: SQLite rolls a transaction back on its own when COMMIT fails with
/// SQLITE_FULL, and sqlx 0.8 still counted the connection as inside it; pooled again, the next
/// failing transaction on it ended with `ROLLBACK TO SAVEPOINT`, leaving a transaction open
/// that swallowed every later write (202 answered, nothing committed, "database is locked"
/// for everyone else). Here every pooled connection is put in that state on purpose.
#[tokio::test]
async fn a_connection_whose_commit_failed_is_never_pooled_again() {
    use sqlx::Connection;
    let url = common::temp_sqlite_url();
    let store = Store::connect(&url).await.unwrap();
    let pool = store.raw_pool_for_tests();
    let mut conns = Vec::new();
    for _ in 0..4 {
        conns.push(pool.acquire().await.unwrap());
    }
    for c in conns.iter_mut() {
        let mut tx = c.begin().await.unwrap();
        // SQLite ends the transaction behind sqlx's back, as after SQLITE_FULL at COMMIT.
        sqlx::query("ROLLBACK").execute(&mut *tx).await.unwrap();
        assert!(tx.commit().await.is_err(), "COMMIT must fail");
    }
    drop(conns);

    // A write transaction that fails inside (the store is full), then acknowledged writes.
    store
        .create_job(&common::new_job("0.6", 1_000_000), "long", 0)
        .await
        .unwrap();
    let job = store.claim_job("r1", 60_000).await.unwrap().unwrap();
    assert_eq!(job.id, "long");
    store.set_sqlite_max_pages(Some(1));
    // Values that do not compress (the store compresses chunks), so the write needs pages.
    let big: Vec<u32> = (0..CHUNK as u32 * 3)
        .map(|i| i.wrapping_mul(2_654_435_761) >> 2)
        .collect();
    let args = CheckpointArgs {
        rate: Some(1.0),
        ..CheckpointArgs::of_tail("long", "r1", "0.6", &big)
    };
    let err = store
        .checkpoint(args.clone())
        .await
        .expect_err("a full store refuses the checkpoint");
    assert_eq!(err.kind(), FaultKind::Full, "{err}");
    assert_eq!(store.fault().map(|f| f.kind), Some(FaultKind::Full));
    store.set_sqlite_max_pages(None);
    for i in 0..8 {
        tokio::time::timeout(
            crate::common::UNHURRIED,
            store.create_job(&common::new_job("0.07", 10), &format!("after-{i}"), 0),
        )
        .await
        .expect("no write waits on a lock held by an abandoned transaction")
        .unwrap();
    }
    assert_eq!(store.fault(), None, "a committed write clears the fault");
    // Every acknowledged job is committed: a new connection (a restarted process) sees it.
    let other = Store::connect(&url).await.unwrap();
    for i in 0..8 {
        assert!(
            other
                .get_job(&format!("after-{i}"))
                .await
                .unwrap()
                .is_some(),
            "job after-{i} was acknowledged but not committed"
        );
    }
    tokio::time::timeout(
        crate::common::UNHURRIED,
        other.create_job(&common::new_job("0.07", 10), "from-other", 0),
    )
    .await
    .expect("another connection can write at once")
    .unwrap();
    // The checkpoint goes through now, and the job's lease is intact.
    let cp = store.checkpoint(args).await.unwrap();
    assert_eq!(cp, Checkpoint::Continue);
    assert_eq!(
        other
            .load_sequence("0.6")
            .await
            .unwrap()
            .unwrap()
            .values
            .to_u32_vec(),
        big
    );
}

/// A tail whose prefix is not stored is refused (a wiped store), never recorded as complete.
#[tokio::test]
async fn a_tail_without_its_prefix_is_refused() {
    let store = Store::connect(&common::temp_sqlite_url()).await.unwrap();
    store
        .create_job(&common::new_job("0.6", 1_000_000), "j", 0)
        .await
        .unwrap();
    store.claim_job("r1", 60_000).await.unwrap().unwrap();
    let tail = vec![1u32; 10];
    let err = store
        .checkpoint(CheckpointArgs {
            offset: CHUNK,
            computed: (CHUNK + tail.len()) as u64,
            ..CheckpointArgs::of_tail("j", "r1", "0.6", &tail)
        })
        .await
        .expect_err("prefix missing");
    assert!(
        matches!(err, grundy::store::StoreError::PrefixMissing { .. }),
        "{err}"
    );
    // save_sequence writes everything again instead.
    let values: Vec<u32> = (0..CHUNK as u32 + 10).map(|i| i % 5).collect();
    store
        .save_sequence("0.7", &values, CHUNK, None)
        .await
        .unwrap();
    let stored = store.load_sequence("0.7").await.unwrap().unwrap();
    assert_eq!(stored.values.to_u32_vec(), values);
}

#[tokio::test]
async fn concurrent_claims_on_sqlite_never_double_claim() {
    let store = Store::connect(&common::temp_sqlite_url()).await.unwrap();
    for i in 0..40 {
        store
            .create_job(&common::new_job("0.07", 10), &format!("j{i:02}"), 0)
            .await
            .unwrap();
    }
    // One replica: every worker claims under the same owner.
    common::assert_claimed_once(
        &store,
        |_| "replica".into(),
        40,
        |j| assert_eq!(j.attempts, 1, "{j:?}"),
    )
    .await;
    // Jobs held in memory are skipped.
    store
        .create_job(&common::new_job("0.07", 10), "held", 0)
        .await
        .unwrap();
    assert!(store
        .claim_job_excluding("replica", 60_000, &["held".to_owned()])
        .await
        .unwrap()
        .is_none());
}

/// The length of a job that runs for at least six seconds on any machine: 30 checkpoints of
/// 200 ms at its pace (`fault_harness::PACE`).
const LONG: u64 = 30 * fault_harness::PACE;

async fn wait_computed(live: &fault_harness::Live, id: &str) -> Value {
    live.wait_job(id, "a stored checkpoint", |j| {
        j["progress"]["computed"].as_u64().unwrap_or(0) > 0 && j["status"] == "running"
    })
    .await
}

#[tokio::test]
async fn a_full_store_loses_no_job_and_heals_without_a_restart() {
    let url = common::temp_sqlite_url();
    let mut live = start(fast(url.clone())).await;
    let store = live.store();
    let fresh = spawn_fresh("0.6", LONG as usize);
    let long = live.submit("0.6", LONG).await.expect("accepted");
    wait_computed(&live, &long).await;

    // The disk is full.
    store.set_sqlite_max_pages(Some(1));
    let j = live
        .wait_job(&long, "the job to show it is stalled", |j| {
            j["stalled"]["reason"] == "store_full"
        })
        .await;
    assert_eq!(j["status"], "running", "{j}");
    assert!(j["progress"]["eta_seconds"].is_null(), "no stale ETA: {j}");
    assert!(
        j["stalled"]["computed_in_memory"].as_u64().unwrap() > 0,
        "{j}"
    );
    let (ready, why) = live.readyz().await;
    assert_eq!(ready, 503, "{why}");
    assert!(why.contains("store_full"), "{why}");
    // Computation endpoints keep answering.
    let (s, v, _) = live
        .post("/v1/octal/sequence", &json!({"code": "0.07", "n": 100}))
        .await;
    assert_eq!(s, 200, "{v}");
    let (s, v, _) = live
        .post("/v1/welter/value", &json!({"position": [1, 2, 3]}))
        .await;
    assert_eq!(s, 200, "{v}");
    // Submissions while full: 202 (committed) or 507/503 with Retry-After; no other answer.
    let mut accepted = Vec::new();
    for i in 0..5 {
        if let Some(id) = live.submit("0.07", 50 + i).await {
            accepted.push(id);
        }
    }
    let m = live.get("/metrics").await;
    let _ = m; // (a text body; checked below through the raw text)
    let text = reqwest::get(format!("{}/metrics", live.base))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        text.contains("grundy_store_errors_total{kind=\"full\"}"),
        "metric by kind missing"
    );
    let stalled_at = live.job(&long).await["stalled"]["computed_in_memory"]
        .as_u64()
        .unwrap();

    // Space returns: no restart.
    store.set_sqlite_max_pages(None);
    for i in 0..5 {
        let deadline = Instant::now() + crate::common::UNHURRIED;
        loop {
            if let Some(id) = live.submit("0.07", 60 + i).await {
                accepted.push(id);
                break;
            }
            assert!(
                Instant::now() < deadline,
                "submissions still refused after space returned"
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
    let j = live
        .wait_job(&long, "the job to continue", |j| {
            j["stalled"].is_null() && j["progress"]["computed"].as_u64().unwrap_or(0) >= stalled_at
        })
        .await;
    // (The wait's own deadline bounds the healing: a wall-clock bound tighter than that would
    // only measure how busy the machine is.)
    assert_eq!(j["status"], "running", "{j}");
    let done = live
        .wait_job(&long, "the job to finish", |j| j["status"] == "done")
        .await;
    assert_eq!(
        done["attempts"], 1,
        "never claimed again (nothing recomputed): {done}"
    );
    assert_eq!(done["progress"]["computed"], LONG);
    for id in &accepted {
        live.wait_job(id, "an accepted job to finish", |j| j["status"] == "done")
            .await;
    }
    assert_eq!(live.readyz().await.0, 200);
    live.stop_workers().await;
    live.assert_only(&[200, 202, 503, 507]);

    // A restart on the same file: every accepted job exists, the values are right.
    let env = [
        ("GRUNDY_DATABASE_URL", url.clone()),
        ("GRUNDY_JOB_WORKERS", "0".to_owned()),
    ];
    let p = common::Process::spawn(&env).await;
    let s = p.server();
    for id in accepted.iter().chain([&long]) {
        let r = s.get(&format!("/v1/octal/jobs/{id}")).await;
        assert_eq!(r.status.as_u16(), 200, "accepted job {id} lost: {}", r.text);
        assert_eq!(r.body["status"], "done", "{}", r.text);
    }
    drop(p);
    assert_values_match(&url, "0.6", fresh).await;
    integrity_ok(&url).await;
}

#[tokio::test]
async fn a_full_store_stalls_a_window_job_which_goes_on_when_space_returns() {
    let url = common::temp_sqlite_url();
    let mut config = fast(url.clone());
    config.job_threads = grundy::config::JobThreads::Fixed(1);
    // 40 checkpoints at least: the store fills after about 11 of them.
    config.job_pace = Some(25_000);
    let mut live = start(config).await;
    let store = live.store();
    let n = 1_000_000u64;
    let (status, body, _) = live
        .post(
            "/v1/octal/jobs",
            &json!({"code": "0.167", "max_n": n, "keep": "window", "window": 65536}),
        )
        .await;
    assert_eq!(status, 202, "{body}");
    let id = body["id"].as_str().unwrap().to_owned();
    // Past the window, values on disk.
    let j = live
        .wait_job(&id, "values dropped to the archive", |j| {
            j["progress"]["computed"].as_u64().unwrap_or(0) > 4 * 65536
        })
        .await;
    assert_eq!(j["status"], "running", "the job ended first: {j}");
    store.set_sqlite_max_pages(Some(1));
    let j = live
        .wait_job(&id, "the window job to show it is stalled", |j| {
            j["stalled"]["reason"] == "store_full"
        })
        .await;
    assert_eq!(j["status"], "running", "{j}");
    // Stalled, it computes nothing further: what it holds stays put.
    let held = j["stalled"]["computed_in_memory"].as_u64().unwrap();
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let later = live.job(&id).await;
    assert_eq!(
        later["stalled"]["computed_in_memory"].as_u64().unwrap(),
        held,
        "{later}"
    );
    assert!(held <= j["progress"]["computed"].as_u64().unwrap() + (1 << 24));
    store.set_sqlite_max_pages(None);
    let done = live
        .wait_job(&id, "the window job to finish", |j| j["status"] == "done")
        .await;
    assert_eq!(done["progress"]["computed"], n, "{done}");
    assert_eq!(done["attempts"], 1, "never claimed again: {done}");
    assert!(
        done["archive"]["disk_bytes"].as_u64().unwrap() > 0,
        "{done}"
    );
    let (_, doc) = live.get(&format!("/v1/octal/jobs/{id}/statistics")).await;
    let mut e =
        grundy::core::octal::Engine::new(&grundy::core::octal::Game::parse("0.167").unwrap());
    e.extend_to(n as usize, &mut || false).unwrap();
    let mut want = grundy::core::octal::Statistics::new();
    want.observe_values(0, e.values().as_ref()).unwrap();
    assert_eq!(doc["computed"], n);
    assert_eq!(
        doc["current"]["histogram"],
        json!(want.current().unwrap().histogram),
        "{doc}"
    );
    live.stop_workers().await;
    integrity_ok(&url).await;
}

/// Deleting the file (`rm grundy.db`) or replacing it (a restore) under a running process.
async fn file_swapped_while_running(replace: bool) {
    let url = common::temp_sqlite_url();
    let path = path_of(&url);
    let live = start(fast(url.clone())).await;
    let fresh = spawn_fresh("0.6", LONG as usize);
    let long = live.submit("0.6", LONG).await.expect("accepted");
    wait_computed(&live, &long).await;
    if replace {
        // Another, empty database moved over the file.
        let other_url = common::temp_sqlite_url();
        let other = Store::connect(&other_url).await.unwrap();
        other.raw_pool_for_tests().close().await;
        std::fs::rename(path_of(&other_url), &path).unwrap();
    } else {
        std::fs::remove_file(&path).unwrap();
    }
    // The file is reopened, the job re-registered from memory and finished there.
    let done = live
        .wait_job(&long, "the job to finish in the new file", |j| {
            j["status"] == "done"
        })
        .await;
    assert_eq!(done["progress"]["computed"], LONG, "{done}");
    assert!(path.exists(), "the database file is back");
    let id = live
        .submit("0.07", 77)
        .await
        .expect("accepted after the swap");
    live.wait_job(&id, "a new job", |j| j["status"] == "done")
        .await;
    assert_eq!(live.readyz().await.0, 200);
    live.assert_only(&[200, 202, 404, 503]);
    // What a restart would see: the job and the whole sequence are in the file now.
    assert_eq!(stored_status(&url, &long).await.as_deref(), Some("done"));
    let reopened = Store::connect(&url).await.unwrap();
    assert!(reopened.get_job(&id).await.unwrap().is_some());
    assert_values_match(&url, "0.6", fresh).await;
    integrity_ok(&url).await;
}

#[tokio::test]
async fn a_deleted_sqlite_file_is_recreated_and_refilled() {
    file_swapped_while_running(false).await;
}

#[tokio::test]
async fn a_replaced_sqlite_file_is_reopened_and_refilled() {
    file_swapped_while_running(true).await;
}

/// The crash loop that already worked must keep working: 8 × `kill -9` during one job.
#[tokio::test]
async fn eight_kill_9_during_a_job_then_done_with_the_right_values() {
    let url = common::temp_sqlite_url();
    let env = [
        ("GRUNDY_DATABASE_URL", url.clone()),
        ("GRUNDY_JOB_CHECKPOINT_MS", "200".to_owned()),
        ("GRUNDY_JOB_LEASE_MS", "1500".to_owned()),
        ("GRUNDY_REPLICA_ID", "crashy".to_owned()),
        ("GRUNDY_JOB_WORKERS", "1".to_owned()),
        // 50 checkpoints at least, on any machine: 8 restarts take one or two each.
        ("GRUNDY_JOB_PACE", "5000".to_owned()),
    ];
    // Long enough to survive 8 restarts (each resumes from its last checkpoint).
    let n = 250_000u64;
    let fresh = spawn_fresh("0.6", n as usize);
    let mut p = common::Process::spawn(&env).await;
    let r = p
        .server()
        .post("/v1/octal/jobs", &json!({"code": "0.6", "max_n": n}))
        .await;
    assert_eq!(r.status.as_u16(), 202, "{}", r.text);
    let id = r.body["id"].as_str().unwrap().to_owned();
    let mut last = 0;
    for round in 0..8 {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let j = p.server().get(&format!("/v1/octal/jobs/{id}")).await.body;
            assert_ne!(
                j["status"], "done",
                "finished before crash {round}; make it longer"
            );
            let c = j["progress"]["computed"].as_u64().unwrap_or(0);
            if c > last {
                last = c;
                break;
            }
            assert!(
                Instant::now() < deadline,
                "no progress before crash {round}: {j}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        p.kill9();
        p = common::Process::spawn(&env).await;
    }
    let done = common::wait_job(&p.server(), &id).await;
    assert_eq!(done["status"], "done", "{done}");
    assert_eq!(done["progress"]["computed"], n);
    assert!(done["attempts"].as_u64().unwrap() >= 9, "{done}");
    p.terminate();
    // Sampled values equal an uninterrupted run.
    let stored = fault_harness::stored_values(&url, "0.6").await;
    let fresh = fresh.await.unwrap();
    for i in (0..n as usize)
        .step_by(997)
        .chain(n as usize - 1000..n as usize)
    {
        assert_eq!(stored[i], fresh[i], "g({i})");
    }
    integrity_ok(&url).await;
}

/// Readiness checks that the schema is there; a vanished schema is re-applied by itself.
#[tokio::test]
async fn a_missing_schema_fails_the_ping_and_is_reapplied() {
    let store = Store::connect(&common::temp_sqlite_url()).await.unwrap();
    store.ping().await.unwrap();
    let epoch = store.epoch();
    // sequence_chunks too: re-applied, it needs the columns of the later migrations again
    // (SQLite has no ADD COLUMN IF NOT EXISTS; see `Store::remigrate`).
    for table in ["jobs", "sequence_chunks"] {
        sqlx::query(&format!("DROP TABLE {table}"))
            .execute(&store.raw_pool_for_tests())
            .await
            .unwrap();
    }
    let err = store.ping().await.expect_err("the schema is gone");
    assert_eq!(err.kind(), FaultKind::Schema, "{err}");
    let deadline = Instant::now() + crate::common::UNHURRIED;
    while store.ping().await.is_err() || store.fault().is_some() {
        assert!(
            Instant::now() < deadline,
            "schema not re-applied: {:?}",
            store.fault()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(
        store.epoch() > epoch,
        "writers are told to write everything again"
    );
    store
        .create_job(&common::new_job("0.07", 10), "after", 0)
        .await
        .unwrap();
    let values: Vec<u32> = (0..1000).map(|i| i % 300).collect();
    store.save_sequence("0.07", &values, 0, None).await.unwrap();
    let stored = store.load_sequence("0.07").await.unwrap().unwrap();
    assert_eq!(stored.values.to_u32_vec(), values);
}
