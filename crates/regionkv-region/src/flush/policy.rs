//! Flush policies (HBase's `FlushPolicy` family), as pure functions of a snapshot of the
//! stores' memstore sizes, so they can be tested and simulated without I/O.
//!
//! * [`FlushPolicy::AllLargeStores`] (HBase 2.x default, `FlushAllLargeStoresPolicy`):
//!   flush only the stores whose memstore heap size is above a lower bound, so one busy
//!   family does not force its quiet neighbours to write many tiny files; if none is above
//!   it, flush them all. The size is HBase's modeled heap size
//!   (`MemStore::hbase_heap_size`), as `FlushLargeStoresPolicy#shouldFlush` compares a
//!   store's heap + off-heap size with the bound. The bound is `max(flush size / number of
//!   families, 16 MiB)` (`hbase.hregion.percolumnfamilyflush.size.lower.bound.min`), or the
//!   table's `hbase.hregion.percolumnfamilyflush.size.lower.bound` when set.
//! * [`FlushPolicy::AllStores`] (`FlushAllStoresPolicy`): every store flushes together —
//!   the behaviour of HBase before 1.1, where one family's flush drags its neighbours.
//!
//! A region with a single store always flushes it.

/// HBase's configuration key of the per-family lower bound.
pub const LOWER_BOUND_KEY: &str = "hbase.hregion.percolumnfamilyflush.size.lower.bound";
/// HBase's configuration key of the minimum lower bound.
pub const LOWER_BOUND_MIN_KEY: &str = "hbase.hregion.percolumnfamilyflush.size.lower.bound.min";
/// Default minimum lower bound, 16 MiB.
pub const DEFAULT_LOWER_BOUND_MIN: u64 = 16 * 1024 * 1024;
/// HBase's configuration key selecting the policy class.
pub const FLUSH_POLICY_KEY: &str = "hbase.regionserver.flush.policy";

/// Which stores a flush writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FlushPolicy {
    /// Only the stores above the lower bound (HBase 2.x default).
    #[default]
    AllLargeStores,
    /// Every store.
    AllStores,
}

/// What the policy needs to know about the region.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FlushPolicyConfig {
    /// The region's flush size (MEMSTORE_FLUSHSIZE).
    pub flush_size: u64,
    /// `hbase.hregion.percolumnfamilyflush.size.lower.bound.min`.
    pub lower_bound_min: u64,
    /// The table's explicit lower bound, if set.
    pub lower_bound: Option<u64>,
}

impl FlushPolicyConfig {
    /// HBase's defaults for a region with `flush_size`.
    pub fn new(flush_size: u64) -> Self {
        Self {
            flush_size,
            lower_bound_min: DEFAULT_LOWER_BOUND_MIN,
            lower_bound: None,
        }
    }

    /// The per-family lower bound for `families` stores.
    pub fn lower_bound(&self, families: usize) -> u64 {
        if let Some(b) = self.lower_bound {
            return b;
        }
        let average = self.flush_size / families.max(1) as u64;
        average.max(self.lower_bound_min)
    }
}

/// HBase's `hbase.regionserver.optionalcacheflushinterval` (1 hour): a store whose oldest
/// unflushed edit is older than this is flushed even when small.
pub const FLUSH_INTERVAL_KEY: &str = "hbase.regionserver.optionalcacheflushinterval";
/// Default of [`FLUSH_INTERVAL_KEY`] in milliseconds.
pub const DEFAULT_FLUSH_INTERVAL_MS: i64 = 3_600_000;

/// What the policy knows of one store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct StoreFlushStats {
    /// The store's memstore heap size as HBase models it (`MemStore::hbase_heap_size`:
    /// charged adds and segment overheads), what HBase's policy compares with the bound.
    pub heap_size: u64,
    /// Holds an edit older than the flush interval (HBase's `HRegion.shouldFlushStore`).
    pub has_old_edit: bool,
}

impl FlushPolicy {
    /// Indexes of the stores to flush (in the region's store order). A store is "large"
    /// when its memstore is above the lower bound or it holds an edit older than the flush
    /// interval (HBase's `FlushAllLargeStoresPolicy.shouldFlush`). Never empty for a
    /// non-empty input.
    pub fn select(&self, config: &FlushPolicyConfig, stores: &[StoreFlushStats]) -> Vec<usize> {
        let all: Vec<usize> = (0..stores.len()).collect();
        if *self == FlushPolicy::AllStores || stores.len() <= 1 {
            return all;
        }
        let bound = config.lower_bound(stores.len());
        let large: Vec<usize> = stores
            .iter()
            .enumerate()
            .filter(|(_, s)| s.heap_size > bound || s.has_old_edit)
            .map(|(i, _)| i)
            .collect();
        if large.is_empty() { all } else { large }
    }

    /// [`Self::select`] on sizes alone (no store holds an old edit).
    pub fn select_by_size(&self, config: &FlushPolicyConfig, sizes: &[u64]) -> Vec<usize> {
        let stats: Vec<StoreFlushStats> = sizes
            .iter()
            .map(|&heap_size| StoreFlushStats {
                heap_size,
                has_old_edit: false,
            })
            .collect();
        self.select(config, &stats)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MB: u64 = 1024 * 1024;

    #[test]
    fn lower_bound_is_average_or_minimum() {
        let c = FlushPolicyConfig::new(128 * MB);
        assert_eq!(c.lower_bound(2), 64 * MB);
        assert_eq!(c.lower_bound(4), 32 * MB);
        assert_eq!(c.lower_bound(16), 16 * MB, "floored at the 16 MiB minimum");
        let explicit = FlushPolicyConfig {
            lower_bound: Some(5 * MB),
            ..c
        };
        assert_eq!(explicit.lower_bound(2), 5 * MB);
    }

    #[test]
    fn all_large_stores_flushes_only_big_families() {
        let c = FlushPolicyConfig::new(128 * MB);
        let p = FlushPolicy::AllLargeStores;
        // Three families, bound max(128/3, 16) ≈ 42.7 MiB: only the 100 MiB one flushes.
        assert_eq!(p.select_by_size(&c, &[100 * MB, MB, 20 * MB]), vec![0]);
        assert_eq!(p.select_by_size(&c, &[100 * MB, 0, 50 * MB]), vec![0, 2]);
        // None above the bound: flush all.
        assert_eq!(p.select_by_size(&c, &[10 * MB, MB, 20 * MB]), vec![0, 1, 2]);
        // One family: always that one.
        assert_eq!(p.select_by_size(&c, &[1]), vec![0]);
    }

    #[test]
    fn a_small_store_with_an_old_edit_flushes_alone() {
        // Policy vector flush-6.
        let c = FlushPolicyConfig::new(128 * MB);
        let stores = [
            StoreFlushStats {
                heap_size: 10 * MB,
                has_old_edit: false,
            },
            StoreFlushStats {
                heap_size: MB,
                has_old_edit: true,
            },
        ];
        assert_eq!(FlushPolicy::AllLargeStores.select(&c, &stores), vec![1]);
    }

    #[test]
    fn all_stores_drags_neighbours() {
        let c = FlushPolicyConfig::new(128 * MB);
        assert_eq!(
            FlushPolicy::AllStores.select_by_size(&c, &[100 * MB, 1, 2]),
            vec![0, 1, 2]
        );
    }
}
