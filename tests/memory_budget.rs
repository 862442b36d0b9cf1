//! Memory outside the budget (issue 24, point 6). The bug: every store holding unflushed
//! data pinned a 2 MiB arena chunk that the Db-wide memstore budget did not count, since the
//! budget summed cell bytes only. The symptom: 1,000 families with one cell each took 2 GB
//! of anonymous RSS and 500 pre-split regions with 1 MB of data 1 GB, whatever the budget.
//! The fix: the budget counts what the memstores hold (chunks at their full length, index
//! entries, own buffers; `crates/regionkv-region/src/services.rs`), and a store's first
//! chunk is 4 KiB, doubling up to 2 MiB as it fills (`crates/regionkv-memstore/src/lab.rs`),
//! so that small stores are cheap and need no flush.
//!
//! Each case runs in a child process, so that its peak RSS is its own. This test binary
//! uses mimalloc, the allocator the `regionkv` binary links: it backs large blocks with
//! transparent huge pages, so one byte written into a 2 MiB chunk makes all of it resident
//! (as a kernel with THP set to `always` does for glibc's malloc). Under glibc with THP
//! `madvise` or `never` the untouched pages of a chunk stay out of RSS and these bounds
//! could not see the bug; each run prints a probe saying which it was, and the accounting
//! itself is checked without RSS in `crates/regionkv-region/tests/global_memstore.rs`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use regionkv::{ColumnFamilyDescriptor, Db, DbOptions, Put, TableDescriptor};
use regionkv_suite::status_kib;
use std::process::Command;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const CHILD_ENV: &str = "MEMORY_BUDGET_CHILD";
const DIR_ENV: &str = "MEMORY_BUDGET_DIR";
const MIB: u64 = 1 << 20;
/// The Db-wide memstore budget of every case: modest, and far above what the cases write.
const GLOBAL: u64 = 32 * MIB;

/// What a child measured.
#[derive(Debug)]
struct Measured {
    /// Anonymous RSS once the table exists, before any write (KiB).
    baseline: u64,
    /// Its peak while writing (KiB).
    peak: u64,
    /// After the writes (KiB).
    after: u64,
    /// Stores that hold the data.
    stores: u64,
    /// Storefiles written (flushes the writes caused).
    files: u64,
    /// The memstores' data and heap sizes as the Db reports them, summed (bytes).
    data: u64,
    heap: u64,
}

impl Measured {
    /// Anonymous memory the writes added, per store, in bytes.
    fn per_store(&self) -> u64 {
        (self.after.saturating_sub(self.baseline) * 1024) / self.stores
    }
}

/// The child: one table under a budget of [`GLOBAL`] whose stores each get a little
/// unflushed data. `MEMORY_BUDGET_CASE` is `families:N` (one region of N families, one
/// small cell in each) or `regions:N:BYTES` (N pre-split regions of one family, BYTES of
/// 500-byte values dealt round-robin over them). Prints a `MEMORY` line.
#[test]
fn many_stores_child() {
    if std::env::var(CHILD_ENV).as_deref() != Ok("stores") {
        return;
    }
    let dir = std::env::var(DIR_ENV).unwrap();
    let case = std::env::var("MEMORY_BUDGET_CASE").unwrap();
    let parts: Vec<&str> = case.split(':').collect();
    let n: usize = parts[1].parse().unwrap();
    let options = DbOptions {
        global_memstore_bytes: GLOBAL,
        block_cache_bytes: 0,
        ..DbOptions::default().background(true)
    };
    let db = Db::open(&dir, options).unwrap();
    let (families, splits): (Vec<Vec<u8>>, Vec<Vec<u8>>) = match parts[0] {
        "families" => (
            (0..n).map(|i| format!("f{i:04}").into_bytes()).collect(),
            vec![],
        ),
        "regions" => (
            vec![b"cf".to_vec()],
            (1..n).map(|i| format!("{i:04}").into_bytes()).collect(),
        ),
        other => panic!("unknown case {other}"),
    };
    let desc = TableDescriptor::new(
        "t",
        families
            .iter()
            .map(|f| ColumnFamilyDescriptor::new(f).unwrap())
            .collect(),
    )
    .unwrap();
    db.admin().create_table_with_splits(&desc, splits).unwrap();
    let t = db.table("t").unwrap();
    let baseline = status_kib("RssAnon:");
    let mut peak = baseline;
    let mut sample = |i: usize| {
        if i.is_multiple_of(16) {
            peak = peak.max(status_kib("RssAnon:"));
        }
    };
    if parts[0] == "families" {
        for (i, f) in families.iter().enumerate() {
            t.put(&Put::new(format!("r{i:04}")).add_column(f, b"q", b"v"))
                .unwrap();
            sample(i);
        }
    } else {
        let bytes: usize = parts[2].parse().unwrap();
        let value = vec![b'v'; 500];
        for i in 0..bytes / value.len() {
            let row = format!("{:04}-{i:07}", i % n);
            t.put(&Put::new(row).add_column(b"cf", b"q", value.clone()))
                .unwrap();
            sample(i);
        }
    }
    db.wait_for_background_work();
    let after = status_kib("RssAnon:");
    let peak = peak.max(after);
    let regions = db.admin().regions("t").unwrap();
    let stores = regions.iter().map(|r| r.stores.len() as u64).sum::<u64>();
    let files = regions.iter().map(|r| r.store_files as u64).sum::<u64>();
    let data = regions.iter().map(|r| r.memstore_bytes).sum::<u64>();
    let heap = regions.iter().map(|r| r.memstore_heap_bytes).sum::<u64>();
    println!(
        "MEMORY baseline={baseline} peak={peak} after={after} stores={stores} files={files} \
         data={data} heap={heap}"
    );
}

/// The child of the probe: 64 blocks of 2 MiB with one byte written into each; prints how
/// much anonymous RSS that added, which tells whether RSS here sees whole chunks.
#[test]
fn huge_page_probe_child() {
    if std::env::var(CHILD_ENV).as_deref() != Ok("probe") {
        return;
    }
    let before = status_kib("RssAnon:");
    let blocks: Vec<Vec<u8>> = (0..64)
        .map(|_| {
            let mut block = Vec::with_capacity(2 * MIB as usize);
            block.push(1u8);
            block
        })
        .collect();
    let after = status_kib("RssAnon:");
    assert_eq!(blocks.iter().map(Vec::len).sum::<usize>(), 64);
    println!("PROBE kib={}", after.saturating_sub(before));
}

/// A directory for a child's Db: on tmpfs when there is one. Creating the table syncs 1,000
/// store directories or 500 region manifests, which takes seconds on a busy disk and
/// nothing in memory; tmpfs pages count as shared memory, not in `RssAnon`.
fn data_dir() -> tempfile::TempDir {
    tempfile::tempdir_in("/dev/shm")
        .or_else(|_| tempfile::tempdir())
        .unwrap()
}

fn run_child(mode: &str, case: &str) -> String {
    let dir = data_dir();
    let test = if mode == "probe" {
        "huge_page_probe_child"
    } else {
        "many_stores_child"
    };
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", test, "--nocapture", "--test-threads=1"])
        .env(CHILD_ENV, mode)
        .env(DIR_ENV, dir.path())
        .env("MEMORY_BUDGET_CASE", case)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "child {case} failed: {stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

fn field(line: &str, name: &str) -> u64 {
    line.split_whitespace()
        .find_map(|f| f.strip_prefix(name)?.strip_prefix('='))
        .unwrap_or_else(|| panic!("no {name} in {line}"))
        .parse()
        .unwrap()
}

/// Runs the probe and says what it means for the bounds.
fn probe() -> &'static str {
    let out = run_child("probe", "");
    let line = out.lines().find_map(|l| l.split("PROBE ").nth(1)).unwrap();
    // 64 blocks × 2 MiB = 131,072 KiB when each is resident whole.
    if field(line, "kib") >= 100 * 1024 {
        "RSS counts a 2 MiB block whole once one byte is written (huge pages)"
    } else {
        "RSS counts only written pages here (no huge pages): the RSS bounds cannot see whole chunks"
    }
}

fn measure(case: &str) -> Measured {
    let out = run_child("stores", case);
    let line = out
        .lines()
        .find_map(|l| l.split("MEMORY ").nth(1))
        .unwrap_or_else(|| panic!("{out}"));
    Measured {
        baseline: field(line, "baseline"),
        peak: field(line, "peak"),
        after: field(line, "after"),
        stores: field(line, "stores"),
        files: field(line, "files"),
        data: field(line, "data"),
        heap: field(line, "heap"),
    }
}

/// The bounds both cases must meet, derived from the budget: the writes may add no more
/// anonymous memory than the budget itself (a store's memory is counted by the budget, and
/// what these cases write is a fraction of it), and since they write far less than the
/// budget, no flush was needed, and each store costs a few KiB.
fn check(case: &str, m: &Measured) {
    println!(
        "{case}: anonymous RSS {} MiB before the writes, peak {} MiB, after {} MiB: {} bytes \
         per store; the memstores hold {} bytes of cells in {} bytes of memory \
         ({} bytes per store), {} storefiles written; {}",
        m.baseline / 1024,
        m.peak / 1024,
        m.after / 1024,
        m.per_store(),
        m.data,
        m.heap,
        m.heap / m.stores,
        m.files,
        probe()
    );
    let grown = (m.peak - m.baseline) * 1024;
    assert!(
        grown <= GLOBAL,
        "{case}: the writes added {} MiB of anonymous memory under a budget of {} MiB: {m:?}",
        grown / MIB,
        GLOBAL / MIB
    );
    assert!(m.heap <= GLOBAL, "{case}: {m:?}");
    assert_eq!(m.files, 0, "{case}: small stores needed a flush: {m:?}");
    assert!(
        m.per_store() <= 16 * 1024,
        "{case}: {} bytes per store: {m:?}",
        m.per_store()
    );
}

#[test]
fn a_thousand_families_with_one_cell_each_stay_small_and_within_the_budget() {
    let case = "families:1000";
    check(case, &measure(case));
}

#[test]
fn five_hundred_pre_split_regions_with_one_megabyte_stay_small_and_within_the_budget() {
    let case = "regions:500:1048576";
    check(case, &measure(case));
}
