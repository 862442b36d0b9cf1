//! `lab simulate`: a design run against a workload through the real engine — a Db in
//! memory (`MemFs`), the design's table with its pre-splits, split policy, flush size and
//! compactions, on a `ManualClock` set to each record's event time, so hours of simulated
//! traffic take seconds and TTLs, cell timestamps and split sizes behave as on a cluster.
//!
//! The run, in event-time order:
//! - each record becomes one Put of its design key (one row mutation, HBase's write
//!   request), with the cells the design's families ask for;
//! - reads come at the workload's read rate, each planned ([`crate::query`]) and sent as
//!   gets and scans; a read counts the rows it got back (HBase 2's region read-request
//!   count is per row returned) and the regions its requests overlapped (its fan-out);
//! - each of the design's indexes (`[[index]]`) is a table of its own in the same Db:
//!   every base put brings an entry Put or a summary Increment there, and an index read
//!   scans (or gets) the index table, then gets the base rows its entries name, grouped by
//!   base region; each index table is followed as the base table is (regions, splits,
//!   skew, heatmap), and the writes it adds are the write amplification;
//! - every [`HOUSEKEEPING_EVERY`] records, and at the end, the regions' compactions are
//!   asked for (HBase's compaction check after a flush: the store's policy decides) and
//!   queued splits run; a changed region list is a split event at that simulated time.
//!
//! Without background threads the engine is deterministic, so one seed gives one report.
//! Writes and rows read are counted per region by the lab as they happen (regions change
//! only at housekeeping), and per time slice, so the skew of a slice is taken over the
//! regions that existed in it and then averaged over the slices: a timestamp-first key
//! that keeps one region hot at a time scores high though every region gets its turn.
//! The WAL is skipped (`SKIP_WAL`): nothing here is ever recovered.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;
use std::time::Instant;

use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use regionkv::cell::bytes::to_string_binary;
use regionkv::{Db, DbOptions, Durability, Get, Increment, ManualClock, Put, Scan};
use regionkv_bench::generator::Zipfian;
use serde::Serialize;

use crate::design::{Design, INDEX_FAMILY, IndexDesign, IndexKind, Maintained, SUMMARY_QUALIFIER};
use crate::expr::{Record, seeded_rng};
use crate::heatmap::{Heatmap, KeyBuckets};
use crate::lint::{Finding, Severity};
use crate::query::{Access, KeyRange, Plan, index_plan, plan};
use crate::skew::skew;
use crate::workload::{Pick, ReadKind, Workload};

/// Records between compaction checks (and split runs).
pub const HOUSEKEEPING_EVERY: u64 = 2_000;

/// Rows one read reads at most: a read that would read more (a prefix of millions of
/// rows) stops here, as a client paging through it would give up, and counts as capped.
pub const MAX_ROWS_PER_READ: u64 = 10_000;

/// Rows a full-table scan reads before it stops. Such a read costs the whole table on a
/// cluster whatever the lab counts — it is reported as a full scan (and capped) — and
/// reading more of it here would only make a bad design's run slow.
pub const FULL_SCAN_ROWS: u64 = 100;

/// The fewest events per region (on average) a skew window holds; see `simulate`'s
/// skew.
pub const MIN_EVENTS_PER_REGION: u64 = 200;

/// Written records kept for reads to pick from: the newest, and a uniform sample.
const PICK_POOL: usize = 65_536;

/// A run that could not be made.
#[derive(Debug, thiserror::Error)]
pub enum SimulateError {
    /// The engine failed.
    #[error("engine: {0}")]
    Engine(#[from] regionkv::Error),
    /// The rowkey cannot be made from the workload's records.
    #[error("{0}")]
    Key(#[from] crate::expr::ExprError),
    /// Anything else (a pre-split that cannot be made).
    #[error("{0}")]
    Other(String),
}

/// How a run is drawn.
#[derive(Debug, Clone)]
pub struct SimOptions {
    /// Time slices (the heatmap's X axis and the skew's unit).
    pub slices: usize,
    /// Key buckets of equal row count (the heatmap's Y axis).
    pub buckets: usize,
    /// Keys sampled to place the buckets.
    pub sample: usize,
}

impl Default for SimOptions {
    fn default() -> Self {
        SimOptions {
            slices: 300,
            buckets: 1_000,
            sample: 100_000,
        }
    }
}

/// The figures of a run (`--json` writes this).
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// The design.
    pub design: DesignSummary,
    /// The workload.
    pub workload: WorkloadSummary,
    /// The regions at the end, in key order.
    pub regions: Vec<RegionRow>,
    /// Splits, in time order.
    pub splits: Vec<SplitEvent>,
    /// Skew over regions.
    pub skew: SkewReport,
    /// Reads: fan-out and rows read.
    pub queries: QueryReport,
    /// Per family.
    pub families: Vec<FamilyRow>,
    /// Rows written (row mutations).
    pub rows: u64,
    /// Cells written.
    pub cells: u64,
    /// Mean rowkey length.
    pub row_key_bytes: f64,
    /// Mean key length of a cell as HBase's KeyValue stores it (row length 2, row, family
    /// length 1, family, qualifier, timestamp 8, type 1): what every cell repeats.
    pub key_bytes_per_cell: f64,
    /// Storefile and memstore bytes at the end.
    pub storage_bytes: u64,
    /// Storefiles at the end.
    pub storefiles: usize,
    /// Flushes (per store).
    pub flushes: u64,
    /// Compactions.
    pub compactions: u64,
    /// The hottest key ranges by writes and by reads.
    pub hot_ranges: Vec<HotRange>,
    /// The design's lint findings.
    pub lint: Vec<LintRow>,
    /// The heatmap's shape (the counts are in [`Report::heatmap`]).
    pub heatmap_shape: HeatmapShape,
    /// Wall-clock time of the run, ms.
    pub elapsed_ms: u64,
    /// A live table's recorded counters (`lab_report` in the shell), not a simulation:
    /// reads are the engine's read requests, not rows.
    pub live: bool,
    /// The writes the design's indexes add (none without `[[index]]`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub write_amplification: Option<WriteAmplification>,
    /// Each index table's own figures, as the base table's above.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub indexes: Vec<IndexReport>,
    /// Writes, reads (rows) and bytes written per time slice and key bucket.
    #[serde(skip)]
    pub heatmap: HeatmapData,
}

/// What a design's indexes add to each base put.
#[derive(Debug, Clone, Serialize)]
pub struct WriteAmplification {
    /// Base puts (row mutations of the base table).
    pub base_puts: u64,
    /// Index row mutations (entry puts and summary increments), all indexes.
    pub index_mutations: u64,
    /// (base puts + index mutations) / base puts: row mutations per base put.
    pub rows: f64,
    /// Bytes of the base puts (rowkeys and values).
    pub base_bytes: u64,
    /// Bytes of the index mutations (index rowkeys, qualifiers, values).
    pub index_bytes: u64,
    /// (base bytes + index bytes) / base bytes.
    pub bytes: f64,
    /// Requests the client sends per base put: the put and a dual write per
    /// client-maintained index.
    pub client_requests_per_put: f64,
    /// Index mutations per base put an observer sends from the region server.
    pub server_writes_per_put: f64,
}

/// One index table over the run: what the base table gets in [`Report`], for the index.
#[derive(Debug, Clone, Serialize)]
pub struct IndexReport {
    /// The index's name.
    pub name: String,
    /// Its table.
    pub table: String,
    /// `entry` or `summary`.
    pub kind: crate::design::IndexKind,
    /// `client` (dual write) or `observer`.
    pub maintained: crate::design::Maintained,
    /// Its rowkey expression.
    pub rowkey: String,
    /// Regions at create.
    pub presplit_regions: usize,
    /// MAX_FILESIZE.
    pub max_filesize: u64,
    /// MEMSTORE_FLUSHSIZE.
    pub flush_size: u64,
    /// SPLIT_POLICY.
    pub split_policy: String,
    /// Index row mutations.
    pub mutations: u64,
    /// Bytes written (index rowkeys, qualifiers, values).
    pub bytes_written: u64,
    /// Index row mutations per base put.
    pub per_put: f64,
    /// Mean index rowkey length.
    pub row_key_bytes: f64,
    /// The regions at the end, in key order.
    pub regions: Vec<RegionRow>,
    /// Splits, in time order.
    pub splits: Vec<SplitEvent>,
    /// Skew over the index's regions.
    pub skew: SkewReport,
    /// The index's hottest key ranges.
    pub hot_ranges: Vec<HotRange>,
    /// Storefile and memstore bytes at the end.
    pub storage_bytes: u64,
    /// Storefiles at the end.
    pub storefiles: usize,
    /// Flushes (per store).
    pub flushes: u64,
    /// Compactions.
    pub compactions: u64,
    /// Its heatmap (same slices as the base table's, its own key buckets).
    #[serde(skip)]
    pub heatmap: HeatmapData,
}

/// An index read's parts: the index lookup, then the base gets.
#[derive(Debug, Clone, Serialize, Default)]
pub struct IndexReadRow {
    /// The index it names.
    pub index: String,
    /// Whether the design has it (else the read scanned the base table, and the figures
    /// below are zero).
    pub present: bool,
    /// Mean gets or scans sent to the index table per read.
    pub index_requests_mean: f64,
    /// Mean index regions touched per read.
    pub index_regions_mean: f64,
    /// Most index regions one read touched.
    pub index_regions_max: u64,
    /// Mean index rows read per read.
    pub index_rows_mean: f64,
    /// Mean base gets per read (the entries followed).
    pub base_gets_mean: f64,
    /// Most base gets one read sent.
    pub base_gets_max: u64,
    /// Mean base regions the gets went to (one multi-get request each).
    pub base_regions_mean: f64,
    /// Most base regions one read's gets went to.
    pub base_regions_max: u64,
    /// Mean base rows found per read.
    pub base_rows_mean: f64,
}

/// The design, as run.
#[derive(Debug, Clone, Serialize)]
pub struct DesignSummary {
    /// Its name.
    pub name: String,
    /// The table.
    pub table: String,
    /// The rowkey expression.
    pub rowkey: String,
    /// What it shows, if said.
    pub description: Option<String>,
    /// Families.
    pub families: Vec<String>,
    /// Regions at create.
    pub presplit_regions: usize,
    /// MAX_FILESIZE.
    pub max_filesize: u64,
    /// MEMSTORE_FLUSHSIZE.
    pub flush_size: u64,
    /// SPLIT_POLICY (the default when not set).
    pub split_policy: String,
}

/// The workload, as run.
#[derive(Debug, Clone, Serialize)]
pub struct WorkloadSummary {
    /// Its name.
    pub name: String,
    /// The seed.
    pub seed: u64,
    /// Records written.
    pub writes: u64,
    /// Reads made.
    pub reads: u64,
    /// Event time of the first record, epoch ms.
    pub start_ms: i64,
    /// Simulated time, ms.
    pub duration_ms: i64,
}

/// One region at the end of the run.
#[derive(Debug, Clone, Serialize)]
pub struct RegionRow {
    /// HBase's region name.
    pub name: String,
    /// First row (toStringBinary).
    pub start: String,
    /// End row, exclusive (toStringBinary; empty: the table's end).
    pub end: String,
    /// Row mutations since it opened.
    pub writes: u64,
    /// Rows read since it opened.
    pub reads: u64,
    /// Storefile and memstore bytes.
    pub bytes: u64,
    /// Storefiles.
    pub storefiles: usize,
    /// Flushes since it opened (per store).
    pub flushes: u64,
    /// Compactions since it opened.
    pub compactions: u64,
    /// When it was made (split or create), epoch ms of simulated time.
    pub created_ms: i64,
}

/// A split.
#[derive(Debug, Clone, Serialize)]
pub struct SplitEvent {
    /// Simulated time, epoch ms.
    pub time: i64,
    /// Its time slice.
    pub slice: usize,
    /// The split key (toStringBinary).
    pub key: String,
    /// The parent's name.
    pub parent: String,
}

/// Skew of writes and of reads.
#[derive(Debug, Clone, Serialize)]
pub struct SkewReport {
    /// Writes per region.
    pub writes: SkewFigures,
    /// Rows read per region.
    pub reads: SkewFigures,
    /// Bytes per region at the end (one slice: the final regions).
    pub bytes: SkewFigures,
}

/// The skew measures, per time window over the regions that existed in it, averaged over
/// the windows that had any load. A window is a run of time slices holding on average at
/// least [`MIN_EVENTS_PER_REGION`] events per region (every slice when there are enough),
/// so counting noise does not pass for skew.
#[derive(Debug, Clone, Copy, Serialize, Default)]
pub struct SkewFigures {
    /// Busiest region's load over the mean (1: even; the region count: one region takes all).
    pub max_mean: f64,
    /// Coefficient of variation.
    pub cov: f64,
    /// Gini coefficient (0 even, towards 1 concentrated).
    pub gini: f64,
    /// HBase's balancer table-skew cost (`DoubleArrayCost`, 0 to 1).
    pub balancer_cost: f64,
    /// Windows averaged over.
    pub slices: usize,
}

impl SkewFigures {
    /// The measures of one set of loads (one slice).
    pub fn of(loads: &[f64]) -> SkewFigures {
        let k = skew(loads);
        SkewFigures {
            max_mean: k.max_over_mean,
            cov: k.cov,
            gini: k.gini,
            balancer_cost: k.balancer_cost,
            slices: 1,
        }
    }
}

/// Reads: what each kind cost.
#[derive(Debug, Clone, Serialize, Default)]
pub struct QueryReport {
    /// Reads made.
    pub count: u64,
    /// Mean regions touched per read.
    pub fanout_mean: f64,
    /// Most regions one read touched.
    pub fanout_max: u64,
    /// Mean rows read per read.
    pub rows_per_query: f64,
    /// Reads that scanned the whole table.
    pub full_scans: u64,
    /// Per entry of the read mix.
    pub kinds: Vec<QueryKindRow>,
}

/// One entry of the read mix.
#[derive(Debug, Clone, Serialize, Default)]
pub struct QueryKindRow {
    /// `get (recent)`, `latest 10 (user; by ts)`, ...
    pub label: String,
    /// Reads made.
    pub count: u64,
    /// Mean gets or scans sent per read.
    pub requests_mean: f64,
    /// Mean regions touched per read.
    pub fanout_mean: f64,
    /// Most regions one read touched.
    pub fanout_max: u64,
    /// Mean rows read per read.
    pub rows_mean: f64,
    /// Most rows one read read.
    pub rows_max: u64,
    /// Reads that scanned the whole table.
    pub full_scans: u64,
    /// Reads stopped at [`MAX_ROWS_PER_READ`] rows (full-table scans at [`FULL_SCAN_ROWS`]).
    pub capped: u64,
    /// An index read's parts (index reads only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index: Option<IndexReadRow>,
}

/// One family over the run.
#[derive(Debug, Clone, Serialize)]
pub struct FamilyRow {
    /// The family.
    pub family: String,
    /// Cells written.
    pub cells: u64,
    /// Flushes that wrote a file for it (parents' included).
    pub flushes: u64,
    /// Storefiles at the end.
    pub storefiles: usize,
    /// Storefile and memstore bytes at the end.
    pub bytes: u64,
}

/// A key range that took much of one metric.
#[derive(Debug, Clone, Serialize)]
pub struct HotRange {
    /// `writes` or `reads`.
    pub metric: String,
    /// First key bucket.
    pub first_bucket: usize,
    /// Last key bucket.
    pub last_bucket: usize,
    /// Its first key (toStringBinary).
    pub start: String,
    /// The prefix its sampled keys share (toStringBinary).
    pub prefix: String,
    /// Its share of the metric (0 to 1).
    pub share: f64,
    /// Its share of the key buckets (0 to 1).
    pub key_share: f64,
}

/// A lint finding.
#[derive(Debug, Clone, Serialize)]
pub struct LintRow {
    /// The rule's number in docs/lab.md.
    pub rule: u8,
    /// `error`, `warning` or `info`.
    pub severity: String,
    /// What is wrong.
    pub message: String,
    /// Where the rule comes from.
    pub source: String,
    /// What to do.
    pub fix: String,
}

impl From<&Finding> for LintRow {
    fn from(f: &Finding) -> Self {
        LintRow {
            rule: f.rule,
            severity: match f.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
                Severity::Info => "info",
            }
            .into(),
            message: f.message.clone(),
            source: f.source.to_string(),
            fix: f.fix.clone(),
        }
    }
}

/// The heatmap's shape.
#[derive(Debug, Clone, Serialize)]
pub struct HeatmapShape {
    /// Time slices.
    pub slices: usize,
    /// Key buckets.
    pub buckets: usize,
    /// Simulated ms per slice.
    pub slice_ms: i64,
}

/// The heatmap: counts per slice and bucket, and the buckets' keys.
#[derive(Debug, Clone, Default)]
pub struct HeatmapData {
    /// Row mutations.
    pub writes: Option<Heatmap>,
    /// Rows read.
    pub reads: Option<Heatmap>,
    /// Bytes written (rowkey and values).
    pub bytes: Option<Heatmap>,
    /// The buckets.
    pub buckets: Option<KeyBuckets>,
}

/// A region as the lab follows it.
struct LabRegion {
    name: String,
    start: Vec<u8>,
    end: Vec<u8>,
    writes: u64,
    reads: u64,
    created_ms: i64,
    first_slice: usize,
    /// The slice it ended in (split), if it did.
    last_slice: Option<usize>,
}

/// Per-slice loads: region index → count.
type SliceLoads = Vec<Vec<u64>>;

/// Adds one to region `r`'s load in `slice`.
fn bump(loads: &mut SliceLoads, slice: usize, r: usize) {
    let counts = &mut loads[slice];
    if counts.len() <= r {
        counts.resize(r + 1, 0);
    }
    counts[r] += 1;
}

struct Regions {
    all: Vec<LabRegion>,
    /// Indexes into `all` of the live regions, in key order.
    live: Vec<usize>,
}

impl Regions {
    fn of(&self, key: &[u8]) -> usize {
        // The last live region whose start is <= key.
        let i = self
            .live
            .partition_point(|&r| self.all[r].start.as_slice() <= key);
        self.live[i.saturating_sub(1)]
    }

    /// Whether region `r` (an index into `all`, maybe stale) is live and holds `key`.
    fn holds(&self, r: usize, key: &[u8]) -> bool {
        self.all.get(r).is_some_and(|reg| {
            reg.last_slice.is_none()
                && reg.start.as_slice() <= key
                && (reg.end.is_empty() || key < reg.end.as_slice())
        })
    }

    /// The live regions overlapping `[start, stop)`.
    fn overlapping<'a>(&'a self, range: &'a KeyRange) -> impl Iterator<Item = usize> + 'a {
        self.live.iter().copied().filter(move |&r| {
            let reg = &self.all[r];
            let starts_before_stop = range.stop.is_empty() || reg.start < range.stop;
            let ends_after_start = reg.end.is_empty() || reg.end > range.start;
            starts_before_stop && ends_after_start
        })
    }
}

/// Records are shared (`Arc`): the newest and the sample often hold the same one.
struct Pool {
    recent: std::collections::VecDeque<Arc<Record>>,
    sample: Vec<Arc<Record>>,
    seen: u64,
}

impl Pool {
    fn add(&mut self, r: Record, rng: &mut SmallRng) {
        let r = Arc::new(r);
        if self.recent.len() == PICK_POOL {
            self.recent.pop_front();
        }
        self.recent.push_back(Arc::clone(&r));
        self.seen += 1;
        if self.sample.len() < PICK_POOL {
            self.sample.push(r);
        } else {
            let j = rng.random_range(0..self.seen);
            if let Some(slot) = usize::try_from(j).ok().and_then(|j| self.sample.get_mut(j)) {
                *slot = r;
            }
        }
    }
}

#[derive(Default, Clone)]
struct KindStats {
    count: u64,
    requests: u64,
    fanout: u64,
    fanout_max: u64,
    rows: u64,
    rows_max: u64,
    full_scans: u64,
    capped: u64,
    /// An index read's parts, when the design has the index it names.
    index: Option<IndexStats>,
}

#[derive(Default, Clone)]
struct IndexStats {
    requests: u64,
    regions: u64,
    regions_max: u64,
    rows: u64,
    base_gets: u64,
    base_gets_max: u64,
    base_regions: u64,
    base_regions_max: u64,
    base_rows: u64,
}

/// One table of a run as the lab follows it — the base table, or an index table: its
/// regions as they split, its writes and rows read per region and time slice, its
/// heatmaps over its own key buckets, its split events and flushes. Every table gets the
/// same measures, so an index's hotspots show as the base table's do.
struct Tracked {
    name: String,
    table: regionkv::Table,
    regions: Regions,
    buckets: KeyBuckets,
    writes_map: Heatmap,
    reads_map: Heatmap,
    bytes_map: Heatmap,
    slice_writes: SliceLoads,
    slice_reads: SliceLoads,
    splits: Vec<SplitEvent>,
    family_flushes: HashMap<String, u64>,
    flush_seen: HashMap<(String, Vec<u8>), u64>,
}

/// Where the last row read fell (region, bucket): rows come in key order, so it is the
/// next row's likely place.
type Near = (usize, usize);

impl Tracked {
    /// Creates `descriptor`'s table with `split_keys` and starts following it.
    fn create(
        db: &Db,
        descriptor: &regionkv::TableDescriptor,
        split_keys: Vec<Vec<u8>>,
        buckets: KeyBuckets,
        workload: &Workload,
        slices: usize,
    ) -> Result<Tracked, SimulateError> {
        let admin = db.admin();
        let name = descriptor.name.clone();
        admin.create_table_with_splits(descriptor, split_keys)?;
        let table = db.table(&name)?;
        let map = || {
            Heatmap::new(
                workload.start_ms,
                workload.duration_ms,
                slices,
                buckets.len(),
            )
        };
        let mut regions = Regions {
            all: Vec::new(),
            live: Vec::new(),
        };
        for r in admin.regions(&name)? {
            regions.live.push(regions.all.len());
            regions.all.push(LabRegion {
                name: r.name,
                start: r.start_key,
                end: r.end_key,
                writes: 0,
                reads: 0,
                created_ms: workload.start_ms,
                first_slice: 0,
                last_slice: None,
            });
        }
        Ok(Tracked {
            name,
            table,
            regions,
            writes_map: map(),
            reads_map: map(),
            bytes_map: map(),
            buckets,
            slice_writes: vec![Vec::new(); slices],
            slice_reads: vec![Vec::new(); slices],
            splits: Vec::new(),
            family_flushes: HashMap::new(),
            flush_seen: HashMap::new(),
        })
    }

    /// Counts one row mutation of `bytes` at `key`.
    fn wrote(&mut self, key: &[u8], ts: i64, slice: usize, bytes: u64) {
        let r = self.regions.of(key);
        self.regions.all[r].writes += 1;
        bump(&mut self.slice_writes, slice, r);
        let b = self.buckets.bucket_of(key);
        self.writes_map.add(ts, b, 1);
        self.bytes_map.add(ts, b, bytes);
    }

    /// Counts one row read at `key` (HBase counts read requests per row returned).
    fn read_row(&mut self, key: &[u8], at: i64, slice: usize, near: &mut Near) {
        let r = if self.regions.holds(near.0, key) {
            near.0
        } else {
            self.regions.of(key)
        };
        let b = self.buckets.bucket_of_near(key, near.1);
        *near = (r, b);
        self.regions.all[r].reads += 1;
        bump(&mut self.slice_reads, slice, r);
        self.reads_map.add(at, b, 1);
    }

    fn housekeeping(
        &mut self,
        admin: &regionkv::Admin,
        now: i64,
        slice: usize,
    ) -> Result<(), SimulateError> {
        housekeeping(
            admin,
            &self.name,
            &mut self.regions,
            &mut self.splits,
            &mut self.flush_seen,
            &mut self.family_flushes,
            now,
            slice,
        )
    }

    /// Sends `p`'s gets or scans, reading at most `cap` rows; returns the regions the
    /// requests overlapped and the rows read. With `entries`, every qualifier of the
    /// index family in the rows read is pushed to it (an entry index's base rowkeys).
    fn run(
        &mut self,
        p: &Plan,
        at: i64,
        slice: usize,
        cap: u64,
        mut entries: Option<&mut Vec<Vec<u8>>>,
    ) -> Result<(BTreeSet<usize>, u64), SimulateError> {
        let mut touched = BTreeSet::new();
        let mut got = 0u64;
        let mut near: Near = (usize::MAX, 0);
        // A full-table scan loads every region in proportion to its rows on a cluster;
        // the few rows it reads here (all at the table's start) would paint a false
        // hotspot, so it counts as a full scan, not towards any region or bucket.
        let attribute = !p.full_scan;
        let take = |cells: &[regionkv::Cell], entries: &mut Option<&mut Vec<Vec<u8>>>| {
            if let Some(out) = entries.as_deref_mut() {
                out.extend(
                    cells
                        .iter()
                        .filter(|c| c.family() == INDEX_FAMILY.as_bytes())
                        .map(|c| c.qualifier().to_vec()),
                );
            }
        };
        match &p.access {
            Access::Gets(keys) => {
                for k in keys {
                    if got >= cap {
                        break;
                    }
                    touched.insert(self.regions.of(k));
                    let row = self.table.get(&Get::new(k))?;
                    if !row.is_empty() {
                        got += 1;
                        take(row.cells(), &mut entries);
                        if attribute {
                            self.read_row(k, at, slice, &mut near);
                        }
                    }
                }
            }
            Access::Scans {
                ranges,
                reversed,
                limit,
            } => {
                for range in ranges {
                    touched.extend(self.regions.overlapping(range));
                    if got >= cap {
                        // The rest of the requests are counted for fan-out only.
                        continue;
                    }
                    let mut scan = Scan::new().start_row(&range.start);
                    if !range.stop.is_empty() {
                        scan = scan.stop_row(&range.stop);
                    }
                    if *reversed {
                        // A reversed scan starts at its start row (the high end).
                        scan = Scan::new().reversed(true);
                        if !range.stop.is_empty() {
                            scan = scan.with_start_row(&range.stop, false);
                        }
                        scan = scan.with_stop_row(&range.start, true);
                    }
                    let left = cap - got;
                    scan = scan.limit(limit.map_or(left, |n| n.min(left)));
                    for row in self.table.scan(&scan)? {
                        let row = row?;
                        got += 1;
                        take(row.cells(), &mut entries);
                        if attribute {
                            self.read_row(row.row(), at, slice, &mut near);
                        }
                    }
                }
            }
        }
        Ok((touched, got))
    }

    /// The regions at the end with the engine's sizes and counters, and the engine's
    /// status they came from.
    fn end_state(
        &self,
        admin: &regionkv::Admin,
        start_ms: i64,
    ) -> Result<(Vec<RegionRow>, Vec<regionkv::RegionStatus>), SimulateError> {
        let status = admin.regions(&self.name)?;
        let rows = status
            .iter()
            .map(|s| {
                let lab = self
                    .regions
                    .live
                    .iter()
                    .map(|&i| &self.regions.all[i])
                    .find(|r| r.start == s.start_key);
                RegionRow {
                    name: s.name.clone(),
                    start: to_string_binary(&s.start_key),
                    end: to_string_binary(&s.end_key),
                    writes: lab.map_or(0, |r| r.writes),
                    reads: lab.map_or(0, |r| r.reads),
                    bytes: s.store_file_bytes + s.memstore_bytes,
                    storefiles: s.store_files,
                    flushes: s.stores.iter().map(|st| st.flushes).sum(),
                    compactions: s.compactions,
                    created_ms: lab.map_or(start_ms, |r| r.created_ms),
                }
            })
            .collect();
        Ok((rows, status))
    }

    /// Skew is taken per time window of merged slices, each holding on average at least
    /// MIN_EVENTS_PER_REGION events per region: fewer and a perfectly even design scores
    /// high on counting noise alone.
    fn skew_of(&self, loads: &SliceLoads, slices: usize) -> SkewFigures {
        let live_at_end = self.regions.live.len().max(1) as u64;
        let mut acc = SkewFigures::default();
        let total: u64 = loads.iter().flatten().sum();
        let windows = usize::try_from(total / (MIN_EVENTS_PER_REGION * live_at_end))
            .unwrap_or(usize::MAX)
            .clamp(1, slices);
        for w in 0..windows {
            let (first, last) = (
                w * slices / windows,
                ((w + 1) * slices / windows).max(1) - 1,
            );
            let mut counts: Vec<u64> = Vec::new();
            for slice in &loads[first..=last.max(first)] {
                if counts.len() < slice.len() {
                    counts.resize(slice.len(), 0);
                }
                for (c, v) in counts.iter_mut().zip(slice) {
                    *c += v;
                }
            }
            if counts.iter().all(|&c| c == 0) {
                continue;
            }
            let values: Vec<f64> = self
                .regions
                .all
                .iter()
                .enumerate()
                .filter(|(_, r)| r.first_slice <= last && r.last_slice.is_none_or(|l| l >= first))
                .map(|(i, _)| counts.get(i).copied().unwrap_or(0) as f64)
                .collect();
            let k = skew(&values);
            acc.max_mean += k.max_over_mean;
            acc.cov += k.cov;
            acc.gini += k.gini;
            acc.balancer_cost += k.balancer_cost;
            acc.slices += 1;
        }
        if acc.slices > 0 {
            let n = acc.slices as f64;
            acc.max_mean /= n;
            acc.cov /= n;
            acc.gini /= n;
            acc.balancer_cost /= n;
        }
        acc
    }

    /// Writes, reads and bytes skew (bytes over the regions at the end).
    fn skew_report(&self, region_rows: &[RegionRow], slices: usize) -> SkewReport {
        SkewReport {
            writes: self.skew_of(&self.slice_writes, slices),
            reads: self.skew_of(&self.slice_reads, slices),
            bytes: SkewFigures::of(
                &region_rows
                    .iter()
                    .map(|r| r.bytes as f64)
                    .collect::<Vec<_>>(),
            ),
        }
    }

    fn hot_ranges(&self) -> Vec<HotRange> {
        let mut out = hot(&self.writes_map, &self.buckets, "writes");
        out.extend(hot(&self.reads_map, &self.buckets, "reads"));
        out
    }

    fn heatmap(self) -> HeatmapData {
        HeatmapData {
            writes: Some(self.writes_map),
            reads: Some(self.reads_map),
            bytes: Some(self.bytes_map),
            buckets: Some(self.buckets),
        }
    }
}

/// A uniform sample of keys (reservoir), placing a table's heatmap buckets.
struct Reservoir {
    keys: Vec<Vec<u8>>,
    size: usize,
    pick: SmallRng,
}

impl Reservoir {
    fn new(size: usize, seed: u64) -> Reservoir {
        Reservoir {
            keys: Vec::with_capacity(size.min(1 << 20)),
            size,
            pick: SmallRng::seed_from_u64(seed),
        }
    }

    /// Offers key `n` (0-based) of the stream.
    fn offer(&mut self, n: usize, key: Vec<u8>) {
        if self.keys.len() < self.size {
            self.keys.push(key);
        } else {
            let j = self.pick.random_range(0..=n);
            if let Some(slot) = self.keys.get_mut(j) {
                *slot = key;
            }
        }
    }

    /// Key Visualizer's buckets hold equal numbers of rows, not of writes: a row written
    /// a thousand times is one row (so updates to a few hot rows show as a hot range).
    fn buckets(mut self, n: usize) -> KeyBuckets {
        self.keys.sort_unstable();
        self.keys.dedup();
        KeyBuckets::from_sample(self.keys, n)
    }
}

/// The rng an index's key expression draws from (a random salt in an index key): its own
/// stream, so adding an index changes none of the base table's keys.
fn index_rng(seed: u64, index: usize) -> rand::rngs::StdRng {
    seeded_rng(seed ^ (0x1d3_0000 + index as u64))
}

/// Writes and bytes of one index over the run.
#[derive(Default, Clone, Copy)]
struct IndexWrites {
    mutations: u64,
    bytes: u64,
    key_bytes: u64,
}

/// Runs `design` against `workload`; `progress(done, total)` is called now and then with
/// the operations made (writes and reads).
///
/// # Errors
/// [`SimulateError`] when the engine fails or a key cannot be made.
pub fn simulate(
    design: &Design,
    workload: &Workload,
    options: &SimOptions,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<Report, SimulateError> {
    let began = Instant::now();
    let writes_total = workload.records();
    if writes_total == 0 {
        return Err(SimulateError::Other(format!(
            "workload '{}' writes no records (its duration times its rate is below 1)",
            workload.name
        )));
    }
    let reads_total = workload.read_count();
    let total_ops = writes_total + reads_total;

    // Pass 1: a sample of the keys places the heatmap's buckets (the same seed makes the
    // same keys in pass 2, random salts included), the base table's and each index's.
    let (buckets, index_buckets) = {
        let mut rng = seeded_rng(workload.seed);
        let mut base = Reservoir::new(options.sample, workload.seed ^ 0x5eed);
        let mut index_rngs: Vec<rand::rngs::StdRng> = (0..design.indexes.len())
            .map(|j| index_rng(workload.seed, j))
            .collect();
        let mut index_samples: Vec<Reservoir> = (0..design.indexes.len())
            .map(|j| Reservoir::new(options.sample, workload.seed ^ 0x5eed ^ (j as u64 + 1)))
            .collect();
        for (n, (_, record)) in workload.stream().enumerate() {
            base.offer(n, design.rowkey.eval(&record, &mut rng)?);
            for (j, ix) in design.indexes.iter().enumerate() {
                index_samples[j].offer(n, ix.rowkey.eval(&record, &mut index_rngs[j])?);
            }
        }
        (
            base.buckets(options.buckets),
            index_samples
                .into_iter()
                .map(|r| r.buckets(options.buckets))
                .collect::<Vec<_>>(),
        )
    };
    let slices = options.slices.max(1);

    // The engine: in memory, deterministic, on the simulated clock.
    let clock = ManualClock::new(workload.start_ms);
    let db_options = DbOptions {
        fs: Some(Arc::new(regionkv::fs::MemFs::new())),
        block_cache_bytes: 64 << 20,
        region: regionkv::options::RegionConfig {
            // HBase's per-family flush lower bound (16 MiB of a 128 MiB flush size), at the
            // design's scale: small families of a scaled-down design flush alone as they
            // would at full size.
            flush_lower_bound_min: (design.descriptor.memstore_flush_size / 8).max(1),
            ..Default::default()
        },
        ..DbOptions::default()
            .background(false)
            .clock(Arc::new(clock.clone()))
    };
    // In memory: the engine's own file system for tests (measured faster here than
    // storefiles on tmpfs through the page cache).
    let db = Db::open("/lab", db_options)?;
    let admin = db.admin();
    let table_name = design.descriptor.name.clone();
    let split_keys = design.split_keys().map_err(SimulateError::Other)?;
    let mut base = Tracked::create(
        &db,
        &design.descriptor,
        split_keys,
        buckets,
        workload,
        slices,
    )?;
    // Each index is a table of its own in the same Db, split by its own policy.
    let mut indexes = Vec::with_capacity(design.indexes.len());
    for (ix, ib) in design.indexes.iter().zip(index_buckets) {
        let keys = ix
            .split_keys()
            .map_err(|e| SimulateError::Other(format!("index '{}': {e}", ix.name)))?;
        indexes.push(Tracked::create(
            &db,
            &ix.descriptor,
            keys,
            ib,
            workload,
            slices,
        )?);
    }
    let mut index_writes = vec![IndexWrites::default(); design.indexes.len()];
    let mut index_rngs: Vec<rand::rngs::StdRng> = (0..design.indexes.len())
        .map(|j| index_rng(workload.seed, j))
        .collect();

    // Slices as the heatmaps cut them (split events and skew use the same).
    let clock_map = Heatmap::new(workload.start_ms, workload.duration_ms, slices, 1);
    let slice_of = |ts: i64| clock_map.slice_of(ts);

    // Values: slices of a random buffer, so compression sees data, not one repeated byte.
    let mut value_rng = SmallRng::seed_from_u64(workload.seed ^ 0x7a1e);
    let noise: Vec<u8> = (0..(1 << 16)).map(|_| value_rng.random::<u8>()).collect();
    let max_value = design.data.iter().map(|d| d.value_size).max().unwrap_or(0) as usize;
    let noise = if max_value > noise.len() {
        noise.repeat(max_value / noise.len() + 1)
    } else {
        noise
    };
    let qualifiers: Vec<Vec<Vec<u8>>> = design
        .data
        .iter()
        .map(|d| {
            (0..d.columns)
                .map(|c| format!("q{c}").into_bytes())
                .collect()
        })
        .collect();
    let mut family_cells = vec![0u64; design.data.len()];

    let mut key_rng = seeded_rng(workload.seed);
    let mut read_rng = SmallRng::seed_from_u64(workload.seed ^ 0x4ead);
    let mut pool = Pool {
        recent: std::collections::VecDeque::with_capacity(PICK_POOL),
        sample: Vec::with_capacity(PICK_POOL),
        seen: 0,
    };
    let mut recent_pick = Zipfian::new(0, PICK_POOL as u64 - 1);
    let weights: Vec<u64> = workload.reads.iter().map(|r| u64::from(r.weight)).collect();
    let weight_sum: u64 = weights.iter().sum();
    let mut kinds = vec![KindStats::default(); workload.reads.len()];
    let mut reads_done = 0u64;
    let mut rows = 0u64;
    let mut base_puts = 0u64;
    let mut base_bytes = 0u64;
    let mut cells = 0u64;
    let mut key_bytes = 0u64;
    let mut cell_key_bytes = 0u64;

    // Read i comes at the end of its interval, so the first finds a record to read.
    let read_at = |i: u64| {
        workload.start_ms
            + ((i + 1) as f64 * 1000.0 / workload.read_rate.max(f64::MIN_POSITIVE)) as i64
    };

    let mut ops = 0u64;
    let mut records = workload.stream();
    loop {
        let next = records.next();
        let now = next
            .as_ref()
            .map_or(workload.start_ms + workload.duration_ms, |(ts, _)| *ts);
        // The reads due before this write.
        while reads_done < reads_total && read_at(reads_done) <= now && weight_sum > 0 {
            let at = read_at(reads_done);
            reads_done += 1;
            ops += 1;
            if pool.seen == 0 {
                continue;
            }
            clock.set(at);
            let mut w = read_rng.random_range(0..weight_sum);
            let mut which = 0;
            while w >= weights[which] {
                w -= weights[which];
                which += 1;
            }
            let spec = &workload.reads[which];
            let record = match spec.pick {
                Pick::Recent => {
                    let back = usize::try_from(
                        recent_pick.next_with_count(&mut read_rng, pool.recent.len() as u64),
                    )
                    .unwrap_or(0);
                    &pool.recent[pool.recent.len() - 1 - back.min(pool.recent.len() - 1)]
                }
                Pick::Random => &pool.sample[read_rng.random_range(0..pool.sample.len())],
            };
            let slice = slice_of(at);
            let k = &mut kinds[which];
            let index = match &spec.kind {
                ReadKind::Index { index } => design.indexes.iter().position(|i| i.name == *index),
                _ => None,
            };
            if let Some(j) = index {
                index_lookup(
                    &design.indexes[j],
                    &mut indexes[j],
                    &mut base,
                    spec,
                    record,
                    at,
                    slice,
                    k,
                )?;
                continue;
            }
            // A design without the index a read names answers it from its own key.
            let p = plan(&design.rowkey, &spec.kind, &spec.fields, record)?;
            let cap = if p.full_scan {
                FULL_SCAN_ROWS
            } else {
                MAX_ROWS_PER_READ
            };
            let (touched, got) = base.run(&p, at, slice, cap, None)?;
            let fan = touched.len() as u64;
            k.count += 1;
            k.requests += p.requests() as u64;
            k.fanout += fan;
            k.fanout_max = k.fanout_max.max(fan);
            k.rows += got;
            k.rows_max = k.rows_max.max(got);
            k.full_scans += u64::from(p.full_scan);
            k.capped += u64::from(got >= cap);
        }
        let Some((ts, record)) = next else { break };
        clock.set(ts);
        let key = design.rowkey.eval(&record, &mut key_rng)?;
        if key.is_empty() {
            // HBase refuses an empty row key; say which expression made one.
            return Err(SimulateError::Other(format!(
                "the rowkey '{}' made an empty key for record id {rows}",
                design.rowkey_text
            )));
        }
        let mut put = Put::new(&key).durability(Durability::SkipWal);
        let mut put_bytes = key.len() as u64;
        let mut put_cells = 0u64;
        let n = rows;
        for (f, d) in design.data.iter().enumerate() {
            if !n.is_multiple_of(u64::from(d.every)) {
                continue;
            }
            for q in &qualifiers[f] {
                let off = usize::try_from((n * 7919 + f as u64 * 131) % 4096).unwrap_or(0);
                let value = &noise[off..off + d.value_size as usize];
                put = put.add_column(d.family.as_bytes(), q, value);
                put_bytes += u64::from(d.value_size);
                put_cells += 1;
                family_cells[f] += 1;
                cell_key_bytes +=
                    2 + key.len() as u64 + 1 + d.family.len() as u64 + q.len() as u64 + 9;
            }
        }
        let slice = slice_of(ts);
        if put_cells > 0 {
            base.table.put(&put)?;
            base.wrote(&key, ts, slice, put_bytes);
            cells += put_cells;
            key_bytes += key.len() as u64;
            base_puts += 1;
            base_bytes += put_bytes;
        }
        // Each index's row for the record, after the base put (a dual write's order; an
        // observer's postPut comes after it too). Every key is made, written or not, so
        // the index keys follow pass 1's.
        for (j, ix) in design.indexes.iter().enumerate() {
            let ikey = ix.rowkey.eval(&record, &mut index_rngs[j])?;
            if ikey.is_empty() {
                return Err(SimulateError::Other(format!(
                    "index '{}': the rowkey '{}' made an empty key for record id {rows}",
                    ix.name, ix.rowkey_text
                )));
            }
            if put_cells == 0 {
                continue;
            }
            let bytes = match ix.kind {
                IndexKind::Entry => {
                    indexes[j].table.put(
                        &Put::new(&ikey).durability(Durability::SkipWal).add_column(
                            INDEX_FAMILY,
                            &key,
                            b"",
                        ),
                    )?;
                    ikey.len() as u64 + key.len() as u64
                }
                IndexKind::Summary => {
                    indexes[j].table.increment(
                        &Increment::new(&ikey)
                            .add_column(INDEX_FAMILY, SUMMARY_QUALIFIER, 1)
                            .durability(Durability::SkipWal),
                    )?;
                    // The counter's 8-byte value.
                    ikey.len() as u64 + SUMMARY_QUALIFIER.len() as u64 + 8
                }
            };
            indexes[j].wrote(&ikey, ts, slice, bytes);
            let w = &mut index_writes[j];
            w.mutations += 1;
            w.bytes += bytes;
            w.key_bytes += ikey.len() as u64;
        }
        rows += 1;
        ops += 1;
        pool.add(record, &mut read_rng);
        if rows.is_multiple_of(HOUSEKEEPING_EVERY) {
            base.housekeeping(&admin, ts, slice)?;
            for ix in &mut indexes {
                ix.housekeeping(&admin, ts, slice)?;
            }
            progress(ops, total_ops);
        }
    }
    let end = workload.start_ms + workload.duration_ms;
    clock.set(end);
    base.housekeeping(&admin, end, slices - 1)?;
    for ix in &mut indexes {
        ix.housekeeping(&admin, end, slices - 1)?;
    }
    progress(total_ops, total_ops);

    // The regions at the end, with the engine's sizes and counters.
    let (region_rows, status) = base.end_state(&admin, workload.start_ms)?;
    let mut storefiles = 0;
    let mut storage = 0;
    let mut compactions = 0;
    let mut family_rows: Vec<FamilyRow> = design
        .data
        .iter()
        .enumerate()
        .map(|(i, d)| FamilyRow {
            family: d.family.clone(),
            cells: family_cells[i],
            flushes: base.family_flushes.get(&d.family).copied().unwrap_or(0),
            storefiles: 0,
            bytes: 0,
        })
        .collect();
    for s in &status {
        storefiles += s.store_files;
        storage += s.store_file_bytes + s.memstore_bytes;
        compactions += s.compactions;
        for st in &s.stores {
            if let Some(f) = family_rows
                .iter_mut()
                .find(|f| f.family.as_bytes() == st.family)
            {
                f.storefiles += st.store_files;
                f.bytes += st.store_file_bytes + st.memstore_bytes;
            }
        }
    }
    let mut index_ends = Vec::with_capacity(indexes.len());
    for ix in &indexes {
        index_ends.push(ix.end_state(&admin, workload.start_ms)?);
    }
    db.close()?;

    let skew_report = base.skew_report(&region_rows, slices);

    let mut queries = QueryReport::default();
    let mut fan_total = 0u64;
    let mut rows_total = 0u64;
    for (spec, k) in workload.reads.iter().zip(&kinds) {
        let per = |x: u64| {
            if k.count == 0 {
                0.0
            } else {
                x as f64 / k.count as f64
            }
        };
        queries.kinds.push(QueryKindRow {
            label: spec.label(),
            count: k.count,
            requests_mean: per(k.requests),
            fanout_mean: per(k.fanout),
            fanout_max: k.fanout_max,
            rows_mean: per(k.rows),
            rows_max: k.rows_max,
            full_scans: k.full_scans,
            capped: k.capped,
            index: match (&spec.kind, &k.index) {
                (ReadKind::Index { index }, Some(ix)) => Some(IndexReadRow {
                    index: index.clone(),
                    present: true,
                    index_requests_mean: per(ix.requests),
                    index_regions_mean: per(ix.regions),
                    index_regions_max: ix.regions_max,
                    index_rows_mean: per(ix.rows),
                    base_gets_mean: per(ix.base_gets),
                    base_gets_max: ix.base_gets_max,
                    base_regions_mean: per(ix.base_regions),
                    base_regions_max: ix.base_regions_max,
                    base_rows_mean: per(ix.base_rows),
                }),
                (ReadKind::Index { index }, None) => Some(IndexReadRow {
                    index: index.clone(),
                    present: design.index(index).is_some(),
                    ..IndexReadRow::default()
                }),
                _ => None,
            },
        });
        queries.count += k.count;
        queries.full_scans += k.full_scans;
        queries.fanout_max = queries.fanout_max.max(k.fanout_max);
        fan_total += k.fanout;
        rows_total += k.rows;
    }
    if queries.count > 0 {
        queries.fanout_mean = fan_total as f64 / queries.count as f64;
        queries.rows_per_query = rows_total as f64 / queries.count as f64;
    }

    let hot_ranges = base.hot_ranges();
    let puts = base_puts.max(1) as f64;
    let mut index_reports = Vec::with_capacity(indexes.len());
    for (((ix, t), (ix_rows, ix_status)), w) in design
        .indexes
        .iter()
        .zip(indexes)
        .zip(index_ends)
        .zip(&index_writes)
    {
        index_reports.push(IndexReport {
            name: ix.name.clone(),
            table: t.name.clone(),
            kind: ix.kind,
            maintained: ix.maintained,
            rowkey: ix.rowkey_text.clone(),
            presplit_regions: ix.split_keys().map_or(1, |k| k.len() + 1),
            max_filesize: ix.descriptor.max_file_size,
            flush_size: ix.descriptor.memstore_flush_size,
            split_policy: ix
                .descriptor
                .split_policy
                .clone()
                .unwrap_or_else(|| "SteppingSplitPolicy".into()),
            mutations: w.mutations,
            bytes_written: w.bytes,
            per_put: w.mutations as f64 / puts,
            row_key_bytes: w.key_bytes as f64 / w.mutations.max(1) as f64,
            skew: t.skew_report(&ix_rows, slices),
            storage_bytes: ix_status
                .iter()
                .map(|s| s.store_file_bytes + s.memstore_bytes)
                .sum(),
            storefiles: ix_status.iter().map(|s| s.store_files).sum(),
            flushes: t.family_flushes.values().sum(),
            compactions: ix_status.iter().map(|s| s.compactions).sum(),
            regions: ix_rows,
            splits: t.splits.clone(),
            hot_ranges: t.hot_ranges(),
            heatmap: t.heatmap(),
        });
    }
    let write_amplification = (!index_reports.is_empty()).then(|| {
        let index_mutations: u64 = index_writes.iter().map(|w| w.mutations).sum();
        let index_bytes: u64 = index_writes.iter().map(|w| w.bytes).sum();
        let by = |m: Maintained| -> u64 {
            design
                .indexes
                .iter()
                .zip(&index_writes)
                .filter(|(ix, _)| ix.maintained == m)
                .map(|(_, w)| w.mutations)
                .sum()
        };
        WriteAmplification {
            base_puts,
            index_mutations,
            rows: (base_puts + index_mutations) as f64 / puts,
            base_bytes,
            index_bytes,
            bytes: (base_bytes + index_bytes) as f64 / base_bytes.max(1) as f64,
            client_requests_per_put: (base_puts + by(Maintained::Client)) as f64 / puts,
            server_writes_per_put: by(Maintained::Observer) as f64 / puts,
        }
    });

    let written = rows.max(1) as f64;
    Ok(Report {
        design: DesignSummary {
            name: design.name.clone(),
            table: table_name,
            rowkey: design.rowkey_text.clone(),
            description: design.description.clone(),
            families: design.data.iter().map(|d| d.family.clone()).collect(),
            presplit_regions: design.split_keys().map_or(1, |k| k.len() + 1),
            max_filesize: design.descriptor.max_file_size,
            flush_size: design.descriptor.memstore_flush_size,
            split_policy: design
                .descriptor
                .split_policy
                .clone()
                .unwrap_or_else(|| "SteppingSplitPolicy".into()),
        },
        workload: WorkloadSummary {
            name: workload.name.clone(),
            seed: workload.seed,
            writes: rows,
            reads: queries.count,
            start_ms: workload.start_ms,
            duration_ms: workload.duration_ms,
        },
        regions: region_rows,
        splits: base.splits.clone(),
        skew: skew_report,
        queries,
        families: family_rows,
        rows,
        cells,
        row_key_bytes: key_bytes as f64 / written,
        key_bytes_per_cell: if cells == 0 {
            0.0
        } else {
            cell_key_bytes as f64 / cells as f64
        },
        storage_bytes: storage,
        storefiles,
        flushes: base.family_flushes.values().sum(),
        compactions,
        hot_ranges,
        lint: crate::lint::lint_with(design, Some(workload))
            .iter()
            .map(LintRow::from)
            .collect(),
        heatmap_shape: HeatmapShape {
            slices,
            buckets: base.buckets.len(),
            slice_ms: clock_map.slice_ms(),
        },
        elapsed_ms: u64::try_from(began.elapsed().as_millis()).unwrap_or(u64::MAX),
        live: false,
        write_amplification,
        indexes: index_reports,
        heatmap: base.heatmap(),
    })
}

/// An index read through index `ix`: the index table's gets or scan for what the read
/// knows, then — for an entry index — gets of the base rows the entries name, grouped by
/// base region as HBase's client groups a multi-get (one request per region). Its
/// fan-out is the index regions and the base regions touched; its rows the index rows
/// and the base rows read.
#[allow(clippy::too_many_arguments)]
fn index_lookup(
    ix: &IndexDesign,
    index: &mut Tracked,
    base: &mut Tracked,
    spec: &crate::workload::ReadSpec,
    record: &Record,
    at: i64,
    slice: usize,
    k: &mut KindStats,
) -> Result<(), SimulateError> {
    let p = index_plan(&ix.rowkey, &spec.fields, record)?;
    let cap = if p.full_scan {
        FULL_SCAN_ROWS
    } else {
        MAX_ROWS_PER_READ
    };
    let mut entries = Vec::new();
    let collect = matches!(ix.kind, IndexKind::Entry).then_some(&mut entries);
    let (index_touched, index_rows) = index.run(&p, at, slice, cap, collect)?;
    // An entry seen twice (two index rows naming one base row) is one get.
    let mut seen = std::collections::HashSet::new();
    entries.retain(|e| seen.insert(e.clone()));
    let truncated = entries.len() as u64 > MAX_ROWS_PER_READ;
    entries.truncate(usize::try_from(MAX_ROWS_PER_READ).unwrap_or(usize::MAX));
    // The multi-get, one request per base region (sorted by key within it).
    let mut groups: BTreeMap<usize, Vec<Vec<u8>>> = BTreeMap::new();
    for e in entries {
        groups.entry(base.regions.of(&e)).or_default().push(e);
    }
    let mut base_rows = 0u64;
    let mut base_gets = 0u64;
    for keys in groups.values_mut() {
        keys.sort_unstable();
        let mut near: Near = (usize::MAX, 0);
        for key in keys.iter() {
            base_gets += 1;
            if !base.table.get(&Get::new(key))?.is_empty() {
                base_rows += 1;
                base.read_row(key, at, slice, &mut near);
            }
        }
    }
    let index_fan = index_touched.len() as u64;
    let base_fan = groups.len() as u64;
    let fan = index_fan + base_fan;
    let got = index_rows + base_rows;
    k.count += 1;
    k.requests += p.requests() as u64 + base_fan;
    k.fanout += fan;
    k.fanout_max = k.fanout_max.max(fan);
    k.rows += got;
    k.rows_max = k.rows_max.max(got);
    k.full_scans += u64::from(p.full_scan);
    k.capped += u64::from(index_rows >= cap || truncated);
    let s = k.index.get_or_insert_with(IndexStats::default);
    s.requests += p.requests() as u64;
    s.regions += index_fan;
    s.regions_max = s.regions_max.max(index_fan);
    s.rows += index_rows;
    s.base_gets += base_gets;
    s.base_gets_max = s.base_gets_max.max(base_gets);
    s.base_regions += base_fan;
    s.base_regions_max = s.base_regions_max.max(base_fan);
    s.base_rows += base_rows;
    Ok(())
}

/// HBase's compaction check and split run, then the region list read back: new regions
/// are split events.
#[allow(clippy::too_many_arguments)]
fn housekeeping(
    admin: &regionkv::Admin,
    table: &str,
    regions: &mut Regions,
    splits: &mut Vec<SplitEvent>,
    flush_seen: &mut HashMap<(String, Vec<u8>), u64>,
    family_flushes: &mut HashMap<String, u64>,
    now: i64,
    slice: usize,
) -> Result<(), SimulateError> {
    // Flushes so far (a region's counters end with it, so they are taken before a split).
    let count_flushes = |status: &[regionkv::RegionStatus],
                         seen: &mut HashMap<(String, Vec<u8>), u64>,
                         totals: &mut HashMap<String, u64>| {
        for r in status {
            for s in &r.stores {
                let last = seen
                    .entry((r.encoded_name.clone(), s.family.clone()))
                    .or_default();
                if s.flushes > *last {
                    *totals
                        .entry(String::from_utf8_lossy(&s.family).into_owned())
                        .or_default() += s.flushes - *last;
                    *last = s.flushes;
                }
            }
        }
    };
    count_flushes(&admin.regions(table)?, flush_seen, family_flushes);
    admin.compact(table)?;
    let status = admin.regions(table)?;
    count_flushes(&status, flush_seen, family_flushes);
    let same = status.len() == regions.live.len()
        && status
            .iter()
            .zip(&regions.live)
            .all(|(s, &i)| s.start_key == regions.all[i].start && s.name == regions.all[i].name);
    if same {
        return Ok(());
    }
    let old: Vec<usize> = regions.live.clone();
    let mut live = Vec::with_capacity(status.len());
    for s in &status {
        if let Some(&i) = old.iter().find(|&&i| regions.all[i].name == s.name) {
            live.push(i);
            continue;
        }
        // A new region: a daughter of the old region that held its start key.
        let parent = old
            .iter()
            .copied()
            .find(|&i| {
                let r = &regions.all[i];
                r.start <= s.start_key && (r.end.is_empty() || s.start_key < r.end)
            })
            .map(|i| regions.all[i].name.clone())
            .unwrap_or_default();
        if old.iter().all(|&i| regions.all[i].start != s.start_key) {
            splits.push(SplitEvent {
                time: now,
                slice,
                key: to_string_binary(&s.start_key),
                parent,
            });
        }
        live.push(regions.all.len());
        regions.all.push(LabRegion {
            name: s.name.clone(),
            start: s.start_key.clone(),
            end: s.end_key.clone(),
            writes: 0,
            reads: 0,
            created_ms: now,
            first_slice: slice,
            last_slice: None,
        });
    }
    for i in old {
        if !live.contains(&i) {
            regions.all[i].last_slice = Some(slice);
        }
    }
    regions.live = live;
    Ok(())
}

/// The hottest runs of adjacent buckets: where the top share of `metric` went, named by
/// the prefix their keys share.
fn hot(map: &Heatmap, buckets: &KeyBuckets, metric: &str) -> Vec<HotRange> {
    let totals = map.bucket_totals();
    let sum: u64 = totals.iter().sum();
    if sum == 0 {
        return Vec::new();
    }
    let n = totals.len();
    let mean = sum as f64 / n as f64;
    // Runs of buckets above twice the mean.
    let mut runs = Vec::new();
    let mut i = 0;
    while i < n {
        if (totals[i] as f64) > 2.0 * mean {
            let first = i;
            let mut load = 0;
            while i < n && (totals[i] as f64) > 2.0 * mean {
                load += totals[i];
                i += 1;
            }
            runs.push((first, i - 1, load));
        } else {
            i += 1;
        }
    }
    runs.sort_by_key(|r| std::cmp::Reverse(r.2));
    runs.truncate(5);
    runs.into_iter()
        .map(|(first, last, load)| HotRange {
            metric: metric.into(),
            first_bucket: first,
            last_bucket: last,
            start: to_string_binary(buckets.range(first).0),
            prefix: to_string_binary(&buckets.common_prefix(first, last)),
            share: load as f64 / sum as f64,
            key_share: (last - first + 1) as f64 / n as f64,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    type R = Result<(), Box<dyn std::error::Error>>;

    const WORKLOAD: &str = r#"
seed = 3
duration = "100s"
rate = 100
read_rate = 10
[fields]
user = { kind = "uniform", min = 0, max = 999 }
[[reads]]
kind = "get"
pick = "random"
[[reads]]
kind = "latest"
fields = ["user"]
limit = 5
"#;

    fn design(rowkey: &str, presplit: &str) -> Result<Design, crate::design::DesignError> {
        Design::parse(
            &format!(
                "table = \"t\"\nrowkey = \"{rowkey}\"\n[table_options]\nMEMSTORE_FLUSHSIZE = 1048576\n\
                 MAX_FILESIZE = 2097152\n[families.d]\nvalue_size = 400\n{presplit}"
            ),
            "t.toml",
            Path::new("."),
        )
    }

    fn run(d: &Design) -> Result<Report, Box<dyn std::error::Error>> {
        let w = Workload::parse(WORKLOAD, "w.toml")?;
        let options = SimOptions {
            slices: 20,
            buckets: 50,
            sample: 5_000,
        };
        Ok(simulate(d, &w, &options, &mut |_, _| {})?)
    }

    #[test]
    fn a_run_counts_every_write_and_read_and_repeats_exactly() -> R {
        let d = design(
            "hashmod(pad(user, 3), 4) + pad(user, 3) + reverse_ts(ts)",
            "[presplit]\nSPLITS = [\"1\", \"2\", \"3\"]",
        )?;
        let a = run(&d)?;
        assert_eq!(a.rows, 10_000);
        assert_eq!(a.regions.len(), 4);
        assert_eq!(a.regions.iter().map(|r| r.writes).sum::<u64>(), 10_000);
        assert_eq!(a.cells, 10_000);
        assert_eq!(a.queries.count, 1_000);
        // Every get finds its row; every latest read is one region.
        let gets = &a.queries.kinds[0];
        assert_eq!((gets.rows_mean, gets.fanout_max), (1.0, 1));
        assert_eq!(a.queries.kinds[1].fanout_max, 1);
        // Rows read per region add up to the reads' rows.
        let rows: f64 = a
            .queries
            .kinds
            .iter()
            .map(|k| k.rows_mean * k.count as f64)
            .sum();
        assert_eq!(
            a.regions.iter().map(|r| r.reads).sum::<u64>() as f64,
            rows.round()
        );
        // The same seed, the same figures.
        let b = run(&d)?;
        assert_eq!(
            serde_json::to_string(&a.regions)?,
            serde_json::to_string(&b.regions)?
        );
        assert_eq!(a.skew.writes.gini.to_bits(), b.skew.writes.gini.to_bits());
        Ok(())
    }

    #[test]
    fn monotonic_keys_split_at_the_end_and_score_high_per_slice() -> R {
        let a = run(&design("long(ts) + pad(user, 3)", "")?)?;
        assert!(a.splits.len() >= 2, "{:?}", a.splits);
        // Splits happen in time order, each at a key above the last.
        assert!(
            a.splits
                .windows(2)
                .all(|w| w[0].time <= w[1].time && w[0].key < w[1].key)
        );
        // Once split, a lower daughter never gets another write: at most the last region
        // has any since it opened (none when the last split came at the very end).
        let n = a.regions.len();
        assert!(
            a.regions[..n - 1].iter().all(|r| r.writes == 0),
            "{:?}",
            a.regions
        );
        let salted = run(&design(
            "hashmod(pad(user, 3), 4) + pad(user, 3) + long(ts)",
            "[presplit]\nSPLITS = [\"1\", \"2\", \"3\"]",
        )?)?;
        assert!(
            a.skew.writes.balancer_cost > 3.0 * salted.skew.writes.balancer_cost,
            "{:?} vs {:?}",
            a.skew.writes,
            salted.skew.writes
        );
        // Over the whole run every key bucket got its rows (buckets hold equal row counts):
        // no range is hot in total, only in its time — what the per-slice skew shows.
        assert!(
            !a.hot_ranges.iter().any(|h| h.metric == "writes"),
            "{:?}",
            a.hot_ranges
        );
        Ok(())
    }

    #[test]
    fn rows_written_again_and_again_are_a_hot_range() -> R {
        // A zipfian user's counter row: user 0 takes a large share of the writes.
        let w = Workload::parse(
            "seed = 1\nduration = \"60s\"\nrate = 100\n[fields]\nuser = { kind = \"zipfian\", min = 0, max = 999 }\n",
            "w.toml",
        )?;
        let d = design("'u' + pad(user, 3)", "")?;
        let options = SimOptions {
            slices: 10,
            buckets: 100,
            sample: 5_000,
        };
        let a = simulate(&d, &w, &options, &mut |_, _| {})?;
        let hot = a
            .hot_ranges
            .iter()
            .find(|h| h.metric == "writes")
            .ok_or("no hot range")?;
        assert!(hot.share > 0.3 && hot.key_share < 0.1, "{hot:?}");
        assert!(hot.prefix.starts_with("u0"), "{hot:?}");
        Ok(())
    }

    const INDEXED_WORKLOAD: &str = r#"
seed = 5
duration = "100s"
rate = 100
read_rate = 10
[fields]
user = { kind = "zipfian", min = 0, max = 999 }
day = { kind = "choice", values = ["d1", "d2"] }
[[reads]]
kind = "index"
index = "by_user"
fields = ["user"]
[[reads]]
kind = "index"
index = "daily"
fields = ["day", "user"]
[[reads]]
kind = "index"
index = "salted"
fields = ["user"]
"#;

    const INDEXES: &str = "\n[[index]]\nname = \"by_user\"\nrowkey = \"pad(user, 3) + pad(id, 6)\"\n\
        [index.presplit]\nSPLITS = [\"2\", \"4\", \"6\", \"8\"]\n\
        [[index]]\nname = \"daily\"\nrowkey = \"day + pad(user, 3)\"\nkind = \"summary\"\n\
        maintained = \"observer\"\n\
        [[index]]\nname = \"salted\"\nrowkey = \"hashmod(id, 4) + pad(user, 3) + pad(id, 6)\"\n\
        [index.presplit]\nSPLITS = [\"1\", \"2\", \"3\"]\n";

    #[test]
    fn indexes_add_their_writes_and_leave_the_base_table_alone() -> R {
        let plain = design("hashmod(id, 4) + pad(id, 6)", "")?;
        let indexed = design("hashmod(id, 4) + pad(id, 6)", INDEXES)?;
        // The indexed workload's records, with reads that name no index.
        let text = INDEXED_WORKLOAD
            .split("[[reads]]")
            .next()
            .unwrap_or_default()
            .to_string()
            + "[[reads]]\nkind = \"get\"\npick = \"random\"\n\
               [[reads]]\nkind = \"latest\"\nfields = [\"user\"]\nlimit = 5\n";
        let w = Workload::parse(&text, "w.toml")?;
        let options = SimOptions {
            slices: 20,
            buckets: 50,
            sample: 5_000,
        };
        let a = simulate(&plain, &w, &options, &mut |_, _| {})?;
        let b = simulate(&indexed, &w, &options, &mut |_, _| {})?;
        // The base table's writes, regions and splits are the same with or without them
        // (gets and latest reads only: no read names an index).
        assert_eq!(
            serde_json::to_string(&(&a.regions, &a.splits, a.cells))?,
            serde_json::to_string(&(&b.regions, &b.splits, b.cells))?
        );
        assert!(a.indexes.is_empty() && a.write_amplification.is_none());
        let json = serde_json::to_value(&a)?;
        assert!(json.get("indexes").is_none() && json.get("write_amplification").is_none());
        // One index row mutation per base put and index: 4 row mutations per put, the
        // dual writes the client's and the summary's the observer's.
        let w = b
            .write_amplification
            .as_ref()
            .ok_or("no write amplification")?;
        assert_eq!((w.base_puts, w.index_mutations), (10_000, 30_000));
        assert!((w.rows - 4.0).abs() < 1e-9, "{}", w.rows);
        assert!((w.client_requests_per_put - 3.0).abs() < 1e-9);
        assert!((w.server_writes_per_put - 1.0).abs() < 1e-9);
        assert!(w.bytes > 1.0 && w.index_bytes > 0);
        assert_eq!(b.indexes.len(), 3);
        for ix in &b.indexes {
            assert_eq!(ix.mutations, 10_000, "{}", ix.name);
            assert_eq!(ix.regions.iter().map(|r| r.writes).sum::<u64>(), 10_000);
            assert!(ix.storage_bytes > 0);
        }
        assert_eq!(b.indexes[1].table, "t_daily");
        Ok(())
    }

    #[test]
    fn index_reads_count_their_fan_out() -> R {
        let w = Workload::parse(INDEXED_WORKLOAD, "w.toml")?;
        let options = SimOptions {
            slices: 20,
            buckets: 50,
            sample: 5_000,
        };
        let d = design(
            "hashmod(id, 4) + pad(id, 6)",
            &format!("[presplit]\nSPLITS = [\"1\", \"2\", \"3\"]\n{INDEXES}"),
        )?;
        let r = simulate(&d, &w, &options, &mut |_, _| {})?;
        let kind = |i: usize| r.queries.kinds[i].index.clone().ok_or("not an index read");
        // by_user: one scan of one index region, then a get per entry; a user's rows are
        // spread over the four salted base regions.
        let by_user = kind(0)?;
        assert!(by_user.present);
        assert_eq!(
            (by_user.index_requests_mean, by_user.index_regions_max),
            (1.0, 1)
        );
        assert!(by_user.index_rows_mean >= 1.0);
        // Every entry names a row that exists, and each index row is one entry.
        assert!((by_user.base_gets_mean - by_user.index_rows_mean).abs() < 1e-9);
        assert!((by_user.base_rows_mean - by_user.base_gets_mean).abs() < 1e-9);
        assert!(by_user.base_regions_max > 1 && by_user.base_regions_max <= 4);
        let k = &r.queries.kinds[0];
        assert!(
            (k.fanout_mean - by_user.index_regions_mean - by_user.base_regions_mean).abs() < 1e-9
        );
        // The summary: one get of one counter row, no base gets.
        let daily = kind(1)?;
        assert_eq!(
            (daily.index_requests_mean, daily.index_rows_mean),
            (1.0, 1.0)
        );
        assert_eq!((daily.base_gets_mean, daily.base_regions_max), (0.0, 0));
        assert_eq!(r.queries.kinds[1].rows_max, 1);
        // An index salted by what the read does not know: one scan per bucket.
        let salted = kind(2)?;
        assert_eq!(salted.index_requests_mean, 4.0);
        assert!((salted.base_gets_mean - salted.index_rows_mean).abs() < 1e-9);
        // Rows read in each table add up to what the reads counted there.
        let index_rows: u64 = r
            .indexes
            .iter()
            .flat_map(|i| &i.regions)
            .map(|g| g.reads)
            .sum();
        let expected: f64 = [&by_user, &daily, &salted]
            .iter()
            .zip(&r.queries.kinds)
            .map(|(i, k)| i.index_rows_mean * k.count as f64)
            .sum();
        assert_eq!(index_rows as f64, expected.round());
        // A zipfian user: the index's writes crowd the region of the popular users'
        // keys; salted by the id, they spread over the index's regions.
        let (hot, even) = (&r.indexes[0].skew.writes, &r.indexes[2].skew.writes);
        assert!(hot.max_mean > 2.0 * even.max_mean, "{hot:?} vs {even:?}");
        assert!(even.max_mean < 1.5, "{even:?}");

        // A design without the indexes answers the same reads by scanning its own key:
        // every salt bucket, all of its rows (fewer reads: each reads the table).
        let plain = design("hashmod(id, 4) + pad(id, 6)", "")?;
        let mut few = w.clone();
        few.read_rate = 0.5;
        let r = simulate(&plain, &few, &options, &mut |_, _| {})?;
        let k = &r.queries.kinds[0];
        assert_eq!(k.index.as_ref().map(|i| i.present), Some(false));
        assert_eq!(k.requests_mean, 4.0);
        assert!(k.rows_mean > 1_000.0, "{k:?}");
        Ok(())
    }
}
