//! Read-only opens (`Db::open_read_only`, `Db::refresh`; docs/read-only.md): a reader next
//! to the writer that holds the directory sees the flushed files plus a replay of the WAL
//! as of its open, catches up only on `refresh`, refuses every mutation, leaves every byte
//! of the directory as it found it, keeps serving while the writer compacts away the files
//! it has open, retries a file that vanished before it could open it, reads the directory
//! of a killed writer whose last WAL record is torn, and reads next to a writer in another
//! process.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use regionkv::fs::{FileLock, Fs, MemFs, ReadableFile, WritableFile};
use regionkv::{
    Append, BatchAction, CheckAndMutate, ColumnFamilyDescriptor, Db, DbOptions, Delete, Error,
    FamilyCells, Get, Increment, Put, RowMutations, Scan, TableDescriptor,
};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

fn writer_options() -> DbOptions {
    DbOptions::default().background(false)
}

fn create_table(db: &Db, splits: &[&str]) {
    let desc =
        TableDescriptor::new("t", vec![ColumnFamilyDescriptor::new(b"cf").unwrap()]).unwrap();
    let splits = splits.iter().map(|s| s.as_bytes().to_vec()).collect();
    db.admin().create_table_with_splits(&desc, splits).unwrap();
}

fn put(db: &Db, row: &str, value: &str) {
    db.table("t")
        .unwrap()
        .put(&Put::new(row).add_column("cf", "q", value))
        .unwrap();
}

/// `row=value` for every row of table `t`, in scan order.
fn rows(db: &Db) -> Vec<String> {
    db.table("t")
        .unwrap()
        .scan(&Scan::new())
        .unwrap()
        .map(|r| {
            let r = r.unwrap();
            let v = r.value(b"cf", b"q").unwrap_or_default();
            format!(
                "{}={}",
                String::from_utf8_lossy(r.row()),
                String::from_utf8_lossy(v)
            )
        })
        .collect()
}

/// Every file under `dir` with its bytes and modification time.
fn tree(dir: &Path) -> BTreeMap<PathBuf, (Vec<u8>, std::time::SystemTime)> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            let meta = e.metadata().unwrap();
            if meta.is_dir() {
                stack.push(e.path());
            } else {
                let bytes = std::fs::read(e.path()).unwrap();
                out.insert(e.path(), (bytes, meta.modified().unwrap()));
            }
        }
    }
    out
}

fn storefiles(dir: &Path) -> Vec<PathBuf> {
    tree(dir)
        .into_keys()
        .filter(|p| p.starts_with(dir.join("data")) && p.extension().is_some_and(|e| e == "sf"))
        .collect()
}

#[test]
fn a_reader_beside_the_writer_sees_flushed_and_wal_only_edits_as_of_its_open_until_refresh() {
    let dir = tempfile::tempdir().unwrap();
    let writer = Db::open(dir.path(), writer_options()).unwrap();
    create_table(&writer, &["m"]);
    put(&writer, "a", "1");
    put(&writer, "x", "1");
    writer.admin().flush("t").unwrap();
    put(&writer, "b", "wal-only");
    put(&writer, "a", "2");

    // The writer holds the directory: a second writer is refused, a reader is not.
    assert!(matches!(
        Db::open(dir.path(), writer_options()),
        Err(Error::Locked { .. })
    ));
    let reader = Db::open_read_only(dir.path(), DbOptions::default()).unwrap();
    assert!(reader.is_read_only());
    assert_eq!(rows(&reader), ["a=2", "b=wal-only", "x=1"]);
    let table = reader.table("t").unwrap();

    put(&writer, "c", "later");
    writer.admin().flush("t").unwrap();
    put(&writer, "y", "later");
    writer.admin().create_namespace("ns").unwrap();
    assert_eq!(
        rows(&reader),
        ["a=2", "b=wal-only", "x=1"],
        "as of the open"
    );
    assert!(
        !reader
            .admin()
            .list_namespaces()
            .unwrap()
            .contains(&"ns".to_string())
    );

    reader.refresh().unwrap();
    assert_eq!(
        rows(&reader),
        ["a=2", "b=wal-only", "c=later", "x=1", "y=later"]
    );
    assert!(
        reader
            .admin()
            .list_namespaces()
            .unwrap()
            .contains(&"ns".to_string())
    );
    // A handle made before the refresh keeps the view it was made from.
    let old: Vec<_> = table.scan(&Scan::new()).unwrap().collect();
    assert_eq!(old.len(), 3);
    // The writer is undisturbed and still holds the directory after the reader closes.
    drop((table, reader));
    put(&writer, "z", "after");
    assert!(matches!(
        Db::open(dir.path(), writer_options()),
        Err(Error::Locked { .. })
    ));
    assert_eq!(rows(&writer).len(), 6);
}

#[test]
fn every_mutation_of_a_read_only_open_is_refused_and_reads_still_work() {
    let dir = tempfile::tempdir().unwrap();
    let writer = Db::open(dir.path(), writer_options()).unwrap();
    create_table(&writer, &["m"]);
    put(&writer, "a", "1");
    put(&writer, "x", "2");
    drop(writer);

    let db = Db::open_read_only(dir.path(), writer_options()).unwrap();
    let t = db.table("t").unwrap();
    let admin = db.admin();
    let read_only = |what: &str, r: regionkv::Result<()>| match r {
        Err(e @ Error::ReadOnly(_)) => {
            assert!(e.to_string().contains("open read-only"), "{what}: {e}");
        }
        other => panic!("{what}: expected ReadOnly, got {other:?}"),
    };
    let p = Put::new("r").add_column("cf", "q", "v");
    read_only("put", t.put(&p));
    read_only("put_all", t.put_all(std::slice::from_ref(&p)));
    read_only("delete", t.delete(&Delete::new("a")));
    read_only("delete_all", t.delete_all(&[Delete::new("a")]));
    read_only(
        "increment",
        t.increment(&Increment::new("n").add_column("cf", "c", 1))
            .map(drop),
    );
    read_only(
        "increment_column_value",
        t.increment_column_value(b"n", b"cf", b"c", 1).map(drop),
    );
    read_only(
        "append",
        t.append(&Append::new("a").add_column("cf", "q", "z"))
            .map(drop),
    );
    read_only(
        "check_and_mutate",
        t.check_and_mutate(
            &CheckAndMutate::builder("a")
                .if_not_exists("cf", "q")
                .then_put(p.clone()),
        )
        .map(drop),
    );
    read_only(
        "mutate_row",
        t.mutate_row(&RowMutations::new("a").add_mutation(p.clone())),
    );
    for r in t.batch(&[
        BatchAction::Put(p.clone()),
        BatchAction::Delete(Delete::new("a")),
    ]) {
        read_only("batch", r.map(drop));
    }
    let buffered = t.buffered_mutator();
    let buffered_result = buffered.mutate(p.clone()).and_then(|()| buffered.flush());
    assert!(
        matches!(&buffered_result, Err(Error::MutationsFailed { first, .. }) if first.contains("read-only"))
            || matches!(&buffered_result, Err(Error::ReadOnly(_))),
        "{buffered_result:?}"
    );

    let desc =
        TableDescriptor::new("u", vec![ColumnFamilyDescriptor::new(b"cf").unwrap()]).unwrap();
    // Refused before any other check: `t` exists, yet the answer is ReadOnly.
    read_only(
        "create_table t",
        admin.create_table(&admin.describe("t").unwrap()),
    );
    read_only("create_table", admin.create_table(&desc));
    read_only(
        "modify_table",
        admin.modify_table(&admin.describe("t").unwrap()),
    );
    read_only(
        "add_family",
        admin.add_family("t", ColumnFamilyDescriptor::new(b"cg").unwrap()),
    );
    read_only("delete_family", admin.delete_family("t", b"cf"));
    read_only("disable_table", admin.disable_table("t"));
    read_only("enable_table", admin.enable_table("t"));
    read_only("truncate_table", admin.truncate_table("t", true));
    read_only("delete_table", admin.delete_table("t"));
    read_only("flush", admin.flush("t"));
    read_only("flush_family", admin.flush_family("t", b"cf"));
    read_only("compact", admin.compact("t"));
    read_only("major_compact", admin.major_compact("t"));
    read_only("split_at", admin.split_at("t", b"c").map(drop));
    read_only("split", admin.split("t").map(drop));
    let regions = admin.table_regions("t").unwrap();
    let names: Vec<&str> = regions.iter().map(|r| r.encoded_name.as_str()).collect();
    read_only(
        "merge_regions",
        admin.merge_regions(&names, false).map(drop),
    );
    read_only("flush_region", admin.flush_region(names[0], None));
    read_only("compact_region", admin.compact_region(names[0], None, true));
    read_only("create_namespace", admin.create_namespace("ns"));
    read_only("drop_namespace", admin.drop_namespace("default"));
    read_only("roll_wal_writer", admin.roll_wal_writer());
    let cells =
        vec![regionkv::Cell::new(b"b", b"cf", b"q", 5, regionkv::CellType::Put, b"v").unwrap()];
    read_only(
        "bulk_load",
        admin
            .bulk_load("t", vec![FamilyCells::new("cf", cells)])
            .map(drop),
    );
    read_only("snapshot", admin.snapshot("s1", "t").map(drop));
    read_only("clone_snapshot", admin.clone_snapshot("s1", "t2"));
    read_only("restore_snapshot", admin.restore_snapshot("s1"));
    read_only("delete_snapshot", admin.delete_snapshot("s1"));
    assert!(admin.list_snapshots().unwrap().is_empty());

    // Reads are unaffected, and nothing above changed the view.
    assert_eq!(rows(&db), ["a=1", "x=2"]);
    assert_eq!(
        t.get(&Get::new("x")).unwrap().value(b"cf", b"q"),
        Some(&b"2"[..])
    );
    assert_eq!(admin.list_tables().unwrap(), ["t"]);
    assert!(admin.is_table_enabled("t").unwrap());
    assert_eq!(admin.table_regions("t").unwrap().len(), 2);
}

#[test]
fn a_read_only_open_changes_no_byte_and_no_mtime_of_the_directory() {
    let dir = tempfile::tempdir().unwrap();
    let writer = Db::open(dir.path(), writer_options()).unwrap();
    create_table(&writer, &["m"]);
    for i in 0..20 {
        put(&writer, &format!("r{i:02}"), "v");
    }
    writer.admin().flush("t").unwrap();
    put(&writer, "r00", "wal");
    // A file the manifest does not list, as the writer's flush in progress looks: the
    // writer's own open would sweep it; a reader must not.
    let region = writer.admin().table_regions("t").unwrap()[0]
        .encoded_name
        .clone();
    let in_progress = dir
        .path()
        .join("data/default/t")
        .join(region)
        .join("cf/999.sf");
    std::fs::write(&in_progress, b"half a flush").unwrap();
    let before = tree(dir.path());
    assert!(before.contains_key(&in_progress));
    assert!(before.keys().any(|p| p.ends_with("LOCK")));
    assert!(before.keys().any(|p| p.ends_with("MANIFEST")));

    let reader = Db::open_read_only(dir.path(), DbOptions::default()).unwrap();
    assert_eq!(rows(&reader).len(), 20);
    reader.refresh().unwrap();
    assert!(reader.admin().flush("t").is_err());
    reader.close().unwrap();
    drop(reader);

    let after = tree(dir.path());
    assert_eq!(
        before.keys().collect::<Vec<_>>(),
        after.keys().collect::<Vec<_>>(),
        "no file created or removed"
    );
    for (path, (bytes, mtime)) in &before {
        let (b, m) = &after[path];
        assert!(b == bytes, "{} changed", path.display());
        assert_eq!(m, mtime, "{} touched", path.display());
    }
    // The writer goes on as if nothing happened.
    put(&writer, "r99", "v");
    writer.admin().flush("t").unwrap();
    assert_eq!(rows(&writer).len(), 21);
}

fn many_files(writer: &Db, files: usize) {
    for f in 0..files {
        for i in 0..50 {
            put(writer, &format!("row{i:03}"), &format!("v{f}"));
        }
        writer.admin().flush("t").unwrap();
    }
}

fn reader_keeps_scanning_while_the_writer_compacts(reader_options: DbOptions) {
    let dir = tempfile::tempdir().unwrap();
    let writer = Db::open(dir.path(), writer_options()).unwrap();
    create_table(&writer, &[]);
    many_files(&writer, 3);
    let inputs = storefiles(dir.path());
    assert_eq!(inputs.len(), 3);

    let reader = Db::open_read_only(dir.path(), reader_options).unwrap();
    let mut scan = reader.table("t").unwrap().scan(&Scan::new()).unwrap();
    let first: Vec<_> = scan.by_ref().take(10).map(|r| r.unwrap()).collect();
    assert_eq!(first.len(), 10);

    writer.admin().major_compact("t").unwrap();
    let now = storefiles(dir.path());
    assert_eq!(now.len(), 1);
    assert!(
        inputs.iter().all(|p| !p.exists()),
        "the writer deleted the files the reader has open"
    );

    // The running scan, a new scan and a get all read the deleted files.
    let rest: Vec<_> = scan.map(|r| r.unwrap()).collect();
    assert_eq!(first.len() + rest.len(), 50);
    let all = rows(&reader);
    assert_eq!(all.len(), 50);
    assert!(all.iter().all(|r| r.ends_with("=v2")), "{all:?}");
    let got = reader.table("t").unwrap().get(&Get::new("row007")).unwrap();
    assert_eq!(got.value(b"cf", b"q"), Some(&b"v2"[..]));

    // A refresh moves onto the compacted file.
    reader.refresh().unwrap();
    assert_eq!(rows(&reader), all);
    assert_eq!(reader.admin().regions("t").unwrap()[0].store_files, 1);
}

#[test]
fn a_reader_keeps_its_mapped_files_while_the_writer_compacts_and_deletes_them() {
    reader_keeps_scanning_while_the_writer_compacts(DbOptions::default());
}

#[test]
fn a_reader_in_pread_mode_keeps_its_open_descriptors_while_the_writer_deletes_the_files() {
    let fs = regionkv::fs::RealFs::with_read_mode(regionkv::fs::ReadMode::Pread);
    reader_keeps_scanning_while_the_writer_compacts(DbOptions::default().fs(Arc::new(fs)));
}

/// The file system seam of a reader whose first storefile open comes too late: `before`
/// runs (the writer compacts the file away) just before the first `open_read` of a
/// storefile, so the reader's manifest names a file that is gone.
struct LateOpen {
    inner: MemFs,
    armed: AtomicBool,
    before: Box<dyn Fn() + Send + Sync>,
}

impl std::fmt::Debug for LateOpen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LateOpen")
            .field("inner", &self.inner)
            .finish()
    }
}

impl Fs for LateOpen {
    fn create_dir_all(&self, path: &Path) -> regionkv::fs::Result<()> {
        self.inner.create_dir_all(path)
    }
    fn create_new(&self, path: &Path) -> regionkv::fs::Result<Box<dyn WritableFile>> {
        self.inner.create_new(path)
    }
    fn open_append(&self, path: &Path) -> regionkv::fs::Result<Box<dyn WritableFile>> {
        self.inner.open_append(path)
    }
    fn open_read(&self, path: &Path) -> regionkv::fs::Result<Arc<dyn ReadableFile>> {
        if path.extension().is_some_and(|e| e == "sf") && self.armed.swap(false, Ordering::SeqCst) {
            (self.before)();
        }
        self.inner.open_read(path)
    }
    fn rename(&self, from: &Path, to: &Path) -> regionkv::fs::Result<()> {
        self.inner.rename(from, to)
    }
    fn hard_link(&self, from: &Path, to: &Path) -> regionkv::fs::Result<()> {
        self.inner.hard_link(from, to)
    }
    fn remove_file(&self, path: &Path) -> regionkv::fs::Result<()> {
        self.inner.remove_file(path)
    }
    fn remove_dir_all(&self, path: &Path) -> regionkv::fs::Result<()> {
        self.inner.remove_dir_all(path)
    }
    fn list(&self, dir: &Path) -> regionkv::fs::Result<Vec<String>> {
        self.inner.list(dir)
    }
    fn exists(&self, path: &Path) -> regionkv::fs::Result<bool> {
        self.inner.exists(path)
    }
    fn file_len(&self, path: &Path) -> regionkv::fs::Result<u64> {
        self.inner.file_len(path)
    }
    fn sync_dir(&self, dir: &Path) -> regionkv::fs::Result<()> {
        self.inner.sync_dir(dir)
    }
    fn lock(&self, path: &Path) -> regionkv::fs::Result<Box<dyn FileLock>> {
        self.inner.lock(path)
    }
    fn lock_dir(&self, dir: &Path) -> regionkv::fs::Result<Box<dyn FileLock>> {
        self.inner.lock_dir(dir)
    }
}

#[test]
fn a_storefile_deleted_between_the_manifest_read_and_its_open_is_retried_from_a_fresh_manifest() {
    let mem = MemFs::new();
    let writer = Db::open("/db", writer_options().fs(Arc::new(mem.clone()))).unwrap();
    create_table(&writer, &[]);
    many_files(&writer, 3);
    let compacted = Arc::new(AtomicBool::new(false));
    let fs = Arc::new(LateOpen {
        inner: mem.clone(),
        armed: AtomicBool::new(true),
        before: Box::new({
            let writer = writer.clone();
            let compacted = compacted.clone();
            move || {
                writer.admin().major_compact("t").unwrap();
                compacted.store(true, Ordering::SeqCst);
            }
        }),
    });
    let reader = Db::open_read_only("/db", DbOptions::default().fs(fs)).unwrap();
    assert!(
        compacted.load(Ordering::SeqCst),
        "the file vanished under the first attempt"
    );
    assert_eq!(reader.admin().regions("t").unwrap()[0].store_files, 1);
    let all = rows(&reader);
    assert_eq!(all.len(), 50);
    assert!(all.iter().all(|r| r.ends_with("=v2")));
}

#[test]
fn a_directory_that_is_not_a_db_is_refused_and_never_created() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("absent");
    assert!(matches!(
        Db::open_read_only(&missing, DbOptions::default()),
        Err(Error::NotADb { .. })
    ));
    assert!(!missing.exists());
    assert!(matches!(
        Db::open_read_only(dir.path(), DbOptions::default()),
        Err(Error::NotADb { .. })
    ));
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

/// The last non-zero byte of the newest WAL log, plus one: where its records end (a log
/// reserves its tail with zeros).
fn newest_log(dir: &Path) -> (PathBuf, usize) {
    let log = tree(&dir.join("wal"))
        .into_keys()
        .filter(|p| p.extension().is_none_or(|e| e != "tmp"))
        .max()
        .unwrap();
    let bytes = std::fs::read(&log).unwrap();
    let end = bytes.iter().rposition(|b| *b != 0).map_or(0, |i| i + 1);
    (log, end)
}

#[test]
fn a_reader_over_a_killed_writers_directory_treats_a_torn_wal_tail_as_the_end_and_repairs_nothing()
{
    let dir = tempfile::tempdir().unwrap();
    let writer = Db::open(dir.path(), writer_options()).unwrap();
    create_table(&writer, &[]);
    put(&writer, "a", "flushed");
    writer.admin().flush("t").unwrap();
    put(&writer, "b", "in the wal");
    let (log, before_torn) = newest_log(dir.path());
    put(&writer, "c", "torn");
    let (same, end) = newest_log(dir.path());
    assert_eq!(log, same);
    assert!(end > before_torn);
    // Killed mid-append: the last record is half on disk. Leaking the writer keeps it
    // from closing (no flush, no clean shutdown), as a kill -9 would.
    std::mem::forget(writer);
    let mut bytes = std::fs::read(&log).unwrap();
    let half = before_torn + (end - before_torn) / 2;
    bytes[half..end].fill(0);
    std::fs::write(&log, &bytes).unwrap();
    let before = tree(dir.path());

    let reader = Db::open_read_only(dir.path(), DbOptions::default()).unwrap();
    assert_eq!(rows(&reader), ["a=flushed", "b=in the wal"]);
    reader.refresh().unwrap();
    assert_eq!(rows(&reader), ["a=flushed", "b=in the wal"]);
    drop(reader);
    let after = tree(dir.path());
    assert_eq!(before.len(), after.len(), "no corrupt/ copy, no new log");
    assert!(after[&log].0 == bytes, "the torn log is left as it was");
}

/// The writer of the cross-process test, run in a child process (this test binary again,
/// with `READ_ONLY_WRITER_DIR` set): writes a first batch, flushes part of it, says
/// `ready`, waits for `go`, writes a second batch, says `written`, then keeps the Db open
/// until it is killed. Ignored: it is only ever run as that child.
#[test]
#[ignore = "the writer child of the cross-process test"]
fn writer_child() {
    let Some(dir) = std::env::var_os("READ_ONLY_WRITER_DIR") else {
        return;
    };
    let dir = PathBuf::from(dir);
    let db = Db::open(dir.join("db"), DbOptions::default()).unwrap();
    create_table(&db, &["m"]);
    for i in 0..10 {
        put(&db, &format!("a{i}"), "first");
    }
    db.admin().flush("t").unwrap();
    for i in 0..10 {
        put(&db, &format!("x{i}"), "first");
    }
    std::fs::write(dir.join("ready"), "").unwrap();
    while !dir.join("go").exists() {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    for i in 0..10 {
        put(&db, &format!("n{i}"), "second");
    }
    std::fs::write(dir.join("written"), "").unwrap();
    loop {
        std::thread::sleep(std::time::Duration::from_secs(1));
    }
}

fn wait_for(path: &Path, child: &mut std::process::Child) {
    while !path.exists() {
        if let Some(status) = child.try_wait().unwrap() {
            panic!("the writer exited early: {status}");
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

#[test]
fn a_reader_in_this_process_reads_beside_a_writer_in_another_and_after_it_is_killed() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "writer_child", "--ignored", "--test-threads=1"])
        .env("READ_ONLY_WRITER_DIR", dir.path())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let db_dir = dir.path().join("db");
    wait_for(&dir.path().join("ready"), &mut child);

    // The writer process holds the directory.
    assert!(matches!(
        Db::open(&db_dir, writer_options()),
        Err(Error::Locked { .. })
    ));
    let reader = Db::open_read_only(&db_dir, DbOptions::default()).unwrap();
    let first = rows(&reader);
    assert_eq!(first.len(), 20, "{first:?}");
    assert!(first.iter().all(|r| r.ends_with("=first")));

    std::fs::write(dir.path().join("go"), "").unwrap();
    wait_for(&dir.path().join("written"), &mut child);
    assert_eq!(rows(&reader), first, "as of the open");
    reader.refresh().unwrap();
    assert_eq!(rows(&reader).len(), 30);

    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(rows(&reader).len(), 30, "the reader outlives the writer");
    let after_kill = Db::open_read_only(&db_dir, DbOptions::default()).unwrap();
    assert_eq!(rows(&after_kill), rows(&reader));
    drop((reader, after_kill));
    // The killed writer's recovery still finds everything it acknowledged.
    let recovered = Db::open(&db_dir, writer_options()).unwrap();
    assert_eq!(rows(&recovered).len(), 30);
}

#[test]
fn a_flush_while_the_reader_reads_makes_it_read_again_so_the_view_is_one_point_in_time() {
    let mem = MemFs::new();
    let writer = Db::open("/db", writer_options().fs(Arc::new(mem.clone()))).unwrap();
    create_table(&writer, &[]);
    many_files(&writer, 3);
    // Runs after the reader read the manifests and the WAL, before its first file open:
    // the first attempt's manifests are stale when it ends.
    let fs = Arc::new(LateOpen {
        inner: mem.clone(),
        armed: AtomicBool::new(true),
        before: Box::new({
            let writer = writer.clone();
            move || {
                put(&writer, "row999", "during");
                writer.admin().flush("t").unwrap();
            }
        }),
    });
    let reader = Db::open_read_only("/db", DbOptions::default().fs(fs)).unwrap();
    assert_eq!(reader.admin().regions("t").unwrap()[0].store_files, 4);
    let all = rows(&reader);
    assert_eq!(all.len(), 51);
    assert_eq!(all.last().map(String::as_str), Some("row999=during"));
}

#[test]
fn a_reader_whose_evicted_descriptor_meets_a_deleted_file_reports_it_and_a_refresh_recovers() {
    let dir = tempfile::tempdir().unwrap();
    let writer = Db::open(dir.path(), writer_options()).unwrap();
    create_table(&writer, &[]);
    many_files(&writer, 3);
    // One descriptor for three files: reading them all reopens evicted ones by path.
    let fs = regionkv::fs::RealFs::with_max_open_files(1);
    let reader = Db::open_read_only(dir.path(), DbOptions::default().fs(Arc::new(fs))).unwrap();
    writer.admin().major_compact("t").unwrap();

    let scanned: regionkv::Result<Vec<_>> = reader
        .table("t")
        .unwrap()
        .scan(&Scan::new())
        .unwrap()
        .collect();
    let err = scanned.expect_err("an evicted file the writer deleted cannot be reopened");
    let message = format!("{err}: {:?}", std::error::Error::source(&err));
    assert!(message.contains(".sf"), "names the file: {message}");

    reader.refresh().unwrap();
    let all = rows(&reader);
    assert_eq!(all.len(), 50);
    assert!(all.iter().all(|r| r.ends_with("=v2")));
}
