//! Compaction driven by HBase's selection policy: user `compact` / `major_compact`, the
//! background compaction threads keeping the file count bounded under a write load, and
//! flushes delayed (bounded) while a store has too many files.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{Harness, table};
use regionkv_fs::MemFs;
use regionkv_region::{RegionConfig, RegionScan};
use regionkv_wal::Durability;
use std::sync::Arc;
use std::time::Duration;

fn small_files_config() -> RegionConfig {
    let mut config = RegionConfig::default();
    // Tiny files are all "small" (below min.size), so the ratio rule always admits them.
    config.compaction.min_compact_size = 1;
    config
}

fn files(h: &Harness) -> usize {
    h.region().manifest().stores[&b"cf"[..]].files.len()
}

fn rows(h: &Harness) -> usize {
    h.region().scan(&RegionScan::all()).unwrap().count()
}

#[test]
fn user_compact_follows_the_policy_and_major_compact_takes_everything() {
    let h = Harness::new(
        Arc::new(MemFs::new()),
        table(1 << 20, &[b"cf"]),
        small_files_config(),
        false,
    );
    for f in 0..2 {
        h.put(&format!("r{f}"), b"cf", "q", "v", Durability::SkipWal)
            .unwrap();
        h.region().flush().unwrap();
    }
    // Two files: fewer than hbase.hstore.compaction.min (3), a user minor selects nothing.
    assert!(h.region().compact(false).unwrap().is_empty());
    assert_eq!(files(&h), 2);
    h.put("r2", b"cf", "q", "v", Durability::SkipWal).unwrap();
    h.region().flush().unwrap();
    let done = h.region().compact(false).unwrap();
    assert_eq!(done.len(), 1);
    assert!(
        done[0].major,
        "a selection of every file runs as a major compaction"
    );
    assert_eq!(files(&h), 1);
    h.put("r3", b"cf", "q", "v", Durability::SkipWal).unwrap();
    h.region().flush().unwrap();
    let done = h.region().compact(true).unwrap();
    assert!(done[0].major);
    assert_eq!(files(&h), 1);
    assert_eq!(rows(&h), 4);
}

#[test]
fn background_compactions_keep_the_file_count_bounded() {
    let h = Harness::background(
        Arc::new(MemFs::new()),
        table(8 * 1024, &[b"cf"]),
        small_files_config(),
    );
    for i in 0..3000 {
        h.put(
            &format!("r{i:05}"),
            b"cf",
            "q",
            &"v".repeat(100),
            Durability::SkipWal,
        )
        .unwrap();
    }
    h.flusher.as_ref().unwrap().wait_idle();
    h.compact_split.as_ref().unwrap().wait_idle();
    let n = files(&h);
    assert!(n < 10, "{n} files: compactions did not keep up");
    assert!(
        h.region()
            .metrics()
            .flushes
            .load(std::sync::atomic::Ordering::Relaxed)
            >= 20
    );
    assert_eq!(rows(&h), 3000);
}

#[test]
fn flushes_wait_for_compactions_when_a_store_has_too_many_files() {
    let mut config = small_files_config();
    config.compaction.blocking_store_files = 4;
    config.blocking_wait = Duration::from_millis(100);
    // A background flusher but no compaction threads: nothing relieves the store, so each
    // flush waits out the blocking wait and then proceeds anyway (HBase's behaviour).
    let h = Harness::new(
        Arc::new(MemFs::new()),
        table(4 * 1024, &[b"cf"]),
        config,
        true,
    );
    let start = std::time::Instant::now();
    // ~250 KB of data with a 4 KiB flush size: even if every flush takes a whole blocked
    // memstore (flush size × multiplier = 16 KiB), that is at least 15 flushes.
    for i in 0..2000 {
        h.put(
            &format!("r{i:05}"),
            b"cf",
            "q",
            &"v".repeat(100),
            Durability::SkipWal,
        )
        .unwrap();
    }
    h.flusher.as_ref().unwrap().wait_idle();
    assert!(
        files(&h) > 4,
        "flushes went ahead after the wait: {} files",
        files(&h)
    );
    assert!(
        start.elapsed() >= Duration::from_millis(100),
        "at least one flush was held back by the blocking wait"
    );
    assert_eq!(rows(&h), 2000);
}
