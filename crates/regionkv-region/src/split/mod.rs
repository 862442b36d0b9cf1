//! Split *math*: where a table is pre-split, when a region should split, and at which row,
//! exactly as HBase 2.x computes it. Everything here is pure (no I/O, no clock, no random
//! source): callers pass the snapshot and the random draw, and get back keys or a decision.
//! Performing a split (reference files, daughters) is not here.
//!
//! * [`algorithm`]: `RegionSplitter`'s `HexStringSplit`, `DecimalStringSplit` and
//!   `UniformSplit`, `Bytes.split` with its `BigInteger` arithmetic, and the start/end/count
//!   pre-split of `Admin.createTable`.
//! * [`policy`]: the table's `RegionSplitPolicy` (`SteppingSplitPolicy` by default) as
//!   functions of a stats snapshot: jittered max size, size to check, should-split, the
//!   key-prefix adjustment of the split row, and `BusyRegionSplitPolicy`'s blocked-rate
//!   window.
//! * [`midkey`]: the split row of a storefile: the shortened block-index keys HBase
//!   writes (`HFileWriterImpl.getMidpoint`), which index entry is the mid-key
//!   (`HFileBlockIndex`), and the "midkey on the first or last row cannot split" rule.
//!
//! Checked against the shared policy vectors in `tests/split_vectors.rs`.

pub mod algorithm;
pub mod daughters;
pub mod midkey;
pub mod policy;

#[cfg(test)]
mod tests;

pub use algorithm::{SplitAlgorithm, SplitAlgorithmKind, bytes_split, split_keys_for_range};
pub use midkey::{file_split_row, midkey_block, midpoint_row};
pub use policy::{
    BusyConfig, BusyTracker, SplitConfig, SplitPolicy, adjust_split_point, desired_max_file_size,
    exceeds_size, initial_size, should_split, size_to_check,
};

use thiserror::Error;

/// Why a split computation was refused: the cases where HBase throws (mostly
/// `IllegalArgumentException` / `IllegalStateException`) or returns `null`. Messages follow
/// HBase's wording where it has one, so users comparing with a cluster see the same text.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum SplitError {
    /// `Bytes.split`: after padding to equal length, the end does not sort after the start.
    #[error("b <= a: {end} does not sort after {start}")]
    EndNotAfterStart {
        /// The start, escaped like `Bytes.toStringBinary`.
        start: String,
        /// The end, escaped like `Bytes.toStringBinary`.
        end: String,
    },
    /// `Bytes.split` asked for no split points.
    #[error("num cannot be <= 0")]
    NoSplitPoints,
    /// More split points or regions than HBase can count (it uses a Java `int`).
    #[error("{0} is too many: HBase counts split points and regions in a Java int")]
    TooMany(usize),
    /// A `RegionSplitter` algorithm whose configured last row is not above its first row.
    #[error("last row ({last}) is configured less than first row ({first})")]
    LastRowNotAfterFirst {
        /// The first row as configured.
        first: String,
        /// The last row as configured.
        last: String,
    },
    /// More regions than there are distinct rows between the first and last row.
    #[error("split granularity ({regions}) is greater than the range ({range})")]
    TooGranular {
        /// Regions asked for.
        regions: usize,
        /// Size of the row range, in decimal.
        range: String,
    },
    /// Fewer regions than the operation allows.
    #[error("must create at least {min} regions, got {got}")]
    TooFewRegions {
        /// The least count accepted.
        min: usize,
        /// The count asked for.
        got: usize,
    },
    /// `Admin.createTable(desc, startKey, endKey, numRegions)` with `startKey >= endKey`.
    #[error("Start key must be smaller than end key")]
    StartNotBeforeEnd,
    /// A row that the algorithm cannot read (HBase's `NumberFormatException` or a truncated
    /// `\x` escape).
    #[error("invalid {algorithm} row {input:?}: {reason}")]
    InvalidRow {
        /// The algorithm's name.
        algorithm: &'static str,
        /// The row as given (escaped if binary).
        input: String,
        /// What is wrong.
        reason: &'static str,
    },
    /// `HexStringSplit`/`DecimalStringSplit.split(start, end)` with an end row of zero
    /// (HBase's precondition; an empty end row counts as zero).
    #[error("the end row of {0}.split(start, end) must not be zero")]
    ZeroEndRow(&'static str),
    /// A split algorithm name `RegionSplitter` does not know.
    #[error("unknown split algorithm {0:?}")]
    UnknownAlgorithm(String),
    /// A split policy class name HBase 2.x does not ship.
    #[error("Unable to load configured region split policy '{0}'")]
    UnknownPolicy(String),
    /// A prefix policy whose table parameter is missing or invalid. (HBase only logs this;
    /// since HBASE-24670 the policy is then left without its base policy and the region's
    /// split check fails, so refusing it up front is the faithful choice.)
    #[error("{policy}: {key} is {reason}{}", got(value))]
    InvalidPolicyParameter {
        /// The policy's short class name.
        policy: &'static str,
        /// The table key.
        key: &'static str,
        /// The value found, if any.
        value: Option<String>,
        /// What is wrong.
        reason: &'static str,
    },
}

/// The " (got …)" tail of [`SplitError::InvalidPolicyParameter`]'s message.
fn got(value: &Option<String>) -> String {
    value
        .as_ref()
        .map(|v| format!(" (got {v:?})"))
        .unwrap_or_default()
}

/// Result alias of the split module.
pub type Result<T> = std::result::Result<T, SplitError>;
