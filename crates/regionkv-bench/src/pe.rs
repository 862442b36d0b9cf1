//! `regionkv pe`: HBase's PerformanceEvaluation (`hbase pe`), run in-process.
//!
//! The commands, options, row keys (26 zero-padded digits), families (`info0`…),
//! qualifiers (`0`, `1`…), values (HBase's `generateData`: blocks of 8 equal capital
//! letters, so about half compressible), the split of rows across clients, the sampling
//! rule and the printed lines are PE's (HBase 2.x `PerformanceEvaluation.java`). Clients
//! are threads against one embedded engine (PE's `--nomapred`, which is accepted and
//! implied). Latency is measured per operation with hdrhistogram instead of PE's sampled
//! Yammer reservoir, so the percentiles are over every operation.

use crate::engine::{self, CellRef, Compression, Engine, EngineKind, TableSpec, ThenWrite};
use crate::stats::{Latency, LatencySummary, ProcessIo};
use crate::{Error, Result};
use rand::RngExt;
use rand::rngs::SmallRng;
use serde::Serialize;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// PE's row key length.
pub const ROW_LENGTH: usize = 26;
/// PE's default value size.
pub const DEFAULT_VALUE_LENGTH: usize = 1000;
/// PE's "GB": 1024 × 1024 × 1000 bytes.
pub const ONE_GB: u64 = 1024 * 1024 * 1000;
/// Rows per client by default (`ONE_GB / DEFAULT_VALUE_LENGTH`).
pub const DEFAULT_ROWS: u64 = ONE_GB / DEFAULT_VALUE_LENGTH as u64;

/// PE's commands that apply to an embedded engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum PeCommand {
    /// Puts rows `format(i)` in order.
    SequentialWrite,
    /// Puts random rows.
    RandomWrite,
    /// Gets rows `format(i)` in order.
    SequentialRead,
    /// Gets random rows.
    RandomRead,
    /// Scans up to 120 rows from a random row.
    RandomSeekScan,
    /// Scans a random range of 10 rows.
    ScanRange10,
    /// Scans a random range of 100 rows.
    ScanRange100,
    /// Scans a random range of 1000 rows.
    ScanRange1000,
    /// Scans a random range of 10000 rows.
    ScanRange10000,
    /// One scanner over the client's rows, one row per operation.
    Scan,
    /// Increments a counter per row.
    Increment,
    /// Appends to a cell per row.
    Append,
    /// Puts a row, then a check-and-put on it.
    CheckAndPut,
    /// Puts a row, then a check-and-mutate (a RowMutations of one put) on it.
    CheckAndMutate,
}

impl PeCommand {
    /// Every command with PE's name.
    pub const ALL: [(&'static str, PeCommand); 14] = [
        ("sequentialWrite", Self::SequentialWrite),
        ("randomWrite", Self::RandomWrite),
        ("sequentialRead", Self::SequentialRead),
        ("randomRead", Self::RandomRead),
        ("randomSeekScan", Self::RandomSeekScan),
        ("scanRange10", Self::ScanRange10),
        ("scanRange100", Self::ScanRange100),
        ("scanRange1000", Self::ScanRange1000),
        ("scanRange10000", Self::ScanRange10000),
        ("scan", Self::Scan),
        ("increment", Self::Increment),
        ("append", Self::Append),
        ("checkAndPut", Self::CheckAndPut),
        ("checkAndMutate", Self::CheckAndMutate),
    ];

    /// Parses PE's command name.
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.iter().find(|(n, _)| *n == s).map(|(_, c)| *c)
    }

    /// PE's command name.
    pub fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(_, c)| *c == self)
            .map_or("?", |(n, _)| n)
    }

    /// PE's test class name (`RandomReadTest` ...), printed in its summaries.
    pub fn class_name(self) -> &'static str {
        match self {
            Self::SequentialWrite => "SequentialWriteTest",
            Self::RandomWrite => "RandomWriteTest",
            Self::SequentialRead => "SequentialReadTest",
            Self::RandomRead => "RandomReadTest",
            Self::RandomSeekScan => "RandomSeekScanTest",
            Self::ScanRange10 => "RandomScanWithRange10Test",
            Self::ScanRange100 => "RandomScanWithRange100Test",
            Self::ScanRange1000 => "RandomScanWithRange1000Test",
            Self::ScanRange10000 => "RandomScanWithRange10000Test",
            Self::Scan => "ScanTest",
            Self::Increment => "IncrementTest",
            Self::Append => "AppendTest",
            Self::CheckAndPut => "CheckAndPutTest",
            Self::CheckAndMutate => "CheckAndMutateTest",
        }
    }

    /// PE's "read command" rule: the name contains "read" or "scan".
    pub fn is_read(self) -> bool {
        let n = self.name().to_ascii_lowercase();
        n.contains("read") || n.contains("scan")
    }

    fn is_write(self) -> bool {
        matches!(self, Self::SequentialWrite | Self::RandomWrite)
    }

    /// Increment, append and the check-and-* commands (PE's CASTableTest): every client
    /// works on rows `[0, rows)`, and the qualifier is the test's class name.
    fn is_cas(self) -> bool {
        matches!(
            self,
            Self::Increment | Self::Append | Self::CheckAndPut | Self::CheckAndMutate
        )
    }

    fn scan_range(self) -> Option<u64> {
        match self {
            Self::ScanRange10 => Some(10),
            Self::ScanRange100 => Some(100),
            Self::ScanRange1000 => Some(1000),
            Self::ScanRange10000 => Some(10000),
            _ => None,
        }
    }
}

/// PE's options (`TestOptions`), with regionkv's additions (`--engine`, `--data`,
/// `--seed`, `--sync`, `--json`).
#[derive(Debug, Clone, Serialize)]
pub struct PeOptions {
    /// `--rows`: rows per client (default 1048576).
    pub rows: u64,
    /// `--size`: total size in PE's GB (1024×1024×1000 bytes); overrides `--rows`.
    pub size: Option<f64>,
    /// `--valueSize` (default 1000).
    pub value_size: usize,
    /// `--valueRandom`: value sizes uniform in `[0, valueSize)`.
    pub value_random: bool,
    /// `--presplit`: regions to pre-split the table into.
    pub presplit: usize,
    /// `--autoFlush`: put each row at once (false: a BufferedMutator per client).
    pub auto_flush: bool,
    /// `--writeToWAL` (default true).
    pub write_to_wal: bool,
    /// `--compress`: NONE or LZ4.
    pub compress: String,
    /// `--bloomFilter`: NONE, ROW, ROWCOL.
    pub bloom_filter: String,
    /// `--blockEncoding`: NONE or PREFIX.
    pub block_encoding: String,
    /// `--inmemory`.
    pub in_memory: bool,
    /// `--families`.
    pub families: usize,
    /// `--columns`.
    pub columns: usize,
    /// `--sampleRate`: the fraction of rows run (every N-th row).
    pub sample_rate: f64,
    /// `--table` (default TestTable).
    pub table: String,
    /// `--startRow`.
    pub start_row: u64,
    /// `--measureAfter`: rows of each client not measured.
    pub measure_after: u64,
    /// `--caching`: rows a scan fetches at once (default 30).
    pub caching: usize,
    /// `--engine`.
    pub engine: EngineKind,
    /// `--data`: the data directory (kept between runs, so a read command can follow a
    /// write command, as with PE against a cluster).
    pub data: PathBuf,
    /// `--seed`: random seed (default: from the clock, as PE's).
    pub seed: u64,
    /// `--sync`: fsync the WAL on every write (HBase's FSYNC_WAL).
    pub sync: bool,
    /// `--json`: print one JSON report instead of PE's lines.
    pub json: bool,
    /// `--blockCache`: block cache bytes (default 32 MiB).
    pub block_cache: u64,
}

impl Default for PeOptions {
    fn default() -> Self {
        Self {
            rows: DEFAULT_ROWS,
            size: None,
            value_size: DEFAULT_VALUE_LENGTH,
            value_random: false,
            presplit: 0,
            auto_flush: false,
            write_to_wal: true,
            compress: "NONE".into(),
            bloom_filter: "ROW".into(),
            block_encoding: "NONE".into(),
            in_memory: false,
            families: 1,
            columns: 1,
            sample_rate: 1.0,
            table: "TestTable".into(),
            start_row: 0,
            measure_after: 0,
            caching: 30,
            engine: EngineKind::Regionkv,
            data: EngineKind::Regionkv.default_data_dir(),
            seed: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos() as u64),
            sync: false,
            json: false,
            block_cache: 32 << 20,
        }
    }
}

/// A parsed `pe` command line.
#[derive(Debug, Clone)]
pub struct PeArgs {
    /// The options.
    pub options: PeOptions,
    /// The command.
    pub command: PeCommand,
    /// Client threads (PE's nclients).
    pub clients: usize,
}

/// Java's `Boolean.parseBoolean`: "true" in any case is true, anything else false.
fn parse_bool(v: &str) -> bool {
    v.eq_ignore_ascii_case("true")
}

fn parse_num<T: std::str::FromStr>(name: &str, v: &str) -> Result<T> {
    v.trim()
        .parse()
        .map_err(|_| Error::Usage(format!("--{name}: '{v}' is not a valid number")))
}

/// PE's usage text, shortened to what regionkv runs.
pub fn usage() -> String {
    let mut s = String::from(
        "Usage: regionkv pe <OPTIONS> <command> <nclients>\n\n\
         Options (as HBase's PerformanceEvaluation; --opt=value):\n \
         nomapred        Run in-process threads (always; accepted for PE compatibility)\n \
         rows            Rows each client runs. Default: 1048576\n \
         size            Total size in GiB. Mutually exclusive with --rows. Default: 1.0\n \
         valueSize       Pass value size to use: Default: 1000\n \
         valueRandom     Set if we should vary value size between 0 and 'valueSize'\n \
         presplit        Create presplit table. Recommended for accurate perf analysis\n \
         autoFlush       Set autoFlush on htable. Default: False\n \
         writeToWAL      Set writeToWAL on puts. Default: True\n \
         compress        Compression type to use (NONE, LZ4). Default: 'NONE'\n \
         bloomFilter     Bloom filter type, one of [NONE, ROW, ROWCOL]. Default: ROW\n \
         blockEncoding   Block encoding to use (NONE, PREFIX). Default: NONE\n \
         inmemory        Tries to keep the HFiles of the CF inmemory as far as possible. Default: false\n \
         families        Specify number of column families for the table. Default: 1\n \
         columns         Columns to write per row. Default: 1\n \
         sampleRate      Execute test on a sample of total rows. Default: 1.0\n \
         table           Alternate table name. Default: 'TestTable'\n \
         startRow        Row to start at. Default: 0\n \
         measureAfter    Start measuring latency after this many rows of each client. Default: 0\n \
         caching         Scan caching to use. Default: 30\n\n\
         regionkv options:\n \
         engine          regionkv, rocksdb or fjall (peers need the `peers` feature). Default: regionkv\n \
         data            Data directory, kept between runs. Default: ./regionkv-data, the shell's\n                 \
         (TestTable sits beside your tables, as on an HBase cluster);\n                 \
         ./regionkv-data-rocksdb or ./regionkv-data-fjall for a peer engine\n \
         seed            Random seed. Default: from the clock\n \
         sync            fsync the WAL on every write (FSYNC_WAL). Default: false\n \
         blockCache      Block cache bytes. Default: 33554432\n \
         json            Print one JSON report instead of PE's log lines\n\n\
         ycsb's names are accepted too: fieldlength (valueSize), fieldcount or fields\n \
         (columns), block-cache (blockCache), block-encoding (blockEncoding).\n\n\
         Commands:\n",
    );
    for (n, _) in PeCommand::ALL {
        s.push_str(&format!(" {n}\n"));
    }
    s.push_str("\nArgs:\n nclients        Integer. Required. Total number of clients (threads)\n");
    s
}

impl PeArgs {
    /// Parses PE's command line: options (`--name=value` or `--flag`), then the command,
    /// then the client count. Unknown options are PE's "Unrecognized option/command".
    pub fn parse(args: &[String]) -> Result<Self> {
        let mut o = PeOptions::default();
        let mut rest = args.iter().peekable();
        let mut command = None;
        let mut data_given = false;
        for a in rest.by_ref() {
            if let Some(opt) = a.strip_prefix("--") {
                let (name, value) = match opt.split_once('=') {
                    Some((n, v)) => (n, Some(v.to_string())),
                    None => (opt, None),
                };
                let need = |v: Option<String>| -> Result<String> {
                    v.ok_or_else(|| Error::Usage(format!("--{name} needs a value: --{name}=...")))
                };
                match name {
                    "nomapred" => {}
                    // PE's flags; `--flag=false` turns one off rather than on.
                    "valueRandom" => o.value_random = value.is_none_or(|v| parse_bool(&v)),
                    "json" => o.json = value.is_none_or(|v| parse_bool(&v)),
                    "sync" => o.sync = value.is_none_or(|v| parse_bool(&v)),
                    "rows" => o.rows = parse_num(name, &need(value)?)?,
                    "size" => o.size = Some(parse_num(name, &need(value)?)?),
                    // YCSB's names for the same things (docs/benchmarks.md, "Option names").
                    "valueSize" | "fieldlength" | "field-length" => {
                        o.value_size = parse_num(name, &need(value)?)?;
                    }
                    "presplit" => o.presplit = parse_num(name, &need(value)?)?,
                    "autoFlush" => o.auto_flush = parse_bool(&need(value)?),
                    "writeToWAL" => o.write_to_wal = parse_bool(&need(value)?),
                    "compress" => o.compress = need(value)?.to_ascii_uppercase(),
                    "bloomFilter" => o.bloom_filter = need(value)?.to_ascii_uppercase(),
                    "blockEncoding" | "block-encoding" => {
                        o.block_encoding = need(value)?.to_ascii_uppercase();
                    }
                    "inmemory" => o.in_memory = parse_bool(&need(value)?),
                    "families" => o.families = parse_num(name, &need(value)?)?,
                    "columns" | "fieldcount" | "fields" => {
                        o.columns = parse_num(name, &need(value)?)?;
                    }
                    "sampleRate" => o.sample_rate = parse_num(name, &need(value)?)?,
                    "table" => o.table = need(value)?,
                    "startRow" => o.start_row = parse_num(name, &need(value)?)?,
                    "measureAfter" => o.measure_after = parse_num(name, &need(value)?)?,
                    "caching" => o.caching = parse_num(name, &need(value)?)?,
                    "engine" => o.engine = EngineKind::parse(&need(value)?)?,
                    "data" => {
                        o.data = PathBuf::from(need(value)?);
                        data_given = true;
                    }
                    "seed" => o.seed = parse_num(name, &need(value)?)?,
                    "blockCache" | "block-cache" => {
                        o.block_cache = parse_num(name, &need(value)?)?;
                    }
                    _ => {
                        return Err(Error::Usage(format!(
                            "ERROR: Unrecognized option/command: {a}"
                        )));
                    }
                }
                continue;
            }
            match PeCommand::parse(a) {
                Some(c) => {
                    command = Some(c);
                    break;
                }
                None => {
                    return Err(Error::Usage(format!(
                        "ERROR: Unrecognized option/command: {a}"
                    )));
                }
            }
        }
        let command = command.ok_or_else(|| Error::Usage("Command not found".into()))?;
        let clients = match rest.next() {
            Some(n) => parse_num::<usize>("nclients", n)?,
            None => return Err(Error::Usage("Missing required arg: nclients".into())),
        };
        if let Some(extra) = rest.next() {
            return Err(Error::Usage(format!(
                "ERROR: Unrecognized option/command: {extra}"
            )));
        }
        if !data_given {
            o.data = o.engine.default_data_dir();
        }
        o.validate(clients)?;
        Ok(Self {
            options: o,
            command,
            clients,
        })
    }
}

impl PeOptions {
    fn validate(&self, clients: usize) -> Result<()> {
        if clients == 0 {
            return Err(Error::Usage("nclients must be at least 1".into()));
        }
        if self.families == 0 || self.columns == 0 {
            return Err(Error::Usage(
                "--families and --columns must be at least 1".into(),
            ));
        }
        if !(self.sample_rate > 0.0 && self.sample_rate <= 1.0) {
            return Err(Error::Usage("--sampleRate must be in (0, 1]".into()));
        }
        if let Some(size) = self.size
            && size <= 1.0
        {
            return Err(Error::Usage("Size must be > 1; i.e. 1GB".into()));
        }
        if !["NONE", "LZ4"].contains(&self.compress.as_str()) {
            return Err(Error::Usage(format!(
                "--compress={}: regionkv supports NONE and LZ4",
                self.compress
            )));
        }
        // Checked here, not only by regionkv's family descriptor: the peers would
        // otherwise take a misspelt value silently.
        if !["NONE", "ROW", "ROWCOL"].contains(&self.bloom_filter.as_str()) {
            return Err(Error::Usage(format!(
                "--bloomFilter={}: one of NONE, ROW, ROWCOL",
                self.bloom_filter
            )));
        }
        if !["NONE", "PREFIX"].contains(&self.block_encoding.as_str()) {
            return Err(Error::Usage(format!(
                "--blockEncoding={}: regionkv supports NONE and PREFIX",
                self.block_encoding
            )));
        }
        Ok(())
    }

    /// PE's `calculateRowsAndSize`: `(total rows, rows per client)`.
    pub fn rows_and_size(&self, command: PeCommand, clients: usize) -> (u64, u64) {
        let value = if self.value_random {
            self.value_size / 2
        } else {
            self.value_size
        }
        .max(1) as u64;
        let rows_per_gb = ONE_GB / (value * self.families as u64 * self.columns as u64).max(1);
        match self.size {
            // Java casts the size to int before multiplying.
            Some(size)
                if matches!(command, PeCommand::RandomRead | PeCommand::RandomSeekScan)
                    && self.rows != DEFAULT_ROWS =>
            {
                ((size as u64) * rows_per_gb, self.rows)
            }
            Some(size) => {
                let total = (size as u64) * rows_per_gb;
                (total, total / clients as u64)
            }
            None => (self.rows * clients as u64, self.rows),
        }
    }

    fn spec(&self, total_rows: u64) -> TableSpec {
        let mut spec = TableSpec::new(&self.table, b"info0");
        spec.families = (0..self.families)
            .map(|f| format!("info{f}").into_bytes())
            .collect();
        spec.columns = self.columns;
        spec.compression = if self.compress == "LZ4" {
            Compression::Lz4
        } else {
            Compression::None
        };
        spec.bloom = self.bloom_filter.clone();
        spec.block_encoding = self.block_encoding.clone();
        spec.in_memory = self.in_memory;
        spec.wal = self.write_to_wal;
        spec.sync = self.sync;
        spec.block_cache = self.block_cache;
        spec.presplit_regions = self.presplit;
        if self.presplit > 1 {
            // PE's getSplits: format(jump × (1 + i)) for i in 0..presplit−1.
            let jump = total_rows / self.presplit as u64;
            spec.splits = (0..self.presplit as u64 - 1)
                .map(|i| format_row(jump * (1 + i)).to_vec())
                .collect();
        }
        spec
    }
}

/// PE's `format`: `n` as 26 zero-padded ASCII digits.
pub fn format_row(n: u64) -> [u8; ROW_LENGTH] {
    let mut b = [b'0'; ROW_LENGTH];
    let mut d = n;
    for slot in b.iter_mut().rev() {
        *slot = b'0' + (d % 10) as u8;
        d /= 10;
    }
    b
}

/// PE's `generateData`: blocks of 8 equal capital letters, the tail one more letter.
pub fn generate_data(rng: &mut SmallRng, len: usize) -> Vec<u8> {
    let mut b = vec![0u8; len];
    let mut i = 0;
    while i + 8 < len {
        let c = b'A' + rng.random_range(0..26u8);
        b[i..i + 8].fill(c);
        i += 8;
    }
    let c = b'A' + rng.random_range(0..26u8);
    b[i..].fill(c);
    b
}

/// One client's result.
#[derive(Debug, Clone, Serialize)]
pub struct ClientResult {
    /// `TestClient-N`.
    pub name: String,
    /// First row.
    pub start_row: u64,
    /// Rows the client ran (before sampling).
    pub rows: u64,
    /// Operations actually run (after sampling).
    pub operations: u64,
    /// Wall time in milliseconds.
    pub duration_ms: u64,
    /// Latency of the measured operations.
    pub latency: LatencySummary,
    /// PE's MB/s figure.
    pub mb_per_sec: f64,
}

/// A whole run's result.
#[derive(Debug, Clone, Serialize)]
pub struct PeReport {
    /// The engine.
    pub engine: EngineKind,
    /// PE's command name.
    pub command: &'static str,
    /// Client threads.
    pub clients: usize,
    /// Total rows of the table the run assumes.
    pub total_rows: u64,
    /// Per client.
    pub per_client: Vec<ClientResult>,
    /// All clients' latencies together.
    pub latency: LatencySummary,
    /// Wall time of the whole run in ms.
    pub wall_ms: u64,
    /// Process I/O and memory during the run.
    pub io: ProcessIo,
    /// The options.
    pub options: PeOptions,
}

impl PeReport {
    /// Operations per second over the whole run (all clients, wall time).
    pub fn total_ops_per_sec(&self) -> f64 {
        let ops: u64 = self.per_client.iter().map(|c| c.operations).sum();
        ops as f64 * 1000.0 / self.wall_ms.max(1) as f64
    }
}

/// Lines are written to `out` as PE logs them; writes to it are serialized.
type Sink = Arc<parking_lot::Mutex<Box<dyn Write + Send>>>;

fn log(sink: &Sink, line: &str) {
    let mut out = sink.lock();
    let _ = writeln!(out, "{line}");
}

/// Java's `DecimalFormat("#0.00")`.
fn f2(v: f64) -> String {
    format!("{v:.2}")
}

/// PE's `getHistogramReport`.
fn histogram_report(s: &LatencySummary) -> String {
    format!(
        "mean={}, min={}, max={}, stdDev={}, 50th={}, 75th={}, 95th={}, 99th={}, 99.9th={}, 99.99th={}, 99.999th={}",
        f2(s.mean),
        f2(s.min),
        f2(s.max),
        f2(s.std_dev),
        f2(s.p50),
        f2(s.p75),
        f2(s.p95),
        f2(s.p99),
        f2(s.p999),
        f2(s.p9999),
        f2(s.p99999)
    )
}

/// PE's `getShortHistogramReport`.
fn short_report(s: &LatencySummary) -> String {
    format!(
        "mean={}, min={}, max={}, stdDev={}, 95th={}, 99th={}",
        f2(s.mean),
        f2(s.min),
        f2(s.max),
        f2(s.std_dev),
        f2(s.p95),
        f2(s.p99)
    )
}

/// PE's `getPrettyHistogramReport`.
fn pretty_report(s: &LatencySummary) -> String {
    [
        ("Mean      = ", s.mean),
        ("Min       = ", s.min),
        ("Max       = ", s.max),
        ("StdDev    = ", s.std_dev),
        ("50th      = ", s.p50),
        ("75th      = ", s.p75),
        ("95th      = ", s.p95),
        ("99th      = ", s.p99),
        ("99.9th    = ", s.p999),
        ("99.99th   = ", s.p9999),
        ("99.999th  = ", s.p99999),
    ]
    .iter()
    .map(|(k, v)| format!("{k}{}", f2(*v)))
    .collect::<Vec<_>>()
    .join("\n")
}

/// Java's `DecimalFormat("0.##")` (HALF_EVEN): at most two decimals, trailing zeros cut.
fn fmt_0_hash(v: f64) -> String {
    let s = format!("{v:.2}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    s.to_string()
}

/// What one client does per row.
struct Client<'a> {
    engine: &'a dyn Engine,
    command: PeCommand,
    opts: &'a PeOptions,
    rng: SmallRng,
    total_rows: u64,
    families: Vec<Vec<u8>>,
    qualifiers: Vec<Vec<u8>>,
    buffered: Option<Box<dyn crate::engine::BufferedWriter + 'a>>,
    scan_base: u64,
    cas_qualifier: Vec<u8>,
}

impl<'a> Client<'a> {
    fn random_row(&mut self) -> u64 {
        // PE: random.nextInt(Integer.MAX_VALUE) % totalRows.
        u64::from(self.rng.random_range(0..i32::MAX as u32)) % self.total_rows.max(1)
    }

    fn value_len(&mut self) -> usize {
        if self.opts.value_random && self.opts.value_size > 0 {
            self.rng.random_range(0..self.opts.value_size)
        } else {
            self.opts.value_size
        }
    }

    fn write_row(&mut self, row: &[u8]) -> Result<()> {
        let mut values = Vec::with_capacity(self.families.len() * self.qualifiers.len());
        for _ in 0..self.families.len() * self.qualifiers.len() {
            let len = self.value_len();
            values.push(generate_data(&mut self.rng, len));
        }
        let mut cells: Vec<CellRef<'_>> = Vec::with_capacity(values.len());
        let mut k = 0;
        for f in &self.families {
            for q in &self.qualifiers {
                cells.push((f, q, &values[k]));
                k += 1;
            }
        }
        match &mut self.buffered {
            Some(b) => b.put(row, &cells),
            None => self.engine.put(row, &cells),
        }
    }

    fn read_column(&self) -> Option<(&[u8], &[u8])> {
        // PE adds every (family, column); with one of each that is one column.
        (self.families.len() == 1 && self.qualifiers.len() == 1)
            .then(|| (self.families[0].as_slice(), self.qualifiers[0].as_slice()))
    }

    /// PE's `testRow(i)`.
    fn test_row(&mut self, i: u64) -> Result<()> {
        match self.command {
            PeCommand::SequentialWrite => self.write_row(&format_row(i)),
            PeCommand::RandomWrite => {
                let r = self.random_row();
                self.write_row(&format_row(r))
            }
            PeCommand::SequentialRead => {
                let col = self.read_column();
                self.engine.get(&format_row(i), col).map(|_| ())
            }
            PeCommand::RandomRead => {
                let r = format_row(self.random_row());
                let col = self.read_column();
                self.engine.get(&r, col).map(|_| ())
            }
            PeCommand::RandomSeekScan => {
                let r = format_row(self.random_row());
                self.engine.scan(&r, None, 120).map(|_| ())
            }
            PeCommand::ScanRange10
            | PeCommand::ScanRange100
            | PeCommand::ScanRange1000
            | PeCommand::ScanRange10000 => {
                let n = self.command.scan_range().unwrap_or(10);
                let start = self.random_row();
                let (a, b) = (format_row(start), format_row(start + n));
                self.engine.scan(&a, Some(&b), usize::MAX).map(|_| ())
            }
            PeCommand::Scan => {
                // PE keeps one scanner per client and calls next() once per row; a scanner
                // fetches `caching` rows per round trip, so every `caching`-th row pays
                // for a fetch and the others are served from what it fetched.
                let caching = self.opts.caching.max(1) as u64;
                if (i - self.scan_base).is_multiple_of(caching) {
                    self.engine.scan(&format_row(i), None, caching as usize)?;
                }
                Ok(())
            }
            PeCommand::Increment => {
                let row = format_row(i);
                for f in self.families.clone() {
                    self.engine.increment(&row, &f, &self.cas_qualifier, 1)?;
                }
                Ok(())
            }
            PeCommand::Append => {
                let row = format_row(i);
                for f in self.families.clone() {
                    self.engine.append(&row, &f, &self.cas_qualifier, &row)?;
                }
                Ok(())
            }
            PeCommand::CheckAndPut | PeCommand::CheckAndMutate => {
                // PE puts a known value first, then checks it and writes it again: with a
                // put (checkAndPut) or a row mutation holding the put (checkAndMutate).
                let row = format_row(i);
                let f = self.families[0].clone();
                self.engine.put(&row, &[(&f, &self.cas_qualifier, &row)])?;
                let then = if self.command == PeCommand::CheckAndMutate {
                    ThenWrite::RowMutations
                } else {
                    ThenWrite::Put
                };
                self.engine
                    .check_and_put(&row, &f, &self.cas_qualifier, &row, &row, then)
                    .map(|_| ())
            }
        }
    }
}

/// Runs `command` with `clients` threads, printing PE's lines to `out` (unless `--json`,
/// then the JSON report). Returns the report.
pub fn run_to(
    command: PeCommand,
    clients: usize,
    opts: &PeOptions,
    out: Box<dyn Write + Send>,
) -> Result<PeReport> {
    opts.validate(clients)?;
    let (total_rows, per_client) = opts.rows_and_size(command, clients);
    let spec = opts.spec(total_rows);
    std::fs::create_dir_all(&opts.data)?;
    if command.is_read() && !table_exists(opts, &spec)? {
        return Err(Error::Usage(
            "Must specify an existing table for read commands. Run a write command first.".into(),
        ));
    }
    let engine = engine::open(opts.engine, &opts.data, &spec)?;
    let sink: Sink = Arc::new(parking_lot::Mutex::new(out));
    let json = opts.json;
    let quiet: Sink = Arc::new(parking_lot::Mutex::new(Box::new(std::io::sink())));
    let lines = if json { quiet } else { sink.clone() };
    let progress = indicatif::ProgressBar::new(per_client * clients as u64);
    if json || per_client * (clients as u64) < 100_000 {
        progress.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    progress.set_style(
        indicatif::ProgressStyle::with_template(
            "{spinner} {elapsed_precise} [{bar:40}] {pos}/{len} rows ({per_sec}, eta {eta})",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let io_before = ProcessIo::now();
    let started = Instant::now();
    let results: Vec<Result<(ClientResult, Latency)>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..clients)
            .map(|index| {
                let engine = engine.clone();
                let lines = lines.clone();
                let progress = progress.clone();
                std::thread::Builder::new()
                    .name(format!("TestClient-{index}"))
                    .spawn_scoped(scope, move || {
                        run_client(
                            engine.as_ref(),
                            command,
                            opts,
                            index,
                            total_rows,
                            per_client,
                            &lines,
                            &progress,
                        )
                    })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| match h {
                Ok(h) => h
                    .join()
                    .unwrap_or_else(|_| Err(Error::Engine("a client thread panicked".into()))),
                Err(e) => Err(Error::Io(e)),
            })
            .collect()
    });
    progress.finish_and_clear();
    let wall = started.elapsed();
    let mut per = Vec::with_capacity(clients);
    let mut all = Latency::new();
    for r in results {
        let (c, l) = r?;
        all.merge(&l);
        per.push(c);
    }
    if command.is_write() {
        engine.settle()?;
    }
    let mut io = ProcessIo::now();
    io.write_bytes = io.write_bytes.saturating_sub(io_before.write_bytes);
    io.read_bytes = io.read_bytes.saturating_sub(io_before.read_bytes);
    drop(engine);
    let report = PeReport {
        engine: opts.engine,
        command: command.name(),
        clients,
        total_rows,
        per_client: per,
        latency: all.summary(),
        wall_ms: wall.as_millis() as u64,
        io,
        options: opts.clone(),
    };
    if json {
        let text = serde_json::to_string_pretty(&report)
            .map_err(|e| Error::Engine(format!("JSON: {e}")))?;
        log(&sink, &text);
    } else {
        summary(&sink, command, &report);
    }
    Ok(report)
}

/// [`run_to`] printing to standard output.
pub fn run(command: PeCommand, clients: usize, opts: &PeOptions) -> Result<PeReport> {
    run_to(command, clients, opts, Box::new(std::io::stdout()))
}

fn table_exists(opts: &PeOptions, spec: &TableSpec) -> Result<bool> {
    match opts.engine {
        EngineKind::Regionkv => {
            if std::fs::read_dir(&opts.data)?.next().is_none() {
                return Ok(false);
            }
            let db =
                regionkv::Db::open(&opts.data, regionkv::DbOptions::default().background(false))?;
            Ok(db.admin().table_exists(&spec.name)?)
        }
        // A peer's keyspace exists once anything was written into its directory.
        _ => Ok(std::fs::read_dir(&opts.data)?.next().is_some()),
    }
}

#[allow(clippy::too_many_arguments)]
fn run_client(
    engine: &dyn Engine,
    command: PeCommand,
    opts: &PeOptions,
    index: usize,
    total_rows: u64,
    per_client: u64,
    lines: &Sink,
    progress: &indicatif::ProgressBar,
) -> Result<(ClientResult, Latency)> {
    let thread = format!("TestClient-{index}");
    let (start_row, last_row) = if command.is_cas() {
        (0, per_client)
    } else {
        let start = opts.start_row + index as u64 * per_client;
        (start, start + per_client)
    };
    let class = format!(
        "class org.apache.hadoop.hbase.PerformanceEvaluation${}",
        command.class_name()
    );
    log(
        lines,
        &format!("Start {class} at offset {start_row} for {per_client} rows"),
    );
    let every_n = ((1.0 / opts.sample_rate) as u64).max(1);
    if every_n > 1 {
        log(
            lines,
            &format!("Sampling 1 every {every_n} out of {per_client} total rows."),
        );
    }
    let mut client = Client {
        engine,
        command,
        opts,
        rng: crate::generator::rng(opts.seed, index),
        total_rows,
        families: (0..opts.families)
            .map(|f| format!("info{f}").into_bytes())
            .collect(),
        qualifiers: (0..opts.columns)
            .map(|c| c.to_string().into_bytes())
            .collect(),
        buffered: None,
        scan_base: start_row,
        cas_qualifier: command.class_name().as_bytes().to_vec(),
    };
    if command.is_write() && !opts.auto_flush {
        client.buffered = Some(engine.buffered());
    }
    log(lines, &format!("Timed test starting in thread {thread}"));
    let period = match command {
        PeCommand::RandomRead => per_client / 10,
        c if c.scan_range().is_some() || c == PeCommand::RandomSeekScan => per_client / 100,
        _ => per_client / 10,
    }
    .max(1);
    let mut latency = Latency::new();
    let mut ops = 0u64;
    let started = Instant::now();
    let mut since_tick = 0u64;
    for i in start_row..last_row {
        if i % every_n != 0 {
            continue;
        }
        let t = Instant::now();
        client.test_row(i)?;
        let d = t.elapsed();
        ops += 1;
        // PE's rule: the first `measureAfter` rows (and the very first row) are not measured.
        if i - start_row > opts.measure_after {
            latency.record(d);
        }
        since_tick += 1;
        if since_tick >= 1024 {
            progress.inc(since_tick);
            since_tick = 0;
        }
        if i > start_row && (i - start_row) % period == 0 {
            log(
                lines,
                &format!(
                    "{start_row}/{i}/{last_row}, latency {}",
                    short_report(&latency.summary())
                ),
            );
        }
    }
    if let Some(mut b) = client.buffered.take() {
        b.flush()?;
    }
    progress.inc(since_tick);
    let duration = started.elapsed();
    let ms = duration.as_millis() as u64;
    let summary = latency.summary();
    // PE's takedown block, printed together.
    {
        let report = format!(
            "Test : {}, Thread : {thread}\nLatency (us) : {}\nNum measures (latency) : {}\n{}\n{}",
            command.class_name(),
            histogram_report(&summary),
            summary.count,
            pretty_report(&summary),
            if opts.value_random {
                "ValueSize statistics are not kept by regionkv pe".to_string()
            } else {
                "No valueSize statistics available".to_string()
            }
        );
        log(lines, &report);
    }
    let mbps = mb_per_sec(
        opts,
        (per_client as f64 * opts.sample_rate) as u64,
        duration,
    );
    log(
        lines,
        &format!(
            "Finished {class} in {ms}ms at offset {start_row} for {per_client} rows ({} MB/s)",
            fmt_0_hash(mbps)
        ),
    );
    // PE's line, with the client's operations per second added (PE prints only MB/s).
    log(
        lines,
        &format!(
            "Finished {thread} in {ms}ms over {per_client} rows ({} ops/s)",
            (ops as f64 / duration.as_secs_f64().max(1e-6)).round() as i64
        ),
    );
    Ok((
        ClientResult {
            name: thread,
            start_row,
            rows: per_client,
            operations: ops,
            duration_ms: ms,
            latency: summary,
            mb_per_sec: mbps,
        },
        latency,
    ))
}

/// PE's `calculateMbps`.
fn mb_per_sec(opts: &PeOptions, rows: u64, d: Duration) -> f64 {
    let value = if opts.value_random {
        opts.value_size / 2
    } else {
        opts.value_size
    } as f64;
    let row_size =
        ROW_LENGTH as f64 + (value + 5.0 + 1.0) * opts.columns as f64 * opts.families as f64;
    let ms = (d.as_secs_f64() * 1000.0).max(1e-3);
    rows as f64 * row_size / ms * 1000.0 / (1024.0 * 1024.0)
}

/// PE's `doLocalClients` summary.
fn summary(sink: &Sink, command: PeCommand, r: &PeReport) {
    let test = command.class_name();
    let times: Vec<u64> = r.per_client.iter().map(|c| c.duration_ms).collect();
    let shown: Vec<String> = times.iter().map(u64::to_string).collect();
    log(
        sink,
        &format!("[{test}] Summary of timings (ms): [{}]", shown.join(", ")),
    );
    let mut sorted = times.clone();
    sorted.sort_unstable();
    let total: u64 = sorted.iter().sum();
    let n = sorted.len().max(1) as u64;
    log(
        sink,
        &format!(
            "[{test} duration ]\tMin: {}ms\tMax: {}ms\tAvg: {}ms",
            sorted.first().copied().unwrap_or(0),
            sorted.last().copied().unwrap_or(0),
            total / n
        ),
    );
    let avg_latency =
        r.per_client.iter().map(|c| c.latency.mean).sum::<f64>() / r.per_client.len().max(1) as f64;
    log(
        sink,
        &format!("[ Avg latency (us)]\t{}", avg_latency.round() as i64),
    );
    let tps: f64 = r
        .per_client
        .iter()
        .map(|c| c.rows as f64 / c.duration_ms.max(1) as f64)
        .sum::<f64>()
        * 1000.0;
    log(
        sink,
        &format!("[ Avg TPS/QPS]\t{}\t row per second", tps.round() as i64),
    );
    // regionkv's additions: the run's total throughput over wall time, and the
    // percentiles of all clients' latencies together (PE prints only per-client ones).
    log(
        sink,
        &format!(
            "[ Total throughput]\t{}\t ops per second",
            r.total_ops_per_sec().round() as i64
        ),
    );
    log(
        sink,
        &format!(
            "[ All clients latency (us)]\t{}",
            histogram_report(&r.latency)
        ),
    );
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn rows_values_and_parsing_follow_pe() {
        assert_eq!(&format_row(5), b"00000000000000000000000005");
        let mut rng = crate::generator::rng(1, 0);
        let v = generate_data(&mut rng, 20);
        assert_eq!(v.len(), 20);
        assert!(v[..8].iter().all(|&c| c == v[0] && c.is_ascii_uppercase()));
        assert!(v[16..].iter().all(|&c| c == v[16]));
        let a = PeArgs::parse(&args(
            "--nomapred --rows=100 --valueSize=10 --presplit=4 --autoFlush=true --writeToWAL=false randomWrite 2",
        ))
        .unwrap();
        assert_eq!(a.command, PeCommand::RandomWrite);
        assert_eq!(a.clients, 2);
        assert!(a.options.auto_flush && !a.options.write_to_wal);
        assert_eq!(a.options.rows_and_size(a.command, 2), (200, 100));
        let e = PeArgs::parse(&args("--bogus=1 randomRead 1")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "ERROR: Unrecognized option/command: --bogus=1"
        );
        assert!(PeArgs::parse(&args("randomRead")).is_err());
        assert!(PeArgs::parse(&args("--size=0.5 randomRead 1")).is_err());
        // --size: (int)size × rows per GB, split across clients.
        let a = PeArgs::parse(&args("--size=2 sequentialWrite 4")).unwrap();
        assert_eq!(
            a.options.rows_and_size(a.command, 4),
            (2 * 1_048_576, 524_288)
        );
        // Flags take an explicit false; bloom and encoding names are checked for every
        // engine, not only by regionkv's family descriptor.
        let a = PeArgs::parse(&args("--valueRandom=false --json=false randomRead 1")).unwrap();
        assert!(!a.options.value_random && !a.options.json);
        let a = PeArgs::parse(&args("--valueRandom --json randomRead 1")).unwrap();
        assert!(a.options.value_random && a.options.json);
        assert!(PeArgs::parse(&args("--bloomFilter=rowcol randomRead 1")).is_ok());
        for bad in ["--bloomFilter=ROWS", "--blockEncoding=FAST_DIFF"] {
            let e = PeArgs::parse(&args(&format!("{bad} randomRead 1"))).unwrap_err();
            assert!(
                e.to_string().contains(&bad[2..bad.find('=').unwrap()]),
                "{e}"
            );
        }
        assert_eq!(fmt_0_hash(12.5), "12.5");
        assert_eq!(fmt_0_hash(3.0), "3");
        assert_eq!(fmt_0_hash(0.456), "0.46");
    }

    fn run_quiet(cmd: &str, dir: &std::path::Path, extra: &str) -> PeReport {
        let a = PeArgs::parse(&args(&format!(
            "--rows=300 --valueSize=50 --seed=7 --data={} {extra} {cmd} 2",
            dir.display()
        )))
        .unwrap();
        let buf: Box<dyn Write + Send> = Box::new(Vec::new());
        run_to(a.command, a.clients, &a.options, buf).unwrap()
    }

    #[test]
    fn every_command_runs_against_regionkv() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().join("pe");
        let e = PeArgs::parse(&args(&format!("--data={} randomRead 1", d.display()))).unwrap();
        let err = run_to(e.command, 1, &e.options, Box::new(Vec::new())).unwrap_err();
        assert!(
            err.to_string().contains("Run a write command first"),
            "{err}"
        );
        let w = run_quiet("sequentialWrite", &d, "--presplit=3");
        assert_eq!(w.per_client.iter().map(|c| c.operations).sum::<u64>(), 600);
        assert_eq!(
            w.latency.count, 598,
            "PE never measures each client's first row"
        );
        for (name, _) in PeCommand::ALL {
            let r = run_quiet(name, &d, "");
            assert_eq!(r.per_client.len(), 2, "{name}");
            assert!(r.per_client.iter().all(|c| c.operations == 300), "{name}");
        }
        // PE's checkTable: a different pre-split (or family count) recreates the table.
        let x = d.join("x");
        let shape = || {
            let db = regionkv::Db::open(&x, regionkv::DbOptions::default()).unwrap();
            let families = db.admin().describe("TestTable").unwrap().families.len();
            (families, db.admin().regions("TestTable").unwrap().len())
        };
        run_quiet("sequentialWrite", &x, "--presplit=2");
        assert_eq!(shape(), (1, 2));
        run_quiet("sequentialWrite", &x, "--presplit=4");
        assert_eq!(shape(), (1, 4));
        run_quiet("sequentialWrite", &x, "--families=2 --presplit=4");
        assert_eq!(shape(), (2, 4));
        run_quiet("sequentialWrite", &x, "--families=2");
        assert_eq!(shape(), (2, 4), "no pre-split asked: the regions stay");
        run_quiet("sequentialWrite", &x, "--families=2 --presplit=1");
        assert_eq!(shape(), (2, 1));
        // The rows the writes made are all there.
        let db = regionkv::Db::open(&d, regionkv::DbOptions::default()).unwrap();
        let t = db.table("TestTable").unwrap();
        assert_eq!(db.admin().regions("TestTable").unwrap().len(), 3);
        assert_eq!(
            t.get(&regionkv::Get::new(format_row(599))).unwrap().len(),
            1
        );
        // Row 0: PE's value, and one cell per CAS test (qualifier = the test's class name).
        assert_eq!(t.get(&regionkv::Get::new(format_row(0))).unwrap().len(), 5);
        let counter = t
            .get(&regionkv::Get::new(format_row(0)).add_column("info0", "IncrementTest"))
            .unwrap();
        assert_eq!(
            counter.counter(b"info0", b"IncrementTest"),
            Some(2),
            "two clients"
        );
    }

    #[test]
    fn sampling_and_output_lines() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().join("pe");
        let a = PeArgs::parse(&args(&format!(
            "--rows=1000 --valueSize=20 --sampleRate=0.1 --data={} sequentialWrite 1",
            d.display()
        )))
        .unwrap();
        let out = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        struct W(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);
        impl Write for W {
            fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
                self.0.lock().unwrap().extend_from_slice(b);
                Ok(b.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let r = run_to(a.command, 1, &a.options, Box::new(W(out.clone()))).unwrap();
        assert_eq!(r.per_client[0].operations, 100);
        let text = String::from_utf8(out.lock().unwrap().clone()).unwrap();
        for needle in [
            "Start class org.apache.hadoop.hbase.PerformanceEvaluation$SequentialWriteTest at offset 0 for 1000 rows",
            "Sampling 1 every 10 out of 1000 total rows.",
            "Timed test starting in thread TestClient-0",
            "Test : SequentialWriteTest, Thread : TestClient-0",
            "Latency (us) : mean=",
            "Num measures (latency) : 99",
            "Mean      = ",
            "99.999th  = ",
            "Finished TestClient-0 in ",
            "[SequentialWriteTest] Summary of timings (ms): [",
            "[SequentialWriteTest duration ]\tMin: ",
            "[ Avg latency (us)]\t",
            "\t row per second",
            "[ Total throughput]\t",
            "[ All clients latency (us)]\tmean=",
            " ops/s)",
        ] {
            assert!(text.contains(needle), "missing {needle:?} in:\n{text}");
        }
        let json = PeArgs::parse(&args(&format!(
            "--rows=50 --json --data={} randomRead 1",
            d.display()
        )))
        .unwrap();
        let buf = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        run_to(json.command, 1, &json.options, Box::new(W(buf.clone()))).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&buf.lock().unwrap()).unwrap();
        assert_eq!(v["command"], "randomRead");
        assert_eq!(v["per_client"][0]["operations"], 50);
    }
}
