//! parking_lot-shaped primitives over shuttle's, with the names the engine's `sync` modules
//! have (this crate's `crate::sync` and `regionkv-region`'s): `Mutex::lock` returns the
//! guard itself, `Condvar::wait` takes `&mut MutexGuard`, [`MutexGuard::unlocked`] runs a
//! closure with the lock released, plus timed waits, thread spawning and a clock. The one
//! shuttle shim of the workspace: `regionkv_region::shuttle` re-uses it for its MVCC.
//!
//! # Time
//!
//! Shuttle does not model time (0.9's `Condvar::wait_timeout` never times out, `sleep` is a
//! bare context switch), yet the WAL decides things by the clock: how long a leader gathers,
//! whether the last round is recent, when the syncer wakes. So time here is the execution's
//! progress: [`Instant::now`] is one microsecond per scheduling step taken so far by any
//! thread ([`shuttle::current::context_switches`]). It only moves while threads run, so a
//! thread that waits for a deadline must let others run: a timed wait releases the lock and
//! yields until it is notified or the deadline has passed. Every pass through that loop is
//! a scheduling step or more, so the clock advances and the wait ends. A leader's I/O takes
//! model time only if the file system yields inside it (as the models' does), which is what
//! makes its sync duration, and so gathering, non-zero.

use std::ops::{Add, Deref, DerefMut};
use std::sync::atomic::{AtomicU64 as StdAtomicU64, Ordering as StdOrdering};
use std::time::Duration;

pub use shuttle::sync::RwLock;
pub use shuttle::sync::atomic::{AtomicBool, AtomicU64, Ordering};
/// Thread-locals of shuttle's threads (the engine's `sync` modules name std's).
pub use shuttle::thread_local;

/// A mutex whose `lock` cannot fail (a poisoned lock is taken over, as parking_lot has no
/// poisoning).
#[derive(Debug, Default)]
pub struct Mutex<T>(shuttle::sync::Mutex<T>);

/// The guard of a [`Mutex`].
#[derive(Debug)]
pub struct MutexGuard<'a, T> {
    mutex: &'a Mutex<T>,
    // `None` only while a `Condvar::wait` or `unlocked` has the lock released.
    inner: Option<shuttle::sync::MutexGuard<'a, T>>,
}

impl<T> Mutex<T> {
    /// A new mutex.
    pub fn new(value: T) -> Self {
        Self(shuttle::sync::Mutex::new(value))
    }

    /// Locks it.
    pub fn lock(&self) -> MutexGuard<'_, T> {
        MutexGuard {
            mutex: self,
            inner: Some(self.0.lock().unwrap_or_else(|e| e.into_inner())),
        }
    }
}

impl<T> MutexGuard<'_, T> {
    /// Runs `f` with the lock released, then takes it again (parking_lot's
    /// `MutexGuard::unlocked`).
    pub fn unlocked<R>(guard: &mut Self, f: impl FnOnce() -> R) -> R {
        drop(guard.inner.take());
        let r = f();
        guard.inner = Some(guard.mutex.0.lock().unwrap_or_else(|e| e.into_inner()));
        r
    }
}

impl<T> Deref for MutexGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        match &self.inner {
            Some(g) => g,
            None => unreachable!("a guard is only empty inside wait or unlocked"),
        }
    }
}

impl<T> DerefMut for MutexGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        match &mut self.inner {
            Some(g) => g,
            None => unreachable!("a guard is only empty inside wait or unlocked"),
        }
    }
}

/// A condition variable for [`Mutex`].
#[derive(Debug, Default)]
pub struct Condvar {
    inner: shuttle::sync::Condvar,
    /// Notifications so far, which is how a timed wait (not blocked on `inner`) learns it was
    /// notified. A std atomic, not a scheduling point: a shuttle execution runs one thread
    /// at a time, so reading it needs no synchronization the model should explore.
    notifications: StdAtomicU64,
}

/// Whether a timed wait returned because its deadline passed (parking_lot's type).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WaitTimeoutResult(bool);

impl WaitTimeoutResult {
    /// The deadline passed without a notification.
    pub fn timed_out(self) -> bool {
        self.0
    }
}

impl Condvar {
    /// A new condition variable.
    pub fn new() -> Self {
        Self::default()
    }

    /// Wakes one waiter blocked in [`Condvar::wait`], and every timed waiter. Not exact, but
    /// indistinguishable where the WAL uses it: only its gathering condition variable is
    /// notified one at a time, and only the one gathering leader waits on it.
    pub fn notify_one(&self) {
        self.notifications.fetch_add(1, StdOrdering::Relaxed);
        self.inner.notify_one();
    }

    /// Wakes every waiter.
    pub fn notify_all(&self) {
        self.notifications.fetch_add(1, StdOrdering::Relaxed);
        self.inner.notify_all();
    }

    /// Releases the lock, waits for a notification, takes the lock again.
    pub fn wait<T>(&self, guard: &mut MutexGuard<'_, T>) {
        if let Some(g) = guard.inner.take() {
            guard.inner = Some(self.inner.wait(g).unwrap_or_else(|e| e.into_inner()));
        }
    }

    /// Waits for a notification until `deadline` in model time (see the module docs):
    /// releases the lock and yields, over and over, until a notification came or the clock
    /// passed the deadline. Returns at once, timed out, if it has passed already. Never
    /// wakes without one of the two (parking_lot has no spurious wakeups either).
    pub fn wait_until<T>(
        &self,
        guard: &mut MutexGuard<'_, T>,
        deadline: Instant,
    ) -> WaitTimeoutResult {
        let seen = self.notifications.load(StdOrdering::Relaxed);
        loop {
            if self.notifications.load(StdOrdering::Relaxed) != seen {
                return WaitTimeoutResult(false);
            }
            if Instant::now() >= deadline {
                return WaitTimeoutResult(true);
            }
            MutexGuard::unlocked(guard, shuttle::thread::yield_now);
        }
    }

    /// [`Condvar::wait_until`] `timeout` from now.
    pub fn wait_for<T>(
        &self,
        guard: &mut MutexGuard<'_, T>,
        timeout: Duration,
    ) -> WaitTimeoutResult {
        self.wait_until(guard, Instant::now() + timeout)
    }
}

/// A point in model time: the scheduling steps of the current shuttle execution before it,
/// a microsecond each (see the module docs). Panics outside a shuttle execution.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Instant(Duration);

impl Instant {
    /// Model time that one scheduling step takes.
    pub const STEP: Duration = Duration::from_micros(1);

    /// Now: [`Instant::STEP`] times the steps taken so far in this execution.
    pub fn now() -> Instant {
        let steps = u32::try_from(shuttle::current::context_switches()).unwrap_or(u32::MAX);
        Instant(Self::STEP * steps)
    }

    /// The model time from `earlier` to `self`, zero if `earlier` is later.
    pub fn duration_since(&self, earlier: Instant) -> Duration {
        self.0.saturating_sub(earlier.0)
    }

    /// The model time since `self`.
    pub fn elapsed(&self) -> Duration {
        Instant::now().duration_since(*self)
    }
}

impl Add<Duration> for Instant {
    type Output = Instant;
    fn add(self, d: Duration) -> Instant {
        Instant(self.0 + d)
    }
}

/// Threads that shuttle schedules (the WAL's background syncer).
pub mod thread {
    pub use shuttle::thread::{Builder, JoinHandle, yield_now};
}

/// The engine's `sync::relax_until` under shuttle: a few yields (a busy spin would never
/// let the thread waited for run), so the models explore waits that end while relaxing
/// and waits that park, without multiplying every wait's schedule.
pub fn relax_until(done: impl Fn() -> bool) -> bool {
    relax_for(Duration::ZERO, done)
}

/// The engine's `sync::relax_for` under shuttle: as [`relax_until`], whatever the limit.
pub fn relax_for(_limit: Duration, done: impl Fn() -> bool) -> bool {
    for _ in 0..3 {
        if done() {
            return true;
        }
        shuttle::thread::yield_now();
    }
    done()
}

/// The engine's `sync::current_cpu` under shuttle: each task on one of two model CPUs
/// (by task id), so that the models explore rounds handed to a waiter on the other one.
pub fn current_cpu() -> Option<usize> {
    Some(usize::from(shuttle::current::me()) % 2)
}
