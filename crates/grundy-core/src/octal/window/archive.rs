//! The values a window-mode engine no longer keeps in memory, and how it reads them back.
//!
//! Window mode (`window.rs`) keeps the front G(0..F) and a tail of at least W values behind n
//! in memory. Everything between — G(F..base) — is handed to an [`Archive`] before it is
//! dropped: on disk in a job (the store's chunks, the service's `service::jobs::archive`), in memory in
//! tests ([`MemoryArchive`]). Two things read it back, always as long ascending runs (one
//! archive read per run of [`READ_RUN`] values, never one per value):
//!
//! * **A rare check that runs out of kept splits.** Deciding G(n) scans splits `(a, r − a)`,
//!   `a = lo, lo + 1, …` until every rare value below the least unexcluded common one is seen;
//!   when G(n) is itself rare the scan runs to `a = r/2`, which needs G(F..r/2) and
//!   G(r/2..base). The scan goes on past what is kept with two [`Runs`]: `a` ascending and
//!   `r − a` descending, each filled a run at a time ([`fill`]).
//! * **Rare positions beyond the window** ("far" rare positions, `sparse.rs`). A rare position
//!   `p` pairs with `r − p` for every later heap; once `p` is at least the window, that partner
//!   lies neither in the tail nor (for long) in the front. Each far position keeps one run of
//!   its partners' values, which advances by one heap per heap, so it is refilled once every
//!   [`READ_RUN`] heaps.
//!
//! Nothing is ever guessed: a value the archive cannot give back (missing, failing its
//! checksum, the store down for good) ends the computation with [`OctalError::Archive`], every
//! value before it exact.
//!
//! [`OctalError::Archive`]: crate::octal::error::OctalError::Archive

use crate::octal::error::OctalError;
use crate::octal::values::{Cell, ValuesRef};
use crate::octal::window::View;

/// Values per archive read (a far position's run, and each side of a rare check's scan past
/// the kept values): 2^16 values, one stored chunk, 128 KiB as u16.
pub const READ_RUN: usize = 1 << 16;

/// How far before the value asked for an ascending [`Run`] starts.
const RUN_BACK: usize = 256;

/// Where a window-mode engine puts the values it drops, and reads them back from.
pub trait Archive: Send + Sync + std::fmt::Debug {
    /// The engine is about to drop G(from..from + values.len()) (ascending, contiguous with
    /// what it offered before). Returns the heap below which every value can be read back from
    /// now on; the engine drops nothing at or beyond it (it keeps those values in its tail
    /// until a later offer allows more).
    fn offer(&mut self, from: u64, values: ValuesRef<'_>) -> Result<u64, String>;

    /// Writes G(from..from + out.len()) into `out`. Only asked for heaps the engine dropped
    /// (below the last answer of [`Archive::offer`]); each value is below 2^16 (window mode
    /// runs the rare/common method, whose tables hold u16).
    fn read(&mut self, from: u64, out: &mut [u16]) -> Result<(), String>;
}

/// An [`Archive`] in memory: every offered value, as offered (tests; a computation that may use
/// the memory it saves by windowing for nothing else).
#[derive(Debug, Default, Clone)]
pub struct MemoryArchive {
    start: u64,
    values: Vec<u16>,
    /// Reads so far and values read (tests check that read-backs happen).
    pub reads: u64,
    pub values_read: u64,
}

impl MemoryArchive {
    pub fn new() -> MemoryArchive {
        MemoryArchive::default()
    }

    fn end(&self) -> u64 {
        self.start + self.values.len() as u64
    }
}

impl Archive for MemoryArchive {
    fn offer(&mut self, from: u64, values: ValuesRef<'_>) -> Result<u64, String> {
        if self.values.is_empty() {
            self.start = from;
        }
        if from > self.end() {
            return Err(format!(
                "values offered from heap {from}, but the archive ends at {}",
                self.end()
            ));
        }
        let skip = (self.end() - from) as usize;
        self.values
            .extend(values.iter().skip(skip).map(|v| v as u16));
        Ok(self.end())
    }

    fn read(&mut self, from: u64, out: &mut [u16]) -> Result<(), String> {
        let to = from + out.len() as u64;
        if from < self.start || to > self.end() {
            return Err(format!(
                "heaps {from}..{to} asked for, the archive holds {}..{}",
                self.start,
                self.end()
            ));
        }
        let at = (from - self.start) as usize;
        out.copy_from_slice(&self.values[at..at + out.len()]);
        self.reads += 1;
        self.values_read += out.len() as u64;
        Ok(())
    }
}

/// Read-back counts of an engine (diagnostics, the job document, BENCHMARKS.md).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReadBacks {
    /// Archive reads, and the values they returned.
    pub reads: u64,
    pub values: u64,
    /// Rare checks that scanned past the kept values.
    pub deep_scans: u64,
    /// Nanoseconds spent in archive reads.
    pub nanos: u64,
}

/// The archive of an engine in window mode, with its read-back counts.
#[derive(Debug)]
pub(crate) struct Backing<'a> {
    pub archive: &'a mut dyn Archive,
    pub counts: &'a mut ReadBacks,
}

impl Backing<'_> {
    fn read(&mut self, from: usize, out: &mut [u16]) -> Result<(), OctalError> {
        let t = std::time::Instant::now();
        let r = self.archive.read(from as u64, out);
        self.counts.nanos += t.elapsed().as_nanos() as u64;
        self.counts.reads += 1;
        self.counts.values += out.len() as u64;
        r.map_err(|detail| OctalError::Archive {
            heap: from as u64,
            detail,
        })
    }
}

/// G(from..from + out.len()) into `out` from wherever each value is: the front, the tail, or
/// (between them) the archive.
pub(crate) fn fill<T: Cell>(
    g: View<'_, T>,
    backing: &mut Option<Backing<'_>>,
    from: usize,
    out: &mut [u16],
) -> Result<(), OctalError> {
    let to = from + out.len();
    let (front, base) = (g.front_end(), g.base);
    let mut at = from;
    // The front.
    if at < front.min(to) {
        let end = front.min(to);
        for (o, v) in out[..end - at].iter_mut().zip(&g.front[at..end]) {
            *o = v.low16();
        }
        at = end;
    }
    // The archive.
    if at < base.min(to) {
        let end = base.min(to);
        let Some(backing) = backing else {
            return Err(OctalError::Archive {
                heap: at as u64,
                detail: format!(
                    "G({at}..{end}) were dropped from memory and no archive holds them"
                ),
            });
        };
        backing.read(at, &mut out[at - from..end - from])?;
        at = end;
    }
    // The tail.
    if at < to {
        for (o, v) in out[at - from..]
            .iter_mut()
            .zip(&g.tail[at - base..to - base])
        {
            *o = v.low16();
        }
    }
    Ok(())
}

/// A run of consecutive values G(start..start + len) held for reading one at a time, refilled
/// by [`fill`] a [`READ_RUN`] at a time, ascending or descending.
#[derive(Debug, Clone, Default)]
pub(crate) struct Run {
    start: usize,
    vals: Vec<u16>,
}

impl Run {
    /// G(x), refilling the run so that it starts at `x` (ascending reads: `down` false) or
    /// ends at `x` (descending) when `x` is outside it. `limit` bounds an ascending run's end
    /// (the values known so far); a descending run never starts below 0.
    #[inline]
    pub fn get<T: Cell>(
        &mut self,
        g: View<'_, T>,
        backing: &mut Option<Backing<'_>>,
        x: usize,
        down: bool,
        limit: usize,
    ) -> Result<u16, OctalError> {
        if x < self.start || x >= self.start + self.vals.len() {
            let (from, to) = if down {
                ((x + 1).saturating_sub(READ_RUN), x + 1)
            } else {
                // A little before x too: a heap reads its partners for each two-heap digit,
                // a few heaps apart, in any order.
                let from = x.saturating_sub(RUN_BACK);
                (from, (from + READ_RUN).min(limit).max(x + 1))
            };
            self.vals.resize(to - from, 0);
            self.start = from;
            if let Err(e) = fill(g, backing, from, &mut self.vals) {
                self.vals.clear();
                return Err(e);
            }
        }
        Ok(self.vals[x - self.start])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fill_reads_front_archive_and_tail() {
        // G(i) = i % 251 for i < 100; front 0..10, tail 60..100, archive 10..60.
        let all: Vec<u8> = (0..100u32).map(|i| (i % 251) as u8).collect();
        let mut kept = all[..10].to_vec();
        kept.extend_from_slice(&all[60..]);
        let view = View::of(
            &kept[..],
            Some(crate::octal::window::Gap {
                front: 10,
                base: 60,
            }),
        );
        let mut archive = MemoryArchive::new();
        assert_eq!(archive.offer(10, ValuesRef::U8(&all[10..40])).unwrap(), 40);
        assert_eq!(archive.offer(30, ValuesRef::U8(&all[30..60])).unwrap(), 60);
        let mut counts = ReadBacks::default();
        let mut backing = Some(Backing {
            archive: &mut archive,
            counts: &mut counts,
        });
        for (from, len) in [(0, 100), (5, 10), (12, 3), (55, 10), (70, 30), (0, 0)] {
            let mut out = vec![0u16; len];
            fill(view, &mut backing, from, &mut out).unwrap();
            let want: Vec<u16> = all[from..from + len].iter().map(|&v| v.into()).collect();
            assert_eq!(out, want, "{from}+{len}");
        }
        // Without an archive the middle is an error, not a guess.
        let mut none = None;
        let mut out = vec![0u16; 5];
        assert!(matches!(
            fill(view, &mut none, 8, &mut out),
            Err(OctalError::Archive { heap: 10, .. })
        ));
        // Runs, both ways.
        let mut up = Run::default();
        let mut down = Run::default();
        for x in 0..100 {
            assert_eq!(
                up.get(view, &mut backing, x, false, 100).unwrap(),
                all[x] as u16
            );
            let y = 99 - x;
            assert_eq!(
                down.get(view, &mut backing, y, true, 100).unwrap(),
                all[y] as u16
            );
        }
        assert!(counts.reads > 0 && counts.values > 0);
        // An offer with a hole is refused.
        assert!(archive.offer(70, ValuesRef::U8(&all[70..80])).is_err());
    }
}
