//! HBase's `ImportTsv` over a regionkv Db: lines of delimiter-separated text become puts,
//! one per line, written through the table's normal write path (its WAL and durability,
//! SYNC_WAL by default) with a `BufferedMutator`, as HBase's tool does without
//! `importtsv.bulk.output`.
//!
//! The job, as HBase runs it (`ImportTsv.createSubmittableJob` and `TsvImporterMapper`):
//!
//! 1. the options are checked ([`ImportTsvOptions::from_properties`], HBase's messages);
//! 2. the table must exist ("Table 't' does not exist."), unless `create.table=yes` asks
//!    regionkv to create it with the families the columns name (or `column.families`);
//! 3. every family the columns name must be in the table ("Column families: [x] do not
//!    exist."), unless `no.strict=true`;
//! 4. each line is split and mapped (the rules are in `parser.rs`); a bad line is reported on
//!    the observer and counted ("Bad Lines"), or ends the import under
//!    `importtsv.skip.bad.lines=false` after every earlier good line is written;
//! 5. at the end, the counters ([`Counters`]) in Hadoop's layout.
//!
//! Two threads share the work: this one reads and maps lines, a writer thread puts them
//! through the mutator, with a bounded queue of batches between them, so memory stays
//! bounded (a few MiB of queued puts plus the mutator's buffer) whatever the input's size.
//! Each line is one put and each put one atomic row write, so an import killed at any point
//! leaves rows that are each complete or absent.
//!
//! What differs from HBase is listed in docs/tools.md ("What differs from HBase").

mod counters;
mod input;
mod options;
mod parser;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, SyncSender};
use std::time::{Duration, Instant};

use regionkv::{
    BufferedMutator, ColumnFamilyDescriptor, Db, FamilyCells, Put, Table, TableDescriptor,
};

pub use counters::Counters;
pub use input::Input;
pub use options::*;
pub use parser::{
    ATTRIBUTES_COLUMN_SPEC, CELL_TTL_COLUMN_SPEC, CELL_VISIBILITY_COLUMN_SPEC, ROWKEY_COLUMN_SPEC,
    TIMESTAMPKEY_COLUMN_SPEC,
};

use crate::error::{Error, Result};
use crate::export_hfiles::{ExportHFilesOptions, HFileSet};
use crate::sort::{CellSorter, Parts};
use input::{InputFile, LineReader};

/// Puts per batch handed to the writer thread.
const BATCH_PUTS: usize = 1024;
/// Bytes (row, families, qualifiers, values) per batch handed to the writer thread.
const BATCH_BYTES: usize = 512 << 10;
/// Batches queued for each writer thread: with [`BATCH_BYTES`], at most 2 MiB a writer.
const QUEUE_BATCHES: usize = 4;

/// A bad line, as HBase's mapper reports it on standard error.
#[derive(Debug, Clone, Copy)]
pub struct BadLine<'a> {
    /// The input it is in (`-` for standard input).
    pub input: &'a str,
    /// Whether the import reads more than one input (then the report names it).
    pub several_inputs: bool,
    /// Byte offset of the line in its input (after gzip decoding).
    pub offset: u64,
    /// HBase's reason.
    pub reason: &'a str,
    /// The line itself, under `importtsv.log.bad.lines=true` (at most the longest-line
    /// limit of it).
    pub line: Option<&'a [u8]>,
}

impl BadLine<'_> {
    /// HBase's text: the line (when logged), then `Bad line at offset: N:` and the reason
    /// on the next line. With several inputs the offset is followed by `of INPUT`.
    ///
    /// ```
    /// use regionkv_tools::import_tsv::BadLine;
    ///
    /// let bad = BadLine { input: "a.tsv", several_inputs: false, offset: 12, reason: "No delimiter", line: Some(b"oops") };
    /// assert_eq!(bad.render(), b"oops\nBad line at offset: 12:\nNo delimiter\n");
    /// let bad = BadLine { several_inputs: true, line: None, ..bad };
    /// assert_eq!(bad.render(), b"Bad line at offset: 12 of a.tsv:\nNo delimiter\n");
    /// ```
    pub fn render(&self) -> Vec<u8> {
        let mut out = Vec::new();
        if let Some(line) = self.line {
            out.extend_from_slice(line);
            out.push(b'\n');
        }
        let place = if self.several_inputs {
            format!("{} of {}", self.offset, self.input)
        } else {
            self.offset.to_string()
        };
        out.extend_from_slice(
            format!("Bad line at offset: {place}:\n{}\n", self.reason).as_bytes(),
        );
        out
    }
}

/// The figures of a running import, kept current as it reads, for a progress display
/// that polls them from another thread (a blocked read of a slow pipe or terminal does not
/// stop the display). Each figure is exact when read; the three are not one snapshot.
#[derive(Debug, Default)]
pub struct Progress {
    bytes_read: Arc<AtomicU64>,
    lines: AtomicU64,
    rows: AtomicU64,
}

impl Progress {
    /// Bytes read from the inputs, as stored (compressed for gzip).
    pub fn bytes_read(&self) -> u64 {
        self.bytes_read.load(Ordering::Relaxed)
    }
    /// Lines read, good and bad.
    pub fn lines(&self) -> u64 {
        self.lines.load(Ordering::Relaxed)
    }
    /// Puts made (good lines).
    pub fn rows(&self) -> u64 {
        self.rows.load(Ordering::Relaxed)
    }
}

/// What an import tells its caller while it runs: when reading starts (with the figures to
/// poll for a progress bar), bad lines and notes for standard error. The library prints
/// nothing itself.
pub trait Observer {
    /// The import starts reading; `total_bytes` is the inputs' stored size when every
    /// input's size is known (not for standard input); `progress` stays current until the
    /// import returns.
    fn started(&mut self, total_bytes: Option<u64>, progress: Arc<Progress>) {
        let _ = (total_bytes, progress);
    }
    /// A bad line (skipped, or the one that ends the import).
    fn bad_line(&mut self, bad: &BadLine<'_>);
    /// Something worth a line on standard error: an ignored option, a table created.
    fn note(&mut self, text: &str);
}

/// Prints bad lines and notes on standard error, as HBase's tool does; no progress.
#[derive(Debug, Default, Clone, Copy)]
pub struct StderrObserver;

impl Observer for StderrObserver {
    fn bad_line(&mut self, bad: &BadLine<'_>) {
        use std::io::Write;
        // Standard error is where the user looks; a failure to print there has nowhere
        // better to go.
        let _ = std::io::stderr().lock().write_all(&bad.render());
    }
    fn note(&mut self, text: &str) {
        eprintln!("{text}");
    }
}

/// Says nothing (tests, library callers that read the report only).
#[derive(Debug, Default, Clone, Copy)]
pub struct QuietObserver;

impl Observer for QuietObserver {
    fn bad_line(&mut self, _: &BadLine<'_>) {}
    fn note(&mut self, _: &str) {}
}

/// How an import went.
#[derive(Debug)]
pub struct JobReport {
    /// The counters (also when the import failed part way).
    pub counters: Counters,
    /// Cells in the puts made.
    pub cells: u64,
    /// Files read (a directory counts its files).
    pub inputs: usize,
    /// From the first byte read to the last put written.
    pub elapsed: Duration,
    /// The timestamp of cells without `HBASE_TS_KEY`.
    pub timestamp: i64,
    /// Whether `create.table=yes` created the table.
    pub table_created: bool,
    /// Whether this was a dry run (nothing written).
    pub dry_run: bool,
    /// What the bulk modes loaded or wrote (`None` on the write-ahead-log path, in a dry
    /// run, and when the import failed: the bulk modes then write nothing).
    pub bulk: Option<BulkReport>,
    /// Why the import stopped early: a bad line under `importtsv.skip.bad.lines=false`, an
    /// input that could not be read, a write the engine refused. `None`: every line was
    /// read and every good one written.
    pub failure: Option<Error>,
}

/// What a bulk-mode import loaded (`--no-wal`) or wrote (`importtsv.bulk.output`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BulkReport {
    /// Sort runs spilled to disk (0: the cells fit in the sort buffer).
    pub spills: u64,
    /// Cells loaded or written (a later line's cell replaces an earlier one's with the
    /// same row, column and timestamp).
    pub cells: u64,
    /// Storefiles loaded, or HFiles written.
    pub files: u64,
    /// Their bytes.
    pub bytes: u64,
    /// Regions that received files, or the table's regions (bulk output).
    pub regions: u64,
    /// The HFile directory (bulk output).
    pub output: Option<std::path::PathBuf>,
}

/// One import: a Db, a table and the options.
#[derive(Debug)]
pub struct ImportTsv<'a> {
    db: &'a Db,
    table: String,
    options: ImportTsvOptions,
}

/// Why the reading loop stopped early.
enum Stop {
    Failed(Error),
    /// The writer thread ended (it failed; its error is the one to report).
    WriterGone,
}

/// Lines read through one import, shared by the inputs.
struct Reading<'o> {
    observer: &'o mut dyn Observer,
    progress: Arc<Progress>,
    counters: Counters,
    cells: u64,
    line: Vec<u8>,
    ends: Vec<usize>,
    /// The writers' queues (`None` in a dry run and in the bulk modes).
    lanes: Option<Lanes>,
    /// The bulk modes' sorter (`--no-wal`, `importtsv.bulk.output`).
    sorter: Option<CellSorter>,
}

/// The writer threads' queues and the batch being filled for each. A row always goes to
/// the same writer (by a hash of the row), and each writer applies its puts in queue
/// order, so two lines of the same row are written in input order, as one HBase mapper
/// writes them.
struct Lanes {
    senders: Vec<SyncSender<Vec<Put>>>,
    batches: Vec<Vec<Put>>,
    bytes: Vec<usize>,
}

impl Lanes {
    /// The writer of `row`: FNV-1a, cheap and well spread over row keys.
    fn lane(&self, row: &[u8]) -> usize {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for &b in row {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
        (h % self.senders.len() as u64) as usize
    }

    fn push(&mut self, put: Put, bytes: usize) -> std::result::Result<(), Stop> {
        let lane = self.lane(put.row());
        self.batches[lane].push(put);
        self.bytes[lane] += bytes;
        if self.batches[lane].len() >= BATCH_PUTS || self.bytes[lane] >= BATCH_BYTES {
            self.send(lane)?;
        }
        Ok(())
    }

    /// Hands `lane`'s batch to its writer.
    fn send(&mut self, lane: usize) -> std::result::Result<(), Stop> {
        if self.batches[lane].is_empty() {
            return Ok(());
        }
        let batch = std::mem::replace(&mut self.batches[lane], Vec::with_capacity(BATCH_PUTS));
        self.bytes[lane] = 0;
        self.senders[lane].send(batch).map_err(|_| Stop::WriterGone)
    }

    /// Hands every partial batch to its writer.
    fn send_all(&mut self) -> std::result::Result<(), Stop> {
        (0..self.senders.len()).try_for_each(|lane| self.send(lane))
    }
}

impl<'a> ImportTsv<'a> {
    /// An import of `table` (HBase's table name, `ns:name` or `name`) in `db`.
    pub fn new(db: &'a Db, table: &str, options: ImportTsvOptions) -> Self {
        Self {
            db,
            table: table.to_string(),
            options,
        }
    }

    /// Checks the table and its families, creates it if asked, then reads `inputs` in order
    /// and writes a put per good line. `Err` is a failure before the first line is read
    /// (the table, the families, an input path); a failure after that is the report's
    /// `failure`, with the counters up to it.
    pub fn run(&self, inputs: &[Input], observer: &mut dyn Observer) -> Result<JobReport> {
        let o = &self.options;
        for note in &o.notes {
            observer.note(note);
        }
        let name = regionkv::db::canonical_table_name(&self.table)?;
        let admin = self.db.admin();
        let exists = admin.table_exists(&name)?;
        let wanted = o.families();
        let table_families: Vec<String> = if exists {
            if o.column_families.is_some() {
                observer.note(&format!(
                    "-D{COLUMN_FAMILIES_CONF_KEY} is ignored: table '{name}' exists"
                ));
            }
            admin
                .describe(&name)?
                .families
                .iter()
                .map(|f| String::from_utf8_lossy(&f.name).into_owned())
                .collect()
        } else if o.create_table {
            o.column_families.clone().unwrap_or_else(|| wanted.clone())
        } else {
            return Err(Error::TableNotFound { table: name });
        };
        if !o.no_strict {
            let missing: Vec<String> = wanted
                .iter()
                .filter(|f| !table_families.contains(f))
                .cloned()
                .collect();
            if !missing.is_empty() {
                return Err(Error::NoSuchColumnFamilies { families: missing });
            }
        }
        let files = input::expand(inputs)?;
        // Hadoop checks the output directory when the job is submitted, before any input.
        if let Some(out) = o.bulk_output.as_ref().filter(|_| !o.dry_run)
            && std::fs::read_dir(out).is_ok_and(|mut d| d.next().is_some())
        {
            return Err(Error::OutputExists { path: out.clone() });
        }

        let mut table_created = false;
        if !exists {
            if o.dry_run {
                observer.note(&format!(
                    "Dry run: table '{name}' does not exist and is not created; nothing is written."
                ));
            } else {
                // HBase's words (ImportTsv.createTable).
                observer.note(&format!(
                    "Creating table '{name}' with '[{}]' columns and default descriptors.",
                    table_families.join(", ")
                ));
                let families = table_families
                    .iter()
                    .map(|f| ColumnFamilyDescriptor::new(f.as_bytes()))
                    .collect::<std::result::Result<Vec<_>, _>>()
                    .map_err(regionkv::Error::from)?;
                let desc = TableDescriptor::new(&name, families).map_err(regionkv::Error::from)?;
                admin.create_table(&desc)?;
                table_created = true;
            }
        }
        let table = if o.dry_run {
            None
        } else {
            Some(self.db.table(&name)?)
        };
        let timestamp = o.timestamp.unwrap_or_else(|| self.db.clock().now_millis());
        // The bulk modes sort every cell, then load or write them at the end.
        let bulk = !o.dry_run && (o.bulk_load || o.bulk_output.is_some());

        let total_bytes = files.iter().map(|f| f.size).sum::<Option<u64>>();
        let started = Instant::now();
        let progress = Arc::new(Progress::default());
        observer.started(total_bytes, progress.clone());
        let mut reading = Reading {
            observer,
            progress,
            counters: Counters::default(),
            cells: 0,
            line: Vec::new(),
            ends: Vec::new(),
            lanes: None,
            sorter: bulk.then(|| CellSorter::new(&o.sort_dir, o.sort_buffer)),
        };
        let (read_stop, write_result) = std::thread::scope(|scope| {
            let mut writers = Vec::new();
            if let Some(t) = table.as_ref().filter(|_| !bulk) {
                let mut lanes = Lanes {
                    senders: Vec::new(),
                    batches: Vec::new(),
                    bytes: Vec::new(),
                };
                for _ in 0..o.writer_threads {
                    let (tx, rx) = std::sync::mpsc::sync_channel(QUEUE_BATCHES);
                    let (t, buffer) = (t.clone(), o.write_buffer);
                    writers.push(scope.spawn(move || write_all(t, buffer, rx)));
                    lanes.senders.push(tx);
                    lanes.batches.push(Vec::with_capacity(BATCH_PUTS));
                    lanes.bytes.push(0);
                }
                reading.lanes = Some(lanes);
            }
            let stop = self.read_all(&files, timestamp, &mut reading);
            // Closing the queues tells the writers that nothing more comes.
            reading.lanes = None;
            let mut written = Ok(());
            for w in writers {
                let r = match w.join() {
                    Ok(r) => r,
                    // A panic in a writer is a bug; let it surface as one.
                    Err(panic) => std::panic::resume_unwind(panic),
                };
                if written.is_ok() {
                    written = r;
                }
            }
            (stop, written)
        });
        let Reading {
            progress,
            mut counters,
            cells,
            sorter,
            ..
        } = reading;
        counters.bytes_read = progress.bytes_read();
        // A write failure happened first (its put came from an earlier line), so it wins.
        let mut failure = match (write_result, read_stop) {
            (Err(e), _) => Some(Error::Db(e)),
            (_, Err(Stop::Failed(e))) => Some(e),
            _ => None,
        };
        // The bulk modes write nothing unless every line was read: all or nothing.
        let mut bulk_report = None;
        if let (Some(sorter), None) = (sorter, &failure) {
            match self.finish_bulk(&name, sorter) {
                Ok(r) => bulk_report = Some(r),
                Err(e) => failure = Some(e),
            }
        }
        Ok(JobReport {
            counters,
            cells,
            inputs: files.len(),
            elapsed: started.elapsed(),
            timestamp,
            table_created,
            dry_run: o.dry_run,
            bulk: bulk_report,
            failure,
        })
    }

    /// Loads (`--no-wal`) or writes as HFiles (`importtsv.bulk.output`) the sorted cells.
    fn finish_bulk(&self, table: &str, sorter: CellSorter) -> Result<BulkReport> {
        let spills = sorter.spills();
        let sorted = sorter.finish()?;
        let families = sorted.families();
        if let Some(out) = &self.options.bulk_output {
            let admin = self.db.admin();
            let desc = admin.describe(table)?;
            let mut set = HFileSet::create(
                out,
                &desc,
                admin.splits(table)?,
                ExportHFilesOptions::default(),
                self.db.clock().now_millis(),
                "regionkv importtsv",
            )?;
            for f in &families {
                for c in sorted.cells(f)? {
                    set.append(&c?)?;
                }
            }
            let r = set.commit()?;
            return Ok(BulkReport {
                spills,
                cells: r.cells,
                files: r.files.len() as u64,
                bytes: r.bytes,
                regions: r.regions,
                output: Some(out.clone()),
            });
        }
        let mut input = Vec::new();
        for f in &families {
            input.push(FamilyCells::fallible(f.clone(), sorted.cells(f)?));
        }
        let loaded = self
            .db
            .admin()
            .bulk_load(table, input)
            .map_err(|e| match e {
                regionkv::Error::BulkLoadSource { cause } => match cause.downcast_ref::<Error>() {
                    Some(Error::RunFile {
                        path,
                        offset,
                        reason,
                    }) => Error::RunFile {
                        path: path.clone(),
                        offset: *offset,
                        reason: reason.clone(),
                    },
                    _ => Error::Db(regionkv::Error::BulkLoadSource { cause }),
                },
                e => Error::Db(e),
            })?;
        Ok(BulkReport {
            spills,
            cells: loaded.cells,
            files: loaded.files,
            bytes: loaded.bytes,
            regions: loaded.regions,
            output: None,
        })
    }

    /// Reads every input in order; stops at the first failure.
    fn read_all(
        &self,
        files: &[InputFile],
        timestamp: i64,
        r: &mut Reading<'_>,
    ) -> std::result::Result<(), Stop> {
        for file in files {
            let reader = input::open(file, r.progress.bytes_read.clone()).map_err(|source| {
                Stop::Failed(Error::Input {
                    input: file.name.clone(),
                    source,
                })
            })?;
            self.read_one(file, files.len() > 1, LineReader::new(reader), timestamp, r)?;
        }
        r.lanes.as_mut().map_or(Ok(()), Lanes::send_all)
    }

    /// Reads one input's lines.
    fn read_one(
        &self,
        file: &InputFile,
        several_inputs: bool,
        mut lines: LineReader<Box<dyn std::io::BufRead>>,
        timestamp: i64,
        r: &mut Reading<'_>,
    ) -> std::result::Result<(), Stop> {
        let o = &self.options;
        loop {
            let info = match lines.next_line(&mut r.line, o.max_line_length) {
                Ok(Some(info)) => info,
                Ok(None) => return Ok(()),
                Err(source) => {
                    return Err(Stop::Failed(Error::Input {
                        input: file.name.clone(),
                        source,
                    }));
                }
            };
            r.counters.input_records += 1;
            r.progress
                .lines
                .store(r.counters.input_records, Ordering::Relaxed);
            let mapped = if info.len > o.max_line_length {
                Err(format!(
                    "Line too long: {} bytes (-D{MAX_LINE_LENGTH_CONF_KEY}={})",
                    info.len, o.max_line_length
                ))
            } else {
                o.parser
                    .split(&r.line, &mut r.ends)
                    .map_err(String::from)
                    .and_then(|()| {
                        o.parser
                            .map(&r.line, &r.ends, timestamp, o.skip_empty_columns)
                    })
            };
            match mapped {
                Ok(m) => {
                    r.counters.output_records += 1;
                    r.progress
                        .rows
                        .store(r.counters.output_records, Ordering::Relaxed);
                    r.cells += m.cells;
                    if let Some(lanes) = &mut r.lanes {
                        lanes.push(m.to_put(), m.bytes)?;
                    } else if let Some(sorter) = &mut r.sorter {
                        // The cells `Put::to_cells` would make, straight into the sort
                        // buffer: the TTL as HBase's TTL tag, the line's timestamp.
                        let tags = regionkv::cell::tag::with_ttl(&[], m.ttl);
                        for (family, qualifier, value) in m.columns() {
                            let parts = Parts {
                                row: m.row,
                                family,
                                qualifier,
                                timestamp: m.timestamp,
                                value,
                                tags: &tags,
                            };
                            sorter.add(&parts).map_err(Stop::Failed)?;
                        }
                    }
                }
                Err(reason) => {
                    r.observer.bad_line(&BadLine {
                        input: &file.name,
                        several_inputs,
                        offset: info.offset,
                        reason: &reason,
                        line: o.log_bad_lines.then_some(&r.line[..]),
                    });
                    if o.skip_bad_lines {
                        r.counters.bad_lines += 1;
                    } else {
                        // Everything before the bad line is written before the import ends.
                        if let Some(lanes) = &mut r.lanes {
                            lanes.send_all()?;
                        }
                        return Err(Stop::Failed(Error::BadLine {
                            input: file.name.clone(),
                            offset: info.offset,
                            reason,
                        }));
                    }
                }
            }
        }
    }
}

/// A writer thread: every put of its queue through its BufferedMutator, then a final
/// flush. Returning early (a failed write) closes its queue, which stops the reader.
fn write_all(table: Table, buffer: usize, rx: Receiver<Vec<Put>>) -> regionkv::Result<()> {
    let mutator = BufferedMutator::new(table, buffer);
    for batch in rx {
        for put in batch {
            mutator.mutate(put)?;
        }
    }
    mutator.flush()
}

/// The usage text, HBase's `ImportTsv.usage` adapted to regionkv's command line.
pub fn usage() -> String {
    format!(
        "Usage: regionkv importtsv [--data DIR] -D{COLUMNS_CONF_KEY}=a,b,c [-Dkey=value ...] \
<tablename> <inputdir|file|-> ...

Imports the given input directory, files or standard input (-) of TSV data into the
specified table, through its write-ahead log. Files ending in .gz (or starting with gzip's
magic bytes) are decompressed; a directory stands for its files in name order.

The column names of the TSV data must be specified using the -D{COLUMNS_CONF_KEY}
option. This option takes the form of comma-separated column names, where each
column name is either a simple column family, or a columnfamily:qualifier. The special
column name {ROWKEY_COLUMN_SPEC} is used to designate that this column should be used
as the row key for each imported record. You must specify exactly one column
to be the row key, and you must specify a column name for every column that exists in the
input data. Another special column {TIMESTAMPKEY_COLUMN_SPEC} designates that this column should be
used as timestamp for each record. Unlike {ROWKEY_COLUMN_SPEC}, {TIMESTAMPKEY_COLUMN_SPEC} is optional.
You must specify at most one column as timestamp key for each imported record.
Record with invalid timestamps (blank, non-numeric) will be treated as bad record.
Note: if you use this option, then '{TIMESTAMP_CONF_KEY}' option will be ignored.

Other special columns that can be specified are {CELL_TTL_COLUMN_SPEC} and {CELL_VISIBILITY_COLUMN_SPEC}.
{CELL_TTL_COLUMN_SPEC} designates that this column will be used as a Cell's Time To Live (TTL) attribute
(8 bytes, a big-endian long of milliseconds, as HBase reads it).
{CELL_VISIBILITY_COLUMN_SPEC} (visibility labels) is not supported by regionkv.

{ATTRIBUTES_COLUMN_SPEC} can be used to specify Operation Attributes per record.
 Should be specified as key=>value where => is used
 as the separator.  Note that more than one OperationAttributes can be specified
 (separated by ,). regionkv checks them and drops them: nothing reads them.

The target table must already exist in regionkv, unless -D{CREATE_TABLE_CONF_KEY}=yes is given.
Generating storefiles for a bulk load (-D{BULK_OUTPUT_CONF_KEY}=/path/for/output) is not
available yet.

Other options that may be specified with -D include:
  -D{DRY_RUN_CONF_KEY}=true - Dry run mode. Data is not actually populated into table. \
Nothing is written: a missing table is not created.
  -D{SKIP_LINES_CONF_KEY}=false - fail if encountering an invalid line
  -D{LOG_BAD_LINES_CONF_KEY}=true - logs invalid lines to stderr
  -D{SKIP_EMPTY_COLUMNS}=false - If true then skip empty columns in bulk import
  '-D{SEPARATOR_CONF_KEY}=|' - eg separate on pipes instead of tabs
  -D{TIMESTAMP_CONF_KEY}=currentTimeAsLong - use the specified timestamp for the import
  -D{CREATE_TABLE_CONF_KEY}=yes - create the table when it does not exist, with the families
  the columns name and default descriptors (default: no, the table must exist)
  -D{COLUMN_FAMILIES_CONF_KEY}=a,b - (regionkv) the families of a table {CREATE_TABLE_CONF_KEY} creates
  -D{NO_STRICT_COL_FAMILY}=true - ignore column family check in hbase table. Default is false
  -D{WRITE_BUFFER_CONF_KEY}=2097152 - the client write buffer in bytes
  -D{WRITER_THREADS_CONF_KEY}=N - (regionkv) threads writing puts (default: one per core, 1 to 4)
  -D{MAX_LINE_LENGTH_CONF_KEY}=67108864 - longer lines are bad lines

regionkv options:
  --data DIR   the data directory (default ./regionkv-data)
  --no-timing  leave the elapsed time and rates out of the summary line
"
    )
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use regionkv::{DbOptions, Get, ManualClock, Scan};

    struct Collect {
        bad: Vec<String>,
        notes: Vec<String>,
    }

    impl Observer for Collect {
        fn bad_line(&mut self, bad: &BadLine<'_>) {
            self.bad
                .push(String::from_utf8_lossy(&bad.render()).into_owned());
        }
        fn note(&mut self, text: &str) {
            self.notes.push(text.to_string());
        }
    }

    fn setup() -> (tempfile::TempDir, Db) {
        let dir = tempfile::tempdir().unwrap();
        let clock = ManualClock::new(1_000_000);
        let options = DbOptions::default()
            .background(false)
            .clock(Arc::new(clock));
        let db = Db::open(dir.path().join("db"), options).unwrap();
        (dir, db)
    }

    fn create(db: &Db, name: &str, families: &[&str]) {
        let fams = families
            .iter()
            .map(|f| ColumnFamilyDescriptor::new(f.as_bytes()).unwrap())
            .collect();
        db.admin()
            .create_table(&TableDescriptor::new(name, fams).unwrap())
            .unwrap();
    }

    fn run(
        db: &Db,
        dir: &tempfile::TempDir,
        props: &[(&str, &str)],
        data: &str,
    ) -> (Result<JobReport>, Collect) {
        let path = dir.path().join("in.tsv");
        std::fs::write(&path, data).unwrap();
        let mut c = Collect {
            bad: vec![],
            notes: vec![],
        };
        let r = ImportTsvOptions::from_properties(props.iter().copied())
            .and_then(|o| ImportTsv::new(db, "t", o).run(&[Input::Path(path)], &mut c));
        (r, c)
    }

    fn rows(db: &Db) -> Vec<String> {
        db.table("t")
            .unwrap()
            .scan(&Scan::new())
            .unwrap()
            .map(|r| {
                let r = r.unwrap();
                let cells: Vec<String> = r
                    .cells()
                    .iter()
                    .map(|c| {
                        format!(
                            "{}:{}@{}={}",
                            String::from_utf8_lossy(c.family()),
                            String::from_utf8_lossy(c.qualifier()),
                            c.timestamp(),
                            String::from_utf8_lossy(c.value())
                        )
                    })
                    .collect();
                format!("{} {}", String::from_utf8_lossy(r.row()), cells.join(" "))
            })
            .collect()
    }

    #[test]
    fn imports_good_lines_and_counts_bad_ones() {
        let (dir, db) = setup();
        create(&db, "t", &["d"]);
        let (r, c) = run(
            &db,
            &dir,
            &[("importtsv.columns", "HBASE_ROW_KEY,d:a,d:b")],
            "r1\t1\t2\nbad\nr2\tx\r\nr3\t1\t2\t3\n",
        );
        let r = r.unwrap();
        assert!(r.failure.is_none(), "{:?}", r.failure);
        assert_eq!(
            r.counters,
            Counters {
                input_records: 4,
                output_records: 2,
                bad_lines: 2,
                bytes_read: 26,
            }
        );
        assert_eq!(r.cells, 3);
        assert_eq!(r.timestamp, 1_000_000);
        assert_eq!(
            c.bad,
            [
                "Bad line at offset: 7:\nNo delimiter\n",
                "Bad line at offset: 17:\nExcessive columns\n"
            ]
        );
        assert_eq!(
            rows(&db),
            ["r1 d:a@1000000=1 d:b@1000000=2", "r2 d:a@1000000=x",]
        );
    }

    #[test]
    fn a_bad_line_fails_the_import_after_writing_what_came_before() {
        let (dir, db) = setup();
        create(&db, "t", &["d"]);
        let (r, c) = run(
            &db,
            &dir,
            &[
                ("importtsv.columns", "HBASE_ROW_KEY,d:a"),
                ("importtsv.skip.bad.lines", "false"),
                ("importtsv.log.bad.lines", "true"),
            ],
            "r1\t1\noops\nr2\t2\n",
        );
        let r = r.unwrap();
        let failure = r.failure.unwrap();
        assert!(
            matches!(&failure, Error::BadLine { offset: 5, reason, .. } if reason == "No delimiter"),
            "{failure}"
        );
        assert_eq!(r.counters.bad_lines, 0, "HBase counts only skipped lines");
        assert_eq!(r.counters.input_records, 2);
        assert_eq!(c.bad, ["oops\nBad line at offset: 5:\nNo delimiter\n"]);
        assert_eq!(rows(&db), ["r1 d:a@1000000=1"]);
    }

    #[test]
    fn table_and_family_checks_use_hbases_messages() {
        let (dir, db) = setup();
        let (r, _) = run(
            &db,
            &dir,
            &[("importtsv.columns", "HBASE_ROW_KEY,d:a")],
            "r\tv\n",
        );
        assert_eq!(r.unwrap_err().to_string(), "Table 't' does not exist.");
        create(&db, "t", &["d"]);
        let (r, _) = run(
            &db,
            &dir,
            &[("importtsv.columns", "HBASE_ROW_KEY,x:a,d:b,y,x:c")],
            "r\tv\n",
        );
        assert_eq!(
            r.unwrap_err().to_string(),
            "Column families: [x, y] do not exist."
        );
        // no.strict skips the check; the write of a missing family then fails the import.
        let (r, _) = run(
            &db,
            &dir,
            &[
                ("importtsv.columns", "HBASE_ROW_KEY,x:a"),
                ("no.strict", "true"),
            ],
            "r\tv\n",
        );
        let failure = r.unwrap().failure.unwrap();
        assert!(
            failure
                .to_string()
                .contains("Column family x does not exist"),
            "{failure}"
        );
        // no.strict with the families present imports normally.
        let (r, _) = run(
            &db,
            &dir,
            &[
                ("importtsv.columns", "HBASE_ROW_KEY,d:a"),
                ("no.strict", "true"),
            ],
            "r\tv\n",
        );
        assert!(r.unwrap().failure.is_none());
        assert_eq!(db.table("t").unwrap().get(&Get::new("r")).unwrap().len(), 1);
    }

    #[test]
    fn create_table_with_the_columns_families_or_column_families() {
        let (dir, db) = setup();
        let (r, c) = run(
            &db,
            &dir,
            &[
                ("importtsv.columns", "HBASE_ROW_KEY,b:x,a:y,b:z"),
                ("create.table", "yes"),
            ],
            "r\t1\t2\t3\n",
        );
        assert!(r.unwrap().table_created);
        assert_eq!(
            c.notes,
            ["Creating table 't' with '[b, a]' columns and default descriptors."]
        );
        let desc = db.admin().describe("t").unwrap();
        let names: Vec<&[u8]> = desc.families.iter().map(|f| &f.name[..]).collect();
        assert_eq!(names, [b"a", b"b"]);
        db.admin().disable_table("t").unwrap();
        db.admin().delete_table("t").unwrap();

        let (r, _) = run(
            &db,
            &dir,
            &[
                ("importtsv.columns", "HBASE_ROW_KEY,b:x"),
                ("create.table", "yes"),
                ("column.families", "b,c"),
            ],
            "r\t1\n",
        );
        assert!(r.unwrap().failure.is_none());
        assert_eq!(db.admin().describe("t").unwrap().families.len(), 2);
        db.admin().disable_table("t").unwrap();
        db.admin().delete_table("t").unwrap();
        // column.families without a family the columns name fails the family check.
        let (r, _) = run(
            &db,
            &dir,
            &[
                ("importtsv.columns", "HBASE_ROW_KEY,b:x"),
                ("create.table", "yes"),
                ("column.families", "c"),
            ],
            "r\t1\n",
        );
        assert_eq!(
            r.unwrap_err().to_string(),
            "Column families: [b] do not exist."
        );
        assert!(!db.admin().table_exists("t").unwrap());
    }

    #[test]
    fn dry_run_writes_nothing_and_creates_nothing() {
        let (dir, db) = setup();
        let (r, c) = run(
            &db,
            &dir,
            &[
                ("importtsv.columns", "HBASE_ROW_KEY,d:a"),
                ("importtsv.dry.run", "true"),
                ("create.table", "yes"),
            ],
            "r1\tv\nbad\n",
        );
        let r = r.unwrap();
        assert!(r.dry_run && !r.table_created);
        assert_eq!((r.counters.output_records, r.counters.bad_lines), (1, 1));
        assert!(c.notes[0].starts_with("Dry run"), "{:?}", c.notes);
        assert!(!db.admin().table_exists("t").unwrap());
        create(&db, "t", &["d"]);
        let (r, _) = run(
            &db,
            &dir,
            &[
                ("importtsv.columns", "HBASE_ROW_KEY,d:a"),
                ("importtsv.dry.run", "true"),
            ],
            "r1\tv\n",
        );
        assert_eq!(r.unwrap().counters.output_records, 1);
        assert!(rows(&db).is_empty());
    }

    #[test]
    fn timestamps_from_option_and_from_lines() {
        let (dir, db) = setup();
        let mut cf = ColumnFamilyDescriptor::new(b"d").unwrap();
        cf.max_versions = 5;
        db.admin()
            .create_table(&TableDescriptor::new("t", vec![cf]).unwrap())
            .unwrap();
        let (r, _) = run(
            &db,
            &dir,
            &[
                ("importtsv.columns", "HBASE_ROW_KEY,d:a"),
                ("importtsv.timestamp", "77"),
            ],
            "r\tv\n",
        );
        assert_eq!(r.unwrap().timestamp, 77);
        // HBASE_TS_KEY wins over importtsv.timestamp.
        let (r, c) = run(
            &db,
            &dir,
            &[
                ("importtsv.columns", "HBASE_ROW_KEY,HBASE_TS_KEY,d:a"),
                ("importtsv.timestamp", "77"),
            ],
            "s\t5\tx\ns\t9\ty\ns\tnope\tz\n",
        );
        assert_eq!(r.unwrap().counters.bad_lines, 1);
        assert_eq!(c.bad, ["Bad line at offset: 12:\nInvalid timestamp nope\n"]);
        assert_eq!(rows(&db), ["r d:a@77=v", "s d:a@9=y"]);
        let all = db
            .table("t")
            .unwrap()
            .get(&Get::new("s").all_versions())
            .unwrap();
        let ts: Vec<i64> = all.cells().iter().map(|c| c.timestamp()).collect();
        assert_eq!(ts, [9, 5]);
    }

    #[test]
    fn separator_and_skip_empty_columns() {
        let (dir, db) = setup();
        create(&db, "t", &["d"]);
        let (r, _) = run(
            &db,
            &dir,
            &[
                ("importtsv.columns", "HBASE_ROW_KEY,d:a,d:b"),
                ("importtsv.separator", "|"),
                ("importtsv.skip.empty.columns", "true"),
            ],
            "r1|x|\nr2||y\nr3\tz|w\n",
        );
        assert!(r.unwrap().failure.is_none());
        assert_eq!(
            rows(&db),
            [
                "r1 d:a@1000000=x",
                "r2 d:b@1000000=y",
                "r3\tz d:a@1000000=w"
            ]
        );
    }

    #[test]
    fn several_inputs_are_named_in_bad_line_reports() {
        let (dir, db) = setup();
        create(&db, "t", &["d"]);
        let a = dir.path().join("a.tsv");
        let b = dir.path().join("b.tsv");
        std::fs::write(&a, "r1\tv\n").unwrap();
        std::fs::write(&b, "oops\nr2\tv\n").unwrap();
        let o = ImportTsvOptions::from_properties([("importtsv.columns", "HBASE_ROW_KEY,d:a")])
            .unwrap();
        let mut c = Collect {
            bad: vec![],
            notes: vec![],
        };
        let r = ImportTsv::new(&db, "t", o)
            .run(&[Input::Path(a), Input::Path(b.clone())], &mut c)
            .unwrap();
        assert_eq!(r.inputs, 2);
        assert_eq!(
            c.bad,
            [format!(
                "Bad line at offset: 0 of {}:\nNo delimiter\n",
                b.display()
            )]
        );
        assert_eq!(rows(&db).len(), 2);
    }

    #[test]
    fn too_long_lines_are_bad_lines() {
        let (dir, db) = setup();
        create(&db, "t", &["d"]);
        let (r, c) = run(
            &db,
            &dir,
            &[
                ("importtsv.columns", "HBASE_ROW_KEY,d:a"),
                ("mapreduce.input.linerecordreader.line.maxlength", "8"),
            ],
            "r1\tshort\nr2\tmuch too long\n",
        );
        assert_eq!(r.unwrap().counters.bad_lines, 1);
        assert!(c.bad[0].contains("Line too long: 16 bytes"), "{:?}", c.bad);
    }

    #[test]
    fn lines_of_one_row_are_written_in_input_order_whatever_the_writer_count() {
        let (dir, db) = setup();
        create(&db, "t", &["d"]);
        // Same row, same timestamp: the put applied last wins, so order is visible.
        let mut data = String::new();
        for i in 0..3000 {
            data.push_str(&format!("r{}\t{i}\n", i % 7));
        }
        for writers in ["1", "3"] {
            let (r, _) = run(
                &db,
                &dir,
                &[
                    ("importtsv.columns", "HBASE_ROW_KEY,d:a"),
                    ("importtsv.timestamp", "5"),
                    ("importtsv.writer.threads", writers),
                    ("hbase.client.write.buffer", "100"),
                ],
                &data,
            );
            assert!(r.unwrap().failure.is_none());
            let got = rows(&db);
            let last = |k: usize| (0..3000).filter(|i| i % 7 == k).max().unwrap();
            let want: Vec<String> = (0..7).map(|k| format!("r{k} d:a@5={}", last(k))).collect();
            assert_eq!(got, want, "{writers} writers");
        }
    }

    #[test]
    fn cell_ttl_expires_the_cells() {
        let dir = tempfile::tempdir().unwrap();
        let clock = ManualClock::new(1_000_000);
        let options = DbOptions::default()
            .background(false)
            .clock(Arc::new(clock.clone()));
        let db = Db::open(dir.path().join("db"), options).unwrap();
        create(&db, "t", &["d"]);
        let mut data = b"short\tv\t".to_vec();
        data.extend_from_slice(&5000i64.to_be_bytes());
        data.extend_from_slice(b"\nlong\tv\t");
        data.extend_from_slice(&60_000i64.to_be_bytes());
        data.extend_from_slice(b"\nnone\tv\t");
        data.extend_from_slice(&0i64.to_be_bytes());
        data.push(b'\n');
        let path = dir.path().join("in.tsv");
        std::fs::write(&path, data).unwrap();
        let o = ImportTsvOptions::from_properties([(
            "importtsv.columns",
            "HBASE_ROW_KEY,d:a,HBASE_CELL_TTL",
        )])
        .unwrap();
        let r = ImportTsv::new(&db, "t", o)
            .run(&[Input::Path(path)], &mut QuietObserver)
            .unwrap();
        assert_eq!(r.counters.output_records, 3);
        let present = |db: &Db| -> Vec<String> {
            rows(db)
                .iter()
                .map(|r| r.split(' ').next().unwrap().to_string())
                .collect()
        };
        assert_eq!(present(&db), ["long", "none", "short"]);
        clock.advance(5001);
        assert_eq!(present(&db), ["long", "none"]);
        clock.advance(60_000);
        assert_eq!(present(&db), ["none"]);
    }

    #[test]
    fn usage_mentions_every_option() {
        let u = usage();
        for key in [
            COLUMNS_CONF_KEY,
            SEPARATOR_CONF_KEY,
            TIMESTAMP_CONF_KEY,
            SKIP_LINES_CONF_KEY,
            LOG_BAD_LINES_CONF_KEY,
            SKIP_EMPTY_COLUMNS,
            DRY_RUN_CONF_KEY,
            BULK_OUTPUT_CONF_KEY,
            CREATE_TABLE_CONF_KEY,
            NO_STRICT_COL_FAMILY,
            COLUMN_FAMILIES_CONF_KEY,
            WRITE_BUFFER_CONF_KEY,
            WRITER_THREADS_CONF_KEY,
            MAX_LINE_LENGTH_CONF_KEY,
            "--data",
            "--no-timing",
        ] {
            assert!(u.contains(key), "{key}");
        }
    }
}
