//! The storage engines a benchmark drives, behind one trait: regionkv always; RocksDB and
//! fjall under the `peers` feature (`crate::peers`).
//!
//! The trait speaks HBase's data model at the level PerformanceEvaluation and YCSB need: a
//! row of cells `(family, qualifier) → value`. regionkv stores them as HBase does, one cell
//! per column. A plain key-value peer stores a cell under the row key alone when the table
//! has one column (so the comparison suite's keys are the same 16 bytes for every engine),
//! otherwise under `row | 0x00 | family | 0x00 | qualifier`, as YCSB's and PE's key-value
//! bindings would have to.

use crate::{Error, Result};
use regionkv::{
    Append, ColumnFamilyDescriptor, Db, DbOptions, Durability, Get, Increment, Put, Scan, Table,
    TableDescriptor,
};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The engines a run can use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EngineKind {
    /// regionkv itself.
    Regionkv,
    /// RocksDB through the `rocksdb` crate (feature `peers`).
    Rocksdb,
    /// fjall (feature `peers`).
    Fjall,
}

impl EngineKind {
    /// Parses `regionkv`, `rocksdb` or `fjall`.
    pub fn parse(s: &str) -> Result<Self> {
        match s.to_ascii_lowercase().as_str() {
            "regionkv" => Ok(Self::Regionkv),
            "rocksdb" => Ok(Self::Rocksdb),
            "fjall" => Ok(Self::Fjall),
            _ => Err(Error::Usage(format!(
                "unknown engine '{s}' (regionkv, rocksdb or fjall)"
            ))),
        }
    }

    /// The name as printed.
    pub fn name(self) -> &'static str {
        match self {
            Self::Regionkv => "regionkv",
            Self::Rocksdb => "rocksdb",
            Self::Fjall => "fjall",
        }
    }

    /// The data directory `pe` and `ycsb` use without `--data`.
    ///
    /// regionkv: `./regionkv-data`, the directory the shell and the gateways open by
    /// default. On an HBase cluster, PE writes its `TestTable` and YCSB its `usertable` into
    /// the same HBase the shell talks to, so a benchmark's table can be looked at (`count
    /// 'TestTable'`, `list_regions 'usertable'`) and read again by the next run; one default
    /// directory gives the same. (Only one process opens a directory at a time: a shell on
    /// it makes a benchmark fail with the directory's lock error, and the reverse.)
    ///
    /// RocksDB and fjall cannot share a regionkv directory, so they default to a sibling
    /// named after the engine: `./regionkv-data-rocksdb`, `./regionkv-data-fjall`.
    pub fn default_data_dir(self) -> std::path::PathBuf {
        match self {
            Self::Regionkv => std::path::PathBuf::from(DEFAULT_DATA_DIR),
            other => std::path::PathBuf::from(format!("{DEFAULT_DATA_DIR}-{}", other.name())),
        }
    }
}

/// The default data directory of every `regionkv` command that opens one (`shell`,
/// `serve`, `pe`, `ycsb`); see [`EngineKind::default_data_dir`].
pub const DEFAULT_DATA_DIR: &str = "./regionkv-data";

/// Block compression of the table's files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Compression {
    /// None.
    None,
    /// LZ4.
    Lz4,
}

/// What a table looks like and how writes are made durable: the options PE and YCSB turn
/// into a table descriptor (HBase) or database options (peers).
#[derive(Debug, Clone)]
pub struct TableSpec {
    /// Table name (`TestTable` for PE, `usertable` for YCSB).
    pub name: String,
    /// Column family names.
    pub families: Vec<Vec<u8>>,
    /// Columns per family (1: peers key cells by the row alone).
    pub columns: usize,
    /// Split points for a pre-split table (regionkv only; peers have one keyspace).
    pub splits: Vec<Vec<u8>>,
    /// The region count a pre-split asked for (PE's `--presplit`; 0: none asked). An
    /// existing table with another count is recreated.
    pub presplit_regions: usize,
    /// Block compression.
    pub compression: Compression,
    /// BLOOMFILTER: NONE, ROW or ROWCOL.
    pub bloom: String,
    /// DATA_BLOCK_ENCODING: NONE or PREFIX.
    pub block_encoding: String,
    /// IN_MEMORY.
    pub in_memory: bool,
    /// Write the WAL (false: HBase's SKIP_WAL; peers disable theirs).
    pub wal: bool,
    /// fsync the WAL on every write (HBase's FSYNC_WAL).
    pub sync: bool,
    /// Block cache bytes.
    pub block_cache: u64,
    /// Memstore (memtable) size that triggers a flush; `None`: each engine's default
    /// (regionkv 128 MiB as HBase, RocksDB and fjall 64 MiB).
    pub memtable_bytes: Option<u64>,
    /// Data block size; `None`: each engine's default (regionkv 64 KiB as HBase's
    /// BLOCKSIZE, RocksDB and fjall 4 KiB).
    pub block_size: Option<u32>,
}

impl TableSpec {
    /// A one-family, one-column table with regionkv's defaults.
    pub fn new(name: &str, family: &[u8]) -> Self {
        Self {
            name: name.to_string(),
            families: vec![family.to_vec()],
            columns: 1,
            splits: Vec::new(),
            presplit_regions: 0,
            compression: Compression::None,
            bloom: "ROW".into(),
            block_encoding: "NONE".into(),
            in_memory: false,
            wal: true,
            sync: false,
            block_cache: 32 << 20,
            memtable_bytes: None,
            block_size: None,
        }
    }
}

/// How a check-and-put writes when the check passes (HBase's `thenPut` or `thenMutate`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ThenWrite {
    /// The put itself (PE's checkAndPut).
    Put,
    /// A row mutation holding the put (PE's checkAndMutate).
    RowMutations,
}

/// One cell to write: family, qualifier, value.
pub type CellRef<'a> = (&'a [u8], &'a [u8], &'a [u8]);

/// A storage engine under benchmark. Handles are shared by every client thread.
pub trait Engine: Send + Sync {
    /// Which engine.
    fn kind(&self) -> EngineKind;
    /// Writes the cells of one row (one atomic row mutation).
    fn put(&self, row: &[u8], cells: &[CellRef<'_>]) -> Result<()>;
    /// A writer that buffers puts and writes them in batches (HBase's BufferedMutator,
    /// PE's `--autoFlush=false`); flushed on `flush` and when dropped.
    fn buffered(&self) -> Box<dyn BufferedWriter + '_>;
    /// Reads a row (or one column of it); returns the number of cells found.
    fn get(&self, row: &[u8], column: Option<(&[u8], &[u8])>) -> Result<usize>;
    /// Scans from `start` (inclusive) to `stop` (exclusive, `None`: the end) and returns
    /// at most `limit` rows; returns the rows read.
    fn scan(&self, start: &[u8], stop: Option<&[u8]>, limit: usize) -> Result<usize>;
    /// Adds `delta` to an 8-byte big-endian counter; returns the new value.
    fn increment(&self, row: &[u8], family: &[u8], qualifier: &[u8], delta: i64) -> Result<i64>;
    /// Appends `value` to a cell.
    fn append(&self, row: &[u8], family: &[u8], qualifier: &[u8], value: &[u8]) -> Result<()>;
    /// Writes `value` when the cell holds `expected`; returns whether it did. `then`
    /// says how regionkv applies the put (PE's checkAndPut or checkAndMutate); engines
    /// without row mutations write the same put either way.
    fn check_and_put(
        &self,
        row: &[u8],
        family: &[u8],
        qualifier: &[u8],
        expected: &[u8],
        value: &[u8],
        then: ThenWrite,
    ) -> Result<bool>;
    /// Flushes in-memory data to files.
    fn flush(&self) -> Result<()>;
    /// Compacts everything into as few files as the engine makes.
    fn compact(&self) -> Result<()>;
    /// Waits until background flushes and compactions are idle.
    fn settle(&self) -> Result<()>;
}

/// A batching writer.
pub trait BufferedWriter {
    /// Buffers a row's cells.
    fn put(&mut self, row: &[u8], cells: &[CellRef<'_>]) -> Result<()>;
    /// Writes everything buffered.
    fn flush(&mut self) -> Result<()>;
}

/// Opens `kind` on `dir` for `spec`, creating the table when it does not exist.
pub fn open(kind: EngineKind, dir: &Path, spec: &TableSpec) -> Result<Arc<dyn Engine>> {
    match kind {
        EngineKind::Regionkv => Ok(Arc::new(RegionkvEngine::open(dir, spec)?)),
        #[cfg(feature = "peers")]
        EngineKind::Rocksdb => Ok(Arc::new(crate::peers::RocksdbEngine::open(dir, spec)?)),
        #[cfg(feature = "peers")]
        EngineKind::Fjall => Ok(Arc::new(crate::peers::FjallEngine::open(dir, spec)?)),
        #[cfg(not(feature = "peers"))]
        other => Err(Error::Usage(format!(
            "engine '{}' is compiled in only with the `peers` feature: \
             cargo run --release -p regionkv-cli --features peers -- ...",
            other.name()
        ))),
    }
}

/// A bad table option (family descriptor checks).
fn descriptor(e: impl std::fmt::Display) -> Error {
    Error::Usage(e.to_string())
}

/// regionkv through its public Table API, as an embedding program uses it.
pub struct RegionkvEngine {
    db: Db,
    table: Table,
    durability: Durability,
    name: String,
    dir: PathBuf,
}

impl RegionkvEngine {
    /// Opens (or creates) the table of `spec` in a Db on `dir`.
    ///
    /// An existing table is kept, with its own options, unless its family count differs
    /// from the spec's, or the spec asks for a pre-split and the table has another region
    /// count: then it is deleted and created again. That is PE's `checkTable` rule
    /// (HBase's PerformanceEvaluation recreates a table on the same two mismatches), and
    /// it says so on standard error.
    pub fn open(dir: &Path, spec: &TableSpec) -> Result<Self> {
        let db = Db::open(
            dir,
            DbOptions::default().block_cache_bytes(spec.block_cache),
        )?;
        let admin = db.admin();
        if admin.table_exists(&spec.name)? {
            let families = admin.describe(&spec.name)?.families.len();
            let regions = admin.regions(&spec.name)?.len();
            let presplit_differs = spec.presplit_regions > 0 && regions != spec.presplit_regions;
            if families != spec.families.len() || presplit_differs {
                eprintln!(
                    "Table {} has {families} families and {regions} regions; \
                     recreating it with {} families and {} regions",
                    spec.name,
                    spec.families.len(),
                    spec.splits.len() + 1
                );
                admin.disable_table(&spec.name)?;
                admin.delete_table(&spec.name)?;
            }
        }
        if !admin.table_exists(&spec.name)? {
            let mut families = Vec::with_capacity(spec.families.len());
            for f in &spec.families {
                let mut cf = ColumnFamilyDescriptor::new(f).map_err(descriptor)?;
                cf.set_attribute("BLOOMFILTER", &spec.bloom)
                    .map_err(descriptor)?;
                cf.set_attribute("DATA_BLOCK_ENCODING", &spec.block_encoding)
                    .map_err(descriptor)?;
                cf.set_attribute(
                    "COMPRESSION",
                    match spec.compression {
                        Compression::None => "NONE",
                        Compression::Lz4 => "LZ4",
                    },
                )
                .map_err(descriptor)?;
                cf.in_memory = spec.in_memory;
                if let Some(b) = spec.block_size {
                    cf.block_size = b as usize;
                }
                families.push(cf);
            }
            let mut desc = TableDescriptor::new(&spec.name, families).map_err(descriptor)?;
            if let Some(bytes) = spec.memtable_bytes {
                desc.memstore_flush_size = bytes;
            }
            admin.create_table_with_splits(&desc, spec.splits.clone())?;
        }
        let table = db.table(&spec.name)?;
        let durability = match (spec.wal, spec.sync) {
            (false, _) => Durability::SkipWal,
            (true, false) => Durability::SyncWal,
            (true, true) => Durability::FsyncWal,
        };
        Ok(Self {
            db,
            table,
            durability,
            name: spec.name.clone(),
            dir: dir.to_path_buf(),
        })
    }

    /// The data directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn put_of(&self, row: &[u8], cells: &[CellRef<'_>]) -> Put {
        let mut p = Put::new(row).durability(self.durability);
        for (f, q, v) in cells {
            p = p.add_column(f, q, v);
        }
        p
    }
}

struct RegionkvBuffered<'a> {
    engine: &'a RegionkvEngine,
    mutator: regionkv::BufferedMutator,
}

impl BufferedWriter for RegionkvBuffered<'_> {
    fn put(&mut self, row: &[u8], cells: &[CellRef<'_>]) -> Result<()> {
        self.mutator.mutate(self.engine.put_of(row, cells))?;
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        self.mutator.flush()?;
        Ok(())
    }
}

impl Engine for RegionkvEngine {
    fn kind(&self) -> EngineKind {
        EngineKind::Regionkv
    }

    fn put(&self, row: &[u8], cells: &[CellRef<'_>]) -> Result<()> {
        self.table.put(&self.put_of(row, cells))?;
        Ok(())
    }

    fn buffered(&self) -> Box<dyn BufferedWriter + '_> {
        Box::new(RegionkvBuffered {
            engine: self,
            mutator: self.table.buffered_mutator(),
        })
    }

    fn get(&self, row: &[u8], column: Option<(&[u8], &[u8])>) -> Result<usize> {
        let mut g = Get::new(row);
        if let Some((f, q)) = column {
            g = g.add_column(f, q);
        }
        Ok(self.table.get(&g)?.len())
    }

    fn scan(&self, start: &[u8], stop: Option<&[u8]>, limit: usize) -> Result<usize> {
        let mut s = Scan::new().start_row(start).limit(limit as u64);
        if let Some(stop) = stop {
            s = s.stop_row(stop);
        }
        // Fetch what the limit needs in one go (HBase's caching), at most 1000 rows.
        s = s.caching(limit.clamp(1, 1000));
        let mut n = 0;
        for r in self.table.scan(&s)? {
            r?;
            n += 1;
        }
        Ok(n)
    }

    fn increment(&self, row: &[u8], family: &[u8], qualifier: &[u8], delta: i64) -> Result<i64> {
        let inc = Increment::new(row)
            .add_column(family, qualifier, delta)
            .durability(self.durability);
        let r = self.table.increment(&inc)?;
        r.counter(family, qualifier)
            .ok_or_else(|| Error::Engine("increment returned no counter".into()))
    }

    fn append(&self, row: &[u8], family: &[u8], qualifier: &[u8], value: &[u8]) -> Result<()> {
        let app = Append::new(row)
            .add_column(family, qualifier, value)
            .return_results(false)
            .durability(self.durability);
        self.table.append(&app)?;
        Ok(())
    }

    fn check_and_put(
        &self,
        row: &[u8],
        family: &[u8],
        qualifier: &[u8],
        expected: &[u8],
        value: &[u8],
        then: ThenWrite,
    ) -> Result<bool> {
        let put = self.put_of(row, &[(family, qualifier, value)]);
        let check = regionkv::CheckAndMutate::builder(row).if_equals(family, qualifier, expected);
        let cam = match then {
            ThenWrite::Put => check.then_put(put),
            ThenWrite::RowMutations => {
                check.then_mutate(regionkv::RowMutations::new(row).add_mutation(put))
            }
        };
        Ok(self.table.check_and_mutate(&cam)?.success)
    }

    fn flush(&self) -> Result<()> {
        self.db.admin().flush(&self.name)?;
        Ok(())
    }

    fn compact(&self) -> Result<()> {
        let admin = self.db.admin();
        admin.flush(&self.name)?;
        admin.major_compact(&self.name)?;
        self.settle()?;
        // RocksDB starts a new log with every memtable and deletes the logs a flush made
        // obsolete; HBase keeps writing one log until it reaches its roll size. After a
        // full compaction roll it (HBase's `wal_roll`), so the disk holds what the data
        // needs, as the peers' do.
        admin.roll_wal_writer()?;
        Ok(())
    }

    fn settle(&self) -> Result<()> {
        self.db.wait_for_background_work();
        Ok(())
    }
}
