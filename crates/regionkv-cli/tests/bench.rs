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

#[test]
fn ycsb_labels_its_phases_and_prints_status_lines_with_s() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("y").display().to_string();
    let (code, out, err) = regionkv(&[
        "ycsb",
        "--workload",
        "a",
        "--records",
        "300",
        "--operations",
        "300",
        "--data",
        &data,
        "--seed",
        "2",
        "-s",
        "--status-interval",
        "1",
    ]);
    assert_eq!(code, 0, "{err}");
    // Standard output: each phase's measurements under its label.
    let load = out
        .find("# load phase: workload a, recordcount=300, threadcount=1\n")
        .unwrap();
    let run = out
        .find("# run phase: workload a, operationcount=300, threadcount=1\n")
        .unwrap();
    let overall: Vec<usize> = out
        .match_indices("[OVERALL], RunTime(ms), ")
        .map(|(i, _)| i)
        .collect();
    assert_eq!(overall.len(), 2, "{out}");
    assert!(
        load < overall[0] && overall[0] < run && run < overall[1],
        "{out}"
    );
    // Standard error: the labels, then YCSB's status lines; every phase ends with one
    // (so this holds however fast the machine is: no timing is asserted).
    let e_load = err.find("# load phase").unwrap();
    let e_run = err.find("# run phase").unwrap();
    let status: Vec<(usize, &str)> = err
        .lines()
        .scan(0, |at, l| {
            let here = *at;
            *at += l.len() + 1;
            Some((here, l))
        })
        .filter(|(_, l)| l.contains(" sec: ") && l.contains(" operations; "))
        .collect();
    assert!(status.len() >= 2, "{err}");
    let last_load = status.iter().rfind(|(i, _)| *i < e_run).unwrap().1;
    assert!(
        status.iter().any(|(i, _)| *i > e_load && *i < e_run),
        "{err}"
    );
    assert!(last_load.contains(" 300 operations; "), "{last_load}");
    // The interval figures are in the line whose interval saw the inserts: the last one, or
    // an earlier one when a tick fell between the last insert and the end of the phase.
    assert!(
        status
            .iter()
            .any(|(i, l)| *i > e_load && *i < e_run && l.contains("[INSERT: Count=")),
        "{err}"
    );
    let last = status.last().unwrap().1;
    assert!(last.contains(" 300 operations; "), "{last}");
    for part in [
        " current ops/sec; ",
        ", Max=",
        ", Min=",
        ", Avg=",
        ", 90=",
        ", 99=",
        ", 99.9=",
        ", 99.99=",
    ] {
        assert!(last.contains(part), "{part} in {last}");
    }
    // `yyyy-MM-dd HH:mm:ss:SSS N sec: `
    let stamp = last.split(" sec: ").next().unwrap();
    assert_eq!(stamp.len(), "2026-01-01 00:00:00:000 0".len(), "{last}");
    assert_eq!(&stamp[4..5], "-");
    assert_eq!(&stamp[19..20], ":");
    // Without -s: no status lines.
    let (code, _, err) = regionkv(&[
        "ycsb",
        "--workload",
        "c",
        "--phase",
        "run",
        "--records",
        "300",
        "--operations",
        "50",
        "--data",
        &data,
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains(" sec: "), "{err}");
}

#[test]
fn pe_and_ycsb_take_each_others_names_and_share_the_shells_default_directory() {
    let cwd = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_regionkv"))
            .args(args)
            .current_dir(cwd.path())
            .output()
            .unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    // PE with YCSB's names for value size, columns and block cache; no --data.
    let (code, out, err) = run(&[
        "pe",
        "--rows=100",
        "--fieldlength=12",
        "--fieldcount=2",
        "--block-cache=1048576",
        "--json",
        "sequentialWrite",
        "1",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["options"]["value_size"], 12, "{v}");
    assert_eq!(v["options"]["columns"], 2, "{v}");
    // YCSB with YCSB's property names and PE's; no --data either.
    let (code, out, err) = run(&[
        "ycsb",
        "--workload",
        "c",
        "--recordcount",
        "200",
        "--operationcount",
        "100",
        "--threadcount",
        "2",
        "--valueSize",
        "8",
        "--columns",
        "3",
        "--blockCache",
        "1048576",
        "--table",
        "bench_t",
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["records"], 200);
    assert_eq!(v["threads"], 2);
    // Both wrote into ./regionkv-data, the shell's default: it sees their tables.
    let data = cwd.path().join("regionkv-data");
    assert!(data.join("LOCK").is_file(), "no ./regionkv-data");
    let mut shell = Command::new(env!("CARGO_BIN_EXE_regionkv"))
        .arg("shell")
        .current_dir(cwd.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = shell.stdin.take().unwrap();
        stdin
            .write_all(b"list\ncount 'TestTable'\ncount 'bench_t'\n")
            .unwrap();
    }
    let out = shell.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("TestTable") && text.contains("bench_t"),
        "{text}"
    );
    assert!(
        text.contains("100 row(s)") && text.contains("200 row(s)"),
        "{text}"
    );
}
