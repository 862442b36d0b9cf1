//! parking_lot-shaped primitives over shuttle's, with the names [`crate::sync`] has:
//! `Mutex::lock` returns the guard itself, `Condvar::wait` takes `&mut MutexGuard`, and
//! [`MutexGuard::unlocked`] runs a closure with the lock released.

use std::ops::{Deref, DerefMut};

pub use shuttle::sync::RwLock;
pub use shuttle::sync::atomic::{AtomicBool, AtomicU64, Ordering};

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
pub struct Condvar(shuttle::sync::Condvar);

impl Condvar {
    /// A new condition variable.
    pub fn new() -> Self {
        Self(shuttle::sync::Condvar::new())
    }

    /// Wakes every waiter.
    pub fn notify_all(&self) {
        self.0.notify_all();
    }

    /// Releases the lock, waits for a notification, takes the lock again.
    pub fn wait<T>(&self, guard: &mut MutexGuard<'_, T>) {
        if let Some(g) = guard.inner.take() {
            guard.inner = Some(self.0.wait(g).unwrap_or_else(|e| e.into_inner()));
        }
    }
}
