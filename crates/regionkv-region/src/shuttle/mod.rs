//! The model-checked modules of this crate compiled a second time against shuttle's
//! primitives (feature `shuttle`), for `regionkv-models`: the same source files, so the
//! models run the engine's own code. The engine's copies ([`crate::mvcc`]) are untouched:
//! the feature only adds this module, so Cargo's feature unification (a workspace build
//! enables it for every crate) changes nothing for the engine. Not built into this
//! crate's own unit-test binary, whose tests would run the copies outside shuttle.

pub mod sync;

/// [`crate::mvcc`], over [`sync`] (the file names its primitives through `super::sync`).
#[path = "../mvcc.rs"]
#[allow(missing_docs, clippy::duplicate_mod)] // the second compilation is the point
pub mod mvcc;
