//! The flush protocol of HBase's `DefaultMemStore`: `snapshot` moves the active segment,
//! a second `snapshot` before `clear_snapshot` returns the same one, an empty memstore has
//! nothing to snapshot, and `clear_snapshot` ignores (or `try_clear_snapshot` reports) a
//! wrong id. Reads see snapshot then active.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use regionkv_cell::{Cell, KeyValueScanner};
use regionkv_memstore::{Error, MemStore};
use std::sync::Arc;

fn put(row: &[u8], seq: u64) -> Cell {
    Cell::put(row, b"cf", b"q", 1, b"v")
        .unwrap()
        .with_seq_id(seq)
}

#[test]
fn snapshot_of_an_empty_memstore_is_none() {
    let memstore = MemStore::default();
    assert!(memstore.snapshot().is_none());
    assert_eq!(memstore.segments().len(), 1);
}

#[test]
fn snapshot_twice_without_clearing_returns_the_same_snapshot() {
    let memstore = MemStore::default();
    memstore.add(put(b"a", 1).as_cell_ref());
    let first = memstore.snapshot().unwrap();
    memstore.add(put(b"b", 2).as_cell_ref());
    let again = memstore.snapshot().unwrap();
    assert!(Arc::ptr_eq(&first, &again));
    assert_eq!(first.len(), 1);
    assert_eq!(
        memstore.active_size().cell_count,
        1,
        "b stayed in the active segment"
    );
}

#[test]
fn clear_snapshot_with_a_wrong_id_changes_nothing() {
    let memstore = MemStore::default();
    memstore.add(put(b"a", 1).as_cell_ref());
    let snapshot = memstore.snapshot().unwrap();
    let wrong = snapshot.id() + 1000;
    memstore.clear_snapshot(wrong);
    assert_eq!(memstore.segments().len(), 2);
    assert_eq!(
        memstore.try_clear_snapshot(wrong),
        Err(Error::SnapshotIdMismatch {
            current: snapshot.id(),
            given: wrong
        })
    );
    memstore.try_clear_snapshot(snapshot.id()).unwrap();
    assert_eq!(memstore.segments().len(), 1);
    // Clearing again is a no-op, as in HBase.
    memstore.try_clear_snapshot(snapshot.id()).unwrap();
    // And the next snapshot is a new segment with a new id.
    memstore.add(put(b"c", 3).as_cell_ref());
    let next = memstore.snapshot().unwrap();
    assert_ne!(next.id(), snapshot.id());
}

#[test]
fn reads_see_snapshot_then_active_at_their_read_point() {
    let memstore = MemStore::default();
    memstore.add(put(b"a", 1).as_cell_ref());
    memstore.add(put(b"c", 5).as_cell_ref());
    let snapshot = memstore.snapshot().unwrap();
    memstore.add(put(b"b", 2).as_cell_ref());
    memstore.add(put(b"d", 6).as_cell_ref());
    let segments = memstore.segments();
    assert_eq!(segments[0].id(), snapshot.id());
    assert_eq!((segments[0].max_seq_id(), segments[1].max_seq_id()), (5, 6));
    let rows = |read_point| -> Vec<Vec<Vec<u8>>> {
        memstore
            .scanners(read_point)
            .into_iter()
            .map(|mut s| {
                let mut rows = Vec::new();
                while let Some(c) = s.peek() {
                    rows.push(c.row().to_vec());
                    s.advance().unwrap();
                }
                rows
            })
            .collect()
    };
    assert_eq!(rows(2), vec![vec![b"a".to_vec()], vec![b"b".to_vec()]]);
    assert_eq!(
        rows(u64::MAX),
        vec![
            vec![b"a".to_vec(), b"c".to_vec()],
            vec![b"b".to_vec(), b"d".to_vec()]
        ]
    );
    assert_eq!(rows(0), vec![Vec::<Vec<u8>>::new(), Vec::new()]);
}
