//! Where downloaded values come from: the computed prefix g(0..len) — in a cached solver or in
//! the store, read a few chunks at a time — and, beyond it, a proved (arithmetico-)periodicity.
//!
//! **The periodicity formula.** With preperiod n0, period p and saltus s, every heap h ≥ n0
//! has `g(h) = g(n0 + (h−n0) mod p) + s·⌊(h−n0)/p⌋` (the formula of
//! [`crate::core::octal::value_at`]). Over a stretch of consecutive heaps on which
//! `⌊(h−n0)/p⌋` is constant, the base index `n0 + (h−n0) mod p` runs through consecutive
//! computed heaps and the added term is constant: a [`Run`]. A block of heaps therefore
//! becomes a few runs, each a slice copy plus a constant, instead of a division per heap; the
//! unit tests check the runs against `value_at` heap by heap.

use std::collections::VecDeque;
use std::sync::Arc;

use crate::api::wire::error::ApiError;
use crate::core::octal::{Periodicity, Solver, ValuesRef};
use crate::service::octal::CachedSolver;
use crate::store::{PeriodicityRecord, Store, CHUNK};

/// A proved (arithmetico-)periodicity: `g(n + period) = g(n) + saltus` for all
/// `n ≥ preperiod`, established from the values g(0..proved_at).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Period {
    pub preperiod: u64,
    pub period: u64,
    pub saltus: u64,
    pub proved_at: u64,
}

impl Period {
    /// The solver's proof, if proved.
    pub fn of(p: &Periodicity) -> Option<Period> {
        p.proof().map(|p| Period {
            preperiod: p.preperiod,
            period: p.period,
            saltus: p.saltus,
            proved_at: p.proved_at,
        })
    }

    /// A stored proof record, if it is one and it reads only the `computed` stored values
    /// (a record that does not fit is ignored, never trusted).
    pub fn of_record(json: Option<&str>, computed: u64) -> Option<Period> {
        let r = PeriodicityRecord::from_json(json?)?;
        let p = Period {
            preperiod: r.preperiod?,
            period: r.period?,
            saltus: r.saltus?,
            proved_at: r.proved_at?,
        };
        let fits = p.period > 0
            && p.preperiod.checked_add(p.period)? <= p.proved_at
            && p.proved_at <= computed;
        fits.then_some(p)
    }

    /// ⌊(h−n0)/p⌋ for h ≥ n0.
    fn cycle(&self, h: u64) -> u64 {
        (h - self.preperiod) / self.period
    }

    /// An upper bound on g over heaps `from..=last` (all ≥ preperiod) given the largest
    /// value of one period: `base_max + s·⌊(last−n0)/p⌋`, in u128 (never overflows).
    pub fn bound(&self, base_max: u64, last: u64) -> u128 {
        u128::from(base_max) + u128::from(self.saltus) * u128::from(self.cycle(last))
    }
}

/// Consecutive heaps whose values are `g(from..from+len) + add`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Run {
    pub from: u64,
    pub len: usize,
    pub add: u64,
}

/// Decomposes the heaps `a..a+n` (with `a+n−1 ≤ 2^64−1`) into runs over the computed prefix
/// g(0..len): heaps below `len` read themselves, heaps beyond follow `period` (see the module
/// docs), which must then be given with `proved_at ≤ len`. The caller has checked that the
/// values fit in u64 ([`Period::bound`]); an `add` that would not is saturated.
pub fn runs(len: u64, period: Option<&Period>, a: u64, n: usize, out: &mut Vec<Run>) {
    out.clear();
    let mut h = a;
    let mut left = n as u64;
    while left > 0 {
        let (run, l) = if h < len {
            let l = left.min(len - h);
            (
                Run {
                    from: h,
                    len: l as usize,
                    add: 0,
                },
                l,
            )
        } else {
            let p = period.expect("heaps beyond the computed values need a proof");
            let off = h - p.preperiod;
            let r = off % p.period;
            let l = left.min(p.period - r);
            (
                Run {
                    from: p.preperiod + r,
                    len: l as usize,
                    add: p.saltus.saturating_mul(off / p.period),
                },
                l,
            )
        };
        out.push(run);
        left -= l;
        h = h.wrapping_add(l); // wraps only after the last heap, 2^64−1
    }
}

/// Appends the values of `runs` read from `values` (which must hold every base index).
fn fill_from(values: ValuesRef<'_>, runs: &[Run], out: &mut Vec<u64>) {
    fn extend<T: Copy + Into<u64>>(slice: &[T], add: u64, out: &mut Vec<u64>) {
        if add == 0 {
            out.extend(slice.iter().map(|&v| v.into()));
        } else {
            out.extend(slice.iter().map(|&v| v.into() + add));
        }
    }
    for r in runs {
        let from = r.from as usize;
        match values.slice(from..from + r.len) {
            ValuesRef::U8(g) => extend(g, r.add, out),
            ValuesRef::U16(g) => extend(g, r.add, out),
            ValuesRef::U32(g) => extend(g, r.add, out),
        }
    }
}

/// The one place that reads a solver's values: when the engine's value width changes, only
/// this changes.
fn solver_values(s: &Solver) -> ValuesRef<'_> {
    s.values().as_ref()
}

/// Most values a width scan of stored values reads (1 GiB of u32); beyond it the width is
/// the widest stored chunk's (from the chunk headers, without decoding).
pub const STORE_SCAN_MAX: u64 = 1 << 28;

/// Stored chunks fetched per query, and kept (a period's base values may straddle chunks).
const PREFETCH: usize = 4;
const KEPT: usize = 8;

/// The computed prefix g(0..len) of one game.
pub enum Prefix {
    /// A cached solver (values only grow, so `len` stays valid).
    Memory { solver: CachedSolver, len: u64 },
    /// The store's chunks, read on demand with a few kept.
    Store {
        store: Store,
        chunks: Chunks,
        len: u64,
        kept: VecDeque<(usize, Arc<Vec<u32>>)>,
    },
}

/// Whose chunks a stored prefix reads: a game's stored sequence, or the values a window-mode
/// job keeps on disk (every value it computed: `crate::store::Store::window_values`).
pub enum Chunks {
    Sequence(String),
    WindowJob(String),
}

impl Prefix {
    pub fn store(store: Store, chunks: Chunks, len: u64) -> Prefix {
        Prefix::Store {
            store,
            chunks,
            len,
            kept: VecDeque::new(),
        }
    }

    pub fn len(&self) -> u64 {
        match self {
            Prefix::Memory { len, .. } | Prefix::Store { len, .. } => *len,
        }
    }

    /// Appends the values of `runs` (every base index below [`Prefix::len`]) to `out`.
    pub async fn fill(&mut self, runs: &[Run], out: &mut Vec<u64>) -> Result<(), ApiError> {
        match self {
            Prefix::Memory { solver, .. } => {
                let solver = solver.clone();
                let runs = runs.to_vec();
                let mut buf = std::mem::take(out);
                let buf = tokio::task::spawn_blocking(move || {
                    solver
                        .read(|s| fill_from(solver_values(s), &runs, &mut buf))
                        .map(|()| buf)
                })
                .await
                .map_err(|e| ApiError::Internal(format!("reading values failed: {e}")))?
                .ok_or_else(poisoned)?;
                *out = buf;
                Ok(())
            }
            Prefix::Store { .. } => {
                for r in runs {
                    let mut i = r.from;
                    let end = r.from + r.len as u64;
                    while i < end {
                        let (c, chunk) = self.chunk_of(i).await?;
                        let lo = (i - c) as usize;
                        let hi = (end.min(c + CHUNK as u64) - c) as usize;
                        let vals = chunk.get(lo..hi).ok_or_else(|| short(i))?;
                        out.extend(vals.iter().map(|&v| u64::from(v) + r.add));
                        i = c + hi as u64;
                    }
                }
                Ok(())
            }
        }
    }

    /// The largest value among heaps `from..to` (within the prefix). For a stored range of more
    /// than [`STORE_SCAN_MAX`] values, a bound instead: the largest value of the widest chunk's
    /// width; `None` when a chunk is missing.
    pub async fn max(&mut self, from: u64, to: u64) -> Result<Option<u64>, ApiError> {
        match self {
            Prefix::Memory { solver, .. } => {
                let solver = solver.clone();
                let m = tokio::task::spawn_blocking(move || {
                    solver.read(|s| {
                        let v = solver_values(s);
                        v.slice(from as usize..to as usize).iter().max()
                    })
                })
                .await
                .map_err(|e| ApiError::Internal(format!("reading values failed: {e}")))?
                .ok_or_else(poisoned)?;
                Ok(Some(m.map_or(0, u64::from)))
            }
            // Too long to scan before the first byte: the widest of the chunks' widths (their
            // headers say it), a bound that is exact for whole chunks.
            Prefix::Store { store, chunks, .. } if to - from > STORE_SCAN_MAX => {
                let (first, last) = (
                    (from / CHUNK as u64) as usize,
                    ((to - 1) / CHUNK as u64) as usize,
                );
                let width = match chunks {
                    Chunks::Sequence(code) => store.max_chunk_width(code, first, last).await?,
                    Chunks::WindowJob(job) => {
                        store.max_window_chunk_width(job, first, last).await?
                    }
                };
                Ok(width.map(|w| u64::MAX >> (64 - 8 * u32::from(w))))
            }
            Prefix::Store { .. } => {
                let mut m = 0u32;
                let mut i = from;
                while i < to {
                    let (c, chunk) = self.chunk_of(i).await?;
                    let lo = (i - c) as usize;
                    let hi = (to.min(c + CHUNK as u64) - c) as usize;
                    let vals = chunk.get(lo..hi).ok_or_else(|| short(i))?;
                    m = m.max(vals.iter().copied().max().unwrap_or(0));
                    i = c + hi as u64;
                }
                Ok(Some(u64::from(m)))
            }
        }
    }

    /// The stored chunk holding heap `i`: its first heap and its values.
    async fn chunk_of(&mut self, i: u64) -> Result<(u64, Arc<Vec<u32>>), ApiError> {
        let Prefix::Store {
            store,
            chunks,
            len,
            kept,
        } = self
        else {
            unreachable!("only stored prefixes have chunks")
        };
        let c = (i / CHUNK as u64) as usize;
        let start = c as u64 * CHUNK as u64;
        if let Some((_, v)) = kept.iter().find(|(k, _)| *k == c) {
            return Ok((start, v.clone()));
        }
        let last = ((*len).max(1) - 1) / CHUNK as u64;
        let to = (c + PREFETCH - 1).min(last as usize).max(c);
        let mut found = None;
        let read = match chunks {
            Chunks::Sequence(code) => store.read_chunks(code, c, to).await?,
            Chunks::WindowJob(job) => store.read_window_chunks(job, c, to).await?,
        };
        for (k, values) in read {
            let values = Arc::new(values);
            if k == c {
                found = Some(values.clone());
            }
            kept.push_back((k, values));
            if kept.len() > KEPT {
                kept.pop_front();
            }
        }
        found.map(|v| (start, v)).ok_or_else(|| short(i))
    }
}

fn poisoned() -> ApiError {
    ApiError::Internal("solver lock poisoned".into())
}

/// The store recorded more values than its chunks hold.
fn short(heap: u64) -> ApiError {
    ApiError::Internal(format!(
        "the stored sequence has no value for heap {heap} although it records it as computed"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::octal::{value_at, Game, Solver};

    /// SplitMix64, as the core's tests use (their helper module is private to the core).
    struct Rng(u64);
    impl Rng {
        fn below(&mut self, n: u64) -> u64 {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            (z ^ (z >> 31)) % n
        }
    }

    fn solved(code: &str) -> Solver {
        let mut s = Solver::new(&Game::parse(code).unwrap());
        s.run(5_000, true, &mut || false).unwrap();
        s
    }

    /// Runs reproduce `value_at` heap by heap, inside, across and far beyond the prefix,
    /// for an ordinary and an arithmetic periodicity.
    #[test]
    fn runs_agree_with_value_at() {
        let mut rng = Rng(11);
        for code in ["0.07", "0.F8", "0.(3)", "0.137"] {
            let s = solved(code);
            let per = Period::of(s.periodicity()).expect("proved");
            let values = s.values();
            let len = values.len() as u64;
            let mut out = Vec::new();
            let mut got = Vec::new();
            for case in 0..200 {
                let a = match case % 4 {
                    0 => rng.below(len),
                    1 => len.saturating_sub(rng.below(50)),
                    2 => rng.below(1 << 40),
                    _ => u64::MAX - rng.below(5000),
                };
                let n = (rng.below(3000) + 1).min((u64::MAX - a).saturating_add(1)) as usize;
                let base = values
                    .as_ref()
                    .slice(per.preperiod as usize..(per.preperiod + per.period) as usize)
                    .iter()
                    .max()
                    .unwrap_or(0);
                if per.bound(u64::from(base), a + (n as u64 - 1)) > u128::from(u64::MAX) {
                    continue; // the handler refuses such ranges (values beyond u64)
                }
                runs(len, Some(&per), a, n, &mut out);
                got.clear();
                fill_from(values.as_ref(), &out, &mut got);
                assert_eq!(got.len(), n);
                for (i, g) in got.iter().enumerate() {
                    let h = a + i as u64;
                    if let Ok(want) = value_at(values, s.periodicity(), h) {
                        assert_eq!(*g, want, "{code} g({h})");
                    }
                }
            }
        }
    }

    /// The bound is the exact maximum over whole periods of an ordinary periodicity.
    #[test]
    fn bound_over_a_period() {
        let s = solved("0.07");
        let per = Period::of(s.periodicity()).unwrap();
        let lo = per.preperiod as usize;
        let base = s
            .values()
            .as_ref()
            .slice(lo..lo + per.period as usize)
            .iter()
            .max()
            .unwrap();
        assert_eq!(per.bound(u64::from(base), u64::MAX), u128::from(base));
        let arith = Period { saltus: 2, ..per };
        assert_eq!(arith.bound(4, per.preperiod + 3 * per.period), 4 + 2 * 3);
    }

    #[test]
    fn stored_records_are_checked() {
        let rec = r#"{"status":"periodic","preperiod":53,"period":34,"saltus":0,"proved_at":175,"theorem":"x"}"#;
        assert!(Period::of_record(Some(rec), 175).is_some());
        assert!(
            Period::of_record(Some(rec), 174).is_none(),
            "reads more than stored"
        );
        assert!(Period::of_record(Some("not json"), 1000).is_none());
        assert!(Period::of_record(None, 1000).is_none());
        let bad = r#"{"status":"periodic","preperiod":53,"period":0,"saltus":0,"proved_at":175,"theorem":"x"}"#;
        assert!(Period::of_record(Some(bad), 1000).is_none());
    }
}
