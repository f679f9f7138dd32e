//! Overload protection and its errors as responses: the **concurrency limit with load
//! shedding** (at most `GRUNDY_MAX_CONCURRENCY` requests inside; one more is refused at once
//! with a `503`, never queued) and the mapping of the request timeout's error (tower's
//! `Timeout`, just inside) to a `503` problem, so the stack's error type is `Infallible` as
//! axum requires.
//!
//! The limit is one atomic counter shared by every worker thread: a request adds one on the
//! way in (refused, and the one taken back, when the count was already at the limit) and its
//! future takes it back when it finishes or is dropped. That is exactly what tower's
//! `LoadShed` around `GlobalConcurrencyLimit` did (shed when no permit is free), without
//! their costs on every request: the semaphore takes a global mutex to return each permit
//! (`tokio::sync::Semaphore::release`), and the two layers cloned two more shared `Arc`s —
//! all contended across cores. Nothing is boxed either: the inner future is polled in place
//! and only its error is mapped (what `axum::error_handling::HandleErrorLayer` does with a
//! boxed future).

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::extract::Request;
use axum::response::Response;
use tower::{BoxError, Layer, Service};

use crate::problem;

/// See the module docs: at most `max_concurrency` requests inside at once; `timeout` is the
/// request timeout, named in its problem.
#[derive(Debug, Clone)]
pub struct OverloadLayer {
    limit: Arc<Admission>,
    timeout: Duration,
}

impl OverloadLayer {
    pub fn new(max_concurrency: usize, timeout: Duration) -> Self {
        OverloadLayer {
            limit: Arc::new(Admission {
                inside: AtomicUsize::new(0),
                max: max_concurrency,
            }),
            timeout,
        }
    }
}

impl<S> Layer<S> for OverloadLayer {
    type Service = Overload<S>;
    fn layer(&self, inner: S) -> Self::Service {
        Overload {
            inner,
            limit: self.limit.clone(),
            timeout: self.timeout,
            not_ready: None,
        }
    }
}

/// The shared count of requests inside.
#[derive(Debug)]
struct Admission {
    inside: AtomicUsize,
    max: usize,
}

impl Admission {
    /// One more request inside, or `None` when `max` are already inside.
    fn enter(self: &Arc<Self>) -> Option<Ticket> {
        // Relaxed is enough: the count orders nothing else, it only bounds how many are in.
        if self.inside.fetch_add(1, Ordering::Relaxed) >= self.max {
            self.inside.fetch_sub(1, Ordering::Relaxed);
            return None;
        }
        Some(Ticket(self.clone()))
    }
}

/// A request's place inside; given back when dropped (finished, failed or cancelled).
#[derive(Debug)]
struct Ticket(Arc<Admission>);

impl Drop for Ticket {
    fn drop(&mut self) {
        self.0.inside.fetch_sub(1, Ordering::Relaxed);
    }
}

/// The service of [`OverloadLayer`].
#[derive(Debug, Clone)]
pub struct Overload<S> {
    inner: S,
    limit: Arc<Admission>,
    timeout: Duration,
    /// The inner service's error from `poll_ready`, for the next call.
    not_ready: Option<Box<str>>,
}

impl<S> Service<Request> for Overload<S>
where
    S: Service<Request, Response = Response, Error = BoxError>,
{
    type Response = Response;
    type Error = Infallible;
    type Future = OverloadFuture<S::Future>;

    /// Ready when the inner service is (the router and the timeout always are); the limit is
    /// applied when the request is called, so a full server answers `503` at once.
    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        match self.inner.poll_ready(cx) {
            Poll::Pending => Poll::Pending,
            Poll::Ready(Ok(())) => Poll::Ready(Ok(())),
            // Neither the router nor the timeout ever fails to be ready; if an inner service
            // did, the request it was readied for gets the error as its response (and the
            // inner service is not called).
            Poll::Ready(Err(e)) => {
                self.not_ready = Some(e.to_string().into());
                Poll::Ready(Ok(()))
            }
        }
    }

    fn call(&mut self, req: Request) -> Self::Future {
        if let Some(e) = self.not_ready.take() {
            return OverloadFuture {
                state: State::Failed { error: Some(e) },
                timeout: self.timeout,
            };
        }
        match self.limit.enter() {
            Some(ticket) => OverloadFuture {
                state: State::Inside {
                    inner: self.inner.call(req),
                    _ticket: ticket,
                },
                timeout: self.timeout,
            },
            None => OverloadFuture {
                state: State::Refused,
                timeout: self.timeout,
            },
        }
    }
}

pin_project_lite::pin_project! {
    /// The inner service's future holding its place, with its error turned into a response;
    /// or a refusal.
    pub struct OverloadFuture<F> {
        #[pin]
        state: State<F>,
        timeout: Duration,
    }
}

pin_project_lite::pin_project! {
    #[project = StateProj]
    enum State<F> {
        Inside { #[pin] inner: F, _ticket: Ticket },
        Refused,
        Failed { error: Option<Box<str>> },
    }
}

impl<F> Future for OverloadFuture<F>
where
    F: Future<Output = Result<Response, BoxError>>,
{
    type Output = Result<Response, Infallible>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        match this.state.project() {
            StateProj::Inside { inner, .. } => {
                let result = std::task::ready!(inner.poll(cx));
                Poll::Ready(Ok(
                    result.unwrap_or_else(|err| overload_error(err, *this.timeout))
                ))
            }
            StateProj::Refused => Poll::Ready(Ok(at_capacity())),
            StateProj::Failed { error } => Poll::Ready(Ok(problem::internal(format!(
                "middleware error: {}",
                error.take().unwrap_or_default()
            )))),
        }
    }
}

/// The problem for a request refused because the server is full.
fn at_capacity() -> Response {
    problem::unavailable(
        "the server is at capacity (GRUNDY_MAX_CONCURRENCY); retry shortly",
        1,
    )
}

/// The problem for an error of the inner stack (the request timeout).
fn overload_error(err: BoxError, timeout: Duration) -> Response {
    if err.is::<tower::timeout::error::Elapsed>() {
        problem::unavailable(
            format!(
                "the request took longer than {} ms (GRUNDY_REQUEST_TIMEOUT_MS)",
                timeout.as_millis()
            ),
            1,
        )
    } else {
        problem::internal(format!("middleware error: {err}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::body::Body;
    use tokio::sync::oneshot;
    use tower::ServiceExt;

    /// A request that the inner service answers when `release` is sent (or never).
    fn held(release: oneshot::Receiver<()>) -> Request {
        let mut req = Request::new(Body::empty());
        req.extensions_mut()
            .insert(Arc::new(std::sync::Mutex::new(Some(release))));
        req
    }

    type Release = Arc<std::sync::Mutex<Option<oneshot::Receiver<()>>>>;

    fn stack(
        max: usize,
        timeout: Duration,
    ) -> Overload<
        tower::timeout::Timeout<tower::util::BoxCloneService<Request, Response, Infallible>>,
    > {
        let inner = tower::service_fn(|req: Request| async move {
            let release = req.extensions().get::<Release>().cloned();
            if let Some(rx) = release.and_then(|r| r.lock().unwrap().take()) {
                let _ = rx.await;
            }
            Ok::<_, Infallible>(Response::new(Body::from("done")))
        });
        OverloadLayer::new(max, timeout).layer(tower::timeout::Timeout::new(
            tower::util::BoxCloneService::new(inner),
            timeout,
        ))
    }

    async fn problem(resp: Response) -> (u16, Option<String>, String) {
        let status = resp.status().as_u16();
        let retry = resp
            .headers()
            .get("retry-after")
            .map(|v| v.to_str().unwrap().to_owned());
        let body = axum::body::to_bytes(resp.into_body(), 1 << 16)
            .await
            .unwrap();
        (status, retry, String::from_utf8(body.to_vec()).unwrap())
    }

    /// The limit admits `max` requests, refuses the next with the capacity problem at once,
    /// and takes a place back when a request finishes or is dropped (cancelled).
    #[tokio::test]
    async fn sheds_beyond_the_limit_and_gives_places_back() {
        let svc = stack(2, Duration::from_secs(60));
        let (tx1, rx1) = oneshot::channel();
        let (_tx2, rx2) = oneshot::channel::<()>();
        let mut first = tokio::spawn(svc.clone().oneshot(held(rx1)));
        let second = svc.clone().oneshot(held(rx2));
        let mut second = Box::pin(second);
        // Both are inside (the second is polled once so it has entered).
        assert!(futures_poll_once(&mut second).await.is_none());
        tokio::task::yield_now().await;
        assert_eq!(svc.limit.inside.load(Ordering::Relaxed), 2);

        let (status, retry, body) = problem(
            svc.clone()
                .oneshot(held(oneshot::channel().1))
                .await
                .unwrap(),
        )
        .await;
        assert_eq!(status, 503);
        assert_eq!(retry.as_deref(), Some("1"));
        assert!(body.contains("GRUNDY_MAX_CONCURRENCY"), "{body}");
        assert_eq!(
            svc.limit.inside.load(Ordering::Relaxed),
            2,
            "a refusal holds no place"
        );

        // The first finishes: its place comes back.
        tx1.send(()).unwrap();
        let resp = (&mut first).await.unwrap().unwrap();
        assert_eq!(resp.status(), 200);
        assert_eq!(svc.limit.inside.load(Ordering::Relaxed), 1);
        // The second is cancelled (its future dropped): its place comes back too.
        drop(second);
        assert_eq!(svc.limit.inside.load(Ordering::Relaxed), 0);
        // And the server admits again.
        let resp = svc
            .clone()
            .oneshot(Request::new(Body::empty()))
            .await
            .unwrap();
        assert_eq!(resp.status(), 200);
        assert_eq!(svc.limit.inside.load(Ordering::Relaxed), 0);
    }

    /// A request past the timeout is a 503 naming `GRUNDY_REQUEST_TIMEOUT_MS`, and gives its
    /// place back.
    #[tokio::test]
    async fn the_timeout_is_a_503_problem() {
        let svc = stack(1, Duration::from_millis(30));
        let (_tx, rx) = oneshot::channel::<()>();
        let (status, retry, body) = problem(svc.clone().oneshot(held(rx)).await.unwrap()).await;
        assert_eq!(status, 503);
        assert_eq!(retry.as_deref(), Some("1"));
        assert!(
            body.contains("longer than 30 ms (GRUNDY_REQUEST_TIMEOUT_MS)"),
            "{body}"
        );
        assert_eq!(svc.limit.inside.load(Ordering::Relaxed), 0);
    }

    /// Many tasks on several threads racing for few places: never more than `max` requests
    /// run inside at once (counted by the inner service itself), every place comes back.
    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn never_more_than_max_inside() {
        let max = 3;
        let running = Arc::new(AtomicUsize::new(0));
        let peak = Arc::new(AtomicUsize::new(0));
        let (r, p) = (running.clone(), peak.clone());
        let inner = tower::service_fn(move |_req: Request| {
            let (running, peak) = (r.clone(), p.clone());
            async move {
                let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                peak.fetch_max(now, Ordering::SeqCst);
                for _ in 0..3 {
                    tokio::task::yield_now().await;
                }
                running.fetch_sub(1, Ordering::SeqCst);
                Ok::<_, Infallible>(Response::new(Body::empty()))
            }
        });
        let svc =
            OverloadLayer::new(max, Duration::from_secs(60)).layer(tower::timeout::Timeout::new(
                tower::util::BoxCloneService::new(inner),
                Duration::from_secs(60),
            ));
        let mut tasks = Vec::new();
        for _ in 0..32 {
            let svc = svc.clone();
            tasks.push(tokio::spawn(async move {
                let (mut ok, mut shed) = (0, 0);
                for _ in 0..100 {
                    match svc
                        .clone()
                        .oneshot(Request::new(Body::empty()))
                        .await
                        .unwrap()
                        .status()
                        .as_u16()
                    {
                        200 => ok += 1,
                        503 => shed += 1,
                        s => panic!("status {s}"),
                    }
                }
                (ok, shed)
            }));
        }
        let (mut ok, mut shed) = (0, 0);
        for t in tasks {
            let (o, s) = t.await.unwrap();
            ok += o;
            shed += s;
        }
        assert_eq!(ok + shed, 3200);
        assert!(ok > 0, "something got in");
        assert!(shed > 0, "the limit was reached");
        assert!(
            peak.load(Ordering::SeqCst) <= max,
            "peak {}",
            peak.load(Ordering::SeqCst)
        );
        assert_eq!(svc.limit.inside.load(Ordering::SeqCst), 0);
    }

    /// Polls `fut` once; `Some` if it finished.
    async fn futures_poll_once<F: Future + Unpin>(fut: &mut F) -> Option<F::Output> {
        std::future::poll_fn(|cx| {
            Poll::Ready(match Pin::new(&mut *fut).poll(cx) {
                Poll::Ready(v) => Some(v),
                Poll::Pending => None,
            })
        })
        .await
    }
}
