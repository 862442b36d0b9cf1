//! A read's read point holds across the families it reads (found by the soak run of
//! `tests/concurrency_stress.rs`: a get saw family `cf` before a row mutation and family
//! `cg` after it).
//!
//! A get or scan takes the region's read point, then opens each family's sources in turn.
//! A flush that commits in between moves cells written after the read point into a
//! storefile; the memstore hides such cells by their sequence id, and so must the file
//! (HBase's StoreFileScanner read point). The test stops a read between its two families
//! (the `read-between-families` fail point), writes the row again in both families and
//! flushes, then lets the read go on: it must return the row as it was, whole.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use regionkv::{
    ColumnFamilyDescriptor, Db, DbOptions, Get, Put, RowMutations, Scan, TableDescriptor,
};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

fn row_of(generation: &str) -> RowMutations {
    RowMutations::new("r").add_mutation(
        Put::new("r")
            .add_column("cf", "a", generation)
            .add_column("cg", "c", generation),
    )
}

fn values(r: &regionkv::RowResult) -> (Option<Vec<u8>>, Option<Vec<u8>>) {
    (
        r.value(b"cf", b"a").map(<[u8]>::to_vec),
        r.value(b"cg", b"c").map(<[u8]>::to_vec),
    )
}

#[test]
fn a_flush_between_two_families_of_one_read_stays_invisible_to_it() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let (_dir, db) = two_family_table("one", true);
    let t = db.table("t").unwrap();

    // Armed for one hit at a time: the callback writes generation `next` of the row and
    // flushes it, while the read that hit the point waits between its families.
    let armed = Arc::new(AtomicBool::new(false));
    let next: Arc<Mutex<String>> = Arc::new(Mutex::new(String::new()));
    {
        let (db, armed, next) = (db.clone(), armed.clone(), next.clone());
        fail::cfg_callback("read-between-families", move || {
            if armed.swap(false, Ordering::SeqCst) {
                let t = db.table("t").unwrap();
                let generation = next.lock().unwrap().clone();
                t.mutate_row(&row_of(&generation)).unwrap();
                db.admin().flush("t").unwrap();
            }
        })
        .unwrap();
    }

    *next.lock().unwrap() = "two".into();
    armed.store(true, Ordering::SeqCst);
    let got = t.get(&Get::new("r")).unwrap();
    assert!(
        !armed.load(Ordering::SeqCst),
        "the get did not reach the point"
    );
    assert_eq!(
        values(&got),
        (Some(b"one".to_vec()), Some(b"one".to_vec())),
        "a get saw a row mutation in one family and not the other"
    );

    *next.lock().unwrap() = "three".into();
    armed.store(true, Ordering::SeqCst);
    let rows: Vec<_> = t.scan(&Scan::new()).unwrap().map(|r| r.unwrap()).collect();
    assert!(
        !armed.load(Ordering::SeqCst),
        "the scan did not reach the point"
    );
    assert_eq!(rows.len(), 1);
    assert_eq!(
        values(&rows[0]),
        (Some(b"two".to_vec()), Some(b"two".to_vec())),
        "a scan saw a row mutation in one family and not the other"
    );

    *next.lock().unwrap() = "four".into();
    armed.store(true, Ordering::SeqCst);
    let rows: Vec<_> = t
        .scan(&Scan::new().reversed(true))
        .unwrap()
        .map(|r| r.unwrap())
        .collect();
    assert!(
        !armed.load(Ordering::SeqCst),
        "the reversed scan did not reach the point"
    );
    assert_eq!(
        values(&rows[0]),
        (Some(b"three".to_vec()), Some(b"three".to_vec())),
        "a reversed scan saw a row mutation in one family and not the other"
    );
    fail::remove("read-between-families");

    // Afterwards every read sees the last generation, whole.
    let got = t.get(&Get::new("r")).unwrap();
    assert_eq!(
        values(&got),
        (Some(b"four".to_vec()), Some(b"four".to_vec()))
    );
}

/// A two-family table `t` with the row at generation `first`, flushed when `flush_first`.
fn two_family_table(first: &str, flush_first: bool) -> (tempfile::TempDir, Db) {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(dir.path(), DbOptions::default().background(false)).unwrap();
    let desc = TableDescriptor::new(
        "t",
        vec![
            ColumnFamilyDescriptor::new(b"cf").unwrap(),
            ColumnFamilyDescriptor::new(b"cg").unwrap(),
        ],
    )
    .unwrap();
    db.admin().create_table(&desc).unwrap();
    db.table("t").unwrap().mutate_row(&row_of(first)).unwrap();
    if flush_first {
        db.admin().flush("t").unwrap();
    }
    (dir, db)
}

/// [`two_family_table`] with the `read-between-families` point armed to run `between`
/// once, on the next read.
fn table_with_pending_action(
    first: &str,
    flush_first: bool,
    between: impl Fn(&Db) + Send + Sync + 'static,
) -> (tempfile::TempDir, Db, Arc<AtomicBool>) {
    let (dir, db) = two_family_table(first, flush_first);
    let armed = Arc::new(AtomicBool::new(true));
    {
        let (db, armed) = (db.clone(), armed.clone());
        fail::cfg_callback("read-between-families", move || {
            if armed.swap(false, Ordering::SeqCst) {
                between(&db);
            }
        })
        .unwrap();
    }
    (dir, db, armed)
}

/// Versions of column `cg:c` in a raw scan: what the files and memstore still hold.
fn raw_versions(db: &Db) -> usize {
    let t = db.table("t").unwrap();
    let rows: Vec<_> = t
        .scan(&Scan::new().raw(true).max_versions(100))
        .unwrap()
        .map(|r| r.unwrap())
        .collect();
    rows.iter()
        .flat_map(|r| r.cells())
        .filter(|c| c.family() == b"cg")
        .count()
}

/// Once no reader needs the old versions, the next major compaction drops them: `cg`
/// keeps `versions` cells in all.
fn assert_trimmed_by_next_compaction(db: &Db, versions: usize) {
    db.admin().major_compact("t").unwrap();
    assert_eq!(
        raw_versions(db),
        versions,
        "an old version outlived every reader"
    );
}

// Fail points are process-wide: the tests that arm `read-between-families` run one at a
// time.
static SERIAL: Mutex<()> = Mutex::new(());

/// A compaction that commits between the families of one read must keep the versions that
/// read still needs, although VERSIONS is 1 (HBase keeps every cell above the region's
/// smallest read point through a compaction). Without that, the read hides the compacted
/// newest version by its read point and finds no older one: `cg` would come back empty.
#[test]
fn a_compaction_between_two_families_keeps_what_the_read_needs() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let (_dir, db, armed) = table_with_pending_action("one", true, |db| {
        db.table("t").unwrap().mutate_row(&row_of("two")).unwrap();
        db.admin().flush("t").unwrap();
        db.admin().major_compact("t").unwrap();
    });
    let got = db.table("t").unwrap().get(&Get::new("r")).unwrap();
    fail::remove("read-between-families");
    assert!(
        !armed.load(Ordering::SeqCst),
        "the get did not reach the point"
    );
    assert_eq!(
        values(&got),
        (Some(b"one".to_vec()), Some(b"one".to_vec())),
        "a compaction during a get took the version it read"
    );
    assert_trimmed_by_next_compaction(&db, 1);
    let got = db.table("t").unwrap().get(&Get::new("r")).unwrap();
    assert_eq!(values(&got), (Some(b"two".to_vec()), Some(b"two".to_vec())));
}

/// The same for a flush: the snapshot holds the version the read sees and a newer one;
/// the flush must not drop the older as an excess version.
#[test]
fn a_flush_between_two_families_keeps_what_the_read_needs() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let (_dir, db, armed) = table_with_pending_action("one", false, |db| {
        db.table("t").unwrap().mutate_row(&row_of("two")).unwrap();
        db.admin().flush("t").unwrap();
    });
    let rows: Vec<_> = db
        .table("t")
        .unwrap()
        .scan(&Scan::new())
        .unwrap()
        .map(|r| r.unwrap())
        .collect();
    fail::remove("read-between-families");
    assert!(
        !armed.load(Ordering::SeqCst),
        "the scan did not reach the point"
    );
    assert_eq!(rows.len(), 1);
    assert_eq!(
        values(&rows[0]),
        (Some(b"one".to_vec()), Some(b"one".to_vec())),
        "a flush during a scan dropped the version it read"
    );
    assert_trimmed_by_next_compaction(&db, 1);
}

/// An open scanner holds its read point until it is dropped: a compaction that runs while
/// the scanner is part-way keeps what it may still read.
#[test]
fn an_open_scanner_pins_versions_until_dropped() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(dir.path(), DbOptions::default().background(false)).unwrap();
    let desc =
        TableDescriptor::new("t", vec![ColumnFamilyDescriptor::new(b"cg").unwrap()]).unwrap();
    db.admin().create_table(&desc).unwrap();
    let t = db.table("t").unwrap();
    t.put(&Put::new("a").add_column("cg", "c", "x")).unwrap();
    t.put(&Put::new("r").add_column("cg", "c", "one")).unwrap();
    db.admin().flush("t").unwrap();
    // Scanners open their region on the first row; this one stops after row `a`.
    let mut scanner = t.scan(&Scan::new()).unwrap();
    assert_eq!(scanner.next().unwrap().unwrap().row(), b"a");
    t.put(&Put::new("r").add_column("cg", "c", "two")).unwrap();
    db.admin().flush("t").unwrap();
    db.admin().major_compact("t").unwrap();
    assert_eq!(
        raw_versions(&db),
        3,
        "a compaction dropped a version an open scanner may read"
    );
    let r = scanner.next().unwrap().unwrap();
    assert_eq!(r.value(b"cg", b"c"), Some(&b"one"[..]));
    drop(scanner);
    assert_trimmed_by_next_compaction(&db, 2);
}
