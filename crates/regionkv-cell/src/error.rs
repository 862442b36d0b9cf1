//! The cell crate's error type: every way a coordinate, key, time range or encoded number
//! can be rejected. Variants carry the offending values so callers can report them.

use thiserror::Error;

/// Errors of the cell vocabulary.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// A row key is longer than HBase allows (`Short.MAX_VALUE` bytes).
    #[error("row length {len} exceeds the maximum of {max} bytes")]
    RowTooLong {
        /// Length that was given.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// A mutation named an empty row; HBase refuses those ("Row length is 0").
    #[error("row length is 0")]
    EmptyRow,
    /// A family name is longer than HBase allows (`Byte.MAX_VALUE` bytes).
    #[error("family length {len} exceeds the maximum of {max} bytes")]
    FamilyTooLong {
        /// Length that was given.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// A family name breaks HBase's naming rules.
    #[error("illegal column family name '{name}': {reason}")]
    IllegalFamilyName {
        /// The name, escaped like `Bytes.toStringBinary`.
        name: String,
        /// Which rule it breaks.
        reason: &'static str,
    },
    /// A table or namespace name breaks HBase's naming rules.
    #[error("illegal table name '{name}': {reason}")]
    IllegalTableName {
        /// The name, escaped like `Bytes.toStringBinary`.
        name: String,
        /// Which rule it breaks.
        reason: &'static str,
    },
    /// A cell (key plus value) is larger than the configured maximum.
    #[error("cell size {size} exceeds the maximum of {max} bytes")]
    CellTooLarge {
        /// Size that was given.
        size: usize,
        /// The limit.
        max: usize,
    },
    /// A timestamp given by a client is negative.
    #[error("timestamp cannot be negative: {0}")]
    NegativeTimestamp(i64),
    /// A time range whose bounds are negative or reversed.
    #[error("invalid time range [{min}, {max}): {reason}")]
    InvalidTimeRange {
        /// Lower bound (inclusive).
        min: i64,
        /// Upper bound (exclusive).
        max: i64,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// A byte that is not one of HBase's cell type codes.
    #[error("unknown cell type code {0}")]
    UnknownCellType(u8),
    /// A cell's tag run that does not parse (`crate::tag`).
    #[error("malformed tags of {len} bytes: {reason}")]
    MalformedTags {
        /// Length of the run.
        len: usize,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// Encoded key bytes that do not parse.
    #[error("malformed key of {len} bytes: {reason}")]
    MalformedKey {
        /// Length of the bytes that were offered as a key.
        len: usize,
        /// What is wrong with them.
        reason: &'static str,
    },
    /// A fixed-width number decoded from a slice of the wrong length.
    #[error("expected {expected} bytes, got {got}")]
    WrongLength {
        /// Width of the number.
        expected: usize,
        /// Length of the slice.
        got: usize,
    },
    /// A `\x` escape in a `Bytes.toStringBinary`-style string ended early.
    #[error("truncated \\x escape at character {position} of {input:?}")]
    TruncatedEscape {
        /// The whole input.
        input: String,
        /// Character index of the backslash.
        position: usize,
    },
}

/// Result alias of the cell crate.
pub type Result<T> = std::result::Result<T, Error>;
