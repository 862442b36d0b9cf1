//! `regionkv bench`: the comparison suite of `regionkv_bench::compare`. `bench compare`
//! starts one `bench engine` process per engine (so each engine's disk writes and peak
//! memory are its own), collects their JSON reports and prints them side by side;
//! `bench engine` runs the suite on one engine in this process.

use regionkv_bench::compare::{self, CompareOptions, EngineReport, Profile};
use regionkv_bench::engine::EngineKind;
use std::process::ExitCode;

/// `regionkv bench`.
#[derive(Debug, clap::Args)]
pub struct BenchArgs {
    #[command(subcommand)]
    command: BenchCommand,
}

#[derive(Debug, clap::Subcommand)]
enum BenchCommand {
    /// Run the suite on every engine (one process each) and print them side by side
    Compare(SuiteArgs),
    /// Run the suite on one engine in this process (what `compare` starts)
    Engine(SuiteArgs),
    /// The gateway benchmark's embedded baseline (benches/gateway.sh): the work its
    /// clients ask of the gateway, through the Table API, with the CPU time of each phase
    Embedded(EmbeddedArgs),
}

/// `regionkv bench embedded`.
#[derive(Debug, Clone, clap::Args)]
struct EmbeddedArgs {
    /// Rows (16-byte keys `%016d`, one column `cf:a`)
    #[arg(long, default_value_t = 100_000)]
    rows: u64,
    /// Value bytes
    #[arg(long = "value-size", default_value_t = 100)]
    value_size: usize,
    /// Rows per batch put and per scanner round trip
    #[arg(long, default_value_t = 1_000)]
    batch: usize,
    /// The data directory (a table `bench_embedded` is created there, replacing one left over)
    #[arg(long, default_value = "./regionkv-bench-embedded")]
    data: std::path::PathBuf,
}

/// The suite's options (db_bench's names where it has them).
#[derive(Debug, Clone, clap::Args)]
struct SuiteArgs {
    /// Engines, comma separated (compare), or the one engine (engine)
    #[arg(long, default_value = "regionkv,rocksdb,fjall")]
    engines: String,
    /// Benchmarks, comma separated (default: all of fillseq, fillrandom, overwrite,
    /// readrandom, readmissing, seekrandom, readseq, fillsync, fillsync2, ycsba, ycsbb,
    /// memtable)
    #[arg(long)]
    benchmarks: Option<String>,
    /// Keys of the fill benchmarks
    #[arg(long, default_value_t = 1_000_000)]
    num: u64,
    /// Value bytes (keys are 16 bytes)
    #[arg(long = "value-size", default_value_t = 100)]
    value_size: usize,
    /// Lookups of readrandom and readmissing (default: --num)
    #[arg(long)]
    reads: Option<u64>,
    /// Seeks (each with 10 nexts) of seekrandom (default: --num / 10)
    #[arg(long)]
    seeks: Option<u64>,
    /// Synced puts of fillsync and fillsync2
    #[arg(long = "sync-ops", default_value_t = 20_000)]
    sync_ops: u64,
    /// YCSB recordcount
    #[arg(long = "ycsb-records", default_value_t = 100_000)]
    ycsb_records: u64,
    /// YCSB operationcount
    #[arg(long = "ycsb-operations", default_value_t = 200_000)]
    ycsb_operations: u64,
    /// Block cache bytes
    #[arg(long = "cache-size", default_value_t = 32 << 20)]
    cache_size: u64,
    /// `suite`: every engine on the suite's settings (--block-size, --write-buffer-size);
    /// `defaults`: each engine exactly as a user creates it (regionkv a table with HBase's
    /// defaults, 64 KiB blocks and 128 MiB memstores; RocksDB and fjall theirs), sharing
    /// only the cache size and the compression
    #[arg(long, default_value = "suite")]
    profile: String,
    /// Memtable (memstore flush) size of every engine (suite profile; default 64 MiB)
    #[arg(long = "write-buffer-size")]
    write_buffer_size: Option<u64>,
    /// Data block size of every engine (suite profile; default 4096)
    #[arg(long = "block-size")]
    block_size: Option<u32>,
    /// regionkv with DATA_BLOCK_ENCODING => PREFIX (default NONE, HBase's default; the
    /// peers always delta-encode keys)
    #[arg(long = "prefix-encoding")]
    prefix_encoding: bool,
    /// No block compression (default: LZ4 everywhere)
    #[arg(long = "no-compression")]
    no_compression: bool,
    /// Data directory (emptied per benchmark)
    #[arg(long, default_value = "regionkv-compare-data")]
    data: std::path::PathBuf,
    /// Random seed
    #[arg(long, default_value_t = 0x5EED)]
    seed: u64,
    /// Client thread counts, e.g. 1,2,4,8: 1 runs the whole suite, each other count runs
    /// fillrandom, overwrite, readrandom and YCSB A/B again with that many threads
    #[arg(long, default_value = "1")]
    threads: String,
    /// Print JSON instead of the table
    #[arg(long)]
    json: bool,
}

impl SuiteArgs {
    fn options(&self) -> regionkv_bench::Result<CompareOptions> {
        let d = CompareOptions::default();
        let profile = Profile::parse(&self.profile)?;
        if profile == Profile::Defaults
            && (self.block_size.is_some() || self.write_buffer_size.is_some())
        {
            return Err(regionkv_bench::Error::Usage(
                "--profile defaults leaves block and memtable sizes to each engine; \
                 --block-size and --write-buffer-size belong to the suite profile"
                    .into(),
            ));
        }
        Ok(CompareOptions {
            profile,
            num: self.num,
            value_size: self.value_size,
            reads: self.reads.unwrap_or(self.num),
            seeks: self.seeks.unwrap_or((self.num / 10).max(1)),
            sync_ops: self.sync_ops,
            ycsb_records: self.ycsb_records,
            ycsb_operations: self.ycsb_operations,
            cache_bytes: self.cache_size,
            memtable_bytes: self.write_buffer_size.unwrap_or(d.memtable_bytes),
            lz4: !self.no_compression,
            block_size: self.block_size.unwrap_or(d.block_size),
            prefix_encoding: self.prefix_encoding,
            benchmarks: self.benchmarks.as_deref().map_or(d.benchmarks, |b| {
                b.split(',').map(|s| s.trim().to_string()).collect()
            }),
            data: self.data.clone(),
            seed: self.seed,
            threads: self
                .threads
                .split(',')
                .map(|t| {
                    t.trim().parse::<usize>().map_err(|_| {
                        regionkv_bench::Error::Usage(format!(
                            "--threads takes counts such as 1,2,4,8, not '{t}'"
                        ))
                    })
                })
                .collect::<regionkv_bench::Result<Vec<_>>>()?,
        })
    }

    fn engines(&self) -> regionkv_bench::Result<Vec<EngineKind>> {
        self.engines
            .split(',')
            .map(|e| EngineKind::parse(e.trim()))
            .collect()
    }

    /// The arguments that hand these options to a `bench engine` child.
    fn child_args(
        &self,
        o: &CompareOptions,
        engine: EngineKind,
        benchmarks: &[String],
    ) -> Vec<String> {
        let sizes = match o.profile {
            Profile::Suite => vec![
                format!("--write-buffer-size={}", o.memtable_bytes),
                format!("--block-size={}", o.block_size),
            ],
            Profile::Defaults => Vec::new(),
        };
        vec![
            "bench".into(),
            "engine".into(),
            format!("--engines={}", engine.name()),
            format!("--profile={}", o.profile.name()),
            format!("--benchmarks={}", benchmarks.join(",")),
            format!("--num={}", o.num),
            format!("--value-size={}", o.value_size),
            format!("--reads={}", o.reads),
            format!("--seeks={}", o.seeks),
            format!("--sync-ops={}", o.sync_ops),
            format!("--ycsb-records={}", o.ycsb_records),
            format!("--ycsb-operations={}", o.ycsb_operations),
            format!("--cache-size={}", o.cache_bytes),
            format!("--data={}", o.data.display()),
            format!("--seed={}", o.seed),
            format!(
                "--threads={}",
                o.threads
                    .iter()
                    .map(|t| t.to_string())
                    .collect::<Vec<_>>()
                    .join(",")
            ),
            "--json".into(),
        ]
        .into_iter()
        .chain(sizes)
        .chain(self.no_compression.then(|| "--no-compression".to_string()))
        .chain(
            self.prefix_encoding
                .then(|| "--prefix-encoding".to_string()),
        )
        .collect()
    }
}

pub fn run(args: &BenchArgs) -> ExitCode {
    let r = match &args.command {
        BenchCommand::Engine(a) => engine(a),
        BenchCommand::Compare(a) => compare(a),
        BenchCommand::Embedded(a) => embedded(a),
    };
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("ERROR: {e}");
            ExitCode::FAILURE
        }
    }
}

fn to_json(v: &impl serde::Serialize) -> regionkv_bench::Result<String> {
    serde_json::to_string_pretty(v).map_err(|e| regionkv_bench::Error::Engine(format!("JSON: {e}")))
}

fn engine(a: &SuiteArgs) -> regionkv_bench::Result<()> {
    let kinds = a.engines()?;
    let [kind] = kinds.as_slice() else {
        return Err(regionkv_bench::Error::Usage(
            "bench engine runs exactly one engine (--engines=NAME)".into(),
        ));
    };
    let opts = a.options()?;
    opts.validate()?;
    eprintln!("== {} ({} profile)", kind.name(), opts.profile.name());
    let report = compare::run_engine(*kind, &opts)?;
    if a.json {
        println!("{}", to_json(&report)?);
    } else {
        print!("{}", compare::render(std::slice::from_ref(&report)));
    }
    Ok(())
}

fn compare(a: &SuiteArgs) -> regionkv_bench::Result<()> {
    let kinds = a.engines()?;
    let opts = a.options()?;
    opts.validate()?;
    let exe = std::env::current_exe()?;
    // The memtable measurement fills one memtable with every key, far above any engine's
    // flush size; it runs in a process of its own so that the peak resident set reported
    // is the workload's, not that measurement's.
    let (memtable, rest): (Vec<String>, Vec<String>) = opts
        .benchmarks
        .iter()
        .cloned()
        .partition(|b| b == "memtable");
    // The memtable measurement belongs to no thread count.
    let one_thread = CompareOptions {
        threads: vec![1],
        ..opts.clone()
    };
    let run_child = |o: &CompareOptions, kind: EngineKind, benchmarks: &[String]| {
        let out = std::process::Command::new(&exe)
            .args(a.child_args(o, kind, benchmarks))
            .stderr(std::process::Stdio::inherit())
            .output()?;
        if !out.status.success() {
            return Err(regionkv_bench::Error::Engine(format!(
                "the {} run failed ({})",
                kind.name(),
                out.status
            )));
        }
        serde_json::from_slice::<EngineReport>(&out.stdout).map_err(|e| {
            regionkv_bench::Error::Engine(format!("the {} run printed no report: {e}", kind.name()))
        })
    };
    let mut reports: Vec<EngineReport> = Vec::new();
    for kind in kinds {
        let mut report = if rest.is_empty() {
            None
        } else {
            Some(run_child(&opts, kind, &rest)?)
        };
        if !memtable.is_empty() {
            let m = run_child(&one_thread, kind, &memtable)?;
            match &mut report {
                Some(r) => {
                    r.memtable_bytes_per_cell = m.memtable_bytes_per_cell;
                    r.raw_bytes_per_cell = m.raw_bytes_per_cell;
                }
                None => report = Some(m),
            }
        }
        reports.extend(report);
    }
    let _ = std::fs::remove_dir_all(&a.data);
    if a.json {
        println!("{}", to_json(&reports)?);
    } else {
        println!("profile: {}", opts.profile.name());
        print!("{}", compare::render(&reports));
    }
    Ok(())
}

/// CPU seconds (user + system) this process used so far, from /proc/self/stat (what
/// benches/gateway.sh reads for the server process, so both sides count alike).
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the command name (which may hold spaces) start after the last ')'.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let tick = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    // utime and stime are fields 14 and 15 of stat(5); `rest` starts at field 3.
    (tick(11) + tick(12)) / clock_ticks_per_second()
}

fn clock_ticks_per_second() -> f64 {
    // SAFETY: sysconf only reads a system constant.
    let t = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if t > 0 { t as f64 } else { 100.0 }
}

fn embedded(a: &EmbeddedArgs) -> regionkv_bench::Result<()> {
    use regionkv::{ColumnFamilyDescriptor, Db, DbOptions, Get, Put, Scan, TableDescriptor};
    let fail = |e: regionkv::Error| regionkv_bench::Error::Engine(e.to_string());
    let db = Db::open(&a.data, DbOptions::default()).map_err(fail)?;
    let admin = db.admin();
    let name = "bench_embedded";
    if admin.table_exists(name).map_err(fail)? {
        admin.disable_table(name).map_err(fail)?;
        admin.delete_table(name).map_err(fail)?;
    }
    let cf = ColumnFamilyDescriptor::new(b"cf").map_err(|e| fail(e.into()))?;
    admin
        .create_table(&TableDescriptor::new(name, vec![cf]).map_err(|e| fail(e.into()))?)
        .map_err(fail)?;
    let t = db.table(name).map_err(fail)?;
    let value = vec![b'v'; a.value_size];
    let key = |i: u64| format!("{i:016}");
    let mut phases = Vec::new();
    let mut phase = |label: &str, ops: u64, f: &mut dyn FnMut() -> regionkv::Result<u64>| {
        let (c0, w0) = (cpu_seconds(), std::time::Instant::now());
        let done = f()?;
        let (cpu, wall) = (cpu_seconds() - c0, w0.elapsed().as_secs_f64());
        if done != ops {
            return Err(regionkv::Error::InvalidArgument(format!(
                "{label}: {done} of {ops} rows"
            )));
        }
        phases.push(serde_json::json!({
            "phase": label, "rows": ops, "wall_s": wall, "cpu_s": cpu,
            "rows_per_s": ops as f64 / wall, "cpu_us_per_row": cpu * 1e6 / ops as f64,
        }));
        Ok(())
    };
    let rows = a.rows;
    let batch = a.batch.max(1) as u64;
    phase("batch_put", rows, &mut || {
        let mut i = 0;
        while i < rows {
            let end = (i + batch).min(rows);
            let puts: Vec<Put> = (i..end)
                .map(|k| Put::new(key(k)).add_column("cf", "a", &value))
                .collect();
            t.put_all(&puts)?;
            i = end;
        }
        Ok(rows)
    })
    .map_err(fail)?;
    // Ten passes: one takes a few tens of milliseconds, too short for the CPU clock's
    // 10 ms ticks.
    phase("scan", rows * 10, &mut || {
        let mut n = 0;
        for _ in 0..10 {
            for r in t.scan(&Scan::new().caching(a.batch.max(1)))? {
                r?;
                n += 1;
            }
        }
        Ok(n)
    })
    .map_err(fail)?;
    phase("get", rows, &mut || {
        let mut n = 0;
        for k in 0..rows {
            if !t.get(&Get::new(key(k)))?.is_empty() {
                n += 1;
            }
        }
        Ok(n)
    })
    .map_err(fail)?;
    db.close().map_err(fail)?;
    println!("{}", to_json(&phases)?);
    Ok(())
}
