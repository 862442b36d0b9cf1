//! HBase's own compaction (and flush-selection) vectors, run against
//! `regionkv_region::compaction` (and `flush::policy`). The vectors restate assertions of
//! `TestDefaultCompactSelection` / `TestCompactionPolicy` (`dcs-*`), the 0.94
//! `TestCompactSelection` run with `RatioBasedCompactionPolicy` (`legacy-*`), and rules
//! re-derived from HBase's sources (`"derived": true`). They are a copy of the shared
//! vector file's relevant sections (`tests/testdata/policy-vectors.json`), so the test does
//! not depend on anything outside the repository.
//!
//! Each test runs every case of one group, reports all mismatches at once, and checks the
//! case count against the file's `counts`, so a dropped case cannot pass silently.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use regionkv_region::compaction::{
    CompactionConfig, CompactionDecision, CompactionPolicyKind, SelectionInput, StoreFileStats,
    compact_priority, expired_files, exploring_window, has_too_many_store_files, is_off_peak,
    java_string_hash, major_compaction_interval_bounds, next_major_compaction_interval,
    region_compact_priority, select, select_compaction, should_major_compact,
    split_allowed_by_priority,
};
use regionkv_region::flush::policy::{FlushPolicy, FlushPolicyConfig, StoreFlushStats};
use serde::Deserialize;
use std::collections::BTreeMap;

mod vectors_common;
use vectors_common::finish;
const NOW: i64 = 1_700_000_000_000;

#[derive(Deserialize)]
struct Vectors {
    counts: BTreeMap<String, usize>,
    compaction_selection: Vec<SelectionCase>,
    exploring_window_search: Vec<WindowCase>,
    offpeak_hours: Vec<OffPeakCase>,
    ttl_expired_files: Vec<TtlCase>,
    compaction_priority: Vec<PriorityCase>,
    major_compaction_interval: Vec<MajorCase>,
    flush_store_selection: Vec<FlushCase>,
}

fn vectors() -> Vectors {
    vectors_common::load()
}

// ---------------------------------------------------------------- compaction_selection

#[derive(Deserialize)]
struct SelectionCase {
    id: String,
    policy: String,
    config: SelectionConfig,
    input: SelectionCaseInput,
    expected: SelectionExpected,
    #[serde(default)]
    legacy_only: bool,
    modern_expected_sizes: Option<Vec<u64>>,
}

#[derive(Deserialize)]
struct SelectionConfig {
    min_files: usize,
    max_files: usize,
    ratio: f64,
    offpeak_ratio: f64,
    min_compact_size: u64,
    max_compact_size: u64,
    max_compact_size_offpeak: u64,
    blocking_file_count: usize,
}

#[derive(Deserialize)]
struct SelectionCaseInput {
    sizes_oldest_first: Vec<u64>,
    all_files_are_references: bool,
    files_compacting: usize,
    user_requested: bool,
    force_major: bool,
    may_use_offpeak: bool,
    major_compaction_due_by_time: bool,
}

#[derive(Deserialize)]
struct SelectionExpected {
    selected_sizes: Vec<u64>,
    selected_indices: Option<Vec<usize>>,
    is_major: Option<bool>,
}

/// The vector's knobs as a config. The knobs the vectors give as flags are set the way
/// HBase's tests set them: off-peak through a window holding the current hour (12), and
/// a time-based major through `hbase.hregion.majorcompaction = 1` with no jitter on files
/// written 2 ms ago (`TestDefaultCompactSelection`); otherwise the period is 0
/// (`TestCompactionPolicy.config`).
fn selection_config(c: &SelectionConfig, input: &SelectionCaseInput) -> CompactionConfig {
    let (start, end) = if input.may_use_offpeak {
        (0, 23)
    } else {
        (-1, -1)
    };
    CompactionConfig {
        min_files: c.min_files,
        max_files: c.max_files,
        ratio: c.ratio as f32,
        offpeak_ratio: c.offpeak_ratio as f32,
        min_compact_size: c.min_compact_size,
        max_compact_size: c.max_compact_size,
        max_compact_size_offpeak: c.max_compact_size_offpeak,
        offpeak_start_hour: start,
        offpeak_end_hour: end,
        major_compaction_period_ms: i64::from(input.major_compaction_due_by_time),
        major_compaction_jitter: 0.0,
        blocking_store_files: c.blocking_file_count,
        ..CompactionConfig::default()
    }
}

fn selection_files(input: &SelectionCaseInput) -> Vec<StoreFileStats> {
    input
        .sizes_oldest_first
        .iter()
        .enumerate()
        .map(|(i, &size)| StoreFileStats {
            size,
            max_seq_id: i as u64 + 1,
            min_timestamp: NOW - 60_000,
            max_timestamp: NOW - 30_000,
            modification_time_ms: NOW - 2,
            is_reference: input.all_files_are_references,
            cell_count: u64::from(size > 0),
            name_hash: java_string_hash(&format!("storefile-{i}")),
            ..StoreFileStats::default()
        })
        .collect()
}

fn run_selection_case(case: &SelectionCase) -> Result<(), String> {
    let kind = match case.policy.as_str() {
        "exploring" => CompactionPolicyKind::Exploring,
        "ratio" => CompactionPolicyKind::RatioBased,
        other => return Err(format!("unknown policy {other}")),
    };
    let cfg = selection_config(&case.config, &case.input);
    let files = selection_files(&case.input);
    let compacting: Vec<usize> = (0..case.input.files_compacting).collect();
    let input = SelectionInput {
        files: &files,
        files_compacting: &compacting,
        now_ms: NOW,
        current_hour: 12,
        off_peak_available: true,
        is_user_compaction: case.input.user_requested,
        force_major: case.input.force_major,
        ttl_ms: None,
        min_versions: 0,
    };
    let s = select_compaction(kind, &cfg, &input);
    let sizes: Vec<u64> = s.files.iter().map(|&i| files[i].size).collect();

    if case.legacy_only {
        // The expectation describes 0.94; the modern one must hold and the old must not.
        let modern = case
            .modern_expected_sizes
            .as_ref()
            .ok_or("no modern_expected_sizes")?;
        if &sizes != modern || sizes == case.expected.selected_sizes {
            return Err(format!("legacy-only: got {sizes:?}, modern {modern:?}"));
        }
        return Ok(());
    }

    let want_indices = case
        .expected
        .selected_indices
        .as_ref()
        .ok_or("no selected_indices")?;
    if &s.files != want_indices || sizes != case.expected.selected_sizes {
        return Err(format!(
            "selected {:?} (sizes {sizes:?}), want {want_indices:?} (sizes {:?})",
            s.files, case.expected.selected_sizes
        ));
    }
    if Some(s.is_major) != case.expected.is_major {
        return Err(format!(
            "is_major {} want {:?}",
            s.is_major, case.expected.is_major
        ));
    }
    if case.input.may_use_offpeak && !case.input.force_major && !s.files.is_empty() {
        // TestCompactionPolicy.compactEquals asserts isOffPeak for off-peak minors.
        let want = !s.all_files;
        if s.off_peak != want {
            return Err(format!("off_peak {} want {want}", s.off_peak));
        }
    }
    // The full request maps the selection to a decision; no TTL, so no expiry first.
    let want_decision = if want_indices.is_empty() {
        CompactionDecision::None
    } else if want_indices.len() == files.len() {
        CompactionDecision::Major(want_indices.clone())
    } else {
        CompactionDecision::Minor(want_indices.clone())
    };
    let decision = select(kind, &cfg, &input);
    if decision != want_decision {
        return Err(format!("decision {decision:?} want {want_decision:?}"));
    }
    Ok(())
}

#[test]
fn vectors_compaction_selection() {
    let v = vectors();
    let mut failures = Vec::new();
    let mut by_family: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for case in &v.compaction_selection {
        let family = case.id.split('-').next().unwrap_or("?");
        let tally = by_family.entry(family).or_default();
        tally.1 += 1;
        match run_selection_case(case) {
            Ok(()) => tally.0 += 1,
            Err(e) => failures.push(format!("{}: {e}", case.id)),
        }
    }
    for (family, (passed, ran)) in &by_family {
        println!("compaction_selection/{family}-*: {passed}/{ran} passed");
    }
    finish(
        "compaction_selection",
        &v.counts,
        v.compaction_selection.len(),
        &failures,
    );
}

// ------------------------------------------------------------- exploring_window_search

#[derive(Deserialize)]
struct WindowCase {
    id: String,
    config: WindowConfig,
    input: WindowInput,
    expected: WindowExpected,
}

#[derive(Deserialize)]
struct WindowConfig {
    ratio: f64,
    min_compact_size: u64,
    max_compact_size: u64,
    min_files: usize,
    max_files: usize,
}

#[derive(Deserialize)]
struct WindowInput {
    sizes_oldest_first: Vec<u64>,
    might_be_stuck: bool,
}

#[derive(Deserialize)]
struct WindowExpected {
    selected_indices: Vec<usize>,
    selected_sizes: Vec<u64>,
}

#[test]
fn vectors_exploring_window_search() {
    let v = vectors();
    let mut failures = Vec::new();
    for case in &v.exploring_window_search {
        let cfg = CompactionConfig {
            ratio: case.config.ratio as f32,
            min_compact_size: case.config.min_compact_size,
            max_compact_size: case.config.max_compact_size,
            max_compact_size_offpeak: case.config.max_compact_size,
            min_files: case.config.min_files,
            max_files: case.config.max_files,
            ..CompactionConfig::default()
        };
        let sizes = &case.input.sizes_oldest_first;
        let got: Vec<usize> =
            exploring_window(&cfg, sizes, case.input.might_be_stuck, false).collect();
        let got_sizes: Vec<u64> = got.iter().map(|&i| sizes[i]).collect();
        if got != case.expected.selected_indices || got_sizes != case.expected.selected_sizes {
            failures.push(format!(
                "{}: got {got:?}, want {:?}",
                case.id, case.expected.selected_indices
            ));
        }
    }
    finish(
        "exploring_window_search",
        &v.counts,
        v.exploring_window_search.len(),
        &failures,
    );
}

// ------------------------------------------------------------------------ offpeak_hours

#[derive(Deserialize)]
struct OffPeakCase {
    id: String,
    input: OffPeakInput,
    expected: OffPeakExpected,
}

#[derive(Deserialize)]
struct OffPeakInput {
    start_hour: i32,
    end_hour: i32,
    current_hour: u32,
}

#[derive(Deserialize)]
struct OffPeakExpected {
    is_off_peak: bool,
}

#[test]
fn vectors_offpeak_hours() {
    let v = vectors();
    let mut failures = Vec::new();
    for case in &v.offpeak_hours {
        let cfg = CompactionConfig {
            offpeak_start_hour: case.input.start_hour,
            offpeak_end_hour: case.input.end_hour,
            ..CompactionConfig::default()
        };
        let got = is_off_peak(&cfg, case.input.current_hour);
        if got != case.expected.is_off_peak {
            failures.push(format!("{}: got {got}", case.id));
        }
    }
    finish("offpeak_hours", &v.counts, v.offpeak_hours.len(), &failures);
}

// -------------------------------------------------------------------- ttl_expired_files

#[derive(Deserialize)]
struct TtlCase {
    id: String,
    input: TtlInput,
    expected: TtlExpected,
}

#[derive(Deserialize)]
struct TtlInput {
    file_max_timestamps_oldest_first: Vec<i64>,
    now_ms: i64,
    ttl_ms: i64,
    files_compacting_indices: Vec<usize>,
    min_versions: u32,
    #[serde(rename = "hbase.store.delete.expired.storefile")]
    delete_expired_storefile: bool,
}

#[derive(Deserialize)]
struct TtlExpected {
    removable_indices: Vec<usize>,
}

#[test]
fn vectors_ttl_expired_files() {
    let v = vectors();
    let mut failures = Vec::new();
    for case in &v.ttl_expired_files {
        let cfg = CompactionConfig {
            delete_expired_storefile: case.input.delete_expired_storefile,
            ..CompactionConfig::default()
        };
        let files: Vec<StoreFileStats> = case
            .input
            .file_max_timestamps_oldest_first
            .iter()
            .enumerate()
            .map(|(i, &ts)| StoreFileStats {
                size: 1024,
                max_seq_id: i as u64 + 1,
                min_timestamp: ts,
                max_timestamp: ts,
                modification_time_ms: case.input.now_ms,
                ..StoreFileStats::default()
            })
            .collect();
        let input = SelectionInput {
            files_compacting: &case.input.files_compacting_indices,
            ttl_ms: Some(case.input.ttl_ms),
            min_versions: case.input.min_versions,
            ..SelectionInput::new(&files, case.input.now_ms)
        };
        let got = expired_files(&cfg, &input);
        if got != case.expected.removable_indices {
            failures.push(format!(
                "{}: got {got:?}, want {:?}",
                case.id, case.expected.removable_indices
            ));
            continue;
        }
        // Through the full request: expired files come before any selection.
        let decision = select(CompactionPolicyKind::Exploring, &cfg, &input);
        if !got.is_empty() && decision != CompactionDecision::ExpiredFiles(got) {
            failures.push(format!("{}: decision {decision:?}", case.id));
        }
    }
    finish(
        "ttl_expired_files",
        &v.counts,
        v.ttl_expired_files.len(),
        &failures,
    );
}

// ------------------------------------------------------------------ compaction_priority

#[derive(Deserialize)]
struct PriorityCase {
    id: String,
    input: PriorityInput,
    expected: PriorityExpected,
}

#[derive(Deserialize)]
struct PriorityInput {
    store_file_count: usize,
    blocking_file_count: usize,
}

#[derive(Deserialize)]
struct PriorityExpected {
    compaction_priority: i32,
    split_allowed: bool,
    flush_delayed_for_too_many_files: bool,
}

#[test]
fn vectors_compaction_priority() {
    let v = vectors();
    let mut failures = Vec::new();
    for case in &v.compaction_priority {
        let cfg = CompactionConfig {
            blocking_store_files: case.input.blocking_file_count,
            ..CompactionConfig::default()
        };
        let count = case.input.store_file_count;
        let priority = compact_priority(&cfg, count);
        let split = split_allowed_by_priority(region_compact_priority([priority]));
        let delayed = has_too_many_store_files(&cfg, count);
        let want = &case.expected;
        if (priority, split, delayed)
            != (
                want.compaction_priority,
                want.split_allowed,
                want.flush_delayed_for_too_many_files,
            )
        {
            failures.push(format!(
                "{}: got priority {priority}, split {split}, delayed {delayed}",
                case.id
            ));
        }
    }
    finish(
        "compaction_priority",
        &v.counts,
        v.compaction_priority.len(),
        &failures,
    );
}

// ------------------------------------------------------------ major_compaction_interval

#[derive(Deserialize)]
struct MajorCase {
    id: String,
    input: MajorInput,
    expected: MajorExpected,
}

#[derive(Deserialize)]
struct MajorInput {
    period_ms: i64,
    jitter: f64,
}

#[derive(Deserialize)]
struct MajorExpected {
    min_interval_ms: i64,
    max_interval_ms: i64,
    time_based_major_disabled: bool,
}

#[test]
fn vectors_major_compaction_interval() {
    let v = vectors();
    let mut failures = Vec::new();
    for case in &v.major_compaction_interval {
        let cfg = CompactionConfig {
            major_compaction_period_ms: case.input.period_ms,
            major_compaction_jitter: case.input.jitter as f32,
            ..CompactionConfig::default()
        };
        let want = &case.expected;
        let bounds = major_compaction_interval_bounds(&cfg);
        if want.time_based_major_disabled {
            // Old files, several of them: due under any enabled period, never here.
            let files: Vec<StoreFileStats> = (0..3)
                .map(|i| StoreFileStats {
                    size: 10,
                    max_seq_id: i + 1,
                    modification_time_ms: 1,
                    ..StoreFileStats::default()
                })
                .collect();
            if bounds.is_some() || should_major_compact(&cfg, &files, NOW, None) {
                failures.push(format!("{}: not disabled ({bounds:?})", case.id));
            }
            continue;
        }
        if bounds != Some((want.min_interval_ms, want.max_interval_ms)) {
            failures.push(format!("{}: bounds {bounds:?}", case.id));
            continue;
        }
        // Every seeded interval lies within the bounds, and both ends are approached.
        let (mut lo, mut hi) = (i64::MAX, i64::MIN);
        for i in 0..5000 {
            let seed = java_string_hash(&format!("{i:032x}"));
            let t = next_major_compaction_interval(&cfg, Some(seed));
            lo = lo.min(t);
            hi = hi.max(t);
        }
        let spread = want.max_interval_ms - want.min_interval_ms;
        if lo < want.min_interval_ms
            || hi > want.max_interval_ms
            || lo - want.min_interval_ms > spread / 100
            || want.max_interval_ms - hi > spread / 100
        {
            failures.push(format!("{}: sampled [{lo}, {hi}]", case.id));
        }
    }
    finish(
        "major_compaction_interval",
        &v.counts,
        v.major_compaction_interval.len(),
        &failures,
    );
}

// ---------------------------------------------------------------- flush_store_selection

#[derive(Deserialize)]
struct FlushCase {
    id: String,
    input: FlushInput,
    expected: FlushExpected,
}

#[derive(Deserialize)]
struct FlushInput {
    store_memstore_sizes: Vec<u64>,
    region_flush_size: u64,
    store_has_old_edit: Option<Vec<bool>>,
    table_lower_bound: Option<u64>,
    lower_bound_min: u64,
}

#[derive(Deserialize)]
struct FlushExpected {
    stores_to_flush: Vec<usize>,
    lower_bound: Option<u64>,
}

fn run_flush_case(case: &FlushCase) -> Result<(), String> {
    let cfg = FlushPolicyConfig {
        flush_size: case.input.region_flush_size,
        lower_bound_min: case.input.lower_bound_min,
        lower_bound: case.input.table_lower_bound,
    };
    let sizes = &case.input.store_memstore_sizes;
    if let Some(bound) = case.expected.lower_bound {
        let got = cfg.lower_bound(sizes.len());
        if got != bound {
            return Err(format!("lower bound {got}, want {bound}"));
        }
    }
    let old = case.input.store_has_old_edit.clone().unwrap_or_default();
    let stores: Vec<StoreFlushStats> = sizes
        .iter()
        .enumerate()
        .map(|(i, &heap_size)| StoreFlushStats {
            heap_size,
            has_old_edit: old.get(i).copied().unwrap_or(false),
        })
        .collect();
    let got = FlushPolicy::AllLargeStores.select(&cfg, &stores);
    if got != case.expected.stores_to_flush {
        return Err(format!(
            "flushes {got:?}, want {:?}",
            case.expected.stores_to_flush
        ));
    }
    Ok(())
}

#[test]
fn vectors_flush_store_selection() {
    let v = vectors();
    let mut failures = Vec::new();
    let mut ran = 0;
    for case in &v.flush_store_selection {
        ran += 1;
        if let Err(e) = run_flush_case(case) {
            failures.push(format!("{}: {e}", case.id));
        }
    }
    println!(
        "flush_store_selection: {}/{ran} passed",
        ran - failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(Some(&ran), v.counts.get("flush_store_selection"));
}
