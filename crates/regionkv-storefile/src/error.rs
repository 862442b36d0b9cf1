//! The storefile crate's error type. Corruption always names the file and the byte offset
//! where the bad data sits, so an operator can find it with the `hfile` inspector.

use std::path::PathBuf;
use thiserror::Error;

/// Errors of writing or reading a storefile.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum Error {
    /// The I/O seam failed.
    #[error(transparent)]
    Fs(#[from] regionkv_fs::Error),
    /// A cell could not be encoded (row or family too long).
    #[error(transparent)]
    Cell(#[from] regionkv_cell::Error),
    /// Bytes that are not what the format says they must be.
    #[error("corrupt storefile {}: at offset {offset}: {reason}", path.display())]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// Byte offset of the bad data in the file.
        offset: u64,
        /// What is wrong.
        reason: String,
    },
    /// A block or the trailer whose checksum does not match its bytes.
    #[error(
        "corrupt storefile {}: checksum mismatch in {what} at offset {offset}: stored {stored:#010x}, computed {computed:#010x}",
        path.display()
    )]
    ChecksumMismatch {
        /// The file.
        path: PathBuf,
        /// Offset of the checksummed region.
        offset: u64,
        /// Which structure (data block, root index, ...).
        what: &'static str,
        /// Checksum stored in the file.
        stored: u32,
        /// Checksum of the bytes read.
        computed: u32,
    },
    /// A file without the storefile trailer magic: not a storefile, or truncated.
    #[error("{} is not a regionkv storefile: {reason}", path.display())]
    NotAStoreFile {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// A storefile of a format version this build does not read (written by a newer
    /// regionkv, or a trailer whose version field is damaged: the checksum's coverage
    /// depends on the version, so the two cannot be told apart).
    #[error(
        "storefile {} has unsupported format version {version} (trailer at offset {offset}; a newer writer, or a damaged trailer)",
        path.display()
    )]
    UnsupportedVersion {
        /// The file.
        path: PathBuf,
        /// Offset of the trailer.
        offset: u64,
        /// The version found.
        version: u32,
    },
    /// The writer was given a cell not strictly after the previous one.
    #[error("cells out of order: {current} after {previous}")]
    OutOfOrder {
        /// The previous cell's key.
        previous: String,
        /// The offending cell's key.
        current: String,
    },
    /// An option outside its legal range.
    #[error("invalid storefile option: {0}")]
    InvalidOption(String),
}

/// Result alias of the storefile crate.
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// True for the corruption variants (bad bytes, bad checksum, wrong kind of file).
    pub fn is_corruption(&self) -> bool {
        matches!(
            self,
            Error::Corrupt { .. }
                | Error::ChecksumMismatch { .. }
                | Error::NotAStoreFile { .. }
                | Error::UnsupportedVersion { .. }
        )
    }
}
