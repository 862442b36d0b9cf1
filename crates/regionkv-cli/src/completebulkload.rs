//! `regionkv completebulkload`: HBase's `completebulkload` command line
//! (`[-Dkey=value ...] DIR TABLE [-loadTable]`) over a data directory, calling
//! `regionkv_tools::complete_bulk_load`.
//!
//! This module owns only the command line: the arguments (the shared `tool_args` form),
//! the progress bar (cells read of the files' total, on a terminal only), and the printed
//! result: one summary line on standard output, HBase's warnings and the option notes on
//! standard error. Exit status: 0 when files were loaded; 255 when there was nothing to
//! load (HBase's tool returns -1); 1 on an error (nothing was loaded: the load is atomic).

use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use regionkv_tools::complete_bulk_load::{
    self, CompleteBulkLoad, CompleteBulkLoadOptions, CompleteBulkLoadReport, Observer,
};

use crate::tool_args::{self, PolledBar, RawToolArgs, ToolRequest};

fn usage_error(message: &str) -> ExitCode {
    eprintln!("ERROR: {message}");
    eprint!("{}", complete_bulk_load::usage());
    ExitCode::FAILURE
}

/// The command's observer: the bar and the warnings above it.
struct Terminal {
    bar: PolledBar,
}

impl Observer for Terminal {
    fn warning(&mut self, message: &str) {
        self.bar.print(format!("WARN: {message}\n").as_bytes());
    }

    fn loading(&mut self, total_cells: u64, _total_bytes: u64, cells_read: Arc<AtomicU64>) {
        self.bar.start(
            Some(total_cells),
            "{spinner} {elapsed_precise} [{bar:30}] {pos}/{len} cells {msg}, ETA {eta}",
            move |elapsed| {
                let n = cells_read.load(Ordering::Relaxed);
                let rate = n as f64 / elapsed.as_secs_f64().max(1e-3);
                (n, format!("{rate:.0} cells/s"))
            },
        );
    }
}

/// The summary line.
fn summary(
    table: &str,
    r: &CompleteBulkLoadReport,
    elapsed: Option<std::time::Duration>,
) -> String {
    let files = if r.hfiles == 1 { "HFile" } else { "HFiles" };
    let mut s = format!(
        "completebulkload: {} {files} ({} split at region boundaries) loaded into '{table}': {} cells, {} storefiles in {} regions, {} bytes read, {} bytes written",
        r.hfiles, r.hfiles_split, r.cells, r.storefiles, r.regions, r.bytes_read, r.bytes_written
    );
    if r.duplicate_cells > 0 {
        s.push_str(&format!(
            ", {} duplicate cells loaded once",
            r.duplicate_cells
        ));
    }
    if let Some(e) = elapsed {
        s.push_str(&tool_args::rates(false, e, r.cells, "cells", r.bytes_read));
    }
    s
}

/// `regionkv completebulkload ARGS`.
pub fn run(args: &RawToolArgs) -> ExitCode {
    let a = match tool_args::parse(&args.args, &["-loadTable"]) {
        Ok(ToolRequest::Help) => {
            print!("{}", complete_bulk_load::usage());
            return ExitCode::SUCCESS;
        }
        Ok(ToolRequest::Run(a)) => a,
        Err(message) => return usage_error(&message),
    };
    // HBase: exactly two arguments, or three with -loadTable last.
    let [dir, table] = a.positional.as_slice() else {
        return usage_error(&format!(
            "Wrong number of arguments: {}",
            a.positional.len() + a.flags.len()
        ));
    };
    let mut options = match CompleteBulkLoadOptions::from_properties(a.properties.iter().cloned()) {
        Ok(o) => o,
        Err(e) if e.is_usage() => return usage_error(&e.to_string()),
        Err(e) => {
            eprintln!("ERROR: {e}");
            return ExitCode::FAILURE;
        }
    };
    options.load_table = !a.flags.is_empty();
    for note in &options.notes {
        eprintln!("{note}");
    }
    let create = options.create_table && !options.load_table;
    let db = match tool_args::open_db(&a.data, create, table) {
        Ok(db) => db,
        Err(code) => return code,
    };
    let mut observer = Terminal {
        bar: PolledBar::none(),
    };
    let started = Instant::now();
    let result =
        CompleteBulkLoad::new(&db, table, options).run(std::path::Path::new(dir), &mut observer);
    observer.bar.finish();
    let status = match result {
        Ok(report) => {
            let table = regionkv::db::canonical_table_name(table).unwrap_or_else(|_| table.clone());
            let mut out = std::io::stdout().lock();
            if report.table_created {
                let _ = writeln!(out, "Table {table} is available!!");
            }
            let elapsed = (!a.no_timing).then(|| started.elapsed());
            let _ = writeln!(out, "{}", summary(&table, &report, elapsed));
            let _ = out.flush();
            if report.loaded_anything() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(255)
            }
        }
        Err(e) => {
            eprintln!("ERROR: {}", crate::error_chain(&e));
            if e.is_usage() {
                eprint!("{}", complete_bulk_load::usage());
            }
            ExitCode::FAILURE
        }
    };
    tool_args::close_db(db, status)
}
