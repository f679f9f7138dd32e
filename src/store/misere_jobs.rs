//! Misère-quotient jobs (the kind [`QuotientJob`]): rows of `jobs` of kind `misere_quotient`
//! (`code`, `max_n` = the bound `n` of `Q_n`), queued, claimed, leased, cancelled and listed
//! like every job (`jobs.rs`, `queue.rs`), with what is theirs alone:
//!
//! * **One computation per quotient.** A request for a quotient its owner already has queued
//!   or running joins that job (`jobs_misere_active`, one such job per owner and quotient: its
//!   [`JobRows`]); another owner's request gets a job of its own, which waits queued while the
//!   first computes (a claim skips it, its [`StoredKind`]; `jobs_misere_running` lets at most
//!   one job of a quotient run, across replicas), shows that computation's progress, and ends
//!   with it: done or failed together.
//!   Should the computing job be cancelled, a waiting one takes over from its saved state.
//! * **Progress** in the row's `quotient` column ([`QuotientProgress`]): the heap reached, |Q|
//!   and |P| there, compute time and engine steps over all runs, the heap it resumed from.
//! * **Saved state** in `misere_job_states`: the last verified `Q_heap` of the computation, one
//!   row per (code, bound), written by the lease holder in the checkpoint's transaction, read
//!   back (and checked by the engine, `MisereEngine::resume`) by the next run, deleted once no
//!   queued or running job computes that quotient.
//! * **The end**: done stores the quotient in `misere_quotients` in the same transaction as
//!   the status (so a done job's quotient is always there); cancelled stores none.

use serde::{Deserialize, Serialize};
use sqlx::{AnyConnection, Row};

use super::jobs::{
    bind_run, count_finished, job_from_row, run_set, Checkpoint, JobStatus, RunRecord, COLUMNS,
};
use super::kind::{Admission, JobRows, StoredKind};
use super::quotients::{parse_record, write_quotient};
use super::{now_ms, Job, Store, StoreError};
use crate::core::misere::{MisereQuotient, QuotientParts};

/// A misère-quotient job's progress (the `quotient` column, as JSON).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct QuotientProgress {
    /// The largest heap done: `Q_heap` is verified.
    pub heap: u64,
    pub q_size: u64,
    pub p_size: u64,
    /// Compute time and engine steps spent on the quotient, over every run.
    pub compute_ms: u64,
    pub steps: u64,
    /// The heap of the saved quotient the latest run resumed from (`None`: from scratch).
    #[serde(default)]
    pub resumed_from: Option<u64>,
    /// Why a saved quotient was not used (it failed its check), if one was not.
    #[serde(default)]
    pub rejected: Option<String>,
}

impl QuotientProgress {
    /// The progress a row holds (default when it holds none, or garbage).
    pub fn of(job: &Job) -> QuotientProgress {
        job.quotient
            .as_deref()
            .and_then(|s| serde_json::from_str(s).ok())
            .unwrap_or_default()
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| "{}".into())
    }
}

/// What [`Store::checkpoint_quotient`] saves.
#[derive(Debug, Clone)]
pub struct QuotientCheckpoint<'a> {
    pub job_id: &'a str,
    /// The lease owner (the replica).
    pub owner: &'a str,
    pub code: &'a str,
    pub bound: u64,
    pub progress: &'a QuotientProgress,
    /// A verified quotient to resume from (its parts), when there is a newer one.
    pub state: Option<&'a QuotientParts>,
    pub lease_ms: i64,
    /// The run's threads, CPU time and engine (the jobs waiting for the same quotient get the
    /// engine only: they compute nothing themselves).
    pub run: RunRecord<'a>,
}

const KIND: &str = "misere_quotient";

/// The misère-quotient kind (`JobKind::MisereQuotient`): a submission of `(code, bound)` — the
/// canonical code and the bound `n` of `Q_n` — joins its owner's job for that quotient or
/// inserts one (see the module's text). Its submission and its run:
/// `crate::service::jobs::misere`.
#[derive(Debug)]
pub struct QuotientJob;

impl JobRows for QuotientJob {
    type New = (String, u64);
    type Rows = Box<Job>;

    fn asks(&(_, bound): &Self::New) -> (u64, u64) {
        (1, bound)
    }

    /// The owner's queued or running job for the same quotient.
    async fn joined(
        c: &mut AnyConnection,
        (code, bound): &Self::New,
        owner: Option<&str>,
    ) -> Result<Option<Box<Job>>, StoreError> {
        Ok(active_job(c, code, *bound, owner).await?.map(Box::new))
    }

    /// A queued job computing `Q_bound` of `code` — or, when a concurrent request of the same
    /// owner inserted one meanwhile (PostgreSQL, no owner: nothing serialises them), that one,
    /// and nothing is inserted.
    async fn insert(
        c: &mut AnyConnection,
        (code, bound): &Self::New,
        id: &str,
        owner: Option<&str>,
        now: i64,
    ) -> Result<Admission<Box<Job>>, StoreError> {
        let (code, bound) = (code.as_str(), *bound);
        let row = sqlx::query(&format!(
            "INSERT INTO jobs (id, kind, code, max_n, status, computed, cancel_requested, attempts, \
               created_at, updated_at, owner, store_values, quotient) \
             VALUES ($1, '{KIND}', $2, $3, 'queued', 0, 0, 0, $4, $4, $5, 0, $6) \
             ON CONFLICT DO NOTHING RETURNING {COLUMNS}"
        ))
        .bind(id)
        .bind(code)
        .bind(bound as i64)
        .bind(now)
        .bind(owner)
        .bind(QuotientProgress::default().to_json())
        .fetch_optional(&mut *c)
        .await?;
        match row {
            Some(row) => Ok(Admission::Created(Box::new(job_from_row(&row)?))),
            None => Ok(Admission::Joined(Box::new(
                active_job(c, code, bound, owner).await?.ok_or_else(|| {
                    StoreError::Corrupt(format!(
                        "{code}: a job for Q_{bound} conflicted and vanished"
                    ))
                })?,
            ))),
        }
    }
}

impl StoredKind for QuotientJob {
    /// One computation per quotient: a queued job waits while another job computes its
    /// quotient (the unique index `jobs_misere_running` settles a race between replicas: the
    /// loser's claim fails and claims nothing).
    const WAITS: Option<&'static str> = Some(
        "EXISTS (SELECT 1 FROM jobs o WHERE o.kind = 'misere_quotient' AND o.code = j.code \
           AND o.max_n = j.max_n AND o.status = 'running')",
    );

    /// A cancelled job's saved state goes unless another job still computes its quotient.
    async fn cancelled(c: &mut AnyConnection, job: &Job) -> Result<(), StoreError> {
        if job.status == JobStatus::Cancelled {
            drop_state_if_unused(c, &job.code, job.max_n).await?;
        }
        Ok(())
    }
}

/// The queued or running job of the quotient (`code`, `bound`) owned by `owner` (`None`: no
/// owner), if any.
async fn active_job(
    c: &mut AnyConnection,
    code: &str,
    bound: u64,
    owner: Option<&str>,
) -> Result<Option<Job>, StoreError> {
    let row = sqlx::query(&format!(
        "SELECT {COLUMNS} FROM jobs WHERE kind = '{KIND}' AND code = $1 AND max_n = $2 \
         AND status IN ('queued', 'running') AND COALESCE(owner, '') = $3"
    ))
    .bind(code)
    .bind(bound as i64)
    .bind(owner.unwrap_or(""))
    .fetch_optional(&mut *c)
    .await?;
    row.as_ref().map(job_from_row).transpose()
}

/// Deletes the saved state of (`code`, `bound`) unless a queued or running job still computes
/// that quotient.
async fn drop_state_if_unused(
    c: &mut AnyConnection,
    code: &str,
    bound: u64,
) -> Result<(), StoreError> {
    sqlx::query(&format!(
        "DELETE FROM misere_job_states WHERE code = $1 AND bound = $2 AND NOT EXISTS ( \
           SELECT 1 FROM jobs WHERE kind = '{KIND}' AND code = $1 AND max_n = $2 \
             AND status IN ('queued', 'running'))"
    ))
    .bind(code)
    .bind(bound as i64)
    .execute(c)
    .await?;
    Ok(())
}

impl Store {
    /// The job that says where `Q_bound` of `code` stands: a queued or running one (the
    /// computing one first), else the newest.
    pub async fn quotient_job(&self, code: &str, bound: u64) -> Result<Option<Job>, StoreError> {
        let r = async {
            let row = sqlx::query(&format!(
                "SELECT {COLUMNS} FROM jobs WHERE kind = '{KIND}' AND code = $1 AND max_n = $2 \
                 ORDER BY CASE status WHEN 'running' THEN 0 WHEN 'queued' THEN 1 ELSE 2 END, \
                   created_at DESC, id DESC LIMIT 1"
            ))
            .bind(code)
            .bind(bound as i64)
            .fetch_optional(&self.pool())
            .await?;
            row.as_ref().map(job_from_row).transpose()
        }
        .await;
        self.track_read(r)
    }

    /// The saved state of the computation of `Q_bound` of `code`: the heap and the parts of
    /// the quotient saved, or why the row does not read as a quotient record (not checked
    /// further: `MisereEngine::resume` does that).
    pub async fn load_quotient_state(
        &self,
        code: &str,
        bound: u64,
    ) -> Result<Option<(u64, Result<QuotientParts, String>)>, StoreError> {
        let r = async {
            let row = sqlx::query(
                "SELECT heap, data FROM misere_job_states WHERE code = $1 AND bound = $2",
            )
            .bind(code)
            .bind(bound as i64)
            .fetch_optional(&self.pool())
            .await?;
            let Some(row) = row else {
                return Ok(None);
            };
            let heap = row.try_get::<i64, _>("heap")?.max(0) as u64;
            let data: String = row.try_get("data")?;
            let parts = parse_record(code, heap, &data)
                .map_err(|e| e.to_string())
                .and_then(|r| r.into_parts());
            Ok(Some((heap, parts)))
        }
        .await;
        self.track_read(r)
    }

    /// Saves a running quotient job's progress (and the jobs waiting for the same quotient),
    /// a newer verified quotient to resume from if given, and renews the lease: one
    /// transaction, conditional on the lease (as [`Store::checkpoint`]).
    pub async fn checkpoint_quotient(
        &self,
        a: QuotientCheckpoint<'_>,
    ) -> Result<Checkpoint, StoreError> {
        let data = match a.state {
            Some(parts) => Some((
                parts.bound,
                serde_json::to_string(&super::QuotientRecord::of_parts(parts.clone())).map_err(
                    |e| StoreError::Corrupt(format!("{}: serializing a quotient: {e}", a.code)),
                )?,
            )),
            None => None,
        };
        let now = now_ms();
        let progress = a.progress.to_json();
        let r = async {
            let mut tx = self.begin_write().await?;
            let r = async {
                let c = tx.conn();
                let sql = format!(
                    "UPDATE jobs SET computed = $1, quotient = $2, lease_expires_at = $3, updated_at = $4, {} \
                     WHERE id = $5 AND lease_owner = $6 AND status = 'running' RETURNING cancel_requested",
                    run_set(7)
                );
                let q = sqlx::query(&sql)
                    .bind(a.progress.heap as i64)
                    .bind(progress.as_str())
                    .bind(now + a.lease_ms)
                    .bind(now)
                    .bind(a.job_id)
                    .bind(a.owner);
                let row = bind_run(q, &a.run).fetch_optional(&mut *c).await?;
                let row = match Checkpoint::renewed(c, a.job_id, row).await? {
                    Ok(row) => row,
                    Err(gone) => return Ok(gone),
                };
                let waiting = RunRecord {
                    engine: a.run.engine,
                    ..RunRecord::default()
                };
                let sql = format!(
                    "UPDATE jobs SET computed = $1, quotient = $2, updated_at = $3, {} \
                     WHERE kind = '{KIND}' AND code = $4 AND max_n = $5 AND status = 'queued'",
                    run_set(6)
                );
                let q = sqlx::query(&sql)
                    .bind(a.progress.heap as i64)
                    .bind(progress.as_str())
                    .bind(now)
                    .bind(a.code)
                    .bind(a.bound as i64);
                bind_run(q, &waiting).execute(&mut *c).await?;
                if let Some((heap, data)) = &data {
                    sqlx::query(
                        "INSERT INTO misere_job_states (code, bound, heap, data, updated_at) \
                         VALUES ($1, $2, $3, $4, $5) ON CONFLICT (code, bound) DO UPDATE SET \
                           heap = excluded.heap, data = excluded.data, updated_at = excluded.updated_at",
                    )
                    .bind(a.code)
                    .bind(a.bound as i64)
                    .bind(*heap as i64)
                    .bind(data.as_str())
                    .bind(now)
                    .execute(&mut *c)
                    .await?;
                }
                Checkpoint::of_row(&row)
            }
            .await;
            tx.finish_if(r, Checkpoint::wrote).await
        }
        .await;
        self.track_if(r, Checkpoint::wrote)
    }

    /// Ends a quotient job owned by `owner` (conditional on its lease, and for `Done` on no
    /// cancel having been asked for): `Done` stores
    /// `quotient` and ends the jobs waiting for it as done, `Failed` ends them as failed with
    /// the same error, `Cancelled` stores nothing; the saved state goes once no job computes
    /// the quotient any more. `run` is saved as by a checkpoint (the waiting jobs get its
    /// engine). One transaction. `false` if the lease was lost.
    #[allow(clippy::too_many_arguments)]
    pub async fn finish_quotient_job(
        &self,
        job: &Job,
        owner: &str,
        status: JobStatus,
        progress: &QuotientProgress,
        error: Option<&str>,
        quotient: Option<&MisereQuotient>,
        run: RunRecord<'_>,
    ) -> Result<bool, StoreError> {
        let now = now_ms();
        let heap = progress.heap as i64;
        let progress = progress.to_json();
        let r = async {
            let mut tx = self.begin_write().await?;
            let r = async {
                let c = tx.conn();
                let sql = format!(
                    "UPDATE jobs SET status = $1, quotient = $2, error = $3, computed = $4, finished_at = $5, \
                       updated_at = $5, lease_owner = NULL, lease_expires_at = NULL, {} \
                     WHERE id = $6 AND lease_owner = $7 AND status = 'running' \
                       AND NOT ($1 = 'done' AND cancel_requested = 1)",
                    run_set(8)
                );
                // The end every job of the computation shares, at `$1..=$5`.
                let end = |sql| {
                    sqlx::query(sql)
                        .bind(status.as_str())
                        .bind(progress.as_str())
                        .bind(error)
                        .bind(heap)
                        .bind(now)
                };
                let q = end(&sql).bind(job.id.as_str()).bind(owner);
                let mine = bind_run(q, &run).execute(&mut *c).await?.rows_affected();
                if mine != 1 {
                    return Ok((false, 0));
                }
                if let Some(q) = quotient {
                    write_quotient(c, q).await?;
                }
                let mut waited = 0;
                if matches!(status, JobStatus::Done | JobStatus::Failed) {
                    let waiting = RunRecord {
                        engine: run.engine,
                        ..RunRecord::default()
                    };
                    let sql = format!(
                        "UPDATE jobs SET status = $1, quotient = $2, error = $3, computed = $4, \
                           started_at = COALESCE(started_at, $5), finished_at = $5, updated_at = $5, {} \
                         WHERE kind = '{KIND}' AND code = $6 AND max_n = $7 AND status = 'queued'",
                        run_set(8)
                    );
                    let q = end(&sql)
                        .bind(job.code.as_str())
                        .bind(job.max_n as i64);
                    waited = bind_run(q, &waiting).execute(&mut *c).await?.rows_affected();
                }
                drop_state_if_unused(c, &job.code, job.max_n).await?;
                Ok((true, waited))
            }
            .await;
            tx.finish_if(r, |(mine, _)| *mine).await
        }
        .await;
        let (mine, waited) = self.track_if(r, |(mine, _)| *mine)?;
        // The jobs that waited for this computation end with it: counted here (the worker
        // counts its own job).
        count_finished(status, waited);
        Ok(mine)
    }
}
