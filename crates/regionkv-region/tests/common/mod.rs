//! Shared test harness: a one-region "Db" on any file system, with a manual clock, that
//! can be stopped and restarted (recovering from its WAL) like a process.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use regionkv_cell::{Cell, CellType, ManualClock, SharedClock};
use regionkv_fs::Fs;
use regionkv_region::Durability;
use regionkv_region::{
    ColumnFamilyDescriptor, GlobalMemStore, RecoveredWal, Region, RegionConfig, RegionInfo,
    RegionServerServices, RegionServices, TableDescriptor, recover_wal,
};
use regionkv_regionserver::{CompactSplit, MemStoreFlusher, RegionServerWorkers};
use regionkv_storefile::StoreFileBlockCache;
use regionkv_wal::{RecoveryMode, Wal, WalConfig};
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub const ROOT: &str = "/db";

pub fn table(flush_size: u64, families: &[&[u8]]) -> TableDescriptor {
    let fams = families
        .iter()
        .map(|f| ColumnFamilyDescriptor::new(f).unwrap())
        .collect();
    let mut t = TableDescriptor::new("t1", fams).unwrap();
    t.memstore_flush_size = flush_size;
    t
}

/// A one-region "Db" on an arbitrary file system, that can be restarted.
pub struct Harness {
    pub fs: Arc<dyn Fs>,
    pub table: TableDescriptor,
    pub config: RegionConfig,
    pub with_flusher: bool,
    pub clock: ManualClock,
    pub region: Option<Arc<Region>>,
    pub wal: Option<Arc<Wal>>,
    pub flusher: Option<Arc<MemStoreFlusher>>,
    pub with_compactions: bool,
    pub compact_split: Option<Arc<CompactSplit>>,
    pub block_cache: Option<Arc<StoreFileBlockCache>>,
    /// The region server the region talks to instead of the harness's workers (a test's
    /// stand-in for the Db's split worker).
    pub server: Option<Arc<dyn RegionServerServices>>,
}

pub fn wal_dir() -> PathBuf {
    Path::new(ROOT).join("wal")
}
pub fn region_dir() -> PathBuf {
    Path::new(ROOT).join("data/default/t1/r")
}

impl Harness {
    pub fn new(
        fs: Arc<dyn Fs>,
        table: TableDescriptor,
        config: RegionConfig,
        with_flusher: bool,
    ) -> Self {
        let mut h = Self {
            fs,
            table,
            config,
            with_flusher,
            clock: ManualClock::new(1_000),
            region: None,
            wal: None,
            flusher: None,
            with_compactions: false,
            compact_split: None,
            block_cache: None,
            server: None,
        };
        h.start().unwrap();
        h
    }

    /// A harness with a background flusher and background compactions.
    pub fn background(fs: Arc<dyn Fs>, table: TableDescriptor, config: RegionConfig) -> Self {
        let mut h = Self {
            fs,
            table,
            config,
            with_flusher: true,
            clock: ManualClock::new(1_000),
            region: None,
            wal: None,
            flusher: None,
            with_compactions: true,
            compact_split: None,
            block_cache: None,
            server: None,
        };
        h.start().unwrap();
        h
    }

    /// The same harness with `server` answering the region's requests (reopened).
    pub fn with_server(mut self, server: Arc<dyn RegionServerServices>) -> Self {
        self.server = Some(server);
        self.restart();
        self
    }

    /// The same harness with storefile blocks read through `cache` (reopened).
    pub fn with_block_cache(mut self, cache: Arc<StoreFileBlockCache>) -> Self {
        self.block_cache = Some(cache);
        self.restart();
        self
    }

    pub fn start(&mut self) -> regionkv_region::Result<()> {
        let fs = self.fs.clone();
        fs.create_dir_all(Path::new(ROOT))?;
        let RecoveredWal { wal, edits, .. } = recover_wal(
            fs.clone(),
            &wal_dir(),
            WalConfig::default(),
            RecoveryMode::TolerateCorruptedTail,
        )?;
        let global = Arc::new(GlobalMemStore::new(1 << 30, 0.95));
        let flusher = self
            .with_flusher
            .then(|| MemStoreFlusher::start(1, global.clone()));
        let compact_split = self.with_compactions.then(|| CompactSplit::start(1, 1));
        let workers: Arc<dyn RegionServerServices> = Arc::new(RegionServerWorkers {
            flusher: flusher.clone(),
            compact_split: compact_split.clone(),
        });
        let services = RegionServices {
            config: self.config.clone(),
            global,
            block_cache: self.block_cache.clone(),
            server: Some(self.server.clone().unwrap_or(workers)),
            ..RegionServices::new(
                fs.clone(),
                wal.clone(),
                Arc::new(self.clock.clone()) as SharedClock,
            )
        };
        let region = if regionkv_region::Manifest::read(fs.as_ref(), &region_dir())?.is_some() {
            Region::open(&region_dir(), self.table.clone(), services, &edits)?
        } else {
            let info = RegionInfo::whole_table("t1", 1);
            Region::create(&region_dir(), info, self.table.clone(), services)?
        };
        self.region = Some(region);
        self.wal = Some(wal);
        self.flusher = flusher;
        self.compact_split = compact_split;
        Ok(())
    }

    /// Drops everything without flushing (a process exit), then opens again.
    pub fn restart(&mut self) {
        self.stop();
        self.start().unwrap();
    }

    pub fn stop(&mut self) {
        if let Some(f) = self.flusher.take() {
            f.shutdown();
        }
        if let Some(c) = self.compact_split.take() {
            c.shutdown();
        }
        self.region = None;
        self.wal = None;
    }

    pub fn region(&self) -> &Arc<Region> {
        self.region.as_ref().unwrap()
    }

    pub fn put(
        &self,
        row: &str,
        fam: &[u8],
        q: &str,
        v: &str,
        d: Durability,
    ) -> regionkv_region::Result<u64> {
        let c = Cell::put(row.as_bytes(), fam, q.as_bytes(), i64::MAX, v.as_bytes()).unwrap();
        self.region().mutate_row(row.as_bytes(), vec![c], d)
    }

    /// (row, family, qualifier, ts, type, value) of every raw cell.
    pub fn dump(&self) -> Vec<(String, String, String, i64, CellType, String)> {
        self.region()
            .scan_raw(b"", b"")
            .unwrap()
            .iter()
            .map(|c| {
                (
                    String::from_utf8_lossy(c.row()).into_owned(),
                    String::from_utf8_lossy(c.family()).into_owned(),
                    String::from_utf8_lossy(c.qualifier()).into_owned(),
                    c.timestamp(),
                    c.cell_type(),
                    String::from_utf8_lossy(c.value()).into_owned(),
                )
            })
            .collect()
    }
}
