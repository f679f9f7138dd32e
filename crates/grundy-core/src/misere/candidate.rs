//! Candidate quotients: a product monoid, *pretending* (labelling each element by the
//! outcome of its least word) and *reduction* (Plambeck & Siegel 2008, and
//! the algorithms appendix C of its supplement).
//!
//! A candidate for the quotient of heaps `0..=n` is a finite commutative monoid `D` with an
//! element `γ(h)` for every heap `h` (the identity for heaps without options, which are the
//! empty game). Here `D = R × C(m₁,p₁) × … × C(m_s,p_s)`: a previous quotient or candidate `R`
//! (its elements that the non-free heaps generate) times cyclic monoids
//! `C(m,p) = ⟨x | x^(m+p) = x^m⟩`, one per *free* heap.
//!
//! **Pretending.** The elements that the heaps generate are listed in the order of their
//! least words ([`super::monoid`]); each element `y` with least word `w` gets the label
//! *P* iff `w` has an option and no option `w'` of `w` has an element `γ(w')` labelled *P*.
//! Options are smaller words, so their elements are labelled already. With
//! `T(w)` = the elements of the options of `w`, `T(w + k·h) = T(w)·γ(h)^k ∪ γ(w)·γ(h)^(k−1)·T(h)`
//! (a move is made in `w` or in one of the `k` copies of `h`), which is how the sets are built.
//!
//! If the true quotient is a homomorphic image of `D` (the candidate identifies no two
//! distinguishable words), every label is the true misère outcome. Whether it is, is decided
//! afterwards by [`super::verify`]; nothing here is trusted.
//!
//! **Reduction.** The labelled monoid is divided by the coarsest congruence that respects
//! the labels (`x ~ y` iff `xz` and `yz` have the same label for every `z`), computed by
//! Moore's partition refinement with the generators' actions. The result is a *reduced*
//! bipartite monoid (Plambeck & Siegel 2008, Def. of "reduced"): distinct elements are
//! distinguished by some `z`.

use std::collections::HashMap;
use std::hash::BuildHasherDefault;

use crate::budget::FxHasher;

use super::budget::{Meter, QuotientBudget};
use super::error::MisereError;
use super::monoid::{Monoid, Word};

type FxMap<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;

/// `R × C(m₁,p₁) × …`, elements coded in mixed radix: `r + |R|·(k₁ + (m₁+p₁)·(k₂ + …))`.
pub(crate) struct Product<'a> {
    base: &'a Monoid,
    cyc: Vec<(u64, u64)>,
    place: Vec<u64>,
}

impl<'a> Product<'a> {
    /// `None` when the product has more than `u64` codes.
    pub(crate) fn new(base: &'a Monoid, cyc: &[(u32, u32)]) -> Option<Product<'a>> {
        let mut place = Vec::with_capacity(cyc.len());
        let mut p = base.size() as u64;
        for &(m, per) in cyc {
            place.push(p);
            p = p.checked_mul(u64::from(m) + u64::from(per.max(1)))?;
        }
        Some(Product {
            base,
            cyc: cyc
                .iter()
                .map(|&(m, p)| (u64::from(m), u64::from(p.max(1))))
                .collect(),
            place,
        })
    }

    /// The code of an element of the base.
    pub(crate) fn base_elem(r: u32) -> u64 {
        u64::from(r)
    }

    /// The generator `x` of cyclic factor `j`.
    pub(crate) fn unit(&self, j: usize) -> u64 {
        let (m, p) = self.cyc[j];
        let k = if 1 >= m { m + (1 - m) % p } else { 1 };
        k * self.place[j]
    }

    #[inline]
    pub(crate) fn mul(&self, a: u64, b: u64) -> u64 {
        let bs = self.base.size() as u64;
        let (mut qa, mut qb) = (a / bs, b / bs);
        let mut code = u64::from(self.base.mul((a % bs) as u32, (b % bs) as u32));
        for (j, &(m, p)) in self.cyc.iter().enumerate() {
            let l = m + p;
            let mut k = qa % l + qb % l;
            qa /= l;
            qb /= l;
            if k >= m {
                k = m + (k - m) % p;
            }
            code += k * self.place[j];
        }
        code
    }
}

/// A reduced candidate: the monoid, its P-portion, the element of every heap and the least
/// word of every element.
#[derive(Debug, Clone)]
pub(crate) struct Candidate {
    pub(crate) monoid: Monoid,
    pub(crate) p: Vec<bool>,
    pub(crate) phi: Vec<u32>,
    pub(crate) words: Vec<Word>,
    /// Elements of the unreduced candidate.
    pub(crate) unreduced: usize,
}

/// The options of every heap `0..=n`, as lists of heaps.
pub(crate) struct OptionStore {
    /// Per heap: `[len, part, part, …, len, part, …]`.
    pub(crate) flat: Vec<Vec<u32>>,
}

impl OptionStore {
    pub(crate) fn iter(&self, heap: usize) -> impl Iterator<Item = &[u32]> + '_ {
        let v = &self.flat[heap];
        let mut i = 0;
        std::iter::from_fn(move || {
            let len = *v.get(i)? as usize;
            let s = v.get(i + 1..i + 1 + len)?;
            i += 1 + len;
            Some(s)
        })
    }
    pub(crate) fn trivial(&self, heap: usize) -> bool {
        self.flat[heap].is_empty()
    }
    pub(crate) fn heaps(&self) -> usize {
        self.flat.len()
    }
}

/// Builds, labels and reduces the candidate with heap images `gamma` (codes in `prod`; the
/// identity `0` for heaps without options).
pub(crate) fn build(
    prod: &Product<'_>,
    gamma: &[u64],
    options: &OptionStore,
    meter: &mut Meter<'_>,
) -> Result<Candidate, MisereError> {
    let tcodes = transitions(prod, gamma, options, meter)?;
    let found = enumerate(prod, gamma, options, &tcodes, meter)?;
    let (class, classes) = refine(prod, gamma, options, &found, meter)?;
    reduce(prod, gamma, options, &found, (&class, classes), meter)
}

/// The element of code `c`, listed before.
fn lookup(index: &FxMap<u64, u32>, c: u64) -> Result<u32, MisereError> {
    index.get(&c).copied().ok_or(MisereError::Internal {
        what: "an option's element was not listed before its word",
    })
}

/// The refusal of a candidate or quotient of `size` elements above `max`.
fn too_large(size: usize, max: usize, heap: u64) -> MisereError {
    MisereError::QuotientTooLarge { heap, size, max }
}

/// Transitions of every heap: the elements of its options (codes, sorted, distinct).
fn transitions(
    prod: &Product<'_>,
    gamma: &[u64],
    options: &OptionStore,
    meter: &mut Meter<'_>,
) -> Result<Vec<Vec<u64>>, MisereError> {
    let mut tcodes: Vec<Vec<u64>> = vec![Vec::new(); options.heaps()];
    for (h, slot) in tcodes.iter_mut().enumerate().skip(1) {
        let mut t: Vec<u64> = Vec::new();
        for parts in options.iter(h) {
            let mut c = 0u64;
            for &q in parts {
                c = prod.mul(c, gamma[q as usize]);
            }
            t.push(c);
        }
        meter.charge(t.len() as u64 + 1)?;
        t.sort_unstable();
        t.dedup();
        *slot = t;
    }
    Ok(tcodes)
}

/// The unreduced candidate's elements in the order of least words: their codes, where each
/// was found (`parent[y]`: the element `x`, heap `h` and power `k` with `y = x·γ(h)^k`), and
/// their labels (P-positions).
struct Enumeration {
    index: FxMap<u64, u32>,
    codes: Vec<u64>,
    parent: Vec<(u32, u32, u32)>,
    label: Vec<bool>,
}

/// Enumeration in the order of least words, with labels.
fn enumerate(
    prod: &Product<'_>,
    gamma: &[u64],
    options: &OptionStore,
    tcodes: &[Vec<u64>],
    meter: &mut Meter<'_>,
) -> Result<Enumeration, MisereError> {
    let budget: QuotientBudget = meter.budget;
    let mut index: FxMap<u64, u32> = FxMap::default();
    let mut codes: Vec<u64> = vec![0];
    let mut parent: Vec<(u32, u32, u32)> = vec![(0, 0, 0)];
    let mut label: Vec<bool> = vec![false];
    let mut t_off: Vec<usize> = vec![0, 0];
    let mut t_flat: Vec<u32> = Vec::new();
    let mut stamp: Vec<u32> = vec![u32::MAX];
    index.insert(0, 0);
    for h in 1..options.heaps() {
        let g = gamma[h];
        if options.trivial(h) || g == 0 {
            continue;
        }
        let prev = codes.len();
        let mut cur: Vec<u64> = codes.clone();
        let mut gk = g; // γ(h)^k
        let mut k = 1u32;
        loop {
            let mut any_new = false;
            for x in 0..prev {
                let before = cur[x];
                let c = prod.mul(before, g);
                cur[x] = c;
                if index.contains_key(&c) {
                    continue;
                }
                let y = codes.len();
                if y >= budget.max_candidate {
                    return Err(too_large(y + 1, budget.max_candidate, meter.heap));
                }
                let y32 = y as u32;
                stamp.push(u32::MAX);
                let start = t_flat.len();
                let (xs, xe) = (t_off[x], t_off[x + 1]);
                meter.charge((xe - xs + tcodes[h].len()) as u64 + 1)?;
                for i in xs..xe {
                    let t = t_flat[i];
                    let e = lookup(&index, prod.mul(codes[t as usize], gk))?;
                    if stamp[e as usize] != y32 {
                        stamp[e as usize] = y32;
                        t_flat.push(e);
                    }
                }
                for &tc in &tcodes[h] {
                    let e = lookup(&index, prod.mul(before, tc))?;
                    if stamp[e as usize] != y32 {
                        stamp[e as usize] = y32;
                        t_flat.push(e);
                    }
                }
                meter.memory((t_flat.len() / 2 + codes.len() * 6) as u64)?;
                let ts = &t_flat[start..];
                let p = !ts.is_empty() && ts.iter().all(|&t| !label[t as usize]);
                t_off.push(t_flat.len());
                label.push(p);
                codes.push(c);
                parent.push((x as u32, h as u32, k));
                index.insert(c, y32);
                any_new = true;
            }
            if !any_new {
                break;
            }
            gk = prod.mul(gk, g);
            k += 1;
        }
    }
    Ok(Enumeration {
        index,
        codes,
        parent,
        label,
    })
}

/// Moore's refinement with the actions of the distinct generators: the class of every
/// element, numbered by first appearance, and the number of classes.
fn refine(
    prod: &Product<'_>,
    gamma: &[u64],
    options: &OptionStore,
    found: &Enumeration,
    meter: &mut Meter<'_>,
) -> Result<(Vec<u32>, usize), MisereError> {
    let heaps = options.heaps();
    let size = found.codes.len();
    let mut gens: Vec<u64> = (1..heaps)
        .filter(|&h| !options.trivial(h) && gamma[h] != 0)
        .map(|h| gamma[h])
        .collect();
    gens.sort_unstable();
    gens.dedup();
    let mut act: Vec<Vec<u32>> = Vec::with_capacity(gens.len());
    for &g in &gens {
        meter.charge(size as u64)?;
        let mut a = Vec::with_capacity(size);
        for &c in &found.codes {
            a.push(lookup(&found.index, prod.mul(c, g))?);
        }
        act.push(a);
    }
    let mut class: Vec<u32> = found.label.iter().map(|&p| u32::from(p)).collect();
    let mut classes = renumber(&mut class);
    loop {
        let before = classes;
        for a in &act {
            meter.charge(size as u64)?;
            let mut ids: FxMap<(u32, u32), u32> = FxMap::default();
            let mut next = vec![0u32; size];
            for y in 0..size {
                let key = (class[y], class[a[y] as usize]);
                let n = ids.len() as u32;
                next[y] = *ids.entry(key).or_insert(n);
            }
            classes = ids.len();
            class = next;
        }
        if classes == before {
            break;
        }
    }
    let max = meter.budget.max_quotient;
    if classes > max {
        return Err(too_large(classes, max, meter.heap));
    }
    Ok((class, classes))
}

/// The reduced monoid: classes numbered by their first (least-word) element, its table, its
/// P-positions, the heaps' images and each class's least word.
fn reduce(
    prod: &Product<'_>,
    gamma: &[u64],
    options: &OptionStore,
    found: &Enumeration,
    (class, classes): (&[u32], usize),
    meter: &mut Meter<'_>,
) -> Result<Candidate, MisereError> {
    let Enumeration {
        index,
        codes,
        parent,
        label,
    } = found;
    let mut rep: Vec<usize> = vec![usize::MAX; classes];
    for (y, &c) in class.iter().enumerate() {
        if rep[c as usize] == usize::MAX {
            rep[c as usize] = y;
        }
    }
    // `class` is already numbered by first appearance (`renumber` and the maps above assign
    // ids in the order of y), so rep is increasing.
    let mut table = vec![0u32; classes * classes];
    meter.charge((classes * classes) as u64)?;
    for a in 0..classes {
        for b in a..classes {
            let e = lookup(index, prod.mul(codes[rep[a]], codes[rep[b]]))?;
            let c = class[e as usize];
            table[a * classes + b] = c;
            table[b * classes + a] = c;
        }
    }
    let p: Vec<bool> = rep.iter().map(|&y| label[y]).collect();
    let mut phi = vec![0u32; options.heaps()];
    for (h, slot) in phi.iter_mut().enumerate().skip(1) {
        if !options.trivial(h) {
            *slot = class[lookup(index, gamma[h])? as usize];
        }
    }
    let words = rep
        .iter()
        .map(|&y| {
            let mut w: Word = Vec::new();
            let mut y = y;
            while y != 0 {
                let (x, h, k) = parent[y];
                w.push((u64::from(h), k));
                y = x as usize;
            }
            w
        })
        .collect();
    Ok(Candidate {
        monoid: Monoid::from_table(classes, table),
        p,
        phi,
        words,
        unreduced: codes.len(),
    })
}

/// Renumbers class ids by first appearance; returns the number of classes.
fn renumber(class: &mut [u32]) -> usize {
    let mut ids: FxMap<u32, u32> = FxMap::default();
    for c in class.iter_mut() {
        let n = ids.len() as u32;
        *c = *ids.entry(*c).or_insert(n);
    }
    ids.len()
}
