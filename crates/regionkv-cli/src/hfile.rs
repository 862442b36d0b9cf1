//! `regionkv hfile`: the storefile inspector, modelled on HBase's `HFilePrettyPrinter`
//! (`hbase hfile -m -b -p -s -k -f FILE`): file info and trailer, the block index and
//! per-block sizes, every cell, statistics, and an order check. A corrupt file is reported
//! with the file and offset, and the command exits non-zero.

use regionkv_cell::bytes::to_string_binary;
use regionkv_cell::{KeyValueScanner, KeyView, compare_keys};
use regionkv_fs::RealFs;
use regionkv_storefile::{ReaderOptions, StoreFileReader, StoreFileScanner};
use std::io::Write;
use std::path::Path;
use std::sync::Arc;

/// What to print.
#[derive(Debug, Clone, Copy, Default)]
pub struct HfileOptions {
    /// `-m`: trailer, file info, midkey, bloom.
    pub meta: bool,
    /// `-b`: block index and per-block sizes.
    pub blocks: bool,
    /// `-p`: every cell.
    pub print: bool,
    /// `-s`: statistics.
    pub stats: bool,
    /// `-k`: check that cells are in order.
    pub check: bool,
}

/// Why inspection failed.
#[derive(Debug, thiserror::Error)]
pub enum HfileError {
    /// The file is unreadable or corrupt.
    #[error(transparent)]
    StoreFile(#[from] regionkv_storefile::Error),
    /// Writing the report failed.
    #[error("writing output: {0}")]
    Output(#[from] std::io::Error),
    /// `-k` found cells out of order.
    #[error("{0}")]
    OutOfOrder(String),
}

fn key_string(key: &[u8]) -> String {
    match KeyView::parse(key) {
        Ok(k) => format!("{k:?}"),
        Err(_) => to_string_binary(key),
    }
}

/// Min / max / sum of a series, as HBase's pretty printer summarises lengths.
#[derive(Debug, Default)]
struct Summary {
    n: u64,
    min: u64,
    max: u64,
    sum: u64,
}

impl Summary {
    fn add(&mut self, v: u64) {
        if self.n == 0 || v < self.min {
            self.min = v;
        }
        self.max = self.max.max(v);
        self.sum += v;
        self.n += 1;
    }
    fn line(&self, name: &str) -> String {
        let mean = if self.n == 0 {
            0.0
        } else {
            self.sum as f64 / self.n as f64
        };
        format!(
            "{name}: count = {}, min = {}, max = {}, mean = {mean:.2}",
            self.n, self.min, self.max
        )
    }
}

/// Inspects `path` and writes the report to `out`.
pub fn run(path: &Path, opts: HfileOptions, out: &mut dyn Write) -> Result<(), HfileError> {
    let reader = Arc::new(StoreFileReader::open(
        &RealFs::new(),
        path,
        0,
        None,
        ReaderOptions::default(),
    )?);
    let t = *reader.trailer();
    let info = reader.file_info().clone();
    if opts.meta {
        writeln!(out, "Trailer:")?;
        writeln!(
            out,
            "    formatVersion={}",
            if t.includes_tags {
                regionkv_storefile::format::FORMAT_VERSION_TAGS
            } else {
                regionkv_storefile::format::FORMAT_VERSION
            }
        )?;
        writeln!(out, "    fileLength={}", reader.len())?;
        writeln!(out, "    dataBlockCount={}", t.data_block_count)?;
        writeln!(out, "    entryCount={}", t.cell_count)?;
        writeln!(out, "    dataSectionEnd={}", t.data_section_end)?;
        writeln!(
            out,
            "    uncompressedDataBytes={}",
            t.uncompressed_data_bytes
        )?;
        writeln!(out, "    numIndexLevels={}", t.index_levels)?;
        writeln!(
            out,
            "    rootIndexOffset={} rootIndexSize={}",
            t.root_index_offset, t.root_index_size
        )?;
        writeln!(
            out,
            "    fileInfoOffset={} fileInfoSize={}",
            t.file_info_offset, t.file_info_size
        )?;
        writeln!(
            out,
            "    bloomOffset={} bloomSize={}",
            t.bloom_offset, t.bloom_size
        )?;
        writeln!(out, "    compressionCodec={}", t.compression.name())?;
        writeln!(out, "    dataBlockEncoding={}", t.encoding.name())?;
        writeln!(out, "Fileinfo:")?;
        let key = |k: &Option<Vec<u8>>| {
            k.as_deref()
                .map(key_string)
                .unwrap_or_else(|| "(none)".into())
        };
        writeln!(out, "    FIRST_KEY = {}", key(&info.first_key))?;
        writeln!(out, "    LAST_KEY = {}", key(&info.last_key))?;
        writeln!(out, "    ENTRIES = {}", info.cell_count)?;
        writeln!(out, "    ROWS = {}", info.row_count)?;
        writeln!(out, "    AVG_KEY_LEN = {}", info.avg_key_len)?;
        writeln!(out, "    AVG_VALUE_LEN = {}", info.avg_value_len)?;
        writeln!(out, "    BLOCKSIZE = {}", info.block_size)?;
        writeln!(out, "    BLOOM_FILTER_TYPE = {}", info.bloom_type.name())?;
        writeln!(
            out,
            "    DELETE_FAMILY_COUNT = {}",
            info.delete_family_count
        )?;
        writeln!(out, "    DELETE_COUNT = {}", info.delete_count)?;
        writeln!(out, "    EARLIEST_PUT_TS = {}", info.earliest_put_ts)?;
        writeln!(out, "    MAJOR_COMPACTION_KEY = {}", info.major_compaction)?;
        writeln!(out, "    MAX_SEQ_ID_KEY = {}", info.max_seq_id)?;
        writeln!(
            out,
            "    TIMERANGE = {}....{}",
            info.min_timestamp, info.max_timestamp
        )?;
        for (k, v) in &info.extra {
            writeln!(out, "    {k} = {}", to_string_binary(v))?;
        }
        match reader.midkey()? {
            Some(m) => writeln!(out, "Mid-key: {}", key_string(&m))?,
            None => writeln!(out, "Mid-key: (none)")?,
        }
        match reader.bloom() {
            Some(b) => {
                writeln!(out, "Bloom filter:")?;
                writeln!(out, "    BloomType: {}", b.bloom_type().name())?;
                writeln!(out, "    Keys: {}", b.key_count())?;
                writeln!(out, "    Size: {} bytes", b.size_bytes())?;
                writeln!(out, "    Hash functions: {}", b.hash_count())?;
                writeln!(out, "    Error rate: {}", b.error_rate())?;
            }
            None => writeln!(out, "Bloom filter:\n    Not present")?,
        }
    }
    if opts.blocks {
        writeln!(
            out,
            "Block index: {} level(s), {} data block(s)",
            t.index_levels, t.data_block_count
        )?;
        let mut next = reader.data_block_by_ordinal(0)?;
        while let Some(h) = next {
            let header = reader.block_header(h)?;
            let block = reader.data_block(h)?;
            let first = {
                let body = block.body();
                let mut c = regionkv_storefile::block::BlockCursor::new(body).ok();
                c.as_mut()
                    .and_then(|c| c.seek_to_first(body).ok().map(|_| c.key(body).to_vec()))
            };
            writeln!(
                out,
                "    block {}: offset={}, onDiskSize={}, uncompressedSize={}, firstKey={}",
                h.first_ordinal,
                h.offset,
                h.size,
                header.uncompressed_len,
                first.as_deref().map(key_string).unwrap_or_default()
            )?;
            next = reader.next_data_block(h)?;
        }
    }
    if opts.print || opts.stats || opts.check {
        let mut s = StoreFileScanner::new(reader.clone());
        s.seek_to_first()?;
        let (mut keys, mut values) = (Summary::default(), Summary::default());
        let (mut row_bytes, mut row_cells) = (Summary::default(), Summary::default());
        let mut prev: Option<Vec<u8>> = None;
        let (mut cur_row, mut cur_bytes, mut cur_cells) = (Vec::new(), 0u64, 0u64);
        while let Some(c) = s.peek() {
            if opts.print {
                write!(out, "K: {} V: {}", c, to_string_binary(c.value()))?;
                // HFilePrettyPrinter's tag form: ` T[i]: [Tag type : t, value : v]`.
                for (i, t) in regionkv_cell::tag::iter_tags(c.tags()).enumerate() {
                    write!(
                        out,
                        " T[{i}]: [Tag type : {}, value : {}]",
                        t.tag_type,
                        to_string_binary(t.value)
                    )?;
                }
                writeln!(out)?;
            }
            if opts.check
                && let Some(p) = &prev
                && compare_keys(p, c.key_bytes()).is_ge()
            {
                return Err(HfileError::OutOfOrder(format!(
                    "WARNING, previous key is not less than current key\n\tfilename -> {}\n\tprevious -> {}\n\tcurrent  -> {}",
                    path.display(),
                    key_string(p),
                    key_string(c.key_bytes())
                )));
            }
            keys.add(c.key_bytes().len() as u64);
            values.add(c.value().len() as u64);
            if c.row() != cur_row.as_slice() {
                if cur_cells > 0 {
                    row_bytes.add(cur_bytes);
                    row_cells.add(cur_cells);
                }
                cur_row = c.row().to_vec();
                (cur_bytes, cur_cells) = (0, 0);
            }
            cur_bytes += (c.key_bytes().len() + c.value().len()) as u64;
            cur_cells += 1;
            prev = Some(c.key_bytes().to_vec());
            s.advance()?;
        }
        if cur_cells > 0 {
            row_bytes.add(cur_bytes);
            row_cells.add(cur_cells);
        }
        if opts.stats {
            writeln!(out, "Stats:")?;
            writeln!(out, "    {}", keys.line("Key length"))?;
            writeln!(out, "    {}", values.line("Val length"))?;
            writeln!(out, "    {}", row_bytes.line("Row size (bytes)"))?;
            writeln!(out, "    {}", row_cells.line("Row size (columns)"))?;
            writeln!(out, "    Data blocks: {}", t.data_block_count)?;
            writeln!(
                out,
                "    Uncompressed data bytes: {}",
                t.uncompressed_data_bytes
            )?;
            if let Some(b) = reader.bloom() {
                writeln!(
                    out,
                    "    Bloom size: {} bytes, error rate {}",
                    b.size_bytes(),
                    b.error_rate()
                )?;
            }
        }
        if opts.check {
            writeln!(out, "Scanned kv count -> {}", keys.n)?;
        }
    }
    Ok(())
}
