//! Octal-sequence jobs (kind `sequence`, the kind [`SequenceJob`]): what a client asks for
//! ([`NewJob`]: a game to `max_n`, keeping every value or a window), inserted — alone, within
//! its owner's quotas (its [`JobRows`]), or as a census's jobs (`census.rs`) —, checkpointed
//! (the new values, a window job's kept values, statistics, the periodicity verdict, with the
//! lease renewed as every kind's checkpoint is: `jobs.rs`), and finished with its verdict.
//! Claimed, leased, cancelled and listed like every job; deleted with its window's chunks
//! (its [`StoredKind`]).

use sqlx::AnyConnection;

use super::jobs::{bind_run, job_from_row, run_set, Checkpoint, Job, JobKind, RunRecord, COLUMNS};
use super::kind::{Admission, JobRows, StoredKind};
use super::sequences::write_tail;
use super::windows::{write_window, WindowWrite};
use super::{now_ms, JobStatus, Store, StoreError};
use crate::core::octal::ValuesRef;

/// What a client asks for.
#[derive(Debug, Clone)]
pub struct NewJob {
    pub code: String,
    pub max_n: u64,
    /// Window mode: the values kept behind n and in the front (`None`: keep every value).
    pub keep_window: Option<u64>,
    pub store_values: bool,
}

/// The octal-sequence kind (`JobKind::Sequence`): one `jobs` row per submission of a
/// [`NewJob`]. Its submission and its run: `crate::service::jobs::sequence`.
#[derive(Debug)]
pub struct SequenceJob;

impl JobRows for SequenceJob {
    type New = NewJob;
    type Rows = Box<Job>;

    fn asks(job: &Self::New) -> (u64, u64) {
        (1, job.max_n)
    }

    async fn insert(
        c: &mut AnyConnection,
        job: &Self::New,
        id: &str,
        owner: Option<&str>,
        now: i64,
    ) -> Result<Admission<Box<Job>>, StoreError> {
        let job = insert_job(c, job, id, owner, now).await?;
        Ok(Admission::Created(Box::new(job)))
    }
}

impl StoredKind for SequenceJob {
    /// A window-mode job's kept values and archive (`windows.rs`) go with its record (its
    /// stored values stay in `sequences`).
    async fn deleted(c: &mut AnyConnection, id: &str) -> Result<(), StoreError> {
        sqlx::query("DELETE FROM job_window_chunks WHERE job_id = $1")
            .bind(id)
            .execute(c)
            .await?;
        Ok(())
    }
}

/// Inserts a queued sequence job on an open transaction (owned by `owner`, if any).
pub(super) async fn insert_job(
    c: &mut AnyConnection,
    job: &NewJob,
    id: &str,
    owner: Option<&str>,
    now: i64,
) -> Result<Job, StoreError> {
    let row = sqlx::query(&format!(
        "INSERT INTO jobs (id, code, max_n, status, computed, cancel_requested, attempts, created_at, updated_at, owner, \
           keep_window, store_values) \
         VALUES ($1, $2, $3, 'queued', 0, 0, 0, $4, $4, $5, $6, $7) RETURNING {COLUMNS}"
    ))
    .bind(id)
    .bind(&job.code)
    .bind(job.max_n.min(i64::MAX as u64) as i64)
    .bind(now)
    .bind(owner)
    .bind(job.keep_window.map(|w| w as i64))
    .bind(i64::from(job.store_values))
    .fetch_one(&mut *c)
    .await?;
    job_from_row(&row)
}

/// What a checkpoint saves: values `offset..offset + tail.len()` of `code` (`offset` from
/// [`super::sequences::tail_offset`]; only the tail is passed, as a view of the values in
/// their own width, so a long job never copies its sequence), the job's progress, and a lease
/// renewal, atomically. A `&[u32]` or `&Values` converts into the tail with `.into()`.
/// A window-mode job (`window`) writes its kept values there, and the sequence tail only when
/// it stores every value (`store_values`; otherwise the tail is empty and ignored).
#[derive(Debug, Clone)]
pub struct CheckpointArgs<'a> {
    pub job_id: &'a str,
    pub owner: &'a str,
    pub code: &'a str,
    pub offset: usize,
    pub tail: ValuesRef<'a>,
    /// Values computed (the sequence tail's end, or a window job's n).
    pub computed: u64,
    pub window: Option<WindowWrite<'a>>,
    /// `Statistics::to_bytes` of G(0..computed).
    pub statistics: Option<&'a [u8]>,
    /// The periodicity verdict as JSON, once known.
    pub periodicity: Option<&'a str>,
    /// Heaps per second over the last interval (`None` keeps the stored rate).
    pub rate: Option<f64>,
    pub lease_ms: i64,
    /// The threads, CPU time and engine of the run (`Default`: keep what is stored).
    pub run: RunRecord<'a>,
}

impl<'a> CheckpointArgs<'a> {
    /// A checkpoint of `tail` as the whole sequence (offset 0, `computed` its length) by
    /// `owner`, with nothing else to record (no window, statistics, periodicity or rate; the
    /// stored run kept) and a 60 s lease; the other cases set their fields with `..`.
    pub fn of_tail(
        job_id: &'a str,
        owner: &'a str,
        code: &'a str,
        tail: impl Into<ValuesRef<'a>>,
    ) -> Self {
        let tail = tail.into();
        CheckpointArgs {
            job_id,
            owner,
            code,
            offset: 0,
            tail,
            computed: tail.len() as u64,
            window: None,
            statistics: None,
            periodicity: None,
            rate: None,
            lease_ms: 60_000,
            run: RunRecord::default(),
        }
    }
}

impl Store {
    /// Inserts a queued job without an owner, on its own (no transaction, no quotas): the
    /// setup of tests and tools — a caller's submission is [`Store::create_rows`]. `computed`
    /// starts at what is already known for the code. Returns only after the insert is
    /// committed.
    pub async fn create_job(
        &self,
        job: &NewJob,
        id: &str,
        computed: u64,
    ) -> Result<Job, StoreError> {
        let now = now_ms();
        let r = sqlx::query(
            "INSERT INTO jobs (id, code, max_n, status, computed, cancel_requested, attempts, created_at, updated_at, \
               keep_window, store_values) \
             VALUES ($1, $2, $3, 'queued', $4, 0, 0, $5, $5, $6, $7)",
        )
        .bind(id)
        .bind(&job.code)
        .bind(job.max_n as i64)
        .bind(computed as i64)
        .bind(now)
        .bind(job.keep_window.map(|w| w as i64))
        .bind(i64::from(job.store_values))
        .execute(&self.pool())
        .await;
        self.track_commit(r.map_err(StoreError::from))?;
        // As inserted (a worker may claim it a moment later; the answer reports the submission).
        Ok(Job {
            computed,
            keep_window: job.keep_window,
            store_values: job.store_values,
            ..Job::queued(id, JobKind::Sequence, &job.code, job.max_n, now)
        })
    }

    /// Saves progress atomically with a lease renewal (see [`CheckpointArgs`]).
    pub async fn checkpoint(&self, a: CheckpointArgs<'_>) -> Result<Checkpoint, StoreError> {
        let r = self.checkpoint_once(a).await;
        self.track_if(r, Checkpoint::wrote)
    }

    async fn checkpoint_once(&self, a: CheckpointArgs<'_>) -> Result<Checkpoint, StoreError> {
        let len = a.computed;
        let now = now_ms();
        let mut tx = self.begin_write().await?;
        let r = async {
            let c = tx.conn();
            let sql = format!(
                "UPDATE jobs SET computed = $1, rate = CASE WHEN $2 >= 0 THEN $2 ELSE rate END, lease_expires_at = $3, \
                 updated_at = $4, statistics = COALESCE($7, statistics), {} \
                 WHERE id = $5 AND lease_owner = $6 AND status = 'running' RETURNING cancel_requested",
                run_set(8)
            );
            let q = sqlx::query(&sql)
            .bind(len as i64)
            // Never bind a NULL f64: sqlx 0.8's Any driver sends it to PostgreSQL as float4, the
            // prepared statement keeps that type and the next real f64 is then refused.
            .bind(a.rate.filter(|r| r.is_finite() && *r >= 0.0).unwrap_or(-1.0))
            .bind(now + a.lease_ms)
            .bind(now)
            .bind(a.job_id)
            .bind(a.owner)
            .bind(a.statistics);
            let row = bind_run(q, &a.run).fetch_optional(&mut *c).await?;
            let row = match Checkpoint::renewed(c, a.job_id, row).await? {
                Ok(row) => row,
                Err(gone) => return Ok(gone),
            };
            if a.window.is_none() || !a.tail.is_empty() {
                write_tail(c, a.code, a.offset, a.tail, a.periodicity).await?;
            }
            if let Some(w) = &a.window {
                write_window(c, a.job_id, w).await?;
            }
            Checkpoint::of_row(&row)
        }
        .await;
        // Nothing was written when the lease is gone: no commit that could fail.
        tx.finish_if(r, Checkpoint::wrote).await
    }

    /// Ends a job owned by `owner` with a final status. Returns false if the lease was lost.
    pub async fn finish_job(
        &self,
        job_id: &str,
        owner: &str,
        status: JobStatus,
        computed: u64,
        error: Option<&str>,
        periodicity: Option<&str>,
    ) -> Result<bool, StoreError> {
        let now = now_ms();
        let q = sqlx::query(
            "UPDATE jobs SET status = $1, computed = $2, error = $3, periodicity = COALESCE($4, periodicity), \
               finished_at = $5, updated_at = $5, lease_owner = NULL, lease_expires_at = NULL \
             WHERE id = $6 AND lease_owner = $7 AND status = 'running'",
        )
        .bind(status.as_str())
        .bind(computed as i64)
        .bind(error)
        .bind(periodicity)
        .bind(now)
        .bind(job_id)
        .bind(owner);
        self.update_one(q).await
    }
}
