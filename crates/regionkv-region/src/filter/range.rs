//! HBase's `MultiRowRangeFilter`: rows inside any of several row ranges, seeking from the end
//! of one range to the start of the next.
//!
//! The ranges are sorted and merged once, at construction (HBase's `sortAndMerge`): ranges that
//! overlap or touch become one — two ranges that meet at a row both exclude stay apart. An
//! empty start row is "from the first row", an empty stop row "to the last row". Per row
//! (`filter_row_key`, which never drops the row itself) the filter finds the range holding the
//! row or the next one in scan direction; a row outside every range answers
//! `SeekNextUsingHint` for its cells, with the first key of that next range's start (its stop
//! row for a reversed scan) as the hint, and the scan ends once the rows have passed the last
//! range.

use super::{Filter, FilterError, ReturnCode};
use regionkv_cell::{CellRef, OwnedKey};
use std::cmp::Ordering;

/// One range of rows (HBase's `MultiRowRangeFilter.RowRange`). An empty start or stop row is
/// unbounded on that side.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowRange {
    start_row: Vec<u8>,
    start_inclusive: bool,
    stop_row: Vec<u8>,
    stop_inclusive: bool,
}

impl RowRange {
    /// The rows from `start_row` to `stop_row`, each end included or not.
    pub fn new(
        start_row: impl Into<Vec<u8>>,
        start_inclusive: bool,
        stop_row: impl Into<Vec<u8>>,
        stop_inclusive: bool,
    ) -> Self {
        Self {
            start_row: start_row.into(),
            start_inclusive,
            stop_row: stop_row.into(),
            stop_inclusive,
        }
    }

    /// The start row (empty: unbounded).
    pub fn start_row(&self) -> &[u8] {
        &self.start_row
    }

    /// Whether the start row is in the range.
    pub fn is_start_row_inclusive(&self) -> bool {
        self.start_inclusive
    }

    /// The stop row (empty: unbounded).
    pub fn stop_row(&self) -> &[u8] {
        &self.stop_row
    }

    /// Whether the stop row is in the range.
    pub fn is_stop_row_inclusive(&self) -> bool {
        self.stop_inclusive
    }

    /// HBase's `RowRange.isValid`: unbounded on a side, or start before stop, or start equal
    /// to an inclusive stop.
    pub fn is_valid(&self) -> bool {
        self.start_row.is_empty()
            || self.stop_row.is_empty()
            || self.start_row < self.stop_row
            || (self.start_row == self.stop_row && self.stop_inclusive)
    }

    /// Whether `row` lies in the range.
    pub fn contains(&self, row: &[u8]) -> bool {
        let after_start = match row.cmp(self.start_row.as_slice()) {
            Ordering::Greater => true,
            Ordering::Equal => self.start_inclusive,
            // Only an empty row is below an empty start; rows are never empty.
            Ordering::Less => false,
        };
        let before_stop = self.stop_row.is_empty()
            || match row.cmp(self.stop_row.as_slice()) {
                Ordering::Less => true,
                Ordering::Equal => self.stop_inclusive,
                Ordering::Greater => false,
            };
        after_start && before_stop
    }

    /// Compares stop rows, an empty (unbounded) one last.
    fn cmp_stop(a: &[u8], b: &[u8]) -> Ordering {
        match (a.is_empty(), b.is_empty()) {
            (true, true) => Ordering::Equal,
            (true, false) => Ordering::Greater,
            (false, true) => Ordering::Less,
            (false, false) => a.cmp(b),
        }
    }
}

/// Sorts `ranges` by start row and merges the ones that overlap or touch (HBase's
/// `MultiRowRangeFilter.sortAndMerge`). Fails, as HBase does, on an empty list and on invalid
/// ranges (start after stop).
pub fn sort_and_merge(mut ranges: Vec<RowRange>) -> Result<Vec<RowRange>, FilterError> {
    if ranges.is_empty() {
        return Err(FilterError::invalid(
            "MultiRowRangeFilter",
            "No ranges found.",
        ));
    }
    let invalid: Vec<String> = ranges
        .iter()
        .filter(|r| !r.is_valid())
        .map(|r| {
            format!(
                "Invalid range: start row => {}, stop row => {}",
                String::from_utf8_lossy(&r.start_row),
                String::from_utf8_lossy(&r.stop_row)
            )
        })
        .collect();
    if !invalid.is_empty() {
        return Err(FilterError::invalid(
            "MultiRowRangeFilter",
            format!("{} invaild ranges.\n{}", invalid.len(), invalid.join("\n")),
        ));
    }
    // Equal starts: the inclusive one first, so it opens the merged range.
    ranges.sort_by(|a, b| {
        a.start_row
            .cmp(&b.start_row)
            .then(b.start_inclusive.cmp(&a.start_inclusive))
    });
    let mut merged: Vec<RowRange> = Vec::with_capacity(ranges.len());
    for range in ranges {
        if let Some(last) = merged.last_mut() {
            let joins = last.stop_row.is_empty()
                || match last.stop_row.cmp(&range.start_row) {
                    Ordering::Greater => true,
                    Ordering::Equal => last.stop_inclusive || range.start_inclusive,
                    Ordering::Less => false,
                };
            if joins {
                match RowRange::cmp_stop(&range.stop_row, &last.stop_row) {
                    Ordering::Greater => {
                        last.stop_row = range.stop_row;
                        last.stop_inclusive = range.stop_inclusive;
                    }
                    Ordering::Equal => last.stop_inclusive |= range.stop_inclusive,
                    Ordering::Less => {}
                }
                continue;
            }
        }
        merged.push(range);
    }
    Ok(merged)
}

/// Where a row lies relative to the ranges (HBase's `RangeIteration.getNextRangeIndex`).
enum Position {
    /// Before the first range in scan direction.
    BeforeFirst,
    /// In range `index`, or between ranges with `index` the next one; `exact_exclusive` when
    /// the row is the range's (scan-direction) opening row and that end is exclusive.
    At {
        index: usize,
        exact_exclusive: bool,
        between: bool,
    },
    /// Past the last range.
    Past,
}

/// HBase's `MultiRowRangeFilter` (see the module docs).
#[derive(Debug, Clone)]
pub struct MultiRowRangeFilter {
    /// Sorted and merged, ascending.
    ranges: Vec<RowRange>,
    reversed: bool,
    done: bool,
    /// The range of the last row looked up (in scan order: index into `ranges` reversed when
    /// the scan is).
    current: Option<usize>,
    /// A row in the current range has been seen (HBase's `foundFirstRange`).
    found_first_range: bool,
    return_code: ReturnCode,
}

impl MultiRowRangeFilter {
    /// Keeps rows in any of `ranges` (sorted and merged, see [`sort_and_merge`]).
    pub fn new(ranges: Vec<RowRange>) -> Result<Self, FilterError> {
        Ok(Self::from_merged(sort_and_merge(ranges)?))
    }

    /// Keeps rows starting with any of `prefixes` (HBase's `MultiRowRangeFilter(byte[][])`).
    pub fn with_row_prefixes(
        prefixes: impl IntoIterator<Item = Vec<u8>>,
    ) -> Result<Self, FilterError> {
        let ranges = prefixes
            .into_iter()
            .map(|p| {
                let stop = crate::region_scanner::closest_row_after_prefix(&p);
                RowRange::new(p, true, stop, false)
            })
            .collect();
        Self::new(ranges)
    }

    fn from_merged(ranges: Vec<RowRange>) -> Self {
        Self {
            ranges,
            reversed: false,
            done: false,
            current: None,
            found_first_range: false,
            return_code: ReturnCode::Include,
        }
    }

    /// The sorted, merged ranges.
    pub fn row_ranges(&self) -> &[RowRange] {
        &self.ranges
    }

    /// The `i`th range in scan order.
    fn in_scan_order(&self, i: usize) -> Option<&RowRange> {
        if self.reversed {
            self.ranges
                .len()
                .checked_sub(i + 1)
                .and_then(|j| self.ranges.get(j))
        } else {
            self.ranges.get(i)
        }
    }

    /// The opening row of a range in scan direction: its start (forward) or stop (reversed),
    /// with whether it is inclusive.
    fn opening<'r>(&self, range: &'r RowRange) -> (&'r [u8], bool) {
        if self.reversed {
            (&range.stop_row, range.stop_inclusive)
        } else {
            (&range.start_row, range.start_inclusive)
        }
    }

    /// Finds `row` among the ranges in scan order.
    fn locate(&mut self, row: &[u8]) -> Position {
        let n = self.ranges.len();
        // The number of ranges (in scan order) whose opening row comes before `row`.
        let mut opened = 0;
        for i in 0..n {
            let Some(range) = self.in_scan_order(i) else {
                break;
            };
            let (open, inclusive) = self.opening(range);
            let order = if self.reversed {
                // An empty stop row is above every row.
                if open.is_empty() {
                    Ordering::Less
                } else {
                    row.cmp(open)
                }
            } else if open.is_empty() {
                Ordering::Less
            } else {
                open.cmp(row)
            };
            match order {
                Ordering::Less => opened += 1,
                Ordering::Equal => {
                    return Position::At {
                        index: i,
                        exact_exclusive: !inclusive,
                        between: false,
                    };
                }
                Ordering::Greater => break,
            }
        }
        if opened > 0
            && self
                .in_scan_order(opened - 1)
                .is_some_and(|r| r.contains(row))
        {
            return Position::At {
                index: opened - 1,
                exact_exclusive: false,
                between: false,
            };
        }
        if opened == 0 {
            return Position::BeforeFirst;
        }
        if opened >= n {
            return Position::Past;
        }
        Position::At {
            index: opened,
            exact_exclusive: false,
            between: true,
        }
    }
}

impl Filter for MultiRowRangeFilter {
    fn filter_all_remaining(&self) -> bool {
        self.done
    }

    fn filter_row_key(&mut self, row: &[u8]) -> bool {
        if self.done {
            return true;
        }
        let in_current = self
            .current
            .and_then(|i| self.in_scan_order(i))
            .is_some_and(|r| r.contains(row));
        if self.found_first_range && in_current {
            self.return_code = ReturnCode::Include;
            return false;
        }
        match self.locate(row) {
            Position::Past => {
                self.done = true;
                self.return_code = ReturnCode::NextRow;
            }
            Position::BeforeFirst => {
                self.current = Some(0);
                self.found_first_range = true;
                self.return_code = ReturnCode::SeekNextUsingHint;
            }
            Position::At {
                index,
                exact_exclusive,
                between,
            } => {
                self.current = Some(index);
                if exact_exclusive {
                    // The row opens the range but is excluded from it.
                    self.return_code = ReturnCode::NextRow;
                } else {
                    self.found_first_range = true;
                    self.return_code = if between {
                        ReturnCode::SeekNextUsingHint
                    } else {
                        ReturnCode::Include
                    };
                }
            }
        }
        // HBase never drops the row here: the cells answer the code chosen above, so the
        // scanner can seek.
        false
    }

    fn filter_cell(&mut self, _cell: CellRef<'_>) -> ReturnCode {
        self.return_code
    }

    fn next_cell_hint(&self, _current: CellRef<'_>) -> Option<OwnedKey> {
        let range = self.current.and_then(|i| self.in_scan_order(i))?;
        let (open, _) = self.opening(range);
        OwnedKey::first_on_row(open).ok()
    }

    fn set_reversed(&mut self, reversed: bool) {
        self.reversed = reversed;
    }

    fn box_clone(&self) -> Box<dyn Filter> {
        let mut fresh = Self::from_merged(self.ranges.clone());
        fresh.reversed = self.reversed;
        Box::new(fresh)
    }
}
