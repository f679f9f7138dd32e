//! `grundy value CODE HEAP` and `grundy misere CODE --heap N`: one answer of the API in this
//! process, without a server — the same service calls as `GET /v1/octal/{code}/value/{heap}`
//! and `POST /v1/octal/misere/quotient`, answered with the same documents (`--json`), on the
//! game's `grundy octal` store when there is one (a value it computed, or its proof, answers
//! at once), else in memory. Refusals are worded here, from the service's typed errors.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use super::cli::{default_store, exit, Code, Fail};
use super::documents::{heap_value_of, QuotientResponse};
use super::store_at::{config_for, StoreAt};
use crate::core::misere::MisereError;
use crate::core::octal::{Game, OctalError};
use crate::service::misere::{MisereServiceError, MAX_BOUND};
use crate::service::octal::{Need, OctalServiceError};
use crate::service::AppState;
use crate::store::{inspect_sqlite_file, Store, StoreFile};

/// `grundy value`'s arguments.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Examples:
  grundy value 0.07 10^12        # from the proved period, at once
  grundy value 0.6 999999        # computed (Officers, heaps 0 … 999999), or read from octal-0.6.db")]
pub struct ValueArgs {
    /// The game code, e.g. 0.167, .6, 4.07.
    #[arg(value_name = "CODE", value_parser = super::cli::game_code)]
    pub code: Code,
    /// The heap: digits, 2^k or 10^k.
    #[arg(value_name = "HEAP", value_parser = heap, allow_hyphen_values = true)]
    pub heap: u64,
    /// The store to read (default: octal-CODE.db here, when there is one).
    #[arg(long, value_name = "PATH")]
    pub store: Option<PathBuf>,
    /// The answer as JSON, as GET /v1/octal/{code}/value/{heap} gives it.
    #[arg(long)]
    pub json: bool,
}

/// `grundy misere`'s arguments.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Examples:
  grundy misere 0.07 --heap 30           # Q_30 of 0.07: |Q| 360
  grundy misere 0.123 --heap 20 --json   # the quotient as POST /v1/octal/misere/quotient answers")]
pub struct MisereArgs {
    /// The game code, e.g. 0.07, 0.123.
    #[arg(value_name = "CODE", value_parser = super::cli::game_code)]
    pub code: Code,
    /// The largest heap of the positions the quotient covers (Q_N).
    #[arg(long, value_name = "N")]
    pub heap: u64,
    /// The quotient as JSON, as POST /v1/octal/misere/quotient answers it.
    #[arg(long)]
    pub json: bool,
}

fn heap(text: &str) -> Result<u64, String> {
    super::cli::count(text, u64::MAX, "the largest heap").or_else(|e| {
        // Heap 0 is a heap.
        (text.trim() == "0").then_some(0).ok_or(e)
    })
}

/// `grundy value …`: 0 answered, 1 failed, 2 bad input or out of reach.
pub async fn value(args: ValueArgs) -> ExitCode {
    exit("grundy value", value_of(args).await)
}

/// `grundy misere …`: 0 answered, 1 failed, 2 bad input or out of reach.
pub async fn misere(args: MisereArgs) -> ExitCode {
    exit("grundy misere", quotient(args).await)
}

/// The application on the game's store (if it exists and is one), else without a store; no
/// time limit but the computation's own budgets.
async fn application(
    store: Option<PathBuf>,
    canonical: &str,
) -> Result<(AppState, Option<Store>), Fail> {
    let path = store.clone().unwrap_or_else(|| default_store(canonical));
    let at = StoreAt::File(path.clone());
    let found = match inspect_sqlite_file(&path).await {
        Ok(StoreFile::Grundy { .. }) => true,
        Ok(_) if store.is_none() => false,
        Ok(_) => {
            return Err(Fail::Input(format!(
                "--store {}: no such store",
                path.display()
            )))
        }
        Err(_) if store.is_none() => false,
        Err(e) => return Err(Fail::Input(format!("--store {}: {e}", path.display()))),
    };
    let mut config = config_for(&at, None)?;
    config.octal_sync_time = Duration::from_secs(24 * 3600);
    config.job_workers = 0;
    if !found {
        config.database_url = None;
        return Ok((AppState::new(config), None));
    }
    let store = Store::connect(config.database_url.as_deref().unwrap_or_default())
        .await
        .map_err(|e| Fail::Input(format!("--store {}: {e}", path.display())))?;
    let state = AppState::new(config);
    state.set_store(store.clone());
    Ok((state, Some(store)))
}

async fn value_of(args: ValueArgs) -> Result<ExitCode, Fail> {
    let game = Game::parse(&args.code.canonical).map_err(|e| Fail::Input(e.to_string()))?;
    let (app, store) = application(args.store.clone(), &args.code.canonical).await?;
    let heap = args.heap;
    // As the API computes it: up to the synchronous limit (GRUNDY_OCTAL_MAX_N), stopping at
    // a proof; a heap beyond needs the proof, or `grundy octal` to compute further.
    let max = app.config.octal_max_n;
    let need = Need {
        n: usize::try_from(heap).map_or(max, |h| h.saturating_add(1).min(max)),
        until_proved: true,
    };
    let answered = app
        .octal
        .with_solver(&game, need, move |solver| {
            (solver.values().len(), heap_value_of(solver, heap))
        })
        .await;
    if let Some(store) = store {
        store.close().await;
    }
    let canonical = &args.code.canonical;
    let doc = match answered {
        Ok((_, Ok(doc))) => doc,
        Ok((computed, Err(OctalError::HeapBeyondRange { .. }))) => {
            return Err(Fail::Input(format!(
                "HEAP: g({heap}) is unknown: periodicity of {canonical} is not proved within the first {computed} values; grundy octal {canonical} --to N computes further"
            )))
        }
        Ok((_, Err(e))) => return Err(Fail::Input(format!("HEAP: {e}"))),
        Err(OctalServiceError::Game(e)) => return Err(Fail::Input(e.to_string())),
        Err(e) => return Err(Fail::Other(e.to_string())),
    };
    if args.json {
        println!("{}", serde_json::to_string(&doc).unwrap_or_default());
    } else {
        let source = match (doc.source.as_str(), &doc.periodicity) {
            ("periodicity", p) => format!(
                "from the proved period {} (preperiod {}, saltus {})",
                num(p.period),
                num(p.preperiod),
                num(p.saltus)
            ),
            (other, _) => other.replace('_', " "),
        };
        println!("{canonical}: g({heap}) = {} ({source})", doc.value);
    }
    Ok(ExitCode::SUCCESS)
}

fn num(x: Option<u64>) -> String {
    x.map_or("–".to_owned(), |x| x.to_string())
}

async fn quotient(args: MisereArgs) -> Result<ExitCode, Fail> {
    if args.heap > MAX_BOUND {
        return Err(Fail::Input(format!(
            "--heap: {} is above {MAX_BOUND}",
            args.heap
        )));
    }
    let game = Game::parse(&args.code.canonical).map_err(|e| Fail::Input(e.to_string()))?;
    let (app, _) = application(None, &args.code.canonical).await?;
    let q = app
        .misere
        .quotient(&game, args.heap)
        .await
        .map_err(|p| match p.error {
            MisereServiceError::Internal(e) => Fail::Other(e),
            MisereServiceError::Engine {
                error: MisereError::Internal { what },
                ..
            } => Fail::Other(format!("misère quotient: {what}")),
            e => Fail::Input(format!("--heap: {e}")),
        })?;
    let doc = QuotientResponse::of(&q, 0, 0);
    if args.json {
        println!("{}", serde_json::to_string(&doc).unwrap_or_default());
    } else {
        println!(
            "{}: Q_{} has {} elements, {} of them P-positions ({}); Φ(0 … {}) = {}",
            args.code.canonical,
            args.heap,
            doc.q_size,
            doc.p_size,
            if doc.tame { "tame" } else { "wild" },
            args.heap,
            serde_json::to_string(&doc.phi).unwrap_or_default()
        );
    }
    Ok(ExitCode::SUCCESS)
}
