//! Data blocks in parts (format version 3): a compressed data block of BLOCKSIZE bytes is
//! stored as independently compressed parts of about [`PART_SIZE`] bytes, with a table of
//! the parts' first keys, so that a point read decompresses (and caches) one part instead
//! of the whole block.
//!
//! Why: HBase's default BLOCKSIZE is 64 KiB, and schema designers size the block index and
//! the block cache by it, so the index keeps one entry per BLOCKSIZE block. But with LZ4 a
//! cache miss on a 64 KiB block costs ~17 µs of decompression and 64 KiB of cache for the
//! one cell a Get wants; a 4 KiB part costs ~1 µs and 4 KiB. The index is unchanged; the
//! parts are a layout inside the block.
//!
//! ```text
//! header (20)  byte 10 = LAYOUT_PARTS; n = table_len + parts_len; uncompressed = Σ raw_len
//! table        table_len:u32  count:u32  entry[count]  first keys
//!              entry = key_off:u32 key_len:u32 part_off:u32 disk_len:u32 raw_len:u32 crc:u32
//! parts        part bodies back to back, each compressed as the header says
//! crc (4)      CRC-32 of bytes [0, 20 + table_len): the header and the table
//! ```
//!
//! `key_off` is relative to the table's start, `part_off` to the first part. Each part is
//! a complete block body (entries and restart array, `crate::block`) and carries its own
//! CRC-32 (of its on-disk bytes) in the table, so every byte of the block is still covered
//! by exactly one checksum, and a point read verifies only the table and the part it reads.
//!
//! Invariants checked by [`PartTable::parse`] before anything is used: at least one part;
//! entries and keys inside the table; parts back to back from offset 0 filling the parts
//! area exactly; raw lengths within `MAX_BODY_LEN` and summing to the header's uncompressed
//! length. First keys ascend (the writer guarantees it; a table whose CRC matched is the
//! writer's).

use super::block_header::{CHECKSUM_LEN, HEADER_LEN, MAX_BODY_LEN};
use super::row_prefixes;
use super::{BlockType, Compression, DataBlockEncoding, be_u32};
use regionkv_cell::compare_keys;

/// Target uncompressed size of a part (RocksDB's default block size).
pub const PART_SIZE: usize = 4096;
/// Header byte 10 of a data block stored in parts.
pub const LAYOUT_PARTS: u8 = 1;
/// Bytes of one table entry.
pub const ENTRY_LEN: usize = 24;
/// Bytes before the first entry: `table_len` and `count`.
const TABLE_HEAD: usize = 8;

/// One part as the writer finished it.
#[derive(Debug, Clone)]
pub struct PartOut {
    /// First key of the part.
    pub first_key: Vec<u8>,
    /// The part's on-disk (compressed) bytes.
    pub stored: Vec<u8>,
    /// Uncompressed length.
    pub raw_len: u32,
}

/// Frames a data block made of `parts` into `out`.
pub fn frame_parted_block(
    out: &mut Vec<u8>,
    compression: Compression,
    encoding: DataBlockEncoding,
    parts: &[PartOut],
) {
    let keys: usize = parts.iter().map(|p| p.first_key.len()).sum();
    let table_len = TABLE_HEAD + ENTRY_LEN * parts.len() + keys;
    let parts_len: usize = parts.iter().map(|p| p.stored.len()).sum();
    let raw: u64 = parts.iter().map(|p| u64::from(p.raw_len)).sum();
    let start = out.len();
    out.extend_from_slice(BlockType::Data.magic());
    out.push(compression.code());
    out.push(encoding.code());
    out.extend_from_slice(&[LAYOUT_PARTS, 0]);
    // A block is bounded by BLOCKSIZE plus one cell (≤ MAX_BODY_LEN), so these fit in u32.
    out.extend_from_slice(&((table_len + parts_len) as u32).to_be_bytes());
    out.extend_from_slice(&(raw as u32).to_be_bytes());
    out.extend_from_slice(&(table_len as u32).to_be_bytes());
    out.extend_from_slice(&(parts.len() as u32).to_be_bytes());
    let (mut key_off, mut part_off) = (TABLE_HEAD + ENTRY_LEN * parts.len(), 0usize);
    for p in parts {
        for v in [
            key_off,
            p.first_key.len(),
            part_off,
            p.stored.len(),
            p.raw_len as usize,
            crc32fast::hash(&p.stored) as usize,
        ] {
            out.extend_from_slice(&(v as u32).to_be_bytes());
        }
        key_off += p.first_key.len();
        part_off += p.stored.len();
    }
    for p in parts {
        out.extend_from_slice(&p.first_key);
    }
    let crc = crc32fast::hash(&out[start..]);
    for p in parts {
        out.extend_from_slice(&p.stored);
    }
    out.extend_from_slice(&crc.to_be_bytes());
}

/// One entry of a verified table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PartEntry {
    /// Offset of the part from the first part.
    pub part_off: u32,
    /// On-disk bytes.
    pub disk_len: u32,
    /// Uncompressed bytes.
    pub raw_len: u32,
    /// CRC-32 of the on-disk bytes.
    pub crc: u32,
}

/// A verified part table (the bytes from `table_len` through the last first key).
#[derive(Debug, Clone, Copy)]
pub struct PartTable<'a> {
    bytes: &'a [u8],
    count: usize,
}

/// Why a parted block's header or table was rejected (the reader adds file and offset).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PartsError {
    /// The header and table's checksum does not match.
    Checksum {
        /// Stored.
        stored: u32,
        /// Computed.
        computed: u32,
    },
    /// A field that cannot be right.
    Bad(String),
}

fn bad(reason: impl Into<String>) -> PartsError {
    PartsError::Bad(reason.into())
}

/// The table length of a parted block from its first `HEADER_LEN + 4` bytes (unverified:
/// the caller bounds-checks it against the block, then [`verify_parted_block`] checks the
/// checksum over it).
pub fn peek_table_len(head: &[u8]) -> Option<usize> {
    be_u32(head, HEADER_LEN).map(|v| v as usize)
}

/// Verifies the header and table of a parted data block. `head` is the block's first
/// `HEADER_LEN + table_len` bytes, `stored_crc` its last four, `block_len` its framed
/// size. Returns the table's bytes (a sub-slice of `head`).
pub fn verify_parted_block(
    head: &[u8],
    stored_crc: u32,
    block_len: usize,
    expect: Compression,
) -> Result<&[u8], PartsError> {
    let computed = crc32fast::hash(head);
    if computed != stored_crc {
        return Err(PartsError::Checksum {
            stored: stored_crc,
            computed,
        });
    }
    if head.get(..8) != Some(BlockType::Data.magic().as_slice()) {
        return Err(bad("a parted block that is not a data block"));
    }
    if head.get(8) != Some(&expect.code()) {
        return Err(bad(format!(
            "part compression code {:?} differs from the file's {}",
            head.get(8),
            expect.name()
        )));
    }
    if DataBlockEncoding::from_code(head.get(9).copied().unwrap_or(0xff)).is_none() {
        return Err(bad("unknown encoding code"));
    }
    if head.get(10) != Some(&LAYOUT_PARTS) {
        return Err(bad("a data block of a parted file that is not in parts"));
    }
    let n = be_u32(head, 12).unwrap_or(0) as usize;
    if HEADER_LEN + n + CHECKSUM_LEN != block_len {
        return Err(bad(format!(
            "body length field {n} does not match the block extent {block_len}"
        )));
    }
    let uncompressed = be_u32(head, 16).unwrap_or(0);
    let table = head.get(HEADER_LEN..).unwrap_or_default();
    let t = PartTable::parse(table, n, uncompressed)?;
    Ok(t.bytes)
}

impl<'a> PartTable<'a> {
    /// Checks and wraps a table; `body_len` is the block's on-disk body length (table and
    /// parts), `uncompressed` the header's uncompressed length.
    pub fn parse(bytes: &'a [u8], body_len: usize, uncompressed: u32) -> Result<Self, PartsError> {
        let table_len = be_u32(bytes, 0).ok_or_else(|| bad("table length"))? as usize;
        if table_len != bytes.len() || table_len > body_len {
            return Err(bad(format!("table length {table_len} out of bounds")));
        }
        let count = be_u32(bytes, 4).ok_or_else(|| bad("part count"))? as usize;
        let entries_end = count
            .checked_mul(ENTRY_LEN)
            .and_then(|v| v.checked_add(TABLE_HEAD))
            .filter(|&v| v <= table_len)
            .ok_or_else(|| bad(format!("{count} parts do not fit the table")))?;
        if count == 0 {
            return Err(bad("a block of no parts"));
        }
        let t = Self { bytes, count };
        let parts_len = body_len - table_len;
        let (mut next_off, mut raw_sum) = (0u64, 0u64);
        for i in 0..count {
            let at = TABLE_HEAD + i * ENTRY_LEN;
            let key_off = be_u32(bytes, at).unwrap_or(u32::MAX) as usize;
            let key_len = be_u32(bytes, at + 4).unwrap_or(u32::MAX) as usize;
            if key_off < entries_end || key_off.saturating_add(key_len) > table_len {
                return Err(bad(format!("first key of part {i} outside the table")));
            }
            let e = t.entry(i);
            if u64::from(e.part_off) != next_off || e.raw_len > MAX_BODY_LEN {
                return Err(bad(format!("part {i} out of place or too large")));
            }
            next_off += u64::from(e.disk_len);
            raw_sum += u64::from(e.raw_len);
        }
        if next_off != parts_len as u64 {
            return Err(bad(format!(
                "parts take {next_off} bytes, the block has {parts_len}"
            )));
        }
        if raw_sum != u64::from(uncompressed) {
            return Err(bad(format!(
                "parts hold {raw_sum} bytes uncompressed, the header says {uncompressed}"
            )));
        }
        Ok(t)
    }

    /// Wraps table bytes that [`Self::parse`] accepted before (from the block cache).
    pub fn trusted(bytes: &'a [u8]) -> Self {
        let count = be_u32(bytes, 4).unwrap_or(0) as usize;
        let fit = bytes.len().saturating_sub(TABLE_HEAD) / ENTRY_LEN;
        Self {
            bytes,
            count: count.min(fit),
        }
    }

    /// Number of parts.
    pub fn len(&self) -> usize {
        self.count
    }

    /// True for a table of no parts (never a parsed one).
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Bytes of the table (and of the block before its first part, less the header).
    pub fn table_len(&self) -> usize {
        self.bytes.len()
    }

    /// Entry `i` (zeros past the end).
    pub fn entry(&self, i: usize) -> PartEntry {
        let at = TABLE_HEAD + i * ENTRY_LEN;
        let get = |k: usize| be_u32(self.bytes, at + 8 + 4 * k).unwrap_or(0);
        PartEntry {
            part_off: get(0),
            disk_len: get(1),
            raw_len: get(2),
            crc: get(3),
        }
    }

    /// First key of part `i` (empty past the end).
    pub fn first_key(&self, i: usize) -> &'a [u8] {
        let at = TABLE_HEAD + i * ENTRY_LEN;
        let off = be_u32(self.bytes, at).unwrap_or(0) as usize;
        let len = be_u32(self.bytes, at + 4).unwrap_or(0) as usize;
        self.bytes
            .get(off..off.saturating_add(len))
            .unwrap_or_default()
    }

    /// The part that holds `key` if the block does: the last whose first key is ≤ `key`,
    /// or the first.
    pub fn find(&self, key: &[u8]) -> usize {
        let (mut lo, mut hi) = (0usize, self.count);
        // Invariant: first keys before `lo` are ≤ key; from `hi` on they are > key.
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if compare_keys(self.first_key(mid), key).is_gt() {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        lo.saturating_sub(1)
    }
}

/// A verified part table as the reader keeps it, with a search aid (`super::row_prefixes`):
/// eight bytes of each part's first row after the prefix all first rows share, so that
/// finding a key's part compares integers in one or two cache lines instead of chasing a
/// key offset and then the key for every probe (the tables of a large file are rarely in
/// the CPU caches; the misses were 7% of a random Get).
///
/// Invariant: `prefixes` is empty, or holds the aid prefix of every first row, whose
/// first `common.len()` bytes all first rows share; a key whose row does not start with
/// `common` takes the plain search.
#[derive(Debug)]
pub struct PartIndex {
    bytes: Vec<u8>,
    common: Vec<u8>,
    prefixes: Box<[u64]>,
}

impl PartIndex {
    /// Wraps a verified table (as [`verify_parted_block`] returned it).
    pub fn new(bytes: Vec<u8>) -> Self {
        let t = PartTable::trusted(&bytes);
        let (common, prefixes) =
            row_prefixes::build((0..t.len()).map(|i| t.first_key(i))).unwrap_or_default();
        Self {
            bytes,
            common,
            prefixes: prefixes.into_boxed_slice(),
        }
    }

    /// The table.
    pub fn table(&self) -> PartTable<'_> {
        PartTable::trusted(&self.bytes)
    }

    /// [`PartTable::find`], on the prefixes first.
    pub fn find(&self, key: &[u8]) -> usize {
        let t = self.table();
        let p = row_prefixes::search_prefix(&self.common, key);
        let (Some(p), false) = (p, self.prefixes.is_empty()) else {
            return t.find(key);
        };
        row_prefixes::find_last_le(
            self.prefixes.len().min(t.len()),
            p,
            |i| self.prefixes.get(i).copied(),
            |i| compare_keys(t.first_key(i), key),
        )
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use regionkv_cell::{CellType, key::encode_key, key::key_row};

    fn key(i: u32) -> Vec<u8> {
        encode_key(
            format!("r{i:04}").as_bytes(),
            b"f",
            b"q",
            1,
            CellType::Put,
            0,
        )
        .unwrap()
    }

    fn block(n: u32) -> (Vec<u8>, Vec<PartOut>) {
        let parts: Vec<PartOut> = (0..n)
            .map(|i| PartOut {
                first_key: key(i * 10),
                stored: vec![i as u8; 100 + i as usize],
                raw_len: 200,
            })
            .collect();
        let mut out = Vec::new();
        frame_parted_block(&mut out, Compression::Lz4, DataBlockEncoding::None, &parts);
        (out, parts)
    }

    fn verify(b: &[u8]) -> Result<&[u8], PartsError> {
        let t = peek_table_len(b).unwrap();
        let crc = be_u32(b, b.len() - 4).unwrap();
        verify_parted_block(
            b.get(..HEADER_LEN + t).ok_or(bad("short"))?,
            crc,
            b.len(),
            Compression::Lz4,
        )
    }

    #[test]
    fn round_trip_and_find() {
        let (b, parts) = block(5);
        let t = PartTable::trusted(verify(&b).unwrap());
        assert_eq!(t.len(), 5);
        let mut off = 0;
        for (i, p) in parts.iter().enumerate() {
            assert_eq!(t.first_key(i), p.first_key.as_slice());
            let e = t.entry(i);
            let at = HEADER_LEN + t.table_len() + e.part_off as usize;
            assert_eq!(e.part_off as usize, off);
            assert_eq!(&b[at..at + e.disk_len as usize], p.stored.as_slice());
            assert_eq!(e.crc, crc32fast::hash(&p.stored));
            off += p.stored.len();
        }
        assert_eq!(t.find(&key(0)), 0);
        assert_eq!(t.find(&key(5)), 0);
        assert_eq!(t.find(&key(10)), 1);
        assert_eq!(t.find(&key(39)), 3);
        assert_eq!(t.find(&key(999)), 4);
        assert_eq!(t.find(b""), 0);
    }

    /// Rows from a small alphabet (0x00, 0xff and two letters), up to 11 bytes, so that
    /// first rows share 8-byte prefixes, end inside them or hold zero bytes; keys of one
    /// row differ by qualifier and timestamp.
    fn arb_key() -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
        use proptest::prelude::*;
        let byte = prop::sample::select(vec![0u8, b'a', b'b', 0xff]);
        (
            prop::collection::vec(byte, 0..12),
            prop::sample::select(vec![&b""[..], b"q", b"r"]),
            0i64..3,
        )
            .prop_map(|(row, q, ts)| encode_key(&row, b"f", q, ts, CellType::Put, 0).unwrap())
    }

    proptest::proptest! {
        /// The prefix search finds the part the plain table search finds, for any sorted
        /// first keys and any probe.
        #[test]
        fn part_index_finds_what_the_table_finds(
            mut firsts in proptest::collection::vec(arb_key(), 1..20),
            probes in proptest::collection::vec(arb_key(), 1..40),
        ) {
            firsts.sort_by(|a, b| compare_keys(a, b));
            firsts.dedup();
            let parts: Vec<PartOut> = firsts
                .iter()
                .map(|k| PartOut { first_key: k.clone(), stored: vec![1; 10], raw_len: 20 })
                .collect();
            let mut b = Vec::new();
            frame_parted_block(&mut b, Compression::Lz4, DataBlockEncoding::None, &parts);
            let index = PartIndex::new(verify(&b).unwrap().to_vec());
            proptest::prop_assert_eq!(index.prefixes.len(), firsts.len());
            let t = index.table();
            for p in probes.iter().chain(&firsts) {
                proptest::prop_assert_eq!(index.find(p), t.find(p));
            }
            // The same rows behind a shared 10-byte prefix (as zero-padded numbers are),
            // probed with and without it.
            let padded = |k: &Vec<u8>| {
                let mut row = b"0000000000".to_vec();
                row.extend_from_slice(key_row(k).unwrap());
                let v = regionkv_cell::KeyView::parse(k).unwrap();
                encode_key(&row, b"f", v.qualifier(), v.timestamp(), CellType::Put, 0).unwrap()
            };
            let parts: Vec<PartOut> = firsts
                .iter()
                .map(|k| PartOut { first_key: padded(k), stored: vec![1; 10], raw_len: 20 })
                .collect();
            let mut b = Vec::new();
            frame_parted_block(&mut b, Compression::Lz4, DataBlockEncoding::None, &parts);
            let index = PartIndex::new(verify(&b).unwrap().to_vec());
            proptest::prop_assert!(index.common.len() >= 10);
            let t = index.table();
            for p in probes.iter().chain(&firsts) {
                let q = padded(p);
                proptest::prop_assert_eq!(index.find(&q), t.find(&q));
                proptest::prop_assert_eq!(index.find(p), t.find(p));
            }
            // A probe that is not a key takes the plain search.
            proptest::prop_assert_eq!(index.find(b"\xff"), t.find(b"\xff"));
        }
    }

    #[test]
    fn every_flip_of_header_or_table_is_caught() {
        let (b, _) = block(3);
        let t = peek_table_len(&b).unwrap();
        for i in (0..HEADER_LEN + t).chain(b.len() - 4..b.len()) {
            for bit in [0x01u8, 0x80] {
                let mut x = b.clone();
                x[i] ^= bit;
                // A damaged table length may also point outside the block.
                let r = std::panic::catch_unwind(|| verify(&x).map(|_| ()));
                assert!(matches!(r, Ok(Err(_))), "flip at {i}");
            }
        }
    }

    #[test]
    fn bad_tables_are_errors_not_panics() {
        let (b, _) = block(2);
        let tl = peek_table_len(&b).unwrap();
        let table = &b[HEADER_LEN..HEADER_LEN + tl];
        let n = b.len() - HEADER_LEN - CHECKSUM_LEN;
        let un = be_u32(&b, 16).unwrap();
        assert!(PartTable::parse(table, n, un).is_ok());
        assert!(PartTable::parse(table, n, un + 1).is_err(), "raw sum");
        assert!(PartTable::parse(table, n + 1, un).is_err(), "parts area");
        let mut t = table.to_vec();
        t[4..8].copy_from_slice(&1000u32.to_be_bytes());
        assert!(PartTable::parse(&t, n, un).is_err(), "count");
        let mut t = table.to_vec();
        t[4..8].copy_from_slice(&0u32.to_be_bytes());
        assert!(PartTable::parse(&t, n, un).is_err(), "no parts");
        let mut t = table.to_vec();
        t[TABLE_HEAD + 4..TABLE_HEAD + 8].copy_from_slice(&10_000u32.to_be_bytes());
        assert!(PartTable::parse(&t, n, un).is_err(), "key length");
        for len in 0..table.len() {
            let _ = PartTable::parse(&table[..len], n, un);
            let t = PartTable::trusted(&table[..len]);
            for i in 0..3 {
                let _ = (t.first_key(i), t.entry(i));
            }
            let _ = t.find(&key(3));
        }
    }
}
