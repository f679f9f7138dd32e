//! Octal-sequence jobs (kind `sequence`: [`SequenceJob`], declared with its rows in the store):
//! its submission ([`JobSubmit`], one job, as every kind's by default) and its run
//! ([`JobRun`]), by the job workers (`workers.rs`) like every job — a census's members' jobs
//! too (`census.rs`). A run computes on the blocking pool in slices of about one checkpoint
//! interval, and after each slice saves the new values and renews its lease in one
//! transaction. It stops early once periodicity is proved, promptly on cancel, and at
//! shutdown it saves a final checkpoint and gives the job back to the queue.
//!
//! A running job takes its share of the cores (its seat, `super::threads`) before each
//! slice, so the threads follow the jobs starting and ending here within one checkpoint
//! interval. Its slices' CPU time — the slice's thread and the engine's helper threads
//! (`super::cpu`) — is added to what earlier runs used, and each checkpoint saves it with the
//! threads and the engine's version, for the job document to cite.
//!
//! When the store fails (full disk, lost connection, wiped database) a running job keeps what
//! it computed in memory, stops computing further (memory stays bounded by one interval of
//! unsaved values), records why it is stalled (shown in the job document) and retries its
//! checkpoint with back-off (250 ms doubling to 5 s, sooner when the store's fault clears).
//! It continues once a checkpoint commits: nothing already computed is computed again. A job
//! whose row vanished with a wiped or replaced database is re-registered from memory, and its
//! whole sequence is written again. Store errors are logged by the store's health (one ERROR
//! when a fault starts, one INFO when it clears), not per attempt.

use std::future::Future;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::archive::{StoreArchive, DAMAGED, MAX_UNSTORED};
use super::cpu::JobCpu;
use super::kind::{JobRun, JobSubmit};
use super::retry::{mark_stalled, retrying, Backoff};
use super::threads::{JobSeat, JobShape};
use crate::core::octal::{Engine, Keep, Statistics, ValuesRef};
use crate::core::octal::{Game, OctalError, Periodicity, Solver};
use crate::service::octal::OctalServiceError;
use crate::service::state::AppState;
use crate::store::{
    tail_offset, ArchiveReport, Checkpoint, CheckpointArgs, Job, JobStatus, PeriodicityRecord,
    RunRecord, SequenceJob, Stall, Store, StoreError, WindowState, WindowWrite,
};

/// A running job's view of what the store holds.
struct Saver<'a> {
    app: &'a AppState,
    store: &'a Store,
    job: &'a Job,
    owner: &'a str,
    code: &'a str,
    lease_ms: i64,
    /// Values known stored (a multiple of nothing in particular; writes start at its chunk).
    already: usize,
    /// The store's epoch when `already` was last known right.
    epoch: u64,
    /// A checkpoint failed or the store was reopened since the claim: a vanished row is
    /// taken for a wiped database and re-registered.
    saw_fault: bool,
    /// Window mode: values known written to the job's window chunks, and whether the public
    /// sequence can still be written (it cannot once a wiped store lost a prefix that is no
    /// longer kept).
    already_window: usize,
    sequence_ok: bool,
    /// Window mode: what the archive may read back (moved on after each commit), and the
    /// read-back report of earlier runs of the job.
    stored: Option<Arc<AtomicU64>>,
    report: ArchiveReport,
    /// This run's CPU time, and the job's before it (`Job::cpu_ms`).
    cpu: JobCpu,
    cpu_before: Option<u64>,
    /// The threads of the latest slice (`None` until this run computed one).
    threads: Option<u64>,
}

impl Saver<'_> {
    /// What the next checkpoint says about this run: its threads, the job's CPU time in all,
    /// and this engine.
    fn run_record(&self) -> RunRecord<'static> {
        self.cpu.run_record(self.threads, self.cpu_before)
    }

    /// Saves the solver's values beyond what is stored, renewing the lease; retries with
    /// back-off while the store fails (the job is marked stalled meanwhile, and computes
    /// nothing further). `None` on shutdown while the store still fails.
    async fn save(
        &mut self,
        solver: &Solver,
        rate: Option<f64>,
        shutdown: &AtomicBool,
    ) -> Option<Checkpoint> {
        let mut backoff = Backoff::new();
        let mut stall: Option<Stall> = None;
        loop {
            if self.store.epoch() != self.epoch {
                // The database may have lost what we wrote: write everything again.
                self.epoch = self.store.epoch();
                self.already = 0;
                self.already_window = 0;
                self.saw_fault = true;
            }
            let engine = solver.engine();
            let total = engine.len();
            let (front, kept, base) = engine.kept();
            // The public sequence: every value of an `all` job; a window job's only when it
            // stores them and they are still kept.
            let (mut offset, mut tail) = (0, ValuesRef::U8(&[]));
            if self.job.keep_window.is_none() || (self.job.store_values && self.sequence_ok) {
                offset = tail_offset(self.already);
                if offset >= base {
                    tail = kept.slice(offset - base..);
                } else {
                    tracing::warn!(job = %self.job.id, from = offset,
                        "the stored values before the window were lost; the job goes on without storing every value");
                    self.sequence_ok = false;
                    offset = 0;
                }
            }
            let window = self.job.keep_window.map(|w| {
                let w = w as usize;
                let far = engine.far_rare();
                let reads = engine.read_backs();
                let report = ArchiveReport {
                    reads: self.report.reads + reads.reads,
                    values_read: self.report.values_read + reads.values,
                    read_seconds: (reads.nanos as f64).mul_add(1e-9, self.report.read_seconds),
                    deep_scans: self.report.deep_scans + reads.deep_scans,
                    far_rare_positions: far.len() as u64,
                    rebuilt: self.report.rebuilt.clone(),
                };
                let state = WindowState {
                    front: w as u64,
                    window: w as u64,
                    base: base as u64,
                    computed: total as u64,
                    mask: engine.mask(),
                    far,
                };
                // New chunks of the front (from the kept front), then of the tail.
                let start = tail_offset(self.already_window);
                let front_end = w.min(front.len());
                let front_part = (start, front.slice(start.min(front_end)..front_end));
                let from = start.max(w).max(base);
                let tail_part = (from, kept.slice((from - base).min(kept.len())..));
                WindowWrite {
                    state,
                    parts: [front_part, tail_part],
                    report: Some(report.to_json()),
                }
            });
            let (json, statistics) = (
                PeriodicityRecord::json_of(solver.periodicity()),
                engine.statistics().map(|s| s.to_bytes()),
            );
            let result = self
                .store
                .checkpoint(CheckpointArgs {
                    job_id: &self.job.id,
                    owner: self.owner,
                    code: self.code,
                    offset,
                    tail,
                    computed: total as u64,
                    window,
                    statistics: statistics.as_deref(),
                    periodicity: json.as_deref(),
                    rate,
                    lease_ms: self.lease_ms,
                    run: self.run_record(),
                })
                .await;
            let e = match result {
                Ok(Checkpoint::Missing) if self.saw_fault => {
                    match self
                        .store
                        .restore_job(self.job, self.owner, self.lease_ms)
                        .await
                    {
                        Ok(()) => {
                            self.already = 0;
                            self.already_window = 0;
                            continue;
                        }
                        Err(e) => e,
                    }
                }
                Ok(Checkpoint::Missing) => return Some(Checkpoint::Lost),
                Ok(cp) => {
                    self.already = offset + tail.len();
                    self.already_window = total;
                    if let Some(stored) = &self.stored {
                        stored.store(total as u64, Ordering::Release);
                    }
                    if stall.is_some() {
                        self.store.clear_stall(&self.job.id);
                        tracing::info!(job = %self.job.id, computed = total, "job checkpoint stored again; continuing");
                    }
                    return Some(cp);
                }
                Err(StoreError::PrefixMissing { .. }) if offset > 0 => {
                    self.already = 0;
                    self.saw_fault = true;
                    continue;
                }
                Err(e) => e,
            };
            self.saw_fault = true;
            mark_stalled(self.store, &self.job.id, &mut stall, &e, total as u64);
            if shutdown.load(Ordering::SeqCst) {
                tracing::warn!(job = %self.job.id, error = %e,
                    "shutting down while the store refuses the job's checkpoint; it resumes from the last stored one");
                return None;
            }
            backoff.wait(self.app, self.store).await;
        }
    }
}

/// What a slice of computation ended with.
enum Slice {
    /// The slice's time is up (or max_n / a proof was reached).
    Progress,
    /// Shutdown asked us to stop.
    Shutdown,
    Failed(String),
    /// A window job's archive is damaged (a chunk missing or failing its checksum).
    Damaged(String),
}

/// One claimed job, while a worker runs it.
struct Run<'a> {
    app: &'a AppState,
    store: &'a Store,
    job: &'a Job,
    owner: &'a str,
    shutdown: &'a Arc<AtomicBool>,
    /// Its share of the cores, asked before each slice.
    seat: &'a JobSeat,
    /// The CPU time of its slices and of its engine's helper threads.
    cpu: JobCpu,
}

/// The octal-sequence kind's submission: one job, by the default of every kind.
impl JobSubmit for SequenceJob {}

/// The octal-sequence kind's run (a census member's too): computed on as many threads as its
/// seat gives it.
impl JobRun for SequenceJob {
    const SHAPE: JobShape = JobShape::Threads;

    /// Runs a claimed job to its end: done, failed, cancelled, released for shutdown, or lost to
    /// another replica. `Err` only when giving it back at shutdown failed (its lease expires).
    async fn run(
        app: &AppState,
        store: &Store,
        job: Job,
        shutdown: &Arc<AtomicBool>,
        seat: &JobSeat,
    ) -> Result<(), StoreError> {
        let owner = app.config.replica_id.clone();
        let run = Run {
            app,
            store,
            job: &job,
            owner: &owner,
            shutdown,
            seat,
            cpu: JobCpu::new(),
        };
        let epoch = store.epoch();
        let game = match Game::parse(&job.code) {
            Ok(g) => g,
            Err(e) => {
                run.finish(JobStatus::Failed, 0, Some(&e.to_string()), None)
                    .await;
                return Ok(());
            }
        };
        let code = game.canonical();
        let resumed = match job.keep_window {
            None => run.resume(&game, &code).await?,
            Some(window) => match run.resume_window(&game, &code, window).await {
                Ok(r) => r,
                Err(msg) => {
                    run.finish(JobStatus::Failed, job.computed, Some(&msg), None)
                        .await;
                    return Ok(());
                }
            },
        };
        let Some(Resumed {
            mut solver,
            already,
            sequence_ok,
            stored,
            report,
        }) = resumed
        else {
            return Ok(());
        };
        // The engine's helper threads count for the job's CPU time as they start.
        solver.engine_mut().set_thread_start(run.cpu.hook());
        let mut saver = Saver {
            app,
            store,
            job: &job,
            owner: &owner,
            code: &code,
            lease_ms: app.config.job_lease.as_millis() as i64,
            already,
            epoch,
            saw_fault: false,
            already_window: solver.engine().len(),
            sequence_ok,
            stored,
            report,
            cpu: run.cpu.clone(),
            cpu_before: job.cpu_ms,
            // The threads it runs on from the start: a job whose values were all stored already
            // ends without a slice, and still ran (issue 46: null only before a run).
            threads: Some(solver.engine().threads() as u64),
        };
        // Values reused from the store (an earlier job of the game, or this one's last run) show
        // as its progress at once, not after its first slice.
        if solver.engine().len() as u64 > job.computed.min(job.max_n) {
            match saver.save(&solver, None, shutdown).await {
                None | Some(Checkpoint::Lost | Checkpoint::Missing) => return Ok(()),
                Some(_) => {}
            }
        }
        run.slices(solver, &mut saver).await
    }
}

/// A job's solver as resumed, with what the store holds of it.
struct Resumed {
    solver: Solver,
    /// Values of the public sequence known stored.
    already: usize,
    /// Whether the public sequence can be extended by this job (see [`Saver::sequence_ok`]).
    sequence_ok: bool,
    /// Window mode: see [`Saver::stored`] and [`Saver::report`].
    stored: Option<Arc<AtomicU64>>,
    report: ArchiveReport,
}

impl Run<'_> {
    /// Computes slice after slice, saving each, until the job ends: done (every value to
    /// `max_n`, or periodicity proved), failed, cancelled, released for shutdown, or lost.
    async fn slices(&self, mut solver: Solver, saver: &mut Saver<'_>) -> Result<(), StoreError> {
        let run = self;
        let (app, store, job, owner, shutdown) =
            (self.app, self.store, self.job, self.owner, self.shutdown);
        let code = saver.code;
        let max_n = usize::try_from(job.max_n).unwrap_or(usize::MAX);
        let job_pace = app
            .config
            .job_pace
            .map(|pace| usize::try_from(pace).unwrap_or(usize::MAX));
        let mut next_slice = Instant::now() + app.config.job_checkpoint;
        loop {
            let len = solver.engine().len();
            if len >= max_n || matches!(solver.periodicity(), Periodicity::Proved(_)) {
                // Final values first (conditional on the lease), then the status.
                if let Some(Checkpoint::Continue | Checkpoint::Cancel) =
                    saver.save(&solver, None, shutdown).await
                {
                    let json = PeriodicityRecord::json_of(solver.periodicity());
                    if run
                        .finish(JobStatus::Done, len as u64, None, json.as_deref())
                        .await
                    {
                        app.octal.invalidate(code);
                    }
                }
                return Ok(());
            }
            // A paced job starts a slice at most once a checkpoint interval: each checkpoint
            // (the reused prefix's above too) stays the job's progress for an interval.
            if job_pace.is_some() {
                pace_wait(next_slice, shutdown).await;
                next_slice = Instant::now() + app.config.job_checkpoint;
            }
            let started = Instant::now();
            // A window job that stores every value never lets the window pass the values it has
            // not stored yet.
            // A window job drops only stored values (its archive), so a slice goes at most
            // MAX_UNSTORED values past its last checkpoint: that bounds what it holds beyond its
            // window.
            let until = match job.keep_window {
                Some(w) if job.store_values && saver.sequence_ok => {
                    max_n.min(tail_offset(saver.already) + w as usize)
                }
                Some(w) => max_n.min(saver.already_window + (w + MAX_UNSTORED) as usize),
                _ => max_n,
            };
            // A paced job (`GRUNDY_JOB_PACE`) computes at most its pace in a slice.
            let until = job_pace.map_or(until, |pace| until.min(len.saturating_add(pace)));
            // The job's share of the cores now: jobs that started or ended since the last slice
            // change it (the engine takes it at its next block).
            let threads = run.seat.threads();
            solver.engine_mut().set_threads(threads);
            let outcome = match run.slice(solver, until).await {
                Ok((s, outcome)) => {
                    solver = s;
                    saver.threads = Some(solver.engine().threads() as u64);
                    outcome
                }
                Err(msg) => {
                    // A panic mid-slice takes the solver with it (its state is not provably
                    // consistent): the job fails, keeping what its last checkpoint stored.
                    run.finish(JobStatus::Failed, saver.already as u64, Some(&msg), None)
                        .await;
                    return Ok(());
                }
            };
            let total = solver.engine().len();
            let grown = total.saturating_sub(len);
            metrics::counter!("grundy_heaps_computed_total").increment(grown as u64);
            let rate = grown as f64 / started.elapsed().as_secs_f64().max(1e-9);
            let Some(cp) = saver.save(&solver, Some(rate), shutdown).await else {
                return Ok(());
            };
            let (total, json) = (
                total as u64,
                PeriodicityRecord::json_of(solver.periodicity()),
            );
            match (cp, outcome) {
                (Checkpoint::Lost | Checkpoint::Missing, _) => {
                    tracing::warn!(job = %job.id, "lease lost; another replica owns this job now");
                    return Ok(());
                }
                (Checkpoint::Cancel, _) => {
                    run.finish(JobStatus::Cancelled, total, None, json.as_deref())
                        .await;
                    return Ok(());
                }
                (_, Slice::Failed(msg)) => {
                    run.finish(JobStatus::Failed, total, Some(&msg), json.as_deref())
                        .await;
                    return Ok(());
                }
                (_, Slice::Damaged(msg)) => {
                    // Values cannot be recomputed in the middle: the job starts over from heap 0,
                    // its note kept; given back to the queue, a worker resumes it from scratch.
                    tracing::error!(job = %job.id, computed = total, error = %msg, "window job's archive damaged; starting it over from heap 0");
                    if run.rebuild(&msg).await {
                        store.release_job(&job.id, owner).await?;
                    }
                    return Ok(());
                }
                (_, Slice::Shutdown) => {
                    store.release_job(&job.id, owner).await?;
                    tracing::info!(job = %job.id, computed = total, "job checkpointed and released for shutdown");
                    return Ok(());
                }
                (Checkpoint::Continue, Slice::Progress) => {}
            }
        }
    }

    /// Runs `op` on the store until it succeeds (the job marked stalled meanwhile); `None` on
    /// shutdown.
    async fn retry<T, F, Fut>(&self, op: F) -> Option<T>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<T, StoreError>>,
    {
        retrying(
            self.app,
            self.store,
            &self.job.id,
            self.job.computed,
            self.shutdown,
            op,
        )
        .await
    }

    /// The statistics the job saved, if they read back (`None`: count them again).
    async fn saved_statistics(&self) -> Option<Option<Statistics>> {
        let bytes = self
            .retry(|| self.store.job_statistics(&self.job.id))
            .await?;
        Some(bytes.and_then(|b| match Statistics::from_bytes(&b) {
            Ok(s) => Some(s),
            Err(e) => {
                tracing::warn!(job = %self.job.id, error = %e, "saved statistics unreadable; counting again");
                None
            }
        }))
    }

    /// A window-mode job's solver from its kept values, statistics and state (a fresh one
    /// before its first checkpoint), reading back from its archive; `Err` with the reason when
    /// what is stored cannot resume it (the job then fails: nothing is guessed). An archive
    /// that fails its check (a chunk missing or corrupt) is never used: the job starts over
    /// from heap 0, the reason kept in its report.
    async fn resume_window(
        &self,
        game: &Game,
        code: &str,
        window: u64,
    ) -> Result<Option<Resumed>, String> {
        let keep = Keep::Window {
            front: window as usize,
            window: window as usize,
        };
        let Some(mut kept) = self.retry(|| self.store.load_window(&self.job.id)).await else {
            return Ok(None);
        };
        let mut report = ArchiveReport::parse(self.job.archive.as_deref());
        if let Some(k) = &kept {
            let chunks = k.state.archive_chunks();
            let Some(damage) = self
                .retry(|| self.store.check_archive(&self.job.id, chunks))
                .await
            else {
                return Ok(None);
            };
            if let Some(damage) = damage {
                let note = format!(
                    "on resuming at heap {}: {} (chunk {}); recomputed from heap 0",
                    k.state.computed, damage.detail, damage.chunk
                );
                tracing::error!(job = %self.job.id, note = %note, "window job's archive damaged; starting it over from heap 0");
                if !self.rebuild(&note).await {
                    return Ok(None);
                }
                report = ArchiveReport {
                    rebuilt: Some(note),
                    ..ArchiveReport::default()
                };
                kept = None;
            }
        }
        let stats = match &kept {
            Some(_) => {
                let Some(stats) = self.saved_statistics().await else {
                    return Ok(None);
                };
                stats
            }
            None => None,
        };
        let threads = self.seat.threads();
        let stored_heaps = kept.as_ref().map_or(0, |k| k.state.computed);
        let mut engine = match kept {
            None => Engine::new(game),
            Some(kept) if kept.state.base <= kept.state.front => {
                Engine::resume(game, kept.front).map_err(|e| format!("resuming: {e}"))?
            }
            Some(kept) => {
                let stats = stats.as_ref().filter(|s| s.len() == kept.state.computed).ok_or(
                    "the saved statistics do not match the kept values, and the values between \
                     the front and the window are in the archive, not in memory, to count them again",
                )?;
                let mut counts = stats.histogram();
                if let Some(zero) = counts.first_mut() {
                    *zero = zero.saturating_sub(1); // G(0) is not counted by the engine
                }
                Engine::resume_window(
                    game,
                    keep,
                    kept.front,
                    kept.tail,
                    kept.state.base as usize,
                    &counts,
                    kept.state.mask,
                    &kept.state.far,
                )
                .map_err(|e| format!("resuming the window: {e}"))?
            }
        };
        engine.set_keep(keep).map_err(|e| e.to_string())?;
        engine.set_threads(threads);
        let stored = Arc::new(AtomicU64::new(stored_heaps));
        engine.set_archive(Box::new(StoreArchive::new(
            self.store.clone(),
            &self.job.id,
            tokio::runtime::Handle::current(),
            stored.clone(),
            self.shutdown.clone(),
        )));
        engine
            .set_statistics(
                stats
                    .filter(|s| s.len() <= engine.len() as u64)
                    .unwrap_or_default(),
            )
            .map_err(|e| format!("statistics: {e}"))?;
        let n = engine.len();
        // Values of the public sequence this job may extend: only a prefix reaching the
        // kept tail continues without a hole.
        let extent = if self.job.store_values {
            self.retry(|| self.store.sequence_extent(code)).await
        } else {
            Some(None)
        };
        let Some(extent) = extent else {
            return Ok(None);
        };
        let stored_values = extent.map_or(0, |e| e.computed).min(n);
        let (_, _, base) = engine.kept();
        Ok(Some(Resumed {
            solver: Solver::resume_engine(game, engine),
            already: stored_values,
            sequence_ok: self.job.store_values && tail_offset(stored_values) >= base,
            stored: Some(stored),
            report,
        }))
    }

    /// Starts a window job with a damaged archive over from heap 0 (`note` kept in its
    /// report); retried while the store fails. `false` on shutdown or a lost lease.
    async fn rebuild(&self, note: &str) -> bool {
        let owner = self.owner;
        matches!(
            self.retry(|| self.store.reset_window(&self.job.id, owner, note))
                .await,
            Some(true)
        )
    }

    /// The job's solver resumed from what the store holds (loading retries, the job marked
    /// stalled, while the store fails), and how many values are stored; `None` on shutdown.
    async fn resume(&self, game: &Game, code: &str) -> Result<Option<Resumed>, StoreError> {
        let Some(values) = retrying(
            self.app,
            self.store,
            &self.job.id,
            self.job.computed,
            self.shutdown,
            || self.store.load_sequence(code),
        )
        .await
        else {
            return Ok(None);
        };
        let values = values.map(|s| s.values).unwrap_or_default();
        let resumed = self
            .app
            .octal
            .resume_from(game, values)
            .await
            .map_err(|e| match e {
                OctalServiceError::Store(e) => e,
                other => StoreError::Corrupt(format!("resume task: {other}")),
            })?;
        // The job owns its solver outright: it moves into each slice's blocking task and
        // back, so there is no lock to poison (see `crate::service::octal` for the policy).
        let mut solver = resumed.solver;
        solver.engine_mut().set_threads(self.seat.threads());
        let Some(stats) = self.saved_statistics().await else {
            return Ok(None);
        };
        // Saved statistics of a longer prefix than the values (another store, a lost tail)
        // are counted again from the values.
        let engine = solver.engine_mut();
        let stats = stats.filter(|s| s.len() <= engine.len() as u64);
        if let Err(e) = engine.set_statistics(stats.unwrap_or_default()) {
            tracing::warn!(job = %self.job.id, error = %e, "statistics not kept");
        }
        Ok(Some(Resumed {
            solver,
            already: resumed.stored,
            sequence_ok: true,
            stored: None,
            report: ArchiveReport::default(),
        }))
    }

    /// One slice of about a checkpoint interval on the blocking pool; `Err` if it panicked.
    /// Its thread's CPU time counts for the job while it runs, and the engine's helpers' is
    /// read at its end (before the next slice may change the threads: see `super::cpu`).
    async fn slice(&self, mut solver: Solver, max_n: usize) -> Result<(Solver, Slice), String> {
        let slice_time = self.app.config.job_checkpoint;
        let sd = self.shutdown.clone();
        let cpu = self.cpu.clone();
        tokio::task::spawn_blocking(move || {
            let on_this_thread = cpu.enter();
            let deadline = Instant::now() + slice_time;
            let mut stop = || Instant::now() >= deadline || sd.load(Ordering::SeqCst);
            let outcome = match solver.run(max_n, true, &mut stop) {
                Ok(_) => Slice::Progress,
                Err(OctalError::Stopped { .. } | OctalError::Archive { .. })
                    if sd.load(Ordering::SeqCst) =>
                {
                    Slice::Shutdown
                }
                Err(OctalError::Stopped { .. }) => Slice::Progress,
                Err(OctalError::Archive { heap, detail }) if detail.starts_with(DAMAGED) => {
                    Slice::Damaged(format!("reading back G({heap}…): {detail}"))
                }
                Err(e) => Slice::Failed(e.to_string()),
            };
            cpu.collect();
            drop(on_this_thread);
            (solver, outcome)
        })
        .await
        .map_err(|e| format!("computation panicked: {e}"))
    }

    /// The one way a job ends: its final status stored (retried, the job marked stalled,
    /// while the store fails), counted and logged. `false` if shutdown came first (the job
    /// then resumes elsewhere from its last checkpoint).
    async fn finish(
        &self,
        status: JobStatus,
        computed: u64,
        error: Option<&str>,
        periodicity: Option<&str>,
    ) -> bool {
        let (store, job, owner) = (self.store, &self.job.id, self.owner);
        let finished = retrying(self.app, store, job, computed, self.shutdown, || {
            store.finish_job(job, owner, status, computed, error, periodicity)
        })
        .await;
        let Some(mine) = finished else {
            return false;
        };
        // Counted once: a job whose lease was lost is ended (and counted) by its new worker.
        if mine {
            crate::store::count_finished(status, 1);
        }
        tracing::info!(job = %job, computed, status = status.as_str(), error, "job finished");
        true
    }
}

/// A paced job's rest (`GRUNDY_JOB_PACE`): until `until`, an interval after its last slice
/// started, or shutdown, whichever comes first (the slice then stops at once and gives the job
/// back).
async fn pace_wait(until: Instant, shutdown: &AtomicBool) {
    while Instant::now() < until && !shutdown.load(Ordering::SeqCst) {
        let left = until.saturating_duration_since(Instant::now());
        tokio::time::sleep(left.min(Duration::from_millis(20))).await;
    }
}
