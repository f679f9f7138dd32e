//! Periodicity of the pretending function, proved from computed values.
//!
//! **Theorem** (the misère analogue of the Guy–Smith periodicity theorem; Plambeck & Siegel
//! 2008 prove a periodicity theorem for misère quotients of octal games of this kind — the
//! statement and proof used here are the following, with the Guy–Smith bound). Let the game
//! have a finite code with no digits before the point other than `d_0`, no part rule, last
//! non-zero digit `d_k`, and moves leaving at most `h ≥ 1` heaps (`h = 1` when every digit is
//! at most 1). Let `(Q, P, Φ)` be the verified misère quotient of the heaps `0..=N`, and
//! suppose that for some `n0 ≥ 0`, `p ≥ 1`
//!
//! * `Φ(m + p) = Φ(m)` for all `n0 ≤ m ≤ N − p`, and
//! * `N ≥ h·(max(n0, 1) + p) + k − 1`.
//!
//! Then `(Q, P)` is the misère quotient of the whole game, with `Φ(m + p) = Φ(m)` for all
//! `m ≥ n0`.
//!
//! *Proof.* Define `Φ̃ = Φ` on `0..=N` and `Φ̃(m) = Φ̃(m − p)` for `m > N`; then
//! `Φ̃(c + p) = Φ̃(c)` for every `c ≥ n0`. Let `T̃(m)` be the set of products of `Φ̃` over the
//! options of heap `m`. For `m > N` and any removal `u ≤ k` leaving `j ≤ h` heaps with
//! total `r = m − u ≥ h·(n0' + p)` (`n0' = max(n0, 1)`): a partition of `r` has a largest
//! part `c ≥ r/j ≥ n0' + p`, and replacing `c` by `c − p ≥ n0'` gives a partition of
//! `r − p` with the same product; a partition of `r − p` has a largest part
//! `c ≥ n0'`, and `c + p` gives one of `r` with the same product. So the option sets of
//! heaps `m` and `m − p` have the same images (the removal of a whole heap, `r = 0`, is
//! impossible for both as `m − p > k`): `T̃(m) = T̃(m − p)`. Every heap `m > N` therefore has
//! the same element and option set as a heap `m' ∈ (N − p, N]`, so in the closure checks of
//! [`super::verify`] it acts exactly like `m'`: the pairs `(Φ̃(H), T̃(H))` reachable with all
//! heaps are those reachable with heaps `≤ N`, which passed. The verification theorem then
//! makes `(Q, P, Φ̃)` the quotient of all positions (Q is still reduced and generated). ∎
//!
//! Nothing is inferred from sampled positions: the proof only uses the checked equalities of
//! `Φ` on `0..=N` and the inequality on `N`. Games outside the hypotheses (recurring codes,
//! digits before the point that add tokens, part rules such as Grundy's game) are never
//! reported periodic.

use crate::octal::{Game, PartRule};

/// A proved periodicity of the pretending function: `Φ(m + period) = Φ(m)` for all
/// `m ≥ preperiod`, and the quotient is that of the whole game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MiserePeriodicity {
    pub preperiod: u64,
    pub period: u64,
    /// `k`: the most tokens a move removes (the index of the last non-zero digit).
    pub last_index: u64,
    /// `h`: the most heaps a move leaves (at least 1 in the bound).
    pub max_heaps_left: u32,
    /// The least bound `N` for which the theorem applies with this preperiod and period.
    pub needed_bound: u64,
    /// The bound `N` of the quotient the proof used.
    pub proved_at: u64,
}

impl MiserePeriodicity {
    /// The heap in `0..=proved_at` with the same element as `heap`.
    pub fn reduce(&self, heap: u64) -> u64 {
        if heap <= self.proved_at {
            return heap;
        }
        self.preperiod + (heap - self.preperiod) % self.period
    }
}

/// The shortest period (then the least preperiod) that the theorem proves from `phi`
/// (`phi[m] = Φ(m)` for `m = 0..=N` of a verified quotient), or `None`.
pub fn detect(game: &Game, phi: &[u32]) -> Option<MiserePeriodicity> {
    if game.part_rule() != PartRule::Any || game.min_index() < 0 {
        return None;
    }
    let k = game.last_index()?;
    let h = u64::from(game.max_heaps().max(1));
    let n = phi.len().checked_sub(1)? as u64;
    for p in 1..=n {
        // Least n0 with Φ(m + p) = Φ(m) for n0 ≤ m ≤ N − p.
        let mut n0 = 0u64;
        for m in (0..=n - p).rev() {
            if phi[(m + p) as usize] != phi[m as usize] {
                n0 = m + 1;
                break;
            }
        }
        let needed = h
            .checked_mul(n0.max(1).checked_add(p)?)?
            .checked_add(k)?
            .saturating_sub(1);
        if n >= needed && n0 + p <= n {
            return Some(MiserePeriodicity {
                preperiod: n0,
                period: p,
                last_index: k,
                max_heaps_left: h as u32,
                needed_bound: needed,
                proved_at: n,
            });
        }
    }
    None
}
