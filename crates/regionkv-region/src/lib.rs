//! Region and Store: per family a memstore plus storefiles; per region MVCC, row locks,
//! the manifest of live files, flush, compaction, the region's side of splits, and WAL
//! recovery (HBase's `HRegion`, `HStore`, `MultiVersionConcurrencyControl`).
//!
//! Module map: [`region`] (write path, flush, recovery), [`region_scanner`] (gets and
//! scans over the stores), [`store`], [`mvcc`], [`row_lock`], [`manifest`] (atomic
//! file-set changes), [`flush`] (policy), [`services`] (what regions share: WAL, block
//! cache, global memstore budget), [`region_server_services`] (the one way up to the
//! region server), [`scan`] (the merging heap and query matcher), [`descriptor`] (HBase's
//! table and family options), [`compaction`] (selection policy, and the mechanics in
//! [`compaction::compactor`]), [`filter`] (HBase's server-side filters and its filter
//! language), [`split`] (pre-split algorithms, split policies, split-point math, and the
//! daughters' and merged region's manifests in [`split::daughters`]).

#![forbid(unsafe_code)]

pub mod bulk_load;
pub mod commit_slots;
pub mod compaction;
pub mod coprocessor;
pub mod descriptor;
pub mod durability;
mod error;
pub mod file_link;
pub mod filter;
pub mod flush;
pub mod manifest;
pub mod mvcc;
pub mod recovery;
pub mod reference;
pub mod region;
pub mod region_scanner;
pub mod region_server_services;
pub mod row_lock;
pub mod scan;
pub mod services;
#[cfg(all(feature = "shuttle", not(test)))]
pub mod shuttle;
pub mod split;
pub mod store;
pub mod sync;

pub use compaction::compactor::CompactionResult;
pub use descriptor::{ColumnFamilyDescriptor, KeepDeletedCells, TableDescriptor};
pub use durability::Durability;
pub use error::{
    AttributeRule, AttributeScope, DescriptorError, Error, RequestProblem, Result, SchemaProblem,
    SplitRefusal,
};
pub use manifest::{Manifest, RegionInfo};
pub use recovery::{RecoveredWal, recover_owned_wal, recover_wal};
pub use region::{FlushResult, Region, RowWrite};
pub use region_scanner::{ReadQuery, RegionScan, RegionScanner};
pub use region_server_services::RegionServerServices;
pub use services::{GlobalMemStore, RegionConfig, RegionServices};
pub use store::Store;
