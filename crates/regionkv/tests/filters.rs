//! Filters through the Table API, against the filter protocol model
//! (`regionkv::filter::model::run_scan`): random rows, a filter from HBase's filter
//! language, a scan forward and reversed (with data in the memstore, in storefiles, or
//! both) — the rows must equal what the model gives for the same cells, also for filters
//! answering `IncludeAndSeekNextRow`. Plus HBase's version-after-filter rule (for raw scans
//! too), a filter's `IncludeAndSeekNextRow` under versions, and PageFilter's per-region
//! count.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use proptest::prelude::*;
use regionkv::filter::{model::run_scan, parse_filter};
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
    "DependentColumnFilter('cf', 'a')",
    "DependentColumnFilter('cg', 'b', true)",
    "DependentColumnFilter('cf', 'c', false, <=, 'binary:v2')",
    "PrefixFilter('r1') OR DependentColumnFilter('cf', 'a', true)",
];

/// Filters of the Java API only (HBase's filter language has no syntax for them), whose seek
/// hints jump across rows, by name.
fn hinting_filter(which: usize) -> (&'static str, Box<dyn regionkv::filter::Filter>) {
    use regionkv::filter::{FilterList, FuzzyRowFilter, MultiRowRangeFilter, RowRange};
    let fuzzy = |key: &[u8], info: &[u8]| -> Box<dyn regionkv::filter::Filter> {
        Box::new(FuzzyRowFilter::new([(key.to_vec(), info.to_vec())]).unwrap())
    };
    let ranges = || -> Box<dyn regionkv::filter::Filter> {
        Box::new(
            MultiRowRangeFilter::new(vec![
                RowRange::new("r09", false, "r12", true),
                RowRange::new("r02", true, "r05", false),
                RowRange::new("r04", true, "r06", false),
                RowRange::new("r14", true, "", false),
            ])
            .unwrap(),
        )
    };
    match which {
        0 => ("FuzzyRowFilter(r?5)", fuzzy(b"r\x005", &[0, 1, 0])),
        1 => (
            "FuzzyRowFilter(r?3, r1?)",
            Box::new(
                FuzzyRowFilter::new([
                    (b"r\x003".to_vec(), vec![0, 1, 0]),
                    (b"r1\x00".to_vec(), vec![0, 0, 1]),
                ])
                .unwrap(),
            ),
        ),
        2 => ("MultiRowRangeFilter", ranges()),
        3 => (
            "FuzzyRowFilter(r?5) OR PrefixFilter('r1')",
            Box::new(FilterList::or(vec![
                fuzzy(b"r\x005", &[0, 1, 0]),
                parse_filter("PrefixFilter('r1')").unwrap(),
            ])),
        ),
        _ => (
            "MultiRowRangeFilter AND ValueFilter(!=, 'binary:v2')",
            Box::new(FilterList::and(vec![
                ranges(),
                parse_filter("ValueFilter(!=, 'binary:v2')").unwrap(),
            ])),
        ),
    }
}

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

/// Scans the table of `cells` (flushed after `flush`, `reversed` or not) with `make()` and
/// checks the rows equal what the protocol model gives for the same filter.
fn scan_matches_model(
    cells: &[Spec],
    flush: Option<usize>,
    reversed: bool,
    name: &str,
    make: &dyn Fn() -> Box<dyn regionkv::filter::Filter>,
) -> Result<(), TestCaseError> {
    let (_dir, db, model) = open(flush, cells);
    let mut f = make();
    let expected = run_scan(f.as_mut(), &model, reversed);
    let got: Vec<Vec<Cell>> = db
        .table("t")
        .unwrap()
        .scan(&Scan::new().reversed(reversed).filter(make()))
        .unwrap()
        .map(|r| r.unwrap().into_cells())
        .collect();
    prop_assert_eq!(shape(&got), shape(&expected), "filter {}", name);
    Ok(())
}

/// Filters answering `IncludeAndSeekNextRow` (no filter of the filter language does; a
/// user's filter can, alone or in a list), by name.
fn include_and_seek_next_row_filter(
    which: usize,
) -> (&'static str, Box<dyn regionkv::filter::Filter>) {
    use regionkv::filter::FilterList;
    let on = |q: &'static [u8]| -> Box<dyn regionkv::filter::Filter> {
        Box::new(IncludeAndSeekNextRowAt {
            qualifier: q,
            ts: None,
        })
    };
    match which {
        0 => ("IncludeAndSeekNextRowAt(c)", on(b"c")),
        1 => (
            "ValueFilter(!=, 'binary:v2') AND IncludeAndSeekNextRowAt(b)",
            Box::new(FilterList::and(vec![
                parse_filter("ValueFilter(!=, 'binary:v2')").unwrap(),
                on(b"b"),
            ])),
        ),
        _ => (
            "IncludeAndSeekNextRowAt(a) OR PrefixFilter('r1')",
            Box::new(FilterList::or(vec![
                on(b"a"),
                parse_filter("PrefixFilter('r1')").unwrap(),
            ])),
        ),
    }
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
        let text = FILTERS[which];
        scan_matches_model(&cells, flush, reversed, text, &|| parse_filter(text).unwrap())?;
    }

    /// Seek hints into later rows (FuzzyRowFilter, MultiRowRangeFilter) skip only rows the
    /// filter would not keep.
    #[test]
    fn hinting_filters_match_the_protocol_model(
        cells in proptest::collection::vec((0u8..16, 0u8..2, 0u8..5, 1u8..10, 0u8..5), 1..60),
        which in 0usize..5,
        flush in proptest::option::of(0usize..60),
        reversed in any::<bool>(),
    ) {
        let (name, _) = hinting_filter(which);
        scan_matches_model(&cells, flush, reversed, name, &|| hinting_filter(which).1)?;
    }

    /// The matcher must end a family's row after a filter's `IncludeAndSeekNextRow`, as the
    /// model does (the cells come back in the memstore with several versions per column,
    /// the filter sees the newest only).
    #[test]
    fn include_and_seek_next_row_filters_match_the_protocol_model(
        cells in proptest::collection::vec((0u8..16, 0u8..2, 0u8..5, 1u8..10, 0u8..5), 1..60),
        which in 0usize..3,
        flush in proptest::option::of(0usize..60),
        reversed in any::<bool>(),
    ) {
        let (name, _) = include_and_seek_next_row_filter(which);
        scan_matches_model(&cells, flush, reversed, name, &|| {
            include_and_seek_next_row_filter(which).1
        })?;
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

/// Where the cells of a test are when it reads them.
#[derive(Debug, Clone, Copy)]
enum Stage {
    Memstore,
    Flushed,
    /// The older half flushed, the newer half in the memstore.
    Split,
}

const STAGES: [Stage; 3] = [Stage::Memstore, Stage::Flushed, Stage::Split];

/// `q:value` per cell, `q:<type>@ts` for a delete marker.
fn render(cells: &[Cell]) -> Vec<String> {
    cells
        .iter()
        .map(|c| {
            let q = String::from_utf8_lossy(c.qualifier());
            if c.cell_type().is_delete() {
                format!("{q}:{:?}@{}", c.cell_type(), c.timestamp())
            } else {
                format!("{q}:{}", String::from_utf8_lossy(c.value()))
            }
        })
        .collect()
}

/// HBase (`ScanQueryMatcher.getTrackers`): a raw scan with a filter tracks columns without
/// a version limit and applies the requested versions to the cells the filter includes —
/// markers count there like puts. Without a filter the requested versions limit puts only.
/// A filter rejecting the newest version of a raw scan once returned nothing for the
/// column (the tracker had already counted the rejected version). Scan both ways, memstore,
/// file, both; the family named or not (a raw scan cannot name columns, as in HBase).
#[test]
fn a_raw_filtered_scan_counts_versions_after_the_filter() {
    for stage in STAGES {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(dir.path(), DbOptions::default().background(false)).unwrap();
        let mut cf = ColumnFamilyDescriptor::new(b"cf").unwrap();
        cf.max_versions = 3;
        db.admin()
            .create_table(&TableDescriptor::new("t", vec![cf]).unwrap())
            .unwrap();
        let t = db.table("t").unwrap();
        let write = |ts: i64| {
            for row in ["r1", "r2"] {
                let v = format!("{ts}");
                t.put(
                    &Put::with_timestamp(row, ts)
                        .add_column("cf", "a", &v)
                        .add_column("cf", "m", &v),
                )
                .unwrap();
            }
        };
        let mark = || {
            for row in ["r1", "r2"] {
                // A version marker above every put of cf:m: it masks nothing.
                t.delete(&regionkv::Delete::new(row).add_column_at("cf", "m", 5))
                    .unwrap();
            }
        };
        match stage {
            Stage::Memstore => {
                (1..=3).for_each(write);
                mark();
            }
            Stage::Flushed => {
                (1..=3).for_each(write);
                mark();
                db.admin().flush("t").unwrap();
            }
            Stage::Split => {
                (1..=2).for_each(write);
                db.admin().flush("t").unwrap();
                write(3);
                mark();
            }
        }
        let not_3 = "ValueFilter(!=, 'binary:3')";
        // (filter, requested versions or None for all, family named?, expected per row)
        type Case<'a> = (Option<&'a str>, Option<u32>, bool, &'a [&'a str]);
        let cases: [Case<'_>; 9] = [
            (None, Some(1), false, &["a:3", "m:Delete@5", "m:3"]),
            (
                Some("PrefixFilter('r')"),
                Some(1),
                false,
                &["a:3", "m:Delete@5"],
            ),
            (Some(not_3), Some(1), false, &["a:2", "m:Delete@5"]),
            (
                Some(not_3),
                Some(2),
                false,
                &["a:2", "a:1", "m:Delete@5", "m:2"],
            ),
            (
                Some(not_3),
                None,
                false,
                &["a:2", "a:1", "m:Delete@5", "m:2", "m:1"],
            ),
            (
                Some("ValueFilter(=, 'binary:1')"),
                Some(1),
                false,
                &["a:1", "m:1"],
            ),
            (Some(not_3), Some(1), true, &["a:2", "m:Delete@5"]),
            (
                Some(not_3),
                Some(2),
                true,
                &["a:2", "a:1", "m:Delete@5", "m:2"],
            ),
            (None, Some(1), true, &["a:3", "m:Delete@5", "m:3"]),
        ];
        for (filter, requested, named, want) in cases {
            for reversed in [false, true] {
                let mut scan = Scan::new().raw(true).reversed(reversed);
                if named {
                    scan = scan.add_family("cf");
                }
                scan = match requested {
                    Some(n) => scan.max_versions(n),
                    None => scan.all_versions(),
                };
                if let Some(text) = filter {
                    scan = scan.filter(parse_filter(text).unwrap());
                }
                let rows: Vec<Vec<String>> = t
                    .scan(&scan)
                    .unwrap()
                    .map(|r| render(r.unwrap().cells()))
                    .collect();
                let want: Vec<String> = want.iter().map(|s| (*s).to_owned()).collect();
                assert_eq!(
                    rows,
                    [want.clone(), want],
                    "{stage:?} filter {filter:?} versions {requested:?} named={named} reversed={reversed}"
                );
            }
        }
    }
}

/// A filter answering `IncludeAndSeekNextRow` for the cells of one qualifier (at one
/// timestamp, if given) and `Include` for the rest. No stock filter gives that answer; a
/// user's filter, alone or in a `FilterList`, can.
#[derive(Debug, Clone)]
struct IncludeAndSeekNextRowAt {
    qualifier: &'static [u8],
    ts: Option<i64>,
}

impl regionkv::filter::Filter for IncludeAndSeekNextRowAt {
    fn filter_cell(&mut self, cell: regionkv::cell::CellRef<'_>) -> regionkv::filter::ReturnCode {
        if cell.qualifier() == self.qualifier && self.ts.is_none_or(|ts| ts == cell.timestamp()) {
            regionkv::filter::ReturnCode::IncludeAndSeekNextRow
        } else {
            regionkv::filter::ReturnCode::Include
        }
    }
    fn box_clone(&self) -> Box<dyn regionkv::filter::Filter> {
        Box::new(self.clone())
    }
}

/// HBase's `UserScanQueryMatcher.mergeFilterResponse`: a filter's INCLUDE_AND_SEEK_NEXT_ROW
/// includes the cell and skips the rest of the row in its family (the next family is still
/// read); the cell counts against the versions after the filter, and one too many ends the
/// row without it. regionkv once took it for a plain include. The filter alone, in an AND
/// list and in an OR list; Get, Scan both ways; memstore, file, both.
#[test]
fn a_filter_include_and_seek_next_row_skips_the_rest_of_the_row() {
    use regionkv::filter::{Filter, FilterList};
    for stage in STAGES {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(dir.path(), DbOptions::default().background(false)).unwrap();
        let mut cf = ColumnFamilyDescriptor::new(b"cf").unwrap();
        cf.max_versions = 3;
        let cg = ColumnFamilyDescriptor::new(b"cg").unwrap();
        db.admin()
            .create_table(&TableDescriptor::new("t", vec![cf, cg]).unwrap())
            .unwrap();
        let t = db.table("t").unwrap();
        let write = |ts: i64| {
            for row in ["r1", "r2"] {
                let v = format!("{ts}");
                t.put(
                    &Put::with_timestamp(row, ts)
                        .add_column("cf", "a", &v)
                        .add_column("cf", "b", &v)
                        .add_column("cf", "c", &v)
                        .add_column("cg", "a", &v),
                )
                .unwrap();
            }
        };
        match stage {
            Stage::Memstore => (1..=3).for_each(write),
            Stage::Flushed => {
                (1..=3).for_each(write);
                db.admin().flush("t").unwrap();
            }
            Stage::Split => {
                (1..=2).for_each(write);
                db.admin().flush("t").unwrap();
                write(3);
            }
        }
        fn on_b(ts: Option<i64>) -> Box<dyn Filter> {
            Box::new(IncludeAndSeekNextRowAt {
                qualifier: b"b",
                ts,
            })
        }
        type Build = fn(Option<i64>) -> Box<dyn Filter>;
        let builds: [(&str, Build); 3] = [
            ("alone", on_b),
            ("AND", |ts| {
                Box::new(FilterList::and(vec![
                    parse_filter("PrefixFilter('r')").unwrap(),
                    on_b(ts),
                ]))
            }),
            // OR takes the smallest step; the other member answers NextRow for every cell,
            // so the list answers what `on_b` does.
            ("OR", |ts| {
                Box::new(FilterList::or(vec![
                    on_b(ts),
                    parse_filter("PrefixFilter('x')").unwrap(),
                ]))
            }),
        ];
        // (the filter's timestamp, requested versions or None for VERSIONS, expected row)
        let cases: [(Option<i64>, Option<u32>, &[&str]); 4] = [
            // cf:b's newest version ends cf's row: no older b, no c; cg still read.
            (None, Some(1), &["a:3", "b:3", "a:3"]),
            (None, None, &["a:3", "a:2", "a:1", "b:3", "a:3"]),
            // b@3 included, then b@2 ends the row (no b@1, no c).
            (Some(2), None, &["a:3", "a:2", "a:1", "b:3", "b:2", "a:3"]),
            // b@2 is one version too many: it goes, and so does the rest of cf's row.
            (Some(2), Some(1), &["a:3", "b:3", "a:3"]),
        ];
        for (name, build) in &builds {
            for (ts, requested, want) in cases {
                let want: Vec<String> = want.iter().map(|s| (*s).to_owned()).collect();
                let what = format!("{stage:?} {name} ts {ts:?} versions {requested:?}");
                let mut get = Get::new("r1").filter(build(ts));
                get = match requested {
                    Some(n) => get.max_versions(n),
                    None => get.all_versions(),
                };
                let r = t.get(&get).unwrap();
                assert_eq!(render(r.cells()), want, "get {what}");
                for reversed in [false, true] {
                    let mut scan = Scan::new().reversed(reversed).filter(build(ts));
                    scan = match requested {
                        Some(n) => scan.max_versions(n),
                        None => scan.all_versions(),
                    };
                    let rows: Vec<Vec<String>> = t
                        .scan(&scan)
                        .unwrap()
                        .map(|r| render(r.unwrap().cells()))
                        .collect();
                    assert_eq!(
                        rows,
                        [want.clone(), want.clone()],
                        "scan reversed={reversed} {what}"
                    );
                }
            }
        }
    }
}
