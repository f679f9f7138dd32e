//! Exact, budgeted game-tree search for sums of heaps that no quotient covers.
//!
//! Positions are sorted lists of heap sizes; heaps without options (size 0, and e.g. a heap
//! of one token in Dawson's Kayles `0.07`) are dropped, because such a heap *is* the empty
//! game — a position is unchanged as a game by adding or removing it. (Heaps whose
//! normal-play value is 0 are *not* dropped: in misère play they matter.) The search is the
//! shared memoised, explicit-stack solver of [`crate::budget`]:
//!
//! * [`misere_search`]: the misère outcome (the player who cannot move **wins**: a terminal
//!   position is N) and every winning move. When a verified quotient is given, every
//!   position whose heaps it covers is answered from it instead of searched; positions with a
//!   heap beyond its bound are searched (their outcome is *not* a function of the quotient's
//!   elements, which only describe sums of covered heaps).
//! * [`misere_grundy`]: the misère Grundy value `G⁻`: `G⁻(G) = 1` when `G` has no option,
//!   otherwise the mex of `G⁻` over the options of `G` (the first component of Conway's genus;
//!   Winning Ways ch. 13). It is computed on the whole game tree: there is no sum rule for
//!   `G⁻`.
//!
//! Both stop with [`MisereError::SearchBudgetExceeded`] when the [`Budget`] runs out.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use crate::budget::Budget;
use crate::game::Outcome;
use crate::octal::{Game, WinningMove, MAX_HEAPS};
use crate::search::{MemoSearch, Mode, SearchGame};

use super::error::MisereError;
use super::options::{has_options, heap_options, MAX_OPTION_HEAP};
use super::quotient::{MisereAnswer, MisereQuotient};

/// The game of sums of heaps, for [`MemoSearch`].
struct Heaps<'a> {
    game: &'a Game,
    quotient: Option<&'a MisereQuotient>,
    /// Options (heaps left, trivial heaps dropped) of the heap sizes met so far.
    cache: RefCell<HashMap<u64, Rc<Vec<Vec<u64>>>>>,
    /// Whether a heap size has no option.
    trivial: RefCell<HashMap<u64, bool>>,
    error: RefCell<Option<MisereError>>,
    /// Options held in `cache`, all heap sizes together (bounded by [`MAX_CACHED_OPTIONS`]).
    cached: std::cell::Cell<usize>,
}

/// The most options the search keeps listed, all heap sizes together (≈ 64 bytes each): a sum
/// with large heaps of a game that splits into three heaps lists O(n²) options per size met,
/// so this, not the step budget, is what bounds the memory (a request with a heap of 7,522
/// of `0.E(947F)` took 23 GB before).
const MAX_CACHED_OPTIONS: usize = 1 << 21;

impl Heaps<'_> {
    fn options(&self, h: u64) -> Rc<Vec<Vec<u64>>> {
        if let Some(o) = self.cache.borrow().get(&h) {
            return Rc::clone(o);
        }
        if self.error.borrow().is_some() {
            return Rc::new(Vec::new()); // the search is failing: no more lists
        }
        let list: Vec<Vec<u64>> = match heap_options(self.game, h) {
            Ok(opts) => opts
                .into_iter()
                .map(|o| {
                    o.leave
                        .into_iter()
                        .filter(|&x| !self.trivial(x))
                        .collect::<Vec<u64>>()
                })
                .collect(),
            Err(e) => {
                *self.error.borrow_mut() = Some(e);
                Vec::new()
            }
        };
        let cached = self.cached.get() + list.len();
        if cached > MAX_CACHED_OPTIONS {
            self.error
                .borrow_mut()
                .get_or_insert(MisereError::SearchBudgetExceeded {
                    steps: 0,
                    entries: cached as u64,
                });
            return Rc::new(Vec::new());
        }
        self.cached.set(cached);
        let rc = Rc::new(list);
        self.cache.borrow_mut().insert(h, Rc::clone(&rc));
        rc
    }

    /// A heap without options (the empty game).
    fn trivial(&self, h: u64) -> bool {
        if h == 0 {
            return true;
        }
        if let Some(&t) = self.trivial.borrow().get(&h) {
            return t;
        }
        let t = match has_options(self.game, h) {
            Ok(any) => !any,
            Err(e) => {
                *self.error.borrow_mut() = Some(e);
                true
            }
        };
        self.trivial.borrow_mut().insert(h, t);
        t
    }

    fn canonical(&self, heaps: &[u64]) -> Vec<u64> {
        let mut v: Vec<u64> = heaps
            .iter()
            .copied()
            .filter(|&h| !self.trivial(h))
            .collect();
        v.sort_unstable();
        v
    }
}

struct Cursor {
    slot: usize,
    opt: usize,
    opts: Option<Rc<Vec<Vec<u64>>>>,
}

impl SearchGame for Heaps<'_> {
    type State = Vec<u64>;
    type Cursor = Cursor;

    fn cursor(&self, _s: &Vec<u64>) -> Cursor {
        Cursor {
            slot: 0,
            opt: 0,
            opts: None,
        }
    }

    fn next(&self, s: &Vec<u64>, c: &mut Cursor) -> Option<Vec<u64>> {
        loop {
            let &h = s.get(c.slot)?;
            if c.slot > 0 && s[c.slot - 1] == h {
                c.slot += 1;
                continue;
            }
            let opts = match &c.opts {
                Some(o) => Rc::clone(o),
                None => {
                    let o = self.options(h);
                    c.opts = Some(Rc::clone(&o));
                    o
                }
            };
            if let Some(parts) = opts.get(c.opt) {
                c.opt += 1;
                let mut next: Vec<u64> = Vec::with_capacity(s.len() + parts.len());
                next.extend_from_slice(&s[..c.slot]);
                next.extend_from_slice(&s[c.slot + 1..]);
                next.extend_from_slice(parts);
                next.sort_unstable();
                return Some(next);
            }
            c.slot += 1;
            c.opt = 0;
            c.opts = None;
        }
    }

    fn size(&self, s: &Vec<u64>) -> u64 {
        s.len() as u64 + 1
    }

    fn known(&self, s: &Vec<u64>, mode: Mode) -> Option<u64> {
        if s.is_empty() {
            // No move: misère N (outcome 1), and G⁻ = 1.
            return Some(1);
        }
        if mode == Mode::MisereOutcome {
            if let Some(q) = self.quotient {
                if let Ok(o) = q.outcome(s) {
                    return Some(u64::from(o == Outcome::N));
                }
            }
        }
        None
    }
}

fn check_heaps(heaps: &[u64]) -> Result<(), MisereError> {
    if heaps.len() > MAX_HEAPS {
        return Err(MisereError::TooManyHeaps {
            count: heaps.len(),
            max: MAX_HEAPS,
        });
    }
    if let Some(&h) = heaps.iter().find(|&&h| h > MAX_OPTION_HEAP) {
        return Err(MisereError::HeapTooLarge {
            heap: h,
            max: MAX_OPTION_HEAP,
        });
    }
    Ok(())
}

fn budget_error<G: SearchGame>(s: &MemoSearch<G>) -> MisereError {
    let (steps, entries) = s.used();
    MisereError::SearchBudgetExceeded { steps, entries }
}

/// The misère outcome of a sum of heaps and every winning move, by exact search (answered
/// from `quotient` wherever it applies). `should_stop` is polled between the searches of the
/// root's options; each search is bounded by `budget`.
pub fn misere_search(
    game: &Game,
    heaps: &[u64],
    quotient: Option<&MisereQuotient>,
    budget: Budget,
    should_stop: &mut dyn FnMut() -> bool,
) -> Result<MisereAnswer, MisereError> {
    check_heaps(heaps)?;
    if let Some(q) = quotient {
        if let Ok(ans) = q.winning_moves(heaps) {
            return Ok(ans);
        }
    }
    let g = Heaps {
        game,
        quotient,
        cache: RefCell::new(HashMap::new()),
        trivial: RefCell::new(HashMap::new()),
        error: RefCell::new(None),
        cached: std::cell::Cell::new(0),
    };
    let root = g.canonical(heaps);
    let mut search = MemoSearch::new(g, Mode::MisereOutcome, budget);
    let v = search.solve(&root).map_err(|_| budget_error(&search))?;
    if let Some(e) = search.game().error.borrow_mut().take() {
        return Err(e);
    }
    let mut answer = MisereAnswer {
        outcome: if v == 0 { Outcome::P } else { Outcome::N },
        element: None,
        moves: Vec::new(),
    };
    if answer.outcome == Outcome::P {
        return Ok(answer);
    }
    let mut done: HashSet<u64> = HashSet::new();
    for (i, &h) in heaps.iter().enumerate() {
        if h == 0 || !done.insert(h) {
            continue;
        }
        for o in heap_options(game, h)? {
            if should_stop() {
                return Err(MisereError::Stopped { heap: h });
            }
            let mut next: Vec<u64> = heaps[..i].to_vec();
            next.extend_from_slice(&heaps[i + 1..]);
            next.extend_from_slice(&o.leave);
            let next = search.game().canonical(&next);
            let v = search.solve(&next).map_err(|_| budget_error(&search))?;
            if v == 0 {
                answer.moves.push(WinningMove {
                    heap_index: i,
                    heap: h,
                    take: i128::from(o.take),
                    leave: o.leave,
                });
            }
        }
    }
    if let Some(e) = search.game().error.borrow_mut().take() {
        return Err(e);
    }
    Ok(answer)
}

/// The misère Grundy value `G⁻` of a sum of heaps (see the module documentation).
pub fn misere_grundy(game: &Game, heaps: &[u64], budget: Budget) -> Result<u64, MisereError> {
    check_heaps(heaps)?;
    let g = Heaps {
        game,
        quotient: None,
        cache: RefCell::new(HashMap::new()),
        trivial: RefCell::new(HashMap::new()),
        error: RefCell::new(None),
        cached: std::cell::Cell::new(0),
    };
    let root = g.canonical(heaps);
    let mut search = MemoSearch::new(g, Mode::NormalValue, budget);
    let v = search.solve(&root).map_err(|_| budget_error(&search))?;
    if let Some(e) = search.game().error.borrow_mut().take() {
        return Err(e);
    }
    Ok(v)
}
