//! The DDL, namespace, tool and status commands, as HBase 2.4's shell runs them
//! (hbase-shell/src/main/ruby/hbase/admin.rb and shell/commands/*.rb): `create` with column
//! family hashes, table attributes, `SPLITS` and `NUMREGIONS`/`SPLITALGO`; `alter`;
//! `describe` in HBase's descriptor text; `list`, `exists`, `is_enabled`, `enable`,
//! `disable`, `drop`, `truncate`, `truncate_preserve`; the namespace commands;
//! `list_regions`, `get_splits` and `status` (`flush` and the compactions are in
//! `regions.rs`, as they take region names too).
//!
//! HBase options regionkv does not implement are refused with an error naming them, except
//! when they are given their HBase default (a schema script carrying `IS_MOB => false` still
//! runs); keys HBase itself does not know are reported and ignored as HBase reports them.

use regionkv::cell::bytes::to_string_binary;
use regionkv::descriptor::{DEFAULT_MAX_FILESIZE, DEFAULT_MEMSTORE_FLUSH_SIZE};
use regionkv::split::{self, SplitAlgorithm, SplitAlgorithmKind};
use regionkv::{ColumnFamilyDescriptor, TableDescriptor};

use super::args::{
    CmdError, CmdResult, Opts, arity, class_name, fail, inspect, int_arg, java_bool, java_int_arg,
    string_arg, table_arg, to_bytes_binary, to_s, to_text, truthy,
};
use super::engine::{Engine, Out, Ret, SERVER_NAME, error_chain, hbase_error};
use super::format::{human_ttl, java_hashmap_order, ruby_float};
use super::parse::Value;

/// Ruby's `args.flatten.compact`: nested arrays spread out, `nil`s dropped.
pub fn flatten(args: &[Value]) -> Vec<Value> {
    let mut out = Vec::new();
    for a in args {
        match a {
            Value::Array(items) => out.extend(flatten(items)),
            Value::Nil => {}
            other => out.push(other.clone()),
        }
    }
    out
}

/// A descriptor's error as a command failure: its text (HBase's client-side checks print
/// bare).
fn desc_error(e: regionkv::DescriptorError) -> CmdError {
    CmdError::Failed(error_chain(&e))
}

/// The namespace properties HBase's master checks (`TableNamespaceManager`): quota keys.
const NAMESPACE_MAX_REGIONS_KEY: &str = "hbase.namespace.quota.maxregions";
/// See [`NAMESPACE_MAX_REGIONS_KEY`].
const NAMESPACE_MAX_TABLES_KEY: &str = "hbase.namespace.quota.maxtables";

/// One `'KEY' => value` of a namespace hash (`nsb.addConfiguration(k, v.to_s)`); a `nil`
/// value removes the key, as `NamespaceDescriptor.setConfiguration` does.
fn set_property(
    props: &mut std::collections::BTreeMap<String, String>,
    set: &mut Vec<String>,
    key: &Value,
    value: &Value,
) {
    let key = to_text(key);
    match value {
        Value::Nil => {
            props.remove(&key);
        }
        v => {
            props.insert(key.clone(), to_text(v));
            if !set.contains(&key) {
                set.push(key);
            }
        }
    }
}

/// HBase's master validates the quota properties of a namespace it creates or modifies
/// (`validateTableAndRegionCount`), with these messages; regionkv does the same, though it
/// enforces no quota.
fn check_namespace_quotas(
    ns: &str,
    props: &std::collections::BTreeMap<String, String>,
) -> CmdResult<()> {
    for (key, what) in [
        (NAMESPACE_MAX_REGIONS_KEY, ("regions", "region")),
        (NAMESPACE_MAX_TABLES_KEY, ("tables", "tables")),
    ] {
        let Some(value) = props.get(key).filter(|v| !v.is_empty()) else {
            continue;
        };
        let Ok(n) = value.parse::<i64>() else {
            return fail(format!(
                "org.apache.hadoop.hbase.DoNotRetryIOException: NumberFormatException while getting max {}.",
                what.0
            ));
        };
        if n <= 0 {
            return fail(format!(
                "org.apache.hadoop.hbase.constraint.ConstraintException: The max {} quota for {ns} is less than or equal to zero.",
                what.1
            ));
        }
    }
    Ok(())
}

/// Reports the namespace properties just set: regionkv keeps them and acts on none.
fn report_namespace_properties(ns: &str, set: &[String], out: &mut Out<'_>) -> CmdResult<()> {
    for key in set {
        out.line(&format!(
            "Namespace property ignored by regionkv for namespace {ns} (kept in the descriptor): {key}"
        ))?;
    }
    Ok(())
}

/// A full-match regex as Java's `Pattern.matcher(s).matches()` uses it.
pub(super) fn full_match(regex: &str) -> CmdResult<regex::Regex> {
    regex::Regex::new(&format!("^(?:{regex})$"))
        .or_else(|e| fail(format!("invalid regular expression {regex:?}: {e}")))
}

/// The optional regex argument of `list` and `list_namespace` (default `.*`).
fn regex_arg(args: &[Value]) -> CmdResult<regex::Regex> {
    let regex = match args.first() {
        None => ".*".to_string(),
        Some(v) => string_arg(v, "The regular expression")?,
    };
    full_match(&regex)
}

// ---------------------------------------------------------------------------------------------
// Descriptor text (describe)

/// A family as `ColumnFamilyDescriptor.toString()` prints it: NAME, then every attribute in
/// HBase 2.4's order (TTL in PrettyPrinter's words), then CONFIGURATION in Java `HashMap`
/// order.
pub fn family_text(f: &ColumnFamilyDescriptor) -> String {
    let mut s = format!("{{NAME => '{}'", String::from_utf8_lossy(&f.name));
    for (key, value) in f.attributes() {
        if key == "NAME" {
            continue;
        }
        let value = if key == "TTL" {
            value.parse::<i64>().map_or(value.clone(), human_ttl)
        } else {
            value
        };
        s.push_str(&format!(", {key} => '{value}'"));
    }
    if !f.configuration.is_empty() {
        let keys: Vec<&str> = f.configuration.keys().map(String::as_str).collect();
        let pairs: Vec<String> = java_hashmap_order(&keys)
            .into_iter()
            .map(|k| {
                let v = f.configuration.get(k).map_or("", String::as_str);
                format!("'{k}' => '{v}'")
            })
            .collect();
        s.push_str(&format!(", CONFIGURATION => {{{}}}", pairs.join(", ")));
    }
    s.push('}');
    s
}

/// `TableDescriptor.toStringTableAttributes()`: the attributes that are set, sorted by name,
/// then the other keys under METADATA (in HBase 2.x a table's CONFIGURATION entries are such
/// keys); nothing at all for a table with none.
pub fn table_attributes_text(d: &TableDescriptor) -> String {
    // Reserved keys and `coprocessor$N` keys (HBase matches that prefix case-sensitively
    // here) print bare, together in byte order; every other value goes under METADATA.
    let is_cp = |k: &str| k.starts_with(regionkv::coprocessor::KEY_PREFIX);
    let mut direct: Vec<(String, String)> = d
        .attributes(false)
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .chain(
            d.metadata
                .iter()
                .filter(|(k, _)| is_cp(k))
                .map(|(k, v)| (k.clone(), to_string_binary(v.as_bytes()))),
        )
        .collect();
    direct.sort();
    let user_metadata = d.metadata.keys().any(|k| !is_cp(k));
    if direct.is_empty() && d.configuration.is_empty() && !user_metadata {
        return String::new();
    }
    let mut parts: Vec<String> = direct
        .iter()
        .map(|(k, v)| format!("{k} => '{v}'"))
        .collect();
    if !d.configuration.is_empty() || user_metadata {
        let mut values: Vec<(&String, &String)> = d
            .configuration
            .iter()
            .chain(d.metadata.iter().filter(|(k, _)| !is_cp(k)))
            .collect();
        values.sort();
        let user: Vec<String> = values
            .iter()
            .map(|(k, v)| format!("'{k}' => '{v}'"))
            .collect();
        parts.push(format!("METADATA => {{{}}}", user.join(", ")));
    }
    format!(", {{TABLE_ATTRIBUTES => {{{}}}}}", parts.join(", "))
}

// ---------------------------------------------------------------------------------------------
// Options of families and tables

/// One attribute `create` and `alter` accept: its HBase name, the kind of value, HBase's
/// default and the values regionkv takes. `help 'create'` prints these tables, and the
/// parsers below iterate them, so what help lists is what the shell accepts.
#[derive(Debug)]
pub(super) struct AttrSpec {
    /// HBase's attribute name.
    pub key: &'static str,
    /// The kind of value.
    pub kind: &'static str,
    /// HBase's default (regionkv's too).
    pub default: &'static str,
    /// The values regionkv accepts.
    pub range: &'static str,
}

/// The column family attributes regionkv implements, in the order HBase's `hcd` reads
/// them (so the first bad option is the one reported).
pub(super) const FAMILY_ATTRS: &[AttrSpec] = &[
    AttrSpec {
        key: "BLOCKCACHE",
        kind: "boolean",
        default: "true",
        range: "true | false",
    },
    AttrSpec {
        key: "REPLICATION_SCOPE",
        kind: "integer",
        default: "0",
        range: "0 | 1 (stored; regionkv does not replicate)",
    },
    AttrSpec {
        key: "IN_MEMORY",
        kind: "boolean",
        default: "false",
        range: "true | false (block cache in-memory priority)",
    },
    AttrSpec {
        key: "TTL",
        kind: "seconds",
        default: "FOREVER",
        range: "1 .. 2147483647, or 'FOREVER' (= 2147483647)",
    },
    AttrSpec {
        key: "DATA_BLOCK_ENCODING",
        kind: "name",
        default: "NONE",
        range: "NONE | PREFIX",
    },
    AttrSpec {
        key: "BLOCKSIZE",
        kind: "bytes",
        default: "65536",
        range: "1024 .. 16777216",
    },
    AttrSpec {
        key: "VERSIONS",
        kind: "integer",
        default: "1",
        range: "1 .. 2147483647",
    },
    AttrSpec {
        key: "MIN_VERSIONS",
        kind: "integer",
        default: "0",
        range: "0 .. VERSIONS",
    },
    AttrSpec {
        key: "KEEP_DELETED_CELLS",
        kind: "name",
        default: "FALSE",
        range: "FALSE | TRUE | TTL (true / false also)",
    },
    AttrSpec {
        key: "BLOOMFILTER",
        kind: "name",
        default: "ROW",
        range: "NONE | ROW | ROWCOL",
    },
    AttrSpec {
        key: "COMPRESSION",
        kind: "name",
        default: "NONE",
        range: "NONE | LZ4",
    },
];

/// The table attributes regionkv implements, in the order HBase's `update_htd_from_arg`
/// reads them.
pub(super) const TABLE_ATTRS: &[AttrSpec] = &[
    AttrSpec {
        key: "MAX_FILESIZE",
        kind: "bytes",
        default: "10737418240",
        range: "0 .. 2^64-1 (the split size of the size-based policies)",
    },
    AttrSpec {
        key: "READONLY",
        kind: "boolean",
        default: "false",
        range: "true | false",
    },
    AttrSpec {
        key: "COMPACTION_ENABLED",
        kind: "boolean",
        default: "true",
        range: "true | false (false: only user-requested compactions)",
    },
    AttrSpec {
        key: "SPLIT_ENABLED",
        kind: "boolean",
        default: "true",
        range: "true | false",
    },
    AttrSpec {
        key: "MERGE_ENABLED",
        kind: "boolean",
        default: "true",
        range: "true | false",
    },
    AttrSpec {
        key: "MEMSTORE_FLUSHSIZE",
        kind: "bytes",
        default: "134217728",
        range: "1 .. 2^64-1",
    },
    AttrSpec {
        key: "DURABILITY",
        kind: "name",
        default: "USE_DEFAULT",
        range: "USE_DEFAULT | SKIP_WAL | ASYNC_WAL | SYNC_WAL | FSYNC_WAL (case-sensitive)",
    },
    AttrSpec {
        key: "SPLIT_POLICY",
        kind: "class name",
        default: "SteppingSplitPolicy",
        range: "ConstantSizeRegionSplitPolicy | IncreasingToUpperBoundRegionSplitPolicy | \
                SteppingSplitPolicy | BusyRegionSplitPolicy | DisabledRegionSplitPolicy | \
                KeyPrefixRegionSplitPolicy | DelimitedKeyPrefixRegionSplitPolicy \
                (bare or org.apache.hadoop.hbase.regionserver.NAME)",
    },
];

/// The kind of value of a CONFIGURATION key regionkv acts on, as HBase reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ConfKind {
    /// `Configuration.getLong`.
    Long,
    /// `Configuration.getFloat` / `getDouble`, at least 0.
    Fraction,
    /// `Configuration.getBoolean`: `true` or `false` in any case.
    Bool,
}

/// The keys of a table's CONFIGURATION (or METADATA) that regionkv acts on, with what they
/// do. Every other key is kept in the descriptor, shown by `describe`, and reported as
/// ignored when it is set.
pub(super) const TABLE_CONFIG_KEYS: &[(&str, ConfKind, &str)] = &[
    (
        regionkv::coprocessor::SANITY_CHECKS_KEY,
        ConfKind::Bool,
        "false keeps coprocessor specs naming classes regionkv does not ship (default true)",
    ),
    (
        split::MAX_FILESIZE_JITTER_KEY,
        ConfKind::Fraction,
        "jitter of the split size, a fraction of MAX_FILESIZE (default 0.25)",
    ),
    (
        split::INITIAL_SIZE_KEY,
        ConfKind::Long,
        "first split size of the increasing/stepping policies, bytes (default 2 x flush size)",
    ),
    (
        split::OVERALL_FILES_KEY,
        ConfKind::Bool,
        "split on the sum of all stores (true) or the largest one (default true)",
    ),
    (
        split::BUSY_BLOCKED_REQUESTS_KEY,
        ConfKind::Fraction,
        "BusyRegionSplitPolicy: blocked-request share that splits (default 0.2)",
    ),
    (
        split::BUSY_MIN_AGE_KEY,
        ConfKind::Long,
        "BusyRegionSplitPolicy: youngest region it splits, ms (default 600000)",
    ),
    (
        split::BUSY_AGG_WINDOW_KEY,
        ConfKind::Long,
        "BusyRegionSplitPolicy: aggregation window, ms (default 300000)",
    ),
];

/// The table values (METADATA or CONFIGURATION) the prefix split policies read.
pub(super) const SPLIT_POLICY_KEYS: &[&str] = &[
    split::PREFIX_LENGTH_KEY,
    split::PREFIX_LENGTH_KEY_DEPRECATED,
    split::DELIMITER_KEY,
];

/// Checks the value of a CONFIGURATION key regionkv acts on; `false` for a key it does not
/// act on.
fn check_table_config(key: &str, value: &str) -> CmdResult<bool> {
    if SPLIT_POLICY_KEYS.contains(&key) {
        // Checked with the policy when the table is created or altered.
        return Ok(true);
    }
    let Some((_, kind, _)) = TABLE_CONFIG_KEYS.iter().find(|(k, _, _)| *k == key) else {
        return Ok(false);
    };
    let v = value.trim();
    let ok = match kind {
        ConfKind::Long => v.parse::<i64>().is_ok(),
        ConfKind::Fraction => v.parse::<f64>().is_ok_and(|f| f.is_finite() && f >= 0.0),
        ConfKind::Bool => v.eq_ignore_ascii_case("true") || v.eq_ignore_ascii_case("false"),
    };
    if ok {
        return Ok(true);
    }
    let want = match kind {
        ConfKind::Long => "an integer (a Java long)",
        ConfKind::Fraction => "a number of at least 0",
        ConfKind::Bool => "true or false",
    };
    fail(format!(
        "CONFIGURATION {key} => '{value}' is not valid: regionkv reads it as {want}"
    ))
}

/// The line that reports a CONFIGURATION key regionkv keeps but does not act on.
fn ignored_config_line(what: &str, key: &str) -> String {
    format!("CONFIGURATION key ignored by regionkv for {what} (kept in the descriptor): {key}")
}

/// Family keys regionkv does not implement, with the HBase default it accepts for them.
const FAMILY_DEFAULTS: &[(&str, &str)] = &[
    ("CACHE_DATA_ON_WRITE", "false"),
    ("CACHE_INDEX_ON_WRITE", "false"),
    ("CACHE_BLOOMS_ON_WRITE", "false"),
    ("EVICT_BLOCKS_ON_CLOSE", "false"),
    ("IN_MEMORY_COMPACTION", "NONE"),
    ("COMPRESS_TAGS", "true"),
    ("PREFETCH_BLOCKS_ON_OPEN", "false"),
    ("IS_MOB", "false"),
    ("NEW_VERSION_BEHAVIOR", "false"),
    ("COMPRESSION_COMPACT", "NONE"),
    ("DFS_REPLICATION", "0"),
];

/// Family keys HBase knows and regionkv does not implement in any form.
const FAMILY_UNSUPPORTED: &[&str] = &[
    "MOB_THRESHOLD",
    "ENCRYPTION",
    "ENCRYPTION_KEY",
    "STORAGE_POLICY",
    "MOB_COMPACT_PARTITION_POLICY",
    "METADATA",
];

/// Table keys regionkv does not implement, with the HBase default it accepts for them.
const TABLE_DEFAULTS: &[(&str, &str)] = &[
    ("NORMALIZATION_ENABLED", "false"),
    ("PRIORITY", "0"),
    ("REGION_MEMSTORE_REPLICATION", "true"),
    ("REGION_REPLICATION", "1"),
];

/// Table keys HBase knows and regionkv does not implement in any form.
const TABLE_UNSUPPORTED: &[&str] = &[
    "OWNER",
    "NORMALIZER_TARGET_REGION_COUNT",
    "NORMALIZER_TARGET_REGION_SIZE",
    "FLUSH_POLICY",
];

/// Writes the attribute tables `help 'create'` and `help 'alter'` print after the usage
/// examples: straight from the tables the parsers read.
pub(super) fn write_attribute_help(out: &mut dyn std::io::Write) -> std::io::Result<()> {
    fn rows(out: &mut dyn std::io::Write, specs: &[AttrSpec]) -> std::io::Result<()> {
        writeln!(
            out,
            "  {:<22}{:<12}{:<21}ACCEPTED",
            "ATTRIBUTE", "TYPE", "DEFAULT"
        )?;
        for a in specs {
            writeln!(
                out,
                "  {:<22}{:<12}{:<21}{}",
                a.key, a.kind, a.default, a.range
            )?;
        }
        Ok(())
    }
    fn defaults(out: &mut dyn std::io::Write, list: &[(&str, &str)]) -> std::io::Result<()> {
        let text: Vec<String> = list.iter().map(|(k, v)| format!("{k} => {v}")).collect();
        writeln!(
            out,
            "  Accepted only at their HBase default: {}",
            text.join(", ")
        )
    }
    writeln!(
        out,
        "Attributes regionkv accepts (an HBase attribute not listed is refused with an error):"
    )?;
    writeln!(out)?;
    writeln!(
        out,
        "Column family ({{NAME => 'f', ATTRIBUTE => value, ...}}):"
    )?;
    rows(out, FAMILY_ATTRS)?;
    defaults(out, FAMILY_DEFAULTS)?;
    writeln!(out, "  Refused: {}", FAMILY_UNSUPPORTED.join(", "))?;
    writeln!(
        out,
        "  CONFIGURATION => {{'KEY' => 'VALUE'}}: kept in the descriptor (describe shows it); regionkv\n  \
         acts on no family-level key, and prints a line naming each one set."
    )?;
    writeln!(out)?;
    writeln!(
        out,
        "Table (create 't1', 'f1', ATTRIBUTE => value; alter 't1', ATTRIBUTE => value):"
    )?;
    rows(out, TABLE_ATTRS)?;
    defaults(out, TABLE_DEFAULTS)?;
    writeln!(out, "  Refused: {}", TABLE_UNSUPPORTED.join(", "))?;
    let algorithms: Vec<&str> = [
        SplitAlgorithmKind::HexString,
        SplitAlgorithmKind::DecimalString,
        SplitAlgorithmKind::Uniform,
    ]
    .iter()
    .map(|k| k.name())
    .collect();
    writeln!(
        out,
        "  create only: SPLITS => ['k1', ...], SPLITS_FILE => 'file', NUMREGIONS => 2.. with\n  \
         SPLITALGO => {}",
        algorithms.join(" | ")
    )?;
    writeln!(
        out,
        "  CONFIGURATION => {{'KEY' => 'VALUE'}}: kept in the descriptor; regionkv acts on these keys\n  \
         (a bad value is an error) and prints a line naming any other key set:"
    )?;
    for (key, kind, what) in TABLE_CONFIG_KEYS {
        let kind = match kind {
            ConfKind::Long => "long",
            ConfKind::Fraction => "number >= 0",
            ConfKind::Bool => "boolean",
        };
        writeln!(out, "    {key:<40}{kind:<13}{what}")?;
    }
    writeln!(
        out,
        "  METADATA => {{'KEY' => 'VALUE'}}: free-form table values, kept; the prefix split policies\n  \
         read {}.",
        SPLIT_POLICY_KEYS.join(", ")
    )
}

/// Checks a key regionkv accepts only at its HBase default.
fn default_only(kind: &str, key: &str, value: &Value, default: &str) -> CmdResult<()> {
    let text = match value {
        Value::Bool(_) => java_bool(value).to_string(),
        other => to_text(other),
    };
    if text.eq_ignore_ascii_case(default) {
        return Ok(());
    }
    fail(format!(
        "{kind} attribute {key} => {} is not supported by regionkv (only its default, {default})",
        inspect(value)
    ))
}

/// The `CONFIGURATION` hash: `k.to_s => v.to_s` (a `nil` value removes the key).
fn config_pairs(v: &Value) -> CmdResult<Vec<(String, Option<String>)>> {
    let Some(opts) = Opts::of(v) else {
        return fail("CONFIGURATION must be a Hash type");
    };
    Ok(opts
        .pairs()
        .map(|(k, v)| {
            let value = (!matches!(v, Value::Nil)).then(|| to_text(v));
            (to_text(k), value)
        })
        .collect())
}

/// HBase's `hcd(arg, htd)` after NAME: applies the family options of `opts` to `cf` and
/// reports the keys it does not know.
fn apply_family_opts(
    cf: &mut ColumnFamilyDescriptor,
    mut opts: Opts,
    out: &mut Out<'_>,
) -> CmdResult<()> {
    let name = String::from_utf8_lossy(&cf.name).into_owned();
    for AttrSpec { key, .. } in FAMILY_ATTRS {
        let Some(value) = opts.remove(key) else {
            continue;
        };
        let text = match *key {
            "BLOCKCACHE" | "IN_MEMORY" => java_bool(&value).to_string(),
            "VERSIONS" => {
                let versions = java_int_arg(&value, key)?;
                // ColumnFamilyDescriptorBuilder.setMaxVersions, client side.
                if versions <= 0 {
                    return fail("Maximum versions must be positive");
                }
                versions.to_string()
            }
            "REPLICATION_SCOPE" | "BLOCKSIZE" | "MIN_VERSIONS" => {
                java_int_arg(&value, key)?.to_string()
            }
            "KEEP_DELETED_CELLS" | "BLOOMFILTER" | "COMPRESSION" => to_text(&value).to_uppercase(),
            _ => to_text(&value),
        };
        cf.set_attribute(key, &text).map_err(desc_error)?;
    }
    for (key, default) in FAMILY_DEFAULTS {
        if let Some(value) = opts.remove(key) {
            default_only("column family", key, &value, default)?;
        }
    }
    for key in FAMILY_UNSUPPORTED {
        if opts.has(key) {
            return fail(format!(
                "column family attribute {key} is not supported by regionkv"
            ));
        }
    }
    if let Some(config) = opts.remove("CONFIGURATION") {
        for (k, v) in config_pairs(&config)? {
            match v {
                Some(v) => {
                    // regionkv reads no family-level configuration key.
                    out.line(&ignored_config_line(&format!("column family {name}"), &k))?;
                    cf.configuration.insert(k, v)
                }
                None => cf.configuration.remove(&k),
            };
        }
    }
    for key in opts.keys() {
        out.line(&format!(
            "Unknown argument ignored for column family {name}: {key}"
        ))?;
    }
    Ok(())
}

/// One change `update_htd_from_arg` makes to a table descriptor.
#[derive(Debug, Clone)]
enum TableChange {
    /// An attribute by HBase's name.
    Attr(&'static str, String),
    /// A METADATA or CONFIGURATION key (both are table values in HBase 2.x).
    Config(String, Option<String>),
    /// A CONFIGURATION key regionkv keeps but does not act on: reported, not applied.
    Ignored(String),
}

/// Reports the CONFIGURATION keys of `changes` that regionkv does not act on.
fn report_ignored(changes: &[TableChange], table: &str, out: &mut Out<'_>) -> CmdResult<()> {
    for change in changes {
        if let TableChange::Ignored(key) = change {
            out.line(&ignored_config_line(&format!("table {table}"), key))?;
        }
    }
    Ok(())
}

/// HBase's `update_htd_from_arg`: takes the table attributes out of `opts`.
fn table_changes(opts: &mut Opts) -> CmdResult<Vec<TableChange>> {
    let mut changes = Vec::new();
    for key in TABLE_UNSUPPORTED {
        if opts.has(key) {
            return fail(format!(
                "table attribute {key} is not supported by regionkv"
            ));
        }
    }
    for AttrSpec { key, .. } in TABLE_ATTRS {
        let Some(value) = opts.remove(key) else {
            continue;
        };
        let text = match *key {
            "MAX_FILESIZE" | "MEMSTORE_FLUSHSIZE" => int_arg(&value, key)?.to_string(),
            "READONLY" | "COMPACTION_ENABLED" | "SPLIT_ENABLED" | "MERGE_ENABLED" => {
                java_bool(&value).to_string()
            }
            "DURABILITY" => {
                let name = to_text(&value);
                // `Durability.valueOf` is case-sensitive.
                const NAMES: [&str; 5] = [
                    "USE_DEFAULT",
                    "SKIP_WAL",
                    "ASYNC_WAL",
                    "SYNC_WAL",
                    "FSYNC_WAL",
                ];
                if !NAMES.contains(&name.as_str()) {
                    return fail(format!(
                        "No enum constant org.apache.hadoop.hbase.client.Durability.{name}"
                    ));
                }
                name
            }
            _ => to_text(&value),
        };
        changes.push(TableChange::Attr(key, text));
    }
    for (key, default) in TABLE_DEFAULTS {
        if let Some(value) = opts.remove(key) {
            default_only("table", key, &value, default)?;
        }
    }
    for key in ["METADATA", "CONFIGURATION"] {
        if let Some(map) = opts.remove(key) {
            let Some(_) = Opts::of(&map) else {
                return fail(format!("{key} must be a Hash type"));
            };
            for (k, v) in config_pairs(&map)? {
                let acted_on = match &v {
                    Some(v) => check_table_config(&k, v)?,
                    None => true,
                };
                // METADATA is free-form: only CONFIGURATION keys are reported.
                if !acted_on && key == "CONFIGURATION" {
                    changes.push(TableChange::Ignored(k.clone()));
                }
                changes.push(TableChange::Config(k, v));
            }
        }
    }
    Ok(changes)
}

/// Applies table changes to a descriptor.
fn apply_table_changes(desc: &mut TableDescriptor, changes: &[TableChange]) -> CmdResult<()> {
    for change in changes {
        match change {
            TableChange::Attr(key, value) => {
                desc.set_attribute(key, value).map_err(desc_error)?;
            }
            // The split policies' parameters are table values the engine reads from the
            // descriptor's metadata.
            TableChange::Config(key, Some(value)) if SPLIT_POLICY_KEYS.contains(&key.as_str()) => {
                desc.metadata.insert(key.clone(), value.clone());
            }
            TableChange::Config(key, Some(value)) => {
                desc.configuration.insert(key.clone(), value.clone());
            }
            TableChange::Config(key, None) => {
                desc.configuration.remove(key);
                desc.metadata.remove(key);
            }
            TableChange::Ignored(_) => {}
        }
    }
    Ok(())
}

/// Resets a table attribute to its default; `false` if it was not set.
fn unset_table_attribute(desc: &mut TableDescriptor, key: &str) -> bool {
    let set = desc.attributes(false).iter().any(|(k, _)| *k == key);
    if set {
        match key {
            "MAX_FILESIZE" => desc.max_file_size = DEFAULT_MAX_FILESIZE,
            "MEMSTORE_FLUSHSIZE" => desc.memstore_flush_size = DEFAULT_MEMSTORE_FLUSH_SIZE,
            "DURABILITY" => desc.durability = regionkv::Durability::UseDefault,
            "READONLY" => desc.read_only = false,
            "SPLIT_POLICY" => desc.split_policy = None,
            "COMPACTION_ENABLED" => desc.compaction_enabled = true,
            "SPLIT_ENABLED" => desc.split_enabled = true,
            "MERGE_ENABLED" => desc.merge_enabled = true,
            _ => return false,
        }
        return true;
    }
    desc.configuration.remove(key).is_some() | desc.metadata.remove(key).is_some()
}

/// Adds `cf` to `families`, replacing (with HBase's message) a family of the same name.
fn add_family(
    families: &mut Vec<ColumnFamilyDescriptor>,
    cf: ColumnFamilyDescriptor,
    out: &mut Out<'_>,
) -> CmdResult<()> {
    match families.iter_mut().find(|f| f.name == cf.name) {
        Some(slot) => {
            out.line(&format!(
                "Family '{}' already exists, the old one will be replaced",
                String::from_utf8_lossy(&cf.name)
            ))?;
            *slot = cf;
        }
        None => families.push(cf),
    }
    Ok(())
}

/// The family name of a `{NAME => ...}` hash (HBase: `Column family {...} must have a
/// name`).
fn family_name(opts: &mut Opts) -> CmdResult<Vec<u8>> {
    match opts.remove("NAME") {
        Some(v) if truthy(&v) => Ok(to_s(&v)),
        _ => fail(format!("Column family {} must have a name", opts.inspect())),
    }
}

impl Engine {
    /// The table's region start keys as the catalog lists them (also for a disabled
    /// table, whose regions the engine does not hold open).
    fn catalog_start_keys(&self, name: &str) -> Option<Vec<Vec<u8>>> {
        let regions = self.db.admin().table_regions(name).ok()?;
        Some(regions.into_iter().map(|r| r.start_key).collect())
    }

    fn exists_or(&self, name: &str, message: impl FnOnce() -> String) -> CmdResult<()> {
        match self.db.admin().table_exists(name) {
            Ok(true) => Ok(()),
            Ok(false) => fail(message()),
            Err(e) => Err(hbase_error(e, name)),
        }
    }

    fn enabled(&self, name: &str) -> CmdResult<bool> {
        self.db
            .admin()
            .is_table_enabled(name)
            .map_err(|e| hbase_error(e, name))
    }

    // ---- namespaces ------------------------------------------------------------------

    pub(super) fn create_namespace(&self, args: &[Value], out: &mut Out<'_>) -> CmdResult<Ret> {
        arity(args, 1, None)?;
        let ns = match &args[0] {
            Value::Str(_) | Value::Const(_) => to_text(&args[0]),
            _ => return fail("Namespace name must be of type String"),
        };
        let mut props = std::collections::BTreeMap::new();
        let mut set = Vec::new();
        for arg in flatten(&args[1..]) {
            let Some(o) = Opts::of(&arg) else {
                return fail(format!(
                    "{} of {} is not of Hash or String type",
                    class_name(&arg),
                    inspect(&arg)
                ));
            };
            for (k, v) in o.pairs() {
                set_property(&mut props, &mut set, k, v);
            }
        }
        check_namespace_quotas(&ns, &props)?;
        self.db
            .admin()
            .create_namespace_with_properties(&ns, props)
            .map_err(|e| hbase_error(e, &ns))?;
        report_namespace_properties(&ns, &set, out)?;
        Ok(Ret::Nil)
    }

    /// `alter_namespace 'ns', {METHOD => 'set', 'KEY' => 'VALUE', ...}` or `{METHOD =>
    /// 'unset', NAME => 'KEY'}` (HBase's `admin.alter_namespace`): changes the namespace's
    /// properties. regionkv stores them and acts on none, and says so for each one set.
    pub(super) fn alter_namespace(&self, args: &[Value], out: &mut Out<'_>) -> CmdResult<Ret> {
        arity(args, 1, None)?;
        let ns = match &args[0] {
            Value::Str(_) | Value::Const(_) => to_text(&args[0]),
            _ => return fail("Namespace name must be of type String"),
        };
        let admin = self.db.admin();
        let mut props = admin
            .namespace_properties(&ns)
            .map_err(|e| hbase_error(e, &ns))?;
        let mut set = Vec::new();
        for arg in flatten(&args[1..]) {
            let Some(mut o) = Opts::of(&arg) else {
                return fail(format!(
                    "{} of {} is not of Hash type",
                    class_name(&arg),
                    inspect(&arg)
                ));
            };
            // Ruby's `arg[METHOD]`: the key must be the constant (or the string) METHOD.
            let method = o.get("METHOD").cloned();
            match method.as_ref().map(to_text).as_deref() {
                Some("unset") if matches!(method, Some(Value::Str(_) | Value::Const(_))) => {
                    // HBase removes `arg[NAME]` from a TreeMap: nil is a NullPointerException.
                    let Some(name) = o.get_set("NAME") else {
                        return fail(
                            "alter_namespace with METHOD => 'unset' needs NAME => 'PROPERTY_NAME'",
                        );
                    };
                    props.remove(&to_text(name));
                }
                Some("set") if matches!(method, Some(Value::Str(_) | Value::Const(_))) => {
                    o.remove("METHOD");
                    for (k, v) in o.pairs() {
                        set_property(&mut props, &mut set, k, v);
                    }
                }
                _ => {
                    let shown = match &method {
                        None | Some(Value::Nil) => String::new(),
                        Some(m) => to_text(m),
                    };
                    return fail(format!("Unknown method {shown}"));
                }
            }
        }
        check_namespace_quotas(&ns, &props)?;
        admin
            .modify_namespace(&ns, props)
            .map_err(|e| hbase_error(e, &ns))?;
        report_namespace_properties(&ns, &set, out)?;
        Ok(Ret::Nil)
    }

    pub(super) fn drop_namespace(&self, args: &[Value]) -> CmdResult<Ret> {
        arity(args, 1, Some(1))?;
        let ns = string_arg(&args[0], "Namespace name")?;
        self.db
            .admin()
            .drop_namespace(&ns)
            .map_err(|e| hbase_error(e, &ns))?;
        Ok(Ret::Nil)
    }

    pub(super) fn describe_namespace(&self, args: &[Value], out: &mut Out<'_>) -> CmdResult<Ret> {
        arity(args, 1, Some(1))?;
        let ns = string_arg(&args[0], "Namespace name")?;
        let all = self
            .db
            .admin()
            .list_namespaces()
            .map_err(|e| hbase_error(e, &ns))?;
        if !all.contains(&ns) {
            return fail(format!("Unknown namespace {ns}!"));
        }
        let props = self
            .db
            .admin()
            .namespace_properties(&ns)
            .map_err(|e| hbase_error(e, &ns))?;
        // NamespaceDescriptor.toString: NAME, then the properties in key order.
        let mut text = format!("{{NAME => '{ns}'");
        for (k, v) in &props {
            text.push_str(&format!(", {k} => '{v}'"));
        }
        text.push('}');
        out.fmt.header(&mut *out.w, &["DESCRIPTION"], &[64])?;
        out.fmt.row(&mut *out.w, &[&text], true, &[64])?;
        out.line("Quota is disabled")?;
        Ok(Ret::Nil)
    }

    pub(super) fn list_namespace(&self, args: &[Value], out: &mut Out<'_>) -> CmdResult<Ret> {
        arity(args, 0, Some(1))?;
        let all = self
            .db
            .admin()
            .list_namespaces()
            .map_err(|e| hbase_error(e, ""))?;
        list_matching(args, all, "NAMESPACE", false, out)
    }

    pub(super) fn list_namespace_tables(
        &self,
        args: &[Value],
        out: &mut Out<'_>,
    ) -> CmdResult<Ret> {
        arity(args, 1, Some(1))?;
        let ns = string_arg(&args[0], "Namespace name")?;
        let tables = self
            .db
            .admin()
            .list_namespace_tables(&ns)
            .map_err(|e| hbase_error(e, &ns))?;
        let list: Vec<String> = tables
            .into_iter()
            .map(|t| t.split_once(':').map_or(t.clone(), |(_, q)| q.to_string()))
            .collect();
        out.header(&["TABLE"])?;
        for t in &list {
            out.row(&[t])?;
        }
        out.footer(Some(list.len() as u64))?;
        Ok(Ret::List(list))
    }

    // ---- tables ------------------------------------------------------------------------

    pub(super) fn create(&self, args: &[Value], out: &mut Out<'_>) -> CmdResult<Ret> {
        arity(args, 1, None)?;
        let name = table_arg(&args[0])?;
        let mut families: Vec<ColumnFamilyDescriptor> = Vec::new();
        let mut splits: Option<Vec<Vec<u8>>> = None;
        let mut changes: Vec<TableChange> = Vec::new();
        for item in flatten(&args[1..]) {
            let mut opts = match &item {
                Value::Str(_) | Value::Const(_) => {
                    let cf = ColumnFamilyDescriptor::new(&to_s(&item)).map_err(desc_error)?;
                    add_family(&mut families, cf, out)?;
                    continue;
                }
                other => match Opts::of(other) {
                    Some(opts) => opts,
                    None => {
                        return fail(format!(
                            "{} of {} is not of Hash or String type",
                            class_name(other),
                            inspect(other)
                        ));
                    }
                },
            };
            if opts.has("NAME") {
                let fname = family_name(&mut opts)?;
                let mut cf = match families.iter().find(|f| f.name == fname) {
                    Some(existing) => existing.clone(),
                    None => ColumnFamilyDescriptor::new(&fname).map_err(desc_error)?,
                };
                apply_family_opts(&mut cf, opts, out)?;
                add_family(&mut families, cf, out)?;
                continue;
            }
            if let Some(method) = opts.remove("METHOD")
                && to_text(&method) != "table_att"
            {
                return fail("table_att is currently the only supported method");
            }
            if let Some(file) = opts.remove("SPLITS_FILE") {
                let path = to_text(&file);
                let text = match std::fs::read(&path) {
                    Ok(bytes) => bytes,
                    Err(_) => return fail(format!("Splits file {path} doesn't exist")),
                };
                // `File.foreach` lines, `chomp`ed; no line after a final newline.
                let mut lines: Vec<&[u8]> = text.split(|&b| b == b'\n').collect();
                if text.is_empty() || text.ends_with(b"\n") {
                    lines.pop();
                }
                let lines: Vec<Value> = lines
                    .into_iter()
                    .map(|line| Value::Str(line.strip_suffix(b"\r").unwrap_or(line).to_vec()))
                    .collect();
                opts = with_key(opts, "SPLITS", Value::Array(lines));
                changes.push(TableChange::Config("SPLITS_FILE".into(), Some(path)));
            }
            if let Some(list) = opts.remove("SPLITS") {
                let Value::Array(items) = &list else {
                    return fail(format!(
                        "undefined method `each' for {}:{}",
                        inspect(&list),
                        class_name(&list)
                    ));
                };
                let mut keys = Vec::with_capacity(items.len());
                for item in items {
                    keys.push(to_bytes_binary(&to_s(item))?);
                }
                splits = Some(keys);
            } else if opts.has("NUMREGIONS") || opts.has("SPLITALGO") {
                let Some(regions) = opts.remove("NUMREGIONS") else {
                    return fail("Number of regions must be specified");
                };
                let Some(algo) = opts.remove("SPLITALGO") else {
                    return fail("Split algorithm must be specified");
                };
                let regions = match regions {
                    Value::Int(n) => n,
                    other => {
                        return fail(format!(
                            "comparison of {} with 1 failed",
                            class_name(&other)
                        ));
                    }
                };
                if regions <= 1 {
                    return fail("Number of regions must be greater than 1");
                }
                // Before the algorithm makes the keys: a huge count must not allocate them.
                let count = usize::try_from(regions).or_else(|_| fail("too many regions"))?;
                if let Err(e) = regionkv::admin::check_region_count(count) {
                    return fail(e.to_string());
                }
                let algorithm =
                    SplitAlgorithm::from_name(&to_text(&algo)).or_else(|e| fail(e.to_string()))?;
                splits = Some(algorithm.split(count).or_else(|e| fail(e.to_string()))?);
            }
            changes.extend(table_changes(&mut opts)?);
            for key in opts.keys() {
                out.line(&format!(
                    "An argument ignored (unknown or overridden): {key}"
                ))?;
            }
        }
        if families.is_empty() {
            return fail("Table must have at least one column family");
        }
        report_ignored(&changes, &name, out)?;
        let mut desc = TableDescriptor::new(&name, families).map_err(desc_error)?;
        apply_table_changes(&mut desc, &changes)?;
        self.db
            .admin()
            .create_table_with_splits(&desc, splits.unwrap_or_default())
            .map_err(|e| hbase_error(e, &name))?;
        out.line(&format!("Created table {name}"))?;
        Ok(Ret::Table(name))
    }

    pub(super) fn alter(&self, args: &[Value], out: &mut Out<'_>) -> CmdResult<Ret> {
        arity(args, 1, None)?;
        let name = table_arg(&args[0])?;
        self.exists_or(&name, || format!("Can't find a table: {name}"))?;
        if args.len() == 1 {
            return fail("There should be at least one argument but the table name");
        }
        let admin = self.db.admin();
        let mut desc = admin.describe(&name).map_err(|e| hbase_error(e, &name))?;
        let mut updated = false;
        for arg in &args[1..] {
            let mut opts = match arg {
                Value::Str(_) | Value::Const(_) => Opts::of(&Value::Hash(vec![(
                    Value::Const("NAME".into()),
                    arg.clone(),
                )]))
                .unwrap_or_default(),
                other => match Opts::of(other) {
                    Some(opts) => opts,
                    None => {
                        return fail(format!(
                            "{} of {} is not of Hash or String type",
                            class_name(other),
                            inspect(other)
                        ));
                    }
                },
            };
            if let Some(family) = opts.get_set("delete").cloned() {
                opts = Opts::of(&Value::Hash(vec![
                    (
                        Value::Const("METHOD".into()),
                        Value::Str(b"delete".to_vec()),
                    ),
                    (Value::Const("NAME".into()), family),
                ]))
                .unwrap_or_default();
            }
            let method = opts.remove("METHOD");
            if method.is_none() && opts.has("NAME") {
                let fname = family_name(&mut opts)?;
                let mut cf = match desc.family(&fname) {
                    Some(existing) => existing.clone(),
                    None => ColumnFamilyDescriptor::new(&fname).map_err(desc_error)?,
                };
                apply_family_opts(&mut cf, opts, out)?;
                match desc.families.iter_mut().find(|f| f.name == cf.name) {
                    Some(slot) => *slot = cf,
                    None => {
                        desc.families.push(cf);
                        desc.families.sort_by(|a, b| a.name.cmp(&b.name));
                    }
                }
                updated = true;
                continue;
            }
            let target = opts.remove("NAME");
            if let Some(method) = method.map(|m| to_text(&m))
                && method != "table_att"
            {
                match method.as_str() {
                    "delete" => {
                        let Some(family) = target.filter(truthy) else {
                            return fail("NAME parameter missing for delete method");
                        };
                        let family = to_s(&family);
                        desc.families.retain(|f| f.name != family);
                    }
                    "table_att_unset" | "table_conf_unset" => {
                        let Some(target) = target.filter(truthy) else {
                            return fail(format!("NAME parameter missing for {method} method"));
                        };
                        let keys = match target {
                            Value::Array(items) => items.iter().map(to_text).collect(),
                            other => vec![to_text(&other)],
                        };
                        for key in keys {
                            if !unset_table_attribute(&mut desc, &key) {
                                let what = if method == "table_att_unset" {
                                    "attribute"
                                } else {
                                    "configuration"
                                };
                                return fail(format!("Could not find {what}: {key}"));
                            }
                        }
                    }
                    "table_remove_coprocessor" => {
                        let Some(classes) = opts.remove("CLASSNAME").filter(truthy) else {
                            return fail(
                                "CLASSNAME parameter missing for table_remove_coprocessor method",
                            );
                        };
                        let classes = match classes {
                            Value::Array(items) => items.iter().map(to_text).collect(),
                            other => vec![to_text(&other)],
                        };
                        // HBase only logs a warning for a class the table does not have.
                        for class in classes {
                            desc.remove_coprocessor(&class);
                        }
                    }
                    other => return fail(format!("Unknown method: {other}")),
                }
                updated = true;
                for key in opts.keys() {
                    out.line(&format!("Unknown argument ignored: {key}"))?;
                }
                continue;
            }
            let changes = table_changes(&mut opts)?;
            report_ignored(&changes, &name, out)?;
            apply_table_changes(&mut desc, &changes)?;
            // HBase's admin.rb: every key containing "coprocessor" (any case) is a spec,
            // whatever the key says; the spec is stored as typed and numbered by the table.
            // Which classes regionkv can load is checked when the alter is applied.
            let cp_keys: Vec<String> = opts
                .keys()
                .into_iter()
                .filter(|k| k.trim().to_ascii_lowercase().contains("coprocessor"))
                .map(|k| k.to_string())
                .collect();
            for key in cp_keys {
                if let Some(spec) = opts.remove(&key) {
                    desc.add_coprocessor(to_text(&spec).trim())
                        .map_err(|e| CmdError::Failed(e.to_string()))?;
                }
            }
            updated = true;
            for key in opts.keys() {
                out.line(&format!("Unknown argument ignored: {key}"))?;
            }
        }
        if updated {
            admin
                .modify_table(&desc)
                .map_err(|e| hbase_error(e, &name))?;
            out.line("Updating all regions with the new schema...")?;
            // HBase counts the regions that are open again; a disabled table's stay closed.
            let total = self.catalog_start_keys(&name).map_or(0, |k| k.len());
            let open = if self.enabled(&name)? { total } else { 0 };
            if total == 0 {
                out.line("All regions updated.")?;
            } else {
                out.line(&format!("{open}/{total} regions updated."))?;
            }
            out.line("Done.")?;
        }
        Ok(Ret::Nil)
    }

    pub(super) fn describe(&self, args: &[Value], out: &mut Out<'_>) -> CmdResult<Ret> {
        arity(args, 1, Some(1))?;
        let name = table_arg(&args[0])?;
        self.exists_or(&name, || format!("Table {name} does not exist."))?;
        let desc = self
            .db
            .admin()
            .describe(&name)
            .map_err(|e| hbase_error(e, &name))?;
        let state = if self.enabled(&name)? {
            "ENABLED"
        } else {
            "DISABLED"
        };
        out.header(&[&format!("Table {name} is {state}")])?;
        out.row(&[&format!("{name}{}", table_attributes_text(&desc))])?;
        out.header(&["COLUMN FAMILIES DESCRIPTION"])?;
        for f in &desc.families {
            out.row(&[&family_text(f)])?;
            out.line("")?;
        }
        out.footer(None)?;
        out.line("Quota is disabled")?;
        Ok(Ret::Nil)
    }

    pub(super) fn list(&self, args: &[Value], out: &mut Out<'_>) -> CmdResult<Ret> {
        arity(args, 0, Some(1))?;
        let all = self
            .db
            .admin()
            .list_tables()
            .map_err(|e| hbase_error(e, ""))?;
        list_matching(args, all, "TABLE", true, out)
    }

    pub(super) fn exists(&self, args: &[Value], out: &mut Out<'_>) -> CmdResult<Ret> {
        arity(args, 1, Some(1))?;
        let name = to_text(&args[0]);
        let exists = self
            .db
            .admin()
            .table_exists(&name)
            .map_err(|e| hbase_error(e, &name))?;
        let verdict = if exists {
            "does exist"
        } else {
            "does not exist"
        };
        out.row(&[&format!("Table {name} {verdict}")])?;
        Ok(Ret::Bool(exists))
    }

    pub(super) fn is_enabled(
        &self,
        args: &[Value],
        out: &mut Out<'_>,
        want_enabled: bool,
    ) -> CmdResult<Ret> {
        arity(args, 1, Some(1))?;
        let name = table_arg(&args[0])?;
        let answer = self.enabled(&name)? == want_enabled;
        out.row(&[if answer { "true" } else { "false" }])?;
        Ok(Ret::Bool(answer))
    }

    pub(super) fn enable(&self, args: &[Value]) -> CmdResult<Ret> {
        arity(args, 1, Some(1))?;
        let name = table_arg(&args[0])?;
        self.exists_or(&name, || format!("Table {name} does not exist."))?;
        if !self.enabled(&name)? {
            self.db
                .admin()
                .enable_table(&name)
                .map_err(|e| hbase_error(e, &name))?;
        }
        Ok(Ret::Nil)
    }

    pub(super) fn disable(&self, args: &[Value]) -> CmdResult<Ret> {
        arity(args, 1, Some(1))?;
        let name = table_arg(&args[0])?;
        self.exists_or(&name, || format!("Table {name} does not exist."))?;
        if self.enabled(&name)? {
            self.db
                .admin()
                .disable_table(&name)
                .map_err(|e| hbase_error(e, &name))?;
        }
        Ok(Ret::Nil)
    }

    pub(super) fn drop(&self, args: &[Value]) -> CmdResult<Ret> {
        arity(args, 1, Some(1))?;
        let name = table_arg(&args[0])?;
        self.exists_or(&name, || format!("Table {name} does not exist."))?;
        if self.enabled(&name)? {
            return fail(format!("Table {name} is enabled. Disable it first."));
        }
        self.db
            .admin()
            .delete_table(&name)
            .map_err(|e| hbase_error(e, &name))?;
        Ok(Ret::Nil)
    }

    pub(super) fn truncate(
        &self,
        args: &[Value],
        out: &mut Out<'_>,
        preserve_splits: bool,
    ) -> CmdResult<Ret> {
        arity(args, 1, Some(1))?;
        let name = table_arg(&args[0])?;
        out.line(&format!("Truncating '{name}' table (it may take a while):"))?;
        let admin = self.db.admin();
        if self.enabled(&name)? {
            out.line("Disabling table...")?;
            admin
                .disable_table(&name)
                .map_err(|e| hbase_error(e, &name))?;
        }
        out.line("Truncating table...")?;
        admin
            .truncate_table(&name, preserve_splits)
            .map_err(|e| hbase_error(e, &name))?;
        Ok(Ret::Nil)
    }

    // ---- regions -----------------------------------------------------------------------

    pub(super) fn list_regions(&self, args: &[Value], out: &mut Out<'_>) -> CmdResult<Ret> {
        const ALL: [(&str, usize); 7] = [
            ("SERVER_NAME", 12),
            ("REGION_NAME", 12),
            ("START_KEY", 10),
            ("END_KEY", 10),
            ("SIZE", 5),
            ("REQ", 5),
            ("LOCALITY", 10),
        ];
        const VALID: &str = "Possible values are SERVER_NAME, REGION_NAME, START_KEY, END_KEY, SIZE, REQ, LOCALITY.";
        arity(args, 1, Some(3))?;
        let name = table_arg(&args[0])?;
        let options = match args.get(1) {
            None | Some(Value::Nil) => Opts::default(),
            Some(v @ Value::Hash(_)) => Opts::of(v).unwrap_or_default(),
            Some(other) => Opts::of(&Value::Hash(vec![(
                Value::Const("SERVER_NAME".into()),
                other.clone(),
            )]))
            .unwrap_or_default(),
        };
        if !self.enabled(&name)? {
            return fail(format!("Table {name} must be enabled."));
        }
        let mut columns: Vec<(&'static str, usize)> = Vec::new();
        match args.get(2) {
            None | Some(Value::Nil) => columns.extend(ALL),
            Some(Value::Array(items)) => {
                for item in items {
                    let text = to_text(item);
                    let Some(col) = ALL.iter().find(|(c, _)| c.eq_ignore_ascii_case(&text)) else {
                        return fail(format!("{text} is not a valid column. {VALID}"));
                    };
                    if !columns.iter().any(|(c, _)| c == &col.0) {
                        columns.push(*col);
                    }
                }
            }
            Some(other) => {
                return fail(format!(
                    "{} must be an array of strings. {VALID}",
                    to_text(other)
                ));
            }
        }
        let desired = options.get_set("SERVER_NAME").map(to_text);
        let threshold = match options.get("LOCALITY_THRESHOLD") {
            None => 1.0,
            Some(Value::Float(f)) if (0.0..=1.0).contains(f) => *f,
            Some(Value::Float(_)) => {
                return fail("LOCALITY_THRESHOLD must be between 0 and 1.0, inclusive");
            }
            Some(_) => return fail("LOCALITY_THRESHOLD must be a float value"),
        };
        let regions = self
            .db
            .admin()
            .regions(&name)
            .map_err(|e| hbase_error(e, &name))?;
        let mut rows: Vec<Vec<String>> = Vec::new();
        for r in &regions {
            if desired
                .as_deref()
                .is_some_and(|d| !SERVER_NAME.starts_with(d))
            {
                continue;
            }
            // Every byte of an embedded region is local; a region without files has no
            // blocks, and HBase reports 0.0 for it.
            let locality = if r.store_files > 0 { 1.0 } else { 0.0 };
            if locality > threshold {
                continue;
            }
            let row: Vec<String> = columns
                .iter()
                .map(|(col, _)| match *col {
                    "SERVER_NAME" => SERVER_NAME.to_string(),
                    "REGION_NAME" => r.name.clone(),
                    "START_KEY" => to_string_binary(&r.start_key).trim().to_string(),
                    "END_KEY" => to_string_binary(&r.end_key).trim().to_string(),
                    "SIZE" => (r.store_file_bytes / (1024 * 1024)).to_string(),
                    "REQ" => (r.read_requests + r.write_requests).to_string(),
                    _ => ruby_float(locality),
                })
                .collect();
            for (i, value) in row.iter().enumerate() {
                if let Some(slot) = columns.get_mut(i) {
                    slot.1 = slot.1.max(value.chars().count());
                }
            }
            rows.push(row);
        }
        let mut text = String::new();
        for (col, width) in &columns {
            text.push_str(&format!(" {col:>width$} |"));
        }
        text.push('\n');
        for (_, width) in &columns {
            text.push_str(&format!(" {} |", "-".repeat(*width)));
        }
        text.push('\n');
        for row in &rows {
            for (value, (_, width)) in row.iter().zip(&columns) {
                text.push_str(&format!(" {value:>width$} |"));
            }
            text.push('\n');
        }
        text.push_str(&format!(" {} rows", rows.len()));
        out.line(&text)?;
        Ok(Ret::Nil)
    }

    pub(super) fn get_splits(&self, args: &[Value], out: &mut Out<'_>) -> CmdResult<Ret> {
        arity(args, 1, Some(1))?;
        let name = table_arg(&args[0])?;
        let keys = match self.db.admin().splits(&name) {
            Ok(keys) => keys,
            Err(regionkv::Error::TableNotEnabled(_)) => self
                .catalog_start_keys(&name)
                .map(|k| k.into_iter().skip(1).collect())
                .unwrap_or_default(),
            Err(e) => return Err(hbase_error(e, &name)),
        };
        let splits: Vec<String> = keys.iter().map(|k| to_string_binary(k)).collect();
        out.line(&format!("Total number of splits = {}", splits.len() + 1))?;
        if splits.is_empty() {
            // Ruby's `puts []` prints an empty line.
            out.line("")?;
        }
        for s in &splits {
            out.line(s)?;
        }
        Ok(Ret::List(splits))
    }

    /// `lab_report 't', 'FILE'`: the lab's HTML page of the live table's recorded
    /// activity (regionkv_lab::live): per-region requests, sizes, splits by region id.
    pub(super) fn lab_report(&self, args: &[Value], out: &mut Out<'_>) -> CmdResult<Ret> {
        arity(args, 2, Some(2))?;
        let name = table_arg(&args[0])?;
        let file = string_arg(&args[1], "File name")?;
        let report =
            regionkv_lab::live::live_report(&self.db, &name, 1_000).map_err(|e| match e {
                regionkv_lab::simulate::SimulateError::Engine(e) => hbase_error(e, &name),
                other => CmdError::Failed(other.to_string()),
            })?;
        std::fs::write(
            &file,
            regionkv_lab::report::html(std::slice::from_ref(&report)),
        )
        .map_err(|e| CmdError::Failed(format!("{file}: {e}")))?;
        out.line(&format!(
            "wrote {file}: {} regions, {} writes, {} reads recorded; write skew max/mean {:.2}",
            report.regions.len(),
            report.workload.writes,
            report.workload.reads,
            report.skew.writes.max_mean
        ))?;
        Ok(Ret::Nil)
    }

    // ---- status ------------------------------------------------------------------------

    pub(super) fn status(&self, args: &[Value], out: &mut Out<'_>) -> CmdResult<Ret> {
        arity(args, 0, Some(2))?;
        let format = args.first().map_or("summary".to_string(), to_text);
        let admin = self.db.admin();
        let mut regions = Vec::new();
        for table in admin.list_tables().map_err(|e| hbase_error(e, ""))? {
            if admin.is_table_enabled(&table).unwrap_or(false) {
                regions.extend(admin.regions(&table).map_err(|e| hbase_error(e, &table))?);
            }
        }
        regions.sort_by(|a, b| a.name.as_bytes().cmp(b.name.as_bytes()));
        let server = SERVER_NAME.replacen(',', ":", 1).replacen(',', " ", 1);
        let loads: Vec<RegionLoad> = regions.iter().map(RegionLoad::of).collect();
        let coprocessors = admin.coprocessor_names().map_err(|e| hbase_error(e, ""))?;
        let server_load = server_load(&loads, &coprocessors);
        match format.as_str() {
            "simple" => {
                out.line(&format!("active master:  {server}"))?;
                out.line("0 backup masters")?;
                out.line("1 live servers")?;
                out.line(&format!("    {server}"))?;
                out.line(&format!("        {server_load}"))?;
                out.line("0 dead servers")?;
                // HBase sums ServerLoad.getNumberOfRequests: the requests per second of
                // the last report, which an embedded engine does not sample (0).
                out.line(&format!("Aggregate load: 0, regions: {}", regions.len()))?;
            }
            "detailed" => {
                out.line(&format!("version {}", env!("CARGO_PKG_VERSION")))?;
                out.line("0 regionsInTransition")?;
                out.line(&format!("active master:  {server}"))?;
                out.line("0 backup masters")?;
                out.line("master coprocessors: []")?;
                out.line("1 live servers")?;
                out.line(&format!("    {server}"))?;
                out.line(&format!("        {server_load}"))?;
                for (r, load) in regions.iter().zip(&loads) {
                    out.line(&format!("        {}", super::format::ruby_inspect(&r.name)))?;
                    out.line(&format!("            {}", load.region_text()))?;
                }
                out.line("0 dead servers")?;
            }
            "replication" => {
                return fail("status 'replication' is not supported by regionkv (no replication)");
            }
            _ => {
                out.line(&format!(
                    "1 active master, 0 backup masters, 1 servers, 0 dead, {:.4} average load",
                    regions.len() as f64
                ))?;
            }
        }
        Ok(Ret::Nil)
    }
}

impl Engine {
    // ---- issue 27, point 4: whoami, alter_async / alter_status, locate_region,
    // compaction_state, clone_table_schema, disable_all / enable_all / drop_all ----------

    /// `whoami`: HBase prints `User.getCurrent.toString`, `NAME (auth:SIMPLE)` on a cluster
    /// without Kerberos; regionkv's user is the process's (`$USER`, `$USERNAME`).
    pub(super) fn whoami(&self, args: &[Value], out: &mut Out<'_>) -> CmdResult<Ret> {
        arity(args, 0, Some(0))?;
        let user = std::env::var("USER")
            .or_else(|_| std::env::var("USERNAME"))
            .unwrap_or_else(|_| "unknown".to_string());
        out.line(&format!("{user} (auth:SIMPLE)"))?;
        Ok(Ret::Nil)
    }

    /// `alter_async`: HBase's alter without waiting, so without alter's three progress
    /// lines; regionkv alters synchronously, so the change is done when it returns. Other
    /// lines (warnings) still print.
    pub(super) fn alter_async(&self, args: &[Value], out: &mut Out<'_>) -> CmdResult<Ret> {
        let mut buf: Vec<u8> = Vec::new();
        let ret = {
            let mut quiet = Out {
                w: &mut buf,
                fmt: super::format::Formatter::new(0),
            };
            self.alter(args, &mut quiet)
        };
        let text = String::from_utf8_lossy(&buf);
        let progress = |l: &str| {
            l == "Updating all regions with the new schema..."
                || l == "All regions updated."
                || l == "Done."
                || (l.ends_with(" regions updated.") && l.contains('/'))
        };
        for line in text.lines().filter(|l| !progress(l)) {
            out.line(line)?;
        }
        ret
    }

    /// `alter_status 't'`: HBase's `admin.alter_status` polls `getAlterStatus` (regions
    /// yet to update, total) and prints `N/M regions updated.` until none is left, then
    /// `Done.`; regionkv's alters are done when they return.
    pub(super) fn alter_status(&self, args: &[Value], out: &mut Out<'_>) -> CmdResult<Ret> {
        arity(args, 1, Some(1))?;
        let name = string_arg(&args[0], "Table name")?;
        self.exists_or(&name, || format!("Can't find a table: {name}"))?;
        let total = self.catalog_start_keys(&name).map_or(0, |k| k.len());
        if total == 0 {
            out.line("All regions updated.")?;
        } else {
            out.line(&format!("{total}/{total} regions updated."))?;
        }
        out.line("Done.")?;
        Ok(Ret::Nil)
    }

    /// `locate_region 't', 'row'`: the region holding the row, as HBase prints its
    /// `HRegionLocation`: HOST and `RegionInfo.toString`.
    pub(super) fn locate_region(&self, args: &[Value], out: &mut Out<'_>) -> CmdResult<Ret> {
        arity(args, 2, Some(2))?;
        let name = table_arg(&args[0])?;
        // HBase's admin.rb: `getRegionLocation(Bytes.toBytesBinary(row_key))`.
        let row = super::args::to_bytes_binary(to_text(&args[1]).as_bytes())?;
        self.exists_or(&name, || format!("Unknown table {name}!"))?;
        let regions = self
            .db
            .admin()
            .regions(&name)
            .map_err(|e| hbase_error(e, &name))?;
        let Some(r) = regions
            .iter()
            .find(|r| r.start_key <= row && (r.end_key.is_empty() || row < r.end_key))
        else {
            return fail(format!("No region of {name} holds the row"));
        };
        let host = SERVER_NAME.replacen(',', ":", 1);
        let host = host.split(',').next().unwrap_or_default().to_string();
        let info = format!(
            "{{ENCODED => {}, NAME => '{}', STARTKEY => '{}', ENDKEY => '{}'}}",
            r.encoded_name,
            r.name,
            to_string_binary(&r.start_key),
            to_string_binary(&r.end_key)
        );
        out.header(&["HOST", "REGION"])?;
        out.row(&[&host, &info])?;
        out.footer(Some(1))?;
        Ok(Ret::Nil)
    }

    /// `compaction_state 't'` (type NORMAL, or MOB): HBase's `CompactionState` name.
    /// regionkv compacts synchronously (the shell's compactions return when done), so a
    /// table is at `NONE` between commands.
    pub(super) fn compaction_state(&self, args: &[Value], out: &mut Out<'_>) -> CmdResult<Ret> {
        arity(args, 1, Some(2))?;
        let name = table_arg(&args[0])?;
        match args.get(1).map(to_text).as_deref() {
            None | Some("NORMAL") => {}
            Some("MOB") => return fail("MOB compactions are not supported by regionkv"),
            Some(other) => {
                return fail(format!(
                    "No enum constant org.apache.hadoop.hbase.client.CompactType.{other}"
                ));
            }
        }
        self.exists_or(&name, || format!("Unknown table {name}!"))?;
        let _ = out;
        Ok(Ret::Str("NONE".to_string()))
    }

    /// `clone_table_schema 'src', 'dst'[, preserve_splits = true]`: a new empty table with
    /// src's descriptor (HBase's `Admin.cloneTableSchema`), and its split points unless
    /// `false` is given.
    pub(super) fn clone_table_schema(&self, args: &[Value]) -> CmdResult<Ret> {
        arity(args, 2, Some(3))?;
        let src = table_arg(&args[0])?;
        let dst = table_arg(&args[1])?;
        let preserve = match args.get(2) {
            None | Some(Value::Bool(true)) => true,
            Some(Value::Bool(false)) => false,
            Some(other) => {
                return fail(format!(
                    "preserve_splits must be true or false, not {}",
                    to_text(other)
                ));
            }
        };
        let admin = self.db.admin();
        let mut desc = admin.describe(&src).map_err(|e| hbase_error(e, &src))?;
        let splits = if preserve {
            match admin.splits(&src) {
                Ok(keys) => keys,
                Err(regionkv::Error::TableNotEnabled(_)) => self
                    .catalog_start_keys(&src)
                    .map(|k| k.into_iter().skip(1).collect())
                    .unwrap_or_default(),
                Err(e) => return Err(hbase_error(e, &src)),
            }
        } else {
            Vec::new()
        };
        desc.name = dst.clone();
        admin
            .create_table_with_splits(&desc, splits)
            .map_err(|e| hbase_error(e, &dst))?;
        Ok(Ret::Nil)
    }

    /// `disable_all`, `enable_all`, `drop_all 'regex'` (HBase's `disable_all.rb` and
    /// siblings): list the matching tables, ask `Disable the above N tables (y/n)?` and,
    /// on an answer with a `y` in it (Ruby's `answer =~ /y.*/i`), act on each, reporting
    /// how many succeeded and which failed. The answer comes from the engine's
    /// [`Engine::set_confirm`] hook; without one (scripts) there is none, and nothing is
    /// done.
    pub(super) fn all_tables(
        &self,
        args: &[Value],
        out: &mut Out<'_>,
        action: AllAction,
    ) -> CmdResult<Ret> {
        arity(args, 1, Some(1))?;
        let regex_text = string_arg(&args[0], "The regular expression")?;
        let regex = full_match(&regex_text)?;
        let admin = self.db.admin();
        let list: Vec<String> = admin
            .list_tables()
            .map_err(|e| hbase_error(e, ""))?
            .into_iter()
            .filter(|n| {
                regex.is_match(n) || (!n.contains(':') && regex.is_match(&format!("default:{n}")))
            })
            .collect();
        for t in &list {
            out.row(&[t])?;
        }
        if list.is_empty() {
            out.line(&format!("No tables matched the regex {regex_text}"))?;
            return Ok(Ret::Nil);
        }
        let (verb, done) = match action {
            AllAction::Disable => ("Disable", "disabled"),
            AllAction::Enable => ("Enable", "enabled"),
            AllAction::Drop => ("Drop", "dropped"),
        };
        if !self.confirm(
            out,
            &format!("{verb} the above {} tables (y/n)?", list.len()),
        )? {
            return Ok(Ret::Nil);
        }
        let mut failed = Vec::new();
        for t in &list {
            let r = match action {
                // HBase 2.x's admin.rb calls disableTable/enableTable on every matching
                // table: one already in the state fails (TableNotEnabledException ...).
                AllAction::Disable => admin.disable_table(t),
                AllAction::Enable => admin.enable_table(t),
                AllAction::Drop => admin.delete_table(t),
            };
            if let Err(e) = r {
                let CmdError::Failed(message) = hbase_error(e, t) else {
                    continue;
                };
                out.line(&format!("table:{t}, error:{message}"))?;
                if matches!(action, AllAction::Drop) {
                    // drop_all's `puts puts ...` prints an empty line after the message.
                    out.line("")?;
                }
                failed.push(t.clone());
            }
        }
        out.line(&format!(
            "{} tables successfully {done}",
            list.len() - failed.len()
        ))?;
        if !failed.is_empty() {
            out.line(&format!(
                "{} tables not {done} due to an exception: {}",
                failed.len(),
                failed.join(",")
            ))?;
        }
        Ok(Ret::Nil)
    }
}

/// What `disable_all`, `enable_all` or `drop_all` does to each matching table.
#[derive(Debug, Clone, Copy)]
pub(super) enum AllAction {
    Disable,
    Enable,
    Drop,
}

/// One region's load as HBase's region server reports it (`HRegionServer.createRegionLoad`):
/// sizes in whole MB and KB, each truncated per store and then summed, as HBase does.
struct RegionLoad {
    stores: usize,
    storefiles: usize,
    uncompressed_mb: u64,
    storefile_mb: u64,
    memstore_mb: u64,
    index_kb: u64,
    bloom_kb: u64,
    reads: u64,
    filtered_reads: u64,
    writes: u64,
    compacted_kvs: u64,
    last_major_compaction_ts: i64,
    complete_sequence_id: u64,
    locality: f32,
}

impl RegionLoad {
    fn of(r: &regionkv::admin::RegionStatus) -> Self {
        let mb = |b: u64| b / (1024 * 1024);
        let kb = |b: u64| b / 1024;
        Self {
            stores: r.stores.len(),
            storefiles: r.store_files,
            uncompressed_mb: r
                .stores
                .iter()
                .map(|s| mb(s.store_file_uncompressed_bytes))
                .sum(),
            storefile_mb: r.stores.iter().map(|s| mb(s.store_file_bytes)).sum(),
            memstore_mb: mb(r.memstore_bytes),
            index_kb: r.stores.iter().map(|s| kb(s.store_file_index_bytes)).sum(),
            bloom_kb: r.stores.iter().map(|s| kb(s.bloom_bytes)).sum(),
            reads: r.read_requests,
            filtered_reads: r.filtered_read_requests,
            writes: r.write_requests,
            compacted_kvs: r.compacted_kvs,
            last_major_compaction_ts: r.last_major_compaction_ts,
            complete_sequence_id: r.completed_sequence_id,
            // Every block of an embedded region is local; HBase reports 0.0 for a region
            // without files (no blocks).
            locality: if r.store_files > 0 { 1.0 } else { 0.0 },
        }
    }

    /// HBase 2.x's `RegionLoad.toString`, the line `status 'detailed'` prints per region.
    /// storeRefCount (scanners holding the files) is 0 between commands.
    fn region_text(&self) -> String {
        let mut s = format!(
            "numberOfStores={}, numberOfStorefiles={}, storeRefCount=0, \
             storefileUncompressedSizeMB={}, lastMajorCompactionTimestamp={}, \
             storefileSizeMB={}",
            self.stores,
            self.storefiles,
            self.uncompressed_mb,
            self.last_major_compaction_ts,
            self.storefile_mb
        );
        push_compression_ratio(&mut s, self.storefile_mb, self.uncompressed_mb);
        s.push_str(&format!(
            ", memstoreSizeMB={}, readRequestsCount={}, writeRequestsCount={}, \
             rootIndexSizeKB={}, totalStaticIndexSizeKB={}, totalStaticBloomSizeKB={}, \
             totalCompactingKVs={}, currentCompactedKVs={}, compactionProgressPct={}, \
             completeSequenceId={}, dataLocality={}",
            self.memstore_mb,
            self.reads,
            self.writes,
            self.index_kb,
            self.index_kb,
            self.bloom_kb,
            self.compacted_kvs,
            self.compacted_kvs,
            progress_pct(self.compacted_kvs, self.compacted_kvs),
            self.complete_sequence_id,
            java_float(self.locality)
        ));
        s
    }
}

/// HBase 2.x's `ServerLoad.toString` for the one server, summing its regions' loads, with
/// the coprocessors its regions load (simple class names, sorted).
/// requestsPerSecond, usedHeapMB and maxHeapMB are a JVM region server's samples, which an
/// embedded engine has not (0).
fn server_load(loads: &[RegionLoad], coprocessors: &[String]) -> String {
    let sum = |f: fn(&RegionLoad) -> u64| loads.iter().map(f).sum::<u64>();
    let uncompressed = sum(|l| l.uncompressed_mb);
    let storefile = sum(|l| l.storefile_mb);
    let compacted = sum(|l| l.compacted_kvs);
    let mut s = format!(
        "requestsPerSecond=0.0, numberOfOnlineRegions={}, usedHeapMB=0, maxHeapMB=0, \
         numberOfStores={}, numberOfStorefiles={}, storefileUncompressedSizeMB={uncompressed}, \
         storefileSizeMB={storefile}",
        loads.len(),
        sum(|l| l.stores as u64),
        sum(|l| l.storefiles as u64),
    );
    push_compression_ratio(&mut s, storefile, uncompressed);
    s.push_str(&format!(
        ", memstoreSizeMB={}, storefileIndexSizeKB={}, readRequestsCount={}, \
         filteredReadRequestsCount={}, writeRequestsCount={}, rootIndexSizeKB={}, \
         totalStaticIndexSizeKB={}, totalStaticBloomSizeKB={}, totalCompactingKVs={compacted}, \
         currentCompactedKVs={compacted}, compactionProgressPct={}, coprocessors=[{}]",
        sum(|l| l.memstore_mb),
        sum(|l| l.index_kb),
        sum(|l| l.reads),
        sum(|l| l.filtered_reads),
        sum(|l| l.writes),
        sum(|l| l.index_kb),
        sum(|l| l.index_kb),
        sum(|l| l.bloom_kb),
        progress_pct(compacted, compacted),
        coprocessors.join(", ")
    ));
    s
}

/// HBase prints `compressionRatio` (storefile MB over uncompressed MB, `%.4f`) only when
/// the uncompressed size is at least 1 MB.
fn push_compression_ratio(s: &mut String, storefile_mb: u64, uncompressed_mb: u64) {
    if uncompressed_mb != 0 {
        s.push_str(&format!(
            ", compressionRatio={:.4}",
            storefile_mb as f32 / uncompressed_mb as f32
        ));
    }
}

/// HBase's `compactionProgressPct`: a Java float, NaN when no compaction counted cells.
fn progress_pct(current: u64, total: u64) -> String {
    if total == 0 {
        return java_float(f32::NAN);
    }
    java_float(current as f32 / total as f32)
}

/// Java's `Float.toString` for the values status prints (NaN, and plain decimals that
/// always show a fraction: `1.0`, `0.5`).
fn java_float(f: f32) -> String {
    if f.is_nan() {
        return "NaN".to_string();
    }
    let s = f.to_string();
    if s.contains('.') { s } else { format!("{s}.0") }
}

/// `opts` with `key` set to `value` (appended, or replacing a present key in place).
fn with_key(opts: Opts, key: &str, value: Value) -> Opts {
    let mut pairs: Vec<(Value, Value)> =
        opts.pairs().map(|(k, v)| (k.clone(), v.clone())).collect();
    match pairs.iter_mut().find(|(k, _)| to_text(k) == key) {
        Some(slot) => slot.1 = value,
        None => pairs.push((Value::Const(key.to_string()), value)),
    }
    Opts::of(&Value::Hash(pairs)).unwrap_or(opts)
}

/// Sorted configuration, for tests.
#[cfg(test)]
fn config(pairs: &[(&str, &str)]) -> std::collections::BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// Prints the names matching the optional regex argument under `header`, as `list` and
/// `list_namespace` do, and returns them.
/// The names matching the regex argument. With `default_ns`, a table of the default
/// namespace (a name without `ns:`) also matches as `default:NAME`, as HBase's master
/// filters table listings (`HMaster.filterTablesByRegex`): `list 'default:.*'` lists them.
fn list_matching(
    args: &[Value],
    names: Vec<String>,
    header: &str,
    default_ns: bool,
    out: &mut Out<'_>,
) -> CmdResult<Ret> {
    let regex = regex_arg(args)?;
    let list: Vec<String> = names
        .into_iter()
        .filter(|n| {
            regex.is_match(n)
                || (default_ns && !n.contains(':') && regex.is_match(&format!("default:{n}")))
        })
        .collect();
    out.header(&[header])?;
    for n in &list {
        out.row(&[n])?;
    }
    out.footer(Some(list.len() as u64))?;
    Ok(Ret::List(list))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn family_text_is_hbase_24s() {
        let mut f = ColumnFamilyDescriptor::new(b"cf").unwrap();
        assert_eq!(
            family_text(&f),
            "{NAME => 'cf', BLOOMFILTER => 'ROW', IN_MEMORY => 'false', VERSIONS => '1', \
             KEEP_DELETED_CELLS => 'FALSE', DATA_BLOCK_ENCODING => 'NONE', COMPRESSION => 'NONE', \
             TTL => 'FOREVER', MIN_VERSIONS => '0', BLOCKCACHE => 'true', BLOCKSIZE => '65536', \
             REPLICATION_SCOPE => '0'}"
        );
        f.set_attribute("TTL", "86400").unwrap();
        f.configuration = config(&[("b", "2"), ("a", "1")]);
        let text = family_text(&f);
        assert!(text.contains("TTL => '86400 SECONDS (1 DAY)'"), "{text}");
        assert!(
            text.ends_with(", CONFIGURATION => {'a' => '1', 'b' => '2'}}"),
            "{text}"
        );
    }

    #[test]
    fn table_attributes_are_sorted_with_metadata_last() {
        let f = ColumnFamilyDescriptor::new(b"cf").unwrap();
        let mut d = TableDescriptor::new("t", vec![f]).unwrap();
        assert_eq!(table_attributes_text(&d), "");
        d.set_attribute("MAX_FILESIZE", "1000").unwrap();
        d.set_attribute("DURABILITY", "ASYNC_WAL").unwrap();
        d.configuration = config(&[("hbase.x", "1")]);
        assert_eq!(
            table_attributes_text(&d),
            ", {TABLE_ATTRIBUTES => {DURABILITY => 'ASYNC_WAL', MAX_FILESIZE => '1000', \
             METADATA => {'hbase.x' => '1'}}}"
        );
        assert!(unset_table_attribute(&mut d, "MAX_FILESIZE"));
        assert!(!unset_table_attribute(&mut d, "MAX_FILESIZE"));
        assert!(unset_table_attribute(&mut d, "hbase.x"));
    }

    #[test]
    fn help_lists_every_attribute_the_parsers_accept_with_its_real_default() {
        let mut buf = Vec::new();
        write_attribute_help(&mut buf).unwrap();
        let help = String::from_utf8(buf).unwrap();
        let keys = FAMILY_ATTRS
            .iter()
            .chain(TABLE_ATTRS)
            .map(|a| a.key)
            .chain(
                FAMILY_DEFAULTS
                    .iter()
                    .chain(TABLE_DEFAULTS)
                    .map(|(k, _)| *k),
            )
            .chain(FAMILY_UNSUPPORTED.iter().chain(TABLE_UNSUPPORTED).copied())
            .chain(TABLE_CONFIG_KEYS.iter().map(|(k, _, _)| *k))
            .chain(SPLIT_POLICY_KEYS.iter().copied());
        for key in keys {
            assert!(
                help.lines().any(|l| l.contains(key)),
                "{key} is missing from the help:\n{help}"
            );
        }
        // The defaults shown are the descriptors' own, and each is a value set_attribute
        // takes.
        let mut f = ColumnFamilyDescriptor::new(b"cf").unwrap();
        let fresh = f.attributes();
        for a in FAMILY_ATTRS {
            let actual = fresh.iter().find(|(k, _)| *k == a.key).map(|(_, v)| v);
            assert_eq!(actual.map(String::as_str), Some(a.default), "{}", a.key);
            f.set_attribute(a.key, a.default).unwrap();
        }
        let mut t = TableDescriptor::new("t", vec![f]).unwrap();
        let fresh = t.attributes(true);
        for a in TABLE_ATTRS {
            if a.key == "SPLIT_POLICY" {
                // Unset means HBase's default policy.
                assert_eq!(t.split_policy, None);
            } else {
                let actual = fresh.iter().find(|(k, _)| *k == a.key).map(|(_, v)| v);
                assert_eq!(actual.map(String::as_str), Some(a.default), "{}", a.key);
            }
            t.set_attribute(a.key, a.default).unwrap();
        }
        t.validate().unwrap();
        // The BLOCKSIZE range is the storefile writer's.
        let blocksize = FAMILY_ATTRS.iter().find(|a| a.key == "BLOCKSIZE").unwrap();
        assert_eq!(
            blocksize.range,
            format!(
                "{} .. {}",
                regionkv::descriptor::MIN_BLOCK_SIZE,
                regionkv::descriptor::MAX_BLOCK_SIZE
            )
        );
    }

    #[test]
    fn flatten_spreads_arrays_and_drops_nil() {
        let v = flatten(&[
            Value::Str(b"a".to_vec()),
            Value::Array(vec![Value::Nil, Value::Array(vec![Value::Int(1)])]),
        ]);
        assert_eq!(v, [Value::Str(b"a".to_vec()), Value::Int(1)]);
    }
}
