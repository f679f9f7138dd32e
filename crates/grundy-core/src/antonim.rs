//! Antonim (van Splunder, Def. 5.10): Nim in which no two non-empty heaps are equal — any number
//! of heaps may be empty. As coins: Welter's game where square 0 may hold many coins. A move takes
//! a coin from `x` to a lower square `y` that is empty or is 0.
//!
//! No formula for the Sprague–Grundy value is known, so values come from a memoised mex search
//! ([`crate::search::MemoSearch`]) bounded by a [`Budget`]. Proved structure used:
//!
//! * Coins on 0 never move and never block (0 is always a legal target), so a position is the
//!   **set of occupied non-zero squares**; the number of coins on 0 is irrelevant.
//! * No non-zero coin: terminal (normal value 0; misère N).
//! * One non-zero coin `x`: it can reach every `y < x`, so by induction the value is `x`; in
//!   misère play it is P exactly when `x = 1` (its only move empties the board, leaving the
//!   opponent the winning terminal position, while from `x ≥ 2` one moves to `{1}`).
//!
//! The empirical facts of the notes (two coins `{a < b}`: P ⇔ `b = a+1`, `a` odd; three coins:
//! P ⇔ `(a+1)⊕(b+1)⊕(c+1) = 0`) are unproven and used only as tests.
//!
//! Positions whose squares are all < 128 are searched as 128-bit masks (fast); others as sorted
//! vectors. Misère outcomes use a win/loss search that stops at the first P follower.
//!
//! **Measured cost** of [`analyse`] (release, one core, worst of 12 random positions whose
//! largest square is the bound): within 100 ms for non-zero coins on squares below
//! about 100 (2 coins; ~140 for 2 coins in the vector representation), 46 (3), 30 (4), 22 (5),
//! 20 (6), 18 (7), 16 (8). Misère analyses are about as fast (their win/loss search stops
//! early, but they also compute the normal value). Coins on 0 cost nothing; one non-zero coin is
//! O(1) for any square.

use crate::budget::{Budget, BudgetExceeded};
use crate::game::{self, sort_distinct, Move, Outcome, Play, SquaresError};
use crate::search::{MemoSearch, Mode, SearchGame};

pub use crate::game::MAX_COINS;

/// Invalid input, or an answer beyond the budget.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AntonimError {
    /// Too many coins, or a non-zero square listed twice.
    #[error("{0}{note}", note = zero_may_repeat(.0))]
    Squares(SquaresError),
    #[error("compute budget exceeded")]
    BudgetExceeded,
}

/// What Antonim adds to the shared refusal of a square listed twice.
fn zero_may_repeat(e: &SquaresError) -> &'static str {
    match e {
        SquaresError::DuplicateSquare(_) => " (only square 0 may hold several)",
        SquaresError::TooManyCoins { .. } => "",
    }
}

impl From<BudgetExceeded> for AntonimError {
    fn from(_: BudgetExceeded) -> Self {
        AntonimError::BudgetExceeded
    }
}

/// A validated position: the occupied non-zero squares (sorted) and the number of coins on 0.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Position {
    nonzero: Vec<u64>,
    zeros: usize,
}

impl Position {
    pub fn new(squares: &[u64]) -> Result<Self, AntonimError> {
        let mut nonzero: Vec<u64> = squares.iter().copied().filter(|&x| x != 0).collect();
        let zeros = squares.len() - nonzero.len();
        sort_distinct(squares.len(), &mut nonzero).map_err(AntonimError::Squares)?;
        Ok(Position { nonzero, zeros })
    }

    /// Occupied non-zero squares, ascending.
    pub fn nonzero(&self) -> &[u64] {
        &self.nonzero
    }

    /// Number of coins on square 0.
    pub fn zeros(&self) -> usize {
        self.zeros
    }

    /// All squares ascending, coins on 0 first (canonical echo of the input).
    pub fn squares(&self) -> Vec<u64> {
        let mut v = vec![0; self.zeros];
        v.extend_from_slice(&self.nonzero);
        v
    }
}

/// Value, outcome and every winning move (by `from` then `to` ascending) of one position.
pub type Analysis = game::Analysis<u64, Move>;

/// Number of moves from `pos` (each coin `x` reaches `x` squares minus the non-zero coins below
/// it), or `None` when it exceeds `u64`.
fn move_count(pos: &Position) -> Option<u64> {
    pos.nonzero
        .iter()
        .enumerate()
        .try_fold(0u64, |acc, (i, &x)| acc.checked_add(x - i as u64))
}

/// Refuse at once when merely listing the root's followers would exceed the step budget.
fn root_fits(pos: &Position, budget: Budget) -> bool {
    let per = pos.nonzero.len() as u64 + 1;
    move_count(pos).is_some_and(|m| m.saturating_mul(per) <= budget.max_steps)
}

/// Exact normal-play value, or `None` beyond `budget`.
pub fn value(pos: &Position, budget: Budget) -> Option<u64> {
    if pos.nonzero.len() > 1 && !root_fits(pos, budget) {
        return None;
    }
    match Searcher::new(pos, Mode::NormalValue, budget) {
        Searcher::Small(mut s, root) => s.solve(&root).ok(),
        Searcher::Large(mut s, root) => s.solve(&root).ok(),
    }
}

/// Exact outcome under `play`, or `None` beyond `budget`.
pub fn outcome(pos: &Position, play: Play, budget: Budget) -> Option<Outcome> {
    let mode = mode_of(play);
    let v = match Searcher::new(pos, mode, budget) {
        Searcher::Small(mut s, root) => s.solve(&root).ok()?,
        Searcher::Large(mut s, root) => s.solve(&root).ok()?,
    };
    Some(if v == 0 { Outcome::P } else { Outcome::N })
}

/// Validate and analyse under `play`. A misère analysis runs two searches (the normal value and
/// the misère outcome), each with its own `budget`.
pub fn analyse(squares: &[u64], play: Play, budget: Budget) -> Result<Analysis, AntonimError> {
    let pos = Position::new(squares)?;
    if let [] | [_] = pos.nonzero[..] {
        return Ok(analyse_few(&pos, play));
    }
    if !root_fits(&pos, budget) {
        return Err(AntonimError::BudgetExceeded);
    }
    let value = value(&pos, budget).ok_or(AntonimError::BudgetExceeded)?;
    let (p, moves) = match Searcher::new(&pos, mode_of(play), budget) {
        Searcher::Small(mut s, root) => moves_with(&mut s, &root, &pos, mask_of)?,
        Searcher::Large(mut s, root) => moves_with(&mut s, &root, &pos, |v| v.into())?,
    };
    Ok(Analysis {
        value,
        outcome: if p { Outcome::P } else { Outcome::N },
        moves,
    })
}

/// At most one non-zero coin `x` (closed forms in the module docs): normal play wins by moving
/// to 0, misère play by moving to 1 (when `x ≥ 2`). O(1) even for `x` near 2^64.
fn analyse_few(pos: &Position, play: Play) -> Analysis {
    let x = pos.nonzero.first().copied().unwrap_or(0);
    let goal = if play == Play::Normal { 0 } else { 1 };
    let p = match play {
        Play::Normal => x == 0,
        Play::Misere => x == 1,
    };
    Analysis {
        value: x,
        outcome: if p { Outcome::P } else { Outcome::N },
        moves: if x > goal {
            vec![Move { from: x, to: goal }]
        } else {
            vec![]
        },
    }
}

fn mode_of(play: Play) -> Mode {
    match play {
        Play::Normal => Mode::NormalValue,
        Play::Misere => Mode::MisereOutcome,
    }
}

/// Solve the root, then every follower, and keep the moves into P-positions.
fn moves_with<G: SearchGame>(
    solver: &mut MemoSearch<G>,
    root: &G::State,
    pos: &Position,
    encode: impl Fn(Vec<u64>) -> G::State,
) -> Result<(bool, Vec<Move>), BudgetExceeded> {
    let p = solver.solve(root)? == 0;
    let mut moves = Vec::new();
    if p {
        return Ok((true, moves)); // no move from a P-position reaches a P-position
    }
    let a = &pos.nonzero;
    let n = a.len() as u64;
    for (i, &x) in a.iter().enumerate() {
        let mut j = 0; // first index with a[j] ≥ y
        let mut y = 0;
        while y < x {
            while a[j] < y {
                j += 1;
            }
            if y != 0 && a[j] == y {
                y += 1;
                continue;
            }
            solver.charge(n + 1)?;
            let mut f = Vec::with_capacity(a.len());
            f.extend_from_slice(&a[..j]);
            if y != 0 {
                f.push(y);
            }
            f.extend_from_slice(&a[j..i]);
            f.extend_from_slice(&a[i + 1..]);
            if solver.solve(&encode(f))? == 0 {
                moves.push(Move { from: x, to: y });
            }
            y += 1;
        }
    }
    Ok((false, moves))
}

/// Squares < 128 as a bitmask (bit 0 is never set: coins on 0 are dropped).
fn mask_of(nonzero: Vec<u64>) -> u128 {
    nonzero.iter().fold(0u128, |m, &x| m | 1u128 << x)
}

enum Searcher {
    Small(MemoSearch<SmallGame>, u128),
    Large(MemoSearch<LargeGame>, Box<[u64]>),
}

impl Searcher {
    fn new(pos: &Position, mode: Mode, budget: Budget) -> Self {
        match pos.nonzero.last() {
            Some(&m) if m >= 128 => Searcher::Large(
                MemoSearch::new(LargeGame, mode, budget),
                pos.nonzero.clone().into(),
            ),
            _ => Searcher::Small(
                MemoSearch::new(SmallGame, mode, budget),
                mask_of(pos.nonzero.clone()),
            ),
        }
    }
}

/// Closed forms for at most one non-zero coin (see the module docs).
fn known_few(count: usize, only: u64, mode: Mode) -> Option<u64> {
    match (count, mode) {
        (0, Mode::NormalValue) => Some(0),
        (0, Mode::MisereOutcome) => Some(1),
        (1, Mode::NormalValue) => Some(only),
        (1, Mode::MisereOutcome) => Some(u64::from(only != 1)),
        _ => None,
    }
}

/// Antonim on squares < 128, a position being the mask of occupied non-zero squares.
pub struct SmallGame;

pub struct SmallCursor {
    coins: u128,
    from: u32,
    targets: u128,
}

impl SearchGame for SmallGame {
    type State = u128;
    type Cursor = SmallCursor;

    fn cursor(&self, s: &u128) -> SmallCursor {
        SmallCursor {
            coins: *s,
            from: 0,
            targets: 0,
        }
    }

    fn next(&self, s: &u128, c: &mut SmallCursor) -> Option<u128> {
        while c.targets == 0 {
            if c.coins == 0 {
                return None;
            }
            c.from = c.coins.trailing_zeros();
            c.coins &= c.coins - 1;
            // empty squares below `from`, and square 0 (bit 0 of `s` is never set)
            c.targets = !s & ((1u128 << c.from) - 1);
        }
        let y = c.targets.trailing_zeros();
        c.targets &= c.targets - 1;
        let rest = s & !(1u128 << c.from);
        Some(if y == 0 { rest } else { rest | 1u128 << y })
    }

    fn size(&self, _: &u128) -> u64 {
        1
    }

    fn known(&self, s: &u128, mode: Mode) -> Option<u64> {
        known_few(s.count_ones() as usize, u64::from(s.trailing_zeros()), mode)
    }
}

/// Antonim on arbitrary squares, a position being the sorted occupied non-zero squares.
pub struct LargeGame;

pub struct LargeCursor {
    coin: usize,
    y: u64,
    /// first index with `s[j] ≥ y`
    j: usize,
}

impl SearchGame for LargeGame {
    type State = Box<[u64]>;
    type Cursor = LargeCursor;

    fn cursor(&self, _: &Box<[u64]>) -> LargeCursor {
        LargeCursor {
            coin: 0,
            y: 0,
            j: 0,
        }
    }

    fn next(&self, s: &Box<[u64]>, c: &mut LargeCursor) -> Option<Box<[u64]>> {
        loop {
            let &x = s.get(c.coin)?;
            if c.y >= x {
                c.coin += 1;
                c.y = 0;
                c.j = 0;
                continue;
            }
            let y = c.y;
            c.y += 1;
            while s[c.j] < y {
                c.j += 1;
            }
            if y != 0 && s[c.j] == y {
                continue;
            }
            let (i, j) = (c.coin, c.j);
            let mut f = Vec::with_capacity(s.len());
            f.extend_from_slice(&s[..j]);
            if y != 0 {
                f.push(y);
            }
            f.extend_from_slice(&s[j..i]);
            f.extend_from_slice(&s[i + 1..]);
            return Some(f.into());
        }
    }

    fn size(&self, s: &Box<[u64]>) -> u64 {
        s.len() as u64 + 1
    }

    fn known(&self, s: &Box<[u64]>, mode: Mode) -> Option<u64> {
        known_few(s.len(), s.first().copied().unwrap_or(0), mode)
    }
}

#[cfg(test)]
mod tests;
