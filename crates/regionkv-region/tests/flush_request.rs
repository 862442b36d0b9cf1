//! A region past its flush size asks the flusher once, and asks again only after a flush
//! has run (HBase's `HRegion#requestFlush0` and `writestate.flushRequested`, cleared in
//! `flushcache`'s finally block). Asking on every write let the flusher's second thread
//! flush the few megabytes written during the first flush as soon as it ended: three small
//! flushes, files and compactions per memstore where HBase makes one.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use common::{Harness, table};
use regionkv_fs::MemFs;
use regionkv_region::{Durability, Region, RegionConfig, RegionServerServices};

/// A region server whose flusher queues requests and never runs them by itself.
#[derive(Debug, Default)]
struct CountingFlusher {
    requests: AtomicUsize,
}

impl RegionServerServices for CountingFlusher {
    fn region_opened(&self, _region: &Arc<Region>) {}

    fn request_flush(&self, _region: &Arc<Region>) -> bool {
        self.requests.fetch_add(1, Ordering::SeqCst);
        true
    }

    fn request_global_flush(&self) -> bool {
        true
    }

    fn request_compaction(&self, _region: &Arc<Region>) {}

    fn regions_of_table(&self, _table: &str) -> u32 {
        1
    }

    fn request_split(&self, _table: &str, _encoded: &str) {}

    fn references_cleared(&self, _table: &str) {}
}

/// Puts rows `from..to` of 1 KiB each.
fn fill(h: &Harness, from: usize, to: usize) {
    let value = "x".repeat(1024);
    for i in from..to {
        h.put(
            &format!("row{i:06}"),
            b"cf",
            "q",
            &value,
            Durability::SkipWal,
        )
        .unwrap();
    }
}

#[test]
fn a_region_asks_for_a_flush_once_until_one_runs() {
    let flusher = Arc::new(CountingFlusher::default());
    let h = Harness::new(
        Arc::new(MemFs::new()),
        table(64 << 10, &[b"cf"]),
        RegionConfig::default(),
        false,
    )
    .with_server(flusher.clone());
    let asked = || flusher.requests.load(Ordering::SeqCst);

    fill(&h, 0, 40);
    assert_eq!(asked(), 0, "below the flush size: no request");
    fill(&h, 40, 200);
    assert_eq!(
        asked(),
        1,
        "past the flush size, the writes after the first ask no more"
    );

    // The flusher runs it; the writes after it that pass the flush size again ask again.
    h.region().flush().unwrap();
    fill(&h, 200, 220);
    assert_eq!(asked(), 1, "below the flush size again after the flush");
    fill(&h, 220, 400);
    assert_eq!(asked(), 2);

    // Any flush ends a request, an explicit one too.
    h.region().flush_all().unwrap();
    fill(&h, 400, 600);
    assert_eq!(asked(), 3);
}

#[test]
fn without_a_flusher_the_writer_flushes_each_time() {
    let config = RegionConfig {
        inline_flush: true,
        ..RegionConfig::default()
    };
    let h = Harness::new(
        Arc::new(MemFs::new()),
        table(64 << 10, &[b"cf"]),
        config,
        false,
    );
    fill(&h, 0, 600);
    // Inline flushes (no flusher): the flag never stays set, so the memstore never grows
    // far past the flush size.
    let size = h.region().memstore_hbase_heap_size();
    assert!(size < 2 * (64 << 10), "memstore at {size} bytes");
}
