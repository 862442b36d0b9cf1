//! Dev-only test kit for regionkv (never a normal dependency): helpers shared by the
//! workspace's tests. Depends on `regionkv-cell` and `regionkv-fs` only, so unit tests of
//! any crate may use it without a dependency cycle.

#![forbid(unsafe_code)]

pub mod model;
