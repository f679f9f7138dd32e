//! The rare/common method's marks as *stamps*: while values reach 64 or more, the set of values
//! a heap excludes is an array of [`MARKS`] stamps, and `mark[x] == stamp` ⇔ x is excluded for
//! the heap holding that stamp. Every heap gets a fresh stamp, so arrays are never cleared (only
//! when the u16 stamps wrap, every ~65,000 heaps). These are the loops that fill such arrays;
//! `bitmarks.rs` holds the same loops for one-word sets (values below 64).

use crate::octal::engine::split::HEAPS;
use crate::octal::values::Cell;

/// Entries per mark array: every nim-sum of two u16 values, so u16 indices need no bounds
/// checks (only the low entries, up to the largest value, are ever touched or cached).
pub(crate) const MARKS: usize = 1 << 16;
/// One heap's marks.
pub(crate) type Marks = [Stamp; MARKS];
/// Stamps are u16 to halve the cache footprint of the mark arrays; they wrap after 65,535
/// heaps, when the arrays are cleared.
pub(crate) type Stamp = u16;

/// Slot `j` of a run of mark arrays.
#[inline(always)]
pub(crate) fn slot(marks: &mut [Stamp], j: usize) -> &mut Marks {
    (&mut marks[j * MARKS..(j + 1) * MARKS])
        .try_into()
        .expect("a slot has MARKS entries")
}

/// `mark[va ⊕ G(r − a)] = stamp` for each listed position `a` (value `va`).
/// Kept out of line so that the hot loop gets all registers to itself.
#[inline(never)]
pub(crate) fn pairs<T: Cell>(
    pos: &[u32],
    vals: &[u16],
    g: &[T],
    r: usize,
    mark: &mut Marks,
    stamp: Stamp,
) {
    for (&a, &va) in pos.iter().zip(vals) {
        mark[usize::from(va ^ g[r - a as usize].low16())] = stamp;
    }
}

/// [`pairs`] for the [`HEAPS`] heaps with totals `r, r+1, …` at once: heap j in slot j of
/// `marks` with stamp `s0 + j`. Every partner `r − a + j` must be in `g`. The partners of a
/// position are adjacent, so one pass over the positions serves all heaps.
#[inline(never)]
pub(crate) fn pairs_block<T: Cell>(
    pos: &[u32],
    vals: &[u16],
    g: &[T],
    r: usize,
    marks: &mut [Stamp],
    s0: Stamp,
) {
    let mut slots = marks
        .chunks_exact_mut(MARKS)
        .map(|m| -> &mut Marks { m.try_into().expect("a slot has MARKS entries") });
    let mut slots: [&mut Marks; HEAPS] =
        std::array::from_fn(|_| slots.next().expect("HEAPS slots"));
    if T::BYTES != 2 {
        for (&a, &va) in pos.iter().zip(vals) {
            let b = r - a as usize;
            let q: &[T; HEAPS] = g[b..b + HEAPS].try_into().expect("HEAPS partners");
            for (k, mark) in slots.iter_mut().enumerate() {
                mark[usize::from(va ^ q[k].low16())] = s0 + k as Stamp;
            }
        }
        return;
    }
    // u16 cells (values 256 to 65,535): the four partners as the 16-bit lanes of one word
    // (one load), XOR-ed with the position's value in every lane at once — 7 % faster on `.6`;
    // with u8 cells the lanes cost four loads and shifts, and the loop above is faster.
    let [m0, m1, m2, m3] = slots;
    let (s1, s2, s3) = (s0 + 1, s0 + 2, s0 + 3);
    for (&a, &va) in pos.iter().zip(vals) {
        let b = r - a as usize;
        let x = lanes(g[b..b + HEAPS].try_into().expect("HEAPS partners"), va);
        m0[usize::from(x as u16)] = s0;
        m1[usize::from((x >> 16) as u16)] = s1;
        m2[usize::from((x >> 32) as u16)] = s2;
        m3[usize::from((x >> 48) as u16)] = s3;
    }
}

/// The four values `q` as the 16-bit lanes of one word (one load for u16 cells), each XOR-ed
/// with `va`: the nim-sums of a position with the partners of four consecutive heaps.
#[inline(always)]
pub(crate) fn lanes<T: Cell>(q: &[T; HEAPS], va: u16) -> u64 {
    (u64::from(q[0].low16())
        | (u64::from(q[1].low16()) << 16)
        | (u64::from(q[2].low16()) << 32)
        | (u64::from(q[3].low16()) << 48))
        ^ (u64::from(va) * 0x0001_0001_0001_0001)
}

/// Removes from `missing` the values marked with `stamp`, keeping the order. Branch-free:
/// whether a value has been found is unpredictable, and mispredictions cost more than the
/// unconditional copies.
#[inline]
pub(crate) fn drop_marked(missing: &mut Vec<u16>, mark: &Marks, stamp: Stamp) {
    let mut kept = 0;
    for i in 0..missing.len() {
        let v = missing[i];
        missing[kept] = v;
        kept += usize::from(mark[usize::from(v)] != stamp);
    }
    missing.truncate(kept);
}
