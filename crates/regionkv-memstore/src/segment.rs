//! `Segment`: one skiplist of cells plus the arena holding their bytes (HBase's `Segment`,
//! `MutableSegment` and `ImmutableSegment` in one type).
//!
//! HBase splits mutable and immutable segments into classes; here the split is a matter of
//! who holds the write path: only [`crate::MemStore`] can add to a segment, and only to its
//! active one, under its lock, so a segment handed out as a snapshot is immutable from then
//! on. Readers (scanners, flush) only ever see `Arc<Segment>`.
//!
//! A segment's memory (skiplist nodes, arena chunks, own buffers) is freed, and its chunks go
//! back to the pool, when the last `Arc` drops: after the memstore let go of it
//! (`clear_snapshot`) *and* every scanner over it is gone.

use crate::index_key::{IndexKey, KeyBytes};
use crate::lab::{LabSettings, MemStoreLab};
use crate::record::MAX_CELL_BYTES;
use crate::scanner::SegmentScanner;
use crate::size::{
    ALLOCATOR_OVERHEAD, INDEX_ENTRY_OVERHEAD, MemStoreSize, hbase_cell_heap_size,
    hbase_keyvalue_len_of_encoded,
};
use crossbeam_skiplist::SkipMap;
use regionkv_cell::{Cell, CellRef, CellType, KeyValueScanner};
use std::cell::Cell as FlagCell;
use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};

/// Source of segment ids, unique per process.
static NEXT_SEGMENT_ID: AtomicU64 = AtomicU64::new(1);

/// HBase's `TimeRangeTracker` starting values: an empty segment's range is inverted.
const INITIAL_MIN_TIMESTAMP: i64 = i64::MAX;
const INITIAL_MAX_TIMESTAMP: i64 = -1;

/// One sorted run of cells in memory. See the module docs.
pub struct Segment {
    // Field order matters: the index drops before the arena its keys point into.
    index: SkipMap<IndexKey, ()>,
    lab: MemStoreLab,
    id: u64,
    data_size: AtomicU64,
    heap_size: AtomicU64,
    hbase_heap_size: AtomicU64,
    cell_count: AtomicU64,
    min_timestamp: AtomicI64,
    max_timestamp: AtomicI64,
    min_seq_id: AtomicU64,
    max_seq_id: AtomicU64,
    /// Set once any cell with tags was added (HBase's `Segment.tagsPresent`): a flush of
    /// this segment then writes a storefile that can hold tags.
    tags_present: std::sync::atomic::AtomicBool,
    /// Set once a DeleteFamily or DeleteFamilyVersion marker was added (a storefile's
    /// `delete_family_count`, for memory): gets put off file seeks only when no source
    /// of the store holds one.
    family_deletes_present: std::sync::atomic::AtomicBool,
    /// The row prefix the index's windows start after (`index_key::row_window`).
    windows: Windows,
}

/// Rows a segment looks at before it fixes the prefix its index windows start after.
const WINDOW_SAMPLE_ROWS: u32 = 256;

/// The prefix of a segment's index windows: the longest prefix its first
/// [`WINDOW_SAMPLE_ROWS`] rows share (the zero padding of numeric keys, a table's fixed
/// salt or tenant prefix), so that the window holds the bytes that tell rows apart. Rows
/// seen before it is fixed, and rows without it, get no window and are compared through
/// their records, as every row was before windows.
struct Windows {
    prefix: std::sync::OnceLock<Box<[u8]>>,
    sample: parking_lot::Mutex<WindowSample>,
}

#[derive(Default)]
struct WindowSample {
    first: Vec<u8>,
    shared: usize,
    seen: u32,
}

impl Windows {
    fn new() -> Self {
        Self {
            prefix: std::sync::OnceLock::new(),
            sample: parking_lot::Mutex::new(WindowSample::default()),
        }
    }

    /// The window for `row`, sampling it while the prefix is not fixed yet.
    fn window(&self, row: &[u8]) -> u64 {
        if let Some(prefix) = self.prefix.get() {
            return crate::index_key::row_window(row, prefix);
        }
        let mut s = self.sample.lock();
        if s.seen == 0 {
            s.first = row.to_vec();
            s.shared = row.len();
        } else {
            let common = s.first.iter().zip(row).take_while(|(a, b)| a == b).count();
            s.shared = s.shared.min(common);
        }
        s.seen += 1;
        if s.seen >= WINDOW_SAMPLE_ROWS {
            let prefix: Box<[u8]> = s.first.get(..s.shared).unwrap_or_default().into();
            // Another thread may have fixed it first, from the same sample: either is fine.
            let _ = self.prefix.set(prefix);
            s.first = Vec::new();
        }
        0
    }
}

impl Segment {
    /// An empty segment with a fresh id.
    pub(crate) fn new(settings: &LabSettings) -> Self {
        Self {
            index: SkipMap::new(),
            lab: MemStoreLab::new(settings),
            id: NEXT_SEGMENT_ID.fetch_add(1, Ordering::Relaxed),
            data_size: AtomicU64::new(0),
            heap_size: AtomicU64::new(0),
            hbase_heap_size: AtomicU64::new(0),
            cell_count: AtomicU64::new(0),
            min_timestamp: AtomicI64::new(INITIAL_MIN_TIMESTAMP),
            max_timestamp: AtomicI64::new(INITIAL_MAX_TIMESTAMP),
            min_seq_id: AtomicU64::new(u64::MAX),
            max_seq_id: AtomicU64::new(0),
            tags_present: std::sync::atomic::AtomicBool::new(false),
            family_deletes_present: std::sync::atomic::AtomicBool::new(false),
            windows: Windows::new(),
        }
    }

    /// Copies `cell` in and returns the size delta (rules: [`crate::size`]).
    ///
    /// A cell whose key equals one already here (same coordinates, timestamp, type *and*
    /// sequence id) replaces it: the skiplist node stays and points at the new record, so
    /// readers see the new value from then on; the old record stays in the arena until the
    /// segment drops. Exactly one of several racing adds of a new key creates the node.
    ///
    /// # Panics
    /// When the key and value together are 2 GiB or more, which no HBase cell can be (its
    /// lengths are Java `int`s); the region rejects far smaller cells before this
    /// (`hbase.server.keyvalue.maxsize`, 10 MiB by default).
    pub(crate) fn add(&self, cell: CellRef<'_>) -> MemStoreSize {
        let key = cell.key_bytes();
        let value = cell.value();
        let tags = cell.tags();
        let len = key.len() + value.len() + tags.len();
        assert!(
            len <= MAX_CELL_BYTES,
            "a memstore cell must be smaller than 2 GiB, got {len} bytes"
        );
        if !tags.is_empty() {
            self.tags_present
                .store(true, std::sync::atomic::Ordering::Relaxed);
        }
        if cell.cell_type().is_family_delete() {
            // Before the insert: a reader that can see the marker (its write completed
            // before the reader's read point was taken) sees the flag too.
            self.family_deletes_present
                .store(true, std::sync::atomic::Ordering::Relaxed);
        }
        let window = self.windows.window(cell.row());
        let copied = self.lab.copy_cell(key, value, tags);
        // SAFETY: `copied.record` is a complete record the arena just wrote and never
        // writes again; the arena is a field of `self` declared after `index`, so the
        // record stays allocated until after the index (the only holder of keys) drops.
        // Every window of this index comes from `self.windows`, whose prefix is fixed once.
        let entry = unsafe { IndexKey::new(copied.record, window) };
        let existed = FlagCell::new(false);
        // Never replacing (`false`) makes this "get or insert": the closure runs only when
        // an entry with an equal key is found, and since nodes are never removed, that
        // entry is then what comes back; otherwise our node went in.
        let node = self.index.compare_insert(entry, (), |_| {
            existed.set(true);
            false
        });
        let existed = existed.get();
        if existed {
            // SAFETY: as above, and the record's key equals the node's key (the skiplist
            // found it equal under `compare_keys`, which is byte equality for valid keys).
            unsafe { node.key().replace(copied.record) };
        }
        drop(node);

        // HBase's charge (`size` module docs): a new skiplist entry, or a cell MSLAB copied
        // into a chunk, is charged in full. Whether HBase would copy it is HBase's rule (its
        // KeyValue length against `max_alloc`), not where this arena put the record.
        let kv_len = hbase_keyvalue_len_of_encoded(key.len(), value.len(), tags.len());
        let hbase_in_chunk = self.lab.max_alloc() > 0 && kv_len <= self.lab.max_alloc() as u64;
        let mut delta = MemStoreSize {
            data_size: len as u64,
            heap_size: copied.opened_chunk,
            hbase_heap_size: if !existed || hbase_in_chunk {
                hbase_cell_heap_size(kv_len, hbase_in_chunk)
            } else {
                0
            },
            cell_count: 0,
        };
        if let Some(own) = copied.own_buffer {
            delta.heap_size += own + ALLOCATOR_OVERHEAD;
        }
        if !existed {
            delta.heap_size += INDEX_ENTRY_OVERHEAD;
            delta.cell_count = 1;
        }
        self.count(delta);
        self.track(cell);
        delta
    }

    fn count(&self, delta: MemStoreSize) {
        if delta.data_size != 0 {
            self.data_size.fetch_add(delta.data_size, Ordering::Relaxed);
        }
        if delta.heap_size != 0 {
            self.heap_size.fetch_add(delta.heap_size, Ordering::Relaxed);
        }
        if delta.hbase_heap_size != 0 {
            self.hbase_heap_size
                .fetch_add(delta.hbase_heap_size, Ordering::Relaxed);
        }
        if delta.cell_count != 0 {
            self.cell_count
                .fetch_add(delta.cell_count, Ordering::Relaxed);
        }
    }

    /// Time range and sequence ids. HBase's `TimeRangeTracker.includeTimestamp(Cell)`: a
    /// DeleteColumn or DeleteFamily marker covers every older version, so it also stretches
    /// the range down to 0 (a reader with a time range below the marker's timestamp must
    /// still see the segment, to see the marker).
    fn track(&self, cell: CellRef<'_>) {
        self.include_timestamp(cell.timestamp());
        if matches!(
            cell.cell_type(),
            CellType::DeleteColumn | CellType::DeleteFamily
        ) {
            self.include_timestamp(0);
        }
        let seq = cell.seq_id();
        if seq < self.min_seq_id.load(Ordering::Relaxed) {
            self.min_seq_id.fetch_min(seq, Ordering::Relaxed);
        }
        if seq > self.max_seq_id.load(Ordering::Relaxed) {
            self.max_seq_id.fetch_max(seq, Ordering::Relaxed);
        }
    }

    fn include_timestamp(&self, ts: i64) {
        // Load first: the common case (timestamps from one clock, growing) changes nothing
        // and then costs no read-modify-write on a shared cache line.
        if ts < self.min_timestamp.load(Ordering::Relaxed) {
            self.min_timestamp.fetch_min(ts, Ordering::Relaxed);
        }
        if ts > self.max_timestamp.load(Ordering::Relaxed) {
            self.max_timestamp.fetch_max(ts, Ordering::Relaxed);
        }
    }

    /// This segment's id, unique within the process; a snapshot's id is what
    /// [`crate::MemStore::clear_snapshot`] takes.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// The sum of what the adds into this segment reported.
    pub fn size(&self) -> MemStoreSize {
        MemStoreSize {
            data_size: self.data_size.load(Ordering::Relaxed),
            heap_size: self.heap_size.load(Ordering::Relaxed),
            hbase_heap_size: self.hbase_heap_size.load(Ordering::Relaxed),
            cell_count: self.cell_count.load(Ordering::Relaxed),
        }
    }

    /// Cells in the index.
    pub fn len(&self) -> usize {
        self.index.len()
    }

    /// True when the index holds no cell.
    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }

    /// `(min, max)` timestamp of the cells added, by HBase's `TimeRangeTracker` rule (see
    /// `track`): DeleteColumn and DeleteFamily markers also lower `min` to 0. An empty
    /// segment gives HBase's initial values `(i64::MAX, -1)`.
    pub fn time_range(&self) -> (i64, i64) {
        (
            self.min_timestamp.load(Ordering::Relaxed),
            self.max_timestamp.load(Ordering::Relaxed),
        )
    }

    /// True when some cell added carried tags.
    pub fn tags_present(&self) -> bool {
        self.tags_present.load(Ordering::Relaxed)
    }

    /// True when some cell added was a DeleteFamily or DeleteFamilyVersion marker.
    pub fn family_deletes_present(&self) -> bool {
        self.family_deletes_present.load(Ordering::Relaxed)
    }

    /// The largest sequence id added (0 when empty).
    pub fn max_seq_id(&self) -> u64 {
        self.max_seq_id.load(Ordering::Relaxed)
    }

    /// The smallest sequence id added (`u64::MAX` when empty), HBase's
    /// `Segment.getMinSequenceId`.
    pub fn min_seq_id(&self) -> u64 {
        self.min_seq_id.load(Ordering::Relaxed)
    }

    /// The first encoded key in order, if any.
    pub fn first_key(&self) -> Option<Vec<u8>> {
        self.index.front().map(|e| e.key().key().to_vec())
    }

    /// The last encoded key in order, if any.
    pub fn last_key(&self) -> Option<Vec<u8>> {
        self.index.back().map(|e| e.key().key().to_vec())
    }

    /// The row of the last cell visible at `read_point` whose key sorts before `key` (or
    /// the last visible cell of the segment when `key` is `None`). Reversed scans step to
    /// the previous row with it.
    pub fn last_row_before(&self, key: Option<&[u8]>, read_point: u64) -> Option<Vec<u8>> {
        let mut entry = match key {
            Some(k) => self
                .index
                .upper_bound(std::ops::Bound::Excluded(KeyBytes::new(k))),
            None => self.index.back(),
        };
        while let Some(e) = entry {
            if let Ok(view) = regionkv_cell::KeyView::parse(e.key().key())
                && view.seq_id() <= read_point
            {
                return Some(view.row().to_vec());
            }
            entry = e.prev();
        }
        None
    }

    /// Chunks the arena holds (0 with MSLAB off).
    pub fn chunk_count(&self) -> usize {
        self.lab.chunk_count()
    }

    /// Bytes of the arena chunks taken so far, at their full length (0 with MSLAB off, and
    /// before the first cell: chunks are taken lazily).
    pub fn arena_bytes(&self) -> u64 {
        self.lab.chunk_bytes() as u64
    }

    /// Bytes of arena chunks that hold no cell (unused chunk tails); 0 with MSLAB off.
    pub fn arena_slack(&self) -> u64 {
        self.lab.slack_bytes() as u64
    }

    /// A scanner over the cells with sequence id ≤ `read_point`, positioned at the first.
    /// It holds this segment (and so its memory) alive until it drops.
    pub fn scanner(self: &Arc<Self>, read_point: u64) -> SegmentScanner {
        SegmentScanner::new(Arc::clone(self), read_point)
    }

    /// Every cell, in order, as owned cells (for flush and tests). Holds the segment alive
    /// while it runs. A flush that writes blocks from borrowed cells can use
    /// `scanner(u64::MAX)` instead and skip the copies.
    pub fn iter(self: &Arc<Self>) -> impl Iterator<Item = Cell> + Send + use<> {
        let mut scanner = self.scanner(u64::MAX);
        std::iter::from_fn(move || {
            let cell = scanner.peek()?.to_cell();
            // Infallible: a memstore scanner reads memory.
            let Ok(()) = scanner.advance();
            Some(cell)
        })
    }

    /// The skiplist, for the scanner.
    pub(crate) fn index(&self) -> &SkipMap<IndexKey, ()> {
        &self.index
    }
}

impl fmt::Debug for Segment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Segment")
            .field("id", &self.id)
            .field("size", &self.size())
            .field("time_range", &self.time_range())
            .field("max_seq_id", &self.max_seq_id())
            .field("chunks", &self.chunk_count())
            .finish()
    }
}
