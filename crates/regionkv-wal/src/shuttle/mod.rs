//! The WAL's group commit compiled a second time against shuttle's primitives (feature
//! `shuttle`), for `regionkv-models`: the same source file, so the models run the engine's
//! own code. The engine's copy ([`crate::Wal`]) is untouched: the feature only adds this
//! module, so Cargo's feature unification (a workspace build enables it for every crate)
//! changes nothing for the engine. Not built into this crate's own unit-test binary, whose
//! tests would run the copy outside shuttle.
//!
//! [`sync`] is the workspace's one shuttle shim: `regionkv_region::shuttle` compiles its MVCC
//! against it too.

pub mod sync;

// `crate::Wal` and its group commit over `sync` (wal.rs names its locks, thread and clock
// through `super::sync`); its documentation is wal.rs's own (an outer doc comment here would
// make rustdoc resolve that file's links from this module). Its file I/O still goes
// through `regionkv_fs::Fs`: a model gives it a `MemFs` (whose internal lock is held
// briefly, never across a shuttle yield) or a `FaultFs` over one.
#[path = "../wal.rs"]
#[allow(missing_docs, clippy::duplicate_mod)] // the second compilation is the point
#[allow(rustdoc::private_intra_doc_links)] // wal.rs links to this crate's private modules
pub mod wal;
