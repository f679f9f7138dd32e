//! The services between the HTTP layers and the store: what every handler and job worker
//! reaches through [`AppState`]. Nothing here knows HTTP. Eight files and one folder: the
//! request-side services at the top, the job system (every kind's run and the lifecycle they
//! share) in `jobs/`.

pub mod auth; // who may do what with jobs: access modes, callers, scopes, ownership, quotas
pub mod cache; // the response cache: canonical request → serialized body (moka, TinyLFU)
pub mod compute_pool; // the compute pool: a fixed thread per core for the large computations of requests
pub mod jobs; // the job system: workers, a trait per kind (sequence, misère quotient), threads, CPU time, retries, archive, censuses
pub mod misere; // verified misère quotients per (code, bound): cached, stored, computed within the time limit
pub mod octal; // one resumable octal solver per canonical code, cached, fed from the store
pub mod state; // AppState: config, caches, the octal service, the store slot, job wake-ups, the draining flag
pub mod store_slot; // the store connection, filled once the store is reachable

/// API keys are configuration (`GRUNDY_API_KEYS_FILE`, read at start-up): they live in
/// [`crate::config::keys`], below the services; the old path stays for callers outside.
pub use crate::config::keys;
pub use octal::{OctalService, OctalServiceError};
pub use state::{AppState, Draining};
