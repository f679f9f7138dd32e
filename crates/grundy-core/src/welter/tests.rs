//! Unit tests of `crates/grundy-core/src/welter.rs`.

use super::*;
use crate::test_support::{welter_followers, Brute, Rng};

/// Independent brute force: mex over followers, memoised on the sorted position.
fn welter_brute() -> Brute<Vec<u64>, (u64, u64)> {
    Brute::new(welter_followers)
}

/// Every winning move of `pos` by brute force.
fn brute_moves(brute: &mut Brute<Vec<u64>, (u64, u64)>, pos: &[u64], play: Play) -> Vec<Move> {
    brute
        .winning_moves(&pos.to_vec(), play == Play::Misere)
        .into_iter()
        .map(|(from, to)| Move { from, to })
        .collect()
}

fn subsets_below(limit: u64, max_coins: usize) -> Vec<Vec<u64>> {
    let mut out = Vec::new();
    for mask in 0u32..(1 << limit) {
        if (mask.count_ones() as usize) <= max_coins {
            out.push((0..limit).filter(|&s| mask >> s & 1 == 1).collect());
        }
    }
    out
}

#[test]
fn all_positions_below_14_match_brute_force() {
    // 2^14 positions: value, outcome and every winning move in both plays, and the
    // primes for every target below 16.
    let mut brute = welter_brute();
    for pos in subsets_below(14, 14) {
        let g = brute.value(&pos);
        assert_eq!(value(&pos), g, "value of {pos:?}");
        for play in [Play::Normal, Play::Misere] {
            let a = analyse(&pos, play);
            let expect_n = match play {
                Play::Normal => g != 0,
                Play::Misere => brute.misere_wins(&pos),
            };
            assert_eq!(
                a.outcome == Outcome::N,
                expect_n,
                "{play:?} outcome of {pos:?}"
            );
            assert_eq!(
                a.moves,
                brute_moves(&mut brute, &pos, play),
                "{play:?} moves of {pos:?}"
            );
        }
        for target in 0..16u64 {
            for (i, p) in primes(&pos, target).into_iter().enumerate() {
                let mut q = pos.clone();
                q[i] = p as u64;
                assert!(!pos
                    .iter()
                    .enumerate()
                    .any(|(j, &c)| j != i && c as u128 == p));
                assert_eq!(
                    value_quadratic(&q),
                    target,
                    "prime of {pos:?} coin {i} target {target}"
                );
            }
        }
    }
}

#[test]
fn primes_small_positions_are_unique() {
    // Every position with squares < 9 and every target < 16: the prime gives the target
    // and no other free square below 40 does (the primes of such positions are < 32).
    for pos in subsets_below(9, 9) {
        for target in 0..16u64 {
            for (i, p) in primes(&pos, target).into_iter().enumerate() {
                assert!(p < 32);
                for other in 0..40u64 {
                    if pos.iter().enumerate().any(|(j, &c)| j != i && c == other) {
                        continue;
                    }
                    let mut r = pos.clone();
                    r[i] = other;
                    assert_eq!(
                        value_quadratic(&r) == target,
                        other as u128 == p,
                        "{pos:?} coin {i} target {target} square {other}"
                    );
                }
            }
        }
    }
}

#[test]
fn three_coins_below_40_match_brute_force() {
    let mut brute = welter_brute();
    for a in 0..40u64 {
        for b in a + 1..40 {
            for c in b + 1..40 {
                let pos = vec![a, b, c];
                let g = brute.value(&pos);
                assert_eq!(value(&pos), g);
                for play in [Play::Normal, Play::Misere] {
                    assert_eq!(
                        analyse(&pos, play).moves,
                        brute_moves(&mut brute, &pos, play),
                        "{play:?} {pos:?}"
                    );
                }
                for target in 0..16 {
                    for (i, p) in primes(&pos, target).into_iter().enumerate() {
                        let mut q = pos.clone();
                        q[i] = p as u64;
                        assert_eq!(value_quadratic(&q), target);
                    }
                }
            }
        }
    }
}

/// `n` distinct random coins of `bits` bits, in random order (so that request order is not
/// sorted).
fn random_coins(rng: &mut Rng, n: usize, bits: u32) -> Vec<u64> {
    let mut set = std::collections::BTreeSet::new();
    while set.len() < n {
        let v = if bits >= 64 {
            rng.next()
        } else {
            rng.next() & ((1u64 << bits) - 1)
        };
        set.insert(v);
    }
    let mut v: Vec<u64> = set.into_iter().collect();
    for i in (1..v.len()).rev() {
        let j = (rng.next() % (i as u64 + 1)) as usize;
        v.swap(i, j);
    }
    v
}

#[test]
fn fast_value_and_primes_match_quadratic_on_random_large_positions() {
    let mut rng = Rng(7);
    for round in 0..300 {
        let n = 1 + (rng.next() % 60) as usize;
        // Mix of narrow widths (many congruences) and full 64-bit coins.
        let bits = [4u32, 8, 16, 40, 64][round % 5].max(7);
        let coins = random_coins(&mut rng, n, bits);
        let k = value(&coins);
        assert_eq!(k, value_quadratic(&coins), "{coins:?}");
        let target = match round % 3 {
            0 => 0,
            1 => rng.next(),
            _ => u64::MAX - (rng.next() % 4),
        };
        for (i, p) in primes(&coins, target).into_iter().enumerate() {
            if p > u64::MAX as u128 {
                // Check the 65-bit prime with the formula directly.
                let mut acc: u128 = p;
                for (j, &c) in coins.iter().enumerate() {
                    if j != i {
                        acc ^= c as u128;
                    }
                }
                for (a, &x) in coins.iter().enumerate() {
                    if a == i {
                        continue;
                    }
                    for (b, &y) in coins.iter().enumerate().skip(a + 1) {
                        if b != i {
                            acc ^= mate(x, y);
                        }
                    }
                    let v = ((p ^ x as u128).trailing_zeros()).min(127);
                    acc ^= (1u128 << (v + 1)) - 1;
                }
                assert_eq!(acc, target as u128);
            } else {
                let mut q = coins.clone();
                q[i] = p as u64;
                assert_eq!(value_quadratic(&q), target, "{coins:?} coin {i}");
            }
        }
    }
}

#[test]
fn primes_can_exceed_u64() {
    // [x'|0] = (x'⊕0) − 1 = u64::MAX needs x' = 2^64.
    assert_eq!(primes(&[5, 0], u64::MAX)[0], 1u128 << 64);
    assert_eq!(complete(&[0], u64::MAX), 1u128 << 64);
    assert_eq!(complete(&[], 42), 42);
    assert_eq!(complete(&[3], 5), ((5u128 + 1) ^ 3));
}

#[test]
fn thesis_worked_examples() {
    // Ex 3.4 chain [1|5|6] = 5; mating examples; Ex 3.15; Ex 6.2; winning-move vectors.
    assert_eq!(value(&[1, 5, 6]), 5);
    assert_eq!(value(&[1, 3, 7, 8, 11, 19]), 12);
    assert_eq!(value(&[2, 5, 6, 8, 10]), 15);
    assert_eq!(value(&[0, 1, 2, 4]), 1);
    assert_eq!(primes(&[1, 5, 7], 0), vec![13, 9, 3]);
    assert_eq!(moves_to(&[1, 5, 7], 0), vec![Move { from: 7, to: 3 }]);
    assert_eq!(
        moves_to(&[0, 1, 3, 4, 8, 12, 16, 23], 0),
        vec![Move { from: 23, to: 2 }]
    );
    assert_eq!(
        moves_to(&[1, 3, 7, 8, 11, 19], 0),
        vec![Move { from: 8, to: 4 }]
    );
    assert_eq!(
        moves_to(&[2, 5, 6, 8, 10], 0),
        vec![
            Move { from: 2, to: 1 },
            Move { from: 8, to: 7 },
            Move { from: 10, to: 9 }
        ]
    );
}

#[test]
fn misere_corrections_of_theorem_8_5() {
    // Printed Theorem 8.5 is wrong on Abacus positions: [1] and [0,2] have value 1 but
    // are misère P; the terminal position is misère N with no moves.
    assert_eq!(evaluate(&[1], Play::Misere), (1, Outcome::P));
    assert_eq!(evaluate(&[0, 2], Play::Misere), (1, Outcome::P));
    assert_eq!(evaluate(&[0, 1, 2], Play::Misere), (0, Outcome::N));
    assert_eq!(analyse(&[0, 1, 2], Play::Misere).moves, vec![]);
    assert_eq!(evaluate(&[], Play::Misere), (0, Outcome::N));
    assert_eq!(evaluate(&[], Play::Normal), (0, Outcome::P));
}

#[test]
fn extreme_squares_do_not_overflow() {
    let top = [u64::MAX, u64::MAX - 1, u64::MAX - 2, 0, 1 << 63];
    assert_eq!(value(&top), value_quadratic(&top));
    for play in [Play::Normal, Play::Misere] {
        let a = analyse(&top, play);
        for m in &a.moves {
            assert!(m.to < m.from);
            let mut q: Vec<u64> = top
                .iter()
                .map(|&c| if c == m.from { m.to } else { c })
                .collect();
            q.sort_unstable();
            if play == Play::Normal {
                assert_eq!(value(&q), 0);
            }
        }
    }
    assert!(!AbacusCheck::new(&[u64::MAX]).is_abacus());
}
