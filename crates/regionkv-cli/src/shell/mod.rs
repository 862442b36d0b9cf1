//! `regionkv shell`: opens (and locks) a data directory, then reads HBase shell statements
//! interactively through a line editor, or runs them from a script.
//!
//! Modes: interactive when standard input is a terminal and no `-f SCRIPT` is given (prompt,
//! history in `DIR/.regionkv_history`, multi-line statements); otherwise script mode, which
//! prints only the commands' output and exits with code 1 if any statement failed (or with the
//! code an `exit CODE` asks for).
//!
//! Only one process may use a data directory at a time: the shell holds an exclusive lock on
//! `DIR/LOCK` (through [`regionkv_fs::Fs::lock`]) for as long as it runs.

mod commands;
mod input;
mod parse;
mod session;

use std::fs::File;
use std::io::{self, BufRead, BufReader, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use regionkv_fs::{FileLock, Fs, RealFs};
use rustyline::error::ReadlineError;

use self::input::Chunker;
use self::session::{Flow, Session};

/// The name of the lock file inside the data directory.
const LOCK_FILE: &str = "LOCK";

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
    let _lock = match lock_data_dir(&args.data) {
        Ok(lock) => lock,
        Err(message) => {
            let _ = writeln!(io::stderr(), "ERROR: {message}");
            return ExitCode::FAILURE;
        }
    };
    let result = match &args.script {
        Some(path) => match File::open(path) {
            Ok(file) => run_script(BufReader::new(file), &path.display().to_string()),
            Err(source) => Err(ShellError::Input {
                what: format!("script {}", path.display()),
                source,
            }),
        },
        None if io::stdin().is_terminal() => run_interactive(&args.data),
        None => run_script(io::stdin().lock(), "standard input"),
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

/// Creates the data directory if needed and takes its lock; the error is the message to print.
fn lock_data_dir(dir: &Path) -> Result<Box<dyn FileLock>, String> {
    let fs = RealFs::new();
    fs.create_dir_all(dir).map_err(|e| {
        format!(
            "cannot create data directory {}: {}",
            dir.display(),
            error_chain(&e)
        )
    })?;
    fs.lock(&dir.join(LOCK_FILE)).map_err(|e| match e {
        regionkv_fs::Error::Locked { .. } => format!(
            "data directory {} is in use by another process",
            dir.display()
        ),
        e => format!(
            "cannot lock data directory {}: {}",
            dir.display(),
            error_chain(&e)
        ),
    })
}

/// An error and its sources, joined by `": "`.
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}

/// The exit code once the session ends with `flow`.
fn exit_code(flow: Flow, failures: u64, script: bool) -> ExitCode {
    match flow {
        Flow::Exit(Some(code)) => ExitCode::from(code),
        _ if script && failures > 0 => ExitCode::FAILURE,
        _ => ExitCode::SUCCESS,
    }
}

/// Runs every statement read from `input`, printing only their output.
fn run_script(input: impl BufRead, what: &str) -> Result<ExitCode, ShellError> {
    let mut session = Session::new(io::stdout());
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
                None => return Ok(exit_code(Flow::Continue, session.failures(), true)),
            },
        };
        if let Some((text, first_line)) = chunk {
            let flow = session.run_chunk(&text, first_line)?;
            if flow != Flow::Continue {
                return Ok(exit_code(flow, session.failures(), true));
            }
        }
    }
}

/// The interactive shell: a line editor with history, prompts and multi-line statements.
fn run_interactive(data: &Path) -> Result<ExitCode, ShellError> {
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

    let mut session = Session::new(io::stdout());
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
    Ok(exit_code(flow, session.failures(), false))
}
