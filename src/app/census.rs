//! `grundy census [CODE…] --to N`: a census on the command line — the census job machinery of
//! `POST /v1/octal/census` (`crate::service::jobs::census`: one job per game, a verification
//! run from scratch of each proof, the verdicts), run by the same job workers in this process
//! on a store (`census.db` here, `--store FILE`, or a PostgreSQL database shared with other
//! processes and machines), and its table printed as the census page shows it (or as the API
//! gives it: `--json`, `--csv`). No codes: every game of the unsolved table.
//!
//! The same command again resumes the census (a census of the same games, `--to` and window,
//! not cancelled, is the same census); another process on the same store takes the games no
//! one computes yet, and takes over a killed one's when their leases lapse.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::cli::{exit, game_code, heaps, plural, power_name, window, Code, Fail, Notes};
use super::documents::{csv, CensusDocument, CensusGame};
use super::octal::refusal_in_flags;
use super::store_at::{config_for, open, store_at, StoreAt};
use crate::config::{Config, MAX_JOB_THREADS};
use crate::service::auth::Caller;
use crate::service::jobs::census::{self as service, CensusError, CensusView};
use crate::service::jobs::request::{JobAsk, JobRefusal, Keep};
use crate::service::jobs::Workers;
use crate::service::AppState;
use crate::store::{Census, JobStatus, NewCensus, Store};

/// `grundy census`'s arguments.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Examples:
  grundy census 0.6 0.07 --to 2^16                 # two games, kept in census.db
  grundy census --to 2^20 -j 4                     # every game of the unsolved table, 4 at once
  grundy census .161 .014 --to 2^22 --store postgres://user@host/db
                                                   # shared: run it on several machines

Stop it with Ctrl-C (or kill it) and run the same command again: it resumes. The same command
on another machine, on the same PostgreSQL store, computes the games no one computes yet.")]
pub struct CensusArgs {
    /// Game codes, e.g. 0.161 .014 4.07 grundy (none: every game of the unsolved table, 83).
    #[arg(value_name = "CODE", value_parser = game_code)]
    pub codes: Vec<Code>,
    /// Compute the values of heaps 0 … N−1 of each game: N in digits, or as 2^k or 10^k (at
    /// most 2^48; each game stops early once its periodicity is proved).
    #[arg(long = "to", value_name = "N", value_parser = heaps, allow_hyphen_values = true)]
    pub to: u64,
    /// The window each game keeps: the values of heaps 0 … W−1 and the last W values (memory
    /// bounded whatever N). W a multiple of 2^16, at most 2^28; default 2^24.
    #[arg(long, value_name = "W", value_parser = window, allow_hyphen_values = true, conflicts_with = "keep_all")]
    pub window: Option<u64>,
    /// Keep every value of each game instead of a window (N at most 10^9): the games with a
    /// digit 8 to F, which no window computes beyond its size, need it.
    #[arg(long)]
    pub keep_all: bool,
    /// Games computed at once (default: one per core, at most the number of games).
    #[arg(long, short = 'j', value_name = "J", value_parser = clap::value_parser!(u16).range(1..=64))]
    pub jobs: Option<u16>,
    /// Threads each game computes on (1 to 64; default: the cores divided among the games).
    #[arg(long, value_name = "T", value_parser = clap::value_parser!(u16).range(1..=MAX_JOB_THREADS as i64))]
    pub threads: Option<u16>,
    /// The SQLite file that keeps the census (default: census.db in the current directory), or
    /// a PostgreSQL database (postgres://…) shared with other processes.
    #[arg(long, value_name = "PATH|URL", value_parser = store_at)]
    pub store: Option<StoreAt>,
    /// Print the census as GET /v1/octal/census/{id} answers it (JSON).
    #[arg(long)]
    pub json: bool,
    /// Print the census's table as CSV (GET /v1/octal/census/{id} with Accept: text/csv).
    #[arg(long, conflicts_with = "json")]
    pub csv: bool,
    /// No progress and no notes on stderr (errors still go there).
    #[arg(long, short)]
    pub quiet: bool,
}

/// `grundy census …`: 0 every game done, 1 a game failed (the table says which) or the run
/// failed, 2 bad input, 130 stopped by a signal (run it again to resume).
pub async fn census(args: CensusArgs) -> ExitCode {
    exit("grundy census", run(args).await)
}

async fn run(args: CensusArgs) -> Result<ExitCode, Fail> {
    let at = args
        .store
        .clone()
        .unwrap_or_else(|| StoreAt::File("census.db".into()));
    // Every argument is checked before any work, and a refusal creates nothing.
    let mut config = config_for(&at, args.threads)?;
    let plan = planned(&args, &config)?;
    at.check().await?;
    let note = Notes { quiet: args.quiet };
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    config.job_workers = args
        .jobs
        .map_or(cores.min(plan.codes.len()), usize::from)
        .max(1);
    let opened = open(&at, &mut config, "grundy census", note).await?;
    let started = Instant::now();
    let ran = run_on(&opened.store, config, &args, &at, plan, note).await;
    opened.close(matches!(ran, Err(Fail::Input(_)))).await;
    let code = ran?;
    let size = at
        .size()
        .map_or(String::new(), |s| format!(" ({:.1} MB)", s as f64 / 1e6));
    note.say(format_args!(
        "{:.1} s wall; store {}{size}",
        started.elapsed().as_secs_f64(),
        at.shown()
    ));
    Ok(code)
}

/// The census the command asks for, checked as `POST /v1/octal/census` checks it (the limits,
/// then the window rule for each game) before any work; refusals in this command's flags.
fn planned(args: &CensusArgs, config: &Config) -> Result<NewCensus, Fail> {
    let n = args.to;
    let ask = JobAsk {
        max_n: n,
        keep: Some(if args.keep_all {
            Keep::All
        } else {
            Keep::Window
        }),
        window: args.window,
        store_values: None,
    };
    let template = ask.template(config).map_err(|r| {
        Fail::Input(match r {
            JobRefusal::MaxN {
                limit,
                window_mode: false,
                ..
            } => format!(
                "--to: keeping every value (--keep-all), N is at most {}",
                power_name(limit)
            ),
            other => refusal_in_flags(other, config, n),
        })
    })?;
    let codes: Option<Vec<String>> =
        (!args.codes.is_empty()).then(|| args.codes.iter().map(|c| c.canonical.clone()).collect());
    service::plan(codes.as_deref(), &template).map_err(|e| match e {
        CensusError::Code {
            index,
            refusal: JobRefusal::CannotWindow { why, .. },
        } => Fail::Input(format!(
            "{}: {why}: give --keep-all (N at most {}), a --window of at least N, or leave the code out",
            args.codes.get(index).map_or("CODE", |c| c.text.as_str()),
            power_name(config.job_max_n)
        )),
        CensusError::Code { refusal, .. } => Fail::Input(refusal_in_flags(refusal, config, n)),
        CensusError::Invalid { detail, .. } => Fail::Input(detail.replacen("codes", "CODE", 1)),
        CensusError::OverQuota(q) => Fail::Other(q.detail),
        CensusError::Store(e) => e.into(),
    })
}

/// The census on its open store: found again or started, followed to its end, its table
/// printed; its exit code.
async fn run_on(
    store: &Store,
    config: Config,
    args: &CensusArgs,
    at: &StoreAt,
    plan: NewCensus,
    note: Notes,
) -> Result<ExitCode, Fail> {
    let state = AppState::new(config);
    state.set_store(store.clone());
    let census = match same_census(store, &plan).await? {
        Some(census) => {
            note.say(format_args!(
                "census {} of {} to heaps 0 … {}: found in {}, going on",
                census.id,
                plural(census.codes.len() as u64, "game"),
                census.max_n - 1,
                at.shown()
            ));
            census
        }
        None => {
            let anyone = Caller::Anyone { writes: true };
            let (census, _) = service::create(&state, &anyone, store, plan)
                .await
                .map_err(|e| match e {
                    CensusError::Store(e) => e.into(),
                    CensusError::OverQuota(q) => Fail::Other(q.detail),
                    CensusError::Invalid { detail, .. } => Fail::Input(detail),
                    CensusError::Code { index, .. } => {
                        Fail::Other(format!("the census's game {index} was refused"))
                    }
                })?;
            note.say(format_args!(
                "census {} of {} to heaps 0 … {}, kept in {}",
                census.id,
                plural(census.codes.len() as u64, "game"),
                census.max_n - 1,
                at.shown()
            ));
            census
        }
    };
    let workers = Workers::start(&state);
    state.job_notify.notify_one();
    let watched = follow(&state, store, &census, args.quiet).await;
    workers.stop().await;
    let census = store
        .get_census(&census.id)
        .await?
        .ok_or_else(|| Fail::Other(format!("census {} vanished from the store", census.id)))?;
    let view = service::view(&state, store, census).await?;
    if watched.is_none() {
        // (Said even with --quiet: where the census stopped is what the next run needs.)
        eprintln!(
            "stopped with {} of {} games done; the same command goes on from there",
            done(&view),
            view.games.len()
        );
        return Ok(ExitCode::from(130));
    }
    let failed: Vec<String> = view
        .games
        .iter()
        .filter(|g| g.job.as_ref().is_none_or(|j| j.status != JobStatus::Done))
        .map(|g| g.code.clone())
        .collect();
    let doc = CensusDocument::from(view);
    let text = if args.json {
        serde_json::to_string(&doc).map_err(|e| Fail::Other(e.to_string()))? + "\n"
    } else if args.csv {
        csv(&doc)
    } else {
        table(&doc)
    };
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(|e| Fail::Other(format!("stdout: {e}")))?;
    if failed.is_empty() {
        Ok(ExitCode::SUCCESS)
    } else {
        Err(Fail::Other(format!(
            "{} did not finish: {} (their verdicts say why)",
            plural(failed.len() as u64, "game"),
            failed.join(" ")
        )))
    }
}

/// A census of the store asking what `plan` asks — the same games, `max_n`, window and
/// values kept — and not cancelled (the newest, if several).
async fn same_census(store: &Store, plan: &NewCensus) -> Result<Option<Census>, Fail> {
    let mut wanted = plan.codes.clone();
    wanted.sort();
    Ok(store
        .list_censuses(None, 1000)
        .await?
        .into_iter()
        .find(|c| {
            let mut codes = c.codes.clone();
            codes.sort();
            c.cancelled_at.is_none()
                && c.max_n == plan.max_n
                && c.keep_window == plan.keep_window
                && c.store_values == plan.store_values
                && codes == wanted
        }))
}

/// Games whose primary job is done.
fn done(view: &CensusView) -> usize {
    view.games
        .iter()
        .filter(|g| g.job.as_ref().is_some_and(|j| j.status == JobStatus::Done))
        .count()
}

/// Follows the census to its end, reading it as `GET /v1/octal/census/{id}` does (which
/// starts the verification runs of proved games): progress on stderr — a bar on a terminal,
/// else a line at most every second. `None`: stopped by a signal.
async fn follow(app: &AppState, store: &Store, census: &Census, quiet: bool) -> Option<()> {
    use tokio::signal::unix::{signal, SignalKind};
    let (Ok(mut int), Ok(mut term)) = (
        signal(SignalKind::interrupt()),
        signal(SignalKind::terminate()),
    ) else {
        return Some(());
    };
    let games = census.codes.len() as u64;
    let total = games.saturating_mul(census.max_n);
    let bar = (!quiet && std::io::stderr().is_terminal()).then(|| {
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
        bar.set_style(
            ProgressStyle::with_template(
                "{elapsed_precise} [{wide_bar}] {human_pos}/{human_len} heaps  {msg}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
        );
        bar.enable_steady_tick(Duration::from_millis(500));
        bar
    });
    let mut last: Option<(u64, usize, Instant)> = None;
    let mut tick = tokio::time::interval(Duration::from_millis(500));
    let ended = loop {
        tokio::select! {
            _ = int.recv() => break None,
            _ = term.recv() => break None,
            _ = tick.tick() => {}
        }
        let Ok(Some(c)) = store.get_census(&census.id).await else {
            continue;
        };
        let Ok(view) = service::view(app, store, c).await else {
            continue;
        };
        // A game done counts every heap: a proof ends it early.
        let heaps: u64 = view
            .games
            .iter()
            .filter_map(|g| g.job.as_ref())
            .map(|j| {
                if j.status == JobStatus::Done {
                    j.max_n
                } else {
                    j.computed.min(j.max_n)
                }
            })
            .sum();
        let finished = done(&view);
        let checking = view
            .games
            .iter()
            .filter(|g| {
                g.verification
                    .as_ref()
                    .is_some_and(|v| !v.status.is_final())
            })
            .count();
        let msg = format!(
            "{finished} of {games} games done{}",
            if checking > 0 {
                format!(", {checking} proof(s) being verified from scratch")
            } else {
                String::new()
            }
        );
        match &bar {
            Some(bar) => {
                bar.set_position(heaps);
                bar.set_message(msg.clone());
            }
            None if !quiet => {
                let changed = last.is_none_or(|(h, f, _)| h != heaps || f != finished);
                let due = last.is_none_or(|(_, _, t)| t.elapsed() >= Duration::from_secs(1));
                if changed && (due || view.status != "running") {
                    eprintln!(
                        "{heaps} of {total} heaps ({:.1} %): {msg}",
                        heaps as f64 * 100.0 / total.max(1) as f64
                    );
                    last = Some((heaps, finished, Instant::now()));
                }
            }
            None => {}
        }
        if view.status != "running" {
            break Some(());
        }
    };
    if let Some(bar) = bar {
        bar.abandon();
    }
    ended
}

/// The census as its page shows it: a row a game (status, n reached, the largest value and
/// its first heap, the rare mask, the rare heaps and the last of them, what the tables
/// publish), then each game's verdict.
fn table(doc: &CensusDocument) -> String {
    use std::fmt::Write as _;
    let keep = doc.window.map_or("every value".to_owned(), |w| {
        format!("a window of {}", power_name(w))
    });
    let mut s = format!(
        "census {}: {} to heaps 0 … {} (keeping {keep}) — {}\n\n",
        doc.id,
        plural(doc.games.len() as u64, "game"),
        doc.max_n.saturating_sub(1),
        doc.status
    );
    let width = doc
        .games
        .iter()
        .map(|g| g.code.len())
        .max()
        .unwrap_or(4)
        .max(4);
    let _ = writeln!(
        s,
        "{:<width$} {:<9} {:>16} {:>22} {:>9} {:>10} {:>14}  published",
        "game", "status", "n", "largest (first heap)", "rare mask", "rare", "last rare"
    );
    for g in &doc.games {
        let st = g.statistics.as_ref();
        let dash = || "–".to_owned();
        let _ = writeln!(
            s,
            "{:<width$} {:<9} {:>16} {:>22} {:>9} {:>10} {:>14}  {}",
            g.code,
            g.status,
            g.computed,
            st.map_or_else(dash, |s| format!(
                "{} ({})",
                s.max_value, s.max_value_first_heap
            )),
            st.map_or_else(dash, |s| s.rare_mask.clone()),
            st.map_or_else(dash, |s| s.rare_count.to_string()),
            st.and_then(|s| s.last_rare_heap)
                .map_or_else(dash, |h| h.to_string()),
            published(g),
        );
    }
    let _ = writeln!(s, "\nverdicts:");
    for g in &doc.games {
        let _ = writeln!(s, "  {}: {}", g.code, g.verdict);
    }
    s
}

/// What the tables publish about a game, as one cell: T. Czajka's statistics row, A.
/// Rogalski's record.
fn published(g: &CensusGame) -> String {
    let Some(p) = &g.published else {
        return "–".to_owned();
    };
    let mut cells = Vec::new();
    if let Some(t) = &p.statistics {
        cells.push(format!(
            "Czajka n {}: largest {} ({}), mask {}, rare {}, last {}",
            t.n, t.max_value, t.max_value_first_heap, t.rare_mask, t.rare_count, t.last_rare_heap
        ));
    }
    if let Some(r) = &p.record {
        cells.push(format!(
            "Rogalski n {}: largest {}, mask {}, rare {}",
            r.n, r.max_value, r.rare_mask, r.rare_count
        ));
    }
    if cells.is_empty() {
        "in the unsolved table".to_owned()
    } else {
        cells.join("; ")
    }
}
