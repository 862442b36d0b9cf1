//! The FileInfo block (HBase's `HFileInfo`): `PBUF`, then a delimited `FileInfoProto`, a
//! map of byte keys to byte values in key order. Values are HBase `Bytes.toBytes`
//! encodings: int 4 bytes, long 8 bytes (big-endian), boolean 1 byte.

use std::collections::BTreeMap;
use std::path::Path;

use prost::Message;

use crate::error::{Result, corrupt};
use crate::proto::{BytesBytesPair, FileInfoProto};

/// The magic that starts a protobuf FileInfo.
pub const PBUF_MAGIC: &[u8; 4] = b"PBUF";

/// Keys HBase's reader and writer use.
pub mod keys {
    /// The last cell's key.
    pub const LASTKEY: &[u8] = b"hfile.LASTKEY";
    /// Average key length.
    pub const AVG_KEY_LEN: &[u8] = b"hfile.AVG_KEY_LEN";
    /// Average value length.
    pub const AVG_VALUE_LEN: &[u8] = b"hfile.AVG_VALUE_LEN";
    /// The file's creation time (ms).
    pub const CREATE_TIME_TS: &[u8] = b"hfile.CREATE_TIME_TS";
    /// Present iff cells carry a tags length.
    pub const MAX_TAGS_LEN: &[u8] = b"hfile.MAX_TAGS_LEN";
    /// Whether tags are dictionary-compressed.
    pub const TAGS_COMPRESSED: &[u8] = b"hfile.TAGS_COMPRESSED";
    /// 1 iff cells carry an MVCC vlong.
    pub const KEY_VALUE_VERSION: &[u8] = b"KEY_VALUE_VERSION";
    /// The largest MVCC timestamp.
    pub const MAX_MEMSTORE_TS_KEY: &[u8] = b"MAX_MEMSTORE_TS_KEY";
    /// The data block encoding's name, when not NONE.
    pub const DATA_BLOCK_ENCODING: &[u8] = b"DATA_BLOCK_ENCODING";
    /// Largest sequence id in the file.
    pub const MAX_SEQ_ID_KEY: &[u8] = b"MAX_SEQ_ID_KEY";
    /// Written by a major compaction (or a bulk load).
    pub const MAJOR_COMPACTION_KEY: &[u8] = b"MAJOR_COMPACTION_KEY";
    /// Kept out of minor compactions.
    pub const EXCLUDE_FROM_MINOR_COMPACTION: &[u8] = b"EXCLUDE_FROM_MINOR_COMPACTION";
    /// The time range of the cells (16 bytes: min, max).
    pub const TIMERANGE: &[u8] = b"TIMERANGE";
    /// The earliest Put timestamp.
    pub const EARLIEST_PUT_TS: &[u8] = b"EARLIEST_PUT_TS";
    /// When a bulk load wrote the file.
    pub const BULKLOAD_TIMESTAMP: &[u8] = b"BULKLOAD_TIMESTAMP";
    /// Which task of a bulk load wrote the file.
    pub const BULKLOAD_SOURCE_TASK: &[u8] = b"BULKLOAD_SOURCE_TASK";
    /// The general Bloom filter's type.
    pub const BLOOM_FILTER_TYPE: &[u8] = b"BLOOM_FILTER_TYPE";
    /// The Bloom's last key.
    pub const LAST_BLOOM_KEY: &[u8] = b"LAST_BLOOM_KEY";
    /// Delete-family markers in the file.
    pub const DELETE_FAMILY_COUNT: &[u8] = b"DELETE_FAMILY_COUNT";
}

/// The FileInfo map.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileInfo {
    /// Entries by key.
    pub entries: BTreeMap<Vec<u8>, Vec<u8>>,
}

impl FileInfo {
    /// Parses a FILE_INFO payload (of the block at `offset` of `path`).
    pub fn parse(path: &Path, offset: u64, payload: &[u8]) -> Result<FileInfo> {
        let body = payload.strip_prefix(PBUF_MAGIC.as_slice()).ok_or_else(|| {
            corrupt(
                path,
                offset,
                "FileInfo without the PBUF magic (a pre-protobuf FileInfo HBase 2 does not read)",
            )
        })?;
        let proto = FileInfoProto::decode_length_delimited(body)
            .map_err(|e| corrupt(path, offset, format!("FileInfo protobuf: {e}")))?;
        Ok(FileInfo {
            entries: proto
                .map_entry
                .into_iter()
                .map(|p| (p.first, p.second))
                .collect(),
        })
    }

    /// The payload: `PBUF` and the entries in key byte order.
    pub fn encode(&self) -> Vec<u8> {
        let proto = FileInfoProto {
            map_entry: self
                .entries
                .iter()
                .map(|(k, v)| BytesBytesPair {
                    first: k.clone(),
                    second: v.clone(),
                })
                .collect(),
        };
        let mut out = PBUF_MAGIC.to_vec();
        out.extend_from_slice(&proto.encode_length_delimited_to_vec());
        out
    }

    /// The value of `key`.
    pub fn get(&self, key: &[u8]) -> Option<&[u8]> {
        self.entries.get(key).map(Vec::as_slice)
    }

    /// `key`'s value as an int (`Bytes.toInt`), if it is 4 bytes.
    pub fn get_i32(&self, key: &[u8]) -> Option<i32> {
        let v: [u8; 4] = self.get(key)?.try_into().ok()?;
        Some(i32::from_be_bytes(v))
    }

    /// `key`'s value as a long (`Bytes.toLong`), if it is 8 bytes.
    pub fn get_i64(&self, key: &[u8]) -> Option<i64> {
        let v: [u8; 8] = self.get(key)?.try_into().ok()?;
        Some(i64::from_be_bytes(v))
    }

    /// `key`'s value as a boolean (`Bytes.toBoolean`: any non-zero byte), if it is 1 byte.
    pub fn get_bool(&self, key: &[u8]) -> Option<bool> {
        match self.get(key)? {
            [b] => Some(*b != 0),
            _ => None,
        }
    }

    /// Sets `key` to `value`.
    pub fn insert(&mut self, key: &[u8], value: impl Into<Vec<u8>>) {
        self.entries.insert(key.to_vec(), value.into());
    }

    /// Whether cells carry a tags length (the key's presence, whatever its value).
    pub fn includes_tags(&self) -> bool {
        self.entries.contains_key(keys::MAX_TAGS_LEN)
    }

    /// Whether cells carry an MVCC vlong (`KEY_VALUE_VERSION` = 1).
    pub fn includes_mvcc(&self) -> bool {
        self.get_i32(keys::KEY_VALUE_VERSION) == Some(1)
    }
}
