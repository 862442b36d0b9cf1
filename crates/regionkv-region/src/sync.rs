//! The synchronization primitives of the modules whose concurrency is model-checked
//! ([`crate::mvcc`]), named in one place. Here they are parking_lot's and std's; the
//! crate `regionkv-models` compiles the same module files against shuttle's versions
//! (same names, same shapes) and explores their thread interleavings.

pub(crate) use parking_lot::{Condvar, Mutex};
pub(crate) use std::sync::atomic::{AtomicU64, Ordering};
