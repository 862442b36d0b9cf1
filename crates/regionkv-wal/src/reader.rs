//! [`WalReader`]: reads the edits of one log file, applying a [`RecoveryMode`] to damage.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use regionkv_fs::{Fs, ReadableFile};

use crate::config::RecoveryMode;
use crate::edit::WalEdit;
use crate::error::{Error, Result};
use crate::format::{self, Damage, HEADER_LEN, LogHeader, LogName, Record};
use regionkv_cell::bytes::to_string_binary;

/// A stretch of a log file that replay did not use: a dropped torn tail, or a range skipped
/// by [`RecoveryMode::SkipAnyCorrupted`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DamagedRange {
    /// The log file.
    pub path: PathBuf,
    /// Offset of the first byte not used.
    pub offset: u64,
    /// How many bytes were not used.
    pub len: u64,
    /// What was wrong at `offset`.
    pub reason: String,
}

/// What one log file held, as far as it was read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogSummary {
    /// The log file.
    pub path: PathBuf,
    /// Its header.
    pub header: LogHeader,
    /// How many edits were read.
    pub edits: u64,
    /// The offset just past the last record read (the header length if none).
    pub valid_len: u64,
    /// For every region with edits in the log, the largest sequence id among them
    /// (what [`Wal::adopt_replayed`](crate::Wal::adopt_replayed) needs to know when the log
    /// may be deleted).
    pub max_seq_by_region: BTreeMap<Vec<u8>, u64>,
    /// The log ended with its seal (format version 3: it was rolled from or closed).
    pub sealed: bool,
}

/// Where the reader is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Reading,
    Done,
    Failed,
}

/// Reads the edits of one log file in order.
///
/// On damage it does what its [`RecoveryMode`] says. Torn damage (see [`RecoveryMode`]) is
/// dropped only when the reader was told the file's tail may be torn
/// ([`tail_may_be_torn`](WalReader::tail_may_be_torn), the default: a file read on its own
/// may be the last one its process wrote). [`replay`](crate::replay) sets it per file.
///
/// The whole file is read through [`ReadableFile::as_slice`] when the file system offers it
/// (memory-mapped or in-memory files), otherwise loaded into memory on the first read.
#[derive(Debug)]
pub struct WalReader {
    file: Arc<dyn ReadableFile>,
    /// The file's contents when `file` has no slice; loaded lazily.
    owned: Option<Vec<u8>>,
    path: PathBuf,
    header: LogHeader,
    pos: usize,
    mode: RecoveryMode,
    tail_may_be_torn: bool,
    skipped: Vec<DamagedRange>,
    dropped_tail: Option<DamagedRange>,
    edits: u64,
    valid_len: usize,
    max_seq_by_region: BTreeMap<Vec<u8>, u64>,
    /// The region declarations read so far in this file: id → (region, table).
    declared: HashMap<u64, (Vec<u8>, String)>,
    state: State,
    /// A seal was read: the log is complete.
    sealed: bool,
    /// The length later evidence says the log's records reach, and that evidence.
    expected_len: Option<(u64, String)>,
    /// The log must end with a seal (it was rolled from; see [`Self::must_be_sealed`]).
    must_be_sealed: bool,
    /// The last edit read: (region, sequence id).
    last_edit: Option<(Vec<u8>, u64)>,
}

impl WalReader {
    /// Opens the log file at `path` and verifies its header. The reader starts in
    /// [`RecoveryMode::TolerateCorruptedTail`] with a tail that may be torn.
    pub fn open(fs: &dyn Fs, path: &Path) -> Result<Self> {
        let file = fs.open_read(path)?;
        let len = file.len();
        let head_len = HEADER_LEN.min(usize::try_from(len).unwrap_or(HEADER_LEN));
        let mut head = vec![0; head_len];
        file.read_at(0, &mut head)?;
        let header = LogHeader::decode(path, &head, len)?;
        let header_len = header.encoded_len();
        let named = path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(format::parse_log_name);
        if let Some(LogName::Log(n)) = named
            && n != header.number
        {
            return Err(Error::Corrupt {
                path: path.to_path_buf(),
                offset: 0,
                reason: format!(
                    "header says log number {} but the file is named for log {n}",
                    header.number
                ),
            });
        }
        Ok(WalReader {
            file,
            owned: None,
            path: path.to_path_buf(),
            header,
            pos: header_len,
            mode: RecoveryMode::default(),
            tail_may_be_torn: true,
            skipped: Vec::new(),
            dropped_tail: None,
            edits: 0,
            valid_len: header_len,
            max_seq_by_region: BTreeMap::new(),
            declared: HashMap::new(),
            state: State::Reading,
            sealed: false,
            expected_len: None,
            must_be_sealed: false,
            last_edit: None,
        })
    }

    /// Says how long later evidence proves the log's records to be (a later log's record
    /// of it, `LogHeader::prev_len`), and what that evidence is, for the message. Records
    /// ending before `len` are [`Error::Truncated`], not a torn tail.
    #[must_use]
    pub fn expect_len(mut self, len: u64, evidence: String) -> Self {
        if len > self.expected_len.as_ref().map_or(0, |e| e.0) {
            self.expected_len = Some((len, evidence));
        }
        self
    }

    /// Says the log must end with a seal: it is of format version 3 and was rolled from
    /// (a later log exists that did not start after a crash of its writer). Without one,
    /// its end was cut off: [`Error::Truncated`].
    #[must_use]
    pub fn must_be_sealed(mut self, sealed: bool) -> Self {
        self.must_be_sealed = sealed && self.header.version >= 3;
        self
    }

    /// Sets the recovery mode.
    #[must_use]
    pub fn with_mode(mut self, mode: RecoveryMode) -> Self {
        self.mode = mode;
        self
    }

    /// Says whether torn damage at the end of this file is to be expected (the file was the
    /// last one its process wrote) and so may be dropped in
    /// [`RecoveryMode::TolerateCorruptedTail`]. When `false`, torn damage is corruption.
    #[must_use]
    pub fn tail_may_be_torn(mut self, torn: bool) -> Self {
        self.tail_may_be_torn = torn;
        self
    }

    /// The file's header.
    pub fn header(&self) -> &LogHeader {
        &self.header
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The file's length in bytes.
    pub fn len(&self) -> u64 {
        self.file.len()
    }

    /// Whether the file is empty (never true for a file that opened: it has a header).
    pub fn is_empty(&self) -> bool {
        self.file.is_empty()
    }

    /// The offset of the next record: just past the last edit returned.
    pub fn offset(&self) -> u64 {
        self.pos as u64
    }

    /// The ranges skipped so far ([`RecoveryMode::SkipAnyCorrupted`] only).
    pub fn skipped(&self) -> &[DamagedRange] {
        &self.skipped
    }

    /// The torn tail that was dropped, once the reader has reached it.
    pub fn dropped_tail(&self) -> Option<&DamagedRange> {
        self.dropped_tail.as_ref()
    }

    /// What the file held, as far as it has been read.
    pub fn summary(&self) -> LogSummary {
        LogSummary {
            path: self.path.clone(),
            header: self.header,
            edits: self.edits,
            valid_len: self.valid_len as u64,
            max_seq_by_region: self.max_seq_by_region.clone(),
            sealed: self.sealed,
        }
    }

    /// The file's bytes, loading them on first use when the file has no slice.
    fn load(&mut self) -> Result<()> {
        if self.file.as_slice().is_none() && self.owned.is_none() {
            let len = usize::try_from(self.file.len()).map_err(|_| Error::Corrupt {
                path: self.path.clone(),
                offset: 0,
                reason: "file too large to read on this platform".into(),
            })?;
            self.owned = Some(self.file.read_to_vec(0, len)?);
        }
        Ok(())
    }

    fn data(&self) -> &[u8] {
        match &self.owned {
            Some(v) => v,
            None => self.file.as_slice().unwrap_or_default(),
        }
    }

    fn corrupt(&self, offset: usize, reason: String) -> Error {
        Error::Corrupt {
            path: self.path.clone(),
            offset: offset as u64,
            reason,
        }
    }

    /// The next edit, `None` at the end of the file (or of its usable part), or the error the
    /// recovery mode makes of damage. After an error the reader returns `None`.
    pub fn next_edit(&mut self) -> Result<Option<WalEdit>> {
        if self.state != State::Reading {
            return Ok(None);
        }
        if let Err(e) = self.load() {
            self.state = State::Failed;
            return Err(e);
        }
        loop {
            let len = self.data().len();
            if self.pos >= len || self.reserved_tail_at(self.pos) {
                // The end of the file, or the zeros a preallocating writer reserved.
                return self.finish().map(|()| None);
            }
            if self.sealed {
                // A sealed log is complete: nothing but reserved zeros may follow its seal.
                let at = self.pos;
                let rest = (len - at) as u64;
                if self.mode == RecoveryMode::SkipAnyCorrupted {
                    self.skip_range(at, rest, "bytes after the log's seal".to_string());
                    self.pos = len;
                    continue;
                }
                self.state = State::Failed;
                return Err(self.corrupt(
                    at,
                    format!("{rest} bytes after the log's seal (a sealed log ends there)"),
                ));
            }
            let parsed = format::parse_record(self.data(), self.pos)
                .and_then(|(record, end)| self.resolve(record).map(|edit| (edit, end)));
            match parsed {
                Ok((None, end)) => {
                    // A declaration: nothing to hand out.
                    self.pos = end;
                    self.valid_len = end;
                }
                Ok((Some(edit), end)) => {
                    self.pos = end;
                    self.valid_len = end;
                    self.edits += 1;
                    self.last_edit = Some((edit.key.region.clone(), edit.key.seq_id));
                    let region = &edit.key.region;
                    match self.max_seq_by_region.get_mut(region) {
                        Some(max) => *max = (*max).max(edit.key.seq_id),
                        None => {
                            self.max_seq_by_region
                                .insert(region.clone(), edit.key.seq_id);
                        }
                    }
                    return Ok(Some(edit));
                }
                Err(damage) => {
                    if let Err(e) = self.on_damage(damage) {
                        self.state = State::Failed;
                        return Err(e);
                    }
                    if self.state != State::Reading {
                        // A dropped torn tail: the end, if no evidence says otherwise.
                        return self.finish().map(|()| None);
                    }
                }
            }
        }
    }

    /// Whether everything from `at` to the end of the file is the zero tail a preallocating
    /// writer reserved ([`LogHeader::preallocated`]): at a record boundary, that is where
    /// the log ends. A reserved tail can be shorter than a record header, so this is checked
    /// before any damage is classified.
    fn reserved_tail_at(&self, at: usize) -> bool {
        self.header.preallocated
            && self
                .data()
                .get(at..)
                .is_some_and(|rest| rest.iter().all(|&b| b == 0))
    }

    /// Takes in a declaration (`None`), or the edit a record holds, its region id resolved
    /// through this file's declarations. An id no earlier record of the file declared, or
    /// one declared twice with different names, is damage at the record.
    fn resolve(&mut self, record: Record) -> std::result::Result<Option<WalEdit>, Damage> {
        if self.header.version < 2 && !matches!(record, Record::Edit(_)) {
            // Version 1 logs hold named edits only.
            return Err(Damage::BadPayload(format!(
                "a record of format version 2 in a version {} log",
                self.header.version
            )));
        }
        match record {
            Record::Seal(_) if self.header.version < 3 => Err(Damage::BadPayload(format!(
                "a seal (format version 3) in a version {} log",
                self.header.version
            ))),
            Record::Seal(offset) if offset != self.pos as u64 => Err(Damage::BadPayload(format!(
                "the seal says it starts at offset {offset}, but it is at {}: bytes before it are missing or extra",
                self.pos
            ))),
            Record::Seal(_) => {
                self.sealed = true;
                Ok(None)
            }
            Record::Edit(edit) => Ok(Some(edit)),
            Record::Declare(d) => match self.declared.get(&d.id) {
                Some((region, table)) if *region != d.region || *table != d.table => {
                    Err(Damage::BadPayload(format!(
                        "region id {} declared again with other names",
                        d.id
                    )))
                }
                Some(_) => Ok(None),
                None => {
                    self.declared.insert(d.id, (d.region, d.table));
                    Ok(None)
                }
            },
            Record::Compact(c) => match self.declared.get(&c.region_id) {
                Some((region, table)) => {
                    let (region, table) = (region.clone(), table.clone());
                    Ok(Some(c.resolve(region, table)))
                }
                None => Err(Damage::BadPayload(format!(
                    "edit of region id {}, which no earlier record of this log declares",
                    c.region_id
                ))),
            },
        }
    }

    /// Applies the recovery mode to `damage` at the current position: an error, the end of
    /// the file (a dropped tail), or a skip to the next good record.
    fn on_damage(&mut self, damage: Damage) -> Result<()> {
        let at = self.pos;
        let rest = self.data().len() - at;
        // Damage before the length later evidence recorded is not a crash's torn tail:
        // those bytes were whole when that evidence was written.
        let before_evidence = self
            .expected_len
            .as_ref()
            .is_some_and(|(len, _)| (at as u64) < *len);
        match self.mode {
            RecoveryMode::AbsoluteConsistency => Err(self.corrupt(at, damage.to_string())),
            RecoveryMode::TolerateCorruptedTail if before_evidence && damage.is_torn() => {
                Err(self.truncated(at))
            }
            // Torn, or damage after which no record verifies: a power cut can garble the
            // unsynced end of the last page (a complete-length record whose checksum
            // fails), and nothing valid can follow what the crash cut.
            RecoveryMode::TolerateCorruptedTail
                if self.tail_may_be_torn
                    && !before_evidence
                    && (damage.is_torn()
                        || format::find_next_record(self.data(), at + 1) == self.data().len()) =>
            {
                tracing::warn!(
                    path = %self.path.display(),
                    offset = at,
                    bytes = rest,
                    %damage,
                    "dropping the torn tail of the last log"
                );
                self.dropped_tail = Some(DamagedRange {
                    path: self.path.clone(),
                    offset: at as u64,
                    len: rest as u64,
                    reason: damage.to_string(),
                });
                self.state = State::Done;
                Ok(())
            }
            RecoveryMode::TolerateCorruptedTail if damage.is_torn() => Err(self.corrupt(
                at,
                format!(
                    "{damage}, in a log that is not the last one its process wrote (a torn tail is \
                     tolerated only there)"
                ),
            )),
            RecoveryMode::TolerateCorruptedTail => Err(self.corrupt(at, damage.to_string())),
            RecoveryMode::SkipAnyCorrupted => {
                let next = format::find_next_record(self.data(), at + 1);
                self.skip_range(at, (next - at) as u64, damage.to_string());
                self.pos = next;
                Ok(())
            }
        }
    }

    /// Records a stretch [`RecoveryMode::SkipAnyCorrupted`] passes over.
    fn skip_range(&mut self, at: usize, len: u64, reason: String) {
        tracing::warn!(
            path = %self.path.display(),
            offset = at,
            bytes = len,
            %reason,
            "skipping a damaged stretch of the log"
        );
        self.skipped.push(DamagedRange {
            path: self.path.clone(),
            offset: at as u64,
            len,
            reason,
        });
    }

    /// The last edit read, for messages.
    fn last_edit_text(&self) -> String {
        match &self.last_edit {
            Some((region, seq)) => format!(
                "the last edit recovered from it: sequence id {seq} of region {}",
                to_string_binary(region)
            ),
            None => "no edit recovered from it".to_string(),
        }
    }

    /// The error for records missing from `at` on, which the evidence proves were written.
    fn truncated(&self, at: usize) -> Error {
        let evidence = match (&self.expected_len, self.must_be_sealed && !self.sealed) {
            (Some((len, why)), _) if (at as u64) < *len => why.clone(),
            _ => "the log was rolled from (a later log follows it) and a rolled-from log \
                  ends with its seal, which is missing"
                .to_string(),
        };
        Error::Truncated {
            path: self.path.clone(),
            offset: at as u64,
            last: self.last_edit_text(),
            evidence,
        }
    }

    /// The end of the readable records: checks them against the evidence of how long the
    /// log is ([`Self::expect_len`], [`Self::must_be_sealed`]). Missing records are an
    /// error, except under [`RecoveryMode::SkipAnyCorrupted`], which reports them.
    fn finish(&mut self) -> Result<()> {
        let end = self.valid_len;
        let short = self
            .expected_len
            .as_ref()
            .is_some_and(|(len, _)| (end as u64) < *len);
        let unsealed = self.must_be_sealed && !self.sealed;
        if short || unsealed {
            let e = self.truncated(end);
            if self.mode == RecoveryMode::SkipAnyCorrupted {
                let missing = self
                    .expected_len
                    .as_ref()
                    .map_or(0, |(len, _)| len.saturating_sub(end as u64));
                self.skip_range(end, missing, e.to_string());
            } else {
                self.state = State::Failed;
                return Err(e);
            }
        }
        self.state = State::Done;
        Ok(())
    }
}

impl Iterator for WalReader {
    type Item = Result<WalEdit>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_edit().transpose()
    }
}
