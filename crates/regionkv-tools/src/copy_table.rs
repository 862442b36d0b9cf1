//! HBase's `CopyTable` (`org.apache.hadoop.hbase.mapreduce.CopyTable`): scans a table and
//! writes what it reads into another table, of the same Db or (`--peer.adr=DIR`) of another
//! data directory, with HBase's options, defaults and messages.
//!
//! As HBase's (its mapper is Import's `Importer`), the copy goes through the normal write
//! path: each scanned row becomes a `Put` of its cells and, with `--all.cells`, a `Delete`
//! of its markers, every cell at its own timestamp, written through a `BufferedMutator`
//! (the destination's WAL, at its durability). So the destination keeps its own data and
//! the copy's writes win by sequence order, exactly as HBase's do. HBase's defaults are
//! kept here (the "reproduce raw" default is Export's): one version, no delete
//! markers, unless `--versions`/`--all.cells` say otherwise.
//!
//! Streaming: one scan (results of at most `--batch` cells, by default bounded at
//! [`crate::export::DEFAULT_BATCH`]), and the mutator's write buffer.

use std::sync::Arc;
use std::time::{Duration, Instant};

use regionkv::cell::bytes::to_bytes_binary;
use regionkv::{CellType, Db, Delete, Put, Scan, TimeRange};

use crate::error::{Error, Result};
use crate::export::{DEFAULT_BATCH, open_table, selected_families};
use crate::progress::Progress;

/// HBase's CopyTable usage text (printUsage), with regionkv's meaning of `--peer.adr`.
pub fn usage() -> String {
    "Usage: CopyTable [general options] [--starttime=X] [--endtime=Y] [--new.name=NEW] [--peer.adr=ADR] <tablename>

Options:
 startrow     the start row
 stoprow      the stop row
 starttime    beginning of the time range (unixtime in millis)
              without endtime means from starttime to forever
 endtime      end of the time range.  Ignored if no starttime specified.
 versions     number of cell versions to copy
 new.name     new table's name
 peer.adr     regionkv: the data directory of the destination (default: --data)
 families     comma-separated list of families to copy
              To copy from cf1 to cf2, give sourceCfName:destCfName. 
              To keep the same name, just give \"cfName\"
 all.cells    also copy delete markers and deleted cells
 batch        cells per scanned result
 cacheRow     rows per scanner fetch

Args:
 tablename    Name of the table to copy

Examples:
 To copy 'TestTable' to another data directory for a 1 hour window:
 $ regionkv copytable --data ./db --starttime=1265875194289 --endtime=1265878794289 --peer.adr=./db2 --families=myOldCf:myNewCf,cf2,cf3 TestTable 
 regionkv: [--data DIR] [--no-timing]; the destination table must exist.
"
    .to_string()
}

/// CopyTable's options, as its command line gives them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CopyTableOptions {
    /// The source table.
    pub table: String,
    /// `--new.name`: the destination table (default: the source's name, with a peer).
    pub new_name: Option<String>,
    /// `--peer.adr`: the destination's data directory (regionkv's meaning).
    pub peer: Option<String>,
    /// `--starttime` (default 0).
    pub start_time: i64,
    /// `--endtime` (default LATEST_TIMESTAMP).
    pub end_time: i64,
    /// `--versions` (default: the scan's, one).
    pub versions: Option<u32>,
    /// `--startrow`, `Bytes.toBytesBinary`.
    pub start_row: Option<Vec<u8>>,
    /// `--stoprow`, `Bytes.toBytesBinary`.
    pub stop_row: Option<Vec<u8>>,
    /// `--families`: (source, destination) pairs.
    pub families: Vec<(Vec<u8>, Vec<u8>)>,
    /// `--all.cells`: a raw scan (delete markers and deleted cells).
    pub all_cells: bool,
    /// `--batch`: cells per result.
    pub batch: usize,
    /// `--cacheRow`: rows per fetch.
    pub cache_row: usize,
}

/// What the command line asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CopyTableRequest {
    /// `-h`, `--h...` or no argument: print the usage.
    Help,
    /// Copy.
    Run(CopyTableOptions),
}

fn number<T: std::str::FromStr>(s: &str) -> Result<T> {
    s.parse()
        .map_err(|_| Error::usage(format!("For input string: \"{s}\"")))
}

impl CopyTableOptions {
    /// Parses CopyTable's arguments (HBase's `doCommandLine`, its messages).
    pub fn parse(args: &[String]) -> Result<CopyTableRequest> {
        if args.is_empty() {
            return Ok(CopyTableRequest::Help);
        }
        let mut o = Self {
            table: String::new(),
            new_name: None,
            peer: None,
            start_time: 0,
            end_time: i64::MAX,
            versions: None,
            start_row: None,
            stop_row: None,
            families: Vec::new(),
            all_cells: false,
            batch: DEFAULT_BATCH,
            cache_row: 100,
        };
        let mut table = None;
        let binary = |s: &str| to_bytes_binary(s).map_err(|e| Error::usage(e.to_string()));
        for (i, cmd) in args.iter().enumerate() {
            if cmd == "-h" || cmd.starts_with("--h") {
                return Ok(CopyTableRequest::Help);
            }
            let value = |key: &str| cmd.strip_prefix(key);
            if let Some(v) = value("--startrow=") {
                o.start_row = Some(binary(v)?);
            } else if let Some(v) = value("--stoprow=") {
                o.stop_row = Some(binary(v)?);
            } else if let Some(v) = value("--starttime=") {
                o.start_time = number(v)?;
            } else if let Some(v) = value("--endtime=") {
                o.end_time = number(v)?;
            } else if let Some(v) = value("--batch=") {
                let n: i32 = number(v)?;
                o.batch = usize::try_from(n).unwrap_or(DEFAULT_BATCH).max(1);
            } else if let Some(v) = value("--cacheRow=") {
                let n: i32 = number(v)?;
                o.cache_row = usize::try_from(n).unwrap_or(100).max(1);
            } else if let Some(v) = value("--versions=") {
                let n: i32 = number(v)?;
                // HBase: a negative count leaves the scan's default.
                o.versions = u32::try_from(n).ok();
            } else if let Some(v) = value("--new.name=") {
                o.new_name = Some(v.to_string());
            } else if let Some(v) = value("--peer.adr=") {
                o.peer = Some(v.to_string());
            } else if value("--peer.uri=").is_some() {
                return Err(Error::Unsupported {
                    feature: "--peer.uri".into(),
                    reason: "regionkv has no clusters; give the destination's data directory \
                             with --peer.adr=DIR"
                        .into(),
                });
            } else if let Some(v) = value("--families=") {
                o.families = v
                    .split(',')
                    .filter(|f| !f.is_empty())
                    .map(|f| match f.split_once(':') {
                        Some((src, dst)) => (src.as_bytes().to_vec(), dst.as_bytes().to_vec()),
                        None => (f.as_bytes().to_vec(), f.as_bytes().to_vec()),
                    })
                    .collect();
            } else if cmd.starts_with("--all.cells") {
                o.all_cells = true;
            } else if cmd.starts_with("--bulkload") {
                return Err(Error::NotAvailableYet {
                    feature: "--bulkload".into(),
                    reason: "CopyTable writes through the destination's write path; leave the \
                             flag out (or export and import, which bulk-loads)"
                        .into(),
                });
            } else if cmd.starts_with("--snapshot") {
                return Err(Error::NotAvailableYet {
                    feature: "--snapshot".into(),
                    reason: "snapshots are not built yet".into(),
                });
            } else if cmd.starts_with("--shuffle") {
                // Shuffles map tasks; one process has none.
            } else if i == args.len() - 1 {
                table = Some(cmd.clone());
            } else {
                return Err(Error::usage(format!("Invalid argument '{cmd}'")));
            }
        }
        if o.new_name.is_none() && o.peer.is_none() {
            return Err(Error::usage(
                "At least a new table name or a peer address must be specified",
            ));
        }
        if o.end_time != 0 && o.start_time > o.end_time {
            return Err(Error::usage(format!(
                "Invalid time range filter: starttime={} >  endtime={}",
                o.start_time, o.end_time
            )));
        }
        o.table = table.ok_or_else(|| Error::usage("Wrong number of arguments: 0"))?;
        Ok(CopyTableRequest::Run(o))
    }

    /// The destination table's name.
    pub fn destination(&self) -> &str {
        self.new_name.as_deref().unwrap_or(&self.table)
    }

    fn scan(&self) -> Result<Scan> {
        // CopyTable's `scan.setCacheBlocks(false)`: a copy reads each block once.
        let mut scan = Scan::new()
            .batch(self.batch)
            .caching(self.cache_row)
            .raw(self.all_cells)
            .cache_blocks(false);
        if self.start_time != 0 || self.end_time != i64::MAX {
            scan = scan.time_range(
                TimeRange::between(self.start_time, self.end_time)
                    .map_err(|e| Error::usage(format!("Invalid time range filter: {e}")))?,
            );
        }
        if let Some(v) = self.versions {
            scan = scan.max_versions(v.max(1));
        }
        if let Some(r) = &self.start_row {
            scan = scan.start_row(r);
        }
        if let Some(r) = &self.stop_row {
            scan = scan.stop_row(r);
        }
        for (src, _) in &self.families {
            scan = scan.add_family(src);
        }
        Ok(scan)
    }
}

/// What a copy wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CopyTableReport {
    /// Rows read.
    pub rows: u64,
    /// Cells written (puts and delete markers).
    pub cells: u64,
    /// Delete markers among them.
    pub delete_markers: u64,
    /// From the scan's start to the last write acknowledged.
    pub elapsed: Duration,
}

/// One copy.
#[derive(Debug)]
pub struct CopyTable<'a> {
    source: &'a Db,
    destination: &'a Db,
    options: CopyTableOptions,
    progress: Arc<Progress>,
}

impl<'a> CopyTable<'a> {
    /// A copy from `source` to `destination` (the same Db, or a peer's).
    pub fn new(source: &'a Db, destination: &'a Db, options: CopyTableOptions) -> Self {
        Self {
            source,
            destination,
            options,
            progress: Arc::new(Progress::default()),
        }
    }

    /// The live figures.
    pub fn progress(&self) -> Arc<Progress> {
        self.progress.clone()
    }

    /// Copies.
    pub fn run(&self) -> Result<CopyTableReport> {
        let o = &self.options;
        let src = open_table(self.source, &o.table)?;
        let sources: Vec<Vec<u8>> = o.families.iter().map(|(s, _)| s.clone()).collect();
        selected_families(&src.descriptor(), &sources)?;
        let dst = open_table(self.destination, o.destination())?;
        let rename = |f: &[u8]| -> Vec<u8> {
            o.families
                .iter()
                .find(|(s, _)| s == f)
                .map_or_else(|| f.to_vec(), |(_, d)| d.clone())
        };
        let dst_descriptor = dst.descriptor();
        let wanted: Vec<Vec<u8>> = if o.families.is_empty() {
            src.descriptor()
                .families
                .iter()
                .map(|f| f.name.clone())
                .collect()
        } else {
            o.families.iter().map(|(_, d)| d.clone()).collect()
        };
        let missing: Vec<String> = wanted
            .iter()
            .filter(|f| dst_descriptor.family(f).is_none())
            .map(|f| String::from_utf8_lossy(f).into_owned())
            .collect();
        if !missing.is_empty() {
            return Err(Error::NoSuchColumnFamilies { families: missing });
        }

        let started = Instant::now();
        let mutator = dst.buffered_mutator();
        let (mut rows, mut cells, mut markers) = (0u64, 0u64, 0u64);
        let mut last_row: Vec<u8> = Vec::new();
        for result in src.scan(&o.scan()?)? {
            let result = result?;
            let new_row = rows == 0 || result.row() != last_row.as_slice();
            if new_row {
                rows += 1;
                last_row.clear();
                last_row.extend_from_slice(result.row());
            }
            // Import.Importer.processKV: puts into one Put, markers into one Delete.
            let mut put = Put::new(result.row());
            let mut delete = Delete::new(result.row());
            let (mut puts, mut deletes) = (0u64, 0u64);
            for c in result.cells() {
                let family = rename(c.family());
                let (q, ts) = (c.qualifier(), c.timestamp());
                match c.cell_type() {
                    CellType::Put => {
                        put = put.add_column_at(&family, q, ts, c.value());
                        puts += 1;
                    }
                    CellType::Delete => {
                        delete = delete.add_column_at(&family, q, ts);
                        deletes += 1;
                    }
                    CellType::DeleteColumn => {
                        delete = delete.add_columns_at(&family, q, ts);
                        deletes += 1;
                    }
                    CellType::DeleteFamily => {
                        delete = delete.add_family_at(&family, ts);
                        deletes += 1;
                    }
                    CellType::DeleteFamilyVersion => {
                        delete = delete.add_family_version(&family, ts);
                        deletes += 1;
                    }
                    // Seek-only types never come out of a scan.
                    CellType::Minimum | CellType::Maximum => {}
                }
            }
            if puts > 0 {
                mutator.mutate(put)?;
            }
            if deletes > 0 {
                mutator.mutate(delete)?;
            }
            cells += puts + deletes;
            markers += deletes;
            self.progress.add(u64::from(new_row), puts + deletes, 0);
        }
        mutator.flush()?;
        Ok(CopyTableReport {
            rows,
            cells,
            delete_markers: markers,
            elapsed: started.elapsed(),
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn parse(s: &str) -> Result<CopyTableRequest> {
        let args: Vec<String> = s.split_whitespace().map(String::from).collect();
        CopyTableOptions::parse(&args)
    }

    #[test]
    fn hbase_command_lines() {
        let CopyTableRequest::Run(o) = parse(
            "--starttime=10 --endtime=20 --versions=3 --families=a:b,c --all.cells --startrow=r\\x00 --stoprow=z --new.name=T2 T",
        )
        .unwrap() else {
            panic!()
        };
        assert_eq!(o.table, "T");
        assert_eq!(o.destination(), "T2");
        assert_eq!((o.start_time, o.end_time, o.versions), (10, 20, Some(3)));
        assert_eq!(
            o.families,
            [
                (b"a".to_vec(), b"b".to_vec()),
                (b"c".to_vec(), b"c".to_vec())
            ]
        );
        assert!(o.all_cells);
        assert_eq!(o.start_row, Some(b"r\0".to_vec()));
        assert_eq!(parse("").unwrap(), CopyTableRequest::Help);
        assert_eq!(parse("--help").unwrap(), CopyTableRequest::Help);
    }

    #[test]
    fn hbase_messages() {
        let msg = |s: &str| parse(s).unwrap_err().to_string();
        assert_eq!(
            msg("T"),
            "At least a new table name or a peer address must be specified"
        );
        assert_eq!(
            msg("--starttime=20 --endtime=10 --new.name=x T"),
            "Invalid time range filter: starttime=20 >  endtime=10"
        );
        assert_eq!(msg("--new.name=x stray T"), "Invalid argument 'stray'");
        assert!(msg("--bulkload --new.name=x T").contains("not available yet"));
        assert!(msg("--peer.uri=hbase+zk://h --new.name=x T").contains("--peer.adr"));
    }
}
