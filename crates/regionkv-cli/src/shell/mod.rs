//! `regionkv shell`: opens a data directory with the embedded engine, then reads HBase shell
//! statements interactively through a line editor, or runs them from a script, printing what
//! HBase 2.4's shell prints (see `session.rs` for the shape of each command's output).
//!
//! Modes: interactive when standard input is a terminal and no `-f SCRIPT` is given (prompt,
//! history in `DIR/.regionkv_history`, multi-line statements, `=> value` echoes, output padded
//! to the terminal width as HBase pads it); otherwise script mode, which prints only the
//! commands' output, unpadded, and exits with code 1 if any statement failed (or with the code
//! an `exit CODE` asks for).
//!
//! Only one process may use a data directory at a time: [`regionkv::Db::open`] takes an
//! exclusive lock on `DIR/LOCK` and holds it until the shell exits.
//!
//! Output switches for diffing against a real cluster: cell timestamps print as epoch
//! milliseconds by default, as HBase up to 2.3 and the reference guide print them (`--epoch-ts`
//! asks for that explicitly); `--iso-ts` prints HBase 2.4+'s local ISO date-time instead
//! (`LocalDateTime` in the local zone: `TZ`, else `/etc/localtime`); the last of the two
//! given wins. `--no-timing` leaves out the `Took X.XXXX seconds` lines.

mod args;
mod clock;
mod commands;
mod ddl;
mod dml;
mod engine;
mod format;
mod input;
mod parse;
mod regions;
mod session;
mod tz;

use std::fs::File;
use std::io::{self, BufRead, BufReader, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use rustyline::error::ReadlineError;

use self::engine::Engine;
use self::format::TimestampFormat;
use self::input::Chunker;
use self::session::{Flow, Session, Settings};

/// The name of the interactive history file inside the data directory.
const HISTORY_FILE: &str = ".regionkv_history";

/// How many lines the interactive history keeps.
const HISTORY_SIZE: usize = 1000;

/// The options of `regionkv shell`.
#[derive(Debug, clap::Args)]
pub struct ShellArgs {
    /// The data directory; created if it does not exist
    #[arg(long, value_name = "DIR", default_value = "./regionkv-data")]
    pub data: PathBuf,

    /// Run the statements of SCRIPT, then exit (standard input is read the same way when it
    /// is not a terminal)
    #[arg(short = 'f', long = "file", value_name = "SCRIPT")]
    pub script: Option<PathBuf>,

    /// Print cell timestamps as epoch milliseconds, as HBase up to 2.3 does (the default)
    #[arg(long = "epoch-ts", overrides_with = "iso_ts")]
    pub epoch_ts: bool,

    /// Print cell timestamps as the local ISO date-time HBase 2.4+ prints
    /// (`2023-11-14T22:13:20.005`, in the zone of TZ or /etc/localtime)
    #[arg(long = "iso-ts", overrides_with = "epoch_ts")]
    pub iso_ts: bool,

    /// Leave out the `Took X.XXXX seconds` line after each command (for diffable output)
    #[arg(long = "no-timing")]
    pub no_timing: bool,
}

/// Why the shell stopped early.
#[derive(Debug, thiserror::Error)]
enum ShellError {
    /// Reading the script or standard input failed.
    #[error("cannot read {what}: {source}")]
    Input {
        /// What was being read.
        what: String,
        /// Why it failed.
        source: io::Error,
    },
    /// Writing the output failed (a closed pipe, a full disk).
    #[error("cannot write output: {0}")]
    Output(#[from] io::Error),
    /// The line editor failed.
    #[error("line editor failed: {0}")]
    Editor(#[from] ReadlineError),
}

/// Runs `regionkv shell`.
pub fn run(args: &ShellArgs) -> ExitCode {
    let timestamps = if args.iso_ts {
        TimestampFormat::Local(tz::TimeZone::local())
    } else {
        TimestampFormat::Epoch
    };
    let engine = match Engine::open(&args.data, timestamps) {
        Ok(engine) => engine,
        Err(message) => {
            let _ = writeln!(io::stderr(), "ERROR: {message}");
            return ExitCode::FAILURE;
        }
    };
    let interactive = args.script.is_none() && io::stdin().is_terminal();
    let settings = Settings {
        echo: interactive,
        timing: !args.no_timing,
        width: 0,
    };
    let session = Session::new(io::stdout(), engine, settings);
    let result = match &args.script {
        Some(path) => match File::open(path) {
            Ok(file) => run_script(session, BufReader::new(file), &path.display().to_string()),
            Err(source) => Err(ShellError::Input {
                what: format!("script {}", path.display()),
                source,
            }),
        },
        None if interactive => run_interactive(session, &args.data),
        None => run_script(session, io::stdin().lock(), "standard input"),
    };
    match result {
        Ok(code) => code,
        // Whoever closed our output (`| head`) does not want to read an error either.
        Err(ShellError::Output(e)) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::FAILURE,
        Err(e) => {
            let _ = writeln!(io::stderr(), "ERROR: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The exit code once the session ends with `flow`.
fn exit_code(flow: Flow, failures: u64, script: bool) -> ExitCode {
    match flow {
        Flow::Exit(Some(code)) => ExitCode::from(code),
        _ if script && failures > 0 => ExitCode::FAILURE,
        _ => ExitCode::SUCCESS,
    }
}

/// Closes the engine (flushing its regions) once the session is over; a failure to close
/// is reported and fails the run.
fn finish<W: Write>(session: Session<W>, code: ExitCode) -> ExitCode {
    match session.engine().close() {
        Ok(()) => code,
        Err(message) => {
            let _ = writeln!(io::stderr(), "ERROR: closing the data directory: {message}");
            ExitCode::FAILURE
        }
    }
}

/// Runs every statement read from `input`, printing only their output.
fn run_script<W: Write>(
    mut session: Session<W>,
    input: impl BufRead,
    what: &str,
) -> Result<ExitCode, ShellError> {
    let mut chunker = Chunker::for_script();
    let mut lines = input.lines();
    loop {
        let chunk = match lines.next() {
            Some(Ok(line)) => chunker.push(&line),
            Some(Err(source)) => {
                return Err(ShellError::Input {
                    what: what.to_owned(),
                    source,
                });
            }
            None => match chunker.finish() {
                Some(chunk) => Some(chunk),
                None => {
                    let code = exit_code(Flow::Continue, session.failures(), true);
                    return Ok(finish(session, code));
                }
            },
        };
        if let Some((text, first_line)) = chunk {
            let flow = session.run_chunk(&text, first_line)?;
            if flow != Flow::Continue {
                let code = exit_code(flow, session.failures(), true);
                return Ok(finish(session, code));
            }
        }
    }
}

/// The interactive shell: a line editor with history, prompts and multi-line statements.
fn run_interactive<W: Write>(mut session: Session<W>, data: &Path) -> Result<ExitCode, ShellError> {
    let config = rustyline::Config::builder()
        .max_history_size(HISTORY_SIZE)?
        .history_ignore_dups(true)?
        .history_ignore_space(true)
        .auto_add_history(false)
        .build();
    let mut editor = rustyline::DefaultEditor::with_config(config)?;
    let history = data.join(HISTORY_FILE);
    match editor.load_history(&history) {
        Ok(()) => {}
        Err(ReadlineError::Io(e)) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => {
            let _ = writeln!(
                io::stderr(),
                "WARNING: cannot read the shell history {}: {e}",
                history.display()
            );
        }
    }

    {
        let out = session.out();
        writeln!(out, "regionkv shell on data directory {}", data.display())?;
        writeln!(out, "Use \"help\" to get list of supported commands.")?;
        writeln!(out, "Use \"exit\" to quit this interactive shell.")?;
        writeln!(out, "Version {}", commands::version_line())?;
        out.flush()?;
    }

    let mut chunker = Chunker::new();
    let outcome = loop {
        match editor.readline(&chunker.prompt()) {
            Ok(line) => {
                if !line.trim().is_empty() {
                    // Only fails for the SQLite history backend, which is not used.
                    let _ = editor.add_history_entry(line.as_str());
                }
                if let Some((text, first_line)) = chunker.push(&line) {
                    // HBase pads its tables to the terminal's current width.
                    let width = editor
                        .dimensions()
                        .map_or(0, |(columns, _)| usize::from(columns));
                    session.set_width(width);
                    match session.run_chunk(&text, first_line) {
                        Ok(Flow::Continue) => {}
                        Ok(flow) => break Ok(flow),
                        Err(e) => break Err(ShellError::Output(e)),
                    }
                }
            }
            // Ctrl-C drops the statement being typed, as in IRB.
            Err(ReadlineError::Interrupted) => chunker.discard(),
            Err(ReadlineError::Eof) => {
                let flow = match chunker.finish() {
                    Some((text, first_line)) => session.run_chunk(&text, first_line),
                    None => Ok(Flow::Continue),
                };
                break flow.map_err(ShellError::Output);
            }
            Err(e) => break Err(ShellError::Editor(e)),
        }
    };
    if let Err(e) = editor.save_history(&history) {
        let _ = writeln!(
            io::stderr(),
            "WARNING: cannot save the shell history to {}: {e}",
            history.display()
        );
    }
    let flow = match outcome? {
        // Ctrl-D at the end of a statement still leaves the shell.
        Flow::Continue => Flow::Exit(None),
        flow => flow,
    };
    let code = exit_code(flow, session.failures(), false);
    Ok(finish(session, code))
}
