//! Long periods: every square suffix of the difference sequence, proposed by fingerprints and
//! confirmed by direct comparison.
//!
//! Let `δ(i) = G(i+1) − G(i)` for `0 ≤ i < D` (D = len − 1). Every theorem that proves a
//! period p (Thm 4.1 with h ≥ 2 moves' worth of heaps, and Thms 6.8–6.10) needs δ to be
//! p-periodic on a stretch of at least 2p values that ends at the last computed value — i.e.
//! δ must end with a *square* `ww`, `|w| = p`. So the long-period search asks, for every
//! `p ≤ D/2` at once: does `δ[D−2p, D−p) = δ[D−p, D)`?
//!
//! **Fingerprints (proposal only).** Read δ backwards, `x_j = δ(D−1−j)`, and let
//! `R(m) = Σ_{j<m} x_j·B^(m−1−j) mod P` (Horner: `R(m+1) = R(m)·B + x_m`) with the Mersenne
//! prime `P = 2^61 − 1` and a fixed base B. The last block `δ[D−p, D)` is `x_0…x_{p−1}`, with
//! fingerprint `R(p)`; the block before it is `x_p…x_{2p−1}`, with fingerprint
//! `R(2p) − R(p)·B^p`. If the two blocks are equal then `R(2p) = R(p)·(B^p + 1)` — always, so
//! **no square suffix is ever missed**. One backward pass keeps three accumulators: `R(p)`,
//! `B^p`, and `R(2p)`, which advances two values per step as
//! `R(2p) = R(2p−2)·B² + (x_{2p−2}·B + x_{2p−1})` (one multiplication on its dependency
//! chain); five multiplications mod P per p
//! and 1.5 reads of δ per p. Unequal blocks collide with probability at most `2p/P` per p (a
//! nonzero polynomial of degree < 2p has fewer than 2p roots), so false proposals are rare and
//! cost one failed comparison each.
//!
//! **Decision (exact).** A proposed p is accepted only when `δ(j) = δ(j−p)` holds for every
//! `j ∈ [D−p, D)` by direct comparison; then the comparison runs on backwards to the last index
//! `f` with `δ(f) ≠ δ(f−p)`, which gives the last irregular value `e = f − p` exactly (−1 when
//! there is none). A p that is a multiple of an accepted smaller one is skipped: by Fine–Wilf
//! (a stretch of length ≥ p + q with periods p and q also has period gcd(p, q)) the least
//! period of the square tail divides it; so are multiples p of a short period q that the candidate pass
//! has already examined on a stretch of length m ≥ p (if δ is p-periodic on 2p values and its
//! last p values are q-periodic, q | p, the whole 2p values are q-periodic: the square adds
//! nothing; a tail of period 4 makes every multiple of 4 a square). Proposals are
//! confirmed as they come, so the sweep keeps nothing per p. No fingerprint ever decides a
//! claim.
//!
//! **Cost.** One pass is O(D) time and O(1) memory besides the values; the detector runs it at
//! geometrically spaced lengths ([`crate::octal::periodicity::Detector`]), so the amortised cost is a
//! few multiplications per computed value, and it runs only once there are more values than
//! the candidate window covers. Subtraction-type games (every move leaves at most one heap, h = 1)
//! could prove a period from a tail of `p + t` values; their long periods are found once the
//! tail reaches 2p.

use crate::octal::engine::pool::share;
use crate::octal::values::Cell;

const P: u64 = (1 << 61) - 1;
/// A fixed base (any value in [2, P−2] works; fixed so that results are reproducible).
const BASE: u64 = 0x1d2f_4b67_a9e3_5c11 % P;

#[inline(always)]
fn mul(a: u64, b: u64) -> u64 {
    let x = u128::from(a) * u128::from(b);
    let lo = (x as u64) & P;
    let hi = (x >> 61) as u64;
    let s = lo + hi;
    if s >= P {
        s - P
    } else {
        s
    }
}

#[inline(always)]
fn add(a: u64, b: u64) -> u64 {
    let s = a + b;
    if s >= P {
        s - P
    } else {
        s
    }
}

/// δ(i) for the values `g`, as a field element (the u32 difference, wrapping, is < P).
#[inline(always)]
fn delta<T: Cell>(g: &[T], i: usize) -> u64 {
    u64::from(g[i + 1].get().wrapping_sub(g[i].get()))
}

/// A confirmed square tail: δ is `period`-periodic after the last irregular index `e`
/// (`δ(e) ≠ δ(e + period)`, or e = −1), over at least `2·period` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SquareTail {
    pub e: i64,
    pub period: usize,
}

/// `B^e mod P`.
fn pow(mut e: usize) -> u64 {
    let (mut acc, mut b) = (1u64, BASE);
    while e > 0 {
        if e & 1 == 1 {
            acc = mul(acc, b);
        }
        b = mul(b, b);
        e >>= 1;
    }
    acc
}

/// The sweep's state after half-length p: `ra = R(p)`, `pa = B^p`, `rb = R(2p)`.
#[derive(Debug, Clone, Copy)]
struct State {
    ra: u64,
    pa: u64,
    rb: u64,
}

/// Below this many differences the sweep runs on one thread.
const PARALLEL_SWEEP: usize = 1 << 22;

/// Every p with `p_min ≤ p ≤ D/2` such that δ of `g` ends with a square of half-length p,
/// least first, each with its exact last irregular index. `known` lists `(q, m)`: δ is
/// q-periodic on its last m values (short periods the caller has examined). A p that is a
/// multiple of such a q (or of an accepted smaller p) with `p ≤ m` is skipped: its square would
/// lie inside that q-periodic stretch, which the caller has already judged. So a short-period
/// tail (where every multiple is a square) costs no memory and no comparisons.
///
/// With a `pool` (long sequences) the half-lengths are split into one range per thread: each
/// range starts from `R(p)` and `R(2p)` at its first p, which come from hashes of pieces of δ
/// computed side by side and joined (`R(a + b) = R(a)·B^b + R(piece)`); each range proposes and
/// confirms its own squares, and the ranges' results are merged in order — the same list as on
/// one thread (see the merge).
pub(crate) fn square_tails<T: Cell>(
    g: &[T],
    p_min: usize,
    known: &[(usize, usize)],
    pool: Option<&rayon::ThreadPool>,
) -> Vec<SquareTail> {
    tails(g, p_min, known, pool, PARALLEL_SWEEP)
}

/// [`square_tails`], on the pool's threads from `parallel_from` differences on (tests: any).
fn tails<T: Cell>(
    g: &[T],
    p_min: usize,
    known: &[(usize, usize)],
    pool: Option<&rayon::ThreadPool>,
    parallel_from: usize,
) -> Vec<SquareTail> {
    let Some(d) = g.len().checked_sub(1) else {
        return Vec::new();
    };
    let p_min = p_min.max(1);
    if d < 2 * p_min {
        return Vec::new();
    }
    let known: Vec<(usize, usize)> = known.iter().copied().filter(|&(q, _)| q >= 1).collect();
    let threads = pool.map_or(1, |p| p.current_num_threads() + 1);
    let start = State {
        ra: 0,
        pa: 1,
        rb: 0,
    };
    let ranges = match pool {
        Some(pool) if threads > 1 && d >= parallel_from => sweep_parallel(g, p_min, &known, pool),
        _ => return sweep(g, 1, d / 2, start, p_min, &known),
    };
    // Merge in order. A range's own skipping matches one thread's unless a square it accepted
    // is ruled out by an earlier range's (a multiple inside its stretch): then its later
    // decisions may differ, and the range is swept again knowing every earlier square.
    let mut skip = known;
    let mut accepted: Vec<SquareTail> = Vec::new();
    for range in ranges {
        let ruled_out = |t: &SquareTail| {
            skip.iter()
                .any(|&(q, m)| t.period.is_multiple_of(q) && t.period <= m)
        };
        let found = if range.found.iter().any(ruled_out) {
            sweep(g, range.from, range.to, range.start, p_min, &skip)
        } else {
            range.found
        };
        for tail in found {
            // δ is p-periodic on its last d − e − 1 values.
            skip.push((tail.period, (d as i64 - tail.e - 1) as usize));
            accepted.push(tail);
        }
    }
    accepted
}

/// What [`sweep_parallel`] found in one range of half-lengths, and where the range starts.
#[derive(Debug)]
struct Range {
    from: usize,
    to: usize,
    start: State,
    found: Vec<SquareTail>,
}

/// The half-lengths `from..=to` from the state after `from − 1`: every p ≥ `p_min` whose
/// fingerprints match and that `known` does not rule out, confirmed (with its last irregular
/// index). Accepted squares also rule out their multiples here, as on one thread; the caller's
/// merge does the same across ranges.
fn sweep<T: Cell>(
    g: &[T],
    from: usize,
    to: usize,
    start: State,
    p_min: usize,
    known: &[(usize, usize)],
) -> Vec<SquareTail> {
    let d = g.len() - 1;
    let x = |j: usize| delta(g, d - 1 - j);
    let mut skip: Vec<(usize, usize)> = known.to_vec();
    let mut found: Vec<SquareTail> = Vec::new();
    let State {
        mut ra,
        mut pa,
        mut rb,
    } = start;
    let b2 = mul(BASE, BASE);
    for p in from..=to {
        ra = add(mul(ra, BASE), x(p - 1));
        pa = mul(pa, BASE);
        rb = add(mul(rb, b2), add(mul(x(2 * p - 2), BASE), x(2 * p - 1)));
        if p >= p_min
            && rb == mul(ra, add(pa, 1))
            && !skip.iter().any(|&(q, m)| p % q == 0 && p <= m)
        {
            if let Some(e) = confirm(g, p) {
                found.push(SquareTail { e, period: p });
                skip.push((p, (d as i64 - e - 1) as usize));
            }
        }
    }
    found
}

/// [`sweep`] over every half-length, one range per thread of `pool` and the caller.
fn sweep_parallel<T: Cell>(
    g: &[T],
    p_min: usize,
    known: &[(usize, usize)],
    pool: &rayon::ThreadPool,
) -> Vec<Range> {
    let d = g.len() - 1;
    let half = d / 2;
    let threads = pool.current_num_threads() + 1;
    // Range t covers half-lengths (starts[t], starts[t + 1]].
    let starts: Vec<usize> = (0..=threads).map(|t| half * t / threads).collect();
    // The prefix hashes needed: R(s) and R(2s) at every range's start, from pieces of x that
    // end at those points, split further so that every thread hashes about as much.
    let mut cuts: Vec<usize> = starts[1..threads]
        .iter()
        .flat_map(|&s| [s, 2 * s])
        .collect();
    let end = cuts.iter().copied().max().unwrap_or(0);
    cuts.extend((0..=2 * threads).map(|k| end * k / (2 * threads)));
    cuts.sort_unstable();
    cuts.dedup();
    let x = |j: usize| delta(g, d - 1 - j);
    let pieces: Vec<(usize, usize)> = cuts.windows(2).map(|w| (w[0], w[1])).collect();
    let mut hashes = vec![0u64; pieces.len()];
    share(pool, hashes.iter_mut().zip(&pieces).collect(), &|(
        h,
        &(a, b),
    )| {
        // Four quarters side by side (four independent multiplication chains), then joined.
        let q = (b - a) / 4;
        let mut r = [0u64; 4];
        for j in 0..q {
            for (k, rk) in r.iter_mut().enumerate() {
                *rk = add(mul(*rk, BASE), x(a + k * q + j));
            }
        }
        let mut joined = 0u64;
        for &rk in &r {
            joined = add(mul(joined, pow(q)), rk);
        }
        for j in a + 4 * q..b {
            joined = add(mul(joined, BASE), x(j));
        }
        *h = joined;
    });
    // R at every cut, joining the pieces in order.
    let mut prefix = vec![(0usize, 0u64)];
    for (&(a, b), &h) in pieces.iter().zip(&hashes) {
        let r = prefix.last().expect("a first cut").1;
        debug_assert_eq!(prefix.last().expect("a first cut").0, a);
        prefix.push((b, add(mul(r, pow(b - a)), h)));
    }
    let at = |m: usize| {
        prefix
            .binary_search_by_key(&m, |&(c, _)| c)
            .map(|i| prefix[i].1)
            .expect("every range start is a cut")
    };
    let mut ranges: Vec<Range> = (0..threads)
        .map(|t| {
            let s = starts[t];
            Range {
                from: s + 1,
                to: starts[t + 1],
                start: if s == 0 {
                    State {
                        ra: 0,
                        pa: 1,
                        rb: 0,
                    }
                } else {
                    State {
                        ra: at(s),
                        pa: pow(s),
                        rb: at(2 * s),
                    }
                },
                found: Vec::new(),
            }
        })
        .collect();
    share(pool, ranges.iter_mut().collect(), &|r| {
        r.found = sweep(g, r.from, r.to, r.start, p_min, known);
    });
    ranges
}

/// Exact check that δ ends with a square of half-length p; then the last irregular index.
fn confirm<T: Cell>(g: &[T], p: usize) -> Option<i64> {
    let d = g.len() - 1;
    // Square: δ(j) = δ(j − p) for j ∈ [d − p, d).
    if (d - p..d).any(|j| delta(g, j) != delta(g, j - p)) {
        return None;
    }
    // Extend backwards to the last mismatch f (j ≥ p); e = f − p.
    let mut j = d - p;
    while j > p {
        j -= 1;
        if delta(g, j) != delta(g, j - p) {
            return Some(j as i64 - p as i64);
        }
    }
    Some(-1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::octal::naive::tests::Rng;

    /// A random sequence: `pre` irregular values, then a random block of length `p` repeated.
    pub(crate) fn periodic(
        rng: &mut Rng,
        pre: usize,
        p: usize,
        len: usize,
        alphabet: u64,
    ) -> Vec<u16> {
        let block: Vec<u16> = (0..p).map(|_| (rng.next() % alphabet) as u16).collect();
        let mut g: Vec<u16> = (0..pre).map(|_| (rng.next() % alphabet) as u16).collect();
        g.extend((0..len - pre).map(|i| block[i % p]));
        g[0] = 0;
        if pre > 0 {
            // The last irregular value differs from its periodic continuation.
            g[pre - 1] = (block[(p - 1) % p] + 1) % alphabet as u16;
        }
        g
    }

    #[test]
    fn finds_every_square_tail_exactly() {
        let mut rng = Rng(0x5_9A4E);
        for &(pre, p) in &[(0usize, 37usize), (1, 1000), (500, 777), (3000, 2048)] {
            let len = pre + 2 * p + 2 + (rng.next() % 50) as usize;
            let g = periodic(&mut rng, pre, p, len, 5);
            let tails = square_tails(&g, 8, &[], None);
            assert_eq!(tails.first().map(|t| t.period), Some(p), "pre {pre} p {p}");
            // The last irregular value of G is pre − 1 (δ index pre − 2 when pre ≥ 2 ...): check
            // against a direct definition.
            let want = (p..len - 1)
                .rev()
                .find(|&j| delta(&g, j) != delta(&g, j - p))
                .map_or(-1, |f| f as i64 - p as i64);
            assert_eq!(tails[0].e, want);
        }
    }

    #[test]
    fn the_parallel_sweep_finds_what_one_thread_does() {
        // Ranges of half-lengths on 2–4 threads, merged: the same tails, including multiples
        // of a period whose stretch is shorter than theirs (the merge sweeps a range again).
        let pools: Vec<rayon::ThreadPool> = (1..=3)
            .map(|t| {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(t)
                    .build()
                    .unwrap()
            })
            .collect();
        let mut rng = Rng(0x5EED_0041);
        let mut cases: Vec<Vec<u16>> = Vec::new();
        for &(pre, p, len) in &[(0usize, 37usize, 600usize), (100, 51, 1500), (7, 300, 2000)] {
            cases.push(periodic(&mut rng, pre, p, len, 4));
        }
        // A period-12 tail inside a longer period-36 tail (36 ⊂ stretch of 12 only near the
        // end): squares at 12, 24, 36, ... with different stretches.
        let mut g = periodic(&mut rng, 50, 36, 1200, 3);
        for i in 900..1200 {
            g[i] = g[i - 12];
        }
        cases.push(g);
        for _ in 0..20 {
            let p = 1 + (rng.next() % 60) as usize;
            let len = 4 * p + 20 + (rng.next() % 400) as usize;
            let pre = (rng.next() % 40) as usize;
            cases.push(periodic(&mut rng, pre, p, len, 2));
        }
        for (i, g) in cases.iter().enumerate() {
            for p_min in [1, 5, 20] {
                for known in [&[][..], &[(4usize, 100usize)][..]] {
                    let want = tails(g, p_min, known, None, 0);
                    for pool in &pools {
                        let got = tails(g, p_min, known, Some(pool), 0);
                        assert_eq!(got, want, "case {i} p_min {p_min} known {known:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn no_square_no_claim() {
        let mut rng = Rng(7);
        let p = 1500;
        let len = 2 * p + 400;
        let mut g = periodic(&mut rng, 10, p, len, 3);
        // One mismatch inside the last p values: no square of half-length p ends the sequence.
        let x = len - p / 2;
        g[x] = (g[x] + 1) % 3;
        assert!(square_tails(&g, 8, &[], None).iter().all(|t| t.period != p));
        // Short sequences and the empty one.
        assert!(square_tails::<u16>(&[], 1, &[], None).is_empty());
        assert!(square_tails(&[0u8, 1], 1, &[], None).is_empty());
    }

    #[test]
    fn agrees_with_brute_force_on_random_periodic_tails() {
        // Small alphabets make many accidental squares; every one must be reported exactly.
        let mut rng = Rng(0xD1CE);
        for _ in 0..300 {
            let p = 1 + (rng.next() % 40) as usize;
            let pre = (rng.next() % 30) as usize + 1;
            let len = pre + p + (rng.next() % 90) as usize + 2;
            let alphabet = 2 + rng.next() % 3;
            let g = periodic(&mut rng, pre, p, len, alphabet);
            let d = g.len() - 1;
            let p_min = 1 + (rng.next() % 4) as usize;
            let mut want: Vec<SquareTail> = Vec::new();
            for q in p_min..=d / 2 {
                let square = (d - q..d).all(|j| delta(&g, j) == delta(&g, j - q));
                let covered = want
                    .iter()
                    .any(|t| q % t.period == 0 && (q as i64) < d as i64 - t.e);
                if square && !covered {
                    let e = (q..d)
                        .rev()
                        .find(|&j| delta(&g, j) != delta(&g, j - q))
                        .map_or(-1, |f| f as i64 - q as i64);
                    want.push(SquareTail { e, period: q });
                }
            }
            assert_eq!(
                square_tails(&g, p_min, &[], None),
                want,
                "{g:?} p_min {p_min}"
            );
        }
    }

    #[test]
    fn constant_tail_has_period_one_only() {
        let g = vec![0u32, 1, 2, 3, 3, 3, 3, 3, 3, 3, 3];
        let t = square_tails(&g, 1, &[], None);
        assert_eq!(t, vec![SquareTail { e: 2, period: 1 }]);
        // A known short period suppresses its multiples.
        assert!(square_tails(&g, 1, &[(1, 7)], None).is_empty());
        assert_eq!(square_tails(&g, 1, &[(2, 8)], None), t);
    }
}
