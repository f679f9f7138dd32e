//! The `grundy` binary: `grundy` serves; `grundy openapi` prints the OpenAPI document.

use grundy::config::Config;

/// mimalloc instead of the system allocator: a request allocates a few dozen small blocks
/// (headers, extensions, futures, the body), and glibc's `free` was about a tenth of the
/// instructions of a request on the hot path (BENCHMARKS.md, "HTTP"). See
/// [`grundy::allocator`] for why not the `mimalloc` crate's own `MiMalloc`.
#[global_allocator]
static GLOBAL: grundy::allocator::Allocator = grundy::allocator::Allocator;

#[tokio::main]
async fn main() -> std::process::ExitCode {
    match std::env::args().nth(1).as_deref() {
        Some("openapi") => {
            print!("{}", grundy::api::openapi_json());
            return std::process::ExitCode::SUCCESS;
        }
        Some("healthcheck") => return healthcheck(),
        Some(other) if other != "serve" => {
            eprintln!("usage: grundy [serve | openapi | healthcheck]\nunknown command {other:?}");
            return std::process::ExitCode::from(2);
        }
        _ => {}
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
            tracing::info!(
                hits = s.hits,
                misses = s.misses,
                entries = s.entries,
                "cache"
            );
        }
    });
    let workers = grundy::jobs::Workers::start(&state);
    let limits = grundy::server::ServerLimits::from_config(&state.config);
    let app = grundy::app::service(state);
    let served = grundy::server::serve(listener, app, limits, grundy::app::shutdown_signal()).await;
    // In-flight requests are finished; now checkpoint running jobs and hand them back.
    workers.stop().await;
    if let Err(e) = served {
        tracing::error!(error = %e, "server error");
        return std::process::ExitCode::FAILURE;
    }
    tracing::info!("stopped");
    std::process::ExitCode::SUCCESS
}

/// `grundy healthcheck`: GET /healthz on the configured address (for container HEALTHCHECKs,
/// so the runtime image needs no curl). Exit 0 when it answers 200.
fn healthcheck() -> std::process::ExitCode {
    use std::io::{Read, Write};
    let addr = std::env::var("GRUNDY_ADDR").unwrap_or_else(|_| "127.0.0.1:8080".into());
    // A wildcard listen address is reached through loopback.
    let addr = addr
        .replace("0.0.0.0", "127.0.0.1")
        .replace("[::]", "[::1]");
    let Ok(sock) = addr.parse::<std::net::SocketAddr>() else {
        eprintln!("healthcheck: bad GRUNDY_ADDR {addr:?}");
        return std::process::ExitCode::FAILURE;
    };
    let timeout = std::time::Duration::from_secs(3);
    let result = std::net::TcpStream::connect_timeout(&sock, timeout).and_then(|mut s| {
        s.set_read_timeout(Some(timeout))?;
        s.write_all(
            format!("GET /healthz HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n")
                .as_bytes(),
        )?;
        let mut buf = String::new();
        s.read_to_string(&mut buf)?;
        Ok(buf)
    });
    match result {
        Ok(resp) if resp.starts_with("HTTP/1.1 200") => std::process::ExitCode::SUCCESS,
        Ok(resp) => {
            eprintln!("healthcheck: {}", resp.lines().next().unwrap_or(""));
            std::process::ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("healthcheck: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
