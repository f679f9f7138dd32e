//! Jobs that belong to someone: a submission admitted within its owner's quotas, and the list
//! of one owner's jobs. The owner is the name of the API key that submitted the job (`NULL`
//! for jobs submitted to an open server); the key itself is never stored.
//!
//! A submission is one write transaction (every kind's: [`Store::create_rows`], `kind.rs`): the
//! owner's usage of the day is added to first — which takes that row's lock, so concurrent
//! submissions of one owner are serialised on PostgreSQL too (SQLite's `BEGIN IMMEDIATE`
//! serialises every writer) — then the owner's queued and running jobs are counted, then the
//! kind's rows are inserted. Past either quota the transaction is rolled back and nothing at
//! all is written.

use sqlx::Row;

use super::{Job, Store, StoreError};

/// One day, in the store's milliseconds.
pub const DAY_MS: i64 = 86_400_000;

/// The quotas a submission must fit in (0: no limit).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JobQuota {
    /// Queued and running jobs of the owner, this one included.
    pub active_jobs: u64,
    /// Heaps (`max_n`) requested by the owner in one UTC day, this job's included.
    pub heaps_per_day: u64,
}

/// Why a submission was not admitted: a quota of its owner it would exceed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// The owner already has `active` queued or running jobs.
    ActiveJobs { limit: u64, active: u64 },
    /// The submission would take the owner's heaps of the day (`used` before it) past the
    /// limit. `day_ends_ms`: when the day's count starts again.
    HeapsPerDay {
        limit: u64,
        used: u64,
        day_ends_ms: i64,
    },
}

/// Checks a submission of `jobs` jobs of `heaps` heaps in all by `owner` against `quota` on an
/// open write transaction (see the module's text): adds the heaps to the owner's usage of the
/// day (taking that row's lock), counts its queued and running jobs, and forgets usage of days
/// long past. `Some(refusal)` past a quota: the caller rolls back. Every kind's submission
/// (a job, a census's jobs, a misère quotient) is admitted here, by [`Store::create_rows`].
pub(super) async fn admit(
    c: &mut sqlx::AnyConnection,
    owner: &str,
    quota: JobQuota,
    (jobs, heaps): (u64, u64),
    now: i64,
) -> Result<Option<Refusal>, StoreError> {
    let day = now.div_euclid(DAY_MS);
    let heaps = heaps.min(i64::MAX as u64) as i64;
    let used: i64 = sqlx::query(
        "INSERT INTO job_usage (owner, day, heaps) VALUES ($1, $2, $3) \
         ON CONFLICT (owner, day) DO UPDATE SET heaps = job_usage.heaps + excluded.heaps \
         RETURNING heaps",
    )
    .bind(owner)
    .bind(day)
    .bind(heaps)
    .fetch_one(&mut *c)
    .await?
    .try_get("heaps")?;
    let before = used.saturating_sub(heaps).max(0) as u64;
    if quota.heaps_per_day > 0 && used as u64 > quota.heaps_per_day {
        return Ok(Some(Refusal::HeapsPerDay {
            limit: quota.heaps_per_day,
            used: before,
            day_ends_ms: (day + 1) * DAY_MS,
        }));
    }
    let active: i64 = sqlx::query(
        "SELECT COUNT(*) AS n FROM jobs WHERE owner = $1 AND status IN ('queued', 'running')",
    )
    .bind(owner)
    .fetch_one(&mut *c)
    .await?
    .try_get("n")?;
    if quota.active_jobs > 0 && active as u64 + jobs > quota.active_jobs {
        return Ok(Some(Refusal::ActiveJobs {
            limit: quota.active_jobs,
            active: active as u64,
        }));
    }
    // The usage of days long past is of no use any more.
    sqlx::query("DELETE FROM job_usage WHERE owner = $1 AND day < $2")
        .bind(owner)
        .bind(day - 31)
        .execute(&mut *c)
        .await?;
    Ok(None)
}

impl Store {
    /// Jobs of `owner` (`None`: every job), newest first; `after` as for [`Store::list_jobs`].
    pub async fn list_jobs_of(
        &self,
        owner: Option<&str>,
        limit: u32,
        after: Option<(i64, String)>,
    ) -> Result<Vec<Job>, StoreError> {
        self.list_jobs_where(owner, None, limit, after).await
    }

    /// Queued and running jobs per owner (`None`: jobs without one), for metrics.
    pub async fn active_jobs_by_owner(&self) -> Result<Vec<(Option<String>, i64)>, StoreError> {
        let r = async {
            let rows = sqlx::query(
                "SELECT owner, COUNT(*) AS n FROM jobs WHERE status IN ('queued', 'running') GROUP BY owner",
            )
            .fetch_all(&self.pool())
            .await?;
            rows.iter()
                .map(|r| Ok((r.try_get("owner")?, r.try_get("n")?)))
                .collect()
        }
        .await;
        self.track_read(r)
    }
}
