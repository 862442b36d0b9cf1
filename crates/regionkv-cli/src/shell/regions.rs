//! The region tools `flush`, `compact`, `major_compact`, `split` and `merge_region`, as
//! HBase 2.4's shell runs them (hbase-shell/src/main/ruby/shell/commands/{flush,compact,
//! major_compact,split,merge_region}.rb, `hbase/admin.rb` `flush`, `compact`,
//! `major_compact`, `split` and `merge_region`). All of them print nothing but the `Took`
//! line; regionkv runs them synchronously, so `get_splits`, `list_regions` and `status
//! 'detailed'` show what they did at once.
//!
//! NAME, the first argument of each but `merge_region`, is a table when a table of that name
//! exists, otherwise a region, given as its full name (`table,startKey,id.ENCODED.` as
//! `list_regions` prints it), that name without the `.ENCODED.` suffix (HBase's
//! `'tableName,startKey,id'`), or the encoded name alone.
//!
//! `flush NAME[, FAMILY]`, `compact NAME[, FAMILY[, TYPE]]`, `major_compact NAME[, FAMILY[,
//! TYPE]]`: every region of a table or the one region, all its families or only FAMILY.
//! TYPE is `NORMAL` (HBase's default); `MOB` is refused, as regionkv has no MOB families.
//!
//! `split NAME[, KEY]`: a table splits every region that has a split point (or, with KEY,
//! the region holding row KEY at KEY); a region splits at its split point or at KEY.
//!
//! `merge_region R1, R2[, ...][, force]` (or one array of names): two or more adjacent
//! regions, by full or encoded name, become one; a trailing `true` / `false` after more
//! than two arguments is the force flag, as in HBase.
//!
//! Errors read as HBase's shell prints them: `Unknown table t!`, `Unknown region r!`,
//! `Table t is disabled!`, an unknown family as HBase's `NoSuchColumnFamilyException`, and
//! the server's refusals with the class of the exception HBase's master throws for them
//! (`org.apache.hadoop.hbase.DoNotRetryIOException: Region not splittable because
//! bestSplitPoint = null, ...`).

use regionkv::RegionStatus;
use regionkv::cell::bytes::to_string_binary;

use super::args::{
    CmdError, CmdResult, arity, class_name, fail, inspect, string_arg, to_s, to_text, truthy,
};
use super::ddl::flatten;
use super::engine::{Engine, Ret, hbase_error};
use super::parse::Value;

/// The length of an encoded region name (HBase's MD5 hex; regionkv's two FNV-1a hashes).
const ENCODED_LEN: usize = 32;

/// HBase's `RegionInfo.isMD5Hash`: 32 hex digits (either case).
fn is_encoded_name(name: &[u8]) -> bool {
    name.len() == ENCODED_LEN && name.iter().all(u8::is_ascii_hexdigit)
}

/// A region name as the shell accepts it, split into its parts.
#[derive(Debug, Clone, PartialEq, Eq)]
struct RegionName {
    /// `table`, `startKey` (as typed) and `id` of a `table,startKey,id[.ENCODED.]` name.
    parts: Option<(String, Vec<u8>, u64)>,
    /// The encoded name (lower case): the whole name, or the `.ENCODED.` suffix.
    encoded: Option<String>,
}

/// Parses a full region name (`table,startKey,id.ENCODED.`), one without its encoded
/// suffix (`table,startKey,id`), or an encoded name. `None`: not a region name.
fn parse_region_name(name: &[u8]) -> Option<RegionName> {
    if is_encoded_name(name) {
        return Some(RegionName {
            parts: None,
            encoded: Some(String::from_utf8_lossy(name).to_ascii_lowercase()),
        });
    }
    // `...,id.` + 32 hex digits + `.`
    let suffix = ENCODED_LEN + 2;
    let (body, encoded) = match name.len().checked_sub(suffix) {
        Some(at)
            if name[at] == b'.'
                && name.last() == Some(&b'.')
                && is_encoded_name(&name[at + 1..name.len() - 1]) =>
        {
            let encoded = String::from_utf8_lossy(&name[at + 1..name.len() - 1]);
            (&name[..at], Some(encoded.to_ascii_lowercase()))
        }
        _ => (name, None),
    };
    // The table name has no comma and the id is digits, so the start key is everything
    // between the first and the last comma (it may hold commas itself).
    let first = body.iter().position(|&b| b == b',')?;
    let last = body.iter().rposition(|&b| b == b',')?;
    if last == first {
        return None;
    }
    let table = std::str::from_utf8(&body[..first]).ok()?;
    let id = &body[last + 1..];
    if table.is_empty() || id.is_empty() || !id.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let id = std::str::from_utf8(id).ok()?.parse().ok()?;
    Some(RegionName {
        parts: Some((table.to_string(), body[first + 1..last].to_vec(), id)),
        encoded,
    })
}

/// One region of the catalog or of an online table, with what a region name can match.
#[derive(Debug, Clone)]
struct Candidate {
    table: String,
    encoded: String,
    start_key: Vec<u8>,
    id: u64,
}

impl Candidate {
    /// The region of an online table, its id read back from its full name.
    fn of_status(table: &str, r: &RegionStatus) -> Option<Candidate> {
        let body = r.name.strip_suffix(&format!(".{}.", r.encoded_name))?;
        let id = body.rsplit_once(',')?.1.parse().ok()?;
        Some(Candidate {
            table: table.to_string(),
            encoded: r.encoded_name.clone(),
            start_key: r.start_key.clone(),
            id,
        })
    }

    /// Whether `name` names this region. The start key of a full name may be typed as the
    /// bytes themselves (`"r\x00"`) or as `list_regions` prints them (`'r\x00'`).
    fn matches(&self, name: &RegionName) -> bool {
        if let Some(encoded) = &name.encoded
            && *encoded != self.encoded
        {
            return false;
        }
        match &name.parts {
            None => true,
            Some((_, start, id)) => {
                *id == self.id
                    && (*start == self.start_key
                        || start.as_slice() == to_string_binary(&self.start_key).as_bytes())
            }
        }
    }
}

/// What a region name resolved to.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Resolved {
    /// An online region: its table and encoded name.
    Online { table: String, encoded: String },
    /// A region of a disabled table.
    Disabled { table: String },
    /// No such region.
    Unknown,
}

/// What the NAME argument of a region tool names.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Target {
    /// A table that exists, or a name that is no region name: the table form of the command
    /// runs (and reports a missing table as HBase does).
    Table(String),
    /// An online region: its table and encoded name.
    Region { table: String, encoded: String },
}

/// HBase's exception class for the refusals of a split or merge that its master throws
/// from `SplitTableRegionProcedure` and `MergeTableRegionsProcedure` (the shell prints
/// `class: message`). The others print bare, as HBase's client-side checks do; so does a
/// forcible merge of regions that are not adjacent, which HBase would run.
fn server_exception(e: &regionkv::Error) -> Option<&'static str> {
    use regionkv::{Error as E, MergeProblem as M, SplitProblem as S};
    match e {
        E::SplitRefused(
            S::NoSplitPoint { .. }
            | S::SplitRowIsStartKey { .. }
            | S::SplitRowOutsideRegion { .. }
            | S::HasReferences { .. },
        ) => Some("org.apache.hadoop.hbase.DoNotRetryIOException"),
        E::MergeRefused(
            M::NotAdjacent {
                forcible: false, ..
            }
            | M::HasReferences { .. }
            | M::DuplicateRegion { .. }
            | M::DifferentTables,
        ) => Some("org.apache.hadoop.hbase.exceptions.MergeRegionException"),
        _ => None,
    }
}

/// The message for an engine error of a split or merge of a region of `table`.
fn region_error(e: regionkv::Error, table: &str) -> CmdError {
    match server_exception(&e) {
        Some(class) => CmdError::Failed(format!("{class}: {e}")),
        None => hbase_error(e, table),
    }
}

/// The text of a name argument, for messages (HBase prints the Ruby string).
fn name_text(name: &[u8]) -> String {
    String::from_utf8_lossy(name).into_owned()
}

impl Engine {
    /// The regions of `table` a region name can match, and whether the table is enabled
    /// (a disabled table's regions come from the catalog file). No table: no regions.
    fn candidates(&self, table: &str) -> CmdResult<(Vec<Candidate>, bool)> {
        match self.db.admin().regions(table) {
            Ok(regions) => Ok((
                regions
                    .iter()
                    .filter_map(|r| Candidate::of_status(table, r))
                    .collect(),
                true,
            )),
            Err(regionkv::Error::TableNotFound(_)) => Ok((Vec::new(), true)),
            Err(regionkv::Error::TableNotEnabled(_)) => {
                let regions = self
                    .db
                    .admin()
                    .table_regions(table)
                    .map_err(|e| hbase_error(e, table))?
                    .into_iter()
                    .map(|r| Candidate {
                        table: table.to_string(),
                        encoded: r.encoded_name,
                        start_key: r.start_key,
                        id: r.region_id,
                    })
                    .collect();
                Ok((regions, false))
            }
            Err(e) => Err(hbase_error(e, table)),
        }
    }

    /// Finds the region `name` names, in its table (a name with parts) or in every table
    /// (an encoded name).
    fn resolve_region(&self, name: &[u8]) -> CmdResult<Resolved> {
        let Some(parsed) = parse_region_name(name) else {
            return Ok(Resolved::Unknown);
        };
        let tables = match &parsed.parts {
            Some((table, _, _)) => match regionkv::db::canonical_table_name(table) {
                Ok(table) => vec![table],
                Err(_) => return Ok(Resolved::Unknown),
            },
            None => self
                .db
                .admin()
                .list_tables()
                .map_err(|e| hbase_error(e, ""))?,
        };
        for table in tables {
            let (candidates, enabled) = self.candidates(&table)?;
            if let Some(c) = candidates.into_iter().find(|c| c.matches(&parsed)) {
                return Ok(if enabled {
                    Resolved::Online {
                        table: c.table,
                        encoded: c.encoded,
                    }
                } else {
                    Resolved::Disabled { table: c.table }
                });
            }
        }
        Ok(Resolved::Unknown)
    }

    /// An online region by name, or the error HBase's shell prints.
    fn online_region(&self, name: &[u8]) -> CmdResult<(String, String)> {
        match self.resolve_region(name)? {
            Resolved::Online { table, encoded } => Ok((table, encoded)),
            Resolved::Disabled { table } => fail(format!("Table {table} is disabled!")),
            Resolved::Unknown => fail(format!("Unknown region {}!", name_text(name))),
        }
    }

    /// What `name` names: a table when one of that name exists, else a region. HBase tries
    /// the name as a region first and falls back to a table when no region has it; a table
    /// name is never a region name of a table, so the order differs only for a table named
    /// by 32 hex digits, which HBase would take as a region.
    fn target(&self, name: &[u8]) -> CmdResult<Target> {
        let text = name_text(name);
        if self.db.admin().table_exists(&text).unwrap_or(false)
            || (parse_region_name(name).is_none() && !name.contains(&b','))
        {
            return Ok(Target::Table(text));
        }
        let (table, encoded) = self.online_region(name)?;
        Ok(Target::Region { table, encoded })
    }

    /// Fails with HBase's `NoSuchColumnFamilyException` when table `name` has no family
    /// `family` (a missing table fails as `Unknown table name!`).
    fn check_family(&self, name: &str, family: &[u8]) -> CmdResult<()> {
        let desc = self
            .db
            .admin()
            .describe(name)
            .map_err(|e| hbase_error(e, name))?;
        if desc.family(family).is_none() {
            return fail(format!(
                "org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException: \
                 Column family {} does not exist in table {name}",
                to_string_binary(family)
            ));
        }
        Ok(())
    }

    /// `flush 'table'`, `flush 'table', 'family'`, `flush 'region'`, `flush 'region',
    /// 'family'` (full, `table,startKey,id` or encoded region names).
    pub(super) fn flush(&self, args: &[Value]) -> CmdResult<Ret> {
        arity(args, 1, Some(2))?;
        string_arg(&args[0], "Table or region name")?;
        let family = args.get(1).filter(|v| truthy(v)).map(to_s);
        let admin = self.db.admin();
        match self.target(&to_s(&args[0]))? {
            Target::Table(name) => {
                let result = match &family {
                    Some(family) => {
                        self.check_family(&name, family)?;
                        admin.flush_family(&name, family)
                    }
                    None => admin.flush(&name),
                };
                result.map_err(|e| hbase_error(e, &name))?;
            }
            Target::Region { table, encoded } => admin
                .flush_region(&encoded, family.as_deref())
                .map_err(|e| hbase_error(e, &table))?,
        }
        // A flush that left a store with enough files asked for a system compaction, as
        // HBase's does. HBase's shell returns while it runs; this one waits for it, as its
        // `compact` waits for the compaction it asks for, so that what a script prints
        // next does not depend on timing.
        self.db.wait_for_background_work();
        Ok(Ret::Nil)
    }

    /// `compact` / `major_compact` (`major`) of `'table'` or `'region'`, optionally of one
    /// family, and with HBase's third argument, the compaction type: `'NORMAL'`, or `'MOB'`,
    /// which regionkv refuses.
    pub(super) fn compact(&self, args: &[Value], major: bool) -> CmdResult<Ret> {
        arity(args, 1, Some(3))?;
        string_arg(&args[0], "Table or region name")?;
        // admin.rb checks the type before anything else.
        match args.get(2).map(to_text).as_deref() {
            None | Some("NORMAL") => {}
            Some("MOB") => {
                return fail(
                    "MOB compactions are not supported by regionkv (it has no MOB column families)",
                );
            }
            Some(_) => return fail("only NORMAL or MOB accepted for type!"),
        }
        let family = args.get(1).filter(|v| truthy(v)).map(to_s);
        let admin = self.db.admin();
        match self.target(&to_s(&args[0]))? {
            Target::Table(name) => {
                let result = match &family {
                    Some(family) => {
                        self.check_family(&name, family)?;
                        admin.compact_family(&name, family, major)
                    }
                    None if major => admin.major_compact(&name),
                    None => admin.compact(&name),
                };
                result.map_err(|e| hbase_error(e, &name))?;
            }
            Target::Region { table, encoded } => admin
                .compact_region(&encoded, family.as_deref(), major)
                .map_err(|e| hbase_error(e, &table))?,
        }
        Ok(Ret::Nil)
    }

    /// `split 'table'`, `split 'table', 'key'`, `split 'region'`, `split 'region', 'key'`.
    pub(super) fn split(&self, args: &[Value]) -> CmdResult<Ret> {
        arity(args, 1, Some(2))?;
        string_arg(&args[0], "Table or region name")?;
        let name = to_s(&args[0]);
        let key = match args.get(1) {
            None | Some(Value::Nil) => None,
            Some(v) => {
                string_arg(v, "Split key")?;
                Some(to_s(v))
            }
        };
        let admin = self.db.admin();
        match self.target(&name)? {
            Target::Table(text) => {
                if !admin.table_exists(&text).unwrap_or(false) {
                    // Neither a table nor a region name: HBase's `Admin.split(TableName)`
                    // fails with TableNotFoundException.
                    return fail(format!("Unknown table {text}!"));
                }
                let result = match &key {
                    Some(key) => admin.split_at(&text, key).map(|_| ()),
                    None => admin.split(&text).map(|_| ()),
                };
                result.map_err(|e| region_error(e, &text))?;
            }
            Target::Region { table, encoded } => {
                admin
                    .split_region(&encoded, key.as_deref())
                    .map_err(|e| region_error(e, &table))?;
            }
        }
        Ok(Ret::Nil)
    }

    /// `merge_region 'A', 'B'[, ...][, force]` and `merge_region ['A', 'B', ...][, force]`.
    pub(super) fn merge_region(&self, args: &[Value]) -> CmdResult<Ret> {
        // merge_region.rb: `args.flatten.compact`, a trailing boolean after more than two
        // arguments is `force`.
        let mut names = flatten(args);
        if names.len() < 2 {
            return fail("Must pass at least 2 regions to merge");
        }
        let mut force = false;
        if names.len() > 2
            && let Some(Value::Bool(b)) = names.last()
        {
            force = *b;
            names.pop();
        }
        // admin.rb `merge_region`: every name must be a String.
        let mut regions = Vec::with_capacity(names.len());
        for v in &names {
            match v {
                Value::Str(_) | Value::Const(_) => regions.push(to_s(v)),
                other => {
                    return fail(format!(
                        "Type of {} is {}, but expected String",
                        inspect(other),
                        class_name(other)
                    ));
                }
            }
        }
        let mut table = String::new();
        let mut encoded = Vec::with_capacity(regions.len());
        for name in &regions {
            let (t, e) = self.online_region(name)?;
            table = t;
            encoded.push(e);
        }
        let encoded: Vec<&str> = encoded.iter().map(String::as_str).collect();
        self.db
            .admin()
            .merge_regions(&encoded, force)
            .map_err(|e| region_error(e, &table))?;
        Ok(Ret::Nil)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    const ENC: &str = "2f6e911b1da6725237d4e0e5b16a45f1";

    fn parts(table: &str, start: &[u8], id: u64) -> Option<(String, Vec<u8>, u64)> {
        Some((table.to_string(), start.to_vec(), id))
    }

    #[test]
    fn region_names_in_every_form() {
        assert_eq!(
            parse_region_name(ENC.as_bytes()),
            Some(RegionName {
                parts: None,
                encoded: Some(ENC.to_string()),
            })
        );
        assert_eq!(
            parse_region_name(ENC.to_uppercase().as_bytes())
                .unwrap()
                .encoded
                .as_deref(),
            Some(ENC)
        );
        let full = format!("t1,row10,1700000000001.{ENC}.");
        assert_eq!(
            parse_region_name(full.as_bytes()),
            Some(RegionName {
                parts: parts("t1", b"row10", 1_700_000_000_001),
                encoded: Some(ENC.to_string()),
            })
        );
        assert_eq!(
            parse_region_name(b"ns:t1,,5"),
            Some(RegionName {
                parts: parts("ns:t1", b"", 5),
                encoded: None,
            })
        );
        // Commas and dots in the start key.
        assert_eq!(
            parse_region_name(b"t,a,b.c,7").unwrap().parts,
            parts("t", b"a,b.c", 7)
        );
        for bad in [
            &b"t1"[..],
            b"t1,row",
            b"t1,row,",
            b"t1,row,12x",
            b",row,12",
            b"2f6e911b1da6725237d4e0e5b16a45f",
        ] {
            assert_eq!(parse_region_name(bad), None, "{}", name_text(bad));
        }
    }

    #[test]
    fn candidates_match_start_keys_as_bytes_or_as_printed() {
        let c = Candidate {
            table: "t".into(),
            encoded: ENC.into(),
            start_key: b"r\x00".to_vec(),
            id: 9,
        };
        let name = |s: &[u8]| parse_region_name(s).unwrap();
        assert!(c.matches(&name(b"t,r\x00,9")));
        assert!(c.matches(&name(b"t,r\\x00,9")));
        assert!(c.matches(&name(ENC.as_bytes())));
        assert!(c.matches(&name(format!("t,r\\x00,9.{ENC}.").as_bytes())));
        assert!(!c.matches(&name(b"t,r\x00,8")));
        assert!(!c.matches(&name(b"t,r,9")));
        let other = "0".repeat(32);
        assert!(!c.matches(&name(format!("t,r\\x00,9.{other}.").as_bytes())));
    }

    #[test]
    fn refusals_carry_hbase_exception_classes() {
        use regionkv::{Error, MergeProblem, SplitProblem};
        let text = |e| match region_error(e, "t") {
            CmdError::Failed(m) => m,
            CmdError::Io(e) => e.to_string(),
        };
        assert_eq!(
            text(Error::SplitRefused(SplitProblem::SplitRowIsStartKey {
                row: "b".into()
            })),
            "org.apache.hadoop.hbase.DoNotRetryIOException: Split row is equal to startkey: b"
        );
        assert_eq!(
            text(Error::SplitRefused(SplitProblem::HasReferences {
                region: "abc".into()
            })),
            "org.apache.hadoop.hbase.DoNotRetryIOException: abc NOT splittable: it still has \
             references to its parent's files; compact it first"
        );
        let not_adjacent = |forcible| {
            Error::MergeRefused(MergeProblem::NotAdjacent {
                first: "a".into(),
                second: "b".into(),
                forcible,
            })
        };
        assert_eq!(
            text(not_adjacent(false)),
            "org.apache.hadoop.hbase.exceptions.MergeRegionException: Unable to merge \
             non-adjacent or non-overlapping regions 'a', 'b' when force=false"
        );
        assert!(text(not_adjacent(true)).starts_with("regionkv cannot force-merge"));
        assert_eq!(
            text(Error::MergeRefused(MergeProblem::DifferentTables)),
            "org.apache.hadoop.hbase.exceptions.MergeRegionException: Can't merge regions from \
             different tables"
        );
        assert_eq!(
            text(Error::SplitRefused(SplitProblem::EmptySplitRow)),
            "Split row cannot be null"
        );
        assert_eq!(
            text(Error::MergeRefused(MergeProblem::TooFewRegions)),
            "Need at least two regions to merge"
        );
    }
}
