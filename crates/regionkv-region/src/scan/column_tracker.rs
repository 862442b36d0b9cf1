//! Column trackers: which columns a read wants and how many versions of each it returns
//! (HBase's `ScanWildcardColumnTracker` and `ExplicitColumnTracker`).
//!
//! * Wildcard (all columns of the family; also every flush and compaction): counts
//!   versions per qualifier; delete markers never increment the count; a cell with the
//!   same timestamp and type as the previously included cell of its column is skipped (the
//!   older write of a same-timestamp overwrite).
//! * Explicit (qualifiers named in the Get/Scan): walks the requested qualifiers in
//!   order; stops a column once `count ≥ max versions` or (`count ≥ min versions` and the
//!   cell is expired) — the current cell included; same-timestamp duplicates are skipped.
//!
//! The two differ (as in HBase) for columns mixing fresh and expired versions under
//! MIN_VERSIONS > 0: the explicit tracker returns the first expired cell too.

use regionkv_cell::key::equal_bytes;
use regionkv_cell::{CellRef, CellType};

/// A match decision (HBase's `MatchCode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatchCode {
    /// Return the cell.
    Include,
    /// Return the cell, then skip the rest of its column.
    IncludeAndSeekNextCol,
    /// Return the cell, then skip the rest of the row.
    IncludeAndSeekNextRow,
    /// Drop the cell.
    Skip,
    /// Drop the cell and the rest of its column.
    SeekNextCol,
    /// Drop the cell and the rest of the row.
    SeekNextRow,
    /// The row is finished (the cell belongs to another row).
    Done,
    /// Drop the cell and seek to the key the scan's filter hints at.
    SeekNextUsingHint,
}

/// Version counting shared by both trackers.
#[derive(Debug, Clone, Copy)]
pub struct VersionLimits {
    /// Most versions per column.
    pub max_versions: u32,
    /// Versions kept even when expired.
    pub min_versions: u32,
    /// Cells older than this are expired (`now − TTL`); `i64::MIN` without a TTL.
    pub oldest_unexpired_ts: i64,
}

impl VersionLimits {
    fn is_expired(&self, ts: i64) -> bool {
        ts < self.oldest_unexpired_ts
    }
}

/// A column tracker.
#[derive(Debug)]
pub enum ColumnTracker {
    /// All columns.
    Wildcard(WildcardTracker),
    /// Named columns.
    Explicit(ExplicitTracker),
}

impl ColumnTracker {
    /// A tracker for all columns.
    pub fn wildcard(limits: VersionLimits) -> Self {
        Self::Wildcard(WildcardTracker {
            limits,
            column: Vec::new(),
            in_column: false,
            count: 0,
            last: None,
        })
    }

    /// A tracker for the given qualifiers (sorted and deduplicated here).
    pub fn explicit(mut columns: Vec<Vec<u8>>, limits: VersionLimits) -> Self {
        columns.sort();
        columns.dedup();
        let n = columns.len();
        Self::Explicit(ExplicitTracker {
            limits,
            columns,
            counts: vec![0; n],
            index: 0,
            last_ts: None,
        })
    }

    /// Starts a new row.
    pub fn reset(&mut self) {
        match self {
            Self::Wildcard(w) => {
                w.in_column = false;
                w.count = 0;
                w.last = None;
            }
            Self::Explicit(e) => {
                e.index = 0;
                e.counts.iter_mut().for_each(|c| *c = 0);
                e.last_ts = None;
            }
        }
    }

    /// True when every requested column is finished (explicit only).
    pub fn done(&self) -> bool {
        match self {
            Self::Wildcard(_) => false,
            Self::Explicit(e) => e.index >= e.columns.len(),
        }
    }

    /// HBase's `isDone(ts)`: with no min versions, an expired cell ends its column.
    pub fn is_done_ts(&self, ts: i64) -> bool {
        let l = self.limits();
        l.min_versions == 0 && l.is_expired(ts)
    }

    fn limits(&self) -> &VersionLimits {
        match self {
            Self::Wildcard(w) => &w.limits,
            Self::Explicit(e) => &e.limits,
        }
    }

    /// Where to go after giving up on a cell's column.
    pub fn next_row_or_next_column(&self) -> MatchCode {
        if self.done() {
            MatchCode::SeekNextRow
        } else {
            MatchCode::SeekNextCol
        }
    }

    /// Whether the cell's column is wanted (always, for the wildcard tracker).
    pub fn check_column(&mut self, cell: CellRef<'_>) -> MatchCode {
        match self {
            Self::Wildcard(_) => MatchCode::Include,
            Self::Explicit(e) => e.check_column(cell.qualifier()),
        }
    }

    /// HBase's `doneWithColumn`: the explicit tracker moves past the cell's column (a
    /// filter answered INCLUDE_AND_NEXT_COL); the wildcard tracker needs nothing.
    pub fn done_with_column(&mut self, cell: CellRef<'_>) {
        if let Self::Explicit(e) = self {
            while let Some(wanted) = e.columns.get(e.index) {
                let cmp = cell.qualifier().cmp(wanted.as_slice());
                e.last_ts = None;
                if cmp.is_lt() {
                    return;
                }
                e.index += 1;
                if cmp.is_eq() {
                    return;
                }
            }
        }
    }

    /// Counts the cell as a version. `ignore_count` includes it without counting.
    pub fn check_versions(&mut self, cell: CellRef<'_>, ignore_count: bool) -> MatchCode {
        match self {
            Self::Wildcard(w) => w.check_versions(cell, ignore_count),
            Self::Explicit(e) => e.check_versions(cell.timestamp(), ignore_count),
        }
    }
}

/// State of the wildcard tracker.
#[derive(Debug)]
pub struct WildcardTracker {
    limits: VersionLimits,
    /// The current column's qualifier when `in_column` (the buffer is kept across columns
    /// and rows: a scan meets a new column at nearly every cell).
    column: Vec<u8>,
    in_column: bool,
    count: u32,
    /// Timestamp and type of the last included cell of the current column.
    last: Option<(i64, CellType)>,
}

impl WildcardTracker {
    fn check_versions(&mut self, cell: CellRef<'_>, ignore_count: bool) -> MatchCode {
        let (ts, t) = (cell.timestamp(), cell.cell_type());
        let same_column = self.in_column && equal_bytes(&self.column, cell.qualifier());
        if !same_column {
            self.column.clear();
            self.column.extend_from_slice(cell.qualifier());
            self.in_column = true;
            self.count = 0;
            self.last = None;
        }
        if ignore_count {
            return MatchCode::Include;
        }
        if same_column && self.last == Some((ts, t)) {
            return MatchCode::Skip;
        }
        if !t.is_delete() {
            self.count += 1;
        }
        if self.count > self.limits.max_versions {
            return MatchCode::SeekNextCol;
        }
        if self.count <= self.limits.min_versions || !self.limits.is_expired(ts) {
            self.last = Some((ts, t));
            MatchCode::Include
        } else {
            MatchCode::SeekNextCol
        }
    }
}

/// State of the explicit tracker.
#[derive(Debug)]
pub struct ExplicitTracker {
    limits: VersionLimits,
    columns: Vec<Vec<u8>>,
    counts: Vec<u32>,
    index: usize,
    last_ts: Option<i64>,
}

impl ExplicitTracker {
    fn check_column(&mut self, qualifier: &[u8]) -> MatchCode {
        loop {
            let Some(wanted) = self.columns.get(self.index) else {
                return MatchCode::SeekNextRow;
            };
            match qualifier.cmp(wanted.as_slice()) {
                std::cmp::Ordering::Equal => return MatchCode::Include,
                std::cmp::Ordering::Less => {
                    self.last_ts = None;
                    return MatchCode::SeekNextCol;
                }
                std::cmp::Ordering::Greater => {
                    // No more cells of the wanted column: move to the next wanted one.
                    self.last_ts = None;
                    self.index += 1;
                    if self.index >= self.columns.len() {
                        return MatchCode::SeekNextRow;
                    }
                }
            }
        }
    }

    fn check_versions(&mut self, ts: i64, ignore_count: bool) -> MatchCode {
        if ignore_count {
            return MatchCode::Include;
        }
        if self.last_ts == Some(ts) {
            return MatchCode::Skip;
        }
        let Some(count) = self.counts.get_mut(self.index) else {
            return MatchCode::SeekNextRow;
        };
        *count += 1;
        let count = *count;
        if count >= self.limits.max_versions
            || (count >= self.limits.min_versions && self.limits.is_expired(ts))
        {
            self.index += 1;
            self.last_ts = None;
            if self.index >= self.columns.len() {
                return MatchCode::IncludeAndSeekNextRow;
            }
            return MatchCode::IncludeAndSeekNextCol;
        }
        self.last_ts = Some(ts);
        MatchCode::Include
    }
}
