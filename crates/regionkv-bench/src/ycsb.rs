//! `regionkv ycsb`: YCSB's core workloads A–F (`site.ycsb.workloads.CoreWorkload` with the
//! `workloads/workloada`…`workloadf` files), load and run phases, in-process threads.
//!
//! Records are YCSB's: table `usertable`, keys `"user"` + FNV-hashed key number, 10 fields
//! `field0`…`field9` of 100 printable random bytes (or one field, `--fields 1`). In regionkv
//! a record is one row of one family (`family`, as YCSB's HBase binding configures it) with
//! one cell per field — HBase's layout. Output is YCSB's text exporter
//! (`[OVERALL], Throughput(ops/sec), X`, per-operation lines from its hdrhistogram
//! measurement) or `--json`.

use crate::engine::{self, CellRef, Compression, EngineKind, TableSpec};
use crate::generator::{Distribution, InsertCounter, KeyChooser, rng, ycsb_key};
use crate::stats::{Latency, ProcessIo};
use crate::{Error, Result};
use rand::RngExt;
use rand::rngs::SmallRng;
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The column family records live in.
pub const FAMILY: &[u8] = b"family";

/// A core workload's mix (the `workloads/workload?` files).
#[derive(Debug, Clone, Serialize)]
pub struct Workload {
    /// `a` … `f`.
    pub name: char,
    /// readproportion.
    pub read: f64,
    /// updateproportion.
    pub update: f64,
    /// insertproportion.
    pub insert: f64,
    /// scanproportion.
    pub scan: f64,
    /// readmodifywriteproportion.
    pub read_modify_write: f64,
    /// requestdistribution.
    pub distribution: Distribution,
    /// maxscanlength (scan lengths are uniform in `[1, max]`).
    pub max_scan_length: usize,
}

impl Workload {
    /// Workload `a`…`f` as YCSB ships it.
    pub fn core(name: char) -> Result<Self> {
        let w = |read, update, insert, scan, rmw, distribution, max_scan_length| Workload {
            name,
            read,
            update,
            insert,
            scan,
            read_modify_write: rmw,
            distribution,
            max_scan_length,
        };
        use Distribution::*;
        Ok(match name.to_ascii_lowercase() {
            'a' => w(0.5, 0.5, 0.0, 0.0, 0.0, Zipfian, 1000),
            'b' => w(0.95, 0.05, 0.0, 0.0, 0.0, Zipfian, 1000),
            'c' => w(1.0, 0.0, 0.0, 0.0, 0.0, Zipfian, 1000),
            'd' => w(0.95, 0.0, 0.05, 0.0, 0.0, Latest, 1000),
            'e' => w(0.0, 0.0, 0.05, 0.95, 0.0, Zipfian, 100),
            'f' => w(0.5, 0.0, 0.0, 0.0, 0.5, Zipfian, 1000),
            other => {
                return Err(Error::Usage(format!(
                    "unknown workload '{other}' (a, b, c, d, e or f)"
                )));
            }
        })
    }
}

/// Which phases to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Phase {
    /// Insert the records (`ycsb load`).
    Load,
    /// Run the operations (`ycsb run`) on loaded records.
    Run,
    /// Load, then run.
    Both,
}

/// Options of a YCSB run.
#[derive(Debug, Clone, Serialize)]
pub struct YcsbOptions {
    /// The workload.
    pub workload: Workload,
    /// recordcount.
    pub records: u64,
    /// operationcount.
    pub operations: u64,
    /// threadcount.
    pub threads: usize,
    /// fieldcount (10).
    pub fields: usize,
    /// fieldlength (100).
    pub field_length: usize,
    /// insertorder=ordered (default hashed).
    pub ordered: bool,
    /// Which phases.
    pub phase: Phase,
    /// The engine.
    pub engine: EngineKind,
    /// Data directory (default [`EngineKind::default_data_dir`]).
    pub data: PathBuf,
    /// Random seed.
    pub seed: u64,
    /// fsync the WAL on every write.
    pub sync: bool,
    /// Block cache bytes.
    pub block_cache: u64,
    /// Block compression of the table.
    pub compression: Compression,
    /// Data block size; `None`: each engine's default (see [`TableSpec::block_size`]).
    pub block_size: Option<u32>,
    /// Memstore (memtable) flush size; `None`: each engine's default.
    pub memtable_bytes: Option<u64>,
    /// DATA_BLOCK_ENCODING (regionkv only): NONE or PREFIX.
    pub block_encoding: String,
    /// Print JSON.
    pub json: bool,
    /// The table (YCSB's `table` property, default `usertable`).
    pub table: String,
    /// YCSB's `-s`: a status line on standard error every [`Self::status_interval`].
    pub status: bool,
    /// How often `-s` reports: YCSB's 10 s; shorter in tests.
    pub status_interval: Duration,
}

impl YcsbOptions {
    /// YCSB's defaults for `workload` (1000 records and operations, as its files say).
    pub fn new(workload: Workload) -> Self {
        Self {
            workload,
            records: 1000,
            operations: 1000,
            threads: 1,
            fields: 10,
            field_length: 100,
            ordered: false,
            phase: Phase::Both,
            engine: EngineKind::Regionkv,
            data: EngineKind::Regionkv.default_data_dir(),
            seed: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos() as u64),
            sync: false,
            block_cache: 32 << 20,
            compression: Compression::None,
            block_size: None,
            memtable_bytes: None,
            block_encoding: "NONE".into(),
            json: false,
            table: "usertable".into(),
            status: false,
            status_interval: Duration::from_secs(10),
        }
    }
}

/// The operations YCSB measures.
const OPS: [&str; 5] = ["READ", "UPDATE", "INSERT", "SCAN", "READ-MODIFY-WRITE"];

/// Per-operation latency and return codes of one phase.
#[derive(Debug, Clone, Default)]
struct Measurements {
    latency: BTreeMap<&'static str, Latency>,
    returns: BTreeMap<(&'static str, &'static str), u64>,
}

impl Measurements {
    fn record(&mut self, op: &'static str, took: Duration, status: &'static str) {
        self.latency.entry(op).or_default().record(took);
        *self.returns.entry((op, status)).or_default() += 1;
    }

    fn merge(&mut self, other: &Measurements) {
        for (op, l) in &other.latency {
            self.latency.entry(op).or_default().merge(l);
        }
        for (k, n) in &other.returns {
            *self.returns.entry(*k).or_default() += n;
        }
    }
}

/// One operation's figures, in YCSB's units (µs).
#[derive(Debug, Clone, Serialize)]
pub struct OpReport {
    /// READ, UPDATE, …
    pub operation: String,
    /// Operations.
    pub operations: u64,
    /// AverageLatency(us).
    pub average_us: f64,
    /// MinLatency(us).
    pub min_us: u64,
    /// MaxLatency(us).
    pub max_us: u64,
    /// 95thPercentileLatency(us).
    pub p95_us: u64,
    /// 99thPercentileLatency(us).
    pub p99_us: u64,
    /// Return=… counts.
    pub returns: BTreeMap<String, u64>,
}

/// One phase's report.
#[derive(Debug, Clone, Serialize)]
pub struct PhaseReport {
    /// load or run.
    pub phase: &'static str,
    /// RunTime(ms).
    pub runtime_ms: u64,
    /// Operations done.
    pub operations: u64,
    /// Throughput(ops/sec).
    pub throughput: f64,
    /// Per operation.
    pub ops: Vec<OpReport>,
    /// Process I/O during the phase.
    pub io: ProcessIo,
}

fn op_reports(m: &Measurements) -> Vec<OpReport> {
    OPS.iter()
        .filter_map(|op| {
            let l = m.latency.get(op)?;
            let s = l.summary();
            Some(OpReport {
                operation: (*op).to_string(),
                operations: s.count,
                average_us: s.mean,
                min_us: s.min as u64,
                max_us: s.max as u64,
                p95_us: s.p95 as u64,
                p99_us: s.p99 as u64,
                returns: m
                    .returns
                    .iter()
                    .filter(|((o, _), _)| o == op)
                    .map(|((_, st), n)| ((*st).to_string(), *n))
                    .collect(),
            })
        })
        .collect()
}

/// Java's `Double.toString`: shortest round-trip digits, always a decimal point, and
/// scientific notation (`1.2345678E7`) outside `[1e-3, 1e7)`.
pub fn java_double(v: f64) -> String {
    if v == 0.0 {
        return "0.0".into();
    }
    let a = v.abs();
    if (1e-3..1e7).contains(&a) {
        let s = format!("{v}");
        if s.contains('.') { s } else { format!("{s}.0") }
    } else {
        let s = format!("{v:e}");
        let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
        let mantissa = if mantissa.contains('.') {
            mantissa.to_string()
        } else {
            format!("{mantissa}.0")
        };
        format!("{mantissa}E{exp}")
    }
}

/// YCSB's text exporter for one phase.
pub fn write_text(out: &mut dyn Write, r: &PhaseReport) -> std::io::Result<()> {
    writeln!(out, "[OVERALL], RunTime(ms), {}", r.runtime_ms)?;
    writeln!(
        out,
        "[OVERALL], Throughput(ops/sec), {}",
        java_double(r.throughput)
    )?;
    for op in &r.ops {
        let name = &op.operation;
        writeln!(out, "[{name}], Operations, {}", op.operations)?;
        writeln!(
            out,
            "[{name}], AverageLatency(us), {}",
            java_double(op.average_us)
        )?;
        writeln!(out, "[{name}], MinLatency(us), {}", op.min_us)?;
        writeln!(out, "[{name}], MaxLatency(us), {}", op.max_us)?;
        writeln!(out, "[{name}], 95thPercentileLatency(us), {}", op.p95_us)?;
        writeln!(out, "[{name}], 99thPercentileLatency(us), {}", op.p99_us)?;
        for (status, n) in &op.returns {
            writeln!(out, "[{name}], Return={status}, {n}")?;
        }
    }
    Ok(())
}

/// YCSB's `RandomByteIterator`: printable bytes, six from each random 32-bit number.
fn random_value(rng: &mut SmallRng, len: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(len);
    while out.len() < len {
        let b: u32 = rng.random();
        for v in [
            ((b >> 25) & 95) as u8,
            ((b >> 20) & 63) as u8,
            ((b >> 15) & 31) as u8,
            ((b >> 10) & 95) as u8,
            ((b >> 5) & 63) as u8,
            (b & 31) as u8,
        ] {
            if out.len() < len {
                out.push(b' ' + v);
            }
        }
    }
    out
}

struct Worker<'a> {
    engine: &'a dyn engine::Engine,
    opts: &'a YcsbOptions,
    rng: SmallRng,
    field_names: Vec<Vec<u8>>,
    m: Measurements,
    /// With `-s`: this thread's measurements since the last status line, which the status
    /// thread takes each interval (one lock per thread, so threads do not contend).
    interval: Option<&'a Mutex<Measurements>>,
}

/// Locks `m`, taking the data of a poisoned lock too: a panicked thread's figures are
/// still figures, and the status line is not worth a second panic.
fn lock(m: &Mutex<Measurements>) -> std::sync::MutexGuard<'_, Measurements> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Worker<'_> {
    fn record(&mut self, op: &'static str, started: Instant, status: &'static str) {
        let took = started.elapsed();
        self.m.record(op, took, status);
        if let Some(i) = self.interval {
            lock(i).record(op, took, status);
        }
    }

    fn key(&self, n: u64) -> String {
        ycsb_key(n, self.opts.ordered, 1)
    }

    fn insert(&mut self, n: u64) -> Result<()> {
        let key = self.key(n);
        let values: Vec<Vec<u8>> = (0..self.opts.fields)
            .map(|_| random_value(&mut self.rng, self.opts.field_length))
            .collect();
        let cells: Vec<CellRef<'_>> = self
            .field_names
            .iter()
            .zip(&values)
            .map(|(f, v)| (FAMILY, f.as_slice(), v.as_slice()))
            .collect();
        let t = Instant::now();
        self.engine.put(key.as_bytes(), &cells)?;
        self.record("INSERT", t, "OK");
        Ok(())
    }

    fn read(&mut self, key: &str) -> Result<()> {
        let t = Instant::now();
        let n = self.engine.get(key.as_bytes(), None)?;
        self.record("READ", t, if n > 0 { "OK" } else { "NOT_FOUND" });
        Ok(())
    }

    fn update(&mut self, key: &str) -> Result<()> {
        // writeallfields=false: one random field.
        let f = self.rng.random_range(0..self.opts.fields);
        let v = random_value(&mut self.rng, self.opts.field_length);
        let t = Instant::now();
        self.engine
            .put(key.as_bytes(), &[(FAMILY, &self.field_names[f], &v)])?;
        self.record("UPDATE", t, "OK");
        Ok(())
    }
}

/// Runs the phases of `opts`, printing YCSB's text (or JSON) to `out`.
pub fn run_to(opts: &YcsbOptions, out: &mut dyn Write) -> Result<Vec<PhaseReport>> {
    if opts.threads == 0 || opts.fields == 0 {
        return Err(Error::Usage(
            "--threads and --fields must be at least 1".into(),
        ));
    }
    let mut spec = TableSpec::new(&opts.table, FAMILY);
    spec.columns = opts.fields;
    spec.sync = opts.sync;
    spec.block_cache = opts.block_cache;
    spec.compression = opts.compression;
    spec.block_size = opts.block_size;
    spec.memtable_bytes = opts.memtable_bytes;
    spec.block_encoding = opts.block_encoding.clone();
    std::fs::create_dir_all(&opts.data)?;
    let engine = engine::open(opts.engine, &opts.data, &spec)?;
    let mut reports = Vec::new();
    // YCSB runs each phase as its own client invocation (`ycsb load`, `ycsb run`), which
    // says "Loading workload..." and "Starting test." on standard error. One process runs
    // both here, so each phase is also labelled: on standard error before its status lines,
    // and on standard output before its measurements (a `#` line, which parsers of YCSB's
    // `[SECTION], metric, value` lines skip).
    if matches!(opts.phase, Phase::Load | Phase::Both) {
        eprintln!("{}", phase_label(opts, "load"));
        eprintln!("Loading workload...");
        eprintln!("Starting test.");
        reports.push(load(engine.as_ref(), opts)?);
    }
    if matches!(opts.phase, Phase::Run | Phase::Both) {
        eprintln!("{}", phase_label(opts, "run"));
        eprintln!("Loading workload...");
        eprintln!("Starting test.");
        reports.push(run_phase(engine.as_ref(), opts)?);
    }
    drop(engine);
    if opts.json {
        let text = serde_json::to_string_pretty(&serde_json::json!({
            "engine": opts.engine,
            "workload": opts.workload,
            "records": opts.records,
            "operations": opts.operations,
            "threads": opts.threads,
            "phases": reports,
        }))
        .map_err(|e| Error::Engine(format!("JSON: {e}")))?;
        writeln!(out, "{text}")?;
    } else {
        for r in &reports {
            writeln!(out, "{}", phase_label(opts, r.phase))?;
            write_text(out, r)?;
        }
    }
    Ok(reports)
}

/// [`run_to`] on standard output.
pub fn run(opts: &YcsbOptions) -> Result<Vec<PhaseReport>> {
    run_to(opts, &mut std::io::stdout().lock())
}

fn field_names(n: usize) -> Vec<Vec<u8>> {
    (0..n).map(|i| format!("field{i}").into_bytes()).collect()
}

/// Splits `total` over `threads` as YCSB does: the first `total % threads` get one more.
fn share(total: u64, threads: usize, t: usize) -> u64 {
    total / threads as u64 + u64::from((t as u64) < total % threads as u64)
}

/// The line that labels a phase's output: `# load phase: workload a, recordcount=N,
/// threadcount=T` (or `# run phase: ... operationcount=N ...`).
fn phase_label(opts: &YcsbOptions, phase: &str) -> String {
    let (what, n) = if phase == "load" {
        ("recordcount", opts.records)
    } else {
        ("operationcount", opts.operations)
    };
    format!(
        "# {phase} phase: workload {}, {what}={n}, threadcount={}",
        opts.workload.name, opts.threads
    )
}

/// Java's `DecimalFormat("#.##")`, which YCSB's status line uses: at most two decimals,
/// no trailing zeros, no trailing point.
fn decimal2(v: f64) -> String {
    let s = format!("{v:.2}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" { "0".into() } else { s.into() }
}

/// YCSB's `RemainingFormatter`: days and hours, minutes below a day, seconds only below a
/// minute, each word followed by a space.
fn remaining(seconds: u64) -> String {
    let (days, hours) = (seconds / 86_400, seconds % 86_400 / 3600);
    let minutes = seconds % 3600 / 60;
    let mut s = String::new();
    let unit = |n: u64, one: &str, many: &str| format!("{n} {} ", if n == 1 { one } else { many });
    if days > 0 {
        s.push_str(&unit(days, "day", "days"));
    }
    if hours > 0 {
        s.push_str(&unit(hours, "hour", "hours"));
    }
    if days == 0 && minutes > 0 {
        s.push_str(&unit(minutes, "minute", "minutes"));
    }
    if s.is_empty() {
        s.push_str(&unit(seconds, "second", "seconds"));
    }
    s
}

/// `yyyy-MM-dd HH:mm:ss:SSS`, YCSB's status time stamp (in UTC: no time zone database).
fn status_time(ms: i64) -> String {
    let (secs, milli) = (ms.div_euclid(1000), ms.rem_euclid(1000));
    let (days, tod) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (y, mo, d) = regionkv::cell::civil_from_days(days);
    format!(
        "{y:04}-{mo:02}-{d:02} {:02}:{:02}:{:02}:{milli:03}",
        tod / 3600,
        tod % 3600 / 60,
        tod % 60
    )
}

/// One YCSB status line: `<time> <N> sec: <ops> operations; <x> current ops/sec; [est
/// completion in ...] [READ: Count=.., Max=.., Min=.., Avg=.., 90=.., 99=.., 99.9=..,
/// 99.99=..] ...`, the latencies (µs) of the interval since the previous line. An
/// operation measured earlier in the phase (`seen`) is printed even when its interval
/// holds none, with HdrHistogram's figures of an empty histogram (all 0), as YCSB's
/// measurements, registered at their first use, print on every line after it.
fn status_line(
    now_ms: i64,
    elapsed: Duration,
    ops: u64,
    current: f64,
    total: u64,
    interval: &Measurements,
    seen: &std::collections::BTreeSet<&'static str>,
) -> String {
    let mut s = format!(
        "{} {} sec: {ops} operations; ",
        status_time(now_ms),
        elapsed.as_secs()
    );
    if ops != 0 {
        s.push_str(&format!("{} current ops/sec; ", decimal2(current)));
    }
    if ops < total && ops > 0 {
        // YCSB estimates from the throughput so far.
        let per_sec = ops as f64 / elapsed.as_secs_f64().max(1e-3);
        let left = ((total - ops) as f64 / per_sec) as u64;
        s.push_str(&format!("est completion in {}", remaining(left)));
    }
    for op in OPS {
        let Some(l) = interval.latency.get(op) else {
            if seen.contains(op) {
                s.push_str(&format!(
                    "[{op}: Count=0, Max=0, Min=0, Avg=0, 90=0, 99=0, 99.9=0, 99.99=0] "
                ));
            }
            continue;
        };
        let q = l.summary();
        s.push_str(&format!(
            "[{op}: Count={}, Max={}, Min={}, Avg={}, 90={}, 99={}, 99.9={}, 99.99={}] ",
            q.count,
            q.max as u64,
            q.min as u64,
            decimal2(q.mean),
            l.quantile_us(0.90) as u64,
            q.p99 as u64,
            q.p999 as u64,
            q.p9999 as u64,
        ));
    }
    s.trim_end().to_string()
}

/// YCSB's status thread (`-s`): a line on standard error every `every`, and a last one
/// when the phase ends (when `stop`'s sender is dropped).
fn status_loop(
    every: Duration,
    started: Instant,
    total: u64,
    done: &AtomicU64,
    slots: &[Mutex<Measurements>],
    stop: std::sync::mpsc::Receiver<()>,
) {
    let (mut last_at, mut last_ops) = (started, 0u64);
    let mut seen = std::collections::BTreeSet::new();
    loop {
        let finished = !matches!(
            stop.recv_timeout(every),
            Err(std::sync::mpsc::RecvTimeoutError::Timeout)
        );
        let now = Instant::now();
        let mut interval = Measurements::default();
        for slot in slots {
            interval.merge(&std::mem::take(&mut *lock(slot)));
        }
        // Read after taking the intervals, so the count covers every operation they hold.
        let ops = done.load(Ordering::Relaxed);
        let secs = now.duration_since(last_at).as_secs_f64();
        let current = if secs > 0.0 {
            (ops - last_ops.min(ops)) as f64 / secs
        } else {
            0.0
        };
        let wall = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as i64);
        let line = status_line(
            wall,
            now.duration_since(started),
            ops,
            current,
            total,
            &interval,
            &seen,
        );
        seen.extend(interval.latency.keys().copied());
        // A closed standard error is no reason to stop the benchmark.
        let _ = writeln!(std::io::stderr().lock(), "{line}");
        if finished {
            return;
        }
        (last_at, last_ops) = (now, ops);
    }
}

fn phase_threads<F>(
    engine: &dyn engine::Engine,
    opts: &YcsbOptions,
    name: &'static str,
    salt: u64,
    body: F,
) -> Result<PhaseReport>
where
    F: Fn(&mut Worker<'_>, u64, &AtomicU64) -> Result<u64> + Sync,
{
    let io_before = ProcessIo::now();
    let started = Instant::now();
    let done = AtomicU64::new(0);
    let slots: Vec<Mutex<Measurements>> = (0..opts.threads)
        .map(|_| Mutex::new(Measurements::default()))
        .collect();
    let total = opts_total(opts, name);
    let results: Vec<Result<(Measurements, u64)>> = std::thread::scope(|s| {
        let (stop, stopped) = std::sync::mpsc::channel::<()>();
        let (done, slots) = (&done, &slots);
        let status = opts.status.then(|| {
            s.spawn(move || status_loop(opts.status_interval, started, total, done, slots, stopped))
        });
        let handles: Vec<_> = (0..opts.threads)
            .map(|t| {
                let body = &body;
                s.spawn(move || {
                    let mut w = Worker {
                        engine,
                        opts,
                        rng: rng(opts.seed ^ salt, t),
                        field_names: field_names(opts.fields),
                        m: Measurements::default(),
                        interval: opts.status.then(|| &slots[t]),
                    };
                    // YCSB also reports a [CLEANUP] operation per thread (its DB.cleanup());
                    // threads here share one embedded engine and have nothing to clean up,
                    // so no CLEANUP figures are printed rather than empty ones.
                    let n = body(&mut w, share(total, opts.threads, t), done)?;
                    Ok((w.m, n))
                })
            })
            .collect();
        let results = handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(Error::Engine("a YCSB thread panicked".into())))
            })
            .collect();
        // Dropping the sender wakes the status thread for its last line.
        drop(stop);
        if let Some(h) = status {
            let _ = h.join();
        }
        results
    });
    let runtime = started.elapsed();
    let mut m = Measurements::default();
    let mut done = 0;
    for r in results {
        let (mm, n) = r?;
        m.merge(&mm);
        done += n;
    }
    let mut io = ProcessIo::now();
    io.write_bytes = io.write_bytes.saturating_sub(io_before.write_bytes);
    io.read_bytes = io.read_bytes.saturating_sub(io_before.read_bytes);
    let ms = runtime.as_millis() as u64;
    Ok(PhaseReport {
        phase: name,
        runtime_ms: ms,
        operations: done,
        throughput: done as f64 * 1000.0 / ms.max(1) as f64,
        ops: op_reports(&m),
        io,
    })
}

fn opts_total(opts: &YcsbOptions, phase: &str) -> u64 {
    if phase == "load" {
        opts.records
    } else {
        opts.operations
    }
}

fn load(engine: &dyn engine::Engine, opts: &YcsbOptions) -> Result<PhaseReport> {
    // The load's key sequence is shared by every thread (YCSB's CounterGenerator).
    let next = std::sync::atomic::AtomicU64::new(0);
    let r = phase_threads(engine, opts, "load", 0x10AD, |w, n, done| {
        for _ in 0..n {
            let k = next.fetch_add(1, Ordering::Relaxed);
            w.insert(k)?;
            done.fetch_add(1, Ordering::Relaxed);
        }
        Ok(n)
    })?;
    engine.flush()?;
    engine.settle()?;
    Ok(r)
}

fn run_phase(engine: &dyn engine::Engine, opts: &YcsbOptions) -> Result<PhaseReport> {
    let wl = &opts.workload;
    let inserts = InsertCounter::new(opts.records);
    // YCSB sizes the zipfian key space for the inserts the run is expected to make.
    let expected_new = (opts.operations as f64 * wl.insert * 2.0) as u64;
    let ops: Vec<(&'static str, f64)> = [
        ("READ", wl.read),
        ("UPDATE", wl.update),
        ("INSERT", wl.insert),
        ("SCAN", wl.scan),
        ("READ-MODIFY-WRITE", wl.read_modify_write),
    ]
    .into_iter()
    .filter(|(_, p)| *p > 0.0)
    .collect();
    let sum: f64 = ops.iter().map(|(_, p)| p).sum();
    phase_threads(engine, opts, "run", 0x5EED, |w, n, done| {
        let mut chooser = match wl.distribution {
            Distribution::Zipfian => KeyChooser::new(wl.distribution, opts.records + expected_new),
            d => KeyChooser::new(d, opts.records),
        };
        for _ in 0..n {
            // YCSB's DiscreteGenerator.
            let mut u: f64 = w.rng.random();
            let mut op = ops.last().map_or("READ", |o| o.0);
            for (name, p) in &ops {
                let p = p / sum;
                if u < p {
                    op = name;
                    break;
                }
                u -= p;
            }
            let limit = inserts.limit();
            match op {
                "INSERT" => {
                    let k = inserts.next();
                    w.insert(k)?;
                    inserts.acknowledge(k);
                }
                "READ" => {
                    let n = chooser.next(&mut w.rng, limit);
                    let k = w.key(n);
                    w.read(&k)?;
                }
                "UPDATE" => {
                    let n = chooser.next(&mut w.rng, limit);
                    let k = w.key(n);
                    w.update(&k)?;
                }
                "SCAN" => {
                    let n = chooser.next(&mut w.rng, limit);
                    let k = w.key(n);
                    let len = w.rng.random_range(1..=wl.max_scan_length.max(1));
                    let t = Instant::now();
                    engine.scan(k.as_bytes(), None, len)?;
                    w.record("SCAN", t, "OK");
                }
                _ => {
                    let n = chooser.next(&mut w.rng, limit);
                    let k = w.key(n);
                    let t = Instant::now();
                    w.read(&k)?;
                    w.update(&k)?;
                    w.record("READ-MODIFY-WRITE", t, "OK");
                }
            }
            done.fetch_add(1, Ordering::Relaxed);
        }
        Ok(n)
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn java_doubles_print_like_java() {
        assert_eq!(java_double(968.0542110358181), "968.0542110358181");
        assert_eq!(java_double(1447.0), "1447.0");
        assert_eq!(java_double(12_345_678.0), "1.2345678E7");
        assert_eq!(java_double(0.00095), "9.5E-4");
        assert_eq!(java_double(0.0), "0.0");
        assert_eq!(java_double(1e7), "1.0E7");
    }

    #[test]
    fn status_lines_have_ycsbs_shape() {
        assert_eq!(decimal2(1234.5), "1234.5");
        assert_eq!(decimal2(7.0), "7");
        assert_eq!(decimal2(0.004), "0");
        assert_eq!(remaining(59), "59 seconds ");
        assert_eq!(remaining(61), "1 minute ");
        assert_eq!(remaining(3 * 3600 + 120), "3 hours 2 minutes ");
        assert_eq!(remaining(2 * 86_400 + 3600 + 60), "2 days 1 hour ");
        assert_eq!(status_time(1_700_000_000_123), "2023-11-14 22:13:20:123");
        let mut m = Measurements::default();
        m.record("READ", Duration::from_micros(100), "OK");
        m.record("READ", Duration::from_micros(300), "OK");
        let none = std::collections::BTreeSet::new();
        let line = status_line(
            1_700_000_000_123,
            Duration::from_secs(10),
            2,
            0.2,
            4,
            &m,
            &none,
        );
        assert!(
            line.starts_with(
                "2023-11-14 22:13:20:123 10 sec: 2 operations; 0.2 current ops/sec; \
                 est completion in 10 seconds [READ: Count=2, Max=300, Min="
            ),
            "{line}"
        );
        assert!(
            line.ends_with(", 90=300, 99=300, 99.9=300, 99.99=300]"),
            "{line}"
        );
        // An interval without reads after earlier ones: YCSB still prints READ, at zero
        // (a tick between the last operation and the phase's end gives such a line).
        let seen = std::collections::BTreeSet::from(["READ"]);
        let empty = Measurements::default();
        let line = status_line(
            1_700_000_000_123,
            Duration::from_secs(11),
            4,
            0.0,
            4,
            &empty,
            &seen,
        );
        assert!(
            line.ends_with(
                "4 operations; 0 current ops/sec; \
                 [READ: Count=0, Max=0, Min=0, Avg=0, 90=0, 99=0, 99.9=0, 99.99=0]"
            ),
            "{line}"
        );
        let line = status_line(
            1_700_000_000_123,
            Duration::from_secs(11),
            4,
            0.0,
            4,
            &empty,
            &none,
        );
        assert!(line.ends_with("4 operations; 0 current ops/sec;"), "{line}");
    }

    #[test]
    fn workloads_match_ycsb_files() {
        let a = Workload::core('a').unwrap();
        assert_eq!((a.read, a.update), (0.5, 0.5));
        let d = Workload::core('d').unwrap();
        assert_eq!(d.distribution, Distribution::Latest);
        let e = Workload::core('e').unwrap();
        assert_eq!((e.scan, e.insert, e.max_scan_length), (0.95, 0.05, 100));
        assert!(Workload::core('g').is_err());
        let mut rng = rng(1, 0);
        let v = random_value(&mut rng, 100);
        assert_eq!(v.len(), 100);
        assert!(v.iter().all(|b| (b' '..=b'~').contains(b) || *b == 127));
        assert_eq!(
            (0..3).map(|t| share(10, 3, t)).collect::<Vec<_>>(),
            [4, 3, 3]
        );
    }

    #[test]
    fn every_workload_loads_and_runs() {
        let dir = tempfile::tempdir().unwrap();
        for w in ['a', 'b', 'c', 'd', 'e', 'f'] {
            let mut o = YcsbOptions::new(Workload::core(w).unwrap());
            o.records = 300;
            o.operations = 400;
            o.threads = 2;
            o.seed = 9;
            o.data = dir.path().join(format!("w{w}"));
            let mut out = Vec::new();
            let r = run_to(&o, &mut out).unwrap();
            assert_eq!(r.len(), 2);
            assert_eq!(r[0].operations, 300, "{w}");
            assert_eq!(r[1].operations, 400, "{w}");
            let text = String::from_utf8(out).unwrap();
            assert!(text.contains("[OVERALL], Throughput(ops/sec), "), "{text}");
            assert!(text.contains("[INSERT], Operations, 300"), "{text}");
            let count = |op: &str| {
                r[1].ops
                    .iter()
                    .find(|o| o.operation == op)
                    .map_or(0, |o| o.operations)
            };
            match w {
                'a' => assert_eq!(count("READ") + count("UPDATE"), 400),
                'c' => assert_eq!(count("READ"), 400),
                'e' => assert_eq!(count("SCAN") + count("INSERT"), 400),
                'f' => assert_eq!(count("READ"), 400, "RMW reads are READs too"),
                _ => {}
            }
            // Every read of a loaded record finds it.
            let reads = r[1].ops.iter().find(|o| o.operation == "READ");
            if let Some(reads) = reads {
                assert_eq!(reads.returns.get("NOT_FOUND"), None, "{w}: {reads:?}");
            }
        }
    }

    #[test]
    fn a_uniform_run_on_a_compressed_table_with_the_suite_settings() {
        // requestdistribution=uniform (`--distribution`), and the table settings the
        // comparison suite passes (LZ4, 4 KiB blocks, 64 MiB memstore).
        let dir = tempfile::tempdir().unwrap();
        let mut o = YcsbOptions::new(Workload::core('c').unwrap());
        o.workload.distribution = Distribution::Uniform;
        o.records = 500;
        o.operations = 2000;
        o.seed = 3;
        o.compression = Compression::Lz4;
        o.block_size = Some(4096);
        o.memtable_bytes = Some(64 << 20);
        o.data = dir.path().join("u");
        let r = run_to(&o, &mut Vec::new()).unwrap();
        let reads = r[1].ops.iter().find(|o| o.operation == "READ").unwrap();
        assert_eq!(reads.operations, 2000);
        assert_eq!(reads.returns.get("NOT_FOUND"), None);
        let db = regionkv::Db::open(&o.data, regionkv::DbOptions::default()).unwrap();
        let d = db.admin().describe("usertable").unwrap();
        assert_eq!(d.families[0].block_size, 4096);
        assert_eq!(d.memstore_flush_size, 64 << 20);
        assert_eq!(format!("{:?}", d.families[0].compression), "Lz4");
    }
}
