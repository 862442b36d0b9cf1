//! MemStore of one column family: skiplist segments (active and snapshot) whose cell bytes
//! live in an MSLAB arena. Built under the write-path issue; this crate only reserves its
//! place in the layering (it may depend on `regionkv-cell` and nothing above it).
