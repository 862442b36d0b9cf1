//! Gets for named columns put off each storefile's seek (HBase's lazy seek): a file reads
//! a block only when its stand-in key (the first wanted column at the file's newest
//! timestamp) reaches the top of the merge. These tests pin both halves of that: the
//! answers are HBase's whatever order timestamps and files are in, and a get for the
//! newest version reads only the file that holds it (counted as block cache lookups, with
//! LZ4 files, whose blocks always go through the cache). Seeks are put off only while no
//! source of the store holds a family delete marker (see `Store::get_scanners`).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::Harness;
use regionkv_cell::{Cell, CellType};
use regionkv_fs::MemFs;
use regionkv_region::Durability;
use regionkv_region::{ColumnFamilyDescriptor, ReadQuery, RegionConfig, TableDescriptor};
use regionkv_storefile::{Compression, StoreFileBlockCache};
use std::sync::Arc;

fn harness(versions: u32) -> (Harness, Arc<StoreFileBlockCache>) {
    let mut d = ColumnFamilyDescriptor::new(b"e").unwrap();
    d.max_versions = versions;
    d.compression = Compression::Lz4;
    let t = TableDescriptor::new("t1", vec![d]).unwrap();
    let cache = Arc::new(StoreFileBlockCache::new(64 << 20));
    let h = Harness::new(Arc::new(MemFs::new()), t, RegionConfig::default(), false)
        .with_block_cache(cache.clone());
    (h, cache)
}

fn write(h: &Harness, cells: Vec<Cell>) {
    let row = cells[0].row().to_vec();
    h.region()
        .mutate_row(&row, cells, Durability::SyncWal)
        .unwrap();
}

fn put(row: &str, q: &str, ts: i64, v: &str) -> Cell {
    Cell::put(row.as_bytes(), b"e", q.as_bytes(), ts, v.as_bytes()).unwrap()
}

fn marker(row: &str, q: &str, ts: i64, t: CellType) -> Cell {
    Cell::delete_marker(row.as_bytes(), b"e", q.as_bytes(), ts, t).unwrap()
}

/// `qual/ts/Type=value` of each cell a get returns.
fn get(h: &Harness, row: &str, q: &ReadQuery) -> Vec<String> {
    h.region()
        .get(row.as_bytes(), q)
        .unwrap()
        .iter()
        .map(|c| {
            format!(
                "{}/{}/{}={}",
                String::from_utf8_lossy(c.qualifier()),
                c.timestamp(),
                c.cell_type(),
                String::from_utf8_lossy(c.value())
            )
        })
        .collect()
}

fn col(q: &str) -> ReadQuery {
    ReadQuery::default().column(b"e", q.as_bytes())
}

/// Block cache lookups (hits + misses) so far: one per block read (of an LZ4 file, whose
/// blocks are in parts, one part; the part tables stay with the reader).
fn lookups(cache: &StoreFileBlockCache) -> u64 {
    let s = cache.stats();
    s.hits + s.misses
}

/// Three files, each with rows r00..r39 of column `c` at timestamps 1, 2, 3 (newest file
/// last), one block per file.
fn three_generations(h: &Harness) {
    for ts in 1..=3 {
        for r in 0..40 {
            write(
                h,
                vec![put(&format!("r{r:02}"), "c", ts, &format!("v{ts}"))],
            );
        }
        h.region().flush().unwrap();
    }
}

#[test]
fn a_get_for_the_newest_version_reads_only_the_newest_file() {
    let (h, cache) = harness(3);
    three_generations(&h);
    let before = lookups(&cache);
    assert_eq!(get(&h, "r07", &col("c")), ["c/3/Put=v3"]);
    assert_eq!(lookups(&cache) - before, 1, "only the newest file seeks");

    // Three versions need all three files.
    let before = lookups(&cache);
    assert_eq!(
        get(&h, "r08", &col("c").versions(3)),
        ["c/3/Put=v3", "c/2/Put=v2", "c/1/Put=v1"]
    );
    assert_eq!(lookups(&cache) - before, 3);

    // A whole-family get has no named column to stand in at: every file seeks.
    let before = lookups(&cache);
    assert_eq!(
        get(&h, "r09", &ReadQuery::default().family(b"e")),
        ["c/3/Put=v3"]
    );
    assert_eq!(lookups(&cache) - before, 3);

    // The memstore answers first: no file seeks at all.
    write(&h, vec![put("r10", "c", 4, "v4")]);
    let before = lookups(&cache);
    assert_eq!(get(&h, "r10", &col("c")), ["c/4/Put=v4"]);
    assert_eq!(lookups(&cache) - before, 0);

    // A family marker anywhere in the store (here in the memstore, for another row) turns
    // the put-off seeks off: every file seeks up front, as before.
    write(&h, vec![marker("zz", "", 4, CellType::DeleteFamily)]);
    let before = lookups(&cache);
    assert_eq!(get(&h, "r11", &col("c")), ["c/3/Put=v3"]);
    assert_eq!(lookups(&cache) - before, 3);
}

#[test]
fn an_older_file_with_a_newer_timestamp_still_wins() {
    let (h, _cache) = harness(1);
    // The first file holds the newest timestamp: its stand-in key sorts first.
    write(&h, vec![put("r", "c", 30, "old-file-new-ts")]);
    h.region().flush().unwrap();
    write(&h, vec![put("r", "c", 10, "new-file-old-ts")]);
    h.region().flush().unwrap();
    write(&h, vec![put("r", "c", 20, "newest-file-mid-ts")]);
    h.region().flush().unwrap();
    assert_eq!(get(&h, "r", &col("c")), ["c/30/Put=old-file-new-ts"]);
    assert_eq!(
        get(&h, "r", &col("c").versions(3)),
        ["c/30/Put=old-file-new-ts"],
        "VERSIONS => 1 on the family caps the read"
    );
}

#[test]
fn family_markers_in_other_files_mask_as_in_hbase() {
    // A family delete in an older file, newer than a put in a newer file: the put is
    // masked. (A family marker turns put-off seeks off for the whole store.)
    let (h, _cache) = harness(3);
    write(
        &h,
        vec![put("a", "c", 5, "masked"), put("a", "d", 50, "kept")],
    );
    h.region().flush().unwrap();
    write(&h, vec![marker("a", "", 10, CellType::DeleteFamily)]);
    h.region().flush().unwrap();
    write(&h, vec![put("a", "c", 8, "also-masked")]);
    h.region().flush().unwrap();
    assert!(get(&h, "a", &col("c")).is_empty());
    assert_eq!(get(&h, "a", &col("d")), ["d/50/Put=kept"]);

    // A family version delete in an older file.
    let (h, _cache) = harness(3);
    write(&h, vec![marker("b", "", 7, CellType::DeleteFamilyVersion)]);
    h.region().flush().unwrap();
    write(
        &h,
        vec![put("b", "c", 7, "masked"), put("b", "c", 6, "six")],
    );
    h.region().flush().unwrap();
    assert_eq!(get(&h, "b", &col("c")), ["c/6/Put=six"]);
}

#[test]
fn column_and_version_deletes_across_put_off_files() {
    // No family marker in the store: these gets put their file seeks off.
    let (h, cache) = harness(3);
    write(&h, vec![put("d", "c", 1, "one"), put("d", "c", 2, "two")]);
    h.region().flush().unwrap();
    write(&h, vec![put("d", "c", 4, "four")]);
    h.region().flush().unwrap();
    // A column delete in the newest file masks the older files' versions.
    write(&h, vec![marker("d", "c", 3, CellType::DeleteColumn)]);
    h.region().flush().unwrap();
    assert_eq!(get(&h, "d", &col("c").versions(3)), ["c/4/Put=four"]);
    // A version delete in the newest file, for the version of an older file.
    write(&h, vec![marker("d", "c", 4, CellType::Delete)]);
    h.region().flush().unwrap();
    assert!(
        get(&h, "d", &col("c")).is_empty(),
        "two and one are under the column delete"
    );
    // A column delete older than the newest put, in an older file than the put: the put
    // is answered without reading the marker's file.
    write(&h, vec![marker("e", "c", 5, CellType::DeleteColumn)]);
    h.region().flush().unwrap();
    write(&h, vec![put("e", "c", 9, "nine"), put("e", "c", 4, "four")]);
    h.region().flush().unwrap();
    let before = lookups(&cache);
    assert_eq!(get(&h, "e", &col("c")), ["c/9/Put=nine"]);
    assert_eq!(lookups(&cache) - before, 1);
    assert_eq!(get(&h, "e", &col("c").versions(3)), ["c/9/Put=nine"]);
}

#[test]
fn time_ranges_and_several_families_with_put_off_seeks() {
    let mut e = ColumnFamilyDescriptor::new(b"e").unwrap();
    e.max_versions = 3;
    e.compression = Compression::Lz4;
    let mut g = e.clone();
    g.name = b"g".to_vec();
    let t = TableDescriptor::new("t1", vec![e, g]).unwrap();
    let cache = Arc::new(StoreFileBlockCache::new(64 << 20));
    let h = Harness::new(Arc::new(MemFs::new()), t, RegionConfig::default(), false)
        .with_block_cache(cache);
    three_generations(&h);
    let gput = |ts: i64, v: &str| Cell::put(b"r05", b"g", b"x", ts, v.as_bytes()).unwrap();
    write(&h, vec![gput(1, "g1")]);
    h.region().flush().unwrap();
    write(&h, vec![gput(2, "g2")]);
    h.region().flush().unwrap();
    // A time range below the newest file's versions: the older files answer.
    let range =
        |min, max| col("c").time_range(regionkv_cell::TimeRange::between(min, max).unwrap());
    assert_eq!(get(&h, "r05", &range(0, 3)), ["c/2/Put=v2"]);
    assert_eq!(
        get(&h, "r05", &range(0, 3).versions(3)),
        ["c/2/Put=v2", "c/1/Put=v1"]
    );
    assert_eq!(get(&h, "r05", &range(1, 2)), ["c/1/Put=v1"]);
    // Two families, each with a named column, in one get.
    let q = col("c").column(b"g", b"x");
    assert_eq!(get(&h, "r05", &q), ["c/3/Put=v3", "x/2/Put=g2"]);
    assert_eq!(
        get(&h, "r05", &q.versions(2)),
        ["c/3/Put=v3", "c/2/Put=v2", "x/2/Put=g2", "x/1/Put=g1"]
    );
}

#[test]
fn several_named_columns_come_from_different_files() {
    let (h, _cache) = harness(2);
    write(&h, vec![put("r", "a", 1, "a1"), put("r", "z", 1, "z1")]);
    h.region().flush().unwrap();
    write(&h, vec![put("r", "m", 2, "m2"), put("r", "", 2, "empty")]);
    h.region().flush().unwrap();
    write(&h, vec![put("r", "z", 3, "z3"), put("r", "b", 3, "b3")]);
    h.region().flush().unwrap();
    let q = ReadQuery::default()
        .column(b"e", b"z")
        .column(b"e", b"a")
        .column(b"e", b"m")
        .column(b"e", b"");
    assert_eq!(
        get(&h, "r", &q),
        ["/2/Put=empty", "a/1/Put=a1", "m/2/Put=m2", "z/3/Put=z3"]
    );
    assert_eq!(
        get(&h, "r", &q.versions(2)),
        [
            "/2/Put=empty",
            "a/1/Put=a1",
            "m/2/Put=m2",
            "z/3/Put=z3",
            "z/1/Put=z1"
        ]
    );
    // A column no file has.
    assert!(get(&h, "r", &col("x")).is_empty());
    assert!(get(&h, "s", &col("a")).is_empty());
}
