//! `KeyValueHeap`: merges several sorted scanners into one sorted stream (HBase's
//! `KeyValueHeap`). The heap holds the scanners that still have a current cell, ordered by
//! that cell's key; `peek` is the smallest, `advance` moves its scanner and re-sifts.
//!
//! Invariants:
//! 1. Every scanner in the heap has `peek_key() != None`; scanners are set aside when they
//!    run out.
//! 2. Storefile scanners may stand at a put-off seek (HBase's lazy seek,
//!    `StoreFileScanner::request_seek`): their `peek_key` is a lower bound of their next
//!    real cell. After every public move the top is a real cell (`settle`), so `peek` is
//!    the smallest cell of all sources: it is no greater than every other entry's key,
//!    and those are no greater than their real cells.
//! 3. Ties between equal keys cannot arise between distinct cells, because keys include
//!    the sequence id. Put-off keys can tie (two files with the same newest timestamp);
//!    which of them the heap settles first does not matter.

use crate::error::{Error, Result};
use regionkv_cell::{CellRef, KeyValueScanner, KeyView, compare_keys};
use regionkv_memstore::SegmentScanner;
use regionkv_storefile::StoreFileScanner;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// A scanner of one source of a store.
///
/// Unboxed although the file variant is the larger: most sources of a read are files, and
/// a box would cost every Get an allocation per file for nothing.
#[derive(Debug)]
#[allow(clippy::large_enum_variant)]
pub enum SourceScanner {
    /// A memstore segment.
    Memstore(SegmentScanner),
    /// A storefile.
    File(StoreFileScanner),
}

impl KeyValueScanner for SourceScanner {
    type Error = Error;

    fn peek(&self) -> Option<CellRef<'_>> {
        match self {
            SourceScanner::Memstore(s) => s.peek(),
            SourceScanner::File(s) => s.peek(),
        }
    }

    fn peek_key(&self) -> Option<&[u8]> {
        match self {
            SourceScanner::Memstore(s) => s.peek_key(),
            SourceScanner::File(s) => s.peek_key(),
        }
    }

    fn advance(&mut self) -> Result<()> {
        match self {
            SourceScanner::Memstore(s) => {
                let Ok(()) = s.advance();
                Ok(())
            }
            SourceScanner::File(s) => Ok(s.advance()?),
        }
    }

    fn seek(&mut self, key: &KeyView<'_>) -> Result<bool> {
        match self {
            SourceScanner::Memstore(s) => {
                let Ok(found) = s.seek(key);
                Ok(found)
            }
            SourceScanner::File(s) => Ok(s.seek(key)?),
        }
    }

    fn reseek(&mut self, key: &KeyView<'_>) -> Result<bool> {
        match self {
            SourceScanner::Memstore(s) => {
                let Ok(found) = s.reseek(key);
                Ok(found)
            }
            SourceScanner::File(s) => Ok(s.reseek(key)?),
        }
    }
}

impl SourceScanner {
    /// True when this source stands at a put-off seek, not at a cell.
    fn seek_pending(&self) -> bool {
        matches!(self, SourceScanner::File(s) if s.seek_pending())
    }

    /// Performs a put-off seek.
    fn enforce_seek(&mut self) -> Result<()> {
        if let SourceScanner::File(s) = self {
            s.enforce_seek()?;
        }
        Ok(())
    }
}

/// A heap entry: ordered so that `BinaryHeap` (a max-heap) pops the smallest key. Boxed:
/// a scanner is a few hundred bytes, and sifting moves entries (measured: moving them
/// unboxed was a fifth of a full scan's time).
#[derive(Debug)]
struct Entry(Box<SourceScanner>);

impl Entry {
    fn key(&self) -> &[u8] {
        // Invariant: scanners in the heap have a current cell.
        self.0.peek_key().unwrap_or_default()
    }
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    fn cmp(&self, other: &Self) -> Ordering {
        compare_keys(other.key(), self.key())
    }
}

/// Merges scanners.
#[derive(Debug, Default)]
pub struct KeyValueHeap {
    heap: BinaryHeap<Entry>,
    exhausted: Vec<SourceScanner>,
}

impl KeyValueHeap {
    /// A heap over `scanners`, each already positioned by a real seek (put-off seeks go
    /// through [`Self::push`] and [`Self::settle`]); empty ones are set aside.
    pub fn new(scanners: Vec<SourceScanner>) -> Self {
        let mut h = Self::with_capacity(scanners.len());
        for s in scanners {
            h.push(s);
        }
        h
    }

    /// An empty heap with room for `n` scanners.
    pub fn with_capacity(n: usize) -> Self {
        Self {
            heap: BinaryHeap::with_capacity(n),
            exhausted: Vec::new(),
        }
    }

    /// Adds a positioned scanner, or one with a put-off seek (set aside when it is empty).
    /// Call [`Self::settle`] after the last push, before reading.
    pub fn push(&mut self, s: SourceScanner) {
        if s.peek_key().is_some() {
            self.heap.push(Entry(Box::new(s)));
        } else {
            self.exhausted.push(s);
        }
    }

    /// Re-positions every scanner (including exhausted ones) at the first cell ≥ `key`.
    pub fn seek(&mut self, key: &KeyView<'_>) -> Result<bool> {
        let mut all: Vec<SourceScanner> = std::mem::take(&mut self.exhausted);
        all.extend(self.heap.drain().map(|e| *e.0));
        for s in &mut all {
            s.seek(key)?;
        }
        *self = Self::new(all);
        Ok(self.peek().is_some())
    }

    /// Makes the top a real cell: while a put-off seek is at the top, performs it and
    /// re-sifts. Sources whose put-off key never reaches the top are never read.
    pub fn settle(&mut self) -> Result<()> {
        while self.heap.peek().is_some_and(|e| e.0.seek_pending()) {
            let Some(mut top) = self.heap.peek_mut() else {
                break;
            };
            top.0.enforce_seek()?;
            if top.0.peek_key().is_none() {
                let done = std::collections::binary_heap::PeekMut::pop(top);
                self.exhausted.push(*done.0);
            }
        }
        Ok(())
    }

    /// Moves every scanner whose current cell is before `key` forward to the first cell
    /// ≥ `key` (the heap's cells are all ≥ its current top, so only those need to move).
    pub fn reseek(&mut self, key: &KeyView<'_>) -> Result<()> {
        let target = key.as_bytes();
        while let Some(top) = self.heap.peek() {
            if compare_keys(top.key(), target) != Ordering::Less {
                break;
            }
            let Some(mut e) = self.heap.pop() else { break };
            e.0.reseek(key)?;
            if e.0.peek_key().is_some() {
                self.heap.push(e);
            } else {
                self.exhausted.push(*e.0);
            }
        }
        self.settle()
    }

    /// The smallest current cell.
    pub fn peek(&self) -> Option<CellRef<'_>> {
        self.heap.peek().and_then(|e| e.0.peek())
    }

    /// The key of the smallest current cell (no parsing).
    pub fn peek_key(&self) -> Option<&[u8]> {
        self.heap.peek().map(Entry::key)
    }

    /// Moves past the smallest current cell.
    pub fn advance(&mut self) -> Result<()> {
        // The top moves in place and sifts down once when the guard drops (RocksDB's
        // `replace_top`), instead of a pop and a push: one sift, and none at all while
        // a single source is left.
        let Some(mut top) = self.heap.peek_mut() else {
            return Ok(());
        };
        top.0.advance()?;
        if top.0.peek_key().is_none() {
            let done = std::collections::binary_heap::PeekMut::pop(top);
            self.exhausted.push(*done.0);
        } else {
            drop(top); // sifts the moved scanner into place
        }
        self.settle()
    }
}
