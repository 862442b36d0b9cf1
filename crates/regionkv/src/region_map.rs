//! `RegionMap`: a table's regions in start-key order, covering the whole key space with
//! no gaps or overlaps (the first starts at the empty key, the last ends at it), found by
//! binary search — the part of HBase's `hbase:meta` lookup a client does.

use regionkv_region::Region;
use std::sync::Arc;

/// The open regions of one table. Immutable: a split or merge builds a new map.
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
        // key, so there is always one.
        self.regions
            .partition_point(|r| r.info().start_key.as_slice() <= row)
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

    /// True when there are no regions.
    pub fn is_empty(&self) -> bool {
        self.regions.is_empty()
    }
}
