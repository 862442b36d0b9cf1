//! HBase's compound Bloom filters in an HFile: the chunks (`BLMFBLK2` blocks written inline
//! among the data blocks), the meta block (`BLMFMET2` for the general Bloom, `DFBLMET2` for
//! the delete-family Bloom, in the load-on-open section) and the hash HBase uses
//! (`MurmurHash`, HBase's MurmurHash2 port). Written by HBase's rules
//! (`CompoundBloomFilterWriter`, `BloomFilterChunk`, `BloomFilterUtil`), so a file's filter
//! has the chunk sizes, hash counts and bits HBase's writer would give it, and read back as
//! `CompoundBloomFilter` reads it. The byte layout is in `docs/hfile-v3.md`.
//!
//! What is hashed:
//! - a ROW Bloom (and the delete-family Bloom): the row, once per distinct row;
//! - a ROWCOL Bloom: HBase's `RowColBloomHashKey` bytes — a KeyValue key of the first cell
//!   of the (row, qualifier) without the family: `u16 row length, row, 0 (family length),
//!   qualifier, i64::MAX, 0xFF` — once per distinct (row, qualifier).

use crate::error::{Result, corrupt};
use crate::index::IndexEntry;
use crate::key::TYPE_MAXIMUM;
use crate::varint::write_vlong;

/// `io.storefile.bloom.error.rate`.
pub const DEFAULT_ERROR_RATE: f64 = 0.01;
/// `io.storefile.bloom.max.fold`.
pub const DEFAULT_MAX_FOLD: u32 = 7;
/// `io.storefile.bloom.block.size`.
pub const DEFAULT_CHUNK_BYTE_SIZE: usize = 128 * 1024;
/// HBase's `Hash.MURMUR_HASH`, the default `hbase.hash.type`.
pub const MURMUR_HASH: i32 = 1;
/// The meta block's format version.
pub const BLOOM_META_VERSION: i32 = 3;
/// The comparator class a ROWCOL Bloom's meta names (its chunk keys are cell keys).
pub const ROWCOL_COMPARATOR: &str = "org.apache.hadoop.hbase.CellComparatorImpl";

/// What a general Bloom filter covers (the family's BLOOMFILTER).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BloomType {
    /// Rows.
    Row,
    /// (row, qualifier) pairs.
    RowCol,
}

impl BloomType {
    /// HBase's name (`BLOOM_FILTER_TYPE`).
    pub fn name(self) -> &'static str {
        match self {
            BloomType::Row => "ROW",
            BloomType::RowCol => "ROWCOL",
        }
    }
}

/// HBase's `MurmurHash.hash`: MurmurHash2 (32-bit) whose 1 to 3 tail bytes are
/// sign-extended, as Java's `byte` is signed.
///
/// ```
/// use regionkv_hfile::bloom::murmur_hash;
/// // Tail bytes >= 0x80 are where HBase differs from textbook MurmurHash2.
/// assert_ne!(murmur_hash(b"\x80", 0), murmur_hash(b"\x7f", 0));
/// assert_eq!(murmur_hash(b"", 0), 0);
/// ```
pub fn murmur_hash(data: &[u8], seed: i32) -> i32 {
    const M: u32 = 0x5bd1_e995;
    let mut h = (seed as u32) ^ (data.len() as u32);
    let mut words = data.chunks_exact(4);
    for w in &mut words {
        let mut k = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
        k = k.wrapping_mul(M);
        k ^= k >> 24;
        k = k.wrapping_mul(M);
        h = h.wrapping_mul(M);
        h ^= k;
    }
    let tail = words.remainder();
    if !tail.is_empty() {
        let signed = |b: u8| i32::from(b as i8) as u32;
        if tail.len() >= 3 {
            h ^= signed(tail[2]) << 16;
        }
        if tail.len() >= 2 {
            h ^= signed(tail[1]) << 8;
        }
        h ^= signed(tail[0]);
        h = h.wrapping_mul(M);
    }
    h ^= h >> 13;
    h = h.wrapping_mul(M);
    h ^= h >> 15;
    h as i32
}

/// The bytes a ROWCOL Bloom hashes for (row, qualifier).
pub fn row_col_hash_key(row: &[u8], qualifier: &[u8]) -> Vec<u8> {
    let mut k = Vec::with_capacity(row.len() + qualifier.len() + 12);
    k.extend_from_slice(&(row.len() as u16).to_be_bytes());
    k.extend_from_slice(row);
    k.push(0);
    k.extend_from_slice(qualifier);
    k.extend_from_slice(&i64::MAX.to_be_bytes());
    k.push(TYPE_MAXIMUM);
    k
}

/// The bit positions HBase sets or tests for `key` in a chunk of `bit_size` bits:
/// `h1 = hash(key, 0)`, `h2 = hash(key, h1)`, position i = |(h1 + i·h2) mod bits| with
/// 32-bit wrapping sums and Java's sign-keeping remainder.
fn positions(key: &[u8], hash_count: u32, bit_size: u64) -> impl Iterator<Item = u64> {
    let h1 = murmur_hash(key, 0);
    let h2 = murmur_hash(key, h1);
    (0..hash_count as i32).map(move |i| {
        let composite = h1.wrapping_add(i.wrapping_mul(h2));
        (i64::from(composite) % bit_size as i64).unsigned_abs()
    })
}

/// HBase's `computeFoldableByteSize`: bytes for `bit_size` bits, rounded up to a multiple
/// of `2^fold`.
fn foldable_byte_size(bit_size: u64, fold: u32) -> u64 {
    let mut bytes = bit_size.div_ceil(8);
    let mask = (1u64 << fold) - 1;
    if bytes & mask != 0 {
        bytes = ((bytes >> fold) + 1) << fold;
    }
    bytes
}

/// One chunk (HBase's `BloomFilterChunk`).
#[derive(Debug, Clone)]
struct Chunk {
    byte_size: u64,
    hash_count: u32,
    max_keys: u64,
    key_count: u64,
    bits: Vec<u8>,
}

impl Chunk {
    /// HBase's `BloomFilterUtil.createBySize`.
    fn by_size(byte_size_hint: usize, error_rate: f64, fold: u32) -> Chunk {
        let byte_size = foldable_byte_size(byte_size_hint as u64 * 8, fold);
        let bit_size = byte_size * 8;
        let ln2_sq = std::f64::consts::LN_2 * std::f64::consts::LN_2;
        // idealMaxKeys: floor(bits · ln²2 / −ln err), a Java int.
        let ideal = (bit_size as f64 * (ln2_sq / -error_rate.ln())) as i64 as i32;
        // optimalFunctionCount: ceil(ln 2 · (bits / maxKeys)), the division in integers.
        let per_key = (bit_size as i64) / i64::from(ideal.max(1));
        let hash_count = (std::f64::consts::LN_2 * per_key as f64).ceil() as u32;
        // computeMaxKeys with the rounded hash count.
        let max_keys = (-(bit_size as f64) / f64::from(hash_count)
            * (1.0 - (error_rate.ln() / f64::from(hash_count)).exp()).ln())
            as i64 as i32;
        Chunk {
            byte_size,
            hash_count,
            max_keys: max_keys.max(1) as u64,
            key_count: 0,
            bits: Vec::new(),
        }
    }

    /// HBase's `createAnother` + `allocBloom`.
    fn another(&self) -> Chunk {
        Chunk {
            byte_size: self.byte_size,
            hash_count: self.hash_count,
            max_keys: self.max_keys,
            key_count: 0,
            bits: vec![0; self.byte_size as usize],
        }
    }

    fn add(&mut self, key: &[u8]) {
        for pos in positions(key, self.hash_count, self.byte_size * 8) {
            self.bits[(pos >> 3) as usize] |= 1 << (pos & 7);
        }
        self.key_count += 1;
    }

    /// HBase's `compactBloom`: fold while the size is even and the chunk holds under half
    /// of its capacity.
    fn fold(&mut self) {
        if self.key_count == 0 {
            return;
        }
        let mut pieces = 1usize;
        let mut size = self.byte_size as usize;
        let mut max_keys = self.max_keys;
        while size & 1 == 0 && max_keys > self.key_count << 1 {
            pieces <<= 1;
            size >>= 1;
            max_keys >>= 1;
        }
        if pieces > 1 {
            for p in 1..pieces {
                for i in 0..size {
                    self.bits[i] |= self.bits[p * size + i];
                }
            }
            self.bits.truncate(size);
            self.byte_size = size as u64;
            self.max_keys = max_keys;
        }
    }
}

/// Writes one compound Bloom filter (HBase's `CompoundBloomFilterWriter`): the owner calls
/// [`Self::append`] for each new key before the cell goes into a data block, and after each
/// data block writes the chunks [`Self::next_ready`] hands out (an inline block each),
/// reporting where with [`Self::chunk_written`].
#[derive(Debug)]
pub struct CompoundBloomWriter {
    chunk_byte_size: usize,
    error_rate: f64,
    max_fold: u32,
    /// Comparator class named in the meta (None: raw bytes, HBase writes a zero length).
    comparator: Option<&'static str>,
    chunk: Option<Chunk>,
    prev: Option<Chunk>,
    first_key_in_chunk: Option<Vec<u8>>,
    ready: std::collections::VecDeque<(Vec<u8>, Chunk)>,
    index: Vec<IndexEntry>,
    num_chunks: u32,
    total_key_count: u64,
    total_max_keys: u64,
    total_byte_size: u64,
}

impl CompoundBloomWriter {
    /// A writer with HBase's defaults (128 KiB chunks, 1% error, fold 7, Murmur).
    /// `comparator` is the class name the meta block records (ROWCOL: [`ROWCOL_COMPARATOR`];
    /// ROW and the delete-family Bloom: none).
    pub fn new(comparator: Option<&'static str>) -> CompoundBloomWriter {
        CompoundBloomWriter {
            chunk_byte_size: foldable_byte_size(
                DEFAULT_CHUNK_BYTE_SIZE as u64 * 8,
                DEFAULT_MAX_FOLD,
            ) as usize,
            error_rate: DEFAULT_ERROR_RATE,
            max_fold: DEFAULT_MAX_FOLD,
            comparator,
            chunk: None,
            prev: None,
            first_key_in_chunk: None,
            ready: Default::default(),
            index: Vec::new(),
            num_chunks: 0,
            total_key_count: 0,
            total_max_keys: 0,
            total_byte_size: 0,
        }
    }

    /// Keys added.
    pub fn key_count(&self) -> u64 {
        self.total_key_count
    }

    /// Moves the chunk in progress to the ready queue when it is full, or when `closing`.
    fn enqueue_ready(&mut self, closing: bool) {
        let Some(chunk) = &self.chunk else { return };
        if chunk.key_count < chunk.max_keys && !closing {
            return;
        }
        let (Some(mut chunk), Some(first)) = (self.chunk.take(), self.first_key_in_chunk.take())
        else {
            return;
        };
        chunk.fold();
        self.total_max_keys += chunk.max_keys;
        self.total_byte_size += chunk.byte_size;
        self.prev = Some(Chunk {
            bits: Vec::new(),
            ..chunk.clone()
        });
        self.ready.push_back((first, chunk));
    }

    /// Adds `hash_key` (the bytes hashed), starting a chunk whose index key is `chunk_key`
    /// when none is open.
    pub fn append(&mut self, hash_key: &[u8], chunk_key: impl FnOnce() -> Vec<u8>) {
        self.enqueue_ready(false);
        if self.chunk.is_none() {
            self.first_key_in_chunk = Some(chunk_key());
            let fresh = match &self.prev {
                None => Chunk::by_size(self.chunk_byte_size, self.error_rate, self.max_fold),
                // Later chunks repeat the previous chunk's parameters (HBase's
                // createAnother); only a file's last chunk can have folded.
                Some(p) => p.clone(),
            };
            self.chunk = Some(fresh.another());
            self.num_chunks += 1;
        }
        if let Some(c) = self.chunk.as_mut() {
            c.add(hash_key);
        }
        self.total_key_count += 1;
    }

    /// The next chunk due to be written (HBase's `shouldWriteBlock` + `writeInlineBlock`):
    /// its first key and bit array.
    pub fn next_ready(&mut self, closing: bool) -> Option<(Vec<u8>, Vec<u8>)> {
        self.enqueue_ready(closing);
        self.ready.pop_front().map(|(k, c)| (k, c.bits))
    }

    /// Records where the chunk with `first_key` was written.
    pub fn chunk_written(&mut self, first_key: Vec<u8>, offset: u64, on_disk_size: u32) {
        self.index.push(IndexEntry {
            offset,
            on_disk_size,
            key: first_key,
        });
    }

    /// The meta block's payload (HBase's `MetaWriter.write`).
    pub fn meta_payload(&self) -> Vec<u8> {
        let hash_count = self.prev.as_ref().map_or(0, |c| c.hash_count);
        let mut out = Vec::new();
        out.extend_from_slice(&BLOOM_META_VERSION.to_be_bytes());
        out.extend_from_slice(&(self.total_byte_size as i64).to_be_bytes());
        out.extend_from_slice(&(hash_count as i32).to_be_bytes());
        out.extend_from_slice(&MURMUR_HASH.to_be_bytes());
        out.extend_from_slice(&(self.total_key_count as i64).to_be_bytes());
        out.extend_from_slice(&(self.total_max_keys as i64).to_be_bytes());
        out.extend_from_slice(&(self.num_chunks as i32).to_be_bytes());
        match self.comparator {
            Some(name) => {
                write_vlong(&mut out, name.len() as i64);
                out.extend_from_slice(name.as_bytes());
            }
            None => write_vlong(&mut out, 0),
        }
        out.extend_from_slice(&crate::index::encode_root(&self.index, None));
        out
    }
}

/// A compound Bloom filter's meta block, parsed (HBase's `CompoundBloomFilter` constructor).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BloomMeta {
    /// Σ chunk sizes in bytes.
    pub total_byte_size: i64,
    /// Hash functions per key.
    pub hash_count: i32,
    /// `Hash` type (1: Murmur).
    pub hash_type: i32,
    /// Keys added.
    pub total_key_count: i64,
    /// Σ chunk capacities.
    pub total_max_keys: i64,
    /// The comparator class name (empty: raw bytes).
    pub comparator: String,
    /// The chunks: offset, on-disk size and first key of each.
    pub chunks: Vec<IndexEntry>,
}

impl BloomMeta {
    /// Parses a meta block's payload of the file at `path`, the block at `offset`.
    pub fn parse(path: &std::path::Path, offset: u64, payload: &[u8]) -> Result<BloomMeta> {
        let bad = |at: usize, what: &str| {
            corrupt(
                path,
                offset,
                format!("Bloom meta: {what} at payload byte {at}"),
            )
        };
        let mut pos = 0usize;
        let mut take = |n: usize| -> Result<&[u8]> {
            let s = payload
                .get(pos..pos + n)
                .ok_or_else(|| bad(pos, "cut short"))?;
            pos += n;
            Ok(s)
        };
        let i32_at = |s: &[u8]| i32::from_be_bytes([s[0], s[1], s[2], s[3]]);
        let i64_at = |s: &[u8]| {
            let mut b = [0u8; 8];
            b.copy_from_slice(s);
            i64::from_be_bytes(b)
        };
        let version = i32_at(take(4)?);
        if version != BLOOM_META_VERSION {
            return Err(bad(0, &format!("format version {version}, expected 3")));
        }
        let total_byte_size = i64_at(take(8)?);
        let hash_count = i32_at(take(4)?);
        let hash_type = i32_at(take(4)?);
        let total_key_count = i64_at(take(8)?);
        let total_max_keys = i64_at(take(8)?);
        let num_chunks = i32_at(take(4)?);
        let rest = &payload[pos..];
        let (len, used) =
            crate::varint::read_vlong(rest).ok_or_else(|| bad(pos, "a bad comparator length"))?;
        let len = usize::try_from(len).map_err(|_| bad(pos, "a negative comparator length"))?;
        let name = rest
            .get(used..used + len)
            .ok_or_else(|| bad(pos, "the comparator name cut short"))?;
        let comparator = String::from_utf8_lossy(name).into_owned();
        let index_at = pos + used + len;
        let count = u32::try_from(num_chunks).map_err(|_| bad(pos, "a negative chunk count"))?;
        let (chunks, _) =
            crate::index::parse_root(path, offset, &payload[index_at..], count, false)?;
        if hash_count <= 0 || hash_type != MURMUR_HASH {
            return Err(bad(
                16,
                &format!("hash type {hash_type} with {hash_count} functions (only Murmur is read)"),
            ));
        }
        Ok(BloomMeta {
            total_byte_size,
            hash_count,
            hash_type,
            total_key_count,
            total_max_keys,
            comparator,
            chunks,
        })
    }

    /// The chunk that would hold `key` (the chunk index key order: raw bytes for ROW Blooms,
    /// cell keys for ROWCOL ones), as HBase's `rootBlockContainingKey`.
    pub fn chunk_index_for(&self, key: &[u8]) -> Option<usize> {
        let cell_keys = !self.comparator.is_empty();
        let at = self.chunks.partition_point(|e| {
            let ord = if cell_keys {
                crate::key::compare_encoded(&e.key, key)
            } else {
                e.key.as_slice().cmp(key)
            };
            ord != std::cmp::Ordering::Greater
        });
        at.checked_sub(1)
    }

    /// Whether the chunk `bits` may hold `hash_key` (HBase's `BloomFilterUtil.contains`).
    pub fn chunk_may_contain(&self, bits: &[u8], hash_key: &[u8]) -> bool {
        if bits.is_empty() {
            return false;
        }
        positions(hash_key, self.hash_count as u32, bits.len() as u64 * 8)
            .all(|pos| bits[(pos >> 3) as usize] & (1 << (pos & 7)) != 0)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// Values computed with HBase's MurmurHash (the Java code above, by hand for these
    /// inputs): the empty key, a whole word, and tails with the high bit set.
    #[test]
    fn murmur_matches_hbase_on_words_and_signed_tails() {
        // seed ^ len = 0, no words, no tail: only the final mix of 0.
        assert_eq!(murmur_hash(b"", 0), 0);
        // A textbook MurmurHash2 of a tail byte < 0x80 equals HBase's; ≥ 0x80 differs
        // (sign extension) — both orders of the check keep us honest.
        let textbook = |data: &[u8], seed: u32| -> u32 {
            const M: u32 = 0x5bd1_e995;
            let mut h = seed ^ data.len() as u32;
            let mut w = data.chunks_exact(4);
            for c in &mut w {
                let mut k = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
                k = k.wrapping_mul(M);
                k ^= k >> 24;
                k = k.wrapping_mul(M);
                h = h.wrapping_mul(M) ^ k;
            }
            let t = w.remainder();
            if t.len() >= 3 {
                h ^= u32::from(t[2]) << 16;
            }
            if t.len() >= 2 {
                h ^= u32::from(t[1]) << 8;
            }
            if !t.is_empty() {
                h ^= u32::from(t[0]);
                h = h.wrapping_mul(M);
            }
            h ^= h >> 13;
            h = h.wrapping_mul(M);
            h ^ (h >> 15)
        };
        for data in [&b"row1"[..], b"abcde", b"hello, world", b"\x01\x02\x03"] {
            assert_eq!(murmur_hash(data, 7) as u32, textbook(data, 7), "{data:?}");
        }
        assert_ne!(murmur_hash(b"abcd\xff", 0) as u32, textbook(b"abcd\xff", 0));
    }

    /// HBase's sizing at the defaults: a 128 KiB chunk takes 7 hash functions and about
    /// 109 thousand keys at 1% error.
    #[test]
    fn default_chunk_sizing() {
        let c = Chunk::by_size(
            DEFAULT_CHUNK_BYTE_SIZE,
            DEFAULT_ERROR_RATE,
            DEFAULT_MAX_FOLD,
        );
        assert_eq!(c.byte_size, 131_072);
        assert_eq!(c.hash_count, 7);
        assert!((109_000..110_000).contains(&c.max_keys), "{}", c.max_keys);
    }

    /// Written keys are found after folding, absent keys mostly are not, and a full chunk
    /// rolls into a second one with the same parameters.
    #[test]
    fn written_keys_are_found_and_chunks_fold() {
        let mut w = CompoundBloomWriter::new(None);
        let keys: Vec<Vec<u8>> = (0..1000)
            .map(|i| format!("row{i:05}").into_bytes())
            .collect();
        for k in &keys {
            w.append(k, || k.clone());
        }
        let (first, bits) = w.next_ready(true).unwrap();
        assert_eq!(first, b"row00000");
        // 1000 keys in a chunk built for ~109k: folded to the smallest size still ≥ 2×.
        assert!(bits.len() < 4096, "{}", bits.len());
        w.chunk_written(first, 0, bits.len() as u32 + 33);
        let meta_bytes = w.meta_payload();
        let meta = BloomMeta::parse(std::path::Path::new("f"), 0, &meta_bytes).unwrap();
        assert_eq!(meta.total_key_count, 1000);
        assert_eq!(meta.chunks.len(), 1);
        assert_eq!(meta.hash_count, 7);
        for k in &keys {
            assert!(meta.chunk_may_contain(&bits, k));
        }
        let false_positives = (0..10_000)
            .filter(|i| meta.chunk_may_contain(&bits, format!("absent{i}").as_bytes()))
            .count();
        assert!(false_positives < 400, "{false_positives} of 10000");
    }

    #[test]
    fn a_damaged_meta_is_an_error_naming_the_block() {
        let mut w = CompoundBloomWriter::new(None);
        w.append(b"r", || b"r".to_vec());
        let (k, bits) = w.next_ready(true).unwrap();
        w.chunk_written(k, 10, bits.len() as u32);
        let meta = w.meta_payload();
        for cut in [0, 3, 20, meta.len() - 1] {
            let e = BloomMeta::parse(std::path::Path::new("f"), 77, &meta[..cut]).unwrap_err();
            assert!(e.to_string().contains("offset 77"), "{e}");
        }
        let mut bad = meta.clone();
        bad[3] = 2;
        assert!(BloomMeta::parse(std::path::Path::new("f"), 77, &bad).is_err());
    }
}
