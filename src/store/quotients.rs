//! Verified misère quotients `Q_n`, one row per (canonical code, bound `n`), so that an
//! expensive quotient is computed once per store. The row holds the JSON of a
//! [`QuotientRecord`] (the parts a quotient is rebuilt from, see
//! [`MisereQuotient::from_parts`]); `q_size` and `p_size` are columns for listing without
//! reading the data.

use serde::{Deserialize, Serialize};
use sqlx::Row;

use super::{now_ms, Store, StoreError};
use crate::core::misere::{MisereQuotient, QuotientParts};
use crate::core::octal::Game;

/// Most bytes of a stored quotient's JSON that are read back (a larger row is corrupt: the
/// largest quotient an engine keeps, 4096 elements, writes about 80 MB).
const MAX_RECORD_BYTES: usize = 1 << 27;

/// A quotient as the store records it: the store's own type, so the recorded format does not
/// follow the core's types.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QuotientRecord {
    /// Record format version (1).
    pub version: u32,
    pub bound: u64,
    pub size: usize,
    /// Row-major `size × size` multiplication table.
    pub table: Vec<u32>,
    /// The elements of the P-portion, ascending.
    pub p: Vec<u32>,
    /// `Φ(0..=bound)`.
    pub phi: Vec<u32>,
    /// The least word of each element: `[heap, exponent]` pairs, largest heap first.
    pub words: Vec<Vec<(u64, u32)>>,
    pub expansions: Vec<u64>,
}

impl QuotientRecord {
    /// The record of a quotient.
    pub fn of(q: &MisereQuotient) -> QuotientRecord {
        QuotientRecord::of_parts(q.parts())
    }

    /// The record of a quotient's parts (an engine's state, `MisereEngine::parts`).
    pub fn of_parts(parts: QuotientParts) -> QuotientRecord {
        QuotientRecord {
            version: 1,
            bound: parts.bound,
            size: parts.size,
            table: parts.table,
            p: (0..parts.size as u32)
                .filter(|&x| parts.p[x as usize])
                .collect(),
            phi: parts.phi,
            words: parts.words,
            expansions: parts.expansions,
        }
    }

    /// The parts this record holds; an error when it is malformed (not yet checked against a
    /// game: see [`MisereQuotient::from_parts`] and `MisereEngine::resume`).
    pub fn into_parts(self) -> Result<QuotientParts, String> {
        if self.version != 1 {
            return Err(format!("unknown quotient record version {}", self.version));
        }
        let mut p = vec![false; self.size];
        for &x in &self.p {
            *p.get_mut(x as usize)
                .ok_or_else(|| format!("P element {x} outside a monoid of {}", self.size))? = true;
        }
        Ok(QuotientParts {
            bound: self.bound,
            size: self.size,
            table: self.table,
            p,
            phi: self.phi,
            words: self.words,
            expansions: self.expansions,
        })
    }

    /// The quotient of `game` this record describes; an error when it is malformed.
    pub fn into_quotient(self, game: &Game) -> Result<MisereQuotient, String> {
        MisereQuotient::from_parts(game, self.into_parts()?).map_err(|e| e.to_string())
    }
}

/// A stored quotient's sizes, read without its data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoredQuotientInfo {
    pub bound: u64,
    pub q_size: u64,
    pub p_size: u64,
}

/// The JSON of a quotient's record.
pub(super) fn record_json(q: &MisereQuotient) -> Result<String, StoreError> {
    serde_json::to_string(&QuotientRecord::of(q)).map_err(|e| {
        StoreError::Corrupt(format!(
            "{}: serializing a quotient: {e}",
            q.game().canonical()
        ))
    })
}

/// The record in `data` (the JSON of a [`QuotientRecord`] of `Q_bound` of `code`); `Corrupt`
/// when it is too long, malformed, or of another bound.
pub(super) fn parse_record(
    code: &str,
    bound: u64,
    data: &str,
) -> Result<QuotientRecord, StoreError> {
    if data.len() > MAX_RECORD_BYTES {
        return Err(StoreError::Corrupt(format!(
            "{code}: stored quotient Q_{bound} is {} bytes",
            data.len()
        )));
    }
    let record: QuotientRecord = serde_json::from_str(data)
        .map_err(|e| StoreError::Corrupt(format!("{code}: stored quotient Q_{bound}: {e}")))?;
    if record.bound != bound {
        return Err(StoreError::Corrupt(format!(
            "{code}: the row of Q_{bound} holds Q_{}",
            record.bound
        )));
    }
    Ok(record)
}

/// Stores a quotient on an open write transaction (see [`Store::save_quotient`]).
pub(super) async fn write_quotient(
    c: &mut sqlx::AnyConnection,
    q: &MisereQuotient,
) -> Result<(), StoreError> {
    let code = q.game().canonical();
    let bound = i64::try_from(q.bound())
        .map_err(|_| StoreError::Corrupt(format!("{code}: bound out of range")))?;
    let data = record_json(q)?;
    sqlx::query(
        "INSERT INTO misere_quotients (code, bound, q_size, p_size, data, updated_at) \
         VALUES ($1, $2, $3, $4, $5, $6) \
         ON CONFLICT (code, bound) DO UPDATE SET \
           q_size = excluded.q_size, p_size = excluded.p_size, data = excluded.data, \
           updated_at = excluded.updated_at",
    )
    .bind(code.as_str())
    .bind(bound)
    .bind(q.size() as i64)
    .bind(q.p_size() as i64)
    .bind(data)
    .bind(now_ms())
    .execute(c)
    .await?;
    Ok(())
}

impl Store {
    /// The stored quotient `Q_bound` of `game` (by its canonical code), if any.
    pub async fn load_quotient(
        &self,
        game: &Game,
        bound: u64,
    ) -> Result<Option<MisereQuotient>, StoreError> {
        let r = self.load_quotient_inner(game, bound).await;
        self.track_read(r)
    }

    async fn load_quotient_inner(
        &self,
        game: &Game,
        bound: u64,
    ) -> Result<Option<MisereQuotient>, StoreError> {
        let code = game.canonical();
        let bound_i = i64::try_from(bound)
            .map_err(|_| StoreError::Corrupt(format!("{code}: bound {bound} out of range")))?;
        let pool = self.pool();
        let Some(row) =
            sqlx::query("SELECT data FROM misere_quotients WHERE code = $1 AND bound = $2")
                .bind(code.as_str())
                .bind(bound_i)
                .fetch_optional(&pool)
                .await?
        else {
            return Ok(None);
        };
        let data: String = row.try_get("data")?;
        parse_record(&code, bound, &data)?
            .into_quotient(game)
            .map(Some)
            .map_err(|e| StoreError::Corrupt(format!("{code}: stored quotient Q_{bound}: {e}")))
    }

    /// Stores a quotient (replacing the row of the same code and bound: quotients are
    /// deterministic, so a concurrent writer writes the same data).
    pub async fn save_quotient(&self, q: &MisereQuotient) -> Result<(), StoreError> {
        let r = async {
            let mut tx = self.begin_write().await?;
            let r = write_quotient(tx.conn(), q).await;
            tx.finish(r).await
        }
        .await;
        self.track_commit(r)
    }

    /// The bounds and sizes of the stored quotients of a canonical code, ascending by bound.
    pub async fn quotient_infos(&self, code: &str) -> Result<Vec<StoredQuotientInfo>, StoreError> {
        let r = async {
            let rows = sqlx::query(
                "SELECT bound, q_size, p_size FROM misere_quotients WHERE code = $1 ORDER BY bound",
            )
            .bind(code)
            .fetch_all(&self.pool())
            .await?;
            rows.iter()
                .map(|row| {
                    let get = |c: &str| -> Result<u64, StoreError> {
                        let v: i64 = row.try_get(c)?;
                        u64::try_from(v)
                            .map_err(|_| StoreError::Corrupt(format!("{code}: {c} = {v} < 0")))
                    };
                    Ok(StoredQuotientInfo {
                        bound: get("bound")?,
                        q_size: get("q_size")?,
                        p_size: get("p_size")?,
                    })
                })
                .collect()
        }
        .await;
        self.track_read(r)
    }
}
