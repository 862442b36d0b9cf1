//! `regionkv export`, `regionkv import` and `regionkv copytable`: HBase's Export, Import
//! and CopyTable command lines over a data directory, calling `regionkv_tools::{export,
//! import, copy_table, text_export}`.
//!
//! This module owns only the command lines (HBase's `-Dkey=value` and `--key=value` forms,
//! plus regionkv's `--data DIR`, `--no-timing` and Export's `--format=csv|jsonl`), the
//! progress bar (indicatif on standard error, only when standard error is a terminal, so
//! scripts stay quiet), and the one-line summaries on standard output. Usage errors print
//! `ERROR: ...` and HBase's usage text on standard error, exit status 1.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use regionkv::Db;
use regionkv_tools::Progress;
use regionkv_tools::copy_table::{self, CopyTable, CopyTableOptions, CopyTableRequest};
use regionkv_tools::export::{self, Export, ExportOptions};
use regionkv_tools::import::{self, Import, ImportOptions};
use regionkv_tools::text_export::{self, TextFormat};

use crate::tool_args::{self, PolledBar, RawToolArgs, ToolRequest};

/// regionkv's options and HBase's, separated.
#[derive(Debug, PartialEq)]
struct Common {
    data: PathBuf,
    no_timing: bool,
    help: bool,
    format: Option<String>,
    properties: Vec<(String, String)>,
    rest: Vec<String>,
}

/// Takes `--data`, `--no-timing`, `--format`, `-h`/`--help` and `-D` out of `args` (the
/// shared `tool_args` form); the rest (positionals and, for CopyTable, its `--key=value`
/// options) stay in order.
fn common(args: &[String], tool_options: bool) -> Result<Common, String> {
    let flags: &[&str] = if tool_options { &[] } else { &["--format="] };
    Ok(match tool_args::parse_with(args, flags, tool_options)? {
        ToolRequest::Help => Common {
            data: PathBuf::from("./regionkv-data"),
            no_timing: false,
            help: true,
            format: None,
            properties: Vec::new(),
            rest: Vec::new(),
        },
        ToolRequest::Run(a) => Common {
            format: a
                .flags
                .iter()
                .rev()
                .find_map(|f| f.strip_prefix("--format=").map(String::from)),
            data: a.data,
            no_timing: a.no_timing,
            help: false,
            properties: a.properties,
            rest: a.positional,
        },
    })
}

fn usage_error(message: &str, usage: &str) -> ExitCode {
    eprintln!("ERROR: {message}");
    eprint!("{usage}");
    ExitCode::FAILURE
}

fn open_db(data: &Path, create: bool, table: &str) -> Result<Db, ExitCode> {
    tool_args::open_db(data, create, table)
}

/// The bar: drawn on standard error when it is a terminal, refreshed from the tool's live
/// figures; nothing at all otherwise.
struct Bar(PolledBar);

impl Bar {
    fn start(progress: Arc<Progress>, what: &'static str) -> Self {
        let mut bar = PolledBar::none();
        bar.start_growing(
            None,
            "{spinner} {elapsed_precise} {msg}",
            move |elapsed| {
                let secs = elapsed.as_secs_f64().max(1e-3);
                (
                    progress.bytes(),
                    progress.total_bytes(),
                    format!(
                        "{what}: {} rows, {} cells, {:.1} MB/s",
                        progress.rows(),
                        progress.cells(),
                        progress.bytes() as f64 / secs / 1e6
                    ),
                )
            },
            "{spinner} {elapsed_precise} [{bar:30}] {bytes}/{total_bytes} {msg}, ETA {eta}".into(),
        );
        Bar(bar)
    }

    fn finish(mut self) {
        self.0.finish();
    }
}

fn timing(no_timing: bool, elapsed: Duration, rows: u64, bytes: u64) -> String {
    tool_args::rates(no_timing, elapsed, rows, "rows", bytes)
}

fn failed(e: &regionkv_tools::Error, usage: &str) -> ExitCode {
    eprintln!("ERROR: {}", crate::error_chain(e));
    if e.is_usage() {
        eprint!("{usage}");
    }
    ExitCode::FAILURE
}

/// `regionkv export ARGS`.
pub fn run_export(args: &RawToolArgs) -> ExitCode {
    let usage = export::usage();
    let c = match common(&args.args, false) {
        Ok(c) => c,
        Err(m) => return usage_error(&m, &usage),
    };
    if c.help {
        print!("{usage}");
        return ExitCode::SUCCESS;
    }
    if c.rest.len() < 2 {
        // ExportUtils.isValidArguements, then usage("Wrong number of arguments: N").
        return usage_error(
            &format!("Wrong number of arguments: {}", c.rest.len()),
            &usage,
        );
    }
    let (table, out) = (c.rest[0].clone(), c.rest[1].clone());
    let format = match c.format.as_deref().map(|f| (f, TextFormat::from_name(f))) {
        None => None,
        Some((_, Some(f))) => Some(f),
        Some((f, None)) => {
            return usage_error(&format!("--format={f}: expected csv or jsonl"), &usage);
        }
    };
    if format.is_some()
        && (c.rest.len() > 2 && c.rest[2] != "1"
            || c.properties.iter().any(|(k, _)| k == export::RAW_SCAN))
    {
        return usage_error(
            "--format=csv|jsonl exports the latest cells only: <versions> above 1 and hbase.mapreduce.include.deleted.rows do not apply",
            &usage,
        );
    }
    let (options, unknown) =
        match ExportOptions::from_args(&c.rest[2..], c.properties.iter().map(|(k, v)| (k, v))) {
            Ok(o) => o,
            Err(e) => return failed(&e, &usage),
        };
    for k in unknown {
        eprintln!("{k} ignored: not an Export option");
    }
    let db = match open_db(&c.data, false, &table) {
        Ok(db) => db,
        Err(code) => return code,
    };
    let status = match format {
        Some(format) => {
            let progress = Arc::new(Progress::default());
            let bar = Bar::start(progress.clone(), "export");
            let result = if out == "-" {
                let stdout = std::io::stdout();
                let mut w = std::io::BufWriter::new(stdout.lock());
                text_export::export_text(&db, &table, &options, format, &mut w, &progress)
            } else {
                match std::fs::File::create_new(&out) {
                    Ok(f) => {
                        let mut w = std::io::BufWriter::new(f);
                        text_export::export_text(&db, &table, &options, format, &mut w, &progress)
                    }
                    Err(e) => Err(regionkv_tools::Error::File {
                        path: PathBuf::from(&out),
                        source: e,
                    }),
                }
            };
            bar.finish();
            match result {
                Ok(r) => {
                    // The data went to standard output: the summary goes to standard error.
                    let line = format!(
                        "Export: {} rows ({} cells) of '{table}' as {} to {out}, {} bytes{}",
                        r.rows,
                        r.cells,
                        if format == TextFormat::Csv {
                            "CSV"
                        } else {
                            "JSON lines"
                        },
                        r.bytes,
                        timing(c.no_timing, r.elapsed, r.rows, r.bytes)
                    );
                    if out == "-" {
                        eprintln!("{line}");
                    } else {
                        println!("{line}");
                    }
                    ExitCode::SUCCESS
                }
                Err(e) => failed(&e, &usage),
            }
        }
        None => {
            let tool = Export::new(&db, &table, options);
            let bar = Bar::start(tool.progress(), "export");
            let result = tool.run(Path::new(&out));
            bar.finish();
            match result {
                Ok(r) => {
                    println!(
                        "Export: {} rows ({} cells) of '{table}' to {out}: {} data files, {} bytes{}",
                        r.rows,
                        r.cells,
                        r.parts,
                        r.bytes,
                        timing(c.no_timing, r.elapsed, r.rows, r.bytes)
                    );
                    ExitCode::SUCCESS
                }
                Err(e) => failed(&e, &usage),
            }
        }
    };
    tool_args::close_db(db, status)
}

/// `regionkv import ARGS`.
pub fn run_import(args: &RawToolArgs) -> ExitCode {
    let usage = import::usage();
    let c = match common(&args.args, false) {
        Ok(c) => c,
        Err(m) => return usage_error(&m, &usage),
    };
    if c.help {
        print!("{usage}");
        return ExitCode::SUCCESS;
    }
    if c.rest.len() != 2 || c.format.is_some() {
        return usage_error(
            &format!("Wrong number of arguments: {}", c.rest.len()),
            &usage,
        );
    }
    let (table, dir) = (c.rest[0].clone(), c.rest[1].clone());
    let (options, notes) =
        match ImportOptions::from_properties(c.properties.iter().map(|(k, v)| (k, v))) {
            Ok(o) => o,
            Err(e) => return failed(&e, &usage),
        };
    for n in notes {
        eprintln!("{n}");
    }
    let db = match open_db(&c.data, options.create_table, &table) {
        Ok(db) => db,
        Err(code) => return code,
    };
    let tool = Import::new(&db, &table, options);
    let bar = Bar::start(tool.progress(), "import");
    let result = tool.run(Path::new(&dir));
    bar.finish();
    let status = match result {
        Ok(r) => {
            if r.created_table {
                eprintln!("Created table '{table}' from the export's descriptor and split keys");
            }
            println!(
                "Import: {} cells ({} rows) into '{table}' from {dir}: {} data files, {} bytes, {} storefiles{}",
                r.cells,
                r.rows,
                r.parts,
                r.bytes,
                r.storefiles,
                timing(c.no_timing, r.elapsed, r.rows, r.bytes)
            );
            ExitCode::SUCCESS
        }
        Err(e) => failed(&e, &usage),
    };
    tool_args::close_db(db, status)
}

/// `regionkv copytable ARGS`.
pub fn run_copytable(args: &RawToolArgs) -> ExitCode {
    let usage = copy_table::usage();
    let c = match common(&args.args, true) {
        Ok(c) => c,
        Err(m) => return usage_error(&m, &usage),
    };
    let options = match CopyTableOptions::parse(&c.rest) {
        _ if c.help => {
            print!("{usage}");
            return ExitCode::SUCCESS;
        }
        Ok(CopyTableRequest::Help) => {
            // HBase prints the usage and fails when there is nothing to copy.
            eprint!("{usage}");
            return ExitCode::FAILURE;
        }
        Ok(CopyTableRequest::Run(o)) => o,
        Err(e) => return failed(&e, &usage),
    };
    let db = match open_db(&c.data, false, &options.table) {
        Ok(db) => db,
        Err(code) => return code,
    };
    let target = options
        .new_name
        .clone()
        .unwrap_or_else(|| options.table.clone());
    let peer = match options
        .peer
        .as_deref()
        .map(|p| open_db(Path::new(p), false, &target))
    {
        None => None,
        Some(Ok(p)) => Some(p),
        Some(Err(code)) => return tool_args::close_db(db, code),
    };
    let tool = CopyTable::new(&db, peer.as_ref().unwrap_or(&db), options.clone());
    let bar = Bar::start(tool.progress(), "copytable");
    let result = tool.run();
    bar.finish();
    let status = match result {
        Ok(r) => {
            println!(
                "CopyTable: {} rows, {} cells ({} delete markers) from '{}' to '{}'{}",
                r.rows,
                r.cells,
                r.delete_markers,
                options.table,
                options.destination(),
                if c.no_timing {
                    String::new()
                } else {
                    let secs = r.elapsed.as_secs_f64().max(1e-6);
                    format!(" in {secs:.2} s: {:.0} rows/s", r.rows as f64 / secs)
                }
            );
            ExitCode::SUCCESS
        }
        Err(e) => failed(&e, &usage),
    };
    let status = match peer {
        Some(p) => tool_args::close_db(p, status),
        None => status,
    };
    tool_args::close_db(db, status)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn regionkv_options_come_out_and_hbase_arguments_stay() {
        let c = common(
            &args("--data /d -D a=b t out 3 --no-timing -Dx=y=z --format=csv"),
            false,
        )
        .unwrap();
        assert_eq!(c.data, PathBuf::from("/d"));
        assert!(c.no_timing);
        assert_eq!(c.format.as_deref(), Some("csv"));
        assert_eq!(
            c.properties,
            [("a".into(), "b".into()), ("x".into(), "y=z".into())]
        );
        assert_eq!(c.rest, ["t", "out", "3"]);
        assert!(common(&args("--bogus t d"), false).is_err());
        // CopyTable's own --key=value options pass through.
        let c = common(&args("--data=/d --new.name=T2 --all.cells T"), true).unwrap();
        assert_eq!(c.rest, ["--new.name=T2", "--all.cells", "T"]);
    }
}
