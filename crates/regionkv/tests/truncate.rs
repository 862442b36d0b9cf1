//! `truncate` after its catalog commit: the new, empty regions serve whatever the cleanup of
//! the old region directories meets. A removal that failed used to return before the new
//! regions were published, leaving a table the catalog calls ENABLED with no regions behind
//! its handle (found by the issue-28 design record).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::sync::Arc;

use regionkv::{ColumnFamilyDescriptor, Db, DbOptions, ManualClock, Put, Scan, TableDescriptor};
use regionkv_fs::{FaultFs, FaultKind, MemFs, Persistence};

fn open(fs: Arc<FaultFs>, clock: &ManualClock) -> Db {
    let options = DbOptions::default()
        .background(false)
        .clock(Arc::new(clock.clone()))
        .fs(fs);
    Db::open(Path::new("/db"), options).unwrap()
}

fn rows(db: &Db) -> Vec<Vec<u8>> {
    db.table("t")
        .unwrap()
        .scan(&Scan::new())
        .unwrap()
        .map(|r| r.unwrap().row().to_vec())
        .collect()
}

#[test]
fn a_truncate_whose_old_directories_cannot_be_removed_still_serves_its_new_regions() {
    let mem = MemFs::new();
    let fault = Arc::new(FaultFs::new(Arc::new(mem.clone())));
    let clock = ManualClock::new(1_700_000_000_000);
    let db = open(fault.clone(), &clock);
    let desc =
        TableDescriptor::new("t", vec![ColumnFamilyDescriptor::new(b"cf").unwrap()]).unwrap();
    db.admin()
        .create_table_with_splits(&desc, vec![b"m".to_vec()])
        .unwrap();
    let table = db.table("t").unwrap();
    for row in ["a", "n", "z"] {
        table
            .put(&Put::new(row).add_column("cf", "q", "v"))
            .unwrap();
    }
    db.admin().flush("t").unwrap();
    db.admin().disable_table("t").unwrap();

    // Every removal fails from now on: truncate's cleanup of the two old regions.
    fault.fail_at(
        fault.op_count(),
        FaultKind::RemoveFailure,
        Persistence::Persistent,
    );
    db.admin().truncate_table("t", true).unwrap();
    assert!(fault.faults_injected() > 0, "the cleanup removed nothing");

    assert!(db.admin().is_table_enabled("t").unwrap());
    assert!(rows(&db).is_empty());
    let table = db.table("t").unwrap();
    table
        .put(&Put::new("b").add_column("cf", "q", "new"))
        .unwrap();
    assert_eq!(rows(&db), vec![b"b".to_vec()]);

    // After a reopen the catalog's (new) regions hold the table; the old directories are
    // unlisted leftovers.
    fault.clear_faults();
    db.close().unwrap();
    drop(db);
    let db = open(fault, &clock);
    assert_eq!(rows(&db), vec![b"b".to_vec()]);
    assert_eq!(db.admin().splits("t").unwrap(), vec![b"m".to_vec()]);
}
