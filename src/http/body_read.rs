//! Reads request bodies *before* a request takes a compute slot, under a size limit and
//! deadlines that hold the client only to its own delay.
//!
//! Without this, a client that sends the head of a `POST` and then trickles (or withholds) the
//! body holds one of the `GRUNDY_MAX_CONCURRENCY` slots while the server waits on the network;
//! a thousand such clients take the service down. Here the body is collected into memory first
//! (it is bounded by `GRUNDY_MAX_BODY_BYTES`) and the handler then parses it from memory, so
//! compute slots are only ever held by requests that are ready to compute. The slowloris guard
//! proper is the per-client connection cap (`GRUNDY_MAX_CONNECTIONS_PER_CLIENT`); the rules
//! here only end a transfer that has really stalled, and are wide enough that an honest client
//! on a loaded machine — whose thread may not run for seconds between sending the head and the
//! body — is never refused.
//!
//! The rules, on the *client's clock* (below):
//!
//! * **first byte**: the body's first byte must arrive within `first_byte` (10 s,
//!   `GRUNDY_BODY_FIRST_BYTE_TIMEOUT_MS`) of the request head — the gap after the head is
//!   bounded on its own, as nginx's `client_body_timeout` bounds the gap between two reads;
//! * **rate** (like Kestrel's `MinRequestBodyDataRate`, whose defaults these are: 5 s grace,
//!   240 B/s): from the first byte on, after a grace period the body must keep arriving at
//!   `min_rate` bytes per second on average — the chunk after `received` bytes must arrive
//!   before `first + grace + received / min_rate`;
//! * **whole body**: it must all arrive within `timeout` of its first byte.
//!
//! A body that breaks a rule gets a 408 problem and the connection is closed.
//!
//! **The client's clock** runs only while the server waits for the client's bytes with a read
//! pending, in steps of at most [`TICK`] (250 ms): each step counts at most its own length, so
//! how late the request task wakes after a step — the server's workers busy elsewhere, a stall
//! of the whole process — is the server's time, not the client's, and so is what the server
//! does between two reads (copying what came). A server that stalls for seconds charges its
//! client at most one step for it. A deadline that has passed is judged only after what has
//! already arrived is read: the request task yields once (tokio wakes it again only after the
//! I/O driver has polled the sockets, so a chunk that has arrived is seen) and the body is
//! polled again, and every chunk found so moves the deadline on. The body is refused only when
//! a deadline has passed on the client's clock *and* nothing more has arrived.
//!
//! A refused body (408, 413) is answered while the client may still be sending: the answer is
//! marked [`UnreadBody`] with the bytes of the declared body (`Content-Length`) not read yet,
//! and the connection closes with a bounded lingering read that waits for them (see
//! [`crate::http::linger`]) so that the client can finish writing and read the answer.
//!
//! Small bodies normally arrive with the request head, so the first poll finds the whole body
//! ready and no timer is ever registered.

use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::body::{Body, Bytes, HttpBody};
use axum::extract::Request;
use axum::response::Response;
use futures_util::future::BoxFuture;
use http_body_util::BodyExt;
use tower::{Layer, Service, ServiceExt};

use crate::config::Config;
use crate::http::linger::UnreadBody;
use crate::problem::{self, catalogue, Extra, Problem};

/// The body-reading rules (see the module docs).
#[derive(Debug, Clone, Copy)]
pub struct BodyRules {
    /// `GRUNDY_MAX_BODY_BYTES`.
    pub max_bytes: usize,
    /// `GRUNDY_BODY_FIRST_BYTE_TIMEOUT_MS`.
    pub first_byte: Duration,
    /// `GRUNDY_BODY_READ_TIMEOUT_MS`.
    pub timeout: Duration,
    /// `GRUNDY_BODY_MIN_RATE` (bytes per second; 0 = no rate rule).
    pub min_rate: u64,
    /// `GRUNDY_BODY_MIN_RATE_GRACE_MS`.
    pub grace: Duration,
}

impl BodyRules {
    pub fn from_config(config: &Config) -> Self {
        BodyRules {
            max_bytes: config.max_body_bytes,
            first_byte: config.body_first_byte_timeout,
            timeout: config.body_read_timeout,
            min_rate: config.body_min_rate,
            grace: config.body_min_rate_grace,
        }
    }

    /// When, on the client's clock, the chunk after `received` bytes must have arrived;
    /// `first`: when the first byte did (`None`: none has yet).
    fn deadline(&self, first: Option<Duration>, received: usize) -> Duration {
        let Some(first) = first else {
            return self.first_byte;
        };
        let whole = self.timeout;
        if self.min_rate == 0 {
            return first + whole;
        }
        let allowed = self.grace + Duration::from_secs_f64(received as f64 / self.min_rate as f64);
        first + whole.min(allowed)
    }
}

/// The longest step of a wait for the body: the client's clock advances by at most this much
/// per wake-up of the request task, so that a stall of the server (its workers busy elsewhere,
/// the task not polled) is not charged to the client beyond one step.
const TICK: Duration = Duration::from_millis(250);

/// Why a body could not be read.
enum BodyError {
    /// Over `max_bytes`; `owed`: the declared body's bytes not read yet.
    TooLarge {
        owed: Option<u64>,
    },
    /// A deadline passed: `received` bytes in `waited` of the client's clock (since the head
    /// while `first` is `None`, else since the first byte at `first`).
    TooSlow {
        received: usize,
        waited: Duration,
        first: Option<Duration>,
        owed: Option<u64>,
    },
    Broken(String),
}

/// The layer that reads bodies under [`BodyRules`] (see the module docs).
#[derive(Debug, Clone, Copy)]
pub struct ReadBodyLayer {
    rules: BodyRules,
}

impl ReadBodyLayer {
    pub fn new(rules: BodyRules) -> Self {
        ReadBodyLayer { rules }
    }
}

impl<S> Layer<S> for ReadBodyLayer {
    type Service = ReadBody<S>;
    fn layer(&self, inner: S) -> Self::Service {
        ReadBody {
            inner,
            rules: self.rules,
        }
    }
}

/// The service of [`ReadBodyLayer`]: replaces the streaming body by the bytes read under
/// [`BodyRules`], then calls the inner service. A hand-written service rather than an
/// `axum::middleware::from_fn`, which boxes a clone of the inner service and two futures per
/// request; this boxes one future (see `Future` below).
#[derive(Debug, Clone)]
pub struct ReadBody<S> {
    inner: S,
    rules: BodyRules,
}

impl<S> Service<Request> for ReadBody<S>
where
    S: Service<Request, Response = Response> + Clone + Send + 'static,
    S::Future: Send + 'static,
{
    type Response = Response;
    type Error = S::Error;
    /// Boxed in both cases: a request without a body could be answered through an unboxed
    /// `Oneshot`, but that variant (the inner service and the request, several hundred bytes)
    /// set the size of this future and so of every future wrapping it, which are moved
    /// (copied) as they are built, on every request.
    type Future = BoxFuture<'static, Result<Response, S::Error>>;

    /// Always ready: the inner service's readiness (a compute slot) is only asked for once
    /// the body has arrived.
    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: Request) -> Self::Future {
        let inner = self.inner.clone();
        // No body at all (GET, or Content-Length: 0): nothing to wait for.
        if HttpBody::size_hint(req.body()).exact() == Some(0) {
            return Box::pin(inner.oneshot(req));
        }
        let rules = self.rules;
        Box::pin(async move {
            let (parts, body) = req.into_parts();
            match collect(body, &rules).await {
                Ok(bytes) => {
                    inner
                        .oneshot(Request::from_parts(parts, Body::from(bytes)))
                        .await
                }
                Err(e) => Ok(refusal(e, &rules)),
            }
        })
    }
}

/// The response to a body that could not be read. A body refused before it had all been read
/// (408, 413) is marked [`UnreadBody`]: on HTTP/1 the answer then says `Connection: close` and
/// the connection closes with a lingering read (see [`crate::http::server`]).
fn refusal(e: BodyError, rules: &BodyRules) -> Response {
    let (mut response, owed) = match e {
        BodyError::TooLarge { owed } => (
            problem::respond(
                &Problem::new(
                    &catalogue::PAYLOAD_TOO_LARGE,
                    format!(
                        "request body exceeds the limit of {} bytes",
                        rules.max_bytes
                    ),
                    None,
                ),
                Extra::default(),
            ),
            owed,
        ),
        BodyError::TooSlow {
            received,
            waited,
            first,
            owed,
        } => (too_slow(received, waited, first, rules), owed),
        // The stream itself broke (the client went away): nothing to linger for.
        BodyError::Broken(e) => {
            return problem::respond(
                &Problem::new(
                    &catalogue::BAD_REQUEST,
                    format!("could not read the request body: {e}"),
                    None,
                ),
                Extra::default(),
            )
        }
    };
    response.extensions_mut().insert(UnreadBody { owed });
    response
}

async fn collect(mut body: Body, rules: &BodyRules) -> Result<Bytes, BodyError> {
    let declared = HttpBody::size_hint(&body);
    if declared.lower() > rules.max_bytes as u64 {
        return Err(BodyError::TooLarge {
            owed: declared.exact(),
        });
    }
    // The declared body's bytes not read yet (hyper counts down what it has handed over).
    let owed = |body: &Body| HttpBody::size_hint(body).exact();
    // The client's clock (see the module docs), and when on it the first byte came.
    let mut clock = Duration::ZERO;
    let mut first: Option<Duration> = None;
    let mut buf: Option<Bytes> = None;
    let mut more: Vec<u8> = Vec::new();
    let mut received = 0usize;
    loop {
        let deadline = rules.deadline(first, received);
        // One step of the wait, at most a tick: each wake-up's lateness past its step is the
        // server's time (a stall of its own), not counted on the client's clock.
        let step = deadline.saturating_sub(clock).min(TICK);
        let waiting = Instant::now();
        let next = match tokio::time::timeout(step, body.frame()).await {
            // Ready at once (no timer was registered), or after a wait of the client's.
            Ok(next) => {
                clock += waiting.elapsed().min(step);
                next
            }
            Err(_) => {
                clock += step;
                if clock < deadline {
                    continue; // a tick: wait on (the next poll reads what has come)
                }
                // The deadline has passed on the client's clock: judged only after reading
                // what has arrived already.
                match arrived(&mut body).await {
                    Some(next) => next,
                    None => {
                        return Err(BodyError::TooSlow {
                            received,
                            waited: clock - first.unwrap_or_default(),
                            first,
                            owed: owed(&body),
                        })
                    }
                }
            }
        };
        let frame = match next {
            None => break,
            Some(Err(e)) => return Err(BodyError::Broken(e.to_string())),
            Some(Ok(frame)) => frame,
        };
        let Ok(data) = frame.into_data() else {
            continue; // trailers
        };
        if data.is_empty() {
            continue;
        }
        first.get_or_insert(clock);
        received += data.len();
        if received > rules.max_bytes {
            return Err(BodyError::TooLarge { owed: owed(&body) });
        }
        // The common case is one chunk: keep it without copying.
        match &buf {
            None if more.is_empty() => buf = Some(data),
            _ => {
                if let Some(f) = buf.take() {
                    let want = declared.exact().unwrap_or(0).min(rules.max_bytes as u64);
                    more.reserve((want as usize).max(f.len() + data.len()));
                    more.extend_from_slice(&f);
                }
                more.extend_from_slice(&data);
            }
        }
    }
    Ok(buf.unwrap_or_else(|| Bytes::from(more)))
}

/// The body's next frame if it has arrived already (`None`: nothing has, the client is late).
///
/// The task yields first: tokio wakes a task that yields only after the I/O driver has polled
/// the sockets, and hyper reads the connection before it polls the request (HTTP/1: the same
/// task; HTTP/2: the connection's task, woken by the driver before this one), so bytes the
/// client sent while this server was busy elsewhere are seen. Twice, for HTTP/2's extra hop.
async fn arrived(
    body: &mut Body,
) -> Option<Option<Result<hyper::body::Frame<Bytes>, axum::Error>>> {
    for _ in 0..2 {
        tokio::task::yield_now().await;
        let polled = std::future::poll_fn(|cx| {
            Poll::Ready(match std::pin::Pin::new(&mut *body).poll_frame(cx) {
                Poll::Ready(next) => Some(next),
                Poll::Pending => None,
            })
        })
        .await;
        if polled.is_some() {
            return polled;
        }
    }
    None
}

/// 408 Request Timeout as a problem document; the connection is closed afterwards.
fn too_slow(
    received: usize,
    waited: Duration,
    first: Option<Duration>,
    rules: &BodyRules,
) -> Response {
    metrics::counter!("grundy_slow_bodies_total").increment(1);
    let detail = match first {
        None => format!(
            "request body: no byte of it arrived within {} ms of waiting after the request head \
             (GRUNDY_BODY_FIRST_BYTE_TIMEOUT_MS)",
            waited.as_millis()
        ),
        Some(_) => format!(
            "request body: {received} bytes arrived in {} ms of waiting from its first byte; the \
             body must arrive within {} ms of its first byte (GRUNDY_BODY_READ_TIMEOUT_MS) and, \
             after {} ms, at {} bytes/s or more on average (GRUNDY_BODY_MIN_RATE)",
            waited.as_millis(),
            rules.timeout.as_millis(),
            rules.grace.as_millis(),
            rules.min_rate
        ),
    };
    problem::respond(
        &Problem::new(
            &catalogue::REQUEST_TIMEOUT,
            detail,
            Some("request body".into()),
        ),
        Extra {
            close: true,
            ..Extra::default()
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::pin::Pin;

    /// A body whose bytes have arrived by `due` — the client sent them in time — but which
    /// the request sees only at its first poll *after* the one at or past `due`: as a request
    /// sees a body that its connection reads only when the task is next polled, on a server
    /// whose workers were busy while the client sent.
    struct Lagging {
        data: Option<Bytes>,
        due: tokio::time::Instant,
        seen_due: bool,
    }

    impl HttpBody for Lagging {
        type Data = Bytes;
        type Error = std::convert::Infallible;

        fn poll_frame(
            mut self: Pin<&mut Self>,
            _cx: &mut Context<'_>,
        ) -> Poll<Option<Result<hyper::body::Frame<Bytes>, Self::Error>>> {
            // No wake-up of its own: the deadline's timer is what wakes the request.
            if tokio::time::Instant::now() < self.due {
                return Poll::Pending;
            }
            if !self.seen_due {
                self.seen_due = true;
                return Poll::Pending;
            }
            Poll::Ready(self.data.take().map(|d| Ok(hyper::body::Frame::data(d))))
        }
    }

    fn rules() -> BodyRules {
        BodyRules {
            max_bytes: 1 << 20,
            first_byte: Duration::from_millis(100),
            timeout: Duration::from_secs(10),
            min_rate: 1000,
            grace: Duration::from_millis(100),
        }
    }

    /// The bytes that had arrived when the deadline passed are read before the body is
    /// judged: the client is not refused for the server's lateness.
    #[tokio::test]
    async fn what_has_arrived_is_read_before_the_deadline_is_judged() {
        let rules = rules();
        let body = Body::new(Lagging {
            data: Some(Bytes::from_static(b"0123456789")),
            due: tokio::time::Instant::now() + rules.first_byte,
            seen_due: false,
        });
        match collect(body, &rules).await {
            Ok(bytes) => assert_eq!(&bytes[..], b"0123456789"),
            Err(BodyError::TooSlow {
                received, waited, ..
            }) => {
                panic!("refused as too slow: {received} bytes in {waited:?}")
            }
            Err(_) => panic!("refused"),
        }
    }

    /// A body with nothing more to read at its deadline is refused, at the deadline.
    #[tokio::test]
    async fn a_body_that_has_not_arrived_is_refused_at_its_deadline() {
        let rules = rules();
        let started = Instant::now();
        let body = Body::new(Lagging {
            data: Some(Bytes::from_static(b"late")),
            due: tokio::time::Instant::now() + Duration::from_secs(60),
            seen_due: false,
        });
        match collect(body, &rules).await {
            Err(BodyError::TooSlow { received: 0, .. }) => {}
            Ok(_) => panic!("a body that never came was accepted"),
            Err(_) => panic!("refused otherwise"),
        }
        let took = started.elapsed();
        assert!(
            took >= rules.first_byte && took < rules.first_byte + Duration::from_millis(500),
            "refused after {took:?}"
        );
    }

    /// A stall of the server (here: the runtime's only thread blocked for 2 s while the body's
    /// deadline, 1 s, passes) is not the client's time: a body that comes 300 ms after the
    /// stall — its client was starved too — is read, not refused.
    #[tokio::test(flavor = "current_thread")]
    async fn a_stall_of_the_server_is_not_charged_to_the_client() {
        let rules = BodyRules {
            first_byte: Duration::from_secs(1),
            ..rules()
        };
        let stall = Duration::from_secs(2);
        let started = tokio::time::Instant::now();
        let body = Body::new(Lagging {
            data: Some(Bytes::from_static(b"late but honest")),
            due: started + stall + Duration::from_millis(300),
            seen_due: false,
        });
        let task = tokio::spawn(async move { collect(body, &rules).await });
        // Let it poll the body once and wait, then block the runtime.
        tokio::task::yield_now().await;
        std::thread::sleep(stall);
        match task.await.unwrap() {
            Ok(bytes) => assert_eq!(&bytes[..], b"late but honest"),
            Err(BodyError::TooSlow { waited, .. }) => {
                panic!("refused as too slow after {waited:?} of the client's clock")
            }
            Err(_) => panic!("refused"),
        }
        assert!(started.elapsed() < stall + rules.first_byte);
    }

    /// The rate rule counts from the first byte: a client whose first byte comes late (within
    /// the first-byte bound) and the rest promptly is not refused, and one whose bytes stop
    /// after the first is refused after the grace period on from its first byte.
    #[test]
    fn the_rate_clock_starts_at_the_first_byte() {
        let rules = BodyRules {
            first_byte: Duration::from_secs(10),
            timeout: Duration::from_secs(30),
            min_rate: 240,
            grace: Duration::from_secs(5),
            max_bytes: 1 << 20,
        };
        assert_eq!(rules.deadline(None, 0), Duration::from_secs(10));
        let first = Duration::from_secs(8);
        assert_eq!(rules.deadline(Some(first), 0), first + rules.grace);
        assert_eq!(
            rules.deadline(Some(first), 2400),
            first + rules.grace + Duration::from_secs(10)
        );
        // The whole-body bound, from the first byte.
        assert_eq!(rules.deadline(Some(first), 1 << 20), first + rules.timeout);
    }
}
