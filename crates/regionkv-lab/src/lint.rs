//! `lab lint`: the rules of the HBase literature (../shared/LAB.md, "Lint rules") checked on
//! a design, each finding with its severity, the rule's source and a suggested fix.
//!
//! [`lint`] checks what the design alone decides; [`lint_with`] adds what needs the workload:
//! its own monotonic fields leading the key (rule 1; `id` and `ts`, which every workload
//! has, are checked always), "latest value" reads the key cannot answer in order (13) and
//! reads the key cannot serve but by a full-table scan (14).

use std::fmt;

use regionkv::descriptor::FOREVER;
use regionkv::{ColumnFamilyDescriptor, KeepDeletedCells};

use crate::design::{Design, PreSplit};
use crate::expr::{Expr, Function};
use crate::workload::{FieldKind, Workload};

/// How much a finding matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// Worth knowing.
    Info,
    /// Likely to hurt.
    Warning,
    /// Will hurt: the design defeats its own purpose (or HBase refuses it).
    Error,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        })
    }
}

/// One finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The rule's number in LAB.md's list.
    pub rule: u8,
    /// How much it matters.
    pub severity: Severity,
    /// What was found.
    pub message: String,
    /// Where the rule comes from.
    pub source: &'static str,
    /// What to do about it.
    pub fix: String,
}

const GUIDE_SPLITS: &str = "HBase reference guide, rowkey.regionsplits (\"Lesson #1\"); \
                            HexStringSplit over constant prefixes, rayokota/hgraphdb#50";
const GUIDE_SALT: &str = "HBase reference guide, rowkey.design (salting, hashing)";
const OPENTSDB: &str = "OpenTSDB salting docs; OpenTSDB#991";
const GUIDE_CFS: &str = "HBase reference guide, number.of.cfs";
const GUIDE_KEYSIZE: &str = "HBase reference guide, keysize";
const GUIDE_VERSIONS: &str =
    "HBase reference guide, schema.versions, schema.minversions, cf.keep.deleted";
const CHECKER: &str = "HBase TableDescriptorChecker";
const GUIDE_CAPACITY: &str = "HBase reference guide, ops.capacity.regions";

/// What bytes a key part can start with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Alphabet {
    /// Lower-case hex digits.
    Hex,
    /// Decimal digits.
    Decimal,
    /// Bytes below `n` (a salt byte).
    SmallBytes(u32),
    /// A constant prefix.
    Constant,
    /// Anything.
    Unknown,
}

fn leading_alphabet(e: &Expr) -> Alphabet {
    match e.parts().first() {
        Some(Expr::Call(Function::Md5 | Function::Sha1 | Function::Hex, _)) => Alphabet::Hex,
        Some(Expr::Call(Function::Substr, args)) => {
            args.first().map_or(Alphabet::Unknown, leading_alphabet)
        }
        Some(Expr::Slice(inner, start, _)) if start.unwrap_or(0) == 0 => leading_alphabet(inner),
        Some(Expr::Call(Function::Bucket | Function::RandomBucket | Function::Pad, _)) => {
            Alphabet::Decimal
        }
        Some(Expr::Call(Function::Salt | Function::RandomSalt, args)) => {
            match args.get(1).or(args.first()) {
                Some(Expr::Int(n)) => Alphabet::SmallBytes(u32::try_from(*n).unwrap_or(256)),
                _ => Alphabet::Unknown,
            }
        }
        Some(Expr::Literal(_)) => Alphabet::Constant,
        _ => Alphabet::Unknown,
    }
}

const GUIDE_TIMESERIES: &str = "HBase reference guide, rowkey.design (monotonically \
                                increasing row keys/timeseries data); Bigtable schema design";
const BIGTABLE_LIMITS: &str = "Bigtable schema design (cells <= 10 MB, rows <= 100 MB); \
                               Key Visualizer large-row banners";
const GUIDE_REVERSE: &str = "HBase reference guide, reverse.timestamp; Scan.setReversed";
const GUIDE_SECONDARY: &str = "HBase reference guide, secondary.indexes (dual-write index, \
                               summary table, coprocessor)";

/// Every finding for `design`, most severe first.
pub fn lint(design: &Design) -> Vec<Finding> {
    lint_with(design, None)
}

/// Every finding for `design` run with `workload`, most severe first.
pub fn lint_with(design: &Design, workload: Option<&Workload>) -> Vec<Finding> {
    let mut out = design_rules(design);
    // Rule 1: a monotonic field leading the key.
    let mut monotonic = vec!["id".to_string(), "ts".to_string()];
    if let Some(w) = workload {
        monotonic.extend(
            w.fields
                .iter()
                .filter(|(_, kind)| {
                    matches!(
                        kind,
                        FieldKind::Sequence { .. } | FieldKind::Timestamp | FieldKind::Date
                    )
                })
                .map(|(name, _)| name.clone()),
        );
    }
    if let Some((field, descending)) = leading_monotonic(&design.rowkey, &monotonic) {
        out.push(Finding {
            rule: 1,
            severity: Severity::Error,
            message: format!(
                "the key starts with '{field}', which only {}: every write goes to the {} region, one region at a time",
                if descending { "decreases" } else { "increases" },
                if descending { "first" } else { "last" }
            ),
            source: GUIDE_TIMESERIES,
            fix: "lead with what spreads writes: a field of many values (user, host, metric), \
                  a hash prefix (hashmod(x, n), substr(md5(x), 0, 4)), or bitreverse(id)"
                .into(),
        });
    }
    // Rule 1 on each index's key: an index led by a monotonic field is as hot as a base
    // table led by one (the index's writes go to its last region).
    for ix in &design.indexes {
        if let Some((field, descending)) = leading_monotonic(&ix.rowkey, &monotonic) {
            out.push(Finding {
                rule: 1,
                severity: Severity::Error,
                message: format!(
                    "index '{}': its key starts with '{field}', which only {}: every index write goes to its {} region",
                    ix.name,
                    if descending { "decreases" } else { "increases" },
                    if descending { "first" } else { "last" }
                ),
                source: GUIDE_TIMESERIES,
                fix: "lead the index key with the looked-up field, or a hash of it \
                      (hashmod(x, n) + x)"
                    .into(),
            });
        }
    }
    if let (Some(w), Some((_, record))) = (workload, workload.and_then(|w| w.stream().next())) {
        for spec in &w.reads {
            // An index read is planned on its index's key; without the index, on the
            // design's (a scan of the base table).
            let index = match &spec.kind {
                crate::workload::ReadKind::Index { index } => {
                    let found = design.index(index);
                    if found.is_none() {
                        out.push(Finding {
                            rule: 14,
                            severity: Severity::Warning,
                            message: format!(
                                "{}: the design has no index '{index}', so the read scans the table by its own key",
                                spec.label()
                            ),
                            source: GUIDE_SECONDARY,
                            fix: format!(
                                "add an [[index]] named '{index}' keyed by {}",
                                spec.fields.join(" + ")
                            ),
                        });
                    }
                    found
                }
                _ => None,
            };
            let key = index.map_or(&design.rowkey, |ix| &ix.rowkey);
            let planned = match index {
                Some(ix) => crate::query::index_plan(&ix.rowkey, &spec.fields, &record),
                None => crate::query::plan(&design.rowkey, &spec.kind, &spec.fields, &record),
            };
            let Ok(p) = planned else {
                continue;
            };
            // Rule 14: a read only a full-table scan answers.
            if p.full_scan {
                out.push(Finding {
                    rule: 14,
                    severity: Severity::Error,
                    message: format!(
                        "{}: the key cannot be narrowed by {}, so every such read scans the whole table",
                        spec.label(),
                        if spec.fields.is_empty() { "the read".to_string() } else { spec.fields.join(", ") }
                    ),
                    source: GUIDE_SECONDARY,
                    fix: "lead the key with what this read knows, or keep a second table keyed for it \
                          (a dual-write index or a summary table, or a coprocessor maintaining one)"
                        .into(),
                });
                continue;
            }
            // Rule 14, milder: fields the read knows that the key does not hold whole
            // (only hashed, or not at all): every row under the prefix is read and filtered.
            let held: Vec<&str> = key.parts().iter().flat_map(crate::query::pinned).collect();
            let missing: Vec<&str> = spec
                .fields
                .iter()
                .map(String::as_str)
                .filter(|f| !held.contains(f))
                .collect();
            if !missing.is_empty() && !matches!(spec.kind, crate::workload::ReadKind::Get) {
                out.push(Finding {
                    rule: 14,
                    severity: Severity::Warning,
                    message: format!(
                        "{}: the key does not hold {} (at most a hash of it), so the read takes \
                         every row of its prefix and filters them",
                        spec.label(),
                        missing.join(", ")
                    ),
                    source: GUIDE_SECONDARY,
                    fix: format!(
                        "put {} in the key after the salt, or keep a table keyed for this read",
                        missing.join(" + ")
                    ),
                });
            }
            // Rule 13: "latest" reads the key does not order newest first.
            if let (
                crate::workload::ReadKind::Latest { field, limit },
                crate::query::Access::Scans {
                    reversed, limit: l, ..
                },
            ) = (&spec.kind, &p.access)
            {
                if l.is_none() {
                    out.push(Finding {
                        rule: 13,
                        severity: Severity::Warning,
                        message: format!(
                            "{}: no '{field}' part follows {} in the key, so finding the newest {limit} reads every row they have",
                            spec.label(),
                            spec.fields.join(", ")
                        ),
                        source: GUIDE_REVERSE,
                        fix: format!("put reverse_ts({field}) right after {} in the key", spec.fields.join(" + ")),
                    });
                } else if *reversed {
                    out.push(Finding {
                        rule: 13,
                        severity: Severity::Info,
                        message: format!(
                            "{}: '{field}' ascends in the key, so the newest rows need a reversed scan",
                            spec.label()
                        ),
                        source: GUIDE_REVERSE,
                        fix: format!(
                            "reversed scans are slower than forward ones in HBase; reverse_ts({field}) puts the newest first"
                        ),
                    });
                }
            }
        }
    }
    out.sort_by(|a, b| b.severity.cmp(&a.severity).then(a.rule.cmp(&b.rule)));
    out
}

/// The monotonic field the key's first non-literal part encodes in order, if any, and
/// whether the encoding reverses it.
fn leading_monotonic(key: &Expr, monotonic: &[String]) -> Option<(String, bool)> {
    let part = key
        .parts()
        .iter()
        .find(|p| !matches!(p, Expr::Literal(_)))?;
    let is_mono = |e: Option<&Expr>| match e {
        Some(Expr::Field(f)) if monotonic.contains(f) => Some(f.clone()),
        _ => None,
    };
    match part {
        Expr::Field(_) => is_mono(Some(part)).map(|f| (f, false)),
        Expr::Slice(inner, start, _) if start.unwrap_or(0) == 0 => {
            is_mono(Some(inner)).map(|f| (f, false))
        }
        Expr::Call(
            Function::Pad | Function::Be64 | Function::Be32 | Function::Be16 | Function::Hex,
            args,
        ) => is_mono(args.first()).map(|f| (f, false)),
        Expr::Call(Function::Substr, args) if matches!(args.get(1), Some(Expr::Int(0))) => {
            is_mono(args.first()).map(|f| (f, false))
        }
        Expr::Call(Function::ReverseTs, args) => is_mono(args.first()).map(|f| (f, true)),
        _ => None,
    }
}

fn design_rules(design: &Design) -> Vec<Finding> {
    let mut out = Vec::new();
    let d = &design.descriptor;
    let key = &design.rowkey;
    let functions = key.functions();

    // Rule 2: split points outside the key's alphabet.
    let alphabet = leading_alphabet(key);
    let split_keys = design.split_keys().unwrap_or_default();
    if let PreSplit::Algorithm { algorithm, regions } = &design.presplit {
        let bad = match (alphabet, algorithm.as_str()) {
            (Alphabet::Constant, _) => {
                Some("every key starts with the same literal, so all of them land in one region")
            }
            (Alphabet::SmallBytes(_), "HexStringSplit" | "DecimalStringSplit") => Some(
                "the key starts with a salt byte below the split points' digits, so every key lands in the first region",
            ),
            (Alphabet::Decimal, "HexStringSplit") => Some(
                "the key starts with decimal digits, so the regions from 'a' to 'f' stay empty",
            ),
            (Alphabet::Hex | Alphabet::Decimal, "UniformSplit") => Some(
                "the key starts with printable digits, so the regions below '0' and above 'f' stay empty",
            ),
            (Alphabet::Hex, "DecimalStringSplit") => Some(
                "the key starts with hex digits, so keys from 'a' to 'f' all land in the last region",
            ),
            _ => None,
        };
        if let Some(why) = bad {
            out.push(Finding {
                rule: 2,
                severity: Severity::Error,
                message: format!("{algorithm} with {regions} regions: {why}"),
                source: GUIDE_SPLITS,
                fix:
                    "pre-split on the key's own alphabet: `regionkv lab splits` from sampled keys, \
                      or split points on the salt buckets"
                        .into(),
            });
        }
    }
    if let PreSplit::Keys(keys) = &design.presplit {
        let outside = keys.iter().filter(|k| !fits(alphabet, k)).count();
        if outside > 0 {
            out.push(Finding {
                rule: 2,
                severity: Severity::Warning,
                message: format!(
                    "{outside} of {} split points do not start with a byte the key can start with",
                    keys.len()
                ),
                source: GUIDE_SPLITS,
                fix: "pick split points from real keys (`regionkv lab splits`)".into(),
            });
        }
    }

    // Rule 3: random salt.
    if functions.iter().any(|f| f.is_random()) {
        out.push(Finding {
            rule: 3,
            severity: Severity::Warning,
            message: "a random salt: a get cannot compute the key again and must ask every bucket"
                .into(),
            source: GUIDE_SALT,
            fix: "salt with a hash of the key's other parts: hashmod(x, n) or salt(x, n)".into(),
        });
    }

    // Rule 4: bucket count vs range scans; pre-splits aligned to the buckets.
    if let Some(n) = salt_buckets(key) {
        out.push(Finding {
            rule: 4,
            severity: Severity::Info,
            message: format!("{n} salt buckets: every range scan becomes {n} scans, one a bucket"),
            source: OPENTSDB,
            fix: "keep the bucket count near the number of region servers (a multiple of it), \
                  and the range scans few"
                .into(),
        });
        let regions = split_keys.len() + 1;
        if let Some(salt) = crate::splits::Salt::of(key) {
            if regions == 1 {
                out.push(Finding {
                    rule: 4,
                    severity: Severity::Warning,
                    message: format!(
                        "the key starts with {n} salt buckets but the table is not pre-split: \
                         every bucket is in one region until it splits"
                    ),
                    source: OPENTSDB,
                    fix: "pre-split on the buckets (`regionkv lab splits --design ...`, or SPLITS \
                          at each bucket's prefix)"
                        .into(),
                });
            } else {
                let off = split_keys.iter().filter(|k| !salt.is_boundary(k)).count();
                if off > 0 {
                    out.push(Finding {
                        rule: 4,
                        severity: Severity::Warning,
                        message: format!(
                            "{off} of {} split points are not salt bucket boundaries: buckets \
                             are cut between regions",
                            split_keys.len()
                        ),
                        source: OPENTSDB,
                        fix: "split at the buckets' prefixes (`regionkv lab splits --design ...`)"
                            .into(),
                    });
                }
            }
        }
        if matches!(alphabet, Alphabet::SmallBytes(_) | Alphabet::Decimal)
            && regions > 1
            && !(regions as u32).is_multiple_of(n)
            && !n.is_multiple_of(regions as u32)
        {
            out.push(Finding {
                rule: 4,
                severity: Severity::Warning,
                message: format!(
                    "{regions} regions over {n} salt buckets: regions hold uneven shares of buckets"
                ),
                source: OPENTSDB,
                fix: "pre-split on bucket boundaries (`regionkv lab splits --design ...`)".into(),
            });
        }
    }

    // Rule 5: families.
    if d.families.len() > 3 {
        out.push(Finding {
            rule: 5,
            severity: Severity::Warning,
            message: format!(
                "{} column families: they flush together, so small ones are dragged along",
                d.families.len()
            ),
            source: GUIDE_CFS,
            fix: "keep to one or two families; put data read together in one".into(),
        });
    }

    // Rule 6: long names.
    for f in &d.families {
        if f.name.len() > 4 {
            out.push(Finding {
                rule: 6,
                severity: Severity::Info,
                message: format!(
                    "family '{}' has a {}-byte name, stored in every cell",
                    String::from_utf8_lossy(&f.name),
                    f.name.len()
                ),
                source: GUIDE_KEYSIZE,
                fix: "use a one-letter family name (e.g. 'd')".into(),
            });
        }
    }

    // Rule 7: numbers as strings, hex digests.
    if functions.contains(&Function::Pad) {
        out.push(Finding {
            rule: 7,
            severity: Severity::Info,
            message:
                "pad(): a number as zero-padded text takes up to 20 bytes where a long takes 8"
                    .into(),
            source: GUIDE_KEYSIZE,
            fix: "be64(n) keeps the order of non-negative numbers in 8 bytes".into(),
        });
    }
    if functions
        .iter()
        .any(|f| matches!(f, Function::Md5 | Function::Sha1))
        && !functions.contains(&Function::Substr)
    {
        out.push(Finding {
            rule: 7,
            severity: Severity::Info,
            message: "a whole hex digest in the key: twice the bytes of the raw digest".into(),
            source: GUIDE_KEYSIZE,
            fix: "md5_raw / sha1_raw, or a short prefix of the hex (substr(md5(x), 0, 4))".into(),
        });
    }

    // Rule 8: versions, MIN_VERSIONS, KEEP_DELETED_CELLS.
    for f in &d.families {
        family_rules(f, &mut out);
    }

    // Rule 9: TableDescriptorChecker's limits (a BLOCKSIZE outside 1 KB-16 MB and a TTL of
    // 0 are refused when the design is read).
    if d.max_file_size < 2 << 20 {
        out.push(Finding {
            rule: 9,
            severity: Severity::Error,
            message: format!("MAX_FILESIZE {} is below 2 MB", d.max_file_size),
            source: CHECKER,
            fix: "HBase refuses it (hbase.table.sanity.checks); use 1-20 GB".into(),
        });
    }
    if d.memstore_flush_size < 1 << 20 {
        out.push(Finding {
            rule: 9,
            severity: Severity::Error,
            message: format!("MEMSTORE_FLUSHSIZE {} is below 1 MB", d.memstore_flush_size),
            source: CHECKER,
            fix: "HBase refuses it; the default is 128 MB".into(),
        });
    }

    // Rule 11: huge regions.
    if d.max_file_size > 20 << 30 {
        out.push(Finding {
            rule: 11,
            severity: Severity::Warning,
            message: format!(
                "MAX_FILESIZE of {} GB: above the guide's 20 GB",
                d.max_file_size >> 30
            ),
            source: GUIDE_CAPACITY,
            fix: "regions of 5-10 GB; more regions rather than larger ones".into(),
        });
    }

    // Rule 10: cells and rows too large.
    let row_bytes: u64 = design
        .data
        .iter()
        .map(|f| u64::from(f.columns) * u64::from(f.value_size))
        .sum();
    if let Some(f) = design
        .data
        .iter()
        .find(|f| u64::from(f.value_size) > 10 << 20)
    {
        out.push(Finding {
            rule: 10,
            severity: Severity::Error,
            message: format!(
                "family '{}' writes cells of {} bytes (over 10 MB)",
                f.family, f.value_size
            ),
            source: BIGTABLE_LIMITS,
            fix: "keep large objects outside (a file store, or HBase MOB) and store a reference"
                .into(),
        });
    }
    if row_bytes > 100 << 20 {
        out.push(Finding {
            rule: 10,
            severity: Severity::Error,
            message: format!("each record writes a row of {row_bytes} bytes (over 100 MB)"),
            source: BIGTABLE_LIMITS,
            fix: "spread the record over several rows (a key part per chunk)".into(),
        });
    }

    // Rule 12: over-aggressive pre-splitting.
    let regions = split_keys.len() + 1;
    if regions > 200 {
        out.push(Finding {
            rule: 12,
            severity: Severity::Warning,
            message: format!("{regions} regions at creation"),
            source: GUIDE_CAPACITY,
            fix: "start with about one region per server for the table and let it split".into(),
        });
    }
    out
}

fn family_rules(f: &ColumnFamilyDescriptor, out: &mut Vec<Finding>) {
    let name = String::from_utf8_lossy(&f.name).into_owned();
    let forever = f.ttl_seconds == FOREVER;
    if f.max_versions >= 100 {
        out.push(Finding {
            rule: 8,
            severity: Severity::Warning,
            message: format!("family '{name}' keeps {} versions", f.max_versions),
            source: GUIDE_VERSIONS,
            fix: "keep few versions; model history as rows or columns instead".into(),
        });
    }
    if f.min_versions > 0 && forever {
        out.push(Finding {
            rule: 8,
            severity: Severity::Warning,
            message: format!(
                "family '{name}': MIN_VERSIONS {} without a TTL does nothing",
                f.min_versions
            ),
            source: GUIDE_VERSIONS,
            fix: "MIN_VERSIONS only matters with a TTL: set one, or drop MIN_VERSIONS".into(),
        });
    }
    if f.keep_deleted_cells == KeepDeletedCells::True && forever {
        out.push(Finding {
            rule: 8,
            severity: Severity::Warning,
            message: format!("family '{name}': KEEP_DELETED_CELLS TRUE without a TTL keeps deleted cells for ever"),
            source: GUIDE_VERSIONS,
            fix: "set a TTL, or KEEP_DELETED_CELLS => 'TTL'".into(),
        });
    }
    if f.max_versions > 1 && f.max_versions < 100 && forever {
        out.push(Finding {
            rule: 8,
            severity: Severity::Info,
            message: format!("family '{name}' keeps {} versions with no TTL: old versions stay until overwritten", f.max_versions),
            source: GUIDE_VERSIONS,
            fix: "a TTL bounds how long history is kept".into(),
        });
    }
}

/// The bucket count of the first salt the key uses.
fn salt_buckets(e: &Expr) -> Option<u32> {
    fn find(e: &Expr) -> Option<u32> {
        match e {
            Expr::Call(Function::Salt | Function::Bucket, args) => match args.get(1) {
                Some(Expr::Int(n)) => u32::try_from(*n).ok(),
                _ => None,
            },
            Expr::Call(Function::RandomSalt | Function::RandomBucket, args) => match args.first() {
                Some(Expr::Int(n)) => u32::try_from(*n).ok(),
                _ => None,
            },
            Expr::Call(_, parts) | Expr::Concat(parts) => parts.iter().find_map(find),
            Expr::Slice(inner, _, _) => find(inner),
            _ => None,
        }
    }
    find(e)
}

/// Whether split point `k` starts with a byte keys of `alphabet` can start with.
fn fits(alphabet: Alphabet, k: &[u8]) -> bool {
    let Some(&b) = k.first() else { return true };
    match alphabet {
        Alphabet::Hex => b.is_ascii_digit() || (b'a'..=b'f').contains(&b),
        Alphabet::Decimal => b.is_ascii_digit(),
        Alphabet::SmallBytes(n) => u32::from(b) < n,
        Alphabet::Constant | Alphabet::Unknown => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn design(
        rowkey: &str,
        families: &str,
        extra: &str,
    ) -> Result<Design, crate::design::DesignError> {
        let text = format!("table = \"t\"\nrowkey = \"{rowkey}\"\n{extra}\n{families}");
        Design::parse(&text, "lint.toml", Path::new("."))
    }

    fn rules(d: &Design) -> Vec<(u8, Severity)> {
        lint(d).into_iter().map(|f| (f.rule, f.severity)).collect()
    }

    const ONE: &str = "[families.d]\n";

    #[test]
    fn a_plain_design_has_no_findings() -> Result<(), Box<dyn std::error::Error>> {
        let d = design(
            "bucket(user, 8) + user + be64(ts)",
            ONE,
            "[presplit]\nSPLITS = [\"2\", \"4\", \"6\"]",
        )?;
        assert_eq!(rules(&d), [(4, Severity::Info)], "{:?}", lint(&d));
        let d = design("user + reverse_ts(ts)", ONE, "")?;
        assert!(lint(&d).is_empty(), "{:?}", lint(&d));
        Ok(())
    }

    #[test]
    fn rule_2_split_points_outside_the_key_alphabet() -> Result<(), Box<dyn std::error::Error>> {
        let hex_split = "[presplit]\nNUMREGIONS = 16\nSPLITALGO = \"HexStringSplit\"";
        // HexStringSplit over a constant prefix, a salt byte, decimal digits: errors.
        for key in ["'user' + id", "salt(id, 8) + id", "pad(id, 10)"] {
            let d = design(key, ONE, hex_split)?;
            assert!(
                rules(&d).contains(&(2, Severity::Error)),
                "{key}: {:?}",
                lint(&d)
            );
        }
        // ... but it fits an md5 hex prefix.
        let d = design("substr(md5(id), 0, 4) + id", ONE, hex_split)?;
        assert!(!rules(&d).iter().any(|r| r.0 == 2), "{:?}", lint(&d));
        // UniformSplit over printable hex: error; over raw bytes: fine.
        let uniform = "[presplit]\nNUMREGIONS = 8\nSPLITALGO = \"UniformSplit\"";
        assert!(rules(&design("md5(id)", ONE, uniform)?).contains(&(2, Severity::Error)));
        assert!(
            !rules(&design("md5_raw(id) + id", ONE, uniform)?)
                .iter()
                .any(|r| r.0 == 2)
        );
        // Explicit keys outside a salt byte's range: warning.
        let d = design("salt(id, 4) + id", ONE, "[presplit]\nSPLITS = [\"a\"]")?;
        assert!(
            rules(&d).contains(&(2, Severity::Warning)),
            "{:?}",
            lint(&d)
        );
        let d = design(
            "salt(id, 4) + id",
            ONE,
            "[presplit]\nSPLITS = [\"\\\\x02\"]",
        )?;
        assert!(!rules(&d).iter().any(|r| r.0 == 2), "{:?}", lint(&d));
        Ok(())
    }

    fn rules_with(
        d: &Design,
        workload: &str,
    ) -> Result<Vec<(u8, Severity)>, Box<dyn std::error::Error>> {
        let w = crate::workload::Workload::parse(workload, "w.toml")?;
        Ok(lint_with(d, Some(&w))
            .into_iter()
            .map(|f| (f.rule, f.severity))
            .collect())
    }

    const READS: &str = r#"
duration = "1m"
rate = 1
read_rate = 1
[fields]
user = { kind = "uniform", min = 0, max = 99 }
seq = { kind = "sequence" }
[[reads]]
kind = "latest"
fields = ["user"]
limit = 10
"#;

    #[test]
    fn rule_1_a_monotonic_field_leading_the_key() -> Result<(), Box<dyn std::error::Error>> {
        for key in [
            "ts + user",
            "'evt' + pad(id, 10)",
            "long(ts) + user",
            "reverse_ts(ts)",
        ] {
            assert!(
                rules(&design(key, ONE, "")?).contains(&(1, Severity::Error)),
                "{key}"
            );
        }
        // The workload's own sequence field, known with the workload only.
        let d = design("pad(seq, 10) + user", ONE, "")?;
        assert!(!rules(&d).iter().any(|r| r.0 == 1));
        assert!(rules_with(&d, READS)?.contains(&(1, Severity::Error)));
        for key in [
            "user + long(ts)",
            "bitreverse(id)",
            "hashmod(ts, 8) + long(ts)",
        ] {
            assert!(
                !rules(&design(key, ONE, "")?).iter().any(|r| r.0 == 1),
                "{key}"
            );
        }
        Ok(())
    }

    #[test]
    fn rule_10_cells_and_rows_too_large() -> Result<(), Box<dyn std::error::Error>> {
        let big = "[families.d]\nvalue_size = 11534336\n";
        assert!(rules(&design("user", big, "")?).contains(&(10, Severity::Error)));
        let wide = "[families.d]\nvalue_size = 9437184\ncolumns = 12\n";
        assert!(rules(&design("user", wide, "")?).contains(&(10, Severity::Error)));
        let fine = "[families.d]\nvalue_size = 9437184\n";
        assert!(!rules(&design("user", fine, "")?).iter().any(|r| r.0 == 10));
        Ok(())
    }

    #[test]
    fn rules_13_and_14_reads_the_key_cannot_serve() -> Result<(), Box<dyn std::error::Error>> {
        // Newest first after the user: nothing to say.
        let d = design("user + reverse_ts(ts)", ONE, "")?;
        assert!(
            !rules_with(&d, READS)?
                .iter()
                .any(|r| r.0 == 13 || r.0 == 14)
        );
        // Oldest first: a reversed scan (info).
        let d = design("user + long(ts)", ONE, "")?;
        assert!(rules_with(&d, READS)?.contains(&(13, Severity::Info)));
        // No time after the user: every row of the user (warning).
        let d = design("user + pad(id, 8)", ONE, "")?;
        assert!(rules_with(&d, READS)?.contains(&(13, Severity::Warning)));
        // The user is not in the key's lead: a full-table scan (error).
        let d = design("md5(id) + user + long(ts)", ONE, "")?;
        let found = rules_with(&d, READS)?;
        assert!(found.contains(&(14, Severity::Error)), "{found:?}");
        // A bucket of something the read does not know fans out, but is no full scan.
        let d = design("hashmod(id, 8) + user + reverse_ts(ts)", ONE, "")?;
        assert!(!rules_with(&d, READS)?.iter().any(|r| r.0 == 14));
        // The user only hashed: the read filters its bucket's rows.
        let d = design("hashmod(user, 8) + reverse_ts(ts)", ONE, "")?;
        assert!(rules_with(&d, READS)?.contains(&(14, Severity::Warning)));
        Ok(())
    }

    #[test]
    fn rules_3_and_4_salting() -> Result<(), Box<dyn std::error::Error>> {
        let d = design("random_salt(8) + id", ONE, "")?;
        assert!(rules(&d).contains(&(3, Severity::Warning)));
        assert!(rules(&d).contains(&(4, Severity::Info)));
        let d = design("salt(id, 8) + id", ONE, "")?;
        assert!(!rules(&d).iter().any(|r| r.0 == 3));
        // Three regions over eight buckets: uneven.
        let d = design(
            "salt(id, 8) + id",
            ONE,
            "[presplit]\nSPLITS = [\"\\\\x03\", \"\\\\x05\"]",
        )?;
        assert!(
            rules(&d).contains(&(4, Severity::Warning)),
            "{:?}",
            lint(&d)
        );
        let d = design(
            "salt(id, 8) + id",
            ONE,
            "[presplit]\nSPLITS = [\"\\\\x04\"]",
        )?;
        assert!(
            !rules(&d).contains(&(4, Severity::Warning)),
            "{:?}",
            lint(&d)
        );
        // Salt without pre-splits, and split points inside a bucket: warnings.
        let d = design("hashmod(id, 16) + id", ONE, "")?;
        assert!(
            rules(&d).contains(&(4, Severity::Warning)),
            "{:?}",
            lint(&d)
        );
        let d = design(
            "hashmod(id, 16) + id",
            ONE,
            "[presplit]\nSPLITS = [\"08\", \"12x\"]",
        )?;
        let found = lint(&d);
        assert!(
            found
                .iter()
                .any(|f| f.rule == 4 && f.message.starts_with("1 of 2 split points")),
            "{found:?}"
        );
        let d = design(
            "hashmod(id, 16) + id",
            ONE,
            "[presplit]\nSPLITS = [\"04\", \"08\", \"12\"]",
        )?;
        assert!(
            !rules(&d).contains(&(4, Severity::Warning)),
            "{:?}",
            lint(&d)
        );
        Ok(())
    }

    #[test]
    fn rules_5_6_7_families_names_and_encodings() -> Result<(), Box<dyn std::error::Error>> {
        let four = "[families.a]\n[families.b]\n[families.c]\n[families.d]\n";
        assert!(rules(&design("id", four, "")?).contains(&(5, Severity::Warning)));
        assert!(
            !rules(&design("id", "[families.a]\n[families.b]\n", "")?)
                .iter()
                .any(|r| r.0 == 5)
        );
        assert!(rules(&design("id", "[families.details]\n", "")?).contains(&(6, Severity::Info)));
        assert!(
            !rules(&design("id", "[families.d]\n", "")?)
                .iter()
                .any(|r| r.0 == 6)
        );
        assert!(rules(&design("pad(id, 12)", ONE, "")?).contains(&(7, Severity::Info)));
        assert!(rules(&design("md5(id)", ONE, "")?).contains(&(7, Severity::Info)));
        assert!(
            !rules(&design("be64(id) + substr(md5(id), 0, 2)", ONE, "")?)
                .iter()
                .any(|r| r.0 == 7)
        );
        Ok(())
    }

    #[test]
    fn rules_8_9_11_12_options() -> Result<(), Box<dyn std::error::Error>> {
        let fam = |attrs: &str| format!("[families.d]\n{attrs}\n");
        assert!(
            rules(&design("id", &fam("VERSIONS = 500"), "")?).contains(&(8, Severity::Warning))
        );
        assert!(
            rules(&design("id", &fam("MIN_VERSIONS = 1"), "")?).contains(&(8, Severity::Warning))
        );
        assert!(
            !rules(&design("id", &fam("MIN_VERSIONS = 1\nTTL = 600"), "")?)
                .iter()
                .any(|r| r.0 == 8)
        );
        assert!(
            rules(&design("id", &fam("KEEP_DELETED_CELLS = \"TRUE\""), "")?)
                .contains(&(8, Severity::Warning))
        );
        assert!(rules(&design("id", &fam("VERSIONS = 3"), "")?).contains(&(8, Severity::Info)));
        // The engine refuses a BLOCKSIZE outside 1 KB-16 MB when the design is read, as
        // HBase's TableDescriptorChecker does at create.
        let refused = design("id", &fam("BLOCKSIZE = 512"), "")
            .err()
            .ok_or("BLOCKSIZE 512 accepted")?;
        assert!(refused.to_string().contains("BLOCKSIZE"), "{refused}");
        let small = "[table_options]\nMAX_FILESIZE = 1048576\nMEMSTORE_FLUSHSIZE = 65536";
        let r = rules(&design("id", ONE, small)?);
        assert_eq!(
            r.iter().filter(|x| **x == (9, Severity::Error)).count(),
            2,
            "{r:?}"
        );
        let fine = "[table_options]\nMAX_FILESIZE = 2097152\nMEMSTORE_FLUSHSIZE = 1048576";
        assert!(!rules(&design("id", ONE, fine)?).iter().any(|r| r.0 == 9));
        let huge = "[table_options]\nMAX_FILESIZE = 32212254720";
        assert!(rules(&design("id", ONE, huge)?).contains(&(11, Severity::Warning)));
        let ten = "[table_options]\nMAX_FILESIZE = 10737418240";
        assert!(!rules(&design("id", ONE, ten)?).iter().any(|r| r.0 == 11));
        let many = "[presplit]\nNUMREGIONS = 256\nSPLITALGO = \"UniformSplit\"";
        assert!(rules(&design("md5_raw(id)", ONE, many)?).contains(&(12, Severity::Warning)));
        let few = "[presplit]\nNUMREGIONS = 16\nSPLITALGO = \"UniformSplit\"";
        assert!(
            !rules(&design("md5_raw(id)", ONE, few)?)
                .iter()
                .any(|r| r.0 == 12)
        );
        Ok(())
    }
}
