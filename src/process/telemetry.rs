//! Logging (tracing) and the Prometheus metrics recorder.

use metrics_exporter_prometheus::{PrometheusBuilder, PrometheusHandle};
use std::sync::OnceLock;
use tracing_subscriber::EnvFilter;

/// Installs the tracing subscriber: `RUST_LOG` filter (default `info`), text or JSON lines.
pub fn init_logging(json: bool) {
    let filter = EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| EnvFilter::new("info,tower_http=info"));
    // Colours only on a terminal: escape codes are noise in log files and collectors, and
    // styling every span field costs instructions on every request (measured with callgrind).
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stdout());
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(ansi);
    let _ = if json {
        builder.json().try_init()
    } else {
        builder.try_init()
    };
}

/// The process-wide Prometheus recorder. A process has one global recorder, so every server
/// started in it (tests start several) shares this handle.
pub fn metrics_handle() -> PrometheusHandle {
    static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();
    HANDLE
        .get_or_init(|| {
            let recorder = PrometheusBuilder::new()
                .set_buckets(&[
                    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
                    0.5, 1.0, 2.5, 5.0, 10.0,
                ])
                .expect("static buckets are valid")
                .build_recorder();
            let handle = recorder.handle();
            // Another recorder may already be installed (e.g. by an embedding program).
            if metrics::set_global_recorder(recorder).is_ok() {
                spawn_upkeep(handle.clone());
            }
            register_metrics();
            handle
        })
        .clone()
}

/// The counters' label values known at start-up (a label whose values are key names is set
/// by [`crate::service::auth::Auth`], which knows them).
pub const STORE_ERROR_KINDS: [&str; 8] = [
    "full",
    "unavailable",
    "schema",
    "busy",
    "permission",
    "io",
    "other",
    "replaced",
];
/// The final statuses of a job: the label of `grundy_jobs_finished_total`.
pub const FINISHED_STATUSES: [&str; 3] = ["done", "failed", "cancelled"];
/// Every status of a job: the label of the `grundy_jobs` gauge.
pub const JOB_STATUSES: [&str; 5] = ["queued", "running", "done", "failed", "cancelled"];

/// Every metric of the service, described (its `# HELP` line) and present from the start: a
/// counter at 0 and a gauge at 0 for each label value known now, so that a scrape of a server
/// just started lists them all and an alert on a series never waits for its first event.
/// Metrics labelled by key name (`owner`) are set by [`crate::service::auth::Auth`] for the
/// key names of its key file; the per-route HTTP metrics by [`crate::http::metrics`] for
/// each route; `grundy_jobs_disk_bytes` and `grundy_job_disk_bytes` are written at each
/// scrape (`/metrics`).
fn register_metrics() {
    use metrics::{counter, describe_counter, describe_gauge, describe_histogram, gauge};
    describe_counter!(
        "grundy_http_requests_total",
        "HTTP requests answered, by route template, method and status"
    );
    describe_histogram!(
        "grundy_http_request_duration_seconds",
        "Time to answer an HTTP request, by route template"
    );
    describe_gauge!("grundy_open_connections", "Connections open now");
    gauge!("grundy_open_connections").set(0.0);
    describe_counter!(
        "grundy_connections_refused_total",
        "Connections closed at accept because a cap was reached: total (GRUNDY_MAX_CONNECTIONS) or per_client (GRUNDY_MAX_CONNECTIONS_PER_CLIENT)"
    );
    for reason in ["total", "per_client"] {
        counter!("grundy_connections_refused_total", "reason" => reason).increment(0);
    }
    describe_counter!(
        "grundy_slow_bodies_total",
        "Requests refused because their body came too slowly"
    );
    counter!("grundy_slow_bodies_total").increment(0);
    describe_counter!(
        "grundy_lingering_closes_total",
        "Connections closed after draining what the client still sent"
    );
    counter!("grundy_lingering_closes_total").increment(0);
    describe_counter!("grundy_cache_hits_total", "Response cache hits");
    counter!("grundy_cache_hits_total").increment(0);
    describe_counter!("grundy_cache_misses_total", "Response cache misses");
    counter!("grundy_cache_misses_total").increment(0);
    describe_gauge!(
        "grundy_cache_entries",
        "Answers in the response cache (at the last scrape)"
    );
    gauge!("grundy_cache_entries").set(0.0);
    describe_counter!(
        "grundy_compute_skipped_total",
        "Computations skipped because their client had gone before a compute slot was free"
    );
    counter!("grundy_compute_skipped_total").increment(0);
    describe_counter!(
        "grundy_store_errors_total",
        "Store errors by kind: full, unavailable, schema, busy, permission, io, other, replaced"
    );
    for kind in STORE_ERROR_KINDS {
        counter!("grundy_store_errors_total", "kind" => kind).increment(0);
    }
    describe_gauge!(
        "grundy_store_fault",
        "1 while the store refuses writes (see /readyz), else 0"
    );
    gauge!("grundy_store_fault").set(0.0);
    describe_gauge!(
        "grundy_jobs",
        "Jobs in the store by status (at the last scrape; every owner's)"
    );
    for status in JOB_STATUSES {
        gauge!("grundy_jobs", "status" => status).set(0.0);
    }
    describe_counter!(
        "grundy_jobs_finished_total",
        "Jobs ended, by final status: each job once, whoever ended it (its worker, a cancel, a census's cancel)"
    );
    for status in FINISHED_STATUSES {
        counter!("grundy_jobs_finished_total", "status" => status).increment(0);
    }
    describe_counter!(
        "grundy_heaps_computed_total",
        "Heaps computed by octal-sequence jobs"
    );
    counter!("grundy_heaps_computed_total").increment(0);
    describe_counter!(
        "grundy_jobs_submitted_total",
        "Jobs admitted, by owner (the key name; - without keys)"
    );
    describe_counter!(
        "grundy_job_heaps_requested_total",
        "Heaps requested by the jobs admitted, by owner"
    );
    describe_counter!(
        "grundy_quota_refusals_total",
        "Submissions refused by a quota, by owner and quota (active_jobs, heaps_per_day)"
    );
    describe_counter!(
        "grundy_auth_refusals_total",
        "Requests refused by authentication or authorization, by reason and owner"
    );
    describe_gauge!(
        "grundy_jobs_active",
        "Queued and running jobs of each key (at the last scrape)"
    );
}

/// Keeps the recorder's memory bounded: histogram samples are kept in lock-free buckets until
/// they are folded into the histograms, which happens on a scrape or on this upkeep. Without
/// it a server nobody scrapes would grow by 8 bytes per request.
fn spawn_upkeep(handle: PrometheusHandle) {
    let _ = std::thread::Builder::new()
        .name("metrics-upkeep".into())
        .spawn(move || loop {
            std::thread::sleep(std::time::Duration::from_secs(5));
            handle.run_upkeep();
        });
}
