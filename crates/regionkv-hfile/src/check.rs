//! The structural checker: walks an HFile as HBase's reader and bulk load would, and checks
//! every rule they depend on, so a file regionkv writes for HBase (`export-hfiles`) is known
//! to load before it leaves the machine. [`check`] returns the file's [`Structure`] (block
//! sequence, index shape, FileInfo keys, Blooms), which tests compare with the structure of
//! the real HBase fixtures.
//!
//! What it checks, beyond what opening and scanning already verify (trailer protobuf, block
//! headers, checksum chunks, decompression, FileInfo protobuf):
//! - blocks tile the file from offset 0 to the trailer, each type's previous-block offset
//!   chain is right, scanned blocks (data, leaf index, Bloom chunks) come before the
//!   non-scanned ones, and the load-on-open section is data root index, meta root index,
//!   FileInfo, then Bloom metas (the trailer's offsets pointing at them);
//! - the trailer's counts: entries, first and last data block, root entries, index levels
//!   (leaf blocks iff more than one level, intermediate blocks iff more than two), the
//!   uncompressed index size and HBase's `totalUncompressedBytes`;
//! - the data index, every level followed, lists exactly the data blocks in order, each
//!   entry's key after the previous block's last key and not after its block's first key;
//! - cells in HBase's key order, one family per file, the count, `hfile.LASTKEY`, the
//!   average lengths, the MVCC and tags flags and maxima;
//! - each Bloom filter: its chunks are Bloom chunk blocks whose sizes add up to the meta's
//!   total, and it holds every row (ROW) or row and column (ROWCOL) of the file — a Bloom
//!   that misses a key of its file makes HBase skip the file on a read.

use std::collections::HashMap;

use regionkv_cell::CellType;

use crate::block::{BlockType, HEADER_SIZE};
use crate::bloom::{BloomMeta, row_col_hash_key};
use crate::error::{Error, Result, corrupt};
use crate::file_info::keys;
use crate::index::IndexEntry;
use crate::key::{KeyRef, compare_encoded, key_to_string};
use crate::reader::HFileReader;
use crate::trailer::{KV_COMPARATOR, TRAILER_SIZE_V3};

/// One block met walking the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockSummary {
    /// Where it starts.
    pub offset: u64,
    /// Its type.
    pub block_type: BlockType,
    /// Header plus stored payload plus checksums.
    pub on_disk_size: u64,
    /// The payload's uncompressed size.
    pub uncompressed_size: u32,
}

/// What a checked file is made of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Structure {
    /// Every block, in file order.
    pub blocks: Vec<BlockSummary>,
    /// Cells.
    pub cells: u64,
    /// Data index levels.
    pub index_levels: u32,
    /// FileInfo keys, in order.
    pub file_info_keys: Vec<String>,
    /// The general Bloom's type (`BLOOM_FILTER_TYPE`) and chunk count.
    pub general_bloom: Option<(String, usize)>,
    /// The delete-family Bloom's chunk count.
    pub delete_family_bloom: Option<usize>,
    /// The single family of the file's cells (`None`: no cells).
    pub family: Option<Vec<u8>>,
}

impl Structure {
    /// The block types in file order, runs collapsed (`DATA×3 LEAF_INDEX DATA ...`): the
    /// shape to compare between files.
    pub fn shape(&self) -> String {
        let mut out: Vec<(BlockType, usize)> = Vec::new();
        for b in &self.blocks {
            match out.last_mut() {
                Some((t, n)) if *t == b.block_type => *n += 1,
                _ => out.push((b.block_type, 1)),
            }
        }
        out.iter()
            .map(|(t, n)| {
                if *n == 1 {
                    t.name().to_string()
                } else {
                    format!("{}x{n}", t.name())
                }
            })
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// Checks `reader`'s file (see the module documentation) and returns its structure.
pub fn check(reader: &HFileReader) -> Result<Structure> {
    let path = reader.path().to_path_buf();
    let bad = |offset: u64, reason: String| corrupt(&path, offset, reason);
    let trailer = reader.trailer();
    let t = &trailer.proto;
    if trailer.major != 3 {
        return Err(bad(
            trailer.offset,
            format!("major version {}, HBase 2 writes 3", trailer.major),
        ));
    }
    if trailer.comparator() != KV_COMPARATOR {
        return Err(bad(
            trailer.offset,
            format!(
                "comparator {:?}, HBase's reader expects {KV_COMPARATOR}",
                trailer.comparator()
            ),
        ));
    }
    if t.encryption_key.is_some() {
        return Err(bad(
            trailer.offset,
            "an encryption key (HBase would try to unwrap it)".into(),
        ));
    }

    // Walk every block from 0 to the trailer.
    let mut blocks = Vec::new();
    let mut prev_by_type: HashMap<BlockType, i64> = HashMap::new();
    let mut offset = 0u64;
    while offset < trailer.offset {
        // Data blocks are read whole (checksums, payload) once, with their cells below.
        let header = reader.read_header(offset)?;
        let h = if header.block_type == BlockType::Data {
            header
        } else {
            reader.read_block(offset, None)?.header
        };
        let h = &h;
        let expected_prev = prev_by_type
            .insert(h.block_type, offset as i64)
            .unwrap_or(-1);
        if h.prev_block_offset != expected_prev {
            return Err(bad(
                offset,
                format!(
                    "{} block's previous-block offset is {}, the previous {} block is at {expected_prev}",
                    h.block_type.name(),
                    h.prev_block_offset,
                    h.block_type.name()
                ),
            ));
        }
        blocks.push(BlockSummary {
            offset,
            block_type: h.block_type,
            on_disk_size: h.on_disk_size(),
            uncompressed_size: h.uncompressed_size_without_header,
        });
        offset += h.on_disk_size();
    }
    if offset != trailer.offset {
        return Err(bad(
            offset,
            format!(
                "the last block ends at {offset}, the trailer starts at {}",
                trailer.offset
            ),
        ));
    }

    // Sections: scanned blocks, then the rest, then the load-on-open section.
    let scanned = |t: BlockType| {
        matches!(
            t,
            BlockType::Data | BlockType::LeafIndex | BlockType::BloomChunk
        )
    };
    let first_unscanned = blocks
        .iter()
        .position(|b| !scanned(b.block_type))
        .unwrap_or(blocks.len());
    if let Some(b) = blocks[first_unscanned..]
        .iter()
        .find(|b| scanned(b.block_type))
    {
        return Err(bad(
            b.offset,
            format!("a {} block after the scanned section", b.block_type.name()),
        ));
    }
    let loo = trailer.load_on_open_offset();
    let Some(loo_at) = blocks.iter().position(|b| b.offset == loo) else {
        return Err(bad(
            loo,
            "the load-on-open offset is not a block's start".into(),
        ));
    };
    let loo_types: Vec<BlockType> = blocks[loo_at..].iter().map(|b| b.block_type).collect();
    let ok_loo = loo_types.len() >= 3
        && loo_types[0] == BlockType::RootIndex
        && loo_types[1] == BlockType::RootIndex
        && loo_types[2] == BlockType::FileInfo
        && loo_types[3..].iter().all(|t| {
            matches!(
                t,
                BlockType::GeneralBloomMeta | BlockType::DeleteFamilyBloomMeta
            )
        });
    if !ok_loo {
        let names: Vec<&str> = loo_types.iter().map(|t| t.name()).collect();
        return Err(bad(
            loo,
            format!(
                "load-on-open section {names:?}, HBase reads ROOT_INDEX, ROOT_INDEX, FILE_INFO, Bloom metas"
            ),
        ));
    }
    if t.file_info_offset != Some(blocks[loo_at + 2].offset) {
        return Err(bad(
            trailer.offset,
            format!(
                "the trailer's FileInfo offset {:?} is not the FILE_INFO block at {}",
                t.file_info_offset,
                blocks[loo_at + 2].offset
            ),
        ));
    }
    if let Some(b) = blocks[first_unscanned..loo_at]
        .iter()
        .find(|b| !matches!(b.block_type, BlockType::Meta | BlockType::IntermediateIndex))
    {
        return Err(bad(
            b.offset,
            format!(
                "a {} block between the scanned and load-on-open sections",
                b.block_type.name()
            ),
        ));
    }

    // The trailer's counts.
    let data: Vec<&BlockSummary> = blocks
        .iter()
        .filter(|b| b.block_type == BlockType::Data)
        .collect();
    let count = |ty: BlockType| blocks.iter().filter(|b| b.block_type == ty).count();
    let levels = trailer.index_levels();
    if (count(BlockType::LeafIndex) > 0) != (levels > 1)
        || (count(BlockType::IntermediateIndex) > 0) != (levels > 2)
    {
        return Err(bad(
            trailer.offset,
            format!(
                "{levels} index levels with {} leaf and {} intermediate blocks",
                count(BlockType::LeafIndex),
                count(BlockType::IntermediateIndex)
            ),
        ));
    }
    if trailer.first_data_block_offset() != data.first().map(|b| b.offset)
        || trailer.last_data_block_offset() != data.last().map(|b| b.offset)
    {
        return Err(bad(
            trailer.offset,
            "the trailer's first or last data block offset is not the file's".into(),
        ));
    }
    let total: u64 = blocks
        .iter()
        .filter(|b| !matches!(b.block_type, BlockType::IntermediateIndex) && b.offset != loo)
        .map(|b| u64::from(b.uncompressed_size) + HEADER_SIZE as u64)
        .sum::<u64>()
        + TRAILER_SIZE_V3;
    if t.total_uncompressed_bytes != Some(total) {
        return Err(bad(
            trailer.offset,
            format!(
                "totalUncompressedBytes {:?}, the blocks add up to {total}",
                t.total_uncompressed_bytes
            ),
        ));
    }
    let index_bytes: u64 = blocks
        .iter()
        .filter(|b| {
            matches!(
                b.block_type,
                BlockType::LeafIndex | BlockType::IntermediateIndex
            ) || b.offset == loo
        })
        .map(|b| u64::from(b.uncompressed_size))
        .sum();
    if t.uncompressed_data_index_size != Some(index_bytes) {
        return Err(bad(
            trailer.offset,
            format!(
                "uncompressedDataIndexSize {:?}, the index blocks add up to {index_bytes}",
                t.uncompressed_data_index_size
            ),
        ));
    }

    // The data index lists exactly the data blocks.
    let entries = reader.data_index_entries()?;
    if entries.len() != data.len() {
        return Err(bad(
            loo,
            format!(
                "the data index has {} entries for {} data blocks",
                entries.len(),
                data.len()
            ),
        ));
    }

    // The Blooms, loaded before the cells so each new key is checked as it is met (memory
    // stays one block plus the Blooms' chunks, whatever the file's size).
    let fi = reader.file_info();
    let general = match fi.get(keys::BLOOM_FILTER_TYPE) {
        None => None,
        Some(kind) => {
            let kind = String::from_utf8_lossy(kind).into_owned();
            if kind != "ROW" && kind != "ROWCOL" {
                return Err(bad(
                    loo,
                    format!("BLOOM_FILTER_TYPE {kind} (regionkv checks ROW and ROWCOL)"),
                ));
            }
            let bloom = reader
                .load_bloom(BlockType::GeneralBloomMeta)?
                .ok_or_else(|| {
                    bad(
                        loo,
                        format!("BLOOM_FILTER_TYPE {kind} without a Bloom meta block"),
                    )
                })?;
            check_chunks(reader, &bloom.meta, &blocks)?;
            Some((kind, bloom))
        }
    };
    let delete_family = reader.load_bloom(BlockType::DeleteFamilyBloomMeta)?;
    if let Some(bloom) = &delete_family {
        check_chunks(reader, &bloom.meta, &blocks)?;
    }
    // Cells, block by block, against the index and the Blooms: the blocks' two halves on
    // two threads when the file is large (the checker reads every cell of every file
    // export-hfiles writes, and the scan that fed the writer has ended by then).
    let blooms = Blooms {
        general: general.as_ref().map(|(kind, bloom)| (kind.as_str(), bloom)),
        delete_family: delete_family.as_ref(),
    };
    let walk = |range: std::ops::Range<usize>| {
        walk_cells(reader, &entries[range.clone()], &data[range], &blooms)
    };
    let summary = if data.len() >= PARALLEL_CHECK_BLOCKS {
        let mid = data.len() / 2;
        let (a, b) = std::thread::scope(|scope| {
            let second = scope.spawn(|| walk(mid..data.len()));
            let first = walk(0..mid);
            (first, second.join())
        });
        let b = match b {
            Ok(b) => b,
            Err(panic) => std::panic::resume_unwind(panic),
        };
        CellWalk::join(a?, b?, &entries[mid], data[mid].offset, &bad)?
    } else {
        walk(0..data.len())?
    };
    let CellWalk {
        cells,
        last,
        family,
        key_total,
        value_total,
        max_tags,
        max_mvcc,
        ..
    } = summary;
    if t.entry_count != Some(cells) {
        return Err(bad(
            trailer.offset,
            format!(
                "entry count {:?}, the file holds {cells} cells",
                t.entry_count
            ),
        ));
    }
    if fi.get(keys::LASTKEY).map(<[u8]>::to_vec) != last {
        return Err(bad(loo, "hfile.LASTKEY is not the last cell's key".into()));
    }
    let avg = |total: u64| total.checked_div(cells).unwrap_or(0) as i32;
    if fi.get_i32(keys::AVG_KEY_LEN) != Some(avg(key_total))
        || fi.get_i32(keys::AVG_VALUE_LEN) != Some(avg(value_total))
    {
        return Err(bad(loo, "hfile.AVG_KEY_LEN or hfile.AVG_VALUE_LEN is missing or wrong (HBase's reader fails without them)".into()));
    }
    if reader.includes_mvcc()
        && fi
            .get_i64(keys::MAX_MEMSTORE_TS_KEY)
            .is_none_or(|m| m < max_mvcc)
    {
        return Err(bad(
            loo,
            "MAX_MEMSTORE_TS_KEY is missing or below a cell's MVCC".into(),
        ));
    }
    if reader.includes_tags()
        && fi
            .get_i32(keys::MAX_TAGS_LEN)
            .is_none_or(|m| (m as usize) < max_tags)
    {
        return Err(bad(
            loo,
            "hfile.MAX_TAGS_LEN is below a cell's tags length".into(),
        ));
    }
    if let Some(range) = fi.get(keys::TIMERANGE)
        && range.len() != 16
        && !range.starts_with(crate::file_info::PBUF_MAGIC)
    {
        return Err(bad(loo, format!("TIMERANGE of {} bytes", range.len())));
    }

    let general_bloom = general.map(|(kind, bloom)| (kind, bloom.meta.chunks.len()));
    let delete_family_bloom = delete_family.map(|b| b.meta.chunks.len());

    Ok(Structure {
        blocks,
        cells,
        index_levels: levels,
        file_info_keys: fi
            .entries
            .keys()
            .map(|k| String::from_utf8_lossy(k).into_owned())
            .collect(),
        general_bloom,
        delete_family_bloom,
        family,
    })
}

/// A Bloom's chunk index points at Bloom chunk blocks whose sizes add up to its total.
fn check_chunks(reader: &HFileReader, meta: &BloomMeta, blocks: &[BlockSummary]) -> Result<()> {
    let mut total = 0i64;
    for e in &meta.chunks {
        let Some(b) = blocks.iter().find(|b| b.offset == e.offset) else {
            return Err(corrupt(
                reader.path(),
                e.offset,
                "a Bloom chunk entry that is not a block's start",
            ));
        };
        if b.block_type != BlockType::BloomChunk || b.on_disk_size != u64::from(e.on_disk_size) {
            return Err(corrupt(
                reader.path(),
                e.offset,
                format!(
                    "a Bloom chunk entry for a {} block of {} bytes",
                    b.block_type.name(),
                    b.on_disk_size
                ),
            ));
        }
        total += i64::from(b.uncompressed_size);
    }
    if total != meta.total_byte_size {
        return Err(corrupt(
            reader.path(),
            meta.chunks.first().map_or(0, |e| e.offset),
            format!(
                "Bloom chunks of {total} bytes, the meta says {}",
                meta.total_byte_size
            ),
        ));
    }
    Ok(())
}

/// Data blocks at or above this count are walked by two threads.
const PARALLEL_CHECK_BLOCKS: usize = 64;

/// The Blooms a cell walk checks every key against.
struct Blooms<'a> {
    general: Option<(&'a str, &'a crate::reader::LoadedBloom)>,
    delete_family: Option<&'a crate::reader::LoadedBloom>,
}

/// What a walk over consecutive data blocks found.
struct CellWalk {
    cells: u64,
    /// The first cell's key and the last one's (`None`: no blocks).
    first: Option<Vec<u8>>,
    last: Option<Vec<u8>>,
    family: Option<Vec<u8>>,
    key_total: u64,
    value_total: u64,
    max_tags: usize,
    max_mvcc: i64,
}

impl CellWalk {
    /// The walk of two consecutive ranges as one: the second range's first block (its
    /// index `entry`, at `offset`) must come after the first range's last key, as the walk
    /// of one range checks from block to block.
    fn join(
        a: CellWalk,
        b: CellWalk,
        entry: &IndexEntry,
        offset: u64,
        bad: &impl Fn(u64, String) -> Error,
    ) -> Result<CellWalk> {
        if let Some(prev) = &a.last {
            if compare_encoded(&entry.key, prev) != std::cmp::Ordering::Greater {
                return Err(bad(
                    offset,
                    format!(
                        "index key {} not after the previous block's last key {}",
                        key_to_string(&entry.key),
                        key_to_string(prev)
                    ),
                ));
            }
            if let Some(first) = &b.first
                && compare_encoded(prev, first) == std::cmp::Ordering::Greater
            {
                return Err(bad(
                    offset,
                    format!(
                        "cell {} after {}",
                        key_to_string(first),
                        key_to_string(prev)
                    ),
                ));
            }
        }
        if let (Some(fa), Some(fb)) = (&a.family, &b.family)
            && fa != fb
        {
            return Err(bad(
                offset,
                format!(
                    "cells of two families ({} and {}): a bulk-load file holds one",
                    String::from_utf8_lossy(fa),
                    String::from_utf8_lossy(fb)
                ),
            ));
        }
        Ok(CellWalk {
            cells: a.cells + b.cells,
            first: a.first.or(b.first),
            last: b.last.or(a.last),
            family: a.family.or(b.family),
            key_total: a.key_total + b.key_total,
            value_total: a.value_total + b.value_total,
            max_tags: a.max_tags.max(b.max_tags),
            max_mvcc: a.max_mvcc.max(b.max_mvcc),
        })
    }
}

/// Walks the cells of the data blocks `data` (with their index `entries`): each block
/// where the index says, its first key not before its index key, every cell in order and
/// of one family, every key in the Blooms.
fn walk_cells(
    reader: &HFileReader,
    entries: &[IndexEntry],
    data: &[&BlockSummary],
    blooms: &Blooms<'_>,
) -> Result<CellWalk> {
    let path = reader.path().to_path_buf();
    let bad = |offset: u64, reason: String| corrupt(&path, offset, reason);
    let general = &blooms.general;
    let delete_family = &blooms.delete_family;
    // The last key seen, and the Blooms' last keys: buffers reused from cell to cell.
    let mut last_bloom_key: Option<(Vec<u8>, Vec<u8>)> = None;
    let mut last_delete_family_row: Option<Vec<u8>> = None;
    let mut cells = 0u64;
    let mut first_key: Option<Vec<u8>> = None;
    let mut last: Option<Vec<u8>> = None;
    let mut family: Option<Vec<u8>> = None;
    let (mut key_total, mut value_total) = (0u64, 0u64);
    let (mut max_tags, mut max_mvcc) = (0usize, 0i64);
    for (e, b) in entries.iter().zip(data) {
        if e.offset != b.offset || u64::from(e.on_disk_size) != b.on_disk_size {
            return Err(bad(
                b.offset,
                format!(
                    "index entry ({}, {}) for the data block at {} of {} bytes",
                    e.offset, e.on_disk_size, b.offset, b.on_disk_size
                ),
            ));
        }
        let block = reader.read_block(b.offset, Some(b.on_disk_size))?;
        let block_cells = reader.block_cell_refs(&block)?;
        let Some(first) = block_cells.first() else {
            return Err(bad(b.offset, "an empty data block".into()));
        };
        if first_key.is_none() {
            first_key = Some(first.key.to_vec());
        }
        if compare_encoded(&e.key, first.key) == std::cmp::Ordering::Greater {
            return Err(bad(
                b.offset,
                format!(
                    "index key {} after the block's first key {}",
                    key_to_string(&e.key),
                    key_to_string(first.key)
                ),
            ));
        }
        if let Some(prev) = &last
            && compare_encoded(&e.key, prev) != std::cmp::Ordering::Greater
        {
            return Err(bad(
                b.offset,
                format!(
                    "index key {} not after the previous block's last key {}",
                    key_to_string(&e.key),
                    key_to_string(prev)
                ),
            ));
        }
        for c in block_cells {
            let k =
                KeyRef::parse(c.key).ok_or_else(|| bad(b.offset, "an unparsable key".into()))?;
            if let Some(prev) = &last
                && compare_encoded(prev, c.key) == std::cmp::Ordering::Greater
            {
                return Err(bad(
                    b.offset,
                    format!(
                        "cell {} after {}",
                        key_to_string(c.key),
                        key_to_string(prev)
                    ),
                ));
            }
            match &family {
                None => family = Some(k.family.to_vec()),
                Some(f) if f.as_slice() != k.family => {
                    return Err(bad(
                        b.offset,
                        format!(
                            "cells of two families ({} and {}): a bulk-load file holds one",
                            String::from_utf8_lossy(f),
                            String::from_utf8_lossy(k.family)
                        ),
                    ));
                }
                Some(_) => {}
            }
            if let Some((kind, bloom)) = &general {
                let qualifier: &[u8] = if *kind == "ROW" { b"" } else { k.qualifier };
                let new = last_bloom_key
                    .as_ref()
                    .is_none_or(|(r, q)| r.as_slice() != k.row || q.as_slice() != qualifier);
                if new {
                    let found = if *kind == "ROW" {
                        bloom.may_contain(k.row, k.row)
                    } else {
                        let chunk_key = KeyRef {
                            qualifier,
                            timestamp: i64::MAX,
                            type_byte: crate::key::TYPE_MAXIMUM,
                            ..k
                        };
                        bloom.may_contain(
                            &chunk_key.to_vec().unwrap_or_default(),
                            &row_col_hash_key(k.row, qualifier),
                        )
                    };
                    if !found {
                        return Err(bad(
                            b.offset,
                            format!(
                                "the {kind} Bloom does not hold row {} of the block",
                                String::from_utf8_lossy(k.row)
                            ),
                        ));
                    }
                    let (r, q) = last_bloom_key.get_or_insert_with(Default::default);
                    r.clear();
                    r.extend_from_slice(k.row);
                    q.clear();
                    q.extend_from_slice(qualifier);
                }
            }
            if let Some(bloom) = &delete_family
                && (k.type_byte == CellType::DeleteFamily.code()
                    || k.type_byte == CellType::DeleteFamilyVersion.code())
                && last_delete_family_row.as_deref() != Some(k.row)
            {
                if !bloom.may_contain(k.row, k.row) {
                    return Err(bad(
                        b.offset,
                        format!(
                            "the delete-family Bloom does not hold row {} of the block",
                            String::from_utf8_lossy(k.row)
                        ),
                    ));
                }
                let r = last_delete_family_row.get_or_insert_with(Vec::new);
                r.clear();
                r.extend_from_slice(k.row);
            }
            key_total += c.key.len() as u64;
            value_total += c.value.len() as u64;
            max_tags = max_tags.max(c.tags.len());
            max_mvcc = max_mvcc.max(c.mvcc);
            cells += 1;
            let l = last.get_or_insert_with(Vec::new);
            l.clear();
            l.extend_from_slice(c.key);
        }
    }
    Ok(CellWalk {
        cells,
        first: first_key,
        last,
        family,
        key_total,
        value_total,
        max_tags,
        max_mvcc,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn key(row: &str) -> Vec<u8> {
        KeyRef {
            row: row.as_bytes(),
            family: b"cf",
            qualifier: b"q",
            timestamp: 1,
            type_byte: CellType::Put.code(),
        }
        .to_vec()
        .unwrap()
    }

    fn walk(first: &str, last: &str, family: &[u8]) -> CellWalk {
        CellWalk {
            cells: 2,
            first: Some(key(first)),
            last: Some(key(last)),
            family: Some(family.to_vec()),
            key_total: 10,
            value_total: 4,
            max_tags: 0,
            max_mvcc: 0,
        }
    }

    fn entry(row: &str) -> IndexEntry {
        IndexEntry {
            offset: 500,
            on_disk_size: 100,
            key: key(row),
        }
    }

    /// The two halves of a parallel walk are checked at their seam as one walk checks
    /// from block to block: index key and cell order, one family.
    #[test]
    fn joined_walks_are_checked_at_the_seam() {
        let bad = |offset: u64, reason: String| corrupt(std::path::Path::new("/f"), offset, reason);
        let join = |a: CellWalk, b: CellWalk, index_row: &str| {
            CellWalk::join(a, b, &entry(index_row), 500, &bad)
        };
        let j = join(walk("a", "c", b"cf"), walk("d", "f", b"cf"), "d").unwrap();
        assert_eq!((j.cells, j.key_total), (4, 20));
        assert_eq!(j.first, Some(key("a")));
        assert_eq!(j.last, Some(key("f")));
        let error = |a, b, index_row| join(a, b, index_row).err().unwrap().to_string();
        let e = error(walk("a", "e", b"cf"), walk("d", "f", b"cf"), "f");
        assert!(e.contains("cell d/cf:q"), "{e}");
        let e = error(walk("a", "e", b"cf"), walk("f", "g", b"cf"), "e");
        assert!(e.contains("index key"), "{e}");
        let e = error(walk("a", "c", b"cf"), walk("d", "f", b"cg"), "d");
        assert!(e.contains("two families"), "{e}");
    }
}
