//! Shared application state and the one helper every compute endpoint goes through:
//! cache lookup, off-runtime computation for big inputs, serialization, cache fill.

use axum::http::{header, HeaderValue};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use serde::Serialize;
use std::sync::{Arc, RwLock};

use crate::api::error::ApiError;
use crate::cache::ResponseCache;
use crate::config::Config;
use crate::octal_service::SequenceCache;
use crate::store::{Store, StoreError};

/// What every handler can reach.
#[derive(Clone)]
pub struct AppState {
    pub config: Arc<Config>,
    pub cache: ResponseCache,
    /// Resumable octal solvers per canonical code.
    pub sequences: SequenceCache,
    /// Wakes this replica's job workers when a job is submitted here.
    pub job_notify: Arc<tokio::sync::Notify>,
    /// The store once connected (it may come up after the server: see [`AppState::connect_store`]).
    store: Arc<RwLock<Option<Store>>>,
}

impl AppState {
    /// State without a store; call [`AppState::connect_store`] to attach one.
    pub fn new(config: Config) -> Self {
        let cache = ResponseCache::new(config.cache_capacity);
        let sequences = SequenceCache::new(config.octal_cache_bytes);
        AppState {
            config: Arc::new(config),
            cache,
            sequences,
            job_notify: Arc::default(),
            store: Arc::default(),
        }
    }

    /// The store, if connected.
    pub fn store(&self) -> Option<Store> {
        self.store.read().ok().and_then(|s| s.clone())
    }

    pub fn set_store(&self, store: Store) {
        if let Ok(mut s) = self.store.write() {
            *s = Some(store);
        }
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

    /// Answers a pure computation: from the cache when `key` is given and present (and `size`
    /// is within `GRUNDY_CACHE_MIN_COINS..=GRUNDY_CACHE_MAX_COINS`), otherwise
    /// by running `compute` — inline for small inputs (`size ≤ GRUNDY_INLINE_COINS`), on the
    /// blocking pool for large ones so the async workers stay responsive.
    pub async fn respond<T, F>(
        &self,
        key: Option<String>,
        size: usize,
        compute: F,
    ) -> Result<Response, ApiError>
    where
        T: Serialize,
        F: FnOnce() -> Result<T, ApiError> + Send + 'static,
        T: Send + 'static,
    {
        let key = key.filter(|_| {
            (self.config.cache_min_coins..=self.config.cache_max_coins).contains(&size)
        });
        let inline = size <= self.config.inline_coins;
        self.respond_with(key, inline, compute).await
    }

    /// For searches whose cost does not follow the input size (budgeted memoised searches):
    /// always computed on the blocking pool, always cached (the key is small).
    pub async fn respond_search<T, F>(&self, key: String, compute: F) -> Result<Response, ApiError>
    where
        T: Serialize + Send + 'static,
        F: FnOnce() -> Result<T, ApiError> + Send + 'static,
    {
        self.respond_with(Some(key), false, compute).await
    }

    async fn respond_with<T, F>(
        &self,
        key: Option<String>,
        inline: bool,
        compute: F,
    ) -> Result<Response, ApiError>
    where
        T: Serialize + Send + 'static,
        F: FnOnce() -> Result<T, ApiError> + Send + 'static,
    {
        if let Some(k) = &key {
            if let Some(body) = self.cache.get(k) {
                return Ok(json_response(body));
            }
        }
        let run = move || -> Result<Bytes, ApiError> {
            let value = compute()?;
            serde_json::to_vec(&value)
                .map(Bytes::from)
                .map_err(|e| ApiError::Internal(format!("serializing the response: {e}")))
        };
        let body = if inline {
            run()?
        } else {
            tokio::task::spawn_blocking(run)
                .await
                .map_err(|e| ApiError::Internal(format!("computation task failed: {e}")))??
        };
        if let Some(k) = key {
            self.cache.insert(k, body.clone());
        }
        Ok(json_response(body))
    }
}

fn json_response(body: Bytes) -> Response {
    let mut resp = body.into_response();
    resp.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    resp
}
