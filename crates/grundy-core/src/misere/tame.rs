//! Tameness: is the quotient that of misère Nim?
//!
//! Plambeck (2005) and Plambeck & Siegel (2008) call a quotient *tame* when it is
//! isomorphic, as a bipartite monoid, to the misère quotient of Nim restricted to some heap
//! sizes — the quotients of Conway's tame games (Winning Ways, ch. 13). For Nim heaps below
//! `2^m` that quotient `T_m` is
//!
//! * `m = 0`: `{1}`, `P = ∅` (only the empty heap);
//! * `m = 1`: `{1, a}`, `a² = 1`, `P = {a}` (heaps 0, 1: the parity of the ones);
//! * `m ≥ 2`: `{1, a} ⊔ G` with `|G| = 2^m`: `1 = *0`, `a = *1`, and `z_s ∈ G` the class of
//!   the positions with a heap ≥ 2 and nim-sum `s`, so `a·a = 1`, `a·z_s = z_(s⊕1)`,
//!   `z_s·z_t = z_(s⊕t)`, `P = {a, z_0}` (Bouton's misère rule). `T_2` is
//!   `⟨a, b | a² = 1, b³ = b⟩`, six elements.
//!
//! (Heaps below any bound `n ≥ 2` give `T_m` with `2^(m−1) ≤ n < 2^m`.)
//!
//! **Test used.** `(Q, P)` with `|Q| ≥ 3` is isomorphic to some `T_m` iff `P = {a, e}` with
//! `a² = 1 ≠ a`, `e² = e ≠ 1`, `G := {x : xe = x} = Q ∖ {1, a}`, `g² = e` for every `g ∈ G`,
//! and `ae ≠ e`. *Proof.* These hold in `T_m`. Conversely `G` is then an abelian group with
//! identity `e` in which every element has order ≤ 2, i.e. `(Z/2)^m`; choose a basis of `G`
//! containing `c = ae` (possible as `c ≠ e`) and send `z_s` to the product of the basis
//! elements named by the bits of `s`, with `c` for bit 0, `1 ↦ 1`, `a ↦ a`. This is a
//! bijection that respects products (`a·g = a(eg) = c·g`) and `P = {a, e} ↔ {a, z_0}`. ∎

use super::monoid::Monoid;

/// The `m` with `(q, p) ≅ T_m`, or `None` for a wild quotient.
pub fn tame_rank(q: &Monoid, p: &[bool]) -> Option<u32> {
    let size = q.size();
    let ps: Vec<u32> = (0..size as u32).filter(|&x| p[x as usize]).collect();
    match size {
        1 => return ps.is_empty().then_some(0),
        2 => return (ps == [1] && q.mul(1, 1) == 0).then_some(1),
        _ => {}
    }
    if ps.len() != 2 {
        return None;
    }
    let (a, e) = if q.mul(ps[0], ps[0]) == 0 {
        (ps[0], ps[1])
    } else {
        (ps[1], ps[0])
    };
    if a == 0 || e == 0 || q.mul(a, a) != 0 || q.mul(e, e) != e || q.mul(a, e) == e {
        return None;
    }
    let mut g_count = 0usize;
    for x in 0..size as u32 {
        let in_g = q.mul(x, e) == x;
        if in_g != (x != 0 && x != a) {
            return None;
        }
        if in_g {
            if q.mul(x, x) != e {
                return None;
            }
            g_count += 1;
        }
    }
    if !g_count.is_power_of_two() || g_count < 4 {
        return None;
    }
    Some(g_count.trailing_zeros())
}
