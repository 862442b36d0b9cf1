//! HBase's `completebulkload` (`org.apache.hadoop.hbase.tool.BulkLoadHFilesTool`): loads a
//! directory of HFiles HBase wrote (HFileOutputFormat2's output, `<dir>/<family>/<file>`,
//! or with `-loadTable` a table's `<dir>/<region>/<family>/<file>`) into a regionkv table.
//!
//! The files are HBase HFile v3 (read with `regionkv-hfile`); regionkv's storefiles have a
//! format of their own, so each family's files are converted while the table-wide bulk load
//! ([`regionkv::Admin::bulk_load`]) stages them: the family's files are merged into one
//! sorted stream, cut at the table's region boundaries (HBase splits a file that straddles
//! a boundary into halves; cutting the stream does the same) and written as one storefile
//! per region. The load is atomic for the whole table, stronger than HBase's per-region
//! atomicity: a failure or a kill leaves the table as before or with every file loaded. A
//! damaged file (a checksum, a block, a cell) stops the load before its commit with an error
//! naming the file and the offset.
//!
//! HBase's rules kept, from `BulkLoadHFilesTool`: which entries are skipped (non-directories,
//! illegal family names, names starting with `_`, references, HFileLinks, non-HFiles when
//! validation is on, empty files); `create.table` (default `yes`) creating a missing table
//! with the directory's families and split keys inferred from the files' row ranges
//! (`inferBoundaries`); the unmatched-family check and `ignore.unmatched.families`; the
//! limit of files per region and family; `hbase.loadincremental.fail.if.need.split.hfile`;
//! HBase's messages. What differs: cells without a timestamp (`LATEST_TIMESTAMP`) are
//! refused (HBase would serve them with the timestamp `Long.MAX_VALUE`; HBase's own bulk
//! writer never writes one), and every cell must belong to the family of its directory
//! (HBase checks that only with `hbase.hstore.bulkload.verify`). Two files holding a cell
//! with the same key load it once, from the file first in name order (HBase would load both
//! with the same sequence id and serve either).

use std::cmp::Ordering;
use std::collections::{BTreeMap, BinaryHeap};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering as AtomicOrdering};

use regionkv::fs::{Fs, RealFs};
use regionkv::{Cell, CellType, ColumnFamilyDescriptor, Db, FamilyCells, TableDescriptor};
use regionkv_hfile::key::{KeyRef, compare_encoded, key_to_string};
use regionkv_hfile::{HFileReader, HFileScanner};

use crate::conf::{Properties, boolean};
use crate::error::{Error, Result};

/// HBase's tool name.
pub const NAME: &str = "completebulkload";
/// `create.table`: `no` makes a missing table an error (HBase's default `yes` creates it).
pub const CREATE_TABLE_CONF_KEY: &str = "create.table";
/// `ignore.unmatched.families`: `yes` skips the files of families the table lacks.
pub const IGNORE_UNMATCHED_CF_CONF_KEY: &str = "ignore.unmatched.families";
/// The most files one family of one region may receive (HBase's default 32).
pub const MAX_FILES_PER_REGION_PER_FAMILY: &str =
    "hbase.mapreduce.bulkload.max.hfiles.perRegion.perFamily";
/// Whether entries that are not HFiles are skipped with a warning (default true) or make
/// the load fail when read.
pub const VALIDATE_HFILES: &str = "hbase.loadincremental.validate.hfile";
/// Fail instead of splitting a file that straddles a region boundary.
pub const FAIL_IF_NEED_SPLIT_HFILE: &str = "hbase.loadincremental.fail.if.need.split.hfile";
/// HBase's switch for sequence ids on bulk-loaded files; regionkv always assigns them.
const ASSIGN_SEQ_IDS: &str = "hbase.mapreduce.bulkload.assign.sequenceNumbers";

/// Keys HBase's tool reads that change nothing here (threads, retries, copying, per-family
/// loading: a regionkv load is one local, table-wide commit).
const IGNORED_KEYS: &[&str] = &[
    "hbase.loadincremental.threads.max",
    "hbase.bulkload.retries.number",
    "hbase.bulkload.retries.retryOnIOException",
    "hbase.mapreduce.bulkload.by.family",
    "always.copy.files",
    "hbase.client.retries.number",
];

/// The options, from `-Dkey=value` properties.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompleteBulkLoadOptions {
    /// `create.table` (default `yes`: a missing table is created).
    pub create_table: bool,
    /// `ignore.unmatched.families=yes`.
    pub ignore_unmatched_families: bool,
    /// `hbase.mapreduce.bulkload.max.hfiles.perRegion.perFamily` (default 32).
    pub max_files_per_region_per_family: usize,
    /// `hbase.loadincremental.validate.hfile` (default true).
    pub validate_hfiles: bool,
    /// `hbase.loadincremental.fail.if.need.split.hfile` (default false).
    pub fail_if_need_split: bool,
    /// `-loadTable`: the directory holds region directories, each with family directories.
    pub load_table: bool,
    /// What was accepted but deserves a word: unknown keys, malformed values.
    pub notes: Vec<String>,
}

impl Default for CompleteBulkLoadOptions {
    fn default() -> Self {
        CompleteBulkLoadOptions {
            create_table: true,
            ignore_unmatched_families: false,
            max_files_per_region_per_family: 32,
            validate_hfiles: true,
            fail_if_need_split: false,
            load_table: false,
            notes: Vec::new(),
        }
    }
}

impl CompleteBulkLoadOptions {
    /// Reads `-Dkey=value` properties as HBase's tool does (`create.table` and
    /// `ignore.unmatched.families` compare with `yes` ignoring case; the others are
    /// Hadoop booleans and integers).
    ///
    /// ```
    /// use regionkv_tools::complete_bulk_load::CompleteBulkLoadOptions;
    ///
    /// let o = CompleteBulkLoadOptions::from_properties([("create.table", "no")])?;
    /// assert!(!o.create_table);
    /// assert_eq!(o.max_files_per_region_per_family, 32);
    /// # Ok::<(), regionkv_tools::Error>(())
    /// ```
    pub fn from_properties<I, K, V>(properties: I) -> Result<Self>
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<str>,
        V: AsRef<str>,
    {
        let props = Properties::new(properties);
        let mut o = CompleteBulkLoadOptions::default();
        let mut notes = Vec::new();
        // HBase: `"yes".equalsIgnoreCase(conf.get(key, default))`.
        o.create_table = props
            .get(CREATE_TABLE_CONF_KEY)
            .is_none_or(|v| v.eq_ignore_ascii_case("yes"));
        o.ignore_unmatched_families = props
            .get(IGNORE_UNMATCHED_CF_CONF_KEY)
            .is_some_and(|v| v.eq_ignore_ascii_case("yes"));
        if let Some(v) = props.get(MAX_FILES_PER_REGION_PER_FAMILY) {
            o.max_files_per_region_per_family = v.trim().parse().map_err(|_| {
                Error::usage(format!(
                    "-D{MAX_FILES_PER_REGION_PER_FAMILY}={v}: not a number"
                ))
            })?;
        }
        o.validate_hfiles = boolean(
            VALIDATE_HFILES,
            props.get(VALIDATE_HFILES),
            true,
            &mut notes,
        );
        o.fail_if_need_split = boolean(
            FAIL_IF_NEED_SPLIT_HFILE,
            props.get(FAIL_IF_NEED_SPLIT_HFILE),
            false,
            &mut notes,
        );
        if !boolean(ASSIGN_SEQ_IDS, props.get(ASSIGN_SEQ_IDS), true, &mut notes) {
            notes.push(format!(
                "-D{ASSIGN_SEQ_IDS}=false ignored: regionkv always gives loaded cells a sequence id above every earlier write"
            ));
        }
        for key in props.keys() {
            let known = [
                CREATE_TABLE_CONF_KEY,
                IGNORE_UNMATCHED_CF_CONF_KEY,
                MAX_FILES_PER_REGION_PER_FAMILY,
                VALIDATE_HFILES,
                FAIL_IF_NEED_SPLIT_HFILE,
                ASSIGN_SEQ_IDS,
            ];
            if IGNORED_KEYS.contains(&key) {
                notes.push(format!(
                    "-D{key} ignored: a regionkv bulk load is one local commit"
                ));
            } else if !known.contains(&key) {
                notes.push(format!("-D{key} is not an option of {NAME}; ignored"));
            }
        }
        o.notes = notes;
        Ok(o)
    }
}

/// HBase's usage text (`BulkLoadHFilesTool.usage`), with regionkv's `--data`.
pub fn usage() -> String {
    "Usage: regionkv completebulkload [--data DIR] [OPTIONS] </PATH/TO/HFILEOUTPUTFORMAT-OUTPUT> <TABLENAME>\n\
     Loads directory of hfiles -- a region dir or product of HFileOutputFormat -- into an hbase table.\n\
     OPTIONS (for other -D options, see source code):\n \
     -Dcreate.table=no whether to create table; when 'no', target table must exist.\n \
     -Dignore.unmatched.families=yes to ignore unmatched column families.\n \
     -loadTable for when directory of files to load has a depth of 3; target table must exist;\n \
     must be last of the options on command line.\n\
     See docs/tools.md (completebulkload) and http://hbase.apache.org/book.html#arch.bulk.load.complete.strays for documentation.\n"
        .to_string()
}

/// What a load did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CompleteBulkLoadReport {
    /// The table did not exist and was created (`create.table`).
    pub table_created: bool,
    /// HFiles loaded (empty and skipped files not counted).
    pub hfiles: u64,
    /// HFiles whose rows spanned more than one region (HBase splits these).
    pub hfiles_split: u64,
    /// Cells loaded.
    pub cells: u64,
    /// Cells with a key another file also holds, loaded once.
    pub duplicate_cells: u64,
    /// Regions that received files.
    pub regions: u64,
    /// Storefiles written.
    pub storefiles: u64,
    /// Bytes of the HFiles read.
    pub bytes_read: u64,
    /// Bytes of the storefiles written.
    pub bytes_written: u64,
    /// What HBase logs as a warning: skipped entries, the empty-directory message.
    pub warnings: Vec<String>,
}

impl CompleteBulkLoadReport {
    /// Whether anything was loaded (HBase's tool exits with -1 otherwise).
    pub fn loaded_anything(&self) -> bool {
        self.hfiles > 0
    }
}

/// What the command sees of a running load.
pub trait Observer {
    /// A warning HBase's tool logs (a skipped entry), as it happens.
    fn warning(&mut self, _message: &str) {}
    /// The load is about to read `total_cells` cells (the files' trailers' counts) and
    /// `total_bytes` bytes; `cells_read` counts up while it does.
    fn loading(&mut self, _total_cells: u64, _total_bytes: u64, _cells_read: Arc<AtomicU64>) {}
}

/// An observer that ignores everything.
#[derive(Debug, Default)]
pub struct QuietObserver;

impl Observer for QuietObserver {}

/// One HFile to load.
struct Source {
    family: Vec<u8>,
    reader: HFileReader,
    /// The first and last rows (`None` for an empty file).
    rows: Option<(Vec<u8>, Vec<u8>)>,
}

/// The load of one directory into one table.
pub struct CompleteBulkLoad<'a> {
    db: &'a Db,
    table: String,
    options: CompleteBulkLoadOptions,
}

impl<'a> CompleteBulkLoad<'a> {
    /// A load into `table` of `db`.
    pub fn new(db: &'a Db, table: &str, options: CompleteBulkLoadOptions) -> Self {
        Self {
            db,
            table: table.to_string(),
            options,
        }
    }

    /// Loads `dir`.
    pub fn run(&self, dir: &Path, observer: &mut dyn Observer) -> Result<CompleteBulkLoadReport> {
        let o = &self.options;
        let mut report = CompleteBulkLoadReport::default();
        let admin = self.db.admin();
        let exists = admin.table_exists(&self.table)?;
        if !exists && (o.load_table || !o.create_table) {
            return Err(Error::TableNotFound {
                table: self.table.clone(),
            });
        }
        let mut warn = |report: &mut CompleteBulkLoadReport, message: String| {
            observer.warning(&message);
            report.warnings.push(message);
        };
        let mut found: Vec<(Vec<u8>, PathBuf)> = Vec::new();
        let mut family_dirs: Vec<Vec<u8>> = Vec::new();
        if !dir.is_dir() {
            return Err(Error::InputPathDoesNotExist {
                path: dir.to_path_buf(),
            });
        }
        if o.load_table {
            for region in sorted_entries(dir)? {
                if region.is_dir() && !file_name(&region).starts_with('.') {
                    self.visit(
                        &region,
                        &mut found,
                        &mut family_dirs,
                        &mut report,
                        &mut warn,
                    )?;
                }
            }
        } else {
            self.visit(dir, &mut found, &mut family_dirs, &mut report, &mut warn)?;
        }

        // Open every file (trailer and load-on-open section) and read its row range.
        let fs = RealFs::new();
        let mut sources = Vec::new();
        for (family, path) in found {
            let file = fs.open_read(&path).map_err(|e| Error::HFile(e.into()))?;
            let reader = match HFileReader::open(file) {
                Ok(r) => r,
                Err(regionkv_hfile::Error::NotAnHFile { .. }) if o.validate_hfiles => {
                    // HBase: HFile.isHFileFormat is false.
                    warn(
                        &mut report,
                        format!(
                            "the file {} doesn't seems to be an hfile. skipping",
                            path.display()
                        ),
                    );
                    continue;
                }
                Err(e) => return Err(Error::HFile(e)),
            };
            let rows = row_range(&reader)?;
            if let Some((first, last)) = &rows
                && first > last
            {
                return Err(Error::HFileRange {
                    path,
                    first: regionkv::cell::bytes::to_string_binary(first),
                    last: regionkv::cell::bytes::to_string_binary(last),
                });
            }
            sources.push(Source {
                family,
                reader,
                rows,
            });
        }

        if !exists {
            self.create_table(&family_dirs, &sources, &mut warn, &mut report)?;
            report.table_created = true;
        }
        let descriptor = admin.describe(&self.table)?;
        let unmatched: Vec<String> = sources
            .iter()
            .map(|s| String::from_utf8_lossy(&s.family).into_owned())
            .filter(|f| descriptor.family(f.as_bytes()).is_none())
            .fold(Vec::new(), |mut v, f| {
                if !v.contains(&f) {
                    v.push(f);
                }
                v
            });
        if !unmatched.is_empty() {
            let valid: Vec<String> = descriptor
                .families
                .iter()
                .map(|f| String::from_utf8_lossy(&f.name).into_owned())
                .collect();
            let message = format!(
                "Unmatched family names found: unmatched family names in HFiles to be bulkloaded: [{}]; valid family names of table {} are: [{}]",
                unmatched.join(", "),
                self.table,
                valid.join(", ")
            );
            if !o.ignore_unmatched_families {
                return Err(Error::UnmatchedFamilies { message });
            }
            warn(&mut report, message);
            sources.retain(|s| descriptor.family(&s.family).is_some());
        }

        // Empty files are skipped, as HBase's groupOrSplit does.
        sources.retain(|s| {
            if s.rows.is_none() {
                let message = format!(
                    "hfile {} has no entries, skipping",
                    s.reader.path().display()
                );
                observer.warning(&message);
                report.warnings.push(message);
            }
            s.rows.is_some()
        });
        if sources.is_empty() {
            let message = format!(
                "Bulk load operation did not find any files to load in directory {}. Does it contain files in subdirectories that correspond to column family names?",
                dir.display()
            );
            observer.warning(&message);
            report.warnings.push(message);
            return Ok(report);
        }

        // Group by region as HBase does before loading: the per-region, per-family limit
        // and the split refusal come before anything is written.
        let splits = admin.splits(&self.table)?;
        let region_of = |row: &[u8]| splits.partition_point(|s| s.as_slice() <= row);
        let mut per_region: BTreeMap<(usize, Vec<u8>), usize> = BTreeMap::new();
        for s in &sources {
            // Empty files were dropped above.
            let Some((first, last)) = s.rows.as_ref() else {
                continue;
            };
            let (a, b) = (region_of(first), region_of(last));
            if a != b {
                if o.fail_if_need_split {
                    return Err(Error::NeedsSplit {
                        path: s.reader.path().to_path_buf(),
                    });
                }
                report.hfiles_split += 1;
            }
            for r in a..=b {
                let n = per_region.entry((r, s.family.clone())).or_default();
                *n += 1;
                if *n > o.max_files_per_region_per_family {
                    return Err(Error::TooManyHFiles {
                        max: o.max_files_per_region_per_family,
                        family: regionkv::cell::bytes::to_string_binary(&s.family),
                        start_key: regionkv::cell::bytes::to_string_binary(
                            r.checked_sub(1).map_or(&[][..], |i| splits[i].as_slice()),
                        ),
                    });
                }
            }
        }

        report.hfiles = sources.len() as u64;
        report.bytes_read = sources.iter().map(|s| s.reader.len()).sum();
        let total_cells = sources
            .iter()
            .map(|s| s.reader.trailer().entry_count())
            .sum();
        let cells_read = Arc::new(AtomicU64::new(0));
        observer.loading(total_cells, report.bytes_read, cells_read.clone());

        let mut by_family: BTreeMap<Vec<u8>, Vec<&HFileReader>> = BTreeMap::new();
        for s in &sources {
            by_family
                .entry(s.family.clone())
                .or_default()
                .push(&s.reader);
        }
        let duplicates = Arc::new(AtomicU64::new(0));
        let failure: FailureSlot = Arc::default();
        let families: Vec<FamilyCells<'_>> = by_family
            .into_iter()
            .map(|(family, readers)| {
                let merge = Merge::new(
                    family.clone(),
                    &readers,
                    cells_read.clone(),
                    duplicates.clone(),
                    failure.clone(),
                );
                FamilyCells::fallible(family, merge)
            })
            .collect();
        let loaded = admin.bulk_load(&self.table, families).map_err(|e| {
            let stashed = failure.lock().ok().and_then(|mut f| f.take());
            match (e, stashed) {
                (regionkv::Error::BulkLoadSource { .. }, Some(problem)) => problem,
                (e, _) => Error::Db(e),
            }
        })?;
        report.cells = loaded.cells;
        report.regions = loaded.regions;
        report.storefiles = loaded.files;
        report.bytes_written = loaded.bytes;
        report.duplicate_cells = duplicates.load(AtomicOrdering::Relaxed);
        Ok(report)
    }

    /// Collects the HFiles of the family directories under `dir` (HBase's
    /// `visitBulkHFiles`), in name order.
    fn visit(
        &self,
        dir: &Path,
        found: &mut Vec<(Vec<u8>, PathBuf)>,
        family_dirs: &mut Vec<Vec<u8>>,
        report: &mut CompleteBulkLoadReport,
        warn: &mut dyn FnMut(&mut CompleteBulkLoadReport, String),
    ) -> Result<()> {
        for family_dir in sorted_entries(dir)? {
            if !family_dir.is_dir() {
                warn(
                    report,
                    format!("Skipping non-directory {}", family_dir.display()),
                );
                continue;
            }
            let name = file_name(&family_dir);
            if ColumnFamilyDescriptor::new(name.as_bytes()).is_err() || name.starts_with('.') {
                warn(report, format!("Skipping invalid {}", family_dir.display()));
                continue;
            }
            let family = name.as_bytes().to_vec();
            if !family_dirs.contains(&family) {
                family_dirs.push(family.clone());
            }
            for file in sorted_entries(&family_dir)? {
                let fname = file_name(&file);
                if !file.is_file() {
                    warn(report, format!("Skipping non-file {}", file.display()));
                    continue;
                }
                if fname.starts_with('_') {
                    continue;
                }
                if is_reference(&fname) {
                    warn(report, format!("Skipping reference {fname}"));
                    continue;
                }
                if is_hfile_link(&fname) {
                    warn(report, format!("Skipping HFileLink {fname}"));
                    continue;
                }
                found.push((family.clone(), file));
            }
        }
        Ok(())
    }

    /// Creates the missing table as HBase's `createTable` does: the directory's families
    /// (their compression from the files, where regionkv has it) and split keys inferred
    /// from the files' row ranges.
    fn create_table(
        &self,
        family_dirs: &[Vec<u8>],
        sources: &[Source],
        warn: &mut dyn FnMut(&mut CompleteBulkLoadReport, String),
        report: &mut CompleteBulkLoadReport,
    ) -> Result<()> {
        let mut families = Vec::new();
        for name in family_dirs {
            let mut cf = ColumnFamilyDescriptor::new(name).map_err(regionkv::Error::from)?;
            if let Some(s) = sources.iter().find(|s| &s.family == name) {
                use regionkv_hfile::Compression as C;
                match s.reader.trailer().compression {
                    C::None => {}
                    C::Lz4 => cf.compression = regionkv::descriptor::Compression::Lz4,
                    other => warn(
                        report,
                        format!(
                            "family {}: the HFiles use {other:?} compression, which regionkv storefiles do not have; the family is created with COMPRESSION NONE",
                            String::from_utf8_lossy(name)
                        ),
                    ),
                }
            }
            families.push(cf);
        }
        let mut boundaries: BTreeMap<Vec<u8>, i64> = BTreeMap::new();
        for s in sources {
            if let Some((first, last)) = &s.rows {
                *boundaries.entry(first.clone()).or_default() += 1;
                *boundaries.entry(last.clone()).or_default() -= 1;
            }
        }
        let desc = TableDescriptor::new(&self.table, families).map_err(regionkv::Error::from)?;
        self.db
            .admin()
            .create_table_with_splits(&desc, infer_boundaries(&boundaries))?;
        Ok(())
    }
}

/// HBase's `inferBoundaries`: walking the files' first rows (+1) and last rows (-1) in
/// order, every start of a run of overlapping files but the first is a split key.
///
/// ```
/// use std::collections::BTreeMap;
/// use regionkv_tools::complete_bulk_load::infer_boundaries;
///
/// // Files a..c, b..d (overlapping) and e..f, g..h: splits at e and g.
/// let mut m = BTreeMap::new();
/// for (first, last) in [("a", "c"), ("b", "d"), ("e", "f"), ("g", "h")] {
///     *m.entry(first.as_bytes().to_vec()).or_insert(0) += 1;
///     *m.entry(last.as_bytes().to_vec()).or_insert(0) -= 1;
/// }
/// assert_eq!(infer_boundaries(&m), vec![b"e".to_vec(), b"g".to_vec()]);
/// ```
pub fn infer_boundaries(map: &BTreeMap<Vec<u8>, i64>) -> Vec<Vec<u8>> {
    let mut keys = Vec::new();
    let mut running = 0;
    let mut start: Option<&Vec<u8>> = None;
    let mut first_boundary = true;
    for (key, delta) in map {
        if running == 0 {
            start = Some(key);
        }
        running += delta;
        if running == 0 {
            if !first_boundary && let Some(s) = start {
                keys.push(s.clone());
            }
            first_boundary = false;
        }
    }
    keys
}

/// The first and last rows of a file: the first cell's row and `hfile.LASTKEY`'s (or, for
/// a file without that key, the last cell's).
fn row_range(reader: &HFileReader) -> Result<Option<(Vec<u8>, Vec<u8>)>> {
    let mut scanner = reader.scanner();
    let Some(first) = scanner.next_cell()? else {
        return Ok(None);
    };
    let first_row = parse_key(reader, &first.key)?.row.to_vec();
    let last_row = match reader.last_key() {
        Some(k) => parse_key(reader, k)?.row.to_vec(),
        None => {
            let mut last = first;
            while let Some(c) = scanner.next_cell()? {
                last = c;
            }
            parse_key(reader, &last.key)?.row.to_vec()
        }
    };
    Ok(Some((first_row, last_row)))
}

fn parse_key<'k>(reader: &HFileReader, key: &'k [u8]) -> Result<KeyRef<'k>> {
    KeyRef::parse(key).ok_or_else(|| {
        Error::HFile(regionkv_hfile::Error::Corrupt {
            path: reader.path().to_path_buf(),
            offset: 0,
            reason: "a key whose lengths do not fit".into(),
        })
    })
}

/// HBase's `StoreFileInfo.isReference`: `<hfile>.<parent region>` names.
fn is_reference(name: &str) -> bool {
    match name.split_once('.') {
        Some((file, region)) => {
            !file.is_empty() && !region.is_empty() && region.bytes().all(|b| b.is_ascii_hexdigit())
        }
        None => false,
    }
}

/// HBase's `HFileLink.isHFileLink`: `<table>=<region>-<hfile>` names.
fn is_hfile_link(name: &str) -> bool {
    name.split_once('=')
        .and_then(|(_, rest)| rest.split_once('-'))
        .is_some_and(|(region, file)| {
            !region.is_empty() && !file.is_empty() && region.bytes().all(|b| b.is_ascii_hexdigit())
        })
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn sorted_entries(dir: &Path) -> Result<Vec<PathBuf>> {
    let read = |e: std::io::Error| Error::Input {
        input: dir.display().to_string(),
        source: e,
    };
    let mut v = Vec::new();
    for e in std::fs::read_dir(dir).map_err(read)? {
        v.push(e.map_err(read)?.path());
    }
    v.sort();
    Ok(v)
}

/// A failure while converting a file's cells. The merge keeps the failure itself in a
/// shared slot (the tool's typed error, with the file and offset) and hands the bulk load
/// only this marker, which stops the load before its commit.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct SourceFailed(String);

/// Where a merge leaves its failure for [`CompleteBulkLoad::run`].
type FailureSlot = Arc<std::sync::Mutex<Option<Error>>>;

/// The next cell of one file, at the head of the merge.
struct Head {
    key: Vec<u8>,
    value: Vec<u8>,
    tags: Vec<u8>,
    file: usize,
}

impl PartialEq for Head {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Head {}
impl PartialOrd for Head {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Head {
    /// Reversed (the heap is a max-heap): the smallest key first, then the file first in
    /// name order.
    fn cmp(&self, other: &Self) -> Ordering {
        compare_encoded(&other.key, &self.key).then_with(|| other.file.cmp(&self.file))
    }
}

/// The merged, converted cells of one family's files, in key order, each key once.
struct Merge<'r> {
    family: Vec<u8>,
    scanners: Vec<HFileScanner<'r>>,
    paths: Vec<PathBuf>,
    /// Each file's previous key, to check its order.
    previous: Vec<Option<Vec<u8>>>,
    heap: BinaryHeap<Head>,
    last_key: Option<Vec<u8>>,
    started: bool,
    failed: bool,
    cells_read: Arc<AtomicU64>,
    duplicates: Arc<AtomicU64>,
    failure: FailureSlot,
}

impl<'r> Merge<'r> {
    fn new(
        family: Vec<u8>,
        readers: &[&'r HFileReader],
        cells_read: Arc<AtomicU64>,
        duplicates: Arc<AtomicU64>,
        failure: FailureSlot,
    ) -> Self {
        Merge {
            family,
            scanners: readers.iter().map(|r| r.scanner()).collect(),
            paths: readers.iter().map(|r| r.path().to_path_buf()).collect(),
            previous: vec![None; readers.len()],
            heap: BinaryHeap::new(),
            last_key: None,
            started: false,
            failed: false,
            cells_read,
            duplicates,
            failure,
        }
    }

    /// Reads file `i`'s next cell onto the heap, checking its order within the file.
    fn advance(&mut self, i: usize) -> Result<()> {
        let Some(c) = self.scanners[i].next_cell()? else {
            return Ok(());
        };
        self.cells_read.fetch_add(1, AtomicOrdering::Relaxed);
        if let Some(prev) = &self.previous[i]
            && compare_encoded(prev, &c.key) == Ordering::Greater
        {
            return Err(self.cell_problem(
                i,
                format!(
                    "cells out of order: {} after {}",
                    key_to_string(&c.key),
                    key_to_string(prev)
                ),
            ));
        }
        self.previous[i] = Some(c.key.clone());
        self.heap.push(Head {
            key: c.key,
            value: c.value,
            tags: c.tags,
            file: i,
        });
        Ok(())
    }

    fn cell_problem(&self, file: usize, reason: String) -> Error {
        Error::HFileCell {
            path: self.paths[file].clone(),
            reason,
        }
    }

    /// Converts an HFile cell to a regionkv cell of this family.
    fn convert(&self, h: &Head) -> Result<Cell> {
        let k = KeyRef::parse(&h.key)
            .ok_or_else(|| self.cell_problem(h.file, "a key whose lengths do not fit".into()))?;
        if k.family != self.family.as_slice() {
            return Err(self.cell_problem(
                h.file,
                format!(
                    "the cell {} is of family {}, but the file is in the directory of family {}",
                    key_to_string(&h.key),
                    regionkv::cell::bytes::to_string_binary(k.family),
                    regionkv::cell::bytes::to_string_binary(&self.family)
                ),
            ));
        }
        if k.timestamp == regionkv::cell::key::LATEST_TIMESTAMP {
            return Err(self.cell_problem(
                h.file,
                format!(
                    "the cell {} has no timestamp (LATEST_TIMESTAMP); bulk-loaded cells keep the timestamps they carry (HBase's HFileOutputFormat2 writes real ones)",
                    key_to_string(&h.key)
                ),
            ));
        }
        let cell_type = match k.cell_type() {
            Some(
                t @ (CellType::Put
                | CellType::Delete
                | CellType::DeleteColumn
                | CellType::DeleteFamily
                | CellType::DeleteFamilyVersion),
            ) => t,
            _ => {
                return Err(self.cell_problem(
                    h.file,
                    format!(
                        "the cell {} has a type a store file cannot hold",
                        key_to_string(&h.key)
                    ),
                ));
            }
        };
        let cell = Cell::new(
            k.row,
            k.family,
            k.qualifier,
            k.timestamp,
            cell_type,
            &h.value,
        )
        .map_err(|e| {
            self.cell_problem(h.file, format!("the cell {}: {e}", key_to_string(&h.key)))
        })?;
        if h.tags.is_empty() {
            Ok(cell)
        } else {
            cell.with_tags(h.tags.clone()).map_err(|e| {
                self.cell_problem(
                    h.file,
                    format!("the tags of cell {}: {e}", key_to_string(&h.key)),
                )
            })
        }
    }

    fn next_cell(&mut self) -> Result<Option<Cell>> {
        if !self.started {
            self.started = true;
            for i in 0..self.scanners.len() {
                self.advance(i)?;
            }
        }
        loop {
            let Some(head) = self.heap.pop() else {
                return Ok(None);
            };
            self.advance(head.file)?;
            if self.last_key.as_deref() == Some(head.key.as_slice()) {
                self.duplicates.fetch_add(1, AtomicOrdering::Relaxed);
                continue;
            }
            let cell = self.convert(&head)?;
            self.last_key = Some(head.key);
            return Ok(Some(cell));
        }
    }
}

impl Iterator for Merge<'_> {
    type Item = std::result::Result<Cell, SourceFailed>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        match self.next_cell() {
            Ok(c) => c.map(Ok),
            Err(e) => {
                self.failed = true;
                let marker = SourceFailed(e.to_string());
                if let Ok(mut slot) = self.failure.lock() {
                    slot.get_or_insert(e);
                }
                Some(Err(marker))
            }
        }
    }
}
