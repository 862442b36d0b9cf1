//! Sorting cells that do not fit in memory, for the bulk modes of ImportTsv (`--no-wal` and
//! `importtsv.bulk.output`): Hadoop's map-side sort in small. Cells are gathered in memory;
//! when they fill half the budget (`mapreduce.task.io.sort.mb`) a background thread sorts
//! them and spills them as a run file per family while the next half fills (Hadoop's spill
//! thread, which starts at `mapreduce.map.sort.spill.percent` of its buffer), so at most
//! the budget is held and reading never waits for a sort unless the spill falls behind.
//! At the end the cells still in memory are sorted and merged with the runs without
//! touching the disk, each family by a merge thread that also drops duplicates and hands
//! sorted batches to the reader ([`ReadAhead`]).
//!
//! Gathered cells live as Hadoop's `kvbuffer` holds them: encoded back to back in one
//! buffer per family, in the run file's record layout, with an index of fixed-size entries
//! beside it; sorting moves index entries, and spilling writes the records in index order.
//! A cell is one copy into the buffer, not an allocation: profiled, allocating and freeing
//! each cell (on two threads) and chasing a pointer per comparison cost the spill thread
//! more than half its time. The two halves' buffers alternate, so after the first spill
//! the buffers are reused rather than faulted in again.
//!
//! Order and duplicates: every cell carries its input position as its sequence id, so two
//! cells with the same row, column, timestamp and type sort later-input first; the merge
//! keeps that one and drops the others, as the later of two puts of the same coordinates
//! wins in HBase. Cells leave the merge with sequence id 0 (the bulk load assigns its own).
//!
//! Run file format (private to one import, deleted when the sorter is dropped): blocks of
//! `u32 length, u32 CRC32 of the records, records`, each record `u32 key length, u32 value
//! length, u16 tags length, key, value, tags`, big-endian; records are never split, and a
//! block holds up to 64 KiB of them (a larger record is a block alone). A checksum per
//! block rather than per record: CRC32 over 50-byte records cost the spill thread a tenth
//! of its time. A block whose checksum does not match, or a record that does not fit its
//! block, is an error naming the file and offset.

use std::cell::RefCell;
use std::cmp::Ordering;
use std::collections::binary_heap::PeekMut;
use std::collections::{BTreeMap, BinaryHeap};
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::thread::JoinHandle;

use regionkv::cell::CellRef;
use regionkv::cell::key::{compare_keys, encode_key_into};
use regionkv::{Cell, CellType};

use crate::error::{Error, Result};
use crate::read_ahead::ReadAhead;

/// A record's header: key, value and tags lengths (u32, u32, u16).
const HEADER: usize = 10;
/// A run file block's header: its length and CRC32 (u32, u32).
const BLOCK_HEADER: usize = 8;
/// A run file block holds records up to this many bytes (a larger record is a block alone).
const RUN_BLOCK: usize = 64 << 10;
/// A block length past this is damage: no record is that large.
const MAX_RUN_BLOCK: usize = 1 << 30;

/// One family's cells since the last spill: records in the run file's layout (without the
/// checksum) back to back in `data`, and an index entry per record.
#[derive(Default)]
struct Gathered {
    data: Vec<u8>,
    index: Vec<Entry>,
}

/// Where a record is, with the first sixteen bytes of its row as a big-endian integer
/// (zero-padded; two halves, so the entry is 24 bytes and not a 16-aligned 32). A shorter
/// row is a prefix of a longer one and sorts first either way, so the integer order never
/// contradicts the key order.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Entry {
    hi: u64,
    lo: u64,
    at: usize,
}

impl Gathered {
    /// Appends the record of a put cell with the given parts (its key encoded in place);
    /// returns the bytes it takes here, index entry included. Nothing is appended on `Err`.
    fn push(&mut self, parts: &Parts<'_>, seq_id: u64) -> Result<usize> {
        let at = self.data.len();
        self.data.extend_from_slice(&[0; HEADER]);
        if let Err(e) = encode_key_into(
            &mut self.data,
            parts.row,
            parts.family,
            parts.qualifier,
            parts.timestamp,
            CellType::Put,
            seq_id,
        ) {
            self.data.truncate(at);
            return Err(Error::Db(regionkv::Error::InvalidArgument(e.to_string())));
        }
        let Ok(tags_len) = u16::try_from(parts.tags.len()) else {
            self.data.truncate(at);
            return Err(Error::Db(regionkv::Error::InvalidArgument(format!(
                "a tag run of {} bytes (at most {})",
                parts.tags.len(),
                u16::MAX
            ))));
        };
        let key_len = self.data.len() - at - HEADER;
        self.data[at..at + 4].copy_from_slice(&(key_len as u32).to_be_bytes());
        self.data[at + 4..at + 8].copy_from_slice(&(parts.value.len() as u32).to_be_bytes());
        self.data[at + 8..at + HEADER].copy_from_slice(&tags_len.to_be_bytes());
        self.data.extend_from_slice(parts.value);
        self.data.extend_from_slice(parts.tags);
        let mut b = [0u8; 16];
        let n = parts.row.len().min(16);
        b[..n].copy_from_slice(&parts.row[..n]);
        self.index.push(Entry {
            hi: u64::from_be_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]),
            lo: u64::from_be_bytes([b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]]),
            at,
        });
        Ok(self.data.len() - at + std::mem::size_of::<Entry>())
    }

    /// The whole record at `at` (header included) and its key.
    fn record(&self, at: usize) -> (&[u8], &[u8]) {
        record(&self.data, at)
    }

    /// Sorts the index in key order, in two passes. First by the row prefixes, an integer
    /// sort that never touches the records. Then each run of entries sharing a prefix (the
    /// cells of one row, mostly: a few, written next to each other) is sorted by whole
    /// keys. Profiled, a comparison sort on whole keys spent a third of a bulk import
    /// parsing keys in `compare_keys`.
    fn sort(&mut self) {
        let _ = self.sort_with(|_| Ok(()));
    }

    /// [`Gathered::sort`], handing each record in key order to `each` as soon as its
    /// group is sorted: a spill writes a group's records while they are still in the
    /// cache from its sort, instead of reading the buffer in a random order a second time.
    fn sort_with(&mut self, mut each: impl FnMut(&[u8]) -> Result<()>) -> Result<()> {
        self.index.sort_unstable();
        let (data, index) = (&self.data, &mut self.index);
        let mut start = 0;
        while start < index.len() {
            let (hi, lo) = (index[start].hi, index[start].lo);
            let end = start
                + index[start..]
                    .iter()
                    .take_while(|e| e.hi == hi && e.lo == lo)
                    .count();
            let group = &mut index[start..end];
            if group.len() > 1 {
                group.sort_unstable_by(|a, b| {
                    compare_keys(record(data, a.at).1, record(data, b.at).1)
                });
            }
            for e in group.iter() {
                each(record(data, e.at).0)?;
            }
            start = end;
        }
        Ok(())
    }

    fn clear(&mut self) {
        self.data.clear();
        self.index.clear();
    }
}

/// The whole record at `at` of `data` (header included) and its key. Records in `data` were
/// written whole by [`Gathered::push`], so the lengths fit.
fn record(data: &[u8], at: usize) -> (&[u8], &[u8]) {
    let h = &data[at..at + HEADER];
    let klen = u32::from_be_bytes([h[0], h[1], h[2], h[3]]) as usize;
    let vlen = u32::from_be_bytes([h[4], h[5], h[6], h[7]]) as usize;
    let tlen = u16::from_be_bytes([h[8], h[9]]) as usize;
    let body = at + HEADER;
    (
        &data[at..body + klen + vlen + tlen],
        &data[body..body + klen],
    )
}

/// A put cell to gather, by its parts.
pub(crate) struct Parts<'a> {
    pub row: &'a [u8],
    pub family: &'a [u8],
    pub qualifier: &'a [u8],
    pub timestamp: i64,
    pub value: &'a [u8],
    pub tags: &'a [u8],
}

/// Gathers cells, spilling sorted runs past half the memory budget.
pub(crate) struct CellSorter {
    dir: Option<tempfile::TempDir>,
    parent: PathBuf,
    budget: usize,
    used: usize,
    next_seq: u64,
    buffer: BTreeMap<Vec<u8>, Gathered>,
    /// Emptied buffers of an earlier half, for the next families gathered.
    spare: Vec<Gathered>,
    /// Run files per family, in spill order (a run is listed once its spill started).
    runs: BTreeMap<Vec<u8>, Vec<PathBuf>>,
    spills: u64,
    /// The spill being sorted and written in the background; it hands its buffers back.
    spilling: Option<JoinHandle<Result<Vec<Gathered>>>>,
}

impl CellSorter {
    /// A sorter holding at most about `budget` bytes in memory, spilling under `parent`.
    pub(crate) fn new(parent: &Path, budget: usize) -> Self {
        CellSorter {
            dir: None,
            parent: parent.to_path_buf(),
            budget: budget.max(1 << 16),
            used: 0,
            next_seq: 1,
            buffer: BTreeMap::new(),
            spare: Vec::new(),
            runs: BTreeMap::new(),
            spills: 0,
            spilling: None,
        }
    }

    /// Runs written so far (Hadoop's "Spilled Records" in runs, for the report).
    pub(crate) fn spills(&self) -> u64 {
        self.spills
    }

    /// Adds a put cell made of `parts`; its sequence id is its input position. A row or
    /// family longer than HBase allows is an error and adds nothing.
    pub(crate) fn add(&mut self, parts: &Parts<'_>) -> Result<()> {
        let seq_id = self.next_seq;
        let used = match self.buffer.get_mut(parts.family) {
            Some(g) => g.push(parts, seq_id)?,
            None => {
                let mut g = self.spare.pop().unwrap_or_default();
                let used = g.push(parts, seq_id);
                if used.is_ok() {
                    self.buffer.insert(parts.family.to_vec(), g);
                } else {
                    self.spare.push(g);
                }
                used?
            }
        };
        self.next_seq += 1;
        self.used += used;
        // Half the budget: the other half fills while this half is spilled.
        if self.used >= self.budget / 2 {
            self.spill()?;
        }
        Ok(())
    }

    /// Waits for the spill in the background, if any; its failure is this call's.
    fn wait_for_spill(&mut self) -> Result<()> {
        match self.spilling.take() {
            None => Ok(()),
            Some(h) => match h.join() {
                Ok(r) => {
                    self.spare.extend(r?);
                    Ok(())
                }
                // A panic in the spill is a bug; let it surface as one.
                Err(panic) => std::panic::resume_unwind(panic),
            },
        }
    }

    /// Hands the buffered cells to a background spill (after the previous one ended).
    fn spill(&mut self) -> Result<()> {
        self.wait_for_spill()?;
        if self.buffer.is_empty() {
            return Ok(());
        }
        if self.dir.is_none() {
            std::fs::create_dir_all(&self.parent).map_err(|e| output(&self.parent, e))?;
            self.dir = Some(
                tempfile::Builder::new()
                    .prefix("importtsv-sort-")
                    .tempdir_in(&self.parent)
                    .map_err(|e| output(&self.parent, e))?,
            );
        }
        let dir = self
            .dir
            .as_ref()
            .map(|d| d.path().to_path_buf())
            .unwrap_or_default();
        let mut jobs = Vec::new();
        for (family, gathered) in std::mem::take(&mut self.buffer) {
            let path = dir.join(format!("run-{}-{}", self.spills, self.runs.len()));
            self.runs.entry(family).or_default().push(path.clone());
            jobs.push((gathered, path));
        }
        let spill = move || -> Result<Vec<Gathered>> {
            let mut emptied = Vec::with_capacity(jobs.len());
            for (mut gathered, path) in jobs {
                write_run(&path, &mut gathered)?;
                gathered.clear();
                emptied.push(gathered);
            }
            Ok(emptied)
        };
        self.spilling = Some(
            std::thread::Builder::new()
                .name("importtsv-spill".into())
                .spawn(spill)
                .map_err(|e| output(&dir, e))?,
        );
        self.spills += 1;
        self.used = 0;
        Ok(())
    }

    /// Ends the gathering: each family (in byte order) with its merged, deduplicated
    /// cells. The cells still in memory are merged from memory.
    pub(crate) fn finish(mut self) -> Result<SortedCells> {
        self.wait_for_spill()?;
        self.spare.clear();
        let mut families = BTreeMap::new();
        for (family, runs) in std::mem::take(&mut self.runs) {
            families.insert(
                family,
                Source {
                    runs,
                    memory: RefCell::new(None),
                },
            );
        }
        for (family, mut gathered) in std::mem::take(&mut self.buffer) {
            gathered.sort();
            families
                .entry(family)
                .or_insert_with(|| Source {
                    runs: Vec::new(),
                    memory: RefCell::new(None),
                })
                .memory = RefCell::new(Some(gathered));
        }
        Ok(SortedCells {
            _dir: self.dir.take(),
            families,
        })
    }
}

impl Drop for CellSorter {
    /// A spill still running is waited for before its directory goes.
    fn drop(&mut self) {
        if let Some(h) = self.spilling.take() {
            let _ = h.join();
        }
    }
}

/// Sorts `gathered` and writes it as a run file.
fn write_run(path: &Path, gathered: &mut Gathered) -> Result<()> {
    let file = std::fs::File::create(path).map_err(|e| output(path, e))?;
    let mut w = BufWriter::with_capacity(1 << 20, file);
    let mut block = Vec::with_capacity(RUN_BLOCK + (RUN_BLOCK >> 2));
    let mut write_block = |block: &mut Vec<u8>| -> Result<()> {
        let head = [
            (block.len() as u32).to_be_bytes(),
            crc32fast::hash(block).to_be_bytes(),
        ]
        .concat();
        w.write_all(&head)
            .and_then(|()| w.write_all(block))
            .map_err(|e| output(path, e))?;
        block.clear();
        Ok(())
    };
    gathered.sort_with(|rec| {
        if !block.is_empty() && block.len() + rec.len() > RUN_BLOCK {
            write_block(&mut block)?;
        }
        block.extend_from_slice(rec);
        Ok(())
    })?;
    if !block.is_empty() {
        write_block(&mut block)?;
    }
    w.flush().map_err(|e| output(path, e))
}

/// One family's sorted cells: its run files and the sorted cells left in memory.
struct Source {
    runs: Vec<PathBuf>,
    /// Taken by the first [`SortedCells::cells`] of the family.
    memory: RefCell<Option<Gathered>>,
}

/// The sorted cells of every family; the run files live as long as this.
pub(crate) struct SortedCells {
    _dir: Option<tempfile::TempDir>,
    families: BTreeMap<Vec<u8>, Source>,
}

impl SortedCells {
    /// The families, in byte order.
    pub(crate) fn families(&self) -> Vec<Vec<u8>> {
        self.families.keys().cloned().collect()
    }

    /// `family`'s cells in key order, each coordinate once (the latest input), sequence id
    /// 0; `Err` items for unreadable run files. Each family is read once: the cells held in
    /// memory move into the stream.
    pub(crate) fn cells<'s>(
        &'s self,
        family: &[u8],
    ) -> Result<Box<dyn Iterator<Item = Result<Cell>> + 's>> {
        let Some(source) = self.families.get(family) else {
            return Ok(Box::new(std::iter::empty()));
        };
        let mut inputs = Vec::new();
        if let Some(memory) = source.memory.borrow_mut().take() {
            inputs.push(Input::Memory {
                gathered: memory,
                next: 0,
            });
        }
        for p in &source.runs {
            inputs.push(Input::Run(RunReader::open(p)?));
        }
        let merged = Chunks::new(Dedup::new(Merge::new(inputs)));
        let chunks = ReadAhead::spawn_batched("importtsv-merge", merged, 1)
            .map_err(|e| output(Path::new("importtsv-merge thread"), e))?;
        Ok(Box::new(Unchunk {
            chunks,
            chunk: Vec::new(),
            pos: 0,
        }))
    }
}

/// Bytes of records per chunk handed from the merge thread to the reader.
const CHUNK: usize = 256 << 10;

/// The merge thread's side of the hand-over: the merged cells as records back to back in
/// chunks of about [`CHUNK`] bytes. Why not the cells themselves: each would be allocated
/// on the merge thread and freed on the reader's, and the reader would fetch each from
/// the other core's cache at a random address; profiled, the reader spent a fifth of the
/// storefile write on those. A chunk is read in order, and each cell is made (and freed)
/// on the reader's thread.
struct Chunks<I> {
    cells: I,
    /// An error met after some records of a chunk: handed over after that chunk.
    pending: Option<Error>,
    done: bool,
}

impl<I> Chunks<I> {
    fn new(cells: I) -> Self {
        Chunks {
            cells,
            pending: None,
            done: false,
        }
    }
}

impl<I: Iterator<Item = Result<Cell>>> Iterator for Chunks<I> {
    type Item = Result<Vec<u8>>;
    fn next(&mut self) -> Option<Result<Vec<u8>>> {
        if let Some(e) = self.pending.take() {
            return Some(Err(e));
        }
        if self.done {
            return None;
        }
        let mut chunk = Vec::with_capacity(CHUNK + (CHUNK >> 2));
        while chunk.len() < CHUNK {
            match self.cells.next() {
                None => {
                    self.done = true;
                    break;
                }
                Some(Err(e)) => {
                    // The error ends the stream, after the records before it.
                    self.done = true;
                    if chunk.is_empty() {
                        return Some(Err(e));
                    }
                    self.pending = Some(e);
                    break;
                }
                Some(Ok(c)) => {
                    let (key, value, tags) = (c.key_bytes(), c.value(), c.tags());
                    chunk.extend_from_slice(&(key.len() as u32).to_be_bytes());
                    chunk.extend_from_slice(&(value.len() as u32).to_be_bytes());
                    chunk.extend_from_slice(&(tags.len() as u16).to_be_bytes());
                    chunk.extend_from_slice(key);
                    chunk.extend_from_slice(value);
                    chunk.extend_from_slice(tags);
                }
            }
        }
        (!chunk.is_empty()).then_some(Ok(chunk))
    }
}

/// The reader's side of the hand-over: the cells of the chunks, in order.
struct Unchunk {
    chunks: ReadAhead<Result<Vec<u8>>>,
    chunk: Vec<u8>,
    pos: usize,
}

impl Iterator for Unchunk {
    type Item = Result<Cell>;
    fn next(&mut self) -> Option<Result<Cell>> {
        while self.pos == self.chunk.len() {
            match self.chunks.next()? {
                Ok(chunk) => {
                    self.chunk = chunk;
                    self.pos = 0;
                }
                Err(e) => return Some(Err(e)),
            }
        }
        let (rec, _) = record(&self.chunk, self.pos);
        self.pos += rec.len();
        Some(decode(rec).map_err(|reason| Error::RunFile {
            path: PathBuf::from("(the merge)"),
            offset: 0,
            reason,
        }))
    }
}

/// One sorted input of a merge.
enum Input {
    Memory { gathered: Gathered, next: usize },
    Run(RunReader),
}

impl Input {
    fn next(&mut self) -> Result<Option<Cell>> {
        match self {
            Input::Memory { gathered, next } => {
                let Some(e) = gathered.index.get(*next) else {
                    return Ok(None);
                };
                *next += 1;
                let (rec, _) = gathered.record(e.at);
                decode(rec).map(Some).map_err(|reason| Error::RunFile {
                    path: PathBuf::from("(the sort buffer)"),
                    offset: e.at as u64,
                    reason,
                })
            }
            Input::Run(r) => r.next(),
        }
    }
}

/// The cell of a record (header, key, value, tags; no checksum).
fn decode(rec: &[u8]) -> std::result::Result<Cell, String> {
    let klen = u32::from_be_bytes([rec[0], rec[1], rec[2], rec[3]]) as usize;
    let vlen = u32::from_be_bytes([rec[4], rec[5], rec[6], rec[7]]) as usize;
    let (key, rest) = rec[HEADER..].split_at(klen);
    let (value, tags) = rest.split_at(vlen);
    let parsed = CellRef::parse(key, value).map_err(|e| format!("a bad cell: {e}"))?;
    Ok(CellRef::with_tags(parsed.key(), value, tags).to_cell())
}

/// A run file being read a block at a time.
struct RunReader {
    path: PathBuf,
    file: std::fs::File,
    /// Where the block held in `block` starts in the file, and where the next one does.
    offset: u64,
    next_offset: u64,
    /// The block being read (its records), and the next record's place in it.
    block: Vec<u8>,
    pos: usize,
}

impl RunReader {
    fn open(path: &Path) -> Result<Self> {
        Ok(RunReader {
            path: path.to_path_buf(),
            file: std::fs::File::open(path).map_err(|e| output(path, e))?,
            offset: 0,
            next_offset: 0,
            block: Vec::new(),
            pos: 0,
        })
    }

    fn next(&mut self) -> Result<Option<Cell>> {
        if self.pos == self.block.len() && !self.next_block()? {
            return Ok(None);
        }
        let at = self.pos;
        let bad = |reason: String| Error::RunFile {
            path: self.path.clone(),
            offset: self.offset + BLOCK_HEADER as u64 + at as u64,
            reason,
        };
        let rest = &self.block[at..];
        let Some(h) = rest.get(..HEADER) else {
            return Err(bad("a record header cut short".into()));
        };
        let klen = u32::from_be_bytes([h[0], h[1], h[2], h[3]]) as usize;
        let vlen = u32::from_be_bytes([h[4], h[5], h[6], h[7]]) as usize;
        let tlen = u16::from_be_bytes([h[8], h[9]]) as usize;
        let len = HEADER + klen + vlen + tlen;
        let Some(rec) = rest.get(..len) else {
            return Err(bad("a record cut short".into()));
        };
        self.pos += len;
        decode(rec).map(Some).map_err(bad)
    }

    /// Reads and checks the next block; `false` at the end of the file.
    fn next_block(&mut self) -> Result<bool> {
        let at = self.next_offset;
        let bad = |reason: String| Error::RunFile {
            path: self.path.clone(),
            offset: at,
            reason,
        };
        let mut head = [0u8; BLOCK_HEADER];
        let mut got = 0;
        while got < head.len() {
            match self.file.read(&mut head[got..]) {
                Ok(0) if got == 0 => return Ok(false),
                Ok(0) => return Err(bad("a block header cut short".into())),
                Ok(n) => got += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(output(&self.path, e)),
            }
        }
        let len = u32::from_be_bytes([head[0], head[1], head[2], head[3]]) as usize;
        if len == 0 || len > MAX_RUN_BLOCK {
            return Err(bad(format!("a block of {len} bytes")));
        }
        self.block.resize(len, 0);
        self.file
            .read_exact(&mut self.block)
            .map_err(|e| bad(format!("a block cut short: {e}")))?;
        if crc32fast::hash(&self.block).to_be_bytes() != head[4..] {
            return Err(bad("block checksum mismatch".into()));
        }
        self.offset = at;
        self.next_offset = at + (BLOCK_HEADER + len) as u64;
        self.pos = 0;
        Ok(true)
    }
}

struct Head {
    cell: Cell,
    input: usize,
}

impl PartialEq for Head {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Head {}
impl PartialOrd for Head {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Head {
    /// Reversed: the heap pops the smallest key (sequence ids make keys unique).
    fn cmp(&self, other: &Self) -> Ordering {
        compare_keys(other.cell.key_bytes(), self.cell.key_bytes())
            .then_with(|| other.input.cmp(&self.input))
    }
}

/// A k-way merge of sorted inputs; it ends after its first error.
struct Merge {
    inputs: Vec<Input>,
    heap: BinaryHeap<Head>,
    started: bool,
    failed: bool,
}

impl Merge {
    fn new(inputs: Vec<Input>) -> Self {
        Merge {
            inputs,
            heap: BinaryHeap::new(),
            started: false,
            failed: false,
        }
    }

    fn next_cell(&mut self) -> Result<Option<Cell>> {
        if !self.started {
            self.started = true;
            for (input, source) in self.inputs.iter_mut().enumerate() {
                if let Some(cell) = source.next()? {
                    self.heap.push(Head { cell, input });
                }
            }
        }
        let Some(mut top) = self.heap.peek_mut() else {
            return Ok(None);
        };
        // The smallest head is replaced by its input's next cell in place (one sift
        // instead of a pop and a push).
        match self.inputs[top.input].next()? {
            Some(next) => Ok(Some(std::mem::replace(&mut top.cell, next))),
            None => Ok(Some(PeekMut::pop(top).cell)),
        }
    }
}

impl Iterator for Merge {
    type Item = Result<Cell>;
    fn next(&mut self) -> Option<Result<Cell>> {
        if self.failed {
            return None;
        }
        let next = self.next_cell();
        self.failed = next.is_err();
        next.transpose()
    }
}

/// Drops every cell whose coordinates (key without sequence id) equal the previous one's,
/// and resets the kept cells' sequence ids. Runs on the merge thread, beside the merge.
struct Dedup<I> {
    cells: I,
    /// The coordinates of the last cell passed on (none yet: `None`).
    last: Option<Vec<u8>>,
}

impl<I> Dedup<I> {
    fn new(cells: I) -> Self {
        Dedup { cells, last: None }
    }
}

impl<I: Iterator<Item = Result<Cell>>> Iterator for Dedup<I> {
    type Item = Result<Cell>;
    fn next(&mut self) -> Option<Result<Cell>> {
        loop {
            let cell = match self.cells.next()? {
                Ok(c) => c,
                Err(e) => return Some(Err(e)),
            };
            // Invariant of a cell's key: its last 8 bytes are the sequence id.
            let key = cell.key_bytes();
            let coordinates = &key[..key.len() - 8];
            match &mut self.last {
                Some(l) if l.as_slice() == coordinates => continue,
                Some(l) => {
                    l.clear();
                    l.extend_from_slice(coordinates);
                }
                None => self.last = Some(coordinates.to_vec()),
            }
            return Some(Ok(cell.with_seq_id(0)));
        }
    }
}

fn output(path: &Path, e: std::io::Error) -> Error {
    Error::File {
        path: path.to_path_buf(),
        source: e,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    /// Adds a put cell of family `f`.
    fn put(s: &mut CellSorter, row: &str, q: &str, ts: i64, v: &str) {
        add(s, row, "f", q, ts, v);
    }

    fn add(s: &mut CellSorter, row: &str, family: &str, q: &str, ts: i64, v: &str) {
        s.add(&Parts {
            row: row.as_bytes(),
            family: family.as_bytes(),
            qualifier: q.as_bytes(),
            timestamp: ts,
            value: v.as_bytes(),
            tags: &[],
        })
        .unwrap();
    }

    type Coordinates = (String, String, i64, String);

    fn sorted(budget: usize, cells: &[Coordinates]) -> (Vec<Coordinates>, u64) {
        let dir = tempfile::tempdir().unwrap();
        let mut s = CellSorter::new(dir.path(), budget);
        for (row, q, ts, v) in cells {
            put(&mut s, row, q, *ts, v);
        }
        let spills = s.spills();
        let out = s.finish().unwrap();
        let got = out
            .cells(b"f")
            .unwrap()
            .map(|c| {
                let c = c.unwrap();
                assert_eq!(c.seq_id(), 0);
                let s = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
                (s(c.row()), s(c.qualifier()), c.timestamp(), s(c.value()))
            })
            .collect();
        (got, spills)
    }

    /// In memory and through many spilled runs, the same order, and the later of two
    /// cells with the same coordinates wins.
    #[test]
    fn sorts_and_keeps_the_latest_duplicate_in_memory_and_spilled() {
        let mut cells = Vec::new();
        for i in (0..5000u32).rev() {
            cells.push((
                format!("r{:05}", i % 1000),
                "q".to_string(),
                i64::from(i % 3),
                format!("v{i}"),
            ));
        }
        let (mem, spills) = sorted(1 << 30, &cells);
        assert_eq!(spills, 0);
        let (disk, spills) = sorted(1 << 16, &cells);
        assert!(spills > 3, "{spills}");
        assert_eq!(mem, disk);
        // 1000 rows × 3 timestamps, each once.
        assert_eq!(mem.len(), 3000);
        assert!(
            mem.windows(2)
                .all(|w| (&w[0].0, -w[0].2) < (&w[1].0, -w[1].2))
        );
        // r00000 @ts 0: inputs i = 3000 and 0 (i%1000 == 0, i%3 == 0); i=0 came last.
        let r0: Vec<_> = mem.iter().filter(|c| c.0 == "r00000" && c.2 == 0).collect();
        assert_eq!(r0[0].3, "v0");
    }

    /// Families spilled and families only in memory, and a reader that stops early: the
    /// merge thread ends with it.
    #[test]
    fn families_mix_runs_and_memory_and_an_abandoned_merge_ends() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = CellSorter::new(dir.path(), 1 << 16);
        for i in 0..4000u32 {
            put(&mut s, &format!("r{:05}", (i * 7919) % 4000), "q", 1, "v");
        }
        // A family added after the last spill stays in memory.
        add(&mut s, "x", "g", "q", 1, "v");
        assert!(s.spills() > 1);
        let out = s.finish().unwrap();
        assert_eq!(out.families(), [b"f".to_vec(), b"g".to_vec()]);
        assert!(out.families[b"g".as_slice()].runs.is_empty());
        let g: Vec<Cell> = out.cells(b"g").unwrap().map(Result::unwrap).collect();
        assert_eq!(g.len(), 1);
        let first: Vec<Cell> = out
            .cells(b"f")
            .unwrap()
            .take(10)
            .map(Result::unwrap)
            .collect();
        assert_eq!(first[0].row(), b"r00000");
        assert_eq!(first.len(), 10);
        // Dropping the stream above ended its merge thread; a family is read once.
        assert_eq!(out.cells(b"g").unwrap().count(), 0);
    }

    #[test]
    fn a_damaged_run_is_an_error_naming_the_file_and_offset() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = CellSorter::new(dir.path(), 1 << 16);
        for i in 0..3000u32 {
            put(&mut s, &format!("r{i:05}"), "q", 1, "value");
        }
        let out = s.finish().unwrap();
        let paths = &out.families[b"f".as_slice()].runs;
        assert!(!paths.is_empty(), "expected runs");
        let mut bytes = std::fs::read(&paths[0]).unwrap();
        let at = bytes.len() / 2;
        bytes[at] ^= 0x40;
        std::fs::write(&paths[0], bytes).unwrap();
        let e = out
            .cells(b"f")
            .unwrap()
            .find_map(|r| r.err())
            .expect("the damage is found");
        let text = e.to_string();
        assert!(text.contains("run-0") && text.contains("offset"), "{text}");
    }

    /// Records larger than a run block, and tag runs, come back whole from spilled runs
    /// and from memory.
    #[test]
    fn large_records_and_tags_survive_runs_and_memory() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = CellSorter::new(dir.path(), 1 << 20);
        let big = vec![b'x'; RUN_BLOCK * 2 + 5];
        let tags = regionkv::cell::tag::with_ttl(&[], Some(60_000));
        for i in 0..40u32 {
            let mut value = big.clone();
            value.extend_from_slice(&i.to_be_bytes());
            s.add(&Parts {
                row: format!("r{:03}", (i * 7) % 40).as_bytes(),
                family: b"f",
                qualifier: b"q",
                timestamp: 5,
                value: &value,
                tags: &tags,
            })
            .unwrap();
        }
        assert!(s.spills() >= 2, "{}", s.spills());
        let out = s.finish().unwrap();
        let cells: Vec<Cell> = out.cells(b"f").unwrap().map(Result::unwrap).collect();
        assert_eq!(cells.len(), 40);
        for (n, c) in cells.iter().enumerate() {
            assert_eq!(c.row(), format!("r{n:03}").as_bytes());
            let i = (0..40u32).find(|i| (i * 7) % 40 == n as u32).unwrap();
            assert_eq!(&c.value()[..big.len()], big.as_slice());
            assert_eq!(&c.value()[big.len()..], i.to_be_bytes());
            assert_eq!(c.tags(), tags.as_slice());
        }
    }

    /// A damaged block length is an error naming the block, not a huge allocation; a
    /// damaged later block passes on the cells before it, then the error, then nothing.
    #[test]
    fn damaged_blocks_end_the_stream_after_the_cells_before_them() {
        let build = |dir: &Path| {
            let mut s = CellSorter::new(dir, 1 << 20);
            for i in 0..20_000u32 {
                put(&mut s, &format!("r{i:06}"), "q", 1, "value");
            }
            // One more cell, so the last half is in memory and the runs are merged.
            put(&mut s, "z", "q", 1, "v");
            s.finish().unwrap()
        };
        let dir = tempfile::tempdir().unwrap();
        let out = build(dir.path());
        let run = out.families[b"f".as_slice()].runs[0].clone();
        let mut bytes = std::fs::read(&run).unwrap();
        bytes[..4].copy_from_slice(&u32::MAX.to_be_bytes());
        std::fs::write(&run, &bytes).unwrap();
        let e = out.cells(b"f").unwrap().find_map(|r| r.err()).unwrap();
        let text = e.to_string();
        assert!(text.contains("a block of 4294967295 bytes"), "{text}");
        assert!(text.contains("offset 0"), "{text}");

        let dir = tempfile::tempdir().unwrap();
        let out = build(dir.path());
        let run = out.families[b"f".as_slice()].runs[0].clone();
        let mut bytes = std::fs::read(&run).unwrap();
        let last = bytes.len() - 3;
        bytes[last] ^= 1;
        std::fs::write(&run, &bytes).unwrap();
        let mut good = 0;
        let mut it = out.cells(b"f").unwrap();
        let e = loop {
            match it.next().expect("the error comes before the end") {
                Ok(_) => good += 1,
                Err(e) => break e,
            }
        };
        assert!(good > 0, "cells before the damage come out first");
        assert!(e.to_string().contains("checksum"), "{e}");
        assert!(it.next().is_none());
    }

    /// A row or family longer than HBase allows adds nothing and takes no input position.
    #[test]
    fn an_oversized_family_adds_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = CellSorter::new(dir.path(), 1 << 20);
        let family = vec![b'f'; 200];
        let e = s.add(&Parts {
            row: b"r",
            family: &family,
            qualifier: b"q",
            timestamp: 1,
            value: b"v",
            tags: &[],
        });
        assert!(e.is_err());
        assert_eq!(s.used, 0);
        assert_eq!(s.next_seq, 1);
        put(&mut s, "r", "q", 1, "v");
        let out = s.finish().unwrap();
        assert_eq!(out.families(), [b"f".to_vec()]);
        assert_eq!(out.cells(b"f").unwrap().count(), 1);
    }
}
