//! A region opened read-only (`Region::open_read_only` with `RegionServices::read_only`):
//! the facade refuses mutations before they reach a region, so these tests drive the
//! region directly to prove the second line of defence — it refuses writes, flushes,
//! compactions, bulk loads and splits itself, closes without flushing, and its open
//! neither sweeps the store directories nor writes the manifest.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{Harness, region_dir, table};
use regionkv_cell::{Cell, SharedClock};
use regionkv_fs::{Fs, MemFs};
use regionkv_region::{Durability, Error, Region, RegionConfig, RegionInfo, RegionServices};
use std::path::Path;
use std::sync::Arc;

fn read_only_services(fs: &Arc<dyn Fs>) -> RegionServices {
    RegionServices::read_only(
        fs.clone(),
        Arc::new(regionkv_cell::ManualClock::new(5_000)) as SharedClock,
    )
}

fn bytes(fs: &dyn Fs, path: &Path) -> Vec<u8> {
    let f = fs.open_read(path).unwrap();
    f.read_to_vec(0, f.len() as usize).unwrap()
}

#[test]
fn a_read_only_region_refuses_every_write_and_writes_nothing_itself() {
    let fs: Arc<dyn Fs> = Arc::new(MemFs::new());
    let h = Harness::new(
        fs.clone(),
        table(1 << 20, &[b"cf"]),
        RegionConfig::default(),
        false,
    );
    h.put("a", b"cf", "q", "flushed", Durability::SyncWal)
        .unwrap();
    h.region().flush_all().unwrap();
    let info: RegionInfo = h.region().info().clone();
    let manifest = region_dir().join("MANIFEST");
    let before = bytes(fs.as_ref(), &manifest);
    // What a writer's flush in progress looks like: a file the manifest does not list.
    let in_progress = region_dir().join("cf").join("99.sf");
    regionkv_fs::write_atomic(fs.as_ref(), &in_progress, b"half a flush").unwrap();

    let r = Region::open_read_only(
        &region_dir(),
        &info,
        h.table.clone(),
        read_only_services(&fs),
        &[],
        &[],
    )
    .unwrap();
    assert_eq!(r.scan_raw(b"", b"").unwrap().len(), 1);
    let refused = |what: &str, e: Error| {
        assert!(
            matches!(&e, Error::ReadOnly { what: w, .. } if *w == what),
            "{what}: {e:?}"
        );
    };
    let c = Cell::put(b"b", b"cf", b"q", 1, b"v").unwrap();
    refused(
        "write",
        r.mutate_row(b"b", vec![c], Durability::SkipWal)
            .unwrap_err(),
    );
    refused("flush", r.flush_all().unwrap_err());
    refused("compaction", r.compact(true).unwrap_err());
    refused("compaction", r.major_compact().unwrap_err());
    refused("bulk load", r.reserve_bulk_load_seq_id().unwrap_err());
    refused("split", r.close_for_split().unwrap_err());
    r.close().unwrap();

    assert!(fs.exists(&in_progress).unwrap(), "not swept");
    assert_eq!(bytes(fs.as_ref(), &manifest), before, "manifest untouched");
}

#[test]
fn open_read_only_with_writable_services_is_refused() {
    let fs: Arc<dyn Fs> = Arc::new(MemFs::new());
    let h = Harness::new(
        fs.clone(),
        table(1 << 20, &[b"cf"]),
        RegionConfig::default(),
        false,
    );
    let info = h.region().info().clone();
    let writable = h.region().services().clone();
    let opened = Region::open_read_only(&region_dir(), &info, h.table.clone(), writable, &[], &[]);
    assert!(
        matches!(opened, Err(Error::Inconsistent { .. })),
        "{opened:?}"
    );
}
