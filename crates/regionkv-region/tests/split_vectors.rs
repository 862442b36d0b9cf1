//! HBase's split vectors, run against `regionkv_region::split`: the size thresholds of the
//! increasing and stepping policies (`split_size_threshold`, including
//! `TestRegionSplitPolicy`'s jittered cases), the should-split decision
//! (`split_decision`), `Bytes.split` (`bytes_split`, from `TestBytes` and
//! `TestRegionSplitter`) and the block-index midpoint and mid-key block
//! (`split_point_midkey`). The vectors are the copy of the shared file's sections in
//! `tests/testdata/policy-vectors.json`.
//!
//! Each test runs every case of one group, reports all mismatches at once, and checks the
//! case count against the file's `counts`, so a dropped case cannot pass silently.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use regionkv_region::split::{
    SplitConfig, SplitError, SplitPolicy, bytes_split, desired_max_file_size, midkey_block,
    midpoint_row, should_split, size_to_check,
};
use serde::Deserialize;
use std::collections::BTreeMap;

mod vectors_common;
use vectors_common::finish;
/// Draws of Java's `nextFloat()` at the ends and middle of `[0, 1)`: the jitter rate
/// `(draw − 0.5) × 0.25` is then −0.125, 0 and just under +0.125.
const DRAWS: [f64; 3] = [0.0, 0.5, 1.0 - 1.0 / 16_777_216.0];

#[derive(Deserialize)]
struct Vectors {
    counts: BTreeMap<String, usize>,
    split_size_threshold: Vec<ThresholdCase>,
    split_decision: Vec<DecisionCase>,
    bytes_split: Vec<BytesSplitCase>,
    split_point_midkey: Vec<MidkeyCase>,
}

fn vectors() -> Vectors {
    vectors_common::load()
}

/// A byte string of the vector file (`{hex, ascii?}`; the ascii is a comment).
#[derive(Deserialize, Clone)]
struct Bytes {
    hex: String,
}

impl Bytes {
    fn bytes(&self) -> Vec<u8> {
        (0..self.hex.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&self.hex[i..i + 2], 16).expect("hex"))
            .collect()
    }
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

// ---------------------------------------------------------------- split_size_threshold

#[derive(Deserialize)]
struct ThresholdCase {
    id: String,
    policy: String,
    config: ThresholdConfig,
    input: ThresholdInput,
    expected: ThresholdExpected,
}

#[derive(Deserialize)]
struct ThresholdConfig {
    memstore_flush_size: u64,
    max_file_size: u64,
    /// A number, or the text "random in [-0.125, 0.125)" for HBase's default jitter.
    max_file_size_jitter_rate: serde_json::Value,
    #[serde(rename = "hbase.increasing.policy.initial.size")]
    initial_size: Option<u64>,
}

#[derive(Deserialize)]
struct ThresholdInput {
    regions_of_table_on_server: u32,
    largest_store_size: Option<u64>,
}

#[derive(Deserialize)]
struct ThresholdExpected {
    size_to_check: Option<u64>,
    should_split: Option<bool>,
}

fn policy_named(name: &str) -> SplitPolicy {
    match name {
        "ConstantSize" => SplitPolicy::ConstantSize,
        "IncreasingToUpperBound" => SplitPolicy::IncreasingToUpperBound,
        "Stepping" => SplitPolicy::Stepping,
        other => panic!("unknown policy {other} in the vectors"),
    }
}

#[test]
fn split_size_threshold() {
    let v = vectors();
    let mut failures = Vec::new();
    for case in &v.split_size_threshold {
        let policy = policy_named(&case.policy);
        // A fixed rate is tried at the middle draw only; "random" means HBase's 0.25 at
        // both extremes of the draw and the middle.
        let (rate, draws) = match case.config.max_file_size_jitter_rate.as_f64() {
            Some(rate) => (rate, &DRAWS[1..2]),
            None => (0.25, &DRAWS[..]),
        };
        let config = SplitConfig {
            memstore_flush_size: case.config.memstore_flush_size,
            max_file_size: case.config.max_file_size,
            max_file_size_jitter_rate: rate,
            initial_size: case.config.initial_size,
            overall_files: false,
        };
        let r = case.input.regions_of_table_on_server;
        for &draw in draws {
            let desired = desired_max_file_size(&config, draw);
            if let Some(want) = case.expected.size_to_check {
                let got = size_to_check(&policy, &config, desired, r);
                if got != want {
                    failures.push(format!(
                        "{} (draw {draw}): size {got}, want {want}",
                        case.id
                    ));
                }
            }
            if let Some(want) = case.expected.should_split {
                let store = case.input.largest_store_size.expect("a store size");
                let got = should_split(&policy, &config, desired, r, &[store], true);
                if got != want {
                    failures.push(format!(
                        "{} (draw {draw}): split {got}, want {want}",
                        case.id
                    ));
                }
            }
        }
    }
    finish(
        "split_size_threshold",
        &v.counts,
        v.split_size_threshold.len(),
        &failures,
    );
}

// ---------------------------------------------------------------------- split_decision

#[derive(Deserialize)]
struct DecisionCase {
    id: String,
    config: DecisionConfig,
    input: DecisionInput,
    expected: DecisionExpected,
}

#[derive(Deserialize)]
struct DecisionConfig {
    #[serde(rename = "hbase.hregion.split.overallfiles")]
    overall_files: bool,
    size_to_check: u64,
}

#[derive(Deserialize)]
struct DecisionInput {
    store_sizes: Vec<u64>,
    all_stores_can_split: bool,
}

#[derive(Deserialize)]
struct DecisionExpected {
    should_split: bool,
}

#[test]
fn split_decision() {
    let v = vectors();
    let mut failures = Vec::new();
    for case in &v.split_decision {
        // ConstantSize without jitter checks exactly the given size.
        let config = SplitConfig {
            max_file_size: case.config.size_to_check,
            max_file_size_jitter_rate: 0.0,
            overall_files: case.config.overall_files,
            ..SplitConfig::default()
        };
        let desired = desired_max_file_size(&config, 0.5);
        assert_eq!(desired, case.config.size_to_check, "{}", case.id);
        let got = should_split(
            &SplitPolicy::ConstantSize,
            &config,
            desired,
            1,
            &case.input.store_sizes,
            case.input.all_stores_can_split,
        );
        if got != case.expected.should_split {
            failures.push(format!(
                "{}: {got}, want {}",
                case.id, case.expected.should_split
            ));
        }
    }
    finish(
        "split_decision",
        &v.counts,
        v.split_decision.len(),
        &failures,
    );
}

// ------------------------------------------------------------------------- bytes_split

#[derive(Deserialize)]
struct BytesSplitCase {
    id: String,
    input: BytesSplitInput,
    expected: BytesSplitExpected,
    #[serde(default)]
    asserted_entries: BTreeMap<usize, Bytes>,
}

#[derive(Deserialize)]
struct BytesSplitInput {
    a: Bytes,
    b: Bytes,
    inclusive: bool,
    num: usize,
}

#[derive(Deserialize)]
struct BytesSplitExpected {
    length: Option<usize>,
    parts: Option<Vec<Bytes>>,
    error: Option<String>,
}

#[test]
fn bytes_split_vectors() {
    let v = vectors();
    let mut failures = Vec::new();
    for case in &v.bytes_split {
        let i = &case.input;
        let got = bytes_split(&i.a.bytes(), &i.b.bytes(), i.inclusive, i.num);
        match (&got, &case.expected.error) {
            (Err(e), Some(kind)) => {
                // Both HBase errors here are IllegalArgumentExceptions.
                assert_eq!(kind, "IllegalArgumentException", "{}", case.id);
                if !matches!(
                    e,
                    SplitError::EndNotAfterStart { .. } | SplitError::NoSplitPoints
                ) {
                    failures.push(format!("{}: unexpected error {e}", case.id));
                }
            }
            (Ok(parts), None) => {
                let got: Vec<String> = parts.iter().map(|p| hex(p)).collect();
                let want: Vec<String> = case
                    .expected
                    .parts
                    .as_ref()
                    .expect("parts")
                    .iter()
                    .map(|p| p.hex.clone())
                    .collect();
                if got != want {
                    failures.push(format!("{}: {got:?}, want {want:?}", case.id));
                }
                if Some(parts.len()) != case.expected.length {
                    failures.push(format!("{}: length {}", case.id, parts.len()));
                }
                for (&idx, entry) in &case.asserted_entries {
                    if parts.get(idx).map(|p| hex(p)) != Some(entry.hex.clone()) {
                        failures.push(format!("{}: entry {idx} is not {}", case.id, entry.hex));
                    }
                }
            }
            (got, want) => failures.push(format!("{}: {got:?}, want error {want:?}", case.id)),
        }
    }
    finish("bytes_split", &v.counts, v.bytes_split.len(), &failures);
}

// ------------------------------------------------------------------ split_point_midkey

#[derive(Deserialize)]
struct MidkeyCase {
    id: String,
    input: MidkeyInput,
    expected: MidkeyExpected,
}

#[derive(Deserialize)]
struct MidkeyInput {
    last_row_of_previous_block: Option<Bytes>,
    first_row_of_block: Option<Bytes>,
    data_block_count: Option<usize>,
}

/// `sep-*` also give `index_key_row_legacy_versions`, the pre-fix rule for a left row that
/// is a prefix of the right one; only the HBase 2.x rule is implemented.
#[derive(Deserialize)]
struct MidkeyExpected {
    index_key_row: Option<Bytes>,
    single_level_index_block: Option<usize>,
    multi_level_index_block: Option<usize>,
}

#[test]
fn split_point_midkey() {
    let v = vectors();
    let mut failures = Vec::new();
    for case in &v.split_point_midkey {
        let (i, e) = (&case.input, &case.expected);
        let mut checked = false;
        if let (Some(left), Some(right), Some(want)) = (
            &i.last_row_of_previous_block,
            &i.first_row_of_block,
            &e.index_key_row,
        ) {
            checked = true;
            let got = hex(&midpoint_row(&left.bytes(), &right.bytes()));
            if got != want.hex {
                failures.push(format!("{}: {got}, want {}", case.id, want.hex));
            }
        }
        if let Some(count) = i.data_block_count {
            checked = true;
            let got = (midkey_block(count, false), midkey_block(count, true));
            let want = (e.single_level_index_block, e.multi_level_index_block);
            if got != want {
                failures.push(format!("{}: {got:?}, want {want:?}", case.id));
            }
        }
        if !checked {
            failures.push(format!("{}: no input this test knows", case.id));
        }
    }
    finish(
        "split_point_midkey",
        &v.counts,
        v.split_point_midkey.len(),
        &failures,
    );
}
