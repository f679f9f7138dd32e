//! Bitsets over Grundy values, plus the XOR-translation used for three-heap splits.
//!
//! A set of values below `64 · words` is a `[u64]` of `words` words. `words` is always a power
//! of two, so for `x < 64 · words` the map `v ↦ v ⊕ x` permutes the words by `w ↦ w ⊕ (x >> 6)`
//! and the bits inside each word by `i ↦ i ⊕ (x & 63)`.

/// Adds `x` to the set (caller guarantees `x < 64 · bits.len()`).
#[inline(always)]
pub(crate) fn set(bits: &mut [u64], x: u32) {
    bits[(x >> 6) as usize] |= 1u64 << (x & 63);
}

/// Tests membership (`false` beyond the end).
#[cfg(test)]
pub(crate) fn get(bits: &[u64], x: u32) -> bool {
    bits.get((x >> 6) as usize)
        .is_some_and(|w| w >> (x & 63) & 1 == 1)
}

/// The least value not in the set.
#[inline]
pub(crate) fn mex(bits: &[u64]) -> u32 {
    for (i, &w) in bits.iter().enumerate() {
        if w != u64::MAX {
            return (i as u32) * 64 + (!w).trailing_zeros();
        }
    }
    bits.len() as u32 * 64
}

/// Moves bit `i` of `w` to bit `i ⊕ c` (c < 64): one conditional block swap per bit of `c`.
#[inline(always)]
pub(crate) fn permute_word(mut w: u64, c: u32) -> u64 {
    const MASKS: [u64; 6] = [
        0x5555_5555_5555_5555,
        0x3333_3333_3333_3333,
        0x0F0F_0F0F_0F0F_0F0F,
        0x00FF_00FF_00FF_00FF,
        0x0000_FFFF_0000_FFFF,
        0x0000_0000_FFFF_FFFF,
    ];
    for (k, &m) in MASKS.iter().enumerate() {
        if c >> k & 1 == 1 {
            let s = 1u32 << k;
            w = ((w & m) << s) | ((w >> s) & m);
        }
    }
    w
}

/// `dst |= { v ⊕ x : v ∈ src }` for equally long power-of-two slices and `x < 64 · len`.
#[inline]
pub(crate) fn or_xor_translated(dst: &mut [u64], src: &[u64], x: u32) {
    let hi = (x >> 6) as usize;
    let lo = x & 63;
    for (w, &s) in src.iter().enumerate() {
        if s != 0 {
            dst[w ^ hi] |= permute_word(s, lo);
        }
    }
}

/// `dst |= src` (src may be shorter).
#[inline]
pub(crate) fn or_into(dst: &mut [u64], src: &[u64]) {
    for (d, &s) in dst.iter_mut().zip(src) {
        *d |= s;
    }
}

/// Fixed-width rows of bitsets with absolute row indices `base..base + len`; rows below a
/// watermark can be dropped, and every row can be widened when values outgrow the width.
#[derive(Debug, Clone, Default)]
pub(crate) struct Rows {
    pub words: usize,
    pub base: usize,
    pub data: Vec<u64>,
}

impl Rows {
    pub fn new(words: usize) -> Rows {
        Rows {
            words,
            base: 0,
            data: Vec::new(),
        }
    }
    /// One past the last stored row.
    pub fn end(&self) -> usize {
        self.base + self.data.len() / self.words
    }
    pub fn row(&self, i: usize) -> &[u64] {
        let k = (i - self.base) * self.words;
        &self.data[k..k + self.words]
    }
    /// Appends a zero row (absolute index `end()`) and returns it.
    pub fn push(&mut self) -> &mut [u64] {
        let k = self.data.len();
        self.data.resize(k + self.words, 0);
        &mut self.data[k..]
    }
    /// Forgets rows below `i`.
    pub fn drop_below(&mut self, i: usize) {
        if i > self.base {
            let k = (i.min(self.end()) - self.base) * self.words;
            self.data.drain(..k);
            self.base = i.min(self.end()).max(self.base);
        }
    }
    /// Zero-extends every row to `words` words.
    pub fn widen(&mut self, words: usize) {
        if words <= self.words {
            return;
        }
        let rows = self.data.len() / self.words;
        let mut data = vec![0u64; rows * words];
        for r in 0..rows {
            data[r * words..r * words + self.words]
                .copy_from_slice(&self.data[r * self.words..(r + 1) * self.words]);
        }
        self.data = data;
        self.words = words;
    }
    /// Number of stored words (for memory accounting).
    pub fn stored_words(&self) -> usize {
        self.data.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permute_is_xor() {
        let mut seed = 0x1234_5678_9abc_def0u64;
        for _ in 0..200 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let w = seed;
            let c = (seed >> 58) as u32;
            let p = permute_word(w, c);
            for i in 0..64u32 {
                assert_eq!(w >> i & 1, p >> (i ^ c) & 1);
            }
        }
        let mut src = vec![0u64; 4];
        set(&mut src, 3);
        set(&mut src, 200);
        let mut dst = vec![0u64; 4];
        or_xor_translated(&mut dst, &src, 77);
        assert!(get(&dst, 3 ^ 77) && get(&dst, 200 ^ 77));
        assert_eq!(dst.iter().map(|w| w.count_ones()).sum::<u32>(), 2);
        assert_eq!(mex(&[u64::MAX, 0b1011]), 66);
    }

    #[test]
    fn rows_window() {
        let mut r = Rows::new(1);
        for i in 0..10 {
            r.push()[0] = i;
        }
        r.drop_below(4);
        assert_eq!(r.base, 4);
        assert_eq!(r.row(7)[0], 7);
        r.widen(2);
        assert_eq!(r.row(9), &[9, 0]);
        assert_eq!(r.end(), 10);
    }
}
