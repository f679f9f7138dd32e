//! The verifiers: the rare check of heaps the spine has taken to be common (see `mod.rs`).
//!
//! A heap's check needs G(0..n) and the rare values below G(n) that its row (the rare pairs,
//! as the spine left it) does not mark — the *missing* values, read off the row here, in
//! parallel, rather than by the spine; it looks for each of them exactly as the one-thread engine does (`rare_check.rs`): a head of the probe list
//! marked for a block of heaps at once, then the rest of the probes and the kept splits heap
//! by heap. It ends with a [`Verdict`]; a check that would need the archive (window mode) is
//! deferred to the engine, which has it.

use std::cell::RefCell;

use super::spine::Analyse;
use super::{Bits, Bytes, RowKind};
use crate::octal::engine::sparse::rare_check::{
    missing_list, rare_check, BitMarker, Ended, Marker, Probes, Reads, StampMarker,
};
use crate::octal::engine::sparse::stamps::{self, slot, Stamp, MARKS};
use crate::octal::engine::split::{split_range, BIT_HEAPS, HEAPS};
use crate::octal::values::Cell;
use crate::octal::window::View;

/// How a heap's rare check ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Verdict {
    /// Every missing value found: G(n) is the `c` the spine took.
    #[default]
    Common,
    /// Some rare value is excluded by no split: G(n) is this (the least such), not `c`.
    Rare(u32),
    /// The check needs values only the archive holds.
    Deferred,
}

/// What every check of a round shares.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Checks<'a, T> {
    /// The values: G(0..n) for every heap n checked.
    pub g: View<'a, T>,
    pub probes: Probes<'a>,
    /// The first `head_probes` probes are at positions ≥ the block width (their partners
    /// known for a whole block).
    pub head_probes: usize,
    pub twos: &'a [i64],
    pub gap: usize,
    /// Tests: every check reads its splits through the archive path (so it is deferred).
    pub force_read_back: bool,
}

/// Work counts of a share of checks (added to the engine's statistics).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Counts {
    pub scans: u64,
    pub scanned_pairs: u64,
}

/// The head length's adaptation (as the one-thread engine's, `sparse.rs`).
const HEAD_GROW: usize = 3;
const HEAD_SHRINK: usize = 2;

/// A share of checks for one kind of rows.
pub(crate) trait Verify: Analyse {
    /// The marks a verifier uses with these rows.
    type Marks: BlockMarks;
    /// Runs `f` with this thread's marks.
    fn with_marks<R>(f: impl FnOnce(&mut Self::Marks) -> R) -> R;

    /// Checks heaps `first..first + out.len()`, `rows` holding their rows as the spine left
    /// them and `rare_words` the rare values (per 64 from 0); `head` is the probe head length,
    /// adapted as it goes.
    fn verify<T: Cell>(
        ch: &Checks<'_, T>,
        first: usize,
        rows: &[Self::Row],
        rare_words: &[u64],
        head: &mut usize,
        out: &mut [Verdict],
        counts: &mut Counts,
    ) {
        // The missing values of each heap, [`Analyse::MISSING_WORDS`] words a heap.
        let per = Self::MISSING_WORDS;
        let mut missing = vec![0u64; out.len() * per];
        for (i, (row, words)) in rows.iter().zip(missing.chunks_exact_mut(per)).enumerate() {
            Self::missing(row, ch.g.near(first + i).get(), rare_words, words);
        }
        Self::with_marks(|b| verify_with(b, ch, first, &missing, head, out, counts));
    }
}

/// The probe list's head for the block of heaps from `m`: none unless every probe lies inside
/// every heap's split range.
fn head_for<T: Cell>(
    ch: &Checks<'_, T>,
    m: usize,
    head: usize,
    width: usize,
    count: usize,
) -> usize {
    if count < width {
        return 0;
    }
    let in_range = ch.twos.iter().all(|&u| {
        split_range(m, u, ch.gap)
            .is_some_and(|(_, lo, hi)| ch.probes.min >= lo && ch.probes.max <= hi)
    });
    if in_range {
        head.min(ch.head_probes)
    } else {
        0
    }
}

/// A verifier's marks for a block of heaps: the head of the probe list marked for all of them
/// at once, then one heap's [`Marker`] at a time.
pub(crate) trait BlockMarks {
    /// Heaps a block.
    const HEAPS: usize;
    type One<'s>: Marker
    where
        Self: 's;
    /// Starts a block: the probes `pos`/`vals` paired with the totals `r, r + 1, …`.
    fn start<T: Cell>(&mut self, head: (&[u32], &[u16]), g: &[T], totals: &[usize]);
    /// Heap j of the block, missing the values of `missing` (bits per 64 values from 0).
    fn heap(&mut self, j: usize, missing: &[u64]) -> Self::One<'_>;
    /// The least value still missing (after a check that did not find them all).
    fn least(one: &Self::One<'_>) -> u32;
}

/// Bit marks: a block's sets in registers.
pub(crate) struct BitBlock([u64; BIT_HEAPS]);

impl BlockMarks for BitBlock {
    const HEAPS: usize = BIT_HEAPS;
    type One<'s> = BitMarker;
    fn start<T: Cell>(&mut self, (pos, vals): (&[u32], &[u16]), g: &[T], totals: &[usize]) {
        self.0 = [0; BIT_HEAPS];
        for &r in totals {
            Bits::block(pos, vals, g, r, &mut self.0);
        }
    }
    fn heap(&mut self, j: usize, missing: &[u64]) -> BitMarker {
        BitMarker {
            marks: self.0[j],
            missing: missing[0],
        }
    }
    fn least(one: &BitMarker) -> u32 {
        one.missing.trailing_zeros()
    }
}

/// Stamp marks: a verifier thread's stamp arrays (one per heap of a block), its next stamp,
/// and a heap's missing values.
pub(crate) struct StampScratch {
    marks: Vec<Stamp>,
    stamp: Stamp,
    s0: Stamp,
    missing: Vec<u16>,
}

impl BlockMarks for StampScratch {
    const HEAPS: usize = HEAPS;
    type One<'s> = StampMarker<'s>;
    fn start<T: Cell>(&mut self, (pos, vals): (&[u32], &[u16]), g: &[T], totals: &[usize]) {
        if self.stamp >= Stamp::MAX - HEAPS as Stamp {
            self.marks.fill(0);
            self.stamp = 0;
        }
        self.s0 = self.stamp + 1;
        self.stamp += HEAPS as Stamp;
        for &r in totals {
            stamps::pairs_block(pos, vals, g, r, &mut self.marks, self.s0);
        }
    }
    fn heap(&mut self, j: usize, missing: &[u64]) -> StampMarker<'_> {
        // The missing values, ascending.
        missing_list(missing, &mut self.missing);
        StampMarker {
            mark: slot(&mut self.marks, j),
            stamp: self.s0 + j as Stamp,
            missing: &mut self.missing,
        }
    }
    fn least(one: &StampMarker<'_>) -> u32 {
        one.missing.first().map_or(0, |&v| u32::from(v))
    }
}

/// The checks of heaps `first..first + out.len()` with the block marks `b` (see [`Verify`]).
fn verify_with<B: BlockMarks, T: Cell>(
    b: &mut B,
    ch: &Checks<'_, T>,
    first: usize,
    missing: &[u64],
    head: &mut usize,
    out: &mut [Verdict],
    counts: &mut Counts,
) {
    let h = B::HEAPS;
    let words = missing.len() / out.len().max(1);
    let mut totals = Vec::with_capacity(ch.twos.len());
    let mut i = 0;
    while i < out.len() {
        let w = h.min(out.len() - i);
        let m = first + i;
        let k = head_for(ch, m, *head, h, w);
        totals.clear();
        if k > 0 {
            totals.extend(ch.twos.iter().map(|&u| m - u as usize - ch.g.base));
            counts.scanned_pairs += (h * k * ch.twos.len()) as u64;
        }
        let head_probes = (&ch.probes.pos[..k], &ch.probes.vals[..k]);
        b.start(head_probes, ch.g.tail, &totals);
        for j in 0..w {
            let mut one = b.heap(j, &missing[(i + j) * words..(i + j + 1) * words]);
            if one.settle() {
                *head = head.saturating_sub(HEAD_SHRINK);
                out[i + j] = Verdict::Common;
                continue;
            }
            *head = (*head + HEAD_GROW).min(ch.probes.pos.len());
            counts.scans += 1;
            let reads = Reads {
                g: ch.g,
                backing: &mut None,
                defer: true,
                force_read_back: ch.force_read_back,
            };
            let n = m + j;
            let checked = rare_check(
                one,
                ch.probes,
                k,
                reads,
                n,
                ch.twos,
                ch.gap,
                &mut counts.scanned_pairs,
            );
            // (No archive is read: its errors are the only ones.)
            out[i + j] = match checked {
                Ok((Ended::Found, _)) => Verdict::Common,
                Ok((Ended::Exhausted, one)) => Verdict::Rare(B::least(&one)),
                Ok((Ended::Deferred, _)) | Err(_) => Verdict::Deferred,
            };
        }
        i += w;
    }
}

impl Verify for Bits {
    type Marks = BitBlock;
    fn with_marks<R>(f: impl FnOnce(&mut BitBlock) -> R) -> R {
        f(&mut BitBlock([0; BIT_HEAPS]))
    }
}

thread_local! {
    static SCRATCH: RefCell<Option<StampScratch>> = const { RefCell::new(None) };
}

impl<const N: usize> Verify for Bytes<N> {
    type Marks = StampScratch;
    fn with_marks<R>(f: impl FnOnce(&mut StampScratch) -> R) -> R {
        SCRATCH.with_borrow_mut(|scratch| {
            f(scratch.get_or_insert_with(|| StampScratch {
                marks: vec![0; HEAPS * MARKS],
                stamp: 0,
                s0: 0,
                missing: Vec::new(),
            }))
        })
    }
}
