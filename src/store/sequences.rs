//! Computed G-sequences. Values are u32 little-endian, stored in chunks of [`CHUNK`] values
//! so that a checkpoint rewrites only the last (partial) chunk and the new ones.

use serde::{Deserialize, Serialize};
use sqlx::Row;

use super::{now_ms, Store, StoreError};
use crate::core::octal::Periodicity;

/// Values per stored chunk (256 KiB of u32).
pub const CHUNK: usize = 65_536;

/// A sequence as stored: the values g(0..len) and the periodicity proof (opaque JSON).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredSequence {
    pub values: Vec<u32>,
    pub periodicity: Option<String>,
}

/// A proved periodicity as the store records it: JSON in the `periodicity` columns of
/// `sequences` and `jobs`. The store's own type, so that the recorded format does not follow
/// the HTTP types; its fields are those of the API's `periodicity` object, which reads it back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PeriodicityRecord {
    /// `periodic` or `arithmetic-periodic`.
    pub status: String,
    pub preperiod: Option<u64>,
    pub period: Option<u64>,
    pub saltus: Option<u64>,
    pub proved_at: Option<u64>,
    pub theorem: Option<String>,
}

impl PeriodicityRecord {
    /// The record of a proved verdict; `None` while periodicity is unknown (nothing is stored).
    pub fn of(p: &Periodicity) -> Option<Self> {
        p.proof().map(|proof| PeriodicityRecord {
            status: p.status().into(),
            preperiod: Some(proof.preperiod),
            period: Some(proof.period),
            saltus: Some(proof.saltus),
            proved_at: Some(proof.proved_at),
            theorem: Some(proof.theorem.name().into()),
        })
    }

    /// [`PeriodicityRecord::of`] as the stored JSON text.
    pub fn json_of(p: &Periodicity) -> Option<String> {
        Self::of(p).map(|r| serde_json::to_string(&r).unwrap_or_default())
    }

    /// Reads a stored record; `None` when the text is not one.
    pub fn from_json(text: &str) -> Option<Self> {
        serde_json::from_str(text).ok()
    }
}

fn encode(values: &[u32]) -> Vec<u8> {
    let mut out = Vec::with_capacity(values.len() * 4);
    for v in values {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out
}

impl Store {
    /// The stored sequence for a canonical code, if any.
    pub async fn load_sequence(&self, code: &str) -> Result<Option<StoredSequence>, StoreError> {
        let r = self.load_sequence_inner(code).await;
        self.track_read(r)
    }

    async fn load_sequence_inner(&self, code: &str) -> Result<Option<StoredSequence>, StoreError> {
        let pool = self.pool();
        let Some(row) = sqlx::query("SELECT computed, periodicity FROM sequences WHERE code = $1")
            .bind(code)
            .fetch_optional(&pool)
            .await?
        else {
            return Ok(None);
        };
        let computed: i64 = row.try_get("computed")?;
        let periodicity: Option<String> = row.try_get("periodicity")?;
        let computed = usize::try_from(computed)
            .map_err(|_| StoreError::Corrupt(format!("{code}: computed < 0")))?;
        let rows =
            sqlx::query("SELECT chunk, data FROM sequence_chunks WHERE code = $1 ORDER BY chunk")
                .bind(code)
                .fetch_all(&pool)
                .await?;
        let mut values: Vec<u32> = Vec::with_capacity(computed);
        for (i, row) in rows.iter().enumerate() {
            let chunk: i64 = row.try_get("chunk")?;
            let data: Vec<u8> = row.try_get("data")?;
            if chunk != i as i64 || data.len() % 4 != 0 {
                return Err(StoreError::Corrupt(format!(
                    "{code}: chunk {chunk} out of place or misaligned"
                )));
            }
            values.extend(
                data.chunks_exact(4)
                    .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]])),
            );
        }
        if values.len() < computed {
            return Err(StoreError::Corrupt(format!(
                "{code}: {} values stored, {computed} recorded",
                values.len()
            )));
        }
        values.truncate(computed);
        Ok(Some(StoredSequence {
            values,
            periodicity,
        }))
    }

    /// Stores `values` (the whole prefix g(0..len)), writing only chunks from index
    /// `already_stored` on. Never shrinks what is stored: a shorter write is ignored, so
    /// concurrent writers of the same (deterministic) sequence cannot lose values. When the
    /// prefix the caller believes stored is gone (a wiped or replaced store), everything is
    /// written again: values held in memory re-register themselves.
    pub async fn save_sequence(
        &self,
        code: &str,
        values: &[u32],
        already_stored: usize,
        periodicity: Option<&str>,
    ) -> Result<(), StoreError> {
        let mut r = self
            .save_sequence_once(code, values, already_stored, periodicity)
            .await;
        if let Err(StoreError::PrefixMissing { .. }) = r {
            r = self.save_sequence_once(code, values, 0, periodicity).await;
        }
        self.track_commit(r)
    }

    async fn save_sequence_once(
        &self,
        code: &str,
        values: &[u32],
        already_stored: usize,
        periodicity: Option<&str>,
    ) -> Result<(), StoreError> {
        let mut tx = self.begin_write().await?;
        let r = write_sequence(tx.conn(), code, values, already_stored, periodicity).await;
        tx.finish(r).await
    }
}

/// The body of [`Store::save_sequence`], on an open connection or transaction so a job
/// checkpoint can write values and renew its lease atomically.
pub(super) async fn write_sequence(
    conn: &mut sqlx::AnyConnection,
    code: &str,
    values: &[u32],
    already_stored: usize,
    periodicity: Option<&str>,
) -> Result<(), StoreError> {
    let offset = tail_offset(already_stored.min(values.len()));
    write_tail(conn, code, offset, &values[offset..], periodicity).await
}

/// Where the chunks that still need writing start, for `already_stored` stored values.
pub fn tail_offset(already_stored: usize) -> usize {
    already_stored / CHUNK * CHUNK
}

/// Writes values `offset..offset + tail.len()` (`offset` a multiple of [`CHUNK`]) and records
/// the new length, never shrinking what is stored. Refuses ([`StoreError::PrefixMissing`]) to
/// write a tail whose prefix is not stored, which would record values that are not there.
pub(super) async fn write_tail(
    conn: &mut sqlx::AnyConnection,
    code: &str,
    offset: usize,
    tail: &[u32],
    periodicity: Option<&str>,
) -> Result<(), StoreError> {
    debug_assert_eq!(offset % CHUNK, 0);
    let len = offset + tail.len();
    if offset > 0 {
        let stored: i64 = sqlx::query("SELECT computed FROM sequences WHERE code = $1")
            .bind(code)
            .fetch_optional(&mut *conn)
            .await?
            .map(|r| r.try_get("computed"))
            .transpose()?
            .unwrap_or(0);
        if stored < offset as i64 {
            return Err(StoreError::PrefixMissing {
                code: code.to_owned(),
                stored: stored.max(0) as u64,
                offset: offset as u64,
            });
        }
    }
    for (i, slice) in tail.chunks(CHUNK).enumerate() {
        sqlx::query(
            "INSERT INTO sequence_chunks (code, chunk, data) VALUES ($1, $2, $3) \
             ON CONFLICT (code, chunk) DO UPDATE SET data = excluded.data \
             WHERE length(excluded.data) > length(sequence_chunks.data)",
        )
        .bind(code)
        .bind((offset / CHUNK + i) as i64)
        .bind(encode(slice))
        .execute(&mut *conn)
        .await?;
    }
    sqlx::query(
        "INSERT INTO sequences (code, computed, periodicity, updated_at) VALUES ($1, $2, $3, $4) \
         ON CONFLICT (code) DO UPDATE SET \
           computed = CASE WHEN excluded.computed > sequences.computed THEN excluded.computed ELSE sequences.computed END, \
           periodicity = COALESCE(excluded.periodicity, sequences.periodicity), \
           updated_at = excluded.updated_at",
    )
    .bind(code)
    .bind(len as i64)
    .bind(periodicity)
    .bind(now_ms())
    .execute(&mut *conn)
    .await?;
    Ok(())
}
