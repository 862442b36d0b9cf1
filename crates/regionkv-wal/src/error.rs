//! The WAL crate's one error type.
//!
//! Corruption always names the log file and the byte offset of the bad record, so an operator
//! can look at it with `regionkv wal`. A failed write or sync *poisons* the WAL: that first
//! failure is kept as the [`source`](std::error::Error::source) of every later
//! [`Error::Poisoned`].

use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The result type of every fallible call in this crate.
pub type Result<T> = std::result::Result<T, Error>;

/// Errors of writing, reading or replaying the write-ahead log.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The I/O seam failed outside the write path (listing, opening, reading, deleting logs).
    #[error(transparent)]
    Fs(#[from] regionkv_fs::Error),
    /// Bytes of a log file that are not what the format says they must be.
    #[error("corrupt WAL {}: at offset {offset}: {reason}", path.display())]
    Corrupt {
        /// The log file.
        path: PathBuf,
        /// Byte offset of the bad record (or of the header) in the file.
        offset: u64,
        /// What is wrong.
        reason: String,
    },
    /// A file without the WAL magic: not a log file at all.
    #[error("{} is not a regionkv WAL: {reason}", path.display())]
    NotAWal {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// Records are missing from a log that later evidence proves were written: a later
    /// log recorded this one as longer (when it rolled from it, or when a recovery read
    /// it), or a log that was rolled from ends without its seal. Not a torn tail: the
    /// default recovery refuses it; the salvage (`RecoveryMode::SkipAnyCorrupted`, what
    /// `regionkv repair` uses) replays what is left.
    #[error(
        "WAL {} is truncated: its records end at offset {offset} ({last}), but {evidence}",
        path.display()
    )]
    Truncated {
        /// The log file.
        path: PathBuf,
        /// Where its valid records end.
        offset: u64,
        /// The last edit recovered from it (region and sequence id), as text.
        last: String,
        /// What proves more was written.
        evidence: String,
    },
    /// A log written by another Db (its header names another Db id), found in this Db's
    /// WAL directory.
    #[error(
        "WAL {} belongs to another database (db id {belongs_to}), not to this one ({found_in})",
        path.display()
    )]
    ForeignLog {
        /// The log file.
        path: PathBuf,
        /// The Db id the log names, in hex.
        belongs_to: String,
        /// This Db's id, in hex.
        found_in: String,
    },
    /// A log file of a format version this build does not read.
    #[error(
        "WAL {} has unsupported format version {version} (this build reads version {supported})",
        path.display()
    )]
    UnsupportedVersion {
        /// The log file.
        path: PathBuf,
        /// The version found.
        version: u32,
        /// The version this build reads and writes.
        supported: u32,
    },
    /// An earlier write or sync of the log failed. The WAL accepts nothing more until it is
    /// reopened (and the log replayed): after a failed `fsync` the kernel may have dropped the
    /// dirty pages, so retrying could report success for data that is gone (fsyncgate).
    #[error(
        "the write-ahead log refuses writes after an earlier I/O failure; reopen it to recover"
    )]
    Poisoned {
        /// The failure that poisoned the log.
        #[source]
        cause: Arc<regionkv_fs::Error>,
    },
    /// The WAL was closed.
    #[error("the write-ahead log is closed")]
    Closed,
    /// An edit whose record would exceed the largest record the format allows.
    #[error("WAL edit of {size} bytes exceeds the maximum record size of {max} bytes")]
    EditTooLarge {
        /// Encoded payload size of the edit.
        size: u64,
        /// The limit ([`MAX_PAYLOAD_LEN`](crate::format::MAX_PAYLOAD_LEN)).
        max: u64,
    },
    /// An edit the format cannot represent (a region or table name longer than 65535 bytes).
    #[error("invalid WAL edit: {0}")]
    InvalidEdit(&'static str),
    /// A [`WalConfig`](crate::WalConfig) value outside its legal range.
    #[error("invalid WAL configuration: {0}")]
    InvalidConfig(&'static str),
}

impl Error {
    /// True for the variants that describe damaged or foreign bytes on disk.
    pub fn is_corruption(&self) -> bool {
        matches!(
            self,
            Error::Corrupt { .. }
                | Error::NotAWal { .. }
                | Error::UnsupportedVersion { .. }
                | Error::Truncated { .. }
                | Error::ForeignLog { .. }
        )
    }

    /// True when the WAL refused the call because of an earlier failure.
    pub fn is_poisoned(&self) -> bool {
        matches!(self, Error::Poisoned { .. })
    }

    /// The file the error is about, when there is one.
    pub fn path(&self) -> Option<&Path> {
        match self {
            Error::Fs(e) => Some(e.path()),
            Error::Corrupt { path, .. }
            | Error::NotAWal { path, .. }
            | Error::UnsupportedVersion { path, .. }
            | Error::Truncated { path, .. }
            | Error::ForeignLog { path, .. } => Some(path),
            Error::Poisoned { cause } => Some(cause.path()),
            Error::Closed
            | Error::EditTooLarge { .. }
            | Error::InvalidEdit(_)
            | Error::InvalidConfig(_) => None,
        }
    }

    /// The byte offset of the bad record, for [`Error::Corrupt`].
    pub fn offset(&self) -> Option<u64> {
        match self {
            Error::Corrupt { offset, .. } | Error::Truncated { offset, .. } => Some(*offset),
            Error::NotAWal { .. } | Error::UnsupportedVersion { .. } | Error::ForeignLog { .. } => {
                Some(0)
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corruption_names_file_and_offset() {
        let e = Error::Corrupt {
            path: "/db/wal/wal.00000000000000000003.log".into(),
            offset: 1234,
            reason: "record checksum mismatch".into(),
        };
        assert_eq!(
            e.to_string(),
            "corrupt WAL /db/wal/wal.00000000000000000003.log: at offset 1234: record checksum mismatch"
        );
        assert!(e.is_corruption());
        assert_eq!(e.offset(), Some(1234));
    }

    #[test]
    fn poisoned_keeps_the_first_failure_as_source() {
        let cause = regionkv_fs::Error::io("sync_data", "/db/wal/x", std::io::Error::other("EIO"));
        let e = Error::Poisoned {
            cause: Arc::new(cause),
        };
        assert!(e.is_poisoned());
        let source = std::error::Error::source(&e).map(ToString::to_string);
        assert_eq!(source.as_deref(), Some("sync_data failed on /db/wal/x"));
        assert_eq!(e.path(), Some(Path::new("/db/wal/x")));
    }
}
