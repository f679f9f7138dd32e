//! The profile of a run (`Engine::set_profile`): how much of it every thread could share.
//!
//! The pipeline's work in a round is (1) the far rows of the spine's block and (3) the rare
//! checks of the block before — both cut into tasks of a fixed number of heaps, the same for
//! any thread count, and shared by every thread — and (2) the spine, which runs on one
//! thread. Everything else (the spine, committing a block, rebuilding the probes, a rollback,
//! the one-thread steps, the periodicity detector's candidate pass, the statistics) is *serial*;
//! the detector's long-period sweep is shared by the threads too. On one thread
//! every stage runs on the calling thread in turn, so a one-thread profile times exactly what
//! `p` threads would have to do, and Amdahl's law bounds their speed-up:
//! `predicted_p = 1 / (s + (1 − s)/p)` with `s = serial_s / total_s`.

use std::time::{Duration, Instant};

/// Times of the pipeline's stages (see the module docs).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Profile {
    /// Rounds of the pipeline.
    pub rounds: u64,
    /// Stage (1): the far rows (shared by every thread).
    pub far_rows: Duration,
    /// Stage (3): the rare checks (shared by every thread; with several threads, the time
    /// the calling thread spent in them after its spine, waiting for the others included).
    pub checks: Duration,
    /// Stage (2): the spine (one thread).
    pub spine: Duration,
    /// Dense mode's first phase (`dense.rs`: the pairs below the block, shared by the
    /// threads; each heap's pairs inside the block and its mex stay serial).
    pub dense: Duration,
    /// The periodicity detector's long-period sweep (`squares.rs`: one range of half-lengths
    /// per thread); its candidate pass runs on one thread and counts as serial.
    pub sweep: Duration,
    /// Serial, timed apart to say where the serial time goes: committing a round (the
    /// checks' verdicts, the counts, the rare set), and the detector less its sweep (its candidate
    /// pass over the tail).
    pub commit: Duration,
    pub detector: Duration,
    /// Tests: serial work forced into every round's commit.
    pub(crate) forced: Duration,
}

impl Profile {
    /// The time of the stages every thread shares.
    pub fn parallel(&self) -> Duration {
        self.far_rows + self.checks + self.sweep + self.dense
    }

    /// Of a run that took `total`: the serial time (`total` less the shared stages).
    pub fn serial(&self, total: Duration) -> Duration {
        total.saturating_sub(self.parallel())
    }

    /// The serial share of a run that took `total` (0 when it took no time).
    pub fn serial_share(&self, total: Duration) -> f64 {
        if total.is_zero() {
            return 0.0;
        }
        self.serial(total).as_secs_f64() / total.as_secs_f64()
    }

    /// Amdahl's bound on the speed-up of `p` threads for serial share `s`.
    pub fn predicted(s: f64, p: u32) -> f64 {
        1.0 / (s + (1.0 - s) / f64::from(p))
    }

    /// The profile line of a run on `threads` threads that took `total`:
    /// `profile: threads=1 serial_share=0.031 serial_s=1.02 total_s=33.10 predicted_8=6.9
    /// predicted_16=11.2`.
    pub fn line(&self, threads: usize, total: Duration) -> String {
        let s = self.serial_share(total);
        format!(
            "profile: threads={threads} serial_share={s:.3} serial_s={:.2} total_s={:.2} \
             predicted_8={:.1} predicted_16={:.1}",
            self.serial(total).as_secs_f64(),
            total.as_secs_f64(),
            Profile::predicted(s, 8),
            Profile::predicted(s, 16)
        )
    }

    /// Tests: the forced serial work of a round that began its commit at `start`.
    pub(crate) fn force_serial(&self, start: Instant) {
        while start.elapsed() < self.forced {
            std::hint::spin_loop();
        }
    }
}
