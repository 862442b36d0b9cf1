//! The lab's shipped examples (examples/lab) show what their READMEs say: each comparison
//! runs through `regionkv lab compare --json` (on fewer rows than the full workloads, so
//! the suite stays quick) and every claim's direction is asserted on the figures.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

type R = Result<(), Box<dyn std::error::Error>>;

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/lab")
}

/// `lab compare` of `designs` in example `case` on `rows` records: one report per design,
/// in the order given.
fn compare(
    case: &str,
    designs: &[&str],
    rows: u64,
) -> Result<Vec<Value>, Box<dyn std::error::Error>> {
    let dir = examples().join(case);
    let out = tempfile::tempdir()?;
    let json = out.path().join("compare.json");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_regionkv"));
    cmd.args(["lab", "compare"]);
    for d in designs {
        cmd.arg(dir.join(d));
    }
    cmd.arg("--workload")
        .arg(dir.join("workload.toml"))
        .args([
            "--rows",
            &rows.to_string(),
            "--slices",
            "50",
            "--buckets",
            "100",
            "--quiet",
        ])
        .arg("--json")
        .arg(&json);
    let output = cmd.output()?;
    assert!(
        output.status.success(),
        "{case}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    // The terminal table names every design.
    let table = String::from_utf8(output.stdout)?;
    let reports: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(&json)?)?;
    assert_eq!(reports.len(), designs.len());
    for r in &reports {
        let name = r["design"]["name"].as_str().unwrap_or_default();
        assert!(table.contains(name), "{case}: {name} missing from\n{table}");
    }
    Ok(reports)
}

fn f(v: &Value, path: &[&str]) -> f64 {
    let mut v = v;
    for p in path {
        v = &v[p];
    }
    v.as_f64().unwrap_or(f64::NAN)
}

fn kind<'a>(r: &'a Value, label_start: &str) -> &'a Value {
    r["queries"]["kinds"]
        .as_array()
        .and_then(|k| {
            k.iter().find(|k| {
                k["label"]
                    .as_str()
                    .is_some_and(|l| l.starts_with(label_start))
            })
        })
        .unwrap_or(&Value::Null)
}

fn has_rule(r: &Value, rule: u64, severity: &str) -> bool {
    r["lint"].as_array().is_some_and(|l| {
        l.iter()
            .any(|f| f["rule"].as_u64() == Some(rule) && f["severity"] == severity)
    })
}

#[test]
fn timestamp_first_keeps_one_region_hot_and_salting_spreads_it() -> R {
    let r = compare("timestamp-first", &["ts-first.toml", "salted.toml"], 60_000)?;
    let (ts, salted) = (&r[0], &r[1]);
    assert!(
        ts["splits"].as_array().is_some_and(|s| !s.is_empty()),
        "it splits"
    );
    let (a, b) = (
        f(ts, &["skew", "writes", "max_mean"]),
        f(salted, &["skew", "writes", "max_mean"]),
    );
    assert!(a > 1.5 * b, "max/mean: timestamp first {a}, salted {b}");
    assert!(b < 1.5, "salted max/mean {b}");
    let (a, b) = (
        f(ts, &["skew", "writes", "balancer_cost"]),
        f(salted, &["skew", "writes", "balancer_cost"]),
    );
    assert!(a > 4.0 * b, "balancer cost: {a} vs {b}");
    assert!(has_rule(ts, 1, "error"));
    // A user's latest ten: one forward scan of one region when the user leads; a
    // full-table scan when the time does.
    assert_eq!(f(kind(salted, "latest"), &["fanout_max"]), 1.0);
    assert!(f(kind(ts, "latest"), &["full_scans"]) > 0.0);
    Ok(())
}

#[test]
fn a_hash_prefix_evens_writes_and_fans_range_reads_out() -> R {
    let r = compare("hash-prefix", &["hashed.toml", "time-first.toml"], 20_000)?;
    let (hashed, time) = (&r[0], &r[1]);
    assert!(
        f(hashed, &["skew", "writes", "balancer_cost"])
            < f(time, &["skew", "writes", "balancer_cost"]),
        "writes"
    );
    let (hr, tr) = (kind(hashed, "range"), kind(time, "range"));
    assert_eq!(
        f(hr, &["full_scans"]),
        f(hr, &["count"]),
        "every range read scans it all"
    );
    assert_eq!(f(tr, &["full_scans"]), 0.0);
    assert_eq!(f(hr, &["fanout_max"]), 8.0, "every region");
    assert!(f(tr, &["fanout_mean"]) < f(hr, &["fanout_mean"]));
    assert!(has_rule(hashed, 14, "error"));
    Ok(())
}

#[test]
fn the_seed_articles_md5_design_beats_its_rejected_alternatives() -> R {
    let r = compare(
        "campaign-stats",
        &["md5-prefix.toml", "date-first.toml", "company-first.toml"],
        20_000,
    )?;
    let cost = |i: usize| f(&r[i], &["skew", "writes", "balancer_cost"]);
    assert!(
        cost(0) < cost(1) && cost(0) < cost(2),
        "balancer costs {} {} {}",
        cost(0),
        cost(1),
        cost(2)
    );
    assert!(
        f(&r[0], &["skew", "writes", "max_mean"]) < f(&r[2], &["skew", "writes", "max_mean"]),
        "big advertisers crowd company-first regions"
    );
    // A company's day: one prefix scan of one region in every design that leads with it.
    assert_eq!(f(kind(&r[0], "scan"), &["fanout_max"]), 1.0);
    assert_eq!(f(kind(&r[0], "scan"), &["full_scans"]), 0.0);
    assert!(has_rule(&r[1], 1, "error"), "date first is monotonic");
    Ok(())
}

#[test]
fn reversed_id_bits_fill_sixteen_regions_evenly() -> R {
    let r = compare(
        "reversed-id-bits",
        &["bitreverse.toml", "sequential.toml"],
        20_000,
    )?;
    let (a, b) = (
        f(&r[0], &["skew", "writes", "max_mean"]),
        f(&r[1], &["skew", "writes", "max_mean"]),
    );
    assert!(a < 1.3, "bitreverse max/mean {a}");
    assert!(b > 8.0, "sequential ids max/mean {b}");
    // Gets still find their rows: one region, one row.
    assert_eq!(f(kind(&r[0], "get"), &["rows_mean"]), 1.0);
    Ok(())
}

#[test]
fn opentsdb_salt_spreads_writes_and_multiplies_scans_by_the_buckets() -> R {
    let r = compare("opentsdb", &["unsalted.toml", "salted.toml"], 40_000)?;
    let (plain, salted) = (&r[0], &r[1]);
    assert_eq!(f(kind(plain, "range"), &["requests_mean"]), 1.0);
    assert_eq!(
        f(kind(salted, "range"), &["requests_mean"]),
        20.0,
        "one scan per bucket"
    );
    // A whole series is one bucket: its newest point is still one get-sized scan.
    assert_eq!(f(kind(salted, "latest"), &["requests_mean"]), 1.0);
    assert!(
        f(salted, &["skew", "writes", "balancer_cost"])
            < f(plain, &["skew", "writes", "balancer_cost"])
    );
    Ok(())
}

#[test]
fn hexstringsplit_over_decimal_keys_leaves_regions_empty() -> R {
    let r = compare(
        "hexsplit-pitfall",
        &["hexsplit.toml", "decimalsplit.toml"],
        20_000,
    )?;
    let empty = |r: &Value| {
        r["regions"].as_array().map_or(0, |rs| {
            rs.iter()
                .filter(|x| x["writes"].as_u64() == Some(0))
                .count()
        })
    };
    assert!(
        empty(&r[0]) >= 7,
        "HexStringSplit: {} empty regions",
        empty(&r[0])
    );
    assert!(
        empty(&r[1]) <= 1,
        "DecimalStringSplit: {} empty regions",
        empty(&r[1])
    );
    assert!(has_rule(&r[0], 2, "error"));
    assert!(!has_rule(&r[1], 2, "error"));
    Ok(())
}

#[test]
fn three_families_flush_more_than_one() -> R {
    let r = compare("families", &["three.toml", "one.toml"], 60_000)?;
    let (three, one) = (&r[0], &r[1]);
    assert_eq!(f(three, &["cells"]), f(one, &["cells"]), "the same cells");
    let (a, b) = (f(three, &["flushes"]), f(one, &["flushes"]));
    assert!(a > 1.5 * b, "flushes: three families {a}, one {b}");
    // The small families' flushes: as many as the big one's, for a fraction of the bytes.
    let fams = three["families"].as_array().cloned().unwrap_or_default();
    assert_eq!(fams.len(), 3);
    assert!(
        fams.iter().all(|x| x["flushes"].as_u64().unwrap_or(0) > 0),
        "{fams:?}"
    );
    assert!(f(three, &["key_bytes_per_cell"]) > f(one, &["key_bytes_per_cell"]));
    Ok(())
}

#[test]
fn reversing_a_phone_number_spreads_the_area_codes() -> R {
    let r = compare(
        "phone-timestamp",
        &["phone-first.toml", "reversed-phone.toml"],
        20_000,
    )?;
    let (a, b) = (
        f(&r[0], &["skew", "writes", "max_mean"]),
        f(&r[1], &["skew", "writes", "max_mean"]),
    );
    assert!(b < a / 2.0, "max/mean: as dialled {a}, reversed {b}");

    for x in &r {
        assert_eq!(
            f(kind(x, "latest"), &["fanout_max"]),
            1.0,
            "a number's calls stay together"
        );
    }
    Ok(())
}

#[test]
fn an_index_on_a_zipfian_user_has_its_own_hotspot_and_salting_it_costs_fan_out() -> R {
    let r = compare(
        "secondary-index",
        &["user-id.toml", "hashed-user.toml", "hashed-id.toml"],
        40_000,
    )?;
    let index = |x: &Value| x["indexes"][0].clone();
    let lookup = |x: &Value| kind(x, "index by_user").clone()["index"].clone();
    for x in &r {
        // One entry put per base put: two row mutations per put, two client requests.
        assert_eq!(f(x, &["write_amplification", "rows"]), 2.0);
        assert_eq!(
            f(x, &["write_amplification", "client_requests_per_put"]),
            2.0
        );
        assert!(f(x, &["write_amplification", "bytes"]) > 1.0);
        // The base table is the same in every design.
        assert_eq!(
            f(x, &["skew", "writes", "max_mean"]),
            f(&r[0], &["skew", "writes", "max_mean"])
        );
        // Each lookup's entries are gets spread over the base table's salted regions.
        assert_eq!(
            f(&lookup(x), &["base_gets_mean"]),
            f(&lookup(&r[0]), &["base_gets_mean"])
        );
        assert!(f(&lookup(x), &["base_regions_mean"]) > 2.0);
    }
    // user + id, pre-split by user range: the busiest users' entries crowd the first
    // index region.
    let skew = |x: &Value, m: &str| f(&index(x), &["skew", "writes", m]);
    assert!(skew(&r[0], "max_mean") > 3.0, "{}", skew(&r[0], "max_mean"));
    assert!(skew(&r[0], "max_mean") > 2.0 * skew(&r[1], "max_mean"));
    // A hash of the user spreads users, not the busiest one; a hash of the id spreads all.
    assert!(skew(&r[1], "max_mean") > skew(&r[2], "max_mean"));
    assert!(skew(&r[2], "max_mean") < 1.2, "{}", skew(&r[2], "max_mean"));
    assert!(
        skew(&r[0], "balancer_cost") > skew(&r[1], "balancer_cost")
            && skew(&r[1], "balancer_cost") > skew(&r[2], "balancer_cost")
    );
    // The lookup: one index scan of one region while the key leads with (a hash of) the
    // user; a scan per bucket, every index region, when the salt is the id's.
    for x in &r[..2] {
        assert_eq!(f(&lookup(x), &["index_requests_mean"]), 1.0);
        assert_eq!(f(&lookup(x), &["index_regions_max"]), 1.0);
    }
    assert_eq!(f(&lookup(&r[2]), &["index_requests_mean"]), 8.0);
    assert_eq!(f(&lookup(&r[2]), &["index_regions_mean"]), 8.0);
    Ok(())
}
