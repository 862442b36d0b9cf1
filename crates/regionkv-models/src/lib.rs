//! Shuttle models of regionkv's concurrency protocols (issue 10). Each test in `tests/`
//! runs its threads under shuttle's schedulers, which explore thousands of interleavings
//! (random and PCT) and fail on any assertion, panic or deadlock.
//!
//! * [`mvcc`] is the engine's own file, `crates/regionkv-region/src/mvcc.rs`, compiled by
//!   path against the shuttle-backed primitives of [`sync`] (the engine names its
//!   primitives through `crate::sync` for exactly this).
//! * [`group_commit`] restates the WAL's group-commit protocol (`regionkv-wal`'s
//!   `Wal::append` / `await_position` / `lead`): the same state, positions and hand-offs,
//!   with the file I/O reduced to two vectors (what reached the OS, what is durable) and
//!   without the time-based gathering. The real module does I/O and reads clocks, which a
//!   model checker cannot drive.
//! * [`region`] restates the write/flush/read interplay of a region — updates lock, MVCC
//!   (the real [`mvcc`]), two stores' memstore snapshot swap, file commit — to check that a
//!   flush cuts at a read point and that readers never miss or tear a row across it.

pub mod group_commit;
#[allow(missing_docs)]
#[path = "../../regionkv-region/src/mvcc.rs"]
pub mod mvcc;
pub mod region;
pub mod sync;
