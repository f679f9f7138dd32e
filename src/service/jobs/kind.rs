//! The interface of a job kind, a trait per layer where the kinds differ. A kind is one type,
//! declared in the store beside its rows (`crate::store::SequenceJob`, `QuotientJob`,
//! `CensusMemberJob`: the lowest layer that knows it, where it implements `JobRows`), and each
//! layer above implements its own trait for it in the kind's file here:
//!
//! * [`JobSubmit`] — its submission: what a caller's request becomes, admitted within the
//!   caller's quotas where API keys are on. [`JobSubmit::submit`] is written once for every
//!   kind (owner and quotas from the caller, the store's `create_rows`, the counts); a kind
//!   says only what differs, the words of a refusal. `SequenceJob` (`sequence.rs`),
//!   `QuotientJob` (`misere.rs`), `CensusMemberJob` (`census.rs`: a census's members are
//!   submitted together).
//! * [`JobRun`] — its run: how a claimed job computes to its end; [`run_kind`] runs one on its
//!   seat among the jobs sharing the cores. `SequenceJob` and `QuotientJob`; a census member's
//!   job is a `sequence` job, claimed and run as one (its run does not differ).
//!
//! Imports nothing of the worker loop, which imports this.

use std::future::Future;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use super::threads::{JobSeat, JobShape};
use crate::service::auth::{refusal, submitted, Caller, QuotaExceeded, NO_OWNER};
use crate::service::state::AppState;
use crate::store::{Admission, Job, JobRows, Refusal, Store, StoreError};

/// The outcome of a submission ([`JobSubmit::submit`]).
#[derive(Debug)]
pub enum Submission<R> {
    /// New rows (the job; the census and its jobs), committed.
    Created(R),
    /// The caller's job for the same request, queued or running (a misère quotient).
    Joined(R),
    /// A quota of the caller's key refused it; nothing was written.
    OverQuota(QuotaExceeded),
}

/// A kind's submission: the caller's request ([`JobRows::New`]), admitted within its quotas
/// where API keys are on (owned by the key), created in the store — or the quota it would
/// exceed. One implementation per kind, in its file.
pub trait JobSubmit: JobRows {
    /// What a refusal of `new` by a quota of `owner`'s key says (counted as a refusal). By
    /// default the words for one job of `max_n` heaps.
    fn over_quota(owner: &str, refused: Refusal, new: &Self::New) -> QuotaExceeded {
        refusal(owner, refused, Self::asks(new).1)
    }

    /// Submits `new` under `id` as `caller`: owned and within its quotas with a key, without
    /// them on an open server; what it created is counted for the caller's metrics.
    fn submit(
        caller: &Caller,
        store: &Store,
        new: &Self::New,
        id: &str,
    ) -> impl Future<Output = Result<Submission<Self::Rows>, StoreError>> + Send
    where
        Self: Sized,
    {
        async move {
            let owner = caller.owner_quota();
            let name = owner.map_or(NO_OWNER, |(o, _)| o);
            Ok(match store.create_rows::<Self>(new, id, owner).await? {
                Admission::Created(rows) => {
                    submitted(name, Self::asks(new));
                    Submission::Created(rows)
                }
                Admission::Joined(rows) => Submission::Joined(rows),
                Admission::Refused(refused) => {
                    Submission::OverQuota(Self::over_quota(name, refused, new))
                }
            })
        }
    }
}

/// A kind of job as the workers run it: one implementation per kind of `jobs.kind`
/// (`SequenceJob` in `sequence.rs`, `QuotientJob` in `misere.rs`).
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
