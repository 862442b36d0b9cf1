//! Measures snapshot, clone and restore of a table of a given size (issue 29's target: a
//! 1 GB table in < 100 ms each, independent of data size). Loads the table with a bulk load
//! (1,000-byte values, 8 regions), runs `sync`, then times each operation once per size.
//!
//! ```text
//! cargo run --release -p regionkv --example snapshot_speed -- /path/on/disk 1024 16
//! ```
//! Arguments: a directory to create Dbs in, then table sizes in MiB.

use regionkv::{Cell, ColumnFamilyDescriptor, Db, DbOptions, FamilyCells, TableDescriptor};
use std::time::Instant;

const VALUE: usize = 1000;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let base = std::path::PathBuf::from(args.next().ok_or("usage: DIR SIZE_MIB...")?);
    for size in args {
        let mib: u64 = size.parse()?;
        let dir = base.join(format!("snap-{mib}"));
        if dir.exists() {
            std::fs::remove_dir_all(&dir)?;
        }
        let db = Db::open(&dir, DbOptions::default().background(false))?;
        let admin = db.admin();
        let splits: Vec<Vec<u8>> = (1..8)
            .map(|i| format!("r{:08}", i * 125_000).into_bytes())
            .collect();
        let desc = TableDescriptor::new("t", vec![ColumnFamilyDescriptor::new(b"cf")?])?;
        admin.create_table_with_splits(&desc, splits)?;
        let rows = mib * 1024 * 1024 / VALUE as u64;
        let step = (1_000_000 / rows.max(1)).max(1);
        let value = vec![b'v'; VALUE];
        let cells = (0..rows).map(move |i| {
            Cell::put(
                format!("r{:08}", i * step).as_bytes(),
                b"cf",
                b"q",
                1,
                &value,
            )
        });
        let started = Instant::now();
        admin.bulk_load("t", vec![FamilyCells::fallible(b"cf".to_vec(), cells)])?;
        let load = started.elapsed();
        // The load's gigabyte may still be dirty in the page cache; on ext4 (data=ordered)
        // the snapshot's first directory fsync would wait for its writeback, which is the
        // load's cost, not the snapshot's. `sync` first, so the figure is the snapshot's.
        std::process::Command::new("sync").status()?;
        let files: u64 = admin
            .regions("t")?
            .iter()
            .map(|r| r.store_files as u64)
            .sum();
        let time = |f: &dyn Fn() -> regionkv::Result<()>| -> Result<f64, regionkv::Error> {
            let t = Instant::now();
            f()?;
            Ok(t.elapsed().as_secs_f64() * 1000.0)
        };
        let snapshot = time(&|| admin.snapshot("s", "t").map(|_| ()))?;
        let clone = time(&|| admin.clone_snapshot("s", "c"))?;
        admin.disable_table("t")?;
        let restore = time(&|| admin.restore_snapshot("s"))?;
        println!(
            "{mib} MiB ({rows} rows, {files} storefiles; loaded in {:.1} s): snapshot {snapshot:.1} ms, clone {clone:.1} ms, restore {restore:.1} ms",
            load.as_secs_f64()
        );
        drop((admin, db));
        std::fs::remove_dir_all(&dir)?;
    }
    Ok(())
}
