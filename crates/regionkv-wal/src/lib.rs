//! Write-ahead log: framed, checksummed records with group commit and replay. Built under
//! the write-path issue; this crate reserves its place in the layering (it may depend on
//! `regionkv-cell` and `regionkv-fs` only).
