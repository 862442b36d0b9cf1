//! `CommitSlots`: how many writers may be inside a region's write path at once — from
//! taking the row lock to seeing the read point pass their write — and the wait of the
//! others. The limit is the number of cores.
//!
//! Why: a region's commits become visible in write-number order (see `mvcc`), so a writer
//! that holds a number and is not running holds up every writer after it; the row locks,
//! the updates lock and the WAL's lock are held briefly by whoever runs. With no more
//! writers than cores that costs little: a writer in the path is on a CPU. With more client
//! threads than cores (a gateway under load), the scheduler keeps preempting writers in
//! the middle of the path, and each writer behind one parks and is woken in turn; waking a
//! thread can itself cost the waker its CPU, mid-path. 8 writer threads on 2 cores ran at
//! 0.7-0.8x the rate of 2, with 200,000 context switches per million puts (issue 32,
//! docs/benchmarks.md "Client threads"). Waiting *before* the path, the extra writers hold
//! up no one, and the writers inside it run as 2 threads on 2 cores do.
//!
//! What waits outside: the client's own work (building the mutation, finding the region),
//! the region's refusals (closed, read-only, too busy: a writer blocked on a full memstore
//! holds no slot). An `FSYNC_WAL` write takes no slot: it waits for the disk inside the
//! path, sharing its sync with every writer that arrives meanwhile.
//!
//! A thread that already holds a slot (of any region) takes no other: a write made from
//! inside a write (an observer's hook under the row lock of a checkAndMutate writing
//! through its connection) must not wait for a slot its own caller holds.
//!
//! The slots are a counting semaphore on a mutex and a condition variable: a released
//! slot wakes one waiter, and a writer that is running takes a free slot before a woken
//! one gets there (barging). Handing the slot to the longest waiter instead (FIFO) was
//! measured at about a quarter of the rate with 8 threads: the slot sat idle while its
//! sleeping new owner was scheduled.
//!
//! Invariant: `free + holders = limit` (nested writes hold no slot).

// Through `crate::sync` so that crates/regionkv-models can model-check this file with
// shuttle's primitives.
use super::sync::{Condvar, Mutex};
use std::cell::Cell;
use std::marker::PhantomData;

super::sync::thread_local! {
    /// Slots this thread holds (0 or 1: nested writes take none).
    static HELD: Cell<u32> = const { Cell::new(0) };
}

/// A region's commit slots (module docs).
#[derive(Debug)]
pub struct CommitSlots {
    free: Mutex<usize>,
    released: Condvar,
}

/// A held slot, released on drop; or, for a nested write, nothing. Not `Send`: the
/// thread that took it marks itself as holding one, and releases it.
#[derive(Debug)]
#[must_use = "the slot is released when the guard drops"]
pub struct CommitSlot<'a> {
    slots: Option<&'a CommitSlots>,
    _this_thread: PhantomData<*const ()>,
}

impl Drop for CommitSlot<'_> {
    fn drop(&mut self) {
        if let Some(slots) = self.slots {
            HELD.with(|h| h.set(0));
            *slots.free.lock() += 1;
            slots.released.notify_one();
        }
    }
}

impl CommitSlots {
    /// `limit` slots (at least one).
    pub fn new(limit: usize) -> Self {
        Self {
            free: Mutex::new(limit.max(1)),
            released: Condvar::new(),
        }
    }

    /// As many slots as this machine has cores.
    pub fn for_this_machine() -> Self {
        Self::new(std::thread::available_parallelism().map_or(1, |n| n.get()))
    }

    /// Takes a slot, waiting for one when all are held; takes none when this thread
    /// already holds one.
    pub fn acquire(&self) -> CommitSlot<'_> {
        if HELD.with(Cell::get) > 0 {
            return CommitSlot {
                slots: None,
                _this_thread: PhantomData,
            };
        }
        let mut free = self.free.lock();
        while *free == 0 {
            self.released.wait(&mut free);
        }
        *free -= 1;
        drop(free);
        HELD.with(|h| h.set(1));
        CommitSlot {
            slots: Some(self),
            _this_thread: PhantomData,
        }
    }

    /// Slots free now.
    pub fn free(&self) -> usize {
        *self.free.lock()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn no_more_holders_than_slots_and_every_waiter_gets_one() {
        let slots = Arc::new(CommitSlots::new(2));
        let inside = Arc::new(AtomicUsize::new(0));
        let most = Arc::new(AtomicUsize::new(0));
        std::thread::scope(|s| {
            for _ in 0..8 {
                let (slots, inside, most) = (slots.clone(), inside.clone(), most.clone());
                s.spawn(move || {
                    for _ in 0..2000 {
                        let _slot = slots.acquire();
                        let n = inside.fetch_add(1, Ordering::SeqCst) + 1;
                        most.fetch_max(n, Ordering::SeqCst);
                        std::hint::spin_loop();
                        inside.fetch_sub(1, Ordering::SeqCst);
                    }
                });
            }
        });
        assert_eq!(
            most.load(Ordering::SeqCst),
            2,
            "two holders at once, never three"
        );
        assert_eq!(slots.free(), 2, "every slot came back");
    }

    #[test]
    fn a_nested_write_takes_no_slot() {
        let a = CommitSlots::new(1);
        let b = CommitSlots::new(1);
        let outer = a.acquire();
        assert_eq!(a.free(), 0);
        // Would wait forever on `a` if it took one; takes none of `b` either.
        let inner = a.acquire();
        let other = b.acquire();
        assert_eq!((a.free(), b.free()), (0, 1));
        drop(other);
        drop(inner);
        assert_eq!(a.free(), 0, "the nested guard gave back nothing");
        drop(outer);
        assert_eq!(a.free(), 1);
        let again = b.acquire();
        assert_eq!(b.free(), 0, "a thread without a slot takes one");
        drop(again);
    }

    #[test]
    fn a_waiter_gets_the_released_slot() {
        let slots = Arc::new(CommitSlots::new(1));
        let held = slots.acquire();
        let s2 = slots.clone();
        let waiter = std::thread::spawn(move || {
            let _slot = s2.acquire();
        });
        std::thread::sleep(std::time::Duration::from_millis(20));
        assert!(!waiter.is_finished(), "no slot free: it waits");
        drop(held);
        waiter.join().unwrap();
        assert_eq!(slots.free(), 1);
    }
}
