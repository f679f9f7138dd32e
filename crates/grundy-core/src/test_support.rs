//! Helpers shared by the core's unit tests: a reproducible PRNG, a brute-force solver that
//! knows nothing but the definitions, the rules of finite Welter and Nim written out
//! independently of the code under test, random octal codes, and the worked examples of the
//! papers as data.
//!
//! A new property test needs one line per helper: `let mut rng = Rng(seed);`,
//! `let mut brute = Brute::new(welter_followers);`.

use std::collections::HashMap;
use std::hash::Hash;

// These two files are also compiled into the integration tests (`tests/common/mod.rs`).
mod data;
mod rng;
pub use data::{u64s, vectors, KNOWN_PERIODS};
pub use rng::Rng;

/// The minimum excludant: the least natural number not among `values`.
pub fn mex(values: impl IntoIterator<Item = u64>) -> u64 {
    let mut seen: Vec<u64> = values.into_iter().collect();
    seen.sort_unstable();
    seen.dedup();
    (0..)
        .zip(&seen)
        .find(|&(i, &v)| i != v)
        .map_or(seen.len() as u64, |(i, _)| i)
}

/// The followers of a position, each with the move (label) that reaches it.
type Followers<P, M> = Box<dyn Fn(&P) -> Vec<(M, P)>>;

/// A game solved from its definitions alone, memoised on the position (give positions a
/// canonical form, e.g. sorted, so that equal positions hash equal):
///
/// * normal play: `G(p) = mex { G(q) : q a follower of p }`, and `p` is a P-position iff
///   `G(p) = 0`;
/// * misère play: the player to move wins iff there is no move or some follower is a misère
///   loss for the player who then moves.
///
/// The winning moves are the moves to a P-position of the chosen play.
pub struct Brute<P, M> {
    followers: Followers<P, M>,
    normal: HashMap<P, u64>,
    misere: HashMap<P, bool>,
}

impl<P: Clone + Eq + Hash, M: Ord> Brute<P, M> {
    pub fn new(followers: impl Fn(&P) -> Vec<(M, P)> + 'static) -> Self {
        Brute {
            followers: Box::new(followers),
            normal: HashMap::new(),
            misere: HashMap::new(),
        }
    }

    /// The Sprague–Grundy value (normal play).
    pub fn value(&mut self, p: &P) -> u64 {
        if let Some(&v) = self.normal.get(p) {
            return v;
        }
        let values: Vec<u64> = (self.followers)(p)
            .iter()
            .map(|(_, q)| self.value(q))
            .collect();
        let v = mex(values);
        self.normal.insert(p.clone(), v);
        v
    }

    /// Misère play: true when the player to move wins (a terminal position is a win).
    pub fn misere_wins(&mut self, p: &P) -> bool {
        if let Some(&w) = self.misere.get(p) {
            return w;
        }
        let followers = (self.followers)(p);
        let w = followers.is_empty() || followers.iter().any(|(_, q)| !self.misere_wins(q));
        self.misere.insert(p.clone(), w);
        w
    }

    /// Every move to a P-position (normal play, or misère play when `misere`), sorted.
    pub fn winning_moves(&mut self, p: &P, misere: bool) -> Vec<M> {
        let mut moves = Vec::new();
        for (m, q) in (self.followers)(p) {
            let losing = if misere {
                !self.misere_wins(&q)
            } else {
                self.value(&q) == 0
            };
            if losing {
                moves.push(m);
            }
        }
        moves.sort();
        moves
    }
}

/// Finite Welter by its rules: coins on distinct squares (sorted), a move slides one coin to
/// a lower free square. Labels are `(from, to)`.
#[allow(clippy::ptr_arg)] // the position type of `Brute` is `Vec<u64>`
pub fn welter_followers(pos: &Vec<u64>) -> Vec<((u64, u64), Vec<u64>)> {
    let mut out = Vec::new();
    for (i, &c) in pos.iter().enumerate() {
        for to in (0..c).filter(|to| !pos.contains(to)) {
            let mut next = pos.clone();
            next[i] = to;
            next.sort_unstable();
            out.push(((c, to), next));
        }
    }
    out
}

/// Nim by its rules: heaps (sorted), a move lowers one heap. Labels are `(from, to)`.
#[allow(clippy::ptr_arg)] // the position type of `Brute` is `Vec<u64>`
pub fn nim_followers(heaps: &Vec<u64>) -> Vec<((u64, u64), Vec<u64>)> {
    let mut out = Vec::new();
    for (i, &h) in heaps.iter().enumerate() {
        for to in 0..h {
            let mut next = heaps.clone();
            next[i] = to;
            next.sort_unstable();
            out.push(((h, to), next));
        }
    }
    out
}

/// The codes `fixed`, then 40 random ones ([`random_code`]) drawn from `rng`.
pub fn codes_and_random(fixed: &[&str], rng: &mut Rng) -> Vec<String> {
    let mut codes: Vec<String> = fixed.iter().map(|s| (*s).to_owned()).collect();
    for _ in 0..40 {
        codes.push(random_code(rng));
    }
    codes
}

/// A random octal or hexadecimal game code: 1–4 digits after the point, sometimes digits
/// before the point, sometimes a repeating block.
pub fn random_code(rng: &mut Rng) -> String {
    let hex = rng.below(3) == 0;
    let digit = |rng: &mut Rng| {
        let d = if hex { rng.below(16) } else { rng.below(8) };
        char::from_digit(d as u32, 16).unwrap().to_ascii_uppercase()
    };
    let mut s = String::new();
    if rng.below(5) == 0 {
        let opts: &[char] = if hex {
            &['4', '8', 'C', '0']
        } else {
            &['4', '0']
        };
        for _ in 0..1 + rng.below(2) {
            s.push(opts[rng.below(opts.len() as u64) as usize]);
        }
    }
    s.push('.');
    let len = 1 + rng.below(4) as usize;
    let rec = if rng.below(5) == 0 {
        Some(rng.below(len as u64) as usize)
    } else {
        None
    };
    for i in 0..len {
        if rec == Some(i) {
            s.push('(');
        }
        s.push(digit(rng));
    }
    if rec.is_some() {
        s.push(')');
    }
    s
}

#[cfg(test)]
mod tests;
