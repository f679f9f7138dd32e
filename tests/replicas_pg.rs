//! Two real server processes on one PostgreSQL database share the job queue: every job is
//! done, and each by exactly one claim (`attempts == 1`). Needs the local PostgreSQL server;
//! `#[ignore]`d in plain `cargo test`, run by `.ci/run` with `--ignored`.

mod common;

use common::{wait_job, Process};
use serde_json::json;

/// Two replicas (`replica-a`, `replica-b`) on the database at `url`, two job workers each,
/// checkpointing every 200 ms, with the variables `extra` too.
async fn two_replicas(url: &str, extra: &[(&'static str, String)]) -> (Process, Process) {
    let env = |id: &str| {
        let mut env = vec![
            ("GRUNDY_DATABASE_URL", url.to_owned()),
            ("GRUNDY_JOB_WORKERS", "2".to_owned()),
            ("GRUNDY_JOB_CHECKPOINT_MS", "200".to_owned()),
            ("GRUNDY_REPLICA_ID", id.to_owned()),
        ];
        env.extend_from_slice(extra);
        env
    };
    (
        Process::spawn(&env("replica-a")).await,
        Process::spawn(&env("replica-b")).await,
    )
}

#[tokio::test]
#[ignore = "needs PostgreSQL; run by .ci/run with --ignored"]
async fn two_replicas_share_the_queue_and_compute_each_job_once() {
    let url = common::fresh_postgres_url().await;
    let (a, b) = two_replicas(&url, &[]).await;
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
        let j = wait_job(&a.server(), id).await;
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
    let (a, b) = two_replicas(&url, &[]).await;
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

/// Misère quotients on two replicas: every request for a quotient — the same key's, sent to
/// either replica at once — joins one job per key; two keys' jobs for one quotient are never
/// computed both: one runs (claimed once), the other waits and ends done with it, never
/// claimed. Each quotient is then read on either replica.
#[tokio::test]
#[ignore = "needs PostgreSQL; run by .ci/run with --ignored"]
async fn misere_quotients_are_computed_once_across_replicas() {
    use grundy::service::keys::{key_file_line, new_key, Scope};
    let url = common::fresh_postgres_url().await;
    let (alice, bob, root) = (new_key().unwrap(), new_key().unwrap(), new_key().unwrap());
    let keys = std::env::temp_dir().join(format!("grundy-keys-{}", uuid::Uuid::new_v4()));
    std::fs::write(
        &keys,
        [
            key_file_line("alice", &[Scope::Jobs], &alice),
            key_file_line("bob", &[Scope::Jobs], &bob),
            key_file_line("root", &[Scope::Admin], &root),
        ]
        .join("\n"),
    )
    .unwrap();
    let (a, b) = two_replicas(
        &url,
        &[("GRUNDY_API_KEYS_FILE", keys.display().to_string())],
    )
    .await;
    let client = reqwest::Client::new();
    let post = |base: String, key: String, bound: u64| {
        let client = client.clone();
        async move {
            let r = client
                .post(format!("{base}/v1/octal/misere/quotient"))
                .bearer_auth(key)
                .json(&json!({"code": "0.07", "max_heap": bound, "async": true}))
                .send()
                .await
                .unwrap();
            assert_eq!(r.status().as_u16(), 202);
            let j: serde_json::Value = r.json().await.unwrap();
            (
                bound,
                j["owner"].as_str().unwrap().to_owned(),
                j["id"].as_str().unwrap().to_owned(),
            )
        }
    };
    let bounds = [29u64, 30, 31, 32];
    let mut requests = Vec::new();
    for _ in 0..3 {
        for &bound in &bounds {
            for key in [&alice, &bob] {
                for base in [&a.base, &b.base] {
                    requests.push(post(base.clone(), key.clone(), bound));
                }
            }
        }
    }
    let answers = futures_util::future::join_all(requests).await;
    let mut ids = std::collections::BTreeMap::new();
    for (bound, owner, id) in answers {
        let prev = ids.entry((bound, owner.clone())).or_insert(id.clone());
        assert_eq!(*prev, id, "one job per key and quotient: {bound} {owner}");
    }
    assert_eq!(ids.len(), 2 * bounds.len());
    // Never two jobs of one quotient running at once; all end done.
    let get = |id: String| {
        let (client, base, root) = (client.clone(), a.base.clone(), root.clone());
        async move {
            let r = client
                .get(format!("{base}/v1/octal/jobs/{id}"))
                .bearer_auth(root)
                .send()
                .await
                .unwrap();
            r.json::<serde_json::Value>().await.unwrap()
        }
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(300);
    loop {
        let mut all_done = true;
        for &bound in &bounds {
            let ja = get(ids[&(bound, "alice".to_owned())].clone()).await;
            let jb = get(ids[&(bound, "bob".to_owned())].clone()).await;
            assert!(
                !(ja["status"] == "running" && jb["status"] == "running"),
                "Q_{bound} computed twice at once: {ja} {jb}"
            );
            all_done &= ja["status"] == "done" && jb["status"] == "done";
        }
        if all_done {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "not done in time");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    for &bound in &bounds {
        let ja = get(ids[&(bound, "alice".to_owned())].clone()).await;
        let jb = get(ids[&(bound, "bob".to_owned())].clone()).await;
        let mut attempts = [
            ja["attempts"].as_u64().unwrap(),
            jb["attempts"].as_u64().unwrap(),
        ];
        attempts.sort_unstable();
        assert_eq!(attempts, [0, 1], "Q_{bound}: computed once: {ja} {jb}");
        assert_eq!(ja["quotient"]["q_size"], jb["quotient"]["q_size"]);
        for s in [a.server(), b.server()] {
            let r = s
                .get(&format!(
                    "/v1/octal/misere/quotient?code=0.07&max_heap={bound}"
                ))
                .await;
            assert_eq!(r.status.as_u16(), 200, "{}", r.text);
            assert_eq!(r.body["q_size"], ja["quotient"]["q_size"]);
        }
    }
    let _ = std::fs::remove_file(&keys);
}

/// `grundy census … --store postgres://…` on two processes (two machines, as far as the store
/// can tell): the second finds the first's census and takes the games no one computes yet;
/// the first killed -9, the second takes its games over once their leases lapse, and finishes
/// all four to 2^22.
#[test]
#[ignore = "needs PostgreSQL; run by .ci/run with --ignored"]
fn two_census_commands_share_a_postgres_store_and_one_killed_the_other_finishes() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    let url = tokio::runtime::Runtime::new()
        .unwrap()
        .block_on(common::fresh_postgres_url());
    let dir = std::env::temp_dir().join(format!("grundy-census-pg-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&dir).unwrap();
    let census = |json: bool| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_grundy"));
        cmd.args([
            "census", ".161", ".014", ".034", ".172", "--to", "2^22", "-j", "2", "--threads",
            "1", "--store", &url,
        ])
        .current_dir(&dir)
        // Leases of 3 s; at most 2^16 heaps a checkpoint, so each game lasts 12.8 s at least
        // on any machine: the first process is killed while it computes.
        .env("GRUNDY_JOB_CHECKPOINT_MS", "200")
        .env("GRUNDY_JOB_PACE", "65536")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
        if json {
            cmd.arg("--json");
        }
        cmd
    };
    let mut first = census(false).spawn().unwrap();
    let mut err = BufReader::new(first.stderr.take().unwrap());
    // Until the first process shows heaps computed.
    loop {
        let mut line = String::new();
        assert!(err.read_line(&mut line).unwrap() > 0, "the first ended");
        let computed = line
            .split_once(" of ")
            .filter(|(_, rest)| rest.contains(" heaps ("))
            .and_then(|(k, _)| k.parse::<u64>().ok());
        if computed.is_some_and(|k| k > 0) {
            break;
        }
    }
    let second = census(true).spawn().unwrap();
    // The second process has found the census when it says so; then the first is killed.
    std::thread::sleep(std::time::Duration::from_secs(2));
    first.kill().unwrap();
    first.wait().unwrap();
    let out = second.wait_with_output().unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert!(said.contains("going on"), "{said}");
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["status"], "done", "{doc}");
    let games = doc["games"].as_array().unwrap();
    assert_eq!(games.len(), 4);
    for g in games {
        assert_eq!(g["status"], "done", "{g}");
        assert_eq!(g["computed"], 1u64 << 22, "{g}");
        assert_eq!(g["statistics"]["n"], 1u64 << 22, "{g}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
