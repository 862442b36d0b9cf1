//! Unit tests of the split math: HBase's `TestRegionSplitter` assertions that apply,
//! worked examples of the `BigInteger` arithmetic (written out in the comments), the
//! policy rules of HBase policies notes §5 that the shared vectors (run in
//! `tests/split_vectors.rs`) do not pin down, and no-panic properties.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;
use proptest::prelude::*;
use std::collections::BTreeMap;

const MIB: u64 = 1024 * 1024;
const GIB: u64 = 1024 * MIB;
/// The largest value of Java's `Random.nextFloat()`, 1 − 2⁻²⁴.
const MAX_DRAW: f64 = 1.0 - 1.0 / 16_777_216.0;

fn strs(keys: &[Vec<u8>]) -> Vec<String> {
    keys.iter()
        .map(|k| String::from_utf8(k.clone()).unwrap())
        .collect()
}

fn rows(keys: &[&str]) -> Vec<Vec<u8>> {
    keys.iter().map(|k| k.as_bytes().to_vec()).collect()
}

// ------------------------------------------------------------------- RegionSplitter

#[test]
fn hex_string_split_counts() {
    let hex = SplitAlgorithm::hex_string();
    // range = 0xFFFFFFFF − 0 + 1 = 2³² = 4294967296.
    // n=2: step 2³¹ = 0x80000000.
    assert_eq!(strs(&hex.split(2).unwrap()), ["80000000"]);
    // n=3 (TestRegionSplitter): step ⌊2³²/3⌋ = 1431655765 = 0x55555555.
    assert_eq!(strs(&hex.split(3).unwrap()), ["55555555", "aaaaaaaa"]);
    // n=4: step 2³⁰ = 0x40000000.
    assert_eq!(
        strs(&hex.split(4).unwrap()),
        ["40000000", "80000000", "c0000000"]
    );
    // n=5: step ⌊2³²/5⌋ = 858993459 = 0x33333333 (remainder 1 goes to the last region).
    assert_eq!(
        strs(&hex.split(5).unwrap()),
        ["33333333", "66666666", "99999999", "cccccccc"]
    );
    // n=10: step ⌊2³²/10⌋ = 429496729 = 0x19999999; 2× = 0x33333332, …, 9× = 0xe6666661.
    assert_eq!(
        strs(&hex.split(10).unwrap()),
        [
            "19999999", "33333332", "4ccccccb", "66666664", "7ffffffd", "99999996", "b333332f",
            "ccccccc8", "e6666661"
        ]
    );
    // n=16: step 2²⁸ = 0x10000000 (TestRegionSplitter.testCreatePresplitTableHex).
    let sixteen = strs(&hex.split(16).unwrap());
    let expected: Vec<String> = (1..16u32).map(|i| format!("{:x}0000000", i)).collect();
    assert_eq!(sixteen, expected);
    // One region: no keys. Zero: refused (HBase fails allocating a −1 array).
    assert!(hex.split(1).unwrap().is_empty());
    assert_eq!(
        hex.split(0),
        Err(SplitError::TooFewRegions { min: 1, got: 0 })
    );
}

#[test]
fn hex_string_split_rows() {
    // TestRegionSplitter.unitTestHexStringSplit.
    let hex = SplitAlgorithm::hex_string();
    assert_eq!(hex.first_row(), b"00000000");
    assert_eq!(hex.last_row(), b"ffffffff");
    assert_eq!(hex.split2(b"10000000", b"30000000").unwrap(), b"20000000");
    assert_eq!(hex.split2(b"00000000", b"20000000").unwrap(), b"10000000");
    // (0xdfffffff + 0xffffffff) / 2 = 0x1dffffffe / 2 = 0xefffffff.
    assert_eq!(hex.split2(b"dfffffff", b"ffffffff").unwrap(), b"efffffff");
    // An empty start counts as 0; upper-case input is fine; the result is lower case.
    assert_eq!(hex.split2(b"", b"A0000000").unwrap(), b"50000000");
    // An empty (or zero) end is HBase's precondition failure.
    assert_eq!(
        hex.split2(b"10", b""),
        Err(SplitError::ZeroEndRow("HexStringSplit"))
    );
    assert!(matches!(
        hex.split2(b"xyz", b"ff"),
        Err(SplitError::InvalidRow { .. })
    ));
    assert!(matches!(
        hex.split2(b"10", &[0xff, 0xfe]),
        Err(SplitError::InvalidRow { .. })
    ));
}

/// `TestRegionSplitter.testUserInput`: which first/last rows and counts pass the
/// preconditions of `split(n)`.
fn fails(kind: SplitAlgorithmKind, first: &str, last: &str, n: usize) -> bool {
    let mut algo = SplitAlgorithm::of_kind(kind);
    algo.set_first_row(first).unwrap();
    algo.set_last_row(last).unwrap();
    algo.split(n).is_err()
}

#[test]
fn user_input_preconditions() {
    use SplitAlgorithmKind::*;
    assert!(SplitAlgorithm::hex_string().split(100).is_ok());
    assert!(!fails(HexString, "00", "AA", 100));
    assert!(fails(HexString, "AA", "00", 100));
    assert!(fails(HexString, "AA", "AA", 100));
    assert!(!fails(HexString, "0", "2", 3));
    assert!(!fails(HexString, "0", "A", 11));
    assert!(fails(HexString, "0", "A", 12), "too granular");

    assert!(SplitAlgorithm::decimal_string().split(100).is_ok());
    assert!(!fails(DecimalString, "00", "99", 100));
    assert!(fails(DecimalString, "99", "00", 100));
    assert!(fails(DecimalString, "99", "99", 100));
    assert!(!fails(DecimalString, "0", "2", 3));
    assert!(!fails(DecimalString, "0", "9", 10));
    assert!(fails(DecimalString, "0", "9", 11), "too granular");

    assert!(SplitAlgorithm::uniform().split(100).is_ok());
    assert!(!fails(Uniform, "\\x00", "\\xAA", 100));
    assert!(fails(Uniform, "\\xAA", "\\x00", 100));
    assert!(fails(Uniform, "\\xAA", "\\xAA", 100));
    assert!(!fails(Uniform, "\\x00", "\\x02", 3));
    assert!(!fails(Uniform, "\\x00", "\\x0A", 11));
    // Bytes.split widens the rows, so uniform is never too granular.
    assert!(!fails(Uniform, "\\x00", "\\x0A", 12));

    // The messages are HBase's.
    let mut hex = SplitAlgorithm::hex_string();
    hex.set_first_row("0").unwrap();
    hex.set_last_row("A").unwrap();
    assert_eq!(
        hex.split(12).unwrap_err().to_string(),
        "split granularity (12) is greater than the range (11)"
    );
    hex.set_first_row("B").unwrap();
    assert_eq!(
        hex.split(2).unwrap_err().to_string(),
        "last row (A) is configured less than first row (B)"
    );
}

#[test]
fn custom_rows_set_the_key_width() {
    // The last row's length is the key width: "0".."2" in 3 regions gives "1", "2".
    let mut hex = SplitAlgorithm::hex_string();
    hex.set_first_row("0").unwrap();
    hex.set_last_row("2").unwrap();
    assert_eq!(strs(&hex.split(3).unwrap()), ["1", "2"]);
    assert_eq!(hex.first_row(), b"0");
    // "00".."AA": range 171, step ⌊171/3⌋ = 57 = 0x39 → "39", "72".
    hex.set_last_row("AA").unwrap();
    hex.set_first_row("00").unwrap();
    assert_eq!(strs(&hex.split(3).unwrap()), ["39", "72"]);
    assert_eq!(hex.last_row(), b"aa");
    // firstRow() prints the value, not the string typed.
    hex.set_first_row("+000A").unwrap();
    assert_eq!(hex.first_row(), b"0a");
    for bad in ["", "-1", "0x10", "g", "+"] {
        assert!(
            matches!(hex.set_first_row(bad), Err(SplitError::InvalidRow { .. })),
            "{bad:?}"
        );
    }
    let mut uniform = SplitAlgorithm::uniform();
    assert!(uniform.set_last_row("\\x0").is_err());
    uniform.set_last_row("ab\\x00").unwrap();
    assert_eq!(uniform.last_row(), b"ab\x00");
}

#[test]
fn decimal_string_split() {
    let dec = SplitAlgorithm::decimal_string();
    // range = 99999999 + 1 = 10⁸. n=2: step 5·10⁷.
    assert_eq!(strs(&dec.split(2).unwrap()), ["50000000"]);
    // n=3: step ⌊10⁸/3⌋ = 33333333.
    assert_eq!(strs(&dec.split(3).unwrap()), ["33333333", "66666666"]);
    // n=7: step ⌊10⁸/7⌋ = 14285714.
    assert_eq!(
        strs(&dec.split(7).unwrap()),
        [
            "14285714", "28571428", "42857142", "57142856", "71428570", "85714284"
        ]
    );
    let ten: Vec<String> = (1..10).map(|i| format!("{i}0000000")).collect();
    assert_eq!(strs(&dec.split(10).unwrap()), ten);
    // TestRegionSplitter.unitTestDecimalStringSplit.
    assert_eq!(dec.first_row(), b"00000000");
    assert_eq!(dec.last_row(), b"99999999");
    assert_eq!(dec.split2(b"10000000", b"30000000").unwrap(), b"20000000");
    assert_eq!(dec.split2(b"00000000", b"20000000").unwrap(), b"10000000");
    // (19999999 + 99999999) / 2 = 59999999.
    assert_eq!(dec.split2(b"19999999", b"99999999").unwrap(), b"59999999");
    assert!(dec.split2(b"1a", b"99").is_err());
}

#[test]
fn uniform_split() {
    let uni = SplitAlgorithm::uniform();
    // Bytes.split("", FF×8, inclusive, n−1): diff = (2⁶⁴ − 1) − 0 + 1 = 2⁶⁴.
    // n=1 → num 0 and n=0 are refused (TestRegionSplitter expects an exception).
    assert_eq!(uni.split(1), Err(SplitError::NoSplitPoints));
    assert_eq!(uni.split(0), Err(SplitError::NoSplitPoints));
    // n=2: 2⁶⁴/2 = 0x8000000000000000.
    assert_eq!(uni.split(2).unwrap(), [vec![0x80, 0, 0, 0, 0, 0, 0, 0]]);
    // n=3: ⌊2⁶⁴/3⌋ = 0x5555555555555555.
    assert_eq!(uni.split(3).unwrap(), [vec![0x55; 8], vec![0xaa; 8]]);
    // n=16: 2⁶⁰ steps (TestRegionSplitter.testCreatePresplitTableUniform).
    let sixteen: Vec<Vec<u8>> = (1..16u8)
        .map(|i| {
            let mut k = vec![0; 8];
            k[0] = i << 4;
            k
        })
        .collect();
    assert_eq!(uni.split(16).unwrap(), sixteen);
    // TestRegionSplitter.unitTestUniformSplit.
    assert_eq!(uni.first_row(), b"");
    assert_eq!(uni.last_row(), [0xff; 8]);
    assert_eq!(uni.split2(&[0x10], &[0x30]).unwrap(), [0x20]);
    assert_eq!(uni.split2(b"", &[0x20]).unwrap(), [0x10]);
    let mut df = vec![0xff; 8];
    df[0] = 0xdf;
    let mut ef = vec![0xff; 8];
    ef[0] = 0xef;
    assert_eq!(uni.split2(&df, &[0xff; 8]).unwrap(), ef);
    assert_eq!(uni.split2(b"aaa", b"aab").unwrap(), b"aaa\x80");
    assert!(matches!(
        uni.split2(b"b", b"a"),
        Err(SplitError::EndNotAfterStart { .. })
    ));
}

#[test]
fn algorithm_names() {
    for (name, kind) in [
        ("HexStringSplit", SplitAlgorithmKind::HexString),
        ("DecimalStringSplit", SplitAlgorithmKind::DecimalString),
        ("UniformSplit", SplitAlgorithmKind::Uniform),
        (
            "org.apache.hadoop.hbase.util.RegionSplitter$HexStringSplit",
            SplitAlgorithmKind::HexString,
        ),
        (
            "org.apache.hadoop.hbase.util.RegionSplitter$DecimalStringSplit",
            SplitAlgorithmKind::DecimalString,
        ),
        (
            "org.apache.hadoop.hbase.util.RegionSplitter$UniformSplit",
            SplitAlgorithmKind::Uniform,
        ),
    ] {
        let algo = SplitAlgorithm::from_name(name).unwrap();
        assert_eq!(algo.kind(), kind);
        assert_eq!(algo, SplitAlgorithm::of_kind(kind));
        assert!(name.ends_with(algo.name()));
        assert!(kind.class_name().ends_with(kind.name()));
    }
    for bad in [
        "hexstringsplit",
        "RegionSplitter.HexStringSplit",
        "org.apache.hadoop.hbase.util.RegionSplitter.HexStringSplit",
        "",
    ] {
        assert_eq!(
            SplitAlgorithm::from_name(bad),
            Err(SplitError::UnknownAlgorithm(bad.to_string()))
        );
    }
}

#[test]
fn split_keys_for_a_key_range() {
    // 5 regions: Bytes.split("a", "z", 2): diff 0x7a − 0x61 = 25, interval ⌊25/3⌋ = 8 →
    // 'a'+8 = 'i', 'a'+16 = 'q'; with the ends, 4 keys for 5 regions.
    assert_eq!(
        split_keys_for_range(b"a", b"z", 5).unwrap(),
        rows(&["a", "i", "q", "z"])
    );
    // 3 regions: just the two ends.
    assert_eq!(
        split_keys_for_range(b"a", b"b", 3).unwrap(),
        rows(&["a", "b"])
    );
    // "aaa".."aab" in 5 regions: diff 1 < 3, so both grow a 0x00 byte: 0x61616100 ..
    // 0x61616200, diff 256, interval 85 = 0x55 → …55, …aa; the ends come back padded.
    assert_eq!(
        split_keys_for_range(b"aaa", b"aab", 5).unwrap(),
        [
            b"aaa\x00".to_vec(),
            b"aaa\x55".to_vec(),
            b"aaa\xaa".to_vec(),
            b"aab\x00".to_vec()
        ]
    );
    // The count of keys is always numRegions − 1.
    assert_eq!(
        split_keys_for_range(b"\x00", b"\xff", 100).unwrap().len(),
        99
    );
    assert_eq!(
        split_keys_for_range(b"a", b"z", 2),
        Err(SplitError::TooFewRegions { min: 3, got: 2 })
    );
    assert_eq!(
        split_keys_for_range(b"a", b"z", 2).unwrap_err().to_string(),
        "must create at least 3 regions, got 2"
    );
    assert_eq!(
        split_keys_for_range(b"z", b"a", 4),
        Err(SplitError::StartNotBeforeEnd)
    );
    assert_eq!(
        split_keys_for_range(b"a", b"a", 4),
        Err(SplitError::StartNotBeforeEnd)
    );
    // "a" < "a\0" unpadded, but equal once padded: Bytes.split refuses it.
    assert!(matches!(
        split_keys_for_range(b"a", b"a\x00", 4),
        Err(SplitError::EndNotAfterStart { .. })
    ));
}

#[test]
fn bytes_split_rules() {
    // Unpadded ends come back as given: "a" and "abc" pad to 0x610000 .. 0x616263,
    // diff 0x6263 = 25187, interval 12593 = 0x3131 → "a11".
    assert_eq!(
        bytes_split(b"a", b"abc", false, 1).unwrap(),
        rows(&["a", "a11", "abc"])
    );
    // Inclusive adds one to the room: 00..02 exclusive with 2 keys has room 2 < 3 and
    // widens; inclusive has room 3 and does not, and its last inner key is the end itself
    // (the end row counts as part of the range).
    assert_eq!(
        bytes_split(&[0], &[2], true, 2).unwrap(),
        [vec![0], vec![1], vec![2], vec![2]]
    );
    assert_eq!(
        bytes_split(&[0], &[2], false, 2).unwrap(),
        [vec![0, 0], vec![0, 0xaa], vec![1, 0x54], vec![2, 0]]
    );
    assert_eq!(
        bytes_split(b"", b"", false, 1),
        Err(SplitError::EndNotAfterStart {
            start: String::new(),
            end: String::new()
        })
    );
    assert_eq!(
        bytes_split(b"a", b"b", false, 0),
        Err(SplitError::NoSplitPoints)
    );
    assert_eq!(
        bytes_split(b"a", b"b", false, usize::MAX),
        Err(SplitError::TooMany(usize::MAX))
    );
}

// ------------------------------------------------------------------------ policies

fn config(flush: u64, max: u64) -> SplitConfig {
    SplitConfig {
        memstore_flush_size: flush,
        max_file_size: max,
        max_file_size_jitter_rate: 0.0,
        initial_size: None,
        overall_files: false,
    }
}

#[test]
fn increasing_to_upper_bound_sequence() {
    // 128 MiB flush, 10 GiB max, no jitter: min(10 GiB, 2 × 128 MiB × R³).
    let c = config(128 * MIB, 10 * GIB);
    let desired = desired_max_file_size(&c, 0.5);
    assert_eq!(desired, 10_737_418_240);
    let thresholds: Vec<u64> = (1..=10)
        .map(|r| size_to_check(&SplitPolicy::IncreasingToUpperBound, &c, desired, r))
        .collect();
    assert_eq!(
        thresholds,
        [
            268_435_456,    // 1: 256 MiB
            2_147_483_648,  // 2: 256 MiB × 8 = 2048 MiB
            7_247_757_312,  // 3: 256 MiB × 27 = 6912 MiB
            10_737_418_240, // 4: 256 MiB × 64 = 16384 MiB > 10240 MiB
            10_737_418_240,
            10_737_418_240,
            10_737_418_240,
            10_737_418_240,
            10_737_418_240,
            10_737_418_240,
        ]
    );
    // Busy uses the same sizes; prefix policies their (Stepping) base's.
    assert_eq!(
        size_to_check(&SplitPolicy::Busy, &c, desired, 3),
        7_247_757_312
    );
}

#[test]
fn jitter_is_drawn_once_and_bounded() {
    let c = SplitConfig::default();
    // rate = (draw − 0.5) × 0.25; size += (long)(size × rate).
    // draw 0: rate −0.125 → 10 GiB − 1280 MiB = 8960 MiB.
    assert_eq!(desired_max_file_size(&c, 0.0), 9_395_240_960);
    assert_eq!(desired_max_file_size(&c, 0.5), 10_737_418_240);
    // Largest draw 1 − 2⁻²⁴: rate 0.125 − 2⁻²⁶; 10 GiB × rate = 1342177280 − 160.
    assert_eq!(desired_max_file_size(&c, MAX_DRAW), 12_079_595_360);
    // Overflow saturates at Long.MAX_VALUE.
    let huge = SplitConfig {
        max_file_size: i64::MAX as u64,
        ..c
    };
    assert_eq!(desired_max_file_size(&huge, 0.9), i64::MAX as u64);
    assert_eq!(
        desired_max_file_size(
            &SplitConfig {
                max_file_size: u64::MAX,
                ..c
            },
            0.5
        ),
        i64::MAX as u64
    );
    // A jitter rate above 2 can drive Java's size negative; we stop at 0.
    let wild = SplitConfig {
        max_file_size_jitter_rate: 4.0,
        ..c
    };
    assert_eq!(desired_max_file_size(&wild, 0.0), 0);
    // A NaN draw leaves the size alone ((long) NaN is 0), and 0 means HBase's default.
    assert_eq!(desired_max_file_size(&c, f64::NAN), 10 * GIB);
    assert_eq!(
        desired_max_file_size(
            &SplitConfig {
                max_file_size: 0,
                ..c
            },
            0.5
        ),
        10 * GIB
    );
}

#[test]
fn stepping_and_initial_size() {
    let c = config(128 * MIB, 10 * GIB);
    let d = 10 * GIB;
    let stepping = SplitPolicy::Stepping;
    assert_eq!(size_to_check(&stepping, &c, d, 0), d);
    assert_eq!(size_to_check(&stepping, &c, d, 1), 256 * MIB);
    assert_eq!(size_to_check(&stepping, &c, d, 2), d);
    // Stepping's first step is not capped by the maximum, unlike the increasing policy.
    let small = config(128 * MIB, 100 * MIB);
    assert_eq!(size_to_check(&stepping, &small, 100 * MIB, 1), 256 * MIB);
    assert_eq!(
        size_to_check(&SplitPolicy::IncreasingToUpperBound, &small, 100 * MIB, 1),
        100 * MIB
    );
    // ConstantSize and Disabled ignore the region count.
    assert_eq!(size_to_check(&SplitPolicy::ConstantSize, &c, d, 1), d);
    assert_eq!(size_to_check(&SplitPolicy::Disabled, &c, d, 1), d);
    // initial.size wins when positive; 0 means unset; a flush size of 0 means 128 MiB.
    let init = |s| SplitConfig {
        initial_size: s,
        ..c
    };
    assert_eq!(initial_size(&init(Some(MIB))), MIB);
    assert_eq!(initial_size(&init(Some(0))), 256 * MIB);
    assert_eq!(initial_size(&config(0, d)), 256 * MIB);
    assert_eq!(initial_size(&config(64 * MIB, d)), 128 * MIB);
    // R > 100 stops the cube; R³ × initial is multiplied unchecked, as HBase does:
    // 2⁶² × 2 × 2 × 2 wraps to 0 in a Java long.
    assert_eq!(
        size_to_check(&SplitPolicy::IncreasingToUpperBound, &c, d, 101),
        d
    );
    let wraps = init(Some(1 << 62));
    assert_eq!(
        size_to_check(&SplitPolicy::IncreasingToUpperBound, &wraps, d, 2),
        0
    );
}

#[test]
fn should_split_rules() {
    let per_store = config(128 * MIB, 1000);
    let overall = SplitConfig {
        overall_files: true,
        ..per_store
    };
    let constant = SplitPolicy::ConstantSize;
    assert!(!should_split(
        &constant,
        &per_store,
        1000,
        5,
        &[600, 500],
        true
    ));
    assert!(should_split(
        &constant,
        &overall,
        1000,
        5,
        &[600, 500],
        true
    ));
    assert!(!should_split(&constant, &per_store, 1000, 5, &[1000], true));
    assert!(should_split(&constant, &per_store, 1000, 5, &[1001], true));
    assert!(!should_split(
        &constant,
        &per_store,
        1000,
        5,
        &[5000],
        false
    ));
    assert!(!should_split(&constant, &per_store, 1000, 5, &[], true));
    assert!(!should_split(
        &SplitPolicy::Disabled,
        &overall,
        0,
        1,
        &[u64::MAX, u64::MAX],
        true
    ));
    assert!(exceeds_size(u64::MAX - 1, true, &[u64::MAX, u64::MAX]));
    // A prefix policy decides with its base (Stepping by default): 256 MiB at R = 1.
    let prefix = SplitPolicy::from_class_name(
        "KeyPrefixRegionSplitPolicy",
        &values(&[("KeyPrefixRegionSplitPolicy.prefix_length", "4")]),
    )
    .unwrap();
    let c = config(128 * MIB, 10 * GIB);
    assert!(!should_split(&prefix, &c, 10 * GIB, 1, &[256 * MIB], true));
    assert!(should_split(
        &prefix,
        &c,
        10 * GIB,
        1,
        &[256 * MIB + 1],
        true
    ));
    assert!(!should_split(
        &prefix,
        &c,
        10 * GIB,
        2,
        &[256 * MIB + 1],
        true
    ));
}

fn values(kv: &[(&str, &str)]) -> BTreeMap<String, String> {
    kv.iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[test]
fn policy_class_names() {
    let none = BTreeMap::new();
    for (short, policy) in [
        ("ConstantSizeRegionSplitPolicy", SplitPolicy::ConstantSize),
        (
            "IncreasingToUpperBoundRegionSplitPolicy",
            SplitPolicy::IncreasingToUpperBound,
        ),
        ("SteppingSplitPolicy", SplitPolicy::Stepping),
        ("BusyRegionSplitPolicy", SplitPolicy::Busy),
        ("DisabledRegionSplitPolicy", SplitPolicy::Disabled),
    ] {
        let full = format!("org.apache.hadoop.hbase.regionserver.{short}");
        assert_eq!(SplitPolicy::from_class_name(short, &none).unwrap(), policy);
        assert_eq!(SplitPolicy::from_class_name(&full, &none).unwrap(), policy);
        assert_eq!(policy.class_name(), full);
        assert_eq!(policy.short_name(), short);
    }
    assert_eq!(SplitPolicy::default(), SplitPolicy::Stepping);
    for bad in [
        "Stepping",
        "org.apache.hadoop.hbase.regionserver.NoSuchPolicy",
        "org.apache.hadoop.hbase.util.SteppingSplitPolicy",
        "",
    ] {
        assert_eq!(
            SplitPolicy::from_class_name(bad, &none),
            Err(SplitError::UnknownPolicy(bad.to_string()))
        );
    }
    assert_eq!(
        SplitPolicy::from_class_name("NoSuch", &none)
            .unwrap_err()
            .to_string(),
        "Unable to load configured region split policy 'NoSuch'"
    );
}

#[test]
fn key_prefix_parameters() {
    let key_prefix = |kv: &[(&str, &str)]| {
        SplitPolicy::from_class_name(
            "org.apache.hadoop.hbase.regionserver.KeyPrefixRegionSplitPolicy",
            &values(kv),
        )
    };
    let stepping = Box::new(SplitPolicy::Stepping);
    assert_eq!(
        key_prefix(&[(policy::PREFIX_LENGTH_KEY, "3")]).unwrap(),
        SplitPolicy::KeyPrefix {
            prefix_length: 3,
            base: stepping.clone()
        }
    );
    // The deprecated key is read when the new one is absent; the new one wins.
    assert_eq!(
        key_prefix(&[(policy::PREFIX_LENGTH_KEY_DEPRECATED, "+2")]).unwrap(),
        SplitPolicy::KeyPrefix {
            prefix_length: 2,
            base: stepping.clone()
        }
    );
    assert_eq!(
        key_prefix(&[
            (policy::PREFIX_LENGTH_KEY_DEPRECATED, "2"),
            (policy::PREFIX_LENGTH_KEY, "5")
        ])
        .unwrap(),
        SplitPolicy::KeyPrefix {
            prefix_length: 5,
            base: stepping.clone()
        }
    );
    for (value, reason) in [
        (None, "not set"),
        (Some("x"), "not an int"),
        (Some(" 3"), "not an int"),
        (Some("3000000000"), "not an int"),
        (Some("0"), "not positive"),
        (Some("-4"), "not positive"),
    ] {
        let kv: Vec<(&str, &str)> = value
            .map(|v| (policy::PREFIX_LENGTH_KEY, v))
            .into_iter()
            .collect();
        assert_eq!(
            key_prefix(&kv),
            Err(SplitError::InvalidPolicyParameter {
                policy: "KeyPrefixRegionSplitPolicy",
                key: policy::PREFIX_LENGTH_KEY,
                value: value.map(str::to_string),
                reason,
            })
        );
    }
    assert_eq!(
        key_prefix(&[(policy::PREFIX_LENGTH_KEY, "x")])
            .unwrap_err()
            .to_string(),
        "KeyPrefixRegionSplitPolicy: KeyPrefixRegionSplitPolicy.prefix_length is not an int \
         (got \"x\")"
    );
    // The base policy: named, unresolvable (HBase falls back to Stepping), recursive.
    let with_base = |base| {
        key_prefix(&[
            (policy::PREFIX_LENGTH_KEY, "1"),
            (policy::KEY_PREFIX_BASE_POLICY_KEY, base),
        ])
    };
    assert_eq!(
        with_base("org.apache.hadoop.hbase.regionserver.ConstantSizeRegionSplitPolicy")
            .unwrap()
            .size_policy(),
        &SplitPolicy::ConstantSize
    );
    assert_eq!(
        with_base("com.example.Nope").unwrap().size_policy(),
        &SplitPolicy::Stepping
    );
    assert!(matches!(
        with_base("KeyPrefixRegionSplitPolicy"),
        Err(SplitError::InvalidPolicyParameter { .. })
    ));
}

#[test]
fn delimited_key_prefix_parameters() {
    let delimited = |kv: &[(&str, &str)]| {
        SplitPolicy::from_class_name("DelimitedKeyPrefixRegionSplitPolicy", &values(kv))
    };
    assert_eq!(
        delimited(&[(policy::DELIMITER_KEY, "_")]).unwrap(),
        SplitPolicy::DelimitedKeyPrefix {
            delimiter: b"_".to_vec(),
            base: Box::new(SplitPolicy::Stepping)
        }
    );
    assert!(delimited(&[]).is_err());
    assert!(delimited(&[(policy::DELIMITER_KEY, "")]).is_err());
    let busy_base = delimited(&[
        (policy::DELIMITER_KEY, "|"),
        (
            policy::DELIMITED_BASE_POLICY_KEY,
            "org.apache.hadoop.hbase.regionserver.BusyRegionSplitPolicy",
        ),
    ])
    .unwrap();
    assert_eq!(busy_base.size_policy(), &SplitPolicy::Busy);
    assert_eq!(
        busy_base.class_name(),
        "org.apache.hadoop.hbase.regionserver.DelimitedKeyPrefixRegionSplitPolicy"
    );
}

#[test]
fn split_point_adjustment() {
    let base = Box::new(SplitPolicy::Stepping);
    let prefix = SplitPolicy::KeyPrefix {
        prefix_length: 4,
        base: base.clone(),
    };
    assert_eq!(adjust_split_point(&prefix, b"abcdefg"), b"abcd");
    assert_eq!(adjust_split_point(&prefix, b"ab"), b"ab");
    assert_eq!(adjust_split_point(&prefix, b""), b"");
    let delimited = |d: &[u8]| SplitPolicy::DelimitedKeyPrefix {
        delimiter: d.to_vec(),
        base: base.clone(),
    };
    assert_eq!(
        adjust_split_point(&delimited(b"_"), b"user1_evt_2"),
        b"user1"
    );
    assert_eq!(adjust_split_point(&delimited(b"_"), b"user1"), b"user1");
    assert_eq!(adjust_split_point(&delimited(b"_"), b"_x"), b"");
    assert_eq!(adjust_split_point(&delimited(b"::"), b"a:b::c::d"), b"a:b");
    assert_eq!(adjust_split_point(&delimited(b"::"), b":"), b":");
    assert_eq!(adjust_split_point(&delimited(b""), b"a_b"), b"a_b");
    assert_eq!(adjust_split_point(&SplitPolicy::Stepping, b"a_b"), b"a_b");
}

#[test]
fn busy_policy_window() {
    let cfg = BusyConfig::default();
    assert_eq!(
        BusyConfig {
            max_blocked_requests: 1.0,
            aggregation_window_ms: 0,
            ..cfg
        }
        .sanitized(),
        cfg
    );
    let mut t = BusyTracker::new(0, 0, 0);
    // Younger than one window: rate 0.
    assert_eq!(t.update_rate(&cfg, 100_000, 10, 10), 0.0);
    // One full window: 50 blocked of 100 writes → 50 / 100.00001, stored; the mark moves.
    let r = t.update_rate(&cfg, 300_000, 50, 100);
    assert!((r - 0.5).abs() < 1e-6, "{r}");
    // Half a window later, no new blocked writes in 100: 0.5 × stored + 0.5 × 0.
    let r = t.update_rate(&cfg, 450_000, 50, 200);
    assert!((r - 0.25).abs() < 1e-6, "{r}");
    // Too young for a busy split (min age 10 min), though the rate is high.
    let mut t = BusyTracker::new(0, 0, 0);
    assert!(!t.should_split(&cfg, 300_000, (90, 100), false, true));
    // Old enough at 10 min, and a new window: 90 blocked of 100 writes, 0.9 ≥ 0.2.
    assert!(t.should_split(&cfg, 600_000, (180, 200), false, true));
    assert!(!t.should_split(&cfg, 600_000, (180, 200), false, false));
    // The size rule always wins.
    assert!(BusyTracker::new(0, 0, 0).should_split(&cfg, 1, (0, 0), true, false));
}

// ------------------------------------------------------------------------- midkeys

#[test]
fn midpoint_rows() {
    assert_eq!(midpoint_row(b"row-0499", b"row-0500"), b"row-05");
    assert_eq!(midpoint_row(b"abc", b"abe"), b"abd");
    // A prefix: left + 0x00 (HBase 2.x; older releases gave "abc").
    assert_eq!(midpoint_row(b"ab", b"abc"), b"ab\x00");
    assert_eq!(midpoint_row(b"", b"a"), b"\x00");
    assert_eq!(midpoint_row(&[0x61, 0xfe], &[0x61, 0xff]), [0x61, 0xff]);
    assert_eq!(midpoint_row(&[0x61, 0xff, 1], &[0x62]), [0x62]);
    assert_eq!(midpoint_row(&[0x80], &[0xf0]), [0x81]);
    // Equal rows keep the row; out-of-order input does not panic.
    assert_eq!(midpoint_row(b"same", b"same"), b"same");
    assert_eq!(midpoint_row(b"b", b"a"), b"a");
    assert_eq!(midpoint_row(b"abc", b"ab"), b"ab");
}

#[test]
fn midkeys_and_file_split_rows() {
    assert_eq!(midkey_block(0, false), None);
    assert_eq!(midkey_block(0, true), None);
    assert_eq!(midkey_block(7, false), Some(3));
    assert_eq!(midkey_block(7, true), Some(3));
    assert_eq!(midkey_block(8, false), Some(4));
    assert_eq!(midkey_block(8, true), Some(3));
    assert_eq!(file_split_row(b"a", b"z", b"m"), Some(b"m".to_vec()));
    assert_eq!(file_split_row(b"a", b"z", b"a"), None);
    assert_eq!(file_split_row(b"a", b"z", b"z"), None);
    // One huge row never splits.
    assert_eq!(file_split_row(b"r", b"r", b"r"), None);
}

// ----------------------------------------------------------------------- properties

proptest! {
    #[test]
    fn bytes_split_orders_its_keys(
        a in prop::collection::vec(any::<u8>(), 0..6),
        b in prop::collection::vec(any::<u8>(), 0..6),
        inclusive in any::<bool>(),
        num in 0usize..40,
    ) {
        let Ok(parts) = bytes_split(&a, &b, inclusive, num) else {
            return Ok(());
        };
        prop_assert_eq!(parts.len(), num + 2);
        let width = parts[1].len();
        let pad = |v: &[u8]| { let mut v = v.to_vec(); v.resize(width.max(v.len()), 0); v };
        let inner = &parts[1..=num];
        prop_assert!(inner.iter().all(|k| k.len() == width));
        prop_assert!(inner.windows(2).all(|w| w[0] < w[1]));
        prop_assert!(pad(&parts[0]) < inner[0]);
        let end = pad(&parts[num + 1]);
        if inclusive {
            prop_assert!(inner[num - 1] <= end);
        } else {
            prop_assert!(inner[num - 1] < end);
        }
    }

    #[test]
    fn midpoint_sorts_between(
        left in prop::collection::vec(any::<u8>(), 0..8),
        right in prop::collection::vec(any::<u8>(), 0..8),
    ) {
        let mid = midpoint_row(&left, &right);
        if left < right {
            prop_assert!(left < mid && mid <= right, "{:?} {:?} {:?}", left, right, mid);
        } else {
            prop_assert_eq!(mid, right);
        }
    }

    #[test]
    fn number_split_never_panics(first in "\\PC{0,12}", last in "\\PC{0,12}", n in 0usize..300) {
        let mut hex = SplitAlgorithm::hex_string();
        if hex.set_first_row(&first).is_ok()
            && hex.set_last_row(&last).is_ok()
            && let Ok(keys) = hex.split(n)
        {
            prop_assert_eq!(keys.len(), n - 1);
            prop_assert!(keys.windows(2).all(|w| w[0] < w[1]));
        }
        let _ = hex.split2(first.as_bytes(), last.as_bytes());
        let mut uni = SplitAlgorithm::uniform();
        if uni.set_first_row(&first).is_ok() && uni.set_last_row(&last).is_ok() {
            let _ = uni.split(n);
        }
    }
}
