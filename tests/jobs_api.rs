//! The job life cycle through HTTP on the embedded SQLite store, restarts, and a crash:
//! `kill -9` mid-job, restart, the job completes with the same values as an uninterrupted run.

mod common;

use common::{wait_job, Process};
use grundy::config::Config;
use serde_json::{json, Value};
use std::time::Duration;

#[tokio::test]
async fn life_cycle_on_sqlite() {
    let s = common::start_with(common::fast_jobs()).await;
    // Submit: 202 + Location; done early once periodicity is proved.
    let r = s
        .post("/v1/octal/jobs", &json!({"code": ".07", "max_n": 1000000}))
        .await;
    assert_eq!(r.status.as_u16(), 202, "{}", r.text);
    let location = r.headers["location"].to_str().unwrap().to_owned();
    let id = r.body["id"].as_str().unwrap().to_owned();
    assert_eq!(location, format!("/v1/octal/jobs/{id}"));
    assert_eq!(r.body["status"], "queued");
    assert_eq!(r.body["code"], "0.07");
    let done = wait_job(&s, &id).await;
    assert_eq!(done["status"], "done", "{done}");
    assert_eq!(done["periodicity"]["status"], "periodic");
    assert_eq!(done["periodicity"]["period"], 34);
    assert!(
        done["progress"]["computed"].as_u64().unwrap() < 1_000_000,
        "stopped early on the proof"
    );

    // Cancel a long job promptly.
    let r = s
        .post(
            "/v1/octal/jobs",
            &json!({"code": "0.6", "max_n": 100000000}),
        )
        .await;
    let long = r.body["id"].as_str().unwrap().to_owned();
    tokio::time::sleep(Duration::from_millis(600)).await;
    let c = s
        .client
        .delete(format!("{}/v1/octal/jobs/{long}", s.base))
        .send()
        .await
        .unwrap();
    assert_eq!(c.status().as_u16(), 200);
    let t = std::time::Instant::now();
    let cancelled = wait_job(&s, &long).await;
    assert_eq!(cancelled["status"], "cancelled", "{cancelled}");
    assert!(
        cancelled["progress"]["computed"].as_u64().unwrap() < 100_000_000,
        "stopped mid-way: {cancelled}"
    );
    // The job sees the cancel at its next checkpoint (200 ms). The bound is generous on
    // purpose: it only fails a cancel that is never seen, on however busy a machine.
    assert!(
        t.elapsed() < Duration::from_secs(60),
        "cancel took {:?}",
        t.elapsed()
    );

    // The list: newest first, paginated.
    let list = s.get("/v1/octal/jobs?limit=1").await;
    assert_eq!(list.body["jobs"][0]["id"], long.as_str(), "{}", list.text);
    let next = list.body["next_cursor"].as_str().unwrap().to_owned();
    let page2 = s
        .get(&format!("/v1/octal/jobs?limit=1&cursor={next}"))
        .await;
    assert_eq!(page2.body["jobs"][0]["id"], id.as_str());

    // DELETE on a finished job removes its record (the values stay stored).
    let d = s
        .client
        .delete(format!("{}/v1/octal/jobs/{long}", s.base))
        .send()
        .await
        .unwrap();
    assert_eq!(d.status().as_u16(), 200);
    common::assert_problem(&s.get(&format!("/v1/octal/jobs/{long}")).await, 404, &long);
    // A job asking for fewer values than are already stored reports at most max_n.
    let r = s
        .post("/v1/octal/jobs", &json!({"code": "0.07", "max_n": 10}))
        .await;
    let small = wait_job(&s, r.body["id"].as_str().unwrap()).await;
    assert_eq!(small["status"], "done");
    assert!(
        small["progress"]["computed"].as_u64().unwrap() <= 10,
        "{small}"
    );

    // Errors.
    common::assert_problem(&s.get("/v1/octal/jobs/nope").await, 404, "nope");
    let r = s
        .post("/v1/octal/jobs", &json!({"code": "0.07", "max_n": 0}))
        .await;
    common::assert_problem(&r, 422, "max_n");
    let r = s
        .post("/v1/octal/jobs", &json!({"code": "9.9", "max_n": 10}))
        .await;
    common::assert_problem(&r, 422, "code");
    common::assert_problem(&s.get("/v1/octal/jobs?limit=0").await, 422, "limit");
    common::assert_problem(&s.get("/v1/octal/jobs?cursor=zzz").await, 422, "cursor");
}

/// `GET /v1/octal/jobs?{q}`, which must answer 200.
async fn list(s: &common::Server, q: &str) -> Value {
    let r = s.get(&format!("/v1/octal/jobs?{q}")).await;
    assert_eq!(r.status.as_u16(), 200, "{q}: {}", r.text);
    r.body
}

/// Issue 46: the list pages through every job with a true total, and filters by status and
/// kind (the total counts the filtered jobs, on every page); a bad status is a 422 naming it.
#[tokio::test]
async fn the_list_counts_every_job_and_filters_by_status_and_kind() {
    let s = common::start_with(common::fast_jobs()).await;
    let mut done = Vec::new();
    for max_n in 10..15u64 {
        let r = s
            .post("/v1/octal/jobs", &json!({"code": "0.07", "max_n": max_n}))
            .await;
        assert_eq!(r.status.as_u16(), 202, "{}", r.text);
        done.push(r.body["id"].as_str().unwrap().to_owned());
    }
    for id in &done {
        assert_eq!(wait_job(&s, id).await["status"], "done");
    }
    let r = s
        .post(
            "/v1/octal/jobs",
            &json!({"code": "0.6", "max_n": 100000000}),
        )
        .await;
    let long = r.body["id"].as_str().unwrap().to_owned();
    let c = s
        .client
        .delete(format!("{}/v1/octal/jobs/{long}", s.base))
        .send()
        .await
        .unwrap();
    assert_eq!(c.status().as_u16(), 200);
    assert_eq!(wait_job(&s, &long).await["status"], "cancelled");

    // Every page of two says 6 in all; the pages together hold each job once.
    let mut seen = Vec::new();
    let mut path = "/v1/octal/jobs?limit=2".to_owned();
    loop {
        let page = s.get(&path).await;
        assert_eq!(page.status.as_u16(), 200, "{}", page.text);
        assert_eq!(page.body["total"], 6, "{}", page.text);
        seen.extend(
            page.body["jobs"]
                .as_array()
                .unwrap()
                .iter()
                .map(|j| j["id"].as_str().unwrap().to_owned()),
        );
        match page.body["next_cursor"].as_str() {
            Some(next) => path = format!("/v1/octal/jobs?limit=2&cursor={next}"),
            None => break,
        }
    }
    let mut all: Vec<String> = done.iter().chain([&long]).cloned().collect();
    all.sort();
    seen.sort();
    assert_eq!(seen, all);
    // Filtered: only the jobs asked for, and their count.
    let cancelled = list(&s, "status=cancelled").await;
    assert_eq!(cancelled["total"], 1);
    assert_eq!(cancelled["jobs"][0]["id"], long.as_str());
    let page = list(&s, "status=done&kind=sequence&limit=2").await;
    assert_eq!(page["total"], 5, "{page}");
    assert_eq!(page["jobs"].as_array().unwrap().len(), 2);
    assert!(page["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .all(|j| j["status"] == "done"));
    let next = page["next_cursor"].as_str().unwrap();
    let page2 = list(
        &s,
        &format!("status=done&kind=sequence&limit=2&cursor={next}"),
    )
    .await;
    assert_eq!(page2["total"], 5, "{page2}");
    for (q, total) in [
        ("status=running", 0),
        ("status=queued", 0),
        ("kind=misere_quotient", 0),
        ("status=done&kind=misere_quotient", 0),
        ("kind=sequence", 6),
    ] {
        let body = list(&s, q).await;
        assert_eq!(body["total"], total, "{q}: {body}");
        assert_eq!(body["jobs"].as_array().unwrap().len(), total, "{q}");
    }
    // Bad filters are 422 problems naming the parameter.
    for q in [
        "status=finished",
        "status=DONE",
        "status=",
        "kind=census&status=done",
    ] {
        let r = s.get(&format!("/v1/octal/jobs?{q}")).await;
        let field = if q.starts_with("kind") {
            "kind"
        } else {
            "status"
        };
        common::assert_problem(&r, 422, field);
        assert_eq!(r.body["field"], field, "{q}: {}", r.text);
    }
}

/// Issue 41: a job's document says what computed it — the threads, the CPU time, the engine
/// (crate version and git commit) — null before it first ran. Alone on its replica, a job
/// gets every core (`GRUNDY_JOB_THREADS` unset: `auto`).
#[tokio::test]
async fn a_job_cites_its_threads_cpu_time_and_engine() {
    let s = common::start_with(common::fast_jobs()).await;
    let r = s
        .post("/v1/octal/jobs", &json!({"code": "0.6", "max_n": 200000}))
        .await;
    assert_eq!(r.status.as_u16(), 202, "{}", r.text);
    for field in ["threads", "cpu_seconds", "engine"] {
        assert!(r.body[field].is_null(), "{field} before it ran: {}", r.text);
    }
    let id = r.body["id"].as_str().unwrap().to_owned();
    let done = wait_job(&s, &id).await;
    assert_eq!(done["status"], "done", "{done}");
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    assert_eq!(
        done["threads"].as_u64(),
        Some(cores.min(64) as u64),
        "alone, a job computes on every core: {done}"
    );
    let cpu = done["cpu_seconds"].as_f64().expect("cpu_seconds measured");
    assert!(cpu > 0.0, "{done}");
    assert_eq!(
        done["engine"]["version"],
        env!("CARGO_PKG_VERSION"),
        "{done}"
    );
    let commit = done["engine"]["commit"].as_str().unwrap();
    assert_eq!(commit, grundy::process::build::COMMIT, "{done}");
    assert!(!commit.is_empty());
    // The list shows the same document.
    let list = s.get("/v1/octal/jobs").await.body;
    let listed = &list["jobs"][0];
    assert_eq!(listed["id"], id.as_str());
    for field in ["threads", "cpu_seconds", "engine"] {
        assert_eq!(listed[field], done[field], "{field}");
    }
}

/// Issue 41: by default the cores are divided among the running jobs and re-balanced as jobs
/// start and end: two jobs share them (the first started gets the odd core), and once one
/// ends the other gets every core again, each within a few checkpoint intervals.
#[tokio::test]
async fn running_jobs_share_the_cores_and_rebalance() {
    // Paced: 0.16, proved periodic near heap 510,000, runs for 50 checkpoints at least, however
    // fast the machine (unpaced it ended before its threads could be seen).
    let s = common::start_with(Config {
        job_workers: 2,
        job_pace: Some(10_000),
        ..common::fast_jobs()
    })
    .await;
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let (alone, first, second) = (
        cores.min(64) as u64,
        (cores - cores / 2).clamp(1, 64) as u64,
        (cores / 2).clamp(1, 64) as u64,
    );
    let submit = |code: &'static str| {
        let s = &s;
        async move {
            let r = s
                .post(
                    "/v1/octal/jobs",
                    &json!({"code": code, "max_n": 100_000_000}),
                )
                .await;
            assert_eq!(r.status.as_u16(), 202, "{}", r.text);
            r.body["id"].as_str().unwrap().to_owned()
        }
    };
    // Polls until the jobs show these threads (the last documents on timeout).
    let until = |want: Vec<(String, u64)>| {
        let s = &s;
        async move {
            let deadline = std::time::Instant::now() + common::UNHURRIED;
            loop {
                let mut docs = Vec::new();
                for (id, _) in &want {
                    docs.push(s.get(&format!("/v1/octal/jobs/{id}")).await.body);
                }
                let got: Vec<Option<u64>> = docs.iter().map(|d| d["threads"].as_u64()).collect();
                if want.iter().zip(&got).all(|((_, t), g)| Some(*t) == *g)
                    || std::time::Instant::now() > deadline
                {
                    return (got, docs);
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    };
    let a = submit("0.6").await;
    let (got, docs) = until(vec![(a.clone(), alone)]).await;
    assert_eq!(got, [Some(alone)], "alone: {docs:?}");
    let b = submit("0.16").await;
    let (got, docs) = until(vec![(a.clone(), first), (b.clone(), second)]).await;
    assert_eq!(got, [Some(first), Some(second)], "two jobs: {docs:?}");
    let cancel = |id: String| {
        let s = &s;
        async move {
            let r = s
                .client
                .delete(format!("{}/v1/octal/jobs/{id}", s.base))
                .send()
                .await
                .unwrap();
            assert_eq!(r.status().as_u16(), 200);
            wait_job(s, &id).await
        }
    };
    assert_eq!(cancel(b).await["status"], "cancelled");
    let (got, docs) = until(vec![(a.clone(), alone)]).await;
    assert_eq!(got, [Some(alone)], "alone again: {docs:?}");
    assert_eq!(cancel(a).await["status"], "cancelled");
}

#[tokio::test]
async fn results_survive_a_restart() {
    let url = common::temp_sqlite_url();
    // (`auto`, the default said out loud, is accepted.)
    let env = [
        ("GRUNDY_DATABASE_URL", url.clone()),
        ("GRUNDY_JOB_THREADS", "auto".to_owned()),
    ];
    let mut a = Process::spawn(&env).await;
    let before = a
        .server()
        .ok("/v1/octal/sequence", &json!({"code": "0.156", "n": 9000}))
        .await;
    assert_eq!(before["periodicity"]["period"], 349);
    // The write-behind: until the store holds the proof (however long the machine takes).
    let store = grundy::store::Store::connect(&url).await.unwrap();
    let deadline = std::time::Instant::now() + common::UNHURRIED;
    while store
        .sequence_extent("0.156")
        .await
        .unwrap()
        .is_none_or(|e| e.periodicity.is_none())
    {
        assert!(
            std::time::Instant::now() < deadline,
            "the proof never stored"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    a.terminate();
    let b = Process::spawn(&env).await;
    // Served from the store: the value of a huge heap needs the stored proof.
    let v = b.server().get("/v1/octal/0.156/value/99999999999").await;
    assert_eq!(v.status.as_u16(), 200, "{}", v.text);
    assert_eq!(v.body["source"], "periodicity", "{}", v.text);
    assert_eq!(v.body["periodicity"]["period"], 349, "{}", v.text);
    let after = b
        .server()
        .ok("/v1/octal/sequence", &json!({"code": "0.156", "n": 9000}))
        .await;
    assert_eq!(before["values"], after["values"]);
}

#[tokio::test]
async fn kill_9_mid_job_resumes_from_the_checkpoint() {
    let url = common::temp_sqlite_url();
    let env = [
        ("GRUNDY_DATABASE_URL", url.clone()),
        ("GRUNDY_JOB_CHECKPOINT_MS", "200".to_owned()),
        ("GRUNDY_JOB_LEASE_MS", "1500".to_owned()),
        // One thread per job: the values must not depend on it.
        ("GRUNDY_JOB_THREADS", "1".to_owned()),
        // 15 checkpoints at least, on any machine: the crash comes after the first.
        ("GRUNDY_JOB_PACE", "10000".to_owned()),
    ];
    let n = 150_000u64;
    let mut a = Process::spawn(&env).await;
    let r = a
        .server()
        .post("/v1/octal/jobs", &json!({"code": "0.6", "max_n": n}))
        .await;
    let id = r.body["id"].as_str().unwrap().to_owned();
    // Wait until some checkpoints are stored, then crash.
    let deadline = std::time::Instant::now() + common::UNHURRIED;
    let before_crash = loop {
        let j = a.server().get(&format!("/v1/octal/jobs/{id}")).await.body;
        let c = j["progress"]["computed"].as_u64().unwrap_or(0);
        assert_ne!(
            j["status"], "done",
            "the job finished before the crash; make it longer"
        );
        if c > 0 {
            break j;
        }
        assert!(std::time::Instant::now() < deadline, "no checkpoint: {j}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    a.kill9();
    // GRUNDY_JOB_THREADS=1: one thread, whatever the cores.
    assert_eq!(before_crash["threads"], 1, "{before_crash}");
    let cpu_before = before_crash["cpu_seconds"].as_f64().unwrap_or(0.0);
    // Restart (a new replica id): the lease expires and the job is taken over and finished.
    let b = Process::spawn(&env).await;
    let done = wait_job(&b.server(), &id).await;
    assert_eq!(done["status"], "done", "{done}");
    assert_eq!(done["progress"]["computed"], n);
    assert!(done["attempts"].as_u64().unwrap() >= 2, "{done}");
    assert_eq!(done["threads"], 1, "{done}");
    // The CPU time goes on from the crashed run's last checkpoint.
    let cpu = done["cpu_seconds"].as_f64().expect("cpu_seconds measured");
    assert!(
        cpu > cpu_before,
        "{cpu} after the resume, {cpu_before} before: {done}"
    );
    // Values equal an uninterrupted computation (a fresh in-memory run).
    let resumed = b
        .server()
        .ok("/v1/octal/sequence", &json!({"code": "0.6", "n": n}))
        .await;
    let mut fresh =
        grundy::core::octal::Solver::new(&grundy::core::octal::Game::parse("0.6").unwrap());
    fresh.run(n as usize, false, &mut || false).unwrap();
    let fresh: Vec<Value> = fresh.values().iter().map(|v| json!(v)).collect();
    assert_eq!(resumed["values"].as_array().unwrap(), &fresh);
}

#[tokio::test]
async fn unreachable_store_fails_readiness_only() {
    let c = Config {
        database_url: Some("postgres://postgres@127.0.0.1:1/nowhere".into()),
        ..common::config()
    };
    let s = common::start_with(c).await;
    let r = s.get("/readyz").await;
    assert_eq!(r.status.as_u16(), 503, "{}", r.text);
    assert_eq!(s.get("/healthz").await.status.as_u16(), 200);
    // Compute endpoints need no store.
    s.ok("/v1/welter/value", &json!({"position": [1, 2, 3]}))
        .await;
    s.ok("/v1/octal/sequence", &json!({"code": "0.07", "n": 10}))
        .await;
    // Jobs do: a clear 503.
    let r = s
        .post("/v1/octal/jobs", &json!({"code": "0.07", "max_n": 10}))
        .await;
    common::assert_problem(&r, 503, "store");
    assert!(r.headers.contains_key("retry-after"));
}

#[tokio::test]
async fn metrics_report_jobs_and_cache() {
    let s = common::start_with(common::fast_jobs()).await;
    let r = s
        .post("/v1/octal/jobs", &json!({"code": "0.77", "max_n": 1000}))
        .await;
    let id = r.body["id"].as_str().unwrap().to_owned();
    assert_eq!(wait_job(&s, &id).await["status"], "done");
    s.ok("/v1/welter/explain", &json!({"position": [4, 5]}))
        .await;
    s.ok("/v1/welter/explain", &json!({"position": [5, 4]}))
        .await;
    let m = s.get("/metrics").await.text;
    for needle in [
        "grundy_jobs{status=\"done\"}",
        "grundy_cache_hits_total",
        "grundy_cache_entries",
        "grundy_http_request_duration_seconds",
        "grundy_heaps_computed_total",
    ] {
        assert!(m.contains(needle), "{needle} missing from /metrics");
    }
}

/// `GRUNDY_JOB_THREADS` outside 1..=64 (or neither a number nor `auto`) stops the server at
/// start-up with a message naming the variable.
#[test]
fn bad_job_threads_are_a_startup_error() {
    for bad in ["0", "65", "many", "-1", "Auto", "4 threads"] {
        let err = common::startup_error("GRUNDY_JOB_THREADS", bad);
        assert!(
            err.contains("GRUNDY_JOB_THREADS") && err.contains(&format!("{bad:?}")),
            "{bad}: {err}"
        );
    }
}
