//! Round trip: random cells written in key order come back from a scan exactly, and seeks
//! land on the first cell at or after the sought key — for every combination of
//! compression, encoding, block size, index depth, bloom type, read mode and cache.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
use common::scan_all;
use proptest::prelude::*;
use regionkv_cell::{Cell, CellType, KeyValueScanner, KeyView, OwnedKey, compare_keys};
use regionkv_fs::{Fs, MemFs, ReadMode, RealFs};
use regionkv_storefile::{
    BloomType, Compression, DataBlockEncoding, ReaderOptions, StoreFileBlockCache, StoreFileReader,
    StoreFileScanner, StoreFileWriter, StoreFileWriterOptions,
};
use std::path::Path;
use std::sync::Arc;

fn cell_type() -> impl Strategy<Value = CellType> {
    prop_oneof![
        6 => Just(CellType::Put),
        1 => Just(CellType::Delete),
        1 => Just(CellType::DeleteColumn),
        1 => Just(CellType::DeleteFamily),
        1 => Just(CellType::DeleteFamilyVersion),
    ]
}

fn cells(max: usize) -> impl Strategy<Value = Vec<Cell>> {
    proptest::collection::vec(
        (
            proptest::collection::vec(
                prop_oneof![Just(b'a'), Just(b'b'), Just(0u8), Just(0xff)],
                1..6,
            ),
            proptest::collection::vec(prop_oneof![Just(b'x'), Just(b'y'), Just(1u8)], 0..4),
            0i64..5,
            cell_type(),
            0u64..3,
            proptest::collection::vec(any::<u8>(), 0..40),
            prop_oneof![4 => Just(None), 1 => (-5i64..1_000_000).prop_map(Some)],
        ),
        0..max,
    )
    .prop_map(|raw| {
        let mut v: Vec<Cell> = raw
            .into_iter()
            .map(|(row, q, ts, t, seq, value, ttl)| {
                let value = if t == CellType::Put {
                    value
                } else {
                    Vec::new()
                };
                let cell = Cell::new(&row, b"cf", &q, ts, t, &value)
                    .unwrap()
                    .with_seq_id(seq);
                match ttl.filter(|_| t == CellType::Put) {
                    // Cell TTLs travel as tags; some runs also carry an unknown tag type.
                    Some(ttl) => {
                        let mut tags = regionkv_cell::tag::with_ttl(&[], Some(ttl));
                        if ttl % 2 == 0 {
                            regionkv_cell::tag::push_tag(&mut tags, 77, &value).unwrap();
                        }
                        cell.with_tags(tags).unwrap()
                    }
                    None => cell,
                }
            })
            .collect();
        v.sort();
        v.dedup_by(|a, b| a.key_bytes() == b.key_bytes());
        v
    })
}

#[derive(Debug, Clone)]
struct Setup {
    options: StoreFileWriterOptions,
    real: Option<ReadMode>,
    cache: bool,
}

fn has_tags(cells: &[Cell]) -> bool {
    cells.iter().any(|c| !c.tags().is_empty())
}

fn setups() -> impl Strategy<Value = Setup> {
    (
        prop_oneof![Just(Compression::None), Just(Compression::Lz4)],
        prop_oneof![
            Just(DataBlockEncoding::None),
            Just(DataBlockEncoding::Prefix)
        ],
        prop_oneof![Just(1024usize), Just(4096), Just(65536)],
        prop_oneof![Just(64usize), Just(200), Just(128 * 1024)],
        prop_oneof![
            Just(BloomType::None),
            Just(BloomType::Row),
            Just(BloomType::RowCol)
        ],
        prop_oneof![
            Just(None),
            Just(Some(ReadMode::Mmap)),
            Just(Some(ReadMode::Pread))
        ],
        any::<bool>(),
        any::<bool>(),
        // Parts of compressed blocks (format version 3): off, tiny, the default.
        prop_oneof![Just(0usize), Just(256), Just(4096)],
    )
        .prop_map(
            |(
                compression,
                encoding,
                block_size,
                index_block_size,
                bloom_type,
                real,
                cache,
                include_tags,
                part_size,
            )| {
                Setup {
                    options: StoreFileWriterOptions {
                        block_size,
                        compression,
                        encoding,
                        bloom_type,
                        index_block_size,
                        include_tags,
                        part_size,
                        ..Default::default()
                    },
                    real,
                    cache,
                }
            },
        )
}

/// Writes `cells` and opens the result with the setup's fs, read mode and cache.
fn write_and_open(cells: &[Cell], setup: &Setup, dir: &Path) -> Arc<StoreFileReader> {
    let fs: Box<dyn Fs> = match setup.real {
        None => Box::new(MemFs::new()),
        Some(mode) => Box::new(RealFs::with_read_mode(mode)),
    };
    fs.create_dir_all(dir).unwrap();
    let path = dir.join("sf");
    let mut options = setup.options.clone();
    // A file that may hold tags is what a flush of a memstore with tagged cells writes.
    options.include_tags |= has_tags(cells);
    let mut w = StoreFileWriter::new(fs.create_new(&path).unwrap(), options.clone()).unwrap();
    for c in cells {
        w.append(c.as_cell_ref()).unwrap();
    }
    let written = w.finish().unwrap();
    assert_eq!(written.file_info.cell_count, cells.len() as u64);
    assert_eq!(written.size, fs.file_len(&path).unwrap());
    assert_eq!(written.trailer.includes_tags, options.include_tags);
    assert_eq!(
        written.file_info.max_tags_len,
        options.include_tags.then(|| cells
            .iter()
            .map(|c| c.tags().len() as u32)
            .max()
            .unwrap_or(0))
    );
    let cache = setup
        .cache
        .then(|| Arc::new(StoreFileBlockCache::new(1 << 20)));
    Arc::new(StoreFileReader::open(fs.as_ref(), &path, 7, cache, ReaderOptions::default()).unwrap())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn scan_returns_exactly_what_was_written(cells in cells(300), setup in setups()) {
        let dir = tempfile::tempdir().unwrap();
        let reader = write_and_open(&cells, &setup, dir.path());
        prop_assert_eq!(&scan_all(&reader), &cells);
        let info = reader.file_info();
        prop_assert_eq!(info.cell_count, cells.len() as u64);
        if let (Some(first), Some(last)) = (cells.first(), cells.last()) {
            prop_assert_eq!(info.first_key.as_deref(), Some(first.key_bytes()));
            prop_assert_eq!(info.last_key.as_deref(), Some(last.key_bytes()));
            prop_assert_eq!(info.max_seq_id, cells.iter().map(|c| c.seq_id()).max().unwrap());
        }
        // Every written row and column passes its bloom (no false negatives).
        for c in &cells {
            prop_assert!(reader.may_contain_row_col(c.row(), c.qualifier()));
            if setup.options.bloom_type != BloomType::RowCol {
                prop_assert!(reader.may_contain_row(c.row()));
            }
        }
    }

    #[test]
    fn seeks_land_on_the_first_cell_not_before_the_key(
        cells in cells(300),
        probes in proptest::collection::vec(
            (proptest::collection::vec(prop_oneof![Just(b'a'), Just(b'b'), Just(0u8), Just(0xff)], 0..6),
             proptest::collection::vec(prop_oneof![Just(b'x'), Just(b'y'), Just(1u8)], 0..4),
             -1i64..6), 1..20),
        setup in setups(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let reader = write_and_open(&cells, &setup, dir.path());
        let mut scanner = StoreFileScanner::new(reader.clone());
        let mut keys: Vec<OwnedKey> = probes
            .iter()
            .map(|(row, q, ts)| OwnedKey::first_on_column_at(row, b"cf", q, *ts).unwrap())
            .collect();
        // Random-order seeks.
        for k in &keys {
            let expect = cells.iter().find(|c| compare_keys(c.key_bytes(), k.as_bytes()).is_ge());
            let found = scanner.seek(&k.view()).unwrap();
            prop_assert_eq!(found, expect.is_some());
            let got = scanner.peek().map(|c| c.to_cell());
            prop_assert_eq!(got.as_ref(), expect);
        }
        // Ascending reseeks from one scanner, as a StoreScanner issues them.
        keys.sort();
        let mut s2 = StoreFileScanner::new(reader);
        s2.seek_to_first().unwrap();
        for k in &keys {
            let expect = cells.iter().find(|c| compare_keys(c.key_bytes(), k.as_bytes()).is_ge());
            s2.reseek(&k.view()).unwrap();
            let got = s2.peek().map(|c| c.to_cell());
            prop_assert_eq!(got.as_ref(), expect);
        }
    }
}

fn big_file(options: StoreFileWriterOptions, n: u32) -> (MemFs, Vec<Cell>) {
    let fs = MemFs::new();
    let mut w = StoreFileWriter::new(fs.create_new(Path::new("/big")).unwrap(), options).unwrap();
    let mut cells = Vec::new();
    for i in 0..n {
        let c = Cell::put(
            format!("row{i:08}").as_bytes(),
            b"cf",
            b"q",
            1,
            &[i as u8; 50],
        )
        .unwrap()
        .with_seq_id(u64::from(i));
        w.append(c.as_cell_ref()).unwrap();
        cells.push(c);
    }
    w.finish().unwrap();
    (fs, cells)
}

#[test]
fn multi_level_index_and_midkey() {
    let options = StoreFileWriterOptions {
        block_size: 1024,
        index_block_size: 256,
        ..Default::default()
    };
    let (fs, cells) = big_file(options, 20_000);
    let reader = Arc::new(
        StoreFileReader::open(&fs, Path::new("/big"), 1, None, ReaderOptions::default()).unwrap(),
    );
    let t = *reader.trailer();
    assert!(
        t.index_levels >= 3,
        "expected a deep index, got {} levels",
        t.index_levels
    );
    assert!(t.data_block_count > 1000);
    // The midkey is the first key of data block (n-1)/2.
    let mid = reader.midkey().unwrap().unwrap();
    let h = reader
        .data_block_by_ordinal((t.data_block_count - 1) / 2)
        .unwrap()
        .unwrap();
    assert_eq!(h.first_ordinal, (t.data_block_count - 1) / 2);
    let mut s = StoreFileScanner::new(reader.clone());
    s.seek(&KeyView::parse(&mid).unwrap()).unwrap();
    assert_eq!(s.peek().unwrap().key_bytes(), mid.as_slice());
    let pos = cells
        .iter()
        .position(|c| c.key_bytes() == mid.as_slice())
        .unwrap();
    assert!(
        (cells.len() / 2).abs_diff(pos) < cells.len() / 50,
        "midkey at {pos}"
    );
    // Every row is found by a seek through three index levels.
    for i in (0..20_000).step_by(997) {
        let row = format!("row{i:08}");
        s.seek(&OwnedKey::first_on_row(row.as_bytes()).unwrap().view())
            .unwrap();
        assert_eq!(s.peek().unwrap().row(), row.as_bytes());
    }
    assert_eq!(scan_all(&reader), cells);
}

#[test]
fn bloom_filters_rows_and_columns() {
    for bloom_type in [BloomType::Row, BloomType::RowCol] {
        let options = StoreFileWriterOptions {
            bloom_type,
            ..Default::default()
        };
        let (fs, _) = big_file(options, 5_000);
        let reader =
            StoreFileReader::open(&fs, Path::new("/big"), 1, None, ReaderOptions::default())
                .unwrap();
        let fp = (0..5_000)
            .filter(|i| reader.may_contain_row_col(format!("absent{i}").as_bytes(), b"q"))
            .count();
        assert!(fp < 150, "{bloom_type:?}: {fp} false positives in 5000");
        assert!(reader.may_contain_row_col(b"row00000042", b"q"));
        if bloom_type == BloomType::RowCol {
            // Same row, another column: filtered by ROWCOL.
            let other = (0..1000)
                .filter(|i| reader.may_contain_row_col(b"row00000042", format!("c{i}").as_bytes()))
                .count();
            assert!(other < 50, "{other}");
        }
    }
}

#[test]
fn rowcol_bloom_keeps_rows_with_family_markers_readable() {
    let fs = MemFs::new();
    let options = StoreFileWriterOptions {
        bloom_type: BloomType::RowCol,
        ..Default::default()
    };
    let mut w = StoreFileWriter::new(fs.create_new(Path::new("/f")).unwrap(), options).unwrap();
    let marker = Cell::delete_marker(b"r1", b"cf", b"", 5, CellType::DeleteFamily).unwrap();
    w.append(marker.as_cell_ref()).unwrap();
    w.append(
        Cell::put(b"r2", b"cf", b"q", 1, b"v")
            .unwrap()
            .as_cell_ref(),
    )
    .unwrap();
    w.finish().unwrap();
    let reader =
        StoreFileReader::open(&fs, Path::new("/f"), 1, None, ReaderOptions::default()).unwrap();
    // A Get of any column of r1 must read this file: it holds r1's DeleteFamily.
    assert!(reader.may_contain_row_col(b"r1", b"any-column"));
    assert_eq!(reader.file_info().delete_family_count, 1);
    assert_eq!(
        reader.file_info().min_timestamp,
        0,
        "DeleteFamily widens the time range to 0"
    );
    assert_eq!(reader.file_info().earliest_put_ts, 1);
}

#[test]
fn out_of_order_and_duplicate_cells_are_rejected() {
    let fs = MemFs::new();
    let mut w =
        StoreFileWriter::new(fs.create_new(Path::new("/f")).unwrap(), Default::default()).unwrap();
    let a = Cell::put(b"b", b"cf", b"q", 1, b"").unwrap();
    let before = Cell::put(b"a", b"cf", b"q", 1, b"").unwrap();
    w.append(a.as_cell_ref()).unwrap();
    assert!(matches!(
        w.append(a.as_cell_ref()),
        Err(regionkv_storefile::Error::OutOfOrder { .. })
    ));
    let mut w =
        StoreFileWriter::new(fs.create_new(Path::new("/g")).unwrap(), Default::default()).unwrap();
    w.append(a.as_cell_ref()).unwrap();
    assert!(w.append(before.as_cell_ref()).is_err());
    // The writer refuses to go on after a failure.
    assert!(w.finish().is_err());
}

#[test]
fn tagged_cells_need_a_file_that_includes_tags() {
    let fs = MemFs::new();
    let tagged = Cell::put(b"r", b"cf", b"q", 1, b"v")
        .unwrap()
        .with_tags(regionkv_cell::tag::with_ttl(&[], Some(5)))
        .unwrap();
    let mut w = StoreFileWriter::new(
        fs.create_new(Path::new("/plain")).unwrap(),
        StoreFileWriterOptions::default(),
    )
    .unwrap();
    let e = w.append(tagged.as_cell_ref()).unwrap_err();
    assert!(e.to_string().contains("include_tags"), "{e}");
    // Written with tags, the cell's TTL comes back from the file, version 2.
    let options = StoreFileWriterOptions {
        include_tags: true,
        ..Default::default()
    };
    let mut w = StoreFileWriter::new(fs.create_new(Path::new("/tags")).unwrap(), options).unwrap();
    w.append(tagged.as_cell_ref()).unwrap();
    w.finish().unwrap();
    let bytes = fs.contents(Path::new("/tags")).unwrap();
    assert_eq!(&bytes[bytes.len() - 16..bytes.len() - 12], &[0, 0, 0, 2]);
    let reader = Arc::new(
        StoreFileReader::open(&fs, Path::new("/tags"), 1, None, ReaderOptions::default()).unwrap(),
    );
    let got = scan_all(&reader);
    assert_eq!(got, vec![tagged]);
    assert_eq!(got[0].ttl(), Some(5));
}

#[test]
fn empty_file_round_trips() {
    let fs = MemFs::new();
    let w =
        StoreFileWriter::new(fs.create_new(Path::new("/e")).unwrap(), Default::default()).unwrap();
    let written = w.finish().unwrap();
    assert_eq!(written.trailer.data_block_count, 0);
    let reader = Arc::new(
        StoreFileReader::open(&fs, Path::new("/e"), 1, None, ReaderOptions::default()).unwrap(),
    );
    assert!(scan_all(&reader).is_empty());
    assert_eq!(reader.midkey().unwrap(), None);
    assert!(!reader.may_contain_time_range(&regionkv_cell::TimeRange::all_time()));
}

#[test]
fn time_and_key_range_skipping() {
    let (fs, _) = big_file(StoreFileWriterOptions::default(), 100);
    let reader =
        StoreFileReader::open(&fs, Path::new("/big"), 1, None, ReaderOptions::default()).unwrap();
    use regionkv_cell::TimeRange;
    assert!(reader.may_contain_time_range(&TimeRange::at(1).unwrap()));
    assert!(!reader.may_contain_time_range(&TimeRange::between(2, 10).unwrap()));
    assert!(!reader.may_contain_time_range(&TimeRange::between(0, 1).unwrap()));
    assert!(reader.may_contain_rows(b"row00000050", b""));
    assert!(!reader.may_contain_rows(b"row00000100", b""));
    assert!(!reader.may_contain_rows(b"a", b"row00000000"));
    assert!(reader.may_contain_rows(b"a", b"row00000000\x00"));
}

#[test]
fn options_are_validated() {
    let fs = MemFs::new();
    for bad in [
        StoreFileWriterOptions {
            block_size: 100,
            ..Default::default()
        },
        StoreFileWriterOptions {
            block_size: 32 << 20,
            ..Default::default()
        },
        StoreFileWriterOptions {
            bloom_error_rate: 0.0,
            ..Default::default()
        },
        StoreFileWriterOptions {
            bloom_error_rate: 1.0,
            ..Default::default()
        },
    ] {
        let f = fs
            .create_new(Path::new(&format!("/{}", bad.block_size)))
            .ok();
        if let Some(f) = f {
            assert!(matches!(
                StoreFileWriter::new(f, bad),
                Err(regionkv_storefile::Error::InvalidOption(_))
            ));
        }
    }
}

#[test]
fn bloom_negative_lookups_read_nothing_from_the_file() {
    use regionkv_fs::FaultFs;
    let dir = tempfile::tempdir().unwrap();
    // Pread mode: every byte read goes through `read_at`, which FaultFs counts.
    let fs = FaultFs::new(Arc::new(RealFs::with_read_mode(ReadMode::Pread)));
    let path = dir.path().join("sf");
    let mut w = StoreFileWriter::new(fs.create_new(&path).unwrap(), Default::default()).unwrap();
    for i in 0..2_000u32 {
        let c = Cell::put(format!("row{i:06}").as_bytes(), b"cf", b"q", 1, b"v").unwrap();
        w.append(c.as_cell_ref()).unwrap();
    }
    w.finish().unwrap();
    let reader = StoreFileReader::open(&fs, &path, 1, None, ReaderOptions::default()).unwrap();
    let before = fs.op_count();
    let mut negatives = 0;
    for i in 0..1_000u32 {
        if !reader.may_contain_row(format!("absent{i}").as_bytes()) {
            negatives += 1;
        }
    }
    assert!(negatives > 950, "{negatives}");
    assert_eq!(fs.op_count(), before, "a bloom check touched the file");
    // A positive lookup does read a data block.
    let mut s = StoreFileScanner::new(Arc::new(reader));
    s.seek(&OwnedKey::first_on_row(b"row000123").unwrap().view())
        .unwrap();
    assert!(fs.op_count() > before);
}

#[test]
fn last_row_before_crosses_block_boundaries() {
    let options = StoreFileWriterOptions {
        block_size: 1024,
        index_block_size: 256,
        ..Default::default()
    };
    let (fs, cells) = big_file(options, 3_000);
    let reader =
        StoreFileReader::open(&fs, Path::new("/big"), 1, None, ReaderOptions::default()).unwrap();
    assert!(reader.trailer().data_block_count > 50);
    assert_eq!(
        reader.last_row_before(None).unwrap().unwrap(),
        b"row00002999"
    );
    for i in (0..3_000u32).step_by(37).chain([1, 2999]) {
        let row = format!("row{i:08}");
        let key = OwnedKey::first_on_row(row.as_bytes()).unwrap();
        let expect = cells
            .iter()
            .rev()
            .find(|c| compare_keys(c.key_bytes(), key.as_bytes()).is_lt())
            .map(|c| c.row().to_vec());
        assert_eq!(
            reader.last_row_before(Some(key.as_bytes())).unwrap(),
            expect,
            "{row}"
        );
    }
    let first = OwnedKey::first_on_row(b"row00000000").unwrap();
    assert_eq!(
        reader.last_row_before(Some(first.as_bytes())).unwrap(),
        None
    );
}
