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
