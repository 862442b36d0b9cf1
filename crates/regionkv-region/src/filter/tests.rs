//! Unit tests of the filters, comparators, filter lists and the filter language. Row-level
//! tests play the scanner protocol with [`super::model::run_scan`] over HBase's
//! `TestFilter` data set; the rest port the assertions of HBase's `TestFilterList`,
//! `TestSingleColumnValueFilter` and `TestParseFilter` (hbase-server/src/test/.../filter/).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::model::run_scan;
use super::*;
use regionkv_cell::{CellType, compare_keys};
use std::cmp::Ordering;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering as AtomicOrdering};

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

fn kv(row: &str, family: &str, qualifier: &str, ts: i64, value: &str) -> Cell {
    Cell::put(
        row.as_bytes(),
        family.as_bytes(),
        qualifier.as_bytes(),
        ts,
        value.as_bytes(),
    )
    .unwrap()
}

fn kvb(row: &[u8], family: &[u8], qualifier: &[u8], ts: i64, value: &[u8]) -> Cell {
    Cell::put(row, family, qualifier, ts, value).unwrap()
}

fn s(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// `row/family:qualifier/ts=value` per cell.
fn show(rows: &[Vec<Cell>]) -> Vec<String> {
    rows.iter()
        .flatten()
        .map(|c| {
            format!(
                "{}/{}:{}/{}={}",
                s(c.row()),
                s(c.family()),
                s(c.qualifier()),
                c.timestamp(),
                s(c.value())
            )
        })
        .collect()
}

fn row_keys(rows: &[Vec<Cell>]) -> Vec<String> {
    rows.iter().map(|r| s(r[0].row())).collect()
}

fn scan(filter: &mut dyn Filter, cells: &[Cell]) -> Vec<Vec<Cell>> {
    run_scan(filter, cells, false)
}

fn bin(v: &str) -> Comparator {
    Comparator::binary(v.as_bytes())
}

fn regex(v: &str) -> Comparator {
    Comparator::regex(v).unwrap()
}

// HBase's TestFilter data set, after its deletes: rows testRowOne-{0,2,3} and
// testRowTwo-{0,2,3}; each has both families with qualifiers -0, -2, -3 of its group.
const ROWS_ONE: [&str; 4] = [
    "testRowOne-0",
    "testRowOne-1",
    "testRowOne-2",
    "testRowOne-3",
];
const ROWS_TWO: [&str; 4] = [
    "testRowTwo-0",
    "testRowTwo-1",
    "testRowTwo-2",
    "testRowTwo-3",
];
const FAMILIES: [&str; 2] = ["testFamilyOne", "testFamilyTwo"];
const QUALIFIERS_ONE: [&str; 4] = [
    "testQualifierOne-0",
    "testQualifierOne-1",
    "testQualifierOne-2",
    "testQualifierOne-3",
];
const QUALIFIERS_TWO: [&str; 4] = [
    "testQualifierTwo-0",
    "testQualifierTwo-1",
    "testQualifierTwo-2",
    "testQualifierTwo-3",
];
const VALUES: [&str; 2] = ["testValueOne", "testValueTwo"];
const NUM_ROWS: usize = 6;
const COLS_PER_ROW: usize = 6;

fn dataset() -> Vec<Cell> {
    let mut cells = Vec::new();
    for (rows, quals, value) in [
        (ROWS_ONE, QUALIFIERS_ONE, VALUES[0]),
        (ROWS_TWO, QUALIFIERS_TWO, VALUES[1]),
    ] {
        for row in [rows[0], rows[2], rows[3]] {
            for family in FAMILIES {
                for q in [quals[0], quals[2], quals[3]] {
                    cells.push(kv(row, family, q, 1, value));
                }
            }
        }
    }
    cells
}

/// The data set restricted to rows in `[start, stop)` (a scan's start/stop row).
fn dataset_range(start: &str, stop: &str) -> Vec<Cell> {
    dataset()
        .into_iter()
        .filter(|c| c.row() >= start.as_bytes() && (stop.is_empty() || c.row() < stop.as_bytes()))
        .collect()
}

/// Checks that every row has `keys` cells and there are `rows` rows.
fn assert_shape(result: &[Vec<Cell>], rows: usize, keys: usize) {
    assert_eq!(result.len(), rows, "rows: {:?}", show(result));
    for r in result {
        assert_eq!(
            r.len(),
            keys,
            "cells of {}: {:?}",
            s(r[0].row()),
            show(std::slice::from_ref(r))
        );
    }
}

fn expected(cells: &[(&str, &str, &str, &str)]) -> Vec<String> {
    cells
        .iter()
        .map(|(r, f, q, v)| format!("{r}/{f}:{q}/1={v}"))
        .collect()
}

/// A configurable test filter: a fixed return code, an optional hint, counters shared with
/// the test.
#[derive(Debug, Clone)]
struct Mock {
    rc: ReturnCode,
    hint: Option<Cell>,
    all_remaining: bool,
    seen: Arc<AtomicUsize>,
    transformed: Arc<AtomicBool>,
}

impl Mock {
    fn new(rc: ReturnCode) -> Self {
        Self {
            rc,
            hint: None,
            all_remaining: false,
            seen: Arc::new(AtomicUsize::new(0)),
            transformed: Arc::new(AtomicBool::new(false)),
        }
    }
    fn hint(rc: ReturnCode, hint: Cell) -> Self {
        Self {
            hint: Some(hint),
            ..Self::new(rc)
        }
    }
    fn done(rc: ReturnCode) -> Self {
        Self {
            all_remaining: true,
            ..Self::new(rc)
        }
    }
    fn seen(&self) -> usize {
        self.seen.load(AtomicOrdering::SeqCst)
    }
    fn boxed(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}

impl Filter for Mock {
    fn filter_all_remaining(&self) -> bool {
        self.all_remaining
    }
    fn filter_cell(&mut self, _cell: CellRef<'_>) -> ReturnCode {
        self.seen.fetch_add(1, AtomicOrdering::SeqCst);
        self.rc
    }
    fn transform_cell(&self, cell: Cell) -> Cell {
        self.transformed.store(true, AtomicOrdering::SeqCst);
        cell
    }
    fn next_cell_hint(&self, _current: CellRef<'_>) -> Option<OwnedKey> {
        self.hint
            .as_ref()
            .map(|h| OwnedKey::from_bytes(h.key_bytes().to_vec()).unwrap())
    }
    fn box_clone(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}

/// A test filter answering from a script: the code listed for the cell's key, else `rc`.
#[derive(Debug, Clone)]
struct Scripted {
    script: Vec<(Cell, ReturnCode)>,
    all_remaining: bool,
}

impl Filter for Scripted {
    fn filter_all_remaining(&self) -> bool {
        self.all_remaining
    }
    fn filter_cell(&mut self, cell: CellRef<'_>) -> ReturnCode {
        self.script
            .iter()
            .find(|(c, _)| c.key_bytes() == cell.key_bytes())
            .map_or(ReturnCode::Include, |(_, rc)| *rc)
    }
    fn box_clone(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}

/// A filter alternating between two codes (HBase's anonymous filters of testFilterCell).
#[derive(Debug, Clone)]
struct Alternate {
    codes: [ReturnCode; 2],
    next: usize,
}

impl Filter for Alternate {
    fn filter_cell(&mut self, _cell: CellRef<'_>) -> ReturnCode {
        let rc = self.codes[self.next % 2];
        self.next += 1;
        rc
    }
    fn box_clone(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}

use ReturnCode::{
    Include as I, IncludeAndNextCol as INC, IncludeAndSeekNextRow as INR, NextCol as NC,
    NextRow as NR, SeekNextUsingHint as HINT, Skip as SKIP,
};

// ---------------------------------------------------------------------------------------------
// Compare operators and comparators
// ---------------------------------------------------------------------------------------------

#[test]
fn compare_operators_keep_cells_in_the_named_relation_to_the_operand() {
    // HBase compares the operand to the cell; the operator names what a kept cell is.
    let cases = [
        (CompareOperator::Less, vec!["a"]),
        (CompareOperator::LessOrEqual, vec!["a", "b"]),
        (CompareOperator::Equal, vec!["b"]),
        (CompareOperator::NotEqual, vec!["a", "c"]),
        (CompareOperator::GreaterOrEqual, vec!["b", "c"]),
        (CompareOperator::Greater, vec!["c"]),
        (CompareOperator::NoOp, vec![]),
    ];
    for (op, kept) in cases {
        let got: Vec<&str> = ["a", "b", "c"]
            .into_iter()
            .filter(|cell| !op.filters_out(bin("b").compare_to(cell.as_bytes())))
            .collect();
        assert_eq!(got, kept, "{op}");
    }
}

#[test]
fn row_filter_less_keeps_rows_below_the_operand() {
    let cells: Vec<Cell> = (1..=9)
        .map(|i| kv(&format!("r{i}"), "f", "q", 1, "v"))
        .collect();
    let mut f = RowFilter::new(CompareOperator::Less, bin("r5"));
    assert_eq!(row_keys(&scan(&mut f, &cells)), ["r1", "r2", "r3", "r4"]);
    let mut f = RowFilter::new(CompareOperator::GreaterOrEqual, bin("r5"));
    assert_eq!(
        row_keys(&scan(&mut f, &cells)),
        ["r5", "r6", "r7", "r8", "r9"]
    );
    let mut f = RowFilter::new(CompareOperator::NoOp, bin("r5"));
    assert!(scan(&mut f, &cells).is_empty());
}

#[test]
fn compare_operator_symbols_round_trip() {
    for op in [
        CompareOperator::Less,
        CompareOperator::LessOrEqual,
        CompareOperator::Equal,
        CompareOperator::NotEqual,
        CompareOperator::GreaterOrEqual,
        CompareOperator::Greater,
    ] {
        assert_eq!(CompareOperator::from_symbol(op.symbol()), Some(op));
    }
    assert_eq!(CompareOperator::from_symbol("=="), None);
    assert_eq!(CompareOperator::from_symbol("NO_OP"), None);
    assert_eq!(
        CompareOperator::GreaterOrEqual.to_string(),
        "GREATER_OR_EQUAL"
    );
}

#[test]
fn binary_comparator_is_unsigned_lexicographic() {
    assert_eq!(
        Comparator::binary(vec![0x80]).compare_to(&[0x7f]),
        Ordering::Greater
    );
    assert_eq!(bin("ab").compare_to(b"abc"), Ordering::Less);
    assert_eq!(bin("ab").compare_to(b"ab"), Ordering::Equal);
    assert_eq!(bin("").compare_to(b""), Ordering::Equal);
    assert_eq!(bin("b").compare_to(b"abc"), Ordering::Greater);
}

#[test]
fn binary_prefix_comparator_compares_the_cell_head() {
    let c = Comparator::binary_prefix(b"ab".to_vec());
    assert_eq!(c.compare_to(b"abzzz"), Ordering::Equal);
    assert_eq!(c.compare_to(b"ab"), Ordering::Equal);
    assert_eq!(c.compare_to(b"aa"), Ordering::Greater);
    assert_eq!(c.compare_to(b"b"), Ordering::Less);
    // A cell shorter than the operand compares as itself: "ab" > "a".
    assert_eq!(c.compare_to(b"a"), Ordering::Greater);
    assert_eq!(c.compare_to(b""), Ordering::Greater);
}

#[test]
fn substring_comparator_ignores_case_and_survives_binary() {
    let c = Comparator::substring("QuIcK");
    assert_eq!(c.value(), b"quick");
    assert_eq!(c.compare_to(b"The QUICK brown fox"), Ordering::Equal);
    assert_eq!(c.compare_to(b"The slow grey fox"), Ordering::Greater);
    assert_eq!(
        c.compare_to(&[0xff, 0xfe, b'q', b'u', b'i', b'c', b'k']),
        Ordering::Equal
    );
    assert_eq!(
        Comparator::substring("ΣΑΣ").compare_to("xσας".as_bytes()),
        Ordering::Equal
    );
}

#[test]
fn regex_comparator_finds_anywhere_with_dotall_by_default() {
    let c = regex("test.+-2");
    assert_eq!(c.compare_to(b"testQualifierOne-2"), Ordering::Equal);
    assert_eq!(c.compare_to(b"testQualifierOne-3"), Ordering::Greater);
    // find(), not matches(): a match inside the value is enough.
    assert_eq!(regex("quick").compare_to(b"the quick fox"), Ordering::Equal);
    // DOTALL: '.' crosses newlines.
    assert_eq!(regex("a.b").compare_to(b"a\nb"), Ordering::Equal);
    let no_dotall = RegexStringComparator::with_flags("a.b", 0).unwrap();
    assert!(!no_dotall.matches(b"a\nb"));
    // TestSingleColumnValueFilter's QUICK_PATTERN: CASE_INSENSITIVE | DOTALL.
    let flags = RegexStringComparator::CASE_INSENSITIVE | RegexStringComparator::DOTALL;
    let ci = RegexStringComparator::with_flags("QuIcK", flags).unwrap();
    assert!(ci.matches(b"The quick brown fox"));
    let literal = RegexStringComparator::with_flags("a.b", RegexStringComparator::LITERAL).unwrap();
    assert!(literal.matches(b"xa.by") && !literal.matches(b"axb"));
}

#[test]
fn regex_comparator_errors_and_charsets() {
    let err = RegexStringComparator::new("(unclosed").unwrap_err();
    assert!(matches!(err, FilterError::InvalidRegex { .. }), "{err}");
    // Look-around is Java syntax the regex crate lacks.
    assert!(RegexStringComparator::new("a(?=b)").is_err());
    assert!(RegexStringComparator::with_flags("a", 0x4000).is_err());
    let latin1 = RegexStringComparator::new("^\u{ff}\u{80}$")
        .unwrap()
        .with_charset(RegexCharset::Iso8859_1);
    assert!(latin1.matches(&[0xff, 0x80]));
    let utf8 = RegexStringComparator::new("^\u{ff}\u{80}$").unwrap();
    assert!(!utf8.matches(&[0xff, 0x80]));
}

#[test]
fn null_comparator_never_matches_a_stored_value() {
    assert_eq!(Comparator::Null.compare_to(b""), Ordering::Greater);
    assert_eq!(Comparator::Null.compare_to(b"x"), Ordering::Greater);
    let cells = vec![kv("r1", "f", "q", 1, ""), kv("r2", "f", "q", 1, "v")];
    let mut keep_all = ValueFilter::new(CompareOperator::NotEqual, Comparator::Null);
    assert_eq!(scan(&mut keep_all, &cells).len(), 2);
    let mut keep_none = ValueFilter::new(CompareOperator::Equal, Comparator::Null);
    assert!(scan(&mut keep_none, &cells).is_empty());
}

#[test]
fn bit_comparator_matches_on_non_zero_result_of_equal_length() {
    let and = Comparator::Bit {
        value: vec![0x0f, 0x00],
        op: BitwiseOp::And,
    };
    assert_eq!(and.compare_to(&[0x01, 0x00]), Ordering::Equal);
    assert_eq!(and.compare_to(&[0xf0, 0xff]), Ordering::Greater);
    assert_eq!(and.compare_to(&[0x01]), Ordering::Greater, "length differs");
    let or = Comparator::Bit {
        value: vec![0x00],
        op: BitwiseOp::Or,
    };
    assert_eq!(or.compare_to(&[0x00]), Ordering::Greater);
    assert_eq!(or.compare_to(&[0x02]), Ordering::Equal);
    let xor = Comparator::Bit {
        value: vec![0x0f],
        op: BitwiseOp::Xor,
    };
    assert_eq!(xor.compare_to(&[0x0f]), Ordering::Greater);
    assert_eq!(xor.compare_to(&[0x0e]), Ordering::Equal);
}

// ---------------------------------------------------------------------------------------------
// Row filters over HBase's TestFilter data set
// ---------------------------------------------------------------------------------------------

#[test]
fn no_filter_returns_the_data_set() {
    let mut f = FilterList::and(vec![]);
    assert_shape(&scan(&mut f, &dataset()), NUM_ROWS, COLS_PER_ROW);
}

#[test]
fn prefix_filter_keeps_one_group_and_ends_the_scan_after_it() {
    let mut f = PrefixFilter::new("testRowOne");
    let rows = scan(&mut f, &dataset());
    assert_shape(&rows, NUM_ROWS / 2, COLS_PER_ROW);
    assert!(f.filter_all_remaining(), "passed the prefix");

    // Reversed: rows come descending; the group-one rows are passed once below the prefix.
    let mut f = PrefixFilter::new("testRowTwo");
    let rows = run_scan(&mut f, &dataset(), true);
    assert_eq!(
        row_keys(&rows),
        ["testRowTwo-3", "testRowTwo-2", "testRowTwo-0"]
    );
    assert!(f.filter_all_remaining());
}

#[test]
fn prefix_filter_leaves_state_alone_for_rows_shorter_than_the_prefix() {
    // HBase 2.x: a short row is dropped without marking the prefix as passed.
    let mut f = PrefixFilter::new("yyy");
    assert!(!f.filter_row_key(b"yyyy"));
    assert!(f.filter_row_key(b"z"));
    assert!(!f.filter_all_remaining());
    assert!(
        !f.filter_row(),
        "filter_row keeps the previous row's answer"
    );
    assert!(f.filter_row_key(b"zzz"));
    assert!(f.filter_all_remaining());
}

#[test]
fn page_filter_limits_rows_per_region() {
    let all = show(&scan(&mut FilterList::and(vec![]), &dataset()));
    for page in [6u64, 4, 2, 1] {
        let mut f = PageFilter::new(page);
        let rows = scan(&mut f, &dataset());
        assert_shape(&rows, page as usize, COLS_PER_ROW);
        assert_eq!(show(&rows), all[..page as usize * COLS_PER_ROW]);
    }
    assert!(scan(&mut PageFilter::new(0), &dataset()).is_empty());
}

#[test]
fn page_filter_does_not_count_empty_rows() {
    // Rows emptied by another filter never reach filter_row.
    let mut f = FilterList::and(vec![
        Box::new(QualifierFilter::new(
            CompareOperator::Equal,
            bin("testQualifierTwo-0"),
        )),
        Box::new(PageFilter::new(2)),
    ]);
    assert_eq!(
        row_keys(&scan(&mut f, &dataset())),
        ["testRowTwo-0", "testRowTwo-2"]
    );
}

#[test]
fn while_match_page_filter_ends_after_the_page() {
    // TestFilter.testWhileMatchFilterWithFilterRow.
    let mut f = WhileMatchFilter::new(Box::new(PageFilter::new(4)));
    assert_eq!(scan(&mut f, &dataset()).len(), 4);
    assert!(f.filter_all_remaining());
}

#[test]
fn while_match_prefix_filter_ends_at_the_first_other_row() {
    // TestFilter.testWhileMatchFilterWithFilterRowKey.
    let mut f = WhileMatchFilter::new(Box::new(PrefixFilter::new("testRowOne")));
    let rows = scan(&mut f, &dataset());
    assert_eq!(
        row_keys(&rows),
        ["testRowOne-0", "testRowOne-2", "testRowOne-3"]
    );
    assert!(f.filter_all_remaining());
}

#[test]
fn while_match_single_column_value_filter_stops_at_the_first_cell() {
    // TestFilter.testWhileMatchFilterWithFilterKeyValue.
    let scvf = SingleColumnValueFilter::new(
        FAMILIES[0],
        QUALIFIERS_ONE[0],
        CompareOperator::Equal,
        bin("foo"),
    );
    let mut f = WhileMatchFilter::new(Box::new(scvf));
    assert!(scan(&mut f, &dataset()).is_empty());
    assert!(f.filter_all_remaining());
}

#[test]
fn while_match_keeps_the_cells_before_a_rejected_one() {
    let cells = vec![
        kv("r1", "f", "a", 1, "x"),
        kv("r1", "f", "b", 1, "y"),
        kv("r1", "f", "c", 1, "x"),
        kv("r2", "f", "a", 1, "x"),
    ];
    let mut f = WhileMatchFilter::new(Box::new(ValueFilter::new(CompareOperator::Equal, bin("x"))));
    assert_eq!(show(&scan(&mut f, &cells)), ["r1/f:a/1=x"]);
}

#[test]
fn inclusive_stop_filter_includes_the_stop_row() {
    // TestFilter.testInclusiveStopFilter.
    let rows = scan(
        &mut FilterList::and(vec![]),
        &dataset_range("testRowOne-0", "testRowOne-3"),
    );
    assert_shape(&rows, NUM_ROWS / 2 - 1, COLS_PER_ROW);
    let mut f = InclusiveStopFilter::new("testRowOne-3");
    let rows = scan(&mut f, &dataset_range("testRowOne-0", ""));
    assert_shape(&rows, NUM_ROWS / 2, COLS_PER_ROW);
    assert!(f.filter_all_remaining());
    let mut f = InclusiveStopFilter::new("testRowTwo-3");
    assert_shape(
        &scan(&mut f, &dataset_range("testRowTwo-0", "")),
        NUM_ROWS / 2,
        COLS_PER_ROW,
    );
    // Reversed: stops below the stop row.
    let mut f = InclusiveStopFilter::new("testRowTwo-0");
    let rows = run_scan(&mut f, &dataset(), true);
    assert_eq!(
        row_keys(&rows),
        ["testRowTwo-3", "testRowTwo-2", "testRowTwo-0"]
    );
}

#[test]
fn row_filter_operators_and_regex() {
    let half = NUM_ROWS / 2;
    let one2 = "testRowOne-2";
    for (op, rows) in [
        (CompareOperator::Equal, 1),
        (CompareOperator::Less, 1),
        (CompareOperator::LessOrEqual, 2),
        (CompareOperator::NotEqual, NUM_ROWS - 1),
        (CompareOperator::GreaterOrEqual, NUM_ROWS - 1),
        (CompareOperator::Greater, NUM_ROWS - 2),
    ] {
        let mut f = RowFilter::new(op, bin(one2));
        assert_shape(&scan(&mut f, &dataset()), rows, COLS_PER_ROW);
    }
    let mut f = RowFilter::new(CompareOperator::Equal, regex("testRow.+-2"));
    assert_eq!(
        row_keys(&scan(&mut f, &dataset())),
        ["testRowOne-2", "testRowTwo-2"]
    );
    let mut f = RowFilter::new(CompareOperator::NotEqual, regex("testRow.+-2"));
    assert_shape(&scan(&mut f, &dataset()), NUM_ROWS - 2, COLS_PER_ROW);
    let mut f = RowFilter::new(
        CompareOperator::Equal,
        Comparator::binary_prefix(b"testRowTwo".to_vec()),
    );
    assert_shape(&scan(&mut f, &dataset()), half, COLS_PER_ROW);
}

#[test]
fn qualifier_filter_operators() {
    // TestFilter.testQualifierFilter.
    let q2 = QUALIFIERS_ONE[2];
    let half = NUM_ROWS / 2;
    let cases = [
        (CompareOperator::Equal, "", half, 2),
        (CompareOperator::Less, "", half, 2),
        (CompareOperator::LessOrEqual, "", half, 4),
        (CompareOperator::NotEqual, "testRowTwo", half, 4),
        (CompareOperator::GreaterOrEqual, "testRowTwo", half, 4),
        (CompareOperator::Greater, "testRowTwo", half, 2),
    ];
    for (op, stop, rows, keys) in cases {
        let mut f = QualifierFilter::new(op, bin(q2));
        assert_shape(&scan(&mut f, &dataset_range("", stop)), rows, keys);
    }
    // Across both groups: 4 keys per group-one row, 6 per group-two row.
    let mut f = QualifierFilter::new(CompareOperator::NotEqual, bin(q2));
    let rows = scan(&mut f, &dataset());
    assert_eq!(
        rows.iter().map(Vec::len).collect::<Vec<_>>(),
        [4, 4, 4, 6, 6, 6]
    );
    // Regex: drop every "-2" qualifier.
    let mut f = QualifierFilter::new(CompareOperator::NotEqual, regex("test.+-2"));
    let rows = scan(&mut f, &dataset());
    assert_shape(&rows, NUM_ROWS, 4);
    assert!(
        rows.iter()
            .flatten()
            .all(|c| !c.qualifier().ends_with(b"-2"))
    );
}

#[test]
fn qualifier_filter_always_includes_an_empty_qualifier() {
    let cells = vec![kv("r", "f", "", 1, "v"), kv("r", "f", "q", 1, "v")];
    let mut f = QualifierFilter::new(CompareOperator::Equal, bin("nothing"));
    assert_eq!(show(&scan(&mut f, &cells)), ["r/f:/1=v"]);
}

#[test]
fn family_filter_leaves_the_row_per_family() {
    // TestFilter.testFamilyFilter.
    let half_cols = COLS_PER_ROW / 2;
    let cases = [
        (
            CompareOperator::Equal,
            "testFamilyOne",
            "",
            NUM_ROWS,
            half_cols,
        ),
        (CompareOperator::Less, "testFamily", "", 0, 0),
        (
            CompareOperator::LessOrEqual,
            "testFamilyOne",
            "",
            NUM_ROWS,
            half_cols,
        ),
        (
            CompareOperator::NotEqual,
            "testFamilyOne",
            "testRowTwo",
            NUM_ROWS / 2,
            half_cols,
        ),
        (
            CompareOperator::GreaterOrEqual,
            "testFamilyOne",
            "testRowTwo",
            NUM_ROWS / 2,
            COLS_PER_ROW,
        ),
        (
            CompareOperator::Greater,
            "testFamilyOne",
            "testRowTwo",
            NUM_ROWS / 2,
            half_cols,
        ),
    ];
    for (op, operand, stop, rows, keys) in cases {
        let mut f = FamilyFilter::new(op, bin(operand));
        assert_shape(&scan(&mut f, &dataset_range("", stop)), rows, keys);
    }
    // The first family answers NextRow; the second family of the same row is still offered
    // (HBASE-18368), so its cells come back.
    let mut f = FamilyFilter::new(CompareOperator::NotEqual, regex("test.*One"));
    let rows = scan(&mut f, &dataset());
    assert_shape(&rows, NUM_ROWS, half_cols);
    assert!(
        rows.iter()
            .flatten()
            .all(|c| c.family() == FAMILIES[1].as_bytes())
    );
}

#[test]
fn value_filter_operators() {
    let half = NUM_ROWS / 2;
    for (op, operand, rows) in [
        (CompareOperator::Equal, VALUES[0], half),
        (CompareOperator::Less, VALUES[1], half),
        (CompareOperator::LessOrEqual, VALUES[1], NUM_ROWS),
        (CompareOperator::NotEqual, VALUES[1], half),
        (CompareOperator::GreaterOrEqual, VALUES[0], NUM_ROWS),
        (CompareOperator::Greater, VALUES[0], half),
    ] {
        let mut f = ValueFilter::new(op, bin(operand));
        assert_shape(&scan(&mut f, &dataset()), rows, COLS_PER_ROW);
    }
    let mut f = ValueFilter::new(CompareOperator::Equal, Comparator::substring("VALUEtwo"));
    assert_eq!(
        row_keys(&scan(&mut f, &dataset())),
        ["testRowTwo-0", "testRowTwo-2", "testRowTwo-3"]
    );
}

#[test]
fn skip_filter_drops_rows_with_any_rejected_cell() {
    // TestFilter.testSkipFilter: every group-one row has qualifier -2, so only group two stays.
    let inner = QualifierFilter::new(CompareOperator::NotEqual, bin(QUALIFIERS_ONE[2]));
    let mut f = SkipFilter::new(Box::new(inner));
    let rows = scan(&mut f, &dataset());
    assert_eq!(
        row_keys(&rows),
        ["testRowTwo-0", "testRowTwo-2", "testRowTwo-3"]
    );
    assert_shape(&rows, NUM_ROWS / 2, COLS_PER_ROW);
}

#[test]
fn skip_filter_counts_include_and_next_col_as_rejection() {
    let cells = vec![kv("r1", "f", "a", 1, "v")];
    let mut f = SkipFilter::new(Box::new(ColumnCountGetFilter::new(5)));
    assert!(
        scan(&mut f, &cells).is_empty(),
        "IncludeAndNextCol is not Include"
    );
}

#[test]
fn first_key_only_filter_keeps_one_cell_per_row() {
    let mut f = FirstKeyOnlyFilter::new();
    let rows = scan(&mut f, &dataset());
    assert_shape(&rows, NUM_ROWS, 1);
    assert!(
        rows.iter()
            .flatten()
            .all(|c| c.family() == FAMILIES[0].as_bytes())
    );
}

#[test]
fn key_only_filter_strips_or_measures_values() {
    let cells = vec![kv("r", "f", "q", 7, "hello")];
    let rows = scan(&mut KeyOnlyFilter::new(false), &cells);
    let cell = &rows[0][0];
    assert_eq!(
        (cell.row(), cell.qualifier(), cell.timestamp(), cell.value()),
        (&b"r"[..], &b"q"[..], 7, &b""[..])
    );
    assert_eq!(cell.cell_type(), CellType::Put);
    let rows = scan(&mut KeyOnlyFilter::new(true), &cells);
    assert_eq!(rows[0][0].value(), 5i32.to_be_bytes());
}

#[test]
fn timestamps_filter_keeps_listed_versions() {
    let cells: Vec<Cell> = (1..=5)
        .map(|ts| kv("r", "f", "q", ts, &format!("v{ts}")))
        .collect();
    let mut f = TimestampsFilter::new([4, 2]).unwrap();
    assert_eq!(show(&scan(&mut f, &cells)), ["r/f:q/4=v4", "r/f:q/2=v2"]);
    assert_eq!(f.timestamps().collect::<Vec<_>>(), [2, 4]);
    // Below the smallest listed timestamp the rest of the column is skipped.
    let mut f = TimestampsFilter::new([4]).unwrap();
    let q = kv("r", "f", "q", 3, "");
    assert_eq!(f.filter_cell(q.as_cell_ref()), NC);
    assert_eq!(f.filter_cell(kv("r", "f", "q", 5, "").as_cell_ref()), SKIP);
    // Empty list: nothing passes.
    assert!(scan(&mut TimestampsFilter::new([]).unwrap(), &cells).is_empty());
    assert!(TimestampsFilter::new([-1]).is_err());
}

#[test]
fn timestamps_filter_hints_to_the_next_listed_version() {
    let cells: Vec<Cell> = (1..=5).map(|ts| kv("r", "f", "q", ts, "v")).collect();
    let mut f = TimestampsFilter::with_hint([4, 2], true).unwrap();
    let five = kv("r", "f", "q", 5, "v");
    assert_eq!(f.filter_cell(five.as_cell_ref()), HINT);
    let hint = f.next_cell_hint(five.as_cell_ref()).unwrap();
    assert_eq!(hint.view().timestamp(), 4);
    let three = kv("r", "f", "q", 3, "v");
    assert_eq!(
        f.next_cell_hint(three.as_cell_ref())
            .unwrap()
            .view()
            .timestamp(),
        2
    );
    // Below every listed timestamp: the last key of the column.
    let one = kv("r", "f", "q", 1, "v");
    assert!(
        compare_keys(
            f.next_cell_hint(one.as_cell_ref()).unwrap().as_bytes(),
            one.key_bytes()
        )
        .is_gt()
    );
    let mut f = TimestampsFilter::with_hint([4, 2], true).unwrap();
    assert_eq!(show(&scan(&mut f, &cells)), ["r/f:q/4=v", "r/f:q/2=v"]);
}

#[test]
fn column_count_get_filter_takes_the_first_columns_then_ends() {
    let cells = vec![
        kv("r1", "f", "a", 2, "new"),
        kv("r1", "f", "a", 1, "old"),
        kv("r1", "f", "b", 1, "v"),
        kv("r1", "f", "c", 1, "v"),
        kv("r2", "f", "a", 1, "v"),
    ];
    let mut f = ColumnCountGetFilter::new(2);
    assert_eq!(show(&scan(&mut f, &cells)), ["r1/f:a/2=new", "r1/f:b/1=v"]);
    assert!(f.filter_all_remaining());
}

#[test]
fn column_pagination_filter_by_offset_and_by_column() {
    let mut cells = Vec::new();
    for row in ["r1", "r2"] {
        for family in ["f1", "f2"] {
            for q in ["a", "b", "c"] {
                cells.push(kv(row, family, q, 2, "new"));
                cells.push(kv(row, family, q, 1, "old"));
            }
        }
    }
    // Columns are counted across families: skip 2, take 3.
    let mut f = ColumnPaginationFilter::new(3, 2);
    let rows = scan(&mut f, &cells);
    assert_eq!(
        show(&rows[..1]),
        ["r1/f1:c/2=new", "r1/f2:a/2=new", "r1/f2:b/2=new"]
    );
    assert_eq!(rows.len(), 2);
    // By column: from "b", 2 columns; only the row's first column is compared to "b".
    let mut f = ColumnPaginationFilter::with_column_offset(2, "b");
    let rows = scan(&mut f, &cells);
    assert_eq!(show(&rows[..1]), ["r1/f1:b/2=new", "r1/f1:c/2=new"]);
}

#[test]
fn column_prefix_filter_seeks_and_stops() {
    let cells: Vec<Cell> = ["a", "an", "and", "anti", "b", "ball"]
        .iter()
        .map(|q| kv("r", "f", q, 1, "v"))
        .collect();
    let mut f = ColumnPrefixFilter::new("an");
    assert_eq!(
        show(&scan(&mut f, &cells)),
        ["r/f:an/1=v", "r/f:and/1=v", "r/f:anti/1=v"]
    );
    let a = kv("r", "f", "a", 1, "v");
    assert_eq!(f.filter_cell(a.as_cell_ref()), HINT, "shorter and below");
    assert_eq!(
        f.next_cell_hint(a.as_cell_ref())
            .unwrap()
            .view()
            .qualifier(),
        b"an"
    );
    assert_eq!(
        f.filter_cell(kv("r", "f", "b", 1, "v").as_cell_ref()),
        NR,
        "shorter and above"
    );
    assert_eq!(
        f.filter_cell(kv("r", "f", "ball", 1, "v").as_cell_ref()),
        NR
    );
    assert_eq!(
        f.filter_cell(kv("r", "f", "aa", 1, "v").as_cell_ref()),
        HINT
    );
}

#[test]
fn multiple_column_prefix_filter() {
    let cells: Vec<Cell> = ["a1", "b1", "b2", "c1", "d1", "e1"]
        .iter()
        .map(|q| kv("r", "f", q, 1, "v"))
        .collect();
    let mut f = MultipleColumnPrefixFilter::new(["d", "b"]).unwrap();
    assert_eq!(
        show(&scan(&mut f, &cells)),
        ["r/f:b1/1=v", "r/f:b2/1=v", "r/f:d1/1=v"]
    );
    let a1 = kv("r", "f", "a1", 1, "v");
    assert_eq!(f.filter_cell(a1.as_cell_ref()), HINT);
    assert_eq!(
        f.next_cell_hint(a1.as_cell_ref())
            .unwrap()
            .view()
            .qualifier(),
        b"b"
    );
    let c1 = kv("r", "f", "c1", 1, "v");
    assert_eq!(f.filter_cell(c1.as_cell_ref()), HINT);
    assert_eq!(
        f.next_cell_hint(c1.as_cell_ref())
            .unwrap()
            .view()
            .qualifier(),
        b"d"
    );
    assert_eq!(f.filter_cell(kv("r", "f", "e1", 1, "v").as_cell_ref()), NR);
    // HBase quirk: only the largest prefix at or below the qualifier is tried.
    let mut overlapping = MultipleColumnPrefixFilter::new(["a", "ab"]).unwrap();
    assert_eq!(
        overlapping.filter_cell(kv("r", "f", "ac", 1, "v").as_cell_ref()),
        NR
    );
    assert!(MultipleColumnPrefixFilter::new(["x", "x"]).is_err());
    let mut empty = MultipleColumnPrefixFilter::new(Vec::<Vec<u8>>::new()).unwrap();
    assert_eq!(scan(&mut empty, &cells).len(), 1);
}

#[test]
fn column_range_filter_bounds() {
    let cells: Vec<Cell> = ["a", "b", "c", "d", "e"]
        .iter()
        .map(|q| kv("r", "f", q, 1, "v"))
        .collect();
    let qs = |f: &mut ColumnRangeFilter| -> Vec<String> {
        scan(f, &cells)
            .iter()
            .flatten()
            .map(|c| s(c.qualifier()))
            .collect()
    };
    let mut f = ColumnRangeFilter::new(Some(b"b".to_vec()), true, Some(b"d".to_vec()), false);
    assert_eq!(qs(&mut f), ["b", "c"]);
    let mut f = ColumnRangeFilter::new(Some(b"b".to_vec()), false, Some(b"d".to_vec()), true);
    assert_eq!(qs(&mut f), ["c", "d"]);
    let mut f = ColumnRangeFilter::new(None, true, Some(b"b".to_vec()), true);
    assert_eq!(qs(&mut f), ["a", "b"]);
    let mut f = ColumnRangeFilter::new(Some(b"d".to_vec()), true, None, false);
    assert_eq!(qs(&mut f), ["d", "e"]);
    let a = kv("r", "f", "a", 1, "v");
    let mut f = ColumnRangeFilter::new(Some(b"c".to_vec()), true, None, false);
    assert_eq!(f.filter_cell(a.as_cell_ref()), HINT);
    assert_eq!(
        f.next_cell_hint(a.as_cell_ref())
            .unwrap()
            .view()
            .qualifier(),
        b"c"
    );
}

#[test]
fn column_value_filter_returns_only_the_matching_cells() {
    let cells = vec![
        kv("r1", "f", "a", 1, "x"),
        kv("r1", "f", "b", 2, "yes"),
        kv("r1", "f", "b", 1, "no"),
        kv("r1", "f", "c", 1, "yes"),
        kv("r2", "f", "b", 1, "no"),
    ];
    let mut f = ColumnValueFilter::new("f", "b", CompareOperator::Equal, bin("yes"));
    assert_eq!(show(&scan(&mut f, &cells)), ["r1/f:b/2=yes"]);
    assert!(f.is_family_essential(b"f") && !f.is_family_essential(b"g"));
}

// ---------------------------------------------------------------------------------------------
// SingleColumnValueFilter (TestSingleColumnValueFilter)
// ---------------------------------------------------------------------------------------------

const SCV_ROW: &str = "test";
const SCV_FAMILY: &str = "test";
const SCV_QUALIFIER: &str = "foo";
const FULLSTRING_1: &str = "The quick brown fox jumps over the lazy dog.";
const FULLSTRING_2: &str = "The slow grey fox trips over the lazy dog.";

fn scv_cell(value: &str) -> Cell {
    kv(SCV_ROW, SCV_FAMILY, SCV_QUALIFIER, 1, value)
}

#[test]
fn single_column_value_filter_basic() {
    let mut f = SingleColumnValueFilter::new(
        SCV_FAMILY,
        SCV_QUALIFIER,
        CompareOperator::GreaterOrEqual,
        bin("ab"),
    );
    for v in ["ab", "abc", "abcd"] {
        assert_eq!(f.filter_cell(scv_cell(v).as_cell_ref()), I, "{v}");
    }
    assert!(!f.filter_row());
    f.reset();
    assert_eq!(f.filter_cell(scv_cell("a").as_cell_ref()), NR);
    assert_eq!(f.filter_cell(scv_cell("ab").as_cell_ref()), NR);
    assert!(!f.filter_all_remaining());
    assert!(f.filter_row());
    let mut f = f.with_latest_version_only(false);
    f.reset();
    assert_eq!(f.filter_cell(scv_cell("a").as_cell_ref()), I);
    assert_eq!(f.filter_cell(scv_cell("ab").as_cell_ref()), I);
    assert!(!f.filter_row());
}

#[test]
fn single_column_value_filter_null_substring_and_regex() {
    let mut f = SingleColumnValueFilter::new(
        SCV_FAMILY,
        SCV_QUALIFIER,
        CompareOperator::NotEqual,
        Comparator::Null,
    )
    .with_filter_if_missing(true);
    assert_eq!(f.filter_cell(scv_cell(FULLSTRING_1).as_cell_ref()), I);
    assert!(!f.filter_row());
    f.reset();
    assert_eq!(
        f.filter_cell(kv(SCV_ROW, SCV_FAMILY, "qual2", 1, FULLSTRING_2).as_cell_ref()),
        I
    );
    assert!(f.filter_row(), "column missing");

    for comparator in [
        Comparator::substring("quick"),
        regex(".+quick.+"),
        Comparator::RegexString(
            RegexStringComparator::with_flags(
                "QuIcK",
                RegexStringComparator::CASE_INSENSITIVE | RegexStringComparator::DOTALL,
            )
            .unwrap(),
        ),
    ] {
        let mut f = SingleColumnValueFilter::new(
            SCV_FAMILY,
            SCV_QUALIFIER,
            CompareOperator::Equal,
            comparator,
        );
        assert_eq!(f.filter_cell(scv_cell(FULLSTRING_1).as_cell_ref()), I);
        assert_eq!(
            f.filter_cell(scv_cell(FULLSTRING_2).as_cell_ref()),
            I,
            "already matched"
        );
        assert!(!f.filter_all_remaining());
        assert!(!f.filter_row());
    }
}

#[test]
fn single_column_value_filter_over_rows() {
    let cells = vec![
        kv("r1", "f", "a", 1, "x"),
        kv("r1", "f", "q", 2, "match"),
        kv("r1", "f", "q", 1, "other"),
        kv("r1", "f", "z", 1, "x"),
        kv("r2", "f", "a", 1, "x"),
        kv("r2", "f", "q", 2, "other"),
        kv("r2", "f", "q", 1, "match"),
        kv("r3", "f", "a", 1, "x"),
    ];
    let scvf = || SingleColumnValueFilter::new("f", "q", CompareOperator::Equal, bin("match"));
    assert_eq!(row_keys(&scan(&mut scvf(), &cells)), ["r1", "r3"]);
    assert_eq!(
        row_keys(&scan(&mut scvf().with_filter_if_missing(true), &cells)),
        ["r1"]
    );
    let rows = scan(&mut scvf().with_latest_version_only(false), &cells);
    assert_eq!(row_keys(&rows), ["r1", "r2", "r3"]);
    assert_eq!(
        rows[1].len(),
        3,
        "every cell of r2 is kept once an older version matched"
    );
    let mut exclude =
        SingleColumnValueExcludeFilter::new("f", "q", CompareOperator::Equal, bin("match"));
    assert_eq!(
        show(&scan(&mut exclude, &cells)),
        ["r1/f:a/1=x", "r1/f:z/1=x", "r3/f:a/1=x"]
    );
    let mut exclude =
        SingleColumnValueExcludeFilter::new("f", "q", CompareOperator::Equal, bin("match"))
            .with_filter_if_missing(true);
    assert_eq!(
        show(&scan(&mut exclude, &cells)),
        ["r1/f:a/1=x", "r1/f:z/1=x"]
    );
}

#[test]
fn single_column_value_exclude_filter_drops_rows_left_empty() {
    let cells = vec![kv("r1", "f", "q", 1, "match")];
    let mut f = SingleColumnValueExcludeFilter::new("f", "q", CompareOperator::Equal, bin("match"));
    assert!(scan(&mut f, &cells).is_empty());
}

#[test]
fn single_column_value_filter_essential_families() {
    let f = SingleColumnValueFilter::new("f", "q", CompareOperator::Equal, bin("v"));
    assert!(f.is_family_essential(b"other"));
    let f = f.with_filter_if_missing(true);
    assert!(f.is_family_essential(b"f") && !f.is_family_essential(b"other"));
    let list = FilterList::and(vec![Box::new(f), Box::new(KeyOnlyFilter::new(false))]);
    assert!(
        list.is_family_essential(b"other"),
        "any member's essential family counts"
    );
}

// ---------------------------------------------------------------------------------------------
// FilterList (TestFilterList)
// ---------------------------------------------------------------------------------------------

fn first_on_row(row: &[u8]) -> Vec<u8> {
    row.to_vec()
}

#[test]
fn filter_list_must_pass_one() {
    // TestFilterList.testMPONE.
    let mut f = FilterList::or(vec![
        Box::new(PageFilter::new(2)),
        Box::new(WhileMatchFilter::new(Box::new(PrefixFilter::new("yyy")))),
    ]);
    f.reset();
    assert!(!f.filter_all_remaining());
    let rowkey = b"yyyyyyyyy";
    assert!(!f.filter_row_key(&first_on_row(rowkey)));
    assert_eq!(
        f.filter_cell(kvb(rowkey, rowkey, &[0], 1, &[0]).as_cell_ref()),
        I
    );
    assert!(!f.filter_row());
    // Only the PageFilter passes.
    assert!(!f.filter_row_key(b"z"));
    assert_eq!(
        f.filter_cell(kvb(b"z", b"z", &[0], 1, &[0]).as_cell_ref()),
        I
    );
    assert!(!f.filter_row());
    // Page full and prefix passed: every row is filtered.
    assert!(f.filter_row_key(b"yyy"));
    assert_ne!(
        f.filter_cell(kvb(b"yyy", b"yyy", &[0], 1, &[0]).as_cell_ref()),
        I
    );
    assert!(!f.filter_row());
    assert!(f.filter_row_key(b"z"));
    assert!(f.filter_all_remaining());
}

#[test]
fn filter_list_must_pass_all() {
    // TestFilterList.testMPALL.
    let mut f = FilterList::and(vec![
        Box::new(PageFilter::new(2)),
        Box::new(WhileMatchFilter::new(Box::new(PrefixFilter::new("yyy")))),
    ]);
    f.reset();
    assert!(!f.filter_all_remaining());
    let rowkey = b"yyyyyyyyy";
    assert!(!f.filter_row_key(rowkey));
    assert_eq!(
        f.filter_cell(kvb(rowkey, rowkey, &[0], 1, &[0]).as_cell_ref()),
        I
    );
    f.reset();
    assert!(f.filter_row_key(b"z"));
    assert_eq!(
        f.filter_cell(kvb(b"z", b"z", b"z", 1, b"z").as_cell_ref()),
        NR
    );
}

#[test]
fn filter_list_ordering() {
    // TestFilterList.testOrdering: the prefix keeps including after the page is full.
    let mut f = FilterList::or(vec![
        Box::new(PrefixFilter::new("yyy")),
        Box::new(PageFilter::new(2)),
    ]);
    f.reset();
    for (rowkey, times) in [
        (&b"yyyyyyyy"[..], 2),
        (&b"xxxxxxx"[..], 2),
        (&b"yyy"[..], 2),
    ] {
        for i in 0..times {
            assert!(!f.filter_row_key(rowkey));
            assert_eq!(
                f.filter_cell(kvb(rowkey, rowkey, &[i], 1, &[i]).as_cell_ref()),
                I
            );
            assert!(!f.filter_row());
        }
    }
}

#[test]
fn filter_list_two_filters_must_pass_one() {
    let (r1, r11, r2) = (&b"Row1"[..], &b"Row11"[..], &b"Row2"[..]);
    let mut f = FilterList::or(vec![]);
    f.add_filter(Box::new(PrefixFilter::new(r1)));
    f.filter_row_key(r1);
    assert_eq!(f.filter_cell(kvb(r1, r1, r1, 1, b"").as_cell_ref()), I);
    assert_eq!(f.filter_cell(kvb(r11, r11, r11, 1, b"").as_cell_ref()), I);
    f.reset();
    f.filter_row_key(r2);
    assert_eq!(f.filter_cell(kvb(r2, r2, r2, 1, b"").as_cell_ref()), SKIP);

    let mut f = FilterList::or(vec![Mock::new(NC).boxed(), Box::new(PrefixFilter::new(r1))]);
    f.filter_row_key(r1);
    assert_eq!(f.filter_cell(kvb(r1, r1, r1, 1, b"").as_cell_ref()), I);
    assert_eq!(f.filter_cell(kvb(r11, r11, r11, 1, b"").as_cell_ref()), I);
    f.reset();
    f.filter_row_key(r2);
    assert_eq!(f.filter_cell(kvb(r2, r2, r2, 1, b"").as_cell_ref()), NC);

    // testFilterListWithInclusiveStopFilterMustPassOne.
    let mut f = FilterList::or(vec![
        Mock::new(NC).boxed(),
        Box::new(InclusiveStopFilter::new(r1)),
    ]);
    f.filter_row_key(r1);
    assert_eq!(f.filter_cell(kvb(r1, r1, r1, 1, b"").as_cell_ref()), I);
    assert_eq!(f.filter_cell(kvb(r11, r11, r11, 1, b"").as_cell_ref()), I);
    f.reset();
    f.filter_row_key(r2);
    assert_eq!(f.filter_cell(kvb(r2, r2, r2, 1, b"").as_cell_ref()), NC);
}

#[test]
fn filter_list_merges_alternating_members() {
    // TestFilterList.testFilterCell.
    let members = || -> Vec<Box<dyn Filter>> {
        vec![
            Mock::new(I).boxed(),
            Box::new(Alternate {
                codes: [INC, I],
                next: 0,
            }),
            Box::new(Alternate {
                codes: [I, SKIP],
                next: 0,
            }),
        ]
    };
    // Two columns, so OR asks every member both times.
    let (a, b) = (kv("r", "f", "a", 1, "v"), kv("r", "f", "b", 1, "v"));
    let mut or = FilterList::or(members());
    assert_eq!(or.filter_cell(a.as_cell_ref()), I);
    assert_eq!(or.filter_cell(b.as_cell_ref()), I);
    let mut and = FilterList::and(members());
    assert_eq!(and.filter_cell(a.as_cell_ref()), INC);
    assert_eq!(and.filter_cell(b.as_cell_ref()), SKIP);
}

#[test]
fn filter_list_hints() {
    // TestFilterList.testHintPassThru.
    let min = kvb(&0u64.to_be_bytes(), b"", b"", 1, b"");
    let max = kvb(&i64::MAX.to_be_bytes(), b"", b"", 1, b"");
    let no_hint = || Mock::new(I).boxed();
    let min_hint = || Mock::hint(HINT, min.clone()).boxed();
    let max_hint = || Mock::hint(HINT, max.clone()).boxed();
    let cell = kv("x", "f", "q", 1, "v");
    let hint_of = |mut f: FilterList, filter_first: bool| -> Option<Vec<u8>> {
        if filter_first {
            f.filter_cell(cell.as_cell_ref());
        }
        f.next_cell_hint(cell.as_cell_ref())
            .map(OwnedKey::into_bytes)
    };
    let min_key = Some(min.key_bytes().to_vec());
    let max_key = Some(max.key_bytes().to_vec());
    assert_eq!(
        hint_of(FilterList::or(vec![min_hint(), max_hint()]), false),
        min_key
    );
    assert_eq!(
        hint_of(
            FilterList::or(vec![min_hint(), max_hint(), no_hint()]),
            false
        ),
        None
    );
    assert_eq!(
        hint_of(FilterList::or(vec![no_hint(), max_hint()]), false),
        None
    );
    assert_eq!(
        hint_of(FilterList::or(vec![max_hint(), max_hint()]), false),
        max_key
    );
    // AND evaluates lazily: the first member asking to seek ends the evaluation, so its hint
    // is the list's.
    assert_eq!(
        hint_of(FilterList::and(vec![min_hint(), max_hint()]), true),
        min_key
    );
    assert_eq!(
        hint_of(FilterList::and(vec![max_hint(), min_hint()]), true),
        max_key
    );
    assert_eq!(
        hint_of(
            FilterList::and(vec![no_hint(), min_hint(), max_hint()]),
            true
        ),
        min_key
    );
    assert_eq!(
        hint_of(FilterList::and(vec![no_hint(), max_hint()]), true),
        max_key
    );
    assert_eq!(
        hint_of(FilterList::and(vec![no_hint(), min_hint()]), true),
        min_key
    );
}

#[test]
fn filter_list_transform_must_pass_one() {
    // TestFilterList.testTransformMPO.
    let fam =
        || -> Box<dyn Filter> { Box::new(FamilyFilter::new(CompareOperator::Equal, bin("fam"))) };
    let qual = |q: &str| -> Box<dyn Filter> {
        Box::new(QualifierFilter::new(CompareOperator::Equal, bin(q)))
    };
    let mut f = FilterList::or(vec![
        Box::new(FilterList::and(vec![
            fam(),
            qual("qual1"),
            Box::new(KeyOnlyFilter::new(false)),
        ])),
        Box::new(FilterList::and(vec![fam(), qual("qual2")])),
    ]);
    let q1 = kv("row", "fam", "qual1", 1, "value");
    let q2 = kv("row", "fam", "qual2", 1, "value");
    let q3 = kv("row", "fam", "qual3", 1, "value");
    assert_eq!(f.filter_cell(q1.as_cell_ref()), I);
    assert_eq!(f.transform_cell(q1.clone()).value(), b"");
    assert_eq!(f.filter_cell(q2.as_cell_ref()), I);
    assert_eq!(f.transform_cell(q2.clone()).value(), b"value");
    assert_eq!(f.filter_cell(q3.as_cell_ref()), SKIP);
}

#[test]
fn filter_list_with_multiple_versions_in_same_row() {
    let kv1 = kv("row", "fam", "qual", 1, "value");
    let kv2 = kv("row", "fam", "qual", 2, "value");
    let kv3 = kv("row", "fam", "qual", 3, "value");
    let mut f = FilterList::or(vec![Box::new(ColumnPaginationFilter::new(1, 0))]);
    assert_eq!(f.filter_cell(kv1.as_cell_ref()), INC);
    assert_eq!(f.filter_cell(kv2.as_cell_ref()), NC);
    assert_eq!(f.filter_cell(kv3.as_cell_ref()), NC);
    let mut f = FilterList::or(vec![Box::new(ColumnPaginationFilter::new(1, 1))]);
    for c in [&kv1, &kv2, &kv3] {
        assert_eq!(f.filter_cell(c.as_cell_ref()), NC);
    }
}

#[test]
fn filter_list_must_pass_one_with_seek_hint() {
    let mut f = FilterList::or(vec![Box::new(ColumnPaginationFilter::with_column_offset(
        1, "c",
    ))]);
    let cells = [
        kv("row", "fam", "a", 1, "value"),
        kv("row", "fam", "b", 2, "value"),
        kv("row", "fam", "c", 3, "value"),
        kv("row", "fam", "c", 4, "value"),
    ];
    let codes: Vec<ReturnCode> = cells
        .iter()
        .map(|c| f.filter_cell(c.as_cell_ref()))
        .collect();
    assert_eq!(codes, [HINT, HINT, INC, NC]);
}

#[test]
fn filter_list_or_does_not_reask_members_about_covered_cells() {
    // TestFilterList.testShouldPassCurrentCellToFilter.
    let kv1 = kv("row", "fam", "a", 1, "value");
    let kv2 = kv("row", "fam", "a", 2, "value");
    let kv3 = kv("row", "fam", "b", 3, "value");
    let kv4 = kv("row1", "fam", "c", 4, "value");
    for (rc, asked) in [
        (NC, [true, false, true]),
        (INC, [true, false, true]),
        (NR, [true, false, false]),
        (INR, [true, false, false]),
    ] {
        let mock = Mock::new(rc);
        let mut f = FilterList::or(vec![mock.boxed()]);
        let mut before = 0;
        for (cell, expect) in [&kv1, &kv2, &kv3].into_iter().zip(asked) {
            f.filter_cell(cell.as_cell_ref());
            assert_eq!(mock.seen() > before, expect, "{rc:?} {cell}");
            before = mock.seen();
        }
        f.reset();
        f.filter_cell(kv4.as_cell_ref());
        assert!(mock.seen() > before, "asked again after reset");
    }
}

#[test]
fn filter_list_or_reasks_next_row_members_in_the_next_family() {
    // TestFilterList.testRowCountFilter.
    let mock = Mock::new(NR);
    let mut f = FilterList::or(vec![mock.boxed()]);
    f.filter_cell(kv("row", "fam1", "a", 1, "value").as_cell_ref());
    f.filter_cell(kv("row", "fam2", "a", 2, "value").as_cell_ref());
    assert_eq!(mock.seen(), 2);
}

#[test]
fn filter_list_maximal_step_rule() {
    // TestFilterList.testTheMaximalRule.
    let cell = kv("row", "fam", "a", 1, "value");
    let rc =
        |members: Vec<Box<dyn Filter>>| FilterList::and(members).filter_cell(cell.as_cell_ref());
    let m = |rc: ReturnCode| Mock::new(rc).boxed();
    assert_eq!(rc(vec![m(I), m(INC)]), INC);
    assert_eq!(rc(vec![m(INC), m(INR)]), INR);
    assert_eq!(
        rc(vec![m(NC), m(SKIP), m(HINT)]),
        NC,
        "lazy: the hint member is never asked"
    );
    assert_eq!(rc(vec![m(NC), m(HINT)]), NC);
    assert_eq!(rc(vec![m(INR), m(I)]), INR);
    assert_eq!(rc(vec![m(INR), m(INC), m(I), m(SKIP)]), NR);
    assert_eq!(
        rc(vec![m(INC), Box::new(FilterList::and(vec![m(INR), m(NC)]))]),
        NR
    );
    assert_eq!(rc(vec![m(INR), m(NR)]), NR);
}

#[test]
fn filter_list_minimal_step_rule() {
    // TestFilterList.testTheMinimalRule.
    let cell = kv("row", "fam", "a", 1, "value");
    let rc =
        |members: Vec<Box<dyn Filter>>| FilterList::or(members).filter_cell(cell.as_cell_ref());
    let m = |rc: ReturnCode| Mock::new(rc).boxed();
    assert_eq!(rc(vec![m(I), m(INC)]), I);
    assert_eq!(rc(vec![m(INC), m(INR)]), INC);
    assert_eq!(rc(vec![m(NC), m(SKIP), m(HINT)]), SKIP);
    assert_eq!(rc(vec![m(NC), m(HINT)]), SKIP);
    assert_eq!(rc(vec![m(INR), m(I)]), I);
    assert_eq!(rc(vec![m(INR), m(INC), m(I), m(SKIP)]), I);
    assert_eq!(
        rc(vec![m(INC), Box::new(FilterList::or(vec![m(INR), m(NC)]))]),
        INC
    );
    assert_eq!(rc(vec![m(HINT), m(HINT)]), HINT);
}

#[test]
fn merge_tables_match_hbase_javadoc() {
    // Rows: the member's code; columns: the code merged so far, in the order
    // Include, IncludeAndNextCol, IncludeAndSeekNextRow, Skip, NextCol, NextRow, Hint.
    let order = [I, INC, INR, SKIP, NC, NR, HINT];
    let and_table = [
        [I, INC, INR, SKIP, NC, NR, HINT],
        [INC, INC, INR, NC, NC, NR, HINT],
        [INR, INR, INR, NR, NR, NR, HINT],
        [SKIP, NC, NR, SKIP, NC, NR, HINT],
        [NC, NC, NR, NC, NC, NR, HINT],
        [NR, NR, NR, NR, NR, NR, HINT],
        [HINT, HINT, HINT, HINT, HINT, HINT, HINT],
    ];
    let or_table = [
        [I, I, I, I, I, I, I],
        [I, INC, INC, I, INC, INC, I],
        [I, INC, INR, I, INC, INR, I],
        [I, I, I, SKIP, SKIP, SKIP, SKIP],
        [I, INC, INC, SKIP, NC, NC, SKIP],
        [I, INC, INR, SKIP, NC, NR, SKIP],
        [I, I, I, SKIP, SKIP, SKIP, HINT],
    ];
    for (li, local) in order.iter().enumerate() {
        for (ri, merged) in order.iter().enumerate() {
            assert_eq!(
                list::merge_and(*merged, *local),
                and_table[li][ri],
                "AND {local:?} into {merged:?}"
            );
            assert_eq!(
                list::merge_or(*merged, *local),
                or_table[li][ri],
                "OR {local:?} into {merged:?}"
            );
        }
    }
}

#[test]
fn reversed_filter_list_hints() {
    // TestFilterList.testReversedFilterListWithMockSeekHintFilter.
    let kv1 = kv("row1", "fam", "a", 1, "value");
    let kv2 = kv("row2", "fam", "a", 1, "value");
    let kv3 = kv("row3", "fam", "a", 1, "value");
    let members = || -> Vec<Box<dyn Filter>> {
        vec![
            Mock::hint(HINT, kv1.clone()).boxed(),
            Mock::hint(HINT, kv2.clone()).boxed(),
            Mock::hint(HINT, kv3.clone()).boxed(),
        ]
    };
    let mut or = FilterList::or(members());
    or.set_reversed(true);
    assert_eq!(or.filter_cell(kv1.as_cell_ref()), HINT);
    assert_eq!(
        or.next_cell_hint(kv1.as_cell_ref()).unwrap().as_bytes(),
        kv3.key_bytes()
    );
    let mut and = FilterList::and(members());
    and.set_reversed(true);
    assert_eq!(and.filter_cell(kv1.as_cell_ref()), HINT);
    assert_eq!(
        and.next_cell_hint(kv1.as_cell_ref()).unwrap().as_bytes(),
        kv1.key_bytes()
    );
}

#[test]
fn reversed_filter_list_with_or() {
    // TestFilterList.testReversedFilterListWithOR.
    let (r22, r2, r1) = (&b"Row22"[..], &b"Row2"[..], &b"Row1"[..]);
    let mut f = FilterList::or(vec![]);
    f.set_reversed(true);
    f.add_filter(Box::new(PrefixFilter::new(r2)));
    f.filter_row_key(r22);
    assert_eq!(f.filter_cell(kvb(r22, r22, r22, 1, b"").as_cell_ref()), I);
    assert_eq!(f.filter_cell(kvb(r2, r2, r2, 1, b"").as_cell_ref()), I);
    f.reset();
    f.filter_row_key(r1);
    assert_eq!(f.filter_cell(kvb(r1, r1, r1, 1, b"").as_cell_ref()), SKIP);

    let mut f = FilterList::or(vec![]);
    f.set_reversed(true);
    f.add_filter(Mock::new(NC).boxed());
    f.add_filter(Box::new(PrefixFilter::new(r2)));
    f.filter_row_key(r22);
    assert_eq!(f.filter_cell(kvb(r22, r22, r22, 1, b"").as_cell_ref()), I);
    assert_eq!(f.filter_cell(kvb(r2, r2, r2, 1, b"").as_cell_ref()), I);
    f.reset();
    f.filter_row_key(r1);
    assert_eq!(f.filter_cell(kvb(r1, r1, r1, 1, b"").as_cell_ref()), NC);
}

#[test]
fn filter_list_key_only_transform() {
    // TestFilterList.testKeyOnlyFilterTransformCell.
    let kv1 = kv("row", "cf", "column1", 1, "value1");
    let kv2 = kv("row", "cf", "column1", 2, "value2");
    let inner = || -> Box<dyn Filter> {
        Box::new(FilterList::or(vec![
            Box::new(SingleColumnValueFilter::new(
                "cf",
                "column1",
                CompareOperator::Equal,
                bin("value1"),
            )),
            Box::new(SingleColumnValueFilter::new(
                "cf",
                "column1",
                CompareOperator::Equal,
                bin("value2"),
            )),
        ]))
    };
    for mut f in [
        FilterList::and(vec![Box::new(KeyOnlyFilter::new(false)), inner()]),
        FilterList::and(vec![inner(), Box::new(KeyOnlyFilter::new(false))]),
    ] {
        for c in [&kv1, &kv2] {
            assert_eq!(f.filter_cell(c.as_cell_ref()), I);
            assert_eq!(f.transform_cell(c.clone()).value(), b"");
        }
    }
}

#[test]
fn empty_filter_list_passes_everything() {
    let cell = kv("row", "cf", "column1", 1, "value");
    for mut f in [FilterList::and(vec![]), FilterList::or(vec![])] {
        assert_eq!(f.filter_cell(cell.as_cell_ref()), I);
        assert_eq!(f.transform_cell(cell.clone()), cell);
        assert!(!f.filter_row_key(b"row") && !f.filter_row() && !f.filter_all_remaining());
        assert!(f.is_family_essential(b"cf"));
    }
}

#[test]
fn filter_list_transforms_only_including_members() {
    // TestFilterList.testTransformCell.
    let cell = kv("row", "cf", "column1", 1, "value");
    let (a, b, c) = (Mock::new(I), Mock::new(NR), Mock::new(HINT));
    let mut f = FilterList::or(vec![a.boxed(), b.boxed(), c.boxed()]);
    assert_eq!(f.filter_cell(cell.as_cell_ref()), I);
    assert_eq!(f.transform_cell(cell.clone()), cell);
    let flags = [&a, &b, &c].map(|m| m.transformed.load(AtomicOrdering::SeqCst));
    assert_eq!(flags, [true, false, false]);

    let (a, b, c) = (Mock::new(I), Mock::new(INR), Mock::new(INC));
    let mut f = FilterList::and(vec![a.boxed(), b.boxed(), c.boxed()]);
    assert_eq!(f.filter_cell(cell.as_cell_ref()), INR);
    assert_eq!(f.transform_cell(cell.clone()), cell);
    let flags = [&a, &b, &c].map(|m| m.transformed.load(AtomicOrdering::SeqCst));
    assert_eq!(flags, [true, true, true]);
}

#[test]
fn filter_list_or_when_cells_mismatch_previous_codes() {
    // TestFilterList.testFilterListWithORWhenPassingCellMismatchPreviousRC.
    let kv1 = kv("row1", "fam", "a", 100, "value");
    let kv2 = kv("row1", "fam", "a", 99, "value");
    let kv3 = kv("row1", "fam", "b", 1, "value");
    let kv4 = kv("row1", "fan", "a", 1, "value");
    let sub1 = Scripted {
        script: vec![
            (kv1.clone(), INC),
            (kv2.clone(), NC),
            (kv3.clone(), INC),
            (kv4.clone(), INC),
        ],
        all_remaining: false,
    };
    let sub2 = Scripted {
        script: vec![
            (kv1.clone(), SKIP),
            (kv2.clone(), NR),
            (kv3.clone(), NR),
            (kv4.clone(), INR),
        ],
        all_remaining: false,
    };
    let mut f = FilterList::or(vec![Box::new(sub1), Box::new(sub2)]);
    let codes: Vec<ReturnCode> = [&kv1, &kv2, &kv3, &kv4]
        .iter()
        .map(|c| f.filter_cell(c.as_cell_ref()))
        .collect();
    assert_eq!(codes, [I, NC, INC, INC]);

    // One member done, the other hints: the list hints.
    let done = Scripted {
        script: vec![(kv1.clone(), NR)],
        all_remaining: true,
    };
    let hinting = Scripted {
        script: vec![(kv1.clone(), HINT)],
        all_remaining: false,
    };
    let mut f = FilterList::or(vec![Box::new(done), Box::new(hinting.clone())]);
    assert_eq!(f.filter_cell(kv1.as_cell_ref()), HINT);
    let mut f = FilterList::or(vec![Box::new(hinting.clone()), Box::new(hinting)]);
    assert_eq!(f.filter_cell(kv1.as_cell_ref()), HINT);
    // Every member done: Skip.
    let mut f = FilterList::or(vec![Mock::done(I).boxed()]);
    assert_eq!(f.filter_cell(kv1.as_cell_ref()), SKIP);
}

#[test]
fn filter_list_and_answers_next_row_for_a_done_member() {
    let mut f = FilterList::and(vec![Mock::new(I).boxed(), Mock::done(I).boxed()]);
    assert_eq!(f.filter_cell(kv("r", "f", "q", 1, "v").as_cell_ref()), NR);
    assert!(f.filter_all_remaining());
    assert!(f.filter_row_key(b"r"));
}

#[test]
fn filter_lists_over_the_data_set() {
    // TestFilter.testFilterList: AND of row, qualifier and value tests on one family.
    let family_one: Vec<Cell> = dataset()
        .into_iter()
        .filter(|c| c.family() == FAMILIES[0].as_bytes())
        .collect();
    let mut f = FilterList::and(vec![
        Box::new(RowFilter::new(CompareOperator::Equal, regex(".+-2"))),
        Box::new(QualifierFilter::new(CompareOperator::Equal, regex(".+-2"))),
        Box::new(ValueFilter::new(
            CompareOperator::Equal,
            Comparator::substring("One"),
        )),
    ]);
    assert_eq!(
        show(&scan(&mut f, &family_one)),
        expected(&[(ROWS_ONE[2], FAMILIES[0], QUALIFIERS_ONE[2], VALUES[0])])
    );
    // OR of the same kind of tests keeps everything.
    let mut f = FilterList::or(vec![
        Box::new(RowFilter::new(CompareOperator::Equal, regex(".+Two.+"))),
        Box::new(QualifierFilter::new(CompareOperator::Equal, regex(".+-2"))),
        Box::new(ValueFilter::new(
            CompareOperator::Equal,
            Comparator::substring("One"),
        )),
    ]);
    assert_shape(&scan(&mut f, &dataset()), NUM_ROWS, COLS_PER_ROW);
}

#[test]
fn page_filter_inside_lists_depends_on_member_order() {
    let only_group_two = || {
        SingleColumnValueFilter::new(
            FAMILIES[0],
            QUALIFIERS_TWO[0],
            CompareOperator::Equal,
            bin(VALUES[1]),
        )
        .with_filter_if_missing(true)
    };
    // The value test decides first, so dropped rows never reach the page.
    let mut f = FilterList::and(vec![
        Box::new(only_group_two()),
        Box::new(PageFilter::new(2)),
    ]);
    assert_eq!(
        row_keys(&scan(&mut f, &dataset())),
        ["testRowTwo-0", "testRowTwo-2"]
    );
    // The page counts first: two group-one rows use it up, then the scan ends.
    let mut f = FilterList::and(vec![
        Box::new(PageFilter::new(2)),
        Box::new(only_group_two()),
    ]);
    assert!(scan(&mut f, &dataset()).is_empty());
    assert!(f.filter_all_remaining());
    // Nested: (page(1) OR prefix) AND key-only.
    let mut f = FilterList::and(vec![
        Box::new(FilterList::or(vec![
            Box::new(PageFilter::new(1)),
            Box::new(PrefixFilter::new("testRowTwo-3")),
        ])),
        Box::new(KeyOnlyFilter::new(false)),
    ]);
    let rows = scan(&mut f, &dataset());
    assert_eq!(row_keys(&rows), ["testRowOne-0", "testRowTwo-3"]);
    assert!(rows.iter().flatten().all(|c| c.value().is_empty()));
}

// ---------------------------------------------------------------------------------------------
// Protocol details
// ---------------------------------------------------------------------------------------------

#[test]
fn finish_row_asks_filter_row_even_without_has_filter_row() {
    // RowFilter says it has no row filter, yet HBase consults its filter_row.
    let mut f = RowFilter::new(CompareOperator::Equal, bin("keep"));
    assert!(!f.has_filter_row());
    f.filter_out_row_for_test();
    let mut cells = vec![kv("drop", "f", "q", 1, "v")];
    assert!(finish_row(&mut f, &mut cells));
    assert!(cells.is_empty());
    // An empty row is dropped without asking filter_row (a PageFilter does not count it).
    let mut page = PageFilter::new(1);
    assert!(finish_row(&mut page, &mut Vec::new()));
    assert!(!page.filter_all_remaining());
    let mut cells = vec![kv("r", "f", "q", 1, "v")];
    assert!(!finish_row(&mut page, &mut cells));
    assert!(page.filter_all_remaining());
}

impl RowFilter {
    /// Puts the filter in the state "this row's key was rejected".
    fn filter_out_row_for_test(&mut self) {
        self.filter_row_key(b"not-keep");
    }
}

#[test]
fn box_clone_gives_fresh_state() {
    let mut page = PageFilter::new(1);
    scan(&mut page, &dataset());
    assert!(page.filter_all_remaining());
    let copy = page.box_clone();
    assert!(!copy.filter_all_remaining());
    let mut while_prefix: Box<dyn Filter> = Box::new(WhileMatchFilter::new(Box::new(
        PrefixFilter::new("testRowOne"),
    )));
    scan(while_prefix.as_mut(), &dataset());
    assert!(while_prefix.filter_all_remaining());
    let mut copy = while_prefix.clone();
    assert!(!copy.filter_all_remaining());
    assert_eq!(scan(copy.as_mut(), &dataset()).len(), 3);
    let mut list = FilterList::and(vec![Box::new(PageFilter::new(1))]);
    scan(&mut list, &dataset());
    assert!(!list.box_clone().filter_all_remaining());
}

#[test]
fn hints_never_move_backwards_in_the_reference_scan() {
    // A hint at or before the current cell is a plain skip.
    let cells = vec![kv("r", "f", "a", 1, "v"), kv("r", "f", "b", 1, "v")];
    let mut f = Mock::hint(HINT, kv("a", "f", "a", 1, "v"));
    assert!(scan(&mut f, &cells).is_empty());
    assert_eq!(f.seen(), 2);
}

// ---------------------------------------------------------------------------------------------
// The filter language (TestParseFilter)
// ---------------------------------------------------------------------------------------------

fn parse(s: &str) -> Box<dyn Filter> {
    parse_filter(s).unwrap_or_else(|e| panic!("{s}: {e}"))
}

/// Parses `s` and checks it equals `expected` (by their debug forms: same types, same
/// configuration, fresh state).
fn assert_parses_to(s: &str, expected: &dyn Filter) {
    assert_eq!(format!("{:?}", parse(s)), format!("{expected:?}"), "{s}");
}

fn parse_err(s: &str) -> FilterError {
    match parse_filter(s) {
        Ok(f) => panic!("{s} parsed to {f:?}"),
        Err(e) => e,
    }
}

#[test]
fn parse_each_filter() {
    assert_parses_to("KeyOnlyFilter()", &KeyOnlyFilter::new(false));
    assert_parses_to("KeyOnlyFilter(TRUE)", &KeyOnlyFilter::new(true));
    assert_parses_to(" FirstKeyOnlyFilter( ) ", &FirstKeyOnlyFilter::new());
    assert_parses_to(" PrefixFilter('row' ) ", &PrefixFilter::new("row"));
    assert_parses_to(
        " ColumnPrefixFilter('qualifier' ) ",
        &ColumnPrefixFilter::new("qualifier"),
    );
    assert_parses_to(
        " MultipleColumnPrefixFilter('qualifier1', 'qualifier2' ) ",
        &MultipleColumnPrefixFilter::new(["qualifier1", "qualifier2"]).unwrap(),
    );
    assert_parses_to(" ColumnCountGetFilter(4)", &ColumnCountGetFilter::new(4));
    assert_parses_to(" PageFilter(4)", &PageFilter::new(4));
    assert_parses_to(
        "ColumnPaginationFilter(4, 6)",
        &ColumnPaginationFilter::new(4, 6),
    );
    assert_parses_to(
        "InclusiveStopFilter ('row 3')",
        &InclusiveStopFilter::new("row 3"),
    );
    assert_parses_to(
        "TimestampsFilter(9223372036854775806, 6)",
        &TimestampsFilter::new([6, 9_223_372_036_854_775_806]).unwrap(),
    );
    assert_parses_to("TimestampsFilter()", &TimestampsFilter::new([]).unwrap());
    assert_parses_to(
        "RowFilter ( =,   'binary:regionse')",
        &RowFilter::new(CompareOperator::Equal, bin("regionse")),
    );
    assert_parses_to(
        "FamilyFilter(>=, 'binaryprefix:pre')",
        &FamilyFilter::new(
            CompareOperator::GreaterOrEqual,
            Comparator::binary_prefix(b"pre".to_vec()),
        ),
    );
    assert_parses_to(
        "QualifierFilter(=, 'regexstring:pre*')",
        &QualifierFilter::new(CompareOperator::Equal, regex("pre*")),
    );
    assert_parses_to(
        "ValueFilter(!=, 'substring:pre')",
        &ValueFilter::new(CompareOperator::NotEqual, Comparator::substring("pre")),
    );
    assert_parses_to(
        "ColumnRangeFilter('abc', true, 'xyz', false)",
        &ColumnRangeFilter::new(Some(b"abc".to_vec()), true, Some(b"xyz".to_vec()), false),
    );
    assert_parses_to(
        "ColumnRangeFilter('', true, 'c', FALSE)",
        &ColumnRangeFilter::new(None, true, Some(b"c".to_vec()), false),
    );
    assert_parses_to(
        "SingleColumnValueFilter ('family', 'qualifier', >=, 'binary:a', true, false)",
        &SingleColumnValueFilter::new(
            "family",
            "qualifier",
            CompareOperator::GreaterOrEqual,
            bin("a"),
        )
        .with_filter_if_missing(true)
        .with_latest_version_only(false),
    );
    assert_parses_to(
        "SingleColumnValueFilter ('family', 'qualifier', >, 'binaryprefix:a')",
        &SingleColumnValueFilter::new(
            "family",
            "qualifier",
            CompareOperator::Greater,
            Comparator::binary_prefix(b"a".to_vec()),
        ),
    );
    assert_parses_to(
        "SingleColumnValueExcludeFilter ('family', 'qualifier', <, 'binaryprefix:a')",
        &SingleColumnValueExcludeFilter::new(
            "family",
            "qualifier",
            CompareOperator::Less,
            Comparator::binary_prefix(b"a".to_vec()),
        ),
    );
    assert_parses_to(
        "SingleColumnValueExcludeFilter ('family', 'qualifier', <=, 'binaryprefix:a', true, false)",
        &SingleColumnValueExcludeFilter::new(
            "family",
            "qualifier",
            CompareOperator::LessOrEqual,
            Comparator::binary_prefix(b"a".to_vec()),
        )
        .with_filter_if_missing(true)
        .with_latest_version_only(false),
    );
    assert_parses_to(
        "ColumnValueFilter ('family', 'qualifier', <, 'binaryprefix:value')",
        &ColumnValueFilter::new(
            "family",
            "qualifier",
            CompareOperator::Less,
            Comparator::binary_prefix(b"value".to_vec()),
        ),
    );
    assert_parses_to(
        "SKIP ValueFilter( =,  'binary:0')",
        &SkipFilter::new(Box::new(ValueFilter::new(CompareOperator::Equal, bin("0")))),
    );
    assert_parses_to(
        " WHILE   RowFilter ( !=, 'binary:row1')",
        &WhileMatchFilter::new(Box::new(RowFilter::new(
            CompareOperator::NotEqual,
            bin("row1"),
        ))),
    );
    assert_parses_to("(FirstKeyOnlyFilter())", &FirstKeyOnlyFilter::new());
    assert_parses_to(
        "(ValueFilter(!=, 'substring:pre'))",
        &ValueFilter::new(CompareOperator::NotEqual, Comparator::substring("pre")),
    );
}

fn prefix(p: &str) -> Box<dyn Filter> {
    Box::new(PrefixFilter::new(p))
}

#[test]
fn parse_compound_filters_and_precedence() {
    // TestParseFilter.testCompoundFilter1.
    assert_parses_to(
        " (PrefixFilter ('realtime')AND  FirstKeyOnlyFilter())",
        &FilterList::and(vec![
            prefix("realtime"),
            Box::new(FirstKeyOnlyFilter::new()),
        ]),
    );
    // testCompoundFilter2.
    assert_parses_to(
        "(PrefixFilter('realtime') AND QualifierFilter (>=, 'binary:e'))OR FamilyFilter (=, 'binary:qualifier') ",
        &FilterList::or(vec![
            Box::new(FilterList::and(vec![
                prefix("realtime"),
                Box::new(QualifierFilter::new(
                    CompareOperator::GreaterOrEqual,
                    bin("e"),
                )),
            ])),
            Box::new(FamilyFilter::new(CompareOperator::Equal, bin("qualifier"))),
        ]),
    );
    // testCompoundFilter3: SKIP binds tighter than AND, AND tighter than OR.
    let skip_family = || -> Box<dyn Filter> {
        Box::new(SkipFilter::new(Box::new(FamilyFilter::new(
            CompareOperator::Equal,
            Comparator::substring("hihi"),
        ))))
    };
    assert_parses_to(
        " ColumnPrefixFilter ('realtime')AND  FirstKeyOnlyFilter() OR SKIP FamilyFilter(=, 'substring:hihi')",
        &FilterList::or(vec![
            Box::new(FilterList::and(vec![
                Box::new(ColumnPrefixFilter::new("realtime")),
                Box::new(FirstKeyOnlyFilter::new()),
            ])),
            skip_family(),
        ]),
    );
    // testCompoundFilter4: a chain of ORs is one list.
    assert_parses_to(
        " ColumnPrefixFilter ('realtime') OR FirstKeyOnlyFilter() OR SKIP FamilyFilter(=, 'substring:hihi')",
        &FilterList::or(vec![
            Box::new(ColumnPrefixFilter::new("realtime")),
            Box::new(FirstKeyOnlyFilter::new()),
            skip_family(),
        ]),
    );
    // testCompoundFilter5.
    let value = |op, v: &str| -> Box<dyn Filter> { Box::new(ValueFilter::new(op, bin(v))) };
    assert_parses_to(
        "(ValueFilter(>=,'binary:x') AND (ValueFilter(<=,'binary:y'))) OR ValueFilter(=,'binary:ab')",
        &FilterList::or(vec![
            Box::new(FilterList::and(vec![
                value(CompareOperator::GreaterOrEqual, "x"),
                value(CompareOperator::LessOrEqual, "y"),
            ])),
            value(CompareOperator::Equal, "ab"),
        ]),
    );
    // testPrecedence1 and testPrecedence2.
    assert_parses_to(
        " (PrefixFilter ('realtime')AND  FirstKeyOnlyFilter() OR KeyOnlyFilter())",
        &FilterList::or(vec![
            Box::new(FilterList::and(vec![
                prefix("realtime"),
                Box::new(FirstKeyOnlyFilter::new()),
            ])),
            Box::new(KeyOnlyFilter::new(false)),
        ]),
    );
    assert_parses_to(
        " PrefixFilter ('realtime')AND  SKIP FirstKeyOnlyFilter()OR KeyOnlyFilter()",
        &FilterList::or(vec![
            Box::new(FilterList::and(vec![
                prefix("realtime"),
                Box::new(SkipFilter::new(Box::new(FirstKeyOnlyFilter::new()))),
            ])),
            Box::new(KeyOnlyFilter::new(false)),
        ]),
    );
    // OR inside AND needs parentheses; AND chains flatten, parenthesised ones nest.
    assert_parses_to(
        "PrefixFilter('a') OR PrefixFilter('b') AND PrefixFilter('c')",
        &FilterList::or(vec![
            prefix("a"),
            Box::new(FilterList::and(vec![prefix("b"), prefix("c")])),
        ]),
    );
    assert_parses_to(
        "PrefixFilter('a') AND PrefixFilter('b') AND PrefixFilter('c')",
        &FilterList::and(vec![prefix("a"), prefix("b"), prefix("c")]),
    );
    assert_parses_to(
        "(PrefixFilter('a') AND PrefixFilter('b')) AND PrefixFilter('c')",
        &FilterList::and(vec![
            Box::new(FilterList::and(vec![prefix("a"), prefix("b")])),
            prefix("c"),
        ]),
    );
    // HBase's stack parser rejects this one; the grammar is clear about it.
    assert_parses_to(
        "(PrefixFilter('a') OR PrefixFilter('b') AND PrefixFilter('c'))",
        &FilterList::or(vec![
            prefix("a"),
            Box::new(FilterList::and(vec![prefix("b"), prefix("c")])),
        ]),
    );
    assert_parses_to(
        "WHILE SKIP (PrefixFilter('a') OR PrefixFilter('b'))",
        &WhileMatchFilter::new(Box::new(SkipFilter::new(Box::new(FilterList::or(vec![
            prefix("a"),
            prefix("b"),
        ]))))),
    );
    assert_parses_to("SKIP(PrefixFilter('a'))", &SkipFilter::new(prefix("a")));
}

#[test]
fn parse_quoting_and_separators() {
    // TestParseFilter.testUnescapedQuote1-3.
    assert_parses_to(
        "InclusiveStopFilter ('row''3')",
        &InclusiveStopFilter::new("row'3"),
    );
    assert_parses_to(
        "InclusiveStopFilter ('row''3''')",
        &InclusiveStopFilter::new("row'3'"),
    );
    assert_parses_to(
        " InclusiveStopFilter ('''')",
        &InclusiveStopFilter::new("'"),
    );
    assert_parses_to("PrefixFilter('')", &PrefixFilter::new(""));
    // Parentheses, commas and keywords inside quotes are data.
    assert_parses_to(
        "PrefixFilter('a) AND (b, c')",
        &PrefixFilter::new("a) AND (b, c"),
    );
    assert_parses_to(
        "ValueFilter(=, 'binary:a:b')",
        &ValueFilter::new(CompareOperator::Equal, bin("a:b")),
    );
    assert_parses_to("PrefixFilter('é')", &PrefixFilter::new("é"));
    // HBase separates arguments by spaces or commas, in any number.
    assert_parses_to(
        "ColumnPaginationFilter(4 6)",
        &ColumnPaginationFilter::new(4, 6),
    );
    assert_parses_to(
        "ColumnPaginationFilter(,4,,6,)",
        &ColumnPaginationFilter::new(4, 6),
    );
    assert_parses_to("\tPrefixFilter\t('a')\n", &PrefixFilter::new("a"));
    assert_parses_to("KeyOnlyFilter(fAlSe)", &KeyOnlyFilter::new(false));
    assert_parses_to("PageFilter(007)", &PageFilter::new(7));
}

#[test]
fn parse_errors() {
    let cases: &[(&str, &str)] = &[
        ("", "expected a filter, found end of input"),
        ("   ", "expected a filter"),
        ("()", "expected a filter name or '(', found \")\""),
        ("KeyOnlyFilter ('') ", "must be an unquoted boolean"),
        (
            " FirstKeyOnlyFilter ('') ",
            "expected 0 arguments but got 1",
        ),
        (" PrefixFilter(row)", "must be a quoted string"),
        (
            " ColumnCountGetFilter('abc')",
            "must be an unquoted integer",
        ),
        (
            " ColumnCountGetFilter(2147483648)",
            "does not fit in a 32-bit int",
        ),
        (" ColumnCountGetFilter(-1)", "must not be negative"),
        (" PageFilter('123')", "must be an unquoted integer"),
        (
            " ColumnPaginationFilter('124')",
            "expected 2 arguments but got 1",
        ),
        (
            " ColumnPaginationFilter(4 , 123a)",
            "expected an integer, got 123a",
        ),
        (" ColumnPaginationFilter(4 , -123)", "must not be negative"),
        ("TimestampsFilter(9223372036854775808, 6)", "is too large"),
        ("TimestampsFilter(-45, 6)", "must not be negative"),
        (
            "RowFilter ('>>' , 'binary:region')",
            "must be an unquoted compare operator",
        ),
        (
            "RowFilter (>> , 'binary:region')",
            "invalid compare operator >>",
        ),
        (
            "RowFilter (>=, 'binaryoperator:region')",
            "unknown comparator type \"binaryoperator\"",
        ),
        ("RowFilter (>=, 'region')", "'type:value'"),
        (
            "RowFilter (>=, 'regexstring:pre*')",
            "can only be used with = and !=",
        ),
        (
            "SingleColumnValueFilter ('family', 'qualifier', >=, 'substring:a', true, false)",
            "can only be used with = and !=",
        ),
        (
            "SingleColumnValueFilter ('family', 'qualifier', =, 'binary:a', true)",
            "expected 4 or 6 arguments but got 5",
        ),
        (
            "ValueFilter(=, 'regexstring:(')",
            "invalid regular expression",
        ),
        (
            "MultipleColumnPrefixFilter('a', 'a')",
            "prefixes must be distinct",
        ),
        (
            "NoSuchFilter('a')",
            "unknown filter \"NoSuchFilter\" at position 0",
        ),
        ("prefixfilter('a')", "did you mean PrefixFilter?"),
        (
            "DependentColumnFilter('f', 'q', true, =)",
            "expected 2, 3 or 5 arguments but got 4",
        ),
        // In HBase 2.x these three exist only in the Java API (no createFilterFromArguments).
        (
            "FuzzyRowFilter('a', '0')",
            "unknown filter \"FuzzyRowFilter\" at position 0",
        ),
        (
            "MultiRowRangeFilter('a')",
            "unknown filter \"MultiRowRangeFilter\"",
        ),
        ("RandomRowFilter(0.5)", "unknown filter \"RandomRowFilter\""),
        (
            "PrefixFilter('a') and PrefixFilter('b')",
            "operators are upper case",
        ),
        (
            "PrefixFilter('a') PrefixFilter('b')",
            "at position 18: expected AND, OR or end of input",
        ),
        (
            "PrefixFilter('a') AND",
            "at position 21: expected a filter name or '('",
        ),
        ("PrefixFilter('a') OR ", "expected a filter name or '('"),
        ("SKIP", "expected a filter name or '('"),
        ("(PrefixFilter('a')", "to close the '(' at position 0"),
        (
            "PrefixFilter('a'))",
            "at position 17: expected AND, OR or end of input, found \")\"",
        ),
        (
            "PrefixFilter('abc",
            "a closing quote for the string opened at position 13",
        ),
        ("PrefixFilter('a'", "to close the arguments of PrefixFilter"),
        ("PrefixFilter", "'(' after the filter name PrefixFilter"),
        ("PrefixFilter(a'b')", "quote strings whole"),
        ("PrefixFilter((", "expected an argument"),
        ("AND PrefixFilter('a')", "'(' after the filter name AND"),
        (
            "ColumnRangeFilter('a', yes, 'b', true)",
            "expected true or false, got yes",
        ),
        ("PageFilter(-)", "expected an integer, got -"),
    ];
    for (input, needle) in cases {
        let message = parse_err(input).to_string();
        assert!(
            message.contains(needle),
            "{input:?}: {message:?} lacks {needle:?}"
        );
    }
}

#[test]
fn parse_error_positions_count_characters() {
    match parse_err("PrefixFilter('é') XFilter()") {
        FilterError::Syntax { position, .. } => assert_eq!(position, 18),
        other => panic!("{other}"),
    }
    match parse_err("ValueFilter(=, 'é', 'x')") {
        FilterError::InvalidArgument {
            position, filter, ..
        } => {
            assert_eq!((position, filter.as_str()), (0, "ValueFilter"));
        }
        other => panic!("{other}"),
    }
    match parse_err("RowFilter(=, 'regexstring:a', 'x') OR RowFilter(<, 'x')") {
        FilterError::InvalidArgument { message, .. } => assert!(message.contains("expected 2")),
        other => panic!("{other}"),
    }
    match parse_err("PrefixFilter('a') OR RowFilter(<, 'x')") {
        FilterError::InvalidArgument { position, .. } => assert_eq!(position, 34),
        other => panic!("{other}"),
    }
}

#[test]
fn parse_rejects_deep_nesting_without_overflowing() {
    let deep = format!(
        "{}PrefixFilter('a'){}",
        "(".repeat(10_000),
        ")".repeat(10_000)
    );
    assert!(
        parse_err(&deep)
            .to_string()
            .contains("levels of parentheses")
    );
    let skips = format!("{}PrefixFilter('a')", "SKIP ".repeat(10_000));
    assert!(parse_filter(&skips).is_err());
    let ok = format!("{}PrefixFilter('a'){}", "(".repeat(50), ")".repeat(50));
    assert_parses_to(&ok, &PrefixFilter::new("a"));
}

#[test]
fn parsed_filters_scan_like_built_ones() {
    let mut parsed = parse(
        "PrefixFilter('testRowOne') AND QualifierFilter(<=, 'binary:testQualifierOne-2') AND KeyOnlyFilter()",
    );
    let rows = scan(parsed.as_mut(), &dataset());
    assert_shape(&rows, 3, 4);
    assert!(rows.iter().flatten().all(|c| c.value().is_empty()));
    let mut parsed =
        parse("SKIP QualifierFilter(!=, 'binary:testQualifierOne-2') OR PageFilter(1)");
    assert_eq!(
        row_keys(&scan(parsed.as_mut(), &dataset())),
        [
            "testRowOne-0",
            "testRowTwo-0",
            "testRowTwo-2",
            "testRowTwo-3"
        ]
    );
}

proptest::proptest! {
    #[test]
    fn parser_never_panics(input in "[()', =<>!:A-Za-z0-9_-]{0,60}") {
        let _ = parse_filter(&input);
    }

    #[test]
    fn parser_never_panics_on_mutated_filters(
        cut in 0usize..120,
        insert in "[()',]{0,3}",
    ) {
        let base = "SingleColumnValueFilter('f', 'q', >=, 'binary:a', true, false) AND (SKIP ValueFilter(=, 'regexstring:x.*') OR TimestampsFilter(1, 2))";
        let at = cut.min(base.len());
        let mutated = format!("{}{}{}", &base[..at], insert, &base[at..]);
        let _ = parse_filter(&mutated);
    }
}
