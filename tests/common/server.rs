//! The real server: on an ephemeral loopback port (talked to with reqwest), or as a separate
//! `grundy` process. Use it for what needs sockets or processes — restarts, kill -9, replicas,
//! job workers; everything else goes through [`super::app`] (in-process, no sockets).

use grundy::config::Config;
use reqwest::StatusCode;
use serde_json::Value;

use super::Reply;

pub struct Server {
    pub base: String,
    pub client: reqwest::Client,
}

/// A server with the tests' configuration ([`super::config`]).
pub async fn start() -> Server {
    start_with(super::config()).await
}

/// A fresh SQLite file under the system temp dir, unique per call.
pub fn temp_sqlite_url() -> String {
    let dir = std::env::temp_dir().join("grundy-tests");
    std::fs::create_dir_all(&dir).unwrap();
    format!("sqlite://{}/{}.db", dir.display(), uuid::Uuid::new_v4())
}

/// Starts a server; a default database URL is replaced by a private temporary SQLite file.
pub async fn start_with(mut config: Config) -> Server {
    if config.database_url.as_deref() == Config::default().database_url.as_deref() {
        config.database_url = Some(temp_sqlite_url());
    }
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    config.addr = listener.local_addr().unwrap();
    let base = format!("http://{}", config.addr);
    tokio::spawn(async move {
        grundy::run(config, listener, std::future::pending())
            .await
            .unwrap();
    });
    Server {
        base,
        client: reqwest::Client::new(),
    }
}

impl Server {
    pub async fn post_raw(&self, path: &str, body: impl Into<reqwest::Body>) -> Reply {
        let resp = self
            .client
            .post(format!("{}{}", self.base, path))
            .header("content-type", "application/json")
            .body(body)
            .send()
            .await
            .expect("request");
        reply(resp).await
    }

    pub async fn post(&self, path: &str, body: &Value) -> Reply {
        self.post_raw(path, serde_json::to_vec(body).unwrap()).await
    }

    pub async fn get(&self, path: &str) -> Reply {
        let resp = self
            .client
            .get(format!("{}{}", self.base, path))
            .send()
            .await
            .expect("request");
        reply(resp).await
    }

    pub async fn delete(&self, path: &str) -> Reply {
        let resp = self
            .client
            .delete(format!("{}{}", self.base, path))
            .send()
            .await
            .expect("request");
        reply(resp).await
    }

    /// POST and expect 200; returns the JSON body.
    pub async fn ok(&self, path: &str, body: &Value) -> Value {
        let r = self.post(path, body).await;
        assert_eq!(r.status, StatusCode::OK, "{path} {body} -> {}", r.text);
        r.body
    }
}

async fn reply(resp: reqwest::Response) -> Reply {
    let status = resp.status();
    let headers = resp.headers().clone();
    let bytes = resp.bytes().await.unwrap_or_default();
    Reply::new(status, headers, &bytes)
}

/// Waits until the `grundy` process `child` answers /readyz at `base`. Panics when it exits
/// first, or (killing it) when it is not ready within [`super::UNHURRIED`].
pub async fn wait_ready(child: &mut std::process::Child, base: &str) {
    let client = reqwest::Client::new();
    // A debug binary on a busy one-core machine may take many seconds to start (migrations,
    // a store to recover): the deadline only ends a hang; a process that exits fails at once.
    let deadline = std::time::Instant::now() + super::UNHURRIED;
    while std::time::Instant::now() < deadline {
        if client
            .get(format!("{base}/readyz"))
            .send()
            .await
            .is_ok_and(|r| r.status().is_success())
        {
            return;
        }
        if let Some(status) = child.try_wait().expect("try_wait") {
            panic!("grundy exited before it was ready: {status}");
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let _ = child.kill();
    let _ = child.wait();
    panic!("grundy did not become ready");
}

/// A real `grundy` process (the binary cargo built for these tests), killed on drop.
pub struct Process {
    pub child: std::process::Child,
    pub base: String,
}

impl Process {
    /// Starts the binary with `env` on a free port and waits until /healthz answers.
    pub async fn spawn(env: &[(&str, String)]) -> Process {
        let port = child_port();
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_grundy"));
        cmd.env("GRUNDY_ADDR", format!("127.0.0.1:{port}"))
            .env("RUST_LOG", "warn");
        for (k, v) in super::UNHURRIED_ENV {
            cmd.env(k, v);
        }
        for (k, v) in env {
            cmd.env(k, v);
        }
        if std::env::var_os("GRUNDY_TEST_LOGS").is_none() {
            cmd.stdout(std::process::Stdio::null());
        }
        let mut child = cmd.spawn().expect("spawn grundy");
        let base = format!("http://127.0.0.1:{port}");
        wait_ready(&mut child, &base).await;
        Process { child, base }
    }

    pub fn server(&self) -> Server {
        Server {
            base: self.base.clone(),
            client: reqwest::Client::new(),
        }
    }

    /// SIGKILL: no checkpoint, no release — a crash.
    pub fn kill9(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Sends `signal` (`TERM`, `INT`, …) and returns at once.
    pub fn signal(&self, signal: &str) {
        let sent = std::process::Command::new("kill")
            .arg(format!("-{signal}"))
            .arg(self.child.id().to_string())
            .status()
            .expect("kill");
        assert!(sent.success(), "kill -{signal} failed");
    }

    /// Waits up to `limit` for the process to exit: its exit status, `None` if it is still
    /// running.
    pub async fn wait_exit(
        &mut self,
        limit: std::time::Duration,
    ) -> Option<std::process::ExitStatus> {
        let deadline = std::time::Instant::now() + limit;
        loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                return Some(status);
            }
            if std::time::Instant::now() >= deadline {
                return None;
            }
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
    }

    /// SIGTERM: graceful shutdown (the drain, see README "Operations"); waits for the exit.
    pub fn terminate(&mut self) {
        let _ = std::process::Command::new("kill")
            .arg("-TERM")
            .arg(self.child.id().to_string())
            .status();
        let _ = self.child.wait();
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        self.kill9();
    }
}

/// Polls a job until it reaches a final status (or [`super::UNHURRIED`]: the deadline only ends
/// a hang; how long a job takes depends on the machine).
pub async fn wait_job(s: &Server, id: &str) -> Value {
    let deadline = std::time::Instant::now() + super::UNHURRIED;
    loop {
        let r = s.get(&format!("/v1/octal/jobs/{id}")).await;
        let status = r.body["status"].as_str().unwrap_or("").to_owned();
        if ["done", "failed", "cancelled"].contains(&status.as_str())
            || std::time::Instant::now() > deadline
        {
            return r.body;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}

/// A fresh PostgreSQL database on the local server (`GRUNDY_TEST_POSTGRES_URL`, default
/// postgres://postgres@127.0.0.1:5432/test); returns its URL.
pub async fn fresh_postgres_url() -> String {
    let admin = std::env::var("GRUNDY_TEST_POSTGRES_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".into());
    let name = format!("grundy_test_{}", uuid::Uuid::new_v4().simple());
    sqlx::any::install_default_drivers();
    let pool = sqlx::AnyPool::connect(&admin)
        .await
        .expect("PostgreSQL reachable (GRUNDY_TEST_POSTGRES_URL)");
    sqlx::query(&format!("CREATE DATABASE {name}"))
        .execute(&pool)
        .await
        .unwrap();
    let base = admin.rsplit_once('/').map(|(b, _)| b).unwrap();
    format!("{base}/{name}")
}

/// A free port for a child process to listen on, below the ephemeral range (32768–60999 on
/// Linux) and a different one for each call in this test binary. A port the OS hands out for
/// `127.0.0.1:0` would do only until the child binds it: in between, an in-process server of
/// another test binding `:0` may be given the same port, and the child's readiness check would
/// then talk to that server (seen on a slow one-core run, issue 54).
pub fn child_port() -> u16 {
    use std::sync::atomic::{AtomicU16, Ordering};
    static NEXT: AtomicU16 = AtomicU16::new(0);
    let start = 20_000 + (std::process::id() % 1000) as u16 * 12;
    let _ = NEXT.compare_exchange(0, start, Ordering::SeqCst, Ordering::SeqCst);
    loop {
        let port = NEXT.fetch_add(1, Ordering::SeqCst);
        let port = 20_000 + (port - 20_000) % 12_000;
        if std::net::TcpListener::bind(("127.0.0.1", port)).is_ok()
            && std::net::TcpListener::bind(("0.0.0.0", port)).is_ok()
        {
            return port;
        }
    }
}
