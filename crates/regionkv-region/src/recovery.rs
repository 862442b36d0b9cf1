//! Starting the WAL after a restart: read every edit the logs hold, then open a new log
//! and hand the old logs to the WAL's accounting, so they are deleted once the regions
//! that reopen from them have flushed (the region side of replay is `Region::open`).
//!
//! Order matters: edits are read before the new log exists, and old logs are adopted only
//! after the new log is open, so a crash at any point leaves every unflushed edit in some
//! log that the next start reads again.
//!
//! Damage is never silent and never destroyed: the logs are read as the WAL of this Db
//! (`config.db_id`: a log of another Db is refused), the new log records how long the
//! newest old one was found to be (so a later truncation of it is an error, not a torn
//! tail), and a log whose tail was dropped or whose stretches were skipped is copied to
//! `<db>/corrupt/wal/` with a warning before the normal life of logs may delete it.

use crate::error::Result;
use regionkv_fs::Fs;
use regionkv_wal::{
    Ownership, RecordedLength, RecoveryMode, ReplayReport, Wal, WalConfig, WalEdit, replay_for_db,
};
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
    recover(fs, dir, config, mode, None, &[])
}

/// [`recover_wal`] for a process that owns `dir` only while `owner` says so: the WAL asks
/// it before deleting any log, from the adoption of the old logs on
/// ([`Wal::open_owned`]). `recorded` is what the regions' manifests recorded of the logs'
/// lengths ([`crate::Manifest::wal_mark`]): replay holds the logs to it.
pub fn recover_owned_wal(
    fs: Arc<dyn Fs>,
    dir: &Path,
    config: WalConfig,
    mode: RecoveryMode,
    owner: Arc<dyn Ownership>,
    recorded: &[RecordedLength],
) -> Result<RecoveredWal> {
    recover(fs, dir, config, mode, Some(owner), recorded)
}

fn recover(
    fs: Arc<dyn Fs>,
    dir: &Path,
    config: WalConfig,
    mode: RecoveryMode,
    owner: Option<Arc<dyn Ownership>>,
    recorded: &[RecordedLength],
) -> Result<RecoveredWal> {
    let span = tracing::info_span!("recovery", wal = %dir.display());
    let _enter = span.enter();
    let (edits, report) =
        replay_for_db(fs.as_ref(), dir, mode, config.db_id, recorded)?.read_all()?;
    keep_damaged_logs(fs.as_ref(), dir, &report)?;
    // Crash points (docs/reliability.md): old logs read, no new log; new log started,
    // old ones not yet adopted.
    fail::fail_point!("recovery-after-wal-read");
    let wal = Arc::new(Wal::open_after_replay(fs, dir, config, &report, owner)?);
    fail::fail_point!("recovery-after-new-log");
    wal.adopt_replayed(&report)?;
    tracing::info!(
        edits = edits.len(),
        logs = report.logs.len(),
        "WAL replayed"
    );
    Ok(RecoveredWal { wal, edits, report })
}

/// Keeps the bytes replay did not use: each dropped tail and each skipped stretch of a log
/// is copied to `corrupt/wal/<log name>.<offset>` beside the WAL directory (trailing zeros
/// of a reserved tail left out), with a warning, before the log's normal life may delete it.
/// Only the damaged bytes are copied, so a crash's torn tail costs a few bytes, not the log.
/// Best effort: a copy that fails (a full disk) is reported and does not fail the open.
fn keep_damaged_logs(fs: &dyn Fs, dir: &Path, report: &ReplayReport) -> Result<()> {
    let aside = dir
        .parent()
        .unwrap_or_else(|| Path::new("."))
        .join("corrupt")
        .join("wal");
    for d in report.dropped_tails.iter().chain(&report.skipped) {
        match keep_log_bytes(fs, &d.path, Some((d.offset, d.len)), &aside) {
            Ok(Some(copy)) => tracing::warn!(
                log = %d.path.display(),
                offset = d.offset,
                copy = %copy.display(),
                "WAL damage ({}): its bytes are kept", d.reason
            ),
            Ok(None) => {}
            Err(e) => tracing::warn!(
                log = %d.path.display(),
                error = %e,
                "could not keep a copy of a damaged stretch of the WAL"
            ),
        }
    }
    Ok(())
}

/// Copies `range` (offset, length; `None`: all) of the log at `log` into `aside`, named
/// `<log name>.<offset>`, without the trailing zeros a preallocated log reserves; returns
/// the copy, or `None` when there is nothing to copy or a copy of that range exists.
pub fn keep_log_bytes(
    fs: &dyn Fs,
    log: &Path,
    range: Option<(u64, u64)>,
    aside: &Path,
) -> Result<Option<std::path::PathBuf>> {
    let Some(name) = log.file_name() else {
        return Ok(None);
    };
    if !fs.exists(log)? {
        return Ok(None);
    }
    let file_len = fs.file_len(log)?;
    let (offset, len) = range.unwrap_or((0, file_len));
    let end = offset.saturating_add(len).min(file_len);
    let mut bytes = fs.open_read(log)?.read_to_vec(
        offset,
        usize::try_from(end.saturating_sub(offset)).unwrap_or(0),
    )?;
    while bytes.last() == Some(&0) {
        bytes.pop();
    }
    let mut copy_name = name.to_os_string();
    copy_name.push(format!(".{offset}"));
    let copy = aside.join(copy_name);
    if bytes.is_empty() || fs.exists(&copy)? {
        return Ok(None);
    }
    fs.create_dir_all(aside)?;
    regionkv_fs::write_atomic(fs, &copy, &bytes)?;
    Ok(Some(copy))
}
