//! Cell-shape filters: HBase's `KeyOnlyFilter` (drops values), `FirstKeyOnlyFilter` (one cell
//! per row) and `TimestampsFilter` (listed versions only).

use super::{Filter, FilterError, ReturnCode};
use regionkv_cell::{Cell, CellRef, OwnedKey};
use std::collections::BTreeSet;

/// HBase's `KeyOnlyFilter`: returns cells without their value, or (with `len_as_val`) with the
/// value replaced by its length as a 4-byte big-endian int.
///
/// Like HBase's `KeyOnlyCell`, the returned cell reports sequence id 0.
#[derive(Debug, Clone, Default)]
pub struct KeyOnlyFilter {
    len_as_val: bool,
}

impl KeyOnlyFilter {
    /// Values become empty (`len_as_val` false) or their 4-byte length (`len_as_val` true).
    pub fn new(len_as_val: bool) -> Self {
        Self { len_as_val }
    }

    /// Whether values become their length.
    pub fn len_as_val(&self) -> bool {
        self.len_as_val
    }
}

impl Filter for KeyOnlyFilter {
    fn filter_row_key(&mut self, _row: &[u8]) -> bool {
        false
    }

    fn filter_cell(&mut self, _cell: CellRef<'_>) -> ReturnCode {
        ReturnCode::Include
    }

    fn transform_cell(&self, cell: Cell) -> Cell {
        let value: Vec<u8> = if self.len_as_val {
            // HBase writes the Java int length; a value is never 2 GiB long.
            let len = i32::try_from(cell.value().len()).unwrap_or(i32::MAX);
            len.to_be_bytes().to_vec()
        } else {
            Vec::new()
        };
        match Cell::new(
            cell.row(),
            cell.family(),
            cell.qualifier(),
            cell.timestamp(),
            cell.cell_type(),
            &value,
        ) {
            Ok(stripped) => stripped,
            // Unreachable: the coordinates come from a valid cell, so they re-encode.
            Err(_) => cell,
        }
    }

    fn box_clone(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}

/// HBase's `FirstKeyOnlyFilter`: keeps only the first cell the scanner offers per row (the
/// first cell of the first family; later families are offered but answered `NextRow`).
#[derive(Debug, Clone, Default)]
pub struct FirstKeyOnlyFilter {
    found: bool,
}

impl FirstKeyOnlyFilter {
    /// A new filter.
    pub fn new() -> Self {
        Self::default()
    }
}

impl Filter for FirstKeyOnlyFilter {
    fn reset(&mut self) {
        self.found = false;
    }

    fn filter_row_key(&mut self, _row: &[u8]) -> bool {
        false
    }

    fn filter_cell(&mut self, _cell: CellRef<'_>) -> ReturnCode {
        if self.found {
            return ReturnCode::NextRow;
        }
        self.found = true;
        ReturnCode::Include
    }

    fn box_clone(&self) -> Box<dyn Filter> {
        Box::new(Self::new())
    }
}

/// HBase's `TimestampsFilter`: keeps only cells whose timestamp is in the list. With
/// `can_hint`, it seeks to the next listed timestamp instead of skipping version by version —
/// which, as HBase warns, can seek past delete markers and resurrect deleted data.
#[derive(Debug, Clone)]
pub struct TimestampsFilter {
    timestamps: BTreeSet<i64>,
    can_hint: bool,
    min: i64,
}

impl TimestampsFilter {
    /// Keeps the listed timestamps; fails on a negative one (as HBase's constructor does).
    pub fn new(timestamps: impl IntoIterator<Item = i64>) -> Result<Self, FilterError> {
        Self::with_hint(timestamps, false)
    }

    /// Like [`TimestampsFilter::new`], seeking between listed timestamps when `can_hint`.
    pub fn with_hint(
        timestamps: impl IntoIterator<Item = i64>,
        can_hint: bool,
    ) -> Result<Self, FilterError> {
        let timestamps: BTreeSet<i64> = timestamps.into_iter().collect();
        if let Some(negative) = timestamps.iter().find(|&&ts| ts < 0) {
            return Err(FilterError::invalid(
                "TimestampsFilter",
                format!("timestamps must be non-negative, got {negative}"),
            ));
        }
        // With no timestamps HBase keeps Long.MAX_VALUE as the minimum.
        let min = timestamps.first().copied().unwrap_or(i64::MAX);
        Ok(Self {
            timestamps,
            can_hint,
            min,
        })
    }

    /// The timestamps, ascending.
    pub fn timestamps(&self) -> impl Iterator<Item = i64> + '_ {
        self.timestamps.iter().copied()
    }

    /// Whether the filter seeks between timestamps.
    pub fn can_hint(&self) -> bool {
        self.can_hint
    }
}

impl Filter for TimestampsFilter {
    fn filter_row_key(&mut self, _row: &[u8]) -> bool {
        false
    }

    fn filter_cell(&mut self, cell: CellRef<'_>) -> ReturnCode {
        let ts = cell.timestamp();
        if self.timestamps.contains(&ts) {
            ReturnCode::Include
        } else if ts < self.min {
            // Older versions of this column are older still: none can be listed.
            ReturnCode::NextCol
        } else if self.can_hint {
            ReturnCode::SeekNextUsingHint
        } else {
            ReturnCode::Skip
        }
    }

    fn next_cell_hint(&self, current: CellRef<'_>) -> Option<OwnedKey> {
        if !self.can_hint {
            return None;
        }
        let (row, family, qualifier) = (current.row(), current.family(), current.qualifier());
        // Versions sort newest first, so the next wanted one is the largest listed timestamp
        // below the current.
        match self.timestamps.range(..current.timestamp()).next_back() {
            Some(&next) => OwnedKey::first_on_column_at(row, family, qualifier, next).ok(),
            None => OwnedKey::last_on_column(row, family, qualifier).ok(),
        }
    }

    fn box_clone(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}
