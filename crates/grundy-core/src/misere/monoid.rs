//! Finite commutative monoids given by their multiplication tables, and words over heaps.
//!
//! Every quotient and candidate of this module is a finite commutative monoid whose elements
//! are numbered `0..size` with `0` the identity; products are read from a `size × size`
//! table. Elements are numbered in the lexicographic order of their least words (below), so
//! the numbering is canonical for a given game and bound.
//!
//! **Words.** A position (a multiset of heaps) is a *word*: the exponent `e_n` of every heap
//! size `n`. Words are ordered *lexicographically from the largest heap down*: `v < w` when,
//! at the largest heap where they differ, `v` has fewer copies. This is a well-order, it is
//! invariant under adding a word to both sides, and every option of a word is smaller than
//! the word (a move replaces one heap by smaller heaps). MisereSolver (Plambeck & Siegel 2008,
//! supplement, appendix C) uses the same order; it makes "the least word of an element" and "the least
//! failure of a candidate" well defined.

use std::cmp::Ordering;

/// A finite commutative monoid: elements `0..size`, `0` the identity, products in a table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Monoid {
    size: usize,
    table: Vec<u32>,
}

impl Monoid {
    /// The one-element monoid `{1}`.
    pub fn trivial() -> Monoid {
        Monoid {
            size: 1,
            table: vec![0],
        }
    }

    /// A monoid from a row-major `size × size` table (callers guarantee the axioms).
    pub(crate) fn from_table(size: usize, table: Vec<u32>) -> Monoid {
        Monoid { size, table }
    }

    /// Number of elements.
    pub fn size(&self) -> usize {
        self.size
    }

    /// The product `a·b`.
    #[inline]
    pub fn mul(&self, a: u32, b: u32) -> u32 {
        self.table[a as usize * self.size + b as usize]
    }

    /// The row-major multiplication table.
    pub fn table(&self) -> &[u32] {
        &self.table
    }

    /// `x^k`.
    pub fn pow(&self, x: u32, k: u64) -> u32 {
        let (mut acc, mut base, mut k) = (0u32, x, k);
        while k > 0 {
            if k & 1 == 1 {
                acc = self.mul(acc, base);
            }
            base = self.mul(base, base);
            k >>= 1;
        }
        acc
    }

    /// The index and period of `x`: the least `m ≥ 0` and then the least `p ≥ 1` with
    /// `x^(m+p) = x^m`.
    pub fn index_period(&self, x: u32) -> (u32, u32) {
        let mut powers: Vec<u32> = vec![0];
        loop {
            let next = self.mul(*powers.last().unwrap_or(&0), x);
            if let Some(m) = powers.iter().position(|&y| y == next) {
                return (m as u32, (powers.len() - m) as u32);
            }
            powers.push(next);
        }
    }
}

/// A word: `(heap, exponent)` pairs with positive exponents, heaps strictly decreasing.
pub type Word = Vec<(u64, u32)>;

/// The lexicographic order of words described in the module documentation.
pub fn word_cmp(a: &[(u64, u32)], b: &[(u64, u32)]) -> Ordering {
    for (x, y) in a.iter().zip(b) {
        if x.0 != y.0 {
            // The word with the larger heap has copies of it where the other has none.
            return x.0.cmp(&y.0);
        }
        if x.1 != y.1 {
            return x.1.cmp(&y.1);
        }
    }
    a.len().cmp(&b.len())
}

/// `w` with `k` more copies of `heap`.
pub fn word_add(w: &[(u64, u32)], heap: u64, k: u32) -> Word {
    let mut out: Word = Vec::with_capacity(w.len() + 1);
    let mut placed = k == 0;
    for &(h, e) in w {
        if !placed && h < heap {
            out.push((heap, k));
            placed = true;
        }
        if h == heap {
            out.push((h, e + k));
            placed = true;
        } else {
            out.push((h, e));
        }
    }
    if !placed {
        out.push((heap, k));
    }
    out
}

/// The heaps of a word, ascending, each repeated by its exponent.
pub fn word_heaps(w: &[(u64, u32)]) -> Vec<u64> {
    let mut out = Vec::new();
    for &(h, e) in w.iter().rev() {
        for _ in 0..e {
            out.push(h);
        }
    }
    out
}

/// The word of a list of heaps (zero heaps dropped).
#[cfg(test)]
pub fn word_of(heaps: &[u64]) -> Word {
    let mut hs: Vec<u64> = heaps.iter().copied().filter(|&h| h > 0).collect();
    hs.sort_unstable_by(|a, b| b.cmp(a));
    let mut out: Word = Vec::new();
    for h in hs {
        match out.last_mut() {
            Some(last) if last.0 == h => last.1 += 1,
            _ => out.push((h, 1)),
        }
    }
    out
}

/// A set of monoid elements as a bitset of `words` 64-bit words.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct BitSet {
    pub(crate) bits: Vec<u64>,
}

impl BitSet {
    pub(crate) fn new(size: usize) -> BitSet {
        BitSet {
            bits: vec![0; size.div_ceil(64).max(1)],
        }
    }
    #[inline]
    pub(crate) fn insert(&mut self, x: u32) {
        self.bits[(x >> 6) as usize] |= 1u64 << (x & 63);
    }
    #[inline]
    pub(crate) fn contains(&self, x: u32) -> bool {
        self.bits[(x >> 6) as usize] >> (x & 63) & 1 == 1
    }
    pub(crate) fn intersects(&self, other: &BitSet) -> bool {
        self.bits.iter().zip(&other.bits).any(|(a, b)| a & b != 0)
    }
    pub(crate) fn is_subset(&self, other: &BitSet) -> bool {
        self.bits.iter().zip(&other.bits).all(|(a, b)| a & !b == 0)
    }
    pub(crate) fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.bits.iter().enumerate().flat_map(|(i, &w)| {
            let mut w = w;
            std::iter::from_fn(move || {
                if w == 0 {
                    return None;
                }
                let b = w.trailing_zeros();
                w &= w - 1;
                Some((i as u32) << 6 | b)
            })
        })
    }
    pub(crate) fn clear(&mut self) {
        self.bits.iter_mut().for_each(|w| *w = 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_order_is_lexicographic_from_the_largest_heap() {
        let w = |hs: &[u64]| word_of(hs);
        // Any word without heap 5 is below [5].
        assert_eq!(word_cmp(&w(&[4, 4, 4, 4, 3]), &w(&[5])), Ordering::Less);
        assert_eq!(word_cmp(&w(&[5, 1]), &w(&[5, 2])), Ordering::Less);
        assert_eq!(word_cmp(&w(&[5, 2]), &w(&[5, 2, 1])), Ordering::Less);
        assert_eq!(word_cmp(&w(&[2, 5]), &w(&[5, 2])), Ordering::Equal);
        assert_eq!(word_cmp(&w(&[]), &w(&[1])), Ordering::Less);
        assert_eq!(word_add(&w(&[5, 2]), 3, 2), w(&[5, 3, 3, 2]));
        assert_eq!(word_add(&w(&[5, 2]), 5, 1), w(&[5, 5, 2]));
        assert_eq!(word_add(&w(&[5, 2]), 1, 1), w(&[5, 2, 1]));
        assert_eq!(word_add(&w(&[5, 2]), 9, 1), w(&[9, 5, 2]));
        assert_eq!(word_heaps(&w(&[5, 2, 5, 0])), vec![2, 5, 5]);
    }

    #[test]
    fn index_and_period() {
        // The cyclic monoid x^4 = x^2: {1, x, x², x³}.
        let t = vec![0, 1, 2, 3, 1, 2, 3, 2, 2, 3, 2, 3, 3, 2, 3, 2];
        let m = Monoid::from_table(4, t);
        assert_eq!(m.index_period(1), (2, 2));
        assert_eq!(m.index_period(2), (1, 1));
        assert_eq!(m.index_period(0), (0, 1));
        assert_eq!(m.pow(1, 5), 3);
    }
}
