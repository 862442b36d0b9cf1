//! The region's request counters as HBase 2.x counts them (`RegionScannerImpl.nextRaw`,
//! `incrementCountOfRowsFilteredMetric`, `HRegion.batchMutate`). The cases follow HBase's
//! TestRegionServerReadRequestMetrics: rows r1..r3 with e:c1 = v1, v2, v1.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::Harness;
use regionkv_cell::{Cell, CellType};
use regionkv_fs::MemFs;
use regionkv_region::Durability;
use regionkv_region::filter::parse::parse_filter;
use regionkv_region::{
    ColumnFamilyDescriptor, ReadQuery, Region, RegionConfig, RegionScan, TableDescriptor,
};
use std::sync::Arc;
use std::sync::atomic::Ordering;

fn harness() -> Harness {
    let mut ttl = ColumnFamilyDescriptor::new(b"t").unwrap();
    ttl.ttl_seconds = 1;
    let t =
        TableDescriptor::new("t1", vec![ColumnFamilyDescriptor::new(b"e").unwrap(), ttl]).unwrap();
    let h = Harness::new(Arc::new(MemFs::new()), t, RegionConfig::default(), false);
    for (row, v) in [("r1", "v1"), ("r2", "v2"), ("r3", "v1")] {
        h.put(row, b"e", "c1", v, Durability::SyncWal).unwrap();
        h.put(row, b"e", "c2", "x", Durability::SyncWal).unwrap();
    }
    h
}

/// (reads, filtered reads, writes) so far.
fn counts(r: &Region) -> (u64, u64, u64) {
    let m = r.metrics();
    (
        m.read_requests.load(Ordering::Relaxed),
        m.filtered_read_requests.load(Ordering::Relaxed),
        m.write_requests.load(Ordering::Relaxed),
    )
}

/// Runs `f` and returns what it added to the counters.
fn delta(r: &Region, f: impl FnOnce()) -> (u64, u64, u64) {
    let before = counts(r);
    f();
    let after = counts(r);
    (after.0 - before.0, after.1 - before.1, after.2 - before.2)
}

fn scan_rows(r: &Region, scan: &RegionScan, filter: Option<&str>) -> usize {
    let f = filter.map(|f| parse_filter(f).unwrap());
    let mut rows = 0;
    for row in r.scan_filtered(scan, f).unwrap() {
        row.unwrap();
        rows += 1;
    }
    rows
}

#[test]
fn a_scan_counts_one_read_per_row_returned() {
    let h = harness();
    let r = h.region();
    // Six puts, one write each; opening a scanner counts nothing.
    assert_eq!(counts(r), (0, 0, 6));
    assert_eq!(
        delta(r, || assert_eq!(scan_rows(r, &RegionScan::all(), None), 3)),
        (3, 0, 0)
    );
    let mut range = RegionScan::all();
    range.start_row = b"r2".to_vec();
    range.stop_row = b"r3".to_vec();
    assert_eq!(
        delta(r, || assert_eq!(scan_rows(r, &range, None), 1)),
        (1, 0, 0)
    );
    // A scanner dropped early counts only what it returned.
    assert_eq!(
        delta(r, || {
            let mut s = r.scan(&RegionScan::all()).unwrap();
            s.next_row().unwrap().unwrap();
        }),
        (1, 0, 0)
    );
    let mut limited = RegionScan::all();
    limited.limit = Some(2);
    assert_eq!(
        delta(r, || assert_eq!(scan_rows(r, &limited, None), 2)),
        (2, 0, 0)
    );
    let mut reversed = RegionScan::all();
    reversed.reversed = true;
    assert_eq!(
        delta(r, || assert_eq!(scan_rows(r, &reversed, None), 3)),
        (3, 0, 0)
    );
}

#[test]
fn batch_pieces_are_one_read_each() {
    let h = harness();
    let r = h.region();
    let mut scan = RegionScan::all();
    scan.batch = Some(1);
    // Three rows of two cells: six results, six `nextRaw` calls.
    assert_eq!(
        delta(r, || assert_eq!(scan_rows(r, &scan, None), 6)),
        (6, 0, 0)
    );
}

#[test]
fn filtered_rows_count_as_filtered_reads() {
    let h = harness();
    let r = h.region();
    let all = RegionScan::all();
    // SingleColumnValueFilter drops r2 at the end of the row (filterRow).
    let scvf = "SingleColumnValueFilter('e', 'c1', =, 'binary:v1')";
    assert_eq!(
        delta(r, || assert_eq!(scan_rows(r, &all, Some(scvf)), 2)),
        (2, 1, 0)
    );
    // RowFilter drops r2 and r3 by key (filterRowKey).
    let row1 = "RowFilter(=, 'binary:r1')";
    assert_eq!(
        delta(r, || assert_eq!(scan_rows(r, &all, Some(row1)), 1)),
        (1, 2, 0)
    );
    let mut range = RegionScan::all();
    range.start_row = b"r2".to_vec();
    range.stop_row = b"r3".to_vec();
    assert_eq!(
        delta(r, || assert_eq!(scan_rows(r, &range, Some(row1)), 0)),
        (0, 1, 0)
    );
    // A filter that is done stops the scan: PageFilter(1) returns r1 and meets no more rows.
    assert_eq!(
        delta(r, || assert_eq!(
            scan_rows(r, &all, Some("PageFilter(1)")),
            1
        )),
        (1, 0, 0)
    );
}

#[test]
fn deleted_and_expired_rows_are_filtered_reads() {
    let h = harness();
    let r = h.region();
    let marker = Cell::delete_marker(b"r3", b"e", b"", i64::MAX, CellType::DeleteFamily).unwrap();
    assert_eq!(
        delta(r, || {
            r.mutate_row(b"r3", vec![marker], Durability::SyncWal)
                .unwrap();
        }),
        (0, 0, 1)
    );
    assert_eq!(
        delta(r, || assert_eq!(scan_rows(r, &RegionScan::all(), None), 2)),
        (2, 1, 0)
    );

    // Family t has a TTL of one second: r1's cell expires, r2's and r3's are fresh.
    h.put("r1", b"t", "c", "old", Durability::SyncWal).unwrap();
    h.clock.advance(2_000);
    h.put("r2", b"t", "c", "new", Durability::SyncWal).unwrap();
    h.put("r3", b"t", "c", "new", Durability::SyncWal).unwrap();
    let mut only_t = RegionScan::all();
    only_t.query = ReadQuery::default().family(b"t");
    assert_eq!(
        delta(r, || assert_eq!(scan_rows(r, &only_t, None), 2)),
        (2, 1, 0)
    );
}

#[test]
fn a_get_is_a_read_when_it_returns_cells() {
    let h = harness();
    let r = h.region();
    let q = ReadQuery::default();
    assert_eq!(
        delta(r, || assert!(!r.get(b"r2", &q).unwrap().is_empty())),
        (1, 0, 0)
    );
    // An absent row: neither a read nor a filtered read (HBase 2.x counts non-empty
    // results only).
    assert_eq!(
        delta(r, || assert!(r.get(b"zz", &q).unwrap().is_empty())),
        (0, 0, 0)
    );
    // A row there but filtered out, or without the asked column: a filtered read.
    let f = parse_filter("ValueFilter(=, 'binary:nothing')").unwrap();
    assert_eq!(
        delta(r, || assert!(
            r.get_filtered(b"r2", &q, Some(f)).unwrap().is_empty()
        )),
        (0, 1, 0)
    );
    let missing = ReadQuery::default().column(b"e", b"c9");
    assert_eq!(
        delta(r, || assert!(r.get(b"r2", &missing).unwrap().is_empty())),
        (0, 1, 0)
    );
}

#[test]
fn writes_count_mutations_not_cells() {
    let h = harness();
    let r = h.region();
    let cells = vec![
        Cell::put(b"r9", b"e", b"a", i64::MAX, b"1").unwrap(),
        Cell::put(b"r9", b"e", b"b", i64::MAX, b"2").unwrap(),
        Cell::put(b"r9", b"t", b"a", i64::MAX, b"3").unwrap(),
    ];
    // One Put of three cells: one write.
    assert_eq!(
        delta(r, || {
            r.mutate_row(b"r9", cells.clone(), Durability::SyncWal)
                .unwrap();
        }),
        (0, 0, 1)
    );
    // A RowMutations of two mutations: two (HBase's batchMutate adds the batch size).
    assert_eq!(
        delta(r, || {
            r.mutate_row_counted(b"r9", Durability::SyncWal, 2, |_, _| {
                Ok::<_, regionkv_region::Error>((cells, ()))
            })
            .unwrap();
        }),
        (0, 0, 2)
    );
    // A read-modify-write that decides to write nothing (a failed check): no write.
    assert_eq!(
        delta(r, || {
            r.mutate_row_with(b"r9", Durability::SyncWal, |_, _| {
                Ok::<_, regionkv_region::Error>((Vec::new(), ()))
            })
            .unwrap();
        }),
        (0, 0, 0)
    );
}
