//! HBase's `CompactSplit` compaction pools and its `CompactionChecker` chore: background
//! compaction threads in a "small" and a "large" pool, and a periodic check that asks
//! every open region whether a store needs a compaction or is due its periodic major one.
//! Regions are held weakly and reach the pools only through `RegionServerServices`.

use parking_lot::{Condvar, Mutex};
use regionkv_region::Region;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};
use std::thread::JoinHandle;
use std::time::Duration;

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
        let pool = self.pool(regionkv_region::compaction::is_large_compaction(
            cfg, biggest,
        ));
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
