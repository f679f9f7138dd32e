//! The one error type of the misère-quotient module.
//!
//! Every fallible operation returns [`MisereError`]; nothing in this module panics on user
//! input, and every long computation ends with one of these errors instead of running away.

/// Everything that can go wrong in `crate::misere`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MisereError {
    /// A heap above the largest heap this module will enumerate options for.
    #[error("heap {heap} is too large: at most {max} is supported here")]
    HeapTooLarge { heap: u64, max: u64 },
    /// A heap beyond the quotient's bound, and no periodicity proof extends the quotient.
    #[error(
        "heap {heap} is beyond the quotient's bound {bound} and no periodicity is proved for \
         this game"
    )]
    HeapBeyondBound { heap: u64, bound: u64 },
    /// Too many heaps in one query.
    #[error("{count} heaps given; at most {max} are allowed")]
    TooManyHeaps { count: usize, max: usize },
    /// A heap has more options than the budget allows to enumerate.
    #[error("heap {heap} has more than {max} options")]
    TooManyOptions { heap: u64, max: usize },
    /// The quotient (or a candidate for it) grew beyond the budget's bound.
    #[error(
        "the misère quotient at heap {heap} needs more than {max} elements (a candidate had {size})"
    )]
    QuotientTooLarge { heap: u64, size: usize, max: usize },
    /// The step budget ran out.
    #[error("the step budget ({max_steps} steps) ran out at heap {heap}")]
    StepBudgetExceeded { heap: u64, max_steps: u64 },
    /// The working memory would exceed the budget.
    #[error("the memory budget ({max_words} words) ran out at heap {heap}")]
    MemoryBudgetExceeded { heap: u64, max_words: u64 },
    /// The candidate search gave up: no candidate of the tried shapes fixed a failure.
    #[error(
        "no candidate quotient was found at heap {heap} after {tried} candidates (the quotient \
         may be infinite, or need a larger budget)"
    )]
    NoCandidate { heap: u64, tried: u64 },
    /// The `should_stop` callback asked to stop while heap `heap` was being added (an
    /// engine keeps the verified quotient of the heaps below it), or during the search of a
    /// move of heap `heap`.
    #[error("computation stopped at heap {heap}")]
    Stopped { heap: u64 },
    /// Listing winning moves would examine more options than allowed.
    #[error("listing the winning moves would examine more than {max} options")]
    MoveBudgetExceeded { max: u64 },
    /// The budget of an exact game-tree search ran out.
    #[error("the exact search exceeded its budget ({steps} steps, {entries} entries used)")]
    SearchBudgetExceeded { steps: u64, entries: u64 },
    /// A saved quotient an engine was to resume from failed its check (its shapes, the
    /// monoid axioms, its canonical form, or the closure checks): it is not used.
    #[error("the saved quotient Q_{bound} fails its check: {what}")]
    Unverified { bound: u64, what: String },
    /// An invariant of the algorithm failed; reported rather than panicking.
    #[error("internal error in the misère-quotient computation: {what}")]
    Internal { what: &'static str },
}
