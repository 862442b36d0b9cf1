//! The Table API end to end on a real directory: Db lifecycle, Admin, Table reads and
//! writes across pre-split regions, the atomic operations and their races.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use regionkv::filter::{CompareOperator, PrefixFilter, ValueFilter};
use regionkv::{
    Append, BatchAction, CheckAndMutate, ColumnFamilyDescriptor, Db, DbOptions, Delete, Error, Get,
    Increment, ManualClock, Put, RowMutations, Scan, TableDescriptor,
};
use std::sync::Arc;

fn opts(clock: &ManualClock) -> DbOptions {
    DbOptions::default()
        .background(false)
        .clock(Arc::new(clock.clone()))
}

fn family(name: &str, versions: u32) -> ColumnFamilyDescriptor {
    let mut f = ColumnFamilyDescriptor::new(name.as_bytes()).unwrap();
    f.max_versions = versions;
    f
}

fn create(db: &Db, name: &str, splits: &[&str]) {
    let desc = TableDescriptor::new(name, vec![family("cf", 3), family("cg", 1)]).unwrap();
    db.admin()
        .create_table_with_splits(
            &desc,
            splits.iter().map(|s| s.as_bytes().to_vec()).collect(),
        )
        .unwrap();
}

fn rows(db: &Db, table: &str, scan: &Scan) -> Vec<String> {
    db.table(table)
        .unwrap()
        .scan(scan)
        .unwrap()
        .map(|r| String::from_utf8(r.unwrap().row().to_vec()).unwrap())
        .collect()
}

#[test]
fn open_creates_locks_and_rejects_foreign_or_newer_directories() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(1_000);
    let path = dir.path().join("db");
    let db = Db::open(&path, opts(&clock)).unwrap();
    // A second open of the same directory while the first is open.
    match Db::open(&path, opts(&clock)) {
        Err(Error::Locked { .. }) => {}
        other => panic!("expected Locked, got {other:?}"),
    }
    db.close().unwrap();
    drop(db);
    Db::open(&path, opts(&clock)).unwrap().close().unwrap();

    let foreign = dir.path().join("foreign");
    std::fs::create_dir_all(&foreign).unwrap();
    std::fs::write(foreign.join("data.txt"), b"x").unwrap();
    assert!(matches!(
        Db::open(&foreign, opts(&clock)),
        Err(Error::NotADb { .. })
    ));
    // A first open killed while writing the identity file leaves only its temporary
    // copy: the directory is still taken (and only then).
    let interrupted = dir.path().join("interrupted");
    std::fs::create_dir_all(&interrupted).unwrap();
    std::fs::write(interrupted.join("REGIONKV.tmp"), b"regi").unwrap();
    Db::open(&interrupted, opts(&clock))
        .unwrap()
        .close()
        .unwrap();
    assert!(!interrupted.join("REGIONKV.tmp").exists());
    std::fs::write(foreign.join("REGIONKV.tmp"), b"regi").unwrap();
    assert!(matches!(
        Db::open(&foreign, opts(&clock)),
        Err(Error::NotADb { .. })
    ));
    std::fs::write(path.join("REGIONKV"), b"regionkv\nformat 99\n").unwrap();
    let err = Db::open(&path, opts(&clock)).unwrap_err().to_string();
    assert!(err.contains("newer"), "{err}");
    assert!(matches!(
        Db::open(
            dir.path().join("missing"),
            opts(&clock).create_if_missing(false)
        ),
        Err(Error::NotADb { .. })
    ));
}

#[test]
fn namespaces_and_table_lifecycle() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(1_000);
    let db = Db::open(dir.path(), opts(&clock)).unwrap();
    let admin = db.admin();
    assert_eq!(admin.list_namespaces().unwrap(), vec!["default", "hbase"]);
    admin.create_namespace("ns").unwrap();
    assert!(matches!(
        admin.create_namespace("ns"),
        Err(Error::NamespaceExists(_))
    ));
    let desc = TableDescriptor::new("ns:t", vec![family("cf", 1)]).unwrap();
    admin.create_table(&desc).unwrap();
    assert!(matches!(
        admin.create_table(&desc),
        Err(Error::TableExists(_))
    ));
    let nope = TableDescriptor::new("nope:t", vec![family("cf", 1)]).unwrap();
    assert!(matches!(
        admin.create_table(&nope),
        Err(Error::NamespaceNotFound(_))
    ));
    assert_eq!(admin.list_namespace_tables("ns").unwrap(), vec!["ns:t"]);
    assert!(matches!(
        admin.drop_namespace("ns"),
        Err(Error::NamespaceConstraint(..))
    ));
    assert!(admin.drop_namespace("default").is_err());
    assert!(admin.table_exists("ns:t").unwrap());
    assert!(!admin.table_exists("t").unwrap());
    let t = db.table("ns:t").unwrap();
    t.put(&Put::new("r1").add_column("cf", "q", "v")).unwrap();

    // Drop needs a disabled table; a disabled table serves nothing.
    assert!(matches!(
        admin.delete_table("ns:t"),
        Err(Error::TableNotDisabled(_))
    ));
    admin.disable_table("ns:t").unwrap();
    assert!(admin.is_table_disabled("ns:t").unwrap());
    assert!(matches!(
        t.get(&Get::new("r1")),
        Err(Error::TableNotEnabled(_))
    ));
    assert!(matches!(
        admin.disable_table("ns:t"),
        Err(Error::TableNotEnabled(_))
    ));
    admin.enable_table("ns:t").unwrap();
    assert_eq!(
        t.get(&Get::new("r1")).unwrap().value(b"cf", b"q"),
        Some(&b"v"[..])
    );
    admin.disable_table("ns:t").unwrap();
    admin.delete_table("ns:t").unwrap();
    assert!(!admin.table_exists("ns:t").unwrap());
    admin.drop_namespace("ns").unwrap();
    assert!(matches!(
        admin.drop_namespace("ns"),
        Err(Error::NamespaceNotFound(_))
    ));
}

#[test]
fn pre_split_routing_and_scans_across_regions_forward_and_reversed() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(1_000);
    let db = Db::open(dir.path(), opts(&clock)).unwrap();
    create(&db, "t", &["c", "f", "m"]);
    assert_eq!(
        db.admin().splits("t").unwrap(),
        vec![b"c".to_vec(), b"f".to_vec(), b"m".to_vec()]
    );
    let t = db.table("t").unwrap();
    let all = ["a", "b", "c", "d", "f", "g", "m", "n", "z"];
    for r in all {
        t.put(&Put::new(r).add_column("cf", "q", r)).unwrap();
    }
    let regions = db.admin().regions("t").unwrap();
    assert_eq!(regions.len(), 4);
    let writes: Vec<u64> = regions.iter().map(|r| r.write_requests).collect();
    assert_eq!(writes, vec![2, 2, 2, 3]);
    assert!(regions[0].name.starts_with("t,,"), "{}", regions[0].name);

    assert_eq!(rows(&db, "t", &Scan::new()), all);
    assert_eq!(
        rows(&db, "t", &Scan::new().start_row("b").stop_row("n")),
        ["b", "c", "d", "f", "g", "m"]
    );
    assert_eq!(
        rows(
            &db,
            "t",
            &Scan::new().start_row("b").with_stop_row("m", true)
        ),
        ["b", "c", "d", "f", "g", "m"]
    );
    assert_eq!(
        rows(&db, "t", &Scan::new().with_start_row("c", false).limit(3)),
        ["d", "f", "g"]
    );
    let mut rev = all.to_vec();
    rev.reverse();
    assert_eq!(rows(&db, "t", &Scan::new().reversed(true)), rev);
    assert_eq!(
        rows(
            &db,
            "t",
            &Scan::new().reversed(true).start_row("n").stop_row("c")
        ),
        ["n", "m", "g", "f", "d"]
    );
    assert_eq!(
        rows(&db, "t", &Scan::new().reversed(true).limit(4)),
        ["z", "n", "m", "g"]
    );
    // Reads through a filter, each region getting its own copy.
    let f = Scan::new().filter(Box::new(PrefixFilter::new(b"g".to_vec())));
    assert_eq!(rows(&db, "t", &f), ["g"]);
}

#[test]
fn deletes_increments_appends_and_row_mutations() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(1_000);
    let db = Db::open(dir.path(), opts(&clock)).unwrap();
    create(&db, "t", &["m"]);
    let t = db.table("t").unwrap();
    for ts in [10, 20, 30] {
        t.put(
            &Put::with_timestamp("r", ts)
                .add_column("cf", "a", format!("a{ts}"))
                .add_column("cf", "b", "b")
                .add_column("cg", "c", "c"),
        )
        .unwrap();
    }
    let versions = |q: &str| -> Vec<i64> {
        t.get(&Get::new("r").add_column("cf", q).all_versions())
            .unwrap()
            .cells()
            .iter()
            .map(|c| c.timestamp())
            .collect()
    };
    assert_eq!(versions("a"), [30, 20, 10]);
    // One version, newest: 30 goes.
    t.delete(&Delete::new("r").add_column("cf", "a")).unwrap();
    assert_eq!(versions("a"), [20, 10]);
    // Exact version.
    t.delete(&Delete::new("r").add_column_at("cf", "a", 10))
        .unwrap();
    assert_eq!(versions("a"), [20]);
    // All versions up to 25.
    t.delete(&Delete::new("r").add_columns_at("cf", "b", 25))
        .unwrap();
    assert_eq!(versions("b"), [30]);
    // Family version at 30 in cf.
    t.delete(&Delete::new("r").add_family_version("cf", 30))
        .unwrap();
    assert_eq!(versions("b"), Vec::<i64>::new());
    // Whole row.
    t.delete(&Delete::new("r")).unwrap();
    assert!(t.get(&Get::new("r")).unwrap().is_empty());

    // Increment: 8-byte counters, several columns, timestamps past the old one.
    let r = t
        .increment(
            &Increment::new("n")
                .add_column("cf", "x", 5)
                .add_column("cg", "y", -2),
        )
        .unwrap();
    assert_eq!(r.counter(b"cf", b"x"), Some(5));
    assert_eq!(r.counter(b"cg", b"y"), Some(-2));
    assert_eq!(t.increment_column_value(b"n", b"cf", b"x", 10).unwrap(), 15);
    t.put(&Put::with_timestamp("n", 5_000).add_column("cf", "z", 1i64.to_be_bytes()))
        .unwrap();
    let r = t
        .increment(&Increment::new("n").add_column("cf", "z", 1))
        .unwrap();
    assert_eq!(r.cells()[0].timestamp(), 5_001, "max(now, old ts + 1)");
    t.put(&Put::new("n").add_column("cf", "bad", "abc"))
        .unwrap();
    let err = t
        .increment(&Increment::new("n").add_column("cf", "bad", 1))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("Field is not a long, it's 3 bytes wide"),
        "{err}"
    );
    assert!(
        t.increment(
            &Increment::new("n")
                .add_column("cf", "x", 1)
                .return_results(false)
        )
        .unwrap()
        .is_empty()
    );

    // Append.
    let r = t
        .append(&Append::new("s").add_column("cf", "q", "ab"))
        .unwrap();
    assert_eq!(r.value(b"cf", b"q"), Some(&b"ab"[..]));
    let r = t
        .append(&Append::new("s").add_column("cf", "q", "cd"))
        .unwrap();
    assert_eq!(r.value(b"cf", b"q"), Some(&b"abcd"[..]));

    // RowMutations: put and delete of one row at once; another row is refused.
    t.put(&Put::new("rm").add_column("cf", "old", "1")).unwrap();
    t.mutate_row(
        &RowMutations::new("rm")
            .add_mutation(Put::new("rm").add_column("cf", "new", "2"))
            .add_mutation(Delete::new("rm").add_columns("cf", "old")),
    )
    .unwrap();
    let r = t.get(&Get::new("rm")).unwrap();
    assert_eq!(r.value(b"cf", b"new"), Some(&b"2"[..]));
    assert!(!r.contains_column(b"cf", b"old"));
    assert!(
        t.mutate_row(
            &RowMutations::new("rm").add_mutation(Put::new("other").add_column("cf", "q", "v"))
        )
        .is_err()
    );

    // Errors HBase users know.
    assert!(
        t.put(&Put::new("r"))
            .unwrap_err()
            .to_string()
            .contains("No columns to insert")
    );
    assert!(t.put(&Put::new("").add_column("cf", "q", "v")).is_err());
    let err = t
        .put(&Put::new("r").add_column("nope", "q", "v"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("Column family nope does not exist"), "{err}");
}

#[test]
fn check_and_mutate_follows_hbase_compare_rules() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(1_000);
    let db = Db::open(dir.path(), opts(&clock)).unwrap();
    create(&db, "t", &[]);
    let t = db.table("t").unwrap();
    let put = |v: &str| Put::new("r").add_column("cf", "q", v);
    // Absent column: if_not_exists passes once.
    assert!(
        t.check_and_mutate(
            &CheckAndMutate::builder("r")
                .if_not_exists("cf", "q")
                .then_put(put("b"))
        )
        .unwrap()
        .success
    );
    assert!(
        !t.check_and_mutate(
            &CheckAndMutate::builder("r")
                .if_not_exists("cf", "q")
                .then_put(put("x"))
        )
        .unwrap()
        .success
    );
    // The expected value is on the left: LESS with "a" passes because "a" < stored "b".
    let check = |op, v: &str| {
        t.check_and_mutate(
            &CheckAndMutate::builder("r")
                .if_matches("cf", "q", op, v)
                .then_put(put("b")),
        )
        .unwrap()
        .success
    };
    assert!(check(CompareOperator::Less, "a"));
    assert!(!check(CompareOperator::Less, "c"));
    assert!(check(CompareOperator::Greater, "c"));
    assert!(check(CompareOperator::Equal, "b"));
    assert!(check(CompareOperator::NotEqual, "z"));
    assert!(check(CompareOperator::LessOrEqual, "b"));
    assert!(check(CompareOperator::GreaterOrEqual, "b"));
    // A value check on a missing column fails, whatever the operator.
    assert!(
        !t.check_and_mutate(
            &CheckAndMutate::builder("r")
                .if_matches("cf", "missing", CompareOperator::NotEqual, "x")
                .then_put(put("z"))
        )
        .unwrap()
        .success
    );
    // An existing empty value counts as absent.
    t.put(&Put::new("r").add_column("cf", "empty", "")).unwrap();
    assert!(
        t.check_and_mutate(
            &CheckAndMutate::builder("r")
                .if_not_exists("cf", "empty")
                .then_delete(Delete::new("r").add_columns("cf", "q"))
        )
        .unwrap()
        .success
    );
    assert!(
        t.get(&Get::new("r").add_column("cf", "q"))
            .unwrap()
            .is_empty()
    );
    // Increment as the action returns its result; a row mismatch is an error.
    let r = t
        .check_and_mutate(
            &CheckAndMutate::builder("r")
                .if_not_exists("cf", "n")
                .then_increment(Increment::new("r").add_column("cf", "n", 7)),
        )
        .unwrap();
    assert_eq!(r.result.unwrap().counter(b"cf", b"n"), Some(7));
    assert!(
        t.check_and_mutate(
            &CheckAndMutate::builder("r")
                .if_not_exists("cf", "q")
                .then_put(Put::new("other").add_column("cf", "q", "v"))
        )
        .is_err()
    );
    // A filter condition: some cell of the row must pass it. (The clock moves on: a put
    // at the frozen time would be masked by the DeleteColumn above, as in HBase.)
    clock.advance(1);
    let cond = |v: i64| {
        let vf = ValueFilter::new(
            CompareOperator::Equal,
            regionkv::filter::Comparator::binary(v.to_be_bytes().to_vec()),
        );
        t.check_and_mutate(
            &CheckAndMutate::builder("r")
                .if_filter(Box::new(vf))
                .then_put(put("f")),
        )
        .unwrap()
        .success
    };
    assert!(!cond(99));
    assert!(cond(7));
    assert_eq!(
        t.get(&Get::new("r").add_column("cf", "q"))
            .unwrap()
            .value(b"cf", b"q"),
        Some(&b"f"[..])
    );
}

#[test]
fn threads_hammering_one_counter_and_racing_check_and_mutate() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(dir.path(), DbOptions::default()).unwrap();
    create(&db, "t", &[]);
    let t = db.table("t").unwrap();
    let threads = 8;
    let per = 200;
    std::thread::scope(|s| {
        for _ in 0..threads {
            let t = t.clone();
            s.spawn(move || {
                for _ in 0..per {
                    t.increment(&Increment::new("c").add_column("cf", "n", 1))
                        .unwrap();
                }
            });
        }
    });
    let r = t.get(&Get::new("c")).unwrap();
    assert_eq!(r.counter(b"cf", b"n"), Some(threads * per));

    let winners = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        for i in 0..threads {
            let t = t.clone();
            let winners = &winners;
            s.spawn(move || {
                let won = t
                    .check_and_mutate(
                        &CheckAndMutate::builder("lock")
                            .if_not_exists("cf", "owner")
                            .then_put(Put::new("lock").add_column("cf", "owner", format!("{i}"))),
                    )
                    .unwrap()
                    .success;
                if won {
                    winners.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                }
            });
        }
    });
    assert_eq!(winners.into_inner(), 1, "exactly one winner");
}

#[test]
fn batch_and_buffered_mutator() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(1_000);
    let db = Db::open(dir.path(), opts(&clock)).unwrap();
    create(&db, "t", &["m"]);
    let t = db.table("t").unwrap();
    let results = t.batch(&[
        BatchAction::Put(Put::new("a").add_column("cf", "q", "1")),
        BatchAction::Put(Put::new("z").add_column("nope", "q", "1")),
        BatchAction::Increment(Increment::new("k").add_column("cf", "n", 2)),
        BatchAction::Get(Get::new("a")),
        BatchAction::Delete(Delete::new("a")),
    ]);
    assert!(results[0].as_ref().unwrap().is_empty());
    assert!(results[1].is_err(), "a bad family fails that action only");
    assert_eq!(results[2].as_ref().unwrap().counter(b"cf", b"n"), Some(2));
    assert_eq!(
        results[3].as_ref().unwrap().value(b"cf", b"q"),
        Some(&b"1"[..])
    );
    assert!(results[4].is_ok());
    assert!(t.get(&Get::new("a")).unwrap().is_empty());

    let m = regionkv::BufferedMutator::new(t.clone(), 1024);
    for i in 0..100 {
        m.mutate(Put::new(format!("b{i:03}")).add_column("cf", "q", "v"))
            .unwrap();
    }
    assert!(m.buffered_bytes() < 1024, "flushed by size");
    m.mutate(Put::new("bad").add_column("nope", "q", "v"))
        .unwrap();
    assert!(matches!(
        m.flush(),
        Err(Error::MutationsFailed { failed: 1, .. })
    ));
    m.mutate(Put::new("last").add_column("cf", "q", "v"))
        .unwrap();
    drop(m);
    assert_eq!(rows(&db, "t", &Scan::new().row_prefix("b")).len(), 100);
    assert!(
        !t.get(&Get::new("last")).unwrap().is_empty(),
        "flushed on drop"
    );
}

#[test]
fn batches_cross_regions_keep_each_rows_order_and_survive_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(1_000);
    let db = Db::open(dir.path(), opts(&clock)).unwrap();
    create(&db, "t", &["g", "p"]);
    let t = db.table("t").unwrap();
    // A row written, deleted and written again in one batch, rows in all three regions,
    // and bad mutations among them: each mutation lands as if written alone, in order.
    let mut actions = Vec::new();
    for r in ["a", "h", "q", "z"] {
        actions.push(BatchAction::Put(Put::new(r).add_column("cf", "q", "1")));
    }
    actions.push(BatchAction::Put(Put::new("h").add_column("nope", "q", "x")));
    actions.push(BatchAction::Delete(Delete::new("q")));
    actions.push(BatchAction::Put(Put::new("z").add_column("cf", "q", "2")));
    actions.push(BatchAction::Put(Put::new("")));
    actions.push(BatchAction::Delete(Delete::new("a")));
    actions.push(BatchAction::Put(
        Put::new("a").add_column_at("cf", "q", 2_000, "3"),
    ));
    let results = t.batch(&actions);
    let failed: Vec<usize> = (0..results.len())
        .filter(|&i| results[i].is_err())
        .collect();
    assert_eq!(failed, [4, 7]);
    let read = |t: &regionkv::Table| {
        let mut out = Vec::new();
        for r in t.scan(&Scan::new().max_versions(3)).unwrap() {
            let r = r.unwrap();
            for c in r.cells() {
                out.push(format!(
                    "{}={}@{}",
                    String::from_utf8_lossy(c.row()),
                    String::from_utf8_lossy(c.value()),
                    c.timestamp()
                ));
            }
        }
        out
    };
    let expected = ["a=3@2000", "h=1@1000", "z=2@1000"];
    assert_eq!(read(&t), expected);
    let writes: Vec<u64> = db
        .admin()
        .regions("t")
        .unwrap()
        .iter()
        .map(|r| r.write_requests)
        .collect();
    // One write request per mutation a region was sent, the refused one too (HBase counts
    // a batch's size before checking it).
    assert_eq!(writes, [3, 2, 4]);

    // put_all checks every put first, as HBase's HTable.put(List) validates them before
    // sending any: a put without columns fails the call and nothing is written.
    let mut puts = vec![
        Put::new("b1").add_column("cf", "q", "v"),
        Put::new("b2").add_column("nope", "q", "v"),
        Put::new("b3").add_column("cf", "q", "v"),
        Put::new("b4"),
    ];
    let err = t.put_all(&puts).unwrap_err();
    assert!(matches!(err, Error::InvalidArgument(_)), "{err}");
    assert!(rows(&db, "t", &Scan::new().row_prefix("b")).is_empty());
    // Then it attempts every put and returns the first failure.
    puts.pop();
    let err = t.put_all(&puts).unwrap_err();
    assert!(matches!(err, Error::NoSuchColumnFamily { .. }), "{err}");
    assert_eq!(rows(&db, "t", &Scan::new().row_prefix("b")), ["b1", "b3"]);
    t.delete_all(&[Delete::new("b1"), Delete::new("b3")])
        .unwrap();
    assert!(rows(&db, "t", &Scan::new().row_prefix("b")).is_empty());

    // The batches' WAL records replay on reopen.
    drop(t);
    drop(db);
    let db = Db::open(dir.path(), opts(&clock)).unwrap();
    assert_eq!(read(&db.table("t").unwrap()), expected);
}

#[test]
fn alter_truncate_and_reopen_keep_what_they_should() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(1_000);
    {
        let db = Db::open(dir.path(), opts(&clock)).unwrap();
        create(&db, "t", &["m"]);
        let t = db.table("t").unwrap();
        for r in ["a", "x"] {
            t.put(
                &Put::new(r)
                    .add_column("cf", "q", r)
                    .add_column("cg", "q", r),
            )
            .unwrap();
        }
        let admin = db.admin();
        // Modify a family's options: data stays.
        let mut cf = family("cf", 5);
        cf.set_attribute("TTL", "86400").unwrap();
        admin.modify_family("t", cf).unwrap();
        assert_eq!(
            admin
                .describe("t")
                .unwrap()
                .family(b"cf")
                .unwrap()
                .max_versions,
            5
        );
        assert_eq!(
            t.get(&Get::new("a")).unwrap().value(b"cf", b"q"),
            Some(&b"a"[..])
        );
        // Delete a family: its data goes; re-adding it does not bring it back.
        admin.delete_family("t", b"cg").unwrap();
        assert!(t.put(&Put::new("a").add_column("cg", "q", "v")).is_err());
        admin.add_family("t", family("cg", 1)).unwrap();
        assert!(t.get(&Get::new("a").add_family("cg")).unwrap().is_empty());
        t.put(&Put::new("y").add_column("cg", "q", "new")).unwrap();
        // Unflushed writes survive a reopen through the WAL.
        t.put(&Put::new("b").add_column("cf", "q", "unflushed"))
            .unwrap();
    }
    {
        let db = Db::open(dir.path(), opts(&clock)).unwrap();
        let t = db.table("t").unwrap();
        assert_eq!(
            db.admin()
                .describe("t")
                .unwrap()
                .family(b"cf")
                .unwrap()
                .ttl_seconds,
            86400
        );
        assert_eq!(rows(&db, "t", &Scan::new()), ["a", "b", "x", "y"]);
        assert!(t.get(&Get::new("a").add_family("cg")).unwrap().is_empty());
        assert_eq!(db.admin().splits("t").unwrap(), vec![b"m".to_vec()]);
        db.admin().disable_table("t").unwrap();
        db.admin().truncate_table("t", true).unwrap();
        assert!(db.admin().is_table_enabled("t").unwrap());
        assert!(rows(&db, "t", &Scan::new()).is_empty());
        assert_eq!(db.admin().splits("t").unwrap(), vec![b"m".to_vec()]);
        db.admin().disable_table("t").unwrap();
    }
    {
        // A disabled table stays disabled across a restart.
        let db = Db::open(dir.path(), opts(&clock)).unwrap();
        assert!(db.admin().is_table_disabled("t").unwrap());
        db.admin().truncate_table("t", false).unwrap();
        assert!(db.admin().splits("t").unwrap().is_empty());
    }
}

#[test]
fn pre_split_by_algorithm_and_by_range() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(1_000);
    let db = Db::open(dir.path(), opts(&clock)).unwrap();
    let desc = |n: &str| TableDescriptor::new(n, vec![family("cf", 1)]).unwrap();
    let hex = regionkv_region::split::SplitAlgorithm::from_name("HexStringSplit").unwrap();
    db.admin()
        .create_table_with_algorithm(&desc("h"), &hex, 4)
        .unwrap();
    assert_eq!(
        db.admin().splits("h").unwrap(),
        vec![
            b"40000000".to_vec(),
            b"80000000".to_vec(),
            b"c0000000".to_vec()
        ]
    );
    // HBase's createTable(desc, "a", "z", 3): exactly the two ends as split keys.
    db.admin()
        .create_table_with_range(&desc("r"), b"a", b"z", 3)
        .unwrap();
    assert_eq!(
        db.admin().splits("r").unwrap(),
        vec![b"a".to_vec(), b"z".to_vec()]
    );
    assert!(
        db.admin()
            .create_table_with_range(&desc("bad"), b"z", b"a", 5)
            .is_err()
    );
    assert!(
        db.admin()
            .create_table_with_splits(&desc("dup"), vec![b"k".to_vec(), b"k".to_vec()])
            .unwrap_err()
            .to_string()
            .contains("All split keys must be unique")
    );
    // Rows land in the region their key falls in.
    let t = db.table("h").unwrap();
    for r in ["00000001", "7fffffff", "80000000", "ffffffff"] {
        t.put(&Put::new(r).add_column("cf", "q", "v")).unwrap();
    }
    let writes: Vec<u64> = db
        .admin()
        .regions("h")
        .unwrap()
        .iter()
        .map(|r| r.write_requests)
        .collect();
    assert_eq!(writes, vec![1, 1, 1, 1]);
}

#[test]
fn flush_and_compact_one_family_or_one_region() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(1_000);
    let db = Db::open(dir.path(), opts(&clock)).unwrap();
    create(&db, "t", &["m"]);
    let admin = db.admin();
    let t = db.table("t").unwrap();
    let stores = |i: usize| {
        let r = &admin.regions("t").unwrap()[i];
        r.stores
            .iter()
            .map(|s| (s.store_files, s.memstore_bytes > 0))
            .collect::<Vec<_>>()
    };
    for round in 0..3 {
        for row in ["a", "z"] {
            t.put(
                &Put::new(row)
                    .add_column("cf", "q", format!("v{round}"))
                    .add_column("cg", "q", "w"),
            )
            .unwrap();
        }
        admin.flush_family("t", b"cf").unwrap();
    }
    // cf flushed three times in both regions; cg never.
    assert_eq!(stores(0), vec![(3, false), (0, true)]);
    assert_eq!(stores(1), vec![(3, false), (0, true)]);
    // One region by encoded name, one family by full name.
    let regions = admin.regions("t").unwrap();
    admin.flush_region(&regions[1].encoded_name, None).unwrap();
    assert_eq!(stores(1), vec![(3, false), (1, false)]);
    admin
        .compact_region(&regions[1].name, Some(b"cf"), true)
        .unwrap();
    assert_eq!(stores(1), vec![(1, false), (1, false)]);
    assert_eq!(stores(0), vec![(3, false), (0, true)]);
    admin.compact_family("t", b"cf", true).unwrap();
    assert_eq!(stores(0), vec![(1, false), (0, true)]);
    assert!(admin.flush_family("t", b"nope").is_err());
    assert_eq!(
        t.get(&Get::new("z")).unwrap().value(b"cf", b"q"),
        Some(&b"v2"[..])
    );
}

/// HBase's `RSRpcServices#flushRegion`: a user-triggered flush that leaves a store with
/// `hbase.hstore.compaction.min` (3) files asks for a system compaction, which the
/// background pool runs (small files: the ratio check does not apply under the minimum
/// compaction size). Fewer files ask for nothing.
#[test]
fn a_user_flush_that_leaves_enough_files_requests_a_compaction() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(dir.path(), DbOptions::default()).unwrap();
    create(&db, "t", &[]);
    let admin = db.admin();
    let t = db.table("t").unwrap();
    let cf_files = || admin.regions("t").unwrap()[0].stores[0].store_files;
    let mut round = 0;
    let mut put = || {
        round += 1;
        t.put(&Put::new(format!("r{round}")).add_column("cf", "q", "v"))
            .unwrap();
    };
    type Flush<'a> = Box<dyn Fn() + 'a>;
    let region = admin.regions("t").unwrap()[0].encoded_name.clone();
    let flushes: [(&str, Flush<'_>); 3] = [
        ("flush", Box::new(|| admin.flush("t").unwrap())),
        (
            "flush_family",
            Box::new(|| admin.flush_family("t", b"cf").unwrap()),
        ),
        (
            "flush_region",
            Box::new(|| admin.flush_region(&region, None).unwrap()),
        ),
    ];
    for (name, flush) in &flushes {
        // Up to two files: no compaction.
        while cf_files() < 2 {
            put();
            flush();
            db.wait_for_background_work();
        }
        assert_eq!(cf_files(), 2, "{name}: two files stay");
        put();
        flush();
        db.wait_for_background_work();
        assert_eq!(cf_files(), 1, "{name}: the third file was compacted away");
    }
    assert_eq!(
        db.table("t").unwrap().scan(&Scan::new()).unwrap().count(),
        round,
        "every row survives the compactions"
    );
}

#[test]
fn check_and_mutate_with_an_empty_expected_value_follows_hbase() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(1_000);
    let db = Db::open(dir.path(), opts(&clock)).unwrap();
    create(&db, "t", &[]);
    let t = db.table("t").unwrap();
    t.put(&Put::new("empty").add_column("cf", "q", "")).unwrap();
    t.put(&Put::new("x").add_column("cf", "q", "x")).unwrap();
    // HBase: absent or empty matches every operator but NOT_EQUAL; a value is compared.
    for (op, want) in [
        (CompareOperator::NotEqual, [false, false, true]),
        (CompareOperator::Equal, [true, true, false]),
    ] {
        let got: Vec<bool> = ["missing", "empty", "x"]
            .iter()
            .map(|row| {
                let cam = CheckAndMutate::builder(*row)
                    .if_matches("cf", "q", op, "")
                    .then_put(Put::new(*row).add_column("cg", "done", "1"));
                t.check_and_mutate(&cam).unwrap().success
            })
            .collect();
        assert_eq!(got, want, "{op:?}");
    }
}

/// HBase 2's memstore chunk pool is on by default: a flushed memstore's arena chunks go
/// back to the pool and the next memstore takes them instead of fresh memory; with the
/// pool's share set to 0 there is none.
#[test]
fn flushed_memstore_chunks_are_reused_through_the_pool() {
    let clock = ManualClock::new(1_000);
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(dir.path(), opts(&clock)).unwrap();
    create(&db, "t", &[]);
    let t = db.table("t").unwrap();
    // About 5 MiB of cells per round, every value `byte` repeated: 2 MiB in a memstore's
    // growing first chunks (4 KiB … 1 MiB, never pooled), then two full 2 MiB chunks.
    let fill = |round: u32, byte: u8| {
        for i in 0..5_000u32 {
            let v = vec![byte; 1000];
            t.put(&Put::new(format!("r{round}-{i:05}")).add_column("cf", "q", v))
                .unwrap();
        }
    };
    fill(0, b'x');
    let first = db.memstore_chunk_pool_stats().unwrap();
    assert!(first.created >= 2, "{first:?}");
    assert_eq!(first.reused, 0, "{first:?}");
    db.admin().flush("t").unwrap();
    let flushed = db.memstore_chunk_pool_stats().unwrap();
    assert!(flushed.returned >= 2 && flushed.pooled >= 2, "{flushed:?}");
    fill(1, b'x');
    let second = db.memstore_chunk_pool_stats().unwrap();
    assert!(second.reused >= 2, "{second:?}");
    assert_eq!(
        second.created, first.created,
        "no new chunk while pooled ones last"
    );
    // The data of both rounds reads back.
    assert_eq!(t.get(&Get::new("r0-00042")).unwrap().len(), 1);
    assert_eq!(t.get(&Get::new("r1-04999")).unwrap().len(), 1);

    // A scan open across a flush and a refill: the flushed memstore's chunks stay out of
    // the pool while the scan may still read them, so its rows come back intact.
    let mut scanner = t.scan(&Scan::new().with_start_row("r1-", true)).unwrap();
    let first = scanner.next().unwrap().unwrap();
    assert_eq!(first.row(), b"r1-00000");
    db.admin().flush("t").unwrap();
    fill(2, b'y');
    let mut n = 1;
    for r in scanner.by_ref() {
        let r = r.unwrap();
        if r.row().starts_with(b"r2-") {
            break;
        }
        assert!(r.row().starts_with(b"r1-"), "{:?}", r.row());
        assert_eq!(
            r.value(b"cf", b"q").unwrap(),
            &[b'x'; 1000][..],
            "{:?}",
            r.row()
        );
        n += 1;
    }
    assert_eq!(n, 5_000, "every row of round 1, each with its own value");
    drop(scanner);
    drop(t);
    drop(db);

    let off = DbOptions {
        chunk_pool_max_fraction: 0.0,
        ..opts(&clock)
    };
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(dir.path(), off).unwrap();
    assert!(db.memstore_chunk_pool_stats().is_none());
}

/// With background work on, the flush threads trim the chunk pool to recent demand: the
/// chunks a flush gives back, once no writer takes them, go back to the allocator instead
/// of staying resident for the life of the Db.
#[test]
fn idle_pool_chunks_are_freed_once_writes_stop() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(dir.path(), DbOptions::default()).unwrap();
    create(&db, "t", &[]);
    let t = db.table("t").unwrap();
    for i in 0..8_000u32 {
        t.put(&Put::new(format!("r{i:05}")).add_column("cf", "q", vec![b'v'; 1000]))
            .unwrap();
    }
    db.admin().flush("t").unwrap();
    let flushed = db.memstore_chunk_pool_stats().unwrap();
    assert!(flushed.returned >= 2, "{flushed:?}");
    // No writes from here: within a few trims every idle chunk is freed.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let trimmed = loop {
        let s = db.memstore_chunk_pool_stats().unwrap();
        if s.pooled == 0 && s.trimmed >= flushed.returned {
            break s;
        }
        assert!(std::time::Instant::now() < deadline, "not trimmed: {s:?}");
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    assert_eq!(trimmed.owned, 0, "{trimmed:?}");
    // Writes take fresh chunks again, and every row reads back.
    for i in 8_000..12_000u32 {
        t.put(&Put::new(format!("r{i:05}")).add_column("cf", "q", vec![b'w'; 1000]))
            .unwrap();
    }
    let s = db.memstore_chunk_pool_stats().unwrap();
    assert!(s.created > flushed.created, "{s:?}");
    assert_eq!(t.get(&Get::new("r00042")).unwrap().len(), 1);
    assert_eq!(t.get(&Get::new("r11999")).unwrap().len(), 1);
}
