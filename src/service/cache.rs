//! The response cache: an LRU-ish (TinyLFU, via moka) map from a canonical request to the
//! serialized response body. A hit skips both the computation and the JSON serialization.
//!
//! Keys are canonical (sorted positions, defaulted options), so `[3,1]` and `[1,3]` share an
//! entry. Only small requests are cached (`GRUNDY_CACHE_MAX_COINS`): for a big position the
//! key costs as much to hash as the Welter value costs to compute.

use bytes::Bytes;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// A shared, thread-safe response cache with hit/miss counters.
///
/// Cloned on every request (axum clones the state per request): behind an `Arc`, a clone is one
/// reference count, not the moka handle's several (its channels' senders among them).
#[derive(Clone)]
pub struct ResponseCache {
    inner: Option<Arc<moka::sync::Cache<String, Bytes>>>,
    stats: Arc<Stats>,
}

#[derive(Default)]
struct Stats {
    hits: AtomicU64,
    misses: AtomicU64,
}

/// A snapshot of the counters, for logs and `/metrics`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheStats {
    pub hits: u64,
    pub misses: u64,
    pub entries: u64,
}

impl ResponseCache {
    /// A cache holding at most `capacity` responses; 0 disables caching.
    pub fn new(capacity: u64) -> Self {
        let inner = (capacity > 0).then(|| Arc::new(moka::sync::Cache::new(capacity)));
        ResponseCache {
            inner,
            stats: Arc::default(),
        }
    }

    pub fn get(&self, key: &str) -> Option<Bytes> {
        let cache = self.inner.as_ref()?;
        let hit = cache.get(key);
        if hit.is_some() {
            self.stats.hits.fetch_add(1, Ordering::Relaxed);
            metrics::counter!("grundy_cache_hits_total").increment(1);
        } else {
            self.stats.misses.fetch_add(1, Ordering::Relaxed);
            metrics::counter!("grundy_cache_misses_total").increment(1);
        }
        hit
    }

    pub fn insert(&self, key: String, body: Bytes) {
        if let Some(cache) = &self.inner {
            cache.insert(key, body);
        }
    }

    pub fn stats(&self) -> CacheStats {
        CacheStats {
            hits: self.stats.hits.load(Ordering::Relaxed),
            misses: self.stats.misses.load(Ordering::Relaxed),
            entries: self.inner.as_ref().map_or(0, |c| c.entry_count()),
        }
    }

    /// Logs the counters every `period` (they are also exported at `/metrics`) until the
    /// returned task is aborted: at `info` when they changed since the last line, else at
    /// `debug` (an idle server is quiet at `info`).
    pub fn log_stats_every(&self, period: std::time::Duration) -> tokio::task::JoinHandle<()> {
        let cache = self.clone();
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(period);
            tick.tick().await;
            let mut last = cache.stats();
            loop {
                tick.tick().await;
                let s = cache.stats();
                if s == last {
                    tracing::debug!(
                        hits = s.hits,
                        misses = s.misses,
                        entries = s.entries,
                        "cache"
                    );
                } else {
                    tracing::info!(
                        hits = s.hits,
                        misses = s.misses,
                        entries = s.entries,
                        "cache"
                    );
                }
                last = s;
            }
        })
    }
}

/// Builds a canonical cache key: an endpoint tag, options, and the numbers in canonical order.
pub fn key(tag: &str, options: &str, numbers: &[u64]) -> String {
    use std::fmt::Write;
    let mut k = String::with_capacity(tag.len() + options.len() + 2 + numbers.len() * 4);
    k.push_str(tag);
    k.push('|');
    k.push_str(options);
    k.push('|');
    for n in numbers {
        let _ = write!(k, "{n},");
    }
    k
}
