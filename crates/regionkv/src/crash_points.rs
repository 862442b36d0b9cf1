//! The named crash points inside regionkv's multi-step operations: WAL group commit and
//! roll, every step of flush, compaction, split and merge, the janitor, and recovery.
//!
//! They are the `fail` crate's fail points, compiled in only with the `failpoints`
//! feature (off by default: without it each point is nothing at all). A test configures a
//! point with `fail::cfg_callback(name, ...)` or `fail::cfg(name, "panic")` and the engine
//! stops there; `tests/crash_points.rs` kills a real process at each of them and checks the
//! invariants of docs/reliability.md after recovery. [`ALL`] is the list that test
//! walks; a point named here but never reached by its workload fails it.

/// Every crash point: its name and the state a crash there leaves on disk.
pub const ALL: &[(&str, &str)] = &[
    // WAL group commit (regionkv-wal, `Wal::lead`).
    (
        "wal-before-append",
        "a commit round took its batch; nothing of it written",
    ),
    (
        "wal-before-sync",
        "the batch is written to the OS, not yet fdatasync'ed",
    ),
    (
        "wal-after-sync",
        "the batch is durable, its writers not yet acknowledged",
    ),
    // WAL roll and clean-up.
    (
        "wal-roll-before-create",
        "the old log is synced, the new one not created",
    ),
    (
        "wal-roll-after-create",
        "the new log exists, the old one not yet released",
    ),
    (
        "wal-before-delete-log",
        "a fully flushed log is about to be deleted",
    ),
    // Flush (regionkv-region, `Region::flush_with`).
    (
        "flush-after-snapshot",
        "the memstore is snapshotted, no storefile written",
    ),
    (
        "flush-before-commit",
        "new storefiles are written and synced, the manifest does not name them",
    ),
    (
        "flush-after-commit",
        "the manifest names the new files, the memstore snapshot is still held",
    ),
    (
        "flush-before-wal-mark",
        "the flush is live, the WAL not yet told its edits are flushed",
    ),
    // Compaction (regionkv-region, `Region::compact_files`).
    (
        "compaction-before-commit",
        "the output is written and synced, the manifest still names the inputs",
    ),
    (
        "compaction-after-commit",
        "the manifest names the output, the inputs still exist",
    ),
    (
        "compaction-before-delete-input",
        "an input file is about to be unlinked",
    ),
    // Split (regionkv, the catalog commit is the point of no return).
    (
        "split-after-close",
        "the parent is closed and flushed, no daughter written (rolls back)",
    ),
    (
        "split-after-daughter",
        "a daughter's directory and manifest are written (rolls back)",
    ),
    (
        "split-after-commit",
        "the catalog names the daughters, none open yet (rolls forward)",
    ),
    (
        "split-after-open-daughters",
        "the daughters are open, the parent still in the region map (rolls forward)",
    ),
    // Merge (the same shape as a split).
    (
        "merge-after-close",
        "the parents are closed and flushed, no child written (rolls back)",
    ),
    (
        "merge-before-commit",
        "the merged child is written, the catalog names the parents (rolls back)",
    ),
    (
        "merge-after-commit",
        "the catalog names the merged child, not open yet (rolls forward)",
    ),
    // Janitor.
    (
        "janitor-before-remove",
        "an unreferenced parent or uncommitted child directory is about to be removed",
    ),
    // Recovery (`Db::open`).
    (
        "recovery-after-wal-read",
        "the old logs are read, no new log started",
    ),
    (
        "recovery-after-new-log",
        "a new log is started, the old ones not yet adopted",
    ),
    (
        "recovery-after-region-open",
        "a region replayed its WAL edits into its memstore",
    ),
];
