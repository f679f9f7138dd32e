//! A job kind's rows: the interface each kind's store file implements, and the submission
//! written once over it.
//!
//! A kind is one type implementing one trait per layer where it differs. The type is declared
//! here in the store, beside its rows (the lowest layer that knows it), and the layers above
//! implement theirs for it: its submission and its run in `crate::service::jobs`. In the store
//! a kind implements:
//!
//! * [`JobRows`] — what a submission of the kind writes, in the one write transaction of
//!   [`Store::create_rows`] that admits it within its owner's quotas (`owners.rs`): the
//!   octal sequence's `jobs` row ([`SequenceJob`](super::SequenceJob), `sequence_jobs.rs`), a
//!   misère quotient's row or the owner's job for the same quotient, joined
//!   ([`QuotientJob`](super::QuotientJob), `misere_jobs.rs`), a census with its members'
//!   jobs and the links that make them members ([`CensusMemberJob`](super::CensusMemberJob),
//!   `census.rs`).
//! * [`StoredKind`] — what the queue (`queue.rs`) does differently for the jobs of one value
//!   of `jobs.kind`: whether a queued job waits at a claim, what goes with a job cancelled
//!   or deleted. The sequence and the misère quotient; a census member's job is a `sequence`
//!   row (listed, claimed and run as one), so it is not a `StoredKind` of its own.
//!
//! Nothing here names a kind: the kinds' files import this, and `queue.rs` maps each value
//! of `jobs.kind` to its type in one place.

use std::future::Future;

use sqlx::AnyConnection;

use super::owners::{admit, JobQuota, Refusal};
use super::{now_ms, Job, Store, StoreError};

/// What a kind's submission writes: its rows, inserted within its owner's quotas by
/// [`Store::create_rows`] (one implementation per kind, in the kind's store file).
pub trait JobRows {
    /// What a submission asks for: a job, a quotient, a census and its members' job ids.
    type New: Sync;
    /// What it creates (or joins): the job, or the census and its jobs.
    type Rows: Send;

    /// The jobs and heaps a submission adds to its owner's quotas (`(1, max_n)` for one job).
    fn asks(new: &Self::New) -> (u64, u64);

    /// The rows of `owner` (`None`: jobs without one) that `new` joins instead of inserting
    /// its own, read on the submission's transaction before it is admitted (a join asks
    /// nothing of the quotas). None by default: every submission inserts.
    fn joined(
        _c: &mut AnyConnection,
        _new: &Self::New,
        _owner: Option<&str>,
    ) -> impl Future<Output = Result<Option<Self::Rows>, StoreError>> + Send {
        async { Ok(None) }
    }

    /// Inserts `new`'s rows under `id`, owned by `owner` (if any), on the submission's
    /// transaction once admitted: [`Admission::Created`], or [`Admission::Joined`] when an
    /// identical submission committed first.
    fn insert(
        c: &mut AnyConnection,
        new: &Self::New,
        id: &str,
        owner: Option<&str>,
        now: i64,
    ) -> impl Future<Output = Result<Admission<Self::Rows>, StoreError>> + Send;
}

/// The outcome of a submission ([`Store::create_rows`]).
#[derive(Debug, Clone, PartialEq)]
pub enum Admission<R> {
    /// Inserted and committed.
    Created(R),
    /// The owner's rows for the same request, queued or running; nothing was written.
    Joined(R),
    /// A quota of the owner refused it; nothing was written.
    Refused(Refusal),
}

impl<R> Admission<R> {
    /// Whether rows were inserted.
    fn created(&self) -> bool {
        matches!(self, Admission::Created(_))
    }
}

/// What the queue does differently for the jobs of one value of `jobs.kind` (`queue.rs` maps
/// the value to its type); each item's default is what the queue does for every job anyway.
pub(super) trait StoredKind {
    /// A condition on a queued job `j` (the claim's alias of `jobs`) under which a claim
    /// passes it by: it waits. `None`: it never waits.
    const WAITS: Option<&'static str> = None;

    /// What goes with a job of the kind once a cancel reached it (`job` as the cancel left
    /// it), on the cancel's transaction. Nothing by default.
    fn cancelled(
        _c: &mut AnyConnection,
        _job: &Job,
    ) -> impl Future<Output = Result<(), StoreError>> + Send {
        async { Ok(()) }
    }

    /// What goes with a finished job of the kind whose record is deleted, on the delete's
    /// transaction. Nothing by default.
    fn deleted(
        _c: &mut AnyConnection,
        _id: &str,
    ) -> impl Future<Output = Result<(), StoreError>> + Send {
        async { Ok(()) }
    }
}

impl Store {
    /// Creates the rows of `new` (a submission of kind `K`) under `id` for `owner` within its
    /// quotas (`None`: no owner, no quotas), in one write transaction: the owner's rows for
    /// the same request joined if `K` joins and it has them, else the submission admitted —
    /// past a quota nothing at all is written —, then its rows inserted. Returns once
    /// committed.
    pub async fn create_rows<K: JobRows>(
        &self,
        new: &K::New,
        id: &str,
        owner: Option<(&str, JobQuota)>,
    ) -> Result<Admission<K::Rows>, StoreError> {
        let now = now_ms();
        let name = owner.map(|(o, _)| o);
        let r = async {
            let mut tx = self.begin_write().await?;
            let r = async {
                let c = tx.conn();
                if let Some(rows) = K::joined(c, new, name).await? {
                    return Ok(Admission::Joined(rows));
                }
                if let Some((o, quota)) = owner {
                    if let Some(refused) = admit(c, o, quota, K::asks(new), now).await? {
                        return Ok(Admission::Refused(refused));
                    }
                }
                K::insert(c, new, id, name, now).await
            }
            .await;
            tx.finish_if(r, Admission::created).await
        }
        .await;
        self.track_if(r, Admission::created)
    }
}
