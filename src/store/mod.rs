//! The durable store: computed G-sequences and long-running jobs, in embedded SQLite by
//! default or PostgreSQL when `GRUNDY_DATABASE_URL` says `postgres://…`.
//!
//! One code path serves both through sqlx's `Any` driver: the schema uses only portable types
//! (BIGINT, TEXT, DOUBLE PRECISION, BLOB/BYTEA) and `$n` placeholders, which SQLite accepts
//! too. The two differ only in their migration folders and in how a job is claimed
//! (`FOR UPDATE SKIP LOCKED` needs PostgreSQL; SQLite serialises writers anyway).
//!
//! **Jobs.** The lifecycle is written once, for every kind: `jobs.rs` (the row, the lease half
//! of a checkpoint, the cancel every kind shares, the reads and the list), `queue.rs` (claimed
//! with a lease, re-registered, given back, cancelled, deleted), `owners.rs` (every submission
//! admitted within its owner's quotas), `tx.rs` (its write transactions). A kind is one type,
//! declared in its own file with its rows, implementing the traits of `kind.rs` where it
//! differs: [`JobRows`] (what its submission inserts, through [`Store::create_rows`]) and, for
//! a value of `jobs.kind`, `StoredKind` (what the queue does differently for its jobs: a claim
//! that waits, what goes with a cancelled or deleted job).
//!
//! | kind | file | `JobRows` | `StoredKind` | its own rows |
//! | --- | --- | --- | --- | --- |
//! | [`SequenceJob`] | `sequence_jobs.rs` | one job | deleted with its window's chunks | checkpoint (values, window, statistics), finish |
//! | [`QuotientJob`] | `misere_jobs.rs` | one job, or the owner's job joined | waits while its quotient is computed; cancelled with its saved state | progress, saved state, finish with the quotient |
//! | [`CensusMemberJob`] | `census.rs` | the census, its members' jobs, the links | — (its jobs are `sequence` rows) | reads, verification jobs, cancel, delete |
//!
//! **A fourth kind** is one file here: `<kind>_jobs.rs` declaring its type, with its rows
//! (insert, checkpoint, finish — each as one write transaction conditional on the lease, the
//! lease half from `jobs.rs`), its `JobRows` and, if it has a value of its own in `jobs.kind`
//! (a `JobKind` variant, and a migration for any column or table of its own), its
//! `StoredKind` with an arm in `queue.rs`'s `with_kind!`. Its submission and run are a file in
//! `crate::service::jobs`, which says how.

mod census; // censuses: one job per code created together (the census-member kind), and their verification jobs
pub mod chunk; // the encoding of one stored chunk of a G-sequence
mod file; // what an SQLite file is before a store opens it: absent, empty, ours, or why not
mod health; // the store's health as this replica sees it: faults, stalled jobs, their logging
mod jobs; // every kind's job: the row, checkpoints' lease, the shared cancel, reads and the list
mod kind; // a kind's rows: JobRows (a submission, Store::create_rows) and StoredKind (the queue's hooks)
mod misere_jobs; // misère-quotient jobs: one computation per quotient, saved states
mod owners; // jobs that belong to someone: a submission admitted within its owner's quotas
mod queue; // the queue, for every kind: claim with a lease, restore, release, requeue, cancel, delete
mod quotients; // verified misère quotients, one row per (code, bound), computed once per store
mod sequence_jobs; // octal-sequence jobs: inserted (alone, owned, a census's), checkpointed, finished
mod sequences; // stored G-sequences and their proved periodicity
mod tx; // write transactions never pooled in an unknown state
mod windows; // a window-mode job's values (every one on disk) and engine state

pub use census::{
    Census, CensusCounts, CensusLink, CensusMemberJob, CensusMembers, CensusRole, NewCensus,
};
pub use chunk::CHUNK;
pub use file::{inspect_sqlite_file, sqlite_schema_version, NotAStore, StoreFile};
pub use health::{Fault, FaultKind, Stall};
pub(crate) use jobs::count_finished;
pub use jobs::{Checkpoint, Job, JobFilter, JobKind, JobStatus, RunRecord};
pub use kind::{Admission, JobRows};
pub use misere_jobs::{QuotientCheckpoint, QuotientJob, QuotientProgress};
pub use owners::{JobQuota, Refusal, DAY_MS};
pub use quotients::{QuotientRecord, StoredQuotientInfo};
pub use sequence_jobs::{CheckpointArgs, NewJob, SequenceJob};
pub use sequences::{tail_offset, PeriodicityRecord, SequenceExtent, StoredSequence};
pub use windows::{
    ArchiveDamage, ArchiveReport, StoredWindow, WindowState, WindowValues, WindowWrite,
};

use sqlx::any::AnyPoolOptions;
use sqlx::{AnyPool, Connection, Executor};
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, RwLock, Weak};
use std::time::Duration;

use health::Health;

/// Which database is behind the pool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// Store failures. The API maps them to 503 (the store is a dependency, not the input).
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("unsupported database URL {0:?}: expected sqlite:… or postgres://…")]
    UnsupportedUrl(String),
    #[error("database error: {0}")]
    Db(#[from] sqlx::Error),
    #[error("migration failed: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    #[error("cannot create the database directory {path}: {source}")]
    Dir {
        path: String,
        source: std::io::Error,
    },
    #[error("stored data is corrupt: {0}")]
    Corrupt(String),
    /// Values could not be encoded for storing (compression failed).
    #[error("cannot encode values for the store: {0}")]
    Encode(String),
    /// A write of values from `offset` on found fewer than `offset` values stored (the store
    /// was wiped or replaced): the writer must write from 0.
    #[error("{code}: {stored} values stored, a write from {offset} needs the prefix")]
    PrefixMissing {
        code: String,
        stored: u64,
        offset: u64,
    },
}

impl StoreError {
    /// What kind of failure this is (the metric label; the API's status follows from it).
    pub fn kind(&self) -> FaultKind {
        match self {
            StoreError::Db(e) => db_error_kind(e),
            StoreError::Migrate(sqlx::migrate::MigrateError::Execute(e)) => db_error_kind(e),
            StoreError::Migrate(_) => FaultKind::Schema,
            StoreError::Dir { .. } => FaultKind::Permission,
            StoreError::UnsupportedUrl(_) | StoreError::Corrupt(_) | StoreError::Encode(_) => {
                FaultKind::Other
            }
            StoreError::PrefixMissing { .. } => FaultKind::Schema,
        }
    }
}

fn db_error_kind(e: &sqlx::Error) -> FaultKind {
    use sqlx::Error as E;
    match e {
        E::Io(_) | E::Tls(_) | E::Protocol(_) | E::PoolTimedOut | E::PoolClosed => {
            FaultKind::Unavailable
        }
        E::WorkerCrashed | E::BeginFailed => FaultKind::Unavailable,
        E::Database(db) => {
            let code = db.code().map(|c| c.into_owned()).unwrap_or_default();
            let msg = db.message();
            let sqlite = db.try_downcast_ref::<sqlx::sqlite::SqliteError>().is_some();
            if let (true, Ok(n)) = (sqlite, code.parse::<i64>()) {
                // SQLite: the extended result code; the primary code is its low byte.
                match n & 0xff {
                    13 => FaultKind::Full,
                    5 | 6 => FaultKind::Busy,
                    3 | 8 | 14 | 23 => FaultKind::Permission,
                    10 | 11 | 26 => FaultKind::Io,
                    1 if msg.contains("no such table") => FaultKind::Schema,
                    _ => FaultKind::Other,
                }
            } else {
                // PostgreSQL: the SQLSTATE.
                match code.as_str() {
                    "53100" | "53200" | "53400" => FaultKind::Full,
                    "42P01" | "3D000" | "3F000" => FaultKind::Schema,
                    "42501" | "28000" | "28P01" | "25006" => FaultKind::Permission,
                    "57014" | "55P03" | "40001" | "40P01" => FaultKind::Busy,
                    "XX001" | "XX002" | "58030" => FaultKind::Io,
                    c if c.starts_with("08") || c.starts_with("57P") || c == "53300" => {
                        FaultKind::Unavailable
                    }
                    _ => FaultKind::Other,
                }
            }
        }
        _ => FaultKind::Other,
    }
}

/// A connection pool plus the backend it talks to, the store's health, and the background
/// monitor that repairs it (see [`Store::connect`]). Clones share all of it.
#[derive(Clone)]
pub struct Store {
    inner: Arc<Inner>,
}

struct Inner {
    /// Replaced when an SQLite file is deleted or replaced under the running process.
    pool: RwLock<AnyPool>,
    backend: Backend,
    /// The URL as connected (with `mode=rwc` for SQLite).
    url: String,
    health: Health,
    /// Bumped whenever the database may have lost data (schema re-applied, file reopened):
    /// writers then write their whole state again instead of a tail.
    epoch: AtomicU64,
    /// SQLite only: the database file and the identity (device, inode) it had when opened.
    sqlite_file: Option<std::path::PathBuf>,
    sqlite_identity: std::sync::Mutex<Option<(u64, u64)>>,
    /// Test hook: `PRAGMA max_page_count` applied on every acquire when positive.
    max_pages: Arc<AtomicI64>,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("backend", &self.inner.backend)
            .field("fault", &self.inner.health.fault())
            .finish_non_exhaustive()
    }
}

static SQLITE_MIGRATIONS: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/sqlite");
static POSTGRES_MIGRATIONS: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/postgres");

/// Milliseconds since the Unix epoch: the store's only time type, portable across backends.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// (device, inode) of a file, to notice it being deleted or replaced.
fn file_identity(path: &std::path::Path) -> Option<(u64, u64)> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
    }
    #[cfg(not(unix))]
    {
        std::fs::metadata(path).ok().map(|_| (0, 0))
    }
}

async fn open_pool(
    backend: Backend,
    url: &str,
    max_pages: Arc<AtomicI64>,
) -> Result<AnyPool, StoreError> {
    let mut options = AnyPoolOptions::new()
        .acquire_timeout(Duration::from_secs(5))
        // A connection whose transaction state is uncertain (a failed COMMIT or ROLLBACK leaves
        // sqlx's idea of it out of step with the database's) is closed, never pooled: reused,
        // its later statements would run inside a transaction nobody commits. See
        // `tx::WriteTx` for the explicit handling; this is the safety net for every other path.
        .after_release(|conn, _| Box::pin(async move { Ok(!conn.is_in_transaction()) }));
    options = match backend {
        // SQLite has one writer at a time; a small pool avoids lock contention, and WAL
        // lets readers proceed during a checkpoint write.
        Backend::Sqlite => options
            .max_connections(4)
            .after_connect({
                let max_pages = max_pages.clone();
                move |conn, _| {
                    let pages = max_pages.load(Ordering::Relaxed);
                    Box::pin(async move {
                        conn.execute("PRAGMA journal_mode=WAL").await?;
                        conn.execute("PRAGMA busy_timeout=10000").await?;
                        conn.execute("PRAGMA synchronous=NORMAL").await?;
                        if pages > 0 {
                            conn.execute(&*format!("PRAGMA max_page_count={pages}"))
                                .await?;
                        }
                        Ok(())
                    })
                }
            })
            .before_acquire(move |conn, _| {
                let pages = max_pages.load(Ordering::Relaxed);
                Box::pin(async move {
                    if pages > 0 {
                        conn.execute(&*format!("PRAGMA max_page_count={pages}"))
                            .await?;
                    }
                    Ok(true)
                })
            }),
        Backend::Postgres => options.max_connections(10),
    };
    let pool = options.connect(url).await?;
    migrate(backend, &pool).await?;
    Ok(pool)
}

async fn migrate(backend: Backend, pool: &AnyPool) -> Result<(), StoreError> {
    match backend {
        Backend::Sqlite => SQLITE_MIGRATIONS.run(pool).await?,
        Backend::Postgres => POSTGRES_MIGRATIONS.run(pool).await?,
    }
    Ok(())
}

impl Store {
    /// Connects (creating an SQLite file and its directory if needed) and runs migrations,
    /// then starts the monitor: while the store is faulty it probes it with back-off (so the
    /// fault clears even when nothing else writes), re-applies the migrations when the schema
    /// is gone (a dropped and recreated database), and reopens an SQLite file that was deleted
    /// or replaced under the running process.
    pub async fn connect(url: &str) -> Result<Store, StoreError> {
        sqlx::any::install_default_drivers();
        let mut sqlite_file = None;
        let (backend, url) = if let Some(rest) = url.strip_prefix("sqlite:") {
            let path = rest.trim_start_matches("//");
            let file = path.split('?').next().unwrap_or(path);
            if file != ":memory:" && !file.is_empty() {
                if let Some(dir) = std::path::Path::new(file)
                    .parent()
                    .filter(|d| !d.as_os_str().is_empty())
                {
                    std::fs::create_dir_all(dir).map_err(|source| StoreError::Dir {
                        path: dir.display().to_string(),
                        source,
                    })?;
                }
                sqlite_file = Some(std::path::PathBuf::from(file));
            }
            let url = if url.contains("mode=") {
                url.to_owned()
            } else if url.contains('?') {
                format!("{url}&mode=rwc")
            } else {
                format!("{url}?mode=rwc")
            };
            (Backend::Sqlite, url)
        } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            (Backend::Postgres, url.to_owned())
        } else {
            return Err(StoreError::UnsupportedUrl(url.to_owned()));
        };
        let max_pages = Arc::new(AtomicI64::new(0));
        let pool = open_pool(backend, &url, max_pages.clone()).await?;
        let identity = sqlite_file.as_deref().and_then(file_identity);
        let store = Store {
            inner: Arc::new(Inner {
                pool: RwLock::new(pool),
                backend,
                url,
                health: Health::default(),
                epoch: AtomicU64::new(0),
                sqlite_file,
                sqlite_identity: std::sync::Mutex::new(identity),
                max_pages,
            }),
        };
        tokio::spawn(monitor(Arc::downgrade(&store.inner)));
        Ok(store)
    }

    pub fn backend(&self) -> Backend {
        self.inner.backend
    }

    /// A cheap round trip plus a check that the schema is there, for `/readyz`.
    pub async fn ping(&self) -> Result<(), StoreError> {
        let r = async {
            for table in ["jobs", "sequences", "sequence_chunks"] {
                sqlx::query(&format!("SELECT 1 FROM {table} LIMIT 1"))
                    .fetch_optional(&self.pool())
                    .await?;
            }
            Ok(())
        }
        .await;
        self.track_read(r)
    }

    /// The current fault, if writes are failing.
    pub fn fault(&self) -> Option<Fault> {
        self.inner.health.fault()
    }

    /// Why a job running on this replica cannot save its progress, if it cannot.
    pub fn stall(&self, job: &str) -> Option<Stall> {
        self.inner.health.stall(job)
    }

    pub fn set_stall(&self, job: &str, stall: Stall) {
        self.inner.health.set_stall(job, stall);
    }

    pub fn clear_stall(&self, job: &str) {
        self.inner.health.clear_stall(job);
    }

    /// Waits until the store's fault starts or clears, or `max` elapses (workers' back-off).
    pub async fn wait_health_change(&self, max: Duration) {
        self.inner.health.changed_or(max).await;
    }

    /// Changes whenever the database may have lost what was written before (see `Inner`).
    pub fn epoch(&self) -> u64 {
        self.inner.epoch.load(Ordering::SeqCst)
    }

    /// Test hook (SQLite): caps the database at `pages` pages (`PRAGMA max_page_count`, applied
    /// to every connection as it is acquired), making it "full" without root; `None` lifts it.
    #[doc(hidden)]
    pub fn set_sqlite_max_pages(&self, pages: Option<i64>) {
        self.inner
            .max_pages
            .store(pages.unwrap_or(4_294_967_294), Ordering::Relaxed);
    }

    /// Test hook: the current connection pool.
    #[doc(hidden)]
    pub fn raw_pool_for_tests(&self) -> AnyPool {
        self.pool()
    }

    /// Closes the store for good (every clone of it): an SQLite file is checkpointed first, so
    /// that once its last connection closes the file alone holds everything, with no `-wal`
    /// or `-shm` beside it (`grundy octal`: a run's file can be copied on its own).
    pub async fn close(&self) {
        let pool = self.pool();
        if self.inner.backend == Backend::Sqlite {
            let _ = sqlx::query("PRAGMA wal_checkpoint(TRUNCATE)")
                .execute(&pool)
                .await;
        }
        pool.close().await;
    }

    pub(crate) fn pool(&self) -> AnyPool {
        self.inner
            .pool
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Counts an error of a read (a read's success says nothing about writes).
    pub(crate) fn track_read<T>(&self, r: Result<T, StoreError>) -> Result<T, StoreError> {
        match &r {
            // Expected after a wipe, and handled by the writer (it writes everything again).
            Err(StoreError::PrefixMissing { .. }) | Ok(_) => {}
            Err(e) => self.inner.health.record_error(e),
        }
        r
    }

    /// Runs an UPDATE of one row on the pool, its errors counted as a write's
    /// ([`Self::track_write`]): whether it changed the row.
    pub(crate) async fn update_one<'q>(
        &self,
        query: sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments<'q>>,
    ) -> Result<bool, StoreError> {
        let r = query.execute(&self.pool()).await;
        let r = self.track_write(r.map_err(StoreError::from))?;
        Ok(r.rows_affected() == 1)
    }

    /// Counts an error of a write that may have changed nothing (its success proves little:
    /// an UPDATE matching no row commits even on a full disk).
    pub(crate) fn track_write<T>(&self, r: Result<T, StoreError>) -> Result<T, StoreError> {
        self.track_read(r)
    }

    /// Counts an error of a write, or clears the fault after a write that committed changes.
    pub(crate) fn track_commit<T>(&self, r: Result<T, StoreError>) -> Result<T, StoreError> {
        match &r {
            Ok(_) => self.inner.health.record_write_ok(),
            Err(StoreError::PrefixMissing { .. }) => {}
            Err(e) => self.inner.health.record_error(e),
        }
        r
    }

    /// [`Store::track_commit`] for an answer that `wrote` says committed changes, else
    /// [`Store::track_write`] (a refusal, a lost lease: nothing was written).
    pub(crate) fn track_if<T>(
        &self,
        r: Result<T, StoreError>,
        wrote: impl FnOnce(&T) -> bool,
    ) -> Result<T, StoreError> {
        if matches!(&r, Ok(v) if wrote(v)) {
            self.track_commit(r)
        } else {
            self.track_write(r)
        }
    }

    /// A committed write that leaves nothing behind (its rows are deleted in the same
    /// transaction, but the pages are written): it fails when the store could not take the
    /// writes a job makes — no space for a 64 KiB chunk, a missing table, a revoked privilege
    /// on any of the three tables, an unreachable server.
    async fn probe_write(&self) -> Result<(), StoreError> {
        let mut tx = self.begin_write().await?;
        let r = async {
            let c = tx.conn();
            sqlx::query(
                "INSERT INTO sequences (code, computed, periodicity, updated_at) VALUES ('~probe', 0, NULL, 0)",
            )
            .execute(&mut *c)
            .await?;
            sqlx::query("UPDATE sequences SET updated_at = 1 WHERE code = '~probe'")
                .execute(&mut *c)
                .await?;
            sqlx::query("INSERT INTO sequence_chunks (code, chunk, data) VALUES ('~probe', 0, $1)")
                .bind(vec![0u8; 65_536])
                .execute(&mut *c)
                .await?;
            sqlx::query(
                "INSERT INTO jobs (id, code, max_n, status, computed, cancel_requested, attempts, created_at, updated_at) \
                 VALUES ('~probe', '~probe', 0, 'done', 0, 0, 0, 0, 0)",
            )
            .execute(&mut *c)
            .await?;
            sqlx::query("UPDATE jobs SET updated_at = 1 WHERE id = '~probe'")
                .execute(&mut *c)
                .await?;
            for sql in [
                "DELETE FROM jobs WHERE id = '~probe'",
                "DELETE FROM sequence_chunks WHERE code = '~probe'",
                "DELETE FROM sequences WHERE code = '~probe'",
            ] {
                sqlx::query(sql).execute(&mut *c).await?;
            }
            Ok(())
        }
        .await;
        tx.finish(r).await
    }

    /// Re-applies the migrations after the schema vanished: through the migrator (which runs
    /// them all when its own table went with the rest, as after `DROP DATABASE`), then each
    /// migration's SQL once more, since the migrator skips what it recorded as applied while
    /// a table may still be gone. They are idempotent (`IF NOT EXISTS`), and must stay so;
    /// SQLite has no `ADD COLUMN IF NOT EXISTS`, so there each column has a migration of its
    /// own and a "duplicate column" on running it again means it is already applied.
    async fn remigrate(&self) -> Result<(), StoreError> {
        let pool = self.pool();
        migrate(self.inner.backend, &pool).await?;
        let migrator = match self.inner.backend {
            Backend::Sqlite => &SQLITE_MIGRATIONS,
            Backend::Postgres => &POSTGRES_MIGRATIONS,
        };
        for m in migrator.iter() {
            match pool.execute(&*m.sql).await {
                Ok(_) => {}
                Err(sqlx::Error::Database(e))
                    if self.inner.backend == Backend::Sqlite
                        && e.message().contains("duplicate column name") => {}
                Err(e) => return Err(e.into()),
            }
        }
        self.inner.epoch.fetch_add(1, Ordering::SeqCst);
        tracing::warn!("store schema was missing; migrations re-applied, running jobs re-register");
        Ok(())
    }

    /// SQLite: whether the file at the path is no longer the one this pool has open.
    fn sqlite_file_replaced(&self) -> bool {
        match &self.inner.sqlite_file {
            Some(path) => {
                file_identity(path)
                    != *self
                        .inner
                        .sqlite_identity
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
            }
            None => false,
        }
    }
}

/// The monitor of [`Store::connect`]: ends when the last clone of the store is dropped.
async fn monitor(weak: Weak<Inner>) {
    let mut backoff = Duration::from_millis(250);
    loop {
        let wait = {
            let Some(inner) = weak.upgrade() else { return };
            if inner.health.fault().is_some() {
                backoff
            } else {
                backoff = Duration::from_millis(250);
                Duration::from_secs(1)
            }
        };
        {
            // Wake early when a fault starts; hold no strong reference while waiting.
            let notified = {
                let Some(inner) = weak.upgrade() else { return };
                let inner2 = inner.clone();
                async move { inner2.health.changed_or(wait).await }
            };
            notified.await;
        }
        let Some(inner) = weak.upgrade() else { return };
        let store = Store { inner };
        if store.sqlite_file_replaced() {
            reopen_sqlite(&store).await;
            continue;
        }
        let Some(fault) = store.fault() else { continue };
        if fault.kind == FaultKind::Schema {
            if let Err(e) = store.remigrate().await {
                store.inner.health.record_error(&e);
            }
        }
        let probe = store.probe_write().await;
        match store.track_commit(probe) {
            Ok(()) => {}
            // The schema is gone (the fault's last error may have been another kind, e.g. a
            // pool timeout while the database was being recreated): re-apply it now.
            Err(e) if e.kind() == FaultKind::Schema && fault.kind != FaultKind::Schema => {
                if let Err(e) = store.remigrate().await {
                    store.inner.health.record_error(&e);
                }
            }
            Err(_) => backoff = (backoff * 2).min(Duration::from_secs(5)),
        }
    }
}

/// An SQLite file deleted or replaced under the running process: the open connections still
/// write to the old inode (lost at the next restart). Close the old pool first (its last
/// connection checkpoints and removes the old `-wal`, which must never be read as the new
/// file's), then open a new pool on the path (creating the file and schema if needed), swap it
/// in, and bump the epoch so running jobs write their whole state again.
async fn reopen_sqlite(store: &Store) {
    let inner = &store.inner;
    let Some(path) = inner.sqlite_file.clone() else {
        return;
    };
    tracing::error!(path = %path.display(),
        "the SQLite file was deleted or replaced while running; reopening it");
    metrics::counter!("grundy_store_errors_total", "kind" => "replaced").increment(1);
    let old = store.pool();
    if tokio::time::timeout(Duration::from_secs(10), old.close())
        .await
        .is_err()
    {
        tracing::warn!("old SQLite connections did not close within 10 s");
    }
    if file_identity(&path).is_none() {
        // Orphans of the deleted file (normally already removed by the last close).
        for suffix in ["-wal", "-shm"] {
            let mut p = path.clone().into_os_string();
            p.push(suffix);
            let _ = std::fs::remove_file(p);
        }
    }
    match open_pool(inner.backend, &inner.url, inner.max_pages.clone()).await {
        Ok(pool) => {
            *inner.pool.write().unwrap_or_else(|e| e.into_inner()) = pool;
            *inner
                .sqlite_identity
                .lock()
                .unwrap_or_else(|e| e.into_inner()) = file_identity(&path);
            inner.epoch.fetch_add(1, Ordering::SeqCst);
            tracing::info!(path = %path.display(), "SQLite file reopened; running jobs re-register");
        }
        Err(e) => inner.health.record_error(&e),
    }
}
