//! The shell's connection to the engine: the open [`Db`], the switchable clock, how
//! timestamps print, and the dispatch from a command name to its implementation (the DDL,
//! namespace and tool commands in `ddl.rs`, `split` and `merge_region` in `regions.rs`, the
//! snapshot commands in `snapshots.rs`, the data commands in `dml.rs`).
//!
//! Commands print through [`Out`] (HBase's formatter plus raw lines) and return a [`Ret`],
//! what HBase's command method returns: the interactive shell echoes it as IRB does
//! (`=> ["t1"]`, `=> true`, `=> Hbase::Table - t1`); `nil` is not echoed.
//!
//! Errors of the engine become the messages HBase's shell prints for the matching Java
//! exceptions (`shell/commands.rb` `translate_hbase_exceptions`): `Unknown table t1!`,
//! `Table t1 is disabled!`, `Table already exists: t1!`, `Unknown namespace ns!`; server-side
//! exceptions the shell does not translate keep HBase's `class: message` first line.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use regionkv::fs::RealFs;
use regionkv::{Db, DbOptions};

use super::args::{CmdError, CmdResult, arity, fail};
use super::clock::SwitchableClock;
use super::format::{Formatter, TimestampFormat};
use super::parse::Value;

/// What a command returns, for the interactive echo.
#[derive(Debug, Clone, PartialEq)]
pub enum Ret {
    /// Ruby's `nil`: nothing is echoed.
    Nil,
    /// `true` / `false`.
    Bool(bool),
    /// A number (`count`).
    Int(i64),
    /// An array of strings (`list`, `get_splits`).
    List(Vec<String>),
    /// The table handle `create` returns.
    Table(String),
    /// A string (`compaction_state`): IRB echoes it quoted.
    Str(String),
}

/// Where a command prints: the output stream and a fresh HBase formatter (HBase makes one
/// per command).
pub struct Out<'a> {
    /// The stream.
    pub w: &'a mut dyn Write,
    /// The formatter.
    pub fmt: Formatter,
}

impl Out<'_> {
    /// A raw line (Ruby's `puts`).
    pub fn line(&mut self, text: &str) -> CmdResult<()> {
        writeln!(self.w, "{text}")?;
        Ok(())
    }

    /// A formatter header.
    pub fn header(&mut self, cols: &[&str]) -> CmdResult<()> {
        self.fmt.header(&mut *self.w, cols, &[])?;
        Ok(())
    }

    /// A formatter row, inset.
    pub fn row(&mut self, cols: &[&str]) -> CmdResult<()> {
        self.fmt.row(&mut *self.w, cols, true, &[])?;
        Ok(())
    }

    /// The formatter footer: `N row(s)`.
    pub fn footer(&mut self, count: Option<u64>) -> CmdResult<()> {
        self.fmt.footer(&mut *self.w, count)?;
        Ok(())
    }
}

/// Reads the answer to a y/n question (`disable_all`, `enable_all`, `drop_all`): the next
/// line the user types, without its line end; `None` at end of input.
pub type Confirm = Box<dyn FnMut() -> Option<String> + Send>;

/// The engine behind a shell session.
pub struct Engine {
    pub(super) db: Db,
    pub(super) clock: SwitchableClock,
    pub(super) timestamps: TimestampFormat,
    /// Where y/n answers come from; `None` (scripts): there is no answer, as HBase's
    /// `gets` finds none at the end of its input, and nothing is done.
    confirm: std::sync::Mutex<Option<Confirm>>,
}

/// The server name regionkv reports where HBase names a region server (`host,port,start`):
/// the embedded engine is one "server" with no host or port.
pub const SERVER_NAME: &str = "regionkv,0,0";

impl Engine {
    /// Opens (creating and locking) the data directory `dir` through `fs`, with a clock the
    /// `clock` command can freeze. The error is the message to print.
    pub fn open(dir: &Path, timestamps: TimestampFormat, fs: RealFs) -> Result<Engine, String> {
        let clock = SwitchableClock::new();
        let options = DbOptions::default()
            .clock(Arc::new(clock.clone()))
            .fs(Arc::new(fs));
        let db = Db::open(dir, options).map_err(|e| match e {
            regionkv::Error::Locked { .. } => format!(
                "data directory {} is in use by another process",
                dir.display()
            ),
            e => format!(
                "cannot open data directory {}: {}",
                dir.display(),
                error_chain(&e)
            ),
        })?;
        Ok(Engine {
            db,
            clock,
            timestamps,
            confirm: std::sync::Mutex::new(None),
        })
    }

    /// Opens the data directory `dir` read-only ([`Db::open_read_only`]), beside the process
    /// that holds it: nothing is written, mutating commands fail with the read-only error.
    pub fn open_read_only(
        dir: &Path,
        timestamps: TimestampFormat,
        fs: RealFs,
    ) -> Result<Engine, String> {
        let clock = SwitchableClock::new();
        let options = DbOptions::default()
            .clock(Arc::new(clock.clone()))
            .fs(Arc::new(fs));
        let db = Db::open_read_only(dir, options).map_err(|e| {
            format!(
                "cannot open data directory {} read-only: {}",
                dir.display(),
                error_chain(&e)
            )
        })?;
        Ok(Engine {
            db,
            clock,
            timestamps,
            confirm: std::sync::Mutex::new(None),
        })
    }

    /// True when the shell was started with `--read-only`.
    pub fn is_read_only(&self) -> bool {
        self.db.is_read_only()
    }

    /// regionkv's `refresh`: a read-only shell catches up with the directory's writer.
    pub fn refresh(&self) -> Result<(), String> {
        self.db.refresh().map_err(|e| error_chain(&e))
    }

    /// Sets where the answers to y/n questions come from: an interactive session reads the
    /// next line from its terminal (HBase's shell calls Ruby's `gets` after printing the
    /// question). Without it (scripts) questions get no answer.
    pub fn set_confirm(&self, confirm: Option<Confirm>) {
        if let Ok(mut slot) = self.confirm.lock() {
            *slot = confirm;
        }
    }

    /// The answer to the question just printed, if any.
    pub(super) fn ask(&self) -> Option<String> {
        let mut slot = self.confirm.lock().ok()?;
        slot.as_mut().and_then(|f| f())
    }

    /// Prints HBase's confirmation `question` (`Drop the above 2 tables (y/n)?`), reads the
    /// answer as HBase's shell does (`gets`; any answer holding a `y` agrees) and says
    /// whether it agreed. A script, with no terminal to answer, never agrees.
    pub(super) fn confirm(&self, out: &mut Out<'_>, question: &str) -> CmdResult<bool> {
        out.line(&format!("\n{question}"))?;
        out.w.flush()?;
        Ok(self.ask().is_some_and(|a| a.to_lowercase().contains('y')))
    }

    /// The clock the `clock` command switches.
    pub fn clock(&self) -> &SwitchableClock {
        &self.clock
    }

    /// Flushes and closes the database (also done on drop).
    pub fn close(&self) -> Result<(), String> {
        self.db.close().map_err(|e| error_chain(&e))
    }

    /// Runs the command `name` (canonical, implemented) with `args`.
    pub fn run(&self, name: &str, args: &[Value], out: &mut Out<'_>) -> CmdResult<Ret> {
        match name {
            "create_namespace" => self.create_namespace(args, out),
            "alter_namespace" => self.alter_namespace(args, out),
            "drop_namespace" => self.drop_namespace(args),
            "describe_namespace" => self.describe_namespace(args, out),
            "list_namespace" => self.list_namespace(args, out),
            "list_namespace_tables" => self.list_namespace_tables(args, out),
            "create" => self.create(args, out),
            "alter" => self.alter(args, out),
            "describe" => self.describe(args, out),
            "list" => self.list(args, out),
            "exists" => self.exists(args, out),
            "is_enabled" => self.is_enabled(args, out, true),
            "is_disabled" => self.is_enabled(args, out, false),
            "enable" => self.enable(args),
            "disable" => self.disable(args),
            "drop" => self.drop(args),
            "truncate" => self.truncate(args, out, false),
            "truncate_preserve" => self.truncate(args, out, true),
            "list_regions" => self.list_regions(args, out),
            "get_splits" => self.get_splits(args, out),
            "lab_report" => self.lab_report(args, out),
            "aggregate" => self.aggregate(args, out),
            "flush" => self.flush(args),
            "compact" => self.compact(args, false),
            "major_compact" => self.compact(args, true),
            "split" => self.split(args),
            "merge_region" => self.merge_region(args),
            "status" => self.status(args, out),
            "show_filters" => show_filters(args, out),
            "whoami" => self.whoami(args, out),
            "table_help" => {
                arity(args, 0, Some(0))?;
                write!(out.w, "{}", super::commands::TABLE_HELP)?;
                Ok(Ret::Nil)
            }
            "alter_async" => self.alter_async(args, out),
            "alter_status" => self.alter_status(args, out),
            "locate_region" => self.locate_region(args, out),
            "compaction_state" => self.compaction_state(args, out),
            "clone_table_schema" => self.clone_table_schema(args),
            "disable_all" => self.all_tables(args, out, super::ddl::AllAction::Disable),
            "enable_all" => self.all_tables(args, out, super::ddl::AllAction::Enable),
            "drop_all" => self.all_tables(args, out, super::ddl::AllAction::Drop),
            "snapshot" => self.snapshot(args),
            "list_snapshots" => self.list_snapshots(args, out),
            "list_table_snapshots" => self.list_table_snapshots(args, out),
            "clone_snapshot" => self.clone_snapshot(args),
            "restore_snapshot" => self.restore_snapshot(args),
            "delete_snapshot" => self.delete_snapshot(args),
            "delete_all_snapshot" => self.delete_all_snapshot(args, out),
            "delete_table_snapshots" => self.delete_table_snapshots(args, out),
            "put" => self.put(args),
            "get" => self.get(args, out),
            "scan" => self.scan(args, out),
            "count" => self.count(args, out),
            "delete" => self.delete(args, false),
            "deleteall" => self.delete(args, true),
            "incr" => self.incr(args, out),
            "get_counter" => self.get_counter(args, out),
            "append" => self.append(args, out),
            "get_table" => {
                // HBase's `get_table` wraps `Connection#getTable`, which does not look the
                // table up: a missing table fails at its first use, as here.
                super::args::arity(args, 1, None)?;
                Ok(Ret::Table(super::args::table_arg(&args[0])?))
            }
            other => fail(format!(
                "command '{other}' is not available yet in this build of regionkv"
            )),
        }
    }

    /// The column family names of table `name` (`get_all_columns` of a table handle).
    pub fn families(&self, name: &str) -> Result<Vec<String>, String> {
        let desc = self
            .db
            .admin()
            .describe(name)
            .map_err(|e| match hbase_error(e, name) {
                CmdError::Failed(m) => m,
                CmdError::Io(e) => e.to_string(),
            })?;
        Ok(desc
            .families
            .iter()
            .map(|f| String::from_utf8_lossy(&f.name).into_owned())
            .collect())
    }

    /// A table handle; a missing table is HBase's `Unknown table NAME!`.
    pub(super) fn table(&self, name: &str) -> CmdResult<regionkv::Table> {
        self.db.table(name).map_err(|e| hbase_error(e, name))
    }
}

/// HBase's `show_filters`: one line per filter name of the filter language, in the order
/// HBase's shell prints them — it walks `ParseFilter`'s registry, a `java.util.HashMap`, so the
/// order is that map's. regionkv's language accepts every name HBase 2.x registers, so the
/// list is HBase's exactly (the Java-only filters, e.g. FuzzyRowFilter, are in neither).
fn show_filters(args: &[Value], out: &mut Out<'_>) -> CmdResult<Ret> {
    arity(args, 0, Some(0))?;
    let names = super::format::java_hashmap_order(regionkv::filter::parse::SUPPORTED_FILTERS);
    for name in &names {
        out.row(&[name])?;
    }
    Ok(Ret::Nil)
}

/// An error and its sources, joined by `": "`.
pub fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let next = s.to_string();
        // Transparent wrappers repeat their source's text.
        if !text.ends_with(&next) {
            text.push_str(": ");
            text.push_str(&next);
        }
        source = s.source();
    }
    text
}

/// The message HBase's shell prints for an engine error of a command whose table argument
/// was `table`.
pub fn hbase_error(e: regionkv::Error, table: &str) -> CmdError {
    use regionkv::Error as E;
    use regionkv::RequestProblem as P;
    let message = match e {
        E::TableNotFound(_) => format!("Unknown table {table}!"),
        E::TableNotEnabled(_) => format!("Table {table} is disabled!"),
        E::TableNotDisabled(name) => format!("Table {name} should be disabled!"),
        E::TableExists(_) => format!("Table already exists: {table}!"),
        E::NamespaceNotFound(ns) => format!("Unknown namespace {ns}!"),
        E::NamespaceExists(ns) => format!("org.apache.hadoop.hbase.NamespaceExistException: {ns}"),
        E::NamespaceConstraint(ns, reason) => {
            // HBase names the namespace in this one.
            let reason = match reason.as_str() {
                "Reserved namespace cannot be removed." => {
                    format!("Reserved namespace {ns} cannot be removed.")
                }
                _ => reason,
            };
            format!("org.apache.hadoop.hbase.constraint.ConstraintException: {reason}")
        }
        E::NoSuchColumnFamily {
            family,
            region,
            table,
        } => format!(
            "org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException: Column family \
             {family} does not exist in region {region} in table {table}"
        ),
        // What the region refuses (what was one `InvalidDescriptor`): HBase's server-side
        // DoNotRetryIOException. The limits on rows, names and cells print bare.
        reason @ (E::UnknownAttribute { .. }
        | E::InvalidAttributeValue { .. }
        | E::InvalidSchema(_)
        | E::InvalidRequest(
            P::ZeroVersions
            | P::ColumnsOnRawScan
            | P::BatchWithRowFilter
            | P::CellOfOtherRow { .. },
        )
        | E::NotSplittable { .. }
        | E::RegionExists { .. }
        | E::Inconsistent { .. }
        | E::ReadOnly(_)) => {
            format!("org.apache.hadoop.hbase.DoNotRetryIOException: {reason}")
        }
        E::ConstraintViolation { message, .. } => {
            format!("org.apache.hadoop.hbase.constraint.ConstraintException: {message}")
        }
        other => error_chain(&other),
    };
    CmdError::Failed(message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engine_errors_read_like_hbase() {
        let text = |e| match hbase_error(e, "t9") {
            CmdError::Failed(m) => m,
            CmdError::Io(e) => e.to_string(),
        };
        assert_eq!(
            text(regionkv::Error::TableNotFound("t9".into())),
            "Unknown table t9!"
        );
        assert_eq!(
            text(regionkv::Error::TableNotEnabled("t9".into())),
            "Table t9 is disabled!"
        );
        assert_eq!(
            text(regionkv::Error::TableExists("t9".into())),
            "Table already exists: t9!"
        );
        assert_eq!(
            text(regionkv::Error::NamespaceNotFound("ns".into())),
            "Unknown namespace ns!"
        );
        assert_eq!(
            text(regionkv::Error::NamespaceExists("ns".into())),
            "org.apache.hadoop.hbase.NamespaceExistException: ns"
        );
        assert_eq!(
            text(regionkv::Error::InvalidArgument("Row length is 0".into())),
            "Row length is 0"
        );
        assert_eq!(
            text(regionkv::Error::NoSuchColumnFamily {
                family: "nf".into(),
                region: "0123".into(),
                table: "t9".into(),
            }),
            "org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException: Column family nf \
             does not exist in region 0123 in table t9"
        );
        // The region's refusals are the server's DoNotRetryIOException ...
        assert_eq!(
            text(regionkv::Error::InvalidRequest(
                regionkv::RequestProblem::ZeroVersions
            )),
            "org.apache.hadoop.hbase.DoNotRetryIOException: the number of versions to read must \
             be positive"
        );
        assert_eq!(
            text(regionkv::Error::InvalidSchema(
                regionkv::SchemaProblem::FlushSizeZero
            )),
            "org.apache.hadoop.hbase.DoNotRetryIOException: MEMSTORE_FLUSHSIZE must be positive"
        );
        // ... the limits on rows and names print bare.
        assert_eq!(
            text(regionkv::Error::InvalidRequest(
                regionkv::RequestProblem::EmptyRow
            )),
            "row length is 0"
        );
    }
}
