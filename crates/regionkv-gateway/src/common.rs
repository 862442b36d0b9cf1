//! What both gateways share: HBase's column syntax, the mapping of regionkv errors onto
//! the exception classes HBase's gateways report, and read-only mode.

use regionkv::Error;

/// A column as HBase's `CellUtil.parseColumn` splits it: `cf` (no colon) names the whole
/// family; `cf:` names the family's empty qualifier; `cf:q` one column. Only the first
/// colon splits, so a qualifier may contain colons.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Column {
    /// The whole family.
    Family(Vec<u8>),
    /// One column (the qualifier may be empty).
    Qualified(Vec<u8>, Vec<u8>),
}

impl Column {
    /// Parses `family[:qualifier]`.
    ///
    /// ```
    /// use regionkv_gateway::common::Column;
    /// assert_eq!(Column::parse(b"cf"), Column::Family(b"cf".to_vec()));
    /// assert_eq!(Column::parse(b"cf:"), Column::Qualified(b"cf".to_vec(), vec![]));
    /// assert_eq!(Column::parse(b"cf:a:b"), Column::Qualified(b"cf".to_vec(), b"a:b".to_vec()));
    /// ```
    pub fn parse(column: &[u8]) -> Column {
        match column.iter().position(|&b| b == b':') {
            None => Column::Family(column.to_vec()),
            Some(i) => Column::Qualified(column[..i].to_vec(), column[i + 1..].to_vec()),
        }
    }

    /// As [`Column::parse`], borrowing: `(family, None)` for a bare family,
    /// `(family, Some(qualifier))` otherwise.
    ///
    /// ```
    /// use regionkv_gateway::common::Column;
    /// assert_eq!(Column::split(b"cf"), (&b"cf"[..], None));
    /// assert_eq!(Column::split(b"cf:q:r"), (&b"cf"[..], Some(&b"q:r"[..])));
    /// ```
    pub fn split(column: &[u8]) -> (&[u8], Option<&[u8]>) {
        match column.iter().position(|&b| b == b':') {
            None => (column, None),
            Some(i) => (&column[..i], Some(&column[i + 1..])),
        }
    }

    /// The family.
    pub fn family(&self) -> &[u8] {
        match self {
            Column::Family(f) | Column::Qualified(f, _) => f,
        }
    }
}

/// `family:qualifier`, the key of a cell in Thrift's TRowResult and REST's CellSet.
pub fn column_name(family: &[u8], qualifier: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(family.len() + 1 + qualifier.len());
    out.extend_from_slice(family);
    out.push(b':');
    out.extend_from_slice(qualifier);
    out
}

/// HBase's `HConstants.LATEST_TIMESTAMP` (Long.MAX_VALUE): "now" on writes, no upper bound
/// on reads.
pub const LATEST_TIMESTAMP: i64 = i64::MAX;

/// How a regionkv error shows through a gateway: the Java exception HBase would raise for
/// it, which decides Thrift's exception text and REST's status code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// org.apache.hadoop.hbase.TableNotFoundException (REST: 404).
    TableNotFound,
    /// org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException (REST: 404).
    NoSuchColumnFamily,
    /// org.apache.hadoop.hbase.TableExistsException.
    TableExists,
    /// org.apache.hadoop.hbase.TableNotEnabledException.
    TableNotEnabled,
    /// org.apache.hadoop.hbase.TableNotDisabledException.
    TableNotDisabled,
    /// org.apache.hadoop.hbase.NamespaceNotFoundException (REST: 404).
    NamespaceNotFound,
    /// org.apache.hadoop.hbase.NamespaceExistException.
    NamespaceExists,
    /// A bad argument: java.lang.IllegalArgumentException (REST: 400).
    IllegalArgument,
    /// Anything else: java.io.IOException (REST: 503).
    Io,
}

impl ErrorKind {
    /// Classifies `e`: requests, attributes and schemas the engine refuses are
    /// IllegalArgument, a missing family is NoSuchColumnFamily, storage and region
    /// failures are IOException.
    ///
    /// ```
    /// use regionkv::{Error, RequestProblem, SchemaProblem};
    /// use regionkv_gateway::common::ErrorKind;
    ///
    /// let family = Error::NoSuchColumnFamily {
    ///     family: "nf".into(),
    ///     region: "0123".into(),
    ///     table: "t".into(),
    /// };
    /// assert_eq!(ErrorKind::of(&family), ErrorKind::NoSuchColumnFamily);
    /// let empty_row = Error::InvalidRequest(RequestProblem::EmptyRow);
    /// assert_eq!(ErrorKind::of(&empty_row), ErrorKind::IllegalArgument);
    /// let schema = Error::InvalidSchema(SchemaProblem::FlushSizeZero);
    /// assert_eq!(ErrorKind::of(&schema), ErrorKind::IllegalArgument);
    /// let offline = Error::RegionOffline { region: "0123".into() };
    /// assert_eq!(ErrorKind::of(&offline), ErrorKind::Io);
    /// ```
    pub fn of(e: &Error) -> ErrorKind {
        match e {
            Error::TableNotFound(_) => ErrorKind::TableNotFound,
            Error::TableExists(_) => ErrorKind::TableExists,
            Error::TableNotEnabled(_) => ErrorKind::TableNotEnabled,
            Error::TableNotDisabled(_) => ErrorKind::TableNotDisabled,
            Error::NamespaceNotFound(_) => ErrorKind::NamespaceNotFound,
            Error::NamespaceExists(_) => ErrorKind::NamespaceExists,
            Error::NoSuchColumnFamily { .. } => ErrorKind::NoSuchColumnFamily,
            Error::InvalidArgument(_)
            | Error::InvalidRequest(_)
            | Error::UnknownAttribute { .. }
            | Error::InvalidAttributeValue { .. }
            | Error::InvalidSchema(_)
            | Error::NotSplittable { .. }
            | Error::SplitRefused(_)
            | Error::MergeRefused(_)
            | Error::RegionExists { .. }
            | Error::Inconsistent { .. } => ErrorKind::IllegalArgument,
            _ => ErrorKind::Io,
        }
    }

    /// The Java class HBase's gateway names in its message.
    pub fn java_class(self) -> &'static str {
        match self {
            ErrorKind::TableNotFound => "org.apache.hadoop.hbase.TableNotFoundException",
            ErrorKind::NoSuchColumnFamily => {
                "org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException"
            }
            ErrorKind::TableExists => "org.apache.hadoop.hbase.TableExistsException",
            ErrorKind::TableNotEnabled => "org.apache.hadoop.hbase.TableNotEnabledException",
            ErrorKind::TableNotDisabled => "org.apache.hadoop.hbase.TableNotDisabledException",
            ErrorKind::NamespaceNotFound => "org.apache.hadoop.hbase.NamespaceNotFoundException",
            ErrorKind::NamespaceExists => "org.apache.hadoop.hbase.NamespaceExistException",
            ErrorKind::IllegalArgument => "java.lang.IllegalArgumentException",
            ErrorKind::Io => "java.io.IOException",
        }
    }
}

/// `Class: message`, the first line of the Java stack trace HBase's gateways send as an
/// error message (HBase sends the whole trace; regionkv has no Java frames to add).
pub fn java_message(e: &Error) -> String {
    let kind = ErrorKind::of(e);
    let detail = match e {
        // HBase's TableNotFoundException carries only the table name.
        Error::TableNotFound(t) | Error::TableExists(t) => t.clone(),
        Error::TableNotEnabled(t) | Error::TableNotDisabled(t) => t.clone(),
        other => other.to_string(),
    };
    format!("{}: {detail}", kind.java_class())
}

/// The message of a mutation refused in read-only mode (HBase's Thrift server:
/// DoNotRetryIOException "Thrift Server is in Read-only mode.").
pub const THRIFT_READ_ONLY: &str =
    "org.apache.hadoop.hbase.DoNotRetryIOException: Thrift Server is in Read-only mode.";
