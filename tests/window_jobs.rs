//! The statistics of jobs, and jobs that keep a window (`"keep": "window"`): the statistics
//! equal a recount of independently computed values — after `kill -9` and a resume too —, the
//! values a window job does not keep are refused with a 409 that says so, and every request
//! shape is checked.

mod common;

use common::{wait_job, Process};
use grundy::config::Config;
use grundy::core::octal::{Engine, Game, Statistics};
use serde_json::{json, Value};
use std::time::Duration;

/// G(0..n) keeping every value, counted from scratch.
fn recount(code: &str, n: usize) -> Statistics {
    let mut e = Engine::new(&Game::parse(code).unwrap());
    e.set_threads(1);
    e.extend_to(n, &mut || false).unwrap();
    let mut s = Statistics::new();
    s.observe_values(0, e.values().as_ref()).unwrap();
    s
}

/// A statistics row of the API against a snapshot of the recount.
fn assert_row(row: &Value, want: &grundy::core::octal::Snapshot) {
    assert_eq!(row["n"], want.n, "{row}");
    assert_eq!(row["max_value"], want.max_value, "{row}");
    assert_eq!(
        row["max_value_first_heap"], want.max_value_first_heap,
        "{row}"
    );
    assert_eq!(row["rare_mask"], format!("{:x}", want.mask), "{row}");
    assert_eq!(row["rare_count"], want.rare_count, "{row}");
    assert_eq!(row["last_rare_heap"], json!(want.last_rare_heap), "{row}");
    assert_eq!(row["histogram"], json!(want.histogram), "{row}");
}

/// The whole statistics document against a recount of the same values.
fn assert_statistics(doc: &Value, want: &Statistics) {
    assert_eq!(doc["computed"], want.len(), "{doc}");
    assert_row(&doc["current"], &want.current().unwrap());
    let powers = doc["powers_of_two"].as_array().unwrap();
    assert_eq!(powers.len(), want.snapshots().len());
    for (row, snap) in powers.iter().zip(want.snapshots()) {
        assert_row(row, snap);
    }
}

fn fast_jobs() -> Config {
    Config {
        job_checkpoint: Duration::from_millis(200),
        job_lease: Duration::from_millis(2000),
        job_threads: 1,
        ..Config::default()
    }
}

#[tokio::test]
async fn a_jobs_statistics_equal_a_recount_in_json_and_csv() {
    let s = common::start_with(fast_jobs()).await;
    let n = 1usize << 17;
    let r = s
        .post("/v1/octal/jobs", &json!({"code": "0.167", "max_n": n}))
        .await;
    assert_eq!(r.status.as_u16(), 202, "{}", r.text);
    assert_eq!(r.body["keep"], "all");
    assert_eq!(r.body["window"], Value::Null);
    assert_eq!(r.body["store_values"], true);
    let id = r.body["id"].as_str().unwrap().to_owned();
    let done = wait_job(&s, &id, 120).await;
    assert_eq!(done["status"], "done", "{done}");
    let doc = s.get(&format!("/v1/octal/jobs/{id}/statistics")).await;
    assert_eq!(doc.status.as_u16(), 200, "{}", doc.text);
    assert_eq!(doc.body["code"], "0.167");
    // Against the values the job stored, downloaded and counted again.
    let values = s
        .get(&format!("/v1/octal/0.167/values?start=0&count={n}"))
        .await;
    let values: Vec<u32> = serde_json::from_value(values.body["values"].clone()).unwrap();
    let mut stored = Statistics::new();
    stored.observe_block(0, &values).unwrap();
    assert_statistics(&doc.body, &stored);
    assert_eq!(doc.body["powers_of_two"].as_array().unwrap().len(), 18);

    // CSV: the same histograms, one row per (n, value) that occurs.
    let csv = s
        .client
        .get(format!("{}/v1/octal/jobs/{id}/statistics", s.base))
        .header("accept", "text/csv")
        .send()
        .await
        .unwrap();
    assert_eq!(csv.headers()["content-type"], "text/csv");
    let text = csv.text().await.unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("n,value,count"));
    let mut rows = 0;
    for row in doc.body["powers_of_two"]
        .as_array()
        .unwrap()
        .iter()
        .chain([&doc.body["current"]])
    {
        for (v, c) in row["histogram"].as_array().unwrap().iter().enumerate() {
            if c.as_u64().unwrap() > 0 {
                assert_eq!(lines.next(), Some(format!("{},{v},{c}", row["n"]).as_str()));
                rows += 1;
            }
        }
    }
    assert_eq!(lines.next(), None);
    assert!(rows > 18);

    // Neither JSON nor CSV: 406; no such job: 404.
    let bin = s
        .client
        .get(format!("{}/v1/octal/jobs/{id}/statistics", s.base))
        .header("accept", "application/octet-stream")
        .send()
        .await
        .unwrap();
    assert_eq!(bin.status().as_u16(), 406);
    let missing = s.get("/v1/octal/jobs/no-such-job/statistics").await;
    assert_eq!(missing.status.as_u16(), 404);
}

#[tokio::test]
async fn a_window_job_survives_kill_9_with_exact_statistics_and_refuses_what_it_dropped() {
    let url = common::temp_sqlite_url();
    let env = [
        ("GRUNDY_DATABASE_URL", url.clone()),
        ("GRUNDY_JOB_CHECKPOINT_MS", "200".to_owned()),
        ("GRUNDY_JOB_LEASE_MS", "1500".to_owned()),
        ("GRUNDY_JOB_THREADS", "1".to_owned()),
        // No synchronous computation covers the heaps the job dropped.
        ("GRUNDY_OCTAL_MAX_N", "1000".to_owned()),
    ];
    let (n, window) = (1u64 << 20, 1u64 << 16);
    // Counted first: a pooled connection left idle while counting would be closed by the
    // server's keep-alive limit.
    let want = recount("0.167", n as usize);
    let mut a = Process::spawn(&env).await;
    let r = a
        .server()
        .post(
            "/v1/octal/jobs",
            &json!({"code": "0.167", "max_n": n, "keep": "window", "window": window}),
        )
        .await;
    assert_eq!(r.status.as_u16(), 202, "{}", r.text);
    assert_eq!(r.body["keep"], "window");
    assert_eq!(r.body["window"], window);
    assert_eq!(r.body["store_values"], false);
    let id = r.body["id"].as_str().unwrap().to_owned();
    // Crash once the window has moved on (the front, the window and two slides are held).
    let deadline = std::time::Instant::now() + Duration::from_secs(120);
    loop {
        let j = a.server().get(&format!("/v1/octal/jobs/{id}")).await.body;
        assert_ne!(
            j["status"], "done",
            "the job finished before the crash: {j}"
        );
        if j["progress"]["computed"].as_u64().unwrap_or(0) > 5 * window
            || std::time::Instant::now() > deadline
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    a.kill9();
    let b = Process::spawn(&env).await;
    let s = b.server();
    let done = wait_job(&s, &id, 300).await;
    assert_eq!(done["status"], "done", "{done}");
    assert_eq!(done["progress"]["computed"], n);
    assert!(done["attempts"].as_u64().unwrap() >= 2, "{done}");
    let doc = s.get(&format!("/v1/octal/jobs/{id}/statistics")).await;
    assert_statistics(&doc.body, &want);
    // The values between the front and the window were not kept: a 409 that says so.
    let gone = s.get("/v1/octal/0.167/values?start=500000&count=10").await;
    assert_eq!(gone.status.as_u16(), 409, "{}", gone.text);
    let detail = gone.body["detail"].as_str().unwrap();
    assert!(
        detail.contains(&id) && detail.contains("not kept"),
        "{detail}"
    );
}

#[tokio::test]
async fn job_requests_are_checked_field_by_field() {
    let s = common::start_with(fast_jobs()).await;
    let bad = |body: Value, field: &'static str, words: &'static str| {
        let s = &s;
        async move {
            let r = s.post("/v1/octal/jobs", &body).await;
            common::assert_problem(&r, 422, words);
            assert_eq!(r.body["field"], field, "{body}: {}", r.text);
        }
    };
    bad(
        json!({"code": "0.6", "max_n": 2_000_000_000u64}),
        "max_n",
        "keep\": \"window\" may go further",
    )
    .await;
    bad(
        json!({"code": "0.6", "max_n": 1000, "window": 65536}),
        "window",
        "only a job with",
    )
    .await;
    bad(
        json!({"code": "0.6", "max_n": 1000, "store_values": true}),
        "store_values",
        "only a job with",
    )
    .await;
    bad(
        json!({"code": "0.6", "max_n": 1000, "keep": "window", "window": 1000}),
        "window",
        "multiple of 65536",
    )
    .await;
    bad(
        json!({"code": "0.6", "max_n": 1u64 << 49, "keep": "window"}),
        "max_n",
        "GRUNDY_JOB_WINDOW_MAX_N",
    )
    .await;
    bad(
        json!({"code": "0.8F", "max_n": 1000, "keep": "window"}),
        "keep",
        "three heaps",
    )
    .await;
    let r = s
        .post(
            "/v1/octal/jobs",
            &json!({"code": "0.6", "max_n": 10, "keep": "sometimes"}),
        )
        .await;
    assert_eq!(r.status.as_u16(), 422, "{}", r.text);
    assert_eq!(r.body["field"], "keep");
    // 2^48 heaps in window mode are accepted (and cancelled here at once).
    let r = s
        .post(
            "/v1/octal/jobs",
            &json!({"code": "0.167", "max_n": 1u64 << 48, "keep": "window", "store_values": true}),
        )
        .await;
    assert_eq!(r.status.as_u16(), 202, "{}", r.text);
    assert_eq!(r.body["window"], 1u64 << 24);
    assert_eq!(r.body["store_values"], true);
    let id = r.body["id"].as_str().unwrap();
    let c = s
        .client
        .delete(format!("{}/v1/octal/jobs/{id}", s.base))
        .send()
        .await
        .unwrap();
    assert_eq!(c.status().as_u16(), 200);
}
