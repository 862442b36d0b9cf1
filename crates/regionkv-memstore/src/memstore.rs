//! `MemStore`: the in-memory part of one store (column family), HBase's `DefaultMemStore`:
//! an active segment that takes writes and at most one snapshot segment being flushed.
//!
//! Life cycle of a flush (the region drives it):
//! 1. [`MemStore::snapshot`] moves the active segment to the snapshot slot and starts an
//!    empty active one;
//! 2. the flusher writes the snapshot's cells to a storefile (reads keep seeing them through
//!    [`MemStore::scanners`] meanwhile);
//! 3. once the storefile is committed, [`MemStore::clear_snapshot`] drops the snapshot; its
//!    memory is freed (chunks back to the pool) when the last scanner over it is gone.
//!
//! Concurrency contract: `add` may run on any number of threads at once, concurrently with
//! reads. `snapshot` and `clear_snapshot` take the memstore's lock exclusively: `snapshot`
//! waits for the adds in flight to finish and no add can land in a segment after it became
//! the snapshot (each add holds the lock shared for its whole insert). The caller still
//! needs its own ordering (HBase's region `updatesLock` plus MVCC) to decide *which* writes
//! belong before the flush's sequence id; this type only guarantees that each add lands
//! wholly in one segment.

use crate::error::{Error, Result};
use crate::lab::{LabSettings, MemStoreConfig};
use crate::scanner::SegmentScanner;
use crate::segment::Segment;
use crate::size::{HBASE_ACTIVE_SEGMENT_OVERHEAD, HBASE_SNAPSHOT_SEGMENT_OVERHEAD, MemStoreSize};
use parking_lot::RwLock;
use regionkv_cell::CellRef;
use std::fmt;
use std::sync::Arc;

/// The segments of a memstore, replaced together under one lock.
struct Segments {
    active: Arc<Segment>,
    snapshot: Option<Arc<Segment>>,
}

/// The memstore of one column family. `Send + Sync`; share it by reference or `Arc`.
pub struct MemStore {
    config: MemStoreConfig,
    settings: LabSettings,
    segments: RwLock<Segments>,
}

impl MemStore {
    /// An empty memstore. See [`MemStoreConfig`] for how the settings are normalised.
    pub fn new(config: MemStoreConfig) -> Self {
        let settings = LabSettings::from_config(&config);
        let active = Arc::new(Segment::new(&settings));
        Self {
            config,
            settings,
            segments: RwLock::new(Segments {
                active,
                snapshot: None,
            }),
        }
    }

    /// The configuration as given.
    pub fn config(&self) -> &MemStoreConfig {
        &self.config
    }

    /// Copies `cell` (key and value) into the active segment and returns the size delta.
    ///
    /// Small cells go into the arena; a cell larger than the arena's `max_alloc`, or every
    /// cell when MSLAB is off, gets a buffer of its own. A cell whose key equals one in the
    /// active segment — same row, family, qualifier, timestamp, type *and* sequence id —
    /// replaces that cell's value (HBase's skiplist `put` of an equal key): readers see the
    /// new value from then on, `cell_count` does not grow, and the bytes of both copies are
    /// counted because both stay in memory until the flush (HBase's modeled heap size
    /// charges it in full when HBase would have copied it into an MSLAB chunk, as HBase
    /// does). A cell equal only up to the sequence id is a new version, kept beside the old
    /// one. The counting rules are in [`crate::size`].
    ///
    /// The sequence id must already be set: scanners filter by it.
    ///
    /// # Panics
    /// When the key and value together are 2 GiB or more (no HBase cell can be).
    pub fn add(&self, cell: CellRef<'_>) -> MemStoreSize {
        let segments = self.segments.read();
        segments.active.add(cell)
    }

    /// Adds every cell under one acquisition of the lock (a row mutation or a batch), and
    /// returns the sum of the deltas. All the cells land in the same segment.
    pub fn add_all<'c>(&self, cells: impl IntoIterator<Item = CellRef<'c>>) -> MemStoreSize {
        let segments = self.segments.read();
        cells
            .into_iter()
            .map(|cell| segments.active.add(cell))
            .sum()
    }

    /// HBase's `snapshot()`: moves the active segment to the snapshot slot, starts a new
    /// active one, and returns the snapshot.
    ///
    /// * If a snapshot is still there (the previous flush did not call `clear_snapshot`),
    ///   nothing moves and that snapshot is returned again, with a warning, as HBase logs
    ///   "Snapshot called again without clearing previous".
    /// * If there is no snapshot and the active segment is empty, nothing moves and the
    ///   result is `None`: there is nothing to flush (HBase returns an empty snapshot).
    ///
    /// Waits for adds in flight; see the module docs.
    pub fn snapshot(&self) -> Option<Arc<Segment>> {
        let mut segments = self.segments.write();
        if let Some(existing) = &segments.snapshot {
            tracing::warn!(
                snapshot = existing.id(),
                "Snapshot called again without clearing previous. Doing nothing. Another \
                 ongoing flush or did we fail last attempt?"
            );
            return Some(Arc::clone(existing));
        }
        if segments.active.is_empty() {
            return None;
        }
        let fresh = Arc::new(Segment::new(&self.settings));
        let snapshot = std::mem::replace(&mut segments.active, fresh);
        segments.snapshot = Some(Arc::clone(&snapshot));
        drop(segments);
        tracing::debug!(
            snapshot = snapshot.id(),
            cells = snapshot.len(),
            data_size = snapshot.size().data_size,
            "memstore snapshot taken"
        );
        Some(snapshot)
    }

    /// HBase's `clearSnapshot(id)`, called after the flush of snapshot `id` committed:
    /// drops the memstore's hold on it. Its memory is freed (its chunks go back to the pool)
    /// when the last scanner over it drops.
    ///
    /// With no snapshot this does nothing (already cleared). With a snapshot of another id
    /// it does nothing and logs a warning; HBase throws `UnexpectedStateException` there, so
    /// use [`Self::try_clear_snapshot`] to get that as an error.
    pub fn clear_snapshot(&self, id: u64) {
        if let Err(e) = self.try_clear_snapshot(id) {
            tracing::warn!(error = %e, "clear_snapshot ignored");
        }
    }

    /// [`Self::clear_snapshot`] that reports a wrong id as [`Error::SnapshotIdMismatch`].
    pub fn try_clear_snapshot(&self, id: u64) -> Result<()> {
        let mut segments = self.segments.write();
        let current = match &segments.snapshot {
            None => return Ok(()),
            Some(snapshot) => snapshot.id(),
        };
        if current != id {
            return Err(Error::SnapshotIdMismatch { current, given: id });
        }
        let cleared = segments.snapshot.take();
        drop(segments);
        tracing::debug!(snapshot = id, "memstore snapshot cleared");
        drop(cleared);
        Ok(())
    }

    /// Size of the active segment.
    pub fn active_size(&self) -> MemStoreSize {
        self.segments.read().active.size()
    }

    /// Size of the snapshot (zero when there is none).
    pub fn snapshot_size(&self) -> MemStoreSize {
        self.segments
            .read()
            .snapshot
            .as_ref()
            .map_or(MemStoreSize::ZERO, |s| s.size())
    }

    /// Active plus snapshot, read under one lock.
    pub fn size(&self) -> MemStoreSize {
        let segments = self.segments.read();
        segments.active.size()
            + segments
                .snapshot
                .as_ref()
                .map_or(MemStoreSize::ZERO, |s| s.size())
    }

    /// HBase's modeled heap size of this memstore (`HStore#getMemStoreSize().getHeapSize()`
    /// of a `DefaultMemStore`): the active segment's charged adds plus its
    /// [`HBASE_ACTIVE_SEGMENT_OVERHEAD`], and while a snapshot is held, its charged adds plus
    /// [`HBASE_SNAPSHOT_SEGMENT_OVERHEAD`]. An empty memstore weighs the active overhead, as
    /// in HBase. Rules: [`crate::size`], "HBase's heap size".
    pub fn hbase_heap_size(&self) -> u64 {
        let segments = self.segments.read();
        HBASE_ACTIVE_SEGMENT_OVERHEAD
            + segments.active.size().hbase_heap_size
            + segments.snapshot.as_ref().map_or(0, |s| {
                HBASE_SNAPSHOT_SEGMENT_OVERHEAD + s.size().hbase_heap_size
            })
    }

    /// True while a snapshot is held (taken and not yet cleared): the next
    /// [`Self::snapshot`] returns it again instead of taking a new one.
    pub fn has_snapshot(&self) -> bool {
        self.segments.read().snapshot.is_some()
    }

    /// The snapshot (if any), then the active segment: what a read must merge.
    pub fn segments(&self) -> Vec<Arc<Segment>> {
        let (snapshot, active) = self.segment_pair();
        snapshot
            .into_iter()
            .chain(std::iter::once(active))
            .collect()
    }

    /// [`Self::segments`] without the vector: the snapshot (if any) and the active
    /// segment (a get takes them on every call).
    pub fn segment_pair(&self) -> (Option<Arc<Segment>>, Arc<Segment>) {
        let segments = self.segments.read();
        (segments.snapshot.clone(), Arc::clone(&segments.active))
    }

    /// One scanner per segment of [`Self::segments`], at `read_point`.
    pub fn scanners(&self, read_point: u64) -> Vec<SegmentScanner> {
        self.segments()
            .iter()
            .map(|segment| segment.scanner(read_point))
            .collect()
    }
}

impl Default for MemStore {
    fn default() -> Self {
        Self::new(MemStoreConfig::default())
    }
}

impl fmt::Debug for MemStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let segments = self.segments.read();
        f.debug_struct("MemStore")
            .field("active", &segments.active)
            .field("snapshot", &segments.snapshot)
            .finish()
    }
}
