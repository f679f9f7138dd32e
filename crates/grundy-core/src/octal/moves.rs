//! Every winning move from a sum of heaps, paginated.
//!
//! A move replaces one heap `n` by `h ≤ 3` heaps after removing `take = u` tokens (`take < 0`:
//! `|u|` tokens are *added*, digits before the point; `take = 0`: a split without removal).
//! It wins when the resulting position has nim-sum 0, i.e. the new heaps' values XOR to
//! `t = X ⊕ G(n)` where X is the nim-sum of the whole position.
//! Under a part rule (Grundy's game: `take = 0`, `leave = [a, b]` with a < b) two-heap splits
//! whose parts differ by less than the rule's gap are never listed.
//!
//! **Order** (deterministic): heaps by index (equal heap sizes give identical positions, so only
//! the first heap of each size is listed); then the number of heaps left h = 0, 1, 2, 3; then
//! `take` ascending; then the sorted list `leave` lexicographically ascending.
//!
//! **Cursor**: an opaque string naming the next candidate to examine (heap slot, h, take,
//! first part, second part) plus a fingerprint of the query, so a cursor cannot be replayed
//! against another position. After a full page the walk looks ahead for one more move, so
//! `next_cursor` is `None` exactly when the enumeration is complete (unless the step budget
//! ran out during the look-ahead).
//!
//! **Cost.** Each examined candidate (a value of `take`, a first part, a split) costs one step
//! of the per-request budget; when it runs out the page is returned as it is, with
//! `budget_exhausted = true` and a cursor to continue from. For huge heaps with a proved
//! periodicity, two-heap splits `a + b = r` are not scanned one by one: for a pure period p,
//! `G(a) ⊕ G(r−a)` depends only on `a mod p` once both parts are past the preperiod, so the
//! good residues are computed once (p steps) and the walk jumps between them (any page costs
//! O(preperiod + p + limit) steps, however large the heap). With a saltus s > 0, `|G(a) − G(b)|
//! ≤ G(a) ⊕ G(b) = t` confines the splits to `b − a ≤ p·(t + ΔA + s)/s` (ΔA the spread of one
//! period's base values) and only that window is scanned. Three-heap splits of a huge heap,
//! and recurring digits (whose `take` ranges up to the heap size), remain budget-bound.

use super::code::Game;
use super::error::OctalError;
use super::periodicity::{Periodicity, Proof};
use super::values::ValuesRef;
use crate::octal::periodicity::value::value_at;

/// Most heaps in one query.
pub const MAX_HEAPS: usize = 10_000;
/// Default per-request step budget (about 0.1 s of work).
pub const DEFAULT_BUDGET: u64 = 20_000_000;

/// One winning move.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct WinningMove {
    /// Index of the heap in the query (the first heap of that size).
    pub heap_index: usize,
    /// Its size.
    pub heap: u64,
    /// Tokens removed (negative: tokens added before splitting).
    pub take: i128,
    /// The heaps that replace it, ascending (empty when the heap is taken whole).
    pub leave: Vec<u64>,
}

/// One page of winning moves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MovePage {
    /// Nim-sum of the position (0: a P-position, no winning moves).
    pub value: u64,
    pub moves: Vec<WinningMove>,
    /// Where to continue; `None` when every winning move has been listed.
    pub next_cursor: Option<String>,
    /// True when the step budget ran out before the page was complete.
    pub budget_exhausted: bool,
}

/// Lists winning moves of the sum of `heaps` in the order described in the module docs.
/// `values` and `periodicity` are the game's computed sequence and its verdict (heaps beyond
/// the values need a proof). `limit` ≥ 1 moves per page; `budget` steps per call.
pub fn winning_moves(
    game: &Game,
    values: ValuesRef<'_>,
    periodicity: &Periodicity,
    heaps: &[u64],
    cursor: Option<&str>,
    limit: usize,
    budget: u64,
) -> Result<MovePage, OctalError> {
    if heaps.len() > MAX_HEAPS {
        return Err(OctalError::TooManyHeaps {
            count: heaps.len(),
            max: MAX_HEAPS,
        });
    }
    let mut x = 0u64;
    let mut slots: Vec<(usize, u64, u64)> = Vec::new(); // (index, size, G)
    for (i, &n) in heaps.iter().enumerate() {
        let gv = value_at(values, periodicity, n)?;
        x ^= gv;
        if n > 0 && !slots.iter().any(|&(_, m, _)| m == n) {
            slots.push((i, n, gv));
        }
    }
    let fp = fingerprint(game, heaps);
    let start = match cursor {
        None => Pos {
            slot: 0,
            h: 0,
            u: i128::MIN,
            a: 0,
            b: 0,
        },
        Some(c) => parse_cursor(c, fp, slots.len())?,
    };
    let mut page = MovePage {
        value: x,
        moves: Vec::new(),
        next_cursor: None,
        budget_exhausted: false,
    };
    if x == 0 {
        return Ok(page);
    }
    let mut walk = Walk {
        game,
        values,
        proof: periodicity.proof().copied(),
        periodicity,
        budget,
        limit: limit.max(1),
        moves: Vec::new(),
        residues: None,
        spread: None,
    };
    match walk.run(&slots, x, start) {
        Ok(()) => {}
        Err(Halt::At(pos, exhausted)) => {
            page.next_cursor = Some(format_cursor(pos, fp));
            page.budget_exhausted = exhausted;
        }
        Err(Halt::Error(e)) => return Err(e),
    }
    page.moves = walk.moves;
    Ok(page)
}

/// A point in the enumeration: heap slot, heaps left, take, first and second part.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Pos {
    slot: usize,
    h: u8,
    u: i128,
    a: u64,
    b: u64,
}

enum Halt {
    /// Stop here (page full after look-ahead: false; budget exhausted: true).
    At(Pos, bool),
    Error(OctalError),
}

impl From<OctalError> for Halt {
    fn from(e: OctalError) -> Halt {
        Halt::Error(e)
    }
}

struct Walk<'a> {
    game: &'a Game,
    values: ValuesRef<'a>,
    periodicity: &'a Periodicity,
    proof: Option<Proof>,
    budget: u64,
    limit: usize,
    moves: Vec<WinningMove>,
    /// Cache of good residues for the last (r mod p, t) of a pure-periodic split search.
    residues: Option<(u64, u64, Vec<u64>)>,
    /// Least and largest base value of one period (arithmetico-periodic proofs).
    spread: Option<(u64, u64)>,
}

impl Walk<'_> {
    fn g(&self, x: u64) -> Result<u64, Halt> {
        Ok(value_at(self.values, self.periodicity, x)?)
    }

    fn step(&mut self, at: Pos) -> Result<(), Halt> {
        if self.budget == 0 {
            return Err(Halt::At(at, true));
        }
        self.budget -= 1;
        Ok(())
    }

    /// Records a move found at `at`; once the page is full, the first move beyond it only
    /// becomes the cursor.
    fn emit(
        &mut self,
        at: Pos,
        heap_index: usize,
        heap: u64,
        take: i128,
        leave: Vec<u64>,
    ) -> Result<(), Halt> {
        if self.moves.len() == self.limit {
            return Err(Halt::At(at, false));
        }
        self.moves.push(WinningMove {
            heap_index,
            heap,
            take,
            leave,
        });
        Ok(())
    }

    fn digit(&self, u: i128) -> u8 {
        if u <= 0 {
            return if u >= i128::from(self.game.min_index()) {
                self.game.digit(u as i64)
            } else {
                0
            };
        }
        let v = self.game.prefix().len() as i128;
        if u <= v {
            return self.game.prefix()[(u - 1) as usize];
        }
        let block = self.game.block();
        if block.is_empty() {
            0
        } else {
            block[((u - v - 1) % block.len() as i128) as usize]
        }
    }

    fn run(&mut self, slots: &[(usize, u64, u64)], x: u64, start: Pos) -> Result<(), Halt> {
        for (slot, &(index, n, gn)) in slots.iter().enumerate().skip(start.slot) {
            let t = x ^ gn;
            let first_h = if slot == start.slot { start.h } else { 0 };
            for h in first_h..=3 {
                let resume = (slot == start.slot && h == start.h).then_some(start);
                let from = Pos {
                    slot,
                    h,
                    u: i128::MIN,
                    a: 0,
                    b: 0,
                };
                let from = resume.unwrap_or(from);
                match h {
                    0 => self.zero(from, index, n, t)?,
                    1 => self.one(from, index, n, t)?,
                    _ => self.split(from, index, n, t, h)?,
                }
            }
        }
        Ok(())
    }

    /// Take the whole heap.
    fn zero(&mut self, from: Pos, index: usize, n: u64, t: u64) -> Result<(), Halt> {
        let at = Pos {
            u: i128::from(n),
            ..from
        };
        if from.u <= at.u && t == 0 && self.digit(at.u) & 1 == 1 {
            self.step(at)?;
            self.emit(at, index, n, at.u, Vec::new())?;
        }
        Ok(())
    }

    /// Take u and leave one heap n − u.
    fn one(&mut self, from: Pos, index: usize, n: u64, t: u64) -> Result<(), Halt> {
        let v = self.game.prefix().len() as i128;
        let n_i = i128::from(n);
        // Non-repeating digits.
        for u in from.u.max(1)..=v.min(n_i - 1) {
            let at = Pos { u, ..from };
            self.step(at)?;
            if self.digit(u) & 2 != 0 && self.g((n_i - u) as u64)? == t {
                self.emit(at, index, n, u, vec![(n_i - u) as u64])?;
            }
        }
        if self.game.block().is_empty() || n_i - 1 <= v {
            return Ok(());
        }
        let lo = from.u.max(v + 1);
        let big = n as u128 > self.values.len() as u128;
        match self.proof {
            Some(p) if big && p.saltus > 0 => {
                // Solve G(r) = t for r = n − u: below the preperiod directly, above it one
                // candidate per residue class; then keep the u with a 1-bit.
                let mut us: Vec<i128> = Vec::new();
                for r in 1..p.preperiod.min(n) {
                    self.step(Pos { u: lo, ..from })?;
                    if self.g(r)? == t {
                        us.push(n_i - i128::from(r));
                    }
                }
                for c in 0..p.period {
                    self.step(Pos { u: lo, ..from })?;
                    let base = self.g(p.preperiod + c)?;
                    if t >= base && (t - base).is_multiple_of(p.saltus) {
                        let r = u128::from(p.preperiod + c)
                            + u128::from(p.period) * u128::from((t - base) / p.saltus);
                        if r < u128::from(n) {
                            us.push(n_i - r as i128);
                        }
                    }
                }
                us.sort_unstable();
                for u in us {
                    if u >= lo && self.digit(u) & 2 != 0 {
                        let at = Pos { u, ..from };
                        self.emit(at, index, n, u, vec![(n_i - u) as u64])?;
                    }
                }
            }
            _ => {
                for u in lo..n_i {
                    let at = Pos { u, ..from };
                    self.step(at)?;
                    if self.digit(u) & 2 != 0 && self.g((n_i - u) as u64)? == t {
                        self.emit(at, index, n, u, vec![(n_i - u) as u64])?;
                    }
                }
            }
        }
        Ok(())
    }

    /// Take u and leave h = 2 or 3 heaps.
    fn split(&mut self, from: Pos, index: usize, n: u64, t: u64, h: u8) -> Result<(), Halt> {
        let bit = 1u8 << h;
        let n_i = i128::from(n);
        let min_u = i128::from(self.game.min_index());
        let v = self.game.prefix().len() as i128;
        let max_u = if self.game.block().is_empty() { v } else { n_i };
        let mut u = from.u.max(min_u);
        while u <= max_u.min(n_i - i128::from(h)) {
            let resume = from.u == u;
            let at = Pos {
                u,
                a: 0,
                b: 0,
                ..from
            };
            self.step(at)?;
            if self.digit(u) & bit != 0 {
                let total = (n_i - u) as u128; // sum of the parts
                let cap = if u <= 0 { n - 1 } else { u64::MAX }; // every part below n when adding
                if h == 2 {
                    let lo = if u < 0 { (1 - u) as u64 } else { 1 };
                    let mut a = if resume { from.a.max(lo) } else { lo };
                    while let Some(found) = self.next_pair(total, lo, t, a, at)? {
                        let b = (total - u128::from(found)) as u64;
                        self.emit(Pos { a: found, ..at }, index, n, u, vec![found, b])?;
                        a = found + 1;
                    }
                } else {
                    let a_max = (total / 3) as u64;
                    let mut a = if resume { from.a.max(1) } else { 1 };
                    while a <= a_max {
                        let at_a = Pos { a, b: 0, ..at };
                        self.step(at_a)?;
                        let rest = total - u128::from(a);
                        // b ≥ a, and c = rest − b ≤ cap.
                        let lo = (a as u128).max(rest.saturating_sub(u128::from(cap)));
                        if lo <= rest / 2 {
                            let lo = lo as u64;
                            let ta = t ^ self.g(a)?;
                            let mut b = if resume && a == from.a {
                                from.b.max(lo)
                            } else {
                                lo
                            };
                            while let Some(found) = self.next_pair(rest, lo, ta, b, at_a)? {
                                let c = (rest - u128::from(found)) as u64;
                                self.emit(
                                    Pos { b: found, ..at_a },
                                    index,
                                    n,
                                    u,
                                    vec![a, found, c],
                                )?;
                                b = found + 1;
                            }
                        }
                        a += 1;
                    }
                }
            }
            u += 1;
            if u > v && self.game.block().is_empty() {
                break;
            }
        }
        Ok(())
    }

    /// The least `a ≥ from` with `lo ≤ a ≤ hi` and `G(a) ⊕ G(r−a) = t`, where `hi = r/2`, or
    /// `⌊(r − gap)/2⌋` for a two-heap split under a part rule (Grundy's game: `a ≠ r − a`).
    /// `at` is the cursor context (its first or second part is replaced by the scan position
    /// on a budget stop).
    fn next_pair(
        &mut self,
        r: u128,
        lo: u64,
        t: u64,
        from: u64,
        at: Pos,
    ) -> Result<Option<u64>, Halt> {
        let gap = if at.h == 2 {
            u128::from(self.game.part_rule().min_gap())
        } else {
            0
        };
        let Some(hi) = r.checked_sub(gap).map(|x| (x / 2) as u64) else {
            return Ok(None);
        };
        let mut a = from.max(lo);
        let here = |a: u64| {
            if at.h == 3 {
                Pos { b: a, ..at }
            } else {
                Pos { a, ..at }
            }
        };
        let len = self.values.len() as u64;
        let proof = self.proof;
        while a <= hi {
            // Both parts computed, or no proof: plain scan.
            let (n0, p, s) = match proof {
                Some(pr) if r >= u128::from(len) => (pr.preperiod, pr.period, pr.saltus),
                _ => {
                    self.step(here(a))?;
                    if self.g(a)? ^ self.g((r - u128::from(a)) as u64)? == t {
                        return Ok(Some(a));
                    }
                    a += 1;
                    continue;
                }
            };
            let b = r - u128::from(a);
            if a < n0 || b < u128::from(n0) {
                // Irregular part involved: examine directly.
                self.step(here(a))?;
                if self.g(a)? ^ self.g(b as u64)? == t {
                    return Ok(Some(a));
                }
                a += 1;
                continue;
            }
            // Both parts periodic, for every a' in [a, end].
            let end = u128::from(hi).min(r - u128::from(n0)) as u64;
            if s == 0 {
                let rm = ((r - u128::from(n0)) % u128::from(p)) as u64;
                self.ensure_residues(rm, t, n0, p, here(a))?;
                let good = self.residues.as_ref().map_or(&[][..], |(_, _, g)| &g[..]);
                let cand = if good.is_empty() {
                    None
                } else {
                    let base = a - a % p;
                    let i = good.partition_point(|&x| x < a % p);
                    if i < good.len() {
                        base.checked_add(good[i])
                    } else {
                        base.checked_add(p).and_then(|b| b.checked_add(good[0]))
                    }
                };
                match cand {
                    Some(c) if c <= end => {
                        self.step(here(c))?;
                        return Ok(Some(c));
                    }
                    _ => a = end.saturating_add(1),
                }
            } else {
                // |G(a) − G(b)| ≤ G(a) ⊕ G(b) = t bounds b − a; skip the part below.
                let (amin, amax) = match self.spread {
                    Some(sp) => sp,
                    None => {
                        let sp = self.base_spread(n0, p)?;
                        self.spread = Some(sp);
                        sp
                    }
                };
                let width = u128::from(p)
                    * (u128::from(t) + u128::from(amax - amin) + 2 * u128::from(s))
                    / u128::from(s);
                let a_low = (r.saturating_sub(width) / 2) as u64;
                if a < a_low {
                    a = a_low.min(end.saturating_add(1));
                    continue;
                }
                while a <= end {
                    self.step(here(a))?;
                    if self.g(a)? ^ self.g((r - u128::from(a)) as u64)? == t {
                        return Ok(Some(a));
                    }
                    a += 1;
                }
            }
        }
        Ok(None)
    }

    /// Caches the residues ρ (mod p) with `P[(ρ − n0) mod p] ⊕ P[(rm − ρ) mod p] = t`, where
    /// `P[c] = G(n0 + c)` and `rm = (r − n0) mod p`: every `a ≡ ρ` with both parts past the
    /// preperiod is then a solution.
    fn ensure_residues(&mut self, rm: u64, t: u64, n0: u64, p: u64, at: Pos) -> Result<(), Halt> {
        if matches!(&self.residues, Some((crm, ct, _)) if *crm == rm && *ct == t) {
            return Ok(());
        }
        self.residues = None;
        let mut good = Vec::new();
        for rho in 0..p {
            self.step(at)?;
            let ca = (rho + p - n0 % p) % p; // (a − n0) mod p for a ≡ rho
            let cb = (rm + p - rho) % p; // (r − a − n0) mod p
            if self.g(n0 + ca)? ^ self.g(n0 + cb)? == t {
                good.push(rho);
            }
        }
        self.residues = Some((rm, t, good));
        Ok(())
    }

    /// Least and largest of G(n0 … n0+p−1).
    fn base_spread(&self, n0: u64, p: u64) -> Result<(u64, u64), Halt> {
        let mut lo = u64::MAX;
        let mut hi = 0;
        for c in 0..p {
            let v = self.g(n0 + c)?;
            lo = lo.min(v);
            hi = hi.max(v);
        }
        Ok((lo, hi))
    }
}

fn fingerprint(game: &Game, heaps: &[u64]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    let mut eat = |b: u8| {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x100_0000_01b3);
    };
    for b in game.canonical().bytes() {
        eat(b);
    }
    eat(0xff);
    for &n in heaps {
        for b in n.to_le_bytes() {
            eat(b);
        }
    }
    h
}

fn format_cursor(p: Pos, fp: u64) -> String {
    format!("{}.{}.{}.{}.{}.{:016x}", p.slot, p.h, p.u, p.a, p.b, fp)
}

fn parse_cursor(c: &str, fp: u64, slots: usize) -> Result<Pos, OctalError> {
    let bad = |reason| OctalError::BadCursor { reason };
    let parts: Vec<&str> = c.split('.').collect();
    if parts.len() != 6 {
        return Err(bad("malformed"));
    }
    let f = u64::from_str_radix(parts[5], 16).map_err(|_| bad("malformed"))?;
    if f != fp {
        return Err(bad("it belongs to a different game or position"));
    }
    let slot: usize = parts[0].parse().map_err(|_| bad("malformed"))?;
    let h: u8 = parts[1].parse().map_err(|_| bad("malformed"))?;
    let u: i128 = parts[2].parse().map_err(|_| bad("malformed"))?;
    let a: u64 = parts[3].parse().map_err(|_| bad("malformed"))?;
    let b: u64 = parts[4].parse().map_err(|_| bad("malformed"))?;
    if slot >= slots || h > 3 {
        return Err(bad("out of range"));
    }
    Ok(Pos { slot, h, u, a, b })
}

#[cfg(test)]
mod tests;
