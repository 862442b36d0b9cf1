//! `StoreScanner`: one store's cells, row by row, through a [`QueryMatcher`] (HBase's
//! `StoreScanner`). Used by reads (user or raw matcher), flushes and compactions
//! (compaction matchers). The matcher's seek codes become heap reseeks, so skipping a
//! column or a row does not walk every cell of it.

use crate::error::Result;
use crate::scan::column_tracker::MatchCode;
use crate::scan::heap::KeyValueHeap;
use crate::scan::query_matcher::QueryMatcher;
use regionkv_cell::{Cell, CellRef, OwnedKey};

/// Scans one store.
#[derive(Debug)]
pub struct StoreScanner {
    heap: KeyValueHeap,
    matcher: QueryMatcher,
}

impl StoreScanner {
    /// Wraps a positioned heap and a matcher.
    pub fn new(heap: KeyValueHeap, matcher: QueryMatcher) -> Self {
        Self { heap, matcher }
    }

    /// The row of the next cell, if any.
    pub fn peek_row(&self) -> Option<&[u8]> {
        self.heap.peek().map(|c| c.row())
    }

    /// Moves to the first cell of a row ≥ `row`.
    pub fn seek_row(&mut self, row: &[u8]) -> Result<()> {
        let k = OwnedKey::first_on_row(row)?;
        self.heap.reseek(&k.view())
    }

    /// Positions at the first cell of a row ≥ `row`, wherever the scanner is (reversed
    /// scans move backwards between rows).
    pub fn seek_row_exact(&mut self, row: &[u8]) -> Result<()> {
        let k = OwnedKey::first_on_row(row)?;
        self.heap.seek(&k.view()).map(|_| ())
    }

    /// Moves past every cell of `row`.
    pub fn skip_row(&mut self, row: &[u8]) -> Result<()> {
        let k = OwnedKey::last_on_row(row)?;
        self.heap.reseek(&k.view())
    }

    /// Feeds the cells of `row` (the current row) to the matcher and calls `emit` with each
    /// cell it keeps; leaves the scanner at the first cell after the row. (A read with a
    /// filter goes through [`StoreScanner::row_cells`], which also transforms cells.)
    pub fn next_row(&mut self, row: &[u8], mut emit: impl FnMut(CellRef<'_>)) -> Result<()> {
        self.matcher.set_row(row);
        loop {
            let Some(cell) = self.heap.peek() else {
                return Ok(());
            };
            if cell.row() != row {
                return Ok(());
            }
            match self.matcher.matches(cell) {
                MatchCode::Include => {
                    emit(cell);
                    self.heap.advance()?;
                }
                MatchCode::IncludeAndSeekNextCol => {
                    emit(cell);
                    self.seek_next_column()?;
                }
                MatchCode::IncludeAndSeekNextRow => {
                    emit(cell);
                    return self.skip_row(row);
                }
                MatchCode::Skip => self.heap.advance()?,
                MatchCode::SeekNextCol => self.seek_next_column()?,
                MatchCode::SeekNextRow => return self.skip_row(row),
                MatchCode::Done => return Ok(()),
                MatchCode::SeekNextUsingHint => {
                    match self.matcher.next_key_hint(cell) {
                        // A hint at or before the current cell would not move the scan.
                        Some(hint)
                            if regionkv_cell::key::compare_keys(
                                hint.as_bytes(),
                                cell.key_bytes(),
                            )
                            .is_gt() =>
                        {
                            self.heap.reseek(&hint.view())?;
                        }
                        _ => self.heap.advance()?,
                    }
                }
            }
        }
    }

    /// Collects the kept cells of `row` (transformed by the read's filter, if any).
    pub fn row_cells(&mut self, row: &[u8], out: &mut Vec<Cell>) -> Result<()> {
        if !self.matcher.has_filter() {
            return self.next_row(row, |c| out.push(c.to_cell()));
        }
        let mut kept = Vec::new();
        self.next_row(row, |c| kept.push(c.to_cell()))?;
        out.extend(kept.into_iter().map(|c| self.matcher.transform(c)));
        Ok(())
    }

    fn seek_next_column(&mut self) -> Result<()> {
        let Some(cell) = self.heap.peek() else {
            return Ok(());
        };
        let k = OwnedKey::last_on_column(cell.row(), cell.family(), cell.qualifier())?;
        self.heap.reseek(&k.view())
    }
}
