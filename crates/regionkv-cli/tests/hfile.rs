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
    // 101 cells, then HBase's closing count.
    assert_eq!(out.lines().count(), 102);
    assert!(
        out.starts_with("K: r\\x00\\x00\\x00/cf:q/1700000000000/Put/vlen=2/seqid=0 V: v0\n"),
        "{out}"
    );
    assert!(
        out.ends_with("K: zz/cf:/5/DeleteFamily/vlen=0/seqid=0 V: \nScanned kv count -> 101\n"),
        "{out}"
    );

    let (code, out, _) = hfile(&["-b"], &path);
    assert_eq!(code, 0);
    assert!(out.starts_with("Block index: 1 level(s), "), "{out}");
    assert!(out.contains("    block 0: offset=0, onDiskSize="), "{out}");
    assert!(out.lines().count() > 3, "several blocks: {out}");

    // -h (HBase's --printblockheaders; help is --help only): each data block's header.
    let (code, out, _) = hfile(&["-h"], &path);
    assert_eq!(code, 0);
    assert!(
        out.starts_with("Block Headers:\n    [blockType=DATA, fileOffset=0, onDiskSize="),
        "{out}"
    );
    assert_eq!(
        out.lines().count(),
        1 + out.matches("[blockType=DATA").count()
    );

    let (code, out, _) = hfile(&["-s", "-k"], &path);
    assert_eq!(code, 0);
    assert!(
        out.contains("Row size (columns): count = 101, min = 1, max = 1"),
        "{out}"
    );
    // As HBase's: the count closes output only with -v, -e or -p.
    assert!(!out.contains("Scanned kv count"), "{out}");

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

#[test]
fn file_info_values_print_as_hbase_prints_them() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sf");
    let mut options = StoreFileWriterOptions::default();
    // What the engine's flush and compaction write (the store's CREATE_TIME_KEY).
    options.extra.insert(
        "CREATE_TIME_TS".into(),
        1_700_000_000_123i64.to_be_bytes().to_vec(),
    );
    options.extra.insert("MY_NOTE".into(), b"a\x01b".to_vec());
    let mut w = StoreFileWriter::new(RealFs::new().create_new(&path).unwrap(), options).unwrap();
    for (i, row) in [b"a", b"b"].iter().enumerate() {
        let c = Cell::put(*row, b"cf", b"q", 10 + i as i64, b"v")
            .unwrap()
            .with_seq_id(7 + i as u64);
        w.append(c.as_cell_ref()).unwrap();
    }
    w.finish().unwrap();
    let (code, out, err) = hfile(&["-m"], &path);
    assert_eq!(code, 0, "{err}");
    let info: Vec<&str> = out
        .lines()
        .skip_while(|l| *l != "Fileinfo:")
        .skip(1)
        .take_while(|l| l.starts_with("    "))
        .collect();
    // Every key once, in byte order (HBase's TreeMap): upper case before `hfile.`.
    let keys: Vec<&str> = info
        .iter()
        .map(|l| l.trim().split(" = ").next().unwrap())
        .collect();
    let mut sorted = keys.clone();
    sorted.sort_unstable();
    assert_eq!(keys, sorted, "{out}");
    for line in [
        "    hfile.CREATE_TIME_TS = 1700000000123",
        "    MAJOR_COMPACTION_KEY = false",
        "    MAX_SEQ_ID_KEY = 8",
        "    TIMERANGE = 10....11",
        "    EARLIEST_PUT_TS = 10",
        "    hfile.AVG_VALUE_LEN = 1",
        "    hfile.LASTKEY = b/cf:q/11/Put/vlen=0/mvcc=8",
        "    BLOOM_FILTER_TYPE = ROW",
        "    MY_NOTE = a\\x01b",
    ] {
        assert!(info.contains(&line), "missing {line:?} in {out}");
    }
    assert!(!out.contains("CREATE_TIME_TS = \\x"), "{out}");
}

#[test]
fn flags_as_hbase_no_flags_verbose_keys_and_seek_to_row() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sf");
    write_file(&path);

    // No flags: HBase's printer opens the file and prints nothing.
    let (code, out, err) = hfile(&[], &path);
    assert_eq!((code, out.as_str(), err.as_str()), (0, "", ""));
    // No arguments at all: the usage, and a failure status.
    let out = Command::new(env!("CARGO_BIN_EXE_regionkv"))
        .arg("hfile")
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("Usage: regionkv hfile"));

    // -v: the file scanned, then the count.
    let (code, out, _) = hfile(&["-v"], &path);
    assert_eq!(code, 0);
    assert_eq!(
        out,
        format!("Scanning -> {}\nScanned kv count -> 101\n", path.display())
    );

    // -e: keys only.
    let (code, out, _) = hfile(&["-e"], &path);
    assert_eq!(code, 0);
    assert!(
        out.starts_with("K: r\\x00\\x00\\x00/cf:q/1700000000000/Put/vlen=2/seqid=0\n"),
        "{out}"
    );
    assert!(!out.contains(" V: "), "{out}");
    assert!(out.ends_with("Scanned kv count -> 101\n"), "{out}");

    // -w ROW (Bytes.toBytesBinary escapes): that row's cells only.
    let (code, out, _) = hfile(&["-p", "-w", "r\\x00\\x05\\x03"], &path);
    assert_eq!(code, 0);
    assert_eq!(
        out,
        "K: r\\x00\\x05\\x03/cf:q/1700000000000/Put/vlen=3/seqid=53 V: v53\nScanned kv count -> 1\n"
    );
    let (code, out, _) = hfile(&["-p", "-w", "nope"], &path);
    assert_eq!(code, 0);
    assert_eq!(out, "Scanned kv count -> 0\n");
    let (code, _, err) = hfile(&["-p", "-w", ""], &path);
    assert_ne!(code, 0);
    assert!(err.contains("Invalid row is specified."), "{err}");

    // Several files: one count over all of them.
    let out = Command::new(env!("CARGO_BIN_EXE_regionkv"))
        .args(["hfile", "-e"])
        .arg(&path)
        .arg(&path)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).ends_with("Scanned kv count -> 202\n"));
}

#[test]
fn missing_files_name_the_os_reason_and_hbase_files_are_read() {
    let dir = tempfile::tempdir().unwrap();
    let (code, out, err) = hfile(&["-m"], &dir.path().join("absent"));
    assert_ne!(code, 0);
    assert!(out.is_empty());
    assert!(
        err.contains("No such file or directory (os error 2)"),
        "{err}"
    );
    // An HFile HBase wrote is read and printed as HBase prints it (tests/hfile_hbase.rs
    // has the goldens); the fixture is part of the repository, so its absence fails.
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../regionkv-hfile/tests/fixtures/hudi_1_0_hbase_2_4_9_16KB_NONE_5000.hfile");
    assert!(fixture.is_file(), "missing fixture {}", fixture.display());
    let (code, out, err) = hfile(&["-m"], &fixture);
    assert_eq!(code, 0, "{err}");
    assert!(err.is_empty(), "{err}");
    assert!(
        out.contains("\nTrailer:\n    fileinfoOffset=296708,\n"),
        "{out}"
    );
    assert!(out.contains("\n    entryCount=5000,\n"), "{out}");
    // A regionkv storefile and an HBase HFile in one run: one count over both.
    let own = dir.path().join("sf");
    write_file(&own);
    let out = Command::new(env!("CARGO_BIN_EXE_regionkv"))
        .args(["hfile", "-e"])
        .arg(&own)
        .arg(&fixture)
        .output()
        .unwrap();
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("\nK: hudi-key-000000000//LATEST_TIMESTAMP/Put/vlen=20/seqid=0\n"));
    assert!(stdout.ends_with("Scanned kv count -> 5101\n"), "{stdout}");
}

#[test]
fn a_closed_pipe_ends_output_quietly() {
    use std::io::{BufRead, BufReader};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sf");
    let mut w = StoreFileWriter::new(
        RealFs::new().create_new(&path).unwrap(),
        StoreFileWriterOptions::default(),
    )
    .unwrap();
    // Far more output than a pipe buffers, so the printer is still writing when the
    // reader goes away.
    let value = vec![b'x'; 200];
    for i in 0..5000u32 {
        let c = Cell::put(format!("row{i:06}").as_bytes(), b"cf", b"q", 1, &value).unwrap();
        w.append(c.as_cell_ref()).unwrap();
    }
    w.finish().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_regionkv"))
        .args(["hfile", "-p"])
        .arg(&path)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(first.starts_with("K: row000000/"), "{first}");
    // The reader is dropped here, as `head -1` exits.
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn lz4_files_with_64k_blocks_are_version_3_in_parts() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sf");
    let options = StoreFileWriterOptions {
        compression: regionkv_storefile::Compression::Lz4,
        ..Default::default()
    };
    let mut w = StoreFileWriter::new(RealFs::new().create_new(&path).unwrap(), options).unwrap();
    for i in 0..3000 {
        let value = format!("value-{i}-").repeat(10);
        let c = Cell::put(
            format!("row{i:06}").as_bytes(),
            b"cf",
            b"q",
            7,
            value.as_bytes(),
        )
        .unwrap();
        w.append(c.as_cell_ref()).unwrap();
    }
    w.finish().unwrap();
    let (code, out, err) = hfile(&["-m", "-b", "-h"], &path);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("    formatVersion=3\n"), "{out}");
    assert!(out.contains("    BLOCKSIZE = 65536\n"), "{out}");
    // One index entry per 64 KiB block, each stored in ~4 KiB parts.
    assert!(
        out.contains("block 0: offset=0, onDiskSize=")
            && out.contains(", parts=16, firstKey=row000000/"),
        "{out}"
    );
    assert!(out.contains("compression=LZ4"), "{out}");
}
