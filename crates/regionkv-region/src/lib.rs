//! Region and Store: per family a memstore plus storefiles; per region MVCC, row locks,
//! the manifest of live files, flush and WAL recovery (HBase's `HRegion`, `HStore`,
//! `MultiVersionConcurrencyControl`, `MemStoreFlusher`). Query matching, compaction and
//! splits join under their issues.
//!
//! Module map: [`region`] (write path, flush, recovery), [`store`], [`mvcc`],
//! [`row_lock`], [`manifest`] (atomic file-set changes), [`flush`] (policy),
//! [`services`] (what regions share: WAL, flusher, global memstore budget),
//! [`scan`] (the merging heap), [`descriptor`] (HBase's table and family options),
//! [`compact`] (compaction mechanics), [`compaction`] (compaction selection policy),
//! [`filter`] (HBase's server-side filters and its filter language),
//! [`split`] (pre-split algorithms, split policies and split-point math).

#![forbid(unsafe_code)]

pub mod compact;
pub mod compaction;
pub mod descriptor;
mod error;
pub mod filter;
pub mod flush;
pub mod manifest;
pub mod mvcc;
pub mod read;
pub mod recovery;
pub mod region;
pub mod region_split;
pub mod row_lock;
pub mod scan;
pub mod services;
pub mod split;
pub mod store;
mod sync;

pub use compact::CompactionResult;
pub use descriptor::{ColumnFamilyDescriptor, KeepDeletedCells, TableDescriptor};
pub use error::{
    AttributeRule, AttributeScope, Error, RequestProblem, Result, SchemaProblem, SplitRefusal,
};
pub use manifest::{Manifest, RegionInfo};
pub use read::{ReadQuery, RegionScan, RegionScanner};
pub use recovery::{RecoveredWal, recover_owned_wal, recover_wal};
pub use region::{FlushResult, Region};
pub use region_split::RegionObserver;
pub use services::{CompactSplit, Flusher, GlobalMemStore, RegionConfig, RegionServices};
pub use store::Store;
