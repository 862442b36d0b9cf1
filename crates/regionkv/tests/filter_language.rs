//! HBase's filter language end to end: strings as a user types them after the shell's
//! `FILTER =>` (or sends in Thrift's `TScan.filterString`) are parsed with `parse_filter` and
//! run over a small table through the filter call protocol's model
//! (`filter::model::run_scan`, feature `filter-model` of regionkv-region). The examples follow the filter-language chapter of the
//! HBase reference guide, including its examples that HBase itself rejects.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use regionkv::Cell;
use regionkv::filter::model::run_scan;
use regionkv::filter::{Filter, FilterError, parse_filter};

fn put(row: &str, family: &str, qualifier: &str, ts: i64, value: &str) -> Cell {
    Cell::put(
        row.as_bytes(),
        family.as_bytes(),
        qualifier.as_bytes(),
        ts,
        value.as_bytes(),
    )
    .unwrap()
}

/// A small "users" table: `info:name`, `info:age` (two versions for user3), `prefs:color`.
fn users() -> Vec<Cell> {
    vec![
        put("user1", "info", "age", 10, "25"),
        put("user1", "info", "name", 10, "Alice"),
        put("user1", "prefs", "color", 10, "blue"),
        put("user2", "info", "age", 10, "31"),
        put("user2", "info", "name", 10, "Bob"),
        put("user3", "info", "age", 20, "40"),
        put("user3", "info", "age", 10, "29"),
        put("user3", "info", "name", 10, "Carol"),
        put("user3", "prefs", "color", 10, "green"),
        put("user4", "info", "name", 10, "dave alison"),
        put("user4", "prefs", "color", 10, "blue"),
        put("user5", "info", "age", 10, "52"),
        put("user5", "info", "name", 10, "Eve"),
    ]
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Runs `filter` over `cells` and renders each kept cell as `row/family:qualifier/ts=value`.
fn run(filter: &str, cells: &[Cell]) -> Vec<String> {
    let mut f = parse_filter(filter).unwrap_or_else(|e| panic!("{filter}: {e}"));
    render(&run_scan(f.as_mut(), cells, false))
}

fn render(rows: &[Vec<Cell>]) -> Vec<String> {
    rows.iter()
        .flatten()
        .map(|c| {
            format!(
                "{}/{}:{}/{}={}",
                text(c.row()),
                text(c.family()),
                text(c.qualifier()),
                c.timestamp(),
                text(c.value())
            )
        })
        .collect()
}

/// The distinct rows among rendered cells, in order.
fn rows_of(cells: &[String]) -> Vec<String> {
    let mut rows: Vec<String> = Vec::new();
    for c in cells {
        let row = c.split('/').next().unwrap_or_default().to_owned();
        if rows.last() != Some(&row) {
            rows.push(row);
        }
    }
    rows
}

#[test]
fn reference_guide_examples_parse() {
    for s in [
        "KeyOnlyFilter ()",
        "FirstKeyOnlyFilter ()",
        "PrefixFilter ('Row')",
        "ColumnPrefixFilter ('Col')",
        "MultipleColumnPrefixFilter ('abc', 'xyz')",
        "ColumnCountGetFilter (4)",
        "PageFilter (2)",
        "ColumnPaginationFilter (3, 5)",
        "InclusiveStopFilter ('Row 3')",
        "TimestampsFilter (5985489, 48895495, 58489845945)",
        "RowFilter (<=, 'binary:xyz')",
        "FamilyFilter (>=, 'binary:FamilyB')",
        "QualifierFilter (=, 'binary:Column1')",
        "ValueFilter (!=, 'binary:Value')",
        "SingleColumnValueFilter ('FamilyA', 'Column1', <=, 'binary:abc', true, false)",
        "SingleColumnValueExcludeFilter ('FamilyA', 'Column1', <=, 'binary:abc', false, true)",
        "ColumnRangeFilter ('abc', true, 'xyz', false)",
        "(RowFilter (=, 'binary:Row 1') AND TimestampsFilter (74689, 89734)) OR ColumnRangeFilter ('abc', true, 'xyz', false)",
        "SKIP ValueFilter (!=, 'binary:0')",
        "WHILE RowFilter (!=, 'binary:Row 3')",
        "ColumnValueFilter ('FamilyA', 'Column1', =, 'substring:abc')",
    ] {
        parse_filter(s).unwrap_or_else(|e| panic!("{s}: {e}"));
    }
}

#[test]
fn reference_guide_examples_that_hbase_also_rejects() {
    // The guide's own examples contain mistakes HBase's parser refuses as well.
    let cases = [
        // The class is TimestampsFilter.
        (
            "TimeStampsFilter (5985489, 48895495)",
            "did you mean TimestampsFilter?",
        ),
        // A comparator needs its type prefix.
        (
            "SingleColumnValueFilter ('FamilyA', 'Column1', <=, 'abc', true, false)",
            "'type:value'",
        ),
        // Booleans are not quoted.
        (
            "SingleColumnValueExcludeFilter ('FamilyA', 'Column1', <=, 'binary:abc', 'false', 'true')",
            "unquoted boolean",
        ),
        // ValueFilter takes an operator and a comparator.
        ("SKIP ValueFilter (0)", "expected 2 arguments but got 1"),
        // A comparator needs its type prefix here too.
        (
            "DependentColumnFilter ('conf', 'blacklist', false, >=, 'zebra')",
            "'type:value'",
        ),
        // Not in HBase 2.x's language: Java API (and REST) only.
        ("FuzzyRowFilter ('a', '0')", "unknown filter"),
    ];
    for (s, needle) in cases {
        let err = parse_filter(s)
            .err()
            .unwrap_or_else(|| panic!("{s} parsed"));
        assert!(err.to_string().contains(needle), "{s}: {err}");
    }
}

#[test]
fn row_filters_use_hbase_comparison_convention() {
    // LESS keeps rows *below* the operand: the comparator compares the operand to the row.
    assert_eq!(
        rows_of(&run("RowFilter(<, 'binary:user3')", &users())),
        ["user1", "user2"]
    );
    assert_eq!(
        rows_of(&run("RowFilter(>=, 'binary:user3')", &users())),
        ["user3", "user4", "user5"]
    );
    assert_eq!(
        rows_of(&run("RowFilter(=, 'binaryprefix:user')", &users())).len(),
        5
    );
    assert_eq!(
        rows_of(&run("RowFilter(!=, 'regexstring:[24]$')", &users())),
        ["user1", "user3", "user5"]
    );
    assert_eq!(rows_of(&run("PrefixFilter('user2')", &users())), ["user2"]);
    assert_eq!(
        rows_of(&run("InclusiveStopFilter('user2')", &users())),
        ["user1", "user2"]
    );
    assert_eq!(rows_of(&run("PageFilter(2)", &users())), ["user1", "user2"]);
    assert_eq!(
        rows_of(&run("WHILE RowFilter(!=, 'binary:user3')", &users())),
        ["user1", "user2"]
    );
}

#[test]
fn column_and_value_filters() {
    assert_eq!(
        run(
            "QualifierFilter(=, 'regexstring:^na') AND FamilyFilter(=, 'binary:info')",
            &users()
        ),
        [
            "user1/info:name/10=Alice",
            "user2/info:name/10=Bob",
            "user3/info:name/10=Carol",
            "user4/info:name/10=dave alison",
            "user5/info:name/10=Eve",
        ]
    );
    // Substring matching ignores case.
    assert_eq!(
        run("ValueFilter(=, 'substring:ALI')", &users()),
        ["user1/info:name/10=Alice", "user4/info:name/10=dave alison"]
    );
    // Only the first offered version of info:age counts (user3's newest is 40).
    assert_eq!(
        rows_of(&run(
            "SingleColumnValueFilter('info', 'age', >=, 'binary:30', true, true)",
            &users()
        )),
        ["user2", "user3", "user5"]
    );
    // Any version counts: user3 also matches '< 30' through its older version.
    assert_eq!(
        rows_of(&run(
            "SingleColumnValueFilter('info', 'age', <, 'binary:30', true, false)",
            &users()
        )),
        ["user1", "user3"]
    );
    // Rows without the column pass unless filterIfMissing.
    assert_eq!(
        rows_of(&run(
            "SingleColumnValueFilter('info', 'age', <, 'binary:30')",
            &users()
        )),
        ["user1", "user4"]
    );
    assert_eq!(
        run(
            "SingleColumnValueExcludeFilter('prefs', 'color', =, 'binary:green', true, true)",
            &users()
        ),
        [
            "user3/info:age/20=40",
            "user3/info:age/10=29",
            "user3/info:name/10=Carol"
        ]
    );
    assert_eq!(
        run("ColumnValueFilter('info', 'age', >, 'binary:39')", &users()),
        ["user3/info:age/20=40", "user5/info:age/10=52"]
    );
    assert_eq!(
        rows_of(&run(
            "ColumnPrefixFilter('col') OR MultipleColumnPrefixFilter('zz', 'ag')",
            &users()
        )),
        ["user1", "user2", "user3", "user4", "user5"]
    );
    assert_eq!(
        run(
            "ColumnRangeFilter('age', false, 'color', true) AND PrefixFilter('user1')",
            &users()
        ),
        ["user1/prefs:color/10=blue"]
    );
    assert_eq!(
        run("TimestampsFilter(20)", &users()),
        ["user3/info:age/20=40"]
    );
}

#[test]
fn counting_and_key_only_filters() {
    // A row count: the first cell of each row, its value replaced by the value's length.
    let cells = run("FirstKeyOnlyFilter() AND KeyOnlyFilter(true)", &users());
    assert_eq!(cells.len(), 5);
    assert!(cells[0].starts_with("user1/info:age/10="));
    let mut f = parse_filter("FirstKeyOnlyFilter() AND KeyOnlyFilter(true)").unwrap();
    let rows = run_scan(f.as_mut(), &users(), false);
    assert_eq!(rows[0][0].value(), 2i32.to_be_bytes());
    assert_eq!(run("KeyOnlyFilter()", &users()).len(), users().len());
    assert!(
        run("KeyOnlyFilter()", &users())
            .iter()
            .all(|c| c.ends_with('='))
    );
    assert_eq!(
        run("ColumnPaginationFilter(1, 1)", &users()),
        [
            "user1/info:name/10=Alice",
            "user2/info:name/10=Bob",
            "user3/info:name/10=Carol",
            "user4/prefs:color/10=blue",
            "user5/info:name/10=Eve",
        ]
    );
    // ColumnCountGetFilter is for Gets: it ends the scan after the first row.
    assert_eq!(
        run("ColumnCountGetFilter(2)", &users()),
        ["user1/info:age/10=25", "user1/info:name/10=Alice"]
    );
}

#[test]
fn skip_and_while_wrap_tighter_than_and_or() {
    // SKIP drops rows with any non-blue color; rows without prefs pass.
    assert_eq!(
        rows_of(&run("SKIP ValueFilter(!=, 'binary:green')", &users())),
        ["user1", "user2", "user4", "user5"]
    );
    // SKIP binds to its own operand only: (SKIP A) OR B.
    assert_eq!(
        rows_of(&run(
            "SKIP ValueFilter(!=, 'binary:green') OR PrefixFilter('user3')",
            &users()
        )),
        ["user1", "user2", "user3", "user4", "user5"]
    );
    assert_eq!(
        rows_of(&run(
            "PrefixFilter('user1') OR PrefixFilter('user2') AND KeyOnlyFilter()",
            &users()
        )),
        ["user1", "user2"]
    );
    assert_eq!(
        run(
            "(PrefixFilter('user1') OR PrefixFilter('user2')) AND QualifierFilter(=, 'binary:name') AND KeyOnlyFilter()",
            &users()
        ),
        ["user1/info:name/10=", "user2/info:name/10="]
    );
}

#[test]
fn each_region_gets_a_fresh_copy() {
    // HBase ships the filter to every region: a PageFilter counts per region.
    let prototype = parse_filter("PageFilter(1)").unwrap();
    let all = users();
    let (left, right): (Vec<Cell>, Vec<Cell>) =
        all.into_iter().partition(|c| c.row() < b"user3".as_slice());
    let mut rows = Vec::new();
    for region in [left, right] {
        let mut copy: Box<dyn Filter> = prototype.box_clone();
        rows.extend(rows_of(&render(&run_scan(copy.as_mut(), &region, false))));
    }
    assert_eq!(rows, ["user1", "user3"]);
}

#[test]
fn reversed_scans_pass_through_filter_lists() {
    let mut f = parse_filter("PrefixFilter('user4') OR InclusiveStopFilter('user4')").unwrap();
    let rows = run_scan(f.as_mut(), &users(), true);
    assert_eq!(rows_of(&render(&rows)), ["user5", "user4"]);
}

#[test]
fn errors_name_the_position_and_what_was_expected() {
    let err = parse_filter("PrefixFilter('user1') AND (ValueFilter(=, 'binary:x') OR").unwrap_err();
    assert_eq!(
        err,
        FilterError::Syntax {
            position: 56,
            expected: "a filter name or '('".to_owned(),
            found: "end of input".to_owned(),
        }
    );
    let err = parse_filter("PrefixFilter('user1') AND ValueFilter(=~, 'binary:x')").unwrap_err();
    assert_eq!(
        err.to_string(),
        "ValueFilter at position 38: invalid compare operator =~ (expected <, <=, =, !=, >= or >)"
    );
    let err = parse_filter("PrefixFilter('user1) AND KeyOnlyFilter()").unwrap_err();
    assert!(
        err.to_string()
            .contains("closing quote for the string opened at position 13"),
        "{err}"
    );
    let err = parse_filter("ValueFilter(<, 'substring:x')").unwrap_err();
    assert!(
        err.to_string().contains("can only be used with = and !="),
        "{err}"
    );
    let err = parse_filter("PrefixFilter('a') or PrefixFilter('b')").unwrap_err();
    assert!(
        err.to_string().contains("operators are upper case"),
        "{err}"
    );
}
