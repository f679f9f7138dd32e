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
//!   answered by [`crate::core::welter`] (normal value; misère outcome).
//!
//! The empirical fact of the notes (2 + 2 particles on 4 distinct squares < 8: P ⇔
//! `p1⊕p2⊕e1⊕e2 = 0`) is unproven and only tested.
//!
//! **Measured cost** of [`analyse`] (release, one core, worst of 12 random positions, particles
//! alternating positron/electron, largest square = bound): within 100 ms for squares below
//! 128 with 2 particles, 33 (3), 22 (4), 16 (5), 15 (6), 12 (7); misère slightly further
//! (41, 27, 16, 15, 14). Squares ≥ 128 use the slower vector representation (1 + 1 particles
//! up to about 130). One kind only is Welter's game and answers instantly at any size.

use crate::core::budget::{Budget, BudgetExceeded, Game, Mode, Solver};
use crate::core::welter::{self, Outcome, Play};

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

/// Value, outcome and every winning move of one position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Analysis {
    /// Normal-play Sprague–Grundy value.
    pub value: u64,
    /// Outcome under the requested play.
    pub outcome: Outcome,
    /// Every move to a P-position under the requested play, ordered by `from`, `to`, particle.
    pub moves: Vec<ParticleMove>,
}

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
fn moves_with<G: Game>(
    solver: &mut Solver<G>,
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
    Small(Solver<SmallGame>, (u128, u128)),
    Large(Solver<LargeGame>, (Box<[u64]>, Box<[u64]>)),
}

impl Searcher {
    fn new(pos: &Position, mode: Mode, budget: Budget) -> Self {
        let (p, e) = (pos.positrons.clone(), pos.electrons.clone());
        match pos.max_square() {
            Some(m) if m >= 128 => {
                Searcher::Large(Solver::new(LargeGame, mode, budget), large_state(p, e))
            }
            _ => Searcher::Small(Solver::new(SmallGame, mode, budget), small_state(p, e)),
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

impl Game for SmallGame {
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

impl Game for LargeGame {
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
mod tests {
    use super::*;
    use crate::core::test_support::{u64s, vectors, Brute};

    type Pos = (Vec<u64>, Vec<u64>);

    fn canon(mut p: Vec<u64>, mut e: Vec<u64>) -> Option<Pos> {
        p.sort();
        e.sort();
        let (mut ps, mut es) = (vec![], vec![]);
        let mut all: Vec<u64> = p.iter().chain(&e).copied().collect();
        all.sort();
        all.dedup();
        for s in all {
            let np = p.iter().filter(|&&x| x == s).count() as i64;
            let ne = e.iter().filter(|&&x| x == s).count() as i64;
            match np - ne {
                0 => {}
                1 => ps.push(s),
                -1 => es.push(s),
                _ => return None,
            }
        }
        Some((ps, es))
    }

    /// Independent brute force on Def. 5.13 literally: cancel pairs, then followers are a particle
    /// to a lower unoccupied square, or the removal of any positron–electron pair.
    fn followers((p, e): &Pos) -> Vec<(ParticleMove, Pos)> {
        let occ = |s: u64| p.contains(&s) || e.contains(&s);
        let mut out = vec![];
        for (kind, own) in [(Particle::Positron, p), (Particle::Electron, e)] {
            for (i, &x) in own.iter().enumerate() {
                for y in (0..x).filter(|&y| !occ(y)) {
                    let mut o = own.clone();
                    o[i] = y;
                    let f = if kind == Particle::Positron {
                        canon(o, e.clone())
                    } else {
                        canon(p.clone(), o)
                    };
                    out.push((
                        ParticleMove {
                            from: x,
                            to: y,
                            particle: kind,
                        },
                        f.unwrap(),
                    ));
                }
            }
        }
        for (i, &x) in p.iter().enumerate() {
            for (j, &z) in e.iter().enumerate() {
                let mut ps = p.clone();
                ps.remove(i);
                let mut es = e.clone();
                es.remove(j);
                let m = if x > z {
                    ParticleMove {
                        from: x,
                        to: z,
                        particle: Particle::Positron,
                    }
                } else {
                    ParticleMove {
                        from: z,
                        to: x,
                        particle: Particle::Electron,
                    }
                };
                out.push((m, canon(ps, es).unwrap()));
            }
        }
        out
    }

    /// Every winning move by brute force.
    fn brute_moves(b: &mut Brute<Pos, ParticleMove>, s: &Pos, play: Play) -> Vec<ParticleMove> {
        b.winning_moves(s, play == Play::Misere)
    }

    /// All (P, E) with squares < n and at most `k` particles, as ternary digits.
    fn positions(n: u32, k: usize) -> Vec<Pos> {
        let mut out = vec![];
        for code in 0..3u64.pow(n) {
            let (mut p, mut e, mut c) = (vec![], vec![], code);
            for s in 0..n as u64 {
                match c % 3 {
                    1 => p.push(s),
                    2 => e.push(s),
                    _ => {}
                }
                c /= 3;
            }
            if p.len() + e.len() <= k {
                out.push((p, e));
            }
        }
        out
    }

    #[test]
    fn matches_brute_force() {
        let mut b = Brute::new(followers);
        let mut n = 0;
        for s in positions(7, 4) {
            let want_v = b.value(&s);
            for play in [Play::Normal, Play::Misere] {
                let a = analyse(&s.0, &s.1, play, Budget::DEFAULT).unwrap();
                assert_eq!(a.value, want_v, "{s:?}");
                let want_p = if play == Play::Normal {
                    want_v == 0
                } else {
                    !b.misere_wins(&s)
                };
                assert_eq!(a.outcome == Outcome::P, want_p, "{play:?} {s:?}");
                assert_eq!(a.moves, brute_moves(&mut b, &s, play), "{play:?} {s:?}");
                n += 1;
            }
        }
        assert_eq!(n, 2 * 939);
    }

    /// Both representations agree, also beyond square 127.
    #[test]
    fn large_representation_agrees() {
        for (p, e) in positions(6, 3) {
            for mode in [Mode::NormalValue, Mode::MisereOutcome] {
                let mut small = Solver::new(SmallGame, mode, Budget::DEFAULT);
                let mut large = Solver::new(LargeGame, mode, Budget::DEFAULT);
                let a = small.solve(&small_state(p.clone(), e.clone())).unwrap();
                let b = large.solve(&large_state(p.clone(), e.clone())).unwrap();
                assert_eq!(a, b, "{p:?} {e:?} {mode:?}");
            }
        }
        let mut b = Brute::new(followers);
        for (p, e) in [(vec![1, 130], vec![2]), (vec![128], vec![0, 3])] {
            for play in [Play::Normal, Play::Misere] {
                let a = analyse(&p, &e, play, Budget::DEFAULT).unwrap();
                let s = (p.clone(), e.clone());
                assert_eq!(a.value, b.value(&s), "{s:?}");
                assert_eq!(a.moves, brute_moves(&mut b, &s, play), "{s:?} {play:?}");
            }
        }
    }

    fn val(p: &[u64], e: &[u64]) -> u64 {
        value(&Position::new(p, e).unwrap(), Budget::DEFAULT).unwrap()
    }

    #[test]
    fn vectors_antimatter() {
        let v = vectors();
        let cases = v["antimatter_values"].as_array().unwrap();
        assert_eq!(cases.len(), 6);
        for case in cases {
            assert_eq!(
                Some(val(&u64s(&case["P"]), &u64s(&case["E"]))),
                case["value"].as_u64(),
                "{case}"
            );
        }
        let ce = &v["antimatter_even_alteration_counterexample"];
        let (p, e) = (u64s(&ce["P"]), u64s(&ce["E"]));
        assert_eq!(val(&p, &e), ce["k"].as_u64().unwrap());
        let k2 = ce["k_prime"].as_u64().unwrap();
        // the three primes each give k', but exchanging p3 and e1 together gives 13 ≠ 16
        assert_eq!(val(&[6, 7, 8], &[3, 4]), k2);
        assert_eq!(val(&[6, 7, 9], &[0, 4]), k2);
        assert_eq!(val(&[2, 7, 9], &[3, 4]), k2);
        assert_eq!(val(&[6, 7, 8], &[0, 4]), 13);
        // (0, 0 | 0) is the P-position (0 | ) of Example 5.16
        assert_eq!(val(&[0, 0], &[0]), 0);
    }

    /// Tables 5–7: the unique electron completing to a P-position (null = none), checked against
    /// every candidate square < 32.
    #[test]
    fn tables_5_to_7() {
        let v = vectors();
        let mut cells = 0;
        // one shared memo: every query lives on squares < 32
        let mut solver = Solver::new(SmallGame, Mode::NormalValue, Budget::DEFAULT);
        for (name, fixed) in [
            ("table5", None),
            ("table6", Some(0u64)),
            ("table7", Some(1u64)),
        ] {
            let t = &v["tables"][name];
            let cols = u64s(&t["cols"]);
            for (row, entries) in t["rows"].as_object().unwrap() {
                let p1: u64 = row.parse().unwrap();
                for (&p2, cell) in cols.iter().zip(entries.as_array().unwrap()) {
                    let mut found = vec![];
                    for z in 0..32 {
                        let mut es: Vec<u64> = fixed.into_iter().collect();
                        es.push(z);
                        if let Ok(pos) = Position::new(&[p1, p2], &es) {
                            let root = small_state(pos.positrons, pos.electrons);
                            if solver.solve(&root) == Ok(0) {
                                found.push(z);
                            }
                        }
                    }
                    let want: Vec<u64> = cell.as_u64().into_iter().collect();
                    assert_eq!(found, want, "{name} p1={p1} p2={p2}");
                    cells += 1;
                }
            }
        }
        assert_eq!(cells, 3 * 121);
    }

    /// The empirical 2 + 2 rule of the notes, checked (not used).
    #[test]
    fn empirical_two_plus_two() {
        let mut solver = Solver::new(SmallGame, Mode::NormalValue, Budget::DEFAULT);
        let mut n = 0;
        for p1 in 0..8u64 {
            for p2 in p1 + 1..8 {
                for e1 in 0..8u64 {
                    for e2 in e1 + 1..8 {
                        if [e1, e2].iter().any(|x| *x == p1 || *x == p2) {
                            continue;
                        }
                        let v = solver
                            .solve(&small_state(vec![p1, p2], vec![e1, e2]))
                            .unwrap();
                        assert_eq!(v == 0, p1 ^ p2 ^ e1 ^ e2 == 0, "{p1} {p2} | {e1} {e2}");
                        n += 1;
                    }
                }
            }
        }
        assert_eq!(n, 420);
    }

    #[test]
    fn validation_and_limits() {
        let p = Position::new(&[5, 3, 3], &[3, 9]).unwrap();
        assert_eq!((p.positrons(), p.electrons()), (&[3, 5][..], &[9][..]));
        assert_eq!(
            Position::new(&[4, 4], &[]),
            Err(AntimatterError::SharedSquare {
                square: 4,
                particle: Particle::Positron
            })
        );
        assert_eq!(
            Position::new(&[2], &[2, 2, 2]),
            Err(AntimatterError::SharedSquare {
                square: 2,
                particle: Particle::Electron
            })
        );
        assert_eq!(
            Position::new(&[1, 1], &[1, 1]).unwrap(),
            Position::new(&[], &[]).unwrap()
        );
        let many = vec![7; MAX_PARTICLES + 1];
        assert!(matches!(
            Position::new(&many, &[]),
            Err(AntimatterError::TooManyParticles { .. })
        ));
        // one kind only is Welter: instant for huge squares
        let w = Position::new(&[1, 3, 7, 8, 11, 19], &[]).unwrap();
        assert_eq!(value(&w, Budget::DEFAULT), Some(12));
        assert_eq!(
            value(&Position::new(&[], &[u64::MAX]).unwrap(), Budget::DEFAULT),
            Some(u64::MAX)
        );
        let far = analyse(&[1 << 40], &[3], Play::Normal, Budget::DEFAULT);
        assert_eq!(far, Err(AntimatterError::BudgetExceeded));
        let empty = analyse(&[], &[], Play::Misere, Budget::DEFAULT).unwrap();
        assert_eq!(
            (empty.value, empty.outcome, empty.moves.len()),
            (0, Outcome::N, 0)
        );
        // annihilation is reported as the higher particle moving onto the lower one
        let a = analyse(&[0], &[5], Play::Normal, Budget::DEFAULT).unwrap();
        assert!(a.moves.contains(&ParticleMove {
            from: 5,
            to: 0,
            particle: Particle::Electron
        }));
        assert_eq!(
            outcome(
                &Position::new(&[0], &[5]).unwrap(),
                Play::Normal,
                Budget::DEFAULT
            ),
            Some(Outcome::N)
        );
    }

    /// Swapping the kinds swaps the move labels and keeps everything else.
    #[test]
    fn kind_swap_symmetry() {
        let a = analyse(&[2, 5, 6], &[1, 4], Play::Normal, Budget::DEFAULT).unwrap();
        let b = analyse(&[1, 4], &[2, 5, 6], Play::Normal, Budget::DEFAULT).unwrap();
        assert_eq!((a.value, a.outcome), (b.value, b.outcome));
        let flip = |m: &ParticleMove| ParticleMove {
            particle: if m.particle == Particle::Positron {
                Particle::Electron
            } else {
                Particle::Positron
            },
            ..*m
        };
        let mut fb: Vec<ParticleMove> = b.moves.iter().map(flip).collect();
        fb.sort_unstable();
        assert_eq!(a.moves, fb);
    }
}
