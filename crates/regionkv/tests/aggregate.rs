//! HBase's AggregateImplementation through `Table::aggregation`: every method against a
//! straightforward computation over a plain scan (grouped by region where HBase's answer
//! depends on the grouping), over pre-split tables with values that are and are not
//! 8-byte longs; the endpoint must be loaded; it survives splits, merges and reopen.

#![allow(clippy::unwrap_used)]

use proptest::prelude::*;
use regionkv::{
    ColumnFamilyDescriptor, Db, DbOptions, Error, Put, RowResult, Scan, Table, TableDescriptor,
};

const AGG: &str = "|org.apache.hadoop.hbase.coprocessor.AggregateImplementation||";

fn open(dir: &std::path::Path) -> Db {
    Db::open(dir, DbOptions::default().background(false)).unwrap()
}

fn create(db: &Db, splits: &[Vec<u8>], with_endpoint: bool) -> Table {
    let mut desc =
        TableDescriptor::new("t", vec![ColumnFamilyDescriptor::new(b"f").unwrap()]).unwrap();
    if with_endpoint {
        desc.add_coprocessor(AGG).unwrap();
    }
    db.admin()
        .create_table_with_splits(&desc, splits.to_vec())
        .unwrap();
    db.table("t").unwrap()
}

fn long(v: &[u8]) -> Option<i64> {
    <[u8; 8]>::try_from(v).ok().map(i64::from_be_bytes)
}

/// A row's value: the wrapping sum of its valid cells.
fn row_value(r: &RowResult) -> Option<i64> {
    r.cells()
        .iter()
        .filter_map(|c| long(c.value()))
        .reduce(i64::wrapping_add)
}

/// The reference: the scan's rows, split by region boundaries.
fn groups(table: &Table, scan: &Scan, splits: &[Vec<u8>]) -> Vec<Vec<RowResult>> {
    let rows: Vec<RowResult> = table.scan(scan).unwrap().map(|r| r.unwrap()).collect();
    let mut out = vec![Vec::new(); splits.len() + 1];
    for r in rows {
        let i = splits
            .iter()
            .take_while(|s| s.as_slice() <= r.row())
            .count();
        out[i].push(r);
    }
    out
}

#[derive(Debug, Clone)]
enum Value {
    Long(i64),
    Other(Vec<u8>),
}

fn value() -> impl Strategy<Value = Value> {
    prop_oneof![
        4 => (-1000i64..1000).prop_map(Value::Long),
        1 => any::<i64>().prop_map(Value::Long),
        1 => proptest::collection::vec(any::<u8>(), 0..12)
            .prop_filter("not 8 bytes", |v| v.len() != 8)
            .prop_map(Value::Other),
    ]
}

fn bytes(v: &Value) -> Vec<u8> {
    match v {
        Value::Long(l) => l.to_be_bytes().to_vec(),
        Value::Other(b) => b.clone(),
    }
}

fn row_key() -> impl Strategy<Value = Vec<u8>> {
    proptest::collection::vec(b'a'..b'h', 1..3)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    #[test]
    fn aggregates_match_a_scan_computation(
        cells in proptest::collection::vec((row_key(), prop_oneof![Just("a"), Just("b")], value()), 0..40),
        splits in proptest::collection::btree_set(row_key(), 0..4),
        start in proptest::option::of(row_key()),
        stop in proptest::option::of(row_key()),
        column in prop_oneof![Just(None), Just(Some("a")), Just(Some("b"))],
    ) {
        let splits: Vec<Vec<u8>> = splits.into_iter().collect();
        let dir = tempfile::tempdir().unwrap();
        let db = open(dir.path());
        let table = create(&db, &splits, true);
        for (row, q, v) in &cells {
            table.put(&Put::new(row).add_column("f", q, bytes(v))).unwrap();
        }
        let mut scan = match column {
            Some(q) => Scan::new().add_column("f", q),
            None => Scan::new().add_family("f"),
        };
        if let Some(s) = &start { scan = scan.start_row(s); }
        if let Some(s) = &stop { scan = scan.stop_row(s); }
        let agg = table.aggregation();
        let bad_range = matches!((&start, &stop), (Some(a), Some(b)) if a >= b);
        if bad_range {
            let e = agg.sum(&scan).unwrap_err();
            prop_assert!(e.to_string().contains("Startrow should be smaller than Stoprow"), "{e}");
            return Ok(());
        }
        let by_region = groups(&table, &scan, &splits);
        let rows: Vec<&RowResult> = by_region.iter().flatten().collect();
        let values: Vec<i64> = rows.iter()
            .flat_map(|r| r.cells().iter().filter_map(|c| long(c.value())))
            .collect();
        prop_assert_eq!(agg.row_count(&scan).unwrap(), rows.len() as i64);
        prop_assert_eq!(agg.sum(&scan).unwrap(), values.iter().copied().reduce(i64::wrapping_add));
        prop_assert_eq!(agg.min(&scan).unwrap(), values.iter().copied().min());
        prop_assert_eq!(agg.max(&scan).unwrap(), values.iter().copied().max());
        // avg and std: over the rows of regions holding at least one valid value.
        let counted: Vec<&Vec<RowResult>> =
            by_region.iter().filter(|g| g.iter().any(|r| row_value(r).is_some())).collect();
        let n = counted.iter().map(|g| g.len()).sum::<usize>() as f64;
        let row_values: Vec<i64> = counted.iter().flat_map(|g| g.iter().filter_map(row_value)).collect();
        let sum = row_values.iter().copied().reduce(i64::wrapping_add);
        let sum_sq = row_values.iter().map(|v| v.wrapping_mul(*v)).reduce(i64::wrapping_add);
        let avg = agg.avg(&scan).unwrap();
        let want_avg = sum.map_or(f64::NAN, |s| s as f64 / n);
        prop_assert!(avg == want_avg || (avg.is_nan() && want_avg.is_nan()), "{avg} {want_avg}");
        let std = agg.std(&scan).unwrap();
        let mean = sum.map_or(f64::NAN, |s| s as f64 / n);
        let want_std = (sum_sq.map_or(f64::NAN, |s| s as f64 / n) - mean * mean).sqrt();
        prop_assert!(std == want_std || (std.is_nan() && want_std.is_nan()), "{std} {want_std}");
        // median (one column): the value of the row before the running sum first passes
        // half the total; an error when a region in range holds no valid value.
        if let Some(q) = column {
            let got = agg.median(&scan);
            let regions_in_range = regions_in_range(&splits, start.as_deref(), stop.as_deref());
            let empty_region = regions_in_range.iter().any(|&i| by_region[i].iter().all(|r| row_value(r).is_none()));
            if empty_region {
                prop_assert!(got.is_err(), "{got:?}");
            } else {
                // Sums add as wrapping longs and compare as doubles, as HBase's client does.
                let per_region: Vec<i64> = regions_in_range
                    .iter()
                    .map(|&i| by_region[i].iter().filter_map(row_value).fold(0i64, i64::wrapping_add))
                    .collect();
                let half = per_region.iter().fold(0i64, |a, &s| a.wrapping_add(s)) as f64 / 2.0;
                // The sum is null in HBase (NaN as a double) until something is added.
                let mut moving: Option<i64> = None;
                let mut from = 0;
                for (k, &s) in per_region.iter().enumerate() {
                    from = k;
                    let next = moving.unwrap_or(0).wrapping_add(s);
                    if next as f64 > half { break; }
                    moving = Some(next);
                }
                let walk: Vec<&RowResult> =
                    regions_in_range[from..].iter().flat_map(|&i| by_region[i].iter()).collect();
                let mut acc = moving;
                let mut value = None;
                let mut want = None;
                for r in walk {
                    if let Some(w) = r.value(b"f", q.as_bytes()).and_then(long) {
                        acc = Some(acc.unwrap_or(0).wrapping_add(w));
                    }
                    if acc.is_some_and(|a| a as f64 > half) { want = value; break; }
                    value = r.value(b"f", q.as_bytes()).and_then(long);
                }
                prop_assert_eq!(got.unwrap(), want);
            }
        }
    }
}

/// Indexes of the regions that meet [start, stop], the stop row included.
fn regions_in_range(splits: &[Vec<u8>], start: Option<&[u8]>, stop: Option<&[u8]>) -> Vec<usize> {
    (0..=splits.len())
        .filter(|&i| {
            let lo = if i == 0 {
                None
            } else {
                Some(splits[i - 1].as_slice())
            };
            let hi = splits.get(i).map(Vec::as_slice);
            let before_stop = match (stop, lo) {
                (Some(s), Some(l)) => l <= s,
                _ => true,
            };
            let after_start = match (start, hi) {
                (Some(s), Some(h)) => h > s,
                _ => true,
            };
            before_stop && after_start
        })
        .collect()
}

#[test]
fn the_endpoint_must_be_loaded_and_the_scan_must_name_one_family() {
    let dir = tempfile::tempdir().unwrap();
    let db = open(dir.path());
    let table = create(&db, &[b"m".to_vec()], false);
    let err = table
        .aggregation()
        .sum(&Scan::new().add_family("f"))
        .unwrap_err();
    assert!(matches!(err, Error::UnknownProtocol { .. }), "{err:?}");
    // Loading it by alter makes it callable.
    let mut desc = db.admin().describe("t").unwrap();
    assert_eq!(desc.add_coprocessor(AGG).unwrap(), "coprocessor$1");
    db.admin().modify_table(&desc).unwrap();
    let table = db.table("t").unwrap();
    assert_eq!(
        table
            .aggregation()
            .sum(&Scan::new().add_family("f"))
            .unwrap(),
        None
    );
    for scan in [Scan::new(), Scan::new().add_family("f").add_family("g")] {
        let e = table.aggregation().max(&scan).unwrap_err();
        assert_eq!(e.to_string(), "There must be only one family.");
    }
    // rowCount takes any number of families.
    assert_eq!(table.aggregation().row_count(&Scan::new()).unwrap(), 0);
    let e = table
        .aggregation()
        .median(&Scan::new().add_family("f"))
        .unwrap_err();
    assert!(e.to_string().contains("median needs a column"), "{e}");
}

#[test]
fn a_class_regionkv_does_not_ship_is_refused_unless_sanity_checks_are_off() {
    let dir = tempfile::tempdir().unwrap();
    let db = open(dir.path());
    let mut desc =
        TableDescriptor::new("t", vec![ColumnFamilyDescriptor::new(b"f").unwrap()]).unwrap();
    desc.add_coprocessor("hdfs:///x.jar|com.example.Obs|1001|k=v")
        .unwrap();
    let e = db.admin().create_table(&desc).unwrap_err();
    assert_eq!(
        e.to_string(),
        "Class com.example.Obs cannot be loaded Set hbase.table.sanity.checks to false at \
         conf or table descriptor if you want to bypass sanity checks"
    );
    desc.configuration
        .insert("hbase.table.sanity.checks".into(), "false".into());
    db.admin().create_table(&desc).unwrap();
    let kept = db.admin().describe("t").unwrap();
    assert_eq!(kept.coprocessors()[0].1.class_name, "com.example.Obs");
}

#[test]
fn results_survive_splits_merges_and_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let expect = |table: &Table| {
        let scan = Scan::new().add_column("f", "n");
        let agg = table.aggregation();
        (
            agg.row_count(&scan).unwrap(),
            agg.sum(&scan).unwrap(),
            agg.max(&scan).unwrap(),
            agg.median(&scan).unwrap(),
        )
    };
    let want = (100, Some((0..100).sum::<i64>()), Some(99), Some(69));
    {
        let db = open(dir.path());
        let table = create(&db, &[], true);
        for i in 0..100i64 {
            table
                .put(&Put::new(format!("r{i:03}")).add_column("f", "n", i.to_be_bytes()))
                .unwrap();
        }
        assert_eq!(expect(&table), want);
        db.admin().flush("t").unwrap();
        db.admin().split_at("t", b"r050").unwrap();
        // A daughter with reference files splits again only once compacted, as in HBase.
        db.admin().major_compact("t").unwrap();
        db.admin().split_at("t", b"r020").unwrap();
        assert_eq!(db.admin().table_regions("t").unwrap().len(), 3);
        assert!(
            db.admin()
                .describe("t")
                .unwrap()
                .has_coprocessor("org.apache.hadoop.hbase.coprocessor.AggregateImplementation")
        );
        assert_eq!(expect(&table), want);
        let names: Vec<String> = db
            .admin()
            .table_regions("t")
            .unwrap()
            .iter()
            .take(2)
            .map(|r| r.encoded_name.clone())
            .collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        db.admin().major_compact("t").unwrap();
        db.admin().merge_regions(&names, false).unwrap();
        assert_eq!(expect(&table), want);
    }
    let db = open(dir.path());
    let table = db.table("t").unwrap();
    assert_eq!(expect(&table), want);
}

#[test]
fn avg_counts_rows_not_cells_and_median_fails_on_a_region_without_values() {
    let dir = tempfile::tempdir().unwrap();
    let db = open(dir.path());
    let table = create(&db, &[b"m".to_vec()], true);
    // Two cells in one row: summed, counted as one row.
    table
        .put(
            &Put::new("a")
                .add_column("f", "x", 4i64.to_be_bytes())
                .add_column("f", "y", 6i64.to_be_bytes()),
        )
        .unwrap();
    table
        .put(&Put::new("b").add_column("f", "x", 2i64.to_be_bytes()))
        .unwrap();
    let agg = table.aggregation();
    let fam = Scan::new().add_family("f");
    assert_eq!(agg.avg(&fam).unwrap(), 6.0);
    assert_eq!(agg.sum(&fam).unwrap(), Some(12));
    assert_eq!(agg.std(&fam).unwrap(), 4.0);
    // The region [m, ∞) holds nothing: HBase's server half fails there.
    let e = agg.median(&Scan::new().add_column("f", "x")).unwrap_err();
    assert!(e.to_string().contains("holds no 8-byte value"), "{e}");
    assert_eq!(
        agg.median(&Scan::new().add_column("f", "x").stop_row("c"))
            .unwrap(),
        None,
        "the first row already passes half"
    );
}
