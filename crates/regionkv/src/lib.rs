//! regionkv: an embedded LSM storage engine that behaves like the regions of an Apache
//! HBase 2.x table. This crate is what users depend on: HBase's client API — `Db` (a
//! directory; HBase's Connection), `Admin`, `Table`, `Put`, `Get`, `Scan`, `Delete`,
//! `Increment`, `Append`, `CheckAndMutate`, `RowMutations`, `RowResult` (HBase's
//! `Result`), descriptors and filters — in idiomatic Rust.
//!
//! ```
//! use regionkv::{ColumnFamilyDescriptor, Db, DbOptions, Get, Put, TableDescriptor};
//!
//! let dir = tempfile::tempdir()?;
//! let db = Db::open(dir.path(), DbOptions::default().background(false))?;
//! let cf = ColumnFamilyDescriptor::new(b"cf")?;
//! db.admin().create_table(&TableDescriptor::new("t1", vec![cf])?)?;
//! let t = db.table("t1")?;
//! t.put(&Put::new("row1").add_column("cf", "q", "value"))?;
//! let r = t.get(&Get::new("row1"))?;
//! assert_eq!(r.value(b"cf", b"q"), Some(&b"value"[..]));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The examples on the items below hide their setup: `dir` is a temporary directory,
//! `db` a [`Db`] opened there with `DbOptions::default().background(false)` (no
//! background threads, so flushes and compactions happen only when asked), and `table`
//! the table `t` with one family `cf` (keeping one version, HBase's default; three where
//! an example reads older versions; a second family `cg` where one is needed).
//!
//! Module map: [`db`] (open, directory layout), [`admin`], [`table`] (reads, writes,
//! scans), [`mutation`] and [`read`] (the builders), [`buffered`] (BufferedMutator),
//! [`catalog`] (the persisted table list's format, for inspection and repair),
//! [`crash_points`] (the named points where crash tests stop the engine), [`snapshot`]
//! (snapshots' on-disk form), [`options`]
//! (what a Db is opened with), [`descriptor`] (defaults and option types of the
//! descriptors), [`split`] (split algorithms and policies), and the layers a program
//! configures or reads through the facade: [`cell`], [`fs`] and [`filter`]. The region
//! server behind a `Db` (routing, the transition executor, workers) is internal; see
//! docs/design.md.

#![forbid(unsafe_code)]

pub mod admin;
pub mod aggregate;
pub mod buffered;
pub mod bulk_load;
pub mod catalog;
pub mod constraint;
pub mod coprocessor;
pub mod crash_points;
pub mod db;
pub mod descriptor;
mod dir_lock;
mod error;
mod layout;
pub mod mutation;
pub mod options;
pub mod read;
mod read_only;
mod region_map;
pub mod repair;
mod server_services;
pub mod snapshot;
pub mod split;
mod split_worker;
pub mod table;
pub mod table_info;
mod transition;

pub use admin::{Admin, RegionDescription, RegionStatus, StoreStatus};
pub use aggregate::AggregationClient;
pub use buffered::BufferedMutator;
pub use bulk_load::{BulkLoadReport, FamilyCells};
pub use db::Db;
pub use error::{
    AttributeRule, AttributeScope, Cause, Error, MergeProblem, RequestProblem, Result,
    SchemaProblem, SplitProblem, SplitRefusal,
};
pub use mutation::{
    Append, CheckAction, CheckAndMutate, CheckAndMutateBuilder, CompareOperator, Condition, Delete,
    Increment, Mutation, Put, RowMutations,
};
pub use options::DbOptions;
pub use read::{Get, RowResult, Scan};
pub use regionkv_memstore::ChunkPoolStats;
pub use snapshot::{SnapshotDescription, SnapshotOptions, SnapshotType};
pub use table::{BatchAction, CheckAndMutateResult, ResultScanner, Table};

/// The cell layer: cells, keys, time ranges, clocks and HBase's `Bytes` helpers.
pub use regionkv_cell as cell;
pub use regionkv_cell::{Cell, CellType, Clock, ManualClock, SharedClock, SystemClock, TimeRange};
/// The file system seam a Db does all its I/O through ([`DbOptions::fs`]): the real file
/// system (`RealFs`, storefiles read through mmap or pread), and the test doubles
/// (`MemFs`, `FaultFs`).
pub use regionkv_fs as fs;
pub use regionkv_region::Durability;

pub use regionkv_region::filter;
pub use regionkv_region::{
    ColumnFamilyDescriptor, DescriptorError, KeepDeletedCells, RegionInfo, TableDescriptor,
};
