//! HBase's `Export` (`org.apache.hadoop.hbase.mapreduce.Export` with `ExportUtils`): a
//! table's cells, scanned, written to a directory in regionkv's export format
//! (docs/export-format.md) for [`crate::import`] to load.
//!
//! HBase's command line is kept: `<tablename> <outputdir> [<versions> [<starttime>
//! [<endtime>]] [^regex | prefix]]` and the `-D` keys of `ExportUtils.usage`. One default
//! differs, because the issue asks an export to reproduce the table: without `versions`
//! every version the table holds is exported (HBase: 1), and the scan is raw (delete
//! markers and the cells they mask; HBase: only with
//! `-Dhbase.mapreduce.include.deleted.rows=true`). Giving `versions` or
//! `-Dhbase.mapreduce.include.deleted.rows=false` gets HBase's behaviour back.
//!
//! Streaming: one scan over the table's regions in row order, each result at most
//! `hbase.export.scanner.batch` cells (a wide row comes in pieces), each family's cells
//! appended to that family's open data file, which holds one block in memory. The scan
//! runs on a thread of its own ([`crate::read_ahead::ReadAhead`]), a few thousand results
//! ahead of the writer. Memory is bounded by those queued results plus one block per
//! exported family, whatever the table's size.
//! The manifest is written last and atomically: an export that fails or is killed leaves a
//! directory without `export.meta`, which an import refuses.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use regionkv::cell::bytes::to_bytes_binary;
use regionkv::{Db, Scan, TimeRange};

use crate::error::{Error, Result};
use crate::export_format::manifest::{ExportedScan, Manifest};
use crate::export_format::part::{PartSummary, PartWriter};
use crate::export_format::part_name;
use crate::progress::Progress;
use crate::read_ahead::ReadAhead;

/// `hbase.mapreduce.include.deleted.rows` (ExportUtils.RAW_SCAN): a raw scan.
pub const RAW_SCAN: &str = "hbase.mapreduce.include.deleted.rows";
/// `hbase.export.scanner.batch` (ExportUtils.EXPORT_BATCHING): cells per scan result.
pub const EXPORT_BATCHING: &str = "hbase.export.scanner.batch";
/// `hbase.export.scanner.caching` (ExportUtils.EXPORT_CACHING): rows per scanner fetch.
pub const EXPORT_CACHING: &str = "hbase.export.scanner.caching";
/// `hbase.mapreduce.scan.column.family` (TableInputFormat.SCAN_COLUMN_FAMILY).
pub const SCAN_COLUMN_FAMILY: &str = "hbase.mapreduce.scan.column.family";
/// `hbase.mapreduce.scan.row.start` (TableInputFormat.SCAN_ROW_START).
pub const SCAN_ROW_START: &str = "hbase.mapreduce.scan.row.start";
/// `hbase.mapreduce.scan.row.stop` (TableInputFormat.SCAN_ROW_STOP).
pub const SCAN_ROW_STOP: &str = "hbase.mapreduce.scan.row.stop";
/// `export.part.size` (regionkv): the size in bytes past which a data file is closed and
/// the next one opened.
pub const PART_SIZE: &str = "export.part.size";

/// Cells per scan result when `hbase.export.scanner.batch` is not set. HBase leaves batching
/// off; regionkv bounds every result so a row of millions of cells never sits in memory.
pub const DEFAULT_BATCH: usize = 10_000;
/// `export.part.size`'s default: 256 MiB files.
pub const DEFAULT_PART_SIZE: u64 = 256 * 1024 * 1024;

/// HBase's Export usage text (ExportUtils.usage), with regionkv's `--data`, `--format` and
/// its defaults.
pub fn usage() -> String {
    "Usage: Export [-D <property=value>]* <tablename> <outputdir> [<versions> [<starttime> [<endtime>]] [^[regex pattern] or [Prefix] to filter]]

  regionkv: [--data DIR] [--no-timing] before or among the arguments; without <versions>
  every version and every delete marker is exported (a raw scan), so that import
  reproduces the table. --format=csv|jsonl writes the latest cells as text instead
  (<outputdir> is then a file, or - for standard output).
  Note: -D properties will be applied to the conf used.
  Additionally, the following SCAN properties can be specified
  to control/limit what is exported..
   -D hbase.mapreduce.scan.column.family=<family1>,<family2>, ...
   -D hbase.mapreduce.include.deleted.rows=true|false (regionkv default: true without <versions>)
   -D hbase.mapreduce.scan.row.start=<ROWSTART>
   -D hbase.mapreduce.scan.row.stop=<ROWSTOP>
   -D hbase.client.scanner.caching=100
   -D export.part.size=268435456 (regionkv: bytes per data file)
For tables with very wide rows consider setting the batch size as below:
   -D hbase.export.scanner.batch=10
   -D hbase.export.scanner.caching=100
"
    .to_string()
}

/// What an export scans (Export's arguments and `-D` keys, parsed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportOptions {
    /// Versions per column; `None`: all the table holds.
    pub versions: Option<u32>,
    /// Time range start (inclusive, ms).
    pub start_time: i64,
    /// Time range end (exclusive, ms).
    pub end_time: i64,
    /// Raw scan (delete markers and deleted cells).
    pub raw: bool,
    /// Families to export (empty: all).
    pub families: Vec<Vec<u8>>,
    /// First row (inclusive).
    pub start_row: Option<Vec<u8>>,
    /// Stop row (exclusive).
    pub stop_row: Option<Vec<u8>>,
    /// HBase's sixth argument: `^regex` (a RowFilter) or a row prefix (`toBytesBinary`).
    pub row_filter: Option<String>,
    /// Cells per scan result.
    pub batch: usize,
    /// Rows per scanner fetch.
    pub caching: usize,
    /// Bytes per data file.
    pub part_size: u64,
}

impl Default for ExportOptions {
    fn default() -> Self {
        Self {
            versions: None,
            start_time: 0,
            end_time: i64::MAX,
            raw: true,
            families: Vec::new(),
            start_row: None,
            stop_row: None,
            row_filter: None,
            batch: DEFAULT_BATCH,
            caching: 100,
            part_size: DEFAULT_PART_SIZE,
        }
    }
}

/// Parses a number as Java's `Integer.parseInt`/`Long.parseLong` (HBase's message).
fn parse_num<T: std::str::FromStr>(what: &str, s: &str) -> Result<T> {
    s.trim()
        .parse()
        .map_err(|_| Error::usage(format!("{what}: For input string: \"{s}\"")))
}

impl ExportOptions {
    /// From Export's optional arguments after the table and directory (`versions`,
    /// `starttime`, `endtime`, the row filter) and its `-D` properties. Unknown keys are
    /// returned, for the caller to note; they change nothing (as in Hadoop).
    pub fn from_args<K: AsRef<str>, V: AsRef<str>>(
        args: &[String],
        properties: impl IntoIterator<Item = (K, V)>,
    ) -> Result<(Self, Vec<String>)> {
        let mut o = Self::default();
        if args.len() > 4 {
            return Err(Error::usage(format!(
                "Wrong number of arguments: {}",
                args.len() + 2
            )));
        }
        if let Some(v) = args.first() {
            let n: i32 = parse_num("versions", v)?;
            // HBase passes it to Scan.setMaxVersions; 0 or less exports nothing useful.
            if n < 1 {
                return Err(Error::usage(format!("versions must be at least 1: {n}")));
            }
            o.versions = Some(n as u32);
            // Versions given: HBase's behaviour, a raw scan only on request.
            o.raw = false;
        }
        if let Some(v) = args.get(1) {
            o.start_time = parse_num("starttime", v)?;
        }
        if let Some(v) = args.get(2) {
            o.end_time = parse_num("endtime", v)?;
        }
        TimeRange::between(o.start_time, o.end_time)
            .map_err(|e| Error::usage(format!("Invalid time range: {e}")))?;
        o.row_filter = args.get(3).cloned();
        let mut unknown = Vec::new();
        for (k, v) in properties {
            let (k, v) = (k.as_ref().trim(), v.as_ref());
            match k {
                RAW_SCAN => o.raw = v.trim().eq_ignore_ascii_case("true"),
                SCAN_COLUMN_FAMILY => {
                    o.families = v
                        .split(',')
                        .map(str::trim)
                        .filter(|f| !f.is_empty())
                        .map(|f| f.as_bytes().to_vec())
                        .collect();
                }
                SCAN_ROW_START => o.start_row = Some(binary(v)?),
                SCAN_ROW_STOP => o.stop_row = Some(binary(v)?),
                EXPORT_BATCHING => {
                    let n: i64 = parse_num(k, v)?;
                    o.batch = if n <= 0 { DEFAULT_BATCH } else { n as usize };
                }
                EXPORT_CACHING | "hbase.client.scanner.caching" => {
                    let n: i64 = parse_num(k, v)?;
                    o.caching = n.clamp(1, 1_000_000) as usize;
                }
                PART_SIZE => {
                    o.part_size = parse_num::<u64>(k, v)?.max(1);
                }
                "mapreduce.job.name"
                | "mapreduce.map.speculative"
                | "mapreduce.reduce.speculative" => {}
                other => unknown.push(other.to_string()),
            }
        }
        Ok((o, unknown))
    }

    /// The scan these options describe, over `families` (the exported ones; all of the
    /// table's when the options name none).
    pub(crate) fn scan(&self) -> Result<Scan> {
        // Export's `s.setCacheBlocks(false)` (`ExportUtils`): an export reads each block
        // once.
        let mut scan = Scan::new()
            .raw(self.raw)
            .max_versions(self.versions.unwrap_or(u32::MAX))
            .batch(self.batch)
            .caching(self.caching)
            .cache_blocks(false);
        if self.start_time != 0 || self.end_time != i64::MAX {
            scan = scan.time_range(
                TimeRange::between(self.start_time, self.end_time)
                    .map_err(|e| Error::usage(format!("Invalid time range: {e}")))?,
            );
        }
        if let Some(r) = &self.start_row {
            scan = scan.start_row(r);
        }
        if let Some(r) = &self.stop_row {
            scan = scan.stop_row(r);
        }
        for f in &self.families {
            scan = scan.add_family(f);
        }
        if let Some(f) = &self.row_filter {
            scan = row_filter(scan, f)?;
        }
        Ok(scan)
    }

    fn exported_scan(&self) -> ExportedScan {
        ExportedScan {
            versions: self.versions,
            start_time: self.start_time,
            end_time: self.end_time,
            raw: self.raw,
            start_row: self.start_row.clone(),
            stop_row: self.stop_row.clone(),
            row_filter: self.row_filter.clone(),
        }
    }
}

fn binary(s: &str) -> Result<Vec<u8>> {
    to_bytes_binary(s).map_err(|e| Error::usage(e.to_string()))
}

/// HBase's export filter: `^pattern` is a RowFilter with a RegexStringComparator,
/// anything else a PrefixFilter of `Bytes.toBytesBinary(arg)`.
fn row_filter(scan: Scan, arg: &str) -> Result<Scan> {
    match arg.strip_prefix('^') {
        Some(pattern) => {
            let text = format!(
                "RowFilter(=, 'regexstring:{}')",
                pattern.replace('\'', "''")
            );
            let filter = regionkv::filter::parse_filter(&text)
                .map_err(|e| Error::usage(format!("row filter {arg}: {e}")))?;
            Ok(scan.filter(filter))
        }
        None => Ok(scan.row_prefix(binary(arg)?)),
    }
}

/// What an export wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportReport {
    /// Rows exported.
    pub rows: u64,
    /// Cells exported.
    pub cells: u64,
    /// Data files written.
    pub parts: u64,
    /// Bytes written (data files and manifest).
    pub bytes: u64,
    /// From the scan's start to the manifest's rename.
    pub elapsed: Duration,
}

/// One export of one table.
#[derive(Debug)]
pub struct Export<'a> {
    db: &'a Db,
    table: String,
    options: ExportOptions,
    progress: Arc<Progress>,
}

impl<'a> Export<'a> {
    /// An export of `table` of `db` with `options`.
    pub fn new(db: &'a Db, table: &str, options: ExportOptions) -> Self {
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

    /// Writes the export to `dir`, which must not exist.
    pub fn run(&self, dir: &Path) -> Result<ExportReport> {
        let table = open_table(self.db, &self.table)?;
        let descriptor = (*table.descriptor()).clone();
        let families = selected_families(&descriptor, &self.options.families)?;
        let splits = self.db.admin().splits(table.name())?;
        let scan = self.options.scan()?;
        if dir.exists() {
            return Err(Error::OutputExists {
                path: dir.to_path_buf(),
            });
        }
        std::fs::create_dir_all(dir).map_err(|e| Error::file(dir, e))?;
        let created_millis = self.db.clock().now_millis();
        let started = Instant::now();

        let mut writers: Vec<Option<PartWriter>> = families.iter().map(|_| None).collect();
        let mut parts: Vec<PartSummary> = Vec::new();
        let mut next_part = 0u32;
        let (mut rows, mut cells) = (0u64, 0u64);
        let mut last_row: Vec<u8> = Vec::new();
        // Scanning on a thread of its own, encoding and writing on this one.
        let results =
            ReadAhead::spawn("export-scan", table.scan(&scan)?).map_err(|e| Error::file(dir, e))?;
        for result in results {
            let result = result?;
            let new_row = rows == 0 || result.row() != last_row.as_slice();
            if new_row {
                rows += 1;
                last_row.clear();
                last_row.extend_from_slice(result.row());
            }
            let before: u64 = writers.iter().flatten().map(PartWriter::size).sum();
            let n = result.len() as u64;
            for cell in result.cells() {
                // Families are few (HBase advises fewer than three): a linear search beats
                // hashing the name.
                let Some(index) = families.iter().position(|f| f.as_slice() == cell.family())
                else {
                    continue;
                };
                let slot = writers.get_mut(index).ok_or_else(|| {
                    Error::usage("internal: a family index beyond the writers".to_string())
                })?;
                if slot
                    .as_ref()
                    .is_some_and(|w| w.size() >= self.options.part_size)
                    && let Some(full) = slot.take()
                {
                    parts.push(full.finish()?);
                }
                let writer = match slot {
                    Some(w) => w,
                    None => {
                        let name = part_name(next_part);
                        next_part += 1;
                        slot.insert(PartWriter::create(dir, &name, index as u32)?)
                    }
                };
                writer.append(cell)?;
            }
            cells += n;
            let after: u64 = writers.iter().flatten().map(PartWriter::size).sum();
            self.progress
                .add(u64::from(new_row), n, after.saturating_sub(before));
        }
        for w in writers.into_iter().flatten() {
            parts.push(w.finish()?);
        }
        // Per family, its parts in the order written (the manifest lists them so).
        parts.sort_by(|a, b| a.family.cmp(&b.family).then_with(|| a.name.cmp(&b.name)));
        let manifest = Manifest {
            table: table.name().to_string(),
            descriptor,
            splits,
            created_millis,
            scan: self.options.exported_scan(),
            families,
            parts,
            rows,
            cells,
        };
        manifest.write(dir)?;
        let bytes =
            manifest.parts.iter().map(|p| p.bytes).sum::<u64>() + manifest.encode().len() as u64;
        Ok(ExportReport {
            rows,
            cells,
            parts: manifest.parts.len() as u64,
            bytes,
            elapsed: started.elapsed(),
        })
    }
}

/// The table `name`, or HBase's "Table 'x' does not exist." (the tool's own variant).
pub(crate) fn open_table(db: &Db, name: &str) -> Result<regionkv::Table> {
    db.table(name).map_err(|e| match e {
        regionkv::Error::TableNotFound(table) => Error::TableNotFound { table },
        e => Error::Db(e),
    })
}

/// The families an export or copy reads: `wanted` (each checked against the table), or
/// every family of the table.
pub(crate) fn selected_families(
    descriptor: &regionkv::TableDescriptor,
    wanted: &[Vec<u8>],
) -> Result<Vec<Vec<u8>>> {
    if wanted.is_empty() {
        return Ok(descriptor.families.iter().map(|f| f.name.clone()).collect());
    }
    let missing: Vec<String> = wanted
        .iter()
        .filter(|f| descriptor.family(f).is_none())
        .map(|f| String::from_utf8_lossy(f).into_owned())
        .collect();
    if !missing.is_empty() {
        return Err(Error::NoSuchColumnFamilies { families: missing });
    }
    let mut out: Vec<Vec<u8>> = wanted.to_vec();
    out.sort();
    out.dedup();
    Ok(out)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn defaults_reproduce_the_table_and_versions_bring_hbase_back() {
        let (o, _) = ExportOptions::from_args::<&str, &str>(&[], []).unwrap();
        assert_eq!((o.versions, o.raw), (None, true));
        let (o, _) = ExportOptions::from_args::<&str, &str>(&args("3 10 20"), []).unwrap();
        assert_eq!(
            (o.versions, o.raw, o.start_time, o.end_time),
            (Some(3), false, 10, 20)
        );
        let (o, _) =
            ExportOptions::from_args(&args("1"), [(RAW_SCAN, "true"), (SCAN_ROW_START, "a\\x00")])
                .unwrap();
        assert!(o.raw);
        assert_eq!(o.start_row, Some(b"a\0".to_vec()));
    }

    #[test]
    fn bad_arguments_are_usage_errors() {
        for a in ["x", "0", "1 x", "1 20 10", "1 -5", "1 2 3 p extra"] {
            let e = ExportOptions::from_args::<&str, &str>(&args(a), []).unwrap_err();
            assert!(e.is_usage(), "{a}: {e}");
        }
        let (_, unknown) =
            ExportOptions::from_args(&[], [("mapreduce.job.name", "j"), ("bogus.key", "1")])
                .unwrap();
        assert_eq!(unknown, ["bogus.key"]);
    }
}
