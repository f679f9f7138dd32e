//! A game code compiled into the move lists the fast engine iterates over.
//!
//! Digits of the finite part (everything before the point and `d_1 … d_v`) become explicit lists
//! of removal sizes per number of heaps left. The repeating block of a recurring code becomes
//! residue classes: for block position `j` (0-based) every `u = v + 1 + j + k·t` (k ≥ 0) has the
//! same digit, and the engine handles the whole class at once with cumulative sets
//! (see `sets.rs`).

use crate::octal::code::Game;

#[derive(Debug, Clone)]
pub(crate) struct Recurring {
    /// Length of the non-repeating part after the point.
    pub v: usize,
    /// Block length.
    pub t: usize,
    /// `classes[h]`: block positions `j` whose digit has bit `h` (first member `u = v + 1 + j`).
    pub classes: [Vec<usize>; 4],
}

/// The finite two-heap digits an engine scans (`us`), with the part rule they obey: the two
/// parts must differ by at least `gap` (0: any split). Derefs to the digits.
#[derive(Debug, Clone, Default)]
pub(crate) struct Twos {
    pub us: Vec<i64>,
    pub gap: usize,
}

impl std::ops::Deref for Twos {
    type Target = [i64];
    fn deref(&self) -> &[i64] {
        &self.us
    }
}

impl<'a> IntoIterator for &'a Twos {
    type Item = &'a i64;
    type IntoIter = std::slice::Iter<'a, i64>;
    fn into_iter(self) -> Self::IntoIter {
        self.us.iter()
    }
}

#[derive(Debug, Clone)]
pub(crate) struct Rules {
    /// Finite-part `u ≥ 1` whose digit has bit 1 (take u, leave one heap).
    pub ones: Vec<usize>,
    /// Finite-part `u` (any sign) whose digit has bit 2 (leave two heaps).
    pub twos: Vec<i64>,
    /// Finite-part `u ≥ −1` whose digit has bit 3. For these the "every heap below n" rule of
    /// adding moves never binds (the two other parts are ≥ 1), so full three-heap sets apply.
    pub threes_free: Vec<i64>,
    /// `u ≤ −2` with bit 3: the largest part must stay below n; enumerated directly.
    pub threes_capped: Vec<i64>,
    pub recurring: Option<Recurring>,
    /// The part rule of two-heap splits: the parts must differ by at least `gap` (0: any
    /// split; 1: unequal, Grundy's game). `Game::with_part_rule` only allows it on finite
    /// codes without three-heap digits, so it only concerns `twos`, which every engine walks
    /// through `sparse::split_range`.
    pub gap: u64,
}

impl Rules {
    pub fn new(game: &Game) -> Rules {
        let v = game.prefix().len() as i64;
        let mut r = Rules {
            ones: Vec::new(),
            twos: Vec::new(),
            threes_free: Vec::new(),
            threes_capped: Vec::new(),
            recurring: None,
            gap: game.part_rule().min_gap(),
        };
        for u in game.min_index()..=v {
            let d = game.digit(u);
            if d & 2 != 0 && u >= 1 {
                r.ones.push(u as usize);
            }
            if d & 4 != 0 {
                r.twos.push(u);
            }
            if d & 8 != 0 {
                if u >= -1 {
                    r.threes_free.push(u);
                } else {
                    r.threes_capped.push(u);
                }
            }
        }
        if !game.block().is_empty() {
            let mut classes: [Vec<usize>; 4] = Default::default();
            for (j, &d) in game.block().iter().enumerate() {
                for (h, class) in classes.iter_mut().enumerate() {
                    if d >> h & 1 == 1 {
                        class.push(j);
                    }
                }
            }
            r.recurring = Some(Recurring {
                v: v as usize,
                t: game.block().len(),
                classes,
            });
        }
        debug_assert!(
            r.gap == 0 || !r.needs_sets(),
            "a part rule with full exclusion sets"
        );
        r
    }

    /// True when some move splits into three heaps or a recurring digit splits into two: then
    /// the engine keeps full two-heap exclusion sets X2(s) (see `sets.rs`).
    pub fn needs_sets(&self) -> bool {
        !self.threes_free.is_empty()
            || self
                .recurring
                .as_ref()
                .is_some_and(|r| !r.classes[2].is_empty() || !r.classes[3].is_empty())
    }

    /// The finite two-heap digits the engine scans, with the part rule: all of them, except
    /// those with `u ≥ 0` when X2 rows answer them (`has_x2`).
    pub fn scan_twos(&self, has_x2: bool) -> Twos {
        Twos {
            us: self
                .twos
                .iter()
                .copied()
                .filter(|&u| !(has_x2 && u >= 0))
                .collect(),
            gap: usize::try_from(self.gap).unwrap_or(usize::MAX),
        }
    }

    /// True when some move recurring digit splits into three heaps.
    pub fn recurring_threes(&self) -> bool {
        self.recurring
            .as_ref()
            .is_some_and(|r| !r.classes[3].is_empty())
    }
}
