//! `DbOptions`: everything a Db is opened with — the clock (HBase tests inject an
//! environment edge the same way), the file system seam, cache and memstore budgets,
//! background threads and the region/compaction knobs under HBase's names. The types of
//! its WAL and region fields are re-exported here ([`WalConfig`], [`RecoveryMode`],
//! [`RegionConfig`] and what it holds), so a program configures a Db through `regionkv`
//! alone; the file system seam is [`crate::fs`].
//!
//! ```
//! use regionkv::{Clock, Db, DbOptions, ManualClock};
//! use std::sync::Arc;
//!
//! let clock = ManualClock::new(1_700_000_000_000); // frozen time, as in HBase's tests
//! let options = DbOptions::default()
//!     .background(false)
//!     .clock(Arc::new(clock.clone()))
//!     .block_cache_bytes(8 << 20);
//! let dir = tempfile::tempdir()?;
//! let db = Db::open(dir.path(), options)?;
//! assert_eq!(db.clock().now_millis(), 1_700_000_000_000);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::fs::Fs;
use regionkv_cell::{SharedClock, SystemClock};
use std::sync::Arc;
use std::time::Duration;

/// The region and compaction knobs of [`DbOptions::region`].
pub use regionkv_region::RegionConfig;
/// The type of a field of [`RegionConfig`].
pub use regionkv_region::compaction::{CompactionConfig, CompactionPolicyKind};
/// The type of a field of [`RegionConfig`].
pub use regionkv_region::flush::policy::FlushPolicy;
/// What WAL replay does with a damaged log ([`DbOptions::wal_recovery`]).
pub use regionkv_wal::RecoveryMode;
/// The WAL settings of [`DbOptions::wal`].
pub use regionkv_wal::WalConfig;

/// Options for [`crate::Db::open`]. `DbOptions::default()` is HBase's defaults with a
/// 32 MiB block cache and a 1 GiB Db-wide memstore budget.
///
/// ```
/// use regionkv::{Db, DbOptions};
///
/// let defaults = DbOptions::default();
/// assert!(defaults.create_if_missing && defaults.background);
/// assert_eq!(defaults.block_cache_bytes, 32 << 20);
/// assert_eq!(defaults.global_memstore_bytes, 1 << 30);
/// assert_eq!((defaults.flush_threads, defaults.compaction_threads), (2, (1, 1)));
///
/// // Builder methods for the common knobs, struct update syntax for the rest.
/// let options = DbOptions {
///     global_memstore_bytes: 64 << 20,
///     ..DbOptions::default().background(false)
/// };
/// let dir = tempfile::tempdir()?;
/// let db = Db::open(dir.path(), options)?;
/// assert!(db.admin().list_tables()?.is_empty());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// The WAL, recovery and region knobs, every type named through `regionkv`:
///
/// ```
/// use regionkv::options::{CompactionConfig, RecoveryMode, RegionConfig, WalConfig};
/// use regionkv::{Db, DbOptions};
/// use std::time::Duration;
///
/// let options = DbOptions {
///     wal: WalConfig { roll_size: 8 << 20, ..WalConfig::default() },
///     // Any damage in the WAL fails the open, a torn tail included.
///     wal_recovery: RecoveryMode::AbsoluteConsistency,
///     region: RegionConfig {
///         row_lock_wait: Duration::from_secs(5),
///         compaction: CompactionConfig { min_files: 4, ..CompactionConfig::default() },
///         ..RegionConfig::default()
///     },
///     ..DbOptions::default().background(false)
/// };
/// let dir = tempfile::tempdir()?;
/// let db = Db::open(dir.path(), options)?;
/// assert!(db.admin().list_tables()?.is_empty());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct DbOptions {
    /// The engine clock (default: the system clock).
    pub clock: SharedClock,
    /// The file system (default: the real one, storefiles read through mmap).
    pub fs: Option<Arc<dyn Fs>>,
    /// Create the directory when it does not exist (default true).
    pub create_if_missing: bool,
    /// Block cache capacity in bytes (0: no cache).
    pub block_cache_bytes: u64,
    /// The Db-wide memstore budget (HBase's `hbase.regionserver.global.memstore.size`).
    pub global_memstore_bytes: u64,
    /// The memstore chunk pool's size as a fraction of `global_memstore_bytes` (HBase's
    /// `hbase.hregion.memstore.chunkpool.maxsize`, default 1.0). A flushed memstore gives
    /// its 2 MiB arena chunks back to the pool and the next memstores take them, already
    /// paged in, instead of allocating fresh memory that the kernel must zero on first
    /// touch. The pool owns chunks, in use or idle, up to this share of the budget (HBase's
    /// `MemStoreChunkPool` rule), so at 1.0 its idle chunks never hold memory beyond the
    /// budget; 0 turns the pool off. With background work on, the flush threads also free
    /// idle chunks beyond what memstores took over the last three seconds
    /// (`ChunkPool::trim_idle`), so a flush followed by few writes does not leave its
    /// chunks resident.
    pub chunk_pool_max_fraction: f64,
    /// Background work: flush and compaction threads, and the compaction checker. When
    /// false, regions flush when their memstore is full and compact only on request —
    /// deterministic, for tests.
    pub background: bool,
    /// Flusher threads (`hbase.hstore.flusher.count`, 2).
    pub flush_threads: usize,
    /// Small and large compaction threads (`hbase.regionserver.thread.compaction.small`
    /// / `.large`, 1 each).
    pub compaction_threads: (usize, usize),
    /// How often the compaction checker looks for due compactions.
    pub compaction_check_interval: Duration,
    /// WAL settings.
    pub wal: WalConfig,
    /// What replay does with a corrupt WAL.
    pub wal_recovery: RecoveryMode,
    /// Region and compaction knobs.
    pub region: RegionConfig,
    /// The observer classes the program registers (see [`DbOptions::coprocessor`]).
    pub coprocessors: crate::coprocessor::CoprocessorRegistry,
}

impl std::fmt::Debug for DbOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DbOptions")
            .field("create_if_missing", &self.create_if_missing)
            .field("block_cache_bytes", &self.block_cache_bytes)
            .field("global_memstore_bytes", &self.global_memstore_bytes)
            .field("chunk_pool_max_fraction", &self.chunk_pool_max_fraction)
            .field("background", &self.background)
            .finish_non_exhaustive()
    }
}

impl Default for DbOptions {
    fn default() -> Self {
        Self {
            clock: Arc::new(SystemClock),
            fs: None,
            create_if_missing: true,
            block_cache_bytes: 32 << 20,
            global_memstore_bytes: 1 << 30,
            chunk_pool_max_fraction: 1.0,
            background: true,
            flush_threads: 2,
            compaction_threads: (1, 1),
            compaction_check_interval: regionkv_regionserver::DEFAULT_COMPACTION_CHECK_INTERVAL,
            wal: WalConfig::default(),
            wal_recovery: RecoveryMode::TolerateCorruptedTail,
            region: RegionConfig::default(),
            coprocessors: Default::default(),
        }
    }
}

impl DbOptions {
    /// Registers a region observer class under `class_name`: a table whose
    /// `coprocessor$N` spec names it loads it, one instance per region made by `factory`
    /// (HBase loads the class the spec names; here the program supplies it by name).
    ///
    /// ```
    /// use regionkv::coprocessor::{CoprocessorError, CoprocessorResult, ObserverContext, RegionObserver};
    /// use regionkv::{ColumnFamilyDescriptor, Db, DbOptions, Error, Put, TableDescriptor};
    /// use std::sync::Arc;
    ///
    /// struct NoEmptyValues;
    /// impl RegionObserver for NoEmptyValues {
    ///     fn pre_put(&self, _: &mut ObserverContext<'_>, put: &mut Put) -> CoprocessorResult<()> {
    ///         match put.entries().iter().any(|(_, _, _, v)| v.is_empty()) {
    ///             true => Err(CoprocessorError::new("empty values are refused")),
    ///             false => Ok(()),
    ///         }
    ///     }
    /// }
    /// let dir = tempfile::tempdir()?;
    /// let options = DbOptions::default()
    ///     .background(false)
    ///     .coprocessor("com.example.NoEmptyValues", |_| Arc::new(NoEmptyValues));
    /// let db = Db::open(dir.path(), options)?;
    /// let mut desc = TableDescriptor::new("t", vec![ColumnFamilyDescriptor::new(b"f")?])?;
    /// desc.add_coprocessor("|com.example.NoEmptyValues||")?;
    /// db.admin().create_table(&desc)?;
    /// let table = db.table("t")?;
    /// table.put(&Put::new("r").add_column("f", "q", "v"))?;
    /// let err = table.put(&Put::new("r").add_column("f", "q", "")).unwrap_err();
    /// assert!(matches!(err, Error::Coprocessor { .. }));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn coprocessor(
        mut self,
        class_name: &str,
        factory: impl Fn(
            &crate::coprocessor::RegionEnvironment,
        ) -> Arc<dyn crate::coprocessor::RegionObserver>
        + Send
        + Sync
        + 'static,
    ) -> Self {
        self.coprocessors.register(class_name, Arc::new(factory));
        self
    }

    /// Registers a constraint class under `class_name`: a table whose
    /// `constraint $<class_name>` value names it (see [`crate::constraint::Constraints`])
    /// runs it on each put, made by `factory` from the stored configuration.
    pub fn constraint(
        mut self,
        class_name: &str,
        factory: impl Fn(
            &crate::constraint::ConstraintConfig,
        ) -> std::result::Result<Arc<dyn crate::constraint::Constraint>, String>
        + Send
        + Sync
        + 'static,
    ) -> Self {
        self.coprocessors
            .register_constraint(class_name, Arc::new(factory));
        self
    }

    /// Uses `clock` as the engine clock (e.g. a [`crate::ManualClock`] in tests).
    ///
    /// ```
    /// use regionkv::{ColumnFamilyDescriptor, Db, DbOptions, Get, ManualClock, Put};
    /// use regionkv::TableDescriptor;
    /// use std::sync::Arc;
    ///
    /// let clock = ManualClock::new(1_700_000_000_000);
    /// let dir = tempfile::tempdir()?;
    /// let options = DbOptions::default().background(false).clock(Arc::new(clock.clone()));
    /// let db = Db::open(dir.path(), options)?;
    /// let cf = ColumnFamilyDescriptor::new(b"cf")?;
    /// db.admin().create_table(&TableDescriptor::new("t", vec![cf])?)?;
    /// let table = db.table("t")?;
    /// table.put(&Put::new("r").add_column("cf", "q", "v"))?;
    /// let cell = table.get(&Get::new("r"))?.cells()[0].clone();
    /// assert_eq!(cell.timestamp(), 1_700_000_000_000); // the time the clock gave
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn clock(mut self, clock: SharedClock) -> Self {
        self.clock = clock;
        self
    }
    /// Uses `fs` instead of the real file system.
    ///
    /// ```
    /// use regionkv::fs::{Fs, MemFs};
    /// use regionkv::{Db, DbOptions};
    /// use std::path::Path;
    /// use std::sync::Arc;
    ///
    /// // An in-memory file system (the test double of the file system seam): nothing
    /// // touches the disk.
    /// let fs = Arc::new(MemFs::new());
    /// let db = Db::open("/db", DbOptions::default().background(false).fs(fs.clone()))?;
    /// assert!(fs.exists(Path::new("/db/REGIONKV"))?);
    /// assert!(!Path::new("/db/REGIONKV").exists());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn fs(mut self, fs: Arc<dyn Fs>) -> Self {
        self.fs = Some(fs);
        self
    }
    /// Turns background flushes and compactions on or off.
    ///
    /// ```
    /// use regionkv::{ColumnFamilyDescriptor, Db, DbOptions, Put, TableDescriptor};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let db = Db::open(dir.path(), DbOptions::default().background(false))?;
    /// let cf = ColumnFamilyDescriptor::new(b"cf")?;
    /// db.admin().create_table(&TableDescriptor::new("t", vec![cf])?)?;
    /// db.table("t")?.put(&Put::new("r").add_column("cf", "q", "v"))?;
    /// // Nothing is flushed behind our back; the data stays in the memstore until asked.
    /// assert_eq!(db.admin().regions("t")?[0].store_files, 0);
    /// db.admin().flush("t")?;
    /// assert_eq!(db.admin().regions("t")?[0].store_files, 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn background(mut self, on: bool) -> Self {
        self.background = on;
        self
    }
    /// Sets the block cache capacity.
    ///
    /// ```
    /// use regionkv::{Db, DbOptions};
    ///
    /// let options = DbOptions::default().background(false).block_cache_bytes(0); // no cache
    /// assert_eq!(options.block_cache_bytes, 0);
    /// let dir = tempfile::tempdir()?;
    /// let db = Db::open(dir.path(), options)?;
    /// assert!(db.admin().list_tables()?.is_empty());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn block_cache_bytes(mut self, bytes: u64) -> Self {
        self.block_cache_bytes = bytes;
        self
    }
    /// Fails instead of creating a missing directory.
    ///
    /// ```
    /// use regionkv::{Db, DbOptions, Error};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("db");
    /// let strict = DbOptions::default().background(false).create_if_missing(false);
    /// assert!(matches!(Db::open(&path, strict.clone()), Err(Error::NotADb { .. })));
    /// drop(Db::open(&path, DbOptions::default().background(false))?); // creates it
    /// let db = Db::open(&path, strict)?; // now it exists
    /// assert_eq!(db.dir(), path);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn create_if_missing(mut self, create: bool) -> Self {
        self.create_if_missing = create;
        self
    }
}
