//! What every job worker does while the store fails: waits with back-off, retries, and marks
//! its job stalled meanwhile (shown in the job document) — for sequence jobs
//! (`sequence.rs`) and misère-quotient jobs (`misere.rs`) alike.

use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crate::service::state::AppState;
use crate::store::{now_ms, Stall, Store, StoreError};

/// Retry delays while the store fails: 250 ms doubling to 5 s.
pub(super) struct Backoff(Duration);

impl Backoff {
    const FIRST: Duration = Duration::from_millis(250);
    const MAX: Duration = Duration::from_secs(5);

    pub(super) fn new() -> Self {
        Backoff(Self::FIRST)
    }

    pub(super) fn reset(&mut self) {
        self.0 = Self::FIRST;
    }

    /// Waits for the current delay (less if the store's fault clears or a shutdown or
    /// submission wakes the workers), then doubles it.
    pub(super) async fn wait(&mut self, app: &AppState, store: &Store) {
        tokio::select! {
            () = store.wait_health_change(self.0) => {}
            () = app.job_notify.notified() => {}
        }
        self.0 = (self.0 * 2).min(Self::MAX);
    }
}

/// Runs `op` until it succeeds, marking the job stalled meanwhile; `None` on shutdown.
pub(super) async fn retrying<T, F, Fut>(
    app: &AppState,
    store: &Store,
    job: &str,
    computed: u64,
    shutdown: &AtomicBool,
    mut op: F,
) -> Option<T>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, StoreError>>,
{
    let mut backoff = Backoff::new();
    let mut stall: Option<Stall> = None;
    loop {
        match op().await {
            Ok(v) => {
                if stall.is_some() {
                    store.clear_stall(job);
                }
                return Some(v);
            }
            Err(e) => {
                mark_stalled(store, job, &mut stall, &e, computed);
                if shutdown.load(Ordering::SeqCst) {
                    return None;
                }
                backoff.wait(app, store).await;
            }
        }
    }
}

pub(super) fn mark_stalled(
    store: &Store,
    job: &str,
    stall: &mut Option<Stall>,
    e: &StoreError,
    computed: u64,
) {
    let s = stall.get_or_insert_with(|| Stall {
        kind: e.kind(),
        detail: String::new(),
        since_ms: now_ms(),
        retries: 0,
        computed,
    });
    s.kind = e.kind();
    s.detail = e.to_string();
    s.retries += 1;
    s.computed = computed;
    store.set_stall(job, s.clone());
}
