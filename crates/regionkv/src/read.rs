//! Reads as HBase's client builds them: `Get` (one row) and `Scan` (a row range), and the
//! `RowResult` a read returns (HBase's `Result`). Builders hold owned bytes and never fail;
//! the table checks them when it runs them.

use regionkv_cell::{Cell, CellType, TimeRange};
use regionkv_region::filter::Filter;
use regionkv_region::{ReadQuery, RegionScan};
use std::collections::BTreeMap;

/// HBase's `Get`.
#[derive(Debug)]
pub struct Get {
    pub(crate) row: Vec<u8>,
    pub(crate) query: ReadQuery,
    pub(crate) filter: Option<Box<dyn Filter>>,
    /// An exact timestamp, checked when the get runs.
    pub(crate) exact_ts: Option<i64>,
}

impl Clone for Get {
    fn clone(&self) -> Self {
        Self {
            row: self.row.clone(),
            query: self.query.clone(),
            filter: self.filter.as_ref().map(|f| f.box_clone()),
            exact_ts: self.exact_ts,
        }
    }
}

impl Get {
    /// A get of `row`: newest version of every column.
    pub fn new(row: impl AsRef<[u8]>) -> Self {
        Self {
            row: row.as_ref().to_vec(),
            query: ReadQuery::default(),
            filter: None,
            exact_ts: None,
        }
    }
    /// Reads all of `family` (may be called for several families).
    pub fn add_family(mut self, family: impl AsRef<[u8]>) -> Self {
        self.query
            .families
            .insert(family.as_ref().to_vec(), Vec::new());
        self
    }
    /// Reads one column.
    pub fn add_column(mut self, family: impl AsRef<[u8]>, qualifier: impl AsRef<[u8]>) -> Self {
        self.query = self.query.column(family.as_ref(), qualifier.as_ref());
        self
    }
    /// Up to `n` versions per column (HBase's `readVersions`).
    pub fn max_versions(mut self, n: u32) -> Self {
        self.query.max_versions = n;
        self
    }
    /// Every version the family keeps (HBase's `readAllVersions`).
    pub fn all_versions(self) -> Self {
        self.max_versions(u32::MAX)
    }
    /// Only versions with a timestamp in `[min, max)`.
    pub fn time_range(mut self, tr: TimeRange) -> Self {
        self.query.time_range = tr;
        self
    }
    /// Only versions at exactly `ts` (HBase's `setTimestamp`; a negative `ts` is an
    /// error when the get runs).
    pub fn timestamp(mut self, ts: i64) -> Self {
        self.exact_ts = Some(ts);
        self
    }
    /// Applies a server-side filter.
    pub fn filter(mut self, f: Box<dyn Filter>) -> Self {
        self.filter = Some(f);
        self
    }
    /// The row.
    pub fn row(&self) -> &[u8] {
        &self.row
    }
}

/// HBase's `Scan`.
#[derive(Debug)]
pub struct Scan {
    pub(crate) inner: RegionScan,
    pub(crate) filter: Option<Box<dyn Filter>>,
    pub(crate) caching: usize,
    /// An exact timestamp, checked when the scan starts.
    pub(crate) exact_ts: Option<i64>,
}

impl Clone for Scan {
    fn clone(&self) -> Self {
        Self {
            inner: self.inner.clone(),
            filter: self.filter.as_ref().map(|f| f.box_clone()),
            caching: self.caching,
            exact_ts: self.exact_ts,
        }
    }
}

impl Default for Scan {
    fn default() -> Self {
        Self::new()
    }
}

impl Scan {
    /// Every row of the table.
    pub fn new() -> Self {
        Self {
            inner: RegionScan::all(),
            filter: None,
            caching: 100,
            exact_ts: None,
        }
    }
    /// Start at `row` (inclusive).
    pub fn start_row(self, row: impl AsRef<[u8]>) -> Self {
        self.with_start_row(row, true)
    }
    /// Start at `row`, included or not.
    pub fn with_start_row(mut self, row: impl AsRef<[u8]>, inclusive: bool) -> Self {
        self.inner.start_row = row.as_ref().to_vec();
        self.inner.include_start = inclusive;
        self
    }
    /// Stop before `row` (exclusive).
    pub fn stop_row(self, row: impl AsRef<[u8]>) -> Self {
        self.with_stop_row(row, false)
    }
    /// Stop at `row`, included or not.
    pub fn with_stop_row(mut self, row: impl AsRef<[u8]>, inclusive: bool) -> Self {
        self.inner.stop_row = row.as_ref().to_vec();
        self.inner.include_stop = inclusive;
        self
    }
    /// Rows starting with `prefix` (HBase's `setRowPrefixFilter`; call after
    /// [`Scan::reversed`] for a reversed prefix scan).
    pub fn row_prefix(mut self, prefix: impl AsRef<[u8]>) -> Self {
        self.inner = self.inner.row_prefix(prefix.as_ref());
        self
    }
    /// Rows in descending order; the start row is then the highest.
    pub fn reversed(mut self, on: bool) -> Self {
        self.inner.reversed = on;
        self
    }
    /// At most `n` rows in all.
    pub fn limit(mut self, n: u64) -> Self {
        self.inner.limit = Some(n);
        self
    }
    /// Rows fetched per round trip in HBase; here the number of rows a region scanner
    /// reads ahead (kept for API parity; it changes no result).
    pub fn caching(mut self, n: usize) -> Self {
        self.caching = n.max(1);
        self
    }
    /// At most `n` cells per result: wide rows come back in pieces.
    pub fn batch(mut self, n: usize) -> Self {
        self.inner.batch = Some(n);
        self
    }
    /// Reads all of `family`.
    pub fn add_family(mut self, family: impl AsRef<[u8]>) -> Self {
        self.inner
            .query
            .families
            .insert(family.as_ref().to_vec(), Vec::new());
        self
    }
    /// Reads one column.
    pub fn add_column(mut self, family: impl AsRef<[u8]>, qualifier: impl AsRef<[u8]>) -> Self {
        self.inner.query = self
            .inner
            .query
            .clone()
            .column(family.as_ref(), qualifier.as_ref());
        self
    }
    /// Only versions in `[min, max)`.
    pub fn time_range(mut self, tr: TimeRange) -> Self {
        self.inner.query.time_range = tr;
        self
    }
    /// Only versions at exactly `ts` (a negative `ts` is an error when the scan
    /// starts).
    pub fn timestamp(mut self, ts: i64) -> Self {
        self.exact_ts = Some(ts);
        self
    }
    /// Up to `n` versions per column.
    pub fn max_versions(mut self, n: u32) -> Self {
        self.inner.query.max_versions = n;
        self
    }
    /// Every version the family keeps.
    pub fn all_versions(self) -> Self {
        self.max_versions(u32::MAX)
    }
    /// Raw: delete markers and deleted cells too.
    pub fn raw(mut self, on: bool) -> Self {
        self.inner.query.raw = on;
        self
    }
    /// Applies a server-side filter.
    pub fn filter(mut self, f: Box<dyn Filter>) -> Self {
        self.filter = Some(f);
        self
    }
}

/// What a read returns for one row (HBase's `Result`): its cells in HBase's order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RowResult {
    row: Vec<u8>,
    cells: Vec<Cell>,
}

impl RowResult {
    /// A result of `cells` (all of one row, in order).
    pub fn new(cells: Vec<Cell>) -> Self {
        let row = cells.first().map(|c| c.row().to_vec()).unwrap_or_default();
        Self { row, cells }
    }
    /// The row (empty for an empty result).
    pub fn row(&self) -> &[u8] {
        &self.row
    }
    /// The cells, in order.
    pub fn cells(&self) -> &[Cell] {
        &self.cells
    }
    /// Takes the cells.
    pub fn into_cells(self) -> Vec<Cell> {
        self.cells
    }
    /// True when there are no cells.
    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }
    /// Number of cells.
    pub fn len(&self) -> usize {
        self.cells.len()
    }
    /// The newest value of `family:qualifier` (HBase's `getValue`).
    pub fn value(&self, family: &[u8], qualifier: &[u8]) -> Option<&[u8]> {
        self.latest_cell(family, qualifier).map(Cell::value)
    }
    /// The newest cell of `family:qualifier` (HBase's `getColumnLatestCell`).
    pub fn latest_cell(&self, family: &[u8], qualifier: &[u8]) -> Option<&Cell> {
        self.cells.iter().find(|c| {
            c.family() == family && c.qualifier() == qualifier && c.cell_type() == CellType::Put
        })
    }
    /// Every version of `family:qualifier`, newest first (HBase's `getColumnCells`).
    pub fn column_cells(&self, family: &[u8], qualifier: &[u8]) -> Vec<&Cell> {
        self.cells
            .iter()
            .filter(|c| c.family() == family && c.qualifier() == qualifier)
            .collect()
    }
    /// Whether `family:qualifier` has a value.
    pub fn contains_column(&self, family: &[u8], qualifier: &[u8]) -> bool {
        self.latest_cell(family, qualifier).is_some()
    }
    /// family → qualifier → newest value (HBase's `getNoVersionMap`).
    pub fn no_version_map(&self) -> BTreeMap<Vec<u8>, BTreeMap<Vec<u8>, Vec<u8>>> {
        let mut m: BTreeMap<Vec<u8>, BTreeMap<Vec<u8>, Vec<u8>>> = BTreeMap::new();
        for c in self.cells.iter().rev() {
            if c.cell_type() == CellType::Put {
                m.entry(c.family().to_vec())
                    .or_default()
                    .insert(c.qualifier().to_vec(), c.value().to_vec());
            }
        }
        m
    }
    /// The newest value of a counter column as HBase stores it (8 bytes big-endian).
    pub fn counter(&self, family: &[u8], qualifier: &[u8]) -> Option<i64> {
        let v = self.value(family, qualifier)?;
        <[u8; 8]>::try_from(v).ok().map(i64::from_be_bytes)
    }
}
