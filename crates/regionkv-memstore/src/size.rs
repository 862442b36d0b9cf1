//! `MemStoreSize`: what a memstore, a segment or one `add` weighs (HBase's `MemStoreSize`
//! and `MemStoreSizing`, without the off-heap part).
//!
//! Every `add` reports its delta, and a segment's size is exactly the sum of the deltas its
//! adds returned. An add of a cell of `n = key + value + tags` bytes reports:
//!
//! * `data_size`: `n`, always — also when the key was already there: the replaced record
//!   stays in the arena until the flush, so the memory is really held. (HBase counts the same
//!   with MSLAB on, in `Segment.updateMetaInfo`; with MSLAB off it counts nothing, because
//!   its garbage collector frees the replaced cell, while here it stays until the flush.)
//! * `heap_size`: the size of the chunk, on the add that had to open one (a chunk is memory
//!   held from the moment it is taken, so the slack at the end of chunks is counted; a
//!   segment's first chunks are smaller than the full chunk size, `lab.rs`);
//!   [`OWN_BUFFER_LINK_LEN`] + [`record_header_len`] + `n` + [`ALLOCATOR_OVERHEAD`] when the
//!   cell got a buffer of its own (larger than `max_alloc`, or MSLAB off); plus
//!   [`INDEX_ENTRY_OVERHEAD`] when the add created a skiplist node (a new key).
//! * `cell_count`: 1 when the add created a node, 0 when the key was already there.
//!
//! So with MSLAB on, `heap_size = data_size + record headers + index entries + unused chunk
//! bytes`, exactly. This heap size, not the data size, is what a Db-wide memstore budget
//! must count (HBase's `RegionServerAccounting` checks its on-heap water marks against the
//! heap size): the memory a store holds, not only what its flush will write. (HBase's own
//! heap size leaves chunk slack out; regionkv counts it, since it is held all the same.)

use std::iter::Sum;
use std::ops::{Add, AddAssign};

/// Bytes in front of a cell's key, value and tags in memory: its key length (with a
/// has-tags flag bit), value length and, for a cell with tags, tags length as varints —
/// 2 bytes for a tagless cell whose key is under 64 bytes and value under 128 (HBase's
/// `KeyValue` header spends 8, plus 2 for tags). Part of the chunk bytes for a cell in a
/// chunk.
pub const fn record_header_len(key_len: usize, value_len: usize, tags_len: usize) -> u64 {
    crate::record::header_len(key_len, value_len, tags_len) as u64
}

/// Bytes an own buffer carries in front of its record: the link that lets the arena free
/// it when the segment drops.
pub const OWN_BUFFER_LINK_LEN: u64 = crate::lab::OWN_BUFFER_LINK_LEN as u64;

/// Heap charged per own buffer for the allocator's bookkeeping: glibc's `malloc` puts an
/// 8-byte header before each block and rounds blocks to 16 bytes (8 to 15 more).
pub const ALLOCATOR_OVERHEAD: u64 = 16;

/// Heap charged per skiplist node. A crossbeam-skiplist node here is 24 bytes (the 16-byte
/// index key — record pointer and row window — plus the reference count and height) plus
/// one 8-byte pointer per level, and levels are 1 with probability 1/2, 2 with 1/4, and so
/// on; glibc adds an 8-byte header and rounds to 16, which makes 48, 48, 64, 64, 80, 80 …
/// bytes: 53.4 on average. Checked against the process's resident memory in
/// `docs/benchmarks.md` ("MemStore").
pub const INDEX_ENTRY_OVERHEAD: u64 = 53;

/// Data size, heap size and cell count of a memstore, a segment, or one add's delta.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct MemStoreSize {
    /// Bytes of cell keys and values (HBase's `dataSize`): what a flush will write, before
    /// block encoding and compression.
    pub data_size: u64,
    /// Bytes of memory held (HBase's `heapSize`): cell bytes, record headers, index entries,
    /// own buffers and arena slack.
    pub heap_size: u64,
    /// Cells in the index (HBase's `cellsCount`).
    pub cell_count: u64,
}

impl MemStoreSize {
    /// Nothing.
    pub const ZERO: Self = Self {
        data_size: 0,
        heap_size: 0,
        cell_count: 0,
    };

    /// True when all three are zero.
    pub fn is_zero(&self) -> bool {
        *self == Self::ZERO
    }
}

impl Add for MemStoreSize {
    type Output = Self;

    fn add(self, rhs: Self) -> Self {
        Self {
            data_size: self.data_size + rhs.data_size,
            heap_size: self.heap_size + rhs.heap_size,
            cell_count: self.cell_count + rhs.cell_count,
        }
    }
}

impl AddAssign for MemStoreSize {
    fn add_assign(&mut self, rhs: Self) {
        *self = *self + rhs;
    }
}

impl Sum for MemStoreSize {
    fn sum<I: Iterator<Item = Self>>(iter: I) -> Self {
        iter.fold(Self::ZERO, Add::add)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_add_field_by_field() {
        let a = MemStoreSize {
            data_size: 1,
            heap_size: 10,
            cell_count: 100,
        };
        let mut b = a + a;
        b += a;
        assert_eq!(
            b,
            MemStoreSize {
                data_size: 3,
                heap_size: 30,
                cell_count: 300
            }
        );
        assert_eq!([a, a, a].into_iter().sum::<MemStoreSize>(), b);
        assert!(MemStoreSize::default().is_zero());
        assert!(!a.is_zero());
    }
}
