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
//! Flushes use `MinorCompaction` (HBase's StoreFlusher scans with COMPACT_RETAIN_DELETES):
//! expired cells, masked puts and excess versions are dropped at flush. The rules and the
//! HBase class each comes from are in `docs/semantics.md`.

use crate::descriptor::{ColumnFamilyDescriptor, KeepDeletedCells};
use crate::scan::column_tracker::{ColumnTracker, MatchCode, VersionLimits};
use crate::scan::delete_tracker::{DeleteResult, DeleteTracker};
use regionkv_cell::key::OLDEST_TIMESTAMP;
use regionkv_cell::{CellRef, TimeRange};
use std::cmp::Ordering;

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
    now: i64,
    row: Vec<u8>,
}

/// `now − TTL` for `family` (or `i64::MIN` without a TTL).
pub fn oldest_unexpired_ts(family: &ColumnFamilyDescriptor, now: i64) -> i64 {
    family
        .ttl_millis()
        .map_or(i64::MIN, |ttl| now.saturating_sub(ttl))
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
        let (kind, max, oldest) = if raw {
            // Raw scans ignore TTL (HBase sets oldestUnexpiredTS to 0) and are not capped by
            // the family's VERSIONS.
            (MatcherKind::Raw, max_versions, 0)
        } else {
            (
                MatcherKind::User,
                max_versions.min(family.max_versions),
                oldest_unexpired_ts(family, now),
            )
        };
        let limits = VersionLimits {
            max_versions: max,
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
        }
    }

    /// A matcher for a flush or compaction of `family` at time `now`.
    pub fn compaction(family: &ColumnFamilyDescriptor, kind: MatcherKind, now: i64) -> Self {
        let oldest = oldest_unexpired_ts(family, now);
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
        }
    }

    /// Starts a new row.
    pub fn set_row(&mut self, row: &[u8]) {
        self.row.clear();
        self.row.extend_from_slice(row);
        self.columns.reset();
        self.deletes.reset();
    }

    /// True when an explicit column list is exhausted for this row.
    pub fn row_done(&self) -> bool {
        self.columns.done()
    }

    /// HBase's `preCheck`.
    fn pre_check(&self, cell: CellRef<'_>) -> Option<MatchCode> {
        if cell.row() != self.row.as_slice() {
            return Some(MatchCode::Done);
        }
        if self.columns.done() {
            return Some(MatchCode::SeekNextRow);
        }
        let ts = cell.timestamp();
        if ts == OLDEST_TIMESTAMP || self.columns.is_done_ts(ts) {
            return Some(self.columns.next_row_or_next_column());
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

    /// HBase's `UserScanQueryMatcher.matchColumn`: time range, column, versions.
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
        self.columns.check_versions(cell, false)
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
        if let Some(code) = self.pre_check(cell) {
            return code;
        }
        let is_delete = cell.cell_type().is_delete();
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
                    self.track_delete(cell);
                    return MatchCode::Include;
                }
                if let Some(code) = self.check_deleted(cell) {
                    return code;
                }
                self.columns.check_versions(cell, false)
            }
            MatcherKind::MajorCompaction {
                earliest_put_ts,
                time_to_purge_deletes,
            } => {
                if is_delete {
                    self.track_delete(cell);
                    let ts = cell.timestamp();
                    let purge_later =
                        time_to_purge_deletes > 0 && self.now - ts <= time_to_purge_deletes;
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
                self.columns.check_versions(cell, false)
            }
        }
    }
}
