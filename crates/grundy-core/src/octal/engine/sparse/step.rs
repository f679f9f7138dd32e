//! One heap of the rare/common method ([`Sparse::step`]): the block pass's pairs or the heap's
//! own, the far pairs through the archive, then the rare check — with stamps, or with bit marks
//! while every value is below 64 ([`Sparse::step_bits`]), or read back through the archive.

use super::{batchable, far_pairs, RestRanges, Sparse, HEAD_GROW, HEAD_SHRINK};
use crate::octal::engine::bitset::mex;
use crate::octal::engine::rules::Twos;
use crate::octal::engine::sparse::bitmarks::{self, bit};
use crate::octal::engine::sparse::rare_check::{
    rare_check, scan_read_back, BitMarker, Reads, StampMarker,
};
use crate::octal::engine::sparse::stamps::{self, drop_marked, slot, Stamp, MARKS};
use crate::octal::engine::split::{allowed, split_range, BIT_HEAPS, HEAPS};
use crate::octal::error::OctalError;
use crate::octal::values::Cell;
use crate::octal::window::archive::Backing;
use crate::octal::window::View;

impl Sparse {
    /// [`Sparse::step`] with bit marks (every value below 64): the same method, the marks of a
    /// heap one u64 (`bitmarks.rs`).
    fn step_bits<T: Cell>(
        &mut self,
        g: View<'_, T>,
        n: usize,
        twos: &[i64],
        gap: usize,
        excl: u64,
        backing: &mut Option<Backing<'_>>,
    ) -> Result<u32, OctalError> {
        let j = match self.premarked {
            Some((first, _)) if n > first && n < first + BIT_HEAPS => n - first,
            _ if batchable(n, twos, BIT_HEAPS) => {
                self.premarked = Some((n, 0));
                let mut acc = [0u64; BIT_HEAPS];
                self.block_pairs(n, twos, gap, |pos, vals, r| {
                    bitmarks::pairs_block(pos, vals, g.tail, r - g.base, &mut acc);
                });
                self.bit_marks.block_bits = acc;
                0
            }
            _ => {
                self.premarked = None;
                self.refresh_probe(n);
                self.probing.head = 0;
                let mut m = 0;
                self.heap_pairs(n, twos, gap, |pos, vals, r| {
                    m |= bitmarks::pairs(pos, vals, g.tail, r - g.base);
                });
                self.bit_marks.block_bits[0] = m;
                0
            }
        };
        let mut m = self.bit_marks.block_bits[j] | excl;
        if self.premarked.is_some() {
            block_rest(
                &self.rare,
                &self.rare_vals,
                &self.rest,
                g,
                n,
                twos,
                gap,
                |x| m |= bit(x),
            );
        }
        if !self.window.far.is_empty() {
            far_pairs(&mut self.window.far, g, backing, n, n, twos, gap, |x| {
                m |= bit(x)
            })?;
        }
        // Least common value not excluded (64 when all below 64 are: no pair reaches 64).
        let c = (!m & self.bit_marks.common_bits).trailing_zeros();
        // (2) rare values below c that are not yet excluded.
        let below_c = if c >= 64 { u64::MAX } else { (1u64 << c) - 1 };
        if self.bit_marks.rare_bits & below_c & !m == 0 {
            self.probing.head_len = self.probing.head_len.saturating_sub(HEAD_SHRINK);
            return Ok(c);
        }
        self.probing.head_len =
            (self.probing.head_len + HEAD_GROW).min(self.probing.probe.pos.len());
        self.counts.scans += 1;
        let marker = BitMarker {
            marks: m,
            missing: self.bit_marks.rare_bits & below_c & !m,
        };
        let reads = Reads::direct(g, backing, self.force_read_back);
        let (probes, scanned) = (self.probing.probe.view(), &mut self.counts.scanned_pairs);
        let (_, marker) = rare_check(
            marker,
            probes,
            self.probing.head,
            reads,
            n,
            twos,
            gap,
            scanned,
        )?;
        // Every missing value is below c: the least of them, if any, is G(n).
        Ok(if marker.missing == 0 {
            c
        } else {
            marker.missing.trailing_zeros()
        })
    }

    /// Every split `(a, r − a)`, `a` in `from..=hi`, read through [`scan_read_back`] (the
    /// archive where values are not kept) and marked in slot `j` with `stamp`.
    #[allow(clippy::too_many_arguments)]
    fn read_back_stamps<T: Cell>(
        &mut self,
        g: View<'_, T>,
        backing: &mut Option<Backing<'_>>,
        r: usize,
        from: usize,
        hi: usize,
        stamp: Stamp,
        j: usize,
    ) -> Result<(), OctalError> {
        let mark = slot(&mut self.marks, j);
        scan_read_back(
            g,
            backing,
            r,
            from,
            hi,
            &mut self.counts.scanned_pairs,
            |left, right| {
                for (&x, &y) in left.iter().zip(right.iter().rev()) {
                    mark[usize::from(x ^ y)] = stamp;
                }
                false
            },
        )?;
        Ok(())
    }

    /// G(n), given `excl` with every exclusion except the finite two-heap digits `twos`
    /// (`u < 0` means the parts must stay below n: the smaller part is ≥ 1 − u), whose
    /// parts must differ by at least `twos.gap` (0: any split).
    /// `g` holds G(0..n), below 2^16 (in the engine's width: no copy of the values is kept),
    /// or in window mode the front and the tail of them (`window.rs`), the values between
    /// read back through `backing` (`archive.rs`) where a heap needs them.
    pub fn step<T: Cell>(
        &mut self,
        g: View<'_, T>,
        n: usize,
        twos: &Twos,
        excl: &[u64],
        backing: &mut Option<Backing<'_>>,
    ) -> Result<u32, OctalError> {
        let (twos, gap): (&[i64], usize) = (&twos.us, twos.gap);
        if self.bit_marks.bits {
            let g = self.step_bits(g, n, twos, gap, excl[0], backing)?;
            // 64: every value below 64 is excluded, and no pair reaches 64 — only other moves.
            return Ok(if g < 64 { g } else { 64 + mex(&excl[1..]) });
        }
        if self.stamp >= Stamp::MAX - HEAPS as Stamp {
            self.marks.fill(0);
            self.stamp = 0;
            self.premarked = None;
        }
        // (1) pairs with a rare part. With every u ≥ 0 the partners in heaps n..n+HEAPS of
        // positions a ≥ HEAPS − u are all below n, so they are marked for the whole block in
        // one pass (shared loads, four consecutive partners per position); the few others
        // (and, with a part rule, the window of positions forbidden for some heap of the
        // block) are added per heap by `block_rest`.
        let (j, stamp) = match self.premarked {
            Some((first, s0)) if n > first && n < first + HEAPS => {
                let j = n - first;
                (j, s0 + j as Stamp)
            }
            _ if batchable(n, twos, HEAPS) => {
                let s0 = self.stamp + 1;
                self.stamp += HEAPS as Stamp;
                self.premarked = Some((n, s0));
                let mut marks = std::mem::take(&mut self.marks);
                self.block_pairs(n, twos, gap, |pos, vals, r| {
                    stamps::pairs_block(pos, vals, g.tail, r - g.base, &mut marks, s0);
                });
                self.marks = marks;
                (0, s0)
            }
            _ => {
                self.premarked = None;
                self.refresh_probe(n);
                self.probing.head = 0;
                self.stamp += 1;
                let stamp = self.stamp;
                let mut marks = std::mem::take(&mut self.marks);
                let mark = slot(&mut marks, 0);
                self.heap_pairs(n, twos, gap, |pos, vals, r| {
                    stamps::pairs(pos, vals, g.tail, r - g.base, mark, stamp);
                });
                self.marks = marks;
                (0, stamp)
            }
        };
        if self.premarked.is_some() {
            let mark = slot(&mut self.marks, j);
            block_rest(
                &self.rare,
                &self.rare_vals,
                &self.rest,
                g,
                n,
                twos,
                gap,
                |x| {
                    mark[usize::from(x)] = stamp;
                },
            );
        }
        if !self.window.far.is_empty() {
            let mark = slot(&mut self.marks, j);
            far_pairs(&mut self.window.far, g, backing, n, n, twos, gap, |x| {
                mark[usize::from(x)] = stamp;
            })?;
        }
        let mark = slot(&mut self.marks, j);
        for (w, &bits) in excl.iter().enumerate() {
            let mut b = bits;
            while b != 0 {
                // Sparse mode only runs while values (and so their nim-sums) are below 2^16.
                mark[w * 64 + b.trailing_zeros() as usize] = stamp;
                b &= b - 1;
            }
        }
        // Least common value not excluded.
        let Some(c) = self
            .common_list
            .iter()
            .find(|&&v| mark[usize::from(v)] != stamp)
            .map(|&v| u32::from(v))
        else {
            // Cannot happen while the mask is below the value width; stay correct anyway.
            for &u in twos {
                let Some((r, lo, hi)) = split_range(n, u, gap) else {
                    continue;
                };
                self.read_back_stamps(g, backing, r, lo, hi, stamp, j)?;
            }
            let mark = slot(&mut self.marks, j);
            return Ok((0..MARKS).find(|&v| mark[v] != stamp).unwrap_or(MARKS) as u32);
        };
        // (2) rare values below c that are not yet excluded.
        let below_c = self.rare_list.partition_point(|&v| u32::from(v) < c);
        self.missing.clear();
        self.missing.extend_from_slice(&self.rare_list[..below_c]);
        drop_marked(&mut self.missing, mark, stamp);
        if self.missing.is_empty() {
            self.probing.head_len = self.probing.head_len.saturating_sub(HEAD_SHRINK);
            return Ok(c);
        }
        self.probing.head_len =
            (self.probing.head_len + HEAD_GROW).min(self.probing.probe.pos.len());
        self.counts.scans += 1;
        // Every common value below c is excluded already, so only the missing rare values
        // matter (`rare_check.rs`).
        let marker = StampMarker {
            mark: slot(&mut self.marks, j),
            stamp,
            missing: &mut self.missing,
        };
        let reads = Reads::direct(g, backing, self.force_read_back);
        let (probes, scanned) = (self.probing.probe.view(), &mut self.counts.scanned_pairs);
        rare_check(
            marker,
            probes,
            self.probing.head,
            reads,
            n,
            twos,
            gap,
            scanned,
        )?;
        // The missing list is ascending; its head (if any) is the least unexcluded value.
        Ok(self.missing.first().map_or(c, |&v| v.into()))
    }
}

/// The pairs with a rare part of heap `n = first + j` that the block pass
/// ([`stamps::pairs_block`] or [`bitmarks::pairs_block`]) left out when it marked the block
/// of `heaps` heaps from `first`: positions a < heaps − u (partner ≥ first, unknown then) and
/// a ≥ first − u (a itself unknown then). With a part rule (`gap > 0`) it also adds the pairs
/// of the block's forbidden window ([`gap_window`]) that are allowed for this heap; every
/// pair marked here is tested.
///
/// [`gap_window`]: super::split::gap_window
///
/// `ranges` holds, per digit, the block's index bounds ([`RestRanges`], found once per block
/// by [`Sparse::block_pairs`]); only the positions past `high` below r are looked up here (a
/// short walk: rare positions that recent).
#[allow(clippy::too_many_arguments)]
fn block_rest<T: Cell>(
    rare: &[u32],
    rare_vals: &[u16],
    ranges: &[RestRanges],
    g: View<'_, T>,
    n: usize,
    twos: &[i64],
    gap: usize,
    mut mark: impl FnMut(u16),
) {
    for (&u, &RestRanges { low, high, w0, w1 }) in twos.iter().zip(ranges) {
        let r = n - u as usize; // u ≥ 0 for a premarked block
        let mut end = high;
        while end < rare.len() && (rare[end] as usize) < r {
            end += 1;
        }
        let w1 = w1.min(end);
        for i in (0..low).chain(high..end).chain(w0.min(w1)..w1) {
            let a = rare[i] as usize;
            if allowed(a, r, gap) {
                mark(rare_vals[i] ^ g.near(r - a).low16());
            }
        }
    }
}
