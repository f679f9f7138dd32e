//! The connection layer: accepts TCP connections and serves HTTP/1.1 and HTTP/2 on them with
//! hyper, bounding what a client can hold without sending a request.
//!
//! `axum::serve` has no knobs for this, so the accept loop is ours:
//!
//! * **connection caps** — at most `max_connections` open connections in total and
//!   `max_connections_per_client` per client IP address. A connection beyond a cap is accepted
//!   and closed at once (the client sees a reset instead of waiting in the kernel's backlog),
//!   and counted in `grundy_connections_refused_total{reason}`;
//! * **header read deadline** — a connection that has not sent a complete request head within
//!   `header_read_timeout` of starting to send it (or, on a kept-alive connection, of the
//!   previous response) is closed (hyper's `header_read_timeout`);
//! * request *bodies* have their own deadline and minimum rate, enforced before a request
//!   takes a compute slot: see [`crate::body_read`].

use std::collections::HashMap;
use std::convert::Infallible;
use std::future::Future;
use std::net::IpAddr;
use std::pin::pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Body;
use axum::extract::Request;
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto::Builder;
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tower::ServiceExt;

use crate::config::Config;

/// What one client may hold open (see the module docs).
#[derive(Debug, Clone, Copy)]
pub struct ServerLimits {
    /// `GRUNDY_MAX_CONNECTIONS`.
    pub max_connections: usize,
    /// `GRUNDY_MAX_CONNECTIONS_PER_CLIENT`.
    pub max_connections_per_client: usize,
    /// `GRUNDY_HEADER_READ_TIMEOUT_MS`.
    pub header_read_timeout: Duration,
}

impl ServerLimits {
    pub fn from_config(config: &Config) -> Self {
        ServerLimits {
            max_connections: config.max_connections,
            max_connections_per_client: config.max_connections_per_client,
            header_read_timeout: config.header_read_timeout,
        }
    }
}

/// Open connections, in total and per client address.
#[derive(Default)]
struct Connections {
    total: usize,
    per_client: HashMap<IpAddr, usize>,
}

/// Releases one connection's place in [`Connections`] when the connection ends.
struct Slot {
    open: Arc<Mutex<Connections>>,
    ip: IpAddr,
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        open.total -= 1;
        if let Some(n) = open.per_client.get_mut(&self.ip) {
            *n -= 1;
            if *n == 0 {
                open.per_client.remove(&self.ip);
            }
        }
        metrics::gauge!("grundy_open_connections").set(open.total as f64);
    }
}

/// Takes a place for a connection from `ip`, or says which cap it would exceed.
fn admit(
    open: &Arc<Mutex<Connections>>,
    ip: IpAddr,
    limits: &ServerLimits,
) -> Result<Slot, &'static str> {
    let mut guard = open.lock().unwrap_or_else(|e| e.into_inner());
    if guard.total >= limits.max_connections {
        return Err("total");
    }
    let n = guard.per_client.entry(ip).or_insert(0);
    if *n >= limits.max_connections_per_client {
        return Err("per_client");
    }
    *n += 1;
    guard.total += 1;
    metrics::gauge!("grundy_open_connections").set(guard.total as f64);
    Ok(Slot {
        open: open.clone(),
        ip,
    })
}

/// Serves `app` on `listener` until `shutdown` resolves, then finishes in-flight requests
/// (connections are told to close after their current request) and returns.
pub async fn serve<S>(
    listener: tokio::net::TcpListener,
    app: S,
    limits: ServerLimits,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()>
where
    S: tower::Service<Request<Body>, Response = axum::response::Response, Error = Infallible>
        + Clone
        + Send
        + Sync
        + 'static,
    S::Future: Send + 'static,
{
    let mut builder = Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout);
    builder.http2().timer(TokioTimer::new());
    let open = Arc::new(Mutex::new(Connections::default()));
    let graceful = GracefulShutdown::new();
    let mut shutdown = pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(conn) => conn,
                Err(e) => {
                    // Out of file descriptors and the like: back off instead of spinning
                    // (as axum::serve does).
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let slot = match admit(&open, peer.ip(), &limits) {
            Ok(slot) => slot,
            Err(reason) => {
                metrics::counter!("grundy_connections_refused_total", "reason" => reason)
                    .increment(1);
                tracing::debug!(client = %peer, reason, "connection refused: cap reached");
                drop(stream);
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let service = TowerToHyperService::new(
            app.clone()
                .map_request(|req: Request<Incoming>| req.map(Body::new)),
        );
        let conn = builder
            .serve_connection(TokioIo::new(stream), service)
            .into_owned();
        let conn = graceful.watch(conn);
        tokio::spawn(async move {
            if let Err(e) = conn.await {
                tracing::trace!(error = %e, "connection ended with an error");
            }
            drop(slot);
        });
    }
    drop(listener);
    graceful.shutdown().await;
    Ok(())
}
