//! A window-mode job's values (`crate::core::octal::window`) and engine state.
//!
//! **Every value of a window job is on disk**, in `job_window_chunks` (the chunk format of
//! `sequence_chunks`: zstd byte planes with a CRC-32, `chunk.rs`): the front, the tail, and —
//! between them — the values the engine dropped from memory, its *archive*
//! (`crate::core::octal::archive`). A checkpoint writes the new chunks in the transaction
//! that renews the lease, and the engine drops no value before a checkpoint stored it (the
//! archive's `offer`, `crate::service::jobs::archive`), so a value read back is always one that was
//! committed. Why the store's chunk table and not a spill file beside the database: one
//! durable copy, written once (the tail's chunks were written anyway), the same on SQLite and
//! on PostgreSQL (a replica that takes a job over finds its archive), and the checkpoint's
//! transaction orders it with the state that points into it.
//!
//! Reading back is in chunk order, a range of chunks per query ([`Store::read_archive`]).
//! Resuming reads the front and the tail, and checks every archived chunk (present, in place,
//! its checksum) before the engine may read one ([`Store::check_archive`]).
//! `jobs.archive_bytes` counts the bytes the job's chunks take; `jobs.window_state` holds the
//! engine state ([`WindowState`]).

use futures_util::TryStreamExt;
use sqlx::Row;

use super::chunk::{self, Encoded, CHUNK};
use super::sequences::decode_row;
use super::{Store, StoreError};
use crate::core::octal::{Values, ValuesRef};

/// What a window-mode job needs besides its values to resume: `values` counts G(0..computed);
/// the front is G(0..front) and the tail G(base..computed) (when `base ≤ front` nothing was
/// dropped yet); `mask` is the rare/common mask the engine runs with and `far` the rare
/// positions beyond the window with their values (`Engine::far_rare`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WindowState {
    pub front: u64,
    pub window: u64,
    pub base: u64,
    pub computed: u64,
    pub mask: u32,
    pub far: Vec<(u64, u16)>,
}

/// Format 1 (before archives): the five numbers. Format 2: then the number of far rare
/// positions (u32) and each as (u64 position, u16 value), little-endian throughout.
const STATE_MAGIC_V1: &[u8; 4] = b"GWS1";
const STATE_MAGIC: &[u8; 4] = b"GWS2";
const STATE_LEN_V1: usize = 4 + 4 * 8 + 4;
/// Far rare positions a state may hold (a game with more has no sparse space to speak of).
const MAX_FAR: usize = 1 << 20;

impl WindowState {
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(STATE_LEN_V1 + 4 + 10 * self.far.len());
        out.extend_from_slice(STATE_MAGIC);
        for x in [self.front, self.window, self.base, self.computed] {
            out.extend_from_slice(&x.to_le_bytes());
        }
        out.extend_from_slice(&self.mask.to_le_bytes());
        out.extend_from_slice(&(self.far.len() as u32).to_le_bytes());
        for &(pos, val) in &self.far {
            out.extend_from_slice(&pos.to_le_bytes());
            out.extend_from_slice(&val.to_le_bytes());
        }
        out
    }

    pub fn from_bytes(bytes: &[u8], job: &str) -> Result<WindowState, StoreError> {
        let corrupt = |why: &str| StoreError::Corrupt(format!("job {job}: window state {why}"));
        if bytes.len() < STATE_LEN_V1
            || (&bytes[..4] != STATE_MAGIC && &bytes[..4] != STATE_MAGIC_V1)
        {
            return Err(corrupt("is not one"));
        }
        let word = |i: usize| {
            let at = 4 + 8 * i;
            u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap_or([0; 8]))
        };
        let mut s = WindowState {
            front: word(0),
            window: word(1),
            base: word(2),
            computed: word(3),
            mask: u32::from_le_bytes(bytes[36..40].try_into().unwrap_or([0; 4])),
            far: Vec::new(),
        };
        let rest = &bytes[STATE_LEN_V1..];
        if &bytes[..4] == STATE_MAGIC_V1 {
            if !rest.is_empty() {
                return Err(corrupt("is not one"));
            }
        } else {
            let Some((count, list)) = rest.split_first_chunk::<4>() else {
                return Err(corrupt("is truncated"));
            };
            let count = u32::from_le_bytes(*count) as usize;
            if count > MAX_FAR || list.len() != 10 * count {
                return Err(corrupt("has a bad list of rare positions"));
            }
            s.far = list
                .chunks_exact(10)
                .map(|e| {
                    let pos = u64::from_le_bytes(e[..8].try_into().unwrap_or([0; 8]));
                    (pos, u16::from_le_bytes([e[8], e[9]]))
                })
                .collect();
            if s.far.iter().any(|&(pos, _)| pos == 0 || pos >= s.computed) {
                return Err(corrupt("has a rare position out of range"));
            }
        }
        let aligned = |x: u64| x.is_multiple_of(CHUNK as u64);
        if !aligned(s.front) || !aligned(s.base) || s.base > s.computed || s.front < s.window {
            return Err(corrupt("is inconsistent"));
        }
        Ok(s)
    }

    /// The archived chunks: those between the front and the tail (none before a drop).
    pub fn archive_chunks(&self) -> (u64, u64) {
        let c = CHUNK as u64;
        if self.base <= self.front {
            (0, 0)
        } else {
            (self.front / c, self.base / c)
        }
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
/// the tail — and the read-back report (JSON, for the job document).
#[derive(Debug, Clone)]
pub struct WindowWrite<'a> {
    pub state: WindowState,
    pub parts: [(usize, ValuesRef<'a>); 2],
    pub report: Option<String>,
}

/// A window job's read-backs, kept with it as JSON (`jobs.archive`) and shown in its document:
/// counts over every run of the job, and why its archive was rebuilt, if it was.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ArchiveReport {
    /// Reads from the archive, values they returned, and their wall time in seconds.
    #[serde(default)]
    pub reads: u64,
    #[serde(default)]
    pub values_read: u64,
    #[serde(default)]
    pub read_seconds: f64,
    /// Rare checks that scanned past the values held in memory.
    #[serde(default)]
    pub deep_scans: u64,
    /// Rare positions beyond the window (each read back a run at a time).
    #[serde(default)]
    pub far_rare_positions: u64,
    /// Why the archive was found damaged and the job started over from heap 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rebuilt: Option<String>,
}

impl ArchiveReport {
    /// The report stored with a job (an unreadable one counts as empty).
    pub fn parse(json: Option<&str>) -> ArchiveReport {
        json.and_then(|j| serde_json::from_str(j).ok())
            .unwrap_or_default()
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| "{}".into())
    }
}

/// What [`Store::check_archive`] found wrong with a job's archive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArchiveDamage {
    /// The first chunk that is missing, out of place, or fails its checksum.
    pub chunk: u64,
    pub detail: String,
}

/// Where a window-mode job's values can be read: see [`Store::window_values`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WindowValues {
    pub job_id: String,
    pub computed: u64,
    pub periodicity: Option<String>,
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

    /// Checks a window job's archive — the chunks `from..to` (see
    /// [`WindowState::archive_chunks`]): each present, in place, and passing its checksum.
    /// `Ok(Some(damage))` names the first bad one; `Err` is the store failing to answer.
    /// Reads every chunk once (≈ 1 s per 2^30 values of `.167`).
    pub async fn check_archive(
        &self,
        job_id: &str,
        (from, to): (u64, u64),
    ) -> Result<Option<ArchiveDamage>, StoreError> {
        let r = async {
            let pool = self.pool();
            let mut rows = window_chunks(job_id, from, to).fetch(&pool);
            let mut next = from;
            while let Some(row) = rows.try_next().await? {
                let index: i64 = row.try_get("chunk")?;
                if index as u64 != next {
                    return Ok(Some(ArchiveDamage {
                        chunk: next,
                        detail: format!("archive chunk {next} is missing"),
                    }));
                }
                match decode_row(job_id, &row) {
                    Ok((_, v)) if v.len() == CHUNK => {}
                    Ok((_, v)) => {
                        return Ok(Some(ArchiveDamage {
                            chunk: next,
                            detail: format!("archive chunk {next} holds {} values", v.len()),
                        }))
                    }
                    Err(StoreError::Corrupt(detail)) => {
                        return Ok(Some(ArchiveDamage {
                            chunk: next,
                            detail,
                        }))
                    }
                    Err(e) => return Err(e),
                }
                next += 1;
            }
            Ok((next < to).then(|| ArchiveDamage {
                chunk: next,
                detail: format!("archive chunks {next}..{to} are missing"),
            }))
        }
        .await;
        self.track_read(r)
    }

    /// Chunks `first..last` of a window job, decoded, in order (one query). A chunk missing
    /// (or short, but for a last one holding the job's last values) or failing its checksum
    /// is [`StoreError::Corrupt`].
    pub async fn read_archive_chunks(
        &self,
        job_id: &str,
        first: u64,
        last: u64,
    ) -> Result<Vec<Values>, StoreError> {
        let r = async {
            let pool = self.pool();
            let mut rows = window_chunks(job_id, first, last).fetch(&pool);
            let mut chunks = Vec::with_capacity((last - first) as usize);
            while let Some(row) = rows.try_next().await? {
                let next = first + chunks.len() as u64;
                let (index, values) = decode_row(job_id, &row)?;
                if index as u64 != next {
                    break;
                }
                if let Some(prev) = chunks.last().map(Values::len) {
                    if prev != CHUNK {
                        return Err(StoreError::Corrupt(format!(
                            "job {job_id}: archive chunk {} holds {prev} values",
                            next - 1
                        )));
                    }
                }
                chunks.push(values);
            }
            let next = first + chunks.len() as u64;
            if next < last {
                return Err(StoreError::Corrupt(format!(
                    "job {job_id}: archive chunk {next} is missing"
                )));
            }
            Ok(chunks)
        }
        .await;
        self.track_read(r)
    }

    /// G(from..from + out.len()) of a window job, read back from its chunks in order (one
    /// query for the whole range). A missing chunk or one failing its checksum is
    /// [`StoreError::Corrupt`].
    pub async fn read_archive(
        &self,
        job_id: &str,
        from: u64,
        out: &mut [u16],
    ) -> Result<(), StoreError> {
        let c = CHUNK as u64;
        let to = from + out.len() as u64;
        let first = from / c;
        let chunks = self
            .read_archive_chunks(job_id, first, to.div_ceil(c))
            .await?;
        for (k, values) in chunks.iter().enumerate() {
            let start = (first + k as u64) * c;
            let (lo, hi) = (from.max(start), to.min(start + c));
            if hi > start + values.len() as u64 {
                return Err(StoreError::Corrupt(format!(
                    "job {job_id}: archive chunk {} holds {} values",
                    first + k as u64,
                    values.len()
                )));
            }
            let part = values
                .as_ref()
                .slice((lo - start) as usize..(hi - start) as usize);
            for (o, v) in out[(lo - from) as usize..(hi - from) as usize]
                .iter_mut()
                .zip(part.iter())
            {
                *o = v as u16;
            }
        }
        Ok(())
    }

    /// Starts a window job over from heap 0 because its archive is damaged (`note` says how):
    /// its chunks, state and statistics go, the note stays in its report. Only while `owner`
    /// holds its lease; `false` otherwise.
    pub async fn reset_window(
        &self,
        job_id: &str,
        owner: &str,
        note: &str,
    ) -> Result<bool, StoreError> {
        let report = ArchiveReport {
            rebuilt: Some(note.to_owned()),
            ..ArchiveReport::default()
        }
        .to_json();
        let mut tx = self.begin_write().await?;
        let r = async {
            let c = tx.conn();
            let done = sqlx::query(
                "UPDATE jobs SET window_state = NULL, statistics = NULL, computed = 0, \
                 archive_bytes = 0, archive = $1 \
                 WHERE id = $2 AND lease_owner = $3 AND status = 'running'",
            )
            .bind(report)
            .bind(job_id)
            .bind(owner)
            .execute(&mut *c)
            .await?
            .rows_affected()
                == 1;
            if done {
                sqlx::query("DELETE FROM job_window_chunks WHERE job_id = $1")
                    .bind(job_id)
                    .execute(&mut *c)
                    .await?;
            }
            Ok(done)
        }
        .await;
        let r = tx.finish(r).await;
        self.track_write(r)
    }

    /// Disk bytes held by window jobs: `(total over every job, [(id, bytes)] of the queued
    /// and running ones)` (for `/metrics`).
    pub async fn archive_bytes(&self) -> Result<(u64, Vec<(String, u64)>), StoreError> {
        let r = async {
            let total: i64 = sqlx::query(
                "SELECT CAST(COALESCE(SUM(archive_bytes), 0) AS BIGINT) AS bytes FROM jobs",
            )
            .fetch_one(&self.pool())
            .await?
            .try_get("bytes")?;
            let rows = sqlx::query(
                "SELECT id, archive_bytes FROM jobs WHERE archive_bytes > 0 \
                 AND status IN ('queued', 'running') ORDER BY id",
            )
            .fetch_all(&self.pool())
            .await?;
            let jobs = rows
                .iter()
                .map(|r| -> Result<_, StoreError> {
                    Ok((
                        r.try_get::<String, _>("id")?,
                        r.try_get::<i64, _>("archive_bytes")?.max(0) as u64,
                    ))
                })
                .collect::<Result<Vec<_>, _>>()?;
            Ok((total.max(0) as u64, jobs))
        }
        .await;
        self.track_read(r)
    }

    /// The window-mode job of `code` whose chunks hold the most values: its id, how many
    /// (G(0..computed), as of its last checkpoint — the state and the chunks are written in one
    /// transaction, so every chunk of that prefix is there) and its periodicity record. The
    /// values download reads a window job's values from its chunks ([`Store::read_window_chunks`]).
    pub async fn window_values(&self, code: &str) -> Result<Option<WindowValues>, StoreError> {
        let r = async {
            let rows = sqlx::query(
                "SELECT id, window_state, periodicity FROM jobs WHERE code = $1 \
                 AND keep_window IS NOT NULL AND window_state IS NOT NULL \
                 ORDER BY computed DESC, id LIMIT 4",
            )
            .bind(code)
            .fetch_all(&self.pool())
            .await?;
            let mut best: Option<WindowValues> = None;
            for row in rows {
                let job_id: String = row.try_get("id")?;
                let bytes: Vec<u8> = row.try_get("window_state")?;
                let state = WindowState::from_bytes(&bytes, &job_id)?;
                if best.as_ref().is_none_or(|b| state.computed > b.computed) {
                    best = Some(WindowValues {
                        job_id,
                        computed: state.computed,
                        periodicity: row.try_get("periodicity")?,
                    });
                }
            }
            Ok(best)
        }
        .await;
        self.track_read(r)
    }

    /// Chunks `first..=last` of a window job's values, decoded (values `chunk·CHUNK ..` of
    /// each), in order; a chunk missing or failing its checksum is [`StoreError::Corrupt`].
    pub async fn read_window_chunks(
        &self,
        job_id: &str,
        first: usize,
        last: usize,
    ) -> Result<Vec<(usize, Vec<u32>)>, StoreError> {
        let chunks = self
            .read_archive_chunks(job_id, first as u64, last as u64 + 1)
            .await?;
        Ok(chunks
            .into_iter()
            .enumerate()
            .map(|(k, v)| (first + k, v.to_u32_vec()))
            .collect())
    }

    /// [`Store::max_chunk_width`] over a window job's chunks.
    pub async fn max_window_chunk_width(
        &self,
        job_id: &str,
        first: usize,
        last: usize,
    ) -> Result<Option<u8>, StoreError> {
        let r = async {
            let rows = sqlx::query(
                "SELECT format, substr(data, 2, 1) AS width FROM job_window_chunks \
                 WHERE job_id = $1 AND chunk >= $2 AND chunk <= $3",
            )
            .bind(job_id)
            .bind(first as i64)
            .bind(last as i64)
            .fetch_all(&self.pool())
            .await?;
            super::sequences::widest(job_id, &rows, first, last)
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

/// Writes a window checkpoint on an open transaction: the new chunks of the front and the
/// tail, the state and the report, and the job's archive bytes. Nothing is deleted: the
/// chunks between the front and the tail are the archive.
pub(super) async fn write_window(
    conn: &mut sqlx::AnyConnection,
    job_id: &str,
    w: &WindowWrite<'_>,
) -> Result<(), StoreError> {
    let mut delta = 0i64;
    for &(offset, values) in &w.parts {
        delta += write_chunks(conn, job_id, offset, values).await?;
    }
    sqlx::query(
        "UPDATE jobs SET window_state = $1, archive_bytes = archive_bytes + $2, \
         archive = COALESCE($3, archive) WHERE id = $4",
    )
    .bind(w.state.to_bytes())
    .bind(delta)
    .bind(w.report.as_deref())
    .bind(job_id)
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// Writes `values` (heaps `offset..`) as window chunks; returns how many bytes the job's
/// chunks grew by (the chunks replaced, a partial last one, counted off).
async fn write_chunks(
    conn: &mut sqlx::AnyConnection,
    job_id: &str,
    offset: usize,
    values: ValuesRef<'_>,
) -> Result<i64, StoreError> {
    debug_assert_eq!(offset % CHUNK, 0);
    let chunks = values.len().div_ceil(CHUNK);
    if chunks == 0 {
        return Ok(0);
    }
    let first = (offset / CHUNK) as i64;
    let replaced: i64 = sqlx::query(
        "SELECT CAST(COALESCE(SUM(LENGTH(data)), 0) AS BIGINT) AS bytes FROM job_window_chunks \
         WHERE job_id = $1 AND chunk >= $2 AND chunk < $3",
    )
    .bind(job_id)
    .bind(first)
    .bind(first + chunks as i64)
    .fetch_one(&mut *conn)
    .await?
    .try_get("bytes")?;
    let mut written = 0i64;
    for i in 0..chunks {
        let slice = values.slice(i * CHUNK..((i + 1) * CHUNK).min(values.len()));
        let Encoded {
            data,
            format,
            count,
        } = chunk::encode(slice)?;
        written += data.len() as i64;
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
    Ok(written - replaced)
}

/// The query for a job's window chunks `from..to` (chunk numbers), in order: what a read-back
/// and the archive's check both walk.
fn window_chunks(
    job_id: &str,
    from: u64,
    to: u64,
) -> sqlx::query::Query<'_, sqlx::Any, sqlx::any::AnyArguments<'_>> {
    sqlx::query(
        "SELECT chunk, data, format, value_count FROM job_window_chunks \
         WHERE job_id = $1 AND chunk >= $2 AND chunk < $3 ORDER BY chunk",
    )
    .bind(job_id)
    .bind(from as i64)
    .bind(to as i64)
}
