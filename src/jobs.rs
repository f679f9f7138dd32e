//! The job workers: each replica runs `GRUNDY_JOB_WORKERS` of them. A worker claims a job from
//! the store (with a lease), computes on the blocking pool in slices of about one checkpoint
//! interval, and after each slice saves the new values and renews its lease in one transaction.
//! It stops early once periodicity is proved, promptly on cancel, and at shutdown it saves a
//! final checkpoint and gives the job back to the queue.
//!
//! A crashed replica's jobs are picked up when their lease expires (or at once by the same
//! replica restarted with the same `GRUNDY_REPLICA_ID`), resuming from the last checkpoint.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::task::JoinHandle;

use crate::core::octal::{Game, OctalError, Periodicity, Solver};
use crate::octal_service::periodicity_json;
use crate::state::AppState;
use crate::store::{tail_offset, Checkpoint, Job, JobStatus, Store};

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
        let handles = (0..app.config.job_workers)
            .map(|i| {
                let (app, shutdown) = (app.clone(), shutdown.clone());
                tokio::spawn(async move { worker(app, i, shutdown).await })
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

async fn worker(app: AppState, index: usize, shutdown: Arc<AtomicBool>) {
    let owner = app.config.replica_id.clone();
    let lease_ms = app.config.job_lease.as_millis() as i64;
    let mut released_own = false;
    while !shutdown.load(Ordering::SeqCst) {
        let Some(store) = app.store() else {
            tokio::time::sleep(Duration::from_millis(500)).await;
            continue;
        };
        if index == 0 && !released_own {
            // A restart under the same replica id takes its own interrupted jobs back now
            // instead of waiting for their leases to expire.
            if let Err(e) = store.requeue_owned(&owner).await {
                tracing::warn!(error = %e, "could not requeue this replica's interrupted jobs");
            }
            released_own = true;
        }
        match store.claim_job(&owner, lease_ms).await {
            Ok(Some(job)) => {
                let id = job.id.clone();
                tracing::info!(job = %id, code = %job.code, max_n = job.max_n, attempts = job.attempts, "job claimed");
                if let Err(e) = run(&app, &store, job, &shutdown).await {
                    tracing::error!(job = %id, error = %e, "job run failed (the lease will expire and another worker retries)");
                }
            }
            Ok(None) => {
                // Idle: wait for a local submission or poll for jobs from other replicas.
                let _ = tokio::time::timeout(Duration::from_millis(500), app.job_notify.notified())
                    .await;
            }
            Err(e) => {
                tracing::warn!(error = %e, "could not claim a job");
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
        }
    }
}

/// What a slice of computation ended with.
enum Slice {
    /// The slice's time is up (or max_n / a proof was reached).
    Progress,
    /// Shutdown asked us to stop.
    Shutdown,
    Failed(String),
}

async fn run(
    app: &AppState,
    store: &Store,
    job: Job,
    shutdown: &Arc<AtomicBool>,
) -> Result<(), crate::store::StoreError> {
    let owner = app.config.replica_id.clone();
    let lease_ms = app.config.job_lease.as_millis() as i64;
    let game = match Game::parse(&job.code) {
        Ok(g) => g,
        Err(e) => {
            store
                .finish_job(
                    &job.id,
                    &owner,
                    JobStatus::Failed,
                    0,
                    Some(&e.to_string()),
                    None,
                )
                .await?;
            return Ok(());
        }
    };
    let code = game.canonical();
    let stored = store.load_sequence(&code).await?;
    let values = stored.map(|s| s.values).unwrap_or_default();
    let mut already = values.len();
    let g = game.clone();
    let solver = tokio::task::spawn_blocking(move || {
        Solver::resume(&g, values).unwrap_or_else(|_| Solver::new(&g))
    })
    .await
    .map_err(|e| crate::store::StoreError::Corrupt(format!("resume task: {e}")))?;
    if solver.values().len() != already {
        already = 0;
    }
    let solver = Arc::new(std::sync::Mutex::new(solver));
    let max_n = usize::try_from(job.max_n).unwrap_or(usize::MAX);
    loop {
        let (len, proved) = {
            let s = solver.lock().expect("solver lock");
            (
                s.values().len(),
                matches!(s.periodicity(), Periodicity::Proved(_)),
            )
        };
        if proved || len >= max_n {
            let (computed, json) = {
                let s = solver.lock().expect("solver lock");
                (s.values().len(), periodicity_json(s.periodicity()))
            };
            // Final values first (conditional on the lease), then the status.
            let offset = tail_offset(already);
            let tail = solver
                .lock()
                .expect("solver lock")
                .values()
                .range_u32(offset..);
            match store
                .checkpoint(
                    &job.id,
                    &owner,
                    &code,
                    offset,
                    &tail,
                    json.as_deref(),
                    None,
                    lease_ms,
                )
                .await?
            {
                Checkpoint::Lost => return Ok(()),
                _ => {
                    store
                        .finish_job(
                            &job.id,
                            &owner,
                            JobStatus::Done,
                            computed as u64,
                            None,
                            json.as_deref(),
                        )
                        .await?;
                }
            }
            app.sequences.invalidate(&code);
            metrics::counter!("grundy_jobs_finished_total", "status" => "done").increment(1);
            tracing::info!(job = %job.id, computed, "job done");
            return Ok(());
        }
        // One slice of about a checkpoint interval on the blocking pool.
        let slice_time = app.config.job_checkpoint;
        let (s2, sd) = (solver.clone(), shutdown.clone());
        let started = Instant::now();
        let outcome = tokio::task::spawn_blocking(move || {
            let deadline = Instant::now() + slice_time;
            let mut stop = || Instant::now() >= deadline || sd.load(Ordering::SeqCst);
            let mut s = s2.lock().expect("solver lock");
            match s.run(max_n, true, &mut stop) {
                Ok(_) => Slice::Progress,
                Err(OctalError::Stopped { .. }) if sd.load(Ordering::SeqCst) => Slice::Shutdown,
                Err(OctalError::Stopped { .. }) => Slice::Progress,
                Err(e) => Slice::Failed(e.to_string()),
            }
        })
        .await
        .unwrap_or_else(|e| Slice::Failed(format!("computation panicked: {e}")));
        let offset = tail_offset(already);
        let (tail, json) = {
            let s = solver.lock().expect("solver lock");
            (
                s.values().range_u32(offset..),
                periodicity_json(s.periodicity()),
            )
        };
        let total = offset + tail.len();
        let grown = total.saturating_sub(len);
        metrics::counter!("grundy_heaps_computed_total").increment(grown as u64);
        let rate = grown as f64 / started.elapsed().as_secs_f64().max(1e-9);
        let cp = store
            .checkpoint(
                &job.id,
                &owner,
                &code,
                offset,
                &tail,
                json.as_deref(),
                Some(rate),
                lease_ms,
            )
            .await?;
        already = total;
        match (cp, outcome) {
            (Checkpoint::Lost, _) => {
                tracing::warn!(job = %job.id, "lease lost; another replica owns this job now");
                return Ok(());
            }
            (Checkpoint::Cancel, _) => {
                store
                    .finish_job(
                        &job.id,
                        &owner,
                        JobStatus::Cancelled,
                        total as u64,
                        None,
                        json.as_deref(),
                    )
                    .await?;
                metrics::counter!("grundy_jobs_finished_total", "status" => "cancelled")
                    .increment(1);
                tracing::info!(job = %job.id, "job cancelled");
                return Ok(());
            }
            (_, Slice::Failed(msg)) => {
                store
                    .finish_job(
                        &job.id,
                        &owner,
                        JobStatus::Failed,
                        total as u64,
                        Some(&msg),
                        json.as_deref(),
                    )
                    .await?;
                metrics::counter!("grundy_jobs_finished_total", "status" => "failed").increment(1);
                return Ok(());
            }
            (_, Slice::Shutdown) => {
                store.release_job(&job.id, &owner).await?;
                tracing::info!(job = %job.id, computed = total, "job checkpointed and released for shutdown");
                return Ok(());
            }
            (Checkpoint::Continue, Slice::Progress) => {}
        }
    }
}
