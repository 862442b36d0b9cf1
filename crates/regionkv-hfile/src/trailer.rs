//! The fixed file trailer (HBase's `FixedFileTrailer`): the last bytes of every HFile, found
//! from the end. The version word (last 4 bytes, big-endian: low 24 bits major, high 8 bits
//! minor) fixes the trailer's size: 212 bytes for v2, 4096 for v3.
//!
//! | offset in trailer | size | content |
//! |---|---|---|
//! | 0 | 8 | magic `TRABLK"$` |
//! | 8 | var | protobuf varint length, then a `FileTrailerProto` |
//! | … | … | zero padding |
//! | size − 4 | 4 | version word |

use prost::Message;
use regionkv_fs::ReadableFile;

use crate::error::{Error, Result, corrupt};
use crate::proto::FileTrailerProto;

/// The trailer's magic.
pub const TRAILER_MAGIC: &[u8; 8] = b"TRABLK\"$";
/// The v3 trailer's size.
pub const TRAILER_SIZE_V3: u64 = 4096;
/// The v2 trailer's size.
pub const TRAILER_SIZE_V2: u64 = 212;
/// HBase's comparator name in trailers of user tables (HBase 2 writes the HBase-1 name).
pub const KV_COMPARATOR: &str = "org.apache.hadoop.hbase.KeyValue$KVComparator";
/// The minor version HBase 2.x writes: protobuf trailer and shortened ("fake") index keys.
pub const MINOR_VERSION: u8 = 3;

/// HBase's `Compression.Algorithm`, by ordinal (the trailer stores the ordinal).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Compression {
    /// LZO (not read).
    Lzo,
    /// A gzip member per block.
    Gz,
    /// Stored as is.
    None,
    /// Snappy in Hadoop's block framing (not read).
    Snappy,
    /// Raw LZ4 blocks in Hadoop's block framing.
    Lz4,
    /// BZIP2 (not read).
    Bzip2,
    /// ZSTD (not read).
    Zstd,
    /// LZMA (not read).
    Lzma,
    /// Brotli (not read).
    Brotli,
}

impl Compression {
    /// Every algorithm, in HBase's ordinal order.
    pub const ALL: [Compression; 9] = [
        Compression::Lzo,
        Compression::Gz,
        Compression::None,
        Compression::Snappy,
        Compression::Lz4,
        Compression::Bzip2,
        Compression::Zstd,
        Compression::Lzma,
        Compression::Brotli,
    ];

    /// The algorithm with HBase's ordinal `ordinal`.
    pub fn from_ordinal(ordinal: u32) -> Option<Compression> {
        Compression::ALL.get(ordinal as usize).copied()
    }

    /// HBase's ordinal.
    pub fn ordinal(self) -> u32 {
        Compression::ALL
            .iter()
            .position(|c| *c == self)
            .unwrap_or(0) as u32
    }

    /// HBase's name (`Compression.Algorithm.getName`), as the shell and FileInfo print it.
    pub const fn name(self) -> &'static str {
        match self {
            Compression::Lzo => "lzo",
            Compression::Gz => "gz",
            Compression::None => "none",
            Compression::Snappy => "snappy",
            Compression::Lz4 => "lz4",
            Compression::Bzip2 => "bzip2",
            Compression::Zstd => "zstd",
            Compression::Lzma => "lzma",
            Compression::Brotli => "brotli",
        }
    }

    /// The algorithm named `name` (any case; HBase's names, as in a family's COMPRESSION).
    pub fn from_name(name: &str) -> Option<Compression> {
        Compression::ALL
            .into_iter()
            .find(|c| c.name().eq_ignore_ascii_case(name))
    }
}

/// A parsed trailer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Trailer {
    /// Major version (2 or 3).
    pub major: u32,
    /// Minor version.
    pub minor: u8,
    /// Where the trailer starts (the end of the last block).
    pub offset: u64,
    /// The trailer's size.
    pub size: u64,
    /// The protobuf fields.
    pub proto: FileTrailerProto,
    /// The block codec.
    pub compression: Compression,
}

/// Java's -1 as protobuf stores it in a `uint64`.
const JAVA_MINUS_ONE: u64 = u64::MAX;

impl Trailer {
    /// Reads the trailer of `file`.
    pub fn read(file: &dyn ReadableFile) -> Result<Trailer> {
        let path = file.path();
        let len = file.len();
        let not = |reason: String| Error::NotAnHFile {
            path: path.to_path_buf(),
            reason,
        };
        if len < 4 {
            return Err(not(format!("{len} bytes is too short for a trailer")));
        }
        let mut word = [0u8; 4];
        file.read_at(len - 4, &mut word)?;
        let word = u32::from_be_bytes(word);
        let (major, minor) = (word & 0x00ff_ffff, (word >> 24) as u8);
        let size = match (major, minor) {
            (3, _) => TRAILER_SIZE_V3,
            (2, m) if m >= 3 => TRAILER_SIZE_V2,
            _ => {
                return Err(not(format!(
                    "version {major}.{minor} (HBase 2.x reads 2.3 and later, and 3.x)"
                )));
            }
        };
        if len < size {
            return Err(not(format!(
                "{len} bytes is too short for a v{major} trailer of {size} bytes"
            )));
        }
        let offset = len - size;
        let bytes = file.read_to_vec(offset, size as usize)?;
        if &bytes[..8] != TRAILER_MAGIC {
            return Err(not(format!("no trailer magic at offset {offset}")));
        }
        let body = &bytes[8..bytes.len() - 4];
        let proto = FileTrailerProto::decode_length_delimited(body)
            .map_err(|e| corrupt(path, offset + 8, format!("trailer protobuf: {e}")))?;
        let codec = proto
            .compression_codec
            .unwrap_or(Compression::None.ordinal());
        let compression = Compression::from_ordinal(codec).ok_or_else(|| {
            corrupt(
                path,
                offset + 8,
                format!("unknown compression codec {codec}"),
            )
        })?;
        if proto.encryption_key.is_some() {
            return Err(Error::Unsupported {
                path: path.to_path_buf(),
                what: "an encrypted HFile".into(),
            });
        }
        Ok(Trailer {
            major,
            minor,
            offset,
            size,
            proto,
            compression,
        })
    }

    /// The first data block's offset, `None` for a file without cells.
    pub fn first_data_block_offset(&self) -> Option<u64> {
        self.proto
            .first_data_block_offset
            .filter(|o| *o != JAVA_MINUS_ONE)
    }

    /// The last data block's offset, `None` for a file without cells.
    pub fn last_data_block_offset(&self) -> Option<u64> {
        self.proto
            .last_data_block_offset
            .filter(|o| *o != JAVA_MINUS_ONE)
    }

    /// Where the load-on-open section starts.
    pub fn load_on_open_offset(&self) -> u64 {
        self.proto.load_on_open_data_offset.unwrap_or(0)
    }

    /// Levels of the data index (1 for a root-only index, and for an empty file).
    pub fn index_levels(&self) -> u32 {
        self.proto.num_data_index_levels.unwrap_or(1)
    }

    /// Cells in the file.
    pub fn entry_count(&self) -> u64 {
        self.proto.entry_count.unwrap_or(0)
    }

    /// Entries of the data index root.
    pub fn data_index_count(&self) -> u32 {
        self.proto.data_index_count.unwrap_or(0)
    }

    /// META blocks.
    pub fn meta_index_count(&self) -> u32 {
        self.proto.meta_index_count.unwrap_or(0)
    }

    /// The comparator's Java class name.
    pub fn comparator(&self) -> &str {
        self.proto.comparator_class_name.as_deref().unwrap_or("")
    }

    /// The trailer's bytes: magic, the delimited protobuf, zero padding, the version word;
    /// `None` when the protobuf does not fit in [`Trailer::size`].
    pub fn encode(&self) -> Option<Vec<u8>> {
        let size = usize::try_from(self.size).ok()?;
        let mut out = Vec::with_capacity(size);
        out.extend_from_slice(TRAILER_MAGIC);
        out.extend_from_slice(&self.proto.encode_length_delimited_to_vec());
        if out.len() > size.checked_sub(4)? {
            return None;
        }
        out.resize(size - 4, 0);
        out.extend_from_slice(&((u32::from(self.minor) << 24) | self.major).to_be_bytes());
        Some(out)
    }
}
