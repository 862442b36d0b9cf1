//! `regionkv wal`: the WAL inspector prints entries in HBase WALPrettyPrinter's shape (text
//! and JSON, with its filters), warns about a torn tail, and on a corrupt log prints what was
//! readable, then an ERROR naming the file and offset, and exits 1.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use regionkv_cell::{Cell, CellType};
use regionkv_fs::RealFs;
use regionkv_wal::format::{HEADER_LEN, encode_compact_into, encode_declaration_into};
use regionkv_wal::{SyncMode, Wal, WalConfig, WalEdit, WalKey};

const T0: i64 = 1_700_000_000_000; // Tue Nov 14 22:13:20 UTC 2023

fn edits() -> Vec<WalEdit> {
    let key = |seq: u64, region: &[u8]| WalKey {
        region: region.to_vec(),
        table: "ns:t1".into(),
        seq_id: seq,
        write_time: T0,
    };
    vec![
        WalEdit::new(
            key(1, b"a1b2c3"),
            vec![
                Cell::put(b"row\x001", b"cf", b"q", T0, b"v\"1\"")
                    .unwrap()
                    .with_seq_id(1),
                Cell::put(b"row\x001", b"cf", b"q2", T0, b"\xff")
                    .unwrap()
                    .with_seq_id(1),
            ],
        ),
        WalEdit::new(
            key(2, b"a1b2c3"),
            vec![
                Cell::delete_marker(b"row2", b"cf", b"", 5, CellType::DeleteFamily)
                    .unwrap()
                    .with_seq_id(2),
            ],
        ),
        WalEdit::new(
            WalKey {
                table: "other".into(),
                ..key(7, b"d4e5")
            },
            vec![
                Cell::put(b"row3", b"f", b"", 9, b"x")
                    .unwrap()
                    .with_seq_id(7),
            ],
        ),
    ]
}

/// Writes `edits()` into a fresh WAL directory; returns the log file.
fn write_log(dir: &Path) -> PathBuf {
    let wal = Wal::open(Arc::new(RealFs::new()), dir, WalConfig::default()).unwrap();
    for e in edits() {
        wal.append(&e, SyncMode::Sync).unwrap();
    }
    let path = wal.log_files()[0].clone();
    wal.close().unwrap();
    path
}

/// The offset of each edit's record, and the offset just past it: the WAL writes each region's declaration (ids from 1)
/// just before its first edit, then compact edits (docs/wal-format.md).
fn record_offsets() -> Vec<(u64, u64)> {
    let mut out = Vec::new();
    let mut ids: Vec<Vec<u8>> = Vec::new();
    edits()
        .iter()
        .map(|e| {
            let id = match ids.iter().position(|r| *r == e.key.region) {
                Some(i) => i as u64 + 1,
                None => {
                    ids.push(e.key.region.clone());
                    let id = ids.len() as u64;
                    encode_declaration_into(&mut out, id, &e.key.region, &e.key.table).unwrap();
                    id
                }
            };
            let start = (HEADER_LEN + out.len()) as u64;
            encode_compact_into(&mut out, id, &e.key.as_ref(), &e.cells).unwrap();
            (start, (HEADER_LEN + out.len()) as u64)
        })
        .collect()
}

fn wal(args: &[&str], files: &[&Path]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_regionkv"))
        .arg("wal")
        .args(args)
        .args(files)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn prints_entries_like_wal_pretty_printer() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_log(dir.path());
    let offsets = record_offsets();

    let (code, out, err) = wal(&["-p"], &[&path]);
    assert_eq!(code, 0, "{err}");
    assert!(err.is_empty(), "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines[0].starts_with(&format!(
            "Log file: {}, number=1, version=3, origin=open, previous log=0, created at=",
            path.display()
        )),
        "{out}"
    );
    let expected = [
        "Sequence=1, table=ns:t1, region=a1b2c3, at write timestamp=Tue Nov 14 22:13:20 UTC 2023",
        "row=row\\x001, type=Put, column=cf:q, timestamp=1700000000000",
        "    value: v\"1\"",
        "row=row\\x001, type=Put, column=cf:q2, timestamp=1700000000000",
        "    value: \\xFF",
        &format!("position: {}", offsets[0].1),
        "Sequence=2, table=ns:t1, region=a1b2c3, at write timestamp=Tue Nov 14 22:13:20 UTC 2023",
        "row=row2, type=DeleteFamily, column=cf:, timestamp=5",
        "    value: ",
        &format!("position: {}", offsets[1].1),
        "Sequence=7, table=other, region=d4e5, at write timestamp=Tue Nov 14 22:13:20 UTC 2023",
        "row=row3, type=Put, column=f:, timestamp=9",
        "    value: x",
    ];
    assert_eq!(&lines[1..=expected.len()], &expected[..], "{out}");

    // Without -p: no values.
    let (code, out, _) = wal(&[], &[&path]);
    assert_eq!(code, 0);
    assert!(!out.contains("value:"), "{out}");
    assert_eq!(out.matches("Sequence=").count(), 3);
}

#[test]
fn json_output_is_one_array_across_files() {
    let dir = tempfile::tempdir().unwrap();
    let a = write_log(&dir.path().join("a"));
    let b = write_log(&dir.path().join("b"));
    let (code, out, err) = wal(&["-j", "-p"], &[&a, &b]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("[{\"sequence\":1,\"table\":\"ns:t1\",\"region\":\"a1b2c3\",\"write_time\":1700000000000,\"position\":"), "{out}");
    assert!(
        out.contains(r#""actions":[{"row":"row\\x001","type":"Put","family":"cf","qualifier":"q","timestamp":1700000000000,"vlen":4,"value":"v\"1\""},"#),
        "{out}"
    );
    assert!(out.ends_with("}]}]\n"), "{out}");
    assert_eq!(out.matches("{\"sequence\":").count(), 6);
    assert_eq!(out.matches("}]},{\"sequence\"").count(), 5, "{out}");
    assert!(!out.contains("Log file:"));
}

#[test]
fn filters_select_entries_and_cells() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_log(dir.path());
    let (_, out, _) = wal(&["-s", "2"], &[&path]);
    assert_eq!(out.matches("Sequence=").count(), 1);
    assert!(out.contains("Sequence=2,"), "{out}");
    let (_, out, _) = wal(&["-t", "other"], &[&path]);
    assert_eq!(out.matches("Sequence=").count(), 1);
    assert!(out.contains("Sequence=7,"), "{out}");
    let (_, out, _) = wal(&["-r", "a1b2c3"], &[&path]);
    assert_eq!(out.matches("Sequence=").count(), 2);
    let (_, out, _) = wal(&["-w", "row\\x001"], &[&path]);
    assert_eq!(out.matches("Sequence=").count(), 1);
    assert_eq!(out.matches("row=").count(), 2, "{out}");
}

#[test]
fn a_corrupt_log_prints_what_was_readable_then_an_error_with_file_and_offset() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_log(dir.path());
    let offsets = record_offsets();
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[offsets[1].0 as usize + 20] ^= 0x40; // inside the second record's payload
    std::fs::write(&path, &bytes).unwrap();

    let (code, out, err) = wal(&["-p"], &[&path]);
    assert_eq!(code, 1, "{err}");
    assert!(out.contains("Sequence=1,"), "{out}");
    assert!(!out.contains("Sequence=2,"), "{out}");
    assert!(!out.contains("Sequence=7,"), "{out}");
    let expected = format!(
        "ERROR: corrupt WAL {}: at offset {}: record checksum mismatch",
        path.display(),
        offsets[1].0
    );
    assert!(err.starts_with(&expected), "{err}");
    assert!(!err.contains("panicked"), "{err}");

    // JSON stays a valid array even when a file fails.
    let (code, out, _) = wal(&["-j"], &[&path]);
    assert_eq!(code, 1);
    assert!(
        out.starts_with("[{\"sequence\":1,") && out.ends_with("]\n"),
        "{out}"
    );
}

#[test]
fn a_torn_tail_is_a_warning_not_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_log(dir.path());
    let bytes = std::fs::read(&path).unwrap();
    // A closed log ends with its 21-byte seal; the writer died 3 bytes short of its last
    // edit, before it could seal.
    std::fs::write(&path, &bytes[..bytes.len() - 21 - 3]).unwrap();
    let (code, out, err) = wal(&[], &[&path]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.matches("Sequence=").count(), 2);
    assert!(err.starts_with("WARNING: "), "{err}");
    assert!(err.contains("incomplete record"), "{err}");
}

#[test]
fn a_link_named_on_the_command_line_is_followed_a_fifo_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_log(dir.path());
    let link = dir.path().join("link.log");
    std::os::unix::fs::symlink(&path, &link).unwrap();
    let (code, out, err) = wal(&[], &[&link]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.matches("Sequence=").count(), 3, "{out}");
    // A FIFO gets an error at once instead of a wait for a writer.
    let fifo = dir.path().join("fifo.log");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let (code, _, err) = wal(&[], &[&fifo]);
    assert_eq!(code, 1);
    assert!(err.contains("it is a FIFO"), "{err}");
}

#[test]
fn missing_and_foreign_files_are_errors_and_the_other_files_still_print() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_log(dir.path());
    let other = dir.path().join("notes.txt");
    std::fs::write(&other, "just some text, not a log").unwrap();
    let missing = dir.path().join("nope.log");
    let (code, out, err) = wal(&[], &[&other, &missing, &path]);
    assert_eq!(code, 1);
    assert_eq!(out.matches("Sequence=").count(), 3, "{out}");
    assert!(err.contains("is not a regionkv WAL"), "{err}");
    assert!(
        err.contains(&format!("open_read failed on {}", missing.display())),
        "{err}"
    );
    assert_eq!(err.lines().count(), 2, "{err}");

    let out = Command::new(env!("CARGO_BIN_EXE_regionkv"))
        .arg("wal")
        .output()
        .unwrap();
    assert!(!out.status.success(), "FILE is required");
}

#[test]
fn cell_tags_print_as_wal_pretty_printer_lists_them() {
    let dir = tempfile::tempdir().unwrap();
    let wal_dir = dir.path().join("w");
    let w = Wal::open(Arc::new(RealFs::new()), &wal_dir, WalConfig::default()).unwrap();
    let cell = Cell::put(b"r", b"cf", b"q", T0, b"v")
        .unwrap()
        .with_seq_id(3)
        .with_tags(regionkv_cell::tag::with_ttl(&[], Some(1000)))
        .unwrap();
    let key = WalKey {
        region: b"ab".to_vec(),
        table: "t".into(),
        seq_id: 3,
        write_time: T0,
    };
    w.append(&WalEdit::new(key, vec![cell]), SyncMode::Sync)
        .unwrap();
    let path = w.log_files()[0].clone();
    w.close().unwrap();
    let (code, out, err) = wal(&["-p"], &[&path]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("    value: v\n    tag: [8:\\x00\\x00\\x00\\x00\\x00\\x00\\x03\\xE8]\n"),
        "{out}"
    );
    let (_, out, _) = wal(&["-j"], &[&path]);
    assert!(
        out.contains(r#""vlen":1,"tag":["8:\\x00\\x00\\x00\\x00\\x00\\x00\\x03\\xE8"]}"#),
        "{out}"
    );
}

#[test]
fn a_directory_prints_every_log_in_it_oldest_first() {
    let db = tempfile::tempdir().unwrap();
    let dir = db.path().join("wal");
    let w = Wal::open(Arc::new(RealFs::new()), &dir, WalConfig::default()).unwrap();
    let all = edits();
    w.append(&all[0], SyncMode::Sync).unwrap();
    w.roll().unwrap();
    w.append(&all[1], SyncMode::Sync).unwrap();
    let logs = w.log_files();
    w.close().unwrap();
    assert_eq!(logs.len(), 2, "{logs:?}");
    // Not a log: left out.
    std::fs::write(dir.join("notes.txt"), "x").unwrap();

    let (code, out, err) = wal(&[], &[&dir]);
    assert_eq!(code, 0, "{err}");
    let headers: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("Log file: "))
        .collect();
    assert_eq!(headers.len(), 2, "{out}");
    assert!(headers[0].starts_with(&format!("Log file: {}, number=1,", logs[0].display())));
    assert!(headers[1].starts_with(&format!("Log file: {}, number=2,", logs[1].display())));
    let seq1 = out.find("Sequence=1,").unwrap();
    let seq2 = out.find("Sequence=2,").unwrap();
    assert!(out.find(headers[1]).unwrap() > seq1 && seq2 > out.find(headers[1]).unwrap());

    // The Db directory stands for its wal/ logs.
    let (code, out_db, _) = wal(&[], &[db.path()]);
    assert_eq!(code, 0);
    assert_eq!(out_db, out);

    // A directory without logs is an error, not silence.
    let empty = tempfile::tempdir().unwrap();
    let (code, _, err) = wal(&[], &[empty.path()]);
    assert_eq!(code, 1);
    assert!(err.contains("no WAL log files"), "{err}");

    // A missing file names the OS reason.
    let (code, _, err) = wal(&[], &[&db.path().join("absent.log")]);
    assert_eq!(code, 1);
    assert!(
        err.contains("No such file or directory (os error 2)"),
        "{err}"
    );
}
