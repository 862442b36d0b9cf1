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
    let t = db.table("t").unwrap();
    t.mutate_row(&row_of("one")).unwrap();
    db.admin().flush("t").unwrap();

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
