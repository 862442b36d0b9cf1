//! Integrity (issue 24): files know whose they are, a lost catalog is never an empty
//! database, damage is never silent. Each test here reproduces a case where regionkv lost
//! data or answered wrongly without a word, and pins the fix:
//!
//! * a lost catalog: the open refuses (it used to start an empty database, whose next
//!   `create` deleted the old table), `repair` rebuilds the catalog from the region
//!   manifests and the tables' `.tableinfo`, choosing daughters over their split parent;
//! * a catalog that does not list a table on disk (an old copy put back): nothing deletes
//!   the table's directory, `create` refuses, `repair` adopts it;
//! * a create or drop killed at any step leaves nothing a reopen does not clean up, and
//!   never a half table.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use regionkv::catalog::{CATALOG_FILE, Catalog};
use regionkv::repair::repair;
use regionkv::{
    ColumnFamilyDescriptor, Db, DbOptions, Durability, Error, Get, ManualClock, Put, Scan,
    TableDescriptor,
};
use regionkv_fs::{CrashMode, FaultFs, Fs, MemFs};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

fn options(fs: Arc<dyn Fs>, clock: &ManualClock) -> DbOptions {
    DbOptions::default()
        .background(false)
        .clock(Arc::new(clock.clone()))
        .fs(fs)
}

fn open(fs: &MemFs, clock: &ManualClock) -> regionkv::Result<Db> {
    Db::open("/db", options(Arc::new(fs.clone()), clock))
}

/// Every (row, family:qualifier, value) of a table.
fn contents(db: &Db, table: &str) -> BTreeMap<(Vec<u8>, Vec<u8>), Vec<u8>> {
    let mut out = BTreeMap::new();
    for r in db.table(table).unwrap().scan(&Scan::new()).unwrap() {
        let r = r.unwrap();
        for c in r.cells() {
            let mut col = c.family().to_vec();
            col.push(b':');
            col.extend_from_slice(c.qualifier());
            out.insert((c.row().to_vec(), col), c.value().to_vec());
        }
    }
    out
}

/// A Db with a namespace, a pre-split table with non-default options and a split done by
/// hand (its parent directory still referred to), a disabled table, and data in
/// storefiles and in the WAL.
fn populated(fs: &MemFs, clock: &ManualClock) -> Db {
    let db = open(fs, clock).unwrap();
    let admin = db.admin();
    admin.create_namespace("ns").unwrap();
    let mut cf = ColumnFamilyDescriptor::new(b"cf").unwrap();
    cf.set_attribute("VERSIONS", "3").unwrap();
    let mut desc = TableDescriptor::new("ns:t", vec![cf]).unwrap();
    desc.set_attribute("MAX_FILESIZE", "1048576").unwrap();
    admin
        .create_table_with_splits(&desc, vec![b"m".to_vec()])
        .unwrap();
    let t = db.table("ns:t").unwrap();
    for i in 0..40 {
        let row = format!("{}{i:03}", (b'a' + (i % 26) as u8) as char);
        t.put(&Put::new(row).add_column("cf", "q", format!("v{i}")))
            .unwrap();
    }
    admin.flush("ns:t").unwrap();
    let [low, _high] = admin.split_at("ns:t", b"f").unwrap();
    // One daughter rewrites its references into files of its own; the other still reads
    // the parent's file, so the parent's directory stays.
    admin.compact_region(&low.encoded_name, None, true).unwrap();
    for i in 0..10 {
        let put = Put::new(format!("z{i}")).add_column("cf", "q", "in the WAL");
        t.put(&put.durability(Durability::FsyncWal)).unwrap();
    }
    let off = TableDescriptor::new("off", vec![ColumnFamilyDescriptor::new(b"f").unwrap()]);
    admin.create_table(&off.unwrap()).unwrap();
    db.table("off")
        .unwrap()
        .put(&Put::new("r").add_column("f", "q", "disabled"))
        .unwrap();
    admin.disable_table("off").unwrap();
    db
}

#[test]
fn a_lost_catalog_is_refused_and_repair_rebuilds_it_from_the_directories() {
    let fs = MemFs::new();
    let clock = ManualClock::new(1_700_000_000_000);
    let db = populated(&fs, &clock);
    let before = contents(&db, "ns:t");
    let catalog_before = Catalog::read(&fs, Path::new("/db")).unwrap().unwrap();
    assert_eq!(catalog_before.tables["ns:t"].regions.len(), 3);
    // A power cut, not a close: the last puts are only in the WAL.
    std::mem::forget(db);
    fs.crash(CrashMode::DropUnsynced);

    // Three regions and the split parent, which one daughter still refers to.
    let region_dirs = fs
        .list(Path::new("/db/data/ns/t"))
        .unwrap()
        .into_iter()
        .filter(|n| !n.starts_with('.'))
        .count();
    assert_eq!(region_dirs, 4);
    fs.remove_file(&Path::new("/db").join(CATALOG_FILE))
        .unwrap();
    match open(&fs, &clock) {
        Err(e @ Error::CatalogMissing { .. }) => {
            let msg = e.to_string();
            assert!(
                msg.contains("catalog missing") && msg.contains("regionkv repair"),
                "{msg}"
            );
        }
        other => panic!("expected CatalogMissing, got {other:?}"),
    }
    // Nothing was created by the refused open: still no catalog.
    assert!(!fs.exists(&Path::new("/db").join(CATALOG_FILE)).unwrap());

    let report = repair("/db", options(Arc::new(fs.clone()), &clock)).unwrap();
    assert!(report.catalog_rebuilt, "{report:?}");
    assert!(!report.is_clean());
    assert!(
        report
            .notes
            .iter()
            .any(|n| n.contains("split or merge parent")),
        "the split parent is left out: {:?}",
        report.notes
    );
    let rebuilt = Catalog::read(&fs, Path::new("/db")).unwrap().unwrap();
    assert_eq!(rebuilt.namespaces, catalog_before.namespaces);
    assert_eq!(rebuilt.tables, catalog_before.tables);
    assert!(rebuilt.next_region_id > 0);

    let db = open(&fs, &clock).unwrap();
    assert_eq!(contents(&db, "ns:t"), before);
    assert_eq!(
        db.admin().describe("ns:t").unwrap().families[0].max_versions,
        3
    );
    assert!(!db.admin().is_table_enabled("off").unwrap());
    db.admin().enable_table("off").unwrap();
    let r = db.table("off").unwrap().get(&Get::new("r")).unwrap();
    assert_eq!(r.value(b"f", b"q"), Some(&b"disabled"[..]));
    // And it keeps working: a new region id above every rebuilt one.
    db.admin().split_at("ns:t", b"p").unwrap();
    assert_eq!(contents(&db, "ns:t"), before);
}

#[test]
fn a_table_missing_from_the_catalog_is_never_deleted_and_repair_adopts_it() {
    let fs = MemFs::new();
    let clock = ManualClock::new(1_700_000_000_000);
    let db = populated(&fs, &clock);
    let before = contents(&db, "ns:t");
    db.close().unwrap();
    drop(db);
    // An old copy of the catalog put back: it knows the namespace, not the tables.
    let mut old = Catalog::default();
    old.namespaces.insert("ns".to_string());
    old.write(&fs, Path::new("/db")).unwrap();

    let db = open(&fs, &clock).unwrap();
    assert!(db.admin().list_tables().unwrap().is_empty());
    let desc = TableDescriptor::new("ns:t", vec![ColumnFamilyDescriptor::new(b"cf").unwrap()]);
    match db.admin().create_table(&desc.unwrap()) {
        Err(e @ Error::OrphanTable { .. }) => {
            assert!(e.to_string().contains("/db/data/ns/t"), "{e}")
        }
        other => panic!("expected OrphanTable, got {other:?}"),
    }
    drop(db);
    assert!(fs.exists(Path::new("/db/data/ns/t/.tableinfo")).unwrap());

    let report = repair("/db", options(Arc::new(fs.clone()), &clock)).unwrap();
    assert_eq!(report.tables_adopted, ["off", "ns:t"]);
    assert!(!report.catalog_rebuilt);
    let db = open(&fs, &clock).unwrap();
    assert_eq!(contents(&db, "ns:t"), before);
    assert_eq!(db.admin().regions("ns:t").unwrap().len(), 3);
}

#[test]
fn repair_refuses_regions_that_overlap_with_data_on_both_sides() {
    let fs = MemFs::new();
    let clock = ManualClock::new(1_700_000_000_000);
    let db = open(&fs, &clock).unwrap();
    let desc = TableDescriptor::new("t", vec![ColumnFamilyDescriptor::new(b"cf").unwrap()]);
    db.admin().create_table(&desc.unwrap()).unwrap();
    let t = db.table("t").unwrap();
    t.put(&Put::new("a").add_column("cf", "q", "1")).unwrap();
    db.admin().flush("t").unwrap();
    db.close().unwrap();
    drop(db);
    // A second whole-table region with data of its own: a copy of the first under a
    // newer id, as a botched manual restore would leave.
    let cat = Catalog::read(&fs, Path::new("/db")).unwrap().unwrap();
    let info = cat.tables["t"].regions[0].info.clone();
    let mut other = info.clone();
    other.region_id += 1;
    let src = Path::new("/db/data/default/t").join(info.encoded_name());
    let dst = Path::new("/db/data/default/t").join(other.encoded_name());
    let mut manifest = regionkv_region::Manifest::read(&fs, &src).unwrap().unwrap();
    manifest.region = other;
    fs.create_dir_all(&dst.join("cf")).unwrap();
    for f in &manifest.stores[&b"cf".to_vec()].files {
        let bytes = fs.contents(&src.join("cf").join(&f.name)).unwrap();
        regionkv_fs::write_atomic(&fs, &dst.join("cf").join(&f.name), &bytes).unwrap();
    }
    manifest.write(&fs, &dst).unwrap();
    fs.remove_file(Path::new("/db/CATALOG")).unwrap();

    match repair("/db", options(Arc::new(fs.clone()), &clock)) {
        Err(e @ Error::RepairRefused { .. }) => {
            assert!(e.to_string().contains("overlap and both hold data"), "{e}")
        }
        other => panic!("expected RepairRefused, got {other:?}"),
    }
    assert!(
        !fs.exists(Path::new("/db/CATALOG")).unwrap(),
        "nothing written"
    );
}

/// Runs `change` on a Db over a `FaultFs` that halts every operation from its `n`-th on
/// (the process dies there), cuts the power, and returns the bare file system.
fn killed_at(
    clock: &ManualClock,
    n: u64,
    mode: CrashMode,
    change: &dyn Fn(&Db) -> regionkv::Result<()>,
) -> MemFs {
    let fs = base(clock);
    let fault = Arc::new(FaultFs::new(Arc::new(fs.clone())));
    let db = Db::open("/db", options(fault.clone(), clock)).unwrap();
    fault.halt_at(fault.op_count() + n);
    let _ = change(&db);
    std::mem::forget(db);
    fs.crash(mode);
    fs
}

/// How many file-system operations `change` takes on a fresh Db over `base`.
fn ops_of(clock: &ManualClock, change: &dyn Fn(&Db) -> regionkv::Result<()>) -> u64 {
    let fs = base(clock);
    let fault = Arc::new(FaultFs::new(Arc::new(fs)));
    let db = Db::open("/db", options(fault.clone(), clock)).unwrap();
    let start = fault.op_count();
    change(&db).unwrap();
    let n = fault.op_count() - start;
    std::mem::forget(db);
    n
}

/// A Db holding table `keep` (disabled, one row), closed.
fn base(clock: &ManualClock) -> MemFs {
    let fs = MemFs::new();
    let db = open(&fs, clock).unwrap();
    let desc = TableDescriptor::new("keep", vec![ColumnFamilyDescriptor::new(b"cf").unwrap()]);
    db.admin().create_table(&desc.unwrap()).unwrap();
    db.table("keep")
        .unwrap()
        .put(&Put::new("r").add_column("cf", "q", "v"))
        .unwrap();
    db.admin().disable_table("keep").unwrap();
    db.close().unwrap();
    fs
}

#[test]
fn a_create_or_drop_killed_at_any_step_leaves_no_orphan_and_no_half_table() {
    let clock = ManualClock::new(1_700_000_000_000);
    let create: &dyn Fn(&Db) -> regionkv::Result<()> = &|db| {
        let desc = TableDescriptor::new("t", vec![ColumnFamilyDescriptor::new(b"cf")?])?;
        db.admin()
            .create_table_with_splits(&desc, vec![b"g".to_vec(), b"p".to_vec()])
    };
    let drop_keep: &dyn Fn(&Db) -> regionkv::Result<()> = &|db| db.admin().delete_table("keep");
    let mut checked = 0;
    for (what, change, table) in [("create", create, "t"), ("drop", drop_keep, "keep")] {
        let ops = ops_of(&clock, change);
        assert!(ops > 5, "{what} takes {ops} operations");
        for n in 0..=ops {
            for mode in [CrashMode::DropUnsynced, CrashMode::DropUnsyncedDirEntries] {
                let fs = killed_at(&clock, n, mode, change);
                let db = open(&fs, &clock)
                    .unwrap_or_else(|e| panic!("{what} killed at op {n} ({mode:?}): {e}"));
                let listed = db.admin().table_exists(table).unwrap();
                let dir = format!("/db/data/default/{table}");
                let on_disk = fs.exists(Path::new(&dir)).unwrap();
                assert_eq!(
                    listed, on_disk,
                    "{what} killed at op {n} ({mode:?}): listed {listed}, directory {on_disk}"
                );
                if listed && table == "keep" {
                    db.admin().enable_table("keep").unwrap();
                    let r = db.table("keep").unwrap().get(&Get::new("r")).unwrap();
                    assert_eq!(r.value(b"cf", b"q"), Some(&b"v"[..]), "drop killed at {n}");
                }
                if !listed && table == "t" {
                    // The name is free again.
                    create(&db).unwrap();
                    assert_eq!(db.admin().regions("t").unwrap().len(), 3);
                }
                checked += 1;
            }
        }
    }
    println!("integrity: {checked} killed creates and drops recovered clean");
}

// ---- files that know whose they are ------------------------------------------------

/// Table `t` split at `m` with families `cf` and `cg`, table `u` with `cf`; every store
/// holds one flushed file. Closed. Returns the file system, `t`'s contents and the
/// directories of `t`'s two regions and of `u`'s one.
fn two_tables(clock: &ManualClock) -> (MemFs, Contents, [String; 3]) {
    let fs = MemFs::new();
    let db = open(&fs, clock).unwrap();
    let admin = db.admin();
    let families = || {
        vec![
            ColumnFamilyDescriptor::new(b"cf").unwrap(),
            ColumnFamilyDescriptor::new(b"cg").unwrap(),
        ]
    };
    let t = TableDescriptor::new("t", families()).unwrap();
    admin
        .create_table_with_splits(&t, vec![b"m".to_vec()])
        .unwrap();
    let u = TableDescriptor::new("u", families()).unwrap();
    admin.create_table(&u).unwrap();
    for name in ["t", "u"] {
        let table = db.table(name).unwrap();
        for row in ["a1", "b2", "n3", "x4"] {
            let put = Put::new(row)
                .add_column("cf", "q", format!("{name}-{row}-cf"))
                .add_column("cg", "q", format!("{name}-{row}-cg"));
            table.put(&put).unwrap();
        }
        admin.flush(name).unwrap();
    }
    let before = contents(&db, "t");
    let cat = Catalog::read(&fs, Path::new("/db")).unwrap().unwrap();
    let dir = |table: &str, i: usize| {
        format!(
            "/db/data/default/{table}/{}",
            cat.tables[table].regions[i].info.encoded_name()
        )
    };
    let dirs = [dir("t", 0), dir("t", 1), dir("u", 0)];
    db.close().unwrap();
    (fs, before, dirs)
}

type Contents = BTreeMap<(Vec<u8>, Vec<u8>), Vec<u8>>;

/// The one storefile of `family` in region directory `rdir`.
fn storefile(fs: &MemFs, rdir: &str, family: &str) -> std::path::PathBuf {
    let dir = Path::new(rdir).join(family);
    let names = fs.list(&dir).unwrap();
    assert_eq!(names.len(), 1, "{dir:?}: {names:?}");
    dir.join(&names[0])
}

fn swap(fs: &MemFs, a: &Path, b: &Path) {
    let (x, y) = (fs.contents(a).unwrap(), fs.contents(b).unwrap());
    regionkv_fs::write_atomic(fs, a, &y).unwrap();
    regionkv_fs::write_atomic(fs, b, &x).unwrap();
}

fn copy(fs: &MemFs, from: &Path, to: &Path) {
    let bytes = fs.contents(from).unwrap();
    regionkv_fs::write_atomic(fs, to, &bytes).unwrap();
}

#[test]
fn files_in_another_files_place_are_refused_by_name_and_repair_puts_swaps_back() {
    let clock = ManualClock::new(1_700_000_000_000);
    type Case = (
        &'static str,
        bool,
        Box<dyn Fn(&MemFs, &[String; 3]) -> String>,
    );
    let cases: Vec<Case> = vec![
        (
            "storefiles of two regions swapped",
            true,
            Box::new(|fs, d| {
                let (a, b) = (storefile(fs, &d[0], "cf"), storefile(fs, &d[1], "cf"));
                swap(fs, &a, &b);
                a.display().to_string()
            }),
        ),
        (
            "storefiles of two families swapped",
            true,
            Box::new(|fs, d| {
                let (a, b) = (storefile(fs, &d[0], "cf"), storefile(fs, &d[0], "cg"));
                swap(fs, &a, &b);
                a.display().to_string()
            }),
        ),
        (
            "a storefile of another region copied over one",
            false,
            Box::new(|fs, d| {
                let to = storefile(fs, &d[1], "cf");
                copy(fs, &storefile(fs, &d[0], "cf"), &to);
                to.display().to_string()
            }),
        ),
        (
            "a storefile of another table copied over one",
            false,
            Box::new(|fs, d| {
                let to = storefile(fs, &d[0], "cg");
                copy(fs, &storefile(fs, &d[2], "cg"), &to);
                to.display().to_string()
            }),
        ),
        (
            "manifests of two regions swapped",
            true,
            Box::new(|fs, d| {
                let a = Path::new(&d[0]).join("MANIFEST");
                swap(fs, &a, &Path::new(&d[1]).join("MANIFEST"));
                a.display().to_string()
            }),
        ),
    ];
    for (what, restorable, damage) in &cases {
        let (fs, before, dirs) = two_tables(&clock);
        let named = damage(&fs, &dirs);
        let err = match open(&fs, &clock) {
            Ok(db) => panic!("{what}: opened, scanning {:?}", contents(&db, "t").len()),
            Err(e) => e.to_string(),
        };
        assert!(
            err.contains("belongs elsewhere") && err.contains(&named),
            "{what}: the error names the file and what it is: {err}"
        );
        let report = repair("/db", options(Arc::new(fs.clone()), &clock)).unwrap();
        assert!(!report.is_clean(), "{what}: {report:?}");
        let db = open(&fs, &clock).unwrap_or_else(|e| panic!("{what}: after repair: {e}"));
        let after = contents(&db, "t");
        if *restorable {
            assert!(!report.restored.is_empty(), "{what}: {report:?}");
            assert_eq!(after, before, "{what}: put back, nothing lost");
        } else {
            assert!(
                report
                    .moved_aside
                    .iter()
                    .any(|(_, why)| why.contains("belongs elsewhere")),
                "{what}: {report:?}"
            );
            // What is served is right, only the lost file's cells are missing.
            assert!(
                after.iter().all(|(k, v)| before.get(k) == Some(v)),
                "{what}"
            );
            assert!(after.len() < before.len(), "{what}");
        }
        drop(db);
        let again = repair("/db", options(Arc::new(fs.clone()), &clock)).unwrap();
        assert!(
            again.is_clean(),
            "{what}: a second repair finds nothing: {again:?}"
        );
    }
}

#[test]
fn files_written_before_identities_still_open() {
    // A storefile without an identity and a manifest entry without a checksum: what a
    // Db written by an earlier build holds.
    let clock = ManualClock::new(1_700_000_000_000);
    let (fs, before, dirs) = two_tables(&clock);
    let rdir = Path::new(&dirs[0]);
    let path = storefile(&fs, &dirs[0], "cf");
    let old =
        regionkv_storefile::StoreFileReader::open(&fs, &path, 1, None, Default::default()).unwrap();
    assert!(old.file_info().identity.is_some());
    let mut scanner = regionkv_storefile::StoreFileScanner::new(Arc::new(old));
    let mut cells = Vec::new();
    {
        use regionkv_cell::KeyValueScanner;
        let mut more = scanner.seek_to_first().unwrap();
        while more {
            cells.push(scanner.peek().unwrap().to_cell());
            scanner.advance().unwrap();
            more = scanner.peek().is_some();
        }
    }
    fs.remove_file(&path).unwrap();
    let mut writer =
        regionkv_storefile::StoreFileWriter::new(fs.create_new(&path).unwrap(), Default::default())
            .unwrap();
    for c in &cells {
        writer.append(c.as_cell_ref()).unwrap();
    }
    let written = writer.finish().unwrap();
    let mut manifest = regionkv_region::Manifest::read(&fs, rdir).unwrap().unwrap();
    for f in &mut manifest.stores.get_mut(&b"cf"[..]).unwrap().files {
        f.size = written.size;
        f.trailer_checksum = None;
    }
    manifest.write(&fs, rdir).unwrap();

    let db = open(&fs, &clock).unwrap();
    assert_eq!(contents(&db, "t"), before);
    // The next manifest change records the old file's checksum.
    db.table("t")
        .unwrap()
        .put(&Put::new("a9").add_column("cf", "q", "new"))
        .unwrap();
    db.admin().flush("t").unwrap();
    let manifest = regionkv_region::Manifest::read(&fs, rdir).unwrap().unwrap();
    assert!(
        manifest.stores[&b"cf".to_vec()]
            .files
            .iter()
            .all(|f| f.trailer_checksum.is_some())
    );
}

// ---- WAL: a torn tail is not a truncation ------------------------------------------

fn wal_logs(fs: &MemFs) -> Vec<std::path::PathBuf> {
    let mut logs: Vec<_> = fs
        .list(Path::new("/db/wal"))
        .unwrap()
        .into_iter()
        .filter(|n| n.ends_with(".log"))
        .map(|n| Path::new("/db/wal").join(n))
        .collect();
    logs.sort();
    logs
}

fn rows(db: &Db) -> Vec<String> {
    contents(db, "t")
        .into_keys()
        .map(|(r, _)| String::from_utf8(r).unwrap())
        .collect()
}

/// A Db with table `t` and `n` more rows written (FSYNC_WAL, unflushed), whose process is
/// then killed: nothing is flushed or closed, and the power cut loses nothing acknowledged.
fn killed_writer(fs: &MemFs, clock: &ManualClock, roll_size: u64, n: usize) {
    let mut opts = options(Arc::new(fs.clone()), clock);
    opts.wal.roll_size = roll_size;
    let db = Db::open("/db", opts).unwrap();
    if !db.admin().table_exists("t").unwrap() {
        let desc = TableDescriptor::new("t", vec![ColumnFamilyDescriptor::new(b"cf").unwrap()]);
        db.admin().create_table(&desc.unwrap()).unwrap();
    }
    let t = db.table("t").unwrap();
    let first = rows(&db).len();
    for i in first..first + n {
        let put = Put::new(format!("r{i:04}")).add_column("cf", "q", "v".repeat(40));
        t.put(&put.durability(Durability::FsyncWal)).unwrap();
    }
    std::mem::forget(db);
    fs.crash(CrashMode::DropUnsynced);
}

#[test]
fn a_rolled_log_cut_at_a_record_boundary_is_truncation_not_a_clean_end() {
    let fs = MemFs::new();
    let clock = ManualClock::new(1_700_000_000_000);
    killed_writer(&fs, &clock, 2048, 200);
    let logs = wal_logs(&fs);
    assert!(logs.len() > 3, "{logs:?}");
    // The seal is the last 21 bytes of a rolled-from log: cut it and the record before,
    // exactly at a record boundary.
    let victim = &logs[1];
    let mut reader = regionkv_wal::WalReader::open(&fs, victim).unwrap();
    let mut ends = vec![];
    while reader.next_edit().unwrap().is_some() {
        ends.push(reader.offset());
    }
    let cut = ends[ends.len() - 2];
    fs.truncate(victim, cut).unwrap();
    match open(&fs, &clock) {
        Err(e) => {
            let msg = e.to_string();
            assert!(
                msg.contains("is truncated")
                    && msg.contains(&victim.display().to_string())
                    && msg.contains(&format!("offset {cut}"))
                    && msg.contains("sequence id"),
                "{msg}"
            );
        }
        Ok(db) => panic!("opened a truncated WAL: {} rows", rows(&db).len()),
    }
    // The explicit choice: repair salvages what is left, keeps the damaged log's bytes.
    let report = repair("/db", options(Arc::new(fs.clone()), &clock)).unwrap();
    assert!(
        report
            .moved_aside
            .iter()
            .any(|(p, why)| p.starts_with("/db/corrupt/wal")
                && p.file_name()
                    .unwrap()
                    .to_string_lossy()
                    .starts_with(&*victim.file_name().unwrap().to_string_lossy())
                && why.contains("truncated")),
        "{report:?}"
    );
    let db = open(&fs, &clock).unwrap();
    assert_eq!(
        rows(&db).len(),
        199,
        "one record cut off, the rest replayed"
    );
}

#[test]
fn a_log_truncated_after_a_recovery_read_it_is_an_error() {
    // The issue's case: acknowledged puts of a killed process, its log cut in the middle.
    // Once a later process recovered the log, its length is on record in the next log.
    let fs = MemFs::new();
    let clock = ManualClock::new(1_700_000_000_000);
    killed_writer(&fs, &clock, 128 << 20, 300);
    killed_writer(&fs, &clock, 128 << 20, 0);
    let logs = wal_logs(&fs);
    assert_eq!(logs.len(), 2, "{logs:?}");
    let mut reader = regionkv_wal::WalReader::open(&fs, &logs[0]).unwrap();
    while reader.next_edit().unwrap().is_some() {}
    // Cut in the middle of its records (the file goes on with the reserved zeros).
    fs.truncate(&logs[0], reader.offset() / 2).unwrap();
    match open(&fs, &clock) {
        Err(e) => {
            let msg = e.to_string();
            assert!(
                msg.contains("is truncated") && msg.contains("recorded it as"),
                "{msg}"
            );
        }
        Ok(db) => panic!(
            "took a truncation for a torn tail: {} of 300 rows",
            rows(&db).len()
        ),
    }
}

#[test]
fn a_torn_tail_still_opens_and_the_damaged_log_is_kept() {
    let fs = MemFs::new();
    let clock = ManualClock::new(1_700_000_000_000);
    killed_writer(&fs, &clock, 128 << 20, 50);
    let log = wal_logs(&fs).pop().unwrap();
    let mut reader = regionkv_wal::WalReader::open(&fs, &log).unwrap();
    while reader.next_edit().unwrap().is_some() {}
    // The crash cut the last record: its last 3 bytes never reached the file.
    let end = reader.offset();
    fs.truncate(&log, end - 3).unwrap();
    let whole = fs.contents(&log).unwrap();
    let db = open(&fs, &clock).unwrap();
    assert_eq!(rows(&db).len(), 49);
    // The torn record's bytes are kept, under the log's name and their offset.
    let mut reader = regionkv_wal::WalReader::open(&fs, &log).unwrap();
    for _ in 0..49 {
        reader.next_edit().unwrap().unwrap();
    }
    let torn_at = reader.offset();
    let copy = Path::new("/db/corrupt/wal").join(format!(
        "{}.{torn_at}",
        log.file_name().unwrap().to_string_lossy()
    ));
    assert_eq!(
        fs.contents(&copy).unwrap(),
        &whole[torn_at as usize..],
        "the damaged bytes are kept"
    );
}

#[test]
fn a_log_of_another_database_is_refused() {
    let clock = ManualClock::new(1_700_000_000_000);
    let (mine, theirs) = (MemFs::new(), MemFs::new());
    // Same table, same clock: the two Dbs' regions have the same encoded name.
    for fs in [&mine, &theirs] {
        let db = open(fs, &clock).unwrap();
        let desc = TableDescriptor::new("t", vec![ColumnFamilyDescriptor::new(b"cf").unwrap()]);
        db.admin().create_table(&desc.unwrap()).unwrap();
        let value = if std::ptr::eq(fs, &mine) {
            "mine"
        } else {
            "theirs"
        };
        let put = Put::new("r").add_column("cf", "q", value);
        db.table("t")
            .unwrap()
            .put(&put.durability(Durability::FsyncWal))
            .unwrap();
        std::mem::forget(db);
        fs.crash(CrashMode::DropUnsynced);
    }
    // Their second process writes log 2, newer than any log of mine.
    let db = open(&theirs, &clock).unwrap();
    let put = Put::new("r").add_column("cf", "q", "theirs, later");
    db.table("t")
        .unwrap()
        .put(&put.durability(Durability::FsyncWal))
        .unwrap();
    std::mem::forget(db);
    theirs.crash(CrashMode::DropUnsynced);
    let foreign = wal_logs(&theirs).pop().unwrap();
    assert_eq!(wal_logs(&mine).len(), 1);
    copy_between(&theirs, &foreign, &mine, &foreign);
    match open(&mine, &clock) {
        Err(e) => assert!(
            e.to_string().contains("belongs to another database")
                && e.to_string().contains(&foreign.display().to_string()),
            "{e}"
        ),
        Ok(db) => panic!(
            "replayed another Db's log: r = {:?}",
            db.table("t").unwrap().get(&Get::new("r")).unwrap()
        ),
    }
}

fn copy_between(from_fs: &MemFs, from: &Path, to_fs: &MemFs, to: &Path) {
    let bytes = from_fs.contents(from).unwrap();
    regionkv_fs::write_atomic(to_fs, to, &bytes).unwrap();
}

#[test]
fn a_catalog_of_another_database_is_refused_and_repair_rebuilds_this_ones() {
    let clock = ManualClock::new(1_700_000_000_000);
    let (mine, theirs) = (MemFs::new(), MemFs::new());
    for (fs, table) in [(&mine, "mine"), (&theirs, "theirs")] {
        let db = open(fs, &clock).unwrap();
        let desc = TableDescriptor::new(table, vec![ColumnFamilyDescriptor::new(b"cf").unwrap()]);
        db.admin().create_table(&desc.unwrap()).unwrap();
        db.table(table)
            .unwrap()
            .put(&Put::new("r").add_column("cf", "q", table))
            .unwrap();
        db.close().unwrap();
    }
    let catalog = Path::new("/db/CATALOG");
    copy_between(&theirs, catalog, &mine, catalog);
    match open(&mine, &clock) {
        Err(e) => assert!(
            e.to_string().contains("/db/CATALOG")
                && e.to_string().contains("belongs to another database"),
            "{e}"
        ),
        Ok(db) => panic!(
            "served another Db's catalog: {:?}",
            db.admin().list_tables().unwrap()
        ),
    }
    let report = repair("/db", options(Arc::new(mine.clone()), &clock)).unwrap();
    assert!(report.catalog_rebuilt, "{report:?}");
    let db = open(&mine, &clock).unwrap();
    assert_eq!(db.admin().list_tables().unwrap(), ["mine"]);
    let r = db.table("mine").unwrap().get(&Get::new("r")).unwrap();
    assert_eq!(r.value(b"cf", b"q"), Some(&b"mine"[..]));
}

#[test]
fn a_log_cut_below_what_a_flush_recorded_is_an_error() {
    // A killed process's newest log, never recovered: no later log speaks for it, but the
    // region's manifest recorded how long it was known durable when the region flushed.
    let fs = MemFs::new();
    let clock = ManualClock::new(1_700_000_000_000);
    killed_writer(&fs, &clock, 128 << 20, 0);
    let db = open(&fs, &clock).unwrap();
    let t = db.table("t").unwrap();
    for i in 0..200 {
        let put = Put::new(format!("r{i:04}")).add_column("cf", "q", "v".repeat(40));
        t.put(&put.durability(Durability::FsyncWal)).unwrap();
    }
    db.admin().flush("t").unwrap();
    let put = Put::new("z").add_column("cf", "q", "after the flush");
    t.put(&put.durability(Durability::FsyncWal)).unwrap();
    std::mem::forget(db);
    fs.crash(CrashMode::DropUnsynced);
    let log = wal_logs(&fs).pop().unwrap();
    let mut reader = regionkv_wal::WalReader::open(&fs, &log).unwrap();
    while reader.next_edit().unwrap().is_some() {}
    fs.truncate(&log, reader.offset() / 2).unwrap();
    match open(&fs, &clock) {
        Err(e) => {
            let msg = e.to_string();
            assert!(
                msg.contains("is truncated") && msg.contains("the manifest of region"),
                "{msg}"
            );
        }
        Ok(db) => panic!("took a truncation for a torn tail: {:?}", rows(&db).len()),
    }
}

#[test]
fn a_kill_a_reopen_and_a_power_cut_is_not_a_truncation() {
    // A killed process leaves SYNC_WAL records in the page cache only; the next open
    // records that log's length in its new log's header. A power cut after that open must
    // not make the unsynced records that are lost read as a truncation: the open syncs the
    // log before it puts the length on record.
    let fs = MemFs::new();
    let clock = ManualClock::new(1_700_000_000_000);
    let opts = || {
        let mut o = options(Arc::new(fs.clone()), &clock);
        // No background sync: only what the engine syncs on its own is durable.
        o.wal.async_sync_interval = std::time::Duration::from_secs(3600);
        o
    };
    let db = Db::open("/db", opts()).unwrap();
    let desc = TableDescriptor::new("t", vec![ColumnFamilyDescriptor::new(b"cf").unwrap()]);
    db.admin().create_table(&desc.unwrap()).unwrap();
    let t = db.table("t").unwrap();
    for i in 0..100 {
        t.put(&Put::new(format!("r{i:04}")).add_column("cf", "q", "v"))
            .unwrap();
    }
    std::mem::forget((t, db));
    fs.kill_process();
    let db = Db::open("/db", opts()).unwrap();
    assert_eq!(rows(&db).len(), 100);
    std::mem::forget(db);
    fs.kill_process();
    fs.crash(CrashMode::DropUnsynced);
    let db =
        Db::open("/db", opts()).unwrap_or_else(|e| panic!("a kill, a reopen and a power cut: {e}"));
    assert_eq!(
        rows(&db).len(),
        100,
        "the reopen made the replayed log durable"
    );
}

#[test]
fn a_committed_create_still_marked_creating_is_kept_and_old_catalog_values_still_load() {
    // The rewrite of `.tableinfo` after a create's commit failed: the file still says
    // CREATING. With the table's catalog entry lost, its data must not pass for the
    // leftover of a create that never committed.
    let fs = MemFs::new();
    let clock = ManualClock::new(1_700_000_000_000);
    let db = open(&fs, &clock).unwrap();
    // A value an earlier build accepted (a u32): refused at create now, loaded still.
    let mut cf = ColumnFamilyDescriptor::new(b"cf").unwrap();
    cf.set_attribute("VERSIONS", "2147483648").unwrap();
    let big = TableDescriptor::new("big", vec![cf.clone()]).unwrap();
    assert!(db.admin().create_table(&big).is_err(), "HBase's int range");
    let desc = TableDescriptor::new("t", vec![ColumnFamilyDescriptor::new(b"cf").unwrap()]);
    db.admin().create_table(&desc.unwrap()).unwrap();
    db.table("t")
        .unwrap()
        .put(&Put::new("r").add_column("cf", "q", "v"))
        .unwrap();
    db.close().unwrap();
    drop(db);
    let tdir = Path::new("/db/data/default/t");
    let mut info = regionkv::table_info::TableInfo::read(&fs, tdir)
        .unwrap()
        .unwrap();
    info.state = regionkv::table_info::TableInfoState::Creating;
    info.write(&fs, tdir).unwrap();
    let mut catalog = Catalog::read(&fs, Path::new("/db")).unwrap().unwrap();
    catalog.tables.remove("t");
    // And an entry as an earlier build could write it.
    catalog.tables.insert(
        "big".into(),
        regionkv::catalog::TableEntry {
            descriptor: TableDescriptor::new("big", vec![cf]).unwrap(),
            state: regionkv::catalog::TableState::Disabled,
            regions: vec![],
        },
    );
    catalog.write(&fs, Path::new("/db")).unwrap();
    let db = open(&fs, &clock).unwrap();
    assert_eq!(
        db.admin().describe("big").unwrap().families[0].max_versions,
        2_147_483_648
    );
    assert!(
        fs.exists(tdir).unwrap(),
        "a CREATING table with data is kept"
    );
    drop(db);
    let report = repair("/db", options(Arc::new(fs.clone()), &clock)).unwrap();
    assert_eq!(report.tables_adopted, ["t"]);
    let db = open(&fs, &clock).unwrap();
    let r = db.table("t").unwrap().get(&Get::new("r")).unwrap();
    assert_eq!(r.value(b"cf", b"q"), Some(&b"v"[..]));
}
