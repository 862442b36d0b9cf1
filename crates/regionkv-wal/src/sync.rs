//! The synchronization primitives, thread spawning and clock of the WAL's group commit
//! ([`crate::wal`]: its mutex and condition variables, the background syncer thread, the
//! gathering window and the syncer's interval), named in one place. Here they are
//! parking_lot's and std's; with the `shuttle` feature, `crate::shuttle` compiles the same
//! file against shuttle-backed versions with the same names and shapes, for
//! `regionkv-models`, which explores its thread interleavings.

pub use parking_lot::{Condvar, Mutex, MutexGuard};
pub use std::sync::atomic::{AtomicU64, Ordering};
pub use std::time::Instant;

/// Waits a little for `done` before the caller parks: a few busy spins, then yields of
/// the CPU while they stay quick. Returns whether `done` came true.
///
/// A hand-off that completes within microseconds (a `SyncWal` round's `write(2)`, the
/// memstore insert of the write ahead in the MVCC queue) costs a futex sleep and wake-up
/// when parked, tens of microseconds on a busy 2-core machine, and the thread handed to
/// wakes late. RocksDB's write thread waits the same way before blocking
/// (`WriteThread::AwaitState`), and stops yielding the same way: a yield that takes long
/// means other threads want the CPU (more threads than cores), and spinning would take it
/// from the one being waited for.
pub fn relax_until(done: impl Fn() -> bool) -> bool {
    relax_for(RELAX_FOR, done)
}

/// The yields of [`relax_until`] go on for at most this long.
const RELAX_FOR: std::time::Duration = std::time::Duration::from_micros(100);

/// [`relax_until`] with the yields going on for at most `limit` (a wait whose expected
/// length is known: an `fdatasync` that takes longer than the default).
pub fn relax_for(limit: std::time::Duration, done: impl Fn() -> bool) -> bool {
    // At most as many waiters relax at a time as there are cores; the others park at
    // once. With more threads than cores, spinners would otherwise take turns on the
    // CPUs while the thread they wait for waits for one.
    let _slot = match SpinSlot::take() {
        Some(slot) => slot,
        None => return done(),
    };
    relax_in_slot(limit, done)
}

/// The waiters relaxing now.
static SPINNING: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// How many may relax at once: one fewer than the cores, at least one.
fn spin_slots() -> usize {
    static SLOTS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *SLOTS.get_or_init(|| {
        std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .max(1)
    })
}

/// A place among the relaxing waiters, given back on drop.
struct SpinSlot;

impl SpinSlot {
    fn take() -> Option<Self> {
        let slots = spin_slots();
        let mut now = SPINNING.load(Ordering::Relaxed);
        loop {
            if now >= slots {
                return None;
            }
            match SPINNING.compare_exchange_weak(now, now + 1, Ordering::Acquire, Ordering::Relaxed)
            {
                Ok(_) => return Some(Self),
                Err(seen) => now = seen,
            }
        }
    }
}

impl Drop for SpinSlot {
    fn drop(&mut self) {
        SPINNING.fetch_sub(1, Ordering::Release);
    }
}

/// [`relax_until`] once a slot is taken.
fn relax_in_slot(yield_for: std::time::Duration, done: impl Fn() -> bool) -> bool {
    /// Busy spins first (each a few dozen `pause`s).
    const SPINS: u32 = 20;
    /// A yield this long means another thread ran meanwhile.
    const SLOW_YIELD: std::time::Duration = std::time::Duration::from_micros(3);
    /// Slow yields before giving up.
    const SLOW_LIMIT: u32 = 3;
    for step in 0..SPINS {
        if done() {
            return true;
        }
        for _ in 0..(1u32 << step.min(6)) {
            std::hint::spin_loop();
        }
    }
    let start = Instant::now();
    let mut slow = 0;
    loop {
        if done() {
            return true;
        }
        let before = Instant::now();
        std::thread::yield_now();
        let now = Instant::now();
        if now - before > SLOW_YIELD {
            slow += 1;
            if slow >= SLOW_LIMIT {
                return done();
            }
        }
        if now - start > yield_for {
            return done();
        }
    }
}

/// Threads: the background syncer's.
pub mod thread {
    pub use std::thread::{Builder, JoinHandle};
}

/// The CPU the calling thread runs on now, where the platform tells (Linux's
/// `sched_getcpu`, a vDSO call): what the group commit's leader choice keys sync times by
/// (see "The syncing CPU" in [`crate::wal`]).
pub fn current_cpu() -> Option<usize> {
    #[cfg(target_os = "linux")]
    {
        Some(rustix::thread::sched_getcpu())
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}
