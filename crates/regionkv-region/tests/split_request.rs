//! A flush asks the split policy whether to split (HBase's flusher does) without holding the
//! region's flush lock: the question reaches the Db (how many regions has the table?), which
//! may be waiting for that very lock — an alter or disable holds the table's region map while
//! it closes the region, and the close flushes. Holding the lock across the question was a
//! lock-order inversion between a background flush and an alter (issue 28's design record).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::Duration;

use common::{Harness, table};
use regionkv_fs::MemFs;
use regionkv_region::Durability;
use regionkv_region::{Region, RegionConfig, RegionServerServices};

/// A stand-in region server (no background workers) that answers the split question; the first time, it checks from another thread that the
/// region can be flushed meanwhile (its flush lock is free).
#[derive(Debug, Default)]
struct Observer {
    region: OnceLock<Weak<Region>>,
    asked: AtomicBool,
    lock_was_free: Mutex<Option<bool>>,
}

impl RegionServerServices for Observer {
    fn region_opened(&self, _region: &Arc<Region>) {}

    fn request_flush(&self, _region: &Arc<Region>) -> bool {
        false
    }

    fn request_global_flush(&self) -> bool {
        false
    }

    fn request_compaction(&self, _region: &Arc<Region>) {}

    fn regions_of_table(&self, _table: &str) -> u32 {
        if self.asked.swap(true, Ordering::SeqCst) {
            return 1;
        }
        let Some(region) = self.region.get().and_then(Weak::upgrade) else {
            return 1;
        };
        let (done, flushed) = mpsc::channel();
        std::thread::spawn(move || {
            let _ = done.send(region.flush_all().is_ok());
        });
        // A bounded wait for liveness, not a speed check: with the lock held this never
        // completes until the question is answered.
        let free = flushed
            .recv_timeout(Duration::from_secs(20))
            .unwrap_or(false);
        *self.lock_was_free.lock().unwrap() = Some(free);
        1
    }

    fn request_split(&self, _table: &str, _encoded: &str) {}

    fn references_cleared(&self, _table: &str) {}
}

#[test]
fn the_split_question_after_a_flush_is_asked_without_the_flush_lock() {
    let observer = Arc::new(Observer::default());
    let h = Harness::new(
        Arc::new(MemFs::new()),
        table(1 << 20, &[b"cf"]),
        RegionConfig::default(),
        false,
    )
    .with_server(observer.clone());
    observer.region.set(Arc::downgrade(h.region())).unwrap();
    h.put("r1", b"cf", "q", "v", Durability::SyncWal).unwrap();
    h.region().flush_all().unwrap();
    assert_eq!(*observer.lock_was_free.lock().unwrap(), Some(true));
}
