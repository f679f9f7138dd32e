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
            metrics::describe_counter!(
                "grundy_store_errors_total",
                "Store errors by kind: full, unavailable, schema, busy, permission, io, other, replaced"
            );
            metrics::describe_gauge!(
                "grundy_store_fault",
                "1 while the store refuses writes (see /readyz), else 0"
            );
            handle
        })
        .clone()
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
