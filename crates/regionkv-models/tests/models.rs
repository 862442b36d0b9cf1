//! Shuttle runs of the models in `regionkv-models` (see its crate docs): each test body
//! runs thousands of times under a random scheduler and under PCT (which finds bugs of
//! depth ≤ 3 with known probability), and fails on any assertion, panic or deadlock.
//! `REGIONKV_SOAK=1` runs ten times more schedules.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use regionkv_models::group_commit::{Durability, Wal};
use regionkv_models::mvcc::Mvcc;
use regionkv_models::region::{ClearOrder, Region};
use shuttle::sync::Mutex;
use shuttle::thread;
use std::collections::BTreeSet;
use std::sync::Arc;

fn iterations() -> usize {
    if std::env::var_os("REGIONKV_SOAK").is_some() {
        20_000
    } else {
        2_000
    }
}

/// Runs `f` under the random scheduler and under PCT.
fn check(f: impl Fn() + Send + Sync + 'static) {
    let f = Arc::new(f);
    let g = f.clone();
    shuttle::check_random(move || f(), iterations());
    shuttle::check_pct(move || g(), iterations(), 3);
}

/// The engine's `Mvcc`: the read point never passes a write that has not completed,
/// never goes backwards, covers a write once `complete_and_wait` returns, and covers
/// every write begun before `wait_for_all` once it returns.
#[test]
fn mvcc_read_point() {
    check(|| {
        let mvcc = Arc::new(Mvcc::new(10));
        let begun = Arc::new(Mutex::new(BTreeSet::new()));
        let completed = Arc::new(Mutex::new(BTreeSet::new()));
        let mut threads = Vec::new();
        for w in 0..3u64 {
            let (mvcc, begun, completed) = (mvcc.clone(), begun.clone(), completed.clone());
            threads.push(thread::spawn(move || {
                for i in 0..2u64 {
                    let e = mvcc.begin();
                    let n = e.write_number();
                    assert!(n > 10);
                    begun.lock().unwrap().insert(n);
                    completed.lock().unwrap().insert(n);
                    if (w + i) % 2 == 0 {
                        mvcc.complete_and_wait(e);
                        assert!(mvcc.read_point() >= n, "complete_and_wait returned early");
                    } else {
                        mvcc.complete(e);
                    }
                }
            }));
        }
        {
            let mvcc = mvcc.clone();
            threads.push(thread::spawn(move || {
                let before = mvcc.write_point();
                mvcc.wait_for_all();
                assert!(mvcc.read_point() >= before, "wait_for_all returned early");
            }));
        }
        {
            let (mvcc, begun, completed) = (mvcc.clone(), begun.clone(), completed.clone());
            threads.push(thread::spawn(move || {
                let mut last = 0;
                for _ in 0..4 {
                    let rp = mvcc.read_point();
                    assert!(rp >= last, "read point went back from {last} to {rp}");
                    last = rp;
                    let begun = begun.lock().unwrap().clone();
                    let completed = completed.lock().unwrap();
                    for n in begun.iter().filter(|n| **n <= rp) {
                        assert!(
                            completed.contains(n),
                            "read point {rp} passed unfinished write {n}"
                        );
                    }
                    thread::yield_now();
                }
            }));
        }
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(mvcc.read_point(), mvcc.write_point());
    });
}

/// The engine's reader registry: a flush or compaction's smallest read point never
/// exceeds the read point of a reader that is open when it is taken, whether the reader
/// registered before it (the minimum covers it) or after (a later read point is never
/// lower). Readers that close let it move on.
#[test]
fn mvcc_smallest_read_point() {
    check(|| {
        let mvcc = Arc::new(Mvcc::new(0));
        let writer = {
            let mvcc = mvcc.clone();
            thread::spawn(move || {
                for _ in 0..3 {
                    let e = mvcc.begin();
                    mvcc.complete(e);
                }
            })
        };
        // Readers keep their guards until every thread has joined, so each is open
        // whenever a compactor takes its smallest read point.
        let readers: Vec<_> = (0..2)
            .map(|_| {
                let mvcc = mvcc.clone();
                thread::spawn(move || mvcc.open_reader())
            })
            .collect();
        let compactor = {
            let mvcc = mvcc.clone();
            thread::spawn(move || {
                let mut seen = Vec::new();
                for _ in 0..2 {
                    seen.push(mvcc.smallest_read_point());
                    thread::yield_now();
                }
                seen
            })
        };
        writer.join().unwrap();
        let guards: Vec<_> = readers.into_iter().map(|r| r.join().unwrap()).collect();
        let seen = compactor.join().unwrap();
        for g in &guards {
            for s in &seen {
                assert!(
                    *s <= g.read_point(),
                    "a compaction used {s} while a reader at {} was open",
                    g.read_point()
                );
            }
        }
        let lowest = guards.iter().map(|g| g.read_point()).min().unwrap();
        assert_eq!(mvcc.smallest_read_point(), lowest);
        assert_eq!(mvcc.open_readers(), 2);
        drop(guards);
        assert_eq!(mvcc.open_readers(), 0);
        assert_eq!(mvcc.smallest_read_point(), mvcc.read_point());
    });
}

/// The WAL's group commit: an acknowledged SYNC_WAL record is in the OS, an
/// acknowledged FSYNC_WAL record is durable, the file is the append order, nobody waits
/// forever — with no failure, and with each of the first I/O calls failing.
#[test]
fn wal_group_commit() {
    for fail_at in [None, Some(0), Some(1), Some(2), Some(3)] {
        check(move || {
            let wal = Arc::new(Wal::new(fail_at));
            let mut threads = Vec::new();
            for w in 0..3u64 {
                let wal = wal.clone();
                threads.push(thread::spawn(move || {
                    let mut failed = false;
                    for i in 0..2u64 {
                        let id = w * 10 + i;
                        let d = if (w + i) % 2 == 0 {
                            Durability::Fsync
                        } else {
                            Durability::Sync
                        };
                        match wal.append(id, d) {
                            Ok(()) => {
                                assert!(!failed, "an append succeeded after the log failed");
                                let (os, durable) = wal.file();
                                let at = os.iter().position(|x| *x == id);
                                assert!(at.is_some(), "acknowledged record {id} not written");
                                if d == Durability::Fsync {
                                    assert!(
                                        at.unwrap() < durable,
                                        "acknowledged record {id} not durable"
                                    );
                                }
                            }
                            Err(_) => {
                                assert!(fail_at.is_some(), "no failure was injected");
                                failed = true;
                            }
                        }
                    }
                }));
            }
            for t in threads {
                t.join().unwrap();
            }
            let (os, durable) = wal.file();
            let order = wal.order();
            assert!(durable <= os.len());
            assert_eq!(
                os[..],
                order[..os.len()],
                "the file is not the append order"
            );
            if fail_at.is_none() {
                assert_eq!(os.len(), 6);
            }
        });
    }
}

fn region_run(order: ClearOrder) {
    let region = Arc::new(Region::new(order));
    let acked = Arc::new(Mutex::new(BTreeSet::new()));
    let mut threads = Vec::new();
    for w in 0..2u64 {
        let (region, acked) = (region.clone(), acked.clone());
        threads.push(thread::spawn(move || {
            for i in 0..2u64 {
                let row = w * 10 + i;
                region.write(row);
                acked.lock().unwrap().insert(row);
            }
        }));
    }
    {
        let region = region.clone();
        threads.push(thread::spawn(move || {
            for _ in 0..2 {
                let (flush_seq, [a, b]) = region.flush();
                assert!(
                    a.iter().chain(&b).all(|(_, seq)| *seq <= flush_seq),
                    "a flush at {flush_seq} took a later write: {a:?} {b:?}"
                );
                let (mut a, mut b) = (a, b);
                a.sort_unstable();
                b.sort_unstable();
                assert_eq!(a, b, "a row mutation split across the flush");
            }
        }));
    }
    {
        let (region, acked) = (region.clone(), acked.clone());
        threads.push(thread::spawn(move || {
            for _ in 0..2 {
                let before = acked.lock().unwrap().clone();
                let (rp, [a, b]) = region.read();
                assert_eq!(a, b, "torn row at read point {rp}");
                for row in before {
                    assert!(
                        a.contains(&row),
                        "acknowledged row {row} missed at read point {rp}"
                    );
                }
            }
        }));
    }
    for t in threads {
        t.join().unwrap();
    }
}

/// Flush against writes and reads: a flush cuts exactly at its read point, a row
/// mutation is on one side of it in every store, and a reader sees every acknowledged
/// row, both families, through the snapshot swap and the file commit.
#[test]
fn region_flush_snapshot_swap() {
    check(|| region_run(ClearOrder::AfterCommit));
}

/// The model is not vacuous: clearing the snapshot before committing its file lets a
/// reader miss acknowledged rows (or see one family without the other), and PCT finds
/// it. (The random scheduler rarely does: the window is one step of the flusher, which
/// the reader must hit with three steps of its own.)
#[test]
#[should_panic(expected = "row")]
fn region_flush_clearing_before_commit_is_caught() {
    shuttle::check_pct(|| region_run(ClearOrder::BeforeCommit), 20_000, 3);
}
