//! Starting the WAL after a restart: read every edit the logs hold, then open a new log
//! and hand the old logs to the WAL's accounting, so they are deleted once the regions
//! that reopen from them have flushed (the region side of replay is `Region::open`).
//!
//! Order matters: edits are read before the new log exists, and old logs are adopted only
//! after the new log is open, so a crash at any point leaves every unflushed edit in some
//! log that the next start reads again.

use crate::error::Result;
use regionkv_fs::Fs;
use regionkv_wal::{Ownership, RecoveryMode, ReplayReport, Wal, WalConfig, WalEdit, replay};
use std::path::Path;
use std::sync::Arc;

/// The WAL after recovery, and the edits to replay into regions.
#[derive(Debug)]
pub struct RecoveredWal {
    /// The open WAL, writing to a new log.
    pub wal: Arc<Wal>,
    /// Every edit of the old logs, in log order (regions filter them by sequence id).
    pub edits: Vec<WalEdit>,
    /// What replay read, dropped and skipped.
    pub report: ReplayReport,
}

/// Reads the old logs in `dir`, opens the WAL on a new log, and adopts the old ones.
pub fn recover_wal(
    fs: Arc<dyn Fs>,
    dir: &Path,
    config: WalConfig,
    mode: RecoveryMode,
) -> Result<RecoveredWal> {
    recover(fs, dir, config, mode, None)
}

/// [`recover_wal`] for a process that owns `dir` only while `owner` says so: the WAL asks
/// it before deleting any log, from the adoption of the old logs on
/// ([`Wal::open_owned`]).
pub fn recover_owned_wal(
    fs: Arc<dyn Fs>,
    dir: &Path,
    config: WalConfig,
    mode: RecoveryMode,
    owner: Arc<dyn Ownership>,
) -> Result<RecoveredWal> {
    recover(fs, dir, config, mode, Some(owner))
}

fn recover(
    fs: Arc<dyn Fs>,
    dir: &Path,
    config: WalConfig,
    mode: RecoveryMode,
    owner: Option<Arc<dyn Ownership>>,
) -> Result<RecoveredWal> {
    let span = tracing::info_span!("recovery", wal = %dir.display());
    let _enter = span.enter();
    let (edits, report) = replay(fs.as_ref(), dir, mode)?.read_all()?;
    // Crash points (docs/reliability.md): old logs read, no new log; new log started,
    // old ones not yet adopted.
    fail::fail_point!("recovery-after-wal-read");
    let wal = Arc::new(match owner {
        Some(owner) => Wal::open_owned(fs, dir, config, owner)?,
        None => Wal::open(fs, dir, config)?,
    });
    fail::fail_point!("recovery-after-new-log");
    wal.adopt_replayed(&report)?;
    tracing::info!(
        edits = edits.len(),
        logs = report.logs.len(),
        "WAL replayed"
    );
    Ok(RecoveredWal { wal, edits, report })
}
