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

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use regionkv::split::SplitAlgorithm;
use regionkv::{ColumnFamilyDescriptor, TableDescriptor};
use serde::Deserialize;

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
        for (key, value) in &f.table_options {
            let v = scalar(value)
                .ok_or_else(|| invalid(format!("{key} must be a string, number or boolean")))?;
            descriptor
                .set_attribute(key, &v)
                .map_err(|e| invalid(e.to_string()))?;
        }
        descriptor
            .check_hbase_limits()
            .map_err(|e| invalid(e.to_string()))?;
        // The split policy the region server would load (an unknown class, a prefix policy
        // without its length), refused here as HBase's table creation would.
        descriptor
            .split_policy()
            .map_err(|e| invalid(e.to_string()))?;
        let presplit = match f.presplit {
            None => PreSplit::None,
            Some(p) => presplit(p, dir).map_err(invalid)?,
        };
        Ok(Design {
            name: f.name.unwrap_or_else(|| f.table.clone()),
            description: f.description,
            rowkey_text: f.rowkey,
            rowkey,
            descriptor,
            presplit,
            data,
            scaled_sizes: false,
        })
    }

    /// The split keys the table is created with (none for one region).
    ///
    /// # Errors
    /// A pre-split the algorithm cannot make.
    pub fn split_keys(&self) -> Result<Vec<Vec<u8>>, String> {
        match &self.presplit {
            PreSplit::None => Ok(Vec::new()),
            PreSplit::Keys(keys) => Ok(keys.clone()),
            PreSplit::Algorithm { algorithm, regions } => SplitAlgorithm::from_name(algorithm)
                .and_then(|a| a.split(*regions))
                .map_err(|e| e.to_string()),
        }
    }
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
        self.descriptor = d;
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
}
