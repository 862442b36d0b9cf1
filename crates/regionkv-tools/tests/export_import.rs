//! Export → Import round trips through the export format, and what damage to each of its
//! files does: a raw scan of the imported table equals the source's (every version, every
//! kind of delete marker, split tables, TTL'd families), and a damaged export fails the
//! import with the file and the byte offset while loading nothing.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::sync::Arc;

use regionkv::{
    CellType, ColumnFamilyDescriptor, Db, DbOptions, Delete, ManualClock, Put, Scan, SharedClock,
    TableDescriptor,
};
use regionkv_tools::Error;
use regionkv_tools::copy_table::{CopyTable, CopyTableOptions, CopyTableRequest};
use regionkv_tools::export::{Export, ExportOptions, PART_SIZE};
use regionkv_tools::import::{Import, ImportOptions};
use regionkv_tools::text_export::{TextFormat, export_text};

type RawCell = (Vec<u8>, Vec<u8>, Vec<u8>, i64, CellType, Vec<u8>);

fn raw_scan(db: &Db, table: &str) -> Vec<RawCell> {
    scan_cells(db, table, &Scan::new().raw(true).all_versions())
}

/// What a user read sees (every version the families keep, deletes applied).
fn visible(db: &Db, table: &str) -> Vec<RawCell> {
    scan_cells(db, table, &Scan::new().all_versions())
}

fn scan_cells(db: &Db, table: &str, scan: &Scan) -> Vec<RawCell> {
    db.table(table)
        .unwrap()
        .scan(scan)
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

fn open(dir: &Path, clock: &Arc<ManualClock>) -> Db {
    let clock: SharedClock = clock.clone();
    Db::open(dir, DbOptions::default().background(false).clock(clock)).unwrap()
}

/// A table with two families, split in three regions, several versions per column and
/// every kind of delete marker, part of it flushed so cells come from files and memstores.
fn source(db: &Db) {
    let mut a = ColumnFamilyDescriptor::new(b"a").unwrap();
    a.max_versions = 5;
    let mut b = ColumnFamilyDescriptor::new(b"b").unwrap();
    b.max_versions = 3;
    b.ttl_seconds = 3600;
    let desc = TableDescriptor::new("src", vec![a, b]).unwrap();
    db.admin()
        .create_table_with_splits(&desc, vec![b"r3".to_vec(), b"r6".to_vec()])
        .unwrap();
    let t = db.table("src").unwrap();
    for i in 0..9u8 {
        let row = format!("r{i}");
        for ts in 1..=4 {
            t.put(
                &Put::new(&row)
                    .add_column_at("a", "q1", ts, format!("v{i}-{ts}"))
                    .add_column_at("a", [0u8, 0xff], ts, [i, ts as u8, 0])
                    .add_column_at("b", "q", 1000 + ts, ""),
            )
            .unwrap();
        }
        if i == 4 {
            db.admin().flush("src").unwrap();
        }
    }
    t.delete(&Delete::new("r1").add_column_at("a", "q1", 3))
        .unwrap();
    t.delete(&Delete::new("r2").add_columns_at("a", "q1", 2))
        .unwrap();
    t.delete(&Delete::new("r4").add_family_at("a", 2)).unwrap();
    t.delete(&Delete::new("r7").add_family_version("b", 1002))
        .unwrap();
    t.delete(&Delete::new("r8").add_family_at("b", 5000))
        .unwrap();
}

fn export(db: &Db, table: &str, dir: &Path, props: &[(&str, &str)]) {
    let (options, unknown) = ExportOptions::from_args(&[], props.iter().copied()).unwrap();
    assert!(unknown.is_empty());
    Export::new(db, table, options).run(dir).unwrap();
}

fn import(
    db: &Db,
    table: &str,
    dir: &Path,
) -> regionkv_tools::Result<regionkv_tools::import::ImportReport> {
    Import::new(db, table, ImportOptions::default()).run(dir)
}

#[test]
fn a_raw_export_imports_into_an_identical_table() {
    let tmp = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(1_000_000));
    let src = open(&tmp.path().join("src"), &clock);
    source(&src);
    let before = raw_scan(&src, "src");
    assert!(before.iter().any(|c| c.4 == CellType::DeleteFamilyVersion));
    assert!(before.iter().any(|c| c.4 == CellType::Delete));
    // Small parts: several files per family.
    export(&src, "src", &tmp.path().join("exp"), &[(PART_SIZE, "300")]);
    let files = std::fs::read_dir(tmp.path().join("exp")).unwrap().count();
    assert!(files > 4, "{files} files");

    let dst = open(&tmp.path().join("dst"), &clock);
    let report = import(&dst, "copy", &tmp.path().join("exp")).unwrap();
    assert!(report.created_table);
    assert_eq!(report.cells, before.len() as u64);
    assert_eq!(raw_scan(&dst, "copy"), before);
    // The table was created as the source was: descriptor and split keys.
    let d = dst.admin().describe("copy").unwrap();
    assert_eq!(d.family(b"a").unwrap().max_versions, 5);
    assert_eq!(d.family(b"b").unwrap().ttl_seconds, 3600);
    assert_eq!(
        dst.admin().splits("copy").unwrap(),
        [b"r3".to_vec(), b"r6".to_vec()]
    );
    // Reads agree too, not only raw scans.
    assert_eq!(visible(&dst, "copy"), visible(&src, "src"));

    // Importing the same export again (a re-run after a kill that came after the commit)
    // changes nothing a scan sees.
    import(&dst, "copy", &tmp.path().join("exp")).unwrap();
    assert_eq!(raw_scan(&dst, "copy"), before);
}

#[test]
fn ttl_expired_cells_stay_out_and_the_rest_survive_a_major_compaction() {
    let tmp = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(1_000_000));
    let src = open(&tmp.path().join("src"), &clock);
    source(&src);
    // Family b's cells (ts ~1000 ms) are an hour old past 3_601_004 ms.
    clock.set(3_700_000);
    let before = raw_scan(&src, "src");
    let seen = visible(&src, "src");
    assert!(!seen.iter().any(|c| c.1 == b"b"));
    export(&src, "src", &tmp.path().join("exp"), &[]);
    let dst = open(&tmp.path().join("dst"), &clock);
    import(&dst, "t2", &tmp.path().join("exp")).unwrap();
    assert_eq!(raw_scan(&dst, "t2"), before);
    assert_eq!(visible(&dst, "t2"), seen);
    // The imported files are ordinary storefiles: a split keeps them, and a major
    // compaction drops the expired cells as it would have at the source.
    dst.admin().split_at("t2", b"r5").unwrap();
    assert_eq!(raw_scan(&dst, "t2"), before);
    dst.admin().major_compact("t2").unwrap();
    // (A major compaction leaves the memstore alone: flush the source's first.)
    src.admin().flush("src").unwrap();
    src.admin().major_compact("src").unwrap();
    assert_eq!(visible(&dst, "t2"), seen);
    let (d, s) = (raw_scan(&dst, "t2"), raw_scan(&src, "src"));
    let only_d: Vec<_> = d.iter().filter(|c| !s.contains(c)).collect();
    let only_s: Vec<_> = s.iter().filter(|c| !d.contains(c)).collect();
    assert_eq!(
        d, s,
        "only in the import: {only_d:?}\nonly in the source: {only_s:?}"
    );
}

#[test]
fn versions_time_range_families_and_rows_select_what_is_exported() {
    let tmp = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(1_000_000));
    let db = open(&tmp.path().join("db"), &clock);
    source(&db);
    let args: Vec<String> = ["2", "2", "5"].iter().map(|s| s.to_string()).collect();
    let (options, _) = ExportOptions::from_args(
        &args,
        [
            ("hbase.mapreduce.scan.column.family", "a"),
            ("hbase.mapreduce.scan.row.start", "r2"),
            ("hbase.mapreduce.scan.row.stop", "r5"),
        ],
    )
    .unwrap();
    Export::new(&db, "src", options)
        .run(&tmp.path().join("exp"))
        .unwrap();
    import(&db, "sel", &tmp.path().join("exp")).unwrap();
    let got = raw_scan(&db, "sel");
    let rows: std::collections::BTreeSet<_> = got.iter().map(|c| c.0.clone()).collect();
    assert_eq!(
        rows.into_iter().collect::<Vec<_>>(),
        [b"r2".to_vec(), b"r3".to_vec(), b"r4".to_vec()]
    );
    assert!(
        got.iter()
            .all(|c| c.1 == b"a" && (2..5).contains(&c.3) && c.4 == CellType::Put)
    );
    // HBase's Export without a raw scan: r2's q1 was deleted up to ts 2, so at most
    // 2 versions of 3 and 4 remain visible; r3 has two versions of each column.
    assert_eq!(got.iter().filter(|c| c.0 == b"r3").count(), 4);
    assert_eq!(
        got.iter()
            .filter(|c| c.0 == b"r2" && c.2 == b"q1")
            .map(|c| c.3)
            .collect::<Vec<_>>(),
        [4, 3]
    );
}

#[test]
fn an_export_never_overwrites_and_a_missing_table_is_hbases_message() {
    let tmp = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(1_000_000));
    let db = open(&tmp.path().join("db"), &clock);
    source(&db);
    std::fs::create_dir(tmp.path().join("exists")).unwrap();
    let e = Export::new(&db, "src", ExportOptions::default())
        .run(&tmp.path().join("exists"))
        .unwrap_err();
    assert!(matches!(e, Error::OutputExists { .. }), "{e}");
    let e = Export::new(&db, "nope", ExportOptions::default())
        .run(&tmp.path().join("x"))
        .unwrap_err();
    assert_eq!(e.to_string(), "Table 'nope' does not exist.");
    // An export directory without its manifest (an export that did not finish).
    let e = import(&db, "t", &tmp.path().join("exists")).unwrap_err();
    assert!(matches!(e, Error::NotAnExport { .. }), "{e}");
    assert!(!db.admin().table_exists("t").unwrap());
}

/// Damages one byte (or the length) of one file of a fresh export and imports it into a
/// fresh table: the error names the file and the offset, and nothing is loaded.
fn damaged_import(file: &str, damage: impl Fn(&mut Vec<u8>)) -> (Error, Vec<RawCell>) {
    let tmp = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(1_000_000));
    let db = open(&tmp.path().join("db"), &clock);
    source(&db);
    let exp = tmp.path().join("exp");
    export(&db, "src", &exp, &[]);
    let path = exp.join(file);
    let mut bytes = std::fs::read(&path).unwrap();
    damage(&mut bytes);
    std::fs::write(&path, &bytes).unwrap();
    let e = import(&db, "dst", &exp).unwrap_err();
    match &e {
        Error::Corrupt { path: p, .. } => assert_eq!(p, &path, "{e}"),
        other => panic!("not a corruption error: {other}"),
    }
    let left = if db.admin().table_exists("dst").unwrap() {
        raw_scan(&db, "dst")
    } else {
        Vec::new()
    };
    (e, left)
}

fn offset(e: &Error) -> u64 {
    match e {
        Error::Corrupt { offset, .. } => *offset,
        _ => unreachable!(),
    }
}

#[test]
fn a_damaged_manifest_is_refused_before_anything_is_created() {
    let (e, left) = damaged_import("export.meta", |b| {
        let at = b.len() / 2;
        b[at] ^= 0x01;
    });
    assert!(e.to_string().contains("checksum mismatch"), "{e}");
    assert!(left.is_empty());
    let (e, _) = damaged_import("export.meta", |b| b.truncate(b.len() - 2));
    assert!(e.to_string().contains("truncated"), "{e}");
    let (e, _) = damaged_import("export.meta", |b| b[3] = b'?');
    assert_eq!(offset(&e), 0);
}

#[test]
fn a_damaged_data_block_fails_the_import_and_loads_nothing() {
    // The last part of the last family: the first family is fully staged by then, and
    // must still not be loaded.
    let (e, left) = damaged_import("part-00001", |b| {
        let at = b.len() - 20;
        b[at] ^= 0x40;
    });
    let text = e.to_string();
    assert!(
        text.contains("part-00001") && text.contains("byte offset 16"),
        "{text}"
    );
    assert!(text.contains("checksum mismatch"), "{text}");
    assert!(left.is_empty(), "{} cells loaded", left.len());
}

#[test]
fn a_truncated_or_swapped_data_file_is_caught_by_the_manifest() {
    let (e, left) = damaged_import("part-00000", |b| b.truncate(b.len() - 1));
    assert!(e.to_string().contains("the manifest says"), "{e}");
    assert!(left.is_empty());
    // Same length, valid blocks, different bytes: a whole-file checksum mismatch at the end.
    let (e, left) = damaged_import("part-00000", |b| {
        // The family index in the header: caught at offset 12.
        b[15] ^= 1;
    });
    assert_eq!(offset(&e), 12, "{e}");
    assert!(left.is_empty());
}

#[test]
fn copytable_copies_with_hbase_options() {
    let tmp = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(1_000_000));
    let db = open(&tmp.path().join("db"), &clock);
    source(&db);
    let mut c = ColumnFamilyDescriptor::new(b"c").unwrap();
    c.max_versions = 10;
    db.admin()
        .create_table(
            &TableDescriptor::new("T2", vec![c, ColumnFamilyDescriptor::new(b"b").unwrap()])
                .unwrap(),
        )
        .unwrap();
    let args: Vec<String> = [
        "--families=a:c",
        "--all.cells",
        "--versions=10",
        "--new.name=T2",
        "src",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let CopyTableRequest::Run(options) = CopyTableOptions::parse(&args).unwrap() else {
        panic!()
    };
    let report = CopyTable::new(&db, &db, options).run().unwrap();
    let want: Vec<RawCell> = raw_scan(&db, "src")
        .into_iter()
        .filter(|c| c.1 == b"a")
        .map(|mut c| {
            c.1 = b"c".to_vec();
            c
        })
        .collect();
    assert_eq!(report.cells, want.len() as u64);
    assert!(report.delete_markers >= 3);
    assert_eq!(raw_scan(&db, "T2"), want);

    // HBase's default: latest version only, no markers; a missing family is refused.
    let args: Vec<String> = ["--new.name=T2", "src"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let CopyTableRequest::Run(options) = CopyTableOptions::parse(&args).unwrap() else {
        panic!()
    };
    let e = CopyTable::new(&db, &db, options).run().unwrap_err();
    assert_eq!(e.to_string(), "Column families: [a] do not exist.");
}

#[test]
fn text_exports_hold_the_latest_visible_cells() {
    let tmp = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(1_000_000));
    let db = open(&tmp.path().join("db"), &clock);
    source(&db);
    let progress = Arc::new(regionkv_tools::Progress::default());
    let mut csv = Vec::new();
    let (options, _) =
        ExportOptions::from_args(&[], [("hbase.mapreduce.scan.column.family", "a")]).unwrap();
    let r = export_text(&db, "src", &options, TextFormat::Csv, &mut csv, &progress).unwrap();
    let text = String::from_utf8(csv).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "row,family,qualifier,timestamp,value");
    assert_eq!(lines.len() as u64, r.cells + 1);
    assert!(
        lines.contains(&"r0,a,\\x00\\xFF,4,\\x00\\x04\\x00"),
        "{text}"
    );
    // r4's family a was deleted up to ts 2: its latest q1 is v4-4; r2's too.
    assert!(lines.contains(&"r4,a,q1,4,v4-4"));
    let mut jsonl = Vec::new();
    let r2 = export_text(
        &db,
        "src",
        &options,
        TextFormat::JsonLines,
        &mut jsonl,
        &progress,
    )
    .unwrap();
    assert_eq!(r2.cells, r.cells);
    let first: serde_json::Value =
        serde_json::from_str(String::from_utf8(jsonl).unwrap().lines().next().unwrap()).unwrap();
    assert_eq!(first["row"], "r0");
    assert_eq!(first["timestamp"], 4);
}
