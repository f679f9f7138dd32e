//! The pure mathematics: no I/O, no async, no allocation beyond what a computation needs.
pub mod welter;
