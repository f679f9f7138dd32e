//! The misère-quotient service between the HTTP handlers and the pure engine
//! ([`crate::core::misere`]): verified quotients `Q_n` per (canonical code, bound), kept in
//! an LRU cache (weighted by their multiplication tables), read from the store on a miss and
//! written to it after a computation.
//!
//! A computation runs on the blocking pool within the synchronous time limit
//! (`GRUNDY_OCTAL_SYNC_MS`) and the engine's own budget ([`QuotientBudget::DEFAULT`]); at most
//! [`MAX_CONCURRENT`] run at once, and concurrent requests for the same quotient wait for the
//! one computation (moka's `try_get_with`). A computation that does not finish gives back
//! the quotient of the heaps it did reach ([`Partial`]), which the winning-move search uses
//! as its memo for the heaps it covers.
//!
//! **Larger quotients** are computed by misère-quotient jobs (`jobs/misere.rs`, the one job
//! system), within the job budget [`job_budget`]; [`MisereService::lookup`] says where a
//! quotient stands (stored, or its newest job).

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::store_slot::StoreSlot;
use crate::core::budget::Budget;
use crate::core::misere::{
    misere_search, MisereAnswer, MisereEngine, MisereError, MisereQuotient, QuotientBudget,
};
use crate::core::octal::Game;
use crate::store::Job;

/// Most quotient computations running at once (each may hold a few hundred MB at most).
pub const MAX_CONCURRENT: usize = 2;

/// The engine's budget of a misère-quotient job: `max_steps` steps (`GRUNDY_MISERE_JOB_STEPS`,
/// by default fifty times the steps of [`QuotientBudget::DEFAULT`]) and twice its memory (at
/// most about 512 MB of tables).
pub fn job_budget(max_steps: u64) -> QuotientBudget {
    QuotientBudget {
        max_steps,
        max_words: 2 * QuotientBudget::DEFAULT.max_words,
        ..QuotientBudget::DEFAULT
    }
}

/// Bytes of quotients the cache keeps (their multiplication tables, 4 bytes an entry).
pub const CACHE_BYTES: u64 = 256 << 20;

/// The largest bound a quotient is computed to (the `max_heap` of the quotient endpoint, and
/// of the quotient a misère winning-move request computes for its largest heap).
pub const MAX_BOUND: u64 = 1000;

/// The least time the exact search gets after the quotient ran out of time (its steps and
/// entries are bounded by the search budget anyway).
pub const MIN_SEARCH_TIME: Duration = Duration::from_secs(1);

/// How a misère answer was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// From a verified quotient covering every heap.
    Quotient,
    /// By the budgeted exact search (memoised; positions the quotient of the heaps reached
    /// covers are answered from it).
    Search,
}

impl Source {
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Quotient => "quotient",
            Source::Search => "search",
        }
    }
}

/// Why no quotient came back.
#[derive(Debug, Clone, thiserror::Error)]
pub enum MisereServiceError {
    /// The synchronous time limit ran out; the quotient of the heaps `0..=reached` was done.
    #[error("computing Q_{bound} takes longer than the synchronous limit of {} ms (reached Q_{reached})", limit.as_millis())]
    TooSlow {
        bound: u64,
        reached: u64,
        limit: Duration,
    },
    /// The engine refused or its budget ran out (the quotient of the heaps `0..=reached`
    /// was done).
    #[error("{error}")]
    Engine { error: MisereError, reached: u64 },
    /// A bug: a computation task panicked.
    #[error("{0}")]
    Internal(String),
}

/// A failed computation: why, and the quotient of the heaps it reached.
#[derive(Debug, Clone)]
pub struct Partial {
    pub error: MisereServiceError,
    pub reached: Option<Arc<MisereQuotient>>,
}

type Key = (String, u64);

/// Where a quotient stands.
#[derive(Debug, Clone)]
pub enum Lookup {
    /// Computed (in the cache or the store).
    Done(Arc<MisereQuotient>),
    /// Not stored; the newest job for it (queued or running first).
    Job(Box<Job>),
    /// Neither stored nor ever submitted (or its jobs were deleted).
    Unknown,
}

/// The quotient cache, the time limit, the concurrency limit and the store handle.
#[derive(Clone)]
pub struct MisereService {
    cache: moka::sync::Cache<Key, Arc<MisereQuotient>>,
    sync_time: Duration,
    store: StoreSlot,
    permits: Arc<tokio::sync::Semaphore>,
}

impl MisereService {
    /// A service computing at most `sync_time` per request, reading and writing quotients
    /// through `store` once it is set.
    pub fn new(sync_time: Duration, store: StoreSlot) -> Self {
        let cache = moka::sync::Cache::builder()
            .max_capacity(CACHE_BYTES)
            .weigher(|_k: &Key, q: &Arc<MisereQuotient>| weight(q))
            .build();
        MisereService {
            cache,
            sync_time,
            store,
            permits: Arc::new(tokio::sync::Semaphore::new(MAX_CONCURRENT)),
        }
    }

    /// The synchronous time limit.
    pub fn sync_time(&self) -> Duration {
        self.sync_time
    }

    /// The cached quotient `Q_bound` of `game`, if any: never loads nor computes.
    pub fn cached(&self, game: &Game, bound: u64) -> Option<Arc<MisereQuotient>> {
        self.cache.get(&(game.canonical(), bound))
    }

    /// The quotient from the cache, else from the store (then cached); never computes.
    async fn stored(&self, game: &Game, bound: u64) -> Option<Arc<MisereQuotient>> {
        let key = (game.canonical(), bound);
        if let Some(q) = self.cache.get(&key) {
            return Some(q);
        }
        let store = self.store.get()?;
        match store.load_quotient(game, bound).await {
            Ok(Some(q)) => {
                let q = Arc::new(q);
                self.cache.insert(key, q.clone());
                Some(q)
            }
            Ok(None) => None,
            // The store is an accelerator here: compute without it rather than fail.
            Err(e) => {
                tracing::warn!(error = %e, code = key.0, bound, "could not load a stored quotient");
                None
            }
        }
    }

    /// Where `Q_bound` of `game` stands: computed, or its newest job.
    pub async fn lookup(
        &self,
        game: &Game,
        bound: u64,
    ) -> Result<Lookup, crate::store::StoreError> {
        if let Some(q) = self.stored(game, bound).await {
            return Ok(Lookup::Done(q));
        }
        let Some(store) = self.store.get() else {
            return Ok(Lookup::Unknown);
        };
        Ok(match store.quotient_job(&game.canonical(), bound).await? {
            Some(job) => Lookup::Job(Box::new(job)),
            None => Lookup::Unknown,
        })
    }

    /// The quotient from the cache or the store, if computed; never computes.
    pub async fn computed(&self, game: &Game, bound: u64) -> Option<Arc<MisereQuotient>> {
        self.stored(game, bound).await
    }

    /// Keeps a quotient a job computed (and stored) in the cache.
    pub fn remember(&self, q: Arc<MisereQuotient>) {
        self.cache.insert((q.game().canonical(), q.bound()), q);
    }

    /// `Q_bound` of `game`: from the cache, else the store, else computed (and then stored).
    pub async fn quotient(&self, game: &Game, bound: u64) -> Result<Arc<MisereQuotient>, Partial> {
        if let Some(q) = self.stored(game, bound).await {
            return Ok(q);
        }
        let key = (game.canonical(), bound);
        let internal = |e: String| Partial {
            error: MisereServiceError::Internal(e),
            reached: None,
        };
        // Waiting for a turn counts against the time limit too.
        let deadline = Instant::now() + self.sync_time;
        let permit = match tokio::time::timeout(
            self.sync_time,
            self.permits.clone().acquire_owned(),
        )
        .await
        {
            Ok(Ok(p)) => p,
            Ok(Err(e)) => return Err(internal(format!("quotient permits: {e}"))),
            Err(_) => {
                return Err(Partial {
                    error: MisereServiceError::TooSlow {
                        bound,
                        reached: 0,
                        limit: self.sync_time,
                    },
                    reached: None,
                })
            }
        };
        let cache = self.cache.clone();
        let game2 = game.clone();
        let limit = self.sync_time;
        let (result, fresh) = tokio::task::spawn_blocking(move || {
            let _permit = permit;
            let mut computed = false;
            let r = cache.try_get_with(key, || {
                computed = true;
                let mut stop = || Instant::now() >= deadline;
                compute_with(&game2, bound, &QuotientBudget::DEFAULT, limit, &mut stop)
            });
            (r.map_err(|e| (*e).clone()), computed)
        })
        .await
        .map_err(|e| internal(format!("quotient computation failed: {e}")))?;
        let q = result?;
        if fresh {
            if let Some(store) = self.store.get() {
                let q = q.clone();
                tokio::spawn(async move {
                    if let Err(e) = store.save_quotient(&q).await {
                        tracing::warn!(error = %e, code = q.game().canonical(), "could not store a quotient");
                    }
                });
            }
        }
        Ok(q)
    }
}

impl MisereService {
    /// The misère outcome and every winning move of a sum of heaps: through the quotient
    /// `Q_top` (`top` the largest heap, at most [`MAX_BOUND`]) when it is computed in time
    /// and covers every heap (or its periodicity is proved), otherwise by the exact search
    /// within `budget` and the time limit (at least [`MIN_SEARCH_TIME`]), answering from the
    /// quotient of the heaps reached.
    pub async fn winning_moves(
        &self,
        game: &Game,
        heaps: Vec<u64>,
        budget: Budget,
    ) -> Result<(MisereAnswer, Source), MisereServiceError> {
        let top = heaps.iter().copied().max().unwrap_or(0);
        let (quotient, covers) = match self.quotient(game, top.min(MAX_BOUND)).await {
            Ok(q) => {
                let covers = top <= q.bound() || q.periodicity().is_some();
                (Some(q), covers)
            }
            Err(Partial {
                error: e @ MisereServiceError::Internal(_),
                ..
            }) => return Err(e),
            Err(Partial { reached, .. }) => (reached, false),
        };
        let game = game.clone();
        let limit = self.sync_time.max(MIN_SEARCH_TIME);
        let deadline = Instant::now() + limit;
        tokio::task::spawn_blocking(move || {
            let reached = quotient.as_ref().map_or(0, |q| q.bound());
            let engine = |error| MisereServiceError::Engine { error, reached };
            if covers {
                if let Some(q) = &quotient {
                    return q
                        .winning_moves(&heaps)
                        .map(|a| (a, Source::Quotient))
                        .map_err(engine);
                }
            }
            let mut stop = || Instant::now() >= deadline;
            match misere_search(&game, &heaps, quotient.as_deref(), budget, &mut stop) {
                Ok(a) => Ok((a, Source::Search)),
                Err(MisereError::Stopped { .. }) => Err(MisereServiceError::TooSlow {
                    bound: top,
                    reached,
                    limit,
                }),
                Err(e) => Err(engine(e)),
            }
        })
        .await
        .map_err(|e| MisereServiceError::Internal(format!("misère search failed: {e}")))?
    }
}

/// The cache weight of a quotient: its table and pretending function, plus an overhead.
fn weight(q: &MisereQuotient) -> u32 {
    let entries = q.size().saturating_mul(q.size()) + q.phi_table().len();
    u32::try_from(entries.saturating_mul(4).saturating_add(4096)).unwrap_or(u32::MAX)
}

/// Runs the engine to `bound` within `budget` until `stop` says so (`limit`: the time limit
/// that `stop` enforces, for the error).
fn compute_with(
    game: &Game,
    bound: u64,
    budget: &QuotientBudget,
    limit: Duration,
    stop: &mut dyn FnMut() -> bool,
) -> Result<Arc<MisereQuotient>, Partial> {
    let mut engine = MisereEngine::new(game);
    match engine.extend_to(bound, budget, stop) {
        Ok(()) => Ok(Arc::new(MisereQuotient::from_engine(&engine))),
        Err(error) => {
            let reached = engine.bound();
            let error = match error {
                MisereError::Stopped { .. } => MisereServiceError::TooSlow {
                    bound,
                    reached,
                    limit,
                },
                error => MisereServiceError::Engine { error, reached },
            };
            Err(Partial {
                error,
                reached: Some(Arc::new(MisereQuotient::from_engine(&engine))),
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn computes_caches_and_reports_the_time_limit() {
        let svc = MisereService::new(Duration::from_secs(30), StoreSlot::default());
        let game = Game::parse("0.123").unwrap();
        let q = svc.quotient(&game, 20).await.unwrap();
        assert_eq!((q.size(), q.p_size()), (20, 5));
        assert!(svc.cached(&game, 20).is_some());
        // No time at all: the limit is reported with the heaps reached.
        let svc = MisereService::new(Duration::ZERO, StoreSlot::default());
        let err = svc.quotient(&Game::parse("0.07").unwrap(), 30).await;
        let err = err.unwrap_err();
        assert!(
            matches!(err.error, MisereServiceError::TooSlow { bound: 30, .. }),
            "{err:?}"
        );
    }
}
