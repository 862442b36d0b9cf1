//! Reads as HBase's client builds them: `Get` (one row) and `Scan` (a row range), and the
//! `RowResult` a read returns (HBase's `Result`). Builders hold owned bytes and never fail;
//! the table checks them when it runs them.
//!
//! ```
//! use regionkv::{Get, Put, Scan};
//! # let dir = tempfile::tempdir()?;
//! # let options = regionkv::DbOptions::default().background(false);
//! # let db = regionkv::Db::open(dir.path(), options)?;
//! # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
//! # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
//! # let table = db.table("t")?;
//! for row in ["a", "b", "c"] {
//!     table.put(&Put::new(row).add_column("cf", "q", row))?;
//! }
//! let r = table.get(&Get::new("b").add_column("cf", "q"))?;
//! assert_eq!(r.value(b"cf", b"q"), Some(&b"b"[..]));
//! let rows: Vec<Vec<u8>> = table
//!     .scan(&Scan::new().start_row("b"))?
//!     .map(|r| r.map(|r| r.row().to_vec()))
//!     .collect::<Result<_, _>>()?;
//! assert_eq!(rows, [b"b".to_vec(), b"c".to_vec()]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use regionkv_cell::{Cell, CellType, TimeRange};
use regionkv_region::filter::Filter;
use regionkv_region::{ReadQuery, RegionScan};
use std::collections::BTreeMap;

/// HBase's `Get`.
///
/// ```
/// use regionkv::{Get, Put};
/// # let dir = tempfile::tempdir()?;
/// # let options = regionkv::DbOptions::default().background(false);
/// # let db = regionkv::Db::open(dir.path(), options)?;
/// # let mut cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
/// # cf.max_versions = 3;
/// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
/// # let table = db.table("t")?;
/// table.put(&Put::with_timestamp("r", 1).add_column("cf", "q", "v1").add_column("cf", "x", "1"))?;
/// table.put(&Put::with_timestamp("r", 2).add_column("cf", "q", "v2"))?;
/// let r = table.get(&Get::new("r").add_column("cf", "q").max_versions(2))?;
/// let values: Vec<&[u8]> = r.cells().iter().map(|c| c.value()).collect();
/// assert_eq!(values, [&b"v2"[..], &b"v1"[..]]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct Get {
    pub(crate) row: Vec<u8>,
    pub(crate) query: ReadQuery,
    pub(crate) filter: Option<Box<dyn Filter>>,
    /// An exact timestamp, checked when the get runs.
    pub(crate) exact_ts: Option<i64>,
}

impl Clone for Get {
    fn clone(&self) -> Self {
        Self {
            row: self.row.clone(),
            query: self.query.clone(),
            filter: self.filter.as_ref().map(|f| f.box_clone()),
            exact_ts: self.exact_ts,
        }
    }
}

impl Get {
    /// A get of `row`: newest version of every column.
    ///
    /// ```
    /// use regionkv::{Get, Put};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let mut cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # cf.max_versions = 3;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// table.put(&Put::with_timestamp("r", 1).add_column("cf", "a", "old"))?;
    /// let newer = Put::with_timestamp("r", 2)
    ///     .add_column("cf", "a", "new")
    ///     .add_column("cf", "b", "x");
    /// table.put(&newer)?;
    /// let r = table.get(&Get::new("r"))?; // newest version of every column
    /// assert_eq!(r.len(), 2);
    /// assert_eq!(r.value(b"cf", b"a"), Some(&b"new"[..]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(row: impl AsRef<[u8]>) -> Self {
        Self {
            row: row.as_ref().to_vec(),
            query: ReadQuery::default(),
            filter: None,
            exact_ts: None,
        }
    }
    /// Reads all of `family` (may be called for several families).
    ///
    /// ```
    /// use regionkv::{Get, Put};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # let cg = regionkv::ColumnFamilyDescriptor::new(b"cg")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf, cg])?)?;
    /// # let table = db.table("t")?;
    /// table.put(&Put::new("r").add_column("cf", "a", "1").add_column("cg", "b", "2"))?;
    /// let r = table.get(&Get::new("r").add_family("cg"))?;
    /// assert_eq!(r.len(), 1);
    /// assert_eq!(r.value(b"cg", b"b"), Some(&b"2"[..]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn add_family(mut self, family: impl AsRef<[u8]>) -> Self {
        self.query
            .families
            .insert(family.as_ref().to_vec(), Vec::new());
        self
    }
    /// Reads one column.
    ///
    /// ```
    /// use regionkv::{Get, Put};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// table.put(&Put::new("r").add_column("cf", "a", "1").add_column("cf", "b", "2"))?;
    /// let r = table.get(&Get::new("r").add_column("cf", "b"))?;
    /// assert_eq!(r.len(), 1);
    /// assert_eq!(r.value(b"cf", b"b"), Some(&b"2"[..]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn add_column(mut self, family: impl AsRef<[u8]>, qualifier: impl AsRef<[u8]>) -> Self {
        self.query = self.query.column(family.as_ref(), qualifier.as_ref());
        self
    }
    /// Up to `n` versions per column (HBase's `readVersions`).
    ///
    /// ```
    /// use regionkv::{Get, Put};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let mut cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # cf.max_versions = 3;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// for ts in 1..=3 {
    ///     table.put(&Put::with_timestamp("r", ts).add_column("cf", "q", format!("v{ts}")))?;
    /// }
    /// assert_eq!(table.get(&Get::new("r").max_versions(2))?.len(), 2);
    /// assert_eq!(table.get(&Get::new("r"))?.len(), 1); // the default: one
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn max_versions(mut self, n: u32) -> Self {
        self.query.max_versions = n;
        self
    }
    /// Whether the data blocks this get reads from files go into the block cache
    /// (HBase's `Get#setCacheBlocks`, default true). Blocks already cached are used
    /// either way; the result does not change.
    ///
    /// ```
    /// use regionkv::{Get, Put};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// table.put(&Put::new("r").add_column("cf", "q", "v"))?;
    /// db.admin().flush("t")?;
    /// let once = table.get(&Get::new("r").cache_blocks(false))?;
    /// assert_eq!(once.value(b"cf", b"q"), Some(&b"v"[..]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn cache_blocks(mut self, on: bool) -> Self {
        self.query.cache_blocks = on;
        self
    }
    /// Every version the family keeps (HBase's `readAllVersions`).
    ///
    /// ```
    /// use regionkv::{Get, Put};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let mut cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # cf.max_versions = 3;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// for ts in 1..=4 {
    ///     table.put(&Put::with_timestamp("r", ts).add_column("cf", "q", format!("v{ts}")))?;
    /// }
    /// // The family keeps 3 versions (VERSIONS => 3), so that is all there is.
    /// assert_eq!(table.get(&Get::new("r").all_versions())?.len(), 3);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn all_versions(self) -> Self {
        self.max_versions(u32::MAX)
    }
    /// Only versions with a timestamp in `[min, max)`.
    ///
    /// ```
    /// use regionkv::{Get, Put, TimeRange};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let mut cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # cf.max_versions = 3;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// for ts in [10, 20, 30] {
    ///     table.put(&Put::with_timestamp("r", ts).add_column("cf", "q", format!("at{ts}")))?;
    /// }
    /// let r = table.get(&Get::new("r").time_range(TimeRange::between(10, 30)?))?;
    /// assert_eq!(r.value(b"cf", b"q"), Some(&b"at20"[..])); // newest in [10, 30)
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn time_range(mut self, tr: TimeRange) -> Self {
        self.query.time_range = tr;
        self
    }
    /// Only versions at exactly `ts` (HBase's `setTimestamp`; a negative `ts` is an
    /// error when the get runs).
    ///
    /// ```
    /// use regionkv::{Error, Get, Put};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let mut cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # cf.max_versions = 3;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// for ts in [10, 20, 30] {
    ///     table.put(&Put::with_timestamp("r", ts).add_column("cf", "q", format!("at{ts}")))?;
    /// }
    /// let r = table.get(&Get::new("r").timestamp(10))?;
    /// assert_eq!(r.value(b"cf", b"q"), Some(&b"at10"[..]));
    /// assert!(table.get(&Get::new("r").timestamp(15))?.is_empty());
    /// assert!(matches!(table.get(&Get::new("r").timestamp(-1)), Err(Error::InvalidRequest(_))));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn timestamp(mut self, ts: i64) -> Self {
        self.exact_ts = Some(ts);
        self
    }
    /// Applies a server-side filter.
    ///
    /// ```
    /// use regionkv::filter::ColumnPrefixFilter;
    /// use regionkv::{Get, Put};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// let put = Put::new("r").add_column("cf", "user.name", "x").add_column("cf", "sys.id", "1");
    /// table.put(&put)?;
    /// let r = table.get(&Get::new("r").filter(Box::new(ColumnPrefixFilter::new("user."))))?;
    /// assert_eq!(r.len(), 1);
    /// assert!(r.contains_column(b"cf", b"user.name"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn filter(mut self, f: Box<dyn Filter>) -> Self {
        self.filter = Some(f);
        self
    }
    /// The row.
    ///
    /// ```
    /// use regionkv::Get;
    ///
    /// assert_eq!(Get::new("row1").add_family("cf").row(), b"row1");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn row(&self) -> &[u8] {
        &self.row
    }
}

/// HBase's `Scan`.
///
/// ```
/// use regionkv::{Put, Scan};
/// # let dir = tempfile::tempdir()?;
/// # let options = regionkv::DbOptions::default().background(false);
/// # let db = regionkv::Db::open(dir.path(), options)?;
/// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
/// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
/// # let table = db.table("t")?;
/// for row in ["user1", "user2", "user3", "zzz"] {
///     table.put(&Put::new(row).add_column("cf", "q", row))?;
/// }
/// let scan = Scan::new().reversed(true).row_prefix("user").limit(2);
/// let rows: Vec<Vec<u8>> = table
///     .scan(&scan)?
///     .map(|r| r.map(|r| r.row().to_vec()))
///     .collect::<Result<_, _>>()?;
/// assert_eq!(rows, [b"user3".to_vec(), b"user2".to_vec()]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct Scan {
    pub(crate) inner: RegionScan,
    pub(crate) filter: Option<Box<dyn Filter>>,
    pub(crate) caching: usize,
    /// An exact timestamp, checked when the scan starts.
    pub(crate) exact_ts: Option<i64>,
}

impl Clone for Scan {
    fn clone(&self) -> Self {
        Self {
            inner: self.inner.clone(),
            filter: self.filter.as_ref().map(|f| f.box_clone()),
            caching: self.caching,
            exact_ts: self.exact_ts,
        }
    }
}

impl Scan {
    /// A scan of one region's spec and filter (what an observer's `pre_scanner_open`
    /// sees and may change).
    pub(crate) fn of_spec(inner: RegionScan, filter: Option<Box<dyn Filter>>) -> Self {
        Self {
            inner,
            filter,
            caching: 0,
            exact_ts: None,
        }
    }

    /// Back to the spec and filter a region scanner takes.
    pub(crate) fn into_spec(self) -> (RegionScan, Option<Box<dyn Filter>>) {
        (self.inner, self.filter)
    }
}

impl Default for Scan {
    fn default() -> Self {
        Self::new()
    }
}

impl Scan {
    /// Every row of the table.
    ///
    /// ```
    /// use regionkv::{Put, Scan};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// for row in ["a", "b", "c"] {
    ///     table.put(&Put::new(row).add_column("cf", "q", "v"))?;
    /// }
    /// assert_eq!(table.scan(&Scan::new())?.count(), 3);
    /// assert_eq!(table.scan(&Scan::default())?.count(), 3);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new() -> Self {
        Self {
            inner: RegionScan::all(),
            filter: None,
            caching: 100,
            exact_ts: None,
        }
    }
    /// Start at `row` (inclusive).
    ///
    /// ```
    /// use regionkv::{Put, Scan};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// for row in ["a", "b", "c", "d"] {
    ///     table.put(&Put::new(row).add_column("cf", "q", row))?;
    /// }
    /// let scan = Scan::new().start_row("b");
    /// let rows: Vec<Vec<u8>> = table
    ///     .scan(&scan)?
    ///     .map(|r| r.map(|r| r.row().to_vec()))
    ///     .collect::<Result<_, _>>()?;
    /// assert_eq!(rows, [b"b".to_vec(), b"c".to_vec(), b"d".to_vec()]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn start_row(self, row: impl AsRef<[u8]>) -> Self {
        self.with_start_row(row, true)
    }
    /// Start at `row`, included or not.
    ///
    /// ```
    /// use regionkv::{Put, Scan};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// for row in ["a", "b", "c", "d"] {
    ///     table.put(&Put::new(row).add_column("cf", "q", row))?;
    /// }
    /// let scan = Scan::new().with_start_row("b", false); // after "b"
    /// let rows: Vec<Vec<u8>> = table
    ///     .scan(&scan)?
    ///     .map(|r| r.map(|r| r.row().to_vec()))
    ///     .collect::<Result<_, _>>()?;
    /// assert_eq!(rows, [b"c".to_vec(), b"d".to_vec()]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_start_row(mut self, row: impl AsRef<[u8]>, inclusive: bool) -> Self {
        self.inner.start_row = row.as_ref().to_vec();
        self.inner.include_start = inclusive;
        self
    }
    /// Stop before `row` (exclusive).
    ///
    /// ```
    /// use regionkv::{Put, Scan};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// for row in ["a", "b", "c", "d"] {
    ///     table.put(&Put::new(row).add_column("cf", "q", row))?;
    /// }
    /// let scan = Scan::new().stop_row("c");
    /// let rows: Vec<Vec<u8>> = table
    ///     .scan(&scan)?
    ///     .map(|r| r.map(|r| r.row().to_vec()))
    ///     .collect::<Result<_, _>>()?;
    /// assert_eq!(rows, [b"a".to_vec(), b"b".to_vec()]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn stop_row(self, row: impl AsRef<[u8]>) -> Self {
        self.with_stop_row(row, false)
    }
    /// Stop at `row`, included or not.
    ///
    /// ```
    /// use regionkv::{Put, Scan};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// for row in ["a", "b", "c", "d"] {
    ///     table.put(&Put::new(row).add_column("cf", "q", row))?;
    /// }
    /// let scan = Scan::new().start_row("b").with_stop_row("c", true);
    /// let rows: Vec<Vec<u8>> = table
    ///     .scan(&scan)?
    ///     .map(|r| r.map(|r| r.row().to_vec()))
    ///     .collect::<Result<_, _>>()?;
    /// assert_eq!(rows, [b"b".to_vec(), b"c".to_vec()]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_stop_row(mut self, row: impl AsRef<[u8]>, inclusive: bool) -> Self {
        self.inner.stop_row = row.as_ref().to_vec();
        self.inner.include_stop = inclusive;
        self
    }
    /// Rows starting with `prefix` (HBase's `setRowPrefixFilter`; call after
    /// [`Scan::reversed`] for a reversed prefix scan).
    ///
    /// ```
    /// use regionkv::{Put, Scan};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// for row in ["ab", "b1", "b2", "c"] {
    ///     table.put(&Put::new(row).add_column("cf", "q", "v"))?;
    /// }
    /// let scan = Scan::new().row_prefix("b");
    /// let rows: Vec<Vec<u8>> = table
    ///     .scan(&scan)?
    ///     .map(|r| r.map(|r| r.row().to_vec()))
    ///     .collect::<Result<_, _>>()?;
    /// assert_eq!(rows, [b"b1".to_vec(), b"b2".to_vec()]);
    /// let scan = Scan::new().reversed(true).row_prefix("b"); // reversed first
    /// let rows: Vec<Vec<u8>> = table
    ///     .scan(&scan)?
    ///     .map(|r| r.map(|r| r.row().to_vec()))
    ///     .collect::<Result<_, _>>()?;
    /// assert_eq!(rows, [b"b2".to_vec(), b"b1".to_vec()]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn row_prefix(mut self, prefix: impl AsRef<[u8]>) -> Self {
        self.inner = self.inner.row_prefix(prefix.as_ref());
        self
    }
    /// Rows in descending order; the start row is then the highest.
    ///
    /// ```
    /// use regionkv::{Put, Scan};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// for row in ["a", "b", "c", "d"] {
    ///     table.put(&Put::new(row).add_column("cf", "q", row))?;
    /// }
    /// let scan = Scan::new().reversed(true).start_row("c"); // from "c" down
    /// let rows: Vec<Vec<u8>> = table
    ///     .scan(&scan)?
    ///     .map(|r| r.map(|r| r.row().to_vec()))
    ///     .collect::<Result<_, _>>()?;
    /// assert_eq!(rows, [b"c".to_vec(), b"b".to_vec(), b"a".to_vec()]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn reversed(mut self, on: bool) -> Self {
        self.inner.reversed = on;
        self
    }
    /// At most `n` rows in all.
    ///
    /// ```
    /// use regionkv::{ColumnFamilyDescriptor, Put, Scan, TableDescriptor};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// let desc = TableDescriptor::new("t", vec![ColumnFamilyDescriptor::new(b"cf")?])?;
    /// db.admin().create_table_with_splits(&desc, vec![b"b".to_vec()])?;
    /// let table = db.table("t")?;
    /// for row in ["a", "b", "c", "d"] {
    ///     table.put(&Put::new(row).add_column("cf", "q", row))?;
    /// }
    /// let scan = Scan::new().limit(3); // in all, across regions
    /// let rows: Vec<Vec<u8>> = table
    ///     .scan(&scan)?
    ///     .map(|r| r.map(|r| r.row().to_vec()))
    ///     .collect::<Result<_, _>>()?;
    /// assert_eq!(rows, [b"a".to_vec(), b"b".to_vec(), b"c".to_vec()]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn limit(mut self, n: u64) -> Self {
        self.inner.limit = Some(n);
        self
    }
    /// Rows fetched per round trip in HBase; here the number of rows a region scanner
    /// reads ahead (kept for API parity; it changes no result).
    ///
    /// ```
    /// use regionkv::{Put, Scan};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// for i in 0..5 {
    ///     table.put(&Put::new(format!("r{i}")).add_column("cf", "q", "v"))?;
    /// }
    /// assert_eq!(table.scan(&Scan::new().caching(2))?.count(), 5); // same rows either way
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn caching(mut self, n: usize) -> Self {
        self.caching = n.max(1);
        self
    }
    /// At most `n` cells per result: wide rows come back in pieces.
    ///
    /// ```
    /// use regionkv::{Put, Scan};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// let mut wide = Put::new("wide");
    /// for q in ["a", "b", "c", "d", "e"] {
    ///     wide = wide.add_column("cf", q, "v");
    /// }
    /// table.put(&wide)?;
    /// let sizes: Vec<usize> = table
    ///     .scan(&Scan::new().batch(2))?
    ///     .map(|r| r.map(|r| r.len()))
    ///     .collect::<Result<_, _>>()?;
    /// assert_eq!(sizes, [2, 2, 1]); // one row in three pieces
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn batch(mut self, n: usize) -> Self {
        self.inner.batch = Some(n);
        self
    }
    /// Reads all of `family`.
    ///
    /// ```
    /// use regionkv::{Put, Scan};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # let cg = regionkv::ColumnFamilyDescriptor::new(b"cg")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf, cg])?)?;
    /// # let table = db.table("t")?;
    /// table.put(&Put::new("a").add_column("cf", "q", "1"))?;
    /// table.put(&Put::new("b").add_column("cg", "q", "2"))?;
    /// let rows: Vec<Vec<u8>> = table
    ///     .scan(&Scan::new().add_family("cg"))?
    ///     .map(|r| r.map(|r| r.row().to_vec()))
    ///     .collect::<Result<_, _>>()?;
    /// assert_eq!(rows, [b"b".to_vec()]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn add_family(mut self, family: impl AsRef<[u8]>) -> Self {
        self.inner
            .query
            .families
            .insert(family.as_ref().to_vec(), Vec::new());
        self
    }
    /// Reads one column.
    ///
    /// ```
    /// use regionkv::{Put, Scan};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// table.put(&Put::new("a").add_column("cf", "name", "x").add_column("cf", "age", "3"))?;
    /// let cells: usize = table
    ///     .scan(&Scan::new().add_column("cf", "name"))?
    ///     .map(|r| r.map(|r| r.len()))
    ///     .sum::<Result<_, _>>()?;
    /// assert_eq!(cells, 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn add_column(mut self, family: impl AsRef<[u8]>, qualifier: impl AsRef<[u8]>) -> Self {
        self.inner.query = self
            .inner
            .query
            .clone()
            .column(family.as_ref(), qualifier.as_ref());
        self
    }
    /// Only versions in `[min, max)`.
    ///
    /// ```
    /// use regionkv::{Put, Scan, TimeRange};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// table.put(&Put::with_timestamp("old", 10).add_column("cf", "q", "v"))?;
    /// table.put(&Put::with_timestamp("new", 20).add_column("cf", "q", "v"))?;
    /// let scan = Scan::new().time_range(TimeRange::from(15)?);
    /// let rows: Vec<Vec<u8>> = table
    ///     .scan(&scan)?
    ///     .map(|r| r.map(|r| r.row().to_vec()))
    ///     .collect::<Result<_, _>>()?;
    /// assert_eq!(rows, [b"new".to_vec()]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn time_range(mut self, tr: TimeRange) -> Self {
        self.inner.query.time_range = tr;
        self
    }
    /// Only versions at exactly `ts` (a negative `ts` is an error when the scan
    /// starts).
    ///
    /// ```
    /// use regionkv::{Error, Put, Scan};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// table.put(&Put::with_timestamp("a", 10).add_column("cf", "q", "v"))?;
    /// table.put(&Put::with_timestamp("b", 20).add_column("cf", "q", "v"))?;
    /// assert_eq!(table.scan(&Scan::new().timestamp(20))?.count(), 1);
    /// assert!(matches!(table.scan(&Scan::new().timestamp(-1)), Err(Error::InvalidRequest(_))));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn timestamp(mut self, ts: i64) -> Self {
        self.exact_ts = Some(ts);
        self
    }
    /// Up to `n` versions per column.
    ///
    /// ```
    /// use regionkv::{Put, Scan};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let mut cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # cf.max_versions = 3;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// for ts in 1..=3 {
    ///     table.put(&Put::with_timestamp("r", ts).add_column("cf", "q", "v"))?;
    /// }
    /// let row = table.scan(&Scan::new().max_versions(2))?.next().transpose()?;
    /// assert_eq!(row.map(|r| r.len()), Some(2));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn max_versions(mut self, n: u32) -> Self {
        self.inner.query.max_versions = n;
        self
    }
    /// Every version the family keeps.
    ///
    /// ```
    /// use regionkv::{Put, Scan};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let mut cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # cf.max_versions = 3;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// for ts in 1..=3 {
    ///     table.put(&Put::with_timestamp("r", ts).add_column("cf", "q", "v"))?;
    /// }
    /// let row = table.scan(&Scan::new().all_versions())?.next().transpose()?;
    /// assert_eq!(row.map(|r| r.len()), Some(3));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn all_versions(self) -> Self {
        self.max_versions(u32::MAX)
    }
    /// Raw: delete markers and deleted cells too.
    ///
    /// ```
    /// use regionkv::{CellType, Delete, Put, Scan};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// table.put(&Put::new("r").add_column("cf", "q", "v"))?;
    /// table.delete(&Delete::new("r").add_columns("cf", "q"))?;
    /// assert_eq!(table.scan(&Scan::new())?.count(), 0);
    /// let raw = table.scan(&Scan::new().raw(true))?.next().transpose()?;
    /// let cells = raw.iter().flat_map(|r| r.cells());
    /// let types: Vec<CellType> = cells.map(|c| c.cell_type()).collect();
    /// assert_eq!(types, [CellType::DeleteColumn, CellType::Put]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn raw(mut self, on: bool) -> Self {
        self.inner.query.raw = on;
        self
    }
    /// Whether the data blocks this scan reads from files go into the block cache
    /// (HBase's `Scan#setCacheBlocks`, default true). A scan that reads a table once, as
    /// an export or a copy does, sets it false so that it does not evict the blocks other
    /// reads keep hitting (HBase's `Export` and `CopyTable` do); blocks already cached are
    /// used either way, and the rows do not change.
    ///
    /// ```
    /// use regionkv::{Put, Scan};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// for r in ["a", "b"] {
    ///     table.put(&Put::new(r).add_column("cf", "q", "v"))?;
    /// }
    /// db.admin().flush("t")?;
    /// assert_eq!(table.scan(&Scan::new().cache_blocks(false))?.count(), 2);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn cache_blocks(mut self, on: bool) -> Self {
        self.inner.query.cache_blocks = on;
        self
    }
    /// Applies a server-side filter.
    ///
    /// ```
    /// use regionkv::filter::parse_filter;
    /// use regionkv::{Put, Scan};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// for (row, v) in [("a", "red"), ("b", "blue"), ("c", "red")] {
    ///     table.put(&Put::new(row).add_column("cf", "color", v))?;
    /// }
    /// let scan = Scan::new().filter(parse_filter("ValueFilter(=, 'binary:red')")?);
    /// let rows: Vec<Vec<u8>> = table
    ///     .scan(&scan)?
    ///     .map(|r| r.map(|r| r.row().to_vec()))
    ///     .collect::<Result<_, _>>()?;
    /// assert_eq!(rows, [b"a".to_vec(), b"c".to_vec()]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn filter(mut self, f: Box<dyn Filter>) -> Self {
        self.filter = Some(f);
        self
    }
}

/// What a read returns for one row (HBase's `Result`): its cells in HBase's order.
///
/// ```
/// use regionkv::{Get, Put, RowResult};
/// # let dir = tempfile::tempdir()?;
/// # let options = regionkv::DbOptions::default().background(false);
/// # let db = regionkv::Db::open(dir.path(), options)?;
/// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
/// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
/// # let table = db.table("t")?;
/// let put = Put::new("r")
///     .add_column("cf", "name", "Ada")
///     .add_column("cf", "n", 7i64.to_be_bytes());
/// table.put(&put)?;
/// let r: RowResult = table.get(&Get::new("r"))?;
/// assert_eq!(r.row(), b"r");
/// assert_eq!(r.value(b"cf", b"name"), Some(&b"Ada"[..]));
/// assert_eq!(r.counter(b"cf", b"n"), Some(7));
/// // Cells in HBase's order: by family, then qualifier.
/// let qualifiers: Vec<&[u8]> = r.cells().iter().map(|c| c.qualifier()).collect();
/// assert_eq!(qualifiers, [&b"n"[..], &b"name"[..]]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RowResult {
    /// All of one row, in order; the row is the first cell's (no copy of its own).
    cells: Vec<Cell>,
}

impl RowResult {
    /// A result of `cells` (all of one row, in order).
    ///
    /// ```
    /// use regionkv::{Cell, RowResult};
    ///
    /// let cells = vec![Cell::put(b"r", b"cf", b"q", 5, b"v")?];
    /// let r = RowResult::new(cells);
    /// assert_eq!(r.row(), b"r");
    /// assert_eq!(r.value(b"cf", b"q"), Some(&b"v"[..]));
    /// assert!(RowResult::new(Vec::new()).row().is_empty());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// Tags (a cell TTL) are dropped: as HBase's client codec, results carry cells without
    /// the server-side tags.
    pub fn new(mut cells: Vec<Cell>) -> Self {
        for c in &mut cells {
            c.clear_tags();
        }
        Self { cells }
    }
    /// The row (empty for an empty result).
    ///
    /// ```
    /// use regionkv::{Get, Put};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// table.put(&Put::new("r1").add_column("cf", "q", "v"))?;
    /// assert_eq!(table.get(&Get::new("r1"))?.row(), b"r1");
    /// assert_eq!(table.get(&Get::new("none"))?.row(), b""); // empty result
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn row(&self) -> &[u8] {
        self.cells.first().map_or(&[], |c| c.row())
    }
    /// The cells, in order.
    ///
    /// ```
    /// use regionkv::{Get, Put};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// let put = Put::with_timestamp("r", 9).add_column("cf", "b", "2").add_column("cf", "a", "1");
    /// table.put(&put)?;
    /// let r = table.get(&Get::new("r"))?;
    /// let cells: Vec<(&[u8], i64, &[u8])> =
    ///     r.cells().iter().map(|c| (c.qualifier(), c.timestamp(), c.value())).collect();
    /// assert_eq!(cells, [(&b"a"[..], 9, &b"1"[..]), (&b"b"[..], 9, &b"2"[..])]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn cells(&self) -> &[Cell] {
        &self.cells
    }
    /// Takes the cells.
    ///
    /// ```
    /// use regionkv::{Get, Put};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// table.put(&Put::new("r").add_column("cf", "q", "v"))?;
    /// let cells = table.get(&Get::new("r"))?.into_cells();
    /// assert_eq!(cells.len(), 1);
    /// assert_eq!(cells[0].value(), b"v");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn into_cells(self) -> Vec<Cell> {
        self.cells
    }
    /// True when there are no cells.
    ///
    /// ```
    /// use regionkv::{Get, Put};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// assert!(table.get(&Get::new("r"))?.is_empty());
    /// table.put(&Put::new("r").add_column("cf", "q", "v"))?;
    /// assert!(!table.get(&Get::new("r"))?.is_empty());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }
    /// Number of cells.
    ///
    /// ```
    /// use regionkv::{Get, Put};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// table.put(&Put::new("r").add_column("cf", "a", "1").add_column("cf", "b", "2"))?;
    /// assert_eq!(table.get(&Get::new("r"))?.len(), 2);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn len(&self) -> usize {
        self.cells.len()
    }
    /// The newest value of `family:qualifier` (HBase's `getValue`).
    ///
    /// ```
    /// use regionkv::{Get, Put};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let mut cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # cf.max_versions = 3;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// table.put(&Put::with_timestamp("r", 1).add_column("cf", "q", "old"))?;
    /// table.put(&Put::with_timestamp("r", 2).add_column("cf", "q", "new"))?;
    /// let r = table.get(&Get::new("r").all_versions())?;
    /// assert_eq!(r.value(b"cf", b"q"), Some(&b"new"[..])); // the newest
    /// assert_eq!(r.value(b"cf", b"missing"), None);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn value(&self, family: &[u8], qualifier: &[u8]) -> Option<&[u8]> {
        self.latest_cell(family, qualifier).map(Cell::value)
    }
    /// The newest cell of `family:qualifier` (HBase's `getColumnLatestCell`).
    ///
    /// ```
    /// use regionkv::{Get, Put};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let mut cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # cf.max_versions = 3;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// table.put(&Put::with_timestamp("r", 1).add_column("cf", "q", "old"))?;
    /// table.put(&Put::with_timestamp("r", 2).add_column("cf", "q", "new"))?;
    /// let r = table.get(&Get::new("r").all_versions())?;
    /// let cell = r.latest_cell(b"cf", b"q");
    /// assert_eq!(cell.map(|c| (c.timestamp(), c.value())), Some((2, &b"new"[..])));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn latest_cell(&self, family: &[u8], qualifier: &[u8]) -> Option<&Cell> {
        self.cells.iter().find(|c| {
            c.family() == family && c.qualifier() == qualifier && c.cell_type() == CellType::Put
        })
    }
    /// Every version of `family:qualifier`, newest first (HBase's `getColumnCells`).
    ///
    /// ```
    /// use regionkv::{Get, Put};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let mut cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # cf.max_versions = 3;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// for ts in 1..=3 {
    ///     table.put(&Put::with_timestamp("r", ts).add_column("cf", "q", format!("v{ts}")))?;
    /// }
    /// let r = table.get(&Get::new("r").all_versions())?;
    /// let values: Vec<&[u8]> = r.column_cells(b"cf", b"q").iter().map(|c| c.value()).collect();
    /// assert_eq!(values, [&b"v3"[..], &b"v2"[..], &b"v1"[..]]);
    /// assert!(r.column_cells(b"cf", b"other").is_empty());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn column_cells(&self, family: &[u8], qualifier: &[u8]) -> Vec<&Cell> {
        self.cells
            .iter()
            .filter(|c| c.family() == family && c.qualifier() == qualifier)
            .collect()
    }
    /// Whether `family:qualifier` has a value.
    ///
    /// ```
    /// use regionkv::{Get, Put};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// table.put(&Put::new("r").add_column("cf", "q", ""))?; // an empty value is a value
    /// let r = table.get(&Get::new("r"))?;
    /// assert!(r.contains_column(b"cf", b"q"));
    /// assert!(!r.contains_column(b"cf", b"x"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn contains_column(&self, family: &[u8], qualifier: &[u8]) -> bool {
        self.latest_cell(family, qualifier).is_some()
    }
    /// family → qualifier → newest value (HBase's `getNoVersionMap`).
    ///
    /// ```
    /// use regionkv::{Get, Put};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # let cg = regionkv::ColumnFamilyDescriptor::new(b"cg")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf, cg])?)?;
    /// # let table = db.table("t")?;
    /// table.put(&Put::with_timestamp("r", 1).add_column("cf", "a", "old"))?;
    /// let newer = Put::with_timestamp("r", 2)
    ///     .add_column("cf", "a", "new")
    ///     .add_column("cg", "b", "x");
    /// table.put(&newer)?;
    /// let map = table.get(&Get::new("r"))?.no_version_map();
    /// assert_eq!(map.len(), 2);
    /// assert_eq!(map[&b"cf".to_vec()][&b"a".to_vec()], b"new");
    /// assert_eq!(map[&b"cg".to_vec()][&b"b".to_vec()], b"x");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn no_version_map(&self) -> BTreeMap<Vec<u8>, BTreeMap<Vec<u8>, Vec<u8>>> {
        let mut m: BTreeMap<Vec<u8>, BTreeMap<Vec<u8>, Vec<u8>>> = BTreeMap::new();
        for c in self.cells.iter().rev() {
            if c.cell_type() == CellType::Put {
                m.entry(c.family().to_vec())
                    .or_default()
                    .insert(c.qualifier().to_vec(), c.value().to_vec());
            }
        }
        m
    }
    /// The newest value of a counter column as HBase stores it (8 bytes big-endian).
    ///
    /// ```
    /// use regionkv::{Get, Put};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// table.increment_column_value(b"r", b"cf", b"n", 42)?;
    /// table.put(&Put::new("r").add_column("cf", "text", "42"))?;
    /// let r = table.get(&Get::new("r"))?;
    /// assert_eq!(r.counter(b"cf", b"n"), Some(42));
    /// assert_eq!(r.counter(b"cf", b"text"), None); // not 8 bytes
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn counter(&self, family: &[u8], qualifier: &[u8]) -> Option<i64> {
        let v = self.value(family, qualifier)?;
        <[u8; 8]>::try_from(v).ok().map(i64::from_be_bytes)
    }
}
