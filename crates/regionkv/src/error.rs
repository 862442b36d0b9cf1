//! The facade's error type: HBase's client exceptions as variants (TableNotFound,
//! TableExists, TableNotEnabled, NamespaceNotEmpty ...), with the lower layers' errors
//! wrapped so their `source()` and file/offset details survive.

use std::path::PathBuf;
use thiserror::Error;

/// Errors of the regionkv API.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum Error {
    /// A region, store, storefile or WAL failed (corruption names its file and offset).
    #[error(transparent)]
    Region(#[from] regionkv_region::Error),
    /// The I/O seam failed.
    #[error(transparent)]
    Fs(#[from] regionkv_fs::Error),
    /// A row, family or name was rejected.
    #[error(transparent)]
    Cell(#[from] regionkv_cell::Error),
    /// HBase's TableNotFoundException.
    #[error("table {0} does not exist")]
    TableNotFound(String),
    /// HBase's TableExistsException.
    #[error("table {0} already exists")]
    TableExists(String),
    /// HBase's TableNotEnabledException (reads and writes of a disabled table).
    #[error("table {0} is disabled")]
    TableNotEnabled(String),
    /// HBase's TableNotDisabledException (drop or truncate of an enabled table).
    #[error("table {0} is enabled; disable it first")]
    TableNotDisabled(String),
    /// HBase's NamespaceNotFoundException.
    #[error("namespace {0} does not exist")]
    NamespaceNotFound(String),
    /// HBase's NamespaceExistException.
    #[error("namespace {0} already exists")]
    NamespaceExists(String),
    /// HBase's ConstraintException for dropping a namespace that still has tables (or a
    /// reserved one).
    #[error("namespace {0}: {1}")]
    NamespaceConstraint(String, String),
    /// A bad argument (HBase's IllegalArgumentException / DoNotRetryIOException).
    #[error("{0}")]
    InvalidArgument(String),
    /// The directory is held by another open Db (this or another process).
    #[error("{} is in use by another regionkv process (lock file {})", dir.display(), lock.display())]
    Locked {
        /// The Db directory.
        dir: PathBuf,
        /// The lock file.
        lock: PathBuf,
    },
    /// The directory is not a regionkv Db, or is one of a format this build cannot read.
    #[error("{}: {reason}", dir.display())]
    NotADb {
        /// The directory.
        dir: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// A catalog file whose bytes are wrong.
    #[error("corrupt catalog {}: at offset {offset}: {reason}", path.display())]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// Byte offset of the bad data.
        offset: u64,
        /// What is wrong.
        reason: String,
    },
    /// A filter string that does not parse, or a filter that cannot be built.
    #[error(transparent)]
    Filter(#[from] regionkv_region::filter::FilterError),
    /// The Db was closed.
    #[error("the database is closed")]
    Closed,
    /// Mutations of a BufferedMutator that failed (HBase's
    /// RetriesExhaustedWithDetailsException): how many, and the first cause.
    #[error("{failed} mutation(s) failed; first: {first}")]
    MutationsFailed {
        /// How many failed.
        failed: usize,
        /// The first error, as text.
        first: String,
    },
}

/// `Result` with regionkv's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
