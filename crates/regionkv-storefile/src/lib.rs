//! StoreFile: the immutable, sorted, HFile-like file that flushes and compactions write and
//! every read consults. The format is specified in `docs/storefile-format.md`; the module
//! tree mirrors it:
//!
//! - [`format`]: block framing (header, checksum), the trailer, block types, varints;
//! - [`block`]: the entry layout shared by data and index blocks (restart points, PREFIX);
//! - [`index`]: the multi-level block index (and the midkey for splits);
//! - [`bloom`]: ROW / ROWCOL bloom filters with persisted hashing;
//! - [`file_info`]: the metadata map (key range, time range, counts, max sequence id);
//! - [`writer`], [`reader`], [`scanner`]: writing, opening, and cursoring a file;
//! - [`cache`]: the shared LRU block cache with HBase's priorities.
//!
//! ```
//! use regionkv_cell::{Cell, KeyValueScanner};
//! use regionkv_fs::{Fs, MemFs};
//! use regionkv_storefile::{StoreFileReader, StoreFileScanner, StoreFileWriter};
//! use std::{path::Path, sync::Arc};
//!
//! let fs = MemFs::new();
//! let path = Path::new("/sf");
//! let mut w = StoreFileWriter::new(fs.create_new(path)?, Default::default())?;
//! for i in 0..100u32 {
//!     let cell = Cell::put(format!("row{i:03}").as_bytes(), b"f", b"q", 1, b"value")?;
//!     w.append(cell.as_cell_ref())?;
//! }
//! w.finish()?;
//! let reader = Arc::new(StoreFileReader::open(&fs, path, 1, None, Default::default())?);
//! let mut scanner = StoreFileScanner::new(reader);
//! scanner.seek_to_first()?;
//! assert_eq!(scanner.peek().map(|c| c.row().to_vec()), Some(b"row000".to_vec()));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod block;
pub mod bloom;
pub mod cache;
mod error;
pub mod file_info;
pub mod format;
pub mod index;
pub mod reader;
pub mod scanner;
pub mod writer;

pub use bloom::BloomType;
pub use error::{Error, Result};
pub use file_info::{FileInfo, StoreFileIdentity};
pub use format::{Compression, DataBlockEncoding};
pub use reader::{DataPart, Half, PartAt, ReaderOptions, StoreFileBlockCache, StoreFileReader};
pub use scanner::StoreFileScanner;
pub use writer::{StoreFileWriter, StoreFileWriterOptions, WrittenFile};
