//! `Mvcc`: HBase's `MultiVersionConcurrencyControl` — write numbers (which are also the
//! region's sequence ids) and the read point that makes a whole row mutation visible at
//! once.
//!
//! A writer `begin`s and gets the next write number; its cells carry that number as their
//! sequence id. Readers see only cells whose sequence id is ≤ the read point. `complete`
//! marks an entry done and advances the read point over every completed entry at the head
//! of the queue, so the read point never passes an unfinished write (a slow writer holds
//! back the visibility of faster, later ones, exactly as in HBase).
//!
//! Invariants: write numbers are strictly increasing; `read_point ≤ write_point`; the read
//! point only moves forward; every number ≤ read point belongs to a completed (or
//! abandoned) entry.

// Through `crate::sync` so that crates/regionkv-models can model-check this file with
// shuttle's primitives.
use crate::sync::{AtomicU64, Condvar, Mutex, Ordering};
use std::collections::VecDeque;

/// A write in progress: its number is the sequence id of every cell it writes.
#[derive(Debug)]
#[must_use = "a write entry must be completed, or the read point stalls"]
pub struct WriteEntry {
    write_number: u64,
}

impl WriteEntry {
    /// The write number (sequence id).
    pub fn write_number(&self) -> u64 {
        self.write_number
    }
}

#[derive(Debug)]
struct Queue {
    /// Write numbers begun and not yet passed by the read point, ascending, with done flag.
    entries: VecDeque<(u64, bool)>,
    next: u64,
}

/// Multi-version concurrency control for one region.
#[derive(Debug)]
pub struct Mvcc {
    read_point: AtomicU64,
    queue: Mutex<Queue>,
    advanced: Condvar,
}

impl Mvcc {
    /// Starts with `start` as both the read point and the last write number (the highest
    /// sequence id recovered from storefiles and the WAL).
    pub fn new(start: u64) -> Self {
        Self {
            read_point: AtomicU64::new(start),
            queue: Mutex::new(Queue {
                entries: VecDeque::new(),
                next: start + 1,
            }),
            advanced: Condvar::new(),
        }
    }

    /// The highest sequence id every reader may see.
    #[inline]
    pub fn read_point(&self) -> u64 {
        self.read_point.load(Ordering::Acquire)
    }

    /// The last write number handed out.
    pub fn write_point(&self) -> u64 {
        self.queue.lock().next - 1
    }

    /// Begins a write.
    pub fn begin(&self) -> WriteEntry {
        let mut q = self.queue.lock();
        let n = q.next;
        q.next += 1;
        q.entries.push_back((n, false));
        WriteEntry { write_number: n }
    }

    /// Moves the write point forward to at least `seq` (after replaying edits with
    /// sequence ids up to `seq`), keeping the read point in step when nothing is pending.
    pub fn advance_to(&self, seq: u64) {
        let mut q = self.queue.lock();
        if q.next <= seq {
            q.next = seq + 1;
        }
        if q.entries.is_empty() && self.read_point() < seq {
            self.read_point.store(seq, Ordering::Release);
        }
    }

    /// Marks `entry` done and advances the read point as far as completed entries allow.
    /// Returns true when the read point now covers `entry`.
    pub fn complete(&self, entry: WriteEntry) -> bool {
        let mut q = self.queue.lock();
        if let Some(e) = q.entries.iter_mut().find(|e| e.0 == entry.write_number) {
            e.1 = true;
        }
        let mut advanced_to = None;
        while let Some(&(n, true)) = q.entries.front() {
            q.entries.pop_front();
            advanced_to = Some(n);
        }
        if let Some(n) = advanced_to {
            self.read_point.store(n, Ordering::Release);
            self.advanced.notify_all();
        }
        self.read_point() >= entry.write_number
    }

    /// Completes `entry` and waits until the read point covers it, so the writer reads
    /// its own write (HBase's `completeAndWait`).
    pub fn complete_and_wait(&self, entry: WriteEntry) {
        let n = entry.write_number;
        if self.complete(entry) {
            return;
        }
        let mut q = self.queue.lock();
        while self.read_point() < n {
            self.advanced.wait(&mut q);
        }
    }

    /// Waits until every write begun so far is visible (flush uses it before taking a
    /// snapshot: HBase's `waitForRead` of the flush's own entry).
    pub fn wait_for_all(&self) {
        let e = self.begin();
        self.complete_and_wait(e);
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn read_point_waits_for_the_slowest_earlier_writer() {
        let m = Mvcc::new(10);
        assert_eq!(m.read_point(), 10);
        let a = m.begin();
        let b = m.begin();
        assert_eq!((a.write_number(), b.write_number()), (11, 12));
        assert!(!m.complete(b), "12 done but 11 pending: not visible yet");
        assert_eq!(m.read_point(), 10);
        assert!(m.complete(a));
        assert_eq!(m.read_point(), 12, "completing 11 releases 12 as well");
        assert_eq!(m.write_point(), 12);
    }

    #[test]
    fn advance_to_after_replay() {
        let m = Mvcc::new(0);
        m.advance_to(41);
        assert_eq!(m.read_point(), 41);
        assert_eq!(m.begin().write_number(), 42);
    }

    #[test]
    fn complete_and_wait_returns_once_visible() {
        let m = Arc::new(Mvcc::new(0));
        let first = m.begin();
        let second = m.begin();
        let m2 = m.clone();
        let waiter = std::thread::spawn(move || {
            m2.complete_and_wait(second);
            m2.read_point()
        });
        // The waiter cannot finish before `first` completes.
        std::thread::sleep(std::time::Duration::from_millis(20));
        assert!(!waiter.is_finished());
        m.complete(first);
        assert_eq!(waiter.join().unwrap(), 2);
    }

    #[test]
    fn concurrent_writers_end_with_everything_visible() {
        let m = Arc::new(Mvcc::new(0));
        std::thread::scope(|s| {
            for _ in 0..4 {
                let m = m.clone();
                s.spawn(move || {
                    for _ in 0..1000 {
                        let e = m.begin();
                        m.complete_and_wait(e);
                    }
                });
            }
        });
        assert_eq!(m.read_point(), 4000);
        m.wait_for_all();
        assert_eq!(m.read_point(), 4001);
    }
}
