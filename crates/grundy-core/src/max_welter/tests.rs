//! Unit tests of `crates/grundy-core/src/max_welter.rs`.

use super::*;
use crate::test_support::{u64s, vectors};

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
