//! The protobuf messages of an HFile (HBase's `HFile.proto` and `HBase.proto`), declared
//! with prost's derive (no protoc): the trailer and the FileInfo map. Field numbers and
//! types are HBase's; every trailer field is proto2 `optional`, and HBase writes fields
//! 1–12 in number order, which prost's encoder also does.

/// `FileTrailerProto`.
#[derive(Clone, PartialEq, Eq, prost::Message)]
pub struct FileTrailerProto {
    /// Offset of the FILE_INFO block.
    #[prost(uint64, optional, tag = "1")]
    pub file_info_offset: Option<u64>,
    /// Offset of the load-on-open section (the data index root block).
    #[prost(uint64, optional, tag = "2")]
    pub load_on_open_data_offset: Option<u64>,
    /// Uncompressed bytes of every data index block (root, intermediate, leaf payloads).
    #[prost(uint64, optional, tag = "3")]
    pub uncompressed_data_index_size: Option<u64>,
    /// HBase's running total of uncompressed block bytes (see hfile-format notes §3).
    #[prost(uint64, optional, tag = "4")]
    pub total_uncompressed_bytes: Option<u64>,
    /// Entries of the data index root.
    #[prost(uint32, optional, tag = "5")]
    pub data_index_count: Option<u32>,
    /// META blocks (entries of the meta index).
    #[prost(uint32, optional, tag = "6")]
    pub meta_index_count: Option<u32>,
    /// Cells in the file.
    #[prost(uint64, optional, tag = "7")]
    pub entry_count: Option<u64>,
    /// Levels of the data index (1: root only).
    #[prost(uint32, optional, tag = "8")]
    pub num_data_index_levels: Option<u32>,
    /// Offset of the first data block; `u64::MAX` (Java's -1) when there is none.
    #[prost(uint64, optional, tag = "9")]
    pub first_data_block_offset: Option<u64>,
    /// Offset of the last data block; `u64::MAX` (Java's -1) when there is none.
    #[prost(uint64, optional, tag = "10")]
    pub last_data_block_offset: Option<u64>,
    /// The comparator's Java class name.
    #[prost(string, optional, tag = "11")]
    pub comparator_class_name: Option<String>,
    /// Ordinal of HBase's `Compression.Algorithm`.
    #[prost(uint32, optional, tag = "12")]
    pub compression_codec: Option<u32>,
    /// A wrapped encryption key (encrypted files only).
    #[prost(bytes = "vec", optional, tag = "13")]
    pub encryption_key: Option<Vec<u8>>,
}

/// `BytesBytesPair`: one FileInfo entry.
#[derive(Clone, PartialEq, Eq, prost::Message)]
pub struct BytesBytesPair {
    /// The key.
    #[prost(bytes = "vec", required, tag = "1")]
    pub first: Vec<u8>,
    /// The value.
    #[prost(bytes = "vec", required, tag = "2")]
    pub second: Vec<u8>,
}

/// `FileInfoProto`: the FileInfo map, entries in key byte order.
#[derive(Clone, PartialEq, Eq, prost::Message)]
pub struct FileInfoProto {
    /// The entries.
    #[prost(message, repeated, tag = "1")]
    pub map_entry: Vec<BytesBytesPair>,
}
