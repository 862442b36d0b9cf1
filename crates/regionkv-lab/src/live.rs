//! The lab's view of a live table (the shell's `lab_report 't', 'FILE'`): what a Db
//! recorded about a real table — each region's read and write requests since it opened,
//! its size, storefiles, flushes and compactions, its creation time — put in the shape of
//! a simulation [`Report`], so the same page shows it.
//!
//! A live table has counters, not a history: the heatmap has one time slice (the regions'
//! lifetimes), its key buckets come from rows sampled across the regions, and each
//! region's counts are spread over the buckets inside it by their share of the sampled
//! rows. Splits are read from the region ids (a region's id is its creation time; every
//! region made after the table's first is a split's or merge's child). Reads are the
//! engine's read requests (a get or a scanner open counts one), not rows.

use std::time::Instant;

use regionkv::cell::bytes::to_string_binary;
use regionkv::{Db, Scan};

use crate::design::{Design, FamilyData, PreSplit};
use crate::expr::Expr;
use crate::heatmap::{Heatmap, KeyBuckets};
use crate::simulate::{
    DesignSummary, FamilyRow, HeatmapData, HeatmapShape, LintRow, QueryReport, RegionRow, Report,
    SimulateError, SkewFigures, SkewReport, SplitEvent, WorkloadSummary,
};

/// Rows sampled from each region to place the key buckets.
const SAMPLE_PER_REGION: u64 = 2_000;

/// The report of live table `table` of `db`, its heatmap over `buckets` key buckets.
///
/// # Errors
/// The engine's (no such table, a disabled one).
pub fn live_report(db: &Db, table: &str, buckets: usize) -> Result<Report, SimulateError> {
    let began = Instant::now();
    let admin = db.admin();
    let status = admin.regions(table)?;
    let descriptor = admin.describe(table)?;
    let t = db.table(table)?;

    // Sample each region's first rows (keys only) so every region has buckets.
    let mut sample = Vec::new();
    let mut per_region = Vec::with_capacity(status.len());
    for r in &status {
        let mut scan = Scan::new()
            .start_row(&r.start_key)
            .limit(SAMPLE_PER_REGION)
            .filter(Box::new(regionkv::filter::FirstKeyOnlyFilter::new()));
        if !r.end_key.is_empty() {
            scan = scan.stop_row(&r.end_key);
        }
        let keys: Vec<Vec<u8>> = t
            .scan(&scan)?
            .map(|row| row.map(|row| row.row().to_vec()))
            .collect::<Result<_, _>>()?;
        per_region.push(keys.clone());
        sample.extend(keys);
    }
    let key_buckets = KeyBuckets::from_sample(sample, buckets.max(1));
    let now = db.clock().now_millis();
    let start = status
        .iter()
        .map(|r| i64::try_from(r.region_id).unwrap_or(i64::MAX))
        .min()
        .unwrap_or(now)
        .min(now);
    let duration = (now - start).max(1);
    let n = key_buckets.len();
    let mut writes = Heatmap::new(start, duration, 1, n);
    let mut reads = Heatmap::new(start, duration, 1, n);
    let mut bytes = Heatmap::new(start, duration, 1, n);
    for (r, keys) in status.iter().zip(&per_region) {
        // The region's counts over the buckets its sampled rows fall in (all in the
        // bucket of its start key when it sampled none).
        let mut shares: Vec<(usize, u64)> = Vec::new();
        for k in keys {
            let b = key_buckets.bucket_of(k);
            match shares.last_mut() {
                Some((last, c)) if *last == b => *c += 1,
                _ => shares.push((b, 1)),
            }
        }
        if shares.is_empty() {
            shares.push((key_buckets.bucket_of(&r.start_key), 1));
        }
        let total: u64 = shares.iter().map(|s| s.1).sum();
        let spread = |map: &mut Heatmap, amount: u64| {
            for &(b, c) in &shares {
                map.add(start, b, amount * c / total.max(1));
            }
        };
        spread(&mut writes, r.write_requests);
        spread(&mut reads, r.read_requests);
        spread(&mut bytes, r.store_file_bytes + r.memstore_bytes);
    }

    // A table's pre-split regions are made in one create (HBase gives them one id; the
    // engine numbers them up from the create's time): ids within a second of the first
    // are the table's own, later ones are split or merge children.
    let first_id = status.iter().map(|r| r.region_id).min().unwrap_or(0);
    let with_table = |id: u64| id < first_id.saturating_add(1_000);
    let presplit_regions = status.iter().filter(|r| with_table(r.region_id)).count();
    let mut splits: Vec<SplitEvent> = status
        .iter()
        .filter(|r| !with_table(r.region_id) && !r.start_key.is_empty())
        .map(|r| SplitEvent {
            time: i64::try_from(r.region_id).unwrap_or(i64::MAX),
            slice: 0,
            key: to_string_binary(&r.start_key),
            parent: String::new(),
        })
        .collect();
    splits.sort_by_key(|s| s.time);

    let skew_of = |values: Vec<f64>| SkewFigures::of(&values);
    let regions: Vec<RegionRow> = status
        .iter()
        .map(|r| RegionRow {
            name: r.name.clone(),
            start: to_string_binary(&r.start_key),
            end: to_string_binary(&r.end_key),
            writes: r.write_requests,
            reads: r.read_requests,
            bytes: r.store_file_bytes + r.memstore_bytes,
            storefiles: r.store_files,
            flushes: r.stores.iter().map(|s| s.flushes).sum(),
            compactions: r.compactions,
            created_ms: i64::try_from(r.region_id).unwrap_or(i64::MAX),
        })
        .collect();
    let families: Vec<FamilyRow> = descriptor
        .families
        .iter()
        .map(|f| {
            let stores = status
                .iter()
                .flat_map(|r| &r.stores)
                .filter(|s| s.family == f.name);
            let (mut flushes, mut files, mut size) = (0, 0, 0);
            for s in stores {
                flushes += s.flushes;
                files += s.store_files;
                size += s.store_file_bytes + s.memstore_bytes;
            }
            FamilyRow {
                family: String::from_utf8_lossy(&f.name).into_owned(),
                cells: 0,
                flushes,
                storefiles: files,
                bytes: size,
            }
        })
        .collect();
    // The descriptor's rules (the key is unknown: a plain field).
    let design = Design {
        name: table.to_string(),
        description: None,
        rowkey_text: "row".into(),
        rowkey: Expr::Field("row".into()),
        descriptor: descriptor.clone(),
        presplit: PreSplit::None,
        data: Vec::<FamilyData>::new(),
        scaled_sizes: false,
        indexes: Vec::new(),
    };
    let lint = crate::lint::lint(&design)
        .iter()
        .map(LintRow::from)
        .collect();
    let summary = SkewReport {
        writes: skew_of(regions.iter().map(|r| r.writes as f64).collect()),
        reads: skew_of(regions.iter().map(|r| r.reads as f64).collect()),
        bytes: skew_of(regions.iter().map(|r| r.bytes as f64).collect()),
    };
    let storefiles = regions.iter().map(|r| r.storefiles).sum();
    let storage_bytes = regions.iter().map(|r| r.bytes).sum();
    let flushes = regions.iter().map(|r| r.flushes).sum();
    let compactions = regions.iter().map(|r| r.compactions).sum();
    let writes_total = regions.iter().map(|r| r.writes).sum();
    let reads_total = regions.iter().map(|r| r.reads).sum();
    Ok(Report {
        design: DesignSummary {
            name: format!("live table {table}"),
            table: table.to_string(),
            rowkey: "(a live table's own rows)".into(),
            description: Some(
                "recorded by this Db: per-region requests since each region opened; the \
                 heatmap has one time slice and spreads each region's counts over its rows"
                    .into(),
            ),
            families: descriptor
                .families
                .iter()
                .map(|f| String::from_utf8_lossy(&f.name).into_owned())
                .collect(),
            presplit_regions,
            max_filesize: descriptor.max_file_size,
            flush_size: descriptor.memstore_flush_size,
            split_policy: descriptor
                .split_policy
                .clone()
                .unwrap_or_else(|| "SteppingSplitPolicy".into()),
        },
        workload: WorkloadSummary {
            name: "recorded requests".into(),
            seed: 0,
            writes: writes_total,
            reads: reads_total,
            start_ms: start,
            duration_ms: duration,
        },
        regions,
        splits,
        skew: summary,
        queries: QueryReport::default(),
        families,
        rows: writes_total,
        cells: 0,
        row_key_bytes: 0.0,
        key_bytes_per_cell: 0.0,
        storage_bytes,
        storefiles,
        flushes,
        compactions,
        hot_ranges: Vec::new(),
        lint,
        heatmap_shape: HeatmapShape {
            slices: 1,
            buckets: n,
            slice_ms: duration,
        },
        elapsed_ms: u64::try_from(began.elapsed().as_millis()).unwrap_or(u64::MAX),
        live: true,
        write_amplification: None,
        indexes: Vec::new(),
        heatmap: HeatmapData {
            writes: Some(writes),
            reads: Some(reads),
            bytes: Some(bytes),
            buckets: Some(key_buckets),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use regionkv::{ColumnFamilyDescriptor, DbOptions, Get, Put, TableDescriptor};

    #[test]
    fn a_live_tables_counters_become_a_report() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let db = Db::open(dir.path(), DbOptions::default().background(false))?;
        let desc = TableDescriptor::new("t", vec![ColumnFamilyDescriptor::new(b"cf")?])?;
        db.admin()
            .create_table_with_splits(&desc, vec![b"m".to_vec()])?;
        let t = db.table("t")?;
        for i in 0..300 {
            // Three in four writes to the upper region.
            let row = if i % 4 == 0 {
                format!("a{i:04}")
            } else {
                format!("x{i:04}")
            };
            t.put(&Put::new(row).add_column("cf", "q", "v"))?;
        }
        t.get(&Get::new("a0000"))?;
        let r = live_report(&db, "t", 20)?;
        assert_eq!(r.regions.len(), 2);
        // The pre-split is no split event.
        assert_eq!((r.design.presplit_regions, r.splits.len()), (2, 0));
        assert_eq!((r.regions[0].writes, r.regions[1].writes), (75, 225));
        assert_eq!(r.regions[0].reads, 1);
        assert!((r.skew.writes.max_mean - 1.5).abs() < 1e-9);
        let html = crate::report::html(std::slice::from_ref(&r));
        assert!(html.contains("live table t"));
        // The heatmap holds the writes (spread by sampled rows: rounding down).
        let total: u64 = r
            .heatmap
            .writes
            .as_ref()
            .map_or(0, |h| h.bucket_totals().iter().sum());
        assert!(total > 280 && total <= 300, "{total}");
        assert!(matches!(
            live_report(&db, "nope", 20),
            Err(SimulateError::Engine(_))
        ));
        Ok(())
    }
}
