//! Unit tests of the periodicity detector (`periodicity.rs`).

use super::super::naive::tests::Rng;
use super::*;

/// `pre` irregular values, then a random block of length `p` repeated, up to `len`; the
/// last irregular value G(pre − 1) differs from its periodic continuation.
fn periodic(seed: u64, pre: usize, p: usize, len: usize, alphabet: u64) -> Vec<u8> {
    let mut rng = Rng(seed);
    let block: Vec<u8> = (0..p).map(|_| (rng.next() % alphabet) as u8).collect();
    let mut g: Vec<u8> = (0..pre).map(|_| (rng.next() % alphabet) as u8).collect();
    g.extend((0..len - pre).map(|i| block[i % p]));
    g[pre - 1] = ((u64::from(block[p - 1]) + 1) % alphabet) as u8;
    g
}

/// Thm 4.1 for `.1777` (h = 2, t = 4): G is needed up to 2e + 2p + 4.
fn need_1777(e: usize, p: usize) -> usize {
    2 * e + 2 * p + 5
}

fn game() -> Game {
    Game::parse("0.1777").unwrap()
}

#[test]
fn long_period_found_exactly_at_the_theorem_bound() {
    // Window 256: the candidate pass sees periods up to 128; p = 1000 needs the sweep.
    let (pre, p) = (3000, 1000);
    let need = need_1777(pre - 1, p);
    let g = periodic(11, pre, p, need, 5);
    let mut d = Detector::with_window(&game(), 256);
    let Periodicity::Proved(proof) = *d.check_now(&g[..]) else {
        panic!("not proved");
    };
    assert_eq!(
        (proof.preperiod, proof.period, proof.saltus, proof.proved_at),
        (pre as u64, p as u64, 0, need as u64)
    );
    assert_eq!(proof.theorem, Theorem::Periodicity41);
    // One value fewer: the theorem's hypothesis fails, no claim.
    let mut d = Detector::with_window(&game(), 256);
    assert_eq!(*d.check_now(&g[..need - 1]), Periodicity::Unknown);
}

#[test]
fn one_mismatch_deep_inside_the_tail_moves_the_preperiod_or_blocks_the_claim() {
    let (pre, p) = (3000, 1000);
    let need = need_1777(pre - 1, p);
    let mut g = periodic(12, pre, p, 3 * need, 5);
    // Flip one value between the first and the second period of the tail.
    let x = pre + p + p / 3;
    g[x] = (g[x] + 1) % 5;
    let need_x = need_1777(x, p);
    for len in [need, need + 1000, need_x - 1] {
        let mut d = Detector::with_window(&game(), 256);
        assert_eq!(*d.check_now(&g[..len]), Periodicity::Unknown, "len {len}");
    }
    let mut d = Detector::with_window(&game(), 256);
    let proof = *d.check_now(&g[..need_x]).proof().expect("proved");
    assert_eq!((proof.preperiod, proof.period), (x as u64 + 1, p as u64));
    assert_eq!(proof.proved_at, need_x as u64);
    // The same values in every width give the same verdict.
    let wide: Vec<u32> = g[..need_x].iter().map(|&v| u32::from(v)).collect();
    let mut d = Detector::with_window(&game(), 256);
    assert_eq!(d.check_now(&wide[..]).proof(), Some(&proof));
}

#[test]
fn incremental_checks_prove_a_long_period_soon_after_the_bound() {
    let (pre, p) = (2000, 700);
    let need = need_1777(pre - 1, p);
    let g = periodic(13, pre, p, 2 * need, 4);
    let mut d = Detector::with_window(&game(), 256);
    let mut len = 0;
    while len < g.len() && matches!(d.result(), Periodicity::Unknown) {
        len += 97;
        d.check(&g[..len.min(g.len())]);
    }
    let proof = *d.result().proof().expect("proved");
    assert_eq!((proof.preperiod, proof.period), (pre as u64, p as u64));
    assert!(
        // The sweep saw the square before the bound and checked again at it.
        len >= need && len < need + 97,
        "proved at {len}"
    );
}

#[test]
fn a_deferred_kmp_pass_proves_the_same_periods_with_fewer_passes() {
    // .1777: only Thm 4.1, h = 2 — a proof needs its stretch over half the values. Long
    // irregular prefixes keep the 256-difference window aperiodic, so passes are deferred.
    assert!(Detector::new(&game()).half);
    for (seed, pre, p) in [
        (21, 6000, 40),
        (22, 9000, 100),
        (23, 4000, 7),
        (24, 12_000, 1),
    ] {
        let g = periodic(seed, pre, p, 4 * need_1777(pre - 1, p), 4);
        let run = |defer: bool| {
            let mut d = Detector::with_window(&game(), 256);
            d.defer = defer;
            let mut len = 0;
            while len < g.len() && matches!(d.result(), Periodicity::Unknown) {
                len += 97;
                d.check(&g[..len.min(g.len())]);
            }
            (*d.result().proof().expect("proved"), len, d.runs)
        };
        let (with, at_with, runs_with) = run(true);
        let (without, at_without, runs_without) = run(false);
        assert_eq!(with, without, "seed {seed}");
        assert_eq!((with.preperiod, with.period), (pre as u64, p as u64));
        // Both saw the candidate before its bound and checked again exactly at it.
        let need = need_1777(pre - 1, p);
        for at in [at_with, at_without] {
            assert!(at >= need && at < need + 97, "proved at {at}, bound {need}");
        }
        assert!(
            runs_with < runs_without,
            "{runs_with} vs {runs_without} passes"
        );
    }
}

#[test]
fn period_above_the_kmp_window_at_full_scale() {
    // p > 2^20: invisible to the 2^21-difference candidate window; found by the sweep.
    let (pre, p) = (100, (1 << 21) + 12_345);
    let need = need_1777(pre - 1, p);
    let g = periodic(14, pre, p, need, 200);
    let proof = *detect(&game(), &g[..]).proof().expect("proved");
    assert_eq!(
        (proof.preperiod, proof.period, proof.proved_at),
        (pre as u64, p as u64, need as u64)
    );
    assert_eq!(detect(&game(), &g[..need - 1]), Periodicity::Unknown);
}
