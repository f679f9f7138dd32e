//! The header read deadline without a timer per request.
//!
//! hyper enforces `header_read_timeout` with its `Timer`: before reading each request head it
//! asks for a sleep until `now + timeout` and polls it while the head is incomplete. With
//! `hyper_util`'s `TokioTimer` every such sleep is a tokio timer entry, and on a kept-alive
//! connection the next head is not there yet when hyper starts waiting for it, so nearly every
//! request registers an entry in tokio's timer wheel and removes it again — two round trips
//! through the wheel's one global mutex per request, shared by every worker thread (measured:
//! one registration per request, callgrind, BENCHMARKS.md).
//!
//! Here each connection gets its own [`ConnectionTimer`]. Its sleeps are plain deadlines: a
//! sleep is over when it is polled at or after its deadline, and polling it only notes the
//! deadline in the connection's `Watch`. The connection's task also drives one real tokio
//! sleep, the [`Watchdog`], which wakes the task at the latest deadline noted (or one timeout
//! after its last wake-up when none is pending); woken, the connection polls hyper, which
//! polls its sleep, which is then over — the same decision, at the same moment, as with a
//! tokio sleep per request. The watchdog's sleep is re-armed about once per timeout per
//! connection instead of twice per request.
//!
//! Exactness: hyper computes each deadline as `now() + timeout` when it starts waiting for a
//! head and polls the sleep in the same poll of the connection's task, so a deadline noted is
//! never earlier than the watchdog's own next wake-up by more than that one poll.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

/// What a connection's sleeps share with its watchdog: the deadline of the sleep hyper polled
/// last, in nanoseconds after `origin` (0: none yet).
#[derive(Debug)]
struct Watch {
    origin: Instant,
    deadline_ns: AtomicU64,
}

impl Watch {
    fn note(&self, deadline: Instant) {
        let ns = deadline.saturating_duration_since(self.origin).as_nanos();
        let ns = u64::try_from(ns).unwrap_or(u64::MAX).max(1);
        // Only this connection's task touches it (the atomic is for `Send + Sync`).
        self.deadline_ns.store(ns, Ordering::Relaxed);
    }

    fn noted(&self) -> Option<Instant> {
        match self.deadline_ns.load(Ordering::Relaxed) {
            0 => None,
            ns => self.origin.checked_add(Duration::from_nanos(ns)),
        }
    }
}

/// A connection's `hyper::rt::Timer` (HTTP/1 header read deadline).
#[derive(Debug, Clone)]
pub struct ConnectionTimer {
    watch: Arc<Watch>,
}

/// A connection's timer and the watchdog its task must drive beside the connection.
pub fn for_connection(timeout: Duration) -> (ConnectionTimer, Watchdog) {
    let watch = Arc::new(Watch {
        origin: Instant::now(),
        deadline_ns: AtomicU64::new(0),
    });
    let first = tokio::time::Instant::now() + timeout;
    (
        ConnectionTimer {
            watch: watch.clone(),
        },
        Watchdog {
            watch,
            timeout,
            sleep: Box::pin(tokio::time::sleep_until(first)),
            armed: false,
        },
    )
}

impl hyper::rt::Timer for ConnectionTimer {
    fn sleep(&self, duration: Duration) -> Pin<Box<dyn hyper::rt::Sleep>> {
        self.sleep_until(Instant::now() + duration)
    }

    fn sleep_until(&self, deadline: Instant) -> Pin<Box<dyn hyper::rt::Sleep>> {
        Box::pin(Deadline {
            deadline,
            watch: self.watch.clone(),
        })
    }
}

/// A sleep of [`ConnectionTimer`]: over once polled at or after its deadline.
struct Deadline {
    deadline: Instant,
    watch: Arc<Watch>,
}

impl Future for Deadline {
    type Output = ();

    fn poll(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<()> {
        if Instant::now() >= self.deadline {
            return Poll::Ready(());
        }
        // The task that polls this is the connection's, which the watchdog wakes.
        self.watch.note(self.deadline);
        Poll::Pending
    }
}

impl hyper::rt::Sleep for Deadline {}

/// Wakes its connection's task at the deadlines of the connection's sleeps (see the module
/// docs). Never finishes: poll it beside the connection, in the same task.
pub struct Watchdog {
    watch: Arc<Watch>,
    timeout: Duration,
    sleep: Pin<Box<tokio::time::Sleep>>,
    /// The sleep has been polled since it was last (re)armed.
    armed: bool,
}

impl Watchdog {
    /// Keeps the task's wake-up armed; call on every poll of the connection's task.
    pub fn poll_watch(&mut self, cx: &mut Context<'_>) {
        // Once polled, the armed sleep holds this task's waker (the same for every poll of a
        // spawned task) until it fires: it needs polling again only then. Asking is one
        // atomic load; polling it on every poll of the connection cost more.
        if self.armed && !self.sleep.is_elapsed() {
            return;
        }
        self.armed = true;
        while self.sleep.as_mut().poll(cx).is_ready() {
            // Woken: this poll of the task polls the connection too, and a sleep whose
            // deadline has come is over. Re-arm at the deadline noted if it is still ahead,
            // else one timeout from now (no head wait begun before now can end later than
            // its deadline, already noted; one begun later ends after now + timeout).
            let now = tokio::time::Instant::now();
            let next = match self.watch.noted() {
                Some(d) if tokio::time::Instant::from_std(d) > now => {
                    tokio::time::Instant::from_std(d)
                }
                _ => now + self.timeout,
            };
            self.sleep.as_mut().reset(next);
        }
    }
}

pin_project_lite::pin_project! {
    /// A connection driven together with its [`Watchdog`]: finishes when the connection does.
    pub struct Watched<F> {
        #[pin]
        connection: F,
        watchdog: Watchdog,
    }
}

impl<F> Watched<F> {
    pub fn new(connection: F, watchdog: Watchdog) -> Self {
        Watched {
            connection,
            watchdog,
        }
    }

    /// The connection itself (to tell it to shut down gracefully).
    pub fn connection(self: Pin<&mut Self>) -> Pin<&mut F> {
        self.project().connection
    }
}

impl<F: Future> Future for Watched<F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let this = self.project();
        this.watchdog.poll_watch(cx);
        this.connection.poll(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hyper::rt::Timer;

    /// Drives a connection stand-in with its watchdog: a head wait that ended early (its sleep
    /// polled once, then dropped, as hyper does when the head arrives), a pause of several
    /// deadlines with no head wait at all (the watchdog's wake-ups find only that stale
    /// deadline), then a head wait that never ends: it must end exactly one deadline after
    /// it began, woken by the watchdog alone.
    #[tokio::test]
    async fn a_wait_ends_one_deadline_after_it_began() {
        // Begun half-way between two of the watchdog's wake-ups: a watchdog that ignored the
        // deadline noted would end it half a deadline late.
        let timeout = Duration::from_millis(200);
        let (timer, watchdog) = for_connection(timeout);
        let connection = async move {
            let mut early = timer.sleep(timeout);
            assert!(futures_poll(&mut early).is_pending());
            drop(early);
            tokio::time::sleep(timeout * 5 / 2).await;
            let began = Instant::now();
            timer.sleep(timeout).await;
            began.elapsed()
        };
        let waited =
            tokio::time::timeout(Duration::from_secs(5), Watched::new(connection, watchdog))
                .await
                .expect("the head wait ended");
        assert!(
            waited >= timeout && waited < timeout + Duration::from_millis(70),
            "waited {waited:?} for a {timeout:?} deadline"
        );
    }

    /// A sleep is over exactly when polled at or after its deadline.
    #[tokio::test]
    async fn a_sleep_is_over_at_its_deadline() {
        let (timer, _watchdog) = for_connection(Duration::from_secs(1));
        let mut past = timer.sleep_until(Instant::now());
        assert!(futures_poll(&mut past).is_ready());
        let mut future = timer.sleep(Duration::from_secs(60));
        assert!(futures_poll(&mut future).is_pending());
    }

    fn futures_poll(sleep: &mut Pin<Box<dyn hyper::rt::Sleep>>) -> Poll<()> {
        sleep.as_mut().poll(&mut Context::from_waker(
            futures_util::task::noop_waker_ref(),
        ))
    }
}
