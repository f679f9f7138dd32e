//! Helpers for the integration tests.
//!
//! * [`app`] / [`app_with`]: the router built by `grundy::app::build`, called in-process with
//!   `tower::ServiceExt::oneshot` — no sockets, fast. Use it for contract and bad-input tests.
//! * [`start`] / [`start_with`] / [`Process`]: a real server on a loopback port, or a real
//!   `grundy` process — for restarts, kill -9, replicas and job workers.
//!
//! Both answer with a [`Reply`] and have the same request methods (`post_raw`, `post`, `get`,
//! `ok`), so a new case is one line, e.g.
//! `common::assert_problem(&s.post_raw("/v1/welter/value", "{").await, 400, "not valid JSON")`.
#![allow(dead_code)]

use reqwest::StatusCode;
use serde_json::Value;

// The PRNG and the papers' data are the core's unit-test helpers, compiled here from the same
// files (the lib's `#[cfg(test)]` items are not visible to integration tests).
#[path = "../../crates/grundy-core/src/test_support/data.rs"]
mod data;
#[path = "../../crates/grundy-core/src/test_support/rng.rs"]
mod rng;
#[allow(unused_imports)] // not every test binary uses every helper
pub use data::{u64s, vectors, KNOWN_PERIODS};
#[allow(unused_imports)]
pub use rng::Rng;

mod in_process;
mod server;
#[allow(unused_imports)]
pub use in_process::{app, app_with, oneshot_json, App};
#[allow(unused_imports)]
pub use server::{
    child_port, fresh_postgres_url, start, start_with, temp_sqlite_url, wait_job, wait_ready,
    Process, Server,
};

/// The configuration tests start from (`app()`, `start()`, and `..common::config()` in a test's
/// own): the defaults, less every deadline that a slow machine can meet before the work it
/// guards is done. A debug build on a busy or one-core machine may take minutes over a request
/// that takes a second here; the default 30 s request deadline then answered 503 (issue 54). A
/// test of a deadline sets that deadline itself.
pub fn config() -> grundy::config::Config {
    grundy::config::Config {
        request_timeout: UNHURRIED,
        octal_sync_time: UNHURRIED,
        header_read_timeout: UNHURRIED,
        ..grundy::config::Config::default()
    }
}

/// [`config`] with jobs that checkpoint every 200 ms on a 2 s lease, so that a test sees their
/// progress and a lost worker's job is taken over soon.
pub fn fast_jobs() -> grundy::config::Config {
    grundy::config::Config {
        job_checkpoint: std::time::Duration::from_millis(200),
        job_lease: std::time::Duration::from_millis(2000),
        ..config()
    }
}

/// A sequence job of `code` up to `max_n` that stores every value (no window).
pub fn new_job(code: &str, max_n: u64) -> grundy::store::NewJob {
    grundy::store::NewJob {
        code: code.into(),
        max_n,
        keep_window: None,
        store_values: true,
    }
}

/// An API key file of `people` (name, scopes, what follows on the line, e.g. a quota) with a
/// new key each, and their keys by name.
pub fn key_file(
    people: &[(&'static str, &[grundy::service::keys::Scope], &str)],
) -> (String, std::collections::HashMap<&'static str, String>) {
    use grundy::service::keys::{key_file_line, new_key};
    let mut keys = std::collections::HashMap::new();
    let mut lines = Vec::new();
    for &(name, scopes, extra) in people {
        let key = new_key().unwrap();
        lines.push(format!("{}{extra}", key_file_line(name, scopes, &key)));
        keys.insert(name, key);
    }
    (lines.join("\n"), keys)
}

/// The guide's pages (`docs/*.md`), sorted, with their paths from the repository root.
pub fn guide_pages() -> Vec<std::path::PathBuf> {
    let mut pages: Vec<_> = std::fs::read_dir("docs")
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    pages.sort();
    pages
}

/// The binary started with `var=bad` (no store, any port) must refuse to start: exit status 2.
/// Returns what it wrote on stderr.
pub fn startup_error(var: &str, bad: &str) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_grundy"))
        .env(var, bad)
        .env("GRUNDY_DATABASE_URL", "none")
        .env("GRUNDY_ADDR", "127.0.0.1:0")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{bad}: {err}");
    err
}

/// What "no deadline" means in a test: long enough for any work a test does on any machine,
/// short enough that a hang still ends the run.
pub const UNHURRIED: std::time::Duration = std::time::Duration::from_secs(600);

/// The same for a real `grundy` process ([`Process::spawn`] sets these first; the test's own
/// variables win).
pub const UNHURRIED_ENV: &[(&str, &str)] = &[
    ("GRUNDY_REQUEST_TIMEOUT_MS", "600000"),
    ("GRUNDY_OCTAL_SYNC_MS", "600000"),
    ("GRUNDY_HEADER_READ_TIMEOUT_MS", "600000"),
];

/// An HTTP answer, however it was obtained.
pub struct Reply {
    pub status: StatusCode,
    pub content_type: String,
    pub headers: reqwest::header::HeaderMap,
    /// The body as JSON (`Null` when it is not JSON).
    pub body: Value,
    pub text: String,
}

impl Reply {
    pub fn new(status: StatusCode, headers: reqwest::header::HeaderMap, bytes: &[u8]) -> Reply {
        let content_type = headers
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_owned();
        let text = String::from_utf8_lossy(bytes).into_owned();
        let body = serde_json::from_str(&text).unwrap_or(Value::Null);
        Reply {
            status,
            content_type,
            headers,
            body,
            text,
        }
    }
}

/// Asserts an RFC 9457 problem with the given status whose detail mentions `needle`.
pub fn assert_problem(r: &Reply, status: u16, needle: &str) {
    assert_eq!(r.status.as_u16(), status, "status for {}", r.text);
    assert_eq!(r.content_type, "application/problem+json", "{}", r.text);
    assert_eq!(r.body["status"], status, "{}", r.text);
    assert!(
        r.body["type"].as_str().is_some_and(|t| !t.is_empty()),
        "{}",
        r.text
    );
    assert!(
        r.body["title"].as_str().is_some_and(|t| !t.is_empty()),
        "{}",
        r.text
    );
    let detail = r.body["detail"].as_str().unwrap_or_default();
    assert!(
        detail.contains(needle),
        "detail {detail:?} should mention {needle:?}"
    );
}

/// Eight workers claiming `store`'s queued jobs at once, worker `w` as `owner(w)`, each until
/// the queue is empty, every claimed job passed to `check`: asserts that `jobs` jobs were
/// claimed in all and none twice.
pub async fn assert_claimed_once(
    store: &grundy::store::Store,
    owner: impl Fn(usize) -> String,
    jobs: usize,
    check: fn(&grundy::store::Job),
) {
    let mut tasks = Vec::new();
    for w in 0..8 {
        let (s, owner) = (store.clone(), owner(w));
        tasks.push(tokio::spawn(async move {
            let mut mine = Vec::new();
            while let Some(j) = s.claim_job(&owner, 60_000).await.unwrap() {
                check(&j);
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
    assert_eq!(before, jobs, "every job claimed once");
    assert_eq!(all.len(), jobs, "no job claimed twice");
}
