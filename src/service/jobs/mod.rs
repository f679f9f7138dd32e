//! The job system: durable computations claimed by this replica's workers, of every kind — an
//! octal sequence, a census member (a game of a census: a sequence job submitted with its
//! census) and a misère quotient.
//!
//! The way down from `app::run`: [`Workers::start`] (`workers.rs`) → a worker claims a job
//! (with a lease: the store's `queue.rs`) → `kind::run_kind` gives it a seat among the jobs
//! sharing the cores (`threads.rs`) and runs it as its kind's `kind::JobRun` (`sequence.rs`,
//! `misere.rs`) → the run computes, checkpoints, and ends it, with the lifecycle every kind
//! shares below it: back-off while the store fails (`retry.rs`), CPU time per thread
//! (`cpu.rs`), the archive of a window job's dropped values (`archive.rs`). Nothing here
//! imports the worker loop back. A submission goes down the same way from its route:
//! [`JobSubmit::submit`] (`kind.rs`, written once) → the store's `Store::create_rows`.
//!
//! A kind is one type — `SequenceJob`, `QuotientJob`, `CensusMemberJob`, declared in the store
//! with its rows — implementing one trait per layer where it differs, in one file per layer:
//!
//! | layer | trait | sequence | misère quotient | census member |
//! | --- | --- | --- | --- | --- |
//! | store (rows) | `JobRows`, `StoredKind` | `store/sequence_jobs.rs` | `store/misere_jobs.rs` | `store/census.rs` (`JobRows` only) |
//! | service (submission) | [`JobSubmit`] | `sequence.rs` | `misere.rs` | `census.rs` |
//! | service (run) | `JobRun` | `sequence.rs` | `misere.rs` | — (runs as a sequence job) |
//! | api (route) | — | `api/octal/jobs/sequence.rs` | `api/octal/misere.rs` | `api/octal/jobs/census.rs` |
//!
//! **A fourth kind** is one more column of that table. In the store (`crate::store` says
//! how): a `JobKind` variant and `store/<kind>_jobs.rs` declaring its type, with its rows
//! (insert, checkpoint, finish) and its `JobRows` and `StoredKind` impls, and an arm in
//! `queue.rs`'s `with_kind!`. Here, `<kind>.rs`: its [`JobSubmit`] (empty unless its refusals
//! say more than one job's) and its `kind::JobRun`, and one arm in `workers.rs` mapping the
//! `JobKind` to it. In `api/octal/`: its route (the handler that parses the request and calls
//! `<Kind>::submit`). A kind that is a way of submitting another kind's jobs — as a census
//! submits sequence jobs — implements `JobRows` and `JobSubmit` only.
//!
//! May import: `service::{state, auth, octal, misere}`, the store, the core, config.

pub mod archive; // a window job's archive: the values its engine dropped, read back from the store's chunks
pub mod census; // censuses: their members submitted together within quotas, read as a table with verified verdicts
pub mod cpu; // a job's CPU time from /proc's per-thread counters: the slice's thread and the engine's helpers
pub mod follow; // a job followed to its end by polling the store: the event stream and the command line's bar
mod kind; // the interface every kind implements: its submission (written once), its run (and the seat it runs on)
mod misere; // misère-quotient jobs: submitted (or joined), resumed from a verified quotient, checkpointed, cancelled
pub mod request; // what a job is asked for, checked once for the API and the command line: a typed refusal, the window rule
mod retry; // what a job worker does while the store fails: back-off, retries, the stall it shows
mod sequence; // octal-sequence jobs: submitted, computed in slices, checkpointed, resumed, windowed
pub mod threads; // GRUNDY_JOB_THREADS: the cores divided among the running jobs, re-balanced at each slice
mod workers; // the job workers, for every kind: claim with a lease, a seat on the cores, the kind's run

pub use kind::{JobSubmit, Submission};
pub use workers::Workers;
