//! Reading an HFile HBase wrote (HBase's `HFileReaderImpl` and `HFileInfo`): the trailer,
//! the load-on-open section (data index root, meta index root, FileInfo, Bloom metas), the
//! multi-level data index, and the cells of each data block.
//!
//! Every block is checksum-verified and every length checked before use; damage is an
//! [`Error::Corrupt`](crate::Error::Corrupt) naming the file and offset, never a panic.

use std::cmp::Ordering;
use std::path::Path;
use std::sync::Arc;

use regionkv_fs::ReadableFile;

use crate::block::{Block, BlockHeader, BlockType, HEADER_SIZE, read_block};
use crate::bloom::BloomMeta;
use crate::error::{Error, Result, corrupt};
use crate::file_info::{FileInfo, keys};
use crate::index::{IndexEntry, MidKeyMetadata, locate, parse_non_root, parse_root};
use crate::key::{KeyRef, compare_encoded};
use crate::trailer::Trailer;
use crate::varint::read_vlong;

/// One cell of an HFile, owned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HFileCell {
    /// The KeyValue key (see [`crate::key`]).
    pub key: Vec<u8>,
    /// The value.
    pub value: Vec<u8>,
    /// The serialized tags (empty when the file has none).
    pub tags: Vec<u8>,
    /// The MVCC timestamp (0 when the file carries none).
    pub mvcc: i64,
}

/// A cell of a data block, borrowed from the block ([`parse_cell_refs`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HFileCellRef<'a> {
    /// The KeyValue key (see [`crate::key`]).
    pub key: &'a [u8],
    /// The value.
    pub value: &'a [u8],
    /// The serialized tags (empty when the file has none).
    pub tags: &'a [u8],
    /// The MVCC timestamp (0 when the file carries none).
    pub mvcc: i64,
}

impl HFileCell {
    /// The parsed key (cells are parsed on read, so this never fails for a read cell).
    pub fn key_ref(&self) -> Option<KeyRef<'_>> {
        KeyRef::parse(&self.key)
    }
}

/// A block met in the load-on-open section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadOnOpenBlock {
    /// Where it starts.
    pub offset: u64,
    /// Its header.
    pub header: BlockHeader,
}

/// An open HFile.
#[derive(Debug)]
pub struct HFileReader {
    file: Arc<dyn ReadableFile>,
    trailer: Trailer,
    data_root: Vec<IndexEntry>,
    mid_key: Option<MidKeyMetadata>,
    meta_root: Vec<IndexEntry>,
    file_info: FileInfo,
    load_on_open: Vec<LoadOnOpenBlock>,
    includes_tags: bool,
    includes_mvcc: bool,
}

impl HFileReader {
    /// Opens `file`: reads the trailer and the load-on-open section, as HBase's reader does
    /// when it opens a store file.
    pub fn open(file: Arc<dyn ReadableFile>) -> Result<HFileReader> {
        let trailer = Trailer::read(file.as_ref())?;
        let path = file.path().to_path_buf();
        let codec = trailer.compression;
        let end = trailer.offset;
        let mut offset = trailer.load_on_open_offset();
        let mut blocks = Vec::new();
        while offset < end {
            let block = read_block(file.as_ref(), offset, codec, None)?;
            let next = offset + block.header.on_disk_size();
            if next > end {
                return Err(corrupt(
                    &path,
                    offset,
                    "a load-on-open block runs into the trailer",
                ));
            }
            blocks.push(block);
            offset = next;
        }
        let expect = |i: usize, t: BlockType| -> Result<&Block> {
            match blocks.get(i) {
                Some(b) if b.header.block_type == t => Ok(b),
                Some(b) => Err(corrupt(
                    &path,
                    b.offset,
                    format!(
                        "load-on-open block {i} is {}, expected {}",
                        b.header.block_type.name(),
                        t.name()
                    ),
                )),
                None => Err(corrupt(
                    &path,
                    trailer.load_on_open_offset(),
                    format!("the load-on-open section has no {} block", t.name()),
                )),
            }
        };
        let root = expect(0, BlockType::RootIndex)?;
        let (data_root, mid_key) = parse_root(
            &path,
            root.offset,
            &root.payload,
            trailer.data_index_count(),
            trailer.index_levels() > 1,
        )?;
        let meta = expect(1, BlockType::RootIndex)?;
        let (meta_root, _) = parse_root(
            &path,
            meta.offset,
            &meta.payload,
            trailer.meta_index_count(),
            false,
        )?;
        let info = expect(2, BlockType::FileInfo)?;
        let file_info = FileInfo::parse(&path, info.offset, &info.payload)?;
        if let Some(encoding) = file_info.get(keys::DATA_BLOCK_ENCODING)
            && encoding != b"NONE"
        {
            return Err(Error::Unsupported {
                path,
                what: format!(
                    "data block encoding {}",
                    regionkv_cell::bytes::to_string_binary(encoding)
                ),
            });
        }
        let includes_tags = file_info.includes_tags();
        let includes_mvcc = file_info.includes_mvcc();
        let load_on_open = blocks
            .into_iter()
            .map(|b| LoadOnOpenBlock {
                offset: b.offset,
                header: b.header,
            })
            .collect();
        Ok(HFileReader {
            file,
            trailer,
            data_root,
            mid_key,
            meta_root,
            file_info,
            load_on_open,
            includes_tags,
            includes_mvcc,
        })
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        self.file.path()
    }

    /// The file's length.
    pub fn len(&self) -> u64 {
        self.file.len()
    }

    /// Whether the file has no bytes (never true for an opened file).
    pub fn is_empty(&self) -> bool {
        self.file.len() == 0
    }

    /// The trailer.
    pub fn trailer(&self) -> &Trailer {
        &self.trailer
    }

    /// The FileInfo map.
    pub fn file_info(&self) -> &FileInfo {
        &self.file_info
    }

    /// The data index's root entries.
    pub fn data_index_root(&self) -> &[IndexEntry] {
        &self.data_root
    }

    /// The mid-key metadata of a multi-level index.
    pub fn mid_key_metadata(&self) -> Option<MidKeyMetadata> {
        self.mid_key
    }

    /// The meta index's entries (block names).
    pub fn meta_index(&self) -> &[IndexEntry] {
        &self.meta_root
    }

    /// The blocks of the load-on-open section, in file order.
    pub fn load_on_open_blocks(&self) -> &[LoadOnOpenBlock] {
        &self.load_on_open
    }

    /// Whether cells carry a tags length.
    pub fn includes_tags(&self) -> bool {
        self.includes_tags
    }

    /// Whether cells carry an MVCC timestamp.
    pub fn includes_mvcc(&self) -> bool {
        self.includes_mvcc
    }

    /// `hfile.LASTKEY`, the last cell's key.
    pub fn last_key(&self) -> Option<&[u8]> {
        self.file_info.get(keys::LASTKEY)
    }

    /// Reads the block at `offset` (checked against `expected_size` when given).
    pub fn read_block(&self, offset: u64, expected_size: Option<u64>) -> Result<Block> {
        read_block(
            self.file.as_ref(),
            offset,
            self.trailer.compression,
            expected_size,
        )
    }

    /// The header of the block at `offset`, without reading its payload (the checker walks
    /// data blocks' headers first and reads their payloads once, with the cells).
    pub fn read_header(&self, offset: u64) -> Result<crate::block::BlockHeader> {
        let mut h = [0u8; HEADER_SIZE];
        if offset
            .checked_add(HEADER_SIZE as u64)
            .is_none_or(|end| end > self.file.len())
        {
            return Err(corrupt(
                self.path(),
                offset,
                "a block header past the end of the file",
            ));
        }
        self.file.read_at(offset, &mut h)?;
        crate::block::BlockHeader::parse(self.path(), offset, &h)
    }

    /// The payload of the META block named `name`.
    pub fn meta_block(&self, name: &[u8]) -> Result<Option<Vec<u8>>> {
        let Some(e) = self.meta_root.iter().find(|e| e.key == name) else {
            return Ok(None);
        };
        let b = self.read_block(e.offset, Some(u64::from(e.on_disk_size)))?;
        if b.header.block_type != BlockType::Meta {
            return Err(corrupt(
                self.path(),
                e.offset,
                format!(
                    "the meta index points at a {} block",
                    b.header.block_type.name()
                ),
            ));
        }
        Ok(Some(b.payload))
    }

    /// The compound Bloom filter whose meta block has `kind` (`GeneralBloomMeta` or
    /// `DeleteFamilyBloomMeta`) in the load-on-open section, if the file has one.
    pub fn bloom_meta(&self, kind: BlockType) -> Result<Option<BloomMeta>> {
        let Some(b) = self
            .load_on_open
            .iter()
            .find(|b| b.header.block_type == kind)
        else {
            return Ok(None);
        };
        let block = self.read_block(b.offset, Some(b.header.on_disk_size()))?;
        BloomMeta::parse(self.path(), b.offset, &block.payload).map(Some)
    }

    /// The compound Bloom filter of `kind` with every chunk read (checksums verified), for
    /// lookups; `None` when the file has none.
    pub fn load_bloom(&self, kind: BlockType) -> Result<Option<LoadedBloom>> {
        let Some(meta) = self.bloom_meta(kind)? else {
            return Ok(None);
        };
        let mut chunks = Vec::with_capacity(meta.chunks.len());
        for e in &meta.chunks {
            let b = self.read_block(e.offset, Some(u64::from(e.on_disk_size)))?;
            if b.header.block_type != BlockType::BloomChunk {
                return Err(corrupt(
                    self.path(),
                    e.offset,
                    format!(
                        "the Bloom index points at a {} block",
                        b.header.block_type.name()
                    ),
                ));
            }
            chunks.push(b.payload);
        }
        Ok(Some(LoadedBloom { meta, chunks }))
    }

    /// Every entry of the data index's bottom level, in order: one per data block, as the
    /// index records it (walking intermediate and leaf blocks as HBase's reader would).
    pub fn data_index_entries(&self) -> Result<Vec<IndexEntry>> {
        let mut level = self.data_root.clone();
        for depth in 1..self.trailer.index_levels() {
            let want = if depth + 1 == self.trailer.index_levels() {
                BlockType::LeafIndex
            } else {
                BlockType::IntermediateIndex
            };
            let mut next = Vec::new();
            for e in &level {
                next.extend(self.index_child(e, want)?);
            }
            level = next;
        }
        Ok(level)
    }

    /// The entries of the index block `entry` points at, which must be of type `want`.
    fn index_child(&self, entry: &IndexEntry, want: BlockType) -> Result<Vec<IndexEntry>> {
        let b = self.read_block(entry.offset, Some(u64::from(entry.on_disk_size)))?;
        if b.header.block_type != want {
            return Err(corrupt(
                self.path(),
                entry.offset,
                format!(
                    "the index points at a {} block where a {} block belongs",
                    b.header.block_type.name(),
                    want.name()
                ),
            ));
        }
        parse_non_root(self.path(), entry.offset, &b.payload)
    }

    /// The data block whose range holds `key` (the last block whose index key is ≤ `key`),
    /// descending every index level; `None` when `key` sorts before the first block.
    pub fn locate_block(&self, key: &[u8]) -> Result<Option<IndexEntry>> {
        let Some(mut at) = locate(&self.data_root, key, compare_encoded) else {
            return Ok(None);
        };
        let mut entries = self.data_root.clone();
        for depth in 1..self.trailer.index_levels() {
            let want = if depth + 1 == self.trailer.index_levels() {
                BlockType::LeafIndex
            } else {
                BlockType::IntermediateIndex
            };
            entries = self.index_child(&entries[at], want)?;
            // An index block's first key is the first key of its range, so the key is
            // never before it; a damaged index could say otherwise.
            at = locate(&entries, key, compare_encoded).unwrap_or(0);
        }
        Ok(entries.get(at).cloned())
    }

    /// HBase's mid key (the split point it would pick): the middle leaf entry of a
    /// multi-level index, or root entry `count / 2` of a single-level one (HBase's
    /// `BlockIndexReader.midkey`: `blockKeys[rootCount / 2]`, the upper middle of an even
    /// count).
    pub fn mid_key(&self) -> Result<Option<Vec<u8>>> {
        if let Some(m) = self.mid_key {
            let leaf = self.index_child(
                &IndexEntry {
                    offset: m.leaf_offset,
                    on_disk_size: m.leaf_size,
                    key: Vec::new(),
                },
                BlockType::LeafIndex,
            )?;
            return match leaf.get(m.entry as usize) {
                Some(e) => Ok(Some(e.key.clone())),
                None => Err(corrupt(
                    self.path(),
                    m.leaf_offset,
                    format!("mid-key entry {} of a leaf with {}", m.entry, leaf.len()),
                )),
            };
        }
        Ok(self
            .data_root
            .get(self.data_root.len() / 2)
            .map(|e| e.key.clone()))
    }

    /// A scanner positioned before the first cell.
    pub fn scanner(&self) -> HFileScanner<'_> {
        HFileScanner {
            reader: self,
            next_block: self.trailer.first_data_block_offset(),
            block: None,
        }
    }

    /// Every data block in file order, with the inline index and Bloom blocks between them
    /// skipped; each is checksum-verified and decompressed.
    pub fn data_blocks(&self) -> DataBlocks<'_> {
        DataBlocks {
            reader: self,
            next: self.trailer.first_data_block_offset(),
        }
    }

    /// Parses the cells of a data block's payload.
    pub fn block_cells(&self, block: &Block) -> Result<Vec<HFileCell>> {
        self.check_plain(block)?;
        parse_cells(
            self.path(),
            block.offset,
            &block.payload,
            self.includes_tags,
            self.includes_mvcc,
        )
    }

    /// [`HFileReader::block_cells`], borrowing from `block`.
    pub fn block_cell_refs<'b>(&self, block: &'b Block) -> Result<Vec<HFileCellRef<'b>>> {
        self.check_plain(block)?;
        parse_cell_refs(
            self.path(),
            block.offset,
            &block.payload,
            self.includes_tags,
            self.includes_mvcc,
        )
    }

    /// Data blocks are read unencoded only.
    fn check_plain(&self, block: &Block) -> Result<()> {
        if block.header.block_type == BlockType::EncodedData {
            return Err(Error::Unsupported {
                path: self.path().to_path_buf(),
                what: format!("the encoded data block at offset {}", block.offset),
            });
        }
        Ok(())
    }
}

/// Parses the cells of a DATA payload: `{i32 key length, i32 value length, key, value,
/// [u16 tags length, tags], [vlong mvcc]}*`.
pub fn parse_cells(
    path: &Path,
    offset: u64,
    payload: &[u8],
    tags: bool,
    mvcc: bool,
) -> Result<Vec<HFileCell>> {
    Ok(parse_cell_refs(path, offset, payload, tags, mvcc)?
        .into_iter()
        .map(|c| HFileCell {
            key: c.key.to_vec(),
            value: c.value.to_vec(),
            tags: c.tags.to_vec(),
            mvcc: c.mvcc,
        })
        .collect())
}

/// [`parse_cells`] without copying: each cell borrows `payload` (the checker walks every
/// cell of a file this way, allocating nothing per cell).
pub fn parse_cell_refs<'a>(
    path: &Path,
    offset: u64,
    payload: &'a [u8],
    tags: bool,
    mvcc: bool,
) -> Result<Vec<HFileCellRef<'a>>> {
    let mut cells = Vec::new();
    let mut pos = 0usize;
    let at = |pos: usize| offset + (HEADER_SIZE + pos) as u64;
    let take = |pos: &mut usize, n: usize, what: &str| -> Result<&'a [u8]> {
        let s = pos
            .checked_add(n)
            .and_then(|end| payload.get(*pos..end))
            .ok_or_else(|| {
                corrupt(
                    path,
                    at(*pos),
                    format!("a cell's {what} runs past its block"),
                )
            })?;
        *pos += n;
        Ok(s)
    };
    let be32 = |b: &[u8]| u32::from_be_bytes([b[0], b[1], b[2], b[3]]) as usize;
    while pos < payload.len() {
        let start = pos;
        let key_len = be32(take(&mut pos, 4, "key length")?);
        let value_len = be32(take(&mut pos, 4, "value length")?);
        let key = take(&mut pos, key_len, "key")?;
        if KeyRef::parse(key).is_none() {
            return Err(corrupt(
                path,
                at(start + 8),
                "a cell key whose lengths do not add up",
            ));
        }
        let value = take(&mut pos, value_len, "value")?;
        let tag_bytes = if tags {
            let b = take(&mut pos, 2, "tags length")?;
            let n = usize::from(u16::from_be_bytes([b[0], b[1]]));
            take(&mut pos, n, "tags")?
        } else {
            &[]
        };
        let mvcc_ts = if mvcc {
            let (v, n) = read_vlong(&payload[pos..]).ok_or_else(|| {
                corrupt(path, at(pos), "a cell's MVCC timestamp runs past its block")
            })?;
            pos += n;
            v
        } else {
            0
        };
        cells.push(HFileCellRef {
            key,
            value,
            tags: tag_bytes,
            mvcc: mvcc_ts,
        });
    }
    Ok(cells)
}

/// A compound Bloom filter with its chunks in memory ([`HFileReader::load_bloom`]).
#[derive(Debug, Clone)]
pub struct LoadedBloom {
    /// The meta block.
    pub meta: BloomMeta,
    /// Each chunk's bits, in the meta's chunk order.
    pub chunks: Vec<Vec<u8>>,
}

impl LoadedBloom {
    /// Whether the filter may hold `hash_key`, looking in the chunk whose range holds
    /// `chunk_key` (for a ROW Bloom both are the row; for a ROWCOL Bloom see
    /// [`crate::bloom`]). False means certainly absent.
    pub fn may_contain(&self, chunk_key: &[u8], hash_key: &[u8]) -> bool {
        let Some(i) = self.meta.chunk_index_for(chunk_key) else {
            return false;
        };
        self.chunks
            .get(i)
            .is_some_and(|bits| self.meta.chunk_may_contain(bits, hash_key))
    }
}

/// The data blocks of a file, in order (see [`HFileReader::data_blocks`]).
#[derive(Debug)]
pub struct DataBlocks<'a> {
    reader: &'a HFileReader,
    next: Option<u64>,
}

impl Iterator for DataBlocks<'_> {
    type Item = Result<Block>;

    fn next(&mut self) -> Option<Result<Block>> {
        let last = self.reader.trailer.last_data_block_offset()?;
        loop {
            let offset = self.next?;
            if offset > last {
                self.next = None;
                return None;
            }
            let block = match self.reader.read_block(offset, None) {
                Ok(b) => b,
                Err(e) => {
                    self.next = None;
                    return Some(Err(e));
                }
            };
            self.next = Some(offset + block.header.on_disk_size());
            match block.header.block_type {
                t if t.is_data() => return Some(Ok(block)),
                BlockType::LeafIndex | BlockType::BloomChunk => continue,
                other => {
                    self.next = None;
                    return Some(Err(corrupt(
                        self.reader.path(),
                        offset,
                        format!("a {} block among the data blocks", other.name()),
                    )));
                }
            }
        }
    }
}

/// A cursor over the cells of a file.
#[derive(Debug)]
pub struct HFileScanner<'a> {
    reader: &'a HFileReader,
    next_block: Option<u64>,
    block: Option<std::vec::IntoIter<HFileCell>>,
}

impl HFileScanner<'_> {
    /// The next cell, reading the next data block when this one is done.
    pub fn next_cell(&mut self) -> Result<Option<HFileCell>> {
        loop {
            if let Some(c) = self.block.as_mut().and_then(Iterator::next) {
                return Ok(Some(c));
            }
            let mut blocks = DataBlocks {
                reader: self.reader,
                next: self.next_block,
            };
            match blocks.next() {
                None => {
                    self.next_block = None;
                    self.block = None;
                    return Ok(None);
                }
                Some(Err(e)) => {
                    self.next_block = None;
                    return Err(e);
                }
                Some(Ok(b)) => {
                    self.next_block = blocks.next;
                    self.block = Some(self.reader.block_cells(&b)?.into_iter());
                }
            }
        }
    }

    /// Positions the scanner so that [`Self::next_cell`] returns the first cell whose key
    /// is ≥ `key` (HBase's `seekTo` followed by a `next` when the key itself is absent).
    pub fn seek(&mut self, key: &[u8]) -> Result<()> {
        let start = match self.reader.locate_block(key)? {
            Some(e) => Some(e.offset),
            None => self.reader.trailer.first_data_block_offset(),
        };
        self.next_block = start;
        self.block = None;
        // Load the located block and drop its cells before the key; if the key lies past
        // the block's last cell (between it and the next block's shortened index key), the
        // next block's first cell is the answer.
        let Some(first) = self.next_cell()? else {
            return Ok(());
        };
        let mut pending = vec![first];
        if let Some(rest) = self.block.take() {
            pending.extend(rest);
        }
        let keep: Vec<HFileCell> = pending
            .into_iter()
            .skip_while(|c| compare_encoded(&c.key, key) == Ordering::Less)
            .collect();
        if keep.is_empty() {
            self.block = None;
            // The key is after every cell of this block: the next block starts at or after it.
            return Ok(());
        }
        self.block = Some(keep.into_iter());
        Ok(())
    }
}
