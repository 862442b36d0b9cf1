//! Logs are rolled by size, deleted exactly when every region with edits in them has flushed
//! (HBase's SequenceIdAccounting), released by `forget_region`, named for force-flushing past
//! `max_logs`, and inherited logs are deleted once adopted and flushed.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::path::PathBuf;

use regionkv_fs::{Fs, MemFs};
use regionkv_wal::{RecoveryMode, SyncMode, WalConfig, replay};
use support::*;

fn names(paths: &[PathBuf]) -> Vec<String> {
    paths
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect()
}

fn log_name(n: u64) -> String {
    format!("wal.{n:020}.log")
}

#[test]
fn the_log_rolls_when_it_passes_roll_size() {
    let fs = MemFs::new();
    let config = WalConfig {
        roll_size: 2048,
        ..quiet_config()
    };
    let wal = open(&fs, config);
    let edits: Vec<_> = (1..=100).map(|s| edit("ra", s, 2)).collect();
    // A record and, at most, its region's declaration: what one round can put past the
    // roll size.
    let max_record = edits
        .iter()
        .map(|e| expected_records(std::slice::from_ref(e)).0.len() as u64)
        .max()
        .unwrap();
    for e in &edits {
        wal.append(e, SyncMode::Sync).unwrap();
    }
    let stats = wal.stats();
    let logs = wal.log_files();
    assert!(stats.rolls >= 3, "{stats:?}");
    assert_eq!(logs.len() as u64, stats.rolls + 1);
    assert_eq!(stats.live_logs, logs.len() as u64);
    for old in &logs[..logs.len() - 1] {
        let len = fs.file_len(old).unwrap();
        assert!(len >= 2048 && len < 2048 + max_record, "{old:?}: {len}");
    }
    wal.close().unwrap();
    let replayed = replay_all(&fs, RecoveryMode::AbsoluteConsistency).unwrap();
    assert_eq!(replayed, edits);
}

#[test]
fn mark_flushed_deletes_exactly_the_fully_flushed_old_logs() {
    let fs = MemFs::new();
    let wal = open(&fs, quiet_config());
    // log 1: A1 B1 | log 2: A2 | log 3: B2 | log 4: current, A3
    wal.append(&edit("A", 1, 1), SyncMode::Sync).unwrap();
    wal.append(&edit("B", 1, 1), SyncMode::Sync).unwrap();
    wal.roll().unwrap();
    wal.append(&edit("A", 2, 1), SyncMode::Sync).unwrap();
    wal.roll().unwrap();
    wal.append(&edit("B", 2, 1), SyncMode::Async).unwrap();
    wal.roll().unwrap();
    wal.append(&edit("A", 3, 1), SyncMode::Sync).unwrap();
    assert_eq!(
        names(&wal.log_files()),
        (1..=4).map(log_name).collect::<Vec<_>>()
    );

    wal.mark_flushed(b"A", 2).unwrap();
    assert_eq!(
        names(&wal.log_files()),
        [log_name(1), log_name(3), log_name(4)],
        "log 2 held A only; log 1 still holds B1"
    );
    assert!(!fs.exists(&dir().join(log_name(2))).unwrap());
    wal.mark_flushed(b"B", 1).unwrap();
    assert_eq!(names(&wal.log_files()), [log_name(3), log_name(4)]);
    wal.mark_flushed(b"A", 100).unwrap();
    wal.mark_flushed(b"B", 1).unwrap();
    assert_eq!(
        names(&wal.log_files()),
        [log_name(3), log_name(4)],
        "B2 unflushed"
    );
    wal.mark_flushed(b"B", 2).unwrap();
    assert_eq!(
        names(&wal.log_files()),
        [log_name(4)],
        "the current log is never deleted"
    );
    assert_eq!(wal.stats().logs_deleted, 3);
    wal.close().unwrap();
    // What replay sees is what is left.
    let seqs: Vec<u64> = replay_all(&fs, RecoveryMode::AbsoluteConsistency)
        .unwrap()
        .iter()
        .map(|e| e.key.seq_id)
        .collect();
    assert_eq!(seqs, [3]);
}

#[test]
fn a_roll_deletes_the_old_log_if_everything_in_it_is_flushed() {
    let fs = MemFs::new();
    let wal = open(&fs, quiet_config());
    wal.append(&edit("A", 1, 1), SyncMode::Sync).unwrap();
    wal.mark_flushed(b"A", 1).unwrap();
    assert_eq!(wal.log_files().len(), 1);
    wal.roll().unwrap();
    assert_eq!(names(&wal.log_files()), [log_name(2)]);
    wal.close().unwrap();
}

#[test]
fn forget_region_stops_holding_logs_for_it() {
    let fs = MemFs::new();
    let wal = open(&fs, quiet_config());
    wal.append(&edit("A", 1, 1), SyncMode::Sync).unwrap();
    wal.append(&edit("C", 9, 1), SyncMode::Async).unwrap();
    wal.roll().unwrap();
    wal.append(&edit("C", 10, 1), SyncMode::Async).unwrap();
    wal.mark_flushed(b"A", 1).unwrap();
    assert_eq!(wal.log_files().len(), 2, "C holds log 1");
    // C's edit 10 is still in the buffer: forget writes it out first, so the roll after it
    // can delete log 2 as well.
    wal.forget_region(b"C").unwrap();
    assert_eq!(names(&wal.log_files()), [log_name(2)]);
    wal.roll().unwrap();
    assert_eq!(names(&wal.log_files()), [log_name(3)]);
    wal.close().unwrap();
}

#[test]
fn regions_to_flush_names_the_regions_holding_the_oldest_log_past_max_logs() {
    let fs = MemFs::new();
    let config = WalConfig {
        max_logs: 2,
        ..quiet_config()
    };
    let wal = open(&fs, config);
    wal.append(&edit("B", 1, 1), SyncMode::Sync).unwrap();
    wal.append(&edit("A", 1, 1), SyncMode::Sync).unwrap();
    wal.append(&edit("Z", 1, 1), SyncMode::Sync).unwrap();
    wal.roll().unwrap();
    wal.append(&edit("C", 1, 1), SyncMode::Sync).unwrap();
    assert!(wal.regions_to_flush().is_empty(), "2 logs: not too many");
    wal.roll().unwrap();
    wal.mark_flushed(b"Z", 1).unwrap();
    assert_eq!(wal.regions_to_flush(), [b"A".to_vec(), b"B".to_vec()]);
    wal.mark_flushed(b"A", 1).unwrap();
    wal.mark_flushed(b"B", 1).unwrap();
    assert!(wal.regions_to_flush().is_empty());
    assert_eq!(wal.log_files().len(), 2);
    wal.close().unwrap();
}

#[test]
fn inherited_logs_are_deleted_once_adopted_and_flushed() {
    let fs = MemFs::new();
    let wal = open(&fs, quiet_config());
    wal.append(&edit("A", 1, 1), SyncMode::Sync).unwrap();
    wal.append(&edit("B", 5, 1), SyncMode::Sync).unwrap();
    wal.roll().unwrap();
    wal.append(&edit("A", 2, 1), SyncMode::Sync).unwrap();
    drop(wal); // logs 1 and 2

    let (edits, report) = replay(&fs, dir(), RecoveryMode::TolerateCorruptedTail)
        .unwrap()
        .read_all()
        .unwrap();
    assert_eq!(edits.len(), 3);
    assert_eq!(report.logs.len(), 2);
    assert_eq!(report.logs[0].max_seq_by_region.len(), 2);

    // Without adoption, inherited logs are kept whatever is flushed.
    let wal = open(&fs, quiet_config());
    wal.mark_flushed(b"A", 100).unwrap();
    wal.mark_flushed(b"B", 100).unwrap();
    assert_eq!(wal.log_files().len(), 3);
    wal.adopt_replayed(&report).unwrap();
    assert_eq!(
        names(&wal.log_files()),
        [log_name(3)],
        "logs 1 and 2 were flushed; 3 is current"
    );
    wal.close().unwrap();

    // A region flushing only part of an inherited log keeps it; the log started by open
    // (which marks where the old process stopped) stays while the older one does.
    let (_, report) = replay(&fs, dir(), RecoveryMode::TolerateCorruptedTail)
        .unwrap()
        .read_all()
        .unwrap();
    let wal = open(&fs, quiet_config());
    wal.append(&edit("A", 50, 1), SyncMode::Sync).unwrap();
    wal.roll().unwrap();
    wal.adopt_replayed(&report).unwrap();
    // Log 3 is empty and 4 (started by this open) holds A50; 5 is current.
    assert_eq!(names(&wal.log_files()), [log_name(4), log_name(5)]);
    wal.close().unwrap();
}

#[test]
fn a_log_started_by_open_is_kept_while_an_older_log_lives() {
    let fs = MemFs::new();
    let wal = open(&fs, quiet_config());
    wal.append(&edit("A", 1, 1), SyncMode::Sync).unwrap();
    drop(wal); // log 1 holds A1
    let (_, report) = replay(&fs, dir(), RecoveryMode::TolerateCorruptedTail)
        .unwrap()
        .read_all()
        .unwrap();
    let wal = open(&fs, quiet_config()); // log 2, started by open
    wal.adopt_replayed(&report).unwrap();
    wal.roll().unwrap(); // log 3
    assert_eq!(
        names(&wal.log_files()),
        [log_name(1), log_name(2), log_name(3)],
        "log 2 is empty but must outlive log 1"
    );
    wal.mark_flushed(b"A", 1).unwrap();
    assert_eq!(names(&wal.log_files()), [log_name(3)]);
    wal.close().unwrap();
}

#[test]
fn closing_does_not_start_a_new_log() {
    let fs = MemFs::new();
    let config = WalConfig {
        roll_size: 200,
        ..quiet_config()
    };
    let wal = open(&fs, config);
    for seq in 1..=5 {
        wal.append(&edit("A", seq, 2), SyncMode::Async).unwrap();
    }
    assert_eq!(wal.log_files().len(), 1, "still buffered");
    wal.close().unwrap();
    assert_eq!(fs.list(dir()).unwrap(), [log_name(1)]);
    assert_eq!(
        replay_all(&fs, RecoveryMode::AbsoluteConsistency)
            .unwrap()
            .len(),
        5
    );
}

/// An owner whose answer the test sets, counting how often it is asked.
#[derive(Debug, Default)]
struct TestOwner {
    lost: std::sync::atomic::AtomicBool,
    asked: std::sync::atomic::AtomicU64,
}

impl regionkv_wal::Ownership for TestOwner {
    fn verify(&self) -> Result<(), String> {
        use std::sync::atomic::Ordering::SeqCst;
        self.asked.fetch_add(1, SeqCst);
        if self.lost.load(SeqCst) {
            Err("the lock file was replaced".into())
        } else {
            Ok(())
        }
    }
}

#[test]
fn once_ownership_is_lost_no_log_is_deleted_until_reopened() {
    use std::sync::Arc;
    use std::sync::atomic::Ordering::SeqCst;
    let fs = MemFs::new();
    let owner = Arc::new(TestOwner::default());
    let dir = std::path::Path::new(DIR);
    let open_owned = |owner: Arc<TestOwner>| {
        regionkv_wal::Wal::open_owned(Arc::new(fs.clone()), dir, quiet_config(), owner).unwrap()
    };
    let wal = open_owned(owner.clone());
    wal.append(&edit("A", 1, 1), SyncMode::Sync).unwrap();
    wal.roll().unwrap();
    // Asked on every roll and flush, with or without anything to delete.
    let asked = owner.asked.load(SeqCst);
    assert!(asked >= 1, "{asked}");
    wal.mark_flushed(b"A", 0).unwrap();
    assert_eq!(owner.asked.load(SeqCst), asked + 1);
    // While owned, a flushed log goes.
    wal.mark_flushed(b"A", 1).unwrap();
    assert_eq!(names(&wal.log_files()), [log_name(2)]);
    assert!(!fs.exists(&dir.join(log_name(1))).unwrap());

    wal.append(&edit("A", 2, 1), SyncMode::Sync).unwrap();
    wal.roll().unwrap();
    owner.lost.store(true, SeqCst);
    wal.mark_flushed(b"A", 2).unwrap();
    // Flushed, but another process may own it now: kept on disk, and no more asking.
    assert!(fs.exists(&dir.join(log_name(2))).unwrap());
    assert_eq!(wal.stats().logs_kept, 1);
    let asked = owner.asked.load(SeqCst);
    wal.append(&edit("A", 3, 1), SyncMode::Sync).unwrap();
    wal.roll().unwrap();
    wal.mark_flushed(b"A", 3).unwrap();
    assert_eq!(
        owner.asked.load(SeqCst),
        asked,
        "asked again after saying no"
    );
    assert!(fs.exists(&dir.join(log_name(3))).unwrap());
    assert_eq!(wal.stats().logs_kept, 2);
    wal.close().unwrap();
    // A half-created log of a process that may still be creating it is not deleted either.
    drop(
        fs.create_new(&dir.join(format!("{}.tmp", log_name(9))))
            .unwrap(),
    );
    let wal = open_owned(owner.clone());
    assert!(
        fs.exists(&dir.join(format!("{}.tmp", log_name(9))))
            .unwrap()
    );
    wal.close().unwrap();
    // Reopened as the owner again, the kept logs are replayed and deleted once flushed.
    let replayed = replay_all(&fs, RecoveryMode::AbsoluteConsistency).unwrap();
    assert_eq!(replayed.len(), 2, "{replayed:?}");
    let owner = Arc::new(TestOwner::default());
    let wal = open_owned(owner);
    assert!(
        !fs.exists(&dir.join(format!("{}.tmp", log_name(9))))
            .unwrap()
    );
    let report = replay(&fs, dir, RecoveryMode::AbsoluteConsistency)
        .unwrap()
        .read_all()
        .unwrap()
        .1;
    wal.adopt_replayed(&report).unwrap();
    wal.mark_flushed(b"A", 3).unwrap();
    assert_eq!(wal.log_files().len(), 1);
    wal.close().unwrap();
}
