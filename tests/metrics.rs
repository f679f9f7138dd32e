//! `/metrics` (issue 56): every metric is there from the start, and the job counters agree with
//! the jobs table.
//!
//! Both tests run the real binary (a fresh process: the metrics recorder is process-wide, so
//! an in-process server would share its counters with the other tests of this binary).

mod common;

use std::collections::BTreeSet;
use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::json;

/// The `grundy_…` metric names README and the guide (`docs/*.md`) name, and the ones the
/// code registers (`src/`).
fn named_metrics() -> BTreeSet<String> {
    let name = regex::Regex::new(r"grundy_[a-z0-9_]*[a-z0-9]").unwrap();
    // Words of that shape that are not metrics: the engine crate, a test binary
    // (`tests/grundy_api.rs`), and test-only strings.
    let not_metrics = ["grundy_core", "grundy_api", "grundy_nope", "grundy_secret"];
    let mut texts = vec![std::fs::read_to_string("README.md").unwrap()];
    for entry in std::fs::read_dir("docs").unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            texts.push(std::fs::read_to_string(&path).unwrap());
        }
    }
    let mut names = BTreeSet::new();
    for text in &texts {
        for m in name.find_iter(text) {
            names.insert(m.as_str().to_owned());
        }
    }
    // The code: names in a string literal, or after `HELP`.
    let in_code = regex::Regex::new(r#"(?:"|# HELP )(grundy_[a-z0-9_]*[a-z0-9])"#).unwrap();
    let mut stack = vec![Path::new("src").to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                for c in in_code.captures_iter(&text) {
                    names.insert(c[1].to_owned());
                }
            }
        }
    }
    names.retain(|n| !not_metrics.contains(&n.as_str()) && !n.starts_with("grundy_test"));
    names
}

/// The value of the sample `series` (name and labels, as the exposition writes them).
fn sample(text: &str, series: &str) -> Option<f64> {
    text.lines()
        .find_map(|l| l.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
}

async fn scrape(s: &common::Server) -> String {
    let r = s.get("/metrics").await;
    assert_eq!(r.status.as_u16(), 200);
    r.text
}

#[tokio::test]
async fn every_metric_is_there_from_the_start() {
    let names = named_metrics();
    assert!(names.len() >= 20, "only {names:?}");
    let p = common::Process::spawn(&[("GRUNDY_DATABASE_URL", common::temp_sqlite_url())]).await;
    let text = scrape(&p.server()).await;
    let mut missing = Vec::new();
    for name in &names {
        let help = text.contains(&format!("# HELP {name} "));
        let kind = text.contains(&format!("# TYPE {name} "));
        if !help || !kind {
            missing.push(name.clone());
        }
    }
    assert!(
        missing.is_empty(),
        "on /metrics of a server just started, without HELP or TYPE: {missing:?}\n{text}"
    );
    // A sample at 0 for every label value known at start-up.
    for series in [
        r#"grundy_jobs_finished_total{status="done"}"#,
        r#"grundy_jobs_finished_total{status="failed"}"#,
        r#"grundy_jobs_finished_total{status="cancelled"}"#,
        r#"grundy_store_errors_total{kind="full"}"#,
        r#"grundy_store_errors_total{kind="replaced"}"#,
        "grundy_store_fault",
        "grundy_cache_hits_total",
        "grundy_cache_misses_total",
        "grundy_heaps_computed_total",
        "grundy_jobs_disk_bytes",
        r#"grundy_jobs{status="running"}"#,
        r#"grundy_jobs_active{owner="-"}"#,
        r#"grundy_jobs_submitted_total{owner="-"}"#,
        r#"grundy_quota_refusals_total{owner="-",quota="active_jobs"}"#,
        r#"grundy_auth_refusals_total{reason="missing",owner="-"}"#,
        r#"grundy_connections_refused_total{reason="per_client"}"#,
    ] {
        assert_eq!(sample(&text, series), Some(0.0), "{series}:\n{text}");
    }
}

/// Every job that ends is counted once, by its status: a census's members included (a census
/// cancelled while its jobs are queued cancels them in the store, without a worker).
#[tokio::test]
async fn job_counters_agree_with_the_jobs_table_after_a_census_is_cancelled() {
    let p = common::Process::spawn(&[
        ("GRUNDY_DATABASE_URL", common::temp_sqlite_url()),
        ("GRUNDY_JOB_WORKERS", "2".to_owned()),
    ])
    .await;
    let s = p.server();
    let r = s
        .post("/v1/octal/census", &json!({"max_n": 1_000_000}))
        .await;
    assert_eq!(r.status.as_u16(), 201, "{}", r.text);
    let id = r.body["id"].as_str().unwrap().to_owned();
    let games = r.body["games"].as_array().unwrap().len();
    // Let the workers start some of them, then cancel the census.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let c = s.delete(&format!("/v1/octal/census/{id}")).await;
    assert_eq!(c.status.as_u16(), 200, "{}", c.text);
    // Until no job is queued or running (the running ones stop at their next checkpoint).
    let deadline = Instant::now() + common::UNHURRIED;
    let text = loop {
        let text = scrape(&s).await;
        let active = sample(&text, r#"grundy_jobs{status="queued"}"#).unwrap()
            + sample(&text, r#"grundy_jobs{status="running"}"#).unwrap();
        if active == 0.0 {
            break text;
        }
        assert!(Instant::now() < deadline, "jobs still active:\n{text}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    let mut ended = 0.0;
    for status in ["done", "failed", "cancelled"] {
        let in_table = sample(&text, &format!("grundy_jobs{{status=\"{status}\"}}")).unwrap();
        let counted = sample(
            &text,
            &format!("grundy_jobs_finished_total{{status=\"{status}\"}}"),
        )
        .unwrap();
        assert_eq!(counted, in_table, "{status}:\n{text}");
        ended += in_table;
    }
    // Every member ended (and a verification job for each game proved periodic before the
    // cancel, which the census started beside them).
    assert!(ended >= games as f64, "{ended} jobs ended of {games} games");
    assert!(sample(&text, r#"grundy_jobs{status="cancelled"}"#).unwrap() > 0.0);
}
