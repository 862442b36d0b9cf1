//! `regionkv importtsv`, the real binary: golden scenarios and a kill test.
//!
//! **Golden scenarios.** Each `tests/testdata/importtsv/*.txt` file is a datadriven script
//! (`regionkv_testkit::datadriven`) run in a fresh temporary directory holding the data
//! directory `db`. Commands:
//!
//! * `file NAME DATA` / `gzip NAME DATA`: writes DATA (escapes `\t`, `\n`, `\r`, `\\`, `\xNN`
//!   decoded; `\x20` for a space) to NAME, plain or gzipped;
//! * `importtsv ARGS...`: runs `regionkv importtsv --data db --no-timing ARGS` in that
//!   directory (ARGS escape-decoded too; a last word `<NAME` feeds NAME on standard input)
//!   and prints its standard output, then its standard error with `stderr: ` before each
//!   line (HBase's usage text, after a usage error, as one `stderr: (usage)` line; region
//!   names, which depend on the time, as `REGION`), then `exit N`;
//! * `completebulkload ARGS...`: the same for `regionkv completebulkload` (loading what
//!   `importtsv.bulk.output` wrote);
//! * `create TABLE FAMILY...` and `scan TABLE`: through the facade, with the binary not
//!   running; `scan` prints each row as `row fam:qual@ts=value ...` (bytes escaped like
//!   HBase's `toStringBinary`), or `(no rows)`.
//!
//! `REGIONKV_REWRITE=1 cargo test -p regionkv-cli --test importtsv` rewrites the expected
//! blocks; review the diff like code, against HBase's texts.
//!
//! **Kill test.** The binary imports a large input, is killed with SIGKILL once its WAL
//! shows progress, and the reopened directory must hold only complete rows (each line is
//! one put, and a put one atomic row write) whose keys and values are the input's.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use regionkv::{ColumnFamilyDescriptor, Db, DbOptions, Scan, TableDescriptor};
use regionkv_testkit::datadriven::{self, Step};

fn testdata() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/testdata/importtsv")
}

/// Decodes the escapes of a script word.
fn unescape(s: &str) -> Vec<u8> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && i + 1 < b.len() {
            match b[i + 1] {
                b't' => out.push(b'\t'),
                b'n' => out.push(b'\n'),
                b'r' => out.push(b'\r'),
                b'\\' => out.push(b'\\'),
                b'x' if i + 4 <= b.len() => {
                    let hex = std::str::from_utf8(&b[i + 2..i + 4]).unwrap();
                    out.push(u8::from_str_radix(hex, 16).unwrap());
                    i += 4;
                    continue;
                }
                other => panic!("unknown escape \\{}", other as char),
            }
            i += 2;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    out
}

fn os(bytes: Vec<u8>) -> std::ffi::OsString {
    use std::os::unix::ffi::OsStringExt;
    std::ffi::OsString::from_vec(bytes)
}

struct World {
    dir: tempfile::TempDir,
}

impl World {
    fn run(&mut self, step: &Step) -> String {
        let dir = self.dir.path();
        match step.command.as_str() {
            "file" | "gzip" => {
                let name = step.arg(0).unwrap();
                let data = unescape(step.arg(1).unwrap_or(""));
                let bytes = if step.command == "gzip" {
                    let mut e =
                        flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
                    e.write_all(&data).unwrap();
                    e.finish().unwrap()
                } else {
                    data
                };
                let path = dir.join(name);
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(path, bytes).unwrap();
                String::new()
            }
            "importtsv" | "completebulkload" => {
                let mut args: Vec<std::ffi::OsString> =
                    [step.command.as_str(), "--data", "db", "--no-timing"]
                        .iter()
                        .map(Into::into)
                        .collect();
                let mut stdin = Stdio::null();
                for (i, a) in step.args.iter().enumerate() {
                    match a.strip_prefix('<') {
                        Some(name) if i + 1 == step.args.len() => {
                            stdin = std::fs::File::open(dir.join(name)).unwrap().into();
                        }
                        _ => args.push(os(unescape(a))),
                    }
                }
                let out = Command::new(env!("CARGO_BIN_EXE_regionkv"))
                    .args(&args)
                    .current_dir(dir)
                    .stdin(stdin)
                    .output()
                    .unwrap();
                let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
                let stderr = String::from_utf8_lossy(&out.stderr);
                // Region names depend on the creation time: the same word for all.
                let region = regex::Regex::new("region [0-9a-f]{32}").unwrap();
                let stderr = region.replace_all(&stderr, "region REGION");
                for line in stderr.lines() {
                    if line.starts_with("Usage: regionkv importtsv") {
                        text.push_str("stderr: (usage)\n");
                        break;
                    }
                    text.push_str(&format!("stderr: {line}\n"));
                }
                text.push_str(&format!("exit {}\n", out.status.code().unwrap_or(-1)));
                text
            }
            "create" => {
                let db = Db::open(dir.join("db"), DbOptions::default().background(false)).unwrap();
                let families = step.args[1..]
                    .iter()
                    .map(|f| ColumnFamilyDescriptor::new(f.as_bytes()).unwrap())
                    .collect();
                db.admin()
                    .create_table(&TableDescriptor::new(step.arg(0).unwrap(), families).unwrap())
                    .unwrap();
                db.close().unwrap();
                String::new()
            }
            "scan" => {
                let options = DbOptions::default()
                    .background(false)
                    .create_if_missing(false);
                let db = Db::open(dir.join("db"), options).unwrap();
                let table = db.table(step.arg(0).unwrap()).unwrap();
                let esc = regionkv::cell::bytes::to_string_binary;
                let mut out = String::new();
                for row in table.scan(&Scan::new()).unwrap() {
                    let row = row.unwrap();
                    out.push_str(&esc(row.row()));
                    for c in row.cells() {
                        out.push_str(&format!(
                            " {}:{}@{}={}",
                            esc(c.family()),
                            esc(c.qualifier()),
                            c.timestamp(),
                            esc(c.value())
                        ));
                    }
                    out.push('\n');
                }
                db.close().unwrap();
                if out.is_empty() {
                    "(no rows)\n".into()
                } else {
                    out
                }
            }
            other => panic!("unknown command {other}"),
        }
    }
}

#[test]
fn golden_scenarios() {
    for path in datadriven::test_files(&testdata()) {
        let mut world = World {
            dir: tempfile::tempdir().unwrap(),
        };
        datadriven::run_file(&path, |step| world.run(step));
    }
}

/// The key and values of input line `i` of the kill test.
fn kill_line(i: u64) -> (String, [String; 3]) {
    // Scattered keys, as real loads write them (an odd multiplier permutes 0..2^32).
    let key = format!("row{:010}", (i * 2_654_435_761) % (1 << 32));
    let v = |c: u64| format!("{c}-{:012}", i.wrapping_mul(7919).wrapping_add(c));
    (key, [v(0), v(1), v(2)])
}

#[test]
fn a_killed_import_leaves_only_complete_rows_of_the_input() {
    const LINES: u64 = 200_000;
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.tsv");
    let mut expected = std::collections::HashMap::new();
    {
        let mut w = std::io::BufWriter::new(std::fs::File::create(&input).unwrap());
        for i in 0..LINES {
            let (key, vals) = kill_line(i);
            writeln!(w, "{key}\t{}\t{}\t{}", vals[0], vals[1], vals[2]).unwrap();
            expected.insert(key, vals);
        }
    }
    let data = dir.path().join("db");
    let mut child = Command::new(env!("CARGO_BIN_EXE_regionkv"))
        .args(["importtsv", "--data"])
        .arg(&data)
        .args([
            "-Dimporttsv.columns=HBASE_ROW_KEY,d:a,d:b,d:c",
            "-Dcreate.table=yes",
            "t",
        ])
        .arg(&input)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Kill once the WAL holds tens of thousands of rows: mid-import, mid-batch. Written
    // bytes are counted as the blocks allocated (a log's length includes the zero tail it
    // reserves ahead of its appends, a hole). A mutator's buffer of rows reaches the log as
    // one record of a few MiB, which a kill can tear (the rows of a torn record were never
    // acknowledged): past 16 MiB, whole records are there before the one being written.
    let wal = data.join("wal");
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut finished = false;
    loop {
        use std::os::unix::fs::MetadataExt;
        let size: u64 = std::fs::read_dir(&wal)
            .map(|d| {
                d.filter_map(|e| e.ok()?.metadata().ok())
                    .map(|m| m.blocks() * 512)
                    .sum()
            })
            .unwrap_or(0);
        if size > 16 << 20 {
            break;
        }
        if child.try_wait().unwrap().is_some() {
            finished = true;
            break;
        }
        assert!(Instant::now() < deadline, "no WAL progress in 60 s");
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();

    let db = Db::open(&data, DbOptions::default().background(false)).unwrap();
    let mut rows = 0u64;
    for row in db.table("t").unwrap().scan(&Scan::new()).unwrap() {
        let row = row.unwrap();
        let key = String::from_utf8(row.row().to_vec()).unwrap();
        let vals = expected
            .get(&key)
            .unwrap_or_else(|| panic!("row {key} is not in the input"));
        let got: Vec<(&[u8], &[u8])> = row
            .cells()
            .iter()
            .map(|c| (c.qualifier(), c.value()))
            .collect();
        let want: Vec<(&[u8], &[u8])> = vec![
            (b"a", vals[0].as_bytes()),
            (b"b", vals[1].as_bytes()),
            (b"c", vals[2].as_bytes()),
        ];
        assert_eq!(got, want, "row {key} is not complete");
        rows += 1;
    }
    assert!(rows > 0, "the WAL had data, so rows survive");
    if !finished {
        assert!(rows < LINES, "killed mid-import, yet every row is there");
    }
    eprintln!("{rows} of {LINES} rows survived the kill (finished before it: {finished})");
}

/// `--no-wal` is atomic as a whole: killed at increasing delays (while reading and sorting,
/// while staging storefiles, around the commit), the reopened table holds none of the input
/// or all of it, never a part; a run to completion then loads it exactly once.
#[test]
fn a_killed_no_wal_import_leaves_the_table_before_or_after() {
    const LINES: u64 = 60_000;
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.tsv");
    {
        let mut w = std::io::BufWriter::new(std::fs::File::create(&input).unwrap());
        for i in 0..LINES {
            let (key, vals) = kill_line(i);
            writeln!(w, "{key}\t{}\t{}\t{}", vals[0], vals[1], vals[2]).unwrap();
        }
    }
    let data = dir.path().join("db");
    {
        let db = Db::open(&data, DbOptions::default().background(false)).unwrap();
        let families = vec![ColumnFamilyDescriptor::new(b"d").unwrap()];
        let splits = (1..6u64)
            .map(|i| format!("row{:010}", i * (1u64 << 32) / 6).into_bytes())
            .collect();
        db.admin()
            .create_table_with_splits(&TableDescriptor::new("t", families).unwrap(), splits)
            .unwrap();
        db.close().unwrap();
    }
    let rows = |data: &Path| -> u64 {
        let db = Db::open(data, DbOptions::default().background(false)).unwrap();
        let n = db.table("t").unwrap().scan(&Scan::new()).unwrap().count() as u64;
        db.close().unwrap();
        n
    };
    let (mut delay, mut kills, mut loaded) = (20u64, 0, false);
    while !loaded && delay < 60_000 {
        let mut child = Command::new(env!("CARGO_BIN_EXE_regionkv"))
            .args(["importtsv", "--no-wal", "--data"])
            .arg(&data)
            // A small sort buffer: the input spills into several runs.
            .args([
                "-Dimporttsv.columns=HBASE_ROW_KEY,d:a,d:b,d:c",
                "-Dmapreduce.task.io.sort.mb=2",
                "t",
            ])
            .arg(&input)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(delay));
        if child.try_wait().unwrap().is_none() {
            child.kill().unwrap();
            kills += 1;
        }
        child.wait().unwrap();
        let n = rows(&data);
        assert!(
            n == 0 || n == LINES,
            "after a kill at {delay} ms: {n} of {LINES} rows"
        );
        loaded = n == LINES;
        delay *= 2;
    }
    assert!(loaded, "the import never completed");
    assert!(kills > 0, "no run was killed: the test proves nothing");
}

/// On a terminal the progress bar is drawn on standard error (a spinner with the bytes and
/// rows/s when reading standard input, which has no total), and cleared before the
/// counters; in scripts (every other test here) standard error holds no bar at all.
#[test]
fn the_progress_bar_is_drawn_on_a_terminal() {
    use portable_pty::{CommandBuilder, PtySize, native_pty_system};
    use std::io::Read;

    let dir = tempfile::tempdir().unwrap();
    let pty = native_pty_system()
        .openpty(PtySize {
            rows: 40,
            cols: 160,
            pixel_width: 0,
            pixel_height: 0,
        })
        .expect("cannot open a pseudo-terminal: this test needs one");
    let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_regionkv"));
    cmd.args(["importtsv", "--data"]);
    cmd.arg(dir.path().join("db"));
    cmd.args([
        "-Dimporttsv.columns=HBASE_ROW_KEY,d:a",
        "-Dcreate.table=yes",
        "t",
        "-",
    ]);
    cmd.env("TERM", "xterm");
    let mut child = pty.slave.spawn_command(cmd).unwrap();
    drop(pty.slave);
    let mut reader = pty.master.try_clone_reader().unwrap();
    let mut writer = pty.master.take_writer().unwrap();
    let (send, output) = std::sync::mpsc::channel::<Vec<u8>>();
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n) = reader.read(&mut buf) {
            if n == 0 || send.send(buf[..n].to_vec()).is_err() {
                return;
            }
        }
    });
    let mut seen = Vec::new();
    let mut wait_for = |needle: &str| {
        let deadline = Instant::now() + Duration::from_secs(60);
        while !String::from_utf8_lossy(&seen).contains(needle) {
            let left = deadline.saturating_duration_since(Instant::now());
            match output.recv_timeout(left) {
                Ok(chunk) => seen.extend(chunk),
                Err(_) => panic!(
                    "no {needle:?} on the terminal; it shows:\n{}",
                    String::from_utf8_lossy(&seen)
                ),
            }
        }
    };
    writer.write_all(b"r1\tv\n").unwrap();
    writer.flush().unwrap();
    // The spinner's line, refreshed while the import waits for more input.
    wait_for("1 rows, ");
    wait_for(" rows/s");
    // End of input (Ctrl-D at the start of a line), then the counters.
    writer.write_all(b"\x04").unwrap();
    writer.flush().unwrap();
    wait_for("Map output records=1");
    assert!(child.wait().unwrap().success());
}
