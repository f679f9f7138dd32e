//! Window mode of the engine ([`Keep::Window`], `octal/window.rs`): which values are kept, the
//! slide that drops the others (into the archive, when there is one), the freeze of mode and
//! mask when the gap opens, the window's own mask review (reading every value back), and the
//! resumption of an engine from a saved window.

use super::{Engine, Mode, MAX_WINDOW_N, SPARSE_MAX_BITS};
use crate::octal::code::Game;
use crate::octal::engine::rules::Rules;
use crate::octal::engine::sets::SetState;
use crate::octal::engine::sparse::{best_mask, Sparse};
use crate::octal::engine::split::MAX_HEAPS;
use crate::octal::error::OctalError;
use crate::octal::values::{width_for, with_cells, Values};
use crate::octal::window::archive::{fill, Archive, Backing, ReadBacks, READ_RUN};
use crate::octal::window::{Gap, Keep, View, SLIDE};

impl Engine {
    /// Keeps every value (default) or a front and a window ([`Keep::Window`]: `front ≥ window`,
    /// both positive multiples of [`SLIDE`]); values are dropped once there are more than
    /// `front + window + SLIDE`. Changing it after values were dropped is refused.
    pub fn set_keep(&mut self, keep: Keep) -> Result<(), OctalError> {
        if let Keep::Window { front, window } = keep {
            let slide = self.window.slide;
            if window == 0 || window % slide != 0 || front % slide != 0 || front < window {
                return Err(OctalError::WindowTooSmall {
                    heap: self.len() as u64,
                    detail: format!(
                        "a window of {window} and a front of {front} values: both must be \
                         positive multiples of {slide}, the front at least the window"
                    ),
                });
            }
        }
        if self.window.gap.is_some() && keep != self.window.keep {
            return Err(OctalError::WindowTooSmall {
                heap: self.len() as u64,
                detail: "values were already dropped; the kept values cannot change".into(),
            });
        }
        self.window.keep = keep;
        Ok(())
    }

    /// An engine in window mode continuing from kept values: `front` is G(0..front.len()),
    /// `tail` is G(base..base + tail.len()), `counts[v]` how often v occurred among G(1..n),
    /// `mask` the rare/common mask the computation ran with and `far` the rare positions
    /// beyond the window with their values ([`Engine::far_rare`]; see `window.rs`). The
    /// values between the front and the tail are read back from the archive set with
    /// [`Engine::set_archive`]. Where nothing was dropped yet (`base ≤ front.len()`) this is
    /// [`Engine::resume`] with the window set.
    #[allow(clippy::too_many_arguments)] // the saved state of a window, field by field
    pub fn resume_window(
        game: &Game,
        keep: Keep,
        front: Values,
        tail: Values,
        base: usize,
        counts: &[u64],
        mask: u32,
        far: &[(u64, u16)],
    ) -> Result<Engine, OctalError> {
        let Keep::Window { front: f, .. } = keep else {
            return Err(OctalError::InvalidValues {
                reason: "resume_window needs a window",
            });
        };
        if base <= front.len() {
            let mut all = front;
            all.truncate(base);
            all.extend_from_ref(tail.as_ref());
            let mut e = Engine::resume(game, all)?;
            e.set_keep(keep)?;
            return Ok(e);
        }
        if front.len() != f || front.get(0).is_some_and(|v| v != 0) {
            return Err(OctalError::InvalidValues {
                reason: "the front does not match the window",
            });
        }
        let n = base + tail.len();
        if n > MAX_WINDOW_N || counts.iter().sum::<u64>() + 1 != n as u64 {
            return Err(OctalError::InvalidValues {
                reason: "the counts do not match the kept values",
            });
        }
        let mut e = Engine::new(game);
        e.window.keep = keep;
        let max = front.max().max(tail.max());
        let top = counts.iter().rposition(|&c| c > 0).unwrap_or(0) as u32;
        if max > top || max >= 1 << 16 {
            return Err(OctalError::InvalidValues {
                reason: "value out of range",
            });
        }
        e.size_for(top);
        e.counts[..counts.len().min(1 << e.vbits)]
            .copy_from_slice(&counts[..counts.len().min(1 << e.vbits)]);
        let mut values = front;
        values.widen_to(width_for(top));
        values.extend_from_ref(tail.as_ref());
        e.values = values;
        e.window.gap = Some(Gap { front: f, base });
        if !e.scan_twos.is_empty() {
            // The rare positions and probes from the front; those beyond it as saved.
            let (words, sparse) = (e.words, &mut e.mode);
            *sparse = Mode::Sparse(Box::new(with_cells!(e.values.as_ref(), |g| {
                Sparse::new(mask, &g[..f], words)
            })));
        }
        e.freeze()?;
        match &mut e.mode {
            Mode::Sparse(sp) => sp.restore_far(far)?,
            _ if far.is_empty() => {}
            _ => {
                return Err(OctalError::InvalidValues {
                    reason: "rare positions saved for a game without two-heap splits",
                })
            }
        }
        Ok(e)
    }

    /// Window mode: where the values the engine drops go, and are read back from
    /// (`archive.rs`). Without one, dropped values are gone, and a heap whose rare check
    /// needs one of them ends the computation with [`OctalError::Archive`].
    pub fn set_archive(&mut self, archive: Box<dyn Archive>) {
        self.window.archive = Some(archive);
    }

    /// The archive, to look at after a computation (tests, diagnostics).
    pub fn archive(&self) -> Option<&dyn Archive> {
        self.window.archive.as_deref()
    }

    /// Read-backs from the archive so far.
    pub fn read_backs(&self) -> ReadBacks {
        self.window.read_backs
    }

    /// Window mode: the rare positions beyond the window (paired through the archive), with
    /// their values — what [`Engine::resume_window`] needs besides the kept values.
    pub fn far_rare(&self) -> Vec<(u64, u16)> {
        match &self.mode {
            Mode::Sparse(sp) => sp.far(),
            _ => Vec::new(),
        }
    }

    /// Why window mode ([`Keep::Window`]) cannot compute `game` at all, if it cannot: moves
    /// that leave three heaps, or recurring digits, need every value. (Whether the game has a
    /// sparse space is only known from its values.)
    pub fn window_refusal(game: &Game) -> Option<&'static str> {
        let rules = Rules::new(game);
        let sets = SetState::new(&rules, 1);
        (sets.is_some() || !rules.threes_capped.is_empty())
            .then_some("moves that leave three heaps, and recurring digits, need every value")
    }

    /// Drops values `slide` at a time in window mode instead of [`SLIDE`] (tests and
    /// experiments: windows of a few hundred values). Before [`Engine::set_keep`].
    pub fn set_slide(&mut self, slide: usize) {
        self.window.slide = slide.max(1);
    }

    /// Window mode: drops values once more than `front + window + SLIDE` are held, keeping
    /// the front and at least `window` behind the last one. The first drop opens the gap
    /// and freezes mode and mask ([`Engine::freeze`]).
    pub(super) fn slide(&mut self) -> Result<(), OctalError> {
        let Keep::Window { front, window } = self.window.keep else {
            return Ok(());
        };
        let front_len = self.window.gap.map_or(front, |gap| gap.front);
        let tail = self.values.len().saturating_sub(front_len);
        if tail < window + self.window.slide {
            return Ok(());
        }
        if self.window.gap.is_none() {
            self.last_mask_choice(window);
            self.window.gap = Some(Gap { front, base: front });
            if let Err(e) = self.freeze() {
                self.window.gap = None;
                return Err(e);
            }
        }
        let mut drop = (tail - window) / self.window.slide * self.window.slide;
        if let (Some(archive), Some(gap)) = (&mut self.window.archive, self.window.gap) {
            // Only what the archive holds (or will, once it is written) may go.
            let dropping = self.values.as_ref().slice(front_len..front_len + drop);
            let held =
                archive
                    .offer(gap.base as u64, dropping)
                    .map_err(|detail| OctalError::Archive {
                        heap: gap.base as u64,
                        detail,
                    })?;
            let allowed = usize::try_from(held).unwrap_or(usize::MAX);
            drop =
                drop.min(allowed.saturating_sub(gap.base) / self.window.slide * self.window.slide);
        }
        self.values.drain(front_len..front_len + drop);
        if let Some(gap) = &mut self.window.gap {
            gap.base += drop;
        }
        Ok(())
    }

    /// Window mode from now on: checks that the game can be computed from a front and a
    /// window (the rare/common method or no two-heap digit at all; no full exclusion sets;
    /// every rare position below the window less the largest take), then fixes mode and mask.
    fn freeze(&mut self) -> Result<(), OctalError> {
        let Keep::Window { front, window } = self.window.keep else {
            return Ok(());
        };
        let heap = self.len() as u64;
        let refuse = |why: String| OctalError::WindowTooSmall {
            heap,
            detail: format!("{why}; window mode cannot compute this game (keep every value)"),
        };
        if self.sets.is_some() || !self.rules.threes_capped.is_empty() {
            return Err(refuse(
                "three-heap splits and recurring digits need every value".into(),
            ));
        }
        let rare_limit = self.rare_limit(window);
        match &mut self.mode {
            Mode::Plain => {}
            Mode::Dense => {
                return Err(refuse(format!(
                    "the values up to {heap} have no sparse space (too many rare values under \
                     every mask), so two-heap splits are scanned in full"
                )))
            }
            Mode::Sparse(sp) => sp.set_limits(front.min(rare_limit), rare_limit),
        }
        // The mask is reviewed on (`review_window`) where an archive holds every value.
        let n = self.len();
        self.review.next_review = (n + n / 2).max(256);
        Ok(())
    }

    /// Window mode's review: the mask with the fewest rare values, from the value counts, as
    /// in [`Engine::review`]; when it is clearly better than the mask in use, the rare/common
    /// tables are built again for it from every value — the front, the archive read back in
    /// order, the tail. (`.6` with a window of 4096: the gap opens near 8,700 under the mask
    /// `ee`, which makes every value from 256 on rare; `1ee` keeps them common.) Only the
    /// mode's mask changes: window mode stays sparse. Without an archive the mask stays.
    pub(super) fn review_window(&mut self) -> Result<(), OctalError> {
        let n = self.len();
        self.review.next_review = (n + n / 2).max(256);
        let Keep::Window { front, window } = self.window.keep else {
            return Ok(());
        };
        let rare_limit = self.rare_limit(window);
        let (Some(archive), Mode::Sparse(sp)) = (self.window.archive.as_deref_mut(), &self.mode)
        else {
            self.review.next_review = usize::MAX;
            return Ok(());
        };
        let (mask, rare) = best_mask(&self.counts);
        let current = sp.rare_count();
        if mask == sp.mask || 4 * rare as usize >= 3 * current {
            return Ok(());
        }
        let mut new = Sparse::new::<u8>(mask, &[], self.words);
        new.set_limits(front.min(rare_limit), rare_limit);
        new.inherit_test_flags(sp);
        let gap = self.window.gap;
        let mut backing = Some(Backing {
            archive,
            counts: &mut self.window.read_backs,
        });
        let mut run = vec![0u16; READ_RUN.min(n)];
        let mut a = 0;
        while a < n {
            let end = (a + READ_RUN).min(n);
            let part = &mut run[..end - a];
            with_cells!(self.values.as_ref(), |g| fill(
                View::of(g, gap),
                &mut backing,
                a,
                part
            ))?;
            for (i, &v) in part.iter().enumerate() {
                new.push(a + i, v.into());
            }
            a = end;
        }
        self.review.rare_at_review = new.rare_count();
        self.mode = Mode::Sparse(Box::new(new));
        Ok(())
    }

    /// The last moment every value is at hand (the gap is about to open): window mode runs the
    /// rare/common method, so a dense mode chosen for its cost (parallel dense scans can beat
    /// sparse mode on small n: `.36` on two threads at 8,600 heaps) gives way to the mask with
    /// the fewest rare values wherever a sparse space exists (at most a quarter of the values
    /// rare, as a review asks); and a mask that leaves a rare position beyond the window
    /// ([`Engine::rare_limit`]) gives way to a better one when there is one. (Grundy's game to
    /// 2^23 with a window of 2^22: G(7,250,049) = 256 is rare under the mask `fe` chosen at the
    /// last review, common under `1fe`.)
    fn last_mask_choice(&mut self, window: usize) {
        let rare_limit = self.rare_limit(window);
        let (mask, rare) = best_mask(&self.counts);
        let switch = match &self.mode {
            Mode::Dense => {
                self.review.allow_sparse
                    && self.vbits <= SPARSE_MAX_BITS
                    && 4 * rare as usize <= self.len()
            }
            Mode::Sparse(sp) => {
                sp.rare.last().is_some_and(|&r| r as usize >= rare_limit) && mask != sp.mask
            }
            Mode::Plain => false,
        };
        if switch {
            self.mode = Mode::Sparse(Box::new(self.new_sparse(mask)));
            self.review.rare_at_review = match &self.mode {
                Mode::Sparse(sp) => sp.rare_count(),
                _ => 0,
            };
        }
    }

    /// Window mode keeps every rare position below this: the window less the largest take
    /// and the heaps of one block.
    fn rare_limit(&self, window: usize) -> usize {
        let take = self
            .scan_twos
            .iter()
            .map(|&u| u.max(0) as usize)
            .max()
            .unwrap_or(0);
        window.saturating_sub(take + MAX_HEAPS)
    }
}

/// Which values an engine keeps in memory, where the dropped ones went, and where they are read
/// back from.
#[derive(Debug)]
pub(super) struct WindowState {
    /// Which values are kept (`octal/window.rs`), and where the dropped ones were once some are.
    pub(super) keep: Keep,
    pub(super) gap: Option<Gap>,
    /// Values dropped at a time ([`SLIDE`]; tests use less).
    pub(super) slide: usize,
    /// Window mode: where dropped values go and are read back from (`window/archive.rs`);
    /// without one, values are dropped for good and a heap that needs one is an error.
    pub(super) archive: Option<Box<dyn Archive>>,
    pub(super) read_backs: ReadBacks,
}

impl WindowState {
    pub(super) fn new() -> WindowState {
        WindowState {
            keep: Keep::All,
            gap: None,
            slide: SLIDE,
            archive: None,
            read_backs: ReadBacks::default(),
        }
    }
}
