//! The facade's error type: HBase's client exceptions as variants (TableNotFound,
//! TableExists, TableNotEnabled, NamespaceNotEmpty ...), with the lower layers' errors
//! wrapped so their `source()` and file/offset details survive.
//!
//! ```
//! use regionkv::Error;
//! # let dir = tempfile::tempdir()?;
//! # let options = regionkv::DbOptions::default().background(false);
//! # let db = regionkv::Db::open(dir.path(), options)?;
//! match db.table("missing") {
//!     Err(Error::TableNotFound(name)) => assert_eq!(name, "missing"),
//!     other => panic!("expected TableNotFound, got {other:?}"),
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::path::PathBuf;
use thiserror::Error;

/// Errors of the regionkv API.
///
/// ```
/// use regionkv::{ColumnFamilyDescriptor, Error, TableDescriptor};
/// # let dir = tempfile::tempdir()?;
/// # let options = regionkv::DbOptions::default().background(false);
/// # let db = regionkv::Db::open(dir.path(), options)?;
/// let admin = db.admin();
/// let desc = TableDescriptor::new("t", vec![ColumnFamilyDescriptor::new(b"cf")?])?;
/// admin.create_table(&desc)?;
/// match admin.create_table(&desc) {
///     Err(Error::TableExists(name)) => assert_eq!(name, "t"),
///     other => panic!("expected TableExists, got {other:?}"),
/// }
/// let Err(err) = admin.describe("nope") else { panic!("found a missing table") };
/// assert_eq!(err.to_string(), "table nope does not exist");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum Error {
    /// A region, store, storefile or WAL failed (corruption names its file and offset).
    ///
    /// ```
    /// use regionkv::{Error, Put};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// // Writing to a family the table does not have is refused by the region.
    /// let put = Put::new("r").add_column("no_such_family", "q", "v");
    /// assert!(matches!(table.put(&put), Err(Error::Region(_))));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[error(transparent)]
    Region(#[from] regionkv_region::Error),
    /// The I/O seam failed.
    ///
    /// ```
    /// use regionkv::{Db, DbOptions, Error};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let file = dir.path().join("a-file");
    /// std::fs::write(&file, "not a directory")?;
    /// // A Db "inside" a plain file fails in the file system layer.
    /// let opened = Db::open(file.join("db"), DbOptions::default().background(false));
    /// assert!(matches!(opened, Err(Error::Fs(_))));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[error(transparent)]
    Fs(#[from] regionkv_fs::Error),
    /// A row, family or name was rejected.
    ///
    /// ```
    /// use regionkv::Error;
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// assert!(matches!(db.table("bad name!"), Err(Error::Cell(_))));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[error(transparent)]
    Cell(#[from] regionkv_cell::Error),
    /// HBase's TableNotFoundException.
    ///
    /// ```
    /// use regionkv::Error;
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// assert!(matches!(db.table("nope"), Err(Error::TableNotFound(t)) if t == "nope"));
    /// assert!(matches!(db.admin().describe("ns:x"), Err(Error::TableNotFound(t)) if t == "ns:x"));
    /// assert_eq!(Error::TableNotFound("t".into()).to_string(), "table t does not exist");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[error("table {0} does not exist")]
    TableNotFound(String),
    /// HBase's TableExistsException.
    ///
    /// ```
    /// use regionkv::{ColumnFamilyDescriptor, Error, TableDescriptor};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// let desc = TableDescriptor::new("t", vec![ColumnFamilyDescriptor::new(b"cf")?])?;
    /// db.admin().create_table(&desc)?;
    /// let again = db.admin().create_table(&desc);
    /// assert!(matches!(again, Err(Error::TableExists(t)) if t == "t"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[error("table {0} already exists")]
    TableExists(String),
    /// HBase's TableNotEnabledException (reads and writes of a disabled table).
    ///
    /// ```
    /// use regionkv::{Error, Get};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// db.admin().disable_table("t")?;
    /// assert!(matches!(table.get(&Get::new("r")), Err(Error::TableNotEnabled(t)) if t == "t"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[error("table {0} is disabled")]
    TableNotEnabled(String),
    /// HBase's TableNotDisabledException (drop or truncate of an enabled table).
    ///
    /// ```
    /// use regionkv::Error;
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// assert!(matches!(db.admin().delete_table("t"), Err(Error::TableNotDisabled(_))));
    /// assert!(matches!(db.admin().truncate_table("t", false), Err(Error::TableNotDisabled(_))));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[error("table {0} is enabled; disable it first")]
    TableNotDisabled(String),
    /// HBase's NamespaceNotFoundException.
    ///
    /// ```
    /// use regionkv::{ColumnFamilyDescriptor, Error, TableDescriptor};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// let desc = TableDescriptor::new("nope:t", vec![ColumnFamilyDescriptor::new(b"cf")?])?;
    /// let created = db.admin().create_table(&desc);
    /// assert!(matches!(created, Err(Error::NamespaceNotFound(ns)) if ns == "nope"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[error("namespace {0} does not exist")]
    NamespaceNotFound(String),
    /// HBase's NamespaceExistException.
    ///
    /// ```
    /// use regionkv::Error;
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// db.admin().create_namespace("ns")?;
    /// assert!(matches!(db.admin().create_namespace("ns"), Err(Error::NamespaceExists(_))));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[error("namespace {0} already exists")]
    NamespaceExists(String),
    /// HBase's ConstraintException for dropping a namespace that still has tables (or a
    /// reserved one).
    ///
    /// ```
    /// use regionkv::Error;
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// let dropped = db.admin().drop_namespace("default");
    /// assert!(matches!(dropped, Err(Error::NamespaceConstraint(ns, _)) if ns == "default"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[error("namespace {0}: {1}")]
    NamespaceConstraint(String, String),
    /// A bad argument (HBase's IllegalArgumentException / DoNotRetryIOException).
    ///
    /// ```
    /// use regionkv::{Error, Put};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// // A put without columns, as HBase's "No columns to insert".
    /// let empty = table.put(&Put::new("r"));
    /// assert!(matches!(empty, Err(Error::InvalidArgument(msg)) if msg == "No columns to insert"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[error("{0}")]
    InvalidArgument(String),
    /// The directory is held by another open Db (this or another process).
    ///
    /// ```
    /// use regionkv::{Db, DbOptions, Error};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let _db = Db::open(dir.path(), DbOptions::default().background(false))?;
    /// match Db::open(dir.path(), DbOptions::default().background(false)) {
    ///     // The directory itself is locked, so deleting LOCK lets no second Db in.
    ///     Err(Error::Locked { lock, .. }) => assert_eq!(lock, dir.path()),
    ///     other => panic!("expected Locked, got {other:?}"),
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[error("{} is in use by another regionkv process (held lock: {})", dir.display(), lock.display())]
    Locked {
        /// The Db directory.
        dir: PathBuf,
        /// The lock found held: the directory itself (held by an open Db), or its `LOCK`
        /// file (held by a build from before the directory lock).
        lock: PathBuf,
    },
    /// The directory is not a regionkv Db, or is one of a format this build cannot read.
    ///
    /// ```
    /// use regionkv::{Db, DbOptions, Error};
    ///
    /// let dir = tempfile::tempdir()?;
    /// std::fs::write(dir.path().join("data.csv"), "a,b")?;
    /// match Db::open(dir.path(), DbOptions::default().background(false)) {
    ///     Err(Error::NotADb { dir: d, reason }) => {
    ///         assert_eq!(d, dir.path());
    ///         assert!(reason.contains("data.csv"), "{reason}");
    ///     }
    ///     other => panic!("expected NotADb, got {other:?}"),
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[error("{}: {reason}", dir.display())]
    NotADb {
        /// The directory.
        dir: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// A catalog file whose bytes are wrong.
    ///
    /// ```
    /// use regionkv::catalog::CATALOG_FILE;
    /// use regionkv::{Db, DbOptions, Error};
    ///
    /// let dir = tempfile::tempdir()?;
    /// drop(Db::open(dir.path(), DbOptions::default().background(false))?);
    /// std::fs::write(dir.path().join(CATALOG_FILE), b"garbage, not a catalog")?;
    /// match Db::open(dir.path(), DbOptions::default().background(false)) {
    ///     Err(Error::Corrupt { path, offset, .. }) => {
    ///         assert_eq!(path, dir.path().join(CATALOG_FILE));
    ///         assert_eq!(offset, 0); // the magic is wrong
    ///     }
    ///     other => panic!("expected Corrupt, got {other:?}"),
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[error("corrupt catalog {}: at offset {offset}: {reason}", path.display())]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// Byte offset of the bad data.
        offset: u64,
        /// What is wrong.
        reason: String,
    },
    /// The directory holds regions but no catalog: the catalog was lost. The open refuses
    /// rather than start an empty database over the data (whose next `create` could then
    /// collide with it); `regionkv repair DIR` rebuilds the catalog from the region
    /// manifests and the tables' `.tableinfo` files.
    ///
    /// ```
    /// use regionkv::catalog::CATALOG_FILE;
    /// use regionkv::{ColumnFamilyDescriptor, Db, DbOptions, Error, TableDescriptor};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let db = Db::open(dir.path(), DbOptions::default().background(false))?;
    /// let desc = TableDescriptor::new("t", vec![ColumnFamilyDescriptor::new(b"cf")?])?;
    /// db.admin().create_table_with_splits(&desc, vec![b"m".to_vec()])?;
    /// drop(db);
    /// std::fs::remove_file(dir.path().join(CATALOG_FILE))?;
    /// match Db::open(dir.path(), DbOptions::default().background(false)) {
    ///     Err(e @ Error::CatalogMissing { .. }) => {
    ///         let msg = e.to_string();
    ///         assert!(msg.contains("2 region directories") && msg.contains("regionkv repair"), "{msg}");
    ///     }
    ///     other => panic!("expected CatalogMissing, got {other:?}"),
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[error(
        "{}: catalog missing ({}/CATALOG); {found} present; run `regionkv repair {}` to rebuild the catalog from them",
        dir.display(),
        dir.display(),
        dir.display()
    )]
    CatalogMissing {
        /// The Db directory.
        dir: PathBuf,
        /// What `data/` holds that a catalog should describe ("3 region directories in
        /// 2 table directories", "the namespace directory ns").
        found: String,
    },
    /// A table directory the catalog does not list, that is not the leftover of an
    /// interrupted create or drop: it may hold a table whose catalog entry was lost, so
    /// nothing deletes or overwrites it; `regionkv repair` adopts it.
    ///
    /// ```
    /// use regionkv::Error;
    /// use std::path::PathBuf;
    ///
    /// let e = Error::OrphanTable {
    ///     path: PathBuf::from("/db/data/default/t"),
    ///     reason: "2 region directories".into(),
    /// };
    /// assert!(e.to_string().starts_with("/db/data/default/t holds data the catalog does not list"));
    /// ```
    #[error(
        "{} holds data the catalog does not list ({reason}); run `regionkv repair` to adopt it, or move it away",
        path.display()
    )]
    OrphanTable {
        /// The table directory.
        path: PathBuf,
        /// What it holds.
        reason: String,
    },
    /// `regionkv repair` found directories it cannot turn into a consistent catalog
    /// (regions that overlap and both hold data, a gap in a table's key space, a manifest
    /// found in another region's directory ...). No catalog was written; each problem is
    /// listed. (What the repair did before it got there — manifests put back where they
    /// belong, an unreadable catalog moved aside — stays done, and is in its log.)
    ///
    /// ```
    /// use regionkv::Error;
    /// use std::path::PathBuf;
    ///
    /// let e = Error::RepairRefused {
    ///     dir: PathBuf::from("/db"),
    ///     problems: vec!["table t: a gap between 6d and region 0123 [x, end)".into()],
    /// };
    /// assert_eq!(
    ///     e.to_string(),
    ///     "/db: repair refused: no catalog can be made of these directories:\n  table t: a gap between 6d and region 0123 [x, end)"
    /// );
    /// ```
    #[error("{}: repair refused: no catalog can be made of these directories:{}", dir.display(), problems.iter().map(|p| format!("\n  {p}")).collect::<String>())]
    RepairRefused {
        /// The Db directory.
        dir: PathBuf,
        /// What is inconsistent, one line each.
        problems: Vec<String>,
    },
    /// A catalog commit whose outcome is uncertain: the new catalog file was renamed
    /// into place but its directory could not be fsynced, so a crash may bring the old
    /// one back. The Db makes no further catalog change (create, alter, split, merge ...)
    /// and deletes no region directory until it is reopened; the next open reads
    /// whichever catalog survived, and every directory either one names is still there.
    ///
    /// ```
    /// use regionkv::Error;
    /// use std::path::PathBuf;
    ///
    /// let e = Error::CatalogUncertain {
    ///     path: PathBuf::from("/db/CATALOG"),
    ///     reason: "sync_dir failed".into(),
    /// };
    /// assert_eq!(
    ///     e.to_string(),
    ///     "catalog commit to /db/CATALOG is uncertain (sync_dir failed); reopen the Db"
    /// );
    /// ```
    #[error("catalog commit to {} is uncertain ({reason}); reopen the Db", path.display())]
    CatalogUncertain {
        /// The catalog file.
        path: PathBuf,
        /// The failure behind it.
        reason: String,
    },
    /// A test fail point configured with `return` (the `failpoints` feature only): the
    /// operation failed there, as it would on an I/O error at that point.
    #[cfg(feature = "failpoints")]
    #[error("injected failure at {0}")]
    Injected(String),
    /// A filter string that does not parse, or a filter that cannot be built.
    ///
    /// ```
    /// use regionkv::Error;
    ///
    /// let parsed = regionkv::filter::parse_filter("NoSuchFilter()");
    /// assert!(matches!(parsed.map_err(Error::from), Err(Error::Filter(_))));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[error(transparent)]
    Filter(#[from] regionkv_region::filter::FilterError),
    /// The Db was closed.
    ///
    /// ```
    /// use regionkv::Error;
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// db.close()?;
    /// assert!(matches!(db.admin().list_tables(), Err(Error::Closed)));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[error("the database is closed")]
    Closed,
    /// Mutations of a BufferedMutator that failed (HBase's
    /// RetriesExhaustedWithDetailsException): how many, and the first cause.
    ///
    /// ```
    /// use regionkv::{Error, Put};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// let mutator = table.buffered_mutator();
    /// mutator.mutate(Put::new("a").add_column("cf", "q", "v"))?;
    /// mutator.mutate(Put::new("b"))?; // no columns: fails when written
    /// match mutator.flush() {
    ///     Err(Error::MutationsFailed { failed, first }) => {
    ///         assert_eq!(failed, 1);
    ///         assert_eq!(first, "No columns to insert");
    ///     }
    ///     other => panic!("expected MutationsFailed, got {other:?}"),
    /// }
    /// assert!(table.exists(&regionkv::Get::new("a"))?); // the good one was written
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[error("{failed} mutation(s) failed; first: {first}")]
    MutationsFailed {
        /// How many failed.
        failed: usize,
        /// The first error, as text.
        first: String,
    },
}

/// `Result` with regionkv's [`Error`](enum@Error).
///
/// ```
/// use regionkv::{Db, Result};
///
/// fn table_count(db: &Db) -> Result<usize> {
///     Ok(db.admin().list_tables()?.len())
/// }
/// # let dir = tempfile::tempdir()?;
/// # let options = regionkv::DbOptions::default().background(false);
/// # let db = regionkv::Db::open(dir.path(), options)?;
/// assert_eq!(table_count(&db)?, 0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub type Result<T, E = Error> = std::result::Result<T, E>;
