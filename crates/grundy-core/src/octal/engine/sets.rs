//! Full exclusion sets, for moves that the rare/common method does not cover: three-heap
//! splits and recurring digits.
//!
//! * `X2(s) = { G(a) ⊕ G(s−a) : 1 ≤ a ≤ s−1 }` is kept as a bitset row for every `s` still
//!   needed. A three-heap split of `R` has a smallest part `a ≤ R/3`, and the other two parts
//!   are any two-heap split of `R − a`, so `X3(R) = ⋃_{a ≤ R/3} (G(a) ⊕ X2(R−a))`; the XOR
//!   translation of a bitset is a word permutation plus an in-word bit permutation
//!   (`bitset::or_xor_translated`). Cost per heap: O(R/3 · words) instead of O(R²).
//! * A recurring class `u ≡ u_j (mod t), u ≥ u_j` excludes `⋃_k X_h(n − u_j − k·t)`. With
//!   `Cum_h(r) = X_h(r) ∪ Cum_h(r − t)` that is one row, `Cum_h(n − u_j)`; the rows for the
//!   last `t` values of `r` live in a ring indexed by `r mod t` and are updated in place.

use super::bitset::{self, or_into, or_xor_translated, Rows};
use super::rules::Rules;
use crate::octal::error::OctalError;
use crate::octal::values::Cell;

/// Working-memory cap for the rows kept here (in 64-bit words; 2^25 words = 256 MiB).
pub(crate) const MAX_SET_WORDS: usize = 1 << 25;

#[derive(Debug, Clone)]
pub(crate) struct SetState {
    words: usize,
    /// X2 rows (only when `rules.needs_sets()`).
    x2: Option<Rows>,
    /// `rings[h]`: t rows of `Cum_h` for recurring classes with bit h (h = 1, 2, 3).
    rings: [Option<Rows>; 4],
    /// Scratch row for X3 of the recurring update.
    scratch: Vec<u64>,
}

impl SetState {
    /// `None` when the game needs neither (finite code without three-heap splits).
    pub fn new(rules: &Rules, words: usize) -> Option<SetState> {
        let x2 = rules.needs_sets().then(|| Rows::new(words));
        let mut rings: [Option<Rows>; 4] = Default::default();
        if let Some(rec) = &rules.recurring {
            for (ring, class) in rings.iter_mut().zip(&rec.classes).skip(1) {
                if !class.is_empty() {
                    let mut rows = Rows::new(words);
                    for _ in 0..rec.t {
                        rows.push();
                    }
                    *ring = Some(rows);
                }
            }
        }
        if x2.is_none() && rings.iter().all(Option::is_none) {
            return None;
        }
        Some(SetState {
            words,
            x2,
            rings,
            scratch: vec![0; words],
        })
    }

    /// True when finite two-heap digits with `u ≥ 0` are answered from X2 rows.
    pub fn has_x2(&self) -> bool {
        self.x2.is_some()
    }

    /// Brings the rows up to date before G(n) is computed (`g` holds G(0..n)).
    pub fn prepare<T: Cell>(
        &mut self,
        g: &[T],
        n: usize,
        words: usize,
        rules: &Rules,
    ) -> Result<(), OctalError> {
        if words > self.words {
            self.words = words;
            self.scratch = vec![0; words];
            if let Some(x2) = &mut self.x2 {
                x2.widen(words);
            }
            for ring in self.rings.iter_mut().flatten() {
                ring.widen(words);
            }
        }
        let low = Self::watermark(n, rules);
        if let Some(x2) = &mut self.x2 {
            if x2.end() == 0 {
                x2.base = low;
            }
            while x2.end() <= n {
                let s = x2.end();
                let row = x2.push();
                for a in 1..=s / 2 {
                    bitset::set(row, g[a].get() ^ g[s - a].get());
                }
            }
            x2.drop_below(low);
            if x2.stored_words() > MAX_SET_WORDS {
                return Err(OctalError::MemoryLimit {
                    n,
                    words: x2.stored_words(),
                    max: MAX_SET_WORDS,
                });
            }
        }
        if let Some(rec) = &rules.recurring {
            if n > rec.v {
                let r = n - rec.v - 1;
                let slot = r % rec.t;
                if let Some(ring) = &mut self.rings[1] {
                    if r >= 1 {
                        let k = slot * ring.words;
                        bitset::set(&mut ring.data[k..k + ring.words], g[r].get());
                    }
                }
                if self.rings[2].is_some() {
                    let row: Vec<u64> = self.x2_row(r).to_vec();
                    if let Some(ring) = &mut self.rings[2] {
                        let k = slot * ring.words;
                        or_into(&mut ring.data[k..k + ring.words], &row);
                    }
                }
                if self.rings[3].is_some() {
                    let mut tmp = std::mem::take(&mut self.scratch);
                    tmp.iter_mut().for_each(|w| *w = 0);
                    self.or_x3(g, r, &mut tmp);
                    if let Some(ring) = &mut self.rings[3] {
                        let k = slot * ring.words;
                        or_into(&mut ring.data[k..k + ring.words], &tmp);
                    }
                    self.scratch = tmp;
                }
            }
        }
        Ok(())
    }

    /// Lowest X2 row any heap ≥ n will still read.
    fn watermark(n: usize, rules: &Rules) -> usize {
        let mut low = n;
        for &u in &rules.twos {
            if u >= 0 {
                low = low.min(n.saturating_sub(u as usize));
            }
        }
        let three_low = |r: usize| r - r / 3;
        for &u in &rules.threes_free {
            let r = (n as i64 - u).max(0) as usize;
            low = low.min(three_low(r).saturating_sub(1));
        }
        if let Some(rec) = &rules.recurring {
            let r = n.saturating_sub(rec.v + 1);
            if !rec.classes[2].is_empty() {
                low = low.min(r);
            }
            if !rec.classes[3].is_empty() {
                low = low.min(three_low(r).saturating_sub(1));
            }
        }
        low
    }

    fn x2_row(&self, s: usize) -> &[u64] {
        match &self.x2 {
            Some(x2) if s >= x2.base && s < x2.end() => x2.row(s),
            _ => &[],
        }
    }

    /// `dst |= X3(r)`.
    fn or_x3<T: Cell>(&self, g: &[T], r: usize, dst: &mut [u64]) {
        for (a, &ga) in g.iter().enumerate().take(r / 3 + 1).skip(1) {
            let row = self.x2_row(r - a);
            if !row.is_empty() {
                or_xor_translated(dst, row, ga.get());
            }
        }
    }

    /// Adds the exclusions of three-heap digits with `u ≥ −1`, two-heap digits with `u ≥ 0`
    /// (when X2 rows are kept) and all recurring classes, for heap `n`.
    pub fn exclude<T: Cell>(&self, g: &[T], n: usize, rules: &Rules, excl: &mut [u64]) {
        if self.x2.is_some() {
            for &u in &rules.twos {
                if u >= 0 && (u as usize) + 2 <= n {
                    or_into(excl, self.x2_row(n - u as usize));
                }
            }
            for &u in &rules.threes_free {
                let r = n as i64 - u;
                if r >= 3 {
                    self.or_x3(g, r as usize, excl);
                }
            }
        }
        if let Some(rec) = &rules.recurring {
            for h in 1..4 {
                let Some(ring) = &self.rings[h] else { continue };
                for &j in &rec.classes[h] {
                    let first = rec.v + 1 + j;
                    if n >= first + h {
                        let slot = (n - first) % rec.t;
                        or_into(excl, &ring.data[slot * ring.words..(slot + 1) * ring.words]);
                    }
                }
            }
        }
    }
}
