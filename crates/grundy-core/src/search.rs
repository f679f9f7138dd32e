//! The shared memoised game-tree search: an impartial game given by its follower relation
//! ([`SearchGame`]) and the search over it ([`MemoSearch`]), bounded by a [`Budget`].
//!
//! The search uses an explicit stack, never native recursion: game trees here can be thousands
//! of moves deep and must not overflow a thread stack.

use std::hash::Hash;

use crate::budget::{mex, Budget, BudgetExceeded, FxMap, Meter};

/// An impartial game given by its follower relation, for [`MemoSearch`].
pub trait SearchGame {
    /// A position in canonical form (equal positions must compare equal).
    type State: Clone + Eq + Hash;
    /// Iteration state over the followers of one position.
    type Cursor;

    fn cursor(&self, s: &Self::State) -> Self::Cursor;
    /// The next follower (canonical), or `None` when all have been produced.
    fn next(&self, s: &Self::State, c: &mut Self::Cursor) -> Option<Self::State>;
    /// Cost of one position in words (charged per follower built and per memo entry).
    fn size(&self, s: &Self::State) -> u64;
    /// The answer for `s` when it is known without search (closed forms, terminal positions),
    /// in the solver's [`Mode`].
    fn known(&self, s: &Self::State, mode: Mode) -> Option<u64>;
}

/// What the solver computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Normal-play Sprague–Grundy value: mex of the followers' values, 0 at terminal positions.
    NormalValue,
    /// Misère outcome as a 0/1 value: 0 = P (every follower is N), 1 = N. A terminal position is
    /// N because the player to move cannot move and so wins. Stops at the first P follower.
    MisereOutcome,
}

/// Memoised, explicit-stack search over a [`SearchGame`].
pub struct MemoSearch<G: SearchGame> {
    game: G,
    mode: Mode,
    memo: FxMap<G::State, u64>,
    meter: Meter,
    scratch: Vec<u64>,
}

struct Frame<S, C> {
    state: S,
    cursor: C,
    /// Outcome mode: some follower is known to be a P-position.
    won: bool,
}

impl<G: SearchGame> MemoSearch<G> {
    pub fn new(game: G, mode: Mode, budget: Budget) -> Self {
        MemoSearch {
            game,
            mode,
            memo: FxMap::default(),
            meter: Meter::new(budget),
            scratch: Vec::new(),
        }
    }

    pub fn game(&self) -> &G {
        &self.game
    }

    /// Steps and entries used so far.
    pub fn used(&self) -> (u64, u64) {
        self.meter.used()
    }

    /// Charge `n` steps of caller-side work (e.g. enumerating root moves).
    pub fn charge(&mut self, n: u64) -> Result<(), BudgetExceeded> {
        self.meter.steps(n)
    }

    /// The answer for `s` if already known (closed form or memo); does not search.
    pub fn lookup(&self, s: &G::State) -> Option<u64> {
        self.game
            .known(s, self.mode)
            .or_else(|| self.memo.get(s).copied())
    }

    /// Solve `root` (value or misère 0/1 outcome, per the mode), memoising every position met.
    pub fn solve(&mut self, root: &G::State) -> Result<u64, BudgetExceeded> {
        if let Some(v) = self.lookup(root) {
            return Ok(v);
        }
        self.meter.entries(self.game.size(root))?;
        let mut stack = vec![Frame {
            cursor: self.game.cursor(root),
            state: root.clone(),
            won: false,
        }];
        while let Some(top) = stack.last_mut() {
            // Phase 1: advance to the first follower whose answer is unknown.
            let mut child = None;
            if !top.won {
                while let Some(f) = self.game.next(&top.state, &mut top.cursor) {
                    self.meter.steps(self.game.size(&f))?;
                    match self
                        .game
                        .known(&f, self.mode)
                        .or_else(|| self.memo.get(&f).copied())
                    {
                        None => {
                            child = Some(f);
                            break;
                        }
                        Some(0) if self.mode == Mode::MisereOutcome => {
                            top.won = true;
                            break;
                        }
                        Some(_) => {}
                    }
                }
            }
            if let Some(f) = child {
                self.meter.entries(self.game.size(&f))?;
                let cursor = self.game.cursor(&f);
                stack.push(Frame {
                    state: f,
                    cursor,
                    won: false,
                });
                continue;
            }
            // Phase 2: every follower is known; combine them.
            let Some(frame) = stack.pop() else { break };
            let v = match self.mode {
                Mode::MisereOutcome => u64::from(frame.won),
                Mode::NormalValue => self.mex_of(&frame.state)?,
            };
            if let (Some(parent), Mode::MisereOutcome, 0) = (stack.last_mut(), self.mode, v) {
                parent.won = true;
            }
            self.memo.insert(frame.state, v);
        }
        self.lookup(root).ok_or(BudgetExceeded)
    }

    /// mex of the followers' values; all of them must already be known.
    fn mex_of(&mut self, s: &G::State) -> Result<u64, BudgetExceeded> {
        let mut values = std::mem::take(&mut self.scratch);
        values.clear();
        let mut c = self.game.cursor(s);
        while let Some(f) = self.game.next(s, &mut c) {
            self.meter.steps(self.game.size(&f))?;
            let v = self
                .game
                .known(&f, self.mode)
                .or_else(|| self.memo.get(&f).copied());
            // Unreachable by construction (phase 1 resolved every follower); treated as budget
            // exhaustion rather than a panic.
            values.push(v.ok_or(BudgetExceeded)?);
        }
        let m = mex(&mut values);
        self.scratch = values;
        Ok(m)
    }
}
