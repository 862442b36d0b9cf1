//! The export format, version 1: a directory of `part-NNNNN` data files and one
//! `export.meta` manifest, written by [`crate::export`] and read by [`crate::import`]. The
//! byte layout is specified in docs/export-format.md; the module tree follows it:
//! [`part`] (data files: header, checksummed blocks of cells, end block) and [`manifest`]
//! (the manifest: framing and JSON body).
//!
//! The format is regionkv's own, not HBase's SequenceFile of `Result`s: it must carry every
//! version, timestamp, delete marker and tag needed to reproduce a table raw, be readable and
//! writable as a stream with memory bounded by one block, and let a reader say which file
//! and byte a damage is at. The directory holds one series of parts per family, each in key
//! order, because that is the shape [`regionkv::Admin::bulk_load`] consumes (one sorted
//! stream per family), so an import never sorts.
//!
//! Export files are user files (they leave the data directory, are copied, mailed,
//! archived), so they are read and written with `std::fs`, not the Db's `Fs` seam.
//!
//! Every code here is part of the format: do not change a magic, a field width or a cell
//! type code without a new format version (the unit tests pin them).

pub mod manifest;
pub mod part;

/// The format version this code writes and the only one it reads.
pub const FORMAT_VERSION: u32 = 1;

/// The manifest's file name inside an export directory.
pub const MANIFEST_NAME: &str = "export.meta";

/// The name of data file number `n`.
pub fn part_name(n: u32) -> String {
    format!("part-{n:05}")
}
