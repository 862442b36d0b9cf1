//! HBase's `Import` (`org.apache.hadoop.hbase.mapreduce.Import`): loads a directory written
//! by [`crate::export`] into a table, every cell with its timestamp and type, delete
//! markers included, so that a raw scan of the target equals the raw scan the export took.
//!
//! HBase's Import writes `Put`s and `Delete`s through the client. regionkv loads the cells
//! as one table-wide bulk load ([`regionkv::Admin::bulk_load`]): an export is already one
//! sorted stream per family, which is what a bulk load consumes, so nothing passes through
//! the memstore or the WAL, and the whole import commits at once — a killed import leaves
//! the table as before or with every cell (docs/bulk-load.md), and can simply be run again.
//! The bulk load keeps each cell's type, delete markers included, and its timestamp (it
//! refuses only `LATEST_TIMESTAMP`, which an export never holds).
//!
//! A missing table is created from the manifest's descriptor and split keys (HBase's Import
//! needs the table to exist; regionkv's export carries the descriptor so it does not).
//!
//! Streaming: each family's data files are read one block at a time while the bulk load
//! writes storefiles; memory is one block per family being read (one at a time) plus the
//! storefile writer's. Every block's CRC32C is checked as it is read, and each file's size,
//! cell count and whole-file CRC32C against the manifest: a damaged export fails the import
//! with the file and byte offset, and nothing of it is loaded.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use regionkv::{Cell, Db, FamilyCells};

use crate::error::{Error, Result};
use crate::export::open_table;
use crate::export_format::manifest::Manifest;
use crate::export_format::part::{PartReader, PartSummary};
use crate::progress::Progress;
use crate::read_ahead::ReadAhead;

/// `HBASE_IMPORTER_RENAME_CFS` (Import.CF_RENAME_PROP): `src:dst,src2:dst2` family renames.
pub const CF_RENAME_PROP: &str = "HBASE_IMPORTER_RENAME_CFS";
/// `import.bulk.output` (Import.BULK_OUTPUT_CONF_KEY).
pub const BULK_OUTPUT_CONF_KEY: &str = "import.bulk.output";
/// `import.filter.class` (Import.FILTER_CLASS_CONF_KEY).
pub const FILTER_CLASS_CONF_KEY: &str = "import.filter.class";
/// `import.wal.durability` (Import.WAL_DURABILITY).
pub const WAL_DURABILITY: &str = "import.wal.durability";
/// `create.table` (regionkv, as ImportTsv's): `no` refuses a missing table instead of
/// creating it from the manifest.
pub const CREATE_TABLE: &str = "create.table";

/// HBase's Import usage text, with regionkv's additions.
pub fn usage() -> String {
    "Usage: Import [options] <tablename> <inputdir>
By default Import will load data directly into HBase. regionkv loads it as one bulk load
(sorted storefiles committed for the whole table at once; no write-ahead log).
  regionkv: [--data DIR] [--no-timing]; a missing table is created from the export's
  descriptor and split keys unless -Dcreate.table=no.
To rename column families while importing, pass
  -DHBASE_IMPORTER_RENAME_CFS=<srcCf>:<destCf>[,<srcCf>:<destCf>...]
Not available: -Dimport.bulk.output (the export's storefiles are written and loaded in
one step), -Dimport.filter.class (regionkv runs no Java classes).
  -Dimport.wal.durability is accepted and ignored: a bulk load writes no WAL.
"
    .to_string()
}

/// Import's options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportOptions {
    /// Family renames, source → target.
    pub renames: Vec<(Vec<u8>, Vec<u8>)>,
    /// Create a missing table from the manifest (default true).
    pub create_table: bool,
}

impl Default for ImportOptions {
    fn default() -> Self {
        Self {
            renames: Vec::new(),
            create_table: true,
        }
    }
}

impl ImportOptions {
    /// From `-D` properties. Returns the options and notes for standard error (ignored or
    /// unknown keys).
    pub fn from_properties<K: AsRef<str>, V: AsRef<str>>(
        properties: impl IntoIterator<Item = (K, V)>,
    ) -> Result<(Self, Vec<String>)> {
        let mut o = Self::default();
        let mut notes = Vec::new();
        for (k, v) in properties {
            let (k, v) = (k.as_ref().trim(), v.as_ref());
            match k {
                CF_RENAME_PROP => {
                    o.renames.clear();
                    for pair in v.split(',').map(str::trim).filter(|p| !p.is_empty()) {
                        let (src, dst) = pair.split_once(':').ok_or_else(|| {
                            // HBase's Import.createCfRenameMap wording.
                            Error::usage(format!(
                                "Invalid CF rename mapping '{pair}' for {CF_RENAME_PROP}; expected <srcCf>:<destCf>"
                            ))
                        })?;
                        o.renames
                            .push((src.as_bytes().to_vec(), dst.as_bytes().to_vec()));
                    }
                }
                CREATE_TABLE => o.create_table = !v.trim().eq_ignore_ascii_case("no"),
                BULK_OUTPUT_CONF_KEY => {
                    return Err(Error::NotAvailableYet {
                        feature: BULK_OUTPUT_CONF_KEY.into(),
                        reason: "regionkv's import writes the storefiles and loads them in one \
                                 step; leave the option out"
                            .into(),
                    });
                }
                FILTER_CLASS_CONF_KEY | "import.filter.args" => {
                    return Err(Error::Unsupported {
                        feature: k.into(),
                        reason: "regionkv runs no Java filter classes".into(),
                    });
                }
                WAL_DURABILITY => notes.push(format!(
                    "{WAL_DURABILITY} ignored: a bulk load writes no write-ahead log"
                )),
                "mapreduce.job.name"
                | "mapreduce.map.speculative"
                | "mapreduce.reduce.speculative" => {}
                other => notes.push(format!("{other} ignored: not an Import option")),
            }
        }
        Ok((o, notes))
    }

    fn rename<'f>(&'f self, family: &'f [u8]) -> &'f [u8] {
        self.renames
            .iter()
            .find(|(src, _)| src == family)
            .map_or(family, |(_, dst)| dst)
    }
}

/// What an import loaded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportReport {
    /// Cells loaded.
    pub cells: u64,
    /// Rows of the export (as its manifest counts them).
    pub rows: u64,
    /// Data files read.
    pub parts: u64,
    /// Bytes of data files read.
    pub bytes: u64,
    /// Storefiles the bulk load wrote.
    pub storefiles: u64,
    /// Whether the table was created from the manifest.
    pub created_table: bool,
    /// From the first byte read to the load's commit.
    pub elapsed: Duration,
}

/// One import of one export directory into one table.
#[derive(Debug)]
pub struct Import<'a> {
    db: &'a Db,
    table: String,
    options: ImportOptions,
    progress: Arc<Progress>,
}

impl<'a> Import<'a> {
    /// An import into `table` of `db`.
    pub fn new(db: &'a Db, table: &str, options: ImportOptions) -> Self {
        Self {
            db,
            table: table.to_string(),
            options,
            progress: Arc::new(Progress::default()),
        }
    }

    /// The live figures (for a progress bar on another thread).
    pub fn progress(&self) -> Arc<Progress> {
        self.progress.clone()
    }

    /// Loads the export in `dir`.
    pub fn run(&self, dir: &Path) -> Result<ImportReport> {
        let manifest = Manifest::read(dir)?;
        // Sizes first: a truncated or missing file fails before anything is created.
        let mut total = 0;
        for p in &manifest.parts {
            let path = dir.join(&p.name);
            let len = std::fs::metadata(&path)
                .map_err(|e| Error::file(&path, e))?
                .len();
            if len != p.bytes {
                return Err(Error::Corrupt {
                    path,
                    offset: len.min(p.bytes),
                    reason: format!("{len} bytes, the manifest says {}", p.bytes),
                });
            }
            total += len;
        }
        self.progress.set_total_bytes(total);
        let targets: Vec<Vec<u8>> = manifest
            .families
            .iter()
            .map(|f| self.options.rename(f).to_vec())
            .collect();

        let admin = self.db.admin();
        let mut created_table = false;
        if !admin.table_exists(&self.table)? {
            if !self.options.create_table {
                return Err(Error::TableNotFound {
                    table: self.table.clone(),
                });
            }
            admin.create_table_with_splits(
                &self.target_descriptor(&manifest)?,
                manifest.splits.clone(),
            )?;
            created_table = true;
        }
        let table = open_table(self.db, &self.table)?;
        let descriptor = table.descriptor();
        let missing: Vec<String> = targets
            .iter()
            .filter(|f| descriptor.family(f).is_none())
            .map(|f| String::from_utf8_lossy(f).into_owned())
            .collect();
        if !missing.is_empty() {
            return Err(Error::NoSuchColumnFamilies { families: missing });
        }

        let started = Instant::now();
        let failure: Arc<Mutex<Option<Error>>> = Arc::new(Mutex::new(None));
        let mut families = Vec::new();
        for (index, source) in manifest.families.iter().enumerate() {
            let parts: Vec<PartSummary> = manifest
                .parts
                .iter()
                .filter(|p| p.family as usize == index)
                .cloned()
                .collect();
            if parts.is_empty() {
                continue;
            }
            let cells = FamilyStream {
                dir: dir.to_path_buf(),
                family: source.clone(),
                index: index as u32,
                parts: parts.into_iter(),
                reader: None,
                current: None,
                progress: self.progress.clone(),
                failure: failure.clone(),
                poisoned: false,
            };
            // A renamed family: the cells carry the target's name.
            let target = targets.get(index).cloned().unwrap_or_default();
            let renamed = target != *source;
            let cells: Box<dyn Iterator<Item = std::result::Result<Cell, StreamFailed>> + Send> =
                if renamed {
                    let t = target.clone();
                    Box::new(cells.map(move |r| r.map(|c| rename_cell(&c, &t).unwrap_or(c))))
                } else {
                    Box::new(cells)
                };
            // Reading and decoding on a thread of its own, the storefile writer on this one.
            let cells = ReadAhead::spawn("import-read", cells).map_err(|e| Error::File {
                path: dir.to_path_buf(),
                source: e,
            })?;
            families.push(FamilyCells::fallible(target, cells));
        }
        let loaded = admin.bulk_load(table.name(), families);
        let failed = failure.lock().ok().and_then(|mut f| f.take());
        if let Some(e) = failed {
            // A file could not be read (the load stopped before its commit); the export's
            // error is the one to report.
            return Err(e);
        }
        let report = loaded?;
        Ok(ImportReport {
            cells: report.cells,
            rows: manifest.rows,
            parts: manifest.parts.len() as u64,
            bytes: total,
            storefiles: report.files,
            created_table,
            elapsed: started.elapsed(),
        })
    }

    /// The source's descriptor under the target's name, families renamed.
    fn target_descriptor(&self, manifest: &Manifest) -> Result<regionkv::TableDescriptor> {
        let mut families = manifest.descriptor.families.clone();
        for f in &mut families {
            f.name = self.options.rename(&f.name).to_vec();
        }
        let mut d = regionkv::TableDescriptor::new(&self.table, families)
            .map_err(|e| Error::Db(e.into()))?;
        let source = &manifest.descriptor;
        d.memstore_flush_size = source.memstore_flush_size;
        d.max_file_size = source.max_file_size;
        d.durability = source.durability;
        d.read_only = source.read_only;
        d.split_policy = source.split_policy.clone();
        d.compaction_enabled = source.compaction_enabled;
        d.split_enabled = source.split_enabled;
        d.merge_enabled = source.merge_enabled;
        d.configuration = source.configuration.clone();
        d.metadata = source.metadata.clone();
        Ok(d)
    }
}

fn rename_cell(c: &Cell, family: &[u8]) -> Option<Cell> {
    let cell = Cell::new(
        c.row(),
        family,
        c.qualifier(),
        c.timestamp(),
        c.cell_type(),
        c.value(),
    )
    .ok()?;
    if c.tags().is_empty() {
        Some(cell)
    } else {
        cell.with_tags(c.tags().to_vec()).ok()
    }
}

/// One family's cells, read from its data files in order, checked against the manifest.
struct FamilyStream {
    dir: PathBuf,
    family: Vec<u8>,
    index: u32,
    parts: std::vec::IntoIter<PartSummary>,
    reader: Option<PartReader>,
    current: Option<PartSummary>,
    progress: Arc<Progress>,
    failure: Arc<Mutex<Option<Error>>>,
    poisoned: bool,
}

impl FamilyStream {
    fn next_checked(&mut self) -> Result<Option<Cell>> {
        loop {
            if self.reader.is_none() {
                let Some(part) = self.parts.next() else {
                    return Ok(None);
                };
                self.reader = Some(PartReader::open(
                    &self.dir.join(&part.name),
                    &self.family,
                    self.index,
                )?);
                self.current = Some(part);
            }
            let Some(reader) = self.reader.as_mut() else {
                continue;
            };
            let before = reader.offset();
            let next = reader.next_cell()?;
            self.progress
                .add(0, u64::from(next.is_some()), reader.offset() - before);
            if let Some(cell) = next {
                return Ok(Some(cell));
            }
            let (Some(reader), Some(part)) = (self.reader.take(), self.current.take()) else {
                continue;
            };
            let path = self.dir.join(&part.name);
            let mismatch = |reason: String| Error::Corrupt {
                path: path.clone(),
                offset: reader.offset(),
                reason,
            };
            if reader.cells() != part.cells {
                return Err(mismatch(format!(
                    "{} cells, the manifest says {}",
                    reader.cells(),
                    part.cells
                )));
            }
            if reader.crc32c() != part.crc32c {
                return Err(mismatch(format!(
                    "file checksum mismatch: the manifest says {:#010x}, the file has {:#010x}",
                    part.crc32c,
                    reader.crc32c()
                )));
            }
        }
    }
}

/// What a stream hands the bulk load when a file cannot be read: the load stops before
/// its commit and removes what it staged; the real error (with the file and offset) waits
/// in the stream's failure slot for `Import::run`.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct StreamFailed(String);

impl Iterator for FamilyStream {
    type Item = std::result::Result<Cell, StreamFailed>;
    fn next(&mut self) -> Option<Self::Item> {
        if self.poisoned {
            return None;
        }
        match self.next_checked() {
            Ok(c) => c.map(Ok),
            Err(e) => {
                self.poisoned = true;
                let marker = StreamFailed(e.to_string());
                if let Ok(mut f) = self.failure.lock() {
                    *f = Some(e);
                }
                Some(Err(marker))
            }
        }
    }
}
