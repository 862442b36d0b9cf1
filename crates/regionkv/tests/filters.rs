//! Filters through the Table API, against the filter protocol model
//! (`regionkv::filter::reference::run_scan`): random rows, a filter from HBase's filter
//! language, a scan forward and reversed (with data in the memstore, in storefiles, or
//! both) — the rows must equal what the model gives for the same cells. Plus HBase's
//! version-after-filter rule and PageFilter's per-region count.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use proptest::prelude::*;
use regionkv::filter::{parse_filter, reference::run_scan};
use regionkv::{
    Cell, ColumnFamilyDescriptor, Db, DbOptions, Get, ManualClock, Put, Scan, TableDescriptor,
};
use std::sync::Arc;

const FILTERS: &[&str] = &[
    "PrefixFilter('r0')",
    "RowFilter(<, 'binary:r07')",
    "RowFilter(=, 'regexstring:r1[0-2]')",
    "FamilyFilter(=, 'binary:cg')",
    "QualifierFilter(>=, 'binary:c')",
    "ValueFilter(=, 'substring:3')",
    "ValueFilter(!=, 'binaryprefix:v1')",
    "ColumnPrefixFilter('b')",
    "MultipleColumnPrefixFilter('a', 'd')",
    "ColumnRangeFilter('b', true, 'd', false)",
    "SingleColumnValueFilter('cf', 'a', =, 'binary:v1')",
    "SingleColumnValueFilter('cf', 'a', =, 'binary:v1', true, true)",
    "SingleColumnValueExcludeFilter('cf', 'a', =, 'binary:v1')",
    "KeyOnlyFilter()",
    "KeyOnlyFilter(true)",
    "FirstKeyOnlyFilter()",
    "PageFilter(3)",
    "TimestampsFilter(5, 7)",
    "ColumnCountGetFilter(2)",
    "InclusiveStopFilter('r05')",
    "ColumnPaginationFilter(2, 1)",
    "PrefixFilter('r1') AND ValueFilter(!=, 'binary:v2')",
    "PrefixFilter('r1') OR QualifierFilter(=, 'binary:a')",
    "SKIP ValueFilter(!=, 'binary:v0')",
    "WHILE RowFilter(<, 'binary:r09')",
    "(FamilyFilter(=, 'binary:cf') AND PageFilter(2)) OR PrefixFilter('r15')",
    "ColumnPrefixFilter('c') AND TimestampsFilter(2, 4, 6, 8)",
];

type Spec = (u8, u8, u8, u8, u8); // row, family, qualifier, ts, value

fn open(flush_after: Option<usize>, cells: &[Spec]) -> (tempfile::TempDir, Db, Vec<Cell>) {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(1_000);
    let db = Db::open(
        dir.path(),
        DbOptions::default()
            .background(false)
            .clock(Arc::new(clock)),
    )
    .unwrap();
    let fams = vec![
        ColumnFamilyDescriptor::new(b"cf").unwrap(),
        ColumnFamilyDescriptor::new(b"cg").unwrap(),
    ];
    db.admin()
        .create_table(&TableDescriptor::new("t", fams).unwrap())
        .unwrap();
    let t = db.table("t").unwrap();
    // One version per column (the family keeps one): the last write of a column wins.
    let mut latest = std::collections::BTreeMap::new();
    for (i, (r, f, q, ts, v)) in cells.iter().enumerate() {
        let row = format!("r{r:02}");
        let fam = ["cf", "cg"][*f as usize % 2];
        let qual = ["a", "b", "c", "d", "e"][*q as usize % 5];
        let value = format!("v{v}");
        t.put(&Put::with_timestamp(&row, i64::from(*ts)).add_column(fam, qual, &value))
            .unwrap();
        let key = (row.clone(), fam, qual);
        let keep = latest
            .get(&key)
            .is_none_or(|(old_ts, _): &(i64, String)| i64::from(*ts) >= *old_ts);
        if keep {
            latest.insert(key, (i64::from(*ts), value));
        }
        if flush_after == Some(i) {
            db.admin().flush("t").unwrap();
        }
    }
    let model: Vec<Cell> = latest
        .into_iter()
        .map(|((r, f, q), (ts, v))| {
            Cell::put(r.as_bytes(), f.as_bytes(), q.as_bytes(), ts, v.as_bytes()).unwrap()
        })
        .collect();
    (dir, db, model)
}

/// A cell without its sequence id: (row, family, qualifier, timestamp, value).
type Plain = (Vec<u8>, Vec<u8>, Vec<u8>, i64, Vec<u8>);

fn shape(rows: &[Vec<Cell>]) -> Vec<Vec<Plain>> {
    rows.iter()
        .map(|r| {
            r.iter()
                .map(|c| {
                    (
                        c.row().to_vec(),
                        c.family().to_vec(),
                        c.qualifier().to_vec(),
                        c.timestamp(),
                        c.value().to_vec(),
                    )
                })
                .collect()
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]
    #[test]
    fn every_filter_matches_the_protocol_model(
        cells in proptest::collection::vec((0u8..16, 0u8..2, 0u8..5, 1u8..10, 0u8..5), 1..60),
        which in 0usize..FILTERS.len(),
        flush in proptest::option::of(0usize..60),
        reversed in any::<bool>(),
    ) {
        let (_dir, db, model) = open(flush, &cells);
        let text = FILTERS[which];
        let mut f = parse_filter(text).unwrap();
        let expected = run_scan(f.as_mut(), &model, reversed);
        let got: Vec<Vec<Cell>> = db
            .table("t")
            .unwrap()
            .scan(&Scan::new().reversed(reversed).filter(parse_filter(text).unwrap()))
            .unwrap()
            .map(|r| r.unwrap().into_cells())
            .collect();
        prop_assert_eq!(shape(&got), shape(&expected), "filter {}", text);
    }
}

#[test]
fn a_filter_rejecting_the_newest_version_returns_an_older_one() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(dir.path(), DbOptions::default().background(false)).unwrap();
    let mut cf = ColumnFamilyDescriptor::new(b"cf").unwrap();
    cf.max_versions = 3;
    db.admin()
        .create_table(&TableDescriptor::new("t", vec![cf]).unwrap())
        .unwrap();
    let t = db.table("t").unwrap();
    for (ts, v) in [(1, "match"), (2, "other"), (3, "other")] {
        t.put(&Put::with_timestamp("r", ts).add_column("cf", "q", v))
            .unwrap();
    }
    let f = parse_filter("ValueFilter(=, 'binary:match')").unwrap();
    let r = t.get(&Get::new("r").filter(f)).unwrap();
    // HBase 2.x: versions are counted against the family's VERSIONS before the filter
    // and against the read's max versions (1) after it.
    assert_eq!(r.cells().len(), 1);
    assert_eq!(r.cells()[0].timestamp(), 1);
    assert_eq!(r.value(b"cf", b"q"), Some(&b"match"[..]));
}

#[test]
fn page_filter_counts_per_region_and_limit_counts_in_total() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(dir.path(), DbOptions::default().background(false)).unwrap();
    db.admin()
        .create_table_with_splits(
            &TableDescriptor::new("t", vec![ColumnFamilyDescriptor::new(b"cf").unwrap()]).unwrap(),
            vec![b"m".to_vec()],
        )
        .unwrap();
    let t = db.table("t").unwrap();
    for r in ["a", "b", "c", "d", "n", "o", "p"] {
        t.put(&Put::new(r).add_column("cf", "q", "v")).unwrap();
    }
    let rows = |s: Scan| -> Vec<Vec<u8>> {
        t.scan(&s)
            .unwrap()
            .map(|r| r.unwrap().row().to_vec())
            .collect()
    };
    let paged = rows(Scan::new().filter(parse_filter("PageFilter(2)").unwrap()));
    assert_eq!(
        paged,
        vec![b"a".to_vec(), b"b".to_vec(), b"n".to_vec(), b"o".to_vec()]
    );
    assert_eq!(rows(Scan::new().limit(2)).len(), 2);
    // A whole-row filter cannot be combined with batch.
    let err = t
        .scan(
            &Scan::new()
                .batch(1)
                .filter(parse_filter("PageFilter(2)").unwrap()),
        )
        .and_then(|mut s| s.next().transpose())
        .unwrap_err()
        .to_string();
    assert!(err.contains("hasFilterRow"), "{err}");
}

/// HBase caps a read at min(max versions, VERSIONS) per column whatever the filter and
/// whatever the column selection: an explicit column, max versions and a filter together
/// once returned every version the family keeps (the explicit column tracker ended the
/// column with an include the after-filter count never saw). Get and Scan (both
/// directions), explicit column and whole family, with and without a filter, versions
/// from the request and from the family (VERSIONS), in the memstore and in a file.
#[test]
fn max_versions_hold_with_an_explicit_column_and_a_filter() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(dir.path(), DbOptions::default().background(false)).unwrap();
    let mut cf = ColumnFamilyDescriptor::new(b"cf").unwrap();
    cf.max_versions = 3;
    let mut cg = ColumnFamilyDescriptor::new(b"cg").unwrap();
    cg.max_versions = 2;
    db.admin()
        .create_table(&TableDescriptor::new("t", vec![cf, cg]).unwrap())
        .unwrap();
    let t = db.table("t").unwrap();
    for row in ["r1", "r2"] {
        for ts in 1..=3 {
            let v = format!("{ts}");
            t.put(
                &Put::with_timestamp(row, ts)
                    .add_column("cf", "a", &v)
                    .add_column("cf", "b", &v)
                    .add_column("cg", "a", &v),
            )
            .unwrap();
        }
    }
    let values = |cells: &[Cell]| -> Vec<String> {
        cells
            .iter()
            .map(|c| String::from_utf8(c.value().to_vec()).unwrap())
            .collect()
    };
    let filters: [Option<&str>; 3] = [
        None,
        Some("PrefixFilter('r')"),
        Some("ValueFilter(!=, 'binary:nothing')"),
    ];
    for flushed in [false, true] {
        if flushed {
            db.admin().flush("t").unwrap();
        }
        // (family, requested versions or None for all_versions, expected per column)
        let cases: [(&str, Option<u32>, &[&str]); 6] = [
            ("cf", Some(1), &["3"]),
            ("cf", Some(2), &["3", "2"]),
            ("cf", Some(5), &["3", "2", "1"]),
            ("cf", None, &["3", "2", "1"]),
            ("cg", Some(1), &["3"]),
            ("cg", None, &["3", "2"]),
        ];
        for (fam, requested, want) in cases {
            for f in filters {
                for explicit in [true, false] {
                    let what = format!(
                        "flushed={flushed} {fam} versions {requested:?} filter {f:?} explicit={explicit}"
                    );
                    let mut get = Get::new("r1");
                    get = if explicit {
                        get.add_column(fam, "a")
                    } else {
                        get.add_family(fam)
                    };
                    get = match requested {
                        Some(n) => get.max_versions(n),
                        None => get.all_versions(),
                    };
                    if let Some(text) = f {
                        get = get.filter(parse_filter(text).unwrap());
                    }
                    let r = t.get(&get).unwrap();
                    let mut expected: Vec<&str> = want.to_vec();
                    if !explicit && fam == "cf" {
                        // cf:a then cf:b.
                        expected.extend_from_slice(want);
                    }
                    assert_eq!(values(r.cells()), expected, "get {what}");
                    for reversed in [false, true] {
                        let mut scan = Scan::new().reversed(reversed);
                        scan = if explicit {
                            scan.add_column(fam, "a")
                        } else {
                            scan.add_family(fam)
                        };
                        scan = match requested {
                            Some(n) => scan.max_versions(n),
                            None => scan.all_versions(),
                        };
                        if let Some(text) = f {
                            scan = scan.filter(parse_filter(text).unwrap());
                        }
                        let rows: Vec<Vec<String>> = t
                            .scan(&scan)
                            .unwrap()
                            .map(|r| values(r.unwrap().cells()))
                            .collect();
                        assert_eq!(
                            rows,
                            [expected.clone(), expected.clone()],
                            "scan reversed={reversed} {what}"
                        );
                    }
                }
            }
        }
    }
}
