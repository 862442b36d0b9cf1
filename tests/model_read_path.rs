//! Model-based test of the read path (RELIABILITY.md §3 T1, read-path issue "Proof (1)"):
//! random operation sequences run against the engine's `Region` (on `MemFs`, manual clock)
//! and against `regionkv_testkit::model::Model`, HBase 2.x's rules written from
//! `semantics.md`. After every step the two must agree exactly on:
//!
//! * a random read of the step (a get, or a scan forward or reversed with inclusive or
//!   exclusive bounds and a row limit; random families and columns, versions, time
//!   range, raw, and now and then a row-prefix filter), errors included;
//! * a full raw scan with all versions (almost the physical content: HBase's raw scans
//!   suppress same-timestamp duplicates) and a full normal scan with all versions;
//! * per family, the number of cells in each store file (what flushes and compactions
//!   kept; files paired by sequence id, see `Runner::engine_files`), the families a flush
//!   wrote, and whether a compaction ran under the major rules.
//!
//! Operations: row mutations of 1–3 cells across two families (puts and all four delete
//! kinds, explicit timestamps from a small set so that versions, same-timestamp overwrites
//! and markers collide; the empty qualifier now and then), `flush_all`, compactions of a
//! random subset of a family's files (all of them ⇒ major rules) and of all files, and
//! clock advances of half-seconds to seconds against TTLs of 1–5 s. Each case has its own
//! options per family (VERSIONS 1–4, MIN_VERSIONS 0–2 ≤ VERSIONS, TTL none or 1–5 s,
//! KEEP_DELETED_CELLS FALSE/TRUE/TTL).
//!
//! The model has no filters. A read may still carry a `PrefixFilter` (see `PREFIXES`): it
//! drops the rows without the prefix and lets every cell of the others through, and HBase
//! counts versions after a filter against the same min(requested, VERSIONS), so the
//! engine must return the model's rows that have the prefix. That walks the filtered
//! matcher path (the tracker counting up to VERSIONS, the cap after the filter) against
//! the unfiltered rules; it found explicit columns returning every version under a filter.
//!
//! Cases: 256 by default (each up to 80 steps; about 10 s in debug), `PROPTEST_CASES` for
//! soak runs. A failing case is shrunk and printed as its resolved operation log with
//! both sides' files.
//!
//! Below the property: pinned cases for rare corners, and regressions for the engine bugs it
//! found.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use regionkv_cell::{Cell, CellType, ManualClock, SharedClock, TimeRange};
use regionkv_fs::{Fs, MemFs};
use regionkv_region::filter::{Filter, PrefixFilter};
use regionkv_region::{
    ColumnFamilyDescriptor, KeepDeletedCells, ReadQuery, RecoveredWal, Region, RegionInfo,
    RegionScan, RegionServices, TableDescriptor, recover_wal,
};
use regionkv_region::{Durability, RowWrite};
use regionkv_testkit::model::{self, CellSpec, FamilyOptions, Model, ModelCell, ModelScan, Query};
use regionkv_wal::{RecoveryMode, Wal, WalConfig};
use std::fmt::Write as _;
use std::path::Path;
use std::sync::Arc;

const FAMS: [&[u8]; 2] = [b"f1", b"f2"];
const ROWS: [&[u8]; 3] = [b"a", b"b", b"c"];
/// Scan bounds: the rows and a row between two of them that is never written.
const BOUNDS: [&[u8]; 4] = [b"a", b"b", b"bb", b"c"];
/// The empty qualifier is rare: it shares the family markers' column (§1).
const QUALS: [&[u8]; 4] = [b"p", b"q", b"r", b""];
/// The clock's start (ms).
const START: i64 = 100_000;
/// Row prefixes of a read's `PrefixFilter`: every row, one row, none of the rows.
const PREFIXES: [&[u8]; 3] = [b"", b"b", b"bb"];

// ---------------------------------------------------------------------------------------
// Operations
// ---------------------------------------------------------------------------------------

/// One family's options for a case.
#[derive(Debug, Clone)]
struct FamCfg {
    versions: u32,
    min_versions: u32,
    ttl: Option<u32>,
    kdc: model::KeepDeletedCells,
}

/// A timestamp, resolved when the step runs.
#[derive(Debug, Clone, Copy)]
enum Ts {
    /// The clock plus this many half-seconds (clamped at 0).
    Rel(i64),
    /// Fixed.
    Abs(i64),
}

impl Ts {
    fn at(self, now: i64) -> i64 {
        match self {
            Ts::Rel(k) => (now + k * 500).max(0),
            Ts::Abs(v) => v,
        }
    }
}

#[derive(Debug, Clone)]
struct CellOp {
    fam: usize,
    qual: usize,
    ts: Ts,
    kind: CellType,
    /// A per-cell TTL in ms (puts only), HBase's `Mutation#setTTL`.
    ttl: Option<i64>,
}

#[derive(Debug, Clone)]
enum Op {
    Mutate {
        row: usize,
        cells: Vec<CellOp>,
    },
    /// Row mutations through one `Region::mutate_rows` call (HBase's `batchMutate`); rows
    /// may repeat. A batch this small is one mini-batch: all its cells share a timestamp
    /// base and one sequence id, so the model applies each row's writes as one mutation
    /// of their cells in batch order (of two equal cells the later one replaces the
    /// earlier, as in one mutation).
    Batch {
        rows: Vec<(usize, Vec<CellOp>)>,
    },
    FlushAll,
    /// Compact the files whose index bit is set in `mask`.
    Compact {
        fam: usize,
        mask: u8,
    },
    CompactAll {
        fam: usize,
    },
    Advance {
        half_seconds: i64,
    },
}

#[derive(Debug, Clone)]
enum Target {
    Get(usize),
    Scan(ScanBounds),
}

/// A scan's bounds (indexes into `BOUNDS`), direction and limit.
#[derive(Debug, Clone)]
struct ScanBounds {
    start: Option<usize>,
    include_start: bool,
    stop: Option<usize>,
    include_stop: bool,
    reversed: bool,
    limit: Option<u64>,
}

impl ScanBounds {
    fn all() -> Self {
        Self {
            start: None,
            include_start: true,
            stop: None,
            include_stop: false,
            reversed: false,
            limit: None,
        }
    }
}

#[derive(Debug, Clone)]
struct Read {
    target: Target,
    /// Empty: every family. A family with no qualifiers: the whole family.
    fams: Vec<(usize, Vec<usize>)>,
    versions: u32,
    /// `[at(from), at(from) + width)`.
    time_range: Option<(Ts, i64)>,
    raw: bool,
    /// A `PrefixFilter` of `PREFIXES[i]` (module doc).
    prefix_filter: Option<usize>,
}

#[derive(Debug, Clone)]
struct Step {
    op: Op,
    read: Read,
}

#[derive(Debug, Clone)]
struct Case {
    fams: Vec<FamCfg>,
    steps: Vec<Step>,
}

// ---------------------------------------------------------------------------------------
// Strategies
// ---------------------------------------------------------------------------------------

fn fam_cfg() -> impl Strategy<Value = FamCfg> {
    (1u32..=4)
        .prop_flat_map(|versions| {
            (
                Just(versions),
                0..=versions.min(2),
                prop_oneof![1 => Just(None), 1 => (1u32..=5).prop_map(Some)],
                prop_oneof![
                    Just(model::KeepDeletedCells::False),
                    Just(model::KeepDeletedCells::True),
                    Just(model::KeepDeletedCells::Ttl),
                ],
            )
        })
        .prop_map(|(versions, min_versions, ttl, kdc)| FamCfg {
            versions,
            min_versions,
            ttl,
            kdc,
        })
}

fn ts() -> impl Strategy<Value = Ts> {
    prop_oneof![
        4 => (-8i64..=2).prop_map(Ts::Rel),
        1 => prop_oneof![Just(START - 2000), Just(START), Just(START + 1000)].prop_map(Ts::Abs),
    ]
}

fn cell_op() -> impl Strategy<Value = CellOp> {
    (
        0..FAMS.len(),
        prop_oneof![12 => 0usize..3, 1 => Just(3usize)],
        ts(),
        prop_oneof![
            10 => Just(CellType::Put),
            2 => Just(CellType::Delete),
            2 => Just(CellType::DeleteColumn),
            1 => Just(CellType::DeleteFamily),
            1 => Just(CellType::DeleteFamilyVersion),
        ],
        // Cell TTLs around the clock steps (multiples of 500 ms), so boundaries are hit.
        prop_oneof![
            6 => Just(None),
            1 => prop_oneof![Just(0i64), Just(499), Just(500), Just(1_000), Just(2_500)]
                .prop_map(Some),
        ],
    )
        .prop_map(|(fam, qual, ts, kind, ttl)| CellOp {
            fam,
            qual,
            ts,
            kind,
            ttl: ttl.filter(|_| kind == CellType::Put),
        })
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        12 => (0..ROWS.len(), proptest::collection::vec(cell_op(), 1..=3))
            .prop_map(|(row, cells)| Op::Mutate { row, cells }),
        3 => proptest::collection::vec(
            (0..ROWS.len(), proptest::collection::vec(cell_op(), 1..=3)),
            2..=5
        )
        .prop_map(|rows| Op::Batch { rows }),
        3 => Just(Op::FlushAll),
        2 => (0..FAMS.len(), any::<u8>()).prop_map(|(fam, mask)| Op::Compact { fam, mask }),
        1 => (0..FAMS.len()).prop_map(|fam| Op::CompactAll { fam }),
        2 => prop_oneof![Just(1i64), Just(2), Just(4), Just(6)]
            .prop_map(|half_seconds| Op::Advance { half_seconds }),
    ]
}

fn read() -> impl Strategy<Value = Read> {
    let target = prop_oneof![
        1 => (0..ROWS.len()).prop_map(Target::Get),
        1 => (
            proptest::option::of(0..BOUNDS.len()),
            proptest::option::of(0..BOUNDS.len()),
            proptest::bool::weighted(0.8),
            proptest::bool::weighted(0.2),
            proptest::bool::weighted(0.25),
            prop_oneof![4 => Just(None), 1 => (1u64..=2).prop_map(Some)],
        )
            .prop_map(|(start, stop, include_start, include_stop, reversed, limit)| {
                Target::Scan(ScanBounds {
                    start,
                    include_start,
                    stop,
                    include_stop,
                    reversed,
                    limit,
                })
            }),
    ];
    let columns = prop_oneof![
        2 => Just(Vec::new()),
        1 => proptest::collection::btree_set(prop_oneof![8 => 0usize..3, 1 => Just(3usize)], 1..=3)
            .prop_map(|s| s.into_iter().collect()),
    ];
    let fams = prop_oneof![
        2 => Just(Vec::new()),
        2 => (0..FAMS.len(), columns.clone()).prop_map(|f| vec![f]),
        1 => (columns.clone(), columns).prop_map(|(a, b)| vec![(0, a), (1, b)]),
    ];
    let versions = prop_oneof![Just(1u32), Just(2), Just(3), Just(5), Just(u32::MAX)];
    let width = prop_oneof![
        Just(0i64),
        Just(1),
        Just(500),
        Just(1000),
        Just(2000),
        Just(5000)
    ];
    let time_range = prop_oneof![2 => Just(None), 1 => (ts(), width).prop_map(Some)];
    let raw = prop_oneof![4 => Just(false), 1 => Just(true)];
    let prefix_filter = prop_oneof![2 => Just(None), 1 => (0..PREFIXES.len()).prop_map(Some)];
    (target, fams, versions, time_range, raw, prefix_filter).prop_map(
        |(target, fams, versions, time_range, raw, prefix_filter)| {
            // Raw reads with columns are an error on both sides; keep them rare.
            let raw = raw && (fams.iter().all(|(_, q)| q.is_empty()) || versions == 5);
            // Where a pass-all filter does change a read in HBase, the model cannot follow:
            // a raw read counts delete markers among the versions after a filter, and an
            // explicit empty qualifier (the family markers' column) is no longer left at
            // the requested count by the tracker, so the family markers behind it are
            // seen (the quirk of `pinned_empty_qualifier_hides_family_marker`).
            let explicit_empty = fams.iter().any(|(_, q)| q.contains(&3));
            let prefix_filter = prefix_filter.filter(|_| !raw && !explicit_empty);
            Read {
                target,
                fams,
                versions,
                time_range,
                raw,
                prefix_filter,
            }
        },
    )
}

fn case() -> impl Strategy<Value = Case> {
    (
        proptest::collection::vec(fam_cfg(), FAMS.len()),
        proptest::collection::vec(
            (op(), read()).prop_map(|(op, read)| Step { op, read }),
            1..=80,
        ),
    )
        .prop_map(|(fams, steps)| Case { fams, steps })
}

// ---------------------------------------------------------------------------------------
// The engine under test
// ---------------------------------------------------------------------------------------

/// One region on `MemFs` with a manual clock, no background flusher (the setup of
/// `crates/regionkv-region/tests/common`).
struct Engine {
    region: Arc<Region>,
    clock: ManualClock,
    _wal: Arc<Wal>,
}

fn engine(fams: &[FamCfg]) -> Engine {
    let fs: Arc<dyn Fs> = Arc::new(MemFs::new());
    let root = Path::new("/db");
    fs.create_dir_all(root).unwrap();
    let RecoveredWal { wal, .. } = recover_wal(
        fs.clone(),
        &root.join("wal"),
        WalConfig::default(),
        RecoveryMode::TolerateCorruptedTail,
    )
    .unwrap();
    let clock = ManualClock::new(START);
    let families = fams
        .iter()
        .zip(FAMS)
        .map(|(cfg, name)| {
            let mut d = ColumnFamilyDescriptor::new(name).unwrap();
            d.max_versions = cfg.versions;
            d.min_versions = cfg.min_versions;
            if let Some(ttl) = cfg.ttl {
                d.ttl_seconds = ttl;
            }
            d.keep_deleted_cells = match cfg.kdc {
                model::KeepDeletedCells::False => KeepDeletedCells::False,
                model::KeepDeletedCells::True => KeepDeletedCells::True,
                model::KeepDeletedCells::Ttl => KeepDeletedCells::Ttl,
            };
            d
        })
        .collect();
    let table = TableDescriptor::new("t1", families).unwrap();
    let services = RegionServices::new(
        fs.clone(),
        wal.clone(),
        Arc::new(clock.clone()) as SharedClock,
    );
    let info = RegionInfo::whole_table("t1", 1);
    let region = Region::create(&root.join("data/default/t1/r"), info, table, services).unwrap();
    Engine {
        region,
        clock,
        _wal: wal,
    }
}

fn model_of(fams: &[FamCfg]) -> Model {
    let families = fams
        .iter()
        .zip(FAMS)
        .map(|(cfg, name)| {
            let mut o = FamilyOptions::new(name)
                .versions(cfg.versions)
                .min_versions(cfg.min_versions)
                .keep_deleted(cfg.kdc);
            o.ttl_seconds = cfg.ttl;
            o
        })
        .collect();
    Model::new(families, START).unwrap()
}

// ---------------------------------------------------------------------------------------
// Running a case
// ---------------------------------------------------------------------------------------

/// What a read result is compared on: (row, family, qualifier, ts, type, value).
type Visible = (String, String, String, i64, CellType, String);

fn s(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn from_engine(c: &Cell) -> Visible {
    (
        s(c.row()),
        s(c.family()),
        s(c.qualifier()),
        c.timestamp(),
        c.cell_type(),
        s(c.value()),
    )
}

fn from_model(c: &ModelCell) -> Visible {
    (
        s(&c.row),
        s(&c.family),
        s(&c.qualifier),
        c.ts,
        c.cell_type,
        s(&c.value),
    )
}

/// A read's outcome: rows of cells, or "refused".
type Outcome = Result<Vec<Vec<Visible>>, String>;

struct Runner {
    engine: Engine,
    model: Model,
    log: String,
}

impl Runner {
    fn now(&self) -> i64 {
        self.model.now()
    }

    fn queries(&self, r: &Read) -> (ReadQuery, Query) {
        let mut eq = ReadQuery::default().versions(r.versions);
        let mut mq = Query::default().versions(r.versions);
        for (f, quals) in &r.fams {
            let fam = FAMS[*f];
            if quals.is_empty() {
                eq = eq.family(fam);
                mq = mq.family(fam);
            }
            for q in quals {
                eq = eq.column(fam, QUALS[*q]);
                mq = mq.column(fam, QUALS[*q]);
            }
        }
        if let Some((from, width)) = r.time_range {
            let min = from.at(self.now());
            eq = eq.time_range(TimeRange::between(min, min + width).unwrap());
            mq = mq.time_range(min, min + width);
        }
        if r.raw {
            eq = eq.raw();
            mq = mq.raw();
        }
        (eq, mq)
    }

    /// Runs one read on both sides.
    fn read(&self, r: &Read) -> (Outcome, Outcome) {
        let (eq, mq) = self.queries(r);
        let prefix = r.prefix_filter.map(|i| PREFIXES[i]);
        let filter = || -> Option<Box<dyn Filter>> {
            prefix.map(|p| Box::new(PrefixFilter::new(p.to_vec())) as Box<dyn Filter>)
        };
        // The rows the filter keeps (the model has no filters; see the module doc).
        let has_prefix = |row: &[Visible]| {
            prefix.is_none_or(|p| row.first().is_some_and(|c| c.0.as_bytes().starts_with(p)))
        };
        match &r.target {
            Target::Get(row) => {
                let row = ROWS[*row];
                let e = self
                    .engine
                    .region
                    .get_filtered(row, &eq, filter())
                    .map(|cells| rows_of(cells.iter().map(from_engine).collect()))
                    .map_err(|e| e.to_string());
                let m = self
                    .model
                    .get(row, &mq)
                    .map(|cells| {
                        let mut rows = rows_of(cells.iter().map(from_model).collect());
                        rows.retain(|r| has_prefix(r));
                        rows
                    })
                    .map_err(|e| e.to_string());
                (e, m)
            }
            Target::Scan(b) => {
                let start = b.start.map_or(&b""[..], |i| BOUNDS[i]).to_vec();
                let stop = b.stop.map_or(&b""[..], |i| BOUNDS[i]).to_vec();
                let scan = RegionScan {
                    start_row: start.clone(),
                    include_start: b.include_start,
                    stop_row: stop.clone(),
                    include_stop: b.include_stop,
                    query: eq,
                    limit: b.limit,
                    reversed: b.reversed,
                    batch: None,
                };
                // With a filter the limit counts the rows it keeps: applied below.
                let model_scan = ModelScan {
                    start_row: start,
                    include_start: b.include_start,
                    stop_row: stop,
                    include_stop: b.include_stop,
                    reversed: b.reversed,
                    limit: if prefix.is_some() { None } else { b.limit },
                    query: mq,
                };
                let e = self
                    .engine
                    .region
                    .scan_filtered(&scan, filter())
                    .and_then(|sc| sc.collect::<Result<Vec<_>, _>>())
                    .map(|rows| {
                        rows.iter()
                            .map(|r| r.iter().map(from_engine).collect())
                            .collect()
                    })
                    .map_err(|e| e.to_string());
                let m = self
                    .model
                    .scan_rows(&model_scan)
                    .map(|rows| {
                        let rows = rows
                            .iter()
                            .map(|r| r.iter().map(from_model).collect::<Vec<_>>())
                            .filter(|r| has_prefix(r));
                        let limit = b
                            .limit
                            .map_or(usize::MAX, |n| usize::try_from(n).unwrap_or(usize::MAX));
                        rows.take(limit).collect()
                    })
                    .map_err(|e| e.to_string());
                (e, m)
            }
        }
    }

    fn apply(&mut self, index: usize, op: &Op) -> Result<(), TestCaseError> {
        let now = self.now();
        match op {
            Op::Mutate { row, cells } => {
                let row = ROWS[*row];
                let (engine_cells, specs, text) = mutation(row, cells, &format!("v{index}"), now);
                writeln!(self.log, "#{index} mutate {} [{}]", s(row), text.join(", ")).unwrap();
                let e = self
                    .engine
                    .region
                    .mutate_row(row, engine_cells, Durability::SkipWal);
                let m = self.model.mutate(row, specs);
                prop_assert_eq!(
                    e.is_ok(),
                    m.is_ok(),
                    "mutate: engine {:?}, model {:?}",
                    e,
                    m
                );
            }
            Op::Batch { rows } => {
                let mut writes = Vec::new();
                // Each row's specs, rows in order of first appearance.
                let mut model_rows: Vec<(&[u8], Vec<CellSpec>)> = Vec::new();
                let mut texts = Vec::new();
                for (i, (row, cells)) in rows.iter().enumerate() {
                    let row = ROWS[*row];
                    // Values of their own (`b<step>.<write>.<cell>`), unlike any Mutate's.
                    let (engine_cells, specs, text) =
                        mutation(row, cells, &format!("b{index}.{i}"), now);
                    texts.push(format!("{} [{}]", s(row), text.join(", ")));
                    writes.push(RowWrite::new(row, engine_cells, Durability::SkipWal));
                    match model_rows.iter_mut().find(|(r, _)| *r == row) {
                        Some((_, all)) => all.extend(specs),
                        None => model_rows.push((row, specs)),
                    }
                }
                writeln!(self.log, "#{index} batch {}", texts.join("; ")).unwrap();
                self.engine.region.mutate_rows(&mut writes);
                for w in &writes {
                    prop_assert!(
                        matches!(w.outcome, Some(Ok(_))),
                        "batch write of {}: {:?}",
                        s(w.row),
                        w.outcome
                    );
                }
                for (row, specs) in model_rows {
                    let m = self.model.mutate(row, specs);
                    prop_assert!(m.is_ok(), "model batch mutate of {}: {:?}", s(row), m);
                }
            }
            Op::FlushAll => {
                writeln!(self.log, "#{index} flush_all").unwrap();
                let e = self
                    .engine
                    .region
                    .flush_all()
                    .map_err(|e| TestCaseError::fail(e.to_string()))?;
                let m = self.model.flush_all();
                let mut ef = e.flushed_families.clone();
                ef.sort();
                prop_assert_eq!(ef, m, "families that wrote a file");
            }
            Op::Compact { fam, mask } => {
                let family = FAMS[*fam];
                // `mask` picks among the model's files (HBase's order); the engine's
                // counterparts are found through the pairing of `engine_files`.
                let n = self.model.files(family).unwrap().len();
                let picked: Vec<usize> = (0..n.min(8)).filter(|i| mask & (1 << i) != 0).collect();
                let pairs: Vec<(usize, String)> = self
                    .model_files(family)
                    .into_iter()
                    .zip(self.engine_files(family))
                    .map(|((i, _), (name, _))| (i, name))
                    .collect();
                let chosen: Vec<String> = pairs
                    .iter()
                    .filter(|(i, _)| picked.contains(i))
                    .map(|(_, name)| name.clone())
                    .collect();
                writeln!(
                    self.log,
                    "#{index} compact {} files {picked:?} of {n}",
                    s(family)
                )
                .unwrap();
                let e = self
                    .engine
                    .region
                    .compact_files(family, Some(&chosen))
                    .map_err(|e| TestCaseError::fail(e.to_string()))?;
                let m = self
                    .model
                    .compact(family, &picked)
                    .map_err(|e| TestCaseError::fail(e.to_string()))?;
                if !picked.is_empty() {
                    prop_assert_eq!(e.major, m.major, "compaction kind");
                }
                prop_assert_eq!(
                    e.output.map(|o| o.cell_count as usize),
                    m.output_cells,
                    "compaction output cells"
                );
            }
            Op::CompactAll { fam } => {
                let family = FAMS[*fam];
                writeln!(self.log, "#{index} compact {} all", s(family)).unwrap();
                let e = self
                    .engine
                    .region
                    .compact_files(family, None)
                    .map_err(|e| TestCaseError::fail(e.to_string()))?;
                let m = self
                    .model
                    .compact_all(family)
                    .map_err(|e| TestCaseError::fail(e.to_string()))?;
                prop_assert_eq!(
                    e.output.map(|o| o.cell_count as usize),
                    m.output_cells,
                    "compaction output cells"
                );
            }
            Op::Advance { half_seconds } => {
                let ms = half_seconds * 500;
                self.engine.clock.advance(ms);
                let t = self.model.advance_clock(ms);
                writeln!(self.log, "#{index} clock +{ms} = {t}").unwrap();
            }
        }
        Ok(())
    }

    /// The engine's live files of `family` as (name, cells), in the order of their max
    /// sequence id. Both sides stamp files as HBase does: a flushed file with the flush's
    /// sequence id, a compaction output with the largest of its inputs' (`Compactor`:
    /// `fd.maxSeqId`); the two counters differ in value but not in order.
    fn engine_files(&self, family: &[u8]) -> Vec<(String, u64)> {
        let mut files: Vec<(u64, String, u64)> = self
            .engine
            .region
            .manifest()
            .stores
            .get(family)
            .map(|s| {
                s.files
                    .iter()
                    .map(|f| (f.max_seq_id, f.name.clone(), f.cell_count))
                    .collect()
            })
            .unwrap_or_default();
        files.sort();
        files.into_iter().map(|(_, n, c)| (n, c)).collect()
    }

    /// The model's files of `family` as (index in the model's list, cells), in the order of
    /// their HBase MAX_SEQ_ID (flush: the flush's sequence id; compaction output: the
    /// largest of its inputs'): position for position the engine's files.
    fn model_files(&self, family: &[u8]) -> Vec<(usize, u64)> {
        let mut files: Vec<(u64, usize, u64)> = self
            .model
            .files(family)
            .unwrap()
            .iter()
            .enumerate()
            .map(|(i, f)| (f.max_seq, i, f.cells.len() as u64))
            .collect();
        files.sort();
        files.into_iter().map(|(_, i, c)| (i, c)).collect()
    }

    /// Both sides' files, for failure reports.
    fn files_report(&self) -> String {
        let mut out = String::new();
        for family in FAMS {
            let engine: Vec<(String, u64, u64)> = self
                .engine
                .region
                .manifest()
                .stores
                .get(family)
                .map(|s| {
                    s.files
                        .iter()
                        .map(|f| (f.name.clone(), f.max_seq_id, f.cell_count))
                        .collect()
                })
                .unwrap_or_default();
            let model: Vec<String> = self
                .model
                .files(family)
                .unwrap()
                .iter()
                .map(|f| format!("{:?}", f.cells))
                .collect();
            writeln!(
                out,
                "{} engine files (name, max seq, cells): {engine:?}\n{} model files: {model:?}",
                s(family),
                s(family)
            )
            .unwrap();
        }
        out
    }

    /// The checks made after every step.
    fn check(&mut self, index: usize, r: &Read) -> Result<(), TestCaseError> {
        // The step's random read.
        let (e, m) = self.read(r);
        let (eq, _) = self.queries(r);
        if e.is_err() || m.is_err() {
            if e.is_ok() != m.is_ok() {
                return self.fail(index, &format!("read {r:?} {eq:?}"), &e, &m);
            }
        } else if e != m {
            let filter = r.prefix_filter.map(|i| s(PREFIXES[i]));
            let what = format!("read {:?} {eq:?} prefix filter {filter:?}", r.target);
            return self.fail(index, &what, &e, &m);
        }
        // Everything, raw and normal, all versions.
        for raw in [true, false] {
            let full = Read {
                target: Target::Scan(ScanBounds::all()),
                fams: Vec::new(),
                versions: u32::MAX,
                time_range: None,
                raw,
                prefix_filter: None,
            };
            let (e, m) = self.read(&full);
            if e != m {
                return self.fail(index, &format!("full scan raw={raw}"), &e, &m);
            }
        }
        // Store files: cells per file, paired as `engine_files` explains.
        for family in FAMS {
            let engine: Vec<u64> = self.engine_files(family).iter().map(|f| f.1).collect();
            let model: Vec<u64> = self.model_files(family).iter().map(|f| f.1).collect();
            if engine != model {
                return Err(TestCaseError::fail(format!(
                    "after step #{index}: {} file cell counts differ: engine {engine:?}, model {model:?}",
                    s(family),
                )));
            }
        }
        Ok(())
    }

    fn fail(
        &self,
        index: usize,
        what: &str,
        e: &Outcome,
        m: &Outcome,
    ) -> Result<(), TestCaseError> {
        Err(TestCaseError::fail(format!(
            "after step #{index}, {what}:\n  engine: {}\n  model:  {}",
            show(e),
            show(m),
        )))
    }
}

fn rows_of(cells: Vec<Visible>) -> Vec<Vec<Visible>> {
    if cells.is_empty() {
        Vec::new()
    } else {
        vec![cells]
    }
}

fn show(o: &Outcome) -> String {
    match o {
        Err(e) => format!("Err({e})"),
        Ok(rows) => {
            let cells: Vec<String> = rows
                .iter()
                .flatten()
                .map(|(r, f, q, ts, t, v)| format!("{r}/{f}:{q}/{ts}/{}/{v}", t.name()))
                .collect();
            format!("[{}]", cells.join(", "))
        }
    }
}

fn run(case: &Case) -> Result<(), TestCaseError> {
    let mut r = Runner {
        engine: engine(&case.fams),
        model: model_of(&case.fams),
        log: String::new(),
    };
    for (i, f) in case.fams.iter().enumerate() {
        writeln!(r.log, "family {}: {f:?}", s(FAMS[i])).unwrap();
    }
    for (i, step) in case.steps.iter().enumerate() {
        let outcome = r.apply(i, &step.op).and_then(|()| r.check(i, &step.read));
        if let Err(e) = outcome {
            return Err(TestCaseError::fail(format!(
                "{e}\nops (clock {}):\n{}{}",
                r.now(),
                r.log,
                r.files_report()
            )));
        }
    }
    Ok(())
}

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(256)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn engine_matches_model(case in case()) {
        run(&case)?;
    }
}

// ---------------------------------------------------------------------------------------
// Pinned cases: rare corners the generator reaches only now and then
// ---------------------------------------------------------------------------------------

/// The engine's cells, the model's specs and the log's text of one row mutation; values
/// are `<prefix>.<cell>`.
fn mutation(
    row: &[u8],
    cells: &[CellOp],
    prefix: &str,
    now: i64,
) -> (Vec<Cell>, Vec<CellSpec>, Vec<String>) {
    let mut engine_cells = Vec::new();
    let mut specs = Vec::new();
    let mut text = Vec::new();
    for (i, c) in cells.iter().enumerate() {
        let (fam, qual, ts) = (FAMS[c.fam], QUALS[c.qual], c.ts.at(now));
        let value = format!("{prefix}.{i}");
        if c.kind == CellType::Put {
            let cell = Cell::put(row, fam, qual, ts, value.as_bytes()).unwrap();
            let spec = CellSpec::put(fam, qual, ts, value.as_bytes());
            match c.ttl {
                Some(ttl) => {
                    let tags = regionkv_cell::tag::with_ttl(&[], Some(ttl));
                    engine_cells.push(cell.with_tags(tags).unwrap());
                    specs.push(spec.with_ttl(ttl));
                    text.push(format!(
                        "put {}:{} @{ts} ={value} ttl={ttl}",
                        s(fam),
                        s(qual)
                    ));
                }
                None => {
                    engine_cells.push(cell);
                    specs.push(spec);
                    text.push(format!("put {}:{} @{ts} ={value}", s(fam), s(qual)));
                }
            }
        } else {
            engine_cells.push(Cell::delete_marker(row, fam, qual, ts, c.kind).unwrap());
            specs.push(CellSpec::delete(fam, qual, ts, c.kind));
            text.push(format!("{} {}:{} @{ts}", c.kind.name(), s(fam), s(qual)));
        }
    }
    (engine_cells, specs, text)
}

fn mutate(row: usize, cells: &[(usize, usize, i64, CellType)]) -> Op {
    Op::Mutate {
        row,
        cells: cells
            .iter()
            .map(|&(fam, qual, ts, kind)| CellOp {
                fam,
                qual,
                ts: Ts::Abs(ts),
                kind,
                ttl: None,
            })
            .collect(),
    }
}

/// Each op followed by the default read of row `a` (the full scans run anyway).
fn pinned(fams: Vec<FamCfg>, ops: Vec<Op>) -> Case {
    let read = Read {
        target: Target::Get(0),
        fams: Vec::new(),
        versions: u32::MAX,
        time_range: None,
        raw: false,
        prefix_filter: None,
    };
    Case {
        fams,
        steps: ops
            .into_iter()
            .map(|op| Step {
                op,
                read: read.clone(),
            })
            .collect(),
    }
}

/// Two cells with the same coordinates, timestamp and type in one mutation share a
/// sequence id: the later one replaces the earlier (HBase's `CellSet.add`).
#[test]
fn pinned_same_cell_twice_in_one_mutation() {
    let put = CellType::Put;
    let case = pinned(
        vec![default_cfg(), default_cfg()],
        vec![
            mutate(0, &[(0, 0, START, put), (0, 0, START, put)]),
            Op::FlushAll,
            mutate(
                0,
                &[(0, 0, START, put), (1, 0, START, put), (0, 0, START, put)],
            ),
        ],
    );
    run(&case).unwrap();
}

/// The empty qualifier shares its column with the family markers (§1). With VERSIONS 1,
/// a second empty-qualifier put newer than a DeleteFamily ends that column (SEEK_NEXT_COL)
/// before the marker is seen, so in HBase the marker masks nothing in that read: the
/// older put of another column stays visible until a flush/compaction applies the
/// marker. Both sides must agree on this quirk.
#[test]
fn pinned_empty_qualifier_hides_family_marker() {
    let (put, df) = (CellType::Put, CellType::DeleteFamily);
    let case = pinned(
        vec![default_cfg(), default_cfg()],
        vec![
            mutate(0, &[(0, 1, START - 3000, put)]),
            mutate(0, &[(0, 3, START, put), (0, 3, START - 1000, put)]),
            mutate(0, &[(0, 0, START - 2000, df)]),
            Op::FlushAll,
            Op::CompactAll { fam: 0 },
        ],
    );
    run(&case).unwrap();
}

/// A read's time range decides which sources it opens (HBase's `selectScannersFrom`),
/// and that changes answers: the file holding the empty-qualifier put at START is not
/// opened by `[START-2500, START-2499)`, so that put no longer ends the column (after the
/// column delete of the first file) before the memstore's DeleteFamily is seen, and the
/// marker masks `p`. Over all time the quirk keeps `p` visible. (Found by the property in
/// CI: the model opened every source.)
#[test]
fn pinned_skipped_file_no_longer_hides_family_marker() {
    let (put, dc, df) = (
        CellType::Put,
        CellType::DeleteColumn,
        CellType::DeleteFamily,
    );
    let mut case = pinned(
        vec![default_cfg(), default_cfg()],
        vec![
            mutate(1, &[(1, 3, START + 1000, dc)]),
            Op::FlushAll,
            mutate(1, &[(1, 3, START, put)]),
            Op::FlushAll,
            mutate(1, &[(1, 0, START - 2500, put), (1, 3, START - 500, df)]),
            mutate(0, &[(0, 0, START, put)]),
        ],
    );
    let mut ranged = case.steps[5].clone();
    ranged.read.target = Target::Get(1);
    ranged.read.versions = 1;
    ranged.read.time_range = Some((Ts::Abs(START - 2500), 1));
    let mut all_time = ranged.clone();
    all_time.read.time_range = None;
    case.steps.extend([ranged, all_time]);
    run(&case).unwrap();
    // And the answers themselves, HBase's, not only agreement.
    let mut r = Runner {
        engine: engine(&case.fams),
        model: model_of(&case.fams),
        log: String::new(),
    };
    for (i, step) in case.steps[..6].iter().enumerate() {
        r.apply(i, &step.op).unwrap();
    }
    let ranged = Query::default().time_range(START - 2500, START - 2499);
    assert!(r.model.get(ROWS[1], &ranged).unwrap().is_empty());
    let all_time = r.model.get(ROWS[1], &Query::default()).unwrap();
    assert_eq!(all_time.len(), 1, "{all_time:?}");
    assert_eq!(all_time[0].qualifier, QUALS[0]);
}

/// A get for a named column puts off the seeks of files (HBase's lazy seek) only while
/// no source of the store holds a family marker, so that the quirk above keeps its eager
/// answer: here the empty-qualifier put sits in a file without markers, newer than the
/// DeleteFamily of an older file, and ends the markers' column before the marker is seen
/// (found by the property; a put-off seek of the second file hid that put and let the
/// marker mask `r`).
#[test]
fn pinned_lazy_get_keeps_the_empty_qualifier_quirk() {
    let (put, df) = (CellType::Put, CellType::DeleteFamily);
    // KEEP_DELETED_CELLS so that the flush keeps `r` beside the marker.
    let keep = FamCfg {
        kdc: model::KeepDeletedCells::True,
        ..default_cfg()
    };
    let mut case = pinned(
        vec![keep, default_cfg()],
        vec![
            mutate(0, &[(0, 0, START, df)]),
            mutate(0, &[(0, 2, START, put)]),
            Op::FlushAll,
            mutate(0, &[(0, 3, START + 500, put)]),
            Op::FlushAll,
            mutate(0, &[(0, 0, START, put)]),
        ],
    );
    for step in &mut case.steps {
        step.read.fams = vec![(0, vec![2])];
        step.read.versions = 1;
    }
    run(&case).unwrap();
}

/// The compactor's rules, exhaustively (issue: "each delete kind × minor/major ×
/// KEEP_DELETED_CELLS mode × TTL/MIN_VERSIONS"): puts older than, equal to and newer than a
/// marker spread over three files; then a minor compaction of the two oldest files or a
/// major compaction of all three, optionally after everything but the newest put expired.
/// After every step the engine's files (cells per file) and every read must equal the
/// model's, which states HBase's rules independently (tests/testdata/semantics and the
/// model's own TestKeepDeletes/TestMinVersions cases pin the model to HBase).
#[test]
fn compactor_rule_matrix() {
    use model::KeepDeletedCells as Kdc;
    let put = CellType::Put;
    let mut cases = 0;
    for kind in [
        CellType::Delete,
        CellType::DeleteColumn,
        CellType::DeleteFamily,
        CellType::DeleteFamilyVersion,
    ] {
        // Family markers live on the empty qualifier.
        let marker_qual = if kind.is_family_delete() { 3 } else { 1 };
        for major in [false, true] {
            for kdc in [Kdc::False, Kdc::True, Kdc::Ttl] {
                for (ttl, min_versions, expire) in
                    [(None, 0, false), (Some(2), 0, true), (Some(2), 1, true)]
                {
                    let cfg = FamCfg {
                        versions: 2,
                        min_versions,
                        ttl,
                        kdc,
                    };
                    let mut ops = vec![
                        // File 1: two older versions of q and a put of p.
                        mutate(0, &[(0, 1, START - 3000, put), (0, 0, START - 3000, put)]),
                        mutate(0, &[(0, 1, START - 2000, put)]),
                        Op::FlushAll,
                        // File 2: the marker at the middle timestamp.
                        mutate(0, &[(0, marker_qual, START - 2000, kind)]),
                        Op::FlushAll,
                        // File 3: a newer version of q.
                        mutate(0, &[(0, 1, START - 1000, put)]),
                        Op::FlushAll,
                    ];
                    if expire {
                        // 5 s later: with TTL 2 s everything written so far has expired.
                        ops.push(Op::Advance { half_seconds: 10 });
                    }
                    ops.push(if major {
                        Op::CompactAll { fam: 0 }
                    } else {
                        Op::Compact {
                            fam: 0,
                            mask: 0b011,
                        }
                    });
                    let case = pinned(vec![cfg.clone(), default_cfg()], ops);
                    if let Err(e) = run(&case) {
                        panic!("{kind:?}, major={major}, {cfg:?}: {e}");
                    }
                    cases += 1;
                }
            }
        }
    }
    assert_eq!(cases, 4 * 2 * 3 * 3);
}

// ---------------------------------------------------------------------------------------
// Minimal reproductions of engine/model disagreements where the engine is wrong
// ---------------------------------------------------------------------------------------

fn default_cfg() -> FamCfg {
    FamCfg {
        versions: 1,
        min_versions: 0,
        ttl: None,
        kdc: model::KeepDeletedCells::False,
    }
}

/// Rows a scan returns, engine and model, as row keys.
fn scan_both(e: &Engine, m: &Model, scan: &RegionScan) -> (Vec<String>, Vec<String>) {
    let engine = e
        .region
        .scan(scan)
        .unwrap()
        .map(|r| s(r.unwrap()[0].row()))
        .collect();
    let ms = ModelScan {
        start_row: scan.start_row.clone(),
        include_start: scan.include_start,
        stop_row: scan.stop_row.clone(),
        include_stop: scan.include_stop,
        reversed: scan.reversed,
        limit: scan.limit,
        query: Query::default(),
    };
    let model = m
        .scan_rows(&ms)
        .unwrap()
        .iter()
        .map(|r| s(&r[0].row))
        .collect();
    (engine, model)
}

/// Regression, found by `engine_matches_model` (fixed in `Region::scan`): a forward scan
/// whose stop row is inclusive
/// (`Scan.withStopRow(row, true)`) misses that row when it is the first row of a store
/// file: the file is skipped as if the stop row were exclusive. HBase keeps the file
/// (`StoreFileReader.passesKeyRangeFilter` skips a file only when its first row is
/// *greater* than the stop row) and the stop row is returned (§9; the same scan over the
/// memstore, or reversed, returns it in the engine too).
#[test]
fn forward_scan_inclusive_stop_row_first_in_a_store_file() {
    let cfgs = [default_cfg(), default_cfg()];
    let (e, mut m) = (engine(&cfgs), model_of(&cfgs));
    for row in [&b"b"[..], b"c"] {
        let cell = Cell::put(row, b"f1", b"q", START, b"v").unwrap();
        e.region
            .mutate_row(row, vec![cell], Durability::SkipWal)
            .unwrap();
        m.put(row, b"f1", b"q", START, b"v").unwrap();
    }
    e.region.flush_all().unwrap();
    m.flush_all();
    let scan = RegionScan {
        stop_row: b"b".to_vec(),
        include_stop: true,
        ..RegionScan::all()
    };
    let (engine, model) = scan_both(&e, &m, &scan);
    assert_eq!(model, ["b"]);
    assert_eq!(engine, model);
}
