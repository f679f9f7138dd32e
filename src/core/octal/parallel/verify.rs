//! The verifiers: the rare check of heaps the spine has taken to be common (see `mod.rs`).
//!
//! A heap's check needs G(0..n) and the rare values the spine left missing; it looks for each
//! of them exactly as the one-thread engine does (`rare_check.rs`): a head of the probe list
//! marked for a block of heaps at once, then the rest of the probes and the kept splits heap
//! by heap. It ends with a [`Verdict`]; a check that would need the archive (window mode) is
//! deferred to the engine, which has it.

use std::cell::RefCell;

use super::super::rare_check::{rare_check, BitMarker, Ended, Marker, Probes, Reads, StampMarker};
use super::super::stamps::{self, slot, Stamp, MARKS};
use super::super::values::Cell;
use super::super::window::View;
use super::{Bits, Bytes, RowKind};
use crate::core::octal::split::split_range;
use crate::core::octal::split::HEAPS;

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
pub(crate) trait Verify: RowKind {
    /// Checks heaps `first..first + out.len()`, `missing` holding their missing values
    /// ([`super::spine::Analyse::MISSING_WORDS`] words each); `head` is the probe head length,
    /// adapted as it goes.
    fn verify<T: Cell>(
        ch: &Checks<'_, T>,
        first: usize,
        missing: &[u64],
        head: &mut usize,
        out: &mut [Verdict],
        counts: &mut Counts,
    );
}

/// The probes marked for the block of heaps from `m`: none unless every probe lies inside
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

fn verdict(ended: Ended, least: impl FnOnce() -> u32) -> Verdict {
    match ended {
        Ended::Found => Verdict::Common,
        Ended::Exhausted => Verdict::Rare(least()),
        Ended::Deferred => Verdict::Deferred,
    }
}

impl Verify for Bits {
    fn verify<T: Cell>(
        ch: &Checks<'_, T>,
        first: usize,
        missing: &[u64],
        head: &mut usize,
        out: &mut [Verdict],
        counts: &mut Counts,
    ) {
        let h = Bits::HEAPS;
        let mut i = 0;
        while i < out.len() {
            let w = h.min(out.len() - i);
            let m = first + i;
            let k = head_for(ch, m, *head, h, w);
            let mut acc = [0u64; 8];
            if k > 0 {
                for &u in ch.twos {
                    let r0 = m - u as usize;
                    let (pos, vals) = (&ch.probes.pos[..k], &ch.probes.vals[..k]);
                    Bits::block(pos, vals, ch.g.tail, r0 - ch.g.base, &mut acc);
                }
                counts.scanned_pairs += (h * k * ch.twos.len()) as u64;
            }
            for j in 0..w {
                let n = m + j;
                let marker = BitMarker {
                    marks: acc[j],
                    missing: missing[i + j],
                };
                if marker.missing & !marker.marks == 0 {
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
                let ended = rare_check(
                    marker,
                    ch.probes,
                    k,
                    reads,
                    n,
                    ch.twos,
                    ch.gap,
                    &mut counts.scanned_pairs,
                );
                // (No archive is read: the only errors are its.)
                out[i + j] = match ended {
                    Ok((ended, m)) => verdict(ended, || m.missing.trailing_zeros()),
                    Err(_) => Verdict::Deferred,
                };
            }
            i += w;
        }
    }
}

/// A verifier thread's stamp arrays (one per heap of a block) and its next stamp.
struct StampScratch {
    marks: Vec<Stamp>,
    stamp: Stamp,
    missing: Vec<u16>,
}

thread_local! {
    static SCRATCH: RefCell<Option<StampScratch>> = const { RefCell::new(None) };
}

impl<const N: usize> Verify for Bytes<N> {
    fn verify<T: Cell>(
        ch: &Checks<'_, T>,
        first: usize,
        missing: &[u64],
        head: &mut usize,
        out: &mut [Verdict],
        counts: &mut Counts,
    ) {
        SCRATCH.with_borrow_mut(|scratch| {
            let s = scratch.get_or_insert_with(|| StampScratch {
                marks: vec![0; HEAPS * MARKS],
                stamp: 0,
                missing: Vec::new(),
            });
            verify_stamps(ch, first, missing, N / 64, head, out, counts, s);
        });
    }
}

#[allow(clippy::too_many_arguments)]
fn verify_stamps<T: Cell>(
    ch: &Checks<'_, T>,
    first: usize,
    missing: &[u64],
    words: usize,
    head: &mut usize,
    out: &mut [Verdict],
    counts: &mut Counts,
    s: &mut StampScratch,
) {
    let h = HEAPS;
    let mut i = 0;
    while i < out.len() {
        let w = h.min(out.len() - i);
        let m = first + i;
        if s.stamp >= Stamp::MAX - h as Stamp {
            s.marks.fill(0);
            s.stamp = 0;
        }
        let s0 = s.stamp + 1;
        s.stamp += h as Stamp;
        let k = head_for(ch, m, *head, h, w);
        if k > 0 {
            for &u in ch.twos {
                let r0 = m - u as usize;
                let (pos, vals) = (&ch.probes.pos[..k], &ch.probes.vals[..k]);
                stamps::pairs_block(pos, vals, ch.g.tail, r0 - ch.g.base, &mut s.marks, s0);
            }
            counts.scanned_pairs += (h * k * ch.twos.len()) as u64;
        }
        for j in 0..w {
            let n = m + j;
            let stamp = s0 + j as Stamp;
            // The missing values, ascending.
            s.missing.clear();
            for (wi, &word) in missing[(i + j) * words..(i + j + 1) * words]
                .iter()
                .enumerate()
            {
                let mut b = word;
                while b != 0 {
                    s.missing.push((wi * 64) as u16 + b.trailing_zeros() as u16);
                    b &= b - 1;
                }
            }
            let mut marker = StampMarker {
                mark: slot(&mut s.marks, j),
                stamp,
                missing: &mut s.missing,
            };
            if marker.settle() {
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
            let ended = rare_check(
                marker,
                ch.probes,
                k,
                reads,
                n,
                ch.twos,
                ch.gap,
                &mut counts.scanned_pairs,
            )
            .map_or(Ended::Deferred, |(e, _)| e);
            let least = s.missing.first().map_or(0, |&v| u32::from(v));
            out[i + j] = verdict(ended, || least);
        }
        i += w;
    }
}
