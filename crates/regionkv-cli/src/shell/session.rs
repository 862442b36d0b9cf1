//! A shell session: runs parsed statements against the command table, writes their output,
//! and keeps the count of failures that decides a script's exit code.
//!
//! Output follows HBase 2.x's shell: every command of HBase's command groups ends with
//! `Took X.XXXX seconds`, also when it fails (HBase prints it from an `ensure` block), while the
//! shell's own `help`, `exit` and `quit`, syntax errors and unknown names print none. Errors
//! are `ERROR: ...` lines on the same stream as the output, as in HBase, so that a transcript
//! keeps them in order.

use std::io::{self, Write};
use std::time::Instant;

use super::commands::{self, Support};
use super::parse::{Command, Value, parse_program};

/// What the driver does after a chunk of input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// Read more input.
    Continue,
    /// Leave the shell: `exit` or `quit`, with the code it asked for, if any.
    Exit(Option<u8>),
}

/// Runs statements and writes their output to `out`.
pub struct Session<W: Write> {
    out: W,
    failures: u64,
}

/// How one command ended.
enum Outcome {
    Ok,
    Failed,
}

impl<W: Write> Session<W> {
    /// A session writing to `out`.
    pub fn new(out: W) -> Self {
        Session { out, failures: 0 }
    }

    /// How many statements have failed so far (syntax errors included).
    pub fn failures(&self) -> u64 {
        self.failures
    }

    /// The output stream.
    pub fn out(&mut self) -> &mut W {
        &mut self.out
    }

    /// Parses and runs one complete chunk of input whose first line is line `first_line`.
    /// A syntax error anywhere in the chunk runs none of it. Fails only if writing the output
    /// fails.
    pub fn run_chunk(&mut self, src: &str, first_line: u32) -> io::Result<Flow> {
        let commands = match parse_program(src, first_line) {
            Ok(commands) => commands,
            Err(e) => {
                self.failures += 1;
                writeln!(self.out, "ERROR: {e}")?;
                self.out.flush()?;
                return Ok(Flow::Continue);
            }
        };
        for command in &commands {
            let flow = self.run_command(command)?;
            self.out.flush()?;
            if flow != Flow::Continue {
                return Ok(flow);
            }
        }
        Ok(Flow::Continue)
    }

    fn run_command(&mut self, command: &Command) -> io::Result<Flow> {
        let name = command.name.as_str();
        match name {
            "exit" | "quit" => return self.exit(command),
            "help" => {
                let outcome = self.help(command)?;
                self.record(outcome);
                return Ok(Flow::Continue);
            }
            _ => {}
        }
        let Some((_, support)) = commands::lookup(name) else {
            self.failures += 1;
            writeln!(self.out, "ERROR: Unknown command '{name}'. Try 'help'.")?;
            return Ok(Flow::Continue);
        };
        let start = Instant::now();
        let outcome = match support {
            Support::Available => self.run_available(command)?,
            Support::NotYet => self.error(format_args!(
                "command '{name}' is not available yet in this build of regionkv"
            ))?,
            Support::ClusterOnly => self.error(format_args!(
                "command '{name}' administers an HBase cluster; regionkv, an embedded engine, does not provide it"
            ))?,
        };
        self.record(outcome);
        writeln!(
            self.out,
            "Took {:.4} seconds",
            start.elapsed().as_secs_f64()
        )?;
        Ok(Flow::Continue)
    }

    /// Runs a command whose [`Support`] is [`Support::Available`].
    fn run_available(&mut self, command: &Command) -> io::Result<Outcome> {
        match commands::canonical(&command.name) {
            "version" => {
                if !self.arity(command, 0, 0)? {
                    return Ok(Outcome::Failed);
                }
                writeln!(self.out, "{}", commands::version_line())?;
                Ok(Outcome::Ok)
            }
            other => self.error(format_args!(
                "command '{other}' is not available yet in this build of regionkv"
            )),
        }
    }

    fn help(&mut self, command: &Command) -> io::Result<Outcome> {
        match command.args.as_slice() {
            [] => {
                commands::write_help(&mut self.out)?;
                Ok(Outcome::Ok)
            }
            [Value::Str(bytes)] => {
                let name = String::from_utf8_lossy(bytes);
                if commands::write_help_for(&mut self.out, &name)? {
                    Ok(Outcome::Ok)
                } else {
                    self.error(format_args!(
                        "Invalid command or command group name: {name}"
                    ))
                }
            }
            [_] => self.error(format_args!(
                "help takes a command or group name as a string, e.g. help 'dml'"
            )),
            args => self.error(format_args!(
                "wrong number of arguments (given {}, expected 0..1)",
                args.len()
            )),
        }
    }

    /// `exit`, `exit CODE`, `exit true` (0) or `exit false` (1), as Ruby's `Kernel#exit`.
    fn exit(&mut self, command: &Command) -> io::Result<Flow> {
        let code = match command.args.as_slice() {
            [] => None,
            [Value::Bool(true)] => Some(0),
            [Value::Bool(false)] => Some(1),
            [Value::Int(code)] => match u8::try_from(*code) {
                Ok(code) => Some(code),
                Err(_) => {
                    return self
                        .exit_error(format_args!("exit code {code} is out of range (0..=255)"));
                }
            },
            [_] => {
                return self.exit_error(format_args!(
                    "exit takes an integer exit code, true or false"
                ));
            }
            args => {
                return self.exit_error(format_args!(
                    "wrong number of arguments (given {}, expected 0..1)",
                    args.len()
                ));
            }
        };
        Ok(Flow::Exit(code))
    }

    /// Reports a malformed `exit`, which then does not leave the shell.
    fn exit_error(&mut self, message: std::fmt::Arguments<'_>) -> io::Result<Flow> {
        let outcome = self.error(message)?;
        self.record(outcome);
        Ok(Flow::Continue)
    }

    /// Checks the number of arguments, reporting Ruby's `ArgumentError` wording.
    fn arity(&mut self, command: &Command, min: usize, max: usize) -> io::Result<bool> {
        let given = command.args.len();
        if (min..=max).contains(&given) {
            return Ok(true);
        }
        let expected = if min == max {
            min.to_string()
        } else {
            format!("{min}..{max}")
        };
        self.error(format_args!(
            "wrong number of arguments (given {given}, expected {expected})"
        ))?;
        Ok(false)
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

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// Runs `src` as one chunk; returns the output, the flow and the failure count.
    fn run(src: &str) -> (String, Flow, u64) {
        let mut session = Session::new(Vec::new());
        let flow = session.run_chunk(src, 1).unwrap();
        let failures = session.failures();
        (String::from_utf8(session.out).unwrap(), flow, failures)
    }

    /// Replaces the timing in `Took X.XXXX seconds` lines with `T`.
    fn untimed(text: &str) -> String {
        text.lines()
            .map(|line| match line.strip_prefix("Took ") {
                Some(rest) => {
                    let (secs, unit) = rest.split_once(' ').unwrap();
                    let (whole, frac) = secs.split_once('.').unwrap();
                    assert!(whole.chars().all(|c| c.is_ascii_digit()), "{line}");
                    assert_eq!(frac.len(), 4, "{line}");
                    assert_eq!(unit, "seconds");
                    "Took T seconds".to_string()
                }
                None => line.to_string(),
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn version_prints_both_versions_and_took() {
        let (out, flow, failures) = run("version");
        assert_eq!(
            untimed(&out),
            format!(
                "regionkv {}, following Apache HBase 2.x semantics\nTook T seconds",
                env!("CARGO_PKG_VERSION")
            )
        );
        assert_eq!((flow, failures), (Flow::Continue, 0));
        let (out, _, failures) = run("version 1");
        assert_eq!(
            untimed(&out),
            "ERROR: wrong number of arguments (given 1, expected 0)\nTook T seconds"
        );
        assert_eq!(failures, 1);
    }

    #[test]
    fn planned_cluster_and_unknown_commands_fail_differently() {
        let (out, _, failures) =
            run("put 't1', 'r1', 'f:q', 'v'; desc 't1'; grant 'u', 'RW'; frob 1");
        assert_eq!(
            untimed(&out),
            "ERROR: command 'put' is not available yet in this build of regionkv\n\
             Took T seconds\n\
             ERROR: command 'desc' is not available yet in this build of regionkv\n\
             Took T seconds\n\
             ERROR: command 'grant' administers an HBase cluster; regionkv, an embedded engine, does not provide it\n\
             Took T seconds\n\
             ERROR: Unknown command 'frob'. Try 'help'."
        );
        assert_eq!(failures, 4);
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
        let (out, _, failures) = run("help");
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
