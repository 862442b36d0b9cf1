//! Sorting cells that do not fit in memory, for the bulk modes of ImportTsv (`--no-wal` and
//! `importtsv.bulk.output`): Hadoop's map-side sort in small. Cells are gathered in memory up
//! to a budget (`mapreduce.task.io.sort.mb`), sorted, and spilled as a run file per family;
//! at the end each family's runs are merged into one stream in key order.
//!
//! Order and duplicates: every cell carries its input position as its sequence id, so two
//! cells with the same row, column, timestamp and type sort later-input first; the merge
//! keeps that one and drops the others, as the later of two puts of the same coordinates
//! wins in HBase. Cells leave the merge with sequence id 0 (the bulk load assigns its own).
//!
//! Run file format (private to one import, deleted when the sorter is dropped): records of
//! `u32 key length, u32 value length, u16 tags length, key, value, tags, u32 CRC32 of the
//! record's bytes before it`, big-endian. A record whose checksum does not match is an error
//! naming the file and offset.

use std::cmp::Ordering;
use std::collections::{BTreeMap, BinaryHeap};
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use regionkv::Cell;
use regionkv::cell::key::compare_keys;

use crate::error::{Error, Result};

/// Bytes a buffered cell is counted for beyond its encoding (the vector slot, the box).
const CELL_OVERHEAD: usize = 48;

/// Gathers cells, spilling sorted runs past the memory budget.
pub(crate) struct CellSorter {
    dir: Option<tempfile::TempDir>,
    parent: PathBuf,
    budget: usize,
    used: usize,
    next_seq: u64,
    buffer: BTreeMap<Vec<u8>, Vec<Cell>>,
    /// Run files per family, in spill order.
    runs: BTreeMap<Vec<u8>, Vec<PathBuf>>,
    spills: u64,
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
            runs: BTreeMap::new(),
            spills: 0,
        }
    }

    /// Runs written so far (Hadoop's "Spilled Records" in runs, for the report).
    pub(crate) fn spills(&self) -> u64 {
        self.spills
    }

    /// Adds `cell` (its sequence id is replaced by its input position).
    pub(crate) fn add(&mut self, cell: Cell) -> Result<()> {
        let cell = cell.with_seq_id(self.next_seq);
        self.next_seq += 1;
        self.used += cell.encoded_len() + CELL_OVERHEAD;
        match self.buffer.get_mut(cell.family()) {
            Some(v) => v.push(cell),
            None => {
                self.buffer.insert(cell.family().to_vec(), vec![cell]);
            }
        }
        if self.used >= self.budget {
            self.spill()?;
        }
        Ok(())
    }

    fn spill(&mut self) -> Result<()> {
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
        for (family, mut cells) in std::mem::take(&mut self.buffer) {
            sort_cells(&mut cells);
            let path = dir.join(format!("run-{}-{}", self.spills, self.runs.len()));
            let file = std::fs::File::create(&path).map_err(|e| output(&path, e))?;
            let mut w = BufWriter::with_capacity(1 << 20, file);
            let mut rec = Vec::new();
            for c in &cells {
                rec.clear();
                rec.extend_from_slice(&(c.key_bytes().len() as u32).to_be_bytes());
                rec.extend_from_slice(&(c.value().len() as u32).to_be_bytes());
                rec.extend_from_slice(&(c.tags().len() as u16).to_be_bytes());
                rec.extend_from_slice(c.key_bytes());
                rec.extend_from_slice(c.value());
                rec.extend_from_slice(c.tags());
                let crc = crc32fast::hash(&rec);
                rec.extend_from_slice(&crc.to_be_bytes());
                w.write_all(&rec).map_err(|e| output(&path, e))?;
            }
            w.flush().map_err(|e| output(&path, e))?;
            self.runs.entry(family).or_default().push(path);
        }
        self.spills += 1;
        self.used = 0;
        Ok(())
    }

    /// Ends the gathering: each family (in byte order) with its merged, deduplicated
    /// cells. When nothing was spilled the cells never touch the disk.
    pub(crate) fn finish(mut self) -> Result<SortedCells> {
        if !self.runs.is_empty() {
            self.spill()?;
        }
        let mut families = BTreeMap::new();
        for (family, mut cells) in std::mem::take(&mut self.buffer) {
            sort_cells(&mut cells);
            families.insert(family, Source::Memory(cells));
        }
        for (family, runs) in std::mem::take(&mut self.runs) {
            families.insert(family, Source::Runs(runs));
        }
        Ok(SortedCells {
            _dir: self.dir.take(),
            families,
        })
    }
}

enum Source {
    Memory(Vec<Cell>),
    Runs(Vec<PathBuf>),
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
    /// 0; `Err` items for unreadable run files.
    pub(crate) fn cells<'s>(
        &'s self,
        family: &[u8],
    ) -> Result<Box<dyn Iterator<Item = Result<Cell>> + 's>> {
        match self.families.get(family) {
            None => Ok(Box::new(std::iter::empty())),
            Some(Source::Memory(cells)) => Ok(dedup(Box::new(cells.iter().cloned().map(Ok)))),
            Some(Source::Runs(paths)) => {
                let mut readers = Vec::new();
                for p in paths {
                    let f = std::fs::File::open(p).map_err(|e| output(p, e))?;
                    readers.push(RunReader {
                        path: p.clone(),
                        r: BufReader::with_capacity(1 << 20, f),
                        offset: 0,
                    });
                }
                Ok(dedup(Box::new(Merge::new(readers))))
            }
        }
    }
}

struct RunReader {
    path: PathBuf,
    r: BufReader<std::fs::File>,
    offset: u64,
}

impl RunReader {
    fn next(&mut self) -> Result<Option<Cell>> {
        let mut head = [0u8; 10];
        match self.r.read_exact(&mut head[..1]) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(None),
            Err(e) => return Err(output(&self.path, e)),
        }
        let at = self.offset;
        let bad = |reason: String| Error::RunFile {
            path: self.path.clone(),
            offset: at,
            reason,
        };
        self.r
            .read_exact(&mut head[1..])
            .map_err(|e| bad(format!("a record header cut short: {e}")))?;
        let klen = u32::from_be_bytes([head[0], head[1], head[2], head[3]]) as usize;
        let vlen = u32::from_be_bytes([head[4], head[5], head[6], head[7]]) as usize;
        let tlen = u16::from_be_bytes([head[8], head[9]]) as usize;
        let mut body = vec![0u8; klen + vlen + tlen + 4];
        self.r
            .read_exact(&mut body)
            .map_err(|e| bad(format!("a record cut short: {e}")))?;
        let (data, crc) = body.split_at(klen + vlen + tlen);
        let mut h = crc32fast::Hasher::new();
        h.update(&head);
        h.update(data);
        if h.finalize().to_be_bytes() != crc {
            return Err(bad("record checksum mismatch".into()));
        }
        self.offset += (10 + body.len()) as u64;
        let cell = Cell::from_parts(data[..klen].to_vec(), data[klen..klen + vlen].to_vec())
            .and_then(|c| {
                if tlen == 0 {
                    Ok(c)
                } else {
                    c.with_tags(data[klen + vlen..].to_vec())
                }
            })
            .map_err(|e| bad(format!("a bad cell: {e}")))?;
        Ok(Some(cell))
    }
}

struct Head {
    cell: Cell,
    run: usize,
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
            .then_with(|| other.run.cmp(&self.run))
    }
}

struct Merge {
    readers: Vec<RunReader>,
    heap: BinaryHeap<Head>,
    started: bool,
    failed: bool,
}

impl Merge {
    fn new(readers: Vec<RunReader>) -> Self {
        Merge {
            readers,
            heap: BinaryHeap::new(),
            started: false,
            failed: false,
        }
    }

    fn advance(&mut self, run: usize) -> Result<()> {
        if let Some(cell) = self.readers[run].next()? {
            self.heap.push(Head { cell, run });
        }
        Ok(())
    }

    fn next_cell(&mut self) -> Result<Option<Cell>> {
        if !self.started {
            self.started = true;
            for i in 0..self.readers.len() {
                self.advance(i)?;
            }
        }
        let Some(h) = self.heap.pop() else {
            return Ok(None);
        };
        self.advance(h.run)?;
        Ok(Some(h.cell))
    }
}

impl Iterator for Merge {
    type Item = Result<Cell>;
    fn next(&mut self) -> Option<Result<Cell>> {
        if self.failed {
            return None;
        }
        match self.next_cell() {
            Ok(c) => c.map(Ok),
            Err(e) => {
                self.failed = true;
                Some(Err(e))
            }
        }
    }
}

fn output(path: &Path, e: std::io::Error) -> Error {
    Error::File {
        path: path.to_path_buf(),
        source: e,
    }
}

/// Sorts `cells` in key order. Most comparisons are settled by the first eight bytes of
/// the rows as a big-endian integer (zero-padded: a shorter row is a prefix and sorts
/// first either way, so the integer order never contradicts the key order); only rows that
/// share those bytes are compared as whole keys. Profiled, the plain sort spent a third of
/// a bulk import parsing keys in `compare_keys`.
fn sort_cells(cells: &mut Vec<Cell>) {
    let prefix = |row: &[u8]| {
        let mut b = [0u8; 8];
        let n = row.len().min(8);
        b[..n].copy_from_slice(&row[..n]);
        u64::from_be_bytes(b)
    };
    let mut order: Vec<(u64, u32)> = cells
        .iter()
        .enumerate()
        .map(|(i, c)| (prefix(c.row()), i as u32))
        .collect();
    order.sort_unstable_by(|a, b| {
        a.0.cmp(&b.0).then_with(|| {
            compare_keys(
                cells[a.1 as usize].key_bytes(),
                cells[b.1 as usize].key_bytes(),
            )
        })
    });
    let mut slots: Vec<Option<Cell>> = cells.drain(..).map(Some).collect();
    cells.extend(order.iter().filter_map(|&(_, i)| slots[i as usize].take()));
}

/// Drops every cell whose coordinates (key without sequence id) equal the previous one's,
/// and resets the kept cells' sequence ids.
fn dedup<'s>(
    it: Box<dyn Iterator<Item = Result<Cell>> + 's>,
) -> Box<dyn Iterator<Item = Result<Cell>> + 's> {
    let mut last: Option<Vec<u8>> = None;
    Box::new(it.filter_map(move |r| match r {
        Err(e) => Some(Err(e)),
        Ok(c) => {
            let k = c.key_view().without_seq_id();
            if last.as_deref() == Some(k) {
                return None;
            }
            last = Some(k.to_vec());
            Some(Ok(c.with_seq_id(0)))
        }
    }))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    fn put(row: &str, q: &str, ts: i64, v: &str) -> Cell {
        Cell::put(row.as_bytes(), b"f", q.as_bytes(), ts, v.as_bytes()).unwrap()
    }

    fn sorted(budget: usize, cells: Vec<Cell>) -> (Vec<(String, String, i64, String)>, u64) {
        let dir = tempfile::tempdir().unwrap();
        let mut s = CellSorter::new(dir.path(), budget);
        for c in cells {
            s.add(c).unwrap();
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
            cells.push(put(
                &format!("r{:05}", i % 1000),
                "q",
                i64::from(i % 3),
                &format!("v{i}"),
            ));
        }
        let (mem, spills) = sorted(1 << 30, cells.clone());
        assert_eq!(spills, 0);
        let (disk, spills) = sorted(1 << 16, cells);
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

    #[test]
    fn a_damaged_run_is_an_error_naming_the_file_and_offset() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = CellSorter::new(dir.path(), 1 << 16);
        for i in 0..3000u32 {
            s.add(put(&format!("r{i:05}"), "q", 1, "value")).unwrap();
        }
        let out = s.finish().unwrap();
        let Some(Source::Runs(paths)) = out.families.get(b"f".as_slice()) else {
            panic!("expected runs");
        };
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
}
