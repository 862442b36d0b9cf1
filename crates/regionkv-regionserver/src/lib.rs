//! The region server's background workers, above the regions (HBase's `HRegionServer`
//! threads): [`MemStoreFlusher`] flushes regions whose memstore passed its flush size and
//! relieves global memstore pressure; [`CompactSplit`] runs compactions in a small and a
//! large pool and the periodic compaction check. [`RegionServerWorkers`] bundles them
//! and implements `regionkv_region::RegionServerServices`, the narrow trait through which
//! a region asks for work, so the region crate names no worker.
//!
//! Ownership: the workers hold regions weakly (a dropped region is skipped); a region
//! holds the workers only through `RegionServices::server`. Splits change the region set
//! of a table, which only the Db can do: the Db wraps these workers with its split worker
//! (`regionkv`'s `ServerServices`); [`RegionServerWorkers`] alone answers split questions
//! with "no" (one region, no splits), which is what a region-level test or tool wants.

pub mod compact_split;
pub mod memstore_flusher;

pub use compact_split::{CompactSplit, DEFAULT_COMPACTION_CHECK_INTERVAL};
pub use memstore_flusher::MemStoreFlusher;

use regionkv_region::{Region, RegionServerServices};
use std::sync::Arc;

/// The background workers of one server; either may be absent (regions then flush or
/// compact only when asked).
#[derive(Debug, Default, Clone)]
pub struct RegionServerWorkers {
    /// The background flusher.
    pub flusher: Option<Arc<MemStoreFlusher>>,
    /// The compaction pools and checker.
    pub compact_split: Option<Arc<CompactSplit>>,
}

impl RegionServerWorkers {
    /// Stops the threads (queued work first; see each worker's `shutdown`).
    pub fn shutdown(&self) {
        if let Some(c) = &self.compact_split {
            c.shutdown();
        }
        if let Some(f) = &self.flusher {
            f.shutdown();
        }
    }

    /// True when nothing is queued or running.
    pub fn is_idle(&self) -> bool {
        self.flusher.as_ref().is_none_or(|f| f.is_idle())
            && self.compact_split.as_ref().is_none_or(|c| c.is_idle())
    }
}

impl RegionServerServices for RegionServerWorkers {
    fn region_opened(&self, region: &Arc<Region>) {
        if let Some(f) = &self.flusher {
            f.register(region);
        }
        if let Some(c) = &self.compact_split {
            c.register(region);
            // HBase's postOpenDeployTasks: a region opened on references (a split
            // daughter or a merged region) compacts them away at once.
            if region.has_references() {
                c.request(region);
            }
        }
    }

    fn request_flush(&self, region: &Arc<Region>) -> bool {
        match &self.flusher {
            Some(f) => {
                f.request(region);
                true
            }
            None => false,
        }
    }

    fn request_global_flush(&self) -> bool {
        match &self.flusher {
            Some(f) => {
                f.request_global();
                true
            }
            None => false,
        }
    }

    fn request_compaction(&self, region: &Arc<Region>) {
        if let Some(c) = &self.compact_split {
            c.request(region);
        }
    }

    fn regions_of_table(&self, _table: &str) -> u32 {
        0
    }

    fn request_split(&self, _table: &str, _encoded: &str) {}

    fn references_cleared(&self, _table: &str) {}
}
