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
//!
//! It also keeps the read points of open readers (HBase's `HRegion.scannerReadPoints`).
//! A read takes its read point, then opens each family's memstore and files in turn; a
//! flush or compaction that commits meanwhile hands it files whose cells above its read
//! point it must hide, so those files must still hold the versions at or below it. Flushes
//! and compactions therefore keep every cell above [`Mvcc::smallest_read_point`] without
//! counting it as a version. A reader registers under the same lock that computes the
//! smallest point, so either the flush sees the reader, or the reader's point is at least
//! the one the flush used.
//!
//! Registration is lock-free in the common case (every Get registers, so a mutex here is a
//! point of contention and a tenth of a missing-key Get): a reader claims a free slot of a
//! small array with its read point, then checks that the read point did not move
//! meanwhile (and republishes until it did not). `smallest_read_point` loads the read
//! point first and the slots after, all sequentially consistent, so for a reader it does
//! not see the reader's check came later and found a read point at least as high. More
//! readers than slots fall back to the locked list.

// Through `crate::sync` so that crates/regionkv-models can model-check this file with
// shuttle's primitives.
use super::sync::{AtomicU64, Condvar, Mutex, Ordering, relax_until};
use std::collections::VecDeque;
use std::sync::Arc;

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
    /// Signalled when the read point passes a waiting writer's number: the waiter for
    /// number `n` waits on `advanced[n % WAKE_SLOTS]`, so an advance wakes the writers it
    /// made visible and (rarely) one sharing a slot, not every parked writer.
    advanced: Box<[Condvar]>,
    /// Read points of open readers with their counts, ascending (a reader registers the
    /// current read point, which never goes back, so new entries go at the end): the
    /// readers that found every slot taken.
    readers: Mutex<VecDeque<(u64, usize)>>,
    /// Lock-free reader slots: 0 when free, else the reader's read point + 1.
    slots: Box<[AtomicU64]>,
}

/// Condition variables a region's parked writers spread over (see `Mvcc::advanced`).
const WAKE_SLOTS: u64 = 64;

/// Reader slots of a region: open scanners and Gets in flight at once before the locked
/// list is used.
pub const READER_SLOTS: usize = 32;

/// Where a reader is registered.
#[derive(Debug, Clone, Copy)]
enum Registration {
    Slot(usize),
    List,
}

thread_local! {
    /// The slot this thread tries first, so threads spread over the slots.
    static FIRST_SLOT: std::cell::Cell<usize> = const { std::cell::Cell::new(usize::MAX) };
}

static NEXT_FIRST_SLOT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

fn first_slot() -> usize {
    FIRST_SLOT.with(|f| {
        if f.get() == usize::MAX {
            f.set(NEXT_FIRST_SLOT.fetch_add(1, std::sync::atomic::Ordering::Relaxed));
        }
        f.get()
    })
}

/// An open reader's read point, registered with its region's [`Mvcc`] until dropped.
#[derive(Debug)]
#[must_use = "the read point is released when the guard drops"]
pub struct ReadPointGuard {
    mvcc: Arc<Mvcc>,
    read_point: u64,
    at: Registration,
}

impl ReadPointGuard {
    /// The highest sequence id this reader sees.
    #[inline]
    pub fn read_point(&self) -> u64 {
        self.read_point
    }
}

impl Drop for ReadPointGuard {
    fn drop(&mut self) {
        if let Registration::Slot(i) = self.at {
            if let Some(slot) = self.mvcc.slots.get(i) {
                slot.store(0, Ordering::Release);
            }
            return;
        }
        let mut readers = self.mvcc.readers.lock();
        // Entries are sorted and unique by read point.
        if let Ok(i) = readers.binary_search_by_key(&self.read_point, |e| e.0) {
            readers[i].1 -= 1;
            if readers[i].1 == 0 {
                readers.remove(i);
            }
        }
    }
}

impl Mvcc {
    /// Starts with `start` as both the read point and the last write number (the highest
    /// sequence id recovered from storefiles and the WAL).
    pub fn new(start: u64) -> Self {
        Self::with_reader_slots(start, READER_SLOTS)
    }

    /// As [`Self::new`], with `slots` lock-free reader slots (the models use few, so that
    /// the locked list is exercised too).
    pub fn with_reader_slots(start: u64, slots: usize) -> Self {
        Self {
            slots: (0..slots).map(|_| AtomicU64::new(0)).collect(),
            read_point: AtomicU64::new(start),
            queue: Mutex::new(Queue {
                entries: VecDeque::new(),
                next: start + 1,
            }),
            advanced: (0..WAKE_SLOTS).map(|_| Condvar::new()).collect(),
            readers: Mutex::new(VecDeque::new()),
        }
    }

    /// Registers a reader at the current read point; the point is held (flushes and
    /// compactions keep what it sees) until the guard drops (HBase registers each
    /// RegionScanner in `scannerReadPoints`).
    pub fn open_reader(self: &Arc<Self>) -> ReadPointGuard {
        let n = self.slots.len();
        let first = first_slot();
        for k in 0..n {
            let i = (first + k) % n;
            let Some(slot) = self.slots.get(i) else {
                break;
            };
            if slot.load(Ordering::Relaxed) != 0 {
                continue;
            }
            let mut rp = self.read_point.load(Ordering::SeqCst);
            if slot
                .compare_exchange(0, rp + 1, Ordering::SeqCst, Ordering::Relaxed)
                .is_err()
            {
                continue;
            }
            // Published; if the read point moved since it was loaded, a smallest-read-point
            // taken in between may have missed this slot and used the newer point, so take
            // the newer point too and check again.
            loop {
                let now = self.read_point.load(Ordering::SeqCst);
                if now == rp {
                    break;
                }
                rp = now;
                slot.store(rp + 1, Ordering::SeqCst);
            }
            return ReadPointGuard {
                mvcc: Arc::clone(self),
                read_point: rp,
                at: Registration::Slot(i),
            };
        }
        let mut readers = self.readers.lock();
        let rp = self.read_point.load(Ordering::SeqCst);
        match readers.back_mut() {
            Some(last) if last.0 == rp => last.1 += 1,
            _ => readers.push_back((rp, 1)),
        }
        ReadPointGuard {
            mvcc: Arc::clone(self),
            read_point: rp,
            at: Registration::List,
        }
    }

    /// The lowest read point any open reader holds, or the current read point when none
    /// is open (HBase's `getSmallestReadPoint`): cells above it may still be hidden from
    /// some reader, which then needs the versions below them.
    pub fn smallest_read_point(&self) -> u64 {
        let readers = self.readers.lock();
        // The read point before the slots (see the module docs).
        let rp = self.read_point.load(Ordering::SeqCst);
        let listed = readers.front().map_or(rp, |e| e.0.min(rp));
        self.slots
            .iter()
            .map(|s| s.load(Ordering::SeqCst))
            .filter(|&v| v != 0)
            .fold(listed, |m, v| m.min(v - 1))
    }

    /// Number of readers holding a read point (for tests and metrics).
    pub fn open_readers(&self) -> usize {
        let listed: usize = self.readers.lock().iter().map(|e| e.1).sum();
        listed
            + self
                .slots
                .iter()
                .filter(|s| s.load(Ordering::SeqCst) != 0)
                .count()
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
            self.read_point.store(seq, Ordering::SeqCst);
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
            let from = self.read_point.swap(n, Ordering::SeqCst);
            // Wake the writers of the numbers now visible (under the queue lock, which
            // each waiter holds from its check to its wait: no wake-up is lost).
            for waiter in (from + 1..=n).take(WAKE_SLOTS as usize) {
                self.wake_slot(waiter).notify_all();
            }
        }
        self.read_point() >= entry.write_number
    }

    /// The condition variable the writer of number `n` parks on.
    fn wake_slot(&self, n: u64) -> &Condvar {
        &self.advanced[(n % WAKE_SLOTS) as usize]
    }

    /// Completes `entry` and waits until the read point covers it, so the writer reads
    /// its own write (HBase's `completeAndWait`).
    pub fn complete_and_wait(&self, entry: WriteEntry) {
        let n = entry.write_number;
        if self.complete(entry) {
            return;
        }
        // The writes ahead of this one are usually microseconds from completing (their
        // memstore insert): watch the read point before parking on `advanced`.
        if relax_until(|| self.read_point() >= n) {
            return;
        }
        let mut q = self.queue.lock();
        while self.read_point() < n {
            self.wake_slot(n).wait(&mut q);
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

    #[test]
    fn smallest_read_point_is_the_oldest_open_reader() {
        let m = Arc::new(Mvcc::new(5));
        assert_eq!(m.smallest_read_point(), 5, "no reader: the read point");
        let a = m.open_reader();
        let a2 = m.open_reader();
        assert_eq!((a.read_point(), a2.read_point()), (5, 5));
        let e = m.begin();
        m.complete(e);
        let b = m.open_reader();
        assert_eq!(b.read_point(), 6);
        assert_eq!(m.smallest_read_point(), 5);
        assert_eq!(m.open_readers(), 3);
        drop(a);
        assert_eq!(m.smallest_read_point(), 5, "a2 still holds 5");
        drop(a2);
        assert_eq!(m.smallest_read_point(), 6);
        let e = m.begin();
        m.complete(e);
        assert_eq!(
            m.smallest_read_point(),
            6,
            "b holds 6 while the read point is 7"
        );
        drop(b);
        assert_eq!(m.smallest_read_point(), 7);
        assert_eq!(m.open_readers(), 0);
        // Readers may close out of order.
        let x = m.open_reader();
        let e = m.begin();
        m.complete(e);
        let y = m.open_reader();
        drop(y);
        assert_eq!(m.smallest_read_point(), 7);
        drop(x);
        assert_eq!(m.smallest_read_point(), 8);
    }

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
