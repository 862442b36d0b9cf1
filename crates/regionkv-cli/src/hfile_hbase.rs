//! `regionkv hfile` for the HFiles HBase writes (v3, and v2.3+): what HBase 2.4's
//! `HFilePrettyPrinter` prints for them, flag by flag, read with `regionkv-hfile`.
//!
//! The text is HBase's: cells through `KeyValue.toString`, index keys through
//! `KeyOnlyKeyValue.toString`, the first, last and mid keys through
//! `CellUtil.getCellKeyAsString`, the reader and the trailer through their `toString`
//! split by `asSeparateLines`, FileInfo values by `printMeta`'s rules, the block index by
//! `BlockIndexReader.toString`, block headers by `HFileBlock.toString`, statistics by
//! `KeyValueStatsCollector` (`hfile_hbase_stats.rs`). Where HBase prints a figure of its
//! JVM, the figure is the one HBase computes on a 64-bit JVM with compressed oops (see
//! [`index_heap_size`]); where it prints what no other process can reproduce (an object's
//! identity hash, a random sample) the comment at that place says what is printed instead.
//!
//! As in HBase, the flags choose what is printed, in HBase's order: cells or keys (`-p`,
//! `-e`, with `-w` one row), then meta (`-m`), the block index (`-b`), block headers
//! (`-h`), statistics (`-s`). `-k` warnings go to standard error and do not fail the run,
//! as HBase's do. Damage is an error naming the file and the offset.

use std::cmp::Ordering;
use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use regionkv_cell::bytes::to_string_binary;
use regionkv_fs::{Fs, ReadableFile, RealFs};
use regionkv_hfile::block::{BlockType, HEADER_SIZE};
use regionkv_hfile::file_info::keys;
use regionkv_hfile::index::IndexEntry;
use regionkv_hfile::key::{KeyRef, TYPE_MAXIMUM, type_name};
use regionkv_hfile::{Compression, HFileCell, HFileReader, Trailer};

use crate::hfile::{HfileError, HfileOptions, printmeta_value};
use crate::hfile_hbase_stats::StatsCollector;

const FOUR_SPACES: &str = "    ";

/// `CacheConfig.DISABLED.toString()` in HBase 2.4 (the printer opens files with
/// `CacheConfig.DISABLED`; HBase 2.2 dropped the `CacheConfig:disabled` form, and 2.4's
/// `toString` lists the flags, all false for the disabled configuration).
const CACHE_CONF: &str = "cacheDataOnRead=false, cacheDataOnWrite=false, \
cacheIndexesOnWrite=false, cacheBloomsOnWrite=false, cacheEvictOnClose=false, \
cacheDataCompressed=false, prefetchOnOpen=false";

/// `HConstants.DEFAULT_BLOCKSIZE`: the block size a reader's `HFileContext` carries (a
/// reader does not learn the writer's).
const DEFAULT_BLOCKSIZE: u32 = 64 * 1024;

// ---------------------------------------------------------------------------------------
// Keys and cells as HBase prints them.

/// `KeyValue.humanReadableTimestamp`.
fn human_ts(ts: i64) -> String {
    match ts {
        i64::MAX => "LATEST_TIMESTAMP".into(),
        i64::MIN => "OLDEST_TIMESTAMP".into(),
        t => t.to_string(),
    }
}

/// `KeyValue.keyToString`: `row/family:qualifier/timestamp/Type`, the colon only after a
/// non-empty family (so HBase prints `row//LATEST_TIMESTAMP/Put` for an empty column).
pub(crate) fn key_string(key: &[u8]) -> String {
    match KeyRef::parse(key) {
        Some(k) => format!(
            "{}/{}{}{}/{}/{}",
            to_string_binary(k.row),
            to_string_binary(k.family),
            if k.family.is_empty() { "" } else { ":" },
            to_string_binary(k.qualifier),
            human_ts(k.timestamp),
            type_name(k.type_byte)
        ),
        None => to_string_binary(key),
    }
}

/// `KeyValue.KeyOnlyKeyValue.toString`: index keys and `hfile.LASTKEY`.
pub(crate) fn key_only_string(key: &[u8]) -> String {
    format!("{}/vlen=0/mvcc=0", key_string(key))
}

/// `CellUtil.getCellKeyAsString` of a key-only cell (no value length; sequence id 0).
fn key_only_cell_key(key: &[u8]) -> String {
    format!("{}/seqid=0", key_string(key))
}

/// `KeyValue.toString`, which is also `CellUtil.getCellKeyAsString` of a cell read from a
/// file: the key, the value length, the MVCC timestamp as sequence id.
fn cell_string(c: &HFileCell) -> String {
    format!(
        "{}/vlen={}/seqid={}",
        key_string(&c.key),
        c.value.len(),
        c.mvcc
    )
}

/// `Optional.toString`.
fn optional(s: Option<String>) -> String {
    match s {
        Some(v) => format!("Optional[{v}]"),
        None => "Optional.empty".into(),
    }
}

/// HBase's `asSeparateLines`: `replaceAll(", ([a-zA-Z]+=)", ",\n    $1")`.
fn as_separate_lines(s: &str) -> String {
    static RE: std::sync::OnceLock<Option<regex::Regex>> = std::sync::OnceLock::new();
    match RE.get_or_init(|| regex::Regex::new(", ([a-zA-Z]+=)").ok()) {
        Some(re) => re.replace_all(s, ",\n    $1").into_owned(),
        None => s.to_string(),
    }
}

// ---------------------------------------------------------------------------------------
// The trailer and the reader.

/// The class name HBase 2.4 keeps for the trailer's comparator: `FixedFileTrailer` maps
/// HBase 1's names (which HBase 2 still writes) to the class it loads, and prints that
/// class's name. A class HBase cannot load makes HBase fail; its name is printed as
/// stored, which is what HBase prints when the class is on its class path (Hudi's
/// comparator in Hudi's files).
fn comparator_class(stored: &str) -> &str {
    match stored {
        "org.apache.hadoop.hbase.KeyValue$KVComparator"
        | "org.apache.hadoop.hbase.KeyValue$KeyComparator" => {
            "org.apache.hadoop.hbase.CellComparatorImpl"
        }
        "org.apache.hadoop.hbase.KeyValue$MetaComparator"
        | "org.apache.hadoop.hbase.KeyValue$MetaKeyComparator" => {
            "org.apache.hadoop.hbase.MetaCellComparator"
        }
        "" => "org.apache.hadoop.hbase.CellComparatorImpl",
        other => other,
    }
}

/// Java's enum name of a codec (`Compression.Algorithm.name()`).
fn codec_enum_name(c: Compression) -> String {
    c.name().to_ascii_uppercase()
}

/// `FixedFileTrailer.toString`; fields the protobuf lacks print as the Java defaults.
fn trailer_string(t: &Trailer) -> String {
    let p = &t.proto;
    // Protobuf's uint64 holds Java's long, -1 included.
    let long = |v: Option<u64>, default: i64| v.map_or(default, |v| v as i64);
    let int = |v: Option<u32>| v.map_or(0, |v| v as i32);
    let mut parts = vec![
        format!("fileinfoOffset={}", long(p.file_info_offset, 0)),
        format!(
            "loadOnOpenDataOffset={}",
            long(p.load_on_open_data_offset, 0)
        ),
        format!("dataIndexCount={}", int(p.data_index_count)),
        format!("metaIndexCount={}", int(p.meta_index_count)),
        // [sic]: HBase's spelling.
        format!(
            "totalUncomressedBytes={}",
            long(p.total_uncompressed_bytes, 0)
        ),
        format!("entryCount={}", long(p.entry_count, 0)),
        format!("compressionCodec={}", codec_enum_name(t.compression)),
        format!(
            "uncompressedDataIndexSize={}",
            long(p.uncompressed_data_index_size, 0)
        ),
        format!("numDataIndexLevels={}", int(p.num_data_index_levels)),
        format!(
            "firstDataBlockOffset={}",
            long(p.first_data_block_offset, -1)
        ),
        format!("lastDataBlockOffset={}", long(p.last_data_block_offset, 0)),
        format!(
            "comparatorClassName={}",
            comparator_class(p.comparator_class_name.as_deref().unwrap_or(""))
        ),
    ];
    if t.major >= 3 {
        // Encrypted files are refused before this point.
        parts.push("encryptionKey=NONE".into());
    }
    parts.push(format!("majorVersion={}", t.major));
    parts.push(format!("minorVersion={}", t.minor));
    parts.join(", ")
}

/// `HFileReaderImpl.toString` (the file info is always loaded by then).
fn reader_string(path: &Path, r: &HFileReader) -> String {
    let root = r.data_index_root();
    let first = root.first().map(|e| key_only_cell_key(&e.key));
    // getLastKey is empty for an empty index, whatever FileInfo holds.
    let last = if root.is_empty() {
        None
    } else {
        r.last_key().map(key_only_cell_key)
    };
    let info = r.file_info();
    format!(
        "reader={}, compression={}, cacheConf={CACHE_CONF}, firstKey={}, lastKey={}, \
         avgKeyLen={}, avgValueLen={}, entries={}, length={}",
        path.display(),
        r.trailer().compression.name(),
        optional(first),
        optional(last),
        info.get_i32(keys::AVG_KEY_LEN).unwrap_or(-1),
        info.get_i32(keys::AVG_VALUE_LEN).unwrap_or(-1),
        r.trailer().entry_count() as i64,
        r.len()
    )
}

// ---------------------------------------------------------------------------------------
// "Block index size as per heapsize": HBase's ClassSize arithmetic.

/// `ClassSize` on a 64-bit HotSpot JVM with compressed oops (any heap under 32 GB, the
/// common case) and HBase's default `UnsafeLayout`: object header 12 bytes, reference 4,
/// array header 16, everything 8-aligned.
mod class_size {
    pub const REFERENCE: u64 = 4;
    pub const OBJECT: u64 = 12;
    pub const ARRAY: u64 = 16;
    pub const fn align(n: u64) -> u64 {
        (n + 7) & !7
    }
    /// `KeyValue.FIXED_OVERHEAD`: header, the array reference, offset and length, the
    /// sequence id.
    pub const KEY_VALUE_FIXED_OVERHEAD: u64 = OBJECT + REFERENCE + 2 * 4 + 8;
}

/// `HFileReaderImpl.indexSize()`: the heap size of the data index reader
/// (`CellBasedKeyBlockIndexReader`, keys held as `KeyOnlyKeyValue`s) plus the meta index
/// reader (`ByteArrayKeyBlockIndexReader`, keys as byte arrays), each
/// `BlockIndexReader.heapSize()`.
fn index_heap_size(data: &[IndexEntry], meta: &[IndexEntry]) -> u64 {
    use class_size::*;
    let n = |e: &[IndexEntry]| e.len() as u64;
    // BlockIndexReader's own fields, and the 16 bytes of mid-key metadata.
    let base = align(3 * REFERENCE + 2 * 4 + OBJECT) + 16;
    let arrays = |count: u64| align(ARRAY + count * 8) + align(ARRAY + count * 4);
    // KeyOnlyKeyValue.heapSize(): KeyValue's (the fixed part and the whole key array, its
    // offset being 0) plus the short row length, then aligned again by the caller.
    let key_value =
        |key: &[u8]| align(align(KEY_VALUE_FIXED_OVERHEAD) + align(ARRAY + key.len() as u64) + 2);
    let data_keys = REFERENCE
        + align(ARRAY + n(data) * REFERENCE)
        + data.iter().map(|e| key_value(&e.key)).sum::<u64>()
        // The comparator and the mid-key AtomicReference.
        + 2 * REFERENCE;
    let meta_keys = REFERENCE
        + align(ARRAY + n(meta) * REFERENCE)
        + meta
            .iter()
            .map(|e| align(ARRAY + e.key.len() as u64))
            .sum::<u64>();
    align(base + data_keys + arrays(n(data))) + align(base + meta_keys + arrays(n(meta)))
}

// ---------------------------------------------------------------------------------------
// Bloom filters.

/// `CompoundBloomFilter.toString` of a Bloom meta block's payload, or why it cannot be
/// read. HBase builds the filter with `BloomFilterFactory.createFromMeta`: a version (3),
/// total byte size, hash count, hash type, key count, maximum keys, chunk count and the
/// comparator's class name (a Hadoop vint length and bytes; empty for ROW Blooms).
fn bloom_string(payload: &[u8]) -> Result<String, String> {
    let mut pos = 0usize;
    let mut take = |n: usize| -> Result<&[u8], String> {
        let s = payload
            .get(pos..pos + n)
            .ok_or_else(|| format!("Bloom meta cut short at byte {pos}"))?;
        pos += n;
        Ok(s)
    };
    let i32_at = |b: &[u8]| i32::from_be_bytes([b[0], b[1], b[2], b[3]]);
    let i64_at = |b: &[u8]| {
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        i64::from_be_bytes(a)
    };
    let version = i32_at(take(4)?);
    if version != 3 {
        return Err(format!("Bad bloom filter format version {version}"));
    }
    let byte_size = i64_at(take(8)?);
    let _hash_count = i32_at(take(4)?);
    let _hash_type = i32_at(take(4)?);
    let keys = i64_at(take(8)?);
    let max_keys = i64_at(take(8)?);
    let chunks = i32_at(take(4)?);
    let rest = payload.get(pos..).unwrap_or_default();
    let (len, n) = regionkv_hfile::varint::read_vlong(rest)
        .ok_or_else(|| format!("Bloom comparator name cut short at byte {pos}"))?;
    let name = usize::try_from(len)
        .ok()
        .and_then(|len| rest.get(n..n + len))
        .ok_or_else(|| format!("Bloom comparator name cut short at byte {pos}"))?;
    let comparator = if name.is_empty() {
        // Bytes.BYTES_RAWCOMPARATOR.
        "ByteArrayComparator".to_string()
    } else {
        // Class.getSimpleName of the comparator HBase instantiates.
        let class = comparator_class(&String::from_utf8_lossy(name)).to_string();
        class
            .rsplit(['.', '$'])
            .next()
            .unwrap_or(&class)
            .to_string()
    };
    // BloomFilterUtil.formatStats, records joined by STATS_RECORD_SEP ("; ").
    let mut s = format!(
        "BloomSize: {byte_size}; No of Keys in bloom: {keys}; Max Keys for bloom: {max_keys}"
    );
    if max_keys > 0 {
        s.push_str(&format!(
            "; Percentage filled: {}",
            java_percent(keys as f64 / max_keys as f64)
        ));
    }
    s.push_str(&format!(
        "; Number of chunks: {chunks}; Comparator: {comparator}"
    ));
    Ok(s)
}

/// `NumberFormat.getPercentInstance().format(x)` in an English locale: x × 100 rounded
/// half to even to a whole number, grouped by thousands, and `%`.
fn java_percent(x: f64) -> String {
    let pct = (x * 100.0).round_ties_even();
    let digits = format!("{}", pct.abs() as u64);
    let mut grouped = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(c);
    }
    format!("{}{grouped}%", if pct < 0.0 { "-" } else { "" })
}

/// The `Bloom filter:` or `Delete Family Bloom filter:` section for the load-on-open block
/// of type `t`.
fn print_bloom(
    r: &HFileReader,
    t: BlockType,
    title: &str,
    out: &mut dyn Write,
) -> Result<(), HfileError> {
    writeln!(out, "{title}")?;
    match r
        .load_on_open_blocks()
        .iter()
        .find(|b| b.header.block_type == t)
    {
        None => writeln!(out, "{FOUR_SPACES}Not present")?,
        Some(b) => {
            let block = r.read_block(b.offset, Some(b.header.on_disk_size()))?;
            let text = bloom_string(&block.payload).map_err(|reason| {
                HfileError::HFile(regionkv_hfile::Error::Corrupt {
                    path: r.path().to_path_buf(),
                    offset: b.offset,
                    reason,
                })
            })?;
            writeln!(
                out,
                "{FOUR_SPACES}{}",
                text.replace("; ", &format!("\n{FOUR_SPACES}"))
            )?;
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// The sections.

/// `printMeta`.
fn print_meta(path: &Path, r: &HFileReader, out: &mut dyn Write) -> Result<(), HfileError> {
    writeln!(
        out,
        "Block index size as per heapsize: {}",
        index_heap_size(r.data_index_root(), r.meta_index())
    )?;
    writeln!(out, "{}", as_separate_lines(&reader_string(path, r)))?;
    writeln!(
        out,
        "Trailer:\n{FOUR_SPACES}{}",
        as_separate_lines(&trailer_string(r.trailer()))
    )?;
    writeln!(out, "Fileinfo:")?;
    for (k, v) in &r.file_info().entries {
        let key = String::from_utf8_lossy(k);
        writeln!(
            out,
            "{FOUR_SPACES}{key} = {}",
            printmeta_value(&key, v, key_only_string)
        )?;
    }
    // HBase catches the exception of an empty index (or an unreadable leaf) and says so.
    match r.mid_key() {
        Ok(Some(k)) => writeln!(out, "Mid-key: {}", optional(Some(key_only_cell_key(&k))))?,
        Ok(None) | Err(_) => writeln!(out, "Unable to retrieve the midkey")?,
    }
    print_bloom(r, BlockType::GeneralBloomMeta, "Bloom filter:", out)?;
    print_bloom(
        r,
        BlockType::DeleteFamilyBloomMeta,
        "Delete Family Bloom filter:",
        out,
    )?;
    Ok(())
}

/// `-b`: `Block Index:` and `BlockIndexReader.toString` of the root level (then the
/// `println`'s own newline).
fn print_block_index(r: &HFileReader, out: &mut dyn Write) -> Result<(), HfileError> {
    writeln!(out, "Block Index:")?;
    let root = r.data_index_root();
    writeln!(out, "size={}", root.len())?;
    for e in root {
        writeln!(out, "key={}", key_only_string(&e.key))?;
        writeln!(out, "  offset={}, dataSize={}", e.offset, e.on_disk_size)?;
    }
    writeln!(out)?;
    Ok(())
}

/// `-h`: `Block Headers:` and `HFileBlock.toString` of every block from the first data
/// block to the last one (inline leaf index and Bloom chunks between them included, as
/// HBase's loop reads them), as `HFileReaderImpl.readBlock` returns them: unpacked into a
/// heap buffer.
///
/// Two parts describe the JVM's objects rather than the file, and are printed as HBase's
/// reader leaves them: `buf=[SingleByteBuff[pos=0, lim=…, cap= …]]` (a stored block is read
/// into a buffer one header longer than the block, to peek at the next header; a compressed
/// one is decompressed into a buffer of header, payload and checksum space) and
/// `cellComparator=`, where HBase prints `CellComparatorImpl@` and the object's identity
/// hash, which no other process can reproduce: the class name alone is printed.
fn print_block_headers(
    file: &dyn ReadableFile,
    r: &HFileReader,
    out: &mut dyn Write,
) -> Result<(), HfileError> {
    writeln!(out, "Block Headers:")?;
    let t = r.trailer();
    // An empty file has no data block (HBase would try to read offset -1 and fail).
    let (Some(mut offset), Some(last)) = (t.first_data_block_offset(), t.last_data_block_offset())
    else {
        return Ok(());
    };
    let info = r.file_info();
    let includes_tags = r.includes_tags();
    let compress_tags = includes_tags && info.get_bool(keys::TAGS_COMPRESSED) == Some(true);
    let name = r
        .path()
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let comparator = comparator_class(t.comparator());
    let compressed = t.compression != Compression::None;
    while offset <= last {
        let block = r.read_block(offset, None)?;
        let h = &block.header;
        let on_disk_with_header = h.on_disk_size();
        let checksum_bytes = if h.bytes_per_checksum == 0 {
            0
        } else {
            4 * h.checksum_chunks()
        };
        let unpacked_len =
            HEADER_SIZE as u64 + u64::from(h.uncompressed_size_without_header) + checksum_bytes;
        let (lim, cap) = if compressed {
            (unpacked_len, unpacked_len)
        } else {
            (
                on_disk_with_header,
                on_disk_with_header + HEADER_SIZE as u64,
            )
        };
        // The first 32 bytes after the header within the buffer's limit: the payload, then
        // (a short payload) the stored checksums, or the zeroed checksum space of a
        // decompressed buffer.
        let mut begin = block.payload.clone();
        begin.truncate(32);
        if begin.len() < 32 {
            let extra = if compressed {
                vec![0u8; checksum_bytes as usize]
            } else {
                file.read_to_vec(
                    offset + u64::from(h.on_disk_data_size_with_header),
                    checksum_bytes as usize,
                )?
            };
            begin.extend_from_slice(&extra);
            begin.truncate(32);
        }
        let is_unpacked = lim == unpacked_len || lim == unpacked_len + HEADER_SIZE as u64;
        let next = offset + on_disk_with_header;
        // The peeked next header's on-disk size, when a whole header follows.
        let next_size = if next + HEADER_SIZE as u64 <= file.len() {
            let mut b = [0u8; 4];
            file.read_at(next + 8, &mut b)?;
            i64::from(i32::from_be_bytes(b)) + HEADER_SIZE as i64
        } else {
            -1
        };
        writeln!(
            out,
            "[blockType={}, fileOffset={offset}, headerSize={HEADER_SIZE}, \
             onDiskSizeWithoutHeader={}, uncompressedSizeWithoutHeader={}, \
             prevBlockOffset={}, isUseHBaseChecksum=true, checksumType={}, \
             bytesPerChecksum={}, onDiskDataSizeWithHeader={}, getOnDiskSizeWithHeader={}, \
             totalChecksumBytes={checksum_bytes}, isUnpacked={is_unpacked}, \
             buf=[SingleByteBuff[pos=0, lim={lim}, cap= {cap}]], dataBeginsWith={}, \
             fileContext=[usesHBaseChecksum=true, checksumType={}, bytesPerChecksum={}, \
             blocksize={DEFAULT_BLOCKSIZE}, encoding=NONE, includesMvcc={}, \
             includesTags={includes_tags}, compressAlgo={}, compressTags={compress_tags}, \
             cryptoContext=[cipher=NONE keyHash=NONE], name={name}, \
             cellComparator={comparator}], nextBlockOnDiskSize={next_size}]",
            h.block_type.name(),
            h.on_disk_size_without_header,
            h.uncompressed_size_without_header,
            h.prev_block_offset,
            h.checksum_type.name(),
            h.bytes_per_checksum,
            h.on_disk_data_size_with_header,
            on_disk_with_header,
            to_string_binary(&begin),
            h.checksum_type.name(),
            h.bytes_per_checksum,
            r.includes_mvcc(),
            codec_enum_name(t.compression),
        )?;
        offset = next;
    }
    Ok(())
}

/// HBase's first key on `row` (`PrivateCellUtil.createFirstOnRow`): empty family and
/// qualifier, the latest timestamp, type Maximum; `None` for a row too long for a key.
fn first_on_row(row: &[u8]) -> Option<Vec<u8>> {
    KeyRef {
        row,
        family: b"",
        qualifier: b"",
        timestamp: i64::MAX,
        type_byte: TYPE_MAXIMUM,
    }
    .to_vec()
}

/// The scan of `processFile`: positions as HBase does (`-w`: the first cell of the row,
/// unless the row sorts before the file's first row, when HBase's `seekTo` answers -1 and
/// nothing is read), then prints, checks and counts the cells of the row (all cells
/// without `-w`).
#[allow(clippy::too_many_arguments)]
fn scan(
    path: &Path,
    r: &HFileReader,
    opts: &HfileOptions,
    stats: &mut StatsCollector,
    out: &mut dyn Write,
    err: &mut dyn Write,
    count: &mut u64,
) -> Result<(), HfileError> {
    let mut scanner = r.scanner();
    let first_row = r
        .data_index_root()
        .first()
        .and_then(|e| KeyRef::parse(&e.key))
        .map(|k| k.row.to_vec());
    let Some(first_row) = first_row else {
        // No data block: seekTo() is false, and so is any seekTo(key).
        return Ok(());
    };
    if let Some(row) = &opts.row
        && *row != first_row
    {
        match first_on_row(row) {
            Some(key) if row.as_slice() > first_row.as_slice() => scanner.seek(&key)?,
            _ => return Ok(()),
        }
    }
    let print_key = opts.keys || opts.print;
    let mut prev: Option<HFileCell> = None;
    while let Some(c) = scanner.next_cell()? {
        let Some(k) = c.key_ref() else { continue };
        if let Some(row) = &opts.row {
            match k.row.cmp(row.as_slice()) {
                Ordering::Greater => break,
                Ordering::Less => continue,
                Ordering::Equal => {}
            }
        }
        if opts.stats {
            let tags = if c.tags.is_empty() {
                0
            } else {
                2 + c.tags.len()
            };
            stats.collect(
                k.row,
                c.key.len(),
                c.value.len(),
                8 + c.key.len() + c.value.len() + tags,
            );
        }
        if print_key {
            write!(out, "K: {}", cell_string(&c))?;
            if opts.print {
                write!(out, " V: {}", to_string_binary(&c.value))?;
                // Tag.toString of each tag, numbered.
                for (i, t) in regionkv_cell::tag::iter_tags(&c.tags).enumerate() {
                    write!(
                        out,
                        " T[{i}]: [Tag type : {}, value : {}]",
                        t.tag_type,
                        to_string_binary(t.value)
                    )?;
                }
            }
            writeln!(out)?;
        }
        if opts.check
            && let Some(p) = &prev
            && p.key_ref().is_some_and(|pk| pk.row > k.row)
        {
            writeln!(
                err,
                "WARNING, previous row is greater then current row\n\tfilename -> {}\n\tprevious -> {}\n\tcurrent  -> {}",
                path.display(),
                cell_string(p),
                cell_string(&c)
            )?;
        }
        prev = Some(c);
        *count += 1;
    }
    Ok(())
}

/// One HBase HFile: HBase's `processFile`.
pub(crate) fn process(
    path: &Path,
    opts: &HfileOptions,
    out: &mut dyn Write,
    err: &mut dyn Write,
    count: &mut u64,
) -> Result<(), HfileError> {
    let file: Arc<dyn ReadableFile> = RealFs::new().open_read(path)?;
    let reader = HFileReader::open(Arc::clone(&file))?;
    let mut stats = StatsCollector::default();
    if opts.verbose || opts.keys || opts.print || opts.stats || opts.check {
        scan(path, &reader, opts, &mut stats, out, err, count)?;
    }
    if opts.meta {
        print_meta(path, &reader, out)?;
    }
    if opts.blocks {
        print_block_index(&reader, out)?;
    }
    if opts.headers {
        print_block_headers(file.as_ref(), &reader, out)?;
    }
    if opts.stats {
        stats.finish();
        writeln!(out, "Stats:\n{}", stats.report())?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(row: &[u8], family: &[u8], qualifier: &[u8], ts: i64, t: u8) -> Vec<u8> {
        KeyRef {
            row,
            family,
            qualifier,
            timestamp: ts,
            type_byte: t,
        }
        .to_vec()
        .unwrap_or_default()
    }

    #[test]
    fn keys_print_as_key_value_to_string() {
        assert_eq!(
            key_only_string(&key(b"r\x01", b"", b"", i64::MAX, 4)),
            "r\\x01//LATEST_TIMESTAMP/Put/vlen=0/mvcc=0"
        );
        assert_eq!(
            key_string(&key(b"r", b"cf", b"q", 5, 14)),
            "r/cf:q/5/DeleteFamily"
        );
        // No family, so no colon: the qualifier follows the row's slash directly.
        assert_eq!(
            key_only_cell_key(&key(b"r", b"", b"q", i64::MIN, 255)),
            "r/q/OLDEST_TIMESTAMP/Maximum/seqid=0"
        );
    }

    #[test]
    fn separate_lines_split_before_each_named_field() {
        assert_eq!(
            as_separate_lines("a=1, bB=2, 3, c_d=4, e=5"),
            "a=1,\n    bB=2, 3, c_d=4,\n    e=5"
        );
    }

    #[test]
    fn index_heap_size_follows_class_size() {
        // One 30-byte data key: 48 + 4 + 24 + (32 + 48 + 8) + 8 + 24 + 24 = 220 -> 224.
        // One 11-byte meta key: 48 + 4 + 24 + 32 + 24 + 24 = 156 -> 160.
        let e = |len: usize| IndexEntry {
            offset: 0,
            on_disk_size: 0,
            key: vec![0; len],
        };
        assert_eq!(index_heap_size(&[e(30)], &[e(11)]), 224 + 160);
        // Empty indexes: 48 + 4 + 16 + 8 + 16 + 16 = 108 -> 112; 48 + 4 + 16 + 32 = 100 -> 104.
        assert_eq!(index_heap_size(&[], &[]), 112 + 104);
    }

    #[test]
    fn bloom_meta_prints_as_compound_bloom_filter() {
        let mut p = Vec::new();
        p.extend_from_slice(&3i32.to_be_bytes());
        p.extend_from_slice(&1024i64.to_be_bytes());
        p.extend_from_slice(&5i32.to_be_bytes());
        p.extend_from_slice(&1i32.to_be_bytes());
        p.extend_from_slice(&300i64.to_be_bytes());
        p.extend_from_slice(&1000i64.to_be_bytes());
        p.extend_from_slice(&2i32.to_be_bytes());
        let name = b"org.apache.hadoop.hbase.KeyValue$KVComparator";
        p.push(name.len() as u8);
        p.extend_from_slice(name);
        assert_eq!(
            bloom_string(&p).as_deref(),
            Ok(
                "BloomSize: 1024; No of Keys in bloom: 300; Max Keys for bloom: 1000; \
                 Percentage filled: 30%; Number of chunks: 2; Comparator: CellComparatorImpl"
            )
        );
        assert!(bloom_string(&p[..20]).is_err());
        assert_eq!(java_percent(0.125), "12%");
        assert_eq!(java_percent(12.5), "1,250%");
    }
}
