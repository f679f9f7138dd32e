//! The CPU time a job uses, read from Linux's per-thread counters in `/proc` (no libc, no
//! `unsafe`).
//!
//! A job computes on threads it does not own: a slice runs on a thread of tokio's blocking
//! pool (a different one from slice to slice, and shared with other work between slices), and
//! the octal engine adds helper threads of its own, a pool it rebuilds whenever the job's
//! thread count changes. The process's total CPU time mixes every job and every request, so a
//! job's time is the sum over *its* threads, each counted only while it is the job's:
//!
//! * the thread that runs a slice (or a misère-quotient job's whole computation) is tracked
//!   from [`JobCpu::enter`] until the guard drops, on that thread;
//! * each engine helper thread registers itself as it starts, through the hook
//!   [`JobCpu::hook`] given to `Engine::set_thread_start` (the engine is pure maths and does
//!   no I/O: the hook is the caller's), and is the job's for its whole life.
//!
//! [`JobCpu::collect`] reads `/proc/self/task/<tid>/stat` of every tracked thread and adds
//! what each used since it was last read. A thread whose entry is gone has exited (a rebuilt
//! pool's old helpers); what it used after its last read is lost, so the worker collects at
//! every slice end, before the next slice can change the thread count (between slices the
//! helpers are idle). A tid is taken for the same thread only while its start time matches:
//! a tid reused by a new thread is not counted.
//!
//! Counters are in clock ticks (`utime` + `stime`, fields 14 and 15 of the stat file), 1/100 s
//! on Linux (`USER_HZ` is 100 on every architecture Rust targets there; `crates/grundy-core/examples/octal_time.rs`
//! assumes the same). Where `/proc` is missing (another OS, a sandbox without it)
//! [`JobCpu::millis`] is `None` and the job document's `cpu_seconds` stays null: no number is
//! better than a wrong one.

use std::marker::PhantomData;
use std::sync::{Arc, Mutex};

use crate::core::octal::ENGINE_VERSION;
use crate::process::build::COMMIT;
use crate::store::RunRecord;

/// Clock ticks per second of the counters (`USER_HZ`).
const TICKS_PER_SECOND: u64 = 100;

/// One thread's counters, from its stat file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct ThreadStat {
    /// When the thread started (ticks since boot, field 22): tells a reused tid apart.
    start: u64,
    /// User and system time used (ticks).
    ticks: u64,
}

/// Parses a `/proc/…/stat` line. The command name (field 2) is in parentheses and may itself
/// hold spaces and parentheses, so the fields are counted from the last `)`.
fn parse_stat(text: &str) -> Option<ThreadStat> {
    let (_, rest) = text.rsplit_once(')')?;
    let fields: Vec<&str> = rest.split_ascii_whitespace().collect();
    // After the name: field 3 (state) is fields[0], so field k is fields[k - 3].
    let field = |k: usize| fields.get(k - 3)?.parse::<u64>().ok();
    Some(ThreadStat {
        start: field(22)?,
        ticks: field(14)?.checked_add(field(15)?)?,
    })
}

fn read_stat(path: &str) -> Option<ThreadStat> {
    parse_stat(&std::fs::read_to_string(path).ok()?)
}

/// The calling thread's id (`/proc/thread-self` links to `<pid>/task/<tid>`).
fn current_tid() -> Option<u32> {
    let link = std::fs::read_link("/proc/thread-self").ok()?;
    link.file_name()?.to_str()?.parse().ok()
}

/// A thread counted for the job, and its ticks when last read.
#[derive(Debug)]
struct Tracked {
    tid: u32,
    start: u64,
    seen: u64,
}

#[derive(Debug, Default)]
struct Counted {
    threads: Vec<Tracked>,
    /// Ticks the job's threads used, so far.
    ticks: u64,
}

impl Counted {
    /// Adds what `t` used since it was last read; `false` if it is gone (exited, or its tid
    /// now names another thread).
    fn update(t: &mut Tracked, ticks: &mut u64, now: Option<ThreadStat>) -> bool {
        match now {
            Some(s) if s.start == t.start => {
                *ticks += s.ticks.saturating_sub(t.seen);
                t.seen = t.seen.max(s.ticks);
                true
            }
            _ => false,
        }
    }
}

/// The CPU time of one run of a job (a cheap handle: clones share the count).
#[derive(Debug, Clone)]
pub struct JobCpu {
    counted: Arc<Mutex<Counted>>,
    /// Whether this system has per-thread counters in `/proc`.
    available: bool,
}

impl Default for JobCpu {
    fn default() -> Self {
        JobCpu::new()
    }
}

impl JobCpu {
    /// A count at zero, tracking no thread yet.
    pub fn new() -> Self {
        JobCpu {
            counted: Arc::default(),
            available: read_stat("/proc/thread-self/stat").is_some(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Counted> {
        self.counted.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Starts counting the calling thread; its tid, if it could be read.
    fn track_current(&self) -> Option<u32> {
        if !self.available {
            return None;
        }
        let tid = current_tid()?;
        let stat = read_stat("/proc/thread-self/stat")?;
        let mut c = self.lock();
        c.threads.retain(|t| t.tid != tid);
        c.threads.push(Tracked {
            tid,
            start: stat.start,
            seen: stat.ticks,
        });
        Some(tid)
    }

    /// The hook for `Engine::set_thread_start`: each helper thread the engine starts counts
    /// for the job from then on, for its whole life.
    pub fn hook(&self) -> Arc<dyn Fn() + Send + Sync> {
        let me = self.clone();
        Arc::new(move || {
            me.track_current();
        })
    }

    /// Counts the calling thread until the guard is dropped (on this thread: the guard cannot
    /// be sent to another).
    pub fn enter(&self) -> OnThisThread<'_> {
        OnThisThread {
            cpu: self,
            tid: self.track_current(),
            _not_send: PhantomData,
        }
    }

    /// Adds what every tracked thread used since it was last read, and forgets the threads
    /// that are gone.
    pub fn collect(&self) {
        if !self.available {
            return;
        }
        let mut c = self.lock();
        let Counted { threads, ticks } = &mut *c;
        threads.retain_mut(|t| {
            let now = read_stat(&format!("/proc/self/task/{}/stat", t.tid));
            Counted::update(t, ticks, now)
        });
    }

    /// Milliseconds of CPU time counted so far (`None` without `/proc`).
    pub fn millis(&self) -> Option<u64> {
        self.available
            .then(|| self.lock().ticks * (1000 / TICKS_PER_SECOND))
    }

    /// Seconds of CPU time counted so far (`None` without `/proc`).
    pub fn seconds(&self) -> Option<f64> {
        self.millis().map(|ms| ms as f64 / 1000.0)
    }

    /// What a checkpoint of a job of any kind saves about this run: the `threads` it runs on,
    /// the job's CPU time in all — `before` (the earlier runs', `Job::cpu_ms`) and this run's
    /// — and this engine.
    pub fn run_record(&self, threads: Option<u64>, before: Option<u64>) -> RunRecord<'static> {
        RunRecord {
            threads,
            cpu_ms: self.millis().map(|ms| before.unwrap_or(0) + ms),
            engine: Some((ENGINE_VERSION, COMMIT)),
        }
    }
}

/// See [`JobCpu::enter`]: on drop, the thread's last ticks are added and it is no longer
/// counted (a blocking-pool thread goes on to other work).
#[derive(Debug)]
pub struct OnThisThread<'a> {
    cpu: &'a JobCpu,
    tid: Option<u32>,
    /// A raw pointer's marker: the guard must drop on the thread it counts.
    _not_send: PhantomData<*const ()>,
}

impl Drop for OnThisThread<'_> {
    fn drop(&mut self) {
        let Some(tid) = self.tid else {
            return;
        };
        let now = read_stat("/proc/thread-self/stat");
        let mut c = self.cpu.lock();
        let Counted { threads, ticks } = &mut *c;
        if let Some(i) = threads.iter().position(|t| t.tid == tid) {
            let mut t = threads.swap_remove(i);
            Counted::update(&mut t, ticks, now);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    /// The calling thread's own ticks (the oracle, read apart from [`JobCpu`]).
    fn own_ticks() -> u64 {
        read_stat("/proc/thread-self/stat").expect("/proc").ticks
    }

    /// Spins until this thread has used `ticks` more clock ticks (by its own counter), within
    /// a wall-clock bound.
    fn burn(ticks: u64) -> u64 {
        let (from, until) = (own_ticks(), Instant::now() + Duration::from_secs(60));
        let mut x = 1u64;
        while own_ticks() < from + ticks {
            for i in 0..200_000u64 {
                x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(i));
            }
            assert!(
                Instant::now() < until,
                "could not burn {ticks} ticks in a minute"
            );
        }
        std::hint::black_box(x);
        own_ticks() - from
    }

    fn has_proc() -> bool {
        read_stat("/proc/thread-self/stat").is_some() && current_tid().is_some()
    }

    #[test]
    fn stat_lines_parse_whatever_the_thread_name() {
        let line =
            "4242 (octal helper) 0)) R 1 2 3 4 5 6 7 8 9 10 250 37 0 0 20 0 9 0 123456 1 2\n";
        assert_eq!(
            parse_stat(line),
            Some(ThreadStat {
                start: 123456,
                ticks: 287
            })
        );
        assert_eq!(parse_stat("4242 (x) R 1 2"), None);
        assert_eq!(parse_stat("garbage"), None);
    }

    #[test]
    fn a_helper_thread_registered_by_the_hook_is_counted() {
        if !has_proc() {
            eprintln!("no /proc: skipped");
            return;
        }
        let cpu = JobCpu::new();
        let hook = cpu.hook();
        let (done_tx, done_rx) = std::sync::mpsc::channel();
        let (go_tx, go_rx) = std::sync::mpsc::channel::<()>();
        let helper = std::thread::spawn(move || {
            hook();
            let used = burn(30);
            done_tx.send(used).unwrap();
            // Alive until the count is read, as an engine's idle helper between slices.
            go_rx.recv().ok();
        });
        let used = done_rx.recv().unwrap();
        cpu.collect();
        let counted = cpu.millis().unwrap();
        assert!(
            counted >= used * 10 && counted <= (used + 2) * 10,
            "counted {counted} ms, the thread used {used} ticks"
        );
        // The thread exits: it is forgotten, its time kept.
        go_tx.send(()).unwrap();
        helper.join().unwrap();
        cpu.collect();
        assert_eq!(cpu.millis(), Some(counted));
        assert!(cpu.lock().threads.is_empty());
        assert!((cpu.seconds().unwrap() - counted as f64 / 1000.0).abs() < 1e-9);
    }

    #[test]
    fn the_calling_thread_counts_while_entered_and_only_then() {
        if !has_proc() {
            eprintln!("no /proc: skipped");
            return;
        }
        let cpu = JobCpu::new();
        burn(5); // before: not the job's
        let used = {
            let _on = cpu.enter();
            burn(20)
        };
        let counted = cpu.millis().unwrap();
        assert!(
            counted >= used * 10 && counted <= (used + 2) * 10,
            "counted {counted} ms, the slice used {used} ticks"
        );
        burn(5); // after: not the job's either
        cpu.collect();
        assert_eq!(cpu.millis(), Some(counted));
    }

    #[test]
    fn the_engines_helper_threads_are_counted() {
        // The hook through the octal engine itself: a job's slice on two threads.
        if !has_proc() {
            eprintln!("no /proc: skipped");
            return;
        }
        use crate::core::octal::{Engine, Game};
        let cpu = JobCpu::new();
        let mut engine = Engine::new(&Game::parse("0.6").unwrap());
        engine.set_threads(2);
        engine.set_thread_start(cpu.hook());
        let (slice, helpers) = {
            let _on = cpu.enter();
            let from = own_ticks();
            engine.extend_to(100_000, &mut || false).unwrap();
            cpu.collect();
            let me = current_tid();
            let helpers = cpu
                .lock()
                .threads
                .iter()
                .filter(|t| Some(t.tid) != me)
                .count();
            (own_ticks() - from, helpers)
        };
        assert_eq!(
            helpers, 1,
            "the engine's one helper thread registered itself"
        );
        let counted = cpu.millis().unwrap();
        assert!(
            counted >= slice * 10,
            "{counted} ms < the spine's {slice} ticks"
        );
    }
}
