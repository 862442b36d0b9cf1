//! Property tests: random edits written through the WAL (random durabilities, rolls, syncs)
//! replay exactly; after a power loss replay gives a prefix holding every FSYNC_WAL-acked
//! edit; every single-byte change of a log is detected; random bytes never panic the reader.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::collections::BTreeMap;
use std::sync::Arc;

use proptest::prelude::*;
use regionkv_cell::{Cell, CellType};
use regionkv_fs::{CrashMode, Fs, MemFs};
use regionkv_wal::format::{FORMAT_VERSION, LogHeader, LogOrigin, log_path};
use regionkv_wal::{RecoveryMode, SyncMode, Wal, WalConfig, WalEdit, WalKey, replay};
use support::*;

#[derive(Debug, Clone)]
enum Op {
    Append {
        region: u8,
        cells: Vec<Cell>,
        mode: SyncMode,
    },
    Roll,
    Sync,
}

fn cell() -> impl Strategy<Value = Cell> {
    let kind = prop_oneof![
        4 => Just(CellType::Put),
        1 => Just(CellType::Delete),
        1 => Just(CellType::DeleteColumn),
        1 => Just(CellType::DeleteFamily),
        1 => Just(CellType::DeleteFamilyVersion),
    ];
    (
        proptest::collection::vec(any::<u8>(), 1..12),
        prop_oneof![Just(b"cf".to_vec()), Just(b"f2".to_vec())],
        proptest::collection::vec(any::<u8>(), 0..6),
        any::<i64>().prop_map(|t| t & i64::MAX),
        kind,
        proptest::collection::vec(any::<u8>(), 0..40),
        any::<u64>(),
    )
        .prop_map(|(row, fam, qual, ts, kind, value, seq)| {
            let c = if kind == CellType::Put {
                Cell::put(&row, &fam, &qual, ts, &value)
            } else {
                Cell::delete_marker(&row, &fam, &qual, ts, kind)
            };
            c.unwrap().with_seq_id(seq)
        })
}

fn op() -> impl Strategy<Value = Op> {
    let mode = prop_oneof![
        Just(SyncMode::Async),
        Just(SyncMode::Sync),
        Just(SyncMode::Fsync),
    ];
    prop_oneof![
        12 => (0u8..4, proptest::collection::vec(cell(), 0..5), mode)
            .prop_map(|(region, cells, mode)| Op::Append { region, cells, mode }),
        1 => Just(Op::Roll),
        1 => Just(Op::Sync),
    ]
}

/// Runs `ops`; returns every edit written to the WAL (in order) and how many of them were
/// fsync-durable when the last op returned.
fn run(wal: &Wal, ops: &[Op]) -> (Vec<WalEdit>, usize) {
    let mut seqs: BTreeMap<u8, u64> = BTreeMap::new();
    let mut written = Vec::new();
    let mut durable = 0;
    for op in ops {
        match op {
            Op::Append {
                region,
                cells,
                mode,
            } => {
                let seq = seqs.entry(*region).or_insert(0);
                *seq += 1;
                let edit = WalEdit::new(
                    WalKey {
                        region: format!("region-\u{e9}-{region}").into_bytes(),
                        table: format!("ns:t{region}"),
                        seq_id: *seq,
                        write_time: -5 + *seq as i64,
                    },
                    cells.clone(),
                );
                wal.append(&edit, *mode).unwrap();
                written.push(edit);
                if *mode == SyncMode::Fsync {
                    durable = written.len();
                }
            }
            Op::Roll => {
                wal.roll().unwrap();
                durable = written.len();
            }
            Op::Sync => {
                wal.sync().unwrap();
                durable = written.len();
            }
        }
    }
    (written, durable)
}

proptest! {
    #[test]
    fn random_edits_replay_exactly(
        ops in proptest::collection::vec(op(), 0..40),
        roll_size in 100u64..4000,
    ) {
        let fs = MemFs::new();
        let wal = open(&fs, WalConfig { roll_size, ..quiet_config() });
        let (written, _) = run(&wal, &ops);
        let logs = wal.log_files().len() as u64;
        // Empty logs are deleted by the roll that leaves them.
        prop_assert!(logs <= wal.stats().rolls + 1);
        wal.close().unwrap();
        let (edits, report) = replay(&fs, dir(), RecoveryMode::AbsoluteConsistency)
            .unwrap()
            .read_all()
            .unwrap();
        prop_assert_eq!(&edits, &written);
        prop_assert_eq!(report.logs.len() as u64, logs);
        prop_assert_eq!(report.edits, written.len() as u64);
    }

    #[test]
    fn after_a_power_loss_replay_is_a_prefix_with_every_fsynced_edit(
        ops in proptest::collection::vec(op(), 0..40),
        roll_size in 100u64..4000,
        seed in any::<u64>(),
        mode in 0usize..5,
    ) {
        let fs = MemFs::new();
        let wal = open(&fs, WalConfig { roll_size, ..quiet_config() });
        let (written, durable) = run(&wal, &ops);
        // Every crash mode: a torn page garbles only unsynced bytes of the last log, which
        // the default drops as a torn tail.
        let crash = CrashMode::all(seed)[mode];
        fs.crash(crash);
        drop(wal);
        let edits = replay_all(&fs, RecoveryMode::TolerateCorruptedTail).unwrap();
        prop_assert!(edits.len() >= durable, "{} < {}", edits.len(), durable);
        prop_assert_eq!(&edits[..], &written[..edits.len()]);
    }

    #[test]
    fn every_single_byte_change_of_a_log_is_detected(
        ops in proptest::collection::vec(op(), 1..12),
        at in any::<prop::sample::Index>(),
        mask in 1u8..=255,
    ) {
        let fs = MemFs::new();
        let wal = open(&fs, quiet_config());
        run(&wal, &ops);
        let path = wal.log_files()[0].clone();
        wal.close().unwrap();
        let len = fs.file_len(&path).unwrap();
        let at = at.index(len as usize) as u64;
        fs.corrupt(&path, at, mask).unwrap();
        let result = replay_all(&fs, RecoveryMode::AbsoluteConsistency);
        prop_assert!(result.is_err(), "byte {} of {} changed, undetected", at, len);
        prop_assert!(result.unwrap_err().is_corruption());
        // The default refuses it too, or (damage that nothing valid follows, in the last
        // log) drops it as a torn tail and reports where.
        match replay(&fs, dir(), RecoveryMode::TolerateCorruptedTail).and_then(|r| r.read_all()) {
            Err(e) => prop_assert!(e.is_corruption()),
            Ok((_, report)) => {
                prop_assert_eq!(report.dropped_tails.len(), 1, "byte {} of {} undetected", at, len);
                prop_assert!(report.dropped_tails[0].offset <= at);
            }
        }
    }

    #[test]
    fn random_bytes_after_a_header_never_panic(
        body in proptest::collection::vec(any::<u8>(), 0..300),
        valid in proptest::collection::vec(cell(), 0..3),
        splice in any::<prop::sample::Index>(),
    ) {
        let fs = MemFs::new();
        fs.create_dir_all(dir()).unwrap();
        let header = LogHeader {
            version: FORMAT_VERSION,
            origin: LogOrigin::Open,
            number: 1,
            created_ms: 0,
            prev_log: 0,
            preallocated: false,
            db_id: [0; 16],
            prev_len: 0,
        };
        // Random bytes with a valid record spliced in somewhere.
        let record = regionkv_wal::format::encode_record(&WalEdit::new(
            WalKey { region: b"r".to_vec(), table: "t".into(), seq_id: 1, write_time: 0 },
            valid,
        ))
        .unwrap();
        let at = splice.index(body.len() + 1);
        let bytes = [&header.encode()[..], &body[..at], &record, &body[at..]].concat();
        let mut w = fs.create_new(&log_path(dir(), 1)).unwrap();
        w.append(&bytes).unwrap();
        drop(w);
        for mode in [
            RecoveryMode::TolerateCorruptedTail,
            RecoveryMode::AbsoluteConsistency,
            RecoveryMode::SkipAnyCorrupted,
        ] {
            match replay(&fs, dir(), mode).unwrap().read_all() {
                Ok((edits, _)) => {
                    if mode == RecoveryMode::SkipAnyCorrupted {
                        prop_assert!(!edits.is_empty(), "salvage finds the spliced record");
                    }
                }
                Err(e) => prop_assert!(e.is_corruption(), "{e}"),
            }
        }
    }
}

#[test]
fn concurrent_appenders_in_many_regions_replay_in_per_region_order() {
    let fs = MemFs::new();
    let wal = Arc::new(open(
        &fs,
        WalConfig {
            roll_size: 4096,
            ..quiet_config()
        },
    ));
    let handles: Vec<_> = (0..4)
        .map(|t| {
            let wal = Arc::clone(&wal);
            std::thread::spawn(move || {
                let mode = [
                    SyncMode::Async,
                    SyncMode::Sync,
                    SyncMode::Fsync,
                    SyncMode::Sync,
                ][t];
                for seq in 1..=200 {
                    wal.append(&edit(&format!("r{t}"), seq, 1), mode).unwrap();
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    let stats = wal.stats();
    Arc::into_inner(wal).unwrap().close().unwrap();
    let edits = replay_all(&fs, RecoveryMode::AbsoluteConsistency).unwrap();
    assert_eq!(edits.len(), 800);
    assert!(stats.rolls > 0);
    let mut by_region: BTreeMap<Vec<u8>, Vec<u64>> = BTreeMap::new();
    for e in &edits {
        by_region
            .entry(e.key.region.clone())
            .or_default()
            .push(e.key.seq_id);
    }
    for seqs in by_region.values() {
        assert_eq!(seqs, &(1..=200).collect::<Vec<u64>>());
    }
}
