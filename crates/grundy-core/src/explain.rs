//! "Show your work" for Welter's game: the classical hand methods of van Splunder's thesis,
//! computed exactly so a page can render them and a student can check each step.
//!
//! * the **Mating method** (Def. 3.6): repeatedly mate the two coins congruent modulo the
//!   highest power of two; the value is the nim-sum of `a ⊕ b − 1` over the pairs and the
//!   spinster;
//! * the **Triangle method** (Def. 3.13, Ex. 3.15): row `r`, entry `j` is the value of the
//!   window of `r` consecutive coins starting at `j`, filled by the diamond rule
//!   `c = ((a ⊕ d) − 1) ⊕ b`;
//! * **Sprague's renumbering** for 5 coins on squares 0..15 (Thm. 6.28);
//! * the **Abacus** test and what it means for misère play (Ch. 8, corrected Theorem 8.5).
//!
//! These are O(n²) by nature (the triangle has n(n+1)/2 entries), so callers cap `n`.

use super::game::{Move, Outcome, Play};
use super::welter;

/// One step of the Mating method.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MatingStep {
    /// Coins `a < b`, congruent modulo `2^depth` but not `2^(depth+1)`; contributes `a ⊕ b − 1`.
    Pair {
        a: u64,
        b: u64,
        depth: u32,
        value: u64,
    },
    /// The coin left over when n is odd; contributes itself.
    Single { coin: u64 },
}

/// Sprague's method for 5 coins on squares 0..15.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sprague {
    /// `r(x) = (16 − x) mod 16` for each coin (sorted position order).
    pub renumbered: Vec<u64>,
    /// Nim-sum of the renumbered coins: the position is P iff it is 0.
    pub nim_sum: u64,
    /// Every winning move found by the renumbered Nim rule, as squares.
    pub moves: Vec<Move>,
}

/// The Abacus test of Chapter 8.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Abacus {
    pub is_abacus: bool,
    /// The misère outcome (corrected Theorem 8.5).
    pub misere_outcome: Outcome,
}

/// Everything `explain` returns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Explanation {
    pub position: Vec<u64>,
    pub value: u64,
    pub mating: Vec<MatingStep>,
    /// Row 0 (n+1 zeros) to row n (the value), as in Example 3.15.
    pub triangle: Vec<Vec<u64>>,
    pub sprague: Option<Sprague>,
    pub abacus: Abacus,
}

/// The Mating method on distinct coins. Sorting by reversed bits puts the most congruent pair
/// next to each other, so each step scans adjacent pairs only. Ties go to the smaller pair.
pub fn mating(coins: &[u64]) -> Vec<MatingStep> {
    let mut rest: Vec<u64> = coins.to_vec();
    rest.sort_unstable_by_key(|c| c.reverse_bits());
    let mut steps = Vec::with_capacity(coins.len() / 2 + 1);
    while rest.len() >= 2 {
        let mut best: Option<(u32, u64, u64, usize)> = None;
        for i in 0..rest.len() - 1 {
            let (x, y) = (rest[i].min(rest[i + 1]), rest[i].max(rest[i + 1]));
            let depth = (x ^ y).trailing_zeros();
            let better = match best {
                None => true,
                Some((d, a, b, _)) => depth > d || (depth == d && (x, y) < (a, b)),
            };
            if better {
                best = Some((depth, x, y, i));
            }
        }
        let (depth, a, b, i) = best.expect("at least two coins");
        rest.drain(i..i + 2);
        steps.push(MatingStep::Pair {
            a,
            b,
            depth,
            value: (a ^ b) - 1,
        });
    }
    if let Some(&coin) = rest.first() {
        steps.push(MatingStep::Single { coin });
    }
    steps
}

/// The Triangle method on the coins in the given order.
///
/// The diamond rule needs `a ≠ d` (two windows differing in one coin have different values by
/// the Unique Prime Lemma), so the subtraction never underflows on distinct coins.
pub fn triangle(coins: &[u64]) -> Vec<Vec<u64>> {
    let n = coins.len();
    let mut rows: Vec<Vec<u64>> = Vec::with_capacity(n + 1);
    rows.push(vec![0; n + 1]);
    if n == 0 {
        return rows;
    }
    rows.push(coins.to_vec());
    for r in 2..=n {
        let above = &rows[r - 2];
        let mid = &rows[r - 1];
        let row: Vec<u64> = (0..=n - r)
            .map(|j| {
                let (a, d, b) = (mid[j], mid[j + 1], above[j + 1]);
                ((a ^ d).wrapping_sub(1)) ^ b
            })
            .collect();
        rows.push(row);
    }
    rows
}

/// Sprague's renumbering, when the position is 5 coins on squares 0..15.
pub fn sprague(coins: &[u64]) -> Option<Sprague> {
    if coins.len() != 5 || coins.iter().any(|&c| c > 15) {
        return None;
    }
    let r = |x: u64| (16 - x) % 16;
    let renumbered: Vec<u64> = coins.iter().map(|&c| r(c)).collect();
    let nim_sum = renumbered.iter().fold(0, |a, &b| a ^ b);
    let mut moves = Vec::new();
    if nim_sum != 0 {
        for (&c, &rc) in coins.iter().zip(&renumbered) {
            let target = rc ^ nim_sum;
            // "Before" in the order 0, 15, 14, …, 1: 0 is first; otherwise larger is earlier.
            let earlier = target == 0 || (rc != 0 && target > rc);
            let square = (16 - target) % 16;
            if earlier && !coins.contains(&square) {
                moves.push(Move {
                    from: c,
                    to: square,
                });
            }
        }
        moves.sort_unstable();
    }
    Some(Sprague {
        renumbered,
        nim_sum,
        moves,
    })
}

/// The full explanation for a position (sorted ascending).
pub fn explain(coins: &[u64]) -> Explanation {
    let mut position = coins.to_vec();
    position.sort_unstable();
    let value = welter::value(&position);
    let check = welter::AbacusCheck::new(&position);
    Explanation {
        mating: mating(&position),
        triangle: triangle(&position),
        sprague: sprague(&position),
        abacus: Abacus {
            is_abacus: check.is_abacus(),
            misere_outcome: welter::outcome(value, check.is_abacus(), Play::Misere),
        },
        value,
        position,
    }
}

#[cfg(test)]
mod tests;
