//! Cost of the key comparator, the operation on every memstore insert, block binary search
//! and merge step. Compares typical HBase-shaped keys (16-byte rows, short family and
//! qualifier) that differ in the row, in the qualifier, and only in the timestamp, against
//! a plain byte comparison of the same bytes as the floor.
//!
//! Run: `cargo bench --bench cell_compare`

#![expect(
    missing_docs,
    reason = "criterion_group! generates an undocumented function"
)]

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use regionkv_cell::key::encode_key;
use regionkv_cell::{CellType, KeyView, compare_keys};
use std::hint::black_box;

fn key(row: &[u8], qual: &[u8], ts: i64) -> Vec<u8> {
    // Invariant: row and family are within HBase's limits.
    #[allow(clippy::unwrap_used)]
    encode_key(row, b"cf", qual, ts, CellType::Put, 7).unwrap()
}

fn bench_compare(c: &mut Criterion) {
    let row_a = *b"user000000012345";
    let mut row_b = row_a;
    row_b[15] = b'6';
    let cases = [
        (
            "row_differs_last_byte",
            key(&row_a, b"field0", 100),
            key(&row_b, b"field0", 100),
        ),
        (
            "qualifier_differs",
            key(&row_a, b"field0", 100),
            key(&row_a, b"field1", 100),
        ),
        (
            "timestamp_differs",
            key(&row_a, b"field0", 100),
            key(&row_a, b"field0", 99),
        ),
        (
            "equal",
            key(&row_a, b"field0", 100),
            key(&row_a, b"field0", 100),
        ),
    ];
    let mut g = c.benchmark_group("compare_keys");
    g.throughput(Throughput::Elements(1));
    for (name, a, b) in &cases {
        g.bench_with_input(
            BenchmarkId::new("compare_keys", name),
            &(a, b),
            |bn, (a, b)| bn.iter(|| compare_keys(black_box(a), black_box(b))),
        );
        g.bench_with_input(
            BenchmarkId::new("memcmp_floor", name),
            &(a, b),
            |bn, (a, b)| bn.iter(|| black_box(a.as_slice()).cmp(black_box(b.as_slice()))),
        );
    }
    g.finish();

    // Sorting 10k keys: the comparator inside a realistic access pattern.
    let mut keys: Vec<Vec<u8>> = (0..10_000u64)
        .map(|i| {
            let h = i.wrapping_mul(0x9E37_79B9_7F4A_7C15);
            key(
                format!("user{:012}", h % 1_000_000).as_bytes(),
                b"field0",
                (h % 97) as i64,
            )
        })
        .collect();
    c.bench_function("sort_10k_keys", |bn| {
        bn.iter(|| {
            let mut k = keys.clone();
            k.sort_unstable_by(|a, b| compare_keys(a, b));
            black_box(k)
        })
    });
    keys.sort_unstable_by(|a, b| compare_keys(a, b));
    c.bench_function("parse_key_view", |bn| {
        bn.iter(|| KeyView::parse(black_box(&keys[5000])).map(|v| v.timestamp()))
    });
}

criterion_group!(benches, bench_compare);
criterion_main!(benches);
