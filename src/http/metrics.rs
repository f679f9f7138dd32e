//! The request's bookkeeping at the edge of the stack, in one layer: its request id, its
//! metrics, and the log line of a failed request.
//!
//! **Request id.** A request's `x-request-id` is kept when the client sent a valid one;
//! otherwise a random (v4) UUID is made (and set on the request too when the `debug` request
//! span, its one reader there, is enabled), and the same id is put on the response. This is
//! what tower-http's `SetRequestIdLayer` + `PropagateRequestIdLayer` did, in the same layer as
//! the metrics (two fewer layers to clone and poll per request, and no `RequestId` extension
//! to allocate).
//!
//! **Metrics.** Per-route request metrics whose per-request cost is two atomic updates:
//! `grundy_http_requests_total{route, method, status}` and
//! `grundy_http_request_duration_seconds{route}`.
//!
//! The `metrics::counter!(…, "route" => …)` macros resolve a handle on every call: they build
//! the label set (a `String` per label), hash it and look it up in the recorder's registry.
//! At tens of thousands of requests per second per core that was a large share of the stack's
//! cost, so the handles are resolved once instead: a table built at start-up from the
//! documented routes holds, per route, the latency histogram and one lazily resolved counter
//! per (method, status) pair among the common ones. An unusual status falls back to the macros.
//!
//! **Route.** The layer sits outside the router (one stack around the whole application,
//! not one boxed copy per route: see [`crate::app`]), so it cannot read axum's
//! `MatchedPath`; it matches the request path itself, with the same matcher axum uses
//! (`matchit`) over the same route templates (every documented route, plus the pages' and
//! the Swagger UI's), so the `route` label is the template axum matched (`/v1/octal/jobs/{id}`)
//! or `unmatched`.
//!
//! The layer also writes the one log line of a failed request: a `500` is logged at `error`
//! with its route, method, request id and the internal error's detail (which the handler
//! leaves in the response's [`InternalErrorDetail`] extension). A per-request `info`
//! span would format its fields on every request; the request span is at `debug`.
//! Other statuses are not logged here: refusals of bad input are the client's business, and
//! `503`s from load shedding must not flood the log when the server is overloaded (store
//! faults are logged by the store, once per fault).

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll};
use std::time::Instant;

use axum::extract::Request;
use axum::http::{HeaderValue, Method};
use axum::response::Response;
use metrics::{Counter, Histogram};
use tower::{Layer, Service};

const REQUESTS: &str = "grundy_http_requests_total";
const DURATION: &str = "grundy_http_request_duration_seconds";
/// The route label of requests no route matched.
const UNMATCHED: &str = "unmatched";

const METHODS: [Method; 7] = [
    Method::GET,
    Method::POST,
    Method::PUT,
    Method::DELETE,
    Method::PATCH,
    Method::HEAD,
    Method::OPTIONS,
];
const STATUSES: [u16; 17] = [
    200, 201, 202, 204, 304, 400, 404, 405, 408, 409, 413, 415, 422, 429, 500, 503, 504,
];

use super::headers::X_REQUEST_ID;
use crate::problem::InternalErrorDetail;

/// A random (v4) UUID as a header value, formatted without an intermediate `String`.
fn new_request_id() -> HeaderValue {
    let mut buf = [0u8; uuid::fmt::Hyphenated::LENGTH];
    let id = uuid::Uuid::new_v4().hyphenated().encode_lower(&mut buf);
    HeaderValue::from_str(id).expect("a UUID is a valid header value")
}

/// The handles of one route.
struct RouteMetrics {
    route: Arc<str>,
    duration: Histogram,
    /// Indexed by `method * STATUSES.len() + status`, resolved on first use.
    requests: Box<[OnceLock<Counter>]>,
}

impl RouteMetrics {
    fn new(route: &str) -> Self {
        let route: Arc<str> = Arc::from(route);
        RouteMetrics {
            duration: metrics::histogram!(DURATION, "route" => route.to_string()),
            requests: (0..METHODS.len() * STATUSES.len())
                .map(|_| OnceLock::new())
                .collect(),
            route,
        }
    }

    fn record(&self, method: &Method, status: u16, started: Instant) {
        self.duration.record(started.elapsed().as_secs_f64());
        self.count(method, status, 1);
    }

    /// Adds `n` to the request counter of (`method`, `status`): a handle resolved once for the
    /// common pairs (no clone on the hot path), else looked up.
    fn count(&self, method: &Method, status: u16, n: u64) {
        let m = METHODS.iter().position(|m| m == method);
        let s = STATUSES.iter().position(|&s| s == status);
        match (m, s) {
            (Some(m), Some(s)) => self.requests[m * STATUSES.len() + s]
                .get_or_init(|| {
                    metrics::counter!(REQUESTS, "route" => self.route.to_string(),
                        "method" => METHODS[m].as_str().to_owned(), "status" => status.to_string())
                })
                .increment(n),
            _ => metrics::counter!(REQUESTS, "route" => self.route.to_string(),
                "method" => method.as_str().to_owned(), "status" => status.to_string())
            .increment(n),
        }
    }
}

/// The per-route table, shared by every clone of the service.
struct Table {
    /// Route template → index into `metrics`; the last entry of `metrics` is `unmatched`.
    router: matchit::Router<usize>,
    /// The templates without parameters, looked up first: a hash of the path costs a tenth
    /// of the matcher's walk, and nearly every request is to such a route.
    exact: HashMap<Box<str>, usize, foldhash::fast::FixedState>,
    metrics: Vec<RouteMetrics>,
}

impl Table {
    /// The index of `path`'s route in `metrics` (the last one, `unmatched`, if none).
    fn route(&self, path: &str) -> usize {
        if let Some(&i) = self.exact.get(path) {
            return i;
        }
        self.router
            .at(path)
            .map_or(self.metrics.len() - 1, |m| *m.value)
    }
}

/// Records request metrics; `routes` are the route templates (axum syntax) of every route
/// the application serves: a path none matches is labelled `unmatched`.
#[derive(Clone)]
pub struct HttpMetricsLayer {
    table: Arc<Table>,
}

impl HttpMetricsLayer {
    pub fn new<'a>(routes: impl IntoIterator<Item = &'a str>) -> Self {
        let mut router = matchit::Router::new();
        let mut exact = HashMap::with_hasher(foldhash::fast::FixedState::default());
        let mut metrics = Vec::new();
        for route in routes {
            if metrics.iter().any(|m: &RouteMetrics| &*m.route == route) {
                continue;
            }
            match router.insert(route, metrics.len()) {
                Ok(()) => {
                    if !route.contains('{') {
                        exact.insert(Box::from(route), metrics.len());
                    }
                    metrics.push(RouteMetrics::new(route));
                }
                // Only a template axum itself would refuse (the router panics first).
                Err(e) => tracing::warn!(route, error = %e, "route left out of the metrics"),
            }
        }
        metrics.push(RouteMetrics::new(UNMATCHED));
        // A few request counters at 0 from the start (every route's latency histogram is
        // registered above), so that a scrape of a server just started lists the series.
        for (route, status) in [("/healthz", 200), ("/readyz", 200), ("/metrics", 200)]
            .into_iter()
            .chain([(UNMATCHED, 404)])
        {
            if let Some(m) = metrics.iter().find(|m| &*m.route == route) {
                m.count(&Method::GET, status, 0);
            }
        }
        HttpMetricsLayer {
            table: Arc::new(Table {
                router,
                exact,
                metrics,
            }),
        }
    }
}

impl<S> Layer<S> for HttpMetricsLayer {
    type Service = HttpMetrics<S>;
    fn layer(&self, inner: S) -> Self::Service {
        HttpMetrics {
            inner,
            table: self.table.clone(),
        }
    }
}

/// The service of [`HttpMetricsLayer`].
#[derive(Clone)]
pub struct HttpMetrics<S> {
    inner: S,
    table: Arc<Table>,
}

impl<S, B> Service<Request> for HttpMetrics<S>
where
    S: Service<Request, Response = Response<B>>,
{
    type Response = Response<B>;
    type Error = S::Error;
    type Future = MetricsFuture<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut req: Request) -> Self::Future {
        let request_id = match req.headers().get(X_REQUEST_ID) {
            Some(id) => id.clone(),
            None => {
                let id = new_request_id();
                // Only the `debug` request span reads it from the request (see
                // `app::request_span`); adding a header grows the request's map, so it is
                // added only when that span is on.
                if tracing::enabled!(target: "grundy::app", tracing::Level::DEBUG) {
                    req.headers_mut().insert(X_REQUEST_ID, id.clone());
                }
                id
            }
        };
        let route = self.table.route(req.uri().path());
        MetricsFuture {
            method: req.method().clone(),
            request_id: Some(request_id),
            inner: self.inner.call(req),
            table: self.table.clone(),
            route,
            started: Instant::now(),
        }
    }
}

pin_project_lite::pin_project! {
    /// Records the metrics when the inner response is ready.
    pub struct MetricsFuture<F> {
        #[pin]
        inner: F,
        method: Method,
        request_id: Option<HeaderValue>,
        table: Arc<Table>,
        route: usize,
        started: Instant,
    }
}

impl<F, B, E> Future for MetricsFuture<F>
where
    F: Future<Output = Result<Response<B>, E>>,
{
    type Output = Result<Response<B>, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let mut result = std::task::ready!(this.inner.poll(cx));
        if let Ok(resp) = &mut result {
            if let Some(id) = this.request_id.take() {
                // `insert`: JSON responses carry a placeholder to replace (see
                // `super::headers::json_headers`); the response's id is always the request's.
                resp.headers_mut().insert(X_REQUEST_ID, id);
            }
            let status = resp.status().as_u16();
            let metrics = &this.table.metrics[*this.route];
            metrics.record(this.method, status, *this.started);
            if status == 500 {
                let detail = resp.extensions().get::<InternalErrorDetail>();
                tracing::error!(
                    route = &*metrics.route,
                    method = %this.method,
                    status,
                    request_id = resp
                        .headers()
                        .get(X_REQUEST_ID)
                        .and_then(|v| v.to_str().ok())
                        .unwrap_or("-"),
                    error = detail.map_or("(no detail)", |d| d.0.as_str()),
                    "internal error"
                );
            }
        }
        Poll::Ready(result)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use axum::body::Body;
    use tower::ServiceExt;

    use super::*;

    /// Collects what the subscriber writes.
    #[derive(Clone, Default)]
    struct Captured(Arc<Mutex<Vec<u8>>>);

    impl std::io::Write for Captured {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// Runs one request through the layer over a service answering `status` (with an
    /// internal error's detail when it is a 500); returns the response and the log.
    fn run(status: u16, request_id: Option<&str>) -> (Response, String) {
        let captured = Captured::default();
        let writer = captured.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_writer(move || writer.clone())
            .with_ansi(false)
            .finish();
        let inner = tower::service_fn(move |_req: Request| async move {
            let mut resp = Response::new(Body::empty());
            *resp.status_mut() = axum::http::StatusCode::from_u16(status).unwrap();
            if status == 500 {
                resp.extensions_mut()
                    .insert(InternalErrorDetail("the disk caught fire".into()));
            }
            Ok::<_, std::convert::Infallible>(resp)
        });
        let svc = HttpMetricsLayer::new(["/v1/x"]).layer(inner);
        let mut req = Request::builder().uri("/v1/x").method("POST");
        if let Some(id) = request_id {
            req = req.header("x-request-id", id);
        }
        let req = req.body(Body::empty()).unwrap();
        let resp = tracing::subscriber::with_default(subscriber, || {
            tokio::runtime::Builder::new_current_thread()
                .build()
                .unwrap()
                .block_on(svc.oneshot(req))
                .unwrap()
        });
        let log = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
        (resp, log)
    }

    #[test]
    fn a_500_is_logged_once_with_its_request_id_and_detail() {
        let (resp, log) = run(500, Some("abc-123"));
        assert_eq!(resp.headers()["x-request-id"], "abc-123");
        assert_eq!(log.lines().count(), 1, "{log}");
        for needle in [
            "ERROR",
            "internal error",
            "abc-123",
            "the disk caught fire",
            "POST",
            "500",
        ] {
            assert!(log.contains(needle), "{needle} missing from {log}");
        }
    }

    #[test]
    fn other_statuses_are_not_logged_and_get_a_fresh_id() {
        for status in [200, 404, 422, 503] {
            let (resp, log) = run(status, None);
            assert!(log.is_empty(), "{status}: {log}");
            let id = resp.headers()["x-request-id"].to_str().unwrap();
            assert!(uuid::Uuid::parse_str(id).is_ok(), "{id}");
        }
    }
}
