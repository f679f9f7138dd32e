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
use crate::service::jobs::{JobSubmit, Submission};
use crate::service::AppState;
use crate::store::{NewJob, SequenceJob};

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

/// Whether a request runs in window mode: as its `keep` says; without one, when it gives a
/// window option (`window`, `store_values`).
pub(super) fn window_mode(req: &JobRequest) -> bool {
    match req.keep {
        Some(keep) => keep == KeepMode::Window,
        None => req.window.is_some() || req.store_values.is_some(),
    }
}

/// The job a valid request asks for: `max_n` within the mode's limit, window options only in
/// window mode (which they imply when `keep` is not given).
pub(super) fn new_job(
    config: &crate::config::Config,
    code: String,
    req: &JobRequest,
) -> Result<NewJob, ApiError> {
    let max_n = req.max_n.0;
    let window_mode = window_mode(req);
    let (limit, var) = if window_mode {
        (config.job_window_max_n, "GRUNDY_JOB_WINDOW_MAX_N")
    } else {
        (config.job_max_n, "GRUNDY_JOB_MAX_N")
    };
    if max_n == 0 || max_n > limit {
        let hint = if window_mode {
            ""
        } else {
            "; a job with \"keep\": \"window\" may go further"
        };
        return Err(ApiError::invalid(
            "max_n",
            format!("max_n: {max_n} is outside 1..={limit} ({var}){hint}"),
        ));
    }
    if !window_mode {
        for (field, given) in [
            ("window", req.window.is_some()),
            ("store_values", req.store_values.is_some()),
        ] {
            if given {
                return Err(ApiError::invalid(
                    field,
                    format!(
                        "{field}: only a job with \"keep\": \"window\" takes it, and this one \
                         says \"keep\": \"all\" (leave \"keep\" out: a {field} implies \
                         \"keep\": \"window\")"
                    ),
                ));
            }
        }
        return Ok(NewJob {
            code,
            max_n,
            keep_window: None,
            store_values: true,
        });
    }
    let slide = crate::core::octal::SLIDE as u64;
    let window = req.window.map_or(config.job_window, |w| w.0);
    if window == 0 || !window.is_multiple_of(slide) || window > config.job_max_window {
        return Err(ApiError::invalid(
            "window",
            format!(
                "window: {window} must be a positive multiple of {slide} up to {} \
                 (GRUNDY_JOB_MAX_WINDOW)",
                config.job_max_window
            ),
        ));
    }
    Ok(NewJob {
        code,
        max_n,
        keep_window: Some(window),
        store_values: req.store_values.unwrap_or(false),
    })
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
    let mut new = new_job(&app.config, game.canonical(), &req)?;
    if let Some(window) = new.keep_window {
        if let Some(why) = crate::service::octal::window_refusal(&game) {
            if window < new.max_n {
                return Err(ApiError::invalid(
                    "keep",
                    format!(
                        "keep: {why}; keep \"all\", or give a window of at least max_n \
                         ({}), which holds every value",
                        new.max_n
                    ),
                ));
            }
            // The window holds every value: the job keeps all (and stores every value).
            new.keep_window = None;
            new.store_values = true;
        }
    }
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
