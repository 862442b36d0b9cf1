//! Row filters: HBase's `PrefixFilter`, `RowFilter`, `InclusiveStopFilter` and `PageFilter` —
//! the filters that decide on whole rows, mostly in `filter_row_key`.

use super::compare::{Comparator, CompareOperator, compare_filters_out};
use super::{Filter, ReturnCode};
use regionkv_cell::CellRef;
use std::cmp::Ordering;

/// HBase's `PrefixFilter`: keeps rows starting with `prefix` and ends the scan once the rows
/// have passed it (in scan direction).
///
/// HBase 2.x quirk kept here: a row *shorter* than the prefix is dropped without updating any
/// state, so it never ends the scan even when it sorts after the prefix.
#[derive(Debug, Clone)]
pub struct PrefixFilter {
    prefix: Vec<u8>,
    passed_prefix: bool,
    filter_row: bool,
    reversed: bool,
}

impl PrefixFilter {
    /// Keeps rows starting with `prefix`.
    pub fn new(prefix: impl Into<Vec<u8>>) -> Self {
        Self {
            prefix: prefix.into(),
            passed_prefix: false,
            filter_row: true,
            reversed: false,
        }
    }

    /// The prefix.
    pub fn prefix(&self) -> &[u8] {
        &self.prefix
    }
}

impl Filter for PrefixFilter {
    fn reset(&mut self) {
        self.filter_row = true;
    }

    fn filter_all_remaining(&self) -> bool {
        self.passed_prefix
    }

    fn filter_row_key(&mut self, row: &[u8]) -> bool {
        if self.filter_all_remaining() {
            return true;
        }
        let Some(head) = row.get(..self.prefix.len()) else {
            // Shorter than the prefix: dropped, state untouched (HBase 2.x).
            return true;
        };
        let cmp = head.cmp(&self.prefix);
        if (!self.reversed && cmp == Ordering::Greater) || (self.reversed && cmp == Ordering::Less)
        {
            self.passed_prefix = true;
        }
        self.filter_row = cmp != Ordering::Equal;
        self.filter_row
    }

    fn filter_cell(&mut self, _cell: CellRef<'_>) -> ReturnCode {
        if self.filter_row {
            ReturnCode::NextRow
        } else {
            ReturnCode::Include
        }
    }

    fn filter_row(&mut self) -> bool {
        self.filter_row
    }

    fn set_reversed(&mut self, reversed: bool) {
        self.reversed = reversed;
    }

    fn box_clone(&self) -> Box<dyn Filter> {
        let mut fresh = Self::new(self.prefix.clone());
        fresh.reversed = self.reversed;
        Box::new(fresh)
    }
}

/// HBase's `RowFilter`: compares the row key; a row the comparison filters out is dropped in
/// `filter_row_key`.
#[derive(Debug, Clone)]
pub struct RowFilter {
    op: CompareOperator,
    comparator: Comparator,
    filter_out_row: bool,
}

impl RowFilter {
    /// Keeps rows `r` for which `r <op> comparator` holds (HBase's convention, see
    /// [`super::compare`]).
    pub fn new(op: CompareOperator, comparator: Comparator) -> Self {
        Self {
            op,
            comparator,
            filter_out_row: false,
        }
    }

    /// The operator.
    pub fn operator(&self) -> CompareOperator {
        self.op
    }

    /// The comparator.
    pub fn comparator(&self) -> &Comparator {
        &self.comparator
    }
}

impl Filter for RowFilter {
    fn reset(&mut self) {
        self.filter_out_row = false;
    }

    fn filter_row_key(&mut self, row: &[u8]) -> bool {
        if compare_filters_out(self.op, &self.comparator, row) {
            self.filter_out_row = true;
        }
        self.filter_out_row
    }

    fn filter_cell(&mut self, _cell: CellRef<'_>) -> ReturnCode {
        if self.filter_out_row {
            ReturnCode::NextRow
        } else {
            ReturnCode::Include
        }
    }

    fn filter_row(&mut self) -> bool {
        self.filter_out_row
    }

    fn box_clone(&self) -> Box<dyn Filter> {
        Box::new(Self::new(self.op, self.comparator.clone()))
    }
}

/// HBase's `InclusiveStopFilter`: keeps rows up to and including `stop_row`, then ends the scan
/// (for a reversed scan: down to and including it).
#[derive(Debug, Clone)]
pub struct InclusiveStopFilter {
    stop_row: Vec<u8>,
    done: bool,
    reversed: bool,
}

impl InclusiveStopFilter {
    /// Stops after `stop_row`.
    pub fn new(stop_row: impl Into<Vec<u8>>) -> Self {
        Self {
            stop_row: stop_row.into(),
            done: false,
            reversed: false,
        }
    }

    /// The last row kept.
    pub fn stop_row(&self) -> &[u8] {
        &self.stop_row
    }
}

impl Filter for InclusiveStopFilter {
    fn filter_all_remaining(&self) -> bool {
        self.done
    }

    fn filter_row_key(&mut self, row: &[u8]) -> bool {
        if self.done {
            return true;
        }
        let cmp = row.cmp(self.stop_row.as_slice());
        self.done = if self.reversed {
            cmp == Ordering::Less
        } else {
            cmp == Ordering::Greater
        };
        self.done
    }

    fn filter_cell(&mut self, _cell: CellRef<'_>) -> ReturnCode {
        if self.done {
            ReturnCode::NextRow
        } else {
            ReturnCode::Include
        }
    }

    fn set_reversed(&mut self, reversed: bool) {
        self.reversed = reversed;
    }

    fn box_clone(&self) -> Box<dyn Filter> {
        let mut fresh = Self::new(self.stop_row.clone());
        fresh.reversed = self.reversed;
        Box::new(fresh)
    }
}

/// HBase's `PageFilter`: ends the scan once `page_size` rows were accepted *in this region*
/// (each region counts separately, so a multi-region scan may return more rows; the client
/// stops at the page size).
///
/// A row counts when [`Filter::filter_row`] is asked for it, which [`super::finish_row`] does
/// only for non-empty rows that no earlier check dropped; inside an AND [`super::FilterList`] a
/// member before it that drops the row keeps it from counting.
#[derive(Debug, Clone)]
pub struct PageFilter {
    page_size: u64,
    rows_accepted: u64,
}

impl PageFilter {
    /// At most `page_size` rows.
    pub fn new(page_size: u64) -> Self {
        Self {
            page_size,
            rows_accepted: 0,
        }
    }

    /// The page size.
    pub fn page_size(&self) -> u64 {
        self.page_size
    }
}

impl Filter for PageFilter {
    fn filter_all_remaining(&self) -> bool {
        self.rows_accepted >= self.page_size
    }

    fn filter_row_key(&mut self, _row: &[u8]) -> bool {
        self.filter_all_remaining()
    }

    fn filter_cell(&mut self, _cell: CellRef<'_>) -> ReturnCode {
        ReturnCode::Include
    }

    fn has_filter_row(&self) -> bool {
        true
    }

    fn filter_row(&mut self) -> bool {
        self.rows_accepted = self.rows_accepted.saturating_add(1);
        self.rows_accepted > self.page_size
    }

    fn box_clone(&self) -> Box<dyn Filter> {
        Box::new(Self::new(self.page_size))
    }
}
