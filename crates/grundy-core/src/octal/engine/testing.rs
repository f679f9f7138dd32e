//! The engine's settings that only tests change (compiled for tests only): bit marks or stamp
//! arrays, the archive path forced, the pipeline off or forced from a heap with a fixed plan,
//! the widest byte rows, serial work forced into each round — and what the pipeline did. The
//! fields they set are the engine's (`bit_marks`, `pipeline`, `pipeline_from`,
//! `plan_override`, `widest_rows`), read where the step loop and the pipeline need them.

use super::{pipeline, Engine, Mode, Profile};

impl Engine {
    /// Tests: bit marks where values allow (the default), or never (see `sparse.rs`).
    #[cfg(test)]
    pub(crate) fn set_bit_marks(&mut self, on: bool) {
        self.bit_marks = on;
        if let Mode::Sparse(sp) = &mut self.mode {
            sp.set_bit_marks(on);
        }
    }

    /// Tests: whether sparse mode runs on bit marks now.
    #[cfg(test)]
    pub(crate) fn bit_marks_in_use(&self) -> bool {
        matches!(&self.mode, Mode::Sparse(sp) if sp.bits_in_use())
    }

    /// Tests: every rare check reads its splits through the archive path (see `sparse.rs`).
    #[cfg(test)]
    pub(crate) fn force_read_back(&mut self) {
        if let Mode::Sparse(sp) = &mut self.mode {
            sp.set_force_read_back(true);
        }
    }

    /// Tests: `serial` of busy work forced into every round of the pipeline (profiling on).
    #[cfg(test)]
    pub(crate) fn force_serial_work(&mut self, serial: std::time::Duration) {
        let p = self.profile.get_or_insert_with(Profile::default);
        p.forced = serial;
    }

    /// Tests: sparse mode on several threads (`engine/pipeline.rs`) where it applies
    /// (default), or never.
    #[cfg(test)]
    pub(crate) fn set_pipeline(&mut self, on: bool) {
        self.pipeline = on;
    }

    /// Tests: the pipeline from heap `from` on, with blocks of `block` heaps and far rows or
    /// not (`None`: as its plan says).
    #[cfg(test)]
    pub(crate) fn force_pipeline(&mut self, from: usize, plan: Option<(usize, bool)>) {
        self.pipeline_from = from;
        self.plan_override = plan;
    }

    /// Tests: the widest byte rows whatever the values.
    #[cfg(test)]
    pub(crate) fn force_widest_rows(&mut self) {
        self.widest_rows = true;
    }

    /// Tests: what the pipeline did so far.
    #[cfg(test)]
    pub(crate) fn pipeline_counts(&self) -> pipeline::Counts {
        self.pipeline_counts
    }
}
