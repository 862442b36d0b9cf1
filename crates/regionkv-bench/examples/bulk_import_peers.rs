//! The peers' side of the bulk-import figures in docs/benchmarks.md: the TSV that
//! `regionkv importtsv` loads (`benches/gen_tsv.py`: a row key and three columns per line),
//! loaded into RocksDB or fjall the way a user of each would bulk-load it.
//!
//! ```sh
//! cargo run --release -p regionkv-bench --features peers --example bulk_import_peers -- \
//!     ENGINE DIR FILE
//! ```
//!
//! ENGINE is one of:
//! * `rocksdb-ingest`: every cell gathered and sorted in memory, written with
//!   `SstFileWriter` and added with `IngestExternalFile` (RocksDB's bulk-load path; the peer
//!   of `importtsv --no-wal` and of `importtsv.bulk.output` plus `completebulkload`);
//! * `rocksdb-nowal`: write batches of 1,000 lines with the WAL off, then a flush (the peer
//!   of SKIP_WAL puts and a flush);
//! * `fjall-ingest`: sorted in memory as above, then fjall's ingestion API
//!   (`Keyspace::start_ingestion`), which writes tables directly.
//!
//! Keys are the peers' layout of a cell (`row | 0 | family | 0 | qualifier`, as in
//! `src/peers.rs`), values the field. Where a line repeats a key the later line wins, as in
//! HBase. Storage settings follow HBase's family defaults as the comparison suite's
//! `--profile hbase` does: 64 KiB blocks, no compression, a Bloom filter of 10 bits a key.
//! The sort is in memory (no spill): the peers get more memory than `importtsv`'s 100 MiB
//! sort buffer, which the peak RSS beside each figure shows. One thread, as the obvious
//! program for each API is written.

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::time::Instant;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// The families and qualifiers of `importtsv -Dimporttsv.columns=HBASE_ROW_KEY,d:a,d:b,d:c`.
const COLUMNS: [(&[u8], &[u8]); 3] = [(b"d", b"a"), (b"d", b"b"), (b"d", b"c")];
/// HBase's default block size.
const BLOCK_SIZE: usize = 64 << 10;

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [engine, dir, file] = args.as_slice() else {
        return Err(
            "usage: bulk_import_peers rocksdb-ingest|rocksdb-nowal|fjall-ingest DIR FILE".into(),
        );
    };
    let (dir, file) = (PathBuf::from(dir), PathBuf::from(file));
    if dir.exists() {
        return Err(format!("{} exists; give a new directory", dir.display()).into());
    }
    let started = Instant::now();
    let rows = match engine.as_str() {
        "rocksdb-ingest" => rocksdb_ingest(&dir, &file)?,
        "rocksdb-nowal" => rocksdb_nowal(&dir, &file)?,
        "fjall-ingest" => fjall_ingest(&dir, &file)?,
        other => return Err(format!("unknown engine {other}").into()),
    };
    let secs = started.elapsed().as_secs_f64();
    let bytes = std::fs::metadata(&file)?.len();
    println!(
        "{engine}: {rows} rows ({} cells) in {secs:.2} s: {:.0} rows/s, {:.1} MB/s of input",
        rows * COLUMNS.len() as u64,
        rows as f64 / secs,
        bytes as f64 / secs / 1e6
    );
    Ok(())
}

/// Calls `each(key, value)` for every cell of every line, in input order; returns the lines.
fn read_cells(file: &Path, mut each: impl FnMut(&[u8], &[u8])) -> Result<u64> {
    let mut input = std::io::BufReader::with_capacity(1 << 20, std::fs::File::open(file)?);
    let (mut line, mut key) = (Vec::new(), Vec::new());
    let mut rows = 0;
    loop {
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            return Ok(rows);
        }
        let text = line.strip_suffix(b"\n").unwrap_or(&line);
        let mut fields = text.split(|b| *b == b'\t');
        let Some(row) = fields.next().filter(|r| !r.is_empty()) else {
            continue;
        };
        rows += 1;
        for ((family, qualifier), value) in COLUMNS.iter().zip(fields) {
            key.clear();
            key.extend_from_slice(row);
            key.push(0);
            key.extend_from_slice(family);
            key.push(0);
            key.extend_from_slice(qualifier);
            each(&key, value);
        }
    }
}

/// Every cell of `file` in key order, the later of two equal keys kept.
struct Sorted {
    data: Vec<u8>,
    /// (start, key length, value length) per cell.
    index: Vec<(usize, u32, u32)>,
}

impl Sorted {
    fn read(file: &Path) -> Result<(Self, u64)> {
        let mut s = Sorted {
            data: Vec::new(),
            index: Vec::new(),
        };
        let rows = read_cells(file, |k, v| {
            s.index.push((s.data.len(), k.len() as u32, v.len() as u32));
            s.data.extend_from_slice(k);
            s.data.extend_from_slice(v);
        })?;
        let data = &s.data;
        let key = |e: &(usize, u32, u32)| &data[e.0..e.0 + e.1 as usize];
        // Stable: equal keys stay in input order, so the last of a run is the latest.
        s.index.sort_by(|a, b| key(a).cmp(key(b)));
        let mut kept: Vec<(usize, u32, u32)> = Vec::with_capacity(s.index.len());
        for e in &s.index {
            match kept.last_mut() {
                Some(last) if key(last) == key(e) => *last = *e,
                _ => kept.push(*e),
            }
        }
        s.index = kept;
        Ok((s, rows))
    }

    fn cells(&self) -> impl Iterator<Item = (&[u8], &[u8])> {
        self.index.iter().map(|&(at, k, v)| {
            let (k, v) = (k as usize, v as usize);
            (&self.data[at..at + k], &self.data[at + k..at + k + v])
        })
    }
}

fn rocksdb_options() -> rocksdb::Options {
    let mut opts = rocksdb::Options::default();
    opts.create_if_missing(true);
    opts.set_compression_type(rocksdb::DBCompressionType::None);
    let mut table = rocksdb::BlockBasedOptions::default();
    table.set_block_size(BLOCK_SIZE);
    table.set_bloom_filter(10.0, false);
    opts.set_block_based_table_factory(&table);
    opts
}

fn rocksdb_ingest(dir: &Path, file: &Path) -> Result<u64> {
    let opts = rocksdb_options();
    let db = rocksdb::DB::open(&opts, dir)?;
    let (sorted, rows) = Sorted::read(file)?;
    let sst = dir.join("bulk.sst");
    let mut writer = rocksdb::SstFileWriter::create(&opts);
    writer.open(&sst)?;
    for (k, v) in sorted.cells() {
        writer.put(k, v)?;
    }
    writer.finish()?;
    let mut ingest = rocksdb::IngestExternalFileOptions::default();
    ingest.set_move_files(true);
    db.ingest_external_file_opts(&ingest, vec![&sst])?;
    Ok(rows)
}

fn rocksdb_nowal(dir: &Path, file: &Path) -> Result<u64> {
    let db = rocksdb::DB::open(&rocksdb_options(), dir)?;
    let mut write = rocksdb::WriteOptions::default();
    write.disable_wal(true);
    let mut batch = rocksdb::WriteBatch::default();
    let mut failed = None;
    let rows = read_cells(file, |k, v| {
        batch.put(k, v);
        if batch.len() >= 1000 * COLUMNS.len()
            && let Err(e) = db.write_opt(std::mem::take(&mut batch), &write)
        {
            failed.get_or_insert(e);
        }
    })?;
    if let Some(e) = failed {
        return Err(e.into());
    }
    db.write_opt(batch, &write)?;
    db.flush()?;
    Ok(rows)
}

fn fjall_ingest(dir: &Path, file: &Path) -> Result<u64> {
    let db = fjall::Database::builder(dir).open()?;
    let options = fjall::KeyspaceCreateOptions::default()
        .data_block_compression_policy(fjall::config::CompressionPolicy::all(
            fjall::CompressionType::None,
        ))
        .data_block_size_policy(fjall::config::BlockSizePolicy::all(BLOCK_SIZE as u32));
    let ks = db.keyspace("t", || options)?;
    let (sorted, rows) = Sorted::read(file)?;
    let mut ingest = ks.start_ingestion()?;
    for (k, v) in sorted.cells() {
        ingest.write(k, v)?;
    }
    ingest.finish()?;
    db.persist(fjall::PersistMode::SyncAll)?;
    Ok(rows)
}
