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
//!   previous response) is closed (hyper's `header_read_timeout`, timed by a per-connection
//!   timer: [`crate::http::header_deadline`]);
//! * request *bodies* have their own deadline and minimum rate, enforced before a request
//!   takes a compute slot: see [`crate::http::body_read`].

use std::cell::RefCell;
use std::collections::HashMap;
use std::convert::Infallible;
use std::future::Future;
use std::net::IpAddr;
use std::pin::{pin, Pin};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::Body;
use axum::extract::Request;
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto::Builder;
use hyper_util::server::graceful::GracefulShutdown;
use tower::util::Oneshot;
use tower::ServiceExt;

use crate::config::Config;
use crate::http::header_deadline;

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
        let service = ConnectionService(RefCell::new(app.clone()));
        // The header read deadline through a per-connection timer (no timer entry per
        // request: see `header_deadline`).
        let (timer, watchdog) = header_deadline::for_connection(limits.header_read_timeout);
        let mut builder = builder.clone();
        builder.http1().timer(timer);
        let conn = builder
            .serve_connection(TokioIo::new(stream), service)
            .into_owned();
        let conn = header_deadline::Watched::new(graceful.watch(conn), watchdog);
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

/// One connection's copy of the application, as a hyper service.
///
/// hyper calls a service through `&self` and tower through `&mut self`, so the usual adapter
/// (`hyper_util`'s `TowerToHyperService`) clones the whole stack for every request and calls
/// the clone: a handful of shared reference counts incremented and decremented per request,
/// cache lines that bounce between the cores serving different connections. The stack is
/// always ready (no layer reserves anything in `poll_ready`), so this adapter asks the
/// connection's own copy for readiness and calls it in place; should a layer ever not be
/// ready at once, that request falls back to a clone driven to readiness (`oneshot`), as
/// before. `call` is synchronous and the futures own what they need, so the `RefCell` is never
/// borrowed across an await (HTTP/2 calls it for concurrent streams, one call at a time).
struct ConnectionService<S>(RefCell<S>);

impl<S> hyper::service::Service<Request<Incoming>> for ConnectionService<S>
where
    S: tower::Service<Request<Body>, Response = axum::response::Response, Error = Infallible>
        + Clone,
{
    type Response = axum::response::Response;
    type Error = Infallible;
    type Future = ConnectionFuture<S>;

    fn call(&self, req: Request<Incoming>) -> Self::Future {
        let req = req.map(Body::new);
        let mut service = self.0.borrow_mut();
        let mut cx = Context::from_waker(futures_util::task::noop_waker_ref());
        match service.poll_ready(&mut cx) {
            Poll::Ready(Ok(())) => ConnectionFuture::Ready {
                future: service.call(req),
            },
            Poll::Ready(Err(never)) => match never {},
            Poll::Pending => ConnectionFuture::Waiting {
                future: service.clone().oneshot(req),
            },
        }
    }
}

pin_project_lite::pin_project! {
    /// The future of [`ConnectionService`]: the stack's own, or a clone's readiness and call.
    #[project = ConnectionFutureProj]
    enum ConnectionFuture<S: tower::Service<Request<Body>>> {
        Ready { #[pin] future: S::Future },
        Waiting { #[pin] future: Oneshot<S, Request<Body>> },
    }
}

impl<S> Future for ConnectionFuture<S>
where
    S: tower::Service<Request<Body>, Response = axum::response::Response, Error = Infallible>,
{
    type Output = Result<axum::response::Response, Infallible>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match self.project() {
            ConnectionFutureProj::Ready { future } => future.poll(cx),
            ConnectionFutureProj::Waiting { future } => future.poll(cx),
        }
    }
}
