//! Oracles for the misère quotients: an independent brute force over sums of heaps, Bouton's
//! rule for misère Nim, published single-heap misère values, and published quotient sizes.

use std::collections::{BTreeSet, HashMap};

use super::*;
use crate::budget::Budget;
use crate::game::Outcome;
use crate::octal::{Game, WinningMove};
use crate::test_support::{random_code, Rng};

/// A move `(heap index, take, leave)` and the position it leads to.
type Step = ((usize, i128, Vec<u64>), Vec<u64>);

/// Misère play by the definitions only: a position is a sorted list of heaps; a move picks a
/// heap `x`, an index `u` with bit `h` of `d_u`, and an ordered composition of `x − u` into
/// `h` positive parts (each below `x` when `u ≤ 0`; parts of a two-heap split differing by
/// at least the part rule's gap); the player who cannot move wins. Nothing here uses
/// `options.rs` or the quotient code.
struct Brute {
    game: Game,
    memo: HashMap<Vec<u64>, bool>,
}

impl Brute {
    fn new(game: &Game) -> Brute {
        Brute {
            game: game.clone(),
            memo: HashMap::new(),
        }
    }

    /// `(heap index, take, leave)` and the resulting position, for the first heap of each
    /// size.
    fn moves(&self, pos: &[u64]) -> Vec<Step> {
        let gap = self.game.part_rule().min_gap();
        let mut out: BTreeSet<Step> = BTreeSet::new();
        for (i, &x) in pos.iter().enumerate() {
            if pos[..i].contains(&x) {
                continue;
            }
            let mut rest: Vec<u64> = pos.to_vec();
            rest.remove(i);
            for u in self.game.min_index()..=x as i64 {
                let d = self.game.digit(u);
                for h in 0..4usize {
                    if d >> h & 1 == 0 {
                        continue;
                    }
                    let total = (x as i64 - u) as u64;
                    let mut comp = vec![0u64; h];
                    compositions(total, 0, &mut comp, &mut |parts| {
                        if u <= 0 && parts.iter().any(|&p| p >= x) {
                            return;
                        }
                        if h == 2 && parts[0].abs_diff(parts[1]) < gap {
                            return;
                        }
                        let mut leave = parts.to_vec();
                        leave.sort_unstable();
                        let mut next = rest.clone();
                        next.extend_from_slice(&leave);
                        next.sort_unstable();
                        out.insert(((i, i128::from(u), leave), next));
                    });
                }
            }
        }
        out.into_iter().collect()
    }

    /// True when the player to move wins (misère).
    fn wins(&mut self, pos: &[u64]) -> bool {
        if let Some(&w) = self.memo.get(pos) {
            return w;
        }
        let moves = self.moves(pos);
        let w = moves.is_empty() || moves.iter().any(|(_, next)| !self.wins(next));
        self.memo.insert(pos.to_vec(), w);
        w
    }

    fn winning_moves(&mut self, pos: &[u64]) -> Vec<(usize, i128, Vec<u64>)> {
        let moves = self.moves(pos);
        let mut out: Vec<(usize, i128, Vec<u64>)> = moves
            .into_iter()
            .filter(|(_, next)| !self.wins(next))
            .map(|(m, _)| m)
            .collect();
        out.sort();
        out
    }
}

fn compositions(total: u64, k: usize, comp: &mut Vec<u64>, f: &mut dyn FnMut(&[u64])) {
    if k == comp.len() {
        if total == 0 {
            f(comp);
        }
        return;
    }
    for p in 1..=total {
        comp[k] = p;
        compositions(total - p, k + 1, comp, f);
    }
}

fn moves_key(moves: &[WinningMove]) -> Vec<(usize, i128, Vec<u64>)> {
    let mut v: Vec<(usize, i128, Vec<u64>)> = moves
        .iter()
        .map(|m| (m.heap_index, m.take, m.leave.clone()))
        .collect();
    v.sort();
    v
}

/// Every multiset of 1..=`count` heaps of sizes 0..=`max`.
fn sums(count: usize, max: u64) -> Vec<Vec<u64>> {
    let mut out = vec![Vec::new()];
    let mut frontier: Vec<Vec<u64>> = vec![Vec::new()];
    for _ in 0..count {
        let mut next = Vec::new();
        for s in &frontier {
            let lo = s.last().copied().unwrap_or(0);
            for h in lo..=max {
                let mut t = s.clone();
                t.push(h);
                next.push(t);
            }
        }
        out.extend(next.iter().cloned());
        frontier = next;
    }
    out
}

/// The images in `q` of the options of heap `h` (each the product of its heaps' images by
/// `phi`), sorted and without repeats.
fn option_images(q: &MisereQuotient, game: &Game, h: u64, phi: impl Fn(u64) -> u32) -> Vec<u32> {
    let mut t: Vec<u32> = heap_options(game, h)
        .unwrap()
        .iter()
        .map(|o| o.leave.iter().fold(0, |acc, &x| q.mul(acc, phi(x))))
        .collect();
    t.sort_unstable();
    t.dedup();
    t
}

fn quotient(code: &str, bound: u64) -> MisereQuotient {
    let game = Game::parse(code).unwrap();
    MisereQuotient::compute(&game, bound, &QuotientBudget::DEFAULT, &mut || false)
        .unwrap_or_else(|e| panic!("{code}: {e}"))
}

/// The quotient's outcomes and winning moves equal the brute force on every sum of up to
/// `count` heaps of at most `max` tokens (`bound ≥ max`); the same positions with their heaps
/// permuted give the same answer.
fn check_against_brute(code: &str, bound: u64, count: usize, max: u64) -> usize {
    let q = quotient(code, bound);
    let mut brute = Brute::new(q.game());
    let mut checked = 0;
    for pos in sums(count, max) {
        let wins = brute.wins(&pos);
        let ans = q.winning_moves(&pos).unwrap();
        let expect = if wins { Outcome::N } else { Outcome::P };
        assert_eq!(ans.outcome, expect, "{code}: outcome of {pos:?}");
        assert_eq!(
            moves_key(&ans.moves),
            brute.winning_moves(&pos),
            "{code}: winning moves of {pos:?}"
        );
        let mut rev = pos.clone();
        rev.reverse();
        assert_eq!(q.outcome(&rev).unwrap(), expect, "{code}: {rev:?}");
        checked += 1;
    }
    checked
}

/// The codes of the issue: normal-play codes with known periods, Nim, Grundy's game, hex
/// and codes with digits before the point.
const CODES: &[&str] = &[
    "0.07", "0.77", "0.137", "0.6", "0.4", "0.16", "0.51", "0.53", "0.71", "0.31", "0.123", "4.7",
    "0.15", "0.35", "0.55", "0.007", "0.26", "0.34", "0.36", "0.52", "0.(3)", "grundy", "0.8F",
    "4.07", "80.4", "S(1,2,5)", "0.75",
];

#[test]
fn quotient_outcomes_match_brute_force_small() {
    for code in CODES.iter().chain(&["0.3F", "0.37F"]) {
        let n = check_against_brute(code, 9, 3, 9);
        assert_eq!(n, 286, "{code}");
    }
}

/// The acceptance check: every sum of up to 4 heaps ≤ 12, for every code of
/// [`CODES`] (27 codes × 2380 positions, heap 0 included). About a minute in release builds.
#[test]
#[ignore = "heavy: run with --release --ignored"]
fn quotient_outcomes_match_brute_force_four_heaps_to_12() {
    for code in CODES {
        let n = check_against_brute(code, 12, 4, 12);
        assert_eq!(n, 2380, "{code}");
    }
}

#[test]
fn random_codes_match_brute_force() {
    let mut rng = Rng(0x915e_0001);
    let mut ok = 0;
    let mut total = 0;
    for _ in 0..40 {
        let code = random_code(&mut rng);
        let game = Game::parse(&code).unwrap();
        let bound = if game.max_heaps() >= 3 { 6 } else { 8 };
        total += 1;
        let small = QuotientBudget {
            max_steps: 20_000_000,
            ..QuotientBudget::DEFAULT
        };
        match MisereQuotient::compute(&game, bound, &small, &mut || false) {
            Ok(_) => {
                check_against_brute(&code, bound, 3, bound);
                ok += 1;
            }
            Err(e) => eprintln!("{code}: {e}"),
        }
    }
    assert!(
        ok * 10 >= total * 9,
        "only {ok} of {total} random codes solved"
    );
}

/// Bouton (1902): misère Nim is P iff some heap is ≥ 2 and the nim-sum is 0, or every heap
/// is ≤ 1 and the number of ones is odd. Heaps ≤ 7: the tame quotient with 2 + 8 elements.
#[test]
fn misere_nim_is_bouton() {
    let q = quotient("0.(3)", 7);
    assert_eq!((q.size(), q.p_size()), (10, 2));
    assert_eq!(q.tame_rank(), Some(3));
    for pos in sums(5, 7) {
        let big = pos.iter().any(|&h| h >= 2);
        let x = pos.iter().fold(0, |a, &h| a ^ h);
        let ones = pos.iter().filter(|&&h| h == 1).count();
        let p = if big { x == 0 } else { ones % 2 == 1 };
        let expect = if p { Outcome::P } else { Outcome::N };
        assert_eq!(q.outcome(&pos).unwrap(), expect, "{pos:?}");
    }
    for (bound, size) in [(0, 1), (1, 2), (3, 6), (7, 10), (15, 18)] {
        let q = quotient("0.(3)", bound);
        assert_eq!(q.size(), size, "nim heaps ≤ {bound}");
        assert!(q.is_tame());
    }
    let t1 = quotient("0.(3)", 3);
    let rel: Vec<&str> = t1
        .presentation()
        .relations
        .iter()
        .map(|r| r.text.as_str())
        .collect();
    assert_eq!(rel, vec!["a^2 = 1", "b^3 = b"]);
}

/// Single-heap misère Grundy values `G⁻(n)`, n = 0..=20, as published in CGSuite's test
/// suite (repository aaron-siegel/cgsuite, `GameHeapTest`, column `MisereNimValue`: Kayles
/// `0.77`, Dawson's Kayles `0.07`, Grundy's game, `S(2,3,7)`, `0.3F`, Nim).
#[test]
fn single_heap_misere_values_match_cgsuite() {
    #[rustfmt::skip] // one row a game
    let rows: &[(&str, [u64; 21])] = &[
        ("0.77", [1, 0, 2, 3, 0, 1, 3, 2, 1, 0, 2, 4, 0, 1, 2, 5, 1, 6, 3, 2, 0]),
        ("0.07", [1, 1, 0, 0, 2, 1, 3, 0, 0, 1, 1, 3, 0, 2, 1, 1, 0, 0, 2, 1, 3]),
        ("grundy", [1, 1, 1, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2]),
        ("S(2,3,7)", [1, 1, 0, 0, 2, 1, 1, 0, 0, 2, 1, 1, 0, 0, 2, 1, 1, 0, 0, 2, 1]),
        ("0.3F", [1, 0, 2, 1, 0, 2, 1, 0, 4, 1, 0, 4, 1, 0, 6, 1, 0, 6, 1, 0, 6]),
        ("0.(3)", [1, 0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20]),
    ];
    for (code, want) in rows {
        let game = Game::parse(code).unwrap();
        for (n, &w) in want.iter().enumerate() {
            let v = misere_grundy(&game, &[n as u64], Budget::DEFAULT).unwrap();
            assert_eq!(v, w, "{code}: G⁻({n})");
        }
    }
    // G⁻ has no sum rule: Kayles 1 + 1 has G⁻ = 1 although G⁻(1) = 0.
    let k = Game::parse("0.77").unwrap();
    assert_eq!(misere_grundy(&k, &[1, 1], Budget::DEFAULT), Ok(1));
}

/// `misere_search` (with and without a quotient covering part of the heaps) against the
/// brute force.
#[test]
fn exact_search_matches_brute_force() {
    for code in [
        "0.07", "0.77", "0.137", "grundy", "4.07", "80.4", "0.3F", "0.(3)",
    ] {
        let game = Game::parse(code).unwrap();
        let mut brute = Brute::new(&game);
        let small =
            MisereQuotient::compute(&game, 4, &QuotientBudget::DEFAULT, &mut || false).unwrap();
        for pos in sums(3, 8) {
            let wins = brute.wins(&pos);
            let expect = if wins { Outcome::N } else { Outcome::P };
            let want_moves = brute.winning_moves(&pos);
            for q in [None, Some(&small)] {
                let ans = misere_search(&game, &pos, q, Budget::DEFAULT, &mut || false).unwrap();
                assert_eq!(ans.outcome, expect, "{code}: {pos:?}");
                assert_eq!(
                    moves_key(&ans.moves),
                    want_moves,
                    "{code}: moves of {pos:?}"
                );
            }
        }
    }
}

#[test]
fn exact_search_budget_and_stop() {
    let game = Game::parse("0.77").unwrap();
    let tiny = Budget::new(100, 1000);
    let r = misere_search(&game, &[30, 31, 33], None, tiny, &mut || false);
    assert!(
        matches!(r, Err(MisereError::SearchBudgetExceeded { .. })),
        "{r:?}"
    );
    let r = misere_grundy(&game, &[40, 41], tiny);
    assert!(
        matches!(r, Err(MisereError::SearchBudgetExceeded { .. })),
        "{r:?}"
    );
    // An N-position: the winning moves are searched one by one, polling `should_stop`.
    let r = misere_search(&game, &[5], None, Budget::DEFAULT, &mut || true);
    assert!(matches!(r, Err(MisereError::Stopped { .. })), "{r:?}");
    let r = misere_search(&game, &[1; 10_001], None, Budget::DEFAULT, &mut || false);
    assert!(matches!(r, Err(MisereError::TooManyHeaps { .. })), "{r:?}");
    let r = misere_search(&game, &[u64::MAX], None, Budget::DEFAULT, &mut || false);
    assert!(matches!(r, Err(MisereError::HeapTooLarge { .. })), "{r:?}");
}

/// Plambeck (2005), "Taming the wild": the misère quotient of `0.123` has 20 elements,
/// 5 of them in P; the pretending function is periodic, so this is the quotient of the whole
/// game. Checked beyond the computed bound against the brute force.
#[test]
fn published_quotient_0_123() {
    let q = quotient("0.123", 30);
    assert_eq!((q.size(), q.p_size()), (20, 5));
    assert!(!q.is_tame());
    let per = *q.periodicity().expect("0.123 is periodic");
    assert_eq!(per.period, 5);
    assert!(per.needed_bound <= 30);
    let mut brute = Brute::new(q.game());
    for pos in sums(2, 45) {
        let expect = if brute.wins(&pos) {
            Outcome::N
        } else {
            Outcome::P
        };
        assert_eq!(q.outcome(&pos).unwrap(), expect, "0.123: {pos:?}");
        let ans = q.winning_moves(&pos).unwrap();
        assert_eq!(moves_key(&ans.moves), brute.winning_moves(&pos), "{pos:?}");
    }
    // Any heap size, through the period.
    assert!(q.phi(1 << 40).is_ok());
}

/// Plambeck (2005); Plambeck & Siegel (2008): `0.75` has the 8-element quotient
/// `R8 = ⟨a, b, c | a² = 1, b³ = b, bc = ab, c² = b²⟩`, `P = {a, b²}`, with `a, b, c` the
/// elements of heaps 1, 2 and 5.
#[test]
fn published_quotient_0_75_is_r8() {
    let q = quotient("0.75", 40);
    assert_eq!((q.size(), q.p_size()), (8, 2));
    assert!(q.periodicity().is_some());
    let (a, b, c) = (q.phi(1).unwrap(), q.phi(2).unwrap(), q.phi(5).unwrap());
    let m = |x, y| q.mul(x, y);
    assert_eq!(m(a, a), 0);
    assert_eq!(m(b, m(b, b)), b);
    assert_eq!(m(b, c), m(a, b));
    assert_eq!(m(c, c), m(b, b));
    assert_eq!(q.p_portion(), {
        let mut v = vec![a, m(b, b)];
        v.sort_unstable();
        v
    });
    let gens: Vec<u64> = q.presentation().generators.iter().map(|g| g.heap).collect();
    assert_eq!(gens, vec![1, 2, 5]);
}

/// Siegel's MisereSolver (`java -jar misere.jar 0.07 -maxheap 30`, as reported by A. Siegel
/// in "Some MisereSolver questions answered", miseregames.wordpress.com, 28 August 2007):
/// `Q_30` of Dawson's Kayles has 360 elements. Heaps are numbered as in the code `0.07` — a
/// heap of n tokens, which is how MisereSolver builds heap options from a code — not as in
/// its normal-play cousin `0.137`, whose heap n+1 has the G-value of heap n of `0.07` but is
/// a different misère game (heap 1 of `0.137` is `*1`, heap 0 of `0.07` is empty).
#[test]
fn published_quotient_dawsons_kayles_q30() {
    let q = quotient("0.07", 30);
    assert_eq!(q.size(), 360);
    assert!(q.periodicity().is_none());
    assert!(!q.is_tame());
}

/// The budget ends a growing computation with a typed error, the engine keeps the last
/// verified quotient, and a later call resumes to the same answer as a fresh run.
#[test]
fn budgets_stop_and_resume() {
    let game = Game::parse("0.07").unwrap();
    let fresh = quotient("0.07", 16);

    let small = QuotientBudget {
        max_quotient: 10,
        ..QuotientBudget::DEFAULT
    };
    let mut e = MisereEngine::new(&game);
    let r = e.extend_to(16, &small, &mut || false);
    assert!(
        matches!(r, Err(MisereError::QuotientTooLarge { .. })),
        "{r:?}"
    );
    let reached = e.bound();
    assert!(reached < 16);
    // What the engine kept is the verified quotient of the heaps done.
    let partial = MisereQuotient::from_engine(&e);
    let direct = quotient("0.07", reached);
    assert_eq!(partial.phi_table(), direct.phi_table());
    assert!(partial.size() <= 10);

    let refused = |budget: QuotientBudget, is: fn(&MisereError) -> bool| {
        let r = MisereQuotient::compute(&game, 16, &budget, &mut || false);
        assert!(r.as_ref().is_err_and(is), "{r:?}");
    };
    refused(
        QuotientBudget {
            max_steps: 1000,
            ..QuotientBudget::DEFAULT
        },
        |e| matches!(e, MisereError::StepBudgetExceeded { .. }),
    );
    refused(
        QuotientBudget {
            max_words: 60,
            ..QuotientBudget::DEFAULT
        },
        |e| matches!(e, MisereError::MemoryBudgetExceeded { .. }),
    );

    let mut polls = 0;
    let mut e = MisereEngine::new(&game);
    let r = e.extend_to(16, &QuotientBudget::DEFAULT, &mut || {
        polls += 1;
        polls > 5
    });
    assert!(matches!(r, Err(MisereError::Stopped { .. })), "{r:?}");
    e.extend_to(16, &QuotientBudget::DEFAULT, &mut || false)
        .unwrap();
    let resumed = MisereQuotient::from_engine(&e);
    assert_eq!(resumed.phi_table(), fresh.phi_table());
    assert_eq!(resumed.monoid(), fresh.monoid());
    assert_eq!(resumed.p_portion(), fresh.p_portion());

    // Queries beyond the bound of a quotient without a periodicity proof.
    assert_eq!(
        fresh.outcome(&[17]),
        Err(MisereError::HeapBeyondBound {
            heap: 17,
            bound: 16
        })
    );
}

/// The closure checks reject wrong candidates: every single change of one heap's element,
/// and every single change of the P-portion, of correct quotients is caught, with a failure
/// no larger than the first position the brute force classifies differently.
#[test]
fn verification_rejects_perturbed_quotients() {
    use super::budget::Meter;
    use super::monoid::word_cmp;
    use super::verify::{least_failure, Gen};
    for code in ["0.07", "0.77", "0.123", "0.(3)", "grundy"] {
        let q = quotient(code, 10);
        let game = q.game().clone();
        let trans = |phi: &[u32], h: u64| option_images(&q, &game, h, |x| phi[x as usize]);
        let gens_of = |phi: &[u32]| -> Vec<Gen> {
            (1..=10u64)
                .filter(|&h| !heap_options(&game, h).unwrap().is_empty())
                .map(|h| Gen {
                    heap: h,
                    g: phi[h as usize],
                    trans: trans(phi, h),
                })
                .collect()
        };
        let words: Vec<Word> = (0..q.size() as u32)
            .map(|x| super::monoid::word_of(&q.least_position(x)))
            .collect();
        let p: Vec<bool> = (0..q.size() as u32).map(|x| q.is_p(x)).collect();
        let mut stop = || false;
        let mut meter = Meter::new(QuotientBudget::DEFAULT, &mut stop);
        let (f, _) =
            least_failure(q.monoid(), &p, &words, &gens_of(q.phi_table()), &mut meter).unwrap();
        assert_eq!(f, None, "{code}: the true quotient passes");
        let mut caught = 0;
        for h in 1..=10usize {
            if heap_options(&game, h as u64).unwrap().is_empty() {
                continue;
            }
            for x in 0..q.size() as u32 {
                if x == q.phi_table()[h] {
                    continue;
                }
                let mut phi = q.phi_table().to_vec();
                phi[h] = x;
                // The least words must be those of the perturbed map; recompute them as the
                // least words among the old ones that still evaluate right is not possible,
                // so only the pass/fail verdict is checked here.
                let (f, _) =
                    least_failure(q.monoid(), &p, &words, &gens_of(&phi), &mut meter).unwrap();
                assert!(f.is_some(), "{code}: Φ({h}) := {x} passed");
                caught += 1;
            }
        }
        for flip in 0..q.size() {
            let mut p2 = p.clone();
            p2[flip] = !p2[flip];
            if flip == 0 && p2[0] {
                continue; // condition 1 (1 ∉ P) is checked by construction, not here
            }
            let (f, _) =
                least_failure(q.monoid(), &p2, &words, &gens_of(q.phi_table()), &mut meter)
                    .unwrap();
            let f = f.unwrap_or_else(|| panic!("{code}: flipping P at {flip} passed"));
            // Every word below the least failure is classified right by the flipped P.
            let mut brute = Brute::new(&game);
            let heaps = super::monoid::word_heaps(&f.word);
            let _ = word_cmp;
            let label = p2[q.element_of(&heaps).unwrap() as usize];
            assert_eq!(
                label,
                brute.wins(&heaps),
                "{code}: the least failure {heaps:?} is misclassified by the flipped P"
            );
            caught += 1;
        }
        assert!(caught > 0);
    }
}

/// Soundness of the periodicity theorem against independent computation: whenever a
/// periodicity is reported at bound N, the quotient computed to a larger bound is the same
/// monoid with the predicted pretending function.
#[test]
fn periodicity_predictions_hold_further_out() {
    let mut rng = Rng(0x915e_0002);
    let mut codes: Vec<String> = ["0.123", "0.75", "0.6", "0.4", "0.51", "0.15", "S(1,2,5)"]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
    for _ in 0..25 {
        let c = random_code(&mut rng);
        if !c.contains('(') {
            codes.push(c);
        }
    }
    let mut proved = 0;
    for code in &codes {
        let game = Game::parse(code).unwrap();
        let small = QuotientBudget {
            max_steps: 4_000_000,
            ..QuotientBudget::DEFAULT
        };
        let Ok(q) = MisereQuotient::compute(&game, 40, &small, &mut || false) else {
            continue;
        };
        let Some(per) = q.periodicity().copied() else {
            continue;
        };
        proved += 1;
        assert!(per.needed_bound <= 40);
        let far = 40 + 2 * per.period + 12;
        let q2 =
            MisereQuotient::compute(&game, far, &QuotientBudget::DEFAULT, &mut || false).unwrap();
        assert_eq!(q2.monoid(), q.monoid(), "{code}");
        assert_eq!(q2.p_portion(), q.p_portion(), "{code}");
        for h in 0..=far {
            assert_eq!(q2.phi(h).unwrap(), q.phi(h).unwrap(), "{code}: Φ({h})");
        }
    }
    assert!(proved >= 7, "only {proved} periodic codes");
    // Out of the theorem's scope: never reported.
    for code in ["0.(3)", "grundy", "80.4"] {
        assert!(quotient(code, 20).periodicity().is_none(), "{code}");
    }
}

/// Every sum of up to three heaps with at most 44 (Kayles, `Q_44`) or 36 (Dawson's Kayles,
/// `Q_33`, 638 elements) tokens in all, so single heaps beyond the last expansions, against
/// the brute force. About a minute in release builds.
#[test]
#[ignore = "heavy: run with --release --ignored"]
fn kayles_and_dawson_larger_heaps() {
    for (code, bound, tokens) in [("0.77", 44u64, 44u64), ("0.07", 33, 36)] {
        let q = quotient(code, bound);
        let mut brute = Brute::new(q.game());
        let mut checked = 0;
        for a in 0..=bound {
            for b in a..=bound.min(tokens - a) {
                for c in b..=bound.min(tokens - a - b) {
                    let pos = vec![a, b, c];
                    let expect = if brute.wins(&pos) {
                        Outcome::N
                    } else {
                        Outcome::P
                    };
                    let ans = q.winning_moves(&pos).unwrap();
                    assert_eq!(ans.outcome, expect, "{code}: {pos:?}");
                    assert_eq!(moves_key(&ans.moves), brute.winning_moves(&pos), "{pos:?}");
                    checked += 1;
                }
            }
        }
        assert!(checked > 1500, "{code}: {checked}");
    }
}

/// The quotients the engine returns (built incrementally, with the shortcut for
/// conservative extensions) pass a fresh, complete least-failure check.
#[test]
fn final_quotients_pass_a_fresh_full_check() {
    use super::budget::Meter;
    use super::verify::{least_failure, Gen};
    for (code, bound) in [
        ("0.77", 80),
        ("0.07", 20),
        ("0.123", 30),
        ("0.75", 30),
        ("grundy", 28),
        ("0.(3)", 15),
        ("4.07", 20),
    ] {
        let q = quotient(code, bound);
        let game = q.game().clone();
        let gens: Vec<Gen> = (1..=bound)
            .filter(|&h| !heap_options(&game, h).unwrap().is_empty())
            .map(|h| Gen {
                heap: h,
                g: q.phi(h).unwrap(),
                trans: option_images(&q, &game, h, |x| q.phi(x).unwrap()),
            })
            .collect();
        let words: Vec<Word> = (0..q.size() as u32)
            .map(|x| super::monoid::word_of(&q.least_position(x)))
            .collect();
        let p: Vec<bool> = (0..q.size() as u32).map(|x| q.is_p(x)).collect();
        assert!(!p[0]);
        let mut stop = || false;
        let mut meter = Meter::new(QuotientBudget::DEFAULT, &mut stop);
        let (f, _) = least_failure(q.monoid(), &p, &words, &gens, &mut meter).unwrap();
        assert_eq!(f, None, "{code}");
        // Every element's least position evaluates to it.
        for x in 0..q.size() as u32 {
            assert_eq!(q.element_of(&q.least_position(x)).unwrap(), x, "{code}");
        }
        // The presentation's normal forms evaluate to their elements.
        let pres = q.presentation();
        for (x, nf) in pres.normal_forms.iter().enumerate() {
            let v = nf.iter().enumerate().fold(0u32, |acc, (i, &e)| {
                q.mul(
                    acc,
                    q.monoid().pow(pres.generators[i].element, u64::from(e)),
                )
            });
            assert_eq!(v, x as u32, "{code}: normal form of {}", pres.names[x]);
        }
        for r in &pres.relations {
            let val = |w: &[u32]| {
                w.iter().enumerate().fold(0u32, |acc, (i, &e)| {
                    q.mul(
                        acc,
                        q.monoid().pow(pres.generators[i].element, u64::from(e)),
                    )
                })
            };
            assert_eq!(val(&r.lhs), val(&r.rhs), "{code}: {}", r.text);
        }
    }
}

/// Timing of the benchmark, `Q_30` of Dawson's Kayles (release builds: about half a
/// second on one core of the development machine).
#[test]
#[ignore = "timing: run with --release --ignored --nocapture"]
fn timing_dawsons_kayles_q30() {
    let game = Game::parse("0.07").unwrap();
    let t = std::time::Instant::now();
    let q = MisereQuotient::compute(&game, 30, &QuotientBudget::DEFAULT, &mut || false).unwrap();
    let elapsed = t.elapsed();
    eprintln!(
        "Q_30(0.07): |Q| = {}, |P| = {}, {} generators, {} relations, {:?}, {:?}",
        q.size(),
        q.p_size(),
        q.presentation().generators.len(),
        q.presentation().relations.len(),
        q.stats(),
        elapsed
    );
    assert_eq!(q.size(), 360);
    if !cfg!(debug_assertions) {
        assert!(elapsed.as_secs() < 20, "{elapsed:?}");
    }
}

/// Kayles: the quotient stops growing at heap 27 and the pretending function is proved
/// periodic (preperiod 71, period 12 — the normal-play period and preperiod of Kayles), so
/// this is the quotient of the whole game: 40 elements, 9 in P. The outcomes are checked
/// against the brute force by `kayles_and_dawson_larger_heaps` (all sums of three heaps with
/// at most 44 tokens) and, below, against the search on larger sums.
#[test]
fn kayles_whole_game_quotient() {
    let q = quotient("0.77", 170);
    assert_eq!((q.size(), q.p_size()), (40, 9));
    assert_eq!(q.expansions(), &[1, 2, 5, 9, 12, 25, 27]);
    let per = *q.periodicity().expect("proved at 170");
    assert_eq!((per.preperiod, per.period), (71, 12));
    assert!(!q.is_tame());
    let game = q.game().clone();
    let small = quotient("0.77", 20);
    for pos in [
        vec![30, 31],
        vec![25, 27, 3],
        vec![40, 2, 2],
        vec![33, 21, 1],
    ] {
        let ans = misere_search(&game, &pos, Some(&small), Budget::DEFAULT, &mut || false).unwrap();
        let want = q.winning_moves(&pos).unwrap();
        assert_eq!(ans.outcome, want.outcome, "{pos:?}");
        assert_eq!(moves_key(&ans.moves), moves_key(&want.moves), "{pos:?}");
    }
    // Far beyond the computed heaps, through the period.
    let big = 1_000_000_007u64;
    assert_eq!(q.phi(big).unwrap(), q.phi(71 + (big - 71) % 12).unwrap());
}

/// The tame quotients are exactly those of misère Nim: Nim itself at every bound, and the
/// first wild quotients (R8 of `0.75`, `0.123`) are not tame.
#[test]
fn tameness() {
    for (bound, rank) in [(0, 0), (1, 1), (2, 2), (3, 2), (5, 3), (7, 3), (8, 4)] {
        assert_eq!(
            quotient("0.(3)", bound).tame_rank(),
            Some(rank),
            "nim ≤ {bound}"
        );
    }
    // Games whose heaps are all Nim heaps in disguise: 0.3 (take one token) has heaps
    // equal to *0 and *1 alternately.
    assert_eq!(quotient("0.3", 20).tame_rank(), Some(1));
    assert_eq!(quotient("0.75", 20).tame_rank(), None);
    assert_eq!(quotient("0.123", 20).tame_rank(), None);
    assert_eq!(quotient("0.07", 12).tame_rank(), None);
}

/// The quotients are reduced (distinct elements are told apart by some `z`: `xz ∈ P` for
/// exactly one of them), checked directly on the multiplication table — so, outcomes being
/// right, no smaller monoid describes the game and `|Q|` is exact.
#[test]
fn quotients_are_reduced_bipartite_monoids() {
    for (code, bound) in [
        ("0.77", 40),
        ("0.07", 20),
        ("0.123", 20),
        ("0.75", 20),
        ("4.07", 16),
    ] {
        let q = quotient(code, bound);
        let n = q.size() as u32;
        let m = q.monoid();
        for x in 0..n {
            assert_eq!(m.mul(0, x), x, "{code}: identity");
            for y in 0..n {
                assert_eq!(m.mul(x, y), m.mul(y, x), "{code}: commutative");
            }
        }
        for x in 0..n {
            for y in x + 1..n {
                assert!(
                    (0..n).any(|z| q.is_p(m.mul(x, z)) != q.is_p(m.mul(y, z))),
                    "{code}: {} and {} are indistinguishable",
                    q.name(x),
                    q.name(y)
                );
            }
        }
        assert!(!q.is_p(0), "{code}: the empty position is N");
    }
}

/// A quotient rebuilt from its parts answers like the original, derives the same
/// presentation, tameness and periodicity, and malformed parts are refused (not a panic).
#[test]
fn parts_round_trip_and_malformed_parts_are_refused() {
    for (code, bound) in [("0.123", 12), ("0.77", 80), ("0.07", 20), ("0.(3)", 9)] {
        let q = quotient(code, bound);
        let game = Game::parse(code).unwrap();
        let back = MisereQuotient::from_parts(&game, q.parts()).unwrap();
        assert_eq!(back.size(), q.size());
        assert_eq!(back.p_portion(), q.p_portion());
        assert_eq!(back.phi_table(), q.phi_table());
        assert_eq!(back.presentation(), q.presentation());
        assert_eq!(back.tame_rank(), q.tame_rank());
        assert_eq!(back.periodicity(), q.periodicity());
        for heaps in sums(3, bound.min(8)) {
            assert_eq!(back.winning_moves(&heaps), q.winning_moves(&heaps));
        }
        let mut broken = q.parts();
        broken.table.pop();
        assert!(MisereQuotient::from_parts(&game, broken).is_err());
        let mut broken = q.parts();
        broken.phi[1] = broken.size as u32;
        assert!(MisereQuotient::from_parts(&game, broken).is_err());
        let mut broken = q.parts();
        broken.p.push(true);
        assert!(MisereQuotient::from_parts(&game, broken).is_err());
        let mut broken = q.parts();
        broken.bound += 1;
        assert!(MisereQuotient::from_parts(&game, broken).is_err());
    }
}

/// An engine resumed from a saved `Q_k` (its parts, checked again) computes exactly what a
/// fresh engine computes: the same table, P-portion, Φ, least words and expansions, at every
/// heap k it could have been saved at.
#[test]
fn resumed_engines_compute_what_fresh_ones_do() {
    for (code, bound) in [
        ("0.07", 24),
        ("0.77", 40),
        ("0.123", 25),
        ("0.(3)", 12),
        ("grundy", 22),
        ("0.26", 22),
        ("0.57", 20),
        ("0.54", 20),
        ("4.07", 16),
    ] {
        let game = Game::parse(code).unwrap();
        let mut fresh = MisereEngine::new(&game);
        fresh
            .extend_to(bound, &QuotientBudget::DEFAULT, &mut || false)
            .unwrap();
        let want = fresh.parts();
        let mut engine = MisereEngine::new(&game);
        for k in 0..bound {
            engine
                .extend_to(k, &QuotientBudget::DEFAULT, &mut || false)
                .unwrap();
            let mut resumed =
                MisereEngine::resume(&game, engine.parts(), &QuotientBudget::DEFAULT, &mut || {
                    false
                })
                .unwrap_or_else(|e| panic!("{code}: Q_{k} refused: {e}"));
            assert_eq!(resumed.parts(), engine.parts(), "{code} Q_{k}");
            resumed
                .extend_to(bound, &QuotientBudget::DEFAULT, &mut || false)
                .unwrap();
            assert_eq!(resumed.parts(), want, "{code}: from Q_{k} to Q_{bound}");
        }
    }
}

/// A saved quotient that is not the engine's own is refused, whatever was changed: a P bit,
/// one heap's element, a least word, a product (commutatively or not), the numbering of two
/// elements, the expansions; and a saved quotient of another game. Nothing panics.
#[test]
fn tampered_saved_quotients_are_refused() {
    let refuses = |code: &str, parts: QuotientParts, what: &str| {
        let game = Game::parse(code).unwrap();
        let r = MisereEngine::resume(&game, parts, &QuotientBudget::DEFAULT, &mut || false);
        assert!(
            matches!(r, Err(MisereError::Unverified { .. })),
            "{code}: {what}: {:?}",
            r.map(|e| e.bound())
        );
    };
    for (code, bound) in [("0.07", 20), ("0.123", 20), ("0.77", 30), ("grundy", 20)] {
        let game = Game::parse(code).unwrap();
        let mut e = MisereEngine::new(&game);
        e.extend_to(bound, &QuotientBudget::DEFAULT, &mut || false)
            .unwrap();
        let good = e.parts();
        let size = good.size;
        assert!(size > 3, "{code}");
        for x in 0..size {
            let mut t = good.clone();
            t.p[x] = !t.p[x];
            refuses(code, t, &format!("P bit of {x}"));
        }
        for h in 1..=bound as usize {
            let mut t = good.clone();
            t.phi[h] = (t.phi[h] + 1) % size as u32;
            refuses(code, t, &format!("Φ({h})"));
        }
        for x in 1..size {
            let mut t = good.clone();
            t.words[x] = t.words[x - 1].clone();
            refuses(code, t, &format!("least word of {x}"));
        }
        // A product changed on both sides (still commutative), and on one side only.
        let (a, b) = (size - 1, size - 2);
        let mut t = good.clone();
        let v = (t.table[a * size + b] + 1) % size as u32;
        t.table[a * size + b] = v;
        t.table[b * size + a] = v;
        refuses(code, t, "a product");
        let mut t = good.clone();
        t.table[a * size + b] = (t.table[a * size + b] + 1) % size as u32;
        refuses(code, t, "a product on one side");
        // The numbering of two elements swapped consistently: the same monoid, not canonical.
        let mut t = good.clone();
        let swap = |x: u32| match x as usize {
            x if x == a => b as u32,
            x if x == b => a as u32,
            _ => x,
        };
        let mut table = vec![0u32; size * size];
        for x in 0..size {
            for y in 0..size {
                table[swap(x as u32) as usize * size + swap(y as u32) as usize] =
                    swap(good.table[x * size + y]);
            }
        }
        t.table = table;
        t.p.swap(a, b);
        t.words.swap(a, b);
        t.phi = t.phi.iter().map(|&x| swap(x)).collect();
        refuses(code, t, "two elements renumbered");
        let mut t = good.clone();
        t.expansions.push(bound + 1);
        refuses(code, t, "expansions");
        let mut t = good.clone();
        t.table.pop();
        refuses(code, t, "a short table");
        // Another game's quotient.
        let other = if code == "0.07" { "0.137" } else { "0.07" };
        refuses(other, good.clone(), "another game");
    }
}

/// The figures MisereSolver agrees with: `Q_66` of 0.26 has 512 elements and |P| = 121,
/// `Q_72` of 0.57 490 and 122, `Q_100` of 0.54 510 and 119; resuming from the saved `Q_{n−1}`
/// gives the same, and checking a saved quotient of this size costs milliseconds.
#[test]
#[ignore = "heavy: run with --release --ignored"]
fn reference_quotients_and_resuming_them() {
    let budget = QuotientBudget {
        max_steps: 50 * QuotientBudget::DEFAULT.max_steps,
        max_words: 2 * QuotientBudget::DEFAULT.max_words,
        ..QuotientBudget::DEFAULT
    };
    for (code, bound, q_size, p_size) in [
        ("0.26", 66, 512, 121),
        ("0.57", 72, 490, 122),
        ("0.54", 100, 510, 119),
    ] {
        let game = Game::parse(code).unwrap();
        let t = std::time::Instant::now();
        let mut e = MisereEngine::new(&game);
        e.extend_to(bound - 1, &budget, &mut || false).unwrap();
        let before = e.parts();
        e.extend_to(bound, &budget, &mut || false).unwrap();
        let fresh = t.elapsed();
        assert_eq!(e.sizes(), (q_size, p_size), "{code} Q_{bound}");
        let t = std::time::Instant::now();
        let mut r = MisereEngine::resume(&game, before, &budget, &mut || false).unwrap();
        let check = t.elapsed();
        r.extend_to(bound, &budget, &mut || false).unwrap();
        assert_eq!(r.parts(), e.parts(), "{code}");
        let t = std::time::Instant::now();
        let last = MisereEngine::resume(&game, e.parts(), &budget, &mut || false).unwrap();
        let check_last = t.elapsed();
        assert_eq!(last.parts(), e.parts());
        eprintln!(
            "{code} Q_{bound}: {q_size}/{p_size} in {fresh:.2?}; checking the saved Q_{} took {check:.2?}, \
             Q_{bound} {check_last:.2?}",
            bound - 1
        );
    }
}
