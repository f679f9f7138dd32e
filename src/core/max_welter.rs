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

use crate::core::budget::{Budget, BudgetExceeded, FxMap, Meter};
use crate::core::game::{Outcome, Play};

/// Largest accepted number of coins.
pub const MAX_COINS: usize = 1_000_000;

/// Invalid Max-Welter input.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MaxWelterError {
    #[error("position has {coins} coins; at most {max} are allowed")]
    TooManyCoins { coins: usize, max: usize },
    #[error("square {0} holds more than one coin")]
    DuplicateSquare(u64),
}

/// A validated position: distinct squares, sorted ascending.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Position {
    squares: Vec<u64>,
}

impl Position {
    /// Sorts `squares` and checks that they are distinct and not too many.
    pub fn new(squares: &[u64]) -> Result<Self, MaxWelterError> {
        if squares.len() > MAX_COINS {
            return Err(MaxWelterError::TooManyCoins {
                coins: squares.len(),
                max: MAX_COINS,
            });
        }
        let mut v = squares.to_vec();
        v.sort_unstable();
        if let Some(w) = v.windows(2).find(|w| w[0] == w[1]) {
            return Err(MaxWelterError::DuplicateSquare(w[0]));
        }
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

/// Everything the service reports for one position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Analysis {
    /// Normal-play Sprague–Grundy value; `None` when beyond the budget.
    pub value: Option<u64>,
    /// Outcome under the requested play (always exact).
    pub outcome: Outcome,
    /// Every winning move under the requested play (always exact), as ascending disjoint ranges.
    pub moves: Vec<MoveRange>,
}

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
mod tests {
    use super::*;
    use crate::core::test_support::{u64s, vectors};

    /// Independent brute force over bitmask positions on squares < n: plain mex over followers.
    /// Followers of a mask are numerically smaller (top bit cleared, a lower bit set), so one
    /// increasing pass fills both tables. Misère: terminal positions get 1.
    fn brute(n: u32) -> (Vec<u8>, Vec<u8>) {
        let size = 1usize << n;
        let mut g = vec![0u8; size];
        let mut gm = vec![0u8; size];
        for mask in 0..size {
            let mut seen = 0u64;
            let mut seen_m = 0u64;
            let mut any = false;
            if mask != 0 {
                let h = 63 - (mask as u64).leading_zeros();
                for e in 0..h {
                    if mask & (1 << e) == 0 {
                        let f = (mask & !(1 << h)) | (1 << e);
                        seen |= 1 << g[f];
                        seen_m |= 1 << gm[f];
                        any = true;
                    }
                }
            }
            g[mask] = (!seen).trailing_zeros() as u8;
            gm[mask] = if any {
                (!seen_m).trailing_zeros() as u8
            } else {
                1
            };
        }
        (g, gm)
    }

    fn squares_of(mask: usize) -> Vec<u64> {
        (0..64).filter(|b| mask >> b & 1 == 1).collect()
    }

    fn expand(pos: &[u64], ranges: &[MoveRange]) -> Vec<u64> {
        let mut out = Vec::new();
        for r in ranges {
            for s in r.to_start..=r.to_end {
                if !pos.contains(&s) {
                    out.push(s);
                }
            }
        }
        out
    }

    fn check_ranges(pos: &[u64], ranges: &[MoveRange]) {
        let Some(&top) = pos.last() else {
            assert!(ranges.is_empty());
            return;
        };
        for (i, r) in ranges.iter().enumerate() {
            assert_eq!(r.from, top);
            assert!(
                r.to_start <= r.to_end && r.to_end < top,
                "{pos:?} {ranges:?}"
            );
            assert!(
                !pos.contains(&r.to_start) && !pos.contains(&r.to_end),
                "{pos:?} {ranges:?}"
            );
            if i > 0 {
                // disjoint, ascending, and maximal: an empty square separates them
                let (x, y) = (ranges[i - 1].to_end, r.to_start);
                assert!(
                    x < y && (x + 1..y).any(|s| !pos.contains(&s)),
                    "{pos:?} {ranges:?}"
                );
            }
        }
    }

    /// Every position on squares < n: value, misère value, outcomes and all winning moves.
    fn exhaustive(n: u32) -> usize {
        let (g, gm) = brute(n);
        let mut checked = 0;
        for mask in 0..(1usize << n) {
            let a = squares_of(mask);
            let pos = Position::new(&a).unwrap();
            // fresh evaluator: exercises the full path, not a shared memo
            assert_eq!(
                value(&pos, Budget::DEFAULT),
                Some(g[mask] as u64),
                "value {a:?}"
            );
            assert_eq!(
                misere_value(&pos, Budget::DEFAULT),
                Some(gm[mask] as u64),
                "misère {a:?}"
            );
            for (play, table) in [(Play::Normal, &g), (Play::Misere, &gm)] {
                let expect = if table[mask] == 0 {
                    Outcome::P
                } else {
                    Outcome::N
                };
                assert_eq!(outcome(&pos, play), expect, "{play:?} outcome {a:?}");
                let mut want = Vec::new();
                if let Some(&top) = a.last() {
                    for e in 0..top {
                        if !a.contains(&e) {
                            let f = (mask & !(1 << top)) | (1 << e);
                            if table[f] == 0 {
                                want.push(e);
                            }
                        }
                    }
                }
                let got = winning_moves(&pos, play);
                check_ranges(&a, &got);
                assert_eq!(expand(&a, &got), want, "{play:?} moves {a:?} {got:?}");
            }
            checked += 1;
        }
        checked
    }

    #[test]
    fn exhaustive_squares_below_16() {
        assert_eq!(exhaustive(16), 1 << 16);
    }

    /// Release-only: all 262144 positions on squares < 18 (as in the notes).
    #[cfg(not(debug_assertions))]
    #[test]
    fn exhaustive_squares_below_18() {
        assert_eq!(exhaustive(18), 1 << 18);
    }

    /// A shared evaluator gives the same answers as fresh ones (memo reuse is sound).
    #[test]
    fn shared_evaluator_matches_brute_force_below_16() {
        let (g, _) = brute(16);
        let mut ev = Evaluator::new(Budget::DEFAULT);
        for (mask, &want) in g.iter().enumerate() {
            let a = squares_of(mask);
            assert_eq!(ev.value(&a), Ok(want as u64), "{a:?}");
        }
    }

    #[test]
    fn vectors_max_welter() {
        let v = vectors();
        let mw = &v["max_welter"];
        let vals = mw["values"].as_array().unwrap();
        assert!(!vals.is_empty());
        for case in vals {
            let pos = Position::new(&u64s(&case["position"])).unwrap();
            assert_eq!(
                value(&pos, Budget::DEFAULT),
                case["value"].as_u64(),
                "{case}"
            );
        }
        // Legal moves of (2,5,6,8,10): the top coin goes to 0, 1, 3, 4, 7, 9.
        let mut n = 0;
        for case in mw["moves"].as_array().unwrap() {
            if case["game"] != "max_welter" {
                continue;
            }
            let a = u64s(&case["position"]);
            let top = *a.last().unwrap();
            let legal: Vec<u64> = (0..top).filter(|e| !a.contains(e)).collect();
            assert_eq!(legal, u64s(&case["to_squares_of_top_coin"]));
            n += 1;
        }
        assert_eq!(n, 1);
        let sample = v["derived"]["max_welter_bruteforce_sample"]
            .as_array()
            .unwrap();
        assert_eq!(sample.len(), 150);
        for case in sample {
            let pos = Position::new(&u64s(&case["position"])).unwrap();
            assert_eq!(
                value(&pos, Budget::DEFAULT),
                case["value"].as_u64(),
                "{case}"
            );
            assert_eq!(
                misere_value(&pos, Budget::DEFAULT),
                case["misere_value"].as_u64(),
                "{case}"
            );
        }
        let table = v["derived"]["max_welter_2coin_table"]["rows"]
            .as_array()
            .unwrap();
        for (a, row) in table.iter().enumerate() {
            for (b, cell) in row.as_array().unwrap().iter().enumerate() {
                if let Some(want) = cell.as_u64() {
                    let pos = Position::new(&[a as u64, b as u64]).unwrap();
                    assert_eq!(value(&pos, Budget::DEFAULT), Some(want), "({a},{b})");
                }
            }
        }
    }

    #[test]
    fn wrong_theorem_4_counterexample_is_computed_exactly() {
        let v = |a: &[u64]| value(&Position::new(a).unwrap(), Budget::DEFAULT);
        assert_eq!(v(&[3, 4, 6, 8]), Some(3));
        assert_eq!(v(&[0, 1, 3, 4, 6, 8]), Some(2));
        assert_eq!(v(&[10, 17, 19]), Some(3));
        assert_eq!(v(&[11, 12, 15]), Some(3));
    }

    #[test]
    fn validation() {
        assert_eq!(
            Position::new(&[3, 1, 3]),
            Err(MaxWelterError::DuplicateSquare(3))
        );
        assert_eq!(Position::new(&[9, 2, 5]).unwrap().squares(), &[2, 5, 9]);
        let big: Vec<u64> = (0..=MAX_COINS as u64).collect();
        assert!(matches!(
            Position::new(&big),
            Err(MaxWelterError::TooManyCoins { .. })
        ));
    }

    #[test]
    fn empty_and_single_coin() {
        let e = Position::new(&[]).unwrap();
        assert_eq!(value(&e, Budget::DEFAULT), Some(0));
        assert_eq!(misere_value(&e, Budget::DEFAULT), Some(1));
        assert_eq!(outcome(&e, Play::Normal), Outcome::P);
        assert_eq!(outcome(&e, Play::Misere), Outcome::N);
        assert!(winning_moves(&e, Play::Misere).is_empty());
        let one = |x| Position::new(&[x]).unwrap();
        assert_eq!(outcome(&one(0), Play::Misere), Outcome::N);
        assert_eq!(outcome(&one(1), Play::Misere), Outcome::P);
        assert_eq!(outcome(&one(u64::MAX), Play::Misere), Outcome::N);
        assert_eq!(value(&one(u64::MAX), Budget::DEFAULT), Some(u64::MAX));
        assert_eq!(
            winning_moves(&one(u64::MAX), Play::Misere),
            vec![MoveRange {
                from: u64::MAX,
                to_start: 1,
                to_end: 1
            }]
        );
        assert_eq!(
            winning_moves(&one(7), Play::Normal),
            vec![MoveRange {
                from: 7,
                to_start: 0,
                to_end: 0
            }]
        );
        assert!(winning_moves(&one(0), Play::Normal).is_empty());
        assert!(winning_moves(&one(1), Play::Misere).is_empty());
    }

    /// Huge squares: outcome and moves are O(k); values are exact when the S-sets are small and
    /// refused (None) quickly when they are not.
    #[test]
    fn huge_positions() {
        let t = 1_000_000_000_000u64;
        let pos = Position::new(&[5, 6, t]).unwrap();
        assert_eq!(value(&pos, Budget::DEFAULT), Some(t - 6)); // Corollary 1
                                                               // (t, t+1, top): t + 1 + 3 is even (t even), so only t + 2 wins.
        let pos = Position::new(&[t, t + 1, u64::MAX]).unwrap();
        assert_eq!(outcome(&pos, Play::Normal), Outcome::N);
        assert_eq!(
            winning_moves(&pos, Play::Normal),
            vec![MoveRange {
                from: u64::MAX,
                to_start: t + 2,
                to_end: t + 2
            }]
        );
        // a_{k−2} = t − 1 and t − 1 + k even: every empty square below t wins — one range.
        let pos = Position::new(&[2, 3, t - 1, t, u64::MAX]).unwrap();
        assert_eq!(
            winning_moves(&pos, Play::Normal),
            vec![MoveRange {
                from: u64::MAX,
                to_start: 0,
                to_end: t - 2
            }]
        );
        assert_eq!(
            winning_moves(&pos, Play::Misere),
            vec![MoveRange {
                from: u64::MAX,
                to_start: t + 1,
                to_end: t + 1
            }]
        );
        assert_eq!(
            value(&Position::new(&[t, t + 3]).unwrap(), Budget::DEFAULT),
            None
        );
        assert_eq!(
            value(
                &Position::new(&[u64::MAX - 1, u64::MAX]).unwrap(),
                Budget::DEFAULT
            ),
            Some(0)
        );
        // Many coins: terminal-like prefix is normalised away in O(k).
        let mut a: Vec<u64> = (0..MAX_COINS as u64 - 2).collect();
        a.push(MAX_COINS as u64 + 5);
        a.push(u64::MAX);
        let pos = Position::new(&a).unwrap();
        let v = value(&pos, Budget::DEFAULT);
        assert!(v.is_some());
        assert_eq!(outcome(&pos, Play::Normal), Outcome::N);
    }

    /// Theorem 5 consequence of the identity: G(L ∪ {y}) = y − t − 1 + |S(L)| for large y.
    #[test]
    fn large_top_is_linear() {
        let mut ev = Evaluator::new(Budget::DEFAULT);
        let base = ev.value(&[4, 9, 40]).unwrap();
        let far = ev.value(&[4, 9, 1_000_000_000]).unwrap();
        assert_eq!(far - base, 1_000_000_000 - 40);
    }

    #[test]
    fn budget_is_respected() {
        let pos = Position::new(&[7, 30, 61]).unwrap();
        assert!(value(&pos, Budget::DEFAULT).is_some());
        assert_eq!(value(&pos, Budget::new(10, 1_000)), None);
    }
}
