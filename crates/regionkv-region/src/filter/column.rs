//! Column filters: HBase's `FamilyFilter`, `QualifierFilter`, `ColumnPrefixFilter`,
//! `MultipleColumnPrefixFilter`, `ColumnRangeFilter`, `ColumnCountGetFilter` and
//! `ColumnPaginationFilter` — the filters that decide on a cell's family or qualifier.

use super::compare::{Comparator, CompareOperator, compare_filters_out};
use super::{Filter, FilterError, ReturnCode, first_on_column};
use regionkv_cell::{CellRef, OwnedKey};
use std::cmp::Ordering;
use std::collections::BTreeSet;
use std::ops::Bound;

/// HBase's `FamilyFilter`: a cell whose family the comparison filters out makes the scanner
/// leave the row *in that family* (`NextRow`, HBase 2.x; later families are still offered).
#[derive(Debug, Clone)]
pub struct FamilyFilter {
    op: CompareOperator,
    comparator: Comparator,
}

impl FamilyFilter {
    /// Keeps families `f` for which `f <op> comparator` holds.
    pub fn new(op: CompareOperator, comparator: Comparator) -> Self {
        Self { op, comparator }
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

impl Filter for FamilyFilter {
    fn filter_row_key(&mut self, _row: &[u8]) -> bool {
        false
    }

    fn filter_cell(&mut self, cell: CellRef<'_>) -> ReturnCode {
        // HBase tests only non-empty families (a real cell always has one).
        if !cell.family().is_empty()
            && compare_filters_out(self.op, &self.comparator, cell.family())
        {
            ReturnCode::NextRow
        } else {
            ReturnCode::Include
        }
    }

    fn box_clone(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}

/// HBase's `QualifierFilter`: skips cells whose qualifier the comparison filters out. A cell
/// with an *empty* qualifier is always included (HBase tests only non-empty qualifiers).
#[derive(Debug, Clone)]
pub struct QualifierFilter {
    op: CompareOperator,
    comparator: Comparator,
}

impl QualifierFilter {
    /// Keeps qualifiers `q` for which `q <op> comparator` holds.
    pub fn new(op: CompareOperator, comparator: Comparator) -> Self {
        Self { op, comparator }
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

impl Filter for QualifierFilter {
    fn filter_row_key(&mut self, _row: &[u8]) -> bool {
        false
    }

    fn filter_cell(&mut self, cell: CellRef<'_>) -> ReturnCode {
        if !cell.qualifier().is_empty()
            && compare_filters_out(self.op, &self.comparator, cell.qualifier())
        {
            ReturnCode::Skip
        } else {
            ReturnCode::Include
        }
    }

    fn box_clone(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}

/// HBase's `ColumnPrefixFilter`: keeps qualifiers starting with `prefix`, seeking to the prefix
/// from smaller qualifiers and leaving the row (in this family) after it.
#[derive(Debug, Clone)]
pub struct ColumnPrefixFilter {
    prefix: Vec<u8>,
}

impl ColumnPrefixFilter {
    /// Keeps qualifiers starting with `prefix`.
    pub fn new(prefix: impl Into<Vec<u8>>) -> Self {
        Self {
            prefix: prefix.into(),
        }
    }

    /// The prefix.
    pub fn prefix(&self) -> &[u8] {
        &self.prefix
    }
}

impl Filter for ColumnPrefixFilter {
    fn filter_row_key(&mut self, _row: &[u8]) -> bool {
        false
    }

    fn filter_cell(&mut self, cell: CellRef<'_>) -> ReturnCode {
        let qualifier = cell.qualifier();
        let n = qualifier.len().min(self.prefix.len());
        // Compare equal-length heads, as HBase's compareQualifierPart does.
        let cmp = qualifier
            .get(..n)
            .unwrap_or(qualifier)
            .cmp(self.prefix.get(..n).unwrap_or(&self.prefix));
        if qualifier.len() < self.prefix.len() {
            if cmp != Ordering::Greater {
                ReturnCode::SeekNextUsingHint
            } else {
                ReturnCode::NextRow
            }
        } else {
            match cmp {
                Ordering::Less => ReturnCode::SeekNextUsingHint,
                Ordering::Greater => ReturnCode::NextRow,
                Ordering::Equal => ReturnCode::Include,
            }
        }
    }

    fn next_cell_hint(&self, current: CellRef<'_>) -> Option<OwnedKey> {
        first_on_column(current, &self.prefix)
    }

    fn box_clone(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}

/// HBase's `MultipleColumnPrefixFilter`: keeps qualifiers starting with any of the prefixes.
///
/// HBase quirk kept here: only the *largest* prefix not above the qualifier is tried, so with
/// overlapping prefixes (`a` and `ab`) a qualifier such as `ac` is not kept even though `a`
/// prefixes it.
#[derive(Debug, Clone)]
pub struct MultipleColumnPrefixFilter {
    prefixes: BTreeSet<Vec<u8>>,
    hint: Option<Vec<u8>>,
}

impl MultipleColumnPrefixFilter {
    /// Keeps qualifiers starting with one of `prefixes`; fails when two are equal (as HBase's
    /// constructor does).
    pub fn new<I, P>(prefixes: I) -> Result<Self, FilterError>
    where
        I: IntoIterator<Item = P>,
        P: Into<Vec<u8>>,
    {
        let mut set = BTreeSet::new();
        for p in prefixes {
            if !set.insert(p.into()) {
                return Err(FilterError::invalid(
                    "MultipleColumnPrefixFilter",
                    "prefixes must be distinct",
                ));
            }
        }
        Ok(Self {
            prefixes: set,
            hint: None,
        })
    }

    /// The prefixes, ascending.
    pub fn prefixes(&self) -> impl Iterator<Item = &[u8]> {
        self.prefixes.iter().map(Vec::as_slice)
    }
}

impl Filter for MultipleColumnPrefixFilter {
    fn filter_row_key(&mut self, _row: &[u8]) -> bool {
        false
    }

    fn filter_cell(&mut self, cell: CellRef<'_>) -> ReturnCode {
        if self.prefixes.is_empty() {
            return ReturnCode::Include;
        }
        let qualifier = cell.qualifier();
        let mut at_or_below = self
            .prefixes
            .range::<[u8], _>((Bound::Unbounded, Bound::Included(qualifier)));
        let Some(largest) = at_or_below.next_back() else {
            self.hint = self.prefixes.first().cloned();
            return ReturnCode::SeekNextUsingHint;
        };
        if qualifier.starts_with(largest) {
            return ReturnCode::Include;
        }
        let next = self
            .prefixes
            .range::<[u8], _>((Bound::Excluded(largest.as_slice()), Bound::Unbounded))
            .next()
            .cloned();
        match next {
            // Every prefix is at or below the qualifier: nothing later in this row can match.
            None => ReturnCode::NextRow,
            Some(next) => {
                self.hint = Some(next);
                ReturnCode::SeekNextUsingHint
            }
        }
    }

    fn next_cell_hint(&self, current: CellRef<'_>) -> Option<OwnedKey> {
        self.hint
            .as_deref()
            .and_then(|hint| first_on_column(current, hint))
    }

    fn box_clone(&self) -> Box<dyn Filter> {
        Box::new(Self {
            prefixes: self.prefixes.clone(),
            hint: None,
        })
    }
}

/// HBase's `ColumnRangeFilter`: keeps qualifiers between `min` and `max` (each optional, each
/// inclusive or not), seeking to `min` from below and leaving the row (in this family) above
/// `max`.
#[derive(Debug, Clone)]
pub struct ColumnRangeFilter {
    min: Option<Vec<u8>>,
    min_inclusive: bool,
    max: Option<Vec<u8>>,
    max_inclusive: bool,
}

impl ColumnRangeFilter {
    /// Keeps qualifiers in the range; `None` leaves that side open.
    pub fn new(
        min: Option<Vec<u8>>,
        min_inclusive: bool,
        max: Option<Vec<u8>>,
        max_inclusive: bool,
    ) -> Self {
        Self {
            min,
            min_inclusive,
            max,
            max_inclusive,
        }
    }

    /// The lower bound.
    pub fn min(&self) -> Option<&[u8]> {
        self.min.as_deref()
    }

    /// Whether the lower bound is kept.
    pub fn min_inclusive(&self) -> bool {
        self.min_inclusive
    }

    /// The upper bound.
    pub fn max(&self) -> Option<&[u8]> {
        self.max.as_deref()
    }

    /// Whether the upper bound is kept.
    pub fn max_inclusive(&self) -> bool {
        self.max_inclusive
    }
}

impl Filter for ColumnRangeFilter {
    fn filter_row_key(&mut self, _row: &[u8]) -> bool {
        false
    }

    fn filter_cell(&mut self, cell: CellRef<'_>) -> ReturnCode {
        let qualifier = cell.qualifier();
        let cmp_min = match &self.min {
            Some(min) => qualifier.cmp(min.as_slice()),
            None => Ordering::Greater,
        };
        if cmp_min == Ordering::Less {
            return ReturnCode::SeekNextUsingHint;
        }
        if !self.min_inclusive && cmp_min == Ordering::Equal {
            return ReturnCode::NextCol;
        }
        let Some(max) = &self.max else {
            return ReturnCode::Include;
        };
        let cmp_max = qualifier.cmp(max.as_slice());
        if cmp_max == Ordering::Less || (self.max_inclusive && cmp_max == Ordering::Equal) {
            ReturnCode::Include
        } else {
            ReturnCode::NextRow
        }
    }

    fn next_cell_hint(&self, current: CellRef<'_>) -> Option<OwnedKey> {
        first_on_column(current, self.min.as_deref().unwrap_or_default())
    }

    fn box_clone(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}

/// HBase's `ColumnCountGetFilter`: keeps the newest version of the first `limit` columns of the
/// *first* row, then ends the scan (meant for Gets: once the quota is used up,
/// `filter_all_remaining` is true).
#[derive(Debug, Clone)]
pub struct ColumnCountGetFilter {
    limit: u32,
    count: u64,
}

impl ColumnCountGetFilter {
    /// At most `limit` columns.
    pub fn new(limit: u32) -> Self {
        Self { limit, count: 0 }
    }

    /// The limit.
    pub fn limit(&self) -> u32 {
        self.limit
    }
}

impl Filter for ColumnCountGetFilter {
    fn reset(&mut self) {
        self.count = 0;
    }

    fn filter_all_remaining(&self) -> bool {
        self.count > u64::from(self.limit)
    }

    fn filter_row_key(&mut self, _row: &[u8]) -> bool {
        self.filter_all_remaining()
    }

    fn filter_cell(&mut self, _cell: CellRef<'_>) -> ReturnCode {
        self.count = self.count.saturating_add(1);
        if self.filter_all_remaining() {
            ReturnCode::NextCol
        } else {
            ReturnCode::IncludeAndNextCol
        }
    }

    fn box_clone(&self) -> Box<dyn Filter> {
        Box::new(Self::new(self.limit))
    }
}

/// HBase's `ColumnPaginationFilter`: per row, keeps the newest version of `limit` columns,
/// starting at a column index (`offset`) or at a qualifier (`column_offset`). Columns of all
/// families are counted together, in scan order.
#[derive(Debug, Clone)]
pub struct ColumnPaginationFilter {
    limit: u32,
    offset: u32,
    column_offset: Option<Vec<u8>>,
    count: u64,
}

impl ColumnPaginationFilter {
    /// Skips `offset` columns, then keeps `limit`.
    pub fn new(limit: u32, offset: u32) -> Self {
        Self {
            limit,
            offset,
            column_offset: None,
            count: 0,
        }
    }

    /// Keeps `limit` columns starting at the first qualifier `>= column_offset` (seeking there).
    pub fn with_column_offset(limit: u32, column_offset: impl Into<Vec<u8>>) -> Self {
        Self {
            limit,
            offset: 0,
            column_offset: Some(column_offset.into()),
            count: 0,
        }
    }

    /// The limit.
    pub fn limit(&self) -> u32 {
        self.limit
    }

    /// The column index offset (0 when a qualifier offset is used).
    pub fn offset(&self) -> u32 {
        self.offset
    }

    /// The qualifier offset, if any.
    pub fn column_offset(&self) -> Option<&[u8]> {
        self.column_offset.as_deref()
    }
}

impl Filter for ColumnPaginationFilter {
    fn reset(&mut self) {
        self.count = 0;
    }

    fn filter_row_key(&mut self, _row: &[u8]) -> bool {
        false
    }

    fn filter_cell(&mut self, cell: CellRef<'_>) -> ReturnCode {
        let limit = u64::from(self.limit);
        if let Some(column_offset) = &self.column_offset {
            if self.count >= limit {
                return ReturnCode::NextRow;
            }
            // Only the first column is compared: after it, every later column is in the page.
            if self.count == 0 && cell.qualifier() < column_offset.as_slice() {
                return ReturnCode::SeekNextUsingHint;
            }
            self.count += 1;
            return ReturnCode::IncludeAndNextCol;
        }
        let offset = u64::from(self.offset);
        if self.count >= offset + limit {
            return ReturnCode::NextRow;
        }
        let code = if self.count < offset {
            ReturnCode::NextCol
        } else {
            ReturnCode::IncludeAndNextCol
        };
        self.count += 1;
        code
    }

    fn next_cell_hint(&self, current: CellRef<'_>) -> Option<OwnedKey> {
        self.column_offset
            .as_deref()
            .and_then(|offset| first_on_column(current, offset))
    }

    fn box_clone(&self) -> Box<dyn Filter> {
        Box::new(Self {
            count: 0,
            ..self.clone()
        })
    }
}
