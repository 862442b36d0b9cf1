//! The expectations of HBase's `TestFuzzyRowFilter`, `TestMultiRowRangeFilter`,
//! `TestDependentColumnFilter`, `TestRandomRowFilter` and the `DependentColumnFilter` case of
//! `TestParseFilter` (hbase-server/src/test/.../filter/), restated over regionkv's filters and
//! checked through the reference scan model; plus brute-force checks that the seek hints never
//! skip a row the filter would keep.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::fuzzy::{SatisfiesCode, next_for_fuzzy_rule, satisfies};
use super::model::run_scan;
use super::range::sort_and_merge;
use super::*;

fn cell(row: &[u8], family: &[u8], qualifier: &[u8], ts: i64, value: &[u8]) -> Cell {
    Cell::put(row, family, qualifier, ts, value).unwrap()
}

fn rows_of(rows: &[Vec<Cell>]) -> Vec<Vec<u8>> {
    rows.iter().map(|r| r[0].row().to_vec()).collect()
}

// ---------------------------------------------------------------------------------------------
// FuzzyRowFilter (TestFuzzyRowFilter)
// ---------------------------------------------------------------------------------------------

/// HBase's tests write masks in the preprocessed form: -1 (0xff) fixed, 0 free.
fn fixed_from_mask(mask: &[i8]) -> Vec<bool> {
    mask.iter().map(|&m| m == -1).collect()
}

/// The `satisfiesNoUnsafe` tables write the user form: 0 fixed, 1 free.
fn fixed_from_info(info: &[u8]) -> Vec<bool> {
    info.iter().map(|&m| m == 0).collect()
}

fn b(v: &[i32]) -> Vec<u8> {
    v.iter().map(|&x| x as u8).collect()
}

/// (row, key, info 0/1, expected).
type SatisfiesCase = (&'static [i32], &'static [i32], &'static [u8], SatisfiesCode);

#[test]
fn fuzzy_satisfies_forward() {
    use SatisfiesCode::{NextExists, Yes};
    // (row, key, info 0/1, expected): the satisfiesNoUnsafe table; the word-at-a-time table
    // of the same test has the same rows with -1/0 masks and the same answers.
    let cases: &[SatisfiesCase] = &[
        (&[1, -128, 1, 0, 1], &[1, 0, 1], &[0, 1, 0], Yes),
        (&[1, -128, 2, 0, 1], &[1, 0, 1], &[0, 1, 0], NextExists),
        (&[1, 2, 1, 3, 3], &[1, 2, 0, 3], &[0, 0, 1, 0], Yes),
        (&[1, 1, 1, 3, 0], &[1, 2, 0, 3], &[0, 0, 1, 0], NextExists),
        (&[1, 1, 1, 3, 0], &[1, 245, 0, 3], &[0, 0, 1, 0], NextExists),
        (&[1, 2, 1, 0, 1], &[0, 1, 2], &[1, 0, 0], NextExists),
    ];
    for (row, key, info, want) in cases {
        let got = satisfies(false, &b(row), &b(key), &fixed_from_info(info));
        assert_eq!(got, *want, "row {row:?} key {key:?}");
    }
}

#[test]
fn fuzzy_satisfies_reverse() {
    use SatisfiesCode::{NextExists, Yes};
    let cases: &[SatisfiesCase] = &[
        (&[1, -128, 1, 0, 1], &[1, 0, 1], &[0, 1, 0], Yes),
        (&[1, -128, 2, 0, 1], &[1, 0, 1], &[0, 1, 0], NextExists),
        (&[2, 3, 1, 1, 1], &[1, 0, 1], &[0, 1, 0], NextExists),
        (&[1, 2, 1, 3, 3], &[1, 2, 0, 3], &[0, 0, 1, 0], Yes),
        (&[1, 245, 1, 3, 0], &[1, 1, 0, 3], &[0, 0, 1, 0], NextExists),
        (&[1, 3, 1, 3, 0], &[1, 2, 0, 3], &[0, 0, 1, 0], NextExists),
        (&[2, 1, 1, 1, 0], &[1, 2, 0, 3], &[0, 0, 1, 0], NextExists),
        (&[1, 2, 1, 0, 1], &[0, 1, 2], &[1, 0, 0], NextExists),
    ];
    for (row, key, info, want) in cases {
        let got = satisfies(true, &b(row), &b(key), &fixed_from_info(info));
        assert_eq!(got, *want, "row {row:?} key {key:?}");
    }
}

/// (key, mask -1/0, current row, expected next row or None).
type NextCase = (
    &'static [i32],
    &'static [i8],
    &'static [i32],
    Option<&'static [i32]>,
);

fn check_next(reversed: bool, cases: &[NextCase]) {
    for (key, mask, row, want) in cases {
        let got = next_for_fuzzy_rule(reversed, &b(row), &b(key), &fixed_from_mask(mask));
        assert_eq!(
            got,
            want.map(b),
            "reversed={reversed} key {key:?} row {row:?}"
        );
    }
}

#[test]
fn fuzzy_next_row_forward() {
    check_next(
        false,
        &[
            (&[0, 1, 2], &[0, -1, -1], &[1, 2, 1, 0, 1], Some(&[2, 1, 2])),
            (
                &[0, 1, 2],
                &[0, -1, -1],
                &[1, 1, 2, 0, 1],
                Some(&[1, 1, 2, 0, 2]),
            ),
            (
                &[0, 1, 0, 2, 0],
                &[0, -1, 0, -1, 0],
                &[1, 0, 2, 0, 1],
                Some(&[1, 1, 0, 2]),
            ),
            (
                &[1, 0, 1],
                &[-1, 0, -1],
                &[1, 128, 2, 0, 1],
                Some(&[1, 129, 1]),
            ),
            (
                &[0, 1, 0, 1],
                &[0, -1, 0, -1],
                &[5, 1, 0, 1],
                Some(&[5, 1, 1, 1]),
            ),
            (
                &[0, 1, 0, 1],
                &[0, -1, 0, -1],
                &[5, 1, 0, 1, 1],
                Some(&[5, 1, 0, 1, 2]),
            ),
            (
                &[0, 1, 0, 0],
                &[0, -1, 0, 0],
                &[5, 1, 255, 1],
                Some(&[5, 1, 255, 2]),
            ),
            (
                &[0, 1, 0, 1],
                &[0, -1, 0, -1],
                &[5, 1, 255, 1],
                Some(&[6, 1, 0, 1]),
            ),
            (
                &[0, 1, 0, 1],
                &[0, -1, 0, -1],
                &[5, 1, 255, 0],
                Some(&[5, 1, 255, 1]),
            ),
            (
                &[5, 1, 1, 0],
                &[-1, -1, 0, 0],
                &[5, 1, 255, 1],
                Some(&[5, 1, 255, 2]),
            ),
            (
                &[1, 1, 1, 1],
                &[-1, -1, 0, 0],
                &[1, 1, 2, 2],
                Some(&[1, 1, 2, 3]),
            ),
            (
                &[1, 1, 1, 1],
                &[-1, -1, 0, 0],
                &[1, 1, 3, 2],
                Some(&[1, 1, 3, 3]),
            ),
            (
                &[1, 1, 1, 1],
                &[0, 0, 0, 0],
                &[1, 1, 2, 3],
                Some(&[1, 1, 2, 4]),
            ),
            (
                &[1, 1, 1, 1],
                &[0, 0, 0, 0],
                &[1, 1, 3, 2],
                Some(&[1, 1, 3, 3]),
            ),
            (&[1, 1, 0, 0], &[-1, -1, 0, 0], &[0, 1, 3, 2], Some(&[1, 1])),
            // No next row.
            (&[1, 0, 1], &[-1, 0, -1], &[2, 3, 1, 1, 1], None),
            (&[1, 1, 0, 3], &[-1, -1, 0, -1], &[1, 245, 1, 3, 0], None),
            (&[1, 2, 0, 3], &[-1, -1, 0, -1], &[1, 3, 1, 3, 0], None),
            (&[1, 2, 0, 3], &[-1, -1, 0, -1], &[2, 1, 1, 1, 0], None),
        ],
    );
}

#[test]
fn fuzzy_next_row_reverse() {
    check_next(
        true,
        &[
            (&[0, 1, 2], &[0, -1, -1], &[1, 2, 1, 0, 1], Some(&[1, 1, 3])),
            (
                &[0, 1, 0, 2, 0],
                &[0, -1, 0, -1, 0],
                &[1, 2, 1, 3, 1],
                Some(&[1, 1, 255, 3]),
            ),
            (
                &[1, 0, 1],
                &[-1, 0, -1],
                &[1, 128, 2, 0, 1],
                Some(&[1, 128, 2]),
            ),
            (
                &[0, 1, 0, 1],
                &[0, -1, 0, -1],
                &[5, 1, 0, 2, 1],
                Some(&[5, 1, 0, 2]),
            ),
            (
                &[0, 1, 0, 0],
                &[0, -1, 0, 0],
                &[5, 1, 255, 1],
                Some(&[5, 1, 255, 1]),
            ),
            (
                &[0, 1, 0, 1],
                &[0, -1, 0, -1],
                &[5, 1, 0, 1],
                Some(&[4, 1, 255, 2]),
            ),
            (
                &[0, 1, 0, 1],
                &[0, -1, 0, -1],
                &[5, 1, 255, 0],
                Some(&[5, 1, 254, 2]),
            ),
            (&[1, 1, 0, 0], &[-1, -1, 0, 0], &[2, 1, 3, 2], Some(&[1, 2])),
            (
                &[1, 0, 1],
                &[-1, 0, -1],
                &[2, 3, 1, 1, 1],
                Some(&[1, 255, 2]),
            ),
            (
                &[1, 1, 0, 3],
                &[-1, -1, 0, -1],
                &[1, 245, 1, 3, 0],
                Some(&[1, 1, 255, 4]),
            ),
            (
                &[1, 2, 0, 3],
                &[-1, -1, 0, -1],
                &[1, 3, 1, 3, 0],
                Some(&[1, 2, 255, 4]),
            ),
            (
                &[1, 2, 0, 3],
                &[-1, -1, 0, -1],
                &[2, 1, 1, 1, 0],
                Some(&[1, 2, 255, 4]),
            ),
            (&[1, 0, 1], &[-1, 0, -1], &[1, 128, 2], Some(&[1, 128, 2])),
            (
                &[0, 1, 0, 1],
                &[0, -1, 0, -1],
                &[5, 1, 0, 2],
                Some(&[5, 1, 0, 2]),
            ),
            (
                &[5, 1, 1, 0],
                &[-1, -1, 0, 0],
                &[5, 1, 255, 1],
                Some(&[5, 1, 255, 1]),
            ),
            (
                &[1, 1, 1, 1],
                &[-1, -1, 0, 0],
                &[1, 1, 2, 2],
                Some(&[1, 1, 2, 2]),
            ),
            (
                &[1, 1, 1, 1],
                &[0, 0, 0, 0],
                &[1, 1, 2, 3],
                Some(&[1, 1, 2, 3]),
            ),
            (&[1, 2, 0, 3], &[-1, -1, 0, -1], &[1, 1, 1, 3, 0], None),
        ],
    );
}

#[test]
fn fuzzy_constructor_checks_pairs() {
    let err = FuzzyRowFilter::new([(b"ab".to_vec(), vec![0])]).unwrap_err();
    assert!(
        err.to_string().contains("Fuzzy pair lengths do not match"),
        "{err}"
    );
    let err = FuzzyRowFilter::new([(b"ab".to_vec(), vec![0, 7])]).unwrap_err();
    assert!(
        err.to_string().contains("expected 0 (fixed) or 1 (any)"),
        "{err}"
    );
    // The preprocessed form is accepted as HBase accepts it, and reads back as 0/1 with the
    // free key bytes zeroed.
    let f = FuzzyRowFilter::new([(b"ab".to_vec(), vec![0xff, 2])]).unwrap();
    assert_eq!(f.fuzzy_keys(), vec![(vec![b'a', 0], vec![0, 1])]);
}

/// Salted, fixed-width keys `SS_AAAA_T` as in HBase's `TestFuzzyRowFilterEndToEnd`: two
/// families, a few versions.
fn fuzzy_table() -> Vec<Cell> {
    let mut cells = Vec::new();
    for salt in 0u8..4 {
        for action in [b"0001", b"0002", b"0099"] {
            for t in [b'a', b'b'] {
                let mut row = vec![salt, b'_'];
                row.extend_from_slice(action);
                row.extend_from_slice(&[b'_', t]);
                cells.push(cell(&row, b"f", b"q", 1, b"v"));
                cells.push(cell(&row, b"g", b"q", 2, b"w"));
            }
        }
    }
    // Rows shorter and longer than the rule.
    cells.push(cell(&[2, b'_', b'0'], b"f", b"q", 1, b"short"));
    cells.push(cell(
        &[3, b'_', b'0', b'0', b'9', b'9', b'_', b'b', b'x'],
        b"f",
        b"q",
        1,
        b"long",
    ));
    cells
}

/// The rows a filter keeps when every row is tried (no seeking): what the hints must preserve.
fn brute_force(keys: &[(Vec<u8>, Vec<u8>)], cells: &[Cell], reversed: bool) -> Vec<Vec<u8>> {
    let f = FuzzyRowFilter::new(keys.iter().cloned()).unwrap();
    let mut rows: Vec<Vec<u8>> = cells.iter().map(|c| c.row().to_vec()).collect();
    rows.sort();
    rows.dedup();
    if reversed {
        rows.reverse();
    }
    let rules = f.fuzzy_keys();
    rows.into_iter()
        .filter(|r| {
            rules.iter().any(|(k, info)| {
                satisfies(reversed, r, k, &fixed_from_info(info)) == SatisfiesCode::Yes
            })
        })
        .collect()
}

#[test]
fn fuzzy_scan_keeps_exactly_the_matching_rows_both_directions() {
    let cells = fuzzy_table();
    let rule_sets: Vec<Vec<(Vec<u8>, Vec<u8>)>> = vec![
        // "??_0099_?": any salt, action 0099, any type.
        vec![(b"\0\0_0099_\0".to_vec(), vec![1, 0, 0, 0, 0, 0, 0, 0, 1])],
        // Salt byte free, then "_0002".
        vec![(b"\0_0002".to_vec(), vec![1, 0, 0, 0, 0, 0])],
        // Two rules: the smallest next row of both drives the seek.
        vec![
            (b"\0_0001_b".to_vec(), vec![1, 0, 0, 0, 0, 0, 0, 0]),
            (
                vec![3, b'_', 0, 0, 0, 0, b'_', b'a'],
                vec![0, 0, 1, 1, 1, 1, 0, 0],
            ),
        ],
        // Nothing can match past salt 9: the scan ends early.
        vec![(vec![9, b'_'], vec![0, 0])],
    ];
    // A row shorter than a rule matches by prefix, but a hint computed from an earlier row may
    // jump over it (HBase behaves the same): leave such rows out of the comparison.
    let full_length = |rows: Vec<Vec<u8>>| -> Vec<Vec<u8>> {
        rows.into_iter().filter(|r| r.len() >= 8).collect()
    };
    for keys in &rule_sets {
        for reversed in [false, true] {
            let mut f = FuzzyRowFilter::new(keys.iter().cloned()).unwrap();
            let got = rows_of(&run_scan(&mut f, &cells, reversed));
            assert_eq!(
                full_length(got),
                full_length(brute_force(keys, &cells, reversed)),
                "{keys:?} rev={reversed}"
            );
        }
    }
    // The short row [2, '_', '0'] matches "?_0002" by prefix: kept when the scan reaches it,
    // jumped over when the hint from [1, '_', '0099_b'] points at [2, '_', '0002'].
    let rule = || FuzzyRowFilter::new([(b"\0_0002".to_vec(), vec![1, 0, 0, 0, 0, 0])]).unwrap();
    let short = cell(&[2, b'_', b'0'], b"f", b"q", 1, b"short");
    assert_eq!(
        run_scan(&mut rule(), std::slice::from_ref(&short), false).len(),
        1
    );
    let got = rows_of(&run_scan(&mut rule(), &cells, false));
    assert!(!got.contains(&short.row().to_vec()));
    // Two families: both are returned for a kept row.
    let mut f =
        FuzzyRowFilter::new([(b"\0_0099_a".to_vec(), vec![1, 0, 0, 0, 0, 0, 0, 0])]).unwrap();
    let rows = run_scan(&mut f, &cells, false);
    assert_eq!(rows.len(), 4);
    assert!(rows.iter().all(|r| r.len() == 2));
}

#[test]
fn fuzzy_hint_skips_to_the_next_possible_row_and_ends_the_scan() {
    let mut f = FuzzyRowFilter::new([(b"\0_b".to_vec(), vec![1, 0, 0])]).unwrap();
    let c = cell(b"1_a", b"f", b"q", 1, b"");
    assert_eq!(
        f.filter_cell(c.as_cell_ref()),
        ReturnCode::SeekNextUsingHint
    );
    let hint = f.next_cell_hint(c.as_cell_ref()).unwrap();
    assert_eq!(hint, regionkv_cell::OwnedKey::first_on_row(b"1_b").unwrap());
    assert!(f.filter_row());
    f.reset();
    assert!(!f.filter_row());
    // Past every possible match: done.
    let mut f = FuzzyRowFilter::new([(b"a\0".to_vec(), vec![0, 1])]).unwrap();
    let c = cell(b"b", b"f", b"q", 1, b"");
    assert_eq!(
        f.filter_cell(c.as_cell_ref()),
        ReturnCode::SeekNextUsingHint
    );
    assert!(f.filter_all_remaining());
}

// ---------------------------------------------------------------------------------------------
// MultiRowRangeFilter (TestMultiRowRangeFilter)
// ---------------------------------------------------------------------------------------------

/// HBase's `Bytes.toBytes(int)`: 4 bytes big-endian.
fn int_row(i: i32) -> Vec<u8> {
    i.to_be_bytes().to_vec()
}

fn rr(start: &[u8], si: bool, stop: &[u8], so: bool) -> RowRange {
    RowRange::new(start, si, stop, so)
}

#[test]
fn multi_row_range_merges_as_hbase() {
    let i = int_row;
    let cases: Vec<(Vec<RowRange>, Vec<RowRange>)> = vec![
        // testMergeAndSortWithEmptyStartRow
        (
            vec![
                rr(b"", true, &i(20), false),
                rr(&i(15), true, &i(40), false),
            ],
            vec![rr(b"", true, &i(40), false)],
        ),
        // testMergeAndSortWithEmptyStopRow
        (
            vec![
                rr(&i(10), true, &i(20), false),
                rr(&i(15), true, b"", false),
                rr(&i(30), true, &i(70), false),
            ],
            vec![rr(&i(10), true, b"", false)],
        ),
        // testMergeAndSortWithEmptyStartRowAndStopRow
        (
            vec![
                rr(&i(10), true, &i(20), false),
                rr(b"", true, b"", false),
                rr(&i(30), true, &i(70), false),
            ],
            vec![rr(b"", true, b"", false)],
        ),
        // testMergeAndSortWithoutOverlap
        (
            vec![
                rr(&i(10), true, &i(20), false),
                rr(&i(30), true, &i(40), false),
                rr(&i(60), true, &i(70), false),
            ],
            vec![
                rr(&i(10), true, &i(20), false),
                rr(&i(30), true, &i(40), false),
                rr(&i(60), true, &i(70), false),
            ],
        ),
        // testMergeAndSortWithOverlap
        (
            vec![
                rr(&i(10), true, &i(20), false),
                rr(&i(15), true, &i(40), false),
                rr(&i(20), true, &i(30), false),
                rr(&i(30), true, &i(50), false),
                rr(&i(30), true, &i(70), false),
                rr(&i(90), true, &i(100), false),
                rr(&i(95), true, &i(100), false),
            ],
            vec![
                rr(&i(10), true, &i(70), false),
                rr(&i(90), true, &i(100), false),
            ],
        ),
        // testMergeAndSortWithStartRowInclusive
        (
            vec![
                rr(&i(10), true, &i(20), false),
                rr(&i(20), true, b"", false),
            ],
            vec![rr(&i(10), true, b"", false)],
        ),
        // testMergeAndSortWithRowExclusive
        (
            vec![
                rr(&i(10), true, &i(20), false),
                rr(&i(20), false, b"", false),
            ],
            vec![
                rr(&i(10), true, &i(20), false),
                rr(&i(20), false, b"", false),
            ],
        ),
        // testMergeAndSortWithRowInclusive
        (
            vec![
                rr(&i(10), true, &i(20), true),
                rr(&i(20), false, b"", false),
            ],
            vec![rr(&i(10), true, b"", false)],
        ),
    ];
    for (input, want) in cases {
        assert_eq!(sort_and_merge(input.clone()).unwrap(), want, "{input:?}");
    }
}

#[test]
fn multi_row_range_rejects_no_ranges_and_invalid_ranges() {
    let err = MultiRowRangeFilter::new(Vec::new()).unwrap_err();
    assert!(err.to_string().contains("No ranges found."), "{err}");
    // testMultiRowRangeWithInvalidRange: a start row above its stop row.
    let err = MultiRowRangeFilter::new(vec![
        rr(&int_row(10), true, &int_row(20), false),
        rr(&int_row(80), true, &int_row(20), false),
        rr(&int_row(30), true, &int_row(70), false),
    ])
    .unwrap_err();
    assert!(err.to_string().contains("1 invaild ranges"), "{err}");
    // A one-row range needs an inclusive stop.
    assert!(!rr(b"a", true, b"a", false).is_valid());
    assert!(rr(b"a", true, b"a", true).is_valid());
}

fn code_for_row(f: &mut MultiRowRangeFilter, row: &[u8]) -> ReturnCode {
    assert!(!f.filter_row_key(row));
    f.filter_cell(cell(row, b"f", b"q", 1, b"").as_cell_ref())
}

#[test]
fn multi_row_range_codes_per_row() {
    // testRanges: a row between two ranges (unsigned order puts {-10} between them) seeks.
    let mut f = MultiRowRangeFilter::new(vec![
        rr(&[0xfd], true, &[0xfe], false),
        rr(&[5], true, &[6], false),
    ])
    .unwrap();
    assert_eq!(code_for_row(&mut f, &[0xf6]), ReturnCode::SeekNextUsingHint);
    let hint = f
        .next_cell_hint(cell(&[0xf6], b"f", b"q", 1, b"").as_cell_ref())
        .unwrap();
    assert_eq!(
        hint,
        regionkv_cell::OwnedKey::first_on_row(&[0xfd]).unwrap()
    );

    // testOutOfOrderScannerNextException.
    let mut f =
        MultiRowRangeFilter::new(vec![rr(b"b", true, b"c", true), rr(b"d", true, b"e", true)])
            .unwrap();
    assert_eq!(code_for_row(&mut f, b"a"), ReturnCode::SeekNextUsingHint);
    for row in [b"b", b"c", b"d", b"e"] {
        assert_eq!(code_for_row(&mut f, row), ReturnCode::Include);
    }
    // Past the last range: the scan is over.
    assert!(!f.filter_row_key(b"f"));
    assert!(f.filter_all_remaining());

    // An exclusive start row is skipped, the next row of the range kept.
    let mut f = MultiRowRangeFilter::new(vec![rr(b"b", false, b"d", false)]).unwrap();
    assert_eq!(code_for_row(&mut f, b"b"), ReturnCode::NextRow);
    assert_eq!(code_for_row(&mut f, b"c"), ReturnCode::Include);
    assert_eq!(code_for_row(&mut f, b"d"), ReturnCode::NextRow);
    assert!(f.filter_all_remaining());
}

/// 100 rows `Bytes.toBytes(0..100)` with one cell, as HBase's `generateRows`.
fn hundred_rows() -> Vec<Cell> {
    (0..100)
        .map(|i| cell(&int_row(i), b"family", b"qf", 1, b"val"))
        .collect()
}

fn rows_in(ranges: &[RowRange], reversed: bool) -> Vec<Vec<u8>> {
    let mut rows: Vec<Vec<u8>> = (0..100)
        .map(int_row)
        .filter(|r| ranges.iter().any(|x| x.contains(r)))
        .collect();
    if reversed {
        rows.reverse();
    }
    rows
}

#[test]
fn multi_row_range_scans_match_the_union_of_ranges() {
    let i = int_row;
    let cells = hundred_rows();
    let cases: Vec<Vec<RowRange>> = vec![
        // testMultiRowRangeFilterWithRangeOverlap
        vec![
            rr(&i(10), true, &i(20), false),
            rr(&i(15), true, &i(40), false),
            rr(&i(65), true, &i(75), false),
            rr(&i(60), true, b"", false),
            rr(&i(60), true, &i(80), false),
        ],
        // testMultiRowRangeFilterWithoutRangeOverlap
        vec![
            rr(&i(30), true, &i(40), false),
            rr(&i(10), true, &i(20), false),
            rr(&i(60), true, &i(70), false),
        ],
        // testMultiRowRangeFilterWithEmptyStartRow
        vec![
            rr(b"", true, &i(10), false),
            rr(&i(30), true, &i(40), false),
        ],
        // testMultiRowRangeFilterWithEmptyStopRow
        vec![
            rr(&i(10), true, b"", false),
            rr(&i(30), true, &i(40), false),
        ],
        // testMultiRowRangeFilterWithInclusive / WithExclusive
        vec![
            rr(&i(10), true, &i(20), true),
            rr(&i(20), false, &i(40), true),
        ],
        vec![
            rr(&i(10), false, &i(20), false),
            rr(&i(20), false, &i(40), false),
        ],
        vec![
            rr(&i(30), false, &i(40), true),
            rr(&i(65), true, &i(65), true),
        ],
    ];
    for ranges in cases {
        for reversed in [false, true] {
            let mut f = MultiRowRangeFilter::new(ranges.clone()).unwrap();
            let got = rows_of(&run_scan(&mut f, &cells, reversed));
            assert_eq!(got, rows_in(&ranges, reversed), "{ranges:?} rev={reversed}");
        }
    }
    // Row-prefix form.
    let mut f = MultiRowRangeFilter::with_row_prefixes([int_row(7)[..3].to_vec()]).unwrap();
    assert_eq!(rows_of(&run_scan(&mut f, &cells, false)).len(), 100);
}

// ---------------------------------------------------------------------------------------------
// DependentColumnFilter (TestDependentColumnFilter, TestParseFilter)
// ---------------------------------------------------------------------------------------------

const F0: &[u8] = b"familyOne";
const F1: &[u8] = b"familyTwo";
const Q: &[u8] = b"qualifier";
const STAMPS: [i64; 3] = [100, 200, 300];
const MATCH_VAL: &[u8] = b"match";

/// HBase's `addData`.
fn dependent_table() -> Vec<Cell> {
    vec![
        cell(b"test1", F0, Q, STAMPS[0], b"bad1"),
        cell(b"test1", F0, Q, STAMPS[1], b"bad2"),
        cell(b"test1", F0, Q, STAMPS[2], MATCH_VAL),
        cell(b"test1", F1, Q, STAMPS[0], b"bad1"),
        cell(b"test1", F1, Q, STAMPS[2], b"bad3"),
        cell(b"test2", F0, Q, STAMPS[0], b"bad1"),
        cell(b"test2", F0, Q, STAMPS[2], MATCH_VAL),
        cell(b"test2", F1, Q, STAMPS[0], MATCH_VAL),
        cell(b"test2", F1, Q, STAMPS[1], b"bad3"),
    ]
}

fn rows_and_cells(f: &mut dyn Filter) -> (usize, usize) {
    let rows = run_scan(f, &dependent_table(), false);
    (rows.len(), rows.iter().map(Vec::len).sum())
}

#[test]
fn dependent_column_filter_scans() {
    // testScans, in its four steps.
    assert_eq!(
        rows_and_cells(&mut DependentColumnFilter::new(F0, Q)),
        (2, 8)
    );
    assert_eq!(
        rows_and_cells(&mut DependentColumnFilter::with_drop(F0, Q, true)),
        (2, 3)
    );
    let eq_match = || Comparator::Binary(MATCH_VAL.to_vec());
    assert_eq!(
        rows_and_cells(&mut DependentColumnFilter::with_value_check(
            F0,
            Q,
            false,
            CompareOperator::Equal,
            eq_match()
        )),
        (2, 3)
    );
    assert_eq!(
        rows_and_cells(&mut DependentColumnFilter::with_value_check(
            F0,
            Q,
            true,
            CompareOperator::Equal,
            eq_match()
        )),
        (1, 1)
    );
}

#[test]
fn dependent_column_filter_drops_cells_without_a_stamp() {
    // testFilterDropping over HBase's makeTestVals.
    let vals = [
        cell(b"test1", F0, Q, STAMPS[0], b"bad1"),
        cell(b"test1", F0, Q, STAMPS[1], b"bad2"),
        cell(b"test1", F1, Q, STAMPS[1], b"bad3"),
        cell(b"test1", F1, Q, STAMPS[0], MATCH_VAL),
        cell(b"test1", F1, Q, STAMPS[2], b"bad3"),
    ];
    let mut f = DependentColumnFilter::new(F0, Q);
    let mut accepted: Vec<Cell> = vals
        .iter()
        .filter(|c| f.filter_cell(c.as_cell_ref()) == ReturnCode::Include)
        .cloned()
        .collect();
    assert_eq!(accepted.len(), 5);
    f.filter_row_cells(&mut accepted);
    assert_eq!(accepted.len(), 4);

    let mut f = DependentColumnFilter::with_drop(F1, Q, true);
    let mut accepted: Vec<Cell> = vals
        .iter()
        .filter(|c| f.filter_cell(c.as_cell_ref()) == ReturnCode::Include)
        .cloned()
        .collect();
    assert_eq!(accepted.len(), 2);
    f.filter_row_cells(&mut accepted);
    assert_eq!(accepted.len(), 2);
    assert!(f.has_filter_row());
    assert!(!f.filter_row());
}

#[test]
fn dependent_column_filter_language() {
    // TestParseFilter.testDependentColumnFilter: the three-argument form.
    let f = parse_filter("DependentColumnFilter('family', 'qualifier', true)").unwrap();
    let text = format!("{f:?}");
    assert!(text.contains("DependentColumnFilter"), "{text}");
    assert!(text.contains("drop_dependent_column: true"), "{text}");
    assert!(text.contains("value_check: None"), "{text}");
    // All three forms run like the API.
    for (s, want) in [
        ("DependentColumnFilter('familyOne', 'qualifier')", (2, 8)),
        (
            "DependentColumnFilter('familyOne', 'qualifier', true)",
            (2, 3),
        ),
        (
            "DependentColumnFilter('familyOne', 'qualifier', false, =, 'binary:match')",
            (2, 3),
        ),
        (
            "DependentColumnFilter('familyOne', 'qualifier', TRUE, =, 'binary:match')",
            (1, 1),
        ),
        // HBase lets a substring comparator go with any operator here.
        (
            "DependentColumnFilter('familyOne', 'qualifier', true, >, 'substring:atc')",
            (0, 0),
        ),
    ] {
        let mut f = parse_filter(s).unwrap();
        assert_eq!(rows_and_cells(f.as_mut()), want, "{s}");
    }
    for (s, needle) in [
        (
            "DependentColumnFilter('f')",
            "expected 2, 3 or 5 arguments but got 1",
        ),
        ("DependentColumnFilter('f', 'q', 'true')", "true or false"),
        (
            "DependentColumnFilter('f', 'q', true, =, 'match')",
            "'type:value'",
        ),
    ] {
        let err = parse_filter(s).err().unwrap();
        assert!(err.to_string().contains(needle), "{s}: {err}");
    }
}

// ---------------------------------------------------------------------------------------------
// RandomRowFilter (TestRandomRowFilter)
// ---------------------------------------------------------------------------------------------

fn count_kept(f: &mut RandomRowFilter, rows: usize) -> usize {
    (0..rows)
        .filter(|i| {
            f.reset();
            let row = format!("row{i}");
            if f.filter_row_key(row.as_bytes()) {
                return false;
            }
            let c = cell(row.as_bytes(), b"f", b"q", 1, b"");
            f.filter_cell(c.as_cell_ref()).is_include() && !f.filter_row()
        })
        .count()
}

#[test]
fn random_row_filter_keeps_about_the_chance() {
    // testBasics: with chance 0.25, 10000 rows keep 2500 give or take 1% of the rows (HBase's
    // epsilon); a fixed seed keeps this test deterministic.
    let mut f = RandomRowFilter::with_seed(0.25, 42);
    let kept = count_kept(&mut f, 10_000);
    let epsilon = 10_000 / 100;
    assert!(kept.abs_diff(2500) < epsilon, "kept {kept}");
}

#[test]
fn random_row_filter_edges() {
    for (chance, want) in [(0.0, 0), (1.0, 1000), (-0.5, 0), (1.5, 1000), (f32::NAN, 0)] {
        let mut f = RandomRowFilter::new(chance);
        assert_eq!(count_kept(&mut f, 1000), want, "chance {chance}");
    }
    // A dropped row answers NextRow and is dropped in filter_row too.
    let mut f = RandomRowFilter::new(0.0);
    assert!(f.filter_row_key(b"r"));
    let c = cell(b"r", b"f", b"q", 1, b"");
    assert_eq!(f.filter_cell(c.as_cell_ref()), ReturnCode::NextRow);
    assert!(f.filter_row());
    assert!(f.has_filter_row());
    // Seeded copies repeat their draws.
    let mut a = RandomRowFilter::with_seed(0.5, 7);
    let mut b = a.box_clone();
    let draws_a: Vec<bool> = (0..50).map(|_| a.filter_row_key(b"r")).collect();
    let draws_b: Vec<bool> = (0..50).map(|_| b.filter_row_key(b"r")).collect();
    assert_eq!(draws_a, draws_b);
}
