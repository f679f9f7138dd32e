//! The compute pool: where the large computations of requests run, off the async workers and
//! below them in priority.
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
//! skipped). On Linux the threads run at a lower priority (`GRUNDY_COMPUTE_NICE`, default +10),
//! so a core that a computation holds is handed to an async worker — or to any other process
//! of the host — as soon as it has something to do: the edge stays responsive however much is
//! computed, and the computations still get every cycle nobody else wants (BENCHMARKS.md,
//! "Large uploads under load").

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
    nice: i32,
    queue: OnceLock<Mutex<mpsc::Sender<Task>>>,
}

impl ComputePool {
    /// A pool of `threads` threads (at least one), `nice` below the caller's priority (Linux).
    pub fn new(threads: usize, nice: i32) -> Self {
        ComputePool {
            threads: threads.max(1),
            nice,
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
                let nice = self.nice;
                let spawned = std::thread::Builder::new()
                    .name(format!("grundy-compute-{i}"))
                    .spawn(move || {
                        lower_priority(nice);
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

/// Lowers the calling thread's priority by `nice` (Linux: a thread's nice value is its own,
/// and `nice` changes the calling thread's).
#[cfg(target_os = "linux")]
#[allow(unsafe_code)] // one system call through libc; std has no way to set a thread's priority
fn lower_priority(nice: i32) {
    if nice == 0 {
        return;
    }
    // SAFETY: `nice` takes a plain integer and touches no memory of ours.
    if unsafe { libc::nice(nice) } == -1 {
        tracing::debug!(
            error = %std::io::Error::last_os_error(),
            "a compute thread keeps its priority"
        );
    }
}

#[cfg(not(target_os = "linux"))]
fn lower_priority(_nice: i32) {}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test]
    async fn runs_in_order_survives_a_panic_and_skips_what_nobody_waits_for() {
        let pool = Arc::new(ComputePool::new(1, 0));
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

    #[cfg(target_os = "linux")]
    #[tokio::test]
    async fn its_threads_run_below_the_async_workers() {
        #[allow(unsafe_code)]
        fn own_nice() -> i32 {
            // SAFETY: plain integers in and out; `PRIO_PROCESS, 0` is the calling thread.
            unsafe { libc::getpriority(libc::PRIO_PROCESS, 0) }
        }
        let here = own_nice();
        let pool = ComputePool::new(1, 10);
        let there = pool.run(own_nice).await.unwrap();
        assert_eq!(there, (here + 10).min(19));
    }
}
