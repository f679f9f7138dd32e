//! Computed G-sequences, stored in chunks of [`CHUNK`] values so that a checkpoint rewrites
//! only the last (partial) chunk and the new ones. Each chunk is stored in the narrowest width
//! that holds its own largest value and compressed (see [`super::chunk`] for the format, and
//! for the legacy u32 chunks of older databases, which are still read).

use futures_util::TryStreamExt;
use serde::{Deserialize, Serialize};
use sqlx::Row;

use super::chunk::{self, Encoded, CHUNK};
use super::{now_ms, Store, StoreError};
use crate::core::octal::values::width_for;
use crate::core::octal::{Periodicity, Values, ValuesRef, MAX_VALUES};

/// A sequence as stored: the values g(0..len), in the narrowest width that holds them all, and
/// the periodicity proof (opaque JSON).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredSequence {
    pub values: Values,
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
        if computed > MAX_VALUES {
            // Never reserve room for an absurd length (an allocation failure aborts).
            return Err(StoreError::Corrupt(format!(
                "{code}: {computed} values recorded, more than any engine computes ({MAX_VALUES})"
            )));
        }
        // Row by row, straight into the narrow values: never all chunks (nor a u32 copy of the
        // sequence) in memory at once.
        let mut rows = sqlx::query(
            "SELECT chunk, data, format, value_count FROM sequence_chunks \
             WHERE code = $1 AND chunk < $2 ORDER BY chunk",
        )
        .bind(code)
        .bind(computed.div_ceil(CHUNK) as i64)
        .fetch(&pool);
        let mut values = Values::new();
        values.reserve(computed);
        let mut next = 0i64;
        while let Some(row) = rows.try_next().await? {
            let (index, decoded) = decode_row(code, &row)?;
            if index != next || values.len() != index as usize * CHUNK {
                return Err(StoreError::Corrupt(format!(
                    "{code}: chunk {index} out of place (expected chunk {next} at value {})",
                    values.len()
                )));
            }
            next += 1;
            let take = decoded.len().min(computed - values.len());
            let decoded = decoded.as_ref().slice(..take);
            if decoded.width() > values.width() {
                let need = width_for(decoded.iter().max().unwrap_or(0));
                if need > values.width() {
                    widen_reserving(&mut values, need, computed);
                }
            }
            values.extend_from_ref(decoded);
        }
        if values.len() < computed {
            return Err(StoreError::Corrupt(format!(
                "{code}: {} values stored, {computed} recorded",
                values.len()
            )));
        }
        values.shrink_to_fit();
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
    /// `values` is a [`ValuesRef`] (or anything that converts into one: `&[u32]`, `&Values`).
    pub async fn save_sequence<'v>(
        &self,
        code: &str,
        values: impl Into<ValuesRef<'v>>,
        already_stored: usize,
        periodicity: Option<&str>,
    ) -> Result<(), StoreError> {
        let values = values.into();
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
        values: ValuesRef<'_>,
        already_stored: usize,
        periodicity: Option<&str>,
    ) -> Result<(), StoreError> {
        let mut tx = self.begin_write().await?;
        let r = write_sequence(tx.conn(), code, values, already_stored, periodicity).await;
        tx.finish(r).await
    }
}

/// A row of `sequence_chunks` (chunk, data, format, value_count): its index and its values.
pub(super) fn decode_row(code: &str, row: &sqlx::any::AnyRow) -> Result<(i64, Values), StoreError> {
    let index: i64 = row.try_get("chunk")?;
    let data: Vec<u8> = row.try_get("data")?;
    let format: i64 = row.try_get("format")?;
    let count: Option<i64> = row.try_get("value_count")?;
    let values = chunk::decode(format, &data, count, &format!("{code}: chunk {index}"))?;
    Ok((index, values))
}

/// Re-stores `values` with `width` (2 or 4) bytes a value and room for `total` values: a
/// widening while loading copies once into a buffer of the final size (no growth by doubling
/// after).
fn widen_reserving(values: &mut Values, width: usize, total: usize) {
    let mut wider = match width {
        2 => Values::U16(Vec::with_capacity(total)),
        _ => Values::U32(Vec::with_capacity(total)),
    };
    wider.extend_from_ref(values.as_ref());
    *values = wider;
}

/// How much of a sequence the store holds, read without its values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SequenceExtent {
    /// The stored prefix is g(0..computed).
    pub computed: usize,
    /// The proof record (opaque JSON, see [`PeriodicityRecord`]), once proved.
    pub periodicity: Option<String>,
}

impl Store {
    /// The extent of the stored sequence for a canonical code, if any: one small row, no values.
    pub async fn sequence_extent(&self, code: &str) -> Result<Option<SequenceExtent>, StoreError> {
        let Some(row) = sqlx::query("SELECT computed, periodicity FROM sequences WHERE code = $1")
            .bind(code)
            .fetch_optional(&self.pool())
            .await?
        else {
            return Ok(None);
        };
        let computed: i64 = row.try_get("computed")?;
        Ok(Some(SequenceExtent {
            computed: usize::try_from(computed)
                .map_err(|_| StoreError::Corrupt(format!("{code}: computed < 0")))?,
            periodicity: row.try_get("periodicity")?,
        }))
    }

    /// The widest value width (1, 2 or 4 bytes) among the stored chunks `first..=last`, read
    /// from their headers without decoding a value: a bound on the largest value of a range
    /// too long to scan (the values download's `x-grundy-value-bytes`). A legacy (u32) chunk
    /// counts as 4; `None` when a chunk of the range is missing.
    pub async fn max_chunk_width(
        &self,
        code: &str,
        first: usize,
        last: usize,
    ) -> Result<Option<u8>, StoreError> {
        let rows = sqlx::query(
            "SELECT format, substr(data, 2, 1) AS width FROM sequence_chunks \
             WHERE code = $1 AND chunk >= $2 AND chunk <= $3",
        )
        .bind(code)
        .bind(first as i64)
        .bind(last as i64)
        .fetch_all(&self.pool())
        .await?;
        widest(code, &rows, first, last)
    }

    /// The stored chunks `first..=last` that exist, decoded, in order: values
    /// `chunk·CHUNK ..` of each. For reading a range a few chunks at a time without loading
    /// the whole sequence (the values download streams through it).
    pub async fn read_chunks(
        &self,
        code: &str,
        first: usize,
        last: usize,
    ) -> Result<Vec<(usize, Vec<u32>)>, StoreError> {
        let rows = sqlx::query(
            "SELECT chunk, data, format, value_count FROM sequence_chunks \
             WHERE code = $1 AND chunk >= $2 AND chunk <= $3 ORDER BY chunk",
        )
        .bind(code)
        .bind(first as i64)
        .bind(last as i64)
        .fetch_all(&self.pool())
        .await?;
        rows.iter()
            .map(|row| {
                let (chunk, values) = decode_row(code, row)?;
                Ok((chunk.max(0) as usize, values.to_u32_vec()))
            })
            .collect()
    }
}

/// The widest width among chunk header rows (`format`, `width`) that should number
/// `first..=last`; `None` when some are missing. A legacy (u32) chunk counts as 4. `what`
/// names the sequence or job in an error.
pub(super) fn widest(
    what: &str,
    rows: &[sqlx::any::AnyRow],
    first: usize,
    last: usize,
) -> Result<Option<u8>, StoreError> {
    if rows.len() != last.saturating_sub(first) + 1 {
        return Ok(None);
    }
    let mut widest = 1u8;
    for row in rows {
        let format: i64 = row.try_get("format")?;
        let width = if format == chunk::FORMAT_LEGACY {
            4
        } else {
            let w: Vec<u8> = row.try_get("width")?;
            match w.as_slice() {
                [w @ (1 | 2 | 4)] => *w,
                _ => {
                    return Err(StoreError::Corrupt(format!(
                        "{what}: a chunk header in {first}..={last} has no valid width"
                    )))
                }
            }
        };
        widest = widest.max(width);
    }
    Ok(Some(widest))
}

/// The body of [`Store::save_sequence`], on an open connection or transaction so a job
/// checkpoint can write values and renew its lease atomically.
pub(super) async fn write_sequence(
    conn: &mut sqlx::AnyConnection,
    code: &str,
    values: ValuesRef<'_>,
    already_stored: usize,
    periodicity: Option<&str>,
) -> Result<(), StoreError> {
    let offset = tail_offset(already_stored.min(values.len()));
    write_tail(conn, code, offset, values.slice(offset..), periodicity).await
}

/// Where the chunks that still need writing start, for `already_stored` stored values.
pub fn tail_offset(already_stored: usize) -> usize {
    already_stored / CHUNK * CHUNK
}

/// Writes values `offset..offset + tail.len()` (`offset` a multiple of [`CHUNK`]) and records
/// the new length, never shrinking what is stored: a chunk already stored is replaced only by
/// one holding more values (concurrent writers of the same deterministic sequence agree on
/// the values, so the longer chunk is always right). Refuses ([`StoreError::PrefixMissing`]) to
/// write a tail whose prefix is not stored, which would record values that are not there.
pub(super) async fn write_tail(
    conn: &mut sqlx::AnyConnection,
    code: &str,
    offset: usize,
    tail: ValuesRef<'_>,
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
    for i in 0..tail.len().div_ceil(CHUNK) {
        let slice = tail.slice(i * CHUNK..((i + 1) * CHUNK).min(tail.len()));
        let Encoded {
            data,
            format,
            count,
        } = chunk::encode(slice)?;
        // Legacy rows have no value_count: they hold length(data) / 4 values.
        sqlx::query(
            "INSERT INTO sequence_chunks (code, chunk, data, format, value_count) \
             VALUES ($1, $2, $3, $4, $5) \
             ON CONFLICT (code, chunk) DO UPDATE SET \
               data = excluded.data, format = excluded.format, value_count = excluded.value_count \
             WHERE excluded.value_count > \
               COALESCE(sequence_chunks.value_count, length(sequence_chunks.data) / 4)",
        )
        .bind(code)
        .bind((offset / CHUNK + i) as i64)
        .bind(data)
        .bind(format)
        .bind(count as i64)
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
