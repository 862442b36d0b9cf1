//! The fixed trailer at the end of every storefile (format versions 1 and 2, 100 bytes).
//!
//! | offset | size | field                                             |
//! |--------|------|---------------------------------------------------|
//! | 0      | 8    | root index block offset                           |
//! | 8      | 4    | root index block size (framed)                    |
//! | 12     | 4    | index levels (0 when the file holds no cells)     |
//! | 16     | 8    | file info block offset                            |
//! | 24     | 4    | file info block size (framed)                     |
//! | 28     | 4    | bloom block size (framed; 0 = no bloom)           |
//! | 32     | 8    | bloom block offset                                |
//! | 40     | 8    | data block count                                  |
//! | 48     | 8    | cell count                                        |
//! | 56     | 8    | end of the data section (first non-data byte)     |
//! | 64     | 8    | uncompressed bytes of all data block bodies       |
//! | 72     | 1    | compression code of data blocks                   |
//! | 73     | 1    | data block encoding code                          |
//! | 74     | 1    | flags: bit 0 = the file info carries the file's identity |
//! | 75     | 9    | reserved, zero                                    |
//! | 84     | 4    | format version (1; 2 with tags; 3 in parts)       |
//! | 88     | 4    | CRC-32 of bytes [0, 88)                           |
//! | 92     | 8    | magic `RKVSFTRL`                                  |
//!
//! The version sits just before the checksum and magic so that a later version may grow
//! the trailer: a reader finds the magic in the last 8 bytes, the version at −16, and from
//! the version the trailer's length.

use super::{
    Compression, DataBlockEncoding, FORMAT_VERSION, FORMAT_VERSION_PARTS, FORMAT_VERSION_TAGS,
    be_u32, be_u64,
};

/// The trailer's magic, the last 8 bytes of every storefile.
pub const TRAILER_MAGIC: &[u8; 8] = b"RKVSFTRL";
/// Trailer length of format version 1.
pub const TRAILER_LEN_V1: usize = 100;

/// Where things are in a storefile, and its global counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Trailer {
    /// Offset of the root index block.
    pub root_index_offset: u64,
    /// Framed size of the root index block.
    pub root_index_size: u32,
    /// Index levels: 1 when the root points at data blocks.
    pub index_levels: u32,
    /// Offset of the file info block.
    pub file_info_offset: u64,
    /// Framed size of the file info block.
    pub file_info_size: u32,
    /// Offset of the bloom block.
    pub bloom_offset: u64,
    /// Framed size of the bloom block (0 when there is none).
    pub bloom_size: u32,
    /// Number of data blocks.
    pub data_block_count: u64,
    /// Number of cells.
    pub cell_count: u64,
    /// First byte after the last data block.
    pub data_section_end: u64,
    /// Sum of uncompressed data block body lengths.
    pub uncompressed_data_bytes: u64,
    /// Compression of data blocks.
    pub compression: Compression,
    /// Encoding of data blocks.
    pub encoding: DataBlockEncoding,
    /// Data block entries carry tags (format version 2).
    pub includes_tags: bool,
    /// The file info carries the file's identity (flag bit 0 of byte 74). Older builds
    /// ignore the byte and read such files; this build refuses a flagged file whose file
    /// info has no identity.
    pub has_identity: bool,
    /// Data blocks are stored in independently compressed parts (format version 3,
    /// `super::parts`); written only for compressed files.
    pub parted: bool,
}

/// Trailer flag (byte 74): the file info carries the identity.
const FLAG_IDENTITY: u8 = 1;
/// Trailer flag (byte 74) of a version-3 file: data entries carry tags.
const FLAG_TAGS: u8 = 2;

/// Why the trailer was rejected; the reader adds the path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TrailerError {
    /// Shorter than a trailer, or no magic: not a storefile (or truncated).
    NotAStoreFile(String),
    /// A version this build does not know.
    UnsupportedVersion(u32),
    /// Checksum mismatch.
    Checksum {
        /// Stored value.
        stored: u32,
        /// Computed value.
        computed: u32,
    },
    /// A field that cannot be right.
    Bad(String),
}

impl Trailer {
    /// Encodes as format version 3 when the data blocks are in parts, else 1, or 2 when the
    /// file includes tags.
    pub fn encode(&self) -> [u8; TRAILER_LEN_V1] {
        let mut b = [0u8; TRAILER_LEN_V1];
        b[0..8].copy_from_slice(&self.root_index_offset.to_be_bytes());
        b[8..12].copy_from_slice(&self.root_index_size.to_be_bytes());
        b[12..16].copy_from_slice(&self.index_levels.to_be_bytes());
        b[16..24].copy_from_slice(&self.file_info_offset.to_be_bytes());
        b[24..28].copy_from_slice(&self.file_info_size.to_be_bytes());
        b[28..32].copy_from_slice(&self.bloom_size.to_be_bytes());
        b[32..40].copy_from_slice(&self.bloom_offset.to_be_bytes());
        b[40..48].copy_from_slice(&self.data_block_count.to_be_bytes());
        b[48..56].copy_from_slice(&self.cell_count.to_be_bytes());
        b[56..64].copy_from_slice(&self.data_section_end.to_be_bytes());
        b[64..72].copy_from_slice(&self.uncompressed_data_bytes.to_be_bytes());
        b[72] = self.compression.code();
        b[73] = self.encoding.code();
        b[74] = if self.has_identity { FLAG_IDENTITY } else { 0 };
        let version = if self.parted {
            if self.includes_tags {
                b[74] |= FLAG_TAGS;
            }
            FORMAT_VERSION_PARTS
        } else if self.includes_tags {
            FORMAT_VERSION_TAGS
        } else {
            FORMAT_VERSION
        };
        b[84..88].copy_from_slice(&version.to_be_bytes());
        let crc = crc32fast::hash(&b[0..88]);
        b[88..92].copy_from_slice(&crc.to_be_bytes());
        b[92..100].copy_from_slice(TRAILER_MAGIC);
        b
    }

    /// The trailer's checksum (bytes 88..92 of its encoding): a fingerprint of the file's
    /// layout and counts, which a region manifest records beside the file's size so that a
    /// file replaced by another is noticed at open.
    pub fn checksum(&self) -> u32 {
        let b = self.encode();
        u32::from_be_bytes([b[88], b[89], b[90], b[91]])
    }

    /// Decodes the trailer from the tail of a file of `file_len` bytes; `tail` holds the
    /// file's last `min(file_len, TRAILER_LEN_V1)` bytes.
    pub fn decode(tail: &[u8], file_len: u64) -> Result<Self, TrailerError> {
        if tail.len() < TRAILER_LEN_V1 {
            return Err(TrailerError::NotAStoreFile(format!(
                "{file_len} bytes (end offset {file_len}) is shorter than the {TRAILER_LEN_V1}-byte trailer"
            )));
        }
        let b = &tail[tail.len() - TRAILER_LEN_V1..];
        if &b[92..100] != TRAILER_MAGIC {
            return Err(TrailerError::NotAStoreFile(format!(
                "no storefile trailer magic at offset {} (the last 8 bytes)",
                file_len.saturating_sub(8)
            )));
        }
        let version = be_u32(b, 84).unwrap_or(0);
        if ![FORMAT_VERSION, FORMAT_VERSION_TAGS, FORMAT_VERSION_PARTS].contains(&version) {
            // A flipped bit in the version field also lands here; the checksum check below
            // cannot run without knowing the layout, so the message says both.
            return Err(TrailerError::UnsupportedVersion(version));
        }
        let stored = be_u32(b, 88).unwrap_or(0);
        let computed = crc32fast::hash(&b[0..88]);
        if stored != computed {
            return Err(TrailerError::Checksum { stored, computed });
        }
        let get64 = |at| be_u64(b, at).unwrap_or(0);
        let get32 = |at| be_u32(b, at).unwrap_or(0);
        let t = Trailer {
            root_index_offset: get64(0),
            root_index_size: get32(8),
            index_levels: get32(12),
            file_info_offset: get64(16),
            file_info_size: get32(24),
            bloom_size: get32(28),
            bloom_offset: get64(32),
            data_block_count: get64(40),
            cell_count: get64(48),
            data_section_end: get64(56),
            uncompressed_data_bytes: get64(64),
            compression: Compression::from_code(b[72])
                .ok_or_else(|| TrailerError::Bad(format!("compression code {}", b[72])))?,
            encoding: DataBlockEncoding::from_code(b[73])
                .ok_or_else(|| TrailerError::Bad(format!("encoding code {}", b[73])))?,
            includes_tags: version == FORMAT_VERSION_TAGS
                || (version == FORMAT_VERSION_PARTS && b[74] & FLAG_TAGS != 0),
            has_identity: b[74] & FLAG_IDENTITY != 0,
            parted: version == FORMAT_VERSION_PARTS,
        };
        if t.parted && t.compression == Compression::None {
            return Err(TrailerError::Bad(
                "a version-3 (parted) file without compression".to_string(),
            ));
        }
        t.check_extents(file_len - TRAILER_LEN_V1 as u64)?;
        Ok(t)
    }

    /// Every section must lie inside the file before the trailer.
    fn check_extents(&self, body_end: u64) -> Result<(), TrailerError> {
        let within = |name: &str, off: u64, size: u32| match off.checked_add(u64::from(size)) {
            Some(end) if end <= body_end => Ok(()),
            _ => Err(TrailerError::Bad(format!(
                "{name} at {off} (+{size}) extends past the end of the file body ({body_end})"
            ))),
        };
        within("root index", self.root_index_offset, self.root_index_size)?;
        within("file info", self.file_info_offset, self.file_info_size)?;
        if self.bloom_size > 0 {
            within("bloom", self.bloom_offset, self.bloom_size)?;
        }
        if self.data_section_end > body_end {
            return Err(TrailerError::Bad(format!(
                "data section end {} past the file body ({body_end})",
                self.data_section_end
            )));
        }
        // Every framed data block holds at least its framing and a restart count, so the
        // count is bounded by the data section's size. Readers size per-block state from
        // it: an unchecked count is an unbounded allocation.
        let min_block = (super::block_header::FRAMING_LEN + 4) as u64;
        if self.data_block_count > self.data_section_end / min_block {
            return Err(TrailerError::Bad(format!(
                "{} data blocks cannot fit in a {}-byte data section",
                self.data_block_count, self.data_section_end
            )));
        }
        if (self.data_block_count == 0) != (self.index_levels == 0) {
            return Err(TrailerError::Bad(format!(
                "{} data blocks with {} index levels",
                self.data_block_count, self.index_levels
            )));
        }
        if self.index_levels > 8 {
            return Err(TrailerError::Bad(format!(
                "{} index levels (at most 8 are ever written)",
                self.index_levels
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn sample() -> Trailer {
        Trailer {
            root_index_offset: 1000,
            root_index_size: 50,
            index_levels: 1,
            file_info_offset: 1050,
            file_info_size: 40,
            bloom_offset: 900,
            bloom_size: 100,
            data_block_count: 3,
            cell_count: 42,
            data_section_end: 900,
            uncompressed_data_bytes: 1234,
            compression: Compression::Lz4,
            encoding: DataBlockEncoding::Prefix,
            includes_tags: false,
            has_identity: false,
            parted: false,
        }
    }

    #[test]
    fn round_trip() {
        let t = sample();
        let b = t.encode();
        assert_eq!(&b[92..], TRAILER_MAGIC);
        assert_eq!(&b[84..88], &[0, 0, 0, 1]);
        assert_eq!(Trailer::decode(&b, 1190).unwrap(), t);
        let tagged = Trailer {
            includes_tags: true,
            ..sample()
        };
        let b = tagged.encode();
        assert_eq!(&b[84..88], &[0, 0, 0, 2], "files with tags are version 2");
        assert_eq!(Trailer::decode(&b, 1190).unwrap(), tagged);
        let owned = Trailer {
            has_identity: true,
            ..sample()
        };
        let b = owned.encode();
        assert_eq!(b[74], 1, "the identity flag");
        assert_eq!(
            &b[84..88],
            &[0, 0, 0, 1],
            "an identity does not change the version"
        );
        assert_eq!(Trailer::decode(&b, 1190).unwrap(), owned);
        assert_ne!(owned.checksum(), sample().checksum());
        // Parted files are version 3 whether or not they carry tags; tags are flag bit 1.
        for tags in [false, true] {
            let parted = Trailer {
                parted: true,
                includes_tags: tags,
                has_identity: true,
                ..sample()
            };
            let b = parted.encode();
            assert_eq!(&b[84..88], &[0, 0, 0, 3], "files in parts are version 3");
            assert_eq!(b[74], if tags { 3 } else { 1 });
            assert_eq!(Trailer::decode(&b, 1190).unwrap(), parted);
        }
        let uncompressed = Trailer {
            parted: true,
            compression: Compression::None,
            ..sample()
        };
        assert!(matches!(
            Trailer::decode(&uncompressed.encode(), 1190),
            Err(TrailerError::Bad(_))
        ));
    }

    #[test]
    fn every_bit_flip_is_rejected() {
        let b = sample().encode();
        for i in 0..b.len() {
            for bit in 0..8 {
                let mut bad = b;
                bad[i] ^= 1 << bit;
                assert!(Trailer::decode(&bad, 1190).is_err(), "byte {i} bit {bit}");
            }
        }
    }

    #[test]
    fn block_count_must_fit_the_data_section() {
        // Regression (found by the storefile_open_crc_fixed fuzz target): a trailer with a
        // valid checksum and a huge block count made the reader allocate without bound.
        let mut t = sample();
        t.data_block_count = 1 << 56;
        assert!(matches!(
            Trailer::decode(&t.encode(), 1190),
            Err(TrailerError::Bad(_))
        ));
        t.data_block_count = 900 / 28 + 1;
        assert!(Trailer::decode(&t.encode(), 1190).is_err());
        t.data_block_count = 900 / 28;
        assert!(Trailer::decode(&t.encode(), 1190).is_ok());
        t.index_levels = 0;
        assert!(
            Trailer::decode(&t.encode(), 1190).is_err(),
            "blocks without an index"
        );
    }

    #[test]
    fn extents_are_checked() {
        let b = sample().encode();
        // A file too short to hold the sections the trailer names.
        assert!(matches!(
            Trailer::decode(&b, 1100),
            Err(TrailerError::Bad(_))
        ));
        assert!(matches!(
            Trailer::decode(&b[1..], 99),
            Err(TrailerError::NotAStoreFile(_))
        ));
    }
}
