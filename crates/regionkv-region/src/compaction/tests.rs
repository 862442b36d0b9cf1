//! Edge cases of the selection rules (HBase policies notes §4) that HBase's own vectors
//! (run in `tests/compaction_selection_vectors.rs`) do not pin down.

use super::config::*;
use super::policy::*;

const NOW: i64 = 1_700_000_000_000;

/// Files of `sizes`, oldest first, written long ago, not majors, no references.
fn files(sizes: &[u64]) -> Vec<StoreFileStats> {
    sizes
        .iter()
        .enumerate()
        .map(|(i, &size)| StoreFileStats {
            size,
            max_seq_id: i as u64 + 1,
            min_timestamp: NOW - 10_000,
            max_timestamp: NOW - 5_000,
            modification_time_ms: NOW - 1_000,
            name_hash: java_string_hash(&format!("file{i}")),
            cell_count: 1,
            ..StoreFileStats::default()
        })
        .collect()
}

/// `TestCompactionPolicy`'s store configuration: min 3, max 5, sizes 10..2100, ratio 1.0,
/// no time-based majors, blocking 10.
fn test_cfg() -> CompactionConfig {
    CompactionConfig {
        min_files: 3,
        max_files: 5,
        ratio: 1.0,
        min_compact_size: 10,
        max_compact_size: 2100,
        max_compact_size_offpeak: 2100,
        major_compaction_period_ms: 0,
        blocking_store_files: 10,
        ..CompactionConfig::default()
    }
}

fn pick(cfg: &CompactionConfig, input: &SelectionInput<'_>) -> Selection {
    select_compaction(CompactionPolicyKind::Exploring, cfg, input)
}

#[test]
fn config_keys_and_defaults_are_hbases() {
    assert_eq!(COMPACTION_MIN_KEY, "hbase.hstore.compaction.min");
    assert_eq!(COMPACTION_MAX_KEY, "hbase.hstore.compaction.max");
    assert_eq!(COMPACTION_RATIO_KEY, "hbase.hstore.compaction.ratio");
    assert_eq!(
        COMPACTION_RATIO_OFFPEAK_KEY,
        "hbase.hstore.compaction.ratio.offpeak"
    );
    assert_eq!(COMPACTION_MIN_SIZE_KEY, "hbase.hstore.compaction.min.size");
    assert_eq!(COMPACTION_MAX_SIZE_KEY, "hbase.hstore.compaction.max.size");
    assert_eq!(OFFPEAK_START_HOUR_KEY, "hbase.offpeak.start.hour");
    assert_eq!(MAJOR_COMPACTION_PERIOD_KEY, "hbase.hregion.majorcompaction");
    assert_eq!(BLOCKING_STORE_FILES_KEY, "hbase.hstore.blockingStoreFiles");
    assert_eq!(
        COMPACTION_THROTTLE_KEY,
        "hbase.regionserver.thread.compaction.throttle"
    );

    let c = CompactionConfig::default();
    assert_eq!((c.min_files, c.max_files), (3, 10));
    assert_eq!(
        c.ratio_for(false),
        1.2000000476837158,
        "1.2F widened, as Java does"
    );
    assert_eq!(c.ratio_for(true), 5.0);
    assert_eq!(c.min_compact_size, 134_217_728);
    assert_eq!(c.max_compact_size, i64::MAX as u64);
    assert_eq!(c.max_compact_size_offpeak, c.max_compact_size);
    assert_eq!((c.offpeak_start_hour, c.offpeak_end_hour), (-1, -1));
    assert_eq!(c.major_compaction_period_ms, 604_800_000);
    assert_eq!(f64::from(c.major_compaction_jitter), 0.5);
    assert_eq!(c.blocking_store_files, 16);
    assert_eq!(c.throttle_point, 2_684_354_560);
    assert!(c.delete_expired_storefile);

    let small = CompactionConfig::from_flush_size(64 * 1024 * 1024);
    assert_eq!(small.min_compact_size, 64 * 1024 * 1024);
    assert_eq!(small.throttle_point, 2 * 10 * 64 * 1024 * 1024);
}

#[test]
fn min_files_is_at_least_two() {
    let cfg = CompactionConfig {
        min_files: 1,
        ..test_cfg()
    };
    assert_eq!(cfg.min_files_to_compact(), 2);
    assert!(!needs_compaction(&cfg, 1, 0));
    assert!(needs_compaction(&cfg, 2, 0));
    let fs = files(&[5]);
    assert!(pick(&cfg, &SelectionInput::new(&fs, NOW)).files.is_empty());
}

#[test]
fn only_leading_large_files_are_skipped() {
    // 300 is over the cap but sits after a small file, so it stays a candidate; windows
    // holding it are over the cap, leaving the newest two. Had it been dropped, the
    // non-contiguous [10, 10, 10] (files 1, 3, 4) would have been picked.
    let cfg = CompactionConfig {
        min_files: 2,
        max_compact_size: 100,
        max_compact_size_offpeak: 100,
        ratio: 10.0,
        ..test_cfg()
    };
    let fs = files(&[200, 10, 300, 10, 10]);
    assert_eq!(pick(&cfg, &SelectionInput::new(&fs, NOW)).files, vec![3, 4]);
}

#[test]
fn a_reference_file_stops_large_file_skipping_and_takes_all_candidates() {
    let cfg = test_cfg();
    let mut fs = files(&[5000, 5000, 10]);
    fs[1].is_reference = true;
    let s = pick(&cfg, &SelectionInput::new(&fs, NOW));
    assert_eq!(s.files, vec![1, 2], "file 0 skipped, the reference is not");
    assert!(s.after_split && !s.all_files && !s.is_major);
    assert_eq!(s.decision(), CompactionDecision::Minor(vec![1, 2]));

    fs[0].is_reference = true;
    let s = pick(&cfg, &SelectionInput::new(&fs, NOW));
    assert_eq!(s.decision(), CompactionDecision::Major(vec![0, 1, 2]));
    assert!(
        !s.is_major,
        "an all-files after-split compaction is not flagged major"
    );
    assert_eq!(
        request_priority(&cfg, fs.len(), false, s.after_split),
        SPLIT_REGION_COMPACTION_PRIORITY
    );
}

#[test]
fn bulk_loaded_files_excluded_from_minors_only() {
    let cfg = test_cfg();
    let mut fs = files(&[10, 10, 10, 10]);
    fs[1].exclude_from_minor = true;
    let minor = pick(&cfg, &SelectionInput::new(&fs, NOW));
    assert_eq!(minor.files, vec![0, 2, 3]);
    assert_eq!(minor.decision(), CompactionDecision::Minor(vec![0, 2, 3]));

    let user_major = SelectionInput {
        is_user_compaction: true,
        force_major: true,
        ..SelectionInput::new(&fs, NOW)
    };
    let major = pick(&cfg, &user_major);
    assert_eq!(major.files, vec![0, 1, 2, 3]);
    assert!(major.is_major);
}

#[test]
fn files_up_to_the_newest_compacting_one_are_not_eligible() {
    let cfg = CompactionConfig {
        blocking_store_files: 5,
        ..test_cfg()
    };
    let fs = files(&[10, 10, 10, 10, 10, 10, 10]);
    // Files 1 and 3 compacting: 0..=3 are out, 4..=6 remain.
    let input = SelectionInput {
        files_compacting: &[1, 3],
        ..SelectionInput::new(&fs, NOW)
    };
    let s = pick(&cfg, &input);
    assert_eq!(s.files, vec![4, 5, 6]);
    // 7 − 2 compacting + 1 future file = 6 ≥ 5.
    assert!(s.may_be_stuck);
    assert!(may_be_stuck(&cfg, 7, 2));
    assert!(!may_be_stuck(&cfg, 4, 0));
    assert!(may_be_stuck(&cfg, 5, 1), "4 left + 1 future = 5");

    let input = SelectionInput {
        files_compacting: &[4],
        ..input
    };
    assert!(pick(&cfg, &input).files.is_empty(), "only 2 eligible");
}

#[test]
fn forced_major_waits_until_nothing_is_compacting() {
    let cfg = test_cfg();
    let fs = files(&[10, 10, 10, 10, 10]);
    let user_major = SelectionInput {
        is_user_compaction: true,
        force_major: true,
        files_compacting: &[0],
        ..SelectionInput::new(&fs, NOW)
    };
    let s = pick(&cfg, &user_major);
    assert_eq!(s.files, vec![1, 2, 3, 4]);
    assert!(!s.is_major);

    let s = pick(
        &cfg,
        &SelectionInput {
            files_compacting: &[],
            ..user_major
        },
    );
    assert_eq!(s.files, vec![0, 1, 2, 3, 4]);
    assert!(s.is_major, "a user major ignores the < max_files rule");
}

#[test]
fn expired_files_go_first_and_the_newest_file_stays() {
    let cfg = test_cfg();
    let mut fs = files(&[10, 10, 10]);
    for f in &mut fs {
        f.max_timestamp = NOW - 10_000;
    }
    let input = SelectionInput {
        ttl_ms: Some(5_000),
        ..SelectionInput::new(&fs, NOW)
    };
    assert_eq!(expired_files(&cfg, &input), vec![0, 1]);
    assert_eq!(
        select(CompactionPolicyKind::Exploring, &cfg, &input),
        CompactionDecision::ExpiredFiles(vec![0, 1])
    );
    // Once they are gone, the lone newest file is not compacted.
    let rest = &fs[2..];
    let after = SelectionInput {
        files: rest,
        ..input
    };
    assert_eq!(
        select(CompactionPolicyKind::Exploring, &cfg, &after),
        CompactionDecision::None
    );

    // MIN_VERSIONS > 0, FOREVER, or the switch off: no whole-file expiry.
    let kept = SelectionInput {
        min_versions: 1,
        ..input
    };
    assert!(expired_files(&cfg, &kept).is_empty());
    let forever = SelectionInput {
        ttl_ms: Some(i64::MAX),
        ..input
    };
    assert!(expired_files(&cfg, &forever).is_empty());
    let off = CompactionConfig {
        delete_expired_storefile: false,
        ..cfg
    };
    assert!(expired_files(&off, &input).is_empty());
    // Without expiry the three files make an ordinary selection.
    assert_eq!(
        select(CompactionPolicyKind::Exploring, &off, &input),
        CompactionDecision::Major(vec![0, 1, 2])
    );
}

/// Period 1 ms, no jitter: only the file rules decide.
fn due_cfg() -> CompactionConfig {
    CompactionConfig {
        major_compaction_period_ms: 1,
        major_compaction_jitter: 0.0,
        ..test_cfg()
    }
}

#[test]
fn single_file_majors_follow_the_ttl() {
    let cfg = due_cfg();
    let mut one = files(&[10]);
    one[0].major_compaction = true;
    one[0].min_timestamp = NOW - 2_000;
    assert!(
        !should_major_compact(&cfg, &one, NOW, None),
        "a lone major output is not redone without a TTL"
    );
    assert!(
        !should_major_compact(&cfg, &one, NOW, Some(5_000)),
        "cells younger than TTL"
    );
    assert!(
        should_major_compact(&cfg, &one, NOW, Some(1_000)),
        "oldest cell past the TTL"
    );
    assert!(
        !should_major_compact(&cfg, &one, NOW, Some(2_000)),
        "exactly the TTL: neither branch"
    );

    one[0].major_compaction = false;
    assert!(
        !should_major_compact(&cfg, &one, NOW, None),
        "a lone minor output is redone only for the TTL"
    );
    assert!(should_major_compact(&cfg, &one, NOW, Some(1_000)));

    let two = files(&[10, 10]);
    assert!(should_major_compact(&cfg, &two, NOW, None));
}

#[test]
fn time_based_major_needs_a_positive_old_modification_time() {
    let cfg = due_cfg();
    let mut fs = files(&[10, 10]);
    fs[0].modification_time_ms = NOW;
    fs[1].modification_time_ms = NOW;
    assert!(
        !should_major_compact(&cfg, &fs, NOW, None),
        "written just now"
    );
    fs[0].modification_time_ms = 0;
    assert!(
        !should_major_compact(&cfg, &fs, NOW, None),
        "unknown mtime (0)"
    );
    fs[0].modification_time_ms = NOW - 2;
    assert!(should_major_compact(&cfg, &fs, NOW, None));

    let off = CompactionConfig {
        major_compaction_period_ms: 0,
        ..cfg
    };
    assert!(!should_major_compact(&off, &fs, NOW, None));
    assert!(!should_major_compact(&cfg, &[], NOW, None));
    // HBase quirk: only 0 disables; a negative period makes every check due.
    let negative = CompactionConfig {
        major_compaction_period_ms: -1,
        ..cfg
    };
    assert!(should_major_compact(&negative, &fs, NOW, None));
    assert_eq!(major_compaction_interval_bounds(&negative), None);
}

#[test]
fn time_based_major_is_downgraded_at_max_files_and_made_with_fewer() {
    let cfg = CompactionConfig {
        major_compaction_period_ms: 1,
        major_compaction_jitter: 0.0,
        ..test_cfg()
    };
    let fs = files(&[50, 25, 12, 12]);
    let s = pick(&cfg, &SelectionInput::new(&fs, NOW));
    assert!(s.is_major);
    assert_eq!(s.files, vec![0, 1, 2, 3]);
}

#[test]
fn jitter_is_javas_random_seeded_by_the_oldest_file_name() {
    assert_eq!(java_string_hash("hello"), 99_162_322);
    assert_eq!(java_string_hash(""), 0);
    let cfg = CompactionConfig::default();
    // new Random(99162322).nextDouble() = 0.3571948252764453:
    // 604800000 + 302400000 − round(604800000 × r).
    assert_eq!(
        next_major_compaction_interval(&cfg, Some(java_string_hash("hello"))),
        691_168_570
    );
    // new Random(0).nextDouble() = 0.730967787376657.
    assert_eq!(
        next_major_compaction_interval(&cfg, Some(0)),
        604_800_000 + 302_400_000 - 442_089_318
    );
    assert_eq!(
        next_major_compaction_interval(&cfg, None),
        0,
        "no files, no seed"
    );
    let (lo, hi) = major_compaction_interval_bounds(&cfg).unwrap_or_default();
    for i in 0..2000 {
        let v = next_major_compaction_interval(&cfg, Some(java_string_hash(&format!("f{i}"))));
        assert!((lo..=hi).contains(&v), "{v} outside [{lo}, {hi}]");
    }
    let no_jitter = CompactionConfig {
        major_compaction_jitter: 0.0,
        ..cfg
    };
    assert_eq!(
        next_major_compaction_interval(&no_jitter, None),
        604_800_000
    );
}

#[test]
fn off_peak_needs_the_hour_and_the_free_slot() {
    let cfg = CompactionConfig {
        offpeak_start_hour: 1,
        offpeak_end_hour: 5,
        ..test_cfg()
    };
    let fs = files(&[999, 50, 12, 12, 1]);
    let at = |hour: u32, slot: bool| SelectionInput {
        current_hour: hour,
        off_peak_available: slot,
        ..SelectionInput::new(&fs, NOW)
    };
    let s = pick(&cfg, &at(2, true));
    assert_eq!(s.files, vec![1, 2, 3, 4]);
    assert!(s.off_peak);
    let s = pick(&cfg, &at(2, false));
    assert_eq!(
        s.files,
        vec![2, 3, 4],
        "another off-peak compaction holds the slot"
    );
    assert!(!s.off_peak);
    let s = pick(&cfg, &at(5, true));
    assert_eq!(s.files, vec![2, 3, 4]);
    assert!(!s.off_peak);

    // An off-peak pick of every file does not take the slot.
    let all = files(&[50, 12, 12, 1]);
    let s = pick(
        &cfg,
        &SelectionInput {
            files: &all,
            ..at(2, true)
        },
    );
    assert_eq!(s.files, vec![0, 1, 2, 3]);
    assert!(s.all_files && !s.off_peak);
}

#[test]
fn off_peak_size_cap_applies_off_peak() {
    let cfg = CompactionConfig {
        offpeak_start_hour: 22,
        offpeak_end_hour: 3,
        max_compact_size: 100,
        max_compact_size_offpeak: 1000,
        ..test_cfg()
    };
    let fs = files(&[200, 100, 100, 100]);
    let input = SelectionInput {
        current_hour: 23,
        ..SelectionInput::new(&fs, NOW)
    };
    assert_eq!(pick(&cfg, &input).files, vec![0, 1, 2, 3]);
    let day = SelectionInput {
        current_hour: 12,
        ..input
    };
    assert!(
        pick(&cfg, &day).files.is_empty(),
        "200 skipped, 300 over the cap"
    );
}

#[test]
fn stuck_fallback_ignores_the_size_cap() {
    // Every 3-file window (3000) is over the 2100 cap. Not stuck: nothing (dcs-10). Stuck
    // (10 files ≥ blocking 10): the first smallest window.
    let cfg = test_cfg();
    let fs = files(&[1000; 10]);
    let s = pick(&cfg, &SelectionInput::new(&fs, NOW));
    assert!(s.may_be_stuck);
    assert_eq!(s.files, vec![0, 1, 2]);
    let fewer = &fs[..9];
    assert!(
        pick(&cfg, &SelectionInput::new(fewer, NOW))
            .files
            .is_empty()
    );
}

#[test]
fn ratio_is_the_java_float_not_the_decimal() {
    // 60_000_001 ≤ 50_000_000 × 1.2F (= 60_000_002.38…) but > 50_000_000 × 1.2.
    let cfg = CompactionConfig {
        min_files: 3,
        min_compact_size: 1,
        ..CompactionConfig::default()
    };
    let sizes = [60_000_001, 25_000_000, 25_000_000];
    assert_eq!(exploring_window(&cfg, &sizes, false, false), 0..3);
    // Ratio-based: (long)(50_000_000 × 1.2F) = 60_000_002, so 60_000_002 is not skipped.
    let sizes = [60_000_002, 25_000_000, 25_000_000];
    assert_eq!(ratio_based_start(&cfg, &sizes, false, false), 0);
    let sizes = [60_000_003, 25_000_000, 25_000_000];
    assert_eq!(ratio_based_start(&cfg, &sizes, false, false), 1);
}

#[test]
fn ratio_based_counts_only_the_next_max_files_minus_one() {
    // max 3: file 0 is compared with files 1..=2 only (20), not with the 1000 after them.
    let cfg = CompactionConfig {
        min_files: 2,
        max_files: 3,
        ratio: 1.0,
        min_compact_size: 1,
        ..CompactionConfig::default()
    };
    assert_eq!(
        ratio_based_start(&cfg, &[100, 10, 10, 1000], false, false),
        1
    );
    assert_eq!(
        ratio_based_start(&cfg, &[20, 10, 10, 1000], false, false),
        0
    );
    assert_eq!(ratio_based_start(&cfg, &[], false, true), 0);
}

#[test]
fn priorities_and_blocking() {
    let cfg = CompactionConfig::default();
    assert_eq!(compact_priority(&cfg, 0), 16);
    assert_eq!(
        compact_priority(&cfg, 15),
        2,
        "1 is reserved for user requests"
    );
    assert_eq!(compact_priority(&cfg, 16), 0);
    assert_eq!(compact_priority(&cfg, 20), -4);
    assert_eq!(request_priority(&cfg, 20, true, false), PRIORITY_USER);
    assert_eq!(request_priority(&cfg, 5, false, false), 11);
    assert_eq!(
        request_priority(&cfg, 5, true, true),
        SPLIT_REGION_COMPACTION_PRIORITY
    );
    assert_eq!(region_compact_priority([11, 2, 7]), 2);
    assert_eq!(region_compact_priority([]), i32::MAX);
    assert!(split_allowed_by_priority(2));
    assert!(split_allowed_by_priority(PRIORITY_USER));
    assert!(!split_allowed_by_priority(0));
    assert!(!has_too_many_store_files(&cfg, 16));
    assert!(has_too_many_store_files(&cfg, 17));
    assert!(
        may_be_stuck(&cfg, 16, 0),
        "stuck uses ≥, the flusher uses >"
    );
}

#[test]
fn pressure_and_pool() {
    let cfg = CompactionConfig::default();
    assert_eq!(compaction_pressure(&cfg, 3), 0.0);
    assert_eq!(compaction_pressure(&cfg, 4), 1.0 / 13.0);
    assert_eq!(compaction_pressure(&cfg, 16), 1.0);
    assert!(compaction_pressure(&cfg, 20) > 1.0);
    assert!(!is_large_compaction(&cfg, 2_684_354_560));
    assert!(is_large_compaction(&cfg, 2_684_354_561));
}

#[test]
fn needs_compaction_counts_files_not_compacting() {
    let cfg = CompactionConfig::default();
    assert!(!needs_compaction(&cfg, 2, 0));
    assert!(needs_compaction(&cfg, 3, 0));
    assert!(!needs_compaction(&cfg, 5, 3));
    assert!(!needs_compaction(&cfg, 2, 5), "no underflow");
}

#[test]
fn empty_store_selects_nothing_even_for_a_user_major() {
    let cfg = test_cfg();
    let input = SelectionInput {
        is_user_compaction: true,
        force_major: true,
        ..SelectionInput::new(&[], NOW)
    };
    assert_eq!(
        select(CompactionPolicyKind::Exploring, &cfg, &input),
        CompactionDecision::None
    );
    assert_eq!(
        select(CompactionPolicyKind::RatioBased, &cfg, &input),
        CompactionDecision::None
    );
}

#[test]
fn user_minor_is_capped_and_system_minor_too() {
    // RatioBased picks everything from the first qualifying file; the cap keeps the oldest.
    let cfg = test_cfg();
    let fs = files(&[7, 6, 5, 4, 3, 2, 1]);
    let user = SelectionInput {
        is_user_compaction: true,
        ..SelectionInput::new(&fs, NOW)
    };
    let s = select_compaction(CompactionPolicyKind::RatioBased, &cfg, &user);
    assert_eq!(s.files, vec![0, 1, 2, 3, 4]);
}

#[test]
fn policy_class_names() {
    assert_eq!(
        CompactionPolicyKind::default(),
        CompactionPolicyKind::Exploring
    );
    assert!(
        CompactionPolicyKind::RatioBased
            .hbase_class()
            .ends_with(".RatioBasedCompactionPolicy")
    );
}
