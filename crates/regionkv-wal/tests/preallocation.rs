//! WAL preallocation (`WalConfig::preallocate`, docs/wal-format.md "Reserved tail"): a log
//! reserves a sparse zero tail ahead of its appends, readers take a zero tail at a record
//! boundary for the end of a log whose header says it preallocates, rolled and closed logs
//! are cut back to their records, and what the reservation changes in crash recovery.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use regionkv_fs::{CrashMode, Fs, MemFs};
use regionkv_wal::format::{FRAME_HEADER_LEN, HEADER_LEN};

/// Bytes of the seal a closed or rolled-from log ends with.
const SEAL_LEN: u64 = FRAME_HEADER_LEN as u64 + 8;
use regionkv_wal::{Error, RecoveryMode, SyncMode, WalConfig, WalReader};
use support::*;

const MODES: [RecoveryMode; 3] = [
    RecoveryMode::TolerateCorruptedTail,
    RecoveryMode::AbsoluteConsistency,
    RecoveryMode::SkipAnyCorrupted,
];

fn four_edits() -> Vec<regionkv_wal::WalEdit> {
    (1..=4).map(|s| edit("r1", s, 3)).collect()
}

#[test]
fn a_log_reserves_ahead_once_per_chunk_and_the_header_says_so() {
    let fs = MemFs::new();
    let config = WalConfig {
        preallocate: 4096,
        ..quiet_config()
    };
    let wal = open(&fs, config);
    let path = wal.log_files()[0].clone();
    let mut appended = 0;
    for seq in 1..=40 {
        wal.append(&edit("r1", seq, 2), SyncMode::Fsync).unwrap();
        appended += 1;
        let len = fs.file_len(&path).unwrap();
        let written = wal.stats().bytes + HEADER_LEN as u64;
        // The file is always longer than its records, by at most the chunk plus one round.
        assert!(len > written, "after {appended}: {len} <= {written}");
        assert!(len <= written + 4096, "after {appended}: {len}");
    }
    let stats = wal.stats();
    let log_bytes = stats.bytes + HEADER_LEN as u64;
    // One reservation per 4 KiB of log (rounded up), not one per append.
    assert!(
        stats.reserves >= log_bytes / 4096 && stats.reserves <= log_bytes / 4096 + 1,
        "{stats:?}"
    );
    assert!(stats.reserves < stats.syncs / 4, "{stats:?}");
    let reader = WalReader::open(&fs, &path).unwrap();
    assert!(reader.header().preallocated);
    wal.close().unwrap();
    assert_eq!(
        fs.file_len(&path).unwrap(),
        log_bytes + SEAL_LEN,
        "close seals the log and cuts the tail"
    );
    assert_eq!(
        replay_all(&fs, RecoveryMode::AbsoluteConsistency)
            .unwrap()
            .len(),
        40
    );
}

#[test]
fn preallocation_off_writes_logs_as_before() {
    let fs = MemFs::new();
    let wal = open(
        &fs,
        WalConfig {
            preallocate: 0,
            ..quiet_config()
        },
    );
    let path = wal.log_files()[0].clone();
    wal.append(&edit("r1", 1, 2), SyncMode::Fsync).unwrap();
    assert_eq!(
        fs.file_len(&path).unwrap(),
        wal.stats().bytes + HEADER_LEN as u64
    );
    assert_eq!(wal.stats().reserves, 0);
    assert!(!WalReader::open(&fs, &path).unwrap().header().preallocated);
}

#[test]
fn a_crashed_log_ends_at_its_reserved_zeros_in_every_mode() {
    for crash in CrashMode::all(11) {
        let fs = MemFs::new();
        let edits = four_edits();
        let wal = open(&fs, quiet_config());
        let path = wal.log_files()[0].clone();
        for e in &edits {
            wal.append(e, SyncMode::Fsync).unwrap();
        }
        let written = wal.stats().bytes + HEADER_LEN as u64;
        fs.crash(crash);
        drop(wal);
        let len = fs.file_len(&path).unwrap();
        assert!(len > written, "{crash:?}: the synced reservation survives");
        for mode in MODES {
            let (got, report) = replay_report(&fs, mode);
            assert_eq!(got, edits, "{crash:?} {mode:?}");
            assert!(report.dropped_tails.is_empty(), "{crash:?} {mode:?}");
            assert!(report.skipped.is_empty(), "{crash:?} {mode:?}");
        }
    }
}

#[test]
fn unsynced_appends_lost_in_the_reserved_tail_read_as_its_end() {
    // SyncWal appends reach the OS but are not synced: a power loss may keep any prefix of
    // them, with zeros (the synced reservation) after it. Whatever is kept replays; a cut
    // inside a record is a torn tail, tolerated by default.
    for seed in 0..40 {
        let fs = MemFs::new();
        let edits = four_edits();
        let wal = open(&fs, quiet_config());
        wal.append(&edits[0], SyncMode::Fsync).unwrap();
        for e in &edits[1..] {
            wal.append(e, SyncMode::Sync).unwrap();
        }
        fs.crash(CrashMode::KeepRandomPrefix { seed });
        drop(wal);
        let (got, _) = replay_report(&fs, RecoveryMode::TolerateCorruptedTail);
        assert!(!got.is_empty() && edits.starts_with(&got), "seed {seed}");
    }
}

#[test]
fn a_torn_record_before_the_reserved_zeros_is_still_a_torn_tail() {
    let fs = MemFs::new();
    let edits = four_edits();
    let (path, offsets) = write_preallocated_log(&fs, &edits);
    let full = fs.contents(&path).unwrap();
    let last = offsets[3] as usize;
    let reserved = full.len() + 4096;
    for cut in last + 1..full.len() {
        // What a crash leaves: the record cut at `cut`, zeros up to the reserved length.
        let mut bytes = full[..cut].to_vec();
        bytes.resize(reserved, 0);
        overwrite(&fs, &path, &bytes);
        let (got, report) = replay_report(&fs, RecoveryMode::TolerateCorruptedTail);
        assert_eq!(got, &edits[..3], "cut at {cut}");
        if full[last..cut].iter().all(|&b| b == 0) {
            // Nothing of the record but zeros reached the disk: the log's end.
            assert!(report.dropped_tails.is_empty(), "cut at {cut}");
        } else {
            assert_eq!(report.dropped_tails.len(), 1, "cut at {cut}");
            assert_eq!(report.dropped_tails[0].offset, offsets[3], "cut at {cut}");
            let err = replay_all(&fs, RecoveryMode::AbsoluteConsistency).unwrap_err();
            assert!(
                matches!(err, Error::Corrupt { offset, .. } if offset == offsets[3]),
                "{err}"
            );
        }
    }
}

#[test]
fn zeros_followed_by_a_record_are_corruption_even_in_a_preallocated_log() {
    let fs = MemFs::new();
    let edits = four_edits();
    let (path, offsets) = write_preallocated_log(&fs, &edits);
    let full = fs.contents(&path).unwrap();
    let last = offsets[3] as usize;
    // Zero the third record: a good record (the fourth) follows the zeros.
    let mut bytes = full.clone();
    bytes[offsets[2] as usize..last].fill(0);
    overwrite(&fs, &path, &bytes);
    for mode in [
        RecoveryMode::TolerateCorruptedTail,
        RecoveryMode::AbsoluteConsistency,
    ] {
        let err = replay_all(&fs, mode).unwrap_err();
        assert!(
            matches!(err, Error::Corrupt { offset, .. } if offset == offsets[2]),
            "{mode:?}: {err}"
        );
    }
    let (got, report) = replay_report(&fs, RecoveryMode::SkipAnyCorrupted);
    assert_eq!(got, [edits[0].clone(), edits[1].clone(), edits[3].clone()]);
    assert_eq!(report.skipped.len(), 1);
}

#[test]
fn a_zero_tail_shorter_than_a_record_header_ends_a_preallocated_log() {
    let fs = MemFs::new();
    let edits = four_edits();
    let (path, _) = write_preallocated_log(&fs, &edits);
    let len = fs.file_len(&path).unwrap();
    for extra in [1, 5, 12, 13, 100] {
        fs.truncate(&path, len + extra).unwrap();
        for mode in MODES {
            let (got, report) = replay_report(&fs, mode);
            assert_eq!(got, edits, "{extra} zeros, {mode:?}");
            assert!(report.dropped_tails.is_empty() && report.skipped.is_empty());
        }
        fs.truncate(&path, len).unwrap();
    }
}

#[test]
fn a_rolled_log_is_cut_back_to_its_records() {
    let fs = MemFs::new();
    let config = WalConfig {
        roll_size: 8 << 10,
        preallocate: 64 << 10,
        ..quiet_config()
    };
    let wal = open(&fs, config);
    // An explicit roll (HBase's rollWriter) leaves the log well inside its reservation; the
    // second roll is by size.
    for seq in 1..=3 {
        wal.append(&edit("r1", seq, 3), SyncMode::Fsync).unwrap();
    }
    let first = wal.log_files()[0].clone();
    assert!(
        fs.file_len(&first).unwrap() >= 8 << 10,
        "reserved up to the roll size"
    );
    wal.roll().unwrap();
    let mut seq = 3;
    while wal.stats().rolls < 2 {
        seq += 1;
        wal.append(&edit("r1", seq, 3), SyncMode::Fsync).unwrap();
    }
    let logs = wal.log_files();
    assert_eq!(logs.len(), 3);
    for old in &logs[..2] {
        let mut reader = WalReader::open(&fs, old)
            .unwrap()
            .with_mode(RecoveryMode::AbsoluteConsistency);
        while reader.next_edit().unwrap().is_some() {}
        assert_eq!(
            reader.summary().valid_len,
            fs.file_len(old).unwrap(),
            "{}: no zero tail after a roll",
            old.display()
        );
        // Reservations stop at the roll size.
        assert!(fs.file_len(old).unwrap() < (8 << 10) + 4096);
    }
    // The current log reserves no further than the roll size either.
    assert!(fs.file_len(&logs[2]).unwrap() <= 8 << 10);
    wal.close().unwrap();
    assert_eq!(
        replay_all(&fs, RecoveryMode::AbsoluteConsistency)
            .unwrap()
            .len() as u64,
        seq
    );
}
