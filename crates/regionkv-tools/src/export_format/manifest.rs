//! The export manifest, `export.meta` (docs/export-format.md, "The manifest"): a 16-byte
//! header (magic, format version, body length), a JSON body, and a CRC32C of everything
//! before it. It holds what an import needs before reading a cell: the source table's
//! descriptor and split keys (so a missing table is created as it was), what was exported
//! (versions, time range, raw, rows, families), and every data file with its family, cell
//! count, size and CRC32C.
//!
//! It is written last, atomically (temporary name, fsync, rename, directory fsync): a
//! directory without it is an export that did not finish, and an import refuses it.
//! Byte strings (rows, split keys) are in HBase's `Bytes.toStringBinary` form, which
//! `toBytesBinary` reverses exactly and a person can read.

use std::collections::BTreeMap;
use std::path::Path;

use regionkv::cell::bytes::{to_bytes_binary, to_string_binary};
use regionkv::{ColumnFamilyDescriptor, TableDescriptor};
use serde_json::{Map, Value, json};

use super::part::PartSummary;
use super::{FORMAT_VERSION, MANIFEST_NAME};
use crate::error::{Error, Result};

/// The first 8 bytes of `export.meta`.
pub const MANIFEST_MAGIC: &[u8; 8] = b"RKVEXPMT";
/// Bytes before the JSON body: magic, format version (u32), body length (u32).
pub const MANIFEST_HEADER_LEN: usize = 16;
/// The largest body a reader accepts (a table's descriptor and thousands of part entries
/// take kilobytes; this bounds what a damaged length can make a reader allocate).
pub const MAX_MANIFEST_BODY: u32 = 64 * 1024 * 1024;

/// What was exported: the scan's settings (HBase's Export arguments and `-D` keys).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ExportedScan {
    /// Versions per column (`None`: every version the table holds).
    pub versions: Option<u32>,
    /// Time range start, inclusive (milliseconds).
    pub start_time: i64,
    /// Time range end, exclusive.
    pub end_time: i64,
    /// A raw scan: delete markers and the cells they mask.
    pub raw: bool,
    /// First row (inclusive), if limited.
    pub start_row: Option<Vec<u8>>,
    /// Stop row (exclusive), if limited.
    pub stop_row: Option<Vec<u8>>,
    /// The row filter (HBase's sixth argument: `^regex` or a prefix), if any.
    pub row_filter: Option<String>,
}

/// The manifest of one export.
#[derive(Debug, Clone, PartialEq)]
pub struct Manifest {
    /// The source table.
    pub table: String,
    /// Its descriptor at the time of the export.
    pub descriptor: TableDescriptor,
    /// Its split keys (region start keys but the first).
    pub splits: Vec<Vec<u8>>,
    /// When the export started (the source Db's clock, milliseconds).
    pub created_millis: i64,
    /// What was exported.
    pub scan: ExportedScan,
    /// The exported families; a data file names its family by index in this list.
    pub families: Vec<Vec<u8>>,
    /// The data files, per family in key order.
    pub parts: Vec<PartSummary>,
    /// Rows exported (a row counts once however many families it has).
    pub rows: u64,
    /// Cells exported.
    pub cells: u64,
}

fn bytes_text(b: &[u8]) -> Value {
    Value::String(to_string_binary(b))
}

fn descriptor_json(d: &TableDescriptor) -> Value {
    let attrs: Map<String, Value> = d
        .attributes(true)
        .into_iter()
        .map(|(k, v)| (k.to_string(), Value::String(v)))
        .collect();
    let families: Vec<Value> = d
        .families
        .iter()
        .map(|f| {
            Value::Object(
                f.attributes()
                    .into_iter()
                    .map(|(k, v)| (k.to_string(), Value::String(v)))
                    .collect(),
            )
        })
        .collect();
    json!({
        "name": d.name,
        "attributes": attrs,
        "configuration": d.configuration,
        "metadata": d.metadata,
        "families": families,
    })
}

impl Manifest {
    /// The encoded file: header, JSON body, CRC32C.
    pub fn encode(&self) -> Vec<u8> {
        let scan = &self.scan;
        let body = json!({
            "format_version": FORMAT_VERSION,
            "table": self.table,
            "created_millis": self.created_millis,
            "descriptor": descriptor_json(&self.descriptor),
            "splits": self.splits.iter().map(|s| bytes_text(s)).collect::<Vec<_>>(),
            "scan": {
                "versions": scan.versions,
                "start_time": scan.start_time,
                "end_time": scan.end_time,
                "raw": scan.raw,
                "start_row": scan.start_row.as_deref().map(bytes_text),
                "stop_row": scan.stop_row.as_deref().map(bytes_text),
                "row_filter": scan.row_filter,
            },
            "families": self.families.iter().map(|f| bytes_text(f)).collect::<Vec<_>>(),
            "parts": self.parts.iter().map(|p| json!({
                "name": p.name,
                "family": p.family,
                "cells": p.cells,
                "bytes": p.bytes,
                "crc32c": p.crc32c,
            })).collect::<Vec<_>>(),
            "rows": self.rows,
            "cells": self.cells,
        });
        let body = serde_json::to_vec_pretty(&body).unwrap_or_default();
        let mut out = Vec::with_capacity(MANIFEST_HEADER_LEN + body.len() + 4);
        out.extend_from_slice(MANIFEST_MAGIC);
        out.extend_from_slice(&FORMAT_VERSION.to_be_bytes());
        out.extend_from_slice(&(body.len() as u32).to_be_bytes());
        out.extend_from_slice(&body);
        let crc = crc32c::crc32c(&out);
        out.extend_from_slice(&crc.to_be_bytes());
        out
    }

    /// Writes `dir/export.meta` atomically: a temporary file, fsync, rename, directory
    /// fsync. Until the rename the export does not exist for an import.
    pub fn write(&self, dir: &Path) -> Result<()> {
        use std::io::Write;
        let tmp = dir.join(format!(".{MANIFEST_NAME}.tmp"));
        let path = dir.join(MANIFEST_NAME);
        let mut f = std::fs::File::create(&tmp).map_err(|e| Error::file(&tmp, e))?;
        f.write_all(&self.encode())
            .and_then(|()| f.sync_all())
            .map_err(|e| Error::file(&tmp, e))?;
        drop(f);
        std::fs::rename(&tmp, &path).map_err(|e| Error::file(&path, e))?;
        std::fs::File::open(dir)
            .and_then(|d| d.sync_all())
            .map_err(|e| Error::file(dir, e))
    }

    /// Reads and checks `dir/export.meta`.
    pub fn read(dir: &Path) -> Result<Self> {
        let path = dir.join(MANIFEST_NAME);
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(Error::NotAnExport {
                    dir: dir.to_path_buf(),
                    reason: if dir.exists() {
                        format!("it has no {MANIFEST_NAME} (an export that did not finish?)")
                    } else {
                        "it does not exist".into()
                    },
                });
            }
            Err(e) => return Err(Error::file(&path, e)),
        };
        Self::decode(&path, &bytes)
    }

    /// Decodes a manifest read from `path`.
    pub fn decode(path: &Path, bytes: &[u8]) -> Result<Self> {
        let corrupt = |offset: u64, reason: String| Error::Corrupt {
            path: path.to_path_buf(),
            offset,
            reason,
        };
        let header = bytes
            .get(..MANIFEST_HEADER_LEN)
            .ok_or_else(|| corrupt(0, "truncated: shorter than the header".into()))?;
        if header.get(..8) != Some(&MANIFEST_MAGIC[..]) {
            return Err(corrupt(0, "not an export manifest (bad magic)".into()));
        }
        let word = |at: usize| {
            let mut w = [0u8; 4];
            w.copy_from_slice(header.get(at..at + 4).unwrap_or(&[0; 4]));
            u32::from_be_bytes(w)
        };
        let version = word(8);
        if version != FORMAT_VERSION {
            return Err(corrupt(
                8,
                format!("format version {version}, this regionkv reads version {FORMAT_VERSION}"),
            ));
        }
        let len = word(12);
        if len > MAX_MANIFEST_BODY {
            return Err(corrupt(12, format!("a body length of {len} bytes")));
        }
        let end = MANIFEST_HEADER_LEN + len as usize;
        let (Some(covered), Some(stored)) = (bytes.get(..end), bytes.get(end..end + 4)) else {
            return Err(corrupt(
                bytes.len() as u64,
                "truncated: the file ends before its checksum".into(),
            ));
        };
        if bytes.len() > end + 4 {
            return Err(corrupt((end + 4) as u64, "bytes after the checksum".into()));
        }
        let mut s = [0u8; 4];
        s.copy_from_slice(stored);
        let stored = u32::from_be_bytes(s);
        let computed = crc32c::crc32c(covered);
        if stored != computed {
            return Err(corrupt(
                end as u64,
                format!("checksum mismatch: stored {stored:#010x}, computed {computed:#010x}"),
            ));
        }
        let body_at = MANIFEST_HEADER_LEN as u64;
        let v: Value =
            serde_json::from_slice(covered.get(MANIFEST_HEADER_LEN..).unwrap_or_default())
                .map_err(|e| corrupt(body_at, format!("the JSON body: {e}")))?;
        let bad = |what: &str| corrupt(body_at, format!("the JSON body: {what}"));
        Self::from_json(&v).map_err(|what| bad(&what))
    }

    fn from_json(v: &Value) -> std::result::Result<Self, String> {
        let text = |v: &Value, what: &str| -> std::result::Result<String, String> {
            v.as_str()
                .map(str::to_string)
                .ok_or_else(|| format!("{what} is missing or not a string"))
        };
        let binary = |v: &Value, what: &str| -> std::result::Result<Vec<u8>, String> {
            to_bytes_binary(&text(v, what)?).map_err(|e| format!("{what}: {e}"))
        };
        let opt_binary = |v: &Value, what: &str| -> std::result::Result<Option<Vec<u8>>, String> {
            if v.is_null() {
                Ok(None)
            } else {
                binary(v, what).map(Some)
            }
        };
        let num = |v: &Value, what: &str| -> std::result::Result<u64, String> {
            v.as_u64()
                .ok_or_else(|| format!("{what} is missing or not a number"))
        };
        let int = |v: &Value, what: &str| -> std::result::Result<i64, String> {
            v.as_i64()
                .ok_or_else(|| format!("{what} is missing or not a number"))
        };
        let array = |v: &Value, what: &str| -> std::result::Result<Vec<Value>, String> {
            v.as_array()
                .cloned()
                .ok_or_else(|| format!("{what} is missing or not a list"))
        };
        let scan = &v["scan"];
        let families: Vec<Vec<u8>> = array(&v["families"], "families")?
            .iter()
            .map(|f| binary(f, "a family"))
            .collect::<std::result::Result<_, _>>()?;
        let mut parts = Vec::new();
        for p in array(&v["parts"], "parts")? {
            let family = num(&p["family"], "a part's family")?;
            if family >= families.len() as u64 {
                return Err(format!(
                    "a part of family index {family}, beyond the family list"
                ));
            }
            let name = text(&p["name"], "a part's name")?;
            // Only a plain file name: an import never reads outside the export directory.
            if name.is_empty() || name.contains(['/', '\\']) || name.starts_with('.') {
                return Err(format!("a part named {name:?}"));
            }
            parts.push(PartSummary {
                name,
                family: family as u32,
                cells: num(&p["cells"], "a part's cells")?,
                bytes: num(&p["bytes"], "a part's bytes")?,
                crc32c: u32::try_from(num(&p["crc32c"], "a part's crc32c")?)
                    .map_err(|_| "a part's crc32c is not 32 bits".to_string())?,
            });
        }
        Ok(Self {
            table: text(&v["table"], "table")?,
            descriptor: descriptor_from_json(&v["descriptor"])?,
            splits: array(&v["splits"], "splits")?
                .iter()
                .map(|s| binary(s, "a split key"))
                .collect::<std::result::Result<_, _>>()?,
            created_millis: int(&v["created_millis"], "created_millis")?,
            scan: ExportedScan {
                versions: match &scan["versions"] {
                    Value::Null => None,
                    n => Some(
                        u32::try_from(num(n, "scan.versions")?)
                            .map_err(|_| "scan.versions is too large".to_string())?,
                    ),
                },
                start_time: int(&scan["start_time"], "scan.start_time")?,
                end_time: int(&scan["end_time"], "scan.end_time")?,
                raw: scan["raw"]
                    .as_bool()
                    .ok_or("scan.raw is missing or not a boolean")?,
                start_row: opt_binary(&scan["start_row"], "scan.start_row")?,
                stop_row: opt_binary(&scan["stop_row"], "scan.stop_row")?,
                row_filter: scan["row_filter"].as_str().map(str::to_string),
            },
            families,
            parts,
            rows: num(&v["rows"], "rows")?,
            cells: num(&v["cells"], "cells")?,
        })
    }
}

/// The descriptor from its manifest form: every attribute by HBase's name, set through the
/// same `set_attribute` the shell's `create` uses.
fn descriptor_from_json(v: &Value) -> std::result::Result<TableDescriptor, String> {
    let name = v["name"].as_str().ok_or("descriptor.name is missing")?;
    let strings =
        |v: &Value, what: &str| -> std::result::Result<BTreeMap<String, String>, String> {
            match v {
                Value::Null => Ok(BTreeMap::new()),
                Value::Object(m) => m
                    .iter()
                    .map(|(k, v)| {
                        v.as_str()
                            .map(|s| (k.clone(), s.to_string()))
                            .ok_or_else(|| format!("{what}.{k} is not a string"))
                    })
                    .collect(),
                _ => Err(format!("{what} is not an object")),
            }
        };
    let mut families = Vec::new();
    for f in v["families"]
        .as_array()
        .ok_or("descriptor.families is missing")?
    {
        let attrs = strings(f, "a family")?;
        let fname = attrs.get("NAME").ok_or("a family without a NAME")?;
        let mut cf = ColumnFamilyDescriptor::new(fname.as_bytes())
            .map_err(|e| format!("family {fname}: {e}"))?;
        for (k, val) in &attrs {
            if k != "NAME" {
                cf.set_attribute(k, val)
                    .map_err(|e| format!("family {fname}: {e}"))?;
            }
        }
        families.push(cf);
    }
    let mut d = TableDescriptor::new(name, families).map_err(|e| e.to_string())?;
    for (k, val) in strings(&v["attributes"], "descriptor.attributes")? {
        // An unset SPLIT_POLICY is listed empty; setting it empty would name no class.
        if k == "SPLIT_POLICY" && val.is_empty() {
            continue;
        }
        d.set_attribute(&k, &val).map_err(|e| e.to_string())?;
    }
    d.configuration = strings(&v["configuration"], "descriptor.configuration")?;
    d.metadata = strings(&v["metadata"], "descriptor.metadata")?;
    Ok(d)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]

    use super::*;

    fn sample() -> Manifest {
        let mut cf = ColumnFamilyDescriptor::new(b"cf").unwrap();
        cf.max_versions = 5;
        cf.ttl_seconds = 3600;
        cf.keep_deleted_cells = regionkv::KeepDeletedCells::True;
        let mut d =
            TableDescriptor::new("ns:t", vec![cf, ColumnFamilyDescriptor::new(b"d").unwrap()])
                .unwrap();
        d.set_attribute("MAX_FILESIZE", "1048576").unwrap();
        d.configuration
            .insert("hbase.hstore.blockingStoreFiles".into(), "20".into());
        Manifest {
            table: "ns:t".into(),
            descriptor: d,
            splits: vec![b"m".to_vec(), b"\x00\\\xff".to_vec()],
            created_millis: 1_700_000_000_000,
            scan: ExportedScan {
                versions: None,
                start_time: 0,
                end_time: i64::MAX,
                raw: true,
                start_row: Some(b"a\n".to_vec()),
                stop_row: None,
                row_filter: Some("^r.*".into()),
            },
            families: vec![b"cf".to_vec(), b"d".to_vec()],
            parts: vec![PartSummary {
                name: "part-00000".into(),
                family: 1,
                cells: 3,
                bytes: 99,
                crc32c: 0xdead_beef,
            }],
            rows: 2,
            cells: 3,
        }
    }

    #[test]
    fn round_trips_with_the_descriptor() {
        let m = sample();
        let bytes = m.encode();
        assert_eq!(&bytes[..8], b"RKVEXPMT");
        assert_eq!(&bytes[8..12], &[0, 0, 0, 1]);
        assert_eq!(
            Manifest::decode(Path::new("export.meta"), &bytes).unwrap(),
            m
        );
    }

    #[test]
    fn damage_names_the_offset() {
        let bytes = sample().encode();
        let err = |b: &[u8]| match Manifest::decode(Path::new("x/export.meta"), b).unwrap_err() {
            Error::Corrupt { offset, reason, .. } => (offset, reason),
            e => panic!("{e}"),
        };
        let mut b = bytes.clone();
        b[0] = b'X';
        assert_eq!(err(&b).0, 0);
        let mut b = bytes.clone();
        b[40] ^= 0x20;
        let (offset, reason) = err(&b);
        assert_eq!(offset, bytes.len() as u64 - 4);
        assert!(reason.contains("checksum mismatch"), "{reason}");
        assert!(err(&bytes[..bytes.len() - 1]).1.contains("truncated"));
        assert!(err(&bytes[..10]).1.contains("truncated"));
        let mut b = bytes.clone();
        b.push(0);
        assert!(err(&b).1.contains("after the checksum"));
        let mut b = bytes.clone();
        b[12..16].copy_from_slice(&u32::MAX.to_be_bytes());
        assert_eq!(err(&b).0, 12);
    }

    #[test]
    fn a_checksummed_body_that_lies_is_refused() {
        // A body that passes the checksum but names a part outside the directory.
        let mut m = sample();
        m.parts[0].name = "../etc/passwd".into();
        let e = Manifest::decode(Path::new("export.meta"), &m.encode()).unwrap_err();
        assert!(e.to_string().contains("a part named"), "{e}");
    }
}
