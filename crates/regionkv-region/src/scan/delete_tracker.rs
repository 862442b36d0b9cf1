//! `DeleteTracker`: the delete markers seen so far in the current row of one store, and
//! whether they mask a put (HBase's `ScanDeleteTracker`). Masking depends only on
//! timestamps, never on write order: a put with a timestamp at or below a marker's is
//! masked even when written after it ("deletes mask puts").
//!
//! Relies on cell order: within a row and family, the DeleteFamily/DeleteFamilyVersion
//! markers (empty qualifier) come first; within a column, newer timestamps first and, at
//! equal timestamps, markers before puts.

use regionkv_cell::{CellRef, CellType};
use std::collections::BTreeSet;

/// Why a put is masked (HBase's `DeleteResult`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeleteResult {
    /// Not masked.
    NotDeleted,
    /// A DeleteFamily at or above its timestamp: the rest of the column is masked too.
    FamilyDeleted,
    /// A DeleteFamilyVersion at exactly its timestamp.
    FamilyVersionDeleted,
    /// A DeleteColumn at or above its timestamp: the rest of the column is masked too.
    ColumnDeleted,
    /// A Delete at exactly its timestamp.
    VersionDeleted,
}

/// Per (row, store) delete state.
#[derive(Debug, Default)]
pub struct DeleteTracker {
    family_stamp: Option<i64>,
    family_version_stamps: BTreeSet<i64>,
    /// The last Delete or DeleteColumn of the current column: (qualifier, type, ts).
    column: Option<(Vec<u8>, CellType, i64)>,
}

impl DeleteTracker {
    /// Forgets everything (a new row).
    pub fn reset(&mut self) {
        self.family_stamp = None;
        self.family_version_stamps.clear();
        self.column = None;
    }

    /// True when no marker is tracked.
    pub fn is_empty(&self) -> bool {
        self.family_stamp.is_none()
            && self.family_version_stamps.is_empty()
            && self.column.is_none()
    }

    /// Records a delete marker.
    pub fn add(&mut self, marker: CellRef<'_>) {
        let ts = marker.timestamp();
        if self.family_stamp.is_some_and(|f| ts <= f) {
            return; // already covered by the family marker
        }
        match marker.cell_type() {
            CellType::DeleteFamily => self.family_stamp = Some(ts),
            CellType::DeleteFamilyVersion => {
                self.family_version_stamps.insert(ts);
            }
            t @ (CellType::Delete | CellType::DeleteColumn) => {
                // A less specific marker of the same column is not replaced by a more
                // specific one (a DeleteColumn stays when a Delete follows).
                if let Some((q, prev, _)) = &self.column
                    && t.code() < prev.code()
                    && q.as_slice() == marker.qualifier()
                {
                    return;
                }
                self.column = Some((marker.qualifier().to_vec(), t, ts));
            }
            _ => {}
        }
    }

    /// Whether `put` is masked by a tracked marker.
    pub fn is_deleted(&mut self, put: CellRef<'_>) -> DeleteResult {
        let ts = put.timestamp();
        if self.family_stamp.is_some_and(|f| ts <= f) {
            return DeleteResult::FamilyDeleted;
        }
        if self.family_version_stamps.contains(&ts) {
            return DeleteResult::FamilyVersionDeleted;
        }
        if let Some((q, t, mts)) = &self.column {
            if q.as_slice() == put.qualifier() {
                if *t == CellType::DeleteColumn {
                    return DeleteResult::ColumnDeleted;
                }
                if ts == *mts {
                    return DeleteResult::VersionDeleted;
                }
                // An older version of the column: the one-version marker is spent.
                self.column = None;
            } else {
                // A later column.
                self.column = None;
            }
        }
        DeleteResult::NotDeleted
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use regionkv_cell::Cell;

    fn cell(q: &[u8], ts: i64, t: CellType) -> Cell {
        Cell::new(b"r", b"f", q, ts, t, b"").unwrap()
    }

    // Cases from HBase's TestScanDeleteTracker.
    #[test]
    fn deleted_by_delete() {
        let mut dt = DeleteTracker::default();
        dt.add(cell(b"q", 10, CellType::Delete).as_cell_ref());
        assert_eq!(
            dt.is_deleted(cell(b"q", 10, CellType::Put).as_cell_ref()),
            DeleteResult::VersionDeleted
        );
    }

    #[test]
    fn deleted_by_delete_column() {
        let mut dt = DeleteTracker::default();
        dt.add(cell(b"q", 10, CellType::DeleteColumn).as_cell_ref());
        assert_eq!(
            dt.is_deleted(cell(b"q", 5, CellType::Put).as_cell_ref()),
            DeleteResult::ColumnDeleted
        );
    }

    #[test]
    fn deleted_by_delete_family() {
        let mut dt = DeleteTracker::default();
        dt.add(cell(b"", 10, CellType::DeleteFamily).as_cell_ref());
        assert_eq!(
            dt.is_deleted(cell(b"q", 5, CellType::Put).as_cell_ref()),
            DeleteResult::FamilyDeleted
        );
        assert_eq!(
            dt.is_deleted(cell(b"z", 10, CellType::Put).as_cell_ref()),
            DeleteResult::FamilyDeleted
        );
        assert_eq!(
            dt.is_deleted(cell(b"z", 11, CellType::Put).as_cell_ref()),
            DeleteResult::NotDeleted
        );
    }

    #[test]
    fn deleted_by_delete_family_version() {
        let mut dt = DeleteTracker::default();
        for ts in [20, 30, 40, 50] {
            dt.add(cell(b"", ts, CellType::DeleteFamilyVersion).as_cell_ref());
        }
        for q in [&b"a"[..], b"b"] {
            assert_eq!(
                dt.is_deleted(cell(q, 30, CellType::Put).as_cell_ref()),
                DeleteResult::FamilyVersionDeleted
            );
            assert_eq!(
                dt.is_deleted(cell(q, 35, CellType::Put).as_cell_ref()),
                DeleteResult::NotDeleted
            );
        }
    }

    #[test]
    fn delete_is_spent_by_an_older_version() {
        let mut dt = DeleteTracker::default();
        dt.add(cell(b"q", 10, CellType::Delete).as_cell_ref());
        assert_eq!(
            dt.is_deleted(cell(b"q", 9, CellType::Put).as_cell_ref()),
            DeleteResult::NotDeleted
        );
        assert!(dt.is_empty());
    }

    #[test]
    fn delete_column_then_delete_keeps_the_column_marker() {
        let mut dt = DeleteTracker::default();
        dt.add(cell(b"q", 10, CellType::DeleteColumn).as_cell_ref());
        dt.add(cell(b"q", 8, CellType::Delete).as_cell_ref());
        assert_eq!(
            dt.is_deleted(cell(b"q", 5, CellType::Put).as_cell_ref()),
            DeleteResult::ColumnDeleted
        );
    }

    #[test]
    fn markers_covered_by_the_family_stamp_are_ignored() {
        let mut dt = DeleteTracker::default();
        dt.add(cell(b"", 10, CellType::DeleteFamily).as_cell_ref());
        dt.add(cell(b"q", 5, CellType::Delete).as_cell_ref());
        assert!(dt.column.is_none());
        dt.reset();
        assert!(dt.is_empty());
    }
}
