//! Shared application state: what every handler and job worker can reach.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use super::auth::Auth;
use super::cache::ResponseCache;
use super::compute_pool::ComputePool;
use super::jobs::threads::JobThreadPool;
use super::misere::MisereService;
use super::octal::OctalService;
use super::store_slot::StoreSlot;
use crate::config::Config;
use crate::store::{Store, StoreError};

/// What every handler can reach: a cheap handle (one reference count) to [`Shared`].
///
/// axum clones the state for every request, so it is one `Arc` rather than a struct of
/// handles (the response and solver caches' handles each clone several reference counts).
#[derive(Clone)]
pub struct AppState(Arc<Shared>);

impl std::ops::Deref for AppState {
    type Target = Shared;
    fn deref(&self) -> &Shared {
        &self.0
    }
}

/// The state itself (reached through [`AppState`]).
pub struct Shared {
    pub config: Arc<Config>,
    pub cache: ResponseCache,
    /// Where the larger computations of requests run (a fixed thread per core).
    pub compute: ComputePool,
    /// Resumable octal solvers per canonical code: the only way to a solver.
    pub octal: OctalService,
    /// Verified misère quotients per (canonical code, bound): cached, stored, computed.
    pub misere: MisereService,
    /// Wakes this replica's job workers when a job is submitted here.
    pub job_notify: Arc<tokio::sync::Notify>,
    /// The jobs running on this replica, and the threads each computes on.
    pub job_threads: JobThreadPool,
    /// Set once this replica begins to shut down (`/readyz` answers 503 from then on).
    pub draining: Draining,
    /// Who may do what with jobs: the access mode (keys, open, job writes refused) and quotas.
    pub auth: Auth,
    /// The store once connected (it may come up after the server: see [`AppState::connect_store`]).
    store: StoreSlot,
}

/// Whether this replica is shutting down: set once, at the first shutdown signal, by the accept
/// loop (`crate::http::server`), and read by `/readyz` and on every response (a cheap handle:
/// one reference count).
#[derive(Debug, Clone, Default)]
pub struct Draining(Arc<AtomicBool>);

impl Draining {
    /// Marks the replica as shutting down (for good).
    pub fn begin(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// Whether the replica is shutting down.
    pub fn is_on(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

impl AppState {
    /// State without a store; call [`AppState::connect_store`] to attach one.
    pub fn new(config: Config) -> Self {
        let cache = ResponseCache::new(config.cache_capacity);
        let store = StoreSlot::default();
        let octal = OctalService::new(
            config.octal_cache_bytes,
            config.octal_sync_time,
            store.clone(),
        );
        let misere = MisereService::new(config.octal_sync_time, store.clone());
        let auth = Auth::from_config(&config);
        let compute = ComputePool::new(config.compute_threads);
        let job_threads = JobThreadPool::new(config.job_threads, JobThreadPool::available_cores());
        AppState(Arc::new(Shared {
            auth,
            config: Arc::new(config),
            cache,
            compute,
            octal,
            misere,
            job_notify: Arc::default(),
            job_threads,
            draining: Draining::default(),
            store,
        }))
    }

    /// The cache key of a Welter-family answer for `size` coins — the one cache rule: answers
    /// are cached only for `GRUNDY_CACHE_MIN_COINS..=GRUNDY_CACHE_MAX_COINS` coins (smaller
    /// ones are cheaper to recompute, larger keys cost as much to hash as to compute), and the
    /// key is only built then (formatting it costs more than computing a small position).
    pub fn cache_key(&self, size: usize, key: impl FnOnce() -> String) -> Option<String> {
        self.config.cache_keeps(size).then(key)
    }

    /// The store, if connected.
    pub fn store(&self) -> Option<Store> {
        self.store.get()
    }

    pub fn set_store(&self, store: Store) {
        self.store.set(store);
    }

    /// Connects to `GRUNDY_DATABASE_URL` (if configured). On failure the service still starts
    /// (compute endpoints need no store) and keeps retrying every few seconds; `/readyz`
    /// reports 503 meanwhile.
    pub async fn connect_store(&self) -> Result<(), StoreError> {
        let Some(url) = self.config.database_url.clone() else {
            return Ok(());
        };
        match Store::connect(&url).await {
            Ok(store) => {
                self.set_store(store);
                Ok(())
            }
            Err(e) => {
                let me = self.clone();
                tokio::spawn(async move {
                    // Retry every 5 s; log the 1st, 2nd, 4th, 8th, … failure (back-off), and
                    // at least every 64th.
                    for attempt in 1u64.. {
                        tokio::time::sleep(std::time::Duration::from_secs(5)).await;
                        match Store::connect(&url).await {
                            Ok(store) => {
                                tracing::info!(attempts = attempt, "store connected");
                                me.set_store(store);
                                break;
                            }
                            Err(e) if attempt.is_power_of_two() || attempt % 64 == 0 => {
                                tracing::warn!(error = %e, attempts = attempt, "store still unreachable");
                            }
                            Err(_) => {}
                        }
                    }
                });
                Err(e)
            }
        }
    }
}
