//! The pure mathematics: no I/O, no async, no allocation beyond what a computation needs.
pub mod explain;
pub mod ordinal;
pub mod transfinite;
pub mod welter;
