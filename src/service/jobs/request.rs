//! What an octal job is asked for — `max_n`, which values it keeps, its window — checked
//! once for every way in: `POST /v1/octal/jobs`, a census (`POST /v1/octal/census`) and the
//! command line (`grundy octal`, `grundy census`). A refusal is a [`JobRefusal`], typed: the
//! API words it with its fields, the command line with its flags; neither reads the other's
//! text.
//!
//! The window rule lives here alone ([`window_rule`]): window mode cannot compute a game with a
//! digit whose moves leave three heaps, or with recurring digits (see
//! [`crate::service::octal::window_refusal`]); a window that holds every value (window ≥
//! max_n) computes it all the same, so such a job runs as keeping all.

use crate::config::Config;
use crate::core::octal::{Game, SLIDE};
use crate::store::NewJob;

/// Which values a job keeps in memory: every one, or a window (the front and the last values).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    All,
    Window,
}

/// A job as asked, before it is checked.
#[derive(Debug, Clone, Copy, Default)]
pub struct JobAsk {
    /// Values G(0..max_n) to compute at most.
    pub max_n: u64,
    /// As asked; `None`: a window when a window option is given, else all.
    pub keep: Option<Keep>,
    /// The window (a window option; default `GRUNDY_JOB_WINDOW`).
    pub window: Option<u64>,
    /// Also store every value of a window job (a window option; default false).
    pub store_values: Option<bool>,
}

/// A window option, as a refusal names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WindowOption {
    Window,
    StoreValues,
}

/// Why a job is not started, in numbers: each side words it in its own terms.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JobRefusal {
    /// `max_n` is 0 or over the mode's limit (`GRUNDY_JOB_WINDOW_MAX_N` in window mode, else
    /// `GRUNDY_JOB_MAX_N`).
    MaxN {
        given: u64,
        limit: u64,
        window_mode: bool,
    },
    /// A window option with keep = all.
    OptionNeedsWindow(WindowOption),
    /// The window is not a positive multiple of [`SLIDE`] up to `most`
    /// (`GRUNDY_JOB_MAX_WINDOW`).
    Window { given: u64, slide: u64, most: u64 },
    /// The game cannot run in window mode, and the window (`window`) is smaller than `max_n`.
    CannotWindow {
        why: String,
        window: u64,
        max_n: u64,
    },
}

impl JobAsk {
    /// Whether the job runs in window mode: as `keep` says; without one, when a window option
    /// is given.
    pub fn window_mode(&self) -> bool {
        match self.keep {
            Some(keep) => keep == Keep::Window,
            None => self.window.is_some() || self.store_values.is_some(),
        }
    }

    /// The job asked for, for no game yet (`code` empty): `max_n` within the mode's limit,
    /// window options only in window mode. A census checks it once for all its codes, then
    /// [`window_rule`] for each.
    pub fn template(&self, config: &Config) -> Result<NewJob, JobRefusal> {
        let max_n = self.max_n;
        let window_mode = self.window_mode();
        let limit = if window_mode {
            config.job_window_max_n
        } else {
            config.job_max_n
        };
        if max_n == 0 || max_n > limit {
            return Err(JobRefusal::MaxN {
                given: max_n,
                limit,
                window_mode,
            });
        }
        if !window_mode {
            if self.window.is_some() {
                return Err(JobRefusal::OptionNeedsWindow(WindowOption::Window));
            }
            if self.store_values.is_some() {
                return Err(JobRefusal::OptionNeedsWindow(WindowOption::StoreValues));
            }
            return Ok(NewJob {
                code: String::new(),
                max_n,
                keep_window: None,
                store_values: true,
            });
        }
        let slide = SLIDE as u64;
        let window = self.window.unwrap_or(config.job_window);
        if window == 0 || !window.is_multiple_of(slide) || window > config.job_max_window {
            return Err(JobRefusal::Window {
                given: window,
                slide,
                most: config.job_max_window,
            });
        }
        Ok(NewJob {
            code: String::new(),
            max_n,
            keep_window: Some(window),
            store_values: self.store_values.unwrap_or(false),
        })
    }

    /// The job asked for `game`: [`JobAsk::template`], then [`window_rule`].
    pub fn job(&self, config: &Config, game: &Game) -> Result<NewJob, JobRefusal> {
        let mut job = self.template(config)?;
        job.code = game.canonical();
        window_rule(game, &mut job)?;
        Ok(job)
    }
}

/// The window rule for `game`: a window job of a game window mode cannot compute is refused
/// unless its window holds every value, and then it keeps all (and stores every value).
pub fn window_rule(game: &Game, job: &mut NewJob) -> Result<(), JobRefusal> {
    let Some(window) = job.keep_window else {
        return Ok(());
    };
    let Some(why) = crate::service::octal::window_refusal(game) else {
        return Ok(());
    };
    if window < job.max_n {
        return Err(JobRefusal::CannotWindow {
            why,
            window,
            max_n: job.max_n,
        });
    }
    job.keep_window = None;
    job.store_values = true;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> Config {
        Config::default()
    }

    #[test]
    fn the_mode_follows_keep_then_the_window_options() {
        let ask = |keep, window: Option<u64>, store_values| JobAsk {
            max_n: 10,
            keep,
            window,
            store_values,
        };
        assert!(!ask(None, None, None).window_mode());
        assert!(ask(None, Some(1 << 16), None).window_mode());
        assert!(ask(None, None, Some(false)).window_mode());
        assert!(!ask(Some(Keep::All), Some(1 << 16), None).window_mode());
        assert!(ask(Some(Keep::Window), None, None).window_mode());
    }

    #[test]
    fn refusals_carry_their_numbers() {
        let c = config();
        let all = JobAsk {
            max_n: c.job_max_n + 1,
            ..JobAsk::default()
        };
        assert_eq!(
            all.template(&c).err(),
            Some(JobRefusal::MaxN {
                given: c.job_max_n + 1,
                limit: c.job_max_n,
                window_mode: false
            })
        );
        let zero = JobAsk::default();
        assert!(matches!(
            zero.template(&c),
            Err(JobRefusal::MaxN { given: 0, .. })
        ));
        let both = JobAsk {
            max_n: 10,
            keep: Some(Keep::All),
            store_values: Some(true),
            ..JobAsk::default()
        };
        assert_eq!(
            both.template(&c).err(),
            Some(JobRefusal::OptionNeedsWindow(WindowOption::StoreValues))
        );
        let odd = JobAsk {
            max_n: 10,
            window: Some(SLIDE as u64 + 1),
            ..JobAsk::default()
        };
        assert!(matches!(
            odd.template(&c),
            Err(JobRefusal::Window { given, .. }) if given == SLIDE as u64 + 1
        ));
    }

    #[test]
    fn the_window_rule_refuses_or_keeps_all() {
        let c = config();
        let three = Game::parse("0.8F").unwrap();
        let small = JobAsk {
            max_n: 1 << 20,
            window: Some(1 << 16),
            ..JobAsk::default()
        };
        assert!(matches!(
            small.job(&c, &three),
            Err(JobRefusal::CannotWindow {
                window: 65536,
                max_n: 1_048_576,
                ..
            })
        ));
        let holds_all = JobAsk {
            max_n: 1 << 16,
            window: Some(1 << 16),
            ..JobAsk::default()
        };
        let job = holds_all.job(&c, &three).unwrap();
        assert_eq!((job.keep_window, job.store_values), (None, true));
        // A game window mode computes keeps its window.
        let sparse = Game::parse("0.167").unwrap();
        let job = small.job(&c, &sparse).unwrap();
        assert_eq!(
            (job.code.as_str(), job.keep_window, job.store_values),
            ("0.167", Some(1 << 16), false)
        );
    }
}
