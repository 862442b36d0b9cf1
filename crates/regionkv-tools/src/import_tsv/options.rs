//! ImportTsv's options: the `-Dkey=value` properties HBase's tool reads, with HBase's names,
//! defaults and validation messages (`ImportTsv.run` and `createSubmittableJob`), turned
//! into a checked [`ImportTsvOptions`] before any table or input is touched.
//!
//! Two deliberate differences from HBase, both listed in docs/tools.md: an empty column name
//! is refused (HBase's two column parsers disagree on it), and a malformed boolean is
//! reported as a note instead of silently taking the default (Hadoop's `getBoolean`).

use super::parser::{Column, TsvParser};
use crate::conf::boolean;
use crate::error::{Error, Result};

/// `importtsv.columns`: the TSV columns, in order.
pub const COLUMNS_CONF_KEY: &str = "importtsv.columns";
/// `importtsv.separator`: the field separator, one byte (default tab).
pub const SEPARATOR_CONF_KEY: &str = "importtsv.separator";
/// `importtsv.timestamp`: the timestamp of every cell (default: the job's start time).
pub const TIMESTAMP_CONF_KEY: &str = "importtsv.timestamp";
/// `importtsv.skip.bad.lines`: count and skip bad lines (default true) or fail at the first.
pub const SKIP_LINES_CONF_KEY: &str = "importtsv.skip.bad.lines";
/// `importtsv.log.bad.lines`: print each bad line itself to standard error (default false).
pub const LOG_BAD_LINES_CONF_KEY: &str = "importtsv.log.bad.lines";
/// `importtsv.skip.empty.columns`: write no cell for an empty field (default false).
pub const SKIP_EMPTY_COLUMNS: &str = "importtsv.skip.empty.columns";
/// `importtsv.dry.run`: parse and count, write nothing (default false).
pub const DRY_RUN_CONF_KEY: &str = "importtsv.dry.run";
/// `importtsv.bulk.output`: HFiles for completebulkload instead of puts.
pub const BULK_OUTPUT_CONF_KEY: &str = "importtsv.bulk.output";
/// `importtsv.mapper.class`: a custom mapper (only HBase's default is accepted).
pub const MAPPER_CONF_KEY: &str = "importtsv.mapper.class";
/// `create.table`: create a missing table with the families the columns name.
pub const CREATE_TABLE_CONF_KEY: &str = "create.table";
/// `no.strict`: skip the check that the table has every family the columns name.
pub const NO_STRICT_COL_FAMILY: &str = "no.strict";
/// `column.families` (regionkv): the families of a table `create.table` creates.
pub const COLUMN_FAMILIES_CONF_KEY: &str = "column.families";
/// `hbase.client.write.buffer`: the BufferedMutator's buffer in bytes (HBase's, 2 MiB).
pub const WRITE_BUFFER_CONF_KEY: &str = "hbase.client.write.buffer";
/// `importtsv.writer.threads` (regionkv): threads writing puts (default: one per core, 1 to 4).
pub const WRITER_THREADS_CONF_KEY: &str = "importtsv.writer.threads";
/// Hadoop's LineRecordReader limit: a longer line is a bad line (regionkv default 64 MiB).
pub const MAX_LINE_LENGTH_CONF_KEY: &str = "mapreduce.input.linerecordreader.line.maxlength";

/// HBase's default mapper, the only one regionkv runs.
const DEFAULT_MAPPER: &str = "org.apache.hadoop.hbase.mapreduce.TsvImporterMapper";
/// HBase's mapper for the bulk-output path, refused without bulk output as HBase does.
const TEXT_MAPPER: &str = "org.apache.hadoop.hbase.mapreduce.TsvImporterTextMapper";

/// The default longest line: far above HBase's 10 MiB cell limit, and low enough that one
/// runaway line (a file without newlines) cannot take the machine's memory.
pub const DEFAULT_MAX_LINE_LENGTH: usize = 64 << 20;
/// `mapreduce.task.io.sort.mb`: the bulk modes' in-memory sort buffer, MiB.
pub const SORT_MB_CONF_KEY: &str = "mapreduce.task.io.sort.mb";
/// Hadoop's default sort buffer (100 MiB).
pub const DEFAULT_SORT_MB: usize = 100;
/// `mapreduce.cluster.local.dir`: where the bulk modes' sort runs are written.
pub const LOCAL_DIR_CONF_KEY: &str = "mapreduce.cluster.local.dir";

/// Keys HBase's tool accepts that mean nothing to an import in one process; they are
/// taken without a note so that an HBase command line runs unchanged.
const ACCEPTED_AND_IGNORED: &[&str] = &[
    "mapreduce.job.name",
    "mapreduce.map.speculative",
    "mapreduce.reduce.speculative",
    // Declared by HBase's ImportTsv and never read by it.
    "attributes.seperator",
];

/// The checked options of one import.
///
/// ```
/// use regionkv_tools::import_tsv::ImportTsvOptions;
///
/// let o = ImportTsvOptions::from_properties([
///     ("importtsv.columns", "HBASE_ROW_KEY,d:a,d:b"),
///     ("importtsv.separator", ","),
///     ("importtsv.skip.bad.lines", "false"),
/// ])?;
/// assert_eq!(o.separator, b',');
/// assert!(!o.skip_bad_lines);
/// assert_eq!(o.families(), ["d"]);
/// # Ok::<(), regionkv_tools::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct ImportTsvOptions {
    /// The parsed `importtsv.columns`.
    pub(crate) parser: TsvParser,
    /// `importtsv.separator`.
    pub separator: u8,
    /// `importtsv.timestamp` (`None`: the job's start time on the Db clock).
    pub timestamp: Option<i64>,
    /// `importtsv.skip.bad.lines` (default true).
    pub skip_bad_lines: bool,
    /// `importtsv.log.bad.lines` (default false).
    pub log_bad_lines: bool,
    /// `importtsv.skip.empty.columns` (default false).
    pub skip_empty_columns: bool,
    /// `importtsv.dry.run` (default false).
    pub dry_run: bool,
    /// `create.table=yes`: create the table when it does not exist. Without bulk output
    /// HBase never creates it; regionkv does when asked explicitly (default no).
    pub create_table: bool,
    /// `no.strict=true`: skip the family check (default false).
    pub no_strict: bool,
    /// `column.families`: the families of a table `create.table` creates (default: those
    /// the columns name).
    pub column_families: Option<Vec<String>>,
    /// `hbase.client.write.buffer` in bytes.
    pub write_buffer: usize,
    /// `mapreduce.input.linerecordreader.line.maxlength` in bytes.
    pub max_line_length: usize,
    /// `importtsv.writer.threads`: threads writing puts, each with its own
    /// BufferedMutator; a row always goes to the same one.
    pub writer_threads: usize,
    /// `importtsv.bulk.output`: write HFiles for completebulkload into this directory
    /// instead of writing to the table.
    pub bulk_output: Option<std::path::PathBuf>,
    /// `--no-wal` (regionkv): load the lines into the table as one bulk load (sorted
    /// storefiles, no WAL, no memstore), atomic for the whole import.
    pub bulk_load: bool,
    /// `mapreduce.task.io.sort.mb` in bytes: the bulk modes sort in memory up to this,
    /// then in runs on disk.
    pub sort_buffer: usize,
    /// `mapreduce.cluster.local.dir` (its first entry): where the sort runs go (default:
    /// the system's temporary directory).
    pub sort_dir: std::path::PathBuf,
    /// What was accepted but deserves a word: unknown keys, malformed booleans.
    pub notes: Vec<String>,
}

/// A comma-separated list, blanks around names removed, empty names dropped.
fn list(value: &str) -> Vec<String> {
    value
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(String::from)
        .collect()
}

impl ImportTsvOptions {
    /// Checks `-Dkey=value` properties (the last of a repeated key wins, as in a Hadoop
    /// Configuration) in the order HBase's `ImportTsv.run` does, with its messages.
    ///
    /// ```
    /// use regionkv_tools::import_tsv::ImportTsvOptions;
    ///
    /// let e = ImportTsvOptions::from_properties([("importtsv.columns", "d:a,d:b")]).unwrap_err();
    /// assert_eq!(e.to_string(), "Must specify exactly one column as HBASE_ROW_KEY");
    /// assert!(e.is_usage());
    /// let e = ImportTsvOptions::from_properties::<[(&str, &str); 0], _, _>([]).unwrap_err();
    /// assert_eq!(e.to_string(), "No columns specified. Please specify with -Dimporttsv.columns=...");
    /// ```
    pub fn from_properties<I, K, V>(properties: I) -> Result<Self>
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<str>,
        V: AsRef<str>,
    {
        let mut props: std::collections::BTreeMap<String, String> = Default::default();
        for (k, v) in properties {
            props.insert(k.as_ref().to_string(), v.as_ref().to_string());
        }
        let get = |k: &str| props.get(k).map(String::as_str);
        let mut notes = Vec::new();

        let bulk_output = get(BULK_OUTPUT_CONF_KEY)
            .map(str::trim)
            .filter(|v| !v.is_empty())
            .map(std::path::PathBuf::from);
        match get(MAPPER_CONF_KEY).map(str::trim) {
            None => {}
            Some(DEFAULT_MAPPER) => {}
            // With bulk output HBase's text mapper and TextSortReducer make the same cells.
            Some(TEXT_MAPPER) if bulk_output.is_some() => {}
            Some(TEXT_MAPPER) => {
                // HBase's own refusal without bulk output.
                return Err(Error::usage(format!(
                    "class {TEXT_MAPPER} should not be used for non bulkloading case. use \
                     class {DEFAULT_MAPPER} or custom mapper whose value type is Put."
                )));
            }
            Some(other) => {
                return Err(Error::Unsupported {
                    feature: format!("-D{MAPPER_CONF_KEY}={other}"),
                    reason: "regionkv runs no Java; only HBase's default mapper \
                             (TsvImporterMapper) is built in"
                        .into(),
                });
            }
        }

        // HBase reads the list twice, once split by Hadoop (empty names dropped) and once
        // by the parser (empty names kept, as a family ""); an empty name is refused here
        // instead, since neither reading is what the user meant.
        let spec = get(COLUMNS_CONF_KEY).unwrap_or("");
        if spec.split(',').all(|c| c.trim().is_empty()) {
            return Err(Error::usage(format!(
                "No columns specified. Please specify with -D{COLUMNS_CONF_KEY}=..."
            )));
        }
        let names: Vec<&str> = spec.split(',').map(str::trim).collect();
        if names.iter().any(|n| n.is_empty()) {
            return Err(Error::usage(format!(
                "Empty column name in -D{COLUMNS_CONF_KEY}={spec}"
            )));
        }
        let count = |special: &str| names.iter().filter(|n| **n == special).count();
        let row_keys = count(super::parser::ROWKEY_COLUMN_SPEC);
        if row_keys != 1 {
            return Err(Error::usage(format!(
                "Must specify exactly one column as {}",
                super::parser::ROWKEY_COLUMN_SPEC
            )));
        }
        let ts_keys = count(super::parser::TIMESTAMPKEY_COLUMN_SPEC);
        if ts_keys > 1 {
            return Err(Error::usage(format!(
                "Must specify at most one column as {}",
                super::parser::TIMESTAMPKEY_COLUMN_SPEC
            )));
        }
        let attr_keys = count(super::parser::ATTRIBUTES_COLUMN_SPEC);
        if attr_keys > 1 {
            return Err(Error::usage(format!(
                "Must specify at most one column as {}",
                super::parser::ATTRIBUTES_COLUMN_SPEC
            )));
        }
        if names.len() - (row_keys + ts_keys + attr_keys) < 1 {
            return Err(Error::usage(
                "One or more columns in addition to the row key and timestamp(optional) are \
                 required",
            ));
        }
        // HBase lets a second TTL column silently win; one is the only sensible count.
        if count(super::parser::CELL_TTL_COLUMN_SPEC) > 1 {
            return Err(Error::usage(format!(
                "Must specify at most one column as {}",
                super::parser::CELL_TTL_COLUMN_SPEC
            )));
        }
        if count(super::parser::CELL_VISIBILITY_COLUMN_SPEC) > 0 {
            return Err(Error::Unsupported {
                feature: super::parser::CELL_VISIBILITY_COLUMN_SPEC.into(),
                reason: "visibility labels are not supported by regionkv (it has no \
                         VisibilityController); leave the column out"
                    .into(),
            });
        }

        let timestamp = match get(TIMESTAMP_CONF_KEY) {
            None => None,
            Some(v) => Some(v.trim().parse::<i64>().map_err(|_| {
                Error::usage(format!(
                    "-D{TIMESTAMP_CONF_KEY}={v}: not a number of milliseconds"
                ))
            })?),
        };
        // HBase's TsvParser: the separator's UTF-8 bytes must be exactly one byte.
        let separator = match get(SEPARATOR_CONF_KEY) {
            None => b'\t',
            Some(s) => match s.as_bytes() {
                [b] => *b,
                _ => {
                    return Err(Error::usage(
                        "TsvParser only supports single-byte separators",
                    ));
                }
            },
        };
        let skip_bad_lines = boolean(
            SKIP_LINES_CONF_KEY,
            get(SKIP_LINES_CONF_KEY),
            true,
            &mut notes,
        );
        let log_bad_lines = boolean(
            LOG_BAD_LINES_CONF_KEY,
            get(LOG_BAD_LINES_CONF_KEY),
            false,
            &mut notes,
        );
        let skip_empty_columns = boolean(
            SKIP_EMPTY_COLUMNS,
            get(SKIP_EMPTY_COLUMNS),
            false,
            &mut notes,
        );
        let dry_run = boolean(DRY_RUN_CONF_KEY, get(DRY_RUN_CONF_KEY), false, &mut notes);
        let no_strict = boolean(
            NO_STRICT_COL_FAMILY,
            get(NO_STRICT_COL_FAMILY),
            false,
            &mut notes,
        );
        // HBase compares with "yes" ignoring case; anything else is no.
        // HBase: `create.table` defaults to yes with bulk output; without it regionkv
        // creates the table only when asked.
        let create_table = match get(CREATE_TABLE_CONF_KEY) {
            Some(v) => v.trim().eq_ignore_ascii_case("yes"),
            None => bulk_output.is_some(),
        };
        let column_families = get(COLUMN_FAMILIES_CONF_KEY).map(list);
        if column_families.as_ref().is_some_and(Vec::is_empty) {
            return Err(Error::usage(format!(
                "-D{COLUMN_FAMILIES_CONF_KEY}= names no family"
            )));
        }
        let size = |key: &str, default: usize| -> Result<usize> {
            match get(key) {
                None => Ok(default),
                Some(v) => v
                    .trim()
                    .parse::<usize>()
                    .ok()
                    .filter(|n| *n > 0)
                    .ok_or_else(|| Error::usage(format!("-D{key}={v}: not a positive number"))),
            }
        };
        let write_buffer = size(
            WRITE_BUFFER_CONF_KEY,
            regionkv::buffered::DEFAULT_WRITE_BUFFER,
        )?;
        let max_line_length = size(MAX_LINE_LENGTH_CONF_KEY, DEFAULT_MAX_LINE_LENGTH)?;
        // One writer per core, up to four: the memstore inserts are the CPU-bound part and
        // run in parallel (the skiplist is lock-free, a BufferedMutator's flush shares one
        // WAL write per region among its rows); reading and parsing take a fraction of a
        // core. On 2 cores two writers measured 1.4x one (docs/benchmarks.md).
        let cores = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
        let writer_threads = size(WRITER_THREADS_CONF_KEY, cores.clamp(1, 4))?;
        // Hadoop's map-side sort buffer, in MiB (the bulk modes sort in runs of this size).
        let sort_buffer = size(SORT_MB_CONF_KEY, DEFAULT_SORT_MB)? << 20;
        let sort_dir = get(LOCAL_DIR_CONF_KEY)
            .map(|v| std::path::PathBuf::from(v.split(',').next().unwrap_or(v).trim()))
            .unwrap_or_else(std::env::temp_dir);

        const KNOWN: &[&str] = &[
            COLUMNS_CONF_KEY,
            SEPARATOR_CONF_KEY,
            TIMESTAMP_CONF_KEY,
            SKIP_LINES_CONF_KEY,
            LOG_BAD_LINES_CONF_KEY,
            SKIP_EMPTY_COLUMNS,
            DRY_RUN_CONF_KEY,
            MAPPER_CONF_KEY,
            CREATE_TABLE_CONF_KEY,
            NO_STRICT_COL_FAMILY,
            COLUMN_FAMILIES_CONF_KEY,
            WRITE_BUFFER_CONF_KEY,
            MAX_LINE_LENGTH_CONF_KEY,
            WRITER_THREADS_CONF_KEY,
            BULK_OUTPUT_CONF_KEY,
            SORT_MB_CONF_KEY,
            LOCAL_DIR_CONF_KEY,
        ];
        for key in props.keys() {
            if !KNOWN.contains(&key.as_str()) && !ACCEPTED_AND_IGNORED.contains(&key.as_str()) {
                notes.push(format!(
                    "ignoring -D{key}: not an option of regionkv's importtsv"
                ));
            }
        }

        let parser = TsvParser::new(&names, separator);
        Ok(Self {
            parser,
            separator,
            timestamp,
            skip_bad_lines,
            log_bad_lines,
            skip_empty_columns,
            dry_run,
            create_table,
            no_strict,
            column_families,
            write_buffer,
            max_line_length,
            writer_threads,
            bulk_output,
            bulk_load: false,
            sort_buffer,
            sort_dir,
            notes,
        })
    }

    /// The families the columns name, each once, in the order they first appear.
    ///
    /// ```
    /// use regionkv_tools::import_tsv::ImportTsvOptions;
    ///
    /// let o = ImportTsvOptions::from_properties([("importtsv.columns", "b:x,HBASE_ROW_KEY,a,b:y")])?;
    /// assert_eq!(o.families(), ["b", "a"]);
    /// # Ok::<(), regionkv_tools::Error>(())
    /// ```
    pub fn families(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for c in self.parser.columns() {
            if let Column::Cell { family, .. } = c {
                let name = String::from_utf8_lossy(family).into_owned();
                if !out.contains(&name) {
                    out.push(name);
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn err(props: &[(&str, &str)]) -> Error {
        ImportTsvOptions::from_properties(props.iter().copied()).unwrap_err()
    }

    #[test]
    fn hbase_validation_messages_in_hbase_order() {
        assert_eq!(
            err(&[("importtsv.columns", "")]).to_string(),
            "No columns specified. Please specify with -Dimporttsv.columns=..."
        );
        assert_eq!(
            err(&[("importtsv.columns", "HBASE_ROW_KEY,HBASE_ROW_KEY,d:a")]).to_string(),
            "Must specify exactly one column as HBASE_ROW_KEY"
        );
        assert_eq!(
            err(&[(
                "importtsv.columns",
                "HBASE_ROW_KEY,HBASE_TS_KEY,HBASE_TS_KEY,d:a"
            )])
            .to_string(),
            "Must specify at most one column as HBASE_TS_KEY"
        );
        assert_eq!(
            err(&[(
                "importtsv.columns",
                "HBASE_ROW_KEY,HBASE_ATTRIBUTES_KEY,HBASE_ATTRIBUTES_KEY,d:a"
            )])
            .to_string(),
            "Must specify at most one column as HBASE_ATTRIBUTES_KEY"
        );
        assert_eq!(
            err(&[("importtsv.columns", "HBASE_ROW_KEY,HBASE_TS_KEY")]).to_string(),
            "One or more columns in addition to the row key and timestamp(optional) are required"
        );
        assert_eq!(
            err(&[
                ("importtsv.columns", "HBASE_ROW_KEY,d:a"),
                ("importtsv.separator", "ab")
            ])
            .to_string(),
            "TsvParser only supports single-byte separators"
        );
        // A multi-byte UTF-8 character is more than one byte.
        assert!(
            err(&[
                ("importtsv.columns", "HBASE_ROW_KEY,d:a"),
                ("importtsv.separator", "é")
            ])
            .is_usage()
        );
        assert!(err(&[("importtsv.columns", "HBASE_ROW_KEY,,d:a")]).is_usage());
        assert!(
            err(&[
                ("importtsv.columns", "HBASE_ROW_KEY,d:a"),
                ("importtsv.timestamp", "soon")
            ])
            .is_usage()
        );
    }

    #[test]
    fn unsupported_features_say_so_and_bulk_output_sets_its_defaults() {
        let e = err(&[(
            "importtsv.columns",
            "HBASE_ROW_KEY,d:a,HBASE_CELL_VISIBILITY",
        )]);
        assert!(matches!(e, Error::Unsupported { .. }));
        assert!(
            e.to_string()
                .contains("visibility labels are not supported"),
            "{e}"
        );
        // Bulk output: HBase's create.table default (yes), and its text mapper accepted.
        let o = ImportTsvOptions::from_properties([
            ("importtsv.columns", "HBASE_ROW_KEY,d:a"),
            ("importtsv.bulk.output", "/o"),
            ("importtsv.mapper.class", TEXT_MAPPER),
            ("mapreduce.task.io.sort.mb", "7"),
        ])
        .unwrap();
        assert_eq!(o.bulk_output, Some(std::path::PathBuf::from("/o")));
        assert!(o.create_table);
        assert_eq!(o.sort_buffer, 7 << 20);
        let o = ImportTsvOptions::from_properties([
            ("importtsv.columns", "HBASE_ROW_KEY,d:a"),
            ("importtsv.bulk.output", "/o"),
            ("create.table", "no"),
        ])
        .unwrap();
        assert!(!o.create_table);
        let e = err(&[
            ("importtsv.columns", "HBASE_ROW_KEY,d:a"),
            ("importtsv.mapper.class", "my.M"),
        ]);
        assert!(matches!(e, Error::Unsupported { .. }));
        let e = err(&[
            ("importtsv.columns", "HBASE_ROW_KEY,d:a"),
            ("importtsv.mapper.class", TEXT_MAPPER),
        ]);
        assert!(
            e.is_usage() && e.to_string().contains("non bulkloading"),
            "{e}"
        );
        assert!(
            ImportTsvOptions::from_properties([
                ("importtsv.columns", "HBASE_ROW_KEY,d:a"),
                ("importtsv.mapper.class", DEFAULT_MAPPER)
            ])
            .is_ok()
        );
    }

    #[test]
    fn defaults_are_hbases() {
        let o = ImportTsvOptions::from_properties([("importtsv.columns", "HBASE_ROW_KEY,d:a")])
            .unwrap();
        assert_eq!(o.separator, b'\t');
        assert_eq!(o.timestamp, None);
        assert!(o.skip_bad_lines);
        assert!(!o.log_bad_lines && !o.skip_empty_columns && !o.dry_run);
        assert!(!o.create_table && !o.no_strict);
        assert_eq!(o.column_families, None);
        assert_eq!(o.write_buffer, 2 << 20);
        assert!(o.notes.is_empty());
    }

    #[test]
    fn booleans_read_as_hadoop_does_with_a_note_for_nonsense() {
        let o = ImportTsvOptions::from_properties([
            ("importtsv.columns", "HBASE_ROW_KEY,d:a"),
            ("importtsv.dry.run", " TRUE "),
            ("importtsv.skip.bad.lines", "nope"),
            ("create.table", "YES"),
            ("no.strict", "false"),
            ("column.families", " d , e ,"),
            ("importtsv.timestamp", "42"),
            ("mapreduce.job.name", "x"),
            ("hbase.zookeeper.quorum", "zk"),
        ])
        .unwrap();
        assert!(o.dry_run && o.skip_bad_lines && o.create_table && !o.no_strict);
        assert_eq!(
            o.column_families,
            Some(vec!["d".to_string(), "e".to_string()])
        );
        assert_eq!(o.timestamp, Some(42));
        assert_eq!(o.notes.len(), 2, "{:?}", o.notes);
        assert!(o.notes[0].contains("importtsv.skip.bad.lines=nope"));
        assert!(o.notes[1].contains("hbase.zookeeper.quorum"));
        // create.table is "yes" or nothing.
        let o = ImportTsvOptions::from_properties([
            ("importtsv.columns", "HBASE_ROW_KEY,d:a"),
            ("create.table", "true"),
        ])
        .unwrap();
        assert!(!o.create_table);
    }

    #[test]
    fn the_last_of_a_repeated_key_wins() {
        let o = ImportTsvOptions::from_properties([
            ("importtsv.columns", "HBASE_ROW_KEY,d:a"),
            ("importtsv.separator", ","),
            ("importtsv.separator", "|"),
        ])
        .unwrap();
        assert_eq!(o.separator, b'|');
    }
}
