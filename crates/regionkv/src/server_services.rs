//! The Db's answer to its regions' requests (`regionkv_region::RegionServerServices`):
//! flushes and compactions go to the background workers of `regionkv-regionserver`,
//! splits and parent clean-ups to the Db's split worker, which changes the table's region
//! list through the transition executor. This object is what a region holds of the
//! server: the workers and the split worker hold regions and the Db only weakly, so no
//! reference cycle keeps a closed Db alive.

use crate::split_worker::SplitWorker;
use regionkv_region::{Region, RegionServerServices};
use regionkv_regionserver::RegionServerWorkers;
use std::sync::Arc;

/// The region server services of one Db.
#[derive(Debug)]
pub(crate) struct ServerServices {
    pub(crate) workers: RegionServerWorkers,
    pub(crate) splitter: Arc<SplitWorker>,
    /// The observer classes the program registered (flush and compaction hooks).
    pub(crate) coprocessors: crate::coprocessor::CoprocessorRegistry,
}

impl RegionServerServices for ServerServices {
    fn region_opened(&self, region: &Arc<Region>) {
        self.workers.region_opened(region);
    }

    fn request_flush(&self, region: &Arc<Region>) -> bool {
        self.workers.request_flush(region)
    }

    fn request_global_flush(&self) -> bool {
        self.workers.request_global_flush()
    }

    fn request_compaction(&self, region: &Arc<Region>) {
        self.workers.request_compaction(region);
    }

    fn regions_of_table(&self, table: &str) -> u32 {
        self.splitter.regions_of_table(table)
    }

    fn request_split(&self, table: &str, encoded: &str) {
        self.splitter.split_requested(table, encoded);
    }

    fn references_cleared(&self, table: &str) {
        self.splitter.references_cleared(table);
    }

    fn region_hooks(
        &self,
        region: &Region,
    ) -> Option<Arc<dyn regionkv_region::coprocessor::RegionHooks>> {
        crate::coprocessor::RegionCoprocessorHost::of(&self.coprocessors, region).map(|h| {
            Arc::new(crate::coprocessor::HostHooks(h))
                as Arc<dyn regionkv_region::coprocessor::RegionHooks>
        })
    }
}
