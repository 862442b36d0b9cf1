//! Cost of writing one storefile: 100k cells (16-byte rows `format!("{i:016}")`, family
//! `f`, qualifier `q`, 100-byte values of 50 xorshift-random bytes followed by 50 repeated
//! bytes) appended to a new file in a temporary directory on `RealFs` and `finish`ed
//! (index, ROW bloom, file info, trailer and the final `sync_data`), for each combination
//! of COMPRESSION `NONE`/`LZ4` and DATA_BLOCK_ENCODING `NONE`/`PREFIX`.
//!
//! Throughput is bytes of cell data (encoded key + value) per second; after each case the
//! mean cells/s over all timed iterations and the file size are printed. Removing the file
//! afterwards is not timed; building the cells is done once, up front.
//!
//! Run: `cargo bench --bench storefile_write` (the short run recorded in
//! `docs/benchmarks.md`: `cargo bench --bench storefile_write -- --warm-up-time 1
//! --measurement-time 3`)

#![allow(clippy::expect_used)]
#![expect(
    missing_docs,
    reason = "criterion_group! generates an undocumented function"
)]

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use regionkv_cell::Cell;
use regionkv_fs::{Fs, RealFs};
use regionkv_storefile::{Compression, DataBlockEncoding, StoreFileWriter, StoreFileWriterOptions};
use regionkv_suite::{XorShift, row, value};
use std::hint::black_box;
use std::time::{Duration, Instant};

const CELLS: u64 = 100_000;

/// The cells, in key order, with their total key + value bytes.
fn cells(n: u64) -> (Vec<Cell>, u64) {
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
    let mut bytes = 0;
    let cells = (0..n)
        .map(|i| {
            let cell = Cell::put(&row(i), b"f", b"q", 1, &value(&mut rng))
                .expect("a 16-byte row and family `f` are within HBase's limits")
                .with_seq_id(i + 1);
            bytes += (cell.key_bytes().len() + cell.value().len()) as u64;
            cell
        })
        .collect();
    (cells, bytes)
}

fn bench_write(c: &mut Criterion) {
    let (cells, data_bytes) = cells(CELLS);
    let dir = tempfile::TempDir::new().expect("a temporary directory");
    let fs = RealFs::new();
    let mut file_no = 0u64;

    let mut g = c.benchmark_group("storefile_write_100k");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(data_bytes));
    for compression in [Compression::None, Compression::Lz4] {
        for encoding in [DataBlockEncoding::None, DataBlockEncoding::Prefix] {
            let options = StoreFileWriterOptions {
                compression,
                encoding,
                ..StoreFileWriterOptions::default()
            };
            let (mut timed_iters, mut timed, mut file_size) = (0u64, Duration::ZERO, 0u64);
            let id = BenchmarkId::new(compression.name(), encoding.name());
            g.bench_function(id, |b| {
                b.iter_custom(|iters| {
                    let mut elapsed = Duration::ZERO;
                    for _ in 0..iters {
                        file_no += 1;
                        let path = dir.path().join(format!("sf{file_no}"));
                        let start = Instant::now();
                        let file = fs.create_new(&path).expect("create the storefile");
                        let mut w = StoreFileWriter::new(file, options.clone())
                            .expect("default options are valid");
                        for cell in &cells {
                            w.append(cell.as_cell_ref())
                                .expect("cells are in key order");
                        }
                        let written = black_box(w.finish().expect("finish the storefile"));
                        elapsed += start.elapsed();
                        file_size = written.size;
                        fs.remove_file(&path).expect("remove the storefile");
                    }
                    timed_iters += iters;
                    timed += elapsed;
                    elapsed
                })
            });
            if timed_iters > 0 {
                let cells_per_sec = (timed_iters * CELLS) as f64 / timed.as_secs_f64();
                println!(
                    "storefile_write_100k/{}/{}: {:.2} Mcells/s (mean of {timed_iters} writes), \
                     file {file_size} bytes for {data_bytes} bytes of cell data ({:.2}x)",
                    compression.name(),
                    encoding.name(),
                    cells_per_sec / 1e6,
                    data_bytes as f64 / file_size as f64,
                );
            }
        }
    }
    g.finish();
}

criterion_group!(benches, bench_write);
criterion_main!(benches);
