//! The `regionkv` binary: the command line of regionkv. Subcommands: `shell`, the
//! HBase-shell-compatible REPL and script runner (see [`shell`]), `hfile`, the storefile
//! inspector (see [`hfile`]), and `wal`, the write-ahead log inspector (see [`wal`]); the
//! benchmark harness joins them later.
//!
//! The binary never shows a Rust panic message with a backtrace to its users: a panic (a bug)
//! prints one `ERROR: internal error ...` line on standard error instead.

mod hfile;
mod shell;
mod wal;

use std::io::Write;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// regionkv: an embedded LSM storage engine with the semantics of Apache HBase 2.x regions
#[derive(Debug, Parser)]
#[command(name = "regionkv", version, arg_required_else_help = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
enum Command {
    /// Run the HBase-compatible shell on a data directory (interactively, or a script)
    Shell(shell::ShellArgs),
    /// Inspect a storefile, like HBase's `hbase hfile` (HFilePrettyPrinter)
    Hfile(HfileArgs),
    /// Inspect write-ahead log files, like HBase's `hbase wal` (WALPrettyPrinter)
    Wal(WalArgs),
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
    /// The log files (wal.NNNNNNNNNNNNNNNNNNNN.log)
    #[arg(value_name = "FILE", required = true)]
    files: Vec<std::path::PathBuf>,
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
    match wal::run(&args.files, &opts, &mut out, &mut err) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            let _ = out.flush();
            let _ = writeln!(err, "ERROR: writing output: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Arguments of `regionkv hfile`, with HBase's HFilePrettyPrinter flags.
#[derive(Debug, clap::Args)]
struct HfileArgs {
    /// Print the trailer, file info, midkey and bloom filter
    #[arg(short = 'm', long = "printmeta")]
    meta: bool,
    /// Print the block index and every data block's offset and sizes
    #[arg(short = 'b', long = "printblocks")]
    blocks: bool,
    /// Print every cell (rows escaped like Bytes.toStringBinary)
    #[arg(short = 'p', long = "printkv")]
    print: bool,
    /// Print statistics: key, value and row sizes, blocks, bloom
    #[arg(short = 's', long = "stats")]
    stats: bool,
    /// Check that cells are in order
    #[arg(short = 'k', long = "checkrow")]
    check: bool,
    /// The storefile (HBase's -f FILE is accepted too)
    #[arg(short = 'f', long = "file", value_name = "FILE")]
    file_flag: Option<std::path::PathBuf>,
    /// The storefile
    #[arg(value_name = "FILE", required_unless_present = "file_flag")]
    file: Option<std::path::PathBuf>,
}

fn run_hfile(args: &HfileArgs) -> ExitCode {
    let Some(path) = args.file_flag.as_ref().or(args.file.as_ref()) else {
        eprintln!("ERROR: no storefile given");
        return ExitCode::FAILURE;
    };
    let opts = hfile::HfileOptions {
        meta: args.meta,
        blocks: args.blocks,
        print: args.print,
        stats: args.stats,
        check: args.check,
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let result = hfile::run(path, opts, &mut out);
    let _ = out.flush();
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("ERROR: {e}");
            ExitCode::FAILURE
        }
    }
}

fn main() -> ExitCode {
    std::panic::set_hook(Box::new(|info| {
        let _ = writeln!(
            std::io::stderr(),
            "ERROR: internal error in regionkv (please report it): {info}"
        );
    }));
    let cli = Cli::parse();
    match cli.command {
        Command::Shell(args) => shell::run(&args),
        Command::Hfile(args) => run_hfile(&args),
        Command::Wal(args) => run_wal(args),
    }
}
