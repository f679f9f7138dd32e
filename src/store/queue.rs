//! Every kind's job in the queue: claimed with a lease, re-registered after a wipe, given back
//! at shutdown or on a restart, cancelled and deleted — written once, going through each
//! kind's [`StoredKind`] where the kinds differ: a queued job that waits at a claim (a misère
//! quotient another job computes), what goes with a job cancelled (its saved state) or deleted
//! (a window job's kept values). `with_kind!` is the one place a value of `jobs.kind` meets
//! its type.
//!
//! A worker *claims* a queued job (or one whose lease expired: its owner died) by setting
//! itself as `lease_owner` with an expiry; it renews the lease at every checkpoint (`jobs.rs`
//! and each kind's file), and every write it makes is conditional on still owning the lease.
//! On PostgreSQL the claim uses `FOR UPDATE SKIP LOCKED` so concurrent replicas never block
//! on each other.

use sqlx::Row;

use super::jobs::{cancel_where, count_finished, job_from_row, Job, JobKind, JobStatus, COLUMNS};
use super::kind::StoredKind;
use super::misere_jobs::QuotientJob;
use super::sequence_jobs::SequenceJob;
use super::{now_ms, Backend, Store, StoreError};

/// `$body` with `$K` the [`StoredKind`] of the `JobKind` `$kind`: the one place a value of
/// `jobs.kind` meets its type (a fourth kind adds its arm here).
macro_rules! with_kind {
    ($kind:expr, $K:ident => $body:expr) => {
        match $kind {
            JobKind::Sequence => {
                type $K = SequenceJob;
                $body
            }
            JobKind::MisereQuotient => {
                type $K = QuotientJob;
                $body
            }
        }
    };
}

/// The claim's conditions that pass a waiting job by: for each kind whose queued jobs may
/// wait ([`StoredKind::WAITS`]), not one of its queued jobs while it waits.
fn waiting() -> String {
    JobKind::ALL
        .into_iter()
        .filter_map(|kind| {
            let waits = with_kind!(kind, K => K::WAITS)?;
            Some(format!(
                " AND NOT (j.kind = '{}' AND j.status = 'queued' AND {waits})",
                kind.as_str()
            ))
        })
        .collect()
}

impl Store {
    /// Cancels a job: a queued job is cancelled at once, a running one is flagged and its
    /// worker stops at its next checkpoint, and what goes with a cancelled job of its kind goes
    /// (a misère quotient's saved state no job computes any more). Final jobs are left as they
    /// are. One transaction: the answer reflects a committed state.
    pub async fn cancel_job(&self, id: &str) -> Result<Option<Job>, StoreError> {
        let now = now_ms();
        let r = async {
            let mut tx = self.begin_write().await?;
            let r = async {
                let c = tx.conn();
                let cancelled = cancel_where(c, "id = $2", id, now).await?;
                let row = sqlx::query(&format!("SELECT {COLUMNS} FROM jobs WHERE id = $1"))
                    .bind(id)
                    .fetch_optional(&mut *c)
                    .await?;
                let job = row.as_ref().map(job_from_row).transpose()?;
                if let Some(job) = &job {
                    with_kind!(job.kind, K => K::cancelled(c, job).await)?;
                }
                Ok((job, cancelled))
            }
            .await;
            tx.finish(r).await
        }
        .await;
        let (job, cancelled) = self.track_commit(r)?;
        count_finished(JobStatus::Cancelled, cancelled);
        Ok(job)
    }

    /// Deletes a finished job's record and what goes with it for its kind (a window-mode
    /// job's kept values; its stored values stay in `sequences`). Running or queued jobs are
    /// not deleted: they must be cancelled first. One transaction.
    pub async fn delete_job(&self, id: &str) -> Result<bool, StoreError> {
        let r = async {
            let mut tx = self.begin_write().await?;
            let r = async {
                let c = tx.conn();
                let kind: Option<String> = sqlx::query(
                    "DELETE FROM jobs WHERE id = $1 AND status IN ('done', 'failed', 'cancelled') \
                     RETURNING kind",
                )
                .bind(id)
                .fetch_optional(&mut *c)
                .await?
                .map(|row| row.try_get("kind"))
                .transpose()?;
                let Some(kind) = kind else {
                    return Ok(false);
                };
                if let Some(kind) = JobKind::parse(&kind) {
                    with_kind!(kind, K => K::deleted(c, id).await)?;
                }
                Ok(true)
            }
            .await;
            tx.finish(r).await
        }
        .await;
        self.track_write(r)
    }

    /// Claims the oldest runnable job for `owner` with a lease of `lease_ms`.
    pub async fn claim_job(&self, owner: &str, lease_ms: i64) -> Result<Option<Job>, StoreError> {
        self.claim_job_excluding(owner, lease_ms, &[]).await
    }

    /// [`Store::claim_job`], skipping `exclude`: the jobs this replica already holds in memory
    /// (a job whose lease expired while its worker waited for the store must not be claimed
    /// by a second worker of the same replica and computed twice).
    pub async fn claim_job_excluding(
        &self,
        owner: &str,
        lease_ms: i64,
        exclude: &[String],
    ) -> Result<Option<Job>, StoreError> {
        let now = now_ms();
        let r = async {
            let pool = self.pool();
            // A running job flagged for cancellation whose owner died is finished here.
            let ended = sqlx::query(
                "UPDATE jobs SET status = 'cancelled', finished_at = $1, updated_at = $1, lease_owner = NULL, \
                 lease_expires_at = NULL WHERE status = 'running' AND cancel_requested = 1 AND lease_expires_at < $1",
            )
            .bind(now)
            .execute(&pool)
            .await?;
            count_finished(JobStatus::Cancelled, ended.rows_affected());
            let lock = match self.backend() {
                Backend::Postgres => "FOR UPDATE SKIP LOCKED",
                Backend::Sqlite => "",
            };
            let not_in = if exclude.is_empty() {
                String::new()
            } else {
                let marks: Vec<String> = (0..exclude.len()).map(|i| format!("${}", i + 4)).collect();
                format!("AND j.id NOT IN ({})", marks.join(", "))
            };
            // A queued job of a kind that waits (a misère quotient another job computes) is
            // passed by.
            let waits = waiting();
            let sql = format!(
                "UPDATE jobs SET status = 'running', lease_owner = $1, lease_expires_at = $2, \
                   started_at = COALESCE(started_at, $3), attempts = attempts + 1, updated_at = $3 \
                 WHERE id = (SELECT j.id FROM jobs j \
                             WHERE j.cancel_requested = 0 AND (j.status = 'queued' OR (j.status = 'running' AND j.lease_expires_at < $3)) {not_in}{waits} \
                             ORDER BY j.created_at, j.id LIMIT 1 {lock}) \
                 RETURNING {COLUMNS}"
            );
            let mut q = sqlx::query(&sql).bind(owner).bind(now + lease_ms).bind(now);
            for id in exclude {
                q = q.bind(id.as_str());
            }
            let row = match q.fetch_optional(&pool).await {
                // A waiting kind's race between replicas, lost (its unique index: see its
                // `WAITS`): nothing claimed.
                Err(sqlx::Error::Database(e)) if e.is_unique_violation() => None,
                r => r?,
            };
            row.as_ref().map(job_from_row).transpose()
        }
        .await;
        match r {
            r @ Ok(Some(_)) => self.track_commit(r),
            r => self.track_write(r),
        }
    }

    /// Re-registers a job this replica is running whose row vanished with a wiped or replaced
    /// database (see [`Checkpoint::Missing`](super::Checkpoint::Missing)): inserted as running under `owner`, as it was.
    /// An existing row is left alone.
    pub async fn restore_job(
        &self,
        job: &Job,
        owner: &str,
        lease_ms: i64,
    ) -> Result<(), StoreError> {
        let now = now_ms();
        let r = sqlx::query(
            "INSERT INTO jobs (id, code, max_n, status, computed, cancel_requested, lease_owner, lease_expires_at, \
               attempts, created_at, started_at, updated_at, keep_window, store_values, owner, kind, quotient, \
               threads, cpu_ms, engine_version, engine_commit) \
             VALUES ($1, $2, $3, 'running', 0, 0, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, \
               $15, $16, $17, $18) ON CONFLICT DO NOTHING",
        )
        .bind(job.id.as_str())
        .bind(job.code.as_str())
        .bind(job.max_n as i64)
        .bind(owner)
        .bind(now + lease_ms)
        .bind(job.attempts)
        .bind(job.created_at)
        .bind(job.started_at.unwrap_or(now))
        .bind(now)
        .bind(job.keep_window.map(|w| w as i64))
        .bind(i64::from(job.store_values))
        .bind(job.owner.as_deref())
        .bind(job.kind.as_str())
        .bind(job.quotient.as_deref())
        .bind(job.threads.map(|t| t as i64))
        .bind(job.cpu_ms.map(|t| t as i64))
        .bind(job.engine_version.as_deref())
        .bind(job.engine_commit.as_deref())
        .execute(&self.pool())
        .await;
        self.track_commit(r.map_err(StoreError::from))?;
        tracing::warn!(job = %job.id, "job row was missing from the store; re-registered from memory");
        Ok(())
    }

    /// Gives a running job back to the queue (graceful shutdown, after a final checkpoint).
    pub async fn release_job(&self, job_id: &str, owner: &str) -> Result<(), StoreError> {
        let r = sqlx::query(
            "UPDATE jobs SET status = 'queued', lease_owner = NULL, lease_expires_at = NULL, updated_at = $1 \
             WHERE id = $2 AND lease_owner = $3 AND status = 'running'",
        )
        .bind(now_ms())
        .bind(job_id)
        .bind(owner)
        .execute(&self.pool())
        .await;
        self.track_write(r.map_err(StoreError::from))?;
        Ok(())
    }

    /// A window job asked to go further (`grundy octal --to` beyond a stored run's): its `max_n`
    /// raised and the job queued again, to resume from its saved window and archive. Only a
    /// sequence job in window mode, not cancelled or failed, whose `max_n` is below `max_n`, and
    /// not held by a live lease of another owner than `owner`. Whether it was extended.
    pub async fn extend_window_job(
        &self,
        job_id: &str,
        max_n: u64,
        owner: &str,
    ) -> Result<bool, StoreError> {
        let now = now_ms();
        let q = sqlx::query(
            "UPDATE jobs SET max_n = $1, status = 'queued', finished_at = NULL, lease_owner = NULL, \
             lease_expires_at = NULL, updated_at = $2 \
             WHERE id = $3 AND kind = 'sequence' AND keep_window IS NOT NULL AND max_n < $1 \
             AND (status IN ('done', 'queued') OR (status = 'running' AND (lease_owner = $4 \
             OR lease_expires_at IS NULL OR lease_expires_at < $2)))",
        )
        .bind(max_n as i64)
        .bind(now)
        .bind(job_id)
        .bind(owner);
        self.update_one(q).await
    }

    /// Puts every job leased by `owner` back in the queue (a replica restarting under the same
    /// id takes its interrupted jobs back at once).
    pub async fn requeue_owned(&self, owner: &str) -> Result<u64, StoreError> {
        let r = sqlx::query(
            "UPDATE jobs SET status = 'queued', lease_owner = NULL, lease_expires_at = NULL, updated_at = $1 \
             WHERE lease_owner = $2 AND status = 'running'",
        )
        .bind(now_ms())
        .bind(owner)
        .execute(&self.pool())
        .await;
        let r = self.track_write(r.map_err(StoreError::from))?;
        Ok(r.rows_affected())
    }
}
