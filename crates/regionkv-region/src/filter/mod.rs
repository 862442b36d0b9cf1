//! Server-side filters: the [`Filter`] trait (HBase's `org.apache.hadoop.hbase.filter.Filter` and
//! `FilterBase`), HBase 2.x's stock filters, [`FilterList`] (`FilterList`, `FilterListWithAND`,
//! `FilterListWithOR`), the comparators (`ByteArrayComparable` and its subclasses) and the filter
//! language of the shell's `FILTER => "..."` and Thrift (`ParseFilter`), see [`parse_filter`].
//!
//! # The call protocol
//!
//! One filter instance serves one region scan (each region of a multi-region scan gets its own
//! copy from [`Filter::box_clone`], as HBase ships the serialized filter to every region server).
//! Per row the region scanner:
//!
//! 1. stops the scan when [`Filter::filter_all_remaining`] is true;
//! 2. drops the row when [`Filter::filter_row_key`] is true (and then stops the scan if
//!    `filter_all_remaining` became true);
//! 3. for each cell that passed the time range, column, delete and version checks, in cell order
//!    (families ascending), stops the scan after this row when `filter_all_remaining` is true,
//!    else calls [`Filter::filter_cell`] and obeys the [`ReturnCode`]; an included cell goes
//!    through [`Filter::transform_cell`]. `NextRow` (and `IncludeAndSeekNextRow`) skips the rest
//!    of the row *in the current family only* — the next family of the same row is still
//!    offered (HBASE-18368). After `SeekNextUsingHint` the scanner asks
//!    [`Filter::next_cell_hint`] and seeks the current family there when the hint lies after the
//!    cell (otherwise it just moves to the next cell);
//! 4. finishes the row with [`finish_row`] (HBase's `FilterWrapper.filterRowCellsWithRet` plus
//!    the checks of `RegionScannerImpl.nextInternal`), which calls
//!    [`Filter::filter_row_cells`] and [`Filter::filter_row`] the way HBase does;
//! 5. calls [`Filter::reset`] before the next row (HBase resets after each row; a fresh filter is
//!    in its reset state, so the two orders are the same);
//! 6. stops the scan when `filter_all_remaining` is true.
//!
//! `model::run_scan` (feature `filter-model`, for tests only) is an executable statement of
//! this protocol over in-memory rows; the unit tests, the filter-language test and the
//! engine-vs-model filter test use it.
//!
//! # Comparison convention
//!
//! HBase compares the *filter's* operand to the cell's bytes and the [`CompareOperator`] names
//! the condition a kept cell satisfies: `RowFilter(LESS, binary:'r5')` keeps rows `< r5`. See
//! [`compare`].

mod cell;
mod column;
pub mod compare;
mod dependent;
pub mod fuzzy;
mod list;
pub mod parse;
pub mod range;
mod row;
mod value;
mod wrapper;

/// The filter call protocol as an executable model, for tests (feature `filter-model`): not
/// part of the engine.
#[cfg(any(test, feature = "filter-model"))]
pub mod model;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_hbase;

pub use cell::{FirstKeyOnlyFilter, KeyOnlyFilter, TimestampsFilter};
pub use column::{
    ColumnCountGetFilter, ColumnPaginationFilter, ColumnPrefixFilter, ColumnRangeFilter,
    FamilyFilter, MultipleColumnPrefixFilter, QualifierFilter,
};
pub use compare::{
    BitwiseOp, Comparator, CompareOperator, RegexCharset, RegexStringComparator,
    SubstringComparator,
};
pub use dependent::{DependentColumnFilter, RandomRowFilter};
pub use fuzzy::FuzzyRowFilter;
pub use list::{FilterList, Operator};
pub use parse::parse_filter;
pub use range::{MultiRowRangeFilter, RowRange};
pub use row::{InclusiveStopFilter, PageFilter, PrefixFilter, RowFilter};
pub use value::{
    ColumnValueFilter, SingleColumnValueExcludeFilter, SingleColumnValueFilter, ValueFilter,
};
pub use wrapper::{SkipFilter, WhileMatchFilter};

use regionkv_cell::{Cell, CellRef, OwnedKey};

/// HBase's `Filter.ReturnCode`: what the scanner does with the cell just offered to
/// [`Filter::filter_cell`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ReturnCode {
    /// Include the cell.
    Include,
    /// Include the cell and go to the next column (older versions of this one are skipped).
    IncludeAndNextCol,
    /// Include the cell and leave the row in the current family (see [`ReturnCode::NextRow`]).
    IncludeAndSeekNextRow,
    /// Skip the cell.
    Skip,
    /// Skip the cell and the rest of its column.
    NextCol,
    /// Skip the rest of the row *in the current family*: the scanner still offers the next
    /// family's cells of the same row (HBase's `StoreScanner` seeks per family, HBASE-18368).
    /// `filter_row` is still called for the row.
    NextRow,
    /// Seek to [`Filter::next_cell_hint`].
    SeekNextUsingHint,
}

impl ReturnCode {
    /// True for the three codes that include the cell.
    #[inline]
    pub fn is_include(self) -> bool {
        matches!(
            self,
            Self::Include | Self::IncludeAndNextCol | Self::IncludeAndSeekNextRow
        )
    }
}

/// A server-side filter (HBase's `org.apache.hadoop.hbase.filter.Filter`). One instance serves
/// one region scan; the scanner calls, per row: `reset()`; `filter_row_key(row)` (true = drop the
/// row); then for each cell that passes the time range / column / delete checks, in cell order
/// (families ascending): `filter_cell(cell)` and, for included cells, `transform_cell`; then
/// [`finish_row`] (which calls `filter_row_cells` and `filter_row` as HBase does);
/// `filter_all_remaining()` is checked before each row and before each cell (true = the scan
/// ends). `next_cell_hint` is asked after `SeekNextUsingHint`. See the [module docs](self) for
/// the exact protocol.
///
/// The provided methods are HBase's `FilterBase` defaults.
pub trait Filter: Send + Sync + std::fmt::Debug {
    /// Resets per-row state; called between rows.
    fn reset(&mut self) {}

    /// True when the scan is over: no later row can pass.
    fn filter_all_remaining(&self) -> bool {
        false
    }

    /// Filters a row by its key before any cell is read: true drops the whole row. The
    /// default is `FilterBase`'s: true exactly when [`Filter::filter_all_remaining`] is.
    fn filter_row_key(&mut self, row: &[u8]) -> bool {
        let _ = row;
        self.filter_all_remaining()
    }

    /// Decides what to do with one cell of a row whose key passed [`Filter::filter_row_key`].
    fn filter_cell(&mut self, cell: CellRef<'_>) -> ReturnCode;

    /// Rewrites an included cell (e.g. [`KeyOnlyFilter`] drops the value). Called right after
    /// [`Filter::filter_cell`] returned an include code for this cell.
    fn transform_cell(&self, cell: Cell) -> Cell {
        cell
    }

    /// True when the filter needs the whole row before deciding (it uses
    /// [`Filter::filter_row_cells`] or [`Filter::filter_row`]); the scanner then must not return
    /// partial rows.
    fn has_filter_row(&self) -> bool {
        false
    }

    /// Last chance to edit the row's cells (e.g. [`SingleColumnValueExcludeFilter`] removes the
    /// tested column).
    fn filter_row_cells(&mut self, cells: &mut Vec<Cell>) {
        let _ = cells;
    }

    /// Last chance to drop the row, based on what [`Filter::filter_cell`] saw: true drops it.
    fn filter_row(&mut self) -> bool {
        false
    }

    /// Where to seek after [`ReturnCode::SeekNextUsingHint`] was returned for `current`. `None`
    /// means "no idea": the scanner then just moves to the next cell.
    fn next_cell_hint(&self, current: CellRef<'_>) -> Option<OwnedKey> {
        let _ = current;
        None
    }

    /// Whether `family` must be read to evaluate the filter (HBase's
    /// `Scan.setLoadColumnFamiliesOnDemand`: non-essential families are read only for rows
    /// that pass).
    fn is_family_essential(&self, family: &[u8]) -> bool {
        let _ = family;
        true
    }

    /// Tells the filter the scan is reversed (rows descending). HBase calls it on the scan's
    /// top-level filter only; [`FilterList`] passes it on to its members, the wrappers
    /// ([`SkipFilter`], [`WhileMatchFilter`]) do not (as in HBase).
    fn set_reversed(&mut self, reversed: bool) {
        let _ = reversed;
    }

    /// A fresh copy (each region of a multi-region scan gets its own, as HBase ships the
    /// filter to each region server). The copy has the configuration of `self` and the state
    /// of a newly built filter.
    fn box_clone(&self) -> Box<dyn Filter>;
}

impl Clone for Box<dyn Filter> {
    fn clone(&self) -> Self {
        self.box_clone()
    }
}

/// Ends a row the way HBase's `RegionScannerImpl.nextInternal` and
/// `FilterWrapper.filterRowCellsWithRet` do; returns true when the row must be dropped (and then
/// `cells` is empty).
///
/// `cells` holds the row's included (and transformed) cells. The rules, in HBase's order:
/// - if [`Filter::has_filter_row`], [`Filter::filter_row_cells`] edits the cells (even an empty
///   row), then [`Filter::filter_row`] is asked only when cells remain;
/// - otherwise [`Filter::filter_row`] is asked only for a non-empty row — HBase consults it even
///   for filters that say they have no row filter (e.g. [`RowFilter`]);
/// - a row that was empty before, or is empty after, is dropped.
///
/// This matters for counting filters: [`PageFilter`] counts a row in `filter_row`, so empty
/// rows never use up the page.
pub fn finish_row(filter: &mut dyn Filter, cells: &mut Vec<Cell>) -> bool {
    let was_empty = cells.is_empty();
    let has_filter_row = filter.has_filter_row();
    let mut excluded = false;
    if has_filter_row {
        filter.filter_row_cells(cells);
        if !cells.is_empty() && filter.filter_row() {
            excluded = true;
        }
    }
    let drop =
        was_empty || excluded || (!has_filter_row && filter.filter_row()) || cells.is_empty();
    if drop {
        cells.clear();
    }
    drop
}

/// Errors of filter construction and of the filter language.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FilterError {
    /// The filter string is malformed. `position` is a 0-based character index into it.
    #[error("filter syntax error at position {position}: expected {expected}, found {found}")]
    Syntax {
        /// Where the parser stopped (0-based character index).
        position: usize,
        /// What the parser expected there.
        expected: String,
        /// What it found there.
        found: String,
    },
    /// A filter name the language does not know (HBase: "Filter Name X not supported").
    #[error("unknown filter {name:?} at position {position}{hint}")]
    UnknownFilter {
        /// The name as written.
        name: String,
        /// Where it starts (0-based character index).
        position: usize,
        /// A "did you mean" suffix, or empty.
        hint: String,
    },
    /// A filter HBase's language knows but regionkv does not implement.
    #[error("filter {name} at position {position} is not supported by regionkv")]
    UnsupportedFilter {
        /// The filter name.
        name: String,
        /// Where it starts (0-based character index).
        position: usize,
    },
    /// A filter in a filter string got arguments its `createFilterFromArguments` rejects.
    #[error("{filter} at position {position}: {message}")]
    InvalidArgument {
        /// The filter name.
        filter: String,
        /// Where the offending argument (or the filter) starts (0-based character index).
        position: usize,
        /// What is wrong.
        message: String,
    },
    /// A filter or comparator was built with values HBase's constructor rejects.
    #[error("{filter}: {message}")]
    InvalidFilter {
        /// The filter or comparator class name.
        filter: String,
        /// What is wrong.
        message: String,
    },
    /// A `regexstring:` pattern the regex engine cannot compile.
    #[error("invalid regular expression {pattern:?}: {message}")]
    InvalidRegex {
        /// The pattern.
        pattern: String,
        /// The engine's complaint.
        message: String,
    },
}

impl FilterError {
    /// A constructor-time error of `filter`.
    pub(crate) fn invalid(filter: &str, message: impl Into<String>) -> Self {
        Self::InvalidFilter {
            filter: filter.to_owned(),
            message: message.into(),
        }
    }
}

/// The first key of `row`/`family`/`qualifier` (HBase's `createFirstOnRowCol`), as a hint.
/// `None` only for coordinates no cell can have (they come from a stored cell, so never).
pub(crate) fn first_on_column(cell: CellRef<'_>, qualifier: &[u8]) -> Option<OwnedKey> {
    OwnedKey::first_on_column(cell.row(), cell.family(), qualifier).ok()
}
