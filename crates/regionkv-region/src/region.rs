//! `Region`: one key range of one table — its stores, MVCC, row locks, manifest, and its
//! share of the Db's WAL (HBase's `HRegion`).
//!
//! Write path (`mutate_row`): wait while the region or the Db is over its memstore limit
//! (bounded) → row lock → shared updates lock → stamp "latest" timestamps with the clock →
//! MVCC begin (the write number is the edit's sequence id) → WAL append at the mutation's
//! durability → memstore insert → MVCC complete (the whole row mutation becomes visible at
//! once) → release → ask for a flush when the memstore passed the flush size (both limits
//! on HBase's modeled heap size, `memstore_hbase_heap_size`).
//!
//! Flush: flush lock → exclusive updates lock, wait for in-flight writes, snapshot the
//! selected stores, note the flush sequence id → (no lock held) write each snapshot as a
//! storefile → record the files and each store's flushed sequence id in the manifest
//! (atomic replace) → swap the files in, drop the snapshots → tell the WAL which edits are
//! now in storefiles.
//!
//! Recovery (`open`): read the manifest, delete files it does not name, open the rest,
//! and replay the WAL edits of this region whose sequence id is above the flushed sequence
//! id of their store.
//!
//! Invariants:
//! 1. A storefile is live iff the manifest names it; the manifest is replaced atomically.
//! 2. For every store, every edit with sequence id ≤ its `flushed_seq_id` is in a live
//!    storefile; every acknowledged edit above it is in the WAL (unless SKIP_WAL).
//! 3. A failed WAL write, flush or manifest update poisons the region: later writes fail
//!    until it is reopened (the memstore still holds the data, so reads stay correct).

use crate::commit_slots::CommitSlots;
use crate::descriptor::TableDescriptor;
use crate::durability::Durability;
use crate::error::{Error, RequestProblem, Result};
use crate::flush::policy::{FlushPolicyConfig, StoreFlushStats};
use crate::manifest::{Manifest, RegionInfo, StoreFileMeta};
use crate::mvcc::Mvcc;
use crate::region_scanner::ReadQuery;
use crate::row_lock::RowLocks;
use crate::scan::heap::KeyValueHeap;
use crate::services::RegionServices;
use crate::store::{STOREFILE_EXT, Store, StoreFileHandle, StoreOwner};
use parking_lot::{Condvar, Mutex, RwLock};
use regionkv_cell::bytes::to_string_binary;
use regionkv_cell::key::LATEST_TIMESTAMP;
use regionkv_cell::{Cell, CellType, OwnedKey};
use regionkv_memstore::size::{HBASE_ACTIVE_SEGMENT_OVERHEAD, HBASE_SNAPSHOT_SEGMENT_OVERHEAD};
use regionkv_memstore::{MemStoreSize, Segment};
use regionkv_wal::{SyncMode, WalEdit, WalKeyRef};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

mod batch;
pub use batch::{MINI_BATCH_BYTES, MINI_BATCH_SIZE, RowWrite};

/// Stamps a write's cells: "latest" timestamps become `now` (the write's one clock read),
/// and every cell carries the write's sequence id.
fn stamp(cells: &mut [Cell], now: i64, seq: u64) {
    for c in cells {
        if c.timestamp() == LATEST_TIMESTAMP {
            c.set_timestamp(now);
        }
        c.set_seq_id(seq);
    }
}

/// How often a writer blocked on a full memstore asks for a flush again (HBase's
/// `hbase.server.thread.wakefrequency`, 10 s).
const BLOCKED_WRITER_WAKE: std::time::Duration = std::time::Duration::from_secs(10);

/// Clears a flag when dropped, unless it was cleared already.
struct ClearOnDrop<'a>(Option<&'a AtomicBool>);

impl ClearOnDrop<'_> {
    /// Clears the flag now, and not again on drop.
    fn clear(&mut self) {
        if let Some(flag) = self.0.take() {
            flag.store(false, Ordering::Release);
        }
    }
}

impl Drop for ClearOnDrop<'_> {
    fn drop(&mut self) {
        self.clear();
    }
}

/// What a flush did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FlushResult {
    /// Sequence id the flush covers.
    pub flush_seq_id: u64,
    /// Families that wrote a file.
    pub flushed_families: Vec<Vec<u8>>,
    /// Files written.
    pub files: Vec<StoreFileMeta>,
    /// A store that wrote a file now has enough files for the compaction policy to look
    /// at (HBase's `FlushResult#isCompactionNeeded`: the OR of `needsCompaction` over the
    /// committed stores). Whoever asked for the flush requests a system compaction on it,
    /// as HBase's flusher and its user-triggered `flushRegion` both do.
    pub compaction_needed: bool,
}

/// Region-level counters (HBase's region metrics).
///
/// The request counters follow HBase 2.x's `HRegion` and `RegionScannerImpl`, so the
/// hotspots they show are the ones a cluster would show:
/// - `read_requests` (`readRequestsCount`): one per non-empty result a region scanner
///   returns — a row, or a `batch` piece of one. A get is a one-row scan: one read when it
///   finds something, none when it finds nothing. A scan of 3,000 rows is 3,000 reads.
/// - `filtered_read_requests` (`filteredReadRequestsCount`): one per row the scanner met
///   but did not return — dropped by the filter's `filterRowKey`, `filterRowCells` or
///   `filterRow`, or left empty by deletes, TTL, versions or the columns asked for.
/// - `write_requests` (`writeRequestsCount`): one per mutation (`batchMutate` adds the
///   batch's size): a Put, Delete, Increment or Append is one, a RowMutations one per
///   mutation in it, a checkAndMutate counts its action only when the check passes.
#[derive(Debug, Default)]
pub struct RegionMetrics {
    /// Mutations applied (HBase's `writeRequestsCount`).
    pub write_requests: AtomicU64,
    /// Non-empty results returned (HBase's `readRequestsCount`).
    pub read_requests: AtomicU64,
    /// Rows read and not returned (HBase's `filteredReadRequestsCount`).
    pub filtered_read_requests: AtomicU64,
    /// Flushes that wrote at least one file.
    pub flushes: AtomicU64,
    /// Times a writer waited for a blocked memstore.
    pub blocked_writes: AtomicU64,
    /// WAL edits replayed at open.
    pub replayed_edits: AtomicU64,
    /// Compactions run (rewrites, not whole-file TTL removals).
    pub compactions: AtomicU64,
    /// Bytes of storefiles read by compactions.
    pub compacted_bytes_in: AtomicU64,
    /// Bytes of storefiles written by compactions.
    pub compacted_bytes_out: AtomicU64,
    /// Time spent compacting, in microseconds.
    pub compaction_micros: AtomicU64,
    /// Bulk loads committed into the region.
    pub bulk_loads: AtomicU64,
}

/// One region.
#[derive(Debug)]
pub struct Region {
    info: RegionInfo,
    encoded: String,
    dir: PathBuf,
    table: TableDescriptor,
    stores: BTreeMap<Vec<u8>, Arc<Store>>,
    mvcc: Arc<Mvcc>,
    row_locks: RowLocks,
    /// Writers inside the write path (row lock to visibility), at most as many as the
    /// machine has cores (`commit_slots` module docs).
    commit_slots: CommitSlots,
    services: RegionServices,
    manifest: Mutex<Manifest>,
    /// Writers hold it shared; a flush takes it exclusively to snapshot (HBase's
    /// `updatesLock`).
    updates: RwLock<()>,
    flush_lock: Mutex<()>,
    /// A flush was asked of the flusher and has not run yet (HBase's
    /// `writestate.flushRequested`): writes past the flush size ask once, not once each
    /// while the flush they asked for runs. Cleared when a flush ends.
    flush_requested: AtomicBool,
    compaction_lock: Mutex<()>,
    /// Sum of the stores' memstore data sizes (cell bytes: what a flush writes).
    memstore_size: AtomicU64,
    /// Sum of the stores' memstore heap sizes (memory held: what the Db-wide budget counts).
    memstore_heap_size: AtomicU64,
    /// Sum of the stores' memstore heap sizes as HBase 2.x models them (what the flush
    /// size, the blocking size and the flush policy compare): charged adds plus segment
    /// overheads, kept equal to the sum of `MemStore::hbase_heap_size` over the stores.
    memstore_hbase_heap_size: AtomicU64,
    flushed: (Mutex<()>, Condvar),
    poisoned: Mutex<Option<String>>,
    /// Set when `close` starts: the closing flush asks for no split.
    closing: AtomicBool,
    closed: AtomicBool,
    /// Shared with the region's scanners, which count the rows they return.
    metrics: Arc<RegionMetrics>,
    /// The split policy configured for this region, made on first use.
    split_state: std::sync::OnceLock<crate::split::daughters::RegionSplitState>,
    /// What the layer above keeps with this instance of the region: its coprocessor
    /// host, made on first use, so a reopened region or a split's daughter starts afresh.
    coprocessors: std::sync::OnceLock<Arc<dyn std::any::Any + Send + Sync>>,
    /// The coprocessor hooks of this instance's flushes and compactions, asked of the
    /// server once.
    hooks: std::sync::OnceLock<Option<Arc<dyn crate::coprocessor::RegionHooks>>>,
}

impl Region {
    /// Creates a new, empty region in `dir` (which must not hold one) and opens it.
    pub fn create(
        dir: &Path,
        info: RegionInfo,
        table: TableDescriptor,
        services: RegionServices,
    ) -> Result<Arc<Self>> {
        table.validate()?;
        let fs = services.fs.clone();
        fs.create_dir_all(dir)?;
        if Manifest::read(fs.as_ref(), dir)?.is_some() {
            return Err(Error::RegionExists {
                path: dir.to_path_buf(),
            });
        }
        let families: Vec<Vec<u8>> = table.families.iter().map(|f| f.name.clone()).collect();
        Manifest::new(info.clone(), &families).write(fs.as_ref(), dir)?;
        if let Some(parent) = dir.parent() {
            fs.sync_dir(parent)?;
        }
        Self::open_as(dir, &info, table, services, &[])
    }

    /// Opens the region in `dir`, replaying `edits` (the WAL's, for every region; only this
    /// region's and only those not yet flushed are applied).
    pub fn open(
        dir: &Path,
        table: TableDescriptor,
        services: RegionServices,
        edits: &[WalEdit],
    ) -> Result<Arc<Self>> {
        Self::open_checked(dir, None, table, services, edits, &[])
    }

    /// [`Self::open`] for a region the caller knows: the manifest in `dir` must say it is
    /// region `expected` (table, key range and id, so its encoded name too). A manifest
    /// copied or swapped from another region's directory is [`Error::Misplaced`], never
    /// served as this region.
    pub fn open_as(
        dir: &Path,
        expected: &RegionInfo,
        table: TableDescriptor,
        services: RegionServices,
        edits: &[WalEdit],
    ) -> Result<Arc<Self>> {
        Self::open_checked(dir, Some(expected), table, services, edits, &[])
    }

    /// [`Self::open_as`] for a read-only open (`services.read_only` must be set): writes
    /// nothing, and sees the files of a committed but unpublished bulk load (`pending`, read
    /// from its record) as the writer will once its next open rolls the load forward.
    pub fn open_read_only(
        dir: &Path,
        expected: &RegionInfo,
        table: TableDescriptor,
        services: RegionServices,
        edits: &[WalEdit],
        pending: &[crate::bulk_load::BulkFile],
    ) -> Result<Arc<Self>> {
        if !services.read_only {
            return Err(Error::Inconsistent {
                region: dir.display().to_string(),
                what: "Region::open_read_only with writable services".into(),
            });
        }
        Self::open_checked(dir, Some(expected), table, services, edits, pending)
    }

    fn open_checked(
        dir: &Path,
        expected: Option<&RegionInfo>,
        table: TableDescriptor,
        services: RegionServices,
        edits: &[WalEdit],
        pending: &[crate::bulk_load::BulkFile],
    ) -> Result<Arc<Self>> {
        let span = tracing::info_span!("recovery", region = %dir.display());
        let _enter = span.enter();
        let fs = services.fs.clone();
        let mut manifest = Manifest::read(fs.as_ref(), dir)?.ok_or_else(|| Error::Corrupt {
            what: "region",
            path: Manifest::path(dir),
            offset: 0,
            reason: "the region directory has no manifest".to_string(),
        })?;
        let describe = |r: &RegionInfo| {
            format!(
                "region {} of table {} [{}, {}) id {}",
                r.encoded_name(),
                r.table,
                to_string_binary(&r.start_key),
                to_string_binary(&r.end_key),
                r.region_id
            )
        };
        if let Some(want) = expected
            && manifest.region != *want
        {
            return Err(Error::Misplaced {
                what: "manifest",
                path: Manifest::path(dir),
                claims: describe(&manifest.region),
                found_as: describe(want),
            });
        }
        if manifest.region.table != table.name {
            return Err(Error::Misplaced {
                what: "manifest",
                path: Manifest::path(dir),
                claims: describe(&manifest.region),
                found_as: format!("a region of table {}", table.name),
            });
        }
        // In memory only: the writer lists them on disk (read-only opens only pass any).
        crate::bulk_load::add_to_manifest(&mut manifest, pending);
        let encoded = manifest.region.encoded_name();
        Self::reconcile_families(fs.as_ref(), dir, &mut manifest, &table, services.read_only)?;
        let mut stores = BTreeMap::new();
        let mut max_seq = 0u64;
        for family in &table.families {
            let sm = manifest
                .stores
                .entry(family.name.clone())
                .or_default()
                .clone();
            max_seq = max_seq.max(sm.flushed_seq_id);
            max_seq = max_seq.max(sm.files.iter().map(|f| f.max_seq_id).max().unwrap_or(0));
            let owner = StoreOwner {
                table: table.name.clone(),
                region: encoded.clone(),
            };
            let store = Store::open(
                fs.clone(),
                dir,
                owner,
                family.clone(),
                &sm,
                services.block_cache.clone(),
                services.memstore.clone(),
                services.read_only,
            )?;
            // The entries as opened (with the checksums older manifests lacked).
            if let Some(entry) = manifest.stores.get_mut(&family.name) {
                entry.files = store.files().iter().map(|h| h.meta.clone()).collect();
            }
            // A storefile left in the directory (one of another store, kept for repair)
            // holds its name: new files are numbered past it, or a flush would collide.
            for name in fs.list(store.dir())? {
                let id = name
                    .strip_suffix(&format!(".{STOREFILE_EXT}"))
                    .and_then(|n| n.parse::<u64>().ok());
                if let Some(id) = id {
                    manifest.next_file_id = manifest.next_file_id.max(id.saturating_add(1));
                }
            }
            stores.insert(family.name.clone(), Arc::new(store));
        }
        let active_overheads = stores.len() as u64 * HBASE_ACTIVE_SEGMENT_OVERHEAD;
        let region = Self {
            info: manifest.region.clone(),
            encoded,
            dir: dir.to_path_buf(),
            table,
            stores,
            mvcc: Arc::new(Mvcc::new(max_seq)),
            row_locks: RowLocks::new(),
            commit_slots: CommitSlots::for_this_machine(),
            services,
            manifest: Mutex::new(manifest),
            updates: RwLock::new(()),
            flush_lock: Mutex::new(()),
            flush_requested: AtomicBool::new(false),
            compaction_lock: Mutex::new(()),
            memstore_size: AtomicU64::new(0),
            memstore_heap_size: AtomicU64::new(0),
            // Every store's active segment weighs its overhead from the start, as HBase's
            // `AbstractMemStore#resetActive` reports it to the region when the store opens.
            memstore_hbase_heap_size: AtomicU64::new(active_overheads),
            flushed: (Mutex::new(()), Condvar::new()),
            poisoned: Mutex::new(None),
            closing: AtomicBool::new(false),
            closed: AtomicBool::new(false),
            metrics: Arc::default(),
            split_state: std::sync::OnceLock::new(),
            coprocessors: std::sync::OnceLock::new(),
            hooks: std::sync::OnceLock::new(),
        };
        region.replay(edits)?;
        // Logs holding only edits that are already in storefiles can go (a read-only
        // region has no WAL: the logs are the writer's to trim).
        let min_flushed = region.min_flushed_seq_id();
        if let Some(wal) = &region.services.wal {
            wal.mark_flushed(region.encoded.as_bytes(), min_flushed)?;
        }
        let region = Arc::new(region);
        if let Some(server) = &region.services.server {
            server.region_opened(&region);
        }
        tracing::info!(
            region = %region.encoded,
            seq = region.mvcc.read_point(),
            replayed = region.metrics.replayed_edits.load(Ordering::Relaxed),
            "region opened"
        );
        Ok(region)
    }

    /// Brings the manifest in line with the table's families after an alter: a family
    /// the table no longer has loses its files (HBase deletes the family directory); a
    /// family new to the region starts with every earlier edit counted as flushed, so
    /// edits of an earlier family of the same name still in the WAL never come back.
    fn reconcile_families(
        fs: &dyn regionkv_fs::Fs,
        dir: &Path,
        manifest: &mut Manifest,
        table: &TableDescriptor,
        read_only: bool,
    ) -> Result<()> {
        let dropped: Vec<Vec<u8>> = manifest
            .stores
            .keys()
            .filter(|f| table.family(f).is_none())
            .cloned()
            .collect();
        let high = manifest
            .stores
            .values()
            .map(|s| s.flushed_seq_id)
            .max()
            .unwrap_or(0);
        let added: Vec<Vec<u8>> = table
            .families
            .iter()
            .filter(|f| !manifest.stores.contains_key(&f.name))
            .map(|f| f.name.clone())
            .collect();
        if dropped.is_empty() && added.is_empty() {
            return Ok(());
        }
        for f in &dropped {
            manifest.stores.remove(f);
        }
        for f in &added {
            manifest.stores.insert(
                f.clone(),
                crate::manifest::StoreManifest {
                    flushed_seq_id: high,
                    files: Vec::new(),
                },
            );
        }
        if read_only {
            // The same view in memory; the writer's next open of the region settles the
            // directory.
            return Ok(());
        }
        manifest.write(fs, dir)?;
        for f in &dropped {
            let fam_dir = dir.join(String::from_utf8_lossy(f).as_ref());
            tracing::info!(dir = %fam_dir.display(), "removing the files of a dropped family");
            if fs.exists(&fam_dir)? {
                fs.remove_dir_all(&fam_dir)?;
            }
        }
        Ok(())
    }

    /// Applies the WAL edits of this region that are not in its storefiles.
    fn replay(&self, edits: &[WalEdit]) -> Result<()> {
        let flushed: BTreeMap<Vec<u8>, u64> = {
            let m = self.manifest.lock();
            m.stores
                .iter()
                .map(|(f, s)| (f.clone(), s.flushed_seq_id))
                .collect()
        };
        let mut max_seq = self.mvcc.read_point();
        let mut replayed = 0u64;
        for edit in edits {
            if edit.key.region != self.encoded.as_bytes() {
                continue;
            }
            let mut applied = false;
            for cell in &edit.cells {
                let Some(store) = self.stores.get(cell.family()) else {
                    // A family dropped since the edit was written.
                    continue;
                };
                if edit.key.seq_id <= flushed.get(cell.family()).copied().unwrap_or(0) {
                    continue;
                }
                let mut c = cell.clone();
                c.set_seq_id(edit.key.seq_id);
                let delta = store.add(c.as_cell_ref(), self.services.clock.now_millis());
                self.account_add(delta);
                applied = true;
            }
            if applied {
                replayed += 1;
                max_seq = max_seq.max(edit.key.seq_id);
            }
        }
        self.mvcc.advance_to(max_seq);
        self.metrics
            .replayed_edits
            .fetch_add(replayed, Ordering::Relaxed);
        Ok(())
    }

    /// True once [`Region::close`] ran.
    pub fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Acquire)
    }

    /// True once [`Region::close`] started.
    pub fn is_closing(&self) -> bool {
        self.closing.load(Ordering::Acquire)
    }

    /// The split policy configured for this region (made on first use; a table whose
    /// policy cannot be resolved falls back to HBase's default, as HBase does).
    pub(crate) fn split_state(&self) -> &crate::split::daughters::RegionSplitState {
        self.split_state.get_or_init(|| {
            let now = self.services.clock.now_millis();
            crate::split::daughters::RegionSplitState::new(self, now).unwrap_or_else(|e| {
                tracing::warn!(region = %self.encoded, error = %e, "invalid split policy; using the default");
                crate::split::daughters::RegionSplitState::fallback(self)
            })
        })
    }

    /// The slot where the layer above keeps its per-instance coprocessor state (set once).
    pub fn coprocessor_slot(&self) -> &std::sync::OnceLock<Arc<dyn std::any::Any + Send + Sync>> {
        &self.coprocessors
    }

    /// The coprocessor hooks of flushes and compactions (`None`: no observer).
    pub(crate) fn hooks(&self) -> Option<&Arc<dyn crate::coprocessor::RegionHooks>> {
        self.hooks
            .get_or_init(|| {
                self.services
                    .server
                    .as_ref()
                    .and_then(|s| s.region_hooks(self))
            })
            .as_ref()
    }

    /// The region's identity.
    pub fn info(&self) -> &RegionInfo {
        &self.info
    }
    /// HBase-style encoded name.
    pub fn encoded_name(&self) -> &str {
        &self.encoded
    }
    /// The region directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
    /// The table descriptor.
    pub fn table(&self) -> &TableDescriptor {
        &self.table
    }
    /// The stores by family.
    pub fn stores(&self) -> &BTreeMap<Vec<u8>, Arc<Store>> {
        &self.stores
    }
    /// MVCC.
    pub fn mvcc(&self) -> &Arc<Mvcc> {
        &self.mvcc
    }
    /// Counters.
    pub fn metrics(&self) -> &RegionMetrics {
        &self.metrics
    }

    /// The counters, for a scanner that outlives the borrow of the region.
    pub(crate) fn metrics_handle(&self) -> Arc<RegionMetrics> {
        Arc::clone(&self.metrics)
    }
    /// Sum of the stores' memstore data sizes: the cell bytes a flush would write (HBase's
    /// `getMemStoreDataSize`: what a region reports as its memstore size, and whether it
    /// has anything to flush).
    pub fn memstore_data_size(&self) -> u64 {
        self.memstore_size.load(Ordering::Acquire)
    }
    /// Sum of the stores' memstore heap sizes as HBase 2.x models them
    /// (`HRegion#getMemStoreHeapSize`; rules in `regionkv_memstore::size`, "HBase's heap
    /// size"): what the flush size (`HRegion#isFlushSize`) and the blocking size
    /// (`HRegion#checkResources`) are compared with, as HBase does since HBASE-18294. A cell
    /// with a 100-byte value weighs about 1.6 times its data size here; an empty store
    /// weighs its segment's overhead.
    pub fn memstore_hbase_heap_size(&self) -> u64 {
        self.memstore_hbase_heap_size.load(Ordering::Acquire)
    }
    /// Sum of the stores' memstore heap sizes: the memory the memstores hold (arena chunks
    /// with their slack, index entries, own buffers), which the Db-wide budget counts.
    pub fn memstore_heap_size(&self) -> u64 {
        self.memstore_heap_size.load(Ordering::Acquire)
    }
    /// A copy of the current manifest.
    pub fn manifest(&self) -> Manifest {
        self.manifest.lock().clone()
    }

    /// Runs `f` on the current manifest while no file it names can be removed: the
    /// compaction lock is held (compactions, expired-file removal and a close for a split
    /// wait), and flushes and bulk loads only add files. A snapshot links the files here
    /// (HBase's `HRegion.addRegionToSnapshot`); it waits for a running compaction.
    pub fn with_live_files<T>(&self, f: impl FnOnce(&Manifest) -> T) -> Result<T> {
        let _no_compaction = self.compaction_lock().lock();
        self.check_readable()?;
        let manifest = self.manifest();
        Ok(f(&manifest))
    }

    /// The smallest flushed sequence id over the stores: every edit of this region at or
    /// below it is in a storefile.
    fn min_flushed_seq_id(&self) -> u64 {
        self.manifest
            .lock()
            .stores
            .values()
            .map(|s| s.flushed_seq_id)
            .min()
            .unwrap_or(0)
    }

    /// Counts what adds to the memstores reported, here and in the Db-wide budget.
    fn account_add(&self, delta: MemStoreSize) {
        self.memstore_size
            .fetch_add(delta.data_size, Ordering::AcqRel);
        self.memstore_heap_size
            .fetch_add(delta.heap_size, Ordering::AcqRel);
        self.memstore_hbase_heap_size
            .fetch_add(delta.hbase_heap_size, Ordering::AcqRel);
        self.services.global.add(delta);
    }

    /// Takes back what `snapshots` flushed snapshots held: a segment's size is exactly the
    /// sum of the deltas its adds reported, so the counters return to what the other
    /// segments hold. HBase's modeled heap size also drops each snapshot's segment overhead
    /// (HBase's flush takes back the snapshot's whole size).
    fn account_sub(&self, delta: MemStoreSize, snapshots: u64) {
        crate::services::saturating_sub(&self.memstore_size, delta.data_size);
        crate::services::saturating_sub(&self.memstore_heap_size, delta.heap_size);
        crate::services::saturating_sub(
            &self.memstore_hbase_heap_size,
            delta.hbase_heap_size + snapshots * HBASE_SNAPSHOT_SEGMENT_OVERHEAD,
        );
        self.services.global.sub(delta);
    }

    pub(crate) fn check_open(&self) -> Result<()> {
        if self.closed.load(Ordering::Acquire) {
            return Err(Error::Closed(self.encoded.clone()));
        }
        if let Some(cause) = self.poisoned.lock().clone() {
            return Err(Error::Poisoned {
                region: self.encoded.clone(),
                cause,
            });
        }
        Ok(())
    }

    pub(crate) fn poison(&self, cause: &Error) {
        let mut p = self.poisoned.lock();
        if p.is_none() {
            tracing::error!(region = %self.encoded, error = %cause, "region poisoned: refusing writes until reopened");
            *p = Some(cause.to_string());
        }
    }

    fn blocking_size(&self) -> u64 {
        self.table
            .memstore_flush_size
            .saturating_mul(self.services.config.block_multiplier)
    }

    /// Waits (bounded) while this region's memstore is above its blocking size or the Db
    /// is above its global limit (HBase's `checkResources`). The blocking size is checked
    /// against HBase's modeled heap size ([`Self::memstore_hbase_heap_size`]), as HBase
    /// compares heap + off-heap size with it; the global limit against the memory the
    /// budget counts (`services` module docs).
    fn check_resources(self: &Arc<Self>) -> Result<()> {
        let limit = self.blocking_size();
        if self.memstore_hbase_heap_size() > limit {
            self.metrics.blocked_writes.fetch_add(1, Ordering::Relaxed);
            tracing::warn!(
                region = %self.encoded,
                size = self.memstore_hbase_heap_size(),
                data_size = self.memstore_data_size(),
                limit,
                "blocking updates: memstore above the blocking limit"
            );
            let deadline = Instant::now() + self.services.config.busy_wait;
            loop {
                // Asked again at every wake-up, as HBase's `checkResources` does (every
                // `hbase.server.thread.wakefrequency`): a flush that ended without
                // freeing enough leaves no request behind.
                self.request_flush();
                let step = (Instant::now() + BLOCKED_WRITER_WAKE).min(deadline);
                let mut g = self.flushed.0.lock();
                while self.memstore_hbase_heap_size() > limit {
                    if self.flushed.1.wait_until(&mut g, step).timed_out() {
                        break;
                    }
                }
                drop(g);
                if self.memstore_hbase_heap_size() <= limit {
                    break;
                }
                if Instant::now() >= deadline {
                    return Err(Error::RegionTooBusy {
                        region: self.encoded.clone(),
                        size: self.memstore_hbase_heap_size(),
                        limit,
                    });
                }
            }
        }
        let global = &self.services.global;
        if global.size() > global.limit() {
            tracing::warn!(
                heap_size = global.size(),
                data_size = global.data_size(),
                limit = global.limit(),
                "blocking updates: global memstore above its limit"
            );
            let queued = self
                .services
                .server
                .as_ref()
                .is_some_and(|s| s.request_global_flush());
            if !queued {
                // No background flusher: relieve the pressure here.
                self.flush()?;
            }
            if !global.wait_below_limit(self.services.config.busy_wait) {
                return Err(Error::RegionTooBusy {
                    region: self.encoded.clone(),
                    size: global.size(),
                    limit: global.limit(),
                });
            }
        }
        Ok(())
    }

    /// A memstore over its flush size asks the flusher; with no flusher and
    /// `inline_flush` the writer flushes here, so a Db without background threads (tests,
    /// the lab's simulations) flushes and splits where HBase's flusher would,
    /// deterministically. REQUIRES: no row lock or updates lock held (the flush takes the
    /// updates lock).
    fn request_flush(self: &Arc<Self>) {
        // HBase's `requestFlush0`: a region asks once until the flush it asked for has run
        // (any flush ending clears the flag). Without it, every write during a flush asked
        // again, and the second flush thread flushed the few MB written meanwhile as soon
        // as the first was done: three flushes and files where HBase makes one.
        if self.flush_requested.swap(true, Ordering::AcqRel) {
            return;
        }
        let queued = self
            .services
            .server
            .as_ref()
            .is_some_and(|s| s.request_flush(self));
        if !queued {
            // No flusher will run it later: the request ends here, flushed or not.
            self.flush_requested.store(false, Ordering::Release);
            if self.services.config.inline_flush
                && let Err(e) = self.flush()
            {
                tracing::warn!(region = %self.encoded, error = %e, "inline flush failed");
            }
        }
    }

    /// Applies one row mutation atomically: every cell must be of `row` and of a family of
    /// the table. Cells whose timestamp is `LATEST_TIMESTAMP` get the clock's time. Returns
    /// the mutation's sequence id.
    pub fn mutate_row(
        self: &Arc<Self>,
        row: &[u8],
        cells: Vec<Cell>,
        durability: Durability,
    ) -> Result<u64> {
        self.mutate_row_with(row, durability, |_, _| Ok((cells, ())))
            .map(|(seq, ())| seq)
    }

    /// The read-modify-write form of [`Region::mutate_row`] (HBase's increment, append and
    /// checkAndMutate): `prepare` runs under the row lock with the region and the
    /// mutation's time, reads the row as no other writer can change it, and returns the
    /// cells to apply (none: nothing is written) and a value handed back with the
    /// sequence id. `prepare` fails with the caller's error type `E`, which the region's
    /// own errors convert into.
    pub fn mutate_row_with<T, E: From<Error>>(
        self: &Arc<Self>,
        row: &[u8],
        durability: Durability,
        prepare: impl FnOnce(&Region, i64) -> std::result::Result<(Vec<Cell>, T), E>,
    ) -> std::result::Result<(u64, T), E> {
        self.mutate_row_counted(row, durability, 1, prepare)
    }

    /// [`Region::mutate_row_with`] for `mutations` client mutations at once (a
    /// RowMutations, or the action of a checkAndMutate): HBase's `batchMutate` adds the
    /// batch's size to `writeRequestsCount`. Counted once `prepare` has cells to apply
    /// (a failed check writes nothing and counts nothing), before they are validated, as
    /// HBase counts before `checkAndPrepare`.
    pub fn mutate_row_counted<T, E: From<Error>>(
        self: &Arc<Self>,
        row: &[u8],
        durability: Durability,
        mutations: u64,
        prepare: impl FnOnce(&Region, i64) -> std::result::Result<(Vec<Cell>, T), E>,
    ) -> std::result::Result<(u64, T), E> {
        self.check_open()?;
        self.check_writable("write")?;
        self.check_row_of_region(row)?;
        self.check_resources()?;
        let durability = self.table.effective_durability(durability);
        let mode = durability.sync_mode();
        // A commit slot before the row lock (`commit_slots` module docs); an FSYNC_WAL
        // write takes none: it waits for the disk, sharing syncs with other writers.
        let slot = (mode != Some(SyncMode::Fsync)).then(|| self.commit_slots.acquire());
        let _row = self
            .row_locks
            .lock(row, self.services.config.row_lock_wait)
            .ok_or_else(|| Error::RowLockTimeout(to_string_binary(row)))?;
        // HBase reads the batch time once, after taking the row lock.
        let now = self.services.clock.now_millis();
        let (mut cells, out) = prepare(self, now)?;
        if !cells.is_empty() {
            self.metrics
                .write_requests
                .fetch_add(mutations, Ordering::Relaxed);
        }
        self.check_cells_of_row(row, &cells)?;
        if cells.is_empty() {
            return Ok((self.mvcc.read_point(), out));
        }
        let updates = self.updates.read();
        self.check_open()?;
        self.prepare_delete_timestamps(row, &mut cells, now)?;
        let seq = self.commit(cells, now, mode)?;
        drop(updates);
        drop(_row);
        drop(slot);
        self.after_write();
        Ok((seq, out))
    }

    /// Commits one row mutation: an MVCC entry, a WAL record at `mode` (none: SKIP_WAL),
    /// the memstore insert, the wait for visibility. Returns its sequence id. REQUIRES:
    /// the row lock and the updates lock (shared) held, the region checked open.
    fn commit(&self, mut cells: Vec<Cell>, now: i64, mode: Option<SyncMode>) -> Result<u64> {
        let entry = self.mvcc.begin();
        let seq = entry.write_number();
        stamp(&mut cells, now, seq);
        if let Some(mode) = mode
            && let Err(e) = self.append_to_wal(seq, now, &cells, mode)
        {
            // Nothing of this write reached the memstore: complete the entry as empty.
            self.mvcc.complete(entry);
            return Err(e);
        }
        self.add_to_memstore(&cells, now);
        self.mvcc.complete_and_wait(entry);
        Ok(seq)
    }

    /// The checks of a mutation's row before anything is locked: a legal row, and one of
    /// this region (else `WrongRegion`, which tells the caller to look the region up again).
    fn check_row_of_region(&self, row: &[u8]) -> Result<()> {
        regionkv_cell::limits::check_row(row)?;
        if !self.info.contains_row(row) {
            return Err(Error::WrongRegion {
                row: to_string_binary(row),
                region: self.encoded.clone(),
                start: to_string_binary(&self.info.start_key),
                end: to_string_binary(&self.info.end_key),
            });
        }
        Ok(())
    }

    /// Every cell of a row mutation is of `row` and of a family of the table.
    fn check_cells_of_row(&self, row: &[u8], cells: &[Cell]) -> Result<()> {
        for c in cells {
            if c.row() != row {
                return Err(Error::InvalidRequest(RequestProblem::CellOfOtherRow {
                    cell_row: to_string_binary(c.row()),
                    row: to_string_binary(row),
                }));
            }
            if !self.stores.contains_key(c.family()) {
                return Err(Error::NoSuchColumnFamily {
                    family: to_string_binary(c.family()),
                    region: self.encoded.clone(),
                    table: self.table.name.clone(),
                });
            }
        }
        Ok(())
    }

    /// Appends one WAL record of `cells` (all stamped with `seq`) at `mode`. A failure
    /// poisons the region (invariant 3). REQUIRES: the updates lock is held shared and the
    /// MVCC entry `seq` is open.
    fn append_to_wal(&self, seq: u64, now: i64, cells: &[Cell], mode: SyncMode) -> Result<()> {
        let key = WalKeyRef {
            region: self.encoded.as_bytes(),
            table: &self.table.name,
            seq_id: seq,
            write_time: now,
        };
        let appended = match &self.services.wal {
            Some(wal) => wal.append_cells(key, cells, mode),
            // Only a read-only region has no WAL, and it refused the write before.
            None => Err(regionkv_wal::Error::Closed),
        };
        appended.map_err(|e| {
            let e = Error::from(e);
            self.poison(&e);
            e
        })
    }

    /// Inserts `cells` (families checked) into their stores' memstores and counts them.
    /// REQUIRES: the updates lock is held shared and the cells' MVCC entry is open.
    fn add_to_memstore(&self, cells: &[Cell], now: i64) {
        let mut added = MemStoreSize::ZERO;
        for c in cells {
            if let Some(store) = self.stores.get(c.family()) {
                added += store.add(c.as_cell_ref(), now);
            }
        }
        self.account_add(added);
    }

    /// After a write, with no lock held: asks for the flushes the memstore sizes call for.
    /// The region's own flush is HBase's `requestFlushIfNeeded`: its modeled heap size
    /// above the flush size (`HRegion#isFlushSize`).
    fn after_write(self: &Arc<Self>) {
        if self.memstore_hbase_heap_size() > self.table.memstore_flush_size {
            self.request_flush();
        }
        if self.services.global.size() > self.services.global.limit()
            && let Some(server) = &self.services.server
        {
            server.request_global_flush();
        }
    }

    /// HBase's `prepareDeleteTimestamps`: a one-version Delete without a timestamp deletes
    /// the newest visible version of its column — the n-th newest for the n-th such Delete
    /// of the column in the mutation — or, when there is none, gets "now" like every other
    /// cell without a timestamp. REQUIRES: the row lock is held.
    fn prepare_delete_timestamps(&self, row: &[u8], cells: &mut [Cell], now: i64) -> Result<()> {
        let mut counts: BTreeMap<(Vec<u8>, Vec<u8>), u32> = BTreeMap::new();
        for c in cells.iter_mut() {
            if c.timestamp() != LATEST_TIMESTAMP || c.cell_type() != CellType::Delete {
                continue;
            }
            let column = (c.family().to_vec(), c.qualifier().to_vec());
            let n = counts.entry(column).or_insert(0);
            *n += 1;
            let query = ReadQuery::default()
                .column(c.family(), c.qualifier())
                .versions(*n);
            let versions = self.get(row, &query)?;
            let ts = versions
                .get(*n as usize - 1)
                .filter(|_| versions.len() == *n as usize)
                .map_or(now, Cell::timestamp);
            c.set_timestamp(ts);
        }
        Ok(())
    }

    /// Flushes the stores the flush policy selects (HBase's `flushcache`).
    pub fn flush(&self) -> Result<FlushResult> {
        self.flush_with(false, None, false)
    }

    /// Flushes every store, whatever the policy says (an explicit `Admin::flush`).
    pub fn flush_all(&self) -> Result<FlushResult> {
        self.flush_with(true, None, false)
    }

    /// Flushes the stores of `families` only (HBase's `flush 'table', 'family'`).
    pub fn flush_families(&self, families: &[Vec<u8>]) -> Result<FlushResult> {
        for f in families {
            self.store(f)?;
        }
        self.flush_with(true, Some(families), false)
    }

    /// `closing_flush`: the last flush of `close`, after writes stopped.
    /// `only`: flush just these families.
    fn flush_with(
        &self,
        all: bool,
        only: Option<&[Vec<u8>]>,
        closing_flush: bool,
    ) -> Result<FlushResult> {
        if self.closed.load(Ordering::Acquire) && !closing_flush {
            return Err(Error::Closed(self.encoded.clone()));
        }
        self.check_writable("flush")?;
        let _flush = self.flush_lock.lock();
        // However the flush ends, a flush asked for before it has run (HBase clears
        // `flushRequested` in `flushcache`'s finally block). A flush that frees memory
        // clears it before waking the writers blocked on a full memstore, so that one
        // that finds the memstore full again asks anew.
        let mut requested = ClearOnDrop(Some(&self.flush_requested));
        let span = tracing::info_span!("flush", region = %self.encoded);
        let _enter = span.enter();
        // HBase's preFlush: its error fails the flush before anything is taken. No flush
        // of a closing region runs a hook: nothing may keep a region from closing, HBase's
        // close flushes through `internalFlushcache`, which skips the region's flush hooks,
        // and a close may run under the Db's catalog lock (a split, an alter), where a hook
        // calling the Db's Admin would wait on itself.
        let hooks = self
            .hooks()
            .filter(|_| !closing_flush && !self.is_closing());
        if let Some(h) = hooks {
            h.pre_flush()?;
        }

        // 1. Snapshot under the exclusive updates lock: no write is half-way in.
        let stores: Vec<(&Vec<u8>, &Arc<Store>)> = self.stores.iter().collect();
        let (flush_seq, snapshots, empty_at_snapshot) = {
            let _u = self.updates.write();
            self.mvcc.wait_for_all();
            let flush_seq = self.mvcc.read_point();
            let now = self.services.clock.now_millis();
            let old_before = now.saturating_sub(self.services.config.flush_interval_ms);
            let stats: Vec<StoreFlushStats> = stores
                .iter()
                .map(|(_, s)| StoreFlushStats {
                    // HBase's `FlushLargeStoresPolicy#shouldFlush` compares the store's
                    // heap (+ off-heap) size with the lower bound.
                    heap_size: s.memstore().hbase_heap_size(),
                    has_old_edit: s.oldest_edit_ms() < old_before,
                })
                .collect();
            let selected: Vec<usize> = if let Some(only) = only {
                (0..stores.len())
                    .filter(|i| only.contains(stores[*i].0))
                    .collect()
            } else if all {
                (0..stores.len()).collect()
            } else {
                let cfg = FlushPolicyConfig {
                    flush_size: self.table.memstore_flush_size,
                    lower_bound_min: self.services.config.flush_lower_bound_min,
                    lower_bound: None,
                };
                self.services.config.flush_policy.select(&cfg, &stats)
            };
            let mut snapshots: Vec<(usize, Arc<Segment>)> = Vec::new();
            let mut empty = Vec::new();
            for (i, (_, store)) in stores.iter().enumerate() {
                if selected.contains(&i) {
                    // A snapshot left by a failed flush comes back as it is; a new one
                    // turns into an immutable segment with its own overhead while a fresh
                    // active segment starts (HBase's `DefaultMemStore#snapshot`).
                    let held = store.memstore().has_snapshot();
                    if let Some(seg) = store.snapshot_for_flush() {
                        if !held {
                            self.memstore_hbase_heap_size
                                .fetch_add(HBASE_SNAPSHOT_SEGMENT_OVERHEAD, Ordering::AcqRel);
                        }
                        snapshots.push((i, seg));
                    }
                }
                empty.push(store.memstore().size().data_size == 0);
            }
            (flush_seq, snapshots, empty)
        };

        // 2. Write the files, holding no lock writers need.
        fail::fail_point!("flush-after-snapshot");
        let mut written: Vec<(usize, Arc<Segment>, Option<StoreFileHandle>)> = Vec::new();
        for (i, seg) in snapshots {
            if seg.is_empty() {
                written.push((i, seg, None));
                continue;
            }
            let name = format!("{}.{STOREFILE_EXT}", self.next_file_id());
            let now = self.services.clock.now_millis();
            // Taken after the snapshot: a reader that registers later holds a read
            // point at least this high.
            let smallest_read_point = self.mvcc.smallest_read_point();
            match stores[i]
                .1
                .write_snapshot(&seg, &name, now, smallest_read_point)
            {
                // HBase stamps a flushed file with the flush's sequence id (every edit at
                // or below it is in the file or an older one): files order by it.
                Ok(h) => written.push((
                    i,
                    seg,
                    h.map(|mut h| {
                        h.meta.max_seq_id = h.meta.max_seq_id.max(flush_seq);
                        h
                    }),
                )),
                Err(e) => {
                    self.poison(&e);
                    return Err(e);
                }
            }
        }

        // 3. Record them in the manifest (the commit point), then make them live.
        fail::fail_point!("flush-before-commit");
        let mut result = FlushResult {
            flush_seq_id: flush_seq,
            ..FlushResult::default()
        };
        let min_flushed = {
            let mut m = self.manifest.lock();
            let mut next = m.clone();
            for (i, _, h) in &written {
                let sm = next.stores.entry(stores[*i].0.clone()).or_default();
                if let Some(h) = h {
                    sm.files.push(h.meta.clone());
                    result.flushed_families.push(stores[*i].0.clone());
                    result.files.push(h.meta.clone());
                }
                sm.flushed_seq_id = sm.flushed_seq_id.max(flush_seq);
            }
            // Stores whose memstore was empty at the snapshot have nothing unflushed up to
            // the flush sequence id either.
            for (i, (family, _)) in stores.iter().enumerate() {
                if empty_at_snapshot[i] {
                    let sm = next.stores.entry((*family).clone()).or_default();
                    sm.flushed_seq_id = sm.flushed_seq_id.max(flush_seq);
                }
            }
            // How long the WAL is known to be, for replay to hold it to (evidence against
            // a truncation; docs/wal-format.md).
            if let Some(mark) = self.services.wal.as_ref().and_then(|w| w.synced_position()) {
                next.wal_mark = Some(mark);
            }
            if next != *m {
                if let Err(e) = next.write(self.services.fs.as_ref(), &self.dir) {
                    self.poison(&e);
                    return Err(e);
                }
                *m = next;
                fail::fail_point!("flush-after-commit");
            }
            m.stores
                .values()
                .map(|s| s.flushed_seq_id)
                .min()
                .unwrap_or(0)
        };
        let mut freed = MemStoreSize::ZERO;
        let mut released = 0u64;
        for (i, seg, h) in written {
            let store = stores[i].1;
            if let Some(h) = h {
                store.commit_files(vec![h]);
                result.compaction_needed |= crate::compaction::needs_compaction(
                    &self.services.config.compaction,
                    store.files().len(),
                    0,
                );
            }
            freed += seg.size();
            released += 1;
            store.memstore().clear_snapshot(seg.id());
        }
        self.account_sub(freed, released);
        requested.clear();
        if !result.files.is_empty() {
            self.metrics.flushes.fetch_add(1, Ordering::Relaxed);
        }
        {
            let _g = self.flushed.0.lock();
            self.flushed.1.notify_all();
        }
        fail::fail_point!("flush-before-wal-mark");
        if let Some(Err(e)) = self
            .services
            .wal
            .as_ref()
            .map(|w| w.mark_flushed(self.encoded.as_bytes(), min_flushed))
        {
            // The data is safe in storefiles; only WAL trimming failed.
            tracing::warn!(region = %self.encoded, error = %e, "could not trim the WAL after a flush");
        }
        tracing::info!(
            region = %self.encoded,
            seq = flush_seq,
            files = result.files.len(),
            freed = freed.data_size,
            freed_heap = freed.heap_size,
            "flushed"
        );
        drop(_enter);
        // The split question goes up to the Db, which may be waiting for this lock (an
        // alter closing the region holds the table's region map): ask it unlocked.
        drop(_flush);
        if !result.files.is_empty() && !self.is_closing() {
            // HBase's flusher asks the split policy after every flush.
            self.request_split_if_needed();
        }
        // HBase's postFlush, after the commit: an error cannot undo it and is logged.
        if let Some(h) = hooks {
            for (family, file) in result.flushed_families.iter().zip(&result.files) {
                h.post_flush(family, &file.name);
            }
        }
        Ok(result)
    }

    /// Every cell (all versions, delete markers included) of rows in `[start, stop)` (an
    /// empty `stop` means no bound) visible at the current read point, in key order — the
    /// raw view the read path's query matching works on.
    pub fn scan_raw(&self, start: &[u8], stop: &[u8]) -> Result<Vec<Cell>> {
        // An engine-internal view (tests, tools), not a client read: not counted.
        self.check_not_closed()?;
        let guard = self.mvcc.open_reader();
        let read_point = guard.read_point();
        let first = OwnedKey::first_on_row(start)?;
        let mut scanners = Vec::new();
        for store in self.stores.values() {
            scanners.extend(store.scanners(
                read_point,
                &first.view(),
                start,
                stop,
                &crate::store::SourceFilter::none(),
            )?);
        }
        let mut heap = KeyValueHeap::new(scanners);
        let mut out = Vec::new();
        while let Some(c) = heap.peek() {
            if !stop.is_empty() && c.row() >= stop {
                break;
            }
            out.push(c.to_cell());
            heap.advance()?;
        }
        Ok(out)
    }

    /// The manifest's lock (the manifest in memory is what is on disk).
    pub(crate) fn manifest_lock(&self) -> &Mutex<Manifest> {
        &self.manifest
    }

    /// Serialises compactions of this region.
    pub(crate) fn compaction_lock(&self) -> &Mutex<()> {
        &self.compaction_lock
    }

    /// Hands out the next storefile id.
    pub(crate) fn next_file_id(&self) -> u64 {
        let mut m = self.manifest.lock();
        let id = m.next_file_id;
        m.next_file_id += 1;
        id
    }

    /// Records a compaction in the manifest: `removed` out, `added` in (atomic replace).
    pub(crate) fn commit_compaction(
        &self,
        family: &[u8],
        removed: &[String],
        added: Option<StoreFileMeta>,
    ) -> Result<()> {
        let mut m = self.manifest.lock();
        let mut next = m.clone();
        let sm = next.stores.entry(family.to_vec()).or_default();
        sm.files.retain(|f| !removed.contains(&f.name));
        sm.files.extend(added);
        // Files stay ordered by max sequence id, oldest first (HBase's storefile order,
        // which compaction selection relies on); the sort is stable for equal ids.
        sm.files.sort_by_key(|f| f.max_seq_id);
        if let Err(e) = next.write(self.services.fs.as_ref(), &self.dir) {
            self.poison(&e);
            return Err(e);
        }
        *m = next;
        Ok(())
    }

    /// The store of `family`, or HBase's NoSuchColumnFamily error.
    pub fn store(&self, family: &[u8]) -> Result<&Arc<Store>> {
        self.stores
            .get(family)
            .ok_or_else(|| Error::NoSuchColumnFamily {
                family: to_string_binary(family),
                region: self.encoded.clone(),
                table: self.table.name.clone(),
            })
    }

    /// What this region shares with the others.
    pub fn services(&self) -> &RegionServices {
        &self.services
    }

    /// Reads work on a poisoned region (its memstore holds everything acknowledged), not
    /// on a closed one.
    /// Refuses `what` on a read-only region ([`RegionServices::read_only`]): every path
    /// that writes to the region's directory or the WAL asks this first.
    pub(crate) fn check_writable(&self, what: &'static str) -> Result<()> {
        if self.services.read_only {
            return Err(Error::ReadOnly {
                region: self.encoded.clone(),
                what,
            });
        }
        Ok(())
    }

    pub(crate) fn check_readable(&self) -> Result<()> {
        self.check_not_closed()
    }

    fn check_not_closed(&self) -> Result<()> {
        if self.closed.load(Ordering::Acquire) {
            return Err(Error::Closed(self.encoded.clone()));
        }
        Ok(())
    }

    /// Flushes (unless poisoned) and closes the region: later calls fail with `Closed`. A
    /// poisoned region with unflushed edits closes too, but the call returns
    /// `Error::Poisoned`: its storefiles do not hold every acknowledged edit.
    /// HBase's two-phase close: a first flush while writes continue, then writes are
    /// stopped (no writer is between its open check and its memstore insert) and what
    /// arrived meanwhile is flushed, so a closed region's storefiles hold every
    /// acknowledged edit — which a split relies on.
    pub fn close(&self) -> Result<()> {
        self.closing.store(true, Ordering::Release);
        if self.services.read_only {
            // Nothing to flush: the memstore holds a private replay of the writer's WAL,
            // which stays the writer's to flush.
            let _u = self.updates.write();
            self.closed.store(true, Ordering::Release);
            return Ok(());
        }
        let healthy = self.poisoned.lock().is_none();
        let pre = if healthy {
            self.flush_with(true, None, false).map(|_| ())
        } else {
            Ok(())
        };
        {
            let _u = self.updates.write();
            self.closed.store(true, Ordering::Release);
        }
        if pre.is_ok() && self.memstore_data_size() > 0 {
            if let Some(cause) = self.poisoned.lock().clone() {
                // Closed without its flush: acknowledged edits live only in the memstore
                // and the WAL (the next Db::open replays them). The close fails so that
                // no caller takes the region's files as complete — a split would commit
                // daughters without those edits, an alter would reopen without them.
                return Err(Error::Poisoned {
                    region: self.encoded.clone(),
                    cause,
                });
            }
            return self.flush_with(true, None, true).map(|_| ());
        }
        pre
    }
}
