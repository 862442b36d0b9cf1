//! Measures group commit on a real disk: appends per second and appends per `fdatasync`
//! for 1, 2 and 4 threads appending small edits with FSYNC_WAL (and SYNC_WAL for reference).
//!
//! ```text
//! cargo run --release -p regionkv-wal --example wal_group_commit [-- SECONDS [DIR]]
//! ```
//!
//! DIR defaults to a temporary directory under `$TMPDIR`; point it at the disk you care
//! about (tmpfs makes `fdatasync` free).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use regionkv_cell::Cell;
use regionkv_fs::{Fs, RealFs};
use regionkv_wal::{SyncMode, Wal, WalConfig, WalEdit, WalKey};

fn run(dir: &Path, threads: usize, mode: SyncMode, seconds: f64) {
    let wal = Arc::new(Wal::open(Arc::new(RealFs::new()), dir, WalConfig::default()).unwrap());
    let stop = Arc::new(AtomicBool::new(false));
    let done = Arc::new(AtomicU64::new(0));
    let start = Instant::now();
    let handles: Vec<_> = (0..threads)
        .map(|t| {
            let (wal, stop, done) = (Arc::clone(&wal), Arc::clone(&stop), Arc::clone(&done));
            std::thread::spawn(move || {
                let mut seq = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    seq += 1;
                    let row = format!("user{t:02}{seq:010}");
                    let cell = Cell::put(row.as_bytes(), b"cf", b"q", 1, &[b'x'; 100])
                        .unwrap()
                        .with_seq_id(seq);
                    let edit = WalEdit::new(
                        WalKey {
                            region: format!("region-{t}").into_bytes(),
                            table: "usertable".into(),
                            seq_id: seq,
                            write_time: 1,
                        },
                        vec![cell],
                    );
                    wal.append(&edit, mode).unwrap();
                    done.fetch_add(1, Ordering::Relaxed);
                }
            })
        })
        .collect();
    std::thread::sleep(Duration::from_secs_f64(seconds));
    stop.store(true, Ordering::Relaxed);
    for h in handles {
        h.join().unwrap();
    }
    let elapsed = start.elapsed().as_secs_f64();
    let stats = wal.stats();
    let n = done.load(Ordering::Relaxed);
    println!(
        "{:<9} threads={threads}  appends/s={:>8.0}  appends={:>7}  syncs={:>6}  appends/sync={:>5.2}  writes={:>6}  handoffs={:>6}",
        mode.name(),
        n as f64 / elapsed,
        stats.appends,
        stats.syncs,
        stats.appends as f64 / stats.syncs.max(1) as f64,
        stats.writes,
        stats.handoffs,
    );
    Arc::into_inner(wal).unwrap().close().unwrap();
}

fn main() {
    let mut args = std::env::args().skip(1);
    let seconds: f64 = args.next().map_or(3.0, |s| s.parse().expect("SECONDS"));
    let tmp = tempfile::tempdir().unwrap();
    let base = args
        .next()
        .map_or_else(|| tmp.path().to_path_buf(), Into::into);
    println!("WAL directory under {}", base.display());
    let mut case = 0;
    for (mode, threads) in [
        (SyncMode::Fsync, 1),
        (SyncMode::Fsync, 2),
        (SyncMode::Fsync, 4),
        (SyncMode::Sync, 1),
        (SyncMode::Sync, 2),
    ] {
        case += 1;
        let dir = base.join(format!("wal-bench-{case}"));
        run(&dir, threads, mode, seconds);
        RealFs::new().remove_dir_all(&dir).unwrap();
    }
}
