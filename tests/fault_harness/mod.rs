//! An in-process server that keeps its state (so a test can reach the store's fault hooks and
//! stop the workers), a client that records every status it sees, and helpers shared by the
//! store-fault tests on SQLite and PostgreSQL.
#![allow(dead_code)]

use grundy::config::Config;
use grundy::service::AppState;
use grundy::store::Store;
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub struct Live {
    pub base: String,
    pub client: reqwest::Client,
    pub state: AppState,
    /// Ends the server (then its workers checkpoint and stop); the task it runs in.
    stop: Option<(
        tokio::sync::oneshot::Sender<()>,
        tokio::task::JoinHandle<()>,
    )>,
    /// Every (method path, status) answered, to assert only expected statuses occurred.
    pub seen: Arc<Mutex<Vec<(String, u16)>>>,
}

/// Heaps a job of these tests computes per checkpoint at most (`GRUNDY_JOB_PACE`): a job of
/// `k * PACE` heaps lasts at least `k` checkpoints (200 ms each) however fast the machine, so a
/// fault can be injected while it runs; a slow machine only makes it last longer.
pub const PACE: u64 = 10_000;

/// Fast checkpoints and a short lease, two workers, jobs paced ([`PACE`]).
pub fn fast(url: String) -> Config {
    Config {
        database_url: Some(url),
        job_checkpoint: Duration::from_millis(200),
        job_pace: Some(PACE),
        job_lease: Duration::from_millis(3000),
        job_workers: 2,
        ..crate::common::config()
    }
}

pub async fn start(config: Config) -> Live {
    if std::env::var_os("GRUNDY_TEST_LOGS").is_some() {
        grundy::process::telemetry::init_logging(false);
    }
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let mut config = config;
    config.addr = listener.local_addr().unwrap();
    let base = format!("http://{}", config.addr);
    let state = AppState::new(config);
    state.connect_store().await.expect("store connects");
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let served = grundy::run_with(state.clone(), listener, async move {
        let _ = stopped.await;
    });
    let task = tokio::spawn(async move { served.await.unwrap() });
    Live {
        base,
        client: reqwest::Client::builder()
            .timeout(Duration::from_secs(60))
            .build()
            .unwrap(),
        state,
        stop: Some((stop, task)),
        seen: Arc::default(),
    }
}

impl Live {
    pub fn store(&self) -> Store {
        self.state.store().expect("store connected")
    }

    /// Shuts the server down: in-flight requests finish, then the job workers checkpoint,
    /// release their jobs and stop.
    pub async fn stop_workers(&mut self) {
        if let Some((stop, task)) = self.stop.take() {
            let _ = stop.send(());
            let _ = task.await;
        }
    }

    async fn send(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<&Value>,
    ) -> (u16, Value, reqwest::header::HeaderMap) {
        let mut req = self
            .client
            .request(method.clone(), format!("{}{}", self.base, path));
        if let Some(b) = body {
            req = req.json(b);
        }
        let resp = req.send().await.expect("request");
        let status = resp.status().as_u16();
        let headers = resp.headers().clone();
        let text = resp.text().await.unwrap_or_default();
        self.seen
            .lock()
            .unwrap()
            .push((format!("{method} {path}"), status));
        (
            status,
            serde_json::from_str(&text).unwrap_or(Value::Null),
            headers,
        )
    }

    pub async fn get(&self, path: &str) -> (u16, Value) {
        let (s, v, _) = self.send(reqwest::Method::GET, path, None).await;
        (s, v)
    }

    pub async fn post(&self, path: &str, body: &Value) -> (u16, Value, reqwest::header::HeaderMap) {
        self.send(reqwest::Method::POST, path, Some(body)).await
    }

    pub async fn delete(&self, path: &str) -> (u16, Value) {
        let (s, v, _) = self.send(reqwest::Method::DELETE, path, None).await;
        (s, v)
    }

    /// Submits a job: 202 (its id returned), or 503/507 with Retry-After and a problem
    /// naming the store (`None`). Anything else fails the test.
    pub async fn submit(&self, code: &str, max_n: u64) -> Option<String> {
        let (status, body, headers) = self
            .post("/v1/octal/jobs", &json!({"code": code, "max_n": max_n}))
            .await;
        match status {
            202 => Some(body["id"].as_str().unwrap().to_owned()),
            503 | 507 => {
                assert!(
                    headers.contains_key("retry-after"),
                    "{status} without Retry-After: {body}"
                );
                let detail = body["detail"].as_str().unwrap_or_default();
                assert!(
                    detail.contains("store"),
                    "problem should name the store: {body}"
                );
                None
            }
            other => panic!("job submission answered {other}: {body}"),
        }
    }

    pub async fn job(&self, id: &str) -> Value {
        let (s, v) = self.get(&format!("/v1/octal/jobs/{id}")).await;
        assert!(matches!(s, 200 | 404 | 503), "GET job answered {s}: {v}");
        v
    }

    /// Polls until `pred` holds for the job document (or panics at the deadline).
    /// The deadline only ends a hang ([`crate::common::UNHURRIED`]): how long a job takes
    /// depends on the machine.
    pub async fn wait_job(&self, id: &str, what: &str, pred: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + crate::common::UNHURRIED;
        loop {
            let j = self.job(id).await;
            if pred(&j) {
                return j;
            }
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {what}: {j}"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    pub async fn readyz(&self) -> (u16, String) {
        let (s, v) = self.get("/readyz").await;
        (s, v["status"].as_str().unwrap_or_default().to_owned())
    }

    /// Asserts every answer seen so far had one of `allowed` statuses.
    pub fn assert_only(&self, allowed: &[u16]) {
        for (what, s) in self.seen.lock().unwrap().iter() {
            assert!(allowed.contains(s), "{what} answered {s}");
        }
    }
}

/// g(0..n) of `code`, computed afresh in memory (an uninterrupted run).
pub fn fresh_values(code: &str, n: usize) -> Vec<u32> {
    let mut s = grundy::core::octal::Solver::new(&grundy::core::octal::Game::parse(code).unwrap());
    s.run(n, false, &mut || false).unwrap();
    s.values().to_u32_vec()
}

/// The status of job `id` read through a new connection (what a restarted process sees).
pub async fn stored_status(url: &str, id: &str) -> Option<String> {
    let store = Store::connect(url).await.unwrap();
    store
        .get_job(id)
        .await
        .unwrap()
        .map(|j| j.status.as_str().to_owned())
}

/// The stored sequence of `code` read through a new connection (what a restarted process sees).
pub async fn stored_values(url: &str, code: &str) -> Vec<u32> {
    let store = Store::connect(url).await.unwrap();
    store
        .load_sequence(code)
        .await
        .unwrap()
        .map(|s| s.values.to_u32_vec())
        .unwrap_or_default()
}

/// An uninterrupted run of `code` to `n`, started now on the blocking pool (it takes as long
/// as the job under test, so it runs alongside).
pub fn spawn_fresh(code: &'static str, n: usize) -> tokio::task::JoinHandle<Vec<u32>> {
    tokio::task::spawn_blocking(move || fresh_values(code, n))
}

/// Asserts the values stored for `code` equal an uninterrupted run (`fresh`).
pub async fn assert_values_match(url: &str, code: &str, fresh: tokio::task::JoinHandle<Vec<u32>>) {
    let fresh = fresh.await.unwrap();
    let n = fresh.len();
    let stored = stored_values(url, code).await;
    assert!(
        stored.len() >= n,
        "only {} of {n} values stored",
        stored.len()
    );
    assert!(
        stored[..n] == fresh[..],
        "stored values differ from an uninterrupted run"
    );
}
