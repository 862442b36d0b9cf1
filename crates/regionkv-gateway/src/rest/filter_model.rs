//! The JSON filter of a REST scanner (`ScannerModel.FilterModel` and its
//! `ByteArrayComparableModel`, HBase 2.x) turned into regionkv filters.
//!
//! A FilterModel is one JSON object, `{"type": "<FilterClass>", ...fields}`; which fields a
//! type reads is HBase's `FilterModel.build`:
//!
//! | type | fields |
//! |---|---|
//! | ColumnCountGetFilter | `limit` |
//! | ColumnPaginationFilter | `limit`, `offset` |
//! | ColumnPrefixFilter, PrefixFilter, InclusiveStopFilter | `value` (base64) |
//! | ColumnRangeFilter | `minColumn`, `maxColumn` (base64), `minColumnInclusive`, `maxColumnInclusive` |
//! | FamilyFilter, QualifierFilter, RowFilter, ValueFilter | `op`, `comparator` |
//! | FilterList | `op` (MUST_PASS_ALL / MUST_PASS_ONE), `filters` |
//! | FirstKeyOnlyFilter, KeyOnlyFilter | none |
//! | MultipleColumnPrefixFilter | `prefixes` (base64 list) |
//! | PageFilter | `value` (a decimal number as a string) |
//! | SingleColumnValueFilter, SingleColumnValueExcludeFilter | `family`, `qualifier` (base64), `op`, `comparator`, `ifMissing`, `latestVersion` |
//! | SkipFilter, WhileMatchFilter | `filters` (the first one is wrapped) |
//! | TimestampsFilter | `timestamps` |
//! | DependentColumnFilter | `family`, `qualifier` (base64), `dropDependentColumn`, and optionally `op`, `comparator` (a value check) |
//! | MultiRowRangeFilter | `ranges`: objects with `startRow`, `stopRow` (base64, missing or empty = unbounded), `startRowInclusive` (default true), `stopRowInclusive` (default false) |
//! | RandomRowFilter | `chance` (a float) |
//! | FuzzyRowFilter | `fuzzyKeys`: objects with `key` and `mask` (base64; mask bytes 0 = fixed, 1 = any) |
//!
//! A comparator is `{"type": ..., "value": ..., "op": ...}`: BinaryComparator and
//! BinaryPrefixComparator take base64, BitComparator base64 and `op` (AND / OR / XOR),
//! RegexStringComparator and SubstringComparator plain text, NullComparator nothing. `op` of a
//! compare filter is a `CompareOperator` constant (LESS ... GREATER, NO_OP).
//!
//! Every filter type of HBase 2.x's model is accepted.

use regionkv::filter::{
    BitwiseOp, ColumnCountGetFilter, ColumnPaginationFilter, ColumnPrefixFilter, ColumnRangeFilter,
    Comparator, CompareOperator, DependentColumnFilter, FamilyFilter, Filter, FilterList,
    FirstKeyOnlyFilter, FuzzyRowFilter, InclusiveStopFilter, KeyOnlyFilter, MultiRowRangeFilter,
    MultipleColumnPrefixFilter, Operator, PageFilter, PrefixFilter, QualifierFilter,
    RandomRowFilter, RowFilter, RowRange, SingleColumnValueExcludeFilter, SingleColumnValueFilter,
    SkipFilter, TimestampsFilter, ValueFilter, WhileMatchFilter,
};
use serde_json::{Map, Value};

use super::model::unb64;

/// Why a FilterModel cannot be built (answered 400).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilterModelError(pub String);

impl std::fmt::Display for FilterModelError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

fn err(m: impl Into<String>) -> FilterModelError {
    FilterModelError(m.into())
}

/// Builds the filter a FilterModel JSON string describes (HBase's
/// `ScannerModel.buildFilter`).
///
/// # Errors
/// Malformed JSON, an unknown or unsupported type, a missing or bad field.
pub fn build_filter(json: &str) -> Result<Box<dyn Filter>, FilterModelError> {
    let v: Value =
        serde_json::from_str(json).map_err(|e| err(format!("malformed filter JSON: {e}")))?;
    build(&v)
}

fn build(v: &Value) -> Result<Box<dyn Filter>, FilterModelError> {
    let Value::Object(m) = v else {
        return Err(err("a filter must be a JSON object"));
    };
    let ty = string(m, "type")?;
    Ok(match ty.as_str() {
        "ColumnCountGetFilter" => Box::new(ColumnCountGetFilter::new(u32_field(m, "limit")?)),
        "ColumnPaginationFilter" => Box::new(ColumnPaginationFilter::new(
            u32_field(m, "limit")?,
            u32_field(m, "offset")?,
        )),
        "ColumnPrefixFilter" => Box::new(ColumnPrefixFilter::new(bytes(m, "value")?)),
        "ColumnRangeFilter" => Box::new(ColumnRangeFilter::new(
            Some(bytes(m, "minColumn")?),
            boolean(m, "minColumnInclusive")?,
            Some(bytes(m, "maxColumn")?),
            boolean(m, "maxColumnInclusive")?,
        )),
        "FamilyFilter" => Box::new(FamilyFilter::new(operator(m)?, comparator(m)?)),
        "QualifierFilter" => Box::new(QualifierFilter::new(operator(m)?, comparator(m)?)),
        "RowFilter" => Box::new(RowFilter::new(operator(m)?, comparator(m)?)),
        "ValueFilter" => Box::new(ValueFilter::new(operator(m)?, comparator(m)?)),
        "FilterList" => {
            let op = match string(m, "op")?.as_str() {
                "MUST_PASS_ALL" => Operator::MustPassAll,
                "MUST_PASS_ONE" => Operator::MustPassOne,
                other => {
                    return Err(err(format!(
                        "No enum constant org.apache.hadoop.hbase.filter.FilterList.Operator.{other}"
                    )));
                }
            };
            let filters = children(m)?
                .iter()
                .map(|f| build(f))
                .collect::<Result<Vec<_>, _>>()?;
            Box::new(FilterList::new(op, filters))
        }
        "FirstKeyOnlyFilter" => Box::new(FirstKeyOnlyFilter::new()),
        "KeyOnlyFilter" => Box::new(KeyOnlyFilter::new(false)),
        "InclusiveStopFilter" => Box::new(InclusiveStopFilter::new(bytes(m, "value")?)),
        "MultipleColumnPrefixFilter" => {
            let prefixes = list(m, "prefixes")?
                .iter()
                .map(|p| match p {
                    Value::String(s) => unb64(s).map_err(|e| err(e.0)),
                    _ => Err(err("prefixes must be base64 strings")),
                })
                .collect::<Result<Vec<_>, _>>()?;
            Box::new(MultipleColumnPrefixFilter::new(prefixes).map_err(|e| err(e.to_string()))?)
        }
        "PageFilter" => {
            let text = string(m, "value")?;
            let size: i64 = text
                .trim()
                .parse()
                .map_err(|_| err(format!("PageFilter value is not a number: '{text}'")))?;
            let size = u64::try_from(size)
                .map_err(|_| err(format!("PageFilter page size must be >= 0: {size}")))?;
            Box::new(PageFilter::new(size))
        }
        "PrefixFilter" => Box::new(PrefixFilter::new(bytes(m, "value")?)),
        "SingleColumnValueFilter" => {
            let mut f = SingleColumnValueFilter::new(
                bytes(m, "family")?,
                optional_bytes(m, "qualifier")?.unwrap_or_default(),
                operator(m)?,
                comparator(m)?,
            );
            if let Some(b) = optional_bool(m, "ifMissing")? {
                f = f.with_filter_if_missing(b);
            }
            if let Some(b) = optional_bool(m, "latestVersion")? {
                f = f.with_latest_version_only(b);
            }
            Box::new(f)
        }
        "SingleColumnValueExcludeFilter" => {
            let mut f = SingleColumnValueExcludeFilter::new(
                bytes(m, "family")?,
                optional_bytes(m, "qualifier")?.unwrap_or_default(),
                operator(m)?,
                comparator(m)?,
            );
            if let Some(b) = optional_bool(m, "ifMissing")? {
                f = f.with_filter_if_missing(b);
            }
            if let Some(b) = optional_bool(m, "latestVersion")? {
                f = f.with_latest_version_only(b);
            }
            Box::new(f)
        }
        "SkipFilter" => Box::new(SkipFilter::new(first_child(m)?)),
        "WhileMatchFilter" => Box::new(WhileMatchFilter::new(first_child(m)?)),
        "TimestampsFilter" => {
            let ts = list(m, "timestamps")?
                .iter()
                .map(|t| t.as_i64().ok_or_else(|| err("timestamps must be numbers")))
                .collect::<Result<Vec<_>, _>>()?;
            Box::new(TimestampsFilter::new(ts).map_err(|e| err(e.to_string()))?)
        }
        "DependentColumnFilter" => {
            let family = bytes(m, "family")?;
            let qualifier = optional_bytes(m, "qualifier")?.unwrap_or_default();
            let drop = optional_bool(m, "dropDependentColumn")?.unwrap_or(false);
            // HBase's model always carries an operator and comparator; without them this is
            // the two/three-argument form (no value check).
            if m.get("comparator").is_some_and(|c| !c.is_null()) {
                Box::new(DependentColumnFilter::with_value_check(
                    family,
                    qualifier,
                    drop,
                    operator(m)?,
                    comparator(m)?,
                ))
            } else {
                Box::new(DependentColumnFilter::with_drop(family, qualifier, drop))
            }
        }
        "MultiRowRangeFilter" => {
            let ranges = list(m, "ranges")?
                .into_iter()
                .map(row_range)
                .collect::<Result<Vec<_>, _>>()?;
            Box::new(MultiRowRangeFilter::new(ranges).map_err(|e| err(e.to_string()))?)
        }
        "RandomRowFilter" => {
            let chance = match field(m, "chance")? {
                Value::Number(n) => n.as_f64(),
                Value::String(t) => t.trim().parse().ok(),
                _ => None,
            }
            .ok_or_else(|| err("filter field 'chance' must be a number"))?;
            // Java's float field: the nearest f32.
            #[allow(clippy::cast_possible_truncation)]
            Box::new(RandomRowFilter::new(chance as f32))
        }
        "FuzzyRowFilter" => {
            let pairs = list(m, "fuzzyKeys")?
                .into_iter()
                .map(|k| {
                    let Value::Object(k) = k else {
                        return Err(err("a fuzzy key must be an object with 'key' and 'mask'"));
                    };
                    Ok((bytes(k, "key")?, bytes(k, "mask")?))
                })
                .collect::<Result<Vec<_>, _>>()?;
            Box::new(FuzzyRowFilter::new(pairs).map_err(|e| err(e.to_string()))?)
        }
        other => {
            return Err(err(format!(
                "No enum constant org.apache.hadoop.hbase.rest.model.ScannerModel.FilterModel.FilterType.{other}"
            )));
        }
    })
}

fn field<'a>(m: &'a Map<String, Value>, name: &str) -> Result<&'a Value, FilterModelError> {
    match m.get(name) {
        None | Some(Value::Null) => Err(err(format!("filter field '{name}' is missing"))),
        Some(v) => Ok(v),
    }
}

fn string(m: &Map<String, Value>, name: &str) -> Result<String, FilterModelError> {
    match field(m, name)? {
        Value::String(s) => Ok(s.clone()),
        Value::Number(n) => Ok(n.to_string()),
        _ => Err(err(format!("filter field '{name}' must be a string"))),
    }
}

fn bytes(m: &Map<String, Value>, name: &str) -> Result<Vec<u8>, FilterModelError> {
    unb64(&string(m, name)?).map_err(|e| err(e.0))
}

fn optional_bytes(m: &Map<String, Value>, name: &str) -> Result<Option<Vec<u8>>, FilterModelError> {
    match m.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(_) => bytes(m, name).map(Some),
    }
}

fn boolean(m: &Map<String, Value>, name: &str) -> Result<bool, FilterModelError> {
    match field(m, name)? {
        Value::Bool(b) => Ok(*b),
        Value::String(s) if s == "true" || s == "false" => Ok(s == "true"),
        _ => Err(err(format!("filter field '{name}' must be a boolean"))),
    }
}

fn optional_bool(m: &Map<String, Value>, name: &str) -> Result<Option<bool>, FilterModelError> {
    match m.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(_) => boolean(m, name).map(Some),
    }
}

fn u32_field(m: &Map<String, Value>, name: &str) -> Result<u32, FilterModelError> {
    let v = field(m, name)?;
    let n = match v {
        Value::Number(n) => n.as_i64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
    .ok_or_else(|| err(format!("filter field '{name}' must be an int")))?;
    u32::try_from(n).map_err(|_| err(format!("filter field '{name}' must be >= 0, not {n}")))
}

fn list<'a>(m: &'a Map<String, Value>, name: &str) -> Result<Vec<&'a Value>, FilterModelError> {
    match field(m, name)? {
        Value::Array(items) => Ok(items.iter().collect()),
        other => Ok(vec![other]),
    }
}

fn children(m: &Map<String, Value>) -> Result<Vec<&Value>, FilterModelError> {
    list(m, "filters")
}

fn first_child(m: &Map<String, Value>) -> Result<Box<dyn Filter>, FilterModelError> {
    let kids = children(m)?;
    let first = kids
        .first()
        .ok_or_else(|| err("filter field 'filters' is empty"))?;
    build(first)
}

/// A `MultiRowRangeFilter.RowRange` as HBase's REST model writes it: `startRow`/`stopRow`
/// (base64; missing or empty is unbounded), `startRowInclusive`/`stopRowInclusive`.
fn row_range(v: &Value) -> Result<RowRange, FilterModelError> {
    let Value::Object(r) = v else {
        return Err(err("a row range must be an object"));
    };
    Ok(RowRange::new(
        optional_bytes(r, "startRow")?.unwrap_or_default(),
        optional_bool(r, "startRowInclusive")?.unwrap_or(true),
        optional_bytes(r, "stopRow")?.unwrap_or_default(),
        optional_bool(r, "stopRowInclusive")?.unwrap_or(false),
    ))
}

fn operator(m: &Map<String, Value>) -> Result<CompareOperator, FilterModelError> {
    Ok(match string(m, "op")?.as_str() {
        "LESS" => CompareOperator::Less,
        "LESS_OR_EQUAL" => CompareOperator::LessOrEqual,
        "EQUAL" => CompareOperator::Equal,
        "NOT_EQUAL" => CompareOperator::NotEqual,
        "GREATER_OR_EQUAL" => CompareOperator::GreaterOrEqual,
        "GREATER" => CompareOperator::Greater,
        "NO_OP" => CompareOperator::NoOp,
        other => {
            return Err(err(format!(
                "No enum constant org.apache.hadoop.hbase.CompareOperator.{other}"
            )));
        }
    })
}

fn comparator(m: &Map<String, Value>) -> Result<Comparator, FilterModelError> {
    let Value::Object(c) = field(m, "comparator")? else {
        return Err(err("filter field 'comparator' must be an object"));
    };
    Ok(match string(c, "type")?.as_str() {
        "BinaryComparator" => Comparator::binary(bytes(c, "value")?),
        "BinaryPrefixComparator" => Comparator::binary_prefix(bytes(c, "value")?),
        "BitComparator" => {
            let op = match string(c, "op")?.as_str() {
                "AND" => BitwiseOp::And,
                "OR" => BitwiseOp::Or,
                "XOR" => BitwiseOp::Xor,
                other => {
                    return Err(err(format!(
                        "No enum constant org.apache.hadoop.hbase.filter.BitComparator.BitwiseOp.{other}"
                    )));
                }
            };
            Comparator::Bit {
                value: bytes(c, "value")?,
                op,
            }
        }
        "NullComparator" => Comparator::Null,
        "RegexStringComparator" => {
            Comparator::regex(&string(c, "value")?).map_err(|e| err(e.to_string()))?
        }
        "SubstringComparator" => Comparator::substring(&string(c, "value")?),
        other => {
            return Err(err(format!(
                "No enum constant org.apache.hadoop.hbase.rest.model.ScannerModel.FilterModel.ByteArrayComparableModel.ComparatorType.{other}"
            )));
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use regionkv::cell::{Cell, CellType};
    use regionkv::filter::model::run_scan;

    fn cell(row: &str, q: &str, v: &str) -> Cell {
        match Cell::new(
            row.as_bytes(),
            b"cf",
            q.as_bytes(),
            1,
            CellType::Put,
            v.as_bytes(),
        ) {
            Ok(c) => c,
            Err(e) => panic!("{e}"),
        }
    }

    /// Rows `a`..`d`, each with columns `x` = row and `y` = "v" + row.
    fn table() -> Vec<Cell> {
        let mut out = Vec::new();
        for r in ["a", "b", "c", "d"] {
            out.push(cell(r, "x", r));
            out.push(cell(r, "y", &format!("v{r}")));
        }
        out
    }

    fn rows(json: &str) -> Vec<String> {
        let mut f = match build_filter(json) {
            Ok(f) => f,
            Err(e) => panic!("{json}: {e}"),
        };
        run_scan(f.as_mut(), &table(), false)
            .iter()
            .map(|r| {
                r.iter()
                    .map(|c| {
                        format!(
                            "{}/{}",
                            String::from_utf8_lossy(c.row()),
                            String::from_utf8_lossy(c.qualifier())
                        )
                    })
                    .collect::<Vec<_>>()
                    .join(",")
            })
            .collect()
    }

    #[test]
    fn row_filters() {
        // "Yg==" is "b", "Yw==" is "c".
        assert_eq!(
            rows(r#"{"type":"PrefixFilter","value":"Yg=="}"#),
            ["b/x,b/y"]
        );
        assert_eq!(
            rows(
                r#"{"type":"RowFilter","op":"LESS","comparator":{"type":"BinaryComparator","value":"Yw=="}}"#
            ),
            ["a/x,a/y", "b/x,b/y"]
        );
        assert_eq!(
            rows(r#"{"type":"InclusiveStopFilter","value":"Yg=="}"#).len(),
            2
        );
        assert_eq!(rows(r#"{"type":"PageFilter","value":"3"}"#).len(), 3);
        assert_eq!(
            rows(r#"{"type":"WhileMatchFilter","filters":[{"type":"RowFilter","op":"NOT_EQUAL","comparator":{"type":"BinaryComparator","value":"Yw=="}}]}"#).len(),
            2
        );
    }

    #[test]
    fn column_and_value_filters() {
        // "eA==" is "x".
        assert_eq!(
            rows(r#"{"type":"ColumnPrefixFilter","value":"eA=="}"#).len(),
            4
        );
        assert_eq!(rows(r#"{"type":"FirstKeyOnlyFilter"}"#)[0], "a/x");
        assert_eq!(rows(r#"{"type":"KeyOnlyFilter"}"#).len(), 4);
        assert_eq!(
            rows(r#"{"type":"ColumnCountGetFilter","limit":1}"#)[0],
            "a/x"
        );
        assert_eq!(
            rows(r#"{"type":"ColumnPaginationFilter","limit":1,"offset":1}"#)[0],
            "a/y"
        );
        assert_eq!(
            rows(
                r#"{"type":"ValueFilter","op":"EQUAL","comparator":{"type":"SubstringComparator","value":"VC"}}"#
            ),
            ["c/y"]
        );
        assert_eq!(
            rows(r#"{"type":"QualifierFilter","op":"EQUAL","comparator":{"type":"RegexStringComparator","value":"^y$"}}"#).len(),
            4
        );
        assert_eq!(
            rows(
                r#"{"type":"SingleColumnValueFilter","op":"EQUAL","family":"Y2Y=","qualifier":"eA==","comparator":{"type":"BinaryComparator","value":"ZA=="},"ifMissing":true}"#
            ),
            ["d/x,d/y"]
        );
        assert_eq!(
            rows(
                r#"{"type":"SingleColumnValueExcludeFilter","op":"EQUAL","family":"Y2Y=","qualifier":"eA==","comparator":{"type":"BinaryComparator","value":"ZA=="}}"#
            ),
            ["d/y"]
        );
        assert_eq!(
            rows(r#"{"type":"ColumnRangeFilter","minColumn":"eQ==","minColumnInclusive":true,"maxColumn":"eg==","maxColumnInclusive":false}"#).len(),
            4
        );
        assert_eq!(
            rows(r#"{"type":"MultipleColumnPrefixFilter","prefixes":["eQ=="]}"#).len(),
            4
        );
        assert_eq!(
            rows(r#"{"type":"TimestampsFilter","timestamps":[2]}"#).len(),
            0
        );
        assert_eq!(
            rows(r#"{"type":"FamilyFilter","op":"EQUAL","comparator":{"type":"BinaryComparator","value":"Y2Y="}}"#).len(),
            4
        );
        assert_eq!(
            rows(r#"{"type":"SkipFilter","filters":[{"type":"ValueFilter","op":"NOT_EQUAL","comparator":{"type":"BinaryComparator","value":"dmI="}}]}"#).len(),
            3
        );
    }

    #[test]
    fn the_java_only_filters_have_their_model_encodings() {
        // Rows a..d with columns cf:x and cf:y; "Yg==" is "b", "Yw==" is "c", "eA==" is "x".
        assert_eq!(
            rows(r#"{"type":"MultiRowRangeFilter","ranges":[
                {"startRow":"Yg==","startRowInclusive":true,"stopRow":"Yw==","stopRowInclusive":true}]}"#)
            .len(),
            2
        );
        // "?": any first byte; every one-byte row matches.
        assert_eq!(
            rows(r#"{"type":"FuzzyRowFilter","fuzzyKeys":[{"key":"AA==","mask":"AQ=="}]}"#).len(),
            4
        );
        assert_eq!(rows(r#"{"type":"RandomRowFilter","chance":0.0}"#).len(), 0);
        assert_eq!(rows(r#"{"type":"RandomRowFilter","chance":2}"#).len(), 4);
        // Every cell of each row shares the dependent column's timestamp.
        assert_eq!(
            rows(r#"{"type":"DependentColumnFilter","family":"Y2Y=","qualifier":"eA==","dropDependentColumn":false}"#)
            .len(),
            4
        );
        assert_eq!(
            rows(
                r#"{"type":"DependentColumnFilter","family":"Y2Y=","qualifier":"eA==","dropDependentColumn":true,
                "op":"EQUAL","comparator":{"type":"BinaryComparator","value":"ZA=="}}"#
            ),
            ["d/y"]
        );
    }

    #[test]
    fn filter_lists_combine() {
        let and = r#"{"type":"FilterList","op":"MUST_PASS_ALL","filters":[
            {"type":"RowFilter","op":"GREATER","comparator":{"type":"BinaryComparator","value":"YQ=="}},
            {"type":"RowFilter","op":"LESS","comparator":{"type":"BinaryComparator","value":"ZA=="}}]}"#;
        assert_eq!(rows(and).len(), 2);
        let or = and.replace("MUST_PASS_ALL", "MUST_PASS_ONE");
        assert_eq!(rows(&or).len(), 4);
    }

    #[test]
    fn unsupported_and_bad_models_are_errors() {
        for (model, needle) in [
            (r#"{"type":"DependentColumnFilter"}"#, "'family' is missing"),
            (
                r#"{"type":"MultiRowRangeFilter","ranges":[]}"#,
                "No ranges found.",
            ),
            (
                r#"{"type":"MultiRowRangeFilter","ranges":[{"startRow":"Yg==","stopRow":"YQ=="}]}"#,
                "invaild ranges",
            ),
            (r#"{"type":"RandomRowFilter","chance":"often"}"#, "'chance'"),
            (
                r#"{"type":"FuzzyRowFilter","fuzzyKeys":[{"key":"YWI=","mask":"AA=="}]}"#,
                "Fuzzy pair lengths do not match",
            ),
        ] {
            let Err(e) = build_filter(model) else {
                panic!("{model} built");
            };
            assert!(e.0.contains(needle), "{model}: {e}");
        }
        for bad in [
            "",
            "[]",
            r#"{"type":"Nope"}"#,
            r#"{"type":"PrefixFilter"}"#,
            r#"{"type":"PrefixFilter","value":"@@"}"#,
            r#"{"type":"RowFilter","op":"SORTA","comparator":{"type":"BinaryComparator","value":""}}"#,
            r#"{"type":"RowFilter","op":"EQUAL","comparator":{"type":"Mystery"}}"#,
            r#"{"type":"PageFilter","value":"-1"}"#,
            r#"{"type":"FilterList","op":"MAYBE","filters":[]}"#,
            r#"{"type":"SkipFilter","filters":[]}"#,
            r#"{"type":"RowFilter","op":"EQUAL","comparator":{"type":"RegexStringComparator","value":"("}}"#,
        ] {
            assert!(build_filter(bad).is_err(), "{bad}");
        }
    }
}
