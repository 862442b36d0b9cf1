//! `regionkv hfile`: the storefile inspector prints file info, blocks, cells (escaped like
//! Bytes.toStringBinary), statistics and an order check, and exits non-zero with the file
//! and offset on a corrupt file.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use regionkv_cell::{Cell, CellType};
use regionkv_fs::{Fs, RealFs};
use regionkv_storefile::{BloomType, StoreFileWriter, StoreFileWriterOptions};
use std::path::Path;
use std::process::Command;

fn write_file(path: &Path) {
    let options = StoreFileWriterOptions {
        block_size: 1024,
        bloom_type: BloomType::Row,
        ..Default::default()
    };
    let mut w = StoreFileWriter::new(RealFs::new().create_new(path).unwrap(), options).unwrap();
    for i in 0..100u32 {
        let row = [b'r', 0x00, (i / 10) as u8, (i % 10) as u8];
        let c = Cell::put(
            &row,
            b"cf",
            b"q",
            1_700_000_000_000,
            format!("v{i}").as_bytes(),
        )
        .unwrap()
        .with_seq_id(u64::from(i));
        w.append(c.as_cell_ref()).unwrap();
    }
    let marker = Cell::delete_marker(b"zz", b"cf", b"", 5, CellType::DeleteFamily).unwrap();
    w.append(marker.as_cell_ref()).unwrap();
    w.finish().unwrap();
}

fn hfile(args: &[&str], path: &Path) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_regionkv"))
        .arg("hfile")
        .args(args)
        .arg(path)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn prints_meta_blocks_cells_and_stats() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sf");
    write_file(&path);

    let (code, out, err) = hfile(&["-m"], &path);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Trailer:"), "{out}");
    assert!(out.contains("    entryCount=101"), "{out}");
    assert!(
        out.contains("    FIRST_KEY = r\\x00\\x00\\x00/cf:q/1700000000000/Put/seqid=0"),
        "{out}"
    );
    assert!(out.contains("    DELETE_FAMILY_COUNT = 1"), "{out}");
    assert!(out.contains("    TIMERANGE = 0....1700000000000"), "{out}");
    assert!(out.contains("    BloomType: ROW"), "{out}");
    assert!(out.contains("Mid-key: r\\x00"), "{out}");

    let (code, out, _) = hfile(&["-p"], &path);
    assert_eq!(code, 0);
    assert_eq!(out.lines().count(), 101);
    assert!(
        out.starts_with("K: r\\x00\\x00\\x00/cf:q/1700000000000/Put/vlen=2/seqid=0 V: v0\n"),
        "{out}"
    );
    assert!(
        out.ends_with("K: zz/cf:/5/DeleteFamily/vlen=0/seqid=0 V: \n"),
        "{out}"
    );

    let (code, out, _) = hfile(&["-b"], &path);
    assert_eq!(code, 0);
    assert!(out.starts_with("Block index: 1 level(s), "), "{out}");
    assert!(out.contains("    block 0: offset=0, onDiskSize="), "{out}");
    assert!(out.lines().count() > 3, "several blocks: {out}");

    let (code, out, _) = hfile(&["-s", "-k"], &path);
    assert_eq!(code, 0);
    assert!(
        out.contains("Row size (columns): count = 101, min = 1, max = 1"),
        "{out}"
    );
    assert!(out.contains("Scanned kv count -> 101"), "{out}");

    // HBase's `-f FILE` form.
    let out = Command::new(env!("CARGO_BIN_EXE_regionkv"))
        .args(["hfile", "-m", "-f"])
        .arg(&path)
        .output()
        .unwrap();
    assert!(out.status.success());
}

#[test]
fn corrupt_and_foreign_files_fail_with_file_and_offset() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sf");
    write_file(&path);
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[30] ^= 0x40; // inside data block 0
    std::fs::write(&path, &bytes).unwrap();
    let (code, out, err) = hfile(&["-p"], &path);
    assert_ne!(code, 0);
    assert!(err.starts_with("ERROR: corrupt storefile"), "{err}");
    assert!(
        err.contains("checksum mismatch in data block at offset 0"),
        "{err}"
    );
    assert!(err.contains(&path.display().to_string()), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    let _ = out;

    let other = dir.path().join("notes.txt");
    std::fs::write(&other, "just some text that is long enough to hold a trailer, but is not one, not at all, no. ........").unwrap();
    let (code, _, err) = hfile(&["-m"], &other);
    assert_ne!(code, 0);
    assert!(err.contains("is not a regionkv storefile"), "{err}");
}

#[test]
fn files_with_tags_are_version_2_and_print_each_tag() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sf");
    let options = StoreFileWriterOptions {
        include_tags: true,
        ..Default::default()
    };
    let mut w = StoreFileWriter::new(RealFs::new().create_new(&path).unwrap(), options).unwrap();
    let c = Cell::put(b"r", b"cf", b"q", 7, b"v")
        .unwrap()
        .with_tags(regionkv_cell::tag::with_ttl(&[], Some(1000)))
        .unwrap();
    w.append(c.as_cell_ref()).unwrap();
    w.finish().unwrap();
    let (code, out, err) = hfile(&["-m", "-p"], &path);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("    formatVersion=2\n"), "{out}");
    assert!(
        out.contains(
            "K: r/cf:q/7/Put/vlen=1/seqid=0 V: v T[0]: [Tag type : 8, value : \\x00\\x00\\x00\\x00\\x00\\x00\\x03\\xE8]\n"
        ),
        "{out}"
    );
}
