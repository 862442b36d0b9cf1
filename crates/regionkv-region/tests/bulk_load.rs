//! Bulk loads into one region (`bulk_load.rs`): the reserved sequence id orders loaded cells
//! after earlier writes and before later ones; a staged file is invisible and swept away
//! until it is committed; a commit (online or on disk at recovery) is atomic and
//! idempotent; bad input leaves no file behind.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::Path;
use std::sync::Arc;

use common::{Harness, region_dir, table};
use regionkv_cell::Cell;
use regionkv_fs::{Fs, MemFs};
use regionkv_region::bulk_load::apply_bulk_files_on_disk;
use regionkv_region::{Durability, Error, RegionConfig};

fn harness(fs: &MemFs) -> Harness {
    Harness::new(
        Arc::new(fs.clone()),
        table(1 << 20, &[b"cf", b"cg"]),
        RegionConfig::default(),
        false,
    )
}

fn cell(row: &str, q: &str, ts: i64, v: &str) -> Cell {
    Cell::put(row.as_bytes(), b"cf", q.as_bytes(), ts, v.as_bytes()).unwrap()
}

/// The value a read sees per column: the raw view's first cell of each (row, column), as
/// cells of equal timestamp come newest sequence id first.
fn values(h: &Harness) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for (row, fam, q, _, _, v) in h.dump() {
        let k = format!("{row}/{fam}:{q}");
        if out.last().is_none_or(|(last, _)| *last != k) {
            out.push((k, v));
        }
    }
    out
}

fn store_files(fs: &MemFs) -> Vec<String> {
    fs.list(&region_dir().join("cf")).unwrap()
}

#[test]
fn loaded_cells_win_over_earlier_writes_and_lose_to_later_ones() {
    let fs = MemFs::new();
    let h = harness(&fs);
    let put = |row: &str, v: &str| {
        let c = cell(row, "q", 5, v);
        h.region()
            .mutate_row(row.as_bytes(), vec![c], Durability::SyncWal)
            .unwrap()
    };
    let before = put("a", "written-before");
    let seq = h.region().reserve_bulk_load_seq_id().unwrap();
    assert!(seq > before);
    assert_eq!(
        h.region().memstore_data_size(),
        0,
        "the memstore was flushed first"
    );
    let mut cells = vec![cell("a", "q", 5, "loaded"), cell("b", "q", 5, "loaded")].into_iter();
    let meta = h
        .region()
        .write_bulk_file(b"cf", &mut cells, seq)
        .unwrap()
        .unwrap();
    assert_eq!(meta.max_seq_id, seq);
    assert_eq!(
        values(&h),
        [("a/cf:q".into(), "written-before".into())],
        "staged: invisible"
    );
    h.region()
        .commit_bulk_files(&[(b"cf".to_vec(), meta.clone())])
        .unwrap();
    assert_eq!(
        values(&h),
        [
            ("a/cf:q".into(), "loaded".into()),
            ("b/cf:q".into(), "loaded".into())
        ]
    );
    // Committing again changes nothing.
    h.region()
        .commit_bulk_files(&[(b"cf".to_vec(), meta)])
        .unwrap();
    assert_eq!(h.region().manifest().stores[&b"cf".to_vec()].files.len(), 2);
    let after = put("b", "written-after");
    assert!(after > seq);
    assert_eq!(
        values(&h),
        [
            ("a/cf:q".into(), "loaded".into()),
            ("b/cf:q".into(), "written-after".into())
        ]
    );
    assert_eq!(
        h.region()
            .metrics()
            .bulk_loads
            .load(std::sync::atomic::Ordering::Relaxed),
        1
    );
}

#[test]
fn a_staged_file_is_swept_at_the_next_open_and_a_committed_one_stays() {
    let fs = MemFs::new();
    let mut h = harness(&fs);
    let seq = h.region().reserve_bulk_load_seq_id().unwrap();
    let mut cells = vec![cell("a", "q", 5, "staged")].into_iter();
    let staged = h
        .region()
        .write_bulk_file(b"cf", &mut cells, seq)
        .unwrap()
        .unwrap();
    assert!(store_files(&fs).contains(&staged.name));
    h.restart();
    assert!(
        !store_files(&fs).contains(&staged.name),
        "a leftover of an uncommitted load"
    );
    assert!(values(&h).is_empty());

    let seq = h.region().reserve_bulk_load_seq_id().unwrap();
    let mut cells = vec![cell("a", "q", 5, "kept")].into_iter();
    let meta = h
        .region()
        .write_bulk_file(b"cf", &mut cells, seq)
        .unwrap()
        .unwrap();
    h.region()
        .commit_bulk_files(&[(b"cf".to_vec(), meta)])
        .unwrap();
    h.restart();
    assert_eq!(values(&h), [("a/cf:q".into(), "kept".into())]);
    // File ids continue past the loaded file: a flush gets a fresh name.
    h.put("z", b"cf", "q", "v", Durability::SyncWal).unwrap();
    h.region().flush().unwrap();
    h.restart();
    assert_eq!(values(&h).len(), 2);
}

#[test]
fn recovery_applies_a_recorded_load_to_the_closed_region_once() {
    let fs = MemFs::new();
    let mut h = harness(&fs);
    let seq = h.region().reserve_bulk_load_seq_id().unwrap();
    let mut cells = vec![cell("r", "q", 7, "recovered")].into_iter();
    let meta = h
        .region()
        .write_bulk_file(b"cf", &mut cells, seq)
        .unwrap()
        .unwrap();
    h.stop();
    let files = [(b"cf".to_vec(), meta)];
    assert!(apply_bulk_files_on_disk(&fs, &region_dir(), &files).unwrap());
    assert!(
        !apply_bulk_files_on_disk(&fs, &region_dir(), &files).unwrap(),
        "idempotent"
    );
    h.start().unwrap();
    assert_eq!(values(&h), [("r/cf:q".into(), "recovered".into())]);
    // A record naming a missing file is an error, not a silent loss.
    let mut missing = files.clone();
    missing[0].1.name = "999.sf".into();
    h.stop();
    assert!(matches!(
        apply_bulk_files_on_disk(&fs, &region_dir(), &missing),
        Err(Error::Inconsistent { .. })
    ));
    assert!(matches!(
        apply_bulk_files_on_disk(&fs, Path::new("/db/data/default/t1/none"), &files),
        Err(Error::Inconsistent { .. })
    ));
}

#[test]
fn bad_input_leaves_no_file() {
    let fs = MemFs::new();
    let h = harness(&fs);
    let seq = h.region().reserve_bulk_load_seq_id().unwrap();
    let listed = store_files(&fs);
    // A cell of another family.
    let mut cells = vec![
        cell("a", "q", 5, "v"),
        Cell::put(b"b", b"cg", b"q", 5, b"v").unwrap(),
    ]
    .into_iter();
    assert!(matches!(
        h.region().write_bulk_file(b"cf", &mut cells, seq),
        Err(Error::NoSuchColumnFamily { .. })
    ));
    // Out of order.
    let mut cells = vec![cell("b", "q", 5, "v"), cell("a", "q", 5, "v")].into_iter();
    assert!(h.region().write_bulk_file(b"cf", &mut cells, seq).is_err());
    // A family the table does not have.
    let mut cells = vec![cell("a", "q", 5, "v")].into_iter();
    assert!(matches!(
        h.region().write_bulk_file(b"nope", &mut cells, seq),
        Err(Error::NoSuchColumnFamily { .. })
    ));
    assert_eq!(store_files(&fs), listed);
    // No cells: no file.
    let mut none = std::iter::empty();
    assert_eq!(
        h.region().write_bulk_file(b"cf", &mut none, seq).unwrap(),
        None
    );
    assert_eq!(store_files(&fs), listed);
}
