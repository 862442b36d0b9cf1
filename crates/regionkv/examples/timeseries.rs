//! A time-series rowkey design as HBase users build it: a one-byte salt spreads writes
//! over pre-split regions, then the series id, then a reversed timestamp so the newest
//! point of a series sorts first. Reading "the latest N points" is a prefix scan per
//! salt bucket; here the series id decides the bucket, so it is one scan.
//!
//! `cargo run -p regionkv --example timeseries [DIR]`

use regionkv::{ColumnFamilyDescriptor, Db, DbOptions, Put, Scan, TableDescriptor};

const BUCKETS: u8 = 8;

fn salt(series: &str) -> u8 {
    // A stable hash of the series id (FNV-1a), folded into the bucket count.
    let h = series.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
    (h % u64::from(BUCKETS)) as u8
}

fn row_key(series: &str, ts_ms: i64) -> Vec<u8> {
    let mut k = vec![salt(series)];
    k.extend_from_slice(series.as_bytes());
    k.push(0);
    // Reversed timestamp: newest first.
    k.extend_from_slice(&(i64::MAX - ts_ms).to_be_bytes());
    k
}

fn main() -> regionkv::Result<()> {
    let dir = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "./timeseries-data".to_string());
    let db = Db::open(&dir, DbOptions::default())?;
    let admin = db.admin();
    if !admin.table_exists("metrics")? {
        let mut d = ColumnFamilyDescriptor::new(b"d")?;
        d.set_attribute("TTL", "604800")?; // keep a week
        // One region per salt bucket.
        let splits = (1..BUCKETS).map(|b| vec![b]).collect();
        admin.create_table_with_splits(&TableDescriptor::new("metrics", vec![d])?, splits)?;
    }
    let t = db.table("metrics")?;
    let now = db.clock().now_millis();
    for series in ["cpu.host1", "cpu.host2", "mem.host1"] {
        for i in 0..100i64 {
            let ts = now - i * 1_000;
            t.put(&Put::with_timestamp(row_key(series, ts), ts).add_column(
                "d",
                "v",
                (i as f64).to_be_bytes(),
            ))?;
        }
    }
    let mut prefix = vec![salt("cpu.host1")];
    prefix.extend_from_slice(b"cpu.host1\0");
    let latest: Vec<_> = t
        .scan(&Scan::new().row_prefix(&prefix).limit(5))?
        .collect::<regionkv::Result<_>>()?;
    println!("latest 5 points of cpu.host1:");
    for r in latest {
        println!("  ts={}", r.cells()[0].timestamp());
    }
    for s in admin.regions("metrics")? {
        println!("{} writes={}", s.name, s.write_requests);
    }
    db.close()
}
