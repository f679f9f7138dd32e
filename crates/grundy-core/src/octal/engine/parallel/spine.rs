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

use super::{Bits, Bytes, RowKind};
use crate::octal::engine::rules::Twos;
use crate::octal::error::OctalError;
use crate::octal::values::Cell;

#[cfg(test)]
mod tests {
    use super::{Analyse, Spine};
    use crate::octal::engine::parallel::{Bits, Bytes, RowKind};
    use crate::octal::engine::rules::Twos;

    fn xorshift(seed: &mut u64) -> u64 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed
    }

    /// `c` and the missing values by their definitions: the least unmarked common value below
    /// `64·words`, and the unmarked rare values below it.
    fn naive(marked: &[bool], common: &[u64], words: usize) -> (Option<u32>, Vec<u32>) {
        let is_common = |v: usize| common[v / 64] >> (v % 64) & 1 == 1;
        let c = (0..64 * words).find(|&v| !marked[v] && is_common(v));
        let missing = match c {
            Some(c) => (0..c)
                .filter(|&v| !marked[v] && !is_common(v))
                .map(|v| v as u32)
                .collect(),
            None => Vec::new(),
        };
        (c.map(|c| c as u32), missing)
    }

    /// A spine that only classifies values (the analysis reads nothing else).
    fn spine_of<'a>(twos: &'a Twos, common: &'a [u64]) -> Spine<'a> {
        Spine {
            rare: &[],
            rare_vals: &[],
            twos,
            ones: &[],
            take_all: &[],
            split: 0,
            limit: u32::MAX,
            common,
        }
    }

    fn bits_of(words: &[u64]) -> Vec<u32> {
        (0..64 * words.len() as u32)
            .filter(|&v| words[(v / 64) as usize] >> (v % 64) & 1 == 1)
            .collect()
    }

    /// Byte rows: `c` found through the far row's hint after more marks (the near pairs) is
    /// the whole row's, and the missing values are the definition's — with few and many
    /// marks, so that the hint's candidates run out, are all marked, or are missing.
    #[test]
    fn byte_rows_hint_and_missing_agree_with_the_definitions() {
        const N: usize = 512;
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let twos = Twos::default();
        for round in 0..4000 {
            let words = 1 + (xorshift(&mut seed) % 4) as usize;
            let (common, rare): (Vec<u64>, Vec<u64>) = (0..words)
                .map(|_| {
                    let c = xorshift(&mut seed) | xorshift(&mut seed);
                    (c, !c)
                })
                .unzip();
            let sp = spine_of(&twos, &common);
            // Far marks, dense or sparse; then near marks, few or (every 8th row) many.
            let density = [2, 8, 64, 250][round % 4];
            let mut row = <Bytes<N> as RowKind>::empty();
            for v in 0..N / 2 {
                if xorshift(&mut seed) % 256 < density {
                    <Bytes<N> as RowKind>::one(&mut row, v as u16);
                }
            }
            let hint = <Bytes<N> as Analyse>::hint(&row, &common);
            let near = if round % 8 == 0 { 60 } else { 3 };
            for _ in 0..near {
                let v =
                    (xorshift(&mut seed) % (64 * words as u64).min(40 + round as u64 % 200)) as u16;
                <Bytes<N> as RowKind>::one(&mut row, v);
            }
            let marked: Vec<bool> = row.iter().map(|&b| b == 1).collect();
            let (want_c, want_missing) = naive(&marked, &common, words);
            assert_eq!(
                <Bytes<N> as Analyse>::least_common(&row, &hint, &sp),
                want_c
            );
            let no_hint = <Bytes<N> as Analyse>::NO_HINT;
            assert_eq!(
                <Bytes<N> as Analyse>::least_common(&row, &no_hint, &sp),
                want_c
            );
            if let Some(c) = want_c {
                let mut missing = vec![u64::MAX; <Bytes<N> as Analyse>::MISSING_WORDS];
                <Bytes<N> as Analyse>::missing(&row, c, &rare, &mut missing);
                assert_eq!(bits_of(&missing), want_missing);
            }
        }
    }

    #[test]
    fn bit_rows_c_and_missing_agree_with_the_definitions() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let twos = Twos::default();
        for _ in 0..4000 {
            let common = [xorshift(&mut seed) | xorshift(&mut seed)];
            let rare = [!common[0]];
            let sp = spine_of(&twos, &common);
            let row = xorshift(&mut seed) | xorshift(&mut seed) | xorshift(&mut seed);
            let marked: Vec<bool> = (0..64).map(|v| row >> v & 1 == 1).collect();
            let (want_c, want_missing) = naive(&marked, &common, 1);
            assert_eq!(<Bits as Analyse>::least_common(&row, &(), &sp), want_c);
            if let Some(c) = want_c {
                let mut missing = [u64::MAX];
                <Bits as Analyse>::missing(&row, c, &rare, &mut missing);
                assert_eq!(bits_of(&missing), want_missing);
            }
        }
    }

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
    /// Per 64 values from 0: which are common.
    pub common: &'a [u64],
}

/// What one heap's row says: `c`, and (for its verifier) the rare values below `c` that are not
/// marked.
pub(crate) trait Analyse: RowKind {
    /// Words of missing values a heap has (bits per 64 values from 0).
    const MISSING_WORDS: usize;
    /// What a far row says about `c` before the spine adds the near pairs ([`Analyse::hint`]).
    type Hint: Copy + Send + Sync;
    /// No hint: `c` is looked for in the whole row.
    const NO_HINT: Self::Hint;
    /// The hint of a far row, `common` as [`Spine::common`]: computed by the far-row tasks,
    /// on every thread, so that the spine's `c` is a look-up.
    fn hint(row: &Self::Row, common: &[u64]) -> Self::Hint;
    /// `c`: the least common value not marked (None when none below 64·common.len() is);
    /// `hint` is the row's before the near pairs, or [`Analyse::NO_HINT`].
    fn least_common(row: &Self::Row, hint: &Self::Hint, sp: &Spine<'_>) -> Option<u32>;
    /// The rare values below `c` not marked, into `missing` ([`Analyse::MISSING_WORDS`]
    /// words; `rare_words` per 64 values from 0 the rare ones). The verifiers call it on the rows the
    /// spine left, so that the spine itself only finds `c`.
    fn missing(row: &Self::Row, c: u32, rare_words: &[u64], missing: &mut [u64]);
}

/// The values below `c` of a word of 64 from `64·w`: all of them before c's word, none after.
#[inline(always)]
fn below(c: u32, w: usize) -> u64 {
    let lo = 64 * w as u32;
    if c >= lo + 64 {
        u64::MAX
    } else if c <= lo {
        0
    } else {
        (1u64 << (c - lo)) - 1
    }
}

impl Analyse for Bits {
    const MISSING_WORDS: usize = 1;
    /// A bit row's `c` is one instruction: no hint.
    type Hint = ();
    const NO_HINT: () = ();
    #[inline(always)]
    fn hint(_: &u64, _: &[u64]) {}
    #[inline(always)]
    fn least_common(row: &u64, _: &(), sp: &Spine<'_>) -> Option<u32> {
        let c = (!row & sp.common[0]).trailing_zeros();
        (c < 64).then_some(c)
    }
    #[inline(always)]
    fn missing(row: &u64, c: u32, rare_words: &[u64], missing: &mut [u64]) {
        missing[0] = rare_words[0] & below(c, 0) & !row;
    }
}

/// Free common values a byte row's hint holds.
const CANDIDATES: usize = 4;
/// A hint's end (fewer free common values than [`CANDIDATES`]).
const NONE: u16 = u16::MAX;

impl<const N: usize> Analyse for Bytes<N> {
    const MISSING_WORDS: usize = N / 64;
    /// The least [`CANDIDATES`] common values the far row leaves free, ascending. The near
    /// pairs only add marks, so `c` is the first of them the spine has not marked — unless it
    /// marked all of them (rare: a heap's near pairs are a few per cent of its pairs), or
    /// the row had fewer: then the whole row is read.
    type Hint = [u16; CANDIDATES];
    const NO_HINT: [u16; CANDIDATES] = [NONE; CANDIDATES];
    #[inline]
    fn hint(row: &[u8; N], common: &[u64]) -> [u16; CANDIDATES] {
        let mut hint = [NONE; CANDIDATES];
        let mut k = 0;
        for (w, chunk) in row.chunks_exact(64).enumerate().take(common.len()) {
            let mut free = !marked64(chunk) & common[w];
            while free != 0 {
                hint[k] = (64 * w as u32 + free.trailing_zeros()) as u16;
                k += 1;
                if k == CANDIDATES {
                    return hint;
                }
                free &= free - 1;
            }
        }
        hint
    }
    #[inline(always)]
    fn least_common(row: &[u8; N], hint: &[u16; CANDIDATES], sp: &Spine<'_>) -> Option<u32> {
        for &c in hint {
            if c == NONE {
                break;
            }
            if row[usize::from(c) & (N - 1)] == 0 {
                return Some(u32::from(c));
            }
        }
        for (w, chunk) in row.chunks_exact(64).enumerate().take(sp.common.len()) {
            let common = !marked64(chunk) & sp.common[w];
            if common != 0 {
                return Some(64 * w as u32 + common.trailing_zeros());
            }
        }
        None
    }
    #[inline]
    fn missing(row: &[u8; N], c: u32, rare_words: &[u64], missing: &mut [u64]) {
        missing.fill(0);
        for (w, chunk) in row.chunks_exact(64).enumerate().take(rare_words.len()) {
            if 64 * w as u32 >= c {
                break;
            }
            let keep = rare_words[w] & below(c, w);
            if keep != 0 {
                missing[w] = keep & !marked64(chunk);
            }
        }
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
        Run { digits }
    }

    /// Computes heaps `first..first + rows.len()`, the next part of the block: `rows` holds
    /// their far rows (empty rows when `split` is 0) and is marked further, `hints` their
    /// hints ([`Analyse::NO_HINT`] without far rows); every part but the
    /// last is a multiple of [`RowKind::HEAPS`] heaps. `win[i]` is G(`win_base + i`) for every
    /// heap from `win_base` to `first` and gets one value per heap; `front` holds G(i) for the
    /// smaller parts of pairs whose larger part is a rare position (without far rows: rare
    /// positions past r/2, which only short sequences have). `far(n, mark)` adds heap n's pairs with the
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
        hints: &[K::Hint],
        win: &mut Vec<T>,
        win_base: usize,
        far: &mut Option<FarMarks<'_>>,
    ) -> Result<usize, OctalError> {
        debug_assert_eq!(win_base + win.len(), first);
        let h = K::HEAPS;
        let (rare, vals, gap) = (sp.rare, sp.rare_vals, sp.twos.gap);
        let max_rare = rare.last().map_or(0, |&a| a as usize);
        let Run { digits } = self;
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
                let near = Near {
                    n,
                    digits,
                    sp,
                    front,
                    win,
                    win_base,
                    max_rare,
                };
                let c = if K::COPY {
                    // Bit rows live in a register while the heap's pairs are added (the far
                    // pairs' callback gets a copy: what it sees must not be the register).
                    let mut local = rows[i + j];
                    near.mark::<K>(&mut local);
                    if let Some(far) = far.as_mut() {
                        let mut row = local;
                        far(n, &mut |x| K::one(&mut row, x))?;
                        local = row;
                    }
                    rows[i + j] = local;
                    K::least_common(&local, &hints[i + j], sp)
                } else {
                    let row = &mut rows[i + j];
                    near.mark::<K>(row);
                    if let Some(far) = far.as_mut() {
                        far(n, &mut |x| K::one(row, x))?;
                    }
                    K::least_common(row, &hints[i + j], sp)
                };
                let Some(c) = c.filter(|&c| c < sp.limit) else {
                    return Ok(i + j);
                };
                win.push(T::from_u32(c));
            }
            i += w;
        }
        Ok(rows.len())
    }
}

/// One heap's pairs that the spine adds by itself (see [`Run::part`]): the smallest positions,
/// whose partners are the heaps just computed, those past the block pass's bound, the rare
/// larger parts without far rows, the one-heap moves and taking the whole heap.
struct Near<'s, 'a, T> {
    n: usize,
    digits: &'s [(usize, usize, usize)],
    sp: &'s Spine<'a>,
    front: &'s [T],
    win: &'s [T],
    win_base: usize,
    max_rare: usize,
}

impl<T: Cell> Near<'_, '_, T> {
    /// Marks them into `row` (inlined, so that a bit row stays in a register).
    #[inline(always)]
    fn mark<K: RowKind>(&self, row: &mut K::Row) {
        let (n, sp, win, win_base) = (self.n, self.sp, self.win, self.win_base);
        let (rare, vals, gap) = (sp.rare, sp.rare_vals, sp.twos.gap);
        let idx = |x: usize| rare.partition_point(|&a| (a as usize) < x);
        for &(u, i_lb, i1) in self.digits {
            let Some(r) = n.checked_sub(u) else { continue };
            let Some(hi) = r.checked_sub(gap).map(|x| x / 2) else {
                continue;
            };
            let top = if sp.split > 0 {
                hi.min(r.saturating_sub(sp.split))
            } else {
                hi
            };
            // The smallest positions (partners in this block), then those past the block
            // pass's bound up to this heap's.
            for k in (0..i_lb).take_while(|&k| rare[k] as usize <= top) {
                K::one(row, vals[k] ^ win[r - rare[k] as usize - win_base].low16());
            }
            let mut k = i1;
            while k < rare.len() && rare[k] as usize <= top {
                K::one(row, vals[k] ^ win[r - rare[k] as usize - win_base].low16());
                k += 1;
            }
            // Without far rows: rare larger parts (positions in [r − hi, r − 1]).
            let p0 = (r - hi).max(hi + 1);
            if sp.split == 0 && self.max_rare >= p0 {
                for k in idx(p0)..idx(r) {
                    let p = rare[k] as usize;
                    K::one(row, vals[k] ^ self.front[r - p].low16());
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
    }
}
