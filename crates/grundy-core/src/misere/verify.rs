//! The closure checks that prove a candidate is the misère quotient.
//!
//! **Setting.** `A_n` is the set of all positions whose heaps have at most `n` tokens: the
//! free commutative monoid on the heaps `1..=n` (heaps without options are the empty game and
//! are left out). Its misère quotient (Plambeck 2005; Plambeck & Siegel 2008) is
//! `A_n / ≡`, where `G ≡ H` iff `o⁻(G + X) = o⁻(H + X)` for every `X ∈ A_n`; it is a
//! commutative monoid `Q`, `Φ: A_n → Q` the quotient map, and `P ⊂ Q` the image of the
//! misère P-positions.
//!
//! **Theorem** (the form of Plambeck & Siegel's verification used here). Let `Q` be a finite
//! commutative monoid, `P ⊂ Q`, and `Φ: A_n → Q` a surjective homomorphism such that
//! `(Q, P)` is reduced (for `x ≠ y` some `z` has exactly one of `xz`, `yz` in `P`). Write
//! `T(H)` for the set of `Φ(H')`, `H'` an option of `H`. If for every `H ∈ A_n`
//!
//! 1. `H = 0`: `Φ(0) = 1 ∉ P`;
//! 2. `Φ(H) ∈ P` ⇒ `T(H) ∩ P = ∅` (no move from P to P), and
//! 3. `Φ(H) ∉ P`, `H ≠ 0` ⇒ `T(H) ∩ P ≠ ∅` (a move from N to P),
//!
//! then `Q` is the misère quotient of `A_n`, `Φ` its quotient map and `P` its P-portion.
//! *Proof.* By induction on `H`: its options are correctly classified, so `H` is a misère
//! P-position iff it has an option and every option is N, iff (by 1–3) `Φ(H) ∈ P`; every
//! non-zero `H` has an option because only heaps with options are generators. Outcomes thus
//! depend only on `Φ`, so `Φ(G) = Φ(H)` ⇒ `G ≡ H`; conversely `G ≡ H` ⇒ `Φ(G)z ∈ P` iff
//! `Φ(H)z ∈ P` for all `z` (Φ is onto) ⇒ `Φ(G) = Φ(H)` as `Q` is reduced. ∎
//!
//! **Finite checks.** Conditions 2–3 range over the infinite `A_n`; they are decided exactly:
//!
//! * *P-check.* `T(H) = ⋃_{h ∈ H} Φ(H − h)·T(h)` and `Φ(H − h)` runs over all of `Q` as `H`
//!   runs over the words containing `h`. So 2 holds iff for all `y ∈ Q` and heaps `h`:
//!   `y·Φ(h) ∈ P` ⇒ `y·T(h) ∩ P = ∅` — `|Q| × n` tests.
//! * *N-check.* The pair `σ(H) = (Φ(H), T(H))` evolves as
//!   `σ(H + h) = (Φ(H)·Φ(h), T(H)·Φ(h) ∪ Φ(H)·T(h))`, so the reachable pairs are finite; and
//!   3 is *monotone*: if `(x, S)` satisfies it, so does `(x, S')` for every `S' ⊇ S`, and the
//!   update is monotone in `S`. The words are visited in increasing lexicographic order
//!   ([`super::monoid`]), skipping a word (and every word that extends it by the current and
//!   smaller heaps) as soon as its pair `(x, S)` has `S ⊇ S'` for a pair `(x, S')` already
//!   visited. Every skipped word `p + u` is then dominated by `w' + u` with `w' < p`, by
//!   induction on the well-order, so every word is dominated by a visited one; hence 3 holds
//!   everywhere iff it holds on the visited words, and the first visited failure is the
//!   lexicographically least failure (MisereSolver's "lex-least N-failure" search; Plambeck &
//!   Siegel 2008, supplement, appendix C). The search ends because a repeated pair is dominated by
//!   itself.
//!
//! For the least failure `f` (P- or N-), every smaller word is correctly classified (its
//! options are smaller still), so the true outcome of `f` is the opposite of its label:
//! the candidate is wrong there, and the construction must tell `f` apart
//! ([`super::quotient`]).

use super::budget::Meter;
use super::error::MisereError;
use super::monoid::{word_add, word_cmp, BitSet, Monoid, Word};

/// A heap as a generator: its element and the elements of its options.
#[derive(Debug, Clone)]
pub(crate) struct Gen {
    pub(crate) heap: u64,
    pub(crate) g: u32,
    pub(crate) trans: Vec<u32>,
}

/// The least failure of a candidate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Failure {
    pub(crate) word: Word,
}

/// For every element `x`, the minimal sets `S` of the pairs `(x, S)` of visited words
/// (an antichain under inclusion).
#[derive(Debug, Clone)]
pub(crate) struct Antichain {
    sets: Vec<Vec<BitSet>>,
    entries: usize,
    width: usize,
}

impl Antichain {
    pub(crate) fn new(size: usize) -> Antichain {
        Antichain {
            sets: vec![Vec::new(); size],
            entries: 0,
            width: size.div_ceil(64).max(1),
        }
    }

    /// True when some stored set of `x` is contained in `s`.
    pub(crate) fn dominated(&self, x: u32, s: &BitSet) -> bool {
        self.sets[x as usize].iter().any(|t| t.is_subset(s))
    }

    /// Inserts `s` unless dominated; drops stored supersets. Returns false when dominated.
    pub(crate) fn insert(&mut self, x: u32, s: &BitSet) -> bool {
        let list = &mut self.sets[x as usize];
        if list.iter().any(|t| t.is_subset(s)) {
            return false;
        }
        let before = list.len();
        list.retain(|t| !s.is_subset(t));
        self.entries = self.entries + 1 + list.len() - before;
        list.push(s.clone());
        true
    }

    /// Words held (bitsets plus their headers).
    pub(crate) fn words(&self) -> u64 {
        self.entries as u64 * (self.width as u64 + 3) + self.sets.len() as u64 * 3
    }

    fn len_of(&self, x: u32) -> usize {
        self.sets[x as usize].len()
    }
}

/// The P-check: the least word `least(y) + h` with `y·Φ(h) ∈ P` and `y·t ∈ P` for some
/// `t ∈ T(h)`, or `None`.
pub(crate) fn p_check(
    q: &Monoid,
    p: &[bool],
    words: &[Word],
    gens: &[Gen],
    meter: &mut Meter<'_>,
) -> Result<Option<Failure>, MisereError> {
    let size = q.size();
    let mut best: Option<Word> = None;
    for gen in gens {
        // Z = { y : y·t ∈ P for some t ∈ T(h) }.
        meter.charge((size * (gen.trans.len() + 1)) as u64)?;
        for y in 0..size as u32 {
            if !p[q.mul(y, gen.g) as usize] {
                continue;
            }
            if gen.trans.iter().any(|&t| p[q.mul(y, t) as usize]) {
                let w = word_add(&words[y as usize], gen.heap, 1);
                if best
                    .as_ref()
                    .is_none_or(|b| word_cmp(&w, b) == std::cmp::Ordering::Less)
                {
                    best = Some(w);
                }
            }
        }
    }
    Ok(best.map(|word| Failure { word }))
}

/// The generators the N-check needs: one per distinct `(Φ(h), T(h))` pair (the smallest such
/// heap), and none whose set contains the set of a smaller heap with the same element (every
/// word using it is dominated by the word using the smaller heap, which is smaller).
fn search_gens(gens: &[Gen], size: usize) -> Vec<(u64, u32, Vec<u32>, BitSet)> {
    let mut out: Vec<(u64, u32, Vec<u32>, BitSet)> = Vec::new();
    let mut sorted: Vec<&Gen> = gens.iter().collect();
    sorted.sort_by_key(|g| g.heap);
    for g in sorted {
        let mut bits = BitSet::new(size);
        for &t in &g.trans {
            bits.insert(t);
        }
        if out
            .iter()
            .any(|(_, x, _, b)| *x == g.g && b.is_subset(&bits))
        {
            continue;
        }
        out.push((g.heap, g.g, g.trans.clone(), bits));
    }
    out
}

/// The N-check: the least word failing condition 3, or `None`; `limit` stops the search at
/// the first word not below it (a known failure). On success the antichain of visited pairs
/// is returned too.
pub(crate) fn n_check(
    q: &Monoid,
    p: &[bool],
    gens: &[Gen],
    limit: Option<&Word>,
    meter: &mut Meter<'_>,
) -> Result<(Option<Failure>, Antichain), MisereError> {
    let size = q.size();
    let mut pset = BitSet::new(size);
    for (x, &isp) in p.iter().enumerate() {
        if isp {
            pset.insert(x as u32);
        }
    }
    let gens = search_gens(gens, size);
    let mut anti = Antichain::new(size);
    let r = gens.len();
    if r == 0 {
        return Ok((None, anti));
    }
    struct Frame {
        level: usize,
        x: u32,
        s: BitSet,
        descended: bool,
    }
    let mut exps: Vec<u32> = vec![0; r];
    let mut stack: Vec<Frame> = vec![Frame {
        level: r - 1,
        x: 0,
        s: BitSet::new(size),
        descended: false,
    }];
    let mut scratch = BitSet::new(size);
    let word_now = |exps: &[u32]| -> Word {
        let mut w: Word = Vec::new();
        for l in (0..r).rev() {
            if exps[l] > 0 {
                w.push((gens[l].0, exps[l]));
            }
        }
        w
    };
    while let Some(top) = stack.last_mut() {
        if !top.descended {
            top.descended = true;
            if top.level > 0 {
                let child = Frame {
                    level: top.level - 1,
                    x: top.x,
                    s: top.s.clone(),
                    descended: false,
                };
                stack.push(child);
                continue;
            }
        }
        // One more copy of this level's heap.
        let l = top.level;
        let (_, g, ref trans, _) = gens[l];
        scratch.clear();
        let mut cost = 1u64;
        for s in top.s.iter() {
            scratch.insert(q.mul(s, g));
            cost += 1;
        }
        for &t in trans {
            scratch.insert(q.mul(top.x, t));
        }
        cost += trans.len() as u64 + anti.len_of(q.mul(top.x, g)) as u64;
        meter.charge(cost)?;
        let x = q.mul(top.x, g);
        if !anti.insert(x, &scratch) {
            exps[l] = 0;
            stack.pop();
            continue;
        }
        exps[l] += 1;
        meter.memory(anti.words() + (stack.len() * (anti.width + 4)) as u64)?;
        let top = stack.last_mut().ok_or(MisereError::Internal {
            what: "empty search stack",
        })?;
        top.x = x;
        std::mem::swap(&mut top.s, &mut scratch);
        top.descended = false;
        if let Some(lim) = limit {
            let w = word_now(&exps);
            if word_cmp(&w, lim) != std::cmp::Ordering::Less {
                return Ok((None, anti));
            }
        }
        if !p[x as usize] && !top.s.intersects(&pset) {
            return Ok((
                Some(Failure {
                    word: word_now(&exps),
                }),
                anti,
            ));
        }
    }
    Ok((None, anti))
}

/// Both checks; the least failure of the two (condition 1 is checked by the caller).
pub(crate) fn least_failure(
    q: &Monoid,
    p: &[bool],
    words: &[Word],
    gens: &[Gen],
    meter: &mut Meter<'_>,
) -> Result<(Option<Failure>, Antichain), MisereError> {
    let pf = p_check(q, p, words, gens, meter)?;
    let (nf, anti) = n_check(q, p, gens, pf.as_ref().map(|f| &f.word), meter)?;
    Ok((nf.or(pf), anti))
}
