//! `GET /v1/octal/jobs/{id}/events`: a job's progress as Server-Sent Events.
//!
//! The job is followed as the command line's progress bar follows it
//! (`crate::service::jobs::follow`: the store polled often enough to see every checkpoint,
//! jobs of other replicas too): `event: progress` whenever `computed` changes, then one
//! terminal `event: done`, `failed` or `cancelled` whose data is the job document, and the
//! stream ends. Comment heartbeats every 15 s keep proxies from closing a quiet stream.

use std::convert::Infallible;
use std::time::Duration;

use axum::extract::{Path, State};
use axum::response::sse::{Event, KeepAlive, Sse};
use futures_util::Stream;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::api::auth::JobReader;
use crate::api::octal::jobs::statistics::StatisticsSummary;
use crate::api::octal::jobs::{existing, JobResponse, Progress, QuotientJobProgress};
use crate::api::wire::doc_responses::{AuthProblems, JobNotFound, StoreUnavailable};
use crate::api::wire::error::ApiError;
use crate::service::jobs::follow::{poll_interval, Follow, Step};
use crate::service::AppState;

/// Heartbeat interval.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// Live progress of a job (Server-Sent Events).
///
/// `event: progress` with data `{"computed", "max_n", "heaps_per_second", "eta_seconds",
/// "statistics"}` (the job document's `progress`, and a summary of the job's statistics —
/// `n`, `max_value`, `max_value_first_heap`, `rare_mask`, `rare_count`, `last_rare_heap`, as
/// `GET /v1/octal/jobs/{id}/statistics` gives them without the histogram, null before the
/// first checkpoint) each time the computed count changes — at least at every checkpoint —
/// (a misère-quotient job: `computed` is the heap its verified quotient reached, and the data
/// has `quotient`: `{"heap", "q_size", "p_size", …}` as in the job document), then one terminal `event: done`, `failed` or `cancelled` whose data is the
/// job document (as `GET /v1/octal/jobs/{id}` returns it), and the stream ends. Should the job
/// record vanish meanwhile, an `event: error` with a problem document ends it. Comment lines
/// every 15 s keep idle connections open.
#[utoipa::path(
    get, path = "/v1/octal/jobs/{id}/events", operation_id = "octal_job_events", tag = "octal-jobs",
    params(("id" = String, Path, description = "Job id")), security(("api_key" = [])),
    responses(
        (status = 200, description = "The event stream: `progress` events, then one `done`, `failed` or `cancelled` event carrying the job document",
            content_type = "text/event-stream", body = String,
            example = "event: progress\ndata: {\"computed\":131072,\"max_n\":1000000,\"heaps_per_second\":65536.0,\"eta_seconds\":13.3}\n\nevent: done\ndata: {\"id\":\"3f1c…\",\"status\":\"done\",…}\n\n"),
        AuthProblems,
        (status = 404, response = JobNotFound),
        (status = 503, response = StoreUnavailable),
    )
)]
async fn events(
    State(app): State<AppState>,
    JobReader(caller): JobReader,
    Path(id): Path<String>,
) -> Result<Sse<impl Stream<Item = Result<Event, Infallible>>>, ApiError> {
    let (store, job) = existing(&app, &id, &caller).await?;
    let follow = Follow::new(store, job, poll_interval(app.config.job_checkpoint));
    let stream = futures_util::stream::unfold((follow, id), |(mut f, id)| async move {
        let event = event(f.next().await?, &id);
        Some((Ok(event), (f, id)))
    });
    Ok(Sse::new(stream).keep_alive(KeepAlive::new().interval(KEEP_ALIVE)))
}

/// A step of following job `id` as its event.
fn event(step: Step, id: &str) -> Event {
    match step {
        Step::Progress { job, statistics } => {
            let doc = JobResponse::from(*job);
            let event = ProgressEvent {
                progress: doc.progress,
                statistics: statistics.as_ref().map(StatisticsSummary::from),
                quotient: doc.quotient,
            };
            let data = serde_json::to_string(&event).unwrap_or_default();
            Event::default().event("progress").data(data)
        }
        Step::Ended(job) => {
            let status = job.status;
            let data = serde_json::to_string(&JobResponse::from(*job)).unwrap_or_default();
            Event::default().event(status.as_str()).data(data)
        }
        Step::Deleted => {
            let problem = ApiError::NotFound {
                detail: format!("job {id:?} was deleted"),
            }
            .problem();
            let data = serde_json::to_string(&problem).unwrap_or_default();
            Event::default().event("error").data(data)
        }
    }
}

/// The data of a `progress` event.
#[derive(serde::Serialize)]
struct ProgressEvent {
    #[serde(flatten)]
    progress: Progress,
    statistics: Option<StatisticsSummary>,
    /// A misère-quotient job: the heap reached, |Q| and |P| (as in the job document).
    #[serde(skip_serializing_if = "Option::is_none")]
    quotient: Option<QuotientJobProgress>,
}

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(events))
}
