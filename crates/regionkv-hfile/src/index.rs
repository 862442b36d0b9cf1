//! Block indexes (HBase's `HFileBlockIndex`): the data index (root, optional intermediate
//! levels, leaves inline among the data blocks) and the single-level meta index.
//!
//! Root format (a ROOT_INDEX payload; the entry count comes from the trailer):
//!
//! | per entry | size |
//! |---|---|
//! | block offset | 8 |
//! | on-disk size of the block | 4 |
//! | key length | Hadoop vint |
//! | key | key length |
//!
//! then, when the data index has more than one level, 16 bytes of mid-key metadata: the
//! offset (8) and on-disk size (4) of the leaf holding the middle entry, and that entry's
//! position in it (4).
//!
//! Non-root format (LEAF_INDEX and INTERMEDIATE_INDEX payloads):
//!
//! | field | size |
//! |---|---|
//! | entry count n | 4 |
//! | secondary index | (n + 1) × 4: each entry's start relative to the end of this array, then the entries' total size |
//! | entries | per entry: block offset (8), on-disk size (4), key (the rest) |

use std::cmp::Ordering;
use std::path::Path;

use crate::error::{Result, corrupt};
use crate::varint::read_vlong;

/// One index entry: a block and its first (or shortened) key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexEntry {
    /// The block's offset.
    pub offset: u64,
    /// The block's whole on-disk size.
    pub on_disk_size: u32,
    /// Its key (a KeyValue key in the data index, a name in the meta index).
    pub key: Vec<u8>,
}

/// Where the middle entry of a multi-level index sits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MidKeyMetadata {
    /// The leaf's offset.
    pub leaf_offset: u64,
    /// The leaf's on-disk size.
    pub leaf_size: u32,
    /// The entry's position in the leaf.
    pub entry: u32,
}

/// A cursor over a payload that reports where it fails.
struct Cursor<'a> {
    path: &'a Path,
    base: u64,
    bytes: &'a [u8],
    pos: usize,
}

impl Cursor<'_> {
    fn take(&mut self, n: usize, what: &str) -> Result<&[u8]> {
        let out = self
            .pos
            .checked_add(n)
            .and_then(|end| self.bytes.get(self.pos..end))
            .ok_or_else(|| {
                corrupt(
                    self.path,
                    self.base,
                    format!(
                        "index payload cut short reading {what} at payload byte {}",
                        self.pos
                    ),
                )
            })?;
        self.pos += n;
        Ok(out)
    }

    fn i64(&mut self, what: &str) -> Result<i64> {
        let b = self.take(8, what)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(i64::from_be_bytes(a))
    }

    fn i32(&mut self, what: &str) -> Result<i32> {
        let b = self.take(4, what)?;
        Ok(i32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn offset(&mut self) -> Result<u64> {
        let at = self.pos;
        let v = self.i64("a block offset")?;
        u64::try_from(v).map_err(|_| {
            corrupt(
                self.path,
                self.base,
                format!("negative block offset {v} at payload byte {at}"),
            )
        })
    }

    fn size(&mut self) -> Result<u32> {
        let at = self.pos;
        let v = self.i32("a block size")?;
        u32::try_from(v).map_err(|_| {
            corrupt(
                self.path,
                self.base,
                format!("negative block size {v} at payload byte {at}"),
            )
        })
    }
}

/// Parses a root-format payload of `count` entries (of the block at `offset` of `path`),
/// and the mid-key metadata when `multi_level`.
pub fn parse_root(
    path: &Path,
    offset: u64,
    payload: &[u8],
    count: u32,
    multi_level: bool,
) -> Result<(Vec<IndexEntry>, Option<MidKeyMetadata>)> {
    let mut c = Cursor {
        path,
        base: offset,
        bytes: payload,
        pos: 0,
    };
    let mut entries = Vec::with_capacity((count as usize).min(payload.len() / 13 + 1));
    for _ in 0..count {
        let block = c.offset()?;
        let on_disk_size = c.size()?;
        let at = c.pos;
        let (len, n) = read_vlong(&payload[at.min(payload.len())..]).ok_or_else(|| {
            corrupt(
                path,
                offset,
                format!("a key length cut short at payload byte {at}"),
            )
        })?;
        c.pos += n;
        let len = usize::try_from(len).map_err(|_| {
            corrupt(
                path,
                offset,
                format!("negative key length {len} at payload byte {at}"),
            )
        })?;
        let key = c.take(len, "a key")?.to_vec();
        entries.push(IndexEntry {
            offset: block,
            on_disk_size,
            key,
        });
    }
    let mid = if multi_level {
        Some(MidKeyMetadata {
            leaf_offset: c.offset()?,
            leaf_size: c.size()?,
            entry: c.size()?,
        })
    } else {
        None
    };
    Ok((entries, mid))
}

/// Parses a non-root-format payload (a leaf or intermediate index block at `offset`).
pub fn parse_non_root(path: &Path, offset: u64, payload: &[u8]) -> Result<Vec<IndexEntry>> {
    let mut c = Cursor {
        path,
        base: offset,
        bytes: payload,
        pos: 0,
    };
    let n = c.size()? as usize;
    let secondary_len = n
        .checked_add(1)
        .and_then(|k| k.checked_mul(4))
        .filter(|l| 4 + l <= payload.len())
        .ok_or_else(|| {
            corrupt(
                path,
                offset,
                format!("{n} entries do not fit the index block"),
            )
        })?;
    let mut starts = Vec::with_capacity(n + 1);
    for _ in 0..=n {
        starts.push(c.size()? as usize);
    }
    let base = 4 + secondary_len;
    let mut entries = Vec::with_capacity(n);
    for i in 0..n {
        let (start, end) = (starts[i], starts[i + 1]);
        if end < start + 12 || base + end > payload.len() {
            return Err(corrupt(
                path,
                offset,
                format!(
                    "entry {i} spans [{start}, {end}) of a {}-byte index",
                    payload.len() - base
                ),
            ));
        }
        let mut e = Cursor {
            path,
            base: offset,
            bytes: &payload[base + start..base + end],
            pos: 0,
        };
        let block = e.offset()?;
        let on_disk_size = e.size()?;
        entries.push(IndexEntry {
            offset: block,
            on_disk_size,
            key: payload[base + start + 12..base + end].to_vec(),
        });
    }
    Ok(entries)
}

/// The position of the last entry whose key is ≤ `key` under `cmp`; `None` when `key`
/// sorts before the first entry (HBase's `rootBlockContainingKey` / `binarySearchNonRootIndex`).
pub fn locate(
    entries: &[IndexEntry],
    key: &[u8],
    cmp: impl Fn(&[u8], &[u8]) -> Ordering,
) -> Option<usize> {
    let after = entries.partition_point(|e| cmp(&e.key, key) != Ordering::Greater);
    after.checked_sub(1)
}

/// Encodes `entries` in the root format (used by the writer and by tests).
pub fn encode_root(entries: &[IndexEntry], mid: Option<MidKeyMetadata>) -> Vec<u8> {
    let mut out = Vec::new();
    for e in entries {
        out.extend_from_slice(&(e.offset as i64).to_be_bytes());
        out.extend_from_slice(&(e.on_disk_size as i32).to_be_bytes());
        crate::varint::write_vlong(&mut out, e.key.len() as i64);
        out.extend_from_slice(&e.key);
    }
    if let Some(m) = mid {
        out.extend_from_slice(&(m.leaf_offset as i64).to_be_bytes());
        out.extend_from_slice(&(m.leaf_size as i32).to_be_bytes());
        out.extend_from_slice(&(m.entry as i32).to_be_bytes());
    }
    out
}

/// Encodes `entries` in the non-root format.
pub fn encode_non_root(entries: &[IndexEntry]) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(&(entries.len() as i32).to_be_bytes());
    let mut pos = 0i32;
    for e in entries {
        out.extend_from_slice(&pos.to_be_bytes());
        pos += 12 + e.key.len() as i32;
    }
    out.extend_from_slice(&pos.to_be_bytes());
    for e in entries {
        out.extend_from_slice(&(e.offset as i64).to_be_bytes());
        out.extend_from_slice(&(e.on_disk_size as i32).to_be_bytes());
        out.extend_from_slice(&e.key);
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn entries() -> Vec<IndexEntry> {
        (0..5u64)
            .map(|i| IndexEntry {
                offset: i * 1000,
                on_disk_size: 900 + i as u32,
                key: vec![b'k'; 60 + 40 * i as usize], // past 127 bytes: 2-byte vints
            })
            .collect()
    }

    #[test]
    fn both_formats_round_trip() {
        let e = entries();
        let mid = MidKeyMetadata {
            leaf_offset: 7,
            leaf_size: 8,
            entry: 2,
        };
        let root = encode_root(&e, Some(mid));
        assert_eq!(
            parse_root(Path::new("f"), 0, &root, 5, true).unwrap(),
            (e.clone(), Some(mid))
        );
        let leaf = encode_non_root(&e);
        assert_eq!(parse_non_root(Path::new("f"), 0, &leaf).unwrap(), e);
    }

    #[test]
    fn damage_is_an_error_not_a_panic() {
        let e = entries();
        let root = encode_root(&e, None);
        for cut in 0..root.len() {
            assert!(parse_root(Path::new("f"), 0, &root[..cut], 5, false).is_err());
        }
        let leaf = encode_non_root(&e);
        for cut in 0..leaf.len() {
            let _ = parse_non_root(Path::new("f"), 0, &leaf[..cut]);
        }
        let mut bad = leaf.clone();
        bad[3] = 200;
        assert!(parse_non_root(Path::new("f"), 0, &bad).is_err());
    }

    #[test]
    fn locate_finds_the_last_entry_not_after_the_key() {
        let e: Vec<IndexEntry> = [b"b", b"d", b"f"]
            .iter()
            .map(|k| IndexEntry {
                offset: 0,
                on_disk_size: 0,
                key: k.to_vec(),
            })
            .collect();
        let at = |k: &[u8]| locate(&e, k, |a, b| a.cmp(b));
        assert_eq!(at(b"a"), None);
        assert_eq!(at(b"b"), Some(0));
        assert_eq!(at(b"c"), Some(0));
        assert_eq!(at(b"f"), Some(2));
        assert_eq!(at(b"z"), Some(2));
    }
}
