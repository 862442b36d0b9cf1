//! `Region::mutate_rows` (HBase's `batchMutate`): the rows of a mini-batch share one
//! sequence id, one WAL record and one write, and replay as a whole; each row stays atomic
//! and fails alone; a repeated row shares its mini-batch as in HBase; a row locked
//! elsewhere ends a mini-batch; SKIP_WAL writes stay out of the record; a failed WAL write
//! fails every write of its record and poisons the region.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{Harness, table};
use regionkv_cell::{Cell, CellType};
use regionkv_fs::{FaultFs, FaultKind, MemFs, Persistence};
use regionkv_region::region::{MINI_BATCH_BYTES, MINI_BATCH_SIZE};
use regionkv_region::{Durability, Error, ReadQuery, RegionConfig, RowWrite};
use std::sync::Arc;
use std::sync::atomic::Ordering;

fn cell(row: &str, fam: &[u8], q: &str, ts: i64, v: &str) -> Cell {
    Cell::put(row.as_bytes(), fam, q.as_bytes(), ts, v.as_bytes()).unwrap()
}

fn harness(fs: Arc<dyn regionkv_fs::Fs>) -> Harness {
    Harness::new(
        fs,
        table(64 << 20, &[b"cf"]),
        RegionConfig::default(),
        false,
    )
}

fn seqs(writes: &[RowWrite<'_>]) -> Vec<u64> {
    writes
        .iter()
        .map(|w| match &w.outcome {
            Some(Ok(seq)) => *seq,
            other => panic!("not applied: {other:?}"),
        })
        .collect()
}

#[test]
fn a_mini_batch_is_one_sequence_id_one_wal_record_and_replays_whole() {
    let fs = MemFs::new();
    let mut h = harness(Arc::new(fs.clone()));
    let rows: Vec<String> = (0..100).map(|i| format!("r{i:03}")).collect();
    let wal_before = h.wal.as_ref().unwrap().stats();
    let mut writes: Vec<RowWrite<'_>> = rows
        .iter()
        .map(|r| {
            let cells = vec![
                cell(r, b"cf", "a", i64::MAX, "1"),
                cell(r, b"cf", "b", i64::MAX, "2"),
            ];
            RowWrite::new(r.as_bytes(), cells, Durability::SyncWal)
        })
        .collect();
    h.region().mutate_rows(&mut writes);
    let seqs = seqs(&writes);
    assert!(
        seqs.iter().all(|s| *s == seqs[0]),
        "one sequence id: {seqs:?}"
    );
    assert!(writes.iter().all(|w| w.cells.is_empty()), "cells are taken");
    let wal_after = h.wal.as_ref().unwrap().stats();
    assert_eq!(wal_after.appends - wal_before.appends, 1, "one WAL record");
    assert_eq!(wal_after.writes - wal_before.writes, 1, "one write");
    assert_eq!(
        h.region().metrics().write_requests.load(Ordering::Relaxed),
        100,
        "one write request per mutation, as HBase's batchMutate counts"
    );
    let before = h.dump();
    assert_eq!(before.len(), 200);
    assert!(
        before.iter().all(|c| c.3 == 1000),
        "stamped with the batch's time"
    );
    h.restart();
    assert_eq!(h.dump(), before, "replayed from the WAL");
    assert_eq!(
        h.region().metrics().replayed_edits.load(Ordering::Relaxed),
        1,
        "the batch is one edit"
    );
}

/// A row twice in a batch (HBase: a non-atomic batch takes shared row locks, and a
/// repeated row reuses its lock): both writes in one mini-batch, one timestamp and one
/// sequence id, so the later of two equal cells replaces the earlier, and a Delete masks a
/// Put of the same timestamp whatever their order.
#[test]
fn a_repeated_row_shares_the_mini_batch_as_in_hbase() {
    let mut h = harness(Arc::new(MemFs::new()));
    let versions = |h: &Harness, row: &[u8]| {
        let q = ReadQuery::default().versions(5);
        let cells = h.region().get(row, &q).unwrap();
        cells
            .iter()
            .map(|c| {
                (
                    String::from_utf8_lossy(c.value()).into_owned(),
                    c.timestamp(),
                )
            })
            .collect::<Vec<_>>()
    };
    let delete_family = |row: &str| {
        Cell::delete_marker(row.as_bytes(), b"cf", b"", i64::MAX, CellType::DeleteFamily).unwrap()
    };
    let put = |row: &'static str, v: &str| {
        RowWrite::new(
            row.as_bytes(),
            vec![cell(row, b"cf", "q", i64::MAX, v)],
            Durability::SyncWal,
        )
    };
    let mut writes = vec![
        put("a", "first"),
        put("b", "b"),
        put("a", "second"),
        // A Put then a Delete of the whole row, and the reverse: both masked.
        put("c", "c"),
        RowWrite::new(b"c", vec![delete_family("c")], Durability::SyncWal),
        RowWrite::new(b"d", vec![delete_family("d")], Durability::SyncWal),
        put("d", "d"),
    ];
    h.clock.advance(7);
    h.region().mutate_rows(&mut writes);
    let s = seqs(&writes);
    assert!(s.iter().all(|x| *x == s[0]), "one mini-batch: {s:?}");
    // One version: the later write replaced the earlier (same timestamp, same sequence id).
    assert_eq!(versions(&h, b"a"), [("second".to_string(), 1007)]);
    assert!(versions(&h, b"c").is_empty());
    assert!(versions(&h, b"d").is_empty());
    h.restart();
    assert_eq!(
        versions(&h, b"a"),
        [("second".to_string(), 1007)],
        "and after replay"
    );
    assert!(versions(&h, b"c").is_empty() && versions(&h, b"d").is_empty());
}

/// A one-version Delete without a timestamp in a batch targets the newest version from
/// before the mini-batch, not a Put of the same batch (HBase's `prepareDeleteTimestamps`
/// runs before the mini-batch's cells reach the memstore).
#[test]
fn a_latest_version_delete_targets_the_version_before_the_batch() {
    let h = harness(Arc::new(MemFs::new()));
    h.region()
        .mutate_row(
            b"r",
            vec![cell("r", b"cf", "q", 500, "old")],
            Durability::SyncWal,
        )
        .unwrap();
    let delete = Cell::delete_marker(b"r", b"cf", b"q", i64::MAX, CellType::Delete).unwrap();
    let mut writes = vec![
        RowWrite::new(
            b"r",
            vec![cell("r", b"cf", "q", i64::MAX, "new")],
            Durability::SyncWal,
        ),
        RowWrite::new(b"r", vec![delete], Durability::SyncWal),
    ];
    h.region().mutate_rows(&mut writes);
    seqs(&writes);
    let got: Vec<Vec<u8>> = h
        .region()
        .get(b"r", &ReadQuery::default().versions(5))
        .unwrap()
        .iter()
        .map(|c| c.value().to_vec())
        .collect();
    assert_eq!(got, [b"new".to_vec()], "the delete took the version at 500");
}

#[test]
fn a_bad_write_fails_alone() {
    let h = harness(Arc::new(MemFs::new()));
    let mut writes = vec![
        RowWrite::new(
            b"ok1",
            vec![cell("ok1", b"cf", "q", 1, "v")],
            Durability::SyncWal,
        ),
        RowWrite::new(
            b"x",
            vec![cell("y", b"cf", "q", 1, "v")],
            Durability::SyncWal,
        ),
        RowWrite::new(
            b"z",
            vec![cell("z", b"nope", "q", 1, "v")],
            Durability::SyncWal,
        ),
        RowWrite::new(b"", vec![], Durability::SyncWal),
        RowWrite::new(b"empty", vec![], Durability::SyncWal),
        RowWrite::new(
            b"ok2",
            vec![cell("ok2", b"cf", "q", 1, "v")],
            Durability::SyncWal,
        ),
    ];
    h.region().mutate_rows(&mut writes);
    let outcome = |i: usize| writes[i].outcome.as_ref().unwrap();
    assert!(outcome(0).is_ok());
    assert!(
        matches!(outcome(1), Err(Error::InvalidRequest(_))),
        "{:?}",
        outcome(1)
    );
    assert!(
        matches!(outcome(2), Err(Error::NoSuchColumnFamily { .. })),
        "{:?}",
        outcome(2)
    );
    assert!(
        matches!(outcome(3), Err(Error::Cell(_))),
        "{:?}",
        outcome(3)
    );
    // No cells: nothing to write, as `mutate_row` answers.
    assert!(outcome(4).is_ok());
    assert!(outcome(5).is_ok());
    let rows: Vec<String> = h.dump().into_iter().map(|c| c.0).collect();
    assert_eq!(rows, ["ok1", "ok2"]);
    // Counted before their cells are checked, as `mutate_row` and HBase count: ok1, x, z,
    // ok2 (not the row refused before, nor the writes with nothing to write).
    assert_eq!(
        h.region().metrics().write_requests.load(Ordering::Relaxed),
        4
    );
}

#[test]
fn skip_wal_writes_of_a_batch_stay_out_of_the_wal() {
    let mut h = harness(Arc::new(MemFs::new()));
    let mut writes = vec![
        RowWrite::new(
            b"logged",
            vec![cell("logged", b"cf", "q", 1, "v")],
            Durability::SyncWal,
        ),
        RowWrite::new(
            b"skipped",
            vec![cell("skipped", b"cf", "q", 1, "v")],
            Durability::SkipWal,
        ),
        RowWrite::new(
            b"default",
            vec![cell("default", b"cf", "q", 1, "v")],
            Durability::UseDefault,
        ),
    ];
    h.region().mutate_rows(&mut writes);
    seqs(&writes);
    assert_eq!(h.dump().len(), 3);
    h.restart();
    let rows: Vec<String> = h.dump().into_iter().map(|c| c.0).collect();
    assert_eq!(rows, ["default", "logged"]);
}

#[test]
fn only_skip_wal_writes_append_nothing() {
    let h = harness(Arc::new(MemFs::new()));
    let before = h.wal.as_ref().unwrap().stats();
    let mut writes = vec![
        RowWrite::new(
            b"a",
            vec![cell("a", b"cf", "q", 1, "v")],
            Durability::SkipWal,
        ),
        RowWrite::new(
            b"b",
            vec![cell("b", b"cf", "q", 1, "v")],
            Durability::SkipWal,
        ),
    ];
    h.region().mutate_rows(&mut writes);
    seqs(&writes);
    assert_eq!(h.wal.as_ref().unwrap().stats().appends, before.appends);
}

#[test]
fn a_row_locked_elsewhere_ends_the_mini_batch_and_the_batch_waits_for_it() {
    let h = harness(Arc::new(MemFs::new()));
    let region = h.region().clone();
    let (locked_tx, locked_rx) = std::sync::mpsc::channel();
    let (release_tx, release_rx) = std::sync::mpsc::channel::<()>();
    std::thread::scope(|s| {
        // Holds row "b" (a read-modify-write under its lock) until told to go on.
        let holder_region = region.clone();
        let holder = s.spawn(move || {
            holder_region
                .mutate_row_with(b"b", Durability::SyncWal, |_, _| {
                    locked_tx.send(()).unwrap();
                    release_rx.recv().unwrap();
                    Ok::<_, Error>((vec![cell("b", b"cf", "q", 7, "holder")], ()))
                })
                .unwrap()
                .0
        });
        locked_rx.recv().unwrap();
        let batch = s.spawn(|| {
            let mut writes = vec![
                RowWrite::new(
                    b"a",
                    vec![cell("a", b"cf", "q", 7, "batch")],
                    Durability::SyncWal,
                ),
                RowWrite::new(
                    b"b",
                    vec![cell("b", b"cf", "q", 7, "batch")],
                    Durability::SyncWal,
                ),
                RowWrite::new(
                    b"c",
                    vec![cell("c", b"cf", "q", 7, "batch")],
                    Durability::SyncWal,
                ),
            ];
            region.mutate_rows(&mut writes);
            seqs(&writes)
        });
        // The batch writes "a" without waiting for "b".
        while region.get(b"a", &ReadQuery::default()).unwrap().is_empty() {
            std::thread::yield_now();
        }
        assert!(region.get(b"c", &ReadQuery::default()).unwrap().is_empty());
        release_tx.send(()).unwrap();
        let held = holder.join().unwrap();
        let s = batch.join().unwrap();
        assert!(
            s[0] < held && held < s[1] && s[1] == s[2],
            "a={} holder={held} b,c={:?}",
            s[0],
            &s[1..]
        );
    });
    // "b" as written last: by the batch, after the holder.
    let b = h.region().get(b"b", &ReadQuery::default()).unwrap();
    assert_eq!(b[0].value(), b"batch");
}

#[test]
fn mini_batches_hold_at_most_the_hbase_minibatch_size() {
    let h = harness(Arc::new(MemFs::new()));
    let rows: Vec<String> = (0..=MINI_BATCH_SIZE).map(|i| format!("r{i:06}")).collect();
    let mut writes: Vec<RowWrite<'_>> = rows
        .iter()
        .map(|r| {
            RowWrite::new(
                r.as_bytes(),
                vec![cell(r, b"cf", "q", 1, "")],
                Durability::SkipWal,
            )
        })
        .collect();
    h.region().mutate_rows(&mut writes);
    let mut s = seqs(&writes);
    s.dedup();
    assert_eq!(s.len(), 2, "{MINI_BATCH_SIZE} writes, then one");
}

#[test]
fn mini_batches_hold_at_most_their_byte_limit() {
    let h = harness(Arc::new(MemFs::new()));
    let big = "x".repeat(MINI_BATCH_BYTES / 3);
    let rows = ["a", "b", "c", "d"];
    let mut writes: Vec<RowWrite<'_>> = rows
        .iter()
        .map(|r| {
            RowWrite::new(
                r.as_bytes(),
                vec![cell(r, b"cf", "q", 1, &big)],
                Durability::SyncWal,
            )
        })
        .collect();
    h.region().mutate_rows(&mut writes);
    let s = seqs(&writes);
    // Each write is a little over a third of the limit: two fit, the third starts anew.
    assert_eq!(s[0], s[1]);
    assert!(s[2] > s[1] && s[2] == s[3], "{s:?}");
}

#[test]
fn a_failed_wal_write_fails_every_write_of_its_record_and_poisons_the_region() {
    let mem = MemFs::new();
    let fault = FaultFs::new(Arc::new(mem.clone()));
    let mut h = harness(Arc::new(fault.clone()));
    fault.fail_at(
        fault.op_count(),
        FaultKind::EioOnSync,
        Persistence::Transient,
    );
    let mut writes = vec![
        RowWrite::new(
            b"a",
            vec![cell("a", b"cf", "q", 1, "v")],
            Durability::FsyncWal,
        ),
        RowWrite::new(
            b"b",
            vec![cell("b", b"cf", "q", 1, "v")],
            Durability::FsyncWal,
        ),
    ];
    h.region().mutate_rows(&mut writes);
    assert!(
        matches!(writes[0].outcome, Some(Err(_))),
        "{:?}",
        writes[0].outcome
    );
    // Both writes were in the failed record: both report the failure.
    assert!(
        matches!(writes[1].outcome, Some(Err(Error::BatchWalFailed { .. }))),
        "{:?}",
        writes[1].outcome
    );
    assert!(h.dump().is_empty(), "nothing of the batch is visible");
    let again = h
        .region()
        .mutate_row(
            b"c",
            vec![cell("c", b"cf", "q", 1, "v")],
            Durability::FsyncWal,
        )
        .unwrap_err();
    assert!(matches!(again, Error::Poisoned { .. }), "{again}");
    // A poisoned region refuses every write of a later batch, each with the refusal.
    let mut later = vec![
        RowWrite::new(
            b"d",
            vec![cell("d", b"cf", "q", 1, "v")],
            Durability::FsyncWal,
        ),
        RowWrite::new(
            b"e",
            vec![cell("e", b"cf", "q", 1, "v")],
            Durability::FsyncWal,
        ),
    ];
    h.region().mutate_rows(&mut later);
    for w in &later {
        assert!(
            matches!(w.outcome, Some(Err(Error::Poisoned { .. }))),
            "{:?}",
            w.outcome
        );
        assert_eq!(w.cells.len(), 1, "a refused write keeps its cells");
    }
    // Reopened, the region takes writes again. (The failed record may replay: its bytes
    // reached the log before the sync failed; a failed write's outcome is unknown, as in
    // HBase.)
    h.restart();
    h.region()
        .mutate_row(
            b"c",
            vec![cell("c", b"cf", "q", 1, "v")],
            Durability::FsyncWal,
        )
        .unwrap();
}
