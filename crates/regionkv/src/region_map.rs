//! `RegionMap`: a table's regions in start-key order, covering the whole key space with
//! no gaps or overlaps (the first starts at the empty key, the last ends at it), found by
//! binary search — the part of HBase's `hbase:meta` lookup a client does.
//!
//! ```
//! use regionkv::{ColumnFamilyDescriptor, Put, TableDescriptor};
//! # let dir = tempfile::tempdir()?;
//! # let options = regionkv::DbOptions::default().background(false);
//! # let db = regionkv::Db::open(dir.path(), options)?;
//! let desc = TableDescriptor::new("t", vec![ColumnFamilyDescriptor::new(b"cf")?])?;
//! db.admin().create_table_with_splits(&desc, vec![b"m".to_vec()])?;
//! let table = db.table("t")?;
//! // Each row goes to the region whose range holds it.
//! table.put(&Put::new("x").add_column("cf", "q", "v"))?;
//! let writes: Vec<u64> = db.admin().regions("t")?.iter().map(|r| r.write_requests).collect();
//! assert_eq!(writes, [0, 1]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use regionkv_region::Region;
use std::sync::Arc;

/// The open regions of one table. Immutable: a split or merge builds a new map (the
/// unit tests below show the lookups).
#[derive(Debug)]
pub struct RegionMap {
    regions: Vec<Arc<Region>>,
}

impl RegionMap {
    /// A map of `regions` (sorted here by start key).
    pub fn new(mut regions: Vec<Arc<Region>>) -> Self {
        regions.sort_by(|a, b| a.info().start_key.cmp(&b.info().start_key));
        Self { regions }
    }

    /// Every region, in key order.
    pub fn regions(&self) -> &[Arc<Region>] {
        &self.regions
    }

    /// Index of the region holding `row`.
    pub fn index_of(&self, row: &[u8]) -> usize {
        // The last region whose start key is ≤ row; the first region starts at the empty
        // key, so there is always one. `compare_bytes`, not `<=` (a libc `memcmp` call per
        // probe, 12% of a missing-key get even against the empty start key).
        self.regions
            .partition_point(|r| regionkv_cell::compare_bytes(&r.info().start_key, row).is_le())
            .saturating_sub(1)
    }

    /// The region holding `row`, `None` only for an empty map.
    pub fn locate(&self, row: &[u8]) -> Option<&Arc<Region>> {
        self.regions.get(self.index_of(row))
    }

    /// Number of regions.
    pub fn len(&self) -> usize {
        self.regions.len()
    }
}

/// Where a table keeps its current [`RegionMap`] (`None` while the table is disabled).
///
/// Changes (create, enable, disable, alter, split, merge) are rare and serialize on a lock,
/// held across their whole read-modify-write; every get, put and scan only needs the
/// current map for a moment. So each change also publishes the new map in an
/// [`ArcSwapOption`], and the data path reads it from there ([`load`](Self::load)): no lock
/// and no reference count to bump, which were 10–13% of a point read (two atomic
/// read-modify-writes for the lock, two for the map's `Arc` and two for the region's).
///
/// Invariant: outside a write guard's lifetime the published map is the locked one. A write
/// guard publishes when it is dropped, while it still holds the lock, so maps are published
/// in the order the changes made them.
#[derive(Debug)]
pub(crate) struct RegionMapSlot {
    lock: parking_lot::RwLock<Option<Arc<RegionMap>>>,
    published: arc_swap::ArcSwapOption<RegionMap>,
}

impl RegionMapSlot {
    /// A slot holding `map`.
    pub(crate) fn new(map: Option<Arc<RegionMap>>) -> Self {
        Self {
            published: arc_swap::ArcSwapOption::new(map.clone()),
            lock: parking_lot::RwLock::new(map),
        }
    }

    /// The current map, for the data path: a short-lived guard (hold it for one operation).
    pub(crate) fn load(&self) -> arc_swap::Guard<Option<Arc<RegionMap>>> {
        self.published.load()
    }

    /// The current map under the change lock: no change can start while this is held.
    pub(crate) fn read(&self) -> parking_lot::RwLockReadGuard<'_, Option<Arc<RegionMap>>> {
        self.lock.read()
    }

    /// Starts a change: the guard derefs to the map slot and publishes it when dropped.
    pub(crate) fn write(&self) -> RegionMapWriteGuard<'_> {
        RegionMapWriteGuard {
            guard: self.lock.write(),
            published: &self.published,
        }
    }
}

/// A change of a [`RegionMapSlot`] in progress; see [`RegionMapSlot::write`].
pub(crate) struct RegionMapWriteGuard<'a> {
    guard: parking_lot::RwLockWriteGuard<'a, Option<Arc<RegionMap>>>,
    published: &'a arc_swap::ArcSwapOption<RegionMap>,
}

impl std::ops::Deref for RegionMapWriteGuard<'_> {
    type Target = Option<Arc<RegionMap>>;
    fn deref(&self) -> &Self::Target {
        &self.guard
    }
}

impl std::ops::DerefMut for RegionMapWriteGuard<'_> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.guard
    }
}

impl Drop for RegionMapWriteGuard<'_> {
    fn drop(&mut self) {
        self.published.store(self.guard.clone());
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// A map with no regions: publication is tested by identity, not by content.
    fn empty_map() -> Arc<RegionMap> {
        Arc::new(RegionMap::new(Vec::new()))
    }

    #[test]
    fn a_change_is_published_when_its_guard_drops_and_not_before() {
        let first = empty_map();
        let slot = RegionMapSlot::new(Some(first.clone()));
        assert!(Arc::ptr_eq(slot.load().as_ref().unwrap(), &first));
        let second = empty_map();
        {
            let mut change = slot.write();
            *change = Some(second.clone());
            // Readers of the data path still see the old map mid-change.
            assert!(Arc::ptr_eq(slot.load().as_ref().unwrap(), &first));
        }
        assert!(Arc::ptr_eq(slot.load().as_ref().unwrap(), &second));
        assert!(Arc::ptr_eq(slot.read().as_ref().unwrap(), &second));
        // Disabling publishes the absence too.
        *slot.write() = None;
        assert!(slot.load().is_none() && slot.read().is_none());
    }

    #[test]
    fn a_guard_held_across_a_change_keeps_its_map() {
        let first = empty_map();
        let slot = RegionMapSlot::new(Some(first.clone()));
        let held = slot.load();
        *slot.write() = Some(empty_map());
        assert!(Arc::ptr_eq(held.as_ref().unwrap(), &first));
        drop(held);
        assert!(!Arc::ptr_eq(slot.load().as_ref().unwrap(), &first));
    }

    /// Opens an empty region of table "t" covering `[start, end)` on `services`.
    fn region(
        services: &regionkv_region::RegionServices,
        start: &[u8],
        end: &[u8],
        id: u64,
    ) -> Arc<Region> {
        let cf = crate::ColumnFamilyDescriptor::new(b"cf").unwrap();
        let desc = crate::TableDescriptor::new("t", vec![cf]).unwrap();
        let info = regionkv_region::RegionInfo {
            table: "t".into(),
            start_key: start.to_vec(),
            end_key: end.to_vec(),
            region_id: id,
        };
        Region::create(format!("/t/{id}").as_ref(), info, desc, services.clone()).unwrap()
    }

    fn services() -> regionkv_region::RegionServices {
        let fs: Arc<dyn regionkv_fs::Fs> = Arc::new(regionkv_fs::MemFs::new());
        let wal = regionkv_wal::Wal::open(fs.clone(), "/wal".as_ref(), Default::default()).unwrap();
        regionkv_region::RegionServices::new(fs, Arc::new(wal), Arc::new(crate::SystemClock))
    }

    #[test]
    fn a_map_is_sorted_and_locates_rows_by_start_key() {
        let s = services();
        let map = RegionMap::new(vec![region(&s, b"m", b"", 2), region(&s, b"", b"m", 1)]);
        // Sorted by start key.
        assert_eq!(map.regions()[0].info().region_id, 1);
        let ends: Vec<&[u8]> = map
            .regions()
            .iter()
            .map(|r| r.info().end_key.as_slice())
            .collect();
        assert_eq!(ends, [&b"m"[..], &b""[..]]);
        assert_eq!(map.index_of(b"a"), 0);
        assert_eq!(map.index_of(b"m"), 1); // a start key belongs to its region
        assert_eq!(map.index_of(b"zzz"), 1);
        assert_eq!(map.locate(b"x").map(|r| r.info().region_id), Some(2));
        assert_eq!(map.len(), 2);
        let empty = RegionMap::new(Vec::new());
        assert!(empty.locate(b"x").is_none());
        assert_eq!(empty.len(), 0);
    }
}
