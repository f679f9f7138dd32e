//! Following a job to its end, as `GET /v1/octal/jobs/{id}/events` streams it and the command
//! line's progress bar shows it: the store is polled for the job (often enough to see every
//! checkpoint) and a step is given each time its count of values changes, then one final step
//! with the job ended. Polling the store, rather than a notification from a worker, also
//! follows a job computed by another replica or another process.

use std::time::Duration;

use crate::core::octal::{Snapshot, Statistics};
use crate::store::{Job, Store};

/// How often a job is read: often enough to see every checkpoint (half an interval, between
/// 20 and 250 ms).
pub fn poll_interval(checkpoint: Duration) -> Duration {
    (checkpoint / 2).clamp(Duration::from_millis(20), Duration::from_millis(250))
}

/// What following a job gives next.
#[derive(Debug)]
pub enum Step {
    /// Its count of values changed (given once at the start too): the job, and the statistics
    /// of its values as of its last checkpoint (`None` before one).
    Progress {
        job: Box<Job>,
        statistics: Option<Snapshot>,
    },
    /// It ended (done, failed or cancelled); the last step.
    Ended(Box<Job>),
    /// Its record was deleted; the last step.
    Deleted,
}

/// A job followed to its end.
pub struct Follow {
    store: Store,
    id: String,
    /// A job read but not yet reported.
    next: Option<Job>,
    /// The count last reported.
    last: Option<u64>,
    finished: bool,
    interval: Duration,
}

/// The count a step reports: values computed, at most `max_n` (a misère-quotient job: the
/// heap its verified quotient reached).
fn count(job: &Job) -> u64 {
    job.computed.min(job.max_n)
}

impl Follow {
    /// Follows `job` (as just read) on `store`, reading it every `interval`.
    pub fn new(store: Store, job: Job, interval: Duration) -> Self {
        Follow {
            store,
            id: job.id.clone(),
            next: Some(job),
            last: None,
            finished: false,
            interval,
        }
    }

    /// The next step, or `None` after the last. A failed read of the store is logged and
    /// read again: the store may come back.
    pub async fn next(&mut self) -> Option<Step> {
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
                            return Some(Step::Deleted);
                        }
                        Err(e) => {
                            tracing::warn!(error = %e, job = %self.id, "following a job: store read failed");
                            continue;
                        }
                    }
                }
            };
            if self.last != Some(count(&job)) {
                // The count first; an ended job comes back for its last step.
                self.last = Some(count(&job));
                if job.status.is_final() {
                    self.next = Some(job.clone());
                }
                let statistics = match self.store.job_statistics(&self.id).await {
                    Ok(Some(bytes)) => Statistics::from_bytes(&bytes)
                        .ok()
                        .and_then(|s| s.current()),
                    _ => None,
                };
                return Some(Step::Progress {
                    job: Box::new(job),
                    statistics,
                });
            }
            if job.status.is_final() {
                self.finished = true;
                return Some(Step::Ended(Box::new(job)));
            }
        }
    }
}
