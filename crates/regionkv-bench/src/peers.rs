//! The benchmark peers, RocksDB and fjall, behind the [`Engine`] trait (feature `peers`).
//!
//! Both are plain ordered key-value stores, so the adapters map HBase's cells onto keys:
//! a table of one family with one column stores each row under the row key alone (the
//! comparison suite's 16-byte keys are then the same bytes in all three engines); any
//! other shape stores a cell under `row | 0x00 | family | 0x00 | qualifier`, and a row is
//! the run of keys sharing `row | 0x00` (row keys must then hold no `0x00` byte, true of
//! PE's and YCSB's keys). Read-modify-write operations (increment, append, check-and-put),
//! atomic per row in HBase, take a striped row lock here, as a key-value binding of YCSB
//! or PE would have to.
//!
//! Durability is matched to regionkv's: with `wal` and without `sync`, every write reaches
//! the operating system before it returns (RocksDB's default WAL write; fjall's
//! `PersistMode::Buffer` passed with every commit, since a commit without a mode leaves its
//! journal entry in a user-space buffer), which is HBase's SYNC_WAL; with `sync`, every write is
//! on the device (RocksDB `sync = true`, fjall `PersistMode::SyncData`), HBase's
//! FSYNC_WAL. Without `wal`, RocksDB disables its WAL and fjall stops persisting its
//! journal per write (it cannot turn the journal off).

use crate::engine::{
    BufferedWriter, CellRef, Compression, Engine, EngineKind, TableSpec, ThenWrite,
};
use crate::{Error, Result};
use parking_lot::{Mutex, MutexGuard};
use std::path::Path;

/// What a `BufferedWriter` holds before it writes a batch (HBase's BufferedMutator default
/// `hbase.client.write.buffer`, 2 MiB, the size regionkv's mutator uses too).
const WRITE_BUFFER_BYTES: usize = 2 << 20;

/// How cells map to keys (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum KeyLayout {
    /// One family, one column: the key is the row.
    Row,
    /// `row | 0 | family | 0 | qualifier`.
    RowColumn,
}

impl KeyLayout {
    fn of(spec: &TableSpec) -> Self {
        if spec.families.len() == 1 && spec.columns <= 1 {
            Self::Row
        } else {
            Self::RowColumn
        }
    }

    fn key(self, row: &[u8], family: &[u8], qualifier: &[u8]) -> Vec<u8> {
        match self {
            Self::Row => row.to_vec(),
            Self::RowColumn => {
                let mut k = Vec::with_capacity(row.len() + family.len() + qualifier.len() + 2);
                k.extend_from_slice(row);
                k.push(0);
                k.extend_from_slice(family);
                k.push(0);
                k.extend_from_slice(qualifier);
                k
            }
        }
    }

    /// The row part of a stored key.
    fn row_of(self, key: &[u8]) -> &[u8] {
        match self {
            Self::Row => key,
            Self::RowColumn => key.split(|b| *b == 0).next().unwrap_or(key),
        }
    }

    /// The first key of a row: every key of the row starts with it.
    fn row_prefix(self, row: &[u8]) -> Vec<u8> {
        match self {
            Self::Row => row.to_vec(),
            Self::RowColumn => {
                let mut k = row.to_vec();
                k.push(0);
                k
            }
        }
    }
}

/// Counts the rows in a stream of keys, `limit` at most: returns whether to go on.
struct RowCounter {
    layout: KeyLayout,
    last: Option<Vec<u8>>,
    rows: usize,
    limit: usize,
}

impl RowCounter {
    fn new(layout: KeyLayout, limit: usize) -> Self {
        Self {
            layout,
            last: None,
            rows: 0,
            limit,
        }
    }

    /// Sees one key; false once the key starts a row past the limit.
    fn see(&mut self, key: &[u8]) -> bool {
        let row = self.layout.row_of(key);
        if self.last.as_deref() == Some(row) {
            return true;
        }
        if self.rows >= self.limit {
            return false;
        }
        self.rows += 1;
        if self.layout == KeyLayout::RowColumn {
            self.last = Some(row.to_vec());
        }
        true
    }
}

/// Striped row locks for read-modify-write operations.
struct RowLocks(Vec<Mutex<()>>);

impl RowLocks {
    fn new() -> Self {
        Self((0..256).map(|_| Mutex::new(())).collect())
    }

    fn lock(&self, row: &[u8]) -> MutexGuard<'_, ()> {
        // FNV-1a of the row picks the stripe.
        let h = row.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
            (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
        });
        // The modulo keeps the index inside the 256 stripes.
        self.0[(h % self.0.len() as u64) as usize].lock()
    }
}

fn counter_of(value: Option<&[u8]>) -> Result<i64> {
    match value {
        None => Ok(0),
        Some(v) => <[u8; 8]>::try_from(v)
            .map(i64::from_be_bytes)
            .map_err(|_| Error::Engine("field is not a long (8 bytes)".into())),
    }
}

/// What the read-modify-write operations need of a peer: a point read and a one-key
/// write at the engine's durability, its key layout and its row locks.
trait PointKv {
    fn layout(&self) -> KeyLayout;
    fn locks(&self) -> &RowLocks;
    fn read(&self, key: &[u8]) -> Result<Option<Vec<u8>>>;
    fn write_one(&self, key: Vec<u8>, value: &[u8]) -> Result<()>;
}

/// HBase's Increment on a peer: read, add, write under the row lock.
fn rmw_increment(
    e: &impl PointKv,
    row: &[u8],
    family: &[u8],
    qualifier: &[u8],
    delta: i64,
) -> Result<i64> {
    let key = e.layout().key(row, family, qualifier);
    let _row = e.locks().lock(row);
    let new = counter_of(e.read(&key)?.as_deref())?.wrapping_add(delta);
    e.write_one(key, &new.to_be_bytes())?;
    Ok(new)
}

/// HBase's Append on a peer.
fn rmw_append(
    e: &impl PointKv,
    row: &[u8],
    family: &[u8],
    qualifier: &[u8],
    value: &[u8],
) -> Result<()> {
    let key = e.layout().key(row, family, qualifier);
    let _row = e.locks().lock(row);
    let mut v = e.read(&key)?.unwrap_or_default();
    v.extend_from_slice(value);
    e.write_one(key, &v)
}

/// HBase's checkAndPut (value equals) on a peer.
fn rmw_check_and_put(
    e: &impl PointKv,
    row: &[u8],
    family: &[u8],
    qualifier: &[u8],
    expected: &[u8],
    value: &[u8],
) -> Result<bool> {
    let key = e.layout().key(row, family, qualifier);
    let _row = e.locks().lock(row);
    if e.read(&key)?.as_deref() != Some(expected) {
        return Ok(false);
    }
    e.write_one(key, value)?;
    Ok(true)
}

// ---------------------------------------------------------------------------------------
// RocksDB

fn rocks(e: rocksdb::Error) -> Error {
    Error::Engine(format!("rocksdb: {e}"))
}

/// RocksDB through the `rocksdb` crate: one default column family, LZ4 or no compression,
/// a 10 bits-per-key bloom filter unless the spec says NONE, an LRU block cache of the
/// spec's size, RocksDB's other defaults.
pub struct RocksdbEngine {
    db: rocksdb::DB,
    write: rocksdb::WriteOptions,
    layout: KeyLayout,
    locks: RowLocks,
}

impl RocksdbEngine {
    /// Opens (or creates) a database on `dir`.
    pub fn open(dir: &Path, spec: &TableSpec) -> Result<Self> {
        let mut opts = rocksdb::Options::default();
        opts.create_if_missing(true);
        opts.set_compression_type(match spec.compression {
            Compression::None => rocksdb::DBCompressionType::None,
            Compression::Lz4 => rocksdb::DBCompressionType::Lz4,
        });
        if let Some(bytes) = spec.memtable_bytes {
            opts.set_write_buffer_size(usize::try_from(bytes).unwrap_or(usize::MAX));
        }
        let mut table = rocksdb::BlockBasedOptions::default();
        let cache =
            rocksdb::Cache::new_lru_cache(usize::try_from(spec.block_cache).unwrap_or(usize::MAX));
        table.set_block_cache(&cache);
        if !spec.bloom.eq_ignore_ascii_case("NONE") {
            table.set_bloom_filter(10.0, false);
        }
        if let Some(b) = spec.block_size {
            table.set_block_size(b as usize);
        }
        opts.set_block_based_table_factory(&table);
        let db = rocksdb::DB::open(&opts, dir).map_err(rocks)?;
        let mut write = rocksdb::WriteOptions::default();
        write.disable_wal(!spec.wal);
        write.set_sync(spec.wal && spec.sync);
        Ok(Self {
            db,
            write,
            layout: KeyLayout::of(spec),
            locks: RowLocks::new(),
        })
    }

    fn batch_of(&self, batch: &mut rocksdb::WriteBatch, row: &[u8], cells: &[CellRef<'_>]) {
        for (f, q, v) in cells {
            batch.put(self.layout.key(row, f, q), v);
        }
    }
}

impl PointKv for RocksdbEngine {
    fn layout(&self) -> KeyLayout {
        self.layout
    }

    fn locks(&self) -> &RowLocks {
        &self.locks
    }

    fn read(&self, key: &[u8]) -> Result<Option<Vec<u8>>> {
        Ok(self.db.get_pinned(key).map_err(rocks)?.map(|v| v.to_vec()))
    }

    fn write_one(&self, key: Vec<u8>, value: &[u8]) -> Result<()> {
        self.db.put_opt(key, value, &self.write).map_err(rocks)
    }
}

struct RocksdbBuffered<'a> {
    engine: &'a RocksdbEngine,
    batch: rocksdb::WriteBatch,
}

impl BufferedWriter for RocksdbBuffered<'_> {
    fn put(&mut self, row: &[u8], cells: &[CellRef<'_>]) -> Result<()> {
        self.engine.batch_of(&mut self.batch, row, cells);
        if self.batch.size_in_bytes() >= WRITE_BUFFER_BYTES {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        if !self.batch.is_empty() {
            let batch = std::mem::take(&mut self.batch);
            self.engine
                .db
                .write_opt(batch, &self.engine.write)
                .map_err(rocks)?;
        }
        Ok(())
    }
}

impl Drop for RocksdbBuffered<'_> {
    fn drop(&mut self) {
        // Errors surface through an explicit `flush`; a drop has nowhere to report them.
        let _ = self.flush();
    }
}

impl Engine for RocksdbEngine {
    fn kind(&self) -> EngineKind {
        EngineKind::Rocksdb
    }

    fn put(&self, row: &[u8], cells: &[CellRef<'_>]) -> Result<()> {
        if let [(f, q, v)] = cells {
            return self
                .db
                .put_opt(self.layout.key(row, f, q), v, &self.write)
                .map_err(rocks);
        }
        let mut batch = rocksdb::WriteBatch::default();
        self.batch_of(&mut batch, row, cells);
        self.db.write_opt(batch, &self.write).map_err(rocks)
    }

    fn buffered(&self) -> Box<dyn BufferedWriter + '_> {
        Box::new(RocksdbBuffered {
            engine: self,
            batch: rocksdb::WriteBatch::default(),
        })
    }

    fn get(&self, row: &[u8], column: Option<(&[u8], &[u8])>) -> Result<usize> {
        match (self.layout, column) {
            (KeyLayout::Row, _) | (KeyLayout::RowColumn, Some(_)) => {
                let (f, q) = column.unwrap_or((&[], &[]));
                let v = self
                    .db
                    .get_pinned(self.layout.key(row, f, q))
                    .map_err(rocks)?;
                Ok(usize::from(v.is_some()))
            }
            (KeyLayout::RowColumn, None) => {
                let prefix = self.layout.row_prefix(row);
                let mut it = self.db.raw_iterator();
                it.seek(&prefix);
                let mut n = 0;
                while let Some(k) = it.key() {
                    if !k.starts_with(&prefix) {
                        break;
                    }
                    // The value is read as a row read would.
                    std::hint::black_box(it.value());
                    n += 1;
                    it.next();
                }
                it.status().map_err(rocks)?;
                Ok(n)
            }
        }
    }

    fn scan(&self, start: &[u8], stop: Option<&[u8]>, limit: usize) -> Result<usize> {
        let mut it = self.db.raw_iterator();
        it.seek(start);
        let mut rows = RowCounter::new(self.layout, limit);
        while let Some(k) = it.key() {
            if stop.is_some_and(|s| k >= s) || !rows.see(k) {
                break;
            }
            std::hint::black_box(it.value());
            it.next();
        }
        it.status().map_err(rocks)?;
        Ok(rows.rows)
    }

    fn increment(&self, row: &[u8], family: &[u8], qualifier: &[u8], delta: i64) -> Result<i64> {
        rmw_increment(self, row, family, qualifier, delta)
    }

    fn append(&self, row: &[u8], family: &[u8], qualifier: &[u8], value: &[u8]) -> Result<()> {
        rmw_append(self, row, family, qualifier, value)
    }

    fn check_and_put(
        &self,
        row: &[u8],
        family: &[u8],
        qualifier: &[u8],
        expected: &[u8],
        value: &[u8],
        _then: ThenWrite,
    ) -> Result<bool> {
        rmw_check_and_put(self, row, family, qualifier, expected, value)
    }

    fn flush(&self) -> Result<()> {
        self.db.flush().map_err(rocks)
    }

    fn compact(&self) -> Result<()> {
        let mut c = rocksdb::CompactOptions::default();
        c.set_bottommost_level_compaction(rocksdb::BottommostLevelCompaction::Force);
        self.db.compact_range_opt(None::<&[u8]>, None::<&[u8]>, &c);
        self.settle()
    }

    fn settle(&self) -> Result<()> {
        self.db
            .wait_for_compact(&rocksdb::WaitForCompactOptions::default())
            .map_err(rocks)
    }
}

// ---------------------------------------------------------------------------------------
// fjall

fn fj(e: fjall::Error) -> Error {
    Error::Engine(format!("fjall: {e}"))
}

/// fjall 3 with one keyspace: the spec's block cache, LZ4 or no compression on every
/// level, fjall's default bloom filters unless the spec says NONE, fjall's other defaults.
pub struct FjallEngine {
    db: fjall::Database,
    ks: fjall::Keyspace,
    layout: KeyLayout,
    persist: Option<fjall::PersistMode>,
    locks: RowLocks,
}

impl FjallEngine {
    /// Opens (or creates) a database on `dir`.
    pub fn open(dir: &Path, spec: &TableSpec) -> Result<Self> {
        let db = fjall::Database::builder(dir)
            .cache_size(spec.block_cache)
            .open()
            .map_err(fj)?;
        let spec2 = spec.clone();
        let ks = db
            .keyspace(&spec.name, move || {
                let mut o = fjall::KeyspaceCreateOptions::default()
                    .data_block_compression_policy(fjall::config::CompressionPolicy::all(
                        match spec2.compression {
                            Compression::None => fjall::CompressionType::None,
                            Compression::Lz4 => fjall::CompressionType::Lz4,
                        },
                    ))
                    .manual_journal_persist(!spec2.wal);
                if spec2.bloom.eq_ignore_ascii_case("NONE") {
                    o = o.filter_policy(fjall::config::FilterPolicy::disabled());
                }
                if let Some(bytes) = spec2.memtable_bytes {
                    o = o.max_memtable_size(bytes);
                }
                if let Some(b) = spec2.block_size {
                    o = o.data_block_size_policy(fjall::config::BlockSizePolicy::all(b));
                }
                o
            })
            .map_err(fj)?;
        Ok(Self {
            db,
            ks,
            layout: KeyLayout::of(spec),
            // Without a mode, a fjall commit leaves its journal entry in an 8 KiB user-space
            // buffer, so a process crash would lose acknowledged writes: weaker than
            // SYNC_WAL. `Buffer` hands every commit to the OS, as RocksDB and regionkv do.
            persist: match (spec.wal, spec.sync) {
                (true, true) => Some(fjall::PersistMode::SyncData),
                (true, false) => Some(fjall::PersistMode::Buffer),
                (false, _) => None,
            },
            locks: RowLocks::new(),
        })
    }

    fn write(&self, f: impl FnOnce(&mut fjall::OwnedWriteBatch)) -> Result<()> {
        let mut batch = self.db.batch().durability(self.persist);
        f(&mut batch);
        batch.commit().map_err(fj)
    }
}

impl PointKv for FjallEngine {
    fn layout(&self) -> KeyLayout {
        self.layout
    }

    fn locks(&self) -> &RowLocks {
        &self.locks
    }

    fn read(&self, key: &[u8]) -> Result<Option<Vec<u8>>> {
        Ok(self.ks.get(key).map_err(fj)?.map(|v| v.to_vec()))
    }

    fn write_one(&self, key: Vec<u8>, value: &[u8]) -> Result<()> {
        self.write(|b| b.insert(&self.ks, key, value))
    }
}

struct FjallBuffered<'a> {
    engine: &'a FjallEngine,
    batch: Vec<(Vec<u8>, Vec<u8>)>,
    bytes: usize,
}

impl BufferedWriter for FjallBuffered<'_> {
    fn put(&mut self, row: &[u8], cells: &[CellRef<'_>]) -> Result<()> {
        for (f, q, v) in cells {
            let k = self.engine.layout.key(row, f, q);
            self.bytes += k.len() + v.len();
            self.batch.push((k, v.to_vec()));
        }
        if self.bytes >= WRITE_BUFFER_BYTES {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        if !self.batch.is_empty() {
            let cells = std::mem::take(&mut self.batch);
            self.bytes = 0;
            self.engine.write(|b| {
                for (k, v) in cells {
                    b.insert(&self.engine.ks, k, v);
                }
            })?;
        }
        Ok(())
    }
}

impl Drop for FjallBuffered<'_> {
    fn drop(&mut self) {
        // Errors surface through an explicit `flush`; a drop has nowhere to report them.
        let _ = self.flush();
    }
}

impl Engine for FjallEngine {
    fn kind(&self) -> EngineKind {
        EngineKind::Fjall
    }

    fn put(&self, row: &[u8], cells: &[CellRef<'_>]) -> Result<()> {
        if let ([(f, q, v)], None) = (cells, self.persist) {
            return self.ks.insert(self.layout.key(row, f, q), *v).map_err(fj);
        }
        self.write(|b| {
            for (f, q, v) in cells {
                b.insert(&self.ks, self.layout.key(row, f, q), *v);
            }
        })
    }

    fn buffered(&self) -> Box<dyn BufferedWriter + '_> {
        Box::new(FjallBuffered {
            engine: self,
            batch: Vec::new(),
            bytes: 0,
        })
    }

    fn get(&self, row: &[u8], column: Option<(&[u8], &[u8])>) -> Result<usize> {
        match (self.layout, column) {
            (KeyLayout::Row, _) | (KeyLayout::RowColumn, Some(_)) => {
                let (f, q) = column.unwrap_or((&[], &[]));
                let v = self.ks.get(self.layout.key(row, f, q)).map_err(fj)?;
                Ok(usize::from(v.is_some()))
            }
            (KeyLayout::RowColumn, None) => {
                let mut n = 0;
                for kv in self.ks.prefix(self.layout.row_prefix(row)) {
                    std::hint::black_box(kv.into_inner().map_err(fj)?);
                    n += 1;
                }
                Ok(n)
            }
        }
    }

    fn scan(&self, start: &[u8], stop: Option<&[u8]>, limit: usize) -> Result<usize> {
        let iter = match stop {
            Some(stop) => self.ks.range(start..stop),
            None => self.ks.range(start..),
        };
        let mut rows = RowCounter::new(self.layout, limit);
        for kv in iter {
            let (k, v) = kv.into_inner().map_err(fj)?;
            if !rows.see(&k) {
                break;
            }
            std::hint::black_box(v);
        }
        Ok(rows.rows)
    }

    fn increment(&self, row: &[u8], family: &[u8], qualifier: &[u8], delta: i64) -> Result<i64> {
        rmw_increment(self, row, family, qualifier, delta)
    }

    fn append(&self, row: &[u8], family: &[u8], qualifier: &[u8], value: &[u8]) -> Result<()> {
        rmw_append(self, row, family, qualifier, value)
    }

    fn check_and_put(
        &self,
        row: &[u8],
        family: &[u8],
        qualifier: &[u8],
        expected: &[u8],
        value: &[u8],
        _then: ThenWrite,
    ) -> Result<bool> {
        rmw_check_and_put(self, row, family, qualifier, expected, value)
    }

    fn flush(&self) -> Result<()> {
        self.ks.rotate_memtable_and_wait().map_err(fj)
    }

    fn compact(&self) -> Result<()> {
        self.settle()?;
        self.ks.major_compact().map_err(fj)?;
        self.settle()
    }

    fn settle(&self) -> Result<()> {
        // fjall has no wait-for-compactions call: idle twice in a row, 20 ms apart, is
        // taken as settled (a worker picks a new compaction up within that time).
        let mut idle_rounds = 0;
        while idle_rounds < 2 {
            std::thread::sleep(std::time::Duration::from_millis(20));
            if self.db.outstanding_flushes() == 0 && self.db.active_compactions() == 0 {
                idle_rounds += 1;
            } else {
                idle_rounds = 0;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_layouts() {
        let spec = TableSpec::new("t", b"cf");
        assert_eq!(KeyLayout::of(&spec), KeyLayout::Row);
        let wide = TableSpec {
            columns: 3,
            ..spec.clone()
        };
        assert_eq!(KeyLayout::of(&wide), KeyLayout::RowColumn);
        let l = KeyLayout::RowColumn;
        let k = l.key(b"r1", b"cf", b"q");
        assert_eq!(k, b"r1\0cf\0q");
        assert_eq!(l.row_of(&k), b"r1");
        assert!(k.starts_with(&l.row_prefix(b"r1")));
        assert!(!l.key(b"r10", b"cf", b"q").starts_with(&l.row_prefix(b"r1")));
        assert_eq!(KeyLayout::Row.key(b"r1", b"cf", b"q"), b"r1");
    }

    #[test]
    fn row_counter_counts_rows_not_cells() {
        let mut c = RowCounter::new(KeyLayout::RowColumn, 2);
        for k in [&b"a\0f\0q1"[..], b"a\0f\0q2", b"b\0f\0q1"] {
            assert!(c.see(k));
        }
        assert!(!c.see(b"c\0f\0q1"));
        assert_eq!(c.rows, 2);
    }

    fn each_peer(f: impl Fn(&dyn Engine)) {
        for (i, spec) in [
            TableSpec::new("t", b"cf"),
            TableSpec {
                columns: 2,
                ..TableSpec::new("t", b"cf")
            },
        ]
        .into_iter()
        .enumerate()
        {
            let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
            let r = RocksdbEngine::open(&dir.path().join(format!("r{i}")), &spec)
                .unwrap_or_else(|e| panic!("{e}"));
            f(&r);
            let fj = FjallEngine::open(&dir.path().join(format!("f{i}")), &spec)
                .unwrap_or_else(|e| panic!("{e}"));
            f(&fj);
        }
    }

    #[test]
    fn peers_serve_the_engine_contract() -> Result<()> {
        each_peer(|e| {
            let run = || -> Result<()> {
                for i in 0..50u32 {
                    let row = format!("row{i:03}");
                    e.put(row.as_bytes(), &[(b"cf", b"a", b"1"), (b"cf", b"b", b"2")])?;
                }
                let mut w = e.buffered();
                for i in 50..100u32 {
                    w.put(format!("row{i:03}").as_bytes(), &[(b"cf", b"a", b"1")])?;
                }
                w.flush()?;
                drop(w);
                e.flush()?;
                assert!(e.get(b"row010", None)? >= 1);
                assert_eq!(e.get(b"nope", None)?, 0);
                assert_eq!(e.scan(b"row000", None, usize::MAX)?, 100);
                assert_eq!(e.scan(b"row010", Some(b"row020"), 100)?, 10);
                assert_eq!(e.scan(b"row095", None, 3)?, 3);
                assert_eq!(e.increment(b"ctr", b"cf", b"n", 5)?, 5);
                assert_eq!(e.increment(b"ctr", b"cf", b"n", -2)?, 3);
                e.append(b"ap", b"cf", b"x", b"ab")?;
                e.append(b"ap", b"cf", b"x", b"cd")?;
                assert!(!e.check_and_put(b"ap", b"cf", b"x", b"ab", b"z", ThenWrite::Put)?);
                assert!(e.check_and_put(b"ap", b"cf", b"x", b"abcd", b"z", ThenWrite::Put)?);
                e.compact()?;
                assert_eq!(e.get(b"ap", Some((b"cf", b"x")))?, 1);
                Ok(())
            };
            run().unwrap_or_else(|err| panic!("{}: {err}", e.kind().name()));
        });
        Ok(())
    }
}
