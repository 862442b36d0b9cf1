//! `regionkv pe` and `regionkv ycsb` end to end through the binary: PE's option syntax and
//! lines, YCSB's lines, JSON reports, and clear errors (unknown options, read before write,
//! a peer engine without the `peers` feature).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Command;

fn regionkv(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_regionkv"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn pe_writes_then_reads_with_pe_output() {
    let dir = tempfile::tempdir().unwrap();
    let data = format!("--data={}", dir.path().join("pe").display());
    let (code, _, err) = regionkv(&["pe", &data, "--rows=100", "randomRead", "1"]);
    assert_eq!(code, 1);
    assert!(err.contains("Run a write command first"), "{err}");
    let (code, out, err) = regionkv(&[
        "pe",
        "--nomapred",
        &data,
        "--rows=500",
        "--valueSize=20",
        "--presplit=2",
        "--compress=LZ4",
        "--bloomFilter=ROWCOL",
        "--blockEncoding=PREFIX",
        "--families=2",
        "--columns=2",
        "--autoFlush=true",
        "sequentialWrite",
        "2",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("[SequentialWriteTest] Summary of timings (ms): ["),
        "{out}"
    );
    assert!(out.contains("Finished TestClient-1 in "), "{out}");
    let (code, out, err) = regionkv(&["pe", &data, "--rows=500", "--json", "scanRange100", "2"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["command"], "scanRange100");
    assert_eq!(v["latency"]["count"], 998);
    let (code, _, err) = regionkv(&["pe", "--rowz=5", "randomRead", "1"]);
    assert_eq!(code, 1);
    assert!(
        err.contains("ERROR: Unrecognized option/command: --rowz=5"),
        "{err}"
    );
    assert!(err.contains("Usage: regionkv pe"), "{err}");
}

#[test]
fn ycsb_loads_and_runs_with_ycsb_output() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("y").display().to_string();
    let (code, out, err) = regionkv(&[
        "ycsb",
        "--workload",
        "b",
        "--records",
        "500",
        "--operations",
        "500",
        "--threads",
        "2",
        "--data",
        &data,
        "--seed",
        "1",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("Loading workload...") && err.contains("Starting test."));
    assert_eq!(
        out.matches("[OVERALL], Throughput(ops/sec), ").count(),
        2,
        "{out}"
    );
    assert!(out.contains("[INSERT], Operations, 500\n"), "{out}");
    assert!(out.contains("[READ], Return=OK, "), "{out}");
    // A second run on the loaded data.
    let (code, out, _) = regionkv(&[
        "ycsb",
        "--workload",
        "c",
        "--records",
        "500",
        "--operations",
        "300",
        "--phase",
        "run",
        "--data",
        &data,
        "--json",
    ]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["phases"][0]["operations"], 300);
    let (code, _, err) = regionkv(&[
        "ycsb",
        "--workload",
        "a",
        "--engine",
        "rocksdb",
        "--data",
        &data,
    ]);
    assert_eq!(code, 1);
    assert!(err.contains("peers"), "{err}");
    let (code, _, err) = regionkv(&["ycsb", "--workload", "z"]);
    assert_eq!(code, 1);
    assert!(err.contains("unknown workload"), "{err}");
}
