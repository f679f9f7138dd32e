//! The `grundy` binary: `grundy` serves; `grundy openapi` prints the OpenAPI document.

use grundy::config::Config;

#[tokio::main]
async fn main() -> std::process::ExitCode {
    if std::env::args().nth(1).as_deref() == Some("openapi") {
        print!("{}", grundy::api::openapi_json());
        return std::process::ExitCode::SUCCESS;
    }
    let config = match Config::from_env() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("grundy: {e}");
            return std::process::ExitCode::from(2);
        }
    };
    grundy::telemetry::init_logging(config.log_json);
    let _ = grundy::telemetry::metrics_handle();
    let listener = match tokio::net::TcpListener::bind(config.addr).await {
        Ok(l) => l,
        Err(e) => {
            tracing::error!(addr = %config.addr, error = %e, "cannot listen");
            return std::process::ExitCode::FAILURE;
        }
    };
    tracing::info!(addr = %listener.local_addr().map(|a| a.to_string()).unwrap_or_default(), ?config, "grundy listening");
    let state = grundy::state::AppState::new(config);
    if let Err(e) = state.connect_store().await {
        tracing::error!(error = %e, "store unavailable at start-up; retrying in the background");
    }
    let cache = state.cache.clone();
    // Cache counters in the logs once a minute (also exported at /metrics).
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(std::time::Duration::from_secs(60));
        tick.tick().await;
        loop {
            tick.tick().await;
            let s = cache.stats();
            tracing::info!(hits = s.hits, misses = s.misses, entries = s.entries, "cache");
        }
    });
    let app = grundy::app::build(state);
    if let Err(e) = grundy::app::serve(listener, app, grundy::app::shutdown_signal()).await {
        tracing::error!(error = %e, "server error");
        return std::process::ExitCode::FAILURE;
    }
    std::process::ExitCode::SUCCESS
}
