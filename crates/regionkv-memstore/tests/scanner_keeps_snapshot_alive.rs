//! A scanner over a snapshot keeps the segment and its arena chunks alive after
//! `clear_snapshot`: the chunks go back to the pool only when the last scanner drops, and
//! until then the pool cannot hand them to another segment that would overwrite them.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use regionkv_cell::{Cell, KeyValueScanner};
use regionkv_memstore::{ChunkPool, MemStore, MemStoreConfig};
use std::sync::Arc;

fn cell(prefix: &str, i: usize) -> Cell {
    Cell::put(
        format!("{prefix}{i:05}").as_bytes(),
        b"cf",
        b"q",
        1,
        &[(i % 251) as u8; 100],
    )
    .unwrap()
    .with_seq_id(1)
}

#[test]
fn chunks_return_to_the_pool_only_after_the_last_scanner_drops() {
    let pool = ChunkPool::new(4096, 64);
    let memstore = MemStore::new(MemStoreConfig {
        pool: Some(Arc::clone(&pool)),
        ..MemStoreConfig::default()
    });
    let originals: Vec<Cell> = (0..200).map(|i| cell("old", i)).collect();
    for c in &originals {
        memstore.add(c.as_cell_ref());
    }
    let snapshot = memstore.snapshot().unwrap();
    let chunks = snapshot.chunk_count() as u64;
    assert!(chunks >= 5, "{chunks} chunks");
    let weak = Arc::downgrade(&snapshot);
    let mut scanner = memstore.scanners(u64::MAX).remove(0);
    assert_eq!(scanner.segment().id(), snapshot.id());
    let id = snapshot.id();
    drop(snapshot);
    memstore.clear_snapshot(id);
    assert_eq!(
        memstore.segments().len(),
        1,
        "only the active segment is left"
    );

    assert!(weak.upgrade().is_some(), "the scanner holds the segment");
    assert_eq!(pool.stats().returned, 0, "no chunk went back yet");

    // The active segment now takes chunks from the pool. Had the snapshot's chunks been
    // given back early, these writes would overwrite the cells the scanner is reading.
    for i in 0..400 {
        memstore.add(cell("new", i).as_cell_ref());
    }
    assert_eq!(pool.stats().reused, 0);
    for expected in &originals {
        assert_eq!(scanner.peek().unwrap().to_cell(), *expected);
        scanner.advance().unwrap();
    }
    assert!(scanner.peek().is_none());

    drop(scanner);
    assert!(weak.upgrade().is_none(), "the last holder let go");
    let stats = pool.stats();
    assert_eq!(stats.returned, chunks);
    assert_eq!(stats.pooled, chunks);

    // The next segment reuses them.
    let snapshot = memstore.snapshot().unwrap();
    memstore.clear_snapshot(snapshot.id());
    drop(snapshot);
    memstore.add(cell("newer", 0).as_cell_ref());
    assert_eq!(pool.stats().reused, 1);
}
