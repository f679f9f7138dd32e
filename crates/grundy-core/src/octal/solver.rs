//! Engine + detector: compute until a length or until periodicity is proved.

use super::code::Game;
use super::engine::Engine;
use super::error::OctalError;
use super::moves::{winning_moves, MovePage};
use super::periodicity::{Detector, Periodicity};
use super::values::Values;
use crate::octal::periodicity::value::value_at;

/// A game's computation state: values, the periodicity verdict, and queries on them.
#[derive(Debug)]
pub struct Solver {
    engine: Engine,
    detector: Detector,
}

impl Solver {
    pub fn new(game: &Game) -> Solver {
        Solver {
            engine: Engine::new(game),
            detector: Detector::new(game),
        }
    }

    /// Continues a window-mode computation (see [`Engine::resume_window`]); the verdict is
    /// re-derived from the tail.
    pub fn resume_engine(game: &Game, engine: Engine) -> Solver {
        let mut s = Solver {
            engine,
            detector: Detector::new(game),
        };
        s.check(true);
        s
    }

    /// Continues from stored values (a `Vec<u32>` or [`Values`], see [`Engine::resume`]); the
    /// verdict is re-derived.
    pub fn resume(game: &Game, values: impl Into<Values>) -> Result<Solver, OctalError> {
        let engine = Engine::resume(game, values)?;
        let mut detector = Detector::new(game);
        detector.check_now(engine.values());
        Ok(Solver { engine, detector })
    }

    pub fn engine(&self) -> &Engine {
        &self.engine
    }
    pub fn engine_mut(&mut self) -> &mut Engine {
        &mut self.engine
    }
    pub fn game(&self) -> &Game {
        self.engine.game()
    }
    /// G(0..len) in the narrowest width (1, 2 or 4 bytes a value). Callers that need u32s:
    /// [`Values::get`], [`Values::iter`], [`Values::range_u32`], [`Values::to_u32_vec`].
    pub fn values(&self) -> &Values {
        self.engine.values()
    }
    pub fn periodicity(&self) -> &Periodicity {
        self.detector.result()
    }
    /// Gives the values back.
    pub fn into_values(self) -> Values {
        self.engine.into_values()
    }
    /// The periodicity detector (e.g. to switch the long-period sweep off for a benchmark).
    pub fn detector_mut(&mut self) -> &mut Detector {
        &mut self.detector
    }

    /// Computes values until `len() ≥ max_n`, or — with `until_proved` — until periodicity is
    /// proved, whichever comes first. The detector runs after every chunk (a chunk is 1/16 of
    /// the current length, at least 1024 values), so a proof is noticed at most a chunk late.
    /// On [`OctalError::Stopped`] everything computed so far is kept.
    pub fn run(
        &mut self,
        max_n: usize,
        until_proved: bool,
        should_stop: &mut dyn FnMut() -> bool,
    ) -> Result<&Periodicity, OctalError> {
        loop {
            let len = self.engine.len();
            let proved = matches!(self.check(false), Periodicity::Proved(_));
            if (until_proved && proved) || len >= max_n {
                break;
            }
            let next = max_n.min(len + (len / 16).max(1024));
            self.engine.extend_to(next, should_stop)?;
        }
        Ok(self.check(true))
    }

    /// The detector on the kept values (all of them, or in window mode the tail), its
    /// long-period sweep on the engine's threads.
    fn check(&mut self, now: bool) -> &Periodicity {
        let detector = &mut self.detector;
        let swept = detector.sweep_time();
        let started = std::time::Instant::now();
        self.engine.with_pool(|engine, pool| {
            let (_, tail, base) = engine.kept();
            detector.check_tail_in(tail, base, now, pool);
        });
        // The sweep is shared by the engine's threads: a stage of the profile.
        self.engine.profile_sweep(
            self.detector.sweep_time().saturating_sub(swept),
            started.elapsed(),
        );
        self.detector.result()
    }

    /// G(heap) for any heap (see [`value_at`]).
    pub fn value_at(&self, heap: u64) -> Result<u64, OctalError> {
        self.all_kept()?;
        value_at(self.engine.values(), self.detector.result(), heap)
    }

    /// Queries read G(0..len): refused once a window-mode engine dropped values.
    fn all_kept(&self) -> Result<(), OctalError> {
        if self.engine.is_windowed() {
            let (front, _, base) = self.engine.kept();
            return Err(OctalError::WindowTooSmall {
                heap: self.engine.len() as u64,
                detail: format!(
                    "this computation keeps G(0..{}) and G({base}..{}) only",
                    front.len(),
                    self.engine.len()
                ),
            });
        }
        Ok(())
    }

    /// G(0..n) as u64, from the values and, beyond them, the proved periodicity.
    pub fn sequence(&self, n: usize) -> Result<Vec<u64>, OctalError> {
        (0..n as u64).map(|h| self.value_at(h)).collect()
    }

    /// Winning moves (see [`winning_moves`]).
    pub fn winning_moves(
        &self,
        heaps: &[u64],
        cursor: Option<&str>,
        limit: usize,
        budget: u64,
    ) -> Result<MovePage, OctalError> {
        self.all_kept()?;
        winning_moves(
            self.game(),
            self.engine.values().as_ref(),
            self.detector.result(),
            heaps,
            cursor,
            limit,
            budget,
        )
    }
}
