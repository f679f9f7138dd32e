//! Far rows: for each heap of a block, the pairs with a rare part whose two parts both lie
//! below `split` — values known a round before the spine reaches the block (see `mod.rs`).
//!
//! For heap n and a digit u (total r = n − u, smaller part in `[1, hi]`), a rare position `a`
//! is paired as the smaller part when its partner `r − a` is below `split` (`a ≥ r − split + 1`),
//! and as the larger part when it is itself below `split` (`a ∈ [r − hi, r − 1]`). The spine adds
//! exactly the rest: rare smaller parts whose partner is `split` or more. A pair counted on
//! both sides (a rare position at `r/2`) marks the same value twice, which is harmless.
//!
//! Blocks of [`RowKind::HEAPS`] heaps share one pass over the positions that are far for all
//! of them; each heap then adds its own few (the bounds move by one a heap).

use super::RowKind;
use crate::octal::engine::rules::Twos;
use crate::octal::engine::split::split_range;
use crate::octal::values::Cell;
use crate::octal::window::View;

/// The rows of heaps `first..first + rows.len()` (see the module docs). `g` holds every value
/// below `split`; every rare position is below `split` too.
pub(crate) fn far_rows<K: RowKind, T: Cell>(
    g: View<'_, T>,
    rare: &[u32],
    rare_vals: &[u16],
    first: usize,
    rows: &mut [K::Row],
    split: usize,
    twos: &Twos,
) {
    rows.fill(K::empty());
    let h = K::HEAPS;
    let gap = twos.gap;
    let idx = |x: usize| rare.partition_point(|&a| (a as usize) < x);
    let mut i = 0;
    while i < rows.len() {
        let w = h.min(rows.len() - i);
        let m = first + i;
        for &u in twos.iter() {
            let u = u as usize; // u ≥ 0 on the parallel path
                                // The block pass: positions far for all w heaps, [r_{h−1} − split + 1, hi_0].
            let mut shared = None;
            if w == h && m >= u + 2 {
                let r0 = m - u;
                let lb = 1.max((r0 + h).saturating_sub(split));
                let hb = r0.saturating_sub(gap) / 2;
                if lb <= hb {
                    let (i0, i1) = (idx(lb), idx(hb + 1));
                    K::block(
                        &rare[i0..i1],
                        &rare_vals[i0..i1],
                        g.tail,
                        r0 - g.base,
                        &mut rows[i..i + h],
                    );
                    shared = Some((i0, i1));
                }
            }
            for (j, row) in rows[i..i + w].iter_mut().enumerate() {
                let Some((r, lo, hi)) = split_range(m + j, u as i64, gap) else {
                    continue;
                };
                let from = lo.max((r + 1).saturating_sub(split));
                let mut mark = |k: usize| {
                    let a = rare[k] as usize;
                    K::one(row, rare_vals[k] ^ g.near(r - a).low16());
                };
                match shared {
                    Some((i0, i1)) => {
                        // [from, lb − 1] below the shared positions, (hb, hi] above them.
                        let mut k = i0;
                        while k > 0 && rare[k - 1] as usize >= from {
                            k -= 1;
                            mark(k);
                        }
                        let mut k = i1;
                        while k < rare.len() && rare[k] as usize <= hi {
                            mark(k);
                            k += 1;
                        }
                    }
                    None if from <= hi => (idx(from)..idx(hi + 1)).for_each(&mut mark),
                    None => {}
                }
                // Rare larger parts below split (positions past r/2: rare, recent ones).
                let (p0, p1) = ((r - hi).max(hi + 1), (r - lo).min(split.saturating_sub(1)));
                if p0 <= p1 && rare.last().is_some_and(|&a| a as usize >= p0) {
                    for k in idx(p0)..idx(p1 + 1) {
                        let p = rare[k] as usize;
                        K::one(row, rare_vals[k] ^ g.front[r - p].low16());
                    }
                }
            }
        }
        i += w;
    }
}
