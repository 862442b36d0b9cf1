//! The Db's lock survives tampering with its `LOCK` file (issue 24, point 5).
//!
//! The bug: `Db::open` held an `flock` on `<dir>/LOCK` and nothing else. Deleting `LOCK`
//! while a Db was open let a second process create a new `LOCK`, lock it and open the
//! same directory; it replayed the first process's live WAL log and, once it flushed,
//! deleted that log while the first process was still appending to it. Symptom: a second
//! `Db::open` succeeded on a directory that was in use, and acknowledged writes of the
//! first process could vanish. The fix: the Db also holds an `flock` on the directory
//! itself, which cannot be deleted while it holds the Db's files, so the second open fails
//! with `Error::Locked` (`LOCK` is still taken, so older builds see it held); and on every
//! WAL roll and flush the first process checks that `LOCK` is still the file it locked: a
//! removed `LOCK` is re-created and locked again, a replaced one (another holder may be
//! in) stops every WAL log deletion until the Db is reopened.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use regionkv::{ColumnFamilyDescriptor, Db, DbOptions, Error, Get, Put, TableDescriptor};
use regionkv_fs::{Fs, RealFs};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const ROLE_ENV: &str = "LOCK_TAMPERING_CHILD";
const DIR_ENV: &str = "LOCK_TAMPERING_DIR";

fn options() -> DbOptions {
    DbOptions::default().background(false)
}

fn create(db: &Db) {
    let cf = ColumnFamilyDescriptor::new(b"cf").unwrap();
    db.admin()
        .create_table(&TableDescriptor::new("t", vec![cf]).unwrap())
        .unwrap();
}

fn put(db: &Db, from: u32, n: u32) {
    let t = db.table("t").unwrap();
    for i in from..from + n {
        t.put(&Put::new(format!("row{i:05}")).add_column(b"cf", b"q", format!("v{i}")))
            .unwrap();
    }
}

fn wal_logs(dir: &Path) -> Vec<PathBuf> {
    let mut logs: Vec<PathBuf> = std::fs::read_dir(dir.join("wal"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    logs.sort();
    logs
}

/// The first process: opens the Db, writes, says `READY`, then waits for `exit` on stdin,
/// writes a little more and closes.
#[test]
fn holder_child() {
    if std::env::var(ROLE_ENV).as_deref() != Ok("holder") {
        return;
    }
    let dir = PathBuf::from(std::env::var(DIR_ENV).unwrap());
    let db = Db::open(&dir, options()).unwrap();
    create(&db);
    put(&db, 0, 100);
    println!("READY");
    let mut line = String::new();
    std::io::stdin().read_line(&mut line).unwrap();
    put(&db, 100, 100);
    db.close().unwrap();
    println!("CLOSED");
}

#[test]
fn a_second_process_cannot_open_after_lock_is_deleted() {
    if std::env::var(ROLE_ENV).is_ok() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("db");
    let mut holder = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "holder_child", "--nocapture", "--test-threads=1"])
        .env(ROLE_ENV, "holder")
        .env(DIR_ENV, &dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(holder.stdout.take().unwrap()).lines();
    assert!(
        lines.any(|l| l.unwrap().contains("READY")),
        "the holder did not start"
    );
    let live_logs = wal_logs(&dir);

    std::fs::remove_file(dir.join("LOCK")).unwrap();
    let second = Db::open(&dir, options());
    let second_ok = second.is_ok();
    // Closing a second Db that got in is what deleted the holder's live log.
    drop(second);
    let repair = regionkv::repair::repair(&dir, options());
    let repair_locked = matches!(repair, Err(Error::Locked { .. }));
    for log in &live_logs {
        assert!(
            log.exists(),
            "the holder's live log {} was deleted",
            log.display()
        );
    }

    writeln!(holder.stdin.take().unwrap(), "exit").unwrap();
    assert!(lines.any(|l| l.unwrap().contains("CLOSED")));
    assert!(holder.wait().unwrap().success());
    assert!(
        !second_ok,
        "a second Db opened the directory while it was in use"
    );
    assert!(
        repair_locked,
        "repair ran on a directory in use: {repair:?}"
    );

    // Nothing the holder acknowledged is lost.
    let db = Db::open(&dir, options()).unwrap();
    let t = db.table("t").unwrap();
    for i in 0..200 {
        let row = t.get(&Get::new(format!("row{i:05}"))).unwrap();
        assert_eq!(
            row.value(b"cf", b"q"),
            Some(format!("v{i}").as_bytes()),
            "row {i}"
        );
    }
}

#[test]
fn a_removed_lock_file_is_recreated_and_held() {
    let tmp = tempfile::tempdir().unwrap();
    let db = Db::open(tmp.path(), options()).unwrap();
    create(&db);
    put(&db, 0, 10);
    let lock = tmp.path().join("LOCK");
    std::fs::remove_file(&lock).unwrap();
    // A flush notices, puts LOCK back and locks it, so older builds see it held again.
    db.admin().flush("t").unwrap();
    assert!(lock.is_file(), "LOCK was not re-created");
    let err = RealFs::new().lock(&lock).unwrap_err();
    assert!(matches!(err, regionkv_fs::Error::Locked { .. }), "{err:?}");
    // Nothing was compromised: flushed logs are still deleted.
    let before = wal_logs(tmp.path());
    db.admin().roll_wal_writer().unwrap();
    let after = wal_logs(tmp.path());
    assert!(!after.contains(&before[0]), "{before:?} -> {after:?}");
    drop(db);
    drop(Db::open(tmp.path(), options()).unwrap());
}

#[test]
fn a_replaced_lock_file_stops_wal_log_deletion() {
    let tmp = tempfile::tempdir().unwrap();
    let db = Db::open(tmp.path(), options()).unwrap();
    create(&db);
    put(&db, 0, 10);
    let lock = tmp.path().join("LOCK");
    // An older build (it takes LOCK only) gets in after LOCK was deleted.
    std::fs::remove_file(&lock).unwrap();
    let intruder = RealFs::new().lock(&lock).unwrap();
    let before = wal_logs(tmp.path());
    put(&db, 10, 10);
    db.admin().flush("t").unwrap();
    db.admin().roll_wal_writer().unwrap();
    put(&db, 20, 10);
    db.admin().flush("t").unwrap();
    db.admin().roll_wal_writer().unwrap();
    let after = wal_logs(tmp.path());
    for log in &before {
        assert!(
            after.contains(log),
            "{} was deleted although another process may own it",
            log.display()
        );
    }
    db.close().unwrap();
    drop(db);
    drop(intruder);
    // Reopened with the lock its own, the Db reads everything and deletes logs again.
    let db = Db::open(tmp.path(), options()).unwrap();
    let t = db.table("t").unwrap();
    for i in 0..30 {
        let row = t.get(&Get::new(format!("row{i:05}"))).unwrap();
        assert_eq!(
            row.value(b"cf", b"q"),
            Some(format!("v{i}").as_bytes()),
            "row {i}"
        );
    }
    db.admin().flush("t").unwrap();
    db.admin().roll_wal_writer().unwrap();
    assert_eq!(wal_logs(tmp.path()).len(), 1);
}
