//! The synchronization primitives of the modules whose concurrency is model-checked
//! ([`crate::mvcc`], [`crate::commit_slots`]), named in one place. Here they are
//! parking_lot's and std's; with the `shuttle` feature, `crate::shuttle` compiles the same module files against
//! shuttle-backed versions (same names, same shapes: `regionkv_wal::shuttle::sync`) for
//! `regionkv-models`, which explores their thread interleavings.

pub use parking_lot::{Condvar, Mutex};
pub use regionkv_wal::relax::relax_until;
pub use std::sync::atomic::{AtomicU64, Ordering};
pub use std::thread_local;
pub use std::time::Instant;
