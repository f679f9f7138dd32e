//! The `grundy` binary: `grundy` serves; `grundy openapi` prints the OpenAPI document;
//! `grundy healthcheck` asks a running server's `/healthz` (for container HEALTHCHECKs).

use std::process::ExitCode;

use grundy::config::Config;

/// mimalloc instead of the system allocator: a request allocates a few dozen small blocks
/// (headers, extensions, futures, the body), and glibc's `free` was about a tenth of the
/// instructions of a request on the hot path (BENCHMARKS.md, "HTTP"). See
/// [`grundy::allocator`] for why not the `mimalloc` crate's own `MiMalloc`.
#[global_allocator]
static GLOBAL: grundy::allocator::Allocator = grundy::allocator::Allocator;

#[tokio::main]
async fn main() -> ExitCode {
    match std::env::args().nth(1).as_deref() {
        Some("openapi") => {
            print!("{}", grundy::api::openapi_json());
            return ExitCode::SUCCESS;
        }
        Some("healthcheck") => return grundy::http::healthcheck::healthcheck(),
        Some(other) if other != "serve" => {
            eprintln!("usage: grundy [serve | openapi | healthcheck]\nunknown command {other:?}");
            return ExitCode::from(2);
        }
        _ => {}
    }
    let config = match Config::from_env() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("grundy: {e}");
            return ExitCode::from(2);
        }
    };
    grundy::telemetry::init_logging(config.log_json);
    let _ = grundy::telemetry::metrics_handle();
    let listener = match tokio::net::TcpListener::bind(config.addr).await {
        Ok(l) => l,
        Err(e) => {
            tracing::error!(addr = %config.addr, error = %e, "cannot listen");
            return ExitCode::FAILURE;
        }
    };
    tracing::info!(addr = %listener.local_addr().map(|a| a.to_string()).unwrap_or_default(), ?config, "grundy listening");
    match grundy::run(
        config,
        listener,
        grundy::http::shutdown::Shutdown::signals(),
    )
    .await
    {
        Ok(()) => {
            tracing::info!("stopped");
            ExitCode::SUCCESS
        }
        Err(e) => {
            tracing::error!(error = %e, "server error");
            ExitCode::FAILURE
        }
    }
}
