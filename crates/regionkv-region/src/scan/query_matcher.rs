//! `QueryMatcher`: decides, cell by cell within one row of one store, what a read, flush
//! or compaction keeps (HBase's `ScanQueryMatcher` family, as one enum of kinds instead of
//! a class hierarchy):
//!
//! | kind              | markers returned | markers mask puts            | versions counted against |
//! |-------------------|------------------|------------------------------|--------------------------|
//! | `User`            | never            | yes                          | min(requested, VERSIONS) |
//! | `Raw`             | yes              | no                           | requested                |
//! | `MinorCompaction` | kept             | yes unless KEEP_DELETED_CELLS | VERSIONS                |
//! | `MajorCompaction` | dropped unless KEEP_DELETED_CELLS | yes unless KDC | VERSIONS             |
//!
//! With a filter, `User` and `Raw` reads apply their limit after the filter and let the
//! column tracker count further (to VERSIONS, or without limit for `Raw`); see
//! [`QueryMatcher::user_filtered`].
//!
//! Flushes use `MinorCompaction` (HBase's StoreFlusher scans with COMPACT_RETAIN_DELETES):
//! expired cells, masked puts and excess versions are dropped at flush. The rules and the
//! HBase class each comes from are in `docs/semantics.md`.
//!
//! Flushes and compactions take the region's smallest open read point: a cell above it
//! may be hidden from an open reader, which then reads the versions below it. Such a
//! cell is kept without counting as a version, and such a delete marker is kept and
//! masks nothing yet (HBase's `maxReadPointToTrackVersions`).

use crate::descriptor::{ColumnFamilyDescriptor, KeepDeletedCells};
use crate::filter::{Filter, ReturnCode};
use crate::scan::column_tracker::{ColumnTracker, MatchCode, VersionLimits};
use crate::scan::delete_tracker::{DeleteResult, DeleteTracker};
use regionkv_cell::SharedClock;
use regionkv_cell::key::{OLDEST_TIMESTAMP, equal_bytes};
use regionkv_cell::{CellRef, OwnedKey, TimeRange};
use std::cmp::Ordering;
use std::sync::{Arc, OnceLock};

/// A read's "now", in ms. HBase reads the clock when it builds each store's scanner;
/// scans, flushes and compactions do the same here ([`ReadNow::At`]). A get may leave it
/// to the first thing that needs it ([`ReadNow::on_first_use`]): a family TTL or a cell
/// TTL tag. A get runs within one call, so any instant of that call is the call's "now",
/// and a get of a family without a TTL over cells without tags never reads the clock (a
/// clock read was 5% of a missing-key get).
#[derive(Debug)]
pub enum ReadNow {
    /// Fixed.
    At(i64),
    /// Read from the clock once, when first asked.
    OnFirstUse(SharedClock, OnceLock<i64>),
}

impl ReadNow {
    /// A "now" read from `clock` when first asked.
    pub fn on_first_use(clock: SharedClock) -> Self {
        ReadNow::OnFirstUse(clock, OnceLock::new())
    }

    /// The instant, reading the clock on the first call of a lazy one.
    pub fn get(&self) -> i64 {
        match self {
            ReadNow::At(t) => *t,
            ReadNow::OnFirstUse(clock, at) => *at.get_or_init(|| clock.now_millis()),
        }
    }
}

/// A read's filter, shared by the matchers of every store of one region scan (HBase hands
/// the same filter object to each store's matcher, so it sees a row's cells family by
/// family). Only the one thread driving the scan locks it.
pub type SharedFilter = Arc<parking_lot::Mutex<Box<dyn Filter>>>;

/// The user matcher's filter state (HBase's `UserScanQueryMatcher` fields).
#[derive(Debug)]
struct FilterState {
    filter: SharedFilter,
    /// Versions a column may return after the filter: min(requested, VERSIONS), or the
    /// requested number for raw scans.
    versions_after_filter: u32,
    /// Cells of `cur_col` included so far.
    count: u32,
    cur_col: Option<(Vec<u8>, Vec<u8>)>,
}

/// Which rules apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatcherKind {
    /// A normal Get or Scan.
    User,
    /// A raw scan: markers returned, nothing masked.
    Raw,
    /// A flush, or a compaction that does not cover every file: markers kept.
    MinorCompaction,
    /// A compaction covering every file: markers dropped unless KEEP_DELETED_CELLS.
    MajorCompaction {
        /// Smallest Put timestamp over the compacted files (HBase `earliestPutTs`).
        earliest_put_ts: i64,
        /// `hbase.hstore.time.to.purge.deletes` in ms (0: drop at once).
        time_to_purge_deletes: i64,
    },
}

/// The per-store matcher.
#[derive(Debug)]
pub struct QueryMatcher {
    kind: MatcherKind,
    columns: ColumnTracker,
    deletes: DeleteTracker,
    time_range: TimeRange,
    oldest_unexpired_ts: i64,
    keep_deleted_cells: KeepDeletedCells,
    now: ReadNow,
    row: Vec<u8>,
    filter: Option<FilterState>,
    /// Flush and compaction: cells with a higher sequence id are kept uncounted (see the
    /// module doc). `u64::MAX` for user reads.
    max_read_point_to_track_versions: u64,
}

/// `now − TTL` for `family` (or `i64::MIN` without a TTL, without asking for `now`).
pub fn oldest_unexpired_ts(family: &ColumnFamilyDescriptor, now: &ReadNow) -> i64 {
    family
        .ttl_millis()
        .map_or(i64::MIN, |ttl| now.get().saturating_sub(ttl))
}

impl QueryMatcher {
    /// A matcher for a user read of `family`: `columns` empty means all columns.
    pub fn user(
        family: &ColumnFamilyDescriptor,
        columns: &[Vec<u8>],
        max_versions: u32,
        time_range: TimeRange,
        now: i64,
        raw: bool,
    ) -> Self {
        Self::user_filtered(
            family,
            columns,
            max_versions,
            time_range,
            ReadNow::At(now),
            raw,
            None,
        )
    }

    /// A user matcher with a filter.
    ///
    /// Versions, as in HBase 2.x (`ScanQueryMatcher.getTrackers` sizes the column tracker,
    /// `UserScanQueryMatcher.mergeFilterResponse` counts again after the filter). Let R be
    /// what the read returns per column: min(requested, VERSIONS), or the requested number
    /// for a raw scan (raw scans ignore VERSIONS).
    /// - Without a filter the column tracker stops a column at R.
    /// - With a filter the tracker stops a column later — at the family's VERSIONS for a
    ///   normal read, never for a raw scan — so that the filter sees the versions it may
    ///   reject; the cells the filter includes are then counted, and the column ends at R.
    ///   A filter that rejects the newest versions thus returns older ones.
    /// - Raw scans return delete markers. The wildcard tracker never counts a marker, so an
    ///   unfiltered raw scan returns R puts of a column plus every marker above the (R+1)th
    ///   put; the count after a filter looks at the column only, so under a filter a marker
    ///   the filter includes counts as one of the R cells like a put.
    pub fn user_filtered(
        family: &ColumnFamilyDescriptor,
        columns: &[Vec<u8>],
        max_versions: u32,
        time_range: TimeRange,
        now: ReadNow,
        raw: bool,
        filter: Option<SharedFilter>,
    ) -> Self {
        let (kind, result_max, oldest) = if raw {
            // Raw scans ignore TTL (HBase sets oldestUnexpiredTS to 0) and are not capped by
            // the family's VERSIONS.
            (MatcherKind::Raw, max_versions, 0)
        } else {
            (
                MatcherKind::User,
                max_versions.min(family.max_versions),
                oldest_unexpired_ts(family, &now),
            )
        };
        let tracked = match (&filter, raw) {
            (None, _) => result_max,
            (Some(_), false) => family.max_versions,
            // HBase gives this tracker Integer.MAX_VALUE versions.
            (Some(_), true) => u32::MAX,
        };
        let limits = VersionLimits {
            max_versions: tracked,
            min_versions: if raw { 0 } else { family.min_versions },
            oldest_unexpired_ts: oldest,
        };
        let columns = if columns.is_empty() {
            ColumnTracker::wildcard(limits)
        } else {
            ColumnTracker::explicit(columns.to_vec(), limits)
        };
        Self {
            kind,
            columns,
            deletes: DeleteTracker::default(),
            time_range,
            oldest_unexpired_ts: oldest,
            keep_deleted_cells: family.keep_deleted_cells,
            now,
            row: Vec::new(),
            filter: filter.map(|filter| FilterState {
                filter,
                versions_after_filter: result_max,
                count: 0,
                cur_col: None,
            }),
            max_read_point_to_track_versions: u64::MAX,
        }
    }

    /// A matcher for a flush or compaction of `family` at time `now`; `smallest_read_point`
    /// is the region's [`crate::mvcc::Mvcc::smallest_read_point`] taken before the
    /// flush or compaction opened its scanner.
    pub fn compaction(
        family: &ColumnFamilyDescriptor,
        kind: MatcherKind,
        now: i64,
        smallest_read_point: u64,
    ) -> Self {
        let now = ReadNow::At(now);
        let oldest = oldest_unexpired_ts(family, &now);
        let limits = VersionLimits {
            max_versions: family.max_versions,
            min_versions: family.min_versions,
            oldest_unexpired_ts: oldest,
        };
        Self {
            kind,
            columns: ColumnTracker::wildcard(limits),
            deletes: DeleteTracker::default(),
            time_range: TimeRange::all_time(),
            oldest_unexpired_ts: oldest,
            keep_deleted_cells: family.keep_deleted_cells,
            now,
            row: Vec::new(),
            filter: None,
            max_read_point_to_track_versions: smallest_read_point,
        }
    }

    /// Starts a new row.
    pub fn set_row(&mut self, row: &[u8]) {
        self.row.clear();
        self.row.extend_from_slice(row);
        self.columns.reset();
        self.deletes.reset();
        if let Some(f) = &mut self.filter {
            // HBase compares row and column with the last counted cell; a new row always
            // starts a new column.
            f.count = 0;
            f.cur_col = None;
        }
    }

    /// True when an explicit column list is exhausted for this row.
    pub fn row_done(&self) -> bool {
        self.columns.done()
    }

    /// HBase's `preCheck`.
    fn pre_check(&self, cell: CellRef<'_>) -> Option<MatchCode> {
        if !equal_bytes(cell.row(), &self.row) {
            return Some(MatchCode::Done);
        }
        if self.columns.done() {
            return Some(MatchCode::SeekNextRow);
        }
        let ts = cell.timestamp();
        if ts == OLDEST_TIMESTAMP || self.columns.is_done_ts(ts) {
            return Some(self.columns.next_row_or_next_column());
        }
        // A cell TTL (HBase's `isCellTTLExpired`), for every kind of read, flush and
        // compaction alike: the cell is skipped before it can count as a version. The
        // family TTL was applied above and later, so a cell TTL never extends it.
        if !cell.tags().is_empty()
            && regionkv_cell::tag::is_cell_ttl_expired(cell.tags(), ts, self.now.get())
        {
            return Some(MatchCode::Skip);
        }
        None
    }

    /// HBase's `checkDeleted`.
    fn check_deleted(&mut self, cell: CellRef<'_>) -> Option<MatchCode> {
        if self.deletes.is_empty() {
            return None;
        }
        match self.deletes.is_deleted(cell) {
            DeleteResult::FamilyDeleted | DeleteResult::ColumnDeleted => {
                Some(self.columns.next_row_or_next_column())
            }
            DeleteResult::VersionDeleted | DeleteResult::FamilyVersionDeleted => {
                Some(MatchCode::Skip)
            }
            DeleteResult::NotDeleted => None,
        }
    }

    /// HBase's `UserScanQueryMatcher.matchColumn`: time range, column, versions, then
    /// the filter.
    fn match_column(&mut self, cell: CellRef<'_>) -> MatchCode {
        match self.time_range.compare(cell.timestamp()) {
            Ordering::Greater => return MatchCode::Skip,
            Ordering::Less => return self.columns.next_row_or_next_column(),
            Ordering::Equal => {}
        }
        let code = self.columns.check_column(cell);
        if code != MatchCode::Include {
            return code;
        }
        let code = self.columns.check_versions(cell, false);
        match code {
            MatchCode::Skip | MatchCode::SeekNextCol => return code,
            _ => {}
        }
        if self.filter.is_none() {
            return code;
        }
        let response = match &self.filter {
            Some(f) => f.filter.lock().filter_cell(cell),
            None => return code,
        };
        self.merge_filter_response(cell, code, response)
    }

    /// HBase's `mergeFilterResponse`: combines the tracker's include code (`Include`,
    /// `IncludeAndSeekNextCol` or `IncludeAndSeekNextRow`) with the filter's answer, then caps
    /// the cells a column returns after the filter. The filter's include answers:
    /// - `Include` keeps the tracker's code;
    /// - `IncludeAndNextCol` turns a plain `Include` into `IncludeAndSeekNextCol` (a code
    ///   that already moves further is kept);
    /// - `IncludeAndSeekNextRow` gives `IncludeAndSeekNextRow` whatever the tracker said: the
    ///   cell is returned and the rest of the row (in this store) is skipped.
    ///
    /// In every case the cell is then counted; the count past the limit turns the code
    /// into `SeekNextCol`, or `SeekNextRow` when it was `IncludeAndSeekNextRow`.
    fn merge_filter_response(
        &mut self,
        cell: CellRef<'_>,
        mut code: MatchCode,
        response: ReturnCode,
    ) -> MatchCode {
        match response {
            ReturnCode::Skip => {
                return match code {
                    MatchCode::IncludeAndSeekNextCol => MatchCode::SeekNextCol,
                    MatchCode::IncludeAndSeekNextRow => MatchCode::SeekNextRow,
                    _ => MatchCode::Skip,
                };
            }
            ReturnCode::NextCol => {
                return match code {
                    MatchCode::IncludeAndSeekNextRow => MatchCode::SeekNextRow,
                    _ => self.columns.next_row_or_next_column(),
                };
            }
            ReturnCode::NextRow => return MatchCode::SeekNextRow,
            ReturnCode::SeekNextUsingHint => return MatchCode::SeekNextUsingHint,
            ReturnCode::Include => {}
            ReturnCode::IncludeAndSeekNextRow => code = MatchCode::IncludeAndSeekNextRow,
            ReturnCode::IncludeAndNextCol => {
                if code == MatchCode::Include {
                    code = MatchCode::IncludeAndSeekNextCol;
                }
            }
        }
        // The cell is to be returned (`Include`, or an include that also ends its column
        // or row): it counts against the versions the read returns, whichever include it
        // is. The explicit tracker ends a column with an include-and-seek code once it has
        // counted the family's VERSIONS, which may be more than the read asked for, so
        // that code is no licence to skip this count.
        let Some(f) = self.filter.as_mut() else {
            return code;
        };
        let same = f.cur_col.as_ref().is_some_and(|(fam, q)| {
            equal_bytes(fam, cell.family()) && equal_bytes(q, cell.qualifier())
        });
        if !same {
            f.count = 0;
            f.cur_col = Some((cell.family().to_vec(), cell.qualifier().to_vec()));
        }
        f.count += 1;
        if f.count > f.versions_after_filter {
            // One cell too many: drop it and the rest of its column (of its row, when the
            // tracker was about to end the row anyway).
            code = if code == MatchCode::IncludeAndSeekNextRow {
                MatchCode::SeekNextRow
            } else {
                MatchCode::SeekNextCol
            };
        }
        if matches!(
            code,
            MatchCode::IncludeAndSeekNextCol | MatchCode::SeekNextCol
        ) {
            // The explicit tracker moves on to its next wanted column (a no-op when its
            // version check already did; nothing for the wildcard tracker).
            self.columns.done_with_column(cell);
        }
        code
    }

    /// The filter's seek hint for `cell` (after [`MatchCode::SeekNextUsingHint`]).
    pub fn next_key_hint(&self, cell: CellRef<'_>) -> Option<OwnedKey> {
        self.filter
            .as_ref()
            .and_then(|f| f.filter.lock().next_cell_hint(cell))
    }

    /// Applies the filter's `transform_cell` to an included cell.
    pub fn transform(&self, cell: regionkv_cell::Cell) -> regionkv_cell::Cell {
        match &self.filter {
            Some(f) => f.filter.lock().transform_cell(cell),
            None => cell,
        }
    }

    /// True when the read has a filter.
    pub fn has_filter(&self) -> bool {
        self.filter.is_some()
    }

    /// Compaction's `trackDelete`: markers mask puts unless KEEP_DELETED_CELLS keeps them
    /// (TTL mode: until the marker expires).
    fn track_delete(&mut self, cell: CellRef<'_>) {
        if self.keep_deleted_cells == KeepDeletedCells::False
            || (self.keep_deleted_cells == KeepDeletedCells::Ttl
                && cell.timestamp() < self.oldest_unexpired_ts)
        {
            self.deletes.add(cell);
        }
    }

    /// Decides what to do with `cell`.
    pub fn matches(&mut self, cell: CellRef<'_>) -> MatchCode {
        if let Some(f) = &self.filter
            && f.filter.lock().filter_all_remaining()
        {
            // HBase ends the scan (DONE_SCAN); the region scanner stops before the next
            // row, so here the row just ends.
            return MatchCode::SeekNextRow;
        }
        if let Some(code) = self.pre_check(cell) {
            return code;
        }
        let is_delete = cell.cell_type().is_delete();
        let above_read_point = cell.seq_id() > self.max_read_point_to_track_versions;
        match self.kind {
            MatcherKind::Raw => self.match_column(cell),
            MatcherKind::User => {
                if is_delete {
                    let ts = cell.timestamp();
                    let reaches = if self.keep_deleted_cells != KeepDeletedCells::False {
                        self.time_range.contains(ts)
                    } else {
                        self.time_range.contains_or_after(ts)
                    };
                    if reaches {
                        self.deletes.add(cell);
                    }
                    return MatchCode::Skip;
                }
                if let Some(code) = self.check_deleted(cell) {
                    return code;
                }
                self.match_column(cell)
            }
            MatcherKind::MinorCompaction => {
                if is_delete {
                    if !above_read_point {
                        self.track_delete(cell);
                    }
                    return MatchCode::Include;
                }
                if let Some(code) = self.check_deleted(cell) {
                    return code;
                }
                self.columns.check_versions(cell, above_read_point)
            }
            MatcherKind::MajorCompaction {
                earliest_put_ts,
                time_to_purge_deletes,
            } => {
                if is_delete {
                    if above_read_point {
                        // Not dropped, and masking nothing, until every reader sees it.
                        return MatchCode::Include;
                    }
                    self.track_delete(cell);
                    let ts = cell.timestamp();
                    let purge_later =
                        time_to_purge_deletes > 0 && self.now.get() - ts <= time_to_purge_deletes;
                    if !purge_later {
                        if self.keep_deleted_cells == KeepDeletedCells::False
                            || (self.keep_deleted_cells == KeepDeletedCells::Ttl
                                && ts < self.oldest_unexpired_ts)
                        {
                            return MatchCode::Skip;
                        }
                        if ts < earliest_put_ts {
                            return self.columns.next_row_or_next_column();
                        }
                    }
                } else if let Some(code) = self.check_deleted(cell) {
                    return code;
                }
                self.columns.check_versions(cell, above_read_point)
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use regionkv_cell::{Cell, CellType};

    fn family() -> ColumnFamilyDescriptor {
        // VERSIONS defaults to 1, KEEP_DELETED_CELLS to false.
        ColumnFamilyDescriptor::new(b"f").unwrap()
    }

    fn cell(ts: i64, t: CellType, seq: u64) -> Cell {
        Cell::new(b"r", b"f", b"q", ts, t, b"v")
            .unwrap()
            .with_seq_id(seq)
    }

    /// Codes the matcher gives `cells` (one row, key order).
    fn run(m: &mut QueryMatcher, cells: &[Cell]) -> Vec<MatchCode> {
        m.set_row(b"r");
        cells.iter().map(|c| m.matches(c.as_cell_ref())).collect()
    }

    /// A user matcher over `f:q` (`explicit`) or all of `f`, family VERSIONS 3, with or
    /// without a filter that lets every cell of row `r` through.
    fn versions_matcher(explicit: bool, requested: u32, filtered: bool) -> QueryMatcher {
        let mut fam = family();
        fam.max_versions = 3;
        let columns = if explicit {
            vec![b"q".to_vec()]
        } else {
            Vec::new()
        };
        let filter: Option<SharedFilter> = filtered.then(|| {
            let mut f: Box<dyn Filter> = Box::new(crate::filter::PrefixFilter::new(b"r".to_vec()));
            // The region scanner asks the row-level question before the matcher runs.
            assert!(!f.filter_row_key(b"r"));
            Arc::new(parking_lot::Mutex::new(f))
        });
        QueryMatcher::user_filtered(
            &fam,
            &columns,
            requested,
            TimeRange::all_time(),
            ReadNow::At(100),
            false,
            filter,
        )
    }

    /// Cells of `codes` a store scanner would return (an include ends at a seek code).
    fn included(codes: &[MatchCode]) -> usize {
        let mut n = 0;
        for c in codes {
            match c {
                MatchCode::Include => n += 1,
                MatchCode::IncludeAndSeekNextCol | MatchCode::IncludeAndSeekNextRow => {
                    return n + 1;
                }
                MatchCode::Skip => {}
                _ => return n,
            }
        }
        n
    }

    /// HBase's rule: after the filter, every include counts against min(requested,
    /// VERSIONS), whatever the tracker's include code. The explicit tracker, counting up
    /// to VERSIONS under a filter, ends the column with IncludeAndSeekNext* on the last
    /// version the family keeps; that include was once let through uncounted.
    #[test]
    fn versions_after_the_filter_cap_every_include() {
        let cells = [
            cell(3, CellType::Put, 3),
            cell(2, CellType::Put, 2),
            cell(1, CellType::Put, 1),
        ];
        for explicit in [true, false] {
            for filtered in [false, true] {
                for requested in [1, 2, 3, 5] {
                    let mut m = versions_matcher(explicit, requested, filtered);
                    let codes = run(&mut m, &cells);
                    assert_eq!(
                        included(&codes),
                        requested.min(3) as usize,
                        "explicit={explicit} filtered={filtered} requested={requested}: {codes:?}"
                    );
                }
            }
        }
        // The exact codes of the reported case (explicit column, 2 of VERSIONS 3, a
        // filter): the third version is dropped and the row ends (the only column).
        let mut m = versions_matcher(true, 2, true);
        assert_eq!(
            run(&mut m, &cells),
            [
                MatchCode::Include,
                MatchCode::Include,
                MatchCode::SeekNextRow
            ]
        );
        // One version asked: the explicit tracker moves on at the second one.
        let mut m = versions_matcher(true, 1, true);
        let codes = run(&mut m, &cells);
        assert_eq!(codes[..2], [MatchCode::Include, MatchCode::SeekNextCol]);
        assert!(
            m.row_done(),
            "the explicit tracker moved past its only column"
        );
    }

    /// A stateless test filter: answers `answer(cell)`.
    #[derive(Debug, Clone, Copy)]
    struct FnFilter(fn(CellRef<'_>) -> ReturnCode);

    impl Filter for FnFilter {
        fn filter_cell(&mut self, cell: CellRef<'_>) -> ReturnCode {
            (self.0)(cell)
        }
        fn box_clone(&self) -> Box<dyn Filter> {
            Box::new(*self)
        }
    }

    fn shared(answer: fn(CellRef<'_>) -> ReturnCode) -> SharedFilter {
        Arc::new(parking_lot::Mutex::new(Box::new(FnFilter(answer))))
    }

    fn qcell(q: &[u8], ts: i64, t: CellType) -> Cell {
        Cell::new(b"r", b"f", q, ts, t, b"v")
            .unwrap()
            .with_seq_id(ts as u64)
    }

    /// A matcher over family `f` with VERSIONS `versions`, `columns` (empty: all).
    fn matcher(
        versions: u32,
        columns: &[&[u8]],
        requested: u32,
        raw: bool,
        filter: Option<SharedFilter>,
    ) -> QueryMatcher {
        let mut fam = family();
        fam.max_versions = versions;
        let columns: Vec<Vec<u8>> = columns.iter().map(|c| c.to_vec()).collect();
        QueryMatcher::user_filtered(
            &fam,
            &columns,
            requested,
            TimeRange::all_time(),
            ReadNow::At(100),
            raw,
            filter,
        )
    }

    /// HBase (`ScanQueryMatcher.getTrackers`): a raw scan with a filter tracks columns
    /// without a version limit; the requested number is applied only to the cells the filter
    /// includes. So a filter rejecting the newest versions still gets the older ones.
    #[test]
    fn a_raw_filtered_scan_counts_versions_only_after_the_filter() {
        let cells = [
            qcell(b"q", 4, CellType::Put),
            qcell(b"q", 3, CellType::Put),
            qcell(b"q", 2, CellType::Put),
            qcell(b"q", 1, CellType::Put),
        ];
        let older_than_4 = || {
            shared(|c| {
                if c.timestamp() < 4 {
                    ReturnCode::Include
                } else {
                    ReturnCode::Skip
                }
            })
        };
        // The family's VERSIONS (1) does not cap a raw scan either way. (A raw scan cannot
        // name columns, but the explicit tracker counts the same way.)
        for columns in [&[][..], &[&b"q"[..]][..]] {
            for requested in [1, 2, 3, 5] {
                let mut m = matcher(1, columns, requested, true, Some(older_than_4()));
                let codes = run(&mut m, &cells);
                assert_eq!(
                    included(&codes),
                    requested.min(3) as usize,
                    "columns={columns:?} requested={requested}: {codes:?}"
                );
                assert_eq!(codes[0], MatchCode::Skip, "the filter rejected ts 4");
                // Without the filter: the newest `requested`.
                let mut m = matcher(1, columns, requested, true, None);
                let codes = run(&mut m, &cells);
                assert_eq!(included(&codes), requested.min(4) as usize, "{codes:?}");
            }
        }
        // The exact codes: one version asked, ts 4 rejected, ts 3 returned, ts 2 is one too
        // many after the filter.
        let mut m = matcher(1, &[], 1, true, Some(older_than_4()));
        assert_eq!(
            run(&mut m, &cells)[..3],
            [MatchCode::Skip, MatchCode::Include, MatchCode::SeekNextCol]
        );
    }

    /// Raw scans return markers. Without a filter the tracker limits puts only (the wildcard
    /// tracker never counts a marker); with a filter every included cell, marker or put,
    /// counts against the requested versions (HBase's after-filter count looks at row and
    /// column only).
    #[test]
    fn raw_scan_markers_count_after_a_filter_only() {
        let cells = [
            qcell(b"q", 5, CellType::DeleteColumn),
            qcell(b"q", 4, CellType::Put),
            qcell(b"q", 3, CellType::Delete),
            qcell(b"q", 3, CellType::Put),
            qcell(b"q", 2, CellType::Put),
        ];
        let pass_all = || shared(|_| ReturnCode::Include);
        let puts_only = || {
            shared(|c| {
                if c.cell_type().is_delete() {
                    ReturnCode::Skip
                } else {
                    ReturnCode::Include
                }
            })
        };
        let kept = |m: &mut QueryMatcher| -> Vec<(i64, CellType)> {
            m.set_row(b"r");
            let mut out = Vec::new();
            for c in &cells {
                match m.matches(c.as_cell_ref()) {
                    MatchCode::Include => out.push((c.timestamp(), c.cell_type())),
                    MatchCode::IncludeAndSeekNextCol | MatchCode::IncludeAndSeekNextRow => {
                        out.push((c.timestamp(), c.cell_type()));
                        break;
                    }
                    MatchCode::Skip => {}
                    _ => break,
                }
            }
            out
        };
        use CellType::{Delete, DeleteColumn, Put};
        // No filter, one version: the first put and every marker before the second put.
        assert_eq!(
            kept(&mut matcher(3, &[], 1, true, None)),
            [(5, DeleteColumn), (4, Put), (3, Delete)]
        );
        assert_eq!(
            kept(&mut matcher(3, &[], 2, true, None)),
            [(5, DeleteColumn), (4, Put), (3, Delete), (3, Put)]
        );
        // A filter letting everything through: markers count.
        assert_eq!(
            kept(&mut matcher(3, &[], 1, true, Some(pass_all()))),
            [(5, DeleteColumn)]
        );
        assert_eq!(
            kept(&mut matcher(3, &[], 3, true, Some(pass_all()))),
            [(5, DeleteColumn), (4, Put), (3, Delete)]
        );
        // A filter dropping markers: the puts, up to the requested number, however many
        // markers came before them.
        assert_eq!(
            kept(&mut matcher(3, &[], 2, true, Some(puts_only()))),
            [(4, Put), (3, Put)]
        );
        assert_eq!(
            kept(&mut matcher(1, &[], 5, true, Some(puts_only()))),
            [(4, Put), (3, Put), (2, Put)]
        );
    }

    /// HBase's `mergeFilterResponse`: a filter's INCLUDE_AND_SEEK_NEXT_ROW makes the cell an
    /// include that ends the row, whatever include code the tracker gave; the cell still
    /// counts against the versions after the filter, and one too many ends the row without
    /// the cell.
    #[test]
    fn a_filter_include_and_seek_next_row_ends_the_row() {
        let inr = || shared(|_| ReturnCode::IncludeAndSeekNextRow);
        let cells = [
            qcell(b"a", 3, CellType::Put),
            qcell(b"a", 2, CellType::Put),
            qcell(b"b", 1, CellType::Put),
        ];
        // Tracker Include (wildcard, or explicit with versions to spare).
        for columns in [&[][..], &[&b"a"[..], &b"b"[..]][..]] {
            let mut m = matcher(3, columns, 3, false, Some(inr()));
            assert_eq!(
                run(&mut m, &cells)[0],
                MatchCode::IncludeAndSeekNextRow,
                "{columns:?}"
            );
        }
        // Tracker IncludeAndSeekNextCol (explicit, VERSIONS 1, another column wanted).
        let mut m = matcher(1, &[b"a", b"b"], 1, false, Some(inr()));
        assert_eq!(run(&mut m, &cells)[0], MatchCode::IncludeAndSeekNextRow);
        // Raw scans merge the same way.
        let mut m = matcher(1, &[], 2, true, Some(inr()));
        assert_eq!(run(&mut m, &cells)[0], MatchCode::IncludeAndSeekNextRow);
        // Over the versions after the filter: the cell is dropped and the row ends (not just
        // its column, so `b` is not offered).
        let include_then_inr = || {
            shared(|c| {
                if c.timestamp() == 3 {
                    ReturnCode::Include
                } else {
                    ReturnCode::IncludeAndSeekNextRow
                }
            })
        };
        for columns in [&[][..], &[&b"a"[..], &b"b"[..]][..]] {
            let mut m = matcher(3, columns, 1, false, Some(include_then_inr()));
            assert_eq!(
                run(&mut m, &cells)[..2],
                [MatchCode::Include, MatchCode::SeekNextRow],
                "{columns:?}"
            );
        }
        // The next row starts afresh.
        let mut m = matcher(3, &[], 1, false, Some(inr()));
        assert_eq!(run(&mut m, &cells)[0], MatchCode::IncludeAndSeekNextRow);
        assert_eq!(run(&mut m, &cells)[0], MatchCode::IncludeAndSeekNextRow);
    }

    #[test]
    fn a_lazy_now_reads_the_clock_once_and_only_when_asked() {
        let clock = regionkv_cell::IncrementingClock::default();
        let shared: regionkv_cell::SharedClock = Arc::new(clock.clone());
        let now = ReadNow::on_first_use(Arc::clone(&shared));
        // Nothing asked yet: the clock has not moved.
        assert_eq!(regionkv_cell::Clock::now_millis(&clock), 0);
        assert_eq!(now.get(), 1);
        assert_eq!(now.get(), 1, "the first reading is kept");
        assert_eq!(ReadNow::At(42).get(), 42);
        // A family without a TTL needs no "now"; one with a TTL does.
        let lazy = ReadNow::on_first_use(Arc::clone(&shared));
        assert_eq!(oldest_unexpired_ts(&family(), &lazy), i64::MIN);
        assert_eq!(regionkv_cell::Clock::now_millis(&clock), 2);
        let mut ttl = family();
        ttl.ttl_seconds = 1;
        assert_eq!(oldest_unexpired_ts(&ttl, &lazy), 3 - 1000);
    }

    #[test]
    fn cells_above_the_smallest_read_point_are_kept_uncounted() {
        let cells = [
            cell(30, CellType::Put, 12),
            cell(20, CellType::Put, 11),
            cell(10, CellType::Put, 5),
            cell(5, CellType::Put, 4),
        ];
        // Every reader sees everything: VERSIONS = 1 keeps the newest only.
        let mut m = QueryMatcher::compaction(&family(), MatcherKind::MinorCompaction, 100, 20);
        assert_eq!(
            run(&mut m, &cells),
            [
                MatchCode::Include,
                MatchCode::SeekNextCol,
                MatchCode::SeekNextCol,
                MatchCode::SeekNextCol
            ]
        );
        // A reader at 10 cannot see seq 11 and 12: both are kept uncounted, and the newest
        // version it sees (seq 5) is kept as its one version.
        let mut m = QueryMatcher::compaction(&family(), MatcherKind::MinorCompaction, 100, 10);
        assert_eq!(
            run(&mut m, &cells),
            [
                MatchCode::Include,
                MatchCode::Include,
                MatchCode::Include,
                MatchCode::SeekNextCol
            ]
        );
    }

    #[test]
    fn a_delete_marker_above_the_smallest_read_point_masks_nothing_and_stays() {
        let cells = [
            cell(20, CellType::DeleteColumn, 12),
            cell(10, CellType::Put, 5),
        ];
        let major = MatcherKind::MajorCompaction {
            earliest_put_ts: 10,
            time_to_purge_deletes: 0,
        };
        // Seen by every reader: the marker masks the put, and a major compaction drops
        // both.
        let mut m = QueryMatcher::compaction(&family(), major, 100, 12);
        let codes = run(&mut m, &cells);
        assert_eq!(codes[0], MatchCode::Skip);
        assert_ne!(codes[1], MatchCode::Include);
        // A reader at 10 still sees the put: both stay.
        let mut m = QueryMatcher::compaction(&family(), major, 100, 10);
        assert_eq!(
            run(&mut m, &cells),
            [MatchCode::Include, MatchCode::Include]
        );
        let mut m = QueryMatcher::compaction(&family(), MatcherKind::MinorCompaction, 100, 10);
        assert_eq!(
            run(&mut m, &cells),
            [MatchCode::Include, MatchCode::Include]
        );
    }
}
