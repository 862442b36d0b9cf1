//! `regionkv shell`: opens a data directory with the embedded engine, then reads HBase shell
//! statements interactively through a line editor, or runs them from a script, printing what
//! HBase 2.4's shell prints (see `session.rs` for the shape of each command's output).
//!
//! Modes: interactive when standard input is a terminal and no `-f SCRIPT` is given (prompt,
//! history in `DIR/.regionkv_history` appended to as each line is entered, tab completion of
//! commands, table names and option keys (`complete.rs`), Ctrl-C stopping the running
//! statement (`interrupt.rs`), multi-line statements, `=> value` echoes, output padded to the
//! terminal width as HBase pads it); otherwise script mode, which prints only the commands'
//! output, unpadded, and exits with code 1 if any statement failed (or with the code an `exit
//! CODE` asks for). Ctrl-C ends a script, as it ends `hbase shell script.rb`.
//!
//! Only one process may use a data directory at a time: [`regionkv::Db::open`] takes an
//! exclusive lock on `DIR/LOCK` and holds it until the shell exits. `--read-only` opens it
//! with [`regionkv::Db::open_read_only`] instead, beside the process holding it: no lock,
//! nothing written (not even the history file), every mutating command refused, and
//! regionkv's `refresh` command catching up with the writer (docs/read-only.md).
//!
//! Output switches for diffing against a real cluster: cell timestamps print as epoch
//! milliseconds by default, as HBase up to 2.3 and the reference guide print them (`--epoch-ts`
//! asks for that explicitly); `--iso-ts` prints HBase 2.4+'s local ISO date-time instead
//! (`LocalDateTime` in the local zone: `TZ`, else `/etc/localtime`); the last of the two
//! given wins. `--no-timing` leaves out the `Took X.XXXX seconds` lines.

mod args;
mod ast;
mod clock;
mod commands;
mod complete;
mod ddl;
mod dml;
mod engine;

pub(crate) use engine::error_chain;
mod format;
mod grammar;
mod input;
mod interp;
mod interrupt;
mod parse;
mod regions;
mod session;
mod snapshots;
mod sprintf;
mod tz;

use std::fs::File;
use std::io::{self, BufRead, BufReader, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use rustyline::error::ReadlineError;
use rustyline::history::FileHistory;

use self::complete::ShellHelper;
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
pub(crate) struct ShellArgs {
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

    /// Read storefiles with pread instead of memory-mapping them (safe when other programs
    /// may truncate files in the directory; one descriptor per open storefile)
    #[arg(long)]
    pub pread: bool,

    /// Read with pread and keep at most N storefile descriptors open, reopening the least
    /// recently used by path (RocksDB's max_open_files; implies --pread)
    #[arg(long = "max-open-files", value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_open_files: Option<u64>,

    /// How much of the mapped storefiles Gets may bring into the resident set, in bytes
    /// (default 32 MiB); past it they read with pread. 0 reads every compressed block with
    /// pread (no effect with --pread)
    #[arg(long = "mapped-read-budget", value_name = "BYTES")]
    pub mapped_read_budget: Option<u64>,

    /// Open the data directory (DIR, else --data) read-only, beside the process that holds
    /// it: nothing is written, mutating commands fail, `refresh` catches up with the writer
    #[arg(long = "read-only", value_name = "DIR", num_args = 0..=1, conflicts_with = "data")]
    pub read_only: Option<Option<PathBuf>>,
}

impl ShellArgs {
    /// The data directory: `--read-only DIR`, else `--data`.
    fn data_dir(&self) -> &Path {
        match &self.read_only {
            Some(Some(dir)) => dir,
            _ => &self.data,
        }
    }

    /// The file system the flags ask for.
    fn fs(&self) -> regionkv::fs::RealFs {
        use regionkv::fs::{ReadMode, RealFs};
        let fs = match self.max_open_files {
            Some(n) => RealFs::with_max_open_files(usize::try_from(n).unwrap_or(usize::MAX)),
            None if self.pread => RealFs::with_read_mode(ReadMode::Pread),
            None => RealFs::new(),
        };
        match self.mapped_read_budget {
            Some(bytes) => fs.with_map_budget(bytes),
            None => fs,
        }
    }
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
    /// A line longer than [`MAX_LINE_BYTES`].
    #[error("{what}: line {line} is longer than {limit} bytes")]
    LineTooLong {
        /// What was being read.
        what: String,
        /// The line number.
        line: u64,
        /// The limit.
        limit: usize,
    },
    /// Writing the output failed (a closed pipe, a full disk).
    #[error("cannot write output: {0}")]
    Output(#[from] io::Error),
    /// The line editor failed.
    #[error("line editor failed: {0}")]
    Editor(#[from] ReadlineError),
}

/// The stack of the thread the shell runs on. The interpreter walks syntax trees
/// recursively; the grammar bounds their depth, and this leaves room for the deepest legal
/// statement many times over, even in a debug build (about 8 KiB a level there).
const SHELL_STACK_BYTES: usize = 64 << 20;

/// Runs `regionkv shell` on a thread with a [`SHELL_STACK_BYTES`] stack.
pub(crate) fn run(args: &ShellArgs) -> ExitCode {
    std::thread::scope(|scope| {
        let shell = std::thread::Builder::new()
            .name("shell".into())
            .stack_size(SHELL_STACK_BYTES)
            .spawn_scoped(scope, || run_on_this_thread(args));
        match shell {
            Ok(handle) => handle.join().unwrap_or(ExitCode::FAILURE),
            Err(e) => {
                let _ = writeln!(io::stderr(), "ERROR: cannot start the shell thread: {e}");
                ExitCode::FAILURE
            }
        }
    })
}

fn run_on_this_thread(args: &ShellArgs) -> ExitCode {
    let timestamps = if args.iso_ts {
        TimestampFormat::Local(tz::TimeZone::local())
    } else {
        TimestampFormat::Epoch
    };
    let opened = if args.read_only.is_some() {
        Engine::open_read_only(args.data_dir(), timestamps, args.fs())
    } else {
        Engine::open(args.data_dir(), timestamps, args.fs())
    };
    let engine = match opened {
        Ok(engine) => engine,
        Err(message) => {
            let _ = writeln!(io::stderr(), "ERROR: {message}");
            return ExitCode::FAILURE;
        }
    };
    let interactive = args.script.is_none() && io::stdin().is_terminal();
    if interactive {
        // `disable_all`/`enable_all`/`drop_all` ask `(y/n)?` and read the answer with Ruby's
        // `gets`: one line of the terminal, while the line editor is not reading.
        engine.set_confirm(Some(Box::new(|| {
            let mut line = String::new();
            match io::stdin().read_line(&mut line) {
                Ok(0) | Err(_) => None,
                Ok(_) => Some(line.trim_end_matches(['\n', '\r']).to_string()),
            }
        })));
    }
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
        None if interactive => run_interactive(session, args.data_dir()),
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
    let mut lines = BoundedLines {
        input,
        number: 0,
        what,
    };
    loop {
        let chunk = match lines.next() {
            Some(Ok(line)) => chunker.push(line),
            Some(Err(e)) => return Err(e),
            None => match chunker.finish() {
                Some(chunk) => Some(chunk),
                None => {
                    let code = exit_code(Flow::Continue, session.failures(), true);
                    return Ok(finish(session, code));
                }
            },
        };
        if let Some((text, first_line)) = chunk {
            let flow = session.run_chunk(text, first_line)?;
            if flow != Flow::Continue {
                let code = exit_code(flow, session.failures(), true);
                return Ok(finish(session, code));
            }
        }
    }
}

/// Parses `src` as a shell script with the shell's grammar, then asks whether it is
/// complete, as the interactive shell does after every line it reads (no local variables
/// defined). The results are dropped: this exists for the fuzz targets
/// (`crates/regionkv-fuzzing`, `shell_parse`), whose rule is that whatever `src` holds, the
/// parser returns (a syntax error is fine) without panicking, hanging or allocating without
/// bound.
pub fn fuzz_parse(src: &str) {
    let locals = std::collections::HashSet::new();
    let _ = grammar::parse_program(src, 1, &locals);
    let _ = grammar::completeness(src, &locals);
}

/// The longest line a script or standard input may have: HBase's largest cell (10 MiB,
/// `hbase.client.keyvalue.maxsize`) written with `\xNN` escapes, and room to spare. A longer
/// line is an error, not an unbounded allocation.
pub(crate) const MAX_LINE_BYTES: usize = 64 << 20;

/// The lines of `input`, each read with at most [`MAX_LINE_BYTES`] bytes buffered.
struct BoundedLines<'a, R> {
    input: R,
    number: u64,
    what: &'a str,
}

impl<R: BufRead> Iterator for BoundedLines<'_, R> {
    type Item = Result<String, ShellError>;

    fn next(&mut self) -> Option<Self::Item> {
        let mut buf = Vec::new();
        let limit = MAX_LINE_BYTES as u64 + 1;
        self.number += 1;
        let input_error = |source| ShellError::Input {
            what: self.what.to_owned(),
            source,
        };
        match Read::take(&mut self.input, limit).read_until(b'\n', &mut buf) {
            Ok(0) => return None,
            Ok(_) => {}
            Err(e) => return Some(Err(input_error(e))),
        }
        if buf.last() == Some(&b'\n') {
            buf.pop();
            if buf.last() == Some(&b'\r') {
                buf.pop();
            }
        } else if buf.len() > MAX_LINE_BYTES {
            return Some(Err(ShellError::LineTooLong {
                what: self.what.to_owned(),
                line: self.number,
                limit: MAX_LINE_BYTES,
            }));
        }
        Some(String::from_utf8(buf).map_err(|_| {
            input_error(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("line {} is not valid UTF-8", self.number),
            ))
        }))
    }
}

/// The interactive line editor.
type LineEditor = rustyline::Editor<ShellHelper, FileHistory>;

/// The interactive shell: a line editor with history, prompts, multi-line statements and tab
/// completion; Ctrl-C stops the running statement (see `interrupt.rs`).
fn run_interactive<W: Write>(mut session: Session<W>, data: &Path) -> Result<ExitCode, ShellError> {
    let config = rustyline::Config::builder()
        .max_history_size(HISTORY_SIZE)?
        .history_ignore_dups(true)?
        .history_ignore_space(true)
        .auto_add_history(false)
        // Tab inserts the longest common prefix of the candidates, a second Tab lists them
        // (as IRB's and bash's readline do).
        .completion_type(rustyline::CompletionType::List)
        .build();
    let mut editor = LineEditor::with_config(config)?;
    editor.set_helper(Some(ShellHelper::default()));
    refresh_completion(&mut editor, &session);
    let mut history = History {
        path: data.join(HISTORY_FILE),
        warned: false,
        // A read-only shell writes nothing into the directory, its history included.
        keep: !session.engine().is_read_only(),
    };
    match editor.load_history(&history.path) {
        Ok(()) => {}
        Err(ReadlineError::Io(e)) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => {
            let _ = writeln!(
                io::stderr(),
                "WARNING: cannot read the shell history {}: {e}",
                history.path.display()
            );
        }
    }
    // From here on Ctrl-C raises a flag that stops the running statement, instead of ending
    // the process. (While a line is edited the terminal is raw and Ctrl-C is a key.)
    if let Err(e) = interrupt::install() {
        let _ = writeln!(
            io::stderr(),
            "WARNING: cannot catch Ctrl-C, which will end the shell: {e}"
        );
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
                // Only fails for the SQLite history backend, which is not used.
                if !line.trim().is_empty()
                    && editor.add_history_entry(line.as_str()).unwrap_or(false)
                {
                    // Saved as it is entered, so that a killed shell keeps it.
                    history.append(&mut editor);
                }
                if let Some((text, first_line)) = chunker.push(line.as_str()) {
                    // HBase pads its tables to the terminal's current width.
                    let width = editor
                        .dimensions()
                        .map_or(0, |(columns, _)| usize::from(columns));
                    session.set_width(width);
                    let flow = session.run_chunk(text, first_line);
                    refresh_completion(&mut editor, &session);
                    match flow {
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
                    Some((text, first_line)) => session.run_chunk(text, first_line),
                    None => Ok(Flow::Continue),
                };
                break flow.map_err(ShellError::Output);
            }
            Err(e) => break Err(ShellError::Editor(e)),
        }
    };
    history.append(&mut editor);
    let flow = match outcome? {
        // Ctrl-D at the end of a statement still leaves the shell.
        Flow::Continue => Flow::Exit(None),
        flow => flow,
    };
    let code = exit_code(flow, session.failures(), false);
    Ok(finish(session, code))
}

/// The history file, appended to after each entry.
struct History {
    path: PathBuf,
    /// A failure to write it has been reported (it is reported once).
    warned: bool,
    /// False in a read-only shell: the history is read, never written.
    keep: bool,
}

impl History {
    /// Appends the entries not yet in the file (rustyline rewrites the file when it would
    /// grow past [`HISTORY_SIZE`] lines).
    fn append(&mut self, editor: &mut LineEditor) {
        if !self.keep {
            return;
        }
        if let Err(e) = editor.append_history(&self.path)
            && !self.warned
        {
            self.warned = true;
            let _ = writeln!(
                io::stderr(),
                "WARNING: cannot save the shell history to {}: {e}",
                self.path.display()
            );
        }
    }
}

/// Gives the completer the current table names and variables (after each statement, which
/// may have created or dropped a table or set a variable).
fn refresh_completion<W: Write>(editor: &mut LineEditor, session: &Session<W>) {
    let tables = session
        .engine()
        .db
        .admin()
        .list_tables()
        .unwrap_or_default();
    if let Some(helper) = editor.helper_mut() {
        helper.refresh(tables, session.locals());
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn lines(input: &[u8]) -> Vec<Result<String, ShellError>> {
        BoundedLines {
            input: io::Cursor::new(input),
            number: 0,
            what: "test",
        }
        .collect()
    }

    #[test]
    fn lines_are_split_like_bufread_lines() {
        let got: Vec<String> = lines(b"a\r\nb\n\nc")
            .into_iter()
            .map(Result::unwrap)
            .collect();
        assert_eq!(got, ["a", "b", "", "c"]);
    }

    #[test]
    fn an_oversized_line_is_an_error_not_an_allocation() {
        let mut input = vec![b'x'; MAX_LINE_BYTES];
        input.extend_from_slice(b"\nshort\n");
        input.extend(std::iter::repeat_n(b'y', MAX_LINE_BYTES + 1));
        let got = lines(&input);
        assert_eq!(got[0].as_ref().unwrap().len(), MAX_LINE_BYTES);
        assert_eq!(got[1].as_ref().unwrap(), "short");
        match &got[2] {
            Err(ShellError::LineTooLong { line: 3, limit, .. }) => {
                assert_eq!(*limit, MAX_LINE_BYTES)
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            &lines(b"\xff\n")[0],
            Err(ShellError::Input { .. })
        ));
    }
}
