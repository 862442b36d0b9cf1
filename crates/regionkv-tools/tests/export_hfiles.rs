//! `export-hfiles` and the round trip through `completebulkload`: a table with versions,
//! every kind of delete marker, three families with different Bloom filters and
//! compressions, and three regions is written as HBase HFiles, every file passes the
//! structural checker and holds one region's rows, and loading the files into a fresh Db
//! with the same descriptor gives an identical raw scan.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use regionkv::fs::{Fs, RealFs};
use regionkv::{
    CellType, ColumnFamilyDescriptor, Db, DbOptions, Delete, Put, Scan, TableDescriptor,
};
use regionkv_hfile::check::check;
use regionkv_hfile::{Compression, HFileReader};
use regionkv_tools::Error;
use regionkv_tools::complete_bulk_load::{
    CompleteBulkLoad, CompleteBulkLoadOptions, QuietObserver,
};
use regionkv_tools::export_hfiles::{ExportHFiles, ExportHFilesOptions, ExportHFilesReport};

fn open(dir: &Path) -> Db {
    Db::open(dir, DbOptions::default().background(false)).unwrap()
}

fn descriptor() -> TableDescriptor {
    let family = |name: &[u8], attrs: &[(&str, &str)]| {
        let mut cf = ColumnFamilyDescriptor::new(name).unwrap();
        cf.max_versions = 5;
        for (k, v) in attrs {
            cf.set_attribute(k, v).unwrap();
        }
        cf
    };
    TableDescriptor::new(
        "t",
        vec![
            family(b"cf", &[("BLOOMFILTER", "ROW"), ("COMPRESSION", "LZ4")]),
            family(b"cg", &[("BLOOMFILTER", "ROWCOL"), ("BLOCKSIZE", "4096")]),
            family(b"ch", &[("BLOOMFILTER", "NONE")]),
        ],
    )
    .unwrap()
}

fn splits() -> Vec<Vec<u8>> {
    vec![b"row0300".to_vec(), b"row0700".to_vec()]
}

/// Fills the table: versions, every delete-marker kind, some of it flushed.
fn fill(db: &Db) {
    db.admin()
        .create_table_with_splits(&descriptor(), splits())
        .unwrap();
    let t = db.table("t").unwrap();
    for i in 0..1000u32 {
        let row = format!("row{i:04}");
        let mut p = Put::new(&row);
        for ts in [10, 20, 30] {
            p = p
                .add_column_at(b"cf", b"a", ts, format!("a{i}@{ts}"))
                .add_column_at(b"cg", format!("q{}", i % 3), ts, format!("g{i}"));
        }
        p = p.add_column_at(b"ch", b"x", 5, vec![i as u8; 100]);
        t.put(&p).unwrap();
        if i == 500 {
            db.admin().flush("t").unwrap();
        }
        let d = match i % 50 {
            1 => Some(Delete::new(&row).add_column_at(b"cf", b"a", 20)),
            2 => Some(Delete::new(&row).add_columns_at(b"cf", b"a", 15)),
            3 => Some(Delete::new(&row).add_family_at(b"cg", 25)),
            4 => Some(Delete::new(&row).add_family_version(b"ch", 5)),
            _ => None,
        };
        if let Some(d) = d {
            t.delete(&d).unwrap();
        }
    }
}

/// A raw cell: row, family, qualifier, timestamp, type, value.
type RawCell = (Vec<u8>, Vec<u8>, Vec<u8>, i64, CellType, Vec<u8>);
type Raw = Vec<RawCell>;

fn raw(db: &Db) -> Raw {
    let mut out = Vec::new();
    for row in db
        .table("t")
        .unwrap()
        .scan(&Scan::new().raw(true).all_versions())
        .unwrap()
    {
        for c in row.unwrap().cells() {
            out.push((
                c.row().to_vec(),
                c.family().to_vec(),
                c.qualifier().to_vec(),
                c.timestamp(),
                c.cell_type(),
                c.value().to_vec(),
            ));
        }
    }
    out
}

/// Compares raw scans, reporting the first difference only (the scans are large).
fn assert_same(actual: &Raw, expected: &Raw) {
    let show = |c: &RawCell| {
        format!(
            "{}/{}:{}@{}/{:?}",
            String::from_utf8_lossy(&c.0),
            String::from_utf8_lossy(&c.1),
            String::from_utf8_lossy(&c.2),
            c.3,
            c.4
        )
    };
    if let Some(i) = actual.iter().zip(expected).position(|(a, e)| a != e) {
        panic!(
            "cell {i}: {} but expected {}",
            show(&actual[i]),
            show(&expected[i])
        );
    }
    assert_eq!(actual.len(), expected.len(), "cell counts");
}

fn export(db: &Db, out: &Path, props: &[(&str, &str)]) -> Result<ExportHFilesReport, Error> {
    let o = ExportHFilesOptions::from_properties(props.iter().copied()).unwrap();
    ExportHFiles::new(db, "t", o).run(out, &Arc::new(AtomicU64::new(0)))
}

fn reader(path: &Path) -> HFileReader {
    HFileReader::open(RealFs::new().open_read(path).unwrap()).unwrap()
}

#[test]
fn a_table_round_trips_through_export_hfiles_and_completebulkload() {
    let tmp = tempfile::tempdir().unwrap();
    let source = open(&tmp.path().join("a"));
    fill(&source);
    let expected = raw(&source);
    assert!(
        expected
            .iter()
            .any(|c| c.4 == CellType::DeleteFamilyVersion)
    );
    assert!(expected.iter().any(|c| c.4 == CellType::DeleteColumn));

    let out = tmp.path().join("out");
    let report = export(&source, &out, &[]).unwrap();
    assert_eq!(report.regions, 3);
    // One file per region and family.
    assert_eq!(report.files.len(), 9);
    assert_eq!(report.cells as usize, expected.len());
    assert!(out.join("_SUCCESS").exists());
    assert!(!out.join("_temporary").exists());
    let bounds = splits();
    for f in &report.files {
        let r = reader(&f.path);
        let s = check(&r).unwrap();
        // Each file's rows lie in one region.
        let region = |row: &[u8]| bounds.partition_point(|b| b.as_slice() <= row);
        assert_eq!(region(&f.rows.0), region(&f.rows.1), "{}", f.path.display());
        let family = f
            .path
            .parent()
            .unwrap()
            .file_name()
            .unwrap()
            .to_str()
            .unwrap();
        assert_eq!(s.family.as_deref(), Some(family.as_bytes()));
        // The family's settings: Bloom type, compression.
        let (bloom, compression) = match family {
            "cf" => (Some("ROW"), Compression::Lz4),
            "cg" => (Some("ROWCOL"), Compression::None),
            _ => (None, Compression::None),
        };
        assert_eq!(
            s.general_bloom.as_ref().map(|b| b.0.as_str()),
            bloom,
            "{family}"
        );
        assert_eq!(r.trailer().compression, compression);
        for k in [
            "BULKLOAD_TIMESTAMP",
            "BULKLOAD_SOURCE_TASK",
            "MAJOR_COMPACTION_KEY",
            "TIMERANGE",
            "EARLIEST_PUT_TS",
            "DELETE_FAMILY_COUNT",
        ] {
            assert!(
                s.file_info_keys.iter().any(|x| x == k),
                "{k} missing in {}",
                f.path.display()
            );
        }
    }

    // Into a fresh Db with the same descriptor and splits: an identical raw scan.
    let target = open(&tmp.path().join("b"));
    target
        .admin()
        .create_table_with_splits(&descriptor(), splits())
        .unwrap();
    let loaded = CompleteBulkLoad::new(&target, "t", CompleteBulkLoadOptions::default())
        .run(&out, &mut QuietObserver)
        .unwrap();
    assert_eq!(loaded.hfiles, 9);
    assert_eq!(loaded.hfiles_split, 0);
    assert_same(&raw(&target), &expected);
    // And after a major compaction on both sides (the source flushed first: a compaction
    // leaves the memstore alone), still the same.
    source.admin().flush("t").unwrap();
    source.admin().major_compact("t").unwrap();
    target.admin().major_compact("t").unwrap();
    assert_same(&raw(&target), &raw(&source));
}

/// `hfile.compression`, the block size override, and files rolled at row boundaries past
/// `hbase.hregion.max.filesize`; they all load back.
#[test]
fn options_compression_block_size_and_rolling() {
    let tmp = tempfile::tempdir().unwrap();
    let source = open(&tmp.path().join("a"));
    fill(&source);
    let out = tmp.path().join("out");
    let report = export(
        &source,
        &out,
        &[
            ("hfile.compression", "GZ"),
            ("hbase.mapreduce.hfileoutputformat.blocksize", "1024"),
            ("hbase.hregion.max.filesize", "3000"),
        ],
    )
    .unwrap();
    assert!(report.files.len() > 9, "{} files", report.files.len());
    for f in &report.files {
        let r = reader(&f.path);
        assert_eq!(r.trailer().compression, Compression::Gz);
        check(&r).unwrap();
    }
    // Rolled files of one family and region do not share a row.
    let cf: Vec<_> = report
        .files
        .iter()
        .filter(|f| f.path.parent().unwrap().ends_with("cf"))
        .collect();
    for w in cf.windows(2) {
        assert!(w[0].rows.1 < w[1].rows.0);
    }
    let target = open(&tmp.path().join("b"));
    target
        .admin()
        .create_table_with_splits(&descriptor(), splits())
        .unwrap();
    let o = CompleteBulkLoadOptions {
        max_files_per_region_per_family: 1000,
        ..Default::default()
    };
    CompleteBulkLoad::new(&target, "t", o)
        .run(&out, &mut QuietObserver)
        .unwrap();
    assert_eq!(raw(&target), raw(&source));

    // An output directory that exists and is not empty is refused, as Hadoop does.
    let e = export(&source, &out, &[]).unwrap_err();
    assert!(e.to_string().starts_with("Output directory"), "{e}");
}
