//! `RegionServices`: what every region of a Db shares — the file system, the WAL, the
//! clock, the block cache, the memstore chunk pool, the global memstore accounting, and
//! the region server above the regions, reached only through the narrow
//! [`RegionServerServices`](crate::region_server_services::RegionServerServices) trait
//! (the background workers live in `regionkv-regionserver`, above this crate). Writers
//! wait (bounded) while a region is above its blocking size or the Db is above the
//! global limit.
//!
//! Which size each check uses. The global limit, its lower limit and the "largest first"
//! order use the memstores' **heap size** — the memory they hold: arena chunks at their
//! full length (slack included), skiplist entries, own buffers — as HBase's
//! `RegionServerAccounting` checks an on-heap memstore's water marks against the global
//! heap size and `MemStoreFlusher` sorts regions by heap size under on-heap pressure. A
//! budget of cell bytes alone left every store's chunk outside it: 1,000 families with one
//! cell each held 2 GB under a 1 GiB limit (issue 24). A region's flush size, its blocking
//! size and the per-family flush selection use **HBase's modeled heap size**
//! (`Region::memstore_hbase_heap_size`), as HBase 2 compares those with its memstore's
//! heap + off-heap size (`HRegion#isFlushSize`, `HRegion#checkResources`,
//! `FlushLargeStoresPolicy#shouldFlush`): the per-cell charge HBase's on-heap memstore
//! would make (skiplist entry, cell object, KeyValue bytes; `regionkv_memstore::size`), not
//! regionkv's own memory, so a region flushes after as many cells as HBase's would. The
//! **data size** (what a flush writes) is what a region reports and what says whether it
//! has anything to flush.

use crate::flush::policy::FlushPolicy;
use parking_lot::{Condvar, Mutex};
use regionkv_cell::SharedClock;
use regionkv_fs::Fs;
use regionkv_memstore::{MemStoreConfig, MemStoreSize};
use regionkv_storefile::StoreFileBlockCache;
use regionkv_wal::Wal;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// HBase's `hbase.hregion.memstore.block.multiplier`.
pub const BLOCK_MULTIPLIER_KEY: &str = "hbase.hregion.memstore.block.multiplier";
/// HBase's `hbase.regionserver.global.memstore.size`.
pub const GLOBAL_MEMSTORE_SIZE_KEY: &str = "hbase.regionserver.global.memstore.size";
/// HBase's `hbase.regionserver.global.memstore.size.lower.limit`.
pub const GLOBAL_MEMSTORE_LOWER_LIMIT_KEY: &str =
    "hbase.regionserver.global.memstore.size.lower.limit";
/// HBase's `hbase.busy.wait.duration`.
pub const BUSY_WAIT_DURATION_KEY: &str = "hbase.busy.wait.duration";

/// Region behaviour knobs (HBase's names in the field docs).
#[derive(Debug, Clone)]
pub struct RegionConfig {
    /// `hbase.hregion.memstore.block.multiplier` (4): writes wait while a region's
    /// memstore is above flush size × this.
    pub block_multiplier: u64,
    /// `hbase.busy.wait.duration` (60 s): the longest a write waits for a blocked region
    /// before failing with RegionTooBusy.
    pub busy_wait: Duration,
    /// `hbase.rowlock.wait.duration` (30 s).
    pub row_lock_wait: Duration,
    /// `hbase.regionserver.flush.policy`.
    pub flush_policy: FlushPolicy,
    /// `hbase.hregion.percolumnfamilyflush.size.lower.bound.min` (16 MiB).
    pub flush_lower_bound_min: u64,
    /// `hbase.regionserver.optionalcacheflushinterval` (1 h): a store holding an edit this
    /// old is flushed even when small.
    pub flush_interval_ms: i64,
    /// Compaction knobs (HBase's `hbase.hstore.compaction.*` and friends).
    pub compaction: crate::compaction::CompactionConfig,
    /// `hbase.hstore.defaultengine.compactionpolicy.class`.
    pub compaction_policy: crate::compaction::CompactionPolicyKind,
    /// `hbase.hstore.blockingWaitTime` (90 s): how long a flush of a region with too many
    /// storefiles waits for a compaction before it flushes anyway.
    pub blocking_wait: Duration,
    /// With no flusher service, a writer whose edit takes the memstore past its flush
    /// size flushes on its own thread (a Db without background threads sets this; not
    /// HBase's: its flusher threads always run). Off, such a region's writes block at the
    /// blocking size until someone flushes.
    pub inline_flush: bool,
}

impl Default for RegionConfig {
    fn default() -> Self {
        Self {
            block_multiplier: 4,
            busy_wait: Duration::from_secs(60),
            row_lock_wait: crate::row_lock::DEFAULT_ROW_LOCK_WAIT,
            flush_policy: FlushPolicy::AllLargeStores,
            flush_lower_bound_min: crate::flush::policy::DEFAULT_LOWER_BOUND_MIN,
            flush_interval_ms: crate::flush::policy::DEFAULT_FLUSH_INTERVAL_MS,
            compaction: crate::compaction::CompactionConfig::default(),
            compaction_policy: crate::compaction::CompactionPolicyKind::Exploring,
            blocking_wait: Duration::from_secs(90),
            inline_flush: false,
        }
    }
}

/// The Db-wide memstore budget (HBase: 40% of the heap, lower limit 95% of that), kept
/// against the memstores' heap size (HBase's `RegionServerAccounting` for an on-heap
/// memstore; see the module docs).
#[derive(Debug)]
pub struct GlobalMemStore {
    /// Sum of the regions' memstore heap sizes: what the limits apply to.
    heap_size: AtomicU64,
    /// Sum of the regions' memstore data sizes (reported, not limited).
    data_size: AtomicU64,
    limit: u64,
    lower_limit: u64,
    changed: (Mutex<()>, Condvar),
}

impl GlobalMemStore {
    /// A budget of `limit` bytes; flushing stops below `lower_fraction × limit`.
    pub fn new(limit: u64, lower_fraction: f64) -> Self {
        Self {
            heap_size: AtomicU64::new(0),
            data_size: AtomicU64::new(0),
            limit,
            lower_limit: (limit as f64 * lower_fraction) as u64,
            changed: (Mutex::new(()), Condvar::new()),
        }
    }
    /// Memory the memstores hold now: the sum of their heap sizes (chunks, index entries,
    /// own buffers), which the limit and the lower limit apply to.
    pub fn size(&self) -> u64 {
        self.heap_size.load(Ordering::Acquire)
    }
    /// Sum of the memstores' data sizes (the cell bytes their flushes will write).
    pub fn data_size(&self) -> u64 {
        self.data_size.load(Ordering::Acquire)
    }
    /// The limit above which writes wait.
    pub fn limit(&self) -> u64 {
        self.limit
    }
    /// The level flushing brings the sum back under.
    pub fn lower_limit(&self) -> u64 {
        self.lower_limit
    }
    pub(crate) fn add(&self, delta: MemStoreSize) {
        self.data_size.fetch_add(delta.data_size, Ordering::AcqRel);
        self.heap_size.fetch_add(delta.heap_size, Ordering::AcqRel);
    }
    pub(crate) fn sub(&self, delta: MemStoreSize) {
        saturating_sub(&self.data_size, delta.data_size);
        saturating_sub(&self.heap_size, delta.heap_size);
        let _g = self.changed.0.lock();
        self.changed.1.notify_all();
    }
    /// Waits up to `timeout` for the sum to drop to the limit; true when it did.
    pub(crate) fn wait_below_limit(&self, timeout: Duration) -> bool {
        let deadline = std::time::Instant::now() + timeout;
        let mut g = self.changed.0.lock();
        while self.size() > self.limit {
            if self.changed.1.wait_until(&mut g, deadline).timed_out() {
                return self.size() <= self.limit;
            }
        }
        true
    }
}

/// `counter -= delta`, stopping at 0.
pub(crate) fn saturating_sub(counter: &AtomicU64, delta: u64) {
    let _ = counter.fetch_update(Ordering::AcqRel, Ordering::Acquire, |s| {
        Some(s.saturating_sub(delta))
    });
}

/// What the regions of a Db share.
#[derive(Debug, Clone)]
pub struct RegionServices {
    /// The I/O seam.
    pub fs: Arc<dyn Fs>,
    /// The Db's write-ahead log; `None` for the regions of a read-only open, which append
    /// nothing and trim nothing (the log belongs to the writer that holds the directory).
    pub wal: Option<Arc<Wal>>,
    /// The engine clock.
    pub clock: SharedClock,
    /// The shared block cache.
    pub block_cache: Option<Arc<StoreFileBlockCache>>,
    /// Memstore arena settings (with the shared chunk pool).
    pub memstore: MemStoreConfig,
    /// Region knobs.
    pub config: RegionConfig,
    /// The Db-wide memstore budget.
    pub global: Arc<GlobalMemStore>,
    /// Set while a compaction selected with the off-peak ratio runs: HBase allows one
    /// such compaction per server at a time.
    pub off_peak_compaction: Arc<std::sync::atomic::AtomicBool>,
    /// The region server above the regions (background flushes, compactions, splits);
    /// `None`: regions flush and compact only when asked and never ask for a split.
    pub server: Option<Arc<dyn crate::region_server_services::RegionServerServices>>,
    /// A read-only open (RocksDB's `OpenForReadOnly`): the region writes nothing to its
    /// directory — no leftover sweep, no manifest rewrite, no flush, no compaction — and
    /// refuses every write with [`Error::ReadOnly`](crate::Error::ReadOnly). Another process
    /// may own the directory and be writing it.
    pub read_only: bool,
}

impl RegionServices {
    /// Services with defaults: no block cache, default memstore and region settings, no
    /// background threads (regions flush and compact when asked), and a 1 GiB Db-wide
    /// memstore budget. Set the other fields with struct update syntax.
    pub fn new(fs: Arc<dyn Fs>, wal: Arc<Wal>, clock: SharedClock) -> Self {
        Self {
            fs,
            wal: Some(wal),
            clock,
            block_cache: None,
            memstore: MemStoreConfig::default(),
            config: RegionConfig::default(),
            global: Arc::new(GlobalMemStore::new(1 << 30, 0.95)),
            off_peak_compaction: Arc::default(),
            server: None,
            read_only: false,
        }
    }

    /// Services for the regions of a read-only open: no WAL, no background work, and
    /// [`read_only`](Self::read_only) set. Set the other fields with struct update syntax.
    pub fn read_only(fs: Arc<dyn Fs>, clock: SharedClock) -> Self {
        Self {
            fs,
            wal: None,
            clock,
            block_cache: None,
            memstore: MemStoreConfig::default(),
            config: RegionConfig::default(),
            global: Arc::new(GlobalMemStore::new(1 << 30, 0.95)),
            off_peak_compaction: Arc::default(),
            server: None,
            read_only: true,
        }
    }
}
