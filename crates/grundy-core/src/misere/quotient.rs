//! The result: a verified misère quotient `Q_n`, and the outcome and winning moves of any sum
//! of heaps it covers.
//!
//! **Outcomes.** A sum of heaps `h₁ + … + h_j` (each ≤ n, or any size when a periodicity is
//! proved) is a misère P-position iff `Φ(h₁)·…·Φ(h_j) ∈ P` (the defining property of the
//! quotient, [`super::verify`]).
//!
//! **Winning moves.** A move replaces one heap `h_i` by an option `O` of it; it wins iff the
//! new position is P, i.e. `(∏_{l≠i} Φ(h_l))·Φ(O) ∈ P`. The products of all heaps but one
//! come from prefix and suffix products (a monoid has no inverses). Moves are listed like
//! `octal::moves`: the first heap of each size in query order, then the number of heaps
//! left, then `take`, then `leave`; a `take` is negative when tokens are added.

use std::collections::HashSet;

use crate::game::Outcome;
use crate::octal::{Game, WinningMove, MAX_HEAPS};

use super::engine::{EngineStats, MisereEngine};
use super::error::MisereError;
use super::monoid::{word_heaps, Monoid, Word};
use super::options::heap_options;
use super::parts::QuotientParts;
use super::periodicity::{detect, MiserePeriodicity};
use super::presentation::{present, Presentation};
use super::tame::tame_rank;

/// Most options examined by one [`MisereQuotient::winning_moves`] call (about 0.1 s).
pub const MOVE_BUDGET: u64 = 1 << 21;

/// A verified misère quotient of the heaps `0..=bound` of a game (of the whole game when
/// [`MisereQuotient::periodicity`] is `Some`).
#[derive(Debug, Clone)]
pub struct MisereQuotient {
    game: Game,
    bound: u64,
    monoid: Monoid,
    p: Vec<bool>,
    phi: Vec<u32>,
    words: Vec<Word>,
    presentation: Presentation,
    tame: Option<u32>,
    periodicity: Option<MiserePeriodicity>,
    expansions: Vec<u64>,
    stats: EngineStats,
}

/// The outcome of a sum of heaps and every winning move.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MisereAnswer {
    pub outcome: Outcome,
    /// The element of the position in the quotient (`None` from a search without one).
    pub element: Option<u32>,
    /// Every move to a misère P-position (empty for a P-position).
    pub moves: Vec<WinningMove>,
}

impl MisereQuotient {
    /// `Q_bound` of `game`: runs a fresh [`MisereEngine`].
    pub fn compute(
        game: &Game,
        bound: u64,
        budget: &super::QuotientBudget,
        should_stop: &mut dyn FnMut() -> bool,
    ) -> Result<MisereQuotient, MisereError> {
        let mut engine = MisereEngine::new(game);
        engine.extend_to(bound, budget, should_stop)?;
        Ok(MisereQuotient::from_engine(&engine))
    }

    /// The quotient an engine holds, with its presentation, tameness and periodicity.
    pub fn from_engine(engine: &MisereEngine) -> MisereQuotient {
        let presentation = present(&engine.q, &engine.phi);
        MisereQuotient {
            game: engine.game().clone(),
            bound: engine.bound(),
            tame: tame_rank(&engine.q, &engine.p),
            periodicity: detect(engine.game(), &engine.phi),
            monoid: engine.q.clone(),
            p: engine.p.clone(),
            phi: engine.phi.clone(),
            words: engine.words.clone(),
            presentation,
            expansions: engine.expansions.clone(),
            stats: engine.stats(),
        }
    }

    /// A quotient rebuilt from what [`MisereQuotient::parts`] gave (e.g. read back from a
    /// store): the shapes are checked (a row-major `size × size` table of elements with `0`
    /// the identity, `p` and `words` of length `size`, `phi` of length `bound + 1` with
    /// `Φ(0) = 1`), then the presentation, tameness and periodicity are derived again. The
    /// closure checks are not rerun: the parts must come from a verified quotient.
    pub fn from_parts(game: &Game, parts: QuotientParts) -> Result<MisereQuotient, MisereError> {
        parts
            .check_shape()
            .map_err(|what| MisereError::Internal { what })?;
        let QuotientParts {
            bound,
            size,
            table,
            p,
            phi,
            words,
            expansions,
        } = parts;
        let monoid = Monoid::from_table(size, table);
        Ok(MisereQuotient {
            game: game.clone(),
            bound,
            presentation: present(&monoid, &phi),
            tame: tame_rank(&monoid, &p),
            periodicity: detect(game, &phi),
            monoid,
            p,
            phi,
            words,
            expansions,
            stats: EngineStats::default(),
        })
    }

    /// What [`MisereQuotient::from_parts`] rebuilds the quotient from.
    pub fn parts(&self) -> QuotientParts {
        QuotientParts {
            bound: self.bound,
            size: self.monoid.size(),
            table: self.monoid.table().to_vec(),
            p: self.p.clone(),
            phi: self.phi.clone(),
            words: self.words.clone(),
            expansions: self.expansions.clone(),
        }
    }

    pub fn game(&self) -> &Game {
        &self.game
    }
    /// The largest heap computed.
    pub fn bound(&self) -> u64 {
        self.bound
    }
    /// `|Q|`.
    pub fn size(&self) -> usize {
        self.monoid.size()
    }
    /// `|P|`.
    pub fn p_size(&self) -> usize {
        self.p.iter().filter(|&&b| b).count()
    }
    /// The monoid (element 0 is the identity; elements in the order of their least words).
    pub fn monoid(&self) -> &Monoid {
        &self.monoid
    }
    /// The product of two elements.
    pub fn mul(&self, a: u32, b: u32) -> u32 {
        self.monoid.mul(a, b)
    }
    /// True for the elements of the P-portion.
    pub fn is_p(&self, x: u32) -> bool {
        self.p.get(x as usize).copied().unwrap_or(false)
    }
    /// The P-portion, ascending.
    pub fn p_portion(&self) -> Vec<u32> {
        (0..self.size() as u32).filter(|&x| self.is_p(x)).collect()
    }
    /// `Φ(0), …, Φ(bound)`.
    pub fn phi_table(&self) -> &[u32] {
        &self.phi
    }
    /// `Φ(heap)`: from the table, or through the proved periodicity.
    pub fn phi(&self, heap: u64) -> Result<u32, MisereError> {
        let h = match self.periodicity {
            Some(per) => per.reduce(heap),
            None if heap <= self.bound => heap,
            None => {
                return Err(MisereError::HeapBeyondBound {
                    heap,
                    bound: self.bound,
                })
            }
        };
        self.phi
            .get(h as usize)
            .copied()
            .ok_or(MisereError::Internal {
                what: "periodicity reduced a heap outside the table",
            })
    }
    /// The presentation: generators, relations, normal forms and element names.
    pub fn presentation(&self) -> &Presentation {
        &self.presentation
    }
    /// The name of an element (its normal form, e.g. `a^2b`).
    pub fn name(&self, x: u32) -> &str {
        self.presentation
            .names
            .get(x as usize)
            .map_or("?", String::as_str)
    }
    /// The least position (lexicographic from the largest heap) with element `x`.
    pub fn least_position(&self, x: u32) -> Vec<u64> {
        self.words
            .get(x as usize)
            .map(|w| word_heaps(w))
            .unwrap_or_default()
    }
    /// `Some(m)` when the quotient is tame, isomorphic to misère Nim on heaps `< 2^m`
    /// (see `tame.rs`); `None` when wild.
    pub fn tame_rank(&self) -> Option<u32> {
        self.tame
    }
    /// True when tame.
    pub fn is_tame(&self) -> bool {
        self.tame.is_some()
    }
    /// The proved periodicity of `Φ` (then this is the quotient of the whole game).
    pub fn periodicity(&self) -> Option<&MiserePeriodicity> {
        self.periodicity.as_ref()
    }
    /// The heaps at which the quotient grew.
    pub fn expansions(&self) -> &[u64] {
        &self.expansions
    }
    /// Work done by the engine.
    pub fn stats(&self) -> EngineStats {
        self.stats
    }

    /// The element of a sum of heaps.
    pub fn element_of(&self, heaps: &[u64]) -> Result<u32, MisereError> {
        if heaps.len() > MAX_HEAPS {
            return Err(MisereError::TooManyHeaps {
                count: heaps.len(),
                max: MAX_HEAPS,
            });
        }
        let mut x = 0u32;
        for &h in heaps {
            x = self.monoid.mul(x, self.phi(h)?);
        }
        Ok(x)
    }

    /// The misère outcome of a sum of heaps.
    pub fn outcome(&self, heaps: &[u64]) -> Result<Outcome, MisereError> {
        let x = self.element_of(heaps)?;
        Ok(if self.is_p(x) { Outcome::P } else { Outcome::N })
    }

    /// The outcome and every winning move of a sum of heaps. Heaps above
    /// [`super::MAX_OPTION_HEAP`] (possible with a proved periodicity) get an outcome from
    /// [`MisereQuotient::outcome`] but no move list here: their options are not enumerated.
    /// At most [`MOVE_BUDGET`] options are examined.
    pub fn winning_moves(&self, heaps: &[u64]) -> Result<MisereAnswer, MisereError> {
        if heaps.len() > MAX_HEAPS {
            return Err(MisereError::TooManyHeaps {
                count: heaps.len(),
                max: MAX_HEAPS,
            });
        }
        let els: Vec<u32> = heaps
            .iter()
            .map(|&h| self.phi(h))
            .collect::<Result<_, _>>()?;
        let q = &self.monoid;
        // suffix[i] = product of els[i..].
        let mut suffix = vec![0u32; els.len() + 1];
        for i in (0..els.len()).rev() {
            suffix[i] = q.mul(els[i], suffix[i + 1]);
        }
        let total = suffix[0];
        let mut answer = MisereAnswer {
            outcome: if self.is_p(total) {
                Outcome::P
            } else {
                Outcome::N
            },
            element: Some(total),
            moves: Vec::new(),
        };
        if answer.outcome == Outcome::P {
            return Ok(answer);
        }
        let mut prefix = 0u32;
        let mut examined = 0u64;
        let mut done: HashSet<u64> = HashSet::new();
        for (i, &h) in heaps.iter().enumerate() {
            let rest = q.mul(prefix, suffix[i + 1]);
            prefix = q.mul(prefix, els[i]);
            if h == 0 || !done.insert(h) {
                continue;
            }
            let opts = heap_options(&self.game, h)?;
            examined += opts.len() as u64;
            if examined > MOVE_BUDGET {
                return Err(MisereError::MoveBudgetExceeded { max: MOVE_BUDGET });
            }
            for o in opts {
                let mut x = rest;
                for &part in &o.leave {
                    x = q.mul(x, self.phi(part)?);
                }
                if self.is_p(x) {
                    answer.moves.push(WinningMove {
                        heap_index: i,
                        heap: h,
                        take: i128::from(o.take),
                        leave: o.leave,
                    });
                }
            }
        }
        Ok(answer)
    }
}
