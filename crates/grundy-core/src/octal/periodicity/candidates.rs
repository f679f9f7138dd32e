//! The detector's candidates: the periods of the suffixes of δ that a proof may start from.
//!
//! Let `s` be the last `w` differences read backwards, `s[k] = δ(dlen − 1 − k)` (δ(i) =
//! G(i+1) − G(i), `dlen` differences in all), and per(m) the least period of `s[0..m)` (a
//! suffix of δ of length m). The candidates are the pairs `(q, m)`: for each q that is per(m)
//! of some m ≥ 2q, the longest such m. [`candidates`] finds them by squares, [`by_kmp`] (the
//! prefix function, one O(w) pass on one thread) is its fallback and its oracle in the tests.
//!
//! **By squares.** Write Z(q) for the longest common prefix of `s` and `s[q..]`, and
//! reach(q) = q + Z(q): q is a period of `s[0..m)` exactly when m ≤ reach(q), so per(m) is the
//! least q with reach(q) ≥ m. Hence q is a candidate exactly when `s[0..2q)` is a square
//! (Z(q) ≥ q) and reach(q) exceeds every reach(q′), q′ < q; its m is reach(q). Two facts make
//! the search cheap:
//! - After a candidate P of reach R (the largest so far, R ≥ 2P, per(R) = P) the next one is past
//!   R − P + 1. A candidate q ≤ R has reach(q) > R, so `s[0..R)` has the periods P and q; were
//!   R ≥ P + q − gcd(P, q), Fine and Wilf would make gcd(P, q) one, so P would divide q, and
//!   then `s[0..reach(P))` has period q and its first mismatch is q's too: reach(q) = R, not
//!   more. So R < P + q − gcd(P, q), q ≥ R − P + 2: the search goes on there, and a multiple
//!   q < R of P met after it has Z(q) = R − q < q without a comparison.
//! - A q that is no square shows it at its first mismatch, usually at once: G values differ.
//!
//! A non-square's reach is below 2q, so it never hides a later square (whose reach is 2q at
//! least); the squares are met in
//! order, and each one's reach is compared with the largest so far. Typical cost: about one
//! comparison for each q up to w/2, no buffer, against the prefix function's several per entry
//! of a reversed copy. Sequences that make comparisons pile up (long near-periodic stretches
//! with a long least period, or runs of equal differences after a longer run) exceed a budget
//! of comparisons, and the prefix function answers.

use crate::octal::values::Cell;

/// The candidates `(q, m)` of the last `w` differences of `g`, ascending in q (see the module
/// docs); `scratch` holds the prefix function's buffers when it is needed.
pub(super) fn candidates<T: Cell>(g: &[T], w: usize, scratch: &mut Scratch) -> Vec<(usize, usize)> {
    by_squares(g, w, 16 * w + 4096).unwrap_or_else(|| by_kmp(g, w, scratch))
}

/// The prefix function's buffers: the reversed tail of differences and its prefix function,
/// kept from pass to pass (8 MiB each at the full window: made afresh, every pass would fault
/// its pages in again).
#[derive(Debug, Clone, Default)]
pub(super) struct Scratch {
    s: Vec<u32>,
    pi: Vec<u32>,
}

/// The candidates by squares, or None once more than `budget` comparisons were needed.
pub(super) fn by_squares<T: Cell>(g: &[T], w: usize, budget: usize) -> Option<Vec<(usize, usize)>> {
    let mut cands: Vec<(usize, usize)> = Vec::new();
    if w == 0 {
        return Some(cands);
    }
    let dlen = g.len() - 1;
    debug_assert!(w <= dlen);
    // s[k], read from the values (no copy): δ(dlen − 1 − k).
    let s = |k: usize| {
        let i = dlen - 1 - k;
        g[i + 1].get().wrapping_sub(g[i].get())
    };
    let s0 = s(0);
    let mut work = 0usize;
    // The candidate with the largest reach so far, and that reach (0: none yet).
    let (mut p, mut r) = (0usize, 0usize);
    let mut q = 1;
    while 2 * q <= w {
        if p > 0 && q + p < r + 2 {
            q = r + 2 - p;
            continue;
        }
        if q < r && q % p == 0 {
            q += 1; // Z(q) = r − q < q
            continue;
        }
        if s(q) != s0 {
            work += 1;
            q += 1;
            continue;
        }
        // Z(q), first up to q (a square?), then on to its end if it is one.
        let mut i = 1;
        while i < q && s(i) == s(q + i) {
            i += 1;
        }
        if i == q {
            while q + i < w && s(i) == s(q + i) {
                i += 1;
            }
            if q + i > r {
                cands.push((q, q + i));
                (p, r) = (q, q + i);
            }
        }
        work += i + 1;
        if work > budget {
            return None;
        }
        q += 1;
    }
    Some(cands)
}

/// The candidates by the prefix function of `s`, copied out of `g` (one forward pass over the
/// differences, reversed in place).
pub(super) fn by_kmp<T: Cell>(g: &[T], w: usize, scratch: &mut Scratch) -> Vec<(usize, usize)> {
    let Scratch { s, pi } = scratch;
    s.clear();
    s.extend(
        g[g.len() - 1 - w..]
            .windows(2)
            .map(|p| p[1].get().wrapping_sub(p[0].get())),
    );
    s.reverse();
    pi.clear();
    pi.resize(w, 0);
    for k in 1..w {
        let sk = s[k];
        let mut j = pi[k - 1] as usize;
        while j > 0 && sk != s[j] {
            j = pi[j - 1] as usize;
        }
        if sk == s[j] {
            j += 1;
        }
        pi[k] = j as u32;
    }
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
    cands
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::octal::naive::tests::Rng;

    fn both(g: &[u8], w: usize) {
        let mut scratch = Scratch::default();
        let want = by_kmp(g, w, &mut scratch);
        let got = by_squares(g, w, usize::MAX).expect("no budget");
        assert_eq!(got, want, "w = {w}, g = {g:?}");
        assert_eq!(candidates(g, w, &mut scratch), want);
        // A budget too small for the squares: the prefix function answers, the same.
        if by_squares(g, w, 0).is_none() {
            assert_eq!(candidates(g, w, &mut scratch), want);
        }
    }

    /// Every sequence over {0, 1} of length up to 14 (differences over small alphabets have
    /// the most squares), every window.
    #[test]
    fn squares_find_the_prefix_functions_candidates_on_every_short_binary_sequence() {
        for len in 2..=14 {
            for bits in 0u32..1 << len {
                let g: Vec<u8> = (0..len).map(|i| (bits >> i & 1) as u8).collect();
                for w in 0..len {
                    both(&g, w);
                }
            }
        }
    }

    /// Random, periodic-with-noise, Fibonacci, Thue–Morse and constant sequences, long.
    #[test]
    fn squares_find_the_prefix_functions_candidates_on_structured_sequences() {
        let mut rng = Rng(7);
        let mut seqs: Vec<Vec<u8>> = Vec::new();
        for alphabet in [2u64, 3, 5, 64] {
            seqs.push((0..5000).map(|_| (rng.next() % alphabet) as u8).collect());
        }
        for p in [1usize, 2, 3, 7, 12, 100, 701] {
            for alphabet in [2u64, 4, 200] {
                let block: Vec<u8> = (0..p).map(|_| (rng.next() % alphabet) as u8).collect();
                let pre = (rng.next() % 900) as usize;
                let mut g: Vec<u8> = (0..pre).map(|_| (rng.next() % alphabet) as u8).collect();
                g.extend((0..6000).map(|i| block[i % p]));
                seqs.push(g.clone());
                // A few changed values inside the periodic stretch.
                for _ in 0..3 {
                    let i = (rng.next() as usize) % g.len();
                    g[i] = g[i].wrapping_add(1);
                    seqs.push(g.clone());
                }
            }
        }
        // Fibonacci and Thue–Morse words, as values (cumulative sums keep their δ).
        let mut fib = vec![0u8];
        let mut prev = vec![1u8];
        while fib.len() < 5000 {
            let next = [fib.clone(), prev.clone()].concat();
            prev = fib;
            fib = next;
        }
        let tm: Vec<u8> = (0..5000u32).map(|i| (i.count_ones() & 1) as u8).collect();
        for word in [fib, tm] {
            let mut acc = 0u8;
            seqs.push(
                word.iter()
                    .map(|&b| {
                        acc = acc.wrapping_add(b);
                        acc
                    })
                    .collect(),
            );
            seqs.push(word);
        }
        seqs.push(vec![3; 3000]);
        for g in &seqs {
            let dlen = g.len() - 1;
            for w in [1, 2, 3, 10, 99, 1000, dlen / 2, dlen - 1, dlen] {
                both(g, w.min(dlen));
            }
        }
    }

    /// Long runs of equal differences (zero) after a longer one cost the squares a comparison
    /// per remaining entry of the run for every q inside it: past the budget, the prefix
    /// function answers, the same.
    #[test]
    fn past_the_budget_the_prefix_function_answers() {
        let mut rng = Rng(11);
        // s: 2,000 zeros, then runs of 999 zeros each after a random nonzero difference.
        let mut s = vec![0u8; 2000];
        while s.len() < 60_000 {
            s.push(1 + (rng.next() % 255) as u8);
            s.extend([0u8; 999]);
        }
        // g from δ(i) = s[dlen − 1 − i].
        let dlen = s.len();
        let mut g = vec![0u8; dlen + 1];
        for i in 0..dlen {
            g[i + 1] = g[i].wrapping_add(s[dlen - 1 - i]);
        }
        let w = dlen;
        assert!(by_squares(&g, w, 16 * w).is_none());
        let mut scratch = Scratch::default();
        let want = by_kmp(&g, w, &mut scratch);
        assert_eq!(by_squares(&g, w, usize::MAX), Some(want.clone()));
        assert_eq!(candidates(&g, w, &mut scratch), want);
    }
}
