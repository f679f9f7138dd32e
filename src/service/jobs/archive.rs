//! A window job's archive (`crate::core::octal::archive`) in the store: the values its engine
//! dropped from memory are the job's own chunks in `job_window_chunks`
//! (`crate::store::windows`), read back a range of chunks per query.
//!
//! The engine runs on the blocking pool, so a read blocks on the store's async query
//! (`Handle::block_on`, allowed outside the runtime's own threads). Writes need nothing here:
//! every value reaches the store with the checkpoint that follows its computation, and
//! [`StoreArchive::offer`] lets the engine drop only values below the last committed
//! checkpoint ([`StoreArchive::stored`], moved on by the worker after each commit). The worker
//! in turn never runs a slice further than [`MAX_UNSTORED`] values past that point, which
//! bounds what the engine holds beyond its window.
//!
//! The engine's runs (`archive::READ_RUN`, a chunk's length) seldom start on a chunk boundary,
//! so consecutive runs share a chunk: the last [`CACHED_CHUNKS`] chunks read are kept decoded,
//! and each chunk is fetched and decoded once per pass instead of twice.
//!
//! A read the store cannot answer now (unavailable, busy, full) is retried with back-off — the
//! job marked stalled meanwhile — until it succeeds or the server shuts down; a chunk that is
//! missing or fails its checksum is damage, returned at once (the job then starts its archive
//! over, see `sequence.rs`): a value is never guessed.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use crate::core::octal::{Archive, ValuesRef};
use crate::store::{now_ms, Stall, Store, StoreError, CHUNK};

/// Values a window job may compute past its last committed checkpoint (the most a slice adds
/// to what its engine holds beyond the front and the window): 2^24, 16 MiB of u8 values.
pub const MAX_UNSTORED: u64 = 1 << 24;

/// The prefix of the message of a read that found the archive damaged (missing or corrupt).
pub const DAMAGED: &str = "archive damaged: ";

/// Decoded chunks kept (1 MiB as u16): two per stream of reads — a rare check's two sides,
/// or a few rare positions beyond the window.
pub const CACHED_CHUNKS: usize = 8;

/// The archive of one window job.
#[derive(Debug)]
pub struct StoreArchive {
    store: Store,
    job_id: String,
    handle: tokio::runtime::Handle,
    stored: Arc<AtomicU64>,
    shutdown: Arc<AtomicBool>,
    /// The last chunks read, decoded (index, values), most recent last.
    cache: VecDeque<(u64, Vec<u16>)>,
}

impl StoreArchive {
    /// The archive of `job_id`; `stored` is the heap below which every value is committed
    /// (shared with the worker, which moves it on after each checkpoint).
    pub fn new(
        store: Store,
        job_id: &str,
        handle: tokio::runtime::Handle,
        stored: Arc<AtomicU64>,
        shutdown: Arc<AtomicBool>,
    ) -> StoreArchive {
        StoreArchive {
            store,
            job_id: job_id.to_owned(),
            handle,
            stored,
            shutdown,
            cache: VecDeque::new(),
        }
    }

    /// Chunk `index`, from the cache (moved to its end) or not at all.
    fn cached(&mut self, index: u64) -> Option<&[u16]> {
        let at = self.cache.iter().position(|(i, _)| *i == index)?;
        let hit = self.cache.remove(at)?;
        self.cache.push_back(hit);
        self.cache.back().map(|(_, v)| &v[..])
    }

    /// Chunks `first..last` into the cache, one query, retried while the store fails (the job
    /// marked stalled meanwhile); a damaged chunk is returned as such. The cache keeps at
    /// least `keep` chunks (those of the read in hand).
    fn fetch(&mut self, first: u64, last: u64, keep: usize) -> Result<(), String> {
        let mut delay = Duration::from_millis(250);
        let mut stall: Option<Stall> = None;
        loop {
            let r = self
                .handle
                .block_on(self.store.read_archive_chunks(&self.job_id, first, last));
            match r {
                Ok(chunks) => {
                    if stall.is_some() {
                        self.store.clear_stall(&self.job_id);
                    }
                    for (k, values) in chunks.into_iter().enumerate() {
                        let index = first + k as u64;
                        self.cache.retain(|(i, _)| *i != index);
                        self.cache
                            .push_back((index, values.iter().map(|v| v as u16).collect()));
                        while self.cache.len() > CACHED_CHUNKS.max(keep) {
                            self.cache.pop_front();
                        }
                    }
                    return Ok(());
                }
                Err(StoreError::Corrupt(detail)) => return Err(format!("{DAMAGED}{detail}")),
                Err(e) => {
                    let s = stall.get_or_insert_with(|| Stall {
                        kind: e.kind(),
                        detail: String::new(),
                        since_ms: now_ms(),
                        retries: 0,
                        computed: first * CHUNK as u64,
                    });
                    s.kind = e.kind();
                    s.detail = format!("reading back chunks {first}..{last}: {e}");
                    s.retries += 1;
                    self.store.set_stall(&self.job_id, s.clone());
                    if self.shutdown.load(Ordering::SeqCst) {
                        return Err(format!("reading back at shutdown: {e}"));
                    }
                    std::thread::sleep(delay);
                    delay = (delay * 2).min(Duration::from_secs(5));
                }
            }
        }
    }
}

impl Archive for StoreArchive {
    fn offer(&mut self, _from: u64, _values: ValuesRef<'_>) -> Result<u64, String> {
        // The values are in the store once a checkpoint committed them.
        Ok(self.stored.load(Ordering::Acquire))
    }

    fn read(&mut self, from: u64, out: &mut [u16]) -> Result<(), String> {
        let c = CHUNK as u64;
        let to = from + out.len() as u64;
        let (first, last) = (from / c, to.div_ceil(c));
        // The chunks cached are made the most recent (so that fetching cannot evict them);
        // those not cached are fetched in one query (with any between them).
        let missing: Vec<u64> = (first..last)
            .filter(|&i| self.cached(i).is_none())
            .collect();
        if let (Some(&lo), Some(&hi)) = (missing.first(), missing.last()) {
            self.fetch(lo, hi + 1, (last - first) as usize)?;
        }
        for index in first..last {
            let start = index * c;
            let (lo, hi) = (from.max(start), to.min(start + c));
            let values = self
                .cached(index)
                .ok_or_else(|| format!("archive chunk {index} not at hand"))?;
            if hi - start > values.len() as u64 {
                return Err(format!(
                    "{DAMAGED}archive chunk {index} holds {} values",
                    values.len()
                ));
            }
            out[(lo - from) as usize..(hi - from) as usize]
                .copy_from_slice(&values[(lo - start) as usize..(hi - start) as usize]);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::octal::Values;
    use crate::store::{CheckpointArgs, NewJob, WindowState, WindowWrite};

    /// Reads of every shape through the cache — runs straddling chunks, ascending and
    /// descending, longer than the cache — equal the values written; a chunk gone is damage.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn reads_in_any_pattern_equal_the_values_written() {
        let dir = std::env::temp_dir().join("grundy-unit");
        std::fs::create_dir_all(&dir).unwrap();
        let url = format!("sqlite://{}/{}.db", dir.display(), uuid::Uuid::new_v4());
        let store = Store::connect(&url).await.unwrap();
        let new = NewJob {
            code: "0.167".into(),
            max_n: 1 << 30,
            keep_window: Some(CHUNK as u64),
            store_values: false,
        };
        store.create_job(&new, "a", 0).await.unwrap();
        store.claim_job("r", 60_000).await.unwrap().unwrap();
        let n = 20 * CHUNK + 123;
        let all: Vec<u32> = (0..n).map(|h| ((h * 13 + h / CHUNK) % 64) as u32).collect();
        let values = Values::from_u32(&all);
        let state = WindowState {
            front: CHUNK as u64,
            window: CHUNK as u64,
            base: 0,
            computed: n as u64,
            mask: 0x3d,
            far: Vec::new(),
        };
        store
            .checkpoint(CheckpointArgs {
                computed: n as u64,
                window: Some(WindowWrite {
                    state,
                    parts: [(0, values.as_ref()), (0, ValuesRef::U8(&[]))],
                    report: None,
                }),
                ..CheckpointArgs::of_tail("a", "r", "0.167", ValuesRef::U8(&[]))
            })
            .await
            .unwrap();
        let mut archive = StoreArchive::new(
            store.clone(),
            "a",
            tokio::runtime::Handle::current(),
            Arc::new(AtomicU64::new(n as u64)),
            Arc::new(AtomicBool::new(false)),
        );
        let all2 = all.clone();
        let store2 = store.clone();
        tokio::task::spawn_blocking(move || {
            let c = CHUNK;
            let mut reads: Vec<(usize, usize)> = Vec::new();
            // Ascending runs a little before a chunk boundary, descending ones, long ones.
            reads.extend((0..18).map(|k| (k * c + c - 256, c)));
            reads.extend((0..18).rev().map(|k| ((k + 1) * c + 77 - c, c)));
            reads.extend([(0, n), (5, 10 * c), (c - 1, 2), (n - 1, 1), (3 * c, c)]);
            for (from, len) in reads {
                let mut out = vec![0u16; len];
                archive.read(from as u64, &mut out).unwrap();
                assert!(
                    out.iter()
                        .zip(&all2[from..from + len])
                        .all(|(&a, &b)| u32::from(a) == b),
                    "{from}+{len}"
                );
            }
            assert_eq!(
                archive.offer(0, ValuesRef::U8(&[])).unwrap(),
                n as u64,
                "values may go up to what is stored"
            );
            // A chunk gone (not cached): damage, said as such.
            archive.cache.clear();
            tokio::runtime::Handle::current()
                .block_on(
                    sqlx::query("DELETE FROM job_window_chunks WHERE chunk = 7")
                        .execute(&store2.raw_pool_for_tests()),
                )
                .unwrap();
            let mut out = vec![0u16; c];
            let e = archive.read((7 * c - 5) as u64, &mut out).unwrap_err();
            assert!(e.starts_with(DAMAGED) && e.contains("chunk 7"), "{e}");
        })
        .await
        .unwrap();
        drop(store);
        let _ = std::fs::remove_file(dir.join(url.rsplit('/').next().unwrap()));
    }
}
