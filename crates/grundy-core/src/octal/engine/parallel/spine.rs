//! The spine: step (1) of the rare/common method for a block of heaps, in order, on one
//! thread, taking every G(n) to be `c` (see `mod.rs`).
//!
//! Heap n starts from its far row (the pairs below `split`, or nothing when there are no far
//! rows) and adds the *near* pairs — rare smaller parts `a ≤ r − split` (every rare position
//! when `split` is 0) — the one-heap moves and taking the whole heap, and the rare positions
//! beyond a window (`far`, read back from the archive by the caller). Then `c` is the least
//! common value not marked, and the rare values below `c` not marked are what the heap's
//! verifier must find. Near pairs are marked [`RowKind::HEAPS`] heaps at a time for the
//! positions whose partners all lie before those heaps (`a ≥ HEAPS − u`), and heap by heap
//! for the rest (the smallest positions, whose partners are the heaps just computed).
//!
//! The spine reads its values from `win`, a copy of the last values before the block to which
//! it appends each value it takes: the near pairs never reach further back than `split` (or,
//! without far rows, than the largest rare position).

use super::{Bits, Bytes, RowKind, WIDEST};
use crate::octal::error::OctalError;
use crate::octal::rules::Twos;
use crate::octal::values::Cell;

#[cfg(test)]
mod tests {
    #[test]
    fn marked_bytes_gather_into_bits() {
        let mut seed = 0x1234_5678_9abc_def1u64;
        for _ in 0..1000 {
            let mut chunk = [0u8; 64];
            let mut want = 0u64;
            for (i, b) in chunk.iter_mut().enumerate() {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                *b = (seed & 1) as u8;
                want |= u64::from(*b) << i;
            }
            assert_eq!(super::marked64(&chunk), want);
        }
    }
}

/// What the spine needs besides the rows and the values.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Spine<'a> {
    /// Rare positions (ascending, all below every heap's `split` when it is nonzero) and their
    /// values.
    pub rare: &'a [u32],
    pub rare_vals: &'a [u16],
    pub twos: &'a Twos,
    /// One-heap moves (take u, leave one heap).
    pub ones: &'a [usize],
    /// Heaps below this number of tokens may be taken whole (finite codes: bit 0 of `d_n`).
    pub take_all: &'a [bool],
    /// Near pairs are those whose larger part is `split` or more (0: every pair).
    pub split: usize,
    /// The values taken must stay below this (the engine's value bound, `2^vbits`); the heap
    /// whose `c` reaches it ends the block (the engine computes it on its own).
    pub limit: u32,
    /// Per 64 values from 0: which are common, which rare.
    pub common: &'a [u64],
    pub rare_words: &'a [u64],
}

/// What one heap's row says: c and the rare values below it that are not marked.
pub(crate) trait Analyse: RowKind {
    /// Words of missing values recorded per heap.
    const MISSING_WORDS: usize;
    /// `c` (None when no common value below 64·common.len() is unmarked) and the missing
    /// values into `missing`.
    fn analyse(row: &Self::Row, sp: &Spine<'_>, missing: &mut [u64]) -> Option<u32>;
}

impl Analyse for Bits {
    const MISSING_WORDS: usize = 1;
    #[inline(always)]
    fn analyse(row: &u64, sp: &Spine<'_>, missing: &mut [u64]) -> Option<u32> {
        let c = (!row & sp.common[0]).trailing_zeros();
        if c >= 64 {
            return None;
        }
        missing[0] = sp.rare_words[0] & ((1u64 << c) - 1) & !row;
        Some(c)
    }
}

impl<const N: usize> Analyse for Bytes<N> {
    const MISSING_WORDS: usize = N / 64;
    #[inline(always)]
    fn analyse(row: &[u8; N], sp: &Spine<'_>, missing: &mut [u64]) -> Option<u32> {
        for (w, chunk) in row.chunks_exact(64).enumerate().take(sp.common.len()) {
            let free = !marked64(chunk);
            let common = free & sp.common[w];
            if common != 0 {
                let low = common.trailing_zeros();
                missing[w] = free & sp.rare_words[w] & ((1u64 << low) - 1);
                missing[w + 1..].fill(0);
                return Some(64 * w as u32 + low);
            }
            missing[w] = free & sp.rare_words[w];
        }
        None
    }
}

/// Marks heap n's pairs with the rare positions beyond the window (`FarPairs`, read back).
pub(crate) type FarMarks<'a> =
    &'a mut dyn FnMut(usize, &mut dyn FnMut(u16)) -> Result<(), OctalError>;

/// Bit i set ⇔ `chunk[i]` is marked (bytes are 0 or 1), for 64 bytes: eight at a time, the
/// low bits of a word's bytes gathered into its top byte by one multiplication.
#[inline(always)]
fn marked64(chunk: &[u8]) -> u64 {
    let mut bits = 0u64;
    for (k, eight) in chunk.chunks_exact(8).enumerate() {
        let w = u64::from_le_bytes(eight.try_into().expect("eight bytes"));
        bits |= (w.wrapping_mul(0x0102_0408_1020_4080) >> 56) << (8 * k);
    }
    bits
}

/// The spine over one block, handed to it in *parts* (the tasks whose far rows are done, in
/// order): what carries over from one part to the next.
#[derive(Debug)]
pub(crate) struct Run {
    /// Per digit: u, the index of the first position a block pass covers (`h − u`: the
    /// partners of the smaller ones lie in the block itself), and the end of the positions
    /// the last block pass covered (a cursor: the bound only grows).
    digits: Vec<(usize, usize, usize)>,
    words: [u64; WIDEST],
}

impl Run {
    /// The spine at the start of a block.
    pub(crate) fn new<K: RowKind>(sp: &Spine<'_>) -> Run {
        let h = K::HEAPS;
        let rare = sp.rare;
        let idx = |x: usize| rare.partition_point(|&a| (a as usize) < x);
        let digits = sp
            .twos
            .iter()
            .map(|&u| {
                let u = u as usize; // u ≥ 0 on the parallel path
                let lb = 1.max(h.saturating_sub(u));
                (u, idx(lb), idx(lb))
            })
            .collect();
        Run {
            digits,
            words: [0; WIDEST],
        }
    }

    /// Computes heaps `first..first + rows.len()`, the next part of the block: `rows` holds
    /// their far rows (empty rows when `split` is 0) and is marked further; every part but the
    /// last is a multiple of [`RowKind::HEAPS`] heaps. `win[i]` is G(`win_base + i`) for every
    /// heap from `win_base` to `first` and gets one value per heap; `front` holds G(i) for the
    /// smaller parts of pairs whose larger part is a rare position (without far rows: rare
    /// positions past r/2, which only short sequences have); `missing` gets
    /// [`Analyse::MISSING_WORDS`] words per heap. `far(n, mark)` adds heap n's pairs with the
    /// rare positions beyond the window. Returns the number of heaps computed: fewer than
    /// `rows.len()` when a heap's `c` reaches `sp.limit` (or no common value is free): that
    /// heap is left to the engine, and the block ends there.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn part<K: Analyse, T: Cell>(
        &mut self,
        sp: &Spine<'_>,
        front: &[T],
        first: usize,
        rows: &mut [K::Row],
        win: &mut Vec<T>,
        win_base: usize,
        missing: &mut Vec<u64>,
        far: &mut Option<FarMarks<'_>>,
    ) -> Result<usize, OctalError> {
        debug_assert_eq!(win_base + win.len(), first);
        let h = K::HEAPS;
        let (rare, vals, gap) = (sp.rare, sp.rare_vals, sp.twos.gap);
        let idx = |x: usize| rare.partition_point(|&a| (a as usize) < x);
        let max_rare = rare.last().map_or(0, |&a| a as usize);
        let Run { digits, words } = self;
        let words = &mut words[..K::MISSING_WORDS];
        let mut i = 0;
        while i < rows.len() {
            let w = h.min(rows.len() - i);
            let m = first + i;
            for (u, i_lb, i1) in digits.iter_mut() {
                let r0 = m - *u;
                let lb = 1.max(h.saturating_sub(*u));
                let mut hb = r0.saturating_sub(gap) / 2;
                if sp.split > 0 {
                    hb = hb.min(r0.saturating_sub(sp.split));
                }
                *i1 = (*i1).max(*i_lb);
                while *i1 < rare.len() && rare[*i1] as usize <= hb {
                    *i1 += 1;
                }
                if w == h && lb <= hb {
                    K::block(
                        &rare[*i_lb..*i1],
                        &vals[*i_lb..*i1],
                        win,
                        r0 - win_base,
                        &mut rows[i..i + h],
                    );
                } else {
                    *i1 = *i_lb; // no block pass: every position heap by heap
                }
            }
            for j in 0..w {
                let n = m + j;
                // Bit rows live in a register while the heap's pairs are added.
                let mut local = rows[i + j];
                let row = if K::COPY {
                    &mut local
                } else {
                    &mut rows[i + j]
                };
                for &(u, i_lb, i1) in digits.iter() {
                    let Some(r) = n.checked_sub(u) else { continue };
                    let Some(hi) = r.checked_sub(gap).map(|x| x / 2) else {
                        continue;
                    };
                    let top = if sp.split > 0 {
                        hi.min(r.saturating_sub(sp.split))
                    } else {
                        hi
                    };
                    let mut mark = |k: usize| {
                        let a = rare[k] as usize;
                        K::one(row, vals[k] ^ win[r - a - win_base].low16());
                    };
                    // The smallest positions (partners in this block), then those past the
                    // block pass's bound up to this heap's.
                    for k in (0..i_lb).take_while(|&k| rare[k] as usize <= top) {
                        mark(k);
                    }
                    let mut k = i1;
                    while k < rare.len() && rare[k] as usize <= top {
                        mark(k);
                        k += 1;
                    }
                    // Without far rows: rare larger parts (positions in [r − hi, r − 1]).
                    let p0 = (r - hi).max(hi + 1);
                    if sp.split == 0 && max_rare >= p0 {
                        for k in idx(p0)..idx(r) {
                            let p = rare[k] as usize;
                            K::one(row, vals[k] ^ front[r - p].low16());
                        }
                    }
                }
                for &u in sp.ones {
                    if u >= n {
                        break;
                    }
                    K::one(row, win[n - u - win_base].low16());
                }
                if n < sp.take_all.len() && sp.take_all[n] {
                    K::one(row, 0);
                }
                if let Some(far) = far.as_mut() {
                    far(n, &mut |x| K::one(row, x))?;
                }
                let c = K::analyse(row, sp, words).filter(|&c| c < sp.limit);
                if K::COPY {
                    rows[i + j] = local;
                }
                let Some(c) = c else {
                    return Ok(i + j);
                };
                win.push(T::from_u32(c));
                missing.extend_from_slice(words);
            }
            i += w;
        }
        Ok(rows.len())
    }
}
