//! Table and column family descriptors: HBase's `TableDescriptor` and
//! `ColumnFamilyDescriptor`, with HBase's option names and defaults. The region reads them
//! to size flushes, shape storefiles and (under the read-path work) apply versions, TTL
//! and KEEP_DELETED_CELLS. The facade re-exports them with builders. Their methods report
//! a [`DescriptorError`]: only what a descriptor can be wrong about.

use crate::durability::Durability;
use crate::error::{AttributeRule, AttributeScope, DescriptorError, SchemaProblem};
use regionkv_cell::limits::check_family_name;
use regionkv_storefile::{BloomType, Compression, DataBlockEncoding, StoreFileWriterOptions};
use std::collections::BTreeMap;

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
    /// REPLICATION_SCOPE (default 0). Kept for fidelity of descriptors carried to and
    /// from HBase; regionkv does not replicate.
    pub replication_scope: u32,
    /// CONFIGURATION: per-family overrides of `hbase.*` keys.
    pub configuration: BTreeMap<String, String>,
}

impl ColumnFamilyDescriptor {
    /// A family with HBase's defaults. Fails on an illegal name.
    pub fn new(name: &[u8]) -> Result<Self, DescriptorError> {
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
            replication_scope: 0,
            configuration: BTreeMap::new(),
        })
    }

    /// Checks option ranges as HBase's `TableDescriptorChecker` does.
    pub fn validate(&self) -> Result<(), DescriptorError> {
        check_family_name(&self.name)?;
        if self.max_versions < 1 {
            return Err(DescriptorError::InvalidSchema(
                SchemaProblem::VersionsNotPositive {
                    family: String::from_utf8_lossy(&self.name).into_owned(),
                },
            ));
        }
        if self.min_versions > self.max_versions {
            return Err(DescriptorError::InvalidSchema(
                SchemaProblem::MinVersionsAboveVersions {
                    family: String::from_utf8_lossy(&self.name).into_owned(),
                    min_versions: self.min_versions,
                    versions: self.max_versions,
                },
            ));
        }
        if self.ttl_seconds == 0 {
            return Err(DescriptorError::InvalidSchema(
                SchemaProblem::TtlNotPositive {
                    family: String::from_utf8_lossy(&self.name).into_owned(),
                },
            ));
        }
        self.writer_options(false)
            .validate()
            .map_err(DescriptorError::file_option)?;
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
    /// SPLIT_POLICY: the HBase class name of the split policy (`None`: the default,
    /// SteppingSplitPolicy).
    pub split_policy: Option<String>,
    /// COMPACTION_ENABLED (default true): false stops every compaction but user ones.
    pub compaction_enabled: bool,
    /// SPLIT_ENABLED (default true).
    pub split_enabled: bool,
    /// MERGE_ENABLED (default true).
    pub merge_enabled: bool,
    /// CONFIGURATION: per-table overrides of `hbase.*` keys.
    pub configuration: BTreeMap<String, String>,
    /// METADATA: the table's free-form values (HBase's `TableDescriptor.getValue`), where
    /// e.g. `KeyPrefixRegionSplitPolicy.prefix_length` lives.
    pub metadata: BTreeMap<String, String>,
}

impl TableDescriptor {
    /// A table with HBase's defaults and the given families.
    pub fn new(name: &str, families: Vec<ColumnFamilyDescriptor>) -> Result<Self, DescriptorError> {
        regionkv_cell::limits::parse_table_name(name)?;
        let mut t = Self {
            name: name.to_string(),
            families,
            memstore_flush_size: DEFAULT_MEMSTORE_FLUSH_SIZE,
            max_file_size: DEFAULT_MAX_FILESIZE,
            durability: Durability::UseDefault,
            read_only: false,
            split_policy: None,
            compaction_enabled: true,
            split_enabled: true,
            merge_enabled: true,
            configuration: BTreeMap::new(),
            metadata: BTreeMap::new(),
        };
        t.families.sort_by(|a, b| a.name.cmp(&b.name));
        t.validate()?;
        Ok(t)
    }

    /// Checks what a create or alter sets against HBase's types: VERSIONS and MIN_VERSIONS
    /// are Java `int`s there (at most 2147483647), so a larger value, which regionkv could
    /// hold, is refused as HBase refuses it. Not part of [`Self::validate`]: descriptors
    /// stored by earlier builds with such values still load.
    pub fn check_hbase_limits(&self) -> Result<(), DescriptorError> {
        for f in &self.families {
            for (key, value) in [
                ("VERSIONS", f.max_versions),
                ("MIN_VERSIONS", f.min_versions),
            ] {
                if i32::try_from(value).is_err() {
                    return Err(DescriptorError::InvalidAttributeValue {
                        key: key.to_string(),
                        value: value.to_string(),
                        expected: AttributeRule::JavaInt,
                    });
                }
            }
        }
        Ok(())
    }

    /// Checks the table and every family.
    pub fn validate(&self) -> Result<(), DescriptorError> {
        if self.families.is_empty() {
            return Err(DescriptorError::InvalidSchema(SchemaProblem::NoFamily {
                table: self.name.clone(),
            }));
        }
        for w in self.families.windows(2) {
            if w[0].name == w[1].name {
                return Err(DescriptorError::InvalidSchema(
                    SchemaProblem::DuplicateFamily {
                        family: String::from_utf8_lossy(&w[0].name).into_owned(),
                    },
                ));
            }
        }
        for f in &self.families {
            f.validate()?;
        }
        self.split_policy()?;
        // HBase refuses flush sizes below 1 MiB unless sanity checks are off; tests use
        // small values, so the floor here is only "positive".
        if self.memstore_flush_size == 0 {
            return Err(DescriptorError::InvalidSchema(SchemaProblem::FlushSizeZero));
        }
        Ok(())
    }

    /// The family named `name`.
    pub fn family(&self, name: &[u8]) -> Option<&ColumnFamilyDescriptor> {
        self.families.iter().find(|f| f.name == name)
    }

    /// The effective durability of a mutation that asks for `requested`: its own level, or
    /// the table's, or SYNC_WAL (HBase's default).
    pub fn effective_durability(&self, requested: Durability) -> Durability {
        requested.resolve(self.durability)
    }
}

/// A [`DescriptorError::InvalidAttributeValue`] of `key` (as given) and `value`.
fn invalid_value(key: &str, value: &str, expected: AttributeRule) -> DescriptorError {
    DescriptorError::InvalidAttributeValue {
        key: key.to_string(),
        value: value.to_string(),
        expected,
    }
}

/// Parses HBase's boolean attribute values ('true'/'false', any case).
fn parse_bool(key: &str, value: &str) -> Result<bool, DescriptorError> {
    match value.to_ascii_lowercase().as_str() {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(invalid_value(key, value, AttributeRule::Bool)),
    }
}

fn parse_num<T: std::str::FromStr>(key: &str, value: &str) -> Result<T, DescriptorError> {
    value
        .trim()
        .parse()
        .map_err(|_| invalid_value(key, value, AttributeRule::NonNegativeNumber))
}

/// HBase's TTL forms: seconds, or FOREVER.
fn parse_ttl(value: &str) -> Result<u32, DescriptorError> {
    if value.eq_ignore_ascii_case("FOREVER") {
        return Ok(FOREVER);
    }
    let secs: u64 = parse_num("TTL", value)?;
    u32::try_from(secs)
        .ok()
        .filter(|s| *s <= FOREVER)
        .ok_or_else(|| invalid_value("TTL", value, AttributeRule::InRange))
}

/// Durability by HBase's names (any case).
pub fn durability_from_name(value: &str) -> Result<Durability, DescriptorError> {
    Durability::from_name(value).ok_or_else(|| {
        invalid_value(
            "DURABILITY",
            value,
            AttributeRule::OneOf("one of USE_DEFAULT, SKIP_WAL, ASYNC_WAL, SYNC_WAL, FSYNC_WAL"),
        )
    })
}

impl ColumnFamilyDescriptor {
    /// Sets one option by its HBase attribute name (as the shell's `{NAME => 'f',
    /// VERSIONS => 3}` gives them). Unknown names and out-of-range values are errors;
    /// HBase options regionkv does not implement (e.g. COMPRESSION => 'SNAPPY') are errors
    /// too, never silently ignored.
    pub fn set_attribute(&mut self, key: &str, value: &str) -> Result<(), DescriptorError> {
        let upper = key.to_ascii_uppercase();
        match upper.as_str() {
            "NAME" => {
                check_family_name(value.as_bytes())?;
                self.name = value.as_bytes().to_vec();
            }
            "VERSIONS" => self.max_versions = parse_num(key, value)?,
            "MIN_VERSIONS" => self.min_versions = parse_num(key, value)?,
            "TTL" => self.ttl_seconds = parse_ttl(value)?,
            "KEEP_DELETED_CELLS" => {
                self.keep_deleted_cells = match value.to_ascii_uppercase().as_str() {
                    "FALSE" => KeepDeletedCells::False,
                    "TRUE" => KeepDeletedCells::True,
                    "TTL" => KeepDeletedCells::Ttl,
                    _ => {
                        return Err(invalid_value(
                            "KEEP_DELETED_CELLS",
                            value,
                            AttributeRule::OneOf("FALSE, TRUE or TTL"),
                        ));
                    }
                }
            }
            "BLOOMFILTER" => {
                self.bloom_type = match value.to_ascii_uppercase().as_str() {
                    "NONE" => BloomType::None,
                    "ROW" => BloomType::Row,
                    "ROWCOL" => BloomType::RowCol,
                    _ => {
                        return Err(invalid_value(
                            "BLOOMFILTER",
                            value,
                            AttributeRule::Supported("NONE, ROW, ROWCOL"),
                        ));
                    }
                }
            }
            "BLOCKSIZE" => self.block_size = parse_num(key, value)?,
            "COMPRESSION" => {
                self.compression = match value.to_ascii_uppercase().as_str() {
                    "NONE" => Compression::None,
                    "LZ4" => Compression::Lz4,
                    _ => {
                        return Err(invalid_value(
                            "COMPRESSION",
                            value,
                            AttributeRule::Supported("NONE, LZ4"),
                        ));
                    }
                }
            }
            "DATA_BLOCK_ENCODING" => {
                self.data_block_encoding = match value.to_ascii_uppercase().as_str() {
                    "NONE" => DataBlockEncoding::None,
                    "PREFIX" => DataBlockEncoding::Prefix,
                    _ => {
                        return Err(invalid_value(
                            "DATA_BLOCK_ENCODING",
                            value,
                            AttributeRule::Supported("NONE, PREFIX"),
                        ));
                    }
                }
            }
            "IN_MEMORY" => self.in_memory = parse_bool(key, value)?,
            "BLOCKCACHE" => self.block_cache_enabled = parse_bool(key, value)?,
            "REPLICATION_SCOPE" => {
                let scope: u32 = parse_num(key, value)?;
                if scope > 1 {
                    return Err(invalid_value(
                        "REPLICATION_SCOPE",
                        value,
                        AttributeRule::ZeroOrOne,
                    ));
                }
                self.replication_scope = scope;
            }
            _ => {
                return Err(DescriptorError::UnknownAttribute {
                    scope: AttributeScope::Family,
                    key: key.to_string(),
                });
            }
        }
        Ok(())
    }

    /// Every option as HBase's shell `describe` lists them, in its order.
    pub fn attributes(&self) -> Vec<(&'static str, String)> {
        let ttl = if self.ttl_seconds == FOREVER {
            "FOREVER".to_string()
        } else {
            self.ttl_seconds.to_string()
        };
        vec![
            ("NAME", String::from_utf8_lossy(&self.name).into_owned()),
            ("BLOOMFILTER", bloom_name(self.bloom_type).to_string()),
            ("IN_MEMORY", self.in_memory.to_string()),
            ("VERSIONS", self.max_versions.to_string()),
            (
                "KEEP_DELETED_CELLS",
                self.keep_deleted_cells.name().to_string(),
            ),
            (
                "DATA_BLOCK_ENCODING",
                match self.data_block_encoding {
                    DataBlockEncoding::None => "NONE",
                    DataBlockEncoding::Prefix => "PREFIX",
                }
                .to_string(),
            ),
            (
                "COMPRESSION",
                match self.compression {
                    Compression::None => "NONE",
                    Compression::Lz4 => "LZ4",
                }
                .to_string(),
            ),
            ("TTL", ttl),
            ("MIN_VERSIONS", self.min_versions.to_string()),
            ("BLOCKCACHE", self.block_cache_enabled.to_string()),
            ("BLOCKSIZE", self.block_size.to_string()),
            ("REPLICATION_SCOPE", self.replication_scope.to_string()),
        ]
    }
}

fn bloom_name(b: BloomType) -> &'static str {
    match b {
        BloomType::None => "NONE",
        BloomType::Row => "ROW",
        BloomType::RowCol => "ROWCOL",
    }
}

impl TableDescriptor {
    /// Sets one table attribute by HBase's name (`MAX_FILESIZE`, `MEMSTORE_FLUSHSIZE`,
    /// `DURABILITY`, `READONLY`, `SPLIT_POLICY`, `COMPACTION_ENABLED`, `SPLIT_ENABLED`,
    /// `MERGE_ENABLED`). Unknown names and bad values are errors.
    pub fn set_attribute(&mut self, key: &str, value: &str) -> Result<(), DescriptorError> {
        match key.to_ascii_uppercase().as_str() {
            "MAX_FILESIZE" => self.max_file_size = parse_num(key, value)?,
            "MEMSTORE_FLUSHSIZE" => self.memstore_flush_size = parse_num(key, value)?,
            "DURABILITY" => self.durability = durability_from_name(value)?,
            "READONLY" => self.read_only = parse_bool(key, value)?,
            "SPLIT_POLICY" => self.split_policy = Some(value.to_string()),
            "COMPACTION_ENABLED" => self.compaction_enabled = parse_bool(key, value)?,
            "SPLIT_ENABLED" => self.split_enabled = parse_bool(key, value)?,
            "MERGE_ENABLED" => self.merge_enabled = parse_bool(key, value)?,
            _ => {
                return Err(DescriptorError::UnknownAttribute {
                    scope: AttributeScope::Table,
                    key: key.to_string(),
                });
            }
        }
        Ok(())
    }

    /// The table attributes that differ from HBase's defaults (what `describe` prints as
    /// TABLE_ATTRIBUTES), then every one when `all`.
    pub fn attributes(&self, all: bool) -> Vec<(&'static str, String)> {
        let d = Self {
            name: self.name.clone(),
            families: Vec::new(),
            memstore_flush_size: DEFAULT_MEMSTORE_FLUSH_SIZE,
            max_file_size: DEFAULT_MAX_FILESIZE,
            durability: Durability::UseDefault,
            read_only: false,
            split_policy: None,
            compaction_enabled: true,
            split_enabled: true,
            merge_enabled: true,
            configuration: BTreeMap::new(),
            metadata: BTreeMap::new(),
        };
        let mut out = Vec::new();
        let mut push = |k: &'static str, v: String, default: String| {
            if all || v != default {
                out.push((k, v));
            }
        };
        push(
            "MAX_FILESIZE",
            self.max_file_size.to_string(),
            d.max_file_size.to_string(),
        );
        push(
            "MEMSTORE_FLUSHSIZE",
            self.memstore_flush_size.to_string(),
            d.memstore_flush_size.to_string(),
        );
        push(
            "DURABILITY",
            self.durability.name().to_string(),
            "USE_DEFAULT".to_string(),
        );
        push("READONLY", self.read_only.to_string(), "false".to_string());
        push(
            "SPLIT_POLICY",
            self.split_policy.clone().unwrap_or_default(),
            String::new(),
        );
        push(
            "COMPACTION_ENABLED",
            self.compaction_enabled.to_string(),
            "true".to_string(),
        );
        push(
            "SPLIT_ENABLED",
            self.split_enabled.to_string(),
            "true".to_string(),
        );
        push(
            "MERGE_ENABLED",
            self.merge_enabled.to_string(),
            "true".to_string(),
        );
        out
    }

    /// The table's split policy (HBase 2.x's default, SteppingSplitPolicy, when
    /// SPLIT_POLICY is unset); an unknown class or a prefix policy without its parameter
    /// is an error.
    pub fn split_policy(&self) -> Result<crate::split::SplitPolicy, DescriptorError> {
        match &self.split_policy {
            None => Ok(crate::split::SplitPolicy::default()),
            Some(name) => Ok(crate::split::SplitPolicy::from_class_name(
                name,
                &self.metadata,
            )?),
        }
    }

    /// HBase's master check of a table's coprocessors on create and alter
    /// (`TableDescriptorChecker#checkClassLoading`): every class a spec names must load
    /// (`loadable`: the classes regionkv ships, and those the program registered), unless
    /// the table turns sanity checks off (`hbase.table.sanity.checks` = false in its
    /// CONFIGURATION or METADATA).
    pub fn check_coprocessors(
        &self,
        loadable: &dyn Fn(&str) -> bool,
    ) -> Result<(), DescriptorError> {
        let sanity = self
            .configuration
            .get(crate::coprocessor::SANITY_CHECKS_KEY)
            .or_else(|| self.metadata.get(crate::coprocessor::SANITY_CHECKS_KEY))
            .is_none_or(|v| !v.trim().eq_ignore_ascii_case("false"));
        match self
            .coprocessors()
            .into_iter()
            .find(|(_, s)| !loadable(&s.class_name))
        {
            Some((_, spec)) if sanity => Err(DescriptorError::InvalidSchema(
                SchemaProblem::CoprocessorNotLoadable {
                    class: spec.class_name,
                },
            )),
            _ => Ok(()),
        }
    }

    /// The table's coprocessors (its `coprocessor$N` values that parse), in the order they
    /// run: priority, then N.
    pub fn coprocessors(&self) -> Vec<(String, crate::coprocessor::CoprocessorSpec)> {
        crate::coprocessor::coprocessors(&self.metadata)
    }

    /// True when a coprocessor of this class is among the table's (loaded or not).
    pub fn has_coprocessor(&self, class_name: &str) -> bool {
        self.coprocessors()
            .iter()
            .any(|(_, s)| s.class_name == class_name)
    }

    /// Adds a coprocessor from an HBase spec (`jar|class|priority|k=v,...`, what the
    /// shell's `alter 't', 'coprocessor' => ...` takes), stored verbatim under the next
    /// `coprocessor$N`; returns the key. Whether regionkv can load the class is checked
    /// when the table is created or altered.
    ///
    /// ```
    /// use regionkv_region::{ColumnFamilyDescriptor, TableDescriptor};
    /// let mut t = TableDescriptor::new("t", vec![ColumnFamilyDescriptor::new(b"cf")?])?;
    /// let key = t.add_coprocessor("|org.apache.hadoop.hbase.coprocessor.AggregateImplementation||")?;
    /// assert_eq!(key, "coprocessor$1");
    /// assert!(t.has_coprocessor("org.apache.hadoop.hbase.coprocessor.AggregateImplementation"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn add_coprocessor(&mut self, spec: &str) -> Result<String, crate::coprocessor::SpecError> {
        crate::coprocessor::add_spec(&mut self.metadata, spec)
    }

    /// Removes the coprocessor of this class (HBase's `removeCoprocessor`); false when the
    /// table has none.
    pub fn remove_coprocessor(&mut self, class_name: &str) -> bool {
        crate::coprocessor::remove_class(&mut self.metadata, class_name)
    }

    /// A configuration value: the table's CONFIGURATION override, else `None`.
    pub fn config(&self, key: &str) -> Option<&str> {
        self.configuration.get(key).map(String::as_str)
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

    #[test]
    fn attributes_round_trip_by_hbase_names() {
        let mut f = ColumnFamilyDescriptor::new(b"cf").unwrap();
        for (k, v) in [
            ("VERSIONS", "3"),
            ("MIN_VERSIONS", "1"),
            ("TTL", "86400"),
            ("KEEP_DELETED_CELLS", "ttl"),
            ("BLOOMFILTER", "ROWCOL"),
            ("BLOCKSIZE", "8192"),
            ("COMPRESSION", "lz4"),
            ("DATA_BLOCK_ENCODING", "PREFIX"),
            ("IN_MEMORY", "true"),
            ("BLOCKCACHE", "false"),
        ] {
            f.set_attribute(k, v).unwrap();
        }
        f.validate().unwrap();
        let mut g = ColumnFamilyDescriptor::new(b"cf").unwrap();
        for (k, v) in f.attributes() {
            g.set_attribute(k, &v).unwrap();
        }
        assert_eq!(f, g);
        assert_eq!(f.ttl_millis(), Some(86_400_000));
        let err = |k: &str, v: &str| {
            let mut f = ColumnFamilyDescriptor::new(b"cf").unwrap();
            f.set_attribute(k, v).is_err()
        };
        assert!(err("COMPRESSION", "SNAPPY"));
        assert!(err("VERSIONS", "-1"));
        assert!(err("VERSIONS", "x"));
        // A Java int in HBase: 2^31 is refused at create and alter, but a descriptor an
        // earlier build stored with it still loads.
        assert!(!err("VERSIONS", "2147483648"));
        assert!(err("MIN_VERSIONS", "4294967296"));
        let mut big = ColumnFamilyDescriptor::new(b"cf").unwrap();
        big.set_attribute("VERSIONS", "2147483648").unwrap();
        let big = TableDescriptor::new("t", vec![big]).unwrap();
        assert!(big.check_hbase_limits().is_err());
        let mut ok = ColumnFamilyDescriptor::new(b"cf").unwrap();
        ok.set_attribute("VERSIONS", "2147483647").unwrap();
        assert!(
            TableDescriptor::new("t", vec![ok])
                .unwrap()
                .check_hbase_limits()
                .is_ok()
        );
        assert!(err("NO_SUCH", "1"));
        assert!(err("IN_MEMORY", "yes"));
        assert!(err("TTL", "99999999999"));
        let mut t = TableDescriptor::new("t", vec![f]).unwrap();
        assert!(t.attributes(false).is_empty());
        t.set_attribute("MAX_FILESIZE", "1000").unwrap();
        t.set_attribute("DURABILITY", "ASYNC_WAL").unwrap();
        assert_eq!(
            t.attributes(false),
            vec![
                ("MAX_FILESIZE", "1000".to_string()),
                ("DURABILITY", "ASYNC_WAL".to_string())
            ]
        );
        assert!(t.set_attribute("DURABILITY", "SOMETIMES").is_err());
        t.set_attribute(
            "SPLIT_POLICY",
            "org.apache.hadoop.hbase.regionserver.DisabledRegionSplitPolicy",
        )
        .unwrap();
        t.validate().unwrap();
        t.split_policy = Some("NoSuchPolicy".into());
        assert!(t.validate().is_err());
        t.split_policy = Some("KeyPrefixRegionSplitPolicy".into());
        assert!(t.validate().is_err(), "the prefix length is required");
        t.metadata.insert(
            "KeyPrefixRegionSplitPolicy.prefix_length".into(),
            "2".into(),
        );
        t.validate().unwrap();
        assert!(t.set_attribute("COLOUR", "red").is_err());
    }
}
