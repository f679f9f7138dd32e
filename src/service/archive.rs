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
//! A read the store cannot answer now (unavailable, busy, full) is retried with back-off — the
//! job marked stalled meanwhile — until it succeeds or the server shuts down; a chunk that is
//! missing or fails its checksum is damage, returned at once (the job then starts its archive
//! over, see `workers.rs`): a value is never guessed.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use crate::core::octal::{Archive, ValuesRef};
use crate::store::{now_ms, Stall, Store, StoreError};

/// Values a window job may compute past its last committed checkpoint (the most a slice adds
/// to what its engine holds beyond the front and the window): 2^24, 16 MiB of u8 values.
pub const MAX_UNSTORED: u64 = 1 << 24;

/// The prefix of the message of a read that found the archive damaged (missing or corrupt).
pub const DAMAGED: &str = "archive damaged: ";

/// The archive of one window job.
#[derive(Debug)]
pub struct StoreArchive {
    store: Store,
    job_id: String,
    handle: tokio::runtime::Handle,
    stored: Arc<AtomicU64>,
    shutdown: Arc<AtomicBool>,
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
        }
    }
}

impl Archive for StoreArchive {
    fn offer(&mut self, _from: u64, _values: ValuesRef<'_>) -> Result<u64, String> {
        // The values are in the store once a checkpoint committed them.
        Ok(self.stored.load(Ordering::Acquire))
    }

    fn read(&mut self, from: u64, out: &mut [u16]) -> Result<(), String> {
        let mut delay = Duration::from_millis(250);
        let mut stall: Option<Stall> = None;
        loop {
            let r = self
                .handle
                .block_on(self.store.read_archive(&self.job_id, from, out));
            match r {
                Ok(()) => {
                    if stall.is_some() {
                        self.store.clear_stall(&self.job_id);
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
                        computed: from,
                    });
                    s.kind = e.kind();
                    s.detail = format!("reading back G({from}…): {e}");
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
