//! HBase's AggregateImplementation endpoint and its AggregationClient: rowCount, sum, min,
//! max, avg, std and median of a column, computed per region and reduced on the client
//! side, with HBase's `LongColumnInterpreter` (a cell counts when its value is 8 bytes, a
//! big-endian signed long; every cell the scan returns is interpreted, whatever its
//! qualifier). The rules, each citing HBase's source, are in `docs/hbase-coprocessors.md`
//! section 3; what regionkv does differently is in `docs/coprocessors.md`.
//!
//! As in HBase, the endpoint must be loaded on the table: a `coprocessor$N` attribute
//! naming `org.apache.hadoop.hbase.coprocessor.AggregateImplementation` (the shell's
//! `alter 't', METHOD => 'table_att', 'coprocessor' => '|org.apache.hadoop.hbase.
//! coprocessor.AggregateImplementation||'`, or [`TableDescriptor::add_coprocessor`]).
//! Otherwise every call fails with [`Error::UnknownProtocol`].
//!
//! Why per region: HBase runs the server half in each region the scan overlaps and the
//! client reduces the partial results, and some answers depend on that grouping (avg and
//! std count the rows of regions that hold a value; median fails when a region in range
//! holds none). Each region's half here scans the region's share of the range through
//! the table's ordinary scanner, so a split or merge during the call is handled as any
//! scan handles it.
//!
//! [`TableDescriptor::add_coprocessor`]: crate::TableDescriptor::add_coprocessor

use crate::error::{Error, Result};
use crate::read::{RowResult, Scan};
use crate::table::Table;
use regionkv_region::coprocessor::AGGREGATE_IMPLEMENTATION;
use regionkv_region::filter::FirstKeyOnlyFilter;

/// HBase's service name of the endpoint (what `UnknownProtocolException` names).
pub const SERVICE: &str = "AggregateService";

/// HBase's `LongColumnInterpreter#getValue`: an 8-byte value as a big-endian long, any
/// other length as nothing.
pub fn long_value(value: &[u8]) -> Option<i64> {
    <[u8; 8]>::try_from(value).ok().map(i64::from_be_bytes)
}

/// `LongColumnInterpreter#add`: nothing on one side gives the other; longs wrap as Java's.
fn add(a: Option<i64>, b: Option<i64>) -> Option<i64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.wrapping_add(b)),
        (a, None) => a,
        (None, b) => b,
    }
}

/// The sum of the valid values among a row's cells (nothing when none is valid).
fn row_value(row: &RowResult) -> Option<i64> {
    row.cells()
        .iter()
        .fold(None, |acc, c| add(acc, long_value(c.value())))
}

/// One region's share of a call: the region's name and the rows of its part of the range.
struct RegionPart {
    name: String,
    rows: Vec<RowResult>,
}

/// The aggregation client of one table (HBase's `AggregationClient`, all methods with
/// the long interpreter). Made by [`Table::aggregation`].
///
/// ```
/// use regionkv::{Put, Scan, TableDescriptor, ColumnFamilyDescriptor};
/// # let dir = tempfile::tempdir()?;
/// # let db = regionkv::Db::open(dir.path(), regionkv::DbOptions::default().background(false))?;
/// let mut desc = TableDescriptor::new("t", vec![ColumnFamilyDescriptor::new(b"f")?])?;
/// desc.add_coprocessor("|org.apache.hadoop.hbase.coprocessor.AggregateImplementation||")?;
/// db.admin().create_table_with_splits(&desc, vec![b"m".to_vec()])?;
/// let table = db.table("t")?;
/// for (row, v) in [("a", 1i64), ("k", 5), ("q", 9)] {
///     table.put(&Put::new(row).add_column("f", "n", v.to_be_bytes()))?;
/// }
/// table.put(&Put::new("z").add_column("f", "n", "not a long"))?;
/// let agg = table.aggregation();
/// let scan = Scan::new().add_column("f", "n");
/// assert_eq!(agg.row_count(&scan)?, 4);
/// assert_eq!(agg.sum(&scan)?, Some(15));
/// assert_eq!((agg.min(&scan)?, agg.max(&scan)?), (Some(1), Some(9)));
/// // avg divides by rows: "z" holds no long but its region holds one, so it counts.
/// assert_eq!(agg.avg(&scan)?, 15.0 / 4.0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct AggregationClient {
    table: Table,
}

impl Table {
    /// The aggregation client of this table (HBase's `AggregationClient` with the
    /// `LongColumnInterpreter`); the table must load `AggregateImplementation`.
    pub fn aggregation(&self) -> AggregationClient {
        AggregationClient {
            table: self.clone(),
        }
    }
}

impl AggregationClient {
    /// HBase's `rowCount`: the rows the scan returns. Without a filter and without a
    /// qualifier the server half reads only each row's first cell (`FirstKeyOnlyFilter`).
    /// Any number of families; 0 for no rows.
    pub fn row_count(&self, scan: &Scan) -> Result<i64> {
        validate(scan, false)?;
        let mut scan = scan.clone();
        let any_qualifier = scan.inner.query.families.values().any(|q| !q.is_empty());
        if scan.filter.is_none() && !any_qualifier {
            scan.filter = Some(Box::new(FirstKeyOnlyFilter::new()));
        }
        let parts = self.per_region(&scan)?;
        Ok(parts
            .iter()
            .map(|p| p.rows.iter().filter(|r| !r.is_empty()).count() as i64)
            .sum())
    }

    /// HBase's `sum` over every valid value; `None` when there is none.
    pub fn sum(&self, scan: &Scan) -> Result<Option<i64>> {
        validate(scan, true)?;
        Ok(self
            .values(scan)?
            .into_iter()
            .fold(None, |acc, v| add(acc, Some(v))))
    }

    /// HBase's `min`; `None` when there is no valid value.
    pub fn min(&self, scan: &Scan) -> Result<Option<i64>> {
        validate(scan, true)?;
        Ok(self.values(scan)?.into_iter().min())
    }

    /// HBase's `max`; `None` when there is no valid value.
    pub fn max(&self, scan: &Scan) -> Result<Option<i64>> {
        validate(scan, true)?;
        Ok(self.values(scan)?.into_iter().max())
    }

    /// HBase's `avg`: the sum of the valid values divided by the number of **rows** (not
    /// cells) of the regions that hold at least one; NaN when none does.
    pub fn avg(&self, scan: &Scan) -> Result<f64> {
        validate(scan, true)?;
        let (mut sum, mut rows) = (None, 0i64);
        for part in self.per_region(scan)? {
            let region_sum = part.rows.iter().fold(None, |a, r| add(a, row_value(r)));
            if region_sum.is_some() {
                sum = add(sum, region_sum);
                rows += part.rows.len() as i64;
            }
        }
        Ok(divide(sum, rows))
    }

    /// HBase's `std`: the population standard deviation of the rows' values (a row's
    /// value is the sum of its valid cells), over the rows of the regions that hold a
    /// value; NaN when none does.
    pub fn std(&self, scan: &Scan) -> Result<f64> {
        validate(scan, true)?;
        let (mut sum, mut sum_sq, mut rows) = (None, None, 0i64);
        for part in self.per_region(scan)? {
            let (mut s, mut sq) = (None, None);
            for r in &part.rows {
                let v = row_value(r);
                s = add(s, v);
                sq = add(sq, v.map(|v| v.wrapping_mul(v)));
            }
            if s.is_some() {
                sum = add(sum, s);
                sum_sq = add(sum_sq, sq);
                rows += part.rows.len() as i64;
            }
        }
        let mean = divide(sum, rows);
        Ok((divide(sum_sq, rows) - mean * mean).sqrt())
    }

    /// HBase's `median`, which is a weighted, cumulative one: with one column, the value
    /// of the row just before the running sum of the values first passes half their
    /// total; with two or more columns (the first is the value, the last the weight), the
    /// same walk over the weights. `None` when the first row already passes half, or the
    /// rows end first. Needs a column; fails, as HBase's server half does, when a region
    /// in range holds no valid value.
    pub fn median(&self, scan: &Scan) -> Result<Option<i64>> {
        validate(scan, true)?;
        let (family, qualifiers) = scan
            .inner
            .query
            .families
            .iter()
            .next()
            .map(|(f, q)| (f.clone(), q.clone()))
            .unwrap_or_default();
        let mut qualifiers = qualifiers;
        qualifiers.sort();
        qualifiers.dedup();
        let (Some(value_q), weight_q) = (qualifiers.first().cloned(), qualifiers.get(1..)) else {
            return Err(Error::InvalidArgument(
                "median needs a column (Scan::add_column); HBase's client fails without one".into(),
            ));
        };
        let weight_q = weight_q.and_then(|w| w.last().cloned());
        // Server half: each region's sum of values and of weights.
        let parts = self.per_region(scan)?;
        let mut sums = Vec::with_capacity(parts.len());
        for part in &parts {
            let mut value_sum = None;
            let mut weight_sum = None;
            for r in &part.rows {
                let v = row_value(r);
                value_sum = add(value_sum, v);
                if weight_q.is_some() {
                    weight_sum = add(weight_sum, v);
                }
            }
            let Some(value_sum) = value_sum else {
                return Err(Error::InvalidArgument(format!(
                    "median: region {} holds no 8-byte value in the range (HBase's server \
                     fails this call with a NullPointerException)",
                    part.name
                )));
            };
            sums.push(if weight_q.is_some() {
                weight_sum.unwrap_or(i64::MIN)
            } else {
                value_sum
            });
        }
        // Client half (HBase's AsyncAggregationClient#findMedian): sums add as longs,
        // compare as doubles; the walk starts at the first region whose running sum passes
        // half (the last region if none does), from the sum before it.
        let total = sums.iter().fold(None, |a, &s| add(a, Some(s)));
        let half = divide(total, 2);
        let mut moving = None;
        let mut from = 0;
        for (i, &s) in sums.iter().enumerate() {
            from = i;
            let next = add(moving, Some(s));
            if divide(next, 1) > half {
                break;
            }
            moving = next;
        }
        // Then row by row: the value of the row before the one whose weight makes the
        // running sum pass half. A row without a valid weight adds nothing.
        let walk_q = weight_q.as_deref().unwrap_or(&value_q);
        let mut sum = moving;
        let mut value = None;
        for part in parts.get(from..).unwrap_or_default() {
            for r in &part.rows {
                sum = add(sum, r.value(&family, walk_q).and_then(long_value));
                if divide(sum, 1) > half {
                    return Ok(value);
                }
                value = r.value(&family, &value_q).and_then(long_value);
            }
        }
        Ok(None)
    }

    /// Every valid value of every cell the scan returns, region by region.
    fn values(&self, scan: &Scan) -> Result<Vec<i64>> {
        Ok(self
            .per_region(scan)?
            .iter()
            .flat_map(|p| p.rows.iter())
            .flat_map(|r| r.cells().iter().filter_map(|c| long_value(c.value())))
            .collect())
    }

    /// The server half's input: for each region the scan's range overlaps (HBase's
    /// `getStartKeysInRange`, the stop row included), the rows of its part of the range.
    fn per_region(&self, scan: &Scan) -> Result<Vec<RegionPart>> {
        if scan.inner.reversed {
            return Err(Error::InvalidArgument(
                "the aggregation client takes forward scans only".into(),
            ));
        }
        let start = scan.inner.start_row.clone();
        let stop = scan.inner.stop_row.clone();
        let mut out = Vec::new();
        for region in self.table.regions_in_range(&start, &stop)? {
            let info = region.info();
            if !region.table().has_coprocessor(AGGREGATE_IMPLEMENTATION) {
                return Err(Error::UnknownProtocol {
                    service: SERVICE.to_string(),
                    region: info.region_name(),
                });
            }
            let mut part = scan.clone();
            if info.start_key > start {
                part = part.with_start_row(&info.start_key, true);
            }
            if !info.end_key.is_empty() && (stop.is_empty() || info.end_key <= stop) {
                part = part.with_stop_row(&info.end_key, false);
            }
            // A region that starts at the stop row is in range (HBase includes it) but
            // its part is empty.
            let empty = !stop.is_empty() && info.start_key >= stop;
            let rows = if empty {
                Vec::new()
            } else {
                self.table.scan(&part)?.collect::<Result<Vec<_>>>()?
            };
            out.push(RegionPart {
                name: info.region_name(),
                rows,
            });
        }
        Ok(out)
    }
}

/// `LongColumnInterpreter#divideForAvg`: NaN when either side is nothing.
fn divide(sum: Option<i64>, rows: i64) -> f64 {
    match sum {
        Some(s) => s as f64 / rows as f64,
        None => f64::NAN,
    }
}

/// `AggregationHelper#validateParameters`: start before stop, and exactly one family
/// unless the family may be absent (rowCount).
fn validate(scan: &Scan, one_family: bool) -> Result<()> {
    let (start, stop) = (&scan.inner.start_row, &scan.inner.stop_row);
    if (start == stop && !start.is_empty()) || (start > stop && !stop.is_empty()) {
        return Err(Error::InvalidArgument(
            "Agg client Exception: Startrow should be smaller than Stoprow".into(),
        ));
    }
    if one_family && scan.inner.query.families.len() != 1 {
        return Err(Error::InvalidArgument(
            "There must be only one family.".into(),
        ));
    }
    Ok(())
}
