//! `StoreScanner`: one store's cells, row by row, through a [`QueryMatcher`] (HBase's
//! `StoreScanner`). Used by reads (user or raw matcher), flushes and compactions
//! (compaction matchers). The matcher's seek codes become heap reseeks, so skipping a
//! column or a row does not walk every cell of it.

use crate::error::Result;
use crate::scan::column_tracker::MatchCode;
use crate::scan::heap::KeyValueHeap;
use crate::scan::query_matcher::QueryMatcher;
use regionkv_cell::key::{TRAILER_LEN, equal_bytes, key_row};
use regionkv_cell::{Cell, CellRef, KeyView, OwnedKey};

/// Cells a column or row skip steps over one at a time before it falls back to a reseek.
/// Like HBase's `trySkipToNextColumn`/`trySkipToNextRow`: most skips pass zero or one cell
/// (one version per column, the next cell already in the next column), and a step is one
/// cursor move and one sift, while a reseek builds a key, pops and re-pushes every source
/// behind it and searches their blocks. Columns with many hidden versions still reseek
/// after this many steps. Either way the matcher sees the same cells.
const SKIP_STEPS: usize = 8;

/// Scans one store.
#[derive(Debug)]
pub struct StoreScanner {
    heap: KeyValueHeap,
    matcher: QueryMatcher,
    /// The key being skipped past (reused, so skips do not allocate).
    skip_key: Vec<u8>,
    /// A get's scanner: it reads one row and is dropped, so a row's end leaves it where
    /// it is instead of skipping the rest of the row (HBase ends a get's scan without a
    /// seek once no more rows can match). That also keeps files whose seek was put off
    /// from seeking just to be skipped.
    single_row: bool,
}

impl StoreScanner {
    /// Wraps a positioned heap and a matcher.
    pub fn new(heap: KeyValueHeap, matcher: QueryMatcher) -> Self {
        Self {
            heap,
            matcher,
            skip_key: Vec::new(),
            single_row: false,
        }
    }

    /// A scanner that reads one row (a get's): once the matcher is done with the row, the
    /// scanner is not moved past its remaining cells, and reads after that row are not
    /// meaningful.
    #[must_use]
    pub fn single_row(mut self) -> Self {
        self.single_row = true;
        self
    }

    /// Ends the current row: a get's scanner stays put, others move past the row.
    fn end_row(&mut self, row: &[u8]) -> Result<()> {
        if self.single_row {
            return Ok(());
        }
        self.skip_row(row)
    }

    /// The row of the next cell, if any.
    pub fn peek_row(&self) -> Option<&[u8]> {
        self.heap.peek_key().and_then(key_row)
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

    /// Moves past every cell of `row`: steps while the next cell is still in it, then
    /// reseeks (see [`SKIP_STEPS`]).
    pub fn skip_row(&mut self, row: &[u8]) -> Result<()> {
        for _ in 0..SKIP_STEPS {
            match self.heap.peek_key() {
                Some(key) if same_row(key, row) => self.heap.advance()?,
                _ => return Ok(()),
            }
        }
        if !self.heap.peek_key().is_some_and(|k| same_row(k, row)) {
            return Ok(());
        }
        let k = OwnedKey::last_on_row(row)?;
        self.heap.reseek(&k.view())
    }

    /// Feeds the cells of `row` (the current row) to the matcher and calls `emit` with each
    /// cell it keeps; leaves the scanner at the first cell after the row. (A read with a
    /// filter goes through [`StoreScanner::row_cells`], which also transforms cells.)
    pub fn next_row(&mut self, row: &[u8], mut emit: impl FnMut(CellRef<'_>)) -> Result<()> {
        self.matcher.set_row(row);
        loop {
            // The row boundary is tested on the raw key; only cells of the row are parsed.
            if !self.heap.peek_key().is_some_and(|k| same_row(k, row)) {
                return Ok(());
            }
            let Some(cell) = self.heap.peek() else {
                return Ok(());
            };
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
                    return self.end_row(row);
                }
                MatchCode::Skip => self.heap.advance()?,
                MatchCode::SeekNextCol => self.seek_next_column()?,
                MatchCode::SeekNextRow => return self.end_row(row),
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

    /// Moves past every remaining version of the current cell's column: steps while the
    /// next cell is in the same column, then reseeks (see [`SKIP_STEPS`]).
    fn seek_next_column(&mut self) -> Result<()> {
        let Some(key) = self.heap.peek_key() else {
            return Ok(());
        };
        self.skip_key.clear();
        self.skip_key.extend_from_slice(key);
        for _ in 0..SKIP_STEPS {
            self.heap.advance()?;
            match self.heap.peek_key() {
                Some(next) if same_column(next, &self.skip_key) => {}
                _ => return Ok(()),
            }
        }
        // Still in the column after SKIP_STEPS versions: jump past the rest of them.
        let current = KeyView::parse(&self.skip_key)?;
        let k = OwnedKey::last_on_column(current.row(), current.family(), current.qualifier())?;
        self.heap.reseek(&k.view())
    }
}

/// True when two valid keys name the same column (row, family and qualifier): everything
/// before the fixed-length trailer is equal. (The lengths are encoded before the row and
/// the family, so equal prefixes mean equal coordinates.)
fn same_column(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len()
        && equal_bytes(
            &a[..a.len().saturating_sub(TRAILER_LEN)],
            &b[..b.len().saturating_sub(TRAILER_LEN)],
        )
}

/// True when the key `key` is in `row`.
fn same_row(key: &[u8], row: &[u8]) -> bool {
    key_row(key).is_some_and(|r| equal_bytes(r, row))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::{same_column, same_row};
    use regionkv_cell::CellType;
    use regionkv_cell::key::encode_key;

    fn key(row: &[u8], q: &[u8], ts: i64, seq: u64) -> Vec<u8> {
        encode_key(row, b"f", q, ts, CellType::Put, seq).unwrap()
    }

    #[test]
    fn column_and_row_identity_ignore_only_the_trailer() {
        assert!(same_column(&key(b"r", b"q", 5, 1), &key(b"r", b"q", 9, 7)));
        // Same bytes, split differently between row and qualifier.
        assert!(!same_column(
            &key(b"ra", b"b", 5, 1),
            &key(b"r", b"ab", 5, 1)
        ));
        assert!(!same_column(
            &key(b"r", b"q", 5, 1),
            &key(b"r", b"qq", 5, 1)
        ));
        assert!(!same_column(&key(b"r", b"q", 5, 1), &key(b"s", b"q", 5, 1)));
        assert!(same_row(&key(b"row", b"q", 1, 1), b"row"));
        assert!(!same_row(&key(b"row", b"q", 1, 1), b"ro"));
        assert!(!same_row(&key(b"ro", b"wq", 1, 1), b"row"));
        assert!(!same_row(&key(b"", b"q", 1, 1), b"r"));
        assert!(same_row(&key(b"", b"q", 1, 1), b""));
    }
}
