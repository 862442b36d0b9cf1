//! The interactive shell at a real terminal: these tests open a pseudo-terminal, run the
//! built `regionkv shell` on it as a user's terminal would, type into it and read what it
//! prints. They check that Ctrl-C stops a running statement (a Ruby loop, a long `count` or
//! `scan`) and returns to a working prompt, that Ctrl-C at the prompt only drops the line,
//! that Tab completes commands, table names and option keys, and that the history file is
//! written as statements are entered.
//!
//! Nothing here depends on timing: every step waits (up to [`TIMEOUT`]) for the output it
//! expects. The terminal is read only while a test waits for output, so a shell printing a
//! long `count` or `scan` is held back by the full terminal once the test stops reading: when
//! the test presses Ctrl-C after the first rows, the command cannot have finished. A
//! pseudo-terminal that cannot be opened fails the tests.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{Read, Write};
use std::path::Path;
use std::process::Command;
use std::sync::mpsc::{Receiver, RecvTimeoutError, sync_channel};
use std::time::{Duration, Instant};

use portable_pty::{Child, CommandBuilder, MasterPty, PtySize, native_pty_system};

/// How long a step may wait for its output (generous: CI machines are slow and shared).
const TIMEOUT: Duration = Duration::from_secs(60);

/// The Ctrl-C key.
const CTRL_C: &str = "\x03";

/// The Tab key.
const TAB: &str = "\t";

/// `regionkv shell` on a pseudo-terminal.
struct Term {
    child: Box<dyn Child + Send + Sync>,
    writer: Box<dyn Write + Send>,
    /// Chunks of output from the reader thread; `None` at the end of the output.
    chunks: Receiver<Option<Vec<u8>>>,
    /// Output received and not yet consumed by [`Term::expect`].
    pending: Vec<u8>,
    /// How much of `pending` has been searched already.
    searched: usize,
    /// The output has ended.
    eof: bool,
    /// The number of lines entered, for the prompt.
    lines: u32,
    /// Kept open for the life of the session.
    _master: Box<dyn MasterPty + Send>,
}

impl Term {
    /// Starts the shell on a data directory.
    fn spawn(data: &Path) -> Term {
        let pty = native_pty_system()
            .openpty(PtySize {
                rows: 50,
                cols: 200,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("cannot open a pseudo-terminal: these tests need one");
        let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_regionkv"));
        cmd.args(["shell", "--data"]);
        cmd.arg(data);
        cmd.cwd(data.parent().unwrap());
        // rustyline edits lines on any terminal but a dumb one.
        cmd.env("TERM", "xterm");
        cmd.env("RUST_BACKTRACE", "1");
        let child = pty
            .slave
            .spawn_command(cmd)
            .expect("cannot start regionkv shell on the pseudo-terminal");
        // Only the shell holds the terminal's slave side: its exit ends the output.
        drop(pty.slave);
        let mut reader = pty.master.try_clone_reader().unwrap();
        let writer = pty.master.take_writer().unwrap();
        // A one-chunk channel: the thread reads only as fast as the test consumes, so a
        // shell printing more than the terminal holds waits for the test.
        let (send, chunks) = sync_channel(1);
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            loop {
                match reader.read(&mut buf) {
                    Ok(n) if n > 0 => {
                        if send.send(Some(buf[..n].to_vec())).is_err() {
                            return;
                        }
                    }
                    // The end of the output (EIO from a terminal whose slave is closed).
                    _ => {
                        let _ = send.send(None);
                        return;
                    }
                }
            }
        });
        let mut term = Term {
            child,
            writer,
            chunks,
            pending: Vec::new(),
            searched: 0,
            eof: false,
            lines: 0,
            _master: pty.master,
        };
        term.expect("Use \"exit\" to quit this interactive shell.");
        term.expect_prompt();
        term
    }

    /// Waits for `needle` and returns the output up to and including it.
    fn expect(&mut self, needle: &str) -> String {
        let needle = needle.as_bytes();
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let from = self.searched.saturating_sub(needle.len());
            if let Some(i) = self.pending[from..]
                .windows(needle.len())
                .position(|w| w == needle)
            {
                let end = from + i + needle.len();
                let text: Vec<u8> = self.pending.drain(..end).collect();
                self.searched = 0;
                return String::from_utf8_lossy(&text).into_owned();
            }
            self.searched = self.pending.len();
            let now = Instant::now();
            let chunk = if self.eof || now >= deadline {
                Err(RecvTimeoutError::Timeout)
            } else {
                self.chunks.recv_timeout(deadline - now)
            };
            match chunk {
                Ok(Some(chunk)) => self.pending.extend_from_slice(&chunk),
                Ok(None) | Err(RecvTimeoutError::Disconnected) => self.eof = true,
                Err(RecvTimeoutError::Timeout) => {
                    let tail = &self.pending[self.pending.len().saturating_sub(3000)..];
                    panic!(
                        "no {:?} in the shell's output {} (the last of it: {:?})",
                        String::from_utf8_lossy(needle),
                        if self.eof {
                            "before it ended"
                        } else {
                            "within the timeout"
                        },
                        String::from_utf8_lossy(tail)
                    );
                }
            }
        }
    }

    /// The prompt of the next statement.
    fn prompt(&self) -> String {
        format!("regionkv:{:03}:0> ", self.lines + 1)
    }

    /// Waits for the prompt of the next statement.
    fn expect_prompt(&mut self) -> String {
        let prompt = self.prompt();
        self.expect(&prompt)
    }

    /// Types `keys` without Enter.
    fn send(&mut self, keys: &str) {
        self.writer.write_all(keys.as_bytes()).unwrap();
        self.writer.flush().unwrap();
    }

    /// Types `line` and Enter.
    fn send_line(&mut self, line: &str) {
        self.send(&format!("{line}\r"));
        self.lines += 1;
    }

    /// Types `line` and Enter, waits for its output and the next prompt, and returns the
    /// output.
    fn run(&mut self, line: &str) -> String {
        self.send_line(line);
        self.expect_prompt()
    }

    /// Leaves the shell with `exit` and checks that it exits with code 0.
    fn exit(mut self) {
        self.send_line("exit");
        // The output ends when the shell does.
        let deadline = Instant::now() + TIMEOUT;
        while !self.eof {
            match self
                .chunks
                .recv_timeout(deadline.saturating_duration_since(Instant::now()))
            {
                Ok(Some(_)) => {}
                Ok(None) | Err(RecvTimeoutError::Disconnected) => self.eof = true,
                Err(RecvTimeoutError::Timeout) => panic!("the shell did not exit"),
            }
        }
        let status = self.child.wait().unwrap();
        assert!(status.success(), "the shell exited with {status:?}");
    }
}

impl Drop for Term {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// A new data directory `data` inside a temporary directory.
fn data_dir() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    (dir, data)
}

/// Runs `script` on `data` in script mode (to set up tables before a session).
fn run_script(data: &Path, script: &str) {
    let file = data.with_extension("rb");
    std::fs::write(&file, script).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_regionkv"))
        .args(["shell", "--no-timing", "--data"])
        .arg(data)
        .arg("-f")
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn ctrl_c_stops_a_ruby_loop_and_the_shell_goes_on() {
    let (_dir, data) = data_dir();
    let mut term = Term::spawn(&data);
    term.run("create 't', 'f'");

    // Every `put` prints its `Took` line: once one has, the loop is running.
    term.send_line("loop { put 't', 'r', 'f:q', 'v' }");
    term.expect("Took ");
    term.send(CTRL_C);
    term.expect("\r\nInterrupt\r\n");
    term.expect_prompt();
    let out = term.run("get 't', 'r'");
    assert!(out.contains(" f:q ") && out.contains("value=v"), "{out}");
    assert!(out.contains("1 row(s)"), "{out}");

    term.send_line("for i in 1..100000000 do put 't', \"r#{i}\", 'f:q', 'w' end");
    term.expect("Took ");
    term.send(CTRL_C);
    term.expect("\r\nInterrupt\r\n");
    term.expect_prompt();
    let out = term.run("get 't', 'r1'");
    assert!(out.contains("value=w"), "{out}");

    // `while` and `sleep` poll the flag too.
    // Ctrl-C typed before the shell has left the line editor would be a key there: wait
    // for output the statement prints.
    term.send_line("while true do puts 'ti' + 'ck'; sleep 1 end");
    term.expect("\r\ntick\r\n");
    term.send(CTRL_C);
    term.expect("\r\nInterrupt\r\n");
    term.expect_prompt();
    let out = term.run("exists 't'");
    assert!(out.contains("Table t does exist"), "{out}");
    term.exit();
}

#[test]
fn ctrl_c_at_the_prompt_drops_the_line_and_stays() {
    let (_dir, data) = data_dir();
    let mut term = Term::spawn(&data);

    // An empty prompt: the same prompt comes back.
    term.send(CTRL_C);
    term.expect_prompt();
    // A partly typed line.
    term.send("scan 'nothing");
    term.expect("scan 'nothing");
    term.send(CTRL_C);
    term.expect_prompt();
    // A statement left open on its first line: the second line's prompt shows it.
    term.send_line("create 't2', {NAME =>");
    term.expect(&format!("regionkv:{:03}:1* ", term.lines + 1));
    term.send(CTRL_C);
    term.expect_prompt();
    let out = term.run("exists 't2'");
    assert!(out.contains("Table t2 does not exist"), "{out}");
    let out = term.run("version");
    assert!(
        out.contains("following Apache HBase 2.x semantics"),
        "{out}"
    );
    term.exit();
}

#[test]
fn ctrl_c_stops_a_long_count_and_scan() {
    let (_dir, data) = data_dir();
    // Enough rows that their lines are many times what a terminal holds.
    run_script(
        &data,
        "create 'big', {NAME => 'f'}, {DURABILITY => 'SKIP_WAL'}\n\
         for i in 0...20000 do put 'big', format('r%06d', i), 'f:q', 'v' end\n",
    );
    let mut term = Term::spawn(&data);

    // `count` with a progress line per row.
    term.send_line("count 'big', INTERVAL => 1");
    term.expect("Current count: 1000, row: r000999");
    term.send(CTRL_C);
    let out = term.expect("\r\nInterrupt\r\n");
    assert!(out.contains("Took "), "{out}");
    assert!(!out.contains("row(s)"), "{out}");
    assert!(!out.contains("r019999"), "{out}");
    term.expect_prompt();
    let out = term.run("get 'big', 'r000007'");
    assert!(out.contains("value=v") && out.contains("1 row(s)"), "{out}");

    // `scan`: the rows so far, then `Took`, no footer.
    term.send_line("scan 'big'");
    term.expect(" r001000 ");
    term.send(CTRL_C);
    let out = term.expect("\r\nInterrupt\r\n");
    assert!(out.contains("Took "), "{out}");
    assert!(!out.contains("row(s)"), "{out}");
    assert!(!out.contains("r019999"), "{out}");
    term.expect_prompt();
    let out = term.run("count 'big'");
    assert!(out.contains("20000 row(s)"), "{out}");
    term.exit();
}

#[test]
fn tab_completes_and_history_is_written_as_you_go() {
    let (_dir, data) = data_dir();
    let history = data.join(".regionkv_history");
    let entries = || -> Vec<String> {
        let text = std::fs::read_to_string(&history).unwrap_or_default();
        // rustyline's file starts with a version line.
        text.lines()
            .filter(|l| !l.starts_with("#V"))
            .map(str::to_owned)
            .collect()
    };
    let mut term = Term::spawn(&data);
    term.run("create 'mytable', 'f'");
    assert_eq!(entries(), ["create 'mytable', 'f'"]);
    term.run("put 'mytable', 'r1', 'f:q', 'v1'");
    term.run("put 'mytable', 'r2', 'f:q', 'v2'");
    assert_eq!(entries().len(), 3);

    // A command name.
    term.send(&format!("lis{TAB}"));
    term.expect("list");
    let out = term.run("");
    assert!(out.contains("TABLE") && out.contains("mytable"), "{out}");
    assert_eq!(entries().last().map(String::as_str), Some("list"));

    // A table name in quotes: the string is closed too.
    term.send(&format!("scan 'my{TAB}"));
    term.expect("scan 'mytable'");
    let out = term.run("");
    assert!(
        out.contains("value=v1") && out.contains("2 row(s)"),
        "{out}"
    );
    assert_eq!(entries().last().map(String::as_str), Some("scan 'mytable'"));

    // An option key.
    term.send(&format!("scan 'mytable', {{LIM{TAB}"));
    term.expect("LIMIT");
    let out = term.run(" => 1}");
    assert!(
        out.contains("value=v1") && out.contains("1 row(s)"),
        "{out}"
    );
    assert!(!out.contains("value=v2"), "{out}");
    assert_eq!(
        entries().last().map(String::as_str),
        Some("scan 'mytable', {LIMIT => 1}")
    );

    // A table created in the session is offered at once.
    term.run("create 'mytable2', 'f'");
    term.send(&format!("exists 'mytable2{TAB}"));
    term.expect("exists 'mytable2'");
    let out = term.run("");
    assert!(out.contains("Table mytable2 does exist"), "{out}");
    assert_eq!(entries().len(), 8);
    term.exit();
}

/// `delete_all_snapshot` and `delete_table_snapshots` ask HBase's `(y/n)?` and read the
/// answer at the terminal: `n` keeps the snapshots, `y` deletes them.
#[test]
fn snapshot_deletes_ask_and_read_the_answer_at_the_terminal() {
    let (_dir, data) = data_dir();
    run_script(
        &data,
        "create 't', 'f'\nput 't', 'r', 'f:q', 'v'\nsnapshot 't', 's1'\nsnapshot 't', 's2'\nsnapshot 't', 'keep'\n",
    );
    let mut term = Term::spawn(&data);

    term.send_line("delete_all_snapshot 's.*'");
    term.expect("Delete the above 2 snapshots (y/n)?");
    term.send("n\r");
    let out = term.expect_prompt();
    assert!(!out.contains("successfully deleted"), "{out}");
    let out = term.run("list_snapshots");
    assert!(out.contains("3 row(s)"), "{out}");

    term.send_line("delete_all_snapshot 's.*'");
    term.expect("Delete the above 2 snapshots (y/n)?");
    term.send("y\r");
    let out = term.expect_prompt();
    assert!(out.contains("2 snapshots successfully deleted."), "{out}");

    term.send_line("delete_table_snapshots 't'");
    term.expect("Delete the above 1 snapshots (y/n)?");
    term.send("y\r");
    let out = term.expect_prompt();
    assert!(out.contains("Successfully deleted snapshot: keep"), "{out}");
    let out = term.run("list_snapshots");
    assert!(out.contains("0 row(s)"), "{out}");
    term.exit();
}

#[test]
fn disable_all_and_drop_all_ask_and_read_the_answer_at_the_terminal() {
    let (_dir, data) = data_dir();
    run_script(
        &data,
        "create 'pa', 'f'\ncreate 'pb', 'f'\ncreate 'q', 'f'\n",
    );
    let mut term = Term::spawn(&data);

    // HBase's shell lists the tables, asks, and reads the answer with `gets`.
    term.send_line("disable_all 'p.*'");
    term.expect("Disable the above 2 tables (y/n)?");
    term.send("y\r");
    let out = term.expect_prompt();
    assert!(out.contains("2 tables successfully disabled"), "{out}");
    let out = term.run("is_disabled 'pb'");
    assert!(out.contains("true"), "{out}");
    let out = term.run("is_disabled 'q'");
    assert!(out.contains("false"), "{out}");

    // Any answer without a `y` leaves the tables alone.
    term.send_line("drop_all 'p.*'");
    term.expect("Drop the above 2 tables (y/n)?");
    term.send("n\r");
    let out = term.expect_prompt();
    assert!(!out.contains("successfully"), "{out}");
    let out = term.run("exists 'pa'");
    assert!(out.contains("Table pa does exist"), "{out}");
    term.exit();
}
