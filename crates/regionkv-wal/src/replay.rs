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
    let mut report = ReplayReport::default();
    let logs = if fs.exists(dir)? {
        list_logs(fs, dir)?
    } else {
        Vec::new()
    };
    let mut readers = Vec::with_capacity(logs.len());
    for (_, path) in logs {
        match WalReader::open(fs, &path) {
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
    let pending = readers
        .into_iter()
        .map(|r| {
            let n = r.header().number;
            let torn_ok = Some(n) == newest || ended_by_crash.contains(&n);
            r.tail_may_be_torn(torn_ok)
        })
        .collect();
    Ok(Replay {
        pending,
        current: None,
        report,
        failed: false,
    })
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
