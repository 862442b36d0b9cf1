//! The facade's error type: HBase's client exceptions as variants (TableNotFound,
//! TableExists, TableNotEnabled, NamespaceNotFound ...). The facade is the error boundary:
//! what the region, store, storefile, WAL, cell and file system layers report arrives as
//! one of these variants, with structured fields to match on (no lower crate's type among
//! them but the descriptors' attribute and schema enums, which the facade re-exports with
//! [`DescriptorError`](crate::DescriptorError)), the lower layer's message unchanged, and
//! its `source()` chain kept.
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

use std::fmt;
use std::path::PathBuf;

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
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
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
    NotADb {
        /// The directory.
        dir: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// A file whose bytes are wrong at a known offset: the catalog or a table's
    /// `.tableinfo` (`what` is `"catalog"` for both), a region manifest, a storefile or
    /// a WAL (found by the layer that read it).
    ///
    /// ```
    /// use regionkv::catalog::CATALOG_FILE;
    /// use regionkv::{Db, DbOptions, Error};
    ///
    /// let dir = tempfile::tempdir()?;
    /// drop(Db::open(dir.path(), DbOptions::default().background(false))?);
    /// std::fs::write(dir.path().join(CATALOG_FILE), b"garbage, not a catalog")?;
    /// match Db::open(dir.path(), DbOptions::default().background(false)) {
    ///     Err(Error::Corrupt { what: "catalog", path, offset, .. }) => {
    ///         assert_eq!(path, dir.path().join(CATALOG_FILE));
    ///         assert_eq!(offset, 0); // the magic is wrong
    ///     }
    ///     other => panic!("expected Corrupt, got {other:?}"),
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    Corrupt {
        /// Which kind of file (`"catalog"`, `"manifest"`, `"storefile"`, `"WAL"` ...).
        what: &'static str,
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
    CatalogUncertain {
        /// The catalog file.
        path: PathBuf,
        /// The failure behind it.
        reason: String,
    },
    /// HBase's SnapshotExistsException: a snapshot of that name is already stored.
    ///
    /// ```
    /// use regionkv::Error;
    /// let e = Error::SnapshotExists("s1".into());
    /// assert_eq!(e.to_string(), "Snapshot 's1' already stored on the filesystem.");
    /// ```
    SnapshotExists(String),
    /// HBase's SnapshotDoesNotExistException: no snapshot of that name.
    ///
    /// ```
    /// use regionkv::Error;
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// let Err(e) = db.admin().delete_snapshot("nope") else { panic!("deleted a missing snapshot") };
    /// assert!(matches!(&e, Error::SnapshotDoesNotExist(s) if s == "nope"));
    /// assert_eq!(e.to_string(), "Snapshot 'nope' doesn't exist on the filesystem");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    SnapshotDoesNotExist(String),
    /// HBase's SnapshotTTLExpiredException: the snapshot's TTL ran out, so it is not
    /// cloned or restored.
    SnapshotTtlExpired(String),
    /// A test fail point configured with `return` (the `failpoints` feature only): the
    /// operation failed there, as it would on an I/O error at that point.
    #[cfg(feature = "failpoints")]
    Injected(String),
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
    Closed,
    /// The Db was opened with [`Db::open_read_only`](crate::Db::open_read_only) and the
    /// call would write (HBase answers a write to a read-only table with a
    /// `DoNotRetryIOException` saying it "is read-only"); the string names the refused
    /// operation. Not retryable: only a writable open can do it.
    ///
    /// ```
    /// use regionkv::{Db, DbOptions, Error, Put};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// let reader = Db::open_read_only(dir.path(), DbOptions::default())?;
    /// let put = Put::new("r").add_column("cf", "q", "v");
    /// let err = reader.table("t")?.put(&put).unwrap_err();
    /// assert!(matches!(&err, Error::ReadOnly(_)));
    /// assert_eq!(err.to_string(), "the database is open read-only: write to table t refused");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ReadOnly(String),
    /// A read-only open or refresh found the catalog or a region's manifest changed while
    /// it read the directory, every time it tried: the writer is changing it faster than
    /// a view can be read. Trying again later usually succeeds.
    ReadOnlyViewChanging {
        /// The Db directory.
        dir: PathBuf,
        /// How many times it was read.
        attempts: u32,
    },
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
    MutationsFailed {
        /// How many failed.
        failed: usize,
        /// The first error, as text.
        first: String,
    },
    /// A region was closed under the request: a split or merge closed it (reads and
    /// writes follow their row to the daughters for [`REGION_RETRY_FOR`] before giving
    /// up with this), or it was taken offline by a failed transition or by closing the
    /// Db. The region's encoded name.
    ///
    /// [`REGION_RETRY_FOR`]: crate::table::REGION_RETRY_FOR
    ///
    /// ```
    /// use regionkv::Error;
    ///
    /// let e = Error::RegionOffline { region: "0123abcd".into() };
    /// assert_eq!(e.to_string(), "region 0123abcd is closed");
    /// ```
    RegionOffline {
        /// The region's encoded name.
        region: String,
    },
    /// A row that is not in the region the request reached (HBase's
    /// WrongRegionException): the region map changed under the request and the retry
    /// (bounded by [`REGION_RETRY_FOR`]) did not find the row's new region.
    ///
    /// [`REGION_RETRY_FOR`]: crate::table::REGION_RETRY_FOR
    ///
    /// ```
    /// use regionkv::Error;
    ///
    /// let e = Error::WrongRegion {
    ///     row: "x".into(),
    ///     region: "0123abcd".into(),
    ///     start: "a".into(),
    ///     end: "m".into(),
    /// };
    /// assert_eq!(e.to_string(), "row x is not in region 0123abcd [a, m)");
    /// ```
    WrongRegion {
        /// The row, escaped.
        row: String,
        /// The region's encoded name.
        region: String,
        /// Its start key, escaped.
        start: String,
        /// Its end key, escaped.
        end: String,
    },
    /// Writes are held back: the region's memstore is over its blocking size and the
    /// flush did not catch up within the wait bound (HBase's RegionTooBusyException).
    /// Retry later.
    ///
    /// ```
    /// use regionkv::Error;
    ///
    /// let e = Error::RegionTooBusy { region: "0123abcd".into(), size: 600, limit: 512 };
    /// assert_eq!(
    ///     e.to_string(),
    ///     "region 0123abcd is too busy: memstore size 600 is above the blocking limit 512"
    /// );
    /// ```
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
    /// The region refuses writes after an earlier failure of it (a failed WAL sync or
    /// flush) until the Db is reopened, which replays the WAL.
    ///
    /// ```
    /// use regionkv::Error;
    ///
    /// let e = Error::Poisoned { region: "0123abcd".into(), cause: "flush failed".into() };
    /// assert_eq!(
    ///     e.to_string(),
    ///     "region 0123abcd refuses writes after an earlier failure: flush failed"
    /// );
    /// ```
    Poisoned {
        /// The region's encoded name.
        region: String,
        /// The first failure, as text.
        cause: String,
    },
    /// The write-ahead log refuses the write: an earlier write or sync of it failed (the
    /// failure is this error's `source()`), or it was closed with the Db. Reopening the
    /// Db replays the log.
    WalUnavailable {
        /// The WAL's error: the message, and the first failure as its source.
        cause: Cause,
    },
    /// The row lock could not be had within the region's row lock wait (another
    /// read-modify-write of the row held it).
    ///
    /// ```
    /// use regionkv::Error;
    ///
    /// let e = Error::RowLockTimeout { row: "r1".into() };
    /// assert_eq!(e.to_string(), "timed out waiting for lock for row r1");
    /// ```
    RowLockTimeout {
        /// The row, escaped.
        row: String,
    },
    /// A write to a family the table does not have (HBase's NoSuchColumnFamilyException,
    /// raised by the region).
    ///
    /// ```
    /// use regionkv::{Error, Put};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// let put = Put::new("r").add_column("no_such_family", "q", "v");
    /// match table.put(&put) {
    ///     Err(e @ Error::NoSuchColumnFamily { .. }) => assert!(
    ///         e.to_string().starts_with("Column family no_such_family does not exist in region "),
    ///         "{e}"
    ///     ),
    ///     other => panic!("expected NoSuchColumnFamily, got {other:?}"),
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    NoSuchColumnFamily {
        /// The family, escaped.
        family: String,
        /// The region's encoded name.
        region: String,
        /// The table.
        table: String,
    },
    /// A request the engine refuses before doing anything: a row, family, table or
    /// namespace name, timestamp, time range or cell size out of HBase's limits, or a
    /// read or write the region refuses (zero versions, columns on a raw scan ...).
    ///
    /// ```
    /// use regionkv::{Error, RequestProblem};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// assert!(matches!(
    ///     db.table("bad name!"),
    ///     Err(Error::InvalidRequest(RequestProblem::IllegalTableName { .. }))
    /// ));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    InvalidRequest(RequestProblem),
    /// A coprocessor endpoint called on a region of a table that does not load it
    /// (HBase's `UnknownProtocolException`): e.g. the aggregation client on a table
    /// without `AggregateImplementation` among its `coprocessor$N` attributes.
    ///
    /// ```
    /// use regionkv::{Error, Scan};
    /// # let dir = tempfile::tempdir()?;
    /// # let db = regionkv::Db::open(dir.path(), regionkv::DbOptions::default().background(false))?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// let table = db.table("t")?;
    /// let err = table.aggregation().row_count(&Scan::new()).unwrap_err();
    /// assert!(matches!(err, Error::UnknownProtocol { .. }));
    /// assert!(err.to_string().starts_with("No registered coprocessor service found for AggregateService in region t,"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    UnknownProtocol {
        /// The service (`AggregateService`).
        service: String,
        /// The region's name (`table,start key,id.encoded.`).
        region: String,
    },
    /// A region observer's hook failed the operation (HBase's IOException thrown by a
    /// coprocessor): `message` is the hook's. The region keeps serving.
    Coprocessor {
        /// The observer's class name.
        class: String,
        /// The hook's message.
        message: String,
    },
    /// A constraint refused a put (HBase's `ConstraintException`, not retried): nothing
    /// of the put was written.
    ConstraintViolation {
        /// The constraint's class.
        constraint: String,
        /// The constraint's message.
        message: String,
    },
    /// A region observer panicked: it was removed from that region's observers (HBase
    /// with `hbase.coprocessor.abortonerror=false`), and the operation failed. Later
    /// operations run without it until the region is reopened.
    CoprocessorRemoved {
        /// The observer's class name.
        class: String,
        /// The panic's message.
        cause: String,
    },
    /// A filter string that does not parse, or a filter that cannot be built with the
    /// values given. `position` is the 0-based character index into the filter string
    /// where the parser stopped, for errors of the filter language.
    ///
    /// ```
    /// use regionkv::Error;
    ///
    /// let parsed = regionkv::filter::parse_filter("NoSuchFilter()");
    /// match parsed.map_err(Error::from) {
    ///     Err(e @ Error::InvalidFilter { position: Some(0), .. }) => {
    ///         assert!(e.to_string().starts_with("unknown filter \"NoSuchFilter\" at position 0"))
    ///     }
    ///     other => panic!("expected InvalidFilter, got {other:?}"),
    /// }
    /// ```
    InvalidFilter {
        /// Where in the filter string, for errors of the filter language.
        position: Option<usize>,
        /// The filter layer's error (its message is this error's).
        cause: Cause,
    },
    /// A split computation refused its input: a split algorithm's or pre-split's rows or
    /// region count, or a table's split policy and its parameters (HBase's
    /// IllegalArgumentException of `RegionSplitter` and the split policies).
    ///
    /// ```
    /// use regionkv::{ColumnFamilyDescriptor, Error, TableDescriptor};
    ///
    /// let mut desc = TableDescriptor::new("t", vec![ColumnFamilyDescriptor::new(b"cf")?])?;
    /// desc.set_attribute("SPLIT_POLICY", "NoSuchPolicy")?;
    /// match desc.validate().map_err(Error::from) {
    ///     Err(e @ Error::InvalidSplit { .. }) => assert_eq!(
    ///         e.to_string(),
    ///         "Unable to load configured region split policy 'NoSuchPolicy'"
    ///     ),
    ///     other => panic!("expected InvalidSplit, got {other:?}"),
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    InvalidSplit {
        /// The split layer's error (its message is this error's).
        cause: Cause,
    },
    /// A table or column family attribute name that does not exist (`alter 't',
    /// {NAME => 'cf', COLOUR => 'blue'}`).
    ///
    /// ```
    /// use regionkv::{AttributeScope, ColumnFamilyDescriptor, Error};
    ///
    /// let mut cf = ColumnFamilyDescriptor::new(b"cf")?;
    /// let err = Error::from(cf.set_attribute("COLOUR", "blue").unwrap_err());
    /// assert!(matches!(&err, Error::UnknownAttribute { scope: AttributeScope::Family, key } if key == "COLOUR"));
    /// assert_eq!(err.to_string(), "unknown column family attribute COLOUR");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
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
    /// use regionkv::{AttributeRule, ColumnFamilyDescriptor, Error};
    ///
    /// let mut cf = ColumnFamilyDescriptor::new(b"cf")?;
    /// let err = Error::from(cf.set_attribute("VERSIONS", "many").unwrap_err());
    /// assert!(matches!(
    ///     &err,
    ///     Error::InvalidAttributeValue { expected: AttributeRule::NonNegativeNumber, .. }
    /// ));
    /// assert_eq!(err.to_string(), "VERSIONS must be a non-negative number, not 'many'");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
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
    /// use regionkv::{Error, SchemaProblem, TableDescriptor};
    ///
    /// let err = Error::from(TableDescriptor::new("t", vec![]).unwrap_err());
    /// assert!(matches!(&err, Error::InvalidSchema(SchemaProblem::NoFamily { table }) if table == "t"));
    /// assert_eq!(err.to_string(), "table t should have at least one column family");
    /// ```
    InvalidSchema(SchemaProblem),
    /// A split or merge of a region that cannot be closed for it now.
    ///
    /// ```
    /// use regionkv::{Error, SplitRefusal};
    ///
    /// let e = Error::NotSplittable { region: "0123abcd".into(), reason: SplitRefusal::HasReferences };
    /// assert_eq!(
    ///     e.to_string(),
    ///     "region 0123abcd has references and cannot split or merge until they are compacted away"
    /// );
    /// ```
    NotSplittable {
        /// The region's encoded name.
        region: String,
        /// Why.
        reason: SplitRefusal,
    },
    /// A split the region server refuses before it closes anything (HBase's
    /// `SplitTableRegionProcedure` refusing its request): the region is gone, the table
    /// has SPLIT_ENABLED false, the split row is empty or outside the region, the region
    /// has no split point or still holds references. Nothing changed.
    ///
    /// ```
    /// use regionkv::{Error, SplitProblem};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// db.admin().split_at("t", b"m")?;
    /// match db.admin().split_at("t", b"m") {
    ///     Err(e @ Error::SplitRefused(SplitProblem::SplitRowIsStartKey { .. })) => {
    ///         assert_eq!(e.to_string(), "Split row is equal to startkey: m")
    ///     }
    ///     other => panic!("expected SplitRowIsStartKey, got {other:?}"),
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    SplitRefused(SplitProblem),
    /// A merge the region server refuses before it closes anything (HBase's
    /// `MergeTableRegionsProcedure` refusing its request): fewer than two regions, one
    /// named twice or gone, regions of different tables or not adjacent, MERGE_ENABLED
    /// false, a region still holding references. Nothing changed.
    ///
    /// ```
    /// use regionkv::{ColumnFamilyDescriptor, Error, MergeProblem, TableDescriptor};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// let admin = db.admin();
    /// let desc = TableDescriptor::new("t", vec![ColumnFamilyDescriptor::new(b"cf")?])?;
    /// admin.create_table_with_splits(&desc, vec![b"g".to_vec(), b"p".to_vec()])?;
    /// let r = admin.regions("t")?;
    /// match admin.merge_regions(&[&r[0].encoded_name, &r[2].encoded_name], false) {
    ///     Err(Error::MergeRefused(MergeProblem::NotAdjacent { first, second, .. })) => {
    ///         assert_eq!((first, second), (r[0].encoded_name.clone(), r[2].encoded_name.clone()))
    ///     }
    ///     other => panic!("expected NotAdjacent, got {other:?}"),
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    MergeRefused(MergeProblem),
    /// A region created in a directory that already holds one (a leftover the clean-up
    /// of an earlier transition did not remove).
    ///
    /// ```
    /// use regionkv::Error;
    ///
    /// let e = Error::RegionExists { path: "/db/data/default/t/0123abcd".into() };
    /// assert_eq!(e.to_string(), "a region already exists in /db/data/default/t/0123abcd");
    /// ```
    RegionExists {
        /// The region directory.
        path: PathBuf,
    },
    /// An internal invariant of a region does not hold (a bug, never a consequence of
    /// user input): a manifest naming a storefile its store does not have open, a
    /// compaction of a file that is not live.
    ///
    /// ```
    /// use regionkv::Error;
    ///
    /// let e = Error::Inconsistent {
    ///     region: "0123abcd".into(),
    ///     what: "storefile 7 of the manifest is not open".into(),
    /// };
    /// assert_eq!(e.to_string(), "storefile 7 of the manifest is not open");
    /// ```
    Inconsistent {
        /// The region's encoded name.
        region: String,
        /// What does not hold.
        what: String,
    },
    /// The file system failed an operation: `op` is the operation (`"append"`,
    /// `"sync_dir"`, `"rename"`, ...), `path` the path it was applied to (for a rename,
    /// its source), `kind` the [`std::io::ErrorKind`] that best describes it; the
    /// operating system's error is this error's `source()`.
    ///
    /// ```
    /// use regionkv::{Db, DbOptions, Error};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let file = dir.path().join("a-file");
    /// std::fs::write(&file, "not a directory")?;
    /// // A Db "inside" a plain file fails in the file system layer.
    /// let opened = Db::open(file.join("db"), DbOptions::default().background(false));
    /// match opened {
    ///     Err(Error::Io { path, .. }) => assert!(path.starts_with(&file)),
    ///     other => panic!("expected Io, got {other:?}"),
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    Io {
        /// The operation, named after the file system seam's method.
        op: &'static str,
        /// The path.
        path: PathBuf,
        /// What kind of failure.
        kind: std::io::ErrorKind,
        /// The file system layer's error (its message is this error's; its source, the
        /// operating system's error, is this error's source).
        cause: Cause,
    },
    /// A file that is not the one its place expects: a storefile copied or moved from
    /// another region, family or table, a manifest swapped with another region's, a file
    /// replaced by another of a different size or trailer. Says what the file claims to
    /// be and where (as what) it was found.
    ///
    /// ```
    /// use regionkv::Error;
    ///
    /// let e = Error::Misplaced {
    ///     what: "storefile",
    ///     path: "/db/data/default/t/0123abcd/cf/5.sf".into(),
    ///     claims: "file 5 of region 4567 family cf".into(),
    ///     found_as: "file 5 of region 0123abcd family cf".into(),
    /// };
    /// assert!(e.to_string().starts_with("storefile /db/data/default/t/0123abcd/cf/5.sf belongs elsewhere"));
    /// ```
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
    /// A storefile or WAL that cannot be read as one: not a regionkv file at all, of a
    /// format version this build does not read, a block whose checksum does not match
    /// its bytes, a WAL whose records end before later evidence says they did, or a WAL
    /// of another Db. (Bad bytes at a known offset are [`Error::Corrupt`].)
    UnreadableFile {
        /// `"storefile"` or `"WAL"`.
        what: &'static str,
        /// The file.
        path: PathBuf,
        /// The lower layer's error (its message is this error's).
        cause: Cause,
    },
    /// A failure of a lower layer that no other variant describes, and that callers are
    /// not expected to handle one by one: a storefile option out of range (BLOCKSIZE), a
    /// WAL edit larger than a record may be, a storefile writer given cells out of order
    /// (a bug). `layer` names the layer (`"storefile"`, `"WAL"`, `"cell"`, `"region"`).
    Other {
        /// The layer that failed.
        layer: &'static str,
        /// Its error (its message is this error's).
        cause: Cause,
    },
    /// The cells given to [`Admin::bulk_load`](crate::Admin::bulk_load) through
    /// [`FamilyCells::fallible`](crate::FamilyCells::fallible) could not be read (a
    /// damaged file being converted): the load stopped before its commit, nothing of it
    /// is in the table. The source's own error is the cause (its message is this error's).
    BulkLoadSource {
        /// The source's error ([`Cause::downcast_ref`] gives it back).
        cause: Cause,
    },
}

/// The error of a lower layer (file system, storefile, WAL, filter language, split
/// computations) behind an [`Error`] variant that carries one: its message is the
/// variant's message, and its sources are the variant's sources. Opaque: match on the
/// variant's other fields.
pub struct Cause(Box<dyn std::error::Error + Send + Sync + 'static>);

impl Cause {
    /// Wraps `error`.
    pub fn new(error: impl std::error::Error + Send + Sync + 'static) -> Self {
        Cause(Box::new(error))
    }

    /// The wrapped error as an `E`, if it is one: a caller that gave its own error type
    /// (a bulk load's source) takes it back.
    pub fn downcast_ref<E: std::error::Error + 'static>(&self) -> Option<&E> {
        self.0.downcast_ref::<E>()
    }
}

impl fmt::Debug for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

impl fmt::Display for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

// The payloads of UnknownAttribute, InvalidAttributeValue and InvalidSchema are the
// descriptors' own, those of the DescriptorError the facade re-exports: one pattern matches
// a descriptor's error before and after it becomes an `Error`.
pub use regionkv_region::{AttributeRule, AttributeScope, SchemaProblem};

/// What is wrong with a request, in an [`Error::InvalidRequest`]. The first four are the
/// region server's refusals (HBase's DoNotRetryIOException); the others are HBase's
/// limits on rows, families, names, timestamps and cells, and bytes that do not parse as
/// what the request says they are.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
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
    /// A row key longer than HBase allows (`Short.MAX_VALUE` bytes).
    #[error("row length {len} exceeds the maximum of {max} bytes")]
    RowTooLong {
        /// Its length.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// An empty row key in a mutation.
    #[error("row length is 0")]
    EmptyRow,
    /// A family name longer than HBase allows (`Byte.MAX_VALUE` bytes).
    #[error("family length {len} exceeds the maximum of {max} bytes")]
    FamilyTooLong {
        /// Its length.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// A family name that breaks HBase's naming rules.
    #[error("illegal column family name '{name}': {reason}")]
    IllegalFamilyName {
        /// The name, escaped.
        name: String,
        /// Which rule it breaks.
        reason: &'static str,
    },
    /// A snapshot name that breaks HBase's rule for them (a legal table qualifier), in
    /// the words of HBase's `TableName.isLegalTableQualifierName(name, isSnapshot)`.
    #[error("{message}")]
    IllegalSnapshotName {
        /// The name.
        name: String,
        /// HBase's message (`Illegal first character <45> at 0. Snapshot qualifiers ...`).
        message: String,
    },
    /// A table or namespace name that breaks HBase's naming rules.
    #[error("illegal table name '{name}': {reason}")]
    IllegalTableName {
        /// The name, escaped.
        name: String,
        /// Which rule it breaks.
        reason: &'static str,
    },
    /// A cell (key plus value) larger than the configured maximum.
    #[error("cell size {size} exceeds the maximum of {max} bytes")]
    CellTooLarge {
        /// Its size.
        size: usize,
        /// The limit.
        max: usize,
    },
    /// A negative timestamp.
    #[error("timestamp cannot be negative: {0}")]
    NegativeTimestamp(i64),
    /// A time range with negative or reversed bounds.
    #[error("invalid time range [{min}, {max}): {reason}")]
    InvalidTimeRange {
        /// Lower bound (inclusive).
        min: i64,
        /// Upper bound (exclusive).
        max: i64,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// A byte that is not one of HBase's cell type codes.
    #[error("unknown cell type code {0}")]
    UnknownCellType(u8),
    /// A cell's tags that do not parse.
    #[error("malformed tags of {len} bytes: {reason}")]
    MalformedTags {
        /// Their length.
        len: usize,
        /// What is wrong.
        reason: &'static str,
    },
    /// Encoded key bytes that do not parse.
    #[error("malformed key of {len} bytes: {reason}")]
    MalformedKey {
        /// Their length.
        len: usize,
        /// What is wrong.
        reason: &'static str,
    },
    /// A fixed-width number of the wrong length.
    #[error("expected {expected} bytes, got {got}")]
    WrongLength {
        /// The width of the number.
        expected: usize,
        /// The length given.
        got: usize,
    },
    /// A `\x` escape of a `Bytes.toStringBinary`-style string that ends early.
    #[error("truncated \\x escape at character {position} of {input:?}")]
    TruncatedEscape {
        /// The whole input.
        input: String,
        /// Character index of the backslash.
        position: usize,
    },
}

/// Why a region cannot be split or merged, in an [`Error::NotSplittable`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SplitRefusal {
    /// The region still reads files of its parent through references.
    #[error("has references and cannot split or merge until they are compacted away")]
    HasReferences,
}

/// Why a split request is refused, in an [`Error::SplitRefused`]; each prints HBase's
/// message for it. Rows and keys are escaped as HBase's `Bytes.toStringBinary` does.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SplitProblem {
    /// The region is not an online region of the table (a split or merge replaced it,
    /// or the table was disabled, since it was named).
    #[error("Unknown region {region} of table {table}")]
    UnknownRegion {
        /// The region's encoded name.
        region: String,
        /// The table.
        table: String,
    },
    /// The table's SPLIT_ENABLED is false.
    #[error("Table {table} isn't enabled for split (SPLIT_ENABLED => false)")]
    SplitDisabled {
        /// The table.
        table: String,
    },
    /// The region still reads its parent's files through references; a compaction
    /// rewrites them.
    #[error(
        "{region} NOT splittable: it still has references to its parent's files; compact it first"
    )]
    HasReferences {
        /// The region's encoded name.
        region: String,
    },
    /// An empty split row.
    #[error("Split row cannot be null")]
    EmptySplitRow,
    /// The split row is the region's start key (the lower daughter would be empty).
    #[error("Split row is equal to startkey: {row}")]
    SplitRowIsStartKey {
        /// The split row, escaped.
        row: String,
    },
    /// The split row is outside the region's key range; the message shows the region as
    /// HBase's `RegionInfo.toString` does.
    #[error(
        "Split row is not inside region key range splitKey:{row} region: {{ENCODED => {region}, NAME => '{name}', STARTKEY => '{start}', ENDKEY => '{end}'}}"
    )]
    SplitRowOutsideRegion {
        /// The split row, escaped.
        row: String,
        /// The region's encoded name.
        region: String,
        /// The region's full name (`table,startkey,id.encoded.`).
        name: String,
        /// Its start key, escaped.
        start: String,
        /// Its end key, escaped.
        end: String,
    },
    /// No split row was given and the region has none of its own (no storefile with a
    /// mid-key, even after flushing its memstore). HBase's message does not name the
    /// region; `region` does.
    #[error(
        "Region not splittable because bestSplitPoint = null, maybe table is too small for auto split. For force split, try specifying split row"
    )]
    NoSplitPoint {
        /// The region's encoded name.
        region: String,
    },
}

/// Why a merge request is refused, in an [`Error::MergeRefused`]; each prints HBase's
/// message for it (or regionkv's, for a forced merge of regions that are not adjacent,
/// which HBase would do and regionkv cannot).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MergeProblem {
    /// Fewer than two regions named.
    #[error("Need at least two regions to merge")]
    TooFewRegions,
    /// A region named twice. HBase's message does not name it; `region` does.
    #[error("Duplicate regions specified; cannot merge a region to itself")]
    DuplicateRegion {
        /// The region's encoded name.
        region: String,
    },
    /// A region that is not online (a split or merge replaced it, or its table was
    /// disabled, since it was named).
    #[error("Unknown region {region}")]
    UnknownRegion {
        /// The region's encoded name.
        region: String,
    },
    /// Regions of more than one table.
    #[error("Can't merge regions from different tables")]
    DifferentTables,
    /// The table's MERGE_ENABLED is false.
    #[error("Table {table} isn't enabled for merge (MERGE_ENABLED => false)")]
    MergeDisabled {
        /// The table.
        table: String,
    },
    /// Two regions, consecutive in key order among those named, that do not meet: the
    /// merged region would cover the regions between them. Refused whether or not the
    /// merge is `forcible`, which only changes the message.
    #[error("{}", not_adjacent_message(first, second, *forcible))]
    NotAdjacent {
        /// The lower region's encoded name.
        first: String,
        /// The higher region's encoded name.
        second: String,
        /// Whether the merge was forcible.
        forcible: bool,
    },
    /// A region that still reads its parent's files through references; a compaction
    /// rewrites them.
    #[error(
        "Unable to merge {region}: it has references to a parent region's files; compact it first"
    )]
    HasReferences {
        /// The region's encoded name.
        region: String,
    },
}

/// The message of [`MergeProblem::NotAdjacent`]: HBase's for a merge that is not
/// forcible; for a forcible one, regionkv's own (HBase merges those).
fn not_adjacent_message(first: &str, second: &str, forcible: bool) -> String {
    if forcible {
        format!(
            "regionkv cannot force-merge non-adjacent regions '{first}', '{second}' (the merged region would overlap the regions between them)"
        )
    } else {
        format!(
            "Unable to merge non-adjacent or non-overlapping regions '{first}', '{second}' when force=false"
        )
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::TableNotFound(t) => write!(f, "table {t} does not exist"),
            Error::TableExists(t) => write!(f, "table {t} already exists"),
            Error::TableNotEnabled(t) => write!(f, "table {t} is disabled"),
            Error::TableNotDisabled(t) => write!(f, "table {t} is enabled; disable it first"),
            Error::SnapshotExists(name) => {
                write!(f, "Snapshot '{name}' already stored on the filesystem.")
            }
            Error::SnapshotTtlExpired(name) => {
                write!(f, "TTL for snapshot '{name}' has already expired.")
            }
            Error::SnapshotDoesNotExist(name) => {
                write!(f, "Snapshot '{name}' doesn't exist on the filesystem")
            }
            Error::NamespaceNotFound(ns) => write!(f, "namespace {ns} does not exist"),
            Error::NamespaceExists(ns) => write!(f, "namespace {ns} already exists"),
            Error::NamespaceConstraint(ns, reason) => write!(f, "namespace {ns}: {reason}"),
            Error::InvalidArgument(message) => f.write_str(message),
            Error::Locked { dir, lock } => write!(
                f,
                "{} is in use by another regionkv process (held lock: {})",
                dir.display(),
                lock.display()
            ),
            Error::NotADb { dir, reason } => write!(f, "{}: {reason}", dir.display()),
            Error::Corrupt {
                what,
                path,
                offset,
                reason,
            } => write!(
                f,
                "corrupt {what} {}: at offset {offset}: {reason}",
                path.display()
            ),
            Error::CatalogMissing { dir, found } => write!(
                f,
                "{}: catalog missing ({}/CATALOG); {found} present; run `regionkv repair {}` to rebuild the catalog from them",
                dir.display(),
                dir.display(),
                dir.display()
            ),
            Error::OrphanTable { path, reason } => write!(
                f,
                "{} holds data the catalog does not list ({reason}); run `regionkv repair` to adopt it, or move it away",
                path.display()
            ),
            Error::RepairRefused { dir, problems } => {
                write!(
                    f,
                    "{}: repair refused: no catalog can be made of these directories:",
                    dir.display()
                )?;
                for p in problems {
                    write!(f, "\n  {p}")?;
                }
                Ok(())
            }
            Error::CatalogUncertain { path, reason } => write!(
                f,
                "catalog commit to {} is uncertain ({reason}); reopen the Db",
                path.display()
            ),
            #[cfg(feature = "failpoints")]
            Error::Injected(point) => write!(f, "injected failure at {point}"),
            Error::Closed => f.write_str("the database is closed"),
            Error::ReadOnly(what) => write!(f, "the database is open read-only: {what} refused"),
            Error::ReadOnlyViewChanging { dir, attempts } => write!(
                f,
                "{} changed while it was read, {attempts} times: no consistent read-only view (the writer is flushing or compacting); try again",
                dir.display()
            ),
            Error::MutationsFailed { failed, first } => {
                write!(f, "{failed} mutation(s) failed; first: {first}")
            }
            Error::RegionOffline { region } => write!(f, "region {region} is closed"),
            Error::WrongRegion {
                row,
                region,
                start,
                end,
            } => write!(f, "row {row} is not in region {region} [{start}, {end})"),
            Error::RegionTooBusy {
                region,
                size,
                limit,
            } => write!(
                f,
                "region {region} is too busy: memstore size {size} is above the blocking limit {limit}"
            ),
            Error::Poisoned { region, cause } => write!(
                f,
                "region {region} refuses writes after an earlier failure: {cause}"
            ),
            Error::RowLockTimeout { row } => write!(f, "timed out waiting for lock for row {row}"),
            Error::NoSuchColumnFamily {
                family,
                region,
                table,
            } => write!(
                f,
                "Column family {family} does not exist in region {region} in table {table}"
            ),
            Error::InvalidRequest(problem) => fmt::Display::fmt(problem, f),
            Error::Coprocessor { class, message } => {
                write!(f, "coprocessor {class}: {message}")
            }
            Error::ConstraintViolation { message, .. } => f.write_str(message),
            Error::CoprocessorRemoved { class, cause } => write!(
                f,
                "Coprocessor: '{class}' threw: '{cause}' and has been removed from the active coprocessor set."
            ),
            Error::UnknownProtocol { service, region } => write!(
                f,
                "No registered coprocessor service found for {service} in region {region}"
            ),
            Error::UnknownAttribute { scope, key } => write!(f, "unknown {scope} attribute {key}"),
            Error::InvalidAttributeValue {
                key,
                value,
                expected,
            } => f.write_str(&expected.message(key, value)),
            Error::InvalidSchema(problem) => fmt::Display::fmt(problem, f),
            Error::NotSplittable { region, reason } => write!(f, "region {region} {reason}"),
            Error::SplitRefused(problem) => fmt::Display::fmt(problem, f),
            Error::MergeRefused(problem) => fmt::Display::fmt(problem, f),
            Error::RegionExists { path } => {
                write!(f, "a region already exists in {}", path.display())
            }
            Error::Inconsistent { what, .. } => f.write_str(what),
            Error::Misplaced {
                what,
                path,
                claims,
                found_as,
            } => write!(
                f,
                "{what} {} belongs elsewhere: it is {claims}, but was found as {found_as}",
                path.display()
            ),
            Error::WalUnavailable { cause }
            | Error::InvalidFilter { cause, .. }
            | Error::InvalidSplit { cause }
            | Error::Io { cause, .. }
            | Error::UnreadableFile { cause, .. }
            | Error::BulkLoadSource { cause }
            | Error::Other { cause, .. } => fmt::Display::fmt(cause, f),
        }
    }
}

impl std::error::Error for Error {
    /// For the variants with a [`Cause`], the lower layer's sources (the operating
    /// system's error of an [`Error::Io`], the first failure of an
    /// [`Error::WalUnavailable`]); the lower error itself is not repeated, its message
    /// being the variant's.
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::WalUnavailable { cause }
            | Error::InvalidFilter { cause, .. }
            | Error::InvalidSplit { cause }
            | Error::Io { cause, .. }
            | Error::UnreadableFile { cause, .. }
            | Error::BulkLoadSource { cause }
            | Error::Other { cause, .. } => cause.0.source(),
            _ => None,
        }
    }
}

impl From<regionkv_region::Error> for Error {
    fn from(e: regionkv_region::Error) -> Self {
        use regionkv_region::Error as R;
        match e {
            R::Coprocessor { class, message } => Error::Coprocessor { class, message },
            R::Fs(e) => e.into(),
            R::Cell(e) => e.into(),
            R::StoreFile(e) => from_storefile(e),
            R::Wal(e) => from_wal(e),
            R::Split(e) => Error::InvalidSplit {
                cause: Cause::new(e),
            },
            R::Corrupt {
                what,
                path,
                offset,
                reason,
            } => Error::Corrupt {
                what,
                path,
                offset,
                reason,
            },
            R::Misplaced {
                what,
                path,
                claims,
                found_as,
            } => Error::Misplaced {
                what,
                path,
                claims,
                found_as,
            },
            R::UnknownAttribute { scope, key } => Error::UnknownAttribute { scope, key },
            R::InvalidAttributeValue {
                key,
                value,
                expected,
            } => Error::InvalidAttributeValue {
                key,
                value,
                expected,
            },
            R::InvalidSchema(problem) => Error::InvalidSchema(problem),
            R::InvalidRequest(problem) => Error::InvalidRequest(request_problem(problem)),
            R::NotSplittable { region, reason } => Error::NotSplittable {
                region,
                reason: match reason {
                    regionkv_region::SplitRefusal::HasReferences => SplitRefusal::HasReferences,
                },
            },
            R::RegionExists { path } => Error::RegionExists { path },
            R::Inconsistent { region, what } => Error::Inconsistent { region, what },
            R::NoSuchColumnFamily {
                family,
                region,
                table,
            } => Error::NoSuchColumnFamily {
                family,
                region,
                table,
            },
            R::WrongRegion {
                row,
                region,
                start,
                end,
            } => Error::WrongRegion {
                row,
                region,
                start,
                end,
            },
            R::RowLockTimeout(row) => Error::RowLockTimeout { row },
            R::RegionTooBusy {
                region,
                size,
                limit,
            } => Error::RegionTooBusy {
                region,
                size,
                limit,
            },
            R::Poisoned { region, cause } => Error::Poisoned { region, cause },
            R::Closed(region) => Error::RegionOffline { region },
            R::ReadOnly { region, what } => Error::ReadOnly(format!("{what} of region {region}")),
            other => Error::Other {
                layer: "region",
                cause: Cause::new(other),
            },
        }
    }
}

fn request_problem(problem: regionkv_region::RequestProblem) -> RequestProblem {
    use regionkv_region::RequestProblem as R;
    match problem {
        R::ZeroVersions => RequestProblem::ZeroVersions,
        R::ColumnsOnRawScan => RequestProblem::ColumnsOnRawScan,
        R::BatchWithRowFilter => RequestProblem::BatchWithRowFilter,
        R::CellOfOtherRow { cell_row, row } => RequestProblem::CellOfOtherRow { cell_row, row },
    }
}

/// A descriptor's error ([`DescriptorError`](crate::DescriptorError)) as the facade reports
/// it: [`Error::UnknownAttribute`], [`Error::InvalidAttributeValue`],
/// [`Error::InvalidSchema`], an illegal name as [`Error::InvalidRequest`], a SPLIT_POLICY
/// as [`Error::InvalidSplit`], a storefile option as [`Error::Other`] — what it was when
/// the descriptor methods returned the region's error, which this goes through so the two
/// cannot drift apart.
impl From<regionkv_region::DescriptorError> for Error {
    fn from(e: regionkv_region::DescriptorError) -> Self {
        regionkv_region::Error::from(e).into()
    }
}

/// A refused coprocessor spec is HBase's `IllegalArgumentException`, with its text.
impl From<regionkv_region::coprocessor::SpecError> for Error {
    fn from(e: regionkv_region::coprocessor::SpecError) -> Self {
        Error::InvalidArgument(e.to_string())
    }
}

impl From<regionkv_fs::Error> for Error {
    fn from(e: regionkv_fs::Error) -> Self {
        use regionkv_fs::Error as F;
        let op = match &e {
            F::Io { op, .. } | F::NotAFile { op, .. } | F::Crashed { op, .. } => *op,
            F::Rename { .. } => "rename",
            F::UnexpectedEof { .. } => "read_at",
            F::Locked { .. } => "lock",
            _ => "io",
        };
        Error::Io {
            op,
            path: e.path().to_path_buf(),
            kind: e.kind(),
            cause: Cause::new(e),
        }
    }
}

impl From<regionkv_cell::Error> for Error {
    fn from(e: regionkv_cell::Error) -> Self {
        use regionkv_cell::Error as C;
        Error::InvalidRequest(match e {
            C::RowTooLong { len, max } => RequestProblem::RowTooLong { len, max },
            C::EmptyRow => RequestProblem::EmptyRow,
            C::FamilyTooLong { len, max } => RequestProblem::FamilyTooLong { len, max },
            C::IllegalFamilyName { name, reason } => {
                RequestProblem::IllegalFamilyName { name, reason }
            }
            C::IllegalTableName { name, reason } => {
                RequestProblem::IllegalTableName { name, reason }
            }
            C::CellTooLarge { size, max } => RequestProblem::CellTooLarge { size, max },
            C::NegativeTimestamp(ts) => RequestProblem::NegativeTimestamp(ts),
            C::InvalidTimeRange { min, max, reason } => {
                RequestProblem::InvalidTimeRange { min, max, reason }
            }
            C::UnknownCellType(code) => RequestProblem::UnknownCellType(code),
            C::MalformedTags { len, reason } => RequestProblem::MalformedTags { len, reason },
            C::MalformedKey { len, reason } => RequestProblem::MalformedKey { len, reason },
            C::WrongLength { expected, got } => RequestProblem::WrongLength { expected, got },
            C::TruncatedEscape { input, position } => {
                RequestProblem::TruncatedEscape { input, position }
            }
            other => {
                return Error::Other {
                    layer: "cell",
                    cause: Cause::new(other),
                };
            }
        })
    }
}

impl From<regionkv_region::filter::FilterError> for Error {
    fn from(e: regionkv_region::filter::FilterError) -> Self {
        use regionkv_region::filter::FilterError as F;
        let position = match &e {
            F::Syntax { position, .. }
            | F::UnknownFilter { position, .. }
            | F::UnsupportedFilter { position, .. }
            | F::InvalidArgument { position, .. } => Some(*position),
            _ => None,
        };
        Error::InvalidFilter {
            position,
            cause: Cause::new(e),
        }
    }
}

/// A storefile error as the facade reports it.
fn from_storefile(e: regionkv_storefile::Error) -> Error {
    use regionkv_storefile::Error as S;
    match e {
        S::Fs(e) => e.into(),
        S::Cell(e) => e.into(),
        S::Corrupt {
            path,
            offset,
            reason,
        } => Error::Corrupt {
            what: "storefile",
            path,
            offset,
            reason,
        },
        S::ChecksumMismatch { ref path, .. }
        | S::NotAStoreFile { ref path, .. }
        | S::UnsupportedVersion { ref path, .. } => Error::UnreadableFile {
            what: "storefile",
            path: path.clone(),
            cause: Cause::new(e),
        },
        other => Error::Other {
            layer: "storefile",
            cause: Cause::new(other),
        },
    }
}

/// A WAL error as the facade reports it.
fn from_wal(e: regionkv_wal::Error) -> Error {
    use regionkv_wal::Error as W;
    match e {
        W::Fs(e) => e.into(),
        W::Corrupt {
            path,
            offset,
            reason,
        } => Error::Corrupt {
            what: "WAL",
            path,
            offset,
            reason,
        },
        W::NotAWal { ref path, .. }
        | W::Truncated { ref path, .. }
        | W::ForeignLog { ref path, .. }
        | W::UnsupportedVersion { ref path, .. } => Error::UnreadableFile {
            what: "WAL",
            path: path.clone(),
            cause: Cause::new(e),
        },
        W::Poisoned { .. } | W::Closed => Error::WalUnavailable {
            cause: Cause::new(e),
        },
        other => Error::Other {
            layer: "WAL",
            cause: Cause::new(other),
        },
    }
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

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use regionkv_region::Error as R;
    use std::io;
    use std::sync::Arc;

    /// `e`'s message and its sources' messages, outermost first.
    fn chain(e: &dyn std::error::Error) -> Vec<String> {
        let mut out = vec![e.to_string()];
        let mut cur = e.source();
        while let Some(c) = cur {
            out.push(c.to_string());
            cur = c.source();
        }
        out
    }

    /// Converts `lower` after checking that it prints `want` (the text it printed when the
    /// facade wrapped it), and checks that the facade error prints the same, with the
    /// same sources under it.
    fn convert(lower: R, want: &str) -> Error {
        let before = chain(&lower);
        assert_eq!(before[0], want);
        let e = Error::from(lower);
        assert_eq!(chain(&e), before, "{e:?}");
        e
    }

    #[test]
    fn region_errors_keep_their_text() {
        let e = convert(R::Closed("0123".into()), "region 0123 is closed");
        assert!(matches!(e, Error::RegionOffline { region } if region == "0123"));
        let e = convert(
            R::WrongRegion {
                row: "x".into(),
                region: "0123".into(),
                start: "a".into(),
                end: "m".into(),
            },
            "row x is not in region 0123 [a, m)",
        );
        assert!(matches!(e, Error::WrongRegion { .. }));
        let e = convert(
            R::RegionTooBusy {
                region: "0123".into(),
                size: 600,
                limit: 512,
            },
            "region 0123 is too busy: memstore size 600 is above the blocking limit 512",
        );
        assert!(matches!(e, Error::RegionTooBusy { size: 600, .. }));
        let e = convert(
            R::Poisoned {
                region: "0123".into(),
                cause: "sync failed".into(),
            },
            "region 0123 refuses writes after an earlier failure: sync failed",
        );
        assert!(matches!(e, Error::Poisoned { .. }));
        let e = convert(
            R::RowLockTimeout("r1".into()),
            "timed out waiting for lock for row r1",
        );
        assert!(matches!(e, Error::RowLockTimeout { row } if row == "r1"));
        let e = convert(
            R::NoSuchColumnFamily {
                family: "nf".into(),
                region: "0123".into(),
                table: "t".into(),
            },
            "Column family nf does not exist in region 0123 in table t",
        );
        assert!(matches!(e, Error::NoSuchColumnFamily { family, .. } if family == "nf"));
        let e = convert(
            R::Corrupt {
                what: "manifest",
                path: "/db/r/MANIFEST".into(),
                offset: 7,
                reason: "bad length".into(),
            },
            "corrupt manifest /db/r/MANIFEST: at offset 7: bad length",
        );
        assert!(matches!(
            e,
            Error::Corrupt {
                what: "manifest",
                offset: 7,
                ..
            }
        ));
        let e = convert(
            R::Misplaced {
                what: "storefile",
                path: "/db/r/cf/5.sf".into(),
                claims: "file 5 of region 4567".into(),
                found_as: "file 5 of region 0123".into(),
            },
            "storefile /db/r/cf/5.sf belongs elsewhere: it is file 5 of region 4567, but was found as file 5 of region 0123",
        );
        assert!(matches!(
            e,
            Error::Misplaced {
                what: "storefile",
                ..
            }
        ));
    }

    /// The classes of the former `InvalidDescriptor(String)`, each with a text it printed.
    #[test]
    fn descriptor_and_request_classes_keep_their_text() {
        use regionkv_region::{AttributeRule as Rule, AttributeScope as Scope};
        let e = convert(
            R::UnknownAttribute {
                scope: Scope::Family,
                key: "COLOUR".into(),
            },
            "unknown column family attribute COLOUR",
        );
        assert!(matches!(
            e,
            Error::UnknownAttribute {
                scope: AttributeScope::Family,
                ..
            }
        ));
        let e = convert(
            R::UnknownAttribute {
                scope: Scope::Table,
                key: "OWNER".into(),
            },
            "unknown table attribute OWNER",
        );
        assert!(matches!(
            e,
            Error::UnknownAttribute {
                scope: AttributeScope::Table,
                ..
            }
        ));
        let value = |key: &str, value: &str, expected| R::InvalidAttributeValue {
            key: key.into(),
            value: value.into(),
            expected,
        };
        for (lower, want, rule) in [
            (
                value("IN_MEMORY", "yes", Rule::Bool),
                "IN_MEMORY must be true or false, not 'yes'",
                AttributeRule::Bool,
            ),
            (
                value("versions", "x", Rule::NonNegativeNumber),
                "versions must be a non-negative number, not 'x'",
                AttributeRule::NonNegativeNumber,
            ),
            (
                value(
                    "DURABILITY",
                    "SOMETIMES",
                    Rule::OneOf("one of USE_DEFAULT, SKIP_WAL, ASYNC_WAL, SYNC_WAL, FSYNC_WAL"),
                ),
                "DURABILITY must be one of USE_DEFAULT, SKIP_WAL, ASYNC_WAL, SYNC_WAL, FSYNC_WAL, not 'SOMETIMES'",
                AttributeRule::OneOf(
                    "one of USE_DEFAULT, SKIP_WAL, ASYNC_WAL, SYNC_WAL, FSYNC_WAL",
                ),
            ),
            (
                value("BLOOMFILTER", "XOR", Rule::Supported("NONE, ROW, ROWCOL")),
                "BLOOMFILTER 'XOR' is not supported (NONE, ROW, ROWCOL)",
                AttributeRule::Supported("NONE, ROW, ROWCOL"),
            ),
            (
                value("REPLICATION_SCOPE", "2", Rule::ZeroOrOne),
                "REPLICATION_SCOPE must be 0 or 1, not 2",
                AttributeRule::ZeroOrOne,
            ),
            (
                value("TTL", "99999999999", Rule::InRange),
                "TTL 99999999999 is out of range",
                AttributeRule::InRange,
            ),
            (
                value("VERSIONS", "3000000000", Rule::JavaInt),
                "VERSIONS 3000000000 is out of range: it is a Java int, at most 2147483647",
                AttributeRule::JavaInt,
            ),
        ] {
            let e = convert(lower, want);
            assert!(
                matches!(&e, Error::InvalidAttributeValue { expected, .. } if *expected == rule),
                "{e:?}"
            );
        }
        use regionkv_region::SchemaProblem as S;
        for (lower, want) in [
            (
                S::NoFamily { table: "t".into() },
                "table t should have at least one column family",
            ),
            (
                S::DuplicateFamily {
                    family: "cf".into(),
                },
                "column family cf is defined twice",
            ),
            (
                S::VersionsNotPositive {
                    family: "cf".into(),
                },
                "VERSIONS for column family cf must be positive",
            ),
            (
                S::MinVersionsAboveVersions {
                    family: "cf".into(),
                    min_versions: 4,
                    versions: 3,
                },
                "MIN_VERSIONS (4) for column family cf must not exceed VERSIONS (3)",
            ),
            (
                S::TtlNotPositive {
                    family: "cf".into(),
                },
                "TTL for column family cf must be positive",
            ),
            (S::FlushSizeZero, "MEMSTORE_FLUSHSIZE must be positive"),
        ] {
            let e = convert(R::InvalidSchema(lower), want);
            assert!(matches!(e, Error::InvalidSchema(_)), "{e:?}");
        }
        use regionkv_region::RequestProblem as Q;
        for (lower, want) in [
            (
                Q::ZeroVersions,
                "the number of versions to read must be positive",
            ),
            (
                Q::ColumnsOnRawScan,
                "Cannot specify any column for a raw scan",
            ),
            (
                Q::BatchWithRowFilter,
                "Cannot set batch on a scan using a filter that returns true for filter.hasFilterRow",
            ),
            (
                Q::CellOfOtherRow {
                    cell_row: "b".into(),
                    row: "a".into(),
                },
                "cell of row b in a mutation of row a",
            ),
        ] {
            let e = convert(R::InvalidRequest(lower), want);
            assert!(matches!(e, Error::InvalidRequest(_)), "{e:?}");
        }
        let e = convert(
            R::NotSplittable {
                region: "0123".into(),
                reason: regionkv_region::SplitRefusal::HasReferences,
            },
            "region 0123 has references and cannot split or merge until they are compacted away",
        );
        assert!(matches!(
            e,
            Error::NotSplittable {
                reason: SplitRefusal::HasReferences,
                ..
            }
        ));
        let e = convert(
            R::RegionExists {
                path: "/db/data/default/t/0123".into(),
            },
            "a region already exists in /db/data/default/t/0123",
        );
        assert!(matches!(e, Error::RegionExists { .. }));
        let e = convert(
            R::Inconsistent {
                region: "0123".into(),
                what: "storefile 9 is not live in store cf".into(),
            },
            "storefile 9 is not live in store cf",
        );
        assert!(matches!(e, Error::Inconsistent { region, .. } if region == "0123"));
    }

    #[test]
    fn file_system_errors_keep_their_text_and_source() {
        use regionkv_fs::{Error as F, FileKind};
        let e = convert(
            R::Fs(F::io("sync_dir", "/db/wal", io::Error::other("EIO"))),
            "sync_dir failed on /db/wal",
        );
        assert!(matches!(
            &e,
            Error::Io { op: "sync_dir", path, kind: io::ErrorKind::Other, .. } if path.as_path() == std::path::Path::new("/db/wal")
        ));
        assert_eq!(chain(&e), ["sync_dir failed on /db/wal", "EIO"]);
        let source = std::error::Error::source(&e).and_then(|s| s.downcast_ref::<io::Error>());
        assert!(source.is_some(), "the io::Error itself is the source");
        let e = convert(
            R::Fs(F::Rename {
                from: "/a".into(),
                to: "/b".into(),
                source: io::ErrorKind::NotFound.into(),
            }),
            "rename of /a to /b failed",
        );
        assert!(matches!(
            e,
            Error::Io {
                op: "rename",
                kind: io::ErrorKind::NotFound,
                ..
            }
        ));
        let e = convert(
            R::Fs(F::UnexpectedEof {
                path: "/db/f".into(),
                offset: 10,
                len: 4,
                file_len: 12,
            }),
            "read of 4 bytes at offset 10 in /db/f runs past the end of the file (12 bytes)",
        );
        assert!(matches!(
            e,
            Error::Io {
                kind: io::ErrorKind::UnexpectedEof,
                ..
            }
        ));
        let e = convert(
            R::Fs(F::Locked {
                path: "/db/LOCK".into(),
            }),
            "/db/LOCK is locked by another holder",
        );
        assert!(matches!(e, Error::Io { op: "lock", .. }));
        let e = convert(
            R::Fs(F::NotAFile {
                op: "open_read",
                path: "/db/CATALOG".into(),
                kind: FileKind::Fifo,
            }),
            "open_read refused /db/CATALOG: it is a FIFO, not a regular file",
        );
        assert!(matches!(
            e,
            Error::Io {
                op: "open_read",
                ..
            }
        ));
        let e = convert(
            R::Fs(F::Crashed {
                op: "append",
                path: "/db/wal/1.log".into(),
            }),
            "append on /db/wal/1.log through a handle opened before a simulated crash",
        );
        assert!(matches!(e, Error::Io { op: "append", .. }));
        // Directly, as the facade's own file system calls report them.
        let e = Error::from(F::io("create_dir_all", "/db", io::Error::other("EROFS")));
        assert_eq!(chain(&e), ["create_dir_all failed on /db", "EROFS"]);
    }

    #[test]
    fn cell_errors_are_invalid_requests() {
        use regionkv_cell::Error as C;
        for (lower, want) in [
            (
                C::RowTooLong {
                    len: 40000,
                    max: 32767,
                },
                "row length 40000 exceeds the maximum of 32767 bytes",
            ),
            (C::EmptyRow, "row length is 0"),
            (
                C::FamilyTooLong { len: 200, max: 127 },
                "family length 200 exceeds the maximum of 127 bytes",
            ),
            (
                C::IllegalFamilyName {
                    name: "a/b".into(),
                    reason: "contains '/'",
                },
                "illegal column family name 'a/b': contains '/'",
            ),
            (
                C::IllegalTableName {
                    name: "bad name!".into(),
                    reason: "illegal character",
                },
                "illegal table name 'bad name!': illegal character",
            ),
            (
                C::CellTooLarge { size: 11, max: 10 },
                "cell size 11 exceeds the maximum of 10 bytes",
            ),
            (C::NegativeTimestamp(-1), "timestamp cannot be negative: -1"),
            (
                C::InvalidTimeRange {
                    min: 5,
                    max: 1,
                    reason: "max is below min",
                },
                "invalid time range [5, 1): max is below min",
            ),
            (C::UnknownCellType(9), "unknown cell type code 9"),
            (
                C::MalformedTags {
                    len: 3,
                    reason: "short",
                },
                "malformed tags of 3 bytes: short",
            ),
            (
                C::MalformedKey {
                    len: 3,
                    reason: "short",
                },
                "malformed key of 3 bytes: short",
            ),
            (
                C::WrongLength {
                    expected: 8,
                    got: 3,
                },
                "expected 8 bytes, got 3",
            ),
            (
                C::TruncatedEscape {
                    input: "a\\x4".into(),
                    position: 1,
                },
                "truncated \\x escape at character 1 of \"a\\\\x4\"",
            ),
        ] {
            let direct = Error::from(lower.clone());
            assert_eq!(direct.to_string(), want);
            assert!(matches!(direct, Error::InvalidRequest(_)), "{direct:?}");
            let e = convert(R::Cell(lower), want);
            assert!(matches!(e, Error::InvalidRequest(_)), "{e:?}");
        }
    }

    #[test]
    fn storefile_errors_keep_their_text() {
        use regionkv_storefile::Error as S;
        let e = convert(
            R::StoreFile(S::Corrupt {
                path: "/db/f.sf".into(),
                offset: 64,
                reason: "bad block".into(),
            }),
            "corrupt storefile /db/f.sf: at offset 64: bad block",
        );
        assert!(matches!(
            e,
            Error::Corrupt {
                what: "storefile",
                offset: 64,
                ..
            }
        ));
        for (lower, want) in [
            (
                S::ChecksumMismatch {
                    path: "/db/f.sf".into(),
                    offset: 64,
                    what: "data block",
                    stored: 1,
                    computed: 2,
                },
                "corrupt storefile /db/f.sf: checksum mismatch in data block at offset 64: stored 0x00000001, computed 0x00000002",
            ),
            (
                S::NotAStoreFile {
                    path: "/db/f.sf".into(),
                    reason: "no trailer magic".into(),
                },
                "/db/f.sf is not a regionkv storefile: no trailer magic",
            ),
            (
                S::UnsupportedVersion {
                    path: "/db/f.sf".into(),
                    offset: 100,
                    version: 9,
                },
                "storefile /db/f.sf has unsupported format version 9 (trailer at offset 100; a newer writer, or a damaged trailer)",
            ),
        ] {
            let e = convert(R::StoreFile(lower), want);
            assert!(
                matches!(&e, Error::UnreadableFile { what: "storefile", path, .. } if path.as_path() == std::path::Path::new("/db/f.sf")),
                "{e:?}"
            );
        }
        let e = convert(
            R::StoreFile(S::InvalidOption(
                "BLOCKSIZE 1 must be between 1024 and 16777216".into(),
            )),
            "invalid storefile option: BLOCKSIZE 1 must be between 1024 and 16777216",
        );
        assert!(matches!(
            e,
            Error::Other {
                layer: "storefile",
                ..
            }
        ));
        let e = convert(
            R::StoreFile(S::Fs(regionkv_fs::Error::io(
                "sync_data",
                "/db/f.sf",
                io::Error::other("EIO"),
            ))),
            "sync_data failed on /db/f.sf",
        );
        assert!(matches!(
            e,
            Error::Io {
                op: "sync_data",
                ..
            }
        ));
        let e = convert(
            R::StoreFile(S::Cell(regionkv_cell::Error::EmptyRow)),
            "row length is 0",
        );
        assert!(matches!(e, Error::InvalidRequest(RequestProblem::EmptyRow)));
    }

    #[test]
    fn wal_errors_keep_their_text_and_source() {
        use regionkv_wal::Error as W;
        let e = convert(
            R::Wal(W::Corrupt {
                path: "/db/wal/3.log".into(),
                offset: 1234,
                reason: "record checksum mismatch".into(),
            }),
            "corrupt WAL /db/wal/3.log: at offset 1234: record checksum mismatch",
        );
        assert!(matches!(
            e,
            Error::Corrupt {
                what: "WAL",
                offset: 1234,
                ..
            }
        ));
        for (lower, want) in [
            (
                W::NotAWal {
                    path: "/db/wal/3.log".into(),
                    reason: "bad magic".into(),
                },
                "/db/wal/3.log is not a regionkv WAL: bad magic",
            ),
            (
                W::Truncated {
                    path: "/db/wal/3.log".into(),
                    offset: 10,
                    last: "region 0123 seq 4".into(),
                    evidence: "it was rolled at offset 99".into(),
                },
                "WAL /db/wal/3.log is truncated: its records end at offset 10 (region 0123 seq 4), but it was rolled at offset 99",
            ),
            (
                W::ForeignLog {
                    path: "/db/wal/3.log".into(),
                    belongs_to: "aa".into(),
                    found_in: "bb".into(),
                },
                "WAL /db/wal/3.log belongs to another database (db id aa), not to this one (bb)",
            ),
            (
                W::UnsupportedVersion {
                    path: "/db/wal/3.log".into(),
                    version: 9,
                    supported: 1,
                },
                "WAL /db/wal/3.log has unsupported format version 9 (this build reads version 1)",
            ),
        ] {
            let e = convert(R::Wal(lower), want);
            assert!(
                matches!(e, Error::UnreadableFile { what: "WAL", .. }),
                "{e:?}"
            );
        }
        let first = regionkv_fs::Error::io("sync_data", "/db/wal/3.log", io::Error::other("EIO"));
        let e = convert(
            R::Wal(W::Poisoned {
                cause: Arc::new(first),
            }),
            "the write-ahead log refuses writes after an earlier I/O failure; reopen it to recover",
        );
        assert!(matches!(e, Error::WalUnavailable { .. }));
        assert_eq!(
            chain(&e),
            [
                "the write-ahead log refuses writes after an earlier I/O failure; reopen it to recover",
                "sync_data failed on /db/wal/3.log",
                "EIO"
            ]
        );
        let e = convert(R::Wal(W::Closed), "the write-ahead log is closed");
        assert!(matches!(e, Error::WalUnavailable { .. }));
        let e = convert(
            R::Wal(W::EditTooLarge { size: 9, max: 8 }),
            "WAL edit of 9 bytes exceeds the maximum record size of 8 bytes",
        );
        assert!(matches!(e, Error::Other { layer: "WAL", .. }));
    }

    #[test]
    fn split_and_filter_errors_keep_their_text() {
        use regionkv_region::filter::FilterError as F;
        use regionkv_region::split::SplitError;
        let e = convert(
            R::Split(SplitError::UnknownPolicy("NoSuchPolicy".into())),
            "Unable to load configured region split policy 'NoSuchPolicy'",
        );
        assert!(matches!(e, Error::InvalidSplit { .. }));
        for (lower, want, position) in [
            (
                F::Syntax {
                    position: 3,
                    expected: "'('".into(),
                    found: "end of input".into(),
                },
                "filter syntax error at position 3: expected '(', found end of input",
                Some(3),
            ),
            (
                F::UnknownFilter {
                    name: "NoSuchFilter".into(),
                    position: 0,
                    hint: String::new(),
                },
                "unknown filter \"NoSuchFilter\" at position 0",
                Some(0),
            ),
            (
                F::UnsupportedFilter {
                    name: "FuzzyRowFilter".into(),
                    position: 2,
                },
                "filter FuzzyRowFilter at position 2 is not supported by regionkv",
                Some(2),
            ),
            (
                F::InvalidArgument {
                    filter: "PageFilter".into(),
                    position: 11,
                    message: "page size must be a number".into(),
                },
                "PageFilter at position 11: page size must be a number",
                Some(11),
            ),
            (
                F::InvalidFilter {
                    filter: "PageFilter".into(),
                    message: "page size must be >= 0".into(),
                },
                "PageFilter: page size must be >= 0",
                None,
            ),
            (
                F::InvalidRegex {
                    pattern: "(".into(),
                    message: "unclosed group".into(),
                },
                "invalid regular expression \"(\": unclosed group",
                None,
            ),
        ] {
            assert_eq!(lower.to_string(), want);
            let e = Error::from(lower);
            assert_eq!(e.to_string(), want);
            assert!(std::error::Error::source(&e).is_none());
            assert!(
                matches!(&e, Error::InvalidFilter { position: p, .. } if *p == position),
                "{e:?}"
            );
        }
    }

    /// The descriptor methods' own error lands on the facade variants their region errors
    /// did, with the same text.
    #[test]
    fn descriptor_errors_keep_their_class_and_text() {
        use crate::{ColumnFamilyDescriptor, DescriptorError, TableDescriptor};
        let convert = |e: DescriptorError, want: &str| {
            assert_eq!(e.to_string(), want);
            let facade = Error::from(e);
            assert_eq!(facade.to_string(), want);
            facade
        };
        let mut cf = ColumnFamilyDescriptor::new(b"cf").unwrap();
        // The facade's names match the descriptor's error itself.
        assert!(matches!(
            cf.set_attribute("COLOUR", "blue"),
            Err(DescriptorError::UnknownAttribute {
                scope: AttributeScope::Family,
                ..
            })
        ));
        let e = convert(
            cf.set_attribute("COLOUR", "blue").unwrap_err(),
            "unknown column family attribute COLOUR",
        );
        assert!(matches!(
            e,
            Error::UnknownAttribute {
                scope: AttributeScope::Family,
                ..
            }
        ));
        let e = convert(
            cf.set_attribute("VERSIONS", "many").unwrap_err(),
            "VERSIONS must be a non-negative number, not 'many'",
        );
        assert!(matches!(
            e,
            Error::InvalidAttributeValue {
                expected: AttributeRule::NonNegativeNumber,
                ..
            }
        ));
        let e = convert(
            TableDescriptor::new("t", vec![]).unwrap_err(),
            "table t should have at least one column family",
        );
        assert!(matches!(
            e,
            Error::InvalidSchema(SchemaProblem::NoFamily { .. })
        ));
        let e = convert(
            TableDescriptor::new("bad name!", vec![cf.clone()]).unwrap_err(),
            &TableDescriptor::new("bad name!", vec![cf.clone()])
                .unwrap_err()
                .to_string(),
        );
        assert!(matches!(
            e,
            Error::InvalidRequest(RequestProblem::IllegalTableName { .. })
        ));
        let mut table = TableDescriptor::new("t", vec![cf.clone()]).unwrap();
        table.split_policy = Some("NoSuchPolicy".into());
        let e = convert(
            table.validate().unwrap_err(),
            "Unable to load configured region split policy 'NoSuchPolicy'",
        );
        assert!(matches!(e, Error::InvalidSplit { .. }));
        cf.block_size = 10;
        let e = convert(
            cf.validate().unwrap_err(),
            "invalid storefile option: BLOCKSIZE 10 must be between 1024 and 16777216",
        );
        assert!(matches!(
            e,
            Error::Other {
                layer: "storefile",
                ..
            }
        ));
    }

    /// The refusals of a split or merge print what their `InvalidArgument(String)` did
    /// (the shell prints them, after HBase's exception class, which it picks by variant).
    #[test]
    fn split_and_merge_refusals_keep_their_text() {
        let split = |p: SplitProblem| Error::SplitRefused(p).to_string();
        assert_eq!(
            split(SplitProblem::UnknownRegion {
                region: "0123".into(),
                table: "t".into()
            }),
            "Unknown region 0123 of table t"
        );
        assert_eq!(
            split(SplitProblem::SplitDisabled { table: "t".into() }),
            "Table t isn't enabled for split (SPLIT_ENABLED => false)"
        );
        assert_eq!(
            split(SplitProblem::HasReferences {
                region: "0123".into()
            }),
            "0123 NOT splittable: it still has references to its parent's files; compact it first"
        );
        assert_eq!(
            split(SplitProblem::EmptySplitRow),
            "Split row cannot be null"
        );
        assert_eq!(
            split(SplitProblem::SplitRowIsStartKey {
                row: "m\\x00".into()
            }),
            "Split row is equal to startkey: m\\x00"
        );
        assert_eq!(
            split(SplitProblem::SplitRowOutsideRegion {
                row: "a".into(),
                region: "0123".into(),
                name: "t,m,5.0123.".into(),
                start: "m".into(),
                end: "".into(),
            }),
            "Split row is not inside region key range splitKey:a region: {ENCODED => 0123, NAME => 't,m,5.0123.', STARTKEY => 'm', ENDKEY => ''}"
        );
        assert_eq!(
            split(SplitProblem::NoSplitPoint {
                region: "0123".into()
            }),
            "Region not splittable because bestSplitPoint = null, maybe table is too small for auto split. For force split, try specifying split row"
        );
        let merge = |p: MergeProblem| Error::MergeRefused(p).to_string();
        assert_eq!(
            merge(MergeProblem::TooFewRegions),
            "Need at least two regions to merge"
        );
        assert_eq!(
            merge(MergeProblem::DuplicateRegion {
                region: "0123".into()
            }),
            "Duplicate regions specified; cannot merge a region to itself"
        );
        assert_eq!(
            merge(MergeProblem::UnknownRegion {
                region: "0123".into()
            }),
            "Unknown region 0123"
        );
        assert_eq!(
            merge(MergeProblem::DifferentTables),
            "Can't merge regions from different tables"
        );
        assert_eq!(
            merge(MergeProblem::MergeDisabled { table: "t".into() }),
            "Table t isn't enabled for merge (MERGE_ENABLED => false)"
        );
        let not_adjacent = |forcible| MergeProblem::NotAdjacent {
            first: "a1".into(),
            second: "b2".into(),
            forcible,
        };
        assert_eq!(
            merge(not_adjacent(false)),
            "Unable to merge non-adjacent or non-overlapping regions 'a1', 'b2' when force=false"
        );
        assert_eq!(
            merge(not_adjacent(true)),
            "regionkv cannot force-merge non-adjacent regions 'a1', 'b2' (the merged region would overlap the regions between them)"
        );
        assert_eq!(
            merge(MergeProblem::HasReferences {
                region: "0123".into()
            }),
            "Unable to merge 0123: it has references to a parent region's files; compact it first"
        );
        // Refusals, not failures: nothing under them.
        let e = Error::MergeRefused(MergeProblem::TooFewRegions);
        assert!(std::error::Error::source(&e).is_none());
        assert!(matches!(
            e,
            Error::MergeRefused(MergeProblem::TooFewRegions)
        ));
    }

    #[test]
    fn the_catalog_corruption_prints_as_before() {
        let e = Error::Corrupt {
            what: "catalog",
            path: "/db/CATALOG".into(),
            offset: 0,
            reason: "bad magic".into(),
        };
        assert_eq!(
            e.to_string(),
            "corrupt catalog /db/CATALOG: at offset 0: bad magic"
        );
    }
}
