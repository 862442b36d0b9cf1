//! `regionkv pe`, `regionkv ycsb` and `regionkv bench` end to end through the binary: PE's option syntax and
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
        "--distribution",
        "uniform",
    ]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["phases"][0]["operations"], 300);
    assert_eq!(v["workload"]["distribution"], "uniform", "{v}");
    let (code, _, err) = regionkv(&["ycsb", "--workload", "a", "--distribution", "pareto"]);
    assert_eq!(code, 2, "clap rejects the value");
    assert!(err.contains("pareto"), "{err}");
    if cfg!(not(feature = "peers")) {
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
    }
    let (code, _, err) = regionkv(&["ycsb", "--workload", "z"]);
    assert_eq!(code, 1);
    assert!(err.contains("unknown workload"), "{err}");
}

#[test]
fn bench_compare_runs_the_suite_in_a_child_process_and_prints_the_table() {
    let dir = tempfile::tempdir().unwrap();
    let data = format!("--data={}", dir.path().join("cmp").display());
    let (code, out, err) = regionkv(&[
        "bench",
        "compare",
        "--engines=regionkv",
        &data,
        "--num=3000",
        "--sync-ops=10",
        "--ycsb-records=200",
        "--ycsb-operations=200",
        "--benchmarks=fillseq,fillrandom,overwrite,readrandom,readmissing,seekrandom,readseq,fillsync,ycsba",
    ]);
    assert_eq!(code, 0, "{err}");
    // The child's progress lines reach standard error; the table goes to standard output.
    assert!(
        err.contains("== regionkv") && err.contains("(3000 found)"),
        "{err}"
    );
    for row in [
        "fillseq",
        "fillrandom",
        "overwrite",
        "readrandom",
        "readmissing",
        "seekrandom",
        "readseq",
        "fillsync",
        "ycsba",
        "write amp",
        "space amp",
        "peak RSS MiB",
    ] {
        assert!(
            out.lines().any(|l| l.starts_with(row)),
            "no {row} row:\n{out}"
        );
    }
    assert!(!out.contains("ycsbb"), "{out}");
    assert!(!dir.path().join("cmp").exists(), "compare removes its data");

    let (code, out, err) = regionkv(&[
        "bench",
        "engine",
        "--engines=regionkv",
        &data,
        "--num=500",
        "--benchmarks=fillrandom,readrandom",
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["engine"], "regionkv");
    assert_eq!(v["results"][1]["name"], "readrandom");
    assert_eq!(v["results"][1]["found"], 500);
    assert!(v["write_amp"].as_f64().unwrap() > 0.0);
}

#[test]
fn bench_arguments_are_checked() {
    let (code, _, err) = regionkv(&["bench", "compare", "--benchmarks=fillrandom,nope"]);
    assert_eq!(code, 1);
    assert!(err.contains("unknown benchmark 'nope'"), "{err}");
    let (code, _, err) = regionkv(&["bench", "engine", "--engines=regionkv,fjall"]);
    assert_eq!(code, 1);
    assert!(err.contains("exactly one engine"), "{err}");
    let (code, _, err) = regionkv(&["bench", "compare", "--engines=leveldb"]);
    assert_eq!(code, 1);
    assert!(err.contains("unknown engine 'leveldb'"), "{err}");
    if cfg!(not(feature = "peers")) {
        let dir = tempfile::tempdir().unwrap();
        let data = format!("--data={}", dir.path().display());
        let (code, _, err) = regionkv(&["bench", "engine", "--engines=rocksdb", &data]);
        assert_eq!(code, 1);
        assert!(err.contains("peers"), "{err}");
    }
}
