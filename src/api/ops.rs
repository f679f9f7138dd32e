//! Operations endpoints: liveness, readiness, Prometheus metrics.

use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::IntoResponse;
use axum::Json;
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::service::AppState;

/// A health or readiness report.
#[derive(Debug, Serialize, ToSchema)]
pub struct Health {
    /// `ok` / `ready`, or what is wrong.
    pub status: String,
}

/// Liveness: the process is up and serving.
#[utoipa::path(get, path = "/healthz", operation_id = "healthz", tag = "operations", responses((status = 200, body = Health)))]
async fn healthz() -> Json<Health> {
    Json(Health {
        status: "ok".into(),
    })
}

/// Readiness: the service can answer requests: it is not shutting down, and its store is
/// reachable, has its schema, and takes writes (503 otherwise: `shutting down` from the first
/// SIGTERM on, or the store fault — a full disk, a lost or wiped database).
#[utoipa::path(get, path = "/readyz", operation_id = "readyz", tag = "operations",
    responses((status = 200, body = Health), (status = 503, body = Health)))]
async fn readyz(State(app): State<AppState>) -> impl IntoResponse {
    if app.draining.is_on() {
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            Json(Health {
                status: "shutting down".into(),
            }),
        );
    }
    if app.config.database_url.is_none() {
        return (
            StatusCode::OK,
            Json(Health {
                status: "ready (no store configured)".into(),
            }),
        );
    }
    let Some(store) = app.store() else {
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            Json(Health {
                status: "store not connected".into(),
            }),
        );
    };
    if let Some(f) = store.fault() {
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            Json(Health {
                status: format!(
                    "store fault ({}): {} (since {} ms after the epoch, {} errors; retrying)",
                    f.kind.reason(),
                    f.detail,
                    f.since_ms,
                    f.errors
                ),
            }),
        );
    }
    match tokio::time::timeout(std::time::Duration::from_secs(2), store.ping()).await {
        Ok(Ok(())) => (
            StatusCode::OK,
            Json(Health {
                status: "ready".into(),
            }),
        ),
        Ok(Err(e)) => (
            StatusCode::SERVICE_UNAVAILABLE,
            Json(Health {
                status: format!("store fault ({}): {e}", e.kind().reason()),
            }),
        ),
        Err(_) => (
            StatusCode::SERVICE_UNAVAILABLE,
            Json(Health {
                status: "store did not answer within 2 s".into(),
            }),
        ),
    }
}

/// Prometheus metrics in the text exposition format.
#[utoipa::path(get, path = "/metrics", operation_id = "metrics", tag = "operations",
    responses((status = 200, description = "Prometheus text format", body = String, content_type = "text/plain")))]
async fn metrics(State(app): State<AppState>) -> impl IntoResponse {
    let stats = app.cache.stats();
    metrics::gauge!("grundy_cache_entries").set(stats.entries as f64);
    if let Some(store) = app.store() {
        if let Ok(Ok(counts)) =
            tokio::time::timeout(std::time::Duration::from_secs(1), store.job_counts()).await
        {
            for status in ["queued", "running", "done", "failed", "cancelled"] {
                let n = counts
                    .iter()
                    .find(|(s, _)| s == status)
                    .map_or(0, |(_, n)| *n);
                metrics::gauge!("grundy_jobs", "status" => status).set(n as f64);
            }
        }
        app.auth.record_active_jobs(&store).await;
    }
    let mut body = crate::process::telemetry::metrics_handle().render();
    // Without a store (or when it does not answer in time) there are no window jobs to count.
    let archive = match app.store() {
        Some(store) => {
            tokio::time::timeout(std::time::Duration::from_secs(1), store.archive_bytes()).await
        }
        None => Ok(Ok((0, Vec::new()))),
    };
    if let Ok(Ok((total, jobs))) = archive {
        append_archive_bytes(&mut body, total, &jobs);
    }
    ([(header::CONTENT_TYPE, "text/plain; version=0.0.4")], body)
}

/// The disk bytes window jobs hold, written fresh at each scrape (a gauge per queued or
/// running job, so that no series outlives its job; the total over every job).
fn append_archive_bytes(body: &mut String, total: u64, jobs: &[(String, u64)]) {
    use std::fmt::Write;
    let _ = writeln!(
        body,
        "# HELP grundy_jobs_disk_bytes Bytes the values of window jobs take on disk (all jobs)\n\
         # TYPE grundy_jobs_disk_bytes gauge\ngrundy_jobs_disk_bytes {total}"
    );
    // Described even without a job running: the series are there from the start.
    let _ = writeln!(
        body,
        "# HELP grundy_job_disk_bytes Bytes a queued or running window job's values take on disk\n\
         # TYPE grundy_job_disk_bytes gauge"
    );
    // Job ids are generated here (hex and dashes); anything else is left out rather than
    // escaped.
    let plain = |id: &str| id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
    for (id, bytes) in jobs.iter().filter(|(id, _)| plain(id)) {
        let _ = writeln!(body, "grundy_job_disk_bytes{{job=\"{id}\"}} {bytes}");
    }
}

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(healthz))
        .routes(routes!(readyz))
        .routes(routes!(metrics))
}
