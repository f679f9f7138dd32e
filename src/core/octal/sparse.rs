//! The rare/common ("sparse space") method for two-heap splits.
//!
//! Pick a mask `M`. A value `v` is *rare* when `popcount(v & M)` is even and *common* otherwise.
//! Rare values form a subgroup `R` of index 2 under ⊕ and common values its coset `C`, so
//! `x ⊕ y` is common exactly when one of `x, y` is rare. Hence:
//!
//! 1. every common value excluded by a two-heap split comes from a pair with a rare part, so
//!    looping over the (few) rare positions finds *all* excluded common values; let `c` be the
//!    least common value not excluded (other move types have already been marked in full);
//! 2. G(n) ≤ c, and G(n) < c only if some rare value below `c` is not excluded. Rare values are
//!    usually excluded by early splits, so we scan splits `a = lo, lo+1, …` until every rare
//!    value below `c` has been seen; only when the scan runs to the end is G(n) rare.
//!
//! Nothing here depends on the mask being a good one — a bad mask only costs time — so the
//! engine may switch masks whenever the value statistics suggest a better one
//! ([`best_mask`], a Walsh–Hadamard transform of the value counts).

/// Least number of split pairs marked between two filterings of the missing rare values.
const BATCH: usize = 32;

#[derive(Debug, Clone)]
pub(crate) struct Sparse {
    pub mask: u32,
    /// Positions `a ≥ 1` whose value is rare, ascending, and their values (same order; the
    /// values of rare positions never change, so keeping them contiguous saves a gather).
    pub rare: Vec<u32>,
    rare_vals: Vec<u16>,
    /// All rare / all common values below `64·words`, ascending.
    rare_list: Vec<u32>,
    common_list: Vec<u32>,
    /// `mark[x] == stamp` ⇔ x is excluded for the current heap (no clearing between heaps).
    mark: Vec<u32>,
    /// The next heap's marks when two heaps' rare pairs are marked together.
    mark_next: Vec<u32>,
    premarked: Option<usize>,
    stamp: u32,
    missing: Vec<u32>,
    /// `firsts[v]`: the first [`PROBES_PER_VALUE`] positions with value v.
    firsts: Vec<Vec<u32>>,
    /// Probe order for the rare check (positions and their values): the first occurrence of
    /// every common value, then the second of each, and so on. Pairs with a part of diverse
    /// value cover the rare nim-sums about 2.5 times faster than scanning a = 1, 2, … (.6).
    probe: Vec<u32>,
    probe_vals: Vec<u16>,
    /// Heap at which the probe list was last rebuilt (a stale list is only slower).
    probe_built: usize,
    probe_dirty: bool,
    probe_min: usize,
    probe_max: usize,
    /// The values as u16 (sparse mode only runs while every value is below 2^16): half the
    /// cache footprint of the u32 values for the random accesses of the loops below.
    g16: Vec<u16>,
    /// Statistics: heaps whose rare check needed a scan, and total split pairs scanned for it.
    pub scans: u64,
    pub scanned_pairs: u64,
}

/// Occurrences per common value in the probe list.
const PROBES_PER_VALUE: usize = 16;

impl Sparse {
    pub fn new(mask: u32, g: &[u32], words: usize) -> Sparse {
        let mut s = Sparse {
            mask,
            rare: Vec::new(),
            rare_vals: Vec::new(),
            rare_list: Vec::new(),
            common_list: Vec::new(),
            mark: Vec::new(),
            mark_next: Vec::new(),
            premarked: None,
            stamp: 0,
            missing: Vec::new(),
            g16: Vec::new(),
            firsts: Vec::new(),
            probe: Vec::new(),
            probe_vals: Vec::new(),
            probe_built: 0,
            probe_dirty: true,
            probe_min: 0,
            probe_max: 0,
            scans: 0,
            scanned_pairs: 0,
        };
        s.widen(words);
        s.g16.reserve(g.len());
        for (a, &v) in g.iter().enumerate() {
            s.push(a, v);
        }
        s
    }

    #[inline(always)]
    pub fn is_rare(&self, v: u32) -> bool {
        (v & self.mask).count_ones() & 1 == 0
    }

    /// Rebuilds the value tables for a new width.
    pub fn widen(&mut self, words: usize) {
        let nbits = (words * 64) as u32;
        self.rare_list = (0..nbits).filter(|&v| self.is_rare(v)).collect();
        self.common_list = (0..nbits).filter(|&v| !self.is_rare(v)).collect();
        self.mark = vec![0; nbits as usize];
        self.mark_next = vec![0; nbits as usize];
        self.stamp = 0;
        self.premarked = None;
    }

    /// Records G(n) = v.
    pub fn push(&mut self, n: usize, v: u32) {
        debug_assert_eq!(self.g16.len(), n);
        self.g16.push(v as u16);
        if n == 0 {
            return;
        }
        if self.is_rare(v) {
            self.rare.push(n as u32);
            self.rare_vals.push(v as u16);
        }
        let v = v as usize;
        if v >= self.firsts.len() {
            self.firsts.resize(v + 1, Vec::new());
        }
        if self.firsts[v].len() < PROBES_PER_VALUE {
            self.firsts[v].push(n as u32);
            self.probe_dirty = true;
        }
    }

    fn rebuild_probe(&mut self, n: usize, g: &[u16]) {
        self.probe_dirty = false;
        self.probe.clear();
        self.probe_vals.clear();
        // Only positions ≤ n/2: they stay inside [1, r/2] for every later heap, so the probe
        // loop needs no range test.
        for i in 0..PROBES_PER_VALUE {
            for (v, list) in self.firsts.iter().enumerate() {
                if i < list.len() && list[i] as usize > n / 2 {
                    self.probe_dirty = true; // include it once it is in range
                    continue;
                }
                if i < list.len() && !self.is_rare(v as u32) {
                    self.probe.push(list[i]);
                    self.probe_vals.push(g[list[i] as usize]);
                }
            }
        }
        self.probe_min = self.probe.iter().copied().min().unwrap_or(0) as usize;
        self.probe_max = self.probe.iter().copied().max().unwrap_or(0) as usize;
        self.probe_built = n;
    }

    /// G(n), given `excl` with every exclusion except the finite two-heap digits `twos`
    /// (`u < 0` means the parts must stay below n: the smaller part is ≥ 1 − u).
    pub fn step(&mut self, _g: &[u32], n: usize, twos: &[i64], excl: &[u64]) -> u32 {
        let g16 = std::mem::take(&mut self.g16);
        let v = self.step16(&g16, n, twos, excl);
        self.g16 = g16;
        v
    }

    fn step16(&mut self, g: &[u16], n: usize, twos: &[i64], excl: &[u64]) -> u32 {
        if self.stamp >= u32::MAX - 2 {
            self.mark.iter_mut().for_each(|m| *m = 0);
            self.mark_next.iter_mut().for_each(|m| *m = 0);
            self.stamp = 0;
            self.premarked = None;
        }
        let wrap = self.mark.len() - 1; // a power of two above every possible nim-sum
        let stamp;
        if self.premarked == Some(n) {
            // The rare pairs of this heap were marked together with the previous heap's.
            std::mem::swap(&mut self.mark, &mut self.mark_next);
            stamp = self.stamp;
            self.premarked = None;
        } else if twos.iter().all(|&u| u >= 1 && n as i64 - u >= 2) {
            // (1) pairs with a rare part, for heaps n and n+1 at once: with u ≥ 1 the partners
            // of n+1 are all below n, and the shared loads halve the loop's memory traffic.
            let (s0, s1) = (self.stamp + 1, self.stamp + 2);
            self.stamp = s1;
            stamp = s0;
            self.premarked = Some(n + 1);
            let (mark, next) = (&mut self.mark[..], &mut self.mark_next[..]);
            for &u in twos {
                let r = n - u as usize;
                let end = self.rare.partition_point(|&a| (a as usize) < r);
                mark_rare_pairs2(
                    &self.rare[..end],
                    &self.rare_vals[..end],
                    &g[..=r],
                    mark,
                    next,
                    s0,
                    s1,
                );
                // Heap n+1 also has the pair (r, 1) when r itself is a rare position.
                if let Some(&va) = self
                    .rare_vals
                    .get(end)
                    .filter(|_| self.rare.get(end) == Some(&(r as u32)))
                {
                    next[(va ^ g[1]) as usize & wrap] = s1;
                }
            }
        } else {
            self.stamp += 1;
            stamp = self.stamp;
            let mark = &mut self.mark[..];
            for &u in twos {
                let Some((r, lo)) = split_range(n, u) else {
                    continue;
                };
                let hi = r - lo;
                let end = self.rare.partition_point(|&a| a as usize <= hi);
                let start = self.rare[..end].partition_point(|&a| (a as usize) < lo);
                mark_rare_pairs(
                    &self.rare[start..end],
                    &self.rare_vals[start..end],
                    g,
                    r,
                    mark,
                    stamp,
                );
            }
        }
        let mark = &mut self.mark[..];
        for (w, &bits) in excl.iter().enumerate() {
            let mut b = bits;
            while b != 0 {
                mark[w * 64 + b.trailing_zeros() as usize] = stamp;
                b &= b - 1;
            }
        }
        // Least common value not excluded.
        let Some(&c) = self
            .common_list
            .iter()
            .find(|&&v| mark[v as usize] != stamp)
        else {
            // Cannot happen while the mask is below the value width; stay correct anyway.
            for &u in twos {
                let Some((r, lo)) = split_range(n, u) else {
                    continue;
                };
                for a in lo..=r / 2 {
                    mark[(g[a] ^ g[r - a]) as usize & wrap] = stamp;
                }
            }
            return (0..)
                .find(|&v| mark[v as usize & wrap] != stamp)
                .unwrap_or(0);
        };
        // (2) rare values below c that are not yet excluded.
        let below_c = self.rare_list.partition_point(|&v| v < c);
        self.missing.clear();
        self.missing.extend_from_slice(&self.rare_list[..below_c]);
        drop_marked(&mut self.missing, mark, stamp);
        if self.missing.is_empty() {
            return c;
        }
        self.scans += 1;
        if self.probe_dirty && n >= self.probe_built + 64.max(self.probe_built / 16) {
            self.rebuild_probe(n, g);
        }
        let mark = &mut self.mark[..];
        // Every common value below c is excluded already, so only the missing rare values
        // matter; pairs are marked in batches and the missing list is filtered per batch
        // (a batch at least as long as the list, so filtering costs at most as much as
        // marking). First the probe pairs, then (for completeness) every split in order.
        'scan: {
            for &u in twos {
                let Some((r, lo)) = split_range(n, u) else {
                    continue;
                };
                // All probes are usually inside [lo, r/2]; then the loop needs no test.
                let all_in = self.probe_min >= lo && self.probe_max <= r / 2;
                let mut i = 0;
                while i < self.probe.len() {
                    let end = (i + BATCH.max(self.missing.len())).min(self.probe.len());
                    let (pa, pv) = (&self.probe[i..end], &self.probe_vals[i..end]);
                    if all_in {
                        mark_rare_pairs(pa, pv, g, r, mark, stamp);
                    } else {
                        for (&a, &va) in pa.iter().zip(pv) {
                            let a = a as usize;
                            if a >= lo && a <= r / 2 {
                                mark[(va ^ g[r - a]) as usize & wrap] = stamp;
                            }
                        }
                    }
                    self.scanned_pairs += (end - i) as u64;
                    i = end;
                    drop_marked(&mut self.missing, mark, stamp);
                    if self.missing.is_empty() {
                        break 'scan;
                    }
                }
            }
            for &u in twos {
                let Some((r, lo)) = split_range(n, u) else {
                    continue;
                };
                let mut a = lo;
                while a <= r / 2 {
                    let end = (a + BATCH.max(self.missing.len())).min(r / 2 + 1);
                    let left = &g[a..end];
                    let right = &g[r + 1 - end..=r - a];
                    for (&x, &y) in left.iter().zip(right.iter().rev()) {
                        mark[(x ^ y) as usize & wrap] = stamp;
                    }
                    self.scanned_pairs += (end - a) as u64;
                    a = end;
                    drop_marked(&mut self.missing, mark, stamp);
                    if self.missing.is_empty() {
                        break 'scan;
                    }
                }
            }
        }
        // The missing list is ascending; its head (if any) is the least unexcluded value.
        self.missing.first().copied().unwrap_or(c)
    }
}

/// Removes from `missing` the values marked with `stamp`, keeping the order. Branch-free:
/// whether a value has been found is unpredictable, and mispredictions cost more than the
/// unconditional copies.
#[inline]
fn drop_marked(missing: &mut Vec<u32>, mark: &[u32], stamp: u32) {
    let wrap = mark.len() - 1; // a power of two minus one, above every value
    let mut kept = 0;
    for i in 0..missing.len() {
        let v = missing[i];
        missing[kept] = v;
        kept += usize::from(mark[v as usize & wrap] != stamp);
    }
    missing.truncate(kept);
}

/// `mark[va ⊕ G(r − a)] = stamp` for each listed position `a` (value `va`).
/// Kept out of line so that the hot loop gets all registers to itself.
#[inline(never)]
fn mark_rare_pairs(pos: &[u32], vals: &[u16], g: &[u16], r: usize, mark: &mut [u32], stamp: u32) {
    let wrap = mark.len() - 1; // a power of two minus one
    for (&a, &va) in pos.iter().zip(vals) {
        mark[(va ^ g[r - a as usize]) as usize & wrap] = stamp;
    }
}

/// [`mark_rare_pairs`] for heaps with totals r and r+1 at once (`g` is G(0..=r); every
/// position is below r, so both partners are in `g`).
#[inline(never)]
fn mark_rare_pairs2(
    pos: &[u32],
    vals: &[u16],
    g: &[u16],
    mark: &mut [u32],
    next: &mut [u32],
    s0: u32,
    s1: u32,
) {
    let wrap = mark.len() - 1;
    let next = &mut next[..mark.len()];
    let r = g.len() - 1;
    for (&a, &va) in pos.iter().zip(vals) {
        let b = r - a as usize;
        mark[(va ^ g[b]) as usize & wrap] = s0;
        next[(va ^ g[b + 1]) as usize & wrap] = s1;
    }
}

/// For heap n and a two-heap digit at u: the total `r = n − u` and the least allowed smaller
/// part `lo` (1, or `1 − u` when tokens are added so that both parts stay below n); `None` when
/// no split exists.
#[inline(always)]
pub(crate) fn split_range(n: usize, u: i64) -> Option<(usize, usize)> {
    let r = n as i64 - u;
    let lo = if u < 0 { 1 - u } else { 1 };
    (r >= 2 * lo).then_some((r as usize, lo as usize))
}

/// The mask (≥ 1) with the fewest rare occurrences, and that number. `counts[v]` is how often
/// value `v` occurred (its length is a power of two). Rare count of `M` is
/// `(total + Σ_v counts[v]·(−1)^{popcount(v&M)}) / 2`, a Walsh–Hadamard transform.
pub(crate) fn best_mask(counts: &[u64]) -> (u32, u64) {
    let len = counts.len();
    if len < 2 {
        return (1, counts.iter().sum());
    }
    let mut f: Vec<i64> = counts.iter().map(|&c| c as i64).collect();
    let mut h = 1;
    while h < len {
        for i in (0..len).step_by(2 * h) {
            for j in i..i + h {
                let (x, y) = (f[j], f[j + h]);
                f[j] = x + y;
                f[j + h] = x - y;
            }
        }
        h *= 2;
    }
    let total = f[0];
    let (m, v) = f
        .iter()
        .enumerate()
        .skip(1)
        .min_by_key(|&(_, &v)| v)
        .map_or((1, total), |(m, &v)| (m, v));
    (m as u32, ((total + v) / 2) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mask_choice() {
        // Values 1 and 2 common, 0 and 3 rare under mask 1 or 2; mask 3 makes 1, 2 common too.
        let counts = [2, 50, 40, 1];
        let (m, r) = best_mask(&counts);
        assert_eq!(r, 3);
        assert_eq!(m, 3);
        let brute = |m: u32| {
            (0..4u32)
                .filter(|v| (v & m).count_ones() % 2 == 0)
                .map(|v| counts[v as usize])
                .sum::<u64>()
        };
        assert_eq!(brute(3), 3);
    }
}
