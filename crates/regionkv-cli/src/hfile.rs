//! `regionkv hfile`: the storefile inspector, modelled on HBase's `HFilePrettyPrinter`
//! (`hbase hfile [-v] [-m] [-b] [-p|-e] [-s] [-k] [-w ROW] -f FILE`): file info and trailer,
//! the block index and per-block sizes, every cell (or key), statistics, and an order check.
//! A corrupt file is reported with the file and offset, and the command exits non-zero.
//!
//! As in HBase, the flags choose everything that is printed: with none, a file is only
//! opened (its trailer, file info and index read and checked) and nothing is printed.
//! `Scanned kv count -> N` closes the output when cells or keys were printed or with `-v`,
//! counted over all files; `-w ROW` limits the scan (cells, keys, stats, checks) to one row.
//! The file info prints every key in byte order (HBase's TreeMap order), each value rendered
//! as HBase's `printMeta` renders that key: longs, ints, booleans, the time range, keys.
//!
//! A file HBase wrote (an HFile v3, or v2.3+: the version word and `TRABLK"$` trailer
//! magic at the end, see [`hbase_hfile_version`]) goes to `hfile_hbase.rs`, which prints
//! what HBase 2.4's printer prints for it; this file keeps the inspector of regionkv's own
//! storefiles, whose output names regionkv's own fields.

use regionkv_cell::bytes::to_string_binary;
use regionkv_cell::{KeyValueScanner, KeyView, compare_keys};
use regionkv_fs::RealFs;
use regionkv_storefile::{ReaderOptions, StoreFileReader, StoreFileScanner};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What to print.
#[derive(Debug, Clone, Default)]
pub struct HfileOptions {
    /// `-v`: `Scanning -> FILE` before each file, every cell read, and the final count.
    pub verbose: bool,
    /// `-e`: every key (`-p` implies it).
    pub keys: bool,
    /// `-w`: only the cells of this row (the bytes of `Bytes.toBytesBinary(ROW)`).
    pub row: Option<Vec<u8>>,
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
    /// `-h`: every block's header (HBase's `HFileBlock.toString` for HBase files).
    pub headers: bool,
}

/// Why inspection failed.
#[derive(Debug, thiserror::Error)]
pub enum HfileError {
    /// The file is unreadable or corrupt.
    #[error(transparent)]
    StoreFile(#[from] regionkv_storefile::Error),
    /// An HBase HFile is unreadable or corrupt (the error names the file and offset).
    #[error(transparent)]
    HFile(#[from] regionkv_hfile::Error),
    /// Opening or reading a file failed.
    #[error(transparent)]
    Fs(#[from] regionkv_fs::Error),
    /// Writing the report failed.
    #[error("writing output: {0}")]
    Output(#[from] std::io::Error),
    /// `-k` found cells out of order.
    #[error("{0}")]
    OutOfOrder(String),
    /// A flag's value cannot be used (a `-w` row too long to be a key).
    #[error("{0}")]
    BadArgument(String),
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

/// HBase's `KeyValue.KeyOnlyKeyValue.toString`, the form `printMeta` gives `hfile.LASTKEY`:
/// `row/family:qualifier/timestamp/Type/vlen=0/mvcc=N` (regionkv keys carry the sequence
/// id, which goes where HBase prints the key's absent mvcc).
fn key_only_string(key: &[u8]) -> String {
    match KeyView::parse(key) {
        Ok(k) => format!(
            "{}/{}:{}/{}/{}/vlen=0/mvcc={}",
            to_string_binary(k.row()),
            to_string_binary(k.family()),
            to_string_binary(k.qualifier()),
            k.timestamp(),
            k.cell_type(),
            k.seq_id()
        ),
        Err(_) => to_string_binary(key),
    }
}

/// One FileInfo value as HBase's `HFilePrettyPrinter.printMeta` renders it for `key`:
/// `Bytes.toLong` for the sequence id and time keys, `Bytes.toInt` for the lengths,
/// `Bytes.toBoolean` for the flags, `min....max` for TIMERANGE, `last_key` for LASTKEY, and
/// `Bytes.toStringBinary` for everything else. A value of the wrong width (HBase would
/// throw) falls back to `toStringBinary` rather than failing the whole report.
pub(crate) fn printmeta_value(key: &str, v: &[u8], last_key: fn(&[u8]) -> String) -> String {
    match key {
        "MAX_SEQ_ID_KEY"
        | "DELETE_FAMILY_COUNT"
        | "EARLIEST_PUT_TS"
        | "MAX_MEMSTORE_TS_KEY"
        | "hfile.CREATE_TIME_TS"
        | "BULKLOAD_TIMESTAMP" => <[u8; 8]>::try_from(v)
            .map(|b| i64::from_be_bytes(b).to_string())
            .unwrap_or_else(|_| to_string_binary(v)),
        "TIMERANGE" => match time_range(v) {
            Some((min, max)) => format!("{min}....{max}"),
            None => to_string_binary(v),
        },
        "hfile.AVG_KEY_LEN"
        | "hfile.AVG_VALUE_LEN"
        | "KEY_VALUE_VERSION"
        | "hfile.MAX_TAGS_LEN" => <[u8; 4]>::try_from(v)
            .map(|b| i32::from_be_bytes(b).to_string())
            .unwrap_or_else(|_| to_string_binary(v)),
        // Bytes.toBoolean: one byte, true unless zero.
        "MAJOR_COMPACTION_KEY" | "hfile.TAGS_COMPRESSED" | "EXCLUDE_FROM_MINOR_COMPACTION"
            if v.len() == 1 =>
        {
            (v[0] != 0).to_string()
        }
        "hfile.LASTKEY" => last_key(v),
        _ => to_string_binary(v),
    }
}

/// `TimeRangeTracker.parseFrom`: HBase 2 writes `PBUF` and a `TimeRangeTracker` message
/// (`from` = 1, `to` = 2, both uint64, 0 when absent); older files hold two longs.
fn time_range(v: &[u8]) -> Option<(i64, i64)> {
    if let Some(mut pb) = v.strip_prefix(b"PBUF".as_slice()) {
        let (mut from, mut to) = (0i64, 0i64);
        let varint = |b: &mut &[u8]| -> Option<u64> {
            let mut out = 0u64;
            for shift in (0..64).step_by(7) {
                let (first, rest) = b.split_first()?;
                *b = rest;
                out |= u64::from(first & 0x7f) << shift;
                if first & 0x80 == 0 {
                    return Some(out);
                }
            }
            None
        };
        while !pb.is_empty() {
            let tag = varint(&mut pb)?;
            // Only varint fields are defined; anything else is not a TimeRangeTracker.
            if tag & 7 != 0 {
                return None;
            }
            let value = varint(&mut pb)? as i64;
            match tag >> 3 {
                1 => from = value,
                2 => to = value,
                _ => {}
            }
        }
        return Some((from, to));
    }
    let (a, b) = v.split_at_checked(8)?;
    Some((
        i64::from_be_bytes(a.try_into().ok()?),
        i64::from_be_bytes(b.try_into().ok()?),
    ))
}

/// [`printmeta_value`] for regionkv's own storefiles, whose keys are regionkv keys.
pub fn file_info_value(key: &str, v: &[u8]) -> String {
    printmeta_value(key, v, key_only_string)
}

/// The file info as `KEY -> printed value`, in HBase's order (key bytes ascending).
/// Fields HBase also keeps in its FileInfo print under HBase's key and in HBase's form;
/// the regionkv-only fields (HBase keeps their like in the trailer or the block index, or
/// not at all) print under their own names.
fn file_info_lines(info: &regionkv_storefile::FileInfo) -> BTreeMap<String, String> {
    let mut m = BTreeMap::new();
    let long = |v: i64| v.to_string();
    let key = |k: &Option<Vec<u8>>| {
        k.as_deref()
            .map(key_string)
            .unwrap_or_else(|| "(none)".into())
    };
    // HBase's keys.
    m.insert("hfile.AVG_KEY_LEN".into(), info.avg_key_len.to_string());
    m.insert("hfile.AVG_VALUE_LEN".into(), info.avg_value_len.to_string());
    if let Some(l) = &info.last_key {
        m.insert("hfile.LASTKEY".into(), key_only_string(l));
    }
    if let Some(t) = info.max_tags_len {
        m.insert("hfile.MAX_TAGS_LEN".into(), t.to_string());
    }
    m.insert(
        "BLOOM_FILTER_TYPE".into(),
        info.bloom_type.name().to_string(),
    );
    m.insert(
        "DELETE_FAMILY_COUNT".into(),
        info.delete_family_count.to_string(),
    );
    m.insert("EARLIEST_PUT_TS".into(), long(info.earliest_put_ts));
    m.insert(
        "MAJOR_COMPACTION_KEY".into(),
        info.major_compaction.to_string(),
    );
    m.insert("MAX_SEQ_ID_KEY".into(), info.max_seq_id.to_string());
    m.insert(
        "TIMERANGE".into(),
        format!("{}....{}", info.min_timestamp, info.max_timestamp),
    );
    // regionkv's own.
    m.insert("FIRST_KEY".into(), key(&info.first_key));
    m.insert("ENTRIES".into(), info.cell_count.to_string());
    m.insert("ROWS".into(), info.row_count.to_string());
    m.insert("BLOCKSIZE".into(), info.block_size.to_string());
    m.insert("DELETE_COUNT".into(), info.delete_count.to_string());
    // Entries of the upper layers. The engine stores the creation time under the short
    // name `CREATE_TIME_TS`; it is HBase's `hfile.CREATE_TIME_TS` and prints as such.
    for (k, v) in &info.extra {
        let name = if k == "CREATE_TIME_TS" {
            "hfile.CREATE_TIME_TS"
        } else {
            k.as_str()
        };
        m.insert(name.to_string(), file_info_value(name, v));
    }
    m
}

/// `Some("3.3")` when `path` is an HBase-written HFile that HBase 2.x reads: its last 4
/// bytes are the version (major in the low 3 bytes, minor in the high byte: 3.x, or 2.3
/// and later, whose trailer is protobuf) and its fixed trailer (212 bytes in v2, 4096 in
/// v3) starts with HBase's trailer magic. Such a file goes to HBase's printer; everything
/// else is read as a regionkv storefile.
pub fn hbase_hfile_version(path: &Path) -> Option<String> {
    use std::io::{Read, Seek, SeekFrom};
    let mut f = std::fs::File::open(path).ok()?;
    let len = f.metadata().ok()?.len();
    let mut v = [0u8; 4];
    f.seek(SeekFrom::Start(len.checked_sub(4)?)).ok()?;
    f.read_exact(&mut v).ok()?;
    let v = u32::from_be_bytes(v);
    let (major, minor) = (v & 0x00FF_FFFF, v >> 24);
    let trailer = match (major, minor) {
        (2, 3..) => 212,
        (3, _) => 4096,
        _ => return None,
    };
    let mut magic = [0u8; 8];
    f.seek(SeekFrom::Start(len.checked_sub(trailer)?)).ok()?;
    f.read_exact(&mut magic).ok()?;
    (&magic == b"TRABLK\"$").then(|| format!("{major}.{minor}"))
}

/// Inspects every file of `paths` in turn and writes the report to `out` (and `-k`'s
/// warnings about HBase files to `err`, where HBase prints them); stops at the first file
/// that fails, as HBase's printer does.
pub fn run(
    paths: &[PathBuf],
    opts: &HfileOptions,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<(), HfileError> {
    let mut count = 0u64;
    for p in paths {
        if hbase_hfile_version(p).is_some() {
            if opts.verbose {
                writeln!(out, "Scanning -> {}", p.display())?;
            }
            crate::hfile_hbase::process(p, opts, out, err, &mut count)?;
        } else {
            process(p, opts, out, &mut count)?;
        }
    }
    if opts.verbose || opts.keys || opts.print {
        writeln!(out, "Scanned kv count -> {count}")?;
    }
    Ok(())
}

/// One file; `count` accumulates the cells scanned.
fn process(
    path: &Path,
    opts: &HfileOptions,
    out: &mut dyn Write,
    count: &mut u64,
) -> Result<(), HfileError> {
    if opts.verbose {
        writeln!(out, "Scanning -> {}", path.display())?;
    }
    let reader = Arc::new(StoreFileReader::open(
        &RealFs::new(),
        path,
        0,
        None,
        ReaderOptions::default(),
    )?);
    let t = *reader.trailer();
    let info = reader.file_info().clone();
    // HBase scans before it prints the meta data, so cells and keys come first.
    let stats = if opts.verbose || opts.keys || opts.print || opts.stats || opts.check {
        scan(path, &reader, opts, out, count)?
    } else {
        ScanStats::default()
    };
    if opts.meta {
        writeln!(out, "Trailer:")?;
        writeln!(
            out,
            "    formatVersion={}",
            if t.parted {
                regionkv_storefile::format::FORMAT_VERSION_PARTS
            } else if t.includes_tags {
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
        for (k, v) in file_info_lines(&info) {
            writeln!(out, "    {k} = {v}")?;
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
            let first_part = reader.data_part(h, regionkv_storefile::PartAt::First)?;
            let parts = first_part.parts;
            let block = first_part.data;
            let first = {
                let body = block.body();
                let mut c = regionkv_storefile::block::BlockCursor::new(body).ok();
                c.as_mut()
                    .and_then(|c| c.seek_to_first(body).ok().map(|_| c.key(body).to_vec()))
            };
            writeln!(
                out,
                "    block {}: offset={}, onDiskSize={}, uncompressedSize={}, {}firstKey={}",
                h.first_ordinal,
                h.offset,
                h.size,
                header.uncompressed_len,
                // Format version 3 stores compressed blocks in parts.
                if reader.trailer().parted {
                    format!("parts={parts}, ")
                } else {
                    String::new()
                },
                first.as_deref().map(key_string).unwrap_or_default()
            )?;
            next = reader.next_data_block(h)?;
        }
    }
    // HBase's -h prints each block's header; a regionkv data block's header is its type,
    // codec, encoding and the two lengths.
    if opts.headers {
        writeln!(out, "Block Headers:")?;
        let mut next = reader.data_block_by_ordinal(0)?;
        while let Some(h) = next {
            let header = reader.block_header(h)?;
            writeln!(
                out,
                "    [blockType={}, fileOffset={}, onDiskSize={}, onDiskBodySize={}, \
                 uncompressedSize={}, compression={}, encoding={}]",
                header.block_type.name(),
                h.offset,
                h.size,
                header.on_disk_body_len,
                header.uncompressed_len,
                header.compression.name(),
                header.encoding.name()
            )?;
            next = reader.next_data_block(h)?;
        }
    }
    if opts.stats {
        let st = &stats;
        writeln!(out, "Stats:")?;
        writeln!(out, "    {}", st.keys.line("Key length"))?;
        writeln!(out, "    {}", st.values.line("Val length"))?;
        writeln!(out, "    {}", st.row_bytes.line("Row size (bytes)"))?;
        writeln!(out, "    {}", st.row_cells.line("Row size (columns)"))?;
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
    Ok(())
}

/// What a scan of one file collected for `-s`.
#[derive(Debug, Default)]
struct ScanStats {
    keys: Summary,
    values: Summary,
    row_bytes: Summary,
    row_cells: Summary,
}

/// Reads the cells of one file (those of `-w`'s row only, when given), printing cells or
/// keys and checking the order as asked; adds the cells read to `count`.
fn scan(
    path: &Path,
    reader: &Arc<StoreFileReader>,
    opts: &HfileOptions,
    out: &mut dyn Write,
    count: &mut u64,
) -> Result<ScanStats, HfileError> {
    let mut st = ScanStats::default();
    let mut s = StoreFileScanner::new(reader.clone());
    match &opts.row {
        // HBase seeks to the first cell on the row and stops after its last one.
        Some(row) => {
            let first = regionkv_cell::OwnedKey::first_on_row(row).map_err(|e| {
                HfileError::BadArgument(format!("-w {}: {e}", to_string_binary(row)))
            })?;
            s.seek(&first.view())?;
        }
        None => {
            s.seek_to_first()?;
        }
    }
    let mut prev: Option<Vec<u8>> = None;
    let (mut cur_row, mut cur_bytes, mut cur_cells) = (Vec::new(), 0u64, 0u64);
    while let Some(c) = s.peek() {
        if opts.row.as_deref().is_some_and(|r| c.row() != r) {
            break;
        }
        if opts.print || opts.keys {
            write!(out, "K: {c}")?;
        }
        if opts.print {
            write!(out, " V: {}", to_string_binary(c.value()))?;
            // HFilePrettyPrinter's tag form: ` T[i]: [Tag type : t, value : v]`.
            for (i, t) in regionkv_cell::tag::iter_tags(c.tags()).enumerate() {
                write!(
                    out,
                    " T[{i}]: [Tag type : {}, value : {}]",
                    t.tag_type,
                    to_string_binary(t.value)
                )?;
            }
        }
        if opts.print || opts.keys {
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
        st.keys.add(c.key_bytes().len() as u64);
        st.values.add(c.value().len() as u64);
        if c.row() != cur_row.as_slice() {
            if cur_cells > 0 {
                st.row_bytes.add(cur_bytes);
                st.row_cells.add(cur_cells);
            }
            cur_row = c.row().to_vec();
            (cur_bytes, cur_cells) = (0, 0);
        }
        cur_bytes += (c.key_bytes().len() + c.value().len()) as u64;
        cur_cells += 1;
        *count += 1;
        prev = Some(c.key_bytes().to_vec());
        s.advance()?;
    }
    if cur_cells > 0 {
        st.row_bytes.add(cur_bytes);
        st.row_cells.add(cur_cells);
    }
    Ok(st)
}
