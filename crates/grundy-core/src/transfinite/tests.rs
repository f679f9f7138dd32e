//! Unit tests of `crates/grundy-core/src/transfinite.rs`.

use super::*;
use crate::ordinal::tests::random_ordinal;
use crate::test_support::{nim_followers, welter_followers, Brute, Rng};
use std::collections::{BTreeSet, HashSet};

fn o(s: &str) -> Ordinal {
    Ordinal::parse(s).unwrap()
}
fn os(v: &[&str]) -> Vec<Ordinal> {
    v.iter().map(|s| o(s)).collect()
}
/// The position after `m`: its coin (or heap) moved from `m.from` to `m.to`.
fn after(pos: &[Ordinal], m: &Move) -> Vec<Ordinal> {
    pos.iter()
        .map(|c| {
            if *c == m.from {
                m.to.clone()
            } else {
                c.clone()
            }
        })
        .collect()
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
    assert!(welter_value(&[]).unwrap().is_zero() && welter_winning_moves(&[]).unwrap().is_empty());
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
            let next = after(&pos, m);
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
        let next = after(&pos, m);
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
        let next = after(&coins, m);
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
            let next = after(&pos, m);
            assert!(welter_value(&next).unwrap().is_zero(), "{pos:?} {m:?}");
        }
        // Nim on the same ordinals: the moves reach nim-value 0.
        let nim_moves = nim_winning_moves(&pos);
        assert_eq!(nim_moves.is_empty(), nim_value(&pos).is_zero());
        for m in &nim_moves {
            let next = after(&pos, m);
            assert!(m.to < m.from && nim_value(&next).is_zero());
        }
        checked += 1;
    }
    assert!(checked > 300 && in_group > 50, "{checked} {in_group}");
}
