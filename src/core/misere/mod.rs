//! Misère quotients of take-and-break games (work in progress).
mod budget;
mod candidate;
mod engine;
mod error;
mod monoid;
mod options;
mod periodicity;
mod presentation;
mod quotient;
mod search;
mod tame;
mod verify;

pub use budget::QuotientBudget;
pub use engine::{EngineStats, MisereEngine};
pub use error::MisereError;
pub use monoid::{Monoid, Word};
pub use options::{has_options, heap_options, HeapOption, MAX_OPTION_HEAP};
pub use periodicity::MiserePeriodicity;
pub use presentation::{Generator, Presentation, Relation};
pub use quotient::{MisereAnswer, MisereQuotient};
pub use search::{misere_grundy, misere_search};

#[cfg(test)]
mod tests;
#[cfg(test)]
mod scratch_tests {
    use super::*;
    use crate::core::octal::Game;

    #[test]
    fn scratch() {
        for (code, n) in [
            ("0.(3)", 7),
            ("0.07", 30),
            ("0.77", 40),
            ("0.123", 40),
            ("0.75", 30),
        ] {
            let g = Game::parse(code).unwrap();
            let mut e = MisereEngine::new(&g);
            let t = std::time::Instant::now();
            let r = e.extend_to(n, &QuotientBudget::DEFAULT, &mut || false);
            eprintln!(
                "{code} n={n}: {:?} bound={} |Q|={} |P|={} phi={:?} exp={:?} stats={:?} {:?}",
                r,
                e.bound(),
                e.q.size(),
                e.p.iter().filter(|&&b| b).count(),
                &e.phi,
                e.expansions,
                e.stats,
                t.elapsed()
            );
        }
    }
}
