//! The `KeyValueScanner` contract shared by memstore segments, storefile scanners and the
//! merging heap above them (HBase's `KeyValueScanner`), defined here so that the memstore
//! and storefile crates implement it without knowing each other.

use crate::cell::CellRef;
use crate::key::KeyView;

/// A forward cursor over cells in key order.
///
/// Contract:
/// 1. After `seek(k)` returns `Ok(true)`, `peek()` is the first cell with key ≥ `k`;
///    `Ok(false)` means no such cell exists and `peek()` is `None`.
/// 2. `reseek(k)` is `seek(k)` for a `k` not before the current position; implementations
///    may use that to move forward without starting over.
/// 3. `advance()` moves past the cell `peek()` returned.
/// 4. A scanner yields cells in strictly ascending [`crate::compare_keys`] order.
pub trait KeyValueScanner {
    /// The error reading the underlying data may produce.
    type Error: std::error::Error + Send + Sync + 'static;

    /// The current cell, without moving.
    fn peek(&self) -> Option<CellRef<'_>>;

    /// The current cell's encoded key, without moving: what a merge compares. A scanner
    /// that can hand out the stored bytes without parsing them into a cell overrides it.
    fn peek_key(&self) -> Option<&[u8]> {
        self.peek().map(|c| c.key_bytes())
    }

    /// Moves to the next cell.
    fn advance(&mut self) -> Result<(), Self::Error>;

    /// Positions at the first cell with key ≥ `key`.
    fn seek(&mut self, key: &KeyView<'_>) -> Result<bool, Self::Error>;

    /// Like [`Self::seek`], for a key not before the current position.
    fn reseek(&mut self, key: &KeyView<'_>) -> Result<bool, Self::Error> {
        self.seek(key)
    }
}
