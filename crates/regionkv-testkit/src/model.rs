//! A reference model of one HBase 2.x region's read path: what a get, a scan, a flush and
//! a compaction keep, written straight from `/work/shared/hbase/semantics.md` (each rule
//! names its section, "§n") and the HBase classes that section cites. It is deliberately
//! naive: every store is a memstore (a `Vec` of cells) plus a list of files (sorted
//! `Vec`s of cells); every read merges those HBase would open for it (see
//! `store_row_cells`) and walks one row of one family in key order, asking the same
//! questions HBase's matcher asks, cell by cell.
//!
//! What the model keeps track of is *physical*: which cells sit in the memstore and in
//! which file. Flush and compaction rewrite that physical state with HBase's rules, so the
//! model also reproduces HBase's "results depend on when compactions ran" behaviours
//! (§3.2 consequences, §3.4, §3.5).
//!
//! Per-cell TTLs (HBase's `Mutation#setTTL`, a TTL tag) are modelled as a field of the
//! cell, checked in preCheck for every kind of read, flush and compaction (HBase's
//! `isCellTTLExpired`).
//!
//! Not modelled: NEW_VERSION_BEHAVIOR (§8), filters, open
//! scanners' read points (§3.4 last line: with no concurrent scanner every cell is below
//! the smallest read point), `hbase.hstore.time.to.purge.deletes` (always 0).
//!
//! ```
//! use regionkv_testkit::model::{CellSpec, FamilyOptions, Model, Query};
//!
//! let mut m = Model::new(vec![FamilyOptions::new(b"f")], 1_000).unwrap();
//! m.mutate(b"r", vec![CellSpec::put(b"f", b"q", 10, b"v1")]).unwrap();
//! m.mutate(b"r", vec![CellSpec::put(b"f", b"q", 20, b"v2")]).unwrap();
//! let cells = m.get(b"r", &Query::default()).unwrap();
//! assert_eq!(cells.len(), 1);
//! assert_eq!(cells[0].value, b"v2");
//! ```

use regionkv_cell::{CellType, TimeRange};
use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

// ---------------------------------------------------------------------------------------
// Family options, cells, queries
// ---------------------------------------------------------------------------------------

/// KEEP_DELETED_CELLS (§7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum KeepDeletedCells {
    /// Deleted cells are invisible and removed by major compactions.
    #[default]
    False,
    /// Deleted cells are kept (within VERSIONS and TTL) for time-range reads.
    True,
    /// Like `True` until the marker expires by TTL, then like `False`.
    Ttl,
}

/// One column family's options (the ones that decide what reads and compactions keep).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FamilyOptions {
    /// Family name.
    pub name: Vec<u8>,
    /// VERSIONS (≥ 1).
    pub max_versions: u32,
    /// MIN_VERSIONS (≤ VERSIONS).
    pub min_versions: u32,
    /// TTL in seconds; `None` is FOREVER.
    pub ttl_seconds: Option<u32>,
    /// KEEP_DELETED_CELLS.
    pub keep_deleted_cells: KeepDeletedCells,
}

impl FamilyOptions {
    /// HBase's defaults: VERSIONS 1, MIN_VERSIONS 0, TTL FOREVER, KEEP_DELETED_CELLS FALSE.
    pub fn new(name: &[u8]) -> Self {
        Self {
            name: name.to_vec(),
            max_versions: 1,
            min_versions: 0,
            ttl_seconds: None,
            keep_deleted_cells: KeepDeletedCells::False,
        }
    }

    /// Sets VERSIONS.
    #[must_use]
    pub fn versions(mut self, n: u32) -> Self {
        self.max_versions = n;
        self
    }

    /// Sets MIN_VERSIONS.
    #[must_use]
    pub fn min_versions(mut self, n: u32) -> Self {
        self.min_versions = n;
        self
    }

    /// Sets the TTL in seconds.
    #[must_use]
    pub fn ttl(mut self, seconds: u32) -> Self {
        self.ttl_seconds = Some(seconds);
        self
    }

    /// Sets KEEP_DELETED_CELLS.
    #[must_use]
    pub fn keep_deleted(mut self, kdc: KeepDeletedCells) -> Self {
        self.keep_deleted_cells = kdc;
        self
    }

    /// `oldestUnexpiredTS = now − TTL_ms` (§3.1): a cell is expired iff `ts` is below it.
    /// FOREVER gives `i64::MIN`, so nothing is ever expired.
    fn oldest_unexpired(&self, now: i64) -> i64 {
        match self.ttl_seconds {
            Some(s) => now.saturating_sub(i64::from(s) * 1000),
            None => i64::MIN,
        }
    }
}

/// One cell as the model stores it.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct ModelCell {
    /// Row.
    pub row: Vec<u8>,
    /// Family.
    pub family: Vec<u8>,
    /// Qualifier (empty for family markers).
    pub qualifier: Vec<u8>,
    /// Timestamp.
    pub ts: i64,
    /// Put or one of the four delete markers.
    pub cell_type: CellType,
    /// Sequence id (write order) the model assigned.
    pub seq: u64,
    /// Value (empty for markers).
    pub value: Vec<u8>,
    /// Per-cell TTL in milliseconds (`None`: none).
    pub ttl: Option<i64>,
}

impl ModelCell {
    /// True for the four delete marker types.
    pub fn is_delete(&self) -> bool {
        self.cell_type != CellType::Put
    }

    /// `(row, family, qualifier, ts, type, value)`: what a read result is compared on
    /// (sequence ids are an engine detail that compactions may rewrite).
    pub fn visible(&self) -> (Vec<u8>, Vec<u8>, Vec<u8>, i64, CellType, Vec<u8>) {
        (
            self.row.clone(),
            self.family.clone(),
            self.qualifier.clone(),
            self.ts,
            self.cell_type,
            self.value.clone(),
        )
    }
}

impl fmt::Debug for ModelCell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}/{}:{}/{}/{}/seq={}/{}",
            String::from_utf8_lossy(&self.row),
            String::from_utf8_lossy(&self.family),
            String::from_utf8_lossy(&self.qualifier),
            self.ts,
            self.cell_type.name(),
            self.seq,
            String::from_utf8_lossy(&self.value)
        )
    }
}

/// The cell order of §1: row ↑, family ↑, qualifier ↑, timestamp ↓, type code ↓,
/// sequence id ↓ (all byte comparisons unsigned).
pub fn cell_order(a: &ModelCell, b: &ModelCell) -> Ordering {
    a.row
        .cmp(&b.row)
        .then_with(|| a.family.cmp(&b.family))
        .then_with(|| a.qualifier.cmp(&b.qualifier))
        .then_with(|| b.ts.cmp(&a.ts))
        .then_with(|| b.cell_type.code().cmp(&a.cell_type.code()))
        .then_with(|| b.seq.cmp(&a.seq))
}

/// One cell of a row mutation (the row is the mutation's).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CellSpec {
    /// Family.
    pub family: Vec<u8>,
    /// Qualifier.
    pub qualifier: Vec<u8>,
    /// Timestamp (explicit; the model has no "latest").
    pub ts: i64,
    /// Type.
    pub cell_type: CellType,
    /// Value.
    pub value: Vec<u8>,
    /// Per-cell TTL in milliseconds (puts only; HBase refuses TTLs on deletes).
    pub ttl: Option<i64>,
}

impl CellSpec {
    /// The same cell with a per-cell TTL of `ms` milliseconds.
    #[must_use]
    pub fn with_ttl(mut self, ms: i64) -> Self {
        self.ttl = Some(ms);
        self
    }

    /// A Put.
    pub fn put(family: &[u8], qualifier: &[u8], ts: i64, value: &[u8]) -> Self {
        Self {
            family: family.to_vec(),
            qualifier: qualifier.to_vec(),
            ts,
            cell_type: CellType::Put,
            value: value.to_vec(),
            ttl: None,
        }
    }

    /// A delete marker. Family markers (DeleteFamily, DeleteFamilyVersion) store an empty
    /// qualifier whatever is passed, as HBase does.
    pub fn delete(family: &[u8], qualifier: &[u8], ts: i64, cell_type: CellType) -> Self {
        let family_marker = matches!(
            cell_type,
            CellType::DeleteFamily | CellType::DeleteFamilyVersion
        );
        Self {
            family: family.to_vec(),
            qualifier: if family_marker {
                Vec::new()
            } else {
                qualifier.to_vec()
            },
            ts,
            cell_type,
            value: Vec::new(),
            ttl: None,
        }
    }
}

/// A get or scan's columns, versions, time range and raw flag (§3, §9).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Query {
    /// Family → qualifiers. Empty map: every family. Empty list: every column of it.
    pub families: BTreeMap<Vec<u8>, Vec<Vec<u8>>>,
    /// Versions per column (HBase default 1).
    pub max_versions: u32,
    /// `[min, max)`.
    pub time_range: TimeRange,
    /// Raw: markers returned, nothing masked, no TTL, versions not capped by the family.
    pub raw: bool,
}

impl Default for Query {
    fn default() -> Self {
        Self {
            families: BTreeMap::new(),
            max_versions: 1,
            time_range: TimeRange::all_time(),
            raw: false,
        }
    }
}

impl Query {
    /// Adds a whole family.
    #[must_use]
    pub fn family(mut self, family: &[u8]) -> Self {
        self.families.insert(family.to_vec(), Vec::new());
        self
    }
    /// Adds one column.
    #[must_use]
    pub fn column(mut self, family: &[u8], qualifier: &[u8]) -> Self {
        self.families
            .entry(family.to_vec())
            .or_default()
            .push(qualifier.to_vec());
        self
    }
    /// Sets the versions.
    #[must_use]
    pub fn versions(mut self, n: u32) -> Self {
        self.max_versions = n;
        self
    }
    /// Sets the time range `[min, max)` (panics on an invalid range: test input).
    #[must_use]
    pub fn time_range(mut self, min: i64, max: i64) -> Self {
        self.time_range = match TimeRange::between(min, max) {
            Ok(tr) => tr,
            Err(e) => panic!("invalid time range in a test query: {e}"),
        };
        self
    }
    /// Makes it raw.
    #[must_use]
    pub fn raw(mut self) -> Self {
        self.raw = true;
        self
    }
}

/// A scan's row range, direction and limit (§9), with its query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelScan {
    /// Start row; empty: from the first row (forward) or the last (reversed).
    pub start_row: Vec<u8>,
    /// Whether the start row itself is included (HBase default true).
    pub include_start: bool,
    /// Stop row; empty: to the last row (forward) or the first (reversed).
    pub stop_row: Vec<u8>,
    /// Whether the stop row itself is included (HBase default false).
    pub include_stop: bool,
    /// Rows in descending order; `start_row` is then the highest row.
    pub reversed: bool,
    /// Most rows returned (rows with at least one cell).
    pub limit: Option<u64>,
    /// Columns, versions, time range, raw.
    pub query: Query,
}

impl ModelScan {
    /// A forward scan of `[start, stop)`.
    pub fn new(start: &[u8], stop: &[u8], query: Query) -> Self {
        Self {
            start_row: start.to_vec(),
            include_start: true,
            stop_row: stop.to_vec(),
            include_stop: false,
            reversed: false,
            limit: None,
            query,
        }
    }

    /// Whether `row` lies between the bounds, in the scan's direction.
    fn in_range(&self, row: &[u8]) -> bool {
        let (before_start, after_stop) = if self.reversed {
            (Ordering::Greater, Ordering::Less)
        } else {
            (Ordering::Less, Ordering::Greater)
        };
        let start_ok = self.start_row.is_empty()
            || match row.cmp(&self.start_row) {
                Ordering::Equal => self.include_start,
                o => o != before_start,
            };
        let stop_ok = self.stop_row.is_empty()
            || match row.cmp(&self.stop_row) {
                Ordering::Equal => self.include_stop,
                o => o != after_stop,
            };
        start_ok && stop_ok
    }
}

/// Why the model refused an operation (the same situations in which HBase errors).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModelError {
    /// The family is not in the table.
    NoSuchFamily(Vec<u8>),
    /// VERSIONS < 1 or MIN_VERSIONS > VERSIONS, or a duplicate family.
    InvalidFamily(String),
    /// A read asked for 0 versions.
    ZeroVersions,
    /// A raw read named qualifiers ("Cannot specify any column for a raw scan").
    RawWithColumns,
    /// An empty row or a negative timestamp.
    InvalidWrite(String),
    /// A compaction named a file index that does not exist.
    NoSuchFile(usize),
}

impl fmt::Display for ModelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self:?}")
    }
}

impl std::error::Error for ModelError {}

/// One store file: cells in §1 order, and the sequence id HBase files are ordered by.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelFile {
    /// Cells, sorted by [`cell_order`].
    pub cells: Vec<ModelCell>,
    /// The region's sequence id at the flush that wrote it; for a compaction output the
    /// largest of its inputs' (HBase's MAX_SEQ_ID; files are ordered by it, oldest first).
    pub max_seq: u64,
}

impl ModelFile {
    /// The largest sequence id of a cell in the file.
    pub fn max_cell_seq(&self) -> u64 {
        self.cells.iter().map(|c| c.seq).max().unwrap_or(0)
    }

    /// HBase's EARLIEST_PUT_TS file metadata: the smallest Put timestamp in the file,
    /// `i64::MAX` (LATEST_TIMESTAMP) when it holds no Put (§3.5).
    pub fn earliest_put_ts(&self) -> i64 {
        self.cells
            .iter()
            .filter(|c| c.cell_type == CellType::Put)
            .map(|c| c.ts)
            .min()
            .unwrap_or(i64::MAX)
    }
}

/// What a compaction did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Compaction {
    /// Whether the major (drop-deletes) rules applied: the inputs were every file (§3.5).
    pub major: bool,
    /// Cells written to the output file; `None` when nothing survived (no file written).
    pub output_cells: Option<usize>,
}

/// One family's physical state.
#[derive(Debug, Clone)]
struct Store {
    options: FamilyOptions,
    memstore: Vec<ModelCell>,
    /// Oldest first (ascending `max_seq`).
    files: Vec<ModelFile>,
}

/// The reference region.
#[derive(Debug, Clone)]
pub struct Model {
    stores: BTreeMap<Vec<u8>, Store>,
    now: i64,
    last_seq: u64,
}

// ---------------------------------------------------------------------------------------
// The model's operations
// ---------------------------------------------------------------------------------------

impl Model {
    /// A region with these families and the clock at `now` (ms). Fails like HBase's
    /// descriptor checks: VERSIONS ≥ 1, MIN_VERSIONS ≤ VERSIONS (§6), unique names.
    pub fn new(families: Vec<FamilyOptions>, now: i64) -> Result<Self, ModelError> {
        let mut stores = BTreeMap::new();
        for options in families {
            if options.max_versions < 1 {
                return Err(ModelError::InvalidFamily(
                    "Maximum versions must be positive".into(),
                ));
            }
            if options.min_versions > options.max_versions {
                return Err(ModelError::InvalidFamily(
                    "Min versions must be less than the Max versions".into(),
                ));
            }
            let name = options.name.clone();
            let store = Store {
                options,
                memstore: Vec::new(),
                files: Vec::new(),
            };
            if stores.insert(name.clone(), store).is_some() {
                return Err(ModelError::InvalidFamily(format!(
                    "family {} defined twice",
                    String::from_utf8_lossy(&name)
                )));
            }
        }
        Ok(Self {
            stores,
            now,
            last_seq: 0,
        })
    }

    /// The clock (ms).
    pub fn now(&self) -> i64 {
        self.now
    }

    /// Sets the clock (ms).
    pub fn set_clock(&mut self, now: i64) {
        self.now = now;
    }

    /// Moves the clock forward by `ms`; returns the new time.
    pub fn advance_clock(&mut self, ms: i64) -> i64 {
        self.now += ms;
        self.now
    }

    /// The last sequence id handed out (0 before the first write).
    pub fn last_seq(&self) -> u64 {
        self.last_seq
    }

    /// Family names, in order.
    pub fn families(&self) -> Vec<Vec<u8>> {
        self.stores.keys().cloned().collect()
    }

    /// A family's options.
    pub fn options(&self, family: &[u8]) -> Result<&FamilyOptions, ModelError> {
        Ok(&self.store(family)?.options)
    }

    /// A family's memstore (unsorted, in write order).
    pub fn memstore(&self, family: &[u8]) -> Result<&[ModelCell], ModelError> {
        Ok(&self.store(family)?.memstore)
    }

    /// A family's files, oldest first.
    pub fn files(&self, family: &[u8]) -> Result<&[ModelFile], ModelError> {
        Ok(&self.store(family)?.files)
    }

    fn store(&self, family: &[u8]) -> Result<&Store, ModelError> {
        self.stores
            .get(family)
            .ok_or_else(|| ModelError::NoSuchFamily(family.to_vec()))
    }

    fn store_mut(&mut self, family: &[u8]) -> Result<&mut Store, ModelError> {
        self.stores
            .get_mut(family)
            .ok_or_else(|| ModelError::NoSuchFamily(family.to_vec()))
    }

    /// Applies one row mutation atomically under one new sequence id, which it returns.
    /// An empty mutation does nothing and returns the last sequence id. Within one
    /// mutation a cell with the same coordinates, timestamp and type as an earlier one
    /// replaces it (they share the sequence id, so the memstore sees one key; HBase's
    /// `CellSet.add` keeps the later one).
    pub fn mutate(&mut self, row: &[u8], cells: Vec<CellSpec>) -> Result<u64, ModelError> {
        if row.is_empty() {
            return Err(ModelError::InvalidWrite("Row length is 0".into()));
        }
        for c in &cells {
            self.store(&c.family)?;
            if c.ts < 0 {
                return Err(ModelError::InvalidWrite(format!(
                    "Timestamp cannot be negative: {}",
                    c.ts
                )));
            }
        }
        if cells.is_empty() {
            return Ok(self.last_seq);
        }
        self.last_seq += 1;
        let seq = self.last_seq;
        for c in cells {
            let cell = ModelCell {
                row: row.to_vec(),
                family: c.family,
                qualifier: c.qualifier,
                ts: c.ts,
                cell_type: c.cell_type,
                seq,
                value: c.value,
                ttl: c.ttl,
            };
            let store = self.store_mut(&cell.family)?;
            match store
                .memstore
                .iter_mut()
                .find(|m| cell_order(m, &cell) == Ordering::Equal)
            {
                Some(existing) => *existing = cell,
                None => store.memstore.push(cell),
            }
        }
        Ok(seq)
    }

    /// One Put as its own mutation.
    pub fn put(
        &mut self,
        row: &[u8],
        family: &[u8],
        qualifier: &[u8],
        ts: i64,
        value: &[u8],
    ) -> Result<u64, ModelError> {
        self.mutate(row, vec![CellSpec::put(family, qualifier, ts, value)])
    }

    /// One delete marker as its own mutation.
    pub fn delete(
        &mut self,
        row: &[u8],
        family: &[u8],
        qualifier: &[u8],
        ts: i64,
        cell_type: CellType,
    ) -> Result<u64, ModelError> {
        self.mutate(
            row,
            vec![CellSpec::delete(family, qualifier, ts, cell_type)],
        )
    }

    /// Flushes one family's memstore into a new file with the minor-compaction rules at
    /// the model's clock (§3.4). The memstore is emptied; a file is written only when
    /// some cell survives. Returns whether a file was written.
    pub fn flush(&mut self, family: &[u8]) -> Result<bool, ModelError> {
        let now = self.now;
        let max_seq = self.last_seq;
        let store = self.store_mut(family)?;
        if store.memstore.is_empty() {
            return Ok(false);
        }
        let mut input = std::mem::take(&mut store.memstore);
        input.sort_by(cell_order);
        let cells = compact_cells(&store.options, &input, now, CompactionKind::Minor);
        if cells.is_empty() {
            return Ok(false);
        }
        store.files.push(ModelFile { cells, max_seq });
        store.files.sort_by_key(|f| f.max_seq);
        Ok(true)
    }

    /// Flushes every family (an explicit admin flush); returns the families that wrote a
    /// file.
    pub fn flush_all(&mut self) -> Vec<Vec<u8>> {
        let mut wrote = Vec::new();
        for family in self.families() {
            if let Ok(true) = self.flush(&family) {
                wrote.push(family);
            }
        }
        wrote
    }

    /// Compacts the files at `indexes` (into [`Model::files`]) of `family` into one, at
    /// the model's clock. When they are all of the store's files the major rules apply
    /// (§3.5, HBase's `Compactor`: all files ⇒ COMPACT_DROP_DELETES), otherwise the minor
    /// ones (§3.4). The memstore takes no part. No indexes: nothing happens.
    pub fn compact(&mut self, family: &[u8], indexes: &[usize]) -> Result<Compaction, ModelError> {
        let now = self.now;
        let store = self.store_mut(family)?;
        let chosen: BTreeSet<usize> = indexes.iter().copied().collect();
        if let Some(&bad) = chosen.iter().find(|&&i| i >= store.files.len()) {
            return Err(ModelError::NoSuchFile(bad));
        }
        if chosen.is_empty() {
            return Ok(Compaction {
                major: false,
                output_cells: None,
            });
        }
        let major = chosen.len() == store.files.len();
        let mut inputs = Vec::new();
        let mut kept = Vec::new();
        for (i, f) in std::mem::take(&mut store.files).into_iter().enumerate() {
            if chosen.contains(&i) {
                inputs.push(f);
            } else {
                kept.push(f);
            }
        }
        let kind = if major {
            CompactionKind::Major {
                earliest_put_ts: inputs
                    .iter()
                    .map(ModelFile::earliest_put_ts)
                    .min()
                    .unwrap_or(i64::MAX),
            }
        } else {
            CompactionKind::Minor
        };
        let max_seq = inputs.iter().map(|f| f.max_seq).max().unwrap_or(0);
        let mut merged: Vec<ModelCell> = inputs.into_iter().flat_map(|f| f.cells).collect();
        merged.sort_by(cell_order);
        let cells = compact_cells(&store.options, &merged, now, kind);
        let output_cells = (!cells.is_empty()).then_some(cells.len());
        if !cells.is_empty() {
            kept.push(ModelFile { cells, max_seq });
        }
        kept.sort_by_key(|f| f.max_seq);
        store.files = kept;
        Ok(Compaction {
            major,
            output_cells,
        })
    }

    /// Compacts every file of `family` (a major compaction; the memstore is not flushed).
    pub fn compact_all(&mut self, family: &[u8]) -> Result<Compaction, ModelError> {
        let n = self.store(family)?.files.len();
        let all: Vec<usize> = (0..n).collect();
        self.compact(family, &all)
    }

    /// The cells a Get of `row` returns (families in name order).
    pub fn get(&self, row: &[u8], q: &Query) -> Result<Vec<ModelCell>, ModelError> {
        let families = self.resolve(q)?;
        let mut out = Vec::new();
        for (family, qualifiers) in &families {
            let store = self.store(family)?;
            let cells = store_row_cells(store, row, q, self.now);
            out.extend(read_row(&store.options, &cells, qualifiers, q, self.now));
        }
        Ok(out)
    }

    /// The rows a forward scan of `[start, stop)` returns (empty `stop`: to the end), each
    /// as its cells; rows left with no cell are not returned (§9).
    pub fn scan(
        &self,
        start: &[u8],
        stop: &[u8],
        q: &Query,
    ) -> Result<Vec<Vec<ModelCell>>, ModelError> {
        self.scan_rows(&ModelScan::new(start, stop, q.clone()))
    }

    /// The rows a scan returns (§9): forward or reversed, bounds inclusive or not, at most
    /// `limit` rows (counting rows that have cells).
    pub fn scan_rows(&self, scan: &ModelScan) -> Result<Vec<Vec<ModelCell>>, ModelError> {
        let families = self.resolve(&scan.query)?;
        let mut rows = BTreeSet::new();
        for (family, _) in &families {
            let store = self.store(family)?;
            let all = store
                .memstore
                .iter()
                .chain(store.files.iter().flat_map(|f| f.cells.iter()));
            for c in all {
                if scan.in_range(&c.row) {
                    rows.insert(c.row.clone());
                }
            }
        }
        let ordered: Vec<Vec<u8>> = if scan.reversed {
            rows.into_iter().rev().collect()
        } else {
            rows.into_iter().collect()
        };
        let mut out = Vec::new();
        for row in ordered {
            if scan.limit.is_some_and(|n| out.len() as u64 >= n) {
                break;
            }
            let cells = self.get(&row, &scan.query)?;
            if !cells.is_empty() {
                out.push(cells);
            }
        }
        Ok(out)
    }

    /// Every physically present cell in §1 order (memstore and files; not a read).
    pub fn physical_cells(&self) -> Vec<ModelCell> {
        let mut all: Vec<ModelCell> = self
            .stores
            .values()
            .flat_map(|s| {
                s.memstore
                    .iter()
                    .chain(s.files.iter().flat_map(|f| f.cells.iter()))
            })
            .cloned()
            .collect();
        all.sort_by(cell_order);
        all
    }

    /// The families a read touches, with their qualifiers (sorted, deduplicated: HBase
    /// keeps them in a `NavigableSet`). HBase's checks: versions ≥ 1, known families,
    /// no qualifiers in a raw read (`StoreScanner`).
    fn resolve(&self, q: &Query) -> Result<Vec<FamilyColumns>, ModelError> {
        if q.max_versions == 0 {
            return Err(ModelError::ZeroVersions);
        }
        if q.families.is_empty() {
            return Ok(self
                .stores
                .keys()
                .map(|f| (f.clone(), Vec::new()))
                .collect());
        }
        let mut out = Vec::new();
        for (family, qualifiers) in &q.families {
            self.store(family)?;
            if q.raw && !qualifiers.is_empty() {
                return Err(ModelError::RawWithColumns);
            }
            let set: BTreeSet<Vec<u8>> = qualifiers.iter().cloned().collect();
            out.push((family.clone(), set.into_iter().collect()));
        }
        Ok(out)
    }
}

/// A family a read touches and the qualifiers it names (empty: all).
type FamilyColumns = (Vec<u8>, Vec<Vec<u8>>);

/// The cells of `row` in the sources of `store` that a read `q` opens, in §1 order: the
/// merged stream a StoreScanner feeds its matcher.
///
/// Source selection (`StoreScanner.selectScannersFrom`, `StoreFileScanner` and
/// `Segment.shouldUseScanner`/`shouldSeek`): a source (the memstore, or one file) takes
/// part only if its TimeRangeTracker range `[min, max]` overlaps the query's time range
/// (`min < tr.max && max >= tr.min`) and its newest cell is not older than the TTL
/// cutoff (`oldestUnexpiredTS`, 0 for raw reads; no cutoff when MIN_VERSIONS > 0). The
/// tracker stretches `min` down to 0 for a DeleteColumn or DeleteFamily marker
/// (`TimeRangeTracker.includeTimestamp(Cell)`), so a source holding one is opened by any
/// range that starts at or below the marker. This is not merely an optimisation: a
/// skipped source's puts no longer end a column (SEEK_NEXT_COL) before a family marker of
/// another source is seen, so skipping can change what a read returns.
fn store_row_cells(store: &Store, row: &[u8], q: &Query, now: i64) -> Vec<ModelCell> {
    let cutoff = if q.raw {
        0
    } else if store.options.min_versions == 0 {
        store.options.oldest_unexpired(now)
    } else {
        i64::MIN
    };
    let opened = |cells: &[ModelCell]| source_opened(cells, &q.time_range, cutoff);
    let mut sources: Vec<&[ModelCell]> = Vec::new();
    if opened(&store.memstore) {
        sources.push(&store.memstore);
    }
    for f in &store.files {
        if opened(&f.cells) {
            sources.push(&f.cells);
        }
    }
    let mut cells: Vec<ModelCell> = sources
        .into_iter()
        .flatten()
        .filter(|c| c.row == row)
        .cloned()
        .collect();
    cells.sort_by(cell_order);
    cells
}

/// Whether a read with time range `tr` and TTL cutoff `cutoff` opens a source holding
/// `cells` (see [`store_row_cells`]). An empty source is never opened.
fn source_opened(cells: &[ModelCell], tr: &TimeRange, cutoff: i64) -> bool {
    let mut range: Option<(i64, i64)> = None;
    for c in cells {
        let low = if matches!(c.cell_type, CellType::DeleteColumn | CellType::DeleteFamily) {
            0
        } else {
            c.ts
        };
        range = Some(match range {
            None => (low.min(c.ts), c.ts),
            Some((min, max)) => (min.min(low), max.max(c.ts)),
        });
    }
    let Some((min, max)) = range else {
        return false;
    };
    max >= cutoff && (tr.is_all_time() || (min < tr.max() && max >= tr.min()))
}

// ---------------------------------------------------------------------------------------
// The matcher's answers and the row walk (§3)
// ---------------------------------------------------------------------------------------

/// What the matcher says about one cell (§3). The two "seek" answers are not mere
/// optimisations: every cell they jump over is never looked at, so, e.g., a marker after
/// a put that ends its column is not written by a compaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verdict {
    /// INCLUDE.
    Include,
    /// INCLUDE_AND_SEEK_NEXT_COL.
    IncludeThenNextColumn,
    /// INCLUDE_AND_SEEK_NEXT_ROW.
    IncludeThenNextRow,
    /// SKIP: this cell only.
    Skip,
    /// SEEK_NEXT_COL: this cell and the rest of its column (same qualifier).
    NextColumn,
    /// SEEK_NEXT_ROW: this cell and the rest of the row (in this store).
    NextRow,
}

/// Walks the cells of one row of one store (already in §1 order), asking `decide` about
/// each and honouring the seeks; returns the included cells.
fn walk_row(cells: &[ModelCell], mut decide: impl FnMut(&ModelCell) -> Verdict) -> Vec<ModelCell> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(cell) = cells.get(i) {
        let verdict = decide(cell);
        if matches!(
            verdict,
            Verdict::Include | Verdict::IncludeThenNextColumn | Verdict::IncludeThenNextRow
        ) {
            out.push(cell.clone());
        }
        match verdict {
            Verdict::Include | Verdict::Skip => i += 1,
            Verdict::IncludeThenNextColumn | Verdict::NextColumn => {
                while cells.get(i).is_some_and(|c| c.qualifier == cell.qualifier) {
                    i += 1;
                }
            }
            Verdict::IncludeThenNextRow | Verdict::NextRow => break,
        }
    }
    out
}

/// Splits sorted cells into rows and walks each with a fresh matcher from `new_matcher`.
fn walk_rows<M>(
    cells: &[ModelCell],
    mut new_matcher: impl FnMut() -> M,
    mut decide: impl FnMut(&mut M, &ModelCell) -> Verdict,
) -> Vec<ModelCell> {
    let mut out = Vec::new();
    let mut start = 0;
    while start < cells.len() {
        let row = &cells[start].row;
        let end = start + cells[start..].iter().take_while(|c| &c.row == row).count();
        let mut m = new_matcher();
        out.extend(walk_row(&cells[start..end], |c| decide(&mut m, c)));
        start = end;
    }
    out
}

// ---------------------------------------------------------------------------------------
// §4 Delete tracker (ScanDeleteTracker)
// ---------------------------------------------------------------------------------------

/// What the delete tracker says about a put (§4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Deleted {
    /// Not deleted.
    No,
    /// `ts ≤` the DeleteFamily stamp: the rest of the column goes too.
    Family,
    /// A DeleteFamilyVersion at exactly this ts: this cell only.
    FamilyVersion,
    /// A DeleteColumn of this qualifier at or after ts: the rest of the column goes too.
    Column,
    /// A Delete of this qualifier at exactly this ts: this cell only.
    Version,
}

/// The delete markers seen so far in the current row and family (§4).
#[derive(Debug, Default)]
struct DeleteTracker {
    /// Highest DeleteFamily timestamp.
    family_stamp: Option<i64>,
    /// DeleteFamilyVersion timestamps.
    family_versions: BTreeSet<i64>,
    /// The current column's marker: (qualifier, Delete or DeleteColumn, ts).
    column: Option<(Vec<u8>, CellType, i64)>,
}

impl DeleteTracker {
    /// §4 `add`: markers already covered by the family stamp are ignored; a less specific
    /// marker of the same qualifier is not replaced by a more specific one.
    fn add(&mut self, marker: &ModelCell) {
        if self.family_stamp.is_some_and(|stamp| marker.ts <= stamp) {
            return;
        }
        match marker.cell_type {
            CellType::DeleteFamily => self.family_stamp = Some(marker.ts),
            CellType::DeleteFamilyVersion => {
                self.family_versions.insert(marker.ts);
            }
            CellType::Delete | CellType::DeleteColumn => {
                if let Some((q, kind, _)) = &self.column
                    && marker.cell_type.code() < kind.code()
                    && *q == marker.qualifier
                {
                    return;
                }
                self.column = Some((marker.qualifier.clone(), marker.cell_type, marker.ts));
            }
            _ => {}
        }
    }

    /// §4 `isDeleted`. A one-version Delete of the same qualifier at another (so older)
    /// timestamp, or a marker of another qualifier, is forgotten.
    fn is_deleted(&mut self, put: &ModelCell) -> Deleted {
        if self.family_stamp.is_some_and(|stamp| put.ts <= stamp) {
            return Deleted::Family;
        }
        if self.family_versions.contains(&put.ts) {
            return Deleted::FamilyVersion;
        }
        if let Some((q, kind, ts)) = &self.column {
            if *q == put.qualifier {
                if *kind == CellType::DeleteColumn {
                    return Deleted::Column;
                }
                if *ts == put.ts {
                    return Deleted::Version;
                }
            }
            self.column = None;
        }
        Deleted::No
    }
}

// ---------------------------------------------------------------------------------------
// §5 Column trackers
// ---------------------------------------------------------------------------------------

/// §5 ScanWildcardColumnTracker: every column; versions counted per qualifier.
#[derive(Debug)]
struct WildcardColumns {
    min_versions: u32,
    max_versions: u32,
    oldest_unexpired: i64,
    /// The qualifier being counted.
    column: Option<Vec<u8>>,
    count: u32,
    /// (ts, type) of the last included cell of the column: duplicate suppression.
    last: Option<(i64, CellType)>,
}

impl WildcardColumns {
    fn new(min_versions: u32, max_versions: u32, oldest_unexpired: i64) -> Self {
        Self {
            min_versions,
            max_versions,
            oldest_unexpired,
            column: None,
            count: 0,
            last: None,
        }
    }

    /// §3.1.3 `isDone(ts)`: min versions 0 and the cell expired.
    fn expired_and_done(&self, ts: i64) -> bool {
        self.min_versions == 0 && ts < self.oldest_unexpired
    }

    /// §5 wildcard: markers never count; a same-ts-and-type duplicate of the last
    /// included cell is skipped; past VERSIONS the column ends; otherwise kept when
    /// within MIN_VERSIONS or not expired, else the column ends.
    fn check_versions(&mut self, cell: &ModelCell) -> Verdict {
        if self.column.as_ref() != Some(&cell.qualifier) {
            self.column = Some(cell.qualifier.clone());
            self.count = 0;
            self.last = None;
        } else if self.last == Some((cell.ts, cell.cell_type)) {
            return Verdict::Skip;
        }
        if !cell.is_delete() {
            self.count += 1;
        }
        if self.count > self.max_versions {
            return Verdict::NextColumn;
        }
        if self.count <= self.min_versions || cell.ts >= self.oldest_unexpired {
            self.last = Some((cell.ts, cell.cell_type));
            Verdict::Include
        } else {
            Verdict::NextColumn
        }
    }
}

/// §5 ExplicitColumnTracker: only the named qualifiers, walked in sorted order.
#[derive(Debug)]
struct ExplicitColumns {
    columns: Vec<Vec<u8>>,
    counts: Vec<u32>,
    index: usize,
    min_versions: u32,
    max_versions: u32,
    oldest_unexpired: i64,
    /// ts of the last included cell of the current column (duplicate suppression).
    last_ts: Option<i64>,
}

impl ExplicitColumns {
    fn new(columns: &[Vec<u8>], min_versions: u32, max_versions: u32, oldest: i64) -> Self {
        Self {
            columns: columns.to_vec(),
            counts: vec![0; columns.len()],
            index: 0,
            min_versions,
            max_versions,
            oldest_unexpired: oldest,
            last_ts: None,
        }
    }

    /// Every requested column served: the rest of the row is not needed.
    fn done(&self) -> bool {
        self.index >= self.columns.len()
    }

    fn current(&self) -> Option<&Vec<u8>> {
        self.columns.get(self.index)
    }

    /// §3.1.3 `isDone(ts)`.
    fn expired_and_done(&self, ts: i64) -> bool {
        self.min_versions == 0 && ts < self.oldest_unexpired
    }

    /// Is the cell's qualifier the requested one? Requested columns the stream has
    /// already passed are dropped; a cell before the requested column is skipped with the
    /// rest of its column.
    fn check_column(&mut self, cell: &ModelCell) -> Verdict {
        loop {
            let Some(wanted) = self.current() else {
                return Verdict::NextRow;
            };
            match cell.qualifier.cmp(wanted) {
                Ordering::Equal => return Verdict::Include,
                Ordering::Less => {
                    self.last_ts = None;
                    return Verdict::NextColumn;
                }
                Ordering::Greater => {
                    self.last_ts = None;
                    self.index += 1;
                }
            }
        }
    }

    /// §5 explicit: same-ts duplicates skipped; after counting the cell, the column ends
    /// when `count ≥ VERSIONS` or (`count ≥ MIN_VERSIONS` and the cell is expired),
    /// the current cell included.
    fn check_versions(&mut self, cell: &ModelCell) -> Verdict {
        if self.last_ts == Some(cell.ts) {
            return Verdict::Skip;
        }
        let Some(count) = self.counts.get_mut(self.index) else {
            return Verdict::NextRow;
        };
        *count += 1;
        let count = *count;
        let expired = cell.ts < self.oldest_unexpired;
        if count >= self.max_versions || (count >= self.min_versions && expired) {
            self.index += 1;
            self.last_ts = None;
            if self.done() {
                Verdict::IncludeThenNextRow
            } else {
                Verdict::IncludeThenNextColumn
            }
        } else {
            self.last_ts = Some(cell.ts);
            Verdict::Include
        }
    }

    /// HBase's `getNextRowOrNextColumn`: done with the cell's column (and with any
    /// requested column before it); the rest of the row when nothing is left.
    fn next_row_or_column(&mut self, cell: &ModelCell) -> Verdict {
        while let Some(wanted) = self.current() {
            let cmp = cell.qualifier.cmp(wanted);
            self.last_ts = None;
            if cmp == Ordering::Less {
                break;
            }
            self.index += 1;
            if cmp == Ordering::Equal {
                break;
            }
        }
        if self.done() {
            Verdict::NextRow
        } else {
            Verdict::NextColumn
        }
    }
}

/// The column tracker of a user read: wildcard when no qualifiers are named.
#[derive(Debug)]
enum Columns {
    Wildcard(WildcardColumns),
    Explicit(ExplicitColumns),
}

impl Columns {
    fn done(&self) -> bool {
        match self {
            Self::Wildcard(_) => false,
            Self::Explicit(e) => e.done(),
        }
    }
    fn expired_and_done(&self, ts: i64) -> bool {
        match self {
            Self::Wildcard(w) => w.expired_and_done(ts),
            Self::Explicit(e) => e.expired_and_done(ts),
        }
    }
    fn next_row_or_column(&mut self, cell: &ModelCell) -> Verdict {
        match self {
            Self::Wildcard(_) => Verdict::NextColumn,
            Self::Explicit(e) => e.next_row_or_column(cell),
        }
    }
    fn check_column(&mut self, cell: &ModelCell) -> Verdict {
        match self {
            Self::Wildcard(_) => Verdict::Include,
            Self::Explicit(e) => e.check_column(cell),
        }
    }
    fn check_versions(&mut self, cell: &ModelCell) -> Verdict {
        match self {
            Self::Wildcard(w) => w.check_versions(cell),
            Self::Explicit(e) => e.check_versions(cell),
        }
    }
}

// ---------------------------------------------------------------------------------------
// §3.1 preCheck, §3.2 user reads, §3.3 raw reads
// ---------------------------------------------------------------------------------------

/// §3.1 preCheck: all requested columns done → rest of row; expired with MIN_VERSIONS 0
/// → rest of column; a cell TTL with `ts + ttl < now` (Java's wrapping `long` sum) → skip
/// the cell, before it can count as a version. `None`: go on.
fn pre_check(columns: &mut Columns, cell: &ModelCell, now: i64) -> Option<Verdict> {
    if columns.done() {
        return Some(Verdict::NextRow);
    }
    if columns.expired_and_done(cell.ts) {
        return Some(columns.next_row_or_column(cell));
    }
    if let Some(ttl) = cell.ttl
        && cell.ts.wrapping_add(ttl) < now
    {
        return Some(Verdict::Skip);
    }
    None
}

/// §3.2 step 4 `matchColumn`: time range (after it: skip; before it: rest of column; not
/// counted either way), requested column, then versions.
fn match_column(columns: &mut Columns, tr: &TimeRange, cell: &ModelCell) -> Verdict {
    if !tr.is_all_time() {
        if cell.ts >= tr.max() {
            return Verdict::Skip;
        }
        if cell.ts < tr.min() {
            return columns.next_row_or_column(cell);
        }
    }
    match columns.check_column(cell) {
        Verdict::Include => columns.check_versions(cell),
        other => other,
    }
}

/// State of a user read over one row of one store.
#[derive(Debug)]
struct UserRead {
    columns: Columns,
    deletes: DeleteTracker,
}

/// §3.2 NormalUserScanQueryMatcher.
fn user_match(
    m: &mut UserRead,
    kdc: KeepDeletedCells,
    tr: &TimeRange,
    cell: &ModelCell,
    now: i64,
) -> Verdict {
    if let Some(v) = pre_check(&mut m.columns, cell, now) {
        return v;
    }
    if cell.is_delete() {
        // §3.2.2: FALSE → "within or after" the range; TRUE/TTL → within it.
        let in_reach = if kdc == KeepDeletedCells::False {
            tr.is_all_time() || cell.ts >= tr.min()
        } else {
            tr.is_all_time() || (tr.min() <= cell.ts && cell.ts < tr.max())
        };
        if in_reach {
            m.deletes.add(cell);
        }
        return Verdict::Skip;
    }
    // §3.2.3
    match m.deletes.is_deleted(cell) {
        Deleted::Family | Deleted::Column => return m.columns.next_row_or_column(cell),
        Deleted::Version | Deleted::FamilyVersion => return Verdict::Skip,
        Deleted::No => {}
    }
    match_column(&mut m.columns, tr, cell)
}

/// §3.3 RawScanQueryMatcher: nothing tracked, markers returned, time range and versions
/// (markers not counted) applied.
fn raw_match(columns: &mut Columns, tr: &TimeRange, cell: &ModelCell, now: i64) -> Verdict {
    if let Some(v) = pre_check(columns, cell, now) {
        return v;
    }
    match_column(columns, tr, cell)
}

/// One row of one store as a get/scan returns it.
fn read_row(
    options: &FamilyOptions,
    cells: &[ModelCell],
    qualifiers: &[Vec<u8>],
    q: &Query,
    now: i64,
) -> Vec<ModelCell> {
    if q.raw {
        // §3.3 / §3.1: raw reads see no TTL (oldestUnexpiredTS = 0; timestamps are never
        // negative) and count against the requested versions only.
        let mut columns = Columns::Wildcard(WildcardColumns::new(
            options.min_versions,
            q.max_versions,
            0,
        ));
        return walk_row(cells, |c| raw_match(&mut columns, &q.time_range, c, now));
    }
    // §3.2.5: versions = min(requested, family VERSIONS).
    let versions = q.max_versions.min(options.max_versions);
    let oldest = options.oldest_unexpired(now);
    let columns = if qualifiers.is_empty() {
        Columns::Wildcard(WildcardColumns::new(options.min_versions, versions, oldest))
    } else {
        Columns::Explicit(ExplicitColumns::new(
            qualifiers,
            options.min_versions,
            versions,
            oldest,
        ))
    };
    let mut m = UserRead {
        columns,
        deletes: DeleteTracker::default(),
    };
    walk_row(cells, |c| {
        user_match(&mut m, options.keep_deleted_cells, &q.time_range, c, now)
    })
}

// ---------------------------------------------------------------------------------------
// §3.4 flush / minor compaction, §3.5 major compaction
// ---------------------------------------------------------------------------------------

/// Which compaction rules apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CompactionKind {
    /// §3.4 (flush, and compactions of a subset of the files): markers kept.
    Minor,
    /// §3.5 (all files): markers dropped unless KEEP_DELETED_CELLS.
    Major {
        /// Smallest Put timestamp over the input files.
        earliest_put_ts: i64,
    },
}

/// State of a compaction over one row of one store.
#[derive(Debug)]
struct CompactionRow {
    columns: Columns,
    deletes: DeleteTracker,
}

/// §3.4.2 `trackDelete`: markers mask puts in compactions only under KDC FALSE, or TTL
/// once the marker itself is expired.
fn compaction_tracks(options: &FamilyOptions, oldest: i64, marker: &ModelCell) -> bool {
    match options.keep_deleted_cells {
        KeepDeletedCells::False => true,
        KeepDeletedCells::True => false,
        KeepDeletedCells::Ttl => marker.ts < oldest,
    }
}

/// §3.4 / §3.5 for one cell.
fn compaction_match(
    m: &mut CompactionRow,
    options: &FamilyOptions,
    (oldest, now): (i64, i64),
    kind: CompactionKind,
    cell: &ModelCell,
) -> Verdict {
    // §3.4.1: expired cells (MIN_VERSIONS 0) go, markers included; so do cells past
    // their cell TTL.
    if let Some(v) = pre_check(&mut m.columns, cell, now) {
        return v;
    }
    if cell.is_delete() {
        if compaction_tracks(options, oldest, cell) {
            m.deletes.add(cell);
        }
        match kind {
            // §3.4.2: a marker is always written, and not version-checked.
            CompactionKind::Minor => return Verdict::Include,
            // §3.5 `tryDropDelete` (purge delay 0).
            CompactionKind::Major { earliest_put_ts } => {
                let keep = match options.keep_deleted_cells {
                    KeepDeletedCells::False => false,
                    KeepDeletedCells::True => true,
                    KeepDeletedCells::Ttl => cell.ts >= oldest,
                };
                if !keep {
                    return Verdict::Skip;
                }
                if cell.ts < earliest_put_ts {
                    // Older than every put of the inputs: it and the rest of its column go.
                    return m.columns.next_row_or_column(cell);
                }
                // Kept markers take part in version counting (never incrementing it).
            }
        }
    } else {
        // §3.4.3: masked puts are dropped (with the rest of the column for family and
        // column deletes).
        match m.deletes.is_deleted(cell) {
            Deleted::Family | Deleted::Column => return m.columns.next_row_or_column(cell),
            Deleted::Version | Deleted::FamilyVersion => return Verdict::Skip,
            Deleted::No => {}
        }
    }
    // §3.4.4: family VERSIONS, MIN_VERSIONS and TTL.
    m.columns.check_versions(cell)
}

/// Runs sorted `cells` of one store through the flush/compaction rules at `now`.
fn compact_cells(
    options: &FamilyOptions,
    cells: &[ModelCell],
    now: i64,
    kind: CompactionKind,
) -> Vec<ModelCell> {
    let oldest = options.oldest_unexpired(now);
    walk_rows(
        cells,
        || CompactionRow {
            columns: Columns::Wildcard(WildcardColumns::new(
                options.min_versions,
                options.max_versions,
                oldest,
            )),
            deletes: DeleteTracker::default(),
        },
        |m, c| compaction_match(m, options, (oldest, now), kind, c),
    )
}

#[cfg(test)]
mod tests;
