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
//!   takes a compute slot: see [`crate::http::body_read`]; a body refused mid-upload is answered
//!   and its connection closed with a bounded lingering read: see [`crate::http::linger`];
//! * **the drain at shutdown** — readiness fails, a grace period of serving with
//!   `Connection: close`, then the listen backlog is answered before the listener closes, so
//!   that no connection whose `connect()` succeeded is reset (Linux resets the connections
//!   still queued on a listener that closes, and hyper closes a connection told to shut down
//!   before it has read a request): see [`serve`].

use std::cell::RefCell;
use std::collections::HashMap;
use std::convert::Infallible;
use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::pin::{pin, Pin};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::Body;
use axum::extract::Request;
use axum::http::{header, HeaderValue, Version};
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto::Builder;
use tower::util::Oneshot;
use tower::ServiceExt;

use crate::config::Config;
use crate::http::header_deadline;
use crate::http::linger::{LingerFlag, Lingering, UnreadBody};
use crate::http::shutdown::Shutdown;
use crate::service::Draining;

/// What one client may hold open (see the module docs).
#[derive(Debug, Clone, Copy)]
pub struct ServerLimits {
    /// `GRUNDY_MAX_CONNECTIONS`.
    pub max_connections: usize,
    /// `GRUNDY_MAX_CONNECTIONS_PER_CLIENT`.
    pub max_connections_per_client: usize,
    /// `GRUNDY_HEADER_READ_TIMEOUT_MS`.
    pub header_read_timeout: Duration,
    /// `GRUNDY_SHUTDOWN_GRACE_MS`.
    pub shutdown_grace: Duration,
}

impl ServerLimits {
    pub fn from_config(config: &Config) -> Self {
        ServerLimits {
            max_connections: config.max_connections,
            max_connections_per_client: config.max_connections_per_client,
            header_read_timeout: config.header_read_timeout,
            shutdown_grace: config.shutdown_grace,
        }
    }
}

/// Open connections, in total and per client address.
#[derive(Default)]
struct Open {
    total: usize,
    per_client: HashMap<IpAddr, usize>,
}

/// Releases one connection's place in [`Connections`] when the connection ends.
struct Slot {
    open: Arc<Mutex<Open>>,
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
fn admit(open: &Arc<Mutex<Open>>, ip: IpAddr, limits: &ServerLimits) -> Result<Slot, &'static str> {
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

/// How long, after the grace period, the listener keeps accepting while the SYN gate (see
/// [`close_gate`]) lets no new handshake begin: handshakes under way complete within a round
/// trip, and their connections are accepted and answered rather than reset when the listener
/// closes.
const SETTLE: Duration = Duration::from_millis(100);

/// How long after the listener closes a connection that has not sent its request yet (or is
/// idle between requests) may still send one; it is then answered with `Connection: close`.
const READ_WINDOW: Duration = Duration::from_secs(1);

/// How long after the listener closes requests in flight may take to finish (the read window
/// included); connections still open then are dropped, so that the job workers checkpoint and
/// the process exits well inside a container's stop timeout (10 s by default).
const DRAIN_LIMIT: Duration = Duration::from_secs(3);

/// What each connection's task is told as serving ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    Serve,
    /// hyper's graceful shutdown: an idle connection closes, a busy one after its response
    /// (HTTP/2: `GOAWAY`, then the streams under way finish).
    Finish,
    /// The drain limit is reached: the connection is dropped.
    Drop,
}

/// The application the server runs (the router with its middleware, cloned per connection):
/// the one bound of the accept loop, the connections and the drain.
pub trait App:
    tower::Service<
        Request<Body>,
        Response = axum::response::Response,
        Error = Infallible,
        Future: Send + 'static,
    > + Clone
    + Send
    + Sync
    + 'static
{
}

// The blanket impl restates the bound (Rust has no trait aliases): every such service is an App.
impl<S> App for S where
    S: Clone
        + Send
        + Sync
        + 'static
        + tower::Service<
            Request<Body>,
            Response = axum::response::Response,
            Error = Infallible,
            Future: Send + 'static,
        >
{
}

/// Serves `app` on `listener` until `shutdown` begins the drain, then ends in order:
///
/// 1. `draining` is set (`/readyz` answers 503) and for `limits.shutdown_grace` (less if
///    `shutdown` skips it) the server accepts and serves as before, every HTTP/1 response with
///    `Connection: close`;
/// 2. the listener stops taking new handshakes (the SYN gate), accepts for [`SETTLE`] what is
///    under way and then everything in the kernel's backlog, and closes — no connection whose
///    `connect()` succeeded is reset by the close;
/// 3. connections close by themselves after their response; those that have not sent a
///    request get [`READ_WINDOW`] to send it, then are closed if idle; requests in flight
///    finish, within [`DRAIN_LIMIT`] of the listener's close.
pub async fn serve<S>(
    listener: tokio::net::TcpListener,
    app: S,
    limits: ServerLimits,
    draining: Draining,
    shutdown: Shutdown,
) -> std::io::Result<()>
where
    S: App,
{
    let mut builder = Builder::new(TokioExecutor::new());
    builder
        .http1()
        .header_read_timeout(limits.header_read_timeout);
    builder.http2().timer(TokioTimer::new());
    let (stage, _) = tokio::sync::watch::channel(Stage::Serve);
    let conns = Connections {
        builder,
        app,
        limits,
        draining,
        open: Arc::default(),
        stage,
    };
    let Shutdown { begin, skip_grace } = shutdown;

    accept_until(&listener, &conns, begin).await;
    conns.draining.begin();
    tracing::info!(
        grace_ms = limits.shutdown_grace.as_millis() as u64,
        "draining: /readyz answers 503; serving for the grace period, every response with \
         Connection: close"
    );
    let grace = async {
        tokio::select! {
            () = tokio::time::sleep(limits.shutdown_grace) => {}
            () = skip_grace => {}
        }
    };
    accept_until(&listener, &conns, grace).await;

    let accepted = close_listener(listener, &conns).await;
    let open = conns.stage.receiver_count();
    tracing::info!(
        accepted_while_closing = accepted,
        open_connections = open,
        "listener closed; finishing the open connections"
    );
    conns.finish().await;
    Ok(())
}

/// Accepts and serves connections until `until` resolves.
async fn accept_until<S>(
    listener: &tokio::net::TcpListener,
    conns: &Connections<S>,
    until: impl Future<Output = ()>,
) where
    S: App,
{
    let mut until = pin!(until);
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, peer)) => conns.serve(stream, peer),
                Err(e) => {
                    // Out of file descriptors and the like: back off instead of spinning
                    // (as axum::serve does).
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            },
            () = &mut until => return,
        }
    }
}

/// Closes the listener without resetting a connection whose handshake completed: closes the
/// SYN gate, accepts for [`SETTLE`], then takes everything left in the backlog with
/// `accept(2)` itself until it would block (tokio's readiness may lag behind the kernel's
/// queue), and only then closes the socket — Linux resets every connection still queued on a
/// listener that closes. Returns how many connections it accepted.
async fn close_listener<S>(listener: tokio::net::TcpListener, conns: &Connections<S>) -> usize
where
    S: App,
{
    if let Err(e) = close_gate(&listener) {
        // Still drained; a handshake that completes between the last accept and the close
        // may then be reset.
        tracing::warn!(error = %e, "cannot close the SYN gate of the listener");
    }
    let listener = match listener.into_std() {
        Ok(l) => l,
        Err(e) => {
            tracing::warn!(error = %e, "cannot take the listener back from the runtime");
            return 0;
        }
    };
    let settled = tokio::time::Instant::now() + SETTLE;
    let mut accepted = 0;
    loop {
        let last = tokio::time::Instant::now() >= settled;
        loop {
            match listener.accept() {
                Ok((stream, peer)) => {
                    let stream = stream
                        .set_nonblocking(true)
                        .and_then(|()| tokio::net::TcpStream::from_std(stream));
                    match stream {
                        Ok(stream) => {
                            accepted += 1;
                            conns.serve(stream, peer);
                        }
                        Err(e) => tracing::warn!(error = %e, "cannot serve an accepted connection"),
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    tracing::warn!(error = %e, "accept failed while closing the listener");
                    break;
                }
            }
        }
        if last {
            break;
        }
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    drop(listener);
    accepted
}

/// The SYN gate: a socket filter on the listener that drops every segment opening a
/// handshake (SYN without ACK), so that no new connection can complete while the backlog is
/// drained. The client's SYN goes unanswered; its retransmission (a second later) finds the
/// port closed and `connect()` fails cleanly. Segments of handshakes under way and of
/// connections pass. A classic BPF program over the TCP header (the filter of a TCP socket
/// sees the segment from its TCP header on):
///
/// ```text
/// ldb [13]            ; the flags byte
/// and #0x12           ; SYN | ACK
/// jeq #0x02, drop     ; SYN alone: a new handshake
/// ret #-1             ; keep the segment
/// drop: ret #0
/// ```
#[cfg(any(target_os = "linux", target_os = "android"))]
fn close_gate(listener: &tokio::net::TcpListener) -> std::io::Result<()> {
    use socket2::SockFilter;
    const LDB_ABS: u16 = 0x30; // BPF_LD | BPF_B | BPF_ABS
    const AND_K: u16 = 0x54; // BPF_ALU | BPF_AND | BPF_K
    const JEQ_K: u16 = 0x15; // BPF_JMP | BPF_JEQ | BPF_K
    const RET_K: u16 = 0x06; // BPF_RET | BPF_K
    let program = [
        SockFilter::new(LDB_ABS, 0, 0, 13),
        SockFilter::new(AND_K, 0, 0, 0x12),
        SockFilter::new(JEQ_K, 1, 0, 0x02),
        SockFilter::new(RET_K, 0, 0, u32::MAX),
        SockFilter::new(RET_K, 0, 0, 0),
    ];
    socket2::SockRef::from(listener).attach_filter(&program)
}

/// Elsewhere there is no gate: the backlog is still drained (see [`close_listener`]).
#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn close_gate(_listener: &tokio::net::TcpListener) -> std::io::Result<()> {
    Ok(())
}

/// The open connections and what serves them.
struct Connections<S> {
    builder: Builder<TokioExecutor>,
    app: S,
    limits: ServerLimits,
    draining: Draining,
    /// Counts per client (the caps).
    open: Arc<Mutex<Open>>,
    /// The end of serving, told to each connection's task (one receiver each: their number is
    /// the number of connections open).
    stage: tokio::sync::watch::Sender<Stage>,
}

impl<S> Connections<S>
where
    S: App,
{
    /// Serves one accepted connection on its own task, or closes it at once if it would
    /// exceed a cap.
    fn serve(&self, stream: tokio::net::TcpStream, peer: SocketAddr) {
        let slot = match admit(&self.open, peer.ip(), &self.limits) {
            Ok(slot) => slot,
            Err(reason) => {
                metrics::counter!("grundy_connections_refused_total", "reason" => reason)
                    .increment(1);
                tracing::debug!(client = %peer, reason, "connection refused: cap reached");
                drop(stream);
                return;
            }
        };
        let _ = stream.set_nodelay(true);
        let linger = Arc::new(LingerFlag::default());
        let service = ConnectionService {
            app: RefCell::new(self.app.clone()),
            draining: self.draining.clone(),
            linger: linger.clone(),
        };
        // The header read deadline through a per-connection timer (no timer entry per
        // request: see `header_deadline`).
        let (timer, watchdog) = header_deadline::for_connection(self.limits.header_read_timeout);
        let mut builder = self.builder.clone();
        builder.http1().timer(timer);
        let conn = builder
            .serve_connection(TokioIo::new(Lingering::new(stream, linger)), service)
            .into_owned();
        let conn = header_deadline::Watched::new(conn, watchdog);
        let mut stage = self.stage.subscribe();
        tokio::spawn(async move {
            let mut conn = pin!(conn);
            let mut finishing = false;
            let ended = loop {
                tokio::select! {
                    ended = conn.as_mut() => break ended,
                    changed = stage.changed() => match changed.map(|()| *stage.borrow_and_update()) {
                        Ok(Stage::Serve) => {}
                        Ok(Stage::Finish) if !finishing => {
                            finishing = true;
                            conn.as_mut().connection().graceful_shutdown();
                        }
                        Ok(Stage::Finish) => {}
                        Ok(Stage::Drop) | Err(_) => break Ok(()),
                    },
                }
            };
            if let Err(e) = ended {
                tracing::trace!(error = %e, "connection ended with an error");
            }
            drop(stage);
            drop(slot);
        });
    }

    /// Waits for the open connections to end: by themselves (every HTTP/1 response now says
    /// `Connection: close`) for [`READ_WINDOW`], then told to finish (idle ones close), then
    /// dropped at [`DRAIN_LIMIT`].
    async fn finish(self) {
        let started = tokio::time::Instant::now();
        if tokio::time::timeout(READ_WINDOW, self.stage.closed())
            .await
            .is_ok()
        {
            return;
        }
        self.stage.send_replace(Stage::Finish);
        if tokio::time::timeout_at(started + DRAIN_LIMIT, self.stage.closed())
            .await
            .is_ok()
        {
            return;
        }
        tracing::warn!(
            connections = self.stage.receiver_count(),
            limit_ms = DRAIN_LIMIT.as_millis() as u64,
            "connections still busy at the drain limit are closed"
        );
        self.stage.send_replace(Stage::Drop);
        let _ = tokio::time::timeout(Duration::from_millis(200), self.stage.closed()).await;
    }
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
///
/// Once the server is draining, the answer to an HTTP/1 request says `Connection: close`
/// (hyper then closes the connection after it): a client's next request goes to a new
/// connection, which the load balancer sends to another replica.
///
/// An HTTP/1 answer marked [`UnreadBody`] (a body refused mid-upload) says `Connection: close`
/// and sets the connection's [`LingerFlag`]: its socket lingers at shutdown (see
/// [`crate::http::linger`]).
struct ConnectionService<S> {
    app: RefCell<S>,
    draining: Draining,
    linger: Arc<LingerFlag>,
}

impl<S> hyper::service::Service<Request<Incoming>> for ConnectionService<S>
where
    S: tower::Service<Request<Body>, Response = axum::response::Response, Error = Infallible>
        + Clone,
{
    type Response = axum::response::Response;
    type Error = Infallible;
    type Future = ConnectionFuture<S>;

    fn call(&self, req: Request<Incoming>) -> Self::Future {
        let http1 = req.version() <= Version::HTTP_11;
        let close = http1 && self.draining.is_on();
        // Only a request with a body can be refused mid-upload.
        let linger =
            (http1 && !hyper::body::Body::is_end_stream(req.body())).then(|| self.linger.clone());
        let req = req.map(Body::new);
        let mut service = self.app.borrow_mut();
        let mut cx = Context::from_waker(futures_util::task::noop_waker_ref());
        let call = match service.poll_ready(&mut cx) {
            Poll::Ready(Ok(())) => Call::Ready {
                future: service.call(req),
            },
            Poll::Ready(Err(never)) => match never {},
            Poll::Pending => Call::Waiting {
                future: service.clone().oneshot(req),
            },
        };
        ConnectionFuture {
            call,
            close,
            linger,
        }
    }
}

pin_project_lite::pin_project! {
    /// The future of [`ConnectionService`]: the call; `close`: the answer says
    /// `Connection: close`; `linger`: the connection's flag, for an HTTP/1 request with a body.
    struct ConnectionFuture<S: tower::Service<Request<Body>>> {
        #[pin]
        call: Call<S>,
        close: bool,
        linger: Option<Arc<LingerFlag>>,
    }
}

pin_project_lite::pin_project! {
    /// The stack's own future, or a clone's readiness and call.
    #[project = CallProj]
    enum Call<S: tower::Service<Request<Body>>> {
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
        let this = self.project();
        let answer = match this.call.project() {
            CallProj::Ready { future } => future.poll(cx),
            CallProj::Waiting { future } => future.poll(cx),
        };
        let Poll::Ready(Ok(mut response)) = answer else {
            return answer;
        };
        let mut close = *this.close;
        if let Some(flag) = this.linger.take() {
            if let Some(&unread) = response.extensions().get::<UnreadBody>() {
                flag.set(unread);
                close = true;
            }
        }
        if close {
            response
                .headers_mut()
                .insert(header::CONNECTION, HeaderValue::from_static("close"));
        }
        Poll::Ready(Ok(response))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    /// The SYN gate: a connection whose handshake completed before the gate closed is still
    /// accepted and carries data; a new one cannot complete its handshake.
    #[cfg(any(target_os = "linux", target_os = "android"))]
    #[tokio::test]
    async fn the_gate_lets_no_new_handshake_complete() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let mut queued = tokio::net::TcpStream::connect(addr).await.unwrap();
        close_gate(&listener).unwrap();
        let late = tokio::time::timeout(
            Duration::from_millis(300),
            tokio::net::TcpStream::connect(addr),
        )
        .await;
        assert!(
            late.is_err(),
            "a handshake completed through the gate: {late:?}"
        );
        let (mut accepted, _) = listener.accept().await.unwrap();
        queued.write_all(b"ping").await.unwrap();
        let mut buf = [0u8; 4];
        accepted.read_exact(&mut buf).await.unwrap();
        assert_eq!(&buf, b"ping");
    }
}
