//! Cost of a full scan of one storefile: `seek_to_first`, then `peek` + `advance` over
//! every cell until `peek()` is `None`, summing key and value lengths so every cell is
//! really visited. The file holds 1M cells (rows `format!("{i:016}")`, family `f`,
//! qualifier `q`, 100-byte values half random, half repeated: about 138 MB of cell data)
//! on `RealFs` in mmap mode. Cases:
//!
//! - `none/mmap_nocache`: COMPRESSION `NONE`, no cache: data blocks are served zero-copy
//!   from the mapping (checksums verified on first touch, so after the first scan this is
//!   the pure decode path);
//! - `lz4/cache64m`: COMPRESSION `LZ4` with a 64 MiB `StoreFileBlockCache`, smaller than
//!   the decoded data, so every scan decompresses each block and churns the cache;
//! - `lz4/cache512m`: the same file with a 512 MiB cache that holds every decoded block
//!   after the first scan (warm cache, no decompression).
//!
//! Throughput is bytes of cell data (encoded key + value) per second; the target for the
//! uncompressed case is well over 1 GB/s.
//!
//! Run: `cargo bench --bench storefile_scan` (the short run recorded in
//! `docs/benchmarks.md`: `cargo bench --bench storefile_scan -- --warm-up-time 1
//! --measurement-time 3`)

#![allow(clippy::expect_used)]
#![expect(
    missing_docs,
    reason = "criterion_group! generates an undocumented function"
)]

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use regionkv_cell::{Cell, KeyValueScanner};
use regionkv_fs::{Fs, RealFs};
use regionkv_storefile::{
    Compression, StoreFileBlockCache, StoreFileReader, StoreFileScanner, StoreFileWriter,
    StoreFileWriterOptions,
};
use regionkv_suite::{XorShift, row, value};
use std::hint::black_box;
use std::path::Path;
use std::sync::Arc;

const CELLS: u64 = 1_000_000;

/// Writes the file; returns its bytes of cell data (encoded key + value).
fn write_file(fs: &RealFs, path: &Path, compression: Compression) -> u64 {
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
    let options = StoreFileWriterOptions {
        compression,
        ..StoreFileWriterOptions::default()
    };
    let file = fs.create_new(path).expect("create the storefile");
    let mut w = StoreFileWriter::new(file, options).expect("default options are valid");
    let mut bytes = 0;
    for i in 0..CELLS {
        let cell = Cell::put(&row(i), b"f", b"q", 1, &value(&mut rng))
            .expect("a 16-byte row is within HBase's limits")
            .with_seq_id(i + 1);
        bytes += (cell.key_bytes().len() + cell.value().len()) as u64;
        w.append(cell.as_cell_ref())
            .expect("cells are in key order");
    }
    w.finish().expect("finish the storefile");
    bytes
}

/// Scans the whole file; returns (cells, key + value bytes) seen.
fn scan(reader: &Arc<StoreFileReader>) -> (u64, u64) {
    let mut scanner = StoreFileScanner::new(Arc::clone(reader));
    scanner
        .seek_to_first()
        .expect("seek_to_first in a valid storefile");
    let (mut cells, mut bytes) = (0u64, 0u64);
    while let Some(cell) = scanner.peek() {
        cells += 1;
        bytes += (cell.key_bytes().len() + cell.value().len()) as u64;
        scanner.advance().expect("advance in a valid storefile");
    }
    (cells, bytes)
}

fn bench_scan(c: &mut Criterion) {
    let dir = tempfile::TempDir::new().expect("a temporary directory");
    let fs = RealFs::new();
    let plain = dir.path().join("none");
    let lz4 = dir.path().join("lz4");
    let data_bytes = write_file(&fs, &plain, Compression::None);
    assert_eq!(write_file(&fs, &lz4, Compression::Lz4), data_bytes);

    let cases = [
        ("none", "mmap_nocache", &plain, None),
        ("lz4", "cache64m", &lz4, Some(64u64 << 20)),
        ("lz4", "cache512m", &lz4, Some(512u64 << 20)),
    ];
    let mut g = c.benchmark_group("storefile_scan_1m");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(data_bytes));
    for (file_id, (compression, mode, path, cache_bytes)) in (1u64..).zip(cases) {
        let cache = cache_bytes.map(|b| Arc::new(StoreFileBlockCache::new(b)));
        let reader = Arc::new(
            StoreFileReader::open(&fs, path, file_id, cache.clone(), Default::default())
                .expect("open the storefile"),
        );
        // One untimed scan: checks the result, verifies checksums and warms what can be warmed.
        assert_eq!(scan(&reader), (CELLS, data_bytes));
        g.bench_function(BenchmarkId::new(compression, mode), |b| {
            b.iter(|| black_box(scan(&reader)))
        });
        if let Some(cache) = cache {
            let s = cache.stats();
            println!(
                "{compression}/{mode}: block cache {} hits, {} misses, {} evicted blocks, {} bytes cached",
                s.hits, s.misses, s.evicted_blocks, s.size_bytes
            );
        }
    }
    g.finish();
}

criterion_group!(benches, bench_scan);
criterion_main!(benches);
