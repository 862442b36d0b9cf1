//! Memstore inserts with the MSLAB arena on and off: 1,000,000 cells (16-byte row, family
//! `cf`, qualifier `q`, 100-byte value) in hashed-key order, from 1 and from 2 threads, into
//! a fresh memstore; with MSLAB on also with a chunk pool that already holds the chunks
//! (the steady state after the first flush). Then, on the same cells, a full scan (cache
//! locality) and dropping the memstore (bulk free at flush).
//!
//! Run: `cargo bench --bench memstore_insert`
//! (one group: append `-- memstore_insert_1m`, `-- memstore_scan_1m` or `-- memstore_drop_1m`).

#![expect(
    missing_docs,
    reason = "criterion_group! generates an undocumented function"
)]

use criterion::{BatchSize, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use regionkv_cell::{Cell, KeyValueScanner};
use regionkv_memstore::{ChunkPool, MemStore, MemStoreConfig};
use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;

const CELLS: usize = 1_000_000;

/// splitmix64's finaliser: a bijection on u64, so rows are distinct and in no order.
fn mix(i: u64) -> u64 {
    let mut z = i.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn cells() -> Vec<Cell> {
    (0..CELLS as u64)
        .map(|i| {
            let row = format!("{:016x}", mix(i));
            let mut value = [0u8; 100];
            value[..8].copy_from_slice(&mix(!i).to_le_bytes());
            // Invariant: the row and family are within HBase's limits.
            #[allow(clippy::unwrap_used)]
            Cell::put(row.as_bytes(), b"cf", b"q", 1_700_000_000_000, &value)
                .unwrap()
                .with_seq_id(i + 1)
        })
        .collect()
}

fn mslab() -> MemStoreConfig {
    MemStoreConfig::default()
}

fn no_mslab() -> MemStoreConfig {
    MemStoreConfig {
        mslab_enabled: false,
        ..MemStoreConfig::default()
    }
}

fn insert(memstore: &MemStore, cells: &[Cell], threads: usize) {
    if threads == 1 {
        for c in cells {
            memstore.add(c.as_cell_ref());
        }
        return;
    }
    std::thread::scope(|s| {
        for part in cells.chunks(cells.len().div_ceil(threads)) {
            s.spawn(move || {
                for c in part {
                    memstore.add(c.as_cell_ref());
                }
            });
        }
    });
}

fn bench_insert(c: &mut Criterion) {
    let cells = cells();
    // 1M records of ~141 bytes fill ~68 chunks of 2 MiB; room for all of them.
    let pool = ChunkPool::new(regionkv_memstore::lab::DEFAULT_CHUNK_SIZE, 128);
    let pooled = MemStoreConfig {
        pool: Some(Arc::clone(&pool)),
        ..MemStoreConfig::default()
    };
    let mut group = c.benchmark_group("memstore_insert_1m");
    group.throughput(Throughput::Elements(CELLS as u64));
    group.sample_size(10);
    group.warm_up_time(Duration::from_secs(2));
    group.measurement_time(Duration::from_secs(15));
    let configs = [
        ("mslab", mslab()),
        ("no_mslab", no_mslab()),
        ("mslab_pooled", pooled),
    ];
    for (name, config) in &configs {
        for threads in [1, 2] {
            group.bench_with_input(
                BenchmarkId::new(*name, format!("{threads}_threads")),
                &threads,
                |b, &threads| {
                    // The memstore is returned so criterion drops it outside the timing
                    // (with a pool, that drop is what refills the pool).
                    b.iter_batched(
                        || MemStore::new(config.clone()),
                        |memstore| {
                            insert(&memstore, &cells, threads);
                            memstore
                        },
                        BatchSize::PerIteration,
                    );
                },
            );
        }
    }
    group.finish();
}

fn bench_scan(c: &mut Criterion) {
    let cells = cells();
    let mut group = c.benchmark_group("memstore_scan_1m");
    group.throughput(Throughput::Elements(CELLS as u64));
    group.sample_size(20);
    for (name, config) in [("mslab", mslab()), ("no_mslab", no_mslab())] {
        let memstore = MemStore::new(config);
        insert(&memstore, &cells, 1);
        group.bench_function(name, |b| {
            b.iter(|| {
                let mut scanner = memstore.scanners(u64::MAX).remove(0);
                let mut bytes = 0usize;
                while let Some(cell) = scanner.peek() {
                    bytes += cell.value().len() + cell.row().len();
                    let Ok(()) = scanner.advance();
                }
                black_box(bytes)
            });
        });
    }
    group.finish();
}

fn bench_drop(c: &mut Criterion) {
    let cells = cells();
    let mut group = c.benchmark_group("memstore_drop_1m");
    group.throughput(Throughput::Elements(CELLS as u64));
    group.sample_size(10);
    group.warm_up_time(Duration::from_secs(1));
    group.measurement_time(Duration::from_secs(5));
    for (name, config) in [("mslab", mslab()), ("no_mslab", no_mslab())] {
        group.bench_function(name, |b| {
            b.iter_batched(
                || {
                    let memstore = MemStore::new(config.clone());
                    insert(&memstore, &cells, 1);
                    memstore
                },
                drop,
                BatchSize::PerIteration,
            );
        });
    }
    group.finish();
}

criterion_group!(benches, bench_insert, bench_scan, bench_drop);
criterion_main!(benches);
