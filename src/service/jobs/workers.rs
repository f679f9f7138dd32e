//! The job workers: each replica runs `GRUNDY_JOB_WORKERS` of them, for jobs of every kind. A
//! worker claims a job from the store (with a lease: the store's `queue.rs`) and hands it to
//! its kind's [`JobRun`](super::kind::JobRun) through [`run_kind`] (a seat among the jobs sharing
//! this replica's cores, `super::threads`) — an octal sequence (a census member's job too) to
//! `SequenceJob`'s run in `super::sequence`, a misère quotient to `QuotientJob`'s in
//! `super::misere` — which computes, checkpoints (renewing the lease), and ends it: done,
//! failed, cancelled, given back to the queue at shutdown, or lost to another replica. A kind
//! that runs differently adds its `JobRun` in its file there and one arm here.
//!
//! A crashed replica's jobs are picked up when their lease expires (or at once by the same
//! replica restarted with the same `GRUNDY_REPLICA_ID`), resuming from the last checkpoint.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::task::JoinHandle;

use super::kind::run_kind;
use super::retry::Backoff;
use crate::service::state::AppState;
use crate::store::{JobKind, QuotientJob, SequenceJob};

/// Handles of the running workers, to stop them at shutdown.
pub struct Workers {
    shutdown: Arc<AtomicBool>,
    wake: Arc<tokio::sync::Notify>,
    handles: Vec<JoinHandle<()>>,
}

impl Workers {
    /// Starts `GRUNDY_JOB_WORKERS` workers (none without a store or with 0 workers).
    pub fn start(app: &AppState) -> Workers {
        let shutdown = Arc::new(AtomicBool::new(false));
        let wake = app.job_notify.clone();
        // Jobs this replica's workers hold in memory, never claimed by a second one of them.
        let held: Held = Arc::default();
        let released_own = Arc::new(tokio::sync::OnceCell::new());
        let handles = (0..app.config.job_workers)
            .map(|_| {
                let (app, shutdown, held) = (app.clone(), shutdown.clone(), held.clone());
                let released_own = released_own.clone();
                tokio::spawn(async move { worker(app, shutdown, held, released_own).await })
            })
            .collect();
        Workers {
            shutdown,
            wake,
            handles,
        }
    }

    /// Asks every worker to checkpoint, release its job and stop; waits for them.
    pub async fn stop(self) {
        self.shutdown.store(true, Ordering::SeqCst);
        self.wake.notify_waiters();
        for h in self.handles {
            let _ = h.await;
        }
    }
}

type Held = Arc<Mutex<HashSet<String>>>;

async fn worker(
    app: AppState,
    shutdown: Arc<AtomicBool>,
    held: Held,
    released_own: Arc<tokio::sync::OnceCell<()>>,
) {
    let owner = app.config.replica_id.clone();
    let lease_ms = app.config.job_lease.as_millis() as i64;
    let mut backoff = Backoff::new();
    while !shutdown.load(Ordering::SeqCst) {
        let Some(store) = app.store() else {
            tokio::time::sleep(Duration::from_millis(500)).await;
            continue;
        };
        // A restart under the same replica id takes its own interrupted jobs back now instead
        // of waiting for their leases to expire. Once, and before any worker claims: run later
        // it would take back a job another worker of this replica had just claimed. (A failure
        // is logged by the store; the leases then expire as after a crash.)
        released_own
            .get_or_init(|| async {
                let _ = store.requeue_owned(&owner).await;
            })
            .await;
        let exclude: Vec<String> = held
            .lock()
            .map(|h| h.iter().cloned().collect())
            .unwrap_or_default();
        match store.claim_job_excluding(&owner, lease_ms, &exclude).await {
            Ok(Some(job)) => {
                backoff.reset();
                let id = job.id.clone();
                tracing::info!(job = %id, code = %job.code, max_n = job.max_n, attempts = job.attempts, "job claimed");
                if let Ok(mut h) = held.lock() {
                    h.insert(id.clone());
                }
                let result = match job.kind {
                    JobKind::Sequence => {
                        run_kind::<SequenceJob>(&app, &store, job, &shutdown).await
                    }
                    JobKind::MisereQuotient => {
                        run_kind::<QuotientJob>(&app, &store, job, &shutdown).await
                    }
                };
                if let Err(e) = result {
                    tracing::error!(job = %id, error = %e, "job run failed (the lease will expire and another worker retries)");
                }
                if let Ok(mut h) = held.lock() {
                    h.remove(&id);
                }
                store.clear_stall(&id);
            }
            Ok(None) => {
                backoff.reset();
                // Idle: wait for a local submission or poll for jobs from other replicas.
                let _ = tokio::time::timeout(Duration::from_millis(500), app.job_notify.notified())
                    .await;
            }
            Err(e) => {
                tracing::debug!(error = %e, "could not claim a job");
                backoff.wait(&app, &store).await;
            }
        }
    }
}
