//! Periodicity and arithmetico-periodicity, proved from computed values — never guessed.
//!
//! **Finding candidates.** Let `δ(i) = G(i+1) − G(i)`. `G(i+p) = G(i) + s` for all `i > e`
//! (s = 0: ordinary periodicity) holds exactly when δ is p-periodic from index `e+1` on, and the
//! last irregular value `e` is then the last index with `δ(e) ≠ δ(e+p)`. One pass over the
//! tail of δ (`periodicity/candidates.rs`: by its square suffixes, or the KMP prefix function
//! of the reversed tail) gives the least period `per(m)` of every suffix of length m. By Fine–Wilf, when a suffix of length `m ≥ 2p` has period p, its least period
//! divides p; so every period the theorems below could prove appears as some `per(m)` with
//! `m ≥ 2·per(m)`, and the longest such m gives its exact `e`. Every theorem needs at least 2p
//! values after `e`, so nothing provable is missed. All comparisons are exact (no hashing).
//! The window is capped at 2^21 values of δ; a candidate whose periodic stretch fills the whole
//! window is extended backwards by direct comparison, so preperiods of any length are found.
//!
//! **Long periods.** Periods above 2^20 (up to half the computed length: 2^30 at the engine's
//! limit, and the arithmetic is u64 throughout, so 2^32 and beyond are no special case) are
//! found by the square-suffix sweep of `squares.rs`: polynomial fingerprints mod 2^61 − 1
//! propose every p for which δ ends with a square of half-length p — never missing one, since
//! equal blocks always have equal fingerprints — and a direct comparison decides each proposal
//! and finds its exact last irregular value. The same theorems then certify it. The sweep is
//! O(len) and runs at lengths growing by 1/2 (and on [`Detector::check_now`]), a few
//! multiplications per computed value amortised.
//!
//! **Proving.** A candidate `(e, p, s)` is reported only when a theorem's hypotheses hold on the
//! computed values (Austin 1976, §4.3 and ch. 6):
//! * s = 0, finite code (any digits before the point, hex allowed): Theorem 4.1 (Guy–Smith,
//!   Austin) with h = most heaps a move leaves and `t = max(|v|, w)`: G needed up to index
//!   `h·e + h·p + t`. Subtraction games are the case h = 1 (the finite-state argument).
//! * s > 0, finite sedecimal code `d_0.d_1…d_t`: Theorem 6.8 (p ≥ t+2, s a power of 2, G up to
//!   `e + 8p + t − 1`, hypotheses (2)–(4)); multiples `(kp, ks)` are tried as Austin did for .F8.
//! * s > 0, recurring octal code `d_0.d_1…d_v(d_{v+1}…d_{v+t})`: Theorem 6.9 (hypothesis (b) on
//!   the 4-bits, p ≥ v + t, s a power of 2, G up to `e + 7p`).
//! * s > 0, recurring tetral code: Theorem 6.10 (any saltus, G up to `e + 2p + v + t`).
//!
//! The theorems are stated for `e ≥ 0`; a sequence that is periodic from the start (e = −1) is
//! proved with e = 0 plus the directly computed `G(p) = G(0) + s`, so `proved_at` counts that
//! one extra value. Where the thesis leaves a reading open (the index of the even digit in
//! hypothesis (4a) of Thm 6.8 may be 0?), the stricter reading is used.
//!
//! None of these theorems is proved for a game with a rule on the parts of its splits
//! (Grundy's game: unequal parts), so such a game is never certified (always `Unknown`).
//!
//! What cannot be proved stays [`Periodicity::Unknown`] — e.g. `.6`, `.007`, `.04`, or Lasker's
//! Nim `4.(3)` (which fails hypothesis (b) of Thm 6.9 although its values are known).

use super::code::{Game, PartRule};
use super::values::{with_cells, Cell, ValuesRef};
use crate::octal::periodicity::squares::square_tails;

mod candidates;
mod squares;
pub mod value;
use candidates::{candidates, Scratch};

/// The theorem behind a proof.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Theorem {
    /// Thm 4.1: periodicity of finite take-and-break games (Guy–Smith, Kenyon, Austin).
    Periodicity41,
    /// Thm 6.8: arithmetico-periodicity of finite sedecimal games.
    Sedecimal68,
    /// Thm 6.9: arithmetico-periodicity of infinite recurring octal games.
    RecurringOctal69,
    /// Thm 6.10: arithmetico-periodicity of infinite recurring tetral games.
    RecurringTetral610,
}

impl Theorem {
    /// Short human-readable name.
    pub fn name(self) -> &'static str {
        match self {
            Theorem::Periodicity41 => "Austin Thm 4.1 (Guy-Smith periodicity)",
            Theorem::Sedecimal68 => "Austin Thm 6.8 (sedecimal arithmetico-periodicity)",
            Theorem::RecurringOctal69 => "Austin Thm 6.9 (recurring octal arithmetico-periodicity)",
            Theorem::RecurringTetral610 => {
                "Austin Thm 6.10 (recurring tetral arithmetico-periodicity)"
            }
        }
    }
}

/// A proved (arithmetico-)periodicity: `G(n + period) = G(n) + saltus` for all `n ≥ preperiod`,
/// with the least such preperiod and period.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Proof {
    /// Least n0 with `G(n+p) = G(n) + s` for all n ≥ n0 (Austin's last irregular value + 1).
    pub preperiod: u64,
    /// Least period p.
    pub period: u64,
    /// Saltus s (0 for ordinary periodicity).
    pub saltus: u64,
    /// Number of values G(0..proved_at) the proof reads.
    pub proved_at: u64,
    pub theorem: Theorem,
    /// The period and saltus the theorem was applied with (a multiple of the least ones when
    /// a hypothesis needed it, e.g. .F8 is proved with 12 and 8).
    pub proof_period: u64,
    pub proof_saltus: u64,
}

/// The verdict on a computed G-sequence.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Periodicity {
    /// Not proved within the computed values.
    #[default]
    Unknown,
    Proved(Proof),
}

impl Periodicity {
    /// `"periodic"`, `"arithmetic-periodic"` or `"unknown"` (the API's `status`).
    pub fn status(&self) -> &'static str {
        match self {
            Periodicity::Unknown => "unknown",
            Periodicity::Proved(p) if p.saltus == 0 => "periodic",
            Periodicity::Proved(_) => "arithmetic-periodic",
        }
    }
    /// The proof, if any.
    pub fn proof(&self) -> Option<&Proof> {
        match self {
            Periodicity::Unknown => None,
            Periodicity::Proved(p) => Some(p),
        }
    }
}

/// Longest δ-window examined per check by the candidate pass (periods up to half of it).
const WINDOW: usize = 1 << 21;

/// The long-period sweep runs again once the sequence has grown by this fraction (1/2): about
/// three O(len) passes per value amortised (five at 1/4, which cost `.167` a tenth of its run
/// to 2^24), a period above 2^20 noticed at most half the length late (and at once by
/// [`Detector::check_now`], which ends every [`super::Solver::run`]). No octal game is known to
/// have such a period; the candidate pass keeps its 1/16.
const SWEEP_GROWTH_SHIFT: u32 = 1;

/// Incremental periodicity detector for one game. [`Detector::check`] is cheap enough to call
/// after every chunk of computed values: it does real work only when the sequence has grown
/// enough since the last real check — the candidate pass (O(min(len, 2^21))) after growth by 1/16,
/// the long-period sweep (O(len), only beyond the candidate window) after growth by 1/2 — so its
/// amortised cost is a small constant per value; [`Detector::check_now`] always checks.
#[derive(Debug, Clone)]
pub struct Detector {
    game: Game,
    result: Periodicity,
    checked: usize,
    swept: usize,
    window: usize,
    long: bool,
    /// Every proof this code can get needs its periodic stretch to cover more than half the
    /// values (only Thm 4.1 applies, with h ≥ 2): then a candidate pass that finds the window not
    /// periodic defers the next one to `kmp_not_before` (see [`Detector::run`]).
    half: bool,
    kmp_not_before: usize,
    /// The deferral on (tests compare with it off).
    defer: bool,
    /// Passes run (candidates, with or without the sweep).
    runs: u64,
    /// Time in the long-period sweep so far (the part of a check that threads share).
    sweep_time: std::time::Duration,
    /// Lengths at which a candidate already seen meets Thm 4.1's bound (see [`Pass`]).
    due_kmp: usize,
    due_sweep: usize,
    /// The candidate pass's buffers, kept from pass to pass (8 MiB each at the full window: made
    /// afresh, every pass would fault its pages in again).
    scratch: Scratch,
}

impl Detector {
    pub fn new(game: &Game) -> Detector {
        Detector::with_window(game, WINDOW)
    }

    /// A detector whose candidate pass looks at `window` differences (tests use small windows to
    /// exercise the long-period sweep on short sequences).
    fn with_window(game: &Game, window: usize) -> Detector {
        Detector {
            game: game.clone(),
            result: Periodicity::Unknown,
            checked: 0,
            swept: 0,
            window: window.max(4),
            long: true,
            half: Hypotheses::new(game).needs_half(),
            kmp_not_before: 0,
            defer: true,
            runs: 0,
            sweep_time: std::time::Duration::ZERO,
            due_kmp: usize::MAX,
            due_sweep: usize::MAX,
            scratch: Scratch::default(),
        }
    }

    /// Enables (default) or disables the long-period sweep (periods above 2^20); disabling it
    /// is for benchmarks that measure its cost.
    pub fn set_long_periods(&mut self, on: bool) {
        self.long = on;
    }

    /// Time spent in the long-period sweep so far: the part of the checks that a pool's
    /// threads share (the candidate pass runs on one thread).
    pub fn sweep_time(&self) -> std::time::Duration {
        self.sweep_time
    }

    /// The verdict so far.
    pub fn result(&self) -> &Periodicity {
        &self.result
    }

    /// Rate-limited check of `values` (G(0..len)); once proved the answer never changes.
    pub fn check<'a>(&mut self, values: impl Into<ValuesRef<'a>>) -> &Periodicity {
        self.check_in(values.into(), None)
    }

    /// [`Detector::check`], the long-period sweep on the threads of `pool` (when given).
    fn check_in(
        &mut self,
        values: ValuesRef<'_>,
        pool: Option<&rayon::ThreadPool>,
    ) -> &Periodicity {
        let len = values.len();
        if matches!(self.result, Periodicity::Unknown) {
            let kmp = (len >= self.checked + (self.checked / 16).max(64)
                && len >= self.kmp_not_before)
                || len >= self.due_kmp;
            let sweep = self.sweep_due(len)
                && (len >= self.swept + (self.swept >> SWEEP_GROWTH_SHIFT).max(1024)
                    || len >= self.due_sweep);
            if kmp || sweep {
                self.run(values, sweep, pool);
            }
        }
        &self.result
    }

    /// Unconditional check.
    pub fn check_now<'a>(&mut self, values: impl Into<ValuesRef<'a>>) -> &Periodicity {
        self.check_now_in(values.into(), None)
    }

    fn check_now_in(
        &mut self,
        values: ValuesRef<'_>,
        pool: Option<&rayon::ThreadPool>,
    ) -> &Periodicity {
        if matches!(self.result, Periodicity::Unknown) {
            let sweep = self.sweep_due(values.len()) && values.len() != self.swept;
            self.run(values, sweep, pool);
        }
        &self.result
    }

    /// [`Detector::check`] (or with `now`, [`Detector::check_now`]) in window mode: `tail` is
    /// G(base..base + tail.len()), the values before it are not kept (`window.rs`). Only what
    /// the tail shows is proved: a periodic stretch that starts inside it (its last irregular
    /// value is then known exactly), certified by Thm 4.1; a stretch reaching back past the
    /// tail, or a period longer than half the candidate window, stays unknown.
    pub fn check_tail<'a>(
        &mut self,
        tail: impl Into<ValuesRef<'a>>,
        base: usize,
        now: bool,
    ) -> &Periodicity {
        self.check_tail_in(tail.into(), base, now, None)
    }

    /// [`Detector::check_tail`], the long-period sweep on the threads of `pool` (when given:
    /// the engine's, see [`super::Solver`]).
    pub(crate) fn check_tail_in(
        &mut self,
        tail: ValuesRef<'_>,
        base: usize,
        now: bool,
        pool: Option<&rayon::ThreadPool>,
    ) -> &Periodicity {
        if base == 0 {
            return if now {
                self.check_now_in(tail, pool)
            } else {
                self.check_in(tail, pool)
            };
        }
        let len = base + tail.len();
        if matches!(self.result, Periodicity::Unknown)
            && (now || len >= self.checked + (self.checked / 16).max(64))
        {
            self.checked = len;
            let (game, window, scratch) = (&self.game, self.window, &mut self.scratch);
            self.result = with_cells!(tail, |g| detect_tail(game, g, base, window, scratch));
        }
        &self.result
    }

    /// The sweep only looks for periods the candidate pass cannot see: it needs 2·(window/2 + 1)
    /// differences.
    fn sweep_due(&self, len: usize) -> bool {
        self.long && len > self.window + 3
    }

    fn run(&mut self, values: ValuesRef<'_>, sweep: bool, pool: Option<&rayon::ThreadPool>) {
        self.checked = values.len();
        if sweep {
            self.swept = values.len();
        }
        let (game, window, scratch) = (&self.game, self.window, &mut self.scratch);
        let pass = with_cells!(values, |g| detect_in(game, g, window, sweep, pool, scratch));
        self.runs += 1;
        self.sweep_time += pass.sweep_time;
        self.result = pass.result;
        // A candidate seen before its proof was due: check again exactly when it is (a candidate
        // pass, or the sweep that found it), not at the next growth step.
        self.due_kmp = pass.due_kmp;
        if sweep {
            self.due_sweep = pass.due_sweep;
        }
        let len = values.len();
        if !pass.window_periodic && self.half && self.defer {
            // No period up to window/2 covers the δ window [len − 1 − w, len − 2]: a later
            // proof of such a period has its last irregular index e ≥ len − 1 − w, and Thm 4.1
            // with h ≥ 2 heaps needs h·e + h·q + t + 1 ≤ L, so L > 2(len − 1 − w). No candidate pass
            // before that can succeed (the sweep, for longer periods, keeps its own pace).
            self.kmp_not_before = 2 * (len - 1 - self.window);
        }
    }
}

/// One-shot detection on G(0..len): the candidate pass and the long-period sweep.
pub fn detect<'a>(game: &Game, g: impl Into<ValuesRef<'a>>) -> Periodicity {
    let scratch = &mut Scratch::default();
    with_cells!(g.into(), |g| detect_in(
        game, g, WINDOW, true, None, scratch
    ))
    .result
}

/// Detection with a candidate window of `window` differences; `long`: also sweep for periods above
/// `window/2`.
/// What one pass of [`detect_in`] found besides its verdict, for [`Detector`]'s schedule.
#[derive(Debug, Clone, Copy)]
struct Pass {
    result: Periodicity,
    /// False when the candidate window is shorter than the sequence and no period up to half of it
    /// covers all of it (then a proof that needs its stretch over half the values cannot come
    /// from the candidate pass for a while: see [`Detector::run`]).
    window_periodic: bool,
    /// The least length at which a candidate this pass saw (from the candidate pass, from the
    /// sweep) meets Thm 4.1's bound — it was found before its proof was due; `usize::MAX`
    /// when none.
    due_kmp: usize,
    due_sweep: usize,
    /// Time in the long-period sweep (shared by every thread of a pool).
    sweep_time: std::time::Duration,
}

impl Pass {
    fn unknown() -> Pass {
        Pass {
            result: Periodicity::Unknown,
            window_periodic: true,
            due_kmp: usize::MAX,
            due_sweep: usize::MAX,
            sweep_time: std::time::Duration::ZERO,
        }
    }

    fn proved(proof: Proof) -> Pass {
        Pass {
            result: Periodicity::Proved(proof),
            ..Pass::unknown()
        }
    }
}

fn detect_in<T: Cell>(
    game: &Game,
    g: &[T],
    window: usize,
    long: bool,
    pool: Option<&rayon::ThreadPool>,
    scratch: &mut Scratch,
) -> Pass {
    let len = g.len();
    if len < 3 || game.part_rule() != PartRule::Any {
        return Pass::unknown();
    }
    let mut pass = Pass::unknown();
    let rules = Hypotheses::new(game);
    // δ(i) = G(i+1) − G(i) for 0 ≤ i ≤ len−2, read backwards: s[k] = δ(len−2−k).
    let dlen = len - 1;
    let w = dlen.min(window);
    let delta = |i: usize| g[i + 1].get().wrapping_sub(g[i].get());
    // Candidates (q, longest m with per(m) = q and m ≥ 2q); per(m) is non-decreasing in m.
    let cands = candidates(g, w, scratch);
    // Periods whose stretch reaches back past the window, with the stretch length m: their
    // multiples up to m need no sweep (squares.rs).
    let mut known = Vec::new();
    for (q, mut m) in cands {
        if m == w && w < dlen {
            // The whole window is q-periodic: extend backwards.
            let mut i = dlen - 1 - w; // δ index just before the window
            loop {
                if delta(i) != delta(i + q) {
                    break;
                }
                m += 1;
                if i == 0 {
                    break;
                }
                i -= 1;
            }
            known.push((q, m));
        }
        // δ is q-periodic on [dlen − m, dlen − 1]; the last irregular index is e = dlen − m − 1.
        let e = dlen as i64 - m as i64 - 1;
        if let Some(proof) = certify_candidate(&rules, g, e, q) {
            return Pass::proved(proof);
        }
        pass.due_kmp = pass.due_kmp.min(due_41(&rules, g, e, q));
    }
    pass.window_periodic = w == dlen || !known.is_empty();
    if long {
        // Periods the window cannot show (above window/2): square suffixes of δ, exactly
        // confirmed (squares.rs).
        let started = std::time::Instant::now();
        let tails = square_tails(g, w / 2 + 1, &known, pool);
        pass.sweep_time = started.elapsed();
        for tail in tails {
            if let Some(proof) = certify_candidate(&rules, g, tail.e, tail.period) {
                return Pass {
                    sweep_time: pass.sweep_time,
                    ..Pass::proved(proof)
                };
            }
            pass.due_sweep = pass.due_sweep.min(due_41(&rules, g, tail.e, tail.period));
        }
    }
    pass
}

/// The length at which Thm 4.1 would prove the candidate `(e, q)` (saltus 0, finite code) if
/// the values stay periodic until then — beyond `g`, or it would have been proved — else
/// `usize::MAX`.
fn due_41<T: Cell>(rules: &Hypotheses, g: &[T], e: i64, q: usize) -> usize {
    let first = (e + 1) as usize;
    if first + q >= g.len() || g[first + q] != g[first] || !rules.finite {
        return usize::MAX;
    }
    let need = rules.h * e.max(0) as u64 + rules.h * q as u64 + rules.t + 1;
    usize::try_from(need).map_or(usize::MAX, |need| need.max(g.len() + 1))
}

/// Window mode ([`Detector::check_tail`]): `g` is G(base..base + g.len()). A candidate whose
/// periodic stretch of δ starts inside the tail has an exactly known last irregular value and
/// is certified by Thm 4.1 (ordinary periodicity of a finite code: the theorem reads only the
/// stretch and the length). Other theorems read values from heap 0 on and are not tried.
fn detect_tail<T: Cell>(
    game: &Game,
    g: &[T],
    base: usize,
    window: usize,
    scratch: &mut Scratch,
) -> Periodicity {
    if g.len() < 3 || game.part_rule() != PartRule::Any {
        return Periodicity::Unknown;
    }
    let rules = Hypotheses::new(game);
    // δ(i) = G(i+1) − G(i) for base ≤ i ≤ len − 2, indexed from base.
    let dlen = g.len() - 1;
    let w = dlen.min(window);
    let delta = |i: usize| g[i + 1].get().wrapping_sub(g[i].get());
    for (q, mut m) in candidates(g, w, scratch) {
        if m == w {
            // Extend backwards within the tail; a stretch reaching its start may go on before
            // it, where nothing is kept: its start, and so the theorem's bound, is unknown.
            let mut i = dlen - w;
            loop {
                if i == 0 {
                    m = usize::MAX;
                    break;
                }
                i -= 1;
                if delta(i) != delta(i + q) {
                    break;
                }
                m += 1;
            }
            if m == usize::MAX {
                continue;
            }
        }
        // δ is q-periodic on tail indices [dlen − m, dlen − 1]: e = base + dlen − m − 1.
        let e = (base + dlen - m) as i64 - 1;
        let first = dlen - m; // tail index of e + 1
        if first + q >= g.len() || g[first + q].get() != g[first].get() {
            continue; // a saltus: not provable from the tail alone
        }
        if let Some(proof) = rules.certify_periodic(base + g.len(), e, q as u64) {
            return Periodicity::Proved(proof);
        }
    }
    Periodicity::Unknown
}

/// The saltus of a candidate `(e, q)` read from the values, then [`Hypotheses::certify`].
fn certify_candidate<T: Cell>(rules: &Hypotheses, g: &[T], e: i64, q: usize) -> Option<Proof> {
    let first = (e + 1) as usize;
    let s = i64::from(g[first + q].get()) - i64::from(g[first].get());
    if s < 0 {
        return None;
    }
    rules.certify(g, e, q as u64, s as u64)
}

/// What the theorems need to know about the code.
struct Hypotheses {
    finite: bool,
    /// Thm 4.1: h and t.
    h: u64,
    t: u64,
    /// Thm 6.8 applies to the code's shape; `eight_odd/even`: some odd / even (≥ 2) index has
    /// an 8-bit; `eight_any`: some index ≥ 1 has.
    sedecimal68: bool,
    eight_odd: bool,
    eight_even: bool,
    /// Thm 6.9 shape and the block lengths (multiples of the primitive one) meeting (b).
    octal69: bool,
    blocks69: Vec<u64>,
    /// Thm 6.10 shape.
    tetral610: bool,
    v: u64,
    tb: u64,
}

impl Hypotheses {
    fn new(game: &Game) -> Hypotheses {
        let finite = game.is_finite();
        let v = game.prefix().len() as u64;
        let tb = game.block().len() as u64;
        let digits_after: Vec<u8> = game.prefix().iter().chain(game.block()).copied().collect();
        let max_digit = game
            .before_point()
            .iter()
            .chain(&digits_after)
            .copied()
            .max()
            .unwrap_or(0);
        let no_negative = game.min_index() == 0;
        let eight_at = |parity: u64| {
            (1..=v).any(|u| u % 2 == parity && u >= 1 && game.digit(u as i64) & 8 != 0)
        };
        let eight_odd = eight_at(1);
        let eight_even = (2..=v).any(|u| u % 2 == 0 && game.digit(u as i64) & 8 != 0);
        let sedecimal68 = finite && no_negative && v >= 1 && (eight_odd || eight_even);
        let octal69 = !finite && no_negative && max_digit <= 7;
        let mut blocks69 = Vec::new();
        if octal69 {
            for j in 1..=4u64 {
                let big_t = j * tb;
                if (0..=v as i64)
                    .all(|u| game.digit(u) & 4 == 0 || game.digit(u + big_t as i64) & 4 != 0)
                {
                    blocks69.push(big_t);
                }
            }
        }
        let tetral610 = !finite
            && game.before_point().is_empty()
            && max_digit <= 3
            && game.block().iter().any(|&d| d >= 2);
        Hypotheses {
            finite,
            h: u64::from(game.max_heaps().max(1)),
            t: game.last_index().unwrap_or(0),
            sedecimal68,
            eight_odd,
            eight_even,
            octal69,
            blocks69,
            tetral610,
            v,
            tb,
        }
    }

    /// Thm 4.1 for `G(i+q) = G(i)` for all `i > e`, known to hold for `e < i < len − q`: the
    /// theorem's hypotheses need only that stretch to reach `h·e + h·q + t`.
    fn certify_periodic(&self, len: usize, e: i64, q: u64) -> Option<Proof> {
        if !self.finite {
            return None;
        }
        let et = e.max(0) as u64;
        let need = self.h * et + self.h * q + self.t + 1;
        (need <= len as u64).then_some(Proof {
            preperiod: (e + 1) as u64,
            period: q,
            saltus: 0,
            proved_at: need,
            theorem: Theorem::Periodicity41,
            proof_period: q,
            proof_saltus: 0,
        })
    }

    /// A proof of `G(i+q) = G(i) + s` for all `i > e` (e = last irregular index, −1 allowed)
    /// from G(0..len), if some theorem's hypotheses hold there.
    fn certify<T: Cell>(&self, g: &[T], e: i64, q: u64, s: u64) -> Option<Proof> {
        let len = g.len() as u64;
        let et = e.max(0) as u64;
        let make = |proved_at: u64, theorem, k: u64| Proof {
            preperiod: (e + 1) as u64,
            period: q,
            saltus: s,
            proved_at,
            theorem,
            proof_period: k * q,
            proof_saltus: k * s,
        };
        if s == 0 {
            if !self.finite {
                return None;
            }
            let need = self.h * et + self.h * q + self.t + 1;
            return (need <= len).then(|| make(need, Theorem::Periodicity41, 1));
        }
        // (2) G(i) < S for i ≤ e and (3) G(i) < 2S for i ≤ e + p.
        let bounded = |p: u64, big_s: u64| {
            let below = |to: u64, lim: u64| {
                g[..=(to as usize).min(g.len() - 1)]
                    .iter()
                    .all(|&x| u64::from(x.get()) < lim)
            };
            below(et, big_s) && et + p < len && below(et + p, 2 * big_s)
        };
        if self.sedecimal68 && s.is_power_of_two() {
            let mut k = 1u64;
            loop {
                let (p, big_s) = (k * q, k * s);
                let need = et + 8 * p + self.t;
                if need > len {
                    break;
                }
                if p >= self.t + 2 && bounded(p, big_s) && self.hypothesis4(g, 2 * big_s) {
                    return Some(make(need, Theorem::Sedecimal68, k));
                }
                k *= 2;
            }
        }
        if self.tetral610 {
            let mut k = 1u64;
            loop {
                let (p, big_s) = (k * q, k * s);
                let need = et + 2 * p + self.v + self.tb + 1;
                if need > len {
                    break;
                }
                if bounded(p, big_s) {
                    return Some(make(need, Theorem::RecurringTetral610, k));
                }
                k += 1;
            }
        }
        if self.octal69 && s.is_power_of_two() {
            let mut k = 1u64;
            loop {
                let (p, big_s) = (k * q, k * s);
                let need = et + 7 * p + 1;
                if need > len {
                    break;
                }
                if self.blocks69.iter().any(|&bt| p >= self.v + bt) && bounded(p, big_s) {
                    return Some(make(need, Theorem::RecurringOctal69, k));
                }
                k *= 2;
            }
        }
        None
    }

    /// True when Thm 4.1 with h ≥ 2 heaps is the only theorem for the code: a proof at length
    /// L with last irregular index e needs `h·e + h·q + t + 1 ≤ L`, so e < L/2.
    fn needs_half(&self) -> bool {
        self.finite && self.h >= 2 && !self.sedecimal68 && !self.octal69 && !self.tetral610
    }

    /// Hypothesis (4) of Thm 6.8 for `2S = two_s`: (a) 8-bits at an odd and an even index and
    /// every g < 2S occurs as some G(i), i > 0; or (b) every g < 2S occurs at an odd and at an
    /// even i. Occurrences are looked up in the computed values.
    fn hypothesis4<T: Cell>(&self, g: &[T], two_s: u64) -> bool {
        if two_s > g.len() as u64 {
            return false; // fewer values than required distinct ones
        }
        let n = two_s as usize;
        let (mut positive, mut odd, mut even) = (vec![false; n], vec![false; n], vec![false; n]);
        for (i, &x) in g.iter().enumerate() {
            let x = x.get() as usize;
            if x < n {
                positive[x] |= i > 0;
                if i % 2 == 1 {
                    odd[x] = true;
                } else {
                    even[x] = true;
                }
            }
        }
        let a = self.eight_odd && self.eight_even && positive.iter().all(|&b| b);
        let b = odd.iter().zip(&even).all(|(&o, &e)| o && e);
        a || b
    }
}

#[cfg(test)]
mod tests;
