//! Two real server processes on one PostgreSQL database share the job queue: every job is
//! done, and each by exactly one claim (`attempts == 1`). Needs the local PostgreSQL server;
//! `#[ignore]`d in plain `cargo test`, run by `.ci/run` with `--ignored`.

mod common;

use common::{wait_job, Process};
use serde_json::json;

#[tokio::test]
#[ignore = "needs PostgreSQL; run by .ci/run with --ignored"]
async fn two_replicas_share_the_queue_and_compute_each_job_once() {
    let url = common::fresh_postgres_url().await;
    let env = |id: &str| {
        vec![
            ("GRUNDY_DATABASE_URL", url.clone()),
            ("GRUNDY_JOB_WORKERS", "2".to_owned()),
            ("GRUNDY_JOB_CHECKPOINT_MS", "200".to_owned()),
            ("GRUNDY_REPLICA_ID", id.to_owned()),
        ]
    };
    let a = Process::spawn(&env("replica-a")).await;
    let b = Process::spawn(&env("replica-b")).await;
    let codes = [
        "0.6", "0.07", "0.77", "0.137", "0.4", "0.45", "0.14", "0.15", "0.16", "0.36", "0.51",
        "0.52",
    ];
    let mut ids = Vec::new();
    for (i, code) in codes.iter().cycle().take(36).enumerate() {
        // Alternate the replica that receives the submission.
        let s = if i % 2 == 0 { a.server() } else { b.server() };
        let max_n = 20_000 + 1000 * i as u64;
        let r = s
            .post("/v1/octal/jobs", &json!({"code": code, "max_n": max_n}))
            .await;
        assert_eq!(r.status.as_u16(), 202, "{}", r.text);
        ids.push(r.body["id"].as_str().unwrap().to_owned());
    }
    for id in &ids {
        let j = wait_job(&a.server(), id, 300).await;
        assert_eq!(j["status"], "done", "{j}");
        assert_eq!(j["attempts"], 1, "claimed exactly once: {j}");
    }
    // Both replicas see the same list.
    let la = a.server().get("/v1/octal/jobs?limit=100").await.body;
    let lb = b.server().get("/v1/octal/jobs?limit=100").await.body;
    assert_eq!(la["jobs"].as_array().unwrap().len(), 36);
    assert_eq!(la["jobs"], lb["jobs"]);
    // And the stored values are right (served from the shared store by the other replica).
    let v = b
        .server()
        .ok("/v1/octal/sequence", &json!({"code": "0.07", "n": 200}))
        .await;
    assert_eq!(v["periodicity"]["period"], 34);
}

#[tokio::test]
#[ignore = "needs PostgreSQL; run by .ci/run with --ignored"]
async fn a_census_is_computed_by_both_replicas_and_verified_once() {
    let url = common::fresh_postgres_url().await;
    let env = |id: &str| {
        vec![
            ("GRUNDY_DATABASE_URL", url.clone()),
            ("GRUNDY_JOB_WORKERS", "2".to_owned()),
            ("GRUNDY_JOB_CHECKPOINT_MS", "200".to_owned()),
            ("GRUNDY_REPLICA_ID", id.to_owned()),
        ]
    };
    let a = Process::spawn(&env("replica-a")).await;
    let b = Process::spawn(&env("replica-b")).await;
    let codes = ["0.6", "0.07", "0.137", "grundy", "0.167", "0.14"];
    let r = a
        .server()
        .post(
            "/v1/octal/census",
            &json!({"codes": codes, "max_n": 20000, "window": 65536}),
        )
        .await;
    assert_eq!(r.status.as_u16(), 201, "{}", r.text);
    let path = format!("/v1/octal/census/{}", r.body["id"].as_str().unwrap());
    // Both replicas read it at once, over and over: either may start a verification job.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(300);
    let (sa, sb) = (a.server(), b.server());
    let doc = loop {
        let (ra, rb) = tokio::join!(sa.get(&path), sb.get(&path));
        assert_eq!(ra.status.as_u16(), 200, "{}", ra.text);
        assert_eq!(rb.status.as_u16(), 200, "{}", rb.text);
        if (ra.body["status"] == "done" && rb.body["status"] == "done")
            || std::time::Instant::now() > deadline
        {
            assert_eq!(ra.body, rb.body, "both replicas answer the same table");
            break ra.body;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    };
    assert_eq!(doc["status"], "done", "{doc}");
    for g in doc["games"].as_array().unwrap() {
        let periodic = ["0.07", "0.137"].contains(&g["code"].as_str().unwrap());
        let want = if periodic { "verified" } else { "unknown" };
        assert_eq!(g["verdict_kind"], want, "{g}");
    }
    // One job per game and one verification job per periodic game: no more.
    let jobs = a.server().get("/v1/octal/jobs?limit=100").await.body;
    let jobs = jobs["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), codes.len() + 2, "{jobs:?}");
    assert!(jobs
        .iter()
        .all(|j| j["status"] == "done" && j["attempts"] == 1));
}
