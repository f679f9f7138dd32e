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
//! [`naive_values`]: super::naive::naive_values

use super::archive::{fill, Archive, Backing, ReadBacks, READ_RUN};
use super::bitset::{self, set};
use super::code::Game;
use super::dense;
use super::error::OctalError;
use super::rules::{Rules, Twos};
use super::sets::SetState;
use super::sparse::{best_mask, Sparse};
use super::split::MAX_HEAPS;
use super::statistics::Statistics;
use super::values::{width_for, with_cells, Cell, Values, ValuesRef};
use super::window::{Gap, Keep, View, SLIDE};

mod pipeline;
mod profile;

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

/// Dense scans run on several threads only from this many values on (below, the per-block
/// thread start-up costs more than it saves).
const PARALLEL_FROM: usize = 4096;

/// How much cheaper a pair is in a parallel dense block than in a sequential scan or in sparse
/// mode (measured on `.007` to 10^5: 1.80 s of CPU on one thread with sequential scans, 1.22 s in
/// all on two threads with blocks; sparse mode ≈ 0.5–0.7 ns per pair against 0.47 ns for block
/// pairs). Without it the model kept `.007` sparse on two threads, although dense blocks on two
/// threads finish in half the time (BENCHMARKS.md, "Threads").
const PHASE_ONE_PAIR_SPEEDUP: f64 = 1.5;

/// The largest value width (bits) for which a sparse space is looked for.
const SPARSE_MAX_BITS: u32 = 16;

/// Which method currently handles the finite two-heap digits.
#[derive(Debug, Clone)]
enum Mode {
    /// No two-heap digit needs scanning.
    Plain,
    /// Full scans (possibly parallel).
    Dense,
    /// Rare/common method.
    Sparse(Box<Sparse>),
}

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
    threads: usize,
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
    next_review: usize,
    /// Rare positions when the mask was last reviewed.
    rare_at_review: usize,
    /// Length and scanned-pair count at the last review, and the measured rare-check scan
    /// length per heap (sparse mode), for the cost model in `review`.
    review_len: usize,
    review_scanned: u64,
    scan_per_heap: Option<f64>,
    allow_sparse: bool,
    /// Sparse mode may use bit marks while values are below 64 (`bitmarks.rs`); tests switch
    /// it off to compare with the stamp arrays.
    bit_marks: bool,
    /// Sparse mode on several threads (`engine/pipeline.rs`) where it applies (tests switch it
    /// off to compare), and its pool of helper threads (made on first use).
    pipeline: bool,
    pool: Option<rayon::ThreadPool>,
    /// Run on each helper thread as it starts ([`Engine::set_thread_start`]).
    thread_start: Option<pipeline::ThreadStart>,
    /// The pipeline runs from this heap on ([`pipeline::PIPELINE_FROM`]; tests lower it), with
    /// the block size and far rows of its plan unless a test fixes them.
    pipeline_from: usize,
    plan_override: Option<(usize, bool)>,
    /// Tests: byte rows of the widest kind whatever the values (every row width runs the
    /// same code with another `N`).
    widest_rows: bool,
    /// What the pipeline did (diagnostics, tests).
    pipeline_counts: pipeline::Counts,
    /// The stages' times, when asked for ([`Engine::set_profile`]).
    profile: Option<Profile>,
    /// Which values are kept (`window.rs`), and where the dropped ones were once some are.
    keep: Keep,
    gap: Option<Gap>,
    /// Values dropped at a time ([`SLIDE`]; tests use less).
    slide: usize,
    /// The tables' statistics of G(0..len), kept with the values when asked for
    /// ([`Engine::set_statistics`]); why they stopped, if a value outgrew them.
    stats: Option<Box<Statistics>>,
    stats_error: Option<String>,
    /// Window mode: where dropped values go and are read back from (`archive.rs`); without
    /// one, values are dropped for good and a heap that needs one is an error.
    archive: Option<Box<dyn Archive>>,
    read_backs: ReadBacks,
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
            .min(64);
        Engine {
            game: game.clone(),
            rules,
            values: Values::new(),
            threads,
            vbits,
            words,
            excl: vec![0; words],
            counts: vec![0; 1 << vbits],
            scan_twos,
            mode,
            sets,
            next_review: 256,
            rare_at_review: 0,
            review_len: 0,
            review_scanned: 0,
            scan_per_heap: None,
            allow_sparse: true,
            bit_marks: true,
            pipeline: true,
            pool: None,
            thread_start: None,
            pipeline_from: pipeline::PIPELINE_FROM,
            plan_override: None,
            widest_rows: false,
            pipeline_counts: pipeline::Counts::default(),
            profile: None,
            keep: Keep::All,
            gap: None,
            slide: SLIDE,
            stats: None,
            stats_error: None,
            archive: None,
            read_backs: ReadBacks::default(),
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
        while max >> e.vbits != 0 {
            e.vbits += 1;
        }
        e.words = words_for(e.vbits);
        e.excl = vec![0; e.words];
        e.counts = vec![0; 1 << e.vbits];
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
        e.next_review = 0;
        e.review();
        Ok(e)
    }

    /// Keeps every value (default) or a front and a window ([`Keep::Window`]: `front ≥ window`,
    /// both positive multiples of [`SLIDE`]); values are dropped once there are more than
    /// `front + window + SLIDE`. Changing it after values were dropped is refused.
    pub fn set_keep(&mut self, keep: Keep) -> Result<(), OctalError> {
        if let Keep::Window { front, window } = keep {
            let slide = self.slide;
            if window == 0 || window % slide != 0 || front % slide != 0 || front < window {
                return Err(OctalError::WindowTooSmall {
                    heap: self.len() as u64,
                    detail: format!(
                        "a window of {window} and a front of {front} values: both must be \
                         positive multiples of {slide}, the front at least the window"
                    ),
                });
            }
        }
        if self.gap.is_some() && keep != self.keep {
            return Err(OctalError::WindowTooSmall {
                heap: self.len() as u64,
                detail: "values were already dropped; the kept values cannot change".into(),
            });
        }
        self.keep = keep;
        Ok(())
    }

    /// An engine in window mode continuing from kept values: `front` is G(0..front.len()),
    /// `tail` is G(base..base + tail.len()), `counts[v]` how often v occurred among G(1..n),
    /// `mask` the rare/common mask the computation ran with and `far` the rare positions
    /// beyond the window with their values ([`Engine::far_rare`]; see `window.rs`). The
    /// values between the front and the tail are read back from the archive set with
    /// [`Engine::set_archive`]. Where nothing was dropped yet (`base ≤ front.len()`) this is
    /// [`Engine::resume`] with the window set.
    #[allow(clippy::too_many_arguments)] // the saved state of a window, field by field
    pub fn resume_window(
        game: &Game,
        keep: Keep,
        front: Values,
        tail: Values,
        base: usize,
        counts: &[u64],
        mask: u32,
        far: &[(u64, u16)],
    ) -> Result<Engine, OctalError> {
        let Keep::Window { front: f, .. } = keep else {
            return Err(OctalError::InvalidValues {
                reason: "resume_window needs a window",
            });
        };
        if base <= front.len() {
            let mut all = front;
            all.truncate(base);
            all.extend_from_ref(tail.as_ref());
            let mut e = Engine::resume(game, all)?;
            e.set_keep(keep)?;
            return Ok(e);
        }
        if front.len() != f || front.get(0).is_some_and(|v| v != 0) {
            return Err(OctalError::InvalidValues {
                reason: "the front does not match the window",
            });
        }
        let n = base + tail.len();
        if n > MAX_WINDOW_N || counts.iter().sum::<u64>() + 1 != n as u64 {
            return Err(OctalError::InvalidValues {
                reason: "the counts do not match the kept values",
            });
        }
        let mut e = Engine::new(game);
        e.keep = keep;
        let max = front.max().max(tail.max());
        let top = counts.iter().rposition(|&c| c > 0).unwrap_or(0) as u32;
        if max > top || max >= 1 << 16 {
            return Err(OctalError::InvalidValues {
                reason: "value out of range",
            });
        }
        while top >> e.vbits != 0 {
            e.vbits += 1;
        }
        e.words = words_for(e.vbits);
        e.excl = vec![0; e.words];
        e.counts = vec![0; 1 << e.vbits];
        e.counts[..counts.len().min(1 << e.vbits)]
            .copy_from_slice(&counts[..counts.len().min(1 << e.vbits)]);
        let mut values = front;
        values.widen_to(width_for(top));
        values.extend_from_ref(tail.as_ref());
        e.values = values;
        e.gap = Some(Gap { front: f, base });
        if !e.scan_twos.is_empty() {
            // The rare positions and probes from the front; those beyond it as saved.
            let (words, sparse) = (e.words, &mut e.mode);
            *sparse = Mode::Sparse(Box::new(with_cells!(e.values.as_ref(), |g| {
                Sparse::new(mask, &g[..f], words)
            })));
        }
        e.freeze()?;
        match &mut e.mode {
            Mode::Sparse(sp) => sp.restore_far(far)?,
            _ if far.is_empty() => {}
            _ => {
                return Err(OctalError::InvalidValues {
                    reason: "rare positions saved for a game without two-heap splits",
                })
            }
        }
        Ok(e)
    }

    /// Window mode: where the values the engine drops go, and are read back from
    /// (`archive.rs`). Without one, dropped values are gone, and a heap whose rare check
    /// needs one of them ends the computation with [`OctalError::Archive`].
    pub fn set_archive(&mut self, archive: Box<dyn Archive>) {
        self.archive = Some(archive);
    }

    /// The archive, to look at after a computation (tests, diagnostics).
    pub fn archive(&self) -> Option<&dyn Archive> {
        self.archive.as_deref()
    }

    /// Read-backs from the archive so far.
    pub fn read_backs(&self) -> ReadBacks {
        self.read_backs
    }

    /// Window mode: the rare positions beyond the window (paired through the archive), with
    /// their values — what [`Engine::resume_window`] needs besides the kept values.
    pub fn far_rare(&self) -> Vec<(u64, u16)> {
        match &self.mode {
            Mode::Sparse(sp) => sp.far(),
            _ => Vec::new(),
        }
    }

    /// Tests: bit marks where values allow (the default), or never (see `sparse.rs`).
    #[cfg(test)]
    pub(crate) fn set_bit_marks(&mut self, on: bool) {
        self.bit_marks = on;
        if let Mode::Sparse(sp) = &mut self.mode {
            sp.set_bit_marks(on);
        }
    }

    /// Tests: whether sparse mode runs on bit marks now.
    #[cfg(test)]
    pub(crate) fn bit_marks_in_use(&self) -> bool {
        matches!(&self.mode, Mode::Sparse(sp) if sp.bits_in_use())
    }

    /// Tests: every rare check reads its splits through the archive path (see `sparse.rs`).
    #[cfg(test)]
    pub(crate) fn force_read_back(&mut self) {
        if let Mode::Sparse(sp) = &mut self.mode {
            sp.set_force_read_back(true);
        }
    }

    /// Why window mode ([`Keep::Window`]) cannot compute `game` at all, if it cannot: moves
    /// that leave three heaps, or recurring digits, need every value. (Whether the game has a
    /// sparse space is only known from its values.)
    pub fn window_refusal(game: &Game) -> Option<&'static str> {
        let rules = Rules::new(game);
        let sets = SetState::new(&rules, 1);
        (sets.is_some() || !rules.threes_capped.is_empty())
            .then_some("moves that leave three heaps, and recurring digits, need every value")
    }

    /// Drops values `slide` at a time in window mode instead of [`SLIDE`] (tests and
    /// experiments: windows of a few hundred values). Before [`Engine::set_keep`].
    pub fn set_slide(&mut self, slide: usize) {
        self.slide = slide.max(1);
    }

    /// Allows (default) or forbids the rare/common method (forbidding is for benchmarks and
    /// tests: the values do not depend on it).
    pub fn set_allow_sparse(&mut self, allow: bool) {
        self.allow_sparse = allow;
        if !allow && matches!(self.mode, Mode::Sparse(_)) {
            self.mode = Mode::Dense;
        }
    }

    /// Sets the number of threads (1 = single-threaded): dense blocks and the sparse method's
    /// pipeline (`engine/pipeline.rs`) use them; a change takes effect at the next block.
    pub fn set_threads(&mut self, threads: usize) {
        self.threads = threads.clamp(1, 64);
    }

    /// Runs `f` with the engine's pool of helper threads (made if need be; none on one
    /// thread): the detector's long-period sweep shares the engine's threads.
    pub(crate) fn with_pool<R>(
        &mut self,
        f: impl FnOnce(&Engine, Option<&rayon::ThreadPool>) -> R,
    ) -> R {
        let pool = if self.threads > 1 {
            self.take_pool()
        } else {
            None
        };
        let r = f(self, pool.as_ref());
        if pool.is_some() {
            self.pool = pool;
        }
        r
    }

    /// The number of threads the engine may use.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Runs `hook` on each helper thread the engine starts, first thing (a caller that accounts
    /// CPU time per thread learns the threads this way: the engine itself does no I/O).
    pub fn set_thread_start(&mut self, hook: std::sync::Arc<dyn Fn() + Send + Sync>) {
        self.thread_start = Some(pipeline::ThreadStart(hook));
        self.pool = None;
    }

    /// Times the pipeline's stages ([`Profile`]); on one thread the pipeline then runs too,
    /// every stage on the calling thread, so that the profile shows what more threads would
    /// share.
    pub fn set_profile(&mut self, on: bool) {
        self.profile = on.then(Profile::default);
    }

    /// The stages' times so far (with [`Engine::set_profile`]).
    pub fn profile(&self) -> Option<&Profile> {
        self.profile.as_ref()
    }

    /// Adds `time` of the detector's long-period sweep (shared by the threads) to the profile.
    pub(crate) fn profile_sweep(&mut self, time: std::time::Duration) {
        if let Some(p) = self.profile.as_mut() {
            p.sweep += time;
        }
    }

    /// Tests: `serial` of busy work forced into every round of the pipeline (profiling on).
    #[cfg(test)]
    pub(crate) fn force_serial_work(&mut self, serial: std::time::Duration) {
        let p = self.profile.get_or_insert_with(Profile::default);
        p.forced = serial;
    }

    /// Tests: sparse mode on several threads (`engine/pipeline.rs`) where it applies
    /// (default), or never.
    #[cfg(test)]
    pub(crate) fn set_pipeline(&mut self, on: bool) {
        self.pipeline = on;
    }

    /// Tests: the pipeline from heap `from` on, with blocks of `block` heaps and far rows or
    /// not (`None`: as its plan says).
    #[cfg(test)]
    pub(crate) fn force_pipeline(&mut self, from: usize, plan: Option<(usize, bool)>) {
        self.pipeline_from = from;
        self.plan_override = plan;
    }

    /// Tests: the widest byte rows whatever the values.
    #[cfg(test)]
    pub(crate) fn force_widest_rows(&mut self) {
        self.widest_rows = true;
    }

    /// Tests: what the pipeline did so far.
    #[cfg(test)]
    pub(crate) fn pipeline_counts(&self) -> pipeline::Counts {
        self.pipeline_counts
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
        self.keep
    }

    /// True once values were dropped (window mode past `front + window + SLIDE` values).
    pub fn is_windowed(&self) -> bool {
        self.gap.is_some()
    }

    /// The kept values: `(front, tail, base)` with `front` = G(0..front.len()) and `tail` =
    /// G(base..len()). While every value is kept: `(all, all, 0)`.
    pub fn kept(&self) -> (ValuesRef<'_>, ValuesRef<'_>, usize) {
        let all = self.values.as_ref();
        match self.gap {
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
            self.stats_error = Some(e.to_string());
            self.stats = None;
            return Ok(());
        }
        self.stats = Some(Box::new(stats));
        self.stats_error = None;
        Ok(())
    }

    /// The statistics of G(0..len), when kept ([`Engine::set_statistics`]).
    pub fn statistics(&self) -> Option<&Statistics> {
        self.stats.as_deref()
    }

    /// Why the statistics stopped being kept (a value beyond what they count).
    pub fn statistics_error(&self) -> Option<&str> {
        self.stats_error.as_deref()
    }

    /// Counts G(from..len) into the statistics (the values were just computed: still kept).
    fn observe_since(&mut self, from: usize) {
        let Some(stats) = self.stats.as_deref_mut() else {
            return;
        };
        let all = self.values.as_ref();
        let new = match self.gap {
            None => all.slice(from..),
            Some(gap) => all.slice(gap.front + (from - gap.base)..),
        };
        if let Err(e) = stats.observe_values(from as u64, new) {
            self.stats_error = Some(e.to_string());
            self.stats = None;
        }
    }

    /// Number of computed values.
    pub fn len(&self) -> usize {
        match self.gap {
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
            Mode::Sparse(s) => ("sparse", s.mask, s.rare_count(), s.scans, s.scanned_pairs),
        };
        EngineStats {
            mode,
            mask,
            rare_positions: rare,
            rare_scans: scans,
            rare_scan_pairs: pairs,
            max_value: self.values.max(),
            threads: self.threads,
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
        let max = match self.keep {
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
            if len >= self.next_review {
                if self.gap.is_some() {
                    self.review_window()?;
                } else {
                    self.review();
                }
            }
            let mut stop_at = n.min(self.next_review.max(len + 1));
            if let Keep::Window { front, window } = self.keep {
                // Never more than `front + window + 2·slide` values held (a slide follows) —
                // unless the archive holds back a drop (it has not written the values yet):
                // then a slide at a time; whoever feeds the archive bounds the lag.
                let held = self.values.len();
                stop_at = stop_at.min(
                    len + (front + window + 2 * self.slide)
                        .saturating_sub(held)
                        .max(self.slide),
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
            && (self.threads > 1 || self.profile.is_some())
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
        let gap = self.gap;
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
                let gap = self.gap;
                let mut backing = self.archive.as_deref_mut().map(|archive| Backing {
                    archive,
                    counts: &mut self.read_backs,
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
        let pool = if self.threads > 1 {
            self.take_pool()
        } else {
            None
        };
        let started = self.profile.as_ref().map(|_| std::time::Instant::now());
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
            self.pool = pool;
        }
        if let (Some(p), Some(t)) = (self.profile.as_mut(), started) {
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
                if self.gap.is_some() {
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
            if sp.rare_count() > 2 * self.rare_at_review + 4096 {
                self.next_review = n + 1;
            }
        }
        Ok(())
    }

    /// Window mode: drops values once more than `front + window + SLIDE` are held, keeping
    /// the front and at least `window` behind the last one. The first drop opens the gap
    /// and freezes mode and mask ([`Engine::freeze`]).
    fn slide(&mut self) -> Result<(), OctalError> {
        let Keep::Window { front, window } = self.keep else {
            return Ok(());
        };
        let front_len = self.gap.map_or(front, |gap| gap.front);
        let tail = self.values.len().saturating_sub(front_len);
        if tail < window + self.slide {
            return Ok(());
        }
        if self.gap.is_none() {
            self.last_mask_choice(window);
            self.gap = Some(Gap { front, base: front });
            if let Err(e) = self.freeze() {
                self.gap = None;
                return Err(e);
            }
        }
        let mut drop = (tail - window) / self.slide * self.slide;
        if let (Some(archive), Some(gap)) = (&mut self.archive, self.gap) {
            // Only what the archive holds (or will, once it is written) may go.
            let dropping = self.values.as_ref().slice(front_len..front_len + drop);
            let held =
                archive
                    .offer(gap.base as u64, dropping)
                    .map_err(|detail| OctalError::Archive {
                        heap: gap.base as u64,
                        detail,
                    })?;
            let allowed = usize::try_from(held).unwrap_or(usize::MAX);
            drop = drop.min(allowed.saturating_sub(gap.base) / self.slide * self.slide);
        }
        self.values.drain(front_len..front_len + drop);
        if let Some(gap) = &mut self.gap {
            gap.base += drop;
        }
        Ok(())
    }

    /// Window mode from now on: checks that the game can be computed from a front and a
    /// window (the rare/common method or no two-heap digit at all; no full exclusion sets;
    /// every rare position below the window less the largest take), then fixes mode and mask.
    fn freeze(&mut self) -> Result<(), OctalError> {
        let Keep::Window { front, window } = self.keep else {
            return Ok(());
        };
        let heap = self.len() as u64;
        let refuse = |why: String| OctalError::WindowTooSmall {
            heap,
            detail: format!("{why}; window mode cannot compute this game (keep every value)"),
        };
        if self.sets.is_some() || !self.rules.threes_capped.is_empty() {
            return Err(refuse(
                "three-heap splits and recurring digits need every value".into(),
            ));
        }
        let rare_limit = self.rare_limit(window);
        match &mut self.mode {
            Mode::Plain => {}
            Mode::Dense => {
                return Err(refuse(format!(
                    "the values up to {heap} have no sparse space (too many rare values under \
                     every mask), so two-heap splits are scanned in full"
                )))
            }
            Mode::Sparse(sp) => sp.set_limits(front.min(rare_limit), rare_limit),
        }
        // The mask is reviewed on (`review_window`) where an archive holds every value.
        let n = self.len();
        self.next_review = (n + n / 2).max(256);
        Ok(())
    }

    /// Window mode's review: the mask with the fewest rare values, from the value counts, as
    /// in [`Engine::review`]; when it is clearly better than the mask in use, the rare/common
    /// tables are built again for it from every value — the front, the archive read back in
    /// order, the tail. (`.6` with a window of 4096: the gap opens near 8,700 under the mask
    /// `ee`, which makes every value from 256 on rare; `1ee` keeps them common.) Only the
    /// mode's mask changes: window mode stays sparse. Without an archive the mask stays.
    fn review_window(&mut self) -> Result<(), OctalError> {
        let n = self.len();
        self.next_review = (n + n / 2).max(256);
        let Keep::Window { front, window } = self.keep else {
            return Ok(());
        };
        let rare_limit = self.rare_limit(window);
        let (Some(archive), Mode::Sparse(sp)) = (self.archive.as_deref_mut(), &self.mode) else {
            self.next_review = usize::MAX;
            return Ok(());
        };
        let (mask, rare) = best_mask(&self.counts);
        let current = sp.rare_count();
        if mask == sp.mask || 4 * rare as usize >= 3 * current {
            return Ok(());
        }
        let mut new = Sparse::new::<u8>(mask, &[], self.words);
        new.set_limits(front.min(rare_limit), rare_limit);
        new.inherit_test_flags(sp);
        let gap = self.gap;
        let mut backing = Some(Backing {
            archive,
            counts: &mut self.read_backs,
        });
        let mut run = vec![0u16; READ_RUN.min(n)];
        let mut a = 0;
        while a < n {
            let end = (a + READ_RUN).min(n);
            let part = &mut run[..end - a];
            with_cells!(self.values.as_ref(), |g| fill(
                View::of(g, gap),
                &mut backing,
                a,
                part
            ))?;
            for (i, &v) in part.iter().enumerate() {
                new.push(a + i, v.into());
            }
            a = end;
        }
        self.rare_at_review = new.rare_count();
        self.mode = Mode::Sparse(Box::new(new));
        Ok(())
    }

    /// The last moment every value is at hand (the gap is about to open): window mode runs the
    /// rare/common method, so a dense mode chosen for its cost (parallel dense scans can beat
    /// sparse mode on small n: `.36` on two threads at 8,600 heaps) gives way to the mask with
    /// the fewest rare values wherever a sparse space exists (at most a quarter of the values
    /// rare, as a review asks); and a mask that leaves a rare position beyond the window
    /// ([`Engine::rare_limit`]) gives way to a better one when there is one. (Grundy's game to
    /// 2^23 with a window of 2^22: G(7,250,049) = 256 is rare under the mask `fe` chosen at the
    /// last review, common under `1fe`.)
    fn last_mask_choice(&mut self, window: usize) {
        let rare_limit = self.rare_limit(window);
        let (mask, rare) = best_mask(&self.counts);
        let switch = match &self.mode {
            Mode::Dense => {
                self.allow_sparse
                    && self.vbits <= SPARSE_MAX_BITS
                    && 4 * rare as usize <= self.len()
            }
            Mode::Sparse(sp) => {
                sp.rare.last().is_some_and(|&r| r as usize >= rare_limit) && mask != sp.mask
            }
            Mode::Plain => false,
        };
        if switch {
            self.mode = Mode::Sparse(Box::new(self.new_sparse(mask)));
            self.rare_at_review = match &self.mode {
                Mode::Sparse(sp) => sp.rare_count(),
                _ => 0,
            };
        }
    }

    /// Window mode keeps every rare position below this: the window less the largest take
    /// and the heaps of one block.
    fn rare_limit(&self, window: usize) -> usize {
        let take = self
            .scan_twos
            .iter()
            .map(|&u| u.max(0) as usize)
            .max()
            .unwrap_or(0);
        window.saturating_sub(take + MAX_HEAPS)
    }

    fn new_sparse(&self, mask: u32) -> Sparse {
        let words = self.words;
        let mut sp = with_cells!(self.values.as_ref(), |g| Sparse::new(mask, g, words));
        sp.set_bit_marks(self.bit_marks);
        sp
    }

    /// Re-chooses the two-heap method from the value counts (see `sparse::best_mask`).
    ///
    /// Threads: dense scans are parallel, and so is the sparse method from
    /// [`pipeline::PIPELINE_FROM`] heaps on (`engine/pipeline.rs`: its rare pairs and its rare
    /// checks). The model divides the parallel work by ≈ 0.9·threads, and dense block pairs by
    /// a further [`PHASE_ONE_PAIR_SPEEDUP`].
    /// (Before, sparse ran on one core and the model rated a parallel dense pair like a
    /// sequential one: for `.007` from ≈ 50,000 heaps — 13,000–17,000 rare positions and
    /// ≈ 16,000 rare-check pairs per heap against n/2 dense pairs — it chose sparse on two
    /// threads, so the second thread idled for three quarters of the work to 10^5;
    /// BENCHMARKS.md, "Threads".)
    fn review(&mut self) {
        let n = self.len();
        self.next_review = (n + n / 2).max(256);
        if self.gap.is_some() {
            // Window mode: mode and mask are frozen (a new mask needs every value).
            self.next_review = usize::MAX;
            return;
        }
        if self.scan_twos.is_empty() {
            self.mode = Mode::Plain;
            return;
        }
        if self.vbits > SPARSE_MAX_BITS || n < 64 || !self.allow_sparse {
            self.mode = Mode::Dense;
            return;
        }
        let (mask, rare) = best_mask(&self.counts);
        let rare = rare as usize;
        // Cost per heap (split pairs touched): dense scans n/2 per digit, shared by the
        // threads; sparse touches every rare position plus the rare-check scan, whose length
        // is measured while in sparse mode.
        if let Mode::Sparse(sp) = &self.mode {
            let heaps = n.saturating_sub(self.review_len).max(1);
            self.scan_per_heap =
                Some((sp.scanned_pairs - self.review_scanned) as f64 / heaps as f64);
        }
        let k = self.scan_twos.len() as f64;
        let par = if self.threads > 1 && n >= PARALLEL_FROM {
            0.9 * self.threads as f64
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
        let sparse_par = if n >= self.pipeline_from { par } else { 1.0 };
        let sparse_cost = (rare as f64).mul_add(k, self.scan_per_heap.unwrap_or(0.0)) / sparse_par;
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
        self.review_len = n;
        self.review_scanned = match &self.mode {
            Mode::Sparse(sp) => sp.scanned_pairs,
            _ => 0,
        };
        self.rare_at_review = match &self.mode {
            Mode::Sparse(sp) => sp.rare_count(),
            _ => 0,
        };
        // A first try of the sparse method (its rare-check cost still unknown, taken as 0)
        // is measured over n/8 heaps rather than n/2: with threads, a wrong try idles them.
        if matches!(self.mode, Mode::Sparse(_)) && self.scan_per_heap.is_none() && self.threads > 1
        {
            self.next_review = (n + n / 8).max(256);
        }
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

#[cfg(test)]
mod tests {
    use super::super::naive::naive_values;
    use super::super::naive::tests::{random_code, Rng};
    use super::*;

    fn fast(code: &str, n: usize, threads: usize) -> Vec<u32> {
        let mut e = Engine::new(&Game::parse(code).unwrap());
        e.set_threads(threads);
        e.extend_to(n, &mut || false).unwrap();
        e.into_values().to_u32_vec()
    }

    fn naive(code: &str, n: usize) -> Vec<u32> {
        naive_values(&Game::parse(code).unwrap(), n, &mut || false).unwrap()
    }

    fn check(code: &str, n: usize) {
        let a = fast(code, n, 2);
        let b = naive(code, n);
        if let Some(i) = (0..n).find(|&i| a[i] != b[i]) {
            panic!("{code}: fast G({i}) = {} but naive = {}", a[i], b[i]);
        }
    }

    #[test]
    fn fixed_codes_match_naive() {
        for code in [
            "0.07", "0.6", "0.77", "0.137", "0.4", "0.16", "0.007", "4.07", "44.3", "80.4", "0.F8",
            "0.B8", "0.FB", "C.1", "8.2", "C0.4", "0.(3)", "4.(3)", "0.5(3)", "0.1(7)", "0.(53)",
            "0.3(30)", "0.(F)", "0.1(8)", "8.(4)", "S(1,2,5)", "0.0", "0.1", "0.(1)", "400.4",
            "800.4", "C00.2", "4.(7)", "0.7(70)",
        ] {
            let g = Game::parse(code).unwrap();
            let n = if g.max_heaps() >= 3 || !g.is_finite() {
                260
            } else {
                700
            };
            check(code, n);
        }
    }

    #[test]
    fn random_codes_match_naive() {
        let mut rng = Rng(0xC0DE_2024);
        for i in 0..160 {
            let code = random_code(&mut rng);
            let g = Game::parse(&code).unwrap();
            let n = if g.max_heaps() >= 3 || !g.is_finite() {
                if i % 8 == 0 {
                    400
                } else {
                    150
                }
            } else if i % 4 == 0 {
                2000
            } else {
                500
            };
            check(&code, n);
        }
    }

    #[test]
    fn bit_marks_agree_with_stamps() {
        // Values below 64 run on bit marks (`bitmarks.rs`): .167, .1777 and .156 throughout,
        // .6 and Grundy's game until a value reaches 64 (the switch may fall inside a block).
        for (code, n, bits_at_end) in [
            ("0.167", 40_000, true),
            ("0.1777", 20_000, true),
            ("0.156", 20_000, true),
            ("0.6", 12_000, false),
            ("grundy", 12_000, false),
        ] {
            let run = |bits: bool, threads: usize| {
                let mut e = Engine::new(&Game::parse(code).unwrap());
                e.set_threads(threads);
                if threads > 1 {
                    e.force_pipeline(1024, None); // the pipeline from heap 1024 on
                }
                e.set_bit_marks(bits);
                e.extend_to(n, &mut || false).unwrap();
                if threads > 1 {
                    // (Two threads may prefer dense scans: then nothing is compared here.)
                    return e.into_values().to_u32_vec();
                }
                assert_eq!(e.stats().mode, "sparse", "{code}");
                if bits {
                    // In use exactly while every value is below 64.
                    let small = e.stats().max_value < 64;
                    assert_eq!(small, bits_at_end, "{code}");
                    assert_eq!(e.bit_marks_in_use(), small, "{code}");
                } else {
                    assert!(!e.bit_marks_in_use());
                }
                e.into_values().to_u32_vec()
            };
            let stamps = run(false, 1);
            assert_eq!(run(true, 1), stamps, "{code}");
            assert_eq!(run(true, 2), stamps, "{code} (parallel rare pairs)");
            assert_eq!(&stamps[..1500], &naive(code, 1500)[..], "{code}");
        }
    }

    #[test]
    fn stamp_blocks_agree_in_every_cell_width() {
        // The stamp block kernel reads the four partners of u16 cells as one word; the values
        // here stay below 256 (u8 cells), so the run resumes from values widened on purpose.
        for code in ["0.6", "0.161", "grundy"] {
            let n = 24_000;
            let all = fast(code, n, 1);
            for bytes in [2, 4] {
                let mut values = Values::from(all[..n / 2].to_vec());
                values.widen_to(bytes);
                let mut e = Engine::resume(&Game::parse(code).unwrap(), values).unwrap();
                e.set_threads(1);
                e.extend_to(n, &mut || false).unwrap();
                assert_eq!(e.stats().mode, "sparse", "{code}");
                assert_eq!(e.values().width(), bytes, "{code}");
                assert_eq!(e.into_values().to_u32_vec(), all, "{code} in {bytes} bytes");
            }
        }
    }

    #[test]
    fn sparse_mode_is_used_and_parallel_agrees() {
        // .6 has a sparse space; .007 does not.
        let mut e = Engine::new(&Game::parse("0.6").unwrap());
        e.set_threads(1);
        e.extend_to(12000, &mut || false).unwrap();
        assert_eq!(e.stats().mode, "sparse");
        assert_eq!(e.values().to_u32_vec(), naive("0.6", 12000));
        let one = fast("0.007", 6000, 1);
        let two = fast("0.007", 6000, 2);
        assert_eq!(one, two);
        assert_eq!(&one[..1500], &naive("0.007", 1500)[..]);
    }

    #[test]
    #[ignore = "release only: cargo test --release -p grundy-core --lib -- --ignored octal::"]
    fn sparse_agrees_with_dense_past_stamp_wrap() {
        // The sparse mode's u16 stamps wrap (and its mark arrays are cleared) every ~65,000
        // heaps, possibly inside a block of premarked heaps.
        let n = 150_000;
        let sparse = fast("0.6", n, 1);
        let mut e = Engine::new(&Game::parse("0.6").unwrap());
        e.set_allow_sparse(false);
        e.extend_to(n, &mut || false).unwrap();
        assert_eq!(sparse, e.into_values().to_u32_vec());
    }

    #[test]
    fn parallel_sparse_blocks_agree_with_one_thread() {
        // (.007 turns sparse only near 50,000 heaps; here the pipeline runs from heap 1024 on,
        // on codes that are sparse early.)
        // 4.6 has a digit that adds no tokens (u = 0: the per-heap path, not the 4-heap blocks).
        for (code, threads, n) in [
            ("0.6", 2, 20_000),
            ("0.74", 3, 12_000),
            ("0.36", 2, 12_000),
            ("4.6", 2, 12_000),
            ("0.4007", 2, 12_000),
            ("0.1777", 2, 12_000),
        ] {
            let mut e = Engine::new(&Game::parse(code).unwrap());
            e.set_threads(threads);
            e.force_pipeline(1024, Some((128, true)));
            e.extend_to(n, &mut || false).unwrap();
            assert!(e.pipeline_counts().heaps > 0, "{code}: {:?}", e.stats());
            let mut d = Engine::new(&Game::parse(code).unwrap());
            d.set_allow_sparse(false);
            d.extend_to(n, &mut || false).unwrap();
            assert_eq!(e.values(), d.values(), "{code} {threads}");
        }
    }

    #[test]
    fn values_widen_from_one_to_four_bytes() {
        // Nim (.(3)): G(n) = n crosses 2^8 and 2^16.
        let mut e = Engine::new(&Game::parse("0.(3)").unwrap());
        e.extend_to(200, &mut || false).unwrap();
        assert_eq!(e.values().width(), 1);
        e.extend_to(300, &mut || false).unwrap();
        assert_eq!(e.values().width(), 2);
        e.extend_to(66_000, &mut || false).unwrap();
        assert_eq!(e.values().width(), 4);
        assert!(e.values().iter().enumerate().all(|(n, v)| v as usize == n));
        // .6 needs two bytes by 20,000 heaps, and its sparse mode reads the narrow values
        // directly (no copy of its own).
        let mut e = Engine::new(&Game::parse("0.6").unwrap());
        e.extend_to(20_000, &mut || false).unwrap();
        assert_eq!((e.values().width(), e.stats().mode), (2, "sparse"));
        // Resuming from u32s stores the narrowest width.
        let r = Engine::resume(&Game::parse("0.6").unwrap(), e.values().to_u32_vec()).unwrap();
        assert_eq!(r.values(), e.values());
    }

    #[test]
    fn stop_and_resume() {
        let game = Game::parse("0.16").unwrap();
        let mut e = Engine::new(&game);
        let mut polls = 0;
        let r = e.extend_to(5000, &mut || {
            polls += 1;
            polls > 3
        });
        assert!(matches!(r, Err(OctalError::Stopped { .. })));
        let partial = e.values().to_u32_vec();
        assert!(partial.len() < 5000);
        e.extend_to(5000, &mut || false).unwrap();
        let full = e.into_values().to_u32_vec();
        assert_eq!(&full[..partial.len()], &partial[..]);
        let mut r = Engine::resume(&game, full[..1234].to_vec()).unwrap();
        r.extend_to(5000, &mut || false).unwrap();
        assert_eq!(r.values().to_u32_vec(), full);
        // Resume for a game with full sets (recurring, three-heap).
        for code in ["0.1(7)", "0.F8", "80.4"] {
            let g = Game::parse(code).unwrap();
            let all = fast(code, 300, 1);
            let mut r = Engine::resume(&g, all[..120].to_vec()).unwrap();
            r.extend_to(300, &mut || false).unwrap();
            assert_eq!(r.values().to_u32_vec(), all, "{code}");
        }
        assert!(Engine::resume(&game, vec![1, 2]).is_err());
        assert!(matches!(
            Engine::new(&game).extend_to(MAX_VALUES + 1, &mut || false),
            Err(OctalError::LengthTooLarge { .. })
        ));
    }
}
