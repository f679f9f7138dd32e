//! The store a command keeps its runs in (`--store`): an SQLite file, or a PostgreSQL
//! database (`postgres://…`) that processes on several machines share. Checked before any
//! work, opened, and closed whole on every way out (the WAL checkpointed: the file alone holds
//! the run).
//!
//! Who computes: on a file, the first process holds an advisory lock on it (beside SQLite's
//! own locks) and runs as [`REPLICA`], taking back at once a run a killed process left; a
//! second one runs under an id of its own, so that it never takes a live process's job: it
//! follows that job, and takes it over only if its lease lapses. On PostgreSQL every process
//! has an id of its own (its host and process id), as the server's replicas do: they share
//! the queue, each claims what is free, and one killed, the others take its jobs once their
//! leases lapse (15 checkpoint intervals: 15 s by default).

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::cli::{Fail, Notes};
use crate::config::{Config, JobThreads};
use crate::store::{inspect_sqlite_file, Store};

/// The replica id of every command on a file store: a run killed with -9 is taken back at
/// once by the next one on the same store (the job workers requeue their own replica's jobs).
const REPLICA: &str = "grundy-octal";

/// Where a command keeps its runs.
#[derive(Debug, Clone)]
pub enum StoreAt {
    /// An SQLite file.
    File(PathBuf),
    /// A PostgreSQL database, by its URL.
    Postgres(String),
}

/// `--store`: a `postgres://` (or `postgresql://`) URL, else a file's path.
pub fn store_at(text: &str) -> Result<StoreAt, String> {
    if text.starts_with("postgres://") || text.starts_with("postgresql://") {
        Ok(StoreAt::Postgres(text.to_owned()))
    } else if text.is_empty() {
        Err("an empty path".to_owned())
    } else {
        Ok(StoreAt::File(PathBuf::from(text)))
    }
}

impl StoreAt {
    /// The store as messages name it: the path, or the URL with its password hidden.
    pub fn shown(&self) -> String {
        match self {
            StoreAt::File(path) => path.display().to_string(),
            StoreAt::Postgres(url) => hide_password(url),
        }
    }

    /// The file, for a file store.
    pub fn path(&self) -> Option<&Path> {
        match self {
            StoreAt::File(path) => Some(path),
            StoreAt::Postgres(_) => None,
        }
    }

    fn url(&self) -> String {
        match self {
            StoreAt::File(path) => format!("sqlite://{}", path.display()),
            StoreAt::Postgres(url) => url.clone(),
        }
    }

    /// Checks made before any work, creating nothing: a file's path is UTF-8 without `?` or
    /// `#`, and is a grundy store of this schema or nothing yet (its folder there).
    pub(super) async fn check(&self) -> Result<(), Fail> {
        let Some(path) = self.path() else {
            return Ok(());
        };
        if path.to_str().is_none_or(|p| p.contains(['?', '#'])) {
            return Err(Fail::Input(format!(
                "--store {}: a path of UTF-8 without ? or #",
                path.display()
            )));
        }
        inspect_sqlite_file(path)
            .await
            .map(|_| ())
            .map_err(|e| Fail::Input(format!("--store {}: {e}", path.display())))
    }

    /// The store's size on disk, for a file store.
    pub(super) fn size(&self) -> Option<u64> {
        self.path()
            .and_then(|p| std::fs::metadata(p).ok())
            .map(|m| m.len())
    }
}

/// `postgres://user:secret@host/db` as `postgres://user:***@host/db`.
fn hide_password(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let Some((userinfo, host)) = rest.split_once('@') else {
        return url.to_owned();
    };
    match userinfo.split_once(':') {
        Some((user, _)) => format!("{scheme}://{user}:***@{host}"),
        None => url.to_owned(),
    }
}

/// This process's replica id on a shared store: its host and process id.
fn own_replica() -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_owned())
        .unwrap_or_default();
    format!("{REPLICA}-{host}-{}", std::process::id())
}

/// The service's configuration for a command on `at`: open access (this process only: it
/// listens nowhere), one job worker, no quotas, checkpoints every second;
/// `GRUNDY_JOB_CHECKPOINT_MS` and `GRUNDY_JOB_PACE` as for the server.
pub(super) fn config_for(at: &StoreAt, threads: Option<u16>) -> Result<Config, Fail> {
    // The checkpoint interval: a second (a stopped run redoes at most that), or
    // GRUNDY_JOB_CHECKPOINT_MS as for the server.
    let checkpoint = std::env::var("GRUNDY_JOB_CHECKPOINT_MS")
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .filter(|ms| (10..=60_000).contains(ms))
        .map_or(Duration::from_secs(1), Duration::from_millis);
    let job_pace = crate::config::job_pace_from_env().map_err(|e| Fail::Input(e.to_string()))?;
    Ok(Config {
        database_url: Some(at.url()),
        addr: ([127, 0, 0, 1], 0).into(),
        auth_off: true,
        api_keys: None,
        job_workers: 1,
        job_threads: threads.map_or(JobThreads::Auto, |t| JobThreads::Fixed(usize::from(t))),
        job_checkpoint: checkpoint,
        job_pace,
        job_lease: checkpoint * 15,
        replica_id: match at {
            StoreAt::File(_) => REPLICA.to_owned(),
            StoreAt::Postgres(_) => own_replica(),
        },
        quota_active_jobs: 0,
        quota_heaps_per_day: 0,
        values_max_count: u64::MAX >> 1,
        request_timeout: Duration::from_secs(24 * 3600),
        ..Config::default()
    })
}

/// A store opened for a command (see the module's text for who computes).
pub(super) struct Opened {
    pub store: Store,
    at: StoreAt,
    lock: Option<std::fs::File>,
    existed: bool,
}

/// Opens `at` (checked before: [`StoreAt::check`]) for `command`; on a file another process
/// computes on, this one takes an id of its own (said).
pub(super) async fn open(
    at: &StoreAt,
    config: &mut Config,
    command: &str,
    note: Notes,
) -> Result<Opened, Fail> {
    let existed = at.path().is_none_or(Path::exists);
    let store = Store::connect(config.database_url.as_deref().unwrap_or_default())
        .await
        .map_err(|e| Fail::Input(format!("--store {}: {e}", at.shown())))?;
    let lock = at.path().and_then(|p| std::fs::File::open(p).ok());
    let alone = lock.as_ref().is_none_or(|f| f.try_lock().is_ok());
    if !alone {
        config.replica_id = own_replica();
        note.say(format_args!(
            "another {command} is running on {}: this one follows it, and takes over its jobs if it stops",
            at.shown()
        ));
    }
    Ok(Opened {
        store,
        at: at.clone(),
        lock,
        existed,
    })
}

impl Opened {
    /// Checkpointed and closed; a file this command created for a run it refused (holding no
    /// job) is removed.
    pub(super) async fn close(self, refused: bool) {
        let empty = refused
            && !self.existed
            && self
                .store
                .list_jobs_where(None, None, 1, None)
                .await
                .is_ok_and(|jobs| jobs.is_empty());
        self.store.close().await;
        drop(self.lock);
        if let (true, Some(path)) = (empty, self.at.path()) {
            for end in ["", "-wal", "-shm"] {
                let mut p = path.to_path_buf().into_os_string();
                p.push(end);
                let _ = std::fs::remove_file(p);
            }
        }
    }
}
