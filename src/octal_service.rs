//! The octal-game service between the HTTP handlers and the pure engine: one resumable
//! [`Solver`] per canonical code, kept in an LRU cache (weighted by the values it holds), fed
//! from the store on a miss and written back to it after growing.
//!
//! A later request for a shorter or equal `n`, or for a heap within a proved period, costs no
//! recomputation; a longer one resumes where the cached (or stored) prefix ends. Requests for
//! the same code serialise on the solver's lock, so concurrent callers never compute twice.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::api::error::ApiError;
use crate::core::octal::{Game, OctalError, Periodicity, Solver};
use crate::state::AppState;
use crate::store::Store;

/// A cached solver and how much of it the store already has.
pub struct Entry {
    pub solver: Mutex<Solver>,
    stored: AtomicUsize,
    /// Values held, for the cache's weigher (which must never wait on the solver's lock: it
    /// runs on the async workers while another request may be computing).
    len: AtomicUsize,
}

/// The per-code solver cache.
#[derive(Clone)]
pub struct SequenceCache {
    inner: moka::sync::Cache<String, Arc<Entry>>,
}

impl SequenceCache {
    /// A cache holding about `bytes` of computed values (4 bytes each).
    pub fn new(bytes: u64) -> Self {
        let inner = moka::sync::Cache::builder()
            .max_capacity(bytes.max(1))
            .weigher(|_k: &String, e: &Arc<Entry>| {
                let len = e.len.load(Ordering::Relaxed);
                u32::try_from(len.saturating_mul(4).saturating_add(1024)).unwrap_or(u32::MAX)
            })
            .build();
        SequenceCache { inner }
    }

    /// Forgets a code (e.g. after a job stored a longer prefix than the cached one).
    pub fn invalidate(&self, code: &str) {
        self.inner.invalidate(code);
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

/// Parses a code into a game, as a 422 naming `field`.
pub fn parse_code(field: &str, code: &str) -> Result<Game, ApiError> {
    Game::parse(code).map_err(|e| ApiError::invalid(field, format!("{field}: {e} (in {code:?})")))
}

/// The solver for `game`, from the cache, else from the store, else fresh.
async fn entry(app: &AppState, game: &Game) -> Result<Arc<Entry>, ApiError> {
    let code = game.canonical();
    if let Some(e) = app.sequences.inner.get(&code) {
        return Ok(e);
    }
    let mut values = Vec::new();
    if let Some(store) = app.store() {
        match store.load_sequence(&code).await {
            Ok(Some(s)) => values = s.values,
            Ok(None) => {}
            // The store is an accelerator here: compute without it rather than fail.
            Err(e) => tracing::warn!(error = %e, code, "could not load a stored sequence"),
        }
    }
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
    .map_err(|e| ApiError::Internal(format!("loading a solver: {e}")))?;
    let len = solver.values().len();
    let stored = if len == stored { stored } else { 0 };
    let e = Arc::new(Entry {
        solver: Mutex::new(solver),
        stored: AtomicUsize::new(stored),
        len: AtomicUsize::new(len),
    });
    app.sequences.inner.insert(code, e.clone());
    Ok(e)
}

/// Runs `query` on the code's solver after making sure `need` is met (within the synchronous
/// time limit), then writes new values back to the store in the background.
pub async fn with_solver<T, F>(
    app: &AppState,
    game: &Game,
    need: Need,
    query: F,
) -> Result<T, ApiError>
where
    T: Send + 'static,
    F: FnOnce(&Solver) -> Result<T, ApiError> + Send + 'static,
{
    let e = entry(app, game).await?;
    let limit = app.config.octal_sync_time;
    let code = game.canonical();
    let e2 = e.clone();
    let (result, grew) = tokio::task::spawn_blocking(move || {
        let Ok(mut solver) = e2.solver.lock() else {
            return (Err(ApiError::Internal("solver lock poisoned".into())), false);
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
                    failure = Some(ApiError::invalid(
                        "n",
                        format!(
                            "n: computing this game beyond {computed} values takes longer than the synchronous limit of {} ms \
                             (GRUNDY_OCTAL_SYNC_MS); submit a job with POST /v1/octal/jobs",
                            limit.as_millis()
                        ),
                    ));
                }
                Err(other) => failure = Some(ApiError::invalid("code", format!("code: {other}"))),
            }
        }
        // Values computed before a stop are kept (and stored) for the next request.
        e2.len.store(solver.values().len(), Ordering::Relaxed);
        let grew = solver.values().len() > e2.stored.load(Ordering::Relaxed);
        let out = match failure {
            Some(f) => Err(f),
            None => query(&solver),
        };
        (out, grew)
    })
    .await
    .map_err(|e| ApiError::Internal(format!("octal computation failed: {e}")))?;
    if grew {
        app.sequences.inner.insert(code.clone(), e.clone()); // re-weigh
        if let Some(store) = app.store() {
            tokio::spawn(persist(store, code, e));
        }
    }
    result
}

/// Writes the solver's values beyond what is stored. Failures are logged: the values can
/// always be recomputed.
async fn persist(store: Store, code: String, e: Arc<Entry>) {
    let snapshot = {
        // Never wait on the lock from an async worker: if a request is computing right now, it
        // will persist its (longer) result itself when it is done.
        let Ok(solver) = e.solver.try_lock() else {
            return;
        };
        let stored = e.stored.load(Ordering::Relaxed);
        if solver.values().len() <= stored {
            return;
        }
        (
            solver.values().to_u32_vec(),
            stored,
            periodicity_json(solver.periodicity()),
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

/// The periodicity verdict as stored JSON (the API's `periodicity` object).
pub fn periodicity_json(p: &Periodicity) -> Option<String> {
    p.proof().map(|_| {
        serde_json::to_string(&crate::api::octal::PeriodicityInfo::from_core(p, None))
            .unwrap_or_default()
    })
}

/// Default of `GRUNDY_OCTAL_SYNC_MS`.
pub const DEFAULT_SYNC_TIME: Duration = Duration::from_secs(10);
