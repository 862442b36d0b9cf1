//! [`WalKey`] and [`WalEdit`]: what one log record holds (HBase's `WALKey` and `WALEdit`),
//! and [`WalKeyRef`], the borrowed key the write path appends with (no copy of the region
//! and table names per write).

use regionkv_cell::Cell;

/// The header of one edit: whose it is and where it sits in that region's history.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct WalKey {
    /// The encoded name of the region that wrote the edit (HBase's `encodedRegionName`).
    pub region: Vec<u8>,
    /// The table's name (`namespace:qualifier`, or the qualifier alone in `default`).
    pub table: String,
    /// The sequence id the region assigned to the edit. Sequence ids are per region:
    /// edits of different regions in one log are not ordered by it.
    pub seq_id: u64,
    /// When the edit was written, in milliseconds since the epoch (the engine clock).
    pub write_time: i64,
}

/// A [`WalKey`] borrowing its names: what [`Wal::append_cells`](crate::Wal::append_cells)
/// takes, so a region appends without copying its names per write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct WalKeyRef<'a> {
    /// See [`WalKey::region`].
    pub region: &'a [u8],
    /// See [`WalKey::table`].
    pub table: &'a str,
    /// See [`WalKey::seq_id`].
    pub seq_id: u64,
    /// See [`WalKey::write_time`].
    pub write_time: i64,
}

impl WalKey {
    /// This key, borrowed.
    pub fn as_ref(&self) -> WalKeyRef<'_> {
        WalKeyRef {
            region: &self.region,
            table: &self.table,
            seq_id: self.seq_id,
            write_time: self.write_time,
        }
    }
}

/// One atomic row mutation: replay yields it whole or not at all.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct WalEdit {
    /// Whose edit it is.
    pub key: WalKey,
    /// The cells, in the order the mutation gave them (their encoded keys are stored as
    /// given, sequence id included).
    pub cells: Vec<Cell>,
}

impl WalEdit {
    /// Pairs a key with its cells.
    pub fn new(key: WalKey, cells: Vec<Cell>) -> Self {
        WalEdit { key, cells }
    }
}
