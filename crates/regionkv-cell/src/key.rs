//! The internal key encoding and its comparator (specified in `docs/key-format.md`).
//!
//! One encoding serves the memstore, storefile blocks, the block index and the WAL:
//!
//! ```text
//! row_len:u16 | row | fam_len:u8 | family | qualifier | ts^0x7FFF..:u64 | 255-type:u8 | !seq:u64
//! ```
//!
//! Invariants:
//! 1. Every key built by [`encode_key_into`] or accepted by [`KeyView::parse`] has
//!    `row_len ≤ 32767`, `fam_len ≤ 127`, a known type code, and
//!    `len = 20 + row_len + fam_len + qual_len`.
//! 2. [`compare_keys`] on two valid keys gives HBase's `CellComparatorImpl` order (plus the
//!    sequence id, descending, as the final tie break).
//! 3. The comparator never allocates and never panics, even on malformed input.

use crate::cell_type::CellType;
use crate::error::{Error, Result};
use std::cmp::Ordering;

/// Maximum row length in bytes (HBase: `Short.MAX_VALUE`).
pub const MAX_ROW_LEN: usize = i16::MAX as usize;
/// Maximum family name length in bytes (HBase: `Byte.MAX_VALUE`).
pub const MAX_FAMILY_LEN: usize = i8::MAX as usize;
/// Bytes of the fixed trailer: timestamp (8), type (1), sequence id (8).
pub const TRAILER_LEN: usize = 17;
/// Bytes every key carries besides row, family and qualifier.
pub const KEY_OVERHEAD: usize = 2 + 1 + TRAILER_LEN;

/// HBase's `LATEST_TIMESTAMP`: "now" placeholder, and the newest possible timestamp.
pub const LATEST_TIMESTAMP: i64 = i64::MAX;
/// HBase's `OLDEST_TIMESTAMP`.
pub const OLDEST_TIMESTAMP: i64 = i64::MIN;

/// XOR that maps i64 order onto descending u64 byte order (sign flip, then invert).
const TS_XOR: u64 = 0x7FFF_FFFF_FFFF_FFFF;

/// Encodes a timestamp so that ascending big-endian bytes mean descending timestamps.
#[inline]
pub const fn encode_timestamp(ts: i64) -> u64 {
    (ts as u64) ^ TS_XOR
}

/// Inverse of [`encode_timestamp`].
#[inline]
pub const fn decode_timestamp(encoded: u64) -> i64 {
    (encoded ^ TS_XOR) as i64
}

/// Length of the encoded key for the given coordinate lengths.
#[inline]
pub const fn encoded_key_len(row_len: usize, family_len: usize, qualifier_len: usize) -> usize {
    KEY_OVERHEAD + row_len + family_len + qualifier_len
}

/// Checks the structural limits of a key's coordinates.
pub fn check_key_lengths(row: &[u8], family: &[u8]) -> Result<()> {
    if row.len() > MAX_ROW_LEN {
        return Err(Error::RowTooLong {
            len: row.len(),
            max: MAX_ROW_LEN,
        });
    }
    if family.len() > MAX_FAMILY_LEN {
        return Err(Error::FamilyTooLong {
            len: family.len(),
            max: MAX_FAMILY_LEN,
        });
    }
    Ok(())
}

/// Appends the encoded key of the given coordinates to `out`.
///
/// Fails only when the row or family is longer than HBase allows.
pub fn encode_key_into(
    out: &mut Vec<u8>,
    row: &[u8],
    family: &[u8],
    qualifier: &[u8],
    timestamp: i64,
    cell_type: CellType,
    seq_id: u64,
) -> Result<()> {
    check_key_lengths(row, family)?;
    out.reserve(encoded_key_len(row.len(), family.len(), qualifier.len()));
    // Lengths were checked above, so these narrowing casts are exact.
    out.extend_from_slice(&(row.len() as u16).to_be_bytes());
    out.extend_from_slice(row);
    out.push(family.len() as u8);
    out.extend_from_slice(family);
    out.extend_from_slice(qualifier);
    out.extend_from_slice(&encode_timestamp(timestamp).to_be_bytes());
    out.push(255 - cell_type.code());
    out.extend_from_slice(&(!seq_id).to_be_bytes());
    Ok(())
}

/// Returns the encoded key of the given coordinates.
pub fn encode_key(
    row: &[u8],
    family: &[u8],
    qualifier: &[u8],
    timestamp: i64,
    cell_type: CellType,
    seq_id: u64,
) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    encode_key_into(
        &mut out, row, family, qualifier, timestamp, cell_type, seq_id,
    )?;
    Ok(out)
}

/// A key split into (row, family, qualifier, 17-byte trailer).
type KeyParts<'a> = (&'a [u8], &'a [u8], &'a [u8], &'a [u8]);

/// Splits a key into its parts without validating the type code.
/// `None` when a length field points outside the key.
#[inline]
fn split_key(key: &[u8]) -> Option<KeyParts<'_>> {
    let len = key.len();
    if len < KEY_OVERHEAD {
        return None;
    }
    let row_len = u16::from_be_bytes([key[0], key[1]]) as usize;
    let fam_len_at = 2 + row_len;
    let fam_len = *key.get(fam_len_at)? as usize;
    let qual_start = fam_len_at + 1 + fam_len;
    let trailer_start = len - TRAILER_LEN;
    if qual_start > trailer_start {
        return None;
    }
    Some((
        &key[2..fam_len_at],
        &key[fam_len_at + 1..qual_start],
        &key[qual_start..trailer_start],
        &key[trailer_start..],
    ))
}

/// The row of an encoded key, read from its length prefix alone (scanners use it on keys
/// they validated when they reached them, to test row boundaries without a full parse);
/// `None` when the prefix points past the end of `key`.
#[inline]
pub fn key_row(key: &[u8]) -> Option<&[u8]> {
    let len = u16::from_be_bytes([*key.first()?, *key.get(1)?]) as usize;
    key.get(2..2 + len)
}

/// The trailer byte of the type code `Minimum` (`255 − 0`).
const MINIMUM_TYPE_BYTE: u8 = 255;

/// True when the split key is HBase's "last on row" seek key.
#[inline]
fn is_last_on_row_parts(family: &[u8], qualifier: &[u8], trailer: &[u8]) -> bool {
    family.is_empty() && qualifier.is_empty() && trailer.get(8) == Some(&MINIMUM_TYPE_BYTE)
}

/// Compares two encoded keys in HBase's cell order.
///
/// Rows ascending; then a key with no column and type Minimum ("last on row") after every
/// other key of its row; then families, qualifiers ascending; then timestamp descending,
/// type code descending, sequence id descending. Never allocates; on a malformed key falls
/// back to comparing raw bytes (malformed keys are rejected where they enter the engine).
#[inline]
pub fn compare_keys(a: &[u8], b: &[u8]) -> Ordering {
    let (Some(pa), Some(pb)) = (split_key(a), split_key(b)) else {
        return a.cmp(b);
    };
    compare_split(pa, pb)
}

/// `a == b` for byte strings, inline for short ones like [`compare_bytes`]: equality
/// tests of rows and qualifiers on the scan path each called `memcmp`, which showed as a
/// sixth of a full-table scan's thread in the export-hfiles profile.
#[inline]
pub fn equal_bytes(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && compare_bytes(a, b) == Ordering::Equal
}

/// Compares two byte strings lexicographically (unsigned bytes, a prefix first), like
/// `a.cmp(b)`, without a call to `memcmp` for short ones.
///
/// Why: keys are compared part by part (row, family, qualifier, trailer), each part a few
/// bytes, and `<[u8]>::cmp` calls libc's `memcmp` for every part. Measured in the point
/// read profile (docs/benchmarks.md, fifth pass), those calls cost far more than their
/// length suggests; eight bytes at a time as big-endian words, inline, does the same work
/// in a few instructions. Long strings still go to `memcmp`, which wins there.
#[inline]
pub fn compare_bytes(a: &[u8], b: &[u8]) -> Ordering {
    const INLINE_UP_TO: usize = 32;
    let n = a.len().min(b.len());
    if n > INLINE_UP_TO {
        return a.cmp(b);
    }
    let (mut wa, mut wb) = (a.chunks_exact(8), b.chunks_exact(8));
    for (x, y) in (&mut wa).zip(&mut wb) {
        // `chunks_exact(8)` yields 8-byte chunks, so the conversions cannot fail.
        let x = u64::from_be_bytes(x.try_into().unwrap_or([0; 8]));
        let y = u64::from_be_bytes(y.try_into().unwrap_or([0; 8]));
        if x != y {
            return x.cmp(&y);
        }
    }
    // Fewer than 8 bytes left in the shorter string (the longer one's remainder may hold
    // more: only the common length is compared before the lengths decide).
    let done = n - n % 8;
    let (ra, rb) = (
        a.get(done..n).unwrap_or_default(),
        b.get(done..n).unwrap_or_default(),
    );
    for (x, y) in ra.iter().zip(rb) {
        if x != y {
            return x.cmp(y);
        }
    }
    a.len().cmp(&b.len())
}

#[inline]
fn compare_split((ar, af, aq, at): KeyParts<'_>, (br, bf, bq, bt): KeyParts<'_>) -> Ordering {
    let rows = compare_bytes(ar, br);
    if rows != Ordering::Equal {
        return rows;
    }
    let a_last = is_last_on_row_parts(af, aq, at);
    let b_last = is_last_on_row_parts(bf, bq, bt);
    if a_last != b_last {
        return if a_last {
            Ordering::Greater
        } else {
            Ordering::Less
        };
    }
    compare_bytes(af, bf)
        .then_with(|| compare_bytes(aq, bq))
        .then_with(|| compare_bytes(at, bt))
}

/// Compares only the row of two encoded keys (malformed keys compare as raw bytes).
#[inline]
pub fn compare_rows(a: &[u8], b: &[u8]) -> Ordering {
    match (split_key(a), split_key(b)) {
        (Some(pa), Some(pb)) => compare_bytes(pa.0, pb.0),
        _ => a.cmp(b),
    }
}

/// A validated, borrowed view of an encoded key.
///
/// Invariant: `bytes` satisfies the module invariant 1 and `qual_start` is the offset of
/// the qualifier, so every accessor slices within bounds.
#[derive(Clone, Copy)]
pub struct KeyView<'a> {
    bytes: &'a [u8],
    qual_start: usize,
}

impl<'a> KeyView<'a> {
    /// Validates `bytes` as an encoded key.
    pub fn parse(bytes: &'a [u8]) -> Result<Self> {
        let Some((row, family, _, trailer)) = split_key(bytes) else {
            let reason = if bytes.len() < KEY_OVERHEAD {
                "shorter than the 20-byte minimum"
            } else {
                "row or family length points past the end of the key"
            };
            return Err(Error::MalformedKey {
                len: bytes.len(),
                reason,
            });
        };
        if row.len() > MAX_ROW_LEN {
            return Err(Error::MalformedKey {
                len: bytes.len(),
                reason: "row length exceeds 32767",
            });
        }
        if family.len() > MAX_FAMILY_LEN {
            return Err(Error::MalformedKey {
                len: bytes.len(),
                reason: "family length exceeds 127",
            });
        }
        CellType::from_code(255 - trailer[8]).map_err(|_| Error::MalformedKey {
            len: bytes.len(),
            reason: "unknown type code",
        })?;
        Ok(Self {
            bytes,
            qual_start: 3 + row.len() + family.len(),
        })
    }

    /// A view of bytes this crate encoded or already validated.
    ///
    /// REQUIRES: `bytes` satisfies module invariant 1; indexing below relies on it.
    #[inline]
    pub(crate) fn from_trusted(bytes: &'a [u8]) -> Self {
        let row_len = u16::from_be_bytes([bytes[0], bytes[1]]) as usize;
        let fam_len = bytes[2 + row_len] as usize;
        Self {
            bytes,
            qual_start: 3 + row_len + fam_len,
        }
    }

    /// The encoded bytes.
    #[inline]
    pub fn as_bytes(&self) -> &'a [u8] {
        self.bytes
    }

    #[inline]
    fn row_len(&self) -> usize {
        u16::from_be_bytes([self.bytes[0], self.bytes[1]]) as usize
    }

    #[inline]
    fn trailer_start(&self) -> usize {
        self.bytes.len() - TRAILER_LEN
    }

    /// The row.
    #[inline]
    pub fn row(&self) -> &'a [u8] {
        &self.bytes[2..2 + self.row_len()]
    }

    /// The family.
    #[inline]
    pub fn family(&self) -> &'a [u8] {
        &self.bytes[3 + self.row_len()..self.qual_start]
    }

    /// The qualifier.
    #[inline]
    pub fn qualifier(&self) -> &'a [u8] {
        &self.bytes[self.qual_start..self.trailer_start()]
    }

    /// The 17-byte trailer: encoded timestamp, type and sequence id.
    #[inline]
    fn trailer(&self) -> &'a [u8] {
        &self.bytes[self.trailer_start()..]
    }

    /// The timestamp in milliseconds.
    #[inline]
    pub fn timestamp(&self) -> i64 {
        let t = self.trailer();
        decode_timestamp(u64::from_be_bytes([
            t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7],
        ]))
    }

    /// The cell type.
    #[inline]
    pub fn cell_type(&self) -> CellType {
        // `parse` checked the code, so the fallback is unreachable.
        CellType::from_code(255 - self.trailer()[8]).unwrap_or(CellType::Minimum)
    }

    /// The sequence id (write order).
    #[inline]
    pub fn seq_id(&self) -> u64 {
        let t = self.trailer();
        !u64::from_be_bytes([t[9], t[10], t[11], t[12], t[13], t[14], t[15], t[16]])
    }

    /// True for HBase's "last on row" seek key (no column, type Minimum).
    #[inline]
    pub fn is_last_on_row(&self) -> bool {
        is_last_on_row_parts(self.family(), self.qualifier(), self.trailer())
    }

    /// The key bytes without the 8-byte sequence id: equal for two writes of the same
    /// coordinates, timestamp and type.
    #[inline]
    pub fn without_seq_id(&self) -> &'a [u8] {
        &self.bytes[..self.bytes.len() - 8]
    }

    /// True when both keys name the same row.
    #[inline]
    pub fn same_row(&self, other: &KeyView<'_>) -> bool {
        self.row() == other.row()
    }

    /// True when both keys name the same row, family and qualifier.
    #[inline]
    pub fn same_column(&self, other: &KeyView<'_>) -> bool {
        self.row() == other.row()
            && self.family() == other.family()
            && self.qualifier() == other.qualifier()
    }
}

impl PartialEq for KeyView<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.bytes == other.bytes
    }
}

impl Eq for KeyView<'_> {}

impl PartialOrd for KeyView<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for KeyView<'_> {
    fn cmp(&self, other: &Self) -> Ordering {
        compare_keys(self.bytes, other.bytes)
    }
}

impl std::fmt::Debug for KeyView<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}/{}:{}/{}/{}/seqid={}",
            crate::bytes::to_string_binary(self.row()),
            crate::bytes::to_string_binary(self.family()),
            crate::bytes::to_string_binary(self.qualifier()),
            self.timestamp(),
            self.cell_type(),
            self.seq_id()
        )
    }
}

/// An owned encoded key ordered by [`compare_keys`]: the element type for ordered
/// containers (skiplists, B-trees, heaps) keyed by cells.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct OwnedKey(Vec<u8>);

impl OwnedKey {
    /// Wraps validated key bytes.
    pub fn from_bytes(bytes: Vec<u8>) -> Result<Self> {
        KeyView::parse(&bytes)?;
        Ok(Self(bytes))
    }

    /// The view of this key.
    #[inline]
    pub fn view(&self) -> KeyView<'_> {
        // Invariant: constructed only from validated or encoded bytes.
        KeyView::from_trusted(&self.0)
    }

    /// The encoded bytes.
    #[inline]
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }

    /// Takes the encoded bytes.
    pub fn into_bytes(self) -> Vec<u8> {
        self.0
    }

    /// Seek key before every cell of `row`.
    pub fn first_on_row(row: &[u8]) -> Result<Self> {
        Ok(Self(encode_key(
            row,
            b"",
            b"",
            LATEST_TIMESTAMP,
            CellType::Maximum,
            u64::MAX,
        )?))
    }

    /// Seek key after every cell of `row`.
    pub fn last_on_row(row: &[u8]) -> Result<Self> {
        Ok(Self(encode_key(
            row,
            b"",
            b"",
            OLDEST_TIMESTAMP,
            CellType::Minimum,
            0,
        )?))
    }

    /// Seek key before every version of one column.
    pub fn first_on_column(row: &[u8], family: &[u8], qualifier: &[u8]) -> Result<Self> {
        Ok(Self(encode_key(
            row,
            family,
            qualifier,
            LATEST_TIMESTAMP,
            CellType::Maximum,
            u64::MAX,
        )?))
    }

    /// Seek key after every version of one column.
    pub fn last_on_column(row: &[u8], family: &[u8], qualifier: &[u8]) -> Result<Self> {
        Ok(Self(encode_key(
            row,
            family,
            qualifier,
            OLDEST_TIMESTAMP,
            CellType::Minimum,
            0,
        )?))
    }

    /// Seek key before every cell of one column at or older than `timestamp`.
    pub fn first_on_column_at(
        row: &[u8],
        family: &[u8],
        qualifier: &[u8],
        timestamp: i64,
    ) -> Result<Self> {
        Ok(Self(encode_key(
            row,
            family,
            qualifier,
            timestamp,
            CellType::Maximum,
            u64::MAX,
        )?))
    }
}

impl PartialOrd for OwnedKey {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for OwnedKey {
    fn cmp(&self, other: &Self) -> Ordering {
        compare_keys(&self.0, &other.0)
    }
}

impl std::fmt::Debug for OwnedKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.view().fmt(f)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn k(row: &[u8], fam: &[u8], qual: &[u8], ts: i64, t: CellType, seq: u64) -> Vec<u8> {
        encode_key(row, fam, qual, ts, t, seq).unwrap()
    }

    fn put(row: &[u8], qual: &[u8], ts: i64) -> Vec<u8> {
        k(row, b"f", qual, ts, CellType::Put, 1)
    }

    #[test]
    fn layout_matches_the_documented_table() {
        let key = k(b"r1", b"cf", b"q", 5, CellType::Put, 7);
        assert_eq!(key.len(), encoded_key_len(2, 2, 1));
        assert_eq!(&key[0..2], &[0, 2]);
        assert_eq!(&key[2..4], b"r1");
        assert_eq!(key[4], 2);
        assert_eq!(&key[5..7], b"cf");
        assert_eq!(&key[7..8], b"q");
        assert_eq!(&key[8..16], &(5u64 ^ 0x7FFF_FFFF_FFFF_FFFF).to_be_bytes());
        assert_eq!(key[16], 255 - 4);
        assert_eq!(&key[17..25], &(!7u64).to_be_bytes());
        assert_eq!(KEY_OVERHEAD, 20);
    }

    #[test]
    fn key_row_reads_the_length_prefix_and_rejects_short_keys() {
        assert_eq!(key_row(&put(b"row1", b"q", 1)), Some(&b"row1"[..]));
        assert_eq!(key_row(&put(b"", b"q", 1)), Some(&b""[..]));
        assert_eq!(key_row(&[0, 5, b'a', b'b']), None);
        assert_eq!(key_row(&[0]), None);
        assert_eq!(key_row(&[]), None);
    }

    #[test]
    fn rows_compare_as_unsigned_bytes_with_prefix_first() {
        // HBase's documented examples: "row1" < "row10" < "row1a" < "row2", 'R' < 'r'.
        let rows: [&[u8]; 6] = [b"R", b"r", b"row1", b"row10", b"row1a", b"row2"];
        for w in rows.windows(2) {
            assert_eq!(
                compare_keys(&put(w[0], b"q", 1), &put(w[1], b"q", 1)),
                Ordering::Less
            );
        }
        // 0x80 is larger than 0x7f as unsigned, smaller as signed.
        assert_eq!(
            compare_keys(&put(&[0x7f], b"q", 1), &put(&[0x80], b"q", 1)),
            Ordering::Less
        );
        assert_eq!(
            compare_keys(&put(&[0xff], b"q", 1), &put(&[0x00, 0x00], b"q", 1)),
            Ordering::Greater
        );
        // Empty row sorts first.
        assert_eq!(
            compare_keys(&put(b"", b"q", 1), &put(&[0x00], b"q", 1)),
            Ordering::Less
        );
    }

    #[test]
    fn family_then_qualifier_then_timestamp_descending() {
        let a = k(b"r", b"a", b"zz", 1, CellType::Put, 1);
        let b = k(b"r", b"b", b"", 1, CellType::Put, 1);
        assert_eq!(
            compare_keys(&a, &b),
            Ordering::Less,
            "family before qualifier"
        );
        // Family "f"+qualifier "oo" must not equal family "fo"+qualifier "o".
        let c = k(b"r", b"f", b"oo", 1, CellType::Put, 1);
        let d = k(b"r", b"fo", b"o", 1, CellType::Put, 1);
        assert_eq!(compare_keys(&c, &d), Ordering::Less);
        // Empty qualifier (family markers) sorts before any column.
        let e = k(b"r", b"f", b"", 1, CellType::DeleteFamily, 1);
        assert_eq!(compare_keys(&e, &put(b"r", b"\x00", 100)), Ordering::Less);
        // Newer timestamp first.
        assert_eq!(
            compare_keys(&put(b"r", b"q", 10), &put(b"r", b"q", 9)),
            Ordering::Less
        );
        assert_eq!(
            compare_keys(&put(b"r", b"q", i64::MAX), &put(b"r", b"q", 0)),
            Ordering::Less
        );
        assert_eq!(
            compare_keys(&put(b"r", b"q", 0), &put(b"r", b"q", -1)),
            Ordering::Less
        );
        assert_eq!(
            compare_keys(&put(b"r", b"q", -1), &put(b"r", b"q", i64::MIN)),
            Ordering::Less
        );
    }

    #[test]
    fn type_code_descending_breaks_timestamp_ties() {
        let order = [
            CellType::Maximum,
            CellType::DeleteFamily,
            CellType::DeleteColumn,
            CellType::DeleteFamilyVersion,
            CellType::Delete,
            CellType::Put,
            CellType::Minimum,
        ];
        for w in order.windows(2) {
            let a = k(b"r", b"f", b"q", 5, w[0], 1);
            let b = k(b"r", b"f", b"q", 5, w[1], 1);
            assert_eq!(
                compare_keys(&a, &b),
                Ordering::Less,
                "{:?} vs {:?}",
                w[0],
                w[1]
            );
        }
        // A delete at the same timestamp meets the reader before the put it covers, even
        // when the put has the larger sequence id.
        let del = k(b"r", b"f", b"q", 5, CellType::Delete, 1);
        let p = k(b"r", b"f", b"q", 5, CellType::Put, 99);
        assert_eq!(compare_keys(&del, &p), Ordering::Less);
    }

    #[test]
    fn sequence_id_descending_breaks_full_ties() {
        let newer = k(b"r", b"f", b"q", 5, CellType::Put, 10);
        let older = k(b"r", b"f", b"q", 5, CellType::Put, 9);
        assert_eq!(compare_keys(&newer, &older), Ordering::Less);
        assert_eq!(compare_keys(&newer, &newer), Ordering::Equal);
        let max = k(b"r", b"f", b"q", 5, CellType::Put, u64::MAX);
        let zero = k(b"r", b"f", b"q", 5, CellType::Put, 0);
        assert_eq!(compare_keys(&max, &zero), Ordering::Less);
    }

    #[test]
    fn seek_keys_bracket_their_row_and_column() {
        let cells = [
            k(b"r", b"a", b"", 7, CellType::DeleteFamily, 3),
            put(b"r", b"", 1),
            put(b"r", b"q", i64::MAX),
            put(b"r", b"q", i64::MIN),
            k(b"r", b"zzz", b"\xff\xff", i64::MIN, CellType::Minimum, 0),
        ];
        let first = OwnedKey::first_on_row(b"r").unwrap();
        let last = OwnedKey::last_on_row(b"r").unwrap();
        for c in &cells {
            assert_eq!(compare_keys(first.as_bytes(), c), Ordering::Less);
            assert_eq!(compare_keys(last.as_bytes(), c), Ordering::Greater);
        }
        assert_eq!(
            compare_keys(last.as_bytes(), &put(b"r\x00", b"", 1)),
            Ordering::Less
        );
        assert_eq!(
            compare_keys(first.as_bytes(), &put(b"q\xff", b"q", 1)),
            Ordering::Greater
        );
        assert!(last.view().is_last_on_row());
        assert!(!first.view().is_last_on_row());
        let fc = OwnedKey::first_on_column(b"r", b"f", b"q").unwrap();
        let lc = OwnedKey::last_on_column(b"r", b"f", b"q").unwrap();
        for ts in [i64::MAX, 0, i64::MIN] {
            for t in [CellType::Put, CellType::DeleteColumn] {
                let c = k(b"r", b"f", b"q", ts, t, 5);
                assert!(compare_keys(fc.as_bytes(), &c).is_lt());
                assert!(compare_keys(lc.as_bytes(), &c).is_gt());
            }
        }
        assert!(compare_keys(lc.as_bytes(), &put(b"r", b"q\x00", i64::MAX)).is_lt());
    }

    #[test]
    fn accessors_round_trip() {
        let key = k(b"row", b"fam", b"qual", -42, CellType::DeleteColumn, 123);
        let v = KeyView::parse(&key).unwrap();
        assert_eq!(v.row(), b"row");
        assert_eq!(v.family(), b"fam");
        assert_eq!(v.qualifier(), b"qual");
        assert_eq!(v.timestamp(), -42);
        assert_eq!(v.cell_type(), CellType::DeleteColumn);
        assert_eq!(v.seq_id(), 123);
        assert_eq!(format!("{v:?}"), "row/fam:qual/-42/DeleteColumn/seqid=123");
    }

    #[test]
    fn limits_are_enforced() {
        assert!(encode_key(&[0; MAX_ROW_LEN], b"f", b"", 0, CellType::Put, 0).is_ok());
        assert_eq!(
            encode_key(&[0; MAX_ROW_LEN + 1], b"f", b"", 0, CellType::Put, 0),
            Err(Error::RowTooLong {
                len: 32768,
                max: 32767
            })
        );
        assert!(encode_key(b"r", &[b'f'; 127], b"", 0, CellType::Put, 0).is_ok());
        assert!(matches!(
            encode_key(b"r", &[b'f'; 128], b"", 0, CellType::Put, 0),
            Err(Error::FamilyTooLong { len: 128, .. })
        ));
    }

    #[test]
    fn malformed_keys_are_rejected_and_never_panic_the_comparator() {
        assert!(KeyView::parse(&[]).is_err());
        assert!(KeyView::parse(&[0; 19]).is_err());
        let mut bad = k(b"r", b"f", b"q", 1, CellType::Put, 1);
        bad[1] = 200; // row length past the end
        assert!(matches!(
            KeyView::parse(&bad),
            Err(Error::MalformedKey { .. })
        ));
        let _ = compare_keys(&bad, &put(b"r", b"q", 1));
        let mut bad_type = k(b"r", b"f", b"q", 1, CellType::Put, 1);
        let n = bad_type.len();
        bad_type[n - 9] = 255 - 7;
        assert!(KeyView::parse(&bad_type).is_err());
        assert!(OwnedKey::from_bytes(bad_type).is_err());
    }

    mod props {
        use super::*;
        use proptest::prelude::*;
        use std::cmp::Reverse;

        fn cell_type() -> impl Strategy<Value = CellType> {
            prop_oneof![
                Just(CellType::Minimum),
                Just(CellType::Put),
                Just(CellType::Delete),
                Just(CellType::DeleteFamilyVersion),
                Just(CellType::DeleteColumn),
                Just(CellType::DeleteFamily),
                Just(CellType::Maximum),
            ]
        }

        type Coords = (Vec<u8>, Vec<u8>, Vec<u8>, i64, CellType, u64);

        /// Small alphabets so that ties on every field are frequent.
        fn coords() -> impl Strategy<Value = Coords> {
            let bytes = |n| {
                proptest::collection::vec(
                    prop_oneof![Just(0u8), Just(1), Just(0x7f), Just(0x80), Just(0xff)],
                    0..n,
                )
            };
            (
                bytes(4),
                bytes(3),
                bytes(3),
                prop_oneof![
                    Just(i64::MIN),
                    Just(-1i64),
                    Just(0),
                    Just(1),
                    Just(i64::MAX),
                    any::<i64>()
                ],
                cell_type(),
                prop_oneof![Just(0u64), Just(1), Just(u64::MAX), any::<u64>()],
            )
        }

        /// The order spelled out field by field, as HBase's comparator states it.
        fn reference_cmp(a: &Coords, b: &Coords) -> Ordering {
            let last = |c: &Coords| c.1.is_empty() && c.2.is_empty() && c.4 == CellType::Minimum;
            a.0.cmp(&b.0)
                .then_with(|| last(a).cmp(&last(b)))
                .then_with(|| {
                    (&a.1, &a.2, Reverse(a.3), Reverse(a.4.code()), Reverse(a.5)).cmp(&(
                        &b.1,
                        &b.2,
                        Reverse(b.3),
                        Reverse(b.4.code()),
                        Reverse(b.5),
                    ))
                })
        }

        /// Byte strings that often share long prefixes and differ in one byte, around the
        /// 8-byte word and the inline-length boundaries.
        fn near_pair() -> impl Strategy<Value = (Vec<u8>, Vec<u8>)> {
            let byte = prop_oneof![Just(0u8), Just(1), Just(0x7f), Just(0x80), Just(0xff)];
            (
                proptest::collection::vec(byte.clone(), 0..48),
                proptest::collection::vec(byte.clone(), 0..12),
                proptest::collection::vec(byte, 0..12),
            )
                .prop_map(|(common, x, y)| {
                    let mut a = common.clone();
                    a.extend(x);
                    let mut b = common;
                    b.extend(y);
                    (a, b)
                })
        }

        proptest! {
            #[test]
            fn compare_bytes_is_slice_order((a, b) in near_pair()) {
                prop_assert_eq!(compare_bytes(&a, &b), a.cmp(&b));
                prop_assert_eq!(compare_bytes(&b, &a), b.cmp(&a));
                prop_assert_eq!(compare_bytes(&a, &a), Ordering::Equal);
                prop_assert_eq!(equal_bytes(&a, &b), a == b);
                prop_assert!(equal_bytes(&a, &a.clone()));
            }

            #[test]
            fn encoding_round_trips(c in coords()) {
                let key = encode_key(&c.0, &c.1, &c.2, c.3, c.4, c.5).unwrap();
                prop_assert_eq!(key.len(), encoded_key_len(c.0.len(), c.1.len(), c.2.len()));
                let v = KeyView::parse(&key).unwrap();
                prop_assert_eq!(v.row(), &c.0[..]);
                prop_assert_eq!(v.family(), &c.1[..]);
                prop_assert_eq!(v.qualifier(), &c.2[..]);
                prop_assert_eq!(v.timestamp(), c.3);
                prop_assert_eq!(v.cell_type(), c.4);
                prop_assert_eq!(v.seq_id(), c.5);
            }

            #[test]
            fn comparator_matches_the_reference_order(a in coords(), b in coords()) {
                let ka = encode_key(&a.0, &a.1, &a.2, a.3, a.4, a.5).unwrap();
                let kb = encode_key(&b.0, &b.1, &b.2, b.3, b.4, b.5).unwrap();
                prop_assert_eq!(compare_keys(&ka, &kb), reference_cmp(&a, &b));
                prop_assert_eq!(compare_keys(&kb, &ka), reference_cmp(&b, &a));
            }

            #[test]
            fn comparator_never_panics_on_garbage(
                a in proptest::collection::vec(any::<u8>(), 0..40),
                b in proptest::collection::vec(any::<u8>(), 0..40),
            ) {
                let _ = compare_keys(&a, &b);
                let _ = compare_rows(&a, &b);
                let _ = KeyView::parse(&a);
            }
        }
    }
}
