//! Misère-quotient jobs (kind `misere_quotient`: [`QuotientJob`], declared with its rows in the
//! store): its submission ([`JobSubmit`]) and its run ([`JobRun`]), by the job workers
//! (`workers.rs`) like every job: claimed with a lease, checkpointed, cancelled, given back at
//! shutdown, taken over after a crash (see `crate::store` for one computation per quotient).
//!
//! A run resumes from the newest verified quotient it can: the state the computation saved
//! (`misere_job_states`), or a smaller quotient of the same game already stored; each is
//! checked again by the engine (`MisereEngine::resume`: shapes, monoid axioms, canonical form,
//! closure checks) and one failing its check is not used (why is kept in the job's progress).
//! Otherwise it starts from scratch.
//!
//! The engine runs on the blocking pool, one heap at a time, within the job's limits —
//! `GRUNDY_MISERE_JOB_SECS` of compute time and `GRUNDY_MISERE_JOB_STEPS` engine steps, both
//! summed over the job's runs, and twice the synchronous memory budget — and stops promptly
//! when asked (its `should_stop` is polled every few thousand steps). Meanwhile the worker
//! checkpoints at least every second (the heap reached, |Q|, |P|, the lease) and, every
//! `GRUNDY_JOB_CHECKPOINT_MS`, the newest verified quotient to resume from; a checkpoint that
//! finds a cancel request stops the engine (so `DELETE` ends a run within about a second) and
//! the job ends cancelled, storing no quotient. Done stores the quotient with the status.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::cpu::JobCpu;
use super::kind::{JobRun, JobSubmit};
use super::retry::{mark_stalled, retrying};
use super::threads::{JobSeat, JobShape};
use crate::core::misere::{MisereEngine, MisereError, MisereQuotient, QuotientParts};
use crate::core::octal::Game;
use crate::service::misere::{job_budget, MAX_BOUND};
use crate::service::state::AppState;
use crate::store::{
    Checkpoint, Job, JobStatus, QuotientCheckpoint, QuotientJob, QuotientProgress, RunRecord,
    Stall, Store, StoreError,
};

/// How often a running quotient job checkpoints its progress and looks for a cancel request.
const TICK: Duration = Duration::from_secs(1);

/// What the engine's thread shares with the worker.
#[derive(Default)]
struct Shared {
    heap: AtomicU64,
    q_size: AtomicU64,
    p_size: AtomicU64,
    /// Engine steps of this run.
    steps: AtomicU64,
    /// The worker wants the next verified quotient, to save it.
    want_state: AtomicBool,
    state: Mutex<Option<QuotientParts>>,
    /// Cancel requested or lease lost: stop now.
    stop: AtomicBool,
    /// The heap resumed from, and why saved quotients were refused.
    resumed_from: Mutex<Option<u64>>,
    rejected: Mutex<Option<String>>,
}

impl Shared {
    fn publish(&self, engine: &MisereEngine) {
        let (q, p) = engine.sizes();
        self.heap.store(engine.bound(), Ordering::Release);
        self.q_size.store(q as u64, Ordering::Release);
        self.p_size.store(p as u64, Ordering::Release);
        self.steps.store(engine.stats().steps, Ordering::Release);
        if self.want_state.swap(false, Ordering::AcqRel) {
            *self.state.lock().unwrap_or_else(|e| e.into_inner()) = Some(engine.parts());
        }
    }
}

/// A quotient to resume from: its heap, its parts, and what it is (for the log).
type Source = (u64, QuotientParts, &'static str);

/// How the engine's run ended.
type Computed = (MisereEngine, Result<(), MisereError>);

/// One claimed quotient job, while a worker runs it.
struct QuotientRun<'a> {
    app: &'a AppState,
    store: &'a Store,
    job: &'a Job,
    owner: String,
    shutdown: &'a Arc<AtomicBool>,
    progress: QuotientProgress,
    /// The CPU time of the engine's thread, once this run computes (`computing`).
    cpu: JobCpu,
    computing: bool,
}

/// The misère-quotient kind's submission: `Q_bound` of the canonical code, one job — or the
/// caller's queued or running job for the same quotient, joined (its rows: `crate::store`).
impl JobSubmit for QuotientJob {}

/// The misère-quotient kind's run: one thread, always.
impl JobRun for QuotientJob {
    const SHAPE: JobShape = JobShape::Single;

    /// Runs a claimed misère-quotient job to its end: done, failed, cancelled, given back at
    /// shutdown, or lost to another replica. `Err` only when giving it back failed (its lease
    /// then expires). It computes on one thread, whatever its seat.
    async fn run(
        app: &AppState,
        store: &Store,
        job: Job,
        shutdown: &Arc<AtomicBool>,
        _seat: &JobSeat,
    ) -> Result<(), StoreError> {
        let mut run = QuotientRun {
            app,
            store,
            job: &job,
            owner: app.config.replica_id.clone(),
            shutdown,
            progress: QuotientProgress::of(&job),
            cpu: JobCpu::new(),
            computing: false,
        };
        let bound = job.max_n;
        let game = match Game::parse(&job.code) {
            Ok(g) if bound <= MAX_BOUND => g,
            Ok(_) => {
                let msg = format!("max_heap: {bound} is above {MAX_BOUND}");
                run.finish(JobStatus::Failed, Some(&msg), None).await;
                return Ok(());
            }
            Err(e) => {
                run.finish(JobStatus::Failed, Some(&e.to_string()), None)
                    .await;
                return Ok(());
            }
        };
        // Computed already (by a request, another job, an earlier run): done at once.
        let Some(stored) = run.load(|| store.load_quotient(&game, bound)).await else {
            return Ok(());
        };
        if let Some(q) = stored {
            let q = Arc::new(q);
            run.progress.heap = q.bound();
            run.progress.q_size = q.size() as u64;
            run.progress.p_size = q.p_size() as u64;
            run.finish_done(q).await;
            return Ok(());
        }
        let limit = app.config.misere_job_time;
        let used = Duration::from_millis(run.progress.compute_ms);
        if used >= limit {
            let msg = time_limit(bound, run.progress.heap, limit);
            run.finish(JobStatus::Failed, Some(&msg), None).await;
            return Ok(());
        }
        // What the latest run resumed from, and what it refused, describe this run.
        run.progress.resumed_from = None;
        run.progress.rejected = None;
        let Some(sources) = run.sources(&game).await else {
            return Ok(());
        };
        let saved_heap = sources.iter().find(|s| s.2 == "saved state").map(|s| s.0);
        run.compute(game, sources, limit - used, saved_heap).await
    }
}

/// The problem text of a job out of time.
fn time_limit(bound: u64, reached: u64, limit: Duration) -> String {
    format!(
        "computing Q_{bound} takes longer than the job's time limit of {} s (GRUNDY_MISERE_JOB_SECS); \
         the quotient was verified up to Q_{reached}",
        limit.as_secs()
    )
}

/// What the engine's thread is given: the game, the quotients it may resume from, and its
/// limits.
struct EngineRun {
    game: Game,
    sources: Vec<Source>,
    shared: Arc<Shared>,
    shutdown: Arc<AtomicBool>,
    cpu: JobCpu,
    deadline: Instant,
    /// The job's step budget (`GRUNDY_MISERE_JOB_STEPS`), and the steps its earlier runs used.
    max_steps: u64,
    used_steps: u64,
    /// The last heap to reach, and the pace (`GRUNDY_JOB_PACE`: heaps an interval).
    bound: u64,
    pace: Option<u64>,
    interval: Duration,
    id: String,
}

impl EngineRun {
    /// On a blocking thread: resumes from the newest source that passes its check (else
    /// starts afresh), then extends heap by heap to the bound, publishing the progress.
    fn run(self) -> Computed {
        let EngineRun {
            game,
            sources,
            shared,
            shutdown,
            cpu,
            deadline,
            max_steps,
            used_steps,
            bound,
            pace,
            interval,
            id,
        } = self;
        // The engine computes on this one thread: its CPU time is the job's until
        // the closure returns (the thread then goes back to the blocking pool).
        let _on_this_thread = cpu.enter();
        let mut stop = || {
            shared.stop.load(Ordering::Relaxed)
                || shutdown.load(Ordering::Relaxed)
                || Instant::now() >= deadline
        };
        let budget = |spent: u64| job_budget(max_steps.saturating_sub(used_steps + spent));
        let mut engine = None;
        for (heap, parts, what) in sources {
            match MisereEngine::resume(&game, parts, &budget(0), &mut stop) {
                Ok(e) => {
                    *shared
                        .resumed_from
                        .lock()
                        .unwrap_or_else(|e| e.into_inner()) = Some(heap);
                    tracing::info!(job = %id, heap, from = what, "quotient job resumed from a verified quotient");
                    engine = Some(e);
                    break;
                }
                Err(e @ MisereError::Stopped { .. }) => {
                    return (MisereEngine::new(&game), Err(e));
                }
                Err(e) => {
                    tracing::warn!(job = %id, heap, from = what, error = %e, "a quotient to resume from failed its check; not used");
                    *shared.rejected.lock().unwrap_or_else(|e| e.into_inner()) =
                        Some(format!("the {what} Q_{heap} was not used: {e}"));
                }
            }
        }
        let mut engine = engine.unwrap_or_else(|| MisereEngine::new(&game));
        shared.publish(&engine);
        // A paced job (`GRUNDY_JOB_PACE`): at most `pace` heaps an interval.
        let (mut interval_end, mut heaps) = (Instant::now() + interval, 0);
        while engine.bound() < bound {
            if pace.is_some_and(|pace| heaps >= pace) {
                while Instant::now() < interval_end && !stop() {
                    std::thread::sleep(Duration::from_millis(10));
                }
                (interval_end, heaps) = (Instant::now() + interval, 0);
            }
            let next = engine.bound() + 1;
            let r = engine.extend_to(next, &budget(engine.stats().steps), &mut stop);
            heaps += 1;
            shared.publish(&engine);
            if let Err(e) = r {
                return (engine, Err(e));
            }
        }
        (engine, Ok(()))
    }
}

impl QuotientRun<'_> {
    /// A read retried while the store fails; `None` on shutdown. A stored row that does not
    /// read back (corrupt) counts as absent: it is computed again (and rewritten).
    async fn load<T, F, Fut>(&self, op: F) -> Option<Option<T>>
    where
        F: Fn() -> Fut,
        Fut: std::future::Future<Output = Result<Option<T>, StoreError>>,
    {
        retrying(
            self.app,
            self.store,
            &self.job.id,
            self.progress.heap,
            self.shutdown,
            || async {
                match op().await {
                    Err(StoreError::Corrupt(msg)) => {
                        tracing::warn!(job = %self.job.id, error = %msg, "a stored quotient does not read back; computing it again");
                        Ok(None)
                    }
                    r => r,
                }
            },
        )
        .await
    }

    /// The quotients the run may resume from, newest first: the computation's saved state and
    /// the largest smaller quotient of the game stored. `None` on shutdown.
    async fn sources(&mut self, game: &Game) -> Option<Vec<Source>> {
        let (code, bound) = (self.job.code.as_str(), self.job.max_n);
        let mut out: Vec<Source> = Vec::new();
        match self
            .load(|| self.store.load_quotient_state(code, bound))
            .await?
        {
            Some((_, Ok(parts))) => out.push((parts.bound, parts, "saved state")),
            Some((heap, Err(why))) => {
                tracing::warn!(job = %self.job.id, heap, error = %why, "saved quotient unreadable; not used");
                self.progress.rejected = Some(format!("the saved Q_{heap} does not read: {why}"));
            }
            None => {}
        }
        let infos = self.load(|| async { self.store.quotient_infos(code).await.map(Some) });
        let below = infos
            .await?
            .unwrap_or_default()
            .into_iter()
            .map(|i| i.bound)
            .filter(|&b| b < bound && out.first().is_none_or(|s| s.0 < b))
            .max();
        if let Some(b) = below {
            if let Some(q) = self.load(|| self.store.load_quotient(game, b)).await? {
                out.push((b, q.parts(), "stored quotient"));
            }
        }
        out.sort_by_key(|s| std::cmp::Reverse(s.0));
        Some(out)
    }

    /// Computes from the newest source that passes its check (else from scratch), watching
    /// the engine and checkpointing until it ends, then ends the job.
    async fn compute(
        mut self,
        game: Game,
        sources: Vec<Source>,
        time_left: Duration,
        saved_heap: Option<u64>,
    ) -> Result<(), StoreError> {
        let config = &self.app.config;
        let max_steps = config.misere_job_steps;
        let shared = Arc::new(Shared::default());
        shared.want_state.store(true, Ordering::Release);
        // Until the engine reports, the progress stays where the job's last run left it.
        shared.heap.store(self.progress.heap, Ordering::Release);
        shared.q_size.store(self.progress.q_size, Ordering::Release);
        shared.p_size.store(self.progress.p_size, Ordering::Release);
        let started = Instant::now();
        let deadline = started + time_left;
        let used_ms = self.progress.compute_ms;
        let used_steps = self.progress.steps;
        let bound = self.job.max_n;
        let (pace, interval) = (config.job_pace, config.job_checkpoint);
        let id = self.job.id.clone();
        self.computing = true;
        let handle = tokio::task::spawn_blocking({
            let run = EngineRun {
                game,
                sources,
                id,
                shared: shared.clone(),
                shutdown: self.shutdown.clone(),
                cpu: self.cpu.clone(),
                bound,
                pace,
                interval,
                deadline,
                max_steps,
                used_steps,
            };
            move || run.run()
        });
        let mut handle = handle;
        let mut last_state = saved_heap;
        let mut last_state_at = Instant::now();
        let mut stall: Option<Stall> = None;
        let (mut cancelled, mut lost) = (false, false);
        let epoch = self.store.epoch();
        let tick = TICK.min(config.job_checkpoint);
        let outcome = loop {
            tokio::select! {
                r = &mut handle => break r,
                () = tokio::time::sleep(tick) => {}
            }
            if cancelled || lost {
                continue;
            }
            self.observe(
                &shared,
                used_ms + started.elapsed().as_millis() as u64,
                used_steps,
            );
            let state = if last_state_at.elapsed() >= config.job_checkpoint {
                shared
                    .state
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .take()
                    .filter(|p| last_state.is_none_or(|h| p.bound > h))
            } else {
                None
            };
            match self.checkpoint(state.as_ref()).await {
                Ok(Checkpoint::Continue) => {
                    if stall.take().is_some() {
                        self.store.clear_stall(&self.job.id);
                    }
                    if let Some(p) = &state {
                        last_state = Some(p.bound);
                    }
                    if state.is_some() || last_state_at.elapsed() >= config.job_checkpoint {
                        last_state_at = Instant::now();
                        shared.want_state.store(true, Ordering::Release);
                    }
                }
                Ok(Checkpoint::Cancel) => {
                    cancelled = true;
                    shared.stop.store(true, Ordering::Release);
                }
                Ok(Checkpoint::Missing) if self.store.epoch() != epoch => {
                    // The database was wiped or replaced: the job goes on, registered again.
                    let lease = config.job_lease.as_millis() as i64;
                    if let Err(e) = self.store.restore_job(self.job, &self.owner, lease).await {
                        mark_stalled(self.store, &self.job.id, &mut stall, &e, self.progress.heap);
                    }
                    last_state = None;
                }
                Ok(Checkpoint::Lost | Checkpoint::Missing) => {
                    lost = true;
                    shared.stop.store(true, Ordering::Release);
                }
                Err(e) => {
                    // Keep computing (memory stays bounded); the state is saved next time.
                    if let Some(p) = state {
                        let mut slot = shared.state.lock().unwrap_or_else(|e| e.into_inner());
                        if slot.is_none() {
                            *slot = Some(p);
                        }
                    }
                    mark_stalled(self.store, &self.job.id, &mut stall, &e, self.progress.heap);
                }
            }
        };
        self.observe(
            &shared,
            used_ms + started.elapsed().as_millis() as u64,
            used_steps,
        );
        if stall.is_some() {
            self.store.clear_stall(&self.job.id);
        }
        let (engine, result) = match outcome {
            Ok(computed) => computed,
            Err(e) => {
                if !lost {
                    let msg = format!("the quotient computation panicked: {e}");
                    self.finish(JobStatus::Failed, Some(&msg), None).await;
                }
                return Ok(());
            }
        };
        if lost {
            tracing::warn!(job = %self.job.id, "lease lost; another replica owns this job now");
            return Ok(());
        }
        if cancelled {
            self.finish(JobStatus::Cancelled, None, None).await;
            return Ok(());
        }
        self.end(engine, result, &shared, last_state).await
    }

    /// Ends the job after its engine stopped: done with its quotient, saved and released for
    /// a shutdown, or failed with why.
    async fn end(
        &mut self,
        engine: MisereEngine,
        result: Result<(), MisereError>,
        shared: &Shared,
        last_state: Option<u64>,
    ) -> Result<(), StoreError> {
        let config = &self.app.config;
        let (limit, max_steps) = (config.misere_job_time, config.misere_job_steps);
        let bound = self.job.max_n;
        let reached = engine.bound();
        match result {
            Ok(()) => {
                let q = tokio::task::spawn_blocking(move || MisereQuotient::from_engine(&engine))
                    .await
                    .map_err(|e| StoreError::Corrupt(format!("quotient task: {e}")));
                match q {
                    Ok(q) => self.finish_done(Arc::new(q)).await,
                    Err(e) => {
                        let msg = e.to_string();
                        self.finish(JobStatus::Failed, Some(&msg), None).await;
                    }
                }
            }
            Err(MisereError::Stopped { .. }) if self.shutdown.load(Ordering::SeqCst) => {
                // Save where it got to, then give the job back to the queue.
                let parts = engine.parts();
                let state = last_state.is_none_or(|h| parts.bound > h).then_some(&parts);
                let _ = self.checkpoint(state).await;
                self.store.release_job(&self.job.id, &self.owner).await?;
                tracing::info!(job = %self.job.id, heap = reached, "quotient job saved and released for shutdown");
            }
            Err(MisereError::Stopped { .. }) if shared.stop.load(Ordering::SeqCst) => {
                // Stopped for a cancel or a lost lease that the loop saw last.
            }
            Err(MisereError::Stopped { .. }) => {
                let msg = time_limit(bound, reached, limit);
                self.finish(JobStatus::Failed, Some(&msg), None).await;
            }
            Err(MisereError::StepBudgetExceeded { heap, .. }) => {
                let msg = format!(
                    "the job's step budget of {max_steps} steps (GRUNDY_MISERE_JOB_STEPS) ran out at heap {heap}; \
                     the quotient was verified up to Q_{reached}"
                );
                self.finish(JobStatus::Failed, Some(&msg), None).await;
            }
            Err(e) => {
                let msg = format!("{e} (the quotient was verified up to Q_{reached})");
                self.finish(JobStatus::Failed, Some(&msg), None).await;
            }
        }
        Ok(())
    }

    /// Takes the engine's progress into the job's (and its thread's CPU time into the count).
    fn observe(&mut self, shared: &Shared, compute_ms: u64, used_steps: u64) {
        self.cpu.collect();
        let p = &mut self.progress;
        p.heap = shared.heap.load(Ordering::Acquire);
        p.q_size = shared.q_size.load(Ordering::Acquire);
        p.p_size = shared.p_size.load(Ordering::Acquire);
        p.steps = used_steps + shared.steps.load(Ordering::Acquire);
        p.compute_ms = compute_ms;
        if let Some(h) = *shared
            .resumed_from
            .lock()
            .unwrap_or_else(|e| e.into_inner())
        {
            p.resumed_from = Some(h);
        }
        if let Some(r) = shared
            .rejected
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
        {
            p.rejected = Some(r);
        }
    }

    /// What a checkpoint says about this run: one thread, the job's CPU time in all, this
    /// engine — once it computes (a job done at once from a stored quotient computed nothing).
    fn run_record(&self) -> RunRecord<'static> {
        if !self.computing {
            return RunRecord::default();
        }
        self.cpu.run_record(Some(1), self.job.cpu_ms)
    }

    async fn checkpoint(&self, state: Option<&QuotientParts>) -> Result<Checkpoint, StoreError> {
        self.store
            .checkpoint_quotient(QuotientCheckpoint {
                job_id: &self.job.id,
                owner: &self.owner,
                code: &self.job.code,
                bound: self.job.max_n,
                progress: &self.progress,
                state,
                lease_ms: self.app.config.job_lease.as_millis() as i64,
                run: self.run_record(),
            })
            .await
    }

    /// Ends the job done with `q` — unless a cancel was asked for meanwhile (then it ends
    /// cancelled and `q` is not stored by it).
    async fn finish_done(&mut self, q: Arc<MisereQuotient>) {
        if matches!(self.checkpoint(None).await, Ok(Checkpoint::Cancel)) {
            self.finish(JobStatus::Cancelled, None, None).await;
            return;
        }
        self.progress.heap = q.bound();
        if self.finish(JobStatus::Done, None, Some(&q)).await {
            self.app.misere.remember(q);
        } else if matches!(self.checkpoint(None).await, Ok(Checkpoint::Cancel)) {
            self.finish(JobStatus::Cancelled, None, None).await;
        }
    }

    /// The one way a quotient job ends: its final status stored (retried, the job marked
    /// stalled, while the store fails), counted and logged. `false` on shutdown first, or a
    /// lost lease.
    async fn finish(
        &self,
        status: JobStatus,
        error: Option<&str>,
        quotient: Option<&MisereQuotient>,
    ) -> bool {
        let (store, job, owner) = (self.store, self.job, self.owner.as_str());
        let (progress, run) = (&self.progress, self.run_record());
        let finished = retrying(
            self.app,
            store,
            &job.id,
            progress.heap,
            self.shutdown,
            || store.finish_quotient_job(job, owner, status, progress, error, quotient, run),
        )
        .await;
        if finished != Some(true) {
            return false;
        }
        crate::store::count_finished(status, 1);
        tracing::info!(job = %job.id, kind = "misere_quotient", code = %job.code, bound = job.max_n,
            heap = progress.heap, q_size = progress.q_size, p_size = progress.p_size,
            status = status.as_str(), error, "job finished");
        true
    }
}
