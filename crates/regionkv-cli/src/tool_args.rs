//! What the data-tool commands (`importtsv`, `completebulkload`, ...) share: HBase's
//! command-line form (Hadoop's `-Dkey=value` options, then positional arguments), regionkv's
//! `--data DIR` and `--no-timing`, opening the data directory with the same messages, and the
//! progress bar drawn from polled figures.
//!
//! clap does not parse these command lines: HBase's tools take `-D key=value` with or without
//! the space and print their own usage text on a usage error, which clap would replace.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use regionkv::{Db, DbOptions};

/// The raw arguments of a data-tool command, handed whole to [`parse`] (HBase's tools
/// have their own syntax, which clap would not keep).
#[derive(Debug, clap::Args)]
pub struct RawToolArgs {
    /// [--data DIR] [--no-timing] [-Dkey=value ...] ARGS (`--help` for the tool's usage)
    #[arg(
        trailing_var_arg = true,
        allow_hyphen_values = true,
        value_name = "ARGS"
    )]
    pub(crate) args: Vec<String>,
}

/// ` in S s: N unit/s, M MB/s` for a summary line, or nothing with `--no-timing`.
pub(crate) fn rates(
    no_timing: bool,
    elapsed: std::time::Duration,
    count: u64,
    unit: &str,
    bytes: u64,
) -> String {
    if no_timing {
        return String::new();
    }
    let secs = elapsed.as_secs_f64().max(1e-6);
    format!(
        " in {secs:.2} s: {:.0} {unit}/s, {:.1} MB/s",
        count as f64 / secs,
        bytes as f64 / secs / 1e6
    )
}

/// Closes `db` after a tool ran: `status`, or a failure when the close fails.
pub(crate) fn close_db(db: Db, status: ExitCode) -> ExitCode {
    match db.close() {
        Ok(()) => status,
        Err(e) => {
            eprintln!(
                "ERROR: closing the data directory: {}",
                crate::error_chain(&e)
            );
            ExitCode::FAILURE
        }
    }
}

/// A tool's command line, parsed.
#[derive(Debug, PartialEq)]
pub(crate) struct ToolArgs {
    /// `--data DIR` (default `./regionkv-data`, the shell's).
    pub data: PathBuf,
    /// `--no-timing`: leave elapsed times and rates out (scripts, goldens).
    pub no_timing: bool,
    /// `-Dkey=value` options, in order.
    pub properties: Vec<(String, String)>,
    /// The tool's own flags met (from the `flags` it accepts).
    pub flags: Vec<String>,
    /// Everything else, in order (`-` counts as positional: standard input).
    pub positional: Vec<String>,
}

/// What a tool's command line asks for.
#[derive(Debug, PartialEq)]
pub(crate) enum ToolRequest {
    /// `-h`/`--help`.
    Help,
    /// A run.
    Run(ToolArgs),
}

/// Parses `args`: `-Dk=v` or `-D k=v`, `--data DIR` or `--data=DIR`, `--no-timing`,
/// `-h`/`--help`, the flags of `flags` (one ending in `=` matches `--flag=value`, kept
/// whole); anything else starting with `-` (but `-`) is an unknown option. The error is the
/// message for a usage error.
pub(crate) fn parse(args: &[String], flags: &[&str]) -> Result<ToolRequest, String> {
    parse_with(args, flags, false)
}

/// [`parse`], but with `passthrough` other `-`-options stay among the positional
/// arguments in order (CopyTable's `--key=value` options, which its own parser reads).
pub(crate) fn parse_with(
    args: &[String],
    flags: &[&str],
    passthrough: bool,
) -> Result<ToolRequest, String> {
    let mut out = ToolArgs {
        data: PathBuf::from("./regionkv-data"),
        no_timing: false,
        properties: Vec::new(),
        flags: Vec::new(),
        positional: Vec::new(),
    };
    let property = |kv: &str| -> Result<(String, String), String> {
        kv.split_once('=')
            .map(|(k, v)| (k.trim().to_string(), v.to_string()))
            .filter(|(k, _)| !k.is_empty())
            .ok_or_else(|| format!("-D{kv}: expected -Dkey=value"))
    };
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "-h" | "--help" => return Ok(ToolRequest::Help),
            "--no-timing" => out.no_timing = true,
            "--data" => {
                out.data = it
                    .next()
                    .map(PathBuf::from)
                    .ok_or_else(|| "--data needs a directory".to_string())?;
            }
            "-D" => {
                let kv = it.next().ok_or_else(|| "-D needs key=value".to_string())?;
                out.properties.push(property(kv)?);
            }
            a if flags
                .iter()
                .any(|f| a == *f || (f.ends_with('=') && a.starts_with(f))) =>
            {
                out.flags.push(a.to_string());
            }
            a if a.starts_with("--data=") => out.data = PathBuf::from(&a["--data=".len()..]),
            a if a.starts_with("-D") => out.properties.push(property(&a[2..])?),
            a if a.starts_with('-') && a != "-" && !passthrough => {
                return Err(format!("Unknown option: {a}"));
            }
            a => out.positional.push(a.to_string()),
        }
    }
    Ok(ToolRequest::Run(out))
}

/// Opens the data directory for a tool, printing the error as the tools do. A tool that
/// may not create the table may not create the directory either: a missing directory is
/// HBase's missing-table message, naming where the table was looked for.
pub(crate) fn open_db(data: &Path, create: bool, table: &str) -> Result<Db, ExitCode> {
    if !create && !data.exists() {
        let table = regionkv::db::canonical_table_name(table).unwrap_or_else(|_| table.to_string());
        eprintln!(
            "ERROR: Table '{table}' does not exist. (There is no data directory {}.)",
            data.display()
        );
        return Err(ExitCode::FAILURE);
    }
    match Db::open(data, DbOptions::default().create_if_missing(create)) {
        Ok(db) => Ok(db),
        Err(regionkv::Error::Locked { .. }) => {
            eprintln!(
                "ERROR: data directory {} is in use by another process",
                data.display()
            );
            Err(ExitCode::FAILURE)
        }
        Err(e) => {
            eprintln!(
                "ERROR: cannot open data directory {}: {}",
                data.display(),
                crate::error_chain(&e)
            );
            Err(ExitCode::FAILURE)
        }
    }
}

/// A progress bar on standard error, only when it is a terminal (scripts get none), whose
/// position and message are polled from the work's shared figures five times a second, so
/// it moves even while the work blocks.
pub(crate) struct PolledBar {
    bar: Option<indicatif::ProgressBar>,
    stop: Arc<AtomicBool>,
    ticker: Option<std::thread::JoinHandle<()>>,
}

impl PolledBar {
    /// No bar (yet).
    pub(crate) fn none() -> Self {
        PolledBar {
            bar: None,
            stop: Arc::new(AtomicBool::new(false)),
            ticker: None,
        }
    }

    /// Starts a bar of `total` units (a spinner when `None`) with the indicatif
    /// `template`; `poll` gives the position and the message from the time elapsed.
    pub(crate) fn start(
        &mut self,
        total: Option<u64>,
        template: &str,
        poll: impl Fn(std::time::Duration) -> (u64, String) + Send + 'static,
    ) {
        let template = template.to_string();
        self.start_growing(
            total,
            &template.clone(),
            move |elapsed| {
                let (position, message) = poll(elapsed);
                (position, None, message)
            },
            template,
        );
    }

    /// [`Self::start`] for work whose total becomes known on the way (an import, once it
    /// has read its manifest): when `poll` first gives a total, the bar takes it and
    /// `bar_template`.
    pub(crate) fn start_growing(
        &mut self,
        total: Option<u64>,
        template: &str,
        poll: impl Fn(std::time::Duration) -> (u64, Option<u64>, String) + Send + 'static,
        bar_template: String,
    ) {
        if !std::io::stderr().is_terminal() || self.bar.is_some() {
            return;
        }
        let bar = match total {
            Some(t) => indicatif::ProgressBar::new(t),
            None => indicatif::ProgressBar::new_spinner(),
        };
        bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
        let style = |t: &str| {
            indicatif::ProgressStyle::with_template(t)
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
                .progress_chars("=> ")
        };
        bar.set_style(style(template));
        let started = Instant::now();
        let (ticking, stop) = (bar.clone(), self.stop.clone());
        let mut sized = total.is_some();
        let mut show = move |b: &indicatif::ProgressBar| {
            let (position, total, message) = poll(started.elapsed());
            if let (Some(t), false) = (total, sized) {
                b.set_length(t);
                b.set_style(style(&bar_template));
                sized = true;
            }
            b.set_position(position);
            b.set_message(message);
        };
        show(&bar);
        self.ticker = Some(std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                show(&ticking);
                ticking.tick();
                std::thread::sleep(std::time::Duration::from_millis(200));
            }
        }));
        self.bar = Some(bar);
    }

    /// Writes `bytes` to standard error above the bar (redrawn after).
    pub(crate) fn print(&self, bytes: &[u8]) {
        use std::io::Write;
        let write = || {
            let _ = std::io::stderr().lock().write_all(bytes);
        };
        match &self.bar {
            Some(bar) => bar.suspend(write),
            None => write(),
        }
    }

    /// Stops the polling and clears the bar, before the results are printed.
    pub(crate) fn finish(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.ticker.take() {
            let _ = t.join();
        }
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

impl Drop for PolledBar {
    fn drop(&mut self) {
        self.finish();
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn hadoop_command_lines_parse() {
        let ToolRequest::Run(a) = parse(
            &args("-Dk=v -D j=w=x --data /x a - b -loadTable --no-timing"),
            &["-loadTable"],
        )
        .unwrap() else {
            panic!()
        };
        assert_eq!(a.data, PathBuf::from("/x"));
        assert!(a.no_timing);
        assert_eq!(
            a.properties,
            [
                ("k".to_string(), "v".to_string()),
                ("j".into(), "w=x".into())
            ]
        );
        assert_eq!(a.positional, ["a", "-", "b"]);
        assert_eq!(a.flags, ["-loadTable"]);
        assert_eq!(parse(&args("a --help"), &[]).unwrap(), ToolRequest::Help);
        assert_eq!(
            parse(&args("-loadTable"), &[]).unwrap_err(),
            "Unknown option: -loadTable"
        );
        assert!(parse(&args("-Dnovalue"), &[]).is_err());
        assert!(parse(&args("a --data"), &[]).is_err());
        let ToolRequest::Run(a) = parse(&args("--data=/d"), &[]).unwrap() else {
            panic!()
        };
        assert_eq!(a.data, PathBuf::from("/d"));
    }
}
