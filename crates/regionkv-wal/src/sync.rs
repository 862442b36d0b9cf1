//! The synchronization primitives, thread spawning and clock of the WAL's group commit
//! ([`crate::wal`]: its mutex and condition variables, the background syncer thread, the
//! gathering window and the syncer's interval), named in one place. Here they are
//! parking_lot's and std's; with the `shuttle` feature, `crate::shuttle` compiles the same
//! file against shuttle-backed versions with the same names and shapes, for
//! `regionkv-models`, which explores its thread interleavings.

pub use parking_lot::{Condvar, Mutex, MutexGuard};
pub use std::time::Instant;

/// Threads: the background syncer's.
pub mod thread {
    pub use std::thread::{Builder, JoinHandle};
}
