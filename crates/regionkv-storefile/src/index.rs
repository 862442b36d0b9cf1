//! The block index: a B+-tree of blocks in the same entry format as data blocks
//! (`block.rs`). Every entry is `key = first key of the child block`,
//! `value = offset:u64 BE | framed size:u32 BE | first data block ordinal:u64 BE`.
//!
//! Level 1 entries point at data blocks; level k+1 entries at level-k index blocks. The
//! root (the top level, a single block) is loaded when the file opens; lower levels are
//! read on demand through the block cache, so a huge file's index need not sit in memory.
//! The first-ordinal field gives the split midkey exactly: the first key of data block
//! `(n − 1) / 2`, found by descending on ordinals (HBase's single-level midkey rule).
//!
//! The writer keeps the serialized non-root index blocks in memory until the data section
//! is complete and appends them after it (about 60 bytes per data block, 0.1% of the data
//! at 64 KiB blocks), so the data section stays contiguous and scanners walk it in file
//! order without consulting the index.

use crate::block::BlockBuilder;
use crate::format::BlockType;

/// Bytes of an index entry's value.
pub const INDEX_VALUE_LEN: usize = 20;

/// Where a child block is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockHandle {
    /// Offset of the framed block.
    pub offset: u64,
    /// Framed size (header + body + checksum).
    pub size: u32,
    /// Ordinal of the first data block under this entry (for level 1: the block itself).
    pub first_ordinal: u64,
}

impl BlockHandle {
    /// Encodes the index entry value.
    pub fn encode(&self) -> [u8; INDEX_VALUE_LEN] {
        let mut v = [0u8; INDEX_VALUE_LEN];
        v[0..8].copy_from_slice(&self.offset.to_be_bytes());
        v[8..12].copy_from_slice(&self.size.to_be_bytes());
        v[12..20].copy_from_slice(&self.first_ordinal.to_be_bytes());
        v
    }

    /// Decodes an index entry value.
    pub fn decode(v: &[u8]) -> Option<Self> {
        if v.len() != INDEX_VALUE_LEN {
            return None;
        }
        Some(Self {
            offset: crate::format::be_u64(v, 0)?,
            size: crate::format::be_u32(v, 8)?,
            first_ordinal: crate::format::be_u64(v, 12)?,
        })
    }
}

/// One level of the index being built.
#[derive(Debug)]
struct Level {
    block: BlockBuilder,
    first: Option<(Vec<u8>, u64)>,
    blocks_written: u64,
}

impl Level {
    fn new() -> Self {
        Self {
            block: BlockBuilder::new(false),
            first: None,
            blocks_written: 0,
        }
    }
}

/// A finished, serialized non-root index block, to be framed and appended.
#[derive(Debug)]
pub struct PendingIndexBlock {
    /// Level (1 = points at data blocks).
    pub level: u32,
    /// Unframed body.
    pub body: Vec<u8>,
    /// First key and first ordinal of the block, for its parent entry.
    pub first_key: Vec<u8>,
    /// First data block ordinal under this block.
    pub first_ordinal: u64,
}

/// Builds the index bottom-up as data blocks are written.
#[derive(Debug)]
pub struct IndexBuilder {
    max_block_size: usize,
    levels: Vec<Level>,
    /// Non-root blocks cut so far, in the order they were cut (children before parents
    /// within each cascade). Their offsets are assigned when the writer appends them.
    pending: Vec<PendingIndexBlock>,
}

impl IndexBuilder {
    /// A builder cutting index blocks at `max_block_size` bytes.
    pub fn new(max_block_size: usize) -> Self {
        Self {
            max_block_size,
            levels: vec![Level::new()],
            pending: Vec::new(),
        }
    }

    /// Records a data block.
    pub fn add_data_block(&mut self, first_key: &[u8], handle: BlockHandle) {
        self.add_at(0, first_key, handle);
    }

    fn add_at(&mut self, level: usize, first_key: &[u8], handle: BlockHandle) {
        if self.levels.len() <= level {
            self.levels.push(Level::new());
        }
        let l = &mut self.levels[level];
        if l.first.is_none() {
            l.first = Some((first_key.to_vec(), handle.first_ordinal));
        }
        l.block.add(first_key, &handle.encode());
        if l.block.size_estimate() >= self.max_block_size && l.block.len() > 1 {
            self.cut(level);
        }
    }

    /// Cuts the current block of `level` into a pending block. Its parent entry is added
    /// when the writer appends it and learns its offset (see [`Self::place`]).
    fn cut(&mut self, level: usize) {
        let l = &mut self.levels[level];
        let body = l.block.finish();
        let (first_key, first_ordinal) = l.first.take().unwrap_or_default();
        l.blocks_written += 1;
        self.pending.push(PendingIndexBlock {
            level: level as u32 + 1,
            body,
            first_key,
            first_ordinal,
        });
    }

    /// Takes the blocks cut so far.
    pub fn take_pending(&mut self) -> Vec<PendingIndexBlock> {
        std::mem::take(&mut self.pending)
    }

    /// Tells the builder where a pending block landed, adding its parent entry (which may
    /// cut further blocks: call [`Self::take_pending`] again).
    pub fn place(&mut self, block: &PendingIndexBlock, offset: u64, size: u32) {
        let handle = BlockHandle {
            offset,
            size,
            first_ordinal: block.first_ordinal,
        };
        self.add_at(block.level as usize, &block.first_key, handle);
    }

    /// True when `level` is the top and has never cut a block: its open block is the root.
    fn is_root(&self, level: usize) -> bool {
        level + 1 == self.levels.len() && self.levels[level].blocks_written == 0
    }

    /// Finishes level `level`: either it is the root (returns its body and the number of
    /// levels), or its open block is cut and the caller must place the pending blocks and
    /// call again with `level + 1`.
    pub fn finish_level(&mut self, level: usize) -> Option<(Vec<u8>, u32)> {
        if self.is_root(level) {
            let body = self.levels[level].block.finish();
            return Some((body, level as u32 + 1));
        }
        if !self.levels[level].block.is_empty() {
            self.cut(level);
        }
        None
    }

    /// The block type the writer frames a pending block with.
    pub const fn pending_block_type() -> BlockType {
        BlockType::Index
    }
}
