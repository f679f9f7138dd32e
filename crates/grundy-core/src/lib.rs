//! grundy-core: the pure mathematics of the grundy service — no I/O, no async, no allocation
//! beyond what a computation needs; the only threads are the octal engine's own helpers (rayon).
//!
//! A library crate of its own, so that its purity is a property of its dependency list (rayon,
//! thiserror, multiversion; no tokio, axum, hyper, tower or sqlx) and a researcher can use the
//! engine without the server: `grundy_core::octal::Solver`, the examples in `examples/`
//! (`octal_time`, `misere_sweep`), the benchmarks in `benches/`. The service (`grundy`)
//! re-exports it as `grundy::core`.
//!
//! The rooms ([`game`], [`budget`] and [`search`] are the vocabulary they share):
//! [`welter`], [`max_welter`], [`antimatter`], [`antonim`] (the Welter family), [`ordinal`]
//! and [`transfinite`], [`octal`] (the G-sequence engine, periodicity, winning moves),
//! [`misere`] (misère quotients), [`explain`] (worked reasoning for an answer). The unit tests
//! sit beside each room, their shared helpers in `test_support.rs`.
pub mod antimatter;
pub mod antonim;
pub mod budget;
pub mod explain;
pub mod game;
pub mod max_welter;
pub mod misere;
pub mod octal;
pub mod ordinal;
pub mod search;
pub mod transfinite;
pub mod welter;

#[cfg(test)]
mod test_support;
