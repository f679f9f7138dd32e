//! Transfinite Nim and transfinite Welter's game (T. Abuku, *Transfinite version of Welter's
//! game*, 2019), on ordinals below ε0.
//!
//! * **Nim** (Thm 2.6): heaps are ordinals, a move lowers one heap to any smaller ordinal; the
//!   Grundy value is the ordinal nim-sum ([`Ordinal::nim_sum`]).
//! * **Welter** (Def 2.8, Thm 2.9): coins on distinct ordinal squares, a move slides one coin to
//!   any smaller free square. Writing each square `α_i = ω·λ_i + m_i` (m_i finite), the value is
//!   `ω·(λ_1 ⊕ … ⊕ λ_n) + ⊕_λ [S_λ]` where `S_λ = {m_i : λ_i = λ}` and `[S]` is the finite
//!   Welter function. So a position is a P-position iff `Λ := ⊕λ_i = 0` and
//!   `F := ⊕_λ [S_λ] = 0` (Cor 2.10).
//!
//! Winning moves are returned complete (every move to a value-0 position, with the proofs in
//! the function docs), de-duplicated and sorted by `from`, then `to`.
//!
//! Note on Abuku's Example 2.11: for `(1, ω·2+4, ω·2+9, ω^2+ω·4+16, ω^2+ω·5+25)` (value `ω+4`)
//! the paper prints the winning move's target as `ω^2+ω·4+6`, but `[6|16] = 21`, so that
//! position has value 21 ≠ 0. The only winning move is `ω^2+ω·5+25 → ω^2+ω·4+30`:
//! `[1] ⊕ [4|9] ⊕ [16|30] = 1 ⊕ 12 ⊕ 13 = 0`.

use std::collections::BTreeMap;

use super::ordinal::{ArithError, Ordinal};
use super::welter;

/// One move: the heap or coin on `from` goes to `to` (`to < from`).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Move {
    pub from: Ordinal,
    pub to: Ordinal,
}

/// Why a transfinite question has no answer.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TransfiniteError {
    /// Welter squares must be distinct.
    #[error("squares must be distinct, but {0} occurs more than once")]
    DuplicateSquare(Ordinal),
    /// A winning move exists but its target `ω·omega_part + finite` has a finite part that a
    /// `u64` coefficient cannot hold. Only possible when finite parts are near 2^64.
    #[error("the winning move from {from} goes to w*({omega_part}) + {finite}, whose finite part exceeds 2^64-1")]
    FinitePartTooLarge {
        from: Ordinal,
        omega_part: Ordinal,
        finite: u128,
    },
    /// An ordinal operation overflowed. Unreachable in practice: every λ here comes from
    /// `div_omega` or nim-sums of such, so its finite exponents are below 2^64-1 and `ω·λ`
    /// fits; kept so that nothing can panic or wrap.
    #[error(transparent)]
    Arithmetic(#[from] ArithError),
}

/// Grundy value of a transfinite Nim position: the nim-sum of the heaps (Abuku, Thm 2.6).
pub fn nim_value(heaps: &[Ordinal]) -> Ordinal {
    Ordinal::nim_sum_all(heaps)
}

/// Every winning move of transfinite Nim, sorted by `from` then `to`, equal heaps reported once.
///
/// Completeness: a move changes one heap `h` to some `h' < h` and leaves the value
/// `N ⊕ h ⊕ h'` (N = [`nim_value`]). Because ⊕ is a group operation with `x ⊕ x = 0`, this is 0
/// iff `h' = h ⊕ N`. So the winning moves are exactly `h → h ⊕ N` for the heaps with
/// `h ⊕ N < h`, one per heap, none when `N = 0`.
pub fn nim_winning_moves(heaps: &[Ordinal]) -> Vec<Move> {
    let total = nim_value(heaps);
    if total.is_zero() {
        return Vec::new();
    }
    let mut moves: Vec<Move> = heaps
        .iter()
        .filter(|h| h.nim_sum_is_smaller(&total))
        .map(|h| Move {
            from: h.clone(),
            to: h.nim_sum(&total),
        })
        .collect();
    moves.sort();
    moves.dedup();
    moves
}

/// A Welter position split by `α = ω·λ + m`: the groups `S_λ` and the totals Λ and F.
struct Split {
    /// `λ ↦ S_λ` (finite parts, distinct because the squares are).
    groups: BTreeMap<Ordinal, Vec<u64>>,
    /// `λ ↦ [S_λ]`.
    group_values: BTreeMap<Ordinal, u64>,
    /// `Λ = ⊕ λ_i`.
    lambda: Ordinal,
    /// `F = ⊕_λ [S_λ]`.
    finite: u64,
}

impl Split {
    fn new(squares: &[Ordinal]) -> Result<Split, TransfiniteError> {
        let mut sorted: Vec<&Ordinal> = squares.iter().collect();
        sorted.sort();
        if let Some(w) = sorted.windows(2).find(|w| w[0] == w[1]) {
            return Err(TransfiniteError::DuplicateSquare(w[0].clone()));
        }
        let mut groups: BTreeMap<Ordinal, Vec<u64>> = BTreeMap::new();
        let mut lambdas = Vec::with_capacity(sorted.len());
        for square in sorted {
            let (l, m) = square.div_omega();
            groups.entry(l.clone()).or_default().push(m);
            lambdas.push(l);
        }
        let lambda = Ordinal::nim_sum_all(&lambdas);
        let group_values: BTreeMap<Ordinal, u64> = groups
            .iter()
            .map(|(l, s)| (l.clone(), welter::value(s)))
            .collect();
        let finite = group_values.values().fold(0, |acc, v| acc ^ v);
        Ok(Split {
            groups,
            group_values,
            lambda,
            finite,
        })
    }
}

/// Residue classes of a set of distinct naturals modulo every `2^t`, for the two finite
/// Welter queries that case (a) of [`welter_winning_moves`] asks once per coin:
/// `[S ∖ {x}]` and the completion of `S` to a target. Each costs O(64·log n) here instead of
/// a fresh O(n log n) `welter::value` / `welter::complete`, so a big group stays near-linear.
///
/// Bit `t` of the mating function `(x|y)` is 1 iff `x ≡ y (mod 2^t)`; sorted by reversed
/// bits, each residue class modulo `2^t` is a contiguous run, found by two binary searches.
struct Residues {
    /// The set, each value bit-reversed, sorted.
    reversed: Vec<u64>,
    /// `[S]`.
    value: u64,
}

impl Residues {
    fn new(set: &[u64]) -> Residues {
        let mut reversed: Vec<u64> = set.iter().map(|x| x.reverse_bits()).collect();
        reversed.sort_unstable();
        Residues {
            reversed,
            value: welter::value(set),
        }
    }

    /// `#{c ∈ S : c ≡ y (mod 2^t)}`, 0 ≤ t ≤ 64.
    fn class_size(&self, y: u64, t: u32) -> usize {
        if t == 0 {
            return self.reversed.len();
        }
        let free = 64 - t; // low bits of the reversed value that are not constrained
        let lo = (y.reverse_bits() >> free) << free;
        let hi = lo | ((1u64 << free) - 1);
        self.reversed.partition_point(|&r| r <= hi) - self.reversed.partition_point(|&r| r < lo)
    }

    /// `[S ∖ {x}]` for `x ∈ S`: `[S] = [S ∖ {x}] ⊕ x ⊕ ⊕_{c ≠ x} (x|c)`, and bit `t` of the
    /// last term is the parity of the other coins congruent to `x` modulo `2^t`.
    fn value_without(&self, x: u64) -> u64 {
        let mut d = 0u64;
        for t in 0..64 {
            let others = self.class_size(x, t) - 1;
            if others == 0 {
                break;
            }
            d |= ((others & 1) as u64) << t;
        }
        self.value ^ x ^ d
    }

    /// The unique `x` with `[S ∪ {x}] = target` (same contract as `welter::complete`): solve
    /// `x ⊕ ⊕_c (x|c) = target ⊕ [S]` from the lowest bit up, as bit `t` of the left side is
    /// `x_t` xor the parity of the coins congruent to `x` modulo `2^t`.
    fn complete(&self, target: u64) -> u128 {
        let goal = target ^ self.value;
        let mut x = 0u64;
        for t in 0..64 {
            let count = self.class_size(x, t);
            if count == 0 {
                // No coin agrees with x below bit t: the remaining bits of x are the goal's.
                return u128::from(x | ((goal >> t) << t));
            }
            x |= (((goal >> t) & 1) ^ (count & 1) as u64) << t;
        }
        // All 64 bits fixed; if a coin still equals x, bit 64 must be set to separate them.
        u128::from(x) | (((self.class_size(x, 64) & 1) as u128) << 64)
    }
}

/// Grundy value of a transfinite Welter position (Abuku, Def 2.8 / Thm 2.9):
/// `ω·(λ_1 ⊕ … ⊕ λ_n) + ⊕_λ [S_λ]`. Errors on repeated squares.
pub fn welter_value(squares: &[Ordinal]) -> Result<Ordinal, TransfiniteError> {
    let split = Split::new(squares)?;
    Ok(Ordinal::omega_mul_add(&split.lambda, split.finite)?)
}

/// Every winning move of transfinite Welter, sorted by `from` (each coin has at most one).
///
/// **Completeness.** Take a move of the coin `α_i = ω·λ_i + m_i` to a free square
/// `β = ω·λ' + m' < α_i`. Then `λ' ≤ λ_i` (if `λ' > λ_i` then `λ' ≥ λ_i + 1` and
/// `β ≥ ω·λ_i + ω > α_i`). After the move `Λ' = Λ ⊕ λ_i ⊕ λ'`, and by Cor 2.10 the result is a
/// P-position iff `Λ' = 0`, i.e. `λ' = λ_i ⊕ Λ`, and the new finite total is 0.
///
/// * (a) `Λ ≠ 0`: then `λ' = λ_i ⊕ Λ ≠ λ_i`, so the move needs `λ_i ⊕ Λ < λ_i`, and then any
///   finite `m'` gives `β < α_i`. The coin leaves `S_{λ_i}` and joins `S_{λ'}`; the finite total
///   becomes `T ⊕ [S_{λ'} ∪ {m'}]` with `T = F ⊕ [S_{λ_i}] ⊕ [S_{λ_i} ∖ {m_i}] ⊕ [S_{λ'}]`.
///   By the Unique Prime Lemma exactly one `m'` gives `[S_{λ'} ∪ {m'}] = T` (what
///   `welter::complete` returns; computed here by `Residues`, which the tests check against
///   it), and it is not in `S_{λ'}`, so the square is free. Exactly one winning move per coin
///   with `λ_i ⊕ Λ < λ_i`, none for the other coins.
/// * (b) `Λ = 0`: then `λ' = λ_i`, and the move is a finite Welter move `m_i → m' < m_i`
///   inside `S_{λ_i}` that must bring `[S_{λ_i}]` to `s' = F ⊕ [S_{λ_i}]`. If `F = 0` there is
///   none (the position is P). Otherwise `s' ≠ [S_{λ_i}]` and by the Unique Prime Lemma the
///   only square giving `s'` is the coin's prime (`welter::primes`); the move exists iff the
///   prime is below `m_i`.
///
/// A target finite part above `u64::MAX` (possible only in case (a), with finite parts near
/// 2^64) cannot be written as an [`Ordinal`] coefficient: the whole call then returns
/// [`TransfiniteError::FinitePartTooLarge`] rather than an incomplete list.
pub fn welter_winning_moves(squares: &[Ordinal]) -> Result<Vec<Move>, TransfiniteError> {
    let split = Split::new(squares)?;
    let mut moves = Vec::new();
    if !split.lambda.is_zero() {
        // Case (a): λ' = λ ⊕ Λ depends only on the group, so the work is per group.
        for (l, group) in &split.groups {
            if !l.nim_sum_is_smaller(&split.lambda) {
                continue;
            }
            let target_group = l.nim_sum(&split.lambda);
            let source = Residues::new(group);
            let joined = Residues::new(split.groups.get(&target_group).map_or(&[], Vec::as_slice));
            let others = split.finite ^ source.value ^ joined.value;
            for &m in group {
                let finite = joined.complete(others ^ source.value_without(m));
                let from = Ordinal::omega_mul_add(l, m)?;
                let Ok(m_new) = u64::try_from(finite) else {
                    return Err(TransfiniteError::FinitePartTooLarge {
                        from,
                        omega_part: target_group,
                        finite,
                    });
                };
                let to = Ordinal::omega_mul_add(&target_group, m_new)?;
                moves.push(Move { from, to });
            }
        }
    } else if split.finite != 0 {
        // Case (b): finite Welter moves inside one group.
        for (l, group) in &split.groups {
            let target = split.finite ^ split.group_values[l];
            for (&m, &prime) in group.iter().zip(welter::primes(group, target).iter()) {
                if prime < u128::from(m) {
                    // prime < m ≤ u64::MAX, so the conversion is lossless.
                    let from = Ordinal::omega_mul_add(l, m)?;
                    let to = Ordinal::omega_mul_add(l, prime as u64)?;
                    moves.push(Move { from, to });
                }
            }
        }
    }
    moves.sort();
    Ok(moves)
}

#[cfg(test)]
mod tests;
