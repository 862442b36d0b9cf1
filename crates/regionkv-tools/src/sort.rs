//! Sorting cells that do not fit in memory, for the bulk modes of ImportTsv (`--no-wal` and
//! `importtsv.bulk.output`): Hadoop's map-side sort in small. Cells are gathered in memory;
//! when they fill half the budget (`mapreduce.task.io.sort.mb`) a background thread sorts
//! them and spills them as a run file per family while the next half fills (Hadoop's spill
//! thread, which starts at `mapreduce.map.sort.spill.percent` of its buffer), so at most
//! the budget is held and reading never waits for a sort unless the spill falls behind.
//! At the end the cells still in memory are sorted and merged with the runs without
//! touching the disk, each family by a merge thread handing sorted batches to the reader
//! ([`ReadAhead`]).
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

use std::cell::RefCell;
use std::cmp::Ordering;
use std::collections::binary_heap::PeekMut;
use std::collections::{BTreeMap, BinaryHeap};
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::thread::JoinHandle;

use regionkv::Cell;
use regionkv::cell::CellRef;
use regionkv::cell::key::compare_keys;

use crate::error::{Error, Result};
use crate::read_ahead::ReadAhead;

/// Bytes a buffered cell is counted for beyond its encoding (the vector slot, the box).
const CELL_OVERHEAD: usize = 48;

/// Gathers cells, spilling sorted runs past half the memory budget.
pub(crate) struct CellSorter {
    dir: Option<tempfile::TempDir>,
    parent: PathBuf,
    budget: usize,
    used: usize,
    next_seq: u64,
    buffer: BTreeMap<Vec<u8>, Vec<Cell>>,
    /// Run files per family, in spill order (a run is listed once its spill started).
    runs: BTreeMap<Vec<u8>, Vec<PathBuf>>,
    spills: u64,
    /// The spill being sorted and written in the background.
    spilling: Option<JoinHandle<Result<()>>>,
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
            spilling: None,
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
                Ok(r) => r,
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
        for (family, cells) in std::mem::take(&mut self.buffer) {
            let path = dir.join(format!("run-{}-{}", self.spills, self.runs.len()));
            self.runs.entry(family).or_default().push(path.clone());
            jobs.push((cells, path));
        }
        let spill = move || -> Result<()> {
            for (mut cells, path) in jobs {
                sort_cells(&mut cells);
                write_run(&path, &cells)?;
            }
            Ok(())
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
        let mut families = BTreeMap::new();
        for (family, runs) in std::mem::take(&mut self.runs) {
            families.insert(
                family,
                Source {
                    runs,
                    memory: RefCell::new(Vec::new()),
                },
            );
        }
        for (family, mut cells) in std::mem::take(&mut self.buffer) {
            sort_cells(&mut cells);
            families
                .entry(family)
                .or_insert_with(|| Source {
                    runs: Vec::new(),
                    memory: RefCell::new(Vec::new()),
                })
                .memory = RefCell::new(cells);
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

/// Writes `cells` (sorted) as a run file.
fn write_run(path: &Path, cells: &[Cell]) -> Result<()> {
    let file = std::fs::File::create(path).map_err(|e| output(path, e))?;
    let mut w = BufWriter::with_capacity(1 << 20, file);
    let mut rec = Vec::new();
    for c in cells {
        rec.clear();
        rec.extend_from_slice(&(c.key_bytes().len() as u32).to_be_bytes());
        rec.extend_from_slice(&(c.value().len() as u32).to_be_bytes());
        rec.extend_from_slice(&(c.tags().len() as u16).to_be_bytes());
        rec.extend_from_slice(c.key_bytes());
        rec.extend_from_slice(c.value());
        rec.extend_from_slice(c.tags());
        let crc = crc32fast::hash(&rec);
        rec.extend_from_slice(&crc.to_be_bytes());
        w.write_all(&rec).map_err(|e| output(path, e))?;
    }
    w.flush().map_err(|e| output(path, e))
}

/// One family's sorted cells: its run files and the sorted cells left in memory.
struct Source {
    runs: Vec<PathBuf>,
    /// Taken by the first [`SortedCells::cells`] of the family.
    memory: RefCell<Vec<Cell>>,
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
        let memory = std::mem::take(&mut *source.memory.borrow_mut());
        if source.runs.is_empty() {
            return Ok(dedup(Box::new(memory.into_iter().map(Ok))));
        }
        let mut inputs = vec![Input::Memory(memory.into_iter())];
        for p in &source.runs {
            let f = std::fs::File::open(p).map_err(|e| output(p, e))?;
            inputs.push(Input::Run(RunReader {
                path: p.clone(),
                r: BufReader::with_capacity(1 << 20, f),
                offset: 0,
                body: Vec::new(),
            }));
        }
        let merge = ReadAhead::spawn("importtsv-merge", Merge::new(inputs))
            .map_err(|e| output(Path::new("importtsv-merge thread"), e))?;
        Ok(dedup(Box::new(merge)))
    }
}

/// One sorted input of a merge.
enum Input {
    Memory(std::vec::IntoIter<Cell>),
    Run(RunReader),
}

impl Input {
    fn next(&mut self) -> Result<Option<Cell>> {
        match self {
            Input::Memory(cells) => Ok(cells.next()),
            Input::Run(r) => r.next(),
        }
    }
}

struct RunReader {
    path: PathBuf,
    r: BufReader<std::fs::File>,
    offset: u64,
    /// The record being read (reused: one allocation per cell, the cell's own).
    body: Vec<u8>,
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
        let path = &self.path;
        let bad = |reason: String| Error::RunFile {
            path: path.clone(),
            offset: at,
            reason,
        };
        self.r
            .read_exact(&mut head[1..])
            .map_err(|e| bad(format!("a record header cut short: {e}")))?;
        let klen = u32::from_be_bytes([head[0], head[1], head[2], head[3]]) as usize;
        let vlen = u32::from_be_bytes([head[4], head[5], head[6], head[7]]) as usize;
        let tlen = u16::from_be_bytes([head[8], head[9]]) as usize;
        self.body.resize(klen + vlen + tlen + 4, 0);
        self.r
            .read_exact(&mut self.body)
            .map_err(|e| bad(format!("a record cut short: {e}")))?;
        let (data, crc) = self.body.split_at(klen + vlen + tlen);
        let mut h = crc32fast::Hasher::new();
        h.update(&head);
        h.update(data);
        if h.finalize().to_be_bytes() != crc {
            return Err(bad("record checksum mismatch".into()));
        }
        self.offset += (10 + self.body.len()) as u64;
        let (key, rest) = data.split_at(klen);
        let (value, tags) = rest.split_at(vlen);
        let parsed = CellRef::parse(key, value).map_err(|e| bad(format!("a bad cell: {e}")))?;
        Ok(Some(
            CellRef::with_tags(parsed.key(), value, tags).to_cell(),
        ))
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

fn output(path: &Path, e: std::io::Error) -> Error {
    Error::File {
        path: path.to_path_buf(),
        source: e,
    }
}

/// Sorts `cells` in key order, in two passes. First by the first sixteen bytes of the rows
/// as a big-endian integer (zero-padded: a shorter row is a prefix and sorts first either
/// way, so the integer order never contradicts the key order), an integer sort that never
/// touches the cells. Then each run of cells sharing those bytes (the cells of one row,
/// mostly: a few) is sorted by whole keys. Profiled, a comparison sort on whole keys spent
/// a third of a bulk import parsing keys in `compare_keys`, and one on (prefix, whole key)
/// still spent most of its time on the ties among a row's cells.
fn sort_cells(cells: &mut Vec<Cell>) {
    let prefix = |row: &[u8]| {
        let mut b = [0u8; 16];
        let n = row.len().min(16);
        b[..n].copy_from_slice(&row[..n]);
        u128::from_be_bytes(b)
    };
    let mut order: Vec<(u128, u32)> = cells
        .iter()
        .enumerate()
        .map(|(i, c)| (prefix(c.row()), i as u32))
        .collect();
    order.sort_unstable();
    let mut start = 0;
    while start < order.len() {
        let p = order[start].0;
        let end = start + order[start..].iter().take_while(|o| o.0 == p).count();
        if end - start > 1 {
            order[start..end].sort_unstable_by(|a, b| {
                compare_keys(
                    cells[a.1 as usize].key_bytes(),
                    cells[b.1 as usize].key_bytes(),
                )
            });
        }
        start = end;
    }
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
            match &mut last {
                Some(l) if l.as_slice() == k => return None,
                Some(l) => {
                    l.clear();
                    l.extend_from_slice(k);
                }
                None => last = Some(k.to_vec()),
            }
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

    /// Families spilled and families only in memory, and a reader that stops early: the
    /// merge thread ends with it.
    #[test]
    fn families_mix_runs_and_memory_and_an_abandoned_merge_ends() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = CellSorter::new(dir.path(), 1 << 16);
        for i in 0..4000u32 {
            s.add(put(&format!("r{:05}", (i * 7919) % 4000), "q", 1, "v"))
                .unwrap();
        }
        // A family added after the last spill stays in memory.
        let late = Cell::put(b"x", b"g", b"q", 1, b"v").unwrap();
        s.add(late).unwrap();
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
            s.add(put(&format!("r{i:05}"), "q", 1, "value")).unwrap();
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
}
