//! `lab sizing`: HBase RegionServer sizing from the reference guide's formulas
//! (ops.capacity.regions, "Determining region count and size") and Lars Hofhansl's
//! "HBase region server memory sizing" (2013), the same arithmetic operators do by hand:
//!
//! - regions a server can hold before its memstores force flushes smaller than the flush
//!   size: `heap × global memstore fraction / (flush size × families)`
//!   (16 GiB × 0.4 / (128 MiB × 1) ≈ 51);
//! - the disk a server's heap can serve: `disk / heap = region size / flush size ×
//!   replication × memstore fraction` (10 GiB / 128 MiB × 3 × 0.4 = 96: a 10 GiB heap
//!   serves about 1 TiB of raw disk);
//! - regions and servers for a data volume; how fast writes fill the memstores;
//! - the split sizes a growing table goes through: IncreasingToUpperBound's
//!   `min(R³ × 2 × flush size, MAX_FILESIZE)` for R regions of the table on the server, and
//!   Stepping's (the 2.x default) `2 × flush size` for the first region, then MAX_FILESIZE.
//!
//! The guide's advice is checked alongside: 20–200 regions per server, regions of 5–10 GB
//! (20 GB at most), heaps of 20–24 GB at most (garbage-collection pauses).

/// What a cluster is sized from.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct SizingInput {
    /// RegionServer heap, bytes.
    pub heap: u64,
    /// `hbase.regionserver.global.memstore.size` (0.4 by default).
    pub memstore_fraction: f64,
    /// `hbase.hregion.memstore.flush.size` (128 MiB by default).
    pub flush_size: u64,
    /// Column families written per region.
    pub families: u32,
    /// Region size, bytes (`MAX_FILESIZE`; 10 GiB by default).
    pub region_size: u64,
    /// HDFS replication (3).
    pub replication: u32,
    /// Data to store, bytes before replication (0: not given).
    pub data: u64,
    /// Write rate, bytes per second (0: not given).
    pub write_rate: f64,
}

impl Default for SizingInput {
    fn default() -> Self {
        SizingInput {
            heap: 16 << 30,
            memstore_fraction: 0.4,
            flush_size: 128 << 20,
            families: 1,
            region_size: 10 << 30,
            replication: 3,
            data: 0,
            write_rate: 0.0,
        }
    }
}

/// The figures [`size`] derives.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Sizing {
    /// Regions one server holds at full flush sizes (memstore bound).
    pub regions_per_server: u64,
    /// Raw disk a server's heap serves, as a multiple of the heap.
    pub disk_to_heap: f64,
    /// Data one server serves (regions × region size), bytes before replication.
    pub data_per_server: u64,
    /// Regions for the data (0 when no data was given).
    pub regions: u64,
    /// Servers for the data (0 when no data was given).
    pub servers: u64,
    /// Seconds for the write rate to fill every memstore of one server's share once
    /// (`None` without a write rate or data).
    pub flush_interval_s: Option<f64>,
    /// Split sizes of IncreasingToUpperBound for the 1st, 2nd, ... region of the table on a
    /// server, up to the first that reaches MAX_FILESIZE.
    pub increasing_splits: Vec<u64>,
    /// Split sizes of Stepping: 2 × flush for the first region, MAX_FILESIZE after.
    pub stepping_splits: [u64; 2],
    /// Where the input leaves the guide's advice, one line each.
    pub warnings: Vec<String>,
}

/// Sizes a cluster.
///
/// # Errors
/// An input of zero where a divisor is needed, or a memstore fraction outside (0, 0.8]
/// (HBase refuses more than 0.8 of the heap for memstores and block cache together).
pub fn size(i: &SizingInput) -> Result<Sizing, String> {
    if i.flush_size == 0 || i.families == 0 || i.region_size == 0 || i.replication == 0 {
        return Err("flush size, families, region size and replication must be above 0".into());
    }
    if !(i.memstore_fraction > 0.0 && i.memstore_fraction <= 0.8) {
        return Err(format!(
            "memstore fraction {} must be in (0, 0.8]",
            i.memstore_fraction
        ));
    }
    let memstore = i.heap as f64 * i.memstore_fraction;
    let regions_per_server = (memstore / (i.flush_size as f64 * f64::from(i.families))) as u64;
    let disk_to_heap =
        i.region_size as f64 / i.flush_size as f64 * f64::from(i.replication) * i.memstore_fraction;
    let data_per_server = regions_per_server.saturating_mul(i.region_size);
    let (regions, servers) = if i.data == 0 {
        (0, 0)
    } else {
        let regions = i.data.div_ceil(i.region_size);
        (regions, regions.div_ceil(regions_per_server.max(1)))
    };
    let flush_interval_s =
        (i.write_rate > 0.0 && servers > 0).then(|| memstore / (i.write_rate / servers as f64));
    let mut increasing_splits = Vec::new();
    for r in 1u64.. {
        let size = r
            .saturating_pow(3)
            .saturating_mul(2)
            .saturating_mul(i.flush_size)
            .min(i.region_size);
        increasing_splits.push(size);
        if size >= i.region_size || r >= 64 {
            break;
        }
    }
    let stepping_splits = [
        i.flush_size.saturating_mul(2).min(i.region_size),
        i.region_size,
    ];
    let mut warnings = Vec::new();
    const GB: u64 = 1 << 30;
    if !(20..=200).contains(&regions_per_server) {
        warnings.push(format!(
            "{regions_per_server} regions per server: the guide advises 20-200 (ops.capacity.regions)"
        ));
    }
    if i.region_size > 20 * GB {
        warnings.push("regions over 20 GB: the guide's maximum (ops.capacity.regions)".into());
    } else if i.region_size < 5 * GB {
        warnings.push("regions under 5 GB: the guide's optimum is 5-10 GB".into());
    }
    if i.heap > 24 * GB {
        warnings.push("a heap over 24 GB: garbage-collection pauses grow (Hofhansl 2013)".into());
    }
    if i.families > 3 {
        warnings.push(format!(
            "{} families: more than 2-3 drag each other's flushes (ref guide number.of.cfs)",
            i.families
        ));
    }
    Ok(Sizing {
        regions_per_server,
        disk_to_heap,
        data_per_server,
        regions,
        servers,
        flush_interval_s,
        increasing_splits,
        stepping_splits,
        warnings,
    })
}

/// Parses a size as people write them: `128m`, `10g`, `1.5t`, `512k`, `4096` (bytes);
/// binary multiples (HBase's sizes are), case-insensitive, an optional `b`/`ib`.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim().to_ascii_lowercase();
    let t = t.trim_end_matches("ib").trim_end_matches('b');
    let (num, mult) = match t.chars().last() {
        Some('k') => (&t[..t.len() - 1], 1u64 << 10),
        Some('m') => (&t[..t.len() - 1], 1 << 20),
        Some('g') => (&t[..t.len() - 1], 1 << 30),
        Some('t') => (&t[..t.len() - 1], 1 << 40),
        Some('p') => (&t[..t.len() - 1], 1 << 50),
        _ => (t, 1),
    };
    let v: f64 = num
        .trim()
        .parse()
        .map_err(|_| format!("not a size: '{s}'"))?;
    if !(v >= 0.0 && v.is_finite()) {
        return Err(format!("not a size: '{s}'"));
    }
    Ok((v * mult as f64).round() as u64)
}

/// `bytes` with a binary unit, as the tables print sizes (`128 MiB`, `6.75 GiB`).
pub fn human(bytes: u64) -> String {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut v = bytes as f64;
    let mut u = 0;
    while v >= 1024.0 && u < UNITS.len() - 1 {
        v /= 1024.0;
        u += 1;
    }
    if (v - v.round()).abs() < 1e-9 {
        format!("{} {}", v.round(), UNITS[u])
    } else {
        format!("{:.2} {}", v, UNITS[u]).replace(".00 ", " ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_guides_examples() -> Result<(), String> {
        let s = size(&SizingInput::default())?;
        // 16384 MB x 0.4 / 128 MB = 51.2.
        assert_eq!(s.regions_per_server, 51);
        // 10 GB / 128 MB x 3 x 0.4 = 96.
        assert!((s.disk_to_heap - 96.0).abs() < 1e-9);
        // IncreasingToUpperBound: 256 MB, 2 GB, 6.75 GB, then 10 GB.
        let mb = 1u64 << 20;
        assert_eq!(
            s.increasing_splits,
            vec![256 * mb, 2048 * mb, 6912 * mb, 10240 * mb]
        );
        assert_eq!(s.stepping_splits, [256 * mb, 10240 * mb]);
        assert!(s.warnings.is_empty(), "{:?}", s.warnings);
        Ok(())
    }

    #[test]
    fn servers_for_a_data_volume_and_the_warnings() -> Result<(), String> {
        let i = SizingInput {
            data: 100 << 40, // 100 TiB
            write_rate: 50.0 * (1 << 20) as f64,
            families: 4,
            heap: 32 << 30,
            ..SizingInput::default()
        };
        let s = size(&i)?;
        // 32 GiB x 0.4 / (128 MiB x 4) = 25.6 regions a server; 100 TiB / 10 GiB = 10,240.
        assert_eq!(s.regions_per_server, 25);
        assert_eq!(s.regions, 10_240);
        assert_eq!(s.servers, 10_240_u64.div_ceil(25));
        assert!(s.flush_interval_s.is_some_and(|t| t > 0.0));
        assert!(s.warnings.iter().any(|w| w.contains("24 GB")));
        assert!(s.warnings.iter().any(|w| w.contains("4 families")));
        assert!(
            size(&SizingInput {
                memstore_fraction: 0.9,
                ..SizingInput::default()
            })
            .is_err()
        );
        assert!(
            size(&SizingInput {
                flush_size: 0,
                ..SizingInput::default()
            })
            .is_err()
        );
        Ok(())
    }

    #[test]
    fn sizes_parse_and_print() -> Result<(), String> {
        assert_eq!(parse_size("128m")?, 128 << 20);
        assert_eq!(parse_size("10GB")?, 10 << 30);
        assert_eq!(parse_size("1.5t")?, 3 << 39);
        assert_eq!(parse_size("4096")?, 4096);
        assert_eq!(parse_size(" 16 GiB ")?, 16 << 30);
        assert!(parse_size("lots").is_err());
        assert!(parse_size("-1g").is_err());
        assert_eq!(human(128 << 20), "128 MiB");
        assert_eq!(human(6912 << 20), "6.75 GiB");
        Ok(())
    }
}
