//! The budget of a quotient computation and the meter that enforces it.

use super::error::MisereError;

/// Limits for one quotient computation ([`crate::misere::MisereEngine::extend_to`]).
///
/// * `max_quotient`: most elements of the quotient (and of any reduced candidate);
/// * `max_candidate`: most elements of an unreduced candidate monoid;
/// * `max_steps`: most elementary steps (a product, a lookup or a set update, roughly
///   1–50 ns each in release builds);
/// * `max_words`: most 64-bit words of working memory held at once by the large tables (the
///   options of the heaps, a candidate's option sets, the visited pairs of a check).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct QuotientBudget {
    pub max_quotient: usize,
    pub max_candidate: usize,
    pub max_steps: u64,
    pub max_words: u64,
}

impl QuotientBudget {
    /// About ten seconds of work at most (release build, one core), and well under 1 GB.
    pub const DEFAULT: QuotientBudget = QuotientBudget {
        max_quotient: 4096,
        max_candidate: 1 << 18,
        max_steps: 300_000_000,
        max_words: 1 << 25,
    };
}

impl Default for QuotientBudget {
    fn default() -> Self {
        QuotientBudget::DEFAULT
    }
}

/// Charges steps against a [`QuotientBudget`] and polls `should_stop` every few thousand
/// steps.
pub(crate) struct Meter<'a> {
    pub(crate) budget: QuotientBudget,
    pub(crate) steps: u64,
    pub(crate) heap: u64,
    /// Words held by long-lived tables (the option store), added to every memory check.
    pub(crate) base_words: u64,
    next_poll: u64,
    should_stop: &'a mut dyn FnMut() -> bool,
}

const POLL_EVERY: u64 = 1 << 16;

impl<'a> Meter<'a> {
    pub(crate) fn new(budget: QuotientBudget, should_stop: &'a mut dyn FnMut() -> bool) -> Self {
        Meter {
            budget,
            steps: 0,
            heap: 0,
            base_words: 0,
            next_poll: 0,
            should_stop,
        }
    }

    /// Charges `n` steps; an error once the budget is spent or the caller asks to stop.
    #[inline]
    pub(crate) fn charge(&mut self, n: u64) -> Result<(), MisereError> {
        self.steps = self.steps.saturating_add(n);
        if self.steps >= self.next_poll {
            self.poll()?;
        }
        Ok(())
    }

    #[cold]
    fn poll(&mut self) -> Result<(), MisereError> {
        if self.steps > self.budget.max_steps {
            return Err(MisereError::StepBudgetExceeded {
                heap: self.heap,
                max_steps: self.budget.max_steps,
            });
        }
        if (self.should_stop)() {
            return Err(MisereError::Stopped { heap: self.heap });
        }
        self.next_poll = self.steps.saturating_add(POLL_EVERY);
        Ok(())
    }

    /// Fails when `words` (memory held now by one structure plus the option store) exceed
    /// the budget.
    #[inline]
    pub(crate) fn memory(&self, words: u64) -> Result<(), MisereError> {
        if words.saturating_add(self.base_words) > self.budget.max_words {
            return Err(MisereError::MemoryBudgetExceeded {
                heap: self.heap,
                max_words: self.budget.max_words,
            });
        }
        Ok(())
    }

    /// Polls `should_stop` now.
    pub(crate) fn check_now(&mut self) -> Result<(), MisereError> {
        self.poll()
    }
}
