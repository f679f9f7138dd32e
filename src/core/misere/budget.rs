//! The budget of a quotient computation and the meter that enforces it.

use super::error::MisereError;

/// Limits for one quotient computation ([`crate::core::misere::MisereEngine::extend_to`]).
///
/// * `max_quotient`: most elements of the quotient (and of any reduced candidate);
/// * `max_candidate`: most elements of an unreduced candidate monoid;
/// * `max_steps`: most elementary steps (a product, a lookup or a set update, roughly
///   1–20 ns each in release builds).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct QuotientBudget {
    pub max_quotient: usize,
    pub max_candidate: usize,
    pub max_steps: u64,
}

impl QuotientBudget {
    /// About ten seconds of work at most (release build, one core), and well under 1 GB.
    pub const DEFAULT: QuotientBudget = QuotientBudget {
        max_quotient: 4096,
        max_candidate: 1 << 18,
        max_steps: 300_000_000,
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

    /// Polls `should_stop` now.
    pub(crate) fn check_now(&mut self) -> Result<(), MisereError> {
        self.poll()
    }
}
