//! Shuttle models of regionkv's concurrency protocols (issue 10). Each test in `tests/`
//! runs its threads under shuttle's schedulers, which explore thousands of interleavings
//! (random and PCT) and fail on any assertion, panic or deadlock.
//!
//! * [`mvcc`] is the engine's own module, compiled by `regionkv-region` a second time
//!   against shuttle-backed primitives ([`sync`]) under its additive `shuttle` feature
//!   (the engine names its primitives through `super::sync` for exactly this).
//! * [`group_commit`] restates the WAL's group-commit protocol (`regionkv-wal`'s
//!   `Wal::append` / `await_position` / `lead`): the same state, positions and hand-offs,
//!   with the file I/O reduced to two vectors (what reached the OS, what is durable) and
//!   without the time-based gathering. The real module does I/O and reads clocks, which a
//!   model checker cannot drive.
//! * [`region`] restates the write/flush/read interplay of a region — updates lock, MVCC
//!   (the real [`mvcc`]), two stores' memstore snapshot swap, file commit — to check that a
//!   flush cuts at a read point and that readers never miss or tear a row across it.

pub mod group_commit;
pub mod region;

/// The engine's MVCC over shuttle's primitives (regionkv-region's `shuttle` feature).
pub use regionkv_region::shuttle::mvcc;
/// parking_lot-shaped primitives over shuttle's.
pub use regionkv_region::shuttle::sync;
