//! Wrapper filters: HBase's `SkipFilter` (the language's `SKIP`) and `WhileMatchFilter` (the
//! language's `WHILE`).
//!
//! Both forward only what HBase forwards: neither passes on `filter_row_cells`,
//! `next_cell_hint` or `set_reversed`, and `SkipFilter` does not pass on `filter_row_key`,
//! `filter_all_remaining` or `filter_row` either. So `SKIP SingleColumnValueExcludeFilter(...)`
//! keeps the tested column, and a hint from the wrapped filter degrades to a plain skip.

use super::{Filter, ReturnCode};
use regionkv_cell::{Cell, CellRef};

/// HBase's `SkipFilter`: drops a whole row as soon as the wrapped filter rejects any cell of it
/// (answers anything but `Include`, even `IncludeAndNextCol`).
#[derive(Debug)]
pub struct SkipFilter {
    inner: Box<dyn Filter>,
    filter_row: bool,
}

impl SkipFilter {
    /// Wraps `inner`.
    pub fn new(inner: Box<dyn Filter>) -> Self {
        Self {
            inner,
            filter_row: false,
        }
    }

    /// The wrapped filter.
    pub fn inner(&self) -> &dyn Filter {
        self.inner.as_ref()
    }
}

impl Filter for SkipFilter {
    fn reset(&mut self) {
        self.inner.reset();
        self.filter_row = false;
    }

    fn filter_row_key(&mut self, _row: &[u8]) -> bool {
        false
    }

    fn filter_cell(&mut self, cell: CellRef<'_>) -> ReturnCode {
        let rc = self.inner.filter_cell(cell);
        self.filter_row = self.filter_row || rc != ReturnCode::Include;
        rc
    }

    fn transform_cell(&self, cell: Cell) -> Cell {
        self.inner.transform_cell(cell)
    }

    fn has_filter_row(&self) -> bool {
        true
    }

    fn filter_row(&mut self) -> bool {
        self.filter_row
    }

    fn is_family_essential(&self, family: &[u8]) -> bool {
        self.inner.is_family_essential(family)
    }

    fn box_clone(&self) -> Box<dyn Filter> {
        Box::new(Self::new(self.inner.box_clone()))
    }
}

/// HBase's `WhileMatchFilter`: ends the whole scan as soon as the wrapped filter rejects a row
/// key, a cell (anything but `Include`) or a row. When a cell is rejected mid-row, the scanner
/// offers no further cells; the cells kept so far still form a row, returned unless the
/// wrapped filter's `filter_row` drops it.
#[derive(Debug)]
pub struct WhileMatchFilter {
    inner: Box<dyn Filter>,
    filter_all_remaining: bool,
}

impl WhileMatchFilter {
    /// Wraps `inner`.
    pub fn new(inner: Box<dyn Filter>) -> Self {
        Self {
            inner,
            filter_all_remaining: false,
        }
    }

    /// The wrapped filter.
    pub fn inner(&self) -> &dyn Filter {
        self.inner.as_ref()
    }
}

impl Filter for WhileMatchFilter {
    fn reset(&mut self) {
        self.inner.reset();
    }

    fn filter_all_remaining(&self) -> bool {
        self.filter_all_remaining || self.inner.filter_all_remaining()
    }

    fn filter_row_key(&mut self, row: &[u8]) -> bool {
        if self.filter_all_remaining() {
            return true;
        }
        let drop = self.inner.filter_row_key(row);
        self.filter_all_remaining |= drop;
        drop
    }

    fn filter_cell(&mut self, cell: CellRef<'_>) -> ReturnCode {
        let rc = self.inner.filter_cell(cell);
        self.filter_all_remaining |= rc != ReturnCode::Include;
        rc
    }

    fn transform_cell(&self, cell: Cell) -> Cell {
        self.inner.transform_cell(cell)
    }

    fn has_filter_row(&self) -> bool {
        true
    }

    fn filter_row(&mut self) -> bool {
        let drop = self.inner.filter_row();
        self.filter_all_remaining |= drop;
        drop
    }

    fn is_family_essential(&self, family: &[u8]) -> bool {
        self.inner.is_family_essential(family)
    }

    fn box_clone(&self) -> Box<dyn Filter> {
        Box::new(Self::new(self.inner.box_clone()))
    }
}
