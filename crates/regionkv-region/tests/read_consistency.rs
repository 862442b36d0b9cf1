//! Read consistency: a scan reads at one MVCC read point — it never sees half of a row
//! mutation, and it keeps returning exactly its snapshot while flushes and compactions
//! replace the files underneath it.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{Harness, table};
use regionkv_cell::Cell;
use regionkv_fs::MemFs;
use regionkv_region::Durability;
use regionkv_region::{ReadQuery, RegionConfig, RegionScan};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

fn harness() -> Harness {
    Harness::new(
        Arc::new(MemFs::new()),
        table(1 << 30, &[b"a", b"b"]),
        RegionConfig::default(),
        false,
    )
}

fn write_row(h: &Harness, row: &str, value: &str) {
    let cells = vec![
        Cell::put(row.as_bytes(), b"a", b"q", i64::MAX, value.as_bytes()).unwrap(),
        Cell::put(row.as_bytes(), b"b", b"q", i64::MAX, value.as_bytes()).unwrap(),
    ];
    h.region()
        .mutate_row(row.as_bytes(), cells, Durability::SkipWal)
        .unwrap();
}

#[test]
fn scans_never_see_half_a_row_mutation() {
    let h = harness();
    for r in 0..20 {
        write_row(&h, &format!("r{r:02}"), "0");
    }
    let stop = AtomicBool::new(false);
    std::thread::scope(|s| {
        s.spawn(|| {
            for v in 1..400 {
                for r in 0..20 {
                    write_row(&h, &format!("r{r:02}"), &v.to_string());
                }
                if v % 100 == 0 {
                    h.region().flush_all().unwrap();
                }
            }
            stop.store(true, Ordering::Release);
        });
        let mut scans = 0;
        while !stop.load(Ordering::Acquire) || scans < 10 {
            for row in h.region().scan(&RegionScan::all()).unwrap() {
                let cells = row.unwrap();
                assert_eq!(cells.len(), 2, "both families of the row: {cells:?}");
                assert_eq!(
                    cells[0].value(),
                    cells[1].value(),
                    "one mutation, one value"
                );
            }
            let g = h.region().get(b"r07", &ReadQuery::default()).unwrap();
            assert_eq!(g.len(), 2);
            assert_eq!(g[0].value(), g[1].value());
            scans += 1;
        }
    });
}

#[test]
fn an_open_scan_keeps_its_snapshot_across_flush_and_compaction() {
    let h = harness();
    for r in 0..50 {
        write_row(&h, &format!("r{r:02}"), "old");
    }
    h.region().flush_all().unwrap();
    for r in 0..50 {
        write_row(&h, &format!("r{r:02}"), "mid");
    }
    let expected: Vec<Vec<Cell>> = h
        .region()
        .scan(&RegionScan::all())
        .unwrap()
        .map(|r| r.unwrap())
        .collect();
    let mut scanner = h.region().scan(&RegionScan::all()).unwrap();
    let mut got = vec![scanner.next_row().unwrap().unwrap()];
    // Everything changes underneath: new writes, a flush, a major compaction that
    // removes the files the scanner reads.
    for r in 0..50 {
        write_row(&h, &format!("r{r:02}"), "new");
    }
    h.region().flush_all().unwrap();
    h.region().major_compact().unwrap();
    assert_eq!(h.region().manifest().stores[&b"a"[..]].files.len(), 1);
    while let Some(row) = scanner.next_row().unwrap() {
        got.push(row);
    }
    assert_eq!(got, expected, "the scan saw exactly its snapshot");
    // A new scan sees the new values.
    let fresh = h.region().get(b"r10", &ReadQuery::default()).unwrap();
    assert_eq!(fresh[0].value(), b"new");
}
