//! The interface of a job kind, a trait per layer where the kinds differ: one type per kind
//! (`SequenceJob` in `sequence.rs`, `QuotientJob` in `misere.rs`) implements [`JobSubmit`]
//! (what a caller's request becomes: a row admitted within the caller's quotas) and
//! [`JobRun`] (how a claimed job computes to its end); [`run_kind`] runs one on its seat among
//! the jobs sharing the cores. Imports nothing of the worker loop, which imports this.

use std::future::Future;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use super::threads::{JobSeat, JobShape};
use crate::service::auth::Caller;
use crate::service::state::AppState;
use crate::store::{Job, Store, StoreError};

/// A kind's submission: the caller's request, admitted within its quotas where API keys are
/// on (owned by the key), created in the store under `id` — or the quota it would exceed.
pub trait JobSubmit {
    /// What a caller asks the kind to compute.
    type Request<'a>;
    /// What the submission ends in (the job, or why not).
    type Submitted;

    fn submit(
        caller: &Caller,
        store: &Store,
        request: Self::Request<'_>,
        id: &str,
    ) -> impl Future<Output = Result<Self::Submitted, StoreError>> + Send;
}

/// A kind of job as the workers run it: one type per kind (`sequence::SequenceJob`,
/// `misere::QuotientJob`), one file each.
pub(crate) trait JobRun {
    /// How the kind shares the cores: as many threads as it is given, or one.
    const SHAPE: JobShape;

    /// Runs a claimed job to its end: done, failed, cancelled, given back at shutdown, or lost
    /// to another replica. `Err` only when giving it back at shutdown failed (its lease then
    /// expires). `seat` is the job's share of the cores, asked again before each slice.
    fn run(
        app: &AppState,
        store: &Store,
        job: Job,
        shutdown: &Arc<AtomicBool>,
        seat: &JobSeat,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;
}

/// Runs a claimed job of kind `K`, counted among the jobs sharing the cores until it ends.
pub(super) async fn run_kind<K: JobRun>(
    app: &AppState,
    store: &Store,
    job: Job,
    shutdown: &Arc<AtomicBool>,
) -> Result<(), StoreError> {
    let seat = app.job_threads.join(K::SHAPE);
    K::run(app, store, job, shutdown, &seat).await
}
