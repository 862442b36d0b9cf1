//! The on-disk format of a log file, specified in `docs/wal-format.md`: file names, the file
//! header, record framing and the edit payload. Everything here is pure: bytes in, bytes out.
//!
//! ```text
//! file   = header(76; 44 in versions 1 and 2) record* [seal]
//! record = len:u32 | type:u8 | header_crc:u32 | record_crc:u32 | payload[len]
//! ```
//!
//! The header CRC covers `len | type`, so a damaged length is caught before it is trusted;
//! the record CRC covers `len | type | payload`. Both are CRC-32 (IEEE, crc32fast), masked as
//! LevelDB masks its CRCs, so a run of zero bytes never verifies (the CRC-32 of empty input is
//! 0, RELIABILITY.md F3). This module is part of the file format: its constants never change
//! within a format version.

#![deny(clippy::indexing_slicing)]

use std::path::{Path, PathBuf};

use regionkv_cell::Cell;

use crate::edit::{WalEdit, WalKey, WalKeyRef};
use crate::error::{Error, Result};

/// The first 8 bytes of every log file.
pub const MAGIC: [u8; 8] = *b"RKWALLOG";
/// The format version this build writes: version 2 adds the region declaration and the
/// compact edit (record types 3 to 5); version 3 the Db id and the previous log's length in
/// the header, and the seal record (type 6).
pub const FORMAT_VERSION: u32 = 3;
/// The oldest format version this build reads (version 1 logs hold types 1 and 2 only).
pub const MIN_FORMAT_VERSION: u32 = 1;
/// Bytes of the file header this build writes (format version 3).
pub const HEADER_LEN: usize = 76;
/// Bytes of the file header of format versions 1 and 2.
pub const HEADER_LEN_V2: usize = 44;
/// Bytes of a record's frame header (length, type, two CRCs).
pub const FRAME_HEADER_LEN: usize = 13;
/// The largest payload a record may carry (256 MiB).
pub const MAX_PAYLOAD_LEN: u32 = 256 << 20;
/// Record type of an edit.
pub const RECORD_TYPE_EDIT: u8 = 1;
/// Record type of an edit some of whose cells carry tags: each cell is followed by its tag
/// run (`tags length:u16 | tags`). Written only when a cell has tags, so logs of tagless
/// edits stay readable by builds that know type 1 alone.
pub const RECORD_TYPE_EDIT_TAGS: u8 = 2;
/// Record type of a region declaration: gives a region (and its table) a small id that the
/// compact edits after it in the same log name it by.
pub const RECORD_TYPE_DECLARE: u8 = 3;
/// Record type of a compact edit: the region by its declared id, varint lengths, cell keys
/// without their sequence id (the edit's, which every cell carries).
pub const RECORD_TYPE_COMPACT_EDIT: u8 = 4;
/// A compact edit whose cells carry tag runs.
pub const RECORD_TYPE_COMPACT_EDIT_TAGS: u8 = 5;
/// Record type of a seal (format version 3): the last record of a log that was rolled from
/// or closed, naming its own offset. A sealed log is complete: it ends there.
pub const RECORD_TYPE_SEAL: u8 = 6;

/// True for the record types this build reads.
fn known_record_type(t: u8) -> bool {
    (RECORD_TYPE_EDIT..=RECORD_TYPE_SEAL).contains(&t)
}

/// Added to the rotated CRC by [`mask_crc`] (LevelDB's `kMaskDelta`).
const MASK_DELTA: u32 = 0xA282_EAD8;

/// Masks a CRC so that the CRC of data that embeds CRCs, or of all-zero bytes, is not a
/// fixed point: rotate right by 15 bits, add a constant.
pub fn mask_crc(crc: u32) -> u32 {
    crc.rotate_right(15).wrapping_add(MASK_DELTA)
}

/// The masked CRC-32 of the concatenation of `parts`.
pub fn masked_crc(parts: &[&[u8]]) -> u32 {
    let mut h = crc32fast::Hasher::new();
    for p in parts {
        h.update(p);
    }
    mask_crc(h.finalize())
}

/// The file name of log `number`: `wal.` + 20 zero-padded digits + `.log`, so that names
/// sort in log order.
pub fn log_file_name(number: u64) -> String {
    format!("wal.{number:020}.log")
}

/// The path of log `number` in `dir`.
pub fn log_path(dir: &Path, number: u64) -> PathBuf {
    dir.join(log_file_name(number))
}

/// The temporary name a log is written under until its header is durable.
pub fn temp_log_path(dir: &Path, number: u64) -> PathBuf {
    dir.join(format!("{}.tmp", log_file_name(number)))
}

/// What a file name in a WAL directory is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogName {
    /// A log file with this number.
    Log(u64),
    /// A log left half-created by a crash (its header may not be durable); safe to delete.
    Temp(u64),
}

/// Parses a file name made by [`log_file_name`] or [`temp_log_path`]; `None` for anything
/// else.
pub fn parse_log_name(name: &str) -> Option<LogName> {
    let rest = name.strip_prefix("wal.")?;
    let (digits, temp) = match rest.strip_suffix(".log.tmp") {
        Some(d) => (d, true),
        None => (rest.strip_suffix(".log")?, false),
    };
    if digits.len() != 20 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let number = digits.parse().ok()?;
    Some(if temp {
        LogName::Temp(number)
    } else {
        LogName::Log(number)
    })
}

/// Why a log file was started.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LogOrigin {
    /// By [`Wal::open`](crate::Wal::open): the first log of a process. Its
    /// [`prev_log`](LogHeader::prev_log) is the newest log that existed then, which that
    /// earlier process may have left with a torn tail.
    Open,
    /// By a roll: the previous log was synced completely before this one was created.
    Roll,
}

impl LogOrigin {
    fn code(self) -> u8 {
        match self {
            LogOrigin::Open => 1,
            LogOrigin::Roll => 2,
        }
    }

    fn from_code(code: u8) -> Option<LogOrigin> {
        match code {
            1 => Some(LogOrigin::Open),
            2 => Some(LogOrigin::Roll),
            _ => None,
        }
    }

    /// A lower-case name for reports.
    pub fn name(self) -> &'static str {
        match self {
            LogOrigin::Open => "open",
            LogOrigin::Roll => "roll",
        }
    }
}

/// The header at the start of every log file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LogHeader {
    /// The format version.
    pub version: u32,
    /// Why the log was started.
    pub origin: LogOrigin,
    /// The log's number (also in its file name).
    pub number: u64,
    /// When it was created, in milliseconds since the epoch.
    pub created_ms: i64,
    /// For [`LogOrigin::Open`], the number of the newest log in the directory at the time (0
    /// if none); for [`LogOrigin::Roll`], the number of the log rolled from.
    pub prev_log: u64,
    /// The writer reserves room ahead of its appends (flag bit 0 of byte 13), so the file may
    /// end in zero bytes that are not records: a zero tail at a record boundary is the end
    /// of the log, not damage.
    pub preallocated: bool,
    /// The Db the log belongs to (format version 3; all zeros: unknown). A log found in
    /// another Db's directory is refused.
    pub db_id: [u8; 16],
    /// How long `prev_log` was, as far as it was known to hold records (format version 3; 0:
    /// unknown): for [`LogOrigin::Roll`], its final length, seal included; for
    /// [`LogOrigin::Open`], the length of its valid records as this process's recovery read
    /// them. Evidence against truncation: `prev_log` may never be found shorter.
    pub prev_len: u64,
}

/// Bit of the header's flags byte (offset 13): the log may end in a reserved zero tail.
const FLAG_PREALLOCATED: u8 = 1;

impl LogHeader {
    /// Bytes of this header's encoding (by its version).
    pub fn encoded_len(&self) -> usize {
        header_len(self.version)
    }

    /// The header's bytes, in the layout of its version. Every version starts with the
    /// same 44 bytes (fields up to offset 40, then the CRC of `[0, 40)`), so a build that
    /// knows only versions 1 and 2 verifies that CRC and then refuses a version 3 log as an
    /// unsupported version, not as a damaged one. Version 3 goes on with the Db id, the
    /// previous log's length and a CRC of the whole header.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = vec![0u8; self.encoded_len()];
        let fields: [(usize, &[u8]); 7] = [
            (0, &MAGIC),
            (8, &self.version.to_be_bytes()),
            (12, &[self.origin.code()]),
            (
                13,
                &[if self.preallocated {
                    FLAG_PREALLOCATED
                } else {
                    0
                }],
            ),
            (16, &self.number.to_be_bytes()),
            (24, &self.created_ms.to_be_bytes()),
            (32, &self.prev_log.to_be_bytes()),
        ];
        for (at, bytes) in fields {
            if let Some(slot) = out.get_mut(at..at + bytes.len()) {
                slot.copy_from_slice(bytes);
            }
        }
        let put_crc = |out: &mut Vec<u8>, at: usize| {
            let crc = masked_crc(&[out.get(..at).unwrap_or_default()]);
            if let Some(slot) = out.get_mut(at..at + 4) {
                slot.copy_from_slice(&crc.to_be_bytes());
            }
        };
        put_crc(&mut out, 40);
        if self.version >= 3 {
            if let Some(slot) = out.get_mut(44..60) {
                slot.copy_from_slice(&self.db_id);
            }
            if let Some(slot) = out.get_mut(60..68) {
                slot.copy_from_slice(&self.prev_len.to_be_bytes());
            }
            put_crc(&mut out, 72);
        }
        out
    }

    /// Parses and verifies the header at the start of `bytes` (the first bytes of the file
    /// at `path`; `file_len` is the whole file's length, for the message).
    pub fn decode(path: &Path, bytes: &[u8], file_len: u64) -> Result<LogHeader> {
        let corrupt = |reason: String| Error::Corrupt {
            path: path.to_path_buf(),
            offset: 0,
            reason,
        };
        if bytes.get(..MAGIC.len()).is_some_and(|m| m != MAGIC) || bytes.len() < MAGIC.len() {
            return Err(Error::NotAWal {
                path: path.to_path_buf(),
                reason: if bytes.len() < MAGIC.len() {
                    format!("{file_len} bytes is too short for a WAL header")
                } else {
                    "wrong magic".into()
                },
            });
        }
        let short = |len: usize| {
            corrupt(format!(
                "file of {file_len} bytes is too short for the {len}-byte WAL header"
            ))
        };
        let verify = |h: &[u8], at: usize| {
            let stored = be_u32(h, at);
            let computed = masked_crc(&[h.get(..at).unwrap_or_default()]);
            if stored == computed {
                Ok(())
            } else {
                Err(corrupt(format!(
                    "header checksum mismatch: stored {stored:#010x}, computed {computed:#010x}"
                )))
            }
        };
        // The first 44 bytes are the same in every version: verified before the version
        // is trusted.
        let h = bytes
            .get(..HEADER_LEN_V2)
            .ok_or_else(|| short(HEADER_LEN_V2))?;
        verify(h, 40)?;
        let version = be_u32(h, 8);
        if !(MIN_FORMAT_VERSION..=FORMAT_VERSION).contains(&version) {
            return Err(Error::UnsupportedVersion {
                path: path.to_path_buf(),
                version,
                supported: FORMAT_VERSION,
            });
        }
        let h = bytes
            .get(..header_len(version))
            .ok_or_else(|| short(header_len(version)))?;
        if version >= 3 {
            verify(h, 72)?;
        }
        let origin_code = h.get(12).copied().unwrap_or_default();
        let origin = LogOrigin::from_code(origin_code)
            .ok_or_else(|| corrupt(format!("unknown log origin code {origin_code}")))?;
        let mut db_id = [0u8; 16];
        let mut prev_len = 0;
        if version >= 3 {
            if let Some(id) = h.get(44..60) {
                db_id.copy_from_slice(id);
            }
            prev_len = be_u64(h, 60);
        }
        Ok(LogHeader {
            version,
            origin,
            number: be_u64(h, 16),
            created_ms: be_u64(h, 24) as i64,
            prev_log: be_u64(h, 32),
            // Other flag bits are reserved: written zero, ignored.
            preallocated: h.get(13).is_some_and(|f| f & FLAG_PREALLOCATED != 0),
            db_id,
            prev_len,
        })
    }
}

/// Bytes of the header of format `version` (a version this build does not know is given
/// the current length; its header is refused after the checksum).
pub fn header_len(version: u32) -> usize {
    if version < 3 {
        HEADER_LEN_V2
    } else {
        HEADER_LEN
    }
}

/// Encodes a seal (type 6): the log ends here; `offset` is where the seal starts (the
/// length of everything before it). Returns the record's length.
pub fn encode_seal_into(out: &mut Vec<u8>, offset: u64) -> usize {
    let start = out.len();
    out.extend_from_slice(&[0; FRAME_HEADER_LEN]);
    out.extend_from_slice(&offset.to_be_bytes());
    // Eight bytes of payload: within every limit.
    finish_frame(out, start, RECORD_TYPE_SEAL).unwrap_or_default()
}

/// Reads a big-endian u32 at `at` (0 if out of range; callers check lengths first).
fn be_u32(b: &[u8], at: usize) -> u32 {
    b.get(at..at + 4)
        .and_then(|s| s.try_into().ok())
        .map_or(0, u32::from_be_bytes)
}

/// Reads a big-endian u64 at `at` (0 if out of range; callers check lengths first).
fn be_u64(b: &[u8], at: usize) -> u64 {
    b.get(at..at + 8)
        .and_then(|s| s.try_into().ok())
        .map_or(0, u64::from_be_bytes)
}

/// The payload length of `edit`, checking the format's limits.
fn payload_len(key: &WalKeyRef<'_>, cells: &[Cell], tagged: bool) -> Result<usize> {
    check_names(key.region, key.table)?;
    let mut len: u64 = (2 + key.region.len() + 2 + key.table.len() + 8 + 8 + 4) as u64;
    for c in cells {
        len += (4 + c.key_bytes().len() + 4 + c.value().len()) as u64;
        if tagged {
            // `Cell` keeps tag runs within 65535 bytes (`Cell::with_tags`).
            len += (2 + c.tags().len()) as u64;
        }
    }
    if len > u64::from(MAX_PAYLOAD_LEN) || cells.len() > u32::MAX as usize {
        return Err(Error::EditTooLarge {
            size: len,
            max: u64::from(MAX_PAYLOAD_LEN),
        });
    }
    Ok(len as usize)
}

/// True when some cell carries tags (the edit is then written as type 2).
fn has_tags(cells: &[Cell]) -> bool {
    cells.iter().any(|c| !c.tags().is_empty())
}

/// Encodes `edit` as one framed record, appended to `out`. Returns the record's length.
pub fn encode_record_into(out: &mut Vec<u8>, edit: &WalEdit) -> Result<usize> {
    encode_parts_into(out, &edit.key.as_ref(), &edit.cells)
}

/// Encodes the edit of `key` and `cells` as one framed record, appended to `out`. Returns
/// the record's length; on an error nothing was appended.
pub fn encode_parts_into(out: &mut Vec<u8>, key: &WalKeyRef<'_>, cells: &[Cell]) -> Result<usize> {
    let tagged = has_tags(cells);
    let len = payload_len(key, cells, tagged)?;
    let start = out.len();
    out.reserve(FRAME_HEADER_LEN + len);
    let [l0, l1, l2, l3] = (len as u32).to_be_bytes();
    let record_type = if tagged {
        RECORD_TYPE_EDIT_TAGS
    } else {
        RECORD_TYPE_EDIT
    };
    let head = [l0, l1, l2, l3, record_type];
    out.extend_from_slice(&head);
    out.extend_from_slice(&masked_crc(&[&head]).to_be_bytes());
    out.extend_from_slice(&[0; 4]); // the record CRC, filled in below
    let payload_start = out.len();
    let k = key;
    // Lengths were checked by payload_len, so these narrowing casts are exact.
    out.extend_from_slice(&(k.region.len() as u16).to_be_bytes());
    out.extend_from_slice(k.region);
    out.extend_from_slice(&(k.table.len() as u16).to_be_bytes());
    out.extend_from_slice(k.table.as_bytes());
    out.extend_from_slice(&k.seq_id.to_be_bytes());
    out.extend_from_slice(&k.write_time.to_be_bytes());
    out.extend_from_slice(&(cells.len() as u32).to_be_bytes());
    for c in cells {
        out.extend_from_slice(&(c.key_bytes().len() as u32).to_be_bytes());
        out.extend_from_slice(c.key_bytes());
        out.extend_from_slice(&(c.value().len() as u32).to_be_bytes());
        out.extend_from_slice(c.value());
        if tagged {
            out.extend_from_slice(&(c.tags().len() as u16).to_be_bytes());
            out.extend_from_slice(c.tags());
        }
    }
    debug_assert_eq!(out.len() - payload_start, len);
    let crc = masked_crc(&[&head, out.get(payload_start..).unwrap_or_default()]);
    if let Some(slot) = out.get_mut(payload_start - 4..payload_start) {
        slot.copy_from_slice(&crc.to_be_bytes());
    }
    Ok(out.len() - start)
}

/// Appends `v` as an unsigned LEB128 varint.
fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Fills in the frame header of the record that starts at `start` of `out` (13 reserved
/// bytes, then the payload up to the end of `out`). Returns the record's length; if the
/// payload is too long, removes the record and fails.
fn finish_frame(out: &mut Vec<u8>, start: usize, record_type: u8) -> Result<usize> {
    let payload_start = start + FRAME_HEADER_LEN;
    let len = out.len() - payload_start;
    if len > MAX_PAYLOAD_LEN as usize {
        out.truncate(start);
        return Err(Error::EditTooLarge {
            size: len as u64,
            max: u64::from(MAX_PAYLOAD_LEN),
        });
    }
    let [l0, l1, l2, l3] = (len as u32).to_be_bytes();
    let head = [l0, l1, l2, l3, record_type];
    let record_crc = masked_crc(&[&head, out.get(payload_start..).unwrap_or_default()]);
    let mut frame = [0u8; FRAME_HEADER_LEN];
    frame[..5].copy_from_slice(&head);
    frame[5..9].copy_from_slice(&masked_crc(&[&head]).to_be_bytes());
    frame[9..].copy_from_slice(&record_crc.to_be_bytes());
    if let Some(slot) = out.get_mut(start..payload_start) {
        slot.copy_from_slice(&frame);
    }
    Ok(out.len() - start)
}

/// Checks the name lengths a record can carry (u16 lengths).
pub fn check_names(region: &[u8], table: &str) -> Result<()> {
    if region.len() > usize::from(u16::MAX) {
        return Err(Error::InvalidEdit("region name longer than 65535 bytes"));
    }
    if table.len() > usize::from(u16::MAX) {
        return Err(Error::InvalidEdit("table name longer than 65535 bytes"));
    }
    Ok(())
}

/// True when `cells` can go into a compact edit of `key`: every cell's key ends in the
/// edit's sequence id (a region stamps every cell of a mutation with it), so the log can
/// leave those 8 bytes out of each key and replay put them back.
pub fn compactable(key: &WalKeyRef<'_>, cells: &[Cell]) -> bool {
    cells.iter().all(|c| c.seq_id() == key.seq_id)
}

/// Encodes a region declaration (type 3): `id` stands for `region` of `table` in the
/// compact edits after it in the same log. Returns the record's length.
pub fn encode_declaration_into(
    out: &mut Vec<u8>,
    id: u64,
    region: &[u8],
    table: &str,
) -> Result<usize> {
    check_names(region, table)?;
    let start = out.len();
    out.reserve(FRAME_HEADER_LEN + 10 + 4 + region.len() + table.len());
    out.extend_from_slice(&[0; FRAME_HEADER_LEN]);
    put_varint(out, id);
    // Lengths were checked above, so these narrowing casts are exact.
    out.extend_from_slice(&(region.len() as u16).to_be_bytes());
    out.extend_from_slice(region);
    out.extend_from_slice(&(table.len() as u16).to_be_bytes());
    out.extend_from_slice(table.as_bytes());
    finish_frame(out, start, RECORD_TYPE_DECLARE)
}

/// Encodes a compact edit (type 4, or 5 when a cell carries tags) of the region declared
/// as `region_id`. REQUIRES: [`compactable`]`(key, cells)`. Returns the record's length; on
/// an error nothing was appended.
pub fn encode_compact_into(
    out: &mut Vec<u8>,
    region_id: u64,
    key: &WalKeyRef<'_>,
    cells: &[Cell],
) -> Result<usize> {
    debug_assert!(compactable(key, cells));
    let tagged = has_tags(cells);
    let start = out.len();
    let bytes: usize = cells
        .iter()
        .map(|c| c.key_bytes().len() + c.value().len() + c.tags().len() + 12)
        .sum();
    out.reserve(FRAME_HEADER_LEN + 30 + bytes);
    out.extend_from_slice(&[0; FRAME_HEADER_LEN]);
    put_varint(out, region_id);
    put_varint(out, key.seq_id);
    out.extend_from_slice(&key.write_time.to_be_bytes());
    put_varint(out, cells.len() as u64);
    for c in cells {
        let k = c.key_bytes();
        // A valid key is at least 20 bytes and ends in its 8-byte sequence id.
        let k = k.get(..k.len().saturating_sub(8)).unwrap_or_default();
        put_varint(out, k.len() as u64);
        out.extend_from_slice(k);
        put_varint(out, c.value().len() as u64);
        out.extend_from_slice(c.value());
        if tagged {
            put_varint(out, c.tags().len() as u64);
            out.extend_from_slice(c.tags());
        }
    }
    let record_type = if tagged {
        RECORD_TYPE_COMPACT_EDIT_TAGS
    } else {
        RECORD_TYPE_COMPACT_EDIT
    };
    finish_frame(out, start, record_type)
}

/// Encodes `edit` as one framed record.
pub fn encode_record(edit: &WalEdit) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    encode_record_into(&mut out, edit)?;
    Ok(out)
}

/// What is wrong with the bytes where a record should start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Damage {
    /// Fewer bytes are left than a frame header needs.
    IncompleteHeader {
        /// Bytes left in the file.
        available: usize,
    },
    /// The frame header verifies, but the file ends before its payload does.
    IncompletePayload {
        /// Payload length the header announces.
        len: u32,
        /// Payload bytes present.
        available: usize,
    },
    /// Every byte from here to the end of the file is zero.
    ZeroTail {
        /// How many zero bytes.
        len: usize,
    },
    /// The frame header's checksum does not match its length and type.
    HeaderChecksum {
        /// Stored in the file.
        stored: u32,
        /// Computed from the bytes.
        computed: u32,
    },
    /// The frame header verifies but announces a payload larger than the format allows.
    TooLong {
        /// Announced length.
        len: u32,
    },
    /// The record's checksum does not match its bytes.
    RecordChecksum {
        /// Stored in the file.
        stored: u32,
        /// Computed from the bytes.
        computed: u32,
    },
    /// A verified record of a type this build does not know.
    UnknownType(u8),
    /// A verified record whose payload does not decode.
    BadPayload(String),
}

impl Damage {
    /// True for what a crash mid-append leaves behind (see [`RecoveryMode`](crate::RecoveryMode)).
    pub fn is_torn(&self) -> bool {
        matches!(
            self,
            Damage::IncompleteHeader { .. }
                | Damage::IncompletePayload { .. }
                | Damage::ZeroTail { .. }
        )
    }
}

impl std::fmt::Display for Damage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Damage::IncompleteHeader { available } => write!(
                f,
                "incomplete record: {available} bytes left, a record header needs {FRAME_HEADER_LEN}"
            ),
            Damage::IncompletePayload { len, available } => write!(
                f,
                "incomplete record: header announces {len} payload bytes, {available} present"
            ),
            Damage::ZeroTail { len } => write!(f, "zero-filled tail of {len} bytes"),
            Damage::HeaderChecksum { stored, computed } => write!(
                f,
                "record header checksum mismatch: stored {stored:#010x}, computed {computed:#010x}"
            ),
            Damage::TooLong { len } => write!(
                f,
                "record announces {len} payload bytes, more than the maximum {MAX_PAYLOAD_LEN}"
            ),
            Damage::RecordChecksum { stored, computed } => write!(
                f,
                "record checksum mismatch: stored {stored:#010x}, computed {computed:#010x}"
            ),
            Damage::UnknownType(t) => write!(f, "unknown record type {t}"),
            Damage::BadPayload(why) => write!(f, "malformed edit payload: {why}"),
        }
    }
}

/// A region declaration (record type 3).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Declaration {
    /// The id the log's compact edits use.
    pub id: u64,
    /// The region's encoded name.
    pub region: Vec<u8>,
    /// Its table.
    pub table: String,
}

/// A compact edit (record types 4 and 5) before its region id is resolved: the cells are
/// complete (their keys end in `seq_id` again).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompactEdit {
    /// The declared id of the region.
    pub region_id: u64,
    /// The edit's sequence id.
    pub seq_id: u64,
    /// The edit's write time.
    pub write_time: i64,
    /// The cells.
    pub cells: Vec<Cell>,
}

impl CompactEdit {
    /// The edit, with the names its region id was declared with.
    pub fn resolve(self, region: Vec<u8>, table: String) -> WalEdit {
        WalEdit {
            key: WalKey {
                region,
                table,
                seq_id: self.seq_id,
                write_time: self.write_time,
            },
            cells: self.cells,
        }
    }
}

/// One decoded record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Record {
    /// An edit that names its region (types 1 and 2).
    Edit(WalEdit),
    /// A region declaration (type 3).
    Declare(Declaration),
    /// A compact edit (types 4 and 5), to resolve with the log's declarations.
    Compact(CompactEdit),
    /// A seal (type 6): the log ends here; the offset the seal says it starts at.
    Seal(u64),
}

/// Parses the record starting at `pos` of a log file's bytes `data`: the decoded record and
/// the offset just past it, or what is wrong there. `pos` must be below `data.len()`.
pub fn parse_record(data: &[u8], pos: usize) -> std::result::Result<(Record, usize), Damage> {
    let rest = data.get(pos..).unwrap_or_default();
    let damage = match parse_frame(rest) {
        Ok((payload, len, record_type)) => match decode_typed(payload, record_type) {
            Ok(record) => return Ok((record, pos + len)),
            Err(why) => Damage::BadPayload(why),
        },
        Err(d) => d,
    };
    if !damage.is_torn() && rest.iter().all(|&b| b == 0) {
        return Err(Damage::ZeroTail { len: rest.len() });
    }
    Err(damage)
}

/// Verifies the frame at the start of `rest`: its payload, the frame's total length and
/// the record type.
fn parse_frame(rest: &[u8]) -> std::result::Result<(&[u8], usize, u8), Damage> {
    let Some(head) = rest.get(..5) else {
        return Err(Damage::IncompleteHeader {
            available: rest.len(),
        });
    };
    if rest.len() < FRAME_HEADER_LEN {
        return Err(Damage::IncompleteHeader {
            available: rest.len(),
        });
    }
    let stored = be_u32(rest, 5);
    let computed = masked_crc(&[head]);
    if stored != computed {
        return Err(Damage::HeaderChecksum { stored, computed });
    }
    let len = be_u32(rest, 0);
    if len > MAX_PAYLOAD_LEN {
        return Err(Damage::TooLong { len });
    }
    let end = FRAME_HEADER_LEN + len as usize;
    let Some(payload) = rest.get(FRAME_HEADER_LEN..end) else {
        return Err(Damage::IncompletePayload {
            len,
            available: rest.len() - FRAME_HEADER_LEN,
        });
    };
    let stored = be_u32(rest, 9);
    let computed = masked_crc(&[head, payload]);
    if stored != computed {
        return Err(Damage::RecordChecksum { stored, computed });
    }
    let record_type = head.get(4).copied().unwrap_or_default();
    if !known_record_type(record_type) {
        return Err(Damage::UnknownType(record_type));
    }
    Ok((payload, end, record_type))
}

/// A bounds-checked reader over a payload.
struct Cursor<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize, what: &str) -> std::result::Result<&'a [u8], String> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.buf.len());
        match end.and_then(|e| self.buf.get(self.pos..e)) {
            Some(s) => {
                self.pos += n;
                Ok(s)
            }
            None => Err(format!(
                "{what} of {n} bytes at payload offset {} runs past the payload ({} bytes)",
                self.pos,
                self.buf.len()
            )),
        }
    }

    fn array<const N: usize>(&mut self, what: &str) -> std::result::Result<[u8; N], String> {
        let s = self.take(N, what)?;
        s.try_into().map_err(|_| format!("{what}: short read"))
    }

    fn u16(&mut self, what: &str) -> std::result::Result<u16, String> {
        self.array(what).map(u16::from_be_bytes)
    }

    fn u32(&mut self, what: &str) -> std::result::Result<u32, String> {
        self.array(what).map(u32::from_be_bytes)
    }

    fn u64(&mut self, what: &str) -> std::result::Result<u64, String> {
        self.array(what).map(u64::from_be_bytes)
    }

    /// A region name and a table name, each behind a u16 length (the table in UTF-8).
    fn names(&mut self) -> std::result::Result<(Vec<u8>, String), String> {
        let region_len = self.u16("region length")?;
        let region = self.take(usize::from(region_len), "region name")?.to_vec();
        let table_len = self.u16("table length")?;
        let table = std::str::from_utf8(self.take(usize::from(table_len), "table name")?)
            .map_err(|_| "table name is not UTF-8".to_string())?
            .to_owned();
        Ok((region, table))
    }

    /// An unsigned LEB128 varint of at most 10 bytes whose value fits in a u64.
    fn varint(&mut self, what: &str) -> std::result::Result<u64, String> {
        let mut v: u64 = 0;
        for i in 0..10 {
            let b = self.take(1, what)?.first().copied().unwrap_or_default();
            let bits = u64::from(b & 0x7f);
            if i == 9 && b > 1 {
                return Err(format!("{what}: varint overflows 64 bits"));
            }
            v |= bits << (7 * i);
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(format!("{what}: varint longer than 10 bytes"))
    }

    /// A varint length that must fit in the bytes left.
    fn len(&mut self, what: &str) -> std::result::Result<usize, String> {
        let n = self.varint(what)?;
        if n > self.remaining() as u64 {
            return Err(format!(
                "{what} {n} at payload offset {} runs past the payload ({} bytes)",
                self.pos,
                self.buf.len()
            ));
        }
        Ok(n as usize)
    }

    fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }
}

/// Decodes an edit payload of record type 1. Every length is checked against the bytes
/// left before anything is allocated.
pub fn decode_payload(payload: &[u8]) -> std::result::Result<WalEdit, String> {
    decode_edit(payload, false)
}

/// Decodes the payload of a record of `record_type`.
fn decode_typed(payload: &[u8], record_type: u8) -> std::result::Result<Record, String> {
    match record_type {
        RECORD_TYPE_EDIT => decode_edit(payload, false).map(Record::Edit),
        RECORD_TYPE_EDIT_TAGS => decode_edit(payload, true).map(Record::Edit),
        RECORD_TYPE_DECLARE => decode_declaration(payload).map(Record::Declare),
        RECORD_TYPE_COMPACT_EDIT => decode_compact(payload, false).map(Record::Compact),
        RECORD_TYPE_COMPACT_EDIT_TAGS => decode_compact(payload, true).map(Record::Compact),
        RECORD_TYPE_SEAL => {
            let offset: [u8; 8] = payload
                .try_into()
                .map_err(|_| format!("a seal of {} bytes (8 expected)", payload.len()))?;
            Ok(Record::Seal(u64::from_be_bytes(offset)))
        }
        t => Err(format!("unknown record type {t}")),
    }
}

fn no_trailing_bytes(c: &Cursor<'_>) -> std::result::Result<(), String> {
    if c.remaining() != 0 {
        return Err(format!(
            "{} trailing bytes after the last cell",
            c.remaining()
        ));
    }
    Ok(())
}

/// Decodes a type 1 or 2 (`tagged`) edit payload.
fn decode_edit(payload: &[u8], tagged: bool) -> std::result::Result<WalEdit, String> {
    let mut c = Cursor {
        buf: payload,
        pos: 0,
    };
    let (region, table) = c.names()?;
    let seq_id = c.u64("sequence id")?;
    let write_time = c.u64("write time")? as i64;
    let count = c.u32("cell count")? as usize;
    // Each cell takes at least 28 bytes (two lengths and a key of at least 20 bytes):
    // bound the count before allocating.
    if count > c.remaining() / 28 {
        return Err(format!(
            "cell count {count} cannot fit in the {} bytes left",
            c.remaining()
        ));
    }
    let mut cells = Vec::with_capacity(count);
    for i in 0..count {
        let key_len = c.u32("cell key length")? as usize;
        let key = c.take(key_len, "cell key")?.to_vec();
        let value_len = c.u32("cell value length")? as usize;
        let value = c.take(value_len, "cell value")?.to_vec();
        let mut cell = Cell::from_parts(key, value).map_err(|e| format!("cell {i}: {e}"))?;
        if tagged {
            let tags_len = c.u16("cell tags length")?;
            let tags = c.take(usize::from(tags_len), "cell tags")?.to_vec();
            cell = cell.with_tags(tags).map_err(|e| format!("cell {i}: {e}"))?;
        }
        cells.push(cell);
    }
    no_trailing_bytes(&c)?;
    Ok(WalEdit {
        key: WalKey {
            region,
            table,
            seq_id,
            write_time,
        },
        cells,
    })
}

/// Decodes a type 3 payload.
fn decode_declaration(payload: &[u8]) -> std::result::Result<Declaration, String> {
    let mut c = Cursor {
        buf: payload,
        pos: 0,
    };
    let id = c.varint("region id")?;
    let (region, table) = c.names()?;
    if c.remaining() != 0 {
        return Err(format!(
            "{} trailing bytes after the table name",
            c.remaining()
        ));
    }
    Ok(Declaration { id, region, table })
}

/// Decodes a type 4 or 5 (`tagged`) payload.
fn decode_compact(payload: &[u8], tagged: bool) -> std::result::Result<CompactEdit, String> {
    let mut c = Cursor {
        buf: payload,
        pos: 0,
    };
    let region_id = c.varint("region id")?;
    let seq_id = c.varint("sequence id")?;
    let write_time = c.u64("write time")? as i64;
    let count = c.varint("cell count")?;
    // Each cell takes at least 14 bytes (two lengths and a key of at least 12 bytes
    // without its sequence id): bound the count before allocating.
    if count > (c.remaining() / 14) as u64 {
        return Err(format!(
            "cell count {count} cannot fit in the {} bytes left",
            c.remaining()
        ));
    }
    let mut cells = Vec::with_capacity(count as usize);
    for i in 0..count {
        let key_len = c.len("cell key length")?;
        let stored = c.take(key_len, "cell key")?;
        let mut key = Vec::with_capacity(key_len + 8);
        key.extend_from_slice(stored);
        // The sequence id goes back where the writer left it out (key-format.md stores it
        // inverted; `with_seq_id` writes it so).
        key.extend_from_slice(&[0; 8]);
        let value_len = c.len("cell value length")?;
        let value = c.take(value_len, "cell value")?.to_vec();
        let mut cell = Cell::from_parts(key, value)
            .map_err(|e| format!("cell {i}: {e}"))?
            .with_seq_id(seq_id);
        if tagged {
            let tags_len = c.len("cell tags length")?;
            let tags = c.take(tags_len, "cell tags")?.to_vec();
            cell = cell.with_tags(tags).map_err(|e| format!("cell {i}: {e}"))?;
        }
        cells.push(cell);
    }
    no_trailing_bytes(&c)?;
    Ok(CompactEdit {
        region_id,
        seq_id,
        write_time,
        cells,
    })
}

/// The offset of the first record at or after `from` that verifies and decodes, or
/// `data.len()` if there is none (used by [`RecoveryMode::SkipAnyCorrupted`](crate::RecoveryMode)).
/// The cheap frame-header check rejects almost every offset before a payload CRC is computed.
pub fn find_next_record(data: &[u8], from: usize) -> usize {
    (from..data.len())
        .find(|&p| {
            let rest = data.get(p..).unwrap_or_default();
            rest.get(4).is_some_and(|&t| known_record_type(t))
                && parse_frame(rest).is_ok_and(|(payload, _, t)| decode_typed(payload, t).is_ok())
        })
        .unwrap_or(data.len())
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use regionkv_cell::CellType;

    fn edit(seq: u64) -> WalEdit {
        WalEdit::new(
            WalKey {
                region: b"1588230740".to_vec(),
                table: "ns:t1".into(),
                seq_id: seq,
                write_time: 1_700_000_000_000,
            },
            vec![
                Cell::put(b"row\x00", b"cf", b"q", 42, b"value")
                    .unwrap()
                    .with_seq_id(seq),
                Cell::delete_marker(b"row\x00", b"cf", b"", 41, CellType::DeleteFamily)
                    .unwrap()
                    .with_seq_id(seq),
            ],
        )
    }

    #[test]
    fn record_round_trips_and_has_the_documented_layout() {
        let e = edit(7);
        let rec = encode_record(&e).unwrap();
        let len = u32::from_be_bytes(rec[0..4].try_into().unwrap()) as usize;
        assert_eq!(rec.len(), FRAME_HEADER_LEN + len);
        assert_eq!(rec[4], RECORD_TYPE_EDIT);
        assert_eq!(
            u32::from_be_bytes(rec[5..9].try_into().unwrap()),
            masked_crc(&[&rec[..5]])
        );
        assert_eq!(
            u32::from_be_bytes(rec[9..13].try_into().unwrap()),
            masked_crc(&[&rec[..5], &rec[13..]])
        );
        // Payload: region, table, seq, write time, cell count.
        assert_eq!(&rec[13..15], &10u16.to_be_bytes());
        assert_eq!(&rec[15..25], b"1588230740");
        assert_eq!(&rec[25..27], &5u16.to_be_bytes());
        assert_eq!(&rec[27..32], b"ns:t1");
        assert_eq!(&rec[32..40], &7u64.to_be_bytes());
        assert_eq!(&rec[48..52], &2u32.to_be_bytes());
        let (back, end) = parse_record(&rec, 0).unwrap();
        assert_eq!(back, Record::Edit(e));
        assert_eq!(end, rec.len());
    }

    /// `e` with a TTL tag on its cell `i`.
    fn with_ttl(mut e: WalEdit, i: usize, ttl: i64) -> WalEdit {
        e.cells[i] = e.cells[i]
            .clone()
            .with_tags(regionkv_cell::tag::with_ttl(&[], Some(ttl)))
            .unwrap();
        e
    }

    #[test]
    fn edits_with_tags_are_type_2_and_round_trip() {
        let e = with_ttl(edit(9), 0, 60_000);
        let rec = encode_record(&e).unwrap();
        assert_eq!(rec[4], RECORD_TYPE_EDIT_TAGS);
        // The first cell ends with its 11-byte TTL tag run after a u16 length; the
        // tagless marker after it with a zero length.
        assert_eq!(&rec[rec.len() - 2..], &[0, 0]);
        let (back, end) = parse_record(&rec, 0).unwrap();
        let Record::Edit(back) = back else {
            panic!("not an edit: {back:?}")
        };
        assert_eq!(back, e);
        assert_eq!(back.cells[0].ttl(), Some(60_000));
        assert_eq!(end, rec.len());
        // Every bit flip is still caught.
        for i in 0..rec.len() {
            let mut bad = rec.clone();
            bad[i] ^= 0x04;
            assert!(parse_record(&bad, 0).is_err(), "byte {i}");
        }
        // A type-1 reading of a type-2 payload does not decode.
        let payload = &rec[FRAME_HEADER_LEN..];
        assert!(decode_payload(payload).is_err());
    }

    #[test]
    fn header_round_trips_with_the_documented_layout() {
        let h = LogHeader {
            version: FORMAT_VERSION,
            origin: LogOrigin::Open,
            number: 3,
            created_ms: 1_700_000_000_123,
            prev_log: 2,
            preallocated: false,
            db_id: *b"0123456789abcdef",
            prev_len: 4242,
        };
        let b = h.encode();
        assert_eq!(b.len(), HEADER_LEN);
        assert_eq!(&b[..8], b"RKWALLOG");
        assert_eq!(&b[8..12], &3u32.to_be_bytes());
        assert_eq!(b[12], 1);
        assert_eq!(&b[13..16], &[0, 0, 0]);
        assert_eq!(&b[16..24], &3u64.to_be_bytes());
        assert_eq!(&b[32..40], &2u64.to_be_bytes());
        // The 44 bytes every version shares end in the CRC of the first 40.
        assert_eq!(&b[40..44], &masked_crc(&[&b[..40]]).to_be_bytes());
        assert_eq!(&b[44..60], b"0123456789abcdef");
        assert_eq!(&b[60..68], &4242u64.to_be_bytes());
        assert_eq!(&b[68..72], &[0; 4], "reserved");
        assert_eq!(&b[72..76], &masked_crc(&[&b[..72]]).to_be_bytes());
        let pre = LogHeader {
            preallocated: true,
            ..h
        };
        let pb = pre.encode();
        assert_eq!(&pb[13..16], &[1, 0, 0], "flag bit 0 of byte 13");
        let p = Path::new("/w/x");
        assert_eq!(LogHeader::decode(p, &pb, 76).unwrap(), pre);
        assert_eq!(LogHeader::decode(p, &b, 76).unwrap(), h);
        for i in 0..HEADER_LEN {
            let mut bad = b.clone();
            bad[i] ^= 0x10;
            let err = LogHeader::decode(p, &bad, 76).unwrap_err();
            assert!(err.is_corruption(), "byte {i}: {err}");
        }
        assert!(matches!(
            LogHeader::decode(p, &b[..50], 50),
            Err(Error::Corrupt { offset: 0, .. })
        ));
        assert!(matches!(
            LogHeader::decode(p, b"hello", 5),
            Err(Error::NotAWal { .. })
        ));
        // Versions 1 and 2: the 44-byte header, without the Db id and previous length.
        let v2 = LogHeader {
            version: 2,
            db_id: [0; 16],
            prev_len: 0,
            ..h
        };
        let b2 = v2.encode();
        assert_eq!(b2.len(), HEADER_LEN_V2);
        assert_eq!(LogHeader::decode(p, &b2, 44).unwrap(), v2);
    }

    #[test]
    fn unsupported_version_is_reported_as_such() {
        let header = |version| {
            LogHeader {
                version,
                origin: LogOrigin::Roll,
                number: 1,
                created_ms: 0,
                prev_log: 0,
                preallocated: false,
                db_id: [0; 16],
                prev_len: 0,
            }
            .encode()
        };
        // encode() writes whatever version it is given; the CRC is valid.
        let mut b = header(4);
        let err = LogHeader::decode(Path::new("/w/x"), &b, 76).unwrap_err();
        assert!(
            matches!(err, Error::UnsupportedVersion { version: 4, .. }),
            "{err}"
        );
        assert!(LogHeader::decode(Path::new("/w/x"), &header(0), 44).is_err());
        // Version 1 logs (written before the compact records) are still read.
        assert_eq!(
            LogHeader::decode(Path::new("/w/x"), &header(1), 44)
                .unwrap()
                .version,
            1
        );
        b[0] = b'X';
        assert!(matches!(
            LogHeader::decode(Path::new("/w/x"), &b, 76),
            Err(Error::NotAWal { .. })
        ));
    }

    #[test]
    fn seals_round_trip_and_name_their_offset() {
        let mut out = vec![7u8; 3];
        let len = encode_seal_into(&mut out, 1234);
        assert_eq!(len, FRAME_HEADER_LEN + 8);
        let (record, end) = parse_record(&out, 3).unwrap();
        assert_eq!(record, Record::Seal(1234));
        assert_eq!(end, out.len());
    }

    #[test]
    fn zeros_never_verify() {
        // F3: the CRC-32 of empty input is 0, so an unmasked all-zero frame would "verify".
        assert_eq!(crc32fast::hash(&[]), 0);
        assert_ne!(mask_crc(0), 0);
        assert_ne!(masked_crc(&[&[0u8; 5]]), 0);
        for n in [1, 5, FRAME_HEADER_LEN, 100, 4096] {
            let zeros = vec![0u8; n];
            let damage = parse_record(&zeros, 0).unwrap_err();
            assert!(damage.is_torn(), "{n}: {damage}");
            if n >= FRAME_HEADER_LEN {
                assert_eq!(damage, Damage::ZeroTail { len: n });
            }
            assert_eq!(find_next_record(&zeros, 0), n);
        }
    }

    #[test]
    fn every_single_bit_flip_is_detected() {
        let rec = encode_record(&edit(1)).unwrap();
        for i in 0..rec.len() {
            for bit in 0..8 {
                let mut bad = rec.clone();
                bad[i] ^= 1 << bit;
                let damage = parse_record(&bad, 0).unwrap_err();
                // A flip in the length can make the record look longer than the file:
                // the header CRC catches that first.
                assert!(!matches!(damage, Damage::ZeroTail { .. }), "{i}/{bit}");
                assert!(!damage.is_torn(), "byte {i} bit {bit}: {damage}");
            }
        }
    }

    #[test]
    fn truncations_are_torn() {
        let rec = encode_record(&edit(1)).unwrap();
        for cut in 1..rec.len() {
            let d = parse_record(&rec[..cut], 0).unwrap_err();
            assert!(d.is_torn(), "cut {cut}: {d}");
        }
    }

    #[test]
    fn huge_counts_and_lengths_are_rejected_before_allocating() {
        let mut p = Vec::new();
        p.extend_from_slice(&0u16.to_be_bytes());
        p.extend_from_slice(&0u16.to_be_bytes());
        p.extend_from_slice(&[0; 16]);
        p.extend_from_slice(&u32::MAX.to_be_bytes());
        assert!(decode_payload(&p).unwrap_err().contains("cell count"));
        let mut p2 = p[..20].to_vec();
        p2.extend_from_slice(&1u32.to_be_bytes());
        p2.extend_from_slice(&u32::MAX.to_be_bytes());
        p2.extend_from_slice(&[0; 24]);
        assert!(decode_payload(&p2).unwrap_err().contains("cell key"));
        // A frame announcing more than the maximum is refused even with a valid header CRC.
        let mut head = Vec::new();
        head.extend_from_slice(&u32::MAX.to_be_bytes());
        head.push(RECORD_TYPE_EDIT);
        let crc = masked_crc(&[&head]);
        head.extend_from_slice(&crc.to_be_bytes());
        head.extend_from_slice(&[1; 4]);
        assert_eq!(
            parse_record(&head, 0),
            Err(Damage::TooLong { len: u32::MAX })
        );
    }

    #[test]
    fn find_next_record_skips_garbage() {
        let a = encode_record(&edit(1)).unwrap();
        let b = encode_record(&edit(2)).unwrap();
        let mut data = a.clone();
        data.extend_from_slice(b"garbage!garbage!");
        let at = data.len();
        data.extend_from_slice(&b);
        assert_eq!(find_next_record(&data, 1), at);
        assert_eq!(find_next_record(&data, at + 1), data.len());
    }

    #[test]
    fn names_sort_and_parse() {
        assert_eq!(log_file_name(1), "wal.00000000000000000001.log");
        assert_eq!(
            parse_log_name("wal.00000000000000000012.log"),
            Some(LogName::Log(12))
        );
        assert_eq!(
            parse_log_name("wal.00000000000000000012.log.tmp"),
            Some(LogName::Temp(12))
        );
        for bad in [
            "wal.12.log",
            "wal.0000000000000000001x.log",
            "wal.00000000000000000012.LOG",
            ".DS_Store",
            "wal.00000000000000000012.log.bak",
        ] {
            assert_eq!(parse_log_name(bad), None, "{bad}");
        }
        assert!(log_file_name(9) < log_file_name(10));
    }

    #[test]
    fn edits_the_format_cannot_hold_are_refused() {
        let mut e = edit(1);
        e.key.region = vec![b'r'; 70_000];
        assert!(matches!(encode_record(&e), Err(Error::InvalidEdit(_))));
        let mut e = edit(1);
        e.key.table = "t".repeat(70_000);
        assert!(matches!(encode_record(&e), Err(Error::InvalidEdit(_))));
    }

    fn compact(e: &WalEdit, id: u64) -> Vec<u8> {
        let mut out = Vec::new();
        let n = encode_compact_into(&mut out, id, &e.key.as_ref(), &e.cells).unwrap();
        assert_eq!(n, out.len());
        out
    }

    #[test]
    fn compact_edits_round_trip_and_are_smaller() {
        let e = edit(300);
        assert!(compactable(&e.key.as_ref(), &e.cells));
        let rec = compact(&e, 7);
        assert_eq!(rec[4], RECORD_TYPE_COMPACT_EDIT);
        // Payload: id 7, seq 300 as a 2-byte varint, write time, 2 cells.
        assert_eq!(&rec[13..16], &[7, 0xac, 0x02]);
        assert_eq!(&rec[16..24], &1_700_000_000_000i64.to_be_bytes());
        assert_eq!(rec[24], 2);
        // Each key is stored without its 8-byte sequence id.
        assert_eq!(usize::from(rec[25]), e.cells[0].key_bytes().len() - 8);
        let named = encode_record(&e).unwrap();
        assert!(
            rec.len() + 40 <= named.len(),
            "{} vs {}",
            rec.len(),
            named.len()
        );
        let (back, end) = parse_record(&rec, 0).unwrap();
        assert_eq!(end, rec.len());
        let Record::Compact(c) = back else {
            panic!("not a compact edit: {back:?}")
        };
        assert_eq!(c.region_id, 7);
        assert_eq!(c.resolve(e.key.region.clone(), e.key.table.clone()), e);
    }

    #[test]
    fn compact_edits_with_tags_are_type_5_and_every_flip_is_caught() {
        let e = with_ttl(edit(9), 1, 5_000);
        let rec = compact(&e, 1);
        assert_eq!(rec[4], RECORD_TYPE_COMPACT_EDIT_TAGS);
        let (back, _) = parse_record(&rec, 0).unwrap();
        let Record::Compact(c) = back else {
            panic!("not a compact edit: {back:?}")
        };
        assert_eq!(c.cells[1].ttl(), Some(5_000));
        assert_eq!(c.resolve(e.key.region.clone(), e.key.table.clone()), e);
        for i in 0..rec.len() {
            let mut bad = rec.clone();
            bad[i] ^= 0x10;
            assert!(parse_record(&bad, 0).is_err(), "byte {i}");
        }
    }

    #[test]
    fn cells_of_other_sequence_ids_are_not_compactable() {
        let mut e = edit(5);
        e.cells[1] = e.cells[1].clone().with_seq_id(4);
        assert!(!compactable(&e.key.as_ref(), &e.cells));
    }

    #[test]
    fn declarations_round_trip() {
        let mut out = Vec::new();
        encode_declaration_into(&mut out, 300, b"0123abcd", "ns:t").unwrap();
        assert_eq!(out[4], RECORD_TYPE_DECLARE);
        let (back, end) = parse_record(&out, 0).unwrap();
        assert_eq!(end, out.len());
        assert_eq!(
            back,
            Record::Declare(Declaration {
                id: 300,
                region: b"0123abcd".to_vec(),
                table: "ns:t".into()
            })
        );
        assert!(encode_declaration_into(&mut out, 1, &vec![0; 70_000], "t").is_err());
    }

    #[test]
    fn malformed_compact_payloads_are_reported_not_panicked_on() {
        // Hand-framed payloads that pass the checksums but not the decoder.
        let frame = |payload: &[u8], t: u8| {
            let mut out = vec![0; FRAME_HEADER_LEN];
            out.extend_from_slice(payload);
            finish_frame(&mut out, 0, t).unwrap();
            out
        };
        let cases: [(&[u8], &str); 4] = [
            // An 11-byte varint.
            (&[0xff; 11], "varint"),
            // A cell count far beyond the bytes left.
            (&[1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0x7f], "cell count"),
            // A key length past the payload.
            (
                &[
                    1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0x40, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                ],
                "cell key length",
            ),
            // A key that is not a valid key (its row length runs past it).
            (
                &[
                    1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 12, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                    0,
                ],
                "cell 0",
            ),
        ];
        for (payload, want) in cases {
            let rec = frame(payload, RECORD_TYPE_COMPACT_EDIT);
            match parse_record(&rec, 0) {
                Err(Damage::BadPayload(why)) => assert!(why.contains(want), "{why}"),
                other => panic!("{payload:?}: {other:?}"),
            }
        }
    }

    /// The sizes `docs/wal-format.md` quotes for the comparison suite's edit.
    #[test]
    fn the_suite_edit_is_159_bytes_compact_and_221_named() {
        let seq = 2_000_000;
        let e = WalEdit::new(
            WalKey {
                region: vec![b'0'; 32],
                table: "bench".into(),
                seq_id: seq,
                write_time: 1_700_000_000_000,
            },
            vec![
                Cell::put(
                    b"0000000001234568",
                    b"cf",
                    b"q",
                    1_700_000_000_000,
                    &[7; 100],
                )
                .unwrap()
                .with_seq_id(seq),
            ],
        );
        assert_eq!(encode_record(&e).unwrap().len(), 221);
        assert_eq!(compact(&e, 1).len(), 159);
    }
}
