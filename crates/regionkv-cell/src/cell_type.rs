//! `CellType`: HBase's `KeyValue.Type`. The codes are part of every on-disk format
//! (storefiles, WAL) and of HBase's own wire format, so they never change.

use crate::error::{Error, Result};
use std::fmt;

/// The kind of a cell. The discriminants are HBase's type codes and are part of the
/// on-disk format: do not change them (a unit test pins them).
///
/// In key order a larger code sorts first, so at equal coordinates and timestamp a delete
/// marker is met before the put it covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum CellType {
    /// Only in seek keys: sorts after every real type at the same coordinates.
    Minimum = 0,
    /// A value.
    Put = 4,
    /// Deletes the one version with exactly this timestamp of one column.
    Delete = 8,
    /// Deletes the versions with exactly this timestamp of every column of a family.
    DeleteFamilyVersion = 10,
    /// Deletes every version with a timestamp ≤ this one of one column.
    DeleteColumn = 12,
    /// Deletes every version with a timestamp ≤ this one of every column of a family.
    DeleteFamily = 14,
    /// Only in seek keys: sorts before every real type at the same coordinates.
    Maximum = 255,
}

impl CellType {
    /// HBase's code for this type.
    #[inline]
    pub const fn code(self) -> u8 {
        self as u8
    }

    /// The type with HBase code `code`.
    pub fn from_code(code: u8) -> Result<Self> {
        Ok(match code {
            0 => Self::Minimum,
            4 => Self::Put,
            8 => Self::Delete,
            10 => Self::DeleteFamilyVersion,
            12 => Self::DeleteColumn,
            14 => Self::DeleteFamily,
            255 => Self::Maximum,
            other => return Err(Error::UnknownCellType(other)),
        })
    }

    /// True for the four delete marker kinds.
    #[inline]
    pub const fn is_delete(self) -> bool {
        matches!(
            self,
            Self::Delete | Self::DeleteFamilyVersion | Self::DeleteColumn | Self::DeleteFamily
        )
    }

    /// True for markers that apply to a whole family (empty qualifier).
    #[inline]
    pub const fn is_family_delete(self) -> bool {
        matches!(self, Self::DeleteFamily | Self::DeleteFamilyVersion)
    }

    /// HBase's name of the type, as the shell prints it (`type=DeleteColumn`).
    pub const fn name(self) -> &'static str {
        match self {
            Self::Minimum => "Minimum",
            Self::Put => "Put",
            Self::Delete => "Delete",
            Self::DeleteFamilyVersion => "DeleteFamilyVersion",
            Self::DeleteColumn => "DeleteColumn",
            Self::DeleteFamily => "DeleteFamily",
            Self::Maximum => "Maximum",
        }
    }
}

impl fmt::Display for CellType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The codes are on disk and on HBase's wire: pin them.
    #[test]
    fn codes_are_hbase_codes() {
        let expected = [
            (CellType::Minimum, 0u8),
            (CellType::Put, 4),
            (CellType::Delete, 8),
            (CellType::DeleteFamilyVersion, 10),
            (CellType::DeleteColumn, 12),
            (CellType::DeleteFamily, 14),
            (CellType::Maximum, 255),
        ];
        for (t, code) in expected {
            assert_eq!(t.code(), code);
            assert_eq!(CellType::from_code(code), Ok(t));
        }
    }

    #[test]
    fn unknown_codes_are_errors() {
        for code in 0..=255u8 {
            let known = matches!(code, 0 | 4 | 8 | 10 | 12 | 14 | 255);
            assert_eq!(CellType::from_code(code).is_ok(), known, "code {code}");
        }
        assert_eq!(CellType::from_code(7), Err(Error::UnknownCellType(7)));
    }

    #[test]
    fn delete_kinds() {
        assert!(!CellType::Put.is_delete());
        assert!(CellType::Delete.is_delete());
        assert!(CellType::DeleteColumn.is_delete());
        assert!(CellType::DeleteFamily.is_family_delete());
        assert!(CellType::DeleteFamilyVersion.is_family_delete());
        assert!(!CellType::DeleteColumn.is_family_delete());
        assert_eq!(
            CellType::DeleteFamilyVersion.to_string(),
            "DeleteFamilyVersion"
        );
    }
}
