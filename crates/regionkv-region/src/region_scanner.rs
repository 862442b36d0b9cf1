//! Region reads: `get` (one row) and `scan` (a row range), each at one MVCC read point,
//! assembled across stores (families in name order), with HBase's matching rules applied
//! per store (`scan::query_matcher`).

use crate::error::{Error, RequestProblem, Result};
use crate::filter::Filter;
use crate::mvcc::ReadPointGuard;
use crate::region::{Region, RegionMetrics};
use crate::scan::heap::{KeyValueHeap, SourceScanner};
use crate::scan::query_matcher::{QueryMatcher, ReadNow, SharedFilter};
use crate::scan::store_scanner::StoreScanner;
use crate::store::{SourceFilter, StoreFileHandle};
use regionkv_cell::key::{compare_bytes, equal_bytes};
use regionkv_cell::{Cell, OwnedKey, TimeRange};
use regionkv_memstore::Segment;
use regionkv_storefile::StoreFileScanner;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::Ordering;

/// What a read wants: families and columns, versions, time range, raw.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadQuery {
    /// Family → qualifiers. An empty map means every family; an empty list every column.
    pub families: BTreeMap<Vec<u8>, Vec<Vec<u8>>>,
    /// Versions per column (HBase default 1); capped by the family's VERSIONS unless raw.
    pub max_versions: u32,
    /// Time range `[min, max)`.
    pub time_range: TimeRange,
    /// Raw: delete markers returned, nothing masked, no TTL.
    pub raw: bool,
    /// Data blocks read from files go into the block cache (HBase's `Scan#setCacheBlocks`
    /// and `Get#setCacheBlocks`, default true). A scan over a whole table that is read
    /// once (an export, a copy) sets it false, as HBase's MapReduce tools do, so that it
    /// does not evict the blocks other reads keep hitting. Cached blocks are used either
    /// way.
    pub cache_blocks: bool,
}

impl Default for ReadQuery {
    fn default() -> Self {
        Self {
            families: BTreeMap::new(),
            max_versions: 1,
            time_range: TimeRange::all_time(),
            raw: false,
            cache_blocks: true,
        }
    }
}

impl ReadQuery {
    /// Adds a whole family.
    pub fn family(mut self, family: &[u8]) -> Self {
        self.families.insert(family.to_vec(), Vec::new());
        self
    }
    /// Adds one column.
    pub fn column(mut self, family: &[u8], qualifier: &[u8]) -> Self {
        self.families
            .entry(family.to_vec())
            .or_default()
            .push(qualifier.to_vec());
        self
    }
    /// Sets the versions.
    pub fn versions(mut self, n: u32) -> Self {
        self.max_versions = n;
        self
    }
    /// Sets the time range.
    pub fn time_range(mut self, tr: TimeRange) -> Self {
        self.time_range = tr;
        self
    }
    /// Makes it raw.
    pub fn raw(mut self) -> Self {
        self.raw = true;
        self
    }
}

/// A family and the qualifiers a read wants of it (empty: all).
type FamilyColumns<'a> = (&'a [u8], &'a [Vec<u8>]);

/// A row range read.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RegionScan {
    /// First row (empty: from the region's start).
    pub start_row: Vec<u8>,
    /// Whether `start_row` itself is included (HBase default true).
    pub include_start: bool,
    /// Stop row (empty: to the region's end).
    pub stop_row: Vec<u8>,
    /// Whether `stop_row` itself is included (HBase default false).
    pub include_stop: bool,
    /// Columns, versions, time range, raw.
    pub query: ReadQuery,
    /// Most rows to return.
    pub limit: Option<u64>,
    /// Rows in descending order: `start_row` is then the highest row and `stop_row` the
    /// lower bound (HBase's reversed scan).
    pub reversed: bool,
    /// At most this many cells per result (HBase's `Scan.setBatch`): a wider row comes
    /// back as several consecutive results. `limit` still counts rows.
    pub batch: Option<usize>,
}

impl RegionScan {
    /// Every row of the region, HBase defaults.
    pub fn all() -> Self {
        Self {
            include_start: true,
            ..Self::default()
        }
    }

    /// Rows starting with `prefix` (HBase's `setStartStopRowForPrefixScan`, the shell's
    /// ROWPREFIXFILTER): start at the prefix, stop before the closest row after every row
    /// with that prefix. For a reversed scan the two bounds trade places.
    pub fn row_prefix(mut self, prefix: &[u8]) -> Self {
        let next = closest_row_after_prefix(prefix);
        if self.reversed {
            // Highest first: start below `next` (exclusive), stop at the prefix (inclusive).
            self.start_row = next;
            self.include_start = false;
            self.stop_row = prefix.to_vec();
            self.include_stop = true;
        } else {
            self.start_row = prefix.to_vec();
            self.include_start = true;
            self.stop_row = next;
            self.include_stop = false;
        }
        self
    }
}

/// HBase's `ClientUtil.calculateTheClosestNextRowKeyForPrefix`: drop trailing 0xFF bytes
/// and increment the last remaining byte; empty (no upper bound) when every byte is 0xFF.
pub fn closest_row_after_prefix(prefix: &[u8]) -> Vec<u8> {
    let mut next = prefix.to_vec();
    while let Some(last) = next.pop() {
        if last != 0xff {
            next.push(last + 1);
            return next;
        }
    }
    Vec::new()
}

/// What a reversed scan needs of one store: the sources its scanner reads (to find the
/// previous row) and the scanner (to read a row forward once found).
#[derive(Debug)]
struct ReverseStore {
    segments: Vec<Arc<Segment>>,
    files: Arc<Vec<StoreFileHandle>>,
    read_point: u64,
    scanner: StoreScanner,
}

impl ReverseStore {
    fn last_row_before(&self, key: Option<&[u8]>) -> Result<Option<Vec<u8>>> {
        let mut best: Option<Vec<u8>> = None;
        for s in &self.segments {
            if let Some(r) = s.last_row_before(key, self.read_point)
                && best.as_ref().is_none_or(|b| &r > b)
            {
                best = Some(r);
            }
        }
        for f in self.files.iter() {
            if let Some(r) = f.reader.last_row_before(key)?
                && best.as_ref().is_none_or(|b| &r > b)
            {
                best = Some(r);
            }
        }
        Ok(best)
    }
}

/// Where a reversed scan is.
#[derive(Debug)]
struct Reverse {
    stores: Vec<ReverseStore>,
    /// Rows are taken strictly before this key; `None`: from the last row.
    bound: Option<OwnedKey>,
}

/// Rows of a scan, one at a time.
#[derive(Debug)]
pub struct RegionScanner {
    stores: Vec<StoreScanner>,
    stop_row: Vec<u8>,
    include_stop: bool,
    rows_left: Option<u64>,
    reverse: Option<Reverse>,
    batch: Option<usize>,
    /// The rest of a row split by `batch`, in order.
    pending: std::collections::VecDeque<Cell>,
    /// The scan's filter (its row-level calls are made here, its cell-level calls by the
    /// store matchers).
    filter: Option<SharedFilter>,
    /// Set once the filter reports that no later row can pass.
    done: bool,
    /// What became of the last row this scanner met (for the filtered-row count).
    last: LastRow,
    /// The region's counters: a read per result, a filtered read per row dropped.
    metrics: Arc<RegionMetrics>,
    /// Holds the scan's read point: flushes and compactions keep what it may still read.
    _read_point: ReadPointGuard,
}

/// What the row-level filter protocol decided for one row.
enum RowVerdict {
    /// Return these cells (possibly none: the row is dropped — filtered, or empty after
    /// matching).
    Cells(Vec<Cell>),
    /// `filter_row_key` dropped the row without reading it.
    KeySkipped,
    /// The filter ends the scan.
    Stop,
}

/// What became of the last row a scanner met. HBase's `RegionScannerImpl` counts a row
/// that ends a scan because the filter is done (`filterAllRemaining`, seen through the
/// filter's `filterRowKey`) as filtered only when it gets to call `filterRowKey` on it:
/// at the start, or after a row dropped at its end (`filterRow`, or empty). After a
/// returned row, or one dropped by `filterRowKey`, it checks `filterAllRemaining` first
/// and stops without meeting another row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LastRow {
    None,
    Returned,
    KeySkipped,
    Dropped,
}

/// HBase's `RegionScannerImpl` row protocol around gathering one row's cells: stop when
/// the filter says nothing more can pass, `reset` before the row, drop the row when
/// `filter_row_key` says so (without reading it), then the end-of-row calls
/// ([`crate::filter::finish_row`]: `filter_row_cells`, `filter_row`; an empty row is
/// dropped without asking, so counting filters never count it). The filter lock is never held while `gather` runs
/// (the store matchers lock it per cell).
///
/// `read_row(false)` gathers the row's cells; `read_row(true)` only moves past the row.
fn filter_row(
    filter: Option<&SharedFilter>,
    row: &[u8],
    read_row: impl FnOnce(bool) -> Result<Vec<Cell>>,
) -> Result<RowVerdict> {
    let Some(f) = filter else {
        return read_row(false).map(RowVerdict::Cells);
    };
    let skip = {
        let mut g = f.lock();
        if g.filter_all_remaining() {
            return Ok(RowVerdict::Stop);
        }
        g.reset();
        g.filter_row_key(row)
    };
    if skip {
        read_row(true)?;
        return Ok(RowVerdict::KeySkipped);
    }
    let mut cells = read_row(false)?;
    crate::filter::finish_row(f.lock().as_mut(), &mut cells);
    Ok(RowVerdict::Cells(cells))
}

impl RegionScanner {
    /// The next row with at least one cell, as its cells in order (families ascending,
    /// then HBase's cell order within each, also in reversed scans).
    pub fn next_row(&mut self) -> Result<Option<Vec<Cell>>> {
        if self.reverse.is_some() {
            return self.next_row_reversed();
        }
        loop {
            if self.rows_left == Some(0) || self.done {
                return Ok(None);
            }
            let Some(row) = self
                .stores
                .iter()
                .filter_map(|s| s.peek_row())
                .min()
                .map(<[u8]>::to_vec)
            else {
                return Ok(None);
            };
            if !self.stop_row.is_empty() {
                let order = compare_bytes(&row, &self.stop_row);
                let past = if self.include_stop {
                    order.is_gt()
                } else {
                    order.is_ge()
                };
                if past {
                    return Ok(None);
                }
            }
            let stores = &mut self.stores;
            let verdict = filter_row(self.filter.as_ref(), &row, |skip| {
                let mut cells = Vec::new();
                for s in stores.iter_mut() {
                    if s.peek_row().is_some_and(|r| equal_bytes(r, &row)) {
                        if skip {
                            s.skip_row(&row)?;
                        } else {
                            s.row_cells(&row, &mut cells)?;
                        }
                    }
                }
                Ok(cells)
            })?;
            if let Some(cells) = self.count(verdict) {
                return Ok(Some(cells));
            }
            if self.done {
                return Ok(None);
            }
        }
    }

    /// Counts one row's verdict in the region's metrics as HBase's `RegionScannerImpl`
    /// does (see [`RegionMetrics`]) and returns the cells to hand out, if any.
    fn count(&mut self, verdict: RowVerdict) -> Option<Vec<Cell>> {
        count_row(
            &self.metrics,
            &mut self.last,
            &mut self.done,
            &mut self.rows_left,
            verdict,
        )
    }
}

/// [`RegionScanner::count`] on the scanner's parts (a reversed scan holds its stores
/// borrowed meanwhile).
fn count_row(
    metrics: &RegionMetrics,
    last: &mut LastRow,
    done: &mut bool,
    rows_left: &mut Option<u64>,
    verdict: RowVerdict,
) -> Option<Vec<Cell>> {
    let filtered = &metrics.filtered_read_requests;
    match verdict {
        RowVerdict::Stop => {
            if matches!(*last, LastRow::None | LastRow::Dropped) {
                filtered.fetch_add(1, Ordering::Relaxed);
            }
            *done = true;
            None
        }
        RowVerdict::KeySkipped => {
            filtered.fetch_add(1, Ordering::Relaxed);
            *last = LastRow::KeySkipped;
            None
        }
        RowVerdict::Cells(cells) if cells.is_empty() => {
            filtered.fetch_add(1, Ordering::Relaxed);
            *last = LastRow::Dropped;
            None
        }
        RowVerdict::Cells(cells) => {
            metrics.read_requests.fetch_add(1, Ordering::Relaxed);
            *last = LastRow::Returned;
            if let Some(n) = rows_left {
                *n -= 1;
            }
            Some(cells)
        }
    }
}

impl RegionScanner {
    fn next_row_reversed(&mut self) -> Result<Option<Vec<Cell>>> {
        let Some(rev) = &mut self.reverse else {
            return Ok(None);
        };
        loop {
            if self.rows_left == Some(0) || self.done {
                return Ok(None);
            }
            let bound = rev.bound.as_ref().map(|k| k.as_bytes());
            let mut row: Option<Vec<u8>> = None;
            for s in &rev.stores {
                if let Some(r) = s.last_row_before(bound)?
                    && row.as_ref().is_none_or(|b| &r > b)
                {
                    row = Some(r);
                }
            }
            let Some(row) = row else {
                return Ok(None);
            };
            if !self.stop_row.is_empty() {
                let past = if self.include_stop {
                    row.as_slice() < self.stop_row.as_slice()
                } else {
                    row.as_slice() <= self.stop_row.as_slice()
                };
                if past {
                    return Ok(None);
                }
            }
            let stores = &mut rev.stores;
            let verdict = filter_row(self.filter.as_ref(), &row, |skip| {
                let mut cells = Vec::new();
                // A reversed scan finds each row afresh: a skipped row needs no move.
                if !skip {
                    for s in stores.iter_mut() {
                        s.scanner.seek_row_exact(&row)?;
                        if s.scanner.peek_row().is_some_and(|r| equal_bytes(r, &row)) {
                            s.scanner.row_cells(&row, &mut cells)?;
                        }
                    }
                }
                Ok(cells)
            })?;
            rev.bound = Some(OwnedKey::first_on_row(&row)?);
            let counted = count_row(
                &self.metrics,
                &mut self.last,
                &mut self.done,
                &mut self.rows_left,
                verdict,
            );
            if let Some(cells) = counted {
                return Ok(Some(cells));
            }
            if self.done {
                return Ok(None);
            }
        }
    }
}

impl RegionScanner {
    /// The next result: a whole row, or with `batch` set, at most `batch` cells of one row.
    pub fn next_result(&mut self) -> Result<Option<Vec<Cell>>> {
        let Some(batch) = self.batch.filter(|b| *b > 0) else {
            return self.next_row();
        };
        if self.pending.is_empty() {
            match self.next_row()? {
                Some(row) => self.pending.extend(row),
                None => return Ok(None),
            }
        } else {
            // Each piece of a row split by `batch` is one `nextRaw` call in HBase, and one
            // read request (the row's first piece was counted by `next_row`).
            self.metrics.read_requests.fetch_add(1, Ordering::Relaxed);
        }
        let n = batch.min(self.pending.len());
        Ok(Some(self.pending.drain(..n).collect()))
    }
}

impl Iterator for RegionScanner {
    type Item = Result<Vec<Cell>>;
    fn next(&mut self) -> Option<Self::Item> {
        self.next_result().transpose()
    }
}

/// HBase's source selection for a user read of `family` (see [`SourceFilter`]): raw scans
/// use a TTL cutoff of 0, and with MIN_VERSIONS > 0 nothing is skipped for TTL.
fn source_filter(
    family: &crate::descriptor::ColumnFamilyDescriptor,
    q: &ReadQuery,
    now: &ReadNow,
) -> SourceFilter {
    let expired_before = if q.raw {
        0
    } else if family.min_versions == 0 {
        crate::scan::query_matcher::oldest_unexpired_ts(family, now)
    } else {
        i64::MIN
    };
    SourceFilter {
        time_range: q.time_range,
        expired_before,
        cache_blocks: q.cache_blocks,
    }
}

impl Region {
    /// The families `q` reads, each with its requested qualifiers (empty: all), after
    /// HBase's checks. Borrowed and not collected: this runs once per get.
    fn resolve<'a>(
        &'a self,
        q: &'a ReadQuery,
    ) -> Result<impl Iterator<Item = FamilyColumns<'a>> + 'a> {
        if q.max_versions == 0 {
            return Err(Error::InvalidRequest(RequestProblem::ZeroVersions));
        }
        for (family, qualifiers) in &q.families {
            self.store(family)?;
            if q.raw && !qualifiers.is_empty() {
                return Err(Error::InvalidRequest(RequestProblem::ColumnsOnRawScan));
            }
        }
        // Every family when none is named, else the named ones (one of the two is empty).
        let all = q
            .families
            .is_empty()
            .then(|| self.stores().keys().map(|f| (f.as_slice(), &[][..])));
        let named = q
            .families
            .iter()
            .map(|(family, qualifiers)| (family.as_slice(), qualifiers.as_slice()));
        Ok(all.into_iter().flatten().chain(named))
    }

    fn store_scanners(
        &self,
        q: &ReadQuery,
        start_key: &OwnedKey,
        start_row: &[u8],
        stop_row: &[u8],
        get_row: Option<&[u8]>,
        filter: Option<&SharedFilter>,
    ) -> Result<(ReadPointGuard, Vec<StoreScanner>)> {
        // Registered before any source is opened: flushes and compactions from here on
        // keep what this read point sees.
        let guard = self.mvcc().open_reader();
        let read_point = guard.read_point();
        // A scan's stores share one "now", taken here; a get's are taken when needed.
        let clock = &self.services().clock;
        let scan_now = get_row.is_none().then(|| clock.now_millis());
        let mut out = Vec::with_capacity(self.stores().len());
        for (family, qualifiers) in self.resolve(q)? {
            let Some(store) = self.stores().get(family) else {
                continue;
            };
            let now = match scan_now {
                Some(t) => ReadNow::At(t),
                None => ReadNow::on_first_use(Arc::clone(clock)),
            };
            let sf = source_filter(store.family(), q, &now);
            let heap = match get_row {
                Some(row) => store.get_scanners(
                    read_point,
                    row,
                    start_key,
                    qualifiers,
                    &sf,
                    filter.is_none(),
                )?,
                None => KeyValueHeap::new(store.scanners(
                    read_point,
                    &start_key.view(),
                    start_row,
                    stop_row,
                    &sf,
                )?),
            };
            let matcher = QueryMatcher::user_filtered(
                store.family(),
                qualifiers,
                q.max_versions,
                q.time_range,
                now,
                q.raw,
                filter.cloned(),
            );
            let scanner = StoreScanner::new(heap, matcher);
            out.push(if get_row.is_some() {
                scanner.single_row()
            } else {
                scanner
            });
            // An interleaving point for tests (not a crash point): a flush that commits
            // here, after the read point was taken, must stay invisible to this read.
            fail::fail_point!("read-between-families");
        }
        Ok((guard, out))
    }

    /// The cells of `row` a Get returns (HBase's `HRegion.get`).
    pub fn get(&self, row: &[u8], q: &ReadQuery) -> Result<Vec<Cell>> {
        self.get_filtered(row, q, None)
    }

    /// A Get with a filter: a one-row scan, so the row-level filter calls apply too.
    pub fn get_filtered(
        &self,
        row: &[u8],
        q: &ReadQuery,
        filter: Option<Box<dyn Filter>>,
    ) -> Result<Vec<Cell>> {
        self.check_readable()?;
        let filter = filter.map(|f| Arc::new(parking_lot::Mutex::new(f)));
        let start = OwnedKey::first_on_row(row)?;
        let (_read_point, mut stores) =
            self.store_scanners(q, &start, row, &[], Some(row), filter.as_ref())?;
        // A get is a one-row scan (HBase's `HRegion.get` calls `RegionScanner.next` once):
        // a read when it returns cells, a filtered read when the row is there (a cell of
        // it in a read source) but nothing of it is returned, nothing when it is absent.
        let present = stores
            .iter()
            .any(|s| s.peek_row().is_some_and(|r| equal_bytes(r, row)));
        let verdict = filter_row(filter.as_ref(), row, |skip| {
            let mut cells = Vec::new();
            if !skip {
                for s in stores.iter_mut() {
                    if s.peek_row().is_some_and(|r| equal_bytes(r, row)) {
                        s.row_cells(row, &mut cells)?;
                    }
                }
            }
            Ok(cells)
        })?;
        let cells = match verdict {
            RowVerdict::Cells(c) => c,
            RowVerdict::KeySkipped | RowVerdict::Stop => Vec::new(),
        };
        let m = self.metrics();
        if !cells.is_empty() {
            m.read_requests.fetch_add(1, Ordering::Relaxed);
        } else if present {
            m.filtered_read_requests.fetch_add(1, Ordering::Relaxed);
        }
        Ok(cells)
    }

    /// A scanner over rows of `scan`'s range within this region.
    pub fn scan(&self, scan: &RegionScan) -> Result<RegionScanner> {
        self.scan_filtered(scan, None)
    }

    /// A scanner with a filter (HBase's `Scan.setFilter`). A filter that edits whole rows
    /// (`has_filter_row`) cannot be combined with `batch` (HBase's
    /// IncompatibleFilterException).
    pub fn scan_filtered(
        &self,
        scan: &RegionScan,
        filter: Option<Box<dyn Filter>>,
    ) -> Result<RegionScanner> {
        self.check_readable()?;
        // Opening a scanner counts nothing: its rows are counted as it returns them.
        if let Some(f) = &filter
            && f.has_filter_row()
            && scan.batch.is_some_and(|b| b > 0)
        {
            return Err(Error::InvalidRequest(RequestProblem::BatchWithRowFilter));
        }
        let filter = filter.map(|mut f| {
            if scan.reversed {
                f.set_reversed(true);
            }
            Arc::new(parking_lot::Mutex::new(f))
        });
        if scan.reversed {
            return self.scan_reversed(scan, filter);
        }
        let info = self.info();
        // Clamp to the region's range.
        let start_row = if scan.start_row.as_slice() < info.start_key.as_slice() {
            info.start_key.clone()
        } else {
            scan.start_row.clone()
        };
        let start_key = if scan.include_start || start_row != scan.start_row {
            OwnedKey::first_on_row(&start_row)?
        } else {
            OwnedKey::last_on_row(&start_row)?
        };
        let (stop_row, include_stop) = match (&info.end_key, &scan.stop_row) {
            (end, stop) if !end.is_empty() && (stop.is_empty() || stop > end) => {
                (end.clone(), false)
            }
            _ => (scan.stop_row.clone(), scan.include_stop),
        };
        // Files are skipped by an exclusive stop row; an inclusive one must keep a file
        // whose first row is the stop row (HBase's passesKeyRangeFilter), so hand the
        // filter the closest row after it.
        let file_stop = if include_stop && !stop_row.is_empty() {
            let mut r = stop_row.clone();
            r.push(0);
            r
        } else {
            stop_row.clone()
        };
        let (guard, stores) = self.store_scanners(
            &scan.query,
            &start_key,
            &start_row,
            &file_stop,
            None,
            filter.as_ref(),
        )?;
        Ok(RegionScanner {
            stores,
            stop_row,
            include_stop,
            rows_left: scan.limit,
            reverse: None,
            batch: scan.batch,
            pending: Default::default(),
            filter,
            done: false,
            last: LastRow::None,
            metrics: self.metrics_handle(),
            _read_point: guard,
        })
    }

    /// HBase's reversed scan: rows from `start_row` (the highest, inclusive by default)
    /// down to `stop_row` (exclusive lower bound by default), clamped to the region.
    fn scan_reversed(
        &self,
        scan: &RegionScan,
        filter: Option<SharedFilter>,
    ) -> Result<RegionScanner> {
        let info = self.info();
        let guard = self.mvcc().open_reader();
        let read_point = guard.read_point();
        let now = self.services().clock.now_millis();
        // The exclusive upper bound key.
        let mut bound = if scan.start_row.is_empty() {
            None
        } else if scan.include_start {
            Some(OwnedKey::last_on_row(&scan.start_row)?)
        } else {
            Some(OwnedKey::first_on_row(&scan.start_row)?)
        };
        if !info.end_key.is_empty() && (scan.start_row.is_empty() || scan.start_row >= info.end_key)
        {
            bound = Some(OwnedKey::first_on_row(&info.end_key)?);
        }
        let (stop_row, include_stop) =
            if !info.start_key.is_empty() && scan.stop_row.as_slice() < info.start_key.as_slice() {
                (info.start_key.clone(), true)
            } else {
                (scan.stop_row.clone(), scan.include_stop)
            };
        let mut stores = Vec::new();
        for (family, qualifiers) in self.resolve(&scan.query)? {
            let Some(store) = self.stores().get(family) else {
                continue;
            };
            let sf = source_filter(store.family(), &scan.query, &ReadNow::At(now));
            let segments: Vec<Arc<Segment>> = store
                .memstore()
                .segments()
                .into_iter()
                .filter(|s| sf.keeps_segment(s))
                .collect();
            let files: Arc<Vec<StoreFileHandle>> = Arc::new(
                store
                    .files()
                    .iter()
                    .filter(|f| sf.keeps_file(&f.reader))
                    .cloned()
                    .collect(),
            );
            let mut sources = Vec::new();
            for seg in &segments {
                sources.push(SourceScanner::Memstore(seg.scanner(read_point)));
            }
            for f in files.iter() {
                sources.push(SourceScanner::File(
                    StoreFileScanner::new(f.reader.clone())
                        .with_read_point(read_point, f.meta.max_seq_id)
                        .cache_blocks(sf.cache_blocks),
                ));
            }
            let matcher = QueryMatcher::user_filtered(
                store.family(),
                qualifiers,
                scan.query.max_versions,
                scan.query.time_range,
                ReadNow::At(now),
                scan.query.raw,
                filter.clone(),
            );
            stores.push(ReverseStore {
                segments,
                files,
                read_point,
                scanner: StoreScanner::new(KeyValueHeap::new(sources), matcher),
            });
            // As in `store_scanners`: a flush committing here stays invisible.
            fail::fail_point!("read-between-families");
        }
        Ok(RegionScanner {
            stores: Vec::new(),
            stop_row,
            include_stop,
            rows_left: scan.limit,
            reverse: Some(Reverse { stores, bound }),
            batch: scan.batch,
            pending: Default::default(),
            filter,
            done: false,
            last: LastRow::None,
            metrics: self.metrics_handle(),
            _read_point: guard,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::closest_row_after_prefix;

    #[test]
    fn closest_next_row_matches_hbase() {
        assert_eq!(closest_row_after_prefix(b"abc"), b"abd");
        assert_eq!(closest_row_after_prefix(b"ab\xff"), b"ac");
        assert_eq!(closest_row_after_prefix(b"\xff\xff"), b"");
        assert_eq!(closest_row_after_prefix(b""), b"");
        assert_eq!(closest_row_after_prefix(&[0x01, 0xfe]), [0x01, 0xff]);
    }
}
