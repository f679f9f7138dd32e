//! The services between the HTTP layers and the store: what every handler and job worker
//! reaches through [`AppState`]. Nothing here knows HTTP.

pub mod archive; // a window job's archive: the values its engine dropped, read back from the store's chunks
pub mod auth; // who may do what with jobs: access modes, callers, scopes, ownership, quotas
pub mod cache; // the response cache: canonical request → serialized body (moka, TinyLFU)
pub mod census; // censuses: one job per game, created together within quotas, read as a table with verified verdicts
pub mod compute_pool; // the compute pool: a fixed thread per core for the large computations of requests
pub mod cpu; // a job's CPU time from /proc's per-thread counters: the slice's thread and the engine's helpers
mod job_retry; // what a job worker does while the store fails: back-off, retries, the stall it shows
pub mod job_threads; // GRUNDY_JOB_THREADS: the cores divided among the running jobs, re-balanced at each slice
pub mod misere; // verified misère quotients per (code, bound): cached, stored, computed within the time limit
mod misere_jobs; // misère-quotient jobs: resumed from a verified quotient, checkpointed, cancelled
pub mod octal; // one resumable octal solver per canonical code, cached, fed from the store
mod sequence_jobs; // octal-sequence jobs: computed in slices, checkpointed, resumed, windowed
pub mod state; // AppState: config, caches, the octal service, the store slot, job wake-ups, the draining flag
pub mod store_slot; // the store connection, filled once the store is reachable
pub mod workers; // the job workers, for every kind: claim with a lease, a seat on the cores, the kind's run

/// API keys are configuration (`GRUNDY_API_KEYS_FILE`, read at start-up): they live in
/// [`crate::config::keys`], below the services; the old path stays for callers outside.
pub use crate::config::keys;
pub use octal::{OctalService, OctalServiceError};
pub use state::{AppState, Draining};
