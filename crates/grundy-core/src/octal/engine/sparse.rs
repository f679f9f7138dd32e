//! The rare/common ("sparse space") method for two-heap splits.
//!
//! Pick a mask `M`. A value `v` is *rare* when `popcount(v & M)` is even and *common* otherwise.
//! Rare values form a subgroup `R` of index 2 under ⊕ and common values its coset `C`, so
//! `x ⊕ y` is common exactly when one of `x, y` is rare. Hence:
//!
//! 1. every common value excluded by a two-heap split comes from a pair with a rare part, so
//!    looping over the (few) rare positions finds *all* excluded common values; let `c` be the
//!    least common value not excluded (other move types have already been marked in full);
//! 2. G(n) ≤ c, and G(n) < c only if some rare value below `c` is not excluded. Rare values are
//!    usually excluded by early splits, so we scan splits `a = lo, lo+1, …` until every rare
//!    value below `c` has been seen; only when the scan runs to the end is G(n) rare.
//!
//! Both loops mostly run for blocks of consecutive heaps at once: the rare positions and the
//! head of the rare check's probe list are paired with their adjacent partners for every heap
//! of the block in one pass; each heap then adds the few pairs whose values were unknown at the
//! block start ([`block_rest`]), and continues its own rare check.
//!
//! **Marks.** A heap's excluded values are kept as *stamps* (`marks[x] == stamp` ⇔ x excluded;
//! blocks of [`HEAPS`] heaps, `mark_rare_pairs_block`), or — while every value is below 64 — as
//! *bit marks*, one `u64` per heap in a register (blocks of [`BIT_HEAPS`],
//! `bitmarks::pairs_block`): no stores, and "is every missing rare value seen?" is one AND.
//! `Sparse::step` picks by the value width; tests switch bit marks off and compare.
//!
//! **Part rules** (Grundy's game: the parts must be unequal). Every loop below walks only the
//! *allowed* splits `(a, r − a)`, those with `|2a − r| ≥ gap` (see [`split_range`]): the
//! forbidden ones form a window of positions around `r/2`, which the block pass skips and
//! each heap adds back with an exact test (`block_rest`). The parity argument is about
//! the set of pairs examined, so it holds for any rule that keeps or drops whole pairs.
//!
//! Nothing here depends on the mask being a good one — a bad mask only costs time — so the
//! engine may switch masks whenever the value statistics suggest a better one
//! ([`best_mask`], a Walsh–Hadamard transform of the value counts).

use super::rules::Twos;
use super::split::{split_range, window_indices, BIT_HEAPS, HEAPS, MAX_HEAPS};
use crate::octal::engine::sparse::bitmarks::bit;
use crate::octal::engine::sparse::rare_check::{
    missing_list, rare_check, BitMarker, Ended, ProbeList, Probes, Reads, StampMarker,
};
use crate::octal::engine::sparse::stamps::{slot, Stamp, MARKS};
use crate::octal::error::OctalError;
use crate::octal::values::Cell;
use crate::octal::window::archive::{Backing, Run};
use crate::octal::window::View;

pub(crate) mod bitmarks;
pub(crate) mod rare_check;
pub(crate) mod stamps;
mod step;

#[derive(Debug, Clone)]
pub(crate) struct Sparse {
    pub mask: u32,
    /// Positions `a ≥ 1` whose value is rare, ascending, and their values (same order; the
    /// values of rare positions never change, so keeping them contiguous saves a gather).
    pub rare: Vec<u32>,
    rare_vals: Vec<u16>,
    /// All rare / all common values below `64·words` (at most [`MARKS`]), ascending.
    rare_list: Vec<u16>,
    common_list: Vec<u16>,
    /// [`HEAPS`] mark arrays ("slots") of [`MARKS`] entries. Every heap gets a fresh stamp and
    /// `slot[x] == stamp` ⇔ x is excluded for that heap, so slots are never cleared.
    marks: Vec<Stamp>,
    /// `Some((first, s0))`: the pairs with a rare part (those whose values were known) of
    /// heaps `first + j`, `j < HEAPS`, are already marked in slot j with stamp `s0 + j`.
    premarked: Option<(usize, Stamp)>,
    stamp: Stamp,
    missing: Vec<u16>,
    /// The probe list and its head (see [`Probing`]).
    probing: Probing,
    /// Statistics of the rare checks (see [`ScanCounts`]).
    pub counts: ScanCounts,
    /// Window mode (see [`SparseWindow`]).
    window: SparseWindow,
    /// Tests: every rare check scans from its first split through [`fill`] (the archive for
    /// what is not kept) instead of the probes and the kept values.
    force_read_back: bool,
    /// The premarked block's index bounds per digit (see [`RestRanges`]).
    rest: Vec<RestRanges>,
    /// Bit marks (see [`BitMarkState`]).
    bit_marks: BitMarkState,
}

/// The probe order of the rare check and the head of it marked with each block.
#[derive(Debug, Clone)]
struct Probing {
    /// `firsts[v]`: the first [`PROBES_PER_VALUE`] positions with value v.
    firsts: Vec<Vec<u32>>,
    /// Probe order for the rare check (positions and their values): the first occurrence of
    /// every common value, then the second of each, and so on. Pairs with a part of diverse
    /// value cover the rare nim-sums about 2.5 times faster than scanning a = 1, 2, … (.6).
    probe: ProbeList,
    /// Heap at which the probe list was last rebuilt (a stale list is only slower).
    probe_built: usize,
    probe_dirty: bool,
    /// The probe list starts with `probe_eligible` positions ≥ HEAPS. The first `head` of
    /// them are marked for the current block together with its rare pairs; `head_len` is the
    /// adaptive target for `head` (see [`HEAD_GROW`]).
    probe_eligible: usize,
    head_len: usize,
    head: usize,
}

/// Statistics of the rare checks.
#[derive(Debug, Clone, Default)]
pub(crate) struct ScanCounts {
    /// Statistics: heaps whose rare check needed a scan beyond the premarked probe head, and
    /// total split pairs marked for rare checks (the head included, for the engine's cost
    /// model).
    pub scans: u64,
    pub scanned_pairs: u64,
}

/// Window mode's limits, and the rare positions beyond them.
#[derive(Debug, Clone)]
struct SparseWindow {
    /// Window mode (`engine/window.rs`): probes only below `probe_limit`; rare positions at or beyond
    /// `rare_limit` (whose partners are not in the tail) are kept in `far`. Both `usize::MAX`
    /// while every value is kept.
    probe_limit: usize,
    rare_limit: usize,
    /// Rare positions at or beyond `rare_limit`, ascending, each with a run of its partners'
    /// values read back from the archive (`window/archive.rs`).
    far: Vec<Far>,
}

/// Bit marks: one u64 of exclusions per heap while every value is below 64.
#[derive(Debug, Clone)]
struct BitMarkState {
    /// Bit marks (`bitmarks.rs`): while every value is below 64 (one word of exclusions), a
    /// heap's marks are one u64 instead of a stamp array — no stores, and the rare check's
    /// "all seen?" is one AND. `allow_bits` (tests switch it off) and `bits` (in use now).
    allow_bits: bool,
    bits: bool,
    /// Bit marks: the premarked block's sets, and the rare / common values below 64.
    block_bits: [u64; BIT_HEAPS],
    rare_bits: u64,
    common_bits: u64,
}

/// A rare position beyond the window (window mode), its value, and a run of values around its
/// partners `r − pos` (which move up by one heap per heap).
#[derive(Debug, Clone)]
struct Far {
    pos: usize,
    val: u16,
    run: Run,
}

/// See [`Sparse::round_view`].
#[derive(Debug)]
pub(crate) struct RoundView<'a> {
    pub rare: &'a [u32],
    pub rare_vals: &'a [u16],
    pub probes: Probes<'a>,
    /// The first `head_probes` probes are at positions ≥ [`MAX_HEAPS`] (see `probe_eligible`).
    pub head_probes: usize,
    pub far: FarPairs<'a>,
}

/// The rare positions beyond the window, paired through the archive ([`far_pairs`]).
#[derive(Debug)]
pub(crate) struct FarPairs<'a>(&'a mut Vec<Far>);

impl FarPairs<'_> {
    /// True when no rare position lies beyond the window.
    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Marks heap n's pairs with the rare positions beyond the window; `g` holds the values
    /// below `known` (the partners are below it: the positions lie beyond a block).
    pub(crate) fn pairs<T: Cell>(
        &mut self,
        g: View<'_, T>,
        backing: &mut Option<Backing<'_>>,
        n: usize,
        known: usize,
        twos: &Twos,
        mark: impl FnMut(u16),
    ) -> Result<(), OctalError> {
        if self.0.is_empty() {
            return Ok(());
        }
        far_pairs(self.0, g, backing, n, known, &twos.us, twos.gap, mark)
    }
}

/// Occurrences per common value in the probe list.
const PROBES_PER_VALUE: usize = 16;
/// The head of the probe list is marked for a whole block of heaps, like the rare pairs:
/// four heaps at a time a pair costs about 0.4 of a pair of the per-heap scan, but a heap
/// whose rare check needs fewer pairs (or none) wastes the rest. With N the pairs a heap
/// needs, the cost per heap is `0.4·head + E[(N − head)⁺]`, least where
/// `P(N > head) = 0.4`; the head length tracks that quantile by growing by `HEAD_GROW` after
/// each heap that needed more and shrinking by `HEAD_SHRINK` after each other heap.
const HEAD_GROW: usize = 3;
const HEAD_SHRINK: usize = 2;

impl Sparse {
    pub fn new<T: Cell>(mask: u32, g: &[T], words: usize) -> Sparse {
        let mut s = Sparse {
            mask,
            rare: Vec::new(),
            rare_vals: Vec::new(),
            rare_list: Vec::new(),
            common_list: Vec::new(),
            marks: vec![0; HEAPS * MARKS],
            premarked: None,
            stamp: 0,
            missing: Vec::new(),
            probing: Probing {
                firsts: Vec::new(),
                probe: ProbeList::default(),
                probe_built: 0,
                probe_dirty: true,
                probe_eligible: 0,
                head_len: 0,
                head: 0,
            },
            counts: ScanCounts::default(),
            window: SparseWindow {
                probe_limit: usize::MAX,
                rare_limit: usize::MAX,
                far: Vec::new(),
            },
            force_read_back: false,
            rest: Vec::new(),
            bit_marks: BitMarkState {
                allow_bits: true,
                bits: false,
                block_bits: [0; BIT_HEAPS],
                rare_bits: 0,
                common_bits: 0,
            },
        };
        s.widen(words);
        for (a, &v) in g.iter().enumerate() {
            s.push(a, v.get());
        }
        s
    }

    /// What the parallel pipeline (`engine/parallel/`) reads from the tables during a round, and the
    /// rare positions beyond the window, which only its spine pairs.
    pub(crate) fn round_view(&mut self) -> RoundView<'_> {
        RoundView {
            rare: &self.rare,
            rare_vals: &self.rare_vals,
            probes: self.probing.probe.view(),
            head_probes: self.probing.probe_eligible,
            far: FarPairs(&mut self.window.far),
        }
    }

    /// Tests' switch: every rare check through the archive path.
    pub(crate) fn force_read_back(&self) -> bool {
        self.force_read_back
    }

    /// Forgets the block of heaps premarked by [`Sparse::step`] (values were computed
    /// elsewhere since: the parallel pipeline).
    pub(crate) fn forget_block(&mut self) {
        self.premarked = None;
    }

    /// The probe list, rebuilt if new positions are due (see [`Sparse::refresh_probe`]).
    pub(crate) fn refresh_probes(&mut self, n: usize) {
        self.refresh_probe(n);
    }

    /// The rare check's head length (see [`HEAD_GROW`]), which the pipeline's verifiers adapt.
    pub(crate) fn head_len(&self) -> usize {
        self.probing.head_len
    }

    /// Sets the head length and adds the work counts of checks made elsewhere (the verifiers).
    pub(crate) fn after_checks(&mut self, head_len: usize, scans: u64, scanned_pairs: u64) {
        self.probing.head_len = head_len.min(self.probing.probe.pos.len());
        self.counts.scans += scans;
        self.counts.scanned_pairs += scanned_pairs;
    }

    /// The last heap whose value is rare (0 when none): the pipeline's blocks stay well below
    /// the distance since (each new rare value costs it a block or two).
    pub(crate) fn last_rare(&self) -> usize {
        let kept = self.rare.last().map_or(0, |&a| a as usize);
        self.window.far.last().map_or(kept, |f| f.pos.max(kept))
    }

    /// The largest rare position paired from the kept values (0 when none).
    pub(crate) fn max_rare(&self) -> usize {
        self.rare.last().map_or(0, |&a| a as usize)
    }

    /// Per 64 values from 0 (`words` of them): the common ones and the rare ones, as bits.
    pub(crate) fn class_words(&self, words: usize) -> (Vec<u64>, Vec<u64>) {
        let (mut common, mut rare) = (vec![0u64; words], vec![0u64; words]);
        for v in 0..(64 * words) as u32 {
            let w = if self.is_rare(v) {
                &mut rare
            } else {
                &mut common
            };
            w[(v / 64) as usize] |= 1 << (v % 64);
        }
        (common, rare)
    }

    /// The rare check of heap `n` with every probe and split, the archive included: G(n) if
    /// it is rare (some value of `missing` — bits per 64 values from 0 — is excluded by no
    /// split), `None` if every missing value is found. For heaps the pipeline's verifiers
    /// deferred.
    pub(crate) fn check_deferred<T: Cell>(
        &mut self,
        g: View<'_, T>,
        backing: &mut Option<Backing<'_>>,
        n: usize,
        twos: &Twos,
        missing: &[u64],
    ) -> Result<Option<u32>, OctalError> {
        let (twos, gap): (&[i64], usize) = (&twos.us, twos.gap);
        let reads = Reads::direct(g, backing, self.force_read_back);
        let probes = self.probing.probe.view();
        if self.bit_marks.bits {
            let marker = BitMarker {
                marks: 0,
                missing: missing[0],
            };
            let scanned = &mut self.counts.scanned_pairs;
            let (ended, marker) = rare_check(marker, probes, 0, reads, n, twos, gap, scanned)?;
            return Ok((ended != Ended::Found).then(|| marker.missing.trailing_zeros()));
        }
        if self.stamp >= Stamp::MAX - HEAPS as Stamp {
            self.marks.fill(0);
            self.stamp = 0;
            self.premarked = None;
        }
        self.stamp += 1;
        missing_list(missing, &mut self.missing);
        let marker = StampMarker {
            mark: slot(&mut self.marks, 0),
            stamp: self.stamp,
            missing: &mut self.missing,
        };
        let scanned = &mut self.counts.scanned_pairs;
        let (ended, _) = rare_check(marker, probes, 0, reads, n, twos, gap, scanned)?;
        Ok((ended != Ended::Found).then(|| u32::from(self.missing[0])))
    }

    /// Window mode: probes only from positions below `probe_limit`; rare positions from
    /// `rare_limit` on are paired through the archive (see `window.rs`).
    pub(crate) fn set_limits(&mut self, probe_limit: usize, rare_limit: usize) {
        self.window.probe_limit = probe_limit;
        self.window.rare_limit = rare_limit;
        // The probe list in use may hold positions beyond the new limit: rebuild it now (for
        // the heaps it was built for) and drop a premarked block that used it.
        self.premarked = None;
        self.probing.head = 0;
        self.rebuild_probe(self.probing.probe_built);
        self.probing.probe_dirty = true;
        let keep = self.rare.partition_point(|&a| (a as usize) < rare_limit);
        let far: Vec<Far> = self.rare[keep..]
            .iter()
            .zip(&self.rare_vals[keep..])
            .map(|(&pos, &val)| Far {
                pos: pos as usize,
                val,
                run: Run::default(),
            })
            .collect();
        self.rare.truncate(keep);
        self.rare_vals.truncate(keep);
        self.add_far(far);
    }

    /// Adds rare positions beyond the window (kept ascending, without repeats).
    fn add_far(&mut self, far: impl IntoIterator<Item = Far>) {
        self.window.far.extend(far);
        self.window.far.sort_by_key(|f| f.pos);
        self.window.far.dedup_by_key(|f| f.pos);
    }

    /// The rare positions beyond the window and their values (to save with a window job).
    pub(crate) fn far(&self) -> Vec<(u64, u16)> {
        self.window
            .far
            .iter()
            .map(|f| (f.pos as u64, f.val))
            .collect()
    }

    /// Restores rare positions beyond the window saved by [`Sparse::far`] (resuming a window
    /// job: those beyond the front are not in the values it resumes from).
    pub(crate) fn restore_far(&mut self, far: &[(u64, u16)]) -> Result<(), OctalError> {
        let mut add = Vec::with_capacity(far.len());
        for &(pos, val) in far {
            let pos = usize::try_from(pos).map_err(|_| OctalError::InvalidValues {
                reason: "a rare position out of range",
            })?;
            if pos == 0 || !self.is_rare(val.into()) {
                return Err(OctalError::InvalidValues {
                    reason: "a saved rare position is not rare under the mask",
                });
            }
            add.push(Far {
                pos,
                val,
                run: Run::default(),
            });
        }
        self.add_far(add);
        Ok(())
    }

    /// Rare positions: those paired from the tail and those beyond the window.
    pub(crate) fn rare_count(&self) -> usize {
        self.rare.len() + self.window.far.len()
    }

    /// Tables built again for another mask keep what a test switched on.
    pub(crate) fn inherit_test_flags(&mut self, old: &Sparse) {
        self.force_read_back = old.force_read_back;
        self.set_bit_marks(old.bit_marks.allow_bits);
    }

    /// Heaps per block: [`BIT_HEAPS`] with bit marks, [`HEAPS`] with stamps.
    fn heaps(&self) -> usize {
        if self.bit_marks.bits {
            BIT_HEAPS
        } else {
            HEAPS
        }
    }

    /// Whether heaps are computed with bit marks now.
    pub(crate) fn bits_in_use(&self) -> bool {
        self.bit_marks.bits
    }

    /// Bit marks where values allow (the default), or stamps always (tests: the path without
    /// the fast one).
    pub(crate) fn set_bit_marks(&mut self, allow: bool) {
        self.bit_marks.allow_bits = allow;
        self.premarked = None;
        // The engine's exclusion width is twice the value range (`words_for`): two words
        // while every value is below 64.
        self.bit_marks.bits = allow && self.rare_list.len() + self.common_list.len() <= 128;
    }

    /// Tests: see the field `force_read_back`.
    #[cfg(test)]
    pub(crate) fn set_force_read_back(&mut self, on: bool) {
        self.force_read_back = on;
    }

    #[inline(always)]
    pub fn is_rare(&self, v: u32) -> bool {
        (v & self.mask).count_ones() & 1 == 0
    }

    /// Rebuilds the value tables for a new width.
    /// Values from 2^16 on are left out: every nim-sum of u16 values is below 2^16, so they
    /// are never excluded (and when every listed common value is, `step` falls back to a
    /// full scan).
    pub fn widen(&mut self, words: usize) {
        let nbits = (words * 64).min(MARKS) as u32;
        let mask = self.mask;
        let table = |rare: bool| {
            (0..nbits)
                .filter(|&v| ((v & mask).count_ones() & 1 == 0) == rare)
                .map(|v| v as u16)
                .collect()
        };
        self.rare_list = table(true);
        self.common_list = table(false);
        let set = |list: &[u16]| {
            let low = list.iter().take_while(|&&v| v < 64);
            low.fold(0u64, |m, &v| m | bit(v))
        };
        (self.bit_marks.rare_bits, self.bit_marks.common_bits) =
            (set(&self.rare_list), set(&self.common_list));
        // A block premarked in one representation is not read in the other.
        self.set_bit_marks(self.bit_marks.allow_bits);
    }

    /// Records G(n) = v.
    pub fn push(&mut self, n: usize, v: u32) {
        if n == 0 {
            return;
        }
        if self.is_rare(v) {
            match u32::try_from(n) {
                Ok(pos) if n < self.window.rare_limit => {
                    self.rare.push(pos);
                    self.rare_vals.push(v as u16);
                }
                _ => {
                    // Beyond the window (or 2^32): paired through the archive from now on.
                    self.window.far.push(Far {
                        pos: n,
                        val: v as u16,
                        run: Run::default(),
                    });
                    return;
                }
            }
        }
        let v = v as usize;
        if v >= self.probing.firsts.len() {
            self.probing.firsts.resize(v + 1, Vec::new());
        }
        // Positions from 2^32 on are never probes (a probe lies in the front).
        if self.probing.firsts[v].len() < PROBES_PER_VALUE && n <= u32::MAX as usize {
            self.probing.firsts[v].push(n as u32);
            self.probing.probe_dirty = true;
        }
    }

    /// Rebuilds the probe list when new positions are due, at most every n/16 heaps (a stale
    /// list is only slower).
    fn refresh_probe(&mut self, n: usize) {
        if self.probing.probe_dirty
            && n >= self.probing.probe_built + 64.max(self.probing.probe_built / 16)
        {
            self.rebuild_probe(n);
        }
    }

    fn rebuild_probe(&mut self, n: usize) {
        self.probing.probe_dirty = false;
        self.probing.probe.pos.clear();
        self.probing.probe.vals.clear();
        // Positions below HEAPS go last, so that the head of the list can be marked for a
        // whole block of heaps (their partners would not all be known yet).
        let mut late = Vec::new();
        // Only positions ≤ n/2: they stay inside [1, r/2] for every later heap, so the probe
        // loop needs no range test. A probe's value is the index of its `firsts` list.
        for i in 0..PROBES_PER_VALUE {
            for (v, list) in self.probing.firsts.iter().enumerate() {
                let Some(&a) = list.get(i) else {
                    continue;
                };
                if a as usize >= self.window.probe_limit {
                    continue; // not kept in window mode
                }
                if a as usize > n / 2 {
                    self.probing.probe_dirty = true; // include it once it is in range
                } else if !self.is_rare(v as u32) {
                    if (a as usize) < MAX_HEAPS {
                        late.push((a, v as u16));
                    } else {
                        self.probing.probe.pos.push(a);
                        self.probing.probe.vals.push(v as u16);
                    }
                }
            }
        }
        self.probing.probe_eligible = self.probing.probe.pos.len();
        for (a, v) in late {
            self.probing.probe.pos.push(a);
            self.probing.probe.vals.push(v);
        }
        self.probing.probe.min = self.probing.probe.pos.iter().copied().min().unwrap_or(0) as usize;
        self.probing.probe.max = self.probing.probe.pos.iter().copied().max().unwrap_or(0) as usize;
        self.probing.probe_built = n;
    }

    /// Starts a block of [`Sparse::heaps`] heaps at `n` (see [`batchable`]): chooses the probe head
    /// and hands `f(positions, values, r)` every run of positions whose pairs with the totals
    /// `r..r + HEAPS` the block pass marks — the head, then the rare positions of every digit
    /// less the gap window. Each heap adds the rest
    /// ([`block_rest`]).
    fn block_pairs(
        &mut self,
        n: usize,
        twos: &[i64],
        gap: usize,
        mut f: impl FnMut(&[u32], &[u16], usize),
    ) {
        self.refresh_probe(n);
        // Probes are ≥ HEAPS and ≤ n/2 < r: their partners are known and ≥ 1. Below the least
        // total's largest allowed smaller part they are allowed for every heap of the block.
        let in_range = twos
            .iter()
            .all(|&u| self.probing.probe.max <= (n - u as usize).saturating_sub(gap) / 2);
        self.probing.head = if in_range {
            self.probing.head_len.min(self.probing.probe_eligible)
        } else {
            0
        };
        let heaps = self.heaps();
        self.counts.scanned_pairs += (heaps * self.probing.head * twos.len()) as u64;
        self.rest.clear();
        for &u in twos {
            let r = n - u as usize;
            // Positions from HEAPS − u on pair inside the block's known values, up to those
            // below r (= n − u: the positions known at the block start).
            let start = self
                .rare
                .partition_point(|&a| (a as usize) < heaps - (u as usize).min(heaps));
            let end = self.rare.partition_point(|&a| (a as usize) < r);
            let window = window_indices(&self.rare, r, gap, heaps);
            self.rest.push(RestRanges {
                low: start,
                high: end,
                w0: window.0,
                w1: window.1,
            });
            if self.probing.head > 0 {
                f(
                    &self.probing.probe.pos[..self.probing.head],
                    &self.probing.probe.vals[..self.probing.head],
                    r,
                );
            }
            // Skip the forbidden window (`block_rest` adds what each heap allows).
            for (i, k) in without(start, end, [window, (end, end)]) {
                f(&self.rare[i..k], &self.rare_vals[i..k], r);
            }
        }
    }

    /// One heap's pairs with a rare part, outside a block: `f(positions, values, r)` for every
    /// run of allowed rare positions of every digit (total r).
    fn heap_pairs(
        &self,
        n: usize,
        twos: &[i64],
        gap: usize,
        mut f: impl FnMut(&[u32], &[u16], usize),
    ) {
        for &u in twos {
            let Some((r, lo, hi)) = split_range(n, u, gap) else {
                continue;
            };
            // Allowed positions: the smaller part in [lo, hi] or the larger part in
            // [r − hi, r − lo].
            let pos = |x: usize| self.rare.partition_point(|&a| (a as usize) < x);
            let (s1, e1) = (pos(lo), pos(hi + 1));
            let (s2, e2) = (pos(r - hi).max(e1), pos(r - lo + 1));
            for (i, k) in without(s1, e2, [(e1, s2), (e2, e2)]) {
                f(&self.rare[i..k], &self.rare_vals[i..k], r);
            }
        }
    }
}

/// The index range `[start, end)` less the (possibly overlapping or empty) index ranges
/// `skips`, as at most three ascending, disjoint ranges (some empty).
fn without(start: usize, end: usize, mut skips: [(usize, usize); 2]) -> [(usize, usize); 3] {
    skips.sort_unstable();
    let mut out = [(end, end); 3];
    let mut at = start;
    for (k, &(a, b)) in skips.iter().enumerate() {
        let a = a.clamp(at, end);
        out[k] = (at, a);
        at = b.clamp(a, end);
    }
    out[2] = (at, end);
    out
}

/// The mask (≥ 1) with the fewest rare occurrences, and that number. `counts[v]` is how often
/// value `v` occurred (its length is a power of two). Rare count of `M` is
/// `(total + Σ_v counts[v]·(−1)^{popcount(v&M)}) / 2`, a Walsh–Hadamard transform.
pub(crate) fn best_mask(counts: &[u64]) -> (u32, u64) {
    let len = counts.len();
    if len < 2 {
        return (1, counts.iter().sum());
    }
    let mut f: Vec<i64> = counts.iter().map(|&c| c as i64).collect();
    let mut h = 1;
    while h < len {
        for i in (0..len).step_by(2 * h) {
            for j in i..i + h {
                let (x, y) = (f[j], f[j + h]);
                f[j] = x + y;
                f[j + h] = x - y;
            }
        }
        h *= 2;
    }
    let total = f[0];
    let (m, v) = f
        .iter()
        .enumerate()
        .skip(1)
        .min_by_key(|&(_, &v)| v)
        .map_or((1, total), |(m, &v)| (m, v));
    (m as u32, ((total + v) / 2) as u64)
}

/// Index bounds into the rare positions for one digit u of a block from heap `first`
/// ([`block_rest`]): `low` — positions below `HEAPS − u` (their partners in the block);
/// `high` — positions below `first − u` (later ones were unknown at the block start);
/// `[w0, w1)` — the gap window ([`window_indices`]`(rare, first − u, gap)`). Rare positions
/// are only ever appended, so the bounds stay valid for the whole block.
#[derive(Debug, Clone, Copy)]
struct RestRanges {
    low: usize,
    high: usize,
    w0: usize,
    w1: usize,
}

/// The pairs `(p, r − p)` of heap `n` with `p` a rare position beyond the window (`far`),
/// into `mark`: `p` as the smaller or the larger part, as the part rule allows. The partners
/// come from each far position's run (the archive, a run at a time), which reads no value from
/// `known` on.
#[allow(clippy::too_many_arguments)]
fn far_pairs<T: Cell>(
    far: &mut [Far],
    g: View<'_, T>,
    backing: &mut Option<Backing<'_>>,
    n: usize,
    known: usize,
    twos: &[i64],
    gap: usize,
    mut mark: impl FnMut(u16),
) -> Result<(), OctalError> {
    for &u in twos {
        let Some((r, lo, hi)) = split_range(n, u, gap) else {
            continue;
        };
        for f in far.iter_mut() {
            if f.pos > r - lo {
                break; // ascending: every later one too
            }
            let p = f.pos;
            if (p >= lo && p <= hi) || p >= r - hi {
                // The runs serve every digit: they start a little before the partner.
                let x = r - p;
                let v = f.run.get(g, backing, x, false, known)?;
                mark(f.val ^ v);
            }
        }
    }
    Ok(())
}

/// True when heap `n` can start a block of `heaps` heaps: every digit's partners of
/// positions ≥ heaps − u are below n for all heaps of the block (every u ≥ 0, and the totals
/// ≥ heaps).
#[inline]
fn batchable(n: usize, twos: &[i64], heaps: usize) -> bool {
    twos.iter().all(|&u| u >= 0 && n as i64 - u >= heaps as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mask_choice() {
        // Values 1 and 2 common, 0 and 3 rare under mask 1 or 2; mask 3 makes 1, 2 common too.
        let counts = [2, 50, 40, 1];
        let (m, r) = best_mask(&counts);
        assert_eq!(r, 3);
        assert_eq!(m, 3);
        let brute = |m: u32| {
            (0..4u32)
                .filter(|v| (v & m).count_ones().is_multiple_of(2))
                .map(|v| counts[v as usize])
                .sum::<u64>()
        };
        assert_eq!(brute(3), 3);
    }
}
