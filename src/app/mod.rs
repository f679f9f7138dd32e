//! Assembles the service: routes, documentation and the middleware stack ([`stack`]), and
//! runs it with its state, store, job workers and accept loop ([`run`]).
//!
//! Outermost first: request id, metrics and the log line of a failed request → tracing →
//! security headers → panic guard → body read (deadline,
//! minimum rate, size limit: before any compute slot is taken, see [`crate::http::body_read`]) →
//! overload protection (load shedding, concurrency limit, timeout) → handlers.
//!
//! Every layer is on the path of every request, so each is written to cost little: metric
//! handles are resolved once per route ([`crate::http::metrics`]), span fields are only
//! formatted when the span is enabled, and requests that are refused cheaply (a body too large,
//! too slow, no route) never reach the concurrency limit.

pub mod ask; // `grundy value`, `grundy misere`: one answer of the API in-process, no server
pub mod census; // `grundy census CODE… --to N`: the census job machinery in-process, its table printed
pub mod cli; // what the commands share: codes and counts, failures in one line, notes on stderr
mod download; // a run's values as the download endpoint serves them: to a file, to stdout, the rare heaps
pub mod octal; // `grundy octal CODE --to N`: the job machinery in-process, with progress on stderr
mod progress; // a job's progress on stderr, followed as the event stream follows it
mod report; // what a finished run prints: verdict, statistics table, histogram, rare heaps, summary
pub mod runs; // `grundy runs`: the runs kept in `grundy octal`'s stores, listed, shown, deleted
pub mod store_at; // `--store`: an SQLite file or a shared PostgreSQL database, checked, opened, closed whole

/// The API's documents the commands print (`--json`, `--csv`, the values they read): the
/// command line answers in the API's own wire types, built from the service's results without
/// a request. Named here, the one place of `app/` that reaches into `api/`.
pub(crate) mod documents {
    pub use crate::api::octal::heap_value_of;
    pub use crate::api::octal::jobs::census::{csv, CensusDocument, CensusGame};
    pub use crate::api::octal::jobs::statistics::JobStatistics;
    pub use crate::api::octal::jobs::JobResponse;
    pub use crate::api::octal::misere::QuotientResponse;
}

use axum::extract::Request;
use axum::response::IntoResponse;
use axum::Router;
use tower::{ServiceBuilder, ServiceExt};
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::trace::{DefaultOnFailure, TraceLayer};
use utoipa_swagger_ui::SwaggerUi;

use std::time::Duration;

use tokio::net::TcpListener;

use crate::api::wire::error::ApiError;
use crate::config::Config;
use crate::http::body_read::{BodyRules, ReadBodyLayer};
use crate::http::headers::{security_headers, X_REQUEST_ID};
use crate::http::metrics::HttpMetricsLayer;
use crate::http::overload::OverloadLayer;
use crate::http::server::{serve, ServerLimits};
use crate::http::shutdown::Shutdown;
use crate::service::jobs::Workers;
use crate::service::AppState;

/// The Swagger UI's route templates (`utoipa-swagger-ui` serves `/docs` as a redirect,
/// `/docs/` and `/docs/{*rest}`) and the document's, for the metrics' route labels.
const DOCS_ROUTES: [&str; 4] = ["/docs", "/docs/", "/docs/{*rest}", "/openapi.json"];

/// The complete application for `state`, as a `Router` (for in-process callers: tests,
/// embedding). It is [`stack`] as the router's fallback, so it answers exactly the same.
pub fn build(state: AppState) -> Router {
    Router::new().fallback_service(stack(state))
}

/// The complete application for `state`: the middleware stack around the router — what the
/// server runs.
///
/// One stack around the whole router, not `Router::layer`: axum applies a layer to each
/// route by boxing the layered route, and clones the route's service for every request, so
/// the whole stack was cloned into a fresh box and dropped per request, and its futures
/// were nested inside the router's (measured with callgrind, BENCHMARKS.md "HTTP"). Around
/// the router, the stack is cloned (a few reference counts, no allocation) by the server's
/// per-request `oneshot`, and only the handler's own route is boxed.
pub fn stack(
    state: AppState,
) -> impl tower::Service<
    Request,
    Response = axum::response::Response,
    Error = std::convert::Infallible,
    Future = impl Send + 'static,
> + Clone
       + Send
       + Sync
       + 'static {
    let config = state.config.clone();
    // Install the recorder before the first request so no early sample is lost.
    let _ = crate::process::telemetry::metrics_handle();
    let (routes, openapi) = crate::api::router().split_for_parts();
    // The document of the mode the server runs in: bearer security only with keys.
    let openapi =
        crate::api::auth::for_access(crate::api::fix_formats(openapi), state.auth.requires_key());
    let timeout = config.request_timeout;
    let metrics = HttpMetricsLayer::new(
        openapi
            .paths
            .paths
            .keys()
            .map(String::as_str)
            .chain(crate::api::pages::ROUTES)
            .chain(DOCS_ROUTES),
    );
    let router = routes
        .with_state(state)
        .merge(SwaggerUi::new("/docs").url(DOCS_ROUTES[3], openapi))
        .merge(crate::api::pages::router())
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed);

    // Outermost first.
    ServiceBuilder::new()
        // Request id, metrics and the log line of a 500: outside the panic guard, so a
        // panicking handler's 500 is counted and logged too.
        .layer(metrics)
        // Failures are logged by the metrics layer (a 500, once); shed or timed-out requests
        // must not flood the log exactly when the server is overloaded.
        .layer(
            TraceLayer::new_for_http()
                .on_failure(DefaultOnFailure::new().level(tracing::Level::DEBUG))
                .make_span_with(request_span),
        )
        .map_response(security_headers)
        .layer(CatchPanicLayer::custom(|_| {
            ApiError::Internal("handler panicked".into()).into_response()
        }))
        .layer(ReadBodyLayer::new(BodyRules::from_config(&config)))
        // Overload protection: one concurrency limit for every route, a request beyond it
        // refused at once with a 503 problem (load shedding), the timeout's error also a 503
        // (see `overload`). The body size limit is the body layer's (above): handlers read
        // bodies from memory.
        .layer(OverloadLayer::new(config.max_concurrency, timeout))
        .timeout(timeout)
        .service(router)
        .map_response(IntoResponse::into_response)
}

/// The span of one request, at `debug` (tower-http's default level): at the service's default
/// `info` it is disabled and costs nothing, its field values are not even evaluated (formatting
/// them cost about an eighth of a request's instructions). A failed request's own log line
/// carries its route, method and request id (see [`crate::http::metrics`]).
fn request_span(req: &Request) -> tracing::Span {
    tracing::debug_span!(
        "request",
        method = %req.method(),
        uri = %req.uri(),
        request_id = %req
            .headers()
            .get(X_REQUEST_ID)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("-"),
    )
}

async fn not_found(uri: axum::http::Uri) -> ApiError {
    ApiError::NotFound {
        detail: format!("no route for {}", uri.path()),
    }
}

async fn method_not_allowed() -> ApiError {
    ApiError::MethodNotAllowed
}

/// Runs the whole service on `listener` until `shutdown` ends it: the state for `config`,
/// its store (connected now, or retried in the background while the service computes), the
/// job workers, the stack, and the accept loop with `config`'s connection limits.
///
/// `shutdown` is a [`Shutdown`] ([`Shutdown::signals`] in the binary) or any future: when it
/// resolves the drain begins (`/readyz` answers 503, `GRUNDY_SHUTDOWN_GRACE_MS` of serving
/// with `Connection: close`, then the listen backlog is drained and the listener closed, see
/// [`serve`]); once the connections have ended, running jobs checkpoint and are handed back
/// to the queue.
pub async fn run(
    config: Config,
    listener: TcpListener,
    shutdown: impl Into<Shutdown>,
) -> std::io::Result<()> {
    let state = AppState::new(config);
    if let Err(e) = state.connect_store().await {
        tracing::error!(error = %e, "store unavailable at start-up; retrying in the background");
    }
    run_with(state, listener, shutdown).await
}

/// [`run`] for a state the caller built and keeps (tests that reach the store's fault hooks).
pub async fn run_with(
    state: AppState,
    listener: TcpListener,
    shutdown: impl Into<Shutdown>,
) -> std::io::Result<()> {
    let access = state.auth.describe(&state.config);
    match state.auth.access() {
        crate::service::auth::Access::Open if state.config.addr.ip().is_loopback() => {
            tracing::info!("{access}")
        }
        crate::service::auth::Access::Keys(_) => tracing::info!("{access}"),
        _ => tracing::warn!("{access}"),
    }
    let cache_log = state.cache.log_stats_every(Duration::from_secs(60));
    let workers = Workers::start(&state);
    let limits = ServerLimits::from_config(&state.config);
    let draining = state.draining.clone();
    let served = serve(listener, stack(state), limits, draining, shutdown.into()).await;
    workers.stop().await;
    cache_log.abort();
    served
}
