//! `RegionServices`: what every region of a Db shares — the file system, the WAL, the
//! clock, the block cache, the memstore chunk pool, the flusher and the global memstore
//! accounting (the parts of HBase's `HRegionServer` a region talks to).
//!
//! The flusher is HBase's `MemStoreFlusher`: background threads that flush regions whose
//! memstore passed the flush size, and, when the sum of all memstores passes the global
//! limit, flush the largest regions first until the sum is below the lower limit. Writers
//! wait (bounded) while a region is above its blocking size or the Db is above the global
//! limit.
//!
//! Which size each check uses. The global limit, its lower limit and the "largest first"
//! order use the memstores' **heap size** — the memory they hold: arena chunks at their
//! full length (slack included), skiplist entries, own buffers — as HBase's
//! `RegionServerAccounting` checks an on-heap memstore's water marks against the global
//! heap size and `MemStoreFlusher` sorts regions by heap size under on-heap pressure. A
//! budget of cell bytes alone left every store's chunk outside it: 1,000 families with one
//! cell each held 2 GB under a 1 GiB limit (issue 24). A region's flush size and blocking
//! size stay on the **data size** (what a flush writes), as they were; HBase 2 compares
//! those with heap + off-heap size too, but its heap size has no chunk slack, and regionkv
//! keeps a table's `MEMSTORE_FLUSHSIZE` meaning the bytes a flush writes.

use crate::flush::policy::FlushPolicy;
use crate::region::Region;
use parking_lot::{Condvar, Mutex};
use regionkv_cell::SharedClock;
use regionkv_fs::Fs;
use regionkv_memstore::{MemStoreConfig, MemStoreSize};
use regionkv_storefile::StoreFileBlockCache;
use regionkv_wal::Wal;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

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
    /// The Db's write-ahead log.
    pub wal: Arc<Wal>,
    /// The engine clock.
    pub clock: SharedClock,
    /// The shared block cache.
    pub block_cache: Option<Arc<StoreFileBlockCache>>,
    /// Memstore arena settings (with the shared chunk pool).
    pub memstore: MemStoreConfig,
    /// Region knobs.
    pub config: RegionConfig,
    /// The background flusher; `None` means regions flush only when asked.
    pub flusher: Option<Arc<Flusher>>,
    /// The background compaction threads; `None` means regions compact only when asked.
    pub compact_split: Option<Arc<CompactSplit>>,
    /// The Db-wide memstore budget.
    pub global: Arc<GlobalMemStore>,
    /// Set while a compaction selected with the off-peak ratio runs: HBase allows one
    /// such compaction per server at a time.
    pub off_peak_compaction: Arc<std::sync::atomic::AtomicBool>,
    /// The Db's side of splits (region counts, split requests, parent clean-up); `None`:
    /// regions never ask for splits.
    pub observer: Option<Arc<dyn crate::region_split::RegionObserver>>,
}

/// A queued flush: when it was first asked for, and when it may run (a flush of a region
/// with too many storefiles is put back for a while, HBase's `requeue`).
#[derive(Debug)]
struct FlushEntry {
    region: Weak<Region>,
    first: Instant,
    not_before: Instant,
}

impl RegionServices {
    /// Services with defaults: no block cache, default memstore and region settings, no
    /// background threads (regions flush and compact when asked), and a 1 GiB Db-wide
    /// memstore budget. Set the other fields with struct update syntax.
    pub fn new(fs: Arc<dyn Fs>, wal: Arc<Wal>, clock: SharedClock) -> Self {
        Self {
            fs,
            wal,
            clock,
            block_cache: None,
            memstore: MemStoreConfig::default(),
            config: RegionConfig::default(),
            flusher: None,
            compact_split: None,
            global: Arc::new(GlobalMemStore::new(1 << 30, 0.95)),
            off_peak_compaction: Arc::default(),
            observer: None,
        }
    }
}

#[derive(Debug, Default)]
struct FlushQueue {
    queue: VecDeque<FlushEntry>,
    regions: Vec<Weak<Region>>,
    shutdown: bool,
}

/// Background flush threads (HBase's `MemStoreFlusher`).
#[derive(Debug)]
pub struct Flusher {
    state: Mutex<FlushQueue>,
    wake: Condvar,
    idle: Condvar,
    busy: AtomicU64,
    threads: Mutex<Vec<JoinHandle<()>>>,
    global: Arc<GlobalMemStore>,
}

impl Flusher {
    /// Starts `threads` flush threads (HBase's `hbase.hstore.flusher.count`, default 2).
    pub fn start(threads: usize, global: Arc<GlobalMemStore>) -> Arc<Self> {
        let f = Arc::new(Self {
            state: Mutex::new(FlushQueue::default()),
            wake: Condvar::new(),
            idle: Condvar::new(),
            busy: AtomicU64::new(0),
            threads: Mutex::new(Vec::new()),
            global,
        });
        for i in 0..threads.max(1) {
            let me = Arc::downgrade(&f);
            let handle = std::thread::Builder::new()
                .name(format!("regionkv-flush-{i}"))
                .spawn(move || Self::run(me));
            match handle {
                Ok(h) => f.threads.lock().push(h),
                Err(e) => tracing::error!(error = %e, "could not start a flush thread"),
            }
        }
        f
    }

    /// Makes `region` known to global-pressure flushing.
    pub fn register(&self, region: &Arc<Region>) {
        let mut s = self.state.lock();
        s.regions.retain(|w| w.strong_count() > 0);
        s.regions.push(Arc::downgrade(region));
    }

    /// Queues a flush of `region` (deduplicated).
    pub fn request(&self, region: &Arc<Region>) {
        let mut s = self.state.lock();
        if s.queue
            .iter()
            .any(|e| e.region.as_ptr() == Arc::as_ptr(region))
        {
            return;
        }
        let now = Instant::now();
        s.queue.push_back(FlushEntry {
            region: Arc::downgrade(region),
            first: now,
            not_before: now,
        });
        self.wake.notify_one();
    }

    /// Queues flushes of the largest regions until the queued sizes bring the global sum
    /// under the lower limit. "Largest" is by memstore heap size, the size the budget
    /// counts (HBase's `flushOneForGlobalPressure` under on-heap pressure).
    pub fn request_global(&self) {
        let regions: Vec<Arc<Region>> = {
            let s = self.state.lock();
            s.regions.iter().filter_map(Weak::upgrade).collect()
        };
        let mut by_size: Vec<(u64, Arc<Region>)> = regions
            .into_iter()
            .map(|r| (r.memstore_heap_size(), r))
            .collect();
        by_size.sort_by_key(|e| std::cmp::Reverse(e.0));
        let mut projected = self.global.size();
        for (size, region) in by_size {
            if projected <= self.global.lower_limit() || size == 0 {
                break;
            }
            self.request(&region);
            projected = projected.saturating_sub(size);
        }
    }

    /// True when no flush is queued or running.
    pub fn is_idle(&self) -> bool {
        let s = self.state.lock();
        s.queue.is_empty() && self.busy.load(Ordering::Acquire) == 0
    }

    /// Waits until no flush is queued or running (a deterministic hook for tests).
    pub fn wait_idle(&self) {
        let mut s = self.state.lock();
        while !s.queue.is_empty() || self.busy.load(Ordering::Acquire) > 0 {
            self.idle.wait(&mut s);
        }
    }

    /// Stops the threads after the queued flushes.
    pub fn shutdown(&self) {
        {
            let mut s = self.state.lock();
            s.shutdown = true;
            self.wake.notify_all();
        }
        let threads: Vec<JoinHandle<()>> = std::mem::take(&mut *self.threads.lock());
        for t in threads {
            if t.thread().id() != std::thread::current().id() {
                let _ = t.join();
            }
        }
    }

    fn run(me: Weak<Self>) {
        loop {
            // Hold a strong reference only while working, so dropping the last handle of
            // the Flusher lets its threads end.
            let Some(f) = me.upgrade() else { return };
            let job = {
                let mut s = f.state.lock();
                let now = Instant::now();
                match s.queue.iter().position(|e| e.not_before <= now) {
                    Some(i) => {
                        f.busy.fetch_add(1, Ordering::AcqRel);
                        s.queue.remove(i)
                    }
                    None if s.shutdown => return,
                    None => {
                        let wait = s
                            .queue
                            .iter()
                            .map(|e| e.not_before.saturating_duration_since(now))
                            .min()
                            .unwrap_or(Duration::from_millis(200))
                            .min(Duration::from_millis(200));
                        f.wake.wait_for(&mut s, wait);
                        None
                    }
                }
            };
            let Some(entry) = job else { continue };
            if let Some(region) = entry.region.upgrade() {
                let blocking_wait = region.services().config.blocking_wait;
                if region.has_too_many_store_files() && entry.first.elapsed() < blocking_wait {
                    // HBase's MemStoreFlusher: ask for a compaction and put the flush back
                    // for a while; writes meanwhile fill the memstore and then block on
                    // its limit ("writes slow down and then wait").
                    tracing::warn!(
                        region = %region.encoded_name(),
                        "too many storefiles: delaying the flush up to {blocking_wait:?} for a compaction"
                    );
                    region.request_compaction();
                    let mut s = f.state.lock();
                    s.queue.push_back(FlushEntry {
                        not_before: Instant::now() + blocking_wait / 100,
                        ..entry
                    });
                    f.busy.fetch_sub(1, Ordering::AcqRel);
                    continue;
                }
                if let Err(e) = region.flush() {
                    tracing::error!(region = %region.encoded_name(), error = %e, "background flush failed");
                }
                if region.needs_compaction() {
                    region.request_compaction();
                }
                if f.global.size() > f.global.limit() {
                    f.request_global();
                }
            }
            // Decrement under the queue lock so `wait_idle` sees queue and busy together.
            let s = f.state.lock();
            f.busy.fetch_sub(1, Ordering::AcqRel);
            if s.queue.is_empty() && f.busy.load(Ordering::Acquire) == 0 {
                f.idle.notify_all();
            }
        }
    }
}

/// One pool of compaction threads.
#[derive(Debug, Default)]
struct PoolState {
    queue: VecDeque<Weak<Region>>,
    shutdown: bool,
}

#[derive(Debug, Default)]
struct Pool {
    state: Mutex<PoolState>,
    wake: Condvar,
    idle: Condvar,
    busy: AtomicU64,
}

/// HBase's `CompactSplit`: background compaction threads in two pools, "small" and
/// "large" (`hbase.regionserver.thread.compaction.small` / `.large`, one thread each by
/// default), so one long compaction does not hold up the small ones. A request goes to the
/// large pool when the store it would compact holds more than the throttle point
/// (`hbase.regionserver.thread.compaction.throttle`) — an estimate made at request time,
/// where HBase routes by the size of the files actually selected.
///
/// It also runs HBase's `CompactionChecker` chore: every check interval (HBase:
/// `hbase.server.thread.wakefrequency` × `hbase.server.compactchecker.interval.multiplier`
/// = 10 000 s) it asks every open region whether a store needs a compaction or is due its
/// periodic major one, so an idle store still gets its time-based major compaction.
#[derive(Debug)]
pub struct CompactSplit {
    small: Pool,
    large: Pool,
    threads: Mutex<Vec<JoinHandle<()>>>,
    /// Every region opened with these services (dead entries pruned on each check).
    regions: Mutex<Vec<Weak<Region>>>,
    /// Wakes the checker early (shutdown).
    checker_wake: (Mutex<bool>, Condvar),
}

/// HBase's default compaction-check period: 10 s wake frequency × multiplier 1000.
pub const DEFAULT_COMPACTION_CHECK_INTERVAL: Duration = Duration::from_secs(10_000);

impl CompactSplit {
    /// Starts `small` + `large` threads and the compaction checker at HBase's default
    /// interval.
    pub fn start(small: usize, large: usize) -> Arc<Self> {
        Self::start_with_checker(small, large, Some(DEFAULT_COMPACTION_CHECK_INTERVAL))
    }

    /// Starts `small` + `large` threads, and the compaction checker every `check_interval`
    /// (`None`: no checker thread; [`CompactSplit::check_now`] still works).
    pub fn start_with_checker(
        small: usize,
        large: usize,
        check_interval: Option<Duration>,
    ) -> Arc<Self> {
        let c = Arc::new(Self {
            small: Pool::default(),
            large: Pool::default(),
            threads: Mutex::new(Vec::new()),
            regions: Mutex::new(Vec::new()),
            checker_wake: (Mutex::new(false), Condvar::new()),
        });
        if let Some(interval) = check_interval {
            let me = Arc::downgrade(&c);
            match std::thread::Builder::new()
                .name("regionkv-compaction-checker".to_string())
                .spawn(move || Self::run_checker(me, interval))
            {
                Ok(h) => c.threads.lock().push(h),
                Err(e) => tracing::error!(error = %e, "could not start the compaction checker"),
            }
        }
        for (n, is_large) in [(small.max(1), false), (large.max(1), true)] {
            for i in 0..n {
                let me = Arc::downgrade(&c);
                let name = format!(
                    "regionkv-compact-{}-{i}",
                    if is_large { "large" } else { "small" }
                );
                match std::thread::Builder::new()
                    .name(name)
                    .spawn(move || Self::run(me, is_large))
                {
                    Ok(h) => c.threads.lock().push(h),
                    Err(e) => tracing::error!(error = %e, "could not start a compaction thread"),
                }
            }
        }
        c
    }

    fn pool(&self, large: bool) -> &Pool {
        if large { &self.large } else { &self.small }
    }

    /// Queues a system compaction of `region` (deduplicated).
    pub fn request(&self, region: &Arc<Region>) {
        let cfg = &region.services().config.compaction;
        let biggest: u64 = region
            .stores()
            .values()
            .map(|s| s.files().iter().map(|f| f.meta.size).sum::<u64>())
            .max()
            .unwrap_or(0);
        let pool = self.pool(crate::compaction::is_large_compaction(cfg, biggest));
        let mut s = pool.state.lock();
        if s.queue.iter().any(|w| w.as_ptr() == Arc::as_ptr(region)) {
            return;
        }
        s.queue.push_back(Arc::downgrade(region));
        pool.wake.notify_one();
    }

    /// Makes `region` known to the compaction checker.
    pub fn register(&self, region: &Arc<Region>) {
        let mut regions = self.regions.lock();
        regions.retain(|w| w.strong_count() > 0);
        regions.push(Arc::downgrade(region));
    }

    /// One pass of HBase's `CompactionChecker`: queues a system compaction for every
    /// region with a store that needs one (enough files) or is due its periodic major
    /// compaction. Returns how many regions were queued.
    pub fn check_now(&self) -> usize {
        let regions: Vec<Arc<Region>> = {
            let mut r = self.regions.lock();
            r.retain(|w| w.strong_count() > 0);
            r.iter().filter_map(Weak::upgrade).collect()
        };
        let mut queued = 0;
        for region in regions {
            if region.is_closed() {
                continue;
            }
            if region.needs_compaction() || region.major_compaction_due() {
                tracing::debug!(region = %region.encoded_name(), "compaction checker: requesting a compaction");
                self.request(&region);
                queued += 1;
            }
        }
        queued
    }

    fn run_checker(me: Weak<Self>, interval: Duration) {
        loop {
            {
                let Some(c) = me.upgrade() else { return };
                let mut stop = c.checker_wake.0.lock();
                if !*stop {
                    c.checker_wake.1.wait_for(&mut stop, interval);
                }
                if *stop {
                    return;
                }
            }
            let Some(c) = me.upgrade() else { return };
            let span = tracing::debug_span!("compaction_check");
            let _enter = span.enter();
            c.check_now();
        }
    }

    /// True when no compaction is queued or running.
    pub fn is_idle(&self) -> bool {
        [&self.small, &self.large].iter().all(|pool| {
            let s = pool.state.lock();
            s.queue.is_empty() && pool.busy.load(Ordering::Acquire) == 0
        })
    }

    /// Waits until no compaction is queued or running (a deterministic hook for tests).
    pub fn wait_idle(&self) {
        for pool in [&self.small, &self.large] {
            let mut s = pool.state.lock();
            while !s.queue.is_empty() || pool.busy.load(Ordering::Acquire) > 0 {
                pool.idle.wait(&mut s);
            }
        }
    }

    /// Stops the threads after the queued compactions.
    pub fn shutdown(&self) {
        self.stop_checker();
        for pool in [&self.small, &self.large] {
            pool.state.lock().shutdown = true;
            pool.wake.notify_all();
        }
        let threads: Vec<JoinHandle<()>> = std::mem::take(&mut *self.threads.lock());
        for t in threads {
            if t.thread().id() != std::thread::current().id() {
                let _ = t.join();
            }
        }
    }

    fn run(me: Weak<Self>, large: bool) {
        loop {
            let Some(c) = me.upgrade() else { return };
            let pool = c.pool(large);
            let job = {
                let mut s = pool.state.lock();
                if s.queue.is_empty() && !s.shutdown {
                    pool.wake.wait_for(&mut s, Duration::from_millis(200));
                }
                match s.queue.pop_front() {
                    Some(r) => {
                        pool.busy.fetch_add(1, Ordering::AcqRel);
                        Some(r)
                    }
                    None if s.shutdown => return,
                    None => None,
                }
            };
            let Some(weak) = job else { continue };
            if let Some(region) = weak.upgrade() {
                let families: Vec<Vec<u8>> = region.stores().keys().cloned().collect();
                for f in families {
                    if let Err(e) = region.compact_store(&f, false, false) {
                        tracing::error!(region = %region.encoded_name(), error = %e, "background compaction failed");
                    }
                }
            }
            let s = pool.state.lock();
            pool.busy.fetch_sub(1, Ordering::AcqRel);
            if s.queue.is_empty() && pool.busy.load(Ordering::Acquire) == 0 {
                pool.idle.notify_all();
            }
        }
    }
}

impl CompactSplit {
    fn stop_checker(&self) {
        *self.checker_wake.0.lock() = true;
        self.checker_wake.1.notify_all();
    }
}

impl Drop for CompactSplit {
    fn drop(&mut self) {
        self.stop_checker();
        for pool in [&self.small, &self.large] {
            pool.state.lock().shutdown = true;
            pool.wake.notify_all();
        }
    }
}

impl Drop for Flusher {
    fn drop(&mut self) {
        let mut s = self.state.lock();
        s.shutdown = true;
        self.wake.notify_all();
    }
}
