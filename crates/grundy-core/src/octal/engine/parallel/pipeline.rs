//! `Engine::pipeline`: sparse mode on several threads, the driver of the method (`mod.rs`).
//!
//! The work goes in *rounds*, one block of heaps a round, all in one scope of the pool:
//! - the *far rows* of the block (its pairs whose partners lie before it), a task of [`TASK`]
//!   heaps at a time, on every thread, first of all;
//! - the *spine* over the block on the calling thread — the pairs inside the block and the
//!   candidate — a task's heaps as soon as their far rows are done (it does a far-row task
//!   itself when none is done, and waits a few µs only when every task is taken);
//! - the *checks* of the block before, a task of [`TASK`] heaps at a time, on the pool's threads
//!   once the far rows are all taken, and on the spine's once it is done.
//!
//! One wake-up of the pool a round, and no barrier between the far rows and the spine.
//!
//! Between rounds the engine *commits*: it adds the verified values to its counts and tables,
//! resolves the checks that needed the archive, and appends the spine's block unverified. A
//! heap found rare ends everything after it: the values from it on are dropped, it gets its
//! rare value as the one-thread engine would (`push_value`), and the pipeline starts again
//! after it. A heap whose value would outgrow the marks (`c` reaching `2^vbits`, or 64 with bit
//! marks) is left to the one-thread step, after everything before it is verified. The
//! pipeline returns with every value verified.
//!
//! Values are appended to `values` only between rounds; during a round every thread reads them
//! (and the tables) through shared references, and the spine writes its block into a buffer
//! of its own (`win`) — no locks, no shared mutable state besides the task queues.
//!
//! With one thread the stages run in turn on the calling thread, cut into the same tasks (and
//! timed, with a profile: `profile.rs`). With bit rows that is faster than the one-thread step
//! of `sparse.rs` too — a block's candidates are marked eight heaps a pass, its checks follow
//! — so one thread takes this path while every value is below 64 (`farm-bench` pairs:
//! `BENCHMARKS.md`, "Threads II"; with byte rows the pairs were mixed, and the step stays).

use std::sync::Mutex;
use std::time::Instant;

use super::far_rows::far_rows;
use super::spine::{self, Analyse, Spine};
use super::verify::{self, Checks, Verdict, Verify};
use super::Workers;
use super::{Bits, Bytes, BYTE_LIMIT};
use crate::octal::engine::pool::with_helpers;
use crate::octal::engine::sparse::RoundView;
use crate::octal::engine::window::WindowState;
use crate::octal::engine::{Engine, Mode};
use crate::octal::error::OctalError;
use crate::octal::values::{with_cells, Cell, ValuesRef};
use crate::octal::window::archive::Backing;

use crate::octal::engine::rules::Twos;
use crate::octal::window::{Keep, View};

/// The pipeline runs from this heap on (blocks are at most a sixteenth of the values).
pub(in crate::octal::engine) const PIPELINE_FROM: usize = 1 << 12;

/// Heaps per task (a share of a block's checks or far rows): blocks of the games with spread
/// rare positions are a few hundred heaps, and sixteen threads want tasks for all of them.
const TASK: usize = 32;

/// Blocks are a multiple of this many heaps.
const UNIT: usize = 64;

/// See [`Engine::set_thread_start`].
#[derive(Clone)]
pub(crate) struct ThreadStart(pub std::sync::Arc<dyn Fn() + Send + Sync>);

impl std::fmt::Debug for ThreadStart {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ThreadStart")
    }
}

/// What the pipeline did (tests and diagnostics).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Counts {
    /// Rounds run, heaps the spine computed.
    pub rounds: u64,
    pub heaps: u64,
    /// Heaps a check found rare (everything after each was computed again).
    pub rare: u64,
    /// Heaps left to the one-thread step (a value outgrowing the marks).
    pub leftovers: u64,
    /// Checks done with the archive at commit.
    pub deferred: u64,
    /// Rounds with far rows.
    pub far_rounds: u64,
}

/// A block appended to the values but not verified yet.
#[derive(Debug)]
struct Pending<R> {
    start: usize,
    len: usize,
    /// The rows as the spine left them (at least `len`): the verifiers read each heap's
    /// missing values off its row ([`Analyse::missing`]).
    rows: Vec<R>,
    /// The rare values, per 64 from 0.
    rare_words: Vec<u64>,
}

/// How the pipeline runs for the present tables.
#[derive(Debug, Clone, Copy)]
struct Plan {
    /// Heaps per block.
    block: usize,
    /// Whether far rows are computed (rare positions reach well beyond a block).
    far: bool,
}

/// A part of a block: its rows and their hints.
type Part<'a, K> = (
    &'a mut [<K as super::RowKind>::Row],
    &'a mut [<K as Analyse>::Hint],
);

/// What a round returns: heaps the spine computed (or its error), the verifiers' counts per
/// task (with the task's first heap: those after a rare heap are discarded with its work) and
/// their head length.
struct RoundOut {
    spine: Result<usize, OctalError>,
    counts: Vec<(usize, verify::Counts)>,
    head: usize,
    /// The rare values, per 64 from 0, this round's rows were analysed with.
    rare_words: Vec<u64>,
}

/// A part's slot: empty until its far rows are done, then the part until the spine takes it.
type Slot<'a, K> = Mutex<Option<Part<'a, K>>>;

/// The far rows of a round's block: a queue of far-row tasks any thread takes (a part each,
/// from the block's start), and a slot per part where each task leaves its part for the spine.
/// Without far rows every part is in its slot from the start.
struct FarWork<'a, K: Analyse> {
    slots: Vec<Slot<'a, K>>,
    queue: Mutex<Vec<(usize, Part<'a, K>)>>,
}

impl<'a, K: Analyse> FarWork<'a, K> {
    /// The block `rows` (and its heaps' `hints`) in parts of [`TASK`] heaps.
    fn new(rows: &'a mut [K::Row], hints: &'a mut [K::Hint], split: usize) -> Self {
        let parts: Vec<Part<'a, K>> = rows.chunks_mut(TASK).zip(hints.chunks_mut(TASK)).collect();
        if split > 0 {
            FarWork {
                slots: (0..parts.len()).map(|_| Mutex::new(None)).collect(),
                queue: Mutex::new(parts.into_iter().enumerate().rev().collect()),
            }
        } else {
            FarWork {
                slots: parts.into_iter().map(|p| Mutex::new(Some(p))).collect(),
                queue: Mutex::new(Vec::new()),
            }
        }
    }

    /// One far-row task, if one is left (popped in order, from the block's start): its rows
    /// and hints, left in the part's slot. False when none is left.
    fn task<T: Cell>(&self, sp: &Spine<'_>, view: View<'_, T>, first: usize) -> bool {
        let task = self.queue.lock().expect("the far-row queue").pop();
        let Some((j, (part, hints))) = task else {
            return false;
        };
        let start = first + j * TASK;
        far_rows::<K, _>(view, sp.rare, sp.rare_vals, start, part, sp.split, sp.twos);
        for (row, hint) in part.iter().zip(hints.iter_mut()) {
            *hint = K::hint(row, sp.common);
        }
        *self.slots[j].lock().expect("a part's slot") = Some((part, hints));
        true
    }

    /// Part `j` once its far rows are done: done by now, or done here, or (a few µs) awaited.
    fn take<T: Cell>(
        &self,
        j: usize,
        sp: &Spine<'_>,
        view: View<'_, T>,
        first: usize,
    ) -> Part<'a, K> {
        let mut spins = 0u32;
        loop {
            if let Some(part) = self.slots[j].lock().expect("a part's slot").take() {
                return part;
            }
            if !self.task(sp, view, first) {
                spins += 1;
                if spins.is_multiple_of(64) {
                    std::thread::yield_now();
                } else {
                    std::hint::spin_loop();
                }
            }
        }
    }

    /// The spine over the block from `first`, part by part as the far rows leave them, the
    /// values computed appended to `window` (the values from `window.1` on). Returns how many
    /// heaps it computed: fewer than the block where a heap's `c` reaches the value bound.
    /// `wait`, when timed, adds the time spent on far rows or waiting for them.
    fn spine_block<T: Cell>(
        &self,
        sp: &Spine<'_>,
        view: View<'_, T>,
        first: usize,
        window: (&mut Vec<T>, usize),
        far_marks: &mut Option<spine::FarMarks<'_>>,
        mut wait: Option<&mut std::time::Duration>,
    ) -> Result<usize, OctalError> {
        let (win, win_base) = window;
        let mut run = spine::Run::new::<K>(sp);
        let mut done = 0;
        for j in 0..self.slots.len() {
            let wait_start = wait.is_some().then(Instant::now);
            let (part, hints) = self.take(j, sp, view, first);
            if let (Some(w), Some(t)) = (wait.as_deref_mut(), wait_start) {
                *w += t.elapsed();
            }
            let len = part.len();
            let start = first + j * TASK;
            let k =
                run.part::<K, _>(sp, view.front, start, part, hints, win, win_base, far_marks)?;
            done = j * TASK + k;
            if k < len {
                break;
            }
        }
        Ok(done)
    }
}

/// What the verifiers counted: per share (with its first heap), and the head length after the
/// share with the last first heap (`last`).
struct CheckCounts {
    shares: Vec<(usize, verify::Counts)>,
    last: usize,
    head: usize,
}

/// A verifier's task: the first heap of a share of the pending block, its rows and verdicts.
type CheckTask<'a, R> = (usize, &'a [R], &'a mut [Verdict]);

/// The checks of the block before, in shares of [`TASK`] heaps any thread takes, and what they
/// counted: per share (by its first heap) and the head length after the last share.
struct CheckWork<'a, R> {
    queue: Mutex<Vec<CheckTask<'a, R>>>,
    result: Mutex<CheckCounts>,
    head0: usize,
}

impl<'a, R> CheckWork<'a, R> {
    fn new(pending: Option<&'a Pending<R>>, verdicts: &'a mut [Verdict], head0: usize) -> Self {
        let mut tasks: Vec<CheckTask<'a, R>> = Vec::new();
        if let Some(p) = pending {
            for (i, out) in verdicts.chunks_mut(TASK).enumerate() {
                let from = i * TASK;
                tasks.push((p.start + from, &p.rows[from..from + out.len()], out));
            }
        }
        tasks.reverse(); // popped from the end: in order
        CheckWork {
            queue: Mutex::new(tasks),
            result: Mutex::new(CheckCounts {
                shares: Vec::new(),
                last: 0,
                head: head0,
            }),
            head0,
        }
    }

    /// Checks shares until none is left.
    fn work<K: Verify<Row = R>, T: Cell>(&self, checks: &Checks<'_, T>, rare_words: &[u64]) {
        let mut done = Vec::new();
        let mut last = (0usize, self.head0);
        loop {
            let task = self.queue.lock().expect("the task queue").pop();
            let Some((first, task_rows, out)) = task else {
                break;
            };
            let mut head = self.head0;
            let mut counts = verify::Counts::default();
            K::verify(
                checks,
                first,
                task_rows,
                rare_words,
                &mut head,
                out,
                &mut counts,
            );
            done.push((first, counts));
            if first >= last.0 {
                last = (first, head);
            }
        }
        let mut r = self.result.lock().expect("the round's counts");
        r.shares.append(&mut done);
        if last.0 >= r.last && last.0 > 0 {
            (r.last, r.head) = last;
        }
    }

    /// The counts per share and the head length.
    fn into_counts(self) -> (Vec<(usize, verify::Counts)>, usize) {
        let r = self.result.into_inner().expect("the round's counts");
        (r.shares, r.head)
    }
}

impl Engine {
    /// True when the pipeline may compute from heap `len` on: threads, a profile or (one
    /// thread) bit rows, sparse mode with the rows it supports, two-heap digits that take
    /// tokens (no digit before the point), no full exclusion sets, and room in a window.
    pub(in crate::octal::engine) fn pipeline_ready(&self, len: usize) -> bool {
        let Mode::Sparse(sp) = &self.mode else {
            return false;
        };
        let window_ok = match self.window.keep {
            Keep::All => true,
            // The spine's window of values lies in the tail: two blocks back with far rows,
            // back to the largest rare position without (far rows' partners always do).
            Keep::Window { window, .. } => {
                let plan = self.plan_for(sp);
                let reach = if plan.far { 0 } else { sp.max_rare() };
                window >= 4 * plan.block + reach + 256
            }
        };
        (self.workers.threads > 1 || self.workers.profile.is_some() || sp.bits_in_use())
            && self.knobs.pipeline
            && self.plan_for(sp).block >= UNIT
            && len >= self.knobs.pipeline_from
            && self.sets.is_none()
            && self.rules.threes_capped.is_empty()
            && self.scan_twos.iter().all(|&u| u >= 0)
            && (1usize << self.vbits) <= BYTE_LIMIT
            && window_ok
    }

    fn plan_for(&self, sp: &crate::octal::engine::sparse::Sparse) -> Plan {
        if let Some((block, far)) = self.knobs.plan_override {
            // Tests: blocks of 1, 2 and 3 times the size in turn (a plan may change between
            // rounds: far rows made for one block size meet another).
            let block = block * (1 + (self.workers.pipeline_counts.rounds % 3) as usize);
            return Plan { block, far };
        }
        let k = self.scan_twos.len().max(1);
        let rare = sp.rare.len();
        // Far rows pay where rare positions reach far beyond two blocks.
        let far = sp.max_rare() > 8 * 1024;
        let block = if far {
            // Rounds of ≈ 1 ms (a heap costs about a nanosecond per rare pair, and 256 more):
            // long enough that waking the helpers (tens of µs) costs little, short enough
            // that the pairs inside the block — the spine's, on one thread — are few (Grundy's
            // game, `.6`, `.014`: 2–4 % of a heap's rare pairs with blocks of 512; measured
            // with `octal_time --profile`: blocks of 256 cost more in the tasks than they save).
            ((1usize << 20) / (rare * k + 256)).clamp(UNIT, 4096) / UNIT * UNIT
        } else if sp.bits_in_use() {
            8192
        } else {
            2048
        };
        // A block is at most a sixteenth of the values (short sequences: many rounds), and an
        // eighth of the heaps since the last rare value: each new one is found a round late
        // and costs the blocks computed meanwhile.
        let n = self.len();
        let block = block
            .min(n / 16 / UNIT * UNIT)
            .min((n - sp.last_rare().min(n)) / 8 / UNIT * UNIT);
        Plan { block, far }
    }

    /// The pool of `threads − 1` helper threads (the calling thread is the spine).
    pub(in crate::octal::engine) fn take_pool(&mut self) -> Option<rayon::ThreadPool> {
        let want = self.workers.threads - 1;
        match self.workers.pool.take() {
            Some(p) if p.current_num_threads() == want => Some(p),
            _ => {
                let hook = self.workers.thread_start.clone();
                rayon::ThreadPoolBuilder::new()
                    .num_threads(want)
                    .thread_name(|i| format!("octal-helper-{i}"))
                    .start_handler(move |_| {
                        if let Some(h) = &hook {
                            (h.0)();
                        }
                    })
                    .build()
                    .ok()
            }
        }
    }

    /// Computes from `len()` towards `stop_at` on every thread (see the module docs); returns
    /// with every value verified, early when a heap is left to the one-thread step (it is
    /// computed then), when a review is due, or when `should_stop` says so (then with
    /// [`OctalError::Stopped`]).
    pub(in crate::octal::engine) fn pipeline(
        &mut self,
        stop_at: usize,
        should_stop: &mut dyn FnMut() -> bool,
    ) -> Result<(), OctalError> {
        // One thread: every stage on the calling thread.
        let pool = if self.workers.threads > 1 {
            let Some(pool) = self.take_pool() else {
                // No threads to be had: one heap the one-thread way, and on.
                return self.step(self.len());
            };
            Some(pool)
        } else {
            None
        };
        let bits = match &mut self.mode {
            Mode::Sparse(sp) => {
                sp.forget_block();
                sp.bits_in_use()
            }
            _ => false,
        };
        // Rows as wide as the values need (nim-sums below 2^(vbits + 1)).
        let vbits = if self.knobs.widest_rows {
            10
        } else {
            self.vbits
        };
        let r = match (bits, vbits) {
            (true, _) => self.pipeline_with::<Bits>(pool.as_ref(), stop_at, should_stop),
            (false, ..=8) => self.pipeline_with::<Bytes<512>>(pool.as_ref(), stop_at, should_stop),
            (false, 9) => self.pipeline_with::<Bytes<1024>>(pool.as_ref(), stop_at, should_stop),
            (false, _) => self.pipeline_with::<Bytes<2048>>(pool.as_ref(), stop_at, should_stop),
        };
        if pool.is_some() {
            self.workers.pool = pool;
        }
        r
    }

    fn pipeline_with<K: Verify + Analyse>(
        &mut self,
        pool: Option<&rayon::ThreadPool>,
        stop_at: usize,
        should_stop: &mut dyn FnMut() -> bool,
    ) -> Result<(), OctalError> {
        let mut pending: Option<Pending<K::Row>> = None;
        // A heap the spine left to the one-thread step: flush, then compute it.
        let mut leftover = false;
        let mut stopped = false;
        // Row buffers are reused from round to round: no allocation.
        let mut spare: Vec<K::Row> = Vec::new();
        loop {
            let s = self.len();
            let verified = self.verified(&pending);
            let Mode::Sparse(sp) = &mut self.mode else {
                unreachable!("the pipeline runs in sparse mode")
            };
            // New probes (first occurrences of common values among the verified values).
            sp.refresh_probes(verified);
            let Mode::Sparse(sp) = &self.mode else {
                unreachable!("the pipeline runs in sparse mode")
            };
            let plan = self.plan_for(sp);
            if !stopped && !leftover {
                stopped = should_stop();
            }
            let review = verified >= self.review.next_review;
            let b = if stopped || leftover || review || s >= stop_at {
                0
            } else {
                plan.block.min(stop_at - s)
            };
            if b == 0 && pending.is_none() {
                if leftover {
                    return self.step(s);
                }
                if stopped {
                    return Err(OctalError::Stopped { computed: s });
                }
                return Ok(());
            }
            // Far rows: the pairs whose partners lie before the block, every thread's work
            // at the start of the round; the spine adds the pairs inside the block.
            let split = if plan.far && b > 0 { s } else { 0 };
            let mut rows = std::mem::take(&mut spare);
            if split == 0 {
                rows.clear(); // the spine starts from empty rows
            }
            rows.resize(b, K::empty()); // far rows are cleared by their tasks
            let mut verdicts = vec![Verdict::Common; pending.as_ref().map_or(0, |p| p.len)];
            self.workers.pipeline_counts.rounds += 1;
            self.workers.pipeline_counts.far_rounds += u64::from(split > 0);
            let out = self.round::<K>(pool, pending.as_ref(), &mut verdicts, (s, &mut rows, split));
            // Commit: the checks of the block before, then the spine's block.
            let serial_start = self.workers.profile.as_ref().map(|_| Instant::now());
            let failed = match pending.take() {
                Some(p) => {
                    let failed = self.commit_checks::<K>(&p, &verdicts);
                    spare = p.rows; // the next round's rows
                    failed?
                }
                None => None,
            };
            // The checks' work counts, as the one-thread engine's: those that were kept.
            let kept = failed.unwrap_or(usize::MAX);
            let (scans, pairs) = out
                .counts
                .iter()
                .filter(|&&(first, _)| first <= kept)
                .fold((0, 0), |(s, p), (_, c)| (s + c.scans, p + c.scanned_pairs));
            if let Mode::Sparse(sp) = &mut self.mode {
                sp.after_checks(out.head, scans, pairs);
            }
            if let (Some(p), Some(t)) = (self.workers.profile.as_mut(), serial_start) {
                p.force_serial(t);
                p.commit += t.elapsed();
            }
            if failed.is_some() {
                // Everything computed from the failed heap on is gone; start again after it.
                leftover = false;
                if spare.capacity() < rows.capacity() {
                    spare = rows;
                }
                continue;
            }
            let done = out.spine?;
            self.workers.pipeline_counts.heaps += done as u64;
            self.workers.pipeline_counts.leftovers += u64::from(done < b);
            if b > 0 {
                pending = (done > 0).then_some(Pending {
                    start: s,
                    len: done,
                    rows,
                    rare_words: out.rare_words,
                });
                leftover = done < b;
            }
        }
    }

    /// The values verified so far (all but the pending block).
    fn verified<R>(&self, pending: &Option<Pending<R>>) -> usize {
        pending.as_ref().map_or(self.len(), |p| p.start)
    }

    /// One round (see the module docs): the far rows of the spine's block `spine.0 ..` (pairs
    /// below `spine.2`, none when it is 0) on every thread; then the spine over the block
    /// (`rows`) on this thread while the others check `pending` into `verdicts`.
    fn round<K: Verify + Analyse>(
        &mut self,
        pool: Option<&rayon::ThreadPool>,
        pending: Option<&Pending<K::Row>>,
        verdicts: &mut [Verdict],
        spine_part: (usize, &mut [K::Row], usize),
    ) -> RoundOut {
        let (first, rows, split) = spine_part;
        let gap = self.window.gap;
        let limit = 1u32 << self.vbits;
        let Engine {
            values,
            mode,
            scan_twos,
            rules,
            game,
            window:
                WindowState {
                    archive,
                    read_backs,
                    ..
                },
            workers: Workers { profile, .. },
            ..
        } = self;
        let Mode::Sparse(sp) = mode else {
            unreachable!("the pipeline runs in sparse mode")
        };
        let head0 = sp.head_len();
        let force_read_back = sp.force_read_back();
        let (common, rare_words) =
            sp.class_words((limit as usize).div_ceil(64).clamp(1, K::MISSING_WORDS));
        let max_rare = sp.max_rare();
        let max_u = scan_twos
            .iter()
            .map(|&u| u as usize)
            .chain(rules.ones.iter().copied())
            .max()
            .unwrap_or(0);
        let take_all: Vec<bool> = (0..=game.prefix().len())
            .map(|n| game.digit(n as i64) & 1 == 1)
            .collect();
        let RoundView {
            rare,
            rare_vals,
            probes,
            head_probes,
            far: mut far_pairs,
        } = sp.round_view();
        let mut backing = archive.as_deref_mut().map(|archive| Backing {
            archive,
            counts: read_backs,
        });
        let twos: &Twos = scan_twos;
        let spine = Spine {
            rare,
            rare_vals,
            twos,
            ones: &rules.ones,
            take_all: &take_all,
            split,
            limit,
            common: &common,
        };
        let timing = profile.is_some();
        let (new, mut out, times) = with_cells!(values.as_ref(), |g| {
            let view = View::of(g, gap);
            // The spine's window: the values from the earliest partner of a near pair on.
            let reach = if split > 0 { first - split } else { max_rare } + max_u + 2 * K::HEAPS;
            let win_base = first.saturating_sub(reach).max(view.base);
            let mut win: Vec<_> = view.tail[win_base - view.base..first - view.base].to_vec();
            // Each part with its heaps' hints (`Analyse::hint`), made by its far-row task.
            let mut hints = vec![K::NO_HINT; rows.len()];
            let far = FarWork::<K>::new(rows, &mut hints, split);
            let checks = Checks {
                g: view,
                probes,
                head_probes,
                twos,
                gap: twos.gap,
                force_read_back,
            };
            let check_work = CheckWork::new(pending, verdicts, head0);
            let rare_words = pending.map_or(&[][..], |p| &p.rare_words);
            // The other threads: the far rows first (the spine waits for them), then the
            // checks of the block before.
            let helper = || {
                while far.task(&spine, view, first) {}
                check_work.work::<K, _>(&checks, rare_words);
            };
            // The spine's time, and the time it spent on far rows or waiting for them.
            let mut spine_time = None;
            let mut waited = std::time::Duration::ZERO;
            // The shared stages are timed from here: what comes before (the window's copy,
            // the parts and queues) and after (the block's values) is the round's own, serial.
            let stage_start = timing.then(Instant::now);
            let spine_out = with_helpers(pool, &helper, || {
                let spine_start = timing.then(Instant::now);
                let any_far = !far_pairs.is_empty();
                let mut far_fn = |n: usize, mark: &mut dyn FnMut(u16)| {
                    far_pairs.pairs(view, &mut backing, n, first, twos, mark)
                };
                let mut far_marks: Option<spine::FarMarks<'_>> =
                    if any_far { Some(&mut far_fn) } else { None };
                let window = (&mut win, win_base);
                let wait = timing.then_some(&mut waited);
                let out = far.spine_block(&spine, view, first, window, &mut far_marks, wait);
                spine_time = spine_start.map(|t| t.elapsed());
                // A block the spine left early: far rows no one needs, but the helpers'
                // queue must empty; then the checks.
                while far.task(&spine, view, first) {}
                check_work.work::<K, _>(&checks, rare_words);
                out
            });
            let stage_time = stage_start.map(|t| t.elapsed());
            // The far rows this thread did (all of them on one thread) are not the spine's.
            let far_time = timing.then_some(waited);
            let spine_time = spine_time.map(|s| s.saturating_sub(waited));
            let done = *spine_out.as_ref().unwrap_or(&0);
            let new: Vec<u32> = win[first - win_base..first - win_base + done]
                .iter()
                .map(|c| c.get())
                .collect();
            let (counts, head) = check_work.into_counts();
            (
                new,
                RoundOut {
                    spine: spine_out,
                    counts,
                    head,
                    rare_words: Vec::new(),
                },
                (far_time, spine_time, stage_time),
            )
        });
        if let (Some(p), (Some(far), Some(spine), Some(stage))) = (profile.as_mut(), times) {
            p.rounds += 1;
            p.far_rows += far;
            p.spine += spine;
            p.checks += stage.saturating_sub(spine + far);
        }
        out.rare_words = rare_words;
        // The spine's block joins the values (unverified until the next round).
        values.extend_from_ref(ValuesRef::U32(&new));
        out
    }

    /// Commits the checks of block `p`: the verified values go to the counts and tables; at
    /// the first rare one the values from it on are dropped and it is pushed with its rare
    /// value. Checks that needed the archive are done here. Returns the rare heap, if any.
    fn commit_checks<K: Analyse>(
        &mut self,
        p: &Pending<K::Row>,
        verdicts: &[Verdict],
    ) -> Result<Option<usize>, OctalError> {
        let mut missing = vec![0u64; K::MISSING_WORDS];
        for (i, verdict) in verdicts.iter().enumerate() {
            let n = p.start + i;
            let rare = match verdict {
                Verdict::Common => None,
                Verdict::Rare(v) => Some(*v),
                Verdict::Deferred => {
                    self.workers.pipeline_counts.deferred += 1;
                    let c = self.value_at(n);
                    K::missing(&p.rows[i], c, &p.rare_words, &mut missing);
                    match self.check_deferred(n, &missing) {
                        Ok(v) => v,
                        Err(e) => {
                            // The archive failed: keep what is verified, nothing after it.
                            self.account(p.start, n);
                            self.truncate_heaps(n);
                            return Err(e);
                        }
                    }
                }
            };
            if let Some(v) = rare {
                self.workers.pipeline_counts.rare += 1;
                self.account(p.start, n);
                self.truncate_heaps(n);
                self.push_value(n, v)?;
                return Ok(Some(n));
            }
        }
        self.account(p.start, p.start + p.len);
        Ok(None)
    }

    /// The rare check of heap n with the archive (a verifier deferred it).
    fn check_deferred(&mut self, n: usize, missing: &[u64]) -> Result<Option<u32>, OctalError> {
        let gap = self.window.gap;
        // Only G(0..n) may be read: the values after n are not verified.
        let end = self.stored_at(n);
        let Engine {
            values,
            mode,
            scan_twos,
            window:
                WindowState {
                    archive,
                    read_backs,
                    ..
                },
            ..
        } = self;
        let Mode::Sparse(sp) = mode else {
            unreachable!("the pipeline runs in sparse mode")
        };
        let mut backing = archive.as_deref_mut().map(|archive| Backing {
            archive,
            counts: read_backs,
        });
        let kept = values.as_ref().slice(..end);
        with_cells!(kept, |g| sp.check_deferred(
            View::of(g, gap),
            &mut backing,
            n,
            scan_twos,
            missing
        ))
    }

    /// Where heap n's value lies in the stored values (n in the tail when values are kept in
    /// a window).
    fn stored_at(&self, n: usize) -> usize {
        match self.window.gap {
            None => n,
            Some(gap) => gap.front + (n - gap.base),
        }
    }

    /// G(n) for a heap of the tail.
    fn value_at(&self, n: usize) -> u32 {
        self.values
            .as_ref()
            .get(self.stored_at(n))
            .expect("a heap of the tail")
    }

    /// Heaps `from..to`, verified: their values join the counts and the sparse tables.
    fn account(&mut self, from: usize, to: usize) {
        let (front, base) = match self.window.gap {
            None => (0, 0),
            Some(gap) => (gap.front, gap.base),
        };
        let Mode::Sparse(sp) = &mut self.mode else {
            return;
        };
        let counts = &mut self.counts;
        let all = self.values.as_ref();
        with_cells!(all.slice(front + from - base..front + to - base), |g| {
            for (i, v) in g.iter().enumerate() {
                let v = v.get();
                counts[v as usize] += 1;
                sp.push(from + i, v);
            }
        });
    }

    /// Drops the values of heaps `n..` (unverified ones after a rare heap).
    fn truncate_heaps(&mut self, n: usize) {
        let at = self.stored_at(n);
        self.values.truncate(at);
    }
}
