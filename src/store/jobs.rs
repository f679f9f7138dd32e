//! Long-running jobs of every kind: the row (its status, kind and columns), what each kind's
//! checkpoint and cancel build on, and the reads (a job, the filtered list, the counts). The
//! queue that claims, gives back, cancels and deletes them is `queue.rs`.
//!
//! A job is leased to the replica that claimed it: it renews the lease at every checkpoint,
//! and every write it makes is conditional on still owning the lease. So a job is never
//! computed by two replicas at once: a stalled owner's late writes match no row and it stops.
//! The lease half of every kind's checkpoint is here ([`Checkpoint`]); the rest of it is the
//! kind's own (`sequence_jobs.rs`, `misere_jobs.rs`).

use sqlx::any::AnyRow;
use sqlx::Row;

use super::{Store, StoreError};

/// A job's life: queued → running → done | failed | cancelled (running → queued on shutdown).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobStatus {
    Queued,
    Running,
    Done,
    Failed,
    Cancelled,
}

impl JobStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            JobStatus::Queued => "queued",
            JobStatus::Running => "running",
            JobStatus::Done => "done",
            JobStatus::Failed => "failed",
            JobStatus::Cancelled => "cancelled",
        }
    }

    fn parse(s: &str) -> Result<Self, StoreError> {
        Ok(match s {
            "queued" => JobStatus::Queued,
            "running" => JobStatus::Running,
            "done" => JobStatus::Done,
            "failed" => JobStatus::Failed,
            "cancelled" => JobStatus::Cancelled,
            other => return Err(StoreError::Corrupt(format!("unknown job status {other:?}"))),
        })
    }

    pub fn is_final(self) -> bool {
        matches!(
            self,
            JobStatus::Done | JobStatus::Failed | JobStatus::Cancelled
        )
    }
}

/// What a job computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobKind {
    /// The G-sequence of an octal game to `max_n` (`POST /v1/octal/jobs`, a census's jobs).
    Sequence,
    /// The misère quotient `Q_max_n` of a game (`POST /v1/octal/misere/quotient` with
    /// `"async": true`; see `misere_jobs.rs`).
    MisereQuotient,
}

impl JobKind {
    pub const ALL: [JobKind; 2] = [JobKind::Sequence, JobKind::MisereQuotient];

    pub fn as_str(self) -> &'static str {
        match self {
            JobKind::Sequence => "sequence",
            JobKind::MisereQuotient => "misere_quotient",
        }
    }

    /// The kind named `s`, if any.
    pub fn parse(s: &str) -> Option<Self> {
        JobKind::ALL.into_iter().find(|k| k.as_str() == s)
    }
}

/// A job row.
#[derive(Debug, Clone, PartialEq)]
pub struct Job {
    pub id: String,
    pub kind: JobKind,
    pub code: String,
    pub max_n: u64,
    pub status: JobStatus,
    pub computed: u64,
    /// Heaps per second over the last checkpoint interval.
    pub rate: Option<f64>,
    pub error: Option<String>,
    /// The periodicity proof as JSON, once known.
    pub periodicity: Option<String>,
    pub cancel_requested: bool,
    pub lease_owner: Option<String>,
    pub attempts: i64,
    pub created_at: i64,
    pub started_at: Option<i64>,
    pub finished_at: Option<i64>,
    pub updated_at: i64,
    /// Window mode: the values kept behind n and in the front (`None`: every value is kept).
    pub keep_window: Option<u64>,
    /// Whether every value goes to `sequences` (always, unless a window-mode job says not).
    pub store_values: bool,
    /// The name of the API key that submitted the job (`None` on an open server).
    pub owner: Option<String>,
    /// Window mode: bytes the job's chunks take on disk (`windows.rs`), and its read-back
    /// report (JSON).
    pub archive_bytes: u64,
    pub archive: Option<String>,
    /// A misère-quotient job's progress as JSON (`misere_jobs.rs`).
    pub quotient: Option<String>,
    /// The threads the job's engine runs on now, or ran on last (`None` before it first ran).
    pub threads: Option<u64>,
    /// CPU milliseconds the job used in all, over every run (`None`: never measured).
    pub cpu_ms: Option<u64>,
    /// The engine that computed the job's latest values: crate version and git commit.
    pub engine_version: Option<String>,
    pub engine_commit: Option<String>,
}

impl Job {
    /// A job as inserted: queued at `now`, nothing computed, no run yet — what every kind
    /// starts from (its own fields are then set over this).
    pub fn queued(id: &str, kind: JobKind, code: &str, max_n: u64, now: i64) -> Job {
        Job {
            id: id.to_owned(),
            kind,
            code: code.to_owned(),
            max_n,
            status: JobStatus::Queued,
            computed: 0,
            rate: None,
            error: None,
            periodicity: None,
            cancel_requested: false,
            lease_owner: None,
            attempts: 0,
            created_at: now,
            started_at: None,
            finished_at: None,
            updated_at: now,
            keep_window: None,
            store_values: true,
            owner: None,
            archive_bytes: 0,
            archive: None,
            quotient: None,
            threads: None,
            cpu_ms: None,
            engine_version: None,
            engine_commit: None,
        }
    }
}

/// What a run of a job computes on and what it has cost, saved with its checkpoints; `None`
/// keeps what the row holds (a run that never measured CPU time leaves the earlier runs').
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RunRecord<'a> {
    /// The threads the engine runs on now.
    pub threads: Option<u64>,
    /// CPU milliseconds the job used in all: the earlier runs' ([`Job::cpu_ms`]) and this one's.
    pub cpu_ms: Option<u64>,
    /// The engine: crate version and git commit (`grundy::core::octal::ENGINE_VERSION`,
    /// `grundy::process::build::COMMIT`).
    pub engine: Option<(&'a str, &'a str)>,
}

impl<'a> RunRecord<'a> {
    /// The values to bind, in the order of [`run_set`]'s placeholders.
    fn binds(&self) -> (Option<i64>, Option<i64>, Option<&'a str>, Option<&'a str>) {
        let big = |v: u64| i64::try_from(v).unwrap_or(i64::MAX);
        (
            self.threads.map(big),
            self.cpu_ms.map(big),
            self.engine.map(|e| e.0),
            self.engine.map(|e| e.1),
        )
    }
}

/// The `SET` list that saves a [`RunRecord`] bound at `$first..$first + 3`.
pub(super) fn run_set(first: usize) -> String {
    let (a, b, c, d) = (first, first + 1, first + 2, first + 3);
    format!(
        "threads = COALESCE(${a}, threads), cpu_ms = COALESCE(${b}, cpu_ms), \
         engine_version = COALESCE(${c}, engine_version), engine_commit = COALESCE(${d}, engine_commit)"
    )
}

/// Binds a [`RunRecord`] (four placeholders, see [`run_set`]).
pub(super) fn bind_run<'q>(
    q: sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments<'q>>,
    run: &RunRecord<'q>,
) -> sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments<'q>> {
    let (threads, cpu_ms, version, commit) = run.binds();
    q.bind(threads).bind(cpu_ms).bind(version).bind(commit)
}

pub(super) const COLUMNS: &str =
    "id, code, max_n, status, computed, rate, error, periodicity, cancel_requested, \
                       lease_owner, attempts, created_at, started_at, finished_at, updated_at, \
                       keep_window, store_values, owner, archive_bytes, archive, kind, quotient, \
                       threads, cpu_ms, engine_version, engine_commit";

pub(super) fn job_from_row(row: &AnyRow) -> Result<Job, StoreError> {
    let status: String = row.try_get("status")?;
    let kind: String = row.try_get("kind")?;
    Ok(Job {
        id: row.try_get("id")?,
        kind: JobKind::parse(&kind)
            .ok_or_else(|| StoreError::Corrupt(format!("unknown job kind {kind:?}")))?,
        code: row.try_get("code")?,
        max_n: row.try_get::<i64, _>("max_n")?.max(0) as u64,
        status: JobStatus::parse(&status)?,
        computed: row.try_get::<i64, _>("computed")?.max(0) as u64,
        rate: row.try_get("rate")?,
        error: row.try_get("error")?,
        periodicity: row.try_get("periodicity")?,
        cancel_requested: row.try_get::<i64, _>("cancel_requested")? != 0,
        lease_owner: row.try_get("lease_owner")?,
        attempts: row.try_get("attempts")?,
        created_at: row.try_get("created_at")?,
        started_at: row.try_get("started_at")?,
        finished_at: row.try_get("finished_at")?,
        updated_at: row.try_get("updated_at")?,
        keep_window: row
            .try_get::<Option<i64>, _>("keep_window")?
            .map(|w| w.max(0) as u64),
        store_values: row.try_get::<i64, _>("store_values")? != 0,
        owner: row.try_get("owner")?,
        archive_bytes: row.try_get::<i64, _>("archive_bytes")?.max(0) as u64,
        archive: row.try_get("archive")?,
        quotient: row.try_get("quotient")?,
        threads: row
            .try_get::<Option<i64>, _>("threads")?
            .map(|t| t.max(0) as u64),
        cpu_ms: row
            .try_get::<Option<i64>, _>("cpu_ms")?
            .map(|t| t.max(0) as u64),
        engine_version: row.try_get("engine_version")?,
        engine_commit: row.try_get("engine_commit")?,
    })
}

/// The outcome of a checkpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Checkpoint {
    /// Keep going; the lease is renewed.
    Continue,
    /// Someone asked to cancel: stop now.
    Cancel,
    /// The lease was lost (expired and taken over, or the job finished elsewhere): stop.
    Lost,
    /// The job's row is gone (the database was wiped or replaced): nothing was written; the
    /// owner may re-register it with [`Store::restore_job`].
    Missing,
}

impl Checkpoint {
    /// Whether the checkpoint's transaction wrote (and commits): not when the lease is gone.
    pub(super) fn wrote(&self) -> bool {
        matches!(self, Checkpoint::Continue | Checkpoint::Cancel)
    }

    /// The lease half of every kind's checkpoint, on its open transaction: `renewed` is the row
    /// of the `UPDATE … WHERE id AND lease_owner AND status = 'running' RETURNING
    /// cancel_requested` that saved the progress. `Err(Lost | Missing)` when it matched no
    /// row (the caller writes nothing more and rolls back); else the row, to go on.
    pub(super) async fn renewed(
        c: &mut sqlx::AnyConnection,
        job_id: &str,
        renewed: Option<AnyRow>,
    ) -> Result<Result<AnyRow, Checkpoint>, StoreError> {
        if let Some(row) = renewed {
            return Ok(Ok(row));
        }
        let exists = sqlx::query("SELECT 1 AS one FROM jobs WHERE id = $1")
            .bind(job_id)
            .fetch_optional(&mut *c)
            .await?
            .is_some();
        Ok(Err(if exists {
            Checkpoint::Lost
        } else {
            Checkpoint::Missing
        }))
    }

    /// What the renewed row says: stop when a cancel was asked for, else go on.
    pub(super) fn of_row(renewed: &AnyRow) -> Result<Checkpoint, StoreError> {
        let cancel: i64 = renewed.try_get("cancel_requested")?;
        Ok(if cancel != 0 {
            Checkpoint::Cancel
        } else {
            Checkpoint::Continue
        })
    }
}

/// The cancel every kind shares, on an open transaction: the queued jobs that `which` (a
/// condition on `jobs`, with `arg` as `$2`) selects are cancelled at once, the running ones
/// flagged (their workers stop at the next checkpoint); final jobs are left as they are.
/// Returns how many queued jobs it cancelled (for [`count_finished`], once committed).
pub(super) async fn cancel_where(
    c: &mut sqlx::AnyConnection,
    which: &str,
    arg: &str,
    now: i64,
) -> Result<u64, StoreError> {
    let cancelled = sqlx::query(&format!(
        "UPDATE jobs SET status = 'cancelled', finished_at = $1, updated_at = $1, lease_owner = NULL, \
         lease_expires_at = NULL WHERE status = 'queued' AND {which}"
    ))
    .bind(now)
    .bind(arg)
    .execute(&mut *c)
    .await?
    .rows_affected();
    sqlx::query(&format!(
        "UPDATE jobs SET cancel_requested = 1, updated_at = $1 WHERE status = 'running' AND {which}"
    ))
    .bind(now)
    .bind(arg)
    .execute(&mut *c)
    .await?;
    Ok(cancelled)
}

/// Counts `n` jobs ended with `status` in `grundy_jobs_finished_total{status}`: every job that
/// ends is counted once, by whoever ends it — its worker ([`Store::finish_job`]'s caller), or
/// the store when it ends jobs no worker runs (queued jobs cancelled, a census's included;
/// jobs that waited for a misère quotient another job computed; a flagged job whose worker
/// died). Called after the transaction that ended them committed.
pub(crate) fn count_finished(status: JobStatus, n: u64) {
    if n > 0 {
        metrics::counter!("grundy_jobs_finished_total", "status" => status.as_str()).increment(n);
    }
}

/// Which jobs a listing selects: each `None` selects every value of its column.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct JobFilter<'a> {
    /// The name of the API key that submitted them.
    pub owner: Option<&'a str>,
    pub kind: Option<JobKind>,
    pub status: Option<JobStatus>,
}

type AnyQuery<'q> = sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments<'q>>;

impl<'a> JobFilter<'a> {
    /// The filter's conditions, their parameters numbered `$1`, `$2`, … in the order
    /// [`JobFilter::bind`] binds them.
    fn conditions(&self) -> Vec<String> {
        let columns = [
            ("owner", self.owner.is_some()),
            ("kind", self.kind.is_some()),
            ("status", self.status.is_some()),
        ];
        columns
            .into_iter()
            .filter(|(_, on)| *on)
            .enumerate()
            .map(|(i, (column, _))| format!("{column} = ${}", i + 1))
            .collect()
    }

    /// Binds the parameters of [`JobFilter::conditions`].
    fn bind<'q>(&self, mut q: AnyQuery<'q>) -> AnyQuery<'q>
    where
        'a: 'q,
    {
        if let Some(o) = self.owner {
            q = q.bind(o);
        }
        if let Some(k) = self.kind {
            q = q.bind(k.as_str());
        }
        if let Some(s) = self.status {
            q = q.bind(s.as_str());
        }
        q
    }
}

fn where_clause(conds: &[String]) -> String {
    if conds.is_empty() {
        String::new()
    } else {
        format!("WHERE {}", conds.join(" AND "))
    }
}

impl Store {
    pub async fn get_job(&self, id: &str) -> Result<Option<Job>, StoreError> {
        let r = async {
            let row = sqlx::query(&format!("SELECT {COLUMNS} FROM jobs WHERE id = $1"))
                .bind(id)
                .fetch_optional(&self.pool())
                .await?;
            row.as_ref().map(job_from_row).transpose()
        }
        .await;
        self.track_read(r)
    }

    /// Jobs newest first; `after` is the `(created_at, id)` of the last job of the previous page.
    pub async fn list_jobs(
        &self,
        limit: u32,
        after: Option<(i64, String)>,
    ) -> Result<Vec<Job>, StoreError> {
        self.list_jobs_where(None, None, limit, after).await
    }

    /// Jobs of `owner` (`None`: every owner's) and of `kind` (`None`: every kind), newest
    /// first; `after` as for [`Store::list_jobs`].
    pub async fn list_jobs_where(
        &self,
        owner: Option<&str>,
        kind: Option<JobKind>,
        limit: u32,
        after: Option<(i64, String)>,
    ) -> Result<Vec<Job>, StoreError> {
        let filter = JobFilter {
            owner,
            kind,
            status: None,
        };
        self.list_jobs_filtered(filter, limit, after).await
    }

    /// The jobs `filter` selects, newest first; `after` as for [`Store::list_jobs`].
    pub async fn list_jobs_filtered(
        &self,
        filter: JobFilter<'_>,
        limit: u32,
        after: Option<(i64, String)>,
    ) -> Result<Vec<Job>, StoreError> {
        let r = async {
            let mut conds = filter.conditions();
            let mut n = conds.len();
            let mut mark = || {
                n += 1;
                format!("${n}")
            };
            if after.is_some() {
                let (a, b) = (mark(), mark());
                conds.push(format!("(created_at < {a} OR (created_at = {a} AND id < {b}))"));
            }
            let limit_mark = mark();
            let sql = format!(
                "SELECT {COLUMNS} FROM jobs {} ORDER BY created_at DESC, id DESC LIMIT {limit_mark}",
                where_clause(&conds)
            );
            let mut q = filter.bind(sqlx::query(&sql));
            if let Some((created, id)) = after {
                q = q.bind(created).bind(id);
            }
            let rows = q.bind(limit as i64).fetch_all(&self.pool()).await?;
            rows.iter().map(job_from_row).collect()
        }
        .await;
        self.track_read(r)
    }

    /// How many jobs `filter` selects (every page of [`Store::list_jobs_filtered`] together).
    pub async fn count_jobs_filtered(&self, filter: JobFilter<'_>) -> Result<u64, StoreError> {
        let r = async {
            let sql = format!(
                "SELECT COUNT(*) AS n FROM jobs {}",
                where_clause(&filter.conditions())
            );
            let row = filter
                .bind(sqlx::query(&sql))
                .fetch_one(&self.pool())
                .await?;
            Ok(row.try_get::<i64, _>("n")?.max(0) as u64)
        }
        .await;
        self.track_read(r)
    }

    /// Counts of jobs per status, for metrics.
    pub async fn job_counts(&self) -> Result<Vec<(String, i64)>, StoreError> {
        let r = async {
            let rows = sqlx::query("SELECT status, COUNT(*) AS n FROM jobs GROUP BY status")
                .fetch_all(&self.pool())
                .await?;
            rows.iter()
                .map(|r| Ok((r.try_get("status")?, r.try_get("n")?)))
                .collect()
        }
        .await;
        self.track_read(r)
    }
}
