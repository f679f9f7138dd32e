//! Antimatter (Fraenkel; van Splunder, Def. 5.13): positrons and electrons on squares 0, 1, 2, ….
//! Two particles of one kind never share a square; a positron and an electron on one square
//! annihilate (both disappear).
//!
//! Moves (the followers of Def. 5.13):
//! * move a positron or an electron to a lower **unoccupied** square;
//! * annihilate any positron–electron pair, removing both. Physically the higher particle of the
//!   pair moves down onto the lower one, so every pair can be annihilated. A winning move of this
//!   kind is reported as `{particle: <kind of the higher one>, from: <its square>, to: <the
//!   square of the lower, opposite particle>}` — a particle moving onto a square that holds the
//!   opposite kind. Each pair corresponds to exactly one such move.
//!
//! Input is canonicalised as in the thesis: coinciding positron/electron pairs cancel; a square
//! left with two particles of one kind is infeasible. (So `(0, 0 | 0)` is the position `(0 | )`.)
//!
//! No formula is known; values come from a memoised mex search bounded by a [`Budget`]. Proved
//! structure used:
//! * exchanging positrons and electrons is an isomorphism, so the memo stores one of the two;
//! * with particles of only one kind there is no annihilation and the game **is** Welter's game,
//!   answered by [`crate::welter`] (normal value; misère outcome).
//!
//! The empirical fact of the notes (2 + 2 particles on 4 distinct squares < 8: P ⇔
//! `p1⊕p2⊕e1⊕e2 = 0`) is unproven and only tested.
//!
//! **Measured cost** of [`analyse`] (release, one core, worst of 12 random positions, particles
//! alternating positron/electron, largest square = bound): within 100 ms for squares below
//! 128 with 2 particles, 33 (3), 22 (4), 16 (5), 15 (6), 12 (7); misère slightly further
//! (41, 27, 16, 15, 14). Squares ≥ 128 use the slower vector representation (1 + 1 particles
//! up to about 130). One kind only is Welter's game and answers instantly at any size.

use crate::budget::{Budget, BudgetExceeded};
use crate::game::{self, Outcome, Play};
use crate::search::{MemoSearch, Mode, SearchGame};
use crate::welter;

/// Largest accepted number of particles (both kinds together, before annihilation).
pub const MAX_PARTICLES: usize = 1_000_000;

/// The two kinds of particle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Particle {
    Positron,
    Electron,
}

impl Particle {
    /// `"positron"` / `"electron"`, as in the HTTP contract.
    pub fn as_str(self) -> &'static str {
        match self {
            Particle::Positron => "positron",
            Particle::Electron => "electron",
        }
    }
}

/// Invalid input, or an answer beyond the budget.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AntimatterError {
    #[error("position has {count} particles; at most {max} are allowed")]
    TooManyParticles { count: usize, max: usize },
    #[error("square {square} holds two {} particles after annihilation", .particle.as_str())]
    SharedSquare { square: u64, particle: Particle },
    #[error("compute budget exceeded")]
    BudgetExceeded,
}

impl From<BudgetExceeded> for AntimatterError {
    fn from(_: BudgetExceeded) -> Self {
        AntimatterError::BudgetExceeded
    }
}

/// A move: `particle` goes from `from` down to `to`. If `to` holds the opposite kind, both
/// particles are annihilated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ParticleMove {
    pub from: u64,
    pub to: u64,
    pub particle: Particle,
}

/// A canonical position: disjoint sorted positron and electron squares.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Position {
    positrons: Vec<u64>,
    electrons: Vec<u64>,
}

impl Position {
    /// Cancel coinciding pairs; reject squares left with two particles of one kind.
    pub fn new(positrons: &[u64], electrons: &[u64]) -> Result<Self, AntimatterError> {
        let count = positrons.len().saturating_add(electrons.len());
        if count > MAX_PARTICLES {
            return Err(AntimatterError::TooManyParticles {
                count,
                max: MAX_PARTICLES,
            });
        }
        let (mut p, mut e) = (positrons.to_vec(), electrons.to_vec());
        p.sort_unstable();
        e.sort_unstable();
        let (mut ps, mut es) = (Vec::new(), Vec::new());
        let (mut i, mut j) = (0, 0);
        while i < p.len() || j < e.len() {
            let sq = p
                .get(i)
                .copied()
                .unwrap_or(u64::MAX)
                .min(e.get(j).copied().unwrap_or(u64::MAX));
            let np = p[i..].iter().take_while(|&&x| x == sq).count();
            let ne = e[j..].iter().take_while(|&&x| x == sq).count();
            i += np;
            j += ne;
            match np as i64 - ne as i64 {
                0 => {}
                1 => ps.push(sq),
                -1 => es.push(sq),
                d => {
                    let particle = if d > 0 {
                        Particle::Positron
                    } else {
                        Particle::Electron
                    };
                    return Err(AntimatterError::SharedSquare {
                        square: sq,
                        particle,
                    });
                }
            }
        }
        Ok(Position {
            positrons: ps,
            electrons: es,
        })
    }

    pub fn positrons(&self) -> &[u64] {
        &self.positrons
    }

    pub fn electrons(&self) -> &[u64] {
        &self.electrons
    }

    fn count(&self) -> usize {
        self.positrons.len() + self.electrons.len()
    }

    fn max_square(&self) -> Option<u64> {
        self.positrons
            .last()
            .copied()
            .max(self.electrons.last().copied())
    }

    fn is_occupied(&self, s: u64) -> Option<Particle> {
        if self.positrons.binary_search(&s).is_ok() {
            Some(Particle::Positron)
        } else if self.electrons.binary_search(&s).is_ok() {
            Some(Particle::Electron)
        } else {
            None
        }
    }
}

/// Value, outcome and every winning move (ordered by `from`, `to`, particle) of one position.
pub type Analysis = game::Analysis<u64, ParticleMove>;

/// Number of moves from `pos` (each particle `x` reaches `x` squares minus the particles below
/// it; plus one annihilation per pair), or `None` when it exceeds `u64`.
fn move_count(pos: &Position) -> Option<u64> {
    let mut all: Vec<u64> = pos
        .positrons
        .iter()
        .chain(&pos.electrons)
        .copied()
        .collect();
    all.sort_unstable();
    let slides = all
        .iter()
        .enumerate()
        .try_fold(0u64, |acc, (i, &x)| acc.checked_add(x - i as u64))?;
    slides.checked_add((pos.positrons.len() as u64).checked_mul(pos.electrons.len() as u64)?)
}

/// Refuse at once when merely listing the root's followers would exceed the step budget.
fn root_fits(pos: &Position, budget: Budget) -> bool {
    let per = pos.count() as u64 + 2;
    move_count(pos).is_some_and(|m| m.saturating_mul(per) <= budget.max_steps)
}

/// Exact normal-play value, or `None` beyond `budget`.
pub fn value(pos: &Position, budget: Budget) -> Option<u64> {
    if pos.positrons.is_empty() || pos.electrons.is_empty() {
        return Some(welter_value(pos));
    }
    if !root_fits(pos, budget) {
        return None;
    }
    match Searcher::new(pos, Mode::NormalValue, budget) {
        Searcher::Small(mut s, root) => s.solve(&root).ok(),
        Searcher::Large(mut s, root) => s.solve(&root).ok(),
    }
}

/// Exact outcome under `play`, or `None` beyond `budget`.
pub fn outcome(pos: &Position, play: Play, budget: Budget) -> Option<Outcome> {
    let v = match Searcher::new(pos, mode_of(play), budget) {
        Searcher::Small(mut s, root) => s.solve(&root).ok()?,
        Searcher::Large(mut s, root) => s.solve(&root).ok()?,
    };
    Some(if v == 0 { Outcome::P } else { Outcome::N })
}

/// Validate and analyse under `play`. A misère analysis runs two searches (the normal value and
/// the misère outcome), each with its own `budget`.
pub fn analyse(
    positrons: &[u64],
    electrons: &[u64],
    play: Play,
    budget: Budget,
) -> Result<Analysis, AntimatterError> {
    let pos = Position::new(positrons, electrons)?;
    if pos.positrons.is_empty() || pos.electrons.is_empty() {
        // One kind only: Welter's game, closed forms for any size.
        let (particle, coins) = if pos.electrons.is_empty() {
            (Particle::Positron, &pos.positrons)
        } else {
            (Particle::Electron, &pos.electrons)
        };
        let w = welter::analyse(coins, play);
        let mut moves: Vec<ParticleMove> = w
            .moves
            .iter()
            .map(|m| ParticleMove {
                from: m.from,
                to: m.to,
                particle,
            })
            .collect();
        moves.sort_unstable();
        return Ok(Analysis {
            value: w.value,
            outcome: w.outcome,
            moves,
        });
    }
    if !root_fits(&pos, budget) {
        return Err(AntimatterError::BudgetExceeded);
    }
    let value = value(&pos, budget).ok_or(AntimatterError::BudgetExceeded)?;
    let (p, moves) = match Searcher::new(&pos, mode_of(play), budget) {
        Searcher::Small(mut s, root) => moves_with(&mut s, &root, &pos, small_state)?,
        Searcher::Large(mut s, root) => moves_with(&mut s, &root, &pos, large_state)?,
    };
    Ok(Analysis {
        value,
        outcome: if p { Outcome::P } else { Outcome::N },
        moves,
    })
}

fn mode_of(play: Play) -> Mode {
    match play {
        Play::Normal => Mode::NormalValue,
        Play::Misere => Mode::MisereOutcome,
    }
}

fn welter_value(pos: &Position) -> u64 {
    welter::value(if pos.positrons.is_empty() {
        &pos.electrons
    } else {
        &pos.positrons
    })
}

/// Solve the root, then every follower, and keep the moves into P-positions.
fn moves_with<G: SearchGame>(
    solver: &mut MemoSearch<G>,
    root: &G::State,
    pos: &Position,
    encode: fn(Vec<u64>, Vec<u64>) -> G::State,
) -> Result<(bool, Vec<ParticleMove>), BudgetExceeded> {
    let p = solver.solve(root)? == 0;
    let mut moves = Vec::new();
    if p {
        return Ok((true, moves));
    }
    let cost = pos.count() as u64 + 2;
    for (particle, own, other) in [
        (Particle::Positron, &pos.positrons, &pos.electrons),
        (Particle::Electron, &pos.electrons, &pos.positrons),
    ] {
        for (i, &x) in own.iter().enumerate() {
            for y in 0..x {
                let hit = pos.is_occupied(y);
                if hit == Some(particle) {
                    continue;
                }
                solver.charge(cost)?;
                let mut o = own.clone();
                o.remove(i);
                let mut t = other.clone();
                match hit {
                    None => {
                        let at = o.partition_point(|&z| z < y);
                        o.insert(at, y);
                    }
                    Some(_) => {
                        let at = t.partition_point(|&z| z < y);
                        t.remove(at);
                    }
                }
                let (ps, es) = if particle == Particle::Positron {
                    (o, t)
                } else {
                    (t, o)
                };
                if solver.solve(&encode(ps, es))? == 0 {
                    moves.push(ParticleMove {
                        from: x,
                        to: y,
                        particle,
                    });
                }
            }
        }
    }
    moves.sort_unstable();
    Ok((false, moves))
}

fn mask_of(squares: &[u64]) -> u128 {
    squares.iter().fold(0u128, |m, &x| m | 1u128 << x)
}

/// Symmetry: store the smaller of (P, E) and (E, P).
fn small_canon(p: u128, e: u128) -> (u128, u128) {
    if (e, p) < (p, e) {
        (e, p)
    } else {
        (p, e)
    }
}

fn small_state(p: Vec<u64>, e: Vec<u64>) -> (u128, u128) {
    small_canon(mask_of(&p), mask_of(&e))
}

fn large_state(p: Vec<u64>, e: Vec<u64>) -> (Box<[u64]>, Box<[u64]>) {
    if (&e, &p) < (&p, &e) {
        (e.into(), p.into())
    } else {
        (p.into(), e.into())
    }
}

enum Searcher {
    Small(MemoSearch<SmallGame>, (u128, u128)),
    Large(MemoSearch<LargeGame>, (Box<[u64]>, Box<[u64]>)),
}

impl Searcher {
    fn new(pos: &Position, mode: Mode, budget: Budget) -> Self {
        let (p, e) = (pos.positrons.clone(), pos.electrons.clone());
        match pos.max_square() {
            Some(m) if m >= 128 => {
                Searcher::Large(MemoSearch::new(LargeGame, mode, budget), large_state(p, e))
            }
            _ => Searcher::Small(MemoSearch::new(SmallGame, mode, budget), small_state(p, e)),
        }
    }
}

/// Closed forms: one kind only is Welter's game.
fn known_one_kind(squares: &[u64], mode: Mode) -> u64 {
    match mode {
        Mode::NormalValue => welter::value(squares),
        Mode::MisereOutcome => u64::from(welter::evaluate(squares, Play::Misere).1 == Outcome::N),
    }
}

fn squares_of(mut m: u128) -> Vec<u64> {
    let mut v = Vec::with_capacity(m.count_ones() as usize);
    while m != 0 {
        v.push(u64::from(m.trailing_zeros()));
        m &= m - 1;
    }
    v
}

/// Antimatter on squares < 128: `(positron mask, electron mask)`, canonical under the swap.
pub struct SmallGame;

pub struct SmallCursor {
    /// 0: move positrons, 1: move electrons, 2: annihilate pairs, 3: done
    stage: u8,
    /// particles of the current stage not yet started (stage 2: positrons)
    pending: u128,
    from: u32,
    /// targets left for `from` (stage 2: electrons left for the positron `from`)
    targets: u128,
}

impl SearchGame for SmallGame {
    type State = (u128, u128);
    type Cursor = SmallCursor;

    fn cursor(&self, s: &(u128, u128)) -> SmallCursor {
        SmallCursor {
            stage: 0,
            pending: s.0,
            from: 0,
            targets: 0,
        }
    }

    fn next(&self, &(p, e): &(u128, u128), c: &mut SmallCursor) -> Option<(u128, u128)> {
        while c.targets == 0 {
            if c.pending == 0 {
                c.stage += 1;
                c.pending = match c.stage {
                    1 => e,
                    2 => p,
                    _ => return None,
                };
                continue;
            }
            c.from = c.pending.trailing_zeros();
            c.pending &= c.pending - 1;
            c.targets = if c.stage == 2 {
                e
            } else {
                !(p | e) & ((1u128 << c.from) - 1)
            };
        }
        let y = c.targets.trailing_zeros();
        c.targets &= c.targets - 1;
        let (x, y) = (1u128 << c.from, 1u128 << y);
        Some(match c.stage {
            0 => small_canon((p & !x) | y, e),
            1 => small_canon(p, (e & !x) | y),
            _ => small_canon(p & !x, e & !y),
        })
    }

    fn size(&self, _: &(u128, u128)) -> u64 {
        2
    }

    fn known(&self, &(p, e): &(u128, u128), mode: Mode) -> Option<u64> {
        match (p, e) {
            (0, m) | (m, 0) => Some(known_one_kind(&squares_of(m), mode)),
            _ => None,
        }
    }
}

/// Antimatter on arbitrary squares: sorted `(positrons, electrons)`, canonical under the swap.
pub struct LargeGame;

pub struct LargeCursor {
    /// 0: move a positron, 1: move an electron, 2: annihilate pairs
    stage: u8,
    i: usize,
    /// target square (stages 0–1) or electron index (stage 2)
    y: u64,
}

impl SearchGame for LargeGame {
    type State = (Box<[u64]>, Box<[u64]>);
    type Cursor = LargeCursor;

    fn cursor(&self, _: &Self::State) -> LargeCursor {
        LargeCursor {
            stage: 0,
            i: 0,
            y: 0,
        }
    }

    fn next(&self, (p, e): &Self::State, c: &mut LargeCursor) -> Option<Self::State> {
        loop {
            match c.stage {
                0 | 1 => {
                    let (own, other) = if c.stage == 0 { (p, e) } else { (e, p) };
                    let Some(&x) = own.get(c.i) else {
                        c.stage += 1;
                        c.i = 0;
                        c.y = 0;
                        continue;
                    };
                    if c.y >= x {
                        c.i += 1;
                        c.y = 0;
                        continue;
                    }
                    let y = c.y;
                    c.y += 1;
                    if own.binary_search(&y).is_ok() || other.binary_search(&y).is_ok() {
                        continue;
                    }
                    let mut moved: Vec<u64> = own.iter().copied().filter(|&z| z != x).collect();
                    let at = moved.partition_point(|&z| z < y);
                    moved.insert(at, y);
                    let other = other.to_vec();
                    return Some(if c.stage == 0 {
                        large_state(moved, other)
                    } else {
                        large_state(other, moved)
                    });
                }
                2 => {
                    let &x = p.get(c.i)?;
                    let Some(&z) = e.get(c.y as usize) else {
                        c.i += 1;
                        c.y = 0;
                        continue;
                    };
                    c.y += 1;
                    let ps = p.iter().copied().filter(|&w| w != x).collect();
                    let es = e.iter().copied().filter(|&w| w != z).collect();
                    return Some(large_state(ps, es));
                }
                _ => return None,
            }
        }
    }

    fn size(&self, (p, e): &Self::State) -> u64 {
        p.len() as u64 + e.len() as u64 + 2
    }

    fn known(&self, (p, e): &Self::State, mode: Mode) -> Option<u64> {
        if p.is_empty() {
            Some(known_one_kind(e, mode))
        } else if e.is_empty() {
            Some(known_one_kind(p, mode))
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests;
