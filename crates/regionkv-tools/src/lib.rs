//! HBase's data tools over a regionkv [`Db`](regionkv::Db), one module per HBase tool
//! (docs/decisions/2026-11-27-data-in-and-out.md, §1). Each module keeps HBase's option
//! names, defaults, rules and message texts, so a command line written for `hbase` works on
//! `regionkv` with `--data DIR` added; what differs is listed in docs/tools.md.
//!
//! Today: [`import_tsv`], HBase's `ImportTsv` writing through the normal write path (the
//! WAL, or in the bulk modes `--no-wal` and `importtsv.bulk.output`);
//! [`complete_bulk_load`], HBase's `completebulkload` loading HFiles HBase wrote;
//! [`export_hfiles`], a table as HFiles for HBase's completebulkload; [`export`] and
//! [`import`], HBase's `Export` and `Import` over regionkv's own checksummed, streaming
//! format ([`export_format`], docs/export-format.md) that keeps every version and delete
//! marker; [`copy_table`], HBase's `CopyTable`; and [`text_export`], the latest cells as
//! CSV or JSON lines.
//!
//! The tools reach the engine through the facade (`regionkv::`) only (and HBase's files
//! through `regionkv-hfile`); the `regionkv` binary's
//! subcommands are thin wrappers that parse the command line, draw the progress bar and
//! print what these functions return.
//!
//! ```
//! use regionkv::{ColumnFamilyDescriptor, Db, DbOptions, Get, TableDescriptor};
//! use regionkv_tools::import_tsv::{ImportTsv, ImportTsvOptions, Input, QuietObserver};
//!
//! let dir = tempfile::tempdir()?;
//! let db = Db::open(dir.path().join("db"), DbOptions::default().background(false))?;
//! db.admin().create_table(&TableDescriptor::new("t", vec![ColumnFamilyDescriptor::new(b"d")?])?)?;
//! let tsv = dir.path().join("in.tsv");
//! std::fs::write(&tsv, "row1\tAda\nrow2\tGrace\n")?;
//!
//! let options = ImportTsvOptions::from_properties([("importtsv.columns", "HBASE_ROW_KEY,d:name")])?;
//! let report = ImportTsv::new(&db, "t", options).run(&[Input::Path(tsv)], &mut QuietObserver)?;
//! assert_eq!(report.counters.output_records, 2);
//! let row = db.table("t")?.get(&Get::new("row2"))?;
//! assert_eq!(row.value(b"d", b"name"), Some(&b"Grace"[..]));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![forbid(unsafe_code)]

pub mod complete_bulk_load;
mod conf;
pub mod copy_table;
mod error;
pub mod export;
pub mod export_format;
pub mod export_hfiles;
pub mod import;
pub mod import_tsv;
mod progress;
mod read_ahead;
mod sort;
pub mod text_export;

pub use error::{Error, Result};
pub use progress::Progress;
