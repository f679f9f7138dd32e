//! Write transactions whose connection is never returned to the pool in an unknown state.
//!
//! The defect this replaces (issue #17): sqlx's `Transaction` counts its depth on the client.
//! When SQLite's `COMMIT` fails with SQLITE_FULL (or SQLITE_IOERR) SQLite rolls the whole
//! transaction back itself, but sqlx still counts depth 1; the rollback on drop then fails
//! ("no transaction is active") and the connection goes back to the pool still counted as in a
//! transaction. Its next `begin` becomes `SAVEPOINT`, and the next failure inside that one ends
//! with `ROLLBACK TO SAVEPOINT`, which does *not* end the transaction: from then on every
//! statement on that pooled connection — job submissions answered 202, claims, checkpoints —
//! ran inside a transaction nobody would commit, holding SQLite's write lock ("database is
//! locked" for every other connection) until the process ended and discarded it all.
//!
//! Here the transaction is plain SQL on a connection of its own: `BEGIN` (SQLite: `BEGIN
//! IMMEDIATE`, taking the write lock up front), the statements, `COMMIT`. After an error in a
//! statement the caller rolls back explicitly ([`WriteTx::rollback`]); after a failed `COMMIT`
//! or `ROLLBACK`, or when the transaction is dropped unfinished (an error path, a cancelled
//! request), the connection is closed instead of pooled — closing it ends whatever transaction
//! the server still had open.

use sqlx::pool::PoolConnection;
use sqlx::AnyConnection;
use sqlx::{Any, Executor};

use super::{Backend, Store, StoreError};

pub(crate) struct WriteTx {
    conn: PoolConnection<Any>,
    finished: bool,
}

impl Store {
    /// Starts a write transaction on a fresh pool connection.
    pub(crate) async fn begin_write(&self) -> Result<WriteTx, StoreError> {
        let mut conn = self.pool().acquire().await?;
        let begin = match self.backend() {
            Backend::Sqlite => "BEGIN IMMEDIATE",
            Backend::Postgres => "BEGIN",
        };
        if let Err(e) = conn.execute(begin).await {
            conn.close_on_drop();
            return Err(e.into());
        }
        Ok(WriteTx {
            conn,
            finished: false,
        })
    }
}

impl WriteTx {
    pub(crate) fn conn(&mut self) -> &mut AnyConnection {
        &mut self.conn
    }

    /// Commits. On failure the outcome on the server is uncertain to the client library, so
    /// the connection is rolled back (best effort) and closed.
    pub(crate) async fn commit(mut self) -> Result<(), StoreError> {
        self.finished = true;
        match self.conn.execute("COMMIT").await {
            Ok(_) => Ok(()),
            Err(e) => {
                let _ = self.conn.execute("ROLLBACK").await;
                self.conn.close_on_drop();
                Err(e.into())
            }
        }
    }

    /// Rolls back explicitly; the connection is closed if that fails.
    pub(crate) async fn rollback(mut self) -> Result<(), StoreError> {
        self.finished = true;
        match self.conn.execute("ROLLBACK").await {
            Ok(_) => Ok(()),
            Err(e) => {
                self.conn.close_on_drop();
                Err(e.into())
            }
        }
    }

    /// Commits `result`'s transaction when it is `Ok`, rolls it back when it is an error (and
    /// returns that error).
    pub(crate) async fn finish<T>(self, result: Result<T, StoreError>) -> Result<T, StoreError> {
        match result {
            Ok(v) => {
                self.commit().await?;
                Ok(v)
            }
            Err(e) => {
                if let Err(rb) = self.rollback().await {
                    tracing::debug!(error = %rb, "rollback after a failed statement failed; connection closed");
                }
                Err(e)
            }
        }
    }

    /// As [`WriteTx::finish`], but an `Ok` that `wrote` says wrote nothing (a refusal past a
    /// quota, a lost lease) is rolled back: no commit that could fail.
    pub(crate) async fn finish_if<T>(
        self,
        result: Result<T, StoreError>,
        wrote: impl FnOnce(&T) -> bool,
    ) -> Result<T, StoreError> {
        match result {
            Ok(v) if !wrote(&v) => {
                self.rollback().await?;
                Ok(v)
            }
            r => self.finish(r).await,
        }
    }
}

impl Drop for WriteTx {
    fn drop(&mut self) {
        if !self.finished {
            // Dropped mid-transaction (a cancelled future): never pool it.
            self.conn.close_on_drop();
        }
    }
}
