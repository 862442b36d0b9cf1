//! The region crate's error type. Lower layers' errors are wrapped with `#[from]`, keeping
//! their `source()`; corruption found here names the file and offset like theirs do.

use std::path::PathBuf;
use thiserror::Error;

/// Errors of regions and stores.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum Error {
    /// A coprocessor hook of a flush or compaction failed it (`coprocessor::RegionHooks`).
    #[error("coprocessor {class}: {message}")]
    Coprocessor {
        /// The observer's class.
        class: String,
        /// Its message.
        message: String,
    },
    /// The I/O seam failed.
    #[error(transparent)]
    Fs(#[from] regionkv_fs::Error),
    /// A cell, row or name was rejected.
    #[error(transparent)]
    Cell(#[from] regionkv_cell::Error),
    /// A storefile failed.
    #[error(transparent)]
    StoreFile(#[from] regionkv_storefile::Error),
    /// The write-ahead log failed.
    #[error(transparent)]
    Wal(#[from] regionkv_wal::Error),
    /// A split algorithm or split policy rejected its input.
    #[error(transparent)]
    Split(#[from] crate::split::SplitError),
    /// A manifest or region file whose bytes are wrong.
    #[error("corrupt {what} {}: at offset {offset}: {reason}", path.display())]
    Corrupt {
        /// Which kind of file.
        what: &'static str,
        /// The file.
        path: PathBuf,
        /// Byte offset of the bad data.
        offset: u64,
        /// What is wrong.
        reason: String,
    },
    /// A file that is not the one its place expects: a storefile copied or moved from
    /// another region, family or table, a manifest swapped with another region's, a file
    /// replaced by another of a different size or trailer. Says what the file claims to be
    /// and where (as what) it was found.
    #[error("{what} {} belongs elsewhere: it is {claims}, but was found as {found_as}", path.display())]
    Misplaced {
        /// Which kind of file.
        what: &'static str,
        /// The file.
        path: PathBuf,
        /// What the file says it is.
        claims: String,
        /// What the place it was found in expects.
        found_as: String,
    },
    /// A table or column family attribute name that does not exist
    /// ([`TableDescriptor::set_attribute`](crate::TableDescriptor::set_attribute),
    /// [`ColumnFamilyDescriptor::set_attribute`](crate::ColumnFamilyDescriptor::set_attribute),
    /// whose [`DescriptorError::UnknownAttribute`] becomes this).
    ///
    /// ```
    /// use regionkv_region::{AttributeScope, ColumnFamilyDescriptor, Error};
    /// let mut cf = ColumnFamilyDescriptor::new(b"cf")?;
    /// let err = Error::from(cf.set_attribute("COLOUR", "blue").unwrap_err());
    /// assert!(matches!(&err, Error::UnknownAttribute { scope: AttributeScope::Family, key } if key == "COLOUR"));
    /// assert_eq!(err.to_string(), "unknown column family attribute COLOUR");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[error("unknown {scope} attribute {key}")]
    UnknownAttribute {
        /// Whether a table or a family attribute was named.
        scope: AttributeScope,
        /// The name, as given.
        key: String,
    },
    /// An attribute value that does not parse or is out of range (`VERSIONS => 'x'`,
    /// `BLOOMFILTER => 'XOR'`, `TTL => 99999999999` ...); `expected` says what the
    /// attribute takes, and decides the message.
    ///
    /// ```
    /// use regionkv_region::{AttributeRule, ColumnFamilyDescriptor, Error};
    /// let mut cf = ColumnFamilyDescriptor::new(b"cf")?;
    /// let err = Error::from(cf.set_attribute("VERSIONS", "many").unwrap_err());
    /// assert!(matches!(&err, Error::InvalidAttributeValue { expected: AttributeRule::NonNegativeNumber, .. }));
    /// assert_eq!(err.to_string(), "VERSIONS must be a non-negative number, not 'many'");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[error("{}", attribute_value_message(key, value, expected))]
    InvalidAttributeValue {
        /// The attribute name, as given.
        key: String,
        /// The value, as given.
        value: String,
        /// What the attribute takes.
        expected: AttributeRule,
    },
    /// A descriptor that breaks a schema rule (HBase's `TableDescriptorChecker`): no
    /// family, a family defined twice, VERSIONS, MIN_VERSIONS, TTL or MEMSTORE_FLUSHSIZE
    /// out of range.
    ///
    /// ```
    /// use regionkv_region::{Error, SchemaProblem, TableDescriptor};
    /// let err = Error::from(TableDescriptor::new("t", vec![]).unwrap_err());
    /// assert!(matches!(&err, Error::InvalidSchema(SchemaProblem::NoFamily { table }) if table == "t"));
    /// assert_eq!(err.to_string(), "table t should have at least one column family");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[error("{0}")]
    InvalidSchema(SchemaProblem),
    /// A read or write the region refuses as HBase's region server does (zero versions,
    /// columns on a raw scan, batch with a row filter, a cell of another row).
    #[error("{0}")]
    InvalidRequest(RequestProblem),
    /// A split or merge the region refuses to close for.
    #[error("region {region} {reason}")]
    NotSplittable {
        /// The region's encoded name.
        region: String,
        /// Why.
        reason: SplitRefusal,
    },
    /// [`Region::create`](crate::Region::create) in a directory that already holds a region.
    #[error("a region already exists in {}", path.display())]
    RegionExists {
        /// The region directory.
        path: PathBuf,
    },
    /// An internal invariant does not hold (a bug, never a consequence of user input): a
    /// manifest naming a storefile the store does not have open, a compaction of a file
    /// that is not live.
    #[error("{what}")]
    Inconsistent {
        /// The region's encoded name.
        region: String,
        /// What does not hold.
        what: String,
    },
    /// A mutation names a family the table does not have (HBase's
    /// NoSuchColumnFamilyException wording).
    #[error("Column family {family} does not exist in region {region} in table {table}")]
    NoSuchColumnFamily {
        /// The family.
        family: String,
        /// The region's encoded name.
        region: String,
        /// The table.
        table: String,
    },
    /// A row outside the region's key range (HBase's WrongRegionException).
    #[error("row {row} is not in region {region} [{start}, {end})")]
    WrongRegion {
        /// The row, escaped.
        row: String,
        /// The region's encoded name.
        region: String,
        /// Start key, escaped.
        start: String,
        /// End key, escaped.
        end: String,
    },
    /// The row lock could not be had in time.
    #[error("timed out waiting for lock for row {0}")]
    RowLockTimeout(String),
    /// Writes are held back: the memstore is over its blocking size and the flush did not
    /// catch up within the wait bound (HBase's RegionTooBusyException).
    #[error(
        "region {region} is too busy: memstore size {size} is above the blocking limit {limit}"
    )]
    RegionTooBusy {
        /// The region's encoded name.
        region: String,
        /// The size over the limit: the region's memstore heap size as HBase models it
        /// (against its blocking size), or the Db's memstore heap size (against the global
        /// limit).
        size: u64,
        /// The blocking limit.
        limit: u64,
    },
    /// An earlier failure (a failed WAL sync or flush) makes the region refuse writes until
    /// it is reopened (sticky error, as leveldb's bg_error_).
    #[error("region {region} refuses writes after an earlier failure: {cause}")]
    Poisoned {
        /// The region's encoded name.
        region: String,
        /// The first failure.
        cause: String,
    },
    /// The WAL write of the mini-batch this mutation was part of failed
    /// ([`crate::Region::mutate_rows`]; the batch's first mutation reports the WAL's own
    /// error). As after any failed WAL write, the outcome is unknown: the record may replay
    /// when the region reopens. The region is poisoned.
    #[error("region {region}: the WAL write of this mutation's batch failed: {cause}")]
    BatchWalFailed {
        /// The region's encoded name.
        region: String,
        /// The WAL's error, as text.
        cause: String,
    },
    /// The region is closed.
    #[error("region {0} is closed")]
    Closed(String),
    /// The region was opened read-only (a read-only open of the Db): `what` it was asked
    /// to do would write.
    #[error("region {region} is read-only: {what} refused")]
    ReadOnly {
        /// The region's encoded name.
        region: String,
        /// The refused operation (`write`, `flush`, `compaction`, `bulk load`, `split`).
        what: &'static str,
    },
}

/// What the descriptor methods report ([`TableDescriptor`](crate::TableDescriptor)'s and
/// [`ColumnFamilyDescriptor`](crate::ColumnFamilyDescriptor)'s `new`, `validate`,
/// `set_attribute` ..., [`durability_from_name`](crate::descriptor::durability_from_name)):
/// only what a descriptor can be wrong about, so a caller building or editing one matches
/// on these and nothing else. Each becomes the [`Error`] variant of the same name (a name
/// a [`Error::Cell`], a file option a [`Error::StoreFile`], a split policy a
/// [`Error::Split`]), printing the same text.
///
/// ```
/// use regionkv_region::{AttributeScope, ColumnFamilyDescriptor, DescriptorError, Error};
/// let mut cf = ColumnFamilyDescriptor::new(b"cf")?;
/// let err = cf.set_attribute("COLOUR", "blue").unwrap_err();
/// assert!(matches!(&err, DescriptorError::UnknownAttribute { scope: AttributeScope::Family, key } if key == "COLOUR"));
/// assert_eq!(err.to_string(), "unknown column family attribute COLOUR");
/// assert!(matches!(Error::from(err), Error::UnknownAttribute { .. }));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum DescriptorError {
    /// A table or family name that breaks HBase's naming rules or length limits.
    ///
    /// ```
    /// use regionkv_region::{ColumnFamilyDescriptor, DescriptorError};
    /// let err = ColumnFamilyDescriptor::new(b"a:b").unwrap_err();
    /// assert!(matches!(err, DescriptorError::InvalidName(_)));
    /// ```
    #[error(transparent)]
    InvalidName(#[from] regionkv_cell::Error),
    /// An attribute name that does not exist.
    ///
    /// ```
    /// use regionkv_region::{AttributeScope, DescriptorError, TableDescriptor, ColumnFamilyDescriptor};
    /// let mut t = TableDescriptor::new("t", vec![ColumnFamilyDescriptor::new(b"cf")?])?;
    /// let err = t.set_attribute("OWNER", "me").unwrap_err();
    /// assert!(matches!(err, DescriptorError::UnknownAttribute { scope: AttributeScope::Table, .. }));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[error("unknown {scope} attribute {key}")]
    UnknownAttribute {
        /// Whether a table or a family attribute was named.
        scope: AttributeScope,
        /// The name, as given.
        key: String,
    },
    /// An attribute value that does not parse or is out of range; `expected` says what the
    /// attribute takes, and decides the message.
    ///
    /// ```
    /// use regionkv_region::{AttributeRule, ColumnFamilyDescriptor, DescriptorError};
    /// let mut cf = ColumnFamilyDescriptor::new(b"cf")?;
    /// let err = cf.set_attribute("TTL", "99999999999").unwrap_err();
    /// assert!(matches!(err, DescriptorError::InvalidAttributeValue { expected: AttributeRule::InRange, .. }));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[error("{}", attribute_value_message(key, value, expected))]
    InvalidAttributeValue {
        /// The attribute name, as given.
        key: String,
        /// The value, as given.
        value: String,
        /// What the attribute takes.
        expected: AttributeRule,
    },
    /// A descriptor that breaks a schema rule (HBase's `TableDescriptorChecker`).
    ///
    /// ```
    /// use regionkv_region::{DescriptorError, SchemaProblem, TableDescriptor};
    /// let err = TableDescriptor::new("t", vec![]).unwrap_err();
    /// assert!(matches!(err, DescriptorError::InvalidSchema(SchemaProblem::NoFamily { .. })));
    /// ```
    #[error("{0}")]
    InvalidSchema(SchemaProblem),
    /// A family option the storefile writer refuses (BLOCKSIZE out of its range): the
    /// writer's message.
    ///
    /// ```
    /// use regionkv_region::{ColumnFamilyDescriptor, DescriptorError};
    /// let mut cf = ColumnFamilyDescriptor::new(b"cf")?;
    /// cf.block_size = 10;
    /// let err = cf.validate().unwrap_err();
    /// assert!(matches!(err, DescriptorError::InvalidFileOption(_)));
    /// assert_eq!(err.to_string(), "invalid storefile option: BLOCKSIZE 10 must be between 1024 and 16777216");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[error("invalid storefile option: {0}")]
    InvalidFileOption(String),
    /// A SPLIT_POLICY regionkv does not know, or a policy without its parameters.
    ///
    /// ```
    /// use regionkv_region::{ColumnFamilyDescriptor, DescriptorError, TableDescriptor};
    /// let mut t = TableDescriptor::new("t", vec![ColumnFamilyDescriptor::new(b"cf")?])?;
    /// t.set_attribute("SPLIT_POLICY", "NoSuchPolicy")?;
    /// assert!(matches!(t.validate(), Err(DescriptorError::InvalidSplitPolicy(_))));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[error(transparent)]
    InvalidSplitPolicy(#[from] crate::split::SplitError),
}

impl DescriptorError {
    /// The storefile writer's refusal of a family's options.
    pub(crate) fn file_option(e: regionkv_storefile::Error) -> Self {
        match e {
            regionkv_storefile::Error::InvalidOption(message) => {
                DescriptorError::InvalidFileOption(message)
            }
            // `StoreFileWriterOptions::validate` reports nothing else; were it to, its
            // message stands whole.
            other => DescriptorError::InvalidFileOption(other.to_string()),
        }
    }
}

impl From<DescriptorError> for Error {
    fn from(e: DescriptorError) -> Self {
        match e {
            DescriptorError::InvalidName(e) => Error::Cell(e),
            DescriptorError::UnknownAttribute { scope, key } => {
                Error::UnknownAttribute { scope, key }
            }
            DescriptorError::InvalidAttributeValue {
                key,
                value,
                expected,
            } => Error::InvalidAttributeValue {
                key,
                value,
                expected,
            },
            DescriptorError::InvalidSchema(problem) => Error::InvalidSchema(problem),
            DescriptorError::InvalidFileOption(message) => {
                Error::StoreFile(regionkv_storefile::Error::InvalidOption(message))
            }
            DescriptorError::InvalidSplitPolicy(e) => Error::Split(e),
        }
    }
}

/// Which attributes an [`Error::UnknownAttribute`] was looked up in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum AttributeScope {
    /// A table attribute (`MAX_FILESIZE`, `DURABILITY`, ...).
    Table,
    /// A column family attribute (`VERSIONS`, `TTL`, ...).
    Family,
}

impl std::fmt::Display for AttributeScope {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            AttributeScope::Table => "table",
            AttributeScope::Family => "column family",
        })
    }
}

/// What an attribute takes, in an [`Error::InvalidAttributeValue`]; each rule has its own
/// message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum AttributeRule {
    /// `true` or `false`, any case: "KEY must be true or false, not 'VALUE'".
    Bool,
    /// A non-negative decimal number: "KEY must be a non-negative number, not 'VALUE'".
    NonNegativeNumber,
    /// One of the listed names: "KEY must be LIST, not 'VALUE'".
    OneOf(&'static str),
    /// One of the implemented options: "KEY 'VALUE' is not supported (LIST)".
    Supported(&'static str),
    /// 0 or 1 (REPLICATION_SCOPE): "KEY must be 0 or 1, not VALUE".
    ZeroOrOne,
    /// A number in the attribute's range (TTL): "KEY VALUE is out of range".
    InRange,
    /// A Java `int` (VERSIONS, MIN_VERSIONS on create or alter): "KEY VALUE is out of
    /// range: it is a Java int, at most 2147483647".
    JavaInt,
}

impl AttributeRule {
    /// The message for `value`, refused for attribute `key` by this rule (the text of
    /// [`Error::InvalidAttributeValue`] and [`DescriptorError::InvalidAttributeValue`]).
    ///
    /// ```
    /// use regionkv_region::AttributeRule;
    /// assert_eq!(AttributeRule::ZeroOrOne.message("REPLICATION_SCOPE", "2"), "REPLICATION_SCOPE must be 0 or 1, not 2");
    /// ```
    pub fn message(&self, key: &str, value: &str) -> String {
        attribute_value_message(key, value, self)
    }
}

/// The message of [`Error::InvalidAttributeValue`].
fn attribute_value_message(key: &str, value: &str, expected: &AttributeRule) -> String {
    match expected {
        AttributeRule::Bool => format!("{key} must be true or false, not '{value}'"),
        AttributeRule::NonNegativeNumber => {
            format!("{key} must be a non-negative number, not '{value}'")
        }
        AttributeRule::OneOf(list) => format!("{key} must be {list}, not '{value}'"),
        AttributeRule::Supported(list) => format!("{key} '{value}' is not supported ({list})"),
        AttributeRule::ZeroOrOne => format!("{key} must be 0 or 1, not {value}"),
        AttributeRule::InRange => format!("{key} {value} is out of range"),
        AttributeRule::JavaInt => {
            format!("{key} {value} is out of range: it is a Java int, at most 2147483647")
        }
    }
}

/// The schema rule an [`Error::InvalidSchema`] breaks.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum SchemaProblem {
    /// A table without column families.
    #[error("table {table} should have at least one column family")]
    NoFamily {
        /// The table.
        table: String,
    },
    /// Two families of one name.
    #[error("column family {family} is defined twice")]
    DuplicateFamily {
        /// The family.
        family: String,
    },
    /// VERSIONS of 0.
    #[error("VERSIONS for column family {family} must be positive")]
    VersionsNotPositive {
        /// The family.
        family: String,
    },
    /// MIN_VERSIONS above VERSIONS.
    #[error(
        "MIN_VERSIONS ({min_versions}) for column family {family} must not exceed VERSIONS ({versions})"
    )]
    MinVersionsAboveVersions {
        /// The family.
        family: String,
        /// Its MIN_VERSIONS.
        min_versions: u32,
        /// Its VERSIONS.
        versions: u32,
    },
    /// TTL of 0.
    #[error("TTL for column family {family} must be positive")]
    TtlNotPositive {
        /// The family.
        family: String,
    },
    /// MEMSTORE_FLUSHSIZE of 0.
    #[error("MEMSTORE_FLUSHSIZE must be positive")]
    FlushSizeZero,
    /// A `coprocessor$N` naming a class regionkv does not ship (HBase's master refuses a
    /// class it cannot load, with this text).
    #[error(
        "Class {class} cannot be loaded Set hbase.table.sanity.checks to false at conf or table descriptor if you want to bypass sanity checks"
    )]
    CoprocessorNotLoadable {
        /// The class the spec names.
        class: String,
    },
}

/// Why a region refuses a read or write, in an [`Error::InvalidRequest`] (HBase's
/// DoNotRetryIOException cases of the region server).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RequestProblem {
    /// A read asking for 0 versions.
    #[error("the number of versions to read must be positive")]
    ZeroVersions,
    /// A raw scan naming columns.
    #[error("Cannot specify any column for a raw scan")]
    ColumnsOnRawScan,
    /// A scan with a batch size and a filter that filters whole rows.
    #[error("Cannot set batch on a scan using a filter that returns true for filter.hasFilterRow")]
    BatchWithRowFilter,
    /// A mutation whose cells are not all of its row.
    #[error("cell of row {cell_row} in a mutation of row {row}")]
    CellOfOtherRow {
        /// The cell's row, escaped.
        cell_row: String,
        /// The mutation's row, escaped.
        row: String,
    },
}

/// Why a region cannot be split or merged, in an [`Error::NotSplittable`].
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SplitRefusal {
    /// The region still reads files of its parent through references.
    #[error("has references and cannot split or merge until they are compacted away")]
    HasReferences,
}

/// Result alias of the region crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// Each class of what was one `InvalidDescriptor(String)` prints the text it printed
    /// then (the shell's transcripts and the gateways show it).
    #[test]
    fn messages_are_the_old_descriptor_texts() {
        let value = |key: &str, value: &str, expected| {
            Error::InvalidAttributeValue {
                key: key.into(),
                value: value.into(),
                expected,
            }
            .to_string()
        };
        let cases = [
            (
                Error::UnknownAttribute {
                    scope: AttributeScope::Family,
                    key: "colour".into(),
                }
                .to_string(),
                "unknown column family attribute colour",
            ),
            (
                Error::UnknownAttribute {
                    scope: AttributeScope::Table,
                    key: "OWNER".into(),
                }
                .to_string(),
                "unknown table attribute OWNER",
            ),
            (
                value("in_memory", "yes", AttributeRule::Bool),
                "in_memory must be true or false, not 'yes'",
            ),
            (
                value("VERSIONS", "-1", AttributeRule::NonNegativeNumber),
                "VERSIONS must be a non-negative number, not '-1'",
            ),
            (
                value(
                    "KEEP_DELETED_CELLS",
                    "maybe",
                    AttributeRule::OneOf("FALSE, TRUE or TTL"),
                ),
                "KEEP_DELETED_CELLS must be FALSE, TRUE or TTL, not 'maybe'",
            ),
            (
                value(
                    "COMPRESSION",
                    "SNAPPY",
                    AttributeRule::Supported("NONE, LZ4"),
                ),
                "COMPRESSION 'SNAPPY' is not supported (NONE, LZ4)",
            ),
            (
                value("REPLICATION_SCOPE", "2", AttributeRule::ZeroOrOne),
                "REPLICATION_SCOPE must be 0 or 1, not 2",
            ),
            (
                value("TTL", "99999999999", AttributeRule::InRange),
                "TTL 99999999999 is out of range",
            ),
            (
                value("VERSIONS", "3000000000", AttributeRule::JavaInt),
                "VERSIONS 3000000000 is out of range: it is a Java int, at most 2147483647",
            ),
            (
                Error::InvalidSchema(SchemaProblem::NoFamily { table: "t".into() }).to_string(),
                "table t should have at least one column family",
            ),
            (
                Error::InvalidSchema(SchemaProblem::DuplicateFamily {
                    family: "cf".into(),
                })
                .to_string(),
                "column family cf is defined twice",
            ),
            (
                Error::InvalidSchema(SchemaProblem::VersionsNotPositive {
                    family: "cf".into(),
                })
                .to_string(),
                "VERSIONS for column family cf must be positive",
            ),
            (
                Error::InvalidSchema(SchemaProblem::MinVersionsAboveVersions {
                    family: "cf".into(),
                    min_versions: 4,
                    versions: 3,
                })
                .to_string(),
                "MIN_VERSIONS (4) for column family cf must not exceed VERSIONS (3)",
            ),
            (
                Error::InvalidSchema(SchemaProblem::TtlNotPositive {
                    family: "cf".into(),
                })
                .to_string(),
                "TTL for column family cf must be positive",
            ),
            (
                Error::InvalidSchema(SchemaProblem::FlushSizeZero).to_string(),
                "MEMSTORE_FLUSHSIZE must be positive",
            ),
            (
                Error::InvalidRequest(RequestProblem::ZeroVersions).to_string(),
                "the number of versions to read must be positive",
            ),
            (
                Error::InvalidRequest(RequestProblem::ColumnsOnRawScan).to_string(),
                "Cannot specify any column for a raw scan",
            ),
            (
                Error::InvalidRequest(RequestProblem::BatchWithRowFilter).to_string(),
                "Cannot set batch on a scan using a filter that returns true for filter.hasFilterRow",
            ),
            (
                Error::InvalidRequest(RequestProblem::CellOfOtherRow {
                    cell_row: "b".into(),
                    row: "a".into(),
                })
                .to_string(),
                "cell of row b in a mutation of row a",
            ),
            (
                Error::NotSplittable {
                    region: "0123abcd".into(),
                    reason: SplitRefusal::HasReferences,
                }
                .to_string(),
                "region 0123abcd has references and cannot split or merge until they are compacted away",
            ),
            (
                Error::RegionExists {
                    path: "/db/data/default/t/0123abcd".into(),
                }
                .to_string(),
                "a region already exists in /db/data/default/t/0123abcd",
            ),
            (
                Error::Inconsistent {
                    region: "0123abcd".into(),
                    what: "storefile 7 of the manifest is not open".into(),
                }
                .to_string(),
                "storefile 7 of the manifest is not open",
            ),
        ];
        for (got, want) in cases {
            assert_eq!(got, want);
        }
    }

    #[test]
    fn descriptors_report_each_class() {
        let mut cf = crate::ColumnFamilyDescriptor::new(b"cf").unwrap();
        assert!(matches!(
            cf.set_attribute("BLOOMFILTER", "xor"),
            Err(DescriptorError::InvalidAttributeValue {
                expected: AttributeRule::Supported(_),
                ..
            })
        ));
        cf.min_versions = 5;
        assert!(matches!(
            cf.validate(),
            Err(DescriptorError::InvalidSchema(
                SchemaProblem::MinVersionsAboveVersions { .. }
            ))
        ));
        assert!(matches!(
            crate::TableDescriptor::new("t", vec![]),
            Err(DescriptorError::InvalidSchema(
                SchemaProblem::NoFamily { .. }
            ))
        ));
        assert!(matches!(
            crate::TableDescriptor::new("bad name!", vec![]),
            Err(DescriptorError::InvalidName(
                regionkv_cell::Error::IllegalTableName { .. }
            ))
        ));
        let durability = crate::descriptor::durability_from_name("SOMETIMES").unwrap_err();
        assert!(matches!(
            durability,
            DescriptorError::InvalidAttributeValue {
                expected: AttributeRule::OneOf(_),
                ..
            }
        ));
        assert_eq!(
            durability.to_string(),
            "DURABILITY must be one of USE_DEFAULT, SKIP_WAL, ASYNC_WAL, SYNC_WAL, FSYNC_WAL, not 'SOMETIMES'"
        );
    }

    /// A descriptor error becomes the region error it was before it had its own type,
    /// with the same text.
    #[test]
    fn descriptor_errors_become_the_region_errors_they_were() {
        let convert = |e: DescriptorError| {
            let text = e.to_string();
            let region = Error::from(e);
            assert_eq!(region.to_string(), text);
            region
        };
        let mut cf = crate::ColumnFamilyDescriptor::new(b"cf").unwrap();
        let mut table = crate::TableDescriptor::new("t", vec![cf.clone()]).unwrap();
        let e = convert(crate::ColumnFamilyDescriptor::new(b"a:b").unwrap_err());
        assert!(matches!(e, Error::Cell(_)), "{e:?}");
        cf.block_size = 10;
        let e = convert(cf.validate().unwrap_err());
        assert!(
            matches!(
                e,
                Error::StoreFile(regionkv_storefile::Error::InvalidOption(_))
            ),
            "{e:?}"
        );
        assert_eq!(
            e.to_string(),
            "invalid storefile option: BLOCKSIZE 10 must be between 1024 and 16777216"
        );
        table.split_policy = Some("NoSuchPolicy".into());
        let e = convert(table.validate().unwrap_err());
        assert!(matches!(e, Error::Split(_)), "{e:?}");
        let e = convert(table.set_attribute("OWNER", "me").unwrap_err());
        assert!(matches!(e, Error::UnknownAttribute { .. }), "{e:?}");
        let e = convert(table.set_attribute("READONLY", "maybe").unwrap_err());
        assert!(matches!(e, Error::InvalidAttributeValue { .. }), "{e:?}");
        let e = convert(crate::TableDescriptor::new("t", vec![]).unwrap_err());
        assert!(matches!(e, Error::InvalidSchema(_)), "{e:?}");
    }
}
