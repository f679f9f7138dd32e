//! Periodicity and arithmetico-periodicity, proved from computed values — never guessed.
//!
//! **Finding candidates.** Let `δ(i) = G(i+1) − G(i)`. `G(i+p) = G(i) + s` for all `i > e`
//! (s = 0: ordinary periodicity) holds exactly when δ is p-periodic from index `e+1` on, and the
//! last irregular value `e` is then the last index with `δ(e) ≠ δ(e+p)`. One pass of the KMP
//! prefix function over the reversed tail of δ gives the least period `per(m)` of every suffix
//! of length m. By Fine–Wilf, when a suffix of length `m ≥ 2p` has period p, its least period
//! divides p; so every period the theorems below could prove appears as some `per(m)` with
//! `m ≥ 2·per(m)`, and the longest such m gives its exact `e`. Every theorem needs at least 2p
//! values after `e`, so nothing provable is missed. All comparisons are exact (no hashing).
//! The window is capped at 2^21 values of δ; a candidate whose periodic stretch fills the whole
//! window is extended backwards by direct comparison, so preperiods of any length are found
//! (periods above 2^20 are not looked for).
//!
//! **Proving.** A candidate `(e, p, s)` is reported only when a theorem's hypotheses hold on the
//! computed values (SPEC §4–6):
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

/// Longest δ-window examined per check.
const WINDOW: usize = 1 << 21;

/// Incremental periodicity detector for one game. [`Detector::check`] is cheap enough to call
/// after every chunk of computed values: it does real work (O(min(len, 2^21))) only when the
/// sequence has grown by 1/16 since the last real check, so its amortized cost is a small
/// constant per value; [`Detector::check_now`] always checks.
#[derive(Debug, Clone)]
pub struct Detector {
    game: Game,
    result: Periodicity,
    checked: usize,
}

impl Detector {
    pub fn new(game: &Game) -> Detector {
        Detector {
            game: game.clone(),
            result: Periodicity::Unknown,
            checked: 0,
        }
    }

    /// The verdict so far.
    pub fn result(&self) -> &Periodicity {
        &self.result
    }

    /// Rate-limited check of `values` (G(0..len)); once proved the answer never changes.
    pub fn check(&mut self, values: &[u32]) -> &Periodicity {
        let len = values.len();
        if matches!(self.result, Periodicity::Unknown)
            && len >= self.checked + (self.checked / 16).max(64)
        {
            self.check_now(values);
        }
        &self.result
    }

    /// Unconditional check.
    pub fn check_now(&mut self, values: &[u32]) -> &Periodicity {
        if matches!(self.result, Periodicity::Unknown) {
            self.checked = values.len();
            self.result = detect(&self.game, values);
        }
        &self.result
    }
}

/// One-shot detection on G(0..len).
pub fn detect(game: &Game, g: &[u32]) -> Periodicity {
    let len = g.len();
    if len < 3 || game.part_rule() != PartRule::Any {
        return Periodicity::Unknown;
    }
    let rules = Hypotheses::new(game);
    // δ(i) = G(i+1) − G(i) for 0 ≤ i ≤ len−2, read backwards: s[k] = δ(len−2−k).
    let dlen = len - 1;
    let w = dlen.min(WINDOW);
    let delta = |i: usize| g[i + 1].wrapping_sub(g[i]);
    let s = |k: usize| delta(dlen - 1 - k);
    let mut pi = vec![0u32; w];
    for k in 1..w {
        let mut j = pi[k - 1] as usize;
        while j > 0 && s(k) != s(j) {
            j = pi[j - 1] as usize;
        }
        if s(k) == s(j) {
            j += 1;
        }
        pi[k] = j as u32;
    }
    // Candidates (q, longest m with per(m) = q and m ≥ 2q); per(m) is non-decreasing in m.
    let mut cands: Vec<(usize, usize)> = Vec::new();
    for m in 1..=w {
        let q = m - pi[m - 1] as usize;
        if 2 * q <= m {
            match cands.last_mut() {
                Some(last) if last.0 == q => last.1 = m,
                _ => cands.push((q, m)),
            }
        }
    }
    drop(pi);
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
        }
        // δ is q-periodic on [dlen − m, dlen − 1]; the last irregular index is e = dlen − m − 1.
        let e = dlen as i64 - m as i64 - 1;
        let first = (e + 1) as usize;
        let s = i64::from(g[first + q]) - i64::from(g[first]);
        if s < 0 {
            continue;
        }
        if let Some(proof) = rules.certify(g, e, q as u64, s as u64) {
            return Periodicity::Proved(proof);
        }
    }
    Periodicity::Unknown
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

    /// A proof of `G(i+q) = G(i) + s` for all `i > e` (e = last irregular index, −1 allowed)
    /// from G(0..len), if some theorem's hypotheses hold there.
    fn certify(&self, g: &[u32], e: i64, q: u64, s: u64) -> Option<Proof> {
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
                    .all(|&x| u64::from(x) < lim)
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

    /// Hypothesis (4) of Thm 6.8 for `2S = two_s`: (a) 8-bits at an odd and an even index and
    /// every g < 2S occurs as some G(i), i > 0; or (b) every g < 2S occurs at an odd and at an
    /// even i. Occurrences are looked up in the computed values.
    fn hypothesis4(&self, g: &[u32], two_s: u64) -> bool {
        if two_s > g.len() as u64 {
            return false; // fewer values than required distinct ones
        }
        let n = two_s as usize;
        let (mut positive, mut odd, mut even) = (vec![false; n], vec![false; n], vec![false; n]);
        for (i, &x) in g.iter().enumerate() {
            let x = x as usize;
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
