//! A region's write, flush and read paths, reduced to what orders them
//! (crates/regionkv-region/src/region.rs `flush_with`, store.rs, memstore.rs): writers
//! hold the updates lock shared, take a write number from the real [`Mvcc`], add one cell
//! to each of two stores' active memstore segment (shared segment lock, concurrent
//! inserts), then complete; a flush takes the updates lock exclusively, waits for every
//! write, takes the read point as its sequence id, swaps each store's active segment into
//! the snapshot slot, then writes the snapshot to a file, commits the file and only then
//! clears the snapshot; a reader takes the read point, then each store's memstore
//! segments, then its files.

use crate::mvcc::Mvcc;
use crate::sync::{Mutex, RwLock};
use std::sync::Arc;

/// A cell: the row it belongs to and its sequence id.
pub type Cell = (u64, u64);

/// One memstore segment: concurrent inserts (the skiplist) behind a mutex.
type Segment = Arc<Mutex<Vec<Cell>>>;

#[derive(Debug, Default)]
struct Segments {
    active: Segment,
    snapshot: Option<Segment>,
}

#[derive(Debug, Default)]
struct Store {
    segments: RwLock<Segments>,
    files: RwLock<Vec<Vec<Cell>>>,
}

/// Where the flush clears the memstore snapshot relative to committing its file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClearOrder {
    /// The engine's order: commit the file, then clear the snapshot.
    AfterCommit,
    /// The wrong order (for the test that shows the model catches it).
    BeforeCommit,
}

/// The model region: two stores (families).
#[derive(Debug)]
pub struct Region {
    updates: RwLock<()>,
    mvcc: Mvcc,
    stores: [Store; 2],
    order: ClearOrder,
}

impl Region {
    /// An empty region flushing in `order`.
    pub fn new(order: ClearOrder) -> Self {
        Self {
            updates: RwLock::new(()),
            mvcc: Mvcc::new(0),
            stores: [Store::default(), Store::default()],
            order,
        }
    }

    /// A row mutation writing `row` in both stores; returns its sequence id once visible.
    pub fn write(&self, row: u64) -> u64 {
        let _updates = self.updates.read().unwrap_or_else(|e| e.into_inner());
        let entry = self.mvcc.begin();
        let seq = entry.write_number();
        for store in &self.stores {
            let segs = store.segments.read().unwrap_or_else(|e| e.into_inner());
            segs.active.lock().push((row, seq));
        }
        self.mvcc.complete_and_wait(entry);
        seq
    }

    /// A flush of both stores. Returns the flush sequence id and the snapshots' cells.
    pub fn flush(&self) -> (u64, [Vec<Cell>; 2]) {
        let (flush_seq, snapshots) = {
            let _updates = self.updates.write().unwrap_or_else(|e| e.into_inner());
            self.mvcc.wait_for_all();
            let flush_seq = self.mvcc.read_point();
            let snapshots = self.stores.each_ref().map(|store| {
                let mut segs = store.segments.write().unwrap_or_else(|e| e.into_inner());
                let old = std::mem::take(&mut segs.active);
                segs.snapshot = Some(old.clone());
                old
            });
            (flush_seq, snapshots)
        };
        let cells = snapshots.each_ref().map(|s| s.lock().clone());
        for (store, file) in self.stores.iter().zip(cells.iter()) {
            let clear = || {
                store
                    .segments
                    .write()
                    .unwrap_or_else(|e| e.into_inner())
                    .snapshot = None;
            };
            if self.order == ClearOrder::BeforeCommit {
                clear();
            }
            store
                .files
                .write()
                .unwrap_or_else(|e| e.into_inner())
                .push(file.clone());
            if self.order == ClearOrder::AfterCommit {
                clear();
            }
        }
        (flush_seq, cells)
    }

    /// A read of everything: per store, the rows visible at the read point taken first.
    pub fn read(&self) -> (u64, [Vec<u64>; 2]) {
        let read_point = self.mvcc.read_point();
        let rows = self.stores.each_ref().map(|store| {
            let mut cells: Vec<Cell> = Vec::new();
            {
                let segs = store.segments.read().unwrap_or_else(|e| e.into_inner());
                cells.extend(segs.active.lock().iter());
                if let Some(s) = &segs.snapshot {
                    cells.extend(s.lock().iter());
                }
            }
            for f in store.files.read().unwrap_or_else(|e| e.into_inner()).iter() {
                cells.extend(f);
            }
            let mut rows: Vec<u64> = cells
                .into_iter()
                .filter(|(_, seq)| *seq <= read_point)
                .map(|(row, _)| row)
                .collect();
            rows.sort_unstable();
            rows.dedup();
            rows
        });
        (read_point, rows)
    }
}
