//! `Table`: reads and writes of one table — routed to regions through the region map —
//! with HBase's client semantics: puts, gets, scans streaming region by region, the
//! delete kinds, atomic increment / append / check-and-mutate / row mutations under the
//! row lock, and batches. Rules (from HBase 2.x's `HRegion` and client, in our words):
//!
//! * A `Delete` with nothing added deletes every family of the table (one DeleteFamily
//!   marker each) at its timestamp.
//! * Increment and Append read the current values with an ordinary Get of their columns
//!   (deletes and TTL apply; the mutation's time range narrows it), under the row lock.
//!   The new cell's timestamp is `max(now, current.ts + 1)`, or `now` (or the cell's own
//!   timestamp) when there is no current value. Increment needs 8-byte values ("Field is
//!   not a long, it's N bytes wide") and wraps on overflow like Java's `long`.
//! * CheckAndMutate compares `expected op stored` (the expected value on the left, so
//!   `Less` succeeds when the stored value is greater) on the newest version within the
//!   time range; an absent expected value (`if_not_exists`) also matches an existing
//!   empty value; puts without a timestamp get `max(now, checked cell's timestamp)`.
//!
//! ```
//! use regionkv::{Delete, Get, Put, Scan};
//! # let dir = tempfile::tempdir()?;
//! # let options = regionkv::DbOptions::default().background(false);
//! # let db = regionkv::Db::open(dir.path(), options)?;
//! # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
//! # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
//! # let table = db.table("t")?;
//! table.put(&Put::new("a").add_column("cf", "q", "1"))?;
//! table.put(&Put::new("b").add_column("cf", "q", "2"))?;
//! table.delete(&Delete::new("a"))?;
//! assert!(table.get(&Get::new("a"))?.is_empty());
//! assert_eq!(table.scan(&Scan::new())?.count(), 1);
//! assert_eq!(table.increment_column_value(b"c", b"cf", b"n", 3)?, 3);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::coprocessor::{
    Bypass, CoprocessorResult, ObserverContext, RegionCoprocessorHost, RegionObserver,
};
use crate::db::{Db, TableHandle};
use crate::error::{Error, Result};
use crate::mutation::{
    Append, CheckAction, CheckAndMutate, CompareOperator, Condition, Delete, Increment, Mutation,
    Put, RowMutations,
};
use crate::read::{Get, RowResult, Scan};
use crate::region_map::RegionMap;
use regionkv_cell::key::LATEST_TIMESTAMP;
use regionkv_cell::{Cell, CellType, TimeRange};
use regionkv_region::Durability;
use regionkv_region::{ReadQuery, Region, RegionScan, RegionScanner, TableDescriptor};
use std::sync::Arc;

mod batch;
pub(crate) use batch::WriteRef;

/// A handle on one table. Cheap to clone; `Send + Sync`.
///
/// ```
/// use regionkv::{Get, Put};
/// # let dir = tempfile::tempdir()?;
/// # let options = regionkv::DbOptions::default().background(false);
/// # let db = regionkv::Db::open(dir.path(), options)?;
/// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
/// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
/// # let table = db.table("t")?;
/// table.put(&Put::new("row1").add_column("cf", "q", "v1"))?;
/// let handle = table.clone(); // the same table
/// let r = handle.get(&Get::new("row1"))?;
/// assert_eq!(r.value(b"cf", b"q"), Some(&b"v1"[..]));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct Table {
    pub(crate) db: Db,
    pub(crate) handle: Arc<TableHandle>,
}

/// What [`Table::check_and_mutate`] did.
///
/// ```
/// use regionkv::{CheckAndMutate, Increment, Put};
/// # let dir = tempfile::tempdir()?;
/// # let options = regionkv::DbOptions::default().background(false);
/// # let db = regionkv::Db::open(dir.path(), options)?;
/// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
/// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
/// # let table = db.table("t")?;
/// table.put(&Put::new("r").add_column("cf", "state", "open"))?;
/// let cam = CheckAndMutate::builder("r")
///     .if_equals("cf", "state", "open")
///     .then_increment(Increment::new("r").add_column("cf", "hits", 1));
/// let outcome = table.check_and_mutate(&cam)?;
/// assert!(outcome.success);
/// assert_eq!(outcome.result.and_then(|r| r.counter(b"cf", b"hits")), Some(1));
/// // A plain put returns no result; a failed check does nothing.
/// let cam = CheckAndMutate::builder("r")
///     .if_equals("cf", "state", "closed")
///     .then_put(Put::new("r").add_column("cf", "state", "open"));
/// let outcome = table.check_and_mutate(&cam)?;
/// assert!(!outcome.success && outcome.result.is_none());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CheckAndMutateResult {
    /// Whether the condition held (and the action ran).
    pub success: bool,
    /// The new values of an Increment or Append action.
    pub result: Option<RowResult>,
}

/// One action of [`Table::batch`].
///
/// ```
/// use regionkv::{Append, BatchAction, Error, Get, Put};
/// # let dir = tempfile::tempdir()?;
/// # let options = regionkv::DbOptions::default().background(false);
/// # let db = regionkv::Db::open(dir.path(), options)?;
/// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
/// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
/// # let table = db.table("t")?;
/// let results = table.batch(&[
///     BatchAction::Put(Put::new("a").add_column("cf", "q", "1")),
///     BatchAction::Get(Get::new("a")),
///     BatchAction::Append(Append::new("a").add_column("cf", "q", "2")),
///     BatchAction::Put(Put::new("b")), // no columns: fails on its own
/// ]);
/// assert!(matches!(&results[0], Ok(r) if r.is_empty()));
/// assert!(matches!(&results[1], Ok(r) if r.value(b"cf", b"q") == Some(b"1")));
/// assert!(matches!(&results[2], Ok(r) if r.value(b"cf", b"q") == Some(b"12")));
/// assert!(matches!(&results[3], Err(Error::InvalidArgument(_))));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub enum BatchAction {
    /// A put.
    Put(Put),
    /// A delete.
    Delete(Delete),
    /// A get.
    Get(Get),
    /// An increment.
    Increment(Increment),
    /// An append.
    Append(Append),
    /// Atomic mutations of one row.
    RowMutations(RowMutations),
}

fn invalid(msg: impl Into<String>) -> Error {
    Error::InvalidArgument(msg.into())
}

/// What [`Table::read_modify_write`] needs of an increment or an append.
trait ReadModifyWrite: Clone {
    fn row(&self) -> &[u8];
    fn durability(&self) -> Durability;
    fn return_results(&self) -> bool;
    /// The new cells, from the row's current ones.
    fn cells(&self, region: &Region, now: i64) -> Result<Vec<Cell>>;
    /// HBase's preIncrement / preAppend.
    fn pre_hook(
        &mut self,
        o: &dyn RegionObserver,
        c: &mut ObserverContext<'_>,
    ) -> CoprocessorResult<Option<RowResult>>;
    /// HBase's postIncrement / postAppend.
    fn post_hook(
        &self,
        o: &dyn RegionObserver,
        c: &mut ObserverContext<'_>,
        result: RowResult,
    ) -> CoprocessorResult<RowResult>;
}

impl ReadModifyWrite for Increment {
    fn row(&self) -> &[u8] {
        &self.row
    }
    fn durability(&self) -> Durability {
        self.durability
    }
    fn return_results(&self) -> bool {
        self.return_results
    }
    fn cells(&self, region: &Region, now: i64) -> Result<Vec<Cell>> {
        increment_cells(region, self, now)
    }
    fn pre_hook(
        &mut self,
        o: &dyn RegionObserver,
        c: &mut ObserverContext<'_>,
    ) -> CoprocessorResult<Option<RowResult>> {
        o.pre_increment(c, self)
    }
    fn post_hook(
        &self,
        o: &dyn RegionObserver,
        c: &mut ObserverContext<'_>,
        result: RowResult,
    ) -> CoprocessorResult<RowResult> {
        o.post_increment(c, self, result)
    }
}

impl ReadModifyWrite for Append {
    fn row(&self) -> &[u8] {
        &self.row
    }
    fn durability(&self) -> Durability {
        self.durability
    }
    fn return_results(&self) -> bool {
        self.return_results
    }
    fn cells(&self, region: &Region, now: i64) -> Result<Vec<Cell>> {
        append_cells(region, self, now)
    }
    fn pre_hook(
        &mut self,
        o: &dyn RegionObserver,
        c: &mut ObserverContext<'_>,
    ) -> CoprocessorResult<Option<RowResult>> {
        o.pre_append(c, self)
    }
    fn post_hook(
        &self,
        o: &dyn RegionObserver,
        c: &mut ObserverContext<'_>,
        result: RowResult,
    ) -> CoprocessorResult<RowResult> {
        o.post_append(c, self, result)
    }
}

/// An observer's pre hook must not move a mutation to another row (HBase checks the row
/// after the hooks; here the row was located before them).
fn same_row(now: &[u8], given: &[u8]) -> Result<()> {
    if now == given {
        return Ok(());
    }
    Err(invalid(format!(
        "a coprocessor changed the row of a mutation from {} to {}",
        regionkv_cell::bytes::to_string_binary(given),
        regionkv_cell::bytes::to_string_binary(now)
    )))
}

fn check_row(row: &[u8]) -> Result<()> {
    if row.is_empty() {
        return Err(invalid("Row length is 0"));
    }
    regionkv_cell::limits::check_row(row)?;
    Ok(())
}

/// HBase's `hbase.client.keyvalue.maxsize` check (`ConnectionUtils.validatePut`, 10 MiB):
/// a put or append cell whose serialized KeyValue (lengths, key, value) is larger is
/// refused before anything is written.
fn check_cell_size(cell: &Cell) -> Result<()> {
    // KeyValue's length fields (key length, value length: 8 bytes) around key and value.
    let size = 8 + cell.encoded_len();
    regionkv_cell::limits::check_cell_size(size, regionkv_cell::limits::DEFAULT_MAX_CELL_SIZE)?;
    Ok(())
}

/// The cells of a put.
fn put_cells(p: &Put) -> Result<Vec<Cell>> {
    check_row(&p.row)?;
    if p.cells.is_empty() {
        return Err(invalid("No columns to insert"));
    }
    p.cells
        .iter()
        .map(|(f, q, ts, v)| {
            if *ts < 0 {
                return Err(invalid(format!("Timestamp cannot be negative. ts={ts}")));
            }
            let cell = Cell::put(&p.row, f, q, *ts, v)?;
            check_cell_size(&cell)?;
            Ok(match p.ttl {
                // HBase's `rewriteCellTags`: the mutation's TTL becomes a tag on each cell.
                Some(ttl) => cell.with_tags(regionkv_cell::tag::with_ttl(&[], Some(ttl)))?,
                None => cell,
            })
        })
        .collect()
}

/// The markers of a delete (every family of the table when nothing was added).
fn delete_cells(d: &Delete, desc: &TableDescriptor) -> Result<Vec<Cell>> {
    check_row(&d.row)?;
    if d.ts < 0 {
        return Err(invalid(format!(
            "Timestamp cannot be negative. ts={}",
            d.ts
        )));
    }
    if d.entries.is_empty() {
        return desc
            .families
            .iter()
            .map(|f| {
                Ok(Cell::delete_marker(
                    &d.row,
                    &f.name,
                    &[],
                    d.ts,
                    CellType::DeleteFamily,
                )?)
            })
            .collect();
    }
    d.entries
        .iter()
        .map(|(f, q, ts, kind)| {
            if *ts < 0 {
                return Err(invalid(format!("Timestamp cannot be negative. ts={ts}")));
            }
            Ok(Cell::delete_marker(
                &d.row,
                f,
                q.as_deref().unwrap_or_default(),
                *ts,
                *kind,
            )?)
        })
        .collect()
}

fn mutation_cells(m: &Mutation, desc: &TableDescriptor) -> Result<Vec<Cell>> {
    match m {
        Mutation::Put(p) => put_cells(p),
        Mutation::Delete(d) => delete_cells(d, desc),
    }
}

/// The current value of each column an Increment or Append names, read as HBase's
/// `reckonDeltas` does: one Get per family, newest version in the time range.
fn current_cells(
    region: &Region,
    row: &[u8],
    columns: &[(&[u8], &[u8])],
    tr: TimeRange,
) -> Result<Vec<Cell>> {
    // One Get per family, as HBase's `reckonDeltasByStore` reads: each is a read request
    // of its own in the region's metrics.
    let mut families: Vec<&[u8]> = columns.iter().map(|(f, _)| *f).collect();
    families.sort_unstable();
    families.dedup();
    let mut cells = Vec::new();
    for family in families {
        let mut q = ReadQuery::default().time_range(tr);
        for (_, c) in columns.iter().filter(|(f, _)| *f == family) {
            q = q.column(family, c);
        }
        cells.extend(region.get(row, &q)?);
    }
    Ok(cells)
}

/// A read-modify-write of `columns`: `combine(current, delta)` gives the new value. As
/// HBase's `reckonDelta`, a new cell carries the current cell's tags forward, with its TTL
/// replaced by the mutation's `ttl` when one is set.
fn reckon<D>(
    region: &Region,
    row: &[u8],
    columns: &[(Vec<u8>, Vec<u8>, D)],
    tr: TimeRange,
    ttl: Option<i64>,
    now: i64,
    combine: impl Fn(Option<&[u8]>, &D) -> Result<Vec<u8>>,
) -> Result<Vec<Cell>> {
    if columns.is_empty() {
        return Err(invalid("Invalid arguments: zero columns specified"));
    }
    let names: Vec<(&[u8], &[u8])> = columns
        .iter()
        .map(|(f, q, _)| (f.as_slice(), q.as_slice()))
        .collect();
    let current = current_cells(region, row, &names, tr)?;
    // HBase handles the deltas in store order (family, then qualifier); a stable sort
    // keeps duplicates in the order given.
    let mut order: Vec<usize> = (0..columns.len()).collect();
    order.sort_by(|a, b| {
        let (fa, qa, _) = &columns[*a];
        let (fb, qb, _) = &columns[*b];
        (fa, qa).cmp(&(fb, qb))
    });
    let mut out = Vec::with_capacity(columns.len());
    for i in order {
        let (f, q, delta) = &columns[i];
        let cur = current
            .iter()
            .find(|c| c.family() == f.as_slice() && c.qualifier() == q.as_slice());
        let value = combine(cur.map(Cell::value), delta)?;
        let ts = match cur {
            Some(c) => now.max(c.timestamp().saturating_add(1)),
            None => now,
        };
        let cell = Cell::put(row, f, q, ts, &value)?;
        let tags = regionkv_cell::tag::with_ttl(cur.map_or(&[][..], |c| c.tags()), ttl);
        out.push(if tags.is_empty() {
            cell
        } else {
            cell.with_tags(tags)?
        });
    }
    Ok(out)
}

fn increment_cells(region: &Region, inc: &Increment, now: i64) -> Result<Vec<Cell>> {
    check_row(&inc.row)?;
    reckon(
        region,
        &inc.row,
        &inc.columns,
        inc.time_range,
        inc.ttl,
        now,
        |cur, amount| {
            let old = match cur {
                None => 0,
                Some(v) => {
                    let b = <[u8; 8]>::try_from(v).map_err(|_| {
                        invalid(format!("Field is not a long, it's {} bytes wide", v.len()))
                    })?;
                    i64::from_be_bytes(b)
                }
            };
            Ok(old.wrapping_add(*amount).to_be_bytes().to_vec())
        },
    )
}

fn append_cells(region: &Region, app: &Append, now: i64) -> Result<Vec<Cell>> {
    check_row(&app.row)?;
    for (f, q, v) in &app.columns {
        check_cell_size(&Cell::put(&app.row, f, q, 0, v)?)?;
    }
    reckon(
        region,
        &app.row,
        &app.columns,
        app.time_range,
        app.ttl,
        now,
        |cur, tail| {
            let mut v = cur.map(<[u8]>::to_vec).unwrap_or_default();
            v.extend_from_slice(tail);
            Ok(v)
        },
    )
}

/// HBase's `HRegion.matches`: `compare(expected, stored)` against the operator.
fn compare_matches(op: CompareOperator, expected: &[u8], stored: &[u8]) -> Result<bool> {
    let r = expected.cmp(stored);
    use std::cmp::Ordering::*;
    Ok(match op {
        CompareOperator::Less => r == Less,
        CompareOperator::LessOrEqual => r != Greater,
        CompareOperator::Equal => r == Equal,
        CompareOperator::NotEqual => r != Equal,
        CompareOperator::GreaterOrEqual => r != Less,
        CompareOperator::Greater => r == Greater,
        CompareOperator::NoOp => return Err(invalid("NO_OP is not a valid check operator")),
    })
}

/// Drops all but the last of several new cells for the same column (an Increment or
/// Append naming a column twice computes each against the same old value; one survives).
fn last_per_column(cells: &[Cell]) -> Vec<Cell> {
    let mut out: Vec<Cell> = Vec::with_capacity(cells.len());
    for c in cells {
        if let Some(prev) = out
            .iter_mut()
            .find(|p| p.family() == c.family() && p.qualifier() == c.qualifier())
        {
            *prev = c.clone();
        } else {
            out.push(c.clone());
        }
    }
    out
}

impl Table {
    /// The table's name (`ns:table`, or `table` in the default namespace).
    ///
    /// ```
    /// use regionkv::{ColumnFamilyDescriptor, TableDescriptor};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// db.admin().create_namespace("ns")?;
    /// for name in ["ns:t", "default:u"] {
    ///     let cf = ColumnFamilyDescriptor::new(b"cf")?;
    ///     db.admin().create_table(&TableDescriptor::new(name, vec![cf])?)?;
    /// }
    /// assert_eq!(db.table("ns:t")?.name(), "ns:t");
    /// assert_eq!(db.table("default:u")?.name(), "u");
    /// assert_eq!(db.table("u")?.name(), "u");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn name(&self) -> &str {
        &self.handle.name
    }

    /// The table's current descriptor.
    ///
    /// ```
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// let mut desc = (*table.descriptor()).clone();
    /// assert_eq!(desc.name, "t");
    /// assert!(desc.family(b"cf").is_some());
    /// // It follows alterations.
    /// desc.read_only = true;
    /// db.admin().modify_table(&desc)?;
    /// assert!(table.descriptor().read_only);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn descriptor(&self) -> Arc<TableDescriptor> {
        self.handle.descriptor.load_full()
    }

    fn map(&self) -> Result<Arc<RegionMap>> {
        self.db.inner.check_open()?;
        self.handle.region_map()
    }

    /// Runs `op` on the region holding `row`. While a split or merge replaces that region
    /// the op fails with `Closed` before doing anything; like HBase's client on
    /// NotServingRegionException, it is retried (with a growing pause, for up to
    /// [`REGION_RETRY_FOR`]) on the region the table's map then names.
    /// The regions whose rows meet `[start, stop]` (the stop row included, as HBase's
    /// `getStartKeysInRange` counts a region that starts at it), in key order.
    pub(crate) fn regions_in_range(&self, start: &[u8], stop: &[u8]) -> Result<Vec<Arc<Region>>> {
        let map = self.map()?;
        Ok(map
            .regions()
            .iter()
            .filter(|r| {
                let i = r.info();
                (stop.is_empty() || i.start_key.as_slice() <= stop)
                    && (i.end_key.is_empty() || i.end_key.as_slice() > start)
            })
            .cloned()
            .collect())
    }

    fn on_region<T>(&self, row: &[u8], mut op: impl FnMut(&Arc<Region>) -> Result<T>) -> Result<T> {
        // The clock is read only once a retry is needed: the common case never waits.
        let mut deadline = None;
        let mut pause = std::time::Duration::from_millis(1);
        loop {
            self.db.inner.check_open()?;
            // The published map, held for the op (it keeps the region alive, as a clone of
            // its `Arc` would, without the reference counting; see `RegionMapSlot`).
            let map = self.handle.regions.load();
            let region = map
                .as_ref()
                .and_then(|m| m.locate(row))
                .ok_or_else(|| Error::TableNotEnabled(self.handle.name.clone()))?;
            match op(region) {
                Err(e)
                    if region_moved(&e)
                        && std::time::Instant::now()
                            < *deadline.get_or_insert_with(|| {
                                std::time::Instant::now() + REGION_RETRY_FOR
                            })
                        && !self.db.inner.is_offline(region.encoded_name()) =>
                {
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(std::time::Duration::from_millis(50));
                }
                r => return r,
            }
        }
    }

    /// The observers of `region`, when the table loads any (made once per region
    /// instance; `None`, the common case, then costs a lookup of the region's slot).
    pub(crate) fn host(&self, region: &Region) -> Option<Arc<RegionCoprocessorHost>> {
        self.db.inner.observers_of(region)
    }

    /// True when some region of the table may run observers: a registered class among
    /// the table's specs.
    pub(crate) fn has_observers(&self) -> bool {
        let registry = &self.db.inner.coprocessors;
        self.descriptor()
            .coprocessors()
            .iter()
            .any(|(_, s)| registry.is_observer(&s.class_name))
    }

    /// Writes one row's cells through `region`, atomically. The callers build the cells in
    /// each attempt of `on_region`: they move into the region, and a retry (the region was
    /// closed by a split or merge) needs them again. `mutations` is how many client
    /// mutations the cells are (a RowMutations is several): the region's write request
    /// count grows by that, as HBase's `batchMutate` counts.
    fn write_cells(
        region: &Arc<Region>,
        row: &[u8],
        cells: Vec<Cell>,
        durability: Durability,
        mutations: u64,
    ) -> Result<()> {
        region.mutate_row_counted(row, durability, mutations, |_, _| {
            Ok::<_, Error>((cells, ()))
        })?;
        Ok(())
    }

    fn check_writable(&self) -> Result<Arc<TableDescriptor>> {
        // Every write passes here: the message is only built for a read-only Db.
        if self.db.inner.read_only.is_some() {
            self.db
                .inner
                .ensure_writable(&format!("write to table {}", self.handle.name))?;
        }
        let desc = self.descriptor();
        if desc.read_only {
            return Err(invalid(format!("table {} is read-only", desc.name)));
        }
        Ok(desc)
    }

    /// HBase's `Table.put`.
    ///
    /// ```
    /// use regionkv::{Error, Get, Put};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// table.put(&Put::new("r").add_column("cf", "q", "v"))?;
    /// assert_eq!(table.get(&Get::new("r"))?.value(b"cf", b"q"), Some(&b"v"[..]));
    /// // A put needs a row and at least one column.
    /// assert!(matches!(table.put(&Put::new("r")), Err(Error::InvalidArgument(_))));
    /// let no_row = Put::new("").add_column("cf", "q", "v");
    /// assert!(matches!(table.put(&no_row), Err(Error::InvalidArgument(_))));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn put(&self, put: &Put) -> Result<()> {
        self.check_writable()?;
        self.on_region(&put.row, |r| {
            let Some(host) = self.host(r) else {
                return Self::write_cells(r, &put.row, put_cells(put)?, put.durability, 1);
            };
            // HBase's prePut (may change the put or bypass it), the write, postPut.
            let mut p = put.clone();
            let bypassed = host.exec(Bypass::Allowed, |o, c| o.pre_put(c, &mut p))?;
            same_row(&p.row, &put.row)?;
            if !bypassed {
                let cells = put_cells(&p)?;
                let (_, now) = r.mutate_row_counted(&p.row, p.durability, 1, |_, now| {
                    Ok::<_, Error>((cells, now))
                })?;
                // postPut sees the timestamps the cells were written with.
                p.stamp_latest(now);
            }
            host.exec(Bypass::Refused, |o, c| o.post_put(c, &p))?;
            Ok(())
        })
    }

    /// Several puts; each row is atomic, the whole is not (HBase's `put(List)`). Every put
    /// is checked first (a put without columns, an empty row, a negative timestamp: the
    /// call fails and nothing is written, as HBase's client validates a list before sending
    /// it); then every put is attempted, in one batch (rows of a region share a WAL write),
    /// and the first failure, in the order given, is returned.
    ///
    /// ```
    /// use regionkv::{Put, Scan};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// table.put_all(&[
    ///     Put::new("a").add_column("cf", "q", "1"),
    ///     Put::new("b").add_column("cf", "q", "2"),
    /// ])?;
    /// assert_eq!(table.scan(&Scan::new())?.count(), 2);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn put_all(&self, puts: &[Put]) -> Result<()> {
        let batch: Vec<WriteRef<'_>> = puts.iter().map(WriteRef::Put).collect();
        self.write_batch_checked(&batch)?.into_iter().collect()
    }

    /// HBase's `Table.delete`.
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
    /// table.delete(&Delete::new("r").add_columns("cf", "a"))?;
    /// assert_eq!(table.get(&Get::new("r"))?.len(), 1);
    /// table.delete(&Delete::new("r"))?; // the whole row
    /// assert!(!table.exists(&Get::new("r"))?);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn delete(&self, delete: &Delete) -> Result<()> {
        let desc = self.check_writable()?;
        self.on_region(&delete.row, |r| {
            let Some(host) = self.host(r) else {
                let cells = delete_cells(delete, &desc)?;
                return Self::write_cells(r, &delete.row, cells, delete.durability, 1);
            };
            let mut d = delete.clone();
            let bypassed = host.exec(Bypass::Allowed, |o, c| o.pre_delete(c, &mut d))?;
            same_row(&d.row, &delete.row)?;
            if !bypassed {
                Self::write_cells(r, &d.row, delete_cells(&d, &desc)?, d.durability, 1)?;
            }
            host.exec(Bypass::Refused, |o, c| o.post_delete(c, &d))?;
            Ok(())
        })
    }

    /// Several deletes; each row is atomic. Every delete is attempted, in one batch; the
    /// first failure, in the order given, is returned.
    ///
    /// ```
    /// use regionkv::{Delete, Put, Scan};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// for row in ["a", "b", "c"] {
    ///     table.put(&Put::new(row).add_column("cf", "q", "v"))?;
    /// }
    /// table.delete_all(&[Delete::new("a"), Delete::new("c")])?;
    /// let rows: Vec<Vec<u8>> = table
    ///     .scan(&Scan::new())?
    ///     .map(|r| r.map(|r| r.row().to_vec()))
    ///     .collect::<Result<_, _>>()?;
    /// assert_eq!(rows, [b"b".to_vec()]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn delete_all(&self, deletes: &[Delete]) -> Result<()> {
        let batch: Vec<WriteRef<'_>> = deletes.iter().map(WriteRef::Delete).collect();
        self.write_batch(&batch).into_iter().collect()
    }

    /// HBase's `Table.mutateRow`: puts and deletes of one row, atomically.
    ///
    /// ```
    /// use regionkv::{Delete, Error, Get, Put, RowMutations};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// table.put(&Put::new("r").add_column("cf", "old", "x"))?;
    /// let rm = RowMutations::new("r")
    ///     .add_mutation(Put::new("r").add_column("cf", "new", "y"))
    ///     .add_mutation(Delete::new("r").add_columns("cf", "old"));
    /// table.mutate_row(&rm)?;
    /// let r = table.get(&Get::new("r"))?;
    /// assert_eq!(r.value(b"cf", b"new"), Some(&b"y"[..]));
    /// assert!(!r.contains_column(b"cf", b"old"));
    /// // Every mutation must be of the same row.
    /// let bad = RowMutations::new("r").add_mutation(Put::new("other").add_column("cf", "q", "v"));
    /// assert!(matches!(table.mutate_row(&bad), Err(Error::InvalidArgument(_))));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn mutate_row(&self, rm: &RowMutations) -> Result<()> {
        let desc = self.check_writable()?;
        check_row(&rm.row)?;
        for m in &rm.mutations {
            if m.row() != rm.row.as_slice() {
                return Err(invalid(format!(
                    "The row in {} doesn't match the original one {}",
                    regionkv_cell::bytes::to_string_binary(m.row()),
                    regionkv_cell::bytes::to_string_binary(&rm.row)
                )));
            }
        }
        let durability = strongest_durability(rm.mutations.iter().map(|m| match m {
            Mutation::Put(p) => p.durability,
            Mutation::Delete(d) => d.durability,
        }));
        let n = rm.mutations.len() as u64;
        self.on_region(&rm.row, |r| {
            let host = self.host(r);
            // HBase runs prePut / preDelete for each mutation of the row's batch; a
            // bypassed one is left out, and still gets its post hook.
            let mut kept = Vec::with_capacity(rm.mutations.len());
            for m in &rm.mutations {
                let mut m = m.clone();
                let bypassed = match (&host, &mut m) {
                    (None, _) => false,
                    (Some(h), Mutation::Put(p)) => {
                        h.exec(Bypass::Allowed, |o, c| o.pre_put(c, p))?
                    }
                    (Some(h), Mutation::Delete(d)) => {
                        h.exec(Bypass::Allowed, |o, c| o.pre_delete(c, d))?
                    }
                };
                same_row(m.row(), &rm.row)?;
                kept.push((m, bypassed));
            }
            let mut cells = Vec::new();
            for (m, bypassed) in &kept {
                if !bypassed {
                    cells.extend(mutation_cells(m, &desc)?);
                }
            }
            let (_, now) = r.mutate_row_counted(&rm.row, durability, n, |_, now| {
                Ok::<_, Error>((cells, now))
            })?;
            if let Some(h) = &host {
                for (m, _) in &mut kept {
                    if let Mutation::Put(p) = m {
                        // postPut sees the timestamps the cells were written with.
                        p.stamp_latest(now);
                    }
                }
                for (m, _) in &kept {
                    match m {
                        Mutation::Put(p) => h.exec(Bypass::Refused, |o, c| o.post_put(c, p))?,
                        Mutation::Delete(d) => {
                            h.exec(Bypass::Refused, |o, c| o.post_delete(c, d))?
                        }
                    };
                }
            }
            Ok(())
        })
    }

    /// HBase's `Table.get`.
    ///
    /// ```
    /// use regionkv::{Error, Get, Put};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// table.put(&Put::new("r").add_column("cf", "a", "1").add_column("cf", "b", "2"))?;
    /// let r = table.get(&Get::new("r"))?;
    /// assert_eq!(r.row(), b"r");
    /// assert_eq!(r.len(), 2);
    /// assert!(table.get(&Get::new("missing"))?.is_empty());
    /// assert!(matches!(table.get(&Get::new("")), Err(Error::InvalidArgument(_))));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn get(&self, get: &Get) -> Result<RowResult> {
        check_row(&get.row)?;
        // Borrowed unless an exact timestamp narrows it: no copy of the query per get.
        let q = match get.exact_ts {
            Some(ts) => {
                let mut q = get.query.clone();
                q.time_range = TimeRange::at(ts)?;
                std::borrow::Cow::Owned(q)
            }
            None => std::borrow::Cow::Borrowed(&get.query),
        };
        self.on_region(&get.row, |region| {
            let filter = get.filter.as_ref().map(|f| f.box_clone());
            let Some(host) = self.host(region) else {
                return Ok(RowResult::new(region.get_filtered(&get.row, &q, filter)?));
            };
            // HBase's preGetOp (its cells come first; with bypass they are the answer),
            // the read, postGetOp.
            let mut cells = Vec::new();
            if host.exec(Bypass::Allowed, |o, c| o.pre_get(c, get, &mut cells))? {
                return Ok(RowResult::new(cells));
            }
            cells.extend(region.get_filtered(&get.row, &q, filter)?);
            host.exec(Bypass::Refused, |o, c| o.post_get(c, get, &mut cells))?;
            Ok(RowResult::new(cells))
        })
    }

    /// Several gets, in order (HBase's `get(List)`).
    ///
    /// ```
    /// use regionkv::{Get, Put};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// table.put(&Put::new("a").add_column("cf", "q", "1"))?;
    /// let results = table.get_all(&[Get::new("a"), Get::new("b")])?;
    /// assert_eq!(results[0].value(b"cf", b"q"), Some(&b"1"[..]));
    /// assert!(results[1].is_empty());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn get_all(&self, gets: &[Get]) -> Result<Vec<RowResult>> {
        gets.iter().map(|g| self.get(g)).collect()
    }

    /// Whether `get` finds anything (HBase's `exists`).
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
    /// assert!(table.exists(&Get::new("r"))?);
    /// assert!(!table.exists(&Get::new("r").add_column("cf", "other"))?);
    /// assert!(!table.exists(&Get::new("s"))?);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn exists(&self, get: &Get) -> Result<bool> {
        Ok(!self.get(get)?.is_empty())
    }

    /// HBase's `Table.getScanner`: an iterator of rows that streams region by region.
    ///
    /// ```
    /// use regionkv::{ColumnFamilyDescriptor, Put, Scan, TableDescriptor};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// let desc = TableDescriptor::new("t", vec![ColumnFamilyDescriptor::new(b"cf")?])?;
    /// db.admin().create_table_with_splits(&desc, vec![b"b".to_vec()])?; // two regions
    /// let table = db.table("t")?;
    /// for row in ["a", "b", "c"] {
    ///     table.put(&Put::new(row).add_column("cf", "q", row))?;
    /// }
    /// let rows: Vec<Vec<u8>> = table
    ///     .scan(&Scan::new())?
    ///     .map(|r| r.map(|r| r.row().to_vec()))
    ///     .collect::<Result<_, _>>()?;
    /// assert_eq!(rows, [b"a".to_vec(), b"b".to_vec(), b"c".to_vec()]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn scan(&self, scan: &Scan) -> Result<ResultScanner> {
        let mut spec = scan.inner.clone();
        if let Some(ts) = scan.exact_ts {
            spec.query.time_range = TimeRange::at(ts)?;
        }
        let map = self.map()?;
        let first = if spec.reversed {
            if spec.start_row.is_empty() {
                map.len().saturating_sub(1)
            } else {
                map.index_of(&spec.start_row)
            }
        } else {
            map.index_of(&spec.start_row)
        };
        let region = map
            .regions()
            .get(first)
            .cloned()
            .ok_or_else(|| Error::TableNotEnabled(self.handle.name.clone()))?;
        Ok(ResultScanner {
            // A read-only view changes only by `Db::refresh`, which swaps whole maps: a
            // scan keeps the map it started on, so it never mixes two views.
            pinned: self.db.inner.read_only.is_some().then(|| map.clone()),
            table: self.clone(),
            spec,
            filter: scan.filter.as_ref().map(|f| f.box_clone()),
            region: Some(region),
            scanner: None,
            rows_left: scan.inner.limit,
            last_row: None,
            moved_deadline: None,
        })
    }

    /// HBase's `Table.increment`: adds to counters atomically; returns the new values
    /// (empty with `return_results(false)`).
    ///
    /// ```
    /// use regionkv::{Error, Increment, Put};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// let inc = Increment::new("r").add_column("cf", "hits", 2).add_column("cf", "misses", 1);
    /// let r = table.increment(&inc)?;
    /// assert_eq!((r.counter(b"cf", b"hits"), r.counter(b"cf", b"misses")), (Some(2), Some(1)));
    /// let r = table.increment(&Increment::new("r").add_column("cf", "hits", 3))?;
    /// assert_eq!(r.counter(b"cf", b"hits"), Some(5));
    /// // Counters are 8-byte big-endian values.
    /// table.put(&Put::new("r").add_column("cf", "name", "abc"))?;
    /// let bad = table.increment(&Increment::new("r").add_column("cf", "name", 1));
    /// assert!(matches!(bad, Err(Error::InvalidArgument(msg)) if msg.contains("3 bytes wide")));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn increment(&self, inc: &Increment) -> Result<RowResult> {
        self.read_modify_write(inc)
    }

    /// Adds `amount` to one counter and returns the new value (HBase's
    /// `incrementColumnValue`).
    ///
    /// ```
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// assert_eq!(table.increment_column_value(b"r", b"cf", b"n", 10)?, 10);
    /// assert_eq!(table.increment_column_value(b"r", b"cf", b"n", -3)?, 7);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn increment_column_value(
        &self,
        row: &[u8],
        family: &[u8],
        qualifier: &[u8],
        amount: i64,
    ) -> Result<i64> {
        let r = self.increment(&Increment::new(row).add_column(family, qualifier, amount))?;
        r.counter(family, qualifier)
            .ok_or_else(|| invalid("the increment returned no value"))
    }

    /// HBase's `Table.append`.
    ///
    /// ```
    /// use regionkv::Append;
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// let r = table.append(&Append::new("r").add_column("cf", "log", "a"))?;
    /// assert_eq!(r.value(b"cf", b"log"), Some(&b"a"[..]));
    /// let r = table.append(&Append::new("r").add_column("cf", "log", "bc"))?;
    /// assert_eq!(r.value(b"cf", b"log"), Some(&b"abc"[..]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn append(&self, app: &Append) -> Result<RowResult> {
        self.read_modify_write(app)
    }

    /// HBase 2.x's `Table.checkAndMutate`: checks and acts atomically under the row lock.
    ///
    /// ```
    /// use regionkv::{CheckAndMutate, Get, Put};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// let claim = |who: &str| {
    ///     CheckAndMutate::builder("lock")
    ///         .if_not_exists("cf", "owner")
    ///         .then_put(Put::new("lock").add_column("cf", "owner", who))
    /// };
    /// assert!(table.check_and_mutate(&claim("alice"))?.success);
    /// assert!(!table.check_and_mutate(&claim("bob"))?.success);
    /// let owner = table.get(&Get::new("lock"))?;
    /// assert_eq!(owner.value(b"cf", b"owner"), Some(&b"alice"[..]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn check_and_mutate(&self, cam: &CheckAndMutate) -> Result<CheckAndMutateResult> {
        let desc = self.check_writable()?;
        check_row(&cam.row)?;
        let action_row = match &cam.action {
            CheckAction::Put(p) => &p.row,
            CheckAction::Delete(d) => &d.row,
            CheckAction::RowMutations(m) => &m.row,
            CheckAction::Increment(i) => &i.row,
            CheckAction::Append(a) => &a.row,
        };
        if action_row != &cam.row {
            return Err(invalid("Action's getRow must match"));
        }
        if let Condition::Column { family, .. } = &cam.condition
            && desc.family(family).is_none()
        {
            return Err(invalid(format!(
                "Column family {} does not exist in table {}",
                regionkv_cell::bytes::to_string_binary(family),
                desc.name
            )));
        }
        let durability = match &cam.action {
            CheckAction::Put(p) => p.durability,
            CheckAction::Delete(d) => d.durability,
            CheckAction::RowMutations(m) => {
                strongest_durability(m.mutations.iter().map(|m| match m {
                    Mutation::Put(p) => p.durability,
                    Mutation::Delete(d) => d.durability,
                }))
            }
            CheckAction::Increment(i) => i.durability,
            CheckAction::Append(a) => a.durability,
        };
        // HBase's checkAndMutate counts its action's mutations (`batchMutate`) only when
        // the check passes; the check itself is a get, counted as reads are.
        let mutations = match &cam.action {
            CheckAction::RowMutations(m) => m.mutations.len() as u64,
            _ => 1,
        };
        let host_of = |region: &Region| self.host(region);
        if let Some(h) = self.on_region(&cam.row, |region| Ok(host_of(region)))? {
            // HBase's preCheckAndMutate, before the row lock: a bypass with a result
            // answers instead.
            let mut early = None;
            let bypassed = h.exec(Bypass::Allowed, |o, c| {
                early = o.pre_check_and_mutate(c, cam)?;
                Ok(())
            })?;
            if let (true, Some(result)) = (bypassed, early) {
                return Ok(result);
            }
            let mut result = self.check_and_mutate_inner(cam, &desc, durability, mutations)?;
            h.exec(Bypass::Refused, |o, c| {
                result = o.post_check_and_mutate(c, cam, std::mem::take(&mut result))?;
                Ok(())
            })?;
            return Ok(result);
        }
        self.check_and_mutate_inner(cam, &desc, durability, mutations)
    }

    /// The check and the action of [`Self::check_and_mutate`], under the row lock. The
    /// action's own hooks run as HBase's batch path runs them for it: `pre_put` /
    /// `pre_delete` (bypass leaves the mutation out) once the check passed, the post hooks
    /// after the write.
    fn check_and_mutate_inner(
        &self,
        cam: &CheckAndMutate,
        desc: &TableDescriptor,
        durability: Durability,
        mutations: u64,
    ) -> Result<CheckAndMutateResult> {
        let desc = desc.clone();
        let out = self.on_region(&cam.row, |region| {
            let host = self.host(region);
            let mut applied: Vec<Mutation> = Vec::new();
            let (_, out) =
                region.mutate_row_counted(&cam.row, durability, mutations, |r, now| {
                    let Some(checked_ts) = self.check(r, cam)? else {
                        return Ok((Vec::new(), (false, None)));
                    };
                    let put_ts = now.max(checked_ts.unwrap_or(now));
                    let stamp = |mut cells: Vec<Cell>| {
                        for c in &mut cells {
                            if c.cell_type() == CellType::Put && c.timestamp() == LATEST_TIMESTAMP {
                                c.set_timestamp(put_ts);
                            }
                        }
                        cells
                    };
                    // The action's own pre hooks, once the check passed (HBase's batch path
                    // under the check's row lock); bypassed mutations are left out.
                    let mut pre = |m: &Mutation| -> Result<Option<Mutation>> {
                        let mut m = m.clone();
                        let bypassed = match (&host, &mut m) {
                            (None, _) => false,
                            (Some(h), Mutation::Put(p)) => {
                                h.exec(Bypass::Allowed, |o, c| o.pre_put(c, p))?
                            }
                            (Some(h), Mutation::Delete(d)) => {
                                h.exec(Bypass::Allowed, |o, c| o.pre_delete(c, d))?
                            }
                        };
                        same_row(m.row(), &cam.row)?;
                        if let Mutation::Put(p) = &mut m {
                            // What `stamp` gives its cells, for postPut to see.
                            p.stamp_latest(put_ts);
                        }
                        applied.push(m.clone());
                        Ok((!bypassed).then_some(m))
                    };
                    Ok(match &cam.action {
                        CheckAction::Put(p) => match pre(&Mutation::Put(p.clone()))? {
                            Some(m) => (stamp(mutation_cells(&m, &desc)?), (true, None)),
                            None => (Vec::new(), (true, None)),
                        },
                        CheckAction::Delete(d) => match pre(&Mutation::Delete(d.clone()))? {
                            Some(m) => (mutation_cells(&m, &desc)?, (true, None)),
                            None => (Vec::new(), (true, None)),
                        },
                        CheckAction::RowMutations(m) => {
                            let mut cells = Vec::new();
                            for x in &m.mutations {
                                if x.row() != cam.row.as_slice() {
                                    return Err(invalid("Action's getRow must match"));
                                }
                                if let Some(x) = pre(x)? {
                                    cells.extend(mutation_cells(&x, &desc)?);
                                }
                            }
                            (stamp(cells), (true, None))
                        }
                        CheckAction::Increment(i) => {
                            let cells = increment_cells(r, i, now)?;
                            let result = i.return_results.then(|| RowResult::new(cells.clone()));
                            (last_per_column(&cells), (true, result))
                        }
                        CheckAction::Append(a) => {
                            let cells = append_cells(r, a, now)?;
                            let result = a.return_results.then(|| RowResult::new(cells.clone()));
                            (last_per_column(&cells), (true, result))
                        }
                    })
                })?;
            if let Some(h) = &host {
                for m in &applied {
                    match m {
                        Mutation::Put(p) => h.exec(Bypass::Refused, |o, c| o.post_put(c, p))?,
                        Mutation::Delete(d) => {
                            h.exec(Bypass::Refused, |o, c| o.post_delete(c, d))?
                        }
                    };
                }
            }
            Ok(out)
        })?;
        Ok(CheckAndMutateResult {
            success: out.0,
            result: out.1,
        })
    }

    /// An increment or an append: its pre hooks (a bypass with a result answers
    /// instead), the read-modify-write under the row lock, its post hooks (chained).
    fn read_modify_write<T: ReadModifyWrite>(&self, given: &T) -> Result<RowResult> {
        self.check_writable()?;
        self.on_region(given.row(), |region| {
            let host = self.host(region);
            let mut op = given.clone();
            if let Some(h) = &host {
                let mut early = None;
                let bypassed = h.exec(Bypass::Allowed, |o, c| {
                    early = op.pre_hook(o, c)?;
                    Ok(())
                })?;
                same_row(op.row(), given.row())?;
                if let (true, Some(result)) = (bypassed, early) {
                    return Ok(result);
                }
            }
            let (_, cells) = region.mutate_row_with(op.row(), op.durability(), |r, now| {
                let cells = op.cells(r, now)?;
                Ok::<_, Error>((last_per_column(&cells), cells))
            })?;
            let mut result = if op.return_results() {
                RowResult::new(cells)
            } else {
                RowResult::default()
            };
            if let Some(h) = &host {
                h.exec(Bypass::Refused, |o, c| {
                    result = op.post_hook(o, c, std::mem::take(&mut result))?;
                    Ok(())
                })?;
            }
            Ok(result)
        })
    }

    /// Evaluates the condition: `None` when it fails, else the timestamp of the checked
    /// cell (`Some(None)` when the check passed on an absent column).
    fn check(&self, region: &Region, cam: &CheckAndMutate) -> Result<Option<Option<i64>>> {
        match &cam.condition {
            Condition::Column {
                family,
                qualifier,
                op,
                value,
            } => {
                let q = ReadQuery::default()
                    .column(family, qualifier)
                    .time_range(cam.time_range);
                let cells = region.get(&cam.row, &q)?;
                let expected = value.as_deref().unwrap_or_default();
                let cell = cells.first();
                // HBase's HRegion.checkAndMutate: with no (or an empty) expected value, an
                // absent or empty column matches every operator but NOT_EQUAL; a non-empty
                // stored value is compared as usual.
                let ok = match cell {
                    None => expected.is_empty() && *op != CompareOperator::NotEqual,
                    Some(c) if expected.is_empty() && c.value().is_empty() => {
                        *op != CompareOperator::NotEqual
                    }
                    Some(c) => compare_matches(*op, expected, c.value())?,
                };
                Ok(ok.then(|| cell.map(Cell::timestamp)))
            }
            Condition::Filter(f) => {
                let q = ReadQuery::default().time_range(cam.time_range);
                let cells = region.get_filtered(&cam.row, &q, Some(f.box_clone()))?;
                Ok((!cells.is_empty()).then(|| cells.first().map(Cell::timestamp)))
            }
        }
    }

    /// HBase's `Table.batch`: every action runs on its own (no atomicity across
    /// actions); one result per action, in order — the row for a Get, the new values for
    /// an Increment or Append, an empty result for the others. Each run of consecutive
    /// puts and deletes is written as one batch (rows of a region share a WAL write); the
    /// other actions run one by one, in order.
    ///
    /// ```
    /// use regionkv::{BatchAction, Delete, Get, Increment, Put};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// let results = table.batch(&[
    ///     BatchAction::Put(Put::new("a").add_column("cf", "q", "1")),
    ///     BatchAction::Increment(Increment::new("n").add_column("cf", "c", 5)),
    ///     BatchAction::Delete(Delete::new("zzz")),
    ///     BatchAction::Get(Get::new("a")),
    /// ]);
    /// assert_eq!(results.len(), 4);
    /// assert!(results.iter().all(|r| r.is_ok()));
    /// assert!(matches!(&results[1], Ok(r) if r.counter(b"cf", b"c") == Some(5)));
    /// assert!(matches!(&results[3], Ok(r) if r.value(b"cf", b"q") == Some(b"1")));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn batch(&self, actions: &[BatchAction]) -> Vec<Result<RowResult>> {
        let mut results = Vec::with_capacity(actions.len());
        let mut writes: Vec<WriteRef<'_>> = Vec::new();
        for a in actions {
            match a {
                BatchAction::Put(p) => writes.push(WriteRef::Put(p)),
                BatchAction::Delete(d) => writes.push(WriteRef::Delete(d)),
                other => {
                    self.write_batch_into(&mut writes, &mut results);
                    results.push(self.batch_action(other));
                }
            }
        }
        self.write_batch_into(&mut writes, &mut results);
        results
    }

    /// One action of a batch on its own.
    fn batch_action(&self, action: &BatchAction) -> Result<RowResult> {
        match action {
            BatchAction::Put(p) => self.put(p).map(|()| RowResult::default()),
            BatchAction::Delete(d) => self.delete(d).map(|()| RowResult::default()),
            BatchAction::Get(g) => self.get(g),
            BatchAction::Increment(i) => self.increment(i),
            BatchAction::Append(x) => self.append(x),
            BatchAction::RowMutations(m) => self.mutate_row(m).map(|()| RowResult::default()),
        }
    }

    /// Writes the pending run of `writes` (emptying it) and adds their results.
    fn write_batch_into(
        &self,
        writes: &mut Vec<WriteRef<'_>>,
        results: &mut Vec<Result<RowResult>>,
    ) {
        if !writes.is_empty() {
            results.extend(
                self.write_batch(writes)
                    .into_iter()
                    .map(|r| r.map(|()| RowResult::default())),
            );
            writes.clear();
        }
    }

    /// A buffering writer (HBase's `BufferedMutator`) with HBase's 2 MiB write buffer.
    ///
    /// ```
    /// use regionkv::{Get, Put};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// let mutator = table.buffered_mutator();
    /// mutator.mutate(Put::new("r").add_column("cf", "q", "v"))?;
    /// assert!(!table.exists(&Get::new("r"))?); // still buffered
    /// mutator.flush()?;
    /// assert!(table.exists(&Get::new("r"))?);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn buffered_mutator(&self) -> crate::BufferedMutator {
        crate::BufferedMutator::new(self.clone(), crate::buffered::DEFAULT_WRITE_BUFFER)
    }
}

/// The strongest durability a set of mutations asks for (HBase's batch rule).
fn strongest_durability(ds: impl Iterator<Item = Durability>) -> Durability {
    let rank = |d: Durability| match d {
        Durability::UseDefault => 0,
        Durability::SkipWal => 1,
        Durability::AsyncWal => 2,
        Durability::SyncWal => 3,
        Durability::FsyncWal => 4,
    };
    ds.max_by_key(|d| rank(*d))
        .unwrap_or(Durability::UseDefault)
}

/// How long an operation retries while its region is being split or merged.
///
/// ```
/// use regionkv::table::REGION_RETRY_FOR;
/// use regionkv::{Get, Put};
/// use std::time::Duration;
///
/// assert_eq!(REGION_RETRY_FOR, Duration::from_secs(60));
/// # let dir = tempfile::tempdir()?;
/// # let options = regionkv::DbOptions::default().background(false);
/// # let db = regionkv::Db::open(dir.path(), options)?;
/// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
/// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
/// # let table = db.table("t")?;
/// // Reads and writes follow their row to the region now holding it.
/// table.put(&Put::new("x").add_column("cf", "q", "v"))?;
/// db.admin().split_at("t", b"m")?;
/// assert!(table.exists(&Get::new("x"))?);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub const REGION_RETRY_FOR: std::time::Duration = std::time::Duration::from_secs(60);

/// True for the errors of a region that a split or merge has just closed.
fn region_moved(e: &Error) -> bool {
    matches!(e, Error::RegionOffline { .. } | Error::WrongRegion { .. })
}

/// Rows of a scan, streamed region by region (HBase's `ResultScanner`). A region's rows
/// are read through one region scanner at one MVCC read point; the next region is looked
/// up when the current one is done, so regions that split meanwhile are followed.
///
/// ```
/// use regionkv::{ColumnFamilyDescriptor, Put, ResultScanner, Scan, TableDescriptor};
/// # let dir = tempfile::tempdir()?;
/// # let options = regionkv::DbOptions::default().background(false);
/// # let db = regionkv::Db::open(dir.path(), options)?;
/// let desc = TableDescriptor::new("t", vec![ColumnFamilyDescriptor::new(b"cf")?])?;
/// db.admin().create_table_with_splits(&desc, vec![b"m".to_vec()])?;
/// let table = db.table("t")?;
/// table.put(&Put::new("a").add_column("cf", "q", "1"))?;
/// table.put(&Put::new("x").add_column("cf", "q", "2"))?;
/// let mut scanner: ResultScanner = table.scan(&Scan::new())?;
/// let first = scanner.next().transpose()?; // from the first region
/// assert_eq!(first.map(|r| r.row().to_vec()), Some(b"a".to_vec()));
/// let second = scanner.next().transpose()?; // from the second
/// assert_eq!(second.map(|r| r.row().to_vec()), Some(b"x".to_vec()));
/// assert!(scanner.next().is_none());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct ResultScanner {
    table: Table,
    spec: RegionScan,
    filter: Option<Box<dyn regionkv_region::filter::Filter>>,
    region: Option<Arc<Region>>,
    scanner: Option<RegionScanner>,
    rows_left: Option<u64>,
    last_row: Option<Vec<u8>>,
    /// Set while retrying a region that a split or merge closed.
    moved_deadline: Option<std::time::Instant>,
    /// The region map a scan of a read-only open keeps to its end (see `Table::scan`).
    pinned: Option<Arc<RegionMap>>,
}

impl ResultScanner {
    /// The map to move on through: the pinned one of a read-only view, else the table's
    /// current one (a split or merge may have replaced regions).
    fn region_map(&self) -> Result<Arc<RegionMap>> {
        match &self.pinned {
            Some(map) => Ok(map.clone()),
            None => self.table.map(),
        }
    }

    /// The region now holding the position a closed region was to be scanned from.
    fn relocate(&self, closed: &Region) -> Result<Arc<Region>> {
        let map = self.region_map()?;
        let info = closed.info();
        let at = match (&self.last_row, self.spec.reversed) {
            (Some(last), _) => last.clone(),
            (None, false) => info.start_key.clone().max(self.spec.start_row.clone()),
            (None, true) if self.spec.start_row.is_empty() => {
                return map
                    .regions()
                    .last()
                    .cloned()
                    .ok_or_else(|| Error::TableNotEnabled(self.table.handle.name.clone()));
            }
            (None, true) => self.spec.start_row.clone(),
        };
        map.locate(&at)
            .cloned()
            .ok_or_else(|| Error::TableNotEnabled(self.table.handle.name.clone()))
    }

    /// The region after the current one in scan order, or `None` at the end.
    fn next_region(&self, current: &Region) -> Result<Option<Arc<Region>>> {
        let info = current.info();
        let map = self.region_map()?;
        if self.spec.reversed {
            if info.start_key.is_empty()
                || (!self.spec.stop_row.is_empty() && info.start_key <= self.spec.stop_row)
            {
                return Ok(None);
            }
            let i = map.index_of(&info.start_key);
            Ok(i.checked_sub(1).and_then(|j| map.regions().get(j).cloned()))
        } else {
            if info.end_key.is_empty() {
                return Ok(None);
            }
            if !self.spec.stop_row.is_empty() {
                let past = if self.spec.include_stop {
                    info.end_key > self.spec.stop_row
                } else {
                    info.end_key >= self.spec.stop_row
                };
                if past {
                    return Ok(None);
                }
            }
            Ok(map.locate(&info.end_key).cloned())
        }
    }

    fn next_result(&mut self) -> Result<Option<RowResult>> {
        loop {
            let Some(region) = self.region.clone() else {
                return Ok(None);
            };
            if self.scanner.is_none() {
                let mut spec = self.spec.clone();
                spec.limit = self.rows_left;
                // Resume after the last row returned: a region that replaced the one
                // scanned before (a merge) may cover rows already returned.
                if let Some(last) = &self.last_row {
                    spec.start_row = last.clone();
                    spec.include_start = false;
                }
                let mut filter = self.filter.as_ref().map(|f| f.box_clone());
                if let Some(host) = self.table.host(&region) {
                    // HBase's preScannerOpen, as each region's scanner opens.
                    let mut scan = Scan::of_spec(spec, filter);
                    host.exec(Bypass::Refused, |o, c| o.pre_scanner_open(c, &mut scan))?;
                    (spec, filter) = scan.into_spec();
                }
                match region.scan_filtered(&spec, filter) {
                    Ok(s) => self.scanner = Some(s),
                    Err(e) => {
                        let e = Error::from(e);
                        if !region_moved(&e)
                            || self.table.db.inner.is_offline(region.encoded_name())
                        {
                            return Err(e);
                        }
                        // A split or merge closed the region before its scanner opened:
                        // look the position up again (bounded like the other retries).
                        let deadline = self
                            .moved_deadline
                            .get_or_insert_with(|| std::time::Instant::now() + REGION_RETRY_FOR);
                        if std::time::Instant::now() >= *deadline {
                            return Err(e);
                        }
                        std::thread::sleep(std::time::Duration::from_millis(2));
                        self.region = Some(self.relocate(&region)?);
                        continue;
                    }
                }
                self.moved_deadline = None;
            }
            let Some(scanner) = self.scanner.as_mut() else {
                continue;
            };
            match scanner.next_result()? {
                Some(cells) => {
                    let row = cells.first().map(|c| c.row());
                    if row != self.last_row.as_deref() {
                        // The limit counts rows; the pieces of a row split by `batch`
                        // all belong to the row that was counted.
                        if self.rows_left == Some(0) {
                            self.region = None;
                            self.scanner = None;
                            return Ok(None);
                        }
                        if let Some(n) = &mut self.rows_left {
                            *n -= 1;
                        }
                        // Reuse the buffer: one allocation per scan, not per row.
                        let last = self.last_row.get_or_insert_with(Vec::new);
                        last.clear();
                        last.extend_from_slice(row.unwrap_or_default());
                    }
                    return Ok(Some(RowResult::new(cells)));
                }
                None => {
                    self.scanner = None;
                    self.region = if self.rows_left == Some(0) {
                        None
                    } else {
                        self.next_region(&region)?
                    };
                }
            }
        }
    }
}

impl Iterator for ResultScanner {
    type Item = Result<RowResult>;
    fn next(&mut self) -> Option<Self::Item> {
        self.next_result().transpose()
    }
}
