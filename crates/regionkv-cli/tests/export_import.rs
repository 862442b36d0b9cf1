//! `regionkv export`, `import` and `copytable` as a user runs them (the built binary), and
//! the kill test the issue asks for: an import killed mid-load leaves a Db that opens
//! cleanly with the table empty or complete (the load commits for the whole table at
//! once), and running the import again makes a raw scan equal to the source's.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use regionkv::{
    CellType, ColumnFamilyDescriptor, Db, DbOptions, Delete, Put, Scan, TableDescriptor,
};

type RawCell = (Vec<u8>, Vec<u8>, Vec<u8>, i64, CellType, Vec<u8>);

fn raw_scan(db: &Db, table: &str) -> Vec<RawCell> {
    db.table(table)
        .unwrap()
        .scan(&Scan::new().raw(true).all_versions())
        .unwrap()
        .flat_map(|r| r.unwrap().into_cells())
        .map(|c| {
            (
                c.row().to_vec(),
                c.family().to_vec(),
                c.qualifier().to_vec(),
                c.timestamp(),
                c.cell_type(),
                c.value().to_vec(),
            )
        })
        .collect()
}

fn regionkv(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_regionkv"))
        .args(args)
        .output()
        .unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// `rows` rows of 3 columns in 3 regions, two versions of one column, and delete markers.
/// Compactions are off for the table (and for the import, which copies the descriptor): a
/// background compaction that took in every file would be promoted to a major one and drop
/// the markers and what they mask, so raw scans taken at different moments would differ.
fn make_source(data: &Path, rows: u32) {
    let db = Db::open(data, DbOptions::default()).unwrap();
    let mut cf = ColumnFamilyDescriptor::new(b"d").unwrap();
    cf.max_versions = 3;
    let mut desc = TableDescriptor::new("t", vec![cf]).unwrap();
    desc.compaction_enabled = false;
    db.admin()
        .create_table_with_splits(&desc, vec![b"row3".to_vec(), b"row6".to_vec()])
        .unwrap();
    let t = db.table("t").unwrap();
    let m = t.buffered_mutator();
    for i in 0..rows {
        let row = format!("row{i:07}");
        m.mutate(
            Put::new(&row)
                .add_column_at("d", "a", 10, format!("alpha-{i}"))
                .add_column_at("d", "a", 20, format!("alpha2-{i}"))
                .add_column_at("d", "b", 10, format!("bravo-{i}-0123456789"))
                .add_column_at("d", "c", 10, [0u8, 1, 2, (i % 256) as u8]),
        )
        .unwrap();
    }
    m.flush().unwrap();
    for i in (1..rows).step_by(1000) {
        t.delete(&Delete::new(format!("row{i:07}")).add_columns_at("d", "b", 15))
            .unwrap();
    }
    db.close().unwrap();
}

fn raw_of(data: &Path, table: &str) -> Vec<RawCell> {
    let db = Db::open(data, DbOptions::default().background(false)).unwrap();
    let cells = raw_scan(&db, table);
    db.close().unwrap();
    cells
}

/// Bytes of every file under `dir`.
fn tree_size(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .filter_map(Result::ok)
        .map(|e| match e.metadata() {
            Ok(m) if m.is_dir() => tree_size(&e.path()),
            Ok(m) => m.len(),
            Err(_) => 0,
        })
        .sum()
}

#[test]
fn a_killed_import_reopens_cleanly_and_a_rerun_reproduces_the_source() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    make_source(&src, 150_000);
    let source = raw_of(&src, "t");
    // 4 puts a row, 150 DeleteColumn markers; the puts they mask went at the flush (a
    // flush drops masked cells and keeps the markers, as HBase's does).
    assert_eq!(source.len(), 600_000);
    assert_eq!(
        source
            .iter()
            .filter(|c| c.4 == CellType::DeleteColumn)
            .count(),
        150
    );
    let exp = dir.path().join("exp");
    let out = regionkv(&[
        "export",
        "--data",
        src.to_str().unwrap(),
        "--no-timing",
        "t",
        exp.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).starts_with("Export: 150000 rows (600000 cells) of 't' to "),
        "{}",
        text(&out.stdout)
    );

    let dst = dir.path().join("dst");
    let mut child = Command::new(env!("CARGO_BIN_EXE_regionkv"))
        .args(["import", "--data"])
        .arg(&dst)
        .arg("t")
        .arg(&exp)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Kill once the load has staged a few megabytes of storefiles: mid-load.
    let deadline = Instant::now() + Duration::from_secs(120);
    let mut finished = false;
    while tree_size(&dst) < 4 << 20 {
        if child.try_wait().unwrap().is_some() {
            finished = true;
            break;
        }
        assert!(Instant::now() < deadline, "no import progress in 120 s");
        std::thread::sleep(Duration::from_millis(2));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(!finished, "the import finished before it could be killed");

    // The Db opens cleanly; the table holds nothing or everything, never a part.
    let after_kill = raw_of(&dst, "t");
    assert!(
        after_kill.is_empty() || after_kill == source,
        "a killed import left {} of {} cells",
        after_kill.len(),
        source.len()
    );

    let out = regionkv(&[
        "import",
        "--data",
        dst.to_str().unwrap(),
        "--no-timing",
        "t",
        exp.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).starts_with("Import: 600000 cells (150000 rows) into 't' from "),
        "{}",
        text(&out.stdout)
    );
    assert_eq!(raw_of(&dst, "t"), source);
}

#[test]
fn csv_jsonl_copytable_and_hbase_errors_from_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("db");
    make_source(&data, 3);
    let d = data.to_str().unwrap();
    let out = regionkv(&[
        "export",
        "--data",
        d,
        "--format=csv",
        "--no-timing",
        "t",
        "-",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        "row,family,qualifier,timestamp,value
row0000000,d,a,20,alpha2-0
row0000000,d,b,10,bravo-0-0123456789
row0000000,d,c,10,\\x00\\x01\\x02\\x00
row0000001,d,a,20,alpha2-1
row0000001,d,c,10,\\x00\\x01\\x02\\x01
row0000002,d,a,20,alpha2-2
row0000002,d,b,10,bravo-2-0123456789
row0000002,d,c,10,\\x00\\x01\\x02\\x02
"
    );
    let out = regionkv(&[
        "export",
        "--data",
        d,
        "--format=jsonl",
        "t",
        "-",
        "1",
        "0",
        "15",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let first = text(&out.stdout).lines().next().unwrap().to_string();
    assert_eq!(
        first,
        r#"{"row":"row0000000","family":"d","qualifier":"a","timestamp":10,"value":"alpha-0"}"#
    );

    // CopyTable: a raw copy of every version into an existing table (row 1's b@10 went at
    // the flush, under its DeleteColumn marker: 11 puts and the marker).
    let db = Db::open(&data, DbOptions::default()).unwrap();
    let mut cf = ColumnFamilyDescriptor::new(b"d").unwrap();
    cf.max_versions = 3;
    db.admin()
        .create_table(&TableDescriptor::new("T2", vec![cf]).unwrap())
        .unwrap();
    db.close().unwrap();
    let out = regionkv(&[
        "copytable",
        "--data",
        d,
        "--no-timing",
        "--all.cells",
        "--versions=3",
        "--new.name=T2",
        "t",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        "CopyTable: 3 rows, 12 cells (1 delete markers) from 't' to 'T2'\n"
    );
    assert_eq!(raw_of(&data, "T2"), raw_of(&data, "t"));

    // HBase's messages and usage texts.
    let out = regionkv(&["copytable", "--data", d, "t"]);
    assert!(!out.status.success());
    assert!(text(&out.stderr).starts_with(
        "ERROR: At least a new table name or a peer address must be specified\nUsage: CopyTable"
    ));
    let out = regionkv(&["export", "--data", d, "t"]);
    assert!(text(&out.stderr).starts_with("ERROR: Wrong number of arguments: 1\nUsage: Export"));
    let out = regionkv(&[
        "export",
        "--data",
        d,
        "nope",
        dir.path().join("x").to_str().unwrap(),
    ]);
    assert_eq!(text(&out.stderr), "ERROR: Table 'nope' does not exist.\n");
    let out = regionkv(&["import", "--data", d, "t2", dir.path().to_str().unwrap()]);
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("is not a regionkv export: it has no export.meta"));
}
