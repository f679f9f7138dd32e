//! Game codes of take-and-break games (Austin 1976, §4.1–4.2; equivalent codes and the standard
//! form, §4.4).
//!
//! A code is a digit string `… d_{-1} d_0 . d_1 d_2 …`. Bit `h` of `d_u` (u ≥ 1) allows removing
//! `u` tokens from one heap and leaving exactly `h` non-empty heaps; for u ≤ 0 the move *adds*
//! `|u|` tokens and splits into `h ≥ 2` heaps that are each smaller than the original heap.
//! Hex digits 8–F allow three heaps. A repeating block in parentheses makes the code infinite
//! (`0.(3)` is Nim). `S(1,2,5)` is the subtraction game with `d_u = 3` for `u ∈ S`.
//!
//! A code may carry a [`PartRule`] on the two parts of every two-heap split. Grundy's game
//! (split a heap into two *unequal* heaps) is the code `4.0` with the rule "parts differ by at
//! least 1"; its code is `grundy` (case-insensitive). The rule is data that every layer reads
//! (naive and fast engines, move generator, periodicity), so another game of the family —
//! parts differing by at least d, or "take k, then split into unequal heaps" (`0.0…4` with the
//! rule) — is one more [`Game::with_part_rule`] value, not a new code path.
//!
//! [`Game`] is always stored in canonical form, so `==` on games is equality of codes (not of
//! G-sequences: `.07` and `.137` differ as codes although one is a cousin of the other).

use std::fmt;
use std::str::FromStr;

use super::error::OctalError;

/// Most digits (before and after the point, including the repeating block) a code may have.
pub const MAX_CODE_DIGITS: usize = 64;
/// Largest member of a subtraction set `S(...)`.
pub const MAX_SUBTRACTION_MEMBER: u32 = 1024;

/// How many heaps a move may leave, as a class of codes (Austin 1976, §4.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum GameClass {
    /// Every digit ≤ 3 and nothing before the point: a move leaves at most one heap.
    Tetral,
    /// Every digit ≤ 7: at most two heaps.
    Octal,
    /// Some digit ≥ 8: up to three heaps.
    Sedecimal,
}

/// A rule on the two parts `a ≤ b` of every two-heap split of a game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum PartRule {
    /// Any two non-empty parts (every octal game).
    #[default]
    Any,
    /// The parts must differ by at least `d ≥ 1`: `b − a ≥ d` (d = 1: unequal, Grundy's game).
    DifferBy(u32),
}

impl PartRule {
    /// The least allowed difference `b − a` (0 for [`PartRule::Any`]).
    pub fn min_gap(self) -> u64 {
        match self {
            PartRule::Any => 0,
            PartRule::DifferBy(d) => u64::from(d),
        }
    }

    /// The largest allowed smaller part of a split of `total` tokens: `⌊(total − gap)/2⌋`
    /// (`None` when no split satisfies the rule).
    pub fn max_smaller(self, total: u64) -> Option<u64> {
        total.checked_sub(self.min_gap()).map(|t| t / 2)
    }
}

/// The code of Grundy's game (the canonical code string, parsed case-insensitively).
pub const GRUNDY_CODE: &str = "grundy";

/// A take-and-break game code in canonical form.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Game {
    /// `before[i]` is `d_{-i}` (so `before[0]` is `d_0`); no trailing zeros.
    before: Vec<u8>,
    /// `prefix[u-1]` is `d_u` for `1 ≤ u ≤ v = prefix.len()`.
    prefix: Vec<u8>,
    /// The repeating block `d_{v+1} … d_{v+t}` (empty for a finite code); primitive, not all zero,
    /// and rotated so that the prefix is as short as possible.
    block: Vec<u8>,
    /// `Some(set)` when the game was written as a subtraction game (kept for display only).
    subtraction: Option<Vec<u32>>,
    /// The rule on the parts of two-heap splits ([`PartRule::Any`] for every octal game).
    parts: PartRule,
}

/// The result of [`Game::standard_form`]: `G_std(n) = G(n + shift)` for all n ≥ 0, and
/// `G(n) = 0` for n < shift.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StandardForm {
    pub game: Game,
    pub shift: u32,
}

fn hex_char(d: u8) -> char {
    char::from_digit(u32::from(d), 16).map_or('?', |c| c.to_ascii_uppercase())
}

impl Game {
    /// Parses a code; see the module documentation for the syntax. Surrounding whitespace is
    /// ignored; hex digits are case-insensitive.
    pub fn parse(code: &str) -> Result<Game, OctalError> {
        let s = code.trim();
        if s.is_empty() {
            return Err(OctalError::EmptyCode);
        }
        if s.eq_ignore_ascii_case(GRUNDY_CODE) {
            return Ok(Game::grundy());
        }
        if s.starts_with(['S', 's']) {
            return parse_subtraction(s);
        }
        parse_digits(s)
    }

    /// Grundy's game: split one heap into two unequal non-empty heaps (code `4.0`, parts
    /// differing by at least 1); code `grundy`.
    pub fn grundy() -> Game {
        let four = Game::from_parts(vec![4], Vec::new(), Vec::new());
        Game {
            parts: PartRule::DifferBy(1),
            ..four
        }
    }

    /// `self` with a rule on the parts of its two-heap splits. The rules are only defined for
    /// finite codes whose moves leave at most two heaps (three-heap splits and recurring
    /// splitting digits are computed from full exclusion sets of unrestricted splits);
    /// other codes are refused.
    pub fn with_part_rule(&self, parts: PartRule) -> Result<Game, OctalError> {
        let parts = if parts.min_gap() == 0 {
            PartRule::Any
        } else {
            parts
        };
        if parts != PartRule::Any && (!self.is_finite() || self.max_heaps() > 2) {
            return Err(OctalError::PartRuleUnsupported {
                code: self.canonical(),
            });
        }
        let subtraction = if parts == PartRule::Any {
            self.subtraction.clone()
        } else {
            None
        };
        Ok(Game {
            parts,
            subtraction,
            ..self.clone()
        })
    }

    /// The rule on the parts of two-heap splits.
    pub fn part_rule(&self) -> PartRule {
        self.parts
    }

    /// The subtraction game `S(members)` (members are sorted and deduplicated).
    pub fn subtraction(members: &[u32]) -> Result<Game, OctalError> {
        let mut set: Vec<u32> = members.to_vec();
        set.sort_unstable();
        set.dedup();
        if set.is_empty() {
            return Err(OctalError::BadSubtractionSet {
                pos: 0,
                reason: "the set is empty",
            });
        }
        for &m in &set {
            if m == 0 || m > MAX_SUBTRACTION_MEMBER {
                return Err(OctalError::SubtractionMemberOutOfRange {
                    pos: 0,
                    member: m.to_string(),
                    max: MAX_SUBTRACTION_MEMBER,
                });
            }
        }
        let top = *set.last().unwrap_or(&0) as usize;
        let mut prefix = vec![0u8; top];
        for &m in &set {
            prefix[m as usize - 1] = 3;
        }
        let mut g = Game::from_parts(Vec::new(), prefix, Vec::new());
        g.subtraction = Some(set);
        Ok(g)
    }

    /// Builds a canonical game from raw digits: `before[i] = d_{-i}`, `prefix[u-1] = d_u`, and a
    /// repeating block (may be empty). Digits must be ≤ 15 and `before` digits must have bits 0
    /// and 1 clear; callers inside this module guarantee that.
    pub(crate) fn from_parts(mut before: Vec<u8>, mut prefix: Vec<u8>, mut block: Vec<u8>) -> Game {
        while before.last() == Some(&0) {
            before.pop();
        }
        if block.iter().all(|&d| d == 0) {
            block.clear();
        }
        if !block.is_empty() {
            // Reduce the block to its primitive root.
            let t = block.len();
            if let Some(d) =
                (1..t).find(|&d| t.is_multiple_of(d) && (d..t).all(|i| block[i] == block[i - d]))
            {
                block.truncate(d);
            }
            // Pull the prefix into the block while its last digit repeats the block's last.
            while !prefix.is_empty() && prefix.last() == block.last() {
                prefix.pop();
                block.rotate_right(1);
            }
        } else {
            while prefix.last() == Some(&0) {
                prefix.pop();
            }
        }
        Game {
            before,
            prefix,
            block,
            subtraction: None,
            parts: PartRule::Any,
        }
    }

    /// Digit `d_u` for any index (0 outside the code).
    pub fn digit(&self, u: i64) -> u8 {
        if u <= 0 {
            let i = u.unsigned_abs();
            return usize::try_from(i)
                .ok()
                .and_then(|i| self.before.get(i))
                .copied()
                .unwrap_or(0);
        }
        let u = u as u64;
        let v = self.prefix.len() as u64;
        if u <= v {
            self.prefix[(u - 1) as usize]
        } else if self.block.is_empty() {
            0
        } else {
            self.block[((u - v - 1) % self.block.len() as u64) as usize]
        }
    }

    /// `d_0, d_{-1}, …` (index i holds `d_{-i}`).
    pub fn before_point(&self) -> &[u8] {
        &self.before
    }
    /// `d_1 … d_v` (the non-repeating digits after the point).
    pub fn prefix(&self) -> &[u8] {
        &self.prefix
    }
    /// The repeating block `d_{v+1} … d_{v+t}`; empty for a finite code.
    pub fn block(&self) -> &[u8] {
        &self.block
    }
    /// The subtraction set when the game was given as `S(...)`.
    pub fn subtraction_set(&self) -> Option<&[u32]> {
        self.subtraction.as_deref()
    }
    /// True when the code has finitely many non-zero digits.
    pub fn is_finite(&self) -> bool {
        self.block.is_empty()
    }
    /// True for the game without moves (every digit 0): G ≡ 0.
    pub fn is_zero(&self) -> bool {
        self.before.is_empty() && self.prefix.iter().all(|&d| d == 0) && self.block.is_empty()
    }
    /// The most negative index with a non-zero digit (0 if there is none before the point).
    pub fn min_index(&self) -> i64 {
        -(self.before.len().saturating_sub(1) as i64)
    }
    /// For a finite code, `t = max(|v|, w)` of Theorem 4.1: the largest |index| of a non-zero
    /// digit. `None` for recurring codes.
    pub fn last_index(&self) -> Option<u64> {
        if !self.is_finite() {
            return None;
        }
        Some((self.prefix.len() as u64).max(self.min_index().unsigned_abs()))
    }
    /// The most heaps any move leaves (the highest bit of any digit), 0..=3.
    pub fn max_heaps(&self) -> u32 {
        let all = self
            .before
            .iter()
            .chain(&self.prefix)
            .chain(&self.block)
            .fold(0u8, |a, &d| a | d);
        if all == 0 {
            0
        } else {
            7 - all.leading_zeros()
        }
    }
    /// Tetral / octal / sedecimal.
    pub fn class(&self) -> GameClass {
        match self.max_heaps() {
            0 | 1 if self.before.is_empty() => GameClass::Tetral,
            0..=2 => GameClass::Octal,
            _ => GameClass::Sedecimal,
        }
    }

    /// The canonical code: `0.07` for `.07`, trailing zeros stripped, hex digits upper-case,
    /// the shortest prefix and block for a recurring code (`.3(3)` → `0.(3)`), and subtraction
    /// games as `S(a,b,…)` with sorted members.
    ///
    /// With a part rule: `grundy` for Grundy's game, otherwise the digits followed by
    /// `/gap=d` (a display form; only Grundy's game has a code the parser accepts).
    pub fn canonical(&self) -> String {
        match self.parts {
            PartRule::Any => {}
            PartRule::DifferBy(d) => {
                if *self == Game::grundy() {
                    return GRUNDY_CODE.to_owned();
                }
                let digits = Game {
                    parts: PartRule::Any,
                    ..self.clone()
                };
                return format!("{}/gap={d}", digits.canonical());
            }
        }
        if let Some(set) = &self.subtraction {
            let items: Vec<String> = set.iter().map(u32::to_string).collect();
            return format!("S({})", items.join(","));
        }
        let mut s = String::new();
        if self.before.is_empty() {
            s.push('0');
        } else {
            s.extend(self.before.iter().rev().map(|&d| hex_char(d)));
        }
        s.push('.');
        if self.prefix.is_empty() && self.block.is_empty() {
            s.push('0');
        }
        s.extend(self.prefix.iter().map(|&d| hex_char(d)));
        if !self.block.is_empty() {
            s.push('(');
            s.extend(self.block.iter().map(|&d| hex_char(d)));
            s.push(')');
        }
        s
    }

    /// Austin's standard form (Austin 1976, §4.4, Thm 4.6): while `d_1` is even, G(1) = 0, so heaps of one
    /// token are worthless and the game `U` with `G_U(n) = G_T(n+1)` is obtained by moving bit
    /// `h` of `d_u` to digit `e_{u+h-1}` as bits `0..=h` (only bits ≥ 2 at indices ≤ 0). The
    /// chain ends when `d_1` is odd. The zero game is its own standard form with shift 0.
    ///
    /// Theorem 4.6 is proved for unrestricted splits only: a game with a [`PartRule`] is its
    /// own standard form (shift 0). (For Grundy's game G(1) = G(2) = 0, but dropping a token
    /// from each part does not preserve "unequal" sums, so no shifted code describes it.)
    pub fn standard_form(&self) -> StandardForm {
        if self.parts != PartRule::Any {
            return StandardForm {
                game: self.clone(),
                shift: 0,
            };
        }
        let mut g = Game::from_parts(self.before.clone(), self.prefix.clone(), self.block.clone());
        let mut shift = 0u32;
        // Every step moves some bit towards index 1 (bits before the point move up, bit 0 moves
        // down), so the chain is shorter than the code plus a few digits; the cap is a guard.
        while !g.is_zero() && g.digit(1) & 1 == 0 && shift < 100_000 {
            g = g.shift_once();
            shift += 1;
        }
        StandardForm { game: g, shift }
    }

    /// One step of Thm 4.6 (requires an even `d_1`).
    fn shift_once(&self) -> Game {
        let lo = self.min_index() - 3;
        let v = self.prefix.len() as i64;
        let t = self.block.len() as i64;
        // For a finite code every new digit lies below v+3; for a recurring one, e_w with w > v+3
        // only reads recurring digits, so e_{v+4} … e_{v+3+t} is the new block.
        let hi = if t == 0 { v + 3 } else { v + 3 + t };
        let mut e: Vec<u8> = vec![0; (hi - lo + 1) as usize];
        for u in lo..=hi + 1 {
            let d = self.digit(u);
            for h in 0..4i64 {
                if d >> h & 1 == 0 {
                    continue;
                }
                let w = u + h - 1;
                if w < lo || w > hi {
                    continue;
                }
                let mut bits = ((1u16 << (h + 1)) - 1) as u8;
                if w <= 0 {
                    bits &= !3;
                }
                e[(w - lo) as usize] |= bits;
            }
        }
        let at = |w: i64| e[(w - lo) as usize];
        let before: Vec<u8> = (0..=(-lo)).map(|i| at(-i)).collect();
        if t == 0 {
            let prefix: Vec<u8> = (1..=hi).map(at).collect();
            Game::from_parts(before, prefix, Vec::new())
        } else {
            let prefix: Vec<u8> = (1..=v + 3).map(at).collect();
            let block: Vec<u8> = (v + 4..=hi).map(at).collect();
            Game::from_parts(before, prefix, block)
        }
    }
}

impl fmt::Display for Game {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.canonical())
    }
}

impl FromStr for Game {
    type Err = OctalError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Game::parse(s)
    }
}

fn parse_digits(s: &str) -> Result<Game, OctalError> {
    enum State {
        Before,
        After,
        Block,
        Closed,
    }
    let mut state = State::Before;
    let mut before: Vec<(usize, char, u8)> = Vec::new();
    let mut after: Vec<u8> = Vec::new();
    let mut block: Vec<u8> = Vec::new();
    let mut open = 0usize;
    for (pos, ch) in s.chars().enumerate() {
        let digit = ch.to_digit(16).map(|d| d as u8);
        match state {
            State::Before => match (ch, digit) {
                (_, Some(d)) => before.push((pos, ch, d)),
                ('.', _) => state = State::After,
                ('(', _) => return Err(OctalError::UnexpectedOpenParen { pos }),
                (')', _) => return Err(OctalError::UnexpectedCloseParen { pos }),
                _ => return Err(OctalError::InvalidChar { pos, ch }),
            },
            State::After => match (ch, digit) {
                (_, Some(d)) => after.push(d),
                ('.', _) => return Err(OctalError::SecondPoint { pos }),
                ('(', _) => {
                    open = pos;
                    state = State::Block;
                }
                (')', _) => return Err(OctalError::UnexpectedCloseParen { pos }),
                _ => return Err(OctalError::InvalidChar { pos, ch }),
            },
            State::Block => match (ch, digit) {
                (_, Some(d)) => block.push(d),
                (')', _) if block.is_empty() => return Err(OctalError::EmptyRepeat { pos: open }),
                (')', _) => state = State::Closed,
                ('.', _) => return Err(OctalError::SecondPoint { pos }),
                ('(', _) => return Err(OctalError::UnexpectedOpenParen { pos }),
                _ => return Err(OctalError::InvalidChar { pos, ch }),
            },
            State::Closed => return Err(OctalError::TrailingAfterRepeat { pos, ch }),
        }
        let len = before.len() + after.len() + block.len();
        if len > MAX_CODE_DIGITS {
            return Err(OctalError::CodeTooLong {
                len,
                max: MAX_CODE_DIGITS,
            });
        }
    }
    match state {
        State::Before => {
            return Err(OctalError::MissingPoint {
                digits: s.to_owned(),
            });
        }
        State::Block => return Err(OctalError::UnclosedParen { pos: open }),
        State::After | State::Closed => {}
    }
    if let Some(&(pos, ch, _)) = before.iter().find(|&&(_, _, d)| d & 3 != 0) {
        return Err(OctalError::BitsBeforePoint { pos, ch });
    }
    let before: Vec<u8> = before.iter().rev().map(|&(_, _, d)| d).collect();
    Ok(Game::from_parts(before, after, block))
}

fn parse_subtraction(s: &str) -> Result<Game, OctalError> {
    let chars: Vec<char> = s.chars().collect();
    let mut i = 1;
    while i < chars.len() && chars[i].is_whitespace() {
        i += 1;
    }
    if chars.get(i) != Some(&'(') {
        return Err(OctalError::BadSubtractionSet {
            pos: i,
            reason: "expected '(' after 'S'",
        });
    }
    i += 1;
    let mut members = Vec::new();
    loop {
        while i < chars.len() && chars[i].is_whitespace() {
            i += 1;
        }
        let start = i;
        while i < chars.len() && chars[i].is_ascii_digit() {
            i += 1;
        }
        if start == i {
            return Err(match chars.get(i) {
                None => OctalError::BadSubtractionSet {
                    pos: i,
                    reason: "missing ')'",
                },
                Some(')') if members.is_empty() => OctalError::BadSubtractionSet {
                    pos: i,
                    reason: "the set is empty",
                },
                Some(&ch) if ch == ',' || ch == ')' => OctalError::BadSubtractionSet {
                    pos: i,
                    reason: "expected a member",
                },
                Some(&ch) => OctalError::InvalidChar { pos: i, ch },
            });
        }
        let text: String = chars[start..i].iter().collect();
        let member = text
            .parse::<u32>()
            .ok()
            .filter(|&m| (1..=MAX_SUBTRACTION_MEMBER).contains(&m));
        let Some(member) = member else {
            return Err(OctalError::SubtractionMemberOutOfRange {
                pos: start,
                member: text,
                max: MAX_SUBTRACTION_MEMBER,
            });
        };
        members.push(member);
        while i < chars.len() && chars[i].is_whitespace() {
            i += 1;
        }
        match chars.get(i) {
            Some(',') => i += 1,
            Some(')') => {
                i += 1;
                break;
            }
            None => {
                return Err(OctalError::BadSubtractionSet {
                    pos: i,
                    reason: "missing ')'",
                })
            }
            Some(&ch) => return Err(OctalError::InvalidChar { pos: i, ch }),
        }
    }
    if let Some(&ch) = chars.get(i) {
        return Err(OctalError::InvalidChar { pos: i, ch });
    }
    Game::subtraction(&members)
}

/// `code` percent-encoded for an address (a path segment or a query value), but for letters,
/// digits and `.`: how the service's addresses carry a code.
pub fn percent_encode(code: &str) -> String {
    use std::fmt::Write as _;
    let mut enc = String::new();
    for b in code.bytes() {
        if b.is_ascii_alphanumeric() || b == b'.' {
            enc.push(b as char);
        } else {
            let _ = write!(enc, "%{b:02X}");
        }
    }
    enc
}

#[cfg(test)]
mod tests;
