//! The pure mathematics: no I/O, no async, no allocation beyond what a computation needs.
pub mod antimatter;
pub mod antonim;
pub mod budget;
pub mod explain;
pub mod game;
pub mod max_welter;
pub mod misere;
pub mod octal;
pub mod ordinal;
pub mod transfinite;
pub mod welter;

#[cfg(test)]
mod test_support;
