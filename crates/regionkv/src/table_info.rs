//! A table's own record of itself: `data/<ns>/<table>/.tableinfo`, the descriptor and
//! state of the table whose regions live in that directory (HBase keeps the same in the
//! table directory's `.tabledesc/.tableinfo.<n>`, so that `hbck` can rebuild `hbase:meta`
//! from the file system).
//!
//! Why it exists: the catalog is the one commit point of every admin change, but it is a
//! single file. When it is lost, the region manifests still know each region's table and
//! key range, and this file knows the table's families and options, so `regionkv repair`
//! can rebuild the catalog (`crate::repair`). It also marks the two moments a table
//! directory legitimately exists without a catalog entry:
//!
//! * `CREATING`: written before a create makes its regions, replaced by `ENABLED` after
//!   the catalog commit. A table directory the catalog does not list that says
//!   `CREATING` and holds no data (no storefile, no WAL edit) is a create that crashed
//!   before its commit: the next open removes it. (With data, the create committed and
//!   only the rewrite after it failed: kept.)
//! * `DROPPING`: written before a drop's catalog commit. Unlisted and `DROPPING`, the
//!   table was dropped and the crash came before its directory was removed: the next
//!   open finishes the drop. (Still listed, the drop did not commit: the catalog wins and
//!   the file is rewritten from it.)
//!
//! Any other table directory the catalog does not list is never deleted by the engine: it
//! may be a table whose catalog entry was lost. Opens warn about it, `create` of the same
//! name refuses, and `repair` adopts it into the catalog.
//!
//! Invariant: for a table the catalog lists, the file is rewritten from the catalog
//! after every change and at every open, so it lags the catalog only between a commit and
//! the rewrite that follows it. The framing is the catalog's (magic `RKVTINF1`, u32
//! length, JSON body, CRC-32; docs/catalog-format.md).

use crate::catalog::{self, TableState};
use crate::error::{Error, Result};
use regionkv_fs::Fs;
use regionkv_region::TableDescriptor;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// File name of a table's descriptor file inside its table directory.
pub const TABLE_INFO_FILE: &str = ".tableinfo";
const MAGIC: &[u8; 8] = b"RKVTINF1";

/// Where a table is in its life, as its `.tableinfo` records it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableInfoState {
    /// A create before its catalog commit.
    Creating,
    /// Serving.
    Enabled,
    /// Disabled.
    Disabled,
    /// A drop from just before its catalog commit.
    Dropping,
}

impl TableInfoState {
    fn name(self) -> &'static str {
        match self {
            Self::Creating => "CREATING",
            Self::Enabled => "ENABLED",
            Self::Disabled => "DISABLED",
            Self::Dropping => "DROPPING",
        }
    }

    fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "CREATING" => Self::Creating,
            "ENABLED" => Self::Enabled,
            "DISABLED" => Self::Disabled,
            "DROPPING" => Self::Dropping,
            _ => return None,
        })
    }
}

impl From<TableState> for TableInfoState {
    fn from(s: TableState) -> Self {
        match s {
            TableState::Enabled => Self::Enabled,
            TableState::Disabled => Self::Disabled,
        }
    }
}

/// The contents of a `.tableinfo` file.
#[derive(Debug, Clone, PartialEq)]
pub struct TableInfo {
    /// The table's descriptor.
    pub descriptor: TableDescriptor,
    /// Its state.
    pub state: TableInfoState,
}

impl TableInfo {
    /// The file's path in `table_dir`.
    pub fn path(table_dir: &Path) -> PathBuf {
        table_dir.join(TABLE_INFO_FILE)
    }

    /// Serializes the file.
    ///
    /// ```
    /// use regionkv::table_info::{TableInfo, TableInfoState};
    /// use regionkv::{ColumnFamilyDescriptor, TableDescriptor};
    /// use std::path::Path;
    ///
    /// let descriptor = TableDescriptor::new("ns:t", vec![ColumnFamilyDescriptor::new(b"cf")?])?;
    /// let info = TableInfo { descriptor, state: TableInfoState::Disabled };
    /// let bytes = info.encode();
    /// assert_eq!(&bytes[..8], b"RKVTINF1");
    /// assert_eq!(TableInfo::decode(&bytes, Path::new(".tableinfo"))?, info);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn encode(&self) -> Vec<u8> {
        let mut v = catalog::descriptor_json(&self.descriptor, self.state.name());
        v["format"] = Value::from(1);
        catalog::frame(MAGIC, &v.to_string())
    }

    /// Parses the file; every defect is [`Error::Corrupt`] naming `path` and an offset.
    pub fn decode(b: &[u8], path: &Path) -> Result<Self> {
        let v = catalog::unframe(MAGIC, b, path)?;
        let corrupt = |reason: String| Error::Corrupt {
            // Printed as "corrupt catalog ...", as it always was.
            what: "catalog",
            path: path.to_path_buf(),
            offset: 12,
            reason,
        };
        if v["format"].as_u64() != Some(1) {
            return Err(corrupt(format!(
                "table info format {} is not supported (1)",
                v["format"]
            )));
        }
        let (descriptor, state) = catalog::descriptor_from_json(&v).map_err(corrupt)?;
        let state = TableInfoState::parse(&state)
            .ok_or_else(|| corrupt(format!("bad table state {state:?}")))?;
        Ok(Self { descriptor, state })
    }

    /// Reads the file of `table_dir`; `None` when there is none (a directory written
    /// before the file existed, or a create that crashed before writing it).
    pub fn read(fs: &dyn Fs, table_dir: &Path) -> Result<Option<Self>> {
        let path = Self::path(table_dir);
        if !fs.exists(&path)? {
            return Ok(None);
        }
        let bytes = catalog::read_small(fs, &path)?;
        Self::decode(&bytes, &path).map(Some)
    }

    /// Atomically replaces the file of `table_dir` (creating the directory).
    pub fn write(&self, fs: &dyn Fs, table_dir: &Path) -> Result<()> {
        fs.create_dir_all(table_dir)?;
        regionkv_fs::write_atomic(fs, &Self::path(table_dir), &self.encode())?;
        Ok(())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use regionkv_fs::MemFs;
    use regionkv_region::ColumnFamilyDescriptor;

    fn sample(state: TableInfoState) -> TableInfo {
        let mut f = ColumnFamilyDescriptor::new(b"cf").unwrap();
        f.set_attribute("VERSIONS", "5").unwrap();
        let mut d = TableDescriptor::new("ns:t", vec![f]).unwrap();
        d.set_attribute("MAX_FILESIZE", "1048576").unwrap();
        TableInfo {
            descriptor: d,
            state,
        }
    }

    #[test]
    fn every_state_round_trips_through_the_file() {
        let fs = MemFs::new();
        let dir = Path::new("/db/data/ns/t");
        assert!(TableInfo::read(&fs, dir).unwrap().is_none());
        for state in [
            TableInfoState::Creating,
            TableInfoState::Enabled,
            TableInfoState::Disabled,
            TableInfoState::Dropping,
        ] {
            let info = sample(state);
            info.write(&fs, dir).unwrap();
            assert_eq!(TableInfo::read(&fs, dir).unwrap().unwrap(), info);
        }
    }

    #[test]
    fn every_single_bit_flip_is_detected() {
        let bytes = sample(TableInfoState::Enabled).encode();
        for i in 0..bytes.len() {
            for bit in 0..8 {
                let mut b = bytes.clone();
                b[i] ^= 1 << bit;
                assert!(
                    TableInfo::decode(&b, Path::new(".tableinfo")).is_err(),
                    "flip of bit {bit} at {i} went unnoticed"
                );
            }
        }
        // A catalog is not a table info file.
        let catalog = crate::catalog::Catalog::default().encode();
        assert!(TableInfo::decode(&catalog, Path::new(".tableinfo")).is_err());
    }
}
