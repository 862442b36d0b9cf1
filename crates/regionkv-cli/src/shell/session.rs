//! A shell session: runs parsed statements against the engine, writes their output as HBase
//! 2.4's shell does, and keeps the count of failures that decides a script's exit code.
//!
//! Per command, as `Shell::Commands::Command#command_safe` (shell/commands.rb) and the
//! method IRB calls (shell.rb `export_commands`) print it:
//!
//! - the command's own output;
//! - on failure, an empty line, `ERROR: message`, an empty line, `For usage try 'help
//!   "command"'` and an empty line (HBase's interactive error block; a script goes on with its
//!   next statement and exits non-zero at the end);
//! - `Took X.XXXX seconds`, also after a failure (HBase prints it from an `ensure` block),
//!   unless timings are turned off for diffable output;
//! - in an interactive session, `=> value` when the command returns one (IRB's echo of a
//!   non-nil result: `list`, `exists`, `count`, `create`, ...). Scripts run like HBase's
//!   `hbase shell script.rb`, which loads the file without echoing results.
//!
//! The shell's own `help`, `exit`, `quit` and regionkv's `clock`, syntax errors and unknown
//! names print no `Took`.

use std::io::{self, Write};
use std::time::Instant;

use std::collections::HashSet;

use super::args::CmdError;
use super::ast::{Expr, Node};
use super::commands::{self, Support};
use super::engine::{Engine, Out, Ret};
use super::format::Formatter;
use super::grammar::parse_program;
use super::interp::{Interp, Obj, Unwind, inspect};
use super::parse::Value;

/// What the driver does after a chunk of input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// Read more input.
    Continue,
    /// Leave the shell: `exit` or `quit`, with the code it asked for, if any.
    Exit(Option<u8>),
}

/// How a session prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settings {
    /// Echo command results (`=> ...`), as IRB does at the prompt.
    pub echo: bool,
    /// Print `Took X.XXXX seconds` after each command.
    pub timing: bool,
    /// The terminal width the formatter pads to (0: unpadded).
    pub width: usize,
}

/// Runs statements and writes their output to `out`.
pub struct Session<W: Write> {
    out: W,
    failures: u64,
    engine: Engine,
    settings: Settings,
    /// The Ruby interpreter's state: variables and `rand`'s generator.
    pub(super) interp: Interp,
}

/// How one command ended.
enum Outcome {
    Ok,
    Failed,
}

impl<W: Write> Session<W> {
    /// A session on `engine` writing to `out`.
    pub fn new(out: W, engine: Engine, settings: Settings) -> Self {
        Session {
            out,
            failures: 0,
            engine,
            settings,
            interp: Interp::default(),
        }
    }

    /// How many statements have failed so far (syntax errors included).
    pub fn failures(&self) -> u64 {
        self.failures
    }

    /// The output stream.
    pub fn out(&mut self) -> &mut W {
        &mut self.out
    }

    /// The engine.
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// Sets the width the formatter pads to (the terminal's, before each statement).
    pub fn set_width(&mut self, width: usize) {
        self.settings.width = width;
    }

    /// The names of the session's variables (IRB keeps locals between statements).
    pub fn locals(&self) -> HashSet<String> {
        self.interp.vars.keys().cloned().collect()
    }

    /// Parses and runs one complete chunk of input whose first line is line `first_line`.
    /// A syntax error anywhere in the chunk runs none of it; a Ruby exception ends its
    /// top-level statement and the session goes on with the next. Fails only if writing the
    /// output fails.
    pub fn run_chunk(&mut self, src: impl Into<String>, first_line: u32) -> io::Result<Flow> {
        let src: String = src.into();
        let parsed = parse_program(&src, first_line, &self.locals());
        // The text may be a 60 MB value; the tree holds what is needed of it.
        drop(src);
        let program = match parsed {
            Ok(program) => program,
            Err(e) => {
                self.failures += 1;
                writeln!(self.out, "ERROR: {e}")?;
                self.out.flush()?;
                return Ok(Flow::Continue);
            }
        };
        super::interrupt::clear();
        for statement in &program {
            let result = self.eval(statement);
            // Ctrl-C drops the rest of the line too (`a; b`), as IRB does.
            let interrupted = matches!(result, Err(Unwind::Interrupt));
            let flow = self.finish_statement(statement, result)?;
            if interrupted {
                self.out.flush()?;
                return Ok(Flow::Continue);
            }
            self.out.flush()?;
            if flow != Flow::Continue {
                return Ok(flow);
            }
        }
        Ok(Flow::Continue)
    }

    /// Prints what a top-level statement ended with: IRB's `=> value` echo, or the error.
    fn finish_statement(
        &mut self,
        statement: &Node,
        result: Result<Obj, Unwind>,
    ) -> io::Result<Flow> {
        match result {
            Ok(value) => {
                if self.settings.echo && !matches!(value, Obj::Nil) {
                    writeln!(self.out, "=> {}", inspect(&value))?;
                }
            }
            Err(Unwind::Io(e)) => return Err(e),
            Err(Unwind::Exit(code)) => return Ok(Flow::Exit(code)),
            Err(Unwind::Interrupt) => {
                writeln!(self.out)?;
                writeln!(self.out, "Interrupt")?;
            }
            Err(Unwind::Break(_) | Unwind::Next(_)) => {
                self.failures += 1;
                writeln!(
                    self.out,
                    "ERROR: SyntaxError: Invalid break or next outside a loop or block ({})",
                    statement.pos
                )?;
            }
            Err(Unwind::Error(e)) => {
                self.failures += 1;
                // A statement that is just an unknown name reads as HBase shell users know it.
                let is_statement = matches!(&statement.expr, Expr::Call(call) if call.recv.is_none() && Some(&call.name) == e.unknown.as_ref())
                    && e.pos == Some(statement.pos);
                if is_statement && let Some(name) = &e.unknown {
                    writeln!(self.out, "ERROR: Unknown command '{name}'. Try 'help'.")?;
                } else {
                    writeln!(self.out, "ERROR: {}", printable(&e.to_string()))?;
                }
            }
        }
        Ok(Flow::Continue)
    }

    /// Runs the shell command `name` (known to [`commands::lookup`]) with `args`, printing
    /// its output, its error block and its `Took` line as HBase's `command_safe` does.
    pub(super) fn run_shell_command(&mut self, name: &str, args: &[Value]) -> Result<Ret, Unwind> {
        let Some((_, support)) = commands::lookup(name) else {
            return Ok(Ret::Nil);
        };
        let canonical = commands::canonical(name);
        let start = Instant::now();
        let result = match support {
            Support::Available => self.run_available(canonical, args),
            Support::NotYet => Err(CmdError::Failed(format!(
                "command '{name}' is not available yet in this build of regionkv"
            ))),
            Support::ClusterOnly => Err(CmdError::Failed(format!(
                "command '{name}' administers an HBase cluster; regionkv, an embedded engine, does not provide it"
            ))),
        };
        let elapsed = start.elapsed().as_secs_f64();
        let ret = match result {
            Ok(ret) => ret,
            Err(CmdError::Io(e)) => return Err(Unwind::Io(e)),
            Err(CmdError::Failed(message)) => {
                self.failures += 1;
                writeln!(self.out)?;
                writeln!(self.out, "ERROR: {}", printable(&message))?;
                writeln!(self.out)?;
                writeln!(self.out, "For usage try 'help \"{canonical}\"'")?;
                writeln!(self.out)?;
                Ret::Nil
            }
        };
        if self.settings.timing {
            let fmt = Formatter::new(self.settings.width);
            fmt.output_str(&mut self.out, &format!("Took {elapsed:.4} seconds"))?;
            writeln!(self.out)?;
        }
        if super::interrupt::requested() {
            return Err(Unwind::Interrupt);
        }
        Ok(ret)
    }

    /// Runs a command whose [`Support`] is [`Support::Available`].
    fn run_available(&mut self, name: &str, args: &[Value]) -> Result<Ret, CmdError> {
        let mut out = Out {
            w: &mut self.out,
            fmt: Formatter::new(self.settings.width),
        };
        match name {
            "version" => {
                super::args::arity(args, 0, Some(0))?;
                out.line(&commands::version_line())?;
                Ok(Ret::Nil)
            }
            _ => self.engine.run(name, args, &mut out),
        }
    }

    /// `help`, `help 'command'`, `help 'group'`.
    pub(super) fn help_command(&mut self, args: &[Value]) -> io::Result<()> {
        let outcome = match args {
            [] => {
                commands::write_help(&mut self.out)?;
                Outcome::Ok
            }
            [Value::Str(bytes)] => {
                let name = String::from_utf8_lossy(bytes);
                if commands::write_help_for(&mut self.out, &name)? {
                    Outcome::Ok
                } else {
                    self.error(format_args!(
                        "Invalid command or command group name: {name}"
                    ))?
                }
            }
            [_] => self.error(format_args!(
                "help takes a command or group name as a string, e.g. help 'dml'"
            ))?,
            args => self.error(format_args!(
                "wrong number of arguments (given {}, expected 0..1)",
                args.len()
            ))?,
        };
        self.record(outcome);
        Ok(())
    }

    /// regionkv's `clock MILLIS` (freeze the engine clock) and `clock` (follow the system
    /// clock again).
    pub(super) fn clock_command(&mut self, args: &[Value]) -> io::Result<()> {
        let clock = self.engine.clock().clone();
        let outcome = match args {
            [] => {
                clock.unfreeze();
                writeln!(self.out, "Clock follows the system clock")?;
                Outcome::Ok
            }
            [Value::Int(millis)] if *millis >= 0 => {
                clock.freeze(*millis);
                writeln!(self.out, "Clock frozen at {millis}")?;
                Outcome::Ok
            }
            [_] => self.error(format_args!(
                "clock takes a time in milliseconds since the epoch (0 or more), or nothing to follow the system clock"
            ))?,
            args => self.error(format_args!(
                "wrong number of arguments (given {}, expected 0..1)",
                args.len()
            ))?,
        };
        self.record(outcome);
        Ok(())
    }

    /// regionkv's `refresh`: a read-only shell reads the directory again (the writer's
    /// flushed files and WAL as of now); a shell holding the directory has nothing to catch
    /// up with.
    pub(super) fn refresh_command(&mut self, args: &[Value]) -> io::Result<()> {
        let outcome = match args {
            [] if !self.engine.is_read_only() => {
                writeln!(
                    self.out,
                    "Nothing to refresh: this shell holds the data directory"
                )?;
                Outcome::Ok
            }
            [] => match self.engine.refresh() {
                Ok(()) => {
                    writeln!(self.out, "Refreshed: the data directory as of now")?;
                    Outcome::Ok
                }
                Err(message) => self.error(format_args!("{message}"))?,
            },
            args => self.error(format_args!(
                "wrong number of arguments (given {}, expected 0)",
                args.len()
            ))?,
        };
        self.record(outcome);
        Ok(())
    }

    /// The code of `exit`, `exit CODE`, `exit true` (0) or `exit false` (1), as Ruby's
    /// `Kernel#exit`: `Some(code)` to leave; `None` when it is malformed (the error is
    /// printed and the shell stays).
    pub(super) fn exit_code(&mut self, args: &[Value]) -> io::Result<Option<Option<u8>>> {
        let message = match args {
            [] => return Ok(Some(None)),
            [Value::Bool(true)] => return Ok(Some(Some(0))),
            [Value::Bool(false)] => return Ok(Some(Some(1))),
            [Value::Int(code)] => match u8::try_from(*code) {
                Ok(code) => return Ok(Some(Some(code))),
                Err(_) => format!("exit code {code} is out of range (0..=255)"),
            },
            [_] => "exit takes an integer exit code, true or false".to_string(),
            args => format!(
                "wrong number of arguments (given {}, expected 0..1)",
                args.len()
            ),
        };
        let outcome = self.error(format_args!("{message}"))?;
        self.record(outcome);
        Ok(None)
    }

    fn error(&mut self, message: std::fmt::Arguments<'_>) -> io::Result<Outcome> {
        writeln!(self.out, "ERROR: {message}")?;
        Ok(Outcome::Failed)
    }

    fn record(&mut self, outcome: Outcome) {
        if let Outcome::Failed = outcome {
            self.failures += 1;
        }
    }
}

/// `message` with control characters (a binary name quoted in an error) escaped as `\xNN`,
/// so that an error line never carries raw control bytes to a terminal.
fn printable(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    for c in message.chars() {
        if c.is_control() && c != '\n' {
            for b in c.to_string().bytes() {
                out.push_str(&format!("\\x{b:02X}"));
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// A session writing to a buffer, on a fresh data directory (kept alive by the returned
/// guard), for the unit tests of the session and the interpreter.
#[cfg(test)]
#[allow(clippy::unwrap_used)]
pub(super) fn test_session(settings: Settings) -> (tempfile::TempDir, Session<Vec<u8>>) {
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::open(
        dir.path(),
        super::format::TimestampFormat::Epoch,
        regionkv::fs::RealFs::new(),
    )
    .unwrap();
    (dir, Session::new(Vec::new(), engine, settings))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// Runs `src` as one chunk on a fresh data directory; returns the output, the flow and
    /// the failure count.
    fn run_with(src: &str, settings: Settings) -> (String, Flow, u64) {
        let (_dir, mut session) = test_session(settings);
        let flow = session.run_chunk(src, 1).unwrap();
        let failures = session.failures();
        (String::from_utf8(session.out).unwrap(), flow, failures)
    }

    fn run(src: &str) -> (String, Flow, u64) {
        run_with(
            src,
            Settings {
                echo: false,
                timing: false,
                width: 0,
            },
        )
    }

    #[test]
    fn version_prints_the_version_line_and_took() {
        let settings = Settings {
            echo: false,
            timing: true,
            width: 0,
        };
        let (out, flow, failures) = run_with("version", settings);
        let (line, took) = out.split_once('\n').unwrap();
        assert_eq!(line, commands::version_line());
        assert!(
            took.starts_with("Took 0.") && took.ends_with(" seconds\n"),
            "{took}"
        );
        assert_eq!((flow, failures), (Flow::Continue, 0));
        let (out, _, failures) = run("version 1");
        assert_eq!(
            out,
            "\nERROR: wrong number of arguments (given 1, expected 0)\n\n\
             For usage try 'help \"version\"'\n\n"
        );
        assert_eq!(failures, 1);
    }

    #[test]
    fn cluster_and_unknown_commands_fail_differently() {
        let (out, _, failures) = run("grant 'u', 'RW'; frob 1");
        assert_eq!(
            out,
            "\nERROR: command 'grant' administers an HBase cluster; regionkv, an embedded \
             engine, does not provide it\n\nFor usage try 'help \"grant\"'\n\n\
             ERROR: Unknown command 'frob'. Try 'help'.\n"
        );
        assert_eq!(failures, 2);
    }

    #[test]
    fn results_are_echoed_only_when_asked() {
        let script = "create 't1', 'f'; exists 't1'; list";
        let (out, _, _) = run(script);
        assert_eq!(
            out,
            "Created table t1\nTable t1 does exist\nTABLE\nt1\n1 row(s)\n"
        );
        let settings = Settings {
            echo: true,
            timing: false,
            width: 0,
        };
        let (out, _, _) = run_with(script, settings);
        assert_eq!(
            out,
            "Created table t1\n=> Hbase::Table - t1\nTable t1 does exist\n=> true\n\
             TABLE\nt1\n1 row(s)\n=> [\"t1\"]\n"
        );
    }

    #[test]
    fn clock_freezes_and_unfreezes() {
        let (out, _, failures) = run(
            "clock 1000; create 't', 'f'; put 't', 'r', 'f:q', 'v'; get 't', 'r'; clock; clock -1; clock 'x'",
        );
        assert_eq!(
            out,
            "Clock frozen at 1000\nCreated table t\nCOLUMN  CELL\n f:q timestamp=1000, value=v\n\
             1 row(s)\nClock follows the system clock\n\
             ERROR: clock takes a time in milliseconds since the epoch (0 or more), or nothing to follow the system clock\n\
             ERROR: clock takes a time in milliseconds since the epoch (0 or more), or nothing to follow the system clock\n"
        );
        assert_eq!(failures, 2);
    }

    #[test]
    fn error_lines_escape_control_characters() {
        assert_eq!(
            printable("Unknown table a\u{0}b\tc!"),
            "Unknown table a\\x00b\\x09c!"
        );
        assert_eq!(printable("é\u{85}"), "é\\xC2\\x85");
        let (out, _, _) = run("drop_namespace \"n\\x01\"");
        assert!(out.contains("ERROR: Unknown namespace n\\x01!"), "{out}");
    }

    #[test]
    fn a_syntax_error_runs_nothing_of_its_chunk() {
        let (out, flow, failures) = run("version; put 't1', 'r1");
        assert_eq!(
            out,
            "ERROR: syntax error, unterminated string meets end of file (line 1, column 20)\n"
        );
        assert_eq!((flow, failures), (Flow::Continue, 1));
    }

    #[test]
    fn exit_stops_the_chunk_and_carries_its_code() {
        let (out, flow, _) = run("exit; version");
        assert_eq!((out.as_str(), flow), ("", Flow::Exit(None)));
        assert_eq!(run("quit 3").1, Flow::Exit(Some(3)));
        assert_eq!(run("exit true").1, Flow::Exit(Some(0)));
        assert_eq!(run("exit(false)").1, Flow::Exit(Some(1)));
        let (out, flow, failures) = run("exit 256");
        assert_eq!(out, "ERROR: exit code 256 is out of range (0..=255)\n");
        assert_eq!((flow, failures), (Flow::Continue, 1));
        assert_eq!(run("exit 'x'").2, 1);
    }

    #[test]
    fn help_prints_no_took() {
        let settings = Settings {
            echo: true,
            timing: true,
            width: 0,
        };
        let (out, _, failures) = run_with("help", settings);
        assert!(out.contains("COMMAND GROUPS:"), "{out}");
        assert!(!out.contains("Took"), "{out}");
        assert_eq!(failures, 0);
        let (out, _, failures) = run("help 'dml'");
        assert!(out.starts_with("Group dml: "), "{out}");
        assert!(out.contains("  put "), "{out}");
        assert_eq!(failures, 0);
        let (out, _, failures) = run("help \"nope\"");
        assert_eq!(out, "ERROR: Invalid command or command group name: nope\n");
        assert_eq!(failures, 1);
        assert_eq!(run("help 1").2, 1);
        assert_eq!(run("help 'a', 'b'").2, 1);
    }
}
