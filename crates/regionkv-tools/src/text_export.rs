//! The latest cells of a table as CSV or JSON lines, for people who want to look at the data
//! in other tools (spreadsheets, `jq`, pandas). Not a backup: one version per column, no
//! delete markers, no tags; [`crate::export`] is the lossless form.
//!
//! One line per cell: row, family, qualifier, timestamp, value. Row, family, qualifier and
//! value are written in HBase's `Bytes.toStringBinary` form (printable ASCII as is except
//! the backslash; every other byte as `\xHH`, upper-case hex), so binary keys and values
//! survive any text tool and `Bytes.toBytesBinary` (or the shell's `"\x00"` strings) turns
//! them back into bytes. CSV follows RFC 4180 on top (a field holding `,` or `"` is quoted,
//! `"` doubled; `toStringBinary` already escapes CR and LF), with a header line; a JSON line
//! is an object with the five keys, the timestamp a number.
//!
//! Streaming: one scan of at most `hbase.export.scanner.batch` cells per result, written
//! through a buffered writer.

use std::io::Write;
use std::sync::Arc;
use std::time::{Duration, Instant};

use regionkv::Db;
use regionkv::cell::bytes::to_string_binary;

use crate::error::{Error, Result};
use crate::export::{ExportOptions, open_table};
use crate::progress::Progress;

/// The text formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextFormat {
    /// RFC 4180 CSV with a header line.
    Csv,
    /// One JSON object per line.
    JsonLines,
}

impl TextFormat {
    /// `csv` or `jsonl` (also `json-lines`, `ndjson`).
    pub fn from_name(name: &str) -> Option<Self> {
        match name.to_ascii_lowercase().as_str() {
            "csv" => Some(Self::Csv),
            "jsonl" | "json-lines" | "ndjson" => Some(Self::JsonLines),
            _ => None,
        }
    }
}

/// What a text export wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextExportReport {
    /// Rows written.
    pub rows: u64,
    /// Cells (lines, without the CSV header) written.
    pub cells: u64,
    /// Bytes written.
    pub bytes: u64,
    /// From the scan's start to the last byte written.
    pub elapsed: Duration,
}

/// A CSV field: quoted when it holds a comma or a double quote.
fn csv_field(out: &mut Vec<u8>, text: &str) {
    if text.contains([',', '"']) {
        out.push(b'"');
        out.extend_from_slice(text.replace('"', "\"\"").as_bytes());
        out.push(b'"');
    } else {
        out.extend_from_slice(text.as_bytes());
    }
}

/// The line of one cell, with its newline.
pub fn render_cell(format: TextFormat, cell: &regionkv::Cell, out: &mut Vec<u8>) {
    let row = to_string_binary(cell.row());
    let family = to_string_binary(cell.family());
    let qualifier = to_string_binary(cell.qualifier());
    let value = to_string_binary(cell.value());
    match format {
        TextFormat::Csv => {
            csv_field(out, &row);
            out.push(b',');
            csv_field(out, &family);
            out.push(b',');
            csv_field(out, &qualifier);
            out.extend_from_slice(format!(",{},", cell.timestamp()).as_bytes());
            csv_field(out, &value);
        }
        TextFormat::JsonLines => {
            // Keys in cell order (a json! map would sort them).
            let text = |s: &str| serde_json::Value::String(s.to_string()).to_string();
            let line = format!(
                "{{\"row\":{},\"family\":{},\"qualifier\":{},\"timestamp\":{},\"value\":{}}}",
                text(&row),
                text(&family),
                text(&qualifier),
                cell.timestamp(),
                text(&value)
            );
            out.extend_from_slice(line.as_bytes());
        }
    }
    out.push(b'\n');
}

/// Writes the latest cells of `table` as `format` to `out`. Of `options`, the rows, families,
/// time range and row filter apply; versions are always 1 and the scan is never raw.
pub fn export_text(
    db: &Db,
    table: &str,
    options: &ExportOptions,
    format: TextFormat,
    out: &mut dyn Write,
    progress: &Arc<Progress>,
) -> Result<TextExportReport> {
    let table = open_table(db, table)?;
    let mut latest = options.clone();
    latest.versions = Some(1);
    latest.raw = false;
    crate::export::selected_families(&table.descriptor(), &latest.families)?;
    let scan = latest.scan()?;
    let started = Instant::now();
    let io = |e: std::io::Error| Error::file(std::path::Path::new("output"), e);
    let mut buf = Vec::with_capacity(64 * 1024);
    if format == TextFormat::Csv {
        buf.extend_from_slice(b"row,family,qualifier,timestamp,value\n");
    }
    let (mut rows, mut cells, mut bytes) = (0u64, 0u64, 0u64);
    let mut last_row: Vec<u8> = Vec::new();
    for result in table.scan(&scan)? {
        let result = result?;
        let new_row = rows == 0 || result.row() != last_row.as_slice();
        if new_row {
            rows += 1;
            last_row.clear();
            last_row.extend_from_slice(result.row());
        }
        for c in result.cells() {
            render_cell(format, c, &mut buf);
        }
        cells += result.len() as u64;
        if buf.len() >= 64 * 1024 {
            out.write_all(&buf).map_err(io)?;
            bytes += buf.len() as u64;
            progress.add(u64::from(new_row), result.len() as u64, buf.len() as u64);
            buf.clear();
        } else {
            progress.add(u64::from(new_row), result.len() as u64, 0);
        }
    }
    out.write_all(&buf).map_err(io)?;
    bytes += buf.len() as u64;
    out.flush().map_err(io)?;
    Ok(TextExportReport {
        rows,
        cells,
        bytes,
        elapsed: started.elapsed(),
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use regionkv::Cell;

    fn line(format: TextFormat, c: &Cell) -> String {
        let mut out = Vec::new();
        render_cell(format, c, &mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn binary_bytes_are_escaped_as_hbase_prints_them() {
        let c = Cell::put(b"r\x00,1", b"cf", b"q\"x", 42, b"a\\b\n\xff").unwrap();
        assert_eq!(
            line(TextFormat::Csv, &c),
            "\"r\\x00,1\",cf,\"q\"\"x\",42,a\\x5Cb\\x0A\\xFF\n"
        );
        assert_eq!(
            line(TextFormat::JsonLines, &c),
            "{\"row\":\"r\\\\x00,1\",\"family\":\"cf\",\"qualifier\":\"q\\\"x\",\"timestamp\":42,\"value\":\"a\\\\x5Cb\\\\x0A\\\\xFF\"}\n"
        );
        // toBytesBinary reverses the escaping exactly.
        let v = regionkv::cell::bytes::to_bytes_binary("a\\x5Cb\\x0A\\xFF").unwrap();
        assert_eq!(v, b"a\\b\n\xff");
    }

    #[test]
    fn format_names() {
        assert_eq!(TextFormat::from_name("CSV"), Some(TextFormat::Csv));
        assert_eq!(TextFormat::from_name("jsonl"), Some(TextFormat::JsonLines));
        assert_eq!(TextFormat::from_name("xml"), None);
    }
}
