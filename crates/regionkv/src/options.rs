//! `DbOptions`: everything a Db is opened with — the clock (HBase tests inject an
//! environment edge the same way), the file system seam, cache and memstore budgets,
//! background threads and the region/compaction knobs under HBase's names.

use regionkv_cell::{SharedClock, SystemClock};
use regionkv_fs::Fs;
use regionkv_region::RegionConfig;
use regionkv_wal::{RecoveryMode, WalConfig};
use std::sync::Arc;
use std::time::Duration;

/// Options for [`crate::Db::open`]. `DbOptions::default()` is HBase's defaults with a
/// 32 MiB block cache and a 1 GiB Db-wide memstore budget.
#[derive(Clone)]
pub struct DbOptions {
    /// The engine clock (default: the system clock).
    pub clock: SharedClock,
    /// The file system (default: the real one, storefiles read through mmap).
    pub fs: Option<Arc<dyn Fs>>,
    /// Create the directory when it does not exist (default true).
    pub create_if_missing: bool,
    /// Block cache capacity in bytes (0: no cache).
    pub block_cache_bytes: u64,
    /// The Db-wide memstore budget (HBase's `hbase.regionserver.global.memstore.size`).
    pub global_memstore_bytes: u64,
    /// Background work: flush and compaction threads, and the compaction checker. When
    /// false, regions flush when their memstore is full and compact only on request —
    /// deterministic, for tests.
    pub background: bool,
    /// Flusher threads (`hbase.hstore.flusher.count`, 2).
    pub flush_threads: usize,
    /// Small and large compaction threads (`hbase.regionserver.thread.compaction.small`
    /// / `.large`, 1 each).
    pub compaction_threads: (usize, usize),
    /// How often the compaction checker looks for due compactions.
    pub compaction_check_interval: Duration,
    /// WAL settings.
    pub wal: WalConfig,
    /// What replay does with a corrupt WAL.
    pub wal_recovery: RecoveryMode,
    /// Region and compaction knobs.
    pub region: RegionConfig,
}

impl std::fmt::Debug for DbOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DbOptions")
            .field("create_if_missing", &self.create_if_missing)
            .field("block_cache_bytes", &self.block_cache_bytes)
            .field("global_memstore_bytes", &self.global_memstore_bytes)
            .field("background", &self.background)
            .finish_non_exhaustive()
    }
}

impl Default for DbOptions {
    fn default() -> Self {
        Self {
            clock: Arc::new(SystemClock),
            fs: None,
            create_if_missing: true,
            block_cache_bytes: 32 << 20,
            global_memstore_bytes: 1 << 30,
            background: true,
            flush_threads: 2,
            compaction_threads: (1, 1),
            compaction_check_interval: regionkv_region::services::DEFAULT_COMPACTION_CHECK_INTERVAL,
            wal: WalConfig::default(),
            wal_recovery: RecoveryMode::TolerateCorruptedTail,
            region: RegionConfig::default(),
        }
    }
}

impl DbOptions {
    /// Uses `clock` as the engine clock (e.g. a [`regionkv_cell::ManualClock`] in tests).
    pub fn clock(mut self, clock: SharedClock) -> Self {
        self.clock = clock;
        self
    }
    /// Uses `fs` instead of the real file system.
    pub fn fs(mut self, fs: Arc<dyn Fs>) -> Self {
        self.fs = Some(fs);
        self
    }
    /// Turns background flushes and compactions on or off.
    pub fn background(mut self, on: bool) -> Self {
        self.background = on;
        self
    }
    /// Sets the block cache capacity.
    pub fn block_cache_bytes(mut self, bytes: u64) -> Self {
        self.block_cache_bytes = bytes;
        self
    }
    /// Fails instead of creating a missing directory.
    pub fn create_if_missing(mut self, create: bool) -> Self {
        self.create_if_missing = create;
        self
    }
}
