//! grundy: exact combinatorial-game answers over HTTP/JSON.
//!
//! The layers, each importing only those below it: `main` → [`app`] → [`api`] and [`http`]
//! → [`service`] → [`store`] → [`core`] (the crate `grundy_core`, `crates/grundy-core`).
//! [`problem`] (the error documents) is shared by the two HTTP layers; [`config`] and
//! [`process`] (the allocator, logging and metrics) by all.

pub mod api; // handlers and wire types (OpenAPI schemas), one router per route module
pub mod app; // the router and the middleware stack, and `run`: state + store + workers + serve
pub mod config; // every setting, from GRUNDY_* environment variables, and the API key file
/// The pure mathematics (no I/O, no async): the crate `grundy_core` (`crates/grundy-core`), here
/// under its old name so that `crate::core::…` reads as before.
pub use grundy_core as core;
pub mod http; // the HTTP edge: accept loop, deadlines, body reading, overload, metrics, headers
pub mod problem; // RFC 9457 problem documents and the catalogue of problem types
pub mod process; // the allocator (mimalloc, called like malloc), logging and the Prometheus recorder
pub mod service; // state, the octal solver service, the job workers, the response cache
pub mod store; // SQLite / PostgreSQL: jobs, sequences in compressed chunks, health

pub use app::{run, run_with};
