//! Golden-file tests of what `regionkv shell` prints for each command: every
//! `tests/golden/NAME.rb` script runs with `regionkv shell --no-timing -f NAME.rb` on a fresh
//! data directory (TZ=UTC, so HBase 2.4's local timestamps under `--iso-ts` are UTC), and its
//! whole standard output must equal `tests/golden/NAME.out`. Timestamps print as epoch
//! milliseconds, the shell's default.
//!
//! A script's leading comments may say `# args: --iso-ts` (more shell flags), `# tz: VALUE`
//! (another TZ) and `# exit: 1` (the exit code expected; 0 otherwise). Scripts freeze the
//! engine clock with `clock MILLIS` so that timestamps and region ids are deterministic.
//!
//! After a deliberate change of output, `REGIONKV_REWRITE=1 cargo test -p regionkv-cli --test
//! golden` rewrites the `.out` files; review their diff like code.

#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("golden")
}

/// The value of a `# key: value` header comment of `script`.
fn header<'a>(script: &'a str, key: &str) -> Option<&'a str> {
    script
        .lines()
        .take_while(|l| l.starts_with('#'))
        .find_map(|l| l.strip_prefix(&format!("# {key}:")))
        .map(str::trim)
}

/// Runs golden script `name` and compares its output and exit code.
fn check(name: &str) {
    let script_path = golden_dir().join(format!("{name}.rb"));
    let expected_path = golden_dir().join(format!("{name}.out"));
    let script = std::fs::read_to_string(&script_path).unwrap();
    let data = tempfile::tempdir().unwrap();
    let mut args: Vec<String> = vec![
        "shell".into(),
        "--data".into(),
        data.path().join("db").display().to_string(),
        "--no-timing".into(),
        "-f".into(),
        script_path.display().to_string(),
    ];
    if let Some(extra) = header(&script, "args") {
        args.extend(extra.split_whitespace().map(String::from));
    }
    let output = Command::new(env!("CARGO_BIN_EXE_regionkv"))
        .args(&args)
        // Relative paths in a script (SPLITS_FILE) resolve in the golden directory.
        .current_dir(golden_dir())
        .env("TZ", header(&script, "tz").unwrap_or("UTC"))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(stderr, "", "{name}: standard error");
    let code: i32 = header(&script, "exit").map_or(0, |c| c.parse().unwrap());
    if regionkv_testkit::rewrite_requested() {
        std::fs::write(&expected_path, &stdout).unwrap();
    } else {
        let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
        if stdout != expected {
            let first = stdout
                .lines()
                .zip(expected.lines())
                .position(|(a, b)| a != b)
                .unwrap_or_else(|| stdout.lines().count().min(expected.lines().count()));
            panic!(
                "{name}: output differs from {} at line {}\n--- expected\n{}\n--- actual\n{}",
                expected_path.display(),
                first + 1,
                expected
                    .lines()
                    .skip(first)
                    .take(5)
                    .collect::<Vec<_>>()
                    .join("\n"),
                stdout
                    .lines()
                    .skip(first)
                    .take(5)
                    .collect::<Vec<_>>()
                    .join("\n"),
            );
        }
    }
    assert_eq!(output.status.code(), Some(code), "{name}: exit code");
}

macro_rules! golden {
    ($($name:ident),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                check(stringify!($name));
            }
        )*

        #[test]
        fn every_golden_script_has_a_test() {
            let listed = [$(stringify!($name)),*];
            for entry in std::fs::read_dir(golden_dir()).unwrap() {
                let path = entry.unwrap().path();
                if path.extension().is_some_and(|e| e == "rb") {
                    let stem = path.file_stem().unwrap().to_str().unwrap().to_string();
                    assert!(listed.contains(&stem.as_str()), "{stem}.rb has no test");
                }
            }
        }
    };
}

golden!(
    ruby,
    snapshots,
    namespaces,
    ddl,
    alter,
    presplit,
    dml,
    binary,
    deletes,
    counters,
    count,
    ttl,
    tools,
    split_merge,
    errors,
    epoch_timestamps,
    local_timestamps,
    flush_compact,
    coprocessors,
    keep_deleted_cells,
    show_filters,
    metrics,
    admin_more,
    namespace_properties,
    table_help,
    help_attributes,
    configuration,
);
