//! `regionkv repair` end to end: a clean directory, a storefile with a flipped bit moved
//! aside (the Db then opens and serves the rest), and errors for a missing directory or a
//! Db that is open.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use regionkv::{ColumnFamilyDescriptor, Db, DbOptions, Get, Put, TableDescriptor};
use std::process::Command;

fn repair(dir: &std::path::Path) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_regionkv"))
        .arg("repair")
        .arg(dir)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn repair_reports_and_moves_a_damaged_storefile_aside() {
    let dir = tempfile::tempdir().unwrap();
    {
        let db = Db::open(dir.path(), DbOptions::default().background(false)).unwrap();
        let desc = TableDescriptor::new("t", vec![ColumnFamilyDescriptor::new(b"cf").unwrap()]);
        db.admin().create_table(&desc.unwrap()).unwrap();
        let t = db.table("t").unwrap();
        t.put(&Put::new("old").add_column("cf", "q", "flushed"))
            .unwrap();
        db.admin().flush("t").unwrap();
        t.put(&Put::new("new").add_column("cf", "q", "second file"))
            .unwrap();
        db.close().unwrap();
    }
    let (code, out, err) = repair(dir.path());
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("checked 2 storefiles and") && out.contains("nothing to repair"),
        "{out}"
    );

    // Flip a bit in the first storefile's data block.
    let sf = regionkv_testkit::files_under(dir.path())
        .into_iter()
        .find(|p| p.extension().is_some_and(|e| e == "sf"))
        .unwrap();
    let mut bytes = std::fs::read(&sf).unwrap();
    bytes[20] ^= 0x01;
    std::fs::write(&sf, bytes).unwrap();
    let (code, out, err) = repair(dir.path());
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("moved aside: ") && out.contains("/corrupt/data/"),
        "{out}"
    );
    assert!(
        out.contains("checksum mismatch") && out.contains("repaired"),
        "{out}"
    );
    // The Db opens and serves what was not in the damaged file.
    let db = Db::open(dir.path(), DbOptions::default().background(false)).unwrap();
    let t = db.table("t").unwrap();
    let got = |r: &str| {
        t.get(&Get::new(r))
            .unwrap()
            .value(b"cf", b"q")
            .map(<[u8]>::to_vec)
    };
    let (old, new) = (got("old"), got("new"));
    assert!(
        old.is_none() ^ new.is_none(),
        "exactly one file's row is gone: {old:?} {new:?}"
    );
    // A Db that is open cannot be repaired under it.
    let (code, _, err) = repair(dir.path());
    assert_eq!(code, 1);
    assert!(
        err.contains("ERROR:") && err.to_lowercase().contains("lock"),
        "{err}"
    );
    drop((t, db));
    let (code, _, err) = repair(&dir.path().join("missing"));
    assert_eq!(code, 1, "{err}");
}
