//! One TSV line to one `Put`: HBase's `ImportTsv.TsvParser` (split a line at the separator
//! byte, check the field count) and `TsvImporterMapper.map` (row, timestamp, TTL and cells),
//! with the reasons HBase gives for a bad line.
//!
//! The rules, in the order HBase applies them:
//!
//! 1. A line without a separator is bad ("No delimiter"); more fields than columns is bad
//!    ("Excessive columns"); fewer is fine as long as the row key, timestamp, attributes
//!    and TTL fields are there ("No row key", "No timestamp", "No attributes specified",
//!    "No cell TTL specified"). Missing trailing cell columns simply write no cell.
//! 2. `HBASE_TS_KEY` is a decimal number as Java's `Long.parseLong` reads it ("Invalid
//!    timestamp X"); without it every cell gets the job's timestamp.
//! 3. `HBASE_CELL_TTL` is, exactly as in HBase (`Bytes.toLong`), the 8-byte big-endian
//!    binary form of a number of milliseconds ("Wrong length: N, expected 8"); a TTL of 0
//!    or less sets none.
//! 4. The row is not empty and at most 32767 bytes ("Row length is 0", "Row length N is >
//!    32767", HBase's `Put` constructor).
//! 5. `HBASE_ATTRIBUTES_KEY` holds `key=>value` pairs separated by `,` ("Invalid attributes
//!    separator specified: [..]", the rule of HBase's attribute-reading mapper). regionkv
//!    has no operation attributes (no coprocessor reads them), so they are checked and
//!    dropped; HBase's default mapper drops them unchecked.
//! 6. One cell per remaining field (an empty field is an empty value, or no cell under
//!    `importtsv.skip.empty.columns`); a put with no cell is bad ("No columns to insert") and
//!    so is a cell over HBase's 10 MiB client limit ("KeyValue size too large"): HBase's
//!    `BufferedMutator` throws both from inside the mapper, which counts them as bad lines.
//! 7. regionkv addition: a negative timestamp is a bad line ("Timestamp cannot be negative.
//!    ts=N"), since the write would fail the whole import otherwise.

use regionkv::Put;
use regionkv::cell::limits::{DEFAULT_MAX_CELL_SIZE, MAX_ROW_LEN};

/// The column that holds the row key (exactly one).
pub const ROWKEY_COLUMN_SPEC: &str = "HBASE_ROW_KEY";
/// The column that holds each line's timestamp (at most one).
pub const TIMESTAMPKEY_COLUMN_SPEC: &str = "HBASE_TS_KEY";
/// The column of operation attributes, `k=>v,k2=>v2` (at most one).
pub const ATTRIBUTES_COLUMN_SPEC: &str = "HBASE_ATTRIBUTES_KEY";
/// The visibility expression column (refused: regionkv has no visibility labels).
pub const CELL_VISIBILITY_COLUMN_SPEC: &str = "HBASE_CELL_VISIBILITY";
/// The per-put TTL column (8-byte big-endian milliseconds, as HBase reads it).
pub const CELL_TTL_COLUMN_SPEC: &str = "HBASE_CELL_TTL";

/// What one TSV column is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Column {
    RowKey,
    Timestamp,
    Attributes,
    Visibility,
    CellTtl,
    /// `family` (empty qualifier) or `family:qualifier` (split at the first `:`).
    Cell {
        family: Vec<u8>,
        qualifier: Vec<u8>,
    },
}

/// The column layout of an import and the separator (HBase's `TsvParser`).
#[derive(Debug, Clone)]
pub(crate) struct TsvParser {
    columns: Vec<Column>,
    separator: u8,
    row_key: usize,
    timestamp: Option<usize>,
    attributes: Option<usize>,
    cell_ttl: Option<usize>,
}

/// A good line, mapped: its row, timestamp, TTL and cells, borrowed from the line. The WAL
/// path writes it as a [`Put`] ([`Mapped::to_put`]); the bulk modes take its cells as they
/// are ([`Mapped::columns`]), with no put in between.
#[derive(Debug)]
pub(crate) struct Mapped<'l> {
    parser: &'l TsvParser,
    line: &'l [u8],
    ends: &'l [usize],
    skip_empty_columns: bool,
    pub row: &'l [u8],
    pub timestamp: i64,
    /// The cells' TTL in ms, as [`Put::ttl`] keeps it (`None`: none).
    pub ttl: Option<i64>,
    /// Cells the line makes.
    pub cells: u64,
    /// Bytes of row, families, qualifiers and values: the put's weight in a write batch.
    pub bytes: usize,
}

impl<'l> Mapped<'l> {
    /// Each cell's family, qualifier and value, in column order.
    pub fn columns(&self) -> impl Iterator<Item = (&'l [u8], &'l [u8], &'l [u8])> + use<'l> {
        let (line, ends, skip_empty) = (self.line, self.ends, self.skip_empty_columns);
        self.parser
            .columns
            .iter()
            .enumerate()
            .take(ends.len())
            .filter_map(move |(i, column)| {
                let Column::Cell { family, qualifier } = column else {
                    return None;
                };
                let value = field(line, ends, i);
                (!(skip_empty && value.is_empty())).then_some((
                    family.as_slice(),
                    qualifier.as_slice(),
                    value,
                ))
            })
    }

    /// The line as HBase's mapper writes it: one put of every cell, at the line's timestamp.
    pub fn to_put(&self) -> Put {
        let mut put = Put::with_timestamp(self.row, self.timestamp);
        for (family, qualifier, value) in self.columns() {
            put = put.add_column(family, qualifier, value);
        }
        match self.ttl {
            Some(ttl) => put.ttl(ttl),
            None => put,
        }
    }
}

/// Field `i` of a line split at `ends`.
fn field<'l>(line: &'l [u8], ends: &[usize], i: usize) -> &'l [u8] {
    let start = if i == 0 { 0 } else { ends[i - 1] + 1 };
    &line[start..ends[i]]
}

/// Java's `Arrays.toString` of strings.
fn java_list(items: &[&str]) -> String {
    format!("[{}]", items.join(", "))
}

/// Java's `String.split(regex)` for a literal separator: trailing empty pieces dropped.
fn java_split<'a>(s: &'a str, sep: &str) -> Vec<&'a str> {
    let mut parts: Vec<&str> = s.split(sep).collect();
    while parts.len() > 1 && parts.last().is_some_and(|p| p.is_empty()) {
        parts.pop();
    }
    parts
}

impl TsvParser {
    /// The parser of `names` (already checked by the options: one row key, at most one
    /// timestamp, attributes and TTL column, no empty name).
    pub fn new(names: &[&str], separator: u8) -> Self {
        let mut p = Self {
            columns: Vec::with_capacity(names.len()),
            separator,
            row_key: 0,
            timestamp: None,
            attributes: None,
            cell_ttl: None,
        };
        for (i, name) in names.iter().enumerate() {
            let column = match *name {
                ROWKEY_COLUMN_SPEC => {
                    p.row_key = i;
                    Column::RowKey
                }
                TIMESTAMPKEY_COLUMN_SPEC => {
                    p.timestamp = Some(i);
                    Column::Timestamp
                }
                ATTRIBUTES_COLUMN_SPEC => {
                    p.attributes = Some(i);
                    Column::Attributes
                }
                CELL_VISIBILITY_COLUMN_SPEC => Column::Visibility,
                CELL_TTL_COLUMN_SPEC => {
                    p.cell_ttl = Some(i);
                    Column::CellTtl
                }
                spec => match spec.split_once(':') {
                    Some((f, q)) => Column::Cell {
                        family: f.as_bytes().to_vec(),
                        qualifier: q.as_bytes().to_vec(),
                    },
                    None => Column::Cell {
                        family: spec.as_bytes().to_vec(),
                        qualifier: Vec::new(),
                    },
                },
            };
            p.columns.push(column);
        }
        p
    }

    /// The columns, in order.
    pub fn columns(&self) -> &[Column] {
        &self.columns
    }

    /// Splits `line`: `ends` receives the end offset of each field. HBase's checks of the
    /// field count, with its reasons.
    pub fn split(&self, line: &[u8], ends: &mut Vec<usize>) -> Result<(), &'static str> {
        ends.clear();
        let max = self.columns.len();
        for (i, &b) in line.iter().enumerate() {
            if b == self.separator {
                ends.push(i);
                // Past the column count already: stop scanning a runaway line.
                if ends.len() >= max {
                    return Err("Excessive columns");
                }
            }
        }
        if ends.is_empty() {
            return Err("No delimiter");
        }
        ends.push(line.len());
        let n = ends.len();
        if n <= self.row_key {
            return Err("No row key");
        }
        let missing = |i: Option<usize>| i.is_some_and(|i| n <= i);
        if missing(self.timestamp) {
            return Err("No timestamp");
        }
        if missing(self.attributes) {
            return Err("No attributes specified");
        }
        if missing(self.cell_ttl) {
            return Err("No cell TTL specified");
        }
        Ok(())
    }

    /// The cells of a split line (rules 2 to 7 of the module docs); `Err` is the bad line's
    /// reason.
    pub fn map<'l>(
        &'l self,
        line: &'l [u8],
        ends: &'l [usize],
        default_ts: i64,
        skip_empty_columns: bool,
    ) -> Result<Mapped<'l>, String> {
        let field = |i: usize| field(line, ends, i);
        let ts = match self.timestamp {
            None => default_ts,
            Some(i) => {
                let text = String::from_utf8_lossy(field(i));
                text.parse::<i64>()
                    .map_err(|_| format!("Invalid timestamp {text}"))?
            }
        };
        let ttl = match self.cell_ttl {
            None => 0,
            Some(i) => {
                let f = field(i);
                let bytes: [u8; 8] = f
                    .try_into()
                    .map_err(|_| format!("Wrong length: {}, expected 8", f.len()))?;
                i64::from_be_bytes(bytes)
            }
        };
        let row = field(self.row_key);
        if row.is_empty() {
            return Err("Row length is 0".into());
        }
        if row.len() > MAX_ROW_LEN {
            return Err(format!("Row length {} is > {MAX_ROW_LEN}", row.len()));
        }
        if let Some(i) = self.attributes {
            check_attributes(field(i))?;
        }
        if ts < 0 {
            return Err(format!("Timestamp cannot be negative. ts={ts}"));
        }
        let mut mapped = Mapped {
            parser: self,
            line,
            ends,
            skip_empty_columns,
            row,
            timestamp: ts,
            // HBase sets a cell TTL only when the field holds a positive one.
            ttl: (ttl > 0 && ttl != i64::MAX).then_some(ttl),
            cells: 0,
            bytes: row.len(),
        };
        for (family, qualifier, value) in mapped.columns() {
            // KeyValue's serialized length: 4 + 4 length fields, a key of row (2-byte
            // length), family (1-byte length), qualifier, timestamp (8) and type (1).
            let kv_len = 8 + 2 + row.len() + 1 + family.len() + qualifier.len() + 9 + value.len();
            if kv_len > DEFAULT_MAX_CELL_SIZE {
                return Err("KeyValue size too large".into());
            }
            mapped.cells += 1;
            mapped.bytes += family.len() + qualifier.len() + value.len();
        }
        if mapped.cells == 0 {
            return Err("No columns to insert".into());
        }
        Ok(mapped)
    }
}

/// Rule 5: `key=>value` pairs separated by `,`, neither side empty. An empty field is no
/// attribute at all.
fn check_attributes(field: &[u8]) -> Result<(), String> {
    if field.is_empty() {
        return Ok(());
    }
    let text = String::from_utf8_lossy(field);
    let attributes = java_split(&text, ",");
    for attr in &attributes {
        let kv = java_split(attr, "=>");
        let ok = kv.len() > 1 && !kv[0].is_empty() && !kv[1].is_empty();
        if !ok {
            return Err(format!(
                "Invalid attributes separator specified: {}",
                java_list(&attributes)
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn parser(spec: &str) -> TsvParser {
        let names: Vec<&str> = spec.split(',').collect();
        TsvParser::new(&names, b'\t')
    }

    fn split(p: &TsvParser, line: &str) -> Result<Vec<usize>, &'static str> {
        let mut ends = Vec::new();
        p.split(line.as_bytes(), &mut ends).map(|()| ends)
    }

    /// The line's put, or the bad line's reason.
    fn map(p: &TsvParser, line: &[u8]) -> Result<Put, String> {
        let mut ends = Vec::new();
        p.split(line, &mut ends)?;
        p.map(line, &ends, 1000, false).map(|m| m.to_put())
    }

    /// The put as comparable data: (family, qualifier, ts, value) cells and the TTL.
    fn cells(m: &Put) -> String {
        format!("{m:?}")
    }

    #[test]
    fn column_specs_as_hbase_reads_them() {
        let p = parser("HBASE_ROW_KEY,d,d:,d:a:b,HBASE_TS_KEY,HBASE_CELL_TTL,HBASE_ATTRIBUTES_KEY");
        assert_eq!(p.row_key, 0);
        assert_eq!(
            (p.timestamp, p.cell_ttl, p.attributes),
            (Some(4), Some(5), Some(6))
        );
        let cell = |f: &str, q: &str| Column::Cell {
            family: f.as_bytes().to_vec(),
            qualifier: q.as_bytes().to_vec(),
        };
        assert_eq!(p.columns[1], cell("d", ""));
        assert_eq!(p.columns[2], cell("d", ""));
        // Split at the first colon only: the qualifier may hold more.
        assert_eq!(p.columns[3], cell("d", "a:b"));
    }

    #[test]
    fn field_count_checks_give_hbases_reasons() {
        // TestImportTsvParser's cases.
        let p = parser("HBASE_ROW_KEY,d:a,d:b");
        assert_eq!(split(&p, "no separator"), Err("No delimiter"));
        assert_eq!(split(&p, ""), Err("No delimiter"));
        assert_eq!(split(&p, "r\ta\tb\tc"), Err("Excessive columns"));
        assert_eq!(split(&p, "r\ta\tb").unwrap(), [1, 3, 5]);
        // Fewer fields than columns is fine.
        assert_eq!(split(&p, "r\ta").unwrap(), [1, 3]);
        let p = parser("d:a,d:b,HBASE_ROW_KEY");
        assert_eq!(split(&p, "a\tb"), Err("No row key"));
        let p = parser("HBASE_ROW_KEY,d:a,HBASE_TS_KEY");
        assert_eq!(split(&p, "r\ta"), Err("No timestamp"));
        let p = parser("HBASE_ROW_KEY,d:a,HBASE_ATTRIBUTES_KEY");
        assert_eq!(split(&p, "r\ta"), Err("No attributes specified"));
        let p = parser("HBASE_ROW_KEY,d:a,HBASE_CELL_TTL");
        assert_eq!(split(&p, "r\ta"), Err("No cell TTL specified"));
    }

    #[test]
    fn a_line_becomes_one_put_at_the_job_timestamp() {
        let p = parser("d:a,HBASE_ROW_KEY,d:b,d");
        let mut ends = Vec::new();
        p.split(b"va\trow\t\tvd", &mut ends).unwrap();
        let mapped = p.map(b"va\trow\t\tvd", &ends, 1000, false).unwrap();
        assert_eq!(mapped.cells, 3);
        assert_eq!(mapped.columns().count(), 3);
        let m = mapped.to_put();
        assert_eq!(m.row(), b"row");
        let expected = Put::with_timestamp("row", 1000)
            .add_column("d", "a", "va")
            .add_column("d", "b", "")
            .add_column("d", "", "vd");
        assert_eq!(m, expected);
        // skip.empty.columns leaves the empty field out.
        p.split(b"va\trow\t\tvd", &mut ends).unwrap();
        let m = p.map(b"va\trow\t\tvd", &ends, 1000, true).unwrap();
        assert_eq!(m.cells, 2);
        assert_eq!(m.columns().count(), 2);
        // Every field empty but the row: no columns.
        let line = b"\trow\t\t";
        p.split(line, &mut ends).unwrap();
        assert_eq!(
            p.map(line, &ends, 1000, true).unwrap_err(),
            "No columns to insert"
        );
    }

    #[test]
    fn timestamps_from_the_line() {
        let p = parser("HBASE_ROW_KEY,HBASE_TS_KEY,d:a");
        let m = map(&p, b"r\t1234\tv").unwrap();
        assert_eq!(m, Put::with_timestamp("r", 1234).add_column("d", "a", "v"));
        // Java's Long.parseLong accepts a sign.
        assert!(map(&p, b"r\t+5\tv").is_ok());
        assert_eq!(map(&p, b"r\tabc\tv").unwrap_err(), "Invalid timestamp abc");
        assert_eq!(map(&p, b"r\t\tv").unwrap_err(), "Invalid timestamp ");
        assert_eq!(map(&p, b"r\t 5\tv").unwrap_err(), "Invalid timestamp  5");
        assert_eq!(
            map(&p, b"r\t99999999999999999999\tv").unwrap_err(),
            "Invalid timestamp 99999999999999999999"
        );
        assert_eq!(
            map(&p, b"r\t-5\tv").unwrap_err(),
            "Timestamp cannot be negative. ts=-5"
        );
    }

    #[test]
    fn ttl_is_eight_big_endian_bytes_as_in_hbase() {
        let p = parser("HBASE_ROW_KEY,d:a,HBASE_CELL_TTL");
        let mut line = b"r\tv\t".to_vec();
        line.extend_from_slice(&5000i64.to_be_bytes());
        let m = map(&p, &line).unwrap();
        assert_eq!(
            m,
            Put::with_timestamp("r", 1000)
                .add_column("d", "a", "v")
                .ttl(5000)
        );
        // Decimal text is not HBase's format (7 bytes here).
        assert_eq!(
            map(&p, b"r\tv\t1000000").unwrap_err(),
            "Wrong length: 7, expected 8"
        );
        // Zero sets no TTL.
        let mut line = b"r\tv\t".to_vec();
        line.extend_from_slice(&0i64.to_be_bytes());
        assert_eq!(
            map(&p, &line).unwrap(),
            Put::with_timestamp("r", 1000).add_column("d", "a", "v")
        );
        assert!(cells(&map(&p, &line).unwrap()).contains("ttl: None"));
    }

    #[test]
    fn row_rules() {
        let p = parser("HBASE_ROW_KEY,d:a");
        assert_eq!(map(&p, b"\tv").unwrap_err(), "Row length is 0");
        let mut long = vec![b'r'; 32768];
        long.extend_from_slice(b"\tv");
        assert_eq!(map(&p, &long).unwrap_err(), "Row length 32768 is > 32767");
        let mut ok = vec![b'r'; 32767];
        ok.extend_from_slice(b"\tv");
        assert!(map(&p, &ok).is_ok());
    }

    #[test]
    fn oversized_cells_are_bad_lines() {
        let p = parser("HBASE_ROW_KEY,d:a");
        let mut line = b"r\t".to_vec();
        line.resize(line.len() + DEFAULT_MAX_CELL_SIZE, b'x');
        assert_eq!(map(&p, &line).unwrap_err(), "KeyValue size too large");
    }

    #[test]
    fn attributes_are_checked_as_hbases_attribute_mapper_does() {
        let p = parser("HBASE_ROW_KEY,d:a,HBASE_ATTRIBUTES_KEY");
        assert!(map(&p, b"r\tv\tk=>v").is_ok());
        assert!(map(&p, b"r\tv\tk=>v,k2=>v2,").is_ok());
        assert!(map(&p, b"r\tv\t").is_ok());
        assert_eq!(
            map(&p, b"r\tv\tk=v,k2=>v2").unwrap_err(),
            "Invalid attributes separator specified: [k=v, k2=>v2]"
        );
        assert!(map(&p, b"r\tv\t=>v").is_err());
        assert!(map(&p, b"r\tv\tk=>").is_err());
        assert!(map(&p, b"r\tv\tk=>v,,x=>y").is_err());
        // The attributes column writes no cell.
        assert_eq!(
            map(&p, b"r\tv\tk=>v").unwrap(),
            Put::with_timestamp("r", 1000).add_column("d", "a", "v")
        );
    }

    #[test]
    fn java_split_drops_trailing_empties_only() {
        assert_eq!(java_split("a,b,,", ","), ["a", "b"]);
        assert_eq!(java_split(",a", ","), ["", "a"]);
        assert_eq!(java_split("", ","), [""]);
        assert_eq!(java_split("k=>", "=>"), ["k"]);
    }
}
