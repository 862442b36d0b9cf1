//! `completebulkload` end to end: HFiles written with HBase's writer rules
//! (`regionkv-hfile`, byte-identical to HBase for NONE) and the real HBase fixtures, loaded
//! into tables, checked cell by cell with raw scans; HBase's skips, refusals and messages;
//! atomicity when a file is damaged.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};

use regionkv::fs::{Fs, RealFs};
use regionkv::{
    Cell, CellType, ColumnFamilyDescriptor, Db, DbOptions, Get, Put, Scan, TableDescriptor,
};
use regionkv_hfile::key::KeyRef;
use regionkv_hfile::{Compression, HFileWriter, HFileWriterOptions};
use regionkv_tools::Error;
use regionkv_tools::complete_bulk_load::{
    CompleteBulkLoad, CompleteBulkLoadOptions, CompleteBulkLoadReport, QuietObserver,
};

/// One cell of a test file: (row, qualifier, timestamp, type, value).
type Spec<'a> = (&'a str, &'a str, i64, CellType, &'a str);

fn key(row: &str, family: &str, qualifier: &str, ts: i64, t: CellType) -> Vec<u8> {
    KeyRef {
        row: row.as_bytes(),
        family: family.as_bytes(),
        qualifier: qualifier.as_bytes(),
        timestamp: ts,
        type_byte: t.code(),
    }
    .to_vec()
    .unwrap()
}

/// Writes an HFile of `cells` (already in key order) at `path`.
fn write_hfile(path: &Path, family: &str, cells: &[Spec<'_>], compression: Compression) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let opts = HFileWriterOptions {
        compression,
        block_size: 256,
        include_tags: true,
        ..HFileWriterOptions::default()
    };
    let mut w = HFileWriter::new(RealFs::new().create_new(path).unwrap(), opts);
    for (row, q, ts, t, v) in cells {
        w.append(&key(row, family, q, *ts, *t), v.as_bytes(), &[], 0)
            .unwrap();
    }
    w.finish().unwrap();
}

fn open(dir: &Path) -> Db {
    Db::open(dir, DbOptions::default().background(false)).unwrap()
}

fn create(db: &Db, table: &str, families: &[&str], splits: &[&str]) {
    let fams = families
        .iter()
        .map(|f| {
            let mut cf = ColumnFamilyDescriptor::new(f.as_bytes()).unwrap();
            cf.max_versions = 10;
            cf
        })
        .collect();
    db.admin()
        .create_table_with_splits(
            &TableDescriptor::new(table, fams).unwrap(),
            splits.iter().map(|s| s.as_bytes().to_vec()).collect(),
        )
        .unwrap();
}

/// Every cell of a raw scan, all versions, as (row, family, qualifier, ts, type, value).
fn raw_cells(db: &Db, table: &str) -> Vec<(String, String, String, i64, CellType, String)> {
    let t = db.table(table).unwrap();
    let mut out = Vec::new();
    for row in t.scan(&Scan::new().raw(true).all_versions()).unwrap() {
        for c in row.unwrap().cells() {
            out.push(cell_tuple(c));
        }
    }
    out
}

fn cell_tuple(c: &Cell) -> (String, String, String, i64, CellType, String) {
    let s = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (
        s(c.row()),
        s(c.family()),
        s(c.qualifier()),
        c.timestamp(),
        c.cell_type(),
        s(c.value()),
    )
}

fn load(
    db: &Db,
    table: &str,
    dir: &Path,
    props: &[(&str, &str)],
) -> Result<CompleteBulkLoadReport, Error> {
    let options = CompleteBulkLoadOptions::from_properties(props.iter().copied()).unwrap();
    CompleteBulkLoad::new(db, table, options).run(dir, &mut QuietObserver)
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../regionkv-hfile/tests/fixtures")
        .join(name)
}

/// Two families, one file straddling the region boundary at `m`, versions and delete
/// markers: every cell lands in its region, as written.
#[test]
fn loads_families_across_regions_with_versions_and_markers() {
    let tmp = tempfile::tempdir().unwrap();
    let db = open(&tmp.path().join("db"));
    create(&db, "t", &["cf", "cg"], &["m"]);
    let out = tmp.path().join("out");
    use CellType::*;
    let cf: Vec<Spec<'_>> = vec![
        ("a", "q", 20, Put, "a20"),
        ("a", "q", 10, Put, "a10"),
        ("b", "", 30, DeleteFamily, ""),
        ("b", "q", 5, Put, "b5"),
        ("n", "q", 7, DeleteColumn, ""),
        ("n", "q", 7, Put, "n7"),
        ("z", "r", 1, Put, "z1"),
    ];
    write_hfile(&out.join("cf/0123abcd"), "cf", &cf, Compression::Gz);
    let cg: Vec<Spec<'_>> = vec![("c", "x", 3, Put, "c3"), ("d", "x", 3, Delete, "")];
    write_hfile(&out.join("cg/4567"), "cg", &cg, Compression::None);
    std::fs::write(out.join("cf/_SUCCESS"), b"").unwrap();

    let report = load(&db, "t", &out, &[]).unwrap();
    assert_eq!(report.hfiles, 2);
    assert_eq!(report.hfiles_split, 1);
    assert_eq!(report.cells, 9);
    assert_eq!(report.regions, 2);
    assert_eq!(report.storefiles, 3);
    assert!(!report.table_created);
    assert!(report.warnings.is_empty(), "{:?}", report.warnings);

    let mut expected: Vec<_> = cf
        .iter()
        .map(|(r, q, ts, t, v)| {
            (
                r.to_string(),
                "cf".to_string(),
                q.to_string(),
                *ts,
                *t,
                v.to_string(),
            )
        })
        .chain(cg.iter().map(|(r, q, ts, t, v)| {
            (
                r.to_string(),
                "cg".to_string(),
                q.to_string(),
                *ts,
                *t,
                v.to_string(),
            )
        }))
        .collect();
    expected.sort_by(|a, b| {
        (&a.0, &a.1, &a.2)
            .cmp(&(&b.0, &b.1, &b.2))
            .then(b.3.cmp(&a.3))
            .then((b.4.code()).cmp(&a.4.code()))
    });
    assert_eq!(raw_cells(&db, "t"), expected);
    // Normal reads apply the markers.
    let t = db.table("t").unwrap();
    assert!(t.get(&Get::new("b")).unwrap().is_empty());
    assert!(t.get(&Get::new("n")).unwrap().is_empty());
    assert_eq!(
        t.get(&Get::new("a")).unwrap().value(b"cf", b"q"),
        Some(&b"a20"[..])
    );

    // Each region holds its part: the file was cut at `m`.
    let regions = db.admin().regions("t").unwrap();
    assert_eq!(regions.len(), 2);
}

/// A loaded cell wins over an earlier write of the same coordinates and timestamp (it has a
/// later sequence id) and loses to a later one, as HBase's assigned sequence ids order them.
#[test]
fn loaded_cells_order_against_memstore_edits_by_sequence_id() {
    let tmp = tempfile::tempdir().unwrap();
    let db = open(&tmp.path().join("db"));
    create(&db, "t", &["cf"], &[]);
    let t = db.table("t").unwrap();
    t.put(&Put::new("r").add_column_at(b"cf", b"q", 5, b"before"))
        .unwrap();
    let out = tmp.path().join("out");
    write_hfile(
        &out.join("cf/aa"),
        "cf",
        &[("r", "q", 5, CellType::Put, "loaded")],
        Compression::None,
    );
    load(&db, "t", &out, &[]).unwrap();
    assert_eq!(
        t.get(&Get::new("r")).unwrap().value(b"cf", b"q"),
        Some(&b"loaded"[..])
    );
    t.put(&Put::new("r").add_column_at(b"cf", b"q", 5, b"after"))
        .unwrap();
    assert_eq!(
        t.get(&Get::new("r")).unwrap().value(b"cf", b"q"),
        Some(&b"after"[..])
    );
    db.admin().flush("t").unwrap();
    db.admin().major_compact("t").unwrap();
    assert_eq!(
        t.get(&Get::new("r")).unwrap().value(b"cf", b"q"),
        Some(&b"after"[..])
    );
}

/// A missing table is created (HBase's default `create.table=yes`) with the directory's
/// families and the split keys HBase's `inferBoundaries` finds; `create.table=no` refuses.
#[test]
fn creates_a_missing_table_with_inferred_splits() {
    let tmp = tempfile::tempdir().unwrap();
    let db = open(&tmp.path().join("db"));
    let out = tmp.path().join("out");
    use CellType::Put;
    write_hfile(
        &out.join("cf/1"),
        "cf",
        &[("a", "q", 1, Put, "1"), ("c", "q", 1, Put, "1")],
        Compression::Lz4,
    );
    write_hfile(
        &out.join("cf/2"),
        "cf",
        &[("b", "q", 1, Put, "1"), ("d", "q", 1, Put, "1")],
        Compression::Lz4,
    );
    write_hfile(
        &out.join("cf/3"),
        "cf",
        &[("g", "q", 1, Put, "1"), ("h", "q", 1, Put, "1")],
        Compression::Lz4,
    );
    write_hfile(
        &out.join("cg/1"),
        "cg",
        &[("k", "q", 1, Put, "1")],
        Compression::None,
    );

    let e = load(&db, "t", &out, &[("create.table", "NO")]).unwrap_err();
    assert_eq!(e.to_string(), "Table 't' does not exist.");

    let report = load(&db, "t", &out, &[]).unwrap();
    assert!(report.table_created);
    assert_eq!(report.cells, 7);
    let admin = db.admin();
    assert_eq!(
        admin.splits("t").unwrap(),
        vec![b"g".to_vec(), b"k".to_vec()]
    );
    let desc = admin.describe("t").unwrap();
    assert_eq!(desc.families.len(), 2);
    assert_eq!(
        desc.family(b"cf").unwrap().compression,
        regionkv::descriptor::Compression::Lz4
    );
    assert_eq!(raw_cells(&db, "t").len(), 7);
}

/// HBase's skips: `_` files, references, HFileLinks, files that are not HFiles, empty files,
/// non-directories and illegal family names at the top; and its message for a directory
/// with nothing to load (nothing loaded: HBase's tool exits -1).
#[test]
fn skips_what_hbase_skips() {
    let tmp = tempfile::tempdir().unwrap();
    let db = open(&tmp.path().join("db"));
    create(&db, "t", &["cf"], &[]);
    let out = tmp.path().join("out");
    std::fs::create_dir_all(out.join("cf")).unwrap();
    std::fs::create_dir_all(out.join(".tmp")).unwrap();
    std::fs::write(out.join("README"), b"not a family").unwrap();
    std::fs::write(out.join("cf/_SUCCESS"), b"").unwrap();
    std::fs::write(out.join("cf/notes.txt"), b"hello, not an hfile at all").unwrap();
    std::fs::copy(
        fixture("hudi_1_0_hbase_2_4_9_16KB_NONE_5000.hfile"),
        out.join("cf/abc.0123abcd"),
    )
    .unwrap();
    std::fs::copy(
        fixture("hudi_1_0_hbase_2_4_9_16KB_NONE_5000.hfile"),
        out.join("cf/t=0123abcd-ff00"),
    )
    .unwrap();
    std::fs::copy(
        fixture("hudi_1_0_hbase_2_4_9_no_entry.hfile"),
        out.join("cf/empty"),
    )
    .unwrap();

    let report = load(&db, "t", &out, &[]).unwrap();
    assert!(!report.loaded_anything());
    let w = report.warnings.join("\n");
    for needle in [
        "Skipping non-directory ",
        "Skipping invalid ",
        "doesn't seems to be an hfile. skipping",
        "Skipping reference abc.0123abcd",
        "Skipping HFileLink t=0123abcd-ff00",
        "has no entries, skipping",
        "Bulk load operation did not find any files to load in directory",
    ] {
        assert!(w.contains(needle), "{needle:?} not in:\n{w}");
    }
    assert!(raw_cells(&db, "t").is_empty());

    // With validation off, a file that is not an HFile is an error naming it.
    let e = load(
        &db,
        "t",
        &out,
        &[("hbase.loadincremental.validate.hfile", "false")],
    )
    .unwrap_err();
    assert!(e.to_string().contains("notes.txt"), "{e}");
}

/// Families the table lacks: HBase's error, or a warning and the rest loaded.
#[test]
fn unmatched_families_fail_unless_ignored() {
    let tmp = tempfile::tempdir().unwrap();
    let db = open(&tmp.path().join("db"));
    create(&db, "t", &["cf"], &[]);
    let out = tmp.path().join("out");
    write_hfile(
        &out.join("cf/1"),
        "cf",
        &[("a", "q", 1, CellType::Put, "1")],
        Compression::None,
    );
    write_hfile(
        &out.join("zz/1"),
        "zz",
        &[("a", "q", 1, CellType::Put, "1")],
        Compression::None,
    );
    let e = load(&db, "t", &out, &[]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "Unmatched family names found: unmatched family names in HFiles to be bulkloaded: [zz]; valid family names of table t are: [cf]"
    );
    assert!(raw_cells(&db, "t").is_empty());
    let report = load(&db, "t", &out, &[("ignore.unmatched.families", "yes")]).unwrap();
    assert_eq!(report.cells, 1);
    assert!(report.warnings[0].starts_with("Unmatched family names found"));
}

/// The per-region, per-family file limit and `fail.if.need.split.hfile`, checked before
/// anything is written.
#[test]
fn file_limit_and_split_refusal() {
    let tmp = tempfile::tempdir().unwrap();
    let db = open(&tmp.path().join("db"));
    create(&db, "t", &["cf"], &["m"]);
    let out = tmp.path().join("out");
    use CellType::Put;
    write_hfile(
        &out.join("cf/1"),
        "cf",
        &[("a", "q", 1, Put, "1")],
        Compression::None,
    );
    write_hfile(
        &out.join("cf/2"),
        "cf",
        &[("b", "q", 1, Put, "1"), ("x", "q", 1, Put, "1")],
        Compression::None,
    );
    let e = load(
        &db,
        "t",
        &out,
        &[(
            "hbase.mapreduce.bulkload.max.hfiles.perRegion.perFamily",
            "1",
        )],
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "Trying to load more than 1 hfiles to one family of one region (family cf, region with start key '')"
    );
    let e = load(
        &db,
        "t",
        &out,
        &[("hbase.loadincremental.fail.if.need.split.hfile", "true")],
    )
    .unwrap_err();
    assert!(
        matches!(&e, Error::NeedsSplit { path } if path.ends_with("cf/2")),
        "{e}"
    );
    assert!(raw_cells(&db, "t").is_empty());
    assert_eq!(load(&db, "t", &out, &[]).unwrap().cells, 3);
}

/// Overlapping files merge; a key both hold is loaded once, from the file first in name
/// order.
#[test]
fn overlapping_files_merge_and_a_shared_key_loads_once() {
    let tmp = tempfile::tempdir().unwrap();
    let db = open(&tmp.path().join("db"));
    create(&db, "t", &["cf"], &[]);
    let out = tmp.path().join("out");
    use CellType::Put;
    write_hfile(
        &out.join("cf/a"),
        "cf",
        &[("a", "q", 1, Put, "a1"), ("c", "q", 1, Put, "first")],
        Compression::None,
    );
    write_hfile(
        &out.join("cf/b"),
        "cf",
        &[("b", "q", 1, Put, "b1"), ("c", "q", 1, Put, "second")],
        Compression::None,
    );
    let report = load(&db, "t", &out, &[]).unwrap();
    assert_eq!((report.cells, report.duplicate_cells), (3, 1));
    let values: Vec<String> = raw_cells(&db, "t").into_iter().map(|c| c.5).collect();
    assert_eq!(values, ["a1", "b1", "first"]);
}

/// A damaged block stops the whole load before its commit: an error naming the file and
/// the offset, and no family loaded (the other family's good file included).
#[test]
fn a_damaged_file_loads_nothing_and_names_the_offset() {
    let tmp = tempfile::tempdir().unwrap();
    let db = open(&tmp.path().join("db"));
    create(&db, "t", &["cf", "cg"], &["m"]);
    let out = tmp.path().join("out");
    let cells: Vec<(String, i64)> = (0..400).map(|i| (format!("row{i:05}"), 1)).collect();
    let specs: Vec<Spec<'_>> = cells
        .iter()
        .map(|(r, ts)| (r.as_str(), "q", *ts, CellType::Put, "v"))
        .collect();
    write_hfile(&out.join("cf/good"), "cf", &specs, Compression::None);
    let bad = out.join("cg/bad");
    write_hfile(&bad, "cg", &specs, Compression::None);
    // Flip a byte inside the data section, well past the first blocks.
    let mut bytes = std::fs::read(&bad).unwrap();
    let at = bytes.len() / 3;
    bytes[at] ^= 0x5a;
    std::fs::write(&bad, &bytes).unwrap();

    let e = load(&db, "t", &out, &[]).unwrap_err();
    let text = e.to_string();
    assert!(text.contains("cg/bad") && text.contains("offset"), "{text}");
    assert!(matches!(e, Error::HFile(_)), "{e:?}");
    assert!(raw_cells(&db, "t").is_empty());
    // The region directories hold no leftover staged file.
    let leftovers = regionkv_testkit::files_under(&tmp.path().join("db"))
        .into_iter()
        .filter(|p| p.extension().is_some_and(|x| x == "sf"))
        .count();
    assert_eq!(leftovers, 0);
}

/// The real HBase files carry `LATEST_TIMESTAMP` and an empty family: refused with the
/// reason, nothing loaded.
#[test]
fn real_hbase_fixture_cells_without_family_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let db = open(&tmp.path().join("db"));
    create(&db, "t", &["cf"], &[]);
    let out = tmp.path().join("out");
    std::fs::create_dir_all(out.join("cf")).unwrap();
    std::fs::copy(
        fixture("hudi_1_0_hbase_2_4_9_16KB_GZ_20000.hfile"),
        out.join("cf/f1"),
    )
    .unwrap();
    let e = load(&db, "t", &out, &[]).unwrap_err();
    let text = e.to_string();
    assert!(
        text.contains("cf/f1")
            && text.contains("is of family , but the file is in the directory of family cf"),
        "{text}"
    );
    assert!(raw_cells(&db, "t").is_empty());
}

/// `-loadTable`: `<dir>/<region>/<family>/<file>`, into an existing table only.
#[test]
fn load_table_layout() {
    let tmp = tempfile::tempdir().unwrap();
    let db = open(&tmp.path().join("db"));
    let out = tmp.path().join("out");
    use CellType::Put;
    write_hfile(
        &out.join("r1/cf/1"),
        "cf",
        &[("a", "q", 1, Put, "1")],
        Compression::None,
    );
    write_hfile(
        &out.join("r2/cf/1"),
        "cf",
        &[("x", "q", 1, Put, "1")],
        Compression::None,
    );
    let o = CompleteBulkLoadOptions {
        load_table: true,
        ..CompleteBulkLoadOptions::default()
    };
    let e = CompleteBulkLoad::new(&db, "t", o.clone())
        .run(&out, &mut QuietObserver)
        .unwrap_err();
    assert_eq!(e.to_string(), "Table 't' does not exist.");
    create(&db, "t", &["cf"], &["m"]);
    let report = CompleteBulkLoad::new(&db, "t", o)
        .run(&out, &mut QuietObserver)
        .unwrap();
    assert_eq!((report.hfiles, report.cells, report.regions), (2, 2, 2));
}
