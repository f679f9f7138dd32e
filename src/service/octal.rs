//! The octal-game service between the HTTP handlers (and the job workers) and the pure engine:
//! one resumable [`Solver`] per canonical code, kept in an LRU cache (weighted by the values it
//! holds), fed from the store on a miss and written back to it after growing.
//!
//! A later request for a shorter or equal `n`, or for a heap within a proved period, costs no
//! recomputation; a longer one resumes where the cached (or stored) prefix ends. Requests for
//! the same code serialise on the solver's lock, so concurrent callers never compute twice.
//!
//! [`OctalService`] is the only way to obtain a solver: requests borrow a cached one through
//! [`OctalService::with_solver`], job workers take a private one resumed from the store through
//! [`OctalService::resume_from`]. It knows nothing of HTTP: failures are [`OctalServiceError`]s,
//! which the API turns into problem documents.
//!
//! **Poisoned locks.** A solver's lock is poisoned when a computation panicked while holding
//! it. [`Solver::run`] extends the values and the periodicity detector in several steps, so
//! after a panic its state is not provably consistent (values may be half-appended, the
//! verdict stale). The policy is therefore never to read through the poison: the entry is
//! dropped from the cache (the next request rebuilds it from the store, which only ever
//! received consistent snapshots) and the request fails with [`OctalServiceError::Internal`].
//! The job workers own their solver outright (it moves into the blocking task and back), so a
//! panic there loses the solver with the task and the job fails; no lock is involved.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::store_slot::StoreSlot;
use crate::core::octal::{Game, OctalError, Periodicity, Solver, Values};
use crate::store::{PeriodicityRecord, Store, StoreError};

/// What the service can fail with. HTTP status and wording are the API's business.
#[derive(Debug, thiserror::Error)]
pub enum OctalServiceError {
    /// Meeting the request would take longer than the synchronous limit; the values computed
    /// before the stop are kept for the next request.
    #[error("computing this game beyond {computed} values takes longer than the synchronous limit of {} ms", limit.as_millis())]
    TooSlow { computed: usize, limit: Duration },
    /// The engine refused the game or the request.
    #[error(transparent)]
    Game(#[from] OctalError),
    /// The store failed where it is needed (job workers; requests compute without it).
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A bug: a computation task panicked or a solver's lock was poisoned.
    #[error("{0}")]
    Internal(String),
}

/// A cached solver and how much of it the store already has.
struct Entry {
    solver: Mutex<Solver>,
    stored: AtomicUsize,
    /// Values held and bytes per value (1, 2 or 4), for the cache's weigher (which must never
    /// wait on the solver's lock: it runs on the async workers while another request may be
    /// computing).
    len: AtomicUsize,
    width: AtomicUsize,
}

impl Entry {
    /// Records the solver's length and width for the weigher.
    fn measure(&self, solver: &Solver) {
        self.len.store(solver.values().len(), Ordering::Relaxed);
        self.width.store(solver.values().width(), Ordering::Relaxed);
    }

    /// The cache weight: the values' bytes in their width, plus a fixed overhead.
    fn weight(&self) -> u32 {
        let (len, width) = (
            self.len.load(Ordering::Relaxed),
            self.width.load(Ordering::Relaxed),
        );
        u32::try_from(len.saturating_mul(width).saturating_add(1024)).unwrap_or(u32::MAX)
    }
}

/// What a request needs from the sequence.
#[derive(Debug, Clone, Copy)]
pub struct Need {
    /// Compute at least this many values (capped by the synchronous limit by the caller).
    pub n: usize,
    /// Stop as soon as periodicity is proved.
    pub until_proved: bool,
}

/// A solver resumed from the stored prefix, owned by its caller (a job worker).
pub struct Resumed {
    pub solver: Solver,
    /// How many of its values the store holds (0 when the stored ones were rejected).
    pub stored: usize,
}

/// The per-code solver cache, the synchronous time limit and the store handle.
#[derive(Clone)]
pub struct OctalService {
    cache: moka::sync::Cache<String, Arc<Entry>>,
    sync_time: Duration,
    store: StoreSlot,
}

impl OctalService {
    /// A service caching about `cache_bytes` of computed values (1, 2 or 4 bytes each, the
    /// width each sequence is held in), computing at most `sync_time` per request, reading and
    /// writing values through `store` once it is set.
    pub fn new(cache_bytes: u64, sync_time: Duration, store: StoreSlot) -> Self {
        let cache = moka::sync::Cache::builder()
            .max_capacity(cache_bytes.max(1))
            .weigher(|_k: &String, e: &Arc<Entry>| e.weight())
            .build();
        OctalService {
            cache,
            sync_time,
            store,
        }
    }

    /// Forgets a code (e.g. after a job stored a longer prefix than the cached one).
    pub fn invalidate(&self, code: &str) {
        self.cache.invalidate(code);
    }

    /// A fresh solver for `game` resumed from `values` (what the store holds), for a caller
    /// that owns it (a job worker, which loads the values itself so that it can retry while
    /// the store fails).
    pub async fn resume_from(
        &self,
        game: &Game,
        values: Values,
    ) -> Result<Resumed, OctalServiceError> {
        resume(game, values).await
    }

    /// The solver for `game`, from the cache, else from the store, else fresh.
    async fn entry(&self, game: &Game) -> Result<Arc<Entry>, OctalServiceError> {
        let code = game.canonical();
        if let Some(e) = self.cache.get(&code) {
            return Ok(e);
        }
        let mut values = Values::new();
        if let Some(store) = self.store.get() {
            match store.load_sequence(&code).await {
                Ok(Some(s)) => values = s.values,
                Ok(None) => {}
                // The store is an accelerator here: compute without it rather than fail.
                Err(e) => tracing::warn!(error = %e, code, "could not load a stored sequence"),
            }
        }
        let Resumed { solver, stored } = resume(game, values).await?;
        let e = Arc::new(Entry {
            len: AtomicUsize::new(solver.values().len()),
            width: AtomicUsize::new(solver.values().width()),
            solver: Mutex::new(solver),
            stored: AtomicUsize::new(stored),
        });
        self.cache.insert(code, e.clone());
        Ok(e)
    }

    /// Runs `query` on the code's solver after making sure `need` is met (within the
    /// synchronous time limit), then writes new values back to the store in the background.
    pub async fn with_solver<T, F>(
        &self,
        game: &Game,
        need: Need,
        query: F,
    ) -> Result<T, OctalServiceError>
    where
        T: Send + 'static,
        F: FnOnce(&Solver) -> T + Send + 'static,
    {
        let e = self.entry(game).await?;
        let limit = self.sync_time;
        let code = game.canonical();
        let e2 = e.clone();
        let (result, grew) = tokio::task::spawn_blocking(move || {
            let Ok(mut solver) = e2.solver.lock() else {
                return (Err(poisoned()), false);
            };
            let proved = matches!(solver.periodicity(), Periodicity::Proved(_));
            let enough = solver.values().len() >= need.n || (need.until_proved && proved);
            let mut failure = None;
            if !enough {
                let deadline = Instant::now() + limit;
                let mut stop = || Instant::now() >= deadline;
                match solver.run(need.n, need.until_proved, &mut stop) {
                    Ok(_) => {}
                    Err(OctalError::Stopped { computed }) => {
                        failure = Some(OctalServiceError::TooSlow { computed, limit });
                    }
                    Err(other) => failure = Some(OctalServiceError::Game(other)),
                }
            }
            // Values computed before a stop are kept (and stored) for the next request.
            e2.measure(&solver);
            let grew = solver.values().len() > e2.stored.load(Ordering::Relaxed);
            let out = match failure {
                Some(f) => Err(f),
                None => Ok(query(&solver)),
            };
            (out, grew)
        })
        .await
        .map_err(|e| {
            // The computation panicked holding the lock: see the module docs.
            self.cache.invalidate(&code);
            OctalServiceError::Internal(format!("octal computation failed: {e}"))
        })?;
        if let Err(OctalServiceError::Internal(_)) = &result {
            self.cache.invalidate(&code); // a poisoned entry is never served again
        }
        if grew {
            self.cache.insert(code.clone(), e.clone()); // re-weigh
            if let Some(store) = self.store.get() {
                tokio::spawn(persist(store, code, e));
            }
        }
        result
    }
}

/// A cached solver, held for reading what it has computed (see [`OctalService::cached`]).
/// Values are only ever appended, so reads under successive locks see one consistent prefix.
#[derive(Clone)]
pub struct CachedSolver(Arc<Entry>);

impl CachedSolver {
    /// Runs `read` on the solver under its lock; `None` when the lock is poisoned (see the
    /// module docs). It waits while a request computes: call it on the blocking pool.
    pub fn read<T>(&self, read: impl FnOnce(&Solver) -> T) -> Option<T> {
        self.0.solver.lock().ok().map(|s| read(&s))
    }
}

impl OctalService {
    /// The cached solver for `game`, if there is one: never loads from the store nor computes.
    pub fn cached(&self, game: &Game) -> Option<CachedSolver> {
        self.cache.get(&game.canonical()).map(CachedSolver)
    }

    /// Meets `need` as [`OctalService::with_solver`] does and hands back the solver to read.
    pub async fn ensure(&self, game: &Game, need: Need) -> Result<CachedSolver, OctalServiceError> {
        self.with_solver(game, need, |_| ()).await?;
        Ok(CachedSolver(self.entry(game).await?))
    }
}

fn poisoned() -> OctalServiceError {
    OctalServiceError::Internal("solver lock poisoned".into())
}

/// Resumes a solver from stored values on the blocking pool; values the engine rejects are
/// dropped and the solver starts afresh (the `stored` count then is 0).
async fn resume(game: &Game, values: Values) -> Result<Resumed, OctalServiceError> {
    let stored = values.len();
    let game = game.clone();
    let solver = tokio::task::spawn_blocking(move || match Solver::resume(&game, values) {
        Ok(s) => s,
        Err(e) => {
            tracing::warn!(error = %e, "stored values rejected; starting afresh");
            Solver::new(&game)
        }
    })
    .await
    .map_err(|e| OctalServiceError::Internal(format!("loading a solver: {e}")))?;
    let stored = if solver.values().len() == stored {
        stored
    } else {
        0
    };
    Ok(Resumed { solver, stored })
}

/// Writes the solver's values beyond what is stored. Failures are logged: the values can
/// always be recomputed.
async fn persist(store: Store, code: String, e: Arc<Entry>) {
    let snapshot = {
        // Never wait on the lock from an async worker: if a request is computing right now, it
        // will persist its (longer) result itself when it is done. A poisoned solver is never
        // persisted (see the module docs).
        let Ok(solver) = e.solver.try_lock() else {
            return;
        };
        let stored = e.stored.load(Ordering::Relaxed);
        if solver.values().len() <= stored {
            return;
        }
        // In their own width (1, 2 or 4 bytes a value), not widened to u32.
        (
            solver.values().clone(),
            stored,
            PeriodicityRecord::json_of(solver.periodicity()),
        )
    };
    let (values, stored, periodicity) = snapshot;
    match store
        .save_sequence(&code, &values, stored, periodicity.as_deref())
        .await
    {
        Ok(()) => {
            e.stored.fetch_max(values.len(), Ordering::Relaxed);
        }
        Err(err) => tracing::warn!(error = %err, code, "could not store a computed sequence"),
    }
}

/// Default of `GRUNDY_OCTAL_SYNC_MS`.
pub const DEFAULT_SYNC_TIME: Duration = Duration::from_secs(10);

/// Why window mode cannot compute `game`, naming the digit at fault (`None`: it can): a digit
/// whose moves leave three heaps, or the recurring digits of the code, need every value. A
/// window that holds every value (window ≥ max_n) computes it all the same: the job runs as
/// keeping all (`POST /v1/octal/jobs`, a census).
pub fn window_refusal(game: &Game) -> Option<String> {
    let why = crate::core::octal::Engine::window_refusal(game)?;
    let hex = |d: u8| format!("{d:X}");
    let three = |d: &u8| d & 8 != 0;
    let named = if let Some(i) = game.prefix().iter().position(three) {
        format!(
            "digit d{} = {} leaves three heaps",
            i + 1,
            hex(game.prefix()[i])
        )
    } else if let Some(i) = game.before_point().iter().position(three) {
        format!(
            "digit d{} = {} (before the point) leaves three heaps",
            -(i as i64),
            hex(game.before_point()[i])
        )
    } else if let Some(i) = game.block().iter().position(three) {
        format!(
            "the recurring digit {} leaves three heaps",
            hex(game.block()[i])
        )
    } else if !game.block().is_empty() {
        let block: String = game.block().iter().map(|&d| hex(d)).collect();
        format!("the recurring digits ({block}) repeat without end")
    } else {
        "its digits".to_owned()
    };
    Some(format!(
        "{} cannot be computed in window mode: {named} ({why})",
        game.canonical()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn service() -> OctalService {
        OctalService::new(1 << 20, Duration::from_secs(10), StoreSlot::default())
    }

    const NEED: Need = Need {
        n: 50,
        until_proved: false,
    };

    #[tokio::test]
    async fn serves_and_caches_a_solver() {
        let svc = service();
        let game = Game::parse("0.07").unwrap();
        let first = svc.with_solver(&game, NEED, |s| s.sequence(16)).await;
        let values = first.unwrap().unwrap();
        assert_eq!(values, [0, 0, 1, 1, 2, 0, 3, 1, 1, 0, 3, 3, 2, 2, 4, 0]);
        assert!(svc.cache.get(&game.canonical()).is_some());
    }

    /// The cache counts each value in the width it is held in (1, 2 or 4 bytes), not 4.
    #[tokio::test]
    async fn the_cache_weighs_values_in_their_width() {
        let svc = service();
        let game = Game::parse("0.07").unwrap();
        svc.with_solver(&game, NEED, |_| ()).await.unwrap();
        let e = svc.cache.get(&game.canonical()).unwrap();
        let len = e.len.load(Ordering::Relaxed);
        assert!(len >= NEED.n);
        assert_eq!(e.width.load(Ordering::Relaxed), 1);
        assert_eq!(e.weight() as usize, len + 1024);
        // Wider values weigh more: 2 and 4 bytes each.
        for (big, width) in [(300u32, 2usize), (70_000, 4)] {
            let mut values = vec![0u32; 999];
            values.push(big);
            let solver = Solver::resume(&game, values).unwrap();
            e.measure(&solver);
            assert_eq!(e.weight() as usize, 1000 * width + 1024);
        }
    }

    /// The poisoned-lock policy: a panic while a solver is held drops it from the cache and
    /// reports an internal error; the next request gets a fresh solver.
    #[tokio::test]
    async fn a_panic_holding_a_solver_evicts_it() {
        let svc = service();
        let game = Game::parse("0.07").unwrap();
        let code = game.canonical();
        svc.with_solver(&game, NEED, |_| ()).await.unwrap();
        let entry = svc.cache.get(&code).unwrap();
        let failed = svc
            .with_solver(&game, NEED, |_| -> () {
                panic!("a query panics holding the lock")
            })
            .await;
        assert!(matches!(failed, Err(OctalServiceError::Internal(_))));
        assert!(entry.solver.is_poisoned());
        assert!(
            svc.cache.get(&code).is_none(),
            "the poisoned entry is dropped"
        );
        let len = svc.with_solver(&game, NEED, |s| s.values().len()).await;
        assert!(len.unwrap() >= NEED.n);
        assert!(!svc.cache.get(&code).unwrap().solver.is_poisoned());
    }
}
