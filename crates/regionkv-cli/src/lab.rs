//! `regionkv lab`: the schema-design lab (see `regionkv_lab` and, as it grows, docs/lab.md).
//! Today: `lab export DESIGN`, the HBase shell script creating a design's table.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// `regionkv lab`.
#[derive(Debug, clap::Args)]
pub struct LabArgs {
    #[command(subcommand)]
    command: LabCommand,
}

#[derive(Debug, clap::Subcommand)]
enum LabCommand {
    /// Print the HBase shell script that creates DESIGN's table (families, options,
    /// pre-splits) on a real cluster
    Export {
        /// The design file (TOML)
        design: PathBuf,
    },
}

/// Runs `regionkv lab`.
pub fn run(args: &LabArgs) -> ExitCode {
    let result = match &args.command {
        LabCommand::Export { design } => regionkv_lab::design::Design::load(design)
            .map_err(|e| e.to_string())
            .and_then(|d| regionkv_lab::export::shell_script(&d)),
    };
    match result {
        Ok(text) => {
            let mut out = std::io::stdout().lock();
            if out
                .write_all(text.as_bytes())
                .and_then(|()| out.flush())
                .is_err()
            {
                return ExitCode::FAILURE;
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("ERROR: {e}");
            ExitCode::FAILURE
        }
    }
}
