//! HBase's HFile v3, the file format of HBase's store files and bulk loads, read and written
//! as HBase 2.x does. regionkv's own storefiles have a format of their own
//! (`regionkv-storefile`); this crate is the interchange with real HBase clusters: reading
//! HFiles HBase wrote (for `regionkv hfile` and `completebulkload`) and writing files HBase
//! bulk-loads (`export-hfiles`). The format is
//! described byte by byte in `docs/hfile-v3.md`.
//!
//! Module map, in the order a reader meets the structures:
//!
//! - [`trailer`]: the fixed trailer at the end, with the protobuf fields ([`proto`]);
//! - [`block`]: block headers, CRC32C/CRC32 checksum chunks, the GZ and LZ4 codecs;
//! - [`index`]: root and non-root block indexes, multi-level lookup, the mid key;
//! - [`file_info`]: the FileInfo map; [`bloom`]: compound Bloom filters;
//! - [`key`]: the KeyValue key and HBase's key order; [`varint`]: Hadoop's vlong;
//! - [`reader`]: an open file, its data blocks and cells;
//! - [`writer`]: writing a file with HBase's block, index and FileInfo rules;
//! - [`check`]: the structural checker, walking a file as HBase's reader would.
//!
//! ```no_run
//! use std::sync::Arc;
//! use regionkv_fs::{Fs, RealFs};
//! use regionkv_hfile::HFileReader;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let fs = RealFs::new();
//! let file = fs.open_read(std::path::Path::new("part-0000.hfile"))?;
//! let reader = HFileReader::open(file)?;
//! let mut scanner = reader.scanner();
//! while let Some(cell) = scanner.next_cell()? {
//!     println!("{}", regionkv_hfile::key::key_to_string(&cell.key));
//! }
//! # Ok(())
//! # }
//! ```

#![forbid(unsafe_code)]

pub mod block;
pub mod bloom;
pub mod check;
mod error;
pub mod file_info;
pub mod index;
pub mod key;
pub mod proto;
pub mod reader;
pub mod trailer;
pub mod varint;
pub mod writer;

pub use block::{BlockType, ChecksumType};
pub use error::{Error, Result};
pub use file_info::FileInfo;
pub use reader::{HFileCell, HFileCellRef, HFileReader, HFileScanner};
pub use trailer::{Compression, Trailer};
pub use writer::{HFileSummary, HFileWriter, HFileWriterOptions};
