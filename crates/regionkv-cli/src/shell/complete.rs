//! Tab completion in the interactive shell (a rustyline [`Helper`]):
//!
//! - inside an open quoted string: table names (`scan 'my<TAB>` → `scan 'mytable'`, the
//!   closing quote added when the completion is unique);
//! - a bare word starting with an upper-case letter: the HBase constants the shell reads as
//!   option keys and values (`{LIM<TAB>` → `LIMIT`);
//! - any other bare word (not after `.` or `:`): command names, the shell's own commands,
//!   Ruby keywords and the session's variables (`lis<TAB>` → `list`).
//!
//! The table names and variables are the driver's to keep fresh: it calls
//! [`ShellHelper::refresh`] after each statement, so completion never queries the engine
//! while a line is being edited.

use rustyline::Context;
use rustyline::completion::{Completer, Pair};
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::validate::Validator;

use super::commands::{BUILTINS, GROUPS};

/// The HBase constants the shell's commands read (option keys of `create`, `alter`, `scan`,
/// `get`, `count`, `put`, `list_regions`, ...) and the constant values they take
/// (`DURABILITY => SYNC_WAL`).
const CONSTANTS: &[&str] = &[
    // Reads: scan, get, count, deleteall.
    "ALL_METRICS",
    "ATTRIBUTES",
    "AUTHORIZATIONS",
    "BATCH",
    "CACHE",
    "CACHE_BLOCKS",
    "COLUMN",
    "COLUMNS",
    "CONSISTENCY",
    "FILTER",
    "FORMATTER",
    "FORMATTER_CLASS",
    "INTERVAL",
    "LIMIT",
    "MAXLENGTH",
    "METRICS",
    "RAW",
    "REGION_REPLICA_ID",
    "REVERSED",
    "ROWPREFIXFILTER",
    "STARTROW",
    "STOPROW",
    "TIMERANGE",
    "TIMESTAMP",
    "VERSIONS",
    // Mutations.
    "TTL",
    "VISIBILITY",
    // Column families (create, alter).
    "BLOCKCACHE",
    "BLOCKSIZE",
    "BLOOMFILTER",
    "CACHE_BLOOMS_ON_WRITE",
    "CACHE_DATA_ON_WRITE",
    "CACHE_INDEX_ON_WRITE",
    "COMPRESSION",
    "COMPRESSION_COMPACT",
    "COMPRESS_TAGS",
    "CONFIGURATION",
    "DATA_BLOCK_ENCODING",
    "DFS_REPLICATION",
    "EVICT_BLOCKS_ON_CLOSE",
    "IN_MEMORY",
    "IN_MEMORY_COMPACTION",
    "IS_MOB",
    "KEEP_DELETED_CELLS",
    "METADATA",
    "MIN_VERSIONS",
    "MOB_THRESHOLD",
    "NAME",
    "NEW_VERSION_BEHAVIOR",
    "PREFETCH_BLOCKS_ON_OPEN",
    "REPLICATION_SCOPE",
    "STORAGE_POLICY",
    // Tables (create, alter).
    "COMPACTION_ENABLED",
    "DURABILITY",
    "FLUSH_POLICY",
    "MAX_FILESIZE",
    "MEMSTORE_FLUSHSIZE",
    "MERGE_ENABLED",
    "METHOD",
    "NORMALIZATION_ENABLED",
    "NUMREGIONS",
    "OWNER",
    "PRIORITY",
    "READONLY",
    "REGION_REPLICATION",
    "SPLITALGO",
    "SPLITS",
    "SPLITS_FILE",
    "SPLIT_ENABLED",
    "SPLIT_POLICY",
    // list_regions.
    "END_KEY",
    "LOCALITY",
    "LOCALITY_THRESHOLD",
    "REGION_NAME",
    "REQ",
    "SERVER_NAME",
    "SIZE",
    "START_KEY",
    // Values.
    "ASYNC_WAL",
    "FSYNC_WAL",
    "SKIP_WAL",
    "SYNC_WAL",
    "USE_DEFAULT",
];

/// The Ruby keywords and methods worth completing at the prompt.
const KEYWORDS: &[&str] = &[
    "begin", "break", "do", "else", "elsif", "end", "ensure", "false", "for", "format", "if",
    "loop", "next", "nil", "print", "printf", "puts", "rescue", "sleep", "then", "true", "unless",
    "until", "while",
];

/// The shell's line-editor helper: completion only (no hints, colours or validation).
#[derive(Debug, Default)]
pub struct ShellHelper {
    /// The tables of the data directory, as `list` names them.
    tables: Vec<String>,
    /// The session's variables.
    locals: Vec<String>,
}

impl ShellHelper {
    /// Replaces the table names and variables completion offers.
    pub fn refresh(&mut self, tables: Vec<String>, locals: impl IntoIterator<Item = String>) {
        self.tables = tables;
        self.locals = locals.into_iter().collect();
    }
}

/// Where the word being completed starts, and its candidates as (shown, inserted) pairs.
pub fn candidates(
    line: &str,
    pos: usize,
    tables: &[String],
    locals: &[String],
) -> (usize, Vec<(String, String)>) {
    let Some(before) = line.get(..pos) else {
        return (pos, Vec::new());
    };
    match open_string(before) {
        Scan::Comment => (pos, Vec::new()),
        Scan::String { quote, start } => {
            let prefix = &before[start..];
            // A quote right after the cursor closes the string already.
            let closed = line[pos..].starts_with(quote);
            let mut found: Vec<(String, String)> = tables
                .iter()
                .filter(|t| t.starts_with(prefix))
                .map(|t| {
                    let insert = if closed {
                        t.clone()
                    } else {
                        format!("{t}{quote}")
                    };
                    (t.clone(), insert)
                })
                .collect();
            found.sort();
            (start, found)
        }
        Scan::Code => {
            let start = before
                .char_indices()
                .rev()
                .take_while(|(_, c)| c.is_ascii_alphanumeric() || *c == '_')
                .last()
                .map_or(pos, |(i, _)| i);
            let word = &before[start..];
            let after_sigil = before[..start].ends_with(['.', ':', '@', '$']);
            let Some(first) = word.chars().next() else {
                return (pos, Vec::new());
            };
            if after_sigil || first.is_ascii_digit() {
                return (pos, Vec::new());
            }
            let mut names: Vec<&str> = if first.is_ascii_uppercase() {
                CONSTANTS.to_vec()
            } else {
                GROUPS
                    .iter()
                    .flat_map(|g| g.commands.iter().map(|(name, _)| *name))
                    .chain(BUILTINS.iter().copied())
                    .chain(KEYWORDS.iter().copied())
                    .chain(locals.iter().map(String::as_str))
                    .collect()
            };
            names.retain(|n| n.starts_with(word));
            names.sort_unstable();
            names.dedup();
            let found = names
                .into_iter()
                .map(|n| (n.to_string(), n.to_string()))
                .collect();
            (start, found)
        }
    }
}

/// What the text before the cursor ends in.
#[derive(Debug, PartialEq, Eq)]
enum Scan {
    /// Code.
    Code,
    /// An open string begun by `quote`, whose text starts at byte `start`.
    String { quote: char, start: usize },
    /// A comment.
    Comment,
}

/// Follows Ruby's quotes (with backslash escapes) and comments through `text`.
fn open_string(text: &str) -> Scan {
    let mut state = Scan::Code;
    let mut chars = text.char_indices();
    while let Some((i, c)) = chars.next() {
        match state {
            Scan::Code => match c {
                '\'' | '"' => {
                    state = Scan::String {
                        quote: c,
                        start: i + 1,
                    }
                }
                '#' => return Scan::Comment,
                _ => {}
            },
            Scan::String { quote, .. } => {
                if c == '\\' {
                    chars.next();
                } else if c == quote {
                    state = Scan::Code;
                }
            }
            Scan::Comment => return Scan::Comment,
        }
    }
    state
}

impl Completer for ShellHelper {
    type Candidate = Pair;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        _ctx: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<Pair>)> {
        let (start, found) = candidates(line, pos, &self.tables, &self.locals);
        let pairs = found
            .into_iter()
            .map(|(display, replacement)| Pair {
                display,
                replacement,
            })
            .collect();
        Ok((start, pairs))
    }
}

impl Hinter for ShellHelper {
    type Hint = String;
}

impl Highlighter for ShellHelper {}

impl Validator for ShellHelper {}

impl rustyline::Helper for ShellHelper {}

#[cfg(test)]
mod tests {
    use super::*;

    fn complete(line: &str, tables: &[&str]) -> (usize, Vec<String>) {
        let tables: Vec<String> = tables.iter().map(|t| t.to_string()).collect();
        let locals = vec!["my_var".to_string()];
        let (start, found) = candidates(line, line.len(), &tables, &locals);
        (start, found.into_iter().map(|(_, insert)| insert).collect())
    }

    #[test]
    fn commands_complete_at_a_bare_word() {
        let (start, found) = complete("lis", &[]);
        assert_eq!(start, 0);
        assert_eq!(found.first().map(String::as_str), Some("list"));
        assert!(found.iter().all(|f| f.starts_with("list")), "{found:?}");
        assert_eq!(complete("x = cou", &[]), (4, vec!["count".to_string()]));
        assert_eq!(complete("loop { pu", &[]).1, ["put", "puts"]);
        assert_eq!(complete("my_", &[]).1, ["my_var"]);
        // Methods and symbols are not commands.
        assert!(complete("t.pu", &[]).1.is_empty());
        assert!(complete(":pu", &[]).1.is_empty());
        assert!(complete("", &[]).1.is_empty());
        assert!(complete("scan ", &[]).1.is_empty());
    }

    #[test]
    fn quoted_words_complete_table_names_and_close_the_string() {
        let tables = ["mytable", "other", "ns:t"];
        assert_eq!(
            complete("scan 'my", &tables),
            (6, vec!["mytable'".to_string()])
        );
        assert_eq!(
            complete("get \"n", &tables),
            (5, vec!["ns:t\"".to_string()])
        );
        assert_eq!(complete("scan '", &tables).1.len(), 3);
        // A closed string is code again; an escaped quote does not close one.
        assert!(complete("scan 'my' ", &tables).1.is_empty());
        assert_eq!(complete("put 'o\\'x', 'r', \"o", &tables).1, ["other\""]);
        assert!(complete("# scan 'my", &tables).1.is_empty());
        // Before a closing quote, none is added.
        let tables = vec!["mytable".to_string()];
        let (_, found) = candidates("scan 'my'", 8, &tables, &[]);
        assert_eq!(found, [("mytable".to_string(), "mytable".to_string())]);
    }

    #[test]
    fn upper_case_words_complete_constants() {
        assert_eq!(
            complete("scan 't', {LIM", &[]),
            (11, vec!["LIMIT".to_string()])
        );
        let (_, found) = complete("create 't', {NAME => 'f', VERS", &[]);
        assert_eq!(found, ["VERSIONS"]);
        let (_, found) = complete("scan 't', {STA", &[]);
        assert_eq!(found, ["STARTROW", "START_KEY"]);
    }

    #[test]
    fn constants_are_unique() {
        let mut sorted = CONSTANTS.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), CONSTANTS.len());
    }
}
