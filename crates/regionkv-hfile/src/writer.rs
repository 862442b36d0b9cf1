//! Writing an HFile as HBase 2.x's `HFileWriterImpl` does, so HBase's `completebulkload`
//! accepts it and reads the same cells: the same block boundaries, shortened index keys,
//! leaf/intermediate/root index layout, FileInfo, trailer (with its accounting quirks) and
//! per-type previous-block chains. With NONE compression the output is byte for byte what
//! HBase writes for the same cells and settings (a test reproduces a fixture HBase wrote).
//!
//! The rules, each from HBase's writer:
//! - a data block ends before a cell whose key differs from the previous one once the
//!   block's serialized cells reach `block_size` (equal keys never straddle a boundary);
//! - each data block's index key is the shortest key between the previous block's last key
//!   and its first key ([`midpoint_key`]); the first block's is its real first key;
//! - index entries gather in a leaf chunk, written inline (after the data block that filled
//!   it) once its non-root size reaches `index_block_max_size`; at close, a file that never
//!   wrote a leaf keeps its entries as a single-level root; otherwise the last leaf is
//!   written and the root is cut into intermediate levels while it is too big and has more
//!   than `index_min_entries` entries;
//! - the trailer's `total_uncompressed_bytes` counts every block (uncompressed payload plus
//!   header) except the data index root and intermediate blocks, plus the trailer's size.

use std::collections::HashMap;
use std::io::Write;

use regionkv_fs::WritableFile;

use regionkv_cell::CellType;

use crate::block::{BlockHeader, BlockType, ChecksumType, HEADER_SIZE, hadoop_block_compress_lz4};
use crate::bloom::{BloomType, CompoundBloomWriter, ROWCOL_COMPARATOR, row_col_hash_key};
use crate::error::{Error, Result};
use crate::file_info::{FileInfo, keys};
use crate::index::{IndexEntry, MidKeyMetadata, encode_non_root, encode_root};
use crate::key::{KeyRef, TYPE_MAXIMUM, compare_encoded};
use crate::proto::FileTrailerProto;
use crate::trailer::{Compression, KV_COMPARATOR, MINOR_VERSION, TRAILER_SIZE_V3, Trailer};
use crate::varint::write_vlong;

/// How a file is written. The defaults are HBase's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HFileWriterOptions {
    /// Target data block size (the family's BLOCKSIZE; HBase's default 64 KiB).
    pub block_size: usize,
    /// The block codec.
    pub compression: Compression,
    /// The block checksum (HBase 2's default CRC32C).
    pub checksum: ChecksumType,
    /// Bytes per checksum chunk (`hbase.hstore.bytes.per.checksum`, 16 KiB).
    pub bytes_per_checksum: u32,
    /// Index chunk size that closes a leaf or intermediate block
    /// (`hfile.index.block.max.size`, 128 KiB).
    pub index_block_max_size: usize,
    /// Fewest entries of an intermediate index block (`hfile.index.block.min.entries`, 16).
    pub index_min_entries: usize,
    /// Cells carry an MVCC vlong (HBase's writers always do for store files and bulk loads).
    pub include_mvcc: bool,
    /// Cells carry a tags length (HBase's bulk writer does in v3).
    pub include_tags: bool,
    /// `hfile.CREATE_TIME_TS` (ms).
    pub create_time: i64,
    /// Write what HBase's `StoreFileWriter` adds to a bare HFile (flushes, compactions and
    /// HFileOutputFormat2's bulk-load files): `TIMERANGE`, `EARLIEST_PUT_TS`,
    /// `DELETE_FAMILY_COUNT`, and the Bloom filters below. Off: a bare `HFile.Writer`.
    pub store_file: bool,
    /// The general Bloom filter (the family's BLOOMFILTER; `store_file` only).
    pub bloom: Option<BloomType>,
    /// The delete-family Bloom filter HBase adds unless the general Bloom is ROWCOL
    /// (`io.storefile.delete.family.bloom.enabled`; `store_file` only; written only if the
    /// file has DeleteFamily or DeleteFamilyVersion cells).
    pub delete_family_bloom: bool,
}

impl Default for HFileWriterOptions {
    fn default() -> Self {
        HFileWriterOptions {
            block_size: 64 * 1024,
            compression: Compression::None,
            checksum: ChecksumType::Crc32c,
            bytes_per_checksum: 16 * 1024,
            index_block_max_size: 128 * 1024,
            index_min_entries: 16,
            include_mvcc: true,
            include_tags: false,
            create_time: 0,
            store_file: false,
            bloom: None,
            delete_family_bloom: false,
        }
    }
}

/// A chunk of index entries being gathered (HBase's `BlockIndexChunk`).
#[derive(Debug, Default, Clone)]
struct IndexChunk {
    entries: Vec<IndexEntry>,
    /// For the root of a multi-level index: data blocks covered by entries 0..=i.
    sub_entries_at: Vec<u64>,
    non_root_entries_size: usize,
    root_size: usize,
}

impl IndexChunk {
    fn add(&mut self, key: Vec<u8>, offset: u64, on_disk_size: u32, sub_entries: Option<u64>) {
        self.non_root_entries_size += 12 + key.len();
        self.root_size += 12 + vint_size(key.len() as i64) + key.len();
        if let Some(n) = sub_entries {
            self.sub_entries_at.push(n);
        }
        self.entries.push(IndexEntry {
            offset,
            on_disk_size,
            key,
        });
    }

    fn non_root_size(&self) -> usize {
        4 + 4 * (self.entries.len() + 1) + self.non_root_entries_size
    }

    fn clear(&mut self) {
        *self = IndexChunk::default();
    }

    /// HBase's `getMidKeyMetadata`: the leaf holding data block number (N−1)/2 of the N.
    fn mid_key_metadata(&self) -> Option<MidKeyMetadata> {
        let total = *self.sub_entries_at.last()?;
        if total == 0 {
            return None;
        }
        let mid = (total - 1) / 2;
        // The first entry whose cumulative count passes `mid`.
        let at = match self.sub_entries_at.binary_search(&mid) {
            Ok(i) => i + 1,
            Err(i) => i,
        };
        let before = if at > 0 {
            self.sub_entries_at[at - 1]
        } else {
            0
        };
        let e = self.entries.get(at)?;
        Some(MidKeyMetadata {
            leaf_offset: e.offset,
            leaf_size: e.on_disk_size,
            entry: u32::try_from(mid - before).ok()?,
        })
    }
}

/// Bytes of Hadoop's vint encoding of `v`.
fn vint_size(v: i64) -> usize {
    let mut out = Vec::new();
    write_vlong(&mut out, v);
    out.len()
}

/// What a finished file holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HFileSummary {
    /// Bytes written.
    pub len: u64,
    /// Cells.
    pub entry_count: u64,
    /// Data blocks.
    pub data_blocks: u64,
    /// Data index levels.
    pub index_levels: u32,
    /// The first cell's key, if any.
    pub first_key: Option<Vec<u8>>,
    /// The last cell's key, if any.
    pub last_key: Option<Vec<u8>>,
}

/// Writes one HFile. Cells must come in HBase's key order ([`crate::key::compare`]);
/// equal keys may repeat.
#[derive(Debug)]
pub struct HFileWriter {
    out: Box<dyn WritableFile>,
    opts: HFileWriterOptions,
    pos: u64,
    prev_offset_by_type: HashMap<BlockType, i64>,
    block: Vec<u8>,
    first_key_in_block: Option<Vec<u8>>,
    last_key: Option<Vec<u8>>,
    last_key_of_previous_block: Option<Vec<u8>>,
    first_key: Option<Vec<u8>>,
    cur_inline: Option<IndexChunk>,
    root: IndexChunk,
    pending_leaf_first_key: Option<Vec<u8>>,
    levels: u32,
    index_entries: u64,
    index_uncompressed: u64,
    first_data_block_offset: Option<u64>,
    last_data_block_offset: Option<u64>,
    total_uncompressed_bytes: u64,
    data_blocks: u64,
    entry_count: u64,
    total_key_len: u64,
    total_value_len: u64,
    max_memstore_ts: i64,
    max_tags_len: usize,
    meta: Vec<(Vec<u8>, Vec<u8>)>,
    file_info: FileInfo,
    scratch: Vec<u8>,
    store: StoreFileState,
}

/// What a store-file writer tracks beyond the HFile layer (HBase's `StoreFileWriter`).
#[derive(Debug)]
struct StoreFileState {
    general: Option<(BloomType, CompoundBloomWriter)>,
    delete_family: Option<CompoundBloomWriter>,
    /// The last key the general Bloom took (a row, or a row and qualifier).
    last_bloom: Option<(Vec<u8>, Vec<u8>)>,
    /// The last row the delete-family Bloom took.
    last_delete_family_row: Option<Vec<u8>>,
    delete_family_count: i64,
    /// `TimeRangeTracker`: the smallest and largest timestamps (HBase's initial values
    /// when the file is empty).
    time_min: i64,
    time_max: i64,
    earliest_put: i64,
}

impl StoreFileState {
    fn new(opts: &HFileWriterOptions) -> Self {
        let general = opts.bloom.filter(|_| opts.store_file).map(|t| {
            let comparator = (t == BloomType::RowCol).then_some(ROWCOL_COMPARATOR);
            (t, CompoundBloomWriter::new(comparator))
        });
        let delete_family =
            (opts.store_file && opts.delete_family_bloom && opts.bloom != Some(BloomType::RowCol))
                .then(|| CompoundBloomWriter::new(None));
        StoreFileState {
            general,
            delete_family,
            last_bloom: None,
            last_delete_family_row: None,
            delete_family_count: 0,
            time_min: i64::MAX,
            time_max: i64::MIN,
            earliest_put: i64::MAX,
        }
    }

    /// HBase's `appendGeneralBloomfilter`, `appendDeleteFamilyBloomFilter` and
    /// `trackTimestamps` for one cell.
    fn track(&mut self, k: &KeyRef<'_>) {
        if let Some((t, w)) = self.general.as_mut() {
            let (row, qualifier): (&[u8], &[u8]) = match t {
                BloomType::Row => (k.row, b""),
                BloomType::RowCol => (k.row, k.qualifier),
            };
            let new = self
                .last_bloom
                .as_ref()
                .is_none_or(|(r, q)| r.as_slice() != row || q.as_slice() != qualifier);
            if new {
                match t {
                    BloomType::Row => w.append(row, || row.to_vec()),
                    BloomType::RowCol => {
                        let hash_key = row_col_hash_key(row, qualifier);
                        w.append(&hash_key, || first_on_row_col(k));
                    }
                }
                self.last_bloom = Some((row.to_vec(), qualifier.to_vec()));
            }
        }
        let family_delete = k.type_byte == CellType::DeleteFamily.code()
            || k.type_byte == CellType::DeleteFamilyVersion.code();
        if family_delete {
            self.delete_family_count += 1;
            if let Some(w) = self.delete_family.as_mut()
                && self.last_delete_family_row.as_deref() != Some(k.row)
            {
                w.append(k.row, || k.row.to_vec());
                self.last_delete_family_row = Some(k.row.to_vec());
            }
        }
        if k.type_byte == CellType::Put.code() {
            self.earliest_put = self.earliest_put.min(k.timestamp);
        }
        self.time_min = self.time_min.min(k.timestamp);
        self.time_max = self.time_max.max(k.timestamp);
        // TimeRangeTracker.includeTimestamp(Cell): a column or family delete also covers 0.
        if k.type_byte == CellType::DeleteColumn.code()
            || k.type_byte == CellType::DeleteFamily.code()
        {
            self.time_min = self.time_min.min(0);
        }
    }
}

/// The KeyValue key of the first cell of `k`'s row and column (HBase's
/// `createFirstOnRowCol`): the chunk key and `LAST_BLOOM_KEY` of a ROWCOL Bloom.
fn first_on_row_col(k: &KeyRef<'_>) -> Vec<u8> {
    KeyRef {
        row: k.row,
        family: k.family,
        qualifier: k.qualifier,
        timestamp: i64::MAX,
        type_byte: TYPE_MAXIMUM,
    }
    .to_vec()
    .unwrap_or_default()
}

impl HFileWriter {
    /// A writer appending to `out` (an empty file).
    pub fn new(out: Box<dyn WritableFile>, opts: HFileWriterOptions) -> HFileWriter {
        HFileWriter {
            out,
            pos: 0,
            prev_offset_by_type: HashMap::new(),
            block: Vec::new(),
            first_key_in_block: None,
            last_key: None,
            last_key_of_previous_block: None,
            first_key: None,
            cur_inline: Some(IndexChunk::default()),
            root: IndexChunk::default(),
            pending_leaf_first_key: None,
            levels: 1,
            index_entries: 0,
            index_uncompressed: 0,
            first_data_block_offset: None,
            last_data_block_offset: None,
            total_uncompressed_bytes: 0,
            data_blocks: 0,
            entry_count: 0,
            total_key_len: 0,
            total_value_len: 0,
            max_memstore_ts: 0,
            max_tags_len: 0,
            meta: Vec::new(),
            file_info: FileInfo::default(),
            scratch: Vec::new(),
            store: StoreFileState::new(&opts),
            opts,
        }
    }

    fn invalid(&self, reason: impl Into<String>) -> Error {
        crate::error::corrupt(self.out.path(), self.pos, reason)
    }

    /// Appends one cell: its KeyValue key, value, serialized tags (only with
    /// `include_tags`) and MVCC timestamp (written only with `include_mvcc`).
    pub fn append(&mut self, key: &[u8], value: &[u8], tags: &[u8], mvcc: i64) -> Result<()> {
        if KeyRef::parse(key).is_none() {
            return Err(self.invalid("append: a key whose lengths do not add up"));
        }
        if !tags.is_empty() && !self.opts.include_tags {
            return Err(self.invalid("append: tags on a file written without tags"));
        }
        let duplicate = match &self.last_key {
            Some(last) => match compare_encoded(last, key) {
                std::cmp::Ordering::Greater => {
                    return Err(self.invalid(format!(
                        "append: key {} after {}",
                        crate::key::key_to_string(key),
                        crate::key::key_to_string(last)
                    )));
                }
                std::cmp::Ordering::Equal => true,
                std::cmp::Ordering::Less => false,
            },
            None => false,
        };
        if self.opts.store_file
            && let Some(k) = KeyRef::parse(key)
        {
            // Before the cell enters a block, as HBase's StoreFileWriter adds it to the
            // Blooms before the HFile writer sees it.
            self.store.track(&k);
        }
        if !duplicate && self.block.len() >= self.opts.block_size {
            self.finish_block()?;
            self.write_inline_blocks(false)?;
            self.new_block();
        }
        let key_len = u32::try_from(key.len()).map_err(|_| self.invalid("a key over 4 GiB"))?;
        let value_len =
            u32::try_from(value.len()).map_err(|_| self.invalid("a value over 4 GiB"))?;
        self.block.extend_from_slice(&key_len.to_be_bytes());
        self.block.extend_from_slice(&value_len.to_be_bytes());
        self.block.extend_from_slice(key);
        self.block.extend_from_slice(value);
        if self.opts.include_tags {
            let tags_len =
                u16::try_from(tags.len()).map_err(|_| self.invalid("tags over 64 KiB"))?;
            self.block.extend_from_slice(&tags_len.to_be_bytes());
            self.block.extend_from_slice(tags);
        }
        if self.opts.include_mvcc {
            write_vlong(&mut self.block, mvcc);
        }
        // HBase's `estimatedSerializedSizeOfKey` of a non-KeyValue cell: the key's length.
        self.total_key_len += key.len() as u64;
        self.total_value_len += value.len() as u64;
        if self.first_key_in_block.is_none() {
            self.first_key_in_block = Some(key.to_vec());
        }
        if self.first_key.is_none() {
            self.first_key = Some(key.to_vec());
        }
        // The previous key's buffer is reused: one allocation per file, not per cell.
        match &mut self.last_key {
            Some(last) => {
                last.clear();
                last.extend_from_slice(key);
            }
            None => self.last_key = Some(key.to_vec()),
        }
        self.entry_count += 1;
        self.max_memstore_ts = self.max_memstore_ts.max(mvcc);
        self.max_tags_len = self.max_tags_len.max(tags.len());
        Ok(())
    }

    /// Bytes written so far, the data block in progress included (what a caller rolling
    /// files by size compares, as HBase's writers compare their output position).
    pub fn bytes_written(&self) -> u64 {
        self.pos + self.block.len() as u64
    }

    /// Adds a META block named `name` (written at close; names in byte order, a repeated
    /// name after the earlier ones, as HBase inserts them).
    pub fn add_meta_block(&mut self, name: &[u8], content: Vec<u8>) {
        let at = self.meta.partition_point(|(n, _)| n.as_slice() <= name);
        self.meta.insert(at, (name.to_vec(), content));
    }

    /// Sets a FileInfo entry (store-file and bulk-load keys such as `BULKLOAD_TIMESTAMP`).
    /// The HFile layer's own keys (`hfile.*`, MVCC) are set at close and win.
    pub fn set_file_info(&mut self, key: &[u8], value: impl Into<Vec<u8>>) {
        self.file_info.insert(key, value);
    }

    fn new_block(&mut self) {
        self.block.clear();
        self.first_key_in_block = None;
        if self.last_key.is_some() {
            self.last_key_of_previous_block = self.last_key.clone();
        }
    }

    /// Writes a block of `block_type` with `payload`; returns (offset, on-disk size with
    /// header, uncompressed size without header).
    fn write_block(&mut self, block_type: BlockType, payload: &[u8]) -> Result<(u64, u32, u32)> {
        let path = self.out.path().to_path_buf();
        let too_big = || crate::error::corrupt(&path, 0, "a block over 2 GiB");
        let stored: std::borrow::Cow<'_, [u8]> = match self.opts.compression {
            Compression::None => payload.into(),
            Compression::Gz => {
                // A gzip member with the header Java's GZIPOutputStream writes (no name, no
                // time, OS 0), deflate at zlib's default level.
                let mut enc = flate2::GzBuilder::new()
                    .operating_system(0)
                    .write(Vec::new(), flate2::Compression::default());
                enc.write_all(payload)
                    .and_then(|()| enc.finish())
                    .map(Into::into)
                    .map_err(|e| Error::Fs(regionkv_fs::Error::io("gzip", &path, e)))?
            }
            Compression::Lz4 => hadoop_block_compress_lz4(payload).into(),
            other => {
                return Err(Error::Unsupported {
                    path,
                    what: format!("writing compression {}", other.name()),
                });
            }
        };
        let data_with_header = HEADER_SIZE + stored.len();
        let bpc = self.opts.bytes_per_checksum as usize;
        let chunks = if bpc == 0 {
            0
        } else {
            data_with_header.div_ceil(bpc)
        };
        let offset = self.pos;
        let prev = self
            .prev_offset_by_type
            .insert(block_type, offset as i64)
            .unwrap_or(-1);
        let header = BlockHeader {
            block_type,
            on_disk_size_without_header: u32::try_from(stored.len() + 4 * chunks)
                .map_err(|_| too_big())?,
            uncompressed_size_without_header: u32::try_from(payload.len())
                .map_err(|_| too_big())?,
            prev_block_offset: prev,
            checksum_type: self.opts.checksum,
            bytes_per_checksum: self.opts.bytes_per_checksum,
            on_disk_data_size_with_header: u32::try_from(data_with_header)
                .map_err(|_| too_big())?,
        };
        self.scratch.clear();
        self.scratch.extend_from_slice(&header.encode());
        self.scratch.extend_from_slice(&stored);
        if bpc > 0 {
            let sums: Vec<u32> = self.scratch[..data_with_header]
                .chunks(bpc)
                .map(|c| self.opts.checksum.compute(c).unwrap_or(0))
                .collect();
            for s in sums {
                self.scratch.extend_from_slice(&s.to_be_bytes());
            }
        }
        self.out.append(&self.scratch)?;
        let on_disk = header.on_disk_size() as u32;
        self.pos += u64::from(on_disk);
        Ok((offset, on_disk, header.uncompressed_size_without_header))
    }

    /// Ends the data block in progress (HBase's `finishBlock`).
    fn finish_block(&mut self) -> Result<()> {
        if self.block.is_empty() {
            return Ok(());
        }
        let payload = std::mem::take(&mut self.block);
        let (offset, on_disk, uncompressed) = self.write_block(BlockType::Data, &payload)?;
        self.block = payload;
        self.first_data_block_offset.get_or_insert(offset);
        self.last_data_block_offset = Some(offset);
        self.data_blocks += 1;
        let first = self.first_key_in_block.clone().unwrap_or_default();
        let key = midpoint_key(self.last_key_of_previous_block.as_deref(), &first);
        if let Some(chunk) = self.cur_inline.as_mut() {
            chunk.add(key, offset, on_disk, None);
        }
        self.index_entries += 1;
        self.total_uncompressed_bytes += u64::from(uncompressed) + HEADER_SIZE as u64;
        Ok(())
    }

    /// Writes the inline blocks that are due (HBase's `writeInlineBlocks`): the data index's
    /// leaf blocks, then the general Bloom's chunks, then the delete-family Bloom's, the
    /// order HBase registers its inline block writers in.
    fn write_inline_blocks(&mut self, closing: bool) -> Result<()> {
        self.write_index_inline(closing)?;
        for general in [true, false] {
            loop {
                let w = if general {
                    self.store.general.as_mut().map(|(_, w)| w)
                } else {
                    self.store.delete_family.as_mut()
                };
                let Some((first, bits)) = w.and_then(|w| w.next_ready(closing)) else {
                    break;
                };
                let (offset, on_disk, uncompressed) =
                    self.write_block(BlockType::BloomChunk, &bits)?;
                self.total_uncompressed_bytes += u64::from(uncompressed) + HEADER_SIZE as u64;
                let w = if general {
                    self.store.general.as_mut().map(|(_, w)| w)
                } else {
                    self.store.delete_family.as_mut()
                };
                if let Some(w) = w {
                    w.chunk_written(first, offset, on_disk);
                }
            }
        }
        Ok(())
    }

    /// Writes the leaf index blocks that are due (the data index writer's
    /// `shouldWriteBlock`).
    fn write_index_inline(&mut self, closing: bool) -> Result<()> {
        loop {
            let Some(chunk) = self.cur_inline.as_ref() else {
                return Ok(());
            };
            if chunk.entries.is_empty() {
                return Ok(());
            }
            let due = if closing {
                if self.root.entries.is_empty() {
                    // No leaf was ever written: the entries become a single-level root.
                    self.root = self.cur_inline.take().unwrap_or_default();
                    return Ok(());
                }
                true
            } else {
                chunk.non_root_size() >= self.opts.index_block_max_size
            };
            if !due {
                return Ok(());
            }
            let payload = encode_non_root(&chunk.entries);
            self.pending_leaf_first_key = chunk.entries.first().map(|e| e.key.clone());
            if let Some(c) = self.cur_inline.as_mut() {
                c.clear();
            }
            let (offset, on_disk, uncompressed) =
                self.write_block(BlockType::LeafIndex, &payload)?;
            self.index_uncompressed += u64::from(uncompressed);
            self.total_uncompressed_bytes += u64::from(uncompressed) + HEADER_SIZE as u64;
            if self.root.entries.is_empty() {
                self.levels = 2;
            }
            let first = self.pending_leaf_first_key.take().unwrap_or_default();
            self.root
                .add(first, offset, on_disk, Some(self.index_entries));
        }
    }

    /// One level of intermediate index blocks over `level` (HBase's
    /// `writeIntermediateLevel`); returns the level above.
    fn write_intermediate_level(&mut self, level: &IndexChunk) -> Result<IndexChunk> {
        let mut parent = IndexChunk::default();
        let mut chunk = IndexChunk::default();
        for (i, e) in level.entries.iter().enumerate() {
            chunk.add(e.key.clone(), e.offset, e.on_disk_size, None);
            // HBase compares the position in the whole level, not in the chunk.
            if i >= self.opts.index_min_entries && chunk.root_size >= self.opts.index_block_max_size
            {
                self.write_intermediate_block(&mut parent, &mut chunk)?;
            }
        }
        if !chunk.entries.is_empty() {
            self.write_intermediate_block(&mut parent, &mut chunk)?;
        }
        Ok(parent)
    }

    fn write_intermediate_block(
        &mut self,
        parent: &mut IndexChunk,
        chunk: &mut IndexChunk,
    ) -> Result<()> {
        let payload = encode_non_root(&chunk.entries);
        let first = chunk.entries[0].key.clone();
        let (offset, on_disk, uncompressed) =
            self.write_block(BlockType::IntermediateIndex, &payload)?;
        self.index_uncompressed += u64::from(uncompressed);
        parent.add(first, offset, on_disk, None);
        chunk.clear();
        Ok(())
    }

    /// Writes the rest of the file (meta blocks, the load-on-open section, the trailer),
    /// syncs it, and returns what it holds.
    pub fn finish(mut self) -> Result<HFileSummary> {
        self.finish_block()?;
        self.write_inline_blocks(true)?;

        let mut meta_root = IndexChunk::default();
        for (name, content) in std::mem::take(&mut self.meta) {
            let (offset, on_disk, uncompressed) = self.write_block(BlockType::Meta, &content)?;
            self.total_uncompressed_bytes += u64::from(uncompressed) + HEADER_SIZE as u64;
            meta_root.add(name, offset, on_disk, None);
        }

        // The data index: mid-key metadata first (from the leaf-level root), then the
        // intermediate levels, then the root.
        let mid = if self.levels > 1 {
            self.root.mid_key_metadata()
        } else {
            None
        };
        if self.cur_inline.is_some() {
            while self.root.root_size > self.opts.index_block_max_size
                && self.root.entries.len() > self.opts.index_min_entries
                && self.levels < 16
            {
                let level = std::mem::take(&mut self.root);
                self.root = self.write_intermediate_level(&level)?;
                self.levels += 1;
            }
        }
        let root_payload = encode_root(&self.root.entries, mid);
        let (root_offset, _, root_uncompressed) =
            self.write_block(BlockType::RootIndex, &root_payload)?;
        self.index_uncompressed += u64::from(root_uncompressed);

        let meta_payload = encode_root(&meta_root.entries, None);
        let (_, _, meta_uncompressed) = self.write_block(BlockType::RootIndex, &meta_payload)?;
        self.total_uncompressed_bytes += u64::from(meta_uncompressed) + HEADER_SIZE as u64;

        // FileInfo: the HFile layer's keys over whatever the caller set.
        if self.opts.include_mvcc {
            self.file_info.insert(
                keys::MAX_MEMSTORE_TS_KEY,
                self.max_memstore_ts.to_be_bytes(),
            );
            self.file_info
                .insert(keys::KEY_VALUE_VERSION, 1i32.to_be_bytes());
        }
        if let Some(last) = &self.last_key {
            self.file_info.insert(keys::LASTKEY, last.clone());
        }
        let avg = |total: u64| -> i32 { total.checked_div(self.entry_count).unwrap_or(0) as i32 };
        let (avg_key, avg_value) = (avg(self.total_key_len), avg(self.total_value_len));
        self.file_info
            .insert(keys::AVG_KEY_LEN, avg_key.to_be_bytes());
        self.file_info
            .insert(keys::CREATE_TIME_TS, self.opts.create_time.to_be_bytes());
        self.file_info
            .insert(keys::AVG_VALUE_LEN, avg_value.to_be_bytes());
        if self.opts.include_tags {
            self.file_info
                .insert(keys::MAX_TAGS_LEN, (self.max_tags_len as i32).to_be_bytes());
            self.file_info.insert(keys::TAGS_COMPRESSED, [0u8]);
        }
        // StoreFileWriter's keys: the Bloom type and last key (only with a non-empty
        // general Bloom), the delete-family count, the time range.
        let mut bloom_metas = Vec::new();
        if self.opts.store_file {
            let st = &self.store;
            if let Some((t, w)) = &st.general
                && w.key_count() > 0
            {
                self.file_info
                    .insert(keys::BLOOM_FILTER_TYPE, t.name().as_bytes());
                // The last cell's row (ROW) or first-on-row-col key (ROWCOL): every new
                // row or column goes into the Bloom, so the last cell's is the last added.
                if let Some(k) = self.last_key.as_deref().and_then(KeyRef::parse) {
                    let last = match t {
                        BloomType::Row => k.row.to_vec(),
                        BloomType::RowCol => first_on_row_col(&k),
                    };
                    self.file_info.insert(keys::LAST_BLOOM_KEY, last);
                }
                bloom_metas.push((BlockType::GeneralBloomMeta, w.meta_payload()));
            }
            if let Some(w) = &st.delete_family
                && w.key_count() > 0
            {
                bloom_metas.push((BlockType::DeleteFamilyBloomMeta, w.meta_payload()));
            }
            self.file_info.insert(
                keys::DELETE_FAMILY_COUNT,
                st.delete_family_count.to_be_bytes(),
            );
            let mut range = st.time_min.to_be_bytes().to_vec();
            range.extend_from_slice(&st.time_max.to_be_bytes());
            self.file_info.insert(keys::TIMERANGE, range);
            self.file_info
                .insert(keys::EARLIEST_PUT_TS, st.earliest_put.to_be_bytes());
        }
        let info_payload = self.file_info.encode();
        let (info_offset, _, info_uncompressed) =
            self.write_block(BlockType::FileInfo, &info_payload)?;
        self.total_uncompressed_bytes += u64::from(info_uncompressed) + HEADER_SIZE as u64;
        // Load-on-open data of the higher level: the Bloom metas, after FileInfo.
        for (kind, payload) in bloom_metas {
            let (_, _, uncompressed) = self.write_block(kind, &payload)?;
            self.total_uncompressed_bytes += u64::from(uncompressed) + HEADER_SIZE as u64;
        }

        let java_minus_one = u64::MAX;
        let trailer = Trailer {
            major: 3,
            minor: MINOR_VERSION,
            offset: self.pos,
            size: TRAILER_SIZE_V3,
            proto: FileTrailerProto {
                file_info_offset: Some(info_offset),
                load_on_open_data_offset: Some(root_offset),
                uncompressed_data_index_size: Some(self.index_uncompressed),
                total_uncompressed_bytes: Some(self.total_uncompressed_bytes + TRAILER_SIZE_V3),
                data_index_count: Some(self.root.entries.len() as u32),
                meta_index_count: Some(meta_root.entries.len() as u32),
                entry_count: Some(self.entry_count),
                num_data_index_levels: Some(self.levels),
                first_data_block_offset: Some(
                    self.first_data_block_offset.unwrap_or(java_minus_one),
                ),
                last_data_block_offset: Some(self.last_data_block_offset.unwrap_or(java_minus_one)),
                comparator_class_name: Some(KV_COMPARATOR.to_string()),
                compression_codec: Some(self.opts.compression.ordinal()),
                encryption_key: None,
            },
            compression: self.opts.compression,
        };
        let bytes = trailer
            .encode()
            .ok_or_else(|| self.invalid("the trailer does not fit in 4096 bytes"))?;
        self.out.append(&bytes)?;
        self.pos += bytes.len() as u64;
        self.out.sync_data()?;
        Ok(HFileSummary {
            len: self.pos,
            entry_count: self.entry_count,
            data_blocks: self.data_blocks,
            index_levels: self.levels,
            first_key: self.first_key,
            last_key: self.last_key,
        })
    }
}

/// HBase's `getMidpoint`: a key after `left` (the previous block's last key) and not after
/// `right` (this block's first key), as short as it can be made; `right` itself when no
/// shorter key exists or there is no `left`.
pub fn midpoint_key(left: Option<&[u8]>, right: &[u8]) -> Vec<u8> {
    let (Some(l), Some(r)) = (left.and_then(KeyRef::parse), KeyRef::parse(right)) else {
        return right.to_vec();
    };
    let fake = |row: &[u8], family: &[u8], qualifier: &[u8]| {
        KeyRef {
            row,
            family,
            qualifier,
            timestamp: i64::MAX,
            type_byte: TYPE_MAXIMUM,
        }
        .to_vec()
        .unwrap_or_else(|| right.to_vec())
    };
    match l.row.cmp(r.row) {
        std::cmp::Ordering::Less => fake(&minimum_midpoint(l.row, r.row), b"", b""),
        std::cmp::Ordering::Greater => right.to_vec(),
        std::cmp::Ordering::Equal => match l.family.cmp(r.family) {
            std::cmp::Ordering::Less => fake(r.row, &minimum_midpoint(l.family, r.family), b""),
            std::cmp::Ordering::Greater => right.to_vec(),
            std::cmp::Ordering::Equal => match l.qualifier.cmp(r.qualifier) {
                std::cmp::Ordering::Less => {
                    fake(r.row, r.family, &minimum_midpoint(l.qualifier, r.qualifier))
                }
                _ => right.to_vec(),
            },
        },
    }
}

/// HBase's `getMinimumMidpointArray` for `left < right`: the shortest prefix-based array
/// after `left` and not after `right`. Java compares the left byte as a signed value plus
/// one against the right byte unsigned; the result is the same either way (see the test).
fn minimum_midpoint(left: &[u8], right: &[u8]) -> Vec<u8> {
    let min = left.len().min(right.len());
    let d = left.iter().zip(right).take_while(|(a, b)| a == b).count();
    if d >= min {
        // `left` is a prefix of `right`.
        return right[..(d + 1).min(right.len())].to_vec();
    }
    let diff = i32::from(left[d] as i8);
    if (diff & 0xff) < 0xff && diff + 1 < i32::from(right[d]) {
        let mut out = left[..d].to_vec();
        out.push((diff + 1) as u8);
        out
    } else {
        right[..=d].to_vec()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn key(row: &[u8]) -> Vec<u8> {
        KeyRef {
            row,
            family: b"f",
            qualifier: b"q",
            timestamp: 5,
            type_byte: 4,
        }
        .to_vec()
        .unwrap()
    }

    #[test]
    fn fake_keys_are_hbase_s() {
        // FIXTURES.md's example: between ...469-abcdefghij and ...470-abcdefghij.
        let mid = midpoint_key(
            Some(&key(b"hudi-key-000000469-abcdefghij")),
            &key(b"hudi-key-000000470-abcdefghij"),
        );
        let k = KeyRef::parse(&mid).unwrap();
        assert_eq!(k.row, b"hudi-key-00000047");
        assert!(k.family.is_empty() && k.qualifier.is_empty());
        assert_eq!((k.timestamp, k.type_byte), (i64::MAX, TYPE_MAXIMUM));
        // A gap of more than one at the first difference: left's byte plus one.
        assert_eq!(minimum_midpoint(b"abc", b"axz"), b"ac");
        // Left a prefix of right: right cut one past it.
        assert_eq!(minimum_midpoint(b"ab", b"abcd"), b"abc");
        // 0xff cannot be incremented.
        assert_eq!(minimum_midpoint(b"a\xff", b"b\x00"), b"b");
        // Every result lies after left and not after right.
        for (l, r) in [
            (&b"\x80"[..], &b"\x81"[..]),
            (b"\x7f", b"\x80"),
            (b"\x80\x01", b"\x90"),
        ] {
            let m = minimum_midpoint(l, r);
            assert!(m.as_slice() > l && m.as_slice() <= r, "{l:?} {r:?} {m:?}");
        }
        // No left: the real key; equal coordinates: the real key.
        assert_eq!(midpoint_key(None, &key(b"a")), key(b"a"));
        assert_eq!(midpoint_key(Some(&key(b"a")), &key(b"a")), key(b"a"));
    }
}
