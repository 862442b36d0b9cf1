//! HBase's KeyValue key, the form of every key in an HFile (cells, index entries,
//! `hfile.LASTKEY`), and the order HBase's `CellComparatorImpl` gives keys.
//!
//! | field | size |
//! |---|---|
//! | row length | 2 (big-endian, ≤ 32767) |
//! | row | row length |
//! | family length | 1 (≤ 127) |
//! | family | family length |
//! | qualifier | the rest, less 9 |
//! | timestamp | 8 (big-endian, ms) |
//! | type | 1: Minimum 0, Put 4, Delete 8, DeleteFamilyVersion 10, DeleteColumn 12, DeleteFamily 14, Maximum 255 |

use std::cmp::Ordering;

use regionkv_cell::CellType;
use regionkv_cell::key::compare_bytes;

/// Bytes of a key that are not row, family or qualifier.
pub const KEY_INFRASTRUCTURE: usize = 2 + 1 + 8 + 1;

/// HBase's `KeyValue.Type.Minimum`: with an empty family and qualifier, the last key of a row.
pub const TYPE_MINIMUM: u8 = CellType::Minimum.code();
/// HBase's `KeyValue.Type.Maximum`: the type of the "fake" keys in an HFile's index.
pub const TYPE_MAXIMUM: u8 = CellType::Maximum.code();

/// A parsed key, borrowing its bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyRef<'a> {
    /// The row.
    pub row: &'a [u8],
    /// The column family.
    pub family: &'a [u8],
    /// The qualifier.
    pub qualifier: &'a [u8],
    /// The timestamp (ms).
    pub timestamp: i64,
    /// The type byte.
    pub type_byte: u8,
}

impl<'a> KeyRef<'a> {
    /// Parses `key` (exactly one key); `None` when the lengths do not fit.
    pub fn parse(key: &'a [u8]) -> Option<KeyRef<'a>> {
        if key.len() < KEY_INFRASTRUCTURE {
            return None;
        }
        let row_len = usize::from(u16::from_be_bytes([key[0], key[1]]));
        let row = key.get(2..2 + row_len)?;
        let family_len = usize::from(*key.get(2 + row_len)?);
        let family_start = 3 + row_len;
        let qualifier_start = family_start + family_len;
        let ts_start = key.len() - 9;
        if qualifier_start > ts_start {
            return None;
        }
        let mut ts = [0u8; 8];
        ts.copy_from_slice(&key[ts_start..ts_start + 8]);
        Some(KeyRef {
            row,
            family: &key[family_start..qualifier_start],
            qualifier: &key[qualifier_start..ts_start],
            timestamp: i64::from_be_bytes(ts),
            type_byte: key[key.len() - 1],
        })
    }

    /// The key type, if the type byte is one HBase defines.
    pub fn cell_type(&self) -> Option<CellType> {
        CellType::from_code(self.type_byte).ok()
    }

    /// HBase's "last on row" key: empty family and qualifier, type Minimum.
    fn is_last_on_row(&self) -> bool {
        self.family.is_empty() && self.qualifier.is_empty() && self.type_byte == TYPE_MINIMUM
    }

    /// Appends this key's bytes to `out`; `None` when the row or family is too long for the
    /// format.
    pub fn encode_into(&self, out: &mut Vec<u8>) -> Option<()> {
        let row_len = u16::try_from(self.row.len()).ok().filter(|l| *l <= 32767)?;
        let family_len = u8::try_from(self.family.len()).ok().filter(|l| *l <= 127)?;
        out.extend_from_slice(&row_len.to_be_bytes());
        out.extend_from_slice(self.row);
        out.push(family_len);
        out.extend_from_slice(self.family);
        out.extend_from_slice(self.qualifier);
        out.extend_from_slice(&self.timestamp.to_be_bytes());
        out.push(self.type_byte);
        Some(())
    }

    /// This key's bytes.
    pub fn to_vec(&self) -> Option<Vec<u8>> {
        let mut out = Vec::with_capacity(
            KEY_INFRASTRUCTURE + self.row.len() + self.family.len() + self.qualifier.len(),
        );
        self.encode_into(&mut out)?;
        Some(out)
    }
}

/// HBase's key order (`CellComparatorImpl.compare` without sequence ids): row; a
/// last-on-row key after every other key of its row; family; qualifier; timestamp
/// descending; type descending.
pub fn compare(a: &KeyRef<'_>, b: &KeyRef<'_>) -> Ordering {
    // `compare_bytes`: the parts are a few bytes each, where a `memcmp` call per part
    // cost more than the comparison (profiled in the export-hfiles check).
    compare_bytes(a.row, b.row).then_with(|| {
        if a.is_last_on_row() {
            return if b.is_last_on_row() {
                Ordering::Equal
            } else {
                Ordering::Greater
            };
        }
        if b.is_last_on_row() {
            return Ordering::Less;
        }
        compare_bytes(a.family, b.family)
            .then_with(|| compare_bytes(a.qualifier, b.qualifier))
            .then_with(|| b.timestamp.cmp(&a.timestamp))
            .then_with(|| b.type_byte.cmp(&a.type_byte))
    })
}

/// [`compare`] of two encoded keys; a key that does not parse sorts by its bytes after
/// every key that does (a reader reports such keys as corruption before comparing).
pub fn compare_encoded(a: &[u8], b: &[u8]) -> Ordering {
    match (KeyRef::parse(a), KeyRef::parse(b)) {
        (Some(x), Some(y)) => compare(&x, &y),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => a.cmp(b),
    }
}

/// HBase's `Bytes.toStringBinary` of a key, as `HFilePrettyPrinter` prints keys:
/// `row/family:qualifier/timestamp/Type/vlen=..` without the value part.
pub fn key_to_string(key: &[u8]) -> String {
    use regionkv_cell::bytes::to_string_binary;
    match KeyRef::parse(key) {
        Some(k) => format!(
            "{}/{}:{}/{}/{}",
            to_string_binary(k.row),
            to_string_binary(k.family),
            to_string_binary(k.qualifier),
            k.timestamp,
            type_name(k.type_byte)
        ),
        None => to_string_binary(key),
    }
}

/// HBase's name of a key type byte (`KeyValue.Type`), or the number.
pub fn type_name(type_byte: u8) -> String {
    match CellType::from_code(type_byte) {
        Ok(t) => t.name().to_string(),
        Err(_) => format!("UNKNOWN({type_byte})"),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn key(row: &[u8], family: &[u8], qualifier: &[u8], ts: i64, t: u8) -> Vec<u8> {
        KeyRef {
            row,
            family,
            qualifier,
            timestamp: ts,
            type_byte: t,
        }
        .to_vec()
        .unwrap()
    }

    #[test]
    fn parses_the_fixture_s_first_key() {
        // The first cell key of the HBase-written fixtures: row hudi-key-000000000, no
        // family, no qualifier, Long.MAX_VALUE, Put.
        let mut bytes = vec![0x00, 0x12];
        bytes.extend_from_slice(b"hudi-key-000000000");
        bytes.push(0);
        bytes.extend_from_slice(&i64::MAX.to_be_bytes());
        bytes.push(4);
        let k = KeyRef::parse(&bytes).unwrap();
        assert_eq!(k.row, b"hudi-key-000000000");
        assert!(k.family.is_empty() && k.qualifier.is_empty());
        assert_eq!(
            (k.timestamp, k.cell_type()),
            (i64::MAX, Some(CellType::Put))
        );
        assert_eq!(k.to_vec().unwrap(), bytes);
        assert_eq!(
            key_to_string(&bytes),
            "hudi-key-000000000/:/9223372036854775807/Put"
        );
    }

    #[test]
    fn order_is_hbase_s() {
        let sorted = [
            key(b"a", b"", b"", i64::MAX, TYPE_MAXIMUM), // a fake index key: first of row a
            key(b"a", b"f", b"q", 5, 4),
            key(b"a", b"f", b"q", 3, 14),
            key(b"a", b"f", b"q", 3, 4),
            key(b"a", b"f", b"r", 9, 4),
            key(b"a", b"g", b"", 1, 4),
            key(b"a", b"", b"", 0, TYPE_MINIMUM), // last on row a
            key(b"ab", b"f", b"q", 1, 4),
        ];
        for (i, x) in sorted.iter().enumerate() {
            for (j, y) in sorted.iter().enumerate() {
                assert_eq!(compare_encoded(x, y), i.cmp(&j), "{i} vs {j}");
            }
        }
    }

    #[test]
    fn bad_lengths_do_not_parse() {
        assert!(KeyRef::parse(&[0, 5, b'a']).is_none());
        let mut k = key(b"row", b"fam", b"", 1, 4);
        k[5] = 200; // family length past the end
        assert!(KeyRef::parse(&k).is_none());
    }
}
