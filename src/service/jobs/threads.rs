//! How many threads each job computes on (`GRUNDY_JOB_THREADS`).
//!
//! One big job alone should get every core, and several jobs should share them without
//! oversubscribing the machine. So by default (`auto`) the cores this process may use
//! (`std::thread::available_parallelism`, which follows the CPU affinity and a container's
//! CPU quota) are divided among the jobs running on this replica *now*: every job a worker has
//! claimed, of every kind — a sequence job, a census's job, a misère-quotient job. A
//! misère-quotient job computes on one thread and so takes one core; the sequence jobs share
//! the rest, at least one thread each, the remainder going to the jobs that started first, so
//! that the shares add up to the cores (16 cores, 3 jobs: 6, 5, 5). A job asks for its share
//! before each slice of about `GRUNDY_JOB_CHECKPOINT_MS` (the engine takes a new thread count
//! at its next block), so a job starting or ending changes the others' share within one
//! checkpoint interval. With more jobs than cores each still gets one thread: the workers
//! (`GRUNDY_JOB_WORKERS`) bound how many jobs run, not this.
//!
//! A number instead of `auto` fixes the threads of every job, whatever else runs (a replica
//! shares its machine with other work, or a benchmark wants a known count).
//!
//! The division is [`divide`], a pure function; [`JobThreadPool`] keeps the running jobs in
//! the order they started, and a [`JobSeat`] (held by the worker while it runs the job) leaves
//! it when dropped, however the run ends.

use std::sync::{Arc, Mutex};

use crate::config::{JobThreads, MAX_JOB_THREADS};

/// The threads of each of `flexible` jobs, in the order they started, when `cores` cores are
/// shared with `single` jobs that compute on one thread each: the cores left after the
/// single-thread jobs, divided evenly, the remainder one each to the first jobs; at least 1
/// and at most [`MAX_JOB_THREADS`] (the engine's cap) each.
pub fn divide(cores: usize, single: usize, flexible: usize) -> Vec<usize> {
    let left = cores.saturating_sub(single);
    (0..flexible)
        .map(|i| {
            let share = left / flexible + usize::from(i < left % flexible);
            share.clamp(1, MAX_JOB_THREADS)
        })
        .collect()
}

/// What a running job computes on: the engine on its share of the cores, or one thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobShape {
    /// An octal engine that uses as many threads as it is given (a sequence job).
    Threads,
    /// One thread, always (a misère-quotient job).
    Single,
}

#[derive(Debug, Default)]
struct Running {
    next: u64,
    /// The running jobs' seats, in the order they started.
    seats: Vec<(u64, JobShape)>,
}

/// The jobs running on this replica and the setting that shares the cores among them (a cheap
/// handle: clones share the list).
#[derive(Debug, Clone)]
pub struct JobThreadPool {
    setting: JobThreads,
    cores: usize,
    running: Arc<Mutex<Running>>,
}

impl JobThreadPool {
    /// `setting` shares `cores` (see the module's text).
    pub fn new(setting: JobThreads, cores: usize) -> Self {
        JobThreadPool {
            setting,
            cores: cores.max(1),
            running: Arc::default(),
        }
    }

    /// The cores this process may use (`available_parallelism`; 1 if unknown).
    pub fn available_cores() -> usize {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    }

    /// A job of `shape` starts running here; it counts until the seat is dropped.
    pub fn join(&self, shape: JobShape) -> JobSeat {
        let mut r = self.lock();
        let id = r.next;
        r.next += 1;
        r.seats.push((id, shape));
        JobSeat {
            pool: self.clone(),
            id,
            shape,
        }
    }

    /// How many jobs run here now.
    pub fn running(&self) -> usize {
        self.lock().seats.len()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Running> {
        self.running.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The threads of the seat `id` now.
    fn threads_of(&self, id: u64, shape: JobShape) -> usize {
        if shape == JobShape::Single {
            return 1;
        }
        match self.setting {
            JobThreads::Fixed(n) => n.clamp(1, MAX_JOB_THREADS),
            JobThreads::Auto => {
                let r = self.lock();
                let single = r.seats.iter().filter(|s| s.1 == JobShape::Single).count();
                let flexible: Vec<u64> = r
                    .seats
                    .iter()
                    .filter(|s| s.1 == JobShape::Threads)
                    .map(|s| s.0)
                    .collect();
                let Some(rank) = flexible.iter().position(|&s| s == id) else {
                    return 1;
                };
                divide(self.cores, single, flexible.len())[rank]
            }
        }
    }
}

/// A running job's place among the jobs that share the cores; leaves when dropped.
#[derive(Debug)]
pub struct JobSeat {
    pool: JobThreadPool,
    id: u64,
    shape: JobShape,
}

impl JobSeat {
    /// The threads this job computes on now (asked before each slice).
    pub fn threads(&self) -> usize {
        self.pool.threads_of(self.id, self.shape)
    }
}

impl Drop for JobSeat {
    fn drop(&mut self) {
        let mut r = self.pool.lock();
        r.seats.retain(|s| s.0 != self.id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cores_are_divided_with_the_remainder_to_the_first_jobs() {
        assert_eq!(divide(16, 0, 1), vec![16]);
        assert_eq!(divide(16, 0, 3), vec![6, 5, 5]);
        assert_eq!(divide(16, 0, 4), vec![4, 4, 4, 4]);
        assert_eq!(divide(7, 0, 2), vec![4, 3]);
        assert_eq!(divide(1, 0, 1), vec![1]);
        assert!(divide(16, 0, 0).is_empty());
    }

    #[test]
    fn shares_add_up_to_the_cores_whenever_every_job_can_have_one() {
        for cores in 1..=80 {
            for single in 0..=cores {
                for flexible in 1..=(cores - single).max(1) {
                    let d = divide(cores, single, flexible);
                    assert_eq!(d.len(), flexible);
                    assert!(
                        d.iter().all(|&t| t >= 1),
                        "{cores} {single} {flexible}: {d:?}"
                    );
                    assert!(
                        d.windows(2).all(|w| w[0] >= w[1] && w[0] - w[1] <= 1),
                        "{d:?}"
                    );
                    let want = (cores - single)
                        .max(flexible)
                        .min(flexible * MAX_JOB_THREADS);
                    assert_eq!(d.iter().sum::<usize>(), want, "{cores} {single} {flexible}");
                }
            }
        }
    }

    #[test]
    fn single_thread_jobs_take_one_core_each() {
        // 16 cores, 2 misère-quotient jobs: 14 for the sequence jobs.
        assert_eq!(divide(16, 2, 3), vec![5, 5, 4]);
        assert_eq!(divide(4, 4, 2), vec![1, 1]);
    }

    #[test]
    fn more_jobs_than_cores_get_one_thread_each() {
        assert_eq!(divide(2, 0, 5), vec![1; 5]);
        assert_eq!(divide(2, 3, 2), vec![1, 1]);
    }

    #[test]
    fn no_job_gets_more_than_the_engine_takes() {
        assert_eq!(divide(200, 0, 1), vec![MAX_JOB_THREADS]);
        assert_eq!(divide(200, 0, 3), vec![MAX_JOB_THREADS; 3]);
    }

    #[test]
    fn seats_rebalance_as_jobs_start_and_end() {
        let pool = JobThreadPool::new(JobThreads::Auto, 16);
        let a = pool.join(JobShape::Threads);
        assert_eq!(a.threads(), 16, "alone, a job gets every core");
        let b = pool.join(JobShape::Threads);
        let c = pool.join(JobShape::Threads);
        assert_eq!((a.threads(), b.threads(), c.threads()), (6, 5, 5));
        let q = pool.join(JobShape::Single);
        assert_eq!(q.threads(), 1);
        assert_eq!((a.threads(), b.threads(), c.threads()), (5, 5, 5));
        drop(a);
        assert_eq!((b.threads(), c.threads()), (8, 7));
        drop(q);
        drop(b);
        assert_eq!(c.threads(), 16);
        assert_eq!(pool.running(), 1);
        drop(c);
        assert_eq!(pool.running(), 0);
    }

    #[test]
    fn a_fixed_setting_ignores_the_other_jobs() {
        let pool = JobThreadPool::new(JobThreads::Fixed(3), 16);
        let seats: Vec<JobSeat> = (0..5).map(|_| pool.join(JobShape::Threads)).collect();
        assert!(seats.iter().all(|s| s.threads() == 3));
        assert_eq!(pool.join(JobShape::Single).threads(), 1);
    }
}
