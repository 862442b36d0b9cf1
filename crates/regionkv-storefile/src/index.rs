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
//!
//! The reader keeps index blocks (the root itself, the others in the block cache) with a
//! search aid appended, [`searchable_index_block`]: see there.

use crate::block::{BlockBuilder, BlockCursor};
use crate::format::{BlockType, row_prefixes, varint};
use regionkv_cell::compare_keys;
use std::cmp::Ordering;

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

/// Bytes of the aid's fixed tail: common length, entry count, body length.
const AID_TAIL: usize = 12;

/// An index block as the reader keeps it in memory: the body as the file holds it, then
/// a search aid. The aid is [`row_prefixes`] over the entries' keys plus the body offset
/// of every entry, so that finding a child compares integers in one dense array and
/// decodes one entry, instead of binary-searching restart points whose keys lie scattered
/// over a block that is rarely in the CPU caches (that search was 17% of a random Get
/// with 4 KiB data blocks, whose index is ~2,400 entries a block). It costs 12 bytes an
/// entry, charged to the block cache with the block.
///
/// ```text
/// body | common | prefix:u64 LE × n | entry offset:u32 LE × n | common_len:u32 LE | n:u32 LE | body_len:u32 LE
/// ```
///
/// `n` is 0 (no aid; searches run on the body alone) when an entry shares a key prefix
/// with the previous one (this writer never does so in index blocks, but the block
/// format allows it), a key is not a cell key, or the body does not parse (the search on
/// the body then reports the corruption with its offset).
pub fn searchable_index_block(mut body: Vec<u8>) -> Vec<u8> {
    let body_len = body.len();
    let offsets = whole_entry_offsets(&body);
    let aid = offsets.as_ref().and_then(|offs| {
        row_prefixes::build(
            offs.iter()
                .map(|&at| entry_key(&body, at).unwrap_or_default()),
        )
    });
    let (offsets, (common, prefixes)) = match (offsets, aid) {
        (Some(o), Some(a)) => (o, a),
        _ => (Vec::new(), (Vec::new(), Vec::new())),
    };
    body.reserve(common.len() + 12 * offsets.len() + AID_TAIL);
    body.extend_from_slice(&common);
    for p in &prefixes {
        body.extend_from_slice(&p.to_le_bytes());
    }
    for &at in &offsets {
        // Bodies are below MAX_BODY_LEN (< 4 GiB): offsets fit in u32.
        body.extend_from_slice(&(at as u32).to_le_bytes());
    }
    for v in [common.len(), offsets.len(), body_len] {
        body.extend_from_slice(&(v as u32).to_le_bytes());
    }
    body
}

/// The offsets of every entry of `body`, or `None` when some entry shares a key prefix
/// (it cannot be decoded on its own) or the body does not parse.
fn whole_entry_offsets(body: &[u8]) -> Option<Vec<usize>> {
    let mut c = BlockCursor::new(body).ok()?;
    c.seek_to_first(body).ok()?;
    let mut out = Vec::new();
    while c.valid() {
        if !c.key_in_body() {
            return None;
        }
        out.push(c.entry_offset());
        c.next(body).ok()?;
    }
    Some(out)
}

/// The key of the entry at `at`, if it is stored whole and lies within `body`.
fn entry_key(body: &[u8], at: usize) -> Option<&[u8]> {
    let mut p = at;
    let shared = varint::get_u32(body, &mut p)?;
    let unshared = varint::get_u32(body, &mut p)? as usize;
    varint::get_u32(body, &mut p)?;
    if shared != 0 {
        return None;
    }
    body.get(p..p.checked_add(unshared)?)
}

fn le_u32(b: &[u8], at: usize) -> Option<usize> {
    let v: [u8; 4] = b.get(at..at.checked_add(4)?)?.try_into().ok()?;
    Some(u32::from_le_bytes(v) as usize)
}

/// A [`searchable_index_block`]'s parts.
#[derive(Debug, Clone, Copy)]
pub struct IndexBlockView<'a> {
    body: &'a [u8],
    common: &'a [u8],
    prefixes: &'a [u8],
    offsets: &'a [u8],
    n: usize,
}

impl<'a> IndexBlockView<'a> {
    /// Splits bytes [`searchable_index_block`] made; `None` if they are not such bytes.
    pub fn parse(bytes: &'a [u8]) -> Option<Self> {
        let tail = bytes.len().checked_sub(AID_TAIL)?;
        let common_len = le_u32(bytes, tail)?;
        let n = le_u32(bytes, tail + 4)?;
        let body_len = le_u32(bytes, tail + 8)?;
        let prefixes_at = body_len.checked_add(common_len)?;
        let offsets_at = prefixes_at.checked_add(n.checked_mul(8)?)?;
        if offsets_at.checked_add(n.checked_mul(4)?)? != tail {
            return None;
        }
        Some(Self {
            body: bytes.get(..body_len)?,
            common: bytes.get(body_len..prefixes_at)?,
            prefixes: bytes.get(prefixes_at..offsets_at)?,
            offsets: bytes.get(offsets_at..tail)?,
            n,
        })
    }

    /// The block body, as the file holds it.
    pub fn body(&self) -> &'a [u8] {
        self.body
    }

    /// Number of entries the aid covers (0: no aid).
    pub fn aided_entries(&self) -> usize {
        self.n
    }

    fn prefix(&self, i: usize) -> Option<u64> {
        let b: [u8; 8] = self.prefixes.get(i * 8..i * 8 + 8)?.try_into().ok()?;
        Some(u64::from_le_bytes(b))
    }

    fn offset(&self, i: usize) -> Option<usize> {
        le_u32(self.offsets, i * 4)
    }

    /// Body offset of the last entry whose key is ≤ `key`, or of the first entry when
    /// every key is larger: the child that holds `key` ([`BlockCursor::seek_le_or_first`]'s
    /// answer). `None` when the aid cannot answer (none was built, or `key`'s row does not
    /// start with the rows' shared prefix): search the body instead.
    pub fn find(&self, key: &[u8]) -> Option<usize> {
        if self.n == 0 {
            return None;
        }
        let p = row_prefixes::search_prefix(self.common, key)?;
        let i = row_prefixes::find_last_le(
            self.n,
            p,
            |i| self.prefix(i),
            |i| {
                self.offset(i)
                    .and_then(|at| entry_key(self.body, at))
                    .map_or(Ordering::Greater, |k| compare_keys(k, key))
            },
        );
        self.offset(i)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use regionkv_cell::{CellType, key::encode_key};

    fn key(row: &[u8], ts: i64) -> Vec<u8> {
        encode_key(row, b"f", b"q", ts, CellType::Put, 0).unwrap()
    }

    fn body_of(keys: &[Vec<u8>], prefix: bool) -> Vec<u8> {
        let mut b = BlockBuilder::new(prefix);
        for (i, k) in keys.iter().enumerate() {
            let h = BlockHandle {
                offset: i as u64 * 100,
                size: 100,
                first_ordinal: i as u64,
            };
            b.add(k, &h.encode());
        }
        b.finish()
    }

    /// The child a plain restart-point search picks for `target`.
    fn plain(body: &[u8], target: &[u8]) -> usize {
        let mut c = BlockCursor::new(body).unwrap();
        c.seek_le_or_first(body, target).unwrap();
        c.entry_offset()
    }

    /// The child the reader picks: the aid when it answers, the plain search otherwise.
    fn aided(bytes: &[u8], target: &[u8]) -> (usize, bool) {
        let view = IndexBlockView::parse(bytes).unwrap();
        match view.find(target) {
            Some(at) => {
                let mut c = BlockCursor::new(view.body()).unwrap();
                c.seek_to_entry(view.body(), at).unwrap();
                assert!(c.valid());
                (c.entry_offset(), true)
            }
            None => (plain(view.body(), target), false),
        }
    }

    #[test]
    fn the_aid_finds_the_child_the_restart_search_finds() {
        // Zero-padded rows sharing their first bytes, several versions of some rows (the
        // same row in consecutive entries: equal prefixes that need the full compare).
        let mut keys = Vec::new();
        for i in 0..500u32 {
            let row = format!("user{:08}", i * 3);
            keys.push(key(row.as_bytes(), 9));
            if i % 7 == 0 {
                keys.push(key(row.as_bytes(), 5));
            }
        }
        let body = body_of(&keys, false);
        let bytes = searchable_index_block(body.clone());
        let view = IndexBlockView::parse(&bytes).unwrap();
        assert_eq!(view.body(), &body[..]);
        assert_eq!(view.aided_entries(), keys.len());
        let mut aid_answered = 0;
        for probe in 0..1600u32 {
            for ts in [10, 7, 5, 1] {
                let target = key(format!("user{probe:08}").as_bytes(), ts);
                let (got, by_aid) = aided(&bytes, &target);
                assert_eq!(got, plain(&body, &target), "probe {probe} ts {ts}");
                aid_answered += usize::from(by_aid);
            }
        }
        assert_eq!(
            aid_answered,
            1600 * 4,
            "every probe shares the rows' prefix"
        );
        // Rows outside the shared prefix take the plain search, with the same answer.
        for row in [&b"a"[..], b"user", b"zzz", b""] {
            let target = key(row, 1);
            let (got, by_aid) = aided(&bytes, &target);
            assert!(!by_aid);
            assert_eq!(got, plain(&body, &target));
        }
    }

    #[test]
    fn a_block_with_shared_key_prefixes_or_no_entries_gets_no_aid() {
        let keys: Vec<Vec<u8>> = (0..40u32)
            .map(|i| key(format!("row{i:04}").as_bytes(), 1))
            .collect();
        let bytes = searchable_index_block(body_of(&keys, true));
        let view = IndexBlockView::parse(&bytes).unwrap();
        assert_eq!(view.aided_entries(), 0);
        assert_eq!(view.find(&keys[3]), None);
        let bytes = searchable_index_block(BlockBuilder::new(false).finish());
        assert_eq!(IndexBlockView::parse(&bytes).unwrap().aided_entries(), 0);
        // A body that does not parse keeps no aid; the reader's cursor reports it.
        let bytes = searchable_index_block(vec![1, 2, 3]);
        assert_eq!(IndexBlockView::parse(&bytes).unwrap().body(), &[1, 2, 3]);
        // Bytes that are not a searchable block are refused, never misread.
        assert!(IndexBlockView::parse(&[0; 5]).is_none());
        let mut bad = searchable_index_block(body_of(&keys[..4], false));
        let n = bad.len();
        bad[n - 8] = 200;
        assert!(IndexBlockView::parse(&bad).is_none());
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn the_aid_agrees_with_the_restart_search_on_any_rows(
            rows in proptest::collection::btree_set(
                proptest::collection::vec(prop_oneof![Just(0u8), Just(b'a'), Just(b'b'), Just(255u8)], 0..12),
                1..80),
            shared in proptest::collection::vec(any::<u8>(), 0..10),
            probes in proptest::collection::vec(
                proptest::collection::vec(prop_oneof![Just(0u8), Just(b'a'), Just(b'b'), Just(255u8)], 0..12),
                1..40),
        ) {
            let with = |r: &Vec<u8>| [shared.as_slice(), r].concat();
            let keys: Vec<Vec<u8>> = rows.iter().map(|r| key(&with(r), 1)).collect();
            let body = body_of(&keys, false);
            let bytes = searchable_index_block(body.clone());
            for p in probes.iter().chain(rows.iter()) {
                for ts in [2, 1, 0] {
                    let target = key(&with(p), ts);
                    prop_assert_eq!(aided(&bytes, &target).0, plain(&body, &target));
                }
            }
        }
    }
}
