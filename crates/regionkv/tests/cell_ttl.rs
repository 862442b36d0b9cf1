//! Per-cell TTL (HBase's `Mutation#setTTL`) end to end: the expiry rule and its boundary,
//! the order against versions and MIN_VERSIONS, the family TTL that a cell TTL never
//! extends, increments and appends carrying TTLs forward, and the TTL surviving every
//! place a cell lives — memstore, WAL replay after a crash, flushed and compacted files,
//! and the reference files of a split.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use regionkv::{
    Append, BatchAction, CheckAndMutate, ColumnFamilyDescriptor, Db, DbOptions, Get, Increment,
    ManualClock, Put, RowMutations, Scan, TableDescriptor,
};
use regionkv_fs::{CrashMode, FaultFs, Fs, MemFs};
use std::sync::Arc;

const T0: i64 = 1_700_000_000_000;

fn opts(clock: &ManualClock) -> DbOptions {
    DbOptions::default()
        .background(false)
        .clock(Arc::new(clock.clone()))
}

fn family(versions: u32, min_versions: u32, ttl_seconds: Option<u32>) -> ColumnFamilyDescriptor {
    let mut f = ColumnFamilyDescriptor::new(b"cf").unwrap();
    f.max_versions = versions;
    f.min_versions = min_versions;
    if let Some(s) = ttl_seconds {
        f.ttl_seconds = s;
    }
    f
}

fn setup(f: ColumnFamilyDescriptor) -> (tempfile::TempDir, ManualClock, Db) {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(T0);
    let db = Db::open(dir.path(), opts(&clock)).unwrap();
    db.admin()
        .create_table(&TableDescriptor::new("t", vec![f]).unwrap())
        .unwrap();
    (dir, clock, db)
}

fn values(db: &Db, get: &Get) -> Vec<String> {
    db.table("t")
        .unwrap()
        .get(get)
        .unwrap()
        .cells()
        .iter()
        .map(|c| String::from_utf8(c.value().to_vec()).unwrap())
        .collect()
}

fn raw_cells(db: &Db) -> usize {
    db.table("t")
        .unwrap()
        .scan(&Scan::new().raw(true).all_versions())
        .unwrap()
        .map(|r| r.unwrap().len())
        .sum()
}

/// Where the cells live when the clock moves past their TTL.
#[derive(Debug, Clone, Copy)]
enum Stage {
    Memstore,
    Flushed,
    MajorCompacted,
}

fn stage(db: &Db, s: Stage) {
    match s {
        Stage::Memstore => {}
        Stage::Flushed => db.admin().flush("t").unwrap(),
        Stage::MajorCompacted => {
            db.admin().flush("t").unwrap();
            db.admin().major_compact("t").unwrap();
        }
    }
}

#[test]
fn a_cell_expires_once_timestamp_plus_ttl_is_before_now_wherever_it_lives() {
    for s in [Stage::Memstore, Stage::Flushed, Stage::MajorCompacted] {
        let (_dir, clock, db) = setup(family(1, 0, None));
        let t = db.table("t").unwrap();
        t.put(&Put::new("r").add_column("cf", "q", "v").ttl(1_000))
            .unwrap();
        t.put(&Put::new("keep").add_column("cf", "q", "k")).unwrap();
        stage(&db, s);
        clock.advance(1_000);
        assert_eq!(values(&db, &Get::new("r")), ["v"], "{s:?}: ts + ttl == now");
        clock.advance(1);
        assert!(values(&db, &Get::new("r")).is_empty(), "{s:?}");
        // Scans, raw scans included (HBase's preCheck runs for raw scans too), skip it.
        let rows: Vec<Vec<u8>> = t
            .scan(&Scan::new())
            .unwrap()
            .map(|r| r.unwrap().row().to_vec())
            .collect();
        assert_eq!(rows, [b"keep".to_vec()], "{s:?}");
        assert_eq!(raw_cells(&db), 1, "{s:?}");
        // Results never show the tag itself.
        let kept = t.get(&Get::new("keep")).unwrap();
        assert!(kept.cells()[0].tags().is_empty());
    }
}

#[test]
fn flushes_and_compactions_after_expiry_drop_the_cell_from_disk() {
    let (_dir, clock, db) = setup(family(3, 0, None));
    let t = db.table("t").unwrap();
    for i in 0..50 {
        let row = format!("r{i:02}");
        let p = Put::new(&row).add_column("cf", "q", "v");
        t.put(&if i % 2 == 0 { p.ttl(500) } else { p }).unwrap();
    }
    db.admin().flush("t").unwrap();
    clock.advance(501);
    db.admin().major_compact("t").unwrap();
    // Turning the clock back shows what the files hold: the expired half is gone.
    clock.set(T0);
    assert_eq!(raw_cells(&db), 25);
    // A flush drops expired cells too (HBase's flush and compaction matchers share
    // preCheck), and so does a minor compaction.
    for i in 0..10 {
        t.put(
            &Put::new(format!("s{i}"))
                .add_column("cf", "q", "v")
                .ttl(100),
        )
        .unwrap();
    }
    clock.advance(101);
    db.admin().flush("t").unwrap();
    clock.set(T0);
    assert_eq!(raw_cells(&db), 25);
    t.put(&Put::new("u").add_column("cf", "q", "v").ttl(100))
        .unwrap();
    db.admin().flush("t").unwrap();
    t.put(&Put::new("w").add_column("cf", "q", "v")).unwrap();
    db.admin().flush("t").unwrap();
    clock.advance(101);
    db.admin().compact("t").unwrap();
    clock.set(T0);
    assert_eq!(raw_cells(&db), 26);
}

#[test]
fn expired_cells_are_skipped_before_they_count_as_versions() {
    // VERSIONS => 1 and no flush yet: the older version shows again once the newer one's
    // cell TTL runs out (as in HBase, where the memstore still holds both).
    let (_dir, clock, db) = setup(family(1, 0, None));
    let t = db.table("t").unwrap();
    t.put(&Put::with_timestamp("r", T0 - 10).add_column("cf", "q", "old"))
        .unwrap();
    t.put(&Put::new("r").add_column("cf", "q", "new").ttl(100))
        .unwrap();
    assert_eq!(values(&db, &Get::new("r")), ["new"]);
    clock.advance(101);
    assert_eq!(values(&db, &Get::new("r")), ["old"]);

    // MIN_VERSIONS keeps versions past the family TTL, not past a cell TTL.
    let (_dir2, clock2, db2) = setup(family(3, 1, Some(3600)));
    let t2 = db2.table("t").unwrap();
    t2.put(&Put::new("r").add_column("cf", "q", "v").ttl(10))
        .unwrap();
    clock2.advance(11);
    assert!(values(&db2, &Get::new("r")).is_empty());
}

#[test]
fn a_cell_ttl_never_extends_the_family_ttl() {
    let (_dir, clock, db) = setup(family(1, 0, Some(10)));
    let t = db.table("t").unwrap();
    t.put(&Put::new("long").add_column("cf", "q", "v").ttl(3_600_000))
        .unwrap();
    t.put(&Put::new("short").add_column("cf", "q", "v").ttl(2_000))
        .unwrap();
    clock.advance(2_001);
    assert!(values(&db, &Get::new("short")).is_empty());
    assert_eq!(values(&db, &Get::new("long")), ["v"]);
    clock.advance(8_000); // 10.001 s: the family TTL wins
    assert!(values(&db, &Get::new("long")).is_empty());
    // i64::MAX means "no TTL" (HBase's Long.MAX_VALUE default).
    t.put(&Put::new("max").add_column("cf", "q", "v").ttl(i64::MAX))
        .unwrap();
    clock.advance(5_000);
    assert_eq!(values(&db, &Get::new("max")), ["v"]);
}

#[test]
fn increments_and_appends_set_or_carry_the_ttl_forward() {
    let (_dir, clock, db) = setup(family(1, 0, None));
    let t = db.table("t").unwrap();
    t.increment(&Increment::new("c").add_column("cf", "n", 5).ttl(1_000))
        .unwrap();
    clock.advance(600);
    // No TTL on this increment: the new cell keeps the 1 s TTL, from its own timestamp.
    let r = t
        .increment(&Increment::new("c").add_column("cf", "n", 1))
        .unwrap();
    assert_eq!(r.counter(b"cf", b"n"), Some(6));
    clock.advance(600); // 1.2 s after the first, 0.6 s after the second
    assert_eq!(t.get(&Get::new("c")).unwrap().counter(b"cf", b"n"), Some(6));
    clock.advance(401);
    assert!(t.get(&Get::new("c")).unwrap().is_empty());
    // The expired counter is invisible, so the next increment starts from zero.
    let r = t
        .increment(&Increment::new("c").add_column("cf", "n", 2))
        .unwrap();
    assert_eq!(r.counter(b"cf", b"n"), Some(2));

    // An append's own TTL replaces the carried one.
    t.append(&Append::new("a").add_column("cf", "q", "x").ttl(100))
        .unwrap();
    t.append(&Append::new("a").add_column("cf", "q", "y").ttl(10_000))
        .unwrap();
    clock.advance(5_000);
    assert_eq!(values(&db, &Get::new("a")), ["xy"]);
    // The second append got timestamp now + 1 (a new version must be newer than the
    // cell it replaces, HBase's rule), so it lives until now + 1 + 10 s.
    clock.advance(5_001);
    assert_eq!(values(&db, &Get::new("a")), ["xy"]);
    clock.advance(1);
    assert!(values(&db, &Get::new("a")).is_empty());
}

#[test]
fn ttls_reach_every_write_path() {
    let (_dir, clock, db) = setup(family(1, 0, None));
    let t = db.table("t").unwrap();
    // check_and_mutate, mutate_row, batch and the buffered mutator all write the tag.
    let cam = CheckAndMutate::builder("cam")
        .if_not_exists("cf", "q")
        .then_put(Put::new("cam").add_column("cf", "q", "v").ttl(50));
    assert!(t.check_and_mutate(&cam).unwrap().success);
    t.mutate_row(
        &RowMutations::new("rm").add_mutation(Put::new("rm").add_column("cf", "q", "v").ttl(50)),
    )
    .unwrap();
    for r in t.batch(&[BatchAction::Put(
        Put::new("batch").add_column("cf", "q", "v").ttl(50),
    )]) {
        r.unwrap();
    }
    let m = t.buffered_mutator();
    m.mutate(Put::new("buf").add_column("cf", "q", "v").ttl(50))
        .unwrap();
    m.flush().unwrap();
    drop(m);
    t.put(&Put::new("forever").add_column("cf", "q", "v"))
        .unwrap();
    let count = |t: &regionkv::Table| t.scan(&Scan::new()).unwrap().count();
    assert_eq!(count(&t), 5);
    clock.advance(51);
    assert_eq!(count(&t), 1);
}

#[test]
fn the_ttl_survives_wal_replay_after_a_crash() {
    let clock = ManualClock::new(T0);
    let mem = MemFs::new();
    let fault = Arc::new(FaultFs::new(Arc::new(mem.clone())));
    let db = Db::open("/db", opts(&clock).fs(fault.clone())).unwrap();
    let mut desc = TableDescriptor::new("t", vec![family(1, 0, None)]).unwrap();
    desc.set_attribute("DURABILITY", "FSYNC_WAL").unwrap();
    db.admin().create_table(&desc).unwrap();
    let t = db.table("t").unwrap();
    t.put(&Put::new("r").add_column("cf", "q", "v").ttl(1_000))
        .unwrap();
    t.put(&Put::new("s").add_column("cf", "q", "v")).unwrap();
    // Power cut: nothing more reaches the disk, no flush at close.
    fault.halt_at(fault.op_count());
    drop(t);
    drop(db);
    mem.crash(CrashMode::DropUnsynced);
    let db = Db::open("/db", opts(&clock).fs(Arc::new(mem.clone()) as Arc<dyn Fs>)).unwrap();
    assert_eq!(values(&db, &Get::new("r")), ["v"], "replayed from the WAL");
    clock.advance(1_001);
    assert!(values(&db, &Get::new("r")).is_empty(), "with its TTL");
    assert_eq!(values(&db, &Get::new("s")), ["v"]);
    // And through the flush the replayed memstore gets.
    db.admin().flush("t").unwrap();
    assert!(values(&db, &Get::new("r")).is_empty());
}

#[test]
fn daughters_of_a_split_read_the_ttl_through_reference_files() {
    let (_dir, clock, db) = setup(family(1, 0, None));
    let t = db.table("t").unwrap();
    for i in 0..200 {
        let p = Put::new(format!("row{i:03}")).add_column("cf", "q", "v");
        t.put(&if i % 4 == 0 { p.ttl(10_000) } else { p }).unwrap();
    }
    db.admin().flush("t").unwrap();
    db.admin().split_at("t", b"row100").unwrap();
    assert_eq!(db.admin().regions("t").unwrap().len(), 2);
    assert_eq!(t.scan(&Scan::new()).unwrap().count(), 200);
    clock.advance(10_001);
    assert_eq!(t.scan(&Scan::new()).unwrap().count(), 150);
    // The daughters' compactions of their references keep and then drop by the same rule.
    db.admin().major_compact("t").unwrap();
    assert_eq!(raw_cells(&db), 150);
}
