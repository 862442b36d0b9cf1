//! Live figures of a running Export, Import or CopyTable, for a progress bar: the tool
//! updates them as it goes, the caller polls them from another thread (the CLI draws an
//! indicatif bar on a terminal from them). Relaxed atomics: the figures are for people,
//! nothing is ordered by them.

use std::sync::atomic::{AtomicU64, Ordering};

/// Figures of a running tool.
#[derive(Debug, Default)]
pub struct Progress {
    rows: AtomicU64,
    cells: AtomicU64,
    bytes: AtomicU64,
    total_bytes: AtomicU64,
}

impl Progress {
    /// Rows read or written so far.
    pub fn rows(&self) -> u64 {
        self.rows.load(Ordering::Relaxed)
    }
    /// Cells read or written so far.
    pub fn cells(&self) -> u64 {
        self.cells.load(Ordering::Relaxed)
    }
    /// Bytes of export files written (Export) or read (Import) so far.
    pub fn bytes(&self) -> u64 {
        self.bytes.load(Ordering::Relaxed)
    }
    /// The bytes the whole run will read, when known before it starts (Import: the data
    /// files' sizes); `None` otherwise.
    pub fn total_bytes(&self) -> Option<u64> {
        Some(self.total_bytes.load(Ordering::Relaxed)).filter(|t| *t > 0)
    }

    pub(crate) fn add(&self, rows: u64, cells: u64, bytes: u64) {
        self.rows.fetch_add(rows, Ordering::Relaxed);
        self.cells.fetch_add(cells, Ordering::Relaxed);
        self.bytes.fetch_add(bytes, Ordering::Relaxed);
    }

    pub(crate) fn set_total_bytes(&self, total: u64) {
        self.total_bytes.store(total, Ordering::Relaxed);
    }
}
