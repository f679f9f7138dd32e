//! `grundy runs`: the runs `grundy octal` kept in its stores — listed, shown again from the
//! store without computing anything, deleted. Without `--store`, every `octal-*.db` of the
//! current directory (the files `grundy octal` names after their games).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde_json::json;

use super::cli::{exit, plural, power_name, Fail};
use super::report::{documents, report};
use crate::store::{
    inspect_sqlite_file, Job, JobKind, JobStatus, PeriodicityRecord, Store, StoreFile,
};

/// `grundy runs`' arguments.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Examples:
  grundy runs                             # every run of every octal-*.db here
  grundy runs --store octal-0.167.db      # the runs of one store
  grundy runs show 3f2a                   # a run's result again (an id or its first characters)
  grundy runs delete 3f2a                 # a run deleted (a run keeping every value leaves the
                                          # game's stored values to its other runs)")]
pub struct RunsArgs {
    #[command(subcommand)]
    pub command: Option<RunsCommand>,
    /// The store (default: every octal-*.db in the current directory).
    #[arg(long, value_name = "PATH", global = true)]
    pub store: Option<PathBuf>,
}

#[derive(Debug, clap::Subcommand)]
pub enum RunsCommand {
    /// List the runs (the default): id, game, heaps, kept values, status, verdict.
    List,
    /// Print a run's result again, as `grundy octal` did, from its store: nothing is computed.
    Show {
        /// The run's job id, or its first characters.
        id: String,
        /// The job and its statistics as JSON, as `grundy octal --json` prints them.
        #[arg(long)]
        json: bool,
    },
    /// Delete a finished or stopped run: its job, and a window run's archive.
    Delete {
        /// The run's job id, or its first characters.
        id: String,
    },
}

/// `grundy runs …`: its exit code (0 done, 1 failed, 2 bad input).
pub async fn runs(args: RunsArgs) -> ExitCode {
    exit("grundy runs", run(args).await)
}

async fn run(args: RunsArgs) -> Result<ExitCode, Fail> {
    let stores = stores(args.store.as_deref()).await?;
    match args.command.unwrap_or(RunsCommand::List) {
        RunsCommand::List => {
            let mut out = String::new();
            for path in &stores {
                let store = open(path).await?;
                let jobs = all_runs(&store).await;
                store.close().await;
                out.push_str(&listing(path, &jobs?));
            }
            if stores.is_empty() {
                out.push_str("no octal-*.db here (grundy octal CODE --to N makes one; --store names another)\n");
            }
            print(&out)
        }
        RunsCommand::Show { id, json } => {
            let (_, store, job) = find(&stores, &id).await?;
            let shown = show(&store, &job, json).await;
            store.close().await;
            print(&shown?)
        }
        RunsCommand::Delete { id } => {
            let (path, store, job) = find(&stores, &id).await?;
            let deleted = if job.status.is_final() {
                store.delete_job(&job.id).await.map_err(Fail::from)
            } else {
                Ok(false)
            };
            store.close().await;
            if !deleted? {
                return Err(Fail::Input(format!(
                    "{}: run {} is {}: only a finished or stopped run is deleted (it runs: stop it first)",
                    path.display(),
                    job.id,
                    job.status.as_str()
                )));
            }
            print(&format!(
                "deleted run {} ({}, heaps 0 … {}) from {}\n",
                job.id,
                job.code,
                job.max_n.saturating_sub(1),
                path.display()
            ))
        }
    }
}

fn print(text: &str) -> Result<ExitCode, Fail> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(|e| Fail::Other(format!("stdout: {e}")))?;
    Ok(ExitCode::SUCCESS)
}

/// The stores asked for: `--store`, which must be a grundy store, or every `octal-*.db` here.
async fn stores(store: Option<&Path>) -> Result<Vec<PathBuf>, Fail> {
    if let Some(path) = store {
        return match inspect_sqlite_file(path).await {
            Ok(StoreFile::Grundy { .. }) => Ok(vec![path.to_owned()]),
            Ok(_) => Err(Fail::Input(format!(
                "--store {}: no such store",
                path.display()
            ))),
            Err(e) => Err(Fail::Input(format!("--store {}: {e}", path.display()))),
        };
    }
    let mut found = Vec::new();
    let dir = std::fs::read_dir(".").map_err(|e| Fail::Other(format!("this folder: {e}")))?;
    for entry in dir.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with("octal-") && name.ends_with(".db") {
            let path = PathBuf::from(name);
            if matches!(
                inspect_sqlite_file(&path).await,
                Ok(StoreFile::Grundy { .. })
            ) {
                found.push(path);
            }
        }
    }
    found.sort();
    Ok(found)
}

async fn open(path: &Path) -> Result<Store, Fail> {
    Store::connect(&format!("sqlite://{}", path.display()))
        .await
        .map_err(|e| Fail::Input(format!("--store {}: {e}", path.display())))
}

/// Every run of a store, newest first.
async fn all_runs(store: &Store) -> Result<Vec<Job>, Fail> {
    let mut jobs = Vec::new();
    let mut after = None;
    loop {
        let page = store
            .list_jobs_where(None, Some(JobKind::Sequence), 1000, after)
            .await?;
        after = page.last().map(|j| (j.created_at, j.id.clone()));
        let last = page.len() < 1000;
        jobs.extend(page);
        if last {
            return Ok(jobs);
        }
    }
}

/// The run whose id is `id` or starts with it, in one of `stores`.
async fn find(stores: &[PathBuf], id: &str) -> Result<(PathBuf, Store, Job), Fail> {
    let mut found: Vec<(PathBuf, Job)> = Vec::new();
    for path in stores {
        let store = open(path).await?;
        let jobs = all_runs(&store).await;
        store.close().await;
        found.extend(
            jobs?
                .into_iter()
                .filter(|j| !id.is_empty() && j.id.starts_with(id))
                .map(|j| (path.clone(), j)),
        );
    }
    match found.len() {
        0 => Err(Fail::Input(format!("no run {id} (grundy runs lists them)"))),
        1 => {
            let (path, job) = found.remove(0);
            let store = open(&path).await?;
            Ok((path, store, job))
        }
        n => Err(Fail::Input(format!(
            "{id} names {n} runs: give more of the id"
        ))),
    }
}

/// The table of one store's runs.
fn listing(path: &Path, jobs: &[Job]) -> String {
    use std::fmt::Write as _;
    let size = std::fs::metadata(path).map_or(0, |m| m.len());
    let mut s = format!(
        "{} ({:.1} MB, {}):\n",
        path.display(),
        size as f64 / 1e6,
        plural(jobs.len() as u64, "run")
    );
    if !jobs.is_empty() {
        let _ = writeln!(
            s,
            "  {:<8}  {:<10} {:>14} {:>12}  {:<9} verdict",
            "id", "game", "heaps", "kept", "status"
        );
    }
    for j in jobs {
        let kept = j.keep_window.map_or("every value".to_owned(), |w| {
            format!("window {}", power_name(w))
        });
        let _ = writeln!(
            s,
            "  {:<8}  {:<10} {:>14} {:>12}  {:<9} {}",
            &j.id[..j.id.len().min(8)],
            j.code,
            power_name(j.max_n),
            kept,
            j.status.as_str(),
            verdict(j)
        );
    }
    s
}

/// What a run found: its proof, or how far it got without one.
fn verdict(j: &Job) -> String {
    let proof = j
        .periodicity
        .as_deref()
        .and_then(PeriodicityRecord::from_json)
        .filter(|p| p.period.is_some());
    match (proof, j.status) {
        (Some(p), _) => format!(
            "{}, preperiod {}, period {}, saltus {}",
            p.status,
            p.preperiod.unwrap_or(0),
            p.period.unwrap_or(0),
            p.saltus.unwrap_or(0)
        ),
        (None, JobStatus::Done) => format!("no period up to {}", j.max_n),
        (None, JobStatus::Failed) => format!("failed: {}", j.error.as_deref().unwrap_or("–")),
        (None, JobStatus::Cancelled) => "cancelled".to_owned(),
        (None, _) => format!(
            "stopped at heap {} (grundy octal {} --to {} resumes it)",
            j.computed.min(j.max_n),
            j.code,
            j.max_n
        ),
    }
}

/// A run's result again, as `grundy octal` printed it: the same documents and report.
async fn show(store: &Store, job: &Job, as_json: bool) -> Result<String, Fail> {
    let (job_json, statistics) = documents(store, job.clone()).await?;
    Ok(if as_json {
        format!("{}\n", json!({"job": job_json, "statistics": statistics}))
    } else {
        report(
            &job.code,
            job.computed.min(job.max_n),
            &job_json,
            &statistics,
        )
    })
}
