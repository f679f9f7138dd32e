//! `grundy octal CODE --to N`: a research run on the command line. The job machinery of
//! `POST /v1/octal/jobs` — the same request through the same router, claimed and run by the
//! same job workers, checkpointed to the same store — in this process, on an embedded SQLite
//! file (one per game in the current directory, or `--store`). Ctrl-C (or a kill) and the same
//! command again resume from the last checkpoint; a finished run asked again answers at once
//! from the store. Progress goes to stderr (a bar on a terminal, plain lines otherwise); the
//! verdict and the statistics table (or, with `--json`, the job and its statistics as the API
//! answers them) to stdout.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::{header, Method, Request, StatusCode};
use http_body_util::BodyExt;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde_json::{json, Value};
use tower::ServiceExt;

use crate::config::{Config, JobThreads, MAX_JOB_THREADS};
use crate::core::octal::{Game, Statistics};
use crate::service::jobs::Workers;
use crate::service::AppState;
use crate::store::{Job, JobKind, JobStatus, Store};

/// The replica id of every `grundy octal` process: a run killed with -9 is taken back at once
/// by the next one on the same store (the job workers requeue their own replica's jobs).
const REPLICA: &str = "grundy-octal";

/// `grundy octal`'s arguments.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Examples:
  grundy octal 0.167 --to 2^26            # heaps 0 … 2^26−1 of .167, kept in octal-0.167.db
  grundy octal 0.167 --to 2^32            # beyond 10^9: a window of 2^24 values (--window)
  grundy octal 4.07 --to 10^6 --json      # the job and its statistics as the API gives them

Stop it with Ctrl-C (or kill it) and run the same command again: it resumes at the last
checkpoint (about a second of work is redone at most). A finished run answers at once.")]
pub struct OctalArgs {
    /// The game code, e.g. 0.167, .6, 4.07 (as for /v1/octal/sequence).
    #[arg(value_name = "CODE", value_parser = game_code)]
    pub code: Code,
    /// Compute the values of heaps 0 … N−1: N in digits, or as 2^k or 10^k (at most 2^48).
    #[arg(long = "to", value_name = "N", value_parser = heaps, allow_hyphen_values = true)]
    pub to: u64,
    /// Threads to compute on (1 to 64; default: every core).
    #[arg(long, value_name = "T", value_parser = clap::value_parser!(u16).range(1..=MAX_JOB_THREADS as i64))]
    pub threads: Option<u16>,
    /// Keep only the values of heaps 0 … W−1 and the last W values in memory (window mode: memory
    /// bounded whatever N; for sparse games). W in digits or as 2^k, a multiple of 2^16.
    /// Default: every value up to 10^9, a window of 2^24 beyond; at most 2^28.
    #[arg(long, value_name = "W", value_parser = window, allow_hyphen_values = true)]
    pub window: Option<u64>,
    /// The SQLite file that keeps the run (default: octal-CODE.db in the current directory).
    #[arg(long, value_name = "PATH")]
    pub store: Option<PathBuf>,
    /// Also write the values of heaps 0 … N−1 to FILE as the download endpoint does: CSV for
    /// *.csv, JSON for *.json, little-endian binary for *.bin (1, 2 or 4 bytes a value, the
    /// least that holds the largest: said on stderr when written).
    #[arg(long, value_name = "FILE")]
    pub values: Option<PathBuf>,
    /// Print one JSON object, {"job": …, "statistics": …}, as GET /v1/octal/jobs/{id} and
    /// …/statistics answer.
    #[arg(long)]
    pub json: bool,
    /// Print the values of heaps A … A+K−1 on stdout instead of the table: CSV (heap,value),
    /// or with --json as the values download's JSON. A+K at most N.
    #[arg(long, value_name = "A", requires = "count", value_parser = heap_index)]
    pub from: Option<u64>,
    /// How many values --from prints (K).
    #[arg(long, value_name = "K", value_parser = heaps)]
    pub count: Option<u64>,
    /// Also list the rare heaps and their values (rare under the mask of heaps 0 … N−1, as the
    /// tables give them): after the table, or as "rare": [[heap, value], …] with --json.
    #[arg(long)]
    pub rare: bool,
    /// No progress and no notes on stderr (errors still go there).
    #[arg(long, short)]
    pub quiet: bool,
}

/// A game code as given, and its canonical form.
#[derive(Debug, Clone)]
pub struct Code {
    pub text: String,
    pub canonical: String,
}

pub(super) fn game_code(text: &str) -> Result<Code, String> {
    let game = Game::parse(text).map_err(|e| e.to_string())?;
    Ok(Code {
        text: text.to_owned(),
        canonical: game.canonical(),
    })
}

/// The most heaps a run computes (`--to`): window mode's limit, 2^48.
pub const MAX_HEAPS: u64 = crate::core::octal::MAX_WINDOW_N as u64;

/// A count in digits (`_` allowed between them), or `2^k`, or `10^k`, from 1 to `most` (`what`
/// names the limit in the refusal).
pub fn count(text: &str, most: u64, what: &str) -> Result<u64, String> {
    let t = text.trim();
    let bad = || format!("{text:?} is not a count: digits, 2^k or 10^k");
    let too_big = || format!("{t} is more than {}, {what}", power_name(most));
    let n = if let Some((base, exp)) = t.split_once('^') {
        let base: u64 = match base {
            "2" => 2,
            "10" => 10,
            _ => return Err(bad()),
        };
        if exp.is_empty() || !exp.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        let exp: u32 = exp.parse().map_err(|_| too_big())?;
        base.checked_pow(exp).ok_or_else(too_big)?
    } else {
        let digits: String = t.chars().filter(|&c| c != '_').collect();
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) || t.starts_with('_') {
            return Err(bad());
        }
        digits.parse().map_err(|_| too_big())?
    };
    if n == 0 {
        return Err(format!("{t} is not at least 1"));
    }
    if n > most {
        return Err(too_big());
    }
    Ok(n)
}

/// `--to N`: heaps 0 … N−1, N from 1 to 2^48.
fn heaps(text: &str) -> Result<u64, String> {
    count(text, MAX_HEAPS, "the most heaps a run computes")
}

/// `--from A`: a heap, from 0.
fn heap_index(text: &str) -> Result<u64, String> {
    if text.trim() == "0" {
        return Ok(0);
    }
    count(text, MAX_HEAPS - 1, "the last heap a run computes")
}

/// `--window W`: a multiple of 2^16, at most the largest window a job keeps.
fn window(text: &str) -> Result<u64, String> {
    let most = Config::default().job_max_window;
    let w = count(text, most, "the largest window")?;
    if w % 65536 != 0 {
        return Err(format!("{} is not a multiple of 2^16 (65536)", text.trim()));
    }
    Ok(w)
}

/// `n` as the command line writes it: `2^k` or `10^k` where it is one, else its digits.
pub fn power_name(n: u64) -> String {
    if n.is_power_of_two() && n > 1 {
        return format!("2^{}", n.trailing_zeros());
    }
    let mut k = 0;
    let mut p = 1u64;
    while p < n {
        p = p.saturating_mul(10);
        k += 1;
    }
    if p == n && k > 1 {
        format!("10^{k}")
    } else {
        n.to_string()
    }
}

/// "1 thread", "2 threads": `n` and its noun.
pub(super) fn plural(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// Why a run ended without its answer.
pub(super) enum Fail {
    /// Bad input (exit 2): one line naming it.
    Input(String),
    /// Anything else (exit 1).
    Other(String),
}

impl From<crate::store::StoreError> for Fail {
    fn from(e: crate::store::StoreError) -> Self {
        Fail::Other(format!("the store failed: {e}"))
    }
}

/// `grundy octal CODE --to N …`: its exit code (0 done, 1 failed, 2 bad input, 130 stopped
/// by a signal: run it again to resume).
pub async fn octal(args: OctalArgs) -> ExitCode {
    exit("grundy octal", run(args).await)
}

/// A command's exit code: its own, or 2 for bad input and 1 for anything else, said in one
/// line on stderr.
pub(super) fn exit(command: &str, result: Result<ExitCode, Fail>) -> ExitCode {
    match result {
        Ok(code) => code,
        Err(Fail::Input(msg)) => {
            eprintln!("{command}: {msg}");
            ExitCode::from(2)
        }
        Err(Fail::Other(msg)) => {
            eprintln!("{command}: {msg}");
            ExitCode::FAILURE
        }
    }
}

/// The default store of a game: `octal-CODE.db`, the canonical code with anything but
/// letters, digits, `.` and `-` as `_`.
pub fn default_store(canonical: &str) -> PathBuf {
    let name: String = canonical
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    PathBuf::from(format!("octal-{name}.db"))
}

/// The service's configuration for one run on `path`: open access (this process only: it
/// listens nowhere), one job worker, no quotas, checkpoints every second; `GRUNDY_JOB_PACE` as
/// for the server.
pub(super) fn config_for(path: &Path, threads: Option<u16>) -> Result<Config, Fail> {
    // The checkpoint interval: a second (a stopped run redoes at most that), or
    // GRUNDY_JOB_CHECKPOINT_MS as for the server.
    let checkpoint = std::env::var("GRUNDY_JOB_CHECKPOINT_MS")
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .filter(|ms| (10..=60_000).contains(ms))
        .map_or(Duration::from_secs(1), Duration::from_millis);
    let job_pace = crate::config::job_pace_from_env().map_err(|e| Fail::Input(e.to_string()))?;
    Ok(Config {
        database_url: Some(format!("sqlite://{}", path.display())),
        addr: ([127, 0, 0, 1], 0).into(),
        auth_off: true,
        api_keys: None,
        job_workers: 1,
        job_threads: threads.map_or(JobThreads::Auto, |t| JobThreads::Fixed(usize::from(t))),
        job_checkpoint: checkpoint,
        job_pace,
        job_lease: checkpoint * 15,
        replica_id: REPLICA.to_owned(),
        quota_active_jobs: 0,
        quota_heaps_per_day: 0,
        values_max_count: u64::MAX >> 1,
        request_timeout: Duration::from_secs(24 * 3600),
        ..Config::default()
    })
}

async fn run(args: OctalArgs) -> Result<ExitCode, Fail> {
    let canonical = args.code.canonical.clone();
    let n = args.to;
    let path = args
        .store
        .clone()
        .unwrap_or_else(|| default_store(&canonical));
    // Every argument is checked before any work, and a refusal creates nothing.
    if path.to_str().is_none_or(|p| p.contains(['?', '#'])) {
        return Err(Fail::Input(format!(
            "--store {}: a path of UTF-8 without ? or #",
            path.display()
        )));
    }
    let config = config_for(&path, args.threads)?;
    let window = run_window(&args, &config)?;
    if let Some(k) = args.count {
        let a = args.from.unwrap_or(0);
        if a.saturating_add(k) > n {
            return Err(Fail::Input(format!(
                "--count: heaps {a} … {} lie beyond --to {n} (heaps 0 … {})",
                a.saturating_add(k) - 1,
                n - 1
            )));
        }
    }
    let values = match &args.values {
        Some(file) => Some((file.clone(), values_format(file)?)),
        None => None,
    };
    crate::store::inspect_sqlite_file(&path)
        .await
        .map_err(|e| Fail::Input(format!("--store {}: {e}", path.display())))?;
    let note = Notes { quiet: args.quiet };
    if window.is_some() && args.window.is_none() {
        note.say(format_args!(
            "{n} heaps are more than a run keeping every value computes ({}); keeping a window of {} (--window)",
            power_name(config.job_max_n),
            power_name(config.job_window)
        ));
    }
    let existed = path.exists();
    let mut config = config;
    let store = Store::connect(config.database_url.as_deref().unwrap_or_default())
        .await
        .map_err(|e| Fail::Input(format!("--store {}: {e}", path.display())))?;
    // One process computes on a store at a time: the first holds an advisory lock on the file
    // (beside SQLite's own locks) and runs as `REPLICA`, taking back at once a run a killed
    // process left; a second one runs under an id of its own, so that it never takes a live
    // process's job: it follows that job's progress, and takes it over only if its lease lapses.
    let lock = std::fs::File::open(&path).ok();
    let alone = lock.as_ref().is_none_or(|f| f.try_lock().is_ok());
    if !alone {
        config.replica_id = format!("{REPLICA}-{}", std::process::id());
        note.say(format_args!(
            "another grundy octal is running on {}: this one follows it, and takes over its jobs if it stops",
            path.display()
        ));
    }
    let started = Instant::now();
    let ran = run_on(&store, config, &args, &path, window, values, note).await;
    // A refused run leaves no store behind (unless it was there before, or holds a job).
    let refused = !existed
        && matches!(ran, Err(Fail::Input(_)))
        && store
            .list_jobs_where(None, None, 1, None)
            .await
            .is_ok_and(|jobs| jobs.is_empty());
    // Checkpointed and closed on every way out: the file alone holds the run.
    store.close().await;
    drop(lock);
    if refused {
        for end in ["", "-wal", "-shm"] {
            let mut p = path.clone().into_os_string();
            p.push(end);
            let _ = std::fs::remove_file(p);
        }
    }
    let (code, cpu) = ran?;
    if let Some(cpu) = cpu {
        let size = std::fs::metadata(&path).map_or(0, |m| m.len());
        note.say(format_args!(
            "heaps 0 … {}: {:.1} s wall, {cpu}; store {} ({:.1} MB)",
            n - 1,
            started.elapsed().as_secs_f64(),
            path.display(),
            size as f64 / 1e6
        ));
    }
    Ok(code)
}

/// Notes on stderr (not progress, not errors): silent with `--quiet`.
#[derive(Clone, Copy)]
struct Notes {
    quiet: bool,
}

impl Notes {
    fn say(self, text: std::fmt::Arguments<'_>) {
        if !self.quiet {
            eprintln!("{text}");
        }
    }
}

/// The window a run keeps (`None`: every value), checked against the limits and the game's
/// rule (the service's `window_refusal`, worded here in this command's flags) before any work.
fn run_window(args: &OctalArgs, config: &Config) -> Result<Option<u64>, Fail> {
    let n = args.to;
    let window = match args.window {
        Some(w) => Some(w),
        None if n > config.job_max_n => Some(config.job_window),
        None => None,
    };
    let Some(w) = window.filter(|&w| w < n) else {
        return Ok(window);
    };
    let game = Game::parse(&args.code.canonical).map_err(|e| Fail::Input(e.to_string()))?;
    let Some(why) = crate::service::octal::window_refusal(&game) else {
        return Ok(Some(w));
    };
    let keep_all = power_name(config.job_max_n);
    Err(Fail::Input(if n <= config.job_max_n {
        format!("--window: {why}; leave --window out to keep every value (up to {keep_all} heaps)")
    } else {
        format!(
            "--to: {why}, and keeping every value a run goes to {keep_all} heaps at most (--to {keep_all})"
        )
    }))
}

/// `--values FILE`: its format (what the download is asked for), named by its extension, and
/// its folder there: checked before any work.
fn values_format(file: &Path) -> Result<&'static str, Fail> {
    let accept = match file.extension().and_then(|e| e.to_str()) {
        Some("csv") => "text/csv",
        Some("json") => "application/json",
        Some("bin") => "application/octet-stream",
        _ => {
            return Err(Fail::Input(format!(
                "--values {}: name the format by the extension: .csv, .json or .bin",
                file.display()
            )))
        }
    };
    let folder = match file.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if !folder.is_dir() {
        return Err(Fail::Input(format!(
            "--values {}: its folder {} does not exist",
            file.display(),
            folder.display()
        )));
    }
    Ok(accept)
}

/// The run on its open store: the job found or submitted, followed to its end, the result
/// printed; its exit code and, when it ended done, its CPU time and threads for the summary.
async fn run_on(
    store: &Store,
    config: Config,
    args: &OctalArgs,
    path: &Path,
    window: Option<u64>,
    values: Option<(PathBuf, &'static str)>,
    note: Notes,
) -> Result<(ExitCode, Option<String>), Fail> {
    let canonical = args.code.canonical.clone();
    let n = args.to;
    let store_values = window.is_some() && values.is_some();
    let state = AppState::new(config);
    state.set_store(store.clone());
    let router = super::build(state.clone());

    // The runs of this game stored before (newest first), but those that failed or were
    // cancelled.
    let jobs: Vec<Job> = store
        .list_jobs_where(None, Some(JobKind::Sequence), 1000, None)
        .await?
        .into_iter()
        .filter(|j| {
            j.code == canonical && !matches!(j.status, JobStatus::Failed | JobStatus::Cancelled)
        })
        .collect();
    // The window this run keeps, `None` when it keeps every value (a window holding every
    // value runs as keeping all, see `POST /v1/octal/jobs`).
    let kept = window.filter(|&w| w < n);
    let same_kind = |j: &Job| match (kept, j.keep_window) {
        (None, None) => true,
        (Some(w), Some(k)) => w == k && (j.store_values || !store_values),
        _ => false,
    };
    // The same run asked before.
    let mut earlier = jobs.iter().find(|j| j.max_n == n && same_kind(j)).cloned();
    // A shorter window run of the game with the same window goes on where it stopped: its
    // values before the window are in its archive only, so no other job could reuse them.
    if earlier.is_none() && kept.is_some() {
        if let Some(shorter) = jobs.iter().find(|j| j.max_n < n && same_kind(j)) {
            if store
                .extend_window_job(&shorter.id, n, &state.config.replica_id)
                .await?
            {
                note.say(format_args!(
                    "extending the stored run to heap {} (job {}) to {n} heaps: it goes on from heap {}",
                    shorter.max_n,
                    shorter.id,
                    shorter.computed.min(shorter.max_n)
                ));
                earlier = store.get_job(&shorter.id).await?;
            }
        }
    }
    // Runs of the game kept otherwise are said, and what this one does instead.
    if earlier.is_none() {
        for other in jobs.iter().filter(|j| !same_kind(j)).take(3) {
            let theirs = other.keep_window.map_or("every value".to_owned(), |w| {
                format!("a window of {}", power_name(w))
            });
            let mine = kept.map_or("every value".to_owned(), |w| {
                format!("a window of {}", power_name(w))
            });
            note.say(format_args!(
                "{} holds a run of {canonical} to {} keeping {theirs} (job {}); this one keeps {mine}, so it does not continue that one",
                path.display(),
                other.max_n,
                other.id
            ));
        }
    }
    // Where the progress starts: what the store holds of the game already.
    let mut start = 0;
    let job = match earlier {
        Some(job) => {
            if job.status == JobStatus::Done {
                note.say(format_args!(
                    "{canonical}, heaps 0 … {}: computed earlier (job {}), answered from {}",
                    n - 1,
                    job.id,
                    path.display()
                ));
            } else if job.computed > 0 {
                note.say(format_args!(
                    "resuming at heap {} of {n} (job {}, {})",
                    job.computed.min(n),
                    job.id,
                    path.display()
                ));
            }
            job
        }
        None => {
            let id = submit(&router, &args.code.text, n, window, store_values).await?;
            let job = store
                .get_job(&id)
                .await?
                .ok_or_else(|| Fail::Other(format!("job {id} vanished from the store")))?;
            // Values already stored for this game (an earlier, shorter run) are not computed
            // again.
            let stored = match job.keep_window {
                None => store
                    .sequence_extent(&canonical)
                    .await?
                    .map_or(0, |e| e.computed as u64),
                Some(_) => 0,
            };
            start = stored.min(n);
            if stored > 0 {
                note.say(format_args!(
                    "resuming at heap {} of {n} from the values stored in {} (job {})",
                    stored.min(n),
                    path.display(),
                    job.id
                ));
            }
            job
        }
    };
    let id = job.id.clone();

    if job.status != JobStatus::Done {
        let workers = Workers::start(&state);
        state.job_notify.notify_one();
        let watched = watch(store, &job, n, start, args.quiet).await;
        workers.stop().await;
        let job = store
            .get_job(&id)
            .await?
            .ok_or_else(|| Fail::Other(format!("job {id} vanished from the store")))?;
        match watched {
            Watched::Signal => {
                // (Said even with --quiet: where the run stopped is what the next one needs.)
                eprintln!(
                    "stopped at heap {} of {n}; the same command resumes there",
                    job.computed.min(n)
                );
                return Ok((ExitCode::from(130), None));
            }
            Watched::Ended if job.status == JobStatus::Done => {}
            Watched::Ended => {
                return Err(Fail::Other(format!(
                    "job {id} {}: {}",
                    job.status.as_str(),
                    job.error.as_deref().unwrap_or("no reason given")
                )));
            }
        }
    }

    let job_json = get_json(&router, &format!("/v1/octal/jobs/{id}")).await?;
    let statistics = get_json(&router, &format!("/v1/octal/jobs/{id}/statistics")).await?;
    if let Some((file, accept)) = &values {
        let width = write_values(&router, &canonical, n, file, accept).await?;
        let how = match (*accept, width) {
            ("application/octet-stream", Some(w)) => {
                format!(" (little-endian, {})", plural(w, "byte") + " a value")
            }
            ("text/csv", _) => " (CSV: heap,value)".to_owned(),
            _ => " (JSON)".to_owned(),
        };
        note.say(format_args!(
            "values of heaps 0 … {} written to {}{how}",
            n - 1,
            file.display()
        ));
    }
    // --from/--count: checked against N in `run`.
    if let Some(k) = args.count {
        let a = args.from.unwrap_or(0);
        let accept = if args.json {
            "application/json"
        } else {
            "text/csv"
        };
        let path = format!(
            "/v1/octal/{}/values?start={a}&count={k}",
            percent(&canonical)
        );
        let resp = send(&router, Method::GET, &path, None, Some(accept)).await?;
        if resp.status() != StatusCode::OK {
            return Err(Fail::Other(format!("the values: {}", resp.status())));
        }
        let mut out = std::io::stdout().lock();
        let mut body = resp.into_body();
        while let Some(frame) = body.frame().await {
            let frame = frame.map_err(|e| Fail::Other(format!("the values: {e}")))?;
            if let Ok(data) = frame.into_data() {
                out.write_all(&data)
                    .map_err(|e| Fail::Other(format!("stdout: {e}")))?;
            }
        }
        out.flush()
            .map_err(|e| Fail::Other(format!("stdout: {e}")))?;
        return Ok((ExitCode::SUCCESS, Some(summary(&job_json))));
    }
    let rare = if args.rare {
        Some(rare_values(&router, &canonical, n, &statistics).await?)
    } else {
        None
    };
    let mut out = std::io::stdout().lock();
    let printed = if args.json {
        let mut doc = json!({"job": job_json, "statistics": statistics});
        if let Some((_, rare)) = &rare {
            doc["rare"] = json!(rare);
        }
        writeln!(out, "{doc}")
    } else {
        let mut text = report(&canonical, n, &job_json, &statistics);
        if let Some((mask, rare)) = &rare {
            text.push_str(&rare_table(n, *mask, rare));
        }
        write!(out, "{text}")
    };
    printed
        .and_then(|()| out.flush())
        .map_err(|e| Fail::Other(format!("stdout: {e}")))?;
    Ok((ExitCode::SUCCESS, Some(summary(&job_json))))
}

/// The run's CPU time and threads as the job document gives them, for the end-of-run line.
fn summary(job: &Value) -> String {
    let cpu = job["cpu_seconds"]
        .as_f64()
        .map_or("–".to_owned(), |s| format!("{s:.1} s"));
    let threads = job["threads"]
        .as_u64()
        .map_or("–".to_owned(), |t| plural(t, "thread"));
    format!("CPU {cpu} (every run of the job), {threads}")
}

/// `POST /v1/octal/jobs` through the router; a refusal is bad input, named as the command
/// line names it.
async fn submit(
    router: &axum::Router,
    code: &str,
    n: u64,
    window: Option<u64>,
    store_values: bool,
) -> Result<String, Fail> {
    let mut body = json!({"code": code, "max_n": n});
    if let Some(w) = window {
        body["window"] = json!(w);
        if store_values {
            body["store_values"] = json!(true);
        }
    }
    let (status, reply) = call(router, Method::POST, "/v1/octal/jobs", Some(body), None).await?;
    let reply: Value = serde_json::from_slice(&reply).unwrap_or(Value::Null);
    if status != StatusCode::ACCEPTED {
        return Err(refusal(status, &reply));
    }
    Ok(reply["id"].as_str().unwrap_or_default().to_owned())
}

/// A problem document as one line: its detail, the field named as the command line names it.
pub(super) fn refusal(status: StatusCode, problem: &Value) -> Fail {
    let detail = problem["detail"].as_str().unwrap_or("refused").to_owned();
    let field = problem["field"].as_str().unwrap_or_default();
    let flag = match field {
        "code" => "CODE",
        "max_n" => "--to",
        "window" | "keep" => "--window",
        "store_values" => "--values",
        other => other,
    };
    let detail = match detail.strip_prefix(&format!("{field}:")) {
        Some(rest) if !field.is_empty() => format!("{flag}:{rest}"),
        _ => detail,
    };
    let detail = detail
        .replace(
            "; a job with \"keep\": \"window\" may go further",
            "; give --window W to go further",
        )
        .replace(
            "a job (POST /v1/octal/jobs) can compute further",
            "grundy octal CODE --to N computes further",
        );
    if status.is_client_error() {
        Fail::Input(detail)
    } else {
        Fail::Other(format!("{status}: {detail}"))
    }
}

/// One request through the router: its status and body.
pub(super) async fn call(
    router: &axum::Router,
    method: Method,
    path: &str,
    body: Option<Value>,
    accept: Option<&str>,
) -> Result<(StatusCode, bytes::Bytes), Fail> {
    let resp = send(router, method, path, body, accept).await?;
    let status = resp.status();
    let bytes = axum::body::to_bytes(resp.into_body(), usize::MAX)
        .await
        .map_err(|e| Fail::Other(format!("{path}: {e}")))?;
    Ok((status, bytes))
}

async fn send(
    router: &axum::Router,
    method: Method,
    path: &str,
    body: Option<Value>,
    accept: Option<&str>,
) -> Result<axum::response::Response, Fail> {
    let mut req = Request::builder().method(method).uri(path);
    if let Some(a) = accept {
        req = req.header(header::ACCEPT, a);
    }
    let body = match body {
        Some(v) => {
            let bytes = serde_json::to_vec(&v).unwrap_or_default();
            req = req
                .header(header::CONTENT_TYPE, "application/json")
                .header(header::CONTENT_LENGTH, bytes.len());
            Body::from(bytes)
        }
        None => Body::empty(),
    };
    let req = req
        .body(body)
        .map_err(|e| Fail::Other(format!("{path}: {e}")))?;
    Ok(router
        .clone()
        .oneshot(req)
        .await
        .unwrap_or_else(|never| match never {}))
}

/// A GET answered 200 with JSON.
pub(super) async fn get_json(router: &axum::Router, path: &str) -> Result<Value, Fail> {
    let (status, bytes) = call(router, Method::GET, path, None, None).await?;
    let value: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    if status != StatusCode::OK {
        return Err(Fail::Other(format!(
            "GET {path}: {status} {}",
            value["detail"].as_str().unwrap_or_default()
        )));
    }
    Ok(value)
}

/// `GET /v1/octal/{code}/values?start=0&count=N` into `file`, as `accept`; the bytes a value
/// of the binary form (`x-grundy-value-bytes`).
async fn write_values(
    router: &axum::Router,
    canonical: &str,
    n: u64,
    file: &Path,
    accept: &str,
) -> Result<Option<u64>, Fail> {
    let path = format!("/v1/octal/{}/values?start=0&count={n}", percent(canonical));
    let resp = send(router, Method::GET, &path, None, Some(accept)).await?;
    if resp.status() != StatusCode::OK {
        let status = resp.status();
        let bytes = axum::body::to_bytes(resp.into_body(), usize::MAX)
            .await
            .unwrap_or_default();
        let v: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        return Err(Fail::Other(format!(
            "the values: {status} {}",
            v["detail"].as_str().unwrap_or_default()
        )));
    }
    let width = resp
        .headers()
        .get("x-grundy-value-bytes")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse().ok());
    let io = |e: std::io::Error| Fail::Other(format!("--values {}: {e}", file.display()));
    let mut out = std::io::BufWriter::new(std::fs::File::create(file).map_err(io)?);
    let mut body = resp.into_body();
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| Fail::Other(format!("the values: {e}")))?;
        if let Ok(data) = frame.into_data() {
            out.write_all(&data).map_err(io)?;
        }
    }
    out.flush().map_err(io)?;
    Ok(width)
}

/// `code` percent-encoded for a path segment, but for letters, digits and `.`.
pub(super) fn percent(code: &str) -> String {
    use std::fmt::Write as _;
    let mut enc = String::new();
    for b in code.bytes() {
        if b.is_ascii_alphanumeric() || b == b'.' {
            enc.push(b as char);
        } else {
            let _ = write!(enc, "%{b:02X}");
        }
    }
    enc
}

/// How watching a run ended.
enum Watched {
    /// The job reached a final status.
    Ended,
    /// SIGINT or SIGTERM: the workers checkpoint and give the job back.
    Signal,
}

/// Shows the job's progress (unless `quiet`) until it ends or a signal comes.
async fn watch(store: &Store, job: &Job, n: u64, start: u64, quiet: bool) -> Watched {
    use tokio::signal::unix::{signal, SignalKind};
    let (Ok(mut int), Ok(mut term)) = (
        signal(SignalKind::interrupt()),
        signal(SignalKind::terminate()),
    ) else {
        return Watched::Ended;
    };
    let mut shown = Shown::new(n, job.computed.min(n).max(start), quiet);
    let mut tick = tokio::time::interval(Duration::from_millis(250));
    loop {
        tokio::select! {
            _ = int.recv() => { shown.stop(); return Watched::Signal; }
            _ = term.recv() => { shown.stop(); return Watched::Signal; }
            _ = tick.tick() => {}
        }
        let Ok(Some(job)) = store.get_job(&job.id).await else {
            continue;
        };
        if job.computed != shown.computed || shown.rare.is_none() {
            let rare = match store.job_statistics(&job.id).await {
                Ok(Some(bytes)) => Statistics::from_bytes(&bytes)
                    .ok()
                    .and_then(|s| s.current())
                    .map(|s| s.rare_count),
                _ => None,
            };
            shown.rare = rare.or(shown.rare);
        }
        shown.show(&job);
        if job.status.is_final() {
            shown.stop();
            return Watched::Ended;
        }
    }
}

/// The progress shown on stderr: a bar on a terminal, else a line at most every second;
/// nothing with `--quiet`. Heaps are counted as computed: "heap 1000 of N" means heaps
/// 0 … 999 are known.
struct Shown {
    n: u64,
    computed: u64,
    /// Where this process's run started: a rate is shown only once it has gone past it (the
    /// stored rate until then is an earlier run's).
    from: u64,
    rare: Option<u64>,
    bar: Option<ProgressBar>,
    last_line: Option<Instant>,
    quiet: bool,
}

impl Shown {
    fn new(n: u64, computed: u64, quiet: bool) -> Self {
        let bar = (!quiet && std::io::stderr().is_terminal()).then(|| {
            let bar = ProgressBar::with_draw_target(Some(n), ProgressDrawTarget::stderr());
            bar.set_style(
                ProgressStyle::with_template(
                    "{elapsed_precise} [{wide_bar}] {human_pos}/{human_len} heaps  {msg}",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
            );
            bar.set_position(computed);
            bar.enable_steady_tick(Duration::from_millis(500));
            bar
        });
        Shown {
            n,
            computed,
            from: computed,
            rare: None,
            bar,
            last_line: None,
            quiet,
        }
    }

    fn show(&mut self, job: &Job) {
        if self.quiet {
            return;
        }
        // Never backwards: a job shows the values it reuses from its first checkpoint on.
        let mut computed = job.computed.min(self.n).max(self.computed);
        // Done before N: a proof made the other values unnecessary (a sequence job ends early
        // only so). The bar is full; the line says why.
        let proved = (job.status == JobStatus::Done && computed < self.n).then_some(computed);
        if proved.is_some() {
            computed = self.n;
        }
        let changed = computed != self.computed || self.last_line.is_none();
        self.computed = computed;
        let rate = job
            .rate
            .filter(|r| r.is_finite() && *r > 0.0 && computed > self.from);
        let eta = rate
            .filter(|_| job.status == JobStatus::Running)
            .map(|r| (self.n - computed) as f64 / r);
        let msg = match proved {
            Some(at) => format!("proved periodic at heap {at}: no further values needed"),
            None => format!(
                "{} values/s, ETA {}, {} rare, {}{}",
                rate.map_or("–".to_owned(), |r| format!("{r:.0}")),
                eta.map_or("–".to_owned(), |s| {
                    indicatif::HumanDuration(Duration::from_secs_f64(s)).to_string()
                }),
                self.rare.map_or("–".to_owned(), |r| r.to_string()),
                job.threads
                    .map_or("– threads".to_owned(), |t| plural(t, "thread")),
                if job.status == JobStatus::Queued {
                    " (starting)"
                } else {
                    ""
                },
            ),
        };
        match &self.bar {
            Some(bar) => {
                bar.set_position(computed);
                bar.set_message(msg);
            }
            None => {
                let due = self
                    .last_line
                    .is_none_or(|t| t.elapsed() >= Duration::from_secs(1));
                if changed && (due || job.status.is_final()) {
                    eprintln!(
                        "{computed} of {} heaps ({:.1} %): {msg}",
                        self.n,
                        computed as f64 * 100.0 / self.n.max(1) as f64
                    );
                    self.last_line = Some(Instant::now());
                }
            }
        }
    }

    fn stop(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.abandon();
        }
    }
}

/// The verdict, the statistics table and the histogram of heaps 0 … N−1, as text.
pub(super) fn report(canonical: &str, n: u64, job: &Value, statistics: &Value) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let p = &job["periodicity"];
    let num = |v: &Value| v.as_u64().map_or("–".to_owned(), |x| x.to_string());
    let _ = match p["status"].as_str() {
        Some(status @ ("periodic" | "arithmetic-periodic")) => writeln!(
            s,
            "{canonical}: {status}, preperiod {}, period {}, saltus {}: proved from heaps 0 … {} by {}",
            num(&p["preperiod"]),
            num(&p["period"]),
            num(&p["saltus"]),
            p["proved_at"]
                .as_u64()
                .map_or("–".to_owned(), |n| n.saturating_sub(1).to_string()),
            p["theorem"].as_str().unwrap_or("a periodicity theorem"),
        ),
        _ => writeln!(s, "{canonical}: no period up to {n}"),
    };
    let _ = writeln!(
        s,
        "\n{:>16} {:>9} {:>14} {:>9} {:>12} {:>14}",
        "n", "max value", "at heap", "rare mask", "rare values", "last rare heap"
    );
    let rows = statistics["powers_of_two"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let current = &statistics["current"];
    let last_n = rows.last().map(|r| r["n"].clone());
    for row in rows
        .iter()
        .chain((!current.is_null() && last_n.as_ref() != Some(&current["n"])).then_some(current))
    {
        let _ = writeln!(
            s,
            "{:>16} {:>9} {:>14} {:>9} {:>12} {:>14}",
            num(&row["n"]),
            num(&row["max_value"]),
            num(&row["max_value_first_heap"]),
            row["rare_mask"].as_str().unwrap_or("–"),
            num(&row["rare_count"]),
            num(&row["last_rare_heap"]),
        );
    }
    if let Some(h) = current["histogram"].as_array() {
        let _ = writeln!(
            s,
            "\nhistogram of heaps 0 … {} (value: heaps):",
            current["n"]
                .as_u64()
                .map_or("–".to_owned(), |n| n.saturating_sub(1).to_string())
        );
        let cells: Vec<String> = h
            .iter()
            .enumerate()
            .filter(|(_, c)| c.as_u64() != Some(0))
            .map(|(v, c)| format!("{v}: {}", num(c)))
            .collect();
        for line in cells.chunks(8) {
            let _ = writeln!(s, "  {}", line.join(", "));
        }
    }
    s
}

/// The rare heaps of heaps 0 … N−1 and their values, under the mask of the statistics of the
/// whole run (`statistics.current.rare_mask`): every value read back as the values download
/// serves it (binary), a value rare when `popcount(value & mask)` is even.
async fn rare_values(
    router: &axum::Router,
    canonical: &str,
    n: u64,
    statistics: &Value,
) -> Result<(u32, Vec<(u64, u32)>), Fail> {
    let mask = statistics["current"]["rare_mask"]
        .as_str()
        .and_then(|m| u32::from_str_radix(m, 16).ok())
        .ok_or_else(|| Fail::Other("the run's statistics give no rare mask".to_owned()))?;
    let path = format!("/v1/octal/{}/values?start=0&count={n}", percent(canonical));
    let resp = send(
        router,
        Method::GET,
        &path,
        None,
        Some("application/octet-stream"),
    )
    .await?;
    if resp.status() != StatusCode::OK {
        return Err(Fail::Other(format!("the values: {}", resp.status())));
    }
    let width: usize = resp
        .headers()
        .get("x-grundy-value-bytes")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse().ok())
        .filter(|w| matches!(w, 1 | 2 | 4))
        .ok_or_else(|| Fail::Other("the values: no x-grundy-value-bytes".to_owned()))?;
    let mut rare = Vec::new();
    let (mut heap, mut carry) = (0u64, Vec::with_capacity(4));
    let mut body = resp.into_body();
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| Fail::Other(format!("the values: {e}")))?;
        let Ok(data) = frame.into_data() else {
            continue;
        };
        for &byte in data.iter() {
            carry.push(byte);
            if carry.len() == width {
                let mut le = [0u8; 4];
                le[..width].copy_from_slice(&carry);
                let value = u32::from_le_bytes(le);
                if crate::core::octal::statistics::is_rare(value, mask) {
                    rare.push((heap, value));
                }
                heap += 1;
                carry.clear();
            }
        }
    }
    if heap != n {
        return Err(Fail::Other(format!("the values: {heap} read of {n}")));
    }
    Ok((mask, rare))
}

/// `--rare` in words: the mask, the count, then `heap value` a line.
fn rare_table(n: u64, mask: u32, rare: &[(u64, u32)]) -> String {
    use std::fmt::Write as _;
    let mut s = format!(
        "\nrare heaps of heaps 0 … {} under mask {mask:x} ({}):\n{:>16} {:>9}\n",
        n - 1,
        plural(rare.len() as u64, "heap"),
        "heap",
        "value"
    );
    for (heap, value) in rare {
        let _ = writeln!(s, "{heap:>16} {value:>9}");
    }
    s
}
