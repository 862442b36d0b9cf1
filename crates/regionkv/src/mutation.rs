//! Mutations as HBase's client builds them: `Put`, `Delete`, `Increment`, `Append`,
//! `RowMutations` and `CheckAndMutate`. They are plain builders holding borrowed-in,
//! owned bytes; nothing is checked until the table applies them, so a builder never fails.
//!
//! ```
//! use regionkv::{Append, CheckAndMutate, Delete, Get, Increment, Put};
//! # let dir = tempfile::tempdir()?;
//! # let options = regionkv::DbOptions::default().background(false);
//! # let db = regionkv::Db::open(dir.path(), options)?;
//! # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
//! # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
//! # let table = db.table("t")?;
//! table.put(&Put::new("r").add_column("cf", "name", "x").add_column("cf", "tmp", "y"))?;
//! table.delete(&Delete::new("r").add_columns("cf", "tmp"))?;
//! table.increment(&Increment::new("r").add_column("cf", "n", 2))?;
//! table.append(&Append::new("r").add_column("cf", "name", "z"))?;
//! let cam = CheckAndMutate::builder("r")
//!     .if_equals("cf", "name", "xz")
//!     .then_put(Put::new("r").add_column("cf", "ok", "1"));
//! assert!(table.check_and_mutate(&cam)?.success);
//! let r = table.get(&Get::new("r"))?;
//! assert_eq!((r.len(), r.counter(b"cf", b"n")), (3, Some(2)));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use regionkv_cell::key::LATEST_TIMESTAMP;
use regionkv_cell::{CellType, TimeRange};
use regionkv_region::Durability;
use regionkv_region::filter::Filter;

/// One cell to write: (family, qualifier, timestamp, value).
pub type PutEntry = (Vec<u8>, Vec<u8>, i64, Vec<u8>);

/// HBase's `Put`: cells for one row.
///
/// ```
/// use regionkv::{Get, Put};
/// # let dir = tempfile::tempdir()?;
/// # let options = regionkv::DbOptions::default().background(false);
/// # let db = regionkv::Db::open(dir.path(), options)?;
/// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
/// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
/// # let table = db.table("t")?;
/// let put = Put::new("row1")
///     .add_column("cf", "name", "Ada")
///     .add_column("cf", "lang", "en");
/// table.put(&put)?;
/// let r = table.get(&Get::new("row1"))?;
/// assert_eq!(r.value(b"cf", b"name"), Some(&b"Ada"[..]));
/// assert_eq!(r.len(), 2);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Put {
    pub(crate) row: Vec<u8>,
    pub(crate) ts: i64,
    pub(crate) cells: Vec<PutEntry>,
    pub(crate) durability: Durability,
    pub(crate) ttl: Option<i64>,
}

impl Put {
    /// A put of `row`; cells without a timestamp get the server's time.
    ///
    /// ```
    /// use regionkv::{Clock, Get, Put};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// let before = db.clock().now_millis();
    /// table.put(&Put::new("r").add_column("cf", "q", "v"))?;
    /// let r = table.get(&Get::new("r"))?;
    /// let ts = r.latest_cell(b"cf", b"q").map(|c| c.timestamp());
    /// assert!(ts.is_some_and(|ts| ts >= before && ts <= db.clock().now_millis()));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(row: impl AsRef<[u8]>) -> Self {
        Self::with_timestamp(row, LATEST_TIMESTAMP)
    }

    /// A put whose cells default to timestamp `ts`.
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
    /// table.put(&Put::with_timestamp("r", 100).add_column("cf", "q", "old"))?;
    /// table.put(&Put::with_timestamp("r", 200).add_column("cf", "q", "new"))?;
    /// let r = table.get(&Get::new("r").all_versions())?;
    /// let cells = r.column_cells(b"cf", b"q");
    /// let versions: Vec<i64> = cells.iter().map(|c| c.timestamp()).collect();
    /// assert_eq!(versions, [200, 100]);
    /// assert_eq!(r.value(b"cf", b"q"), Some(&b"new"[..]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_timestamp(row: impl AsRef<[u8]>, ts: i64) -> Self {
        Self {
            row: row.as_ref().to_vec(),
            ts,
            cells: Vec::new(),
            durability: Durability::UseDefault,
            ttl: None,
        }
    }

    /// Adds `family:qualifier = value` at the put's timestamp.
    ///
    /// ```
    /// use regionkv::{Get, Put};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// table.put(&Put::new("r").add_column("cf", "a", "1").add_column("cf", b"\x00bin", [0xff]))?;
    /// let r = table.get(&Get::new("r"))?;
    /// assert_eq!(r.value(b"cf", b"a"), Some(&b"1"[..]));
    /// assert_eq!(r.value(b"cf", b"\x00bin"), Some(&[0xff][..]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn add_column(
        self,
        family: impl AsRef<[u8]>,
        qualifier: impl AsRef<[u8]>,
        value: impl AsRef<[u8]>,
    ) -> Self {
        let ts = self.ts;
        self.add_column_at(family, qualifier, ts, value)
    }

    /// Adds `family:qualifier = value` at timestamp `ts`.
    ///
    /// ```
    /// use regionkv::{Get, Put};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// let put = Put::with_timestamp("r", 5)
    ///     .add_column("cf", "a", "x")
    ///     .add_column_at("cf", "b", 7, "y");
    /// table.put(&put)?;
    /// let r = table.get(&Get::new("r"))?;
    /// assert_eq!(r.latest_cell(b"cf", b"a").map(|c| c.timestamp()), Some(5));
    /// assert_eq!(r.latest_cell(b"cf", b"b").map(|c| c.timestamp()), Some(7));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn add_column_at(
        mut self,
        family: impl AsRef<[u8]>,
        qualifier: impl AsRef<[u8]>,
        ts: i64,
        value: impl AsRef<[u8]>,
    ) -> Self {
        self.cells.push((
            family.as_ref().to_vec(),
            qualifier.as_ref().to_vec(),
            ts,
            value.as_ref().to_vec(),
        ));
        self
    }

    /// Sets the durability of this mutation (HBase's `setDurability`).
    ///
    /// ```
    /// use regionkv::{Durability, Get, Put};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// // Skipping the WAL is faster; a crash before the next flush loses the edit.
    /// table.put(&Put::new("r").add_column("cf", "q", "v").durability(Durability::SkipWal))?;
    /// assert!(table.exists(&Get::new("r"))?);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn durability(mut self, d: Durability) -> Self {
        self.durability = d;
        self
    }

    /// Sets a per-cell TTL in milliseconds on every cell of the put.
    ///
    /// The cells this mutation writes expire `ms` milliseconds after their timestamp
    /// (HBase's `Mutation#setTTL`): a cell is gone once `timestamp + ms < now`, in reads,
    /// flushes and compactions alike, before it can count as a version. A cell TTL never
    /// extends the family's TTL — whichever expires first wins. `i64::MAX` means no TTL,
    /// as in HBase. The TTL travels with the cell as a tag (WAL, memstore, storefiles).
    ///
    /// ```
    /// use regionkv::{Get, Put};
    /// # let dir = tempfile::tempdir()?;
    /// # let clock = regionkv::ManualClock::new(1_000_000);
    /// # let options = regionkv::DbOptions::default().background(false).clock(std::sync::Arc::new(clock.clone()));
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// table.put(&Put::new("r").add_column("cf", "q", "v").ttl(5_000))?;
    /// assert!(table.exists(&Get::new("r"))?);
    /// clock.advance(5_000); // timestamp + ttl == now: still there
    /// assert!(table.exists(&Get::new("r"))?);
    /// clock.advance(1);
    /// assert!(!table.exists(&Get::new("r"))?);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn ttl(mut self, ms: i64) -> Self {
        self.ttl = (ms != i64::MAX).then_some(ms);
        self
    }

    /// The put's columns: (family, qualifier, timestamp, value), in the order added; a
    /// timestamp of `i64::MAX` (HBase's LATEST_TIMESTAMP) takes the server's time.
    pub fn entries(&self) -> &[PutEntry] {
        &self.cells
    }

    /// Gives the entries left at `LATEST_TIMESTAMP` the time the server wrote them with,
    /// as HBase's region stamps a Put's cells in place before `postPut` sees them.
    pub(crate) fn stamp_latest(&mut self, now: i64) {
        for (_, _, ts, _) in &mut self.cells {
            if *ts == LATEST_TIMESTAMP {
                *ts = now;
            }
        }
    }

    /// The cells this put writes, as a bulk load takes them ([`crate::FamilyCells`]): each
    /// with its own timestamp (`now` for one left at `LATEST_TIMESTAMP`, as the server
    /// stamps it) and the put's TTL as HBase's TTL tag, in the order added.
    ///
    /// ```
    /// use regionkv::Put;
    ///
    /// let put = Put::new("r").add_column("cf", "a", "1").add_column_at("cf", "b", 7, "2").ttl(60_000);
    /// let cells = put.to_cells(1000)?;
    /// assert_eq!(cells.iter().map(|c| c.timestamp()).collect::<Vec<_>>(), [1000, 7]);
    /// assert_eq!(cells[0].ttl(), Some(60_000));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn to_cells(&self, now: i64) -> crate::Result<Vec<regionkv_cell::Cell>> {
        let tags = regionkv_cell::tag::with_ttl(&[], self.ttl);
        self.cells
            .iter()
            .map(|(family, qualifier, ts, value)| {
                let ts = if *ts == LATEST_TIMESTAMP { now } else { *ts };
                let cell = regionkv_cell::Cell::put(&self.row, family, qualifier, ts, value)
                    .map_err(|e| crate::Error::InvalidArgument(e.to_string()))?;
                if tags.is_empty() {
                    Ok(cell)
                } else {
                    cell.with_tags(tags.clone())
                        .map_err(|e| crate::Error::InvalidArgument(e.to_string()))
                }
            })
            .collect()
    }

    /// The row.
    ///
    /// ```
    /// use regionkv::Put;
    ///
    /// assert_eq!(Put::new("row1").row(), b"row1");
    /// assert_eq!(Put::with_timestamp(vec![0u8, 1], 5).row(), [0, 1]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn row(&self) -> &[u8] {
        &self.row
    }

    /// True when no cell was added.
    ///
    /// ```
    /// use regionkv::{Error, Put};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// let put = Put::new("r");
    /// assert!(put.is_empty());
    /// assert!(matches!(table.put(&put), Err(Error::InvalidArgument(_))));
    /// assert!(!put.add_column("cf", "q", "v").is_empty());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }
}

/// One marker of a `Delete`: family, qualifier (`None` for family-wide kinds), timestamp
/// and kind.
pub(crate) type DeleteEntry = (Vec<u8>, Option<Vec<u8>>, i64, CellType);

/// HBase's `Delete`. With no family or column added it deletes the whole row (every
/// family, versions up to its timestamp).
///
/// ```
/// use regionkv::{Delete, Get, Put};
/// # let dir = tempfile::tempdir()?;
/// # let options = regionkv::DbOptions::default().background(false);
/// # let db = regionkv::Db::open(dir.path(), options)?;
/// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
/// # let cg = regionkv::ColumnFamilyDescriptor::new(b"cg")?;
/// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf, cg])?)?;
/// # let table = db.table("t")?;
/// table.put(&Put::new("r").add_column("cf", "q", "1").add_column("cg", "q", "2"))?;
/// table.delete(&Delete::new("r").add_family("cg"))?;
/// assert_eq!(table.get(&Get::new("r"))?.len(), 1);
/// table.delete(&Delete::new("r"))?; // nothing added: every family
/// assert!(table.get(&Get::new("r"))?.is_empty());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Delete {
    pub(crate) row: Vec<u8>,
    pub(crate) ts: i64,
    pub(crate) entries: Vec<DeleteEntry>,
    pub(crate) durability: Durability,
}

impl Delete {
    /// Deletes `row` (everything up to now, unless narrowed).
    ///
    /// ```
    /// use regionkv::{Delete, Get, Put};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// table.put(&Put::new("r").add_column("cf", "a", "1").add_column("cf", "b", "2"))?;
    /// table.delete(&Delete::new("r"))?;
    /// assert!(!table.exists(&Get::new("r"))?);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(row: impl AsRef<[u8]>) -> Self {
        Self::with_timestamp(row, LATEST_TIMESTAMP)
    }

    /// Deletes versions of `row` up to `ts` (the default timestamp of what is added).
    ///
    /// ```
    /// use regionkv::{Delete, Get, Put};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let mut cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # cf.max_versions = 3;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// table.put(&Put::with_timestamp("r", 100).add_column("cf", "q", "old"))?;
    /// table.put(&Put::with_timestamp("r", 200).add_column("cf", "q", "new"))?;
    /// table.delete(&Delete::with_timestamp("r", 150))?; // versions up to 150
    /// let r = table.get(&Get::new("r").all_versions())?;
    /// assert_eq!(r.len(), 1);
    /// assert_eq!(r.value(b"cf", b"q"), Some(&b"new"[..]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_timestamp(row: impl AsRef<[u8]>, ts: i64) -> Self {
        Self {
            row: row.as_ref().to_vec(),
            ts,
            entries: Vec::new(),
            durability: Durability::UseDefault,
        }
    }

    /// Every column of `family`, versions up to the delete's timestamp (DeleteFamily).
    ///
    /// ```
    /// use regionkv::{Delete, Get, Put};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # let cg = regionkv::ColumnFamilyDescriptor::new(b"cg")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf, cg])?)?;
    /// # let table = db.table("t")?;
    /// table.put(&Put::new("r").add_column("cf", "a", "1").add_column("cg", "a", "2"))?;
    /// table.delete(&Delete::new("r").add_family("cf"))?;
    /// let r = table.get(&Get::new("r"))?;
    /// assert_eq!((r.value(b"cf", b"a"), r.value(b"cg", b"a")), (None, Some(&b"2"[..])));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn add_family(self, family: impl AsRef<[u8]>) -> Self {
        let ts = self.ts;
        self.add_family_at(family, ts)
    }

    /// Every column of `family`, versions up to `ts`.
    ///
    /// ```
    /// use regionkv::{Delete, Get, Put};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let mut cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # cf.max_versions = 3;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// table.put(&Put::with_timestamp("r", 100).add_column("cf", "a", "1"))?;
    /// table.put(&Put::with_timestamp("r", 200).add_column("cf", "b", "2"))?;
    /// table.delete(&Delete::new("r").add_family_at("cf", 150))?;
    /// let r = table.get(&Get::new("r"))?;
    /// assert_eq!((r.value(b"cf", b"a"), r.value(b"cf", b"b")), (None, Some(&b"2"[..])));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn add_family_at(mut self, family: impl AsRef<[u8]>, ts: i64) -> Self {
        self.entries
            .push((family.as_ref().to_vec(), None, ts, CellType::DeleteFamily));
        self
    }

    /// Every column of `family`, only the versions at exactly `ts`
    /// (DeleteFamilyVersion).
    ///
    /// ```
    /// use regionkv::{Delete, Get, Put};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let mut cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # cf.max_versions = 3;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// let old = Put::with_timestamp("r", 100)
    ///     .add_column("cf", "a", "1")
    ///     .add_column("cf", "b", "1");
    /// table.put(&old)?;
    /// table.put(&Put::with_timestamp("r", 200).add_column("cf", "a", "2"))?;
    /// // Every column's version at exactly 100; the version at 200 stays.
    /// table.delete(&Delete::new("r").add_family_version("cf", 100))?;
    /// let r = table.get(&Get::new("r").all_versions())?;
    /// assert_eq!(r.len(), 1);
    /// assert_eq!(r.value(b"cf", b"a"), Some(&b"2"[..]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn add_family_version(mut self, family: impl AsRef<[u8]>, ts: i64) -> Self {
        self.entries.push((
            family.as_ref().to_vec(),
            None,
            ts,
            CellType::DeleteFamilyVersion,
        ));
        self
    }

    /// All versions of one column up to the delete's timestamp (DeleteColumn).
    ///
    /// ```
    /// use regionkv::{Delete, Get, Put};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let mut cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # cf.max_versions = 3;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// let old = Put::with_timestamp("r", 100)
    ///     .add_column("cf", "q", "v1")
    ///     .add_column("cf", "k", "x");
    /// table.put(&old)?;
    /// table.put(&Put::with_timestamp("r", 200).add_column("cf", "q", "v2"))?;
    /// table.delete(&Delete::new("r").add_columns("cf", "q"))?; // every version of cf:q
    /// let r = table.get(&Get::new("r").all_versions())?;
    /// assert!(r.column_cells(b"cf", b"q").is_empty());
    /// assert!(r.contains_column(b"cf", b"k"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn add_columns(self, family: impl AsRef<[u8]>, qualifier: impl AsRef<[u8]>) -> Self {
        let ts = self.ts;
        self.add_columns_at(family, qualifier, ts)
    }

    /// All versions of one column up to `ts`.
    ///
    /// ```
    /// use regionkv::{Delete, Get, Put};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let mut cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # cf.max_versions = 3;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// table.put(&Put::with_timestamp("r", 100).add_column("cf", "q", "v1"))?;
    /// table.put(&Put::with_timestamp("r", 200).add_column("cf", "q", "v2"))?;
    /// table.delete(&Delete::new("r").add_columns_at("cf", "q", 150))?;
    /// let r = table.get(&Get::new("r").all_versions())?;
    /// let left: Vec<i64> = r.column_cells(b"cf", b"q").iter().map(|c| c.timestamp()).collect();
    /// assert_eq!(left, [200]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn add_columns_at(
        mut self,
        family: impl AsRef<[u8]>,
        qualifier: impl AsRef<[u8]>,
        ts: i64,
    ) -> Self {
        self.entries.push((
            family.as_ref().to_vec(),
            Some(qualifier.as_ref().to_vec()),
            ts,
            CellType::DeleteColumn,
        ));
        self
    }

    /// One version of one column: the newest when the delete has no timestamp, else the
    /// version at the delete's timestamp (Delete).
    ///
    /// ```
    /// use regionkv::{Delete, Get, Put};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let mut cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # cf.max_versions = 3;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// table.put(&Put::with_timestamp("r", 100).add_column("cf", "q", "v1"))?;
    /// table.put(&Put::with_timestamp("r", 200).add_column("cf", "q", "v2"))?;
    /// table.delete(&Delete::new("r").add_column("cf", "q"))?; // only the newest version
    /// let r = table.get(&Get::new("r"))?;
    /// assert_eq!(r.value(b"cf", b"q"), Some(&b"v1"[..]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn add_column(self, family: impl AsRef<[u8]>, qualifier: impl AsRef<[u8]>) -> Self {
        let ts = self.ts;
        self.add_column_at(family, qualifier, ts)
    }

    /// The version of one column at exactly `ts`.
    ///
    /// ```
    /// use regionkv::{Delete, Get, Put};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let mut cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # cf.max_versions = 3;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// for (ts, v) in [(100, "v1"), (200, "v2"), (300, "v3")] {
    ///     table.put(&Put::with_timestamp("r", ts).add_column("cf", "q", v))?;
    /// }
    /// table.delete(&Delete::new("r").add_column_at("cf", "q", 200))?;
    /// let r = table.get(&Get::new("r").all_versions())?;
    /// let left: Vec<i64> = r.column_cells(b"cf", b"q").iter().map(|c| c.timestamp()).collect();
    /// assert_eq!(left, [300, 100]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn add_column_at(
        mut self,
        family: impl AsRef<[u8]>,
        qualifier: impl AsRef<[u8]>,
        ts: i64,
    ) -> Self {
        self.entries.push((
            family.as_ref().to_vec(),
            Some(qualifier.as_ref().to_vec()),
            ts,
            CellType::Delete,
        ));
        self
    }

    /// Sets the durability of this mutation.
    ///
    /// ```
    /// use regionkv::{Delete, Durability, Get, Put};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// table.put(&Put::new("r").add_column("cf", "q", "v"))?;
    /// table.delete(&Delete::new("r").durability(Durability::FsyncWal))?;
    /// assert!(!table.exists(&Get::new("r"))?);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn durability(mut self, d: Durability) -> Self {
        self.durability = d;
        self
    }

    /// The row.
    ///
    /// ```
    /// use regionkv::Delete;
    ///
    /// assert_eq!(Delete::new("row1").add_family("cf").row(), b"row1");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn row(&self) -> &[u8] {
        &self.row
    }
}

/// HBase's `Increment`: adds to 8-byte big-endian counters, atomically per row.
///
/// ```
/// use regionkv::Increment;
/// # let dir = tempfile::tempdir()?;
/// # let options = regionkv::DbOptions::default().background(false);
/// # let db = regionkv::Db::open(dir.path(), options)?;
/// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
/// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
/// # let table = db.table("t")?;
/// let inc = Increment::new("page:home").add_column("cf", "views", 1);
/// table.increment(&inc)?;
/// let r = table.increment(&inc)?;
/// assert_eq!(r.counter(b"cf", b"views"), Some(2));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Increment {
    pub(crate) row: Vec<u8>,
    pub(crate) columns: Vec<(Vec<u8>, Vec<u8>, i64)>,
    pub(crate) time_range: TimeRange,
    pub(crate) return_results: bool,
    pub(crate) durability: Durability,
    pub(crate) ttl: Option<i64>,
}

impl Increment {
    /// The row.
    pub fn row(&self) -> &[u8] {
        &self.row
    }

    /// An increment of `row`.
    ///
    /// ```
    /// use regionkv::Increment;
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// let r = table.increment(&Increment::new("r").add_column("cf", "n", 41))?;
    /// assert_eq!(r.row(), b"r");
    /// assert_eq!(r.counter(b"cf", b"n"), Some(41));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(row: impl AsRef<[u8]>) -> Self {
        Self {
            row: row.as_ref().to_vec(),
            columns: Vec::new(),
            time_range: TimeRange::all_time(),
            return_results: true,
            durability: Durability::UseDefault,
            ttl: None,
        }
    }

    /// Adds `amount` to `family:qualifier` (a missing counter starts at 0).
    ///
    /// ```
    /// use regionkv::{Get, Increment};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// let inc = Increment::new("r").add_column("cf", "a", 1).add_column("cf", "b", -1);
    /// table.increment(&inc)?;
    /// let r = table.get(&Get::new("r"))?;
    /// assert_eq!((r.counter(b"cf", b"a"), r.counter(b"cf", b"b")), (Some(1), Some(-1)));
    /// // The stored form: 8 bytes, big-endian.
    /// assert_eq!(r.value(b"cf", b"a"), Some(&1i64.to_be_bytes()[..]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn add_column(
        mut self,
        family: impl AsRef<[u8]>,
        qualifier: impl AsRef<[u8]>,
        amount: i64,
    ) -> Self {
        self.columns.push((
            family.as_ref().to_vec(),
            qualifier.as_ref().to_vec(),
            amount,
        ));
        self
    }

    /// Only versions in this range count as the current value.
    ///
    /// ```
    /// use regionkv::{Increment, Put, TimeRange};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// table.put(&Put::with_timestamp("r", 100).add_column("cf", "n", 10i64.to_be_bytes()))?;
    /// // The value at 100 is outside [0, 50): the counter counts as missing and starts at 0.
    /// let inc = Increment::new("r")
    ///     .add_column("cf", "n", 1)
    ///     .time_range(TimeRange::between(0, 50)?);
    /// assert_eq!(table.increment(&inc)?.counter(b"cf", b"n"), Some(1));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn time_range(mut self, tr: TimeRange) -> Self {
        self.time_range = tr;
        self
    }

    /// Whether the new values are returned (default true).
    ///
    /// ```
    /// use regionkv::{Get, Increment};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// let inc = Increment::new("r").add_column("cf", "n", 5).return_results(false);
    /// assert!(table.increment(&inc)?.is_empty());
    /// // Applied all the same.
    /// assert_eq!(table.get(&Get::new("r"))?.counter(b"cf", b"n"), Some(5));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn return_results(mut self, on: bool) -> Self {
        self.return_results = on;
        self
    }

    /// Sets the durability of this mutation.
    ///
    /// ```
    /// use regionkv::{Durability, Increment};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// let inc = Increment::new("r").add_column("cf", "n", 1).durability(Durability::AsyncWal);
    /// assert_eq!(table.increment(&inc)?.counter(b"cf", b"n"), Some(1));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn durability(mut self, d: Durability) -> Self {
        self.durability = d;
        self
    }

    /// Sets a per-cell TTL in milliseconds on the new counter cells.
    ///
    /// The cells this mutation writes expire `ms` milliseconds after their timestamp
    /// (HBase's `Mutation#setTTL`): a cell is gone once `timestamp + ms < now`, in reads,
    /// flushes and compactions alike, before it can count as a version. A cell TTL never
    /// extends the family's TTL — whichever expires first wins. `i64::MAX` means no TTL,
    /// as in HBase. The TTL travels with the cell as a tag (WAL, memstore, storefiles).
    ///
    /// Without a TTL here, a counter keeps the TTL its current cell carries (HBase carries
    /// a cell's tags forward through increments).
    ///
    /// ```
    /// use regionkv::{Get, Increment};
    /// # let dir = tempfile::tempdir()?;
    /// # let clock = regionkv::ManualClock::new(1_000_000);
    /// # let options = regionkv::DbOptions::default().background(false).clock(std::sync::Arc::new(clock.clone()));
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// table.increment(&Increment::new("r").add_column("cf", "n", 1).ttl(1_000))?;
    /// // No TTL given: the counter keeps its 1 s TTL, counted from the new cell's
    /// // timestamp (now + 1: a new version is always newer than the one it replaces).
    /// table.increment(&Increment::new("r").add_column("cf", "n", 1))?;
    /// clock.advance(1_001);
    /// assert_eq!(table.get(&Get::new("r"))?.counter(b"cf", b"n"), Some(2));
    /// clock.advance(1);
    /// assert!(table.get(&Get::new("r"))?.is_empty());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn ttl(mut self, ms: i64) -> Self {
        self.ttl = (ms != i64::MAX).then_some(ms);
        self
    }
}

/// HBase's `Append`: appends bytes to cell values, atomically per row.
///
/// ```
/// use regionkv::Append;
/// # let dir = tempfile::tempdir()?;
/// # let options = regionkv::DbOptions::default().background(false);
/// # let db = regionkv::Db::open(dir.path(), options)?;
/// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
/// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
/// # let table = db.table("t")?;
/// table.append(&Append::new("r").add_column("cf", "path", "/usr"))?;
/// let r = table.append(&Append::new("r").add_column("cf", "path", "/bin"))?;
/// assert_eq!(r.value(b"cf", b"path"), Some(&b"/usr/bin"[..]));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Append {
    pub(crate) row: Vec<u8>,
    pub(crate) columns: Vec<(Vec<u8>, Vec<u8>, Vec<u8>)>,
    pub(crate) time_range: TimeRange,
    pub(crate) return_results: bool,
    pub(crate) durability: Durability,
    pub(crate) ttl: Option<i64>,
}

impl Append {
    /// The row.
    pub fn row(&self) -> &[u8] {
        &self.row
    }

    /// An append to `row`.
    ///
    /// ```
    /// use regionkv::Append;
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// let r = table.append(&Append::new("r").add_column("cf", "q", "x"))?;
    /// assert_eq!(r.row(), b"r");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(row: impl AsRef<[u8]>) -> Self {
        Self {
            row: row.as_ref().to_vec(),
            columns: Vec::new(),
            time_range: TimeRange::all_time(),
            return_results: true,
            durability: Durability::UseDefault,
            ttl: None,
        }
    }

    /// Appends `value` to `family:qualifier` (a missing cell starts empty).
    ///
    /// ```
    /// use regionkv::{Append, Put};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// table.put(&Put::new("r").add_column("cf", "a", "1"))?;
    /// let app = Append::new("r").add_column("cf", "a", "2").add_column("cf", "b", "new");
    /// let r = table.append(&app)?;
    /// assert_eq!(r.value(b"cf", b"a"), Some(&b"12"[..]));
    /// assert_eq!(r.value(b"cf", b"b"), Some(&b"new"[..])); // a missing cell starts empty
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn add_column(
        mut self,
        family: impl AsRef<[u8]>,
        qualifier: impl AsRef<[u8]>,
        value: impl AsRef<[u8]>,
    ) -> Self {
        self.columns.push((
            family.as_ref().to_vec(),
            qualifier.as_ref().to_vec(),
            value.as_ref().to_vec(),
        ));
        self
    }

    /// Only versions in this range count as the current value.
    ///
    /// ```
    /// use regionkv::{Append, Put, TimeRange};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// table.put(&Put::with_timestamp("r", 100).add_column("cf", "q", "old"))?;
    /// // Only versions from 500 on count: the value at 100 is ignored.
    /// let app = Append::new("r").add_column("cf", "q", "+").time_range(TimeRange::from(500)?);
    /// assert_eq!(table.append(&app)?.value(b"cf", b"q"), Some(&b"+"[..]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn time_range(mut self, tr: TimeRange) -> Self {
        self.time_range = tr;
        self
    }

    /// Whether the new values are returned (default true).
    ///
    /// ```
    /// use regionkv::{Append, Get};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// let app = Append::new("r").add_column("cf", "q", "x").return_results(false);
    /// assert!(table.append(&app)?.is_empty());
    /// assert_eq!(table.get(&Get::new("r"))?.value(b"cf", b"q"), Some(&b"x"[..]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn return_results(mut self, on: bool) -> Self {
        self.return_results = on;
        self
    }

    /// Sets the durability of this mutation.
    ///
    /// ```
    /// use regionkv::{Append, Durability};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// let app = Append::new("r").add_column("cf", "q", "x").durability(Durability::SyncWal);
    /// assert_eq!(table.append(&app)?.value(b"cf", b"q"), Some(&b"x"[..]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn durability(mut self, d: Durability) -> Self {
        self.durability = d;
        self
    }

    /// Sets a per-cell TTL in milliseconds on the appended cells.
    ///
    /// The cells this mutation writes expire `ms` milliseconds after their timestamp
    /// (HBase's `Mutation#setTTL`): a cell is gone once `timestamp + ms < now`, in reads,
    /// flushes and compactions alike, before it can count as a version. A cell TTL never
    /// extends the family's TTL — whichever expires first wins. `i64::MAX` means no TTL,
    /// as in HBase. The TTL travels with the cell as a tag (WAL, memstore, storefiles).
    ///
    /// Without a TTL here, a cell keeps the TTL its current version carries.
    ///
    /// ```
    /// use regionkv::{Append, Get};
    /// # let dir = tempfile::tempdir()?;
    /// # let clock = regionkv::ManualClock::new(1_000_000);
    /// # let options = regionkv::DbOptions::default().background(false).clock(std::sync::Arc::new(clock.clone()));
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// table.append(&Append::new("r").add_column("cf", "q", "a").ttl(1_000))?;
    /// clock.advance(500);
    /// let r = table.append(&Append::new("r").add_column("cf", "q", "b").ttl(10_000))?;
    /// assert_eq!(r.value(b"cf", b"q"), Some(&b"ab"[..]));
    /// clock.advance(5_000);
    /// assert!(table.exists(&Get::new("r"))?);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn ttl(mut self, ms: i64) -> Self {
        self.ttl = (ms != i64::MAX).then_some(ms);
        self
    }
}

/// A Put or a Delete, as `RowMutations` and batches hold them.
///
/// ```
/// use regionkv::{Delete, Get, Mutation, Put};
/// # let dir = tempfile::tempdir()?;
/// # let options = regionkv::DbOptions::default().background(false);
/// # let db = regionkv::Db::open(dir.path(), options)?;
/// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
/// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
/// # let table = db.table("t")?;
/// table.put(&Put::new("old").add_column("cf", "q", "v"))?;
/// let mutations: Vec<Mutation> = vec![
///     Put::new("new").add_column("cf", "q", "v").into(),
///     Delete::new("old").into(),
/// ];
/// let mutator = table.buffered_mutator();
/// for m in mutations {
///     mutator.mutate(m)?;
/// }
/// mutator.flush()?;
/// assert!(table.exists(&Get::new("new"))? && !table.exists(&Get::new("old"))?);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum Mutation {
    /// A put.
    Put(Put),
    /// A delete.
    Delete(Delete),
}

impl Mutation {
    /// The row.
    ///
    /// ```
    /// use regionkv::{Delete, Mutation, Put};
    ///
    /// let put: Mutation = Put::new("a").add_column("cf", "q", "v").into();
    /// let delete = Mutation::from(Delete::new("b"));
    /// assert_eq!((put.row(), delete.row()), (&b"a"[..], &b"b"[..]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn row(&self) -> &[u8] {
        match self {
            Self::Put(p) => &p.row,
            Self::Delete(d) => &d.row,
        }
    }
}

impl From<Put> for Mutation {
    fn from(p: Put) -> Self {
        Self::Put(p)
    }
}

impl From<Delete> for Mutation {
    fn from(d: Delete) -> Self {
        Self::Delete(d)
    }
}

/// HBase's `RowMutations`: puts and deletes of one row applied atomically, in order.
///
/// ```
/// use regionkv::{Delete, Get, Put, RowMutations};
/// # let dir = tempfile::tempdir()?;
/// # let options = regionkv::DbOptions::default().background(false);
/// # let db = regionkv::Db::open(dir.path(), options)?;
/// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
/// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
/// # let table = db.table("t")?;
/// table.put(&Put::new("r").add_column("cf", "draft", "text"))?;
/// // Publish: both changes or neither.
/// let publish = RowMutations::new("r")
///     .add_mutation(Put::new("r").add_column("cf", "published", "text"))
///     .add_mutation(Delete::new("r").add_columns("cf", "draft"));
/// table.mutate_row(&publish)?;
/// let r = table.get(&Get::new("r"))?;
/// assert!(r.contains_column(b"cf", b"published") && !r.contains_column(b"cf", b"draft"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct RowMutations {
    pub(crate) row: Vec<u8>,
    pub(crate) mutations: Vec<Mutation>,
}

impl RowMutations {
    /// Mutations of `row`.
    ///
    /// ```
    /// use regionkv::{Get, Put, RowMutations};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// let rm = RowMutations::new("r").add_mutation(Put::new("r").add_column("cf", "q", "v"));
    /// table.mutate_row(&rm)?;
    /// assert!(table.exists(&Get::new("r"))?);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(row: impl AsRef<[u8]>) -> Self {
        Self {
            row: row.as_ref().to_vec(),
            mutations: Vec::new(),
        }
    }

    /// Adds a put or delete (of the same row; checked when applied).
    ///
    /// ```
    /// use regionkv::{Delete, Error, Get, Put, RowMutations};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// // Applied in order: the delete (at the same time) also masks the put before it.
    /// let rm = RowMutations::new("r")
    ///     .add_mutation(Put::new("r").add_column("cf", "a", "1").add_column("cf", "b", "2"))
    ///     .add_mutation(Delete::new("r").add_column("cf", "a"));
    /// table.mutate_row(&rm)?;
    /// let r = table.get(&Get::new("r"))?;
    /// assert_eq!((r.value(b"cf", b"a"), r.value(b"cf", b"b")), (None, Some(&b"2"[..])));
    /// // A mutation of another row is refused when applied.
    /// let other = RowMutations::new("r").add_mutation(Delete::new("s"));
    /// assert!(matches!(table.mutate_row(&other), Err(Error::InvalidArgument(_))));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn add_mutation(mut self, m: impl Into<Mutation>) -> Self {
        self.mutations.push(m.into());
        self
    }
}

/// HBase's `CompareOperator`.
///
/// ```
/// use regionkv::{CheckAndMutate, CompareOperator, Put};
/// # let dir = tempfile::tempdir()?;
/// # let options = regionkv::DbOptions::default().background(false);
/// # let db = regionkv::Db::open(dir.path(), options)?;
/// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
/// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
/// # let table = db.table("t")?;
/// table.put(&Put::new("r").add_column("cf", "v", "5"))?;
/// let check = |op, expected: &str| -> regionkv::Result<bool> {
///     let cam = CheckAndMutate::builder("r")
///         .if_matches("cf", "v", op, expected)
///         .then_put(Put::new("r").add_column("cf", "seen", "y"));
///     Ok(table.check_and_mutate(&cam)?.success)
/// };
/// // `expected op stored`: the expected value is on the left.
/// assert!(check(CompareOperator::Less, "3")?); // "3" < "5"
/// assert!(!check(CompareOperator::Greater, "3")?);
/// assert!(check(CompareOperator::GreaterOrEqual, "5")?);
/// assert!(check(CompareOperator::NotEqual, "4")?);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub use regionkv_region::filter::CompareOperator;

/// What a `CheckAndMutate` checks.
///
/// ```
/// use regionkv::{CompareOperator, Condition};
///
/// // What `CheckAndMutate::builder(row).if_not_exists("cf", "q")` checks:
/// let c = Condition::Column {
///     family: b"cf".to_vec(),
///     qualifier: b"q".to_vec(),
///     op: CompareOperator::Equal,
///     value: None,
/// };
/// assert!(matches!(c, Condition::Column { value: None, .. }));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub enum Condition {
    /// `family:qualifier`'s newest value compared with `value` by `op`; `value: None`
    /// means "the column does not exist".
    Column {
        /// Family.
        family: Vec<u8>,
        /// Qualifier.
        qualifier: Vec<u8>,
        /// Operator (the expected value is on the left, as in HBase: `value op stored`).
        op: CompareOperator,
        /// The operand; `None` checks absence.
        value: Option<Vec<u8>>,
    },
    /// The row passes `filter` (some cell of it is returned through the filter).
    Filter(Box<dyn Filter>),
}

/// The action of a `CheckAndMutate`.
///
/// ```
/// use regionkv::{CheckAction, Put};
///
/// // What `CheckAndMutate::builder(row)...then_put(put)` runs when the check holds:
/// let action = CheckAction::Put(Put::new("r").add_column("cf", "q", "v"));
/// assert!(matches!(&action, CheckAction::Put(p) if p.row() == b"r"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum CheckAction {
    /// A put.
    Put(Put),
    /// A delete.
    Delete(Delete),
    /// Several, atomically.
    RowMutations(RowMutations),
    /// An increment (its new values are returned).
    Increment(Increment),
    /// An append (its new values are returned).
    Append(Append),
}

/// HBase 2.x's `CheckAndMutate`: if the condition holds on `row`, apply the action —
/// atomically, under the row lock.
///
/// ```
/// use regionkv::{CheckAndMutate, Delete, Get, Put};
/// # let dir = tempfile::tempdir()?;
/// # let options = regionkv::DbOptions::default().background(false);
/// # let db = regionkv::Db::open(dir.path(), options)?;
/// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
/// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
/// # let table = db.table("t")?;
/// table.put(&Put::new("job").add_column("cf", "state", "done"))?;
/// // Delete the row only if the job is done.
/// let cleanup = CheckAndMutate::builder("job")
///     .if_equals("cf", "state", "done")
///     .then_delete(Delete::new("job"));
/// assert!(table.check_and_mutate(&cleanup)?.success);
/// assert!(!table.exists(&Get::new("job"))?);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct CheckAndMutate {
    pub(crate) row: Vec<u8>,
    pub(crate) condition: Condition,
    pub(crate) time_range: TimeRange,
    pub(crate) action: CheckAction,
}

/// Builds a [`CheckAndMutate`] (HBase's `CheckAndMutate.newBuilder(row)`, here `CheckAndMutate::builder(row)`).
///
/// ```
/// use regionkv::{CheckAndMutate, CheckAndMutateBuilder, Error, Put};
/// # let dir = tempfile::tempdir()?;
/// # let options = regionkv::DbOptions::default().background(false);
/// # let db = regionkv::Db::open(dir.path(), options)?;
/// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
/// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
/// # let table = db.table("t")?;
/// let builder: CheckAndMutateBuilder = CheckAndMutate::builder("r");
/// let cam = builder.if_not_exists("cf", "q").then_put(Put::new("r").add_column("cf", "q", "v"));
/// assert!(table.check_and_mutate(&cam)?.success);
/// // A builder given no condition builds a check the table refuses.
/// let unchecked = CheckAndMutate::builder("r").then_put(Put::new("r").add_column("cf", "q", "w"));
/// assert!(matches!(table.check_and_mutate(&unchecked), Err(Error::InvalidArgument(_))));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct CheckAndMutateBuilder {
    row: Vec<u8>,
    condition: Option<Condition>,
    time_range: TimeRange,
}

impl CheckAndMutate {
    /// The row.
    pub fn row(&self) -> &[u8] {
        &self.row
    }

    /// Starts a check on `row`.
    ///
    /// ```
    /// use regionkv::{CheckAndMutate, Error, Put};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// let cam = CheckAndMutate::builder("r")
    ///     .if_not_exists("cf", "q")
    ///     .then_put(Put::new("r").add_column("cf", "q", "v"));
    /// assert!(table.check_and_mutate(&cam)?.success);
    /// // The action must be of the checked row.
    /// let other = CheckAndMutate::builder("r")
    ///     .if_not_exists("cf", "x")
    ///     .then_put(Put::new("s").add_column("cf", "q", "v"));
    /// assert!(matches!(table.check_and_mutate(&other), Err(Error::InvalidArgument(_))));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn builder(row: impl AsRef<[u8]>) -> CheckAndMutateBuilder {
        CheckAndMutateBuilder {
            row: row.as_ref().to_vec(),
            condition: None,
            time_range: TimeRange::all_time(),
        }
    }
}

impl CheckAndMutateBuilder {
    /// Checks that `family:qualifier` does not exist.
    ///
    /// ```
    /// use regionkv::{CheckAndMutate, Put};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// let put = Put::new("r").add_column("cf", "q", "v");
    /// let cam = CheckAndMutate::builder("r").if_not_exists("cf", "q").then_put(put.clone());
    /// assert!(table.check_and_mutate(&cam)?.success);
    /// assert!(!table.check_and_mutate(&cam)?.success); // it exists now
    /// // A column holding an empty value counts as absent, as in HBase.
    /// table.put(&Put::new("e").add_column("cf", "q", ""))?;
    /// let cam = CheckAndMutate::builder("e")
    ///     .if_not_exists("cf", "q")
    ///     .then_put(Put::new("e").add_column("cf", "q", "v"));
    /// assert!(table.check_and_mutate(&cam)?.success);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn if_not_exists(mut self, family: impl AsRef<[u8]>, qualifier: impl AsRef<[u8]>) -> Self {
        self.condition = Some(Condition::Column {
            family: family.as_ref().to_vec(),
            qualifier: qualifier.as_ref().to_vec(),
            op: CompareOperator::Equal,
            value: None,
        });
        self
    }

    /// Checks `value op stored` on `family:qualifier`'s newest version — the expected
    /// value on the left, as HBase compares it: `CompareOperator::Less` succeeds when
    /// `value` is less than the stored value.
    ///
    /// ```
    /// use regionkv::{CheckAndMutate, CompareOperator, Get, Put};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// table.put(&Put::new("r").add_column("cf", "version", "4"))?;
    /// // Upgrade only to a newer version: succeeds when "5" > stored.
    /// let cam = CheckAndMutate::builder("r")
    ///     .if_matches("cf", "version", CompareOperator::Greater, "5")
    ///     .then_put(Put::new("r").add_column("cf", "version", "5"));
    /// assert!(table.check_and_mutate(&cam)?.success);
    /// assert!(!table.check_and_mutate(&cam)?.success); // "5" > "5" is false
    /// let r = table.get(&Get::new("r"))?;
    /// assert_eq!(r.value(b"cf", b"version"), Some(&b"5"[..]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn if_matches(
        mut self,
        family: impl AsRef<[u8]>,
        qualifier: impl AsRef<[u8]>,
        op: CompareOperator,
        value: impl AsRef<[u8]>,
    ) -> Self {
        self.condition = Some(Condition::Column {
            family: family.as_ref().to_vec(),
            qualifier: qualifier.as_ref().to_vec(),
            op,
            value: Some(value.as_ref().to_vec()),
        });
        self
    }

    /// Checks `value == stored`.
    ///
    /// ```
    /// use regionkv::{CheckAndMutate, Put};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// table.put(&Put::new("r").add_column("cf", "state", "draft"))?;
    /// let publish = |from: &str| {
    ///     CheckAndMutate::builder("r")
    ///         .if_equals("cf", "state", from)
    ///         .then_put(Put::new("r").add_column("cf", "state", "published"))
    /// };
    /// assert!(!table.check_and_mutate(&publish("review"))?.success);
    /// assert!(table.check_and_mutate(&publish("draft"))?.success);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn if_equals(
        self,
        family: impl AsRef<[u8]>,
        qualifier: impl AsRef<[u8]>,
        value: impl AsRef<[u8]>,
    ) -> Self {
        self.if_matches(family, qualifier, CompareOperator::Equal, value)
    }

    /// Checks that some cell of the row passes `filter`.
    ///
    /// ```
    /// use regionkv::filter::parse_filter;
    /// use regionkv::{CheckAndMutate, Put};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// table.put(&Put::new("r").add_column("cf", "status", "active"))?;
    /// let cam = CheckAndMutate::builder("r")
    ///     .if_filter(parse_filter("ValueFilter(=, 'binary:active')")?)
    ///     .then_put(Put::new("r").add_column("cf", "seen", "1"));
    /// assert!(table.check_and_mutate(&cam)?.success);
    /// let cam = CheckAndMutate::builder("r")
    ///     .if_filter(parse_filter("ValueFilter(=, 'binary:closed')")?)
    ///     .then_put(Put::new("r").add_column("cf", "seen", "2"));
    /// assert!(!table.check_and_mutate(&cam)?.success);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn if_filter(mut self, filter: Box<dyn Filter>) -> Self {
        self.condition = Some(Condition::Filter(filter));
        self
    }

    /// Only versions in this range are checked.
    ///
    /// ```
    /// use regionkv::{CheckAndMutate, Put, TimeRange};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let mut cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # cf.max_versions = 3;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// table.put(&Put::with_timestamp("r", 100).add_column("cf", "q", "a"))?;
    /// table.put(&Put::with_timestamp("r", 200).add_column("cf", "q", "b"))?;
    /// // Within [0, 150) the newest version is the one at 100.
    /// let cam = CheckAndMutate::builder("r")
    ///     .if_equals("cf", "q", "a")
    ///     .time_range(TimeRange::between(0, 150)?)
    ///     .then_put(Put::new("r").add_column("cf", "ok", "1"));
    /// assert!(table.check_and_mutate(&cam)?.success);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn time_range(mut self, tr: TimeRange) -> Self {
        self.time_range = tr;
        self
    }

    fn build(self, action: CheckAction) -> CheckAndMutate {
        CheckAndMutate {
            row: self.row,
            // A builder without a condition checks nothing that can fail: absence of an
            // empty-named column is not a condition HBase allows, so this is reported
            // by the table as an error.
            condition: self.condition.unwrap_or(Condition::Column {
                family: Vec::new(),
                qualifier: Vec::new(),
                op: CompareOperator::NoOp,
                value: None,
            }),
            time_range: self.time_range,
            action,
        }
    }

    /// Puts when the condition holds.
    ///
    /// ```
    /// use regionkv::{CheckAndMutate, Get, Put};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// let cam = CheckAndMutate::builder("r")
    ///     .if_not_exists("cf", "q")
    ///     .then_put(Put::new("r").add_column("cf", "q", "first"));
    /// assert!(table.check_and_mutate(&cam)?.success);
    /// assert_eq!(table.get(&Get::new("r"))?.value(b"cf", b"q"), Some(&b"first"[..]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn then_put(self, p: Put) -> CheckAndMutate {
        self.build(CheckAction::Put(p))
    }
    /// Deletes when the condition holds.
    ///
    /// ```
    /// use regionkv::{CheckAndMutate, Delete, Get, Put};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// table.put(&Put::new("r").add_column("cf", "q", "v").add_column("cf", "tmp", "x"))?;
    /// let cam = CheckAndMutate::builder("r")
    ///     .if_equals("cf", "q", "v")
    ///     .then_delete(Delete::new("r").add_columns("cf", "tmp"));
    /// assert!(table.check_and_mutate(&cam)?.success);
    /// assert_eq!(table.get(&Get::new("r"))?.len(), 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn then_delete(self, d: Delete) -> CheckAndMutate {
        self.build(CheckAction::Delete(d))
    }
    /// Applies row mutations when the condition holds.
    ///
    /// ```
    /// use regionkv::{CheckAndMutate, Delete, Get, Put, RowMutations};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// table.put(&Put::new("r").add_column("cf", "lock", "me"))?;
    /// let release = RowMutations::new("r")
    ///     .add_mutation(Put::new("r").add_column("cf", "result", "42"))
    ///     .add_mutation(Delete::new("r").add_columns("cf", "lock"));
    /// let cam = CheckAndMutate::builder("r").if_equals("cf", "lock", "me").then_mutate(release);
    /// assert!(table.check_and_mutate(&cam)?.success);
    /// let r = table.get(&Get::new("r"))?;
    /// assert!(r.contains_column(b"cf", b"result") && !r.contains_column(b"cf", b"lock"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn then_mutate(self, m: RowMutations) -> CheckAndMutate {
        self.build(CheckAction::RowMutations(m))
    }
    /// Increments when the condition holds.
    ///
    /// ```
    /// use regionkv::{CheckAndMutate, Increment, Put};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// table.put(&Put::new("r").add_column("cf", "open", "yes"))?;
    /// let cam = CheckAndMutate::builder("r")
    ///     .if_equals("cf", "open", "yes")
    ///     .then_increment(Increment::new("r").add_column("cf", "n", 1));
    /// let outcome = table.check_and_mutate(&cam)?;
    /// assert!(outcome.success);
    /// assert_eq!(outcome.result.and_then(|r| r.counter(b"cf", b"n")), Some(1));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn then_increment(self, i: Increment) -> CheckAndMutate {
        self.build(CheckAction::Increment(i))
    }
    /// Appends when the condition holds.
    ///
    /// ```
    /// use regionkv::{Append, CheckAndMutate};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// let cam = CheckAndMutate::builder("r")
    ///     .if_not_exists("cf", "done")
    ///     .then_append(Append::new("r").add_column("cf", "log", "step1;"));
    /// let outcome = table.check_and_mutate(&cam)?;
    /// assert!(outcome.success);
    /// let log = outcome.result.map(|r| r.value(b"cf", b"log").map(<[u8]>::to_vec));
    /// assert_eq!(log, Some(Some(b"step1;".to_vec())));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn then_append(self, a: Append) -> CheckAndMutate {
        self.build(CheckAction::Append(a))
    }
}
