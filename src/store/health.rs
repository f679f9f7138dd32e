//! The store's health as this replica sees it: whether writes currently fail and why, which
//! running jobs are stalled on it, and the logging/metric policy for store errors.
//!
//! A fault starts at the first store error of a fault kind (one ERROR line) and clears at the
//! next successful write (one INFO line). In between, repeated errors are counted (metric
//! `grundy_store_errors_total{kind}` for every error) but logged only with exponential back-off
//! (WARN after 30 s, 60 s, 120 s, … at most every 10 min), so a worker retrying four times a
//! second cannot flood the log. A fault that recurs within a minute of clearing (a nearly full
//! disk taking small writes and refusing big ones) is logged on the same back-off, not anew.
//!
//! Only writes that changed something clear a fault (an UPDATE matching no row commits even on
//! a full disk): see `Store::track_commit`.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::{now_ms, StoreError};

/// Why the store cannot take writes. `as_str` is the metric label and the API's `kind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FaultKind {
    /// The disk (or the database's quota) is full: 507 for writes.
    Full,
    /// The database is unreachable: connection refused, reset, terminated, pool timed out.
    Unavailable,
    /// The schema is missing (a wiped or replaced database): migrations are re-applied.
    Schema,
    /// Locked or timed out (SQLite busy, PostgreSQL lock or statement timeout).
    Busy,
    /// The database refuses this user or file (revoked privilege, read-only file).
    Permission,
    /// An I/O error or corruption reported by the database.
    Io,
    /// Anything else (a constraint violation, undecodable data): counted, not a fault.
    Other,
}

impl FaultKind {
    /// The kind's short name: the `kind` label of `grundy_store_errors_total` and the logs.
    pub fn as_str(self) -> &'static str {
        match self {
            FaultKind::Full => "full",
            FaultKind::Unavailable => "unavailable",
            FaultKind::Schema => "schema",
            FaultKind::Busy => "busy",
            FaultKind::Permission => "permission",
            FaultKind::Io => "io",
            FaultKind::Other => "other",
        }
    }

    /// The kind as a reason a client reads (`stalled.reason` of a job document, `/readyz`,
    /// the detail of a 503/507 problem): the short name under the prefix `store_`.
    pub fn reason(self) -> &'static str {
        match self {
            FaultKind::Full => "store_full",
            FaultKind::Unavailable => "store_unavailable",
            FaultKind::Schema => "store_schema_missing",
            FaultKind::Busy => "store_busy",
            FaultKind::Permission => "store_permission",
            FaultKind::Io => "store_io",
            FaultKind::Other => "store_error",
        }
    }

    /// Whether an error of this kind means the store as a whole is faulty (as opposed to one
    /// bad statement).
    pub fn is_fault(self) -> bool {
        self != FaultKind::Other
    }
}

/// The current fault.
#[derive(Debug, Clone, PartialEq)]
pub struct Fault {
    pub kind: FaultKind,
    /// The last error's text.
    pub detail: String,
    /// When the fault started (ms since the epoch).
    pub since_ms: i64,
    /// Store errors since it started.
    pub errors: u64,
}

/// Why a running job of this replica cannot save its progress.
#[derive(Debug, Clone, PartialEq)]
pub struct Stall {
    pub kind: FaultKind,
    pub detail: String,
    pub since_ms: i64,
    /// Failed checkpoint attempts so far.
    pub retries: u64,
    /// Values computed and held in memory, waiting to be stored.
    pub computed: u64,
}

struct State {
    fault: Option<Fault>,
    next_log: Instant,
    log_gap: Duration,
    /// When the last fault cleared: a fault that recurs soon after (a nearly full disk that
    /// takes small writes and refuses big ones) is logged with the back-off, not anew.
    last_clear: Option<Instant>,
    /// The current fault's start was not logged (a quick recurrence), so neither is its end.
    quiet: bool,
    stalls: HashMap<String, Stall>,
}

/// Shared by every clone of a [`super::Store`].
pub struct Health {
    state: Mutex<State>,
    /// Woken when a fault clears (stalled workers retry at once) or starts (the monitor runs).
    pub(super) changed: tokio::sync::Notify,
}

const FIRST_REPEAT_LOG: Duration = Duration::from_secs(30);
const MAX_REPEAT_LOG: Duration = Duration::from_secs(600);
const RECURRENCE: Duration = Duration::from_secs(60);

impl Default for Health {
    fn default() -> Self {
        Health {
            state: Mutex::new(State {
                fault: None,
                next_log: Instant::now(),
                log_gap: FIRST_REPEAT_LOG,
                last_clear: None,
                quiet: false,
                stalls: HashMap::new(),
            }),
            changed: tokio::sync::Notify::new(),
        }
    }
}

impl Health {
    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Counts an error; starts (or continues) a fault when its kind is a fault kind.
    pub fn record_error(&self, e: &StoreError) {
        let kind = e.kind();
        metrics::counter!("grundy_store_errors_total", "kind" => kind.as_str()).increment(1);
        if !kind.is_fault() {
            return;
        }
        let now = Instant::now();
        let mut guard = self.state();
        let s = &mut *guard;
        let started = s.fault.is_none();
        if let Some(f) = &mut s.fault {
            f.errors += 1;
            f.kind = kind;
            f.detail = e.to_string();
            if now >= s.next_log {
                tracing::warn!(kind = kind.as_str(), errors = f.errors, error = %e,
                    since_ms = f.since_ms, "store fault persists");
                s.log_gap = (s.log_gap * 2).min(MAX_REPEAT_LOG);
                s.next_log = now + s.log_gap;
            }
        } else {
            let recurs = s
                .last_clear
                .is_some_and(|t| now.duration_since(t) < RECURRENCE);
            if recurs && now < s.next_log {
                s.quiet = true;
            } else {
                tracing::error!(kind = kind.as_str(), error = %e,
                    "store fault: writes are refused until it clears (retrying with back-off)");
                s.quiet = false;
                s.log_gap = if recurs {
                    (s.log_gap * 2).min(MAX_REPEAT_LOG)
                } else {
                    FIRST_REPEAT_LOG
                };
                s.next_log = now + s.log_gap;
            }
            s.fault = Some(Fault {
                kind,
                detail: e.to_string(),
                since_ms: now_ms(),
                errors: 1,
            });
        }
        metrics::gauge!("grundy_store_fault").set(1.0);
        drop(guard);
        if started {
            self.changed.notify_waiters();
        }
    }

    /// A write committed changes: the fault (if any) is over.
    pub fn record_write_ok(&self) {
        let mut s = self.state();
        if let Some(f) = s.fault.take() {
            if !s.quiet {
                tracing::info!(
                    kind = f.kind.as_str(),
                    errors = f.errors,
                    seconds = (now_ms() - f.since_ms) as f64 / 1000.0,
                    "store fault cleared"
                );
            }
            s.last_clear = Some(Instant::now());
            metrics::gauge!("grundy_store_fault").set(0.0);
            drop(s);
            self.changed.notify_waiters();
        }
    }

    pub fn fault(&self) -> Option<Fault> {
        self.state().fault.clone()
    }

    pub fn set_stall(&self, job: &str, stall: Stall) {
        self.state().stalls.insert(job.to_owned(), stall);
    }

    pub fn clear_stall(&self, job: &str) {
        self.state().stalls.remove(job);
    }

    pub fn stall(&self, job: &str) -> Option<Stall> {
        self.state().stalls.get(job).cloned()
    }

    /// Waits until the fault state changes or `max` elapses.
    pub async fn changed_or(&self, max: Duration) {
        let _ = tokio::time::timeout(max, self.changed.notified()).await;
    }
}
