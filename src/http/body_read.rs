//! Reads request bodies *before* a request takes a compute slot, under a size limit, a
//! deadline and a minimum transfer rate.
//!
//! Without this, a client that sends the head of a `POST` and then trickles (or withholds) the
//! body holds one of the `GRUNDY_MAX_CONCURRENCY` slots while the server waits on the network;
//! a thousand such clients take the service down. Here the body is collected into memory first
//! (it is bounded by `GRUNDY_MAX_BODY_BYTES`) and the handler then parses it from memory, so
//! compute slots are only ever held by requests that are ready to compute.
//!
//! The rate rule (like Kestrel's `MinRequestBodyDataRate`): after a grace period, the body must
//! keep arriving at `min_rate` bytes per second on average since the request started — the
//! next chunk after `received` bytes must arrive before `start + grace + received / min_rate`.
//! Independently, the whole body must arrive within `timeout`. A body that breaks either rule
//! gets a 408 problem and the connection is closed.
//!
//! **Only the client's own delay counts.** A deadline that has passed is judged only after what
//! has already arrived is read: the request task yields once (tokio wakes it again only after
//! the I/O driver has polled the sockets, so a chunk that has arrived is seen) and the body is
//! polled again, and every chunk found so moves the rate deadline on. A server whose workers
//! were busy — computing, or serving other connections — reads late, and the bytes its client
//! sent meanwhile are waiting in the socket: they are counted, not held against the client. The
//! body is refused only when a deadline has passed *and* nothing more has arrived.
//!
//! A refused body (408, 413) is answered while the client may still be sending: the answer is
//! marked [`UnreadBody`], and the connection closes with a bounded lingering read (see
//! [`crate::http::linger`]) so that the client can read it.
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
            timeout: config.body_read_timeout,
            min_rate: config.body_min_rate,
            grace: config.body_min_rate_grace,
        }
    }

    /// When the chunk after `received` bytes must have arrived.
    fn deadline(&self, start: Instant, received: usize) -> Instant {
        let hard = start + self.timeout;
        if self.min_rate == 0 {
            return hard;
        }
        let allowed = self.grace + Duration::from_secs_f64(received as f64 / self.min_rate as f64);
        hard.min(start + allowed)
    }
}

/// Why a body could not be read.
enum BodyError {
    TooLarge,
    TooSlow { received: usize, waited: Duration },
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
    let mut response = match e {
        BodyError::TooLarge => problem::respond(
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
        BodyError::TooSlow { received, waited } => too_slow(received, waited, rules),
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
    response.extensions_mut().insert(UnreadBody);
    response
}

async fn collect(mut body: Body, rules: &BodyRules) -> Result<Bytes, BodyError> {
    let declared = HttpBody::size_hint(&body);
    if declared.lower() > rules.max_bytes as u64 {
        return Err(BodyError::TooLarge);
    }
    let start = Instant::now();
    let mut first: Option<Bytes> = None;
    let mut more: Vec<u8> = Vec::new();
    let mut received = 0usize;
    loop {
        let deadline = tokio::time::Instant::from_std(rules.deadline(start, received));
        let next = match tokio::time::timeout_at(deadline, body.frame()).await {
            Ok(next) => next,
            // The deadline has passed: judged only after reading what has arrived already.
            Err(_) => match arrived(&mut body).await {
                Some(next) => next,
                None => {
                    return Err(BodyError::TooSlow {
                        received,
                        waited: start.elapsed(),
                    })
                }
            },
        };
        let frame = match next {
            None => break,
            Some(Err(e)) => return Err(BodyError::Broken(e.to_string())),
            Some(Ok(frame)) => frame,
        };
        let Ok(data) = frame.into_data() else {
            continue; // trailers
        };
        received += data.len();
        if received > rules.max_bytes {
            return Err(BodyError::TooLarge);
        }
        // The common case is one chunk: keep it without copying.
        match &first {
            None if more.is_empty() => first = Some(data),
            _ => {
                if let Some(f) = first.take() {
                    let want = declared.exact().unwrap_or(0).min(rules.max_bytes as u64);
                    more.reserve((want as usize).max(f.len() + data.len()));
                    more.extend_from_slice(&f);
                }
                more.extend_from_slice(&data);
            }
        }
    }
    Ok(first.unwrap_or_else(|| Bytes::from(more)))
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
fn too_slow(received: usize, waited: Duration, rules: &BodyRules) -> Response {
    metrics::counter!("grundy_slow_bodies_total").increment(1);
    let detail = format!(
        "request body: {received} bytes arrived in {} ms; the body must arrive within {} ms \
         (GRUNDY_BODY_READ_TIMEOUT_MS) and, after {} ms, at {} bytes/s or more (GRUNDY_BODY_MIN_RATE)",
        waited.as_millis(),
        rules.timeout.as_millis(),
        rules.grace.as_millis(),
        rules.min_rate
    );
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
            due: tokio::time::Instant::now() + rules.grace,
            seen_due: false,
        });
        match collect(body, &rules).await {
            Ok(bytes) => assert_eq!(&bytes[..], b"0123456789"),
            Err(BodyError::TooSlow { received, waited }) => {
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
            took >= rules.grace && took < rules.grace + Duration::from_millis(500),
            "refused after {took:?}"
        );
    }
}
