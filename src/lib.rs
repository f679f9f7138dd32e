//! grundy: exact combinatorial-game answers over HTTP/JSON.
//!
//! [`core`] is the pure mathematics (no I/O, no async); [`api`] the HTTP types and handlers;
//! [`app`] assembles the service; [`config`] reads the environment.

pub mod allocator;
pub mod api;
pub mod app;
pub mod body_read;
pub mod cache;
pub mod config;
pub mod core;
pub mod header_deadline;
pub mod http_metrics;
pub mod jobs;
pub mod octal_service;
pub mod overload;
pub mod server;
pub mod state;
pub mod store;
pub mod store_slot;
pub mod telemetry;
