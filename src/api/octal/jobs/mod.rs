//! `/v1/octal/jobs`: durable long-running computations (run by `crate::service::jobs`):
//! octal sequences (`POST /v1/octal/jobs`, a census's jobs) and misère quotients
//! (`POST /v1/octal/misere/quotient` with `"async": true`), listed, read, watched and
//! cancelled alike.

// This file is the lifecycle every kind of job shares: the job document, the list with its
// filters and cursors, reading and cancelling one; a kind adds its own submission and options.
pub mod census; // /v1/octal/census: one job per game, a table of statistics and verified verdicts
pub mod events; // GET /v1/octal/jobs/{id}/events (Server-Sent Events)
pub mod sequence; // POST /v1/octal/jobs: the octal-sequence kind, its request and options
pub mod statistics; // GET /v1/octal/jobs/{id}/statistics: the tables' statistics of a job

pub use sequence::{JobRequest, KeepMode};

use axum::extract::State;
use axum::Json;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::api::auth::{JobReader, JobWriter};
use crate::api::octal::PeriodicityInfo;
use crate::api::wire::doc_responses::{
    AuthProblems, BadId, JobNotFound, StoreUnavailable, StoreWriteProblems,
};
use crate::api::wire::error::ApiError;
use crate::api::wire::params::{ApiPath, ApiQuery};
use crate::problem::Problem;
use crate::service::auth::{Caller, Listing};
use crate::service::AppState;
use crate::store::{
    ArchiveReport, Job, JobFilter, JobKind, JobStatus, PeriodicityRecord, QuotientProgress, Stall,
    Store,
};

/// Progress of a job.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct Progress {
    /// Values computed (and stored) so far; a `misere_quotient` job: the heap its verified
    /// quotient reached.
    pub computed: u64,
    pub max_n: u64,
    /// Heaps per second over the last checkpoint interval.
    pub heaps_per_second: Option<f64>,
    /// Estimated seconds left at that rate (an upper bound: the job stops early on a proof).
    pub eta_seconds: Option<f64>,
}

/// What a job computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum JobKindName {
    /// The G-sequence of an octal game (`POST /v1/octal/jobs`, a census's jobs).
    Sequence,
    /// A misère quotient (`POST /v1/octal/misere/quotient` with `"async": true`).
    MisereQuotient,
}

impl From<JobKind> for JobKindName {
    fn from(k: JobKind) -> Self {
        match k {
            JobKind::Sequence => JobKindName::Sequence,
            JobKind::MisereQuotient => JobKindName::MisereQuotient,
        }
    }
}

impl From<JobKindName> for JobKind {
    fn from(k: JobKindName) -> Self {
        match k {
            JobKindName::Sequence => JobKind::Sequence,
            JobKindName::MisereQuotient => JobKind::MisereQuotient,
        }
    }
}

/// A job's status, as the list's `status` filter names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum JobStatusName {
    Queued,
    Running,
    Done,
    Failed,
    Cancelled,
}

impl From<JobStatusName> for JobStatus {
    fn from(s: JobStatusName) -> Self {
        match s {
            JobStatusName::Queued => JobStatus::Queued,
            JobStatusName::Running => JobStatus::Running,
            JobStatusName::Done => JobStatus::Done,
            JobStatusName::Failed => JobStatus::Failed,
            JobStatusName::Cancelled => JobStatus::Cancelled,
        }
    }
}

/// A misère-quotient job's progress: how far its verified quotient got.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"heap": 52, "q_size": 288, "p_size": 70, "seconds": 4.2, "steps": 912000000u64,
    "resumed_from": null, "location": "/v1/octal/misere/quotient?code=0.26&max_heap=66"}))]
pub struct QuotientJobProgress {
    /// The largest heap done: the quotient of the heaps 0..=heap is verified
    /// (`progress.computed` too).
    pub heap: u64,
    /// |Q| and |P| of that quotient.
    pub q_size: u64,
    pub p_size: u64,
    /// Compute time spent on it, over every run of the job (its limit is
    /// `GRUNDY_MISERE_JOB_SECS`).
    pub seconds: f64,
    /// Engine steps spent, over every run (its limit is `GRUNDY_MISERE_JOB_STEPS`).
    pub steps: u64,
    /// The heap of the verified quotient the latest run resumed from (after a restart or a
    /// crash, or from a smaller quotient already stored); null: it started from scratch.
    pub resumed_from: Option<u64>,
    /// Why a saved quotient was not used (it failed its check), if one was not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rejected: Option<String>,
    /// Where the quotient is read once the job is done (`GET`).
    pub location: String,
}

/// Where a misère quotient is read (`code` percent-encoded but for letters, digits and `.`).
pub(super) fn quotient_location(code: &str, max_heap: u64) -> String {
    let enc = crate::core::octal::code::percent_encode(code);
    format!("/v1/octal/misere/quotient?code={enc}&max_heap={max_heap}")
}

/// A job.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"id": "3f1c…", "kind": "sequence", "code": "0.6", "max_n": 10000000, "status": "running",
    "progress": {"computed": 1200000, "max_n": 10000000, "heaps_per_second": 400000.0, "eta_seconds": 22.0},
    "periodicity": {"status": "unknown", "preperiod": null, "period": null, "saltus": null, "proved_at": null, "theorem": null},
    "error": null, "cancel_requested": false, "attempts": 1, "created_at_ms": 1795000000000u64, "started_at_ms": 1795000000100u64, "finished_at_ms": null,
    "threads": 6, "cpu_seconds": 17.4, "engine": {"version": "0.1.0", "commit": "c02342765517cb34bc2ff1c4f75114ef3670d59d"}}))]
pub struct JobResponse {
    pub id: String,
    /// What the job computes: `sequence` (G-values to `max_n`) or `misere_quotient` (the
    /// misère quotient of the heaps 0..=`max_heap`; then `max_n` = `max_heap`).
    pub kind: JobKindName,
    /// The canonical game code.
    pub code: String,
    pub max_n: u64,
    /// A `misere_quotient` job: the largest heap of the quotient (absent for `sequence`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_heap: Option<u64>,
    /// `queued`, `running`, `done`, `failed` or `cancelled`.
    pub status: String,
    /// `all` or `window` (see the request).
    pub keep: KeepMode,
    /// The front and window size of a `window` job (null for `all`).
    pub window: Option<u64>,
    /// Whether every value is stored (and downloadable): always for `all`.
    pub store_values: bool,
    pub progress: Progress,
    /// The verdict on the values computed so far (proved periodicity ends the job early).
    pub periodicity: PeriodicityInfo,
    /// Why the job failed.
    pub error: Option<String>,
    /// A cancel was requested and the worker will stop at its next checkpoint.
    pub cancel_requested: bool,
    /// How many times a worker claimed this job (more than 1 after a crash or restart).
    pub attempts: i64,
    /// Milliseconds since the Unix epoch.
    pub created_at_ms: i64,
    pub started_at_ms: Option<i64>,
    pub finished_at_ms: Option<i64>,
    /// The name of the API key that submitted the job (null on a server without keys). Never
    /// the key itself.
    #[serde(default)]
    pub owner: Option<String>,
    /// Present while the job is running but cannot save its progress (the store is full or
    /// unavailable): it keeps what it computed, retries with back-off and continues by itself
    /// once the store takes writes again. `heaps_per_second` and `eta_seconds` are null then.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stalled: Option<JobStall>,
    /// A `window` job: the values it dropped from memory are on disk (its archive) and read
    /// back when a heap needs them. Absent for `all` jobs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub archive: Option<JobArchive>,
    /// A `misere_quotient` job: the heap its verified quotient reached, |Q| and |P| there
    /// (absent for `sequence`). A job for a quotient another key's job is computing waits
    /// `queued` showing that computation's progress, and ends with it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quotient: Option<QuotientJobProgress>,
    /// The threads the job computes on now (while it runs), or ran on last; null before it
    /// first ran. `GRUNDY_JOB_THREADS` sets it: by default the cores of the replica divided
    /// among the jobs running there, re-balanced at each checkpoint as jobs start and end; a
    /// `misere_quotient` job computes on one.
    #[serde(default)]
    // `maximum` is `config::MAX_JOB_THREADS` (a literal: the attribute takes no path; the
    // assertion after this struct holds them equal).
    #[schema(minimum = 1, maximum = 64)]
    pub threads: Option<u64>,
    /// The CPU time the job has used in all, in seconds: every thread it computed on, over
    /// every run on every replica (saved with each checkpoint, so a run's last seconds before
    /// a crash are not counted). Null where it was never measured (a replica without Linux's
    /// `/proc`).
    #[serde(default)]
    #[schema(minimum = 0)]
    pub cpu_seconds: Option<f64>,
    /// The engine that computed the job's latest values, to cite with a result; null before
    /// the job first ran.
    #[serde(default)]
    pub engine: Option<EngineInfo>,
}

// The document's `threads.maximum` above is the engine's thread cap.
const _: () = assert!(crate::config::MAX_JOB_THREADS == 64);

/// The engine that computed a job: the service's crate version and the git commit it was
/// built from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"version": "0.1.0", "commit": "c02342765517cb34bc2ff1c4f75114ef3670d59d"}))]
pub struct EngineInfo {
    /// The crate version (`grundy` in Cargo.toml).
    pub version: String,
    /// The git commit of the build (`-dirty` when built from a work tree with changes;
    /// `unknown` for a build without git that was not given `GRUNDY_GIT_COMMIT`).
    pub commit: String,
}

/// A window job's values on disk and its read-backs (over every run of the job).
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"disk_bytes": 812000000u64, "reads": 41, "values_read": 2600000,
    "read_seconds": 0.8, "deep_scans": 2, "far_rare_positions": 2}))]
pub struct JobArchive {
    /// Bytes the job's values take on disk (front, window and archive; compressed, with
    /// checksums).
    pub disk_bytes: u64,
    /// Reads from the archive, the values they returned, and their wall time.
    pub reads: u64,
    pub values_read: u64,
    pub read_seconds: f64,
    /// Rare checks that scanned past the values held in memory (a heap whose value is rare,
    /// or whose witnesses lie deep).
    pub deep_scans: u64,
    /// Rare positions beyond the window: each pairs with values read back a run at a time.
    pub far_rare_positions: u64,
    /// Set when the archive was found damaged (a chunk missing or failing its checksum) and
    /// the job started over from heap 0: what was found, where.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rebuilt: Option<String>,
}

/// Why a running job is stalled.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"reason": "store_full", "detail": "database error: database or disk is full",
    "since_ms": 1795000000000u64, "retries": 7, "computed_in_memory": 1400000}))]
pub struct JobStall {
    /// `store_full`, `store_unavailable`, `store_schema_missing`, `store_busy`,
    /// `store_permission`, `store_io` or `store_error`.
    pub reason: String,
    /// The store's last error.
    pub detail: String,
    /// When the stall began (milliseconds since the Unix epoch).
    pub since_ms: i64,
    /// Failed attempts to save so far.
    pub retries: u64,
    /// Values computed and held in memory, waiting to be stored (`progress.computed` counts
    /// only stored ones).
    pub computed_in_memory: u64,
}

impl JobResponse {
    /// The job as stored, with what this replica knows in memory about a stall.
    pub fn with_stall(j: Job, stall: Option<Stall>) -> Self {
        let stalled = stall.filter(|_| j.status == JobStatus::Running);
        let mut r = JobResponse::from(j);
        if let Some(s) = stalled {
            r.progress.heaps_per_second = None;
            r.progress.eta_seconds = None;
            r.stalled = Some(JobStall {
                reason: s.kind.reason().to_owned(),
                detail: s.detail,
                since_ms: s.since_ms,
                retries: s.retries,
                computed_in_memory: s.computed,
            });
        }
        r
    }
}

impl From<Job> for JobResponse {
    fn from(j: Job) -> Self {
        let rate = j.rate.filter(|r| r.is_finite() && *r > 0.0);
        // The stored sequence is shared per code and may be longer than this job asked for.
        let computed = j.computed.min(j.max_n);
        let left = j.max_n.saturating_sub(computed) as f64;
        let periodicity = j
            .periodicity
            .as_deref()
            .and_then(PeriodicityRecord::from_json)
            .map(PeriodicityInfo::from)
            .unwrap_or_else(|| PeriodicityInfo::from_core(&Default::default(), None));
        let quotient = (j.kind == JobKind::MisereQuotient).then(|| {
            let p = QuotientProgress::of(&j);
            QuotientJobProgress {
                heap: p.heap,
                q_size: p.q_size,
                p_size: p.p_size,
                seconds: p.compute_ms as f64 / 1000.0,
                steps: p.steps,
                resumed_from: p.resumed_from,
                rejected: p.rejected,
                location: quotient_location(&j.code, j.max_n),
            }
        });
        JobResponse {
            kind: j.kind.into(),
            max_heap: (j.kind == JobKind::MisereQuotient).then_some(j.max_n),
            quotient,
            progress: Progress {
                computed,
                max_n: j.max_n,
                heaps_per_second: rate,
                eta_seconds: if j.status == JobStatus::Running {
                    rate.map(|r| left / r)
                } else {
                    None
                },
            },
            id: j.id,
            code: j.code,
            max_n: j.max_n,
            status: j.status.as_str().to_owned(),
            keep: if j.keep_window.is_some() {
                KeepMode::Window
            } else {
                KeepMode::All
            },
            window: j.keep_window,
            store_values: j.store_values,
            periodicity,
            error: j.error,
            cancel_requested: j.cancel_requested,
            attempts: j.attempts,
            created_at_ms: j.created_at,
            started_at_ms: j.started_at,
            finished_at_ms: j.finished_at,
            archive: j.keep_window.map(|_| {
                let r = ArchiveReport::parse(j.archive.as_deref());
                JobArchive {
                    disk_bytes: j.archive_bytes,
                    reads: r.reads,
                    values_read: r.values_read,
                    read_seconds: r.read_seconds,
                    deep_scans: r.deep_scans,
                    far_rare_positions: r.far_rare_positions,
                    rebuilt: r.rebuilt,
                }
            }),
            owner: j.owner,
            stalled: None,
            threads: j.threads,
            cpu_seconds: j.cpu_ms.map(|ms| ms as f64 / 1000.0),
            engine: match (j.engine_version, j.engine_commit) {
                (Some(version), Some(commit)) => Some(EngineInfo { version, commit }),
                _ => None,
            },
        }
    }
}

/// A page of jobs, newest first.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct JobList {
    pub jobs: Vec<JobResponse>,
    /// Pass as `cursor` for the next page; null on the last page.
    pub next_cursor: Option<String>,
    /// How many jobs the list holds with these filters (`owner`, `kind`, `status`), every page
    /// together, as of this request.
    #[serde(default)]
    pub total: u64,
    /// The name of the API key that asked (null on a server without keys).
    #[serde(default)]
    pub key_name: Option<String>,
    /// Whose jobs are listed: a key's own unless it is an `admin` key (then every owner's, or
    /// the `owner` asked for); null: every owner's.
    #[serde(default)]
    pub owner: Option<String>,
}

/// Paging of the job list.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ListParams {
    /// Jobs per page (1..=1000, default 50).
    #[param(minimum = 1, maximum = 1000, default = 50)]
    pub limit: Option<u64>,
    /// `next_cursor` of the previous page (`<created_at_ms>:<id>`; empty for the first page).
    #[param(pattern = r"^(-?[0-9]{1,18}:[\s\S]*)?$")]
    pub cursor: Option<String>,
    /// Only the jobs of the key named so (an `admin` key: any name; another key sees only its
    /// own jobs, so another name lists none).
    #[param(pattern = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")]
    pub owner: Option<String>,
    /// Only the jobs of this kind (`sequence` or `misere_quotient`).
    #[param(inline)]
    pub kind: Option<JobKindName>,
    /// Only the jobs in this status (`queued`, `running`, `done`, `failed` or `cancelled`).
    #[param(inline)]
    pub status: Option<JobStatusName>,
}

pub(super) fn store(app: &AppState) -> Result<Store, ApiError> {
    app.store().ok_or_else(|| ApiError::Unavailable {
        detail:
            "the job store is not connected (GRUNDY_DATABASE_URL); compute endpoints still work"
                .into(),
        retry_after_secs: 5,
    })
}

fn not_found(id: &str) -> ApiError {
    ApiError::NotFound {
        detail: format!("no job with id {id:?}"),
    }
}

/// The store and the job `id` in it (404 when there is none, or when `caller` may not see it:
/// another's job is answered as if it did not exist).
pub(super) async fn existing(
    app: &AppState,
    id: &str,
    caller: &Caller,
) -> Result<(Store, Job), ApiError> {
    let store = store(app)?;
    let job = store
        .get_job(id)
        .await?
        .filter(|j| caller.sees(j))
        .ok_or_else(|| not_found(id))?;
    Ok((store, job))
}

/// List jobs, newest first.
#[utoipa::path(
    get, path = "/v1/octal/jobs", operation_id = "list_octal_jobs", tag = "octal-jobs",
    params(ListParams), security(("api_key" = [])),
    responses(
        (status = 200, description = "A page of jobs of every kind and status (or of `kind`, in `status`): the key's own (an `admin` key's: every owner's), with `total`, how many there are on every page", body = JobList),
        AuthProblems,
        (status = 422, description = "Bad limit, cursor (out of range or not a number), owner, kind or status", body = Problem, content_type = "application/problem+json"),
        (status = 503, response = StoreUnavailable),
    )
)]
async fn list(
    State(app): State<AppState>,
    JobReader(caller): JobReader,
    ApiQuery(params): ApiQuery<ListParams>,
) -> Result<Json<JobList>, ApiError> {
    let limit = match params.limit.unwrap_or(50) {
        l @ 1..=1000 => l as u32,
        l => {
            return Err(ApiError::invalid(
                "limit",
                format!("limit: {l} is outside 1..=1000"),
            ))
        }
    };
    let after = match params.cursor.as_deref() {
        None | Some("") => None,
        Some(c) => {
            let parsed = c
                .split_once(':')
                .and_then(|(t, id)| Some((t.parse::<i64>().ok()?, id.to_owned())));
            Some(parsed.ok_or_else(|| {
                ApiError::invalid(
                    "cursor",
                    format!("cursor: {c:?} is not a cursor from this list"),
                )
            })?)
        }
    };
    if let Some(owner) = params.owner.as_deref() {
        if !crate::config::keys::valid_name(owner) {
            return Err(ApiError::invalid(
                "owner",
                format!("owner: {owner:?} is not a key name (1 to 64 of A-Z a-z 0-9 . _ -)"),
            ));
        }
    }
    let store = store(&app)?;
    let listing = caller.listing(params.owner.as_deref());
    // Whose jobs: `None` lists nothing (a key asking for another owner's).
    let owner = match &listing {
        Listing::All => Some(None),
        Listing::Owner(o) => Some(Some(o.as_str())),
        Listing::Nothing => None,
    };
    let (jobs, total) = match owner {
        Some(owner) => {
            let filter = JobFilter {
                owner,
                kind: params.kind.map(JobKind::from),
                status: params.status.map(JobStatus::from),
            };
            let first_page = after.is_none();
            let jobs = store.list_jobs_filtered(filter, limit, after).await?;
            // A first page that is not full holds every job: no second query.
            let total = if first_page && jobs.len() < limit as usize {
                jobs.len() as u64
            } else {
                store.count_jobs_filtered(filter).await?
            };
            (jobs, total)
        }
        None => (Vec::new(), 0),
    };
    let next_cursor = (jobs.len() == limit as usize)
        .then(|| jobs.last().map(|j| format!("{}:{}", j.created_at, j.id)))
        .flatten();
    Ok(Json(JobList {
        jobs: jobs
            .into_iter()
            .map(|j| {
                let stall = store.stall(&j.id);
                JobResponse::with_stall(j, stall)
            })
            .collect(),
        next_cursor,
        total,
        key_name: caller.key_name().map(str::to_owned),
        owner: match listing {
            Listing::Owner(o) => Some(o),
            Listing::All | Listing::Nothing => params.owner,
        },
    }))
}

/// One job: status, progress, periodicity once proved.
#[utoipa::path(
    get, path = "/v1/octal/jobs/{id}", operation_id = "get_octal_job", tag = "octal-jobs",
    params(("id" = String, Path, description = "Job id")), security(("api_key" = [])),
    responses(
        (status = 200, description = "The job", body = JobResponse),
        AuthProblems,
        BadId,
        (status = 404, response = JobNotFound),
        (status = 503, response = StoreUnavailable),
    )
)]
async fn get(
    State(app): State<AppState>,
    JobReader(caller): JobReader,
    ApiPath(id): ApiPath<String>,
) -> Result<Json<JobResponse>, ApiError> {
    let (store, job) = existing(&app, &id, &caller).await?;
    let stall = store.stall(&job.id);
    Ok(Json(JobResponse::with_stall(job, stall)))
}

/// Cancel a queued or running job (queued at once; running at its next checkpoint, within
/// seconds), or delete the record of a finished one (its computed values stay in the store).
#[utoipa::path(
    delete, path = "/v1/octal/jobs/{id}", operation_id = "cancel_octal_job", tag = "octal-jobs",
    params(("id" = String, Path, description = "Job id")), security(("api_key" = [])),
    responses(
        (status = 200, description = "The job after the cancel request, or the deleted finished job", body = JobResponse),
        AuthProblems,
        BadId,
        (status = 404, response = JobNotFound),
        StoreWriteProblems,
    )
)]
async fn cancel(
    State(app): State<AppState>,
    JobWriter(caller): JobWriter,
    ApiPath(id): ApiPath<String>,
) -> Result<Json<JobResponse>, ApiError> {
    let (store, job) = existing(&app, &id, &caller).await?;
    if job.status.is_final() {
        store.delete_job(&id).await?;
        return Ok(Json(job.into()));
    }
    let job = store.cancel_job(&id).await?.ok_or_else(|| not_found(&id))?;
    let stall = store.stall(&job.id);
    Ok(Json(JobResponse::with_stall(job, stall)))
}

/// `/v1/octal/jobs*` and `/v1/octal/census*`: these routes, the events', the statistics' and the
/// censuses'.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(sequence::create, list))
        .routes(routes!(get, cancel))
        .merge(events::router())
        .merge(statistics::router())
        .merge(census::router())
}
