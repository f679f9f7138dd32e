//! The PostgreSQL store under faults (issue #17, issue #15 item 2): the backend of the
//! checkpointing connection terminated mid-job, checkpoints refused by a revoked privilege,
//! and the database dropped (`DROP DATABASE … WITH (FORCE)`) and created again empty. In each
//! case no accepted job is lost, the fault is visible (job document, `/readyz`), only
//! 2xx/503 answers, and the running job finishes by itself with values equal to an
//! uninterrupted run, without being claimed again.
//!
//! `#[ignore]`d in plain `cargo test` (no server on a fresh machine); `.ci/run` runs them with
//! `--ignored` against the local server (`GRUNDY_TEST_POSTGRES_URL`).

mod common;
mod fault_harness;

use fault_harness::{assert_values_match, fast, spawn_fresh, start, stored_status, Live};
use grundy::store::Store;
use std::time::{Duration, Instant};

/// At least 30 checkpoints on any machine (`fault_harness::PACE`).
const LONG: u64 = 30 * fault_harness::PACE;

fn admin_url() -> String {
    std::env::var("GRUNDY_TEST_POSTGRES_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".into())
}

async fn admin() -> sqlx::AnyPool {
    sqlx::any::install_default_drivers();
    sqlx::AnyPool::connect(&admin_url()).await.unwrap()
}

/// `url` with another database name.
fn with_db(url: &str, db: &str) -> String {
    format!("{}/{db}", url.rsplit_once('/').unwrap().0)
}

fn db_of(url: &str) -> String {
    url.rsplit_once('/').unwrap().1.to_owned()
}

async fn exec(pool: &sqlx::AnyPool, sql: &str) {
    sqlx::query(sql)
        .execute(pool)
        .await
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
}

/// Drops a test database (and role) at the end of a test; the server still connected to it
/// is forced off.
async fn drop_db(db: &str, role: Option<&str>) {
    let admin = admin().await;
    exec(
        &admin,
        &format!("DROP DATABASE IF EXISTS {db} WITH (FORCE)"),
    )
    .await;
    if let Some(r) = role {
        exec(&admin, &format!("DROP ROLE IF EXISTS {r}")).await;
    }
}

async fn wait_computed(live: &Live, id: &str) {
    live.wait_job(id, "a stored checkpoint", |j| {
        j["progress"]["computed"].as_u64().unwrap_or(0) > 0 && j["status"] == "running"
    })
    .await;
}

/// The long job finishes without being claimed again, and so does every accepted job.
async fn long_and_accepted_jobs_finish(live: &Live, url: &str, long: &str, accepted: &[String]) {
    let done = live
        .wait_job(long, "the job to finish", |j| j["status"] == "done")
        .await;
    assert_eq!(done["attempts"], 1, "never claimed again: {done}");
    assert_eq!(done["progress"]["computed"], LONG);
    accepted_jobs_survive(live, url, accepted).await;
}

/// Every accepted job exists (committed) as a new connection sees it, and finishes.
async fn accepted_jobs_survive(live: &Live, url: &str, ids: &[String]) {
    for id in ids {
        live.wait_job(id, "an accepted job to finish", |j| j["status"] == "done")
            .await;
    }
    let fresh = Store::connect(url).await.unwrap();
    for id in ids {
        let j = fresh.get_job(id).await.unwrap();
        assert!(j.is_some(), "accepted job {id} was not committed");
    }
}

#[tokio::test]
#[ignore = "needs PostgreSQL; run by .ci/run with --ignored"]
async fn terminating_the_checkpointing_backend_loses_nothing() {
    let url = common::fresh_postgres_url().await;
    let live = start(fast(url.clone())).await;
    let fresh = spawn_fresh("0.6", LONG as usize);
    let long = live.submit("0.6", LONG).await.expect("accepted");
    wait_computed(&live, &long).await;
    let admin = admin().await;
    let mut killed = 0usize;
    let mut accepted = Vec::new();
    for i in 0..16 {
        // Every backend of the service's database: the checkpointing connection among them.
        let rows = sqlx::query(
            "SELECT pg_terminate_backend(pid) AS t FROM pg_stat_activity \
             WHERE datname = $1 AND pid <> pg_backend_pid()",
        )
        .bind(db_of(&url))
        .fetch_all(&admin)
        .await
        .unwrap();
        killed += rows.len();
        if let Some(id) = live.submit("0.07", 40 + i).await {
            accepted.push(id);
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    assert!(killed > 0, "no backend was terminated");
    long_and_accepted_jobs_finish(&live, &url, &long, &accepted).await;
    live.assert_only(&[200, 202, 503]);
    assert_values_match(&url, "0.6", fresh).await;
    drop_db(&db_of(&url), None).await;
}

#[tokio::test]
#[ignore = "needs PostgreSQL; run by .ci/run with --ignored"]
async fn a_revoked_privilege_stalls_checkpoints_until_granted_again() {
    let admin = admin().await;
    let tag = uuid::Uuid::new_v4().simple().to_string();
    let role = format!("grundy_app_{tag}");
    let db = format!("grundy_test_{tag}");
    exec(&admin, &format!("CREATE ROLE {role} LOGIN")).await;
    exec(&admin, &format!("CREATE DATABASE {db} OWNER {role}")).await;
    let base = admin_url();
    let (scheme_user, rest) = base.split_once('@').unwrap();
    let scheme = scheme_user.split_once("://").unwrap().0;
    let url = with_db(&format!("{scheme}://{role}@{rest}"), &db);
    let live = start(fast(url.clone())).await;
    let fresh = spawn_fresh("0.6", LONG as usize);
    let long = live.submit("0.6", LONG).await.expect("accepted");
    wait_computed(&live, &long).await;

    let su = sqlx::AnyPool::connect(&with_db(&base, &db)).await.unwrap();
    exec(
        &su,
        &format!("REVOKE INSERT, UPDATE ON jobs, sequence_chunks FROM {role}"),
    )
    .await;
    let j = live
        .wait_job(&long, "the job to show it is stalled", |j| {
            j["stalled"]["reason"] == "store_permission"
        })
        .await;
    assert!(j["progress"]["eta_seconds"].is_null(), "no stale ETA: {j}");
    let deadline = Instant::now() + crate::common::UNHURRIED;
    loop {
        let (s, why) = live.readyz().await;
        if s == 503 {
            assert!(why.contains("store_permission"), "{why}");
            break;
        }
        assert!(Instant::now() < deadline, "readiness still {s}: {why}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(
        live.submit("0.07", 10).await.is_none(),
        "a refused insert is not acknowledged"
    );
    let (s, _, _) = live
        .post(
            "/v1/octal/sequence",
            &serde_json::json!({"code": "0.07", "n": 50}),
        )
        .await;
    assert_eq!(s, 200, "compute endpoints keep answering");

    exec(
        &su,
        &format!("GRANT INSERT, UPDATE ON jobs, sequence_chunks TO {role}"),
    )
    .await;
    let mut accepted = Vec::new();
    let deadline = Instant::now() + crate::common::UNHURRIED;
    while accepted.len() < 3 {
        if let Some(id) = live.submit("0.07", 20 + accepted.len() as u64).await {
            accepted.push(id);
        }
        assert!(
            Instant::now() < deadline,
            "submissions still refused after the grant"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    long_and_accepted_jobs_finish(&live, &url, &long, &accepted).await;
    assert_eq!(live.readyz().await.0, 200);
    live.assert_only(&[200, 202, 503]);
    assert_values_match(&url, "0.6", fresh).await;
    su.close().await;
    drop_db(&db, Some(&role)).await;
}

#[tokio::test]
#[ignore = "needs PostgreSQL; run by .ci/run with --ignored"]
async fn a_dropped_and_recreated_database_is_repaired_and_refilled() {
    let url = common::fresh_postgres_url().await;
    let db = db_of(&url);
    let live = start(fast(url.clone())).await;
    let fresh = spawn_fresh("0.6", LONG as usize);
    let long = live.submit("0.6", LONG).await.expect("accepted");
    wait_computed(&live, &long).await;
    // Sequences computed by plain requests are in memory too.
    let admin = admin().await;
    exec(&admin, &format!("DROP DATABASE {db} WITH (FORCE)")).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    exec(&admin, &format!("CREATE DATABASE {db}")).await;

    // The schema comes back, the running job re-registers from memory and finishes.
    let done = live
        .wait_job(&long, "the job to finish in the new database", |j| {
            j["status"] == "done"
        })
        .await;
    assert_eq!(done["progress"]["computed"], LONG, "{done}");
    let deadline = Instant::now() + crate::common::UNHURRIED;
    let mut accepted = Vec::new();
    while accepted.is_empty() {
        accepted.extend(live.submit("0.07", 33).await);
        assert!(
            Instant::now() < deadline,
            "submissions refused after the database came back"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    accepted_jobs_survive(&live, &url, &accepted).await;
    assert_eq!(stored_status(&url, &long).await.as_deref(), Some("done"));
    assert_eq!(live.readyz().await.0, 200);
    live.assert_only(&[200, 202, 404, 503]);
    assert_values_match(&url, "0.6", fresh).await;
    drop_db(&db, None).await;
}
