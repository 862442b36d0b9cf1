//! The memstore's error type. Everything a memstore does happens in memory, so the only
//! failure is a caller breaking the flush protocol.

use thiserror::Error;

/// Errors of the memstore.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// `clear_snapshot` named a snapshot other than the current one (HBase's
    /// `UnexpectedStateException` "Current snapshot id is …").
    #[error("current snapshot id is {current}, passed {given}")]
    SnapshotIdMismatch {
        /// Id of the snapshot the memstore holds.
        current: u64,
        /// Id the caller passed.
        given: u64,
    },
}

/// `Result` with the memstore's [`enum@Error`].
pub type Result<T> = std::result::Result<T, Error>;
