//! Shuttle runs of the models in `regionkv-models` (see its crate docs): each test body
//! runs thousands of times under a random scheduler and under PCT (which finds bugs of
//! depth ≤ 3 with known probability), and fails on any assertion, panic or deadlock.
//! `REGIONKV_SOAK=1` runs ten times more schedules.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use regionkv_cell::Cell;
use regionkv_fs::{CrashMode, FaultKind, Persistence};
use regionkv_models::commit_slots::CommitSlots;
use regionkv_models::mvcc::Mvcc;
use regionkv_models::region::{ClearOrder, Region};
use regionkv_models::wal::{Wal, WalStats};
use regionkv_models::wal_disk::{Disk, WAL_DIR};
use regionkv_wal::format::HEADER_LEN;
use regionkv_wal::{RecoveryMode, SyncMode, WalConfig, WalEdit, WalKey, replay};
use shuttle::sync::Mutex;
use shuttle::thread;
use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

fn iterations() -> usize {
    if std::env::var_os("REGIONKV_SOAK").is_some() {
        20_000
    } else {
        2_000
    }
}

/// Runs `f` under the random scheduler and under PCT, [`iterations`] schedules each.
fn check(f: impl Fn() + Send + Sync + 'static) {
    check_n(iterations(), f);
}

/// Runs `f` under the random scheduler and under PCT, `n` schedules each.
fn check_n(n: usize, f: impl Fn() + Send + Sync + 'static) {
    let f = Arc::new(f);
    let g = f.clone();
    shuttle::check_random(move || f(), n);
    shuttle::check_pct(move || g(), n, 3);
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

/// The engine's `CommitSlots`: never more writers inside than slots; no lost wake-up
/// (shuttle fails a schedule where a waiter never gets a released slot as a deadlock);
/// every slot back at the end; a thread that holds a slot takes none for a nested write.
#[test]
fn commit_slots_bound_and_hand_on() {
    check(|| {
        let slots = Arc::new(CommitSlots::new(2));
        let inside = Arc::new(AtomicUsize::new(0));
        let threads: Vec<_> = (0..4)
            .map(|t| {
                let (slots, inside) = (slots.clone(), inside.clone());
                thread::spawn(move || {
                    for _ in 0..2 {
                        let _slot = slots.acquire();
                        let n = inside.fetch_add(1, Ordering::SeqCst) + 1;
                        assert!(n <= 2, "{n} writers inside two slots");
                        if t == 0 {
                            let _nested = slots.acquire();
                        }
                        thread::yield_now();
                        inside.fetch_sub(1, Ordering::SeqCst);
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(slots.free(), 2, "every slot came back");
    });
}

/// The engine's reader registry: a flush or compaction's smallest read point never
/// exceeds the read point of a reader that is open when it is taken, whether the reader
/// registered before it (the minimum covers it) or after (a later read point is never
/// lower). Readers that close let it move on.
#[test]
fn mvcc_smallest_read_point() {
    // Two readers over 2 lock-free slots, 1 slot (one falls back to the locked list) and
    // none.
    for slots in [2, 1, 0] {
        check(move || smallest_read_point_with(slots));
    }
}

fn smallest_read_point_with(slots: usize) {
    {
        let mvcc = Arc::new(Mvcc::with_reader_slots(0, slots));
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
    }
}

// ---------------------------------------------------------------------------------------
// The WAL: the engine's own `Wal` (regionkv-wal's `shuttle` feature) on a `Disk`.

/// The model time (scheduling steps, a microsecond each) between the background syncer's
/// rounds: short, so that it runs during the appends.
const SYNCER_INTERVAL: Duration = Duration::from_micros(40);

/// A WAL configuration for the models: the syncer every [`SYNCER_INTERVAL`], logs rolled at
/// `roll_size`, reservations small enough that every few rounds extend one.
fn wal_config(roll_size: u64) -> WalConfig {
    WalConfig {
        roll_size,
        async_sync_interval: SYNCER_INTERVAL,
        preallocate: 128,
        ..WalConfig::default()
    }
}

/// Edit `i` of writer `w`: the writer's own region, sequence ids 1, 2, … as a region
/// assigns them.
fn wal_edit(w: u64, i: u64) -> WalEdit {
    let seq_id = i + 1;
    let row = format!("row-{w}-{i}");
    WalEdit::new(
        WalKey {
            region: format!("region-{w}").into_bytes(),
            table: "t".into(),
            seq_id,
            write_time: 0,
        },
        vec![
            Cell::put(row.as_bytes(), b"f", b"q", 1, b"v")
                .unwrap()
                .with_seq_id(seq_id),
        ],
    )
}

/// One append as its writer saw it; `began` and `returned` are scheduling steps of the
/// execution, a total order of everything the threads did.
#[derive(Debug, Clone)]
struct Append {
    edit: WalEdit,
    mode: SyncMode,
    began: usize,
    returned: usize,
    ok: bool,
}

/// Appends `edit` with `mode` and checks the acknowledgement against the disk at once (the
/// reads are no scheduling point, so nothing has happened since the append returned): an
/// acknowledged SYNC_WAL edit is in what the OS has, a FSYNC_WAL edit in what a power cut
/// keeps. A failure must be the poisoned WAL's.
fn append(wal: &Wal, disk: &Disk, edit: WalEdit, mode: SyncMode) -> Append {
    let began = shuttle::current::context_switches();
    let result = wal.append(&edit, mode);
    let returned = shuttle::current::context_switches();
    let key = format!(
        "{}#{}",
        String::from_utf8_lossy(&edit.key.region),
        edit.key.seq_id
    );
    match &result {
        Ok(()) => match mode {
            SyncMode::Sync => assert!(
                disk.written().contains(&edit),
                "acknowledged SYNC_WAL edit {key:?} is not written"
            ),
            SyncMode::Fsync => assert!(
                disk.durable().contains(&edit),
                "acknowledged FSYNC_WAL edit {key:?} is not durable"
            ),
            SyncMode::Async => {}
        },
        Err(e) => assert!(
            e.is_poisoned(),
            "an append failed with {e}, not as poisoned"
        ),
    }
    Append {
        edit,
        mode,
        began,
        returned,
        ok: result.is_ok(),
    }
}

/// One WAL model: writers appending concurrently (writer `w` appends its edits with
/// `writers[w]`'s modes), an optional thread rolling the log meanwhile, and an optional
/// fault: the first operation that `kind` applies to (a write, or a sync) from the `nth`
/// file-system operation after the open on fails, once.
#[derive(Debug, Clone)]
struct WalRun {
    config: WalConfig,
    writers: Vec<Vec<SyncMode>>,
    roller: bool,
    fault: Option<(FaultKind, u64)>,
}

/// What a [`WalRun`] execution ended with.
#[derive(Debug)]
struct WalOutcome {
    /// When the writers (and the roller) were done.
    stats: WalStats,
    /// Edits a power cut after the close kept, in log order.
    recovered: Vec<WalEdit>,
    appends: Vec<Append>,
}

/// Runs `run` once (one shuttle execution) and checks what holds whatever the interleaving:
/// the acknowledgements (see [`append`]); a failure poisons the WAL for good — every append
/// begun after a failed one fails, even once the disk works again, and so does the close;
/// without an injected fault nothing fails; a `sync` after the appends makes every
/// acknowledged edit durable; after the close and a power cut the replayed log holds every
/// FSYNC_WAL acknowledged edit (every edit at all after a clean close), nothing twice and
/// nothing never appended, in the order of the appends: an edit whose append returned
/// before another's began is in the log before it, and is there if the other is. The syncer
/// is shut down and joined by the close; a deadlock, or a syncer that never stops, fails
/// the execution. The outcome's stats are those when the writers were done.
fn wal_run(run: &WalRun) -> WalOutcome {
    let disk = Disk::new();
    let wal = Arc::new(Wal::open(disk.fs(), Path::new(WAL_DIR), run.config.clone()).unwrap());
    if let Some((kind, nth)) = run.fault {
        disk.faults
            .fail_at(disk.faults.op_count() + nth, kind, Persistence::Transient);
    }
    let mut threads = Vec::new();
    for (w, modes) in run.writers.iter().cloned().enumerate() {
        let (wal, disk) = (wal.clone(), disk.clone());
        threads.push(thread::spawn(move || {
            let w = w as u64;
            (0..modes.len())
                .map(|i| append(&wal, &disk, wal_edit(w, i as u64), modes[i]))
                .collect::<Vec<_>>()
        }));
    }
    let roller = run.roller.then(|| {
        let wal = wal.clone();
        thread::spawn(move || {
            if let Err(e) = wal.roll() {
                assert!(e.is_poisoned(), "a roll failed with {e}, not as poisoned");
            }
        })
    });
    let mut appends: Vec<Append> = threads
        .into_iter()
        .flat_map(|t| t.join().unwrap())
        .collect();
    if let Some(r) = roller {
        r.join().unwrap();
    }
    let wal = Arc::into_inner(wal).expect("every thread is done with the WAL");
    let stats = wal.stats();

    let failed = appends.iter().any(|a| !a.ok);
    let injected = disk.faults.faults_injected() > 0;
    assert!(
        injected || !failed,
        "an append failed with no fault injected"
    );
    for f in appends.iter().filter(|a| !a.ok) {
        for b in appends.iter().filter(|b| b.began > f.returned) {
            assert!(!b.ok, "an append succeeded after another had failed");
        }
    }
    // From here on, whatever fails must be the poisoned WAL after a fault (one may still
    // fire now, if the writers' rounds did not reach it), and once poisoned, it stays so.
    let fault_fired = || disk.faults.faults_injected() > 0;
    let mut poisoned = failed;
    // The fault was transient: the disk works again, the WAL must still refuse.
    let late = append(&wal, &disk, wal_edit(99, 0), SyncMode::Sync);
    assert!(
        late.ok || fault_fired(),
        "a late append failed with no fault"
    );
    assert!(
        !late.ok || !poisoned,
        "the WAL took an append after it had failed"
    );
    poisoned |= !late.ok;
    appends.push(late);
    // `sync` makes everything appended durable (before the close, whose seal syncs too).
    match wal.sync() {
        Ok(()) => {
            assert!(!poisoned, "a poisoned WAL synced");
            let durable = disk.durable();
            for a in appends.iter().filter(|a| a.ok) {
                assert!(
                    durable.contains(&a.edit),
                    "edit {:?} ({:?}) not durable after a sync",
                    a.edit.key,
                    a.mode
                );
            }
        }
        Err(e) => {
            assert!(e.is_poisoned() && fault_fired(), "the sync failed with {e}");
            poisoned = true;
        }
    }
    let closed = wal.close();
    match &closed {
        Ok(()) => assert!(!poisoned, "a poisoned WAL closed cleanly"),
        Err(e) => assert!(
            e.is_poisoned() && fault_fired(),
            "the close failed with {e}"
        ),
    }

    disk.mem.crash(CrashMode::DropUnsynced);
    let recovered = replay(
        &disk.mem,
        Path::new(WAL_DIR),
        RecoveryMode::TolerateCorruptedTail,
    )
    .and_then(|r| r.read_all())
    .unwrap()
    .0;
    let at = |e: &WalEdit| recovered.iter().position(|r| r == e);
    for (i, e) in recovered.iter().enumerate() {
        assert!(
            appends.iter().any(|a| a.edit == *e),
            "recovered an edit never appended: {e:?}"
        );
        assert_eq!(at(e), Some(i), "recovered an edit twice: {e:?}");
    }
    for a in &appends {
        let acked_durable = a.ok && (a.mode == SyncMode::Fsync || closed.is_ok());
        assert!(
            !acked_durable || at(&a.edit).is_some(),
            "acknowledged edit {:?} ({:?}) lost by a power cut after the close",
            a.edit.key,
            a.mode
        );
        for b in appends.iter().filter(|b| b.began > a.returned) {
            if let Some(b_at) = at(&b.edit) {
                match at(&a.edit) {
                    Some(a_at) => assert!(a_at < b_at, "the log is not in append order"),
                    None => assert!(!a.ok, "an acknowledged edit is missing before a later one"),
                }
            }
        }
    }
    WalOutcome {
        stats,
        recovered,
        appends,
    }
}

/// Three writers with two appends each, every mode among them (an ASYNC_WAL append among
/// SYNC_WAL and FSYNC_WAL ones, the syncer running): group commit with its gathering, the
/// syncer's rounds and the close's final sync. Everything appended survives the close.
#[test]
fn wal_group_commit() {
    use SyncMode::{Async, Fsync, Sync};
    let run = WalRun {
        config: wal_config(WalConfig::DEFAULT_ROLL_SIZE),
        writers: vec![vec![Fsync, Sync], vec![Sync, Async], vec![Async, Fsync]],
        roller: false,
        fault: None,
    };
    check_n(iterations() / 2, move || {
        let out = wal_run(&run);
        assert_eq!(out.recovered.len(), out.appends.len());
        assert_eq!(out.stats.rolls, 0);
    });
}

/// The same writers while one write or sync fails (EIO on a write, a short write, EIO on a
/// sync), early or a few operations in, in logs small enough to roll after a round or two (so
/// that the failure may hit a roll: the old log's seal, the new log's header or its
/// directory sync): whoever was waiting on that round, and everyone after, fails; what was
/// acknowledged before stays acknowledged (see [`wal_run`]).
#[test]
fn wal_group_commit_failures() {
    use SyncMode::{Async, Fsync, Sync};
    let kinds = [
        FaultKind::EioOnWrite,
        FaultKind::ShortWrite,
        FaultKind::EioOnSync,
    ];
    for kind in kinds {
        for nth in [0, 3, 8] {
            let run = WalRun {
                config: wal_config(HEADER_LEN as u64 + 60),
                writers: vec![vec![Fsync, Sync], vec![Sync, Async], vec![Async, Fsync]],
                roller: false,
                fault: Some((kind, nth)),
            };
            check_n(iterations() / 18, move || {
                wal_run(&run);
            });
        }
    }
}

/// Rolling during group commit: a log small enough to roll after a few rounds, and a thread
/// rolling it by hand meanwhile. The log stays in append order across log files, and the
/// acknowledgements hold through the seal of the old log and the creation of the new one.
#[test]
fn wal_rolls() {
    use SyncMode::{Fsync, Sync};
    let run = WalRun {
        config: wal_config(HEADER_LEN as u64 + 120),
        writers: vec![vec![Fsync, Sync], vec![Sync, Fsync]],
        roller: true,
        fault: None,
    };
    check_n(iterations() / 4, move || {
        let out = wal_run(&run);
        assert!(out.stats.rolls >= 1, "the roller's roll");
        assert_eq!(out.recovered.len(), out.appends.len());
    });
}

/// ASYNC_WAL appends wait for nothing; the background syncer alone (no FSYNC_WAL append,
/// no `sync`, no close yet) makes them durable within a bounded model time. A writer keeps
/// SYNC_WAL rounds going meanwhile.
#[test]
fn wal_syncer_makes_async_appends_durable() {
    check_n(iterations() / 4, || {
        let disk = Disk::new();
        let wal = Arc::new(Wal::open(disk.fs(), Path::new(WAL_DIR), wal_config(1 << 20)).unwrap());
        let other = {
            let (wal, disk) = (wal.clone(), disk.clone());
            thread::spawn(move || append(&wal, &disk, wal_edit(1, 0), SyncMode::Sync))
        };
        let edits = [wal_edit(0, 0), wal_edit(0, 1)];
        for e in &edits {
            assert!(append(&wal, &disk, e.clone(), SyncMode::Async).ok);
        }
        // The syncer's interval is 40 steps; with three threads and the syncer's own
        // rounds, a thousand intervals is past any fair schedule.
        let deadline = shuttle::current::context_switches() + 1_000 * 40;
        while !edits.iter().all(|e| disk.durable().contains(e)) {
            assert!(
                shuttle::current::context_switches() < deadline,
                "ASYNC_WAL edits not synced by the background syncer"
            );
            thread::yield_now();
        }
        assert!(other.join().unwrap().ok);
        Arc::into_inner(wal).unwrap().close().unwrap();
    });
}

/// FSYNC_WAL writers share syncs: never more `fdatasync`s than appends, and in some
/// schedules one sync covers several writers' edits — a leader takes everything pending,
/// gathering first when the last round's writers are due back. The syncer is kept out by an
/// interval of an hour: its timed wait yields until the close wakes it.
#[test]
fn wal_fsync_writers_share_syncs() {
    use SyncMode::Fsync;
    static SHARED: AtomicUsize = AtomicUsize::new(0);
    static STOLEN: AtomicUsize = AtomicUsize::new(0);
    let run = WalRun {
        config: WalConfig {
            async_sync_interval: Duration::from_secs(3600),
            ..wal_config(WalConfig::DEFAULT_ROLL_SIZE)
        },
        writers: vec![vec![Fsync, Fsync]; 3],
        roller: false,
        fault: None,
    };
    let appends = 6;
    check_n(iterations() / 4, move || {
        let out = wal_run(&run);
        assert!(
            out.stats.syncs <= appends,
            "{} syncs for {appends} appends",
            out.stats.syncs
        );
        if out.stats.syncs < appends {
            SHARED.fetch_add(1, Ordering::Relaxed);
        }
        if out.stats.handoffs > 0 {
            STOLEN.fetch_add(1, Ordering::Relaxed);
        }
    });
    assert!(
        SHARED.load(Ordering::Relaxed) > 0,
        "no schedule shared a sync"
    );
    // The shim puts each task on one of two model CPUs, and a sync's model time varies
    // with the schedule: some schedules have a waiter lead a gathered round.
    assert!(
        STOLEN.load(Ordering::Relaxed) > 0,
        "no schedule had a waiter on a faster-syncing CPU lead a gathered round"
    );
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
