//! Data blocks in parts (format version 3): a compressed file with HBase's 64 KiB BLOCKSIZE
//! keeps one index entry per ~64 KiB block, while a point read decompresses and caches
//! one ~4 KiB part of it; scans, seeks and reversed-scan lookups see exactly the cells of
//! the same file written in whole blocks.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
use common::scan_all;
use regionkv_cell::{Cell, KeyValueScanner, OwnedKey};
use regionkv_fs::{Fs, MemFs, ReadMode, RealFs};
use regionkv_storefile::format::parts::PART_SIZE;
use regionkv_storefile::{
    Compression, ReaderOptions, StoreFileBlockCache, StoreFileReader, StoreFileScanner,
    StoreFileWriter, StoreFileWriterOptions,
};
use std::path::Path;
use std::sync::Arc;

const ROWS: u32 = 20_000;

fn cells() -> Vec<Cell> {
    (0..ROWS)
        .map(|i| {
            // Half-compressible 100-byte values, as the comparison suite writes: 50
            // pseudo-random printable bytes, then the same 50 again.
            let mut x = u64::from(i).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
            let half: Vec<u8> = (0..50)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    b' ' + (x % 95) as u8
                })
                .collect();
            let value = [half.as_slice(), half.as_slice()].concat();
            Cell::put(
                format!("row{:08}", 2 * i).as_bytes(),
                b"cf",
                b"q",
                7,
                &value,
            )
            .unwrap()
            .with_seq_id(u64::from(i))
        })
        .collect()
}

fn write(fs: &dyn Fs, path: &Path, part_size: usize) {
    let options = StoreFileWriterOptions {
        compression: Compression::Lz4,
        part_size,
        ..Default::default()
    };
    let mut w = StoreFileWriter::new(fs.create_new(path).unwrap(), options).unwrap();
    for c in cells() {
        w.append(c.as_cell_ref()).unwrap();
    }
    w.finish().unwrap();
}

fn open(fs: &dyn Fs, path: &Path, cache: Option<Arc<StoreFileBlockCache>>) -> Arc<StoreFileReader> {
    Arc::new(StoreFileReader::open(fs, path, 1, cache, ReaderOptions::default()).unwrap())
}

/// Cells a full scan of `r` returns, read with `cache_blocks` as a Get (true) or a
/// compaction (false) reads.
fn count_cells(r: &Arc<StoreFileReader>, cache_blocks: bool) -> u32 {
    let mut s = StoreFileScanner::new(r.clone()).cache_blocks(cache_blocks);
    s.seek_to_first().unwrap();
    let mut n = 0;
    while s.peek().is_some() {
        n += 1;
        s.advance().unwrap();
    }
    n
}

#[test]
fn blocks_keep_blocksize_granularity_and_reads_decode_one_part() {
    let fs = MemFs::new();
    let (parted, whole) = (Path::new("/parted"), Path::new("/whole"));
    write(&fs, parted, PART_SIZE);
    write(&fs, whole, 0);
    let p = open(&fs, parted, None);
    let w = open(&fs, whole, None);
    assert!(p.trailer().parted && !w.trailer().parted);
    // The index is the same: one entry per BLOCKSIZE of cells, and the file says 64 KiB.
    assert_eq!(p.file_info().block_size, 65536);
    // Each part has its own restart array, so a block of parts reaches BLOCKSIZE a few
    // cells sooner than a whole block: the same count within 3%.
    let blocks = p.trailer().data_block_count;
    let whole_blocks = w.trailer().data_block_count;
    assert!(blocks >= 30, "{blocks} blocks");
    assert!(
        blocks * 100 <= whole_blocks * 103,
        "{blocks} vs {whole_blocks}"
    );
    for ordinal in 0..blocks - 1 {
        let h = p.data_block_by_ordinal(ordinal).unwrap().unwrap();
        let header = p.block_header(h).unwrap();
        assert!(
            header.uncompressed_len >= 65536,
            "block {ordinal}: {header:?}"
        );
        let first = p.data_part(h, regionkv_storefile::PartAt::First).unwrap();
        assert!(first.parts >= 16, "block {ordinal}: {} parts", first.parts);
        // The index entry's key is the first key of the block's first part.
        let body = first.data.body();
        let mut c = regionkv_storefile::block::BlockCursor::new(body).unwrap();
        c.seek_to_first(body).unwrap();
        assert_eq!(p.block_first_key(ordinal).unwrap().unwrap(), c.key(body));
        assert_eq!(p.find_data_block(c.key(body)).unwrap(), Some(h));
    }
    // Parts cost a few percent of disk over whole blocks (the part tables, and LZ4 finds
    // fewer matches in 4 KiB than in 64 KiB).
    let (ps, ws) = (
        fs.contents(parted).unwrap().len(),
        fs.contents(whole).unwrap().len(),
    );
    assert!(ps as f64 <= ws as f64 * 1.06, "{ps} vs {ws}");

    // The same cells, by scan, by seek and by reversed-scan row lookup.
    let all = cells();
    assert_eq!(scan_all(&p), all);
    let mut sp = StoreFileScanner::new(p.clone());
    let mut sw = StoreFileScanner::new(w.clone());
    for i in (0..2 * ROWS + 2).step_by(37) {
        let key = OwnedKey::first_on_row(format!("row{i:08}").as_bytes()).unwrap();
        assert_eq!(sp.seek(&key.view()).unwrap(), sw.seek(&key.view()).unwrap());
        assert_eq!(
            sp.peek().map(|c| c.to_cell()),
            sw.peek().map(|c| c.to_cell())
        );
        assert_eq!(
            p.last_row_before(Some(key.as_bytes())).unwrap(),
            w.last_row_before(Some(key.as_bytes())).unwrap(),
            "row before {i}"
        );
    }

    // A point read caches one part, not the block (the part table stays with the reader).
    let cache = Arc::new(StoreFileBlockCache::new(64 << 20));
    let p = open(&fs, parted, Some(cache.clone()));
    let mut s = StoreFileScanner::new(p);
    let key = OwnedKey::first_on_row(b"row00021000").unwrap();
    assert!(s.seek(&key.view()).unwrap());
    assert_eq!(s.peek().unwrap().row(), b"row00021000");
    let st = cache.stats();
    assert_eq!(st.block_count, 1, "{st:?}");
    assert!(st.size_bytes < PART_SIZE as u64 + 512, "{st:?}");
}

#[test]
fn parted_files_read_the_same_through_mmap_and_pread() {
    let dir = tempfile::tempdir().unwrap();
    for mode in [ReadMode::Mmap, ReadMode::Pread] {
        let fs = RealFs::with_read_mode(mode);
        let path = dir.path().join(format!("{mode:?}"));
        write(&fs, &path, PART_SIZE);
        for cache in [None, Some(Arc::new(StoreFileBlockCache::new(1 << 20)))] {
            let r = open(&fs, &path, cache);
            assert_eq!(scan_all(&r), cells(), "{mode:?}");
        }
    }
}

/// A scanner with `cache_blocks(false)` (what compactions use, as HBase's do) reads every
/// cell without adding a data block or part to the cache, and still uses what a normal
/// reader cached; parted and whole-block files alike.
#[test]
fn scanners_that_do_not_cache_blocks_leave_the_cache_alone() {
    let fs = MemFs::new();
    for (path, part_size) in [(Path::new("/parted"), PART_SIZE), (Path::new("/whole"), 0)] {
        write(&fs, path, part_size);
        let cache = Arc::new(StoreFileBlockCache::new(256 << 20));
        let r = open(&fs, path, Some(cache.clone()));
        let read_all = |cache_blocks: bool| count_cells(&r, cache_blocks);
        let before = cache.stats();
        assert_eq!(read_all(false), ROWS, "{path:?}");
        let after = cache.stats();
        // Index blocks may be cached (HBase always caches them); no data block is.
        let data_blocks = r.trailer().data_block_count;
        assert!(
            after.block_count - before.block_count < 2,
            "{path:?}: {after:?}"
        );
        assert!(
            after.misses - before.misses >= data_blocks,
            "{path:?}: {after:?}"
        );
        // A caching scan fills the cache, and a non-caching one then hits it.
        assert_eq!(read_all(true), ROWS);
        let filled = cache.stats();
        assert!(filled.block_count >= data_blocks, "{path:?}: {filled:?}");
        assert_eq!(read_all(false), ROWS);
        let reused = cache.stats();
        assert_eq!(reused.block_count, filled.block_count, "{path:?}");
        assert!(
            reused.hits - filled.hits >= data_blocks,
            "{path:?}: {reused:?}"
        );
        assert_eq!(reused.misses, filled.misses, "{path:?}: {reused:?}");
    }
}

/// Reads that fill the block cache (Gets, caching scans) read a compressed file's data
/// through its mapping while the file system's mapped-read budget lasts; reads that do not
/// cache (compactions) and the meta blocks every open reads go through `pread`, so they
/// never charge it. Parted and whole-block files alike, and the cells are the same past
/// the budget.
#[test]
fn only_caching_reads_charge_the_mapped_read_budget() {
    let dir = tempfile::tempdir().unwrap();
    for part_size in [PART_SIZE, 0] {
        let fs = RealFs::new().with_map_budget(256 << 10);
        let path = dir.path().join(format!("f{part_size}"));
        write(&fs, &path, part_size);
        let read_all = count_cells;
        let r = open(&fs, &path, None);
        assert_eq!(fs.map_budget().1, 0, "opening reads meta blocks with pread");
        assert_eq!(read_all(&r, false), ROWS);
        assert_eq!(fs.map_budget().1, 0, "a non-caching scan preads");
        // A Get-like seek charges the windows it reads, within the budget.
        let mut s = StoreFileScanner::new(r.clone());
        let key = OwnedKey::first_on_row(b"row00021000").unwrap();
        assert!(s.seek(&key.view()).unwrap());
        assert_eq!(s.peek().unwrap().row(), b"row00021000");
        let one = fs.map_budget().1;
        assert!(one > 0 && one <= 128 << 10, "{one}");
        // A caching scan of the whole file spends the budget and reads on with pread.
        assert_eq!(read_all(&r, true), ROWS);
        assert_eq!(fs.map_budget().1, 256 << 10);
        assert_eq!(scan_all(&r), cells());
        drop((s, r));
        assert_eq!(fs.map_budget().1, 0);
    }
}
