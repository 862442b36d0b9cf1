//! `repair`: the explicit salvage of a damaged Db directory (`regionkv repair DIR`), the
//! one place where regionkv trades data for availability — never done on a normal open,
//! which reports damage as an error naming the file and offset instead.
//!
//! What it does, in order (HBase's hbck `-sidelineCorruptHFiles` and WAL splitting with
//! `hbase.hlog.split.skip.errors`, in regionkv's terms):
//! 1. reads the catalog and every region's manifest; these it cannot rebuild, so damage to
//!    them stops the repair with the error (nothing is changed);
//! 2. verifies every storefile a manifest lists (its own files and the parent files its
//!    references point into) by reading every block; an unreadable one is moved aside to
//!    `DIR/corrupt/<its path>` and dropped from every manifest that lists it (its cells
//!    are lost; the rest of the region serves);
//! 3. reads every WAL log strictly; a damaged one is copied to `DIR/corrupt/wal/`, then the
//!    Db is opened with `RecoveryMode::SkipAnyCorrupted` (every record that still verifies
//!    is replayed, the damaged ranges are skipped), every table is flushed and the WAL
//!    rolled, so that the damaged logs are no longer needed and are deleted.
//!
//! After a repair the directory opens normally. The report lists what was moved aside and
//! how many WAL ranges were skipped.

use crate::catalog::Catalog;
use crate::dir_lock::DirLock;
use crate::{Db, DbOptions, Error, Result};
use regionkv_fs::{Fs, RealFs};
use regionkv_region::Manifest;
use regionkv_storefile::{StoreFileReader, StoreFileScanner};
use regionkv_wal::{RecoveryMode, WalReader};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What a repair found and did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RepairReport {
    /// Storefiles read through.
    pub storefiles_checked: usize,
    /// WAL logs read through.
    pub wal_logs_checked: usize,
    /// Files moved (storefiles) or copied (WAL logs) under `DIR/corrupt/`, with why.
    pub moved_aside: Vec<(PathBuf, String)>,
    /// Manifest entries dropped because their file was unreadable.
    pub manifest_entries_dropped: usize,
    /// Damaged WAL byte ranges skipped by the salvage replay.
    pub wal_ranges_skipped: usize,
}

impl RepairReport {
    /// True when nothing was damaged.
    pub fn is_clean(&self) -> bool {
        self.moved_aside.is_empty()
    }
}

fn region_err(e: impl Into<regionkv_region::Error>) -> Error {
    Error::Region(e.into())
}

/// Reads every cell of the storefile at `path`; the first error says why it is unreadable.
fn verify_storefile(fs: &dyn Fs, path: &Path) -> std::result::Result<(), String> {
    let reader =
        StoreFileReader::open(fs, path, 1, None, Default::default()).map_err(|e| e.to_string())?;
    let mut scanner = StoreFileScanner::new(Arc::new(reader));
    use regionkv_cell::KeyValueScanner;
    let mut more = scanner.seek_to_first().map_err(|e| e.to_string())?;
    while more {
        scanner.advance().map_err(|e| e.to_string())?;
        more = scanner.peek().is_some();
    }
    Ok(())
}

/// The directory of `table`'s regions.
fn table_dir(dir: &Path, table: &str) -> PathBuf {
    let (ns, q) = table.split_once(':').unwrap_or(("default", table));
    dir.join("data").join(ns).join(q)
}

/// Moves `path` to `DIR/corrupt/<path relative to DIR>`.
fn move_aside(fs: &dyn Fs, dir: &Path, path: &Path) -> Result<PathBuf> {
    let rel = path.strip_prefix(dir).unwrap_or(path);
    let to = dir.join("corrupt").join(rel);
    if let Some(parent) = to.parent() {
        fs.create_dir_all(parent)?;
    }
    fs.rename(path, &to)?;
    if let Some(parent) = path.parent() {
        fs.sync_dir(parent)?;
    }
    if let Some(parent) = to.parent() {
        fs.sync_dir(parent)?;
    }
    Ok(to)
}

/// Repairs the Db at `path` (see the module docs). `options` are those the Db is opened
/// with (its file system, clock ...); the WAL recovery mode is overridden for the salvage.
///
/// ```
/// use regionkv::{ColumnFamilyDescriptor, Db, DbOptions, Put, TableDescriptor};
/// let dir = tempfile::tempdir()?;
/// let db = Db::open(dir.path(), DbOptions::default().background(false))?;
/// db.admin().create_table(&TableDescriptor::new("t", vec![ColumnFamilyDescriptor::new(b"cf")?])?)?;
/// db.table("t")?.put(&Put::new("r").add_column("cf", "q", "v"))?;
/// db.close()?;
/// drop(db);
/// let report = regionkv::repair::repair(dir.path(), DbOptions::default().background(false))?;
/// assert!(report.is_clean());
/// assert_eq!(report.wal_logs_checked, 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn repair(path: impl AsRef<Path>, options: DbOptions) -> Result<RepairReport> {
    let dir = path.as_ref().to_path_buf();
    let fs: Arc<dyn Fs> = options
        .fs
        .clone()
        .unwrap_or_else(|| Arc::new(RealFs::new()));
    let _span = tracing::info_span!("repair", dir = %dir.display()).entered();
    let mut report = RepairReport::default();
    let damaged_logs = {
        // No Db may run on the directory while files move: the same locks a Db takes.
        let _lock = DirLock::acquire(fs.clone(), &dir)?;
        let catalog = Catalog::read(fs.as_ref(), &dir)?.ok_or_else(|| Error::Corrupt {
            path: dir.join("CATALOG"),
            offset: 0,
            reason: "no catalog: not a regionkv database, or its catalog is lost".into(),
        })?;
        repair_storefiles(fs.as_ref(), &dir, &catalog, &mut report)?;
        check_wal(fs.as_ref(), &dir, &mut report)?
    };
    if !damaged_logs.is_empty() {
        let opts = DbOptions {
            wal_recovery: RecoveryMode::SkipAnyCorrupted,
            ..options
        };
        let db = Db::open(&dir, opts)?;
        let admin = db.admin();
        for t in admin.list_tables()? {
            admin.flush(&t)?;
        }
        admin.roll_wal_writer()?;
        db.close()?;
        drop(db);
        for log in damaged_logs {
            // Every edit it still held is in a storefile now; the copy is in corrupt/.
            if fs.exists(&log)? {
                fs.remove_file(&log)?;
            }
        }
        fs.sync_dir(&dir.join("wal"))?;
    }
    tracing::info!(moved = report.moved_aside.len(), "repair done");
    Ok(report)
}

fn repair_storefiles(
    fs: &dyn Fs,
    dir: &Path,
    catalog: &Catalog,
    report: &mut RepairReport,
) -> Result<()> {
    // Verdict per storefile path: a parent's file is verified once for both daughters.
    let mut verdicts: BTreeMap<PathBuf, Option<String>> = BTreeMap::new();
    let mut moved: BTreeSet<PathBuf> = BTreeSet::new();
    for (table, entry) in &catalog.tables {
        let tdir = table_dir(dir, table);
        for region in &entry.regions {
            let rdir = tdir.join(region.info.encoded_name());
            let Some(mut manifest) = Manifest::read(fs, &rdir).map_err(region_err)? else {
                continue;
            };
            let mut dropped = 0;
            for (family, store) in manifest.stores.iter_mut() {
                let fam = String::from_utf8_lossy(family).into_owned();
                let mut keep = Vec::with_capacity(store.files.len());
                for f in store.files.drain(..) {
                    let file = match &f.reference {
                        Some(r) => tdir.join(&r.region).join(&fam).join(&r.file),
                        None => rdir.join(&fam).join(&f.name),
                    };
                    let verdict = verdicts
                        .entry(file.clone())
                        .or_insert_with(|| {
                            if moved.contains(&file) {
                                return Some("moved aside".into());
                            }
                            verify_storefile(fs, &file).err()
                        })
                        .clone();
                    match verdict {
                        None => {
                            keep.push(f);
                        }
                        Some(why) => {
                            tracing::warn!(file = %file.display(), %why, "unreadable storefile");
                            if !moved.contains(&file) && fs.exists(&file)? {
                                let to = move_aside(fs, dir, &file)?;
                                report.moved_aside.push((to, why));
                                moved.insert(file.clone());
                            }
                            dropped += 1;
                        }
                    }
                }
                store.files = keep;
            }
            report.storefiles_checked = verdicts.len();
            if dropped > 0 {
                manifest.write(fs, &rdir).map_err(region_err)?;
                report.manifest_entries_dropped += dropped;
            }
        }
    }
    Ok(())
}

/// Reads every log strictly; copies the damaged ones to `corrupt/wal/` and returns them.
fn check_wal(fs: &dyn Fs, dir: &Path, report: &mut RepairReport) -> Result<Vec<PathBuf>> {
    let wal_dir = dir.join("wal");
    if !fs.exists(&wal_dir)? {
        return Ok(Vec::new());
    }
    let mut logs: Vec<String> = fs
        .list(&wal_dir)?
        .into_iter()
        .filter(|n| n.ends_with(".log"))
        .collect();
    logs.sort();
    let mut damaged = Vec::new();
    for (i, name) in logs.iter().enumerate() {
        let path = wal_dir.join(name);
        report.wal_logs_checked += 1;
        let last = i + 1 == logs.len();
        let strict = || -> regionkv_wal::Result<()> {
            let mut r = WalReader::open(fs, &path)?
                .with_mode(RecoveryMode::TolerateCorruptedTail)
                .tail_may_be_torn(last);
            while r.next_edit()?.is_some() {}
            Ok(())
        };
        if let Err(e) = strict() {
            // How much the salvage will skip.
            if let Ok(r) = WalReader::open(fs, &path) {
                let mut r = r.with_mode(RecoveryMode::SkipAnyCorrupted);
                while let Ok(Some(_)) = r.next_edit() {}
                report.wal_ranges_skipped += r.skipped().len();
            }
            let copy = dir.join("corrupt").join("wal").join(name);
            fs.create_dir_all(&dir.join("corrupt").join("wal"))?;
            let bytes = fs
                .open_read(&path)?
                .read_to_vec(0, fs.file_len(&path)? as usize)?;
            regionkv_fs::write_atomic(fs, &copy, &bytes)?;
            report.moved_aside.push((copy, e.to_string()));
            damaged.push(path);
        }
    }
    Ok(damaged)
}
