//! `regionkv hfile` on the HFiles real HBase wrote (`crates/regionkv-hfile/tests/fixtures/`,
//! provenance in FIXTURES.md there): golden outputs of HBase 2.4's printer flags in
//! `tests/testdata/hfile_hbase/*.txt` (datadriven notation: `hfile FLAGS... FILE`, then the
//! expected standard output as `>` lines; a non-zero exit adds an `exit: N` line and the
//! standard error), every fixture printing with `-m -s`, the `-v` count against the cells
//! each fixture holds, a damaged copy failing with the file and the offset, and what the
//! fixtures lack: families, qualifiers, delete types, tags, MVCC (a file `regionkv-hfile`'s
//! writer writes in HBase's format) and rows out of order (a fixture reordered on purpose).
//!
//! The fixtures are part of the repository: a missing one fails these tests, it never
//! skips them. Commands run in the fixture directory, so file names print as given.
//! After a deliberate change of output, `REGIONKV_REWRITE=1 cargo test -p regionkv-cli
//! --test hfile_hbase` rewrites the expected blocks; review their diff like code.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use regionkv_testkit::datadriven;

/// The nine fixtures and the cells FIXTURES.md records for each.
const FIXTURES: [(&str, u64); 9] = [
    ("hudi_1_0_hbase_2_4_9_no_entry.hfile", 0),
    ("hudi_1_0_hbase_2_4_9_16KB_NONE_5000.hfile", 5000),
    ("hudi_1_0_hbase_2_4_9_64KB_NONE_5000.hfile", 5000),
    ("hudi_1_0_hbase_2_4_9_16KB_GZ_20000.hfile", 20000),
    ("hudi_1_0_hbase_2_4_9_512KB_GZ_20000.hfile", 20000),
    ("hudi_1_0_hbase_2_4_9_16KB_GZ_200_20_non_unique.hfile", 4200),
    (
        "hudi_1_0_hbase_2_4_13_16KB_GZ_20000_fake_first_key.hfile",
        20000,
    ),
    ("hudi_1_0_hbase_2_4_13_1KB_GZ_20000_large_keys.hfile", 20000),
    (
        "hudi_1_0_hbase_2_4_13_1KB_GZ_10000_large_keys_deep_index.hfile",
        10000,
    ),
];

fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../regionkv-hfile/tests/fixtures")
}

/// The fixture `name`; panics (fails the test) when it is missing.
fn fixture(name: &str) -> PathBuf {
    let path = fixture_dir().join(name);
    assert!(
        path.is_file(),
        "fixture {} is missing: the HBase-written fixtures belong to the repository",
        path.display()
    );
    path
}

/// `regionkv hfile ARGS` run in the fixture directory.
fn hfile(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_regionkv"))
        .arg("hfile")
        .args(args)
        .current_dir(fixture_dir())
        .output()
        .unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn golden_outputs_match_hbase_s_printer() {
    for (name, _) in FIXTURES {
        fixture(name);
    }
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/testdata/hfile_hbase");
    for path in datadriven::test_files(&dir) {
        datadriven::run_file(&path, |step| {
            assert_eq!(step.command, "hfile", "{}: unknown command", step.text);
            let args: Vec<&str> = step.args.iter().map(String::as_str).collect();
            let out = hfile(&args);
            let mut s = text(&out.stdout);
            let code = out.status.code().unwrap_or(-1);
            if code != 0 {
                s.push_str(&format!("exit: {code}\n{}", text(&out.stderr)));
            } else if !out.stderr.is_empty() {
                s.push_str(&format!("stderr:\n{}", text(&out.stderr)));
            }
            s
        });
    }
}

#[test]
fn every_fixture_prints_meta_and_stats_and_counts_its_cells() {
    for (name, cells) in FIXTURES {
        fixture(name);
        let out = hfile(&["-m", "-s", name]);
        let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
        assert!(out.status.success(), "{name}: {stderr}");
        assert!(stderr.is_empty(), "{name}: {stderr}");
        for section in [
            "Block index size as per heapsize: ",
            "Trailer:\n    fileinfoOffset=",
            &format!("\n    entryCount={cells},\n"),
            "\nFileinfo:\n",
            "\nBloom filter:\n    Not present\n",
            "\nDelete Family Bloom filter:\n    Not present\n",
            "\nStats:\n",
        ] {
            assert!(
                stdout.contains(section),
                "{name}: no {section:?} in\n{stdout}"
            );
        }
        if cells == 0 {
            assert!(stdout.ends_with("Stats:\nno data available for statistics\n"));
        } else {
            assert!(stdout.contains(&format!("\n             count = {cells}\n")));
        }

        let out = hfile(&["-v", name]);
        assert!(out.status.success(), "{name}: {}", text(&out.stderr));
        assert_eq!(
            text(&out.stdout),
            format!("Scanning -> {name}\nScanned kv count -> {cells}\n"),
            "{name}"
        );
    }
}

#[test]
fn key_and_cell_lines_equal_the_cell_count() {
    let name = "hudi_1_0_hbase_2_4_9_16KB_GZ_200_20_non_unique.hfile";
    fixture(name);
    let out = hfile(&["-p", name]);
    assert!(out.status.success());
    let stdout = text(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 4201);
    assert!(lines[..4200].iter().all(|l| l.starts_with("K: hudi-key-")));
    assert_eq!(lines[4200], "Scanned kv count -> 4200");
    // -e: the same keys without values.
    let keys = text(&hfile(&["-e", name]).stdout);
    assert_eq!(keys.lines().count(), 4201);
    assert!(!keys.contains(" V: "));
}

#[test]
fn a_damaged_hbase_file_fails_with_the_file_and_the_offset() {
    let name = "hudi_1_0_hbase_2_4_9_16KB_NONE_5000.hfile";
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join(name);
    let mut bytes = std::fs::read(fixture(name)).unwrap();
    // Inside the second data block's cells (the first block is 16443 bytes).
    bytes[16443 + 100] ^= 0x01;
    std::fs::write(&copy, &bytes).unwrap();
    for flags in [&["-p"][..], &["-s"], &["-h"]] {
        let out = Command::new(env!("CARGO_BIN_EXE_regionkv"))
            .arg("hfile")
            .args(flags)
            .arg(&copy)
            .output()
            .unwrap();
        let err = text(&out.stderr);
        assert!(!out.status.success(), "{flags:?}");
        assert!(err.starts_with("ERROR: corrupt HFile "), "{err}");
        assert!(err.contains(&copy.display().to_string()), "{err}");
        assert!(
            err.contains("checksum mismatch in the DATA block at offset 16443"),
            "{err}"
        );
        assert!(!err.contains("panicked"), "{err}");
    }
    // The meta data is intact, so -m alone still reads.
    let out = Command::new(env!("CARGO_BIN_EXE_regionkv"))
        .args(["hfile", "-m"])
        .arg(&copy)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));

    // A damaged load-on-open section fails even without flags.
    let mut bytes = std::fs::read(fixture(name)).unwrap();
    let len = bytes.len();
    // The FileInfo block sits before the 4096-byte trailer; damage its last checksum.
    bytes[len - 4096 - 1] ^= 0xff;
    std::fs::write(&copy, &bytes).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_regionkv"))
        .arg("hfile")
        .arg(&copy)
        .output()
        .unwrap();
    let err = text(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains(&copy.display().to_string()), "{err}");
    assert!(err.contains("at offset"), "{err}");
}

#[test]
fn families_qualifiers_deletes_tags_and_mvcc_print_as_key_value_does() {
    use regionkv_fs::{Fs, RealFs};
    use regionkv_hfile::key::KeyRef;
    use regionkv_hfile::{HFileWriter, HFileWriterOptions};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cells.hfile");
    let key = |row: &[u8], family: &[u8], qualifier: &[u8], timestamp: i64, type_byte: u8| {
        KeyRef {
            row,
            family,
            qualifier,
            timestamp,
            type_byte,
        }
        .to_vec()
        .unwrap()
    };
    let opts = HFileWriterOptions {
        include_tags: true,
        ..Default::default()
    };
    let mut w = HFileWriter::new(RealFs::new().create_new(&path).unwrap(), opts);
    // A TTL tag (type 8) of 1000 ms.
    let mut tag = vec![0, 9, 8];
    tag.extend_from_slice(&1000i64.to_be_bytes());
    w.append(
        &key(b"r1", b"cf", b"q", 1_700_000_000_000, 4),
        b"v1",
        &tag,
        7,
    )
    .unwrap();
    w.append(&key(b"r1", b"cf", b"q2", 5, 12), b"", b"", 8)
        .unwrap();
    w.append(&key(b"r2\x00", b"f", b"", i64::MIN, 14), b"", b"", 0)
        .unwrap();
    w.finish().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_regionkv"))
        .args(["hfile", "-p", "-s"])
        .arg(&path)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let expected = "K: r1/cf:q/1700000000000/Put/vlen=2/seqid=7 V: v1 \
         T[0]: [Tag type : 8, value : \\x00\\x00\\x00\\x00\\x00\\x00\\x03\\xE8]\n\
         K: r1/cf:q2/5/DeleteColumn/vlen=0/seqid=8 V: \n\
         K: r2\\x00/f:/OLDEST_TIMESTAMP/DeleteFamily/vlen=0/seqid=0 V: \n\
         Stats:\n";
    assert!(stdout.starts_with(expected), "{stdout}");
    // Row r1: 8 + 17 + 2 + (2 + 11 of tags) and 8 + 18; row r2\x00: 8 + 16.
    assert!(
        stdout.contains("   Row size (bytes):\n               min = 24\n               max = 66\n"),
        "{stdout}"
    );
    assert!(stdout.ends_with("Key of biggest row: r1\nScanned kv count -> 3\n"));
}

#[test]
fn rows_out_of_order_are_warnings_on_standard_error_as_hbase_s() {
    let name = "hudi_1_0_hbase_2_4_9_16KB_NONE_5000.hfile";
    let mut bytes = std::fs::read(fixture(name)).unwrap();
    // Data block 0 starts at 0 with its 33-byte header; each cell is 4 + 4 + a 30-byte key
    // + a 20-byte value + a 1-byte MVCC. The second cell's row hudi-key-000000001 becomes
    // ...009, after the third cell's ...002.
    let row_end = 33 + 59 + 8 + 2 + 17;
    assert_eq!(bytes[row_end], b'1');
    bytes[row_end] = b'9';
    // Re-checksum the block: one CRC32C per bytes-per-checksum of header and payload.
    let be32 = |b: &[u8]| u32::from_be_bytes([b[0], b[1], b[2], b[3]]) as usize;
    let per_chunk = be32(&bytes[25..29]);
    let data_len = be32(&bytes[29..33]);
    for (i, start) in (0..data_len).step_by(per_chunk).enumerate() {
        let sum = crc32c::crc32c(&bytes[start..data_len.min(start + per_chunk)]);
        let at = data_len + 4 * i;
        bytes[at..at + 4].copy_from_slice(&sum.to_be_bytes());
    }
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join(name);
    std::fs::write(&copy, &bytes).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_regionkv"))
        .args(["hfile", "-k", "-v"])
        .arg(&copy)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stderr),
        format!(
            "WARNING, previous row is greater then current row\n\tfilename -> {}\n\t\
             previous -> hudi-key-000000009//LATEST_TIMESTAMP/Put/vlen=20/seqid=0\n\t\
             current  -> hudi-key-000000002//LATEST_TIMESTAMP/Put/vlen=20/seqid=0\n",
            copy.display()
        )
    );
    assert!(text(&out.stdout).ends_with("Scanned kv count -> 5000\n"));
}
