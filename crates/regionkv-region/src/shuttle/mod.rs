//! The model-checked modules of this crate compiled a second time against shuttle's
//! primitives (feature `shuttle`), for `regionkv-models`: the same source files, so the
//! models run the engine's own code. The engine's copies ([`crate::mvcc`]) are untouched:
//! the feature only adds this module, so Cargo's feature unification (a workspace build
//! enables it for every crate) changes nothing for the engine. Not built into this
//! crate's own unit-test binary, whose tests would run the copies outside shuttle.

/// The parking_lot-shaped primitives over shuttle's: the WAL crate's shim (its `shuttle`
/// feature), so that the workspace has one.
pub use regionkv_wal::shuttle::sync;

// `crate::mvcc`, over `sync` (the file names its primitives through `super::sync`); its
// documentation is mvcc.rs's own (an outer doc comment here would make rustdoc resolve that
// file's links from this module).
#[path = "../mvcc.rs"]
#[allow(missing_docs, clippy::duplicate_mod)] // the second compilation is the point
pub mod mvcc;

// `crate::commit_slots`, over `sync`, the same way.
#[path = "../commit_slots.rs"]
#[allow(missing_docs, clippy::duplicate_mod)]
pub mod commit_slots;
