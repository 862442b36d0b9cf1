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
//! The slots are a counting semaphore on a mutex and a condition variable, with the
//! writers that are running preferred over the parked ones. A released slot stays free for
//! whoever comes for it next (in a closed loop, usually its releaser, a microsecond later),
//! and goes to a parked waiter (set aside for it, then the waiter woken) only
//! - when no writer is inside any more: the releaser may be gone for good (a gateway
//!   thread off to its socket), and nobody else would come for the slot; or
//! - when a waiter's turn is due: once a millisecond (`HAND_OVER_EVERY`), so that parked
//!   writers keep getting turns while running ones would keep the slots. (A turn, not a
//!   guarantee: a writer that arrives while the woken waiter is still waking takes the
//!   slot, below; the waiter parks for the next turn.)
//!
//! A woken waiter that finds another slot still free passes that one on too (nobody took
//! it during its wake-up). The first version woke a waiter at every release: the
//! woken thread mostly found the slot taken back already and parked again, or took it
//! and sent its releaser to park, two context switches each time. With 8 writers on 2
//! cores that was 40,000-230,000 context switches per million puts and, in some runs,
//! 0.53-0.60x the 2-thread rate; handing over lazily cut them to 18,000-28,000
//! (docs/benchmarks.md, "Client threads, third pass"). Handing every slot to the
//! longest waiter (FIFO) was measured at about a quarter of the rate with 8 threads: the
//! slot sat idle while its sleeping new owner was scheduled.
//!
//! A writer that finds no free slot but one handed over takes it, even though a woken
//! waiter is on its way to it (that waiter parks again): keeping the slot for the waiter
//! left it idle through each wake-up, and 8 writers ran at half the rate of 2.
//!
//! Invariants (see `SlotState`): `free + holders = limit` (nested writes hold no slot);
//! a waiter is woken only for a slot handed over.

// Through `crate::sync` so that crates/regionkv-models can model-check this file with
// shuttle's primitives.
use super::sync::{Condvar, Instant, Mutex};
use std::cell::Cell;
use std::marker::PhantomData;

super::sync::thread_local! {
    /// Slots this thread holds (0 or 1: nested writes take none).
    static HELD: Cell<u32> = const { Cell::new(0) };
}

/// A region's commit slots (module docs).
#[derive(Debug)]
pub struct CommitSlots {
    state: Mutex<SlotState>,
    /// Signalled once per slot handed to a waiter (`SlotState::handed`).
    handed: Condvar,
}

/// How often, at most, a released slot goes to a parked waiter while the writers that
/// are running would take it back: how often parked writers get a turn.
const HAND_OVER_EVERY: std::time::Duration = std::time::Duration::from_millis(1);

/// Under the mutex. Invariants: `free + holders == limit`; `handed <= free`;
/// `handed <= waiters`.
#[derive(Debug)]
struct SlotState {
    limit: usize,
    /// Slots nobody holds, `handed` of them set aside for woken waiters.
    free: usize,
    /// Threads parked for a slot, or woken and not yet back under the mutex.
    waiters: usize,
    /// Free slots set aside for woken waiters (a writer that comes for a slot before
    /// the woken waiter runs takes one anyway; that waiter then parks again).
    handed: usize,
    /// When a release next hands its slot to a waiter although writers are inside.
    next_hand_over: Option<Instant>,
}

impl SlotState {
    /// Whether a slot just released (or left free by a waiter that took another) goes to a
    /// parked waiter now: when one is parked without a slot handed to it, and either no
    /// writer is inside (nobody would take the slot back soon: the releaser may be gone
    /// for good) or a waiter's turn is due. Otherwise the running writers keep the slot:
    /// waking a waiter for a slot that a running writer takes back a microsecond later
    /// costs two context switches and finds nothing.
    fn hand_over(&mut self, now: Instant) -> bool {
        if self.waiters <= self.handed || self.free <= self.handed {
            return false;
        }
        let idle = self.free == self.limit;
        if !idle && self.next_hand_over.is_some_and(|t| now < t) {
            return false;
        }
        self.handed += 1;
        self.next_hand_over = Some(now + HAND_OVER_EVERY);
        true
    }
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
            let mut st = slots.state.lock();
            st.free += 1;
            let hand_over = st.hand_over(Instant::now());
            drop(st);
            if hand_over {
                slots.handed.notify_one();
            }
        }
    }
}

impl CommitSlots {
    /// `limit` slots (at least one).
    pub fn new(limit: usize) -> Self {
        let limit = limit.max(1);
        Self {
            state: Mutex::new(SlotState {
                limit,
                free: limit,
                waiters: 0,
                handed: 0,
                next_hand_over: None,
            }),
            handed: Condvar::new(),
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
        let mut st = self.state.lock();
        if st.free > st.handed {
            st.free -= 1;
        } else {
            st.waiters += 1;
            // Takes a slot handed over, even one handed to a waiter still waking up (which
            // then finds none and parks again): a running writer in the slot beats one
            // that is tens of microseconds from running. Parking first instead (keeping
            // the slot for the woken waiter) left slots idle through every wake-up: 8
            // writers fell to half the rate of 2, with 160,000 context switches per
            // million puts (docs/benchmarks.md, "Client threads, third pass").
            while st.handed == 0 {
                self.handed.wait(&mut st);
            }
            st.handed -= 1;
            st.free -= 1;
            st.waiters -= 1;
            // A slot still free after a wake-up's delay is not being taken back by a
            // running writer: pass it on to the next waiter too.
            let more = st.free > st.handed && st.waiters > st.handed;
            if more {
                st.handed += 1;
                drop(st);
                self.handed.notify_one();
            }
        }
        HELD.with(|h| h.set(1));
        CommitSlot {
            slots: Some(self),
            _this_thread: PhantomData,
        }
    }

    /// Slots free now.
    pub fn free(&self) -> usize {
        self.state.lock().free
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
        // Two threads hold both slots at once.
        let both = std::sync::Barrier::new(2);
        std::thread::scope(|s| {
            s.spawn(|| {
                let _slot = slots.acquire();
                both.wait();
                both.wait();
            });
            let _slot = slots.acquire();
            both.wait();
            assert_eq!(slots.free(), 0, "two holders");
            both.wait();
        });
        assert_eq!(slots.free(), 2);
        // Eight threads contend: never three inside, and all get through. (How often two
        // are inside at once depends on the machine's load: a thread may run all its
        // turns alone.)
        let inside = Arc::new(AtomicUsize::new(0));
        let most = Arc::new(AtomicUsize::new(0));
        let start = Arc::new(std::sync::Barrier::new(8));
        std::thread::scope(|s| {
            for _ in 0..8 {
                let (slots, inside, most, start) =
                    (slots.clone(), inside.clone(), most.clone(), start.clone());
                s.spawn(move || {
                    start.wait();
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
        let most = most.load(Ordering::SeqCst);
        assert!(most <= 2, "{most} holders at once in two slots");
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

    fn state(limit: usize, free: usize, waiters: usize) -> SlotState {
        SlotState {
            limit,
            free,
            waiters,
            handed: 0,
            next_hand_over: None,
        }
    }

    #[test]
    fn a_release_hands_over_when_nobody_is_inside_or_a_turn_is_due() {
        let t0 = Instant::now();
        // Nobody waits: the slot just goes back.
        assert!(!state(2, 1, 0).hand_over(t0));
        // A waiter and a writer still inside: the first hand-over is due at once, the
        // next one only a period later.
        let mut st = state(2, 1, 2);
        assert!(st.hand_over(t0));
        assert_eq!(st.handed, 1);
        st.handed = 0; // the woken waiter took it
        st.free = 1; // and a running writer released another
        assert!(
            !st.hand_over(t0),
            "running writers keep it until the next turn"
        );
        assert!(st.hand_over(t0 + HAND_OVER_EVERY));
        // Nobody inside: a waiter gets it whatever the time (the releaser may be gone).
        let mut idle = state(2, 2, 1);
        idle.next_hand_over = Some(t0 + HAND_OVER_EVERY);
        assert!(idle.hand_over(t0));
        // Never more slots handed than waiters, nor than free slots.
        assert!(
            !idle.hand_over(t0),
            "the one waiter has a slot handed to it"
        );
        let mut full = state(2, 1, 3);
        full.handed = 1;
        assert!(
            !full.hand_over(t0 + HAND_OVER_EVERY),
            "the one free slot is handed"
        );
    }

    #[test]
    fn a_waiter_gets_a_turn_while_writers_keep_taking_slots_back() {
        let slots = Arc::new(CommitSlots::new(2));
        let stop = Arc::new(AtomicUsize::new(0));
        let busy: Vec<_> = (0..2)
            .map(|_| {
                let (slots, stop) = (slots.clone(), stop.clone());
                std::thread::spawn(move || {
                    while stop.load(Ordering::Relaxed) == 0 {
                        let _slot = slots.acquire();
                        std::hint::spin_loop();
                    }
                })
            })
            .collect();
        // Each of these takes a slot from under the two loops (within a turn's period
        // when both are inside; at once when both are between their slots).
        for _ in 0..50 {
            let _slot = slots.acquire();
        }
        stop.store(1, Ordering::Relaxed);
        for b in busy {
            b.join().unwrap();
        }
        assert_eq!(slots.free(), 2);
    }
}
