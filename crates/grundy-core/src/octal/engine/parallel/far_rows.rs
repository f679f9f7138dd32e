//! Far rows: for each heap of a block, the pairs with a rare part whose two parts both lie
//! below `split` — values known before the spine reaches the heap (see `mod.rs`).
//!
//! For heap n and a digit u (total r = n − u, smaller part in `[1, hi]`), a rare position `a`
//! is paired as the smaller part when its partner `r − a` is below `split` (`a ≥ r − split + 1`),
//! and as the larger part when it is itself below `split` (`a ∈ [r − hi, r − 1]`). The spine adds
//! exactly the rest: rare smaller parts whose partner is `split` or more. A pair counted on
//! both sides (a rare position at `r/2`) marks the same value twice, which is harmless.
//!
//! A row is made in two calls when its `split` lies inside the block (the *lag*, see
//! `pipeline.rs`): the partners below the block's first heap, from the engine's values, and
//! then those from the first heap to `split`, from the values the spine has published — the
//! `partners` range of each call. Every rare position lies below the block, so the larger
//! parts are all paired in the first call.
//!
//! Blocks of [`RowKind::HEAPS`] heaps share one pass over the positions that are far for all
//! of them; each heap then adds its own few (the bounds move by one a heap).

use super::RowKind;
use crate::octal::rules::Twos;
use crate::octal::split::split_range;
use crate::octal::values::Cell;
use crate::octal::window::View;

/// Marks into the rows of heaps `first..first + rows.len()` their pairs whose smaller part's
/// partner lies in `partners` (see the module docs); a range from 0 starts the rows empty and
/// adds the rare larger parts too. `g` holds the values of `partners`; every rare position is
/// below its end.
pub(crate) fn far_rows<K: RowKind, T: Cell>(
    g: View<'_, T>,
    rare: &[u32],
    rare_vals: &[u16],
    first: usize,
    rows: &mut [K::Row],
    partners: std::ops::Range<usize>,
    twos: &Twos,
) {
    let (low, split) = (partners.start, partners.end);
    if low == 0 {
        rows.fill(K::empty());
    }
    let h = K::HEAPS;
    let gap = twos.gap;
    let idx = |x: usize| rare.partition_point(|&a| (a as usize) < x);
    let max_rare = rare.last().map_or(0, |&a| a as usize);
    // Per digit, the block passes' bounds as indices: both only grow along the rows, so they
    // are cursors, not searches.
    let mut cursors = vec![(0usize, 0usize); twos.len()];
    let mut i = 0;
    while i < rows.len() {
        let w = h.min(rows.len() - i);
        let m = first + i;
        for (&u, (c0, c1)) in twos.iter().zip(cursors.iter_mut()) {
            let u = u as usize; // u ≥ 0 on the parallel path
                                // The block pass: positions far for all w heaps, [r_{h−1} − split + 1, hi_0].
            let mut shared = None;
            if w == h && m >= u + 2 {
                let r0 = m - u;
                let lb = 1.max((r0 + h).saturating_sub(split));
                // Partners from `low` on for every heap of the block: `a ≤ r0 − low`.
                let hb = (r0.saturating_sub(gap) / 2).min(r0.saturating_sub(low));
                if lb <= hb.min(max_rare) {
                    while *c0 < rare.len() && (rare[*c0] as usize) < lb {
                        *c0 += 1;
                    }
                    while *c1 < rare.len() && rare[*c1] as usize <= hb {
                        *c1 += 1;
                    }
                    let (i0, i1) = (*c0, *c1);
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
                let Some(to) = r.checked_sub(low).map(|x| x.min(hi)) else {
                    continue;
                };
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
                        while k < rare.len() && rare[k] as usize <= to {
                            mark(k);
                            k += 1;
                        }
                    }
                    // (Positions past the largest are none: no search.)
                    None if from <= to.min(max_rare) => {
                        (idx(from)..idx(to + 1)).for_each(&mut mark)
                    }
                    None => {}
                }
                // Rare larger parts below split (positions past r/2: rare, recent ones).
                let (p0, p1) = ((r - hi).max(hi + 1), (r - lo).min(split.saturating_sub(1)));
                if low == 0 && p0 <= p1 && rare.last().is_some_and(|&a| a as usize >= p0) {
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
