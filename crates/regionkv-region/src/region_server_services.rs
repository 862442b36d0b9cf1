//! The one way up from a region: [`RegionServerServices`], the narrow interface a region
//! uses to ask the region server above it for work it cannot do alone (HBase's
//! `RegionServerServices`, reduced to the requests). The region server (the background
//! flusher, the compaction pools, the split worker) lives above this crate and holds
//! regions only weakly; a region holds the server only through this trait. So there is no
//! module cycle between regions and the workers, and no strong reference cycle.
//!
//! Every call is a request: an implementation queues the work and returns at once. Calls
//! come from writers, flush and compaction threads that may hold region locks (never the
//! flush lock: see `Region::flush_with`), so an implementation must not call back into
//! the region synchronously.

use crate::region::Region;
use std::sync::Arc;

/// What a region asks of the region server above it.
pub trait RegionServerServices: Send + Sync + std::fmt::Debug {
    /// A region opened: make it known to global-pressure flushing and to the periodic
    /// compaction check (HBase's `postOpenDeployTasks`; a region opened on references
    /// also asks for their compaction there).
    fn region_opened(&self, region: &Arc<Region>);

    /// The memstore of `region` passed its flush size (HBase's
    /// `MemStoreFlusher.requestFlush`). `false`: nothing runs flushes in the background,
    /// and the caller decides whether to flush inline.
    fn request_flush(&self, region: &Arc<Region>) -> bool;

    /// The memstores of the server together passed the global limit: flush the largest
    /// regions until the sum is under the lower limit. `false`: nothing runs flushes in the
    /// background.
    fn request_global_flush(&self) -> bool;

    /// `region` wants a system compaction (HBase's `CompactSplit.requestSystemCompaction`).
    fn request_compaction(&self, region: &Arc<Region>);

    /// Online regions of `table` (HBase: of the table on this server), for split policies.
    fn regions_of_table(&self, table: &str) -> u32;

    /// The split policy of region `encoded` of `table` asks for a split.
    fn request_split(&self, table: &str, encoded: &str);

    /// A region of `table` rewrote its last reference: a parent may be unreferenced now.
    fn references_cleared(&self, table: &str);

    /// The coprocessor hooks of `region`'s flushes and compactions (asked once per region
    /// instance; `None`: no hook).
    fn region_hooks(&self, region: &Region) -> Option<Arc<dyn crate::coprocessor::RegionHooks>> {
        let _ = region;
        None
    }
}
