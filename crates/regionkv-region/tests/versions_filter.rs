//! Max versions under a filter (HBase's `UserScanQueryMatcher`): with a filter, the column
//! tracker counts versions up to the family's VERSIONS, the filter sees those, and at most
//! min(requested, VERSIONS) of the cells it includes come back per column — whichever
//! tracker (explicit columns or the whole family), whichever include code the tracker
//! gave. A filter that lets everything through therefore never changes a read.
//!
//! The matrix: family VERSIONS × requested versions × filter (none, row-level pass-all,
//! cell-level pass-all, one rejecting the newest version) × column selection (family, one
//! column, two columns, the second column alone) × read (get, scan, reversed scan) × where
//! the cells are (memstore with more versions than VERSIONS, one file, memstore over a
//! file). Regression for "explicit column + max versions + filter returns every version".

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::Harness;
use regionkv_cell::Cell;
use regionkv_fs::MemFs;
use regionkv_region::Durability;
use regionkv_region::filter::{Filter, parse_filter};
use regionkv_region::{
    ColumnFamilyDescriptor, ReadQuery, RegionConfig, RegionScan, TableDescriptor,
};
use std::sync::Arc;

const ROWS: [&str; 2] = ["r1", "r2"];
const QUALS: [&str; 2] = ["a", "b"];
/// Timestamps written per column, oldest first.
const TS: [i64; 4] = [1, 2, 3, 4];

/// Which timestamps a filter lets through.
type Passes = fn(i64) -> bool;

/// The filters (HBase filter language; `None`: no filter) and what each lets through.
const FILTERS: [(Option<&str>, Passes); 4] = [
    (None, |_| true),
    (Some("PrefixFilter('r')"), |_| true),
    (Some("ValueFilter(!=, 'binary:nothing')"), |_| true),
    (Some("TimestampsFilter(1, 2, 3)"), |ts| ts != 4),
];

/// Where the cells are when the reads run.
#[derive(Debug, Clone, Copy)]
enum Stage {
    /// All four versions in the memstore (a flush would keep only VERSIONS of them).
    Memstore,
    /// Flushed to one file.
    Flushed,
    /// Versions 1 and 2 in a file, 3 and 4 in the memstore.
    Split,
}

fn harness(versions: u32) -> Harness {
    let mut f = ColumnFamilyDescriptor::new(b"e").unwrap();
    f.max_versions = versions;
    let t = TableDescriptor::new("t1", vec![f]).unwrap();
    Harness::new(Arc::new(MemFs::new()), t, RegionConfig::default(), false)
}

fn value(row: &str, q: &str, ts: i64) -> String {
    format!("{row}{q}{ts}")
}

fn write(h: &Harness, ts: &[i64]) {
    for row in ROWS {
        let cells: Vec<Cell> = QUALS
            .iter()
            .flat_map(|q| {
                ts.iter().map(move |t| {
                    Cell::put(
                        row.as_bytes(),
                        b"e",
                        q.as_bytes(),
                        *t,
                        value(row, q, *t).as_bytes(),
                    )
                    .unwrap()
                })
            })
            .collect();
        h.region()
            .mutate_row(row.as_bytes(), cells, Durability::SyncWal)
            .unwrap();
    }
}

fn load(versions: u32, stage: Stage) -> Harness {
    let h = harness(versions);
    match stage {
        Stage::Memstore => write(&h, &TS),
        Stage::Flushed => {
            write(&h, &TS);
            h.region().flush().unwrap();
        }
        Stage::Split => {
            write(&h, &TS[..2]);
            h.region().flush().unwrap();
            write(&h, &TS[2..]);
        }
    }
    h
}

/// The cells HBase returns for `row`: per selected column, the newest VERSIONS versions
/// (what the tracker counts), those the filter passes, at most min(requested, VERSIONS).
fn expected(row: &str, quals: &[&str], versions: u32, requested: u32, pass: Passes) -> Vec<String> {
    let keep = requested.min(versions) as usize;
    let mut out = Vec::new();
    for q in quals {
        let counted = TS.iter().rev().take(versions as usize);
        out.extend(
            counted
                .filter(|ts| pass(**ts))
                .take(keep)
                .map(|ts| value(row, q, *ts)),
        );
    }
    out
}

fn values(cells: &[Cell]) -> Vec<String> {
    cells
        .iter()
        .map(|c| String::from_utf8(c.value().to_vec()).unwrap())
        .collect()
}

fn filter(text: Option<&str>) -> Option<Box<dyn Filter>> {
    text.map(|t| parse_filter(t).unwrap())
}

#[test]
fn max_versions_hold_with_and_without_a_filter() {
    // (selected qualifiers; empty: the whole family)
    let selections: [&[&str]; 4] = [&[], &["a"], &["a", "b"], &["b"]];
    let mut reads = 0;
    for versions in [1u32, 2, 3, 5] {
        for stage in [Stage::Memstore, Stage::Flushed, Stage::Split] {
            let h = load(versions, stage);
            for requested in [1u32, 2, 3, 4, u32::MAX] {
                for (text, pass) in FILTERS {
                    for sel in selections {
                        let mut q = ReadQuery::default().versions(requested);
                        if sel.is_empty() {
                            q = q.family(b"e");
                        }
                        for c in sel {
                            q = q.column(b"e", c.as_bytes());
                        }
                        let quals: &[&str] = if sel.is_empty() { &QUALS } else { sel };
                        let what = format!(
                            "VERSIONS {versions}, {stage:?}, versions {requested}, filter {text:?}, columns {sel:?}"
                        );
                        // Get, row by row.
                        for row in ROWS {
                            let got = h
                                .region()
                                .get_filtered(row.as_bytes(), &q, filter(text))
                                .unwrap();
                            assert_eq!(
                                values(&got),
                                expected(row, quals, versions, requested, pass),
                                "get {row}: {what}"
                            );
                            reads += 1;
                        }
                        // Scans, both directions.
                        for reversed in [false, true] {
                            let scan = RegionScan {
                                query: q.clone(),
                                reversed,
                                ..RegionScan::all()
                            };
                            let rows: Vec<Vec<String>> = h
                                .region()
                                .scan_filtered(&scan, filter(text))
                                .unwrap()
                                .map(|r| values(&r.unwrap()))
                                .collect();
                            let mut want: Vec<Vec<String>> = ROWS
                                .iter()
                                .map(|row| expected(row, quals, versions, requested, pass))
                                // A row with no cell left is not returned.
                                .filter(|cells| !cells.is_empty())
                                .collect();
                            if reversed {
                                want.reverse();
                            }
                            assert_eq!(rows, want, "scan reversed={reversed}: {what}");
                            reads += 1;
                        }
                    }
                }
            }
        }
    }
    assert_eq!(reads, 4 * 3 * 5 * 4 * 4 * 4);
}

/// The reported case, at the region: VERSIONS 3 holding versions 1–3 of `e:a`, a scan of
/// `e:a` for 2 versions with a prefix filter returned all three.
#[test]
fn explicit_column_two_of_three_versions_with_a_prefix_filter() {
    let h = harness(3);
    let cells = (1..=3)
        .map(|ts| Cell::put(b"r1", b"e", b"a", ts, ts.to_string().as_bytes()).unwrap())
        .collect();
    h.region()
        .mutate_row(b"r1", cells, Durability::SyncWal)
        .unwrap();
    let q = ReadQuery::default().column(b"e", b"a").versions(2);
    let scan = RegionScan {
        query: q.clone(),
        ..RegionScan::all()
    };
    let rows: Vec<Vec<String>> = h
        .region()
        .scan_filtered(&scan, filter(Some("PrefixFilter('r1')")))
        .unwrap()
        .map(|r| values(&r.unwrap()))
        .collect();
    assert_eq!(rows, [["3", "2"]]);
    let got = h
        .region()
        .get_filtered(b"r1", &q, filter(Some("PrefixFilter('r1')")))
        .unwrap();
    assert_eq!(values(&got), ["3", "2"]);
}
