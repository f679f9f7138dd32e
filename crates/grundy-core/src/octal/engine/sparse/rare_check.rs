//! The rare check of the rare/common method (`sparse.rs`, step 2), written once for both
//! representations of a heap's marks and for both callers.
//!
//! Once the pairs with a rare part have given `c`, the least common value not excluded, G(n)
//! is `c` unless some rare value below `c` is excluded by no split. The check looks for a
//! split giving each still-missing rare value: first the *probes* (pairs with a part of
//! diverse common value, which cover the rare nim-sums about 2.5 times faster than splits in
//! order), then every split `a = lo, lo + 1, …` whose two parts are kept, then — window mode —
//! the splits read back from the archive; it stops as soon as nothing is missing. Pairs are
//! marked in batches and the missing set is filtered per batch.
//!
//! The marks are a [`Marker`]: [`BitMarker`] (a `u64` while every value is below 64) or
//! [`StampMarker`] (a stamp array). The callers are the sequential step ([`crate::octal::engine::sparse`])
//! and the parallel verifiers (`engine/parallel/verify.rs`), which check a block's heaps after the
//! block was computed on the assumption that every value is common; a verifier has no
//! archive, so where a check would read one back it *defers* the heap to the sequential pass.

use super::bitmarks::{self, bit};
use super::stamps::{self, drop_marked, Marks, Stamp};
use crate::octal::engine::split::split_range;
use crate::octal::error::OctalError;
use crate::octal::values::Cell;
use crate::octal::window::archive::{fill, Backing, READ_RUN};
use crate::octal::window::View;

/// The most splits a scan past the kept values reads at once (two buffers of 2 MiB, while it
/// runs).
const SCAN_RUN: usize = 1 << 20;
/// Least number of split pairs marked between two filterings of the missing rare values
/// (stamps).
const BATCH: usize = 32;
/// Bit marks: pairs between two "all missing values seen?" tests (one AND each).
pub(crate) const BITS_BATCH: usize = 16;

/// A heap's marks and the rare values it still misses.
pub(crate) trait Marker {
    /// Probe pairs between two filterings of the missing values.
    fn probe_batch(&self) -> usize;
    /// Splits in order between two filterings.
    fn scan_batch(&self) -> usize;
    /// Marks `va ⊕ G(r − a)` for the listed positions `a` (values `vals`), `g[i]` = G(i).
    fn pairs<T: Cell>(&mut self, pos: &[u32], vals: &[u16], g: &[T], r: usize);
    /// Marks `x`.
    fn one(&mut self, x: u16);
    /// Marks `left[i] ⊕ right[len − 1 − i]`: the splits `(a + i, r − a − i)` when `left` starts
    /// at heap `a` and `right` ends at heap `r − a`.
    fn zip<T: Cell>(&mut self, left: &[T], right: &[T]);
    /// Drops the missing values marked so far; true when none is left.
    fn settle(&mut self) -> bool;
}

/// Bit marks: the excluded values below 64 and the rare values still missing, as bit sets.
#[derive(Debug, Clone, Copy)]
pub(crate) struct BitMarker {
    pub marks: u64,
    pub missing: u64,
}

impl Marker for BitMarker {
    #[inline(always)]
    fn probe_batch(&self) -> usize {
        BITS_BATCH
    }
    #[inline(always)]
    fn scan_batch(&self) -> usize {
        4 * BITS_BATCH
    }
    #[inline(always)]
    fn pairs<T: Cell>(&mut self, pos: &[u32], vals: &[u16], g: &[T], r: usize) {
        self.marks |= bitmarks::pairs(pos, vals, g, r);
    }
    #[inline(always)]
    fn one(&mut self, x: u16) {
        self.marks |= bit(x);
    }
    #[inline(always)]
    fn zip<T: Cell>(&mut self, left: &[T], right: &[T]) {
        self.marks |= bitmarks::zip(left, right);
    }
    #[inline(always)]
    fn settle(&mut self) -> bool {
        self.missing &= !self.marks;
        self.missing == 0
    }
}

/// Stamp marks: `mark[x] == stamp` ⇔ x excluded; the missing rare values ascending.
#[derive(Debug)]
pub(crate) struct StampMarker<'a> {
    pub mark: &'a mut Marks,
    pub stamp: Stamp,
    pub missing: &'a mut Vec<u16>,
}

impl Marker for StampMarker<'_> {
    #[inline(always)]
    fn probe_batch(&self) -> usize {
        BATCH.max(self.missing.len())
    }
    #[inline(always)]
    fn scan_batch(&self) -> usize {
        BATCH.max(self.missing.len())
    }
    #[inline(always)]
    fn pairs<T: Cell>(&mut self, pos: &[u32], vals: &[u16], g: &[T], r: usize) {
        stamps::pairs(pos, vals, g, r, self.mark, self.stamp);
    }
    #[inline(always)]
    fn one(&mut self, x: u16) {
        self.mark[usize::from(x)] = self.stamp;
    }
    #[inline(always)]
    fn zip<T: Cell>(&mut self, left: &[T], right: &[T]) {
        // Four pairs an iteration (one loop test for four stores).
        let (mark, stamp) = (&mut *self.mark, self.stamp);
        let (lc, rc) = (left.chunks_exact(4), right.rchunks_exact(4));
        let (lr, rr) = (lc.remainder(), rc.remainder());
        for (l, r) in lc.zip(rc) {
            for k in 0..4 {
                mark[usize::from(l[k].low16() ^ r[3 - k].low16())] = stamp;
            }
        }
        // The remainders: the last few of `left`, the first few of `right` (reversed).
        for (&x, &y) in lr.iter().zip(rr.iter().rev()) {
            mark[usize::from(x.low16() ^ y.low16())] = stamp;
        }
    }
    #[inline(always)]
    fn settle(&mut self) -> bool {
        drop_marked(self.missing, self.mark, self.stamp);
        self.missing.is_empty()
    }
}

/// The values whose bits are set in `words` (64 values a word, from 0), ascending, into `out`
/// (cleared first): a heap's missing values as a stamp marker's list.
pub(crate) fn missing_list(words: &[u64], out: &mut Vec<u16>) {
    out.clear();
    for (w, &word) in words.iter().enumerate() {
        let mut b = word;
        while b != 0 {
            out.push((w * 64) as u16 + b.trailing_zeros() as u16);
            b &= b - 1;
        }
    }
}

/// A probe list, owned (see [`Probes`]).
#[derive(Debug, Clone, Default)]
pub(crate) struct ProbeList {
    pub pos: Vec<u32>,
    pub vals: Vec<u16>,
    pub min: usize,
    pub max: usize,
}

impl ProbeList {
    /// The list as the rare check reads it.
    pub(crate) fn view(&self) -> Probes<'_> {
        Probes {
            pos: &self.pos,
            vals: &self.vals,
            min: self.min,
            max: self.max,
        }
    }
}

/// The probe list (positions and their values; all positions in `[min, max]`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Probes<'a> {
    pub pos: &'a [u32],
    pub vals: &'a [u16],
    pub min: usize,
    pub max: usize,
}

/// How a rare check ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ended {
    /// Every missing value was found: G(n) = c.
    Found,
    /// Every split was examined and some value is still missing: G(n) is the least of them.
    Exhausted,
    /// The check needs values that only the archive holds, and was told not to read it.
    Deferred,
}

/// Where a rare check may read values from.
#[derive(Debug)]
pub(crate) struct Reads<'a, 'b, T> {
    /// The kept values.
    pub g: View<'a, T>,
    /// The archive (window mode) and its counts.
    pub backing: &'a mut Option<Backing<'b>>,
    /// True: a check that needs the archive ends [`Ended::Deferred`] instead of reading it.
    pub defer: bool,
    /// Tests: every split read through [`fill`] (the archive path), probes skipped.
    pub force_read_back: bool,
}

impl<'a, 'b, T> Reads<'a, 'b, T> {
    /// A heap's own check on the calling thread: it reads the archive where it must.
    #[inline]
    pub(crate) fn direct(
        g: View<'a, T>,
        backing: &'a mut Option<Backing<'b>>,
        force_read_back: bool,
    ) -> Self {
        Reads {
            g,
            backing,
            defer: false,
            force_read_back,
        }
    }
}

/// Looks for every missing value of heap `n` (digits `twos`, part rule `gap`): the probes from
/// `from_probe` on (the earlier ones are already marked), then the kept splits in order, then
/// the archive. `scanned` counts the pairs marked. The marker is taken and given back by value
/// (bit marks then live in registers throughout).
#[allow(clippy::too_many_arguments)]
pub(crate) fn rare_check<T: Cell, M: Marker>(
    mut m: M,
    probes: Probes<'_>,
    from_probe: usize,
    reads: Reads<'_, '_, T>,
    n: usize,
    twos: &[i64],
    gap: usize,
    scanned: &mut u64,
) -> Result<(Ended, M), OctalError> {
    let Reads {
        g,
        backing,
        defer,
        force_read_back,
    } = reads;
    if force_read_back {
        if defer {
            return Ok((Ended::Deferred, m));
        }
        for &u in twos {
            if let Some((r, lo, hi)) = split_range(n, u, gap) {
                if scan_read_back(g, backing, r, lo, hi, scanned, |l, rr| {
                    m.zip(l, rr);
                    m.settle()
                })? {
                    return Ok((Ended::Found, m));
                }
            }
        }
        return Ok((Ended::Exhausted, m));
    }
    for &u in twos {
        let Some((r, lo, hi)) = split_range(n, u, gap) else {
            continue;
        };
        // All probes are usually inside [lo, hi]; then the loop needs no test.
        let all_in = probes.min >= lo && probes.max <= hi;
        let mut i = from_probe;
        while i < probes.pos.len() {
            let end = (i + m.probe_batch()).min(probes.pos.len());
            let (pa, pv) = (&probes.pos[i..end], &probes.vals[i..end]);
            if all_in {
                m.pairs(pa, pv, g.tail, r - g.base);
            } else {
                for (&a, &va) in pa.iter().zip(pv) {
                    let a = a as usize;
                    if a >= lo && a <= hi {
                        m.one(va ^ g.near(r - a).low16());
                    }
                }
            }
            *scanned += (end - i) as u64;
            i = end;
            if m.settle() {
                return Ok((Ended::Found, m));
            }
        }
    }
    for &u in twos {
        let Some((r, lo, hi)) = split_range(n, u, gap) else {
            continue;
        };
        // Every value kept: `stop` is hi + 1. Window mode: the splits whose parts are both
        // kept (a in the front, r − a in the tail).
        let stop = scan_end(g, r, lo, hi);
        let mut a = lo;
        while a < stop {
            let end = (a + m.scan_batch()).min(stop);
            let left = &g.front[a..end];
            let right = &g.tail[r + 1 - end - g.base..=r - a - g.base];
            m.zip(left, right);
            *scanned += (end - a) as u64;
            a = end;
            if m.settle() {
                return Ok((Ended::Found, m));
            }
        }
        if stop <= hi {
            // Undecided within what is kept: G(n) may be rare, or a witness lies further
            // in. The scan goes on through the archive.
            if defer {
                return Ok((Ended::Deferred, m));
            }
            if let Some(b) = backing {
                b.counts.deep_scans += 1;
            }
            if scan_read_back(g, backing, r, stop, hi, scanned, |l, rr| {
                m.zip(l, rr);
                m.settle()
            })? {
                return Ok((Ended::Found, m));
            }
        }
    }
    Ok((Ended::Exhausted, m))
}

/// The end of the splits `(a, r − a)`, `a` in `lo..=hi`, whose two parts are kept: `hi + 1`
/// when every value is (no gap), else the least `a` with `a` beyond the front or `r − a`
/// before the tail.
#[inline]
fn scan_end<T: Copy>(g: View<'_, T>, r: usize, lo: usize, hi: usize) -> usize {
    (hi + 1)
        .min(g.front_end())
        .min((r + 1).saturating_sub(g.base))
        .max(lo)
}

/// The scan past what is kept: splits `(a, r − a)` for `a` from `from` to `hi`, both sides
/// read a run at a time ([`fill`]: front, archive, tail) and handed to `visit` as (`left` from
/// heap a, `right` ending at heap r − a); it stops when `visit` says so (every missing value
/// seen) and returns whether it did. `scanned` counts the pairs.
pub(crate) fn scan_read_back<T: Cell>(
    g: View<'_, T>,
    backing: &mut Option<Backing<'_>>,
    r: usize,
    from: usize,
    hi: usize,
    scanned: &mut u64,
    mut visit: impl FnMut(&[u16], &[u16]) -> bool,
) -> Result<bool, OctalError> {
    let (mut left, mut right) = (Vec::new(), Vec::new());
    let mut a = from;
    // Batches of a run, doubling up to SCAN_RUN: few reads for a scan to the end, little
    // read in vain for one whose witnesses come soon.
    let mut batch = READ_RUN;
    while a <= hi {
        let end = (a + batch).min(hi + 1);
        batch = (2 * batch).min(SCAN_RUN);
        let len = end - a;
        left.resize(len, 0);
        right.resize(len, 0);
        fill(g, backing, a, &mut left)?;
        fill(g, backing, r + 1 - end, &mut right)?;
        *scanned += len as u64;
        a = end;
        if visit(&left, &right) {
            return Ok(true);
        }
    }
    Ok(false)
}
