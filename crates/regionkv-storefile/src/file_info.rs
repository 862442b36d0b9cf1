//! File info: the storefile's metadata map (HBase's `HFileInfo` plus the
//! `TimeRangeTracker`, max sequence id, bloom type and major-compaction flag that
//! `StoreFileWriter` appends to it).
//!
//! Body layout: a sequence of `tag:u16 BE | len:u32 BE | value[len]` records. Unknown tags
//! are skipped, so later versions may add fields; a known tag with a wrong length is
//! corruption. Tags (part of the format):
//!
//! | tag | field                | value                                   |
//! |-----|----------------------|-----------------------------------------|
//! | 1   | first key            | encoded key (absent in an empty file)   |
//! | 2   | last key             | encoded key (absent in an empty file)   |
//! | 3   | cell count           | u64                                     |
//! | 4   | row count            | u64 (distinct rows)                     |
//! | 5   | time range min       | i64 (TimeRangeTracker)                  |
//! | 6   | time range max       | i64 (TimeRangeTracker)                  |
//! | 7   | earliest put ts      | i64 (`i64::MAX` when there is no put)   |
//! | 8   | max sequence id      | u64                                     |
//! | 9   | delete family count  | u64 (DeleteFamily + DeleteFamilyVersion) |
//! | 10  | major compaction     | u8 (1 = written by a major compaction)  |
//! | 11  | bloom type           | u8                                      |
//! | 12  | compression          | u8                                      |
//! | 13  | data block encoding  | u8                                      |
//! | 14  | block size           | u32 (configured BLOCKSIZE)              |
//! | 15  | average key length   | u32                                     |
//! | 16  | average value length | u32                                     |
//! | 17  | delete count         | u64 (all delete markers)                |
//! | 18  | max tags length      | u32, longest tag run (only in files that include tags; HBase's `MAX_TAGS_LEN`) |
//! | 19  | identity: table      | UTF-8, `ns:table`                       |
//! | 20  | identity: region     | the region's encoded name               |
//! | 21  | identity: family     | the family name                         |
//! | 22  | identity: file       | the file's name in its family directory |
//! | 100 | extra entry          | `key_len:u16 | key | value`, repeatable |
//!
//! The identity (tags 19–22, all four or none) says whose file this is: which table,
//! region, family and name it was written as. A reader compares it with where the file
//! was found, so a file copied or moved into another region, family or table is refused
//! instead of served. Files that carry it say so in their trailer (byte 74, bit 0), so an
//! identity cannot go missing unnoticed; files written before it existed have neither.
//!
//! The time range follows HBase's `TimeRangeTracker.includeTimestamp(Cell)`: every cell's
//! timestamp widens it, and a DeleteColumn or DeleteFamily marker also widens the minimum
//! to 0, because it masks every older version of its column or family.

use crate::bloom::BloomType;
use crate::format::{Compression, DataBlockEncoding};
use std::collections::BTreeMap;

/// Whose file a storefile is: where it was written (file info tags 19–22).
///
/// ```
/// use regionkv_storefile::StoreFileIdentity;
/// let id = StoreFileIdentity {
///     table: "ns:t".into(),
///     region: "0123456789abcdef0123456789abcdef".into(),
///     family: b"cf".to_vec(),
///     file: "7.sf".into(),
/// };
/// assert_eq!(id.to_string(), "table ns:t, region 0123456789abcdef0123456789abcdef, family cf, file 7.sf");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreFileIdentity {
    /// The table (`ns:table`).
    pub table: String,
    /// The encoded name of the region whose directory the file was written in.
    pub region: String,
    /// The column family.
    pub family: Vec<u8>,
    /// The file's name in its family directory (`<id>.sf`).
    pub file: String,
}

impl std::fmt::Display for StoreFileIdentity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "table {}, region {}, family {}, file {}",
            self.table,
            self.region,
            String::from_utf8_lossy(&self.family),
            self.file
        )
    }
}

/// Metadata of one storefile.
#[derive(Debug, Clone, PartialEq)]
pub struct FileInfo {
    /// First key in the file.
    pub first_key: Option<Vec<u8>>,
    /// Last key in the file.
    pub last_key: Option<Vec<u8>>,
    /// Cells.
    pub cell_count: u64,
    /// Distinct rows.
    pub row_count: u64,
    /// Smallest timestamp covered (inclusive); `i64::MAX` when empty.
    pub min_timestamp: i64,
    /// Largest timestamp covered (inclusive); `i64::MIN` when empty.
    pub max_timestamp: i64,
    /// Smallest Put timestamp; `i64::MAX` when the file holds no Put.
    pub earliest_put_ts: i64,
    /// Largest sequence id of any cell.
    pub max_seq_id: u64,
    /// DeleteFamily and DeleteFamilyVersion markers.
    pub delete_family_count: u64,
    /// All delete markers.
    pub delete_count: u64,
    /// Written by a major compaction.
    pub major_compaction: bool,
    /// Bloom type.
    pub bloom_type: BloomType,
    /// Data block compression.
    pub compression: Compression,
    /// Data block encoding.
    pub encoding: DataBlockEncoding,
    /// Configured block size.
    pub block_size: u32,
    /// Average encoded key length.
    pub avg_key_len: u32,
    /// Average value length.
    pub avg_value_len: u32,
    /// Longest tag run of any cell, present when the file includes tags.
    pub max_tags_len: Option<u32>,
    /// Whose file this is (absent in files written before identities existed).
    pub identity: Option<StoreFileIdentity>,
    /// Entries added by upper layers (bulk-load markers, compaction provenance ...).
    pub extra: BTreeMap<String, Vec<u8>>,
}

impl Default for FileInfo {
    fn default() -> Self {
        Self {
            first_key: None,
            last_key: None,
            cell_count: 0,
            row_count: 0,
            min_timestamp: i64::MAX,
            max_timestamp: i64::MIN,
            earliest_put_ts: i64::MAX,
            max_seq_id: 0,
            delete_family_count: 0,
            delete_count: 0,
            major_compaction: false,
            bloom_type: BloomType::None,
            compression: Compression::None,
            encoding: DataBlockEncoding::None,
            block_size: 0,
            avg_key_len: 0,
            avg_value_len: 0,
            max_tags_len: None,
            identity: None,
            extra: BTreeMap::new(),
        }
    }
}

fn put(out: &mut Vec<u8>, tag: u16, value: &[u8]) {
    out.extend_from_slice(&tag.to_be_bytes());
    // File info values are small (keys ≤ 64 KiB, extras bounded by the writer).
    out.extend_from_slice(&(value.len() as u32).to_be_bytes());
    out.extend_from_slice(value);
}

impl FileInfo {
    /// Encodes the body.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        if let Some(k) = &self.first_key {
            put(&mut out, 1, k);
        }
        if let Some(k) = &self.last_key {
            put(&mut out, 2, k);
        }
        put(&mut out, 3, &self.cell_count.to_be_bytes());
        put(&mut out, 4, &self.row_count.to_be_bytes());
        put(&mut out, 5, &self.min_timestamp.to_be_bytes());
        put(&mut out, 6, &self.max_timestamp.to_be_bytes());
        put(&mut out, 7, &self.earliest_put_ts.to_be_bytes());
        put(&mut out, 8, &self.max_seq_id.to_be_bytes());
        put(&mut out, 9, &self.delete_family_count.to_be_bytes());
        put(&mut out, 10, &[u8::from(self.major_compaction)]);
        put(&mut out, 11, &[self.bloom_type.code()]);
        put(&mut out, 12, &[self.compression.code()]);
        put(&mut out, 13, &[self.encoding.code()]);
        put(&mut out, 14, &self.block_size.to_be_bytes());
        put(&mut out, 15, &self.avg_key_len.to_be_bytes());
        put(&mut out, 16, &self.avg_value_len.to_be_bytes());
        put(&mut out, 17, &self.delete_count.to_be_bytes());
        if let Some(n) = self.max_tags_len {
            put(&mut out, 18, &n.to_be_bytes());
        }
        if let Some(id) = &self.identity {
            put(&mut out, 19, id.table.as_bytes());
            put(&mut out, 20, id.region.as_bytes());
            put(&mut out, 21, &id.family);
            put(&mut out, 22, id.file.as_bytes());
        }
        for (k, v) in &self.extra {
            let mut e = Vec::with_capacity(2 + k.len() + v.len());
            e.extend_from_slice(&(k.len() as u16).to_be_bytes());
            e.extend_from_slice(k.as_bytes());
            e.extend_from_slice(v);
            put(&mut out, 100, &e);
        }
        out
    }

    /// Decodes a verified body; errors carry the body offset of the bad record.
    pub fn decode(body: &[u8]) -> Result<Self, (usize, String)> {
        let mut fi = FileInfo::default();
        // Identity parts (tags 19-22): all four or none.
        let mut identity: [Option<Vec<u8>>; 4] = Default::default();
        let mut p = 0usize;
        while p < body.len() {
            let at = p;
            let head = body
                .get(p..p + 6)
                .ok_or((at, "truncated file info record header".to_string()))?;
            let tag = u16::from_be_bytes([head[0], head[1]]);
            let len = u32::from_be_bytes([head[2], head[3], head[4], head[5]]) as usize;
            let v = body.get(p + 6..).and_then(|r| r.get(..len)).ok_or((
                at,
                format!("file info record {tag} of {len} bytes runs past the block"),
            ))?;
            p += 6 + len;
            let fixed = |n: usize| -> Result<&[u8], (usize, String)> {
                if v.len() == n {
                    Ok(v)
                } else {
                    Err((
                        at,
                        format!("file info record {tag} has {} bytes, expected {n}", v.len()),
                    ))
                }
            };
            let u64v = |b: &[u8]| {
                let mut a = [0u8; 8];
                a.copy_from_slice(b);
                u64::from_be_bytes(a)
            };
            let u32v = |b: &[u8]| u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
            let byte = |b: &[u8]| b.first().copied().unwrap_or(0);
            let bad = |what: &str, c: u8| (at, format!("unknown {what} code {c}"));
            match tag {
                1 => fi.first_key = Some(v.to_vec()),
                2 => fi.last_key = Some(v.to_vec()),
                3 => fi.cell_count = u64v(fixed(8)?),
                4 => fi.row_count = u64v(fixed(8)?),
                5 => fi.min_timestamp = u64v(fixed(8)?) as i64,
                6 => fi.max_timestamp = u64v(fixed(8)?) as i64,
                7 => fi.earliest_put_ts = u64v(fixed(8)?) as i64,
                8 => fi.max_seq_id = u64v(fixed(8)?),
                9 => fi.delete_family_count = u64v(fixed(8)?),
                10 => fi.major_compaction = byte(fixed(1)?) != 0,
                11 => {
                    let c = byte(fixed(1)?);
                    fi.bloom_type = BloomType::from_code(c).ok_or_else(|| bad("bloom", c))?;
                }
                12 => {
                    let c = byte(fixed(1)?);
                    fi.compression =
                        Compression::from_code(c).ok_or_else(|| bad("compression", c))?;
                }
                13 => {
                    let c = byte(fixed(1)?);
                    fi.encoding =
                        DataBlockEncoding::from_code(c).ok_or_else(|| bad("encoding", c))?;
                }
                14 => fi.block_size = u32v(fixed(4)?),
                15 => fi.avg_key_len = u32v(fixed(4)?),
                16 => fi.avg_value_len = u32v(fixed(4)?),
                17 => fi.delete_count = u64v(fixed(8)?),
                18 => fi.max_tags_len = Some(u32v(fixed(4)?)),
                19..=22 => identity[usize::from(tag - 19)] = Some(v.to_vec()),
                100 => {
                    let kl = v
                        .get(..2)
                        .map(|b| u16::from_be_bytes([b[0], b[1]]) as usize)
                        .ok_or((at, "truncated extra entry".to_string()))?;
                    let k = v
                        .get(2..2 + kl)
                        .ok_or((at, "extra entry key runs past the record".to_string()))?;
                    let k = String::from_utf8(k.to_vec())
                        .map_err(|_| (at, "extra entry key is not UTF-8".to_string()))?;
                    fi.extra
                        .insert(k, v.get(2 + kl..).unwrap_or_default().to_vec());
                }
                _ => {} // a newer writer's field: skip it
            }
        }
        fi.identity = match identity {
            [None, None, None, None] => None,
            [Some(table), Some(region), Some(family), Some(file)] => {
                let text = |b: Vec<u8>, what: &str| {
                    String::from_utf8(b).map_err(|_| (0, format!("identity {what} is not UTF-8")))
                };
                Some(StoreFileIdentity {
                    table: text(table, "table")?,
                    region: text(region, "region")?,
                    family,
                    file: text(file, "file")?,
                })
            }
            _ => return Err((0, "incomplete identity (tags 19-22)".to_string())),
        };
        Ok(fi)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_unknown_tags_are_skipped() {
        let mut fi = FileInfo {
            first_key: Some(b"a".to_vec()),
            last_key: Some(b"z".to_vec()),
            cell_count: 10,
            row_count: 3,
            min_timestamp: 0,
            max_timestamp: 99,
            earliest_put_ts: 5,
            max_seq_id: 77,
            delete_family_count: 1,
            delete_count: 2,
            major_compaction: true,
            bloom_type: BloomType::RowCol,
            compression: Compression::Lz4,
            encoding: DataBlockEncoding::Prefix,
            block_size: 65536,
            avg_key_len: 40,
            avg_value_len: 100,
            max_tags_len: Some(11),
            identity: Some(StoreFileIdentity {
                table: "ns:t".into(),
                region: "00112233445566778899aabbccddeeff".into(),
                family: b"cf".to_vec(),
                file: "12.sf".into(),
            }),
            extra: BTreeMap::new(),
        };
        fi.extra
            .insert("BULKLOAD_TIME".into(), 123u64.to_be_bytes().to_vec());
        let mut body = fi.encode();
        body.extend_from_slice(&[0x03, 0xe7, 0, 0, 0, 2, 9, 9]); // tag 999
        assert_eq!(FileInfo::decode(&body).unwrap(), fi);
    }

    #[test]
    fn wrong_lengths_and_truncation_are_errors() {
        let body = FileInfo::default().encode();
        for len in 1..body.len() {
            // Every cut inside a record is an error; cuts at record boundaries are fine.
            let _ = FileInfo::decode(&body[..len]);
        }
        let mut bad = Vec::new();
        put(&mut bad, 3, &[1, 2, 3]);
        assert!(FileInfo::decode(&bad).is_err());
        let mut bad = Vec::new();
        put(&mut bad, 11, &[9]);
        assert!(FileInfo::decode(&bad).is_err());
        // An identity is all four parts or none.
        let mut partial = FileInfo::default().encode();
        put(&mut partial, 19, b"t");
        put(&mut partial, 20, b"region");
        let e = FileInfo::decode(&partial).unwrap_err();
        assert!(e.1.contains("incomplete identity"), "{e:?}");
    }
}
