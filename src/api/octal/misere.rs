//! `POST /v1/octal/misere/quotient`: the verified misère quotient `Q_n` of a take-and-break
//! game (|Q|, |P|, the pretending function Φ, the presentation, tameness, proved periodicity,
//! and the multiplication table one page of rows at a time). With `"async": true` (an API key
//! with the jobs scope where keys are on) a quotient beyond the synchronous limits is computed
//! by a misère-quotient job (202 with the job document and a `Location` at
//! `/v1/octal/jobs/{id}`), and `GET /v1/octal/misere/quotient?code=…&max_heap=…` answers it
//! once stored. Misère outcomes and winning moves are answered by
//! `POST /v1/octal/winning-moves` with `"play": "misere"`.

use axum::extract::State;
use axum::http::header::{AUTHORIZATION, LOCATION, RETRY_AFTER};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::api::compute::respond;
use crate::api::octal::jobs::{quotient_location, store, JobResponse};
use crate::api::octal::parse_code;
use crate::api::wire::doc_responses::{AuthProblems, BadQuery, BodyProblems, StoreUnavailable};
use crate::api::wire::error::ApiError;
use crate::api::wire::json::ApiJson;
use crate::api::wire::nat::Nat;
use crate::api::wire::params::ApiQuery;
use crate::core::misere::MisereQuotient;
use crate::problem::Problem;
use crate::service::auth::Action;
use crate::service::jobs::{JobSubmit, Submission};
use crate::service::misere::{Lookup, MAX_BOUND};
use crate::service::AppState;
use crate::store::{JobStatus, QuotientJob};

/// Most rows of the multiplication table in one answer.
pub const MAX_TABLE_ROWS: u64 = 256;

/// A quotient request.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"code": "0.(3)", "max_heap": 3, "table_rows": 2}))]
pub struct QuotientRequest {
    /// A game code, as for `POST /v1/octal/sequence`.
    #[schema(schema_with = crate::api::wire::schema_rules::game_code)]
    pub code: String,
    /// The quotient of the heaps 0..=max_heap (of the whole game when a periodicity is proved).
    #[schema(schema_with = crate::api::wire::schema_rules::misere_max_heap)]
    pub max_heap: Nat,
    /// The first row of the multiplication table in `table`.
    #[serde(default)]
    #[schema(schema_with = crate::api::wire::schema_rules::misere_table_offset)]
    pub table_offset: Option<Nat>,
    /// How many rows of the multiplication table to include (0: none).
    #[serde(default)]
    #[schema(schema_with = crate::api::wire::schema_rules::misere_table_rows)]
    pub table_rows: Option<Nat>,
    /// Compute it by a job instead (default false): 202 with the job document (kind
    /// `misere_quotient`) and a `Location` at `/v1/octal/jobs/{id}` — the caller's job for the
    /// same quotient if it has one queued or running —, or 200 with the quotient when it is
    /// computed already. Needs an API key with the `jobs` scope where the server has keys.
    #[serde(default, rename = "async")]
    pub run_async: bool,
}

/// A quotient a job is computing, queued or running (its progress is in the job document,
/// for the key that submitted it).
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"code": "0.07", "max_heap": 36, "status": "running",
    "location": "/v1/octal/misere/quotient?code=0.07&max_heap=36"}))]
pub struct QuotientJobResponse {
    pub code: String,
    pub max_heap: u64,
    /// `queued` or `running`.
    pub status: String,
    /// Where the quotient is read once done (`GET`).
    pub location: String,
}

/// The quotient to read: `GET /v1/octal/misere/quotient` (documented by
/// [`crate::api::wire::schema_rules::QuotientQueryParams`]).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QuotientQuery {
    pub code: String,
    pub max_heap: u64,
    pub table_offset: Option<u64>,
    pub table_rows: Option<u64>,
}

/// One element of the quotient.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct QuotientElement {
    /// Its number: elements are numbered in the order of their least positions; 0 is the
    /// identity (the empty position).
    pub id: u32,
    /// Its normal form in the generators of the presentation (`1` for the identity).
    pub name: String,
    /// Whether positions with this element are misère P-positions (previous player wins).
    pub p: bool,
    /// The least position (heap sizes, ascending) with this element.
    pub least_position: Vec<u64>,
}

/// One generator of the presentation.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct QuotientGenerator {
    pub name: String,
    /// The heap that introduced it.
    pub heap: u64,
    /// Its element.
    pub element: u32,
}

/// The presentation: generators and the relations between them.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct QuotientPresentation {
    pub generators: Vec<QuotientGenerator>,
    /// The relations, written out (`b^3 = b`).
    pub relations: Vec<String>,
}

/// The periodicity of Φ, proved from the computed values (then the quotient is that of the
/// whole game), or `unknown`.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct MiserePeriodicityInfo {
    /// `periodic` or `unknown`.
    pub status: String,
    /// Φ(n + period) = Φ(n) for all n ≥ preperiod.
    pub preperiod: Option<u64>,
    pub period: Option<u64>,
    /// The bound the proof read (the theorem's N).
    pub proved_at: Option<u64>,
}

/// Rows of the multiplication table.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct QuotientTablePage {
    /// The first row.
    pub offset: u64,
    /// `rows[i][j]` = element `offset + i` times element `j`.
    pub rows: Vec<Vec<u32>>,
    /// Pass as `table_offset` for the next rows; null after the last row.
    pub next_offset: Option<u64>,
}

/// A verified misère quotient.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"code": "0.(3)", "max_heap": 3, "q_size": 6, "p_size": 2, "tame": true, "tame_rank": 2,
    "periodicity": {"status": "unknown", "preperiod": null, "period": null, "proved_at": null},
    "phi": [0, 1, 2, 3], "p_portion": [1, 4],
    "elements": [{"id": 0, "name": "1", "p": false, "least_position": []},
        {"id": 1, "name": "a", "p": true, "least_position": [1]},
        {"id": 2, "name": "b", "p": false, "least_position": [2]},
        {"id": 3, "name": "ab", "p": false, "least_position": [1, 2]},
        {"id": 4, "name": "b^2", "p": true, "least_position": [2, 2]},
        {"id": 5, "name": "ab^2", "p": false, "least_position": [1, 2, 2]}],
    "presentation": {"generators": [{"name": "a", "heap": 1, "element": 1}, {"name": "b", "heap": 2, "element": 2}],
        "relations": ["a^2 = 1", "b^3 = b"]},
    "expansions": [1, 2],
    "table": {"offset": 0, "rows": [[0, 1, 2, 3, 4, 5], [1, 0, 3, 2, 5, 4]], "next_offset": 2}}))]
pub struct QuotientResponse {
    /// The canonical code.
    pub code: String,
    /// The largest heap the quotient covers (any heap when `periodicity` is proved).
    pub max_heap: u64,
    /// |Q|: the number of elements.
    pub q_size: u64,
    /// |P|: the number of elements in the P-portion.
    pub p_size: u64,
    /// Whether the quotient is tame (isomorphic to a quotient of misère Nim).
    pub tame: bool,
    /// When tame: m such that it is the quotient of misère Nim on heaps below 2^m.
    pub tame_rank: Option<u32>,
    pub periodicity: MiserePeriodicityInfo,
    /// The pretending function: `phi[n]` is the element of one heap of size n, n = 0..=max_heap.
    pub phi: Vec<u32>,
    /// The elements of the P-portion, ascending.
    pub p_portion: Vec<u32>,
    /// Every element: name, P or not, least position.
    pub elements: Vec<QuotientElement>,
    pub presentation: QuotientPresentation,
    /// The heaps at which the quotient grew.
    pub expansions: Vec<u64>,
    /// The requested rows of the multiplication table (null when `table_rows` is 0).
    pub table: Option<QuotientTablePage>,
}

impl QuotientResponse {
    /// The answer for `q`, with table rows `offset..offset + rows` (none when `rows` is 0).
    pub fn of(q: &MisereQuotient, offset: u64, rows: u64) -> QuotientResponse {
        let size = q.size() as u64;
        let periodicity = match q.periodicity() {
            Some(per) => MiserePeriodicityInfo {
                status: "periodic".into(),
                preperiod: Some(per.preperiod),
                period: Some(per.period),
                proved_at: Some(per.proved_at),
            },
            None => MiserePeriodicityInfo {
                status: "unknown".into(),
                preperiod: None,
                period: None,
                proved_at: None,
            },
        };
        let table = (rows > 0).then(|| {
            let start = offset.min(size);
            let end = offset.saturating_add(rows).min(size);
            QuotientTablePage {
                offset,
                rows: (start..end)
                    .map(|a| (0..size as u32).map(|b| q.mul(a as u32, b)).collect())
                    .collect(),
                next_offset: (end < size).then_some(end),
            }
        });
        let p = q.presentation();
        QuotientResponse {
            code: q.game().canonical(),
            max_heap: q.bound(),
            q_size: size,
            p_size: q.p_size() as u64,
            tame: q.is_tame(),
            tame_rank: q.tame_rank(),
            periodicity,
            phi: q.phi_table().to_vec(),
            p_portion: q.p_portion(),
            elements: (0..size as u32)
                .map(|x| QuotientElement {
                    id: x,
                    name: q.name(x).to_owned(),
                    p: q.is_p(x),
                    least_position: q.least_position(x),
                })
                .collect(),
            presentation: QuotientPresentation {
                generators: p
                    .generators
                    .iter()
                    .map(|g| QuotientGenerator {
                        name: g.name.clone(),
                        heap: g.heap,
                        element: g.element,
                    })
                    .collect(),
                relations: p.relations.iter().map(|r| r.text.clone()).collect(),
            },
            expansions: q.expansions().to_vec(),
            table,
        }
    }
}

fn check_limits(max_heap: u64, rows: u64) -> Result<(), ApiError> {
    if max_heap > MAX_BOUND {
        return Err(ApiError::invalid(
            "max_heap",
            format!("max_heap: {max_heap} is above {MAX_BOUND}"),
        ));
    }
    if rows > MAX_TABLE_ROWS {
        return Err(ApiError::invalid(
            "table_rows",
            format!("table_rows: {rows} is above {MAX_TABLE_ROWS}"),
        ));
    }
    Ok(())
}

/// The answer for a computed quotient (built on the blocking pool: a large one has thousands
/// of elements).
async fn answer(
    app: &AppState,
    q: std::sync::Arc<MisereQuotient>,
    offset: u64,
    rows: u64,
) -> Result<Response, ApiError> {
    respond(app, None, usize::MAX, move || {
        Ok(QuotientResponse::of(&q, offset, rows))
    })
    .await
}

/// 202 for a quotient a job is computing (`status`: queued or running).
fn accepted(code: String, max_heap: u64, status: JobStatus) -> Response {
    let location = quotient_location(&code, max_heap);
    (
        StatusCode::ACCEPTED,
        [(LOCATION, location.clone()), (RETRY_AFTER, "2".to_owned())],
        Json(QuotientJobResponse {
            code,
            max_heap,
            status: status.as_str().into(),
            location,
        }),
    )
        .into_response()
}

/// The misère quotient Q_max_heap of a game, verified, with its presentation.
///
/// Quotients are computed once and kept (in memory and in the store); a computation that does
/// not fit the synchronous time limit or the engine's budget is answered with a
/// `/problems/budget-exceeded` problem saying how far it got. With `"async": true` a job
/// computes it instead, within the job's limits (`GRUNDY_MISERE_JOB_SECS`,
/// `GRUNDY_MISERE_JOB_STEPS`): 202 with the job document, listed, read, watched (`/events`)
/// and cancelled (`DELETE`) at `/v1/octal/jobs/{id}` like every job, with owners and quotas;
/// then `GET /v1/octal/misere/quotient`.
#[utoipa::path(
    post, path = "/v1/octal/misere/quotient", operation_id = "octal_misere_quotient", tag = "octal",
    request_body = QuotientRequest,
    responses(
        (status = 200, description = "The quotient", body = QuotientResponse),
        (status = 202, description = "`async`: a job computes it (the caller's job for this quotient if it has one queued or running); the job document, the Location header points at the job", body = JobResponse,
            headers(("Location" = String, description = "/v1/octal/jobs/{id}"))),
        BodyProblems,
        AuthProblems,
        (status = 422, description = "Bad game code, or the quotient does not fit the synchronous time limit or the engine's budget", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "`async`: a quota of the key is exceeded: the problem's `quota` (`active_jobs` or `heaps_per_day`) and `limit` name it (Retry-After)", body = Problem, content_type = "application/problem+json",
            headers(("Retry-After" = u64, description = "Seconds to wait"))),
        (status = 503, response = StoreUnavailable),
        (status = 507, description = "`async`: the store is full (Retry-After)", body = Problem, content_type = "application/problem+json"),
    )
)]
async fn quotient(
    State(app): State<AppState>,
    headers: HeaderMap,
    ApiJson(req): ApiJson<QuotientRequest>,
) -> Result<Response, ApiError> {
    let game = parse_code("code", &req.code)?;
    let max_heap = req.max_heap.0;
    let offset = req.table_offset.map_or(0, |n| n.0);
    let rows = req.table_rows.map_or(0, |n| n.0);
    check_limits(max_heap, rows)?;
    if req.run_async {
        let header = headers.get(AUTHORIZATION).map(|v| v.as_bytes());
        let caller = app.auth.authorize(header, Action::Write)?;
        if let Some(q) = app.misere.computed(&game, max_heap).await {
            return answer(&app, q, offset, rows).await;
        }
        let store = store(&app)?;
        let id = uuid::Uuid::new_v4().to_string();
        let quotient = (game.canonical(), max_heap);
        let job = match QuotientJob::submit(&caller, &store, &quotient, &id).await? {
            Submission::Created(job) => {
                app.job_notify.notify_one();
                job
            }
            Submission::Joined(job) => job,
            Submission::OverQuota(q) => return Err(q.into()),
        };
        let location = format!("/v1/octal/jobs/{}", job.id);
        return Ok((
            StatusCode::ACCEPTED,
            [(LOCATION, location)],
            Json(JobResponse::from(*job)),
        )
            .into_response());
    }
    let q = app
        .misere
        .quotient(&game, max_heap)
        .await
        .map_err(|p| ApiError::misere("max_heap", p.error))?;
    answer(&app, q, offset, rows).await
}

/// A quotient computed before (by a request or a job): never computes.
#[utoipa::path(
    get, path = "/v1/octal/misere/quotient", operation_id = "octal_misere_quotient_read", tag = "octal",
    params(crate::api::wire::schema_rules::QuotientQueryParams),
    responses(
        (status = 200, description = "The quotient", body = QuotientResponse),
        (status = 202, description = "A job computing it is queued or running (Retry-After)", body = QuotientJobResponse),
        BadQuery,
        (status = 404, description = "Neither computed nor being computed", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Bad parameters, or the newest job computing it failed (its budget or time limit ran out)", body = Problem, content_type = "application/problem+json"),
        (status = 503, response = StoreUnavailable),
    )
)]
async fn quotient_read(
    State(app): State<AppState>,
    ApiQuery(query): ApiQuery<QuotientQuery>,
) -> Result<Response, ApiError> {
    let game = parse_code("code", &query.code)?;
    let offset = query.table_offset.unwrap_or(0);
    let rows = query.table_rows.unwrap_or(0);
    check_limits(query.max_heap, rows)?;
    let unknown = || ApiError::NotFound {
        detail: format!(
            "the misère quotient Q_{} of {} is neither computed nor being computed: \
             POST /v1/octal/misere/quotient computes it (with \"async\": true by a job, up to \
             {} s)",
            query.max_heap,
            game.canonical(),
            app.config.misere_job_time.as_secs()
        ),
    };
    match app.misere.lookup(&game, query.max_heap).await? {
        Lookup::Done(q) => answer(&app, q, offset, rows).await,
        Lookup::Job(job) => match job.status {
            s @ (JobStatus::Queued | JobStatus::Running) => {
                Ok(accepted(game.canonical(), query.max_heap, s))
            }
            JobStatus::Failed => Err(ApiError::BudgetExceeded {
                field: "max_heap".into(),
                detail: format!(
                    "max_heap: the job computing Q_{} failed: {}",
                    query.max_heap,
                    job.error.as_deref().unwrap_or("no reason recorded")
                ),
            }),
            JobStatus::Done | JobStatus::Cancelled => Err(unknown()),
        },
        Lookup::Unknown => Err(unknown()),
    }
}

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(quotient, quotient_read))
}
