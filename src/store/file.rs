//! What an SQLite file on disk is, asked before a store opens it (`grundy octal --store`): a
//! store opened on a file that is not one would create folders, wait for a lock, or migrate a
//! stranger's database into ours. Nothing here writes.

use std::path::Path;

use sqlx::{ConnectOptions, Connection, Row};

/// An SQLite file a store may open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StoreFile {
    /// No file yet: opening creates it.
    Absent,
    /// An empty file, or an SQLite database without tables: opening makes it a store.
    Empty,
    /// A grundy store whose schema is at `version` (this build's or older: opening migrates).
    Grundy { version: i64 },
}

/// Why a file is no store this build may open; each says it in a line.
#[derive(Debug, thiserror::Error)]
pub enum NotAStore {
    #[error("its folder {0} does not exist")]
    NoFolder(String),
    #[error("not a grundy store: a folder, not a file")]
    Folder,
    #[error("not a grundy store: not an SQLite database")]
    NotSqlite,
    #[error("not a grundy store: an SQLite database of something else (tables {0})")]
    Foreign(String),
    #[error(
        "a store of a newer schema (migration {found}; this grundy knows up to {known}): use the \
         grundy that wrote it"
    )]
    Newer { found: i64, known: i64 },
    #[error("unreadable: {0}")]
    Unreadable(String),
}

/// The newest schema this build knows (its last SQLite migration).
pub fn sqlite_schema_version() -> i64 {
    super::SQLITE_MIGRATIONS
        .iter()
        .map(|m| m.version)
        .max()
        .unwrap_or(0)
}

/// What `path` is, read without changing it.
pub async fn inspect_sqlite_file(path: &Path) -> Result<StoreFile, NotAStore> {
    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if !folder.is_dir() {
        return Err(NotAStore::NoFolder(folder.display().to_string()));
    }
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(StoreFile::Absent),
        Err(e) => return Err(NotAStore::Unreadable(e.to_string())),
    };
    if meta.is_dir() {
        return Err(NotAStore::Folder);
    }
    if meta.len() == 0 {
        return Ok(StoreFile::Empty);
    }
    let mut head = [0u8; 16];
    let read = std::io::Read::read(
        &mut std::fs::File::open(path).map_err(|e| NotAStore::Unreadable(e.to_string()))?,
        &mut head,
    )
    .map_err(|e| NotAStore::Unreadable(e.to_string()))?;
    if read < head.len() || &head != b"SQLite format 3\0" {
        return Err(NotAStore::NotSqlite);
    }
    let unreadable = |e: sqlx::Error| NotAStore::Unreadable(e.to_string());
    let mut conn = sqlx::sqlite::SqliteConnectOptions::new()
        .filename(path)
        .create_if_missing(false)
        .connect()
        .await
        .map_err(unreadable)?;
    let tables: Vec<String> = sqlx::query(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' \
         ORDER BY name",
    )
    .fetch_all(&mut conn)
    .await
    .map_err(|_| NotAStore::NotSqlite)?
    .iter()
    .map(|r| r.get::<String, _>(0))
    .collect();
    let found =
        if tables.iter().any(|t| t == "_sqlx_migrations") && tables.iter().any(|t| t == "jobs") {
            let version: Option<i64> = sqlx::query("SELECT MAX(version) FROM _sqlx_migrations")
                .fetch_one(&mut conn)
                .await
                .map_err(unreadable)?
                .get(0);
            Ok(StoreFile::Grundy {
                version: version.unwrap_or(0),
            })
        } else if tables.is_empty() {
            Ok(StoreFile::Empty)
        } else {
            let mut named = tables
                .iter()
                .take(4)
                .cloned()
                .collect::<Vec<_>>()
                .join(", ");
            if tables.len() > 4 {
                named.push_str(", …");
            }
            Err(NotAStore::Foreign(named))
        };
    let _ = conn.close().await;
    match found? {
        StoreFile::Grundy { version } if version > sqlite_schema_version() => {
            Err(NotAStore::Newer {
                found: version,
                known: sqlite_schema_version(),
            })
        }
        file => Ok(file),
    }
}
