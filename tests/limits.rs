//! Limits (RELIABILITY.md, issue 10): what bounds the engine's resources, and what hostile
//! input gets instead of a crash.
//!
//! * A global memstore limit holds the process's memory while it writes far more than
//!   the limit (a child process, so its peak RSS is its own).
//! * `ulimit -n 64` with hundreds of storefiles: mmap reads hold no descriptor per file,
//!   so open, reads, writes, flushes, compactions, splits and a reopen all work; pread
//!   mode, which holds one per open file, fails with a typed error naming the file.
//! * Oversized rows and cells get HBase's typed errors.
//! * Table, namespace and family names that would leave the data directory are refused.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use regionkv::{ColumnFamilyDescriptor, Db, DbOptions, Error, Get, Put, Scan, TableDescriptor};
use regionkv_fs::{ReadMode, RealFs};
use regionkv_suite::status_kib;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;

const CHILD_ENV: &str = "LIMITS_CHILD";
const DIR_ENV: &str = "LIMITS_DIR";
const MIB: u64 = 1 << 20;

fn child_cmd(test: &str) -> Command {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args(["--exact", test, "--nocapture", "--test-threads=1"]);
    cmd
}

/// The child of the memory test: writes `LIMITS_BYTES` of 4 KiB values under a global
/// memstore limit of `LIMITS_GLOBAL` bytes, then prints its peak RSS.
#[test]
fn memory_child() {
    if std::env::var(CHILD_ENV).as_deref() != Ok("memory") {
        return;
    }
    let dir = std::env::var(DIR_ENV).unwrap();
    let bytes: u64 = std::env::var("LIMITS_BYTES").unwrap().parse().unwrap();
    let global: u64 = std::env::var("LIMITS_GLOBAL").unwrap().parse().unwrap();
    let mut options = DbOptions::default().background(true);
    options.global_memstore_bytes = global;
    options.block_cache_bytes = 4 * MIB;
    let db = Db::open(&dir, options).unwrap();
    let mut desc =
        TableDescriptor::new("t", vec![ColumnFamilyDescriptor::new(b"cf").unwrap()]).unwrap();
    // Only the global limit makes this table flush.
    desc.memstore_flush_size = 1 << 40;
    db.admin()
        .create_table_with_splits(&desc, vec![b"4".to_vec(), b"8".to_vec()])
        .unwrap();
    let t = db.table("t").unwrap();
    // Anonymous memory (heap): what the memstore limit bounds. File-backed pages of
    // mapped storefiles, which compactions read, are page cache the kernel may drop, and
    // are left out.
    let baseline = status_kib("RssAnon:");
    let mut peak = baseline;
    let value = vec![b'v'; 4096];
    let n = bytes / 4096;
    for i in 0..n {
        // Spread over the three regions.
        let row = format!("{}{i:09}", i % 10);
        t.put(&Put::new(row).add_column(b"cf", b"q", value.clone()))
            .unwrap();
        if i % 128 == 0 {
            peak = peak.max(status_kib("RssAnon:"));
        }
    }
    peak = peak.max(status_kib("RssAnon:"));
    println!("MEMORY baseline_kib={baseline} peak_kib={peak} puts={n}");
}

fn run_memory_child(bytes: u64, global: u64) -> (u64, u64) {
    let dir = tempfile::tempdir().unwrap();
    let out = child_cmd("memory_child")
        .env(CHILD_ENV, "memory")
        .env(DIR_ENV, dir.path())
        .env("LIMITS_BYTES", bytes.to_string())
        .env("LIMITS_GLOBAL", global.to_string())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "child failed: {stdout}");
    let line = stdout
        .lines()
        .find_map(|l| l.split("MEMORY ").nth(1))
        .unwrap();
    let field = |name: &str| -> u64 {
        line.split_whitespace()
            .find_map(|f| f.strip_prefix(name))
            .unwrap()
            .parse()
            .unwrap()
    };
    (field("baseline_kib="), field("peak_kib="))
}

#[test]
fn global_memstore_limit_holds_process_memory() {
    let global = 16 * MIB;
    // Writing three times as much must not raise the peak: memory is bounded by the
    // limit (memstores, the snapshot being flushed, MSLAB chunks, the block cache,
    // allocator slack), not by what was written.
    let (_, small) = run_memory_child(64 * MIB, global);
    let written = 192 * MIB;
    let (baseline, peak) = run_memory_child(written, global);
    println!(
        "memory: under a {} MiB global memstore limit, peak anonymous RSS {} MiB after writing 64 MiB \
         and {} MiB after writing {} MiB (baseline {} MiB)",
        global / MIB,
        small / 1024,
        peak / 1024,
        written / MIB,
        baseline / 1024
    );
    assert!(
        peak <= small + 16 * 1024,
        "the peak grew with the data written: {small} KiB, then {peak} KiB"
    );
    assert!(peak < baseline + written / 1024 / 2, "peak RSS {peak} KiB");
    // The control: without an effective limit the same child holds what it writes, so
    // the measurement would catch a limit that does not hold.
    let (baseline, peak) = run_memory_child(64 * MIB, 1 << 40);
    println!(
        "memory control: 64 MiB written with no effective limit: peak anonymous RSS {} MiB (baseline {} MiB)",
        peak / 1024,
        baseline / 1024
    );
    assert!(peak > baseline + 64 * 1024);
}

fn table_with_many_files(dir: &Path) -> usize {
    let db = Db::open(dir, DbOptions::default().background(false)).unwrap();
    let desc = TableDescriptor::new(
        "t",
        vec![
            ColumnFamilyDescriptor::new(b"cf").unwrap(),
            ColumnFamilyDescriptor::new(b"cg").unwrap(),
        ],
    )
    .unwrap();
    let splits: Vec<Vec<u8>> = (1..40).map(|i| format!("r{i:02}").into_bytes()).collect();
    db.admin().create_table_with_splits(&desc, splits).unwrap();
    let t = db.table("t").unwrap();
    for round in 0..2 {
        for i in 0..40 {
            for j in 0..5 {
                t.put(
                    &Put::new(format!("r{i:02}-{j}"))
                        .add_column(b"cf", b"q", format!("v{round}"))
                        .add_column(b"cg", b"q", format!("v{round}")),
                )
                .unwrap();
            }
        }
        db.admin().flush("t").unwrap();
    }
    db.admin()
        .regions("t")
        .unwrap()
        .iter()
        .map(|r| r.store_files)
        .sum()
}

/// The child of the descriptor test, run under `ulimit -n 64`.
#[test]
fn fd_child() {
    if std::env::var(CHILD_ENV).as_deref() != Ok("fd") {
        return;
    }
    let dir = std::env::var(DIR_ENV).unwrap();
    // Unset: mmap mode; "unbounded": pread with a descriptor per file; a number: pread with
    // that many cached descriptors at most.
    let pread = std::env::var("LIMITS_PREAD").ok();
    let fs = match pread.as_deref() {
        None => RealFs::new(),
        Some("unbounded") => RealFs::with_read_mode(ReadMode::Pread),
        Some(n) => RealFs::with_max_open_files(n.parse().unwrap()),
    };
    let options = DbOptions::default()
        .background(false)
        .fs(Arc::new(fs.clone()));
    let db = match Db::open(&dir, options) {
        Ok(db) => db,
        Err(e) => {
            println!("OPEN-ERROR {e}");
            return;
        }
    };
    let t = db.table("t").unwrap();
    assert_eq!(t.scan(&Scan::new()).unwrap().count(), 200);
    for i in 0..40 {
        t.put(&Put::new(format!("r{i:02}-9")).add_column(b"cf", b"q", "w"))
            .unwrap();
    }
    let admin = db.admin();
    admin.flush("t").unwrap();
    admin.major_compact("t").unwrap();
    admin.split_at("t", b"r05-3").unwrap();
    admin.major_compact("t").unwrap();
    drop((t, admin, db));
    let db = Db::open(
        &dir,
        DbOptions::default()
            .background(false)
            .fs(Arc::new(fs.clone())),
    )
    .unwrap();
    let t = db.table("t").unwrap();
    // Reads across every region, twice over, while a scanner stays open across a compaction
    // that deletes the files it reads.
    let mut open_scan = t.scan(&Scan::new()).unwrap();
    let first = open_scan.next().unwrap().unwrap();
    for i in 0..40 {
        t.put(&Put::new(format!("r{i:02}-8")).add_column(b"cf", b"q", "x"))
            .unwrap();
    }
    db.admin().flush("t").unwrap();
    db.admin().major_compact("t").unwrap();
    if let Some(st) = fs.descriptor_stats() {
        // The compacted-away files the scanner still reads were unlinked with their
        // descriptors pinned, so reading them on needs no reopen by path.
        assert!(st.pinned > 0, "{st:?}");
    }
    // The scanner's first region is read from its snapshot (without r00-8) although the
    // compaction deleted its files; later regions open as it reaches them, so it sees their
    // new rows, as an HBase client scanner does.
    assert_eq!(1 + open_scan.count(), 279);
    assert_eq!(first.row(), b"r00-0");
    for _ in 0..2 {
        for i in 0..40 {
            assert!(t.exists(&Get::new(format!("r{i:02}-9"))).unwrap());
        }
    }
    assert_eq!(t.scan(&Scan::new()).unwrap().count(), 280);
    if let Some(st) = fs.descriptor_stats() {
        assert!(st.open <= st.capacity + st.pinned, "{st:?}");
        assert_eq!(st.pinned, 0, "pins end with their readers: {st:?}");
        println!("DESCRIPTORS {st:?}");
    }
    println!("FD-OK");
}

fn run_fd_child(dir: &Path, pread: Option<&str>) -> String {
    // `ulimit -n 64` in a shell that then becomes the test binary.
    let exe = std::env::current_exe().unwrap();
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg("ulimit -n 64 && exec \"$0\" --exact fd_child --nocapture --test-threads=1")
        .arg(exe)
        .env(CHILD_ENV, "fd")
        .env(DIR_ENV, dir);
    if let Some(pread) = pread {
        cmd.env("LIMITS_PREAD", pread);
    }
    let out = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "child failed under ulimit -n 64: {stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

#[test]
fn works_under_ulimit_n_64() {
    let dir = tempfile::tempdir().unwrap();
    let files = table_with_many_files(dir.path());
    assert!(files >= 150, "{files} storefiles");
    let out = run_fd_child(dir.path(), None);
    assert!(out.contains("FD-OK"), "{out}");
    println!(
        "ulimit -n 64: {files} storefiles in 40 regions opened, read, written, flushed, compacted, split, reopened"
    );

    // Pread mode with a bounded descriptor cache (RocksDB's max_open_files) does the same.
    let dir = tempfile::tempdir().unwrap();
    table_with_many_files(dir.path());
    let out = run_fd_child(dir.path(), Some("24"));
    assert!(out.contains("FD-OK"), "{out}");
    let stats = out
        .lines()
        .find_map(|l| l.split("DESCRIPTORS ").nth(1))
        .unwrap_or_else(|| panic!("{out}"));
    println!("ulimit -n 64, pread mode, max_open_files 24: {stats}");

    // Unbounded pread mode holds a descriptor per open storefile: a typed error naming the
    // file, never a crash.
    let dir = tempfile::tempdir().unwrap();
    table_with_many_files(dir.path());
    let out = run_fd_child(dir.path(), Some("unbounded"));
    let err = out
        .lines()
        .find_map(|l| l.split("OPEN-ERROR ").nth(1))
        .unwrap_or_else(|| panic!("pread mode opened {files} files under ulimit -n 64: {out}"));
    assert!(err.contains(&*dir.path().to_string_lossy()), "{err}");
    println!("ulimit -n 64, unbounded pread mode: {err}");
}

#[test]
fn oversized_rows_and_cells_get_typed_errors() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(dir.path(), DbOptions::default().background(false)).unwrap();
    db.admin()
        .create_table(
            &TableDescriptor::new("t", vec![ColumnFamilyDescriptor::new(b"cf").unwrap()]).unwrap(),
        )
        .unwrap();
    let t = db.table("t").unwrap();
    let long_row = vec![b'r'; 32768];
    let e = t
        .put(&Put::new(long_row.clone()).add_column(b"cf", b"q", "v"))
        .unwrap_err();
    assert!(e.to_string().contains("32768"), "{e}");
    assert!(t.get(&Get::new(long_row)).is_err());
    let big = vec![b'v'; 10 * 1024 * 1024 + 1];
    let e = t
        .put(&Put::new("r").add_column(b"cf", b"q", big))
        .unwrap_err();
    assert!(
        e.to_string().contains("exceeds the maximum of 10485760"),
        "{e}"
    );
    // Nothing half-written: the table is still empty and takes normal writes.
    assert_eq!(t.scan(&Scan::new()).unwrap().count(), 0);
    t.put(&Put::new("r").add_column(b"cf", b"q", "v")).unwrap();
}

#[test]
fn names_cannot_leave_the_data_directory() {
    let outer = tempfile::tempdir().unwrap();
    let dir = outer.path().join("db");
    let db = Db::open(&dir, DbOptions::default().background(false)).unwrap();
    let admin = db.admin();
    let cf = || ColumnFamilyDescriptor::new(b"cf").unwrap();
    let before: Vec<_> = std::fs::read_dir(outer.path()).unwrap().collect();
    for name in [
        "../escape",
        "..",
        ".",
        "a/b",
        "/abs",
        "ns:../x",
        "../ns:t",
        "..:t",
        "ns/..:t",
        "t\0x",
        "t\\x",
        "-t",
        "",
        ":",
    ] {
        let created = TableDescriptor::new(name, vec![cf()])
            .map_err(Error::from)
            .and_then(|d| admin.create_table(&d));
        assert!(created.is_err(), "table name {name:?} was accepted");
        assert!(
            admin.create_namespace(name).is_err(),
            "namespace {name:?} accepted"
        );
    }
    for family in [
        &b"../x"[..],
        b"..",
        b".",
        b"a/b",
        b"/",
        b"a\\b",
        b"recovered.edits",
        b"",
    ] {
        assert!(
            ColumnFamilyDescriptor::new(family).is_err(),
            "family {:?} was accepted",
            String::from_utf8_lossy(family)
        );
    }
    let after: Vec<_> = std::fs::read_dir(outer.path()).unwrap().collect();
    assert_eq!(
        before.len(),
        after.len(),
        "something was created beside the data directory"
    );
    assert!(matches!(
        db.table("../escape"),
        Err(Error::TableNotFound(_)) | Err(_)
    ));
}
