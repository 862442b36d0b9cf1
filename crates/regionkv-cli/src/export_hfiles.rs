//! `regionkv export-hfiles`: writes a table as HBase HFiles for HBase's completebulkload
//! (`[--data DIR] [-Dkey=value ...] TABLE OUTPUTDIR`), calling
//! `regionkv_tools::export_hfiles`. This module owns the command line, the progress
//! spinner (cells written, on a terminal only), the HBase shell script that creates the
//! table on a cluster (`<outputdir>/_create_table.hbase`, from `regionkv_lab::export`), and
//! the printed result: one line per file, a summary and the `create` statement.

use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use regionkv_tools::export_hfiles::{ExportHFiles, ExportHFilesOptions};

use crate::tool_args::{self, PolledBar, RawToolArgs, ToolRequest};

/// The HBase shell script written beside the files: the `create` of the table's twin.
const CREATE_SCRIPT: &str = "_create_table.hbase";

/// The usage text.
fn usage() -> &'static str {
    "Usage: regionkv export-hfiles [--data DIR] [--no-timing] [-Dkey=value ...] <tablename> <outputdir>\n\
     Writes every cell of the table (all versions and delete markers) as HBase HFile v3 files\n\
     that HBase's completebulkload loads: <outputdir>/<family>/<file>, one file per region and\n\
     family, then <outputdir>/_SUCCESS and <outputdir>/_create_table.hbase (the HBase shell\n\
     `create` of the table, its families and region boundaries).\n\
     Options:\n \
     -Dhfile.compression=NONE|GZ|LZ4  every file's compression (default: the family's)\n \
     -Dhbase.mapreduce.hfileoutputformat.blocksize=N  data block size (default: the family's BLOCKSIZE)\n \
     -Dhbase.hregion.max.filesize=N  roll a file at the next row past N bytes (default 10 GiB)\n \
     -Dhbase.mapreduce.hfileoutputformat.compaction.exclude=true  mark the files EXCLUDE_FROM_MINOR_COMPACTION\n\
     See docs/interchange.md.\n"
}

fn usage_error(message: &str) -> ExitCode {
    eprintln!("ERROR: {message}");
    eprint!("{}", usage());
    ExitCode::FAILURE
}

/// `regionkv export-hfiles ARGS`.
pub fn run(args: &RawToolArgs) -> ExitCode {
    let a = match tool_args::parse(&args.args, &[]) {
        Ok(ToolRequest::Help) => {
            print!("{}", usage());
            return ExitCode::SUCCESS;
        }
        Ok(ToolRequest::Run(a)) => a,
        Err(message) => return usage_error(&message),
    };
    let [table, out] = a.positional.as_slice() else {
        return usage_error(&format!(
            "Wrong number of arguments: {}",
            a.positional.len()
        ));
    };
    let options = match ExportHFilesOptions::from_properties(a.properties.iter().cloned()) {
        Ok(o) => o,
        Err(e) => return usage_error(&e.to_string()),
    };
    for note in &options.notes {
        eprintln!("{note}");
    }
    let db = match tool_args::open_db(&a.data, false, table) {
        Ok(db) => db,
        Err(code) => return code,
    };
    let cells = Arc::new(AtomicU64::new(0));
    let mut bar = PolledBar::none();
    let polled = cells.clone();
    bar.start(None, "{spinner} {elapsed_precise} {msg}", move |elapsed| {
        let n = polled.load(Ordering::Relaxed);
        let rate = n as f64 / elapsed.as_secs_f64().max(1e-3);
        (n, format!("{n} cells written, {rate:.0} cells/s"))
    });
    let started = Instant::now();
    let out_dir = std::path::Path::new(out);
    let result = ExportHFiles::new(&db, table, options)
        .run(out_dir, &cells)
        .map_err(|e| crate::error_chain(&e))
        .and_then(|report| {
            // The statement that creates the table's twin on a cluster, beside the files
            // (HBase's completebulkload skips top-level files, as it skips _SUCCESS).
            let admin = db.admin();
            let desc = admin.describe(table).map_err(|e| crate::error_chain(&e))?;
            let splits = admin.splits(table).map_err(|e| crate::error_chain(&e))?;
            let create = regionkv_lab::export::create_statement(&desc, &splits);
            let script = out_dir.join(CREATE_SCRIPT);
            std::fs::write(
                &script,
                format!("# regionkv export-hfiles: the table the files in this directory load into\n{create}\n"),
            )
            .map_err(|e| format!("writing {}: {e}", script.display()))?;
            Ok((report, create))
        });
    bar.finish();
    let status = match result {
        Ok((report, create)) => {
            let mut o = std::io::stdout().lock();
            for f in &report.files {
                let _ = writeln!(
                    o,
                    "{}\t{} cells\t{} bytes",
                    f.path.display(),
                    f.cells,
                    f.bytes
                );
            }
            let table = regionkv::db::canonical_table_name(table).unwrap_or_else(|_| table.clone());
            let mut line = format!(
                "export-hfiles: {} HFiles of '{table}' ({} regions): {} cells, {} bytes written to {out}",
                report.files.len(),
                report.regions,
                report.cells,
                report.bytes
            );
            line.push_str(&tool_args::rates(
                a.no_timing,
                started.elapsed(),
                report.cells,
                "cells",
                report.bytes,
            ));
            let _ = writeln!(o, "{line}");
            let _ = writeln!(o, "{out}/{CREATE_SCRIPT}: {create}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("ERROR: {e}");
            ExitCode::FAILURE
        }
    };
    tool_args::close_db(db, status)
}
