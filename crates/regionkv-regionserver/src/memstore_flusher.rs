//! HBase's `MemStoreFlusher`: background threads that flush regions whose memstore passed
//! the flush size, and, when the sum of all memstores passes the global limit, flush the
//! largest regions first until the sum is below the lower limit. A flush of a region with
//! too many storefiles is put back for a while and a compaction asked for instead ("writes
//! slow down and then wait").
//!
//! The flusher holds regions weakly (a region it no longer finds is skipped), and regions
//! reach it only through `RegionServerServices` (see [`crate::RegionServerWorkers`]).

use parking_lot::{Condvar, Mutex};
use regionkv_region::{GlobalMemStore, Region};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// A queued flush: when it was first asked for, and when it may run (a flush of a region
/// with too many storefiles is put back for a while, HBase's `requeue`).
#[derive(Debug)]
struct FlushEntry {
    region: Weak<Region>,
    first: Instant,
    not_before: Instant,
}

#[derive(Debug, Default)]
struct FlushQueue {
    queue: VecDeque<FlushEntry>,
    regions: Vec<Weak<Region>>,
    shutdown: bool,
}

/// Background flush threads (HBase's `MemStoreFlusher`).
#[derive(Debug)]
pub struct MemStoreFlusher {
    state: Mutex<FlushQueue>,
    wake: Condvar,
    idle: Condvar,
    busy: AtomicU64,
    threads: Mutex<Vec<JoinHandle<()>>>,
    global: Arc<GlobalMemStore>,
    /// Run by idle flush threads each time they wake (every 200 ms at most): the Db trims
    /// its memstore chunk pool here.
    housekeeping: Mutex<Option<Housekeeping>>,
}

/// Work for idle flush threads; see [`MemStoreFlusher::set_housekeeping`].
#[derive(Clone)]
struct Housekeeping(Arc<dyn Fn() + Send + Sync>);

impl std::fmt::Debug for Housekeeping {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Housekeeping")
    }
}

impl MemStoreFlusher {
    /// Starts `threads` flush threads (HBase's `hbase.hstore.flusher.count`, default 2).
    pub fn start(threads: usize, global: Arc<GlobalMemStore>) -> Arc<Self> {
        let f = Arc::new(Self {
            state: Mutex::new(FlushQueue::default()),
            wake: Condvar::new(),
            idle: Condvar::new(),
            busy: AtomicU64::new(0),
            threads: Mutex::new(Vec::new()),
            global,
            housekeeping: Mutex::new(None),
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

    /// Has idle flush threads run `work` each time they wake, at most every 200 ms per
    /// thread; `work` must be cheap when there is nothing to do.
    pub fn set_housekeeping(&self, work: impl Fn() + Send + Sync + 'static) {
        *self.housekeeping.lock() = Some(Housekeeping(Arc::new(work)));
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
            // the flusher lets its threads end.
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
            let Some(entry) = job else {
                let work = f.housekeeping.lock().clone();
                if let Some(Housekeeping(work)) = work {
                    work();
                }
                continue;
            };
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
                // HBase's `MemStoreFlusher#flushRegion`: the flush result says whether a
                // flushed store now has enough files to compact.
                match region.flush() {
                    Ok(r) if r.compaction_needed => region.request_compaction(),
                    Ok(_) => {}
                    Err(e) => {
                        tracing::error!(region = %region.encoded_name(), error = %e, "background flush failed");
                    }
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

impl Drop for MemStoreFlusher {
    fn drop(&mut self) {
        let mut s = self.state.lock();
        s.shutdown = true;
        self.wake.notify_all();
    }
}
