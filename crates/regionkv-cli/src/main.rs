//! The `regionkv` binary: the command line of regionkv. Today it has one subcommand, `shell`,
//! the HBase-shell-compatible REPL and script runner (see [`shell`]); the `hfile`/`wal`
//! inspectors and the benchmark harness join it later.
//!
//! The binary never shows a Rust panic message with a backtrace to its users: a panic (a bug)
//! prints one `ERROR: internal error ...` line on standard error instead.

mod shell;

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
    }
}
