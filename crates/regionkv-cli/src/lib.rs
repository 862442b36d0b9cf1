//! The library of the `regionkv` binary (`src/main.rs` only installs the allocator and
//! calls [`run`]): the command line of regionkv. Subcommands: `shell`, the
//! HBase-shell-compatible REPL and script runner (see [`shell`]), `hfile`, the storefile
//! inspector (`hfile.rs`; HFiles HBase wrote print as HBase prints them, `hfile_hbase.rs`),
//! `wal`, the write-ahead log inspector (`wal.rs`), and the
//! benchmark harness (`regionkv_bench`): `pe`, HBase's PerformanceEvaluation, and `ycsb`,
//! YCSB's core workloads, and `bench`, the comparison suite against RocksDB and fjall; and
//! the gateways (`serve.rs`): `serve`, `thrift start` and `rest start`; and the data tools
//! of `regionkv_tools`: `importtsv` (`importtsv.rs`), HBase's ImportTsv,
//! `completebulkload` (`completebulkload.rs`), HBase's BulkLoadHFilesTool,
//! `export-hfiles` (`export_hfiles.rs`), HFiles for HBase's completebulkload, sharing the
//! command-line form of HBase's tools (`tool_args.rs`), and `export`, `import`,
//! `copytable` (`export_import.rs`).
//!
//! The binary never shows a Rust panic message with a backtrace to its users: a panic (a bug)
//! prints one `ERROR: internal error ...` line on standard error instead.
//!
//! What other crates may use is small on purpose: [`run`], which is the whole binary, and
//! [`shell::fuzz_parse`], the shell's parser for the fuzz targets (`crates/regionkv-fuzzing`).
//! Everything else is private to this crate.

mod bench;
mod completebulkload;
mod export_hfiles;
mod export_import;
mod hfile;
mod hfile_hbase;
mod hfile_hbase_stats;
mod importtsv;
mod lab;
mod lab_text;
mod serve;
pub mod shell;
mod tool_args;
mod wal;

use std::io::Write;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// regionkv: an embedded LSM storage engine with the semantics of Apache HBase 2.x regions
#[derive(Debug, Parser)]
#[command(name = "regionkv", version, arg_required_else_help = true)]
struct Cli {
    /// What the engine logs to standard error: error, warn (the default), info, debug,
    /// trace, or a filter such as `regionkv_wal=debug`; RUST_LOG works too, this wins
    #[arg(long, global = true, value_name = "LEVEL")]
    log_level: Option<String>,
    #[command(subcommand)]
    command: Command,
}

/// Sends the engine's `tracing` events to standard error: warnings and errors by default,
/// so that damage the engine works around (a torn WAL tail dropped, a leftover directory
/// removed, a file it kept aside) reaches the user; `--log-level` or RUST_LOG change it.
/// `default` is the level without `--log-level` or RUST_LOG.
fn init_logging(level: Option<&str>, default: &str) -> Result<(), String> {
    use tracing_subscriber::EnvFilter;
    let filter = match level {
        Some(l) => EnvFilter::try_new(l).map_err(|e| format!("--log-level {l}: {e}"))?,
        None => EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default)),
    };
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .without_time()
        .try_init()
        .map_err(|e| e.to_string())
}

/// The subcommands.
#[derive(Debug, Subcommand)]
enum Command {
    /// Run the HBase-compatible shell on a data directory (interactively, or a script)
    Shell(shell::ShellArgs),
    /// Inspect a storefile or an HBase HFile, like HBase's `hbase hfile` (HFilePrettyPrinter)
    Hfile(HfileArgs),
    /// Inspect write-ahead log files, like HBase's `hbase wal` (WALPrettyPrinter)
    Wal(WalArgs),
    /// HBase's PerformanceEvaluation: `regionkv pe [--opt=value ...] <command> <nclients>`
    #[command(disable_help_flag = true)]
    Pe(PeArgs),
    /// YCSB core workloads A-F: load and run phases, YCSB's output
    Ycsb(YcsbArgs),
    /// Salvage a damaged Db: move unreadable storefiles aside, replay what a damaged WAL
    /// still holds (everything moved or copied goes under DIR/corrupt/)
    Repair(RepairArgs),
    /// The comparison suite against RocksDB and fjall (`bench compare`; peers need the
    /// `peers` feature)
    Bench(bench::BenchArgs),
    /// Serve HBase's Thrift1 and REST gateways over a data directory, so HBase client
    /// programs (happybase, REST clients) run against it unchanged
    Serve(serve::ServeArgs),
    /// HBase's Thrift1 gateway alone: `regionkv thrift start [-p PORT] [--data DIR]`
    Thrift(serve::GatewayArgs),
    /// HBase's REST gateway alone: `regionkv rest start [-p PORT] [--data DIR]`
    Rest(serve::GatewayArgs),
    /// The schema-design lab: rowkey designs offline (today: `lab export`)
    Lab(lab::LabArgs),
    /// HBase's ImportTsv: `regionkv importtsv [--data DIR] -Dimporttsv.columns=a,b,c
    /// [-Dkey=value ...] TABLE INPUT...` (`--help` for the options)
    #[command(disable_help_flag = true)]
    Importtsv(tool_args::RawToolArgs),
    /// HBase's completebulkload: `regionkv completebulkload [--data DIR] [-Dkey=value ...]
    /// DIR TABLE [-loadTable]` loads HFiles HBase wrote (`DIR/family/file`)
    #[command(disable_help_flag = true)]
    Completebulkload(tool_args::RawToolArgs),
    /// Write a table as HBase HFiles for HBase's completebulkload: `regionkv export-hfiles
    /// [--data DIR] [-Dkey=value ...] TABLE OUTPUTDIR`
    #[command(name = "export-hfiles", disable_help_flag = true)]
    ExportHfiles(tool_args::RawToolArgs),
    /// HBase's Export: `regionkv export [--data DIR] TABLE DIR [versions [starttime
    /// [endtime]]]`, or `--format=csv|jsonl` for the latest cells as text
    #[command(disable_help_flag = true)]
    Export(tool_args::RawToolArgs),
    /// HBase's Import: `regionkv import [--data DIR] TABLE DIR`
    #[command(disable_help_flag = true)]
    Import(tool_args::RawToolArgs),
    /// HBase's CopyTable: `regionkv copytable [--data DIR] --new.name=T2 [--options] TABLE`
    #[command(disable_help_flag = true)]
    Copytable(tool_args::RawToolArgs),
}

/// `regionkv pe`: PE's own option syntax, parsed by `regionkv_bench::pe`.
#[derive(Debug, clap::Args)]
struct PeArgs {
    /// Options (--rows=N, --valueSize=N, ...), the command and the client count
    #[arg(
        trailing_var_arg = true,
        allow_hyphen_values = true,
        value_name = "ARGS"
    )]
    args: Vec<String>,
}

fn run_pe(args: &PeArgs) -> ExitCode {
    if args.args.is_empty() || args.args.iter().any(|a| a == "-h" || a == "--help") {
        print!("{}", regionkv_bench::pe::usage());
        return if args.args.is_empty() {
            ExitCode::FAILURE
        } else {
            ExitCode::SUCCESS
        };
    }
    let parsed = match regionkv_bench::pe::PeArgs::parse(&args.args) {
        Ok(p) => p,
        Err(e) => {
            let msg = e.to_string();
            if msg.starts_with("ERROR:") {
                eprintln!("{msg}");
            } else {
                eprintln!("ERROR: {msg}");
            }
            eprint!("{}", regionkv_bench::pe::usage());
            return ExitCode::FAILURE;
        }
    };
    match regionkv_bench::pe::run(parsed.command, parsed.clients, &parsed.options) {
        Ok(_) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("ERROR: {e}");
            ExitCode::FAILURE
        }
    }
}

/// `regionkv repair`.
#[derive(Debug, clap::Args)]
struct RepairArgs {
    /// The Db directory (no Db may have it open)
    dir: std::path::PathBuf,
}

fn run_repair(args: &RepairArgs) -> ExitCode {
    let options = regionkv::DbOptions::default()
        .background(false)
        .create_if_missing(false);
    match regionkv::repair::repair(&args.dir, options) {
        Ok(r) => {
            println!(
                "checked {} storefiles and {} WAL logs",
                r.storefiles_checked, r.wal_logs_checked
            );
            for (path, why) in &r.moved_aside {
                println!("moved aside: {} ({why})", path.display());
            }
            if r.manifest_entries_dropped > 0 {
                println!("manifest entries dropped: {}", r.manifest_entries_dropped);
            }
            if r.wal_ranges_skipped > 0 {
                println!("damaged WAL ranges skipped: {}", r.wal_ranges_skipped);
            }
            if r.catalog_rebuilt {
                println!("catalog rebuilt from the region directories");
            }
            for t in &r.tables_adopted {
                println!("adopted table {t} (its directory was not in the catalog)");
            }
            for note in &r.notes {
                println!("note: {note}");
            }
            println!(
                "{}",
                if r.is_clean() {
                    "nothing to repair"
                } else {
                    "repaired: the directory opens normally now"
                }
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("ERROR: {e}");
            ExitCode::FAILURE
        }
    }
}

/// `regionkv ycsb`. Options take YCSB's property names as aliases (`--recordcount`,
/// `--threadcount` ...) and PE's names for what PE also has (`--valueSize`, `--columns`,
/// `--blockCache` ...): docs/benchmarks.md, "Option names".
#[derive(Debug, clap::Args)]
struct YcsbArgs {
    /// Core workload: a, b, c, d, e or f
    #[arg(long, value_name = "W")]
    workload: char,
    /// recordcount: records the load phase inserts (all threads together)
    #[arg(long, visible_alias = "recordcount", default_value_t = 1000)]
    records: u64,
    /// operationcount: operations of the run phase
    #[arg(long, visible_alias = "operationcount", default_value_t = 1000)]
    operations: u64,
    /// threadcount: client threads (PE's nclients)
    #[arg(long, visible_alias = "threadcount", default_value_t = 1)]
    threads: usize,
    /// fieldcount: fields per record (YCSB's 10; 1 for single-value records); PE's columns
    #[arg(long, visible_aliases = ["fieldcount", "columns"], default_value_t = 10)]
    fields: usize,
    /// fieldlength: bytes per field; PE's valueSize
    #[arg(
        long = "field-length",
        visible_aliases = ["fieldlength", "valueSize"],
        default_value_t = 100
    )]
    field_length: usize,
    /// table: the table (PE's --table)
    #[arg(long, default_value = "usertable")]
    table: String,
    /// insertorder=ordered (keys by number instead of hashed)
    #[arg(long)]
    ordered: bool,
    /// Which phases: load, run or both
    #[arg(long, default_value = "both", value_parser = ["load", "run", "both"])]
    phase: String,
    /// Engine: regionkv, rocksdb or fjall (peers need the `peers` feature)
    #[arg(long, default_value = "regionkv")]
    engine: String,
    /// Data directory, kept so `--phase run` can follow `--phase load` [default:
    /// ./regionkv-data, the shell's, as YCSB's usertable sits in the HBase the shell uses;
    /// ./regionkv-data-rocksdb or ./regionkv-data-fjall for a peer engine]
    #[arg(long)]
    data: Option<std::path::PathBuf>,
    /// Random seed (default: from the clock)
    #[arg(long)]
    seed: Option<u64>,
    /// fsync the WAL on every write (FSYNC_WAL)
    #[arg(long)]
    sync: bool,
    /// Block cache bytes
    #[arg(long = "block-cache", visible_alias = "blockCache", default_value_t = 32 << 20)]
    block_cache: u64,
    /// requestdistribution, replacing the workload's: uniform, zipfian or latest
    #[arg(long, value_parser = ["uniform", "zipfian", "latest"])]
    distribution: Option<String>,
    /// Block compression of the table: NONE or LZ4
    #[arg(long, default_value = "NONE", value_parser = ["NONE", "LZ4"], ignore_case = true)]
    compress: String,
    /// DATA_BLOCK_ENCODING of the table (regionkv only): NONE or PREFIX
    #[arg(
        long = "block-encoding",
        visible_alias = "blockEncoding",
        default_value = "NONE",
        value_parser = ["NONE", "PREFIX"],
        ignore_case = true
    )]
    block_encoding: String,
    /// Print one JSON report instead of YCSB's lines
    #[arg(long)]
    json: bool,
    /// YCSB's -s: a status line on standard error every 10 seconds, and one as each
    /// phase ends
    #[arg(short = 's', long)]
    status: bool,
    /// Milliseconds between status lines (tests shorten YCSB's 10 s)
    #[arg(long, value_name = "MS", default_value_t = 10_000, hide = true)]
    status_interval: u64,
}

fn run_ycsb(args: &YcsbArgs) -> ExitCode {
    let build = || -> regionkv_bench::Result<regionkv_bench::ycsb::YcsbOptions> {
        let mut o = regionkv_bench::ycsb::YcsbOptions::new(regionkv_bench::ycsb::Workload::core(
            args.workload,
        )?);
        o.records = args.records;
        o.operations = args.operations;
        o.threads = args.threads;
        o.fields = args.fields;
        o.field_length = args.field_length;
        o.ordered = args.ordered;
        o.phase = match args.phase.as_str() {
            "load" => regionkv_bench::ycsb::Phase::Load,
            "run" => regionkv_bench::ycsb::Phase::Run,
            _ => regionkv_bench::ycsb::Phase::Both,
        };
        o.engine = regionkv_bench::engine::EngineKind::parse(&args.engine)?;
        o.data = args
            .data
            .clone()
            .unwrap_or_else(|| o.engine.default_data_dir());
        o.table = args.table.clone();
        o.block_encoding = args.block_encoding.to_ascii_uppercase();
        o.status = args.status;
        o.status_interval = std::time::Duration::from_millis(args.status_interval.max(1));
        if let Some(seed) = args.seed {
            o.seed = seed;
        }
        o.sync = args.sync;
        o.block_cache = args.block_cache;
        if let Some(d) = &args.distribution {
            o.workload.distribution = match d.as_str() {
                "uniform" => regionkv_bench::generator::Distribution::Uniform,
                "latest" => regionkv_bench::generator::Distribution::Latest,
                _ => regionkv_bench::generator::Distribution::Zipfian,
            };
        }
        if args.compress.eq_ignore_ascii_case("LZ4") {
            o.compression = regionkv_bench::engine::Compression::Lz4;
        }
        o.json = args.json;
        Ok(o)
    };
    match build().and_then(|o| regionkv_bench::ycsb::run(&o)) {
        Ok(_) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("ERROR: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Arguments of `regionkv wal`, with HBase's WALPrettyPrinter flags.
#[derive(Debug, clap::Args)]
struct WalArgs {
    /// Print values (escaped like Bytes.toStringBinary)
    #[arg(short = 'p', long = "printvals")]
    values: bool,
    /// Print JSON: one array of entries across all files
    #[arg(short = 'j', long = "json")]
    json: bool,
    /// Only entries of this table
    #[arg(short = 't', long = "table", value_name = "TABLE")]
    table: Option<String>,
    /// Only entries of this region (its encoded name)
    #[arg(short = 'r', long = "region", value_name = "REGION")]
    region: Option<String>,
    /// Only the entry with this sequence id
    #[arg(short = 's', long = "sequence", value_name = "SEQ")]
    sequence: Option<u64>,
    /// Only cells of this row
    #[arg(short = 'w', long = "row", value_name = "ROW")]
    row: Option<String>,
    /// The log files (wal.NNNNNNNNNNNNNNNNNNNN.log); a directory stands for every log in
    /// it, oldest first (a Db directory for its wal/ logs)
    #[arg(value_name = "FILE|DIR", required = true)]
    files: Vec<std::path::PathBuf>,
}

/// The file a user named on the command line, a symbolic link followed: the inspectors
/// read files through `RealFs`, which never follows a link in place of a file (that guards
/// the engine's own files), but a link the user names is the file they mean.
fn named_file(path: &std::path::Path) -> std::path::PathBuf {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => {
            std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
        }
        _ => path.to_path_buf(),
    }
}

fn run_wal(args: WalArgs) -> ExitCode {
    let opts = wal::WalOptions {
        values: args.values,
        json: args.json,
        table: args.table,
        region: args.region,
        sequence: args.sequence,
        row: args.row,
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let stderr = std::io::stderr();
    let mut err = stderr.lock();
    let files: Vec<_> = args.files.iter().map(|f| named_file(f)).collect();
    match wal::run(&files, &opts, &mut out, &mut err) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            let _ = out.flush();
            let _ = writeln!(err, "ERROR: writing output: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Arguments of `regionkv hfile`, with HBase's HFilePrettyPrinter flags. As HBase's, the
/// flags choose what is printed: with none, the files are opened and checked, nothing is
/// printed, and the exit status says whether they were readable.
#[derive(Debug, clap::Args)]
#[command(
    arg_required_else_help = true,
    // -h is HBase's --printblockheaders, so help is --help only.
    disable_help_flag = true,
    after_help = "Files HBase wrote (HFile v3, or v2.3 and later: HBase's trailer at the end) \
print what HBase 2.4's `hbase hfile` prints for them, line for line: cells as KeyValue.toString \
(K: row/family:qualifier/timestamp/Type/vlen=N/seqid=N V: value), -m as printMeta (heap size \
of the block index, reader, trailer, FileInfo, mid-key, Bloom filters), -b the root block \
index, -h each block's HFileBlock.toString, -s HBase's histograms. Two things cannot be \
HBase's to the byte: statistics over more than 1028 values (HBase samples them at random; \
here every value counts) and the JVM identity hash after the comparator's class in -h. \
regionkv's own storefiles print regionkv's fields (docs/storefile-format.md); see \
docs/hfile-v3.md, \"Inspecting HBase files\"."
)]
struct HfileArgs {
    /// Verbose: `Scanning -> FILE` before each file, and `Scanned kv count -> N`
    #[arg(short = 'v', long = "verbose")]
    verbose: bool,
    /// Print the trailer, file info, midkey and bloom filters
    #[arg(short = 'm', long = "printmeta")]
    meta: bool,
    /// Print the block index (HBase files: its root level; regionkv files: every data
    /// block's offset and sizes)
    #[arg(short = 'b', long = "printblocks")]
    blocks: bool,
    /// Print the header of every block from the first data block to the last
    #[arg(short = 'h', long = "printblockheaders")]
    headers: bool,
    /// Print every cell: key and value (rows escaped like Bytes.toStringBinary)
    #[arg(short = 'p', long = "printkv")]
    print: bool,
    /// Print every key, without values
    #[arg(short = 'e', long = "printkey")]
    keys: bool,
    /// Print statistics: key, value and row sizes (HBase files: HBase's histograms)
    #[arg(short = 's', long = "stats")]
    stats: bool,
    /// Check that cells are in order (HBase files: rows, warnings on standard error)
    #[arg(short = 'k', long = "checkrow")]
    check: bool,
    /// Seek to this row and read its cells only (escapes like \x00 as in
    /// Bytes.toBytesBinary); with -p, -e, -s or -k
    #[arg(short = 'w', long = "seekToRow", value_name = "ROW")]
    row: Option<String>,
    /// A storefile or HFile (HBase's -f FILE form)
    #[arg(short = 'f', long = "file", value_name = "FILE")]
    file_flag: Option<std::path::PathBuf>,
    /// The storefiles or HFiles
    #[arg(value_name = "FILE", required_unless_present = "file_flag")]
    files: Vec<std::path::PathBuf>,
    /// Print help
    #[arg(long = "help", action = clap::ArgAction::Help)]
    help: Option<bool>,
}

/// Whether `e` is a write to a closed pipe (`regionkv hfile -p F | head`): Rust ignores
/// SIGPIPE, so the write fails with EPIPE instead of ending the process. The reader has
/// all it wanted, so the command ends quietly with status 0, as `head` expects.
fn is_broken_pipe(e: &(dyn std::error::Error + 'static)) -> bool {
    let mut cur = Some(e);
    while let Some(err) = cur {
        if let Some(io) = err.downcast_ref::<std::io::Error>()
            && io.kind() == std::io::ErrorKind::BrokenPipe
        {
            return true;
        }
        cur = err.source();
    }
    false
}

/// The error and its sources, joined by `: `, so an OS error's reason ("No such file or
/// directory (os error 2)") reaches the user along with what failed.
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut source = e.source();
    while let Some(inner) = source {
        let text = inner.to_string();
        // Some errors already quote their source in their own message.
        if !s.ends_with(&text) {
            s.push_str(": ");
            s.push_str(&text);
        }
        source = inner.source();
    }
    s
}

fn run_hfile(args: &HfileArgs) -> ExitCode {
    let files: Vec<_> = args
        .file_flag
        .iter()
        .chain(&args.files)
        .map(|f| named_file(f))
        .collect();
    let row = match args.row.as_deref() {
        // HBase: "Invalid row is specified." for an empty -w.
        Some("") => {
            eprintln!("ERROR: Invalid row is specified.");
            return ExitCode::FAILURE;
        }
        Some(r) => match regionkv_cell::bytes::to_bytes_binary(r) {
            Ok(b) => Some(b),
            Err(e) => {
                eprintln!("ERROR: -w {r}: {e}");
                return ExitCode::FAILURE;
            }
        },
        None => None,
    };
    let opts = hfile::HfileOptions {
        verbose: args.verbose,
        keys: args.keys,
        row,
        meta: args.meta,
        blocks: args.blocks,
        print: args.print,
        stats: args.stats,
        check: args.check,
        headers: args.headers,
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut err = std::io::stderr();
    let result = hfile::run(&files, &opts, &mut out, &mut err);
    let flushed = out.flush();
    match result {
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("ERROR: {}", error_chain(&e));
            ExitCode::FAILURE
        }
        Ok(()) => match flushed {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("ERROR: writing output: {e}");
                ExitCode::FAILURE
            }
            Ok(()) => ExitCode::SUCCESS,
        },
    }
}

/// The `regionkv` command: installs the panic hook (one `ERROR: internal error ...` line
/// instead of a panic message), parses the command line of this process, starts the logging
/// and runs the subcommand. Returns the process's exit status.
pub fn run() -> ExitCode {
    std::panic::set_hook(Box::new(|info| {
        // `println!` panics when standard output is a closed pipe (`regionkv pe ... | head`;
        // Rust ignores SIGPIPE). That is not a bug but the reader having had enough: end
        // quietly with status 0, as a C tool killed by SIGPIPE would end unnoticed.
        let message = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if message.starts_with("failed printing to stdout") && message.contains("Broken pipe") {
            std::process::exit(0);
        }
        let _ = writeln!(
            std::io::stderr(),
            "ERROR: internal error in regionkv (please report it): {info}"
        );
    }));
    let cli = Cli::parse();
    // The inspectors report the damage they find in their own words, line by line; the
    // engine's warnings about the same bytes would only repeat them.
    let default_level = match cli.command {
        Command::Hfile(_) | Command::Wal(_) => "error",
        _ => "warn",
    };
    if let Err(e) = init_logging(cli.log_level.as_deref(), default_level) {
        eprintln!("ERROR: {e}");
        return ExitCode::FAILURE;
    }
    match cli.command {
        Command::Shell(args) => shell::run(&args),
        Command::Hfile(args) => run_hfile(&args),
        Command::Wal(args) => run_wal(args),
        Command::Pe(args) => run_pe(&args),
        Command::Ycsb(args) => run_ycsb(&args),
        Command::Bench(args) => bench::run(&args),
        Command::Repair(args) => run_repair(&args),
        Command::Serve(args) => serve::run_serve(&args),
        Command::Thrift(args) => serve::run_gateway(serve::Which::Thrift, &args),
        Command::Rest(args) => serve::run_gateway(serve::Which::Rest, &args),
        Command::Lab(args) => lab::run(&args),
        Command::Importtsv(args) => importtsv::run(&args),
        Command::Completebulkload(args) => completebulkload::run(&args),
        Command::ExportHfiles(args) => export_hfiles::run(&args),
        Command::Export(args) => export_import::run_export(&args),
        Command::Import(args) => export_import::run_import(&args),
        Command::Copytable(args) => export_import::run_copytable(&args),
    }
}
