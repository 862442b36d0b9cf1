//! The region manifest: which storefiles are live in each store, each store's flushed
//! sequence id, and the region's identity. Every change of the file set (flush,
//! compaction, split) is one atomic replacement of the manifest: write `MANIFEST.tmp`,
//! fsync it, rename it over `MANIFEST`, fsync the directory. A storefile is live if and only
//! if the manifest names it; files in a store directory that it does not name are leftovers
//! of an interrupted flush or compaction and are deleted when the region opens.
//!
//! A daughter of a split (or the child of a merge) lists *reference* entries: one half of a
//! storefile in its parent region's directory, read in place until the child's compaction
//! rewrites it (HBase's reference files, kept here in the manifest rather than as files;
//! see [`crate::reference`]).
//!
//! Format (version 3; versions 1, without references, and 2, without trailer checksums, are
//! still read; `docs/manifest-format.md`):
//!
//! | offset | size | field                                    |
//! |--------|------|------------------------------------------|
//! | 0      | 8    | magic `RKVMANIF`                         |
//! | 8      | 4    | format version (3)                       |
//! | 12     | 4    | body length `n`                          |
//! | 16     | n    | body                                     |
//! | 16+n   | 4    | CRC-32 of bytes `[0, 16+n)`              |
//!
//! Body: `table:str | start_key:bytes | end_key:bytes | region_id:u64 | next_file_id:u64 |
//! store_count:u32 | store*`, where `store = family:bytes | flushed_seq_id:u64 |
//! file_count:u32 | file*` and `file = name:str | size:u64 | max_seq_id:u64 |
//! cell_count:u64 | kind:u8 [| parent_region:str | parent_file:str | split_row:bytes]
//! | has_checksum:u8 [| trailer_checksum:u32]` (kind 0: a file of this region; 1: bottom
//! half, 2: top half of a parent's file; the reference fields only for kinds 1 and 2; the
//! kind byte from version 2 on, the checksum fields from version 3 on); version 3 ends the
//! body with `has_wal_mark:u8 [| log:u64 | log_created_ms:i64 | length:u64]`;
//! `bytes`/`str` are a u32 length and the bytes; integers big-endian.

use crate::error::{Error, Result};
use crate::reference::Reference;
use regionkv_fs::Fs;
use regionkv_wal::SyncedPosition;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const MAGIC: &[u8; 8] = b"RKVMANIF";
const VERSION: u32 = 3;
/// File name of the manifest inside a region directory.
pub const MANIFEST_FILE: &str = "MANIFEST";
/// Largest manifest accepted (bounds allocation on a corrupt length).
const MAX_MANIFEST_LEN: usize = 64 << 20;

/// A region's identity: table and key range, as HBase's `RegionInfo`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegionInfo {
    /// Table name (`ns:table`).
    pub table: String,
    /// First row of the region (inclusive); empty = start of the table.
    pub start_key: Vec<u8>,
    /// End row (exclusive); empty = end of the table.
    pub end_key: Vec<u8>,
    /// Creation id (HBase uses the creation time in ms).
    pub region_id: u64,
}

impl RegionInfo {
    /// A region spanning the whole of `table` (a table with no pre-splits).
    pub fn whole_table(table: &str, region_id: u64) -> Self {
        Self {
            table: table.to_string(),
            start_key: Vec::new(),
            end_key: Vec::new(),
            region_id,
        }
    }

    /// HBase's region name: `table,startkey,id.encoded.` (`RegionInfo.getRegionNameAsString`,
    /// the start key as `Bytes.toStringBinary` prints it), as the shell and status show it.
    pub fn region_name(&self) -> String {
        format!(
            "{},{},{}.{}.",
            self.table,
            regionkv_cell::bytes::to_string_binary(&self.start_key),
            self.region_id,
            self.encoded_name()
        )
    }

    /// HBase-style encoded name: a hash of table, start key and id, as 32 hex digits (HBase
    /// uses an MD5 of the region name; ours is two 64-bit FNV-1a variants).
    pub fn encoded_name(&self) -> String {
        let mut data = Vec::new();
        data.extend_from_slice(self.table.as_bytes());
        data.push(b',');
        data.extend_from_slice(&self.start_key);
        data.push(b',');
        data.extend_from_slice(self.region_id.to_string().as_bytes());
        let fnv = |seed: u64| {
            data.iter().fold(seed, |h, &b| {
                (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
            })
        };
        format!(
            "{:016x}{:016x}",
            fnv(0xcbf2_9ce4_8422_2325),
            fnv(0x8422_2325_cbf2_9ce4)
        )
    }

    /// True when the key ranges of `self` and `other` share a row (an empty end key is the
    /// table's end).
    pub fn overlaps(&self, other: &RegionInfo) -> bool {
        let starts_before = |start: &[u8], end: &[u8]| end.is_empty() || start < end;
        starts_before(&self.start_key, &other.end_key)
            && starts_before(&other.start_key, &self.end_key)
    }

    /// True when `row` lies in `[start_key, end_key)`.
    pub fn contains_row(&self, row: &[u8]) -> bool {
        row >= self.start_key.as_slice()
            && (self.end_key.is_empty() || row < self.end_key.as_slice())
    }
}

/// One live storefile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreFileMeta {
    /// File name inside the family directory.
    pub name: String,
    /// Length in bytes.
    pub size: u64,
    /// Largest sequence id in the file.
    pub max_seq_id: u64,
    /// Cells in the file (for a reference: in the whole referenced file).
    pub cell_count: u64,
    /// Set when the entry is a reference to half of another region's file; `name` is then
    /// only the entry's name (`<file>.<region>`, as HBase names reference files).
    pub reference: Option<Reference>,
    /// The checksum of the file's trailer (for a reference: of the referenced file's), a
    /// fingerprint checked with `size` when the file opens, so a file replaced by another
    /// one (copied over, swapped, restored from elsewhere) is refused. `None` for entries
    /// written before manifests recorded it (version 2 and older); the region fills it in
    /// from the file when it opens and records it at its next manifest change.
    pub trailer_checksum: Option<u32>,
}

/// One store's entry.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct StoreManifest {
    /// Every edit of this family with sequence id ≤ this is in a live storefile.
    pub flushed_seq_id: u64,
    /// Live files, oldest first.
    pub files: Vec<StoreFileMeta>,
}

/// The whole manifest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Manifest {
    /// The region.
    pub region: RegionInfo,
    /// Next storefile id to hand out (file names are `<id>.sf`).
    pub next_file_id: u64,
    /// Stores by family name.
    pub stores: BTreeMap<Vec<u8>, StoreManifest>,
    /// The WAL position known durable at the region's last flush (which log, and its
    /// length after its last sync). Evidence for replay that the log is at least that long
    /// (a shorter one was truncated, not torn by a crash). Version 3; `None` before.
    pub wal_mark: Option<SyncedPosition>,
}

fn put_bytes(out: &mut Vec<u8>, b: &[u8]) {
    out.extend_from_slice(&(b.len() as u32).to_be_bytes());
    out.extend_from_slice(b);
}

struct Decoder<'a> {
    b: &'a [u8],
    pos: usize,
    base: u64,
    path: &'a Path,
}

impl Decoder<'_> {
    fn err(&self, reason: impl Into<String>) -> Error {
        Error::Corrupt {
            what: "manifest",
            path: self.path.to_path_buf(),
            offset: self.base + self.pos as u64,
            reason: reason.into(),
        }
    }
    fn take(&mut self, n: usize) -> Result<&[u8]> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.b.len());
        match end {
            Some(end) => {
                let s = &self.b[self.pos..end];
                self.pos = end;
                Ok(s)
            }
            None => Err(self.err(format!("field of {n} bytes runs past the body"))),
        }
    }
    fn u32(&mut self) -> Result<u32> {
        let s = self.take(4)?;
        Ok(u32::from_be_bytes([s[0], s[1], s[2], s[3]]))
    }
    fn u64(&mut self) -> Result<u64> {
        let s = self.take(8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(s);
        Ok(u64::from_be_bytes(a))
    }
    fn bytes(&mut self) -> Result<Vec<u8>> {
        let n = self.u32()? as usize;
        Ok(self.take(n)?.to_vec())
    }
    fn string(&mut self) -> Result<String> {
        let b = self.bytes()?;
        String::from_utf8(b).map_err(|_| self.err("a name is not UTF-8"))
    }
    /// A file or directory name that must stay inside its directory.
    fn file_name(&mut self) -> Result<String> {
        let name = self.string()?;
        if name.is_empty() || name.contains('/') || name.contains('\\') || name.starts_with('.') {
            return Err(self.err(format!("name {name:?} leaves its directory")));
        }
        Ok(name)
    }
}

impl Manifest {
    /// A manifest for a new, empty region with the given families.
    pub fn new(region: RegionInfo, families: &[Vec<u8>]) -> Self {
        Self {
            region,
            next_file_id: 1,
            stores: families
                .iter()
                .map(|f| (f.clone(), StoreManifest::default()))
                .collect(),
            wal_mark: None,
        }
    }

    /// Encodes the whole file.
    pub fn encode(&self) -> Vec<u8> {
        self.encode_version(VERSION)
    }

    /// Encodes the file in format `version` (older versions leave out the fields they did
    /// not have; for tests of the readers of old files).
    fn encode_version(&self, version: u32) -> Vec<u8> {
        let mut body = Vec::new();
        put_bytes(&mut body, self.region.table.as_bytes());
        put_bytes(&mut body, &self.region.start_key);
        put_bytes(&mut body, &self.region.end_key);
        body.extend_from_slice(&self.region.region_id.to_be_bytes());
        body.extend_from_slice(&self.next_file_id.to_be_bytes());
        body.extend_from_slice(&(self.stores.len() as u32).to_be_bytes());
        for (family, store) in &self.stores {
            put_bytes(&mut body, family);
            body.extend_from_slice(&store.flushed_seq_id.to_be_bytes());
            body.extend_from_slice(&(store.files.len() as u32).to_be_bytes());
            for f in &store.files {
                put_bytes(&mut body, f.name.as_bytes());
                body.extend_from_slice(&f.size.to_be_bytes());
                body.extend_from_slice(&f.max_seq_id.to_be_bytes());
                body.extend_from_slice(&f.cell_count.to_be_bytes());
                if version >= 2 {
                    match &f.reference {
                        None => body.push(0),
                        Some(r) => {
                            body.push(if r.top { 2 } else { 1 });
                            put_bytes(&mut body, r.region.as_bytes());
                            put_bytes(&mut body, r.file.as_bytes());
                            put_bytes(&mut body, &r.split_row);
                        }
                    }
                }
                if version >= 3 {
                    match f.trailer_checksum {
                        None => body.push(0),
                        Some(c) => {
                            body.push(1);
                            body.extend_from_slice(&c.to_be_bytes());
                        }
                    }
                }
            }
        }
        if version >= 3 {
            match self.wal_mark {
                None => body.push(0),
                Some(mark) => {
                    body.push(1);
                    body.extend_from_slice(&mark.log.to_be_bytes());
                    body.extend_from_slice(&mark.created_ms.to_be_bytes());
                    body.extend_from_slice(&mark.len.to_be_bytes());
                }
            }
        }
        let mut out = Vec::with_capacity(body.len() + 20);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&version.to_be_bytes());
        out.extend_from_slice(&(body.len() as u32).to_be_bytes());
        out.extend_from_slice(&body);
        let crc = crc32fast::hash(&out);
        out.extend_from_slice(&crc.to_be_bytes());
        out
    }

    /// Decodes a whole manifest file read from `path`.
    pub fn decode(b: &[u8], path: &Path) -> Result<Self> {
        let corrupt = |offset: u64, reason: String| Error::Corrupt {
            what: "manifest",
            path: path.to_path_buf(),
            offset,
            reason,
        };
        if b.len() < 20 || &b[0..8] != MAGIC {
            return Err(corrupt(
                0,
                "no manifest magic (not a manifest, or truncated)".into(),
            ));
        }
        let version = u32::from_be_bytes([b[8], b[9], b[10], b[11]]);
        let n = u32::from_be_bytes([b[12], b[13], b[14], b[15]]) as usize;
        if b.len() != 16 + n + 4 {
            return Err(corrupt(
                12,
                format!(
                    "a body of {n} bytes needs a file of {} bytes; the file has {}",
                    n + 20,
                    b.len()
                ),
            ));
        }
        let stored = u32::from_be_bytes([b[16 + n], b[17 + n], b[18 + n], b[19 + n]]);
        let computed = crc32fast::hash(&b[..16 + n]);
        if stored != computed {
            return Err(corrupt(
                (16 + n) as u64,
                format!("checksum mismatch: stored {stored:#010x}, computed {computed:#010x}"),
            ));
        }
        if !(1..=VERSION).contains(&version) {
            return Err(corrupt(
                8,
                format!("unsupported manifest version {version}"),
            ));
        }
        let mut d = Decoder {
            b: &b[16..16 + n],
            pos: 0,
            base: 16,
            path,
        };
        let table = d.string()?;
        let start_key = d.bytes()?;
        let end_key = d.bytes()?;
        let region_id = d.u64()?;
        let next_file_id = d.u64()?;
        let store_count = d.u32()?;
        let mut stores = BTreeMap::new();
        for _ in 0..store_count {
            let family = d.bytes()?;
            let flushed_seq_id = d.u64()?;
            let file_count = d.u32()?;
            let mut files = Vec::new();
            for _ in 0..file_count {
                let name = d.file_name()?;
                let size = d.u64()?;
                let max_seq_id = d.u64()?;
                let cell_count = d.u64()?;
                let kind = if version >= 2 { d.take(1)?[0] } else { 0 };
                let reference = match kind {
                    0 => None,
                    1 | 2 => {
                        let region = d.file_name()?;
                        let file = d.file_name()?;
                        Some(Reference {
                            region,
                            file,
                            split_row: d.bytes()?,
                            top: kind == 2,
                        })
                    }
                    k => return Err(d.err(format!("unknown storefile kind {k}"))),
                };
                let trailer_checksum = if version >= 3 {
                    match d.take(1)?[0] {
                        0 => None,
                        1 => Some(d.u32()?),
                        k => return Err(d.err(format!("bad checksum flag {k}"))),
                    }
                } else {
                    None
                };
                files.push(StoreFileMeta {
                    name,
                    size,
                    max_seq_id,
                    cell_count,
                    reference,
                    trailer_checksum,
                });
            }
            stores.insert(
                family,
                StoreManifest {
                    flushed_seq_id,
                    files,
                },
            );
        }
        let wal_mark = if version >= 3 {
            match d.take(1)?[0] {
                0 => None,
                1 => Some(SyncedPosition {
                    log: d.u64()?,
                    created_ms: d.u64()? as i64,
                    len: d.u64()?,
                }),
                k => return Err(d.err(format!("bad WAL mark flag {k}"))),
            }
        } else {
            None
        };
        if d.pos != d.b.len() {
            return Err(d.err("trailing bytes after the last store"));
        }
        Ok(Self {
            region: RegionInfo {
                table,
                start_key,
                end_key,
                region_id,
            },
            next_file_id,
            stores,
            wal_mark,
        })
    }

    /// Path of the manifest in `region_dir`.
    pub fn path(region_dir: &Path) -> PathBuf {
        region_dir.join(MANIFEST_FILE)
    }

    /// Atomically replaces the region's manifest: temp file, fsync, rename, fsync dir.
    pub fn write(&self, fs: &dyn Fs, region_dir: &Path) -> Result<()> {
        Ok(regionkv_fs::write_atomic(
            fs,
            &Self::path(region_dir),
            &self.encode(),
        )?)
    }

    /// Reads the region's manifest; `None` when the region has none yet.
    pub fn read(fs: &dyn Fs, region_dir: &Path) -> Result<Option<Self>> {
        let path = Self::path(region_dir);
        if !fs.exists(&path)? {
            return Ok(None);
        }
        let file = fs.open_read(&path)?;
        let len = file.len() as usize;
        if len > MAX_MANIFEST_LEN {
            return Err(Error::Corrupt {
                what: "manifest",
                path,
                offset: 0,
                reason: format!("{len} bytes is larger than any manifest"),
            });
        }
        let bytes = file.read_to_vec(0, len)?;
        Self::decode(&bytes, &path).map(Some)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use regionkv_fs::{CrashMode, MemFs};

    #[test]
    fn region_names_are_hbase_s() {
        let info = RegionInfo {
            table: "ns:t".into(),
            start_key: b"r\x00\xff".to_vec(),
            end_key: Vec::new(),
            region_id: 1_700_000_000_000,
        };
        assert_eq!(
            info.region_name(),
            format!("ns:t,r\\x00\\xFF,1700000000000.{}.", info.encoded_name())
        );
        let first = RegionInfo::whole_table("t", 7);
        assert_eq!(
            first.region_name(),
            format!("t,,7.{}.", first.encoded_name())
        );
    }

    fn sample() -> Manifest {
        let mut m = Manifest::new(
            RegionInfo {
                table: "ns:t".into(),
                start_key: b"a".to_vec(),
                end_key: b"m".to_vec(),
                region_id: 1_700_000_000_000,
            },
            &[b"cf1".to_vec(), b"cf2".to_vec()],
        );
        m.next_file_id = 9;
        m.stores
            .get_mut(&b"cf1"[..])
            .unwrap()
            .files
            .push(StoreFileMeta {
                name: "3.sf".into(),
                size: 1234,
                max_seq_id: 77,
                cell_count: 10,
                reference: None,
                trailer_checksum: Some(0xdead_beef),
            });
        m.stores
            .get_mut(&b"cf2"[..])
            .unwrap()
            .files
            .push(StoreFileMeta {
                name: "4.sf.0123456789abcdef0123456789abcdef".into(),
                size: 99,
                max_seq_id: 12,
                cell_count: 3,
                reference: Some(Reference {
                    region: "0123456789abcdef0123456789abcdef".into(),
                    file: "4.sf".into(),
                    split_row: b"g\x00".to_vec(),
                    top: true,
                }),
                trailer_checksum: None,
            });
        m.stores.get_mut(&b"cf1"[..]).unwrap().flushed_seq_id = 77;
        m.wal_mark = Some(SyncedPosition {
            log: 3,
            created_ms: 1_700_000_000_000,
            len: 4096,
        });
        m
    }

    #[test]
    fn round_trip_and_every_bit_flip_is_caught() {
        let m = sample();
        let b = m.encode();
        assert_eq!(Manifest::decode(&b, Path::new("/M")).unwrap(), m);
        for i in 0..b.len() {
            let mut bad = b.clone();
            bad[i] ^= 0x01;
            let e = Manifest::decode(&bad, Path::new("/M")).unwrap_err();
            assert!(e.to_string().contains("/M"), "{e}");
        }
        for len in 0..b.len() {
            assert!(Manifest::decode(&b[..len], Path::new("/M")).is_err());
        }
        // The length message says both lengths it compares, and they differ.
        let mut longer = b.clone();
        longer.push(0);
        let e = Manifest::decode(&longer, Path::new("/M"))
            .unwrap_err()
            .to_string();
        let body = b.len() - 20;
        assert!(
            e.contains(&format!(
                "a body of {body} bytes needs a file of {} bytes; the file has {}",
                b.len(),
                b.len() + 1
            )),
            "{e}"
        );
    }

    #[test]
    fn atomic_replace_survives_crashes_at_every_step() {
        let fs = MemFs::new();
        let dir = Path::new("/r");
        fs.create_dir_all(dir).unwrap();
        let first = sample();
        first.write(&fs, dir).unwrap();
        let mut second = sample();
        second.next_file_id = 10;
        second.write(&fs, dir).unwrap();
        fs.crash(CrashMode::DropUnsynced);
        assert_eq!(Manifest::read(&fs, dir).unwrap().unwrap(), second);
        // A crash in the middle of a replacement leaves the old manifest.
        let fault = regionkv_fs::FaultFs::new(std::sync::Arc::new(fs.clone()));
        let mut third = second.clone();
        third.next_file_id = 11;
        fault.halt_at(fault.op_count() + 3); // after create+append+sync, before rename
        assert!(third.write(&fault, dir).is_err());
        fs.crash(CrashMode::DropUnsynced);
        assert_eq!(Manifest::read(&fs, dir).unwrap().unwrap(), second);
        // The next write clears the stale temp file.
        third.write(&fs, dir).unwrap();
        assert_eq!(Manifest::read(&fs, dir).unwrap().unwrap(), third);
    }

    #[test]
    fn older_versions_without_kind_bytes_or_checksums_are_read() {
        let mut m = sample();
        for f in m.stores.values_mut().flat_map(|s| s.files.iter_mut()) {
            f.trailer_checksum = None;
        }
        m.wal_mark = None;
        // Version 2: references, no checksums.
        let v2 = m.encode_version(2);
        assert_eq!(&v2[8..12], &2u32.to_be_bytes());
        assert_eq!(Manifest::decode(&v2, Path::new("/M")).unwrap(), m);
        assert!(v2.len() < m.encode().len());
        // Version 1: no kind bytes either, so no references.
        m.stores.get_mut(&b"cf2"[..]).unwrap().files.clear();
        let v1 = m.encode_version(1);
        assert_eq!(Manifest::decode(&v1, Path::new("/M")).unwrap(), m);
        // A later version is refused.
        let mut v4 = m.encode();
        v4[8..12].copy_from_slice(&4u32.to_be_bytes());
        let n = v4.len() - 4;
        let crc = crc32fast::hash(&v4[..n]);
        v4[n..].copy_from_slice(&crc.to_be_bytes());
        let e = Manifest::decode(&v4, Path::new("/M")).unwrap_err();
        assert!(
            e.to_string().contains("unsupported manifest version 4"),
            "{e}"
        );
    }

    #[test]
    fn encoded_names_are_stable_and_distinct() {
        let a = sample().region;
        let mut b = a.clone();
        b.region_id += 1;
        assert_eq!(a.encoded_name(), sample().region.encoded_name());
        assert_ne!(a.encoded_name(), b.encoded_name());
        assert_eq!(a.encoded_name().len(), 32);
        assert!(a.contains_row(b"a") && a.contains_row(b"lzz") && !a.contains_row(b"m"));
        let region = |start: &[u8], end: &[u8]| RegionInfo {
            start_key: start.to_vec(),
            end_key: end.to_vec(),
            ..a.clone()
        };
        assert!(region(b"", b"m").overlaps(&region(b"l", b"")));
        assert!(!region(b"", b"m").overlaps(&region(b"m", b"")));
        assert!(region(b"", b"").overlaps(&region(b"x", b"y")));
        assert!(!region(b"a", b"b").overlaps(&region(b"b", b"c")));
    }
}
