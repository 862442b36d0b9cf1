//! `RowLocks`: exclusive per-row locks, held for the duration of one row mutation (HBase's
//! `HRegion.getRowLock`). A mutation of a row holds its lock across WAL append, memstore
//! insert and MVCC completion, so read-modify-write operations (increment, append,
//! check-and-mutate) on one row are serialised.
//!
//! Implementation: a set of the rows locked right now, guarded by one mutex; a row leaves
//! the set when its holder releases it, so memory is bounded by the rows being mutated
//! right now. Waiting uses a condition variable per set (rows are held for microseconds; a
//! per-row condvar would cost an allocation per lock).
//!
//! Every write takes a row lock, so the uncontended path is kept free of allocation and of
//! clock reads: the set hashes with FxHash (it holds one row per writer in flight, so
//! there is nothing to flood), the row buffers of released locks are reused, and the wait
//! deadline is computed only when the row is already held.

use parking_lot::{Condvar, Mutex};
use rustc_hash::FxHashSet;
use std::time::{Duration, Instant};

/// HBase's row lock wait bound (`hbase.rowlock.wait.duration`, 30 s).
pub const DEFAULT_ROW_LOCK_WAIT: Duration = Duration::from_secs(30);

/// Row buffers kept for reuse, and the largest one kept: enough for the concurrent writers
/// of one region, without holding on to the memory of a burst of huge rows.
const SPARE_BUFFERS: usize = 16;
const SPARE_BUFFER_MAX: usize = 256;

/// The per-row lock table of one region.
#[derive(Debug, Default)]
pub struct RowLocks {
    held: Mutex<Held>,
    released: Condvar,
}

#[derive(Debug, Default)]
struct Held {
    rows: FxHashSet<Vec<u8>>,
    spare: Vec<Vec<u8>>,
}

/// A held row lock; released on drop.
#[derive(Debug)]
pub struct RowLockGuard<'a> {
    locks: &'a RowLocks,
    row: &'a [u8],
}

impl Drop for RowLockGuard<'_> {
    fn drop(&mut self) {
        let mut held = self.locks.held.lock();
        if let Some(buf) = held.rows.take(self.row)
            && buf.capacity() <= SPARE_BUFFER_MAX
            && held.spare.len() < SPARE_BUFFERS
        {
            held.spare.push(buf);
        }
        drop(held);
        self.locks.released.notify_all();
    }
}

impl RowLocks {
    /// An empty lock table.
    pub fn new() -> Self {
        Self::default()
    }

    /// Locks `row`, waiting at most `timeout`. `None` when the wait timed out (HBase
    /// throws "Timed out waiting for lock for row").
    pub fn lock<'a>(&'a self, row: &'a [u8], timeout: Duration) -> Option<RowLockGuard<'a>> {
        let mut held = self.held.lock();
        if held.rows.contains(row) {
            let deadline = Instant::now() + timeout;
            while held.rows.contains(row) {
                if self.released.wait_until(&mut held, deadline).timed_out()
                    && held.rows.contains(row)
                {
                    return None;
                }
            }
        }
        Some(self.insert(&mut held, row))
    }

    /// Locks `row` only if no one holds it (a batch takes its first row with
    /// [`RowLocks::lock`] and the others with this, ending its mini-batch at the first row
    /// held elsewhere: a batch never waits while holding locks, so two batches cannot
    /// deadlock).
    pub fn try_lock<'a>(&'a self, row: &'a [u8]) -> Option<RowLockGuard<'a>> {
        let mut held = self.held.lock();
        if held.rows.contains(row) {
            return None;
        }
        Some(self.insert(&mut held, row))
    }

    /// Records `row` as held. REQUIRES: `held` is this table's, and `row` is not in it.
    fn insert<'a>(&'a self, held: &mut Held, row: &'a [u8]) -> RowLockGuard<'a> {
        let mut buf = held.spare.pop().unwrap_or_default();
        buf.clear();
        buf.extend_from_slice(row);
        held.rows.insert(buf);
        RowLockGuard { locks: self, row }
    }

    /// Rows locked right now.
    pub fn len(&self) -> usize {
        self.held.lock().rows.len()
    }

    /// True when no row is locked.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering};

    #[test]
    fn exclusive_per_row_and_released_on_drop() {
        let l = RowLocks::new();
        let g = l.lock(b"r1", Duration::from_secs(1)).unwrap();
        assert!(l.lock(b"r1", Duration::from_millis(10)).is_none());
        let g2 = l.lock(b"r2", Duration::from_millis(10)).unwrap();
        assert_eq!(l.len(), 2);
        drop(g);
        assert!(l.lock(b"r1", Duration::from_millis(10)).is_some());
        drop(g2);
        assert!(l.is_empty());
    }

    #[test]
    fn try_lock_never_waits() {
        let l = RowLocks::new();
        let g = l.try_lock(b"r1").unwrap();
        assert!(l.try_lock(b"r1").is_none());
        assert!(l.lock(b"r1", Duration::from_millis(5)).is_none());
        let g2 = l.try_lock(b"r2").unwrap();
        drop(g);
        assert!(l.try_lock(b"r1").is_some());
        drop(g2);
        assert!(l.is_empty());
    }

    #[test]
    fn serialises_read_modify_write() {
        let l = RowLocks::new();
        let counter = AtomicU64::new(0);
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    for _ in 0..500 {
                        let _g = l.lock(b"row", Duration::from_secs(10)).unwrap();
                        // A non-atomic read-modify-write made safe by the row lock.
                        let v = counter.load(Ordering::Relaxed);
                        std::hint::spin_loop();
                        counter.store(v + 1, Ordering::Relaxed);
                    }
                });
            }
        });
        assert_eq!(counter.load(Ordering::Relaxed), 2000);
    }
}
