//! `repair`: the explicit salvage of a damaged Db directory (`regionkv repair DIR`), the
//! one place where regionkv trades data for availability — never done on a normal open,
//! which reports damage as an error naming the file and offset instead.
//!
//! What it does, in order (HBase's hbck `-sidelineCorruptHFiles`, `OfflineMetaRepair` and
//! WAL splitting with `hbase.hlog.split.skip.errors`, in regionkv's terms):
//! 1. reads the catalog. A missing or unreadable one (the damaged file is moved aside to
//!    `DIR/corrupt/`) is rebuilt from the directories: each region's MANIFEST knows its
//!    table, key range and id, each table's `.tableinfo` its descriptor and state
//!    ([`rebuild`]); a table directory the catalog does not list, that is no leftover of
//!    an interrupted create or drop, is adopted the same way. Directories that do not make
//!    a consistent table (overlapping regions that both hold data, a gap in the key
//!    space, a manifest in another region's directory) refuse the repair with
//!    [`Error::RepairRefused`] listing each problem, and nothing is changed. A damaged
//!    region manifest stops the repair with its error;
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
use regionkv_region::store::{StoreOwner, check_file_is_the_entry, expected_identity};
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
    /// The catalog was missing or unreadable and was rebuilt from the directories.
    pub catalog_rebuilt: bool,
    /// Tables found in directories the catalog did not list, added to it.
    pub tables_adopted: Vec<String>,
    /// What the repair decided on the way (regions left out of a rebuilt table and why,
    /// options that could not be recovered ...), one line each.
    pub notes: Vec<String>,
    /// Files (manifests, storefiles) found in another's place and put back where their
    /// identity says they belong: (from, to).
    pub restored: Vec<(PathBuf, PathBuf)>,
}

impl RepairReport {
    /// True when nothing was damaged or missing.
    pub fn is_clean(&self) -> bool {
        self.moved_aside.is_empty()
            && !self.catalog_rebuilt
            && self.tables_adopted.is_empty()
            && self.restored.is_empty()
    }
}

mod rebuild;

fn region_err(e: impl Into<regionkv_region::Error>) -> Error {
    Error::from(e.into())
}

/// What a manifest entry's place holds.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Found {
    /// The file the entry names, every block readable.
    Right,
    /// No file.
    Missing,
    /// Another file: what its identity says it is (`None`: it has none).
    Misplaced(Option<String>, String),
    /// Unreadable: why.
    Bad(String),
}

/// Checks the file at `path` against the manifest entry `meta` of `family` of `owner`
/// (identity, size, trailer checksum), then reads every cell.
fn verify_entry(
    fs: &dyn Fs,
    path: &Path,
    meta: &regionkv_region::manifest::StoreFileMeta,
    family: &[u8],
    owner: &StoreOwner,
) -> Result<Found> {
    if !fs.exists(path)? {
        return Ok(Found::Missing);
    }
    let reader = match StoreFileReader::open(fs, path, 1, None, Default::default()) {
        Ok(r) => r,
        Err(e) => return Ok(Found::Bad(e.to_string())),
    };
    if let Err(e) = check_file_is_the_entry(&reader, meta, family, owner) {
        let claim = reader.file_info().identity.as_ref().map(|i| i.to_string());
        return Ok(Found::Misplaced(claim, e.to_string()));
    }
    let mut scanner = StoreFileScanner::new(Arc::new(reader));
    use regionkv_cell::KeyValueScanner;
    let mut read_all = || -> regionkv_storefile::Result<()> {
        let mut more = scanner.seek_to_first()?;
        while more {
            scanner.advance()?;
            more = scanner.peek().is_some();
        }
        Ok(())
    };
    Ok(match read_all() {
        Ok(()) => Found::Right,
        Err(e) => Found::Bad(e.to_string()),
    })
}

/// Puts files found in each other's places back where they belong. `slots` lists each place
/// a file is expected: (its path, the identity expected there, what it holds). A misplaced
/// file whose identity names another slot that does not hold its right file is moved
/// there (through a temporary name, so swaps work); a file displaced by it that no slot
/// claims is moved aside first. Returns the moves made.
fn restore_misplaced(
    fs: &dyn Fs,
    dir: &Path,
    slots: &[(PathBuf, String, Found)],
    report: &mut RepairReport,
) -> Result<Vec<(PathBuf, PathBuf)>> {
    let home: BTreeMap<&str, (&PathBuf, &Found)> = slots
        .iter()
        .map(|(p, want, found)| (want.as_str(), (p, found)))
        .collect();
    let mut moves: Vec<(PathBuf, PathBuf)> = Vec::new();
    let mut taken: BTreeSet<&PathBuf> = BTreeSet::new();
    for (path, _, found) in slots {
        let Found::Misplaced(Some(claim), _) = found else {
            continue;
        };
        if let Some((dest, dest_found)) = home.get(claim.as_str())
            && *dest != path
            && **dest_found != Found::Right
            && taken.insert(dest)
        {
            moves.push((path.clone(), (*dest).clone()));
        }
    }
    let sources: BTreeSet<&PathBuf> = moves.iter().map(|(from, _)| from).collect();
    let tmp = |p: &Path| {
        let mut s = p.as_os_str().to_owned();
        s.push(".repair");
        PathBuf::from(s)
    };
    for (from, _) in &moves {
        fs.rename(from, &tmp(from))?;
    }
    for (from, to) in &moves {
        if !sources.contains(to) && fs.exists(to)? {
            // What was there is not what belongs there, and no slot claims it.
            let aside = move_aside(fs, dir, to)?;
            report.moved_aside.push((
                aside,
                "displaced by the file that belongs in its place".to_string(),
            ));
        }
        if let Some(parent) = to.parent() {
            fs.create_dir_all(parent)?;
        }
        fs.rename(&tmp(from), to)?;
        for d in [from.parent(), to.parent()].into_iter().flatten() {
            fs.sync_dir(d)?;
        }
        tracing::warn!(from = %from.display(), to = %to.display(), "put a misplaced file back where it belongs");
        report.restored.push((from.clone(), to.clone()));
    }
    Ok(moves)
}

/// Swaps region manifests back into the directories they name. A manifest says which
/// region it is (table, key range, id: the encoded name); one found in another region's
/// directory is moved to its own, when that one holds no manifest of its own. Works
/// without the catalog, so it runs before the catalog is read or rebuilt.
fn restore_manifests(fs: &dyn Fs, dir: &Path, report: &mut RepairReport) -> Result<()> {
    let mut slots = Vec::new();
    for (table, tdir) in crate::layout::table_dirs(fs, dir)? {
        for region in crate::layout::region_dirs(fs, &tdir)? {
            let rdir = tdir.join(&region);
            let want = format!("region {region} of table {table}");
            let found = match Manifest::read(fs, &rdir) {
                Ok(None) => Found::Missing,
                Ok(Some(m)) if m.region.table == table && m.region.encoded_name() == region => {
                    Found::Right
                }
                Ok(Some(m)) => Found::Misplaced(
                    Some(format!(
                        "region {} of table {}",
                        m.region.encoded_name(),
                        m.region.table
                    )),
                    String::new(),
                ),
                Err(e) => Found::Bad(e.to_string()),
            };
            slots.push((Manifest::path(&rdir), want, found));
        }
    }
    restore_misplaced(fs, dir, &slots, report)?;
    Ok(())
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
        let db_id = crate::db::check_identity(fs.as_ref(), &dir)?;
        restore_manifests(fs.as_ref(), &dir, &mut report)?;
        let catalog = repair_catalog(fs.as_ref(), &dir, db_id, &mut report)?;
        repair_storefiles(fs.as_ref(), &dir, &catalog, &mut report)?;
        check_wal(fs.as_ref(), &dir, &catalog, db_id, &mut report)?
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

/// The highest sequence id of each region's edits in the WAL (every record that still
/// verifies), by encoded name: evidence of data a region holds outside its storefiles.
fn wal_max_seq_ids(fs: &dyn Fs, dir: &Path) -> Result<BTreeMap<String, u64>> {
    let wal_dir = dir.join("wal");
    let mut out = BTreeMap::new();
    if !fs.exists(&wal_dir)? {
        return Ok(out);
    }
    let mut replay =
        regionkv_wal::replay(fs, &wal_dir, RecoveryMode::SkipAnyCorrupted).map_err(region_err)?;
    for edit in replay.by_ref() {
        let edit = edit.map_err(region_err)?;
        let seq = out
            .entry(String::from_utf8_lossy(&edit.key.region).into_owned())
            .or_insert(0);
        *seq = (*seq).max(edit.key.seq_id);
    }
    Ok(out)
}

/// Reads the catalog, rebuilding it when it is missing or unreadable, and adopts the
/// table directories it does not list (see the module docs). Writes the catalog only when
/// every table came out consistent.
fn repair_catalog(
    fs: &dyn Fs,
    dir: &Path,
    db_id: Option<crate::db::DbId>,
    report: &mut RepairReport,
) -> Result<Catalog> {
    let read = Catalog::read(fs, dir).and_then(|c| match (c, db_id) {
        (Some(c), Some(id)) if c.db_id.is_some_and(|theirs| theirs != id) => {
            Err(crate::db::foreign_catalog(dir, &c, &id))
        }
        (c, _) => Ok(c),
    });
    let existing = match read {
        Ok(c) => c,
        Err(e @ Error::Corrupt { .. }) => {
            let path = Catalog::path(dir);
            let to = move_aside(fs, dir, &path)?;
            tracing::warn!(error = %e, "unreadable catalog moved aside; rebuilding it");
            report.moved_aside.push((to, e.to_string()));
            None
        }
        Err(e) => return Err(e),
    };
    if existing.is_none() && db_id.is_none() {
        return Err(Error::NotADb {
            dir: dir.to_path_buf(),
            reason: "no REGIONKV identity file and no catalog: not a regionkv database".into(),
        });
    }
    let rebuilding = existing.is_none();
    let mut catalog = existing.unwrap_or_default();
    catalog.db_id = catalog.db_id.or(db_id);
    let wal_seq = wal_max_seq_ids(fs, dir)?;
    let mut problems = Vec::new();
    let mut changed = rebuilding;
    if rebuilding {
        for ns in fs.list(&dir.join("data")).unwrap_or_default() {
            if regionkv_cell::limits::check_namespace_name(&ns).is_ok() {
                catalog.namespaces.insert(ns);
            }
        }
    }
    for (name, tdir) in crate::layout::table_dirs(fs, dir)? {
        if catalog.tables.contains_key(&name) {
            continue;
        }
        match rebuild::rebuild_table(fs, &name, &tdir, &wal_seq)? {
            rebuild::Rebuilt::Table(entry, notes) => {
                report.notes.extend(notes);
                catalog
                    .namespaces
                    .insert(crate::db::namespace_of(&name).to_string());
                catalog.tables.insert(name.clone(), entry);
                if !rebuilding {
                    report.tables_adopted.push(name);
                }
                changed = true;
            }
            rebuild::Rebuilt::Leftover(note) => report.notes.push(note),
            rebuild::Rebuilt::Refused(p) => problems.extend(p),
        }
    }
    if !problems.is_empty() {
        return Err(Error::RepairRefused {
            dir: dir.to_path_buf(),
            problems,
        });
    }
    if changed {
        let max_id = rebuild::max_region_id(fs, dir)?;
        catalog.next_region_id = catalog.next_region_id.max(max_id.saturating_add(1));
        catalog.write(fs, dir)?;
        report.catalog_rebuilt = rebuilding;
        tracing::warn!(
            rebuilt = rebuilding,
            adopted = report.tables_adopted.len(),
            tables = catalog.tables.len(),
            "catalog written from the region directories"
        );
    }
    Ok(catalog)
}

fn repair_storefiles(
    fs: &dyn Fs,
    dir: &Path,
    catalog: &Catalog,
    report: &mut RepairReport,
) -> Result<()> {
    // Every place a file is expected: (path, expected identity, entry, family, owner).
    // A parent's file is one place for both daughters.
    let mut places: BTreeMap<
        PathBuf,
        (
            String,
            regionkv_region::manifest::StoreFileMeta,
            Vec<u8>,
            StoreOwner,
        ),
    > = BTreeMap::new();
    for (table, entry) in &catalog.tables {
        let tdir = crate::layout::table_dir(dir, table);
        for region in &entry.regions {
            let encoded = region.info.encoded_name();
            let rdir = tdir.join(&encoded);
            let Some(manifest) = Manifest::read(fs, &rdir).map_err(region_err)? else {
                continue;
            };
            let owner = StoreOwner {
                table: table.clone(),
                region: encoded,
            };
            for (family, store) in &manifest.stores {
                for f in &store.files {
                    let path = entry_path(&tdir, &rdir, family, f);
                    let want = expected_identity(f, family, &owner).to_string();
                    places
                        .entry(path)
                        .or_insert_with(|| (want, f.clone(), family.clone(), owner.clone()));
                }
            }
        }
    }
    let mut verdicts: BTreeMap<PathBuf, Found> = BTreeMap::new();
    for (path, (_, meta, family, owner)) in &places {
        verdicts.insert(path.clone(), verify_entry(fs, path, meta, family, owner)?);
    }
    let slots: Vec<(PathBuf, String, Found)> = places
        .iter()
        .map(|(p, (want, ..))| (p.clone(), want.clone(), verdicts[p].clone()))
        .collect();
    for (from, to) in restore_misplaced(fs, dir, &slots, report)? {
        for p in [from, to] {
            if let Some((_, meta, family, owner)) = places.get(&p) {
                verdicts.insert(p.clone(), verify_entry(fs, &p, meta, family, owner)?);
            }
        }
    }
    report.storefiles_checked = verdicts.len();
    // What still is not right is moved aside and dropped from every manifest naming it.
    for (path, found) in &verdicts {
        let why = match found {
            Found::Right => continue,
            Found::Missing => "missing".to_string(),
            Found::Misplaced(_, why) | Found::Bad(why) => why.clone(),
        };
        tracing::warn!(file = %path.display(), %why, "unusable storefile");
        if fs.exists(path)? {
            let to = move_aside(fs, dir, path)?;
            report.moved_aside.push((to, why));
        } else {
            report
                .notes
                .push(format!("storefile {} is {why}", path.display()));
        }
    }
    for (table, entry) in &catalog.tables {
        let tdir = crate::layout::table_dir(dir, table);
        for region in &entry.regions {
            let rdir = tdir.join(region.info.encoded_name());
            let Some(mut manifest) = Manifest::read(fs, &rdir).map_err(region_err)? else {
                continue;
            };
            let mut dropped = 0;
            for (family, store) in manifest.stores.iter_mut() {
                let before = store.files.len();
                store.files.retain(|f| {
                    verdicts.get(&entry_path(&tdir, &rdir, family, f)) == Some(&Found::Right)
                });
                dropped += before - store.files.len();
            }
            if dropped > 0 {
                manifest.write(fs, &rdir).map_err(region_err)?;
                report.manifest_entries_dropped += dropped;
            }
        }
    }
    Ok(())
}

/// Where the file of manifest entry `f` of `family` of the region in `rdir` is: its own
/// family directory, or, for a reference, the referenced region's.
fn entry_path(
    tdir: &Path,
    rdir: &Path,
    family: &[u8],
    f: &regionkv_region::manifest::StoreFileMeta,
) -> PathBuf {
    match &f.reference {
        Some(r) => r.path_in_table(tdir, family),
        None => rdir
            .join(String::from_utf8_lossy(family).as_ref())
            .join(&f.name),
    }
}

/// Reads every log strictly (as the default recovery would, with the evidence between
/// logs and the Db's id); copies the damaged ones to `corrupt/wal/` and returns them.
fn check_wal(
    fs: &dyn Fs,
    dir: &Path,
    catalog: &Catalog,
    db_id: Option<crate::db::DbId>,
    report: &mut RepairReport,
) -> Result<Vec<PathBuf>> {
    let wal_dir = dir.join("wal");
    if !fs.exists(&wal_dir)? {
        return Ok(Vec::new());
    }
    report.wal_logs_checked = fs
        .list(&wal_dir)?
        .iter()
        .filter(|n| n.ends_with(".log"))
        .count();
    let mut damaged = Vec::new();
    let recorded = crate::db::recorded_wal_lengths(fs, dir, catalog);
    for (path, e) in
        regionkv_wal::verify_logs(fs, &wal_dir, db_id, &recorded).map_err(region_err)?
    {
        tracing::warn!(log = %path.display(), error = %e, "damaged WAL log");
        // How much the salvage will skip.
        if let Ok(r) = WalReader::open(fs, &path) {
            let mut r = r.with_mode(RecoveryMode::SkipAnyCorrupted);
            while let Ok(Some(_)) = r.next_edit() {}
            report.wal_ranges_skipped += r.skipped().len().max(1);
        } else {
            report.wal_ranges_skipped += 1;
        }
        let aside = dir.join("corrupt").join("wal");
        if let Some(copy) = regionkv_region::recovery::keep_log_bytes(fs, &path, None, &aside)
            .map_err(region_err)?
        {
            report.moved_aside.push((copy, e.to_string()));
        }
        damaged.push(path);
    }
    Ok(damaged)
}
