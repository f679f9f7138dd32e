//! Keeping a window of the values in memory instead of all of them: bounded memory for
//! sequences of 2^40 values and more.
//!
//! The rare/common method (`engine/sparse.rs`) reads G at two kinds of places while computing G(n):
//! the partners `r − a` of small positions `a` — the rare positions, the probes (first
//! occurrences of common values) and the rare check's scan — which lie just behind n, and the
//! small positions themselves, whose values are needed only by the scan. So besides the
//! values the engine keeps two stretches in memory: the *front* G(0..F) and the *tail*
//! G(base..n) of at least W values behind n. Everything between goes to an archive before it
//! is dropped (`window/archive.rs`; on disk in a job). Then:
//!
//! * every pair with a rare part below `W − k − HEAPS` (k the largest number of tokens a
//!   two-heap split removes) is read from the tail, its partner lying there;
//! * a rare position beyond that — a *far* one: `.167`'s heap 332,129,728, Grundy's game's
//!   7,250,049 under a frozen mask — pairs with values read back from the archive, a run of
//!   2^16 consecutive partners at a time (they move up by one per heap);
//! * the probes are restricted to positions below `min(F, W − k − HEAPS)`;
//! * the rare check's scan over `a = lo, lo + 1, …` reads G(a) from the front and G(r − a)
//!   from the tail while `a < F` and `r − a ≥ base`; a heap whose check is not decided there
//!   (G(n) is rare, or its witnesses lie further in) goes on with both sides read back from
//!   the archive, 2^16 splits per read, to the end if need be.
//!
//! So window mode decides every heap exactly, whatever the window: a small window only costs
//! read-backs. What it refuses are games it cannot run at all, before or when the gap first
//! opens — [`OctalError::WindowTooSmall`], with every value before it exact: three-heap
//! splits and recurring digits (they need every value for every heap), values from 2^16 on
//! (the rare/common tables hold u16), and values with no sparse space when the gap opens
//! (every heap would scan all of its splits: keep every value instead). The mode and the mask
//! are frozen when the gap opens (choosing a new mask needs every value in memory); a mask
//! that later gains rare positions only costs time.
//!
//! [`OctalError::WindowTooSmall`]: super::error::OctalError::WindowTooSmall

pub mod archive;

/// Which values an engine keeps in memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Keep {
    /// Every value (the default): everything can be read back, downloaded, proved.
    #[default]
    All,
    /// The front G(0..front) and at least `window` values behind the last one.
    Window { front: usize, window: usize },
}

/// Values per slide of the tail: the tail holds between `window` and `window + 2·SLIDE` values
/// and drops a multiple of `SLIDE` at a time (a multiple of the store's chunk length, so that the store can
/// drop whole chunks too).
pub const SLIDE: usize = 1 << 16;

impl Keep {
    /// The largest tail kept before a slide (`None`: everything is kept).
    pub fn max_tail(self) -> Option<usize> {
        match self {
            Keep::All => None,
            Keep::Window { window, .. } => Some(window + 2 * SLIDE),
        }
    }

    /// Memory the kept values take at most, in values (front plus the largest tail).
    pub fn max_kept(self) -> Option<usize> {
        match self {
            Keep::All => None,
            Keep::Window { front, window } => Some(front + window + 2 * SLIDE),
        }
    }
}

/// Where the kept values are, once some are dropped: `values[..front]` is G(0..front) and
/// `values[front..]` is G(base..n).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gap {
    pub front: usize,
    pub base: usize,
}

/// The values the engine reads while computing G(n): `front` is G(0..front.len()) and `tail`
/// is G(base..base + tail.len()). Without a gap both are all the values and `base` is 0, so
/// every read costs what it cost on one slice.
#[derive(Debug, Clone, Copy)]
pub(crate) struct View<'a, T> {
    pub front: &'a [T],
    pub tail: &'a [T],
    pub base: usize,
}

impl<'a, T: Copy> View<'a, T> {
    /// The view of the kept values `g` (see [`Gap`]).
    #[inline]
    pub fn of(g: &'a [T], gap: Option<Gap>) -> View<'a, T> {
        match gap {
            None => View {
                front: g,
                tail: g,
                base: 0,
            },
            Some(gap) => View {
                front: &g[..gap.front],
                tail: &g[gap.front..],
                base: gap.base,
            },
        }
    }

    /// G(i) for a heap in the tail (`i ≥ base`).
    #[inline(always)]
    pub fn near(&self, i: usize) -> T {
        self.tail[i - self.base]
    }

    /// Heaps below this are readable from the front, heaps from [`View::base`] on from the
    /// tail; in between nothing is kept.
    #[inline]
    pub fn front_end(&self) -> usize {
        self.front.len()
    }
}
