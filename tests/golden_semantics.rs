//! Golden HBase scenarios (STYLE.md §2.25): HBase's own test cases (TestKeepDeletes,
//! TestMinVersions, the reference guide's KEEP_DELETED_CELLS examples), one per file in
//! `tests/testdata/semantics/*.txt`, written in a small line notation (documented in
//! `tests/testdata/semantics/README.md`; the lines are parsed and rewritten by
//! `regionkv_testkit::datadriven`): the table's families, then writes, flushes,
//! compactions, clock moves and reads, each read followed by the cells HBase returns
//! (`> row/fam:qual/ts/Type=value`, or `> (none)`).
//!
//! Every file is played against the engine (`regionkv_region::Region` on `MemFs` with a
//! `ManualClock`, no background flusher) and against the reference model
//! (`regionkv_testkit::model`). Both must print exactly the expected lines; a failure names
//! the file, the line of the read, which side disagreed, and a diff (`-` expected,
//! `+` actual).
//!
//! * `REGIONKV_REWRITE=1 cargo test --test golden_semantics` rewrites every expected block
//!   from the ENGINE's output. It still fails when the engine and the model disagree, and
//!   it never rewrites a skipped file. The expected lines are meant to be HBase facts:
//!   review a rewrite against the HBase test before keeping it.
//! * A file whose first line is `# skip: engine bug: <one line>` keeps the HBase-correct
//!   expectations the engine does not meet yet: the model must still match them, the
//!   engine's result is only reported (with a note once it passes, so the skip can go).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use regionkv_cell::{Cell, CellType, ManualClock, SharedClock, TimeRange};
use regionkv_fs::{Fs, MemFs};
use regionkv_region::Durability;
use regionkv_region::descriptor::FOREVER;
use regionkv_region::{
    ColumnFamilyDescriptor, KeepDeletedCells, ReadQuery, RecoveredWal, Region, RegionInfo,
    RegionScan, RegionServices, TableDescriptor, recover_wal,
};
use regionkv_testkit::datadriven::{self, diff};
use regionkv_testkit::model::{
    self, CellSpec, FamilyOptions, Model, ModelCell, ModelError, ModelScan, Query,
};
use regionkv_wal::{RecoveryMode, Wal, WalConfig};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The clock when a file sets none (ms).
const DEFAULT_CLOCK: i64 = 1_000;
/// `versions=all`: HBase's `setMaxVersions()` / `readAllVersions()`.
const ALL_VERSIONS: u32 = i32::MAX as u32;
/// The first line of a file the engine is known to fail.
const SKIP_PREFIX: &str = "# skip: engine bug:";
/// What a raw read naming columns fails with (HBase's `StoreScanner`).
const RAW_WITH_COLUMNS: &str = "Cannot specify any column for a raw scan";

// ---------------------------------------------------------------------------------------
// The notation
// ---------------------------------------------------------------------------------------

/// One `family` line.
#[derive(Debug, Clone)]
struct FamilyDef {
    name: Vec<u8>,
    versions: u32,
    min_versions: u32,
    /// Seconds; `None` is FOREVER.
    ttl: Option<u32>,
    kdc: model::KeepDeletedCells,
}

/// One cell of a write.
#[derive(Debug, Clone)]
struct CellDef {
    family: Vec<u8>,
    qualifier: Vec<u8>,
    ts: i64,
    kind: CellType,
    value: Vec<u8>,
}

/// Columns, versions, time range, raw.
#[derive(Debug, Clone, Default)]
struct ReadDef {
    /// Family → qualifiers (empty: the whole family). Empty map: every family.
    families: BTreeMap<Vec<u8>, Vec<Vec<u8>>>,
    versions: Option<u32>,
    time_range: Option<(i64, i64)>,
    raw: bool,
}

#[derive(Debug, Clone, Default)]
struct ScanDef {
    start: Vec<u8>,
    stop: Vec<u8>,
    reversed: bool,
    limit: Option<u64>,
}

#[derive(Debug, Clone)]
enum Op {
    Clock(i64),
    Mutate {
        row: Vec<u8>,
        cells: Vec<CellDef>,
    },
    Flush,
    /// All files of one family, or of every family.
    CompactMajor(Option<Vec<u8>>),
    /// These files (indexes in HBase's order, oldest first) of one family.
    CompactMinor(Vec<u8>, Vec<usize>),
    Get(Vec<u8>, ReadDef),
    Scan(ScanDef, ReadDef),
}

impl Op {
    fn is_read(&self) -> bool {
        matches!(self, Op::Get(..) | Op::Scan(..))
    }
}

/// One step: its line (1-based) and text, the operation, and for reads the expected lines.
#[derive(Debug)]
struct Step {
    line: usize,
    text: String,
    op: Op,
    expected: Option<Vec<String>>,
}

#[derive(Debug)]
struct Scenario {
    /// `Some(reason)` when the first line is a skip line.
    skip: Option<String>,
    families: Vec<FamilyDef>,
    start_clock: i64,
    steps: Vec<Step>,
}

fn kv<'a>(token: &'a str, key: &str) -> Option<&'a str> {
    token.strip_prefix(key).and_then(|t| t.strip_prefix('='))
}

fn num<T: std::str::FromStr>(s: &str, what: &str) -> Result<T, String> {
    s.parse()
        .map_err(|_| format!("{what}: `{s}` is not a number"))
}

/// `FAM:QUAL` (the qualifier may be empty).
fn column(token: &str) -> Result<(Vec<u8>, Vec<u8>), String> {
    let (f, q) = token
        .split_once(':')
        .ok_or_else(|| format!("`{token}` is not FAMILY:QUALIFIER"))?;
    Ok((f.as_bytes().to_vec(), q.as_bytes().to_vec()))
}

fn cell_type(name: &str) -> Result<CellType, String> {
    Ok(match name {
        "Delete" => CellType::Delete,
        "DeleteColumn" => CellType::DeleteColumn,
        "DeleteFamily" => CellType::DeleteFamily,
        "DeleteFamilyVersion" => CellType::DeleteFamilyVersion,
        other => return Err(format!("unknown delete type `{other}`")),
    })
}

fn parse_family(args: &[&str]) -> Result<FamilyDef, String> {
    let (name, opts) = args.split_first().ok_or("family: missing name")?;
    let mut f = FamilyDef {
        name: name.as_bytes().to_vec(),
        versions: 1,
        min_versions: 0,
        ttl: None,
        kdc: model::KeepDeletedCells::False,
    };
    for o in opts {
        if let Some(v) = kv(o, "VERSIONS") {
            f.versions = num(v, "VERSIONS")?;
        } else if let Some(v) = kv(o, "MIN_VERSIONS") {
            f.min_versions = num(v, "MIN_VERSIONS")?;
        } else if let Some(v) = kv(o, "TTL") {
            f.ttl = if v.eq_ignore_ascii_case("forever") {
                None
            } else {
                Some(num(v, "TTL")?)
            };
        } else if let Some(v) = kv(o, "KEEP_DELETED_CELLS") {
            f.kdc = match v.to_ascii_uppercase().as_str() {
                "FALSE" => model::KeepDeletedCells::False,
                "TRUE" => model::KeepDeletedCells::True,
                "TTL" => model::KeepDeletedCells::Ttl,
                _ => return Err(format!("KEEP_DELETED_CELLS: `{v}`")),
            };
        } else {
            return Err(format!("family: unknown option `{o}`"));
        }
    }
    Ok(f)
}

/// `put FAM:QUAL ts=N v=VALUE` or `delete FAM:QUAL ts=N type=TYPE` (after the row).
fn parse_cell(words: &[&str]) -> Result<CellDef, String> {
    let (verb, rest) = words.split_first().ok_or("empty cell")?;
    let (col, opts) = rest.split_first().ok_or("missing FAMILY:QUALIFIER")?;
    let (family, qualifier) = column(col)?;
    let mut ts = None;
    let mut value = None;
    let mut kind = None;
    for o in opts {
        if let Some(v) = kv(o, "ts") {
            ts = Some(num(v, "ts")?);
        } else if let Some(v) = kv(o, "v") {
            value = Some(v.as_bytes().to_vec());
        } else if let Some(v) = kv(o, "type") {
            kind = Some(cell_type(v)?);
        } else {
            return Err(format!("{verb}: unknown option `{o}`"));
        }
    }
    let ts = ts.ok_or_else(|| format!("{verb}: ts= is required"))?;
    match *verb {
        "put" => {
            if kind.is_some() {
                return Err("put: type= is for deletes".into());
            }
            Ok(CellDef {
                family,
                qualifier,
                ts,
                kind: CellType::Put,
                value: value.ok_or("put: v= is required")?,
            })
        }
        "delete" => {
            if value.is_some() {
                return Err("delete: markers have no value".into());
            }
            Ok(CellDef {
                family,
                qualifier,
                ts,
                kind: kind.ok_or("delete: type= is required")?,
                value: Vec::new(),
            })
        }
        other => Err(format!("unknown cell verb `{other}`")),
    }
}

/// The read options shared by get and scan; scan bounds go to `scan` (when given).
fn parse_read(opts: &[&str], mut scan: Option<&mut ScanDef>) -> Result<ReadDef, String> {
    let mut r = ReadDef::default();
    for o in opts {
        if *o == "raw" {
            r.raw = true;
        } else if let Some(v) = kv(o, "versions") {
            r.versions = Some(if v == "all" {
                ALL_VERSIONS
            } else {
                num(v, "versions")?
            });
        } else if let Some(v) = kv(o, "timerange") {
            let (a, b) = v
                .split_once(',')
                .ok_or_else(|| format!("timerange=MIN,MAX, not `{v}`"))?;
            r.time_range = Some((num(a, "timerange")?, num(b, "timerange")?));
        } else if let Some(v) = kv(o, "columns") {
            for c in v.split(',') {
                match c.split_once(':') {
                    Some((f, q)) => r
                        .families
                        .entry(f.as_bytes().to_vec())
                        .or_default()
                        .push(q.as_bytes().to_vec()),
                    None => {
                        r.families.entry(c.as_bytes().to_vec()).or_default();
                    }
                }
            }
        } else if let Some(s) = scan.as_deref_mut() {
            if let Some(v) = kv(o, "start") {
                s.start = v.as_bytes().to_vec();
            } else if let Some(v) = kv(o, "stop") {
                s.stop = v.as_bytes().to_vec();
            } else if *o == "reversed" {
                s.reversed = true;
            } else if let Some(v) = kv(o, "limit") {
                s.limit = Some(num(v, "limit")?);
            } else {
                return Err(format!("scan: unknown option `{o}`"));
            }
        } else {
            return Err(format!("get: unknown option `{o}`"));
        }
    }
    Ok(r)
}

/// `[put ...] [delete ...]` groups of a `mutate` line.
fn parse_groups(rest: &str) -> Result<Vec<CellDef>, String> {
    let mut cells = Vec::new();
    let mut s = rest.trim();
    while !s.is_empty() {
        let inner = s
            .strip_prefix('[')
            .ok_or_else(|| format!("mutate: expected `[` at `{s}`"))?;
        let (group, after) = inner.split_once(']').ok_or("mutate: unclosed `[`")?;
        let words: Vec<&str> = group.split_whitespace().collect();
        cells.push(parse_cell(&words)?);
        s = after.trim_start();
    }
    if cells.is_empty() {
        return Err("mutate: no cells".into());
    }
    Ok(cells)
}

fn parse_op(line: &str) -> Result<Option<Op>, String> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let Some((&verb, args)) = words.split_first() else {
        return Ok(None);
    };
    let row = |i: usize| -> Result<Vec<u8>, String> {
        args.get(i)
            .map(|r| r.as_bytes().to_vec())
            .ok_or_else(|| format!("{verb}: missing row"))
    };
    let indexes = |files: &str| -> Result<Vec<usize>, String> {
        files.split(',').map(|i| num(i, "file index")).collect()
    };
    Ok(Some(match verb {
        "clock" => Op::Clock(num(args.first().ok_or("clock: missing ms")?, "clock")?),
        "put" | "delete" => {
            let mut cell_words = vec![verb];
            cell_words.extend_from_slice(args.get(1..).unwrap_or_default());
            Op::Mutate {
                row: row(0)?,
                cells: vec![parse_cell(&cell_words)?],
            }
        }
        "mutate" => {
            let r = row(0)?;
            let rest = line
                .trim_start()
                .strip_prefix("mutate")
                .and_then(|s| s.trim_start().strip_prefix(args[0]))
                .ok_or("mutate: malformed")?;
            Op::Mutate {
                row: r,
                cells: parse_groups(rest)?,
            }
        }
        "flush" if args.is_empty() => Op::Flush,
        "compact" => match args {
            ["major"] => Op::CompactMajor(None),
            ["major", fam] => Op::CompactMajor(Some(fam.as_bytes().to_vec())),
            ["minor", files] => Op::CompactMinor(Vec::new(), indexes(files)?),
            ["minor", fam, files] => Op::CompactMinor(fam.as_bytes().to_vec(), indexes(files)?),
            _ => return Err("compact major [FAMILY] | compact minor [FAMILY] I,J,..".into()),
        },
        "get" => Op::Get(
            row(0)?,
            parse_read(args.get(1..).unwrap_or_default(), None)?,
        ),
        "scan" => {
            let mut s = ScanDef::default();
            let r = parse_read(args, Some(&mut s))?;
            Op::Scan(s, r)
        }
        other => return Err(format!("unknown step `{other}`")),
    }))
}

/// The scenario of a file. The line notation (commands, ` #` comments, `>` blocks) is
/// `regionkv_testkit::datadriven`'s; what each command means is this file's.
fn parse(text: &str) -> Result<Scenario, String> {
    let first = text.lines().next().unwrap_or_default();
    if !first.starts_with('#') {
        return Err("line 1: a scenario starts with `#` lines naming the HBase test".into());
    }
    let skip = first
        .strip_prefix(SKIP_PREFIX)
        .map(|reason| reason.trim().to_string());
    let mut sc = Scenario {
        skip,
        families: Vec::new(),
        start_clock: DEFAULT_CLOCK,
        steps: Vec::new(),
    };
    for step in datadriven::parse(text).map_err(|e| e.to_string())? {
        let n = step.line;
        // Only reads print: a block after any other line is misplaced.
        let misplaced_block = || {
            format!(
                "line {}: `>` lines must directly follow a get or scan",
                step.expected_line.unwrap_or(n)
            )
        };
        if step.command == "family" {
            if !sc.steps.is_empty() {
                return Err(format!("line {n}: `family` lines come before the steps"));
            }
            if step.expected.is_some() {
                return Err(misplaced_block());
            }
            let args: Vec<&str> = step.args.iter().map(String::as_str).collect();
            sc.families
                .push(parse_family(&args).map_err(|e| format!("line {n}: {e}"))?);
            continue;
        }
        let mut op = parse_op(&step.text)
            .map_err(|e| format!("line {n}: {e}"))?
            .ok_or_else(|| format!("line {n}: empty step"))?;
        if let Op::CompactMinor(fam, _) = &mut op
            && fam.is_empty()
        {
            match sc.families.as_slice() {
                [only] => *fam = only.name.clone(),
                _ => return Err(format!("line {n}: compact minor: name the family")),
            }
        }
        if step.expected.is_some() && !op.is_read() {
            return Err(misplaced_block());
        }
        if let (Op::Clock(t), true) = (&op, sc.steps.is_empty()) {
            sc.start_clock = *t;
            continue;
        }
        sc.steps.push(Step {
            line: n,
            text: step.text,
            op,
            expected: step.expected,
        });
    }
    if sc.families.is_empty() {
        return Err("no `family` line".into());
    }
    Ok(sc)
}

// ---------------------------------------------------------------------------------------
// Printing cells
// ---------------------------------------------------------------------------------------

/// HBase's `Bytes.toStringBinary`: printable ASCII as is, other bytes `\xHH`.
fn binary(b: &[u8]) -> String {
    let mut s = String::new();
    for &c in b {
        if (0x20..0x7f).contains(&c) && c != b'\\' {
            s.push(c as char);
        } else {
            write!(s, "\\x{c:02X}").unwrap();
        }
    }
    s
}

fn cell_line(row: &[u8], fam: &[u8], qual: &[u8], ts: i64, kind: CellType, value: &[u8]) -> String {
    format!(
        "{}/{}:{}/{ts}/{}={}",
        binary(row),
        binary(fam),
        binary(qual),
        kind.name(),
        binary(value)
    )
}

fn result_lines(cells: Vec<String>) -> Vec<String> {
    if cells.is_empty() {
        vec!["(none)".to_string()]
    } else {
        cells
    }
}

// ---------------------------------------------------------------------------------------
// The two sides
// ---------------------------------------------------------------------------------------

/// One region on `MemFs` with a manual clock and no background flusher (the setup of
/// `crates/regionkv-region/tests/common`).
struct Engine {
    region: Arc<Region>,
    clock: ManualClock,
    _wal: Arc<Wal>,
}

fn engine_of(families: &[FamilyDef], now: i64) -> Result<Engine, String> {
    let e = |e: regionkv_region::Error| e.to_string();
    let fs: Arc<dyn Fs> = Arc::new(MemFs::new());
    let root = Path::new("/db");
    fs.create_dir_all(root).map_err(|e| e.to_string())?;
    let RecoveredWal { wal, .. } = recover_wal(
        fs.clone(),
        &root.join("wal"),
        WalConfig::default(),
        RecoveryMode::TolerateCorruptedTail,
    )
    .map_err(e)?;
    let clock = ManualClock::new(now);
    let mut descriptors = Vec::new();
    for f in families {
        let mut d = ColumnFamilyDescriptor::new(&f.name).map_err(|e| e.to_string())?;
        d.max_versions = f.versions;
        d.min_versions = f.min_versions;
        d.ttl_seconds = f.ttl.unwrap_or(FOREVER);
        d.keep_deleted_cells = match f.kdc {
            model::KeepDeletedCells::False => KeepDeletedCells::False,
            model::KeepDeletedCells::True => KeepDeletedCells::True,
            model::KeepDeletedCells::Ttl => KeepDeletedCells::Ttl,
        };
        descriptors.push(d);
    }
    let table = TableDescriptor::new("t1", descriptors).map_err(|e| e.to_string())?;
    let services = RegionServices::new(
        fs.clone(),
        wal.clone(),
        Arc::new(clock.clone()) as SharedClock,
    );
    let info = RegionInfo::whole_table("t1", 1);
    let region =
        Region::create(&root.join("data/default/t1/r"), info, table, services).map_err(e)?;
    Ok(Engine {
        region,
        clock,
        _wal: wal,
    })
}

fn model_of(families: &[FamilyDef], now: i64) -> Result<Model, String> {
    let opts = families
        .iter()
        .map(|f| {
            let mut o = FamilyOptions::new(&f.name)
                .versions(f.versions)
                .min_versions(f.min_versions)
                .keep_deleted(f.kdc);
            o.ttl_seconds = f.ttl;
            o
        })
        .collect();
    Model::new(opts, now).map_err(|e| e.to_string())
}

fn model_error(e: &ModelError) -> String {
    match e {
        ModelError::RawWithColumns => RAW_WITH_COLUMNS.to_string(),
        other => other.to_string(),
    }
}

fn engine_query(r: &ReadDef) -> ReadQuery {
    let mut q = ReadQuery::default();
    for (f, quals) in &r.families {
        if quals.is_empty() {
            q = q.family(f);
        }
        for qual in quals {
            q = q.column(f, qual);
        }
    }
    if let Some(v) = r.versions {
        q = q.versions(v);
    }
    if let Some((a, b)) = r.time_range {
        q = q.time_range(TimeRange::between(a, b).expect("valid timerange"));
    }
    if r.raw {
        q = q.raw();
    }
    q
}

fn model_query(r: &ReadDef) -> Query {
    let mut q = Query::default();
    for (f, quals) in &r.families {
        if quals.is_empty() {
            q = q.family(f);
        }
        for qual in quals {
            q = q.column(f, qual);
        }
    }
    if let Some(v) = r.versions {
        q = q.versions(v);
    }
    if let Some((a, b)) = r.time_range {
        q = q.time_range(a, b);
    }
    if r.raw {
        q = q.raw();
    }
    q
}

fn from_engine(c: &Cell) -> String {
    cell_line(
        c.row(),
        c.family(),
        c.qualifier(),
        c.timestamp(),
        c.cell_type(),
        c.value(),
    )
}

fn from_model(c: &ModelCell) -> String {
    cell_line(&c.row, &c.family, &c.qualifier, c.ts, c.cell_type, &c.value)
}

impl Engine {
    /// Applies a non-read step.
    fn apply(&self, op: &Op, families: &[FamilyDef], model: &Model) -> Result<(), String> {
        let e = |e: regionkv_region::Error| e.to_string();
        match op {
            Op::Clock(t) => self.clock.set(*t),
            Op::Mutate { row, cells } => {
                let cells = cells
                    .iter()
                    .map(|c| {
                        if c.kind == CellType::Put {
                            Cell::put(row, &c.family, &c.qualifier, c.ts, &c.value)
                        } else {
                            Cell::delete_marker(row, &c.family, &c.qualifier, c.ts, c.kind)
                        }
                        .map_err(|e| e.to_string())
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                self.region
                    .mutate_row(row, cells, Durability::SyncWal)
                    .map_err(e)?;
            }
            Op::Flush => {
                self.region.flush_all().map_err(e)?;
            }
            Op::CompactMajor(fam) => {
                for f in families {
                    if fam.as_ref().is_none_or(|x| *x == f.name) {
                        self.region.compact_files(&f.name, None).map_err(e)?;
                    }
                }
            }
            Op::CompactMinor(fam, indexes) => {
                let names = self.file_names(fam, indexes, model)?;
                self.region.compact_files(fam, Some(&names)).map_err(e)?;
            }
            Op::Get(..) | Op::Scan(..) => unreachable!("reads are not applied"),
        }
        Ok(())
    }

    /// The engine's files matching HBase's file indexes. HBase orders a store's files by
    /// MAX_SEQ_ID (a flush's sequence id; for a compaction output the largest of its
    /// inputs'); the engine stamps a file with the largest sequence id of the cells it
    /// holds. The two orders can differ after a minor compaction, so the files are paired
    /// as `tests/model_read_path.rs` does: the model's (HBase-ordered) files sorted by
    /// their newest cell against the engine's sorted by their max sequence id. Called
    /// before the model applies the same step.
    fn file_names(
        &self,
        family: &[u8],
        indexes: &[usize],
        model: &Model,
    ) -> Result<Vec<String>, String> {
        let mut engine: Vec<(u64, String)> = self
            .region
            .manifest()
            .stores
            .get(family)
            .map(|s| {
                s.files
                    .iter()
                    .map(|f| (f.max_seq_id, f.name.clone()))
                    .collect()
            })
            .unwrap_or_default();
        engine.sort();
        let mut hbase: Vec<(u64, usize)> = model
            .files(family)
            .map_err(|e| e.to_string())?
            .iter()
            .enumerate()
            .map(|(i, f)| (f.max_seq, i))
            .collect();
        hbase.sort();
        if engine.len() != hbase.len() {
            return Err(format!(
                "the engine has {} files in {}, the model {}",
                engine.len(),
                binary(family),
                hbase.len()
            ));
        }
        indexes
            .iter()
            .map(|i| {
                let rank = hbase
                    .iter()
                    .position(|(_, j)| j == i)
                    .ok_or_else(|| format!("no file {i} in {}", binary(family)))?;
                Ok(engine[rank].1.clone())
            })
            .collect()
    }

    fn read(&self, op: &Op) -> Vec<String> {
        let result = match op {
            Op::Get(row, r) => self.region.get(row, &engine_query(r)),
            Op::Scan(s, r) => {
                let scan = RegionScan {
                    start_row: s.start.clone(),
                    include_start: true,
                    stop_row: s.stop.clone(),
                    include_stop: false,
                    query: engine_query(r),
                    limit: s.limit,
                    reversed: s.reversed,
                    batch: None,
                };
                self.region
                    .scan(&scan)
                    .and_then(|sc| sc.collect::<Result<Vec<_>, _>>())
                    .map(|rows| rows.concat())
            }
            _ => unreachable!("not a read"),
        };
        match result {
            Ok(cells) => result_lines(cells.iter().map(from_engine).collect()),
            Err(e) => vec![format!("error: {e}")],
        }
    }
}

fn model_apply(m: &mut Model, op: &Op) -> Result<(), String> {
    let e = |e: ModelError| e.to_string();
    match op {
        Op::Clock(t) => m.set_clock(*t),
        Op::Mutate { row, cells } => {
            let specs = cells
                .iter()
                .map(|c| {
                    if c.kind == CellType::Put {
                        CellSpec::put(&c.family, &c.qualifier, c.ts, &c.value)
                    } else {
                        CellSpec::delete(&c.family, &c.qualifier, c.ts, c.kind)
                    }
                })
                .collect();
            m.mutate(row, specs).map_err(e)?;
        }
        Op::Flush => {
            m.flush_all();
        }
        Op::CompactMajor(fam) => {
            for f in m.families() {
                if fam.as_ref().is_none_or(|x| *x == f) {
                    m.compact_all(&f).map_err(e)?;
                }
            }
        }
        Op::CompactMinor(fam, indexes) => {
            m.compact(fam, indexes).map_err(e)?;
        }
        Op::Get(..) | Op::Scan(..) => unreachable!("reads are not applied"),
    }
    Ok(())
}

fn model_read(m: &Model, op: &Op) -> Vec<String> {
    let result = match op {
        Op::Get(row, r) => m.get(row, &model_query(r)),
        Op::Scan(s, r) => {
            let scan = ModelScan {
                start_row: s.start.clone(),
                include_start: true,
                stop_row: s.stop.clone(),
                include_stop: false,
                reversed: s.reversed,
                limit: s.limit,
                query: model_query(r),
            };
            m.scan_rows(&scan).map(|rows| rows.concat())
        }
        _ => unreachable!("not a read"),
    };
    match result {
        Ok(cells) => result_lines(cells.iter().map(from_model).collect()),
        Err(e) => vec![format!("error: {}", model_error(&e))],
    }
}

// ---------------------------------------------------------------------------------------
// Running a file
// ---------------------------------------------------------------------------------------

/// What playing one file found.
#[derive(Default)]
struct Outcome {
    /// Model or expectation failures, engine/model disagreements in rewrite mode,
    /// setup errors: always fatal.
    fatal: Vec<String>,
    /// The engine against the expected lines (fatal unless the file is skipped).
    engine: Vec<String>,
    /// The engine's output per read step (by step index), for a rewrite.
    engine_reads: BTreeMap<usize, Vec<String>>,
}

fn play(file: &str, sc: &Scenario, rewrite: bool) -> Outcome {
    let mut out = Outcome::default();
    let engine = match engine_of(&sc.families, sc.start_clock) {
        Ok(e) => e,
        Err(e) => {
            out.fatal.push(format!("{file}: engine setup: {e}"));
            return out;
        }
    };
    let mut model = match model_of(&sc.families, sc.start_clock) {
        Ok(m) => m,
        Err(e) => {
            out.fatal.push(format!("{file}: model setup: {e}"));
            return out;
        }
    };
    let mut engine_ok = true;
    for (index, step) in sc.steps.iter().enumerate() {
        let at = format!("{file}:{}: `{}`", step.line, step.text);
        if !step.op.is_read() {
            if engine_ok && let Err(e) = engine.apply(&step.op, &sc.families, &model) {
                out.engine.push(format!("{at}\n    engine error: {e}"));
                engine_ok = false;
            }
            if let Err(e) = model_apply(&mut model, &step.op) {
                out.fatal.push(format!("{at}\n    model error: {e}"));
                return out;
            }
            continue;
        }
        let model_lines = model_read(&model, &step.op);
        let engine_lines = engine_ok.then(|| engine.read(&step.op));
        match &step.expected {
            None if !rewrite => out
                .fatal
                .push(format!("{at}\n    no expected `>` lines after this read")),
            None => {}
            Some(expected) if !(rewrite && sc.skip.is_none()) => {
                if &model_lines != expected {
                    out.fatal.push(format!(
                        "{at}\n    the model differs from the expected lines (- expected, + model):\n{}",
                        diff(expected, &model_lines)
                    ));
                }
                if let Some(lines) = &engine_lines
                    && lines != expected
                {
                    out.engine.push(format!(
                        "{at}\n    the engine differs from the expected lines (- expected, + engine):\n{}",
                        diff(expected, lines)
                    ));
                }
            }
            Some(_) => {}
        }
        if let Some(lines) = engine_lines {
            if rewrite && sc.skip.is_none() && lines != model_lines {
                out.fatal.push(format!(
                    "{at}\n    the engine and the model disagree (- model, + engine):\n{}",
                    diff(&model_lines, &lines)
                ));
            }
            out.engine_reads.insert(index, lines);
        }
    }
    out
}

/// The file with every read's expected block replaced by the engine's output.
fn rewritten(text: &str, sc: &Scenario, reads: &BTreeMap<usize, Vec<String>>) -> String {
    let by_line: BTreeMap<usize, Vec<String>> = sc
        .steps
        .iter()
        .enumerate()
        .filter_map(|(i, s)| reads.get(&i).map(|r| (s.line, r.clone())))
        .collect();
    datadriven::rewritten(text, &by_line)
}

fn scenario_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/testdata/semantics");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .collect();
    files.sort();
    files
}

#[test]
fn golden_semantics() {
    let rewrite = regionkv_testkit::rewrite_requested();
    let files = scenario_files();
    assert!(!files.is_empty(), "no scenario files");
    let mut failures = Vec::new();
    let mut skipped = Vec::new();
    let mut passed = 0;
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(path).unwrap();
        let sc = match parse(&text) {
            Ok(sc) => sc,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        let out = play(&name, &sc, rewrite);
        let fatal = !out.fatal.is_empty();
        failures.extend(out.fatal);
        match &sc.skip {
            Some(reason) => {
                let note = if out.engine.is_empty() {
                    "the engine now passes: remove the skip line"
                } else {
                    "the engine still fails"
                };
                skipped.push(format!("{name}: {reason} ({note})"));
                for e in &out.engine {
                    eprintln!("[skipped] {e}");
                }
            }
            None => {
                let engine_failed = !out.engine.is_empty();
                if !engine_failed && !fatal {
                    passed += 1;
                }
                failures.extend(out.engine);
                // In rewrite mode `out.engine` holds only engine errors: no rewrite then.
                if rewrite && !fatal && !engine_failed {
                    let new = rewritten(&text, &sc, &out.engine_reads);
                    if new != text {
                        std::fs::write(path, new).unwrap();
                        eprintln!("rewrote {name}");
                    }
                }
            }
        }
    }
    eprintln!(
        "golden semantics: {} files, {passed} pass on engine and model, {} skipped",
        files.len(),
        skipped.len()
    );
    for s in &skipped {
        eprintln!("  skipped {s}");
    }
    assert!(
        failures.is_empty(),
        "{} failure(s):\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

/// The runner's own plumbing on an inline scenario: a minor compaction by file index
/// (no HBase test needs one; semantics.md §3.4: a flush sees only the memstore, a minor
/// compaction of both files drops the masked put and keeps the marker, the major one
/// drops the marker too).
#[test]
fn runner_plays_minor_compactions() {
    let text = "\
# runner self-test
family f VERSIONS=3
put r f:q ts=5 v=v
flush
delete r f:q ts=5 type=DeleteColumn
flush
put r f:z ts=1 v=other
flush
scan raw versions=all
> r/f:q/5/DeleteColumn=
> r/f:q/5/Put=v
> r/f:z/1/Put=other
compact minor 0,1
scan raw versions=all
> r/f:q/5/DeleteColumn=
> r/f:z/1/Put=other
compact major
scan raw versions=all
> r/f:z/1/Put=other
";
    let sc = parse(text).unwrap();
    let out = play("inline", &sc, false);
    assert!(out.fatal.is_empty(), "{}", out.fatal.join("\n"));
    assert!(out.engine.is_empty(), "{}", out.engine.join("\n"));
}

#[test]
fn notation_errors_name_the_line() {
    let err = |text: &str| parse(text).unwrap_err();
    assert!(err("family f\n").contains("line 1"));
    assert!(err("# t\nfamily f\nput r f:q v=1\n").starts_with("line 3: put: ts="));
    assert!(err("# t\nfamily f\nflush\n> (none)\n").starts_with("line 4:"));
    assert!(err("# t\nfamily f\nfamily g\ncompact minor 0\n").starts_with("line 4:"));
    assert!(err("# t\nfamily f\nscan sideways\n").contains("unknown option"));
}
