//! `GET /v1/octal/jobs/{id}/statistics`: the statistics the public tables of unsolved games
//! publish (`crate::core::octal::statistics`), for a job's values — at every power of two
//! the job passed and for everything it computed — as JSON, or the histograms as CSV.

use axum::extract::State;
use axum::http::{header, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::api::auth::JobReader;
use crate::api::octal::jobs::existing;
use crate::api::wire::accept::{Format, JsonOrCsv};
use crate::api::wire::doc_responses::{AuthProblems, JobNotFound, StoreUnavailable};
use crate::api::wire::error::ApiError;
use crate::api::wire::params::ApiPath;
use crate::core::octal::{Snapshot, Statistics};
use crate::problem::Problem;
use crate::service::AppState;
use crate::store::{Job, Store};

/// Declares a struct of the figures the tables give for a prefix G(0..n) — its length, the
/// largest value and the first heap holding it, the rare mask, the rare heaps' count and the
/// last of them — written once, each field with the docs the struct gives it, then the
/// struct's own fields.
macro_rules! prefix_figures {
    (
        $(#[$attr:meta])*
        pub struct $name:ident {
            $(#[$n:meta])* n,
            $(#[$max:meta])* max_value,
            $(#[$first:meta])* max_value_first_heap,
            $(#[$mask:meta])* rare_mask,
            $(#[$count:meta])* rare_count,
            $(#[$last:meta])* last_rare_heap,
            $($own:tt)*
        }
    ) => {
        $(#[$attr])*
        pub struct $name {
            $(#[$n])*
            pub n: u64,
            $(#[$max])*
            pub max_value: u32,
            $(#[$first])*
            pub max_value_first_heap: u64,
            $(#[$mask])*
            pub rare_mask: String,
            $(#[$count])*
            pub rare_count: u64,
            $(#[$last])*
            pub last_rare_heap: Option<u64>,
            $($own)*
        }
    };
}

prefix_figures! {
    /// The statistics of a prefix G(0..n) as the tables give them.
    #[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
    #[schema(example = json!({"n": 2097152, "max_value": 319, "max_value_first_heap": 1274955,
        "rare_mask": "1ee", "rare_count": 1584, "last_rare_heap": 20627, "histogram": [1, 2, 3]}))]
    pub struct StatisticsRow {
        /// The prefix: heaps 0..n−1 (n values).
        n,
        /// The largest value, and the first heap holding it.
        max_value,
        max_value_first_heap,
        /// The rare mask, in hexadecimal as the tables print it: a value v is rare when
        /// popcount(v & mask) is even, and this is the mask under which the fewest values are
        /// rare (the least such mask) — whatever mask the engine itself runs with.
        rare_mask,
        /// Heaps below n whose value is rare under the mask, and the last of them.
        rare_count,
        last_rare_heap,
        /// `histogram[v]`: heaps below n with value v, for v = 0..=max_value.
        pub histogram: Vec<u64>,
    }
}

impl From<&Snapshot> for StatisticsRow {
    fn from(snapshot: &Snapshot) -> Self {
        let figures = StatisticsSummary::from(snapshot);
        StatisticsRow {
            n: figures.n,
            max_value: figures.max_value,
            max_value_first_heap: figures.max_value_first_heap,
            rare_mask: figures.rare_mask,
            rare_count: figures.rare_count,
            last_rare_heap: figures.last_rare_heap,
            histogram: snapshot.histogram.clone(),
        }
    }
}

prefix_figures! {
    /// [`StatisticsRow`] without the histogram (the job events' progress summary, census rows).
    #[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
    pub struct StatisticsSummary {
        n,
        max_value,
        max_value_first_heap,
        rare_mask,
        rare_count,
        last_rare_heap,
    }
}

impl From<&Snapshot> for StatisticsSummary {
    fn from(s: &Snapshot) -> Self {
        StatisticsSummary {
            n: s.n,
            max_value: s.max_value,
            max_value_first_heap: s.max_value_first_heap,
            rare_mask: format!("{:x}", s.mask),
            rare_count: s.rare_count,
            last_rare_heap: s.last_rare_heap,
        }
    }
}

/// A job's statistics.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct JobStatistics {
    pub id: String,
    /// The canonical game code.
    pub code: String,
    /// Values counted: G(0..computed), as of the job's last checkpoint.
    pub computed: u64,
    /// The statistics of G(0..computed); null before the first checkpoint.
    pub current: Option<StatisticsRow>,
    /// The statistics of G(0..2^k) for every power of two 2^k ≤ computed, ascending.
    pub powers_of_two: Vec<StatisticsRow>,
}

impl JobStatistics {
    /// The document of `job`'s statistics `stats` (as saved with its last checkpoint).
    pub fn new(job: Job, stats: Option<&Statistics>) -> Self {
        JobStatistics {
            computed: stats.map_or(0, Statistics::len),
            current: stats
                .and_then(Statistics::current)
                .map(|s| StatisticsRow::from(&s)),
            powers_of_two: stats
                .map(|s| s.snapshots().iter().map(StatisticsRow::from).collect())
                .unwrap_or_default(),
            id: job.id,
            code: job.code,
        }
    }
}

/// The statistics a job saved with its last checkpoint (`None` before one).
pub(super) async fn saved(store: &Store, id: &str) -> Result<Option<Statistics>, ApiError> {
    let Some(bytes) = store.job_statistics(id).await? else {
        return Ok(None);
    };
    Statistics::from_bytes(&bytes)
        .map(Some)
        .map_err(|e| ApiError::Internal(format!("job {id}: stored statistics: {e}")))
}

/// The tables' statistics of a job's values.
///
/// JSON (default): the statistics of everything the job computed (as of its last checkpoint)
/// and of every power-of-two prefix, each with its value histogram. `Accept: text/csv`: the
/// histograms as rows `n,value,count` (every power of two, then the whole prefix; values
/// that do not occur are left out). Kept for jobs of either `keep` mode: a window-mode job's
/// statistics cover every value although it keeps only some.
#[utoipa::path(
    get, path = "/v1/octal/jobs/{id}/statistics", operation_id = "octal_job_statistics", tag = "octal-jobs",
    params(("id" = String, Path, description = "Job id")), security(("api_key" = [])),
    responses(
        (status = 200, description = "The statistics (JSON), or the histograms (CSV)", body = JobStatistics,
            content(
                (JobStatistics = "application/json"),
                (String = "text/csv", example = "n,value,count\n1,0,1\n2,0,2\n")
            )),
        AuthProblems,
        (status = 404, response = JobNotFound),
        (status = 406, description = "Accept names neither JSON nor CSV", body = Problem, content_type = "application/problem+json"),
        (status = 503, response = StoreUnavailable),
    )
)]
async fn statistics(
    State(app): State<AppState>,
    JobReader(caller): JobReader,
    ApiPath(id): ApiPath<String>,
    JsonOrCsv(format): JsonOrCsv,
) -> Result<Response, ApiError> {
    let (store, job) = existing(&app, &id, &caller).await?;
    let stats = saved(&store, &id).await?;
    let body = JobStatistics::new(job, stats.as_ref());
    Ok(match format {
        Format::Csv => {
            let mut csv = String::from("n,value,count\n");
            for row in body.powers_of_two.iter().chain(&body.current) {
                for (v, &c) in row.histogram.iter().enumerate() {
                    if c > 0 {
                        csv.push_str(&format!("{},{v},{c}\n", row.n));
                    }
                }
            }
            (
                [(header::CONTENT_TYPE, HeaderValue::from_static("text/csv"))],
                csv,
            )
                .into_response()
        }
        _ => Json(body).into_response(),
    })
}

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(statistics))
}
