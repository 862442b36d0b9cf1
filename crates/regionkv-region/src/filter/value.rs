//! Value filters: HBase's `ValueFilter`, `SingleColumnValueFilter`,
//! `SingleColumnValueExcludeFilter` and `ColumnValueFilter` — the filters that look at values.

use super::compare::{Comparator, CompareOperator, compare_filters_out};
use super::{Filter, ReturnCode};
use regionkv_cell::{Cell, CellRef};

/// HBase's `ValueFilter`: skips cells whose value the comparison filters out.
#[derive(Debug, Clone)]
pub struct ValueFilter {
    op: CompareOperator,
    comparator: Comparator,
}

impl ValueFilter {
    /// Keeps values `v` for which `v <op> comparator` holds.
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

impl Filter for ValueFilter {
    fn filter_row_key(&mut self, _row: &[u8]) -> bool {
        false
    }

    fn filter_cell(&mut self, cell: CellRef<'_>) -> ReturnCode {
        if compare_filters_out(self.op, &self.comparator, cell.value()) {
            ReturnCode::Skip
        } else {
            ReturnCode::Include
        }
    }

    fn box_clone(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}

/// HBase's `SingleColumnValueFilter`: keeps whole rows whose `family:qualifier` value passes.
///
/// - The row is decided by the first version of the column offered (with
///   `latest_version_only`, the default) or by any offered version (without it).
/// - A row without the column is kept unless `filter_if_missing`. The column must be part of
///   the scan, or every row looks like it is missing the column.
/// - Until the column is seen, every cell is included; once it matched, every later cell is;
///   once it failed (latest version only), the rest of the row in that family is skipped and
///   `filter_row` drops the row.
/// - `NoOp` filters every tested value out (HBase throws "Unknown Compare op NO_OP" when it
///   meets the column).
#[derive(Debug, Clone)]
pub struct SingleColumnValueFilter {
    family: Vec<u8>,
    qualifier: Vec<u8>,
    op: CompareOperator,
    comparator: Comparator,
    filter_if_missing: bool,
    latest_version_only: bool,
    found_column: bool,
    matched_column: bool,
}

impl SingleColumnValueFilter {
    /// Keeps rows whose `family:qualifier` value `v` satisfies `v <op> comparator`; rows
    /// without the column are kept, only the latest version is tested.
    pub fn new(
        family: impl Into<Vec<u8>>,
        qualifier: impl Into<Vec<u8>>,
        op: CompareOperator,
        comparator: Comparator,
    ) -> Self {
        Self {
            family: family.into(),
            qualifier: qualifier.into(),
            op,
            comparator,
            filter_if_missing: false,
            latest_version_only: true,
            found_column: false,
            matched_column: false,
        }
    }

    /// Sets whether rows without the column are dropped (HBase's `setFilterIfMissing`).
    #[must_use]
    pub fn with_filter_if_missing(mut self, filter_if_missing: bool) -> Self {
        self.filter_if_missing = filter_if_missing;
        self
    }

    /// Sets whether only the latest version is tested (HBase's `setLatestVersionOnly`).
    #[must_use]
    pub fn with_latest_version_only(mut self, latest_version_only: bool) -> Self {
        self.latest_version_only = latest_version_only;
        self
    }

    /// The tested family.
    pub fn family(&self) -> &[u8] {
        &self.family
    }

    /// The tested qualifier.
    pub fn qualifier(&self) -> &[u8] {
        &self.qualifier
    }

    /// The operator.
    pub fn operator(&self) -> CompareOperator {
        self.op
    }

    /// The comparator.
    pub fn comparator(&self) -> &Comparator {
        &self.comparator
    }

    /// Whether rows without the column are dropped.
    pub fn filter_if_missing(&self) -> bool {
        self.filter_if_missing
    }

    /// Whether only the latest version is tested.
    pub fn latest_version_only(&self) -> bool {
        self.latest_version_only
    }

    fn is_tested_column(&self, cell: CellRef<'_>) -> bool {
        cell.family() == self.family.as_slice() && cell.qualifier() == self.qualifier.as_slice()
    }

    fn fresh(&self) -> Self {
        Self {
            found_column: false,
            matched_column: false,
            ..self.clone()
        }
    }
}

impl Filter for SingleColumnValueFilter {
    fn reset(&mut self) {
        self.found_column = false;
        self.matched_column = false;
    }

    fn filter_row_key(&mut self, _row: &[u8]) -> bool {
        false
    }

    fn filter_cell(&mut self, cell: CellRef<'_>) -> ReturnCode {
        if self.matched_column {
            return ReturnCode::Include;
        }
        if self.latest_version_only && self.found_column {
            return ReturnCode::NextRow;
        }
        if !self.is_tested_column(cell) {
            return ReturnCode::Include;
        }
        self.found_column = true;
        if compare_filters_out(self.op, &self.comparator, cell.value()) {
            return if self.latest_version_only {
                ReturnCode::NextRow
            } else {
                ReturnCode::Include
            };
        }
        self.matched_column = true;
        ReturnCode::Include
    }

    fn has_filter_row(&self) -> bool {
        true
    }

    fn filter_row(&mut self) -> bool {
        if self.found_column {
            !self.matched_column
        } else {
            self.filter_if_missing
        }
    }

    fn is_family_essential(&self, family: &[u8]) -> bool {
        // Without filter_if_missing every family matters: a row with data only elsewhere is
        // still returned.
        !self.filter_if_missing || family == self.family.as_slice()
    }

    fn box_clone(&self) -> Box<dyn Filter> {
        Box::new(self.fresh())
    }
}

/// HBase's `SingleColumnValueExcludeFilter`: a [`SingleColumnValueFilter`] that removes the
/// tested column from the rows it keeps (in `filter_row_cells`).
#[derive(Debug, Clone)]
pub struct SingleColumnValueExcludeFilter {
    inner: SingleColumnValueFilter,
}

impl SingleColumnValueExcludeFilter {
    /// Like [`SingleColumnValueFilter::new`], dropping the tested column from the result.
    pub fn new(
        family: impl Into<Vec<u8>>,
        qualifier: impl Into<Vec<u8>>,
        op: CompareOperator,
        comparator: Comparator,
    ) -> Self {
        Self {
            inner: SingleColumnValueFilter::new(family, qualifier, op, comparator),
        }
    }

    /// Sets whether rows without the column are dropped.
    #[must_use]
    pub fn with_filter_if_missing(mut self, filter_if_missing: bool) -> Self {
        self.inner = self.inner.with_filter_if_missing(filter_if_missing);
        self
    }

    /// Sets whether only the latest version is tested.
    #[must_use]
    pub fn with_latest_version_only(mut self, latest_version_only: bool) -> Self {
        self.inner = self.inner.with_latest_version_only(latest_version_only);
        self
    }

    /// The underlying value test.
    pub fn single_column_value_filter(&self) -> &SingleColumnValueFilter {
        &self.inner
    }
}

impl Filter for SingleColumnValueExcludeFilter {
    fn reset(&mut self) {
        self.inner.reset();
    }

    fn filter_row_key(&mut self, row: &[u8]) -> bool {
        self.inner.filter_row_key(row)
    }

    fn filter_cell(&mut self, cell: CellRef<'_>) -> ReturnCode {
        self.inner.filter_cell(cell)
    }

    fn has_filter_row(&self) -> bool {
        true
    }

    fn filter_row_cells(&mut self, cells: &mut Vec<Cell>) {
        let (family, qualifier) = (&self.inner.family, &self.inner.qualifier);
        cells.retain(|c| {
            !(c.family() == family.as_slice() && c.qualifier() == qualifier.as_slice())
        });
    }

    fn filter_row(&mut self) -> bool {
        self.inner.filter_row()
    }

    fn is_family_essential(&self, family: &[u8]) -> bool {
        self.inner.is_family_essential(family)
    }

    fn box_clone(&self) -> Box<dyn Filter> {
        Box::new(Self {
            inner: self.inner.fresh(),
        })
    }
}

/// HBase's `ColumnValueFilter` (2.1+): returns only the cells of `family:qualifier` whose value
/// passes — unlike [`SingleColumnValueFilter`], which returns whole rows.
#[derive(Debug, Clone)]
pub struct ColumnValueFilter {
    family: Vec<u8>,
    qualifier: Vec<u8>,
    op: CompareOperator,
    comparator: Comparator,
    column_found: bool,
}

impl ColumnValueFilter {
    /// Keeps `family:qualifier` cells whose value `v` satisfies `v <op> comparator`.
    pub fn new(
        family: impl Into<Vec<u8>>,
        qualifier: impl Into<Vec<u8>>,
        op: CompareOperator,
        comparator: Comparator,
    ) -> Self {
        Self {
            family: family.into(),
            qualifier: qualifier.into(),
            op,
            comparator,
            column_found: false,
        }
    }

    /// The family.
    pub fn family(&self) -> &[u8] {
        &self.family
    }

    /// The qualifier.
    pub fn qualifier(&self) -> &[u8] {
        &self.qualifier
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

impl Filter for ColumnValueFilter {
    fn reset(&mut self) {
        self.column_found = false;
    }

    fn filter_row_key(&mut self, _row: &[u8]) -> bool {
        false
    }

    fn filter_cell(&mut self, cell: CellRef<'_>) -> ReturnCode {
        if cell.family() != self.family.as_slice() || cell.qualifier() != self.qualifier.as_slice()
        {
            // Past the column (in this family's cell order) nothing else can match.
            return if self.column_found {
                ReturnCode::NextRow
            } else {
                ReturnCode::NextCol
            };
        }
        self.column_found = true;
        if compare_filters_out(self.op, &self.comparator, cell.value()) {
            ReturnCode::Skip
        } else {
            ReturnCode::Include
        }
    }

    fn is_family_essential(&self, family: &[u8]) -> bool {
        family == self.family.as_slice()
    }

    fn box_clone(&self) -> Box<dyn Filter> {
        Box::new(Self {
            column_found: false,
            ..self.clone()
        })
    }
}
