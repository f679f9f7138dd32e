//! Which two-heap splits a move may make: the range of the smaller part for a digit and a part
//! rule, and the window of positions a part rule forbids (Grundy's game: `a ≠ r − a`).
//!
//! A split of `r` tokens is `(a, r − a)` with `a` the smaller part. Tokens added before the
//! split (digits before the point) must leave both parts below the original heap, which puts
//! a floor `lo` under `a`; a part rule "the parts differ by at least `gap`" puts the ceiling
//! `⌊(r − gap)/2⌋` on it. Walking `a` over `[lo, hi]`, or a position over `[lo, hi] ∪
//! [r − hi, r − lo]` when both parts are candidates, visits exactly the allowed splits.

/// Heaps per block of the rare/common method (see `sparse.rs`) with stamp arrays: each pair
/// is a store per heap, and four heaps share a load of their partners.
pub(crate) const HEAPS: usize = 4;
/// Heaps per block with bit marks (`bitmarks.rs`): the eight sets are two AVX2 vectors and
/// one load of eight partners serves them all (measured: `.167` 6 % fewer instructions than
/// four; with stamps, eight cost `.6` more time than four).
pub(crate) const BIT_HEAPS: usize = 8;
/// The larger of the two.
pub(crate) const MAX_HEAPS: usize = BIT_HEAPS;

/// For heap n and a two-heap digit at u: the total `r = n − u`, the least allowed smaller
/// part `lo` (1, or `1 − u` when tokens are added so that both parts stay below n) and the
/// largest `hi = ⌊(r − gap)/2⌋` (the parts `a ≤ r − a` must differ by at least `gap`: 0 for
/// octal games, 1 for Grundy's game); `None` when no split exists.
#[inline(always)]
pub(crate) fn split_range(n: usize, u: i64, gap: usize) -> Option<(usize, usize, usize)> {
    let r = usize::try_from(n as i64 - u).ok()?;
    let lo = if u < 0 { (1 - u) as usize } else { 1 };
    let hi = r.checked_sub(gap)? / 2;
    (hi >= lo).then_some((r, lo, hi))
}

/// True when the split `(a, r − a)` keeps the part rule: `|a − (r − a)| ≥ gap`.
#[inline(always)]
pub(crate) fn allowed(a: usize, r: usize, gap: usize) -> bool {
    (2 * a).abs_diff(r) >= gap
}

/// Indices into the ascending `rare` positions of the *gap window* of a block of `heaps`
/// heaps whose least total is `r`: the positions `a` that are forbidden (`|2a − R| < gap`) for
/// some total `R ∈ r..r+heaps`, i.e. `r − gap < 2a < r + heaps − 1 + gap`. Empty when `gap = 0`.
pub(crate) fn gap_window(r: usize, gap: usize, heaps: usize) -> (usize, usize) {
    if gap == 0 {
        return (1, 0);
    }
    let first = r.checked_sub(gap).map_or(0, |x| x / 2 + 1);
    let last = (r + heaps - 2 + gap) / 2;
    (first, last)
}

/// `[i0, i1)`: the indices of `rare` inside [`gap_window`]`(r, gap, heaps)`.
pub(crate) fn window_indices(rare: &[u32], r: usize, gap: usize, heaps: usize) -> (usize, usize) {
    let (first, last) = gap_window(r, gap, heaps);
    if first > last {
        return (0, 0);
    }
    let i0 = rare.partition_point(|&a| (a as usize) < first);
    let i1 = rare.partition_point(|&a| (a as usize) <= last);
    (i0, i1)
}
