//! The data a verified quotient is rebuilt from, and the shape checks every such record must
//! pass before anything is derived from it (a quotient read back from a store, or an engine
//! resumed from a saved `Q_n`).

use super::monoid::Word;

/// The data a quotient is rebuilt from (`MisereQuotient::parts`,
/// `MisereQuotient::from_parts`, `MisereEngine::parts`, `MisereEngine::resume`): everything
/// but what is derived from it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuotientParts {
    /// The largest heap computed.
    pub bound: u64,
    /// `|Q|`.
    pub size: usize,
    /// The row-major `size × size` multiplication table.
    pub table: Vec<u32>,
    /// `p[x]`: whether element `x` is in the P-portion.
    pub p: Vec<bool>,
    /// `Φ(0), …, Φ(bound)`.
    pub phi: Vec<u32>,
    /// The least word of every element (`(heap, exponent)` pairs, largest heap first).
    pub words: Vec<Word>,
    /// The heaps at which the quotient grew.
    pub expansions: Vec<u64>,
}

impl QuotientParts {
    /// The shapes: a row-major `size × size` table of elements with `0` the identity, `p` and
    /// `words` of length `size`, `phi` of length `bound + 1` with `Φ(0) = 1`, words of
    /// plausible length. `Err` names what is wrong.
    pub(crate) fn check_shape(&self) -> Result<(), &'static str> {
        let size = self.size;
        if size == 0 || size > u32::MAX as usize || self.table.len() != size.saturating_mul(size) {
            return Err("stored quotient: the table is not size × size");
        }
        if self.table.iter().any(|&x| x as usize >= size) {
            return Err("stored quotient: a product outside the monoid");
        }
        if (0..size).any(|x| self.table[x] as usize != x || self.table[x * size] as usize != x) {
            return Err("stored quotient: element 0 is not the identity");
        }
        if self.p.len() != size || self.words.len() != size {
            return Err("stored quotient: P or the words do not match the size");
        }
        if self
            .words
            .iter()
            .any(|w| w.iter().map(|&(_, e)| u64::from(e)).sum::<u64>() > 1 << 16)
        {
            return Err("stored quotient: a least word is implausibly long");
        }
        if self.phi.len() as u64 != self.bound.saturating_add(1)
            || self.phi.first() != Some(&0)
            || self.phi.iter().any(|&x| x as usize >= size)
        {
            return Err("stored quotient: the pretending function does not match the bound");
        }
        Ok(())
    }
}
