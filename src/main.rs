//! The `grundy` binary: `grundy` serves; `grundy openapi` prints the OpenAPI document;
//! `grundy healthcheck` asks a running server's `/healthz` (for container HEALTHCHECKs);
//! `grundy keys new --name NAME --scope SCOPE` prints a fresh API key and its key-file line.

use std::process::ExitCode;

use grundy::config::Config;

/// mimalloc instead of the system allocator: a request allocates a few dozen small blocks
/// (headers, extensions, futures, the body), and glibc's `free` was about a tenth of the
/// instructions of a request on the hot path (BENCHMARKS.md, "HTTP"). See
/// [`grundy::allocator`] for why not the `mimalloc` crate's own `MiMalloc`.
#[global_allocator]
static GLOBAL: grundy::allocator::Allocator = grundy::allocator::Allocator;

const USAGE: &str =
    "grundy [serve | openapi | healthcheck | keys new --name NAME --scope SCOPE[,SCOPE]]";

/// `grundy keys new --name NAME --scope SCOPE [--scope SCOPE]`: a fresh key on the first line
/// (shown this once: the server keeps only its hash), the line for `GRUNDY_API_KEYS_FILE` on
/// the second. Scopes: `jobs`, `jobs:read`, `admin`.
fn keys(args: Vec<String>) -> ExitCode {
    use grundy::config::keys;
    let usage = |why: &str| {
        eprintln!(
            "usage: grundy keys new --name NAME --scope SCOPE[,SCOPE] (scopes: jobs, jobs:read, admin)\n{why}"
        );
        ExitCode::from(2)
    };
    let mut args = args.into_iter();
    if args.next().as_deref() != Some("new") {
        return usage("expected `keys new`");
    }
    let (mut name, mut scopes) = (None, Vec::new());
    while let Some(flag) = args.next() {
        let (flag, inline) = match flag.split_once('=') {
            Some((f, v)) => (f.to_owned(), Some(v.to_owned())),
            None => (flag, None),
        };
        let Some(value) = inline.or_else(|| args.next()) else {
            return usage(&format!("{flag} needs a value"));
        };
        match flag.as_str() {
            "--name" if keys::valid_name(&value) => name = Some(value),
            "--name" => {
                return usage(&format!(
                    "name {value:?}: 1 to 64 of A-Z a-z 0-9 . _ -, starting with a letter or digit"
                ))
            }
            "--scope" => match keys::parse_scopes(&value) {
                Ok(more) => {
                    for s in more {
                        if !scopes.contains(&s) {
                            scopes.push(s);
                        }
                    }
                }
                Err(e) => return usage(&e),
            },
            other => return usage(&format!("unknown option {other:?}")),
        }
    }
    let Some(name) = name else {
        return usage("--name is required");
    };
    if scopes.is_empty() {
        return usage("--scope is required");
    }
    match keys::new_key() {
        Ok(key) => {
            println!("{key}");
            println!("{}", keys::key_file_line(&name, &scopes, &key));
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("grundy: no randomness from the operating system: {e}");
            ExitCode::FAILURE
        }
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    match std::env::args().nth(1).as_deref() {
        Some("openapi") => {
            print!("{}", grundy::api::openapi_json());
            return ExitCode::SUCCESS;
        }
        Some("healthcheck") => return grundy::http::healthcheck::healthcheck(),
        Some("keys") => return keys(std::env::args().skip(2).collect()),
        Some(other) if other != "serve" => {
            eprintln!("usage: {USAGE}\nunknown command {other:?}");
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
