//! Unit tests of `crates/grundy-core/src/antimatter.rs`.

use super::*;
use crate::test_support::{u64s, vectors, Brute};

type Pos = (Vec<u64>, Vec<u64>);

fn canon(mut p: Vec<u64>, mut e: Vec<u64>) -> Option<Pos> {
    p.sort();
    e.sort();
    let (mut ps, mut es) = (vec![], vec![]);
    let mut all: Vec<u64> = p.iter().chain(&e).copied().collect();
    all.sort();
    all.dedup();
    for s in all {
        let np = p.iter().filter(|&&x| x == s).count() as i64;
        let ne = e.iter().filter(|&&x| x == s).count() as i64;
        match np - ne {
            0 => {}
            1 => ps.push(s),
            -1 => es.push(s),
            _ => return None,
        }
    }
    Some((ps, es))
}

/// Independent brute force on Def. 5.13 literally: cancel pairs, then followers are a particle
/// to a lower unoccupied square, or the removal of any positron–electron pair.
fn followers((p, e): &Pos) -> Vec<(ParticleMove, Pos)> {
    let occ = |s: u64| p.contains(&s) || e.contains(&s);
    let mut out = vec![];
    for (kind, own) in [(Particle::Positron, p), (Particle::Electron, e)] {
        for (i, &x) in own.iter().enumerate() {
            for y in (0..x).filter(|&y| !occ(y)) {
                let mut o = own.clone();
                o[i] = y;
                let f = if kind == Particle::Positron {
                    canon(o, e.clone())
                } else {
                    canon(p.clone(), o)
                };
                out.push((
                    ParticleMove {
                        from: x,
                        to: y,
                        particle: kind,
                    },
                    f.unwrap(),
                ));
            }
        }
    }
    for (i, &x) in p.iter().enumerate() {
        for (j, &z) in e.iter().enumerate() {
            let mut ps = p.clone();
            ps.remove(i);
            let mut es = e.clone();
            es.remove(j);
            let m = if x > z {
                ParticleMove {
                    from: x,
                    to: z,
                    particle: Particle::Positron,
                }
            } else {
                ParticleMove {
                    from: z,
                    to: x,
                    particle: Particle::Electron,
                }
            };
            out.push((m, canon(ps, es).unwrap()));
        }
    }
    out
}

/// Every winning move by brute force.
fn brute_moves(b: &mut Brute<Pos, ParticleMove>, s: &Pos, play: Play) -> Vec<ParticleMove> {
    b.winning_moves(s, play == Play::Misere)
}

/// All (P, E) with squares < n and at most `k` particles, as ternary digits.
fn positions(n: u32, k: usize) -> Vec<Pos> {
    let mut out = vec![];
    for code in 0..3u64.pow(n) {
        let (mut p, mut e, mut c) = (vec![], vec![], code);
        for s in 0..n as u64 {
            match c % 3 {
                1 => p.push(s),
                2 => e.push(s),
                _ => {}
            }
            c /= 3;
        }
        if p.len() + e.len() <= k {
            out.push((p, e));
        }
    }
    out
}

#[test]
fn matches_brute_force() {
    let mut b = Brute::new(followers);
    let mut n = 0;
    for s in positions(7, 4) {
        let want_v = b.value(&s);
        for play in [Play::Normal, Play::Misere] {
            let a = analyse(&s.0, &s.1, play, Budget::DEFAULT).unwrap();
            assert_eq!(a.value, want_v, "{s:?}");
            let want_p = if play == Play::Normal {
                want_v == 0
            } else {
                !b.misere_wins(&s)
            };
            assert_eq!(a.outcome == Outcome::P, want_p, "{play:?} {s:?}");
            assert_eq!(a.moves, brute_moves(&mut b, &s, play), "{play:?} {s:?}");
            n += 1;
        }
    }
    assert_eq!(n, 2 * 939);
}

/// Both representations agree, also beyond square 127.
#[test]
fn large_representation_agrees() {
    for (p, e) in positions(6, 3) {
        for mode in [Mode::NormalValue, Mode::MisereOutcome] {
            let mut small = MemoSearch::new(SmallGame, mode, Budget::DEFAULT);
            let mut large = MemoSearch::new(LargeGame, mode, Budget::DEFAULT);
            let a = small.solve(&small_state(p.clone(), e.clone())).unwrap();
            let b = large.solve(&large_state(p.clone(), e.clone())).unwrap();
            assert_eq!(a, b, "{p:?} {e:?} {mode:?}");
        }
    }
    let mut b = Brute::new(followers);
    for (p, e) in [(vec![1, 130], vec![2]), (vec![128], vec![0, 3])] {
        for play in [Play::Normal, Play::Misere] {
            let a = analyse(&p, &e, play, Budget::DEFAULT).unwrap();
            let s = (p.clone(), e.clone());
            assert_eq!(a.value, b.value(&s), "{s:?}");
            assert_eq!(a.moves, brute_moves(&mut b, &s, play), "{s:?} {play:?}");
        }
    }
}

fn val(p: &[u64], e: &[u64]) -> u64 {
    value(&Position::new(p, e).unwrap(), Budget::DEFAULT).unwrap()
}

#[test]
fn vectors_antimatter() {
    let v = vectors();
    let cases = v["antimatter_values"].as_array().unwrap();
    assert_eq!(cases.len(), 6);
    for case in cases {
        assert_eq!(
            Some(val(&u64s(&case["P"]), &u64s(&case["E"]))),
            case["value"].as_u64(),
            "{case}"
        );
    }
    let ce = &v["antimatter_even_alteration_counterexample"];
    let (p, e) = (u64s(&ce["P"]), u64s(&ce["E"]));
    assert_eq!(val(&p, &e), ce["k"].as_u64().unwrap());
    let k2 = ce["k_prime"].as_u64().unwrap();
    // the three primes each give k', but exchanging p3 and e1 together gives 13 ≠ 16
    assert_eq!(val(&[6, 7, 8], &[3, 4]), k2);
    assert_eq!(val(&[6, 7, 9], &[0, 4]), k2);
    assert_eq!(val(&[2, 7, 9], &[3, 4]), k2);
    assert_eq!(val(&[6, 7, 8], &[0, 4]), 13);
    // (0, 0 | 0) is the P-position (0 | ) of Example 5.16
    assert_eq!(val(&[0, 0], &[0]), 0);
}

/// Tables 5–7: the unique electron completing to a P-position (null = none), checked against
/// every candidate square < 32.
#[test]
fn tables_5_to_7() {
    let v = vectors();
    let mut cells = 0;
    // one shared memo: every query lives on squares < 32
    let mut solver = MemoSearch::new(SmallGame, Mode::NormalValue, Budget::DEFAULT);
    for (name, fixed) in [
        ("table5", None),
        ("table6", Some(0u64)),
        ("table7", Some(1u64)),
    ] {
        let t = &v["tables"][name];
        let cols = u64s(&t["cols"]);
        for (row, entries) in t["rows"].as_object().unwrap() {
            let p1: u64 = row.parse().unwrap();
            for (&p2, cell) in cols.iter().zip(entries.as_array().unwrap()) {
                let mut found = vec![];
                for z in 0..32 {
                    let mut es: Vec<u64> = fixed.into_iter().collect();
                    es.push(z);
                    if let Ok(pos) = Position::new(&[p1, p2], &es) {
                        let root = small_state(pos.positrons, pos.electrons);
                        if solver.solve(&root) == Ok(0) {
                            found.push(z);
                        }
                    }
                }
                let want: Vec<u64> = cell.as_u64().into_iter().collect();
                assert_eq!(found, want, "{name} p1={p1} p2={p2}");
                cells += 1;
            }
        }
    }
    assert_eq!(cells, 3 * 121);
}

/// The empirical 2 + 2 rule of the notes, checked (not used).
#[test]
fn empirical_two_plus_two() {
    let mut solver = MemoSearch::new(SmallGame, Mode::NormalValue, Budget::DEFAULT);
    let mut n = 0;
    for p1 in 0..8u64 {
        for p2 in p1 + 1..8 {
            for e1 in 0..8u64 {
                for e2 in e1 + 1..8 {
                    if [e1, e2].iter().any(|x| *x == p1 || *x == p2) {
                        continue;
                    }
                    let v = solver
                        .solve(&small_state(vec![p1, p2], vec![e1, e2]))
                        .unwrap();
                    assert_eq!(v == 0, p1 ^ p2 ^ e1 ^ e2 == 0, "{p1} {p2} | {e1} {e2}");
                    n += 1;
                }
            }
        }
    }
    assert_eq!(n, 420);
}

#[test]
fn validation_and_limits() {
    let p = Position::new(&[5, 3, 3], &[3, 9]).unwrap();
    assert_eq!((p.positrons(), p.electrons()), (&[3, 5][..], &[9][..]));
    assert_eq!(
        Position::new(&[4, 4], &[]),
        Err(AntimatterError::SharedSquare {
            square: 4,
            particle: Particle::Positron
        })
    );
    assert_eq!(
        Position::new(&[2], &[2, 2, 2]),
        Err(AntimatterError::SharedSquare {
            square: 2,
            particle: Particle::Electron
        })
    );
    assert_eq!(
        Position::new(&[1, 1], &[1, 1]).unwrap(),
        Position::new(&[], &[]).unwrap()
    );
    let many = vec![7; MAX_PARTICLES + 1];
    assert!(matches!(
        Position::new(&many, &[]),
        Err(AntimatterError::TooManyParticles { .. })
    ));
    // one kind only is Welter: instant for huge squares
    let w = Position::new(&[1, 3, 7, 8, 11, 19], &[]).unwrap();
    assert_eq!(value(&w, Budget::DEFAULT), Some(12));
    assert_eq!(
        value(&Position::new(&[], &[u64::MAX]).unwrap(), Budget::DEFAULT),
        Some(u64::MAX)
    );
    let far = analyse(&[1 << 40], &[3], Play::Normal, Budget::DEFAULT);
    assert_eq!(far, Err(AntimatterError::BudgetExceeded));
    let empty = analyse(&[], &[], Play::Misere, Budget::DEFAULT).unwrap();
    assert_eq!(
        (empty.value, empty.outcome, empty.moves.len()),
        (0, Outcome::N, 0)
    );
    // annihilation is reported as the higher particle moving onto the lower one
    let a = analyse(&[0], &[5], Play::Normal, Budget::DEFAULT).unwrap();
    assert!(a.moves.contains(&ParticleMove {
        from: 5,
        to: 0,
        particle: Particle::Electron
    }));
    assert_eq!(
        outcome(
            &Position::new(&[0], &[5]).unwrap(),
            Play::Normal,
            Budget::DEFAULT
        ),
        Some(Outcome::N)
    );
}

/// Swapping the kinds swaps the move labels and keeps everything else.
#[test]
fn kind_swap_symmetry() {
    let a = analyse(&[2, 5, 6], &[1, 4], Play::Normal, Budget::DEFAULT).unwrap();
    let b = analyse(&[1, 4], &[2, 5, 6], Play::Normal, Budget::DEFAULT).unwrap();
    assert_eq!((a.value, a.outcome), (b.value, b.outcome));
    let flip = |m: &ParticleMove| ParticleMove {
        particle: if m.particle == Particle::Positron {
            Particle::Electron
        } else {
            Particle::Positron
        },
        ..*m
    };
    let mut fb: Vec<ParticleMove> = b.moves.iter().map(flip).collect();
    fb.sort_unstable();
    assert_eq!(a.moves, fb);
}
