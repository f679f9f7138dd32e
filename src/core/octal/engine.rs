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

use super::bitset::{self, set};
use super::code::Game;
use super::dense;
use super::error::OctalError;
use super::rules::{Rules, Twos};
use super::sets::SetState;
use super::sparse::{best_mask, Sparse};

/// Grundy values are stored as `u32`.
pub type Value = u32;

/// Hard limit on the number of values one engine computes (2^31, i.e. 8 GiB of values).
pub const MAX_VALUES: usize = 1 << 31;

/// Dense scans run on several threads only from this many values on (below, the per-block
/// thread start-up costs more than it saves).
const PARALLEL_FROM: usize = 4096;

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

/// Incremental G-sequence computation for one game.
///
/// ```text
/// let mut e = Engine::new(&Game::parse("0.6")?);
/// e.extend_to(1_000_000, &mut || false)?;
/// let g: &[u32] = e.values();
/// ```
#[derive(Debug, Clone)]
pub struct Engine {
    game: Game,
    rules: Rules,
    values: Vec<Value>,
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
}

fn words_for(vbits: u32) -> usize {
    ((1usize << (vbits + 1)) / 64).max(1)
}

impl Engine {
    /// A fresh engine (no values yet). Uses all available cores for dense scans.
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
            .min(8);
        Engine {
            game: game.clone(),
            rules,
            values: Vec::new(),
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
        }
    }

    /// An engine continuing from stored values G(0..len). The values are trusted (they come
    /// from this engine); only their shape is checked. For games that keep full exclusion sets
    /// (three-heap or recurring splitting digits) the sets are rebuilt from the values, which
    /// costs about as much as one pass of the computation without the mex work.
    pub fn resume(game: &Game, values: Vec<Value>) -> Result<Engine, OctalError> {
        if values.len() > MAX_VALUES {
            return Err(OctalError::LengthTooLarge {
                requested: values.len(),
                max: MAX_VALUES,
            });
        }
        if values.first().is_some_and(|&v| v != 0) {
            return Err(OctalError::InvalidValues {
                reason: "G(0) must be 0",
            });
        }
        let mut e = Engine::new(game);
        let max = values.iter().copied().max().unwrap_or(0);
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
        for &v in values.iter().skip(1) {
            e.counts[v as usize] += 1;
        }
        if let Some(sets) = &mut e.sets {
            for n in 0..values.len() {
                sets.prepare(&values[..n], n, e.words, &e.rules)?;
            }
        }
        e.values = values;
        e.next_review = 0;
        e.review();
        Ok(e)
    }

    /// Allows (default) or forbids the rare/common method (forbidding is for benchmarks and
    /// tests: the values do not depend on it).
    pub fn set_allow_sparse(&mut self, allow: bool) {
        self.allow_sparse = allow;
        if !allow && matches!(self.mode, Mode::Sparse(_)) {
            self.mode = Mode::Dense;
        }
    }

    /// Sets the number of threads for dense scans (1 = single-threaded).
    pub fn set_threads(&mut self, threads: usize) {
        self.threads = threads.clamp(1, 64);
    }

    /// The game.
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// G(0), …, G(len−1).
    pub fn values(&self) -> &[Value] {
        &self.values
    }

    /// Number of computed values.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// True before G(0) is computed.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// Gives the values back.
    pub fn into_values(self) -> Vec<Value> {
        self.values
    }

    /// Diagnostics.
    pub fn stats(&self) -> EngineStats {
        let (mode, mask, rare, scans, pairs) = match &self.mode {
            Mode::Plain => ("plain", 0, 0, 0, 0),
            Mode::Dense => ("dense", 0, 0, 0, 0),
            Mode::Sparse(s) => ("sparse", s.mask, s.rare.len(), s.scans, s.scanned_pairs),
        };
        EngineStats {
            mode,
            mask,
            rare_positions: rare,
            rare_scans: scans,
            rare_scan_pairs: pairs,
            max_value: self.values.iter().copied().max().unwrap_or(0),
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
        if n > MAX_VALUES {
            return Err(OctalError::LengthTooLarge {
                requested: n,
                max: MAX_VALUES,
            });
        }
        while self.values.len() < n {
            if should_stop() {
                return Err(OctalError::Stopped {
                    computed: self.values.len(),
                });
            }
            let len = self.values.len();
            if len >= self.next_review {
                self.review();
            }
            let stop_at = n.min(self.next_review.max(len + 1));
            if matches!(self.mode, Mode::Dense) && self.threads > 1 && len >= PARALLEL_FROM {
                // Blocks of ≈ len/32 heaps, smaller when a block would be a long stretch of work.
                let by_work = (1usize << 27) / (len * self.scan_twos.len().max(1));
                let block = (len / 32).min(by_work).clamp(64, 1 << 16);
                self.dense_block(len, stop_at.min(len + block))?;
            } else {
                let end = stop_at.min(len + self.chunk(len));
                for m in len..end {
                    self.step(m)?;
                }
            }
        }
        Ok(())
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
        let g = &self.values;
        let excl = &mut self.excl[..];
        if self.game.digit(n as i64) & 1 == 1 {
            set(excl, 0);
        }
        for &u in &self.rules.ones {
            if u >= n {
                break;
            }
            set(excl, g[n - u]);
        }
        for &u in &self.rules.threes_capped {
            // Add |u| ≥ 2 tokens, split into a ≤ b ≤ c with c ≤ n − 1.
            let total = n + u.unsigned_abs() as usize;
            let Some(cap) = n.checked_sub(1) else {
                continue;
            };
            for a in 1..=total / 3 {
                let b_min = a.max((total - a).saturating_sub(cap));
                for b in b_min..=(total - a) / 2 {
                    set(excl, g[a] ^ g[b] ^ g[total - a - b]);
                }
            }
        }
        if let Some(sets) = &self.sets {
            sets.exclude(g, n, &self.rules, excl);
        }
    }

    /// Computes G(n) = G(len) sequentially.
    fn step(&mut self, n: usize) -> Result<(), OctalError> {
        if let Some(sets) = &mut self.sets {
            sets.prepare(&self.values, n, self.words, &self.rules)?;
        }
        self.excl.iter_mut().for_each(|w| *w = 0);
        self.exclude_base(n);
        let v = match &mut self.mode {
            Mode::Plain => bitset::mex(&self.excl),
            Mode::Dense => {
                dense::scan_pairs(&self.values, n, &self.scan_twos, 0, &mut self.excl);
                bitset::mex(&self.excl)
            }
            Mode::Sparse(sp) => sp.step(&self.values, n, &self.scan_twos, &self.excl),
        };
        self.push_value(n, v)
    }

    /// Computes G(start..end) in dense mode with parallel phase one.
    fn dense_block(&mut self, start: usize, end: usize) -> Result<(), OctalError> {
        let words0 = self.words;
        let pre = dense::phase_one(
            &self.values,
            start,
            end,
            &self.scan_twos,
            words0,
            self.threads,
        );
        for n in start..end {
            if let Some(sets) = &mut self.sets {
                sets.prepare(&self.values, n, self.words, &self.rules)?;
            }
            self.excl.iter_mut().for_each(|w| *w = 0);
            let i = n - start;
            self.excl[..words0].copy_from_slice(&pre[i * words0..(i + 1) * words0]);
            self.exclude_base(n);
            dense::scan_pairs(&self.values, n, &self.scan_twos, start, &mut self.excl);
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
            if sp.rare.len() > 2 * self.rare_at_review + 4096 {
                self.next_review = n + 1;
            }
        }
        Ok(())
    }

    /// Re-chooses the two-heap method from the value counts (see `sparse::best_mask`).
    fn review(&mut self) {
        let n = self.values.len();
        self.next_review = (n + n / 2).max(256);
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
        let dense_cost = n as f64 * k / 2.0 / par;
        let sparse_cost = (rare as f64).mul_add(k, self.scan_per_heap.unwrap_or(0.0));
        let keep = |cur: usize| 4 * rare >= 3 * cur; // the current mask is nearly as good
        match &self.mode {
            Mode::Sparse(sp)
                if rare * 3 <= n && sparse_cost < 1.2 * dense_cost && keep(sp.rare.len()) => {}
            _ if rare * 4 <= n && sparse_cost * 1.2 < dense_cost => {
                self.mode = Mode::Sparse(Box::new(Sparse::new(mask, &self.values, self.words)));
            }
            Mode::Sparse(_) if rare * 3 <= n && sparse_cost < 1.2 * dense_cost => {
                self.mode = Mode::Sparse(Box::new(Sparse::new(mask, &self.values, self.words)));
            }
            _ => self.mode = Mode::Dense,
        }
        self.review_len = n;
        self.review_scanned = match &self.mode {
            Mode::Sparse(sp) => sp.scanned_pairs,
            _ => 0,
        };
        self.rare_at_review = match &self.mode {
            Mode::Sparse(sp) => sp.rare.len(),
            _ => 0,
        };
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
        e.into_values()
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
    fn sparse_mode_is_used_and_parallel_agrees() {
        // .6 has a sparse space; .007 does not.
        let mut e = Engine::new(&Game::parse("0.6").unwrap());
        e.set_threads(1);
        e.extend_to(12000, &mut || false).unwrap();
        assert_eq!(e.stats().mode, "sparse");
        assert_eq!(e.values(), &naive("0.6", 12000)[..]);
        let one = fast("0.007", 6000, 1);
        let two = fast("0.007", 6000, 2);
        assert_eq!(one, two);
        assert_eq!(&one[..1500], &naive("0.007", 1500)[..]);
    }

    #[test]
    #[ignore = "release only: cargo test --release -- --ignored core::octal"]
    fn sparse_agrees_with_dense_past_stamp_wrap() {
        // The sparse mode's u16 stamps wrap (and its mark arrays are cleared) every ~65,000
        // heaps, possibly inside a block of premarked heaps.
        let n = 150_000;
        let sparse = fast("0.6", n, 1);
        let mut e = Engine::new(&Game::parse("0.6").unwrap());
        e.set_allow_sparse(false);
        e.extend_to(n, &mut || false).unwrap();
        assert_eq!(sparse, e.into_values());
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
        let partial = e.values().to_vec();
        assert!(partial.len() < 5000);
        e.extend_to(5000, &mut || false).unwrap();
        let full = e.into_values();
        assert_eq!(&full[..partial.len()], &partial[..]);
        let mut r = Engine::resume(&game, full[..1234].to_vec()).unwrap();
        r.extend_to(5000, &mut || false).unwrap();
        assert_eq!(r.values(), &full[..]);
        // Resume for a game with full sets (recurring, three-heap).
        for code in ["0.1(7)", "0.F8", "80.4"] {
            let g = Game::parse(code).unwrap();
            let all = fast(code, 300, 1);
            let mut r = Engine::resume(&g, all[..120].to_vec()).unwrap();
            r.extend_to(300, &mut || false).unwrap();
            assert_eq!(r.values(), &all[..], "{code}");
        }
        assert!(Engine::resume(&game, vec![1, 2]).is_err());
        assert!(matches!(
            Engine::new(&game).extend_to(MAX_VALUES + 1, &mut || false),
            Err(OctalError::LengthTooLarge { .. })
        ));
    }
}
