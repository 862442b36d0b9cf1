//! Replay under each recovery mode against every kind of damage (RELIABILITY.md F1–F3, T4):
//! torn tails at every length, bit flips, zero-filled tails, garbage between records,
//! damaged headers, and torn tails in logs that were not the last of their process.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use regionkv_fs::{Fs, MemFs};
use regionkv_wal::format::{FRAME_HEADER_LEN, HEADER_LEN};

/// Bytes of the seal a closed or rolled-from log ends with.
const SEAL_LEN: u64 = FRAME_HEADER_LEN as u64 + 8;
use regionkv_wal::{Error, RecoveryMode, SyncMode, WalReader, replay};
use support::*;

const TOLERATE: RecoveryMode = RecoveryMode::TolerateCorruptedTail;
const ABSOLUTE: RecoveryMode = RecoveryMode::AbsoluteConsistency;
const SALVAGE: RecoveryMode = RecoveryMode::SkipAnyCorrupted;

fn four_edits() -> Vec<regionkv_wal::WalEdit> {
    (1..=4).map(|s| edit("r1", s, 3)).collect()
}

fn expect_corrupt(
    result: regionkv_wal::Result<Vec<regionkv_wal::WalEdit>>,
    path: &std::path::Path,
    offset: u64,
) -> String {
    let err = result.expect_err("replay must fail");
    match &err {
        Error::Corrupt {
            path: p, offset: o, ..
        } => {
            assert_eq!(p, path, "{err}");
            assert_eq!(*o, offset, "{err}");
        }
        other => panic!("expected Corrupt, got {other:?}"),
    }
    let msg = err.to_string();
    assert!(msg.contains(&path.display().to_string()), "{msg}");
    assert!(msg.contains(&format!("at offset {offset}")), "{msg}");
    msg
}

#[test]
fn torn_tail_of_the_last_log_is_dropped_at_every_cut_and_an_error_in_absolute_mode() {
    let fs = MemFs::new();
    let edits = four_edits();
    let (path, offsets) = write_log(&fs, &edits);
    let full = fs.contents(&path).unwrap();
    let last = offsets[3] as usize;
    for cut in last..full.len() {
        overwrite(&fs, &path, &full[..cut]);
        let (got, report) = replay(&fs, dir(), TOLERATE).unwrap().read_all().unwrap();
        assert_eq!(got, &edits[..3], "cut at {cut}");
        if cut == last {
            assert!(report.dropped_tails.is_empty());
            assert_eq!(replay_all(&fs, ABSOLUTE).unwrap(), &edits[..3]);
        } else {
            assert_eq!(report.dropped_tails.len(), 1, "cut at {cut}");
            assert_eq!(report.dropped_tails[0].offset, offsets[3]);
            assert_eq!(report.dropped_tails[0].len, (cut - last) as u64);
            let msg = expect_corrupt(replay_all(&fs, ABSOLUTE), &path, offsets[3]);
            assert!(msg.contains("incomplete record"), "{msg}");
        }
        assert_eq!(
            replay_all(&fs, SALVAGE).unwrap(),
            &edits[..3],
            "cut at {cut}"
        );
    }
}

#[test]
fn a_bit_flip_in_a_middle_record_is_an_error_naming_file_and_offset() {
    let fs = MemFs::new();
    let edits = four_edits();
    let (path, offsets) = write_log(&fs, &edits);
    for at in offsets[1]..offsets[2] {
        for mask in [0x01, 0x80] {
            fs.corrupt(&path, at, mask).unwrap();
            expect_corrupt(replay_all(&fs, TOLERATE), &path, offsets[1]);
            expect_corrupt(replay_all(&fs, ABSOLUTE), &path, offsets[1]);
            let (got, report) = replay(&fs, dir(), SALVAGE).unwrap().read_all().unwrap();
            assert_eq!(
                got,
                [edits[0].clone(), edits[2].clone(), edits[3].clone()],
                "byte {at}"
            );
            assert_eq!(report.skipped.len(), 1);
            assert_eq!(report.skipped[0].offset, offsets[1]);
            assert_eq!(report.skipped[0].len, offsets[2] - offsets[1]);
            fs.corrupt(&path, at, mask).unwrap();
        }
    }
    assert_eq!(replay_all(&fs, ABSOLUTE).unwrap(), edits);
}

#[test]
fn damage_in_the_last_record_is_a_dropped_tail_and_absolute_mode_refuses_it() {
    // What a power cut that garbles the unsynced end of the last page leaves: nothing
    // verifies after the damage, so the default drops it (reported); the edits before it
    // replay. Absolute consistency refuses it.
    let fs = MemFs::new();
    let edits = four_edits();
    let (path, offsets) = write_log(&fs, &edits);
    let len = fs.file_len(&path).unwrap();
    for at in offsets[3]..len {
        fs.corrupt(&path, at, 0x04).unwrap();
        let (got, report) = replay(&fs, dir(), TOLERATE).unwrap().read_all().unwrap();
        assert_eq!(got, edits[..3], "byte {at}");
        assert_eq!(report.dropped_tails.len(), 1, "byte {at}");
        assert_eq!(report.dropped_tails[0].offset, offsets[3]);
        assert_eq!(report.dropped_tails[0].len, len - offsets[3]);
        assert!(
            report.dropped_tails[0].reason.contains("checksum mismatch"),
            "{:?}",
            report.dropped_tails[0]
        );
        let msg = expect_corrupt(replay_all(&fs, ABSOLUTE), &path, offsets[3]);
        assert!(msg.contains("checksum mismatch"), "{msg}");
        fs.corrupt(&path, at, 0x04).unwrap();
    }
}

#[test]
fn a_zero_filled_tail_is_tolerated_and_absolute_mode_refuses_it() {
    let fs = MemFs::new();
    let edits = four_edits();
    let (path, _) = write_log(&fs, &edits);
    let len = fs.file_len(&path).unwrap();
    fs.truncate(&path, len + 4096).unwrap();
    let (got, report) = replay(&fs, dir(), TOLERATE).unwrap().read_all().unwrap();
    assert_eq!(got, edits);
    assert_eq!(report.dropped_tails.len(), 1);
    assert_eq!(report.dropped_tails[0].offset, len);
    assert_eq!(report.dropped_tails[0].len, 4096);
    assert!(report.dropped_tails[0].reason.contains("zero-filled tail"));
    expect_corrupt(replay_all(&fs, ABSOLUTE), &path, len);
    // A single stray zero byte, or a cut-short header followed by nothing, is torn too.
    fs.truncate(&path, len + 1).unwrap();
    assert_eq!(replay_all(&fs, TOLERATE).unwrap(), edits);
}

#[test]
fn garbage_between_valid_records_is_an_error_and_salvage_skips_it() {
    let fs = MemFs::new();
    let edits = four_edits();
    let (path, offsets) = write_log(&fs, &edits);
    let full = fs.contents(&path).unwrap();
    let garbage = b"\x07this is not a record, it is garbage\xff\xfe";
    let at = offsets[2] as usize;
    let bytes = [&full[..at], &garbage[..], &full[at..]].concat();
    overwrite(&fs, &path, &bytes);
    let msg = expect_corrupt(replay_all(&fs, TOLERATE), &path, offsets[2]);
    assert!(msg.contains("header checksum mismatch"), "{msg}");
    let (got, report) = replay(&fs, dir(), SALVAGE).unwrap().read_all().unwrap();
    assert_eq!(got, edits);
    assert_eq!(report.skipped.len(), 1);
    assert_eq!(report.skipped[0].offset, offsets[2]);
    assert_eq!(report.skipped[0].len, garbage.len() as u64);

    // The same garbage at the very end of the last log is what a garbled unsynced page
    // looks like: nothing verifies after it, so it is a dropped tail (an error in
    // absolute mode).
    let bytes = [&full[..], &garbage[..]].concat();
    overwrite(&fs, &path, &bytes);
    let (got, report) = replay(&fs, dir(), TOLERATE).unwrap().read_all().unwrap();
    assert_eq!(got, edits);
    assert_eq!(report.dropped_tails.len(), 1);
    assert_eq!(report.dropped_tails[0].offset, full.len() as u64);
    expect_corrupt(replay_all(&fs, ABSOLUTE), &path, full.len() as u64);
    // Zeros between two valid records are not a tail.
    let bytes = [&full[..at], &[0u8; 64][..], &full[at..]].concat();
    overwrite(&fs, &path, &bytes);
    expect_corrupt(replay_all(&fs, TOLERATE), &path, offsets[2]);
}

#[test]
fn a_torn_tail_in_a_log_that_was_rolled_away_from_is_corruption() {
    let fs = MemFs::new();
    let wal = open(&fs, quiet_config());
    for s in 1..=3 {
        wal.append(&edit("r1", s, 2), SyncMode::Sync).unwrap();
    }
    wal.roll().unwrap();
    wal.append(&edit("r1", 4, 2), SyncMode::Sync).unwrap();
    let logs = wal.log_files();
    wal.close().unwrap();
    let first = &logs[0];
    let len = fs.file_len(first).unwrap();
    // The seal, and 5 bytes of the last edit before it, cut off.
    fs.truncate(first, len - SEAL_LEN - 5).unwrap();
    let (_, offsets) = expected_records(&[edit("r1", 1, 2), edit("r1", 2, 2), edit("r1", 3, 2)]);
    match replay_all(&fs, TOLERATE) {
        Err(e @ Error::Truncated { .. }) => {
            assert_eq!(e.path(), Some(first.as_path()));
            assert_eq!(e.offset(), Some(offsets[2]));
            let msg = e.to_string();
            assert!(
                msg.contains(&format!(
                    "recorded it as {len} bytes long when it rolled from it"
                )) && msg.contains("sequence id 2 of region r1"),
                "{msg}"
            );
        }
        other => panic!("expected Truncated, got {other:?}"),
    }
    // Cut exactly at a record boundary (only the seal gone): still truncated.
    fs.truncate(first, offsets[2]).unwrap();
    assert!(matches!(
        replay_all(&fs, TOLERATE),
        Err(Error::Truncated { .. })
    ));
    // Salvage still reads everything else.
    assert_eq!(replay_all(&fs, SALVAGE).unwrap().len(), 3);
}

#[test]
fn the_torn_tail_a_crashed_process_left_stays_tolerated_after_restarts() {
    let fs = MemFs::new();
    let wal = open(&fs, quiet_config());
    for s in 1..=3 {
        wal.append(&edit("r1", s, 2), SyncMode::Sync).unwrap();
    }
    let first = wal.log_files()[0].clone();
    drop(wal);
    let len = fs.file_len(&first).unwrap();
    // The process died mid-append: the last record is cut, and it never sealed the log.
    fs.truncate(&first, len - SEAL_LEN - 3).unwrap();

    // A new process replays, opens (a new log), writes, rolls and dies again.
    let (edits, report) = replay(&fs, dir(), TOLERATE).unwrap().read_all().unwrap();
    assert_eq!(edits.len(), 2);
    assert_eq!(report.dropped_tails.len(), 1);
    let wal = open(&fs, quiet_config());
    wal.adopt_replayed(&report).unwrap();
    wal.append(&edit("r1", 10, 2), SyncMode::Sync).unwrap();
    wal.roll().unwrap();
    wal.append(&edit("r1", 11, 2), SyncMode::Sync).unwrap();
    assert_eq!(wal.log_files().len(), 3);
    drop(wal);

    let (edits, report) = replay(&fs, dir(), TOLERATE).unwrap().read_all().unwrap();
    let seqs: Vec<u64> = edits.iter().map(|e| e.key.seq_id).collect();
    assert_eq!(seqs, [1, 2, 10, 11]);
    assert_eq!(report.dropped_tails.len(), 1);
    assert_eq!(report.dropped_tails[0].path, first);
    // Absolute consistency still refuses it.
    assert!(replay_all(&fs, ABSOLUTE).is_err());
}

#[test]
fn a_damaged_header_fails_replay_and_salvage_skips_the_file() {
    let fs = MemFs::new();
    let wal = open(&fs, quiet_config());
    wal.append(&edit("r1", 1, 2), SyncMode::Sync).unwrap();
    wal.roll().unwrap();
    wal.append(&edit("r1", 2, 2), SyncMode::Sync).unwrap();
    let logs = wal.log_files();
    wal.close().unwrap();
    fs.corrupt(&logs[0], 20, 0x01).unwrap();
    for mode in [TOLERATE, ABSOLUTE] {
        let err = replay(&fs, dir(), mode).unwrap_err();
        assert!(err.is_corruption(), "{err}");
        assert_eq!(err.path(), Some(logs[0].as_path()));
        assert_eq!(err.offset(), Some(0));
    }
    let (edits, report) = replay(&fs, dir(), SALVAGE).unwrap().read_all().unwrap();
    assert_eq!(edits, [edit("r1", 2, 2)]);
    assert_eq!(report.skipped.len(), 1);
    assert_eq!(report.skipped[0].path, logs[0]);
    assert_eq!(report.skipped[0].offset, 0);
}

#[test]
fn stray_files_are_ignored_and_a_missing_directory_has_no_edits() {
    let fs = MemFs::new();
    assert!(replay_all(&fs, TOLERATE).unwrap().is_empty());
    let edits = four_edits();
    write_log(&fs, &edits);
    for stray in [
        ".DS_Store",
        "._wal.00000000000000000001.log",
        "wal.7.log",
        "notes.txt",
    ] {
        let mut w = fs.create_new(&dir().join(stray)).unwrap();
        w.append(b"not a log").unwrap();
    }
    assert_eq!(replay_all(&fs, ABSOLUTE).unwrap(), edits);
    let wal = open(&fs, quiet_config());
    assert_eq!(wal.log_files().len(), 2);
    wal.close().unwrap();
}

#[test]
fn a_file_renamed_to_another_log_number_is_refused() {
    let fs = MemFs::new();
    let (path, _) = write_log(&fs, &four_edits());
    fs.rename(&path, &dir().join("wal.00000000000000000009.log"))
        .unwrap();
    let err = replay(&fs, dir(), TOLERATE).unwrap_err();
    assert!(err.to_string().contains("named for log 9"), "{err}");
}

#[test]
fn wal_reader_reads_one_file_and_reports_its_summary() {
    let fs = MemFs::new();
    let edits = four_edits();
    let (path, offsets) = write_log(&fs, &edits);
    let mut reader = WalReader::open(&fs, &path).unwrap();
    assert_eq!(reader.header().number, 1);
    assert_eq!(reader.offset(), HEADER_LEN as u64);
    let first = reader.next_edit().unwrap().unwrap();
    assert_eq!(first, edits[0]);
    assert_eq!(reader.offset(), offsets[1]);
    let rest: Vec<_> = reader.by_ref().map(Result::unwrap).collect();
    assert_eq!(rest, &edits[1..]);
    let summary = reader.summary();
    assert_eq!(summary.edits, 4);
    assert_eq!(summary.valid_len, fs.file_len(&path).unwrap());
    assert_eq!(summary.max_seq_by_region.get(&b"r1"[..]), Some(&4));
    assert!(reader.next_edit().unwrap().is_none());
}

/// The header of log 1, started by an open, in format `version`.
fn log_header(version: u32) -> Vec<u8> {
    regionkv_wal::format::LogHeader {
        version,
        origin: regionkv_wal::format::LogOrigin::Open,
        number: 1,
        created_ms: 0,
        prev_log: 0,
        preallocated: false,
        db_id: [0; 16],
        prev_len: 0,
    }
    .encode()
    .to_vec()
}

/// A log of format version 1 (named edits only, before the compact records) replays.
#[test]
fn version_1_logs_still_replay() {
    use regionkv_wal::format::{encode_record_into, log_path};
    let fs = MemFs::new();
    fs.create_dir_all(dir()).unwrap();
    let edits = four_edits();
    let mut bytes = log_header(1);
    for e in &edits {
        encode_record_into(&mut bytes, e).unwrap();
    }
    write_file(&fs, &log_path(dir(), 1), &bytes);
    assert_eq!(replay_all(&fs, ABSOLUTE).unwrap(), edits);
}

/// A compact edit whose region id no earlier record of its log declares — its declaration
/// was lost — is corruption at that edit, in every mode but salvage, which skips it.
#[test]
fn a_compact_edit_without_its_declaration_is_corruption() {
    use regionkv_wal::format::{encode_compact_into, log_path};
    let fs = MemFs::new();
    fs.create_dir_all(dir()).unwrap();
    let edits = four_edits();
    let mut bytes = log_header(3);
    let (records, offsets) = expected_records(&edits);
    // Everything but the declaration (the log's first record).
    bytes.extend_from_slice(&records[(offsets[0] as usize - HEADER_LEN)..]);
    let path = log_path(dir(), 1);
    write_file(&fs, &path, &bytes);
    let first_edit = HEADER_LEN as u64;
    for mode in [ABSOLUTE, TOLERATE] {
        let msg = expect_corrupt(replay_all(&fs, mode), &path, first_edit);
        assert!(msg.contains("region id 1"), "{msg}");
    }
    assert!(replay_all(&fs, SALVAGE).unwrap().is_empty());

    // The same edit after a declaration of another id is no better.
    let mut other = bytes[..HEADER_LEN].to_vec();
    regionkv_wal::format::encode_declaration_into(&mut other, 2, b"r2", "t1").unwrap();
    let key = edits[0].key.as_ref();
    let at = other.len() as u64;
    encode_compact_into(&mut other, 1, &key, &edits[0].cells).unwrap();
    write_file(&fs, &path, &other);
    expect_corrupt(replay_all(&fs, ABSOLUTE), &path, at);
}

/// Regions that stop writing drop out of the writer's dictionary at a roll and get a new id
/// when they write again; whatever the ids, every log replays on its own.
#[test]
fn rolls_redeclare_regions_and_replay_every_log_alone() {
    let fs = MemFs::new();
    let config = regionkv_wal::WalConfig {
        roll_size: 1024,
        ..quiet_config()
    };
    let wal = open(&fs, config);
    let mut all = Vec::new();
    for s in 1..=120u64 {
        // Region r0 writes throughout; r1..r5 take turns, each idle for whole logs.
        let region = if s % 2 == 0 {
            "r0".to_string()
        } else {
            format!("r{}", 1 + (s / 20) % 5)
        };
        let e = edit(&region, s, 2);
        wal.append(&e, SyncMode::Sync).unwrap();
        all.push(e);
    }
    let logs = wal.log_files();
    assert!(logs.len() >= 5, "{logs:?}");
    wal.close().unwrap();
    assert_eq!(replay_all(&fs, ABSOLUTE).unwrap(), all);
    // Each log alone: its own declarations suffice.
    let mut read = 0;
    for log in &logs {
        let reader = WalReader::open(&fs, log).unwrap().with_mode(ABSOLUTE);
        for e in reader {
            e.unwrap();
            read += 1;
        }
    }
    assert_eq!(read, all.len());
}
