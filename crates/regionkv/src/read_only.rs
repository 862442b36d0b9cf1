//! Read-only opens: [`Db::open_read_only`] and [`Db::refresh`] (RocksDB's
//! `OpenForReadOnly` and secondary instance; docs/read-only.md). This module owns how a
//! reader builds a consistent view of a directory another process may be writing, and how
//! a refresh swaps in a newer one.
//!
//! A read-only open takes no lock and writes nothing — no identity, no catalog, no
//! manifest, no WAL log, no `corrupt/` copy, no leftover sweep, no deletion. It reads the
//! catalog, the regions' manifests and the WAL (a torn tail, such as the record the live
//! writer is appending, ends the log), and replays the WAL into private memstores.
//!
//! Invariants:
//! 1. **One point in time.** A view is kept only when the catalog and every listed
//!    region's manifest read the same after the regions opened (and the WAL was read) as
//!    before: the writer flushed, compacted, split, loaded or altered nothing in between,
//!    so the storefiles and the WAL edits past their flushed sequence ids are one state
//!    (the writer trims a log only after a flush, which changes a manifest). Otherwise the
//!    attempt is dropped and the view read again, [`ATTEMPTS`] times at most.
//! 2. **Vanished files.** A storefile, manifest or log the writer deletes between the
//!    reader's listing and its open fails that attempt and the next one starts from a fresh
//!    catalog. Once open, a storefile stays readable after the writer deletes it: it is
//!    memory-mapped, or held by an open descriptor in pread mode.
//! 3. **What the writer's recovery would show.** A committed bulk load not yet published
//!    (a record in `.bulkload/`) is added to its regions' manifests in memory, as the
//!    writer's next open adds it on disk. The repairs recovery writes (leftover sweeps,
//!    interrupted creates and drops, the janitor) change no visible data and are skipped.
//!
//! Thread safety: a view is a set of `TableHandle`s; `refresh` builds the next one off to
//! the side and swaps the table map under its lock. A `Table` handle, and every scan made
//! from it, keeps the view it was made from; `Db::table` after a refresh returns the new one.

use crate::catalog::{Catalog, TableState};
use crate::db::{DbId, RegionServer, TableHandle};
use crate::error::{Error, Result};
use crate::options::DbOptions;
use crate::region_map::{RegionMap, RegionMapSlot};
use crate::{Db, db};
use arc_swap::ArcSwap;
use regionkv_fs::{Fs, RealFs};
use regionkv_region::{Manifest, Region, RegionInfo, RegionServices};
use regionkv_storefile::StoreFileBlockCache;
use regionkv_wal::RecoveryMode;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// How many times a read-only open or refresh reads the directory before it gives up on a
/// writer that keeps changing it (or on an error that persists).
pub const ATTEMPTS: u32 = 8;

/// What a read-only open keeps to read the directory again on [`Db::refresh`].
#[derive(Debug)]
pub(crate) struct ReadOnlyOpen {
    /// The Db's id from its identity file (`None` for a directory written before ids):
    /// WAL logs of another Db are refused.
    db_id: Option<DbId>,
    /// How damage in the WAL is treated (the writer's default drops a torn tail).
    recovery: RecoveryMode,
    /// One refresh at a time.
    refreshing: parking_lot::Mutex<()>,
}

/// One consistent state of the directory (invariant 1).
struct View {
    catalog: Catalog,
    /// Per table: descriptor, and the regions while enabled.
    tables: BTreeMap<String, Arc<TableHandle>>,
}

impl Db {
    /// Opens the database in `dir` read-only, next to the process that holds it (or over a
    /// directory whose writer died): the last flushed files plus a replay of the WAL, as
    /// of this call, without taking the lock or writing anything. Every mutating call
    /// answers [`Error::ReadOnly`]; [`Db::refresh`] catches up with the writer.
    /// `options.background`, the thread counts and `create_if_missing` do not apply.
    ///
    /// ```
    /// use regionkv::{ColumnFamilyDescriptor, Db, DbOptions, Get, Put, TableDescriptor};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let writer = Db::open(dir.path(), DbOptions::default().background(false))?;
    /// let cf = ColumnFamilyDescriptor::new(b"cf")?;
    /// writer.admin().create_table(&TableDescriptor::new("t", vec![cf])?)?;
    /// writer.table("t")?.put(&Put::new("r").add_column("cf", "q", "1"))?;
    ///
    /// // The writer holds the directory; a reader opens it anyway.
    /// let reader = Db::open_read_only(dir.path(), DbOptions::default())?;
    /// let get = |db: &Db| -> regionkv::Result<Option<Vec<u8>>> {
    ///     Ok(db.table("t")?.get(&Get::new("r"))?.value(b"cf", b"q").map(<[u8]>::to_vec))
    /// };
    /// assert_eq!(get(&reader)?, Some(b"1".to_vec()));
    /// writer.table("t")?.put(&Put::new("r").add_column("cf", "q", "2"))?;
    /// assert_eq!(get(&reader)?, Some(b"1".to_vec()), "the view as of the open");
    /// reader.refresh()?;
    /// assert_eq!(get(&reader)?, Some(b"2".to_vec()));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn open_read_only(dir: impl AsRef<Path>, options: DbOptions) -> Result<Self> {
        let dir = dir.as_ref().to_path_buf();
        let span = tracing::info_span!("open_read_only", dir = %dir.display());
        let _enter = span.enter();
        let fs: Arc<dyn Fs> = options
            .fs
            .clone()
            .unwrap_or_else(|| Arc::new(RealFs::new()));
        if !fs.exists(&dir)? {
            return Err(Error::NotADb {
                dir,
                reason: "does not exist".to_string(),
            });
        }
        let Some(db_id) = db::read_identity(fs.as_ref(), &dir)? else {
            return Err(Error::NotADb {
                reason: format!(
                    "no {} identity file (a read-only open never creates a database)",
                    db::IDENTITY_FILE
                ),
                dir,
            });
        };
        let open = ReadOnlyOpen {
            db_id,
            recovery: options.wal_recovery,
            refreshing: parking_lot::Mutex::new(()),
        };
        let services = RegionServices {
            block_cache: (options.block_cache_bytes > 0)
                .then(|| Arc::new(StoreFileBlockCache::new(options.block_cache_bytes))),
            memstore: db::memstore_config(&options),
            config: options.region.clone(),
            ..RegionServices::read_only(fs.clone(), options.clock.clone())
        };
        let view = read_view(fs.as_ref(), &dir, &open, &services)?;
        let mut server = RegionServer::new_read_only(dir, fs, services, view.catalog, open);
        server.coprocessors = options.coprocessors.for_db();
        *server.tables.write() = view.tables;
        tracing::info!(
            tables = server.tables.read().len(),
            "database open read-only"
        );
        Ok(Db::from_server(Arc::new(server)))
    }

    /// Catches a read-only open up with the directory: reads the catalog, manifests and
    /// WAL again and swaps in the new view (RocksDB's `TryCatchUpWithPrimary`). Table
    /// handles and scans made before keep the view they were made from; `Db::table` now
    /// returns the new one. On a writable Db this does nothing: it always sees its own
    /// state. On failure the current view stays.
    ///
    /// ```
    /// use regionkv::{ColumnFamilyDescriptor, Db, DbOptions, TableDescriptor};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let writer = Db::open(dir.path(), DbOptions::default().background(false))?;
    /// let reader = Db::open_read_only(dir.path(), DbOptions::default())?;
    /// let cf = ColumnFamilyDescriptor::new(b"cf")?;
    /// writer.admin().create_table(&TableDescriptor::new("t", vec![cf])?)?;
    /// assert!(reader.admin().list_tables()?.is_empty());
    /// reader.refresh()?;
    /// assert_eq!(reader.admin().list_tables()?, ["t"]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn refresh(&self) -> Result<()> {
        let inner = &self.inner;
        inner.check_open()?;
        let Some(open) = &inner.read_only else {
            return Ok(());
        };
        let _one = open.refreshing.lock();
        let view = read_view(inner.fs.as_ref(), &inner.dir, open, &inner.services)?;
        // Catalog first, then tables: `Admin` lists from the catalog and resolves through
        // the tables, and a name the catalog lists a moment early answers TableNotFound
        // only until the next line. Regions of the old view close as their last handle
        // drops (read-only regions hold nothing to flush).
        *inner.catalog.lock() = view.catalog;
        *inner.tables.write() = view.tables;
        Ok(())
    }

    /// True for a Db opened with [`Db::open_read_only`].
    ///
    /// ```
    /// # let dir = tempfile::tempdir()?;
    /// let db = regionkv::Db::open(dir.path(), regionkv::DbOptions::default())?;
    /// assert!(!db.is_read_only());
    /// let reader = regionkv::Db::open_read_only(dir.path(), regionkv::DbOptions::default())?;
    /// assert!(reader.is_read_only());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn is_read_only(&self) -> bool {
        self.inner.read_only.is_some()
    }
}

/// Reads a consistent view (invariants 1 and 2), retrying while the writer changes the
/// directory under it. The last attempt's error is returned as it is; a directory that
/// changed during every attempt is [`Error::ReadOnlyViewChanging`].
fn read_view(
    fs: &dyn Fs,
    dir: &Path,
    open: &ReadOnlyOpen,
    services: &RegionServices,
) -> Result<View> {
    let mut attempt = 1;
    loop {
        let outcome = read_view_once(fs, dir, open, services);
        let retry = match &outcome {
            Ok(Some(_)) => false,
            // Not the writer's doing: retrying cannot help.
            Err(Error::NotADb { .. } | Error::CatalogMissing { .. }) => false,
            Ok(None) | Err(_) => attempt < ATTEMPTS,
        };
        if !retry {
            return match outcome {
                Ok(Some(view)) => Ok(view),
                Ok(None) => Err(Error::ReadOnlyViewChanging {
                    dir: dir.to_path_buf(),
                    attempts: ATTEMPTS,
                }),
                Err(e) => Err(e),
            };
        }
        match &outcome {
            Ok(_) => tracing::debug!(
                attempt,
                "the directory changed while it was read; reading it again"
            ),
            Err(e) => {
                tracing::debug!(attempt, error = %e, "read-only view failed; reading it again from a fresh catalog")
            }
        }
        // A short pause lets the writer finish the change it is in the middle of.
        std::thread::sleep(std::time::Duration::from_millis(2 * u64::from(attempt)));
        attempt += 1;
    }
}

/// One attempt: `None` when the catalog or a manifest changed while it read.
fn read_view_once(
    fs: &dyn Fs,
    dir: &Path,
    open: &ReadOnlyOpen,
    services: &RegionServices,
) -> Result<Option<View>> {
    let catalog = read_catalog(fs, dir, open)?;
    let manifests = read_manifests(fs, dir, &catalog)?;
    let recorded = db::recorded_wal_lengths(fs, dir, &catalog);
    let (edits, report) =
        regionkv_wal::replay_for_db(fs, &dir.join("wal"), open.recovery, open.db_id, &recorded)
            .and_then(|replay| replay.read_all())
            .map_err(|e| Error::from(regionkv_region::Error::Wal(e)))?;
    for tail in &report.dropped_tails {
        // Usually the record the writer is appending; kept by the writer, not copied here.
        tracing::debug!(log = %tail.path.display(), offset = tail.offset, "WAL tail not replayed ({})", tail.reason);
    }
    let pending = crate::bulk_load::pending_for_read_only(fs, dir, &catalog)?;
    let mut tables = BTreeMap::new();
    for (name, entry) in &catalog.tables {
        let regions = match entry.state {
            TableState::Disabled => None,
            TableState::Enabled => {
                let mut regions = Vec::with_capacity(entry.regions.len());
                for r in &entry.regions {
                    let info: &RegionInfo = &r.info;
                    let encoded = info.encoded_name();
                    regions.push(Region::open_read_only(
                        &crate::layout::table_dir(dir, name).join(&encoded),
                        info,
                        entry.descriptor.clone(),
                        services.clone(),
                        &edits,
                        pending.get(&encoded).map_or(&[][..], Vec::as_slice),
                    )?);
                }
                Some(Arc::new(RegionMap::new(regions)))
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
    let catalog_now = read_catalog(fs, dir, open)?;
    if catalog_now != catalog || read_manifests(fs, dir, &catalog)? != manifests {
        return Ok(None);
    }
    Ok(Some(View { catalog, tables }))
}

/// The catalog, which a read-only open never creates or rewrites.
fn read_catalog(fs: &dyn Fs, dir: &Path, open: &ReadOnlyOpen) -> Result<Catalog> {
    match Catalog::read(fs, dir)? {
        Some(c) => {
            if let (Some(theirs), Some(ours)) = (&c.db_id, &open.db_id)
                && theirs != ours
            {
                return Err(db::foreign_catalog(dir, &c, ours));
            }
            Ok(c)
        }
        None => match crate::layout::described_data(fs, dir)? {
            Some(found) => Err(Error::CatalogMissing {
                dir: dir.to_path_buf(),
                found,
            }),
            None => Err(Error::NotADb {
                dir: dir.to_path_buf(),
                reason: "no catalog yet (the writer has not finished creating the database)"
                    .to_string(),
            }),
        },
    }
}

/// The manifest of every region of an enabled table the catalog lists, by region
/// directory (`None`: no manifest).
fn read_manifests(
    fs: &dyn Fs,
    dir: &Path,
    catalog: &Catalog,
) -> Result<BTreeMap<PathBuf, Option<Manifest>>> {
    let mut out = BTreeMap::new();
    for (name, entry) in &catalog.tables {
        if entry.state != TableState::Enabled {
            continue;
        }
        for r in &entry.regions {
            let rdir = crate::layout::table_dir(dir, name).join(r.info.encoded_name());
            let m = Manifest::read(fs, &rdir)?;
            out.insert(rdir, m);
        }
    }
    Ok(out)
}
