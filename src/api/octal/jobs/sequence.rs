//! `POST /v1/octal/jobs`: the octal-sequence kind of job — compute g(0..max_n−1) of a game,
//! keeping every value or a window — its request, the options a census's jobs take too, and
//! its submission within the caller's quotas. Read, listed, watched and cancelled as every job
//! is (`super`).

use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::{store, JobResponse};
use crate::api::auth::JobWriter;
use crate::api::octal::parse_code;
use crate::api::wire::doc_responses::{AuthProblems, BodyProblems, StoreWriteProblems};
use crate::api::wire::error::ApiError;
use crate::api::wire::json::ApiJson;
use crate::api::wire::nat::Nat;
use crate::problem::Problem;
use crate::service::jobs::request::{JobAsk, JobRefusal, Keep, WindowOption};
use crate::service::jobs::{JobSubmit, Submission};
use crate::service::AppState;
use crate::store::SequenceJob;

/// Declares an octal job request: its own field, then the options every such request shares —
/// `max_n`, `keep` and the window options `window` and `store_values`, with their rules —
/// written once, each with the docs the request gives it (what they mean differs a little
/// between a job and a census). [`new_job`] reads them.
macro_rules! job_request {
    (
        $(#[$attr:meta])*
        pub struct $name:ident {
            $(#[$own_attr:meta])*
            pub $own:ident: $own_ty:ty,
            $(#[$max_n:meta])*
            max_n,
            $(#[$keep:meta])*
            keep,
            $(#[$window:meta])*
            window,
            $(#[$store_values:meta])*
            store_values,
        }
    ) => {
        $(#[$attr])*
        pub struct $name {
            $(#[$own_attr])*
            pub $own: $own_ty,
            $(#[$max_n])*
            #[schema(schema_with = crate::api::wire::schema_rules::job_max_n)]
            pub max_n: Nat,
            $(#[$keep])*
            #[serde(default)]
            pub keep: Option<KeepMode>,
            $(#[$window])*
            #[serde(default)]
            #[schema(schema_with = crate::api::wire::schema_rules::job_window)]
            pub window: Option<Nat>,
            $(#[$store_values])*
            #[serde(default)]
            pub store_values: Option<bool>,
        }
    };
}
pub(crate) use job_request;

job_request! {
    /// A job request: compute g(0..max_n−1) of a game, stopping early once periodicity is proved.
    #[derive(Debug, Deserialize, ToSchema)]
    #[serde(deny_unknown_fields)]
    #[schema(example = json!({"code": "0.6", "max_n": 10000000}))]
    pub struct JobRequest {
        /// A game code (as for `/v1/octal/sequence`).
        #[schema(schema_with = crate::api::wire::schema_rules::game_code)]
        pub code: String,
        /// How many values to compute at most (≤ `GRUNDY_JOB_MAX_N`, default 1,000,000,000, keeping
        /// every value; ≤ `GRUNDY_JOB_WINDOW_MAX_N`, default 2^48, with `"keep": "window"`).
        max_n,
        /// Which values the job keeps: `all` — every value in memory and in the store
        /// (downloadable, any periodicity provable); `window` — only the front G(0..window) and
        /// the last `window` values, so memory stays bounded whatever `max_n` (for the rare/common
        /// method's sparse games; a heap that cannot be decided from what is kept fails the job
        /// with a problem saying which window would do). Statistics are kept either way. Absent or
        /// null: `window` when a window option (`window`, `store_values`) is given, else `all`; an
        /// explicit `"keep": "all"` with a window option is refused (422 naming the option).
        /// Window mode cannot compute a game with a digit whose moves leave three heaps (a digit
        /// 8 to F) or with recurring digits: such a game is accepted in window mode only with a
        /// `window` of at least `max_n` (it holds every value: the job then runs as `all`), and
        /// otherwise refused (422 naming `keep` and the digit).
        keep,
        /// A window option: the front and window size (see the schema). Implies `"keep": "window"`.
        window,
        /// A window option: also store every value, so that they can be downloaded (default false:
        /// the store keeps only the front, the window and the statistics). Implies
        /// `"keep": "window"`; refused with `"keep": "all"` (which stores every value anyway).
        store_values,
    }
}

/// Which values a job keeps in memory (see `JobRequest.keep`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum KeepMode {
    #[default]
    All,
    Window,
}

impl From<KeepMode> for Keep {
    fn from(k: KeepMode) -> Self {
        match k {
            KeepMode::All => Keep::All,
            KeepMode::Window => Keep::Window,
        }
    }
}

impl JobRequest {
    /// What the request asks for, to check (`crate::service::jobs::request`).
    pub(super) fn ask(&self) -> JobAsk {
        JobAsk {
            max_n: self.max_n.0,
            keep: self.keep.map(Keep::from),
            window: self.window.map(|w| w.0),
            store_values: self.store_values,
        }
    }
}

/// A refused job request as a problem naming its field. `cannot_window`: the field and the
/// advice when the game cannot run in window mode (a job names `keep`, a census the code).
pub(super) fn refused(
    r: JobRefusal,
    cannot_window: impl FnOnce(String, u64) -> ApiError,
) -> ApiError {
    match r {
        JobRefusal::MaxN {
            given,
            limit,
            window_mode,
        } => {
            let (var, hint) = if window_mode {
                ("GRUNDY_JOB_WINDOW_MAX_N", "")
            } else {
                (
                    "GRUNDY_JOB_MAX_N",
                    "; a job with \"keep\": \"window\" may go further",
                )
            };
            ApiError::invalid(
                "max_n",
                format!("max_n: {given} is outside 1..={limit} ({var}){hint}"),
            )
        }
        JobRefusal::OptionNeedsWindow(option) => {
            let field = match option {
                WindowOption::Window => "window",
                WindowOption::StoreValues => "store_values",
            };
            ApiError::invalid(
                field,
                format!(
                    "{field}: only a job with \"keep\": \"window\" takes it, and this one \
                     says \"keep\": \"all\" (leave \"keep\" out: a {field} implies \
                     \"keep\": \"window\")"
                ),
            )
        }
        JobRefusal::Window { given, slide, most } => ApiError::invalid(
            "window",
            format!(
                "window: {given} must be a positive multiple of {slide} up to {most} \
                 (GRUNDY_JOB_MAX_WINDOW)"
            ),
        ),
        JobRefusal::CannotWindow { why, max_n, .. } => cannot_window(why, max_n),
    }
}

/// Submit a long computation.
#[utoipa::path(
    post, path = "/v1/octal/jobs", operation_id = "create_octal_job", tag = "octal-jobs",
    request_body = JobRequest, security(("api_key" = [])),
    responses(
        (status = 202, description = "Queued; the Location header points at the job", body = JobResponse,
            headers(("Location" = String, description = "/v1/octal/jobs/{id}"))),
        BodyProblems,
        AuthProblems,
        (status = 422, description = "Bad game code, max_n above GRUNDY_JOB_MAX_N (GRUNDY_JOB_WINDOW_MAX_N in window mode), a window option (`window`, `store_values`) with `\"keep\": \"all\"` (without `keep` it implies `\"keep\": \"window\"`), or window mode for a game it cannot compute (a digit leaving three heaps, or recurring digits) with a window smaller than max_n (`keep`, naming the digit)", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "A quota of the key is exceeded: the problem's `quota` (`active_jobs` or `heaps_per_day`) and `limit` name it (Retry-After)", body = Problem, content_type = "application/problem+json",
            headers(("Retry-After" = u64, description = "Seconds to wait"))),
        StoreWriteProblems,
    )
)]
pub(super) async fn create(
    State(app): State<AppState>,
    JobWriter(caller): JobWriter,
    ApiJson(req): ApiJson<JobRequest>,
) -> Result<Response, ApiError> {
    let game = parse_code("code", &req.code)?;
    let new = req.ask().job(&app.config, &game).map_err(|r| {
        refused(r, |why, max_n| {
            ApiError::invalid(
                "keep",
                format!(
                    "keep: {why}; keep \"all\", or give a window of at least max_n \
                     ({max_n}), which holds every value"
                ),
            )
        })
    })?;
    let store = store(&app)?;
    let id = uuid::Uuid::new_v4().to_string();
    let job = match SequenceJob::submit(&caller, &store, &new, &id).await? {
        Submission::Created(job) | Submission::Joined(job) => *job,
        Submission::OverQuota(q) => return Err(q.into()),
    };
    app.job_notify.notify_one();
    let location = format!("/v1/octal/jobs/{id}");
    Ok((
        StatusCode::ACCEPTED,
        [(header::LOCATION, location)],
        Json(JobResponse::from(job)),
    )
        .into_response())
}
