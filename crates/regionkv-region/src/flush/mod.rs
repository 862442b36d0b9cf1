//! Flushing: which stores a flush writes (the policy, a pure function of store sizes) and
//! the region-side mechanics live in `region.rs`.

pub mod policy;
