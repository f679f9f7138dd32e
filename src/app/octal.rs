//! `grundy octal CODE --to N`: a research run on the command line. The job machinery of
//! `POST /v1/octal/jobs` — the same request through the same router, claimed and run by the
//! same job workers, checkpointed to the same store — in this process, on an embedded SQLite
//! file (one per game in the current directory, or `--store`). Ctrl-C (or a kill) and the same
//! command again resume from the last checkpoint; a finished run asked again answers at once
//! from the store. Progress goes to stderr (a bar on a terminal, plain lines otherwise); the
//! verdict and the statistics table (or, with `--json`, the job and its statistics as the API
//! answers them) to stdout.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use serde_json::json;

use super::cli::{
    default_store, exit, game_code, heap_index, heaps, plural, power_name, window, Code, Fail,
    Notes,
};
use super::download::{print_range, rare_values, write_values};
use super::progress::{watch, Watched};
use super::report::{documents, rare_table, report, summary};
use super::store_at::{config_for, open, store_at, StoreAt};
use crate::config::{Config, MAX_JOB_THREADS};
use crate::core::octal::Game;
use crate::service::auth::Caller;
use crate::service::jobs::request::{JobAsk, JobRefusal};
use crate::service::jobs::{JobSubmit, Submission, Workers};
use crate::service::AppState;
use crate::store::{Job, JobKind, JobStatus, NewJob, SequenceJob, Store};

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
    /// The SQLite file that keeps the run (default: octal-CODE.db in the current directory),
    /// or a PostgreSQL database (postgres://…) shared with other processes.
    #[arg(long, value_name = "PATH|URL", value_parser = store_at)]
    pub store: Option<StoreAt>,
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

/// `grundy octal CODE --to N …`: its exit code (0 done, 1 failed, 2 bad input, 130 stopped
/// by a signal: run it again to resume).
pub async fn octal(args: OctalArgs) -> ExitCode {
    exit("grundy octal", run(args).await)
}

async fn run(args: OctalArgs) -> Result<ExitCode, Fail> {
    let canonical = args.code.canonical.clone();
    let n = args.to;
    let at = args
        .store
        .clone()
        .unwrap_or_else(|| StoreAt::File(default_store(&canonical)));
    // Every argument is checked before any work, and a refusal creates nothing.
    let mut config = config_for(&at, args.threads)?;
    let new = job_asked(&args, &config)?;
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
    at.check().await?;
    let note = Notes { quiet: args.quiet };
    if new.keep_window.is_some() && args.window.is_none() {
        note.say(format_args!(
            "{n} heaps are more than a run keeping every value computes ({}); keeping a window of {} (--window)",
            power_name(config.job_max_n),
            power_name(config.job_window)
        ));
    }
    let opened = open(&at, &mut config, "grundy octal", note).await?;
    let started = Instant::now();
    let ran = run_on(&opened.store, config, &args, &at, new, values, note).await;
    // Checkpointed and closed on every way out: the file alone holds the run.
    opened.close(matches!(ran, Err(Fail::Input(_)))).await;
    let (code, cpu) = ran?;
    if let Some(cpu) = cpu {
        let size = at
            .size()
            .map_or(String::new(), |s| format!(" ({:.1} MB)", s as f64 / 1e6));
        note.say(format_args!(
            "heaps 0 … {}: {:.1} s wall, {cpu}; store {}{size}",
            n - 1,
            started.elapsed().as_secs_f64(),
            at.shown(),
        ));
    }
    Ok(code)
}

/// The job the command asks for, checked as `POST /v1/octal/jobs` checks it
/// (`crate::service::jobs::request`: the limits and the window rule) before any work, a
/// refusal worded in this command's flags. Beyond the most heaps a run keeping every value
/// computes (10^9), a window of 2^24 unless `--window` gives one.
fn job_asked(args: &OctalArgs, config: &Config) -> Result<NewJob, Fail> {
    let n = args.to;
    let window = match args.window {
        Some(w) => Some(w),
        None if n > config.job_max_n => Some(config.job_window),
        None => None,
    };
    let ask = JobAsk {
        max_n: n,
        keep: None,
        window,
        store_values: (window.is_some() && args.values.is_some()).then_some(true),
    };
    let game = Game::parse(&args.code.canonical).map_err(|e| Fail::Input(e.to_string()))?;
    ask.job(config, &game)
        .map_err(|r| Fail::Input(refusal_in_flags(r, config, n)))
}

/// A refused job in this command's flags and units.
pub(super) fn refusal_in_flags(r: JobRefusal, config: &Config, n: u64) -> String {
    let keep_all = power_name(config.job_max_n);
    match r {
        JobRefusal::MaxN { limit, .. } => format!("--to: N is at most {}", power_name(limit)),
        JobRefusal::OptionNeedsWindow(_) => "--values: only a run keeping a window takes it with a window".to_owned(),
        JobRefusal::Window { given, slide, most } => format!(
            "--window: {} is not a multiple of {} from {} to {}",
            power_name(given),
            power_name(slide),
            power_name(slide),
            power_name(most)
        ),
        JobRefusal::CannotWindow { why, .. } if n <= config.job_max_n => {
            format!("--window: {why}; leave --window out to keep every value (up to {keep_all} heaps)")
        }
        JobRefusal::CannotWindow { why, .. } => format!(
            "--to: {why}, and keeping every value a run goes to {keep_all} heaps at most (--to {keep_all})"
        ),
    }
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
    at: &StoreAt,
    new: NewJob,
    values: Option<(PathBuf, &'static str)>,
    note: Notes,
) -> Result<(ExitCode, Option<String>), Fail> {
    let n = args.to;
    let state = AppState::new(config);
    state.set_store(store.clone());
    let (job, start) = find_or_submit(store, &state, args, at, &new, note).await?;
    let id = job.id.clone();

    if job.status != JobStatus::Done {
        let workers = Workers::start(&state);
        state.job_notify.notify_one();
        let checkpoint = state.config.job_checkpoint;
        let watched = watch(store, &job, n, start, args.quiet, checkpoint).await;
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

    print_result(store, &state, args, &id, values, note).await
}

/// The run's job: the same run found in the store (a shorter window run extended), or
/// submitted; and the heap its progress starts at (what the store holds of the game).
async fn find_or_submit(
    store: &Store,
    state: &AppState,
    args: &OctalArgs,
    at: &StoreAt,
    new: &NewJob,
    note: Notes,
) -> Result<(Job, u64), Fail> {
    let canonical = args.code.canonical.clone();
    let n = args.to;
    let store_values = new.keep_window.is_some() && new.store_values;
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
    let kept = new.keep_window.filter(|&w| w < n);
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
                at.shown(),
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
                    at.shown()
                ));
            } else if job.computed > 0 {
                note.say(format_args!(
                    "resuming at heap {} of {n} (job {}, {})",
                    job.computed.min(n),
                    job.id,
                    at.shown()
                ));
            }
            job
        }
        None => {
            let id = uuid::Uuid::new_v4().to_string();
            let anyone = Caller::Anyone { writes: true };
            let job = match SequenceJob::submit(&anyone, store, new, &id).await? {
                Submission::Created(job) | Submission::Joined(job) => *job,
                Submission::OverQuota(q) => return Err(Fail::Other(q.detail)),
            };
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
                    at.shown(),
                    job.id
                ));
            }
            job
        }
    };
    Ok((job, start))
}

/// What a finished run prints: its values written (`--values`), a range of them
/// (`--from`/`--count`), or the verdict and statistics (with `--rare`, the rare heaps); the
/// exit code and the summary's CPU time and threads.
async fn print_result(
    store: &Store,
    state: &AppState,
    args: &OctalArgs,
    id: &str,
    values: Option<(PathBuf, &'static str)>,
    note: Notes,
) -> Result<(ExitCode, Option<String>), Fail> {
    let canonical = args.code.canonical.clone();
    let n = args.to;
    let job = store
        .get_job(id)
        .await?
        .ok_or_else(|| Fail::Other(format!("job {id} vanished from the store")))?;
    let (job_json, statistics) = documents(store, job).await?;
    let router = super::build(state.clone());
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
        print_range(&router, &canonical, a, k, accept).await?;
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
