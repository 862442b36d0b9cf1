//! `regionkv wal`: the write-ahead log inspector, modelled on HBase's `WALPrettyPrinter`
//! (`hbase wal [-p] [-j] [-t TABLE] [-r REGION] [-s SEQ] [-w ROW] FILE...`).
//!
//! For each entry it prints HBase's line
//! `Sequence=<seq>, table=<table>, region=<region>, at write timestamp=<date>` and one
//! `row=<row>, type=<Type>, column=<family>:<qualifier>, timestamp=<ts>` line per cell (with
//! `-p` followed by `    value: <value>`), then `position: <offset after the entry>`. Binary
//! bytes are escaped like `Bytes.toStringBinary`. With `-j` the entries are one JSON array
//! (HBase's keys `sequence`, `table`, `region`, `actions` with `row`, `type`, `family`,
//! `qualifier`, `timestamp`, `vlen`, `value`, plus `write_time` and `position`).
//!
//! Differences from HBase, on purpose: the cell line also shows the cell's timestamp; the
//! JVM heap-size lines (`cell total size sum`, `edit heap size`) are left out; each file
//! starts with one line describing its header; the write timestamp is printed in UTC.
//!
//! A directory among the arguments stands for every log in it (`wal.NNNNNNNNNNNNNNNNNNNN.log`),
//! printed oldest first, by log number, as WALPrettyPrinter prints a WAL directory's files
//! in name order; other files there (half-created `.tmp` logs included) are left out. A Db
//! directory stands for its `wal/` subdirectory.
//!
//! A torn tail (an incomplete last record, what a crash mid-append leaves) is reported as a
//! `WARNING` on standard error. Any other damage prints what was readable, then an
//! `ERROR: ...` line naming the file and offset, and the command exits with 1 after the
//! remaining files.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use regionkv_cell::bytes::to_string_binary;
use regionkv_fs::{ReadMode, RealFs};
use regionkv_wal::{RecoveryMode, WalEdit, WalReader};

/// What to print, and which entries.
#[derive(Debug, Clone, Default)]
pub struct WalOptions {
    /// `-p`: print values.
    pub values: bool,
    /// `-j`: print JSON.
    pub json: bool,
    /// `-t`: only entries of this table.
    pub table: Option<String>,
    /// `-r`: only entries of this region (its encoded name, escaped like toStringBinary).
    pub region: Option<String>,
    /// `-s`: only the entry with this sequence id.
    pub sequence: Option<u64>,
    /// `-w`: only cells of this row (escaped like toStringBinary).
    pub row: Option<String>,
}

/// One cell of an entry, as printed.
struct Action {
    row: String,
    cell_type: &'static str,
    family: String,
    qualifier: String,
    timestamp: i64,
    value: Option<String>,
    vlen: usize,
    /// The cell's tags as HBase's WALPrettyPrinter lists them, `type:value` (empty when the
    /// cell has none).
    tags: Vec<String>,
}

/// Writes `s` as a JSON string literal.
fn json_string(out: &mut dyn Write, s: &str) -> io::Result<()> {
    out.write_all(b"\"")?;
    for ch in s.chars() {
        match ch {
            '"' => out.write_all(b"\\\"")?,
            '\\' => out.write_all(b"\\\\")?,
            '\n' => out.write_all(b"\\n")?,
            '\r' => out.write_all(b"\\r")?,
            '\t' => out.write_all(b"\\t")?,
            c if u32::from(c) < 0x20 => write!(out, "\\u{:04x}", u32::from(c))?,
            c => write!(out, "{c}")?,
        }
    }
    out.write_all(b"\"")
}

/// Java's `Date.toString()` for `ms` since the epoch, in UTC:
/// `Sat Nov 21 10:00:00 UTC 2026`.
pub fn java_date_utc(ms: i64) -> String {
    const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let secs = ms.div_euclid(1000);
    let days = secs.div_euclid(86_400);
    let tod = secs.rem_euclid(86_400);
    let (year, month, day) = regionkv_cell::civil_from_days(days);
    let weekday = DAYS
        .get(days.rem_euclid(7) as usize)
        .copied()
        .unwrap_or("???");
    let month_name = MONTHS.get((month - 1) as usize).copied().unwrap_or("???");
    format!(
        "{weekday} {month_name} {day:02} {:02}:{:02}:{:02} UTC {year}",
        tod / 3600,
        tod % 3600 / 60,
        tod % 60
    )
}

/// The error and its sources, joined by `: `.
fn chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut source = e.source();
    while let Some(inner) = source {
        s.push_str(": ");
        s.push_str(&inner.to_string());
        source = inner.source();
    }
    s
}

/// Prints entries of several files: the text form, or one JSON array across all of them.
struct Printer<'a> {
    opts: &'a WalOptions,
    out: &'a mut dyn Write,
    first_json: bool,
}

impl Printer<'_> {
    /// The actions of `edit` that pass the filters, or `None` if the entry is filtered out.
    fn actions(&self, edit: &WalEdit) -> Option<Vec<Action>> {
        let key = &edit.key;
        if self.opts.table.as_ref().is_some_and(|t| *t != key.table)
            || self.opts.sequence.is_some_and(|s| s != key.seq_id)
            || self
                .opts
                .region
                .as_ref()
                .is_some_and(|r| *r != to_string_binary(&key.region))
        {
            return None;
        }
        let actions: Vec<Action> = edit
            .cells
            .iter()
            .map(|c| Action {
                row: to_string_binary(c.row()),
                cell_type: c.cell_type().name(),
                family: to_string_binary(c.family()),
                qualifier: to_string_binary(c.qualifier()),
                timestamp: c.timestamp(),
                value: self.opts.values.then(|| to_string_binary(c.value())),
                vlen: c.value().len(),
                tags: regionkv_cell::tag::iter_tags(c.tags())
                    .map(|t| format!("{}:{}", t.tag_type, to_string_binary(t.value)))
                    .collect(),
            })
            .filter(|a| self.opts.row.as_ref().is_none_or(|r| *r == a.row))
            .collect();
        // As in HBase, an entry left with no actions by the row filter is not printed.
        (!actions.is_empty() || (self.opts.row.is_none() && edit.cells.is_empty()))
            .then_some(actions)
    }

    fn header(&mut self, reader: &WalReader) -> io::Result<()> {
        if self.opts.json {
            return Ok(());
        }
        let h = reader.header();
        // Format 3: the Db the log belongs to, and the previous log's recorded length.
        let v3 = if h.version >= 3 {
            format!(
                ", db id={}, previous log length={}",
                h.db_id
                    .iter()
                    .map(|b| format!("{b:02x}"))
                    .collect::<String>(),
                h.prev_len
            )
        } else {
            String::new()
        };
        writeln!(
            self.out,
            "Log file: {}, number={}, version={}, origin={}, previous log={}, created at={}{}{v3}",
            reader.path().display(),
            h.number,
            h.version,
            h.origin.name(),
            h.prev_log,
            java_date_utc(h.created_ms),
            // A preallocating writer's log may end in reserved zeros (read as its end).
            if h.preallocated { ", preallocated" } else { "" }
        )
    }

    fn entry(&mut self, edit: &WalEdit, position: u64) -> io::Result<()> {
        let Some(actions) = self.actions(edit) else {
            return Ok(());
        };
        let key = &edit.key;
        let region = to_string_binary(&key.region);
        if !self.opts.json {
            writeln!(
                self.out,
                "Sequence={}, table={}, region={}, at write timestamp={}",
                key.seq_id,
                key.table,
                region,
                java_date_utc(key.write_time)
            )?;
            for a in &actions {
                writeln!(
                    self.out,
                    "row={}, type={}, column={}:{}, timestamp={}",
                    a.row, a.cell_type, a.family, a.qualifier, a.timestamp
                )?;
                if let Some(v) = &a.value {
                    writeln!(self.out, "    value: {v}")?;
                }
                if !a.tags.is_empty() {
                    writeln!(self.out, "    tag: [{}]", a.tags.join(", "))?;
                }
            }
            return writeln!(self.out, "position: {position}");
        }
        if !self.first_json {
            self.out.write_all(b",")?;
        }
        self.first_json = false;
        write!(self.out, "{{\"sequence\":{},\"table\":", key.seq_id)?;
        json_string(self.out, &key.table)?;
        self.out.write_all(b",\"region\":")?;
        json_string(self.out, &region)?;
        write!(
            self.out,
            ",\"write_time\":{},\"position\":{position},\"actions\":[",
            key.write_time
        )?;
        for (i, a) in actions.iter().enumerate() {
            if i > 0 {
                self.out.write_all(b",")?;
            }
            self.out.write_all(b"{\"row\":")?;
            json_string(self.out, &a.row)?;
            write!(self.out, ",\"type\":\"{}\",\"family\":", a.cell_type)?;
            json_string(self.out, &a.family)?;
            self.out.write_all(b",\"qualifier\":")?;
            json_string(self.out, &a.qualifier)?;
            write!(
                self.out,
                ",\"timestamp\":{},\"vlen\":{}",
                a.timestamp, a.vlen
            )?;
            if let Some(v) = &a.value {
                self.out.write_all(b",\"value\":")?;
                json_string(self.out, v)?;
            }
            if !a.tags.is_empty() {
                self.out.write_all(b",\"tag\":[")?;
                for (i, t) in a.tags.iter().enumerate() {
                    if i > 0 {
                        self.out.write_all(b",")?;
                    }
                    json_string(self.out, t)?;
                }
                self.out.write_all(b"]")?;
            }
            self.out.write_all(b"}")?;
        }
        self.out.write_all(b"]}")
    }

    /// Prints one file. `Ok(false)` when it is unreadable or corrupt (reported on `err`).
    fn file(&mut self, path: &Path, err: &mut dyn Write) -> io::Result<bool> {
        let fs = RealFs::with_read_mode(ReadMode::Pread);
        let mut reader = match WalReader::open(&fs, path) {
            Ok(r) => r.with_mode(RecoveryMode::TolerateCorruptedTail),
            Err(e) => {
                self.out.flush()?;
                writeln!(err, "ERROR: {}", chain(&e))?;
                return Ok(false);
            }
        };
        self.header(&reader)?;
        loop {
            match reader.next_edit() {
                Ok(Some(edit)) => self.entry(&edit, reader.offset())?,
                Ok(None) => break,
                Err(e) => {
                    self.out.flush()?;
                    writeln!(err, "ERROR: {}", chain(&e))?;
                    return Ok(false);
                }
            }
        }
        if let Some(tail) = reader.dropped_tail() {
            self.out.flush()?;
            writeln!(
                err,
                "WARNING: {}: {} bytes at offset {} ignored ({}): a torn tail, as a crash \
                 mid-append leaves; replay tolerates it only in the last log a process wrote",
                tail.path.display(),
                tail.len,
                tail.offset,
                tail.reason
            )?;
        }
        Ok(true)
    }
}

/// The log files of the directory `dir` by log number (or of `dir/wal` when `dir` holds
/// none and is a Db directory).
pub fn logs_in(dir: &Path) -> io::Result<Vec<PathBuf>> {
    let mut logs = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        if let Some(regionkv_wal::format::LogName::Log(n)) = entry
            .file_name()
            .to_str()
            .and_then(regionkv_wal::format::parse_log_name)
        {
            logs.push((n, entry.path()));
        }
    }
    if logs.is_empty() && dir.join("wal").is_dir() {
        return logs_in(&dir.join("wal"));
    }
    logs.sort();
    Ok(logs.into_iter().map(|(_, p)| p).collect())
}

/// Prints `files` to `out` (warnings and errors to `err`). Returns whether every file was
/// read without error.
pub fn run(
    files: &[PathBuf],
    opts: &WalOptions,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> io::Result<bool> {
    let mut printer = Printer {
        opts,
        out,
        first_json: true,
    };
    if opts.json {
        printer.out.write_all(b"[")?;
    }
    let mut ok = true;
    for f in files {
        if f.is_dir() {
            match logs_in(f) {
                Ok(logs) if logs.is_empty() => {
                    printer.out.flush()?;
                    writeln!(
                        err,
                        "ERROR: {}: no WAL log files in this directory",
                        f.display()
                    )?;
                    ok = false;
                }
                Ok(logs) => {
                    for l in &logs {
                        ok &= printer.file(l, err)?;
                    }
                }
                Err(e) => {
                    printer.out.flush()?;
                    writeln!(err, "ERROR: reading directory {}: {e}", f.display())?;
                    ok = false;
                }
            }
        } else {
            ok &= printer.file(f, err)?;
        }
    }
    if opts.json {
        printer.out.write_all(b"]\n")?;
    }
    printer.out.flush()?;
    Ok(ok)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_dates_in_utc() {
        assert_eq!(java_date_utc(0), "Thu Jan 01 00:00:00 UTC 1970");
        assert_eq!(
            java_date_utc(1_700_000_000_000),
            "Tue Nov 14 22:13:20 UTC 2023"
        );
        assert_eq!(
            java_date_utc(951_782_400_000),
            "Tue Feb 29 00:00:00 UTC 2000"
        );
        assert_eq!(java_date_utc(-1), "Wed Dec 31 23:59:59 UTC 1969");
    }

    #[test]
    fn json_strings_are_escaped() {
        let mut out = Vec::new();
        json_string(&mut out, "a\"b\\c\x01\n").unwrap_or_default();
        assert_eq!(String::from_utf8_lossy(&out), r#""a\"b\\c\u0001\n""#);
    }
}
