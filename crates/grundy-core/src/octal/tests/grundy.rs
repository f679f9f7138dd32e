//! Grundy's game (split a heap into two unequal heaps) and the part-rule family.
//!
//! Ground truth is an independent brute force written here from the rules alone (mex over
//! every unequal split, and a game-tree search over sums of heaps); the published tables are
//! checked against it, and the engines against both.

use std::collections::HashMap;

use crate::octal::code::{Game, PartRule};
use crate::octal::engine::Engine;
use crate::octal::error::OctalError;
use crate::octal::moves::{winning_moves, WinningMove, DEFAULT_BUDGET};
use crate::octal::naive::naive_values;
use crate::octal::naive::tests::{random_code, Rng};
use crate::octal::periodicity::{detect, Periodicity};
use crate::octal::solver::Solver;

/// G(0..n) of Grundy's game from the definition: mex of `G(a) ⊕ G(n−a)` over `1 ≤ a < n−a`.
fn brute_grundy(n: usize) -> Vec<u32> {
    let mut g = Vec::with_capacity(n);
    for m in 0..n {
        let mut seen = vec![false; 2 * m + 2];
        for a in 1..m {
            let b = m - a;
            if a < b {
                seen[(g[a] ^ g[b]) as usize] = true;
            }
        }
        g.push(seen.iter().position(|&s| !s).unwrap_or(seen.len()) as u32);
    }
    g
}

/// Value of a multiset of heaps by searching the game tree (no Sprague–Grundy sum rule).
fn tree_value(pos: Vec<u32>, memo: &mut HashMap<Vec<u32>, u32>) -> u32 {
    if let Some(&v) = memo.get(&pos) {
        return v;
    }
    let mut opts = Vec::new();
    for (i, &x) in pos.iter().enumerate() {
        for a in 1..x {
            let b = x - a;
            if a >= b {
                break;
            }
            let mut next = pos.clone();
            next.remove(i);
            next.extend([a, b]);
            next.retain(|&h| h >= 3); // heaps of 1 and 2 have no move
            next.sort_unstable();
            opts.push(next);
        }
    }
    let vals: Vec<u32> = opts.into_iter().map(|o| tree_value(o, memo)).collect();
    let v = (0..).find(|v| !vals.contains(v)).unwrap_or(0);
    memo.insert(pos, v);
    v
}

fn engine_values(game: &Game, n: usize, sparse: bool) -> (Vec<u32>, &'static str) {
    let mut e = Engine::new(game);
    e.set_allow_sparse(sparse);
    e.extend_to(n, &mut || false).unwrap();
    let mode = e.stats().mode;
    (e.into_values().to_u32_vec(), mode)
}

/// OEIS A002188, "Sprague-Grundy values for Grundy's game", G(0..104) as published
/// (<https://oeis.org/A002188>; Guy and Smith 1956, Table 4).
const A002188: [u32; 105] = [
    0, 0, 0, 1, 0, 2, 1, 0, 2, 1, 0, 2, 1, 3, 2, 1, 3, 2, 4, 3, 0, 4, 3, 0, 4, 3, 0, 4, 1, 2, 3, 1,
    2, 4, 1, 2, 4, 1, 2, 4, 1, 5, 4, 1, 5, 4, 1, 5, 4, 1, 0, 2, 1, 0, 2, 1, 5, 2, 1, 3, 2, 1, 3, 2,
    4, 3, 2, 4, 3, 2, 4, 3, 2, 4, 3, 2, 4, 3, 2, 4, 5, 2, 4, 5, 2, 4, 3, 7, 4, 3, 7, 4, 3, 7, 4, 3,
    5, 2, 3, 5, 2, 3, 5, 2, 3,
];

/// OEIS A002189, heap sizes n ≥ 1 with G(n) = 0 (P-positions of Grundy's game), the first 41
/// terms as published (<https://oeis.org/A002189>), every one re-checked by the brute force.
/// (A list circulated with this task continued 1225, 1228, 1238, 1241, …, 1400; the brute
/// force gives G(1225) = G(1228) = 2 and no P-position between 1222 and 5000, so only the
/// verified terms are kept.)
const A002189: [usize; 41] = [
    1, 2, 4, 7, 10, 20, 23, 26, 50, 53, 270, 273, 276, 282, 285, 288, 316, 334, 337, 340, 346, 359,
    362, 365, 386, 389, 392, 566, 630, 633, 636, 639, 673, 676, 682, 685, 923, 926, 929, 932, 1222,
];

/// Flammenkamp, "Sprague-Grundy Values of Grundy's Game"
/// (<http://wwwhomes.uni-bielefeld.de/achim/grundy.html>), table "Known Sparse SGV of Grundy's
/// Game": every heap n ≤ 231 whose value is rare for the bitstring m = …11110 (the number of
/// ones of G(n) without its lowest bit is even), with its value.
const FLAMMENKAMP_SPARSE: [(usize, u32); 48] = [
    (0, 0),
    (1, 0),
    (2, 0),
    (3, 1),
    (4, 0),
    (6, 1),
    (7, 0),
    (9, 1),
    (10, 0),
    (12, 1),
    (15, 1),
    (20, 0),
    (23, 0),
    (26, 0),
    (28, 1),
    (31, 1),
    (34, 1),
    (37, 1),
    (40, 1),
    (43, 1),
    (46, 1),
    (49, 1),
    (50, 0),
    (52, 1),
    (53, 0),
    (55, 1),
    (58, 1),
    (61, 1),
    (87, 7),
    (90, 7),
    (93, 7),
    (146, 6),
    (149, 6),
    (152, 6),
    (158, 11),
    (161, 11),
    (164, 11),
    (167, 11),
    (176, 7),
    (179, 7),
    (181, 12),
    (182, 7),
    (185, 7),
    (188, 7),
    (190, 12),
    (193, 12),
    (196, 10),
    (231, 10),
];

#[test]
fn code_parses_case_insensitively_and_is_canonical() {
    for s in ["grundy", "GRUNDY", " Grundy "] {
        let g = Game::parse(s).unwrap();
        assert_eq!(g, Game::grundy());
        assert_eq!(g.canonical(), "grundy");
    }
    let g = Game::grundy();
    assert_eq!(g.part_rule(), PartRule::DifferBy(1));
    // The digits are those of `4.0` (split into two heaps, taking nothing) …
    assert_eq!(g.digit(0), 4);
    assert_eq!(g.max_heaps(), 2);
    // … but it is a different game: `4.0` allows equal parts.
    assert_ne!(g, Game::parse("4.0").unwrap());
    assert_eq!(Game::parse("4.0").unwrap().canonical(), "4.0");
    // Theorem 4.6 (standard form) is not applied to a part rule.
    let sf = g.standard_form();
    assert_eq!((sf.game.canonical(), sf.shift), ("grundy".to_owned(), 0));
    // Near misses are parse errors, not other games.
    assert!(Game::parse("grundyy").is_err());
    assert!(Game::parse("grund").is_err());
}

#[test]
fn part_rules_are_data_on_codes() {
    let four = Game::parse("4.0").unwrap();
    assert_eq!(
        four.with_part_rule(PartRule::DifferBy(1)).unwrap(),
        Game::grundy()
    );
    assert_eq!(Game::grundy().with_part_rule(PartRule::Any).unwrap(), four);
    assert_eq!(
        Game::grundy()
            .with_part_rule(PartRule::DifferBy(0))
            .unwrap(),
        four
    );
    let gap2 = four.with_part_rule(PartRule::DifferBy(2)).unwrap();
    assert_eq!(gap2.canonical(), "4.0/gap=2");
    let take2 = Game::parse(".04")
        .unwrap()
        .with_part_rule(PartRule::DifferBy(1))
        .unwrap();
    assert_eq!(take2.canonical(), "0.04/gap=1");
    // Three-heap splits and recurring codes are computed from unrestricted split sets.
    for code in ["0.8", "0.(4)", "4.(3)"] {
        assert!(matches!(
            Game::parse(code)
                .unwrap()
                .with_part_rule(PartRule::DifferBy(1)),
            Err(OctalError::PartRuleUnsupported { .. })
        ));
    }
    assert_eq!(PartRule::DifferBy(1).max_smaller(10), Some(4));
    assert_eq!(PartRule::DifferBy(1).max_smaller(9), Some(4));
    assert_eq!(PartRule::Any.max_smaller(10), Some(5));
    assert_eq!(PartRule::DifferBy(3).max_smaller(2), None);
}

#[test]
fn brute_force_agrees_with_game_tree_search() {
    // The brute force itself, against a search over sums that never uses the sum rule.
    let g = brute_grundy(20);
    let mut memo = HashMap::new();
    for n in 0..20u32 {
        let pos = if n >= 3 { vec![n] } else { vec![] };
        assert_eq!(tree_value(pos, &mut memo), g[n as usize], "G({n})");
    }
    for a in 3..11u32 {
        for b in a..12u32 {
            assert_eq!(
                tree_value(vec![a, b], &mut memo),
                g[a as usize] ^ g[b as usize],
                "{a}+{b}"
            );
        }
    }
}

#[test]
fn published_first_values_oeis_a002188() {
    let brute = brute_grundy(A002188.len());
    assert_eq!(brute, A002188.to_vec(), "OEIS A002188 vs the brute force");
    let naive = naive_values(&Game::grundy(), A002188.len(), &mut || false).unwrap();
    assert_eq!(naive, brute);
}

#[test]
fn published_p_positions_oeis_a002189() {
    let brute = brute_grundy(5000);
    let zeros: Vec<usize> = (1..brute.len()).filter(|&n| brute[n] == 0).collect();
    assert_eq!(zeros, A002189.to_vec());
    assert_eq!((brute[1225], brute[1228]), (2, 2));
    let (fast, _) = engine_values(&Game::grundy(), 5000, true);
    assert_eq!(fast, brute);
}

#[test]
fn published_sparse_values_flammenkamp() {
    let table = &FLAMMENKAMP_SPARSE[..];
    let brute = brute_grundy(232);
    let rare = |v: u32| (v >> 1).count_ones().is_multiple_of(2);
    let got: Vec<(usize, u32)> = (0..232)
        .filter(|&n| rare(brute[n]))
        .map(|n| (n, brute[n]))
        .collect();
    assert_eq!(got, table.to_vec());
}

#[test]
fn engines_match_brute_force() {
    let n = 3000;
    let brute = brute_grundy(n);
    let game = Game::grundy();
    let (sparse, mode) = engine_values(&game, n, true);
    assert_eq!(mode, "sparse", "Grundy's game has a sparse space");
    assert_eq!(sparse, brute);
    let (dense, mode) = engine_values(&game, n, false);
    assert_eq!(mode, "dense");
    assert_eq!(dense, brute);
    assert_eq!(
        naive_values(&game, 600, &mut || false).unwrap(),
        brute[..600]
    );
    // Single-threaded and resumed computations agree.
    let mut e = Engine::new(&game);
    e.set_threads(1);
    e.extend_to(n, &mut || false).unwrap();
    assert_eq!(e.values().to_u32_vec(), brute);
    let mut r = Engine::resume(&game, brute[..1234].to_vec()).unwrap();
    r.extend_to(n, &mut || false).unwrap();
    assert_eq!(r.values().to_u32_vec(), brute);
}

#[test]
fn sparse_engine_matches_quadratic_method_debug_size() {
    // The release test below does 10^5 heaps; this one keeps a debug run short.
    let n = 20_000;
    let (sparse, mode) = engine_values(&Game::grundy(), n, true);
    assert_eq!(mode, "sparse");
    let (dense, _) = engine_values(&Game::grundy(), n, false);
    assert_eq!(sparse, dense);
}

#[test]
#[ignore = "release only: cargo test --release -p grundy-core --lib -- --ignored octal::"]
fn sparse_engine_matches_quadratic_method_1e5() {
    let n = 100_000;
    let game = Game::grundy();
    let (sparse, mode) = engine_values(&game, n, true);
    assert_eq!(mode, "sparse");
    let (dense, _) = engine_values(&game, n, false);
    assert_eq!(sparse, dense);
    assert_eq!(sparse[..5000], brute_grundy(5000)[..]);
    // The published sparse values up to 231 recur; the largest value so far is small.
    assert!(sparse.iter().all(|&v| v < 256));
}

#[test]
fn part_rule_family_matches_naive() {
    // Random finite codes with at most two heaps per move, under random gaps: the sparse and
    // dense engines against the definition (naive).
    let mut rng = Rng(0x6A2D_1939);
    let mut games: Vec<Game> = ["4.0", "0.04", "0.6", "0.4", "4.07", "0.14", "0.0404", "C.4"]
        .iter()
        .filter_map(|c| Game::parse(c).ok())
        .collect();
    while games.len() < 60 {
        let g = Game::parse(&random_code(&mut rng)).unwrap();
        if g.is_finite() && g.max_heaps() <= 2 {
            games.push(g);
        }
    }
    for (i, base) in games.iter().enumerate() {
        let gap = 1 + rng.below(4) as u32;
        let Ok(game) = base.with_part_rule(PartRule::DifferBy(gap)) else {
            continue;
        };
        let n = if i % 6 == 0 { 2500 } else { 700 };
        let want = naive_values(&game, n, &mut || false).unwrap();
        for sparse in [true, false] {
            let (got, _) = engine_values(&game, n, sparse);
            if let Some(k) = (0..n).find(|&k| got[k] != want[k]) {
                panic!(
                    "{} (sparse {sparse}): G({k}) = {} but naive = {}",
                    game.canonical(),
                    got[k],
                    want[k]
                );
            }
        }
    }
}

#[test]
fn threaded_sparse_blocks_keep_the_part_rule() {
    // The pipeline (`engine/parallel/pipeline.rs`): far rows, the spine and the checks all skip the
    // forbidden window: the values must not change with the thread count. Reference: the quadratic method on one thread.
    // 0.007 with gap 4 fails when `rare_rows` ignores the part rule; the others cover a
    // digit that takes tokens (`.04`) and a heap-1 digit beside the split (`.36`).
    let rule = |code: &str, gap: u32| {
        Game::parse(code)
            .unwrap()
            .with_part_rule(PartRule::DifferBy(gap))
            .unwrap()
    };
    let games = [
        (Game::grundy(), 20_000),
        (rule("0.007", 4), 8000),
        (rule("0.04", 2), 8000),
        (rule("0.36", 3), 8000),
    ];
    for (game, n) in games {
        let mut d = Engine::new(&game);
        d.set_threads(1);
        d.set_allow_sparse(false);
        d.extend_to(n, &mut || false).unwrap();
        let want = d.values().to_u32_vec();
        let mut blocks_run = 0;
        for threads in [2, 3] {
            let mut e = Engine::new(&game);
            e.set_threads(threads);
            e.force_pipeline(512, Some((128, threads == 2)));
            e.extend_to(n, &mut || false).unwrap();
            let blocks = e.pipeline_counts().rounds;
            let got = e.values().to_u32_vec();
            if let Some(k) = (0..n).find(|&k| got[k] != want[k]) {
                panic!(
                    "{} ({threads} threads, {blocks} sparse blocks): G({k}) = {} but {}",
                    game.canonical(),
                    got[k],
                    want[k]
                );
            }
            blocks_run += blocks;
        }
        // (The cost model may prefer dense blocks for some thread counts.)
        assert!(
            blocks_run > 0,
            "{}: no threaded sparse block",
            game.canonical()
        );
    }
}

#[test]
fn gap_two_and_take_k_by_brute_force() {
    // Two more members of the family from their own definitions.
    let brute = |take: usize, gap: usize, n: usize| {
        let mut g: Vec<u32> = Vec::new();
        for m in 0..n {
            let mut seen = vec![false; 2 * m + 2];
            if m >= take {
                let r = m - take;
                for a in 1..r {
                    let b = r - a;
                    if a <= b && b - a >= gap {
                        seen[(g[a] ^ g[b]) as usize] = true;
                    }
                }
            }
            g.push(seen.iter().position(|&s| !s).unwrap_or(0) as u32);
        }
        g
    };
    let gap2 = Game::parse("4.0")
        .unwrap()
        .with_part_rule(PartRule::DifferBy(2))
        .unwrap();
    assert_eq!(engine_values(&gap2, 3000, true).0, brute(0, 2, 3000));
    let take2 = Game::parse(".04")
        .unwrap()
        .with_part_rule(PartRule::DifferBy(1))
        .unwrap();
    assert_eq!(engine_values(&take2, 3000, true).0, brute(2, 1, 3000));
}

#[test]
fn never_called_periodic() {
    let grundy = Game::grundy();
    let mut s = Solver::new(&grundy);
    s.run(5000, true, &mut || false).unwrap();
    assert_eq!(s.values().len(), 5000, "until_proved never stops it early");
    assert_eq!(s.periodicity(), &Periodicity::Unknown);
    assert!(s.value_at(5000).is_err());
    // A sequence that Thm 4.1 certifies for the code `4.0` is not certified for Grundy's game:
    // the theorem is not proved for a rule on the parts.
    let periodic: Vec<u32> = (0..400).map(|i| [0, 1, 2][i % 3]).collect();
    assert!(matches!(
        detect(&Game::parse("4.0").unwrap(), &periodic),
        Periodicity::Proved(_)
    ));
    assert_eq!(detect(&grundy, &periodic), Periodicity::Unknown);
}

/// Every winning move of a sum of heaps, from the rules (unequal splits, take 0).
fn brute_moves(g: &[u32], heaps: &[u64]) -> Vec<WinningMove> {
    let x = heaps.iter().fold(0, |acc, &h| acc ^ g[h as usize]);
    let mut out = Vec::new();
    if x == 0 {
        return out;
    }
    for (i, &n) in heaps.iter().enumerate() {
        if n == 0 || heaps[..i].contains(&n) {
            continue;
        }
        let t = x ^ g[n as usize];
        for a in 1..n {
            let b = n - a;
            if a < b && g[a as usize] ^ g[b as usize] == t {
                out.push(WinningMove {
                    heap_index: i,
                    heap: n,
                    take: 0,
                    leave: vec![a, b],
                });
            }
        }
    }
    out
}

#[test]
fn winning_moves_match_brute_force() {
    let n = 400;
    let s = {
        let mut s = Solver::new(&Game::grundy());
        s.run(n, false, &mut || false).unwrap();
        s
    };
    let g = s.values().to_u32_vec();
    let mut rng = Rng(0x0BAD_5EED);
    let mut checked = 0;
    for _ in 0..200 {
        let k = 1 + rng.below(4) as usize;
        let heaps: Vec<u64> = (0..k).map(|_| rng.below(n as u64)).collect();
        let want = brute_moves(&g, &heaps);
        // Paged with small limits and a tiny budget: the same moves, in the same order.
        let mut got = Vec::new();
        let mut cursor: Option<String> = None;
        let limit = 1 + rng.below(7) as usize;
        let budget = if rng.below(2) == 0 { 5 } else { DEFAULT_BUDGET };
        loop {
            let page = s
                .winning_moves(&heaps, cursor.as_deref(), limit, budget)
                .unwrap();
            got.extend(page.moves);
            match page.next_cursor {
                Some(c) => cursor = Some(c),
                None => break,
            }
        }
        assert_eq!(got, want, "{heaps:?}");
        checked += usize::from(!want.is_empty());
    }
    assert!(checked > 50);
    // Equal parts are never offered: in 8 + 8 + 8 a move in one heap of 8 must reach value 0;
    // (4, 4) would (G(4) ⊕ G(4) = 0) but is illegal, (1, 7) is the one winning split.
    let heaps = [8u64, 8, 8];
    let page = s.winning_moves(&heaps, None, 100, DEFAULT_BUDGET).unwrap();
    assert_eq!(page.value, u64::from(g[8]));
    assert!(page.moves.iter().all(|m| m.leave[0] != m.leave[1]));
    assert_eq!(page.moves, brute_moves(&g, &heaps));
}

/// Checks a page of moves of a sum with a huge heap by the XOR test.
fn check_big_sum(n: usize) {
    let game = Game::grundy();
    let mut e = Engine::new(&game);
    let t0 = std::time::Instant::now();
    e.extend_to(n + 1, &mut || false).unwrap();
    let compute = t0.elapsed();
    assert_eq!(e.stats().mode, "sparse");
    let values = e.values();
    let g = values.to_u32_vec();
    let heaps = [n as u64, 1_000, 77];
    let x = heaps.iter().fold(0, |acc, &h| acc ^ g[h as usize]);
    let t1 = std::time::Instant::now();
    let page = winning_moves(
        &game,
        values.as_ref(),
        &Periodicity::Unknown,
        &heaps,
        None,
        10_000,
        DEFAULT_BUDGET,
    )
    .unwrap();
    let search = t1.elapsed();
    assert_eq!(page.value, u64::from(x));
    assert!(
        !page.budget_exhausted,
        "one page of a heap of {n} fits the budget"
    );
    assert!(!page.moves.is_empty());
    for m in &page.moves {
        let (a, b) = (m.leave[0] as usize, m.leave[1] as usize);
        assert_eq!(m.take, 0);
        assert!(a < b && a + b == m.heap as usize && a >= 1);
        let rest = heaps
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != m.heap_index)
            .fold(0, |acc, (_, &h)| acc ^ g[h as usize]);
        assert_eq!(rest ^ g[a] ^ g[b], 0, "{m:?} does not reach a P-position");
    }
    eprintln!(
        "grundy: {n} values in {compute:?}, {} winning moves of {heaps:?} in {search:?}",
        page.moves.len()
    );
}

#[test]
fn winning_moves_of_a_large_heap() {
    check_big_sum(50_000);
}

#[test]
#[ignore = "release only: cargo test --release -p grundy-core --lib -- --ignored octal::"]
fn winning_moves_of_a_heap_of_a_million() {
    check_big_sum(1_000_000);
    check_big_sum(1 << 21);
}
