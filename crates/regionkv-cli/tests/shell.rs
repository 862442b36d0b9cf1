//! End-to-end tests of how `regionkv shell` is invoked: they run the built binary on a
//! temporary data directory, with a script given by `-f` or piped to standard input, and
//! check its output, its exit code and the data directory's lock. What each command prints
//! is checked against golden files by `golden.rs`.

#![allow(clippy::unwrap_used)]

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use regionkv_fs::{Fs, RealFs};

const VERSION_LINE: &str = concat!(
    "regionkv ",
    env!("CARGO_PKG_VERSION"),
    ", following Apache HBase 2.x semantics"
);

/// Runs the binary with `args` in `cwd`, feeding `stdin` through a pipe (so the shell is in
/// script mode).
fn run_in(cwd: &Path, args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_regionkv"))
        .args(args)
        .current_dir(cwd)
        .env("RUST_BACKTRACE", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut pipe = child.stdin.take().unwrap();
    let input = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        // The shell may stop reading early (exit); a broken pipe is fine then.
        let _ = pipe.write_all(&input);
    });
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        !stderr.contains("panicked") && !stderr.contains("backtrace"),
        "{stderr}"
    );
    output
}

/// Runs `regionkv shell --data DIR` with `script` on standard input.
fn shell_stdin(data: &Path, script: &str) -> Output {
    let data = data.to_str().unwrap();
    run_in(
        Path::new("."),
        &["shell", "--data", data],
        script.as_bytes(),
    )
}

/// Runs `regionkv shell --data DIR -f FILE` with `script` written to FILE.
fn shell_file(data: &Path, script: &str) -> Output {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("script.rb");
    std::fs::write(&file, script).unwrap();
    let (data, file) = (data.to_str().unwrap(), file.to_str().unwrap());
    run_in(Path::new("."), &["shell", "--data", data, "-f", file], b"")
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).unwrap()
}

/// The output with every `Took X.XXXX seconds` line checked and replaced by `Took T seconds`.
fn untimed(output: &Output) -> String {
    stdout(output)
        .lines()
        .map(|line| match line.strip_prefix("Took ") {
            Some(rest) => {
                let secs = rest.strip_suffix(" seconds").unwrap();
                let (whole, frac) = secs.split_once('.').unwrap();
                assert!(!whole.is_empty() && whole.chars().all(|c| c.is_ascii_digit()));
                assert!(frac.len() == 4 && frac.chars().all(|c| c.is_ascii_digit()));
                "Took T seconds\n".to_string()
            }
            None => format!("{line}\n"),
        })
        .collect()
}

#[test]
fn a_script_file_prints_only_command_output() {
    let data = tempfile::tempdir().unwrap();
    let out = shell_file(data.path(), "# a comment\nversion\n\nversion # again\n");
    assert_eq!(
        untimed(&out),
        format!("{VERSION_LINE}\nTook T seconds\n{VERSION_LINE}\nTook T seconds\n")
    );
    assert_eq!(stderr(&out), "");
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn a_script_on_standard_input_runs_the_same_way() {
    let data = tempfile::tempdir().unwrap();
    let out = shell_stdin(data.path(), "version; version\r\n");
    assert_eq!(
        untimed(&out),
        format!("{VERSION_LINE}\nTook T seconds\n{VERSION_LINE}\nTook T seconds\n")
    );
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn unavailable_and_unknown_commands_fail_but_the_script_goes_on() {
    let data = tempfile::tempdir().unwrap();
    let script = "compaction_state 't1'\n\
                  grant 'bob', 'RW'\n\
                  frobnicate 't1'\n\
                  version\n";
    let out = shell_file(data.path(), script);
    assert_eq!(
        untimed(&out),
        format!(
            "\nERROR: Unknown table t1!\n\n\
             For usage try 'help \"compaction_state\"'\n\n\
             Took T seconds\n\
             \nERROR: command 'grant' administers an HBase cluster; regionkv, an embedded engine, does not provide it\n\n\
             For usage try 'help \"grant\"'\n\n\
             Took T seconds\n\
             ERROR: Unknown command 'frobnicate'. Try 'help'.\n\
             {VERSION_LINE}\n\
             Took T seconds\n"
        )
    );
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn syntax_errors_name_the_script_line_and_later_statements_still_run() {
    let data = tempfile::tempdir().unwrap();
    let script = "version\nput 't1', ]\nget 't1', \"\\xZZ\"\nversion\nput 't1', 'r1\n";
    let out = shell_stdin(data.path(), script);
    assert_eq!(
        untimed(&out),
        format!(
            "{VERSION_LINE}\nTook T seconds\n\
             ERROR: syntax error, unexpected ']', expecting a value (line 2, column 11)\n\
             ERROR: syntax error, invalid hex escape (line 3, column 12)\n\
             {VERSION_LINE}\nTook T seconds\n\
             ERROR: syntax error, unterminated string meets end of file (line 5, column 11)\n"
        )
    );
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn statements_span_lines_while_brackets_or_strings_are_open() {
    let data = tempfile::tempdir().unwrap();
    let script = "create 't1',\n  {NAME => 'f1',\n   VERSIONS => 3}\nput 't1', 'two\nlines', \\\n  'f1:q', 'v'\nclock 5\nversion\n";
    let out = shell_file(data.path(), script);
    assert_eq!(
        untimed(&out),
        format!(
            "Created table t1\n\
             Took T seconds\n\
             Took T seconds\n\
             Clock frozen at 5\n\
             {VERSION_LINE}\nTook T seconds\n"
        )
    );
    let out = shell_file(data.path(), "scan 't1'\n");
    let text = untimed(&out);
    assert!(
        text.starts_with("ROW  COLUMN+CELL\n two\\x0Alines column=f1:q, timestamp="),
        "{text}"
    );
    assert!(
        text.ends_with(", value=v\n1 row(s)\nTook T seconds\n"),
        "{text}"
    );
}

#[test]
fn help_lists_the_command_groups_without_took() {
    let data = tempfile::tempdir().unwrap();
    let out = shell_stdin(data.path(), "help\nhelp 'dml'\n");
    let text = stdout(&out);
    assert!(text.contains("COMMAND GROUPS:\n"), "{text}");
    for group in [
        "general",
        "ddl",
        "namespace",
        "dml",
        "tools",
        "replication",
        "snapshots",
    ] {
        assert!(text.contains(&format!("\n  {group} ")), "{group}: {text}");
    }
    assert!(text.contains("Group dml: "), "{text}");
    assert!(!text.contains("Took"), "{text}");
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn exit_stops_the_script_with_its_code() {
    let data = tempfile::tempdir().unwrap();
    let out = shell_stdin(data.path(), "frob\nexit\nversion\n");
    assert_eq!(stdout(&out), "ERROR: Unknown command 'frob'. Try 'help'.\n");
    assert_eq!(out.status.code(), Some(1), "failures decide the code");
    let out = shell_stdin(data.path(), "frob\nexit 0\nversion\n");
    assert_eq!(out.status.code(), Some(0), "an explicit code wins");
    let out = shell_file(data.path(), "quit 7\n");
    assert_eq!(stdout(&out), "");
    assert_eq!(out.status.code(), Some(7));
}

#[test]
fn the_data_directory_is_created_and_defaults_to_regionkv_data() {
    let cwd = tempfile::tempdir().unwrap();
    let out = run_in(cwd.path(), &["shell"], b"version\n");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(cwd.path().join("regionkv-data").join("LOCK").is_file());

    let nested = cwd.path().join("a").join("b");
    let out = shell_stdin(&nested, "version\n");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(nested.join("LOCK").is_file());
}

#[test]
fn a_second_shell_on_a_locked_directory_fails_clearly() {
    let data = tempfile::tempdir().unwrap();
    // A first run makes the directory a regionkv database.
    assert_eq!(shell_stdin(data.path(), "version\n").status.code(), Some(0));
    let fs = RealFs::new();
    let lock = fs.lock(&data.path().join("LOCK")).unwrap();
    let out = shell_stdin(data.path(), "version\n");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stdout(&out), "");
    assert_eq!(
        stderr(&out),
        format!(
            "ERROR: data directory {} is in use by another process\n",
            data.path().display()
        )
    );
    drop(lock);
    // Once the holder is gone the directory is usable again, and the shell's own lock is
    // released when it exits.
    for _ in 0..2 {
        let out = shell_stdin(data.path(), "version\n");
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    }
}

#[test]
fn a_data_path_that_is_a_file_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("plain");
    std::fs::write(&file, b"x").unwrap();
    let out = shell_stdin(&file, "version\n");
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.starts_with(&format!(
            "ERROR: cannot open data directory {}: ",
            file.display()
        )),
        "{err}"
    );
}

#[test]
fn a_missing_script_or_unreadable_input_is_an_error_not_a_panic() {
    let data = tempfile::tempdir().unwrap();
    let d = data.path().to_str().unwrap();
    let out = run_in(
        Path::new("."),
        &["shell", "--data", d, "-f", "/no/such/script"],
        b"",
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).starts_with("ERROR: cannot read script /no/such/script: "),
        "{}",
        stderr(&out)
    );

    let out = shell_stdin(data.path(), "version\n");
    assert_eq!(out.status.code(), Some(0));
    let out = run_in(
        Path::new("."),
        &["shell", "--data", d],
        b"version\n\xff\xfe\n",
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(untimed(&out), format!("{VERSION_LINE}\nTook T seconds\n"));
    assert!(
        stderr(&out).starts_with("ERROR: cannot read standard input: "),
        "{}",
        stderr(&out)
    );
}

#[test]
fn garbage_input_never_panics() {
    let data = tempfile::tempdir().unwrap();
    let script = "}{\n\"\\u{110000}\"\n@@@\n=>\nput 1 2 3\n[\n]\n'''\n\"\\M-\"\n-\n\\\n";
    let out = shell_stdin(data.path(), script);
    assert_eq!(out.status.code(), Some(1));
    for line in stdout(&out).lines() {
        assert!(line.starts_with("ERROR: "), "{line}");
    }
}

#[test]
fn clap_provides_help_and_version() {
    let out = run_in(Path::new("."), &["--version"], b"");
    assert_eq!(
        stdout(&out),
        concat!("regionkv ", env!("CARGO_PKG_VERSION"), "\n")
    );
    assert_eq!(out.status.code(), Some(0));
    let out = run_in(Path::new("."), &["--help"], b"");
    let text = stdout(&out);
    assert!(
        text.contains("Usage: regionkv [OPTIONS] <COMMAND>"),
        "{text}"
    );
    assert!(text.contains("--log-level <LEVEL>"), "{text}");
    assert!(text.contains("shell"), "{text}");
    assert_eq!(out.status.code(), Some(0));
    let out = run_in(Path::new("."), &["shell", "--help"], b"");
    let text = stdout(&out);
    assert!(
        text.contains("--data <DIR>") && text.contains("-f, --file <SCRIPT>"),
        "{text}"
    );
    let out = run_in(Path::new("."), &["shell", "--bogus"], b"");
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn data_survives_between_shell_runs_and_timings_can_be_turned_off() {
    let data = tempfile::tempdir().unwrap();
    let d = data.path().to_str().unwrap();
    let first = "clock 1700000000000\ncreate 't1', 'f', SPLITS => ['m']\nput 't1', 'a', 'f:q', 'v1'\nput 't1', 'z', 'f:q', 'v2'\n";
    let out = run_in(Path::new("."), &["shell", "--data", d], first.as_bytes());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let second = "scan 't1'\nget_splits 't1'\n";
    let out = run_in(
        Path::new("."),
        &["shell", "--data", d, "--no-timing"],
        second.as_bytes(),
    );
    assert_eq!(
        stdout(&out),
        "ROW  COLUMN+CELL\n \
         a column=f:q, timestamp=1700000000000, value=v1\n \
         z column=f:q, timestamp=1700000000000, value=v2\n\
         2 row(s)\n\
         Total number of splits = 2\n\
         m\n"
    );
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn timestamps_are_epoch_millis_unless_iso_ts_asks_for_hbase_2_4s_local_date_time() {
    let script =
        "clock 1700000000005\ncreate 't1', 'f'\nput 't1', 'r', 'f:q', 'v'\nget 't1', 'r'\n";
    let run = |flags: &[&str]| {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("db");
        let mut args = vec!["shell", "--data", db.to_str().unwrap(), "--no-timing"];
        args.extend_from_slice(flags);
        let mut child = Command::new(env!("CARGO_BIN_EXE_regionkv"))
            .args(&args)
            .env("TZ", "UTC")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(script.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{flags:?}: {}", stderr(&out));
        stdout(&out)
            .lines()
            .find(|l| l.starts_with(" f:q "))
            .unwrap()
            .to_string()
    };
    let epoch = " f:q timestamp=1700000000005, value=v";
    let iso = " f:q timestamp=2023-11-14T22:13:20.005, value=v";
    assert_eq!(run(&[]), epoch);
    assert_eq!(run(&["--epoch-ts"]), epoch);
    assert_eq!(run(&["--iso-ts"]), iso);
    // The last of the two switches wins.
    assert_eq!(run(&["--iso-ts", "--epoch-ts"]), epoch);
    assert_eq!(run(&["--epoch-ts", "--iso-ts"]), iso);
    let help = run_in(Path::new("."), &["shell", "--help"], b"");
    let text = stdout(&help);
    assert!(
        text.contains("--iso-ts") && text.contains("--epoch-ts"),
        "{text}"
    );
}

#[test]
fn family_and_region_flushes_and_compactions_print_only_took() {
    let data = tempfile::tempdir().unwrap();
    let script = "clock 1700000000000\n\
                  create 't', 'f1', 'f2'\n\
                  put 't', 'r', 'f1:q', 'v'\n\
                  flush 't', 'f1'\n\
                  flush 'efc2e2b9c0b1b2c0da1f8bf4f2d47b0b'\n\
                  flush '478b63efc61d5221443ea0b49658677c', 'f2'\n\
                  compact 't,,1700000000000', 'f2'\n\
                  major_compact 't', 'f1'\n\
                  compact 't', nil, 'NORMAL'\n";
    let out = shell_file(&data.path().join("db"), script);
    let text = untimed(&out);
    // The made-up encoded name is no region: the one error of the script. (The table's
    // region is `t,,1700000000000.478b63efc61d5221443ea0b49658677c.`.)
    assert_eq!(
        text,
        "Clock frozen at 1700000000000\n\
         Created table t\n\
         Took T seconds\n\
         Took T seconds\n\
         Took T seconds\n\
         \n\
         ERROR: Unknown region efc2e2b9c0b1b2c0da1f8bf4f2d47b0b!\n\
         \n\
         For usage try 'help \"flush\"'\n\
         \n\
         Took T seconds\n\
         Took T seconds\n\
         Took T seconds\n\
         Took T seconds\n\
         Took T seconds\n"
    );
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn pread_a_bounded_descriptor_cache_and_mapped_read_budgets_give_the_same_answers_as_mmap() {
    // Six regions of two files each, read through 2 descriptors: every scan reopens files.
    // Compressed, so that Gets read through the mapped-read budget where there is one.
    let mut script = String::from(
        "create 't', {NAME => 'cf', COMPRESSION => 'LZ4'}, SPLITS => ['b', 'c', 'd', 'e', 'f']\n",
    );
    for round in 0..2 {
        for r in ["a", "b", "c", "d", "e", "f"] {
            script.push_str(&format!(
                "put 't', '{r}{round}', 'cf:q', 'v{round}', {round}\n"
            ));
        }
        script.push_str("flush 't'\n");
    }
    script.push_str("scan 't'\nget 't', 'c1'\nmajor_compact 't'\nscan 't'\ncount 't'\n");
    let mut outputs = Vec::new();
    for flags in [
        &[][..],
        &["--pread"],
        &["--max-open-files", "2"],
        &["--mapped-read-budget", "0"],
        &["--mapped-read-budget", "65536"],
    ] {
        let data = tempfile::tempdir().unwrap();
        let data = data.path().to_str().unwrap();
        let mut args = vec!["shell", "--no-timing", "--data", data];
        args.extend_from_slice(flags);
        let out = run_in(Path::new("."), &args, script.as_bytes());
        assert_eq!(stderr(&out), "", "{flags:?}");
        assert_eq!(out.status.code(), Some(0), "{flags:?}");
        outputs.push(stdout(&out).replace(data, "DATA"));
    }
    assert!(outputs[0].contains("12 row(s)"), "{}", outputs[0]);
    for (i, o) in outputs.iter().enumerate().skip(1) {
        assert_eq!(&outputs[0], o, "flags #{i}");
    }
    let out = run_in(Path::new("."), &["shell", "--max-open-files", "0"], b"");
    assert_ne!(out.status.code(), Some(0));
}

/// A read-only shell fed statements one batch at a time: each batch ends with
/// `puts 'MARK'`, and [`ReadOnlyShell::send`] returns what the shell printed up to the mark.
struct ReadOnlyShell {
    child: std::process::Child,
    input: std::process::ChildStdin,
    output: std::io::BufReader<std::process::ChildStdout>,
}

impl ReadOnlyShell {
    fn start(data: &Path) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_regionkv"))
            .args(["shell", "--no-timing", "--read-only"])
            .arg(data)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let input = child.stdin.take().unwrap();
        let output = std::io::BufReader::new(child.stdout.take().unwrap());
        Self {
            child,
            input,
            output,
        }
    }

    fn send(&mut self, statements: &str) -> String {
        use std::io::BufRead;
        writeln!(self.input, "{statements}\nputs 'MARK'").unwrap();
        self.input.flush().unwrap();
        let mut printed = String::new();
        loop {
            let mut line = String::new();
            assert_ne!(self.output.read_line(&mut line).unwrap(), 0, "{printed}");
            if line == "MARK\n" {
                return printed;
            }
            printed.push_str(&line);
        }
    }

    /// Ends the script; returns the exit code and standard error.
    fn finish(self) -> (Option<i32>, String) {
        drop(self.input);
        let output = self.child.wait_with_output().unwrap();
        (
            output.status.code(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    }
}

#[test]
fn a_read_only_shell_reads_beside_the_writer_refuses_mutations_and_refreshes() {
    use regionkv::{ColumnFamilyDescriptor, Db, DbOptions, Put, TableDescriptor};
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("db");
    let writer = Db::open(&data, DbOptions::default().background(false)).unwrap();
    let desc =
        TableDescriptor::new("t", vec![ColumnFamilyDescriptor::new(b"cf").unwrap()]).unwrap();
    writer.admin().create_table(&desc).unwrap();
    let table = writer.table("t").unwrap();
    table
        .put(&Put::with_timestamp("r1", 1000).add_column("cf", "q", "v1"))
        .unwrap();
    writer.admin().flush("t").unwrap();
    table
        .put(&Put::with_timestamp("r2", 1000).add_column("cf", "q", "wal-only"))
        .unwrap();

    let mut shell = ReadOnlyShell::start(&data);
    let scan_before = "ROW  COLUMN+CELL\n \
        r1 column=cf:q, timestamp=1000, value=v1\n \
        r2 column=cf:q, timestamp=1000, value=wal-only\n\
        2 row(s)\n";
    assert_eq!(shell.send("scan 't'"), scan_before);

    // Every mutating command answers the read-only error, as HBase's shell prints errors.
    let refused = [
        ("put 't', 'r3', 'cf:q', 'v'", "write to table t"),
        ("delete 't', 'r1', 'cf:q'", "write to table t"),
        ("deleteall 't', 'r1'", "write to table t"),
        ("incr 't', 'r1', 'cf:n'", "write to table t"),
        ("append 't', 'r1', 'cf:q', 'x'", "write to table t"),
        ("create 'u', 'cf'", "create_table_with_splits"),
        ("alter 't', NAME => 'cg'", "modify_table"),
        ("disable 't'", "disable_table"),
        ("flush 't'", "flush"),
        ("compact 't'", "compact"),
        ("major_compact 't'", "major_compact"),
        ("split 't', 'r2'", "split_at"),
        ("create_namespace 'ns'", "create_namespace_with_properties"),
    ];
    for (statement, what) in refused {
        let command = statement.split_whitespace().next().unwrap();
        assert_eq!(
            shell.send(statement),
            format!(
                "\nERROR: org.apache.hadoop.hbase.DoNotRetryIOException: the database is open read-only: {what} refused\n\n\
                 For usage try 'help \"{command}\"'\n\n"
            ),
            "{statement}"
        );
    }

    // The writer goes on; the shell sees it only after `refresh`.
    table
        .put(&Put::with_timestamp("r3", 1000).add_column("cf", "q", "later"))
        .unwrap();
    assert_eq!(shell.send("scan 't'"), scan_before);
    assert_eq!(
        shell.send("refresh"),
        "Refreshed: the data directory as of now\n"
    );
    let scan_after = shell.send("scan 't'");
    assert!(
        scan_after.contains("r3 column=cf:q, timestamp=1000, value=later")
            && scan_after.ends_with("3 row(s)\n"),
        "{scan_after}"
    );
    assert_eq!(
        shell.send("refresh 1"),
        "ERROR: wrong number of arguments (given 1, expected 0)\n"
    );
    let (code, stderr) = shell.finish();
    assert_eq!(
        code,
        Some(1),
        "the refused statements fail the script: {stderr}"
    );
    // The writer kept the directory throughout.
    table
        .put(&Put::new("r4").add_column("cf", "q", "v"))
        .unwrap();
    assert!(matches!(
        Db::open(&data, DbOptions::default()),
        Err(regionkv::Error::Locked { .. })
    ));
}

#[test]
fn refresh_in_a_shell_that_holds_the_directory_has_nothing_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let output = shell_stdin(&dir.path().join("db"), "refresh\n");
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(
        untimed(&output),
        "Nothing to refresh: this shell holds the data directory\n"
    );
}

#[test]
fn a_read_only_shell_never_creates_a_data_directory() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("absent");
    let output = run_in(
        dir.path(),
        &[
            "shell",
            "--read-only",
            data.to_str().unwrap(),
            "--no-timing",
        ],
        b"list\n",
    );
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).starts_with("ERROR: cannot open data directory")
            && stderr(&output).contains("read-only"),
        "{}",
        stderr(&output)
    );
    assert!(!data.exists());
}
