//! The statistics the public tables of unsolved octal games publish for a G-sequence prefix
//! `G(0), …, G(N−1)` (heaps counted from 0, so the prefix "to 2^21" holds 2^21 values):
//! the value histogram, the largest value and the first heap holding it, the *rare mask*, the
//! number of rare values under it and the last heap holding a rare value.
//!
//! # Rare and common values
//!
//! For a mask `m`, value `v` is *rare* iff `popcount(v & m)` is even, *common* otherwise. For
//! `m ≠ 0` the rare values form a subgroup of index 2 of the values under nim-addition (`⊕`):
//! rare ⊕ rare and common ⊕ common are rare, rare ⊕ common is common. In many octal games one
//! mask makes almost every value common (the "sparse space" phenomenon: Gangolli and Plambeck,
//! "A note on periodicity in some octal games", Int. J. Game Theory 18 (1989) 311–320; Berlekamp,
//! Conway and Guy, *Winning Ways*, ch. 4). A two-heap split `a + b` gives a common value only
//! when exactly one of `G(a)`, `G(b)` is rare, so the few pairs with a rare part exclude every
//! common value a heap can reach — the basis of the rare/common method (`sparse.rs`). The
//! published tables (T. Czajka, `UnsolvedGames.md` in github.com/tczajka/octal-games, computed
//! by `old/src/analyze_exec.cc` there) give the mask under which the **fewest** of the `N`
//! values are rare.
//!
//! # The fewest-rare mask, by a Walsh–Hadamard transform
//!
//! With `h[v]` the number of heaps `n < N` with `G(n) = v` and `K` the least power of two above
//! the largest value, let
//!
//! ```text
//! W[m] = Σ_v h[v] · (−1)^popcount(v & m)        (0 ≤ m < K)
//! ```
//!
//! the Walsh–Hadamard transform of `h`, computed in `O(K log K)` by the usual butterflies. Since
//! `(1 + (−1)^popcount(v&m)) / 2` is 1 for a rare `v` and 0 for a common one, the number of rare
//! values under `m` is `rare(m) = (N + W[m]) / 2`, so the fewest-rare masks are those minimising
//! `W[m]`. The rule, exactly as the published analyzer applies it (it scans `m = 0, 1, 2, …`
//! and keeps a mask only when its count is *strictly* smaller):
//!
//! * **the mask is the smallest `m` with the least `rare(m)`** (ties go to the smaller mask);
//! * mask 0 makes every value rare (`W[0] = N`); it is chosen only when no other mask does
//!   better, which happens exactly when every value is 0 (or `N = 0`): for any `v ≠ 0`, the mask
//!   `m = v` makes `v` common;
//! * masks `≥ K` never win: bits above the largest value meet no value, so `W[m] = W[m mod K]`
//!   with `m mod K < m`. Scanning `[0, K)` is therefore the same as scanning every `u32` mask.
//!
//! The published analyzer also tries masks that include the parity of the heap (value and heap
//! parity together); the published masks of the four computed rows are plain value masks, which
//! is the rule implemented here (a value mask that wins over the larger family also wins over
//! the value masks alone). It re-chooses its mask only when a rare value or a new bit width
//! appears; adding common values cannot take the minimum away from the kept mask (its `W` drops
//! by one per value, every other `W` by at most one), so the published mask is always *a*
//! minimiser at `N` and *the* one whenever the minimum is unique, as the tests check it is for
//! the published rows.
//!
//! # Cost
//!
//! [`Statistics`] is fed with values as they are computed and keeps, per value, its count and
//! its first and last heap (24 bytes per value up to the largest one); everything else is
//! derived on demand. Blocks of a few thousand values or more are counted in passes of four
//! interleaved histograms (so that equal neighbouring values do not serialise on one counter)
//! plus a plain store of each value's last offset: measured 0.9 ns per value on `.167`
//! (1-byte values, blocks of 4096 to 2^22, best of 30 runs on a loaded 2-core host), 1.3 ns
//! with one table update per value, which shorter blocks use. That is under 0.2 % of the
//! engine's cost per value on `.167` and about 1–5 % on the cheapest games (20–150 ns per
//! value). A snapshot (`current()`, `O(K log K)`) takes about 2 µs for `K = 256`. Snapshots
//! are taken at every power of two `N` as the sequence passes it; they, and the state,
//! serialise to a compact versioned byte string ([`Statistics::to_bytes`]: 1.5 KB for `.167`
//! to 2^22) that a long job saves with each checkpoint.

use super::values::{Cell, ValuesRef};

pub mod unsolved;

/// The largest value [`Statistics`] accepts (2^24 − 1): the tables cost 24 bytes per value up
/// to the largest one, so this bounds them by 384 MiB. Unsolved octal games have values in the
/// hundreds or low thousands (`.04`: 1024 at 2^17; `.014`: 392 at 2^36).
pub const MAX_VALUE: u32 = (1 << 24) - 1;

/// The most heaps [`Statistics`] counts (2^62), so that every Walsh–Hadamard coefficient
/// (`|W[m]| ≤ N`) fits an `i64`.
pub const MAX_HEAPS: u64 = 1 << 62;

/// The version byte [`Statistics::to_bytes`] writes and [`Statistics::from_bytes`] reads.
pub const STATE_VERSION: u8 = 1;

/// The first bytes of a serialised state.
const MAGIC: [u8; 4] = *b"GSTA";

/// Everything that can go wrong feeding, deriving or decoding statistics.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StatisticsError {
    /// Values must come in heap order with no gap or overlap.
    #[error("values for heap {got} given where heap {expected} comes next")]
    NotContiguous { expected: u64, got: u64 },
    /// More heaps than [`MAX_HEAPS`].
    #[error("more than {max} heaps")]
    TooManyHeaps { max: u64 },
    /// A value above [`MAX_VALUE`] (nothing of its block was counted).
    #[error("value {value} at heap {heap} exceeds the largest counted value {max}")]
    ValueTooLarge { heap: u64, value: u32, max: u32 },
    /// A histogram longer than `MAX_VALUE + 1` entries or summing to more than [`MAX_HEAPS`].
    #[error("histogram out of range: {reason}")]
    HistogramOutOfRange { reason: &'static str },
    /// A serialised state written by another version of this format.
    #[error("statistics state version {found}; this build reads version {supported}")]
    UnsupportedVersion { found: u8, supported: u8 },
    /// Bytes that are not a serialised state (truncated, altered or inconsistent).
    #[error("corrupt statistics state: {reason}")]
    Corrupt { reason: &'static str },
}

/// The published statistics of the prefix `G(0..n)` (heaps `0, …, n−1`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snapshot {
    /// Number of values (heaps `0..n`); at least 1.
    pub n: u64,
    /// `histogram[v]`: heaps `< n` with value `v`; its length is `max_value + 1`.
    pub histogram: Vec<u64>,
    /// The largest value.
    pub max_value: u32,
    /// The first heap holding `max_value`.
    pub max_value_first_heap: u64,
    /// The fewest-rare mask (see the module documentation for the rule).
    pub mask: u32,
    /// Heaps `< n` whose value is rare under `mask`.
    pub rare_count: u64,
    /// The last heap `< n` whose value is rare under `mask` (`None` when none is).
    pub last_rare_heap: Option<u64>,
}

/// Whether `value` is rare under `mask`: `popcount(value & mask)` is even.
#[inline]
pub fn is_rare(value: u32, mask: u32) -> bool {
    (value & mask).count_ones().is_multiple_of(2)
}

/// The Walsh–Hadamard transform `W[m] = Σ_v histogram[v] · (−1)^popcount(v & m)` for
/// `0 ≤ m < K`, `K` the least power of two ≥ `histogram.len()` (at least 1). `O(K log K)`.
pub fn walsh_hadamard(histogram: &[u64]) -> Result<Vec<i64>, StatisticsError> {
    check_histogram(histogram)?;
    let k = histogram.len().max(1).next_power_of_two();
    let mut w = vec![0i64; k];
    for (x, &h) in w.iter_mut().zip(histogram) {
        // ≤ MAX_HEAPS (checked), so it fits.
        *x = h as i64;
    }
    // Butterflies: after the pass with half-width `h`, w[j] holds the transform over the low
    // bits of the index; every partial sum is bounded by the total, ≤ 2^62.
    let mut h = 1;
    while h < k {
        for block in w.chunks_exact_mut(2 * h) {
            let (lo, hi) = block.split_at_mut(h);
            for (a, b) in lo.iter_mut().zip(hi.iter_mut()) {
                let (x, y) = (*a, *b);
                *a = x + y;
                *b = x - y;
            }
        }
        h *= 2;
    }
    Ok(w)
}

/// The fewest-rare mask of a histogram and its rare count: the smallest `m` minimising
/// `(N + W[m]) / 2` (see the module documentation). An empty or all-zero histogram gives
/// `(0, N)`.
pub fn fewest_rare_mask(histogram: &[u64]) -> Result<(u32, u64), StatisticsError> {
    let w = walsh_hadamard(histogram)?;
    let total = w.first().copied().unwrap_or(0);
    let mut best = (0usize, total);
    for (m, &x) in w.iter().enumerate().skip(1) {
        if x < best.1 {
            best = (m, x);
        }
    }
    // W[m] ≡ N (mod 2) for every m, and −N ≤ W[m] ≤ N, so (N + W[m]) / 2 is exact and ≥ 0.
    let rare = ((total + best.1) / 2) as u64;
    Ok((best.0 as u32, rare))
}

fn check_histogram(histogram: &[u64]) -> Result<(), StatisticsError> {
    if histogram.len() > MAX_VALUE as usize + 1 {
        return Err(StatisticsError::HistogramOutOfRange {
            reason: "more entries than MAX_VALUE + 1",
        });
    }
    let mut total = 0u64;
    for &h in histogram {
        total = match total.checked_add(h) {
            Some(t) if t <= MAX_HEAPS => t,
            _ => {
                return Err(StatisticsError::HistogramOutOfRange {
                    reason: "counts sum to more than MAX_HEAPS",
                })
            }
        };
    }
    Ok(())
}

/// Per value: how often it occurred, and its first and last heap (both meaningless while
/// `count == 0`). One 24-byte record, so feeding a value touches one cache line.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Entry {
    count: u64,
    first: u64,
    last: u64,
}

/// Incremental statistics of a G-sequence prefix, fed in heap order as values are computed.
///
/// ```text
/// let mut s = Statistics::new();
/// s.observe_block(0, &[0u8, 0, 0, 1, 0, 2])?;   // G(0..6) of Grundy's game
/// s.observe_values(6, engine.values().as_ref().slice(6..))?;
/// let now = s.current();                        // the statistics of G(0..len)
/// let at_4 = &s.snapshots()[2];                 // of G(0..4)
/// let bytes = s.to_bytes();                     // save with a checkpoint …
/// let again = Statistics::from_bytes(&bytes)?;  // … and resume
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Statistics {
    /// Heaps counted: `0..n`.
    n: u64,
    /// One entry per value `0..=max` (exactly `max + 1`, `max` the largest value counted).
    table: Vec<Entry>,
    /// `snapshots[k]`: the statistics of `G(0..2^k)`, for every `2^k ≤ n`.
    snapshots: Vec<Snapshot>,
}

impl Statistics {
    /// No heap counted yet.
    pub fn new() -> Statistics {
        Statistics::default()
    }

    /// Heaps counted (`0..len`): the next heap [`Statistics::observe_block`] expects.
    pub fn len(&self) -> u64 {
        self.n
    }

    /// True before any value is counted.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// Counts `G(heap) = value`; `heap` must be [`Statistics::len`].
    pub fn observe(&mut self, heap: u64, value: u32) -> Result<(), StatisticsError> {
        self.observe_block(heap, &[value])
    }

    /// Counts `G(first_heap + i) = values[i]`; `first_heap` must be [`Statistics::len`].
    /// Values may be `u8`, `u16` or `u32` (the engine's stored widths). A block with a value
    /// above [`MAX_VALUE`] or running past [`MAX_HEAPS`] is refused whole. Snapshots are taken at
    /// every power of two the block passes.
    pub fn observe_block<C: Cell>(
        &mut self,
        first_heap: u64,
        values: &[C],
    ) -> Result<(), StatisticsError> {
        if first_heap != self.n {
            return Err(StatisticsError::NotContiguous {
                expected: self.n,
                got: first_heap,
            });
        }
        let len = values.len() as u64;
        if len > MAX_HEAPS - self.n {
            return Err(StatisticsError::TooManyHeaps { max: MAX_HEAPS });
        }
        let Some(max) = block_max(values) else {
            return Ok(());
        };
        if max > MAX_VALUE {
            let i = values.iter().position(|c| c.get() > MAX_VALUE).unwrap_or(0);
            return Err(StatisticsError::ValueTooLarge {
                heap: first_heap + i as u64,
                value: max,
                max: MAX_VALUE,
            });
        }
        if max as usize >= self.table.len() {
            self.table.resize(max as usize + 1, Entry::default());
        }
        let mut rest = values;
        while !rest.is_empty() {
            // The next power of two strictly above the heaps counted so far: a snapshot is due
            // when the count reaches it. n < 2^62, so this does not overflow.
            let due = (self.n + 1).next_power_of_two();
            let take = rest
                .len()
                .min(usize::try_from(due - self.n).unwrap_or(usize::MAX));
            let (now, later) = rest.split_at(take);
            count(&mut self.table, self.n, now);
            self.n += take as u64;
            rest = later;
            if self.n == due {
                if let Some(s) = self.derive() {
                    self.snapshots.push(s);
                }
            }
        }
        Ok(())
    }

    /// [`Statistics::observe_block`] for a view of the engine's values in their stored width.
    pub fn observe_values(
        &mut self,
        first_heap: u64,
        values: ValuesRef<'_>,
    ) -> Result<(), StatisticsError> {
        match values {
            ValuesRef::U8(g) => self.observe_block(first_heap, g),
            ValuesRef::U16(g) => self.observe_block(first_heap, g),
            ValuesRef::U32(g) => self.observe_block(first_heap, g),
        }
    }

    /// `histogram[v]` for every value `0..=max` counted so far (empty before any value).
    pub fn histogram(&self) -> Vec<u64> {
        self.table.iter().map(|e| e.count).collect()
    }

    /// How many heaps counted so far hold `value`.
    pub fn count_of(&self, value: u32) -> u64 {
        self.table.get(value as usize).map_or(0, |e| e.count)
    }

    /// The first heap holding `value`, if any does.
    pub fn first_heap(&self, value: u32) -> Option<u64> {
        self.table
            .get(value as usize)
            .filter(|e| e.count > 0)
            .map(|e| e.first)
    }

    /// The last heap holding `value`, if any does.
    pub fn last_heap(&self, value: u32) -> Option<u64> {
        self.table
            .get(value as usize)
            .filter(|e| e.count > 0)
            .map(|e| e.last)
    }

    /// The statistics at every power of two passed so far: `snapshots()[k]` is for `G(0..2^k)`.
    pub fn snapshots(&self) -> &[Snapshot] {
        &self.snapshots
    }

    /// The statistics of everything counted so far, `G(0..len)` (`None` before any value).
    /// `O(K log K)` for `K` the least power of two above the largest value.
    pub fn current(&self) -> Option<Snapshot> {
        self.derive()
    }

    /// The number of values counted so far that are rare under `mask`, and the last heap with
    /// one (`None` when none is).
    pub fn rare_under(&self, mask: u32) -> (u64, Option<u64>) {
        let mut count = 0;
        let mut last = None;
        for (v, e) in self.table.iter().enumerate() {
            if e.count > 0 && is_rare(v as u32, mask) {
                count += e.count;
                last = last.max(Some(e.last));
            }
        }
        (count, last)
    }

    /// The snapshot of the table as it stands.
    fn derive(&self) -> Option<Snapshot> {
        let max = self.table.iter().rposition(|e| e.count > 0)?;
        let histogram: Vec<u64> = self.table[..=max].iter().map(|e| e.count).collect();
        // The table is bounded by MAX_VALUE + 1 entries and n by MAX_HEAPS: this cannot fail.
        let (mask, rare_count) = fewest_rare_mask(&histogram).ok()?;
        let last_rare_heap = self.rare_under(mask).1;
        Some(Snapshot {
            n: self.n,
            max_value: max as u32,
            max_value_first_heap: self.table[max].first,
            histogram,
            mask,
            rare_count,
            last_rare_heap,
        })
    }

    /// The state as a compact versioned byte string (see [`Statistics::from_bytes`]).
    ///
    /// Layout (integers as LEB128 varints unless stated): `"GSTA"`, version byte, `n`, table
    /// length `L` (= largest value + 1, or 0), then per value `count` and, when `count > 0`,
    /// `first` and `last − first`; then per power of two `2^k ≤ n` (in order) the histogram
    /// length, its counts and `last_rare_heap + 1` (0 for none); last, the FNV-1a 64-bit hash of
    /// everything before it, 8 bytes little-endian. Masks, rare counts, largest values and their
    /// first heaps are derived again on reading.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(16 + 4 * self.table.len());
        out.extend_from_slice(&MAGIC);
        out.push(STATE_VERSION);
        put(&mut out, self.n);
        put(&mut out, self.table.len() as u64);
        for e in &self.table {
            put(&mut out, e.count);
            if e.count > 0 {
                put(&mut out, e.first);
                put(&mut out, e.last - e.first);
            }
        }
        for s in &self.snapshots {
            put(&mut out, s.histogram.len() as u64);
            for &c in &s.histogram {
                put(&mut out, c);
            }
            put(&mut out, s.last_rare_heap.map_or(0, |h| h + 1));
        }
        let hash = fnv1a(&out);
        out.extend_from_slice(&hash.to_le_bytes());
        out
    }

    /// Reads a state written by [`Statistics::to_bytes`]. Every inconsistency is a
    /// [`StatisticsError::Corrupt`] (or [`StatisticsError::UnsupportedVersion`]): nothing panics,
    /// and no length read from the bytes allocates more than the bytes could describe.
    pub fn from_bytes(bytes: &[u8]) -> Result<Statistics, StatisticsError> {
        let corrupt = |reason| StatisticsError::Corrupt { reason };
        if bytes.len() < MAGIC.len() + 1 + 8 {
            return Err(corrupt("too short"));
        }
        if bytes[..4] != MAGIC {
            return Err(corrupt("not a statistics state (magic)"));
        }
        if bytes[4] != STATE_VERSION {
            return Err(StatisticsError::UnsupportedVersion {
                found: bytes[4],
                supported: STATE_VERSION,
            });
        }
        let (body, tail) = bytes.split_at(bytes.len() - 8);
        let mut stored = [0u8; 8];
        stored.copy_from_slice(tail);
        if u64::from_le_bytes(stored) != fnv1a(body) {
            return Err(corrupt("checksum mismatch"));
        }
        let mut r = Reader { bytes: body, at: 5 };
        let n = r.varint()?;
        if n > MAX_HEAPS {
            return Err(corrupt("more heaps than MAX_HEAPS"));
        }
        let len = r.length(MAX_VALUE as u64 + 1)?;
        let mut table = Vec::with_capacity(len);
        let mut total = 0u64;
        for _ in 0..len {
            let count = r.varint()?;
            let mut e = Entry {
                count,
                ..Entry::default()
            };
            if count > 0 {
                e.first = r.varint()?;
                e.last = e
                    .first
                    .checked_add(r.varint()?)
                    .ok_or(corrupt("heap out of range"))?;
                // A value seen `count` times between `first` and `last`, all below n.
                if e.last >= n
                    || e.last - e.first < count - 1
                    || (count == 1) != (e.first == e.last)
                {
                    return Err(corrupt("inconsistent first/last heap"));
                }
                total = total.checked_add(count).ok_or(corrupt("counts overflow"))?;
            }
            table.push(e);
        }
        if total != n {
            return Err(corrupt("counts do not add up to n"));
        }
        if table.last().is_some_and(|e| e.count == 0) {
            return Err(corrupt("table not trimmed to the largest value"));
        }
        let mut stats = Statistics {
            n,
            table,
            snapshots: Vec::new(),
        };
        let powers = if n == 0 { 0 } else { 64 - n.leading_zeros() };
        let full = stats.table.clone();
        for k in 0..powers {
            let at = 1u64 << k;
            let hist_len = r.length(full.len() as u64)?;
            let mut hist = Vec::with_capacity(hist_len);
            let mut sum = 0u64;
            for e in full.iter().take(hist_len) {
                let c = r.varint()?;
                // A value occurs before 2^k exactly when its first heap is below 2^k, and at
                // most as often as in the whole prefix.
                if c > e.count || (c > 0) != (e.count > 0 && e.first < at) {
                    return Err(corrupt("snapshot histogram disagrees with the table"));
                }
                sum += c;
                hist.push(c);
            }
            if sum != at || hist.last().is_some_and(|&c| c == 0) {
                return Err(corrupt("snapshot histogram does not count 2^k heaps"));
            }
            let last_rare = match r.varint()? {
                0 => None,
                h if h <= at => Some(h - 1),
                _ => return Err(corrupt("last rare heap beyond the snapshot")),
            };
            // Derive the snapshot from a table cut to the histogram (first heaps agree: a value
            // present before 2^k has its first heap there).
            stats.n = at;
            stats.table = full[..hist_len]
                .iter()
                .zip(&hist)
                .map(|(e, &c)| Entry { count: c, ..*e })
                .collect();
            let mut snapshot = stats.derive().ok_or(corrupt("empty snapshot"))?;
            snapshot.last_rare_heap = last_rare;
            // The last rare heap lies between the last forced occurrence of each rare value
            // (its first heap + its count − 1) and its last heap in the whole prefix.
            let (mut lo, mut hi) = (None, None);
            for (v, &c) in hist.iter().enumerate() {
                if c > 0 && is_rare(v as u32, snapshot.mask) {
                    lo = lo.max(Some(full[v].first + (c - 1)));
                    hi = hi.max(Some(full[v].last.min(at - 1)));
                }
            }
            let fits = match (last_rare, lo, hi) {
                (None, None, _) => true,
                (Some(h), Some(lo), Some(hi)) => lo <= h && h <= hi,
                _ => false,
            };
            if !fits {
                return Err(corrupt("last rare heap disagrees with the table"));
            }
            stats.snapshots.push(snapshot);
        }
        if r.at != body.len() {
            return Err(corrupt("trailing bytes"));
        }
        stats.n = n;
        stats.table = full;
        Ok(stats)
    }
}

/// The largest value of a block (`None` when empty); vectorises for every width.
fn block_max<C: Cell>(values: &[C]) -> Option<u32> {
    values.iter().map(|c| c.get()).max()
}

/// Values counted per pass of [`count_pass`] at least (its per-pass work is `O(K)`).
const PASS: usize = 1 << 16;

/// The largest table [`count_pass`] handles (its scratch is 17 bytes per value); above, and for
/// blocks too short to amortise the scratch, [`count_simple`] counts.
const PASS_MAX_VALUES: usize = 1 << 16;

/// Counts `values` (heaps `first_heap…`) into `table`, which the caller grew to the largest
/// value, so every value indexes it.
fn count<C: Cell>(table: &mut [Entry], first_heap: u64, values: &[C]) {
    let k = table.len();
    // A pass costs O(len + K): passes of at least 16·K values keep the O(K) part small, and
    // blocks shorter than 4·K (or a few thousand values) are not worth the scratch.
    let pass = PASS.max(16 * k);
    if k > PASS_MAX_VALUES || values.len() < (4 * k).max(4096) {
        count_simple(table, first_heap, values);
        return;
    }
    let mut scratch = Scratch {
        lanes: vec![0; 4 * k],
        last: vec![0; k],
        pending: vec![false; k],
    };
    let mut heap = first_heap;
    for block in values.chunks(pass) {
        count_pass(table, heap, block, &mut scratch);
        heap += block.len() as u64;
    }
}

/// One table update per value (for short blocks and very large values).
#[inline(never)]
fn count_simple<C: Cell>(table: &mut [Entry], first_heap: u64, values: &[C]) {
    for (heap, &c) in (first_heap..).zip(values) {
        if let Some(e) = table.get_mut(c.get() as usize) {
            if e.count == 0 {
                e.first = heap;
            }
            e.count += 1;
            e.last = heap;
        }
    }
}

/// Working memory of [`count_pass`], reused over the passes of one block.
struct Scratch {
    /// Four histograms of the pass, one per lane (`lanes[lane·K + v]`).
    lanes: Vec<u32>,
    /// `last[v]`: the offset in the pass of the last `v` (meaningful when `v` occurred).
    last: Vec<u32>,
    /// Values new to the table whose first heap is still to be found.
    pending: Vec<bool>,
}

/// Counts one pass of at most 2^32 − 1 values:
///
/// 1. histogram the pass into four lanes (value `i` of the pass into lane `i mod 4`), so that
///    equal neighbouring values — frequent in G-sequences — do not wait for each other's
///    increment, and note each value's last offset (a plain store);
/// 2. add the lanes and last offsets into the table (`O(K)`);
/// 3. for the values new to the table (a few hundred times in a whole run), scan the pass
///    forwards for their first heap.
#[inline(never)]
fn count_pass<C: Cell>(table: &mut [Entry], first_heap: u64, values: &[C], s: &mut Scratch) {
    let k = table.len();
    s.lanes.fill(0);
    let (l0, rest) = s.lanes.split_at_mut(k);
    let (l1, rest) = rest.split_at_mut(k);
    let (l2, l3) = rest.split_at_mut(k);
    let last = &mut s.last;
    let mut quads = values.chunks_exact(4);
    let mut at = 0u32;
    for q in &mut quads {
        for (j, (lane, c)) in [
            (&mut *l0, q[0]),
            (&mut *l1, q[1]),
            (&mut *l2, q[2]),
            (&mut *l3, q[3]),
        ]
        .into_iter()
        .enumerate()
        {
            let v = c.get() as usize;
            if let (Some(x), Some(l)) = (lane.get_mut(v), last.get_mut(v)) {
                *x += 1;
                *l = at + j as u32;
            }
        }
        at += 4;
    }
    for c in quads.remainder() {
        let v = c.get() as usize;
        if let (Some(x), Some(l)) = (l0.get_mut(v), last.get_mut(v)) {
            *x += 1;
            *l = at;
        }
        at += 1;
    }
    let mut new = 0usize;
    for (v, e) in table.iter_mut().enumerate() {
        let c = [&*l0, &*l1, &*l2, &*l3]
            .iter()
            .map(|lane| lane.get(v).map_or(0, |&x| u64::from(x)))
            .sum::<u64>();
        if c > 0 {
            if e.count == 0 {
                if let Some(p) = s.pending.get_mut(v) {
                    *p = true;
                    new += 1;
                }
            }
            e.count += c;
            e.last = first_heap + u64::from(last.get(v).copied().unwrap_or(0));
        }
    }
    for (i, c) in values.iter().enumerate() {
        if new == 0 {
            break;
        }
        let v = c.get() as usize;
        if let (Some(p), Some(e)) = (s.pending.get_mut(v), table.get_mut(v)) {
            if *p {
                *p = false;
                e.first = first_heap + i as u64;
                new -= 1;
            }
        }
    }
}

/// Appends `x` as an unsigned LEB128 varint.
fn put(out: &mut Vec<u8>, mut x: u64) {
    while x >= 0x80 {
        out.push((x as u8) | 0x80);
        x >>= 7;
    }
    out.push(x as u8);
}

/// FNV-1a, 64 bits (Fowler, Noll and Vo): a checksum against truncation and bit rot, not a
/// cryptographic hash.
fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn varint(&mut self) -> Result<u64, StatisticsError> {
        let mut x = 0u64;
        for shift in (0..64).step_by(7) {
            let Some(&b) = self.bytes.get(self.at) else {
                return Err(StatisticsError::Corrupt {
                    reason: "truncated",
                });
            };
            self.at += 1;
            let low = u64::from(b & 0x7f);
            if shift == 63 && low > 1 {
                break;
            }
            x |= low << shift;
            if b & 0x80 == 0 {
                // One encoding per number (no padding zero bytes), so that a state read back
                // writes the same bytes.
                if b == 0 && shift > 0 {
                    return Err(StatisticsError::Corrupt {
                        reason: "varint not minimal",
                    });
                }
                return Ok(x);
            }
        }
        Err(StatisticsError::Corrupt {
            reason: "varint too long",
        })
    }

    /// A length of at most `max` entries, each of which needs at least one more byte: so a
    /// corrupt length cannot make the caller allocate more than the input could describe.
    fn length(&mut self, max: u64) -> Result<usize, StatisticsError> {
        let len = self.varint()?;
        let left = (self.bytes.len() - self.at) as u64;
        if len > max || len > left {
            return Err(StatisticsError::Corrupt {
                reason: "length out of range",
            });
        }
        Ok(len as usize)
    }
}

#[cfg(test)]
mod tests;
