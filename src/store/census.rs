//! A census: one job per game code, created together (`POST /v1/octal/census`), and the jobs
//! that verify a proved periodicity by a second run from scratch — the kind
//! [`CensusMemberJob`], whose rows are the census and its membership.
//!
//! Creating a census is one submission (its [`JobRows`], through [`Store::create_rows`]): the
//! owner's heaps of the day and active jobs are checked for all of its jobs at once, then the
//! census, its jobs and their links are inserted. Past a quota nothing at all is written; a
//! fault mid-way rolls everything back, so there is never half a census. A member's job is a
//! `sequence` row (`sequence_jobs.rs`): claimed, run, cancelled and deleted as one.
//!
//! `census_jobs` links a census and a code to a job in a role: `primary` (created with the
//! census) or `verification` (created later, at most one per census and code: the key of the
//! table makes a second insert a no-op, whoever races for it).

use std::collections::HashMap;

use sqlx::any::AnyRow;
use sqlx::{AnyConnection, Row};

use super::jobs::{cancel_where, count_finished, JobStatus};
use super::kind::{Admission, JobRows};
use super::sequence_jobs::insert_job;
use super::{now_ms, Job, NewJob, Store, StoreError};

/// What a census computes: every code to `max_n`, with the jobs' keep settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewCensus {
    /// Canonical codes, distinct, in the census's order.
    pub codes: Vec<String>,
    pub max_n: u64,
    /// Window mode's front and window size (`None`: the jobs keep every value).
    pub keep_window: Option<u64>,
    pub store_values: bool,
}

impl NewCensus {
    /// The job of `code` as this census runs it.
    pub fn job(&self, code: &str) -> NewJob {
        NewJob {
            code: code.to_owned(),
            max_n: self.max_n,
            keep_window: self.keep_window,
            store_values: self.store_values,
        }
    }
}

/// A census row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Census {
    pub id: String,
    pub created_at: i64,
    /// The name of the API key that started it (`None` on an open server).
    pub owner: Option<String>,
    pub max_n: u64,
    pub keep_window: Option<u64>,
    pub store_values: bool,
    pub codes: Vec<String>,
    /// When `DELETE` cancelled it.
    pub cancelled_at: Option<i64>,
}

/// What a census job is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CensusRole {
    /// The census's own run of the code.
    Primary,
    /// A second run from scratch of a code whose primary run proved periodicity.
    Verification,
}

impl CensusRole {
    pub fn as_str(self) -> &'static str {
        match self {
            CensusRole::Primary => "primary",
            CensusRole::Verification => "verification",
        }
    }

    fn parse(s: &str) -> Result<Self, StoreError> {
        match s {
            "primary" => Ok(CensusRole::Primary),
            "verification" => Ok(CensusRole::Verification),
            other => Err(StoreError::Corrupt(format!(
                "unknown census role {other:?}"
            ))),
        }
    }
}

/// A job of a census.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CensusLink {
    pub code: String,
    pub role: CensusRole,
    pub job_id: String,
}

/// A census's jobs by status ([`Store::census_counts`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CensusCounts {
    /// Games whose census job (the primary one) is done.
    pub done: u64,
    /// Jobs of the census, primary or verification, still queued or running.
    pub active: u64,
}

/// The census-member kind: a census's games, each a member of it through its job — a
/// `sequence` job, listed, claimed and run as one (`JobKind::Sequence`). A submission of
/// [`CensusMembers`] inserts the census, its members' jobs and their links together (the
/// primary members; a verification member joins later, [`Store::start_verification`]). Its
/// submission: `crate::service::jobs::census`.
#[derive(Debug)]
pub struct CensusMemberJob;

/// What a census's submission inserts: the census and, for its `i`-th code, the job with the
/// `i`-th id.
#[derive(Debug, Clone)]
pub struct CensusMembers {
    census: NewCensus,
    job_ids: Vec<String>,
}

impl CensusMembers {
    /// The members of `census`, `job_ids[i]` the job of `census.codes[i]`; an error when the
    /// counts differ.
    pub fn new(census: NewCensus, job_ids: Vec<String>) -> Result<Self, StoreError> {
        if job_ids.len() != census.codes.len() {
            return Err(StoreError::Corrupt(format!(
                "a census of {} codes given {} job ids",
                census.codes.len(),
                job_ids.len()
            )));
        }
        Ok(CensusMembers { census, job_ids })
    }

    /// The census they are members of.
    pub fn census(&self) -> &NewCensus {
        &self.census
    }
}

impl JobRows for CensusMemberJob {
    type New = CensusMembers;
    /// The census, and its members' jobs in the order of its codes.
    type Rows = (Census, Vec<Job>);

    /// Every member's job at once.
    fn asks(new: &Self::New) -> (u64, u64) {
        let count = new.census.codes.len() as u64;
        (count, new.census.max_n.saturating_mul(count))
    }

    async fn insert(
        c: &mut AnyConnection,
        new: &Self::New,
        id: &str,
        owner: Option<&str>,
        now: i64,
    ) -> Result<Admission<(Census, Vec<Job>)>, StoreError> {
        let census = &new.census;
        let row = sqlx::query(&format!(
            "INSERT INTO census ({CENSUS_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, NULL) \
             RETURNING {CENSUS_COLUMNS}"
        ))
        .bind(id)
        .bind(now)
        .bind(owner)
        .bind(census.max_n.min(i64::MAX as u64) as i64)
        .bind(census.keep_window.map(|w| w as i64))
        .bind(i64::from(census.store_values))
        .bind(census.codes.join("\n"))
        .fetch_one(&mut *c)
        .await?;
        let created = census_from_row(&row)?;
        let mut jobs = Vec::with_capacity(census.codes.len());
        for (code, job_id) in census.codes.iter().zip(&new.job_ids) {
            jobs.push(insert_job(c, &census.job(code), job_id, owner, now).await?);
            insert_link(c, id, code, CensusRole::Primary, job_id).await?;
        }
        Ok(Admission::Created((created, jobs)))
    }
}

const CENSUS_COLUMNS: &str =
    "id, created_at, owner, max_n, keep_window, store_values, codes, cancelled_at";

fn census_from_row(row: &AnyRow) -> Result<Census, StoreError> {
    let codes: String = row.try_get("codes")?;
    Ok(Census {
        id: row.try_get("id")?,
        created_at: row.try_get("created_at")?,
        owner: row.try_get("owner")?,
        max_n: row.try_get::<i64, _>("max_n")?.max(0) as u64,
        keep_window: row
            .try_get::<Option<i64>, _>("keep_window")?
            .map(|w| w.max(0) as u64),
        store_values: row.try_get::<i64, _>("store_values")? != 0,
        codes: codes.lines().map(str::to_owned).collect(),
        cancelled_at: row.try_get("cancelled_at")?,
    })
}

async fn insert_link(
    c: &mut AnyConnection,
    census: &str,
    code: &str,
    role: CensusRole,
    job_id: &str,
) -> Result<bool, StoreError> {
    let r = sqlx::query(
        "INSERT INTO census_jobs (census_id, code, role, job_id) VALUES ($1, $2, $3, $4) \
         ON CONFLICT (census_id, code, role) DO NOTHING",
    )
    .bind(census)
    .bind(code)
    .bind(role.as_str())
    .bind(job_id)
    .execute(&mut *c)
    .await?;
    Ok(r.rows_affected() == 1)
}

impl Store {
    pub async fn get_census(&self, id: &str) -> Result<Option<Census>, StoreError> {
        let r = async {
            let row = sqlx::query(&format!(
                "SELECT {CENSUS_COLUMNS} FROM census WHERE id = $1"
            ))
            .bind(id)
            .fetch_optional(&self.pool())
            .await?;
            row.as_ref().map(census_from_row).transpose()
        }
        .await;
        self.track_read(r)
    }

    /// Censuses of `owner` (`None`: every census), newest first, at most `limit`.
    pub async fn list_censuses(
        &self,
        owner: Option<&str>,
        limit: u32,
    ) -> Result<Vec<Census>, StoreError> {
        let r = async {
            let pool = self.pool();
            let rows = match owner {
                Some(owner) => {
                    sqlx::query(&format!(
                        "SELECT {CENSUS_COLUMNS} FROM census WHERE owner = $1 \
                         ORDER BY created_at DESC, id DESC LIMIT $2"
                    ))
                    .bind(owner)
                    .bind(limit as i64)
                    .fetch_all(&pool)
                    .await?
                }
                None => {
                    sqlx::query(&format!(
                        "SELECT {CENSUS_COLUMNS} FROM census ORDER BY created_at DESC, id DESC LIMIT $1"
                    ))
                    .bind(limit as i64)
                    .fetch_all(&pool)
                    .await?
                }
            };
            rows.iter().map(census_from_row).collect()
        }
        .await;
        self.track_read(r)
    }

    /// How far each of the censuses `ids` got, by the status of its jobs (an id without
    /// jobs, or unknown, is left out).
    pub async fn census_counts(
        &self,
        ids: &[String],
    ) -> Result<HashMap<String, CensusCounts>, StoreError> {
        let mut out: HashMap<String, CensusCounts> = HashMap::new();
        if ids.is_empty() {
            return Ok(out);
        }
        let r = async {
            let marks: Vec<String> = (1..=ids.len()).map(|i| format!("${i}")).collect();
            let sql = format!(
                "SELECT l.census_id, l.role, j.status, COUNT(*) AS n FROM census_jobs l \
                 LEFT JOIN jobs j ON j.id = l.job_id WHERE l.census_id IN ({}) \
                 GROUP BY l.census_id, l.role, j.status",
                marks.join(", ")
            );
            let mut q = sqlx::query(&sql);
            for id in ids {
                q = q.bind(id.as_str());
            }
            for row in q.fetch_all(&self.pool()).await? {
                let id: String = row.try_get("census_id")?;
                let role = CensusRole::parse(&row.try_get::<String, _>("role")?)?;
                let status: Option<String> = row.try_get("status")?;
                let n = row.try_get::<i64, _>("n")?.max(0) as u64;
                let c = out.entry(id).or_default();
                let active = matches!(status.as_deref(), Some("queued" | "running"));
                if active {
                    c.active += n;
                }
                if role == CensusRole::Primary && status.as_deref() == Some("done") {
                    c.done += n;
                }
            }
            Ok(())
        }
        .await;
        self.track_read(r).map(|()| out)
    }

    /// The jobs of a census (primary and verification), in no particular order.
    pub async fn census_links(&self, id: &str) -> Result<Vec<CensusLink>, StoreError> {
        let r = async {
            let rows =
                sqlx::query("SELECT code, role, job_id FROM census_jobs WHERE census_id = $1")
                    .bind(id)
                    .fetch_all(&self.pool())
                    .await?;
            rows.iter()
                .map(|row| {
                    let role: String = row.try_get("role")?;
                    Ok(CensusLink {
                        code: row.try_get("code")?,
                        role: CensusRole::parse(&role)?,
                        job_id: row.try_get("job_id")?,
                    })
                })
                .collect()
        }
        .await;
        self.track_read(r)
    }

    /// Starts the verification job of `code` in census `id` (`job_id` for a new one), once:
    /// returns the id of the census's verification job of that code — the one already linked
    /// when there is one (a concurrent reader's), else the new one. Nothing is started for a
    /// cancelled census (`None`). One transaction.
    pub async fn start_verification(
        &self,
        id: &str,
        job: &NewJob,
        job_id: &str,
    ) -> Result<Option<String>, StoreError> {
        let now = now_ms();
        let r = async {
            let mut tx = self.begin_write().await?;
            let r = async {
                let c = tx.conn();
                let census = sqlx::query(&format!("SELECT {CENSUS_COLUMNS} FROM census WHERE id = $1"))
                    .bind(id)
                    .fetch_optional(&mut *c)
                    .await?;
                let Some(census) = census.as_ref().map(census_from_row).transpose()? else {
                    return Ok(None);
                };
                if census.cancelled_at.is_some() {
                    return Ok(None);
                }
                if insert_link(c, id, &job.code, CensusRole::Verification, job_id).await? {
                    insert_job(c, job, job_id, census.owner.as_deref(), now).await?;
                    return Ok(Some(job_id.to_owned()));
                }
                let existing: String = sqlx::query(
                    "SELECT job_id FROM census_jobs WHERE census_id = $1 AND code = $2 AND role = $3",
                )
                .bind(id)
                .bind(&job.code)
                .bind(CensusRole::Verification.as_str())
                .fetch_one(&mut *c)
                .await?
                .try_get("job_id")?;
                Ok(Some(existing))
            }
            .await;
            tx.finish(r).await
        }
        .await;
        self.track_commit(r)
    }

    /// Cancels a census: marks it cancelled (no verification starts after this), cancels its
    /// queued jobs at once and flags its running ones (their workers stop at the next
    /// checkpoint). Finished jobs are left as they are. One transaction; returns the census as
    /// committed (`None`: no such census).
    pub async fn cancel_census(&self, id: &str) -> Result<Option<Census>, StoreError> {
        let now = now_ms();
        let r = async {
            let mut tx = self.begin_write().await?;
            let r = async {
                let c = tx.conn();
                sqlx::query(
                    "UPDATE census SET cancelled_at = COALESCE(cancelled_at, $1) WHERE id = $2",
                )
                .bind(now)
                .bind(id)
                .execute(&mut *c)
                .await?;
                let its_jobs = "id IN (SELECT job_id FROM census_jobs WHERE census_id = $2)";
                let cancelled = cancel_where(c, its_jobs, id, now).await?;
                let row = sqlx::query(&format!(
                    "SELECT {CENSUS_COLUMNS} FROM census WHERE id = $1"
                ))
                .bind(id)
                .fetch_optional(&mut *c)
                .await?;
                Ok((row.as_ref().map(census_from_row).transpose()?, cancelled))
            }
            .await;
            tx.finish(r).await
        }
        .await;
        let (census, cancelled) = self.track_commit(r)?;
        count_finished(JobStatus::Cancelled, cancelled);
        Ok(census)
    }

    /// Deletes a census's record and links (its jobs stay, as jobs of their owner). One
    /// transaction; false when there was none.
    pub async fn delete_census(&self, id: &str) -> Result<bool, StoreError> {
        let r = async {
            let mut tx = self.begin_write().await?;
            let r = async {
                let c = tx.conn();
                sqlx::query("DELETE FROM census_jobs WHERE census_id = $1")
                    .bind(id)
                    .execute(&mut *c)
                    .await?;
                let gone = sqlx::query("DELETE FROM census WHERE id = $1")
                    .bind(id)
                    .execute(&mut *c)
                    .await?
                    .rows_affected()
                    == 1;
                Ok(gone)
            }
            .await;
            tx.finish(r).await
        }
        .await;
        self.track_commit(r)
    }
}
