//! The tools' error type. Where HBase's tool has a message for a failure, the variant's text
//! is HBase's ("Table 't' does not exist.", "Column families: [x] do not exist."), so
//! scripts and habits that look for it keep working; the fields carry the same facts for a
//! program to match on.

use std::path::PathBuf;

/// Errors of the data tools.
///
/// ```
/// use regionkv_tools::Error;
///
/// let e = Error::TableNotFound { table: "t".into() };
/// assert_eq!(e.to_string(), "Table 't' does not exist.");
/// let e = Error::NoSuchColumnFamilies { families: vec!["x".into(), "y".into()] };
/// assert_eq!(e.to_string(), "Column families: [x, y] do not exist.");
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The command line or an option is wrong: the caller prints the message and the
    /// tool's usage text (HBase's `usage(errorMsg)`).
    #[error("{message}")]
    Usage {
        /// HBase's text where it has one ("Must specify exactly one column as
        /// HBASE_ROW_KEY").
        message: String,
    },
    /// The table does not exist and the tool was not asked to create it (HBase's
    /// TableNotFoundException from ImportTsv).
    #[error("Table '{table}' does not exist.")]
    TableNotFound {
        /// The table, as HBase prints a TableName (no `default:` prefix).
        table: String,
    },
    /// Families the columns name that the table does not have (HBase's
    /// NoSuchColumnFamilyException from ImportTsv); `no.strict=true` skips the check.
    #[error("Column families: [{}] do not exist.", families.join(", "))]
    NoSuchColumnFamilies {
        /// The missing families, in the order the columns name them.
        families: Vec<String>,
    },
    /// An HBase feature regionkv does not have (visibility labels, custom mapper classes).
    #[error("{feature}: {reason}")]
    Unsupported {
        /// The option or column that asks for it.
        feature: String,
        /// Why, and what to do instead.
        reason: String,
    },
    /// An HBase option regionkv will have but does not have yet (the bulk-load output).
    #[error("{feature} is not available yet: {reason}")]
    NotAvailableYet {
        /// The option or flag.
        feature: String,
        /// What is missing, and what works today.
        reason: String,
    },
    /// A bad input line with `importtsv.skip.bad.lines=false`: the import stops there (HBase
    /// fails the map task). Every good line before it was written.
    #[error("bad line at offset {offset} of {input}: {reason} (importtsv.skip.bad.lines=false)")]
    BadLine {
        /// The input the line is in (`-` for standard input).
        input: String,
        /// Byte offset of the line's first byte in that input (after gzip decoding).
        offset: u64,
        /// HBase's reason ("No delimiter", "Excessive columns", "Invalid timestamp x" ...).
        reason: String,
    },
    /// An input path that does not exist (Hadoop's FileInputFormat text).
    #[error("Input path does not exist: {}", path.display())]
    InputPathDoesNotExist {
        /// The path given.
        path: PathBuf,
    },
    /// An entry of an input directory that is not a regular file: like Hadoop's
    /// FileInputFormat, directories are read one level deep.
    #[error("Not a file: {}", path.display())]
    NotAFile {
        /// The entry.
        path: PathBuf,
    },
    /// Reading an input failed (including a damaged gzip stream).
    #[error("reading {input}")]
    Input {
        /// The input (`-` for standard input).
        input: String,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// An HFile that cannot be read: damaged bytes (with the file and offset), a feature
    /// this build does not read, or the I/O seam.
    #[error(transparent)]
    HFile(#[from] regionkv_hfile::Error),
    /// A cell of an HFile that cannot be loaded (of another family than its directory,
    /// without a timestamp, out of order, of a type a store file cannot hold).
    #[error("HFile {}: {reason}", path.display())]
    HFileCell {
        /// The file.
        path: PathBuf,
        /// What is wrong with the cell, naming it.
        reason: String,
    },
    /// An HFile whose first row sorts after its last (HBase's `IllegalArgumentException`).
    #[error("Invalid range: {first} > {last}")]
    HFileRange {
        /// The file.
        path: PathBuf,
        /// Its first row (`toStringBinary`).
        first: String,
        /// Its last row.
        last: String,
    },
    /// HFiles of families the table does not have (HBase's text), without
    /// `ignore.unmatched.families=yes`.
    #[error("{message}")]
    UnmatchedFamilies {
        /// HBase's message, naming the unmatched and the valid families.
        message: String,
    },
    /// A file that spans more than one region under
    /// `hbase.loadincremental.fail.if.need.split.hfile=true` (HBase's text).
    #[error("The key range of hfile={} fits into no region. And because hbase.loadincremental.fail.if.need.split.hfile was set to true, we just skip the next steps.", path.display())]
    NeedsSplit {
        /// The file.
        path: PathBuf,
    },
    /// More files for one family of one region than
    /// `hbase.mapreduce.bulkload.max.hfiles.perRegion.perFamily` allows (HBase's text, with
    /// the details HBase logs beside it).
    #[error(
        "Trying to load more than {max} hfiles to one family of one region (family {family}, region with start key '{start_key}')"
    )]
    TooManyHFiles {
        /// The limit.
        max: usize,
        /// The family.
        family: String,
        /// The region's start key (`toStringBinary`).
        start_key: String,
    },
    /// An export file is damaged: the file, the byte offset of the damaged structure (a
    /// block's header, a cell record, the manifest's checksum) and what is wrong.
    #[error("corrupt export file {} at byte offset {offset}: {reason}", path.display())]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// Byte offset in it.
        offset: u64,
        /// What is wrong.
        reason: String,
    },
    /// Reading or writing an output or work file failed: an export file, a CSV/JSON-lines
    /// output, an HFile directory, a sort run.
    #[error("{}: {source}", path.display())]
    File {
        /// The file or directory.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The output directory exists and is not empty (Hadoop's `FileOutputFormat` text): an
    /// export never mixes its files with others.
    #[error("Output directory {} already exists", path.display())]
    OutputExists {
        /// The directory.
        path: PathBuf,
    },
    /// Import's input directory is not a complete export.
    #[error("{} is not a regionkv export: {reason}", dir.display())]
    NotAnExport {
        /// The directory.
        dir: PathBuf,
        /// Why.
        reason: String,
    },
    /// A sort run file of a bulk-mode import that does not read back as written.
    #[error("damaged sort run {}: at offset {offset}: {reason}", path.display())]
    RunFile {
        /// The run file.
        path: PathBuf,
        /// Byte offset of the bad record.
        offset: u64,
        /// What is wrong.
        reason: String,
    },
    /// The engine refused or failed (a write, a table creation, the Db itself).
    #[error(transparent)]
    Db(#[from] regionkv::Error),
}

/// The tools' `Result`.
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// A usage error with `message`.
    pub(crate) fn usage(message: impl Into<String>) -> Self {
        Self::Usage {
            message: message.into(),
        }
    }

    /// An I/O error on `path`.
    pub(crate) fn file(path: &std::path::Path, source: std::io::Error) -> Self {
        Self::File {
            path: path.to_path_buf(),
            source,
        }
    }

    /// True for errors after which the caller should print the tool's usage text, as HBase
    /// does for wrong arguments and options.
    ///
    /// ```
    /// use regionkv_tools::Error;
    ///
    /// assert!(Error::Usage { message: "Wrong number of arguments: 1".into() }.is_usage());
    /// assert!(!Error::TableNotFound { table: "t".into() }.is_usage());
    /// ```
    pub fn is_usage(&self) -> bool {
        matches!(self, Self::Usage { .. })
    }
}
