//! A window-mode job's kept values (`crate::core::octal::window`): the chunks of its front and
//! of its tail in `job_window_chunks` (the chunk format of `sequence_chunks`), and its engine
//! state in `jobs.window_state`. A checkpoint writes the tail's new chunks and deletes the
//! ones the tail has left behind, in the transaction that renews the lease; resuming reads the
//! front and the tail back.

use futures_util::TryStreamExt;
use sqlx::Row;

use super::chunk::{self, Encoded, CHUNK};
use super::sequences::decode_row;
use super::{Store, StoreError};
use crate::core::octal::{Values, ValuesRef};

/// What a window-mode job needs besides its values to resume: `values` counts G(0..computed);
/// the front is G(0..front) and the tail G(base..computed) (when `base ≤ front` nothing was
/// dropped yet and the chunks hold G(0..computed)); `mask` is the rare/common mask the engine
/// runs with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WindowState {
    pub front: u64,
    pub window: u64,
    pub base: u64,
    pub computed: u64,
    pub mask: u32,
}

const STATE_MAGIC: &[u8; 4] = b"GWS1";
const STATE_LEN: usize = 4 + 4 * 8 + 4;

impl WindowState {
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(STATE_LEN);
        out.extend_from_slice(STATE_MAGIC);
        for x in [self.front, self.window, self.base, self.computed] {
            out.extend_from_slice(&x.to_le_bytes());
        }
        out.extend_from_slice(&self.mask.to_le_bytes());
        out
    }

    pub fn from_bytes(bytes: &[u8], job: &str) -> Result<WindowState, StoreError> {
        let corrupt = |why: &str| StoreError::Corrupt(format!("job {job}: window state {why}"));
        if bytes.len() != STATE_LEN || &bytes[..4] != STATE_MAGIC {
            return Err(corrupt("is not one"));
        }
        let word = |i: usize| {
            let at = 4 + 8 * i;
            u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap_or([0; 8]))
        };
        let s = WindowState {
            front: word(0),
            window: word(1),
            base: word(2),
            computed: word(3),
            mask: u32::from_le_bytes(bytes[36..40].try_into().unwrap_or([0; 4])),
        };
        let aligned = |x: u64| x % CHUNK as u64 == 0;
        if !aligned(s.front) || !aligned(s.base) || s.base > s.computed || s.front < s.window {
            return Err(corrupt("is inconsistent"));
        }
        Ok(s)
    }

    /// Chunk indices held: the front's and the tail's (one range when nothing was dropped).
    fn chunk_ranges(&self) -> [(u64, u64); 2] {
        let c = CHUNK as u64;
        let end = self.computed.div_ceil(c);
        if self.base <= self.front {
            [(0, end), (end, end)]
        } else {
            [(0, self.front / c), (self.base / c, end)]
        }
    }
}

/// A window-mode job's kept values, as read back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredWindow {
    pub state: WindowState,
    /// G(0..front) — or, when nothing was dropped, G(0..computed) (and `tail` is empty).
    pub front: Values,
    /// G(base..computed).
    pub tail: Values,
}

/// What a checkpoint writes for a window-mode job: the state, and kept values — each part
/// the values from heap `offset` (a multiple of [`CHUNK`]) on: new values of the front, and of
/// the tail.
#[derive(Debug, Clone, Copy)]
pub struct WindowWrite<'a> {
    pub state: WindowState,
    pub parts: [(usize, ValuesRef<'a>); 2],
}

impl Store {
    /// The kept values and state of a window-mode job, `None` before its first checkpoint.
    pub async fn load_window(&self, job_id: &str) -> Result<Option<StoredWindow>, StoreError> {
        let r = self.load_window_inner(job_id).await;
        self.track_read(r)
    }

    async fn load_window_inner(&self, job_id: &str) -> Result<Option<StoredWindow>, StoreError> {
        let pool = self.pool();
        let Some(row) = sqlx::query("SELECT window_state FROM jobs WHERE id = $1")
            .bind(job_id)
            .fetch_optional(&pool)
            .await?
        else {
            return Ok(None);
        };
        let Some(bytes): Option<Vec<u8>> = row.try_get("window_state")? else {
            return Ok(None);
        };
        let state = WindowState::from_bytes(&bytes, job_id)?;
        let mut parts = [Values::new(), Values::new()];
        for (part, (from, to)) in parts.iter_mut().zip(state.chunk_ranges()) {
            let mut rows = sqlx::query(
                "SELECT chunk, data, format, value_count FROM job_window_chunks \
                 WHERE job_id = $1 AND chunk >= $2 AND chunk < $3 ORDER BY chunk",
            )
            .bind(job_id)
            .bind(from as i64)
            .bind(to as i64)
            .fetch(&pool);
            let mut next = from as i64;
            while let Some(row) = rows.try_next().await? {
                let (index, values) = decode_row(job_id, &row)?;
                let full = part.len() % CHUNK == 0 && (index == next);
                if !full {
                    return Err(StoreError::Corrupt(format!(
                        "job {job_id}: window chunk {index} out of place (expected {next})"
                    )));
                }
                next += 1;
                part.extend_from_ref(values.as_ref());
            }
            if next != to as i64 {
                return Err(StoreError::Corrupt(format!(
                    "job {job_id}: window chunks {next}..{to} missing"
                )));
            }
        }
        let [mut front, mut tail] = parts;
        let [first, second] = state.chunk_ranges();
        let c = CHUNK as u64;
        let want_front = (first.1 - first.0) * c;
        if state.base <= state.front {
            front.truncate(state.computed as usize);
            if front.len() as u64 != state.computed {
                return Err(StoreError::Corrupt(format!(
                    "job {job_id}: {} values kept, {} recorded",
                    front.len(),
                    state.computed
                )));
            }
        } else {
            tail.truncate((state.computed - second.0 * c) as usize);
            if front.len() as u64 != want_front || tail.len() as u64 != state.computed - state.base
            {
                return Err(StoreError::Corrupt(format!(
                    "job {job_id}: the kept front or tail is short"
                )));
            }
        }
        Ok(Some(StoredWindow { state, front, tail }))
    }

    /// The window-mode job of `code` that computed furthest without storing every value, if it
    /// passed `heap`: `(id, computed, window)` (for the values download to say where values
    /// went that are not kept).
    pub async fn window_job_beyond(
        &self,
        code: &str,
        heap: u64,
    ) -> Result<Option<(String, u64, u64)>, StoreError> {
        let r = async {
            let row = sqlx::query(
                "SELECT id, computed, keep_window FROM jobs WHERE code = $1 AND keep_window IS NOT NULL \
                 AND store_values = 0 AND computed > $2 ORDER BY computed DESC, id LIMIT 1",
            )
            .bind(code)
            .bind(heap.min(i64::MAX as u64) as i64)
            .fetch_optional(&self.pool())
            .await?;
            row.map(|row| -> Result<_, StoreError> {
                Ok((
                    row.try_get::<String, _>("id")?,
                    row.try_get::<i64, _>("computed")?.max(0) as u64,
                    row.try_get::<i64, _>("keep_window")?.max(0) as u64,
                ))
            })
            .transpose()
        }
        .await;
        self.track_read(r)
    }

    /// The statistics a job saved with its last checkpoint (`Statistics::to_bytes`).
    pub async fn job_statistics(&self, job_id: &str) -> Result<Option<Vec<u8>>, StoreError> {
        let r = async {
            let row = sqlx::query("SELECT statistics FROM jobs WHERE id = $1")
                .bind(job_id)
                .fetch_optional(&self.pool())
                .await?;
            Ok(match row {
                Some(row) => row.try_get::<Option<Vec<u8>>, _>("statistics")?,
                None => None,
            })
        }
        .await;
        self.track_read(r)
    }
}

/// Writes a window checkpoint on an open transaction: the chunks of `w.values` (heaps
/// `w.offset..`), the state, and deletes the chunks between the front and the tail.
pub(super) async fn write_window(
    conn: &mut sqlx::AnyConnection,
    job_id: &str,
    w: &WindowWrite<'_>,
) -> Result<(), StoreError> {
    for &(offset, values) in &w.parts {
        write_chunks(conn, job_id, offset, values).await?;
    }
    let [(_, front_end), (tail_start, _)] = w.state.chunk_ranges();
    if tail_start > front_end {
        sqlx::query(
            "DELETE FROM job_window_chunks WHERE job_id = $1 AND chunk >= $2 AND chunk < $3",
        )
        .bind(job_id)
        .bind(front_end as i64)
        .bind(tail_start as i64)
        .execute(&mut *conn)
        .await?;
    }
    sqlx::query("UPDATE jobs SET window_state = $1 WHERE id = $2")
        .bind(w.state.to_bytes())
        .bind(job_id)
        .execute(&mut *conn)
        .await?;
    Ok(())
}

/// Writes `values` (heaps `offset..`) as window chunks.
async fn write_chunks(
    conn: &mut sqlx::AnyConnection,
    job_id: &str,
    offset: usize,
    values: ValuesRef<'_>,
) -> Result<(), StoreError> {
    debug_assert_eq!(offset % CHUNK, 0);
    for i in 0..values.len().div_ceil(CHUNK) {
        let slice = values.slice(i * CHUNK..((i + 1) * CHUNK).min(values.len()));
        let Encoded {
            data,
            format,
            count,
        } = chunk::encode(slice)?;
        sqlx::query(
            "INSERT INTO job_window_chunks (job_id, chunk, format, value_count, data) \
             VALUES ($1, $2, $3, $4, $5) \
             ON CONFLICT (job_id, chunk) DO UPDATE SET \
               data = excluded.data, format = excluded.format, value_count = excluded.value_count",
        )
        .bind(job_id)
        .bind((offset / CHUNK + i) as i64)
        .bind(format)
        .bind(count as i64)
        .bind(data)
        .execute(&mut *conn)
        .await?;
    }
    Ok(())
}
