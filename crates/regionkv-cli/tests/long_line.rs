//! A script line of 60 MB (one huge value) costs the shell a few times its size: 333 MiB of
//! peak RSS in a debug build, against 654 MiB (760 MB in a release build) when the lexer
//! copied the line into a `Vec<char>` (four bytes a char) and the parser cloned its tokens.
//! Alone in its test binary: the bound is on the peak memory of the one child this process
//! waits for (`getrusage(RUSAGE_CHILDREN)`).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::process::Command;

const MIB: u64 = 1 << 20;

#[test]
fn a_60_mb_script_line_costs_a_few_times_its_size() {
    let data = tempfile::tempdir().unwrap();
    let script = data.path().join("long.rb");
    let value_len = 60 * MIB as usize;
    {
        let mut f = std::fs::File::create(&script).unwrap();
        writeln!(f, "create 't', 'f'").unwrap();
        write!(f, "put 't', 'r', 'f:q', '").unwrap();
        f.write_all(&vec![b'x'; value_len]).unwrap();
        writeln!(f, "'").unwrap();
        writeln!(f, "count 't'").unwrap();
    }
    let out = Command::new(env!("CARGO_BIN_EXE_regionkv"))
        .args(["shell", "--data"])
        .arg(data.path().join("db"))
        .arg("-f")
        .arg(&script)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    // The value is parsed whole, then refused as HBase refuses a cell over 10 MB.
    assert!(
        stdout.contains("exceeds the maximum of 10485760 bytes"),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("0 row(s)"), "{stdout}");
    // SAFETY: getrusage writes into the zeroed struct it is given and nothing else.
    let usage = unsafe {
        let mut u: libc::rusage = std::mem::zeroed();
        assert_eq!(libc::getrusage(libc::RUSAGE_CHILDREN, &mut u), 0);
        u
    };
    let peak = usage.ru_maxrss as u64 * 1024; // Linux reports KiB
    println!("a 60 MiB line: peak RSS {} MiB", peak / MIB);
    assert!(
        peak < 7 * value_len as u64,
        "peak RSS {} MiB for a {} MiB line",
        peak / MIB,
        value_len as u64 / MIB
    );
}
