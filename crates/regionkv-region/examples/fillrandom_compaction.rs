//! fillrandom through one region with background flushes and compactions, reporting
//! compaction throughput and write amplification (bytes written to the WAL, by flushes
//! and by compactions, over the bytes of user data), plus the process's own disk writes
//! from `/proc/self/io`.
//!
//! Run: `cargo run --release -p regionkv-region --example fillrandom_compaction -- [CELLS] [FLUSH_MIB]`
//! (defaults: 1,000,000 cells, 128 MiB = HBase's default flush size). Keys are 16 bytes,
//! values 100 bytes (half compressible), written in random order with SYNC_WAL.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use regionkv_cell::{Cell, SharedClock, SystemClock};
use regionkv_fs::{Fs, RealFs};
use regionkv_region::Durability;
use regionkv_region::{
    ColumnFamilyDescriptor, GlobalMemStore, RecoveredWal, Region, RegionInfo, RegionServices,
    TableDescriptor, recover_wal,
};
use regionkv_regionserver::{CompactSplit, MemStoreFlusher, RegionServerWorkers};
use regionkv_wal::{RecoveryMode, WalConfig};
use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;
use std::time::Instant;

fn proc_write_bytes() -> u64 {
    std::fs::read_to_string("/proc/self/io")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| {
                    l.strip_prefix("write_bytes: ")
                        .map(|v| v.trim().parse().ok())
                })
                .flatten()
        })
        .unwrap_or(0)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let cells: u64 = args
        .get(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000);
    let flush_mib: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(128);
    let dir = tempfile::tempdir().unwrap();
    let fs: Arc<dyn Fs> = Arc::new(RealFs::new());
    let RecoveredWal { wal, .. } = recover_wal(
        fs.clone(),
        &dir.path().join("wal"),
        WalConfig::default(),
        RecoveryMode::TolerateCorruptedTail,
    )
    .unwrap();
    let global = Arc::new(GlobalMemStore::new(4 << 30, 0.95));
    let flusher = MemStoreFlusher::start(2, global.clone());
    let compact_split = CompactSplit::start(1, 1);
    let services = RegionServices {
        server: Some(Arc::new(RegionServerWorkers {
            flusher: Some(flusher.clone()),
            compact_split: Some(compact_split.clone()),
        })),
        global,
        ..RegionServices::new(fs, wal.clone(), Arc::new(SystemClock) as SharedClock)
    };
    let mut table =
        TableDescriptor::new("fill", vec![ColumnFamilyDescriptor::new(b"f").unwrap()]).unwrap();
    table.memstore_flush_size = flush_mib << 20;
    let info = RegionInfo::whole_table("fill", 1);
    let region = Region::create(&dir.path().join("region"), info, table, services).unwrap();
    let io_before = proc_write_bytes();
    let start = Instant::now();
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut user_bytes = 0u64;
    for i in 0..cells {
        // A bijective scramble of i: every key once, in random order.
        let k = i.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(17) ^ 0x5bd1_e995;
        let row = format!("{:016x}", k).into_bytes();
        let mut value = Vec::with_capacity(100);
        while value.len() < 50 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            value.extend_from_slice(&x.to_be_bytes());
        }
        value.truncate(50);
        value.resize(100, b'v');
        user_bytes += (row.len() + value.len()) as u64;
        let c = Cell::put(&row, b"f", b"q", i64::MAX, &value).unwrap();
        region
            .mutate_row(&row, vec![c], Durability::SyncWal)
            .unwrap();
    }
    let load = start.elapsed();
    region.flush_all().unwrap();
    flusher.wait_idle();
    compact_split.wait_idle();
    let before_major = Instant::now();
    region.major_compact().unwrap();
    let major = before_major.elapsed();
    wal.sync().unwrap();
    let total = start.elapsed();
    let io = proc_write_bytes() - io_before;
    let m = region.metrics();
    let store = &region.stores()[&b"f"[..]];
    let flushed = store.metrics().flushed_bytes.load(Relaxed);
    let wal_bytes = wal.stats().bytes;
    let c_in = m.compacted_bytes_in.load(Relaxed);
    let c_out = m.compacted_bytes_out.load(Relaxed);
    let c_secs = m.compaction_micros.load(Relaxed) as f64 / 1e6;
    let live: u64 = region.manifest().stores[&b"f"[..]]
        .files
        .iter()
        .map(|f| f.size)
        .sum();
    let mb = |b: u64| b as f64 / 1e6;
    println!(
        "cells {cells}, flush size {flush_mib} MiB, user data {:.1} MB",
        mb(user_bytes)
    );
    println!(
        "load {:.2} s ({:.0} puts/s); total incl. final flush + major {:.2} s",
        load.as_secs_f64(),
        cells as f64 / load.as_secs_f64(),
        total.as_secs_f64()
    );
    println!(
        "flushes {}, flushed {:.1} MB",
        m.flushes.load(Relaxed),
        mb(flushed)
    );
    println!(
        "compactions {} (incl. final major {:.2} s): read {:.1} MB, wrote {:.1} MB in {:.2} s = {:.0} MB/s read",
        m.compactions.load(Relaxed),
        major.as_secs_f64(),
        mb(c_in),
        mb(c_out),
        c_secs,
        mb(c_in) / c_secs.max(1e-9)
    );
    println!("WAL {:.1} MB", mb(wal_bytes));
    println!(
        "write amplification (WAL + flush + compaction) / user = {:.2}",
        (wal_bytes + flushed + c_out) as f64 / user_bytes as f64
    );
    println!(
        "write amplification from /proc/self/io write_bytes = {:.2}",
        io as f64 / user_bytes as f64
    );
    println!(
        "space after major compaction: {:.1} MB on disk = {:.2} × user data",
        mb(live),
        live as f64 / user_bytes as f64
    );
    flusher.shutdown();
    compact_split.shutdown();
}
