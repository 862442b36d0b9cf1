//! Crash test of the write path with real processes and real files (RELIABILITY.md T3).
//!
//! A child process (this test binary, re-run with `REGIONKV_CRASH_CHILD` set) opens a
//! region with a tiny flush size, a background flusher and background compactions, and
//! writes row mutations of two families each, printing `ACK <n>` after each acknowledged
//! write. The parent kills it with SIGKILL after a random delay — during writes, flushes,
//! compactions and manifest replacements —
//! then recovers in-process and checks:
//!
//! 1. every acknowledged row is present, with both of its cells;
//! 2. no row is half-applied (one family without the other);
//! 3. no row appears that was never attempted.
//!
//! The child then continues from where the previous one stopped, so later rounds also
//! recover data that earlier rounds flushed. Variants: SYNC_WAL (the default; a killed
//! process loses nothing that reached the OS) and FSYNC_WAL. Rounds per variant: 20, or
//! `REGIONKV_CRASH_ITERATIONS` (the soak command sets more). A third variant writes the rows
//! in batches of 50 through `Region::mutate_rows` (one WAL record per mini-batch,
//! acknowledged together): a batch cut by the kill is there whole or not at all.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use regionkv_cell::{Cell, SharedClock, SystemClock};
use regionkv_fs::{Fs, RealFs};
use regionkv_region::{
    ColumnFamilyDescriptor, GlobalMemStore, RecoveredWal, Region, RegionConfig, RegionInfo,
    RegionServices, TableDescriptor, recover_wal,
};
use regionkv_region::{Durability, RowWrite};
use regionkv_regionserver::{CompactSplit, MemStoreFlusher, RegionServerWorkers};
use regionkv_suite::{ChildRun, XorShift, run_and_kill_child};
use regionkv_wal::{RecoveryMode, WalConfig};
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

const CHILD_ENV: &str = "REGIONKV_CRASH_CHILD";
const DURABILITY_ENV: &str = "REGIONKV_CRASH_DURABILITY";
const BATCH_ENV: &str = "REGIONKV_CRASH_BATCH";

fn open(dir: &Path, flusher: bool) -> (Arc<Region>, Option<Arc<MemStoreFlusher>>) {
    let fs: Arc<dyn Fs> = Arc::new(RealFs::new());
    let RecoveredWal { wal, edits, .. } = recover_wal(
        fs.clone(),
        &dir.join("wal"),
        WalConfig::default(),
        RecoveryMode::TolerateCorruptedTail,
    )
    .unwrap();
    let global = Arc::new(GlobalMemStore::new(1 << 30, 0.95));
    let compact_split = flusher.then(|| CompactSplit::start(1, 1));
    let flusher = flusher.then(|| MemStoreFlusher::start(1, global.clone()));
    let mut config = RegionConfig {
        flush_lower_bound_min: 1024,
        ..RegionConfig::default()
    };
    // Tiny files: compactions run constantly, so kills land in them too.
    config.compaction.min_compact_size = 1;
    let services = RegionServices {
        config,
        server: Some(Arc::new(RegionServerWorkers {
            flusher: flusher.clone(),
            compact_split,
        })),
        global,
        ..RegionServices::new(fs.clone(), wal, Arc::new(SystemClock) as SharedClock)
    };
    let families = vec![
        ColumnFamilyDescriptor::new(b"a").unwrap(),
        ColumnFamilyDescriptor::new(b"b").unwrap(),
    ];
    let mut table = TableDescriptor::new("crash", families).unwrap();
    table.memstore_flush_size = 8 * 1024;
    let region_dir = dir.join("region");
    let region = if regionkv_region::Manifest::read(fs.as_ref(), &region_dir)
        .unwrap()
        .is_some()
    {
        Region::open(&region_dir, table, services, &edits).unwrap()
    } else {
        let info = RegionInfo::whole_table("crash", 1);
        Region::create(&region_dir, info, table, services).unwrap()
    };
    (region, flusher)
}

fn row_key(n: u64) -> Vec<u8> {
    format!("row{n:010}").into_bytes()
}

/// Rows present, and for each the families it has.
fn recovered(region: &Region) -> BTreeMap<u64, BTreeSet<Vec<u8>>> {
    let mut rows: BTreeMap<u64, BTreeSet<Vec<u8>>> = BTreeMap::new();
    for c in region.scan_raw(b"", b"").unwrap() {
        let n: u64 = std::str::from_utf8(&c.row()[3..]).unwrap().parse().unwrap();
        assert_eq!(
            c.value(),
            format!("value-{n}-{}", "x".repeat(60)).as_bytes()
        );
        // Each row is written once with one cell per family: a second copy means a
        // compaction's inputs and output were both live after a crash.
        let fresh = rows.entry(n).or_default().insert(c.family().to_vec());
        assert!(fresh, "row {n} family {:?} appears twice", c.family());
    }
    rows
}

/// The child: write forever from the first row not yet present.
#[test]
fn crash_child() {
    let Ok(dir) = std::env::var(CHILD_ENV) else {
        return; // not a child run
    };
    let durability = match std::env::var(DURABILITY_ENV).as_deref() {
        Ok("FSYNC_WAL") => Durability::FsyncWal,
        _ => Durability::SyncWal,
    };
    let batch: u64 = std::env::var(BATCH_ENV)
        .ok()
        .and_then(|b| b.parse().ok())
        .unwrap_or(1);
    let (region, _flusher) = open(Path::new(&dir), true);
    let start = recovered(&region).keys().next_back().map_or(0, |n| n + 1);
    let mut out = std::io::stdout().lock();
    writeln!(out, "START {start}").unwrap();
    out.flush().unwrap();
    let cells = |n: u64, row: &[u8]| {
        let value = format!("value-{n}-{}", "x".repeat(60));
        vec![
            Cell::put(row, b"a", b"q", i64::MAX, value.as_bytes()).unwrap(),
            Cell::put(row, b"b", b"q", i64::MAX, value.as_bytes()).unwrap(),
        ]
    };
    if batch == 1 {
        for n in start.. {
            let row = row_key(n);
            region.mutate_row(&row, cells(n, &row), durability).unwrap();
            writeln!(out, "ACK {n}").unwrap();
            out.flush().unwrap();
        }
    }
    for first in (start..).step_by(batch as usize) {
        let rows: Vec<Vec<u8>> = (first..first + batch).map(row_key).collect();
        let mut writes: Vec<RowWrite<'_>> = rows
            .iter()
            .zip(first..)
            .map(|(row, n)| RowWrite::new(row, cells(n, row), durability))
            .collect();
        region.mutate_rows(&mut writes);
        for (w, n) in writes.iter().zip(first..) {
            assert!(matches!(w.outcome, Some(Ok(_))), "{:?}", w.outcome);
            writeln!(out, "ACK {n}").unwrap();
        }
        out.flush().unwrap();
    }
}

fn iterations() -> u64 {
    std::env::var("REGIONKV_CRASH_ITERATIONS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20)
}

/// `batch` rows per write (1: `mutate_row`, more: `mutate_rows`).
fn run_variant(durability: &str, seed: u64, batch: u64) {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = XorShift(seed);
    let mut acked: BTreeSet<u64> = BTreeSet::new();
    let mut attempted_max = 0u64;
    for round in 0..iterations() {
        // Kill after 30..330 ms: some rounds die during open, most during writes and the
        // frequent flushes the 8 KiB flush size causes.
        let delay = 30 + rng.next_u64() % 300;
        let ChildRun { start, acks } = run_and_kill_child(
            "crash_child",
            &[
                (CHILD_ENV, dir.path().display().to_string()),
                (DURABILITY_ENV, durability.to_string()),
                (BATCH_ENV, batch.to_string()),
            ],
            Duration::from_millis(delay),
        );
        let last_round_ack = acks.last().copied();
        let acks_first = acks.first().copied();
        let acks_len = acks.len();
        if let Some(s) = start {
            assert!(
                acked.iter().all(|n| *n < s),
                "round {round} (seed {seed}): the child restarted at {s} below an acknowledged row"
            );
        }
        // The child writes rows start, start+1, ... and acknowledges each after writing
        // it (a batch's rows after the batch), so it may have written one row (one batch)
        // past its last acknowledgement, or the first one from `start` when it died
        // before the first.
        let attempted = acks
            .last()
            .map(|n| n + batch)
            .or(start.map(|s| s + batch - 1))
            .unwrap_or(0);
        attempted_max = attempted_max.max(attempted);
        acked.extend(acks);

        let (region, _) = open(dir.path(), false);
        let rows = recovered(&region);
        drop(region);
        eprintln!(
            "{durability} round {round}: delay {delay} ms, start {start:?}, acks {:?}..={last_round_ack:?} ({}), rows up to {:?}",
            acks_first,
            acks_len,
            rows.keys().next_back()
        );
        for n in &acked {
            let fams = rows.get(n);
            assert!(
                fams.is_some_and(|f| f.len() == 2),
                "{durability} round {round} (seed {seed}): acknowledged row {n} lost ({fams:?})"
            );
        }
        // A batch is one WAL record: rows survive in whole batches, the lost ones at the end.
        if batch > 1
            && let Some(max) = rows.keys().next_back()
        {
            assert_eq!(
                (max + 1) % batch,
                0,
                "round {round} (seed {seed}): a torn batch ends at row {max}"
            );
            assert_eq!(
                rows.len() as u64,
                max + 1,
                "round {round}: rows missing below {max}"
            );
        }
        for (n, fams) in &rows {
            assert_eq!(
                fams.len(),
                2,
                "{durability} round {round} (seed {seed}): row {n} half-applied"
            );
            assert!(
                *n <= attempted_max,
                "{durability} round {round}: row {n} was never written (start {start:?}, \
                 last ack {:?}, bound {attempted_max}, rows {:?}..={:?})",
                acked.last(),
                rows.keys().next(),
                rows.keys().next_back()
            );
        }
    }
    assert!(
        acked.len() > 100,
        "the child made progress: {} acks",
        acked.len()
    );
    // The kills hit a region that flushes and compacts: many files were written over the
    // rounds (file ids only grow), and compactions kept the live count down.
    let (region, _) = open(dir.path(), false);
    let m = region.manifest();
    let live: usize = m.stores.values().map(|s| s.files.len()).sum();
    let written = m.next_file_id - 1;
    eprintln!(
        "{durability}: {} acknowledged rows, {written} storefiles written, {live} live",
        acked.len()
    );
    assert!(
        written >= 20,
        "{durability}: only {written} storefiles written"
    );
    assert!(
        (live as u64) < written / 2,
        "{durability}: compactions did not run ({live} live of {written})"
    );
}

#[test]
fn killed_writer_loses_no_acknowledged_sync_wal_write() {
    run_variant("SYNC_WAL", 0x5eed_0001, 1);
}

#[test]
fn killed_writer_loses_no_acknowledged_fsync_wal_write() {
    run_variant("FSYNC_WAL", 0x5eed_0002, 1);
}

#[test]
fn killed_batch_writer_loses_no_acknowledged_batch_and_tears_none() {
    run_variant("SYNC_WAL", 0x5eed_0003, 50);
}
