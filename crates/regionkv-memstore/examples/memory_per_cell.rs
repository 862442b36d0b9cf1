//! Memory per cell of a memstore: inserts 1,000,000 cells (16-byte row, family `cf`,
//! qualifier `q`, 100-byte value) and reports the growth of the process's resident memory
//! (`VmRSS` in `/proc/self/status`) divided by the cell count, with MSLAB on and off, next
//! to the `heap_size` the memstore accounted and the "raw" size of a cell (row + value +
//! family + qualifier + timestamp 8 + type 1). Each mode runs in a child process of its own,
//! so that memory freed by one mode cannot be reused by the next and hide its growth.
//! It also reports the CPU time (from `/proc/thread-self/schedstat`, so that other load on
//! the machine does not inflate it) of the inserts, per cell, and of dropping the memstore.
//!
//! Run: `cargo run --release -p regionkv-memstore --example memory_per_cell`
//! (one mode: append `-- child mslab` or `-- child no-mslab`).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use regionkv_cell::key::encode_key_into;
use regionkv_cell::{CellRef, CellType};
use regionkv_memstore::{MemStore, MemStoreConfig, MemStoreSize};
use std::process::Command;
use std::time::Instant;

const CELLS: u64 = 1_000_000;
const FAMILY: &[u8] = b"cf";
const QUALIFIER: &[u8] = b"q";
const VALUE_LEN: usize = 100;
/// Row + value + family + qualifier + timestamp + type byte.
const RAW_BYTES: u64 = 16 + VALUE_LEN as u64 + 2 + 1 + 8 + 1;

/// splitmix64's finaliser: a bijection on u64, so distinct `i` give distinct rows, in an
/// order with no relation to `i` (inserts land all over the skiplist, as with hashed keys).
fn mix(i: u64) -> u64 {
    let mut z = i.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn row(i: u64) -> [u8; 16] {
    let mut row = [0u8; 16];
    let hex = b"0123456789abcdef";
    let mut v = mix(i);
    for b in row.iter_mut().rev() {
        *b = hex[(v & 0xf) as usize];
        v >>= 4;
    }
    row
}

/// Nanoseconds this thread has run on a CPU.
fn cpu_ns() -> u64 {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").unwrap();
    stat.split_whitespace().next().unwrap().parse().unwrap()
}

fn vm_rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

fn measure(mode: &str) {
    let config = match mode {
        "mslab" => MemStoreConfig::default(),
        "no-mslab" => MemStoreConfig {
            mslab_enabled: false,
            ..MemStoreConfig::default()
        },
        other => panic!("unknown mode {other}"),
    };
    let mut key = Vec::with_capacity(64);
    let mut value = [0u8; VALUE_LEN];
    let memstore = MemStore::new(config);
    let before = vm_rss_kib();
    let cpu_before = cpu_ns();
    let mut reported = MemStoreSize::default();
    for i in 0..CELLS {
        key.clear();
        encode_key_into(
            &mut key,
            &row(i),
            FAMILY,
            QUALIFIER,
            1_700_000_000_000,
            CellType::Put,
            i + 1,
        )
        .unwrap();
        value[..8].copy_from_slice(&mix(!i).to_le_bytes());
        reported += memstore.add(CellRef::parse(&key, &value).unwrap());
    }
    let insert_cpu_ns = cpu_ns() - cpu_before;
    let after = vm_rss_kib();
    assert_eq!(reported, memstore.size());
    let growth = (after - before) * 1024;
    let started = Instant::now();
    let cpu_before_drop = cpu_ns();
    drop(memstore);
    let drop_cpu_ms = (cpu_ns() - cpu_before_drop) as f64 / 1e6;
    let drop_ms = started.elapsed().as_secs_f64() * 1e3;
    let after_drop = vm_rss_kib();
    let per_cell = growth as f64 / CELLS as f64;
    println!(
        "| {mode:<8} | {:.1} | {:.1} | {:.1} | {:.2}x | {:.1} | {:.1} | {:.0} | {:.0} ({:.0} wall) |",
        reported.data_size as f64 / CELLS as f64,
        reported.heap_size as f64 / CELLS as f64,
        per_cell,
        per_cell / RAW_BYTES as f64,
        (after - before) as f64 / 1024.0,
        after_drop.saturating_sub(before) as f64 / 1024.0,
        insert_cpu_ns as f64 / CELLS as f64,
        drop_cpu_ms,
        drop_ms,
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let [_, child, mode] = args.as_slice()
        && child == "child"
    {
        measure(mode);
        return;
    }
    println!(
        "{CELLS} cells: 16-byte row, family cf, qualifier q, {VALUE_LEN}-byte value; raw = {RAW_BYTES} bytes/cell"
    );
    println!(
        "| mode | data/cell (B) | heap/cell (B) | RSS/cell (B) | RSS/raw | RSS growth (MiB) | RSS still held after drop (MiB) | insert CPU/cell (ns) | drop CPU (ms) |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    let exe = std::env::current_exe().unwrap();
    for mode in ["mslab", "no-mslab"] {
        let status = Command::new(&exe).args(["child", mode]).status().unwrap();
        assert!(status.success(), "{mode} failed");
    }
}
