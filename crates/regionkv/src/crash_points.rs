//! The named crash points inside regionkv's multi-step operations: WAL group commit and
//! roll, every step of flush and compaction, every phase boundary of the region
//! transitions (split, merge, alter, disable, enable, create, truncate, delete, the
//! namespace changes, clone and restore), the steps of a bulk load and of a snapshot, the janitor, and recovery.
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
    // Region transitions (`crate::transition`): one point at each phase boundary, named
    // `<transition>-<boundary>` for every transition of `TRANSITIONS`; the catalog commit
    // is the point of no return.
    (
        "split-after-close",
        "the parent is closed and flushed, no daughter written (rolls back)",
    ),
    (
        "split-after-stage",
        "both daughters' directories and manifests are written (rolls back)",
    ),
    (
        "split-after-commit",
        "the catalog names the daughters, none open yet (rolls forward)",
    ),
    (
        "split-after-publish",
        "the daughters serve, the parent's directory is still referenced (rolls forward)",
    ),
    (
        "merge-after-close",
        "the parents are closed and flushed, no child written (rolls back)",
    ),
    (
        "merge-after-stage",
        "the merged child is written, the catalog names the parents (rolls back)",
    ),
    (
        "merge-after-commit",
        "the catalog names the merged child, not open yet (rolls forward)",
    ),
    (
        "merge-after-publish",
        "the merged child serves (rolls forward)",
    ),
    (
        "alter-after-close",
        "every region is closed and flushed, the catalog has the old descriptor (rolls back)",
    ),
    (
        "alter-after-stage",
        "nothing staged; the catalog has the old descriptor (rolls back)",
    ),
    (
        "alter-after-commit",
        "the catalog has the new descriptor, the regions are closed (rolls forward)",
    ),
    (
        "alter-after-publish",
        "the regions serve with the new descriptor (rolls forward)",
    ),
    (
        "disable-after-close",
        "every region is closed and flushed, the catalog says ENABLED (rolls back)",
    ),
    (
        "disable-after-stage",
        "nothing staged; the catalog says ENABLED (rolls back)",
    ),
    (
        "disable-after-commit",
        "the catalog says DISABLED, the regions are closed (rolls forward)",
    ),
    (
        "disable-after-publish",
        "the table is disabled, .tableinfo not yet rewritten (rolls forward)",
    ),
    (
        "enable-after-close",
        "nothing closed; the catalog says DISABLED (rolls back)",
    ),
    (
        "enable-after-stage",
        "every region is open, not serving; the catalog says DISABLED (rolls back)",
    ),
    (
        "enable-after-commit",
        "the catalog says ENABLED, the regions are not yet serving (rolls forward)",
    ),
    (
        "enable-after-publish",
        "the regions serve, .tableinfo not yet rewritten (rolls forward)",
    ),
    (
        "create-after-close",
        "nothing closed; no table (rolls back)",
    ),
    (
        "create-after-stage",
        "the table directory is marked CREATING and its regions are written (rolls back)",
    ),
    (
        "create-after-commit",
        "the catalog names the table, its handle is not published (rolls forward)",
    ),
    (
        "create-after-publish",
        "the table serves, .tableinfo still says CREATING (rolls forward)",
    ),
    (
        "truncate-after-close",
        "nothing closed; the table is disabled with its data (rolls back)",
    ),
    (
        "truncate-after-stage",
        "the new empty regions are written, the catalog names the old ones (rolls back)",
    ),
    (
        "truncate-after-commit",
        "the catalog names the new regions, nothing serves yet (rolls forward)",
    ),
    (
        "truncate-after-publish",
        "the new regions serve, the old directories are not yet removed (rolls forward)",
    ),
    (
        "delete-after-close",
        "nothing closed; the table is disabled (rolls back)",
    ),
    (
        "delete-after-stage",
        "the table directory is marked DROPPING, the catalog names the table (rolls back)",
    ),
    (
        "delete-after-commit",
        "the catalog no longer names the table, its handle is still published (rolls forward)",
    ),
    (
        "delete-after-publish",
        "the table is gone, its directory not yet removed (rolls forward)",
    ),
    (
        "create-namespace-after-close",
        "nothing closed (rolls back)",
    ),
    (
        "create-namespace-after-stage",
        "the namespace directory exists, the catalog does not name it (rolls back)",
    ),
    (
        "create-namespace-after-commit",
        "the catalog names the namespace (rolls forward)",
    ),
    ("create-namespace-after-publish", "done (rolls forward)"),
    (
        "modify-namespace-after-close",
        "nothing closed (rolls back)",
    ),
    (
        "modify-namespace-after-stage",
        "nothing staged (rolls back)",
    ),
    (
        "modify-namespace-after-commit",
        "the catalog has the new properties (rolls forward)",
    ),
    ("modify-namespace-after-publish", "done (rolls forward)"),
    ("drop-namespace-after-close", "nothing closed (rolls back)"),
    ("drop-namespace-after-stage", "nothing staged (rolls back)"),
    (
        "drop-namespace-after-commit",
        "the catalog no longer names the namespace (rolls forward)",
    ),
    (
        "drop-namespace-after-publish",
        "the namespace's directory is not yet removed (rolls forward)",
    ),
    // Bulk load (`crate::bulk_load`): not a region-set change, its own commit record.
    (
        "bulk-load-after-stage",
        "every region's files are written, none listed, no record (rolls back)",
    ),
    (
        "bulk-load-after-commit",
        "the record is on disk, no region lists its files yet (rolls forward)",
    ),
    (
        "bulk-load-after-publish",
        "every region lists its files, the record is not yet deleted (rolls forward)",
    ),
    // Snapshots (`crate::snapshot`): not a region-set change; committed by one rename.
    (
        "snapshot-after-flush",
        "the table is flushed, nothing of the snapshot written (rolls back)",
    ),
    (
        "snapshot-before-commit",
        "every link and data.manifest are synced, no snapshotinfo (rolls back)",
    ),
    (
        "snapshot-after-commit",
        "snapshotinfo is renamed into place: the snapshot exists (done)",
    ),
    (
        "snapshot-delete-after-uncommit",
        "the deleted snapshot's snapshotinfo is gone, its links not yet (done)",
    ),
    // Clone and restore (`crate::transition::snapshot`): transitions.
    ("clone-after-close", "nothing closed; no table (rolls back)"),
    (
        "clone-after-stage",
        "the table directory is marked CREATING, its regions link the snapshot's files (rolls back)",
    ),
    (
        "clone-after-commit",
        "the catalog names the clone, its handle is not published (rolls forward)",
    ),
    (
        "clone-after-publish",
        "the clone serves, .tableinfo still says CREATING (rolls forward)",
    ),
    (
        "restore-after-close",
        "nothing closed; the table is disabled with its data (rolls back)",
    ),
    (
        "restore-after-stage",
        "the new regions link the snapshot's files, the catalog names the old ones (rolls back)",
    ),
    (
        "restore-after-commit",
        "the catalog names the snapshot's regions and descriptor (rolls forward)",
    ),
    (
        "restore-after-publish",
        "restored, the old region directories not yet removed (rolls forward)",
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

/// The region transitions whose phase boundaries carry crash points
/// (`<transition>-after-{close,stage,commit,publish}`).
pub const TRANSITIONS: &[&str] = &[
    "split",
    "merge",
    "alter",
    "disable",
    "enable",
    "create",
    "truncate",
    "delete",
    "create-namespace",
    "modify-namespace",
    "drop-namespace",
    "clone",
    "restore",
];

/// For a transition's crash point, whether a crash there rolls the transition forward
/// (after its catalog commit) or back (before it); `None` for any other point.
///
/// ```
/// use regionkv::crash_points::rolls_forward;
/// assert_eq!(rolls_forward("split-after-stage"), Some(false));
/// assert_eq!(rolls_forward("merge-after-publish"), Some(true));
/// assert_eq!(rolls_forward("create-namespace-after-close"), Some(false));
/// assert_eq!(rolls_forward("compaction-after-commit"), None);
/// ```
pub fn rolls_forward(point: &str) -> Option<bool> {
    let (transition, boundary) = point.rsplit_once("-after-")?;
    if !TRANSITIONS.contains(&transition) {
        return None;
    }
    match boundary {
        "close" | "stage" => Some(false),
        "commit" | "publish" => Some(true),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every boundary of every transition is listed once, and nothing else is named as
    /// one of a transition's points.
    #[test]
    fn transition_points_are_the_boundaries() {
        for t in TRANSITIONS {
            for b in [
                "after-close",
                "after-stage",
                "after-commit",
                "after-publish",
            ] {
                let name = format!("{t}-{b}");
                let n = ALL.iter().filter(|(p, _)| *p == name).count();
                assert_eq!(n, 1, "{name} listed {n} times");
            }
        }
        for (p, _) in ALL {
            if TRANSITIONS.iter().any(|t| p.starts_with(&format!("{t}-"))) {
                assert!(rolls_forward(p).is_some(), "{p} is no phase boundary");
            }
        }
    }
}
