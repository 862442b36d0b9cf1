//! Snapshots (HBase's `SnapshotManager`, `SnapshotDescription`, `SnapshotManifest`): a
//! table's file set at one moment, kept by hard links so that neither a compaction nor a
//! drop of the table can delete a file the snapshot holds. This module owns the on-disk
//! form of a snapshot, taking one, listing and deleting them, and the clean-up at open;
//! clone and restore, which change the region set, are transitions
//! (`crate::transition::snapshot`). Layout, steps and crash behaviour: docs/snapshots.md.
//!
//! ```text
//! <db>/.hbase-snapshot/<name>/snapshotinfo          the SnapshotDescription: written last, the commit
//! <db>/.hbase-snapshot/<name>/data.manifest         the table descriptor and every region's manifest
//! <db>/.hbase-snapshot/<name>/data/<region>/<family>/<file>   a hard link per storefile
//! ```
//!
//! Invariants: a snapshot exists exactly when its `snapshotinfo` does. That file appears by
//! one rename (write temp, fsync, rename, fsync directory) after every link and the
//! manifest are durable, and a delete removes it first; a directory without it is an
//! interrupted snapshot or delete, never listed, and removed by the next open. (HBase
//! writes under `.hbase-snapshot/.tmp/<name>` and renames the directory; regionkv's file
//! system seam renames files only in its test doubles, so the commit is the file's rename:
//! the same single atomic step, crash-tested on every Fs.)
//! Snapshot operations run under the catalog lock, so they are serial with each other and
//! with every transition (no split, merge or drop while a snapshot links files), and a
//! region's files are linked under its compaction lock ([`Region::with_live_files`]).
//! Reading a snapshot needs nothing but its directory (not the catalog): `regionkv repair`
//! leaves `.hbase-snapshot/` alone, and a snapshot outlives a lost catalog.

use crate::catalog::{Catalog, descriptor_from_json, descriptor_json, frame, read_small};
use crate::db::RegionServer;
use crate::error::{Error, Result};
use regionkv_cell::bytes::to_hex;
use regionkv_fs::Fs;
use regionkv_region::{Manifest, Region, TableDescriptor};
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The directory of every snapshot in a Db directory (HBase's `.hbase-snapshot`).
pub const SNAPSHOT_DIR: &str = ".hbase-snapshot";
/// A snapshot's description file (HBase's `.snapshotinfo`).
pub const SNAPSHOT_INFO_FILE: &str = "snapshotinfo";
/// A snapshot's manifest file (HBase's `data.manifest`).
pub const DATA_MANIFEST_FILE: &str = "data.manifest";
const INFO_MAGIC: &[u8; 8] = b"RKVSNPI1";
const MANIFEST_MAGIC: &[u8; 8] = b"RKVSNPM1";
/// The format of both files' JSON bodies.
const FORMAT: u64 = 1;
/// HBase's `SnapshotManifestV2.DESCRIPTOR_VERSION`, reported as the snapshot's version.
pub const SNAPSHOT_VERSION: u32 = 2;

/// How a snapshot was taken (HBase's `SnapshotType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SnapshotType {
    /// Of a disabled table: its closed regions' files (HBase's offline snapshot).
    Disabled,
    /// Of an enabled table, flushed first: every edit acknowledged before it is in it.
    Flush,
    /// Of an enabled table without a flush (`SKIP_FLUSH => true`): edits still in the
    /// memstores are not in it.
    SkipFlush,
}

impl SnapshotType {
    /// HBase's name of the type.
    pub fn name(self) -> &'static str {
        match self {
            SnapshotType::Disabled => "DISABLED",
            SnapshotType::Flush => "FLUSH",
            SnapshotType::SkipFlush => "SKIPFLUSH",
        }
    }

    fn from_name(name: &str) -> Option<Self> {
        [Self::Disabled, Self::Flush, Self::SkipFlush]
            .into_iter()
            .find(|t| t.name() == name)
    }
}

/// What a snapshot is (HBase's `SnapshotDescription`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnapshotDescription {
    /// The snapshot's name (a legal table qualifier, as HBase requires).
    pub name: String,
    /// The table it was taken of (`ns:table`, or `table` in the default namespace).
    pub table: String,
    /// When it was taken, in ms since the epoch (the engine clock).
    pub creation_time: i64,
    /// How it was taken.
    pub snapshot_type: SnapshotType,
    /// Time to live in seconds after `creation_time`; 0: forever (HBase's `TTL`).
    pub ttl: i64,
    /// The snapshot format version HBase reports ([`SNAPSHOT_VERSION`]).
    pub version: u32,
}

impl SnapshotDescription {
    /// True when the TTL has run out at `now_ms` (HBase's
    /// `SnapshotDescriptionUtils.isExpiredSnapshot`).
    pub fn is_expired(&self, now_ms: i64) -> bool {
        self.ttl > 0
            && self
                .creation_time
                .saturating_add(self.ttl.saturating_mul(1000))
                < now_ms
    }

    fn to_json(&self) -> Value {
        json!({
            "format": FORMAT,
            "name": self.name,
            "table": self.table,
            "creation_time": self.creation_time,
            "type": self.snapshot_type.name(),
            "ttl": self.ttl,
            "version": self.version,
        })
    }

    fn from_json(v: &Value) -> std::result::Result<Self, String> {
        check_format(v)?;
        let text = |k: &str| {
            v[k].as_str()
                .map(str::to_string)
                .ok_or_else(|| format!("no {k}"))
        };
        let int = |k: &str| v[k].as_i64().ok_or_else(|| format!("no {k}"));
        let type_name = text("type")?;
        Ok(Self {
            name: text("name")?,
            table: text("table")?,
            creation_time: int("creation_time")?,
            snapshot_type: SnapshotType::from_name(&type_name)
                .ok_or_else(|| format!("unknown snapshot type {type_name:?}"))?,
            ttl: int("ttl")?,
            version: u32::try_from(int("version")?).map_err(|_| "bad version".to_string())?,
        })
    }
}

/// Options of a snapshot (the shell's `{SKIP_FLUSH => true, TTL => 3600}`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SnapshotOptions {
    /// Take it without flushing (HBase's `SnapshotType.SKIPFLUSH`).
    pub skip_flush: bool,
    /// Time to live in seconds; 0 (the default): forever.
    pub ttl: i64,
}

/// What a snapshot holds (HBase's `SnapshotManifest`): the table's descriptor and every
/// region's manifest as it was (file entries, references included). The files themselves
/// are the snapshot's `data/` links.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SnapshotManifest {
    pub(crate) descriptor: TableDescriptor,
    /// Sorted by start key; they tile the table's key space.
    pub(crate) regions: Vec<Manifest>,
}

impl SnapshotManifest {
    fn encode(&self) -> Vec<u8> {
        let regions: Vec<Value> = self
            .regions
            .iter()
            .map(|m| Value::String(to_hex(&m.encode())))
            .collect();
        let body = json!({
            "format": FORMAT,
            "table": descriptor_json(&self.descriptor, "SNAPSHOT"),
            "regions": regions,
        });
        frame(MANIFEST_MAGIC, &body.to_string())
    }

    fn decode(b: &[u8], path: &Path) -> Result<Self> {
        let v = crate::catalog::unframe_as("snapshot manifest", MANIFEST_MAGIC, b, path)?;
        let corrupt = |reason: String| Error::Corrupt {
            what: "snapshot manifest",
            path: path.to_path_buf(),
            offset: 12,
            reason,
        };
        check_format(&v).map_err(corrupt)?;
        let (descriptor, _) = descriptor_from_json(&v["table"]).map_err(corrupt)?;
        let mut regions = Vec::new();
        for (i, r) in v["regions"]
            .as_array()
            .ok_or_else(|| corrupt("no regions".into()))?
            .iter()
            .enumerate()
        {
            let bytes = r
                .as_str()
                .and_then(from_hex)
                .ok_or_else(|| corrupt(format!("region {i}: not a hex string")))?;
            let m =
                Manifest::decode(&bytes, path).map_err(|e| corrupt(format!("region {i}: {e}")))?;
            if m.region.table != descriptor.name {
                return Err(corrupt(format!(
                    "region {i} is of table {}, the snapshot of {}",
                    m.region.table, descriptor.name
                )));
            }
            regions.push(m);
        }
        let tiles = regions
            .first()
            .is_some_and(|m| m.region.start_key.is_empty())
            && regions.last().is_some_and(|m| m.region.end_key.is_empty())
            && regions
                .windows(2)
                .all(|w| w[0].region.end_key == w[1].region.start_key);
        if !tiles {
            return Err(corrupt(
                "the regions do not cover the table's key space in order".into(),
            ));
        }
        Ok(Self {
            descriptor,
            regions,
        })
    }
}

fn check_format(v: &Value) -> std::result::Result<(), String> {
    match v["format"].as_u64() {
        Some(FORMAT) => Ok(()),
        Some(other) => Err(format!(
            "snapshot format {other} is not supported ({FORMAT})"
        )),
        None => Err("no format".into()),
    }
}

fn from_hex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

/// `<db>/.hbase-snapshot`.
pub(crate) fn snapshot_root(db_dir: &Path) -> PathBuf {
    db_dir.join(SNAPSHOT_DIR)
}

/// The directory of the completed snapshot `name`.
pub(crate) fn snapshot_dir(db_dir: &Path, name: &str) -> PathBuf {
    snapshot_root(db_dir).join(name)
}

/// Where the snapshot's link of a region's storefile is: `data/<region>/<family>/<file>`.
pub(crate) fn data_path(snapshot: &Path, region: &str, family: &[u8], file: &str) -> PathBuf {
    snapshot
        .join("data")
        .join(region)
        .join(String::from_utf8_lossy(family).as_ref())
        .join(file)
}

/// HBase's rule for snapshot names (`ClientSnapshotDescriptionUtils.assertSnapshotRequestIsValid`:
/// a legal table qualifier), refused with HBase's own messages
/// (`TableName.isLegalTableQualifierName` with `isSnapshot`). Like Java, it walks UTF-16
/// units: the position and code it names are theirs.
pub(crate) fn check_snapshot_name(name: &str) -> Result<()> {
    let refuse = |message: String| {
        Err(Error::InvalidRequest(
            crate::error::RequestProblem::IllegalSnapshotName {
                name: name.to_string(),
                message,
            },
        ))
    };
    let Some(&first) = name.as_bytes().first() else {
        // HBase's text: `isSnapshot ? "Snapshot" : "Table" + " qualifier must not be empty"`.
        return refuse("Snapshot".to_string());
    };
    if first == b'.' || first == b'-' {
        return refuse(format!(
            "Illegal first character <{first}> at 0. Snapshot qualifiers can only start with 'alphanumeric characters' from any language: {name}"
        ));
    }
    if name == "zookeeper" {
        return refuse("Tables may not be named 'zookeeper'".to_string());
    }
    for (i, unit) in name.encode_utf16().enumerate() {
        let c = char::from_u32(u32::from(unit));
        if c.is_some_and(|c| c.is_alphabetic() || c.is_numeric() || matches!(c, '_' | '-' | '.')) {
            continue;
        }
        let shown = c.map_or_else(|| char::REPLACEMENT_CHARACTER.to_string(), String::from);
        return refuse(format!(
            "Illegal character code:{unit}, <{shown}> at {i}. Snapshot qualifiers may only contain 'alphanumeric characters' and digits: {name}"
        ));
    }
    Ok(())
}

/// Reads the description of snapshot `name` in `db_dir`: SnapshotDoesNotExist when there
/// is none; a damaged file is [`Error::Corrupt`] naming it.
pub fn read_description(fs: &dyn Fs, db_dir: &Path, name: &str) -> Result<SnapshotDescription> {
    let dir = snapshot_dir(db_dir, name);
    if check_snapshot_name(name).is_err() || !is_committed(fs, &dir)? {
        return Err(Error::SnapshotDoesNotExist(name.to_string()));
    }
    let path = dir.join(SNAPSHOT_INFO_FILE);
    let bytes = read_small(fs, &path)?;
    let v = crate::catalog::unframe_as("snapshot description", INFO_MAGIC, &bytes, &path)?;
    let d = SnapshotDescription::from_json(&v).map_err(|reason| Error::Corrupt {
        what: "snapshot description",
        path: path.clone(),
        offset: 12,
        reason,
    })?;
    if d.name != name {
        return Err(Error::Corrupt {
            what: "snapshot description",
            path,
            offset: 12,
            reason: format!("names snapshot {:?}, found as {name:?}", d.name),
        });
    }
    Ok(d)
}

/// Reads snapshot `name` whole: its description and its manifest.
pub(crate) fn read_snapshot(
    fs: &dyn Fs,
    db_dir: &Path,
    name: &str,
) -> Result<(SnapshotDescription, SnapshotManifest)> {
    let d = read_description(fs, db_dir, name)?;
    let path = snapshot_dir(db_dir, name).join(DATA_MANIFEST_FILE);
    let m = SnapshotManifest::decode(&read_small(fs, &path)?, &path)?;
    if m.descriptor.name != d.table {
        return Err(Error::Corrupt {
            what: "snapshot manifest",
            path,
            offset: 12,
            reason: format!(
                "describes table {}, the snapshot is of {}",
                m.descriptor.name, d.table
            ),
        });
    }
    Ok((d, m))
}

/// Every completed snapshot in `db_dir`, sorted by name.
pub fn list(fs: &dyn Fs, db_dir: &Path) -> Result<Vec<SnapshotDescription>> {
    let root = snapshot_root(db_dir);
    if !fs.exists(&root)? {
        return Ok(Vec::new());
    }
    let mut names = fs.list(&root)?;
    names.sort();
    names
        .iter()
        .filter(|n| check_snapshot_name(n).is_ok())
        .filter_map(|n| match is_committed(fs, &root.join(n)) {
            Ok(true) => Some(read_description(fs, db_dir, n)),
            Ok(false) => None,
            Err(e) => Some(Err(e)),
        })
        .collect()
}

/// True when `dir` (a directory under `.hbase-snapshot/`) is a committed snapshot: its
/// `snapshotinfo` is there (the last thing a snapshot writes, the first a delete removes).
fn is_committed(fs: &dyn Fs, dir: &Path) -> Result<bool> {
    Ok(fs.exists(&dir.join(SNAPSHOT_INFO_FILE))?)
}

/// At open: removes what an interrupted snapshot or delete left: every directory under
/// `.hbase-snapshot/` without a `snapshotinfo` (never a committed snapshot).
pub(crate) fn remove_leftovers(fs: &dyn Fs, db_dir: &Path) -> Result<()> {
    let root = snapshot_root(db_dir);
    if !fs.exists(&root)? {
        return Ok(());
    }
    let mut removed = false;
    for name in fs.list(&root)? {
        let dir = root.join(&name);
        if check_snapshot_name(&name).is_err() || is_committed(fs, &dir)? {
            continue;
        }
        tracing::info!(snapshot = %name, "removing an interrupted snapshot or delete");
        fs.remove_dir_all(&dir)?;
        removed = true;
    }
    if removed {
        fs.sync_dir(&root)?;
    }
    Ok(())
}

/// Links `from` at `to`, creating `to`'s directory; `dirs` collects the directories to
/// sync before the snapshot is renamed into place.
fn link(fs: &dyn Fs, from: &Path, to: &Path, dirs: &mut BTreeSet<PathBuf>) -> Result<()> {
    if let Some(parent) = to.parent()
        && dirs.insert(parent.to_path_buf())
    {
        fs.create_dir_all(parent)?;
    }
    fs.hard_link(from, to)?;
    Ok(())
}

/// Links every file `m` (a region of the table in `table_dir`) names into the working
/// snapshot directory `work`: the region's own files, and for a reference the referenced
/// file (once, however many references name it).
fn link_region(
    fs: &dyn Fs,
    table_dir: &Path,
    m: &Manifest,
    work: &Path,
    dirs: &mut BTreeSet<PathBuf>,
) -> Result<()> {
    let encoded = m.region.encoded_name();
    for (family, sm) in &m.stores {
        let family_name = String::from_utf8_lossy(family);
        for f in &sm.files {
            let (region, file) = match &f.reference {
                None => (encoded.as_str(), f.name.as_str()),
                Some(r) => (r.region.as_str(), r.file.as_str()),
            };
            let to = data_path(work, region, family, file);
            if f.reference.is_some() && fs.exists(&to)? {
                continue;
            }
            let from = table_dir.join(region).join(family_name.as_ref()).join(file);
            link(fs, &from, &to, dirs)?;
        }
    }
    Ok(())
}

impl RegionServer {
    /// Takes snapshot `name` of `table` (HBase's `SnapshotManager.takeSnapshot`), under the
    /// catalog lock (`catalog`). Steps, each a crash point: flush (unless skipped or the
    /// table is disabled) → link every file and write both files under `.tmp/<name>`,
    /// synced → rename into place. Any failure removes the working directory.
    pub(crate) fn take_snapshot(
        &self,
        catalog: &Catalog,
        name: &str,
        table: &str,
        options: &SnapshotOptions,
    ) -> Result<SnapshotDescription> {
        check_snapshot_name(name)?;
        let fs = self.fs.as_ref();
        let dir = snapshot_dir(&self.dir, name);
        if is_committed(fs, &dir)? {
            return Err(Error::SnapshotExists(name.to_string()));
        }
        let table = crate::db::canonical_table_name(table)?;
        let entry = catalog
            .tables
            .get(&table)
            .ok_or_else(|| Error::TableNotFound(table.clone()))?;
        let handle = self.table(&table)?;
        if fs.exists(&dir)? {
            // An earlier attempt's leftover (its removal failed): not a snapshot.
            fs.remove_dir_all(&dir)?;
        }
        fs.create_dir_all(&dir)?;
        let taken = self
            .write_snapshot(entry, &handle, name, options, &dir)
            .and_then(|description| {
                snapshot_point("snapshot-before-commit")?;
                // The commit: the description appears by one rename, after everything
                // it describes is durable.
                regionkv_fs::write_atomic(
                    fs,
                    &dir.join(SNAPSHOT_INFO_FILE),
                    &frame(INFO_MAGIC, &description.to_json().to_string()),
                )?;
                fs.sync_dir(&snapshot_root(&self.dir))?;
                Ok(description)
            });
        let description = match taken {
            Ok(d) => d,
            Err(e) => {
                if !is_committed(fs, &dir).unwrap_or(true)
                    && let Err(again) = fs.remove_dir_all(&dir)
                {
                    tracing::warn!(dir = %dir.display(), error = %again, "could not remove a failed snapshot's files; the next open will");
                }
                return Err(e);
            }
        };
        snapshot_point("snapshot-after-commit")?;
        tracing::info!(snapshot = name, %table, "snapshot taken");
        Ok(description)
    }

    fn write_snapshot(
        &self,
        entry: &crate::catalog::TableEntry,
        handle: &crate::db::TableHandle,
        name: &str,
        options: &SnapshotOptions,
        work: &Path,
    ) -> Result<SnapshotDescription> {
        let fs = self.fs.as_ref();
        let table_dir = self.table_dir(&entry.descriptor.name);
        let mut dirs = BTreeSet::new();
        let mut manifests = Vec::with_capacity(entry.regions.len());
        let snapshot_type = match handle.regions.load().as_ref() {
            Some(map) => {
                let regions: &[std::sync::Arc<Region>] = map.regions();
                if !options.skip_flush {
                    for r in regions {
                        r.flush()?;
                    }
                }
                snapshot_point("snapshot-after-flush")?;
                for r in regions {
                    let m = r.with_live_files(|m| {
                        link_region(fs, &table_dir, m, work, &mut dirs).map(|()| m.clone())
                    })??;
                    manifests.push(m);
                }
                if options.skip_flush {
                    SnapshotType::SkipFlush
                } else {
                    SnapshotType::Flush
                }
            }
            None => {
                // Disabled: the regions are closed (flushed), their manifests on disk are
                // the truth, and nothing changes them while the catalog lock is held.
                snapshot_point("snapshot-after-flush")?;
                for r in &entry.regions {
                    let dir = self.region_dir(&r.info);
                    let m = Manifest::read(fs, &dir)?.ok_or_else(|| Error::Corrupt {
                        what: "manifest",
                        path: Manifest::path(&dir),
                        offset: 0,
                        reason: "the catalog lists the region, its manifest is missing".into(),
                    })?;
                    link_region(fs, &table_dir, &m, work, &mut dirs)?;
                    manifests.push(m);
                }
                SnapshotType::Disabled
            }
        };
        manifests.sort_by(|a, b| a.region.start_key.cmp(&b.region.start_key));
        let description = SnapshotDescription {
            name: name.to_string(),
            table: entry.descriptor.name.clone(),
            creation_time: self.services.clock.now_millis(),
            snapshot_type,
            ttl: options.ttl.max(0),
            version: SNAPSHOT_VERSION,
        };
        let manifest = SnapshotManifest {
            descriptor: (**handle.descriptor.load()).clone(),
            regions: manifests,
        };
        write_synced(fs, &work.join(DATA_MANIFEST_FILE), &manifest.encode())?;
        // The links' directory entries must be durable before the commit publishes them
        // (the linked files' data already is: storefiles are synced when written).
        let mut parents: BTreeSet<PathBuf> = BTreeSet::new();
        for d in &dirs {
            fs.sync_dir(d)?;
            let mut p = d.parent();
            while let Some(dir) = p {
                if dir == work || !parents.insert(dir.to_path_buf()) {
                    break;
                }
                p = dir.parent();
            }
        }
        for d in parents.iter().rev() {
            fs.sync_dir(d)?;
        }
        fs.sync_dir(work)?;
        Ok(description)
    }

    /// Deletes snapshot `name` (HBase's `SnapshotManager.deleteSnapshot`): its
    /// `snapshotinfo` goes first (the point where it is gone), then its links; a crash
    /// between leaves a directory the next open removes. Under the catalog lock
    /// (`_catalog`).
    pub(crate) fn delete_snapshot(&self, _catalog: &Catalog, name: &str) -> Result<()> {
        read_description(self.fs.as_ref(), &self.dir, name)?;
        let fs = self.fs.as_ref();
        let dir = snapshot_dir(&self.dir, name);
        fs.remove_file(&dir.join(SNAPSHOT_INFO_FILE))?;
        fs.sync_dir(&dir)?;
        snapshot_point("snapshot-delete-after-uncommit")?;
        if let Err(e) = fs.remove_dir_all(&dir) {
            tracing::warn!(dir = %dir.display(), error = %e, "could not remove a deleted snapshot's files; the next open will");
        } else if let Err(e) = fs.sync_dir(&snapshot_root(&self.dir)) {
            tracing::warn!(error = %e, "could not sync the snapshot directory after a delete");
        }
        Ok(())
    }
}

/// A snapshot step's crash point (the `failpoints` feature only); configured with
/// `return`, the step fails there with [`Error::Injected`], as on an I/O error.
fn snapshot_point(point: &str) -> Result<()> {
    #[cfg(feature = "failpoints")]
    fail::fail_point!(point, |_| Err(Error::Injected(point.to_string())));
    #[cfg(not(feature = "failpoints"))]
    let _ = point;
    Ok(())
}

/// Writes a new file whole and syncs it (inside an uncommitted snapshot directory, which
/// nothing reads until its `snapshotinfo` appears, so no rename is needed).
fn write_synced(fs: &dyn Fs, path: &Path, bytes: &[u8]) -> Result<()> {
    let mut f = fs.create_new(path)?;
    f.append(bytes)?;
    f.sync_all()?;
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::{ColumnFamilyDescriptor, Db, DbOptions, Get, Put};
    use regionkv_fs::{MemFs, RealFs};
    use std::sync::Arc;

    fn desc(name: &str) -> TableDescriptor {
        TableDescriptor::new(name, vec![ColumnFamilyDescriptor::new(b"cf").unwrap()]).unwrap()
    }

    fn open(dir: &Path) -> Db {
        Db::open(dir, DbOptions::default().background(false)).unwrap()
    }

    /// HBase's own texts for illegal snapshot names (`TableName.isLegalTableQualifierName`
    /// with `isSnapshot`), including its empty-name quirk.
    #[test]
    fn illegal_snapshot_names_get_hbase_s_messages() {
        let text = |n: &str| check_snapshot_name(n).map_err(|e| e.to_string()).err();
        assert_eq!(text("ok_name-1.x"), None);
        assert_eq!(text("snäp"), None);
        assert_eq!(
            text("-bad").as_deref(),
            Some(
                "Illegal first character <45> at 0. Snapshot qualifiers can only start with 'alphanumeric characters' from any language: -bad"
            )
        );
        assert_eq!(
            text("a b").as_deref(),
            Some(
                "Illegal character code:32, < > at 1. Snapshot qualifiers may only contain 'alphanumeric characters' and digits: a b"
            )
        );
        assert_eq!(text("").as_deref(), Some("Snapshot"));
        assert_eq!(
            text("zookeeper").as_deref(),
            Some("Tables may not be named 'zookeeper'")
        );
    }

    #[test]
    fn snapshot_description_round_trips_and_names_its_file_when_damaged() {
        let d = SnapshotDescription {
            name: "s".into(),
            table: "ns:t".into(),
            creation_time: 1_700_000_000_000,
            snapshot_type: SnapshotType::SkipFlush,
            ttl: 60,
            version: SNAPSHOT_VERSION,
        };
        let bytes = frame(INFO_MAGIC, &d.to_json().to_string());
        let fs = MemFs::new();
        let dir = snapshot_dir(Path::new("/db"), "s");
        fs.create_dir_all(&dir).unwrap();
        write_synced(&fs, &dir.join(SNAPSHOT_INFO_FILE), &bytes).unwrap();
        assert_eq!(read_description(&fs, Path::new("/db"), "s").unwrap(), d);
        // Every truncation and every flipped byte is an error naming the file, never a
        // panic and never a different description.
        for cut in 0..bytes.len() {
            fs.remove_file(&dir.join(SNAPSHOT_INFO_FILE)).unwrap();
            write_synced(&fs, &dir.join(SNAPSHOT_INFO_FILE), &bytes[..cut]).unwrap();
            match read_description(&fs, Path::new("/db"), "s") {
                Err(Error::Corrupt { path, .. }) => {
                    assert_eq!(path, dir.join(SNAPSHOT_INFO_FILE))
                }
                other => panic!("cut at {cut}: {other:?}"),
            }
        }
        for at in 0..bytes.len() {
            let mut bad = bytes.clone();
            bad[at] ^= 0x20;
            fs.remove_file(&dir.join(SNAPSHOT_INFO_FILE)).unwrap();
            write_synced(&fs, &dir.join(SNAPSHOT_INFO_FILE), &bad).unwrap();
            assert!(
                matches!(
                    read_description(&fs, Path::new("/db"), "s"),
                    Err(Error::Corrupt { .. })
                ),
                "flip at {at}"
            );
        }
    }

    #[test]
    fn snapshot_manifest_refuses_regions_that_do_not_tile_the_table() {
        let d = desc("t");
        let region = |start: &[u8], end: &[u8], id| {
            Manifest::new(
                regionkv_region::RegionInfo {
                    table: "t".into(),
                    start_key: start.to_vec(),
                    end_key: end.to_vec(),
                    region_id: id,
                },
                &[b"cf".to_vec()],
            )
        };
        let whole = SnapshotManifest {
            descriptor: d.clone(),
            regions: vec![region(b"", b"m", 1), region(b"m", b"", 2)],
        };
        let p = Path::new("data.manifest");
        assert_eq!(SnapshotManifest::decode(&whole.encode(), p).unwrap(), whole);
        let hole = SnapshotManifest {
            descriptor: d,
            regions: vec![region(b"", b"m", 1), region(b"n", b"", 2)],
        };
        match SnapshotManifest::decode(&hole.encode(), p) {
            Err(Error::Corrupt { reason, path, .. }) => {
                assert!(reason.contains("do not cover"), "{reason}");
                assert_eq!(path, p);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_snapshot_keeps_its_data_through_compaction_and_drop_and_clones_it() {
        let dir = tempfile::tempdir().unwrap();
        let db = open(dir.path());
        let admin = db.admin();
        admin
            .create_table_with_splits(&desc("t"), vec![b"m".to_vec()])
            .unwrap();
        let t = db.table("t").unwrap();
        for (row, v) in [("a", "1"), ("x", "2")] {
            t.put(&Put::new(row).add_column("cf", "q", v)).unwrap();
        }
        admin.flush("t").unwrap();
        t.put(&Put::new("a").add_column("cf", "q", "3")).unwrap();
        admin.snapshot("s1", "t").unwrap();
        // After the snapshot: overwrite, compact (the inputs go), drop the table.
        t.put(&Put::new("a").add_column("cf", "q", "4")).unwrap();
        admin.major_compact("t").unwrap();
        admin.disable_table("t").unwrap();
        admin.delete_table("t").unwrap();
        let listed = admin.list_snapshots().unwrap();
        assert_eq!(listed.len(), 1);
        assert_eq!(
            (listed[0].name.as_str(), listed[0].table.as_str()),
            ("s1", "t")
        );
        assert_eq!(listed[0].snapshot_type, SnapshotType::Flush);

        admin.clone_snapshot("s1", "c").unwrap();
        let c = db.table("c").unwrap();
        let value = |row: &str| {
            c.get(&Get::new(row))
                .unwrap()
                .value(b"cf", b"q")
                .map(<[u8]>::to_vec)
        };
        assert_eq!(value("a"), Some(b"3".to_vec()), "the flushed memstore edit");
        assert_eq!(value("x"), Some(b"2".to_vec()));
        assert_eq!(admin.splits("c").unwrap(), [b"m".to_vec()]);
        // The clone is a table of its own: writes, compactions and a reopen.
        c.put(&Put::new("b").add_column("cf", "q", "5")).unwrap();
        admin.major_compact("c").unwrap();
        drop((c, t, admin, db));
        let db = open(dir.path());
        let c = db.table("c").unwrap();
        assert_eq!(c.scan(&crate::Scan::new()).unwrap().count(), 3);
        // The snapshot still reads whole after the clone compacted its links away.
        db.admin().clone_snapshot("s1", "c2").unwrap();
        assert_eq!(
            db.table("c2")
                .unwrap()
                .scan(&crate::Scan::new())
                .unwrap()
                .count(),
            2
        );
    }

    #[test]
    fn restore_brings_back_the_snapshot_and_refuses_an_enabled_table() {
        let dir = tempfile::tempdir().unwrap();
        let db = open(dir.path());
        let admin = db.admin();
        admin.create_table(&desc("t")).unwrap();
        let t = db.table("t").unwrap();
        t.put(&Put::new("a").add_column("cf", "q", "old")).unwrap();
        admin.snapshot("s", "t").unwrap();
        t.put(&Put::new("a").add_column("cf", "q", "new")).unwrap();
        t.put(&Put::new("b").add_column("cf", "q", "new")).unwrap();
        admin.split_at("t", b"b").unwrap();
        assert!(matches!(
            admin.restore_snapshot("s"),
            Err(Error::TableNotDisabled(_))
        ));
        admin.disable_table("t").unwrap();
        admin.restore_snapshot("s").unwrap();
        assert!(
            admin.is_table_disabled("t").unwrap(),
            "restore keeps it disabled"
        );
        admin.enable_table("t").unwrap();
        let rows: Vec<_> = t.scan(&crate::Scan::new()).unwrap().collect();
        assert_eq!(rows.len(), 1);
        assert_eq!(
            t.get(&Get::new("a")).unwrap().value(b"cf", b"q"),
            Some(&b"old"[..])
        );
        assert!(
            admin.splits("t").unwrap().is_empty(),
            "the snapshot's regions"
        );
        // Restoring a dropped table clones it back (HBase's restoreOrCloneSnapshot).
        admin.disable_table("t").unwrap();
        admin.delete_table("t").unwrap();
        admin.restore_snapshot("s").unwrap();
        assert!(admin.is_table_enabled("t").unwrap());
    }

    #[test]
    fn a_snapshot_of_a_split_region_keeps_the_parent_files_its_references_read() {
        let dir = tempfile::tempdir().unwrap();
        let db = open(dir.path());
        let admin = db.admin();
        admin.create_table(&desc("t")).unwrap();
        let t = db.table("t").unwrap();
        for row in ["a", "c", "e", "g"] {
            t.put(&Put::new(row).add_column("cf", "q", row)).unwrap();
        }
        admin.flush("t").unwrap();
        // The daughters read the parent's file through references until compacted.
        admin.split_at("t", b"d").unwrap();
        admin.snapshot("s", "t").unwrap();
        admin.major_compact("t").unwrap();
        db.wait_for_background_work();
        admin.clone_snapshot("s", "c").unwrap();
        let c = db.table("c").unwrap();
        let rows: Vec<Vec<u8>> = c
            .scan(&crate::Scan::new())
            .unwrap()
            .map(|r| r.unwrap().row().to_vec())
            .collect();
        assert_eq!(rows, [b"a", b"c", b"e", b"g"].map(|r| r.to_vec()));
        // The clone's references resolve to its own holder directory; compacting them
        // away leaves it unreferenced, and the janitor at the next open removes it.
        admin.major_compact("c").unwrap();
        drop((c, t, admin, db));
        let db = open(dir.path());
        let c = db.table("c").unwrap();
        assert_eq!(c.scan(&crate::Scan::new()).unwrap().count(), 4);
        let cdir = crate::layout::table_dir(dir.path(), "c");
        let regions = crate::layout::region_dirs(&RealFs::new(), &cdir).unwrap();
        assert_eq!(regions.len(), 2, "{regions:?}");
    }

    #[test]
    fn names_and_existence_are_checked_as_hbase_checks_them() {
        let dir = tempfile::tempdir().unwrap();
        let db = open(dir.path());
        let admin = db.admin();
        admin.create_table(&desc("t")).unwrap();
        admin.snapshot("s", "t").unwrap();
        assert!(matches!(admin.snapshot("s", "t"), Err(Error::SnapshotExists(n)) if n == "s"));
        assert!(matches!(
            admin.snapshot("-bad", "t"),
            Err(Error::InvalidRequest(_))
        ));
        assert!(matches!(
            admin.snapshot("s2", "nope"),
            Err(Error::TableNotFound(_))
        ));
        assert!(matches!(
            admin.clone_snapshot("s", "t"),
            Err(Error::TableExists(_))
        ));
        assert!(matches!(
            admin.clone_snapshot("nope", "c"),
            Err(Error::SnapshotDoesNotExist(_))
        ));
        admin.delete_snapshot("s").unwrap();
        assert!(admin.list_snapshots().unwrap().is_empty());
        assert!(matches!(
            admin.delete_snapshot("s"),
            Err(Error::SnapshotDoesNotExist(_))
        ));
    }

    #[test]
    fn leftovers_of_an_interrupted_snapshot_go_at_open_and_completed_ones_stay() {
        let fs = Arc::new(MemFs::new());
        let options = || {
            DbOptions::default()
                .background(false)
                .fs(fs.clone() as Arc<dyn Fs>)
        };
        let db = Db::open("/db", options()).unwrap();
        db.admin().create_table(&desc("t")).unwrap();
        db.admin().snapshot("kept", "t").unwrap();
        drop(db);
        // A snapshot killed before its commit: links and manifest, no snapshotinfo.
        let half = snapshot_dir(Path::new("/db"), "half");
        fs.create_dir_all(&half.join("data")).unwrap();
        write_synced(fs.as_ref(), &half.join(DATA_MANIFEST_FILE), b"x").unwrap();
        let db = Db::open("/db", options()).unwrap();
        assert!(!fs.exists(&half).unwrap());
        let names: Vec<String> = db
            .admin()
            .list_snapshots()
            .unwrap()
            .into_iter()
            .map(|d| d.name)
            .collect();
        assert_eq!(names, ["kept"]);
    }

    #[test]
    fn a_snapshot_survives_a_lost_catalog_and_repair_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let db = open(dir.path());
        db.admin()
            .create_table_with_splits(&desc("t"), vec![b"m".to_vec()])
            .unwrap();
        let t = db.table("t").unwrap();
        t.put(&Put::new("a").add_column("cf", "q", "1")).unwrap();
        t.put(&Put::new("x").add_column("cf", "q", "2")).unwrap();
        db.admin().snapshot("s", "t").unwrap();
        drop((t, db));
        let snap = snapshot_dir(dir.path(), "s");
        let before = tree(&snap);
        // The catalog is lost: reading the snapshot does not need it.
        std::fs::remove_file(Catalog::path(dir.path())).unwrap();
        let (d, m) = read_snapshot(&RealFs::new(), dir.path(), "s").unwrap();
        assert_eq!((d.table.as_str(), m.regions.len()), ("t", 2));
        crate::repair::repair(dir.path(), DbOptions::default().background(false)).unwrap();
        assert_eq!(tree(&snap), before, "repair left .hbase-snapshot alone");
        let db = open(dir.path());
        db.admin().clone_snapshot("s", "c").unwrap();
        assert_eq!(
            db.table("c")
                .unwrap()
                .scan(&crate::Scan::new())
                .unwrap()
                .count(),
            2
        );
    }

    /// Every path under `dir` with its length, sorted.
    fn tree(dir: &Path) -> Vec<(PathBuf, u64)> {
        let mut out = Vec::new();
        let mut todo = vec![dir.to_path_buf()];
        while let Some(d) = todo.pop() {
            for e in std::fs::read_dir(&d).unwrap() {
                let e = e.unwrap();
                let meta = e.metadata().unwrap();
                if meta.is_dir() {
                    todo.push(e.path());
                } else {
                    out.push((e.path(), meta.len()));
                }
            }
        }
        out.sort();
        out
    }
}
