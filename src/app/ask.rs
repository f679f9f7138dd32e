//! `grundy value CODE HEAP` and `grundy misere CODE --heap N`: one answer of the API in this
//! process, without a server — the same handlers, through the same router, on the game's
//! `grundy octal` store when there is one (a value it computed, or its proof, answers at once),
//! else in memory.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use axum::http::{Method, StatusCode};
use serde_json::{json, Value};

use super::cli::{call, config_for, default_store, exit, refusal, Code, Fail};
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

/// A router on the game's store (if it exists and is one), else without a store; no time
/// limit but the computation's own budgets.
async fn router(
    store: Option<PathBuf>,
    canonical: &str,
) -> Result<(axum::Router, Option<Store>), Fail> {
    let path = store.clone().unwrap_or_else(|| default_store(canonical));
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
    let mut config = config_for(&path, None)?;
    config.octal_sync_time = Duration::from_secs(24 * 3600);
    config.job_workers = 0;
    let state = if found {
        let store = Store::connect(config.database_url.as_deref().unwrap_or_default())
            .await
            .map_err(|e| Fail::Input(format!("--store {}: {e}", path.display())))?;
        let state = AppState::new(config);
        state.set_store(store.clone());
        (state, Some(store))
    } else {
        config.database_url = None;
        (AppState::new(config), None)
    };
    Ok((super::build(state.0), state.1))
}

/// One request on [`router`]'s application, the store closed after it: the answer's JSON, or
/// the refusal worded for the command line.
async fn ask(
    store: Option<PathBuf>,
    canonical: &str,
    method: Method,
    path: &str,
    body: Option<Value>,
) -> Result<Value, Fail> {
    let (router, store) = router(store, canonical).await?;
    let answered = call(&router, method, path, body, None).await;
    if let Some(store) = store {
        store.close().await;
    }
    let (status, bytes) = answered?;
    let doc: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    if status != StatusCode::OK {
        return Err(refusal(status, &doc));
    }
    Ok(doc)
}

async fn value_of(args: ValueArgs) -> Result<ExitCode, Fail> {
    let path = format!(
        "/v1/octal/{}/value/{}",
        super::cli::percent(&args.code.canonical),
        args.heap
    );
    let doc = ask(
        args.store.clone(),
        &args.code.canonical,
        Method::GET,
        &path,
        None,
    )
    .await?;
    if args.json {
        println!("{doc}");
    } else {
        let source = match doc["source"].as_str() {
            Some("periodicity") => format!(
                "from the proved period {} (preperiod {}, saltus {})",
                doc["periodicity"]["period"],
                doc["periodicity"]["preperiod"],
                doc["periodicity"]["saltus"]
            ),
            Some(other) => other.replace('_', " "),
            None => "computed".to_owned(),
        };
        println!(
            "{}: g({}) = {} ({source})",
            args.code.canonical, args.heap, doc["value"]
        );
    }
    Ok(ExitCode::SUCCESS)
}

async fn quotient(args: MisereArgs) -> Result<ExitCode, Fail> {
    let body = json!({"code": args.code.text, "max_heap": args.heap});
    let path = "/v1/octal/misere/quotient";
    let doc = ask(None, &args.code.canonical, Method::POST, path, Some(body)).await?;
    if args.json {
        println!("{doc}");
    } else {
        let tame = match doc["tame"].as_bool() {
            Some(true) => "tame",
            _ => "wild",
        };
        println!(
            "{}: Q_{} has {} elements, {} of them P-positions ({tame}); Φ(0 … {}) = {}",
            args.code.canonical, args.heap, doc["q_size"], doc["p_size"], args.heap, doc["phi"]
        );
        if let Some(p) = doc["presentation"].as_str() {
            println!("presentation: {p}");
        }
    }
    Ok(ExitCode::SUCCESS)
}
