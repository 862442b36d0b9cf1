//! The Db-wide memstore budget (HBase's global memstore size and lower limit): when the sum
//! of all regions' memstores crosses the limit, the largest memstores are flushed first,
//! until the sum is below the lower limit; and WAL logs whose edits are all flushed are
//! deleted.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use regionkv_cell::{Cell, ManualClock, SharedClock};
use regionkv_fs::{Fs, MemFs};
use regionkv_region::{
    ColumnFamilyDescriptor, Flusher, GlobalMemStore, RecoveredWal, Region, RegionInfo,
    RegionServices, TableDescriptor, recover_wal,
};
use regionkv_wal::{Durability, RecoveryMode, WalConfig};
use std::path::Path;
use std::sync::Arc;

fn services(
    fs: &MemFs,
    global: Arc<GlobalMemStore>,
    flusher: Option<Arc<Flusher>>,
) -> RegionServices {
    let RecoveredWal { wal, .. } = recover_wal(
        Arc::new(fs.clone()),
        Path::new("/db/wal"),
        WalConfig::default(),
        RecoveryMode::TolerateCorruptedTail,
    )
    .unwrap();
    RegionServices {
        flusher,
        global,
        ..RegionServices::new(
            Arc::new(fs.clone()),
            wal,
            Arc::new(ManualClock::new(1)) as SharedClock,
        )
    }
}

fn region(services: &RegionServices, name: &str, start: &[u8], end: &[u8]) -> Arc<Region> {
    let mut t =
        TableDescriptor::new("t", vec![ColumnFamilyDescriptor::new(b"cf").unwrap()]).unwrap();
    t.memstore_flush_size = 1 << 30; // never by size: only the global budget flushes
    let info = RegionInfo {
        table: "t".into(),
        start_key: start.to_vec(),
        end_key: end.to_vec(),
        region_id: 1,
    };
    Region::create(
        &Path::new("/db/data/t").join(name),
        info,
        t,
        services.clone(),
    )
    .unwrap()
}

fn put(r: &Arc<Region>, row: &str, bytes: usize) {
    let c = Cell::put(row.as_bytes(), b"cf", b"q", 1, &vec![b'v'; bytes]).unwrap();
    r.mutate_row(row.as_bytes(), vec![c], Durability::SkipWal)
        .unwrap();
}

#[test]
fn crossing_the_global_limit_flushes_the_largest_region_first() {
    let fs = MemFs::new();
    fs.create_dir_all(Path::new("/db")).unwrap();
    // Lower limit 60 000: flushing the big region (~61 KB) alone gets there.
    let global = Arc::new(GlobalMemStore::new(100_000, 0.6));
    let flusher = Flusher::start(1, global.clone());
    let s = services(&fs, global.clone(), Some(flusher.clone()));
    let big = region(&s, "big", b"", b"m");
    let small = region(&s, "small", b"m", b"");
    for i in 0..60 {
        put(&big, &format!("a{i:03}"), 1000);
    }
    for i in 0..20 {
        put(&small, &format!("x{i:03}"), 1000);
    }
    assert!(global.size() < global.limit());
    // This write crosses the limit: the flusher must bring the sum under 60 000 by
    // flushing the big region, which alone suffices.
    put(&small, "x999", 30_000);
    flusher.wait_idle();
    assert!(
        global.size() <= global.lower_limit(),
        "{} > {}",
        global.size(),
        global.lower_limit()
    );
    assert_eq!(big.memstore_data_size(), 0, "the largest region flushed");
    assert!(
        small.memstore_data_size() > 0,
        "the small one did not need to"
    );
    assert_eq!(big.manifest().stores[&b"cf"[..]].files.len(), 1);
    assert!(small.manifest().stores[&b"cf"[..]].files.is_empty());
    flusher.shutdown();
}

#[test]
fn writes_wait_while_the_global_limit_is_exceeded_and_resume_after_flush() {
    let fs = MemFs::new();
    fs.create_dir_all(Path::new("/db")).unwrap();
    let global = Arc::new(GlobalMemStore::new(20_000, 0.5));
    // No background flusher: the blocked writer relieves the pressure itself.
    let s = services(&fs, global.clone(), None);
    let r = region(&s, "r", b"", b"");
    for i in 0..100 {
        put(&r, &format!("r{i:03}"), 1000);
        assert!(
            global.size() <= global.limit() + 1100,
            "bounded: {}",
            global.size()
        );
    }
    assert!(!r.manifest().stores[&b"cf"[..]].files.is_empty());
    assert_eq!(r.scan_raw(b"", b"").unwrap().len(), 100);
}

#[test]
fn flushed_logs_are_deleted() {
    let fs = MemFs::new();
    fs.create_dir_all(Path::new("/db")).unwrap();
    let global = Arc::new(GlobalMemStore::new(1 << 30, 0.95));
    let s = services(&fs, global, None);
    let r = region(&s, "r", b"", b"");
    let c = Cell::put(b"a", b"cf", b"q", 1, b"v").unwrap();
    r.mutate_row(b"a", vec![c], Durability::SyncWal).unwrap();
    let first = s.wal.log_files();
    s.wal.roll().unwrap();
    let c = Cell::put(b"b", b"cf", b"q", 1, b"v").unwrap();
    r.mutate_row(b"b", vec![c], Durability::SyncWal).unwrap();
    assert!(
        first.iter().all(|p| fs.exists(p).unwrap()),
        "unflushed logs are kept"
    );
    r.flush().unwrap();
    assert!(
        first.iter().all(|p| !fs.exists(p).unwrap()),
        "logs whose edits are all flushed are deleted: {first:?}"
    );
    assert!(!s.wal.log_files().is_empty(), "the current log stays");
}
