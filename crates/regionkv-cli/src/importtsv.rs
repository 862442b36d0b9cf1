//! `regionkv importtsv`: HBase's ImportTsv command line (`-Dkey=value` options, then the
//! table and the inputs) over a data directory, calling `regionkv_tools::import_tsv`.
//!
//! This module owns only the command line: its own argument parsing (HBase's `-D` form
//! and HBase's usage text on a usage error, which clap's parser would replace with its
//! own), the progress bar (indicatif, on standard error, only when standard error is a
//! terminal), and the printed result: Hadoop's counter listing and a one-line summary on
//! standard output, bad lines and notes on standard error. Exit status 0 unless the import
//! failed (a bad line under `importtsv.skip.bad.lines=false`, an unreadable input, a
//! refused write) or never started.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use crate::tool_args::{self, PolledBar, RawToolArgs, ToolRequest};
use regionkv_tools::import_tsv::{
    self, BadLine, ImportTsv, ImportTsvOptions, Input, JobReport, Observer, Progress,
};

/// The command line, parsed.
#[derive(Debug, PartialEq)]
struct Parsed {
    data: PathBuf,
    /// `--no-wal`: one bulk load instead of puts.
    no_wal: bool,
    no_timing: bool,
    properties: Vec<(String, String)>,
    table: String,
    inputs: Vec<Input>,
}

/// What the command line asks for.
#[derive(Debug, PartialEq)]
enum Request {
    Help,
    Run(Parsed),
}

/// A usage error: the message, then the usage text.
#[derive(Debug, PartialEq)]
struct UsageError(String);

/// Parses HBase's `importtsv` arguments plus regionkv's `--data`, `--no-timing`.
fn parse(args: &[String]) -> Result<Request, UsageError> {
    let a = match tool_args::parse(args, &["--no-wal"]).map_err(UsageError)? {
        ToolRequest::Help => return Ok(Request::Help),
        ToolRequest::Run(a) => a,
    };
    let mut positional = a.positional;
    if positional.len() < 2 {
        // HBase's words (it counts the arguments left after the -D options).
        return Err(UsageError(format!(
            "Wrong number of arguments: {}",
            positional.len()
        )));
    }
    let table = positional.remove(0);
    let inputs = positional.iter().map(|a| Input::from_arg(a)).collect();
    Ok(Request::Run(Parsed {
        no_wal: !a.flags.is_empty(),
        data: a.data,
        no_timing: a.no_timing,
        properties: a.properties,
        table,
        inputs,
    }))
}

fn usage_error(message: &str) -> ExitCode {
    eprintln!("ERROR: {message}");
    eprint!("{}", import_tsv::usage());
    ExitCode::FAILURE
}

/// The observer of the command: the progress bar on a terminal, bad lines and notes on
/// standard error (printed above the bar, which is redrawn after).
struct Terminal {
    bar: PolledBar,
}

impl Observer for Terminal {
    fn started(&mut self, total_bytes: Option<u64>, progress: Arc<Progress>) {
        let template = match total_bytes {
            Some(_) => {
                "{spinner} {elapsed_precise} [{bar:30}] {bytes}/{total_bytes} {msg}, ETA {eta}"
            }
            None => "{spinner} {elapsed_precise} {bytes} read, {msg}",
        };
        // The figures are polled, so the bar moves even while a read waits on a pipe.
        self.bar.start(total_bytes, template, move |elapsed| {
            let rows = progress.rows();
            let secs = elapsed.as_secs_f64().max(1e-3);
            (
                progress.bytes_read(),
                format!("{rows} rows, {:.0} rows/s", rows as f64 / secs),
            )
        });
    }

    fn bad_line(&mut self, bad: &BadLine<'_>) {
        self.bar.print(&bad.render());
    }

    fn note(&mut self, text: &str) {
        self.bar.print(format!("{text}\n").as_bytes());
    }
}

/// The summary line after the counters.
fn summary(table: &str, r: &JobReport, no_timing: bool) -> String {
    let c = &r.counters;
    let files = if r.inputs == 1 { "input" } else { "inputs" };
    let what = if let (Some(b), None) = (&r.bulk, &r.failure) {
        let runs = if b.spills == 0 {
            String::new()
        } else {
            format!(", sorted in {} runs", b.spills)
        };
        match &b.output {
            Some(dir) => format!(
                ": {} rows ({} cells) written as {} HFiles ({} bytes) to {} for '{table}' ({} regions){runs}",
                c.output_records,
                b.cells,
                b.files,
                b.bytes,
                dir.display(),
                b.regions
            ),
            None => format!(
                ": {} rows ({} cells) bulk-loaded into '{table}' ({} storefiles in {} regions, no WAL){runs}",
                c.output_records, b.cells, b.files, b.regions
            ),
        }
    } else if r.failure.is_some() {
        format!(
            " failed: {} rows ({} cells) parsed for '{table}' before the error below",
            c.output_records, r.cells
        )
    } else if r.dry_run {
        format!(
            " dry run: {} rows ({} cells) parsed, nothing written to '{table}'",
            c.output_records, r.cells
        )
    } else {
        format!(
            ": {} rows ({} cells) written to '{table}'",
            c.output_records, r.cells
        )
    };
    let bad = if c.bad_lines == 1 { "line" } else { "lines" };
    let mut s = format!(
        "ImportTsv{what}, {} bad {bad}, from {} {files} ({} bytes)",
        c.bad_lines, r.inputs, c.bytes_read
    );
    s.push_str(&tool_args::rates(
        no_timing,
        r.elapsed,
        c.output_records,
        "rows",
        c.bytes_read,
    ));
    s
}

/// `regionkv importtsv ARGS`.
pub fn run(args: &RawToolArgs) -> ExitCode {
    let parsed = match parse(&args.args) {
        Ok(Request::Help) => {
            print!("{}", import_tsv::usage());
            return ExitCode::SUCCESS;
        }
        Ok(Request::Run(p)) => p,
        Err(UsageError(message)) => return usage_error(&message),
    };
    let options =
        match ImportTsvOptions::from_properties(parsed.properties.iter().map(|(k, v)| (k, v))) {
            Ok(o) if parsed.no_wal && o.bulk_output.is_some() => {
                return usage_error(
                    "--no-wal loads the table; -Dimporttsv.bulk.output writes HFiles for \
                     completebulkload instead: give one of them",
                );
            }
            Ok(mut o) => {
                o.bulk_load = parsed.no_wal;
                o
            }
            Err(e) if e.is_usage() => return usage_error(&e.to_string()),
            Err(e) => {
                eprintln!("ERROR: {e}");
                return ExitCode::FAILURE;
            }
        };
    // Only an import that may create the table may create the directory.
    let create = options.create_table && !options.dry_run;
    let db = match tool_args::open_db(&parsed.data, create, &parsed.table) {
        Ok(db) => db,
        Err(code) => return code,
    };
    let mut observer = Terminal {
        bar: PolledBar::none(),
    };
    let result = ImportTsv::new(&db, &parsed.table, options).run(&parsed.inputs, &mut observer);
    observer.bar.finish();
    let report = match result {
        Ok(r) => r,
        Err(e) => {
            eprintln!("ERROR: {}", crate::error_chain(&e));
            if e.is_usage() {
                eprint!("{}", import_tsv::usage());
            }
            return ExitCode::FAILURE;
        }
    };
    let table = regionkv::db::canonical_table_name(&parsed.table).unwrap_or(parsed.table);
    let mut out = std::io::stdout().lock();
    let _ = write!(out, "{}", report.counters.render());
    let _ = writeln!(out, "{}", summary(&table, &report, parsed.no_timing));
    let _ = out.flush();
    let mut status = ExitCode::SUCCESS;
    if let Some(failure) = &report.failure {
        eprintln!("ERROR: {}", crate::error_chain(failure));
        status = ExitCode::FAILURE;
    }
    // Every acknowledged put is in the WAL already; closing flushes nothing it needs.
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
    fn hbase_command_lines_parse() {
        let r = parse(&args(
            "-Dimporttsv.columns=HBASE_ROW_KEY,d:a -D importtsv.separator=, --data /x t a.tsv - dir",
        ))
        .unwrap();
        assert_eq!(
            r,
            Request::Run(Parsed {
                data: PathBuf::from("/x"),
                no_timing: false,
                no_wal: false,
                properties: vec![
                    ("importtsv.columns".into(), "HBASE_ROW_KEY,d:a".into()),
                    ("importtsv.separator".into(), ",".into()),
                ],
                table: "t".into(),
                inputs: vec![
                    Input::Path("a.tsv".into()),
                    Input::Stdin,
                    Input::Path("dir".into())
                ],
            })
        );
        assert_eq!(parse(&args("--help")).unwrap(), Request::Help);
        let Request::Run(p) = parse(&args("--data=/d --no-timing -Dk=v=w t f")).unwrap() else {
            panic!()
        };
        assert_eq!(p.data, PathBuf::from("/d"));
        assert!(p.no_timing);
        assert_eq!(p.properties, [("k".to_string(), "v=w".to_string())]);
    }

    #[test]
    fn usage_errors() {
        assert_eq!(
            parse(&args("-Dimporttsv.columns=a t")).unwrap_err(),
            UsageError("Wrong number of arguments: 1".into())
        );
        assert_eq!(
            parse(&args("")).unwrap_err(),
            UsageError("Wrong number of arguments: 0".into())
        );
        assert!(parse(&args("-Dnovalue t f")).is_err());
        assert!(parse(&args("--bogus t f")).is_err());
        assert!(parse(&args("t f --data")).is_err());
        let Request::Run(p) = parse(&args("--no-wal t f")).unwrap() else {
            panic!()
        };
        assert!(p.no_wal);
    }
}
