//! HBase's read semantics as facts: each test is an example from the HBase reference guide
//! or a case of HBase's own tests (TestKeepDeletes, TestMinVersions), run through the
//! memstore, flush and major compaction, with the exact expected cells.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::Harness;
use regionkv_cell::{Cell, CellType, TimeRange};
use regionkv_fs::MemFs;
use regionkv_region::Durability;
use regionkv_region::{
    ColumnFamilyDescriptor, KeepDeletedCells, ReadQuery, RegionConfig, RegionScan, TableDescriptor,
};
use std::sync::Arc;

fn harness(family: ColumnFamilyDescriptor) -> Harness {
    let t = TableDescriptor::new("t1", vec![family]).unwrap();
    Harness::new(Arc::new(MemFs::new()), t, RegionConfig::default(), false)
}

fn family(f: impl FnOnce(&mut ColumnFamilyDescriptor)) -> ColumnFamilyDescriptor {
    let mut d = ColumnFamilyDescriptor::new(b"e").unwrap();
    f(&mut d);
    d
}

fn mutate(h: &Harness, cells: Vec<Cell>) {
    let row = cells[0].row().to_vec();
    h.region()
        .mutate_row(&row, cells, Durability::SyncWal)
        .unwrap();
}

fn put(h: &Harness, row: &str, q: &str, ts: i64, v: &str) {
    mutate(
        h,
        vec![Cell::put(row.as_bytes(), b"e", q.as_bytes(), ts, v.as_bytes()).unwrap()],
    );
}

fn delete(h: &Harness, row: &str, q: &str, ts: i64, t: CellType) {
    mutate(
        h,
        vec![Cell::delete_marker(row.as_bytes(), b"e", q.as_bytes(), ts, t).unwrap()],
    );
}

/// Cells in the shell's notation: `row/fam:qual/ts/Type=value`.
fn show(cells: &[Cell]) -> Vec<String> {
    cells
        .iter()
        .map(|c| {
            format!(
                "{}/{}:{}/{}/{}={}",
                String::from_utf8_lossy(c.row()),
                String::from_utf8_lossy(c.family()),
                String::from_utf8_lossy(c.qualifier()),
                c.timestamp(),
                c.cell_type(),
                String::from_utf8_lossy(c.value())
            )
        })
        .collect()
}

fn scan(h: &Harness, q: ReadQuery) -> Vec<String> {
    let s = RegionScan {
        query: q,
        ..RegionScan::all()
    };
    let rows: Vec<Cell> = h
        .region()
        .scan(&s)
        .unwrap()
        .flat_map(|r| r.unwrap())
        .collect();
    show(&rows)
}

fn raw_all(h: &Harness) -> Vec<String> {
    scan(h, ReadQuery::default().raw().versions(1000))
}

/// The reference guide, "Keep Deleted Cells", first example (KEEP_DELETED_CELLS false):
/// the flush drops the put the DeleteColumn masks; the major compaction drops the marker.
#[test]
fn reference_guide_keep_deleted_cells_false() {
    let h = harness(family(|f| f.max_versions = i32::MAX as u32));
    put(&h, "r1", "c1", 10, "value");
    put(&h, "r1", "c1", 12, "value");
    put(&h, "r1", "c1", 14, "value");
    delete(&h, "r1", "c1", 11, CellType::DeleteColumn);
    assert_eq!(
        raw_all(&h),
        [
            "r1/e:c1/14/Put=value",
            "r1/e:c1/12/Put=value",
            "r1/e:c1/11/DeleteColumn=",
            "r1/e:c1/10/Put=value",
        ]
    );
    h.region().flush().unwrap();
    assert_eq!(
        raw_all(&h),
        [
            "r1/e:c1/14/Put=value",
            "r1/e:c1/12/Put=value",
            "r1/e:c1/11/DeleteColumn="
        ]
    );
    h.region().major_compact().unwrap();
    assert_eq!(
        raw_all(&h),
        ["r1/e:c1/14/Put=value", "r1/e:c1/12/Put=value"]
    );
}

/// The reference guide, "Keep Deleted Cells", second example (KEEP_DELETED_CELLS true):
/// nothing is dropped by the flush or the major compaction.
#[test]
fn reference_guide_keep_deleted_cells_true() {
    let h = harness(family(|f| {
        f.max_versions = i32::MAX as u32;
        f.keep_deleted_cells = KeepDeletedCells::True;
    }));
    put(&h, "r1", "c1", 10, "value");
    put(&h, "r1", "c1", 12, "value");
    put(&h, "r1", "c1", 14, "value");
    delete(&h, "r1", "c1", 11, CellType::DeleteColumn);
    let all = [
        "r1/e:c1/14/Put=value",
        "r1/e:c1/12/Put=value",
        "r1/e:c1/11/DeleteColumn=",
        "r1/e:c1/10/Put=value",
    ];
    assert_eq!(raw_all(&h), all);
    h.region().flush().unwrap();
    assert_eq!(raw_all(&h), all);
    h.region().major_compact().unwrap();
    assert_eq!(raw_all(&h), all);
    // A normal read still does not see the deleted version...
    assert_eq!(
        scan(&h, ReadQuery::default().versions(10)),
        ["r1/e:c1/14/Put=value", "r1/e:c1/12/Put=value"]
    );
    // ...but a point-in-time read before the delete does.
    assert_eq!(
        scan(
            &h,
            ReadQuery::default()
                .versions(10)
                .time_range(TimeRange::between(0, 11).unwrap())
        ),
        ["r1/e:c1/10/Put=value"]
    );
}

/// KEEP_DELETED_CELLS false: a time range ending before a delete does not bring the data
/// back (the marker is "within or after" the range; TestKeepDeletes#testWithoutKeepingDeletes).
#[test]
fn without_keep_deleted_cells_time_travel_does_not_undelete() {
    let h = harness(family(|f| f.max_versions = 3));
    put(&h, "r1", "c", 10, "v");
    delete(&h, "r1", "", 20, CellType::DeleteFamily);
    let before = ReadQuery::default().time_range(TimeRange::between(0, 15).unwrap());
    assert!(scan(&h, before.clone()).is_empty());
    assert!(h.region().get(b"r1", &before).unwrap().is_empty());
}

/// "Deletes mask puts": a put written after a delete, with an older timestamp, stays
/// masked until a major compaction removes the marker (datamodel.adoc).
#[test]
fn deletes_mask_later_puts_until_major_compaction() {
    let h = harness(family(|f| f.max_versions = 3));
    delete(&h, "r", "q", 100, CellType::DeleteColumn);
    put(&h, "r", "q", 50, "written-after");
    assert!(
        h.region()
            .get(b"r", &ReadQuery::default())
            .unwrap()
            .is_empty()
    );
    h.region().flush().unwrap();
    assert!(
        h.region()
            .get(b"r", &ReadQuery::default())
            .unwrap()
            .is_empty()
    );
    h.region().major_compact().unwrap();
    // The compaction removed the marker and the put it masked.
    assert!(raw_all(&h).is_empty());
    put(&h, "r", "q", 50, "written-after-compaction");
    assert_eq!(
        scan(&h, ReadQuery::default()),
        ["r/e:q/50/Put=written-after-compaction"]
    );
}

/// Deleting the newest version uncovers an older one only while the older one still
/// exists: a flush with VERSIONS=1 drops it ("major compactions change query results").
#[test]
fn deleting_the_newest_version_uncovers_older_only_until_flush() {
    // Not flushed: both versions are in the memstore.
    let h = harness(family(|_| {}));
    put(&h, "r", "q", 1, "v1");
    put(&h, "r", "q", 2, "v2");
    delete(&h, "r", "q", 2, CellType::Delete);
    assert_eq!(scan(&h, ReadQuery::default()), ["r/e:q/1/Put=v1"]);

    // Flushed before the delete: the flush kept only VERSIONS=1, so nothing comes back.
    let h = harness(family(|_| {}));
    put(&h, "r", "q", 1, "v1");
    put(&h, "r", "q", 2, "v2");
    h.region().flush().unwrap();
    delete(&h, "r", "q", 2, CellType::Delete);
    assert!(scan(&h, ReadQuery::default()).is_empty());
}

/// Versions returned are min(requested, family VERSIONS), newest first; a raw scan is not
/// capped by the family.
#[test]
fn versions_are_capped_by_the_family() {
    let h = harness(family(|f| f.max_versions = 3));
    for ts in 1..=5 {
        put(&h, "r", "q", ts, &format!("v{ts}"));
    }
    assert_eq!(scan(&h, ReadQuery::default()), ["r/e:q/5/Put=v5"]);
    assert_eq!(
        scan(&h, ReadQuery::default().versions(10)),
        ["r/e:q/5/Put=v5", "r/e:q/4/Put=v4", "r/e:q/3/Put=v3"]
    );
    assert_eq!(raw_all(&h).len(), 5, "raw shows every stored version");
    // A time range excluding the newest shows older versions still stored.
    assert_eq!(
        scan(
            &h,
            ReadQuery::default()
                .versions(10)
                .time_range(TimeRange::between(1, 3).unwrap())
        ),
        ["r/e:q/2/Put=v2", "r/e:q/1/Put=v1"]
    );
    h.region().flush().unwrap();
    assert_eq!(
        raw_all(&h).len(),
        3,
        "the flush dropped versions beyond VERSIONS"
    );
}

/// TTL: a cell is visible up to exactly ts + TTL; MIN_VERSIONS keeps the newest versions
/// even when expired (TestMinVersions#testMinVersionsWithKeepDeletedCellsTTL-style facts).
#[test]
fn ttl_and_min_versions() {
    let h = harness(family(|f| {
        f.ttl_seconds = 1;
        f.max_versions = 3;
    }));
    h.clock.set(10_000);
    put(&h, "r", "q", 9_000, "old");
    assert_eq!(
        scan(&h, ReadQuery::default()),
        ["r/e:q/9000/Put=old"],
        "ts + TTL = now: visible"
    );
    h.clock.set(10_001);
    assert!(scan(&h, ReadQuery::default()).is_empty(), "expired");
    assert_eq!(raw_all(&h), ["r/e:q/9000/Put=old"], "raw scans ignore TTL");
    h.region().flush().unwrap();
    assert!(raw_all(&h).is_empty(), "the flush dropped the expired cell");

    let h = harness(family(|f| {
        f.ttl_seconds = 1;
        f.max_versions = 3;
        f.min_versions = 1;
    }));
    h.clock.set(100_000);
    put(&h, "r", "q", 1_000, "v1");
    put(&h, "r", "q", 2_000, "v2");
    assert_eq!(
        scan(&h, ReadQuery::default().versions(3)),
        ["r/e:q/2000/Put=v2"],
        "the newest expired version is kept by MIN_VERSIONS=1"
    );
    h.region().flush().unwrap();
    assert_eq!(raw_all(&h), ["r/e:q/2000/Put=v2"]);
}

/// Explicit columns, family markers, and family-version markers (TestScanDeleteTracker
/// facts through the region).
#[test]
fn explicit_columns_and_family_markers() {
    let h = harness(family(|f| f.max_versions = 5));
    put(&h, "r", "a", 10, "a10");
    put(&h, "r", "b", 10, "b10");
    put(&h, "r", "b", 20, "b20");
    put(&h, "r", "c", 30, "c30");
    delete(&h, "r", "", 10, CellType::DeleteFamilyVersion);
    assert_eq!(
        scan(&h, ReadQuery::default().versions(5)),
        ["r/e:b/20/Put=b20", "r/e:c/30/Put=c30"]
    );
    let get = ReadQuery::default()
        .column(b"e", b"c")
        .column(b"e", b"a")
        .versions(5);
    assert_eq!(
        show(&h.region().get(b"r", &get).unwrap()),
        ["r/e:c/30/Put=c30"]
    );
    delete(&h, "r", "", 25, CellType::DeleteFamily);
    assert_eq!(
        scan(&h, ReadQuery::default().versions(5)),
        ["r/e:c/30/Put=c30"]
    );
    h.region().flush().unwrap();
    h.region().major_compact().unwrap();
    assert_eq!(raw_all(&h), ["r/e:c/30/Put=c30"]);
}

/// Scans honour start/stop rows with their inclusivity, and LIMIT counts rows.
#[test]
fn scan_ranges_and_limit() {
    let h = harness(family(|_| {}));
    for r in ["a", "b", "c", "d"] {
        put(&h, r, "q", 1, r);
    }
    h.region().flush().unwrap();
    put(&h, "bb", "q", 1, "bb");
    let rows = |s: RegionScan| -> Vec<String> {
        h.region()
            .scan(&s)
            .unwrap()
            .map(|r| String::from_utf8_lossy(r.unwrap()[0].row()).into_owned())
            .collect()
    };
    let base = RegionScan::all();
    assert_eq!(rows(base.clone()), ["a", "b", "bb", "c", "d"]);
    let s = RegionScan {
        start_row: b"b".to_vec(),
        stop_row: b"d".to_vec(),
        ..base.clone()
    };
    assert_eq!(rows(s.clone()), ["b", "bb", "c"]);
    let s2 = RegionScan {
        include_start: false,
        include_stop: true,
        ..s.clone()
    };
    assert_eq!(rows(s2), ["bb", "c", "d"]);
    let s3 = RegionScan {
        limit: Some(2),
        ..s
    };
    assert_eq!(rows(s3), ["b", "bb"]);
}

#[test]
fn raw_scans_reject_explicit_columns() {
    let h = harness(family(|_| {}));
    let e = h
        .region()
        .get(b"r", &ReadQuery::default().raw().column(b"e", b"q"))
        .unwrap_err();
    assert_eq!(e.to_string(), "Cannot specify any column for a raw scan");
}

/// Reversed scans (HBase §9): rows descending, START the highest row (inclusive), STOP the
/// exclusive lower bound; cells inside a row keep ascending order; rows whose cells are all
/// deleted are skipped; the result is the forward scan reversed row by row.
#[test]
fn reversed_scans() {
    let h = harness(family(|f| f.max_versions = 3));
    for r in ["a", "b", "d"] {
        put(&h, r, "q1", 1, r);
        put(&h, r, "q2", 1, r);
    }
    h.region().flush().unwrap();
    put(&h, "c", "q1", 1, "c");
    put(&h, "e", "q1", 1, "e");
    put(&h, "d", "q1", 2, "d2");
    delete(&h, "b", "", 5, CellType::DeleteFamily);
    let rows = |s: RegionScan| -> Vec<String> {
        h.region()
            .scan(&s)
            .unwrap()
            .map(|r| {
                let cells = r.unwrap();
                let quals: Vec<String> = cells
                    .iter()
                    .map(|c| String::from_utf8_lossy(c.qualifier()).into_owned())
                    .collect();
                format!(
                    "{}:{}",
                    String::from_utf8_lossy(cells[0].row()),
                    quals.join(",")
                )
            })
            .collect()
    };
    let rev = RegionScan {
        reversed: true,
        ..RegionScan::all()
    };
    assert_eq!(rows(rev.clone()), ["e:q1", "d:q1,q2", "c:q1", "a:q1,q2"]);
    let mut forward = rows(RegionScan::all());
    forward.reverse();
    assert_eq!(rows(rev.clone()), forward);
    let s = RegionScan {
        start_row: b"d".to_vec(),
        stop_row: b"a".to_vec(),
        ..rev.clone()
    };
    assert_eq!(rows(s.clone()), ["d:q1,q2", "c:q1"]);
    let s2 = RegionScan {
        include_start: false,
        include_stop: true,
        ..s.clone()
    };
    assert_eq!(rows(s2), ["c:q1", "a:q1,q2"]);
    let s3 = RegionScan {
        start_row: b"cz".to_vec(),
        limit: Some(1),
        ..rev.clone()
    };
    assert_eq!(rows(s3), ["c:q1"]);
    let versions = RegionScan {
        start_row: b"d".to_vec(),
        stop_row: b"c".to_vec(),
        query: ReadQuery::default().versions(3),
        ..rev
    };
    let cells: Vec<Cell> = h
        .region()
        .scan(&versions)
        .unwrap()
        .flat_map(|r| r.unwrap())
        .collect();
    assert_eq!(
        show(&cells),
        ["d/e:q1/2/Put=d2", "d/e:q1/1/Put=d", "d/e:q2/1/Put=d"]
    );
}

/// HBase's `prepareDeleteTimestamps`: `delete 't', 'r', 'f:q'` without a timestamp places a
/// one-version Delete at the newest visible version's timestamp (the n-th newest for the
/// n-th such Delete in one mutation), or at "now" when the column has no visible version.
#[test]
fn delete_without_timestamp_targets_the_newest_visible_version() {
    let h = harness(family(|f| f.max_versions = 5));
    h.clock.set(1_000);
    put(&h, "r", "q", 10, "v10");
    put(&h, "r", "q", 20, "v20");
    put(&h, "r", "q", 30, "v30");
    delete(&h, "r", "q", i64::MAX, CellType::Delete);
    assert_eq!(
        scan(&h, ReadQuery::default().versions(5)),
        ["r/e:q/20/Put=v20", "r/e:q/10/Put=v10"],
        "the newest version (30) was deleted"
    );
    // Two Deletes of the column in one mutation take the two newest visible versions.
    let cells = vec![
        Cell::delete_marker(b"r", b"e", b"q", i64::MAX, CellType::Delete).unwrap(),
        Cell::delete_marker(b"r", b"e", b"q", i64::MAX, CellType::Delete).unwrap(),
    ];
    mutate(&h, cells);
    assert!(scan(&h, ReadQuery::default().versions(5)).is_empty());
    // No visible version: the marker gets "now".
    delete(&h, "r", "other", i64::MAX, CellType::Delete);
    let raw = raw_all(&h);
    assert!(
        raw.contains(&"r/e:other/1000/Delete=".to_string()),
        "{raw:?}"
    );
    // A DeleteColumn without a timestamp simply gets "now".
    delete(&h, "r", "q", i64::MAX, CellType::DeleteColumn);
    assert!(raw_all(&h).contains(&"r/e:q/1000/DeleteColumn=".to_string()));
}

#[test]
fn row_prefix_scans_forward_and_reversed() {
    let h = harness(family(|_| {}));
    for r in ["ab", "abc", "abd", "ac", "b"] {
        put(&h, r, "q", 1, r);
    }
    let rows = |s: RegionScan| -> Vec<String> {
        h.region()
            .scan(&s)
            .unwrap()
            .map(|r| String::from_utf8_lossy(r.unwrap()[0].row()).into_owned())
            .collect()
    };
    assert_eq!(
        rows(RegionScan::all().row_prefix(b"ab")),
        ["ab", "abc", "abd"]
    );
    let rev = RegionScan {
        reversed: true,
        ..RegionScan::all()
    }
    .row_prefix(b"ab");
    assert_eq!(rows(rev), ["abd", "abc", "ab"]);
}

/// Time-range file skipping (HBase's shouldUseScanner) never changes results: a
/// DeleteFamily in a newer file still masks an older put for a read whose time range ends
/// before the marker, because the file's TimeRangeTracker reaches down to 0.
#[test]
fn time_range_file_skipping_keeps_newer_family_markers() {
    let h = harness(family(|f| f.max_versions = 3));
    put(&h, "r", "q", 10, "v10");
    h.region().flush().unwrap();
    delete(&h, "r", "", 100, CellType::DeleteFamily);
    h.region().flush().unwrap();
    put(&h, "r", "q", 200, "v200");
    h.region().flush().unwrap();
    let early = ReadQuery::default().time_range(TimeRange::between(0, 50).unwrap());
    assert!(scan(&h, early.clone()).is_empty());
    assert!(h.region().get(b"r", &early).unwrap().is_empty());
    let late = ReadQuery::default().time_range(TimeRange::between(150, 300).unwrap());
    assert_eq!(scan(&h, late), ["r/e:q/200/Put=v200"]);
}

/// HBase's `Scan.setBatch`: a row wider than the batch comes back as several results, in
/// cell order; LIMIT still counts rows.
#[test]
fn batch_splits_wide_rows() {
    let h = harness(family(|_| {}));
    for q in ["a", "b", "c", "d", "e"] {
        put(&h, "r1", q, 1, q);
    }
    put(&h, "r2", "a", 1, "a");
    let s = RegionScan {
        batch: Some(2),
        ..RegionScan::all()
    };
    let results: Vec<Vec<String>> = h
        .region()
        .scan(&s)
        .unwrap()
        .map(|r| show(&r.unwrap()))
        .collect();
    assert_eq!(
        results,
        vec![
            vec!["r1/e:a/1/Put=a".to_string(), "r1/e:b/1/Put=b".into()],
            vec!["r1/e:c/1/Put=c".into(), "r1/e:d/1/Put=d".into()],
            vec!["r1/e:e/1/Put=e".into()],
            vec!["r2/e:a/1/Put=a".into()],
        ]
    );
    let limited = RegionScan {
        batch: Some(2),
        limit: Some(1),
        ..RegionScan::all()
    };
    assert_eq!(
        h.region().scan(&limited).unwrap().count(),
        3,
        "one row, three results"
    );
}

/// HBase drops whole storefiles whose every cell is past the TTL without rewriting them
/// (only with MIN_VERSIONS = 0); files with a live cell stay.
#[test]
fn ttl_expired_files_are_removed_whole() {
    let h = harness(family(|f| {
        f.ttl_seconds = 10;
        f.max_versions = 3;
    }));
    h.clock.set(100_000);
    put(&h, "old", "q", 95_000, "a");
    h.region().flush().unwrap();
    put(&h, "new", "q", 99_000, "b");
    h.region().flush().unwrap();
    h.clock.set(106_000); // "old" expired at 105 000; "new" lives until 109 000
    let names: Vec<String> = h.region().manifest().stores[&b"e"[..]]
        .files
        .iter()
        .map(|f| f.name.clone())
        .collect();
    let r = h.region().remove_expired_files(b"e", &names).unwrap();
    assert_eq!(r.inputs.len(), 1);
    assert_eq!(r.output, None);
    assert_eq!(h.region().manifest().stores[&b"e"[..]].files.len(), 1);
    assert_eq!(raw_all(&h), ["new/e:q/99000/Put=b"]);
    // With MIN_VERSIONS > 0 nothing is removed.
    let h = harness(family(|f| {
        f.ttl_seconds = 10;
        f.max_versions = 3;
        f.min_versions = 1;
    }));
    h.clock.set(100_000);
    put(&h, "old", "q", 1_000, "a");
    h.region().flush().unwrap();
    let names: Vec<String> = h.region().manifest().stores[&b"e"[..]]
        .files
        .iter()
        .map(|f| f.name.clone())
        .collect();
    assert!(
        h.region()
            .remove_expired_files(b"e", &names)
            .unwrap()
            .inputs
            .is_empty()
    );
}

/// Column and row skips step over a few cells one by one and reseek past longer runs
/// (`StoreScanner`'s SKIP_STEPS): reads must give the same cells on both sides of that
/// boundary, with the versions spread over the memstore and several files.
#[test]
fn skips_past_many_versions_and_wide_rows_give_the_same_cells() {
    for hidden in [0usize, 1, 7, 8, 9, 30] {
        let h = harness(family(|f| f.max_versions = 2));
        // Row "a": column "c" with 2 + `hidden` versions, then "d"; row "b" follows.
        let versions = 2 + hidden as i64;
        for ts in 1..=versions {
            put(&h, "a", "c", ts, &format!("v{ts}"));
            if ts % 5 == 0 {
                h.region().flush().unwrap();
            }
        }
        put(&h, "a", "d", 1, "d1");
        put(&h, "b", "c", 1, "b1");
        // Row "w": 2 + `hidden` columns, of which an explicit-column get wants the first.
        for q in 0..2 + hidden {
            put(&h, "w", &format!("q{q:02}"), 1, "x");
        }
        put(&h, "x", "q00", 1, "next");
        let newest = format!("a/e:c/{versions}/Put=v{versions}");
        let second = format!("a/e:c/{}/Put=v{}", versions - 1, versions - 1);
        let all = scan(&h, ReadQuery::default().versions(2));
        assert_eq!(all.len(), 2 + 1 + 1 + (2 + hidden) + 1, "{hidden}: {all:?}");
        assert_eq!(
            all[..4],
            [
                newest.clone(),
                second,
                "a/e:d/1/Put=d1".into(),
                "b/e:c/1/Put=b1".into()
            ]
        );
        assert_eq!(all.last().unwrap(), "x/e:q00/1/Put=next");
        let one = scan(&h, ReadQuery::default());
        assert_eq!(
            one[..3],
            [newest, "a/e:d/1/Put=d1".into(), "b/e:c/1/Put=b1".into()]
        );
        // Explicit columns: the row is done after q00, and the scan moves on to "x".
        let cols = scan(&h, ReadQuery::default().column(b"e", b"q00"));
        assert_eq!(cols, ["w/e:q00/1/Put=x", "x/e:q00/1/Put=next"], "{hidden}");
        let got = h
            .region()
            .get(b"a", &ReadQuery::default().column(b"e", b"c").versions(1))
            .unwrap();
        assert_eq!(show(&got), [format!("a/e:c/{versions}/Put=v{versions}")]);
    }
}
