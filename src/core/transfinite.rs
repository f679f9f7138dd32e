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
mod tests {
    use super::*;
    use crate::core::ordinal::tests::random_ordinal;
    use crate::core::test_support::{nim_followers, welter_followers, Brute, Rng};
    use std::collections::{BTreeSet, HashSet};

    fn o(s: &str) -> Ordinal {
        Ordinal::parse(s).unwrap()
    }
    fn os(v: &[&str]) -> Vec<Ordinal> {
        v.iter().map(|s| o(s)).collect()
    }
    fn mv(from: &str, to: &str) -> Move {
        Move {
            from: o(from),
            to: o(to),
        }
    }

    #[test]
    fn abuku_example_2_7_nim() {
        let heaps = os(&["1", "w*2+4", "w^2*3+9", "w^2*2+w*4+16", "w^2+w*5+25"]);
        assert_eq!(nim_value(&heaps), o("w*3+5"));
        assert_eq!(nim_winning_moves(&heaps), vec![mv("w*2+4", "w+1")]);
    }

    #[test]
    fn abuku_example_2_11_welter() {
        let coins = os(&["1", "w*2+4", "w*2+9", "w^2+w*4+16", "w^2+w*5+25"]);
        assert_eq!(welter_value(&coins).unwrap(), o("w+4"));
        // [16|30] = (16⊕30)−1 = 13 and 1 ⊕ [4|9] ⊕ 13 = 1 ⊕ 12 ⊕ 13 = 0.
        assert_eq!(
            welter_winning_moves(&coins).unwrap(),
            vec![mv("w^2+w*5+25", "w^2+w*4+30")]
        );
        let after = os(&["1", "w*2+4", "w*2+9", "w^2+w*4+16", "w^2+w*4+30"]);
        assert!(welter_value(&after).unwrap().is_zero());
        // The paper's printed target does not reach 0: [6|16] = 21, total 1 ⊕ 12 ⊕ 21 = 24.
        let printed = os(&["1", "w*2+4", "w*2+9", "w^2+w*4+16", "w^2+w*4+6"]);
        assert_eq!(welter_value(&printed).unwrap(), o("24"));
    }

    #[test]
    fn errors() {
        let dup = welter_value(&os(&["w+1", "3", "1+w+1"])).unwrap_err();
        assert_eq!(dup, TransfiniteError::DuplicateSquare(o("w+1")));
        assert_eq!(
            dup.to_string(),
            "squares must be distinct, but w+1 occurs more than once"
        );
        // λ's 1, 2, 0 give Λ = 3; the coin on ω·2+5 must move to group 1 = {0} with target
        // [S_0] = 2^64−1, and [0|x] = x−1 needs x = 2^64.
        let coins = os(&["w", "w*2+5", "18446744073709551615"]);
        assert_eq!(
            welter_value(&coins).unwrap(),
            o("w*3+18446744073709551615").nim_sum(&o("5"))
        );
        let err = welter_winning_moves(&coins).unwrap_err();
        assert_eq!(
            err,
            TransfiniteError::FinitePartTooLarge {
                from: o("w*2+5"),
                omega_part: o("1"),
                finite: 1u128 << 64
            }
        );
        assert_eq!(
            err.to_string(),
            "the winning move from w*2+5 goes to w*(1) + 18446744073709551616, whose finite part exceeds 2^64-1"
        );
        // Empty positions.
        assert!(nim_value(&[]).is_zero() && nim_winning_moves(&[]).is_empty());
        assert!(
            welter_value(&[]).unwrap().is_zero() && welter_winning_moves(&[]).unwrap().is_empty()
        );
    }

    #[test]
    fn finite_positions_match_brute_force() {
        let mut rng = Rng(11);
        let mut brute = Brute::new(welter_followers);
        for _ in 0..1500 {
            let n = rng.below(5) as usize;
            let mut set = BTreeSet::new();
            while set.len() < n {
                set.insert(rng.below(12));
            }
            let coins: Vec<u64> = set.into_iter().collect();
            let ords: Vec<Ordinal> = coins.iter().map(|&c| Ordinal::from(c)).collect();
            let v = brute.value(&coins);
            assert_eq!(welter_value(&ords).unwrap(), Ordinal::from(v), "{coins:?}");
            let want: Vec<Move> = brute
                .winning_moves(&coins, false)
                .into_iter()
                .map(|(from, to)| Move {
                    from: Ordinal::from(from),
                    to: Ordinal::from(to),
                })
                .collect();
            assert_eq!(welter_winning_moves(&ords).unwrap(), want, "{coins:?}");
        }
    }

    #[test]
    fn finite_nim_matches_brute_force() {
        // Nim on heaps < 8, up to 3 heaps, by mex over followers.
        let mut brute = Brute::new(nim_followers);
        for a in 0..8u64 {
            for b in 0..8u64 {
                for c in 0..8u64 {
                    let heaps = vec![a, b, c];
                    let ords: Vec<Ordinal> = heaps.iter().map(|&h| Ordinal::from(h)).collect();
                    let mut sorted = heaps.clone();
                    sorted.sort_unstable();
                    assert_eq!(nim_value(&ords), Ordinal::from(brute.value(&sorted)));
                    let want: BTreeSet<Move> = brute
                        .winning_moves(&sorted, false)
                        .into_iter()
                        .map(|(from, to)| Move {
                            from: Ordinal::from(from),
                            to: Ordinal::from(to),
                        })
                        .collect();
                    assert_eq!(
                        nim_winning_moves(&ords),
                        want.into_iter().collect::<Vec<_>>(),
                        "{heaps:?}"
                    );
                }
            }
        }
    }

    /// The λ's used by the windowed tests: `ω^ω·a + ω·b + c`, a, b, c < 2 — closed under ⊕,
    /// so every λ' a winning move or a value can need is in the window.
    fn lambda_pool() -> Vec<Ordinal> {
        let mut pool = Vec::new();
        for a in 0..2 {
            for b in 0..2 {
                for c in 0..2 {
                    pool.push(o(&format!("w^w*{a}+w*{b}+{c}")));
                }
            }
        }
        pool.sort();
        pool
    }

    /// Random transfinite Welter position: up to 5 coins `ω·λ + m`, λ from the pool, m < 16.
    fn random_position(rng: &mut Rng, pool: &[Ordinal]) -> Vec<Ordinal> {
        let n = 1 + rng.below(5) as usize;
        let mut set = BTreeSet::new();
        while set.len() < n {
            let l = &pool[rng.below(pool.len() as u64) as usize];
            set.insert(Ordinal::omega_mul_add(l, rng.below(16)).unwrap());
        }
        set.into_iter().collect()
    }

    /// All followers whose moved coin lands on `ω·λ' + m'` with λ' in the pool, m' < 64.
    /// Every follower outside this window has a value outside the window of values checked
    /// below, or (for value 0) cannot exist, by the bounds in the test docs.
    fn window_followers(pos: &[Ordinal], pool: &[Ordinal]) -> Vec<(Move, Vec<Ordinal>)> {
        let mut out = Vec::new();
        for (i, from) in pos.iter().enumerate() {
            for l in pool {
                for m in 0..64 {
                    let to = Ordinal::omega_mul_add(l, m).unwrap();
                    if to < *from && !pos.contains(&to) {
                        let mut next = pos.to_vec();
                        next[i] = to.clone();
                        out.push((
                            Move {
                                from: from.clone(),
                                to,
                            },
                            next,
                        ));
                    }
                }
            }
        }
        out
    }

    /// Soundness and completeness of the winning moves, and the mex property of the value,
    /// checked by enumeration inside a window.
    ///
    /// * Every returned move is legal (lower, free square) and reaches value 0.
    /// * Completeness: any move to value 0 has `λ' = λ_i ⊕ Λ` (in the pool) and a finite part
    ///   solving a 4-bit Welter equation, hence below 64 (a prime is `< 2^(L+1)`, `L ≤ 5`), so
    ///   it lies in the window; the window's value-0 followers must equal the returned moves.
    /// * Mex: no follower in the window has the position's value, and every smaller value
    ///   `ω·λ + b` with λ in the pool and b < 16 is the value of some follower in the window
    ///   (Abuku's proof of Thm 2.9 builds that follower; its finite part is again < 64).
    #[test]
    fn windowed_moves_and_mex() {
        let pool = lambda_pool();
        let mut rng = Rng(12);
        let (mut winning_positions, mut losing_positions, mut in_group) = (0, 0, 0);
        for _ in 0..100 {
            let pos = random_position(&mut rng, &pool);
            let value = welter_value(&pos).unwrap();
            let moves = welter_winning_moves(&pos).unwrap();
            for m in &moves {
                assert!(m.to < m.from && !pos.contains(&m.to), "{m:?}");
                let next: Vec<Ordinal> = pos
                    .iter()
                    .map(|c| {
                        if *c == m.from {
                            m.to.clone()
                        } else {
                            c.clone()
                        }
                    })
                    .collect();
                assert!(welter_value(&next).unwrap().is_zero(), "{pos:?} {m:?}");
            }
            let followers = window_followers(&pos, &pool);
            let mut values = HashSet::new();
            let mut zero_moves = Vec::new();
            for (m, next) in &followers {
                let v = welter_value(next).unwrap();
                if v.is_zero() {
                    zero_moves.push(m.clone());
                }
                values.insert(v);
            }
            zero_moves.sort();
            assert_eq!(moves, zero_moves, "{pos:?}");
            assert!(!values.contains(&value), "{pos:?}");
            for l in &pool {
                for b in 0..16 {
                    let beta = Ordinal::omega_mul_add(l, b).unwrap();
                    if beta < value {
                        assert!(
                            values.contains(&beta),
                            "{pos:?} has no follower of value {beta}"
                        );
                    }
                }
            }
            if value.is_finite() && !value.is_zero() {
                in_group += 1; // Λ = 0, F ≠ 0: case (b)
            }
            if value.is_zero() {
                losing_positions += 1;
                assert!(moves.is_empty());
            } else {
                winning_positions += 1;
                assert!(!moves.is_empty());
            }
        }
        assert!(
            winning_positions > 40 && in_group > 8,
            "{winning_positions} {in_group}"
        );
        // Value-0 positions are rare at random; build some by playing a winning move.
        let mut built = 0;
        for _ in 0..150 {
            let pos = random_position(&mut rng, &pool);
            let moves = welter_winning_moves(&pos).unwrap();
            let Some(m) = moves.first() else { continue };
            let next: Vec<Ordinal> = pos
                .iter()
                .map(|c| {
                    if *c == m.from {
                        m.to.clone()
                    } else {
                        c.clone()
                    }
                })
                .collect();
            if next.iter().any(|c| c.div_omega().1 >= 64) {
                continue;
            }
            assert!(welter_winning_moves(&next).unwrap().is_empty());
            for (mv, after) in window_followers(&next, &pool) {
                assert!(!welter_value(&after).unwrap().is_zero(), "{next:?} {mv:?}");
            }
            built += 1;
        }
        assert!(built + losing_positions > 40, "{built} {losing_positions}");
    }

    /// The per-coin fast path of case (a) agrees with the finite Welter core.
    #[test]
    fn residues_match_welter_core() {
        let mut rng = Rng(14);
        for round in 0..3000 {
            let n = rng.below(9) as usize;
            let mut set = BTreeSet::new();
            while set.len() < n {
                let x = match round % 3 {
                    0 => rng.below(32),
                    1 => u64::MAX - rng.below(8),
                    _ => rng.next() >> rng.below(64),
                };
                set.insert(x);
            }
            let set: Vec<u64> = set.into_iter().collect();
            let r = Residues::new(&set);
            for &x in &set {
                let rest: Vec<u64> = set.iter().copied().filter(|&c| c != x).collect();
                assert_eq!(
                    r.value_without(x),
                    welter::value(&rest),
                    "{set:?} without {x}"
                );
            }
            for target in [0, 1, rng.below(64), rng.next(), u64::MAX, u64::MAX - 1] {
                assert_eq!(
                    r.complete(target),
                    welter::complete(&set, target),
                    "{set:?} to {target}"
                );
            }
        }
    }

    /// Many heaps / groups with distinct exponents but few winning moves stay fast: neither the
    /// value nor the eligibility test is quadratic.
    #[test]
    fn many_distinct_exponents_are_fast() {
        let started = std::time::Instant::now();
        let heaps: Vec<Ordinal> = (1..=20_000u64).map(|k| o(&format!("w^{k}"))).collect();
        let moves = nim_winning_moves(&heaps);
        assert_eq!(moves.len(), 1);
        assert_eq!(moves[0].from, o("w^20000"));
        let coins: Vec<Ordinal> = heaps
            .iter()
            .map(|h| h.checked_add(&o("w")).unwrap())
            .collect();
        assert_eq!(welter_winning_moves(&coins).unwrap().len(), 1);
        assert!(started.elapsed() < std::time::Duration::from_secs(20));
    }

    /// Many coins in one eligible group stay fast (case (a) is near-linear).
    #[test]
    fn big_group_is_fast() {
        let started = std::time::Instant::now();
        let mut coins: Vec<Ordinal> = (0..20_000u64)
            .map(|m| o(&format!("w*2+{}", m * 3)))
            .collect();
        coins.push(o("w*3"));
        let moves = welter_winning_moves(&coins).unwrap();
        assert_eq!(moves.len(), 20_001);
        for m in moves.iter().step_by(997) {
            let next: Vec<Ordinal> = coins
                .iter()
                .map(|c| {
                    if *c == m.from {
                        m.to.clone()
                    } else {
                        c.clone()
                    }
                })
                .collect();
            assert!(welter_value(&next).unwrap().is_zero());
        }
        assert!(started.elapsed() < std::time::Duration::from_secs(20));
    }

    /// Larger random positions with nested exponents and big finite parts: every returned move
    /// is legal and reaches 0, each coin moves at most once, the moves are sorted, and a
    /// position has a move iff its value is non-zero (when no FinitePartTooLarge occurs).
    #[test]
    fn random_large_positions() {
        let mut rng = Rng(13);
        let (mut checked, mut in_group) = (0, 0);
        for round in 0..400 {
            let n = 1 + rng.below(12) as usize;
            let mut set = BTreeSet::new();
            while set.len() < n {
                let depth = rng.below(3) as u32;
                let l = random_ordinal(&mut Rng(rng.next()), depth, 3, false);
                let m = if round % 2 == 0 {
                    rng.below(40)
                } else {
                    rng.next() >> rng.below(64)
                };
                set.insert(Ordinal::omega_mul_add(&l, m).unwrap());
            }
            // Half the time, force Λ = 0 by pairing λ's, to exercise the in-group case.
            let mut pos: Vec<Ordinal> = set.into_iter().collect();
            if round % 4 == 1 {
                let extra: Vec<Ordinal> = pos
                    .iter()
                    .map(|a| Ordinal::omega_mul_add(&a.div_omega().0, rng.next() >> 8).unwrap())
                    .filter(|a| !pos.contains(a))
                    .collect();
                pos.extend(extra);
                pos.sort();
                pos.dedup();
            }
            let value = welter_value(&pos).unwrap();
            let moves = match welter_winning_moves(&pos) {
                Ok(m) => m,
                Err(TransfiniteError::FinitePartTooLarge { .. }) => continue,
                Err(e) => panic!("{e}"),
            };
            assert_eq!(moves.is_empty(), value.is_zero(), "{pos:?}");
            if value.is_finite() && !value.is_zero() {
                in_group += 1;
            }
            assert!(moves.windows(2).all(|w| w[0].from < w[1].from));
            for m in &moves {
                assert!(m.to < m.from && !pos.contains(&m.to) && pos.contains(&m.from));
                let next: Vec<Ordinal> = pos
                    .iter()
                    .map(|c| {
                        if *c == m.from {
                            m.to.clone()
                        } else {
                            c.clone()
                        }
                    })
                    .collect();
                assert!(welter_value(&next).unwrap().is_zero(), "{pos:?} {m:?}");
            }
            // Nim on the same ordinals: the moves reach nim-value 0.
            let nim_moves = nim_winning_moves(&pos);
            assert_eq!(nim_moves.is_empty(), nim_value(&pos).is_zero());
            for m in &nim_moves {
                let next: Vec<Ordinal> = pos
                    .iter()
                    .map(|c| {
                        if *c == m.from {
                            m.to.clone()
                        } else {
                            c.clone()
                        }
                    })
                    .collect();
                assert!(m.to < m.from && nim_value(&next).is_zero());
            }
            checked += 1;
        }
        assert!(checked > 300 && in_group > 50, "{checked} {in_group}");
    }
}
