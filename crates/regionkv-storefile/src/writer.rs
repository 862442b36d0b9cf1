//! `StoreFileWriter`: turns cells, given in key order, into a storefile.
//!
//! Life cycle: `new` → `append`* → `finish` (consumes the writer; a finished writer cannot
//! be written to again). `finish` writes the index, bloom, file info and trailer and then
//! `sync_data`s the file, so the file is durable before any manifest names it.
//!
//! Invariants: cells are appended in strictly ascending key order (checked: an out-of-order
//! or duplicate key is an error and nothing more is written); data blocks occupy
//! `[0, data_section_end)` contiguously, in key order.

use crate::block::BlockBuilder;
use crate::bloom::{BloomBuilder, BloomType, DEFAULT_ERROR_RATE, rowcol_key};
use crate::error::{Error, Result};
use crate::file_info::{FileInfo, StoreFileIdentity};
use crate::format::block_header::{MAX_BODY_LEN, frame_block};
use crate::format::parts::{PART_SIZE, PartOut, frame_parted_block};
use crate::format::trailer::Trailer;
use crate::format::{BlockType, Compression, DataBlockEncoding};
use crate::index::{BlockHandle, IndexBuilder};
use regionkv_cell::{CellRef, CellType, compare_keys};
use regionkv_fs::WritableFile;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// HBase's default BLOCKSIZE.
pub const DEFAULT_BLOCK_SIZE: usize = 64 * 1024;
/// HBase's default maximum index block size (`hfile.index.block.max.size`).
pub const DEFAULT_INDEX_BLOCK_SIZE: usize = 128 * 1024;
/// HBase's accepted BLOCKSIZE range (TableDescriptorChecker: between 1 KB and 16 MB).
pub const MIN_BLOCK_SIZE: usize = 1024;
/// Upper end of the accepted BLOCKSIZE range.
pub const MAX_BLOCK_SIZE: usize = 16 * 1024 * 1024;

/// How a storefile is written: the family options that shape it.
#[derive(Debug, Clone)]
pub struct StoreFileWriterOptions {
    /// Data block size target (BLOCKSIZE).
    pub block_size: usize,
    /// Data block compression (COMPRESSION).
    pub compression: Compression,
    /// Data block encoding (DATA_BLOCK_ENCODING).
    pub encoding: DataBlockEncoding,
    /// Bloom filter type (BLOOMFILTER).
    pub bloom_type: BloomType,
    /// Bloom false-positive rate.
    pub bloom_error_rate: f64,
    /// Index block size bound; the index grows a level when its root would pass it.
    pub index_block_size: usize,
    /// Target size of the independently compressed parts a compressed data block is
    /// stored in (format version 3, `crate::format::parts`); 0 writes whole blocks. Used
    /// only when compression is on and BLOCKSIZE is larger than a part.
    pub part_size: usize,
    /// Mark the file as written by a major compaction.
    pub major_compaction: bool,
    /// Extra file info entries.
    pub extra: BTreeMap<String, Vec<u8>>,
    /// Write a file whose cells may carry tags (format version 2; HBase's
    /// `HFileContext.includesTags`). Flushes set it when the memstore snapshot holds a
    /// tagged cell, compactions when an input file includes tags.
    pub include_tags: bool,
    /// Whose file this is, recorded in the file info and checked by readers that know
    /// where the file should be (`None`: no identity, as files before it existed).
    pub identity: Option<StoreFileIdentity>,
}

impl Default for StoreFileWriterOptions {
    fn default() -> Self {
        Self {
            block_size: DEFAULT_BLOCK_SIZE,
            compression: Compression::None,
            encoding: DataBlockEncoding::None,
            bloom_type: BloomType::Row,
            bloom_error_rate: DEFAULT_ERROR_RATE,
            index_block_size: DEFAULT_INDEX_BLOCK_SIZE,
            part_size: PART_SIZE,
            major_compaction: false,
            extra: BTreeMap::new(),
            include_tags: false,
            identity: None,
        }
    }
}

impl StoreFileWriterOptions {
    /// Checks every option's range.
    pub fn validate(&self) -> Result<()> {
        if !(MIN_BLOCK_SIZE..=MAX_BLOCK_SIZE).contains(&self.block_size) {
            return Err(Error::InvalidOption(format!(
                "BLOCKSIZE {} must be between {MIN_BLOCK_SIZE} and {MAX_BLOCK_SIZE}",
                self.block_size
            )));
        }
        if !(self.bloom_error_rate > 0.0 && self.bloom_error_rate < 1.0) {
            return Err(Error::InvalidOption(format!(
                "bloom error rate {} must be in (0, 1)",
                self.bloom_error_rate
            )));
        }
        if self.part_size != 0 && !(256..=MAX_BLOCK_SIZE).contains(&self.part_size) {
            return Err(Error::InvalidOption(format!(
                "part size {} must be 0 or between 256 and {MAX_BLOCK_SIZE}",
                self.part_size
            )));
        }
        if !(64..=MAX_BLOCK_SIZE).contains(&self.index_block_size) {
            return Err(Error::InvalidOption(format!(
                "index block size {} must be between 64 and {MAX_BLOCK_SIZE}",
                self.index_block_size
            )));
        }
        Ok(())
    }
}

/// What `finish` reports about the file it wrote.
#[derive(Debug, Clone)]
pub struct WrittenFile {
    /// The file's path.
    pub path: PathBuf,
    /// Its length in bytes.
    pub size: u64,
    /// Its trailer.
    pub trailer: Trailer,
    /// Its file info.
    pub file_info: FileInfo,
}

/// Writes one storefile.
pub struct StoreFileWriter {
    file: Box<dyn WritableFile>,
    options: StoreFileWriterOptions,
    /// The block being built, or with parts, the current part of it.
    block: BlockBuilder,
    block_first_key: Vec<u8>,
    /// Parts: the first key of the current part, and the block's finished parts.
    part_first_key: Vec<u8>,
    parts: Vec<PartOut>,
    /// Uncompressed bytes of `parts`.
    parts_raw: usize,
    /// Data blocks are written in parts (format version 3).
    parted: bool,
    last_key: Vec<u8>,
    offset: u64,
    data_block_count: u64,
    uncompressed_data_bytes: u64,
    index: IndexBuilder,
    bloom: BloomBuilder,
    last_bloom_key: Vec<u8>,
    scratch: Vec<u8>,
    frame: Vec<u8>,
    info: FileInfo,
    key_bytes: u64,
    value_bytes: u64,
    failed: bool,
}

impl std::fmt::Debug for StoreFileWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoreFileWriter")
            .field("path", &self.file.path())
            .field("cells", &self.info.cell_count)
            .finish()
    }
}

impl StoreFileWriter {
    /// A writer appending to `file` (a new, empty file).
    pub fn new(file: Box<dyn WritableFile>, options: StoreFileWriterOptions) -> Result<Self> {
        options.validate()?;
        let info = FileInfo {
            max_tags_len: options.include_tags.then_some(0),
            bloom_type: options.bloom_type,
            compression: options.compression,
            encoding: options.encoding,
            block_size: options.block_size as u32,
            major_compaction: options.major_compaction,
            extra: options.extra.clone(),
            identity: options.identity.clone(),
            ..FileInfo::default()
        };
        Ok(Self {
            file,
            block: BlockBuilder::new(options.encoding == DataBlockEncoding::Prefix),
            block_first_key: Vec::new(),
            part_first_key: Vec::new(),
            parts: Vec::new(),
            parts_raw: 0,
            parted: options.compression != Compression::None
                && options.part_size != 0
                && options.block_size > options.part_size,
            last_key: Vec::new(),
            offset: 0,
            data_block_count: 0,
            uncompressed_data_bytes: 0,
            index: IndexBuilder::new(options.index_block_size),
            bloom: BloomBuilder::new(options.bloom_type, options.bloom_error_rate),
            last_bloom_key: Vec::new(),
            scratch: Vec::new(),
            frame: Vec::new(),
            info,
            key_bytes: 0,
            value_bytes: 0,
            failed: false,
            options,
        })
    }

    /// Cells appended so far.
    pub fn cell_count(&self) -> u64 {
        self.info.cell_count
    }

    /// Bytes written to the file so far (data blocks only until `finish`).
    pub fn bytes_written(&self) -> u64 {
        self.offset
    }

    /// Appends a cell. Its key must sort strictly after the previous cell's.
    pub fn append(&mut self, cell: CellRef<'_>) -> Result<()> {
        if self.failed {
            return Err(Error::InvalidOption(
                "append after an earlier failure of this writer".to_string(),
            ));
        }
        let key = cell.key_bytes();
        if self.info.cell_count > 0 && compare_keys(&self.last_key, key).is_ge() {
            self.failed = true;
            return Err(Error::OutOfOrder {
                previous: format!("{:?}", regionkv_cell::KeyView::parse(&self.last_key)?),
                current: format!("{:?}", cell.key()),
            });
        }
        let tags = cell.tags();
        if !tags.is_empty() && !self.options.include_tags {
            self.failed = true;
            return Err(Error::InvalidOption(format!(
                "cell {:?} carries tags but the writer was created without include_tags",
                cell.key()
            )));
        }
        let entry_len = key.len() + cell.value().len() + tags.len();
        if entry_len > (MAX_BODY_LEN as usize) / 2 {
            self.failed = true;
            return Err(Error::InvalidOption(format!(
                "cell of {entry_len} bytes is larger than a storefile block may hold"
            )));
        }
        if !self.block.is_empty() {
            let part = self.block.size_estimate();
            if self.parts_raw + part >= self.options.block_size {
                self.flush_data_block()?;
            } else if self.parted && part >= self.options.part_size {
                self.finish_part();
            }
        }
        if self.block.is_empty() {
            if self.parts.is_empty() {
                self.block_first_key.clear();
                self.block_first_key.extend_from_slice(key);
            }
            self.part_first_key.clear();
            self.part_first_key.extend_from_slice(key);
        }
        if self.options.include_tags {
            // `value | tags | tags_len:u16` (docs/storefile-format.md, version 2); tag runs
            // are at most 65535 bytes (`Cell::with_tags` and every reader check it).
            let tags_len = (tags.len().min(u16::MAX as usize) as u16).to_be_bytes();
            self.block.add_parts(key, &[cell.value(), tags, &tags_len]);
        } else {
            self.block.add(key, cell.value());
        }
        self.track(cell);
        self.last_key.clear();
        self.last_key.extend_from_slice(key);
        Ok(())
    }

    /// Updates statistics, time range and bloom for an appended cell.
    fn track(&mut self, cell: CellRef<'_>) {
        let info = &mut self.info;
        let new_row = info.cell_count == 0
            || regionkv_cell::KeyView::parse(&self.last_key)
                .map(|k| k.row() != cell.row())
                .unwrap_or(true);
        info.cell_count += 1;
        if new_row {
            info.row_count += 1;
        }
        if let Some(max) = &mut info.max_tags_len {
            *max = (*max).max(cell.tags().len() as u32);
        }
        self.key_bytes += cell.key_bytes().len() as u64;
        self.value_bytes += cell.value().len() as u64;
        let ts = cell.timestamp();
        let t = cell.cell_type();
        info.min_timestamp = info.min_timestamp.min(ts);
        info.max_timestamp = info.max_timestamp.max(ts);
        if matches!(t, CellType::DeleteColumn | CellType::DeleteFamily) {
            // HBase's TimeRangeTracker: these markers reach back to the oldest version.
            info.min_timestamp = info.min_timestamp.min(0);
        }
        if t == CellType::Put {
            info.earliest_put_ts = info.earliest_put_ts.min(ts);
        }
        if t.is_delete() {
            info.delete_count += 1;
        }
        if t.is_family_delete() {
            info.delete_family_count += 1;
        }
        info.max_seq_id = info.max_seq_id.max(cell.seq_id());
        if info.first_key.is_none() {
            info.first_key = Some(cell.key_bytes().to_vec());
        }
        match self.options.bloom_type {
            BloomType::None => {}
            BloomType::Row => {
                if new_row {
                    self.bloom.add(cell.row());
                }
            }
            BloomType::RowCol => {
                let qualifier = if t.is_family_delete() {
                    &[][..]
                } else {
                    cell.qualifier()
                };
                rowcol_key(&mut self.scratch, cell.row(), qualifier);
                if new_row || self.scratch != self.last_bloom_key {
                    self.bloom.add(&self.scratch);
                    std::mem::swap(&mut self.scratch, &mut self.last_bloom_key);
                }
            }
        }
    }

    fn append_framed(&mut self) -> Result<(u64, u32)> {
        let offset = self.offset;
        self.file
            .append(&self.frame)
            .inspect_err(|_| self.failed = true)?;
        let size = self.frame.len() as u32;
        self.offset += self.frame.len() as u64;
        Ok((offset, size))
    }

    /// Compresses the current part and keeps it for the block.
    fn finish_part(&mut self) {
        let body = self.block.finish();
        let stored = match self.options.compression {
            Compression::None => body.clone(),
            Compression::Lz4 => lz4_flex::block::compress(&body),
        };
        self.parts_raw += body.len();
        self.parts.push(PartOut {
            first_key: std::mem::take(&mut self.part_first_key),
            stored,
            raw_len: body.len() as u32,
        });
    }

    fn flush_data_block(&mut self) -> Result<()> {
        self.frame.clear();
        if self.parted {
            if !self.block.is_empty() {
                self.finish_part();
            }
            frame_parted_block(
                &mut self.frame,
                self.options.compression,
                self.options.encoding,
                &self.parts,
            );
            self.uncompressed_data_bytes += self.parts_raw as u64;
            self.parts.clear();
            self.parts_raw = 0;
            return self.index_block_written();
        }
        let body = self.block.finish();
        self.uncompressed_data_bytes += body.len() as u64;
        let compressed;
        let (stored, compression) = match self.options.compression {
            Compression::None => (&body[..], Compression::None),
            Compression::Lz4 => {
                compressed = lz4_flex::block::compress(&body);
                (&compressed[..], Compression::Lz4)
            }
        };
        frame_block(
            &mut self.frame,
            BlockType::Data,
            compression,
            self.options.encoding,
            stored,
            body.len() as u32,
        );
        self.index_block_written()
    }

    /// Appends the framed data block and adds it to the index.
    fn index_block_written(&mut self) -> Result<()> {
        let (offset, size) = self.append_framed()?;
        let handle = BlockHandle {
            offset,
            size,
            first_ordinal: self.data_block_count,
        };
        self.data_block_count += 1;
        let first_key = std::mem::take(&mut self.block_first_key);
        self.index.add_data_block(&first_key, handle);
        // Keep the allocation for the next block's first key. Index blocks cut meanwhile
        // wait in the builder's pending list until `finish` (see index.rs).
        self.block_first_key = first_key;
        Ok(())
    }

    fn write_block(&mut self, block_type: BlockType, body: &[u8]) -> Result<(u64, u32)> {
        self.frame.clear();
        frame_block(
            &mut self.frame,
            block_type,
            Compression::None,
            DataBlockEncoding::None,
            body,
            body.len() as u32,
        );
        self.append_framed()
    }

    /// Writes the index, bloom, file info and trailer, syncs the file and reports it.
    pub fn finish(mut self) -> Result<WrittenFile> {
        if self.failed {
            return Err(Error::InvalidOption(
                "finish after an earlier failure of this writer".to_string(),
            ));
        }
        if !self.block.is_empty() || !self.parts.is_empty() {
            self.flush_data_block()?;
        }
        let data_section_end = self.offset;

        // Index: append cut blocks level by level; placing a block adds its parent entry.
        let (root_body, index_levels) = if self.data_block_count == 0 {
            (BlockBuilder::new(false).finish(), 0)
        } else {
            let mut level = 0;
            loop {
                let mut pending = self.index.take_pending();
                while !pending.is_empty() {
                    for block in &pending {
                        let (offset, size) =
                            self.write_block(IndexBuilder::pending_block_type(), &block.body)?;
                        self.index.place(block, offset, size);
                    }
                    pending = self.index.take_pending();
                }
                if let Some(root) = self.index.finish_level(level) {
                    break root;
                }
                level += 1;
            }
        };
        let (root_index_offset, root_index_size) =
            self.write_block(BlockType::RootIndex, &root_body)?;

        let bloom = std::mem::replace(&mut self.bloom, BloomBuilder::new(BloomType::None, 0.5));
        let (bloom_offset, bloom_size) = match bloom.finish() {
            Some(body) => self.write_block(BlockType::Bloom, &body)?,
            None => {
                self.info.bloom_type = BloomType::None;
                (0, 0)
            }
        };

        if self.info.cell_count > 0 {
            self.info.last_key = Some(self.last_key.clone());
        }
        let avg = |total: u64| total.checked_div(self.info.cell_count).unwrap_or(0) as u32;
        self.info.avg_key_len = avg(self.key_bytes);
        self.info.avg_value_len = avg(self.value_bytes);
        let info_body = self.info.encode();
        let (file_info_offset, file_info_size) =
            self.write_block(BlockType::FileInfo, &info_body)?;

        let trailer = Trailer {
            root_index_offset,
            root_index_size,
            index_levels,
            file_info_offset,
            file_info_size,
            bloom_offset,
            bloom_size,
            data_block_count: self.data_block_count,
            cell_count: self.info.cell_count,
            data_section_end,
            uncompressed_data_bytes: self.uncompressed_data_bytes,
            compression: self.options.compression,
            encoding: self.options.encoding,
            includes_tags: self.options.include_tags,
            has_identity: self.info.identity.is_some(),
            parted: self.parted,
        };
        self.frame.clear();
        self.frame.extend_from_slice(&trailer.encode());
        self.append_framed()?;
        self.file.sync_data()?;
        tracing::debug!(
            path = %self.file.path().display(),
            cells = self.info.cell_count,
            bytes = self.offset,
            "storefile written"
        );
        Ok(WrittenFile {
            path: self.file.path().to_path_buf(),
            size: self.offset,
            trailer,
            file_info: self.info,
        })
    }
}
