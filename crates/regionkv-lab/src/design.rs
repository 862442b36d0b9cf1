//! Design files: one small TOML file per rowkey design — the rowkey expression, the table's
//! families and options and its pre-splits — in HBase's own attribute names, so what a user
//! writes here is what `create` in the HBase shell takes (and what `export` will print).
//!
//! ```toml
//! name = "campaign stats, md5 prefix"            # shown in reports (default: the table)
//! table = "stats"                                 # the table the lab creates
//! rowkey = "substr(md5(company_id + stat_date), 0, 5) + company_id + stat_date + campaign_id"
//! description = "the seed article's design"       # optional
//!
//! [table_options]                                 # table attributes, as `create`/`alter` spell them
//! MAX_FILESIZE = 10737418240
//! MEMSTORE_FLUSHSIZE = 134217728
//! SPLIT_POLICY = "SteppingSplitPolicy"
//!
//! [families.d]                                    # one table per family, its attributes
//! VERSIONS = 1
//! TTL = 2592000
//! BLOOMFILTER = "ROW"
//! columns = 2                                     # lower case: what `simulate` writes here
//! value_size = 100                                #   per record: 2 cells of 100 bytes
//! every = 1                                       #   on every record (10: one in ten)
//!
//! [presplit]                                      # optional; at most one of the three forms
//! SPLITS = ["4", "8", "c"]                        # explicit keys (`\xHH`, upper-case hex: Bytes.toBytesBinary)
//! # SPLITS_FILE = "splits.txt"                    # one key per line, beside the design file
//! # NUMREGIONS = 16                               # with SPLITALGO:
//! # SPLITALGO = "HexStringSplit"                  # HexStringSplit, UniformSplit, DecimalStringSplit
//! ```
//!
//! Attribute values may be TOML strings, integers or booleans; each is checked by the
//! engine's descriptor code, which speaks the shell's names and limits.
//!
//! A design may also keep secondary indexes (the HBase reference guide's
//! secondary.indexes recipes), each a table of its own in the same Db:
//!
//! ```toml
//! [[index]]
//! name = "by_user"                 # the index table is "<table>_by_user" unless `table` names it
//! rowkey = "user + id"             # over the same record fields, in the same expression language
//! kind = "entry"                   # entry: one index row per base put, its qualifier the base
//!                                  #   rowkey (a dual-write or observer-maintained index);
//!                                  # summary: an Increment of one counter per record
//! maintained = "client"            # client (dual write, default) or observer (a coprocessor)
//! [index.table_options]            # default: the base table's MAX_FILESIZE, MEMSTORE_FLUSHSIZE
//! MAX_FILESIZE = 4194304           #   and SPLIT_POLICY, so the index splits at the design's scale
//! [index.presplit]                 # optional, the same forms as the design's
//! NUMREGIONS = 4
//! SPLITALGO = "UniformSplit"
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use regionkv::split::SplitAlgorithm;
use regionkv::{ColumnFamilyDescriptor, TableDescriptor};
use serde::{Deserialize, Serialize};

use crate::expr::{Expr, ExprError};

/// A design file that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum DesignError {
    /// The file could not be read.
    #[error("{}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Not TOML, or not the shape above.
    #[error("{file}: {message}")]
    Syntax {
        /// The file (or `<text>`).
        file: String,
        /// The TOML parser's message (with line and column).
        message: String,
    },
    /// The rowkey expression does not parse.
    #[error("{file}: {source}")]
    Rowkey {
        /// The file.
        file: String,
        /// The parse error.
        source: ExprError,
    },
    /// A table or family option the engine refuses, or a pre-split that cannot be made.
    #[error("{file}: {message}")]
    Invalid {
        /// The file.
        file: String,
        /// What is wrong.
        message: String,
    },
}

/// How the table is pre-split.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PreSplit {
    /// One region.
    None,
    /// Explicit split keys (`SPLITS` or `SPLITS_FILE`), sorted.
    Keys(Vec<Vec<u8>>),
    /// `NUMREGIONS` regions by `SPLITALGO`.
    Algorithm {
        /// HexStringSplit, UniformSplit or DecimalStringSplit.
        algorithm: String,
        /// How many regions.
        regions: usize,
    },
}

/// What a simulation writes to one family for each record (the lower-case keys of a
/// `[families.X]` table; HBase's attributes are upper case).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FamilyData {
    /// The family.
    pub family: String,
    /// Cells per record (qualifiers `q0`, `q1`, ...; default 1).
    pub columns: u32,
    /// Bytes per value (default 100).
    pub value_size: u32,
    /// Written on one record in `every` (default 1: every record).
    pub every: u32,
}

/// What an index table holds per base record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum IndexKind {
    /// One index row mutation per base put: a cell in family [`INDEX_FAMILY`] whose
    /// qualifier is the base rowkey (so an index key several records share holds one
    /// column per record, and a lookup reads the base rowkeys from the qualifiers).
    Entry,
    /// A summary table: one Increment of the counter [`SUMMARY_QUALIFIER`] per base put;
    /// reads are answered from the counters alone.
    Summary,
}

impl IndexKind {
    /// `entry` or `summary`.
    pub fn name(self) -> &'static str {
        match self {
            IndexKind::Entry => "entry",
            IndexKind::Summary => "summary",
        }
    }
}

/// Who writes an index: the same writes either way, sent by a different party.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Maintained {
    /// The client writes the base row and then each index row (the guide's dual-write
    /// index): one client request per table.
    Client,
    /// A region observer writes the index rows on the region server after the base put
    /// (the guide's coprocessor secondary index): one client request, the index writes
    /// are server-to-server.
    Observer,
}

impl Maintained {
    /// `client` or `observer`.
    pub fn name(self) -> &'static str {
        match self {
            Maintained::Client => "client",
            Maintained::Observer => "observer",
        }
    }
}

/// The index table's one family.
pub const INDEX_FAMILY: &str = "i";
/// A summary index's counter column.
pub const SUMMARY_QUALIFIER: &str = "n";

/// A secondary index kept beside the base table: a table of its own, created and split by
/// the engine like the base table.
#[derive(Debug, Clone)]
pub struct IndexDesign {
    /// The index's name (what `[[reads]] kind = "index"` names).
    pub name: String,
    /// Entry or summary.
    pub kind: IndexKind,
    /// Who writes it.
    pub maintained: Maintained,
    /// The index rowkey expression as written.
    pub rowkey_text: String,
    /// The index rowkey expression.
    pub rowkey: Expr,
    /// The index table: its name, family [`INDEX_FAMILY`], options.
    pub descriptor: TableDescriptor,
    /// Its pre-split.
    pub presplit: PreSplit,
}

impl IndexDesign {
    /// The split keys the index table is created with.
    ///
    /// # Errors
    /// A pre-split the algorithm cannot make.
    pub fn split_keys(&self) -> Result<Vec<Vec<u8>>, String> {
        self.presplit.keys()
    }
}

/// A parsed design.
#[derive(Debug, Clone)]
pub struct Design {
    /// The name shown in reports.
    pub name: String,
    /// What it is meant to show, if said.
    pub description: Option<String>,
    /// The rowkey expression as written.
    pub rowkey_text: String,
    /// The rowkey expression.
    pub rowkey: Expr,
    /// The table: name, families, options.
    pub descriptor: TableDescriptor,
    /// The pre-split.
    pub presplit: PreSplit,
    /// What each family gets per record, in the descriptor's family order.
    pub data: Vec<FamilyData>,
    /// A quick design's scaled-down sizes ([`QUICK_FLUSH_SIZE`]) are in the descriptor:
    /// not for a real cluster.
    pub scaled_sizes: bool,
    /// Secondary indexes (`[[index]]`), in file order.
    pub indexes: Vec<IndexDesign>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    name: Option<String>,
    table: String,
    rowkey: String,
    description: Option<String>,
    #[serde(default)]
    table_options: BTreeMap<String, toml::Value>,
    families: BTreeMap<String, BTreeMap<String, toml::Value>>,
    presplit: Option<PreSplitFile>,
    #[serde(default)]
    index: Vec<IndexFile>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct IndexFile {
    name: String,
    table: Option<String>,
    rowkey: String,
    #[serde(default = "default_index_kind")]
    kind: String,
    maintained: Option<String>,
    #[serde(default)]
    table_options: BTreeMap<String, toml::Value>,
    presplit: Option<PreSplitFile>,
}

fn default_index_kind() -> String {
    "entry".into()
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PreSplitFile {
    #[serde(rename = "SPLITS")]
    splits: Option<Vec<String>>,
    #[serde(rename = "SPLITS_FILE")]
    splits_file: Option<String>,
    #[serde(rename = "NUMREGIONS")]
    num_regions: Option<i64>,
    #[serde(rename = "SPLITALGO")]
    split_algo: Option<String>,
}

/// A TOML scalar as the shell would have written it.
fn scalar(v: &toml::Value) -> Option<String> {
    match v {
        toml::Value::String(s) => Some(s.clone()),
        toml::Value::Integer(n) => Some(n.to_string()),
        toml::Value::Boolean(b) => Some(b.to_string()),
        _ => None,
    }
}

impl Design {
    /// Reads and parses the design file at `path` (a `SPLITS_FILE` is read beside it).
    ///
    /// # Errors
    /// [`DesignError`] naming the file.
    pub fn load(path: &Path) -> Result<Design, DesignError> {
        let text = std::fs::read_to_string(path).map_err(|source| DesignError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        let dir = path.parent().unwrap_or(Path::new("."));
        Design::parse(&text, &path.display().to_string(), dir)
    }

    /// Parses a design from `text`; `file` names it in errors and `dir` is where a
    /// `SPLITS_FILE` is looked for.
    ///
    /// # Errors
    /// [`DesignError`] naming the file.
    pub fn parse(text: &str, file: &str, dir: &Path) -> Result<Design, DesignError> {
        let invalid = |message: String| DesignError::Invalid {
            file: file.to_string(),
            message,
        };
        let f: File = toml::from_str(text).map_err(|e| DesignError::Syntax {
            file: file.to_string(),
            message: e.to_string(),
        })?;
        let rowkey = Expr::parse(&f.rowkey).map_err(|source| DesignError::Rowkey {
            file: file.to_string(),
            source,
        })?;
        if f.families.is_empty() {
            return Err(invalid(
                "a design needs at least one family ([families.NAME])".into(),
            ));
        }
        let mut families = Vec::new();
        let mut data = Vec::new();
        for (name, attrs) in &f.families {
            let mut cf = ColumnFamilyDescriptor::new(name.as_bytes())
                .map_err(|e| invalid(format!("family '{name}': {e}")))?;
            let mut shape = FamilyData {
                family: name.clone(),
                columns: 1,
                value_size: 100,
                every: 1,
            };
            for (key, value) in attrs {
                if let Some(slot) = match key.as_str() {
                    "columns" => Some(&mut shape.columns),
                    "value_size" => Some(&mut shape.value_size),
                    "every" => Some(&mut shape.every),
                    _ => None,
                } {
                    let n = value
                        .as_integer()
                        .and_then(|n| u32::try_from(n).ok())
                        .filter(|&n| n >= 1 || key == "value_size")
                        .ok_or_else(|| {
                            invalid(format!(
                                "family '{name}': {key} must be a whole number (at least 1)"
                            ))
                        })?;
                    *slot = n;
                    continue;
                }
                let v = scalar(value).ok_or_else(|| {
                    invalid(format!(
                        "family '{name}': {key} must be a string, number or boolean"
                    ))
                })?;
                cf.set_attribute(key, &v)
                    .map_err(|e| invalid(format!("family '{name}': {e}")))?;
            }
            families.push(cf);
            data.push(shape);
        }
        let mut descriptor = TableDescriptor::new(&f.table, families)
            .map_err(|e| invalid(format!("table '{}': {e}", f.table)))?;
        let presplit =
            table_settings(&mut descriptor, &f.table_options, f.presplit, dir).map_err(invalid)?;
        let mut indexes: Vec<IndexDesign> = Vec::new();
        for ix in f.index {
            let index = index_design(ix, &descriptor, file, dir)?;
            if indexes.iter().any(|i| i.name == index.name) {
                return Err(invalid(format!("index '{}' is given twice", index.name)));
            }
            let table = &index.descriptor.name;
            if *table == descriptor.name || indexes.iter().any(|i| i.descriptor.name == *table) {
                return Err(invalid(format!(
                    "index '{}': table '{table}' is already the design's",
                    index.name
                )));
            }
            indexes.push(index);
        }
        Ok(Design {
            name: f.name.unwrap_or_else(|| f.table.clone()),
            description: f.description,
            rowkey_text: f.rowkey,
            rowkey,
            descriptor,
            presplit,
            data,
            scaled_sizes: false,
            indexes,
        })
    }

    /// The index named `name`, if the design keeps one.
    pub fn index(&self, name: &str) -> Option<&IndexDesign> {
        self.indexes.iter().find(|i| i.name == name)
    }

    /// The split keys the table is created with (none for one region).
    ///
    /// # Errors
    /// A pre-split the algorithm cannot make.
    pub fn split_keys(&self) -> Result<Vec<Vec<u8>>, String> {
        self.presplit.keys()
    }
}

impl PreSplit {
    /// The split keys (none for one region).
    ///
    /// # Errors
    /// A pre-split the algorithm cannot make.
    pub fn keys(&self) -> Result<Vec<Vec<u8>>, String> {
        match self {
            PreSplit::None => Ok(Vec::new()),
            PreSplit::Keys(keys) => Ok(keys.clone()),
            PreSplit::Algorithm { algorithm, regions } => SplitAlgorithm::from_name(algorithm)
                .and_then(|a| a.split(*regions))
                .map_err(|e| e.to_string()),
        }
    }
}

/// Applies a table's `table_options` to `descriptor`, checks it as HBase's table creation
/// would (HBase's limits, and the split policy the region server would load: an unknown
/// class, a prefix policy without its length), and reads its pre-splits. The error is the
/// message, for the caller to name its file.
fn table_settings(
    descriptor: &mut TableDescriptor,
    options: &BTreeMap<String, toml::Value>,
    splits: Option<PreSplitFile>,
    dir: &Path,
) -> Result<PreSplit, String> {
    for (key, value) in options {
        let v =
            scalar(value).ok_or_else(|| format!("{key} must be a string, number or boolean"))?;
        descriptor
            .set_attribute(key, &v)
            .map_err(|e| e.to_string())?;
    }
    descriptor.check_hbase_limits().map_err(|e| e.to_string())?;
    descriptor.split_policy().map_err(|e| e.to_string())?;
    match splits {
        None => Ok(PreSplit::None),
        Some(p) => presplit(p, dir),
    }
}

/// One `[[index]]` entry: its table inherits the base table's sizes and split policy (the
/// lab's designs are scaled down, and an index at HBase's 10 GiB default would never split
/// here), then takes its own `table_options`.
fn index_design(
    ix: IndexFile,
    base: &TableDescriptor,
    file: &str,
    dir: &Path,
) -> Result<IndexDesign, DesignError> {
    let name = ix.name.clone();
    let invalid = |message: String| DesignError::Invalid {
        file: file.to_string(),
        message: format!("index '{name}': {message}"),
    };
    if name.is_empty() {
        return Err(invalid("an index needs a name".into()));
    }
    let rowkey = Expr::parse(&ix.rowkey).map_err(|source| DesignError::Rowkey {
        file: format!("{file}: index '{name}'"),
        source,
    })?;
    let kind = match ix.kind.as_str() {
        "entry" => IndexKind::Entry,
        "summary" => IndexKind::Summary,
        other => return Err(invalid(format!("unknown kind '{other}' (entry, summary)"))),
    };
    let maintained = match ix.maintained.as_deref() {
        None | Some("client") => Maintained::Client,
        Some("observer") => Maintained::Observer,
        Some(other) => {
            return Err(invalid(format!(
                "maintained must be client or observer, not '{other}'"
            )));
        }
    };
    let table = ix
        .table
        .unwrap_or_else(|| format!("{}_{}", base.name, ix.name));
    let family =
        ColumnFamilyDescriptor::new(INDEX_FAMILY.as_bytes()).map_err(|e| invalid(e.to_string()))?;
    let mut descriptor = TableDescriptor::new(&table, vec![family])
        .map_err(|e| invalid(format!("table '{table}': {e}")))?;
    descriptor.max_file_size = base.max_file_size;
    descriptor.memstore_flush_size = base.memstore_flush_size;
    // The policy and its settings (a prefix policy's length lives in the configuration).
    descriptor.split_policy = base.split_policy.clone();
    descriptor.configuration = base.configuration.clone();
    let presplit =
        table_settings(&mut descriptor, &ix.table_options, ix.presplit, dir).map_err(invalid)?;
    Ok(IndexDesign {
        name: ix.name,
        kind,
        maintained,
        rowkey_text: ix.rowkey,
        rowkey,
        descriptor,
        presplit,
    })
}

/// The sizes of a quick design (`--key`): a 2 MiB flush size and a 32 MiB MAX_FILESIZE
/// (HBase: 128 MiB and 10 GiB), so a million simulated rows of about 150 bytes split into
/// several regions the way a cluster's table splits over hundreds of gigabytes — the
/// first split at twice the flush size, the next at MAX_FILESIZE (SteppingSplitPolicy).
pub const QUICK_FLUSH_SIZE: u64 = 2 << 20;
/// See [`QUICK_FLUSH_SIZE`].
pub const QUICK_MAX_FILESIZE: u64 = 32 << 20;

impl Design {
    /// A design from flags: `key` as the rowkey of table `t` with one family `cf`, at the
    /// quick scale ([`QUICK_FLUSH_SIZE`]), pre-split as given.
    ///
    /// # Errors
    /// A key that does not parse.
    pub fn quick(key: &str, presplit: PreSplit) -> Result<Design, DesignError> {
        let k = toml::Value::String(key.to_string()).to_string();
        let text = format!(
            "name = {k}\ntable = \"t\"\nrowkey = {k}\n[table_options]\n\
             MEMSTORE_FLUSHSIZE = {QUICK_FLUSH_SIZE}\nMAX_FILESIZE = {QUICK_MAX_FILESIZE}\n\
             [families.cf]\n"
        );
        let mut d = Design::parse(&text, "--key", Path::new("."))?;
        d.presplit = presplit;
        d.scaled_sizes = true;
        Ok(d)
    }

    /// Overrides MAX_FILESIZE and MEMSTORE_FLUSHSIZE (`--max-filesize`, `--flush-size`).
    ///
    /// # Errors
    /// A size HBase's descriptor checks refuse.
    pub fn set_sizes(
        &mut self,
        max_filesize: Option<u64>,
        flush_size: Option<u64>,
    ) -> Result<(), DesignError> {
        let invalid = |message: String| DesignError::Invalid {
            file: self.name.clone(),
            message,
        };
        let mut d = self.descriptor.clone();
        for (key, v) in [
            ("MAX_FILESIZE", max_filesize),
            ("MEMSTORE_FLUSHSIZE", flush_size),
        ] {
            if let Some(v) = v {
                d.set_attribute(key, &v.to_string())
                    .map_err(|e| invalid(e.to_string()))?;
            }
        }
        d.check_hbase_limits().map_err(|e| invalid(e.to_string()))?;
        // The index tables follow the base table's sizes (see `index_design`).
        let mut indexes = self.indexes.clone();
        for ix in &mut indexes {
            for (key, v) in [
                ("MAX_FILESIZE", max_filesize),
                ("MEMSTORE_FLUSHSIZE", flush_size),
            ] {
                if let Some(v) = v {
                    ix.descriptor
                        .set_attribute(key, &v.to_string())
                        .map_err(|e| invalid(e.to_string()))?;
                }
            }
        }
        self.descriptor = d;
        self.indexes = indexes;
        Ok(())
    }
}

/// A pre-split from flags: explicit keys (toStringBinary), or a count with an algorithm.
///
/// # Errors
/// Both forms, or a form that cannot be made.
pub fn presplit_from(
    splits: Option<Vec<String>>,
    regions: Option<usize>,
    algorithm: Option<String>,
) -> Result<PreSplit, String> {
    presplit(
        PreSplitFile {
            splits,
            splits_file: None,
            num_regions: regions.map(|n| i64::try_from(n).unwrap_or(i64::MAX)),
            split_algo: algorithm.or(regions.map(|_| "HexStringSplit".to_string())),
        },
        Path::new("."),
    )
}

fn presplit(p: PreSplitFile, dir: &Path) -> Result<PreSplit, String> {
    let forms = [
        p.splits.is_some(),
        p.splits_file.is_some(),
        p.num_regions.is_some(),
    ];
    if forms.iter().filter(|&&f| f).count() > 1 {
        return Err("[presplit] takes one of SPLITS, SPLITS_FILE or NUMREGIONS".into());
    }
    if p.split_algo.is_some() != p.num_regions.is_some() {
        return Err("[presplit] NUMREGIONS and SPLITALGO go together".into());
    }
    // HBase's createTable refuses an empty split key and a repeated one.
    let keys_of = |lines: Vec<String>, skip_blank: bool| -> Result<PreSplit, String> {
        let mut keys = lines
            .iter()
            .filter(|l| !(skip_blank && l.is_empty()))
            .map(|l| {
                regionkv::cell::bytes::to_bytes_binary(l)
                    .map_err(|e| format!("split key '{l}': {e}"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        if keys.iter().any(Vec::is_empty) {
            return Err("Empty split key must not be passed in the split keys.".into());
        }
        keys.sort();
        if let Some(w) = keys.windows(2).find(|w| w[0] == w[1]) {
            return Err(format!(
                "split key '{}' is given twice",
                regionkv::cell::bytes::to_string_binary(&w[0])
            ));
        }
        Ok(PreSplit::Keys(keys))
    };
    if let Some(splits) = p.splits {
        return keys_of(splits, false);
    }
    if let Some(file) = p.splits_file {
        let path = dir.join(&file);
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("SPLITS_FILE {}: {e}", path.display()))?;
        // Blank lines of a file are no keys.
        return keys_of(text.lines().map(|l| l.trim().to_string()).collect(), true);
    }
    match (p.num_regions, p.split_algo) {
        (Some(n), Some(algorithm)) => {
            let regions = usize::try_from(n)
                .ok()
                .filter(|&n| n >= 2)
                .ok_or_else(|| format!("NUMREGIONS must be at least 2, not {n}"))?;
            regionkv::admin::check_region_count(regions).map_err(|e| e.to_string())?;
            SplitAlgorithm::from_name(&algorithm).map_err(|e| e.to_string())?;
            Ok(PreSplit::Algorithm { algorithm, regions })
        }
        _ => Ok(PreSplit::None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type R = Result<(), Box<dyn std::error::Error>>;

    const SEED: &str = r#"
name = "campaign stats, md5 prefix"
table = "stats"
rowkey = "substr(md5(company_id + stat_date), 0, 5) + company_id + stat_date + campaign_id"

[table_options]
MAX_FILESIZE = 10737418240
MEMSTORE_FLUSHSIZE = 134217728
SPLIT_POLICY = "SteppingSplitPolicy"

[families.d]
VERSIONS = 1
TTL = 2592000
BLOOMFILTER = "ROW"

[presplit]
NUMREGIONS = 16
SPLITALGO = "HexStringSplit"
"#;

    #[test]
    fn a_design_file_gives_the_table_and_its_splits() -> R {
        let d = Design::parse(SEED, "seed.toml", Path::new("."))?;
        assert_eq!(d.name, "campaign stats, md5 prefix");
        assert_eq!(d.descriptor.name, "stats");
        let f = d.descriptor.family(b"d").ok_or("no family d")?;
        assert_eq!((f.max_versions, f.ttl_seconds), (1, 2_592_000));
        assert_eq!(d.descriptor.max_file_size, 10_737_418_240);
        assert_eq!(
            d.rowkey.fields(),
            ["company_id", "stat_date", "campaign_id"]
        );
        let keys = d.split_keys()?;
        assert_eq!(keys.len(), 15);
        assert_eq!(keys[0], b"10000000");
        Ok(())
    }

    #[test]
    fn explicit_and_file_splits() -> R {
        let tmp = tempfile::tempdir()?;
        let dir = tmp.path();
        std::fs::write(dir.join("splits.txt"), "b\n\\x00\n\na\n")?;
        let text = |presplit: &str| {
            format!("table = \"t\"\nrowkey = \"id\"\n[families.cf]\n[presplit]\n{presplit}\n")
        };
        let d = Design::parse(&text("SPLITS = [\"m\", \"\\\\x01\", \"c\"]"), "x", dir)?;
        assert_eq!(
            d.presplit,
            PreSplit::Keys(vec![vec![1], b"c".to_vec(), b"m".to_vec()])
        );
        let d = Design::parse(&text("SPLITS_FILE = \"splits.txt\""), "x", dir)?;
        assert_eq!(
            d.presplit,
            PreSplit::Keys(vec![vec![0], b"a".to_vec(), b"b".to_vec()])
        );
        Ok(())
    }

    #[test]
    fn mistakes_are_named() {
        let cases = [
            (
                "table = \"t\"\nrowkey = \"md5(\"\n[families.cf]\n",
                "rowkey expression",
            ),
            (
                "table = \"t\"\nrowkey = \"id\"\n",
                "missing field `families`",
            ),
            (
                "table = \"t\"\nrowkey = \"id\"\n[families]\n",
                "at least one family",
            ),
            (
                "table = \"t\"\nrowkey = \"id\"\n[families.cf]\nVERSIONS = \"x\"\n",
                "family 'cf'",
            ),
            (
                "table = \"t\"\nrowkey = \"id\"\n[families.cf]\nNOPE = 1\n",
                "family 'cf'",
            ),
            (
                "table = \"t\"\nrowkey = \"id\"\nwhat = 1\n[families.cf]\n",
                "unknown field `what`",
            ),
            (
                "table = \"t\"\nrowkey = \"id\"\n[table_options]\nSPLIT_POLICY = \"Nope\"\n[families.cf]\n",
                "Unable to load configured region split policy 'Nope'",
            ),
            (
                "table = \"t\"\nrowkey = \"id\"\n[families.cf]\n[presplit]\nSPLITS = [\"a\", \"b\", \"a\"]\n",
                "split key 'a' is given twice",
            ),
            (
                "table = \"t\"\nrowkey = \"id\"\n[families.cf]\n[presplit]\nSPLITS = [\"a\", \"\"]\n",
                "Empty split key",
            ),
            (
                "table = \"t\"\nrowkey = \"id\"\n[families.d]\ncolumns = 0\n",
                "columns must be a whole number",
            ),
            (
                "table = \"t\"\nrowkey = \"id\"\n[families.cf]\n[presplit]\nNUMREGIONS = 4\n",
                "go together",
            ),
            (
                "table = \"t\"\nrowkey = \"id\"\n[families.cf]\n[presplit]\nNUMREGIONS = 4\nSPLITALGO = \"Nope\"\n",
                "Nope",
            ),
            (
                "table = \"t\"\nrowkey = \"id\"\n[families.cf]\n[presplit]\nSPLITS = [\"a\"]\nNUMREGIONS = 4\nSPLITALGO = \"UniformSplit\"\n",
                "one of",
            ),
            (
                "table = \"bad name!\"\nrowkey = \"id\"\n[families.cf]\n",
                "table 'bad name!'",
            ),
        ];
        for (text, expected) in cases {
            match Design::parse(text, "d.toml", Path::new(".")) {
                Ok(_) => panic!("accepted: {text}"),
                Err(e) => {
                    let msg = e.to_string();
                    assert!(msg.starts_with("d.toml"), "{msg}");
                    assert!(msg.contains(expected), "{text}\n=> {msg}");
                }
            }
        }
    }

    #[test]
    fn an_index_is_a_table_of_its_own() -> R {
        let text = format!(
            "{SEED}\n[[index]]\nname = \"by_user\"\nrowkey = \"user + id\"\n\
             [index.presplit]\nSPLITS = [\"5\"]\n\
             [[index]]\nname = \"daily\"\ntable = \"stats_daily\"\nrowkey = \"stat_date + company_id\"\n\
             kind = \"summary\"\nmaintained = \"observer\"\n\
             [index.table_options]\nMAX_FILESIZE = 4194304\n"
        );
        let d = Design::parse(&text, "seed.toml", Path::new("."))?;
        assert_eq!(d.indexes.len(), 2);
        let (a, b) = (&d.indexes[0], &d.indexes[1]);
        assert_eq!(
            (a.name.as_str(), a.descriptor.name.as_str()),
            ("by_user", "stats_by_user")
        );
        assert_eq!(
            (a.kind, a.maintained),
            (IndexKind::Entry, Maintained::Client)
        );
        assert_eq!(a.rowkey.fields(), ["user", "id"]);
        assert_eq!(a.split_keys()?, vec![b"5".to_vec()]);
        // The base table's sizes and policy, unless the index sets its own.
        assert_eq!(a.descriptor.max_file_size, 10_737_418_240);
        assert_eq!(a.descriptor.memstore_flush_size, 134_217_728);
        assert_eq!(
            a.descriptor.split_policy.as_deref(),
            Some("SteppingSplitPolicy")
        );
        assert!(a.descriptor.family(INDEX_FAMILY.as_bytes()).is_some());
        assert_eq!(b.descriptor.name, "stats_daily");
        assert_eq!(
            (b.kind, b.maintained),
            (IndexKind::Summary, Maintained::Observer)
        );
        assert_eq!(b.descriptor.max_file_size, 4_194_304);
        assert_eq!(b.split_keys()?, Vec::<Vec<u8>>::new());
        assert!(d.index("daily").is_some() && d.index("nope").is_none());
        // --max-filesize reaches the indexes too.
        let mut d = d;
        d.set_sizes(Some(8 << 20), None)?;
        assert!(
            d.indexes
                .iter()
                .all(|i| i.descriptor.max_file_size == 8 << 20)
        );
        Ok(())
    }

    #[test]
    fn index_mistakes_are_named() {
        let base = "table = \"t\"\nrowkey = \"id\"\n[families.cf]\n";
        for (index, expected) in [
            ("rowkey = \"id\"\n", "missing field `name`"),
            ("name = \"a\"\nrowkey = \"md5(\"\n", "index 'a'"),
            (
                "name = \"a\"\nrowkey = \"id\"\nkind = \"covering\"\n",
                "unknown kind 'covering'",
            ),
            (
                "name = \"a\"\nrowkey = \"id\"\nmaintained = \"cron\"\n",
                "client or observer",
            ),
            (
                "name = \"a\"\nrowkey = \"id\"\ntable = \"t\"\n",
                "already the design's",
            ),
            (
                "name = \"a\"\nrowkey = \"id\"\ntable = \"bad name!\"\n",
                "table 'bad name!'",
            ),
            (
                "name = \"a\"\nrowkey = \"id\"\nwhat = 1\n",
                "unknown field `what`",
            ),
            (
                "name = \"a\"\nrowkey = \"id\"\n[index.table_options]\nSPLIT_POLICY = \"Nope\"\n",
                "index 'a': Unable to load",
            ),
            (
                "name = \"a\"\nrowkey = \"id\"\n[index.presplit]\nNUMREGIONS = 4\n",
                "index 'a': [presplit] NUMREGIONS and SPLITALGO go together",
            ),
            (
                "name = \"a\"\nrowkey = \"id\"\n[[index]]\nname = \"a\"\nrowkey = \"ts\"\n",
                "index 'a' is given twice",
            ),
        ] {
            let text = format!("{base}[[index]]\n{index}");
            match Design::parse(&text, "d.toml", Path::new(".")) {
                Ok(_) => panic!("accepted: {index}"),
                Err(e) => {
                    let msg = e.to_string();
                    assert!(msg.starts_with("d.toml"), "{msg}");
                    assert!(msg.contains(expected), "{index}\n=> {msg}");
                }
            }
        }
    }
}
