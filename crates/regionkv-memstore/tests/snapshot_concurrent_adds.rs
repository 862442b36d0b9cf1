//! `snapshot()` while two threads add: every cell ends up in exactly one of snapshot and
//! active (none lost, none duplicated), and nothing lands in the snapshot after `snapshot()`
//! returned (its size and contents are frozen from that moment).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use regionkv_cell::Cell;
use regionkv_memstore::{MemStore, MemStoreConfig, MemStoreSize, Segment};
use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

const PER_THREAD: usize = 20_000;
const THREADS: usize = 2;

fn cell(thread: usize, i: usize) -> Cell {
    let row = format!("t{thread}-{i:08}");
    Cell::put(row.as_bytes(), b"cf", b"q", 1, &[thread as u8; 24])
        .unwrap()
        .with_seq_id((i + 1) as u64)
}

fn rows(segment: &Arc<Segment>) -> Vec<Vec<u8>> {
    segment.iter().map(|c| c.row().to_vec()).collect()
}

fn run(config: MemStoreConfig) {
    let memstore = MemStore::new(config);
    let added = AtomicUsize::new(0);
    // Adders stop at three quarters until the snapshot is taken: on a loaded machine they
    // could otherwise finish before it, leaving the active segment empty (seen in a
    // soak run with CI beside it).
    let snapped = AtomicBool::new(false);
    let deltas: Vec<MemStoreSize> = std::thread::scope(|s| {
        let adders: Vec<_> = (0..THREADS)
            .map(|t| {
                let memstore = &memstore;
                let added = &added;
                let snapped = &snapped;
                s.spawn(move || {
                    let mut sum = MemStoreSize::default();
                    for i in 0..PER_THREAD {
                        if i == PER_THREAD * 3 / 4 {
                            while !snapped.load(Ordering::Acquire) {
                                std::thread::yield_now();
                            }
                        }
                        sum += memstore.add(cell(t, i).as_cell_ref());
                        added.fetch_add(1, Ordering::Relaxed);
                    }
                    sum
                })
            })
            .collect();

        // Take the snapshot once roughly half the cells are in, while both threads run.
        while added.load(Ordering::Relaxed) < THREADS * PER_THREAD / 2 {
            std::thread::yield_now();
        }
        let snapshot = memstore.snapshot().expect("cells were added");
        snapped.store(true, Ordering::Release);
        let frozen_size = snapshot.size();
        let frozen_rows = rows(&snapshot);
        assert_eq!(frozen_rows.len() as u64, frozen_size.cell_count);

        let deltas = adders.into_iter().map(|h| h.join().unwrap()).collect();

        assert_eq!(
            snapshot.size(),
            frozen_size,
            "an add landed in the snapshot late"
        );
        assert_eq!(rows(&snapshot), frozen_rows);
        deltas
    });

    let segments = memstore.segments();
    assert_eq!(segments.len(), 2, "snapshot then active");
    let mut seen = HashSet::new();
    for segment in &segments {
        for row in rows(segment) {
            assert!(seen.insert(row.clone()), "duplicated: {row:?}");
        }
    }
    assert_eq!(seen.len(), THREADS * PER_THREAD, "lost cells");
    for t in 0..THREADS {
        for i in 0..PER_THREAD {
            assert!(seen.contains(cell(t, i).row()));
        }
    }
    // Both segments got cells, and the sizes they report add up to what the adds returned.
    assert!(segments.iter().all(|s| !s.is_empty()));
    let total: MemStoreSize = deltas.into_iter().sum();
    assert_eq!(memstore.size(), total);
    assert_eq!(
        memstore.snapshot_size() + memstore.active_size(),
        memstore.size()
    );
}

#[test]
fn snapshot_during_adds_splits_cells_exactly_with_mslab() {
    for _ in 0..3 {
        run(MemStoreConfig {
            // Small chunks: chunk replacement races with the snapshot too.
            chunk_size: 64 * 1024,
            max_alloc: 1024,
            ..MemStoreConfig::default()
        });
    }
}

#[test]
fn snapshot_during_adds_splits_cells_exactly_without_mslab() {
    for _ in 0..3 {
        run(MemStoreConfig {
            mslab_enabled: false,
            ..MemStoreConfig::default()
        });
    }
}

#[test]
fn adds_of_the_same_key_from_two_threads_keep_one_cell() {
    let memstore = MemStore::default();
    let c = Cell::put(b"r", b"cf", b"q", 1, b"v")
        .unwrap()
        .with_seq_id(7);
    let total: MemStoreSize = std::thread::scope(|s| {
        let hs: Vec<_> = (0..THREADS)
            .map(|_| {
                s.spawn(|| {
                    (0..1000)
                        .map(|_| memstore.add(c.as_cell_ref()))
                        .sum::<MemStoreSize>()
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).sum()
    });
    let active = memstore.segments().pop().unwrap();
    assert_eq!(active.len(), 1);
    assert_eq!(memstore.size(), total);
    assert_eq!(total.cell_count, 1);
}

#[test]
fn memstore_types_cross_threads() {
    fn send_sync<T: Send + Sync>() {}
    fn send<T: Send>() {}
    send_sync::<MemStore>();
    send_sync::<Segment>();
    send_sync::<regionkv_memstore::ChunkPool>();
    send::<regionkv_memstore::SegmentScanner>();
}
