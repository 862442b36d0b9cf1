//! The region crate's error type. Lower layers' errors are wrapped with `#[from]`, keeping
//! their `source()`; corruption found here names the file and offset like theirs do.

use std::path::PathBuf;
use thiserror::Error;

/// Errors of regions and stores.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum Error {
    /// The I/O seam failed.
    #[error(transparent)]
    Fs(#[from] regionkv_fs::Error),
    /// A cell, row or name was rejected.
    #[error(transparent)]
    Cell(#[from] regionkv_cell::Error),
    /// A storefile failed.
    #[error(transparent)]
    StoreFile(#[from] regionkv_storefile::Error),
    /// The write-ahead log failed.
    #[error(transparent)]
    Wal(#[from] regionkv_wal::Error),
    /// A split algorithm or split policy rejected its input.
    #[error(transparent)]
    Split(#[from] crate::split::SplitError),
    /// A manifest or region file whose bytes are wrong.
    #[error("corrupt {what} {}: at offset {offset}: {reason}", path.display())]
    Corrupt {
        /// Which kind of file.
        what: &'static str,
        /// The file.
        path: PathBuf,
        /// Byte offset of the bad data.
        offset: u64,
        /// What is wrong.
        reason: String,
    },
    /// A file that is not the one its place expects: a storefile copied or moved from
    /// another region, family or table, a manifest swapped with another region's, a file
    /// replaced by another of a different size or trailer. Says what the file claims to be
    /// and where (as what) it was found.
    #[error("{what} {} belongs elsewhere: it is {claims}, but was found as {found_as}", path.display())]
    Misplaced {
        /// Which kind of file.
        what: &'static str,
        /// The file.
        path: PathBuf,
        /// What the file says it is.
        claims: String,
        /// What the place it was found in expects.
        found_as: String,
    },
    /// A descriptor option out of range, or a missing family.
    #[error("{0}")]
    InvalidDescriptor(String),
    /// A mutation names a family the table does not have (HBase's
    /// NoSuchColumnFamilyException wording).
    #[error("Column family {family} does not exist in region {region} in table {table}")]
    NoSuchColumnFamily {
        /// The family.
        family: String,
        /// The region's encoded name.
        region: String,
        /// The table.
        table: String,
    },
    /// A row outside the region's key range (HBase's WrongRegionException).
    #[error("row {row} is not in region {region} [{start}, {end})")]
    WrongRegion {
        /// The row, escaped.
        row: String,
        /// The region's encoded name.
        region: String,
        /// Start key, escaped.
        start: String,
        /// End key, escaped.
        end: String,
    },
    /// The row lock could not be had in time.
    #[error("timed out waiting for lock for row {0}")]
    RowLockTimeout(String),
    /// Writes are held back: the memstore is over its blocking size and the flush did not
    /// catch up within the wait bound (HBase's RegionTooBusyException).
    #[error(
        "region {region} is too busy: memstore size {size} is above the blocking limit {limit}"
    )]
    RegionTooBusy {
        /// The region's encoded name.
        region: String,
        /// Current memstore data size.
        size: u64,
        /// The blocking limit.
        limit: u64,
    },
    /// An earlier failure (a failed WAL sync or flush) makes the region refuse writes until
    /// it is reopened (sticky error, as leveldb's bg_error_).
    #[error("region {region} refuses writes after an earlier failure: {cause}")]
    Poisoned {
        /// The region's encoded name.
        region: String,
        /// The first failure.
        cause: String,
    },
    /// The region is closed.
    #[error("region {0} is closed")]
    Closed(String),
}

/// Result alias of the region crate.
pub type Result<T> = std::result::Result<T, Error>;
