//! `/v1/octal/census`: one job per game code (by default every game of the unsolved table),
//! started together and read back as a table — JSON or CSV — with each game's status, n
//! reached, statistics, published record and verdict (`crate::service::jobs::census`).

use axum::extract::State;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::api::auth::{JobReader, JobWriter};
use crate::api::octal::jobs::sequence::{job_request, refused, KeepMode};
use crate::api::octal::jobs::statistics::StatisticsRow;
use crate::api::octal::PeriodicityInfo;
use crate::api::wire::accept::{Format, JsonOrCsv};
use crate::api::wire::doc_responses::{
    AuthProblems, BadId, BodyProblems, StoreUnavailable, StoreWriteProblems,
};
use crate::api::wire::error::ApiError;
use crate::api::wire::json::ApiJson;
use crate::api::wire::nat::Nat;
use crate::api::wire::params::ApiPath;
use crate::core::octal::statistics::unsolved::{UnsolvedGame, CZAJKA_SOURCE, ROGALSKI_SOURCE};
use crate::problem::Problem;
use crate::service::auth::{Caller, Listing};
use crate::service::jobs::census::{self as service, CensusError, CensusView, GameRow};
use crate::service::jobs::request::{JobAsk, Keep};
use crate::service::AppState;
use crate::store::{Census, CensusCounts, Store};

job_request! {
    /// A census request: every code to `max_n` (each job stops early once periodicity is proved).
    #[derive(Debug, Deserialize, ToSchema)]
    #[serde(deny_unknown_fields)]
    #[schema(example = json!({"codes": ["0.6", "0.16", "grundy"], "max_n": 65536}))]
    pub struct CensusRequest {
        /// Game codes (as for `/v1/octal/jobs`), 1 to 200; duplicates (also two notations of one
        /// game) count once. Absent or null: every game of the unsolved table (83, `grundy`
        /// included).
        #[serde(default)]
        #[schema(schema_with = crate::api::wire::schema_rules::census_codes)]
        pub codes: Option<Vec<String>>,
        /// How many values each job computes at most (the limits of `/v1/octal/jobs`).
        max_n,
        /// Which values the jobs keep: `window` (the default for a census: only the front and
        /// the last `window` values, statistics of all) or `all`. An explicit `"keep": "all"`
        /// with a window option (`window`, `store_values`) is refused (422 naming the option).
        /// Window mode cannot compute a game with a digit whose moves leave three heaps (a digit
        /// 8 to F) or with recurring digits (such as `0.(B)`): with one of them among the codes,
        /// a window census is accepted only when `window` ≥ `max_n` (the window holds every
        /// value: its jobs then keep all), and otherwise refused (422 naming `codes[i]` and the
        /// digit; the default census, the unsolved table, has none).
        keep,
        /// A window option: the front and window size (as for jobs). Implies `"keep": "window"`.
        window,
        /// A window option: also store every value (default false). Implies `"keep": "window"`.
        store_values,
    }
}

/// The statistics T. Czajka's table publishes for a game.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct PublishedStatisticsRow {
    pub n: u64,
    pub max_value: u32,
    pub max_value_first_heap: u64,
    pub rare_mask: String,
    pub rare_count: u64,
    pub last_rare_heap: u64,
}

/// A. Rogalski's record computation of a game (histogram over heaps 1..=n).
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct PublishedRecord {
    pub n: u64,
    pub max_value: u32,
    pub distinct_values: u32,
    pub rare_mask: String,
    pub rare_count: u64,
}

/// What is published about a game of the unsolved table.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct Published {
    /// The statistics row of T. Czajka's table (four games have one).
    pub statistics: Option<PublishedStatisticsRow>,
    pub statistics_source: String,
    /// The record of A. Rogalski's solver (five games have one).
    pub record: Option<PublishedRecord>,
    pub record_source: String,
}

impl From<&UnsolvedGame> for Published {
    fn from(u: &UnsolvedGame) -> Self {
        Published {
            statistics: u.statistics.map(|table| PublishedStatisticsRow {
                n: table.n,
                max_value: table.max_value,
                max_value_first_heap: table.max_value_first_heap,
                rare_mask: format!("{:x}", table.mask),
                rare_count: table.rare_count,
                last_rare_heap: table.last_rare_heap,
            }),
            statistics_source: CZAJKA_SOURCE.into(),
            record: u.record.map(|r| PublishedRecord {
                n: r.n,
                max_value: r.max_value,
                distinct_values: r.distinct_values,
                rare_mask: format!("{:x}", r.mask),
                rare_count: r.rare_count,
            }),
            record_source: ROGALSKI_SOURCE.into(),
        }
    }
}

/// One game of a census.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct CensusGame {
    /// The canonical code.
    pub code: String,
    /// The census's job of the game.
    pub job_id: String,
    /// The job's status (`queued`, `running`, `done`, `failed`, `cancelled`; `deleted` when its
    /// record was deleted).
    pub status: String,
    /// n reached: values G(0..computed) computed.
    pub computed: u64,
    /// The statistics of G(0..n) as of the job's last checkpoint (null before one).
    pub statistics: Option<StatisticsRow>,
    /// The job's periodicity verdict.
    pub periodicity: PeriodicityInfo,
    /// Whether the game is in the unsolved table.
    pub in_unsolved_table: bool,
    /// What is published about it (null for a game outside the table).
    pub published: Option<Published>,
    /// The verdict: `no periodicity proved in G(0..n)`, or a proof (theorem, preperiod,
    /// period, the values it reads) that is `(unverified, …)` until a second run from scratch
    /// proved the same (`(verified)`), or `DISPUTED` when it did not; `pending`, `failed: …`,
    /// `cancelled …` otherwise.
    pub verdict: String,
    /// `pending`, `failed`, `cancelled`, `deleted`, `unknown`, `unverified`, `verified` or
    /// `disputed`.
    pub verdict_kind: String,
    /// Always false: the census claims no result as new. A verified periodicity of a game of
    /// T. Czajka's list says in `verdict` what is known (his list gives the games his program
    /// could not prove from 1,000 values; A. Flammenkamp's tables are not checked here).
    #[schema(deprecated)]
    pub new_result: bool,
    /// The job that checks a proved periodicity from scratch, once started.
    pub verification_job_id: Option<String>,
    pub verification_status: Option<String>,
}

/// A census and its table.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct CensusDocument {
    pub id: String,
    /// `running` while any of its jobs is queued or running, then `done` (`cancelled` after
    /// a DELETE).
    pub status: String,
    pub max_n: u64,
    pub keep: KeepMode,
    pub window: Option<u64>,
    pub store_values: bool,
    /// Milliseconds since the Unix epoch.
    pub created_at_ms: i64,
    pub cancelled_at_ms: Option<i64>,
    /// The name of the API key that started it (null on a server without keys).
    pub owner: Option<String>,
    /// One row per game, in the order of the request.
    pub games: Vec<CensusGame>,
}

/// A census in a list.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct CensusSummary {
    pub id: String,
    pub max_n: u64,
    pub keep: KeepMode,
    pub window: Option<u64>,
    /// How many games.
    pub games: u64,
    /// How many of them are done: their census job finished (periodicity proved, or `max_n`
    /// reached).
    #[serde(default)]
    pub games_done: u64,
    /// `running` while any of its jobs is queued or running, then `done` (`cancelled` after a
    /// DELETE), as its jobs stand; reading its table may start the verification of a proof
    /// found since (then it is `running` again).
    #[serde(default)]
    #[schema(example = "running")]
    pub status: String,
    /// Milliseconds since the Unix epoch.
    pub created_at_ms: i64,
    pub cancelled_at_ms: Option<i64>,
    pub owner: Option<String>,
}

/// The caller's censuses, newest first (at most 100).
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct CensusList {
    pub censuses: Vec<CensusSummary>,
    /// The name of the API key that asked (null on a server without keys).
    pub key_name: Option<String>,
}

fn keep_of(keep_window: Option<u64>) -> KeepMode {
    if keep_window.is_some() {
        KeepMode::Window
    } else {
        KeepMode::All
    }
}

impl CensusSummary {
    fn new(c: &Census, counts: CensusCounts) -> Self {
        let status = if counts.active > 0 {
            "running"
        } else if c.cancelled_at.is_some() {
            "cancelled"
        } else {
            "done"
        };
        CensusSummary {
            id: c.id.clone(),
            max_n: c.max_n,
            keep: keep_of(c.keep_window),
            window: c.keep_window,
            games: c.codes.len() as u64,
            games_done: counts.done,
            status: status.to_owned(),
            created_at_ms: c.created_at,
            cancelled_at_ms: c.cancelled_at,
            owner: c.owner.clone(),
        }
    }
}

impl From<GameRow> for CensusGame {
    fn from(g: GameRow) -> Self {
        CensusGame {
            status: g
                .job
                .as_ref()
                .map_or("deleted", |j| j.status.as_str())
                .to_owned(),
            computed: g.job.as_ref().map_or(0, |j| j.computed.min(j.max_n)),
            statistics: g.statistics.as_ref().map(StatisticsRow::from),
            periodicity: g
                .periodicity
                .map(PeriodicityInfo::from)
                .unwrap_or_else(|| PeriodicityInfo::from_core(&Default::default(), None)),
            in_unsolved_table: g.unsolved.is_some(),
            published: g.unsolved.map(Published::from),
            verdict: g.verdict.text,
            verdict_kind: g.verdict.kind.to_owned(),
            new_result: g.verdict.new_result,
            verification_status: g
                .verification
                .as_ref()
                .map(|j| j.status.as_str().to_owned()),
            verification_job_id: g.verification_job_id,
            code: g.code,
            job_id: g.job_id,
        }
    }
}

impl From<CensusView> for CensusDocument {
    fn from(v: CensusView) -> Self {
        let c = v.census;
        CensusDocument {
            status: v.status.to_owned(),
            max_n: c.max_n,
            keep: keep_of(c.keep_window),
            window: c.keep_window,
            store_values: c.store_values,
            created_at_ms: c.created_at,
            cancelled_at_ms: c.cancelled_at,
            owner: c.owner,
            games: v.games.into_iter().map(CensusGame::from).collect(),
            id: c.id,
        }
    }
}

/// The CSV header of a census table: the fixed columns, then the verification job and the
/// published statistics (T. Czajka) and record (A. Rogalski) beside.
pub const CSV_HEADER: &str = "code,status,n,largest_value,first_heap,rare_mask,rare_count,\
last_rare_heap,verdict,job_id,verdict_kind,verification_job_id,published_n,\
published_largest_value,published_first_heap,published_rare_mask,published_rare_count,\
published_last_rare_heap,record_n,record_largest_value,record_rare_mask,record_rare_count";

/// A CSV field (RFC 4180: quoted when it holds a comma, quote or line break).
fn field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_owned()
    }
}

pub fn csv(doc: &CensusDocument) -> String {
    let opt = |x: Option<String>| x.unwrap_or_default();
    let mut out = format!("{CSV_HEADER}\n");
    for g in &doc.games {
        let s = g.statistics.as_ref();
        let p = g.published.as_ref().and_then(|p| p.statistics.as_ref());
        let r = g.published.as_ref().and_then(|p| p.record.as_ref());
        let cells = [
            g.code.clone(),
            g.status.clone(),
            g.computed.to_string(),
            opt(s.map(|s| s.max_value.to_string())),
            opt(s.map(|s| s.max_value_first_heap.to_string())),
            opt(s.map(|s| s.rare_mask.clone())),
            opt(s.map(|s| s.rare_count.to_string())),
            opt(s.and_then(|s| s.last_rare_heap).map(|h| h.to_string())),
            g.verdict.clone(),
            g.job_id.clone(),
            g.verdict_kind.clone(),
            opt(g.verification_job_id.clone()),
            opt(p.map(|p| p.n.to_string())),
            opt(p.map(|p| p.max_value.to_string())),
            opt(p.map(|p| p.max_value_first_heap.to_string())),
            opt(p.map(|p| p.rare_mask.clone())),
            opt(p.map(|p| p.rare_count.to_string())),
            opt(p.map(|p| p.last_rare_heap.to_string())),
            opt(r.map(|r| r.n.to_string())),
            opt(r.map(|r| r.max_value.to_string())),
            opt(r.map(|r| r.rare_mask.clone())),
            opt(r.map(|r| r.rare_count.to_string())),
        ];
        let line: Vec<String> = cells.iter().map(|c| field(c)).collect();
        out.push_str(&line.join(","));
        out.push('\n');
    }
    out
}

fn store(app: &AppState) -> Result<Store, ApiError> {
    app.store().ok_or_else(|| ApiError::Unavailable {
        detail: "the job store is not connected (GRUNDY_DATABASE_URL)".into(),
        retry_after_secs: 5,
    })
}

/// The census `id` (404 when there is none or `caller` may not see it).
async fn existing(app: &AppState, id: &str, caller: &Caller) -> Result<(Store, Census), ApiError> {
    let store = store(app)?;
    let census = store
        .get_census(id)
        .await?
        .filter(|c| caller.sees_owned_by(c.owner.as_deref()))
        .ok_or_else(|| ApiError::NotFound {
            detail: format!("no census with id {id:?}"),
        })?;
    Ok((store, census))
}

impl From<CensusError> for ApiError {
    fn from(e: CensusError) -> Self {
        match e {
            CensusError::Invalid { field, detail } => ApiError::invalid(field, detail),
            CensusError::Code { index, refusal } => {
                let field = format!("codes[{index}]");
                refused(refusal, |why, max_n| {
                    let detail = format!(
                        "{field}: {why} (keep \"all\", give a window of at least max_n \
                         ({max_n}), which holds every value, or leave the code out)"
                    );
                    ApiError::invalid(field, detail)
                })
            }
            CensusError::OverQuota(q) => q.into(),
            CensusError::Store(e) => e.into(),
        }
    }
}

/// Start a census.
///
/// One job per game (created with the census in one transaction, owned by the key, counted
/// against its quotas all together: a census that does not fit is refused whole), run by the
/// job workers of every replica sharing the store. A job that proves periodicity is checked
/// by a second job from scratch, started when the census is next read.
#[utoipa::path(
    post, path = "/v1/octal/census", operation_id = "create_octal_census", tag = "octal-jobs",
    request_body = CensusRequest, security(("api_key" = [])),
    responses(
        (status = 201, description = "Started; the Location header points at the census", body = CensusDocument,
            headers(("Location" = String, description = "/v1/octal/census/{id}"))),
        BodyProblems,
        AuthProblems,
        (status = 422, description = "A bad code (the problem names `codes[i]`), an empty list, more than 200 codes, max_n out of range, a window option (`window`, `store_values`) with `\"keep\": \"all\"`, or a game that cannot run in window mode", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "The census's jobs do not fit a quota of the key (`active_jobs` or `heaps_per_day`); nothing was started (Retry-After)", body = Problem, content_type = "application/problem+json",
            headers(("Retry-After" = u64, description = "Seconds to wait"))),
        StoreWriteProblems,
    )
)]
async fn create(
    State(app): State<AppState>,
    JobWriter(caller): JobWriter,
    ApiJson(req): ApiJson<CensusRequest>,
) -> Result<Response, ApiError> {
    let ask = JobAsk {
        max_n: req.max_n.0,
        keep: Some(req.keep.map_or(Keep::Window, Keep::from)),
        window: req.window.map(|w| w.0),
        store_values: req.store_values,
    };
    let template = ask
        .template(&app.config)
        .map_err(|r| refused(r, |why, _| ApiError::invalid("keep", why)))?;
    let plan = service::plan(req.codes.as_deref(), &template)?;
    let store = store(&app)?;
    let (census, _jobs) = service::create(&app, &caller, &store, plan).await?;
    let view = service::view(&app, &store, census).await?;
    let location = format!("/v1/octal/census/{}", view.census.id);
    Ok((
        StatusCode::CREATED,
        [(header::LOCATION, location)],
        Json(CensusDocument::from(view)),
    )
        .into_response())
}

/// The caller's censuses, newest first.
#[utoipa::path(
    get, path = "/v1/octal/census", operation_id = "list_octal_censuses", tag = "octal-jobs",
    security(("api_key" = [])),
    responses(
        (status = 200, description = "The key's own censuses (an `admin` key's: every owner's), newest first, at most 100, each with its status and games done", body = CensusList),
        AuthProblems,
        (status = 503, response = StoreUnavailable),
    )
)]
async fn list(
    State(app): State<AppState>,
    JobReader(caller): JobReader,
) -> Result<Json<CensusList>, ApiError> {
    let store = store(&app)?;
    let censuses = match caller.listing(None) {
        Listing::All => store.list_censuses(None, 100).await?,
        Listing::Owner(o) => store.list_censuses(Some(&o), 100).await?,
        Listing::Nothing => Vec::new(),
    };
    let ids: Vec<String> = censuses.iter().map(|c| c.id.clone()).collect();
    let counts = store.census_counts(&ids).await?;
    Ok(Json(CensusList {
        censuses: censuses
            .iter()
            .map(|c| CensusSummary::new(c, counts.get(&c.id).copied().unwrap_or_default()))
            .collect(),
        key_name: caller.key_name().map(str::to_owned),
    }))
}

/// A census's table: per game its job's status, n reached, statistics, published record and
/// verdict — as JSON, or `Accept: text/csv` one row per game.
#[utoipa::path(
    get, path = "/v1/octal/census/{id}", operation_id = "get_octal_census", tag = "octal-jobs",
    params(("id" = String, Path, description = "Census id")), security(("api_key" = [])),
    responses(
        (status = 200, description = "The census (JSON) or its table (CSV)", body = CensusDocument,
            content(
                (CensusDocument = "application/json"),
                (String = "text/csv", example = "code,status,n,largest_value,first_heap,rare_mask,rare_count,last_rare_heap,verdict,job_id,...\n")
            )),
        AuthProblems,
        BadId,
        (status = 404, description = "No census with this id (another key's census is answered so too)", body = Problem, content_type = "application/problem+json"),
        (status = 406, description = "Accept names neither JSON nor CSV", body = Problem, content_type = "application/problem+json"),
        (status = 503, response = StoreUnavailable),
    )
)]
async fn get(
    State(app): State<AppState>,
    JobReader(caller): JobReader,
    ApiPath(id): ApiPath<String>,
    JsonOrCsv(format): JsonOrCsv,
) -> Result<Response, ApiError> {
    let (store, census) = existing(&app, &id, &caller).await?;
    let doc = CensusDocument::from(service::view(&app, &store, census).await?);
    Ok(match format {
        Format::Csv => (
            [(header::CONTENT_TYPE, HeaderValue::from_static("text/csv"))],
            csv(&doc),
        )
            .into_response(),
        _ => Json(doc).into_response(),
    })
}

/// Cancel a census — its queued jobs at once, its running ones at their next checkpoint, and
/// no verification starts after this — or, once none of its jobs is queued or running,
/// delete its record (its jobs stay, as the key's jobs).
#[utoipa::path(
    delete, path = "/v1/octal/census/{id}", operation_id = "cancel_octal_census", tag = "octal-jobs",
    params(("id" = String, Path, description = "Census id")), security(("api_key" = [])),
    responses(
        (status = 200, description = "The census after the cancel request, or the deleted census", body = CensusDocument),
        AuthProblems,
        BadId,
        (status = 404, description = "No census with this id (another key's census is answered so too)", body = Problem, content_type = "application/problem+json"),
        StoreWriteProblems,
    )
)]
async fn cancel(
    State(app): State<AppState>,
    JobWriter(caller): JobWriter,
    ApiPath(id): ApiPath<String>,
) -> Result<Json<CensusDocument>, ApiError> {
    let (store, census) = existing(&app, &id, &caller).await?;
    let view = service::view(&app, &store, census).await?;
    if view.status != "running" {
        store.delete_census(&id).await?;
        return Ok(Json(view.into()));
    }
    let census = store
        .cancel_census(&id)
        .await?
        .ok_or_else(|| ApiError::NotFound {
            detail: format!("no census with id {id:?}"),
        })?;
    Ok(Json(service::view(&app, &store, census).await?.into()))
}

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(create, list))
        .routes(routes!(get, cancel))
}
