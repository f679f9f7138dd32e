//! Misère quotients of take-and-break games (Plambeck 2005, "Taming the wild in impartial
//! combinatorial games", INTEGERS 5 #G05; Plambeck & Siegel 2008, "Misère quotients for
//! impartial games", J. Combin. Theory Ser. A 115, and its supplement, arXiv:0705.2404).
//!
//! In misère play (the player who cannot move *wins*) the Sprague–Grundy sum rule fails. Its
//! replacement is the *misère quotient* of the positions whose heaps have at most `n` tokens:
//! a finite commutative monoid `Q_n`, a subset `P ⊂ Q_n` and a *pretending function*
//! `Φ: {0..n} → Q_n` such that a sum of such heaps is a misère P-position iff the product of
//! `Φ` over its heaps lies in `P`. This module computes `Q_n` exactly for any game code of
//! [`crate::octal::Game`] (octal, hexadecimal, recurring, digits before the point,
//! subtraction sets, Grundy's game), proves it with closure checks, presents it, decides
//! tameness, proves periodicity of `Φ` (then `Q_n` is the quotient of the whole game), and
//! answers outcome and winning-move queries — by the quotient where it applies, by a
//! budgeted exact search elsewhere.
//!
//! **Exactness and limits.** Nothing is inferred from sampled positions: a quotient is
//! returned only after the closure checks of `verify.rs` prove it, and a periodicity only
//! when the hypotheses of the theorem in `periodicity.rs` hold on the computed values. The
//! *search* for a candidate is MisereSolver's kind of heuristic, and some quotients grow
//! fast: with [`QuotientBudget::DEFAULT`] (about ten seconds) Dawson's Kayles reaches
//! `Q_33` (638 elements; `Q_30` has 360 and takes about 0.1–0.5 s), Kayles its whole-game
//! quotient (40 elements, periodic from heap 71 with period 12), Grundy's game `Q_28`
//! (48 elements), and the hexadecimal `0.3F` `Q_11` (172 elements); beyond that the budget
//! ends the computation with a typed error.
//!
//! Pure computation: no I/O; every long computation runs against a budget
//! ([`QuotientBudget`], [`crate::budget::Budget`]) and polls a `should_stop` callback;
//! every failure is a [`MisereError`].

/// Budgets of the quotient computation and the meter that polls `should_stop`.
mod budget;
/// Candidate quotients: product monoids, pretending (labels from least words), reduction.
mod candidate;
/// The heap-by-heap algorithm (conservative extension, expansion, recalibration).
mod engine;
/// The error type.
mod error;
/// Finite commutative monoids, words over heaps and their lexicographic order.
mod monoid;
/// The options of one heap as multisets of heaps (the rule of `octal::naive`).
mod options;
/// The data a quotient is rebuilt from, and its shape checks.
mod parts;
/// The periodicity theorem for pretending functions, checked on computed values.
mod periodicity;
/// Generators, relations, normal forms and element names.
mod presentation;
/// The verified quotient and its queries (outcome, winning moves).
mod quotient;
/// Budgeted exact search: misère outcomes and winning moves, misère Grundy values.
mod search;
/// Tameness: isomorphism with a quotient of misère Nim.
mod tame;
/// The closure checks (verification theorem, P-check, lex-least N-failure search).
mod verify;

#[cfg(test)]
mod tests;

pub use budget::QuotientBudget;
pub use engine::{EngineStats, MisereEngine};
pub use error::MisereError;
pub use monoid::{Monoid, Word};
pub use options::{has_options, heap_options, HeapOption, MAX_OPTION_HEAP};
pub use parts::QuotientParts;
pub use periodicity::MiserePeriodicity;
pub use presentation::{Generator, Presentation, Relation};
pub use quotient::{MisereAnswer, MisereQuotient, MOVE_BUDGET};
pub use search::{misere_grundy, misere_search};
