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
    FinitePartTooLarge { from: Ordinal, omega_part: Ordinal, finite: u128 },
    /// An ordinal operation overflowed (not reachable from squares whose finite exponents are
    /// below 2^64-1; kept so that nothing is ever wrapped).
    #[error(transparent)]
    Arithmetic(#[from] ArithError),
}

/// Grundy value of a transfinite Nim position: the nim-sum of the heaps (Abuku, Thm 2.6).
pub fn nim_value(heaps: &[Ordinal]) -> Ordinal {
    heaps.iter().fold(Ordinal::zero(), |acc, h| acc.nim_sum(h))
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
        .filter_map(|h| {
            let to = h.nim_sum(&total);
            (to < *h).then(|| Move { from: h.clone(), to })
        })
        .collect();
    moves.sort();
    moves.dedup();
    moves
}

/// A Welter position split by `α = ω·λ + m`: the groups `S_λ` and the totals Λ and F.
struct Split {
    /// `(λ_i, m_i)` per coin, coins in ascending order.
    coins: Vec<(Ordinal, u64)>,
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
        let coins: Vec<(Ordinal, u64)> = sorted.into_iter().map(Ordinal::div_omega).collect();
        let mut groups: BTreeMap<Ordinal, Vec<u64>> = BTreeMap::new();
        let mut lambda = Ordinal::zero();
        for (l, m) in &coins {
            groups.entry(l.clone()).or_default().push(*m);
            lambda = lambda.nim_sum(l);
        }
        let group_values: BTreeMap<Ordinal, u64> =
            groups.iter().map(|(l, s)| (l.clone(), welter::value(s))).collect();
        let finite = group_values.values().fold(0, |acc, v| acc ^ v);
        Ok(Split { coins, groups, group_values, lambda, finite })
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
///   By the Unique Prime Lemma exactly one `m'` gives `[S_{λ'} ∪ {m'}] = T`
///   (`welter::complete`), and it is not in `S_{λ'}`, so the square is free. Exactly one
///   winning move per coin with `λ_i ⊕ Λ < λ_i`, none for the other coins.
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
        for (l, m) in &split.coins {
            let target_group = l.nim_sum(&split.lambda);
            if target_group >= *l {
                continue;
            }
            let from = Ordinal::omega_mul_add(l, *m)?;
            let rest: Vec<u64> = split.groups[l].iter().copied().filter(|x| x != m).collect();
            let joined: &[u64] = split.groups.get(&target_group).map_or(&[], Vec::as_slice);
            let target = split.finite
                ^ split.group_values[l]
                ^ welter::value(&rest)
                ^ split.group_values.get(&target_group).copied().unwrap_or(0);
            let finite = welter::complete(joined, target);
            let Ok(m_new) = u64::try_from(finite) else {
                return Err(TransfiniteError::FinitePartTooLarge { from, omega_part: target_group, finite });
            };
            let to = Ordinal::omega_mul_add(&target_group, m_new)?;
            moves.push(Move { from, to });
        }
    } else if split.finite != 0 {
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
