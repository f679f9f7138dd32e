//! The rare/common method on every core: one game, many threads, every value exact.
//!
//! **Where a heap's time goes.** In sparse mode (`sparse.rs`) G(n) comes from (1) the pairs
//! `(a, r − a)` with a rare part, which give `c`, the least common value not excluded, and (2)
//! the *rare check*: every rare value below `c` must be excluded by some split, found by
//! probes and, rarely, a scan (`rare_check.rs`); only if one is not is G(n) rare. (1) reads
//! the values just behind n — the rare positions of the frontier games are small (`.167`: 59
//! of them, all below 1,304), so G(n) depends on G(n − 3), …, G(n − 1,306) — and is a true
//! recurrence: no two heaps can be computed side by side. (2) is most of the work (`.167` at
//! 2^26: ≈ 100 probe pairs a heap against 118 rare pairs, marked eight heaps at a time) and
//! decides almost nothing: after the rare positions stop appearing, G(n) is common, i.e. `c`.
//!
//! **Speculate, then verify.** So one thread, the *spine* (`spine.rs`), runs (1) alone for a
//! block of heaps and takes G(n) = c for each, leaving each heap's marks in its row; the other
//! threads *verify* (`verify.rs`) the block before it, each a share of its heaps, reading the
//! rare values still missing off the rows themselves (the spine only finds `c`): the
//! rare check of heap n reads only G(0..n), and whether it ends as the spine assumed does not
//! depend on any other heap's check. A heap whose check fails (G(n) is a new rare value) is
//! the first wrong value: everything from it on is dropped, G(n) is set to the rare value the
//! check found, n joins the rare positions, and the pipeline starts again after it. The values
//! are therefore exactly the one-thread engine's, whatever the timing.
//!
//! **Far rows.** Where rare positions are spread far back (Grundy's game, `.014`, `.6`: a
//! thousand and more, up to 10^5), (1) itself is most of the spine's work. Its pairs whose
//! partner lies before the block (`split`, the block's first heap) read only values known when
//! the round starts, so every thread computes them (`far_rows.rs`), one *row* per heap, in
//! tasks of 32 heaps taken in order; the spine takes each task's rows as soon as they are done
//! (it does a task itself when it finds none done) and adds only the *near* pairs — those with
//! both parts inside the block: with blocks of 512 heaps, 2–4 % of a heap's rare pairs. A task
//! also leaves each row a *hint* (its least free common values), so that the spine's `c` is a
//! look-up. (Far rows reaching into the block, a lag behind the spine, were tried and not
//! kept: `BENCHMARKS.md`, "Threads II".) Where every rare position is near
//! (`.167`: all below 1,304, blocks of 8,192), there are no far rows and the spine does all of
//! (1) — a true recurrence on one thread (see `BENCHMARKS.md`, "one game on every core":
//! a block fixed point does not settle there, every wrong guess spreads through the block).
//!
//! **Rows.** A heap's marks are a `u64` while every value is below 64 ([`Bits`], as the bit
//! marks of `bitmarks.rs`) and otherwise a byte per value ([`Bytes`], values below 2^10, rows of
//! 512, 1,024 or 2,048 bytes as the values need): marking is a plain store, like the stamps
//! (rows of bits, marked by read-modify-writes, made Grundy's game 13 % slower on two threads).
//! [`RowKind`] gives both the same loops.
//!
//! **The room.** The driver (rounds, commits, failures, the thread pool) is `Engine::pipeline`
//! in `pipeline.rs`; its stages are `far_rows.rs`, `spine.rs` and `verify.rs`, and this file
//! holds what they share (the rows). The room is the engine's (`engine.rs` owns the state the
//! driver reads and the one-thread step it falls back to); it imports the engine above it and
//! the mathematics of `octal/` beside it, and nothing else imports it. The thread-sharing
//! helpers that `dense.rs` and `squares.rs` use too are `octal/engine/pool.rs`.

pub(crate) mod far_rows;
pub(super) mod pipeline;
pub(crate) mod spine;
#[cfg(test)]
mod tests;
pub(crate) mod verify;

use crate::octal::engine::sparse::bitmarks::{self, bit};
use crate::octal::engine::sparse::stamps::lanes;
use crate::octal::engine::split::{BIT_HEAPS, HEAPS};
use crate::octal::engine::Profile;
use crate::octal::values::Cell;

/// Byte rows hold values below this (the parallel path runs while every value is).
pub(crate) const BYTE_LIMIT: usize = 1 << 10;

/// Heaps a pass of [`Bytes::block`] marks. A pass's cost is mostly per position (its partners'
/// address, their load, the bounds), not per mark, so eight heaps a pass cost little more than
/// four (measured: the far rows of Grundy's game, `.014` and Officers 13–15 % cheaper, the
/// spine unchanged; `BENCHMARKS.md`, "Threads II").
pub(crate) const BYTE_HEAPS: usize = 8;

/// How a heap's marks are held while the spine, the far rows and the verifiers fill them.
pub(crate) trait RowKind {
    /// One heap's marks.
    type Row: Copy + Send + Sync;
    /// Heaps marked by one pass of [`RowKind::block`].
    const HEAPS: usize;
    /// Whether a row is small enough to be copied into a register while it is marked.
    const COPY: bool;
    /// A row with nothing marked.
    fn empty() -> Self::Row;
    /// Marks `va ⊕ G(r + k − a)` into `rows[k]` for each listed position `a`, `k < HEAPS`.
    fn block<T: Cell>(pos: &[u32], vals: &[u16], g: &[T], r: usize, rows: &mut [Self::Row]);
    /// Marks `x`.
    fn one(row: &mut Self::Row, x: u16);
}

/// Bit rows: values below 64.
#[derive(Debug)]
pub(crate) struct Bits;

impl RowKind for Bits {
    type Row = u64;
    const HEAPS: usize = BIT_HEAPS;
    const COPY: bool = true;
    #[inline(always)]
    fn empty() -> u64 {
        0
    }
    #[inline(always)]
    fn block<T: Cell>(pos: &[u32], vals: &[u16], g: &[T], r: usize, rows: &mut [u64]) {
        let acc: &mut [u64; BIT_HEAPS] = (&mut rows[..BIT_HEAPS]).try_into().expect("a block");
        bitmarks::pairs_block(pos, vals, g, r, acc);
    }
    #[inline(always)]
    fn one(row: &mut u64, x: u16) {
        *row |= bit(x);
    }
}

/// Byte rows: `N` bytes, values below `N/2` (their nim-sums below `N`); `row[x] = 1` ⇔ x is
/// excluded.
#[derive(Debug)]
pub(crate) struct Bytes<const N: usize>;

impl<const N: usize> RowKind for Bytes<N> {
    type Row = [u8; N];
    const HEAPS: usize = BYTE_HEAPS;
    const COPY: bool = false;
    #[inline(always)]
    fn empty() -> [u8; N] {
        [0; N]
    }
    #[inline(always)]
    fn block<T: Cell>(pos: &[u32], vals: &[u16], g: &[T], r: usize, rows: &mut [[u8; N]]) {
        byte_pairs_block(pos, vals, g, r, rows);
    }
    #[inline(always)]
    fn one(row: &mut [u8; N], x: u16) {
        row[usize::from(x) & (N - 1)] = 1;
    }
}

/// [`Bytes::block`]: the [`BYTE_HEAPS`] heaps' rows, one pass over the positions (as
/// `stamps::pairs_block`). Indices are masked to the row, so no bounds checks are needed.
#[inline(never)]
fn byte_pairs_block<T: Cell, const N: usize>(
    pos: &[u32],
    vals: &[u16],
    g: &[T],
    r: usize,
    rows: &mut [[u8; N]],
) {
    let rows: &mut [[u8; N]; BYTE_HEAPS] = (&mut rows[..BYTE_HEAPS])
        .try_into()
        .expect("a block has BYTE_HEAPS rows");
    if T::BYTES != 2 {
        for (&a, &va) in pos.iter().zip(vals) {
            let b = r - a as usize;
            let q: &[T; BYTE_HEAPS] = g[b..b + BYTE_HEAPS].try_into().expect("the partners");
            let va = usize::from(va);
            for (row, q) in rows.iter_mut().zip(q) {
                row[(va ^ usize::from(q.low16())) & (N - 1)] = 1;
            }
        }
        return;
    }
    // u16 cells: each four partners as the 16-bit lanes of one word, XOR-ed with the
    // position's value in every lane at once (as `stamps::pairs_block`).
    for (&a, &va) in pos.iter().zip(vals) {
        let b = r - a as usize;
        for (half, rows) in rows.chunks_exact_mut(HEAPS).enumerate() {
            let at = b + half * HEAPS;
            let x = lanes(g[at..at + HEAPS].try_into().expect("the partners"), va);
            for (k, row) in rows.iter_mut().enumerate() {
                row[((x >> (16 * k)) as usize) & (N - 1)] = 1;
            }
        }
    }
}

/// The engine's threads: how many, the pipeline's pool of helpers (made on first use), what
/// runs on each as it starts, what the pipeline did, and the stages' times when asked for.
#[derive(Debug)]
pub(crate) struct Workers {
    pub(crate) threads: usize,
    /// The pipeline's pool of helper threads (made on first use).
    pub(crate) pool: Option<rayon::ThreadPool>,
    /// Run on each helper thread as it starts ([`Engine::set_thread_start`]).
    pub(crate) thread_start: Option<pipeline::ThreadStart>,
    /// What the pipeline did (diagnostics, tests).
    pub(crate) pipeline_counts: pipeline::Counts,
    /// The stages' times, when asked for ([`Engine::set_profile`]).
    pub(crate) profile: Option<Profile>,
}

impl Workers {
    pub(crate) fn new(threads: usize) -> Workers {
        Workers {
            threads,
            pool: None,
            thread_start: None,
            pipeline_counts: pipeline::Counts::default(),
            profile: None,
        }
    }
}
