//! The comparison suite (`regionkv bench compare`): db_bench's classic benchmarks and YCSB
//! A/B against regionkv, RocksDB and fjall with the same keys, values, cache, memtable
//! size and durability, plus write amplification, space amplification, peak memory and
//! memtable memory per cell.
//!
//! One engine runs per process ([`run_engine`], the `regionkv bench engine` command), so
//! that `/proc/self/io` and the peak resident set (`VmHWM`) belong to that engine alone;
//! `regionkv bench compare` starts one such process per engine and renders the reports
//! side by side with ratios to RocksDB ([`render`]).
//!
//! The workload follows db_bench: keys are 16 bytes (the decimal key number, zero padded;
//! the suite writes even numbers so that odd ones are known to be missing), values are
//! `value_size` bytes of which half is random and half repeats it (db_bench's
//! `--compression_ratio=0.5`). `fillrandom` writes every key once in a shuffled order,
//! `overwrite` writes `num` uniformly random keys again; the read benchmarks run on that
//! database after a flush (all data is read from files), one client thread each.
//!
//! `threads` (`--threads 1,2,4,8`) adds client threads: for each count above 1 the
//! workloads of [`THREADED`] run again on a fresh database, the counts' work shared
//! between the threads (the same total operations as one thread), each thread with its
//! own key stream; a result carries its thread count.

use crate::engine::{self, CellRef, Compression, Engine, EngineKind, TableSpec};
use crate::generator::rng;
use crate::stats::{Latency, ProcessIo, disk_usage};
use crate::ycsb::{Phase, Workload, YcsbOptions};
use crate::{Error, Result};
use rand::RngExt;
use rand::rngs::SmallRng;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The suite's benchmarks, in the order they run.
pub const BENCHMARKS: &[&str] = &[
    "fillseq",
    "fillrandom",
    "overwrite",
    "readrandom",
    "readmissing",
    "seekrandom",
    "readseq",
    "fillsync",
    "fillsync2",
    "ycsba",
    "ycsbb",
    "memtable",
];

/// How every engine's table is set up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Profile {
    /// The suite's tuned settings, the same for every engine: `block_size` data blocks,
    /// `memtable_bytes` memtables (4 KiB and 64 MiB by default).
    #[default]
    Suite,
    /// Each engine exactly as a user creates it: regionkv a table with HBase's defaults
    /// (BLOCKSIZE 64 KiB, MEMSTORE_FLUSHSIZE 128 MiB, BLOOMFILTER ROW) and RocksDB and
    /// fjall their own (4 KiB blocks, 64 MiB memtables). The only shared knobs are the
    /// cache size and the compression.
    Defaults,
}

impl Profile {
    /// Parses `suite` or `defaults`.
    pub fn parse(s: &str) -> Result<Self> {
        match s {
            "suite" => Ok(Self::Suite),
            "defaults" => Ok(Self::Defaults),
            _ => Err(Error::Usage(format!(
                "unknown profile '{s}' (suite or defaults)"
            ))),
        }
    }

    /// The name as given on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Self::Suite => "suite",
            Self::Defaults => "defaults",
        }
    }
}

/// The benchmarks that run again for each thread count above 1.
pub const THREADED: &[&str] = &["fillrandom", "overwrite", "readrandom", "ycsba", "ycsbb"];

fn one_thread() -> Vec<usize> {
    vec![1]
}

fn is_one(n: &usize) -> bool {
    *n == 1
}

/// Options of a comparison run (db_bench's names where it has one).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CompareOptions {
    /// The suite's settings or each engine's defaults.
    #[serde(default)]
    pub profile: Profile,
    /// Keys written by the fill benchmarks (`--num`).
    pub num: u64,
    /// Value bytes (`--value_size`).
    pub value_size: usize,
    /// Reads of readrandom and readmissing (`--reads`; default `num`).
    pub reads: u64,
    /// Seeks of seekrandom, each followed by 10 nexts (default `num / 10`).
    pub seeks: u64,
    /// Synced puts of fillsync (and in all of fillsync2's two threads).
    pub sync_ops: u64,
    /// YCSB records and operations.
    pub ycsb_records: u64,
    /// YCSB operations.
    pub ycsb_operations: u64,
    /// Block cache bytes (`--cache_size`).
    pub cache_bytes: u64,
    /// Memtable (memstore) size for every engine (`--write_buffer_size`; suite profile
    /// only).
    pub memtable_bytes: u64,
    /// LZ4 block compression (default) or none.
    pub lz4: bool,
    /// Data block size of every engine (`--block_size`; default 4 KiB, RocksDB's and
    /// fjall's default; HBase's BLOCKSIZE default is 64 KiB; suite profile only).
    pub block_size: u32,
    /// regionkv's DATA_BLOCK_ENCODING => PREFIX (default off: HBase's NONE).
    pub prefix_encoding: bool,
    /// Benchmarks to run, a subset of [`BENCHMARKS`].
    pub benchmarks: Vec<String>,
    /// Where the databases go (one sub-directory per engine and benchmark).
    pub data: PathBuf,
    /// Random seed.
    pub seed: u64,
    /// Client thread counts (`--threads`): 1 is the whole suite, each other count runs
    /// [`THREADED`] with that many threads.
    #[serde(default = "one_thread")]
    pub threads: Vec<usize>,
}

impl Default for CompareOptions {
    fn default() -> Self {
        Self {
            profile: Profile::Suite,
            num: 1_000_000,
            value_size: 100,
            reads: 1_000_000,
            seeks: 100_000,
            sync_ops: 20_000,
            ycsb_records: 100_000,
            ycsb_operations: 200_000,
            cache_bytes: 32 << 20,
            memtable_bytes: 64 << 20,
            lz4: true,
            block_size: 4096,
            prefix_encoding: false,
            benchmarks: BENCHMARKS.iter().map(|s| (*s).to_string()).collect(),
            data: PathBuf::from("regionkv-compare-data"),
            seed: 0x5EED,
            threads: one_thread(),
        }
    }
}

impl CompareOptions {
    /// Checks the benchmark names.
    pub fn validate(&self) -> Result<()> {
        if let Some(b) = self
            .benchmarks
            .iter()
            .find(|b| !BENCHMARKS.contains(&b.as_str()))
        {
            return Err(Error::Usage(format!(
                "unknown benchmark '{b}' (one of {})",
                BENCHMARKS.join(", ")
            )));
        }
        if self.threads.is_empty() || self.threads.contains(&0) {
            return Err(Error::Usage(
                "--threads takes counts of at least 1, e.g. 1,2,4,8".into(),
            ));
        }
        if self.num == 0 || self.value_size == 0 {
            return Err(Error::Usage(
                "--num and --value-size must be positive".into(),
            ));
        }
        Ok(())
    }

    fn wants(&self, name: &str) -> bool {
        self.benchmarks.iter().any(|b| b == name)
    }

    fn spec(&self, sync: bool) -> TableSpec {
        let mut spec = TableSpec::new("bench", b"cf");
        spec.compression = if self.lz4 {
            Compression::Lz4
        } else {
            Compression::None
        };
        spec.block_cache = self.cache_bytes;
        if self.profile == Profile::Suite {
            spec.memtable_bytes = Some(self.memtable_bytes);
            spec.block_size = Some(self.block_size);
        }
        // HBase's default DATA_BLOCK_ENCODING is NONE (also in the defaults profile); PREFIX is the closest to the key
        // delta encoding RocksDB and fjall always use (measured both ways in
        // docs/benchmarks.md: PREFIX saves 4% of disk and costs 15-25% of read speed).
        spec.block_encoding = if self.prefix_encoding {
            "PREFIX"
        } else {
            "NONE"
        }
        .into();
        spec.sync = sync;
        spec
    }
}

/// One benchmark's result.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct BenchResult {
    /// Benchmark name.
    pub name: String,
    /// Operations (for readseq: cells read).
    pub ops: u64,
    /// Wall time in seconds.
    pub seconds: f64,
    /// Operations per second.
    pub ops_per_sec: f64,
    /// Median latency, µs.
    pub p50_us: f64,
    /// 99th percentile latency, µs.
    pub p99_us: f64,
    /// Reads that found their key (read benchmarks).
    pub found: u64,
    /// Client threads.
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub threads: usize,
}

fn one() -> usize {
    1
}

/// Everything one engine measured.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct EngineReport {
    /// Engine name.
    pub engine: String,
    /// Benchmark results in run order.
    pub results: Vec<BenchResult>,
    /// Bytes written to storage during fillrandom + overwrite and the flushes and
    /// compactions they caused (until the engine settled), over the user bytes written.
    pub write_amp: Option<f64>,
    /// Bytes on disk after a full compaction over the live user bytes (`num` keys and
    /// values).
    pub space_amp: Option<f64>,
    /// Bytes on disk after a full compaction.
    pub disk_bytes: Option<u64>,
    /// Memtable memory per cell (resident-set growth while `num` cells sit in the
    /// memtable, over `num`).
    pub memtable_bytes_per_cell: Option<f64>,
    /// The raw bytes of one cell as the engine stores it: key + value for the peers; row +
    /// family + qualifier + timestamp + type + value for regionkv.
    pub raw_bytes_per_cell: Option<f64>,
    /// Peak resident set of the process (`VmHWM`), bytes.
    pub peak_rss: u64,
}

/// The 16-byte key of key number `n`.
pub fn key(n: u64) -> [u8; 16] {
    let mut k = [b'0'; 16];
    let mut d = n;
    for slot in k.iter_mut().rev() {
        *slot = b'0' + (d % 10) as u8;
        d /= 10;
    }
    k
}

/// db_bench's value generator: a 1 MiB pool of pieces that are half random printable
/// bytes and half a repeat of them, sliced at a moving offset.
pub struct ValueGen {
    pool: Vec<u8>,
    pos: usize,
    len: usize,
}

impl ValueGen {
    /// A generator of `len`-byte values.
    pub fn new(seed: u64, len: usize) -> Self {
        let mut r = rng(seed, 0);
        let mut pool = Vec::with_capacity((1 << 20).max(len * 2));
        while pool.len() < (1 << 20).max(len * 2) {
            let piece = 100.min(len).max(1);
            let random = piece.div_ceil(2);
            let start = pool.len();
            for _ in 0..random {
                pool.push(r.random_range(b' '..=b'~'));
            }
            while pool.len() - start < piece {
                let i = start + (pool.len() - start) % random;
                pool.push(pool[i]);
            }
        }
        Self { pool, pos: 0, len }
    }

    /// The next value.
    pub fn next_value(&mut self) -> &[u8] {
        if self.pos + self.len > self.pool.len() {
            self.pos = 0;
        }
        let v = &self.pool[self.pos..self.pos + self.len];
        self.pos += self.len;
        v
    }
}

fn cells<'a>(v: &'a [u8]) -> [CellRef<'a>; 1] {
    [(b"cf", b"q", v)]
}

struct Timer {
    lat: Latency,
    start: Instant,
    ops: u64,
    found: u64,
}

impl Timer {
    fn new() -> Self {
        Self {
            lat: Latency::new(),
            start: Instant::now(),
            ops: 0,
            found: 0,
        }
    }

    fn op<T>(&mut self, f: impl FnOnce() -> Result<T>) -> Result<T> {
        let t = Instant::now();
        let r = f()?;
        self.lat.record(t.elapsed());
        self.ops += 1;
        Ok(r)
    }

    fn done(self, name: &str) -> BenchResult {
        let seconds = self.start.elapsed().as_secs_f64();
        let s = self.lat.summary();
        BenchResult {
            name: name.to_string(),
            ops: self.ops,
            seconds,
            ops_per_sec: self.ops as f64 / seconds.max(1e-9),
            p50_us: s.p50,
            p99_us: s.p99,
            found: self.found,
            threads: 1,
        }
    }
}

/// Runs `body(thread, timer)` on `threads` threads at once and merges their timers into
/// one result: operations summed, latencies merged, the wall time of the whole.
fn parallel(
    threads: usize,
    name: &str,
    body: impl Fn(usize, &mut Timer) -> Result<()> + Sync,
) -> Result<BenchResult> {
    let start = Instant::now();
    let timers = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|th| {
                let body = &body;
                s.spawn(move || -> Result<Timer> {
                    let mut t = Timer::new();
                    body(th, &mut t)?;
                    Ok(t)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .map_err(|_| Error::Engine(format!("a {name} thread panicked")))?
            })
            .collect::<Result<Vec<_>>>()
    })?;
    let seconds = start.elapsed().as_secs_f64();
    let mut lat = Latency::new();
    let (mut ops, mut found) = (0, 0);
    for t in &timers {
        lat.merge(&t.lat);
        ops += t.ops;
        found += t.found;
    }
    let s = lat.summary();
    Ok(BenchResult {
        name: name.to_string(),
        ops,
        seconds,
        ops_per_sec: ops as f64 / seconds.max(1e-9),
        p50_us: s.p50,
        p99_us: s.p99,
        found,
        threads,
    })
}

/// Thread `t`'s share of `total` operations over `threads` (the first `total % threads`
/// threads take one more).
fn share(total: u64, threads: usize, t: usize) -> u64 {
    total / threads as u64 + u64::from((t as u64) < total % threads as u64)
}

/// Every key number below `num` once, in the order of the seed (Fisher–Yates).
fn shuffled(num: u64, r: &mut SmallRng) -> Vec<u64> {
    let mut order: Vec<u64> = (0..num).collect();
    for i in (1..order.len()).rev() {
        order.swap(i, r.random_range(0..=i));
    }
    order
}

fn fresh(dir: &Path) -> Result<()> {
    if dir.exists() {
        std::fs::remove_dir_all(dir)?;
    }
    std::fs::create_dir_all(dir)?;
    Ok(())
}

fn report(r: &BenchResult) {
    eprintln!(
        "{:<12} {:>12.0} ops/s  {:>9} ops in {:>7.2} s  p50 {:>8.1} µs  p99 {:>8.1} µs{}",
        r.name,
        r.ops_per_sec,
        r.ops,
        r.seconds,
        r.p50_us,
        r.p99_us,
        if r.found > 0 {
            format!("  ({} found)", r.found)
        } else {
            String::new()
        }
    );
}

/// The whole suite with one client thread.
fn run_single(kind: EngineKind, opts: &CompareOptions, out: &mut EngineReport) -> Result<()> {
    let root = opts.data.join(kind.name());
    fn push(out: &mut EngineReport, r: BenchResult) {
        report(&r);
        out.results.push(r);
    }
    let num = opts.num;
    let user_bytes_per_key = 16 + opts.value_size as u64;

    // First, while the allocator holds no memory freed by other benchmarks (which would
    // be reused without the resident set growing).
    if opts.wants("memtable") {
        let (per_cell, raw) = memtable_per_cell(kind, opts, &root.join("memtable"))?;
        eprintln!(
            "{:<12} {per_cell:>12.1} bytes/cell (raw {raw:.0})",
            "memtable"
        );
        out.memtable_bytes_per_cell = Some(per_cell);
        out.raw_bytes_per_cell = Some(raw);
    }
    if opts.wants("fillseq") {
        let dir = root.join("fillseq");
        fresh(&dir)?;
        let e = engine::open(kind, &dir, &opts.spec(false))?;
        let mut values = ValueGen::new(opts.seed, opts.value_size);
        let mut t = Timer::new();
        for i in 0..num {
            let v = values.next_value();
            t.op(|| e.put(&key(2 * i), &cells(v)))?;
        }
        push(out, t.done("fillseq"));
        drop(e);
        std::fs::remove_dir_all(&dir)?;
    }

    let main_wanted = [
        "fillrandom",
        "overwrite",
        "readrandom",
        "readmissing",
        "seekrandom",
        "readseq",
    ]
    .iter()
    .any(|b| opts.wants(b));
    if main_wanted {
        let dir = root.join("main");
        fresh(&dir)?;
        let e = engine::open(kind, &dir, &opts.spec(false))?;
        let mut r = rng(opts.seed, 1);
        let mut values = ValueGen::new(opts.seed, opts.value_size);
        let io0 = ProcessIo::now();
        // Every key once, shuffled, so the reads below always find theirs.
        let order = shuffled(num, &mut r);
        let mut user_bytes = 0u64;
        {
            let mut t = Timer::new();
            for n in &order {
                let v = values.next_value();
                t.op(|| e.put(&key(2 * n), &cells(v)))?;
            }
            user_bytes += num * user_bytes_per_key;
            if opts.wants("fillrandom") {
                push(out, t.done("fillrandom"));
            }
        }
        drop(order);
        if opts.wants("overwrite") {
            let mut t = Timer::new();
            for _ in 0..num {
                let n = r.random_range(0..num);
                let v = values.next_value();
                t.op(|| e.put(&key(2 * n), &cells(v)))?;
            }
            user_bytes += num * user_bytes_per_key;
            push(out, t.done("overwrite"));
        }
        e.flush()?;
        e.settle()?;
        let io1 = ProcessIo::now();
        out.write_amp =
            Some(io1.write_bytes.saturating_sub(io0.write_bytes) as f64 / user_bytes as f64);
        read_benchmarks(e.as_ref(), opts, &mut r, &mut |r| push(out, r))?;
        e.compact()?;
        drop(e);
        let disk = disk_usage(&dir);
        out.disk_bytes = Some(disk);
        eprintln!("{:<12} {}", "disk", disk_breakdown(&dir));
        out.space_amp = Some(disk as f64 / (num * user_bytes_per_key) as f64);
        std::fs::remove_dir_all(&dir)?;
    }

    for (name, threads) in [("fillsync", 1usize), ("fillsync2", 2)] {
        if opts.wants(name) {
            let r = fill_sync(kind, opts, &root.join(name), threads)?;
            // fillsync2 names its two threads; its row is not a thread-count row.
            push(
                out,
                BenchResult {
                    name: name.into(),
                    threads: 1,
                    ..r
                },
            );
        }
    }

    for name in ["ycsba", "ycsbb"] {
        if opts.wants(name) {
            push(out, ycsb(kind, opts, &root, name, 1)?);
        }
    }
    Ok(())
}

/// Runs the suite's benchmarks of `opts` on one engine, in this process. Progress goes to
/// standard error.
pub fn run_engine(kind: EngineKind, opts: &CompareOptions) -> Result<EngineReport> {
    opts.validate()?;
    let mut out = EngineReport {
        engine: kind.name().to_string(),
        results: Vec::new(),
        write_amp: None,
        space_amp: None,
        disk_bytes: None,
        memtable_bytes_per_cell: None,
        raw_bytes_per_cell: None,
        peak_rss: 0,
    };
    if opts.threads.contains(&1) {
        run_single(kind, opts, &mut out)?;
    }
    for &threads in opts.threads.iter().filter(|&&t| t > 1) {
        run_threaded(kind, opts, threads, &mut |r| {
            report(&r);
            out.results.push(r);
        })?;
    }
    out.peak_rss = ProcessIo::now().peak_rss;
    Ok(out)
}

/// YCSB workload `name` (`ycsba` or `ycsbb`) with `threads` client threads, on the
/// suite's table settings.
fn ycsb(
    kind: EngineKind,
    opts: &CompareOptions,
    root: &Path,
    name: &str,
    threads: usize,
) -> Result<BenchResult> {
    let w = if name == "ycsba" { 'a' } else { 'b' };
    let dir = root.join(format!("{name}-{threads}t"));
    fresh(&dir)?;
    let mut y = YcsbOptions::new(Workload::core(w)?);
    y.records = opts.ycsb_records;
    y.operations = opts.ycsb_operations;
    y.engine = kind;
    y.data = dir.clone();
    y.seed = opts.seed;
    y.threads = threads;
    // The suite's table settings (compression, block size, memtable size, encoding),
    // not each engine's defaults, as for every other row.
    let spec = opts.spec(false);
    y.block_cache = spec.block_cache;
    y.compression = spec.compression;
    y.block_size = spec.block_size;
    y.memtable_bytes = spec.memtable_bytes;
    y.block_encoding = spec.block_encoding;
    y.phase = Phase::Both;
    let phases = crate::ycsb::run_to(&y, &mut std::io::sink())?;
    std::fs::remove_dir_all(&dir)?;
    let run = phases
        .iter()
        .find(|p| p.phase == "run")
        .ok_or_else(|| Error::Engine(format!("{name}: the YCSB run phase reported nothing")))?;
    Ok(BenchResult {
        name: name.into(),
        ops: run.operations,
        seconds: run.runtime_ms as f64 / 1000.0,
        ops_per_sec: run.throughput,
        p50_us: 0.0,
        p99_us: 0.0,
        found: 0,
        threads,
    })
}

/// The workloads of [`THREADED`] with `threads` client threads: fillrandom (the shuffled
/// keys dealt out in contiguous shares), overwrite and readrandom (each thread its own
/// random stream) on one fresh database, flushed and settled before the reads as in the
/// one-thread suite; then YCSB A and B.
fn run_threaded(
    kind: EngineKind,
    opts: &CompareOptions,
    threads: usize,
    push: &mut dyn FnMut(BenchResult),
) -> Result<()> {
    let root = opts.data.join(kind.name());
    let num = opts.num;
    if ["fillrandom", "overwrite", "readrandom"]
        .iter()
        .any(|b| opts.wants(b))
    {
        let dir = root.join(format!("main-{threads}t"));
        fresh(&dir)?;
        let e = engine::open(kind, &dir, &opts.spec(false))?;
        let order = shuffled(num, &mut rng(opts.seed, 1));
        let chunk = order.len().div_ceil(threads).max(1);
        let fill = parallel(threads, "fillrandom", |th, t| {
            let mut values = ValueGen::new(opts.seed + th as u64, opts.value_size);
            for n in order.chunks(chunk).nth(th).unwrap_or_default() {
                let v = values.next_value();
                t.op(|| e.put(&key(2 * n), &cells(v)))?;
            }
            Ok(())
        })?;
        drop(order);
        if opts.wants("fillrandom") {
            push(fill);
        }
        if opts.wants("overwrite") {
            push(parallel(threads, "overwrite", |th, t| {
                let mut r = rng(opts.seed, 20 + th);
                let mut values = ValueGen::new(opts.seed + 100 + th as u64, opts.value_size);
                for _ in 0..share(num, threads, th) {
                    let n = r.random_range(0..num);
                    let v = values.next_value();
                    t.op(|| e.put(&key(2 * n), &cells(v)))?;
                }
                Ok(())
            })?);
        }
        e.flush()?;
        e.settle()?;
        if opts.wants("readrandom") {
            push(parallel(threads, "readrandom", |th, t| {
                let mut r = rng(opts.seed, 40 + th);
                for _ in 0..share(opts.reads, threads, th) {
                    let k = key(2 * r.random_range(0..num));
                    t.found += t.op(|| e.get(&k, None))? as u64;
                }
                Ok(())
            })?);
        }
        drop(e);
        std::fs::remove_dir_all(&dir)?;
    }
    for name in ["ycsba", "ycsbb"] {
        if opts.wants(name) {
            push(ycsb(kind, opts, &root, name, threads)?);
        }
    }
    Ok(())
}

fn read_benchmarks(
    e: &dyn Engine,
    opts: &CompareOptions,
    r: &mut SmallRng,
    push: &mut dyn FnMut(BenchResult),
) -> Result<()> {
    let num = opts.num;
    if opts.wants("readrandom") {
        let mut t = Timer::new();
        for _ in 0..opts.reads {
            let k = key(2 * r.random_range(0..num));
            t.found += t.op(|| e.get(&k, None))? as u64;
        }
        push(t.done("readrandom"));
    }
    if opts.wants("readmissing") {
        let mut t = Timer::new();
        for _ in 0..opts.reads {
            let k = key(2 * r.random_range(0..num) + 1);
            t.found += t.op(|| e.get(&k, None))? as u64;
        }
        push(t.done("readmissing"));
    }
    if opts.wants("seekrandom") {
        let mut t = Timer::new();
        for _ in 0..opts.seeks {
            let k = key(2 * r.random_range(0..num));
            // A seek and 10 nexts: 11 entries.
            t.found += t.op(|| e.scan(&k, None, 11))? as u64;
        }
        push(t.done("seekrandom"));
    }
    if opts.wants("readseq") {
        let start = Instant::now();
        let n = e.scan(b"", None, usize::MAX)? as u64;
        let seconds = start.elapsed().as_secs_f64();
        push(BenchResult {
            name: "readseq".into(),
            ops: n,
            seconds,
            ops_per_sec: n as f64 / seconds.max(1e-9),
            p50_us: 0.0,
            p99_us: 0.0,
            found: n,
            threads: 1,
        });
    }
    Ok(())
}

/// Synced puts (HBase's FSYNC_WAL; RocksDB `sync = true`; fjall `SyncData`) of random keys
/// from `threads` threads sharing `opts.sync_ops`.
fn fill_sync(
    kind: EngineKind,
    opts: &CompareOptions,
    dir: &Path,
    threads: usize,
) -> Result<BenchResult> {
    fresh(dir)?;
    let e = engine::open(kind, dir, &opts.spec(true))?;
    let per_thread = opts.sync_ops / threads as u64;
    let r = parallel(threads, "fillsync", |th, t| {
        let mut r = rng(opts.seed, 10 + th);
        let mut values = ValueGen::new(opts.seed + th as u64, opts.value_size);
        for _ in 0..per_thread {
            let k = key(2 * r.random_range(0..opts.num));
            let v = values.next_value();
            t.op(|| e.put(&k, &cells(v)))?;
        }
        Ok(())
    })?;
    drop(e);
    std::fs::remove_dir_all(dir)?;
    Ok(r)
}

/// "N MiB: a X, b Y" for the entries directly under `dir`, biggest first (where the
/// bytes after a full compaction are: files, logs, ...).
fn disk_breakdown(dir: &Path) -> String {
    let mut parts: Vec<(u64, String)> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| {
                    let p = e.path();
                    let n = if p.is_dir() {
                        disk_usage(&p)
                    } else {
                        e.metadata().map_or(0, |m| m.len())
                    };
                    (n, e.file_name().to_string_lossy().into_owned())
                })
                .collect()
        })
        .unwrap_or_default();
    parts.sort_by(|a, b| b.cmp(a));
    let mib = |n: u64| n as f64 / f64::from(1 << 20);
    let list: Vec<String> = parts
        .iter()
        .take(6)
        .map(|(n, name)| format!("{name} {:.1}", mib(*n)))
        .collect();
    format!("{:.1} MiB: {}", mib(disk_usage(dir)), list.join(", "))
}

fn current_rss() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
        })
        .map_or(0, |kb| kb * 1024)
}

/// Resident-set growth per cell while `num` cells sit in a memtable big enough to hold
/// them all (WAL off, so no log buffers count), and the raw bytes per cell.
fn memtable_per_cell(kind: EngineKind, opts: &CompareOptions, dir: &Path) -> Result<(f64, f64)> {
    fresh(dir)?;
    let mut spec = opts.spec(false);
    spec.wal = false;
    let raw_user = 16.0 + opts.value_size as f64;
    spec.memtable_bytes = Some(((opts.num as f64 * raw_user * 8.0) as u64).max(64 << 20));
    let e = engine::open(kind, dir, &spec)?;
    let mut values = ValueGen::new(opts.seed, opts.value_size);
    let mut r = rng(opts.seed, 2);
    // Keys are generated up front so that only the memtable grows while measuring.
    let keys: Vec<[u8; 16]> = (0..opts.num)
        .map(|_| key(2 * r.random_range(0..u64::MAX / 4)))
        .collect();
    let before = current_rss();
    for k in &keys {
        e.put(k, &cells(values.next_value()))?;
    }
    let after = current_rss();
    drop(e);
    std::fs::remove_dir_all(dir)?;
    let per_cell = after.saturating_sub(before) as f64 / opts.num as f64;
    // regionkv keeps HBase's coordinates: family "cf" (2), qualifier "q" (1), an 8-byte
    // timestamp and a 1-byte type with every cell.
    let raw = match kind {
        EngineKind::Regionkv => raw_user + 2.0 + 1.0 + 8.0 + 1.0,
        _ => raw_user,
    };
    Ok((per_cell, raw))
}

/// The side-by-side table of `reports`, with each engine's ratio to RocksDB where RocksDB
/// ran.
pub fn render(reports: &[EngineReport]) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let rocks = reports.iter().find(|r| r.engine == "rocksdb");
    // Rows: each benchmark that ran, in suite order, then by thread count.
    let mut rows: Vec<(usize, &str, usize)> = Vec::new();
    for r in reports {
        for x in &r.results {
            if let Some(i) = BENCHMARKS.iter().position(|b| *b == x.name) {
                let row = (i, BENCHMARKS[i], x.threads);
                if !rows.contains(&row) {
                    rows.push(row);
                }
            }
        }
    }
    rows.sort();
    let _ = write!(s, "{:<14}", "benchmark");
    for r in reports {
        let _ = write!(s, " {:>22}", r.engine);
    }
    let _ = writeln!(s);
    let ratio = |v: f64, base: Option<f64>| match base {
        Some(b) if b > 0.0 => format!(" ({:.2}x)", v / b),
        _ => String::new(),
    };
    for (_, name, threads) in rows {
        let find = |r: &EngineReport| {
            r.results
                .iter()
                .find(|x| x.name == name && x.threads == threads)
                .map(|x| x.ops_per_sec)
        };
        let label = if threads == 1 {
            name.to_string()
        } else {
            format!("{name} x{threads}")
        };
        let _ = write!(s, "{label:<14}");
        let base = rocks.and_then(find);
        for r in reports {
            let cell = match find(r) {
                Some(v) => format!("{v:.0}/s{}", ratio(v, base)),
                None => "-".into(),
            };
            let _ = write!(s, " {cell:>22}");
        }
        let _ = writeln!(s);
    }
    let mut row = |label: &str, f: &dyn Fn(&EngineReport) -> Option<String>| {
        let _ = write!(s, "{label:<14}");
        for r in reports {
            let _ = write!(s, " {:>22}", f(r).unwrap_or_else(|| "-".into()));
        }
        let _ = writeln!(s);
    };
    row("write amp", &|r| r.write_amp.map(|v| format!("{v:.2}")));
    row("space amp", &|r| r.space_amp.map(|v| format!("{v:.2}")));
    row("disk MiB", &|r| {
        r.disk_bytes
            .map(|v| format!("{:.1}", v as f64 / f64::from(1 << 20)))
    });
    row("memtable B/cell", &|r| {
        Some(format!(
            "{:.0} ({:.2}x raw)",
            r.memtable_bytes_per_cell?,
            r.memtable_bytes_per_cell? / r.raw_bytes_per_cell?
        ))
    });
    row("peak RSS MiB", &|r| {
        Some(format!("{:.0}", r.peak_rss as f64 / f64::from(1 << 20)))
    });
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_16_digits_in_numeric_order() {
        assert_eq!(&key(42), b"0000000000000042");
        assert!(key(9) < key(10));
    }

    #[test]
    fn values_are_half_compressible() {
        let mut g = ValueGen::new(1, 100);
        let v = g.next_value().to_vec();
        assert_eq!(v.len(), 100);
        assert_eq!(v[..50], v[50..]);
        assert_ne!(g.next_value(), &v[..]);
        // Short values are halves too.
        let mut g = ValueGen::new(1, 10);
        let v = g.next_value();
        assert_eq!(v[..5], v[5..]);
    }

    #[test]
    fn the_defaults_profile_leaves_sizes_to_each_engine() {
        let suite = CompareOptions::default();
        let s = suite.spec(false);
        assert_eq!(
            (s.block_size, s.memtable_bytes),
            (Some(4096), Some(64 << 20))
        );
        let defaults = CompareOptions {
            profile: Profile::Defaults,
            ..CompareOptions::default()
        };
        let d = defaults.spec(false);
        assert_eq!((d.block_size, d.memtable_bytes), (None, None));
        // Shared in both: the cache, the compression, HBase's default encoding and bloom.
        assert_eq!(d.block_cache, s.block_cache);
        assert_eq!(d.compression, Compression::Lz4);
        assert_eq!(
            (d.block_encoding.as_str(), d.bloom.as_str()),
            ("NONE", "ROW")
        );
        assert!(matches!(Profile::parse("defaults"), Ok(Profile::Defaults)));
        assert!(matches!(Profile::parse("tuned"), Err(Error::Usage(_))));
    }

    #[test]
    fn unknown_benchmark_is_a_usage_error() {
        let o = CompareOptions {
            benchmarks: vec!["fillrandom".into(), "nope".into()],
            ..CompareOptions::default()
        };
        assert!(matches!(o.validate(), Err(Error::Usage(m)) if m.contains("nope")));
    }

    #[test]
    fn regionkv_runs_the_whole_suite_small() -> Result<()> {
        let dir = tempfile::tempdir()?;
        let opts = CompareOptions {
            num: 2000,
            reads: 500,
            seeks: 100,
            sync_ops: 20,
            ycsb_records: 200,
            ycsb_operations: 200,
            data: dir.path().to_path_buf(),
            ..CompareOptions::default()
        };
        let r = run_engine(EngineKind::Regionkv, &opts)?;
        let get = |n: &str| {
            r.results
                .iter()
                .find(|x| x.name == n)
                .cloned()
                .unwrap_or_else(|| panic!("{n} missing"))
        };
        assert_eq!(get("fillrandom").ops, 2000);
        assert_eq!(get("readrandom").found, 500, "every written key is found");
        assert_eq!(get("readmissing").found, 0, "odd keys were never written");
        assert_eq!(get("seekrandom").ops, 100);
        assert_eq!(get("readseq").ops, 2000, "a full scan sees every key once");
        assert_eq!(get("fillsync2").ops, 20);
        assert_eq!(get("ycsba").ops, 200);
        assert!(r.write_amp.is_some_and(|w| w >= 0.0));
        assert!(r.space_amp.is_some_and(|s| s > 0.0));
        assert!(r.memtable_bytes_per_cell.is_some() && r.peak_rss > 0);
        let text = render(std::slice::from_ref(&r));
        assert!(
            text.contains("readmissing") && text.contains("space amp"),
            "{text}"
        );
        let json = serde_json::to_string(&r).map_err(|e| Error::Engine(e.to_string()))?;
        let back: EngineReport =
            serde_json::from_str(&json).map_err(|e| Error::Engine(e.to_string()))?;
        // Floats may differ in the last place through JSON; the shape may not.
        assert_eq!((&back.engine, back.disk_bytes), (&r.engine, r.disk_bytes));
        let shape = |x: &EngineReport| -> Vec<(String, u64, u64)> {
            x.results
                .iter()
                .map(|b| (b.name.clone(), b.ops, b.found))
                .collect()
        };
        assert_eq!(shape(&back), shape(&r));
        Ok(())
    }

    #[test]
    fn each_thread_count_runs_the_threaded_workloads_with_the_same_total_work() -> Result<()> {
        let dir = tempfile::tempdir()?;
        let opts = CompareOptions {
            num: 1001,
            reads: 301,
            ycsb_records: 200,
            ycsb_operations: 201,
            benchmarks: [
                "fillrandom",
                "overwrite",
                "readrandom",
                "readmissing",
                "ycsba",
            ]
            .map(String::from)
            .to_vec(),
            data: dir.path().to_path_buf(),
            threads: vec![2, 3],
            ..CompareOptions::default()
        };
        let r = run_engine(EngineKind::Regionkv, &opts)?;
        let got: Vec<(&str, usize, u64, u64)> = r
            .results
            .iter()
            .map(|x| (x.name.as_str(), x.threads, x.ops, x.found))
            .collect();
        // No one-thread run was asked for: readmissing (not threaded) does not run.
        assert_eq!(
            got,
            [
                ("fillrandom", 2, 1001, 0),
                ("overwrite", 2, 1001, 0),
                ("readrandom", 2, 301, 301),
                ("ycsba", 2, 201, 0),
                ("fillrandom", 3, 1001, 0),
                ("overwrite", 3, 1001, 0),
                ("readrandom", 3, 301, 301),
                ("ycsba", 3, 201, 0),
            ]
        );
        let text = render(std::slice::from_ref(&r));
        assert!(
            text.contains("fillrandom x2") && text.contains("ycsba x3"),
            "{text}"
        );
        let json = serde_json::to_string(&r).map_err(|e| Error::Engine(e.to_string()))?;
        let back: EngineReport =
            serde_json::from_str(&json).map_err(|e| Error::Engine(e.to_string()))?;
        assert_eq!(back.results[4].threads, 3);
        assert!(
            CompareOptions {
                threads: vec![0],
                ..opts
            }
            .validate()
            .is_err()
        );
        Ok(())
    }
}
