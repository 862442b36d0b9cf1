//! Table and column family descriptors (HBase's `TableDescriptor` and
//! `ColumnFamilyDescriptor`) with what a program building or showing one needs besides:
//! HBase's defaults ([`DEFAULT_MAX_FILESIZE`], [`DEFAULT_MEMSTORE_FLUSH_SIZE`], the TTL
//! [`FOREVER`]), the types of the storefile options a family sets ([`BloomType`],
//! [`Compression`], [`DataBlockEncoding`]) and the BLOCKSIZE range, and the descriptors'
//! error ([`DescriptorError`]). The descriptors themselves are at the crate root too.
//!
//! ```
//! use regionkv::descriptor::{BloomType, ColumnFamilyDescriptor, FOREVER, TableDescriptor};
//! use regionkv::descriptor::{DEFAULT_MAX_FILESIZE, MAX_BLOCK_SIZE};
//!
//! let mut cf = ColumnFamilyDescriptor::new(b"cf")?;
//! assert_eq!((cf.ttl_seconds, cf.bloom_type), (FOREVER, BloomType::Row));
//! cf.bloom_type = BloomType::RowCol;
//! cf.block_size = MAX_BLOCK_SIZE;
//! let desc = TableDescriptor::new("t", vec![cf])?;
//! assert_eq!(desc.max_file_size, DEFAULT_MAX_FILESIZE);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub use regionkv_region::DescriptorError;
pub use regionkv_region::descriptor::{
    ColumnFamilyDescriptor, DEFAULT_MAX_FILESIZE, DEFAULT_MEMSTORE_FLUSH_SIZE, FOREVER,
    KeepDeletedCells, TableDescriptor,
};
pub use regionkv_storefile::writer::{MAX_BLOCK_SIZE, MIN_BLOCK_SIZE};
pub use regionkv_storefile::{BloomType, Compression, DataBlockEncoding};
