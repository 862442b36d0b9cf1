//! Coprocessor specs: the `coprocessor$N` table values HBase's shell and Java API write
//! (`jar path | class | priority | k=v,k=v`), parsed, numbered and removed by HBase's rules
//! (`docs/hbase-coprocessors.md`, section 2: `TableDescriptorBuilder`'s key and value
//! patterns, `setCoprocessorWithSpec`, `setCoprocessorToMap`, `removeCoprocessor`), and the
//! classes regionkv can load. The specs live in the table's values (`metadata`), as in
//! HBase, so they survive reopen, splits and merges with the descriptor itself.
//!
//! A JVM loads any class a spec names; regionkv loads the ones it ships (built in Rust
//! under HBase's class names). Creating or altering a table whose spec names another class
//! fails as HBase's master sanity check fails for a class it cannot load, and can be
//! bypassed the same way (`hbase.table.sanity.checks` = false), in which case the spec is
//! kept and never loaded.

use std::collections::BTreeMap;

/// HBase's AggregateImplementation endpoint (rowCount, sum, min, max, avg, std, median).
pub const AGGREGATE_IMPLEMENTATION: &str =
    "org.apache.hadoop.hbase.coprocessor.AggregateImplementation";

/// HBase's ConstraintProcessor: runs a table's constraints on each put.
pub const CONSTRAINT_PROCESSOR: &str = "org.apache.hadoop.hbase.constraint.ConstraintProcessor";

/// The classes a `coprocessor$N` spec can name and regionkv loads.
pub const BUILTIN_CLASSES: &[&str] = &[AGGREGATE_IMPLEMENTATION, CONSTRAINT_PROCESSOR];

/// HBase's `Coprocessor.PRIORITY_USER`, a table coprocessor's priority when its spec has
/// none.
pub const PRIORITY_USER: u32 = 1_073_741_823;

/// The table value that turns HBase's sanity checks off (`TableDescriptorChecker`).
pub const SANITY_CHECKS_KEY: &str = "hbase.table.sanity.checks";

/// The prefix of a coprocessor key (`coprocessor$1`, `coprocessor$2`, ...).
pub const KEY_PREFIX: &str = "coprocessor$";

/// One parsed `coprocessor$N` value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CoprocessorSpec {
    /// Where the class comes from (a jar path; empty: the server's classpath).
    pub jar_path: String,
    /// The class name.
    pub class_name: String,
    /// Lower runs first; [`PRIORITY_USER`] when the spec gives none.
    pub priority: u32,
    /// The `k=v` parameters, in spec order.
    pub properties: Vec<(String, String)>,
}

impl CoprocessorSpec {
    /// A spec of a class with the default priority and no jar or parameters.
    pub fn of_class(class_name: &str) -> Self {
        Self {
            jar_path: String::new(),
            class_name: class_name.to_string(),
            priority: PRIORITY_USER,
            properties: Vec::new(),
        }
    }

    /// Parses a value as HBase does (`(^[^|]*)\|([^|]+)\|\s*(\d*)\s*(\|.*)?$` on the
    /// trimmed value): both `|` after the class are required, the class must not be blank,
    /// the priority is ASCII digits or nothing. `None` when the value does not match,
    /// which HBase treats as "not a coprocessor" when loading.
    pub fn parse(value: &str) -> Option<Self> {
        let v = value.trim();
        let (jar, rest) = v.split_once('|')?;
        let (class, rest) = rest.split_once('|')?;
        let class = class.trim();
        if class.is_empty() {
            return None;
        }
        let (priority, params) = match rest.split_once('|') {
            Some((p, params)) => (p, Some(params)),
            None => (rest, None),
        };
        let priority = priority.trim_matches(is_java_space);
        let priority = if priority.is_empty() {
            PRIORITY_USER
        } else if priority.bytes().all(|b| b.is_ascii_digit()) {
            // Java parses it as an int: a longer number fails there.
            u32::try_from(priority.parse::<i32>().ok()?).ok()?
        } else {
            return None;
        };
        Some(Self {
            jar_path: jar.to_string(),
            class_name: class.to_string(),
            priority,
            properties: params.map(parse_properties).unwrap_or_default(),
        })
    }

    /// The normalised value HBase's builder writes (`jar|class|priority|k=v,k=v`, always
    /// with the third `|`).
    pub fn to_value(&self) -> String {
        let props: Vec<String> = self
            .properties
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        format!(
            "{}|{}|{}|{}",
            self.jar_path,
            self.class_name,
            self.priority,
            props.join(",")
        )
    }

    /// True when regionkv can load the class.
    pub fn is_loadable(&self) -> bool {
        BUILTIN_CLASSES.contains(&self.class_name.as_str())
    }
}

/// `\s` of a Java regex: space, tab, newline, vertical tab, form feed, carriage return.
fn is_java_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\u{b}' | '\u{c}' | '\r')
}

/// The `k=v` pairs of a spec's last part, found as HBase finds `([^=,]+)=([^,]+),?`:
/// pieces between commas; in each, the key runs from the first character that is not `=`
/// to the next `=`, the value is the rest of the piece and must not be empty; anything
/// else is skipped.
fn parse_properties(params: &str) -> Vec<(String, String)> {
    params
        .split(',')
        .filter_map(|piece| {
            let start = piece.find(|c| c != '=')?;
            let piece = piece.get(start..)?;
            let (k, v) = piece.split_once('=')?;
            (!v.is_empty()).then(|| (k.to_string(), v.to_string()))
        })
        .collect()
}

/// N of a `coprocessor$N` key (trimmed, any case, as HBase's `^coprocessor\$([0-9]+)$`
/// with CASE_INSENSITIVE), or `None` for any other key.
pub fn key_number(key: &str) -> Option<u64> {
    let k = key.trim();
    let head = k.get(..KEY_PREFIX.len())?;
    let digits = k.get(KEY_PREFIX.len()..)?;
    if !head.eq_ignore_ascii_case(KEY_PREFIX)
        || digits.is_empty()
        || !digits.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    // More digits than a u64 holds still name a coprocessor key; it numbers as the largest.
    Some(digits.parse().unwrap_or(u64::MAX))
}

/// The coprocessor hooks a region calls from its own work, flushes and compactions
/// (HBase's `preFlush` / `postFlush`, `preCompact`'s scanner wrapper, `postCompact`). The
/// layer above implements it over the region's observers
/// (`RegionServerServices::region_hooks`). An `Err` of a pre hook fails that flush or
/// compaction before anything is committed; the post hooks run after the commit, and
/// their errors are only logged (HBase's `postFlush` / `postCompact` cannot undo it).
pub trait RegionHooks: Send + Sync + std::fmt::Debug {
    /// Before a flush takes its snapshot.
    fn pre_flush(&self) -> Result<(), HookFailure>;
    /// After a flush committed `file` of `family`.
    fn post_flush(&self, family: &[u8], file: &str);
    /// Each row a compaction of `family` is about to write: the hook may change or drop
    /// cells (what it leaves is written; dropping cells deletes them for good).
    fn compaction_row(
        &self,
        family: &[u8],
        major: bool,
        cells: &mut Vec<regionkv_cell::Cell>,
    ) -> Result<(), HookFailure>;
    /// After a compaction of `family` committed `file` (`None`: it wrote nothing).
    fn post_compact(&self, family: &[u8], file: Option<&str>);
}

/// A hook's failure: the observer's class and its message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookFailure {
    /// The observer's class.
    pub class: String,
    /// Its message.
    pub message: String,
}

impl From<HookFailure> for crate::Error {
    fn from(f: HookFailure) -> Self {
        crate::Error::Coprocessor {
            class: f.class,
            message: f.message,
        }
    }
}

/// Why a coprocessor spec was refused (the texts are HBase's).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpecError {
    /// The spec does not match HBase's pattern.
    #[error("Format does not match {pattern}: {spec}")]
    Format {
        /// HBase's value pattern.
        pattern: &'static str,
        /// The spec as given.
        spec: String,
    },
    /// The class is already one of the table's coprocessors.
    #[error("Coprocessor {0} already exists.")]
    Exists(String),
}

/// HBase's `CP_HTD_ATTR_VALUE_PATTERN`, as its error message prints it.
pub const VALUE_PATTERN: &str = r"(^[^\|]*)\|([^\|]+)\|[\s]*([\d]*)[\s]*(\|.*)?$";

/// The coprocessors among a table's values: (key, spec), in the order they run: priority,
/// then N (HBase orders equal priorities by a hash map's iteration; N is the deterministic
/// stand-in). Values that do not parse are skipped, as HBase skips them.
pub fn coprocessors(values: &BTreeMap<String, String>) -> Vec<(String, CoprocessorSpec)> {
    let mut out: Vec<(u64, String, CoprocessorSpec)> = values
        .iter()
        .filter_map(|(k, v)| Some((key_number(k)?, k.clone(), CoprocessorSpec::parse(v)?)))
        .collect();
    out.sort_by_key(|a| (a.2.priority, a.0));
    out.into_iter().map(|(_, k, s)| (k, s)).collect()
}

/// Adds a spec as HBase's `setCoprocessorWithSpec` does: the value must parse, its class
/// must not be there already, and it is stored verbatim (trimmed) under
/// `coprocessor$<largest N + 1>`. Returns the key.
pub fn add_spec(values: &mut BTreeMap<String, String>, spec: &str) -> Result<String, SpecError> {
    let spec = spec.trim();
    let parsed = CoprocessorSpec::parse(spec).ok_or_else(|| SpecError::Format {
        pattern: VALUE_PATTERN,
        spec: spec.to_string(),
    })?;
    if coprocessors(values)
        .iter()
        .any(|(_, s)| s.class_name == parsed.class_name)
    {
        return Err(SpecError::Exists(parsed.class_name));
    }
    let next = values
        .keys()
        .filter_map(|k| key_number(k))
        .max()
        .map_or(1, |n| n.saturating_add(1));
    let key = format!("{KEY_PREFIX}{next}");
    values.insert(key.clone(), spec.to_string());
    Ok(key)
}

/// Removes the first coprocessor (in key order) whose class is `class_name`, as HBase's
/// `removeCoprocessor`; false when none is.
pub fn remove_class(values: &mut BTreeMap<String, String>, class_name: &str) -> bool {
    let key = values.iter().find_map(|(k, v)| {
        key_number(k)?;
        (CoprocessorSpec::parse(v)?.class_name == class_name).then(|| k.clone())
    });
    key.is_some_and(|k| values.remove(&k).is_some())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_by_hbase_pattern() {
        let s = CoprocessorSpec::parse(" hdfs:///foo.jar|com.foo.Obs|1001|arg1=1,arg2=2 ").unwrap();
        assert_eq!(s.jar_path, "hdfs:///foo.jar");
        assert_eq!(s.class_name, "com.foo.Obs");
        assert_eq!(s.priority, 1001);
        assert_eq!(
            s.properties,
            vec![("arg1".into(), "1".into()), ("arg2".into(), "2".into())]
        );
        let s = CoprocessorSpec::parse("|com.Foo|").unwrap();
        assert_eq!((s.jar_path.as_str(), s.priority), ("", PRIORITY_USER));
        assert_eq!(CoprocessorSpec::parse("|com.Foo| 7 ").unwrap().priority, 7);
        assert_eq!(
            CoprocessorSpec::parse("|com.Foo||").unwrap().properties,
            vec![]
        );
        // Both bars after the class are required; the class must not be blank; the
        // priority is digits (no sign) that fit a Java int.
        for bad in [
            "com.Foo",
            "|com.Foo",
            "| |",
            "||",
            "|com.Foo|-1|",
            "|com.Foo|1 2|",
            "|com.Foo|x|",
            "|com.Foo|2147483648|",
        ] {
            assert_eq!(CoprocessorSpec::parse(bad), None, "{bad}");
        }
        assert_eq!(
            CoprocessorSpec::parse("|com.Foo|1|a=b=c,=x=y,nokey,k=,=,,z=1")
                .unwrap()
                .properties,
            vec![
                ("a".into(), "b=c".into()),
                ("x".into(), "y".into()),
                ("z".into(), "1".into())
            ]
        );
        let s = CoprocessorSpec::parse("/j.jar|C|5|k=v").unwrap();
        assert_eq!(CoprocessorSpec::parse(&s.to_value()), Some(s.clone()));
        assert_eq!(CoprocessorSpec::of_class("C").to_value(), "|C|1073741823|");
    }

    #[test]
    fn keys_number_from_one_and_are_never_reused_below_the_largest() {
        assert_eq!(key_number("coprocessor$3"), Some(3));
        assert_eq!(key_number(" COPROCESSOR$12 "), Some(12));
        for k in [
            "coprocessor$",
            "coprocessor$x",
            "coprocessor 1",
            "xcoprocessor$1",
        ] {
            assert_eq!(key_number(k), None, "{k}");
        }
        let mut values = BTreeMap::new();
        values.insert("OWNER".to_string(), "me".to_string());
        assert_eq!(add_spec(&mut values, " |a.A|| ").unwrap(), "coprocessor$1");
        assert_eq!(
            values["coprocessor$1"], "|a.A||",
            "stored as given, trimmed"
        );
        assert_eq!(add_spec(&mut values, "|b.B|5|").unwrap(), "coprocessor$2");
        assert_eq!(
            add_spec(&mut values, "|a.A|9|"),
            Err(SpecError::Exists("a.A".into()))
        );
        assert_eq!(
            add_spec(&mut values, "a.A").unwrap_err().to_string(),
            format!("Format does not match {VALUE_PATTERN}: a.A")
        );
        values.remove("coprocessor$1");
        assert_eq!(add_spec(&mut values, "|c.C||").unwrap(), "coprocessor$3");
        // Run order: priority, then N.
        let order: Vec<String> = coprocessors(&values).into_iter().map(|(k, _)| k).collect();
        assert_eq!(order, ["coprocessor$2", "coprocessor$3"]);
        assert!(remove_class(&mut values, "b.B"));
        assert!(!remove_class(&mut values, "b.B"));
        // A value that does not parse is not a coprocessor, and is left alone.
        values.insert("coprocessor$9".into(), "junk".into());
        assert_eq!(coprocessors(&values).len(), 1);
        assert_eq!(add_spec(&mut values, "|d.D||").unwrap(), "coprocessor$10");
    }
}
