//! Table-wide bulk loads: sorted cells become new storefiles of a table's regions without
//! passing through memstores or the WAL (HBase's `BulkLoadHFilesTool` driving
//! `HRegion.bulkLoadHFiles` on every region), committed for the whole table at once.
//! `completebulkload`, ImportTsv's `--no-wal` mode and `import` are built on it.
//!
//! A bulk load does not change the region set, so it is not a region transition; it holds
//! the catalog lock so the region set stays still while it runs. Its steps, and what a crash
//! at each leaves (docs/decisions/2026-11-27-data-in-and-out.md §2):
//!
//! | step | does | a failure or crash here |
//! |---|---|---|
//! | stage | per region: flush if needed, reserve a sequence id, write each family's cells of the region's rows as an unlisted storefile | staged files are removed (or swept by the region's next open): the table is as before |
//! | commit | writes the record `<table>/.bulkload/<id>` atomically | before its rename: as before; after: rolls forward |
//! | publish | each region lists its files (one manifest replace each) | the next open applies the record before any region opens |
//! | clean-up | deletes the record | the next open applies it again (a no-op) and deletes it |
//!
//! Crash points `bulk-load-after-stage`, `bulk-load-after-commit`,
//! `bulk-load-after-publish`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use regionkv_cell::Cell;
use regionkv_cell::bytes::to_hex;
use regionkv_cell::key::LATEST_TIMESTAMP;
use regionkv_fs::Fs;
use regionkv_region::Region;
use regionkv_region::bulk_load::{BulkFile, apply_bulk_files_on_disk};
use regionkv_region::manifest::StoreFileMeta;
use serde_json::{Value, json};

use crate::admin::Admin;
use crate::catalog::{Catalog, TableState};
use crate::error::{Cause, Error, Result};

/// The directory of a table's pending bulk-load records.
pub(crate) const BULKLOAD_DIR: &str = ".bulkload";

/// One family's cells for [`Admin::bulk_load`]: in key order (row, then qualifier,
/// timestamp descending, type descending), each (row, qualifier, timestamp, type) at most
/// once, every timestamp explicit. A source that can fail while it is read (a file being
/// converted) is given with [`FamilyCells::fallible`]: its first error aborts the load
/// before the commit, so nothing of it is loaded.
pub struct FamilyCells<'a> {
    family: Vec<u8>,
    cells: Box<dyn Iterator<Item = std::result::Result<Cell, Cause>> + 'a>,
}

impl<'a> FamilyCells<'a> {
    /// `family`'s `cells`.
    pub fn new(family: impl Into<Vec<u8>>, cells: impl IntoIterator<Item = Cell> + 'a) -> Self {
        FamilyCells {
            family: family.into(),
            cells: Box::new(cells.into_iter().map(Ok)),
        }
    }

    /// `family`'s cells from a source that can fail: an `Err` ends the load with
    /// [`Error::BulkLoadSource`] carrying it (reach it with [`Cause::downcast_ref`]).
    pub fn fallible<E>(
        family: impl Into<Vec<u8>>,
        cells: impl IntoIterator<Item = std::result::Result<Cell, E>> + 'a,
    ) -> Self
    where
        E: std::error::Error + Send + Sync + 'static,
    {
        FamilyCells {
            family: family.into(),
            cells: Box::new(cells.into_iter().map(|r| r.map_err(Cause::new))),
        }
    }

    /// The family.
    pub fn family(&self) -> &[u8] {
        &self.family
    }
}

impl std::fmt::Debug for FamilyCells<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FamilyCells")
            .field(
                "family",
                &regionkv_cell::bytes::to_string_binary(&self.family),
            )
            .finish_non_exhaustive()
    }
}

/// What a bulk load wrote.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BulkLoadReport {
    /// Cells loaded.
    pub cells: u64,
    /// Storefiles written.
    pub files: u64,
    /// Regions that received files.
    pub regions: u64,
    /// Bytes of storefiles written.
    pub bytes: u64,
}

/// The staged files of one region.
struct Staged {
    region: Arc<Region>,
    files: Vec<BulkFile>,
}

impl Admin {
    /// Loads `families` into `table` as new storefiles, atomically for the whole table: a
    /// failure or a crash leaves the table as it was or with every cell loaded. Each loaded
    /// cell carries a sequence id above every earlier write, so it replaces an earlier
    /// value of the same coordinates and timestamp and is replaced by a later one (as
    /// HBase's bulk load with assigned sequence ids). The table must be enabled.
    ///
    /// ```
    /// use regionkv::{Cell, ColumnFamilyDescriptor, FamilyCells, Get, TableDescriptor};
    /// # let dir = tempfile::tempdir()?;
    /// # let db = regionkv::Db::open(dir.path(), regionkv::DbOptions::default().background(false))?;
    /// let admin = db.admin();
    /// admin.create_table_with_splits(
    ///     &TableDescriptor::new("t", vec![ColumnFamilyDescriptor::new(b"cf")?])?,
    ///     vec![b"m".to_vec()],
    /// )?;
    /// let cells = ["a", "k", "x"].map(|r| Cell::put(r.as_bytes(), b"cf", b"q", 1, b"v").unwrap());
    /// let report = admin.bulk_load(
    ///     "t",
    ///     vec![FamilyCells::new(b"cf", cells)],
    /// )?;
    /// assert_eq!((report.cells, report.regions), (3, 2));
    /// assert!(db.table("t")?.get(&Get::new("x"))?.value(b"cf", b"q").is_some());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn bulk_load(&self, table: &str, families: Vec<FamilyCells<'_>>) -> Result<BulkLoadReport> {
        let inner = &self.db.inner;
        inner.ensure_writable("bulk_load")?;
        let catalog = inner.catalog.lock();
        inner.ensure_catalog_certain()?;
        let entry = catalog
            .tables
            .get(table)
            .ok_or_else(|| Error::TableNotFound(table.to_string()))?;
        if entry.state != TableState::Enabled {
            return Err(Error::TableNotEnabled(table.to_string()));
        }
        let unmatched: Vec<String> = families
            .iter()
            .filter(|f| entry.descriptor.family(&f.family).is_none())
            .map(|f| String::from_utf8_lossy(&f.family).into_owned())
            .collect();
        if !unmatched.is_empty() {
            // HBase's BulkLoadHFilesTool wording.
            let valid: Vec<String> = entry
                .descriptor
                .families
                .iter()
                .map(|f| String::from_utf8_lossy(&f.name).into_owned())
                .collect();
            return Err(Error::InvalidArgument(format!(
                "Unmatched family names found: unmatched family names in HFiles to be bulkloaded: [{}]; valid family names of table {table} are: [{}]",
                unmatched.join(", "),
                valid.join(", ")
            )));
        }
        let regions: Vec<Arc<Region>> = inner.table(table)?.region_map()?.regions().to_vec();

        let mut staged: BTreeMap<String, Staged> = BTreeMap::new();
        let mut report = BulkLoadReport::default();
        let staging = stage(&regions, families, &mut staged, &mut report);
        let staged: Vec<Staged> = staged.into_values().collect();
        if let Err(e) = staging.and_then(|()| boundary("bulk-load-after-stage")) {
            remove_staged(inner.fs.as_ref(), &staged);
            return Err(e);
        }
        if staged.is_empty() {
            return Ok(report);
        }

        let dir = inner.table_dir(table).join(BULKLOAD_DIR);
        let record = dir.join(format!("{:020}", inner.services.clock.now_millis().max(0)));
        if let Err(e) = write_record(inner.fs.as_ref(), &dir, &record, table, &staged) {
            // Not renamed into place (or not known to be): if the record is on disk the
            // next open applies it, otherwise it sweeps the files; nothing serves them now.
            tracing::error!(table, error = %e, "bulk load: the commit record could not be written");
            if !inner.fs.exists(&record).unwrap_or(true) {
                remove_staged(inner.fs.as_ref(), &staged);
            }
            return Err(e);
        }
        // Committed: from here on the load only goes forward. A region that could not list
        // its files stays offline until the next open lists them (serving without them, or
        // splitting away from the record, would lose the load).
        let mut published = 0;
        let publishing = boundary("bulk-load-after-commit").and_then(|()| {
            for s in &staged {
                s.region.commit_bulk_files(&s.files)?;
                published += 1;
            }
            Ok(())
        });
        if let Err(e) = publishing {
            for s in &staged[published..] {
                // Closed (flushed) and marked, as a transition leaves what it closed after
                // its commit: reads fail at once instead of missing the load.
                if let Err(e) = s.region.close() {
                    tracing::warn!(region = %s.region.encoded_name(), error = %e, "could not close a region whose bulk load did not publish");
                }
                inner.set_offline(s.region.encoded_name());
            }
            tracing::error!(table, error = %e, "bulk load committed, not every region lists its files; they serve after the next open");
            return Err(e);
        }
        boundary("bulk-load-after-publish")?;
        if let Err(e) = inner
            .fs
            .remove_file(&record)
            .map_err(Error::from)
            .and_then(|()| remove_if_empty(inner.fs.as_ref(), &dir))
        {
            tracing::warn!(record = %record.display(), error = %e, "bulk load: could not remove its record; the next open does");
        }
        drop(catalog);
        inner.splitter.run_pending();
        Ok(report)
    }
}

/// Cuts each family's cells at region boundaries and writes each part as an unlisted file
/// of its region (reserving the region's sequence id at its first file).
fn stage(
    regions: &[Arc<Region>],
    families: Vec<FamilyCells<'_>>,
    staged: &mut BTreeMap<String, Staged>,
    report: &mut BulkLoadReport,
) -> Result<()> {
    let mut seqs: BTreeMap<String, u64> = BTreeMap::new();
    for f in families {
        // The source's first error ends the stream; it is reported after the region loop,
        // once whatever was written of the family is in `staged` (for the clean-up).
        let failure: std::cell::RefCell<Option<Cause>> = std::cell::RefCell::new(None);
        let mut cells = f
            .cells
            .map_while(|r| match r {
                Ok(c) => Some(c),
                Err(e) => {
                    *failure.borrow_mut() = Some(e);
                    None
                }
            })
            .peekable();
        let mut latest: Option<Vec<u8>> = None;
        for region in regions {
            let info = region.info();
            let Some(first) = cells.peek() else {
                break;
            };
            if !info.contains_row(first.row()) {
                continue;
            }
            let end = info.end_key.clone();
            let name = region.encoded_name().to_string();
            let seq = match seqs.get(&name) {
                Some(s) => *s,
                None => {
                    let s = region.reserve_bulk_load_seq_id()?;
                    seqs.insert(name.clone(), s);
                    s
                }
            };
            let written = {
                let mut part = std::iter::from_fn(|| {
                    if latest.is_some() {
                        return None;
                    }
                    let c = cells.next_if(|c| end.is_empty() || c.row() < end.as_slice())?;
                    if c.timestamp() == LATEST_TIMESTAMP {
                        latest = Some(c.row().to_vec());
                        return None;
                    }
                    Some(c)
                });
                region.write_bulk_file(&f.family, &mut part, seq)?
            };
            if let Some(row) = latest.take() {
                if let Some(meta) = written {
                    staged
                        .entry(name.clone())
                        .or_insert_with(|| Staged {
                            region: region.clone(),
                            files: Vec::new(),
                        })
                        .files
                        .push((f.family.clone(), meta));
                }
                return Err(Error::InvalidArgument(format!(
                    "bulk load: a cell of row {} has no timestamp (LATEST_TIMESTAMP); bulk-loaded cells keep the timestamps they carry",
                    regionkv_cell::bytes::to_string_binary(&row)
                )));
            }
            if let Some(meta) = written {
                report.cells += meta.cell_count;
                report.bytes += meta.size;
                report.files += 1;
                let s = staged.entry(name).or_insert_with(|| {
                    report.regions += 1;
                    Staged {
                        region: region.clone(),
                        files: Vec::new(),
                    }
                });
                s.files.push((f.family.clone(), meta));
            }
        }
        if let Some(cause) = failure.borrow_mut().take() {
            return Err(Error::BulkLoadSource { cause });
        }
        if let Some(c) = cells.peek() {
            // Regions cover every row from the empty key on, in order: a cell left over
            // came after a later one (the stream is out of order).
            return Err(Error::InvalidArgument(format!(
                "bulk load: the cells of family {} are not in key order (row {})",
                regionkv_cell::bytes::to_string_binary(&f.family),
                regionkv_cell::bytes::to_string_binary(c.row())
            )));
        }
    }
    Ok(())
}

/// Removes staged, unlisted files after a failure before the commit (best effort: the
/// region's next open sweeps what is left).
fn remove_staged(fs: &dyn Fs, staged: &[Staged]) {
    for s in staged {
        for (family, meta) in &s.files {
            let path = s
                .region
                .dir()
                .join(String::from_utf8_lossy(family).as_ref())
                .join(&meta.name);
            if let Err(e) = fs.remove_file(&path) {
                tracing::warn!(file = %path.display(), error = %e, "bulk load: could not remove a staged file");
            }
        }
    }
}

/// The record format (JSON, `docs/bulk-load.md`): `{"version":1,"table":..,"regions":
/// [{"region":..,"files":[{"family":hex,"name":..,"size":..,"max_seq_id":..,
/// "cell_count":..,"trailer_checksum":..}]}]}`, followed by nothing else; written with
/// `write_atomic` (temp, fsync, rename, fsync directory).
fn write_record(
    fs: &dyn Fs,
    dir: &Path,
    record: &Path,
    table: &str,
    staged: &[Staged],
) -> Result<()> {
    let regions: Vec<Value> = staged
        .iter()
        .map(|s| {
            json!({
                "region": s.region.encoded_name(),
                "files": s.files.iter().map(|(family, m)| json!({
                    "family": to_hex(family),
                    "name": m.name,
                    "size": m.size,
                    "max_seq_id": m.max_seq_id,
                    "cell_count": m.cell_count,
                    "trailer_checksum": m.trailer_checksum,
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    let body = json!({ "version": 1, "table": table, "regions": regions });
    fs.create_dir_all(dir)?;
    if let Some(parent) = dir.parent() {
        fs.sync_dir(parent)?;
    }
    regionkv_fs::write_atomic(fs, record, body.to_string().as_bytes())?;
    Ok(())
}

/// A parsed record: region encoded name → its files.
type Record = Vec<(String, Vec<BulkFile>)>;

fn parse_record(path: &Path, bytes: &[u8]) -> Result<Record> {
    let bad = |what: &str| Error::Corrupt {
        what: "bulk-load record",
        path: path.to_path_buf(),
        offset: 0,
        reason: format!("bulk-load record: {what}"),
    };
    let v: Value = serde_json::from_slice(bytes).map_err(|e| bad(&e.to_string()))?;
    if v["version"].as_u64() != Some(1) {
        return Err(bad("unknown version"));
    }
    let mut out = Vec::new();
    for r in v["regions"].as_array().ok_or_else(|| bad("no regions"))? {
        let region = r["region"]
            .as_str()
            .ok_or_else(|| bad("a region without a name"))?;
        let mut files = Vec::new();
        for f in r["files"]
            .as_array()
            .ok_or_else(|| bad("a region without files"))?
        {
            let num = |k: &str| {
                f[k].as_u64()
                    .ok_or_else(|| bad(&format!("a file without {k}")))
            };
            let family = f["family"]
                .as_str()
                .and_then(crate::catalog::unhex)
                .ok_or_else(|| bad("a file without a family"))?;
            files.push((
                family,
                StoreFileMeta {
                    name: f["name"]
                        .as_str()
                        .ok_or_else(|| bad("a file without a name"))?
                        .to_string(),
                    size: num("size")?,
                    max_seq_id: num("max_seq_id")?,
                    cell_count: num("cell_count")?,
                    reference: None,
                    trailer_checksum: f["trailer_checksum"].as_u64().map(|c| c as u32),
                },
            ));
        }
        out.push((region.to_string(), files));
    }
    Ok(out)
}

/// At open, before any region opens: applies every pending record of every table of
/// `catalog` to its regions' manifests on disk, then deletes it (the roll-forward of a
/// load that committed before a crash).
pub(crate) fn recover_pending(fs: &dyn Fs, db_dir: &Path, catalog: &Catalog) -> Result<usize> {
    let mut applied = 0;
    for (table, entry) in &catalog.tables {
        let table_dir = crate::layout::table_dir(db_dir, table);
        let dir = table_dir.join(BULKLOAD_DIR);
        if !fs.exists(&dir)? {
            continue;
        }
        for name in fs.list(&dir)? {
            let path: PathBuf = dir.join(&name);
            if name.ends_with(".tmp") {
                // Never renamed into place: the load did not commit.
                fs.remove_file(&path)?;
                continue;
            }
            let bytes = fs.open_read(&path)?;
            let bytes = bytes.read_to_vec(0, bytes.len() as usize)?;
            for (region, files) in parse_record(&path, &bytes)? {
                if !entry
                    .regions
                    .iter()
                    .any(|r| r.info.encoded_name() == region)
                {
                    // A region split or merged away after the load published (a record
                    // whose deletion failed): its manifest lists the files already.
                    if published_on_disk(fs, &table_dir.join(&region), &files)? {
                        continue;
                    }
                    return Err(Error::Corrupt {
                        what: "bulk-load record",
                        path: path.clone(),
                        offset: 0,
                        reason: format!(
                            "bulk-load record names region {region}, which the catalog does not list"
                        ),
                    });
                }
                apply_bulk_files_on_disk(fs, &table_dir.join(&region), &files)?;
            }
            fs.remove_file(&path)?;
            applied += 1;
            tracing::info!(table, record = %name, "applied a bulk load committed before a crash");
        }
        remove_if_empty(fs, &dir)?;
    }
    Ok(applied)
}

/// What a read-only open sees of the loads [`recover_pending`] would roll forward: per
/// region (encoded name), the files of every committed record, read without writing or
/// deleting anything (a record still `.tmp` did not commit and is ignored). The regions
/// add them to their manifests in memory, so a reader over a writer killed between a
/// load's commit and its publish sees the whole load, as the writer's next open will.
pub(crate) fn pending_for_read_only(
    fs: &dyn Fs,
    db_dir: &Path,
    catalog: &Catalog,
) -> Result<BTreeMap<String, Vec<BulkFile>>> {
    let mut out: BTreeMap<String, Vec<BulkFile>> = BTreeMap::new();
    for table in catalog.tables.keys() {
        let dir = crate::layout::table_dir(db_dir, table).join(BULKLOAD_DIR);
        if !fs.exists(&dir)? {
            continue;
        }
        for name in fs.list(&dir)? {
            if name.ends_with(".tmp") {
                continue;
            }
            let path: PathBuf = dir.join(&name);
            let bytes = fs.open_read(&path)?;
            let bytes = bytes.read_to_vec(0, bytes.len() as usize)?;
            for (region, files) in parse_record(&path, &bytes)? {
                out.entry(region).or_default().extend(files);
            }
        }
    }
    Ok(out)
}

/// Whether the manifest in `region_dir` lists every file of `files`.
fn published_on_disk(fs: &dyn Fs, region_dir: &Path, files: &[BulkFile]) -> Result<bool> {
    let Some(m) = regionkv_region::Manifest::read(fs, region_dir)? else {
        return Ok(false);
    };
    Ok(files.iter().all(|(family, meta)| {
        m.stores
            .get(family)
            .is_some_and(|sm| sm.files.iter().any(|f| f.name == meta.name))
    }))
}

/// Removes the record directory `dir` once it holds nothing (made durable), so a table
/// directory without a pending load has no `.bulkload` entry.
fn remove_if_empty(fs: &dyn Fs, dir: &Path) -> Result<()> {
    if fs.list(dir)?.is_empty() {
        fs.remove_dir_all(dir)?;
        if let Some(parent) = dir.parent() {
            fs.sync_dir(parent)?;
        }
    } else {
        fs.sync_dir(dir)?;
    }
    Ok(())
}

/// The crash point `name` (compiled in with the `failpoints` feature only).
fn boundary(name: &str) -> Result<()> {
    #[cfg(feature = "failpoints")]
    fail::fail_point!(name, |_| Err(Error::Injected(name.to_string())));
    #[cfg(not(feature = "failpoints"))]
    let _ = name;
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::{ColumnFamilyDescriptor, Db, DbOptions, Scan, TableDescriptor};

    #[derive(Debug, thiserror::Error)]
    #[error("source broke at {0}")]
    struct SourceBroke(u32);

    fn open(dir: &Path) -> Db {
        let db = Db::open(dir, DbOptions::default().background(false)).unwrap();
        db.admin()
            .create_table_with_splits(
                &TableDescriptor::new("t", vec![ColumnFamilyDescriptor::new(b"cf").unwrap()])
                    .unwrap(),
                vec![b"m".to_vec()],
            )
            .unwrap();
        db
    }

    fn storefiles(dir: &Path) -> usize {
        regionkv_testkit::files_under(dir)
            .into_iter()
            .filter(|p| p.extension().is_some_and(|e| e == "sf"))
            .count()
    }

    /// A source that fails after writing into the first region leaves the table as it
    /// was: no cell visible, no staged file left, and the source's error comes back.
    #[test]
    fn a_failing_source_loads_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let db = open(dir.path());
        let before = storefiles(dir.path());
        let rows = ["a", "b", "n"];
        let cells = rows.iter().enumerate().map(|(i, r)| {
            if *r == "n" {
                Err(SourceBroke(i as u32))
            } else {
                Ok(Cell::put(r.as_bytes(), b"cf", b"q", 5, b"v").unwrap())
            }
        });
        let err = db
            .admin()
            .bulk_load("t", vec![FamilyCells::fallible(b"cf", cells)])
            .unwrap_err();
        match &err {
            Error::BulkLoadSource { cause } => {
                assert_eq!(cause.downcast_ref::<SourceBroke>().map(|s| s.0), Some(2));
            }
            other => panic!("unexpected error {other:?}"),
        }
        assert_eq!(err.to_string(), "source broke at 2");
        let t = db.table("t").unwrap();
        assert_eq!(t.scan(&Scan::new()).unwrap().count(), 0);
        assert_eq!(storefiles(dir.path()), before);

        // The same cells without the failure load into both regions.
        let cells = ["a", "b", "n"].map(|r| Cell::put(r.as_bytes(), b"cf", b"q", 5, b"v").unwrap());
        let report = db
            .admin()
            .bulk_load("t", vec![FamilyCells::new(b"cf", cells)])
            .unwrap();
        assert_eq!((report.cells, report.regions, report.files), (3, 2, 2));
        assert_eq!(t.scan(&Scan::new()).unwrap().count(), 3);
    }
}
