//! `RowLocks`: exclusive per-row locks, held for the duration of one row mutation (HBase's
//! `HRegion.getRowLock`). A mutation of a row holds its lock across WAL append, memstore
//! insert and MVCC completion, so read-modify-write operations (increment, append,
//! check-and-mutate) on one row are serialised.
//!
//! Implementation: a map from row to a lock entry with a holder count, guarded by one
//! mutex; the entry is removed when its last holder releases it, so memory is bounded by
//! the rows being mutated right now. Waiting uses a condition variable per map (rows are
//! held for microseconds; a per-row condvar would cost an allocation per lock).

use parking_lot::{Condvar, Mutex};
use std::collections::HashSet;
use std::time::{Duration, Instant};

/// HBase's row lock wait bound (`hbase.rowlock.wait.duration`, 30 s).
pub const DEFAULT_ROW_LOCK_WAIT: Duration = Duration::from_secs(30);

/// The per-row lock table of one region.
#[derive(Debug, Default)]
pub struct RowLocks {
    held: Mutex<HashSet<Vec<u8>>>,
    released: Condvar,
}

/// A held row lock; released on drop.
#[derive(Debug)]
pub struct RowLockGuard<'a> {
    locks: &'a RowLocks,
    row: Vec<u8>,
}

impl Drop for RowLockGuard<'_> {
    fn drop(&mut self) {
        self.locks.held.lock().remove(&self.row);
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
    pub fn lock(&self, row: &[u8], timeout: Duration) -> Option<RowLockGuard<'_>> {
        let deadline = Instant::now() + timeout;
        let mut held = self.held.lock();
        while held.contains(row) {
            if self.released.wait_until(&mut held, deadline).timed_out() && held.contains(row) {
                return None;
            }
        }
        held.insert(row.to_vec());
        Some(RowLockGuard {
            locks: self,
            row: row.to_vec(),
        })
    }

    /// Rows locked right now.
    pub fn len(&self) -> usize {
        self.held.lock().len()
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
