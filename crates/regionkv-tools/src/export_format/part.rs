//! Export data files (`part-NNNNN`): a 16-byte header, blocks of cells each with its own
//! CRC32C, and an end block (docs/export-format.md, "Data files"). [`PartWriter`] streams
//! cells in, holding one block; [`PartReader`] streams them out, holding one block, and
//! reports any damage as [`Error::Corrupt`] with the file and the byte offset of the
//! damaged structure.
//!
//! Invariants a reader checks (a writer upholds them): the header's magic, version and
//! family index; every block's length within [`MAX_BLOCK_PAYLOAD`], its CRC32C, and its
//! cell records filling the payload exactly; cells of the file in strictly increasing key
//! order (row, qualifier ascending; timestamp, type code descending), as the scan that
//! wrote them returned them; an end block, then nothing.

#![deny(clippy::indexing_slicing)]

use std::cmp::Ordering;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use regionkv::{Cell, CellType};

use crate::error::{Error, Result};

/// The first 8 bytes of every data file.
pub const PART_MAGIC: &[u8; 8] = b"RKVEXPRT";
/// Bytes of the file header: magic, format version (u32), family index (u32).
pub const HEADER_LEN: usize = 16;
/// Bytes before a block's payload: payload length (u32), cell count (u32).
pub const BLOCK_HEADER_LEN: usize = 8;
/// Bytes of a cell record before its variable parts: type (u8), row length (u16),
/// qualifier length (u32), value length (u32), tags length (u16), timestamp (i64).
pub const CELL_HEADER_LEN: usize = 21;
/// The payload size at which a writer closes a block (one cell may take it past).
pub const TARGET_BLOCK_PAYLOAD: usize = 256 * 1024;
/// The largest payload a reader accepts: what bounds a reader's memory against a damaged
/// length. A block holds at most [`TARGET_BLOCK_PAYLOAD`] plus one cell, and one cell is at
/// most a 32767-byte row, a qualifier and value each below the engine's key and value
/// limits, and 64 KiB of tags; 256 MiB is far above any cell the engine accepts.
pub const MAX_BLOCK_PAYLOAD: u32 = 256 * 1024 * 1024;

/// What a finished data file holds (recorded in the manifest).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartSummary {
    /// File name inside the export directory.
    pub name: String,
    /// Index of its family in the manifest's family list.
    pub family: u32,
    /// Cells in it.
    pub cells: u64,
    /// Its size in bytes.
    pub bytes: u64,
    /// CRC32C of the whole file.
    pub crc32c: u32,
}

/// Writes one data file. Memory: one block (about [`TARGET_BLOCK_PAYLOAD`] bytes plus one
/// cell), plus the file buffer.
#[derive(Debug)]
pub struct PartWriter {
    path: PathBuf,
    name: String,
    family: u32,
    out: BufWriter<File>,
    block: Vec<u8>,
    block_cells: u32,
    written: u64,
    crc: u32,
    cells: u64,
}

impl PartWriter {
    /// Creates `dir/name` (it must not exist) for family index `family`.
    pub fn create(dir: &Path, name: &str, family: u32) -> Result<Self> {
        let path = dir.join(name);
        let file = File::options()
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(|e| Error::file(&path, e))?;
        let mut w = Self {
            path,
            name: name.to_string(),
            family,
            out: BufWriter::with_capacity(1 << 20, file),
            block: Vec::with_capacity(TARGET_BLOCK_PAYLOAD + 4096),
            block_cells: 0,
            written: 0,
            crc: 0,
            cells: 0,
        };
        let mut header = Vec::with_capacity(HEADER_LEN);
        header.extend_from_slice(PART_MAGIC);
        header.extend_from_slice(&super::FORMAT_VERSION.to_be_bytes());
        header.extend_from_slice(&family.to_be_bytes());
        w.write(&header)?;
        Ok(w)
    }

    /// Bytes this file will have once the open block is written (a writer rolls to a new
    /// file past a size).
    pub fn size(&self) -> u64 {
        self.written + self.block.len() as u64
    }

    /// Appends `cell` (of this file's family, after every cell appended before).
    pub fn append(&mut self, cell: &Cell) -> Result<()> {
        encode_cell(&mut self.block, cell).map_err(|reason| Error::Corrupt {
            path: self.path.clone(),
            offset: self.size(),
            reason,
        })?;
        self.block_cells += 1;
        self.cells += 1;
        if self.block.len() >= TARGET_BLOCK_PAYLOAD {
            self.flush_block()?;
        }
        Ok(())
    }

    /// Writes the open block, if it holds a cell.
    fn flush_block(&mut self) -> Result<()> {
        if self.block_cells == 0 {
            return Ok(());
        }
        let block = std::mem::take(&mut self.block);
        let result = self.write_block(&block, self.block_cells);
        self.block = block;
        self.block.clear();
        self.block_cells = 0;
        result
    }

    fn write_block(&mut self, payload: &[u8], cells: u32) -> Result<()> {
        let len = u32::try_from(payload.len())
            .ok()
            .filter(|l| *l <= MAX_BLOCK_PAYLOAD)
            .ok_or_else(|| Error::Corrupt {
                path: self.path.clone(),
                offset: self.written,
                reason: format!(
                    "a block of {} bytes is over the format's limit",
                    payload.len()
                ),
            })?;
        let mut head = Vec::with_capacity(BLOCK_HEADER_LEN);
        head.extend_from_slice(&len.to_be_bytes());
        head.extend_from_slice(&cells.to_be_bytes());
        let crc = crc32c::crc32c_append(crc32c::crc32c(&head), payload);
        self.write(&head)?;
        self.write(payload)?;
        self.write(&crc.to_be_bytes())
    }

    fn write(&mut self, bytes: &[u8]) -> Result<()> {
        self.out
            .write_all(bytes)
            .map_err(|e| Error::file(&self.path, e))?;
        self.crc = crc32c::crc32c_append(self.crc, bytes);
        self.written += bytes.len() as u64;
        Ok(())
    }

    /// Writes the last block and the end block, and makes the file durable.
    pub fn finish(mut self) -> Result<PartSummary> {
        self.flush_block()?;
        // The end block: an empty payload, zero cells, and its checksum.
        self.write_block(&[], 0)?;
        self.out.flush().map_err(|e| Error::file(&self.path, e))?;
        self.out
            .get_ref()
            .sync_all()
            .map_err(|e| Error::file(&self.path, e))?;
        Ok(PartSummary {
            name: self.name,
            family: self.family,
            cells: self.cells,
            bytes: self.written,
            crc32c: self.crc,
        })
    }
}

/// Appends `cell`'s record to `buf`. Fails only for a cell the format cannot hold (which
/// the engine never makes: its limits are below the fields' widths).
fn encode_cell(buf: &mut Vec<u8>, cell: &Cell) -> std::result::Result<(), String> {
    let too_long = |what: &str, n: usize| format!("a cell's {what} of {n} bytes is too long");
    let row = u16::try_from(cell.row().len()).map_err(|_| too_long("row", cell.row().len()))?;
    let qualifier = u32::try_from(cell.qualifier().len())
        .map_err(|_| too_long("qualifier", cell.qualifier().len()))?;
    let value =
        u32::try_from(cell.value().len()).map_err(|_| too_long("value", cell.value().len()))?;
    let tags = u16::try_from(cell.tags().len()).map_err(|_| too_long("tags", cell.tags().len()))?;
    buf.push(cell.cell_type().code());
    buf.extend_from_slice(&row.to_be_bytes());
    buf.extend_from_slice(&qualifier.to_be_bytes());
    buf.extend_from_slice(&value.to_be_bytes());
    buf.extend_from_slice(&tags.to_be_bytes());
    buf.extend_from_slice(&cell.timestamp().to_be_bytes());
    buf.extend_from_slice(cell.row());
    buf.extend_from_slice(cell.qualifier());
    buf.extend_from_slice(cell.value());
    buf.extend_from_slice(cell.tags());
    Ok(())
}

/// Reads one data file as a stream of cells of `family`. Memory: one block.
#[derive(Debug)]
pub struct PartReader {
    path: PathBuf,
    family: Vec<u8>,
    input: BufReader<File>,
    /// Bytes consumed from the file so far.
    offset: u64,
    /// CRC32C of every byte consumed.
    crc: u32,
    block: Vec<u8>,
    /// File offset of the open block's payload.
    block_offset: u64,
    pos: usize,
    cells_left: u32,
    ended: bool,
    /// The previous cell's key (row, qualifier, timestamp, type code), kept in reused
    /// buffers for the order check: cloning each cell would double the allocations.
    previous: Option<(Vec<u8>, Vec<u8>, i64, u8)>,
    cells: u64,
}

impl PartReader {
    /// Opens `path`, a data file of family `family` (index `family_index`).
    pub fn open(path: &Path, family: &[u8], family_index: u32) -> Result<Self> {
        let file = File::open(path).map_err(|e| Error::file(path, e))?;
        let mut r = Self {
            path: path.to_path_buf(),
            family: family.to_vec(),
            input: BufReader::with_capacity(1 << 20, file),
            offset: 0,
            crc: 0,
            block: Vec::new(),
            block_offset: 0,
            pos: 0,
            cells_left: 0,
            ended: false,
            previous: None,
            cells: 0,
        };
        let mut header = [0u8; HEADER_LEN];
        r.read_exact(&mut header, "the file header")?;
        if header.get(..8) != Some(PART_MAGIC.as_slice()) {
            return Err(r.corrupt(0, "not an export data file (bad magic)".into()));
        }
        let version = be_u32(header.get(8..12).unwrap_or_default());
        if version != super::FORMAT_VERSION {
            return Err(r.corrupt(
                8,
                format!(
                    "format version {version}, this regionkv reads version {}",
                    super::FORMAT_VERSION
                ),
            ));
        }
        let index = be_u32(header.get(12..16).unwrap_or_default());
        if index != family_index {
            return Err(r.corrupt(
                12,
                format!("family index {index}, the manifest says {family_index}"),
            ));
        }
        Ok(r)
    }

    /// Cells read so far.
    pub fn cells(&self) -> u64 {
        self.cells
    }

    /// Bytes read so far.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// CRC32C of every byte read so far (the whole file once [`Self::next_cell`] has
    /// returned `None`).
    pub fn crc32c(&self) -> u32 {
        self.crc
    }

    fn corrupt(&self, offset: u64, reason: String) -> Error {
        Error::Corrupt {
            path: self.path.clone(),
            offset,
            reason,
        }
    }

    fn read_exact(&mut self, buf: &mut [u8], what: &str) -> Result<()> {
        let at = self.offset;
        match self.input.read_exact(buf) {
            Ok(()) => {
                self.offset += buf.len() as u64;
                self.crc = crc32c::crc32c_append(self.crc, buf);
                Ok(())
            }
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
                Err(self.corrupt(at, format!("truncated: the file ends inside {what}")))
            }
            Err(e) => Err(Error::file(&self.path, e)),
        }
    }

    /// Loads the next block; false at the end block.
    fn next_block(&mut self) -> Result<bool> {
        let at = self.offset;
        let mut head = [0u8; BLOCK_HEADER_LEN];
        self.read_exact(&mut head, "a block header (no end block)")?;
        let len = be_u32(head.get(..4).unwrap_or_default());
        let count = be_u32(head.get(4..).unwrap_or_default());
        if len > MAX_BLOCK_PAYLOAD {
            return Err(self.corrupt(
                at,
                format!("a block length of {len} bytes (the limit is {MAX_BLOCK_PAYLOAD})"),
            ));
        }
        let mut block = std::mem::take(&mut self.block);
        block.clear();
        block.resize(len as usize, 0);
        let read = self.read_exact(&mut block, "a block");
        self.block = block;
        read?;
        let mut stored = [0u8; 4];
        self.read_exact(&mut stored, "a block checksum")?;
        let computed = crc32c::crc32c_append(crc32c::crc32c(&head), &self.block);
        let stored = u32::from_be_bytes(stored);
        if stored != computed {
            return Err(self.corrupt(
                at,
                format!(
                    "block checksum mismatch: stored {stored:#010x}, computed {computed:#010x}"
                ),
            ));
        }
        if (len == 0) != (count == 0) {
            return Err(self.corrupt(at, format!("a block of {len} bytes with {count} cells")));
        }
        if len == 0 {
            let mut extra = [0u8; 1];
            match self.input.read(&mut extra) {
                Ok(0) => {}
                Ok(_) => {
                    return Err(self.corrupt(self.offset, "bytes after the end block".into()));
                }
                Err(e) => return Err(Error::file(&self.path, e)),
            }
            return Ok(false);
        }
        self.block_offset = at + BLOCK_HEADER_LEN as u64;
        self.pos = 0;
        self.cells_left = count;
        Ok(true)
    }

    /// The next cell, or `None` after the end block.
    pub fn next_cell(&mut self) -> Result<Option<Cell>> {
        if self.ended {
            return Ok(None);
        }
        while self.cells_left == 0 {
            if self.pos != self.block.len() {
                return Err(self.corrupt(
                    self.block_offset + self.pos as u64,
                    "bytes after a block's last cell".into(),
                ));
            }
            if !self.next_block()? {
                self.ended = true;
                return Ok(None);
            }
        }
        let at = self.block_offset + self.pos as u64;
        let cell = decode_cell(self.block.get(self.pos..).unwrap_or_default(), &self.family)
            .map_err(|reason| self.corrupt(at, reason))?;
        self.pos += cell.1;
        self.cells_left -= 1;
        let cell = cell.0;
        let code = cell.cell_type().code();
        match &mut self.previous {
            Some((row, qualifier, ts, kind)) => {
                // Key order within a family: row and qualifier ascending, timestamp and
                // type code descending (HBase's, without the sequence id an export drops).
                let order = (row.as_slice(), qualifier.as_slice())
                    .cmp(&(cell.row(), cell.qualifier()))
                    .then_with(|| cell.timestamp().cmp(ts))
                    .then_with(|| code.cmp(kind));
                if order != Ordering::Less {
                    return Err(self.corrupt(
                        at,
                        "a cell out of key order (the file's cells must be sorted)".into(),
                    ));
                }
                row.clear();
                row.extend_from_slice(cell.row());
                qualifier.clear();
                qualifier.extend_from_slice(cell.qualifier());
                *ts = cell.timestamp();
                *kind = code;
            }
            None => {
                self.previous = Some((
                    cell.row().to_vec(),
                    cell.qualifier().to_vec(),
                    cell.timestamp(),
                    code,
                ));
            }
        }
        self.cells += 1;
        Ok(Some(cell))
    }
}

fn be_u32(b: &[u8]) -> u32 {
    let mut a = [0u8; 4];
    a.copy_from_slice(b.get(..4).unwrap_or(&[0; 4]));
    u32::from_be_bytes(a)
}

/// Decodes the cell record at the start of `buf`: the cell and the record's length.
fn decode_cell(buf: &[u8], family: &[u8]) -> std::result::Result<(Cell, usize), String> {
    let head = buf
        .get(..CELL_HEADER_LEN)
        .ok_or("a cell record cut short by its block's end")?;
    let code = head.first().copied().unwrap_or_default();
    let cell_type = match CellType::from_code(code) {
        Ok(
            t @ (CellType::Put
            | CellType::Delete
            | CellType::DeleteColumn
            | CellType::DeleteFamily
            | CellType::DeleteFamilyVersion),
        ) => t,
        _ => return Err(format!("unknown cell type code {code}")),
    };
    let field = |r: std::ops::Range<usize>| head.get(r).unwrap_or_default();
    let row_len = u16::from_be_bytes(field(1..3).try_into().unwrap_or_default()) as usize;
    let qualifier_len = be_u32(field(3..7)) as usize;
    let value_len = be_u32(field(7..11)) as usize;
    let tags_len = u16::from_be_bytes(field(11..13).try_into().unwrap_or_default()) as usize;
    let timestamp = i64::from_be_bytes(field(13..21).try_into().unwrap_or_default());
    let total = CELL_HEADER_LEN
        .checked_add(row_len)
        .and_then(|n| n.checked_add(qualifier_len))
        .and_then(|n| n.checked_add(value_len))
        .and_then(|n| n.checked_add(tags_len))
        .filter(|n| *n <= buf.len())
        .ok_or("a cell record longer than what is left of its block")?;
    let mut at = CELL_HEADER_LEN;
    let mut take = |n: usize| {
        let part = buf.get(at..at + n).unwrap_or_default();
        at += n;
        part
    };
    let row = take(row_len);
    let qualifier = take(qualifier_len);
    let value = take(value_len);
    let tags = take(tags_len);
    if row.is_empty() {
        return Err("a cell with an empty row".into());
    }
    if timestamp < 0 {
        return Err(format!("a cell with the negative timestamp {timestamp}"));
    }
    let cell = Cell::new(row, family, qualifier, timestamp, cell_type, value)
        .map_err(|e| format!("a cell the engine refuses: {e}"))?;
    let cell = if tags.is_empty() {
        cell
    } else {
        cell.with_tags(tags.to_vec())
            .map_err(|e| format!("a cell with malformed tags: {e}"))?
    };
    Ok((cell, total))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]

    use super::*;

    fn cells() -> Vec<Cell> {
        vec![
            Cell::put(b"r1", b"f", b"a", 5, b"v5").unwrap(),
            Cell::put(b"r1", b"f", b"a", 3, b"").unwrap(),
            Cell::delete_marker(b"r1", b"f", b"b", 9, CellType::DeleteColumn).unwrap(),
            Cell::delete_marker(b"r2", b"f", b"", 7, CellType::DeleteFamily).unwrap(),
            Cell::delete_marker(b"r2", b"f", b"", 7, CellType::DeleteFamilyVersion).unwrap(),
            Cell::delete_marker(b"r2", b"f", b"c", 7, CellType::Delete).unwrap(),
            Cell::put(b"r2", b"f", b"c", 7, b"x")
                .unwrap()
                .with_tags(regionkv::cell::tag::with_ttl(&[], Some(1000)))
                .unwrap(),
        ]
    }

    fn write(dir: &Path, cells: &[Cell]) -> PartSummary {
        let mut w = PartWriter::create(dir, "part-00000", 2).unwrap();
        for c in cells {
            w.append(c).unwrap();
        }
        w.finish().unwrap()
    }

    fn read_all(path: &Path) -> Result<Vec<Cell>> {
        let mut r = PartReader::open(path, b"f", 2)?;
        let mut out = Vec::new();
        while let Some(c) = r.next_cell()? {
            out.push(c);
        }
        Ok(out)
    }

    #[test]
    fn format_constants_are_pinned() {
        assert_eq!(PART_MAGIC, b"RKVEXPRT");
        assert_eq!(super::super::FORMAT_VERSION, 1);
        assert_eq!(
            [4u8, 8, 10, 12, 14],
            [
                CellType::Put.code(),
                CellType::Delete.code(),
                CellType::DeleteFamilyVersion.code(),
                CellType::DeleteColumn.code(),
                CellType::DeleteFamily.code()
            ]
        );
    }

    #[test]
    fn every_cell_type_and_tags_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let summary = write(dir.path(), &cells());
        let bytes = std::fs::read(dir.path().join("part-00000")).unwrap();
        assert_eq!(summary.bytes, bytes.len() as u64);
        assert_eq!(summary.crc32c, crc32c::crc32c(&bytes));
        assert_eq!(summary.cells, 7);
        let back = read_all(&dir.path().join("part-00000")).unwrap();
        assert_eq!(back, cells());
        assert_eq!(back[6].ttl(), Some(1000));
    }

    #[test]
    fn the_documented_layout_of_one_cell() {
        let dir = tempfile::tempdir().unwrap();
        write(
            dir.path(),
            &[Cell::put(b"r", b"f", b"q", 258, b"vv").unwrap()],
        );
        let b = std::fs::read(dir.path().join("part-00000")).unwrap();
        // header, block header (len 25, 1 cell), the record, crc, end block (8 + 4 bytes).
        assert_eq!(&b[..16], b"RKVEXPRT\0\0\0\x01\0\0\0\x02");
        assert_eq!(&b[16..24], &[0, 0, 0, 25, 0, 0, 0, 1]);
        assert_eq!(
            &b[24..49],
            b"\x04\0\x01\0\0\0\x01\0\0\0\x02\0\0\0\0\0\0\0\0\x01\x02rqvv"
        );
        assert_eq!(b.len(), 16 + 8 + 25 + 4 + 8 + 4);
        assert_eq!(&b[53..61], &[0; 8]);
    }

    #[test]
    fn many_blocks_stay_bounded_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let value = vec![7u8; 1000];
        let cells: Vec<Cell> = (0..2000)
            .map(|i| Cell::put(format!("r{i:06}").as_bytes(), b"f", b"q", 1, &value).unwrap())
            .collect();
        let s = write(dir.path(), &cells);
        // ~2 MB of cells in blocks of TARGET_BLOCK_PAYLOAD: several blocks.
        assert!(s.bytes > 4 * TARGET_BLOCK_PAYLOAD as u64);
        assert_eq!(read_all(&dir.path().join("part-00000")).unwrap(), cells);
    }

    fn damaged(edit: impl Fn(&mut Vec<u8>)) -> Error {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), &cells());
        let path = dir.path().join("part-00000");
        let mut b = std::fs::read(&path).unwrap();
        edit(&mut b);
        std::fs::write(&path, &b).unwrap();
        read_all(&path).unwrap_err()
    }

    fn offset_of(e: &Error) -> u64 {
        match e {
            Error::Corrupt { offset, path, .. } => {
                assert!(path.ends_with("part-00000"), "{e}");
                *offset
            }
            other => panic!("not a corruption: {other}"),
        }
    }

    #[test]
    fn damage_is_reported_with_its_offset() {
        assert_eq!(offset_of(&damaged(|b| b[0] = b'X')), 0);
        assert_eq!(offset_of(&damaged(|b| b[11] = 9)), 8);
        assert_eq!(offset_of(&damaged(|b| b[15] = 3)), 12);
        // A flipped byte in the first block's payload: its header offset.
        let e = damaged(|b| b[30] ^= 1);
        assert_eq!(offset_of(&e), 16);
        assert!(e.to_string().contains("checksum mismatch"), "{e}");
        // A huge length: refused before any allocation.
        let e = damaged(|b| b[16..20].copy_from_slice(&u32::MAX.to_be_bytes()));
        assert!(e.to_string().contains("block length"), "{e}");
        // Truncated: no end block.
        let e = damaged(|b| b.truncate(b.len() - 12));
        assert!(e.to_string().contains("truncated"), "{e}");
        let e = damaged(|b| b.truncate(b.len() - 3));
        assert!(e.to_string().contains("truncated"), "{e}");
        let e = damaged(|b| b.push(0));
        assert!(e.to_string().contains("after the end block"), "{e}");
    }

    #[test]
    fn out_of_order_cells_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let mut c = cells();
        c.swap(0, 1);
        write(dir.path(), &c);
        let e = read_all(&dir.path().join("part-00000")).unwrap_err();
        assert!(e.to_string().contains("out of key order"), "{e}");
        // The second record: payload at 24, after a first record of 21 + 2 + 1 bytes.
        assert_eq!(offset_of(&e), 48);
    }
}
