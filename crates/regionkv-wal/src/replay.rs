//! [`replay`]: every edit of every log in a WAL directory, in log order then file order.
//!
//! Replay decides per log whether a torn tail is expected there. A log's tail may be torn
//! only if the log was the last one its process wrote: it is the newest log in the directory,
//! or a later log says so in its header (a log started by [`Wal::open`](crate::Wal::open)
//! records the newest log that existed then as its `prev_log`). A log that was rolled away
//! from was synced in full first, so damage at its end is corruption, not a crash.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};

use regionkv_fs::Fs;

use crate::config::RecoveryMode;
use crate::edit::WalEdit;
use crate::error::Result;
use crate::format::{LogName, LogOrigin, parse_log_name};
use crate::reader::{DamagedRange, LogSummary, WalReader};

/// What a replay found besides the edits.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReplayReport {
    /// Every log read (or being read), in log order.
    pub logs: Vec<LogSummary>,
    /// Torn tails dropped under [`RecoveryMode::TolerateCorruptedTail`].
    pub dropped_tails: Vec<DamagedRange>,
    /// Stretches skipped under [`RecoveryMode::SkipAnyCorrupted`] (whole files whose header
    /// is damaged included).
    pub skipped: Vec<DamagedRange>,
    /// How many edits were returned.
    pub edits: u64,
}

/// An iterator over the edits of a WAL directory; see [`replay`].
///
/// Stops after the first error. The [`report`](Replay::report) is complete once the
/// iterator has returned `None`.
#[derive(Debug)]
pub struct Replay {
    pending: VecDeque<WalReader>,
    current: Option<WalReader>,
    report: ReplayReport,
    failed: bool,
}

/// The log files of `dir`, sorted by number. Temporary files and foreign names are left out
/// (foreign ones with a warning).
pub(crate) fn list_logs(fs: &dyn Fs, dir: &Path) -> Result<Vec<(u64, PathBuf)>> {
    let mut logs = Vec::new();
    for name in fs.list(dir)? {
        match parse_log_name(&name) {
            Some(LogName::Log(n)) => logs.push((n, dir.join(&name))),
            Some(LogName::Temp(_)) => {}
            None => {
                tracing::warn!(dir = %dir.display(), %name, "ignoring a file that is not a WAL log")
            }
        }
    }
    logs.sort_unstable_by_key(|(n, _)| *n);
    Ok(logs)
}

/// Opens every log of the WAL directory `dir` for replay under `mode`. A missing directory
/// has no logs.
///
/// Every header is read and verified here, so a log with a damaged header fails the call (or,
/// under [`RecoveryMode::SkipAnyCorrupted`], is skipped whole and reported); records are read
/// as the iterator is advanced. The caller filters edits by sequence id (an edit at or below
/// its region's flushed sequence id is already in a storefile).
pub fn replay(fs: &dyn Fs, dir: &Path, mode: RecoveryMode) -> Result<Replay> {
    replay_for_db(fs, dir, mode, None, &[])
}

/// What something outside the WAL directory recorded of a log's length: a region's
/// manifest notes, at each flush, how long the WAL was known durable
/// (`Wal::synced_position`). Evidence for replay, like a later log's header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordedLength {
    /// The log's number.
    pub log: u64,
    /// Its header's creation time (the number alone may name a later log, once the
    /// directory was emptied and numbering restarted).
    pub created_ms: i64,
    /// The length it was known to have, in bytes of valid records.
    pub len: u64,
    /// Who recorded it, for the message ("the manifest of region …").
    pub by: String,
}

/// [`replay`] of the WAL of the Db whose id is `db_id`: a log whose header names another
/// Db is [`Error::ForeignLog`](crate::Error::ForeignLog) (skipped whole and reported under
/// [`RecoveryMode::SkipAnyCorrupted`]). Logs that name no Db (format versions 1 and 2, or
/// written with no id) are read.
///
/// Besides the damage a reader finds on its own, replay checks each log against what later
/// logs recorded of it (format version 3): a log a later one names as its previous log must
/// be at least as long as that later header says (`LogHeader::prev_len`), and a log that was
/// rolled from must end with its seal. Records missing against that evidence are
/// [`Error::Truncated`](crate::Error::Truncated), never a torn tail.
///
/// `recorded` adds evidence from outside the directory (the regions' manifests).
pub fn replay_for_db(
    fs: &dyn Fs,
    dir: &Path,
    mode: RecoveryMode,
    db_id: Option<[u8; 16]>,
    recorded: &[RecordedLength],
) -> Result<Replay> {
    let mut report = ReplayReport::default();
    let pending = readers(fs, dir, mode, db_id, recorded, &mut report)?;
    Ok(Replay {
        pending,
        current: None,
        report,
        failed: false,
    })
}

/// Reads every log of `dir` to its end on its own, as [`replay_for_db`] would under
/// [`RecoveryMode::TolerateCorruptedTail`] (the same evidence between logs), and returns
/// each log that fails with its error: what `regionkv repair` must salvage. Logs whose
/// header is unreadable are among them.
pub fn verify_logs(
    fs: &dyn Fs,
    dir: &Path,
    db_id: Option<[u8; 16]>,
    recorded: &[RecordedLength],
) -> Result<Vec<(PathBuf, crate::Error)>> {
    let mut failed = Vec::new();
    // Headers first: a damaged one is a failed log, and the others are read without it.
    let mut report = ReplayReport::default();
    let readers = readers(
        fs,
        dir,
        RecoveryMode::SkipAnyCorrupted,
        db_id,
        recorded,
        &mut report,
    )?;
    for skipped in report.skipped {
        let reason = skipped.reason.clone();
        failed.push((
            skipped.path.clone(),
            crate::Error::Corrupt {
                path: skipped.path,
                offset: 0,
                reason,
            },
        ));
    }
    for reader in readers {
        let path = reader.path().to_path_buf();
        let mut reader = reader.with_mode(RecoveryMode::TolerateCorruptedTail);
        loop {
            match reader.next_edit() {
                Ok(Some(_)) => {}
                Ok(None) => break,
                Err(e) => {
                    failed.push((path, e));
                    break;
                }
            }
        }
    }
    Ok(failed)
}

/// Opens the logs of `dir` as replay reads them: each checked against the Db id, and told
/// what later logs recorded of it. Headers that fail are reported (and left out) under
/// [`RecoveryMode::SkipAnyCorrupted`], and fail the call otherwise.
fn readers(
    fs: &dyn Fs,
    dir: &Path,
    mode: RecoveryMode,
    db_id: Option<[u8; 16]>,
    outside: &[RecordedLength],
    report: &mut ReplayReport,
) -> Result<VecDeque<WalReader>> {
    let logs = if fs.exists(dir)? {
        list_logs(fs, dir)?
    } else {
        Vec::new()
    };
    let mut readers = Vec::with_capacity(logs.len());
    for (_, path) in logs {
        let opened = WalReader::open(fs, &path).and_then(|r| match db_id {
            Some(id)
                if r.header().version >= 3
                    && r.header().db_id != [0; 16]
                    && r.header().db_id != id =>
            {
                Err(crate::Error::ForeignLog {
                    path: path.clone(),
                    belongs_to: regionkv_cell::bytes::to_hex(&r.header().db_id),
                    found_in: regionkv_cell::bytes::to_hex(&id),
                })
            }
            _ => Ok(r),
        });
        match opened {
            Ok(r) => readers.push(r.with_mode(mode)),
            Err(e) if mode == RecoveryMode::SkipAnyCorrupted && e.is_corruption() => {
                tracing::warn!(path = %path.display(), error = %e, "skipping a log whose header is damaged");
                report.skipped.push(DamagedRange {
                    len: fs.file_len(&path)?,
                    path,
                    offset: 0,
                    reason: e.to_string(),
                });
            }
            Err(e) => return Err(e),
        }
    }
    let newest = readers.last().map(|r| r.header().number);
    let ended_by_crash: Vec<u64> = readers
        .iter()
        .filter(|r| r.header().origin == LogOrigin::Open)
        .map(|r| r.header().prev_log)
        .collect();
    // What later logs recorded of each log's length: (log, length, evidence).
    let created: std::collections::BTreeMap<u64, i64> = readers
        .iter()
        .map(|r| (r.header().number, r.header().created_ms))
        .collect();
    let mut recorded: Vec<(u64, u64, String)> = outside
        .iter()
        .filter(|r| r.len > 0 && created.get(&r.log) == Some(&r.created_ms))
        .map(|r| {
            (
                r.log,
                r.len,
                format!("{} recorded it as at least {} bytes long", r.by, r.len),
            )
        })
        .collect();
    recorded.extend(
        readers
            .iter()
            .filter(|r| r.header().version >= 3 && r.header().prev_len > 0)
            .map(|r| {
                let h = r.header();
                let when = match h.origin {
                    LogOrigin::Roll => "when it rolled from it",
                    LogOrigin::Open => "when recovery read it before starting the log",
                };
                (
                    h.prev_log,
                    h.prev_len,
                    format!(
                        "log {} recorded it as {} bytes long {when}",
                        h.number, h.prev_len
                    ),
                )
            }),
    );
    let pending: VecDeque<WalReader> = readers
        .into_iter()
        .map(|r| {
            let n = r.header().number;
            let torn_ok = Some(n) == newest || ended_by_crash.contains(&n);
            let mut r = r.tail_may_be_torn(torn_ok).must_be_sealed(!torn_ok);
            for (_, len, evidence) in recorded.iter().filter(|(log, ..)| *log == n) {
                r = r.expect_len(*len, evidence.clone());
            }
            r
        })
        .collect();
    Ok(pending)
}

impl Replay {
    /// What the replay has found so far; complete once the iterator is exhausted.
    pub fn report(&self) -> &ReplayReport {
        &self.report
    }

    /// The report, consuming the replay.
    pub fn into_report(self) -> ReplayReport {
        self.report
    }

    /// Reads every edit, returning them with the report.
    pub fn read_all(mut self) -> Result<(Vec<WalEdit>, ReplayReport)> {
        let mut edits = Vec::new();
        for edit in &mut self {
            edits.push(edit?);
        }
        Ok((edits, self.report))
    }

    /// Moves a finished reader's findings into the report.
    fn finish(&mut self, reader: &WalReader) {
        if let Some(slot) = self.report.logs.last_mut() {
            *slot = reader.summary();
        }
        self.report.skipped.extend_from_slice(reader.skipped());
        self.report
            .dropped_tails
            .extend(reader.dropped_tail().cloned());
    }
}

impl Iterator for Replay {
    type Item = Result<WalEdit>;

    fn next(&mut self) -> Option<Result<WalEdit>> {
        if self.failed {
            return None;
        }
        loop {
            let reader = match &mut self.current {
                Some(r) => r,
                None => {
                    let r = self.pending.pop_front()?;
                    self.report.logs.push(r.summary());
                    self.current.insert(r)
                }
            };
            match reader.next_edit() {
                Ok(Some(edit)) => {
                    self.report.edits += 1;
                    return Some(Ok(edit));
                }
                Ok(None) => {
                    if let Some(done) = self.current.take() {
                        self.finish(&done);
                    }
                }
                Err(e) => {
                    if let Some(done) = self.current.take() {
                        self.finish(&done);
                    }
                    self.failed = true;
                    return Some(Err(e));
                }
            }
        }
    }
}
