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
//! * `hbase_heap_size`: what HBase 2.x charges its memstore's heap size for the same add
//!   ([`hbase_cell_heap_size`], rules below). Not memory regionkv holds: a model of HBase's
//!   accounting, kept because HBase decides a region's flush, its update blocking and the
//!   per-family flush selection on this number.
//! * `cell_count`: 1 when the add created a node, 0 when the key was already there.
//!
//! So with MSLAB on, `heap_size = data_size + record headers + index entries + unused chunk
//! bytes`, exactly. This heap size, not the data size, is what a Db-wide memstore budget
//! must count (HBase's `RegionServerAccounting` checks its on-heap water marks against the
//! heap size): the memory a store holds, not only what its flush will write. (HBase's own
//! heap size leaves chunk slack out; regionkv counts it, since it is held all the same.)
//!
//! # HBase's heap size
//!
//! HBase 2.x (HBASE-18294) compares a region's memstore *heap* size, not its data size,
//! with the flush size (`HRegion#isFlushSize`, used by `requestFlushIfNeeded` after every
//! batch and by recovered-edits replay) and with the blocking size (`HRegion#checkResources`:
//! heap + off-heap > flush size × `hbase.hregion.memstore.block.multiplier`); the default
//! `FlushAllLargeStoresPolicy` compares each store's heap size with the per-family lower
//! bound (`FlushLargeStoresPolicy#shouldFlush`). regionkv holds cells differently, so it
//! cannot use its own `heap_size` there; it reproduces HBase's number instead, for the
//! default on-heap `DefaultMemStore`. Source: apache/hbase's 2.x line (read in the HBase
//! 2.6.2 sources and current apache/hbase; classes under `hbase-server/.../regionserver/`
//! and `hbase-common/.../hbase/`, methods named below). The JVM numbers are those
//! of a 64-bit JVM with compressed oops, as `ClassSize` measures them through `Unsafe`
//! (object header 12 bytes, reference 4, array header 16, 8-byte alignment).
//!
//! * **Per add** (`Segment#updateMetaInfo`, `Segment#heapSizeChange`): an add is charged
//!   when it put a new entry in the segment's skiplist, *or* when its cell was copied into
//!   an MSLAB chunk — a cell whose key (sequence id included) was already there is charged
//!   in full too when MSLAB copied it, since its chunk bytes stay. The charge is
//!   `align8(index entry + cell object heap size)`, the index entry of a `MutableSegment`
//!   being `ClassSize.CONCURRENT_SKIPLISTMAP_ENTRY` = `align8(12 + 3×4) + align8((12 +
//!   3×4) / 2)` = 24 + 16 = [`HBASE_SKIPLIST_ENTRY`] (one node per entry, one index node
//!   per two).
//! * **The cell object.** `AbstractMemStore#doAdd` copies a cell whose KeyValue length is at
//!   most `hbase.hregion.memstore.mslab.max.allocation` into a chunk
//!   (`MemStoreLABImpl#copyCellInto`: only `size > maxAlloc` is refused) and adds the chunk
//!   cell (`MemStoreLABImpl#createChunkCell`: `NoTagByteBufferChunkKeyValue` or
//!   `ByteBufferChunkKeyValue`, neither overriding `heapSize`), whose heap size is
//!   `ByteBufferKeyValue#heapSize` on an on-heap chunk buffer: `align8(FIXED_OVERHEAD +
//!   length)`, `FIXED_OVERHEAD` = 12 + 4 + 2×4 + 8 = [`HBASE_CHUNK_CELL_OVERHEAD`]. A cell
//!   that is not copied (larger than `max.allocation`, or MSLAB off) is deep-copied
//!   (`AbstractMemStore#deepCopyIfNeeded`, `ExtendedCell#deepClone`) into a `KeyValue` over
//!   a byte array of its own at offset 0, whose `KeyValue#heapSize` is
//!   `align8(FIXED_OVERHEAD)` (12 + 4 + 2×4 + 8 = [`HBASE_KEYVALUE_OVERHEAD`]) +
//!   `ClassSize#sizeOfByteArray(length)` (`align8(16 + length)`).
//! * **Length** is the KeyValue serialization's ([`hbase_keyvalue_len`]; `KeyValue`,
//!   `KeyValueUtil#length`): 4 (key length) + 4 (value length) + key (2 + row + 1 + family +
//!   qualifier + 8 timestamp + 1 type) + value, plus 2 + tags when the cell has tags.
//!   regionkv's encoded key is HBase's key plus the 8-byte sequence id (`docs/key-format.md`).
//! * **Segments** charge their own objects (not in [`MemStoreSize`], which sums adds; see
//!   [`crate::MemStore::hbase_heap_size`]): an active `MutableSegment` is born with
//!   `MutableSegment.DEEP_OVERHEAD` = [`HBASE_ACTIVE_SEGMENT_OVERHEAD`], reported to the
//!   region as soon as it exists (`AbstractMemStore#resetActive`, at store open and after
//!   every snapshot); a snapshot becomes a `CSLMImmutableSegment` whose overhead is
//!   `DEEP_OVERHEAD_CSLM` = [`HBASE_SNAPSHOT_SEGMENT_OVERHEAD`] (`DefaultMemStore#snapshot`),
//!   and the flush takes back the snapshot's whole size, overhead included.
//!
//! Left out: HBase's upsert of increments and appends on a family with VERSIONS = 1
//! (`HStore#upsert`), which removes older versions from the memstore and takes their
//! charges back; regionkv's memstore keeps every version until the flush.

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

/// HBase's `ClassSize.CONCURRENT_SKIPLISTMAP_ENTRY`: the index entry charged for each new
/// cell of an active segment, `align8(12 + 3×4) + align8((12 + 3×4) / 2)` = 24 + 16.
pub const HBASE_SKIPLIST_ENTRY: u64 = 40;

/// HBase's `ByteBufferKeyValue.FIXED_OVERHEAD` (object header, buffer reference, offset and
/// length ints, sequence id long: 12 + 4 + 8 + 8), the object of a cell in an MSLAB chunk.
pub const HBASE_CHUNK_CELL_OVERHEAD: u64 = 32;

/// HBase's `KeyValue.FIXED_OVERHEAD` (12 + 4 + 8 + 8, already a multiple of 8), the object
/// of a cell that stays out of the chunks and is deep-copied into a `KeyValue`.
pub const HBASE_KEYVALUE_OVERHEAD: u64 = 32;

/// HBase's `ClassSize.ARRAY`: the header of the byte array such a `KeyValue` owns.
pub const HBASE_ARRAY_HEADER: u64 = 16;

/// HBase's `MutableSegment.DEEP_OVERHEAD`, charged for a store's active segment from the
/// moment it exists: `align8(Segment.DEEP_OVERHEAD 160 + CONCURRENT_SKIPLISTMAP 48 +
/// SYNC_TIMERANGE_TRACKER 24 + REFERENCE 4 + ATOMIC_BOOLEAN 16)`. `Segment.DEEP_OVERHEAD` is
/// `FIXED_OVERHEAD` (`align8(12 + 6×4 + 8 + 1)` = 48) + `ATOMIC_REFERENCE` 16 + `CELL_SET` 24 +
/// 2 × `ATOMIC_LONG` 24 + `REENTRANT_LOCK` 24; `CONCURRENT_SKIPLISTMAP` is `ClassSize`'s
/// estimate of the map object (8 references on Java 8, 9 on Java 11+: 48 bytes both).
pub const HBASE_ACTIVE_SEGMENT_OVERHEAD: u64 = 256;

/// HBase's `CSLMImmutableSegment.DEEP_OVERHEAD_CSLM`, a snapshot's overhead until its flush
/// completes: `ImmutableSegment.DEEP_OVERHEAD` (`Segment.DEEP_OVERHEAD` 160 +
/// `NON_SYNC_TIMERANGE_TRACKER` 32) + `CONCURRENT_SKIPLISTMAP` 48.
pub const HBASE_SNAPSHOT_SEGMENT_OVERHEAD: u64 = 240;

/// `n` rounded up to a multiple of 8 (HBase's `ClassSize.align`).
pub const fn align8(n: u64) -> u64 {
    (n + 7) & !7
}

/// Length of the cell's HBase `KeyValue` serialization (`KeyValueUtil.length`, the
/// `dataSize` HBase counts): 4 + 4 + key (2 + row + 1 + family + qualifier + 8 + 1) +
/// value, plus 2 + tags when there are tags.
pub const fn hbase_keyvalue_len(
    row_len: usize,
    family_len: usize,
    qualifier_len: usize,
    value_len: usize,
    tags_len: usize,
) -> u64 {
    let key = 2 + row_len + 1 + family_len + qualifier_len + 8 + 1;
    let tags = if tags_len > 0 { 2 + tags_len } else { 0 };
    (4 + 4 + key + value_len + tags) as u64
}

/// [`hbase_keyvalue_len`] from regionkv's encoded key length (HBase's key plus the 8-byte
/// sequence id, `docs/key-format.md`).
pub(crate) const fn hbase_keyvalue_len_of_encoded(
    key_len: usize,
    value_len: usize,
    tags_len: usize,
) -> u64 {
    let tags = if tags_len > 0 { 2 + tags_len } else { 0 };
    (4 + 4 + (key_len - 8) + value_len + tags) as u64
}

/// What HBase 2.x adds to a segment's heap size for a charged add of a cell whose KeyValue
/// is `keyvalue_len` bytes (module docs, "HBase's heap size"): with the cell copied into an
/// MSLAB chunk, [`HBASE_SKIPLIST_ENTRY`] + `align8(`[`HBASE_CHUNK_CELL_OVERHEAD`] + length`)`;
/// otherwise [`HBASE_SKIPLIST_ENTRY`] + [`HBASE_KEYVALUE_OVERHEAD`] +
/// `align8(`[`HBASE_ARRAY_HEADER`] + length`)`.
pub const fn hbase_cell_heap_size(keyvalue_len: u64, in_chunk: bool) -> u64 {
    if in_chunk {
        HBASE_SKIPLIST_ENTRY + align8(HBASE_CHUNK_CELL_OVERHEAD + keyvalue_len)
    } else {
        HBASE_SKIPLIST_ENTRY + HBASE_KEYVALUE_OVERHEAD + align8(HBASE_ARRAY_HEADER + keyvalue_len)
    }
}

/// Data size, heap size, HBase's modeled heap size and cell count of a memstore, a segment,
/// or one add's delta.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct MemStoreSize {
    /// Bytes of cell keys and values (HBase's `dataSize`): what a flush will write, before
    /// block encoding and compression.
    pub data_size: u64,
    /// Bytes of memory held (HBase's `heapSize`): cell bytes, record headers, index entries,
    /// own buffers and arena slack.
    pub heap_size: u64,
    /// HBase's modeled heap size of the adds (the sum of [`hbase_cell_heap_size`] over the
    /// charged adds): what HBase 2.x's flush size, blocking size and per-family flush
    /// selection compare. Segment overheads are not in it (a segment's size is the sum of
    /// its adds); [`crate::MemStore::hbase_heap_size`] adds them. Not memory regionkv holds.
    pub hbase_heap_size: u64,
    /// Cells in the index (HBase's `cellsCount`).
    pub cell_count: u64,
}

impl MemStoreSize {
    /// Nothing.
    pub const ZERO: Self = Self {
        data_size: 0,
        heap_size: 0,
        hbase_heap_size: 0,
        cell_count: 0,
    };

    /// True when every field is zero.
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
            hbase_heap_size: self.hbase_heap_size + rhs.hbase_heap_size,
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
            hbase_heap_size: 1000,
            cell_count: 100,
        };
        let mut b = a + a;
        b += a;
        assert_eq!(
            b,
            MemStoreSize {
                data_size: 3,
                heap_size: 30,
                hbase_heap_size: 3000,
                cell_count: 300
            }
        );
        assert_eq!([a, a, a].into_iter().sum::<MemStoreSize>(), b);
        assert!(MemStoreSize::default().is_zero());
        assert!(!a.is_zero());
    }

    #[test]
    fn hbase_keyvalue_length_is_the_keyvalue_serialization() {
        // row "row1", family "cf", qualifier "q", value "value": 4 + 4 + key (2 + 4 + 1 + 2
        // + 1 + 8 + 1 = 19) + 5.
        assert_eq!(hbase_keyvalue_len(4, 2, 1, 5, 0), 32);
        // Tags add their run and a 2-byte length.
        assert_eq!(hbase_keyvalue_len(4, 2, 1, 5, 6), 32 + 2 + 6);
        // The same from regionkv's encoded key (HBase's key + the 8-byte sequence id).
        let key = 2 + 4 + 1 + 2 + 1 + 8 + 1 + 8;
        assert_eq!(hbase_keyvalue_len_of_encoded(key, 5, 0), 32);
        assert_eq!(hbase_keyvalue_len_of_encoded(key, 5, 6), 40);
    }

    #[test]
    fn hbase_charge_per_cell() {
        // A 32-byte KeyValue in a chunk: skiplist entry 40 + align8(32 + 32) = 104; out of
        // the chunks: 40 + KeyValue 32 + align8(array header 16 + 32) = 120.
        assert_eq!(hbase_cell_heap_size(32, true), 104);
        assert_eq!(hbase_cell_heap_size(32, false), 120);
        // With a 6-byte tag run the KeyValue is 40 bytes: 40 + align8(72) = 112.
        assert_eq!(
            hbase_cell_heap_size(hbase_keyvalue_len(4, 2, 1, 5, 6), true),
            112
        );
        // Rounding: row "row-00001", family "cf", qualifier "q", a 100-byte value is a
        // 132-byte KeyValue: 40 + align8(164) = 40 + 168 = 208.
        assert_eq!(hbase_keyvalue_len(9, 2, 1, 100, 0), 132);
        assert_eq!(hbase_cell_heap_size(132, true), 208);
        assert_eq!(hbase_cell_heap_size(132, false), 40 + 32 + 152);
        assert_eq!((align8(0), align8(1), align8(8), align8(9)), (0, 8, 8, 16));
    }
}
