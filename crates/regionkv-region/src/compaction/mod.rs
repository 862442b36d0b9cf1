//! Compaction *policy*: which storefiles of a store to compact and when, as HBase 2.x's
//! `HStore.requestCompaction` and `SortedCompactionPolicy` family decide it. The
//! *mechanics* (merging the chosen files) are in [`compactor`].
//!
//! Every function here is pure: it takes a snapshot ([`SelectionInput`], a
//! [`CompactionConfig`]) and returns a decision. Reading clocks, holding the off-peak
//! slot, tracking which files are compacting and clearing the force-major flag are the
//! caller's job (STYLE.md §2.4).
//!
//! * [`config`]: the knobs, HBase's configuration keys and defaults, off-peak hours.
//! * [`policy`]: expired-file removal, the selection pipeline with
//!   `ExploringCompactionPolicy` (default) or `RatioBasedCompactionPolicy`, time-based
//!   majors with HBase's deterministic jitter, and the store-pressure rules (stuck,
//!   priority, blocking, pool choice).
//!
//! Checked against HBase's own vectors (`TestDefaultCompactSelection`,
//! `TestCompactionPolicy`, ...) in `tests/compaction_selection_vectors.rs`.

pub mod compactor;
pub mod config;
pub mod policy;

#[cfg(test)]
mod tests;

pub use config::{CompactionConfig, is_off_peak};
pub use policy::{
    CompactionDecision, CompactionPolicyKind, PRIORITY_USER, SPLIT_REGION_COMPACTION_PRIORITY,
    Selection, SelectionInput, StoreFileStats, compact_priority, compaction_pressure,
    expired_files, exploring_window, has_too_many_store_files, is_large_compaction,
    java_string_hash, major_compaction_interval_bounds, may_be_stuck, needs_compaction,
    next_major_compaction_interval, ratio_based_start, region_compact_priority, request_priority,
    select, select_compaction, should_major_compact, split_allowed_by_priority, store_file_ttl,
};
