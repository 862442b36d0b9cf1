//! Helpers shared by the storefile integration tests.

#![allow(clippy::unwrap_used, dead_code)]

use regionkv_cell::{Cell, KeyValueScanner};
use regionkv_storefile::{StoreFileReader, StoreFileScanner};
use std::sync::Arc;

/// Every cell of the file, by a scan from its first cell.
pub fn scan_all(reader: &Arc<StoreFileReader>) -> Vec<Cell> {
    let mut s = StoreFileScanner::new(reader.clone());
    let mut out = Vec::new();
    s.seek_to_first().unwrap();
    while let Some(c) = s.peek() {
        out.push(c.to_cell());
        s.advance().unwrap();
    }
    out
}
