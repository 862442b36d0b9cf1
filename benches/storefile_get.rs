//! Cost of a point lookup of one row in one storefile, the way a Get consults a file: the
//! ROW bloom check `may_contain_row`, and when it passes, a `StoreFileScanner::seek` to
//! `OwnedKey::first_on_row(row)` and a `peek` that checks the row.
//!
//! The file holds 200k cells (rows `format!("{:016}", 2 * i)`, family `f`, qualifier `q`,
//! 100-byte values half random, half repeated; about 27 MB of cell data, so it fits the
//! 64 MiB cache), written with COMPRESSION `NONE` and with `LZ4`, and read on `RealFs` in
//! mmap mode, once with a 64 MiB `StoreFileBlockCache` and once without a cache. Cases:
//!
//! - `hit`: an existing row (picked pseudo-randomly over the whole file);
//! - `miss`: an absent row (an odd number between two stored rows) that the bloom
//!   rejects. Before measuring, the bench asserts that such a lookup touches neither the
//!   file (a counting `ReadableFile` wrapper) nor the block cache (its statistics), and
//!   prints the bloom's false-positive rate over absent rows.
//!
//! The seek keys are built up front, so key encoding is not measured. Each lookup creates
//! its own scanner (an `Arc` clone), as a Get does.
//!
//! Run: `cargo bench --bench storefile_get` (the short run recorded in
//! `docs/benchmarks.md`: `cargo bench --bench storefile_get -- --warm-up-time 1
//! --measurement-time 3`)

#![allow(clippy::expect_used)]
#![expect(
    missing_docs,
    reason = "criterion_group! generates an undocumented function"
)]

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use regionkv_cell::{Cell, KeyValueScanner, OwnedKey};
use regionkv_fs::{Fs, ReadableFile, RealFs};
use regionkv_storefile::{
    Compression, StoreFileBlockCache, StoreFileReader, StoreFileScanner, StoreFileWriter,
    StoreFileWriterOptions,
};
use regionkv_suite::{XorShift, row, value};
use std::hint::black_box;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

const ROWS: u64 = 200_000;
const LOOKUP_KEYS: usize = 4096;
const CACHE_BYTES: u64 = 64 << 20;

fn write_file(fs: &RealFs, path: &Path, compression: Compression) {
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
    let options = StoreFileWriterOptions {
        compression,
        ..StoreFileWriterOptions::default()
    };
    let file = fs.create_new(path).expect("create the storefile");
    let mut w = StoreFileWriter::new(file, options).expect("default options are valid");
    for i in 0..ROWS {
        let cell = Cell::put(&row(2 * i), b"f", b"q", 1, &value(&mut rng))
            .expect("a 16-byte row is within HBase's limits")
            .with_seq_id(i + 1);
        w.append(cell.as_cell_ref())
            .expect("cells are in key order");
    }
    w.finish().expect("finish the storefile");
}

/// One Get's worth of work on one file: bloom, then seek + peek. True if the row is there.
#[inline]
fn lookup(reader: &Arc<StoreFileReader>, row: &[u8], seek_key: &OwnedKey) -> bool {
    if !reader.may_contain_row(row) {
        return false;
    }
    let mut scanner = StoreFileScanner::new(Arc::clone(reader));
    scanner
        .seek(&seek_key.view())
        .expect("seek in a valid storefile")
        && scanner.peek().is_some_and(|c| c.row() == row)
}

/// A `ReadableFile` that counts every access, to prove a bloom-rejected lookup reads nothing.
#[derive(Debug)]
struct CountingFile {
    inner: Arc<dyn ReadableFile>,
    accesses: AtomicU64,
}

impl ReadableFile for CountingFile {
    fn len(&self) -> u64 {
        self.inner.len()
    }
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> regionkv_fs::Result<()> {
        self.accesses.fetch_add(1, Ordering::Relaxed);
        self.inner.read_at(offset, buf)
    }
    fn as_slice(&self) -> Option<&[u8]> {
        self.accesses.fetch_add(1, Ordering::Relaxed);
        self.inner.as_slice()
    }
    fn path(&self) -> &Path {
        self.inner.path()
    }
}

/// Checks the lookup results and that bloom-rejected lookups touch no block; returns the
/// absent rows (with seek keys) the bloom rejects, and prints the false-positive rate.
fn check(fs: &RealFs, path: &Path, hits: &[(Vec<u8>, OwnedKey)]) -> Vec<(Vec<u8>, OwnedKey)> {
    let counting = Arc::new(CountingFile {
        inner: fs.open_read(path).expect("open the storefile"),
        accesses: AtomicU64::new(0),
    });
    let cache = Arc::new(StoreFileBlockCache::new(CACHE_BYTES));
    let reader = Arc::new(
        StoreFileReader::from_file(counting.clone(), 1, Some(cache.clone()), Default::default())
            .expect("open the storefile"),
    );
    for (row, key) in hits {
        assert!(lookup(&reader, row, key), "row {row:?} must be found");
    }
    let mut rng = XorShift(0xD1B5_4A32_D192_ED03);
    let (mut misses, mut false_positives, mut tried) = (Vec::new(), 0u32, 0u32);
    while misses.len() < LOOKUP_KEYS {
        let r = row(2 * (rng.next_u64() % ROWS) + 1);
        let key = OwnedKey::first_on_row(&r).expect("a 16-byte row is within limits");
        tried += 1;
        let (accesses, stats) = (counting.accesses.load(Ordering::Relaxed), cache.stats());
        let found = lookup(&reader, &r, &key);
        assert!(!found, "absent row {r:?} must not be found");
        if reader.may_contain_row(&r) {
            false_positives += 1;
            continue;
        }
        let after = cache.stats();
        assert_eq!(
            counting.accesses.load(Ordering::Relaxed),
            accesses,
            "bloom miss read the file"
        );
        assert_eq!(
            (after.hits, after.misses),
            (stats.hits, stats.misses),
            "bloom miss used the cache"
        );
        misses.push((r, key));
    }
    println!(
        "{}: bloom false positives {false_positives} of {tried} absent rows ({:.3}%)",
        path.display(),
        100.0 * f64::from(false_positives) / f64::from(tried)
    );
    misses
}

fn bench_get(c: &mut Criterion) {
    let dir = tempfile::TempDir::new().expect("a temporary directory");
    let fs = RealFs::new();
    let mut rng = XorShift(0x2545_F491_4F6C_DD1D);
    let hits: Vec<(Vec<u8>, OwnedKey)> = (0..LOOKUP_KEYS)
        .map(|_| {
            let r = row(2 * (rng.next_u64() % ROWS));
            let key = OwnedKey::first_on_row(&r).expect("a 16-byte row is within limits");
            (r, key)
        })
        .collect();

    let mut g = c.benchmark_group("storefile_get_200k");
    g.throughput(Throughput::Elements(1));
    let mut file_id = 0;
    for compression in [Compression::None, Compression::Lz4] {
        let path = dir.path().join(compression.name());
        write_file(&fs, &path, compression);
        let misses = check(&fs, &path, &hits);
        for cached in [false, true] {
            file_id += 1;
            let cache = cached.then(|| Arc::new(StoreFileBlockCache::new(CACHE_BYTES)));
            let reader = Arc::new(
                StoreFileReader::open(&fs, &path, file_id, cache.clone(), Default::default())
                    .expect("open the storefile"),
            );
            let label = format!(
                "{}/{}",
                compression.name(),
                if cached { "cache64m" } else { "nocache" }
            );
            for (case, keys) in [("hit", &hits), ("miss", &misses)] {
                let mut i = 0usize;
                g.bench_function(BenchmarkId::new(&label, case), |b| {
                    b.iter(|| {
                        i = (i + 1) % keys.len();
                        let (row, key) = &keys[i];
                        black_box(lookup(&reader, black_box(row), key))
                    })
                });
            }
            if let Some(cache) = cache {
                let s = cache.stats();
                println!(
                    "{label}: block cache {} hits, {} misses, {} evicted blocks, {} bytes cached",
                    s.hits, s.misses, s.evicted_blocks, s.size_bytes
                );
            }
        }
    }
    g.finish();
}

criterion_group!(benches, bench_get);
criterion_main!(benches);
