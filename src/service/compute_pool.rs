//! The compute pool: where the large computations of requests run, off the async workers and
//! at most one per core at a time.
//!
//! A request whose computation is large (more than `GRUNDY_INLINE_COINS` coins, the budgeted
//! searches) used to run it on tokio's blocking pool: one more thread per request, up to
//! `GRUNDY_MAX_CONCURRENCY` of them, all runnable at once. The async workers — which read
//! every connection, and so every request body, and answer every small request — then got no
//! more of the CPU than any one of those computations, however many there were.
//!
//! Here a fixed set of threads (`GRUNDY_COMPUTE_THREADS`, default one per core) takes the
//! computations in the order they come (a request waiting for one still holds its concurrency
//! slot and is bounded by the request timeout; a computation whose request has gone is
//! skipped). However much is queued, at most one computation per core is runnable, so the
//! async workers always get their share of the CPU and the edge stays responsive
//! (BENCHMARKS.md, "Large uploads under load": a small request's median latency during a burst
//! of 200,000-coin uploads went from about 0.3 s to a few milliseconds).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, OnceLock};

type Task = Box<dyn FnOnce() + Send>;

/// A computation that could not give its result.
#[derive(Debug, thiserror::Error)]
pub enum ComputeError {
    #[error("the computation panicked: {0}")]
    Panicked(String),
    #[error("the compute pool is gone")]
    Gone,
}

/// The pool (see the module docs). Its threads start with the first computation and end when
/// the pool is dropped.
pub struct ComputePool {
    threads: usize,
    queue: OnceLock<Mutex<mpsc::Sender<Task>>>,
}

impl ComputePool {
    /// A pool of `threads` threads (at least one).
    pub fn new(threads: usize) -> Self {
        ComputePool {
            threads: threads.max(1),
            queue: OnceLock::new(),
        }
    }

    /// Runs `f` on the pool; its result, or why there is none.
    pub async fn run<T, F>(&self, f: F) -> Result<T, ComputeError>
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        let (tx, rx) = tokio::sync::oneshot::channel();
        let task: Task = Box::new(move || {
            // The request is gone (timed out, client disconnected): nothing to compute for.
            if tx.is_closed() {
                metrics::counter!("grundy_compute_skipped_total").increment(1);
                return;
            }
            let result = catch_unwind(AssertUnwindSafe(f)).map_err(|p| {
                ComputeError::Panicked(
                    p.downcast_ref::<&str>()
                        .map(|s| (*s).to_owned())
                        .or_else(|| p.downcast_ref::<String>().cloned())
                        .unwrap_or_else(|| "(no message)".into()),
                )
            });
            let _ = tx.send(result);
        });
        let sent = self
            .queue()
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .send(task);
        if sent.is_err() {
            return Err(ComputeError::Gone);
        }
        rx.await.map_err(|_| ComputeError::Gone)?
    }

    fn queue(&self) -> &Mutex<mpsc::Sender<Task>> {
        self.queue.get_or_init(|| {
            let (tx, rx) = mpsc::channel::<Task>();
            let rx = Arc::new(Mutex::new(rx));
            for i in 0..self.threads {
                let rx = rx.clone();
                let spawned = std::thread::Builder::new()
                    .name(format!("grundy-compute-{i}"))
                    .spawn(move || {
                        loop {
                            // One thread waits on the queue at a time; the others on the lock.
                            let next = rx.lock().unwrap_or_else(|e| e.into_inner()).recv();
                            match next {
                                Ok(task) => task(),
                                Err(_) => return, // the pool was dropped
                            }
                        }
                    });
                if let Err(e) = spawned {
                    tracing::error!(error = %e, "cannot start a compute thread");
                }
            }
            Mutex::new(tx)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test]
    async fn runs_in_order_survives_a_panic_and_skips_what_nobody_waits_for() {
        let pool = Arc::new(ComputePool::new(1));
        assert_eq!(pool.run(|| 6 * 7).await.unwrap(), 42);
        let e = pool
            .run(|| -> u32 { panic!("boom") })
            .await
            .expect_err("a panic is an error");
        assert!(
            matches!(e, ComputeError::Panicked(ref m) if m == "boom"),
            "{e}"
        );
        // The thread survived.
        assert_eq!(pool.run(|| 1).await.unwrap(), 1);

        // One thread, held busy: a computation whose caller has gone is never run.
        let ran = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (release_tx, release_rx) = mpsc::channel::<()>();
        let busy_pool = pool.clone();
        let busy = tokio::spawn(async move {
            busy_pool
                .run(move || release_rx.recv_timeout(Duration::from_secs(5)).is_ok())
                .await
        });
        tokio::time::sleep(Duration::from_millis(50)).await;
        let r = ran.clone();
        let gone = pool.run(move || r.store(true, std::sync::atomic::Ordering::SeqCst));
        // Polled once (queued), then dropped.
        assert!(tokio::time::timeout(Duration::from_millis(20), gone)
            .await
            .is_err());
        release_tx.send(()).unwrap();
        assert!(busy.await.unwrap().unwrap());
        assert_eq!(pool.run(|| 2).await.unwrap(), 2);
        assert!(!ran.load(std::sync::atomic::Ordering::SeqCst));
    }
}
