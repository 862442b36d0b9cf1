//! `StoreFileReader`: opens a storefile, verifies its trailer, file info, root index and
//! bloom, and serves blocks to scanners.
//!
//! Reads go through the file's mapping when the I/O seam offers one (`RealFs` in mmap
//! mode, `MemFs`) and through `read_at` otherwise. Uncompressed data blocks are served
//! straight from the mapping, without a copy; their checksum is verified the first time
//! each block is touched (a bit per data block remembers it). Compressed data blocks, and
//! every block in pread mode, are verified, decoded and kept in the shared block cache.
//! Non-root index blocks always go through the cache: they are small and hot.
//!
//! A reader may be restricted to one half of its file (HBase's `HalfStoreFileReader`, the
//! reader of a daughter region's reference file): the bottom half holds the rows below the
//! split row, the top half the rows at or above it. Scanners, reversed-scan row lookups and
//! the row filters honour the half; the file info and trailer still describe the whole file
//! (as HBase's half reader reports the whole file's length and entries).
//!
//! Thread safety: a reader is shared as `Arc<StoreFileReader>` by any number of scanners;
//! it holds no lock of its own (the block cache has its own).

use crate::block::BlockCursor;
use crate::bloom::{BloomFilter, BloomType, rowcol_key};
use crate::cache::{BlockCache, BlockCacheKey};
use crate::error::{Error, Result};
use crate::file_info::FileInfo;
use crate::format::block_header::{
    BlockHeader, FRAMING_LEN, FrameError, HEADER_LEN, decompress, parse_block, peek_block_len,
};
use crate::format::parts::{PartIndex, PartsError, peek_table_len, verify_parted_block};
use crate::format::trailer::{TRAILER_LEN_V1, Trailer, TrailerError};
use crate::format::{BlockType, Compression};
use crate::index::{BlockHandle, IndexBlockView, searchable_index_block};
use regionkv_cell::TimeRange;
use regionkv_fs::{Fs, ReadableFile};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// The block cache type storefiles share: decoded (uncompressed) block bodies.
pub type StoreFileBlockCache = BlockCache<Vec<u8>>;

/// A data block body a scanner holds: a range of the mapping, or a decoded buffer.
#[derive(Debug, Clone)]
pub enum BlockData {
    /// Body bytes inside the file's mapping.
    Mapped {
        /// The mapped file.
        file: Arc<dyn ReadableFile>,
        /// Body start offset.
        start: usize,
        /// Body end offset.
        end: usize,
    },
    /// A decoded body (decompressed, or read with pread), possibly shared with the cache.
    Owned(Arc<Vec<u8>>),
}

impl BlockData {
    /// The body bytes.
    #[inline]
    pub fn body(&self) -> &[u8] {
        match self {
            BlockData::Mapped { file, start, end } => file
                .as_slice()
                .and_then(|s| s.get(*start..*end))
                .unwrap_or_default(),
            BlockData::Owned(b) => b,
        }
    }
}

thread_local! {
    /// The on-disk bytes of the block or part being read (reused: a cache miss allocates
    /// only the decoded body).
    static READ_SCRATCH: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// A data block's verified part table, and the block's offset (checked on use, as
/// `verified` checks offsets).
type PartTableMemo = (u64, Arc<PartIndex>);

/// The largest read buffer a thread keeps between reads (data blocks and parts fit).
const SCRATCH_KEEP: usize = 256 << 10;

/// Bytes the first read of a part table takes.
const TABLE_READ: usize = 1024;

/// Which part of a data block [`StoreFileReader::data_part`] returns. A block not stored
/// in parts has one part, the whole block.
#[derive(Debug, Clone, Copy)]
pub enum PartAt<'a> {
    /// The first part.
    First,
    /// Part number `i`.
    Index(usize),
    /// The part that holds this key if the block does: the last whose first key is ≤ it,
    /// or the first.
    Key(&'a [u8]),
}

/// One part of a data block: a complete block body (entries and restarts).
#[derive(Debug, Clone)]
pub struct DataPart {
    /// The part's body.
    pub data: BlockData,
    /// Its number in the block.
    pub part: usize,
    /// The block's number of parts (1 for a block not stored in parts).
    pub parts: usize,
}

/// Options of an open reader.
#[derive(Debug, Clone, Default)]
pub struct ReaderOptions {
    /// Cache blocks with in-memory priority (the family's IN_MEMORY option).
    pub in_memory: bool,
}

/// One half of a parent region's storefile, as a daughter's reference reads it (HBase's
/// `Reference`: `Range.bottom` = rows below `split_row`, `Range.top` = rows at or above it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Half {
    /// The daughters' boundary row.
    pub split_row: Vec<u8>,
    /// True for the top half (rows ≥ `split_row`), false for the bottom (rows < it).
    pub top: bool,
}

/// A [`Half`] with its boundary as an encoded key: the first possible key of `split_row`.
#[derive(Debug, Clone)]
struct HalfRange {
    half: Half,
    split_key: Vec<u8>,
}

/// An open storefile.
#[derive(Debug)]
pub struct StoreFileReader {
    file: Arc<dyn ReadableFile>,
    path: PathBuf,
    file_id: u64,
    len: u64,
    trailer: Trailer,
    info: FileInfo,
    /// The root index block with its search aid ([`searchable_index_block`]).
    root: Vec<u8>,
    bloom: Option<BloomFilter>,
    cache: Option<Arc<StoreFileBlockCache>>,
    options: ReaderOptions,
    /// Per data block ordinal: 1 + the offset of the block whose checksum was verified
    /// (mapped, uncompressed blocks; 0 = not yet). Keyed by offset as well as ordinal, so an
    /// index entry that claims another block's ordinal cannot skip verification.
    verified: Vec<AtomicU64>,
    /// Per data block ordinal of a parted file: its verified part table and the block's
    /// offset, kept with the reader once read (a finer level of the index, about 1% of
    /// the data: RocksDB keeps its index and filter blocks outside the block cache by
    /// default too), so that a read costs one cache lookup, for its part.
    tables: Box<[std::sync::OnceLock<PartTableMemo>]>,
    /// Set when this reader reads one half of the file only.
    half: Option<HalfRange>,
}

impl StoreFileReader {
    /// Opens the storefile at `path` through `fs`. `file_id` must be unique among the
    /// files sharing `cache`.
    pub fn open(
        fs: &dyn Fs,
        path: &Path,
        file_id: u64,
        cache: Option<Arc<StoreFileBlockCache>>,
        options: ReaderOptions,
    ) -> Result<Self> {
        let file = fs.open_read(path)?;
        Self::from_file(file, file_id, cache, options)
    }

    /// Opens an already opened file.
    pub fn from_file(
        file: Arc<dyn ReadableFile>,
        file_id: u64,
        cache: Option<Arc<StoreFileBlockCache>>,
        options: ReaderOptions,
    ) -> Result<Self> {
        let path = file.path().to_path_buf();
        let len = file.len();
        let tail_len = len.min(TRAILER_LEN_V1 as u64);
        let tail = file.read_to_vec(len - tail_len, tail_len as usize)?;
        let trailer = Trailer::decode(&tail, len).map_err(|e| match e {
            TrailerError::NotAStoreFile(reason) => Error::NotAStoreFile {
                path: path.clone(),
                reason,
            },
            TrailerError::UnsupportedVersion(version) => Error::UnsupportedVersion {
                path: path.clone(),
                offset: len - TRAILER_LEN_V1 as u64,
                version,
            },
            TrailerError::Checksum { stored, computed } => Error::ChecksumMismatch {
                path: path.clone(),
                offset: len - TRAILER_LEN_V1 as u64,
                what: "trailer",
                stored,
                computed,
            },
            TrailerError::Bad(reason) => Error::Corrupt {
                path: path.clone(),
                offset: len - TRAILER_LEN_V1 as u64,
                reason,
            },
        })?;
        // Bounded by the file size: the trailer checked the count against the data section.
        let blocks = trailer.data_block_count;
        let mut reader = Self {
            file,
            path,
            file_id,
            len,
            trailer,
            info: FileInfo::default(),
            root: Vec::new(),
            bloom: None,
            cache,
            options,
            verified: (0..blocks).map(|_| AtomicU64::new(0)).collect(),
            tables: (0..if trailer.parted { blocks } else { 0 })
                .map(|_| std::sync::OnceLock::new())
                .collect(),
            half: None,
        };
        let fi = reader.read_meta_block(
            trailer.file_info_offset,
            trailer.file_info_size,
            BlockType::FileInfo,
            false,
        )?;
        reader.info = FileInfo::decode(&fi).map_err(|(at, reason)| Error::Corrupt {
            path: reader.path.clone(),
            offset: trailer.file_info_offset + HEADER_LEN as u64 + at as u64,
            reason,
        })?;
        if trailer.has_identity && reader.info.identity.is_none() {
            return Err(reader.corrupt(
                trailer.file_info_offset,
                "the trailer says the file info carries the file's identity; it has none"
                    .to_string(),
            ));
        }
        if reader.info.cell_count != trailer.cell_count {
            return Err(reader.corrupt(
                trailer.file_info_offset,
                format!(
                    "file info counts {} cells, trailer {}",
                    reader.info.cell_count, trailer.cell_count
                ),
            ));
        }
        let root = reader.read_meta_block(
            trailer.root_index_offset,
            trailer.root_index_size,
            BlockType::RootIndex,
            false,
        )?;
        BlockCursor::new(&root).map_err(|e| {
            reader.corrupt(
                trailer.root_index_offset + HEADER_LEN as u64 + e.offset as u64,
                format!("root index: {}", e.reason),
            )
        })?;
        reader.root = searchable_index_block(root);
        if trailer.bloom_size > 0 {
            let body = reader.read_meta_block(
                trailer.bloom_offset,
                trailer.bloom_size,
                BlockType::Bloom,
                false,
            )?;
            let bloom = BloomFilter::parse(&body)
                .map_err(|r| reader.corrupt(trailer.bloom_offset, format!("bloom: {r}")))?;
            if bloom.bloom_type() != reader.info.bloom_type {
                return Err(reader.corrupt(
                    trailer.bloom_offset,
                    "bloom type differs from the file info's".to_string(),
                ));
            }
            reader.bloom = Some(bloom);
        } else if reader.info.bloom_type != BloomType::None {
            return Err(reader.corrupt(
                trailer.file_info_offset,
                "file info names a bloom the trailer does not have".to_string(),
            ));
        }
        Ok(reader)
    }

    pub(crate) fn corrupt(&self, offset: u64, reason: String) -> Error {
        Error::Corrupt {
            path: self.path.clone(),
            offset,
            reason,
        }
    }

    fn frame_error(&self, offset: u64, what: &'static str, e: FrameError) -> Error {
        match e {
            FrameError::TooShort(n) => self.corrupt(offset, format!("{what}: block of {n} bytes")),
            FrameError::Checksum { stored, computed } => Error::ChecksumMismatch {
                path: self.path.clone(),
                offset,
                what,
                stored,
                computed,
            },
            FrameError::BadHeader(r) => self.corrupt(offset, format!("{what}: {r}")),
        }
    }

    /// Reads, verifies and decodes a block kept in memory (file info, root, bloom, index
    /// blocks, whole data blocks). Of a compressed file, a meta block is read with pread
    /// even from a mapped file: the decoded copy is what is kept, and touching the mapping
    /// would add the block's pages (and the kernel's fault-around neighbours) to the
    /// resident set as well.
    /// A data block a Get or a caching scan reads (`point`) is read as
    /// [`Self::read_into`] says.
    fn read_meta_block(
        &self,
        offset: u64,
        size: u32,
        expect: BlockType,
        point: bool,
    ) -> Result<Vec<u8>> {
        READ_SCRATCH.with_borrow_mut(|buf| {
            self.read_into(offset, size as usize, buf, point)?;
            let body = self.decode_block(buf, offset, expect);
            if buf.capacity() > SCRATCH_KEEP {
                // A bloom or a large block: do not keep its size per thread.
                *buf = Vec::new();
            }
            body
        })
    }

    /// Verifies the framed block `raw` read at `offset` and returns its decoded body.
    fn decode_block(&self, raw: &[u8], offset: u64, expect: BlockType) -> Result<Vec<u8>> {
        let (header, body) =
            parse_block(raw).map_err(|e| self.frame_error(offset, expect.name(), e))?;
        self.check_type(offset, &header, expect)?;
        decompress(&header, body).map_err(|r| self.corrupt(offset, r))
    }

    fn check_type(&self, offset: u64, header: &BlockHeader, expect: BlockType) -> Result<()> {
        if header.block_type != expect {
            return Err(self.corrupt(
                offset,
                format!(
                    "expected a {} block, found {}",
                    expect.name(),
                    header.block_type.name()
                ),
            ));
        }
        Ok(())
    }

    fn cache_key(&self, offset: u64) -> BlockCacheKey {
        BlockCacheKey {
            file_id: self.file_id,
            offset,
        }
    }

    /// Reads a framed block, verifies it and returns its decoded body, via the cache.
    fn cached_block(&self, h: BlockHandle, expect: BlockType) -> Result<Arc<Vec<u8>>> {
        self.cached_block_with(h, expect, true)
    }

    /// [`Self::cached_block`]; a block read from the file is added to the cache only when
    /// `fill` is set.
    fn cached_block_with(
        &self,
        h: BlockHandle,
        expect: BlockType,
        fill: bool,
    ) -> Result<Arc<Vec<u8>>> {
        let key = self.cache_key(h.offset);
        if let Some(cache) = &self.cache
            && let Some(b) = cache.get(&key)
        {
            return Ok(b);
        }
        let point = fill && expect == BlockType::Data;
        let mut body = self.read_meta_block(h.offset, h.size, expect, point)?;
        if expect == BlockType::Index {
            // Index blocks are kept, and cached, with their search aid (`descend`).
            body = searchable_index_block(body);
        }
        let body = Arc::new(body);
        if let Some(cache) = self.cache.as_ref().filter(|_| fill) {
            cache.insert(key, body.clone(), body.len() as u64, self.options.in_memory);
        }
        Ok(body)
    }

    fn check_data_extent(&self, h: BlockHandle) -> Result<()> {
        if h.offset
            .checked_add(u64::from(h.size))
            .is_none_or(|e| e > self.trailer.data_section_end)
        {
            return Err(self.corrupt(
                h.offset,
                format!("data block of {} bytes runs past the data section", h.size),
            ));
        }
        Ok(())
    }

    /// `len` bytes at `offset` of a block that is decoded into memory of its own (the
    /// block cache, the root index, the bloom): of a compressed file, read with pread even
    /// from a mapped file (`ReadableFile::pread_at`), as HBase and RocksDB read blocks into
    /// their caches, so that the file's pages do not add to the resident set beside their
    /// decoded copies.
    fn bytes_for_cache(&self, offset: u64, len: usize) -> Result<Vec<u8>> {
        let mut buf = Vec::new();
        self.read_into(offset, len, &mut buf, false)?;
        Ok(buf)
    }

    /// The part of the data block at `h` that `at` names (for a file whose blocks are not
    /// in parts, the whole block). A part is verified against its own checksum, decoded
    /// and cached on its own, so a point read decompresses one part of a block.
    pub fn data_part(&self, h: BlockHandle, at: PartAt<'_>) -> Result<DataPart> {
        self.data_part_with(h, at, true)
    }

    /// [`Self::data_part`]; a part (or whole block) read from the file is added to the
    /// block cache only when `cache_blocks` is set (HBase's `cacheBlocks`, false for
    /// compactions). A cached one is used either way.
    pub fn data_part_with(
        &self,
        h: BlockHandle,
        at: PartAt<'_>,
        cache_blocks: bool,
    ) -> Result<DataPart> {
        if !self.trailer.parted {
            if let PartAt::Index(i) = at
                && i != 0
            {
                return Err(self.corrupt(h.offset, format!("no part {i} in a whole block")));
            }
            return Ok(DataPart {
                data: self.data_block(h, cache_blocks)?,
                part: 0,
                parts: 1,
            });
        }
        self.check_data_extent(h)?;
        let index = self.part_table(h)?;
        let t = index.table();
        let i = match at {
            PartAt::First => 0,
            PartAt::Index(i) => i,
            PartAt::Key(k) => index.find(k),
        };
        if i >= t.len() {
            return Err(self.corrupt(
                h.offset,
                format!("no part {i} in a block of {} parts", t.len()),
            ));
        }
        let e = t.entry(i);
        let at = h.offset + (HEADER_LEN + t.table_len()) as u64 + u64::from(e.part_off);
        let key = self.cache_key(at);
        let data = match self.cache.as_ref().and_then(|c| c.get(&key)) {
            Some(body) => body,
            None => {
                let body = READ_SCRATCH.with_borrow_mut(|buf| {
                    self.read_into(at, e.disk_len as usize, buf, cache_blocks)?;
                    self.decode_part(h, i, at, &e, buf)
                })?;
                if let Some(cache) = self.cache.as_ref().filter(|_| cache_blocks) {
                    cache.insert(key, body.clone(), body.len() as u64, self.options.in_memory);
                }
                body
            }
        };
        Ok(DataPart {
            data: BlockData::Owned(data),
            part: i,
            parts: t.len(),
        })
    }

    /// Checks and decompresses part `i` of block `h`, whose on-disk bytes read at `at` are
    /// `stored`.
    fn decode_part(
        &self,
        h: BlockHandle,
        i: usize,
        at: u64,
        e: &crate::format::parts::PartEntry,
        stored: &[u8],
    ) -> Result<Arc<Vec<u8>>> {
        let computed = crc32fast::hash(stored);
        if computed != e.crc {
            return Err(Error::ChecksumMismatch {
                path: self.path.clone(),
                offset: at,
                what: "data block part",
                stored: e.crc,
                computed,
            });
        }
        let header = BlockHeader {
            block_type: BlockType::Data,
            compression: self.trailer.compression,
            encoding: self.trailer.encoding,
            on_disk_body_len: e.disk_len,
            uncompressed_len: e.raw_len,
        };
        let body = decompress(&header, stored).map_err(|r| {
            self.corrupt(at, format!("data block {} part {i}: {r}", h.first_ordinal))
        })?;
        Ok(Arc::new(body))
    }

    /// Reads `len` bytes at `offset` into `buf` (as [`Self::bytes_for_cache`], into a
    /// reused buffer). A `point` read, the data a Get or a caching scan misses in the block
    /// cache, goes through the mapping while the file system's mapped-read budget lasts
    /// (`ReadableFile::read_mapped_at`): a copy from resident pages instead of a system
    /// call, for the blocks that are read again and again. Everything else of a compressed
    /// file, compactions' reads among them, goes through `pread` (HBase's compactions read
    /// with a stream reader of their own and drop what they read from the OS cache).
    fn read_into(&self, offset: u64, len: usize, buf: &mut Vec<u8>, point: bool) -> Result<()> {
        if offset
            .checked_add(len as u64)
            .is_none_or(|end| end > self.len)
        {
            return Err(self.corrupt(offset, format!("{len} bytes run past the end of the file")));
        }
        buf.clear();
        buf.resize(len, 0);
        if self.trailer.compression == Compression::None {
            // An uncompressed file's data is served from its mapping anyway, and mmap mode
            // promises that such files hold no descriptor: read its meta blocks as the
            // mapping offers (`pread_at` would open one).
            self.file.read_at(offset, buf)?;
        } else if point {
            self.file.read_mapped_at(offset, buf)?;
        } else {
            self.file.pread_at(offset, buf)?;
        }
        Ok(())
    }

    /// The verified part table of the parted data block at `h` (read once, then kept; see
    /// `tables`).
    fn part_table(&self, h: BlockHandle) -> Result<Arc<PartIndex>> {
        let memo = usize::try_from(h.first_ordinal)
            .ok()
            .and_then(|i| self.tables.get(i));
        if let Some((offset, t)) = memo.and_then(|m| m.get())
            && *offset == h.offset
        {
            return Ok(t.clone());
        }
        let size = h.size as usize;
        // One read takes the header and, most often, the whole table (16 parts of keys
        // under 40 bytes); a longer table takes a second.
        let mut head = self.bytes_for_cache(h.offset, size.min(TABLE_READ))?;
        let table_len = peek_table_len(&head)
            .filter(|&t| HEADER_LEN + t + FRAMING_LEN - HEADER_LEN <= size)
            .ok_or_else(|| self.corrupt(h.offset, "part table runs past its block".into()))?;
        if head.len() < HEADER_LEN + table_len {
            head = self.bytes_for_cache(h.offset, HEADER_LEN + table_len)?;
        }
        head.truncate(HEADER_LEN + table_len);
        let crc = self.bytes_for_cache(h.offset + size as u64 - 4, 4)?;
        let crc = crate::format::be_u32(&crc, 0).unwrap_or(0);
        let table = verify_parted_block(&head, crc, size, self.trailer.compression).map_err(
            |e| match e {
                PartsError::Checksum { stored, computed } => Error::ChecksumMismatch {
                    path: self.path.clone(),
                    offset: h.offset,
                    what: "data block part table",
                    stored,
                    computed,
                },
                PartsError::Bad(r) => {
                    self.corrupt(h.offset, format!("data block {}: {r}", h.first_ordinal))
                }
            },
        )?;
        let table = Arc::new(PartIndex::new(table.to_vec()));
        if let Some(m) = memo {
            // An index entry claiming another block's ordinal finds the offset differs
            // and reads its own table each time (it is corrupt; its reads still check).
            let _ = m.set((h.offset, table.clone()));
        }
        Ok(table)
    }

    /// The data block at `h`, whole, added to the block cache when read from the file only
    /// if `cache_blocks`. For a file whose blocks are in parts this is an error: such
    /// blocks are read part by part ([`Self::data_part`]).
    fn data_block(&self, h: BlockHandle, cache_blocks: bool) -> Result<BlockData> {
        self.check_data_extent(h)?;
        if self.trailer.parted {
            return Err(self.corrupt(
                h.offset,
                "a block in parts is read part by part".to_string(),
            ));
        }
        if let (Some(map), Compression::None) = (self.file.as_slice(), self.trailer.compression) {
            let start = h.offset as usize;
            let end = start + h.size as usize;
            let raw = map.get(start..end).unwrap_or_default();
            if !self.is_verified(h) {
                let (header, _) =
                    parse_block(raw).map_err(|e| self.frame_error(h.offset, "data block", e))?;
                self.check_type(h.offset, &header, BlockType::Data)?;
                if header.compression == Compression::None {
                    self.mark_verified(h);
                }
            }
            // Verified: the header says "uncompressed", so the body is the data.
            if raw.get(8) == Some(&Compression::None.code()) {
                return Ok(BlockData::Mapped {
                    file: self.file.clone(),
                    start: start + HEADER_LEN,
                    end: end - (FRAMING_LEN - HEADER_LEN),
                });
            }
        }
        Ok(BlockData::Owned(self.cached_block_with(
            h,
            BlockType::Data,
            cache_blocks,
        )?))
    }

    fn is_verified(&self, h: BlockHandle) -> bool {
        self.verified
            .get(h.first_ordinal as usize)
            .is_some_and(|v| v.load(Ordering::Relaxed) == h.offset + 1)
    }

    fn mark_verified(&self, h: BlockHandle) {
        if let Some(v) = self.verified.get(h.first_ordinal as usize) {
            v.store(h.offset + 1, Ordering::Relaxed);
        }
    }

    /// Reads and verifies the framed block at `h` and returns its header (for the `hfile`
    /// inspector's per-block listing).
    pub fn block_header(&self, h: BlockHandle) -> Result<BlockHeader> {
        if self.trailer.parted {
            // Verifies the header and table; the header fields are then trusted.
            self.part_table(h)?;
            let raw = self.bytes_for_cache(h.offset, HEADER_LEN)?;
            let get = |at: usize| crate::format::be_u32(&raw, at).unwrap_or(0);
            return Ok(BlockHeader {
                block_type: BlockType::Data,
                compression: self.trailer.compression,
                encoding: self.trailer.encoding,
                on_disk_body_len: get(12),
                uncompressed_len: get(16),
            });
        }
        let raw = self.file.read_to_vec(h.offset, h.size as usize)?;
        let (header, _) = parse_block(&raw).map_err(|e| self.frame_error(h.offset, "block", e))?;
        Ok(header)
    }

    /// Descends the index to the data block that holds `key` if the file does (the last
    /// block whose first key is ≤ `key`, or the first block). `None` for an empty file.
    pub fn find_data_block(&self, key: &[u8]) -> Result<Option<BlockHandle>> {
        self.descend(|c, view| match view.find(key) {
            Some(at) => c.seek_to_entry(view.body(), at),
            None => c.seek_le_or_first(view.body(), key),
        })
    }

    /// The handle of data block `ordinal`.
    pub fn data_block_by_ordinal(&self, ordinal: u64) -> Result<Option<BlockHandle>> {
        if ordinal >= self.trailer.data_block_count {
            return Ok(None);
        }
        self.descend(|c, view| {
            let body = view.body();
            // Last entry whose first ordinal is ≤ the target.
            c.seek_to_first(body)?;
            let mut best = c.entry_offset();
            while c.valid() {
                match BlockHandle::decode(c.value(body)) {
                    Some(h) if h.first_ordinal <= ordinal => best = c.entry_offset(),
                    _ => break,
                }
                c.next(body)?;
            }
            c.seek_to_first(body)?;
            while c.valid() && c.entry_offset() < best {
                c.next(body)?;
            }
            Ok(())
        })
    }

    fn descend(
        &self,
        mut position: impl FnMut(
            &mut BlockCursor,
            &IndexBlockView<'_>,
        ) -> std::result::Result<(), crate::block::BodyError>,
    ) -> Result<Option<BlockHandle>> {
        if self.trailer.data_block_count == 0 {
            return Ok(None);
        }
        let mut level = self.trailer.index_levels;
        let mut owned: Arc<Vec<u8>>;
        let mut bytes: &[u8] = &self.root;
        let mut block_offset = self.trailer.root_index_offset;
        loop {
            let bad = |e: crate::block::BodyError| {
                self.corrupt(
                    block_offset + HEADER_LEN as u64 + e.offset as u64,
                    format!("index block: {}", e.reason),
                )
            };
            // The bytes are ours (`searchable_index_block`), so they always parse.
            let view = IndexBlockView::parse(bytes)
                .ok_or_else(|| self.corrupt(block_offset, "index block search aid".into()))?;
            let body = view.body();
            let mut c = BlockCursor::new(body).map_err(bad)?;
            position(&mut c, &view).map_err(bad)?;
            if !c.valid() {
                return Err(self.corrupt(block_offset, "empty index block".to_string()));
            }
            let h = BlockHandle::decode(c.value(body))
                .ok_or_else(|| self.corrupt(block_offset, "index entry value".to_string()))?;
            if level <= 1 {
                return Ok(Some(h));
            }
            level -= 1;
            owned = self.cached_block(h, BlockType::Index)?;
            bytes = &owned;
            block_offset = h.offset;
        }
    }

    /// The handle of the data block after `h` in file order, read from its header
    /// (bounds-checked here, confirmed by the block's checksum when it is loaded).
    pub fn next_data_block(&self, h: BlockHandle) -> Result<Option<BlockHandle>> {
        let offset = h.offset + u64::from(h.size);
        if offset >= self.trailer.data_section_end
            || h.first_ordinal + 1 >= self.trailer.data_block_count
        {
            return Ok(None);
        }
        let mut header = [0u8; HEADER_LEN];
        if self.trailer.compression == Compression::None {
            self.file.read_at(offset, &mut header)?;
        } else {
            // The block itself is read with pread (`bytes_for_cache`); so is its header.
            self.file.pread_at(offset, &mut header)?;
        }
        let size = peek_block_len(&header)
            .filter(|&s| offset + s as u64 <= self.trailer.data_section_end)
            .ok_or_else(|| {
                self.corrupt(
                    offset,
                    "data block length runs past the data section".into(),
                )
            })?;
        Ok(Some(BlockHandle {
            offset,
            size: size as u32,
            first_ordinal: h.first_ordinal + 1,
        }))
    }

    /// The row of the last cell whose key sorts before `key` (or the file's last row when
    /// `key` is `None`): reversed scans step to the previous row with it. Reads the block
    /// that would hold `key` and, when every cell of it is at or after `key`, the block
    /// before.
    pub fn last_row_before(&self, key: Option<&[u8]>) -> Result<Option<Vec<u8>>> {
        // A bottom half ends before its split key; a top half has no row below its split row.
        let key = match self.half_split_key() {
            Some((split, false)) => match key {
                Some(k) if regionkv_cell::compare_keys(k, split).is_lt() => Some(k),
                _ => Some(split),
            },
            _ => key,
        };
        let row = self.last_row_before_whole(key)?;
        Ok(row.filter(|r| self.row_in_range(r)))
    }

    fn last_row_before_whole(&self, key: Option<&[u8]>) -> Result<Option<Vec<u8>>> {
        let n = self.trailer.data_block_count;
        if n == 0 {
            return Ok(None);
        }
        let mut handle = match key {
            Some(k) => self.find_data_block(k)?,
            None => self.data_block_by_ordinal(n - 1)?,
        };
        while let Some(h) = handle {
            let bad = |e: crate::block::BodyError| {
                self.corrupt(
                    h.offset,
                    format!(
                        "data block {}: {} at body offset {}",
                        h.first_ordinal, e.reason, e.offset
                    ),
                )
            };
            let mut last: Option<Vec<u8>> = None;
            let mut part = self.data_part(h, PartAt::First)?;
            'parts: loop {
                let body = part.data.body();
                let mut c = BlockCursor::new(body).map_err(bad)?;
                c.seek_to_first(body).map_err(bad)?;
                while c.valid() {
                    let k = c.key(body);
                    if key.is_some_and(|target| regionkv_cell::compare_keys(k, target).is_ge()) {
                        break 'parts;
                    }
                    last = Some(k.to_vec());
                    c.next(body).map_err(bad)?;
                }
                if part.part + 1 >= part.parts {
                    break;
                }
                part = self.data_part(h, PartAt::Index(part.part + 1))?;
            }
            if let Some(k) = last {
                let view = regionkv_cell::KeyView::parse(&k)
                    .map_err(|e| self.corrupt(h.offset, format!("bad key: {e}")))?;
                return Ok(Some(view.row().to_vec()));
            }
            handle = match h.first_ordinal.checked_sub(1) {
                Some(prev) => self.data_block_by_ordinal(prev)?,
                None => None,
            };
        }
        Ok(None)
    }

    /// The key of the middle of the file (HBase's `HFileBlockIndex` mid-key entry): the
    /// first key of data block `⌊n / 2⌋` with a single-level index, `⌊(n − 1) / 2⌋` with a
    /// multi-level one. HBase's index holds a shortened key there; the region split row
    /// derives that row from this block and the one before it
    /// (`regionkv_region::store::file_split_row`). `None` for an empty file, and for a
    /// half reader (HBase's `HalfStoreFileReader.midKey`: a reference never splits again).
    pub fn midkey(&self) -> Result<Option<Vec<u8>>> {
        if self.half.is_some() {
            return Ok(None);
        }
        let n = self.trailer.data_block_count;
        if n == 0 {
            return Ok(None);
        }
        let ordinal = if self.trailer.index_levels > 1 {
            (n - 1) / 2
        } else {
            n / 2
        };
        self.block_first_key(ordinal)
    }

    /// Restricts this reader to one half of the file (a daughter's reference). Fails only
    /// for a split row too long to be a row.
    pub fn with_half(mut self, half: Half) -> Result<Self> {
        let split_key = regionkv_cell::OwnedKey::first_on_row(&half.split_row)
            .map_err(|e| self.corrupt(0, format!("bad split row of a reference: {e}")))?
            .as_bytes()
            .to_vec();
        self.half = Some(HalfRange { half, split_key });
        Ok(self)
    }

    /// The half this reader is restricted to, if any.
    pub fn half(&self) -> Option<&Half> {
        self.half.as_ref().map(|h| &h.half)
    }

    /// The encoded key of the half's boundary (first possible key of the split row).
    pub(crate) fn half_split_key(&self) -> Option<(&[u8], bool)> {
        self.half
            .as_ref()
            .map(|h| (h.split_key.as_slice(), h.half.top))
    }

    /// True when `row` belongs to the part of the file this reader reads.
    pub fn row_in_range(&self, row: &[u8]) -> bool {
        match &self.half {
            None => true,
            Some(h) if h.half.top => row >= h.half.split_row.as_slice(),
            Some(h) => row < h.half.split_row.as_slice(),
        }
    }

    /// The first key of data block `ordinal`, `None` past the last block.
    pub fn block_first_key(&self, ordinal: u64) -> Result<Option<Vec<u8>>> {
        let Some(h) = self.data_block_by_ordinal(ordinal)? else {
            return Ok(None);
        };
        let block = self.data_part(h, PartAt::First)?.data;
        let body = block.body();
        let mut c = BlockCursor::new(body)
            .map_err(|e| self.corrupt(h.offset, format!("data block: {}", e.reason)))?;
        c.seek_to_first(body)
            .map_err(|e| self.corrupt(h.offset, format!("data block: {}", e.reason)))?;
        Ok(c.valid().then(|| c.key(body).to_vec()))
    }

    /// True when this file's data block entries carry tags (format version 2).
    pub fn includes_tags(&self) -> bool {
        self.trailer().includes_tags
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
    /// The id this reader's blocks are cached under.
    pub fn file_id(&self) -> u64 {
        self.file_id
    }
    /// File length in bytes.
    pub fn len(&self) -> u64 {
        self.len
    }
    /// True for a zero-length file (never a valid storefile).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// The trailer.
    pub fn trailer(&self) -> &Trailer {
        &self.trailer
    }
    /// The file info.
    pub fn file_info(&self) -> &FileInfo {
        &self.info
    }
    /// The bloom filter, if the file has one.
    pub fn bloom(&self) -> Option<&BloomFilter> {
        self.bloom.as_ref()
    }
    /// The underlying file.
    pub fn file(&self) -> &Arc<dyn ReadableFile> {
        &self.file
    }

    /// False when the file certainly holds no cell of `row` (ROW or ROWCOL bloom).
    pub fn may_contain_row(&self, row: &[u8]) -> bool {
        if !self.row_in_range(row) {
            return false;
        }
        match (&self.bloom, self.info.bloom_type) {
            (Some(b), BloomType::Row) => b.may_contain(row),
            // A ROWCOL bloom cannot answer for a whole row (HBase reads the file).
            _ => true,
        }
    }

    /// False when the file certainly holds no cell of column `qualifier` of `row` and no
    /// family-level delete marker of `row`.
    pub fn may_contain_row_col(&self, row: &[u8], qualifier: &[u8]) -> bool {
        if !self.row_in_range(row) {
            return false;
        }
        match (&self.bloom, self.info.bloom_type) {
            (Some(b), BloomType::Row) => b.may_contain(row),
            (Some(b), BloomType::RowCol) => {
                let mut k = Vec::with_capacity(2 + row.len() + qualifier.len());
                rowcol_key(&mut k, row, qualifier);
                if b.may_contain(&k) {
                    return true;
                }
                if self.info.delete_family_count == 0 {
                    return false;
                }
                rowcol_key(&mut k, row, b"");
                b.may_contain(&k)
            }
            _ => true,
        }
    }

    /// False when no cell of the file has a timestamp in `range`.
    pub fn may_contain_time_range(&self, range: &TimeRange) -> bool {
        if self.info.cell_count == 0 {
            return false;
        }
        range.is_all_time()
            || (range.min() <= self.info.max_timestamp && self.info.min_timestamp < range.max())
    }

    /// False when no row of the file lies in `[start, stop)` (an empty `stop` means no
    /// upper bound, as in HBase scans).
    pub fn may_contain_rows(&self, start: &[u8], stop: &[u8]) -> bool {
        if let Some(h) = &self.half {
            let split = h.half.split_row.as_slice();
            let disjoint = if h.half.top {
                !stop.is_empty() && stop <= split
            } else {
                start >= split
            };
            if disjoint {
                return false;
            }
        }
        let (Some(first), Some(last)) = (&self.info.first_key, &self.info.last_key) else {
            return false;
        };
        let row = |k: &[u8]| {
            regionkv_cell::KeyView::parse(k)
                .map(|v| v.row().to_vec())
                .ok()
        };
        let (Some(first_row), Some(last_row)) = (row(first), row(last)) else {
            return true;
        };
        last_row.as_slice() >= start && (stop.is_empty() || first_row.as_slice() < stop)
    }
}
