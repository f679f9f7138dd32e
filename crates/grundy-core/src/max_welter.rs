//! Max-Welter (N. B. Ho, *The game Max-Welter*): coins on distinct squares 0, 1, 2, …; the only
//! legal move takes the **rightmost** coin to any empty square on its left (jumping allowed).
//!
//! Positions are written sorted, `a_1 < … < a_k`; `t = a_{k−1}` is the coin below the top.
//!
//! * **Outcomes and winning moves** are closed forms, O(k) for any input:
//!   - Theorem 1: for k ≥ 2, G = 0 ⇔ `a_k = t + 1` and `t + k` is even;
//!   - Theorem 2: for k ≥ 2, G = 1 ⇔ (a) the squares are `{0..k} ∖ {m}` with `1 ≤ m ≤ k−1`
//!     (equivalently `a_1 = 0` and `a_k = k`), or (b) `a_k = t + 1` and `t + k` is odd;
//!   - Theorems 7–9: the misère SG function is the normal one with the values 0 and 1 swapped
//!     (every position, k ≥ 1; also the empty position). So misère P ⇔ normal value 1.
//!
//!   After the top coin moves to `e`, the new top/second pair is `(e, t)` if `e > t`, else
//!   `(t, max(a_{k−2}, e))`; the P-tests above only look at that pair (and the (a) shape), so the
//!   winning targets are: `t+1`, `t−1`, or *every* empty square below `t` when `a_{k−2} = t−1`,
//!   plus at most two squares making shape (a). They are returned as ranges.
//! * **Exact values** use the rigorous evaluator of the notes (§B.3 steps 1–2), with proved
//!   shortcuts only (Theorems 1, 2 and Corollary 1). Theorem 4 / Corollary 2 are *wrong as
//!   stated* (G(3,4,6,8) = 3 but G(0,1,3,4,6,8) = 2) and their empirical repair is unproven, so
//!   neither is used.
//!   - **Normalisation (Theorem 3).** A coin on `a_1 ≤ k−1` never moves: to become the top it
//!     would need all k−1 other coins below it, i.e. on `0..a_1−1`, so `a_1 = k−1` and the
//!     position is terminal. Deleting that square (and shifting the squares above it down by
//!     one) is therefore an isomorphism of game graphs, for every k ≥ 2.
//!   - **Complement enumeration.** Write the position as `L ∪ {y}` with `L = (a_1..a_{k−1})`.
//!     The followers with the top coin landing in `(t, y)` are `L ∪ {y'}`; the others land below
//!     `t` and have values `S(L) = {G(L ∖ {t} ∪ {e} ∪ {t}) : e < t, e ∉ L}`, independent of `y`.
//!     By induction on `y`, `G(L ∪ {y})` is the `(y−t−1)`-th (0-based) element of `ℕ ∖ S(L)`.
//!     `S(L)` is memoised per normalised `L`; each costs one evaluation per empty square below
//!     `t`, each of which recurses into positions whose top is `t` (strictly smaller tops).
//!
//! **Measured cost** (release, one core, worst of 12 random positions whose top is the largest
//! square, fresh evaluator): outcome and winning moves take microseconds for any input (O(k)).
//! Exact values answer within 100 ms for squares below about 1000 with 2 coins, 160 with 3,
//! 100 with 4, 64 with 5, 50 with 6, and about 55–64 with 8–12 coins (stuck coins and the
//! closed forms cut most work). A top coin far above the others costs nothing extra: only the
//! lower coins determine the S-sets. With [`Budget::DEFAULT`] a refused value takes < 0.3 s.

use crate::budget::{Budget, BudgetExceeded, FxMap, Meter};
use crate::game::{self, sort_distinct, Outcome, Play, SquaresError};

pub use crate::game::MAX_COINS;

/// Invalid Max-Welter input: too many coins, or a square listed twice.
pub type MaxWelterError = SquaresError;

/// A validated position: distinct squares, sorted ascending.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Position {
    squares: Vec<u64>,
}

impl Position {
    /// Sorts `squares` and checks that they are distinct and not too many.
    pub fn new(squares: &[u64]) -> Result<Self, MaxWelterError> {
        let mut v = squares.to_vec();
        sort_distinct(squares.len(), &mut v)?;
        Ok(Position { squares: v })
    }

    /// The squares, ascending.
    pub fn squares(&self) -> &[u64] {
        &self.squares
    }
}

/// Winning moves of the top coin `from`: moving it to **every empty square** `s` with
/// `to_start ≤ s ≤ to_end` wins. Both ends are empty squares; the range may contain occupied
/// squares (which are simply not targets).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MoveRange {
    pub from: u64,
    pub to_start: u64,
    pub to_end: u64,
}

/// Everything the service reports for one position: the normal-play value (`None` when beyond
/// the budget), and the outcome and every winning move (as ascending disjoint ranges) under the
/// requested play, always exact.
pub type Analysis = game::Analysis<Option<u64>, MoveRange>;

/// Validate and analyse: exact outcome and winning moves, and the normal-play value within
/// `budget`.
pub fn analyse(squares: &[u64], play: Play, budget: Budget) -> Result<Analysis, MaxWelterError> {
    let pos = Position::new(squares)?;
    Ok(Analysis {
        value: value(&pos, budget),
        outcome: outcome(&pos, play),
        moves: winning_moves(&pos, play),
    })
}

/// `t + k` is even (no overflow for any `t`).
fn even_sum(t: u64, k: usize) -> bool {
    (t % 2) as usize == k % 2
}

/// Theorem 2(a): `{0..k} ∖ {m}`, `1 ≤ m ≤ k−1` (k ≥ 2), i.e. `a_1 = 0` and `a_k = k`.
fn shape_a(a: &[u64]) -> bool {
    let k = a.len();
    k >= 2 && a[0] == 0 && a[k - 1] == k as u64
}

/// Normal-play value is 0 (Theorem 1; k ≤ 1 directly).
fn is_p(a: &[u64]) -> bool {
    match a.len() {
        0 => true,
        1 => a[0] == 0,
        k => a[k - 1] == a[k - 2] + 1 && even_sum(a[k - 2], k),
    }
}

/// Normal-play value is 1 (Theorem 2; k ≤ 1 directly).
fn is_one(a: &[u64]) -> bool {
    match a.len() {
        0 => false,
        1 => a[0] == 1,
        k => shape_a(a) || (a[k - 1] == a[k - 2] + 1 && !even_sum(a[k - 2], k)),
    }
}

/// Exact outcome under `play`, O(k). Misère P ⇔ normal value 1 (Theorems 7, 9); the empty
/// position and every terminal position are misère N (the player to move cannot move and wins).
pub fn outcome(pos: &Position, play: Play) -> Outcome {
    let p = match play {
        Play::Normal => is_p(&pos.squares),
        Play::Misere => is_one(&pos.squares),
    };
    if p {
        Outcome::P
    } else {
        Outcome::N
    }
}

/// Every winning move under `play`: ascending, disjoint ranges, each delimited by empty squares.
/// O(k) time, at most 4 ranges. Empty for P-positions (and for terminal positions).
pub fn winning_moves(pos: &Position, play: Play) -> Vec<MoveRange> {
    let a = &pos.squares;
    let k = a.len();
    let mut targets: Vec<(u64, u64)> = Vec::new();
    match k {
        0 => {}
        1 => {
            // One coin: G(a) = a, G⁻(0) = 1, G⁻(1) = 0, G⁻(a) = a otherwise.
            let goal = if play == Play::Normal { 0 } else { 1 };
            if a[0] > goal {
                targets.push((goal, goal));
            }
        }
        _ => {
            let top = a[k - 1];
            let t = a[k - 2];
            // Normal: land on a Theorem-1 position (second + k even). Misère: land on a
            // Theorem-2 position: (b) second + k odd, or shape (a).
            let want_even = play == Play::Normal;
            // e > t: new pair (e, t); needs e = t + 1.
            if t + 1 < top && even_sum(t, k) == want_even {
                targets.push((t + 1, t + 1));
            }
            // e < t: new pair (t, max(a_{k−2}, e)); needs that maximum to be t − 1.
            if t >= 1 && even_sum(t - 1, k) == want_even {
                if k >= 3 && a[k - 3] == t - 1 {
                    if let Some(r) = empty_span_below(&a[..k - 1]) {
                        targets.push(r);
                    }
                } else {
                    targets.push((t - 1, t - 1)); // empty: a_{k−2} < t − 1
                }
            }
            if play == Play::Misere && t <= k as u64 {
                // Shape (a): the lower k−1 coins lie in {0..k}, which leaves exactly two empty
                // squares u < v there; landing on one leaves the other missing.
                let mut gaps = Vec::with_capacity(2);
                let mut next = 0u64;
                for &c in &a[..k - 1] {
                    while next < c {
                        gaps.push(next);
                        next += 1;
                    }
                    next = c + 1;
                }
                while next <= k as u64 {
                    gaps.push(next);
                    next += 1;
                }
                if let [u, v] = gaps[..] {
                    let inner = 1..=(k as u64 - 1);
                    if u < top && inner.contains(&v) {
                        targets.push((u, u));
                    }
                    if v < top && inner.contains(&u) {
                        targets.push((v, v));
                    }
                }
            }
        }
    }
    targets.sort_unstable();
    let mut out: Vec<MoveRange> = Vec::with_capacity(targets.len());
    let from = a.last().copied().unwrap_or(0);
    for (lo, hi) in targets {
        match out.last_mut() {
            // Merge when nothing but coins lies between the ranges: the result is maximal.
            Some(r) if lo <= r.to_end || coins_between(a, r.to_end, lo) == lo - r.to_end - 1 => {
                r.to_end = r.to_end.max(hi)
            }
            _ => out.push(MoveRange {
                from,
                to_start: lo,
                to_end: hi,
            }),
        }
    }
    out
}

/// Number of coins strictly between squares `x < y` (`a` sorted).
fn coins_between(a: &[u64], x: u64, y: u64) -> u64 {
    (a.partition_point(|&c| c < y) - a.partition_point(|&c| c <= x)) as u64
}

/// Smallest and largest empty squares below the top of `lower` (sorted), if any.
fn empty_span_below(lower: &[u64]) -> Option<(u64, u64)> {
    // Lowest empty square: the first index i with lower[i] != i.
    let lo = lower
        .iter()
        .enumerate()
        .find(|&(i, &c)| c != i as u64)
        .map(|(i, _)| i as u64)?;
    // Highest empty square below the top: just under the run of consecutive coins ending there.
    let mut j = lower.len() - 1;
    while j > 0 && lower[j - 1] + 1 == lower[j] {
        j -= 1;
    }
    let hi = lower[j].checked_sub(1)?;
    (lo <= hi).then_some((lo, hi))
}

/// Exact normal-play Sprague–Grundy value, or `None` when it needs more than `budget`.
pub fn value(pos: &Position, budget: Budget) -> Option<u64> {
    Evaluator::new(budget).value(pos.squares()).ok()
}

/// Exact misère Sprague–Grundy value (G⁻ of the terminal position is 1), or `None` beyond the
/// budget: Theorem 9 says G⁻ is G with 0 and 1 swapped.
pub fn misere_value(pos: &Position, budget: Budget) -> Option<u64> {
    value(pos, budget).map(swap01)
}

/// Swap the values 0 and 1, keep the others (Theorem 9).
pub fn swap01(v: u64) -> u64 {
    match v {
        0 => 1,
        1 => 0,
        m => m,
    }
}

/// The value evaluator with its memo of `S(L)` sets; reusable across positions (the budget is
/// cumulative over the evaluator's lifetime).
pub struct Evaluator {
    /// Normalised `L` → sorted `keys[i] = s_i − i` of the sorted set `S(L) = {s_0 < s_1 < …}`.
    memo: FxMap<Vec<u64>, Vec<u64>>,
    meter: Meter,
}

/// A position reduced as far as the closed forms go.
enum Reduced {
    Known(u64),
    /// Needs `S(lower)`; the value is the element of index `gap` of its complement.
    Needs {
        lower: Vec<u64>,
        gap: u64,
    },
}

/// Theorem 3 normalisation + Theorems 1, 2 and Corollary 1. `a` sorted, distinct.
fn reduce(a: &[u64]) -> Reduced {
    let k = a.len();
    if k == 0 {
        return Reduced::Known(0);
    }
    // Coins on squares ≤ k−1 are stuck (all of them, since the list is sorted); keep ≥ 1 coin.
    let d = a[..k - 1].iter().take_while(|&&c| c < k as u64).count();
    let b: Vec<u64> = a[d..].iter().map(|&c| c - d as u64).collect();
    let k = b.len();
    if k == 1 {
        return Reduced::Known(b[0]);
    }
    let (top, t) = (b[k - 1], b[k - 2]);
    if top == t + 1 {
        return Reduced::Known(if even_sum(t, k) { 0 } else { 1 });
    }
    // Shape (a) cannot survive normalisation (a_1 = 0 ≤ k−1), so Theorem 2 is fully used above.
    // Corollary 1 (its excluded shape has a_1 = 0, impossible here): k ≥ 3,
    // a_{k−2} + 1 = a_{k−1}, a_{k−1} ≤ a_k − 2  ⇒  G = a_k − a_{k−1}.
    if k >= 3 && b[k - 3] + 1 == t {
        return Reduced::Known(top - t);
    }
    let gap = top - t - 1;
    let mut lower = b;
    lower.pop();
    Reduced::Needs { lower, gap }
}

/// The element of index `j` of `ℕ ∖ S`, with `keys[i] = s_i − i` sorted: `j + #{i : keys[i] ≤ j}`.
fn complement_nth(keys: &[u64], j: u64) -> u64 {
    j.saturating_add(keys.partition_point(|&x| x <= j) as u64)
}

/// Work frame computing `S(lower)`: `next` is the next candidate square `e` below the top.
struct Frame {
    lower: Vec<u64>,
    next: u64,
    /// Index in `lower` of the first coin ≥ `next` (to skip occupied squares).
    idx: usize,
    values: Vec<u64>,
}

impl Evaluator {
    pub fn new(budget: Budget) -> Self {
        Evaluator {
            memo: FxMap::default(),
            meter: Meter::new(budget),
        }
    }

    /// Steps and entries used so far.
    pub fn used(&self) -> (u64, u64) {
        self.meter.used()
    }

    /// Exact value of the sorted, distinct squares `a`.
    pub fn value(&mut self, a: &[u64]) -> Result<u64, BudgetExceeded> {
        match reduce(a) {
            Reduced::Known(v) => Ok(v),
            Reduced::Needs { lower, gap } => {
                if let Some(keys) = self.memo.get(&lower) {
                    return Ok(complement_nth(keys, gap));
                }
                self.fill(lower.clone())?;
                let keys = self.memo.get(&lower).ok_or(BudgetExceeded)?;
                Ok(complement_nth(keys, gap))
            }
        }
    }

    fn start(&mut self, lower: Vec<u64>) -> Result<Frame, BudgetExceeded> {
        let n = lower.len() as u64;
        let t = lower[lower.len() - 1];
        // Refuse up front when the empty squares below t alone exceed the remaining steps.
        let empties = t.saturating_add(1).saturating_sub(n);
        if empties.saturating_mul(n + 1) > self.meter.steps_left() {
            return Err(BudgetExceeded);
        }
        self.meter.entries(n)?;
        Ok(Frame {
            lower,
            next: 0,
            idx: 0,
            values: Vec::new(),
        })
    }

    /// Compute and memoise `S(root)` with an explicit stack.
    fn fill(&mut self, root: Vec<u64>) -> Result<(), BudgetExceeded> {
        let mut stack = vec![self.start(root)?];
        while let Some(f) = stack.last_mut() {
            let n = f.lower.len();
            let t = f.lower[n - 1];
            let mut child = None;
            while f.next < t {
                let e = f.next;
                while f.idx < n && f.lower[f.idx] < e {
                    f.idx += 1;
                }
                if f.lower[f.idx] == e {
                    f.next += 1;
                    continue;
                }
                // Follower (L ∖ {t}) ∪ {e} ∪ {t}: k coins, top t.
                self.meter.steps(n as u64 + 1)?;
                let mut pos = Vec::with_capacity(n + 1);
                pos.extend_from_slice(&f.lower[..f.idx]);
                pos.push(e);
                pos.extend_from_slice(&f.lower[f.idx..]);
                let v = match reduce(&pos) {
                    Reduced::Known(v) => v,
                    Reduced::Needs { lower, gap } => match self.memo.get(&lower) {
                        Some(keys) => complement_nth(keys, gap),
                        None => {
                            child = Some(lower);
                            break;
                        }
                    },
                };
                self.meter.entries(1)?;
                f.values.push(v);
                f.next += 1;
            }
            if let Some(lower) = child {
                // Same e is retried once the child's S-set is memoised.
                let frame = self.start(lower)?;
                stack.push(frame);
                continue;
            }
            let Some(done) = stack.pop() else { break };
            let mut s = done.values;
            s.sort_unstable();
            s.dedup();
            for (i, x) in s.iter_mut().enumerate() {
                *x -= i as u64; // s_i ≥ i for distinct sorted naturals
            }
            self.memo.insert(done.lower, s);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
