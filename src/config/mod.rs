//! Configuration from the environment. Every knob has a documented default (README
//! "Configuration") so that `cargo run --release` works with no environment at all.

pub mod keys; // API keys: scopes, the key file of hashes, a fresh key, constant-time lookup

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use keys::KeyRing;

/// The service's configuration. Built once at start-up; limits are enforced by the API layer.
#[derive(Debug, Clone)]
pub struct Config {
    /// `GRUNDY_ADDR` — address to listen on.
    pub addr: SocketAddr,
    /// `GRUNDY_MAX_COINS` — most coins (or heaps) in one position.
    pub max_coins: usize,
    /// `GRUNDY_MAX_BODY_BYTES` — largest request body; larger bodies get 413.
    pub max_body_bytes: usize,
    /// `GRUNDY_CACHE_CAPACITY` — entries in the response cache (0 disables it).
    pub cache_capacity: u64,
    /// `GRUNDY_CACHE_MIN_COINS` / `GRUNDY_CACHE_MAX_COINS` — Welter-family positions are
    /// cached only within this size range: below it the closed forms are cheaper than a cache
    /// insert (measured, BENCHMARKS.md), above it hashing the key costs as much as recomputing.
    pub cache_min_coins: usize,
    pub cache_max_coins: usize,
    /// `GRUNDY_REQUEST_TIMEOUT_MS` — wall-clock bound on one request (503 beyond).
    pub request_timeout: Duration,
    /// `GRUNDY_MAX_CONCURRENCY` — requests handled at once; beyond, 503 + Retry-After.
    pub max_concurrency: usize,
    /// `GRUNDY_DATABASE_URL` — `sqlite://data/grundy.db` (default, created on start),
    /// `postgres://user@host/db`, or `none` to run without a store (no jobs, no persistence).
    pub database_url: Option<String>,
    /// `GRUNDY_LOG_FORMAT` — `text` (default) or `json`.
    pub log_json: bool,
    /// `GRUNDY_EXPLAIN_MAX_COINS` — most coins for `/v1/welter/explain` (its triangle is
    /// quadratic in size).
    pub explain_max_coins: usize,
    /// `GRUNDY_MAX_ORDINALS` — most ordinals in one transfinite position.
    pub max_ordinals: usize,
    /// `GRUNDY_MAX_ORDINAL_TERMS` — most Cantor-normal-form terms (at all nesting levels) in
    /// one transfinite request; answers may have up to 16 times as many.
    pub max_ordinal_terms: usize,
    /// `GRUNDY_SEARCH_MAX_ENTRIES` / `GRUNDY_SEARCH_MAX_STEPS` — the compute budget of one
    /// memoised search (Max-Welter values, Antonim, Antimatter): memo entries and steps.
    pub search_max_entries: u64,
    pub search_max_steps: u64,
    /// `GRUNDY_OCTAL_MAX_N` — most values a synchronous octal request computes (beyond: a job).
    pub octal_max_n: usize,
    /// `GRUNDY_OCTAL_SYNC_MS` — wall-clock limit of a synchronous octal computation.
    pub octal_sync_time: Duration,
    /// `GRUNDY_MISERE_JOB_SECS` — compute time of a misère-quotient job (`"async": true`),
    /// summed over its runs (a restart resumes it with what is left).
    pub misere_job_time: Duration,
    /// `GRUNDY_MISERE_JOB_STEPS` — engine steps of a misère-quotient job, summed over its runs
    /// (its memory is twice the synchronous budget's, about 512 MB of tables at most).
    pub misere_job_steps: u64,
    /// `GRUNDY_OCTAL_CACHE_BYTES` — memory for cached G-sequences (1, 2 or 4 bytes a value,
    /// the width each is held in).
    pub octal_cache_bytes: u64,
    /// `GRUNDY_OCTAL_MOVES_BUDGET` — steps one winning-moves page may spend.
    pub octal_moves_budget: u64,
    /// `GRUNDY_VALUES_MAX_COUNT` — most values one `/v1/octal/{code}/values` download streams.
    pub values_max_count: u64,
    /// `GRUNDY_JOB_WORKERS` — jobs computed at once by this replica (default: cores; 0 = none).
    pub job_workers: usize,
    /// `GRUNDY_JOB_THREADS` — threads each job computes on: `auto` (the default) divides the
    /// cores this process may use among the jobs running on this replica, re-balanced as jobs
    /// start and end (`crate::service::jobs::threads`); a number (1..=[`MAX_JOB_THREADS`]) fixes it per job.
    pub job_threads: JobThreads,
    /// `GRUNDY_JOB_MAX_N` — largest `max_n` a job may ask for.
    pub job_max_n: u64,
    /// `GRUNDY_JOB_WINDOW`: the front and window a `"keep": "window"` job keeps by default.
    pub job_window: u64,
    /// `GRUNDY_JOB_MAX_WINDOW`: the largest front and window a job may ask for.
    pub job_max_window: u64,
    /// `GRUNDY_JOB_WINDOW_MAX_N`: the largest `max_n` of a window-mode job.
    pub job_window_max_n: u64,
    /// `GRUNDY_JOB_CHECKPOINT_MS` — how often a running job saves its values and renews its lease.
    pub job_checkpoint: Duration,
    /// `GRUNDY_JOB_PACE` — at most this many heaps a job computes per checkpoint interval
    /// (values of a sequence job, heaps of a misère quotient; unset or 0: as many as it can).
    /// A paced job lasts at least `max_n / pace` checkpoint intervals on any machine, however
    /// fast: for demonstrations, and for the tests that must catch a job mid-way (kill -9, a
    /// full disk, a cancel) whatever the speed of the machine they run on.
    pub job_pace: Option<u64>,
    /// `GRUNDY_JOB_LEASE_MS` — how long a job stays claimed without a checkpoint; after that
    /// another replica (or this one, restarted) takes it over.
    pub job_lease: Duration,
    /// `GRUNDY_REPLICA_ID` — this replica's name in job leases (default: random per process).
    /// With a stable id a restarted replica takes its own jobs back at once.
    pub replica_id: String,
    /// `GRUNDY_INLINE_COINS` — positions larger than this are computed on the compute pool
    /// so that one huge request never stalls the async workers.
    pub inline_coins: usize,
    /// `GRUNDY_COMPUTE_THREADS` — threads of the compute pool, where the larger computations of
    /// requests run, in arrival order (default: cores; accepted 1..=256).
    pub compute_threads: usize,
    /// `GRUNDY_MAX_CONNECTIONS` — open connections in total; beyond, new ones are closed.
    pub max_connections: usize,
    /// `GRUNDY_MAX_CONNECTIONS_PER_CLIENT` — open connections per client IP address.
    pub max_connections_per_client: usize,
    /// `GRUNDY_HEADER_READ_TIMEOUT_MS` — time to send a complete request head (and the idle
    /// time allowed between requests on a kept-alive connection).
    pub header_read_timeout: Duration,
    /// `GRUNDY_SHUTDOWN_GRACE_MS` — after the first SIGTERM / Ctrl-C, how long the server keeps
    /// accepting and serving (every response with `Connection: close`, `/readyz` 503) before
    /// it drains its listen backlog and closes the listener (0: at once).
    pub shutdown_grace: Duration,
    /// `GRUNDY_BODY_FIRST_BYTE_TIMEOUT_MS` — how long the first byte of a request body may
    /// take after the request head (the client's time: see `crate::http::body_read`).
    pub body_first_byte_timeout: Duration,
    /// `GRUNDY_BODY_READ_TIMEOUT_MS` — time to send a complete request body, from its first
    /// byte.
    pub body_read_timeout: Duration,
    /// `GRUNDY_BODY_MIN_RATE` — after the grace period a body must arrive at this many bytes
    /// per second on average since its first byte (0 = no rate rule).
    pub body_min_rate: u64,
    /// `GRUNDY_BODY_MIN_RATE_GRACE_MS` — the grace period of the rate rule, from the body's
    /// first byte.
    pub body_min_rate_grace: Duration,
    /// `GRUNDY_BATCH_MAX_ITEMS` — most positions in one batch request.
    pub batch_max_items: usize,
    /// `GRUNDY_BATCH_MAX_COINS` — most coins in one batch request, all positions together.
    pub batch_max_coins: usize,
    /// `GRUNDY_API_KEYS_FILE` — the key file (names, scopes and SHA-256 hashes of API keys, see
    /// [`keys`]), read at start-up. With keys, every job operation needs one.
    pub api_keys_file: Option<PathBuf>,
    /// The keys of `api_keys_file` (Debug shows names and scopes, never hashes).
    pub api_keys: Option<Arc<KeyRing>>,
    /// `GRUNDY_AUTH` — `auto` (default) or `off`. Without keys, a server listening on a
    /// non-loopback address refuses job writes unless this is `off` (see `crate::service::auth`).
    pub auth_off: bool,
    /// `GRUNDY_QUOTA_ACTIVE_JOBS` — queued and running jobs per key (0: no limit).
    pub quota_active_jobs: u64,
    /// `GRUNDY_QUOTA_HEAPS_PER_DAY` — heaps (`max_n`) one key may request per UTC day (0: no
    /// limit).
    pub quota_heaps_per_day: u64,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            addr: "127.0.0.1:8080".parse().expect("static address"),
            max_coins: 1_000_000,
            max_body_bytes: 32 * 1024 * 1024,
            cache_capacity: 100_000,
            cache_min_coins: 256,
            cache_max_coins: 4096,
            request_timeout: Duration::from_secs(30),
            max_concurrency: 512,
            log_json: false,
            database_url: Some("sqlite://data/grundy.db".into()),
            inline_coins: 4096,
            compute_threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            explain_max_coins: 256,
            max_ordinals: 10_000,
            max_ordinal_terms: 100_000,
            search_max_entries: 2_000_000,
            search_max_steps: 40_000_000,
            octal_max_n: 1_000_000,
            octal_sync_time: Duration::from_secs(10),
            misere_job_time: Duration::from_secs(600),
            misere_job_steps: 50 * crate::core::misere::QuotientBudget::DEFAULT.max_steps,
            octal_cache_bytes: 1 << 30,
            octal_moves_budget: 20_000_000,
            values_max_count: 1_000_000_000,
            job_workers: std::thread::available_parallelism().map_or(1, |n| n.get()),
            job_threads: JobThreads::Auto,
            job_max_n: 1_000_000_000,
            job_window: 1 << 24,
            job_max_window: 1 << 28,
            job_window_max_n: crate::core::octal::MAX_WINDOW_N as u64,
            job_checkpoint: Duration::from_secs(2),
            job_pace: None,
            job_lease: Duration::from_secs(15),
            replica_id: uuid::Uuid::new_v4().to_string(),
            max_connections: 10_000,
            max_connections_per_client: 1024,
            header_read_timeout: Duration::from_secs(10),
            shutdown_grace: Duration::from_secs(3),
            body_first_byte_timeout: Duration::from_secs(10),
            body_read_timeout: Duration::from_secs(30),
            body_min_rate: 240,
            body_min_rate_grace: Duration::from_secs(5),
            batch_max_items: 10_000,
            batch_max_coins: 1_000_000,
            api_keys_file: None,
            api_keys: None,
            auth_off: false,
            quota_active_jobs: 100,
            quota_heaps_per_day: 10_000_000_000,
        }
    }
}

/// Most threads one job's solver may use (`GRUNDY_JOB_THREADS`): the engine's own cap, one
/// constant for the configuration, the service's division of the cores and the engine.
pub const MAX_JOB_THREADS: usize = crate::core::octal::MAX_THREADS;

/// `GRUNDY_JOB_THREADS`: how many threads each job computes on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum JobThreads {
    /// `auto` (or unset): the cores this process may use, divided among the jobs running on
    /// this replica at each checkpoint (`crate::service::jobs::threads`).
    #[default]
    Auto,
    /// That many threads per job (1..=[`MAX_JOB_THREADS`]), whatever else runs.
    Fixed(usize),
}

impl std::str::FromStr for JobThreads {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        if s == "auto" {
            return Ok(JobThreads::Auto);
        }
        s.parse::<usize>().map(JobThreads::Fixed).map_err(|_| {
            format!("expected `auto` or a number of threads from 1 to {MAX_JOB_THREADS}")
        })
    }
}

/// The longest `GRUNDY_SHUTDOWN_GRACE_MS` (10 minutes): beyond, a value is taken for a unit
/// mistake rather than a wish to keep a stopping replica for hours.
pub const MAX_SHUTDOWN_GRACE: Duration = Duration::from_secs(600);

/// A configuration variable that is set but cannot be parsed.
#[derive(Debug, thiserror::Error)]
#[error("environment variable {name}={value:?} is invalid: {reason}")]
pub struct ConfigError {
    pub name: &'static str,
    pub value: String,
    pub reason: String,
}

fn var<T: std::str::FromStr>(name: &'static str, default: T) -> Result<T, ConfigError>
where
    T::Err: std::fmt::Display,
{
    match std::env::var(name) {
        Ok(v) if !v.trim().is_empty() => v.trim().parse().map_err(|e: T::Err| ConfigError {
            name,
            value: v.clone(),
            reason: e.to_string(),
        }),
        _ => Ok(default),
    }
}

/// `GRUNDY_JOB_PACE` (see [`Config::job_pace`]): the server's and the command line's runs
/// read it here.
pub fn job_pace_from_env() -> Result<Option<u64>, ConfigError> {
    Ok(Some(var("GRUNDY_JOB_PACE", 0u64)?).filter(|&heaps| heaps > 0))
}

impl Config {
    /// `GRUNDY_AUTH` and `GRUNDY_API_KEYS_FILE`: the key file is read now, so that a missing or
    /// malformed one stops the start-up (naming the line at fault, never a hash).
    fn with_auth_from_env(mut self) -> Result<Self, ConfigError> {
        let auth: String = var("GRUNDY_AUTH", "auto".to_owned())?;
        self.auth_off = match auth.as_str() {
            "auto" => false,
            "off" => true,
            other => {
                return Err(ConfigError {
                    name: "GRUNDY_AUTH",
                    value: other.to_owned(),
                    reason: "expected `auto` or `off`".into(),
                })
            }
        };
        let file: String = var("GRUNDY_API_KEYS_FILE", String::new())?;
        if file.is_empty() {
            return Ok(self);
        }
        if self.auth_off {
            return Err(ConfigError {
                name: "GRUNDY_AUTH",
                value: auth,
                reason: "`off` contradicts GRUNDY_API_KEYS_FILE: unset one of them".into(),
            });
        }
        let ring = KeyRing::load(std::path::Path::new(&file)).map_err(|reason| ConfigError {
            name: "GRUNDY_API_KEYS_FILE",
            value: file.clone(),
            reason,
        })?;
        self.api_keys_file = Some(file.into());
        self.api_keys = Some(Arc::new(ring));
        Ok(self)
    }

    /// Whether Welter-family answers for positions of `coins` coins go to the response cache
    /// (`GRUNDY_CACHE_MIN_COINS..=GRUNDY_CACHE_MAX_COINS`, see [`crate::service::AppState::cache_key`]).
    pub fn cache_keeps(&self, coins: usize) -> bool {
        (self.cache_min_coins..=self.cache_max_coins).contains(&coins)
    }

    /// The compute budget of one memoised search.
    pub fn search_budget(&self) -> crate::core::budget::Budget {
        crate::core::budget::Budget::new(self.search_max_entries, self.search_max_steps)
    }

    /// Reads `GRUNDY_*` variables, falling back to the defaults.
    pub fn from_env() -> Result<Self, ConfigError> {
        let cfg = Config::read_env()?.with_auth_from_env()?;
        cfg.check()?;
        Ok(cfg)
    }

    /// Every setting from its `GRUNDY_*` variable or the default (the API keys apart: see
    /// `with_auth_from_env`); each value is checked only for its type here.
    fn read_env() -> Result<Self, ConfigError> {
        let d = Config::default();
        let log_format: String = var("GRUNDY_LOG_FORMAT", "text".to_owned())?;
        let log_json = match log_format.as_str() {
            "json" => true,
            "text" => false,
            other => {
                return Err(ConfigError {
                    name: "GRUNDY_LOG_FORMAT",
                    value: other.to_owned(),
                    reason: "expected `text` or `json`".into(),
                })
            }
        };
        let cfg = Config {
            addr: var("GRUNDY_ADDR", d.addr)?,
            max_coins: var("GRUNDY_MAX_COINS", d.max_coins)?,
            max_body_bytes: var("GRUNDY_MAX_BODY_BYTES", d.max_body_bytes)?,
            cache_capacity: var("GRUNDY_CACHE_CAPACITY", d.cache_capacity)?,
            cache_min_coins: var("GRUNDY_CACHE_MIN_COINS", d.cache_min_coins)?,
            cache_max_coins: var("GRUNDY_CACHE_MAX_COINS", d.cache_max_coins)?,
            request_timeout: Duration::from_millis(var(
                "GRUNDY_REQUEST_TIMEOUT_MS",
                d.request_timeout.as_millis() as u64,
            )?),
            max_concurrency: var("GRUNDY_MAX_CONCURRENCY", d.max_concurrency)?,
            log_json,
            database_url: {
                let url: String = var("GRUNDY_DATABASE_URL", "sqlite://data/grundy.db".to_owned())?;
                (url != "none").then_some(url)
            },
            inline_coins: var("GRUNDY_INLINE_COINS", d.inline_coins)?,
            compute_threads: var("GRUNDY_COMPUTE_THREADS", d.compute_threads)?,
            explain_max_coins: var("GRUNDY_EXPLAIN_MAX_COINS", d.explain_max_coins)?,
            max_ordinals: var("GRUNDY_MAX_ORDINALS", d.max_ordinals)?,
            max_ordinal_terms: var("GRUNDY_MAX_ORDINAL_TERMS", d.max_ordinal_terms)?,
            search_max_entries: var("GRUNDY_SEARCH_MAX_ENTRIES", d.search_max_entries)?,
            search_max_steps: var("GRUNDY_SEARCH_MAX_STEPS", d.search_max_steps)?,
            octal_max_n: var("GRUNDY_OCTAL_MAX_N", d.octal_max_n)?,
            octal_sync_time: Duration::from_millis(var(
                "GRUNDY_OCTAL_SYNC_MS",
                d.octal_sync_time.as_millis() as u64,
            )?),
            misere_job_time: Duration::from_secs(var(
                "GRUNDY_MISERE_JOB_SECS",
                d.misere_job_time.as_secs(),
            )?),
            misere_job_steps: var("GRUNDY_MISERE_JOB_STEPS", d.misere_job_steps)?,
            octal_cache_bytes: var("GRUNDY_OCTAL_CACHE_BYTES", d.octal_cache_bytes)?,
            octal_moves_budget: var("GRUNDY_OCTAL_MOVES_BUDGET", d.octal_moves_budget)?,
            values_max_count: var("GRUNDY_VALUES_MAX_COUNT", d.values_max_count)?,
            job_workers: var("GRUNDY_JOB_WORKERS", d.job_workers)?,
            job_threads: var("GRUNDY_JOB_THREADS", d.job_threads)?,
            job_max_n: var("GRUNDY_JOB_MAX_N", d.job_max_n)?,
            job_window: var("GRUNDY_JOB_WINDOW", d.job_window)?,
            job_max_window: var("GRUNDY_JOB_MAX_WINDOW", d.job_max_window)?,
            job_window_max_n: var("GRUNDY_JOB_WINDOW_MAX_N", d.job_window_max_n)?,
            job_checkpoint: Duration::from_millis(var(
                "GRUNDY_JOB_CHECKPOINT_MS",
                d.job_checkpoint.as_millis() as u64,
            )?),
            job_pace: job_pace_from_env()?,
            job_lease: Duration::from_millis(var(
                "GRUNDY_JOB_LEASE_MS",
                d.job_lease.as_millis() as u64,
            )?),
            replica_id: var("GRUNDY_REPLICA_ID", d.replica_id.clone())?,
            max_connections: var("GRUNDY_MAX_CONNECTIONS", d.max_connections)?,
            max_connections_per_client: var(
                "GRUNDY_MAX_CONNECTIONS_PER_CLIENT",
                d.max_connections_per_client,
            )?,
            header_read_timeout: Duration::from_millis(var(
                "GRUNDY_HEADER_READ_TIMEOUT_MS",
                d.header_read_timeout.as_millis() as u64,
            )?),
            shutdown_grace: Duration::from_millis(var(
                "GRUNDY_SHUTDOWN_GRACE_MS",
                d.shutdown_grace.as_millis() as u64,
            )?),
            body_first_byte_timeout: Duration::from_millis(var(
                "GRUNDY_BODY_FIRST_BYTE_TIMEOUT_MS",
                d.body_first_byte_timeout.as_millis() as u64,
            )?),
            body_read_timeout: Duration::from_millis(var(
                "GRUNDY_BODY_READ_TIMEOUT_MS",
                d.body_read_timeout.as_millis() as u64,
            )?),
            body_min_rate: var("GRUNDY_BODY_MIN_RATE", d.body_min_rate)?,
            body_min_rate_grace: Duration::from_millis(var(
                "GRUNDY_BODY_MIN_RATE_GRACE_MS",
                d.body_min_rate_grace.as_millis() as u64,
            )?),
            batch_max_items: var("GRUNDY_BATCH_MAX_ITEMS", d.batch_max_items)?,
            batch_max_coins: var("GRUNDY_BATCH_MAX_COINS", d.batch_max_coins)?,
            api_keys_file: None,
            api_keys: None,
            auth_off: false,
            quota_active_jobs: var("GRUNDY_QUOTA_ACTIVE_JOBS", d.quota_active_jobs)?,
            quota_heaps_per_day: var("GRUNDY_QUOTA_HEAPS_PER_DAY", d.quota_heaps_per_day)?,
        };
        Ok(cfg)
    }

    /// The rules between and within the settings: a [`ConfigError`] names the first variable
    /// that breaks one.
    fn check(&self) -> Result<(), ConfigError> {
        let cfg = self;
        if cfg.max_coins > 100_000_000 {
            return Err(ConfigError {
                name: "GRUNDY_MAX_COINS",
                value: cfg.max_coins.to_string(),
                reason: "must be at most 100000000".into(),
            });
        }
        if cfg.job_max_n > crate::core::octal::MAX_VALUES as u64 {
            return Err(ConfigError {
                name: "GRUNDY_JOB_MAX_N",
                value: cfg.job_max_n.to_string(),
                reason: format!("must be at most {}", crate::core::octal::MAX_VALUES),
            });
        }
        let slide = crate::core::octal::SLIDE as u64;
        for (name, value) in [
            ("GRUNDY_JOB_WINDOW", cfg.job_window),
            ("GRUNDY_JOB_MAX_WINDOW", cfg.job_max_window),
        ] {
            if value == 0 || value % slide != 0 || value > 1 << 32 {
                return Err(ConfigError {
                    name,
                    value: value.to_string(),
                    reason: format!("must be a positive multiple of {slide}, at most 2^32"),
                });
            }
        }
        if cfg.job_window > cfg.job_max_window {
            return Err(ConfigError {
                name: "GRUNDY_JOB_WINDOW",
                value: cfg.job_window.to_string(),
                reason: "must be at most GRUNDY_JOB_MAX_WINDOW".into(),
            });
        }
        if cfg.job_window_max_n > crate::core::octal::MAX_WINDOW_N as u64 {
            return Err(ConfigError {
                name: "GRUNDY_JOB_WINDOW_MAX_N",
                value: cfg.job_window_max_n.to_string(),
                reason: format!("must be at most {}", crate::core::octal::MAX_WINDOW_N),
            });
        }
        if let JobThreads::Fixed(n) = cfg.job_threads {
            if !(1..=MAX_JOB_THREADS).contains(&n) {
                return Err(ConfigError {
                    name: "GRUNDY_JOB_THREADS",
                    value: n.to_string(),
                    reason: format!("must be `auto` or between 1 and {MAX_JOB_THREADS}"),
                });
            }
        }
        if cfg.job_lease <= cfg.job_checkpoint {
            return Err(ConfigError {
                name: "GRUNDY_JOB_LEASE_MS",
                value: cfg.job_lease.as_millis().to_string(),
                reason: "must be longer than GRUNDY_JOB_CHECKPOINT_MS".into(),
            });
        }
        if cfg.shutdown_grace > MAX_SHUTDOWN_GRACE {
            return Err(ConfigError {
                name: "GRUNDY_SHUTDOWN_GRACE_MS",
                value: cfg.shutdown_grace.as_millis().to_string(),
                reason: format!("must be at most {}", MAX_SHUTDOWN_GRACE.as_millis()),
            });
        }
        for (name, value) in [
            ("GRUNDY_MAX_CONNECTIONS", cfg.max_connections as u128),
            (
                "GRUNDY_MAX_CONNECTIONS_PER_CLIENT",
                cfg.max_connections_per_client as u128,
            ),
            (
                "GRUNDY_HEADER_READ_TIMEOUT_MS",
                cfg.header_read_timeout.as_millis(),
            ),
            (
                "GRUNDY_BODY_FIRST_BYTE_TIMEOUT_MS",
                cfg.body_first_byte_timeout.as_millis(),
            ),
            (
                "GRUNDY_BODY_READ_TIMEOUT_MS",
                cfg.body_read_timeout.as_millis(),
            ),
            ("GRUNDY_BATCH_MAX_ITEMS", cfg.batch_max_items as u128),
            ("GRUNDY_COMPUTE_THREADS", cfg.compute_threads as u128),
        ] {
            if value == 0 {
                return Err(ConfigError {
                    name,
                    value: "0".into(),
                    reason: "must be at least 1".into(),
                });
            }
        }
        if cfg.compute_threads > 256 {
            return Err(ConfigError {
                name: "GRUNDY_COMPUTE_THREADS",
                value: cfg.compute_threads.to_string(),
                reason: "must be at most 256".into(),
            });
        }
        if cfg.max_concurrency == 0 {
            return Err(ConfigError {
                name: "GRUNDY_MAX_CONCURRENCY",
                value: "0".into(),
                reason: "must be at least 1".into(),
            });
        }
        Ok(())
    }
}
