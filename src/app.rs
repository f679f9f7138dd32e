//! Assembles the service: routes, documentation, and the middleware stack.
//!
//! Outermost first: request id → tracing → security headers → metrics (and the log line of a
//! failed request) → panic guard → body read (deadline,
//! minimum rate, size limit: before any compute slot is taken, see [`crate::body_read`]) →
//! overload protection (load shedding, concurrency limit, timeout) → handlers.
//!
//! Every layer is on the path of every request, so each is written to cost little: metric
//! handles are resolved once per route ([`crate::http_metrics`]), span fields are only
//! formatted when the span is enabled, and requests that are refused cheaply (a body too large,
//! too slow, no route) never reach the concurrency limit.

use std::time::Duration;

use axum::error_handling::HandleErrorLayer;
use axum::extract::{DefaultBodyLimit, Request};
use axum::http::HeaderValue;
use axum::response::{IntoResponse, Response};
use axum::{Extension, Router};
use tower::limit::GlobalConcurrencyLimitLayer;
use tower::{BoxError, ServiceBuilder};
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::request_id::{
    MakeRequestId, PropagateRequestIdLayer, RequestId, SetRequestIdLayer,
};
use tower_http::trace::{DefaultOnFailure, TraceLayer};
use utoipa_swagger_ui::SwaggerUi;

use crate::api::error::ApiError;
use crate::api::json::BodyLimit;
use crate::body_read::{BodyRules, ReadBodyLayer};
use crate::http_metrics::HttpMetricsLayer;
use crate::state::AppState;

/// The complete application for `state`.
pub fn build(state: AppState) -> Router {
    let config = state.config.clone();
    // Install the recorder before the first request so no early sample is lost.
    let _ = crate::telemetry::metrics_handle();
    let (routes, openapi) = crate::api::router().split_for_parts();
    let openapi = crate::api::fix_formats(openapi);
    let timeout = config.request_timeout;
    let metrics = HttpMetricsLayer::new(openapi.paths.paths.keys().map(String::as_str));

    // Outermost first. One `Router::layer` call with the whole stack: axum applies a layer to
    // each route by boxing the layered route, and clones a route's service for every request,
    // so each separate `.layer(…)` added a boxed clone and a drop per request (measured with
    // callgrind: the nested clones cost about a fifth of grundy's instructions per request).
    // `GlobalConcurrencyLimitLayer`: one limit shared by every route (a plain
    // `ConcurrencyLimitLayer`, instantiated per route, gave each route its own semaphore).
    let stack = ServiceBuilder::new()
        .layer(SetRequestIdLayer::x_request_id(FastRequestId))
        // 5xx are logged where they arise (ApiError::Internal at error); shed or timed-out
        // requests must not flood the log exactly when the server is overloaded.
        .layer(
            TraceLayer::new_for_http()
                .on_failure(DefaultOnFailure::new().level(tracing::Level::DEBUG))
                .make_span_with(request_span),
        )
        .layer(PropagateRequestIdLayer::x_request_id())
        .map_response(crate::api::pages::security_headers)
        // Outside the panic guard, so a panicking handler's 500 is counted and logged too.
        .layer(metrics)
        .layer(CatchPanicLayer::custom(|_| {
            ApiError::Internal("handler panicked".into()).into_response()
        }))
        .layer(ReadBodyLayer::new(BodyRules::from_config(&config)))
        .layer(HandleErrorLayer::new(move |err: BoxError| async move {
            overload_error(err, timeout)
        }))
        .load_shed()
        .layer(GlobalConcurrencyLimitLayer::new(config.max_concurrency))
        .timeout(timeout)
        .layer(Extension(BodyLimit(config.max_body_bytes)))
        .layer(DefaultBodyLimit::max(config.max_body_bytes));

    routes
        .with_state(state)
        .merge(SwaggerUi::new("/docs").url("/openapi.json", openapi))
        .merge(crate::api::pages::router())
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(stack)
}

/// The span of one request, at `debug` (tower-http's default level): at the service's default
/// `info` it is disabled and costs nothing, its field values are not even evaluated (formatting
/// them cost about an eighth of a request's instructions). A failed request's own log line
/// carries its route, method and request id (see [`crate::http_metrics`]).
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

const X_REQUEST_ID: axum::http::HeaderName = axum::http::HeaderName::from_static("x-request-id");

/// Random (v4) UUIDs as request ids, formatted without an intermediate `String`.
#[derive(Clone, Copy)]
struct FastRequestId;

impl MakeRequestId for FastRequestId {
    fn make_request_id<B>(&mut self, _: &axum::http::Request<B>) -> Option<RequestId> {
        let mut buf = [0u8; uuid::fmt::Hyphenated::LENGTH];
        let id = uuid::Uuid::new_v4().hyphenated().encode_lower(&mut buf);
        HeaderValue::from_str(id).ok().map(RequestId::new)
    }
}

fn overload_error(err: BoxError, timeout: Duration) -> Response {
    if err.is::<tower::timeout::error::Elapsed>() {
        ApiError::Unavailable {
            detail: format!(
                "the request took longer than {} ms (GRUNDY_REQUEST_TIMEOUT_MS)",
                timeout.as_millis()
            ),
            retry_after_secs: 1,
        }
    } else if err.is::<tower::load_shed::error::Overloaded>() {
        ApiError::Unavailable {
            detail: "the server is at capacity (GRUNDY_MAX_CONCURRENCY); retry shortly".into(),
            retry_after_secs: 1,
        }
    } else {
        ApiError::Internal(format!("middleware error: {err}"))
    }
    .into_response()
}

async fn not_found(uri: axum::http::Uri) -> ApiError {
    ApiError::NotFound {
        detail: format!("no route for {}", uri.path()),
    }
}

async fn method_not_allowed() -> ApiError {
    ApiError::MethodNotAllowed
}

/// Serves `app` on `listener` with the default connection limits until `shutdown` resolves,
/// finishing in-flight requests (see [`crate::server::serve`] for configured limits).
pub async fn serve(
    listener: tokio::net::TcpListener,
    app: Router,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let limits = crate::server::ServerLimits::from_config(&crate::config::Config::default());
    crate::server::serve(listener, app, limits, shutdown).await
}

/// Resolves on Ctrl-C or SIGTERM.
pub async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! { _ = ctrl_c => {}, _ = terminate => {} }
    tracing::info!("shutdown signal received; finishing in-flight requests");
}
