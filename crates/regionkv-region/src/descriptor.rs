//! Table and column family descriptors: HBase's `TableDescriptor` and
//! `ColumnFamilyDescriptor`, with HBase's option names and defaults. The region reads them
//! to size flushes, shape storefiles and (under the read-path work) apply versions, TTL
//! and KEEP_DELETED_CELLS. The facade re-exports them with builders.

use crate::error::{Error, Result};
use regionkv_cell::limits::check_family_name;
use regionkv_storefile::{BloomType, Compression, DataBlockEncoding, StoreFileWriterOptions};
use regionkv_wal::Durability;

/// HBase's `HConstants.FOREVER`: a TTL of `Integer.MAX_VALUE` seconds means "never expires".
pub const FOREVER: u32 = i32::MAX as u32;
/// Default memstore flush size (`hbase.hregion.memstore.flush.size`), 128 MiB.
pub const DEFAULT_MEMSTORE_FLUSH_SIZE: u64 = 128 * 1024 * 1024;
/// Default maximum region file size (`hbase.hregion.max.filesize`), 10 GiB.
pub const DEFAULT_MAX_FILESIZE: u64 = 10 * 1024 * 1024 * 1024;

/// HBase's `KeepDeletedCells`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum KeepDeletedCells {
    /// Deleted cells are dropped by major compactions and invisible to reads.
    #[default]
    False,
    /// Deleted cells are kept (within versions and TTL) for point-in-time reads.
    True,
    /// Deleted cells are kept until they expire by TTL.
    Ttl,
}

impl KeepDeletedCells {
    /// HBase's name.
    pub const fn name(self) -> &'static str {
        match self {
            Self::False => "FALSE",
            Self::True => "TRUE",
            Self::Ttl => "TTL",
        }
    }
}

/// One column family's options (HBase names in the field docs).
#[derive(Debug, Clone, PartialEq)]
pub struct ColumnFamilyDescriptor {
    /// NAME.
    pub name: Vec<u8>,
    /// VERSIONS (default 1).
    pub max_versions: u32,
    /// MIN_VERSIONS (default 0).
    pub min_versions: u32,
    /// TTL in seconds (default [`FOREVER`]).
    pub ttl_seconds: u32,
    /// KEEP_DELETED_CELLS (default FALSE).
    pub keep_deleted_cells: KeepDeletedCells,
    /// BLOOMFILTER (default ROW).
    pub bloom_type: BloomType,
    /// BLOCKSIZE (default 65536).
    pub block_size: usize,
    /// COMPRESSION (default NONE).
    pub compression: Compression,
    /// DATA_BLOCK_ENCODING (default NONE).
    pub data_block_encoding: DataBlockEncoding,
    /// IN_MEMORY (default false).
    pub in_memory: bool,
    /// BLOCKCACHE (default true).
    pub block_cache_enabled: bool,
}

impl ColumnFamilyDescriptor {
    /// A family with HBase's defaults. Fails on an illegal name.
    pub fn new(name: &[u8]) -> Result<Self> {
        check_family_name(name)?;
        Ok(Self {
            name: name.to_vec(),
            max_versions: 1,
            min_versions: 0,
            ttl_seconds: FOREVER,
            keep_deleted_cells: KeepDeletedCells::False,
            bloom_type: BloomType::Row,
            block_size: 65536,
            compression: Compression::None,
            data_block_encoding: DataBlockEncoding::None,
            in_memory: false,
            block_cache_enabled: true,
        })
    }

    /// Checks option ranges as HBase's `TableDescriptorChecker` does.
    pub fn validate(&self) -> Result<()> {
        check_family_name(&self.name)?;
        if self.max_versions < 1 {
            return Err(Error::InvalidDescriptor(format!(
                "VERSIONS for column family {} must be positive",
                String::from_utf8_lossy(&self.name)
            )));
        }
        if self.min_versions > self.max_versions {
            return Err(Error::InvalidDescriptor(format!(
                "MIN_VERSIONS ({}) for column family {} must not exceed VERSIONS ({})",
                self.min_versions,
                String::from_utf8_lossy(&self.name),
                self.max_versions
            )));
        }
        if self.ttl_seconds == 0 {
            return Err(Error::InvalidDescriptor(format!(
                "TTL for column family {} must be positive",
                String::from_utf8_lossy(&self.name)
            )));
        }
        self.writer_options(false).validate()?;
        Ok(())
    }

    /// TTL in milliseconds, `None` for FOREVER.
    pub fn ttl_millis(&self) -> Option<i64> {
        (self.ttl_seconds != FOREVER).then(|| i64::from(self.ttl_seconds) * 1000)
    }

    /// The storefile writer options this family's files are written with.
    pub fn writer_options(&self, major_compaction: bool) -> StoreFileWriterOptions {
        StoreFileWriterOptions {
            block_size: self.block_size,
            compression: self.compression,
            encoding: self.data_block_encoding,
            bloom_type: self.bloom_type,
            major_compaction,
            ..StoreFileWriterOptions::default()
        }
    }
}

/// A table's options and families.
#[derive(Debug, Clone, PartialEq)]
pub struct TableDescriptor {
    /// `namespace:qualifier` (the namespace is `default` when absent).
    pub name: String,
    /// Families in name order.
    pub families: Vec<ColumnFamilyDescriptor>,
    /// MEMSTORE_FLUSHSIZE.
    pub memstore_flush_size: u64,
    /// MAX_FILESIZE.
    pub max_file_size: u64,
    /// DURABILITY (USE_DEFAULT means SYNC_WAL).
    pub durability: Durability,
    /// READONLY.
    pub read_only: bool,
}

impl TableDescriptor {
    /// A table with HBase's defaults and the given families.
    pub fn new(name: &str, families: Vec<ColumnFamilyDescriptor>) -> Result<Self> {
        regionkv_cell::limits::parse_table_name(name)?;
        let mut t = Self {
            name: name.to_string(),
            families,
            memstore_flush_size: DEFAULT_MEMSTORE_FLUSH_SIZE,
            max_file_size: DEFAULT_MAX_FILESIZE,
            durability: Durability::UseDefault,
            read_only: false,
        };
        t.families.sort_by(|a, b| a.name.cmp(&b.name));
        t.validate()?;
        Ok(t)
    }

    /// Checks the table and every family.
    pub fn validate(&self) -> Result<()> {
        if self.families.is_empty() {
            return Err(Error::InvalidDescriptor(format!(
                "table {} should have at least one column family",
                self.name
            )));
        }
        for w in self.families.windows(2) {
            if w[0].name == w[1].name {
                return Err(Error::InvalidDescriptor(format!(
                    "column family {} is defined twice",
                    String::from_utf8_lossy(&w[0].name)
                )));
            }
        }
        for f in &self.families {
            f.validate()?;
        }
        // HBase refuses flush sizes below 1 MiB unless sanity checks are off; tests use
        // small values, so the floor here is only "positive".
        if self.memstore_flush_size == 0 {
            return Err(Error::InvalidDescriptor(
                "MEMSTORE_FLUSHSIZE must be positive".to_string(),
            ));
        }
        Ok(())
    }

    /// The family named `name`.
    pub fn family(&self, name: &[u8]) -> Option<&ColumnFamilyDescriptor> {
        self.families.iter().find(|f| f.name == name)
    }

    /// The effective durability (USE_DEFAULT → SYNC_WAL, HBase's default).
    pub fn effective_durability(&self, requested: Durability) -> Durability {
        match (requested, self.durability) {
            (Durability::UseDefault, Durability::UseDefault) => Durability::SyncWal,
            (Durability::UseDefault, d) => d,
            (d, _) => d,
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn hbase_defaults() {
        let f = ColumnFamilyDescriptor::new(b"cf").unwrap();
        assert_eq!(f.max_versions, 1);
        assert_eq!(f.min_versions, 0);
        assert_eq!(f.ttl_seconds, 2_147_483_647);
        assert_eq!(f.ttl_millis(), None);
        assert_eq!(f.keep_deleted_cells, KeepDeletedCells::False);
        assert_eq!(f.bloom_type, BloomType::Row);
        assert_eq!(f.block_size, 65536);
        let t = TableDescriptor::new("t1", vec![f]).unwrap();
        assert_eq!(t.memstore_flush_size, 134_217_728);
        assert_eq!(t.max_file_size, 10_737_418_240);
        assert_eq!(
            t.effective_durability(Durability::UseDefault),
            Durability::SyncWal
        );
        assert_eq!(
            t.effective_durability(Durability::FsyncWal),
            Durability::FsyncWal
        );
    }

    #[test]
    fn invalid_options_are_errors() {
        assert!(ColumnFamilyDescriptor::new(b"a:b").is_err());
        let mut f = ColumnFamilyDescriptor::new(b"cf").unwrap();
        f.min_versions = 2;
        assert!(f.validate().is_err());
        f.min_versions = 0;
        f.max_versions = 0;
        assert!(f.validate().is_err());
        f.max_versions = 1;
        f.block_size = 10;
        assert!(f.validate().is_err());
        assert!(TableDescriptor::new("t", vec![]).is_err());
        let f = ColumnFamilyDescriptor::new(b"cf").unwrap();
        assert!(TableDescriptor::new("t", vec![f.clone(), f.clone()]).is_err());
        assert!(TableDescriptor::new("bad name", vec![f]).is_err());
    }
}
