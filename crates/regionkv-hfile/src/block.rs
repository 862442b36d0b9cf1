//! HFile blocks (HBase's `HFileBlock`): a 33-byte header, the payload as stored (compressed
//! with the file's codec), then a 4-byte checksum per `bytesPerChecksum` bytes of header and
//! stored payload.
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 8 | magic: the block type |
//! | 8 | 4 | on-disk size without header (stored payload + checksums) |
//! | 12 | 4 | uncompressed payload size |
//! | 16 | 8 | offset of the previous block of the same type, -1 for the first |
//! | 24 | 1 | checksum type: 0 none, 1 CRC32, 2 CRC32C |
//! | 25 | 4 | bytes per checksum |
//! | 29 | 4 | on-disk data size with header (33 + stored payload) |
//! | 33 | … | stored payload, then the checksums (big-endian u32 each) |

use std::io::Read;

use regionkv_fs::ReadableFile;

use crate::error::{Error, Result, corrupt};
use crate::trailer::Compression;

/// The header's size (HBase's `HConstants.HFILEBLOCK_HEADER_SIZE`, with checksums).
pub const HEADER_SIZE: usize = 33;

/// HBase's `BlockType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BlockType {
    /// Cells (`DATABLK*`).
    Data,
    /// Cells in a data block encoding (`DATABLKE`).
    EncodedData,
    /// A leaf of a multi-level data index, inline among data blocks (`IDXLEAF2`).
    LeafIndex,
    /// A chunk of a compound Bloom filter, inline among data blocks (`BLMFBLK2`).
    BloomChunk,
    /// A named meta block (`METABLKc`).
    Meta,
    /// An intermediate level of the data index (`IDXINTE2`).
    IntermediateIndex,
    /// A root index: the data index's, then the meta index's (`IDXROOT2`).
    RootIndex,
    /// The FileInfo map (`FILEINF2`).
    FileInfo,
    /// The general Bloom filter's meta (`BLMFMET2`).
    GeneralBloomMeta,
    /// The delete-family Bloom filter's meta (`DFBLMET2`).
    DeleteFamilyBloomMeta,
    /// The trailer (`TRABLK"$`; has no block header).
    Trailer,
    /// HFile v1's index (`IDXBLK)+`).
    IndexV1,
}

impl BlockType {
    /// Every type, in HBase's declaration order.
    pub const ALL: [BlockType; 12] = [
        BlockType::Data,
        BlockType::EncodedData,
        BlockType::LeafIndex,
        BlockType::BloomChunk,
        BlockType::Meta,
        BlockType::IntermediateIndex,
        BlockType::RootIndex,
        BlockType::FileInfo,
        BlockType::GeneralBloomMeta,
        BlockType::DeleteFamilyBloomMeta,
        BlockType::Trailer,
        BlockType::IndexV1,
    ];

    /// The 8-byte magic.
    pub const fn magic(self) -> &'static [u8; 8] {
        match self {
            BlockType::Data => b"DATABLK*",
            BlockType::EncodedData => b"DATABLKE",
            BlockType::LeafIndex => b"IDXLEAF2",
            BlockType::BloomChunk => b"BLMFBLK2",
            BlockType::Meta => b"METABLKc",
            BlockType::IntermediateIndex => b"IDXINTE2",
            BlockType::RootIndex => b"IDXROOT2",
            BlockType::FileInfo => b"FILEINF2",
            BlockType::GeneralBloomMeta => b"BLMFMET2",
            BlockType::DeleteFamilyBloomMeta => b"DFBLMET2",
            BlockType::Trailer => b"TRABLK\"$",
            BlockType::IndexV1 => b"IDXBLK)+",
        }
    }

    /// HBase's name (`BlockType.name()`), as the pretty-printer prints it.
    pub const fn name(self) -> &'static str {
        match self {
            BlockType::Data => "DATA",
            BlockType::EncodedData => "ENCODED_DATA",
            BlockType::LeafIndex => "LEAF_INDEX",
            BlockType::BloomChunk => "BLOOM_CHUNK",
            BlockType::Meta => "META",
            BlockType::IntermediateIndex => "INTERMEDIATE_INDEX",
            BlockType::RootIndex => "ROOT_INDEX",
            BlockType::FileInfo => "FILE_INFO",
            BlockType::GeneralBloomMeta => "GENERAL_BLOOM_META",
            BlockType::DeleteFamilyBloomMeta => "DELETE_FAMILY_BLOOM_META",
            BlockType::Trailer => "TRAILER",
            BlockType::IndexV1 => "INDEX_V1",
        }
    }

    /// The type with magic `magic`.
    pub fn from_magic(magic: &[u8]) -> Option<BlockType> {
        BlockType::ALL.into_iter().find(|t| t.magic() == magic)
    }

    /// True for the two kinds of cell blocks.
    pub const fn is_data(self) -> bool {
        matches!(self, BlockType::Data | BlockType::EncodedData)
    }
}

/// HBase's `ChecksumType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ChecksumType {
    /// No checksums (space is still reserved).
    Null,
    /// CRC-32 (zlib's polynomial).
    Crc32,
    /// CRC-32C (Castagnoli), HBase 2.x's default.
    Crc32c,
}

impl ChecksumType {
    /// The type with HBase's code `code`.
    pub fn from_code(code: u8) -> Option<ChecksumType> {
        match code {
            0 => Some(ChecksumType::Null),
            1 => Some(ChecksumType::Crc32),
            2 => Some(ChecksumType::Crc32c),
            _ => None,
        }
    }

    /// HBase's code.
    pub const fn code(self) -> u8 {
        match self {
            ChecksumType::Null => 0,
            ChecksumType::Crc32 => 1,
            ChecksumType::Crc32c => 2,
        }
    }

    /// HBase's name.
    pub const fn name(self) -> &'static str {
        match self {
            ChecksumType::Null => "NULL",
            ChecksumType::Crc32 => "CRC32",
            ChecksumType::Crc32c => "CRC32C",
        }
    }

    /// The checksum of `bytes`, `None` for [`ChecksumType::Null`].
    pub fn compute(self, bytes: &[u8]) -> Option<u32> {
        match self {
            ChecksumType::Null => None,
            ChecksumType::Crc32 => Some(crc32fast::hash(bytes)),
            ChecksumType::Crc32c => Some(crc32c::crc32c(bytes)),
        }
    }
}

/// A parsed block header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockHeader {
    /// The block's type.
    pub block_type: BlockType,
    /// Stored payload plus checksums.
    pub on_disk_size_without_header: u32,
    /// The payload's size after decompression.
    pub uncompressed_size_without_header: u32,
    /// The previous block of the same type, -1 for none.
    pub prev_block_offset: i64,
    /// The checksum algorithm.
    pub checksum_type: ChecksumType,
    /// Bytes covered by each checksum.
    pub bytes_per_checksum: u32,
    /// Header plus stored payload.
    pub on_disk_data_size_with_header: u32,
}

impl BlockHeader {
    /// Parses the header of the block at `offset` of `path`.
    pub fn parse(
        path: &std::path::Path,
        offset: u64,
        h: &[u8; HEADER_SIZE],
    ) -> Result<BlockHeader> {
        let be32 = |at: usize| u32::from_be_bytes([h[at], h[at + 1], h[at + 2], h[at + 3]]);
        let block_type = BlockType::from_magic(&h[..8]).ok_or_else(|| {
            corrupt(
                path,
                offset,
                format!(
                    "no block magic (found {})",
                    regionkv_cell::bytes::to_string_binary(&h[..8])
                ),
            )
        })?;
        let mut prev = [0u8; 8];
        prev.copy_from_slice(&h[16..24]);
        let checksum_type = ChecksumType::from_code(h[24]).ok_or_else(|| {
            corrupt(
                path,
                offset + 24,
                format!("unknown checksum type {}", h[24]),
            )
        })?;
        let header = BlockHeader {
            block_type,
            on_disk_size_without_header: be32(8),
            uncompressed_size_without_header: be32(12),
            prev_block_offset: i64::from_be_bytes(prev),
            checksum_type,
            bytes_per_checksum: be32(25),
            on_disk_data_size_with_header: be32(29),
        };
        let data = u64::from(header.on_disk_data_size_with_header);
        let total = header.on_disk_size();
        if data < HEADER_SIZE as u64 || data > total {
            return Err(corrupt(
                path,
                offset + 29,
                format!(
                    "data size with header {data} outside [{HEADER_SIZE}, on-disk size {total}]"
                ),
            ));
        }
        if header.checksum_type != ChecksumType::Null || header.bytes_per_checksum != 0 {
            let chunks = header.checksum_chunks();
            if total - data != 4 * chunks {
                return Err(corrupt(
                    path,
                    offset + 8,
                    format!(
                        "{} checksum bytes where {chunks} chunks of {} need {}",
                        total - data,
                        header.bytes_per_checksum,
                        4 * chunks
                    ),
                ));
            }
        }
        Ok(header)
    }

    /// The whole block's size on disk: header, stored payload, checksums (what index
    /// entries record).
    pub fn on_disk_size(&self) -> u64 {
        HEADER_SIZE as u64 + u64::from(self.on_disk_size_without_header)
    }

    /// How many checksums follow the payload.
    pub fn checksum_chunks(&self) -> u64 {
        let bpc = u64::from(self.bytes_per_checksum);
        if bpc == 0 {
            return 0;
        }
        u64::from(self.on_disk_data_size_with_header).div_ceil(bpc)
    }

    /// The header's bytes.
    pub fn encode(&self) -> [u8; HEADER_SIZE] {
        let mut h = [0u8; HEADER_SIZE];
        h[..8].copy_from_slice(self.block_type.magic());
        h[8..12].copy_from_slice(&self.on_disk_size_without_header.to_be_bytes());
        h[12..16].copy_from_slice(&self.uncompressed_size_without_header.to_be_bytes());
        h[16..24].copy_from_slice(&self.prev_block_offset.to_be_bytes());
        h[24] = self.checksum_type.code();
        h[25..29].copy_from_slice(&self.bytes_per_checksum.to_be_bytes());
        h[29..33].copy_from_slice(&self.on_disk_data_size_with_header.to_be_bytes());
        h
    }
}

/// A block read from a file, checksums verified and payload decompressed.
#[derive(Debug, Clone)]
pub struct Block {
    /// Where it starts.
    pub offset: u64,
    /// Its header.
    pub header: BlockHeader,
    /// The payload, uncompressed.
    pub payload: Vec<u8>,
}

/// Reads the block at `offset` of `file`, verifying its checksums and decompressing its
/// payload with `codec`. `expected_size` is the on-disk size an index entry gives, checked
/// against the header as HBase does.
pub fn read_block(
    file: &dyn ReadableFile,
    offset: u64,
    codec: Compression,
    expected_size: Option<u64>,
) -> Result<Block> {
    let path = file.path();
    let mut h = [0u8; HEADER_SIZE];
    if offset
        .checked_add(HEADER_SIZE as u64)
        .is_none_or(|end| end > file.len())
    {
        return Err(corrupt(
            path,
            offset,
            "a block header past the end of the file",
        ));
    }
    file.read_at(offset, &mut h)?;
    let header = BlockHeader::parse(path, offset, &h)?;
    let total = header.on_disk_size();
    if let Some(expected) = expected_size
        && expected != total
    {
        return Err(corrupt(
            path,
            offset,
            format!("the index says the block is {expected} bytes, its header {total}"),
        ));
    }
    if offset + total > file.len() {
        return Err(corrupt(
            path,
            offset,
            format!(
                "a block of {total} bytes past the end of the file ({})",
                file.len()
            ),
        ));
    }
    let bytes = file.read_to_vec(offset, total as usize)?;
    let data_len = header.on_disk_data_size_with_header as usize;
    verify_checksums(path, offset, &header, &bytes)?;
    let payload = decompress(
        path,
        offset,
        codec,
        &bytes[HEADER_SIZE..data_len],
        header.uncompressed_size_without_header as usize,
    )?;
    Ok(Block {
        offset,
        header,
        payload,
    })
}

/// Checks each checksum chunk of `block` (header + stored payload, then the sums).
fn verify_checksums(
    path: &std::path::Path,
    offset: u64,
    header: &BlockHeader,
    block: &[u8],
) -> Result<()> {
    let data_len = header.on_disk_data_size_with_header as usize;
    let bpc = header.bytes_per_checksum as usize;
    if header.checksum_type == ChecksumType::Null || bpc == 0 {
        return Ok(());
    }
    let (data, sums) = block.split_at(data_len);
    for (i, (chunk, stored)) in data.chunks(bpc).zip(sums.chunks_exact(4)).enumerate() {
        let stored = u32::from_be_bytes([stored[0], stored[1], stored[2], stored[3]]);
        let computed = header.checksum_type.compute(chunk).unwrap_or(stored);
        if computed != stored {
            return Err(Error::ChecksumMismatch {
                path: path.to_path_buf(),
                offset,
                chunk_offset: offset + (i * bpc) as u64,
                block: header.block_type.name(),
                kind: header.checksum_type.name(),
                stored,
                computed,
            });
        }
    }
    Ok(())
}

/// Decompresses a stored payload to exactly `size` bytes.
pub fn decompress(
    path: &std::path::Path,
    offset: u64,
    codec: Compression,
    stored: &[u8],
    size: usize,
) -> Result<Vec<u8>> {
    let bad = |reason: String| corrupt(path, offset + HEADER_SIZE as u64, reason);
    let out = match codec {
        Compression::None => stored.to_vec(),
        Compression::Gz => {
            let mut out = Vec::with_capacity(size);
            // One gzip member; read at most one byte past `size` so a damaged length cannot
            // make us inflate without bound.
            flate2::read::GzDecoder::new(stored)
                .take(size as u64 + 1)
                .read_to_end(&mut out)
                .map_err(|e| bad(format!("gzip payload: {e}")))?;
            out
        }
        Compression::Lz4 => hadoop_block_decompress(stored, size).map_err(bad)?,
        other => {
            return Err(Error::Unsupported {
                path: path.to_path_buf(),
                what: format!("compression {}", other.name()),
            });
        }
    };
    if out.len() != size {
        return Err(bad(format!(
            "the payload decompresses to {} bytes, the header says {size}",
            out.len()
        )));
    }
    Ok(out)
}

/// Hadoop's `BlockDecompressorStream` framing around raw LZ4 blocks: repeated
/// `{u32 raw length; repeated {u32 compressed length; raw block} until raw length}`.
fn hadoop_block_decompress(stored: &[u8], size: usize) -> std::result::Result<Vec<u8>, String> {
    let mut out = vec![0u8; size];
    let mut filled = 0usize;
    let mut pos = 0usize;
    let be32 = |pos: usize| -> std::result::Result<usize, String> {
        stored
            .get(pos..pos + 4)
            .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]) as usize)
            .ok_or_else(|| format!("LZ4 framing cut short at payload byte {pos}"))
    };
    while pos < stored.len() {
        let raw = be32(pos)?;
        pos += 4;
        if raw == 0 {
            // Hadoop's BlockDecompressorStream: a zero original size is the end of the
            // stream (what a compressor may frame for an empty payload).
            break;
        }
        let end = filled
            .checked_add(raw)
            .filter(|e| *e <= size)
            .ok_or_else(|| format!("LZ4 framing announces {raw} bytes past the block's {size}"))?;
        while filled < end {
            let len = be32(pos)?;
            pos += 4;
            let input = stored.get(pos..pos + len).ok_or_else(|| {
                format!("LZ4 chunk of {len} bytes cut short at payload byte {pos}")
            })?;
            pos += len;
            let n = lz4_flex::block::decompress_into(input, &mut out[filled..end])
                .map_err(|e| format!("LZ4 chunk: {e}"))?;
            if n == 0 {
                return Err("an empty LZ4 chunk".into());
            }
            filled += n;
        }
    }
    out.truncate(filled);
    Ok(out)
}

/// Hadoop's block framing for one payload: `{u32 raw length; u32 compressed length; raw LZ4
/// block}` (one chunk: HBase blocks are far below Hadoop's 256 KiB buffer).
pub fn hadoop_block_compress_lz4(raw: &[u8]) -> Vec<u8> {
    if raw.is_empty() {
        // Hadoop's BlockCompressorStream writes nothing for nothing (its compressor
        // produces no output, so no frame): an empty block's payload is empty. HBase never
        // reads a byte of a payload whose uncompressed size is 0.
        return Vec::new();
    }
    let compressed = lz4_flex::block::compress(raw);
    let mut out = Vec::with_capacity(8 + compressed.len());
    out.extend_from_slice(&(raw.len() as u32).to_be_bytes());
    out.extend_from_slice(&(compressed.len() as u32).to_be_bytes());
    out.extend_from_slice(&compressed);
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn the_fixture_s_first_header_parses() {
        // hfile-format notes §4, fixture 16KB_NONE's first block.
        let hex = "44415441424c4b2a0000401a00004012ffffffffffffffff020000400000004033";
        let bytes: Vec<u8> = (0..hex.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
            .collect();
        let h: [u8; HEADER_SIZE] = bytes.try_into().unwrap();
        let header = BlockHeader::parse(Path::new("f"), 0, &h).unwrap();
        assert_eq!(header.block_type, BlockType::Data);
        assert_eq!(header.on_disk_size_without_header, 16410);
        assert_eq!(header.uncompressed_size_without_header, 16402);
        assert_eq!(header.prev_block_offset, -1);
        assert_eq!(header.checksum_type, ChecksumType::Crc32c);
        assert_eq!(header.checksum_chunks(), 2);
        assert_eq!(header.encode(), h);
    }

    #[test]
    fn lz4_framing_round_trips_and_rejects_damage() {
        let raw: Vec<u8> = (0..5000u32).flat_map(|i| (i % 97).to_be_bytes()).collect();
        let framed = hadoop_block_compress_lz4(&raw);
        assert_eq!(hadoop_block_decompress(&framed, raw.len()).unwrap(), raw);
        assert!(hadoop_block_decompress(&framed[..framed.len() - 3], raw.len()).is_err());
        assert!(hadoop_block_decompress(&framed, raw.len() - 1).is_err());
    }

    /// An empty payload frames to nothing, and a stream that starts a zero-length group
    /// (what another compressor may write for nothing) reads as empty: the meta index of a
    /// file without meta blocks is such a payload.
    #[test]
    fn lz4_framing_of_an_empty_payload() {
        assert!(hadoop_block_compress_lz4(&[]).is_empty());
        assert_eq!(hadoop_block_decompress(&[], 0).unwrap(), Vec::<u8>::new());
        let zero_group = [0u8, 0, 0, 0, 0, 0, 0, 1, 0];
        assert_eq!(
            hadoop_block_decompress(&zero_group, 0).unwrap(),
            Vec::<u8>::new()
        );
    }
}
