//! Block framing: every block on disk is `header (20) | body | crc32 (4)`.
//!
//! | offset | size | field                                  |
//! |--------|------|----------------------------------------|
//! | 0      | 8    | magic (block type)                     |
//! | 8      | 1    | compression code                       |
//! | 9      | 1    | data block encoding code               |
//! | 10     | 2    | reserved, zero                         |
//! | 12     | 4    | on-disk body length (u32 BE)           |
//! | 16     | 4    | uncompressed body length (u32 BE)      |
//! | 20     | n    | body (compressed when compression ≠ 0) |
//! | 20+n   | 4    | CRC-32 (IEEE) of bytes [0, 20+n)       |
//!
//! Invariant: no header field is trusted before the checksum over header and body has
//! been verified (HBASE-28065 is the bug this avoids). Readers learn a block's extent from
//! the index, the trailer, or (for a sequential walk) from the length field, which they
//! bounds-check and then confirm through the checksum.

use super::{BlockType, Compression, DataBlockEncoding, be_u32};

/// Bytes of the block header.
pub const HEADER_LEN: usize = 20;
/// Bytes of the checksum after the body.
pub const CHECKSUM_LEN: usize = 4;
/// Header plus checksum: a block's size beyond its body.
pub const FRAMING_LEN: usize = HEADER_LEN + CHECKSUM_LEN;
/// Largest uncompressed body a reader accepts (a block holds at most one oversized cell of
/// HBase's 10 MiB default limit plus BLOCKSIZE; 256 MiB leaves room and bounds allocation).
pub const MAX_BODY_LEN: u32 = 256 << 20;

/// The parsed header of a verified block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockHeader {
    /// What the block holds.
    pub block_type: BlockType,
    /// How the body is compressed.
    pub compression: Compression,
    /// How data block keys are encoded.
    pub encoding: DataBlockEncoding,
    /// Body bytes on disk.
    pub on_disk_body_len: u32,
    /// Body bytes after decompression.
    pub uncompressed_len: u32,
}

/// Frames `body` (already compressed if `compression` says so) into `out`.
pub fn frame_block(
    out: &mut Vec<u8>,
    block_type: BlockType,
    compression: Compression,
    encoding: DataBlockEncoding,
    body: &[u8],
    uncompressed_len: u32,
) {
    let start = out.len();
    out.extend_from_slice(block_type.magic());
    out.push(compression.code());
    out.push(encoding.code());
    out.extend_from_slice(&[0, 0]);
    // Bodies are bounded by MAX_BODY_LEN by the writer, so this cast is exact.
    out.extend_from_slice(&(body.len() as u32).to_be_bytes());
    out.extend_from_slice(&uncompressed_len.to_be_bytes());
    out.extend_from_slice(body);
    let crc = crc32fast::hash(&out[start..]);
    out.extend_from_slice(&crc.to_be_bytes());
}

/// Why a framed block was rejected; the reader adds file and offset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FrameError {
    /// Fewer bytes than a header and checksum.
    TooShort(usize),
    /// The checksum does not match.
    Checksum {
        /// Stored value.
        stored: u32,
        /// Computed value.
        computed: u32,
    },
    /// A header field is invalid (after the checksum matched).
    BadHeader(String),
}

/// Verifies and parses a whole framed block (`bytes` spans exactly header..checksum).
/// Returns the header and the on-disk body.
pub fn parse_block(bytes: &[u8]) -> Result<(BlockHeader, &[u8]), FrameError> {
    if bytes.len() < FRAMING_LEN {
        return Err(FrameError::TooShort(bytes.len()));
    }
    let body_end = bytes.len() - CHECKSUM_LEN;
    let stored = be_u32(bytes, body_end).unwrap_or(0);
    let computed = crc32fast::hash(&bytes[..body_end]);
    if stored != computed {
        return Err(FrameError::Checksum { stored, computed });
    }
    let block_type = BlockType::from_magic(&bytes[0..8])
        .ok_or_else(|| FrameError::BadHeader(format!("unknown block magic {:?}", &bytes[0..8])))?;
    let compression = Compression::from_code(bytes[8])
        .ok_or_else(|| FrameError::BadHeader(format!("unknown compression code {}", bytes[8])))?;
    let encoding = DataBlockEncoding::from_code(bytes[9])
        .ok_or_else(|| FrameError::BadHeader(format!("unknown encoding code {}", bytes[9])))?;
    let on_disk_body_len = be_u32(bytes, 12).unwrap_or(0);
    let uncompressed_len = be_u32(bytes, 16).unwrap_or(0);
    let body = &bytes[HEADER_LEN..body_end];
    if on_disk_body_len as usize != body.len() {
        return Err(FrameError::BadHeader(format!(
            "body length field {} does not match the block extent {}",
            on_disk_body_len,
            body.len()
        )));
    }
    if uncompressed_len > MAX_BODY_LEN {
        return Err(FrameError::BadHeader(format!(
            "uncompressed length {uncompressed_len} exceeds the {MAX_BODY_LEN}-byte limit"
        )));
    }
    if compression == Compression::None && uncompressed_len != on_disk_body_len {
        return Err(FrameError::BadHeader(
            "uncompressed block whose two length fields differ".to_string(),
        ));
    }
    Ok((
        BlockHeader {
            block_type,
            compression,
            encoding,
            on_disk_body_len,
            uncompressed_len,
        },
        body,
    ))
}

/// Reads the on-disk body length from an unverified header, for walking blocks in file
/// order. The caller bounds-checks the result and then verifies the block's checksum.
pub fn peek_block_len(header: &[u8]) -> Option<usize> {
    Some(be_u32(header, 12)? as usize + FRAMING_LEN)
}

/// Decompresses a verified body into an owned buffer.
pub fn decompress(header: &BlockHeader, body: &[u8]) -> Result<Vec<u8>, String> {
    match header.compression {
        Compression::None => Ok(body.to_vec()),
        Compression::Lz4 => {
            let out = lz4_flex::block::decompress(body, header.uncompressed_len as usize)
                .map_err(|e| format!("lz4: {e}"))?;
            if out.len() != header.uncompressed_len as usize {
                return Err(format!(
                    "lz4 body decompressed to {} bytes, header says {}",
                    out.len(),
                    header.uncompressed_len
                ));
            }
            Ok(out)
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn frame_round_trip_and_every_bit_flip_is_caught() {
        let mut out = Vec::new();
        frame_block(
            &mut out,
            BlockType::Data,
            Compression::None,
            DataBlockEncoding::Prefix,
            b"hello",
            5,
        );
        assert_eq!(out.len(), 5 + FRAMING_LEN);
        let (h, body) = parse_block(&out).unwrap();
        assert_eq!(h.block_type, BlockType::Data);
        assert_eq!(h.encoding, DataBlockEncoding::Prefix);
        assert_eq!(body, b"hello");
        assert_eq!(peek_block_len(&out), Some(out.len()));
        for i in 0..out.len() {
            for bit in 0..8 {
                let mut bad = out.clone();
                bad[i] ^= 1 << bit;
                assert!(parse_block(&bad).is_err(), "flip byte {i} bit {bit}");
            }
        }
        assert!(matches!(
            parse_block(&out[..10]),
            Err(FrameError::TooShort(10))
        ));
    }

    #[test]
    fn all_zero_block_is_rejected() {
        // CRC-32 of nothing is 0: an all-zero region must still fail (the checksum covers
        // the header, whose magic is never zero).
        assert!(parse_block(&[0u8; 64]).is_err());
        assert!(parse_block(&[0u8; FRAMING_LEN]).is_err());
    }

    #[test]
    fn lz4_round_trip() {
        let raw: Vec<u8> = (0..4096u32).map(|i| (i % 7) as u8).collect();
        let comp = lz4_flex::block::compress(&raw);
        let mut out = Vec::new();
        frame_block(
            &mut out,
            BlockType::Data,
            Compression::Lz4,
            DataBlockEncoding::None,
            &comp,
            raw.len() as u32,
        );
        let (h, body) = parse_block(&out).unwrap();
        assert_eq!(decompress(&h, body).unwrap(), raw);
    }
}
