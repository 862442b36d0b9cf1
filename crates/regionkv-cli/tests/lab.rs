//! `regionkv lab` through the binary. `lab export`'s script must create, through
//! `regionkv shell`, exactly the table the design describes.

use std::ffi::OsStr;
use std::process::{Command, Output};

/// Runs the `regionkv` binary with `args`.
fn regionkv(args: &[&dyn AsRef<OsStr>]) -> std::io::Result<Output> {
    Command::new(env!("CARGO_BIN_EXE_regionkv"))
        .args(args.iter().map(|a| a.as_ref()))
        .output()
}

#[test]
fn an_exported_design_creates_its_table_in_the_shell() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let design = dir.path().join("seed.toml");
    std::fs::write(
        &design,
        r#"
name = "campaign stats, md5 prefix"
table = "stats"
rowkey = "substr(md5(company_id + stat_date), 0, 5) + company_id + stat_date + campaign_id"
[table_options]
MAX_FILESIZE = 2147483648
SPLIT_POLICY = "ConstantSizeRegionSplitPolicy"
[families.d]
VERSIONS = 3
TTL = 86400
BLOOMFILTER = "ROWCOL"
[families.e]
COMPRESSION = "LZ4"
[presplit]
SPLITS = ["\\x00\\xFF", "it's", "m"]  # \\xHH with upper-case digits, as Bytes.toBytesBinary
"#,
    )?;
    let out = regionkv(&[&"lab", &"export", &design])?;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let script = String::from_utf8(out.stdout)?;
    let full = format!("{script}describe 'stats'\nlist_regions 'stats'\n");
    let script_path = dir.path().join("create.rb");
    std::fs::write(&script_path, full)?;
    let shell = regionkv(&[
        &"shell",
        &"--no-timing",
        &"--data",
        &dir.path().join("data"),
        &"-f",
        &script_path,
    ])?;
    let text = String::from_utf8_lossy(&shell.stdout);
    assert!(
        shell.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&shell.stderr)
    );
    assert!(!text.contains("ERROR"), "{script}\n{text}");
    for expected in [
        "NAME => 'd'",
        "VERSIONS => '3'",
        "TTL => '86400 SECONDS (1 DAY)'",
        "BLOOMFILTER => 'ROWCOL'",
        "NAME => 'e'",
        "COMPRESSION => 'LZ4'",
        "MAX_FILESIZE => '2147483648'",
        "SPLIT_POLICY => 'ConstantSizeRegionSplitPolicy'",
    ] {
        assert!(
            text.contains(expected),
            "describe lacks {expected}:\n{text}"
        );
    }
    // Three split keys: four regions, the binary and quoted ones intact.
    for start in ["\\x00\\xFF", "it's", "m"] {
        assert!(text.contains(start), "no region starts at {start}:\n{text}");
    }
    let bad = dir.path().join("bad.toml");
    std::fs::write(&bad, "table = \"t\"\nrowkey = \"md5(\"\n[families.cf]\n")?;
    let out = regionkv(&[&"lab", &"export", &bad])?;
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("bad.toml"));
    Ok(())
}

#[test]
fn sizing_prints_the_guides_figures() -> Result<(), Box<dyn std::error::Error>> {
    let out = regionkv(&[&"lab", &"sizing", &"--data", &"100t"])?;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout)?;
    for expected in [
        "regions per server                 51 ",
        "disk / heap                        96.0 ",
        "1.50 TiB of raw disk",
        "regions                            10240",
        "servers                            201",
        "256 MiB -> 2 GiB -> 6.75 GiB -> 10 GiB",
    ] {
        assert!(text.contains(expected), "no {expected:?} in:\n{text}");
    }
    let out = regionkv(&[&"lab", &"sizing", &"--memstore-fraction", &"0.95"])?;
    assert!(!out.status.success());
    Ok(())
}

#[test]
fn splits_from_sampled_keys_create_even_regions() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let keys = dir.path().join("keys.csv");
    let lines: Vec<String> = (0..400).map(|i| format!("{i},user{i:04},x")).collect();
    std::fs::write(&keys, lines.join("\n"))?;
    let splits_file = dir.path().join("splits.txt");
    let out = regionkv(&[
        &"lab",
        &"splits",
        &"--csv-column",
        &"1",
        &"--regions",
        &"4",
        &"--keys",
        &keys,
        &"--splits-file",
        &splits_file,
    ])?;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout)?;
    assert!(
        text.contains("create 't', 'cf', SPLITS => ['user01', 'user02', 'user03']"),
        "{text}"
    );
    assert_eq!(
        std::fs::read_to_string(&splits_file)?,
        "user01\nuser02\nuser03\n"
    );
    // With a salted design, whole buckets per region, and the design's table.
    let design = dir.path().join("salted.toml");
    std::fs::write(
        &design,
        "table = \"events\"\nrowkey = \"salt(user, 8) + user\"\n[families.e]\n",
    )?;
    let out = regionkv(&[
        &"lab",
        &"splits",
        &"--regions",
        &"4",
        &"--keys",
        &keys,
        &"--design",
        &design,
    ])?;
    let text = String::from_utf8(out.stdout)?;
    assert!(
        text.contains(
            "create 'events', {NAME => 'e'}, SPLITS => [\"\\x02\", \"\\x04\", \"\\x06\"]"
        ),
        "{text}"
    );
    Ok(())
}

#[test]
fn lint_reports_findings_and_fails_on_errors() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let bad = dir.path().join("hexsplit.toml");
    std::fs::write(
        &bad,
        "table = \"t\"\nrowkey = \"'user' + id\"\n[families.details]\n[presplit]\nNUMREGIONS = 16\nSPLITALGO = \"HexStringSplit\"\n",
    )?;
    let out = regionkv(&[&"lab", &"lint", &bad])?;
    let text = String::from_utf8(out.stdout)?;
    assert!(
        !out.status.success(),
        "an error finding fails the command:\n{text}"
    );
    // The id (which only grows) leads once the literal is past; the split points are
    // outside the constant prefix.
    assert!(
        text.starts_with("error: rule 1: the key starts with 'id'"),
        "{text}"
    );
    assert!(
        text.contains("error: rule 2: HexStringSplit with 16 regions"),
        "{text}"
    );
    assert!(text.contains("info: rule 6: family 'details'"), "{text}");
    assert!(text.contains("3 finding(s), 2 error(s)"), "{text}");
    let good = dir.path().join("good.toml");
    std::fs::write(
        &good,
        "table = \"t\"\nrowkey = \"user + reverse_ts(ts)\"\n[families.d]\n",
    )?;
    let out = regionkv(&[&"lab", &"lint", &good])?;
    assert!(out.status.success());
    assert!(String::from_utf8(out.stdout)?.contains("0 finding(s), 0 error(s)"));
    Ok(())
}

#[test]
fn keys_and_splits_from_a_design_and_a_workload() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let design = dir.path().join("d.toml");
    std::fs::write(
        &design,
        "table = \"events\"\nrowkey = \"bucket(user, 4) + pad(user, 6) + be64(ts)\"\n[families.e]\n",
    )?;
    let workload = dir.path().join("w.toml");
    std::fs::write(
        &workload,
        "seed = 1\nduration = \"10m\"\nrate = 10\n[fields]\nuser = { kind = \"uniform\", min = 0, max = 999 }\n",
    )?;
    let out = regionkv(&[
        &"lab",
        &"keys",
        &"--limit",
        &"3",
        &"--workload",
        &workload,
        &design,
    ])?;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout)?;
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    // A bucket digit, six digits of user, then the 8-byte event time: 2026-01-01T00:00:00Z
    // is 1767225600000 = 0x0000019B76DAA800.
    assert!(
        lines[0].ends_with("\\x00\\x00\\x01\\x9Bv\\xDA\\xA8\\x00"),
        "{text}"
    );
    assert!(
        lines
            .iter()
            .all(|l| l.as_bytes()[0].is_ascii_digit() && l.as_bytes()[0] < b'4')
    );
    let out = regionkv(&[
        &"lab",
        &"splits",
        &"--regions",
        &"8",
        &"--design",
        &design,
        &"--workload",
        &workload,
    ])?;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout)?;
    assert!(
        text.contains(
            "7 split points for 8 regions from 6000 sampled keys, on the design's salt buckets"
        ),
        "{text}"
    );
    // Each of the 4 buckets split once more at its median, the bucket prefixes '1', '2',
    // '3' between the medians.
    assert!(
        text.contains("create 'events', {NAME => 'e'}, SPLITS => [\"0"),
        "{text}"
    );
    assert!(
        text.contains(", '1', \"1") && text.contains(", '3', \"3"),
        "{text}"
    );
    Ok(())
}

fn json(path: &std::path::Path) -> Result<serde_json::Value, Box<dyn std::error::Error>> {
    Ok(serde_json::from_str(&std::fs::read_to_string(path)?)?)
}

#[test]
fn simulate_quick_flags_write_the_issues_json() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let out_json = dir.path().join("sim.json");
    let out = regionkv(&[
        &"lab",
        &"simulate",
        &"--key",
        &"hashmod(pad(user, 7), 4) + pad(user, 7) + reverse_ts(ts)",
        &"--rows",
        &"5000",
        &"--splits",
        &"1,2,3",
        &"--flush-size",
        &"1m",
        &"--max-filesize",
        &"4m",
        &"--slices",
        &"10",
        &"--buckets",
        &"20",
        &"--json",
        &out_json,
    ])?;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout)?;
    assert!(text.contains("regions (4 at the end, 0 splits)"), "{text}");
    assert!(text.contains("skew over regions"), "{text}");
    let v = json(&out_json)?;
    let regions = v["regions"].as_array().ok_or("regions")?;
    assert_eq!(regions.len(), 4);
    assert_eq!(
        (regions[1]["start"].as_str(), regions[1]["end"].as_str()),
        (Some("1"), Some("2"))
    );
    assert_eq!(
        regions
            .iter()
            .filter_map(|r| r["writes"].as_u64())
            .sum::<u64>(),
        5000
    );
    for r in regions {
        for field in ["start", "end", "writes", "reads", "bytes"] {
            assert!(!r[field].is_null(), "{field} in {r}");
        }
    }
    assert!(v["splits"].as_array().is_some_and(Vec::is_empty));
    for m in ["max_mean", "cov", "gini", "balancer_cost"] {
        assert!(v["skew"]["writes"][m].is_f64(), "skew.writes.{m}");
    }
    assert_eq!(v["design"]["max_filesize"], 4 << 20);
    assert_eq!(v["design"]["flush_size"], 1 << 20);
    // Splits come with their time and key (toStringBinary).
    let out_json = dir.path().join("ts.json");
    let out = regionkv(&[
        &"lab",
        &"simulate",
        &"--key",
        &"long(ts) + pad(user, 7)",
        &"--rows",
        &"20000",
        &"--flush-size",
        &"1m",
        &"--max-filesize",
        &"2m",
        &"--slices",
        &"10",
        &"--buckets",
        &"20",
        &"--quiet",
        &"--json",
        &out_json,
    ])?;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json(&out_json)?;
    let split = &v["splits"][0];
    assert!(
        split["time"]
            .as_i64()
            .is_some_and(|t| t > 1_767_225_600_000),
        "{split}"
    );
    assert!(
        split["key"]
            .as_str()
            .is_some_and(|k| k.starts_with("\\x00\\x00\\x01")),
        "{split}"
    );
    Ok(())
}

#[test]
fn user_given_keys_replay_through_a_design() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let keys: String = (0..3000)
        .map(|i| format!("row,user{:05}\n", i * 7 % 3000))
        .collect();
    std::fs::write(dir.path().join("keys.csv"), keys)?;
    std::fs::write(
        dir.path().join("replay.toml"),
        "rate = 100\n[replay]\nfile = \"keys.csv\"\ncsv_column = 1\n",
    )?;
    let out_json = dir.path().join("r.json");
    let out = regionkv(&[
        &"lab",
        &"simulate",
        &"--key",
        &"hashmod(key, 8) + key",
        &"--presplit",
        &"8",
        &"--split-algo",
        &"DecimalStringSplit",
        &"--workload",
        &dir.path().join("replay.toml"),
        &"--slices",
        &"5",
        &"--buckets",
        &"10",
        &"--json",
        &out_json,
    ])?;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json(&out_json)?;
    assert_eq!(v["workload"]["writes"], 3000);
    assert_eq!(v["regions"].as_array().map(Vec::len), Some(8));
    // keys() shows what the replayed keys become.
    let out = regionkv(&[
        &"lab",
        &"keys",
        &"--key",
        &"hashmod(key, 8) + key",
        &"--workload",
        &dir.path().join("replay.toml"),
        &"--limit",
        &"2",
    ])?;
    let text = String::from_utf8(out.stdout)?;
    assert!(
        text.lines()
            .all(|l| l.len() == 10 && l[1..].starts_with("user")),
        "{text}"
    );
    Ok(())
}

#[test]
fn every_command_writes_json() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let j = |name: &str| dir.path().join(name);
    let quick: [&dyn AsRef<OsStr>; 2] = [&"--key", &"long(ts) + pad(user, 7)"];
    let run = |args: &[&dyn AsRef<OsStr>]| -> Result<Output, Box<dyn std::error::Error>> {
        Ok(regionkv(args)?)
    };
    let lint = run(&[
        &"lab",
        &"lint",
        quick[0],
        quick[1],
        &"--workload",
        &"events",
        &"--json",
        &j("lint.json"),
    ])?;
    assert!(!lint.status.success(), "rule 1 is an error");
    let v = json(&j("lint.json"))?;
    assert!(
        v.as_array()
            .is_some_and(|f| f.iter().any(|f| f["rule"] == 1 && f["severity"] == "error")),
        "{v}"
    );
    assert!(
        v.as_array()
            .is_some_and(|f| f.iter().any(|f| f["rule"] == 14)),
        "{v}"
    );
    let keys = run(&[
        &"lab",
        &"keys",
        quick[0],
        quick[1],
        &"--limit",
        &"3",
        &"--json",
        &j("keys.json"),
    ])?;
    assert!(keys.status.success());
    assert_eq!(json(&j("keys.json"))?.as_array().map(Vec::len), Some(3));
    let export = run(&[
        &"lab",
        &"export",
        quick[0],
        quick[1],
        &"--json",
        &j("export.json"),
    ])?;
    assert!(export.status.success());
    let script = json(&j("export.json"))?["script"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(script.contains("create 't'"), "{script}");
    // A quick design's scaled-down sizes stay in the lab.
    assert!(
        !script.contains("MAX_FILESIZE =>") && script.contains("HBase's defaults apply"),
        "{script}"
    );
    let sizing = run(&[
        &"lab",
        &"sizing",
        &"--data",
        &"20t",
        &"--json",
        &j("sizing.json"),
    ])?;
    assert!(sizing.status.success());
    assert_eq!(json(&j("sizing.json"))?["sizing"]["regions_per_server"], 51);
    let splits = run(&[
        &"lab",
        &"splits",
        &"--key",
        &"hashmod(pad(user, 7), 4) + pad(user, 7)",
        &"--workload",
        &"events",
        &"--regions",
        &"4",
        &"--json",
        &j("splits.json"),
    ])?;
    assert!(
        splits.status.success(),
        "{}",
        String::from_utf8_lossy(&splits.stderr)
    );
    let v = json(&j("splits.json"))?;
    assert_eq!(v["points"], serde_json::json!(["1", "2", "3"]));
    assert_eq!(v["salt_aligned"], true);
    Ok(())
}

#[test]
fn the_shell_reports_a_live_table() -> Result<(), Box<dyn std::error::Error>> {
    use std::io::Write as _;
    let dir = tempfile::tempdir()?;
    let data = dir.path().join("data");
    let page = dir.path().join("t.html");
    let mut script = String::from("create 't', 'cf', SPLITS => ['m']\n");
    for i in 0..40 {
        script.push_str(&format!("put 't', 'x{i:03}', 'cf:q', 'v'\n"));
    }
    script.push_str("put 't', 'a000', 'cf:q', 'v'\n");
    script.push_str(&format!("lab_report 't', '{}'\n", page.display()));
    script.push_str("lab_report 'nope', '/tmp/nope.html'\n");
    let mut child = Command::new(env!("CARGO_BIN_EXE_regionkv"))
        .args(
            [&"shell" as &dyn AsRef<OsStr>, &"--data", &data]
                .iter()
                .map(|a| a.as_ref()),
        )
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()?;
    child
        .stdin
        .take()
        .ok_or("stdin")?
        .write_all(script.as_bytes())?;
    let out = child.wait_with_output()?;
    let text = String::from_utf8(out.stdout)?;
    assert!(
        text.contains("2 regions, 41 writes"),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("ERROR: Unknown table nope!"), "{text}");
    let html = std::fs::read_to_string(&page)?;
    assert!(html.contains("live table t") && html.contains("region-table"));
    Ok(())
}

#[test]
fn a_design_with_an_index_prints_its_index_figures() -> Result<(), Box<dyn std::error::Error>> {
    let case =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/lab/secondary-index");
    let dir = tempfile::tempdir()?;
    let out_json = dir.path().join("r.json");
    let out = regionkv(&[
        &"lab",
        &"simulate",
        &case.join("hashed-id.toml"),
        &"--workload",
        &case.join("workload.toml"),
        &"--rows",
        &"5000",
        &"--slices",
        &"20",
        &"--buckets",
        &"50",
        &"--quiet",
        &"--json",
        &out_json,
    ])?;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout)?;
    for expected in [
        "write amplification  2.00 row mutations per base put",
        "index by_user (table 'events_by_user', entry, client-maintained)",
        "index reads, per lookup",
    ] {
        assert!(text.contains(expected), "{expected}:\n{text}");
    }
    let r = json(&out_json)?;
    assert_eq!(r["indexes"][0]["table"], "events_by_user");
    assert_eq!(r["indexes"][0]["regions"].as_array().map(Vec::len), Some(8));
    assert_eq!(r["write_amplification"]["index_mutations"], 5000);
    // The export creates the index table too.
    let out = regionkv(&[&"lab", &"export", &case.join("hashed-id.toml")])?;
    let script = String::from_utf8(out.stdout)?;
    assert!(
        script.contains("create 'events_by_user', {NAME => 'i'}"),
        "{script}"
    );
    Ok(())
}
