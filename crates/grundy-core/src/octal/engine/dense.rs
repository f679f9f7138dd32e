//! Full two-heap scans, for games without a sparse space (e.g. `.007`), split over threads.
//!
//! Heaps are computed in blocks `[N, N+B)`. A split `(a, r−a)` of a heap in the block whose
//! parts are both below `N` only reads finished values, so those pairs — almost all of the work
//! when `B ≪ N` — are scanned for every heap of the block in parallel (phase one, a disjoint
//! output row per heap). Phase two runs sequentially through the block and adds the few pairs
//! whose larger part lies inside the block, then takes the mex. With `B ≈ N/32` the sequential
//! share is about 3 %.

use super::pool::share;
use super::rules::Twos;
use super::split::split_range;
use crate::octal::values::Cell;

/// Phase one: for heaps `start..end`, a bitset row per heap (`words` words each) with the
/// nim-sums of the two-heap splits (digits `twos`) whose parts are both below `start`.
/// `g` holds G(0..start); values are below `32·words`.
/// The rows are shared between the calling thread and the threads of `pool` (the engine's;
/// none: the calling thread alone).
pub(crate) fn phase_one<T: Cell>(
    g: &[T],
    start: usize,
    end: usize,
    twos: &Twos,
    words: usize,
    pool: Option<&rayon::ThreadPool>,
) -> Vec<u64> {
    let count = end - start;
    let mut rows = vec![0u64; count * words];
    let threads = pool.map_or(1, |p| p.current_num_threads() + 1);
    // Four shares a thread: later heaps cost more (more splits), and a thread that is done
    // takes the next.
    let per = count.div_ceil(4 * threads).max(1);
    let chunks: Vec<(usize, &mut [u64])> = rows.chunks_mut(per * words).enumerate().collect();
    let fill_chunk = |(t, chunk): (usize, &mut [u64])| {
        fill(g, start + t * per, chunk, start, twos, words);
    };
    match pool {
        Some(pool) => share(pool, chunks, &fill_chunk),
        None => chunks.into_iter().for_each(fill_chunk),
    }
    rows
}

/// Fills the rows of heaps `first..` (one row per `words` words of `out`).
fn fill<T: Cell>(
    g: &[T],
    first: usize,
    out: &mut [u64],
    split_at: usize,
    twos: &Twos,
    words: usize,
) {
    let nbits = words * 64;
    let mut seen = vec![0u8; nbits];
    let wrap = nbits - 1; // nbits is a power of two; values are below it, so this never changes x
    for (i, row) in out.chunks_mut(words).enumerate() {
        let n = first + i;
        seen.iter_mut().for_each(|s| *s = 0);
        for &u in twos {
            let Some((r, lo, a_max)) = split_range(n, u, twos.gap) else {
                continue;
            };
            // Larger part r − a below split_at  ⇔  a > r − split_at.
            let a_min = lo.max((r + 1).saturating_sub(split_at));
            if a_min > a_max {
                continue;
            }
            let left = &g[a_min..=a_max];
            let right = &g[r - a_max..=r - a_min];
            for (&x, &y) in left.iter().zip(right.iter().rev()) {
                seen[(x.get() ^ y.get()) as usize & wrap] = 1;
            }
        }
        for (w, word) in row.iter_mut().enumerate() {
            let mut bits = 0u64;
            for (b, &s) in seen[w * 64..w * 64 + 64].iter().enumerate() {
                bits |= (s as u64) << b;
            }
            *word = bits;
        }
    }
}

/// Sequential scan of the two-heap splits of heap `n` whose larger part is ≥ `split_at`
/// (`split_at = 0`: every split) and whose parts keep the part rule (`twos.gap`), into `excl`.
pub(crate) fn scan_pairs<T: Cell>(
    g: &[T],
    n: usize,
    twos: &Twos,
    split_at: usize,
    excl: &mut [u64],
) {
    let wrap = excl.len() * 64 - 1;
    for &u in twos {
        let Some((r, lo, hi)) = split_range(n, u, twos.gap) else {
            continue;
        };
        let a_max = hi.min(r.saturating_sub(split_at));
        if lo > a_max {
            continue;
        }
        let left = &g[lo..=a_max];
        let right = &g[r - a_max..=r - lo];
        for (&x, &y) in left.iter().zip(right.iter().rev()) {
            let v = (x.get() ^ y.get()) as usize & wrap;
            excl[v >> 6] |= 1u64 << (v & 63);
        }
    }
}
