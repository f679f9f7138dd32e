//! Tests of `moves.rs`: every winning move against a brute force, pagination, huge heaps.

use super::super::naive::tests::{codes_and_random, Rng};
use super::super::solver::Solver;
use super::super::values::Values;
use super::*;

/// Every winning move by brute force, in the documented order.
fn brute(game: &Game, values: &Values, per: &Periodicity, heaps: &[u64]) -> Vec<WinningMove> {
    let g = |x: u64| value_at(values, per, x).unwrap();
    let x = heaps.iter().fold(0, |acc, &n| acc ^ g(n));
    let mut out = Vec::new();
    if x == 0 {
        return out;
    }
    let max_u = |n: u64| {
        if game.is_finite() {
            game.prefix().len() as i64
        } else {
            n as i64
        }
    };
    for (i, &n) in heaps.iter().enumerate() {
        if n == 0 || heaps[..i].contains(&n) {
            continue;
        }
        let t = x ^ g(n);
        for h in 0..4 {
            for u in game.min_index()..=max_u(n).min(n as i64) {
                if game.digit(u) >> h & 1 == 0 {
                    continue;
                }
                let total = (n as i64 - u) as u64;
                let cap = if u <= 0 { n - 1 } else { total };
                let mut parts = Vec::new();
                collect(h, total, 1, cap, &mut Vec::new(), &mut parts);
                for p in parts {
                    if p.iter().fold(0, |acc, &q| acc ^ g(q)) == t {
                        out.push(WinningMove {
                            heap_index: i,
                            heap: n,
                            take: i128::from(u),
                            leave: p,
                        });
                    }
                }
            }
        }
    }
    out
}

fn collect(h: usize, total: u64, min: u64, cap: u64, cur: &mut Vec<u64>, out: &mut Vec<Vec<u64>>) {
    if h == 0 {
        if total == 0 {
            out.push(cur.clone());
        }
        return;
    }
    let mut p = min;
    while p * h as u64 <= total && p <= cap {
        if h == 1 && p != total {
            p += 1;
            continue;
        }
        cur.push(p);
        collect(h - 1, total - p, p, cap, cur, out);
        cur.pop();
        p += 1;
    }
}

/// All pages concatenated.
fn all_pages(s: &Solver, heaps: &[u64], limit: usize, budget: u64) -> Vec<WinningMove> {
    let mut out = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..100_000 {
        let page = s
            .winning_moves(heaps, cursor.as_deref(), limit, budget)
            .unwrap();
        assert!(page.moves.len() <= limit);
        out.extend(page.moves);
        match page.next_cursor {
            None => return out,
            Some(c) => cursor = Some(c),
        }
    }
    panic!("pagination does not end");
}

fn solver(code: &str, n: usize) -> Solver {
    let mut s = Solver::new(&Game::parse(code).unwrap());
    s.run(n, false, &mut || false).unwrap();
    s
}

#[test]
fn small_positions_match_brute_force() {
    let mut rng = Rng(0xA11_0C47);
    let codes = codes_and_random(
        &[
            "0.07", "0.6", "4.07", "44.3", "80.4", "0.F8", "0.(3)", "4.(3)", "C00.1",
        ],
        &mut rng,
    );
    for code in &codes {
        let s = solver(code, 60);
        let game = s.game().clone();
        for _ in 0..4 {
            let k = 1 + rng.below(4) as usize;
            let heaps: Vec<u64> = (0..k).map(|_| rng.below(40)).collect();
            let want = brute(&game, s.values(), s.periodicity(), &heaps);
            let limit = 1 + rng.below(5) as usize;
            assert_eq!(
                all_pages(&s, &heaps, limit, DEFAULT_BUDGET),
                want,
                "{code} {heaps:?}"
            );
            // A tiny budget only splits the work into more pages.
            assert_eq!(
                all_pages(&s, &heaps, 1000, 7),
                want,
                "{code} {heaps:?} (budget 7)"
            );
        }
    }
}

#[test]
fn large_heaps_from_periodicity() {
    // Pure period (.07: 53/34; .16 would need 5e5 values), heaps far beyond the values.
    for (code, heaps) in [
        ("0.07", vec![5000u64, 77, 9]),
        ("0.137", vec![3001, 1]),
        ("0.F8", vec![1500, 3]),
    ] {
        let s = solver(code, 400);
        assert!(s.periodicity().proof().is_some(), "{code}");
        let want = brute(s.game(), s.values(), s.periodicity(), &heaps);
        assert!(!want.is_empty(), "{code}");
        assert_eq!(
            all_pages(&s, &heaps, 50, DEFAULT_BUDGET),
            want,
            "{code} {heaps:?}"
        );
    }
}

#[test]
fn huge_heap_pages_are_cheap() {
    let s = solver("0.07", 400);
    let n = 1_000_000_000_000_000_000u64;
    let heaps = [n, 12345];
    let page = s.winning_moves(&heaps, None, 100, 100_000).unwrap();
    assert!(!page.budget_exhausted);
    assert_eq!(page.moves.len(), 100);
    let g = |x: u64| s.value_at(x).unwrap();
    let x = g(n) ^ g(12345);
    assert_eq!(page.value, x);
    for m in &page.moves {
        let rest: u64 = m.leave.iter().fold(0, |acc, &q| acc ^ g(q));
        let other = if m.heap == n { g(12345) } else { g(n) };
        assert_eq!(rest ^ other, 0, "{m:?}");
        assert_eq!(
            m.leave.iter().sum::<u64>() as i128 + m.take,
            i128::from(m.heap)
        );
    }
    // Moves are in order and the cursor continues where the page stopped.
    let next = s
        .winning_moves(&heaps, page.next_cursor.as_deref(), 100, 100_000)
        .unwrap();
    let last = page.moves.last().unwrap();
    let first = next.moves.first().unwrap();
    assert!((last.take, &last.leave) < (first.take, &first.leave));
}

#[test]
fn arithmetic_periodic_values_and_moves() {
    let s = solver("4.(7)", 200); // G(n+1) = G(n) + 2 from n = 2 (Thm 6.9)
    assert_eq!(s.periodicity().status(), "arithmetic-periodic");
    assert_eq!(
        s.value_at(1000).unwrap(),
        u64::from(s.values().get(100).unwrap()) + 2 * 900
    );
    assert!(matches!(
        s.value_at(u64::MAX),
        Err(OctalError::ValueTooLarge { .. })
    ));
    let heaps = [700u64, 333];
    let want = brute(s.game(), s.values(), s.periodicity(), &heaps);
    assert_eq!(all_pages(&s, &heaps, 100, DEFAULT_BUDGET), want);
}

#[test]
fn errors() {
    let s = solver("0.6", 100);
    assert!(matches!(
        s.winning_moves(&[1000], None, 10, 100),
        Err(OctalError::HeapBeyondRange { heap: 1000, .. })
    ));
    assert!(matches!(
        s.value_at(100),
        Err(OctalError::HeapBeyondRange {
            heap: 100,
            computed: 100
        })
    ));
    let heaps = [5, 9, 20];
    let page = s.winning_moves(&heaps, None, 1, DEFAULT_BUDGET).unwrap();
    let c = page.next_cursor.unwrap();
    assert!(matches!(
        s.winning_moves(&[5, 9, 21], Some(&c), 1, 100),
        Err(OctalError::BadCursor { .. })
    ));
    assert!(matches!(
        s.winning_moves(&heaps, Some("x"), 1, 100),
        Err(OctalError::BadCursor { .. })
    ));
    let many = vec![1u64; MAX_HEAPS + 1];
    assert!(matches!(
        s.winning_moves(&many, None, 1, 100),
        Err(OctalError::TooManyHeaps { .. })
    ));
    // A P-position has no winning moves.
    let p = s.winning_moves(&[7, 7], None, 10, 100).unwrap();
    assert_eq!((p.value, p.moves.len(), p.next_cursor), (0, 0, None));
}
