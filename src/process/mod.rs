//! What the whole process shares, below every layer: the allocator (mimalloc, called like
//! `malloc`; the binary installs it) and telemetry (logging and the Prometheus recorder).

pub mod allocator; // mimalloc called like malloc (the binary's global allocator)
pub mod build; // the version and git commit of this build (build.rs), cited by job documents
pub mod telemetry; // logging and the Prometheus recorder
