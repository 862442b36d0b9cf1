//! Constraints: HBase's Constraint API (`org.apache.hadoop.hbase.constraint`), a check on
//! each Put that rejects bad data with a `ConstraintException` the client sees. The rules
//! are HBase's (`docs/hbase-coprocessors.md` section 4); regionkv's differences are in
//! `docs/coprocessors.md`.
//!
//! A table's constraints are table values, as HBase stores them: the key is
//! `constraint $<class>`, the value the constraint's configuration as Hadoop XML with
//! `_ENABLED` and `_PRIORITY`. They run inside the built-in `ConstraintProcessor` observer,
//! which [`Constraints::add`] installs as a `coprocessor$N` spec, on `pre_put` only: every
//! path that puts (`put`, batches, `mutate_row`, the put of a `check_and_mutate`) and no
//! delete, increment or append, as in HBase. Enabled constraints run by priority, lowest
//! first; the first violation fails the put (and nothing of it is written).
//!
//! The classes: regionkv ships four (below, under `regionkv.constraint.*`: HBase itself
//! ships none, only the framework), and a program registers its own in Rust
//! ([`crate::DbOptions::constraint`]).

use crate::coprocessor::{
    CONSTRAINT_PROCESSOR, CoprocessorError, CoprocessorRegistry, CoprocessorResult,
    CoprocessorSpec, ObserverContext, RegionObserver,
};
use crate::mutation::Put;
use regionkv_region::TableDescriptor;
use std::collections::BTreeMap;
use std::sync::Arc;

/// A constraint's configuration (HBase's Hadoop `Configuration`): keys and values.
pub type ConstraintConfig = BTreeMap<String, String>;

/// HBase's `Constraint`: checks a put; `Err` is the violation's message (HBase's
/// `ConstraintException`).
pub trait Constraint: Send + Sync {
    /// Checks `put`.
    fn check(&self, put: &Put) -> Result<(), String>;
}

/// Makes a constraint from its configuration; `Err` when the configuration is unusable.
pub type ConstraintFactory =
    Arc<dyn Fn(&ConstraintConfig) -> Result<Arc<dyn Constraint>, String> + Send + Sync>;

/// The prefix of a constraint's table value key (HBase's `CONSTRAINT_HTD_KEY_PREFIX`; the
/// class name follows without a space).
pub const KEY_PREFIX: &str = "constraint $";
/// The table value holding the last priority handed out.
pub const COUNTER_KEY: &str = "hbase.constraint.counter";
/// Whether a constraint is enabled (in its configuration).
pub const ENABLED_KEY: &str = "_ENABLED";
/// A constraint's priority (in its configuration).
pub const PRIORITY_KEY: &str = "_PRIORITY";

/// Every value of the configured columns parses as a number (decimal text, as the shell
/// and the gateways write numbers). Configuration: `columns` (optional, `f:q` or `f`,
/// comma separated; default every column).
pub const VALUE_IS_NUMBER: &str = "regionkv.constraint.ValueIsNumber";
/// Every value of the configured columns matches `regex` (whole value). Configuration:
/// `regex` (required), `columns` (optional).
pub const VALUE_MATCHES: &str = "regionkv.constraint.ValueMatches";
/// No value of the configured columns is longer than `max.bytes`. Configuration:
/// `max.bytes` (required), `columns` (optional).
pub const MAX_VALUE_SIZE: &str = "regionkv.constraint.MaxValueSize";
/// Every put writes each of `columns` (`f:q`, comma separated). Configuration: `columns`
/// (required).
pub const REQUIRED_COLUMNS: &str = "regionkv.constraint.RequiredColumns";

/// The constraint classes regionkv ships.
pub const BUILTIN_CONSTRAINTS: &[&str] = &[
    VALUE_IS_NUMBER,
    VALUE_MATCHES,
    MAX_VALUE_SIZE,
    REQUIRED_COLUMNS,
];

/// HBase's `Constraints` utility: adds, enables, disables and removes a table's
/// constraints in its descriptor (then `Admin::create_table` or `modify_table` applies it).
///
/// ```
/// use regionkv::constraint::{Constraints, ConstraintConfig, MAX_VALUE_SIZE};
/// use regionkv::{ColumnFamilyDescriptor, Db, DbOptions, Error, Put, TableDescriptor};
/// # let dir = tempfile::tempdir()?;
/// # let db = Db::open(dir.path(), DbOptions::default().background(false))?;
/// let mut desc = TableDescriptor::new("t", vec![ColumnFamilyDescriptor::new(b"f")?])?;
/// let config = ConstraintConfig::from([("max.bytes".to_string(), "4".to_string())]);
/// Constraints::add(&mut desc, MAX_VALUE_SIZE, config);
/// db.admin().create_table(&desc)?;
/// let t = db.table("t")?;
/// t.put(&Put::new("r").add_column("f", "q", "1234"))?;
/// let err = t.put(&Put::new("r").add_column("f", "q", "12345")).unwrap_err();
/// assert!(matches!(err, Error::ConstraintViolation { .. }));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct Constraints;

impl Constraints {
    /// Adds `class` with `config`, enabled, at the next priority (unless `config` sets
    /// `_PRIORITY`), and installs the processor (HBase's `Constraints.add`).
    pub fn add(desc: &mut TableDescriptor, class: &str, mut config: ConstraintConfig) {
        Self::enable(desc);
        let priority = desc
            .metadata
            .get(COUNTER_KEY)
            .and_then(|v| v.trim().parse::<i64>().ok())
            .map_or(0, |c| c.saturating_add(1));
        config
            .entry(ENABLED_KEY.to_string())
            .or_insert_with(|| "true".to_string());
        if config
            .get(PRIORITY_KEY)
            .and_then(|p| p.trim().parse::<i64>().ok())
            .is_none()
        {
            config.insert(PRIORITY_KEY.to_string(), priority.to_string());
        }
        desc.metadata.insert(key_of(class), to_xml(&config));
        // HBase stores the next unused number, so the next add skips one.
        desc.metadata
            .insert(COUNTER_KEY.to_string(), (priority + 1).to_string());
    }

    /// Installs the processor, so enabled constraints run (HBase's `Constraints.enable`).
    pub fn enable(desc: &mut TableDescriptor) {
        if !desc.has_coprocessor(CONSTRAINT_PROCESSOR) {
            let spec = CoprocessorSpec::of_class(CONSTRAINT_PROCESSOR).to_value();
            // The spec is well formed and its class absent: this cannot be refused.
            let _ = desc.add_coprocessor(&spec);
        }
    }

    /// Removes the processor and keeps the constraints (HBase's `Constraints.disable`).
    pub fn disable(desc: &mut TableDescriptor) {
        desc.remove_coprocessor(CONSTRAINT_PROCESSOR);
    }

    /// Removes the processor and every constraint (HBase's `Constraints.remove`; the
    /// counter stays).
    pub fn remove(desc: &mut TableDescriptor) {
        Self::disable(desc);
        desc.metadata.retain(|k, _| class_of_key(k).is_none());
    }

    /// Removes one constraint; false when the table has none of that class.
    pub fn remove_constraint(desc: &mut TableDescriptor, class: &str) -> bool {
        desc.metadata.remove(&key_of(class)).is_some()
    }

    /// True when the table has `class`, enabled or not.
    pub fn has(desc: &TableDescriptor, class: &str) -> bool {
        desc.metadata.contains_key(&key_of(class))
    }

    /// The stored configuration of `class`.
    pub fn configuration(desc: &TableDescriptor, class: &str) -> Option<ConstraintConfig> {
        desc.metadata.get(&key_of(class)).and_then(|v| from_xml(v))
    }

    /// Turns one constraint on or off (HBase's `enableConstraint` / `disableConstraint`),
    /// with HBase's message when the table does not have it.
    pub fn set_enabled(
        desc: &mut TableDescriptor,
        class: &str,
        enabled: bool,
    ) -> Result<(), String> {
        let Some(mut config) = Self::configuration(desc, class) else {
            let verb = if enabled { "enable" } else { "disable" };
            return Err(format!(
                "Constraint: {class} is not associated with this table. You can't {verb} it!"
            ));
        };
        config.insert(ENABLED_KEY.to_string(), enabled.to_string());
        desc.metadata.insert(key_of(class), to_xml(&config));
        Ok(())
    }

    /// The constraint classes a table names: (class, enabled).
    pub fn list(desc: &TableDescriptor) -> Vec<(String, bool)> {
        desc.metadata
            .iter()
            .filter_map(|(k, v)| {
                let class = class_of_key(k)?;
                let enabled = from_xml(v).is_some_and(|c| is_true(c.get(ENABLED_KEY)));
                Some((class.to_string(), enabled))
            })
            .collect()
    }
}

/// The table value key of a constraint class.
fn key_of(class: &str) -> String {
    format!("{KEY_PREFIX}{class}")
}

/// The class of a constraint key: the key, trimmed, splits on the literal prefix into
/// exactly an empty part and the class (HBase's `split` on the pattern).
fn class_of_key(key: &str) -> Option<&str> {
    let rest = key.trim().strip_prefix(KEY_PREFIX)?;
    (!rest.is_empty() && !rest.contains(KEY_PREFIX)).then_some(rest)
}

/// Hadoop's `getBoolean`: `true` in any case.
fn is_true(v: Option<&String>) -> bool {
    v.is_some_and(|v| v.trim().eq_ignore_ascii_case("true"))
}

/// A configuration as Hadoop's `Configuration.writeXml` writes it.
fn to_xml(config: &ConstraintConfig) -> String {
    let mut out = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?><configuration>\n",
    );
    for (k, v) in config {
        out.push_str(&format!(
            "<property><name>{}</name><value>{}</value><final>false</final><source>programmatically</source></property>\n",
            escape(k),
            escape(v)
        ));
    }
    out.push_str("</configuration>\n");
    out
}

fn escape(s: &str) -> String {
    quick_xml::escape::escape(s).into_owned()
}

/// The `name`/`value` pairs of a Hadoop configuration document; `None` when it does not
/// parse (HBase skips such a constraint with a warning).
fn from_xml(xml: &str) -> Option<ConstraintConfig> {
    use quick_xml::events::Event;
    let mut reader = quick_xml::Reader::from_str(xml);
    let mut out = ConstraintConfig::new();
    let (mut field, mut name, mut value) = (None::<String>, None::<String>, None::<String>);
    let mut depth = 0usize;
    loop {
        match reader.read_event().ok()? {
            Event::Start(e) => {
                depth += 1;
                let tag = String::from_utf8_lossy(e.name().as_ref()).into_owned();
                if tag == "property" {
                    name = None;
                    value = None;
                }
                field = Some(tag);
            }
            // Text comes in pieces: the runs between entity references, and each
            // reference (`&lt;`, `&#38;`) on its own.
            Event::Text(t) => push_text(&field, &mut name, &mut value, &t.decode().ok()?),
            Event::GeneralRef(r) => {
                let piece = match r.resolve_char_ref().ok()? {
                    Some(c) => c.to_string(),
                    None => {
                        let entity = r.decode().ok()?;
                        quick_xml::escape::resolve_predefined_entity(&entity)?.to_string()
                    }
                };
                push_text(&field, &mut name, &mut value, &piece);
            }
            Event::End(e) => {
                depth = depth.checked_sub(1)?;
                if e.name().as_ref() == b"property"
                    && let Some(n) = name.take()
                {
                    out.insert(n, value.take().unwrap_or_default());
                }
                field = None;
            }
            // A document cut short (an element left open) does not parse.
            Event::Eof => return (depth == 0).then_some(out),
            _ => {}
        }
    }
}

/// Appends a piece of text to the `name` or `value` being read.
fn push_text(
    field: &Option<String>,
    name: &mut Option<String>,
    value: &mut Option<String>,
    piece: &str,
) {
    let target = match field.as_deref() {
        Some("name") => name,
        Some("value") => value,
        _ => return,
    };
    target.get_or_insert_with(String::new).push_str(piece);
}

/// The built-in `ConstraintProcessor` of a region of `desc`: its enabled constraints, in
/// priority order (stable: equal priorities keep key order).
pub(crate) fn processor(
    desc: &TableDescriptor,
    registry: &CoprocessorRegistry,
) -> Arc<dyn RegionObserver> {
    let mut loaded: Vec<(i64, String, Arc<dyn Constraint>)> = Vec::new();
    for (key, value) in &desc.metadata {
        let Some(class) = class_of_key(key) else {
            continue;
        };
        let Some(config) = from_xml(value) else {
            tracing::warn!(class, "corrupted constraint configuration; skipping it");
            continue;
        };
        if !is_true(config.get(ENABLED_KEY)) {
            continue;
        }
        let priority = config
            .get(PRIORITY_KEY)
            .and_then(|p| p.trim().parse().ok())
            .unwrap_or(-1);
        match make(class, &config, registry) {
            Ok(c) => loaded.push((priority, class.to_string(), c)),
            Err(e) => tracing::warn!(class, error = %e, "constraint not loaded"),
        }
    }
    loaded.sort_by_key(|(p, _, _)| *p);
    Arc::new(ConstraintProcessor {
        constraints: loaded.into_iter().map(|(_, c, k)| (c, k)).collect(),
    })
}

/// A constraint of a class: shipped or registered.
fn make(
    class: &str,
    config: &ConstraintConfig,
    registry: &CoprocessorRegistry,
) -> Result<Arc<dyn Constraint>, String> {
    if let Some(factory) = registry.constraints.get(class) {
        return factory(config);
    }
    let columns = || ColumnSet::parse(config.get("columns").map(String::as_str).unwrap_or(""));
    match class {
        VALUE_IS_NUMBER => Ok(Arc::new(ValueIsNumber { columns: columns() })),
        VALUE_MATCHES => {
            let regex = config.get("regex").ok_or("ValueMatches needs `regex`")?;
            let regex = regex::Regex::new(&format!("^(?:{regex})$")).map_err(|e| e.to_string())?;
            Ok(Arc::new(ValueMatches {
                regex,
                columns: columns(),
            }))
        }
        MAX_VALUE_SIZE => {
            let max = config
                .get("max.bytes")
                .and_then(|m| m.trim().parse().ok())
                .ok_or("MaxValueSize needs a numeric `max.bytes`")?;
            Ok(Arc::new(MaxValueSize {
                max,
                columns: columns(),
            }))
        }
        REQUIRED_COLUMNS => {
            let columns = columns();
            if columns.0.is_empty() {
                return Err("RequiredColumns needs `columns`".into());
            }
            Ok(Arc::new(RequiredColumns { columns }))
        }
        other => Err(format!(
            "constraint class {other} is neither shipped nor registered"
        )),
    }
}

/// True when regionkv can make `class` (shipped or registered).
pub(crate) fn is_known(class: &str, registry: &CoprocessorRegistry) -> bool {
    BUILTIN_CONSTRAINTS.contains(&class) || registry.constraints.contains_key(class)
}

/// The enabled constraint classes of `desc` that cannot be made (checked on create and
/// alter, so a table does not silently lose a check).
pub(crate) fn unknown_classes(
    desc: &TableDescriptor,
    registry: &CoprocessorRegistry,
) -> Vec<String> {
    Constraints::list(desc)
        .into_iter()
        .filter(|(class, enabled)| *enabled && !is_known(class, registry))
        .map(|(class, _)| class)
        .collect()
}

/// HBase's ConstraintProcessor: the constraints, in run order.
struct ConstraintProcessor {
    constraints: Vec<(String, Arc<dyn Constraint>)>,
}

impl RegionObserver for ConstraintProcessor {
    fn pre_put(&self, _: &mut ObserverContext<'_>, put: &mut Put) -> CoprocessorResult<()> {
        for (class, c) in &self.constraints {
            c.check(put)
                .map_err(|message| CoprocessorError::constraint(class, message))?;
        }
        Ok(())
    }
}

/// Columns a built-in constraint looks at: `f:q` or `f`; empty means every column.
#[derive(Debug, Clone)]
struct ColumnSet(Vec<(Vec<u8>, Option<Vec<u8>>)>);

impl ColumnSet {
    fn parse(spec: &str) -> Self {
        Self(
            spec.split(',')
                .map(str::trim)
                .filter(|c| !c.is_empty())
                .map(|c| match c.split_once(':') {
                    Some((f, q)) => (f.as_bytes().to_vec(), Some(q.as_bytes().to_vec())),
                    None => (c.as_bytes().to_vec(), None),
                })
                .collect(),
        )
    }

    fn covers(&self, family: &[u8], qualifier: &[u8]) -> bool {
        self.0.is_empty()
            || self
                .0
                .iter()
                .any(|(f, q)| f == family && q.as_deref().is_none_or(|q| q == qualifier))
    }
}

/// The (family, qualifier, value) of each column of `put` the set covers.
fn checked<'a>(
    put: &'a Put,
    columns: &'a ColumnSet,
) -> impl Iterator<Item = (&'a [u8], &'a [u8], &'a [u8])> {
    put.entries()
        .iter()
        .filter(|(f, q, _, _)| columns.covers(f, q))
        .map(|(f, q, _, v)| (f.as_slice(), q.as_slice(), v.as_slice()))
}

fn column_text(f: &[u8], q: &[u8]) -> String {
    format!(
        "{}:{}",
        regionkv_cell::bytes::to_string_binary(f),
        regionkv_cell::bytes::to_string_binary(q)
    )
}

struct ValueIsNumber {
    columns: ColumnSet,
}

impl Constraint for ValueIsNumber {
    fn check(&self, put: &Put) -> Result<(), String> {
        for (f, q, v) in checked(put, &self.columns) {
            let number = std::str::from_utf8(v)
                .ok()
                .is_some_and(|s| s.trim().parse::<f64>().is_ok_and(f64::is_finite));
            if !number {
                return Err(format!(
                    "value of {} is not a number: {}",
                    column_text(f, q),
                    regionkv_cell::bytes::to_string_binary(v)
                ));
            }
        }
        Ok(())
    }
}

struct ValueMatches {
    regex: regex::Regex,
    columns: ColumnSet,
}

impl Constraint for ValueMatches {
    fn check(&self, put: &Put) -> Result<(), String> {
        for (f, q, v) in checked(put, &self.columns) {
            if !std::str::from_utf8(v).is_ok_and(|s| self.regex.is_match(s)) {
                return Err(format!(
                    "value of {} does not match {}: {}",
                    column_text(f, q),
                    self.regex.as_str(),
                    regionkv_cell::bytes::to_string_binary(v)
                ));
            }
        }
        Ok(())
    }
}

struct MaxValueSize {
    max: usize,
    columns: ColumnSet,
}

impl Constraint for MaxValueSize {
    fn check(&self, put: &Put) -> Result<(), String> {
        for (f, q, v) in checked(put, &self.columns) {
            if v.len() > self.max {
                return Err(format!(
                    "value of {} is {} bytes, more than {}",
                    column_text(f, q),
                    v.len(),
                    self.max
                ));
            }
        }
        Ok(())
    }
}

struct RequiredColumns {
    columns: ColumnSet,
}

impl Constraint for RequiredColumns {
    fn check(&self, put: &Put) -> Result<(), String> {
        for (family, qualifier) in &self.columns.0 {
            let present = put.entries().iter().any(|(f, q, _, _)| {
                f == family && qualifier.as_deref().is_none_or(|want| want == q.as_slice())
            });
            if !present {
                let column = match qualifier {
                    Some(q) => column_text(family, q),
                    None => regionkv_cell::bytes::to_string_binary(family),
                };
                return Err(format!(
                    "put of row {} lacks the required column {column}",
                    regionkv_cell::bytes::to_string_binary(put.row())
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use regionkv_region::ColumnFamilyDescriptor;

    fn desc() -> TableDescriptor {
        TableDescriptor::new("t", vec![ColumnFamilyDescriptor::new(b"f").unwrap()]).unwrap()
    }

    #[test]
    fn add_numbers_priorities_as_hbase_and_installs_the_processor() {
        let mut d = desc();
        Constraints::add(&mut d, VALUE_IS_NUMBER, ConstraintConfig::new());
        Constraints::add(
            &mut d,
            MAX_VALUE_SIZE,
            ConstraintConfig::from([("max.bytes".into(), "3".into())]),
        );
        assert!(d.has_coprocessor(CONSTRAINT_PROCESSOR));
        assert_eq!(d.coprocessors().len(), 1, "installed once");
        let p = |c| Constraints::configuration(&d, c).unwrap()[PRIORITY_KEY].clone();
        assert_eq!(
            (p(VALUE_IS_NUMBER), p(MAX_VALUE_SIZE)),
            ("0".into(), "2".into())
        );
        assert_eq!(d.metadata[COUNTER_KEY], "3");
        assert!(
            d.metadata
                .contains_key("constraint $regionkv.constraint.ValueIsNumber")
        );
        assert_eq!(
            Constraints::configuration(&d, MAX_VALUE_SIZE).unwrap()["max.bytes"],
            "3"
        );
        Constraints::set_enabled(&mut d, VALUE_IS_NUMBER, false).unwrap();
        assert_eq!(
            Constraints::list(&d),
            [
                (MAX_VALUE_SIZE.to_string(), true),
                (VALUE_IS_NUMBER.to_string(), false)
            ]
        );
        assert_eq!(
            Constraints::set_enabled(&mut d, "x.Y", true).unwrap_err(),
            "Constraint: x.Y is not associated with this table. You can't enable it!"
        );
        Constraints::disable(&mut d);
        assert!(!d.has_coprocessor(CONSTRAINT_PROCESSOR));
        assert_eq!(Constraints::list(&d).len(), 2, "disable keeps them");
        Constraints::remove(&mut d);
        assert!(Constraints::list(&d).is_empty());
        assert_eq!(d.metadata[COUNTER_KEY], "3", "the counter stays");
    }

    #[test]
    fn configurations_round_trip_through_hadoop_xml() {
        let config = ConstraintConfig::from([
            ("regex".to_string(), "a<b>&\"c'".to_string()),
            (ENABLED_KEY.to_string(), "true".to_string()),
        ]);
        assert_eq!(from_xml(&to_xml(&config)), Some(config));
        let hadoop = "<?xml version=\"1.0\"?><configuration><property><name>_ENABLED</name>\
            <value>true</value><source>programatically</source></property>\
            <property><name>_PRIORITY</name><value>7</value></property></configuration>";
        let c = from_xml(hadoop).unwrap();
        assert_eq!(
            (c["_ENABLED"].as_str(), c["_PRIORITY"].as_str()),
            ("true", "7")
        );
        assert_eq!(from_xml("<configuration><property>"), None);
        assert_eq!(class_of_key(" constraint $a.B "), Some("a.B"));
        assert_eq!(class_of_key("constraint $"), None);
        assert_eq!(class_of_key("constraint $a constraint $b"), None);
    }

    #[test]
    fn the_shipped_constraints_check_their_columns() {
        let registry = CoprocessorRegistry::default();
        let cfg = |pairs: &[(&str, &str)]| -> ConstraintConfig {
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        };
        let put = Put::new("r")
            .add_column("f", "n", "12.5")
            .add_column("f", "s", "abc");
        let number = make(VALUE_IS_NUMBER, &cfg(&[("columns", "f:n")]), &registry).unwrap();
        assert!(number.check(&put).is_ok());
        let any = make(VALUE_IS_NUMBER, &cfg(&[]), &registry).unwrap();
        assert_eq!(
            any.check(&put).unwrap_err(),
            "value of f:s is not a number: abc"
        );
        let matches = make(
            VALUE_MATCHES,
            &cfg(&[("regex", "[a-z]+"), ("columns", "f:s")]),
            &registry,
        )
        .unwrap();
        assert!(matches.check(&put).is_ok());
        let whole = make(VALUE_MATCHES, &cfg(&[("regex", "b")]), &registry).unwrap();
        assert!(whole.check(&put).is_err(), "the whole value must match");
        let size = make(MAX_VALUE_SIZE, &cfg(&[("max.bytes", "3")]), &registry).unwrap();
        assert_eq!(
            size.check(&put).unwrap_err(),
            "value of f:n is 4 bytes, more than 3"
        );
        let required = make(
            REQUIRED_COLUMNS,
            &cfg(&[("columns", "f:n, f:missing")]),
            &registry,
        )
        .unwrap();
        assert_eq!(
            required.check(&put).unwrap_err(),
            "put of row r lacks the required column f:missing"
        );
        for (class, config) in [
            (VALUE_MATCHES, cfg(&[])),
            (VALUE_MATCHES, cfg(&[("regex", "(")])),
            (MAX_VALUE_SIZE, cfg(&[("max.bytes", "x")])),
            (REQUIRED_COLUMNS, cfg(&[])),
            ("com.example.Unknown", cfg(&[])),
        ] {
            assert!(make(class, &config, &registry).is_err(), "{class}");
        }
    }
}
