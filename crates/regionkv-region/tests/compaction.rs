//! Compaction driven by HBase's selection policy: user `compact` / `major_compact`, the
//! background compaction threads keeping the file count bounded under a write load, and
//! flushes delayed (bounded) while a store has too many files.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{Harness, table};
use regionkv_fs::MemFs;
use regionkv_region::Durability;
use regionkv_region::{RegionConfig, RegionScan};
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
    // ~300 KB of values with an 8 KiB flush size. A slow flusher lets the memstore grow
    // up to the blocking size (flush size × block multiplier 4 = 32 KiB) before writes
    // wait, so a loaded machine still flushes at least 300 KB / 32 KiB ≈ 9 times.
    let flushes = h
        .region()
        .metrics()
        .flushes
        .load(std::sync::atomic::Ordering::Relaxed);
    assert!(flushes >= 9, "only {flushes} flushes");
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

/// Writes `n` rows and flushes them as one file.
fn flush_rows(h: &Harness, prefix: &str, n: usize) {
    for i in 0..n {
        h.put(
            &format!("{prefix}{i:05}"),
            b"cf",
            "q",
            "value-value-value",
            Durability::SkipWal,
        )
        .unwrap();
    }
    h.region().flush().unwrap();
}

#[test]
fn the_compaction_checker_runs_the_periodic_major_compaction_of_an_idle_store() {
    let h = Harness::background(
        Arc::new(MemFs::new()),
        table(1 << 20, &[b"cf"]),
        RegionConfig::default(),
    );
    flush_rows(&h, "a", 10);
    flush_rows(&h, "b", 10);
    let cs = h.compact_split.clone().unwrap();
    cs.wait_idle();
    assert_eq!(files(&h), 2, "two files: below hbase.hstore.compaction.min");
    assert_eq!(cs.check_now(), 0, "nothing is due yet");
    // Seven days with a jitter of at most half of that: 11 days is past any draw.
    h.clock.advance(11 * 86_400_000);
    assert!(h.region().major_compaction_due());
    assert_eq!(cs.check_now(), 1);
    cs.wait_idle();
    assert_eq!(files(&h), 1);
    let m = h.region().metrics();
    assert_eq!(m.compactions.load(std::sync::atomic::Ordering::Relaxed), 1);
    assert!(!h.region().major_compaction_due(), "the new file is recent");
    assert_eq!(rows(&h), 20);
}

#[test]
fn the_checker_thread_wakes_on_its_interval() {
    let h = Harness::new(
        Arc::new(MemFs::new()),
        table(1 << 20, &[b"cf"]),
        RegionConfig::default(),
        false,
    );
    // A checker that runs every 20 ms, with the region registered by hand.
    let cs = regionkv_regionserver::CompactSplit::start_with_checker(
        1,
        1,
        Some(Duration::from_millis(20)),
    );
    cs.register(h.region());
    flush_rows(&h, "a", 5);
    flush_rows(&h, "b", 5);
    h.clock.advance(11 * 86_400_000);
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while files(&h) > 1 && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(
        files(&h),
        1,
        "the checker queued the periodic major compaction"
    );
    cs.shutdown();
}

#[test]
fn off_peak_ratio_needs_the_off_peak_hour_and_the_free_server_slot() {
    let mut config = RegionConfig::default();
    config.compaction.min_compact_size = 1;
    // The manual clock stands at 1 s after the epoch: hour 0 (UTC).
    config.compaction.offpeak_start_hour = 0;
    config.compaction.offpeak_end_hour = 1;
    let h = Harness::new(
        Arc::new(MemFs::new()),
        table(1 << 20, &[b"cf"]),
        config,
        false,
    );
    flush_rows(&h, "a", 800);
    flush_rows(&h, "b", 100);
    flush_rows(&h, "c", 100);
    let sizes: Vec<u64> = h.region().manifest().stores[&b"cf"[..]]
        .files
        .iter()
        .map(|f| f.size)
        .collect();
    let (a, rest) = (sizes[0] as f64, (sizes[1] + sizes[2]) as f64);
    assert!(
        a > 1.2 * rest && a <= 5.0 * rest,
        "the sizes {sizes:?} must need the off-peak ratio"
    );
    let slot = h.region().services().off_peak_compaction.clone();
    // Another compaction holds the server's off-peak slot: the normal ratio, nothing.
    slot.store(true, std::sync::atomic::Ordering::SeqCst);
    assert!(
        h.region()
            .compact_store(b"cf", false, false)
            .unwrap()
            .is_empty()
    );
    assert_eq!(files(&h), 3);
    // Slot free: the off-peak ratio admits the big file; the slot is given back after.
    slot.store(false, std::sync::atomic::Ordering::SeqCst);
    let done = h.region().compact_store(b"cf", false, false).unwrap();
    assert_eq!(done.len(), 1);
    assert_eq!(files(&h), 1);
    assert!(!slot.load(std::sync::atomic::Ordering::SeqCst));
    // Outside the off-peak hours the ratio is the normal one even with the slot free.
    h.clock.advance(5 * 3_600_000);
    flush_rows(&h, "d", 100);
    flush_rows(&h, "e", 100);
    assert!(
        h.region()
            .compact_store(b"cf", false, false)
            .unwrap()
            .is_empty()
    );
}
