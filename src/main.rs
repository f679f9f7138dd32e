//! The `grundy` binary (clap): `grundy` or `grundy serve` serves; `grundy openapi` prints the
//! OpenAPI document; `grundy healthcheck` asks a running server's `/healthz` (for container
//! HEALTHCHECKs); `grundy keys new --name NAME --scope SCOPE` prints a fresh API key and its
//! key-file line; `grundy octal CODE --to N` computes a game's values in-process, on the
//! embedded store, with the job machinery of `POST /v1/octal/jobs` (`grundy::app::octal`).
//! `--help` (`-h`, `help`) and `--version` everywhere; a bad argument exits 2.

use std::process::ExitCode;
use std::sync::LazyLock;

use clap::{CommandFactory, Parser, Subcommand};
use grundy::config::keys::{self, Scope};
use grundy::config::Config;

/// mimalloc instead of the system allocator: a request allocates a few dozen small blocks
/// (headers, extensions, futures, the body), and glibc's `free` was about a tenth of the
/// instructions of a request on the hot path (BENCHMARKS.md, "HTTP"). See
/// [`grundy::process::allocator`] for why not the `mimalloc` crate's own `MiMalloc`.
#[global_allocator]
static GLOBAL: grundy::process::allocator::Allocator = grundy::process::allocator::Allocator;

/// The version line: the crate's version and the git commit the binary was built from (found
/// by the package's build script: `grundy::process::build::COMMIT`).
static VERSION: LazyLock<String> = LazyLock::new(|| {
    format!(
        "{} (commit {})",
        env!("CARGO_PKG_VERSION"),
        grundy::process::build::COMMIT
    )
});

/// Exact combinatorial-game answers over HTTP/JSON, and octal-game research runs on the
/// command line. Without a command it serves (configured by GRUNDY_* environment variables:
/// see README.md).
#[derive(Debug, Parser)]
#[command(name = "grundy", version = VERSION.as_str(), propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve the HTTP API (the default): address, store and limits from GRUNDY_* variables.
    Serve,
    /// Print the OpenAPI document (what openapi/openapi.json holds).
    Openapi,
    /// Ask a running server's /healthz (GRUNDY_ADDR); exit 0 when it answers 200.
    Healthcheck,
    /// API keys for GRUNDY_API_KEYS_FILE.
    Keys {
        #[command(subcommand)]
        command: KeysCommand,
    },
    /// Compute an octal game's values to N in this process: resumable, with progress.
    Octal(grundy::app::octal::OctalArgs),
    /// A census of octal games to N in this process (no codes: the unsolved table), its table
    /// printed: resumable, shared through a PostgreSQL store.
    Census(grundy::app::census::CensusArgs),
    /// One value of an octal game: computed, read from its `grundy octal` store, or from a
    /// proved period.
    Value(grundy::app::ask::ValueArgs),
    /// The misère quotient Q_N of an octal game (as POST /v1/octal/misere/quotient answers).
    Misere(grundy::app::ask::MisereArgs),
    /// List the runs `grundy octal` kept, show one again without computing, or delete one.
    Runs(grundy::app::runs::RunsArgs),
    /// Print the completion script of a shell, e.g. `grundy completions bash >
    /// ~/.local/share/bash-completion/completions/grundy`.
    Completions {
        /// bash, zsh, fish, elvish or powershell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff), e.g. `grundy man > grundy.1 && man ./grundy.1`.
    Man,
}

#[derive(Debug, Subcommand)]
enum KeysCommand {
    /// Print a fresh key (shown this once: the server keeps only its hash), then the line for
    /// GRUNDY_API_KEYS_FILE.
    New {
        /// The key's name: 1 to 64 of A-Z a-z 0-9 . _ -, starting with a letter or digit.
        #[arg(long, value_parser = key_name)]
        name: String,
        /// Scopes, comma-separated or repeated: jobs, jobs:read, admin.
        #[arg(long = "scope", value_name = "SCOPE", required = true, value_parser = key_scopes)]
        scopes: Vec<Scopes>,
    },
}

fn key_name(name: &str) -> Result<String, String> {
    if keys::valid_name(name) {
        Ok(name.to_owned())
    } else {
        Err("1 to 64 of A-Z a-z 0-9 . _ -, starting with a letter or digit".into())
    }
}

/// The scopes of one `--scope`.
#[derive(Debug, Clone)]
struct Scopes(Vec<Scope>);

fn key_scopes(text: &str) -> Result<Scopes, String> {
    keys::parse_scopes(text).map(Scopes)
}

/// `grundy keys new`: a fresh key on the first line, the line for `GRUNDY_API_KEYS_FILE` on
/// the second.
fn keys_new(name: &str, scopes: Vec<Scopes>) -> ExitCode {
    let mut all: Vec<Scope> = Vec::new();
    for s in scopes.into_iter().flat_map(|s| s.0) {
        if !all.contains(&s) {
            all.push(s);
        }
    }
    match keys::new_key() {
        Ok(key) => {
            println!("{key}");
            println!("{}", keys::key_file_line(name, &all, &key));
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("grundy: no randomness from the operating system: {e}");
            ExitCode::FAILURE
        }
    }
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // Help and version exit 0, printed whole; a bad argument 2 (clap's own codes),
            // said in one line: clap's first paragraph, without its usage and tips.
            let code = ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2));
            // (A command given without its subcommand prints its help: whole.)
            let help = e.kind() == clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand;
            if e.use_stderr() && !help {
                let text = e.render().to_string();
                let first = text.split("\n\n").next().unwrap_or_default();
                let line = first.split_whitespace().collect::<Vec<_>>().join(" ");
                eprintln!("{line} (see --help)");
            } else {
                let _ = e.print();
            }
            return code;
        }
    };
    match cli.command {
        Some(Command::Openapi) => {
            print!("{}", grundy::api::openapi_json());
            ExitCode::SUCCESS
        }
        Some(Command::Healthcheck) => grundy::http::healthcheck::healthcheck(),
        Some(Command::Keys {
            command: KeysCommand::New { name, scopes },
        }) => keys_new(&name, scopes),
        Some(Command::Octal(args)) => runtime().block_on(grundy::app::octal::octal(args)),
        Some(Command::Census(args)) => runtime().block_on(grundy::app::census::census(args)),
        Some(Command::Value(args)) => runtime().block_on(grundy::app::ask::value(args)),
        Some(Command::Misere(args)) => runtime().block_on(grundy::app::ask::misere(args)),
        Some(Command::Runs(args)) => runtime().block_on(grundy::app::runs::runs(args)),
        Some(Command::Completions { shell }) => {
            clap_complete::generate(shell, &mut Cli::command(), "grundy", &mut std::io::stdout());
            ExitCode::SUCCESS
        }
        Some(Command::Man) => {
            match clap_mangen::Man::new(Cli::command()).render(&mut std::io::stdout()) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("grundy man: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        Some(Command::Serve) | None => runtime().block_on(serve()),
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("the tokio runtime starts")
}

async fn serve() -> ExitCode {
    let config = match Config::from_env() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("grundy: {e}");
            return ExitCode::from(2);
        }
    };
    grundy::process::telemetry::init_logging(config.log_json);
    let _ = grundy::process::telemetry::metrics_handle();
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
