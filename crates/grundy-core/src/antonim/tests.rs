//! Unit tests of `crates/grundy-core/src/antonim.rs`.

use super::*;
use crate::test_support::{u64s, vectors, Brute};

/// Independent brute force on the literal definition: coins as a sorted tuple (coins on 0
/// included), followers = one coin to a lower square that is empty or 0.
#[allow(clippy::ptr_arg)] // the position type of `Brute` is `Vec<u64>`
fn followers(p: &Vec<u64>) -> Vec<(Move, Vec<u64>)> {
    let mut out = Vec::new();
    for (i, &x) in p.iter().enumerate() {
        for y in 0..x {
            if y == 0 || !p.contains(&y) {
                let mut f = p.clone();
                f[i] = y;
                f.sort();
                out.push((Move { from: x, to: y }, f));
            }
        }
    }
    out
}

/// Every winning move by brute force.
fn brute_moves(b: &mut Brute<Vec<u64>, Move>, p: &[u64], play: Play) -> Vec<Move> {
    let mut m = b.winning_moves(&p.to_vec(), play == Play::Misere);
    m.dedup();
    m
}

fn subsets(max: u64, k: usize) -> Vec<Vec<u64>> {
    let mut out = vec![vec![]];
    for x in 1..max {
        let mut more = Vec::new();
        for s in &out {
            if s.len() < k {
                let mut t: Vec<u64> = s.clone();
                t.push(x);
                more.push(t);
            }
        }
        out.extend(more);
    }
    out
}

#[test]
fn matches_brute_force() {
    let mut b = Brute::new(followers);
    let mut n = 0;
    for s in subsets(11, 4) {
        for zeros in 0..=2 {
            let mut p = vec![0; zeros];
            p.extend_from_slice(&s);
            let want_v = b.value(&p);
            for play in [Play::Normal, Play::Misere] {
                let a = analyse(&p, play, Budget::DEFAULT).unwrap();
                assert_eq!(a.value, want_v, "{p:?}");
                let want_p = match play {
                    Play::Normal => want_v == 0,
                    Play::Misere => !b.misere_wins(&p),
                };
                assert_eq!(a.outcome == Outcome::P, want_p, "{play:?} {p:?}");
                assert_eq!(a.moves, brute_moves(&mut b, &p, play), "{play:?} {p:?}");
                n += 1;
            }
        }
    }
    assert!(n > 2000);
}

/// The vector (bitmask) and large (boxed) searches agree: shift into squares ≥ 128 is not a
/// symmetry, so compare the two games directly on the same small positions.
#[test]
fn large_representation_agrees() {
    for s in subsets(10, 3) {
        for mode in [Mode::NormalValue, Mode::MisereOutcome] {
            let mut small = MemoSearch::new(SmallGame, mode, Budget::DEFAULT);
            let mut large = MemoSearch::new(LargeGame, mode, Budget::DEFAULT);
            let a = small.solve(&mask_of(s.clone())).unwrap();
            let b = large.solve(&s.clone().into()).unwrap();
            assert_eq!(a, b, "{s:?} {mode:?}");
        }
    }
    // and on a genuinely large position with a brute-force check
    let mut b = Brute::new(followers);
    for p in [vec![1, 3, 130], vec![0, 20, 130], vec![2, 9, 128]] {
        for play in [Play::Normal, Play::Misere] {
            let a = analyse(&p, play, Budget::DEFAULT).unwrap();
            assert_eq!(a.value, b.value(&p), "{p:?}");
            assert_eq!(a.moves, brute_moves(&mut b, &p, play), "{p:?} {play:?}");
        }
    }
}

fn val(p: &[u64]) -> u64 {
    value(&Position::new(p).unwrap(), Budget::DEFAULT).unwrap()
}

#[test]
fn vectors_antonim() {
    let v = vectors();
    let cases = v["antonim_values"].as_array().unwrap();
    assert_eq!(cases.len(), 6);
    for case in cases {
        assert_eq!(
            Some(val(&u64s(&case["position"]))),
            case["value"].as_u64(),
            "{case}"
        );
    }
    // Even Alteration fails: [5|6|7|8|9] = 9, primes for k' = 7 are x2 → 1 and x4 → 4, each
    // alone gives 7, but both together do not give 9.
    let ce = &v["antonim_even_alteration_counterexample"];
    assert_eq!(u64s(&ce["position"]), vec![5, 6, 7, 8, 9]);
    assert_eq!(ce["k_prime"], 7);
    assert_eq!(val(&[5, 6, 7, 8, 9]), 9);
    assert_eq!(val(&[5, 1, 7, 8, 9]), 7);
    assert_eq!(val(&[5, 6, 7, 4, 9]), 7);
    assert_eq!(val(&[5, 1, 7, 4, 9]), 4);
    assert_ne!(val(&[5, 1, 7, 4, 9]), 9);
}

/// The empirical facts of the notes, checked (not used) on squares < 24 / < 16.
#[test]
fn empirical_two_and_three_coin_p_positions() {
    let mut solver = MemoSearch::new(SmallGame, Mode::NormalValue, Budget::DEFAULT);
    for b in 2..24u64 {
        for a in 1..b {
            let p = solver.solve(&mask_of(vec![a, b])).unwrap() == 0;
            assert_eq!(p, b == a + 1 && a % 2 == 1, "{a} {b}");
        }
    }
    for c in 3..16u64 {
        for b in 2..c {
            for a in 1..b {
                let p = solver.solve(&mask_of(vec![a, b, c])).unwrap() == 0;
                assert_eq!(p, (a + 1) ^ (b + 1) ^ (c + 1) == 0, "{a} {b} {c}");
            }
        }
    }
}

#[test]
fn validation_and_limits() {
    assert_eq!(
        Position::new(&[0, 0, 3, 3]),
        Err(AntonimError::Squares(SquaresError::DuplicateSquare(3)))
    );
    let p = Position::new(&[5, 0, 3, 0]).unwrap();
    assert_eq!(
        (p.nonzero(), p.zeros(), p.squares()),
        (&[3, 5][..], 2, vec![0, 0, 3, 5])
    );
    let zeros = vec![0; MAX_COINS + 1];
    assert!(matches!(
        Position::new(&zeros),
        Err(AntonimError::Squares(SquaresError::TooManyCoins { .. }))
    ));
    // a million coins on 0 plus one coin: closed form, instant
    let mut many = vec![0; MAX_COINS - 1];
    many.push(u64::MAX);
    let a = analyse(&many, Play::Normal, Budget::new(1000, 1000)).unwrap();
    assert_eq!((a.value, a.outcome), (u64::MAX, Outcome::N));
    assert_eq!(
        a.moves,
        vec![Move {
            from: u64::MAX,
            to: 0
        }]
    );
    let a = analyse(&many, Play::Misere, Budget::new(1000, 1000)).unwrap();
    assert_eq!((a.value, a.outcome), (u64::MAX, Outcome::N));
    assert_eq!(
        a.moves,
        vec![Move {
            from: u64::MAX,
            to: 1
        }]
    );
    let a = analyse(&[0, 1], Play::Misere, Budget::DEFAULT).unwrap();
    assert_eq!((a.value, a.outcome, a.moves.len()), (1, Outcome::P, 0));
    let huge = analyse(&[1 << 40, 1 << 41], Play::Normal, Budget::DEFAULT);
    assert_eq!(huge, Err(AntonimError::BudgetExceeded));
    assert_eq!(
        value(&Position::new(&[u64::MAX]).unwrap(), Budget::DEFAULT),
        Some(u64::MAX)
    );
    assert_eq!(
        outcome(&Position::new(&[1]).unwrap(), Play::Misere, Budget::DEFAULT),
        Some(Outcome::P)
    );
    assert_eq!(
        outcome(
            &Position::new(&[0, 0]).unwrap(),
            Play::Misere,
            Budget::DEFAULT
        ),
        Some(Outcome::N)
    );
    let empty = analyse(&[], Play::Normal, Budget::DEFAULT).unwrap();
    assert_eq!(
        (empty.value, empty.outcome, empty.moves.len()),
        (0, Outcome::P, 0)
    );
}

#[test]
fn refusals_read_as_before_the_shared_squares_error() {
    let dup = Position::new(&[0, 0, 3, 3]).unwrap_err().to_string();
    assert_eq!(
        dup,
        "square 3 holds more than one coin (only square 0 may hold several)"
    );
    let dup = crate::max_welter::Position::new(&[3, 3])
        .unwrap_err()
        .to_string();
    assert_eq!(dup, "square 3 holds more than one coin");
}
