//! The durable store: computed G-sequences and long-running jobs, in embedded SQLite by
//! default or PostgreSQL when `GRUNDY_DATABASE_URL` says `postgres://…`.
//!
//! One code path serves both through sqlx's `Any` driver: the schema uses only portable types
//! (BIGINT, TEXT, DOUBLE PRECISION, BLOB/BYTEA) and `$n` placeholders, which SQLite accepts
//! too. The two differ only in their migration folders and in how a job is claimed
//! (`FOR UPDATE SKIP LOCKED` needs PostgreSQL; SQLite serialises writers anyway).

mod jobs;
mod sequences;

pub use jobs::{Checkpoint, Job, JobStatus, NewJob};
pub use sequences::{tail_offset, PeriodicityRecord, SequenceExtent, StoredSequence, CHUNK};

use sqlx::any::AnyPoolOptions;
use sqlx::AnyPool;
use std::time::Duration;

/// Which database is behind the pool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// Store failures. The API maps them to 503 (the store is a dependency, not the input).
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("unsupported database URL {0:?}: expected sqlite:… or postgres://…")]
    UnsupportedUrl(String),
    #[error("database error: {0}")]
    Db(#[from] sqlx::Error),
    #[error("migration failed: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    #[error("cannot create the database directory {path}: {source}")]
    Dir {
        path: String,
        source: std::io::Error,
    },
    #[error("stored data is corrupt: {0}")]
    Corrupt(String),
}

/// A connection pool plus the backend it talks to.
#[derive(Clone, Debug)]
pub struct Store {
    pool: AnyPool,
    backend: Backend,
}

static SQLITE_MIGRATIONS: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/sqlite");
static POSTGRES_MIGRATIONS: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/postgres");

/// Milliseconds since the Unix epoch: the store's only time type, portable across backends.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

impl Store {
    /// Connects (creating an SQLite file and its directory if needed) and runs migrations.
    pub async fn connect(url: &str) -> Result<Store, StoreError> {
        sqlx::any::install_default_drivers();
        let (backend, url) = if let Some(rest) = url.strip_prefix("sqlite:") {
            let path = rest.trim_start_matches("//");
            let file = path.split('?').next().unwrap_or(path);
            if file != ":memory:" && !file.is_empty() {
                if let Some(dir) = std::path::Path::new(file)
                    .parent()
                    .filter(|d| !d.as_os_str().is_empty())
                {
                    std::fs::create_dir_all(dir).map_err(|source| StoreError::Dir {
                        path: dir.display().to_string(),
                        source,
                    })?;
                }
            }
            let url = if url.contains("mode=") {
                url.to_owned()
            } else if url.contains('?') {
                format!("{url}&mode=rwc")
            } else {
                format!("{url}?mode=rwc")
            };
            (Backend::Sqlite, url)
        } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            (Backend::Postgres, url.to_owned())
        } else {
            return Err(StoreError::UnsupportedUrl(url.to_owned()));
        };
        let mut options = AnyPoolOptions::new().acquire_timeout(Duration::from_secs(5));
        options = match backend {
            // SQLite has one writer at a time; a small pool avoids lock contention, and WAL
            // lets readers proceed during a checkpoint write.
            Backend::Sqlite => options.max_connections(4).after_connect(|conn, _| {
                Box::pin(async move {
                    use sqlx::Executor;
                    conn.execute("PRAGMA journal_mode=WAL").await?;
                    conn.execute("PRAGMA busy_timeout=10000").await?;
                    conn.execute("PRAGMA synchronous=NORMAL").await?;
                    Ok(())
                })
            }),
            Backend::Postgres => options.max_connections(10),
        };
        let pool = options.connect(&url).await?;
        match backend {
            Backend::Sqlite => SQLITE_MIGRATIONS.run(&pool).await?,
            Backend::Postgres => POSTGRES_MIGRATIONS.run(&pool).await?,
        }
        Ok(Store { pool, backend })
    }

    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// A cheap round trip, for `/readyz`.
    pub async fn ping(&self) -> Result<(), StoreError> {
        sqlx::query("SELECT 1").execute(&self.pool).await?;
        Ok(())
    }

    pub(crate) fn pool(&self) -> &AnyPool {
        &self.pool
    }
}
