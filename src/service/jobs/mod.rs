//! The job system: durable computations claimed by this replica's workers, of every kind — an
//! octal sequence (a census's members are sequence jobs too, created together by
//! [`census`]) and a misère quotient.
//!
//! The way down from `app::run`: [`Workers::start`] (`workers.rs`) → a worker claims a job
//! (with a lease: the store's `jobs.rs`) → `kind::run_kind` gives it a seat among the jobs sharing
//! the cores (`threads.rs`) and runs it as its kind's `kind::JobRun` (`sequence.rs`, `misere.rs`) →
//! the run computes, checkpoints, and ends it, with the lifecycle every kind shares below it:
//! back-off while the store fails (`retry.rs`), CPU time per thread (`cpu.rs`), the archive of
//! a window job's dropped values (`archive.rs`). Nothing here imports the worker loop back.
//!
//! **A fourth kind** is one type, a file per layer: its rows in the store (a `JobKind`
//! variant and `store/<kind>_jobs.rs`), its submission and run here (`<kind>.rs`: a type
//! implementing [`JobSubmit`] and `kind::JobRun`, and one arm in `workers.rs` mapping the
//! `JobKind` to it), its route in `api/octal/` (the handler that parses the request and calls
//! the kind's `submit`).
//!
//! May import: `service::{state, auth, octal, misere}`, the store, the core, config.

pub mod archive; // a window job's archive: the values its engine dropped, read back from the store's chunks
pub mod census; // censuses: one job per game, created together within quotas, read as a table with verified verdicts
pub mod cpu; // a job's CPU time from /proc's per-thread counters: the slice's thread and the engine's helpers
mod kind; // the interface every kind implements: its submission, its run (and the seat it runs on)
mod misere; // misère-quotient jobs: resumed from a verified quotient, checkpointed, cancelled
mod retry; // what a job worker does while the store fails: back-off, retries, the stall it shows
mod sequence; // octal-sequence jobs: computed in slices, checkpointed, resumed, windowed
pub mod threads; // GRUNDY_JOB_THREADS: the cores divided among the running jobs, re-balanced at each slice
mod workers; // the job workers, for every kind: claim with a lease, a seat on the cores, the kind's run

pub use kind::JobSubmit;
pub use misere::{QuotientJob, QuotientSubmitted};
pub use sequence::{SequenceJob, Submitted};
pub use workers::Workers;
