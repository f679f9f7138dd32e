//! The engine's settings that only tests change: bit marks or stamp arrays, the archive path
//! forced, the pipeline off or forced from a heap with a fixed plan, the widest byte rows,
//! serial work forced into each round — and what the pipeline did. The settings the step loop
//! and the pipeline read are one struct, [`Knobs`]; the setters are compiled for tests only.

#[cfg(test)]
use super::parallel::pipeline;
#[cfg(test)]
use super::{Engine, Mode, Profile};

/// The settings only tests change; the defaults are what every run uses.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Knobs {
    /// Sparse mode may use bit marks while values are below 64 (`bitmarks.rs`); tests switch
    /// it off to compare with the stamp arrays.
    pub(crate) bit_marks: bool,
    /// Sparse mode as the pipeline (`engine/parallel/pipeline.rs`) where it applies (several
    /// threads, a profile, or bit rows); tests switch it off to compare with the one-thread step.
    pub(crate) pipeline: bool,
    /// The pipeline runs from this heap on ([`parallel::pipeline::PIPELINE_FROM`]; tests lower it), with
    /// the block size and far rows of its plan unless a test fixes them.
    pub(crate) pipeline_from: usize,
    pub(crate) plan_override: Option<(usize, bool)>,
    /// Byte rows of the widest kind whatever the values (every row width runs the same code
    /// with another `N`).
    pub(crate) widest_rows: bool,
}

impl Default for Knobs {
    fn default() -> Knobs {
        Knobs {
            bit_marks: true,
            pipeline: true,
            pipeline_from: super::parallel::pipeline::PIPELINE_FROM,
            plan_override: None,
            widest_rows: false,
        }
    }
}

#[cfg(test)]
impl Engine {
    /// Tests: bit marks where values allow (the default), or never (see `sparse.rs`).
    pub(crate) fn set_bit_marks(&mut self, on: bool) {
        self.knobs.bit_marks = on;
        if let Mode::Sparse(sp) = &mut self.mode {
            sp.set_bit_marks(on);
        }
    }

    /// Tests: whether sparse mode runs on bit marks now.
    pub(crate) fn bit_marks_in_use(&self) -> bool {
        matches!(&self.mode, Mode::Sparse(sp) if sp.bits_in_use())
    }

    /// Tests: every rare check reads its splits through the archive path (see `sparse.rs`).
    pub(crate) fn force_read_back(&mut self) {
        if let Mode::Sparse(sp) = &mut self.mode {
            sp.set_force_read_back(true);
        }
    }

    /// Tests: `serial` of busy work forced into every round of the pipeline (profiling on).
    pub(crate) fn force_serial_work(&mut self, serial: std::time::Duration) {
        let p = self.workers.profile.get_or_insert_with(Profile::default);
        p.forced = serial;
    }

    /// Tests: sparse mode on several threads (`engine/parallel/pipeline.rs`) where it applies
    /// (default), or never.
    pub(crate) fn set_pipeline(&mut self, on: bool) {
        self.knobs.pipeline = on;
    }

    /// Tests: the pipeline from heap `from` on, with blocks of `block` heaps and far rows or
    /// not (`None`: as its plan says).
    pub(crate) fn force_pipeline(&mut self, from: usize, plan: Option<(usize, bool)>) {
        self.knobs.pipeline_from = from;
        self.knobs.plan_override = plan;
    }

    /// Tests: the widest byte rows whatever the values.
    pub(crate) fn force_widest_rows(&mut self) {
        self.knobs.widest_rows = true;
    }

    /// Tests: what the pipeline did so far.
    pub(crate) fn pipeline_counts(&self) -> pipeline::Counts {
        self.workers.pipeline_counts
    }
}
