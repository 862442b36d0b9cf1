//! `regionkv bench`: the comparison suite of `regionkv_bench::compare`. `bench compare`
//! starts one `bench engine` process per engine (so each engine's disk writes and peak
//! memory are its own), collects their JSON reports and prints them side by side;
//! `bench engine` runs the suite on one engine in this process.

use regionkv_bench::compare::{self, CompareOptions, EngineReport};
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
    /// Memtable (memstore flush) size of every engine
    #[arg(long = "write-buffer-size", default_value_t = 64 << 20)]
    write_buffer_size: u64,
    /// Data block size of every engine
    #[arg(long = "block-size", default_value_t = 4096)]
    block_size: u32,
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
    /// Print JSON instead of the table
    #[arg(long)]
    json: bool,
}

impl SuiteArgs {
    fn options(&self) -> CompareOptions {
        let d = CompareOptions::default();
        CompareOptions {
            num: self.num,
            value_size: self.value_size,
            reads: self.reads.unwrap_or(self.num),
            seeks: self.seeks.unwrap_or((self.num / 10).max(1)),
            sync_ops: self.sync_ops,
            ycsb_records: self.ycsb_records,
            ycsb_operations: self.ycsb_operations,
            cache_bytes: self.cache_size,
            memtable_bytes: self.write_buffer_size,
            lz4: !self.no_compression,
            block_size: self.block_size,
            prefix_encoding: self.prefix_encoding,
            benchmarks: self.benchmarks.as_deref().map_or(d.benchmarks, |b| {
                b.split(',').map(|s| s.trim().to_string()).collect()
            }),
            data: self.data.clone(),
            seed: self.seed,
        }
    }

    fn engines(&self) -> regionkv_bench::Result<Vec<EngineKind>> {
        self.engines
            .split(',')
            .map(|e| EngineKind::parse(e.trim()))
            .collect()
    }

    /// The arguments that hand these options to a `bench engine` child.
    fn child_args(&self, engine: EngineKind) -> Vec<String> {
        let o = self.options();
        vec![
            "bench".into(),
            "engine".into(),
            format!("--engines={}", engine.name()),
            format!("--benchmarks={}", o.benchmarks.join(",")),
            format!("--num={}", o.num),
            format!("--value-size={}", o.value_size),
            format!("--reads={}", o.reads),
            format!("--seeks={}", o.seeks),
            format!("--sync-ops={}", o.sync_ops),
            format!("--ycsb-records={}", o.ycsb_records),
            format!("--ycsb-operations={}", o.ycsb_operations),
            format!("--cache-size={}", o.cache_bytes),
            format!("--write-buffer-size={}", o.memtable_bytes),
            format!("--block-size={}", o.block_size),
            format!("--data={}", o.data.display()),
            format!("--seed={}", o.seed),
            "--json".into(),
        ]
        .into_iter()
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
    let opts = a.options();
    opts.validate()?;
    eprintln!("== {}", kind.name());
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
    a.options().validate()?;
    let exe = std::env::current_exe()?;
    let mut reports: Vec<EngineReport> = Vec::new();
    for kind in kinds {
        let out = std::process::Command::new(&exe)
            .args(a.child_args(kind))
            .stderr(std::process::Stdio::inherit())
            .output()?;
        if !out.status.success() {
            return Err(regionkv_bench::Error::Engine(format!(
                "the {} run failed ({})",
                kind.name(),
                out.status
            )));
        }
        let report: EngineReport = serde_json::from_slice(&out.stdout).map_err(|e| {
            regionkv_bench::Error::Engine(format!("the {} run printed no report: {e}", kind.name()))
        })?;
        reports.push(report);
    }
    let _ = std::fs::remove_dir_all(&a.data);
    if a.json {
        println!("{}", to_json(&reports)?);
    } else {
        print!("{}", compare::render(&reports));
    }
    Ok(())
}
