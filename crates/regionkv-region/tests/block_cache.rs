//! What fills the block cache: reads do unless they say `cache_blocks = false` (HBase's
//! `Scan#setCacheBlocks` / `Get#setCacheBlocks`), and compactions never do (HBase's
//! compaction scanners read with `cacheBlocks = false`). Blocks already cached are used
//! either way.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{Harness, table};
use regionkv_fs::MemFs;
use regionkv_region::{Durability, ReadQuery, RegionConfig, RegionScan};
use regionkv_storefile::{Compression, StoreFileBlockCache};
use std::sync::Arc;

/// A region over LZ4 files (every data block goes through the cache; uncompressed ones
/// are read from the mapping), with three flushed files of 2,000 rows each.
fn three_files(cache: &Arc<StoreFileBlockCache>) -> Harness {
    let mut config = RegionConfig::default();
    config.compaction.min_compact_size = 1;
    let mut t = table(64 << 20, &[b"cf"]);
    t.families[0].compression = Compression::Lz4;
    let h = Harness::new(Arc::new(MemFs::new()), t, config, false).with_block_cache(cache.clone());
    let value = "v".repeat(100);
    for f in 0..3 {
        for i in 0..2_000 {
            h.put(
                &format!("r{f}-{i:05}"),
                b"cf",
                "q",
                &value,
                Durability::SkipWal,
            )
            .unwrap();
        }
        h.region().flush().unwrap();
    }
    h
}

fn rows(h: &Harness, scan: &RegionScan) -> usize {
    h.region().scan(scan).unwrap().count()
}

/// HBase's compactions read their inputs with `cacheBlocks = false`
/// (`StoreFileScanner.getScannersForCompaction`): a major compaction of files nobody read
/// leaves the block cache without data blocks.
#[test]
fn compactions_do_not_fill_the_block_cache() {
    let cache = Arc::new(StoreFileBlockCache::new(64 << 20));
    let h = three_files(&cache);
    let before = cache.stats();
    let done = h.region().compact(true).unwrap();
    assert_eq!(done.len(), 1);
    assert_eq!(h.region().manifest().stores[&b"cf"[..]].files.len(), 1);
    let after = cache.stats();
    // Thousands of cells in 64 KiB blocks: several data blocks per input were read.
    assert!(after.misses - before.misses >= 6, "{after:?}");
    assert_eq!(
        after.block_count, 0,
        "no data block of the inputs stays cached: {after:?}"
    );
    // A scan does cache.
    assert_eq!(rows(&h, &RegionScan::all()), 6_000);
    assert!(cache.stats().block_count >= 1);
}

/// A scan or a get with `cache_blocks = false` reads its rows without adding blocks to the
/// cache, and uses the blocks another read cached.
#[test]
fn reads_that_do_not_cache_blocks_leave_the_cache_alone() {
    let cache = Arc::new(StoreFileBlockCache::new(64 << 20));
    let h = three_files(&cache);
    let mut once = RegionScan::all();
    once.query.cache_blocks = false;
    assert_eq!(rows(&h, &once), 6_000);
    let st = cache.stats();
    assert_eq!(st.block_count, 0, "{st:?}");
    assert!(st.misses >= 6, "{st:?}");
    let q = ReadQuery {
        cache_blocks: false,
        ..ReadQuery::default()
    };
    assert_eq!(h.region().get(b"r1-01000", &q).unwrap().len(), 1);
    assert_eq!(cache.stats().block_count, 0);
    // A caching scan fills the cache; a non-caching one then only hits it.
    assert_eq!(rows(&h, &RegionScan::all()), 6_000);
    let filled = cache.stats();
    assert!(filled.block_count >= 6, "{filled:?}");
    assert_eq!(rows(&h, &once), 6_000);
    let again = cache.stats();
    assert_eq!(again.misses, filled.misses, "{again:?}");
    assert_eq!(again.block_count, filled.block_count);
    assert!(
        h.region()
            .get(b"r2-00001", &ReadQuery::default())
            .unwrap()
            .len()
            == 1
    );
}
