//! Octal and other take-and-break games (Austin 1976; see `/work/shared/notes/austin/SPEC.md`).
#[cfg(test)]
mod acceptance_tests;
mod bitset;
pub mod code;
mod dense;
pub mod engine;
pub mod error;
pub mod moves;
pub mod naive;
pub mod periodicity;
mod rules;
mod sets;
pub mod solver;
mod sparse;
pub mod value;

pub use code::{Game, GameClass, StandardForm, MAX_CODE_DIGITS, MAX_SUBTRACTION_MEMBER};
pub use engine::{Engine, EngineStats, Value, MAX_VALUES};
pub use error::OctalError;
pub use naive::naive_values;
pub use moves::{winning_moves, MovePage, WinningMove, DEFAULT_BUDGET, MAX_HEAPS};
pub use periodicity::{detect, Detector, Periodicity, Proof, Theorem};
pub use value::value_at;
pub use solver::Solver;
