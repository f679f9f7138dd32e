//! The rare/common method on several threads: the pairs with a rare part, a block at a time.
//!
//! In sparse mode a heap's work is (1) the pairs `(a, r − a)` with `a` a rare position, which
//! give every excluded common value, and (2) the rare check, a scan that stops as soon as every
//! rare value below the least unexcluded common one is seen. (2) depends on (1) and runs
//! sequentially; (1) is split like the dense scans (`dense.rs`): for a block of heaps
//! `[N, N+B)`, a pair whose two parts are both below N reads only finished values, so those
//! pairs are OR-ed into one bitset row per heap on all threads (each thread its own rows).
//! The sequential pass then starts each heap from its row and tells [`Sparse`] to skip exactly
//! those pairs (`Sparse::set_split_at`), adding only the few pairs with a part in the block.
//! With B ≈ N/32 that moves nearly all of (1) — about half the work of `.007` — onto the
//! threads.
//!
//! [`Sparse`]: super::sparse::Sparse

use super::bitset::set;
use super::rules::Twos;
use super::split::split_range;
use super::values::Cell;
use super::window::View;

/// For heaps `start..end`: a row of `words` words per heap with the nim-sums of the pairs
/// `(a, r − a)`, `a` in `rare` (values `rare_vals`), `lo ≤ a ≤ r − lo`, both parts below
/// `start`, for every digit in `twos`, that keep the part rule (`twos.gap`: the smaller part
/// at most `hi`, so `a` in `[lo, hi] ∪ [r − hi, r − lo]`). `g` holds G(0..start) (in window
/// mode its front and tail: every partner of a rare position lies in the tail).
#[allow(clippy::too_many_arguments)] // the block's geometry, each used once
pub(crate) fn rare_rows<T: Cell>(
    g: View<'_, T>,
    rare: &[u32],
    rare_vals: &[u16],
    start: usize,
    end: usize,
    twos: &Twos,
    words: usize,
    threads: usize,
) -> Vec<u64> {
    let count = end - start;
    let mut rows = vec![0u64; count * words];
    let threads = threads.clamp(1, count.max(1));
    let per = count.div_ceil(threads);
    let fill = |first: usize, out: &mut [u64]| {
        for (i, row) in out.chunks_mut(words).enumerate() {
            let n = first + i;
            for &u in twos {
                let Some((r, lo, hi)) = split_range(n, u, twos.gap) else {
                    continue;
                };
                // a < start and r − a < start; a the smaller part in [lo, hi] or the larger
                // in [r − hi, r − lo] (one range [lo, r − lo] without a part rule).
                let (below, above) = ((r + 1).saturating_sub(start), start - 1);
                let sides = if r - hi <= hi + 1 {
                    [(lo, r - lo), (1, 0)]
                } else {
                    [(lo, hi), (r - hi, r - lo)]
                };
                for (from, to) in sides {
                    let (a_min, a_max) = (from.max(below), to.min(above));
                    if a_min > a_max {
                        continue;
                    }
                    let i0 = rare.partition_point(|&a| (a as usize) < a_min);
                    let i1 = rare.partition_point(|&a| (a as usize) <= a_max);
                    for (&a, &va) in rare[i0..i1].iter().zip(&rare_vals[i0..i1]) {
                        set(row, u32::from(va) ^ g.near(r - a as usize).get());
                    }
                }
            }
        }
    };
    std::thread::scope(|scope| {
        let mut chunks = rows.chunks_mut(per * words).enumerate();
        let first = chunks.next();
        for (t, chunk) in chunks {
            scope.spawn(move || fill(start + t * per, chunk));
        }
        if let Some((_, chunk)) = first {
            fill(start, chunk);
        }
    });
    rows
}
