//! Octal and other take-and-break games: G-sequences, proved periodicity, values of any heap
//! and every winning move (R. B. Austin, "Impartial and Partisan Games", M.Sc. thesis, University
//! of Calgary, 1976: codes in ch. 4, periodicity in ch. 4 and 6, subtraction games in ch. 5).
//!
//! * [`Game`] (`code.rs`): parsing, canonical codes and Austin's standard form.
//! * [`naive_values`] (`naive.rs`): the definition, as a reference for tests and benchmarks.
//! * [`Engine`] (`engine.rs`: the step loop; `engine/window.rs`: keep, slide, freeze, resume;
//!   `engine/review.rs`: mode and cost model; `engine/sparse.rs` with `engine/sparse/`: the
//!   rare/common method, its rare check, bit marks and stamps; `engine/dense.rs`,
//!   `engine/sets.rs`, `engine/rules.rs`, `engine/split.rs`, `engine/bitset.rs`,
//!   `engine/pool.rs`): the fast incremental, resumable, stoppable computation
//!   (rare/common method, parallel dense scans, full exclusion sets for three-heap splits and
//!   recurring codes); on several threads the rare/common method runs as a pipeline that
//!   speculates and verifies (`engine/parallel/`), every value exactly the
//!   one-thread engine's.
//! * [`Detector`] / [`detect`] (`periodicity.rs`): periodicity and arithmetico-periodicity
//!   proved by Austin's theorems 4.1, 6.8, 6.9 and 6.10 from the computed values; long
//!   periods (above 2^20) through exactly confirmed square suffixes (`periodicity/squares.rs`);
//!   [`value_at`] (`periodicity/value.rs`): G(heap) for any u64 heap.
//! * [`Values`] (`values.rs`): a G-sequence in 1, 2 or 4 bytes per value, widened on demand.
//! * [`Keep`] (`window.rs`): all values, or a front and a window behind n (bounded memory),
//!   the values between read back from an [`Archive`] (`window/archive.rs`) when a heap needs
//!   them.
//! * [`winning_moves`] (`moves.rs`): every winning move of a sum of heaps, paginated.
//! * [`Solver`] (`solver.rs`): engine + detector + the queries, for the HTTP layer.
//! * [`Statistics`] (`statistics.rs`): the published tables' statistics of a G-sequence prefix;
//!   [`unsolved`](statistics::unsolved) (`statistics/unsolved.rs`): the unsolved games and their
//!   published computations.
//!
//! Pure computation: no I/O, no async; parallelism only on the engine's own pool of helper
//! threads (rayon, borrowed data in scopes: no locks around the values); every long computation
//! polls a `should_stop` callback; all failures are [`OctalError`]s.
//!
//! Tests: a module's own in `<module>/tests.rs` (or an inline `mod tests` when short); those
//! across modules in `tests.rs` and `tests/`.
pub mod code;
pub mod engine;
pub mod error;
pub mod moves;
pub mod naive;
pub mod periodicity;
pub mod solver;
pub mod statistics;
pub mod values;
pub mod window;

#[cfg(test)]
mod tests;

pub use window::archive::{Archive, MemoryArchive, ReadBacks};

/// The engine's version, the crate's. The git commit a binary was built from is the service's
/// (`grundy::process::build::COMMIT`): carried here, every commit would recompile the engine.
pub const ENGINE_VERSION: &str = env!("CARGO_PKG_VERSION");
pub use code::{
    Game, GameClass, PartRule, StandardForm, GRUNDY_CODE, MAX_CODE_DIGITS, MAX_SUBTRACTION_MEMBER,
};
pub use engine::{Engine, EngineStats, Profile, Value, MAX_THREADS, MAX_VALUES, MAX_WINDOW_N};
pub use error::OctalError;
pub use moves::{winning_moves, MovePage, WinningMove, DEFAULT_BUDGET, MAX_HEAPS};
pub use naive::naive_values;
pub use periodicity::value::value_at;
pub use periodicity::{detect, Detector, Periodicity, Proof, Theorem};
pub use solver::Solver;
pub use statistics::{Snapshot, Statistics, StatisticsError};
pub use values::{Cell, Values, ValuesRef};
pub use window::{Keep, SLIDE};
