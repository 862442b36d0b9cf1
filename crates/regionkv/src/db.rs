//! `Db`: one directory holding every table — the identity file, the lock, the catalog,
//! the shared WAL and the region directories — and what the open regions share (HBase's
//! region server, embedded). Directory layout (docs/catalog-format.md):
//!
//! ```text
//! <dir>/REGIONKV                     identity: "regionkv" and the on-disk format version
//! <dir>/LOCK                         held while open, with the directory itself (dir_lock.rs)
//! <dir>/CATALOG                      namespaces, tables, regions (atomic replace)
//! <dir>/wal/                         the write-ahead log of every region
//! <dir>/data/<ns>/<table>/<region>/  one directory per region (MANIFEST, family dirs)
//! ```
//!
//! Admin operations change the catalog under one lock (`catalog`); reads and writes go
//! through each table's region map without it.
//!
//! ```
//! use regionkv::{Db, DbOptions};
//!
//! let dir = tempfile::tempdir()?;
//! let db = Db::open(dir.path(), DbOptions::default().background(false))?;
//! for name in ["REGIONKV", "LOCK", "CATALOG", "wal"] {
//!     assert!(db.dir().join(name).exists(), "{name}");
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::catalog::{Catalog, TableState};
use crate::dir_lock::DirLock;
use crate::error::{Error, Result};
use crate::options::DbOptions;
use crate::region_map::{RegionMap, RegionMapSlot};
use crate::table_info::{TableInfo, TableInfoState};
use arc_swap::ArcSwap;
use parking_lot::{Mutex, RwLock};
use regionkv_fs::{Fs, RealFs};
use regionkv_memstore::{ChunkPool, ChunkPoolStats, MemStoreConfig};
use regionkv_region::{
    GlobalMemStore, Region, RegionInfo, RegionServices, TableDescriptor, recover_owned_wal,
};
use regionkv_regionserver::{CompactSplit, MemStoreFlusher, RegionServerWorkers};
use regionkv_storefile::StoreFileBlockCache;
use regionkv_wal::WalEdit;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// File naming the directory as a regionkv Db.
///
/// ```
/// use regionkv::db::{FORMAT_VERSION, IDENTITY_FILE};
/// # let dir = tempfile::tempdir()?;
/// # let options = regionkv::DbOptions::default().background(false);
/// # let db = regionkv::Db::open(dir.path(), options)?;
/// let identity = std::fs::read_to_string(db.dir().join(IDENTITY_FILE))?;
/// let mut lines = identity.lines();
/// assert_eq!(lines.next(), Some("regionkv"));
/// assert_eq!(lines.next(), Some(format!("format {FORMAT_VERSION}").as_str()));
/// // The Db's id: 32 hex digits, also in every WAL log header.
/// let id = lines.next().and_then(|l| l.strip_prefix("id ")).ok_or("no id")?;
/// assert!(id.len() == 32 && id.bytes().all(|b| b.is_ascii_hexdigit()), "{id}");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub const IDENTITY_FILE: &str = "REGIONKV";
/// The on-disk format this build writes and reads.
///
/// ```
/// use regionkv::db::{FORMAT_VERSION, IDENTITY_FILE};
/// use regionkv::{Db, DbOptions, Error};
///
/// // A directory written by a newer build is refused rather than misread.
/// let dir = tempfile::tempdir()?;
/// let newer = format!("regionkv\nformat {}\n", FORMAT_VERSION + 1);
/// std::fs::write(dir.path().join(IDENTITY_FILE), newer)?;
/// let opened = Db::open(dir.path(), DbOptions::default().background(false));
/// assert!(matches!(opened, Err(Error::NotADb { .. })));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub const FORMAT_VERSION: u32 = 1;

/// An open table: its descriptor and, while enabled, its regions.
#[derive(Debug)]
pub(crate) struct TableHandle {
    pub(crate) name: String,
    /// Swapped whole by an alter (under the region map's change lock); read per operation.
    pub(crate) descriptor: ArcSwap<TableDescriptor>,
    /// `None` while the table is disabled.
    pub(crate) regions: RegionMapSlot,
}

impl TableHandle {
    /// The current region map, or TableNotEnabled.
    pub(crate) fn region_map(&self) -> Result<Arc<RegionMap>> {
        self.regions
            .load()
            .clone()
            .ok_or_else(|| Error::TableNotEnabled(self.name.clone()))
    }
}

/// The region server behind a [`Db`] (HBase's `HRegionServer`, embedded): it owns the
/// catalog (HBase's `hbase:meta`), the online regions (each table's region map), the
/// background workers and the split worker and janitor, and what every region shares
/// (`services`: the WAL, the block cache, the global memstore budget). Every change of
/// the region set goes through [`crate::transition::execute`] under `catalog`. `Db`,
/// `Admin` and `Table` are handles onto it.
#[derive(Debug)]
pub(crate) struct RegionServer {
    pub(crate) dir: PathBuf,
    pub(crate) fs: Arc<dyn Fs>,
    pub(crate) services: RegionServices,
    pub(crate) catalog: Mutex<Catalog>,
    pub(crate) tables: RwLock<BTreeMap<String, Arc<TableHandle>>>,
    /// Runs splits the regions ask for and removes unreferenced parents.
    pub(crate) splitter: Arc<crate::split_worker::SplitWorker>,
    /// The background flusher and compaction pools (none without `background`).
    pub(crate) workers: RegionServerWorkers,
    closed: AtomicBool,
    /// Set when a catalog commit failed after its rename: the new catalog is the visible
    /// file, but its directory fsync failed (twice), so a crash may bring the old one
    /// back. Until the Db is reopened no catalog change is made and the janitor deletes
    /// nothing, so every directory either catalog names stays.
    catalog_uncertain: AtomicBool,
    /// Encoded names of regions a failed split or merge left closed (the parent could not
    /// be reopened, or the commit is uncertain). Operations on them fail at once instead
    /// of retrying for `REGION_RETRY_FOR` on a region that stays closed until a reopen.
    offline: Mutex<BTreeSet<String>>,
    /// Holds the directory while the Db is open (the WAL checks it before deleting logs);
    /// released by [`shutdown`](RegionServer::shutdown). `None` for a read-only open,
    /// which never takes the lock (the writer holding the directory keeps it).
    lock: Option<Arc<DirLock>>,
    /// Set by [`Db::open_read_only`]: every mutating call answers [`Error::ReadOnly`]
    /// (docs/read-only.md), and it holds what [`Db::refresh`] reads the directory with.
    pub(crate) read_only: Option<crate::read_only::ReadOnlyOpen>,
    /// Encoded names of the regions that had edits in the WAL at open. A region directory
    /// the catalog does not list is only ever deleted as a leftover when it holds nothing
    /// (no file, no WAL edit): edits of a region the catalog lost must survive to a repair.
    pub(crate) wal_edit_regions: BTreeSet<String>,
    /// The observer classes the program registered (`DbOptions::coprocessor`).
    pub(crate) coprocessors: crate::coprocessor::CoprocessorRegistry,
}

/// An open regionkv database. Cheap to clone; every clone is the same Db. Closing (or
/// dropping the last clone) flushes every region and stops the background threads.
///
/// ```
/// use regionkv::{ColumnFamilyDescriptor, Db, DbOptions, TableDescriptor};
///
/// let dir = tempfile::tempdir()?;
/// let db = Db::open(dir.path(), DbOptions::default().background(false))?;
/// let same = db.clone(); // every clone is the same Db
/// let cf = ColumnFamilyDescriptor::new(b"cf")?;
/// db.admin().create_table(&TableDescriptor::new("t", vec![cf])?)?;
/// assert_eq!(same.admin().list_tables()?, ["t"]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct Db {
    pub(crate) inner: Arc<RegionServer>,
    /// The last user handle to drop closes the Db (see [`OpenHandle`]). `None` for an
    /// observer's connection, which must not keep the Db open
    /// ([`crate::coprocessor::RegionEnvironment::connection`]).
    _open: Option<Arc<OpenHandle>>,
}

/// `ns:qualifier` as HBase prints it: the `default:` namespace is left out.
///
/// ```
/// use regionkv::db::canonical_table_name;
///
/// assert_eq!(canonical_table_name("default:t1")?, "t1");
/// assert_eq!(canonical_table_name("t1")?, "t1");
/// assert_eq!(canonical_table_name("ns:t1")?, "ns:t1");
/// assert!(canonical_table_name("no spaces").is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn canonical_table_name(name: &str) -> Result<String> {
    let (ns, q) = regionkv_cell::limits::parse_table_name(name)?;
    Ok(if ns == "default" {
        q.to_string()
    } else {
        format!("{ns}:{q}")
    })
}

/// The namespace of a canonical table name.
pub(crate) fn namespace_of(name: &str) -> &str {
    name.split_once(':').map_or("default", |(ns, _)| ns)
}

impl RegionServer {
    /// Commits `next` in place of `current` as the catalog: the point where an admin
    /// change, split or merge happens. The file is replaced by a rename followed by a
    /// directory fsync; when the fsync fails the rename may already be visible, so the
    /// file is read back: still `current` → nothing happened (the error); `next` → the
    /// fsync is retried once, and if it succeeds the commit is done and durable.
    /// Otherwise a crash may leave either catalog: the Db turns
    /// [`Error::CatalogUncertain`] and refuses further catalog changes until reopened.
    ///
    /// Its one caller is the transition executor (`crate::transition::execute`): every
    /// change of the region set, table or namespace commits here. The only other writers
    /// of the catalog file are `Db::open` (a new Db's first catalog, and naming an
    /// unnamed one) and the offline `regionkv repair`, which write a whole catalog.
    pub(crate) fn write_catalog(&self, current: &Catalog, next: &Catalog) -> Result<()> {
        self.ensure_catalog_certain()?;
        let path = Catalog::path(&self.dir);
        let Err(e) = next.write(self.fs.as_ref(), &self.dir) else {
            return Ok(());
        };
        match Catalog::read(self.fs.as_ref(), &self.dir) {
            Ok(Some(on_disk)) if on_disk == *current => return Err(e),
            Ok(Some(on_disk)) if on_disk == *next => match self.fs.sync_dir(&self.dir) {
                Ok(()) => {
                    tracing::warn!(error = %e, "catalog commit: the directory fsync failed and succeeded when retried");
                    return Ok(());
                }
                Err(again) => {
                    tracing::error!(error = %again, "catalog commit: the directory fsync failed twice");
                }
            },
            _ => {}
        }
        self.catalog_uncertain.store(true, Ordering::Release);
        Err(Error::CatalogUncertain {
            path,
            reason: e.to_string(),
        })
    }

    /// True once a catalog commit's outcome is uncertain (see [`Self::write_catalog`]).
    /// Refuses a change of the region set while an earlier catalog commit is uncertain:
    /// called before the change closes anything, so that a refused alter, disable, split or
    /// merge leaves its regions serving instead of taking them offline (only a reopen
    /// settles which catalog is on disk).
    pub(crate) fn ensure_catalog_certain(&self) -> Result<()> {
        if self.catalog_uncertain.load(Ordering::Acquire) {
            return Err(Error::CatalogUncertain {
                path: Catalog::path(&self.dir),
                reason: "an earlier commit's directory fsync failed".into(),
            });
        }
        Ok(())
    }

    pub(crate) fn catalog_uncertain(&self) -> bool {
        self.catalog_uncertain.load(Ordering::Acquire)
    }

    /// Marks a region that stays closed until the Db is reopened.
    pub(crate) fn set_offline(&self, encoded: &str) {
        tracing::error!(region = %encoded, "region offline until the Db is reopened");
        self.offline.lock().insert(encoded.to_string());
    }

    /// Clears the offline mark of a region that opened again.
    pub(crate) fn set_online(&self, encoded: &str) {
        self.offline.lock().remove(encoded);
    }

    /// True for a region a failed split or merge left closed.
    pub(crate) fn is_offline(&self, encoded: &str) -> bool {
        self.offline.lock().contains(encoded)
    }

    pub(crate) fn region_dir(&self, info: &RegionInfo) -> PathBuf {
        self.table_dir(&info.table).join(info.encoded_name())
    }

    pub(crate) fn table_dir(&self, name: &str) -> PathBuf {
        crate::layout::table_dir(&self.dir, name)
    }

    pub(crate) fn check_open(&self) -> Result<()> {
        if self.closed.load(Ordering::Acquire) {
            return Err(Error::Closed);
        }
        Ok(())
    }

    /// Refuses `what` on a read-only open ([`Error::ReadOnly`]); every mutating entry point
    /// of `Table` and `Admin` asks this first, before any other check, as HBase refuses a
    /// write to a read-only table before looking at it.
    pub(crate) fn ensure_writable(&self, what: &str) -> Result<()> {
        if self.read_only.is_some() {
            return Err(Error::ReadOnly(what.to_string()));
        }
        Ok(())
    }

    /// The region server of a read-only open: no lock, no WAL writer, no workers
    /// (`crate::read_only` fills `tables`).
    pub(crate) fn new_read_only(
        dir: PathBuf,
        fs: Arc<dyn Fs>,
        services: RegionServices,
        catalog: Catalog,
        open: crate::read_only::ReadOnlyOpen,
    ) -> Self {
        Self {
            dir,
            fs,
            services,
            catalog: Mutex::new(catalog),
            tables: RwLock::new(BTreeMap::new()),
            splitter: Arc::new(crate::split_worker::SplitWorker::default()),
            workers: RegionServerWorkers::default(),
            closed: AtomicBool::new(false),
            catalog_uncertain: AtomicBool::new(false),
            offline: Mutex::new(BTreeSet::new()),
            lock: None,
            read_only: Some(open),
            wal_edit_regions: BTreeSet::new(),
            coprocessors: Default::default(),
        }
    }

    pub(crate) fn table(&self, name: &str) -> Result<Arc<TableHandle>> {
        self.check_open()?;
        let name = canonical_table_name(name)?;
        self.tables
            .read()
            .get(&name)
            .cloned()
            .ok_or(Error::TableNotFound(name))
    }

    /// Opens the regions of `desc` listed in `infos`, replaying `edits`.
    pub(crate) fn open_regions(
        &self,
        desc: &TableDescriptor,
        infos: &[RegionInfo],
        edits: &[WalEdit],
    ) -> Result<RegionMap> {
        let mut regions = Vec::with_capacity(infos.len());
        for info in infos {
            let dir = self.region_dir(info);
            regions.push(Region::open_as(
                &dir,
                info,
                desc.clone(),
                self.services.clone(),
                edits,
            )?);
            // Crash point (docs/reliability.md): some regions replayed into memory.
            fail::fail_point!("recovery-after-region-open");
        }
        // Reopened (enable, alter): serving again.
        let mut offline = self.offline.lock();
        for info in infos {
            offline.remove(&info.encoded_name());
        }
        Ok(RegionMap::new(regions))
    }

    /// A region id above every earlier one (HBase uses the creation time in ms).
    pub(crate) fn next_region_id(&self, catalog: &mut Catalog) -> u64 {
        let now = u64::try_from(self.services.clock.now_millis()).unwrap_or(0);
        let id = catalog.next_region_id.max(now);
        catalog.next_region_id = id + 1;
        id
    }

    /// Rewrites a listed table's `.tableinfo` after a committed change. The catalog is the
    /// commit point, so a failure here does not undo the change: it is logged, and the
    /// next open writes the file again.
    pub(crate) fn refresh_table_info(&self, desc: &TableDescriptor, state: TableInfoState) {
        let info = TableInfo {
            descriptor: desc.clone(),
            state,
        };
        if let Err(e) = info.write(self.fs.as_ref(), &self.table_dir(&desc.name)) {
            tracing::warn!(table = %desc.name, error = %e, "could not rewrite the table's .tableinfo; the next open will");
        }
    }

    /// At open: brings every listed table's `.tableinfo` up to date with the catalog (and
    /// writes it for directories made before it existed), makes sure every namespace has
    /// its directory, finishes the creates and drops a crash interrupted (tables, and empty
    /// namespace directories), and warns about any other table directory the catalog does
    /// not list (never deleting it: it may be a table whose catalog entry was lost;
    /// `regionkv repair` adopts it).
    fn reconcile_table_dirs(&self, catalog: &Catalog) -> Result<()> {
        let fs = self.fs.as_ref();
        for ns in &catalog.namespaces {
            fs.create_dir_all(&crate::layout::namespace_dir(&self.dir, ns))?;
        }
        for (name, entry) in &catalog.tables {
            let tdir = self.table_dir(name);
            let want = TableInfo {
                descriptor: entry.descriptor.clone(),
                state: entry.state.into(),
            };
            let have = match TableInfo::read(fs, &tdir) {
                Ok(have) => have,
                Err(e) => {
                    tracing::warn!(table = %name, error = %e, "unreadable .tableinfo; rewriting it from the catalog");
                    None
                }
            };
            if have.as_ref() != Some(&want) {
                want.write(fs, &tdir)?;
            }
        }
        for (name, tdir) in crate::layout::table_dirs(fs, &self.dir)? {
            if catalog.tables.contains_key(&name) {
                continue;
            }
            match self.unlisted_table_leftover(&tdir)? {
                Some(why) => {
                    tracing::info!(dir = %tdir.display(), why, "removing the leftover of an interrupted table change");
                    crate::layout::remove_table_dir(fs, &tdir)?;
                    if let Some(parent) = tdir.parent() {
                        fs.sync_dir(parent)?;
                    }
                }
                None => tracing::warn!(
                    dir = %tdir.display(),
                    "a table directory the catalog does not list; kept (run `regionkv repair` to adopt it)"
                ),
            }
        }
        // An empty namespace directory the catalog does not name is the leftover of a
        // namespace drop interrupted after its commit (or of a create rolled back): it
        // holds nothing a repair could adopt. One that holds anything stays.
        for dir in crate::layout::empty_unlisted_namespace_dirs(fs, &self.dir, &catalog.namespaces)?
        {
            tracing::info!(dir = %dir.display(), "removing the empty directory of a namespace the catalog does not name");
            fs.remove_dir_all(&dir)?;
        }
        Ok(())
    }

    /// Why the unlisted table directory `tdir` is the leftover of an interrupted create or
    /// drop and may be removed; `None` when it may hold a table whose catalog entry was
    /// lost. A directory whose `.tableinfo` says DROPPING is a leftover (the drop committed);
    /// one that says CREATING, or has no readable `.tableinfo` (written by a build before
    /// the file existed, or a create interrupted before it), only while it holds no data:
    /// no storefile and no region with WAL edits. A create that committed gets data; the
    /// `CREATING` it may still say (its rewrite after the commit failed) proves nothing.
    pub(crate) fn unlisted_table_leftover(&self, tdir: &Path) -> Result<Option<&'static str>> {
        let fs = self.fs.as_ref();
        let why = match TableInfo::read(fs, tdir) {
            Ok(Some(info)) if info.state == TableInfoState::Dropping => {
                return Ok(Some("a drop interrupted after its catalog commit"));
            }
            Ok(Some(info)) if info.state == TableInfoState::Creating => {
                "a create interrupted before its catalog commit"
            }
            Ok(Some(_)) => return Ok(None),
            Ok(None) | Err(_) => "a table directory with no data and no .tableinfo",
        };
        for region in crate::layout::region_dirs(fs, tdir)? {
            // A clone interrupted before its commit holds only links to a snapshot's files.
            if self.wal_edit_regions.contains(&region)
                || crate::layout::holds_own_files(fs, &tdir.join(&region))?
            {
                return Ok(None);
            }
        }
        Ok(Some(why))
    }

    fn shutdown(&self) -> Result<()> {
        if self.closed.swap(true, Ordering::AcqRel) {
            return Ok(());
        }
        let span = tracing::info_span!("close", dir = %self.dir.display());
        let _enter = span.enter();
        self.splitter.shutdown();
        self.workers.shutdown();
        let mut first_err = None;
        for t in self.tables.read().values() {
            if let Some(map) = t.regions.read().as_ref() {
                for r in map.regions() {
                    if r.is_closed() && r.memstore_data_size() == 0 {
                        // Offline since a failed change, closed flushed: nothing to do.
                        // One closed with unflushed edits (a poisoned flush) still fails
                        // its close below: the caller learns that the next open must
                        // replay them.
                        continue;
                    }
                    if let Err(e) = r.close() {
                        tracing::error!(region = %r.encoded_name(), error = %e, "close failed");
                        first_err.get_or_insert(e);
                    }
                }
            }
        }
        // The directory is free for the next open once this returns, even while a
        // background thread still holds this (closed) RegionServer for a moment.
        if let Some(lock) = &self.lock {
            lock.release();
        }
        match first_err {
            Some(e) => Err(e.into()),
            None => Ok(()),
        }
    }
}

/// Shared by every user-facing handle (`Db` clones, and the `Table` and `Admin` handles
/// that hold one). When the last of them drops, the Db closes on that thread, before the
/// drop returns. The `RegionServer` itself may outlive it: background threads take short-lived
/// strong references to it (a split job, a split policy asking for the region count), and
/// whichever drops last would otherwise run the close — on a background thread, after the
/// user's drop had returned, so an immediate reopen of the directory found it still locked.
#[derive(Debug)]
struct OpenHandle(Arc<RegionServer>);

impl Drop for OpenHandle {
    fn drop(&mut self) {
        if let Err(e) = self.0.shutdown() {
            tracing::error!(error = %e, "closing the database failed");
        }
    }
}

impl Drop for RegionServer {
    fn drop(&mut self) {
        if let Err(e) = self.shutdown() {
            tracing::error!(error = %e, "closing the database failed");
        }
    }
}

/// A Db's id: 128 random bits, written in its identity file at creation and in the
/// header of every WAL log it writes, so a log found in another Db's directory is refused.
pub type DbId = [u8; 16];

/// Reads the identity file: `None` when there is none, else the Db's id — given one (and
/// the file rewritten) when it was written before ids existed. The caller holds the
/// directory's lock.
pub(crate) fn check_identity(fs: &dyn Fs, dir: &Path) -> Result<Option<DbId>> {
    match read_identity(fs, dir)? {
        None => Ok(None),
        Some(Some(id)) => Ok(Some(id)),
        Some(None) => {
            let id = new_db_id();
            write_identity(fs, dir, &id)?;
            tracing::info!(id = %db_id_hex(&id), "gave the database an id");
            Ok(Some(id))
        }
    }
}

/// Reads the identity file without writing anything: `None` when there is none,
/// `Some(None)` for one written before ids existed, else the Db's id.
pub(crate) fn read_identity(fs: &dyn Fs, dir: &Path) -> Result<Option<Option<DbId>>> {
    let path = dir.join(IDENTITY_FILE);
    if !fs.exists(&path)? {
        return Ok(None);
    }
    let f = fs.open_read(&path)?;
    let len = (f.len() as usize).min(4096);
    let bytes = f.read_to_vec(0, len)?;
    let text = String::from_utf8_lossy(&bytes);
    let mut lines = text.lines();
    let not_db = |reason: String| Error::NotADb {
        dir: dir.to_path_buf(),
        reason,
    };
    if lines.next() != Some("regionkv") {
        return Err(not_db(format!(
            "{IDENTITY_FILE} does not name a regionkv database"
        )));
    }
    let version = lines
        .next()
        .and_then(|l| l.strip_prefix("format "))
        .and_then(|v| v.trim().parse::<u32>().ok())
        .ok_or_else(|| not_db(format!("{IDENTITY_FILE} has no format version")))?;
    if version > FORMAT_VERSION {
        return Err(not_db(format!(
            "written by a newer regionkv (format {version}; this build reads up to {FORMAT_VERSION})"
        )));
    }
    match lines.next().and_then(|l| l.strip_prefix("id ")) {
        Some(hex) => parse_db_id(hex.trim())
            .map(|id| Some(Some(id)))
            .ok_or_else(|| not_db(format!("{IDENTITY_FILE} has a malformed id {hex:?}"))),
        None => Ok(Some(None)),
    }
}

fn write_identity(fs: &dyn Fs, dir: &Path, id: &DbId) -> Result<()> {
    regionkv_fs::write_atomic(
        fs,
        &dir.join(IDENTITY_FILE),
        format!("regionkv\nformat {FORMAT_VERSION}\nid {}\n", db_id_hex(id)).as_bytes(),
    )?;
    Ok(())
}

/// What the manifests of the regions `catalog` lists recorded of the WAL's logs at their
/// last flush (`Manifest::wal_mark`), the longest per log: evidence replay holds the logs
/// to. A manifest that cannot be read is left to the region's open to report.
pub(crate) fn recorded_wal_lengths(
    fs: &dyn Fs,
    dir: &Path,
    catalog: &Catalog,
) -> Vec<regionkv_wal::RecordedLength> {
    let mut by_log: BTreeMap<(u64, i64), regionkv_wal::RecordedLength> = BTreeMap::new();
    for (name, entry) in &catalog.tables {
        for r in &entry.regions {
            let encoded = r.info.encoded_name();
            let rdir = crate::layout::table_dir(dir, name).join(&encoded);
            let Ok(Some(m)) = regionkv_region::Manifest::read(fs, &rdir) else {
                continue;
            };
            let Some(mark) = m.wal_mark else {
                continue;
            };
            let key = (mark.log, mark.created_ms);
            if by_log.get(&key).is_none_or(|known| known.len < mark.len) {
                by_log.insert(
                    key,
                    regionkv_wal::RecordedLength {
                        log: mark.log,
                        created_ms: mark.created_ms,
                        len: mark.len,
                        by: format!("the manifest of region {encoded} (at its last flush)"),
                    },
                );
            }
        }
    }
    by_log.into_values().collect()
}

/// The error for a catalog that names another Db than the one in `dir`.
pub(crate) fn foreign_catalog(dir: &Path, catalog: &Catalog, id: &DbId) -> Error {
    Error::Corrupt {
        what: "catalog",
        path: Catalog::path(dir),
        offset: 12,
        reason: format!(
            "the catalog belongs to another database (db id {}), not to this one ({})",
            catalog.db_id.as_ref().map(db_id_hex).unwrap_or_default(),
            db_id_hex(id)
        ),
    }
}

/// A fresh Db id from the operating system's random source (with the time, the process id
/// and a counter mixed in should that fail: unique enough to tell Dbs apart).
fn new_db_id() -> DbId {
    let mut id = [0u8; 16];
    if getrandom::fill(&mut id).is_err() || id == [0; 16] {
        static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        let seed = nanos ^ (u64::from(std::process::id()) << 32);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        id[..8].copy_from_slice(&seed.to_be_bytes());
        id[8..].copy_from_slice(&(n ^ 0x9e37_79b9_7f4a_7c15).to_be_bytes());
    }
    id
}

/// A Db id as 32 lower-case hex digits.
pub fn db_id_hex(id: &DbId) -> String {
    regionkv_cell::bytes::to_hex(id)
}

pub(crate) fn parse_db_id(hex: &str) -> Option<DbId> {
    if hex.len() != 32 {
        return None;
    }
    let mut id = [0u8; 16];
    for (i, slot) in id.iter_mut().enumerate() {
        *slot = u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    (id != [0; 16]).then_some(id)
}

impl Db {
    /// Opens (creating it if absent, unless [`DbOptions::create_if_missing`] is off) the
    /// database in `dir`. Fails with [`Error::NotADb`] on a directory holding other files
    /// or a newer format, and with [`Error::Locked`] while another Db has it open.
    ///
    /// ```
    /// use regionkv::{Db, DbOptions, Error};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let db = Db::open(dir.path(), DbOptions::default().background(false))?;
    /// // One open Db per directory.
    /// let again = Db::open(dir.path(), DbOptions::default().background(false));
    /// assert!(matches!(again, Err(Error::Locked { .. })));
    /// // Dropping the last handle closes the Db and releases the directory.
    /// drop(db);
    /// let db = Db::open(dir.path(), DbOptions::default().background(false))?;
    /// assert_eq!(db.dir(), dir.path());
    ///
    /// // A directory holding other files is not taken over.
    /// let other = tempfile::tempdir()?;
    /// std::fs::write(other.path().join("notes.txt"), "mine")?;
    /// let opened = Db::open(other.path(), DbOptions::default().background(false));
    /// assert!(matches!(opened, Err(Error::NotADb { .. })));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn open(dir: impl AsRef<Path>, options: DbOptions) -> Result<Self> {
        let dir = dir.as_ref().to_path_buf();
        let span = tracing::info_span!("open", dir = %dir.display());
        let _enter = span.enter();
        let fs: Arc<dyn Fs> = options
            .fs
            .clone()
            .unwrap_or_else(|| Arc::new(RealFs::new()));
        if !fs.exists(&dir)? {
            if !options.create_if_missing {
                return Err(Error::NotADb {
                    dir,
                    reason: "does not exist".to_string(),
                });
            }
            fs.create_dir_all(&dir)?;
        }
        // The directory's lock first (it writes nothing), so that one process at a time
        // reads, and on a first open writes, the identity file and its new Db id.
        let locking = DirLock::lock_directory(fs.clone(), &dir)?;
        let db_id = match check_identity(fs.as_ref(), &dir)? {
            Some(id) => id,
            None => {
                // A crash during the very first open may leave the identity file's
                // temporary copy and nothing else: that directory is still ours to create
                // (found by tests/crash_points.rs killing a first open).
                let leftover = format!("{IDENTITY_FILE}.tmp");
                let entries = fs.list(&dir)?;
                if entries.iter().any(|e| *e != leftover) {
                    return Err(Error::NotADb {
                        dir,
                        reason: format!(
                            "not a regionkv database: it holds other files ({}) and no {IDENTITY_FILE}",
                            entries.join(", ")
                        ),
                    });
                }
                let id = new_db_id();
                write_identity(fs.as_ref(), &dir, &id)?;
                id
            }
        };
        let lock = locking.lock_file()?;

        // Before anything is written (the WAL's new log): a directory whose catalog is
        // lost is refused, never taken for a new, empty database.
        let catalog = match Catalog::read(fs.as_ref(), &dir)? {
            Some(c) if c.db_id.is_some_and(|id| id != db_id) => {
                return Err(foreign_catalog(&dir, &c, &db_id));
            }
            Some(c) if c.db_id.is_none() => {
                // Written before catalogs named their Db: name it now.
                let c = Catalog {
                    db_id: Some(db_id),
                    ..c
                };
                c.write(fs.as_ref(), &dir)?;
                c
            }
            Some(c) => c,
            None => {
                if let Some(found) = crate::layout::described_data(fs.as_ref(), &dir)? {
                    return Err(Error::CatalogMissing { dir, found });
                }
                let c = Catalog {
                    db_id: Some(db_id),
                    ..Catalog::default()
                };
                c.write(fs.as_ref(), &dir)?;
                c
            }
        };

        let recovered = recover_owned_wal(
            fs.clone(),
            &dir.join("wal"),
            regionkv_wal::WalConfig {
                db_id: Some(db_id),
                ..options.wal.clone()
            },
            options.wal_recovery,
            lock.clone(),
            &recorded_wal_lengths(fs.as_ref(), &dir, &catalog),
        )?;
        let global = Arc::new(GlobalMemStore::new(options.global_memstore_bytes, 0.95));
        let memstore = memstore_config(&options);
        let workers = if options.background {
            let flusher = MemStoreFlusher::start(options.flush_threads, global.clone());
            if let Some(pool) = memstore.pool.clone() {
                // Idle chunks beyond recent demand go back to the allocator (`ChunkPool`).
                flusher.set_housekeeping(move || {
                    pool.trim_idle();
                });
            }
            RegionServerWorkers {
                flusher: Some(flusher),
                compact_split: Some(CompactSplit::start_with_checker(
                    options.compaction_threads.0,
                    options.compaction_threads.1,
                    Some(options.compaction_check_interval),
                )),
            }
        } else {
            RegionServerWorkers::default()
        };
        let splitter = Arc::new(crate::split_worker::SplitWorker::default());
        let coprocessors = options.coprocessors.for_db();
        let services = RegionServices {
            memstore,
            server: Some(Arc::new(crate::server_services::ServerServices {
                workers: workers.clone(),
                splitter: splitter.clone(),
                coprocessors: coprocessors.clone(),
            })),
            block_cache: (options.block_cache_bytes > 0)
                .then(|| Arc::new(StoreFileBlockCache::new(options.block_cache_bytes))),
            // Without background threads the writer flushes a full memstore itself (the
            // DbOptions::background contract: deterministic flushes and splits).
            config: regionkv_region::services::RegionConfig {
                inline_flush: options.region.inline_flush || !options.background,
                ..options.region.clone()
            },
            global,
            ..RegionServices::new(fs.clone(), recovered.wal.clone(), options.clock.clone())
        };
        let inner = RegionServer {
            dir,
            fs,
            services,
            catalog: Mutex::new(catalog.clone()),
            tables: RwLock::new(BTreeMap::new()),
            splitter: splitter.clone(),
            workers,
            closed: AtomicBool::new(false),
            catalog_uncertain: AtomicBool::new(false),
            offline: Mutex::new(BTreeSet::new()),
            lock: Some(lock),
            read_only: None,
            wal_edit_regions: recovered
                .edits
                .iter()
                .map(|e| String::from_utf8_lossy(&e.key.region).into_owned())
                .collect(),
            coprocessors,
        };
        // Bulk loads that committed before a crash: listed in their regions' manifests
        // before the regions open (whose leftover sweep would otherwise remove the files).
        crate::bulk_load::recover_pending(inner.fs.as_ref(), &inner.dir, &catalog)?;
        // A snapshot written or deleted when a crash came: never half there.
        crate::snapshot::remove_leftovers(inner.fs.as_ref(), &inner.dir)?;
        let mut tables = BTreeMap::new();
        for (name, entry) in &catalog.tables {
            let infos: Vec<RegionInfo> = entry.regions.iter().map(|r| r.info.clone()).collect();
            let map = inner.open_regions(&entry.descriptor, &infos, &recovered.edits)?;
            let regions = match entry.state {
                TableState::Enabled => Some(Arc::new(map)),
                TableState::Disabled => {
                    // Opened only to replay edits a crash left in the WAL; flushed and
                    // closed again.
                    for r in map.regions() {
                        r.close()?;
                    }
                    None
                }
            };
            tables.insert(
                name.clone(),
                Arc::new(TableHandle {
                    name: name.clone(),
                    descriptor: ArcSwap::from_pointee(entry.descriptor.clone()),
                    regions: RegionMapSlot::new(regions),
                }),
            );
        }
        *inner.tables.write() = tables;
        let inner = Arc::new(inner);
        // Observers that load from here on (the background workers already run) reach
        // the Db through their connection.
        inner.coprocessors.link(&inner);
        inner.reconcile_table_dirs(&catalog)?;
        // Directories of split or merge parents nothing refers to any more, and children
        // of a split or merge that did not commit before a crash.
        for name in catalog.tables.keys() {
            inner.clean_table_dir(name)?;
        }
        splitter.attach(&inner, options.background);
        tracing::info!(
            tables = catalog.tables.len(),
            replayed = recovered.edits.len(),
            "database open"
        );
        Ok(Self::from_server(inner))
    }

    /// The user handle onto an opened region server (the last one to drop closes it).
    pub(crate) fn from_server(inner: Arc<RegionServer>) -> Self {
        inner.coprocessors.link(&inner);
        Self {
            _open: Some(Arc::new(OpenHandle(inner.clone()))),
            inner,
        }
    }

    /// A handle onto `inner` that does not keep it open: when the user's last handle drops,
    /// the Db closes and calls through this one fail with [`Error::Closed`] (an observer's
    /// connection).
    pub(crate) fn connection_to(inner: Arc<RegionServer>) -> Self {
        Self { inner, _open: None }
    }

    /// True once the Db is closed or closing.
    pub(crate) fn is_closed(&self) -> bool {
        self.inner.check_open().is_err()
    }

    /// The administrative handle (tables, namespaces, flush, compaction, splits).
    ///
    /// ```
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// let admin = db.admin();
    /// admin.create_namespace("ns")?;
    /// assert_eq!(admin.list_namespaces()?, ["default", "hbase", "ns"]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn admin(&self) -> crate::Admin {
        crate::Admin { db: self.clone() }
    }

    /// A handle on table `name` (`ns:table`, or `table` in the default namespace).
    ///
    /// ```
    /// use regionkv::{ColumnFamilyDescriptor, Error, TableDescriptor};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// db.admin().create_namespace("ns")?;
    /// let cf = ColumnFamilyDescriptor::new(b"cf")?;
    /// db.admin().create_table(&TableDescriptor::new("ns:t", vec![cf])?)?;
    /// assert_eq!(db.table("ns:t")?.name(), "ns:t");
    /// assert!(matches!(db.table("missing"), Err(Error::TableNotFound(t)) if t == "missing"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn table(&self, name: &str) -> Result<crate::Table> {
        let handle = self.inner.table(name)?;
        Ok(crate::Table {
            db: self.clone(),
            handle,
        })
    }

    /// The directory.
    ///
    /// ```
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// assert_eq!(db.dir(), dir.path());
    /// assert!(db.dir().join("CATALOG").exists());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn dir(&self) -> &Path {
        &self.inner.dir
    }

    /// The Db's id as HBase prints a cluster id (`Admin.getClusterMetrics().getClusterId()`,
    /// a UUID): the 128-bit id the directory was given when it was created.
    ///
    /// ```
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// let id = db.cluster_id();
    /// assert_eq!(id.len(), 36);
    /// assert_eq!(id.matches('-').count(), 4);
    /// assert_eq!(db.cluster_id(), id, "stable while the Db lives");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn cluster_id(&self) -> String {
        let hex = self
            .inner
            .catalog
            .lock()
            .db_id
            .as_ref()
            .map(db_id_hex)
            .unwrap_or_default();
        if hex.len() != 32 {
            return hex;
        }
        format!(
            "{}-{}-{}-{}-{}",
            &hex[..8],
            &hex[8..12],
            &hex[12..16],
            &hex[16..20],
            &hex[20..]
        )
    }

    /// The engine clock.
    ///
    /// ```
    /// use regionkv::{Clock, Db, DbOptions, ManualClock};
    /// use std::sync::Arc;
    ///
    /// let dir = tempfile::tempdir()?;
    /// let clock = ManualClock::new(1_000);
    /// let options = DbOptions::default().background(false).clock(Arc::new(clock.clone()));
    /// let db = Db::open(dir.path(), options)?;
    /// assert_eq!(db.clock().now_millis(), 1_000);
    /// clock.advance(500);
    /// assert_eq!(db.clock().now_millis(), 1_500);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn clock(&self) -> &regionkv_cell::SharedClock {
        &self.inner.services.clock
    }

    /// Counters of the memstore chunk pool (`None` when it is off: see
    /// [`DbOptions::chunk_pool_max_fraction`]).
    ///
    /// ```
    /// # let dir = tempfile::tempdir()?;
    /// let db = regionkv::Db::open(dir.path(), regionkv::DbOptions::default())?;
    /// let stats = db.memstore_chunk_pool_stats().expect("on by default, as in HBase");
    /// assert_eq!(stats.reused, 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn memstore_chunk_pool_stats(&self) -> Option<ChunkPoolStats> {
        self.inner
            .services
            .memstore
            .pool
            .as_ref()
            .map(|p| p.stats())
    }

    /// Waits until no background flush or compaction is queued or running (a
    /// deterministic point for tests and benchmarks).
    ///
    /// ```
    /// use regionkv::Put;
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// table.put(&Put::new("r").add_column("cf", "q", "v"))?;
    /// db.admin().flush("t")?;
    /// // Without background threads (`background(false)`) this returns at once.
    /// db.wait_for_background_work();
    /// assert_eq!(db.admin().regions("t")?[0].store_files, 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn wait_for_background_work(&self) {
        // Flushes ask for compactions and splits, compactions for splits and clean-ups,
        // splits for compactions: repeat until a whole round finds everything idle.
        loop {
            let workers = &self.inner.workers;
            if let Some(f) = &workers.flusher {
                f.wait_idle();
            }
            if let Some(c) = &workers.compact_split {
                c.wait_idle();
            }
            self.inner.splitter.wait_idle();
            if workers.is_idle() && self.inner.splitter.is_idle() {
                return;
            }
        }
    }

    /// Flushes every region and stops background work; later calls fail with
    /// [`Error::Closed`]. Dropping the last handle does the same.
    ///
    /// ```
    /// use regionkv::{Db, DbOptions, Error, Get, Put};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// table.put(&Put::new("r").add_column("cf", "q", "v"))?;
    /// db.close()?;
    /// assert!(matches!(db.table("t"), Err(Error::Closed)));
    /// assert!(matches!(table.get(&Get::new("r")), Err(Error::Closed)));
    /// db.close()?; // closing again does nothing
    ///
    /// drop((table, db));
    /// let db = Db::open(dir.path(), DbOptions::default().background(false))?;
    /// let r = db.table("t")?.get(&Get::new("r"))?;
    /// assert_eq!(r.value(b"cf", b"q"), Some(&b"v"[..]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// An observer's connection
    /// ([`RegionEnvironment::connection`](crate::coprocessor::RegionEnvironment::connection))
    /// cannot close the Db: its `close` fails with [`Error::InvalidArgument`], as HBase's
    /// shared coprocessor connection throws on `close()`.
    pub fn close(&self) -> Result<()> {
        if self._open.is_none() {
            return Err(Error::InvalidArgument(
                "an observer's connection cannot close the Db (Shared connection)".into(),
            ));
        }
        self.inner.shutdown()
    }
}

/// The memstore arena settings of a Db: HBase's defaults (MSLAB on, 2 MiB chunks), with
/// a chunk pool of `chunk_pool_max_fraction` of the memstore budget (HBase 2's default:
/// 1.0), shared by every region's memstores.
pub(crate) fn memstore_config(options: &DbOptions) -> MemStoreConfig {
    let config = MemStoreConfig::default();
    let chunks = options.global_memstore_bytes as f64 * options.chunk_pool_max_fraction
        / config.chunk_size.max(1) as f64;
    if !config.mslab_enabled || chunks.is_nan() || chunks < 1.0 {
        return config;
    }
    MemStoreConfig {
        pool: Some(ChunkPool::new(config.chunk_size, chunks as usize)),
        ..config
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::DbOptions;

    #[test]
    fn dropping_the_last_handle_closes_and_unlocks_even_if_a_thread_still_holds_the_inner() {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(dir.path(), DbOptions::default().background(false)).unwrap();
        let table = db.table("absent").err();
        assert!(table.is_some());
        let admin = db.admin();
        // What a split job or a split policy holds for a moment on a background thread.
        let held_by_a_worker = db.inner.clone();
        drop(db);
        assert!(
            held_by_a_worker.check_open().is_ok(),
            "the Admin still holds the Db"
        );
        drop(admin);
        assert!(
            held_by_a_worker.check_open().is_err(),
            "closed by the last handle"
        );
        // The directory is free at once.
        let again = Db::open(dir.path(), DbOptions::default().background(false)).unwrap();
        drop(held_by_a_worker);
        again.close().unwrap();
        // An explicit close releases it too, while clones live on.
        let reopened = Db::open(dir.path(), DbOptions::default().background(false)).unwrap();
        drop(again);
        drop(reopened);
    }
}
