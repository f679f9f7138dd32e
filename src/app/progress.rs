//! A job's progress on stderr, followed as the event stream follows it
//! (`crate::service::jobs::follow`): a bar on a terminal, else a line at most every second;
//! nothing with `--quiet`. Ctrl-C and SIGTERM end the watch (the run then stops at its
//! checkpoint).

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::cli::plural;
use crate::service::jobs::follow::{poll_interval, Follow, Step};
use crate::store::{Job, JobStatus, Store};

/// How watching a run ended.
pub(super) enum Watched {
    /// The job reached a final status.
    Ended,
    /// SIGINT or SIGTERM: the workers checkpoint and give the job back.
    Signal,
}

/// Shows the job's progress (unless `quiet`) until it ends or a signal comes.
pub(super) async fn watch(
    store: &Store,
    job: &Job,
    n: u64,
    start: u64,
    quiet: bool,
    checkpoint: Duration,
) -> Watched {
    use tokio::signal::unix::{signal, SignalKind};
    let (Ok(mut int), Ok(mut term)) = (
        signal(SignalKind::interrupt()),
        signal(SignalKind::terminate()),
    ) else {
        return Watched::Ended;
    };
    let mut shown = Shown::new(n, job.computed.min(n).max(start), quiet);
    let mut follow = Follow::new(store.clone(), job.clone(), poll_interval(checkpoint));
    loop {
        let step = tokio::select! {
            _ = int.recv() => None,
            _ = term.recv() => None,
            step = follow.next() => Some(step),
        };
        match step {
            None => {
                shown.stop();
                return Watched::Signal;
            }
            Some(Some(Step::Progress { job, statistics })) => {
                shown.rare = statistics.map(|s| s.rare_count).or(shown.rare);
                shown.show(&job);
            }
            Some(Some(Step::Ended(job))) => {
                shown.show(&job);
                shown.stop();
                return Watched::Ended;
            }
            Some(Some(Step::Deleted) | None) => {
                shown.stop();
                return Watched::Ended;
            }
        }
    }
}

/// The progress shown on stderr: a bar on a terminal, else a line at most every second;
/// nothing with `--quiet`. Heaps are counted as computed: "heap 1000 of N" means heaps
/// 0 … 999 are known.
struct Shown {
    n: u64,
    computed: u64,
    /// Where this process's run started: a rate is shown only once it has gone past it (the
    /// stored rate until then is an earlier run's).
    from: u64,
    rare: Option<u64>,
    bar: Option<ProgressBar>,
    last_line: Option<Instant>,
    quiet: bool,
}

impl Shown {
    fn new(n: u64, computed: u64, quiet: bool) -> Self {
        let bar = (!quiet && std::io::stderr().is_terminal()).then(|| {
            let bar = ProgressBar::with_draw_target(Some(n), ProgressDrawTarget::stderr());
            bar.set_style(
                ProgressStyle::with_template(
                    "{elapsed_precise} [{wide_bar}] {human_pos}/{human_len} heaps  {msg}",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
            );
            bar.set_position(computed);
            bar.enable_steady_tick(Duration::from_millis(500));
            bar
        });
        Shown {
            n,
            computed,
            from: computed,
            rare: None,
            bar,
            last_line: None,
            quiet,
        }
    }

    fn show(&mut self, job: &Job) {
        if self.quiet {
            return;
        }
        // Never backwards: a job shows the values it reuses from its first checkpoint on.
        let mut computed = job.computed.min(self.n).max(self.computed);
        // Done before N: a proof made the other values unnecessary (a sequence job ends early
        // only so). The bar is full; the line says why.
        let proved = (job.status == JobStatus::Done && computed < self.n).then_some(computed);
        if proved.is_some() {
            computed = self.n;
        }
        let changed = computed != self.computed || self.last_line.is_none();
        self.computed = computed;
        let rate = job
            .rate
            .filter(|r| r.is_finite() && *r > 0.0 && computed > self.from);
        let eta = rate
            .filter(|_| job.status == JobStatus::Running)
            .map(|r| (self.n - computed) as f64 / r);
        let msg = match proved {
            Some(at) => format!("proved periodic at heap {at}: no further values needed"),
            None => format!(
                "{} values/s, ETA {}, {} rare, {}{}",
                rate.map_or("–".to_owned(), |r| format!("{r:.0}")),
                eta.map_or("–".to_owned(), |s| {
                    indicatif::HumanDuration(Duration::from_secs_f64(s)).to_string()
                }),
                self.rare.map_or("–".to_owned(), |r| r.to_string()),
                job.threads
                    .map_or("– threads".to_owned(), |t| plural(t, "thread")),
                if job.status == JobStatus::Queued {
                    " (starting)"
                } else {
                    ""
                },
            ),
        };
        match &self.bar {
            Some(bar) => {
                bar.set_position(computed);
                bar.set_message(msg);
            }
            None => {
                let due = self
                    .last_line
                    .is_none_or(|t| t.elapsed() >= Duration::from_secs(1));
                if changed && (due || job.status.is_final()) {
                    eprintln!(
                        "{computed} of {} heaps ({:.1} %): {msg}",
                        self.n,
                        computed as f64 * 100.0 / self.n.max(1) as f64
                    );
                    self.last_line = Some(Instant::now());
                }
            }
        }
    }

    fn stop(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.abandon();
        }
    }
}
