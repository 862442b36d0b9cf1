//! Constants and fixed layouts of the storefile format (`docs/storefile-format.md`):
//! block types and their magics, the block header, the trailer, varints.

pub mod block_header;
pub mod parts;
pub mod row_prefixes;
pub mod trailer;
pub mod varint;

/// Storefile format version of files whose cells carry no tags.
pub const FORMAT_VERSION: u32 = 1;
/// Format version of files whose data block entries carry a tag run after each value
/// (written only when some cell has tags, so tagless files stay readable by version-1
/// readers).
pub const FORMAT_VERSION_TAGS: u32 = 2;
/// Format version of files whose compressed data blocks are stored in parts
/// (`parts`); whether entries carry tags is then bit 1 of the trailer's flag byte.
pub const FORMAT_VERSION_PARTS: u32 = 3;

/// Block kinds. The magics are part of the on-disk format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockType {
    /// Cells.
    Data,
    /// A non-root index block (leaf or intermediate).
    Index,
    /// The root index block.
    RootIndex,
    /// The bloom filter.
    Bloom,
    /// File info (metadata map).
    FileInfo,
}

impl BlockType {
    /// The 8-byte magic that opens a block of this type.
    pub const fn magic(self) -> &'static [u8; 8] {
        match self {
            BlockType::Data => b"RKDATA01",
            BlockType::Index => b"RKIDXL01",
            BlockType::RootIndex => b"RKIDXR01",
            BlockType::Bloom => b"RKBLOOM1",
            BlockType::FileInfo => b"RKFINFO1",
        }
    }

    /// The type whose magic is `m`.
    pub fn from_magic(m: &[u8]) -> Option<Self> {
        [
            BlockType::Data,
            BlockType::Index,
            BlockType::RootIndex,
            BlockType::Bloom,
            BlockType::FileInfo,
        ]
        .into_iter()
        .find(|t| t.magic().as_slice() == m)
    }

    /// Human name, as the inspector prints it.
    pub const fn name(self) -> &'static str {
        match self {
            BlockType::Data => "DATA",
            BlockType::Index => "INDEX",
            BlockType::RootIndex => "ROOT_INDEX",
            BlockType::Bloom => "BLOOM",
            BlockType::FileInfo => "FILE_INFO",
        }
    }
}

/// Block compression (COMPRESSION family option). Codes are on disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Compression {
    /// Stored as is.
    #[default]
    None,
    /// LZ4 block format (lz4_flex).
    Lz4,
}

impl Compression {
    /// On-disk code.
    pub const fn code(self) -> u8 {
        match self {
            Compression::None => 0,
            Compression::Lz4 => 1,
        }
    }
    /// From the on-disk code.
    pub fn from_code(c: u8) -> Option<Self> {
        match c {
            0 => Some(Compression::None),
            1 => Some(Compression::Lz4),
            _ => None,
        }
    }
    /// HBase's name.
    pub const fn name(self) -> &'static str {
        match self {
            Compression::None => "NONE",
            Compression::Lz4 => "LZ4",
        }
    }
}

/// Data block encoding (DATA_BLOCK_ENCODING family option). Codes are on disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DataBlockEncoding {
    /// Every key stored whole.
    #[default]
    None,
    /// Each key stores only its suffix after the prefix it shares with the previous key;
    /// every 16th key is stored whole as a restart point for binary search.
    Prefix,
}

impl DataBlockEncoding {
    /// On-disk code.
    pub const fn code(self) -> u8 {
        match self {
            DataBlockEncoding::None => 0,
            DataBlockEncoding::Prefix => 1,
        }
    }
    /// From the on-disk code.
    pub fn from_code(c: u8) -> Option<Self> {
        match c {
            0 => Some(DataBlockEncoding::None),
            1 => Some(DataBlockEncoding::Prefix),
            _ => None,
        }
    }
    /// HBase's name.
    pub const fn name(self) -> &'static str {
        match self {
            DataBlockEncoding::None => "NONE",
            DataBlockEncoding::Prefix => "PREFIX",
        }
    }
}

/// Reads a big-endian u32 at `at` (bounds-checked).
#[inline]
pub(crate) fn be_u32(b: &[u8], at: usize) -> Option<u32> {
    let s = b.get(at..at.checked_add(4)?)?;
    Some(u32::from_be_bytes([s[0], s[1], s[2], s[3]]))
}

/// Reads a big-endian u64 at `at` (bounds-checked).
#[inline]
pub(crate) fn be_u64(b: &[u8], at: usize) -> Option<u64> {
    let s = b.get(at..at.checked_add(8)?)?;
    let mut a = [0u8; 8];
    a.copy_from_slice(s);
    Some(u64::from_be_bytes(a))
}

#[cfg(test)]
mod tests {
    /// The sizes docs/storefile-format.md documents.
    #[test]
    fn documented_sizes() {
        assert_eq!(super::block_header::HEADER_LEN, 20);
        assert_eq!(super::block_header::CHECKSUM_LEN, 4);
        assert_eq!(super::trailer::TRAILER_LEN_V1, 100);
        assert_eq!(crate::index::INDEX_VALUE_LEN, 20);
        assert_eq!(super::BlockType::Data.magic(), b"RKDATA01");
        assert_eq!(super::trailer::TRAILER_MAGIC, b"RKVSFTRL");
    }
}
