//! The rare/common method's marks as bits: while every value is below 64, the set of values a
//! heap excludes is one `u64`, kept in a register, and "is every missing rare value seen?" is
//! one AND (`sparse.rs`, bit marks). These are the loops that fill such sets.
//!
//! Each kernel is compiled twice by the `multiversion` crate: for the machine the binary runs
//! on when it has AVX2 (or AVX-512), chosen once at run time, and portably (x86-64 baseline,
//! other architectures). The AVX2 build vectorises the block kernel (the eight heaps' sets are
//! two vectors, `vpsllvq`); the portable build runs the same code as scalar loops. Both give the
//! same sets: `tests` compare the dispatched kernels and
//! their portable bodies (`*_body`, compiled for the baseline) with the definition on random
//! inputs.
//!
//! Values are masked to 6 bits before shifting: callers guarantee values below 64, and the mask
//! keeps a broken guarantee from panicking (it would only give a wrong set, which the engine's
//! cross-checks catch).

use multiversion::multiversion;

use crate::octal::engine::split::BIT_HEAPS;
use crate::octal::values::Cell;

/// `{x}` as a bit set (x below 64).
#[inline(always)]
pub(crate) fn bit(x: u16) -> u64 {
    1u64 << (x & 63)
}

/// The set `{va ⊕ G(r − a)}` over the listed positions `a` (values `vals`), `g[i]` = G(i).
#[multiversion(targets("x86_64+avx2+bmi1+bmi2", "x86_64+avx512f+avx512bw+avx512vl+bmi1+bmi2"))]
pub(crate) fn pairs<T: Cell>(pos: &[u32], vals: &[u16], g: &[T], r: usize) -> u64 {
    pairs_body(pos, vals, g, r)
}

#[inline(always)]
fn pairs_body<T: Cell>(pos: &[u32], vals: &[u16], g: &[T], r: usize) -> u64 {
    // Four independent accumulators: the OR chain is not the bottleneck, the loads are.
    let mut acc = [0u64; 4];
    let (pc, vc) = (pos.chunks_exact(4), vals.chunks_exact(4));
    let (pr, vr) = (pc.remainder(), vc.remainder());
    for (p, v) in pc.zip(vc) {
        for k in 0..4 {
            acc[k] |= bit(v[k] ^ g[r - p[k] as usize].low16());
        }
    }
    for (&a, &va) in pr.iter().zip(vr) {
        acc[0] |= bit(va ^ g[r - a as usize].low16());
    }
    acc[0] | acc[1] | acc[2] | acc[3]
}

/// [`pairs`] for the [`BIT_HEAPS`] heaps with totals `r, r+1, …` at once: `acc[k]` gets the set of
/// total `r + k`. Every partner `r − a + k` must be in `g`.
#[multiversion(targets("x86_64+avx2+bmi1+bmi2", "x86_64+avx512f+avx512bw+avx512vl+bmi1+bmi2"))]
pub(crate) fn pairs_block<T: Cell>(
    pos: &[u32],
    vals: &[u16],
    g: &[T],
    r: usize,
    acc: &mut [u64; BIT_HEAPS],
) {
    pairs_block_body(pos, vals, g, r, acc)
}

#[inline(always)]
fn pairs_block_body<T: Cell>(
    pos: &[u32],
    vals: &[u16],
    g: &[T],
    r: usize,
    acc: &mut [u64; BIT_HEAPS],
) {
    let mut m = *acc;
    for (&a, &va) in pos.iter().zip(vals) {
        let b = r - a as usize;
        let q: &[T; BIT_HEAPS] = g[b..b + BIT_HEAPS].try_into().expect("BIT_HEAPS partners");
        for k in 0..BIT_HEAPS {
            m[k] |= bit(va ^ q[k].low16());
        }
    }
    *acc = m;
}

/// The set `{left[i] ⊕ right[len − 1 − i]}`: the splits `(a + i, r − a − i)` when `left` starts
/// at heap `a` and `right` ends at heap `r − a`.
#[multiversion(targets("x86_64+avx2+bmi1+bmi2", "x86_64+avx512f+avx512bw+avx512vl+bmi1+bmi2"))]
pub(crate) fn zip<T: Cell>(left: &[T], right: &[T]) -> u64 {
    zip_body(left, right)
}

#[inline(always)]
fn zip_body<T: Cell>(left: &[T], right: &[T]) -> u64 {
    let mut acc = [0u64; 4];
    let (lc, rc) = (left.chunks_exact(4), right.rchunks_exact(4));
    let (lr, rr) = (lc.remainder(), rc.remainder());
    for (l, r) in lc.zip(rc) {
        for k in 0..4 {
            acc[k] |= bit(l[k].low16() ^ r[3 - k].low16());
        }
    }
    // The remainders: the last few of `left`, the first few of `right` (reversed).
    for (&x, &y) in lr.iter().zip(rr.iter().rev()) {
        acc[0] |= bit(x.low16() ^ y.low16());
    }
    acc[0] | acc[1] | acc[2] | acc[3]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// xorshift: the tests need no seedable crate.
    fn rng(seed: &mut u64) -> u64 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed
    }

    #[test]
    fn kernels_equal_the_definition_dispatched_and_portable() {
        let mut seed = 0x9e37_79b9_7f4a_7c15;
        for round in 0..400 {
            let len = 64 + (rng(&mut seed) % 400) as usize;
            let g: Vec<u8> = (0..len).map(|_| (rng(&mut seed) % 64) as u8).collect();
            let count = (rng(&mut seed) % 40) as usize;
            let r = len - BIT_HEAPS;
            let mut pos: Vec<u32> = (0..count)
                .map(|_| (1 + rng(&mut seed) % (r as u64 - 1)) as u32)
                .collect();
            pos.sort_unstable();
            let vals: Vec<u16> = pos.iter().map(|_| (rng(&mut seed) % 64) as u16).collect();
            let def = |r: usize| {
                pos.iter().zip(&vals).fold(0u64, |m, (&a, &v)| {
                    m | 1 << (v ^ u16::from(g[r - a as usize]))
                })
            };
            assert_eq!(pairs(&pos, &vals, &g, r), def(r), "round {round}");
            assert_eq!(pairs_body(&pos, &vals, &g, r), def(r));
            let mut acc = [0u64; BIT_HEAPS];
            pairs_block(&pos, &vals, &g, r, &mut acc);
            let mut port = [0u64; BIT_HEAPS];
            pairs_block_body(&pos, &vals, &g, r, &mut port);
            for (k, &set) in acc.iter().enumerate() {
                assert_eq!(set, def(r + k), "round {round} heap {k}");
            }
            assert_eq!(acc, port);
            // Splits (a, r − a) for a in [lo, hi): left = g[lo..hi], right = g[r+1−hi ..= r−lo].
            let lo = 1 + (rng(&mut seed) % 8) as usize;
            let hi = (lo + (rng(&mut seed) % 70) as usize).min(r / 2);
            let (left, right) = (&g[lo..hi], &g[r + 1 - hi..=r - lo]);
            let want = (lo..hi).fold(0u64, |m, a| m | 1 << (g[a] ^ g[r - a]));
            assert_eq!(zip(left, right), want, "round {round}");
            assert_eq!(zip_body(left, right), want);
            let wide: Vec<u16> = g.iter().map(|&x| u16::from(x)).collect();
            assert_eq!(zip(&wide[lo..hi], &wide[r + 1 - hi..=r - lo]), want);
        }
    }
}
