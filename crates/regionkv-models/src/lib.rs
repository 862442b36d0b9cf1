//! Shuttle models of regionkv's concurrency protocols (issue 10). Each test in `tests/`
//! runs its threads under shuttle's schedulers, which explore thousands of interleavings
//! (random and PCT) and fail on any assertion, panic or deadlock.
//!
//! * [`wal`] is the engine's own WAL (`regionkv-wal`'s `wal.rs`: `Wal::append_cells`,
//!   `await_position`, `gather`, `lead`, rolling, the background syncer, poisoning),
//!   compiled by that crate a second time against shuttle-backed primitives ([`sync`])
//!   under its additive `shuttle` feature. Its file I/O is a `MemFs` behind a `FaultFs`
//!   ([`wal_disk`]); its clock is the execution's progress (see `regionkv_wal::shuttle::sync`).
//! * [`mvcc`] is the engine's own MVCC, compiled the same way by `regionkv-region`, and
//!   [`commit_slots`] its limit on the writers inside a region's write path.
//! * [`region`] restates the write/flush/read interplay of a region — updates lock, MVCC
//!   (the real [`mvcc`]), two stores' memstore snapshot swap, file commit — to check that a
//!   flush cuts at a read point and that readers never miss or tear a row across it.
//!
//! The engine names its primitives through `super::sync` for exactly this; [`sync`] is the
//! one shim both crates use.

pub mod region;
pub mod wal_disk;

/// The engine's commit slots over shuttle's primitives (regionkv-region's `shuttle` feature).
pub use regionkv_region::shuttle::commit_slots;
/// The engine's MVCC over shuttle's primitives (regionkv-region's `shuttle` feature).
pub use regionkv_region::shuttle::mvcc;
/// parking_lot-shaped primitives, threads and a clock over shuttle's.
pub use regionkv_wal::shuttle::sync;
/// The engine's WAL over shuttle's primitives (regionkv-wal's `shuttle` feature).
pub use regionkv_wal::shuttle::wal;
