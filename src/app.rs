//! Assembles the service: routes, documentation, and the middleware stack.
//!
//! Outermost first: request id → tracing → panic guard → metrics → overload protection
//! (load shedding, concurrency limit, timeout) → body limit → handlers.

use std::time::{Duration, Instant};

use axum::error_handling::HandleErrorLayer;
use axum::extract::{DefaultBodyLimit, MatchedPath, Request};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Router};
use tower::{BoxError, ServiceBuilder};
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};
use tower_http::trace::{DefaultOnFailure, TraceLayer};
use utoipa_swagger_ui::SwaggerUi;

use crate::api::error::ApiError;
use crate::api::json::BodyLimit;
use crate::state::AppState;

/// The complete application for `state`.
pub fn build(state: AppState) -> Router {
    let config = state.config.clone();
    // Install the recorder before the first request so no early sample is lost.
    let _ = crate::telemetry::metrics_handle();
    let (routes, openapi) = crate::api::router().split_for_parts();
    let openapi = crate::api::fix_formats(openapi);
    let timeout = config.request_timeout;

    let overload = ServiceBuilder::new()
        .layer(HandleErrorLayer::new(move |err: BoxError| async move {
            overload_error(err, timeout)
        }))
        .load_shed()
        .concurrency_limit(config.max_concurrency)
        .timeout(timeout);

    routes
        .with_state(state)
        .merge(SwaggerUi::new("/docs").url("/openapi.json", openapi))
        .merge(crate::api::pages::router())
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(DefaultBodyLimit::max(config.max_body_bytes))
        .layer(Extension(BodyLimit(config.max_body_bytes)))
        .layer(overload)
        .layer(middleware::from_fn(record_metrics))
        .layer(CatchPanicLayer::custom(|_| ApiError::Internal("handler panicked".into()).into_response()))
        .layer(PropagateRequestIdLayer::x_request_id())
        .layer(middleware::from_fn(crate::api::pages::security_headers))
        // 5xx are logged where they arise (ApiError::Internal at error); shed or timed-out
        // requests must not flood the log exactly when the server is overloaded.
        .layer(TraceLayer::new_for_http().on_failure(DefaultOnFailure::new().level(tracing::Level::DEBUG)).make_span_with(|req: &Request| {
            let id = req
                .headers()
                .get("x-request-id")
                .and_then(|v| v.to_str().ok())
                .unwrap_or("-");
            tracing::info_span!("request", method = %req.method(), uri = %req.uri(), request_id = %id)
        }))
        .layer(SetRequestIdLayer::x_request_id(MakeRequestUuid))
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

/// Requests by route and status, and latency per route.
async fn record_metrics(req: Request, next: Next) -> Response {
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map(|p| p.as_str().to_owned())
        .unwrap_or_else(|| "unmatched".to_owned());
    let method = req.method().to_string();
    let start = Instant::now();
    let resp = next.run(req).await;
    let status = resp.status().as_u16().to_string();
    metrics::counter!("grundy_http_requests_total", "route" => route.clone(), "method" => method, "status" => status)
        .increment(1);
    metrics::histogram!("grundy_http_request_duration_seconds", "route" => route)
        .record(start.elapsed().as_secs_f64());
    resp
}

/// Serves `app` on `listener` until `shutdown` resolves, finishing in-flight requests.
pub async fn serve(
    listener: tokio::net::TcpListener,
    app: Router,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    axum::serve(listener, app)
        .with_graceful_shutdown(shutdown)
        .await
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
