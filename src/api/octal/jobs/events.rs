//! `GET /v1/octal/jobs/{id}/events`: a job's progress as Server-Sent Events.
//!
//! The stream polls the store for the job document (every `poll_interval`, at most 250 ms
//! and at most half a checkpoint interval, so every checkpoint is seen) and sends
//! `event: progress` whenever `computed` changes, then one terminal `event: done`, `failed` or
//! `cancelled` whose data is the job document, and ends. Polling the store (rather than a
//! notification from the worker) also follows jobs computed by other replicas. Comment
//! heartbeats every 15 s keep proxies from closing a quiet stream.

use std::convert::Infallible;
use std::time::Duration;

use axum::extract::{Path, State};
use axum::response::sse::{Event, KeepAlive, Sse};
use futures_util::Stream;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::api::auth::JobReader;
use crate::api::octal::jobs::statistics::{saved, StatisticsSummary};
use crate::api::octal::jobs::{existing, JobResponse, Progress, QuotientJobProgress};
use crate::api::wire::doc_responses::{AuthProblems, JobNotFound, StoreUnavailable};
use crate::api::wire::error::ApiError;
use crate::service::AppState;
use crate::store::{Job, Store};

/// Heartbeat interval.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// How often the stream reads the job: often enough to see every checkpoint.
fn poll_interval(checkpoint: Duration) -> Duration {
    (checkpoint / 2).clamp(Duration::from_millis(20), Duration::from_millis(250))
}

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
    let watch = Watch {
        store,
        id,
        next: Some(job),
        last: None,
        finished: false,
        interval: poll_interval(app.config.job_checkpoint),
    };
    let stream = futures_util::stream::unfold(watch, |mut w| async move {
        w.next_event().await.map(|e| (Ok(e), w))
    });
    Ok(Sse::new(stream).keep_alive(KeepAlive::new().interval(KEEP_ALIVE)))
}

/// The stream's state.
struct Watch {
    store: Store,
    id: String,
    /// A job document read but not yet reported.
    next: Option<Job>,
    /// The `computed` last reported.
    last: Option<u64>,
    finished: bool,
    interval: Duration,
}

impl Watch {
    /// The next event, or `None` once the terminal one was sent.
    async fn next_event(&mut self) -> Option<Event> {
        loop {
            if self.finished {
                return None;
            }
            let job = match self.next.take() {
                Some(job) => job,
                None => {
                    tokio::time::sleep(self.interval).await;
                    match self.store.get_job(&self.id).await {
                        Ok(Some(job)) => job,
                        Ok(None) => {
                            self.finished = true;
                            let problem = ApiError::NotFound {
                                detail: format!("job {:?} was deleted", self.id),
                            }
                            .problem();
                            let data = serde_json::to_string(&problem).unwrap_or_default();
                            return Some(Event::default().event("error").data(data));
                        }
                        Err(e) => {
                            // Keep polling: the store may come back; heartbeats go on.
                            tracing::warn!(error = %e, job = %self.id, "job events: store read failed");
                            continue;
                        }
                    }
                }
            };
            let status = job.status;
            let doc = JobResponse::from(job.clone());
            if self.last != Some(doc.progress.computed) {
                // Report the count first; a final job comes back for its terminal event.
                self.last = Some(doc.progress.computed);
                if status.is_final() {
                    self.next = Some(job);
                }
                let statistics = match saved(&self.store, &self.id).await {
                    Ok(stats) => stats
                        .and_then(|s| s.current())
                        .map(|s| StatisticsSummary::from(&s)),
                    Err(_) => None,
                };
                let event = ProgressEvent {
                    progress: doc.progress,
                    statistics,
                    quotient: doc.quotient,
                };
                let data = serde_json::to_string(&event).unwrap_or_default();
                return Some(Event::default().event("progress").data(data));
            }
            if status.is_final() {
                self.finished = true;
                let data = serde_json::to_string(&doc).unwrap_or_default();
                return Some(Event::default().event(status.as_str()).data(data));
            }
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
