//! The fast, incremental, resumable G-sequence engine.
//!
//! Per heap n the excluded values are collected in a bitset and G(n) is its mex. Move types:
//!
//! * take the whole heap (bit 0 of `d_n`) and one-heap moves: O(number of digits);
//! * two-heap splits of finite digits: the rare/common method (`sparse.rs`) when the value
//!   statistics show a sparse space, otherwise full scans, split over threads (`dense.rs`);
//! * three-heap splits and recurring digits: full exclusion sets (`sets.rs`);
//! * three-heap splits that add ≥ 2 tokens (`u ≤ −2`, largest part capped): direct enumeration.
//!
//! The mode for two-heap splits is re-chosen at geometric checkpoints from the value counts.
//! Correctness never depends on the choice; tests compare with [`naive_values`] on random codes.
//!
//! The engine's rooms: this file is the step loop (the state, `extend_to`, one heap or one
//! block at a time, the value pushed); `engine/window.rs` keeps a front and a window
//! (keep, slide, freeze, the archive, resume from a window); `engine/review.rs` chooses the
//! mode for two-heap splits (the cost model); `engine/parallel/` (with `profile.rs`) runs the
//! rare/common method on several threads, its stages in `super::parallel`; `engine/testing.rs`
//! holds the settings only tests change, `engine/tests.rs` the tests.
//!
//! [`naive_values`]: super::naive::naive_values

use super::code::Game;
use super::error::OctalError;
use super::statistics::Statistics;
use super::values::{width_for, with_cells, Cell, Values, ValuesRef};
use super::window::{Keep, View};
use crate::octal::window::archive::Backing;
use bitset::set;
use rules::{Rules, Twos};
use sets::SetState;

pub(crate) mod bitset;
pub(crate) mod dense;
mod parallel;
pub(crate) mod pool;
mod profile;
mod review;
pub(crate) mod rules;
pub(crate) mod sets;
pub(crate) mod sparse;
pub(crate) mod split;
mod testing;
#[cfg(test)]
mod tests;
pub(crate) mod window;

use review::{Mode, SPARSE_MAX_BITS};

pub use profile::Profile;

/// A Grundy value (stored in the narrowest width that holds the largest one, see [`Values`]).
pub type Value = u32;

/// Hard limit on the number of values one engine computes while keeping every value (2^31,
/// i.e. 8 GiB of values).
pub const MAX_VALUES: usize = 1 << 31;

/// Hard limit on the number of values an engine computes in window mode ([`Keep::Window`]):
/// heap indices are 64-bit throughout; 2^48 bounds what a counter of occurrences or a
/// statistic could ever need.
pub const MAX_WINDOW_N: usize = 1 << 48;

/// Most threads one engine computes on (its own pool of helpers and the calling thread): the
/// one cap the service's `GRUNDY_JOB_THREADS` and a job's threads share.
pub const MAX_THREADS: usize = 64;

/// Dense scans run on several threads only from this many values on (below, the per-block
/// thread start-up costs more than it saves).
const PARALLEL_FROM: usize = 4096;

/// A snapshot of the engine's internal choices, for diagnostics and benchmarks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EngineStats {
    /// `"plain"`, `"dense"` or `"sparse"`.
    pub mode: &'static str,
    /// The rare/common mask (0 unless sparse).
    pub mask: u32,
    /// Number of rare positions (sparse mode).
    pub rare_positions: usize,
    /// Heaps whose rare check needed a scan, and split pairs scanned for it (sparse mode).
    pub rare_scans: u64,
    pub rare_scan_pairs: u64,
    /// Largest value so far.
    pub max_value: Value,
    /// Threads used for dense scans.
    pub threads: usize,
}

/// Incremental G-sequence computation for one game. (Not `Clone`: in window mode it owns
/// its archive.)
///
/// ```text
/// let mut e = Engine::new(&Game::parse("0.6")?);
/// e.extend_to(1_000_000, &mut || false)?;
/// let g: &Values = e.values(); // 1, 2 or 4 bytes per value
/// ```
#[derive(Debug)]
pub struct Engine {
    game: Game,
    rules: Rules,
    values: Values,
    /// Every value so far is below `2^vbits`.
    vbits: u32,
    /// Bitset width in words: `2^(vbits+1)` bits, so XORs of values and their mex both fit.
    words: usize,
    excl: Vec<u64>,
    /// `counts[v]`: how often v occurred as G(n), n ≥ 1 (length `2^vbits`).
    counts: Vec<u64>,
    /// Finite two-heap digits that must be scanned (not answered from X2 rows).
    scan_twos: Twos,
    mode: Mode,
    sets: Option<SetState>,
    /// When and how the mode and mask are reviewed, and the cost model's measurements
    /// (`engine/review.rs`).
    review: review::Review,
    /// The threads, their pool and what they did (`engine/parallel/`).
    workers: parallel::Workers,
    /// Which values are kept, and where the dropped ones go (`engine/window.rs`).
    window: window::WindowState,
    /// The tables' statistics kept with the values, when asked for.
    statistics: StatisticsState,
    /// The settings only tests change ([`testing::Knobs`]: bit marks, the pipeline on or off,
    /// from which heap and with which plan, the widest rows).
    knobs: testing::Knobs,
}

/// The tables' statistics of G(0..len), kept with the values when asked for
/// ([`Engine::set_statistics`]); why they stopped, if a value outgrew them.
#[derive(Debug, Default)]
struct StatisticsState {
    stats: Option<Box<Statistics>>,
    stats_error: Option<String>,
}

fn words_for(vbits: u32) -> usize {
    ((1usize << (vbits + 1)) / 64).max(1)
}

impl Engine {
    /// A fresh engine (no values yet). Uses every core the process may run on
    /// (`available_parallelism`, which honours CPU affinity and cgroup quotas; at most 64) for
    /// dense scans.
    pub fn new(game: &Game) -> Engine {
        let rules = Rules::new(game);
        let vbits = 1;
        let words = words_for(vbits);
        let sets = SetState::new(&rules, words);
        let has_x2 = sets.as_ref().is_some_and(SetState::has_x2);
        let scan_twos = rules.scan_twos(has_x2);
        let mode = if scan_twos.is_empty() {
            Mode::Plain
        } else {
            Mode::Dense
        };
        let threads = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(MAX_THREADS);
        Engine {
            game: game.clone(),
            rules,
            values: Values::new(),
            vbits,
            words,
            excl: vec![0; words],
            counts: vec![0; 1 << vbits],
            scan_twos,
            mode,
            sets,
            review: review::Review::new(),
            workers: parallel::Workers::new(threads),
            window: window::WindowState::new(),
            statistics: StatisticsState::default(),
            knobs: testing::Knobs::default(),
        }
    }

    /// An engine continuing from stored values G(0..len). The values are trusted (they come
    /// from this engine); only their shape is checked. For games that keep full exclusion sets
    /// (three-heap or recurring splitting digits) the sets are rebuilt from the values, which
    /// costs about as much as one pass of the computation without the mex work.
    /// `values` may be a `Vec<u32>` or a [`Values`] (stored in the narrowest width either way).
    pub fn resume(game: &Game, values: impl Into<Values>) -> Result<Engine, OctalError> {
        let mut values: Values = values.into();
        if values.len() > MAX_VALUES {
            return Err(OctalError::LengthTooLarge {
                requested: values.len(),
                max: MAX_VALUES,
            });
        }
        if values.get(0).is_some_and(|v| v != 0) {
            return Err(OctalError::InvalidValues {
                reason: "G(0) must be 0",
            });
        }
        let mut e = Engine::new(game);
        let max = values.max();
        if max >= 1 << 30 {
            return Err(OctalError::InvalidValues {
                reason: "value out of range",
            });
        }
        e.size_for(max);
        for v in values.iter().skip(1) {
            e.counts[v as usize] += 1;
        }
        if let Some(sets) = &mut e.sets {
            let (words, rules) = (e.words, &e.rules);
            with_cells!(values.as_ref(), |g| {
                for n in 0..g.len() {
                    sets.prepare(&g[..n], n, words, rules)?;
                }
            });
        }
        values.widen_to(width_for(max));
        e.values = values;
        e.review.next_review = 0;
        e.review();
        Ok(e)
    }

    /// Sets the number of threads (1 = single-threaded): dense blocks and the sparse method's
    /// pipeline (`engine/parallel/pipeline.rs`) use them; a change takes effect at the next block.
    pub fn set_threads(&mut self, threads: usize) {
        self.workers.threads = threads.clamp(1, MAX_THREADS);
    }

    /// Value bits, exclusion words and counts for values up to `top` (an engine made from
    /// stored values).
    pub(crate) fn size_for(&mut self, top: u32) {
        while top >> self.vbits != 0 {
            self.vbits += 1;
        }
        self.words = words_for(self.vbits);
        self.excl = vec![0; self.words];
        self.counts = vec![0; 1 << self.vbits];
    }

    /// Runs `f` with the engine's pool of helper threads (made if need be; none on one
    /// thread): the detector's long-period sweep shares the engine's threads.
    pub(crate) fn with_pool<R>(
        &mut self,
        f: impl FnOnce(&Engine, Option<&rayon::ThreadPool>) -> R,
    ) -> R {
        let pool = if self.workers.threads > 1 {
            self.take_pool()
        } else {
            None
        };
        let r = f(self, pool.as_ref());
        if pool.is_some() {
            self.workers.pool = pool;
        }
        r
    }

    /// The number of threads the engine may use.
    pub fn threads(&self) -> usize {
        self.workers.threads
    }

    /// Runs `hook` on each helper thread the engine starts, first thing (a caller that accounts
    /// CPU time per thread learns the threads this way: the engine itself does no I/O).
    pub fn set_thread_start(&mut self, hook: std::sync::Arc<dyn Fn() + Send + Sync>) {
        self.workers.thread_start = Some(parallel::pipeline::ThreadStart(hook));
        self.workers.pool = None;
    }

    /// Times the pipeline's stages ([`Profile`]); on one thread the pipeline then runs too,
    /// every stage on the calling thread, so that the profile shows what more threads would
    /// share.
    pub fn set_profile(&mut self, on: bool) {
        self.workers.profile = on.then(Profile::default);
    }

    /// The stages' times so far (with [`Engine::set_profile`]).
    pub fn profile(&self) -> Option<&Profile> {
        self.workers.profile.as_ref()
    }

    /// Adds `time` of the detector's long-period sweep (shared by the threads) to the profile.
    pub(crate) fn profile_sweep(&mut self, time: std::time::Duration, total: std::time::Duration) {
        if let Some(p) = self.workers.profile.as_mut() {
            p.sweep += time;
            p.detector += total.saturating_sub(time);
        }
    }

    /// The game.
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// G(0), …, G(len−1), in 1, 2 or 4 bytes per value ([`Values::get`], [`Values::iter`],
    /// [`Values::to_u32_vec`]) — while every value is kept. In window mode, once values were
    /// dropped ([`Engine::is_windowed`]), these are the kept values, the front then the tail:
    /// read them through [`Engine::kept`].
    pub fn values(&self) -> &Values {
        &self.values
    }

    /// Which values are kept.
    pub fn keep(&self) -> Keep {
        self.window.keep
    }

    /// True once values were dropped (window mode past `front + window + SLIDE` values).
    pub fn is_windowed(&self) -> bool {
        self.window.gap.is_some()
    }

    /// The kept values: `(front, tail, base)` with `front` = G(0..front.len()) and `tail` =
    /// G(base..len()). While every value is kept: `(all, all, 0)`.
    pub fn kept(&self) -> (ValuesRef<'_>, ValuesRef<'_>, usize) {
        let all = self.values.as_ref();
        match self.window.gap {
            None => (all, all, 0),
            Some(gap) => (all.slice(..gap.front), all.slice(gap.front..), gap.base),
        }
    }

    /// The rare/common mask the engine runs with (0 when it is not in sparse mode).
    pub fn mask(&self) -> u32 {
        match &self.mode {
            Mode::Sparse(sp) => sp.mask,
            _ => 0,
        }
    }

    /// `counts[v]`: how often v occurred as G(n), n ≥ 1.
    pub fn counts(&self) -> &[u64] {
        &self.counts
    }

    /// Keeps `stats` (the statistics of G(0..stats.len())) up to date with every value from
    /// now on, counting first the kept values it has not seen. Refused when it has seen more
    /// values than there are, or when values it has not seen were dropped.
    pub fn set_statistics(&mut self, mut stats: Statistics) -> Result<(), OctalError> {
        let (n, seen) = (self.len() as u64, stats.len());
        let (_, tail, base) = self.kept();
        if seen > n || (seen as usize) < base {
            return Err(OctalError::InvalidValues {
                reason: "the statistics do not match the values",
            });
        }
        if let Err(e) = stats.observe_values(seen, tail.slice(seen as usize - base..)) {
            self.statistics.stats_error = Some(e.to_string());
            self.statistics.stats = None;
            return Ok(());
        }
        self.statistics.stats = Some(Box::new(stats));
        self.statistics.stats_error = None;
        Ok(())
    }

    /// The statistics of G(0..len), when kept ([`Engine::set_statistics`]).
    pub fn statistics(&self) -> Option<&Statistics> {
        self.statistics.stats.as_deref()
    }

    /// Why the statistics stopped being kept (a value beyond what they count).
    pub fn statistics_error(&self) -> Option<&str> {
        self.statistics.stats_error.as_deref()
    }

    /// Counts G(from..len) into the statistics (the values were just computed: still kept).
    fn observe_since(&mut self, from: usize) {
        let Some(stats) = self.statistics.stats.as_deref_mut() else {
            return;
        };
        let all = self.values.as_ref();
        let new = match self.window.gap {
            None => all.slice(from..),
            Some(gap) => all.slice(gap.front + (from - gap.base)..),
        };
        if let Err(e) = stats.observe_values(from as u64, new) {
            self.statistics.stats_error = Some(e.to_string());
            self.statistics.stats = None;
        }
    }

    /// Number of computed values.
    pub fn len(&self) -> usize {
        match self.window.gap {
            None => self.values.len(),
            Some(gap) => gap.base + self.values.len() - gap.front,
        }
    }

    /// True before G(0) is computed.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Gives the values back.
    pub fn into_values(self) -> Values {
        self.values
    }

    /// Diagnostics.
    pub fn stats(&self) -> EngineStats {
        let (mode, mask, rare, scans, pairs) = match &self.mode {
            Mode::Plain => ("plain", 0, 0, 0, 0),
            Mode::Dense => ("dense", 0, 0, 0, 0),
            Mode::Sparse(s) => (
                "sparse",
                s.mask,
                s.rare_count(),
                s.counts.scans,
                s.counts.scanned_pairs,
            ),
        };
        EngineStats {
            mode,
            mask,
            rare_positions: rare,
            rare_scans: scans,
            rare_scan_pairs: pairs,
            max_value: self.values.max(),
            threads: self.workers.threads,
        }
    }

    /// Computes values until `len() ≥ n`. `should_stop` is polled between chunks of work (a
    /// few milliseconds each); when it returns true the engine stops with
    /// [`OctalError::Stopped`], keeping every value computed so far, and can be extended later.
    pub fn extend_to(
        &mut self,
        n: usize,
        should_stop: &mut dyn FnMut() -> bool,
    ) -> Result<(), OctalError> {
        let max = match self.window.keep {
            Keep::All => MAX_VALUES,
            Keep::Window { .. } => MAX_WINDOW_N,
        };
        if n > max {
            return Err(OctalError::LengthTooLarge { requested: n, max });
        }
        while self.len() < n {
            if should_stop() {
                return Err(OctalError::Stopped {
                    computed: self.len(),
                });
            }
            self.slide()?;
            let len = self.len();
            if len >= self.review.next_review {
                if self.window.gap.is_some() {
                    self.review_window()?;
                } else {
                    self.review();
                }
            }
            let mut stop_at = n.min(self.review.next_review.max(len + 1));
            if let Keep::Window { front, window } = self.window.keep {
                // Never more than `front + window + 2·slide` values held (a slide follows) —
                // unless the archive holds back a drop (it has not written the values yet):
                // then a slide at a time; whoever feeds the archive bounds the lag.
                let held = self.values.len();
                stop_at = stop_at.min(
                    len + (front + window + 2 * self.window.slide)
                        .saturating_sub(held)
                        .max(self.window.slide),
                );
            }
            let done = self.compute(len, stop_at, should_stop);
            // Every value computed, up to an error too, is counted before it can be dropped.
            self.observe_since(len);
            done?;
        }
        Ok(())
    }

    /// One stretch of work from heap `len` towards `stop_at`: the parallel pipeline, a parallel
    /// dense block or a chunk.
    fn compute(
        &mut self,
        len: usize,
        stop_at: usize,
        should_stop: &mut dyn FnMut() -> bool,
    ) -> Result<(), OctalError> {
        if self.pipeline_ready(len) {
            self.pipeline(stop_at, should_stop)
        } else if matches!(self.mode, Mode::Dense)
            && (self.workers.threads > 1 || self.workers.profile.is_some())
            && len >= PARALLEL_FROM
        {
            // Blocks of ≈ len/32 heaps, smaller when a block would be a long stretch of work.
            let by_work = (1usize << 27) / (len * self.scan_twos.len().max(1));
            let block = (len / 32).min(by_work).clamp(64, 1 << 16);
            self.dense_block(len, stop_at.min(len + block))
        } else {
            let end = stop_at.min(len + self.chunk(len));
            for m in len..end {
                self.step(m)?;
            }
            Ok(())
        }
    }

    /// Heaps per chunk between `should_stop` polls: about 2^22 elementary operations.
    fn chunk(&self, len: usize) -> usize {
        let k = self.scan_twos.len().max(1);
        let mut cost = self.words + self.rules.ones.len() + 8;
        cost += match &self.mode {
            Mode::Plain => 0,
            Mode::Dense => len / 2 * k,
            Mode::Sparse(s) => s.rare.len() * k + 64,
        };
        if self.sets.is_some() {
            let threes = self.rules.threes_free.len() + usize::from(self.rules.recurring_threes());
            cost = cost.saturating_add(
                len / 2 + (threes * len / 3).saturating_mul(self.words) + self.words * 4,
            );
        }
        cost = cost.saturating_add(
            self.rules
                .threes_capped
                .len()
                .saturating_mul(len.saturating_mul(len) / 12),
        );
        ((1usize << 22) / cost).clamp(1, 1 << 16)
    }

    /// Marks everything but the scanned two-heap digits for heap n into `self.excl`.
    fn exclude_base(&mut self, n: usize) {
        let (game, rules, sets, excl) = (&self.game, &self.rules, &self.sets, &mut self.excl[..]);
        let gap = self.window.gap;
        with_cells!(self.values.as_ref(), |g| exclude_base_in(
            View::of(g, gap),
            game,
            rules,
            sets,
            n,
            excl
        ));
    }

    /// Computes G(n) = G(len) sequentially.
    fn step(&mut self, n: usize) -> Result<(), OctalError> {
        if let Some(sets) = &mut self.sets {
            let (words, rules) = (self.words, &self.rules);
            with_cells!(self.values.as_ref(), |g| sets.prepare(g, n, words, rules))?;
        }
        self.excl.iter_mut().for_each(|w| *w = 0);
        self.exclude_base(n);
        let (twos, excl) = (&self.scan_twos, &mut self.excl);
        let v = match &mut self.mode {
            Mode::Plain => bitset::mex(excl),
            Mode::Dense => {
                with_cells!(self.values.as_ref(), |g| dense::scan_pairs(
                    g, n, twos, 0, excl
                ));
                bitset::mex(excl)
            }
            Mode::Sparse(sp) => {
                let gap = self.window.gap;
                let mut backing = self.window.archive.as_deref_mut().map(|archive| Backing {
                    archive,
                    counts: &mut self.window.read_backs,
                });
                with_cells!(self.values.as_ref(), |g| sp.step(
                    View::of(g, gap),
                    n,
                    twos,
                    excl,
                    &mut backing
                ))?
            }
        };
        self.push_value(n, v)
    }

    /// Computes G(start..end) in dense mode with parallel phase one.
    fn dense_block(&mut self, start: usize, end: usize) -> Result<(), OctalError> {
        let words0 = self.words;
        // One thread (a profile): phase one on the calling thread.
        let pool = if self.workers.threads > 1 {
            self.take_pool()
        } else {
            None
        };
        let started = self
            .workers
            .profile
            .as_ref()
            .map(|_| std::time::Instant::now());
        let twos = &self.scan_twos;
        let pre = with_cells!(self.values.as_ref(), |g| dense::phase_one(
            g,
            start,
            end,
            twos,
            words0,
            pool.as_ref()
        ));
        if pool.is_some() {
            self.workers.pool = pool;
        }
        if let (Some(p), Some(t)) = (self.workers.profile.as_mut(), started) {
            p.dense += t.elapsed();
        }
        for n in start..end {
            if let Some(sets) = &mut self.sets {
                let (words, rules) = (self.words, &self.rules);
                with_cells!(self.values.as_ref(), |g| sets.prepare(g, n, words, rules))?;
            }
            self.excl.iter_mut().for_each(|w| *w = 0);
            let i = n - start;
            self.excl[..words0].copy_from_slice(&pre[i * words0..(i + 1) * words0]);
            self.exclude_base(n);
            let (twos, excl) = (&self.scan_twos, &mut self.excl);
            with_cells!(self.values.as_ref(), |g| dense::scan_pairs(
                g, n, twos, start, excl
            ));
            let v = bitset::mex(&self.excl);
            self.push_value(n, v)?;
        }
        Ok(())
    }

    fn push_value(&mut self, n: usize, v: u32) -> Result<(), OctalError> {
        if v >> self.vbits != 0 {
            if v >= 1 << 30 {
                return Err(OctalError::ValueOverflow { n });
            }
            while v >> self.vbits != 0 {
                self.vbits += 1;
            }
            self.words = words_for(self.vbits);
            self.excl = vec![0; self.words];
            self.counts.resize(1 << self.vbits, 0);
            if self.vbits > SPARSE_MAX_BITS {
                // The sparse tables hold values as u16; values this large mean no sparse
                // space anyway.
                if self.window.gap.is_some() {
                    return Err(OctalError::WindowTooSmall {
                        heap: n as u64,
                        detail: format!(
                            "G({n}) = {v} is 2^16 or more: the rare/common method, which window \
                             mode needs, keeps values below 2^16 (keep every value instead)"
                        ),
                    });
                }
                if matches!(self.mode, Mode::Sparse(_)) {
                    self.mode = Mode::Dense;
                }
            } else if let Mode::Sparse(sp) = &mut self.mode {
                sp.widen(self.words);
            }
        }
        self.values.push(v);
        if n >= 1 {
            self.counts[v as usize] += 1;
        }
        if let Mode::Sparse(sp) = &mut self.mode {
            sp.push(n, v);
            // A mask that has gone stale (many new rare positions) is reviewed early.
            if sp.rare_count() > 2 * self.review.rare_at_review + 4096 {
                self.review.next_review = n + 1;
            }
        }
        Ok(())
    }
}

/// Marks everything but the scanned two-heap digits for heap n into `excl` (`g` = G(0..n)):
/// taking the whole heap, one-heap moves, three-heap splits that add tokens, and (through
/// `sets`) the full exclusion sets.
fn exclude_base_in<T: Cell>(
    g: View<'_, T>,
    game: &Game,
    rules: &Rules,
    sets: &Option<SetState>,
    n: usize,
    excl: &mut [u64],
) {
    if game.digit(n as i64) & 1 == 1 {
        set(excl, 0);
    }
    for &u in &rules.ones {
        if u >= n {
            break;
        }
        set(excl, g.near(n - u).get());
    }
    for &u in &rules.threes_capped {
        // Add |u| ≥ 2 tokens, split into a ≤ b ≤ c with c ≤ n − 1.
        let total = n + u.unsigned_abs() as usize;
        let Some(cap) = n.checked_sub(1) else {
            continue;
        };
        for a in 1..=total / 3 {
            let b_min = a.max((total - a).saturating_sub(cap));
            for b in b_min..=(total - a) / 2 {
                // Never in window mode (refused when the gap opens): `front` is every value.
                let g = g.front;
                set(excl, g[a].get() ^ g[b].get() ^ g[total - a - b].get());
            }
        }
    }
    if let Some(sets) = sets {
        sets.exclude(g.front, n, rules, excl);
    }
}
