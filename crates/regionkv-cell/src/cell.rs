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
//! An owned cell is one allocation: key, value and tags back to back. A scan hands out one
//! `Cell` per cell it returns, so a second allocation per cell (a separate value vector) was
//! a measurable share of a full scan (docs/benchmarks.md).
//!
//! Invariant: the key part of a `Cell` always holds a key that [`KeyView::parse`] accepts;
//! every constructor validates or encodes it.

use crate::bytes::to_string_binary;
use crate::cell_type::CellType;
use crate::error::Result;
use crate::key::{KeyView, compare_keys, encode_key_into, encoded_key_len};
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

    /// Copies into an owned cell (one allocation).
    pub fn to_cell(&self) -> Cell {
        Cell::concat(self.key.as_bytes(), self.value, self.tags)
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
    /// The encoded key, the value and the tag run, back to back.
    buf: Box<[u8]>,
    /// Where the value starts.
    key_len: usize,
    /// Where the tag run starts.
    value_end: usize,
}

impl Cell {
    /// `key ‖ value ‖ tags` in one exactly sized allocation. `key` must be valid.
    fn concat(key: &[u8], value: &[u8], tags: &[u8]) -> Self {
        let mut buf = Vec::with_capacity(key.len() + value.len() + tags.len());
        buf.extend_from_slice(key);
        buf.extend_from_slice(value);
        buf.extend_from_slice(tags);
        Self {
            // Exact capacity: no reallocation here.
            buf: buf.into_boxed_slice(),
            key_len: key.len(),
            value_end: key.len() + value.len(),
        }
    }

    /// The encoded key bytes.
    #[inline]
    fn key(&self) -> &[u8] {
        // Invariant: key_len ≤ value_end ≤ buf.len(), set by every constructor.
        &self.buf[..self.key_len]
    }

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
        let key_len = encoded_key_len(row.len(), family.len(), qualifier.len());
        let mut buf = Vec::with_capacity(key_len + value.len());
        encode_key_into(&mut buf, row, family, qualifier, timestamp, cell_type, 0)?;
        buf.extend_from_slice(value);
        Ok(Self {
            buf: buf.into_boxed_slice(),
            key_len,
            value_end: key_len + value.len(),
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
        Ok(Self::concat(&key, &value, &[]))
    }

    /// Returns the cell with the tag run `tags` (validated: a well-formed run of at most
    /// [`crate::tag::MAX_TAGS_LEN`] bytes).
    pub fn with_tags(self, tags: Vec<u8>) -> Result<Self> {
        crate::tag::validate_tags(&tags)?;
        Ok(Self::concat(self.key(), self.value(), &tags))
    }

    /// Drops the cell's tags (clients see cells without them, as HBase's do).
    pub fn clear_tags(&mut self) {
        if !self.tags().is_empty() {
            *self = Self::concat(self.key(), self.value(), &[]);
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
        let n = self.key_len;
        // Invariant: a valid key is at least 20 bytes long; the last 8 are the sequence id.
        self.buf[n - 8..n].copy_from_slice(&(!seq_id).to_be_bytes());
    }

    /// Sets the timestamp in place (used when a write carries "latest" and the region
    /// stamps it with the clock).
    pub fn set_timestamp(&mut self, timestamp: i64) {
        let n = self.key_len;
        // Invariant: the timestamp occupies bytes [len-17, len-9) of a valid key.
        self.buf[n - 17..n - 9]
            .copy_from_slice(&crate::key::encode_timestamp(timestamp).to_be_bytes());
    }

    /// The borrowed form.
    #[inline]
    pub fn as_cell_ref(&self) -> CellRef<'_> {
        CellRef {
            key: self.key_view(),
            value: self.value(),
            tags: self.tags(),
        }
    }

    /// The key view.
    #[inline]
    pub fn key_view(&self) -> KeyView<'_> {
        // Invariant (module docs): `key` was validated or encoded by this crate.
        KeyView::from_trusted(self.key())
    }

    /// The encoded key.
    #[inline]
    pub fn key_bytes(&self) -> &[u8] {
        self.key()
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
        &self.buf[self.key_len..self.value_end]
    }
    /// The tag run (empty for almost every cell).
    #[inline]
    pub fn tags(&self) -> &[u8] {
        &self.buf[self.value_end..]
    }
    /// The per-cell TTL in milliseconds, when the cell carries one.
    pub fn ttl(&self) -> Option<i64> {
        crate::tag::ttl_of(self.tags())
    }
    /// Splits into encoded key and value (the tags are dropped).
    pub fn into_parts(self) -> (Vec<u8>, Vec<u8>) {
        let mut key = self.buf.into_vec();
        let value = key[self.key_len..self.value_end].to_vec();
        key.truncate(self.key_len);
        (key, value)
    }
    /// Encoded key, value and tag lengths: the bytes a cell occupies in a block.
    #[inline]
    pub fn encoded_len(&self) -> usize {
        self.buf.len()
    }
}

impl PartialOrd for Cell {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Cell {
    fn cmp(&self, other: &Self) -> Ordering {
        compare_keys(self.key(), other.key())
            .then_with(|| self.value().cmp(other.value()))
            .then_with(|| self.tags().cmp(other.tags()))
    }
}

impl fmt::Debug for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_cell(f, self.key_view(), self.value())
    }
}

impl fmt::Display for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_cell(f, self.key_view(), self.value())
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
    fn tags_live_after_the_value_and_can_be_cleared() {
        let c = Cell::put(b"r", b"f", b"q", 1, b"value").unwrap();
        let tagged = c
            .clone()
            .with_tags(crate::tag::with_ttl(&[], Some(5000)))
            .unwrap();
        assert_eq!(tagged.value(), b"value");
        assert_eq!(tagged.ttl(), Some(5000));
        assert_eq!(tagged.encoded_len(), c.encoded_len() + tagged.tags().len());
        assert_ne!(tagged, c, "tags take part in equality");
        let mut cleared = tagged.clone();
        cleared.clear_tags();
        assert_eq!(cleared, c);
        assert_eq!(tagged.as_cell_ref().to_cell(), tagged);
        let (k, v) = tagged.into_parts();
        assert_eq!((k.as_slice(), v.as_slice()), (c.key_bytes(), &b"value"[..]));
        assert!(std::mem::size_of::<Cell>() <= 32);
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
