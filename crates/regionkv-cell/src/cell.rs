//! `Cell` (owned) and `CellRef` (borrowed): a key in the internal encoding plus a value.
//!
//! A cell is (row, family, qualifier, timestamp, type, sequence id) → value, HBase's
//! `KeyValue`. Both forms keep the key encoded (`docs/key-format.md`), so handing a cell to
//! the memstore, a storefile block or the WAL copies bytes and never re-encodes them.
//!
//! A cell may also carry tags (`crate::tag`, e.g. a per-cell TTL): metadata outside the
//! key, so tags never take part in ordering. Almost every cell has none, and an empty tag
//! run costs no allocation.
//!
//! Invariant: `Cell::key` always holds a key that [`KeyView::parse`] accepts; every
//! constructor validates or encodes it.

use crate::bytes::to_string_binary;
use crate::cell_type::CellType;
use crate::error::Result;
use crate::key::{KeyView, compare_keys, encode_key_into};
use std::cmp::Ordering;
use std::fmt;

/// A borrowed cell: a validated key view plus a value slice, e.g. pointing into a
/// memory-mapped storefile block.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct CellRef<'a> {
    key: KeyView<'a>,
    value: &'a [u8],
    tags: &'a [u8],
}

impl<'a> CellRef<'a> {
    /// Pairs a key view with its value.
    #[inline]
    pub fn new(key: KeyView<'a>, value: &'a [u8]) -> Self {
        Self {
            key,
            value,
            tags: &[],
        }
    }

    /// Pairs a key view with its value and tag run.
    #[inline]
    pub fn with_tags(key: KeyView<'a>, value: &'a [u8], tags: &'a [u8]) -> Self {
        Self { key, value, tags }
    }

    /// Validates `key` and pairs it with `value`.
    pub fn parse(key: &'a [u8], value: &'a [u8]) -> Result<Self> {
        Ok(Self {
            key: KeyView::parse(key)?,
            value,
            tags: &[],
        })
    }

    /// The key.
    #[inline]
    pub fn key(&self) -> KeyView<'a> {
        self.key
    }
    /// The encoded key bytes.
    #[inline]
    pub fn key_bytes(&self) -> &'a [u8] {
        self.key.as_bytes()
    }
    /// The row.
    #[inline]
    pub fn row(&self) -> &'a [u8] {
        self.key.row()
    }
    /// The family.
    #[inline]
    pub fn family(&self) -> &'a [u8] {
        self.key.family()
    }
    /// The qualifier.
    #[inline]
    pub fn qualifier(&self) -> &'a [u8] {
        self.key.qualifier()
    }
    /// The timestamp in milliseconds.
    #[inline]
    pub fn timestamp(&self) -> i64 {
        self.key.timestamp()
    }
    /// The type.
    #[inline]
    pub fn cell_type(&self) -> CellType {
        self.key.cell_type()
    }
    /// The sequence id.
    #[inline]
    pub fn seq_id(&self) -> u64 {
        self.key.seq_id()
    }
    /// The value (empty for delete markers).
    #[inline]
    pub fn value(&self) -> &'a [u8] {
        self.value
    }
    /// The tag run (empty for almost every cell).
    #[inline]
    pub fn tags(&self) -> &'a [u8] {
        self.tags
    }
    /// The per-cell TTL in milliseconds, when the cell carries one.
    pub fn ttl(&self) -> Option<i64> {
        crate::tag::ttl_of(self.tags)
    }

    /// Copies into an owned cell.
    pub fn to_cell(&self) -> Cell {
        Cell {
            key: self.key.as_bytes().to_vec(),
            value: self.value.to_vec(),
            tags: self.tags.into(),
        }
    }
}

impl fmt::Debug for CellRef<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_cell(f, self.key, self.value)
    }
}

impl fmt::Display for CellRef<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_cell(f, self.key, self.value)
    }
}

/// HBase's `KeyValue.toString` form: `row/family:qualifier/ts/Type/vlen=N/seqid=S`.
fn write_cell(f: &mut fmt::Formatter<'_>, key: KeyView<'_>, value: &[u8]) -> fmt::Result {
    write!(
        f,
        "{}/{}:{}/{}/{}/vlen={}/seqid={}",
        to_string_binary(key.row()),
        to_string_binary(key.family()),
        to_string_binary(key.qualifier()),
        key.timestamp(),
        key.cell_type(),
        value.len(),
        key.seq_id()
    )
}

/// An owned cell. Ordered by key (HBase's cell order), then by value, then by tags.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Cell {
    key: Vec<u8>,
    value: Vec<u8>,
    /// The tag run; an empty box does not allocate.
    tags: Box<[u8]>,
}

impl Cell {
    /// Builds a cell with sequence id 0 (the region assigns the real one on write).
    ///
    /// Fails when the row or family exceeds HBase's length limits.
    pub fn new(
        row: &[u8],
        family: &[u8],
        qualifier: &[u8],
        timestamp: i64,
        cell_type: CellType,
        value: &[u8],
    ) -> Result<Self> {
        let mut key = Vec::new();
        encode_key_into(&mut key, row, family, qualifier, timestamp, cell_type, 0)?;
        Ok(Self {
            key,
            value: value.to_vec(),
            tags: Box::default(),
        })
    }

    /// A Put of `value`.
    pub fn put(
        row: &[u8],
        family: &[u8],
        qualifier: &[u8],
        timestamp: i64,
        value: &[u8],
    ) -> Result<Self> {
        Self::new(row, family, qualifier, timestamp, CellType::Put, value)
    }

    /// A delete marker of kind `cell_type` (empty value). Family markers ignore
    /// `qualifier` and store an empty one, as HBase does.
    pub fn delete_marker(
        row: &[u8],
        family: &[u8],
        qualifier: &[u8],
        timestamp: i64,
        cell_type: CellType,
    ) -> Result<Self> {
        let qualifier = if cell_type.is_family_delete() {
            &[][..]
        } else {
            qualifier
        };
        Self::new(row, family, qualifier, timestamp, cell_type, &[])
    }

    /// Builds a cell from an encoded key (validated) and a value.
    pub fn from_parts(key: Vec<u8>, value: Vec<u8>) -> Result<Self> {
        KeyView::parse(&key)?;
        Ok(Self {
            key,
            value,
            tags: Box::default(),
        })
    }

    /// Returns the cell with the tag run `tags` (validated: a well-formed run of at most
    /// [`crate::tag::MAX_TAGS_LEN`] bytes).
    pub fn with_tags(mut self, tags: Vec<u8>) -> Result<Self> {
        crate::tag::validate_tags(&tags)?;
        self.tags = tags.into_boxed_slice();
        Ok(self)
    }

    /// Drops the cell's tags (clients see cells without them, as HBase's do).
    pub fn clear_tags(&mut self) {
        if !self.tags.is_empty() {
            self.tags = Box::default();
        }
    }

    /// Returns the cell with its sequence id set.
    #[must_use]
    pub fn with_seq_id(mut self, seq_id: u64) -> Self {
        self.set_seq_id(seq_id);
        self
    }

    /// Sets the sequence id in place.
    pub fn set_seq_id(&mut self, seq_id: u64) {
        let n = self.key.len();
        // Invariant: a valid key is at least 20 bytes long; the last 8 are the sequence id.
        self.key[n - 8..].copy_from_slice(&(!seq_id).to_be_bytes());
    }

    /// Sets the timestamp in place (used when a write carries "latest" and the region
    /// stamps it with the clock).
    pub fn set_timestamp(&mut self, timestamp: i64) {
        let n = self.key.len();
        // Invariant: the timestamp occupies bytes [len-17, len-9) of a valid key.
        self.key[n - 17..n - 9]
            .copy_from_slice(&crate::key::encode_timestamp(timestamp).to_be_bytes());
    }

    /// The borrowed form.
    #[inline]
    pub fn as_cell_ref(&self) -> CellRef<'_> {
        CellRef {
            key: self.key_view(),
            value: &self.value,
            tags: &self.tags,
        }
    }

    /// The key view.
    #[inline]
    pub fn key_view(&self) -> KeyView<'_> {
        // Invariant (module docs): `key` was validated or encoded by this crate.
        KeyView::from_trusted(&self.key)
    }

    /// The encoded key.
    #[inline]
    pub fn key_bytes(&self) -> &[u8] {
        &self.key
    }
    /// The row.
    pub fn row(&self) -> &[u8] {
        self.key_view().row()
    }
    /// The family.
    pub fn family(&self) -> &[u8] {
        self.key_view().family()
    }
    /// The qualifier.
    pub fn qualifier(&self) -> &[u8] {
        self.key_view().qualifier()
    }
    /// The timestamp in milliseconds.
    pub fn timestamp(&self) -> i64 {
        self.key_view().timestamp()
    }
    /// The type.
    pub fn cell_type(&self) -> CellType {
        self.key_view().cell_type()
    }
    /// The sequence id.
    pub fn seq_id(&self) -> u64 {
        self.key_view().seq_id()
    }
    /// The value.
    #[inline]
    pub fn value(&self) -> &[u8] {
        &self.value
    }
    /// The tag run (empty for almost every cell).
    #[inline]
    pub fn tags(&self) -> &[u8] {
        &self.tags
    }
    /// The per-cell TTL in milliseconds, when the cell carries one.
    pub fn ttl(&self) -> Option<i64> {
        crate::tag::ttl_of(&self.tags)
    }
    /// Splits into encoded key and value.
    pub fn into_parts(self) -> (Vec<u8>, Vec<u8>) {
        (self.key, self.value)
    }
    /// Encoded key, value and tag lengths: the bytes a cell occupies in a block.
    #[inline]
    pub fn encoded_len(&self) -> usize {
        self.key.len() + self.value.len() + self.tags.len()
    }
}

impl PartialOrd for Cell {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Cell {
    fn cmp(&self, other: &Self) -> Ordering {
        compare_keys(&self.key, &other.key)
            .then_with(|| self.value.cmp(&other.value))
            .then_with(|| self.tags.cmp(&other.tags))
    }
}

impl fmt::Debug for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_cell(f, self.key_view(), &self.value)
    }
}

impl fmt::Display for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_cell(f, self.key_view(), &self.value)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn accessors_and_display() {
        let c = Cell::put(b"r\x01", b"f", b"q", 42, b"value")
            .unwrap()
            .with_seq_id(9);
        assert_eq!(c.row(), b"r\x01");
        assert_eq!(c.family(), b"f");
        assert_eq!(c.qualifier(), b"q");
        assert_eq!(c.timestamp(), 42);
        assert_eq!(c.cell_type(), CellType::Put);
        assert_eq!(c.seq_id(), 9);
        assert_eq!(c.value(), b"value");
        assert_eq!(c.to_string(), "r\\x01/f:q/42/Put/vlen=5/seqid=9");
        let r = c.as_cell_ref();
        assert_eq!(r.to_cell(), c);
        assert_eq!(format!("{r}"), c.to_string());
    }

    #[test]
    fn family_markers_drop_the_qualifier() {
        let m = Cell::delete_marker(b"r", b"f", b"q", 5, CellType::DeleteFamily).unwrap();
        assert_eq!(m.qualifier(), b"");
        assert!(m.value().is_empty());
        let m = Cell::delete_marker(b"r", b"f", b"q", 5, CellType::DeleteColumn).unwrap();
        assert_eq!(m.qualifier(), b"q");
    }

    #[test]
    fn set_timestamp_and_seq_in_place() {
        let mut c = Cell::put(b"r", b"f", b"q", i64::MAX, b"v").unwrap();
        c.set_timestamp(1_700_000_000_000);
        c.set_seq_id(77);
        assert_eq!(c.timestamp(), 1_700_000_000_000);
        assert_eq!(c.seq_id(), 77);
        assert_eq!(c.row(), b"r");
        assert_eq!(c.value(), b"v");
    }

    #[test]
    fn from_parts_validates() {
        assert!(Cell::from_parts(vec![1, 2, 3], vec![]).is_err());
        let c = Cell::put(b"r", b"f", b"q", 1, b"v").unwrap();
        let (k, v) = c.clone().into_parts();
        assert_eq!(Cell::from_parts(k, v).unwrap(), c);
    }

    #[test]
    fn cells_sort_in_hbase_order() {
        let mut cells = [
            Cell::put(b"r2", b"f", b"a", 1, b"").unwrap(),
            Cell::put(b"r1", b"f", b"b", 1, b"").unwrap(),
            Cell::put(b"r1", b"f", b"a", 1, b"").unwrap(),
            Cell::put(b"r1", b"f", b"a", 3, b"").unwrap(),
            Cell::delete_marker(b"r1", b"f", b"a", 3, CellType::DeleteColumn).unwrap(),
            Cell::delete_marker(b"r1", b"f", b"", 2, CellType::DeleteFamily).unwrap(),
        ];
        cells.sort();
        let s: Vec<String> = cells.iter().map(|c| c.to_string()).collect();
        assert_eq!(
            s,
            [
                "r1/f:/2/DeleteFamily/vlen=0/seqid=0",
                "r1/f:a/3/DeleteColumn/vlen=0/seqid=0",
                "r1/f:a/3/Put/vlen=0/seqid=0",
                "r1/f:a/1/Put/vlen=0/seqid=0",
                "r1/f:b/1/Put/vlen=0/seqid=0",
                "r2/f:a/1/Put/vlen=0/seqid=0",
            ]
        );
    }
}
