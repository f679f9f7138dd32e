//! The engine's review: which method handles the two-heap splits (plain, dense scans or the
//! rare/common method, and its mask), re-chosen at geometric checkpoints from the value counts
//! by a cost model of split pairs per heap. The values never depend on the choice.

use super::{Engine, PARALLEL_FROM};
use crate::octal::engine::sparse::{best_mask, Sparse};
use crate::octal::values::with_cells;

/// How much cheaper a pair is in a parallel dense block than in a sequential scan or in sparse
/// mode (measured on `.007` to 10^5: 1.80 s of CPU on one thread with sequential scans, 1.22 s in
/// all on two threads with blocks; sparse mode ≈ 0.5–0.7 ns per pair against 0.47 ns for block
/// pairs). Without it the model kept `.007` sparse on two threads, although dense blocks on two
/// threads finish in half the time (BENCHMARKS.md, "Threads").
const PHASE_ONE_PAIR_SPEEDUP: f64 = 1.5;

/// The largest value width (bits) for which a sparse space is looked for.
pub(super) const SPARSE_MAX_BITS: u32 = 16;

/// Which method currently handles the finite two-heap digits.
#[derive(Debug, Clone)]
pub(super) enum Mode {
    /// No two-heap digit needs scanning.
    Plain,
    /// Full scans (possibly parallel).
    Dense,
    /// Rare/common method.
    Sparse(Box<Sparse>),
}

impl Engine {
    /// Allows (default) or forbids the rare/common method (forbidding is for benchmarks and
    /// tests: the values do not depend on it).
    pub fn set_allow_sparse(&mut self, allow: bool) {
        self.review.allow_sparse = allow;
        if !allow && matches!(self.mode, Mode::Sparse(_)) {
            self.mode = Mode::Dense;
        }
    }

    pub(super) fn new_sparse(&self, mask: u32) -> Sparse {
        let words = self.words;
        let mut sp = with_cells!(self.values.as_ref(), |g| Sparse::new(mask, g, words));
        sp.set_bit_marks(self.knobs.bit_marks);
        sp
    }

    /// Re-chooses the two-heap method from the value counts (see `sparse::best_mask`).
    ///
    /// Threads: dense scans are parallel, and so is the sparse method from
    /// [`parallel::pipeline::PIPELINE_FROM`] heaps on (`engine/parallel/pipeline.rs`: its rare pairs and its rare
    /// checks). The model divides the parallel work by ≈ 0.9·threads, and dense block pairs by
    /// a further [`PHASE_ONE_PAIR_SPEEDUP`].
    /// (Before, sparse ran on one core and the model rated a parallel dense pair like a
    /// sequential one: for `.007` from ≈ 50,000 heaps — 13,000–17,000 rare positions and
    /// ≈ 16,000 rare-check pairs per heap against n/2 dense pairs — it chose sparse on two
    /// threads, so the second thread idled for three quarters of the work to 10^5;
    /// BENCHMARKS.md, "Threads".)
    pub(super) fn review(&mut self) {
        let n = self.len();
        self.review.next_review = (n + n / 2).max(256);
        if self.window.gap.is_some() {
            // Window mode: mode and mask are frozen (a new mask needs every value).
            self.review.next_review = usize::MAX;
            return;
        }
        if self.scan_twos.is_empty() {
            self.mode = Mode::Plain;
            return;
        }
        if self.vbits > SPARSE_MAX_BITS || n < 64 || !self.review.allow_sparse {
            self.mode = Mode::Dense;
            return;
        }
        let (mask, rare) = best_mask(&self.counts);
        let rare = rare as usize;
        // Cost per heap (split pairs touched): dense scans n/2 per digit, shared by the
        // threads; sparse touches every rare position plus the rare-check scan, whose length
        // is measured while in sparse mode.
        if let Mode::Sparse(sp) = &self.mode {
            let heaps = n.saturating_sub(self.review.review_len).max(1);
            self.review.scan_per_heap =
                Some((sp.counts.scanned_pairs - self.review.review_scanned) as f64 / heaps as f64);
        }
        let k = self.scan_twos.len() as f64;
        let par = if self.workers.threads > 1 && n >= PARALLEL_FROM {
            0.9 * self.workers.threads as f64
        } else {
            1.0
        };
        // Parallel dense blocks mark pairs in a byte array (`dense::phase_one`), cheaper per
        // pair than the bitset of the sequential scan and the sparse method's stamps.
        let dense_par = if par > 1.0 {
            par * PHASE_ONE_PAIR_SPEEDUP
        } else {
            1.0
        };
        let dense_cost = n as f64 * k / 2.0 / dense_par;
        // The pipeline shares the rare pairs and the rare checks over the threads.
        let sparse_par = if n >= self.knobs.pipeline_from {
            par
        } else {
            1.0
        };
        let sparse_cost =
            (rare as f64).mul_add(k, self.review.scan_per_heap.unwrap_or(0.0)) / sparse_par;
        let keep = |cur: usize| 4 * rare >= 3 * cur; // the current mask is nearly as good
        match &self.mode {
            Mode::Sparse(sp)
                if rare * 3 <= n && sparse_cost < 1.2 * dense_cost && keep(sp.rare.len()) => {}
            _ if rare * 4 <= n && sparse_cost * 1.2 < dense_cost => {
                self.mode = Mode::Sparse(Box::new(self.new_sparse(mask)));
            }
            Mode::Sparse(_) if rare * 3 <= n && sparse_cost < 1.2 * dense_cost => {
                self.mode = Mode::Sparse(Box::new(self.new_sparse(mask)));
            }
            _ => self.mode = Mode::Dense,
        }
        self.review.review_len = n;
        self.review.review_scanned = match &self.mode {
            Mode::Sparse(sp) => sp.counts.scanned_pairs,
            _ => 0,
        };
        self.review.rare_at_review = match &self.mode {
            Mode::Sparse(sp) => sp.rare_count(),
            _ => 0,
        };
        // A first try of the sparse method (its rare-check cost still unknown, taken as 0)
        // is measured over n/8 heaps rather than n/2: with threads, a wrong try idles them.
        if matches!(self.mode, Mode::Sparse(_))
            && self.review.scan_per_heap.is_none()
            && self.workers.threads > 1
        {
            self.review.next_review = (n + n / 8).max(256);
        }
    }
}

/// When the mode and the mask are next reviewed, and what the cost model measured at the last
/// review.
#[derive(Debug)]
pub(super) struct Review {
    pub(super) next_review: usize,
    /// Rare positions when the mask was last reviewed.
    pub(super) rare_at_review: usize,
    /// Length and scanned-pair count at the last review, and the measured rare-check scan
    /// length per heap (sparse mode), for the cost model.
    pub(super) review_len: usize,
    pub(super) review_scanned: u64,
    pub(super) scan_per_heap: Option<f64>,
    pub(super) allow_sparse: bool,
}

impl Review {
    pub(super) fn new() -> Review {
        Review {
            next_review: 256,
            rare_at_review: 0,
            review_len: 0,
            review_scanned: 0,
            scan_per_heap: None,
            allow_sparse: true,
        }
    }
}
