//! Region reads through the full read path (store scanners, query matcher, merging heap):
//! a Get of one row served from the memstore, from one cached storefile, and from five
//! storefiles; a scan of 100k rows; and the cost of 10 stored versions per cell versus 1.
//! Rows are 16-byte keys, one family, one 100-byte value per row; files live on `RealFs`
//! (mmap) with a 64 MiB block cache; writes use SKIP_WAL (this measures reads).
//!
//! Run: `cargo bench --bench region_read -- --warm-up-time 1 --measurement-time 3`

#![expect(
    missing_docs,
    reason = "criterion_group! generates an undocumented function"
)]
#![allow(clippy::expect_used)]

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use regionkv_cell::{Cell, ManualClock, SharedClock};
use regionkv_fs::{Fs, RealFs};
use regionkv_region::Durability;
use regionkv_region::{
    ColumnFamilyDescriptor, GlobalMemStore, ReadQuery, RecoveredWal, Region, RegionInfo,
    RegionScan, RegionServices, TableDescriptor, recover_wal,
};
use regionkv_storefile::StoreFileBlockCache;
use regionkv_suite::{XorShift, row, value};
use regionkv_wal::{RecoveryMode, WalConfig};
use std::hint::black_box;
use std::sync::Arc;

const ROWS: u64 = 100_000;

/// A region in a fresh temp dir; the dir lives as long as the returned guard.
fn region(versions: u32) -> (tempfile::TempDir, Arc<Region>) {
    let dir = tempfile::tempdir().expect("tempdir");
    let fs: Arc<dyn Fs> = Arc::new(RealFs::new());
    let RecoveredWal { wal, .. } = recover_wal(
        fs.clone(),
        &dir.path().join("wal"),
        WalConfig::default(),
        RecoveryMode::TolerateCorruptedTail,
    )
    .expect("wal");
    let services = RegionServices {
        block_cache: Some(Arc::new(StoreFileBlockCache::new(64 << 20))),
        global: Arc::new(GlobalMemStore::new(1 << 34, 0.95)),
        ..RegionServices::new(
            fs,
            wal,
            Arc::new(ManualClock::new(1_000_000)) as SharedClock,
        )
    };
    let mut family = ColumnFamilyDescriptor::new(b"f").expect("family");
    family.max_versions = versions;
    let mut table = TableDescriptor::new("bench", vec![family]).expect("table");
    table.memstore_flush_size = 1 << 34;
    let info = RegionInfo::whole_table("bench", 1);
    let r = Region::create(&dir.path().join("region"), info, table, services).expect("region");
    (dir, r)
}

/// Writes rows `i` with `i % files == part` for each part, flushing after each part when
/// `flush` is set: `files` storefiles that each span the whole key range.
fn load(r: &Arc<Region>, files: u64, flush: bool, versions: i64) {
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
    for part in 0..files {
        for i in (0..ROWS).filter(|i| i % files == part) {
            let cells = (0..versions)
                .map(|ts| Cell::put(&row(i), b"f", b"q", ts + 1, &value(&mut rng)).expect("cell"))
                .collect();
            r.mutate_row(&row(i), cells, Durability::SkipWal)
                .expect("put");
        }
        if flush {
            r.flush_all().expect("flush");
        }
    }
}

fn bench_get(c: &mut Criterion) {
    let mut g = c.benchmark_group("region_get");
    g.throughput(Throughput::Elements(1));
    let cases: [(&str, u64, bool); 3] = [
        ("memstore", 1, false),
        ("1_file", 1, true),
        ("5_files", 5, true),
    ];
    for (name, files, flush) in cases {
        let (_dir, r) = region(1);
        load(&r, files, flush, 1);
        let q = ReadQuery::default();
        let mut rng = XorShift(0xD1B5_4A32_D192_ED03);
        // Warm the block cache so "cached" means cached.
        for i in 0..ROWS {
            black_box(r.get(&row(i), &q).expect("get"));
        }
        g.bench_function(BenchmarkId::new("get", name), |b| {
            b.iter(|| {
                let i = rng.next_u64() % ROWS;
                let cells = r.get(&row(i), &q).expect("get");
                assert_eq!(cells.len(), 1);
                cells
            })
        });
    }
    g.finish();
}

fn bench_scan(c: &mut Criterion) {
    let mut g = c.benchmark_group("region_scan");
    g.sample_size(10);
    g.throughput(Throughput::Elements(ROWS));
    let (_dir, r) = region(1);
    load(&r, 1, true, 1);
    g.bench_function("scan_100k_rows", |b| {
        b.iter(|| {
            let n = r.scan(&RegionScan::all()).expect("scan").count();
            assert_eq!(n as u64, ROWS);
        })
    });
    g.finish();
}

fn bench_versions(c: &mut Criterion) {
    let mut g = c.benchmark_group("region_versions");
    g.throughput(Throughput::Elements(1));
    for versions in [1i64, 10] {
        let (_dir, r) = region(10);
        load(&r, 1, true, versions);
        let q = ReadQuery::default();
        let mut rng = XorShift(0x2545_F491_4F6C_DD1D);
        for i in 0..ROWS {
            black_box(r.get(&row(i), &q).expect("get"));
        }
        g.bench_function(
            BenchmarkId::new("get_newest", format!("{versions}_stored")),
            |b| b.iter(|| r.get(&row(rng.next_u64() % ROWS), &q).expect("get")),
        );
        let all = ReadQuery::default().versions(10);
        g.bench_function(
            BenchmarkId::new("get_all_versions", format!("{versions}_stored")),
            |b| b.iter(|| r.get(&row(rng.next_u64() % ROWS), &all).expect("get")),
        );
    }
    g.finish();
}

criterion_group!(benches, bench_get, bench_scan, bench_versions);
criterion_main!(benches);
