//! The HFile crate's error type. Damage always names the file and the byte offset where the
//! bad bytes sit, so it can be found with `regionkv hfile` or a hex dump.

use std::path::PathBuf;
use thiserror::Error;

/// Errors of reading, writing or checking an HBase HFile.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum Error {
    /// The I/O seam failed.
    #[error(transparent)]
    Fs(#[from] regionkv_fs::Error),
    /// Bytes that are not what HBase's format says they must be.
    #[error("corrupt HFile {}: at offset {offset}: {reason}", path.display())]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// Byte offset of the bad data in the file.
        offset: u64,
        /// What is wrong.
        reason: String,
    },
    /// A checksum chunk of a block that does not match its bytes.
    #[error(
        "corrupt HFile {}: {kind} checksum mismatch in the {block} block at offset {offset} (chunk at {chunk_offset}): stored {stored:#010x}, computed {computed:#010x}",
        path.display()
    )]
    ChecksumMismatch {
        /// The file.
        path: PathBuf,
        /// Offset of the block.
        offset: u64,
        /// Offset of the checksummed chunk.
        chunk_offset: u64,
        /// The block's type.
        block: &'static str,
        /// The checksum algorithm (`CRC32C`, `CRC32`).
        kind: &'static str,
        /// Checksum stored in the file.
        stored: u32,
        /// Checksum of the bytes read.
        computed: u32,
    },
    /// Not an HFile HBase 2.x reads: no trailer magic, or a version other than 2.3+ or 3.x.
    #[error("{} is not an HBase HFile v2/v3: {reason}", path.display())]
    NotAnHFile {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// A valid HFile using a feature this build does not read (a codec, a data block
    /// encoding, an encryption key).
    #[error("HFile {}: {what} is not supported", path.display())]
    Unsupported {
        /// The file.
        path: PathBuf,
        /// The feature.
        what: String,
    },
}

/// The crate's result type.
pub type Result<T> = std::result::Result<T, Error>;

/// A [`Error::Corrupt`] of `path` at `offset`.
pub(crate) fn corrupt(path: &std::path::Path, offset: u64, reason: impl Into<String>) -> Error {
    Error::Corrupt {
        path: path.to_path_buf(),
        offset,
        reason: reason.into(),
    }
}
