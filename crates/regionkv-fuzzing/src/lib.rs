//! The bodies of regionkv's fuzz targets, in a library of the workspace so that the same
//! code runs under libFuzzer (`cargo +nightly fuzz run TARGET` in `fuzz/`, one thin file per
//! target in `fuzz/fuzz_targets/`) and on the stable toolchain in the workspace's
//! `tests/fuzz_replay.rs`, which replays the seed corpus, any saved corpus or crash
//! artifacts, and a few hundred pseudo-random inputs. It also writes the seed corpus
//! (`seed_*`, run by `fuzz/examples/gen_seeds.rs`). Dev-only: nothing ships it.
//!
//! The rule every target checks: a storefile reader fed arbitrary bytes may return any
//! `Err`, but must never panic, loop forever or allocate without bound. The round-trip
//! target additionally checks that what the writer writes, the reader reads back.
//!
//! `op_sequence` is different: it drives a whole `Db` through decoded operations, I/O faults
//! and power cuts, and a panic there means the engine disagreed with a reference model.

#![expect(
    clippy::expect_used,
    reason = "a panic is how a fuzz target reports a bug, and the seed generators' setup (a \
              Db on a MemFs) cannot fail short of one"
)]

use regionkv::{
    ColumnFamilyDescriptor, Db, DbOptions, Delete, ManualClock, Put, RowMutations, Scan,
    TableDescriptor,
};
use regionkv_cell::{Cell, CellType, KeyValueScanner, KeyView, compare_keys};
use regionkv_fs::{CrashMode, FaultFs, FaultKind, Fs, MemFs, Persistence};
use regionkv_storefile::block::{BlockBuilder, BlockCursor};
use regionkv_storefile::format::FORMAT_VERSION;
use regionkv_storefile::format::block_header::{
    CHECKSUM_LEN, FRAMING_LEN, HEADER_LEN, decompress, parse_block, peek_block_len,
};
use regionkv_storefile::format::trailer::{TRAILER_LEN_V1, TRAILER_MAGIC};
use regionkv_storefile::{
    BloomType, Compression, DataBlockEncoding, StoreFileBlockCache, StoreFileReader,
    StoreFileScanner, StoreFileWriter, StoreFileWriterOptions,
};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

/// Keys remembered from a scan to seek to afterwards.
const MAX_SEEK_KEYS: usize = 64;

fn put_file(fs: &MemFs, path: &Path, data: &[u8]) -> bool {
    match fs.create_new(path) {
        Ok(mut f) => f.append(data).is_ok(),
        Err(_) => false,
    }
}

/// `storefile_open`: writes `data` as a file into a `MemFs`, opens it with
/// `StoreFileReader::open` (once without a cache, once with a small one) and, when it opens,
/// calls `midkey`, the bloom checks, scans every cell and seeks to some of them.
pub fn storefile_open(data: &[u8]) {
    let fs = MemFs::new();
    let path = Path::new("/sf");
    if !put_file(&fs, path, data) {
        return;
    }
    let cache = Arc::new(StoreFileBlockCache::new(1 << 20));
    for cache in [None, Some(cache)] {
        if let Ok(reader) = StoreFileReader::open(&fs, path, 1, cache, Default::default()) {
            exercise_reader(Arc::new(reader));
        }
    }
    // The same bytes through `from_file`, as an engine holding an open file would.
    if let Ok(file) = fs.open_read(path)
        && let Ok(reader) = StoreFileReader::from_file(file, 2, None, Default::default())
    {
        exercise_reader(Arc::new(reader));
    }
}

/// `storefile_open_crc_fixed`: like [`storefile_open`], after recomputing every block
/// checksum and the trailer's (see [`fix_checksums`]), so that mutations reach the parsers
/// behind the checksums instead of stopping at them.
pub fn storefile_open_crc_fixed(data: &[u8]) {
    let mut fixed = data.to_vec();
    fix_checksums(&mut fixed);
    storefile_open(&fixed);
}

/// Rewrites the checksums of a would-be storefile in place: walks framed blocks from offset
/// 0 by their length fields while they fit before the trailer, stores each block's CRC-32,
/// then stamps the trailer's version, magic and CRC-32. Inputs shorter than a trailer are
/// left alone.
pub fn fix_checksums(data: &mut [u8]) {
    let Some(body_end) = data.len().checked_sub(TRAILER_LEN_V1) else {
        return;
    };
    let mut offset = 0usize;
    while let Some(header) = data.get(offset..offset + HEADER_LEN) {
        let Some(end) = peek_block_len(header)
            .and_then(|len| offset.checked_add(len))
            .filter(|&end| end <= body_end)
        else {
            break;
        };
        let crc = crc32fast::hash(&data[offset..end - CHECKSUM_LEN]);
        data[end - CHECKSUM_LEN..end].copy_from_slice(&crc.to_be_bytes());
        offset = end;
    }
    let trailer = &mut data[body_end..];
    trailer[84..88].copy_from_slice(&FORMAT_VERSION.to_be_bytes());
    trailer[92..100].copy_from_slice(TRAILER_MAGIC);
    let crc = crc32fast::hash(&trailer[..88]);
    trailer[88..92].copy_from_slice(&crc.to_be_bytes());
}

/// Calls every read-side entry point of an open reader. Errors are fine; panics are not.
fn exercise_reader(reader: Arc<StoreFileReader>) {
    let midkey = reader.midkey();
    let _ = reader.may_contain_row(b"");
    let _ = reader.may_contain_row(b"row");
    let _ = reader.may_contain_row_col(b"row", b"q");
    let _ = reader.may_contain_rows(b"a", b"z");
    let _ = reader.may_contain_time_range(&Default::default());

    let mut keys: Vec<Vec<u8>> = Vec::new();
    let mut scanner = StoreFileScanner::new(Arc::clone(&reader));
    if let Ok(true) = scanner.seek_to_first() {
        let mut seen = 0u64;
        while let Some(cell) = scanner.peek() {
            let _ = reader.may_contain_row(cell.row());
            let _ = reader.may_contain_row_col(cell.row(), cell.qualifier());
            if keys.len() < MAX_SEEK_KEYS && seen.is_multiple_of(7) {
                keys.push(cell.key_bytes().to_vec());
            }
            seen += 1;
            if scanner.advance().is_err() {
                break;
            }
        }
    }
    if let Ok(Some(k)) = midkey {
        keys.push(k);
    }
    let mut scanner = StoreFileScanner::new(reader);
    for k in &keys {
        if let Ok(view) = KeyView::parse(k) {
            let _ = scanner.seek(&view);
            let _ = scanner.peek();
            let _ = scanner.reseek(&view);
            let _ = scanner.advance();
        }
    }
}

/// `block_decode`: feeds `data` to the block framing parser (`parse_block`, as given and
/// with its checksum fixed, then `decompress`), and to the block body cursor
/// (`BlockCursor::new`, a full iteration, then `seek_ge` and `seek_le_or_first` to the
/// keys it found and to a few made-up ones).
pub fn block_decode(data: &[u8]) {
    if let Ok((header, body)) = parse_block(data) {
        let _ = decompress(&header, body);
    }
    if data.len() >= FRAMING_LEN {
        let mut framed = data.to_vec();
        let n = framed.len();
        let crc = crc32fast::hash(&framed[..n - CHECKSUM_LEN]);
        framed[n - CHECKSUM_LEN..].copy_from_slice(&crc.to_be_bytes());
        if let Ok((header, body)) = parse_block(&framed) {
            let _ = decompress(&header, body);
            cursor_walk(body);
        }
    }
    cursor_walk(data);
}

fn cursor_walk(body: &[u8]) {
    let Ok(mut c) = BlockCursor::new(body) else {
        return;
    };
    let mut keys: Vec<Vec<u8>> = vec![Vec::new(), vec![0xff; 40]];
    if c.seek_to_first(body).is_ok() {
        let mut n = 0usize;
        while c.valid() {
            let key = c.key(body);
            let _ = c.value(body);
            let _ = c.entry_offset();
            if keys.len() < MAX_SEEK_KEYS && n.is_multiple_of(3) {
                let mut k = key.to_vec();
                keys.push(k.clone());
                // A key just after this one, to land between entries.
                k.push(0);
                keys.push(k);
            }
            n += 1;
            if c.next(body).is_err() {
                break;
            }
        }
    }
    for k in &keys {
        if c.seek_ge(body, k).is_ok() && c.valid() {
            let _ = (c.key(body), c.value(body));
        }
        if c.seek_le_or_first(body, k).is_ok() && c.valid() {
            let _ = (c.key(body), c.value(body));
        }
    }
}

/// Decodes a round-trip input: the first byte picks the writer options, the rest is a
/// sequence of cells `[row_len, qual_len, ts, type_and_value_len, row.., qual.., value..]`.
fn roundtrip_input(data: &[u8]) -> Option<(StoreFileWriterOptions, Vec<Cell>)> {
    let (&opts, mut rest) = data.split_first()?;
    let options = StoreFileWriterOptions {
        compression: if opts & 1 == 0 {
            Compression::None
        } else {
            Compression::Lz4
        },
        encoding: if opts & 2 == 0 {
            DataBlockEncoding::None
        } else {
            DataBlockEncoding::Prefix
        },
        bloom_type: match (opts >> 2) % 3 {
            0 => BloomType::None,
            1 => BloomType::Row,
            _ => BloomType::RowCol,
        },
        // Small blocks and index blocks: many blocks and a multi-level index from few cells.
        block_size: 1024,
        index_block_size: if opts & 0x10 == 0 { 64 } else { 4096 },
        ..StoreFileWriterOptions::default()
    };
    const TYPES: [CellType; 5] = [
        CellType::Put,
        CellType::Delete,
        CellType::DeleteColumn,
        CellType::DeleteFamily,
        CellType::DeleteFamilyVersion,
    ];
    let mut cells = Vec::new();
    let mut seq = 0u64;
    while let [row_len, qual_len, ts, tv, tail @ ..] = rest {
        let row_len = usize::from(row_len % 24);
        let qual_len = usize::from(qual_len % 8);
        let cell_type = TYPES[usize::from(tv & 7) % TYPES.len()];
        let value_len = usize::from(tv >> 3) * 4;
        let need = row_len + qual_len + value_len;
        if tail.len() < need {
            // Use what is left as the value, so short inputs still make a cell.
            let (row, more) = tail.split_at(row_len.min(tail.len()));
            let (qual, value) = more.split_at(qual_len.min(more.len()));
            cells.extend(cell(row, qual, i64::from(*ts), cell_type, value, &mut seq));
            break;
        }
        let (row, more) = tail.split_at(row_len);
        let (qual, more) = more.split_at(qual_len);
        let (value, more) = more.split_at(value_len);
        cells.extend(cell(row, qual, i64::from(*ts), cell_type, value, &mut seq));
        rest = more;
    }
    cells.sort_by(|a, b| compare_keys(a.key_bytes(), b.key_bytes()));
    cells.dedup_by(|a, b| compare_keys(a.key_bytes(), b.key_bytes()).is_eq());
    Some((options, cells))
}

fn cell(
    row: &[u8],
    qual: &[u8],
    ts: i64,
    t: CellType,
    value: &[u8],
    seq: &mut u64,
) -> Option<Cell> {
    *seq += 1;
    // An invalid coordinate (say, an empty row, if the key encoding refuses it) drops the cell.
    let cell = if t == CellType::Put {
        Cell::put(row, b"f", qual, ts, value)
    } else {
        Cell::delete_marker(row, b"f", qual, ts, t)
    };
    Some(cell.ok()?.with_seq_id(*seq % 5))
}

/// `storefile_roundtrip`: builds cells from `data` (see the input layout in the source),
/// writes them with the options its first byte picks (compression, encoding, bloom type,
/// small blocks, a one- or multi-level index), and checks that the file reads back exactly:
/// a full scan yields the cells in order; seeking to each cell's key finds it; reseeking
/// forward through every key finds each; the bloom says "maybe" for every row and column;
/// `midkey` is a key of the file. A failed check panics: that is a bug in the storefile
/// crate (or in this target).
pub fn storefile_roundtrip(data: &[u8]) {
    let Some((options, cells)) = roundtrip_input(data) else {
        return;
    };
    let fs = MemFs::new();
    let path = Path::new("/sf");
    let file = fs.create_new(path).expect("create in an empty MemFs");
    let mut w = StoreFileWriter::new(file, options.clone()).expect("valid options");
    for c in &cells {
        w.append(c.as_cell_ref())
            .expect("append of sorted, distinct cells");
    }
    let written = w.finish().expect("finish");
    assert_eq!(written.file_info.cell_count, cells.len() as u64);

    let cache = Arc::new(StoreFileBlockCache::new(1 << 20));
    for cache in [None, Some(cache)] {
        let reader = Arc::new(
            StoreFileReader::open(&fs, path, 1, cache, Default::default())
                .expect("open what the writer wrote"),
        );
        let mut s = StoreFileScanner::new(Arc::clone(&reader));
        assert_eq!(s.seek_to_first().expect("seek_to_first"), !cells.is_empty());
        for (i, c) in cells.iter().enumerate() {
            let got = s.peek().unwrap_or_else(|| panic!("scan ended at cell {i}"));
            assert_eq!(got.key_bytes(), c.key_bytes(), "key of cell {i}");
            assert_eq!(got.value(), c.value(), "value of cell {i}");
            s.advance().expect("advance");
        }
        assert!(s.peek().is_none(), "scan yields more cells than written");

        let mut forward = StoreFileScanner::new(Arc::clone(&reader));
        for (i, c) in cells.iter().enumerate() {
            let key = c.key_view();
            assert!(s.seek(&key).expect("seek"), "seek to cell {i}");
            assert_eq!(
                s.peek().map(|p| p.key_bytes()),
                Some(c.key_bytes()),
                "seek {i}"
            );
            let found = if i == 0 {
                forward.seek(&key).expect("seek")
            } else {
                forward.reseek(&key).expect("reseek")
            };
            assert!(found, "reseek to cell {i}");
            assert_eq!(
                forward.peek().map(|p| p.key_bytes()),
                Some(c.key_bytes()),
                "reseek {i}"
            );
            assert!(
                reader.may_contain_row(c.row()),
                "bloom rejects row of cell {i}"
            );
            assert!(
                reader.may_contain_row_col(c.row(), c.qualifier()),
                "bloom rejects column of cell {i}"
            );
        }
        match reader.midkey().expect("midkey") {
            None => assert!(cells.is_empty(), "no midkey for a non-empty file"),
            Some(k) => assert!(
                cells.iter().any(|c| c.key_bytes() == k.as_slice()),
                "midkey is not a key of the file"
            ),
        }
    }
}

/// Valid storefiles written with a spread of options: the seed corpus of the two
/// `storefile_open*` targets. Names are file names for `seeds/`.
pub fn seed_storefiles() -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let shapes: [(&str, u32, StoreFileWriterOptions); 6] = [
        ("empty", 0, StoreFileWriterOptions::default()),
        ("none_row_3", 3, StoreFileWriterOptions::default()),
        (
            "lz4_prefix_rowcol_200",
            200,
            StoreFileWriterOptions {
                compression: Compression::Lz4,
                encoding: DataBlockEncoding::Prefix,
                bloom_type: BloomType::RowCol,
                block_size: 1024,
                ..StoreFileWriterOptions::default()
            },
        ),
        (
            "none_multilevel_index_300",
            300,
            StoreFileWriterOptions {
                block_size: 1024,
                index_block_size: 64,
                ..StoreFileWriterOptions::default()
            },
        ),
        (
            "lz4_multilevel_index_300",
            300,
            StoreFileWriterOptions {
                compression: Compression::Lz4,
                block_size: 1024,
                index_block_size: 64,
                bloom_type: BloomType::None,
                ..StoreFileWriterOptions::default()
            },
        ),
        (
            "prefix_nobloom_40",
            40,
            StoreFileWriterOptions {
                encoding: DataBlockEncoding::Prefix,
                bloom_type: BloomType::None,
                block_size: 1024,
                ..StoreFileWriterOptions::default()
            },
        ),
    ];
    for (name, n, options) in shapes {
        let fs = MemFs::new();
        let path = Path::new("/sf");
        let Ok(file) = fs.create_new(path) else {
            continue;
        };
        let Ok(mut w) = StoreFileWriter::new(file, options) else {
            continue;
        };
        let mut ok = true;
        for i in 0..n {
            let row = format!("row{:05}", i / 2);
            let qual = format!("q{}", i % 2);
            let cell = if i % 11 == 5 {
                Cell::delete_marker(row.as_bytes(), b"f", qual.as_bytes(), 9, CellType::Delete)
            } else {
                Cell::put(
                    row.as_bytes(),
                    b"f",
                    qual.as_bytes(),
                    9,
                    format!("v{i}").as_bytes(),
                )
            };
            ok &= cell.is_ok_and(|c| w.append(c.as_cell_ref()).is_ok());
        }
        if ok
            && w.finish().is_ok()
            && let Ok(bytes) = fs.contents(path)
        {
            out.push((name.to_string(), bytes));
        }
    }
    out
}

/// Seeds of `block_decode`: block bodies of both encodings, and framed blocks taken from the
/// seed storefiles (the first data block and the trailer-adjacent meta blocks).
pub fn seed_blocks() -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for prefix in [false, true] {
        let mut b = BlockBuilder::new(prefix);
        for i in 0..40u32 {
            let Ok(c) = Cell::put(format!("row{i:04}").as_bytes(), b"f", b"q", 1, b"value") else {
                continue;
            };
            b.add(c.key_bytes(), c.value());
        }
        let name = if prefix { "body_prefix" } else { "body_plain" };
        out.push((name.to_string(), b.finish()));
    }
    for (name, file) in seed_storefiles() {
        let Some(header) = file.get(..HEADER_LEN) else {
            continue;
        };
        if let Some(block) = peek_block_len(header).and_then(|len| file.get(..len)) {
            out.push((format!("framed_first_block_of_{name}"), block.to_vec()));
        }
    }
    out
}

/// Seeds of `storefile_roundtrip`: a few inputs for each option byte.
pub fn seed_roundtrip() -> Vec<(String, Vec<u8>)> {
    (0u8..32)
        .step_by(3)
        .map(|opts| {
            let mut input = vec![opts];
            for i in 0..60u8 {
                // row_len 6, qual_len 1, ts, type/value len, then the bytes.
                input.extend_from_slice(&[6, 1, i % 5, (i % 5) | (3 << 3)]);
                input.extend_from_slice(format!("row{:03}", i / 3).as_bytes());
                input.push(b'a' + i % 3);
                input.extend_from_slice(&[i; 12]);
            }
            (format!("opts_{opts:02x}"), input)
        })
        .collect()
}

// ---------------------------------------------------------------------------------------
// The WAL reader, the metadata readers (region manifest with its region info and
// reference files, the Db catalog) and the shell parser.

/// Reads `data` as a WAL log with `WalReader` in every recovery mode (tail may be torn
/// or not), and as the only log of a directory with `replay`. Any `Err` is fine; a panic,
/// a hang or an unbounded allocation is a bug. Edits read must stay within the input.
pub fn wal_read(data: &[u8]) {
    use regionkv_wal::{RecoveryMode, WalReader};
    let fs = MemFs::new();
    let dir = Path::new("/wal");
    if fs.create_dir_all(dir).is_err() {
        return;
    }
    let path = dir.join("wal.00000000000000000001.log");
    if !put_file(&fs, &path, data) {
        return;
    }
    for mode in [
        RecoveryMode::TolerateCorruptedTail,
        RecoveryMode::AbsoluteConsistency,
        RecoveryMode::SkipAnyCorrupted,
    ] {
        for torn in [false, true] {
            let Ok(reader) = WalReader::open(&fs, &path) else {
                continue;
            };
            let mut reader = reader.with_mode(mode).tail_may_be_torn(torn);
            let mut cells = 0usize;
            // Each edit holds at least one byte of the input, so more edits than input
            // bytes means the reader is looping.
            for _ in 0..=data.len() {
                match reader.next_edit() {
                    Ok(Some(edit)) => cells += edit.cells.len(),
                    Ok(None) | Err(_) => break,
                }
            }
            assert!(
                cells <= data.len(),
                "{cells} cells out of {} bytes",
                data.len()
            );
            let _ = reader.summary();
        }
        if let Ok(r) = regionkv_wal::replay(&fs, dir, mode) {
            let _ = r.read_all();
        }
    }
}

/// Decodes `data` as a region manifest (region info, store files, reference files); what
/// decodes must encode back to bytes that decode to the same manifest.
pub fn manifest_decode(data: &[u8]) {
    let path = Path::new("/region/.regioninfo");
    if let Ok(m) = regionkv_region::Manifest::decode(data, path) {
        let again = regionkv_region::Manifest::decode(&m.encode(), path)
            .unwrap_or_else(|e| panic!("a decoded manifest does not decode again: {e}"));
        assert_eq!(again, m, "manifest round trip");
    }
}

/// Decodes `data` as the Db catalog; what decodes must round-trip.
pub fn catalog_decode(data: &[u8]) {
    let path = Path::new("/db/CATALOG");
    if let Ok(c) = regionkv::catalog::Catalog::decode(data, path) {
        let again = regionkv::catalog::Catalog::decode(&c.encode(), path)
            .unwrap_or_else(|e| panic!("a decoded catalog does not decode again: {e}"));
        assert_eq!(again, c, "catalog round trip");
    }
}

/// Parses `data` (as UTF-8, lossily) as a shell script with the shell's parser, and asks
/// whether it is complete, as the interactive shell does after every line
/// (`regionkv_cli::shell::fuzz_parse`).
pub fn shell_parse(data: &[u8]) {
    regionkv_cli::shell::fuzz_parse(&String::from_utf8_lossy(data));
}

/// Seeds as the `seed_*` functions return them: (file name, bytes).
type NamedInputs = Vec<(String, Vec<u8>)>;

/// The files of a small Db that wrote, flushed, split and compacted, by kind: WAL logs,
/// region manifests (with region info and, for daughters, references) and catalogs.
fn seed_db_files() -> (NamedInputs, NamedInputs, NamedInputs) {
    let mem = MemFs::new();
    let clock = ManualClock::new(1_700_000_000_000);
    let (mut wals, mut manifests, mut catalogs) = (Vec::new(), Vec::new(), Vec::new());
    let mut grab = |mem: &MemFs, step: &str| {
        for p in mem.files() {
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let Ok(bytes) = mem.contents(&p) else {
                continue;
            };
            let tag = format!("{step}_{}", p.display().to_string().replace('/', "_"));
            if name.ends_with(".log") {
                wals.push((tag, bytes));
            } else if name == "CATALOG" {
                catalogs.push((tag, bytes));
            } else if name == ".regioninfo"
                || name.contains("manifest")
                || name.contains("MANIFEST")
            {
                manifests.push((tag, bytes));
            }
        }
    };
    let opts = || {
        DbOptions::default()
            .background(false)
            .clock(Arc::new(clock.clone()))
            .fs(Arc::new(mem.clone()))
    };
    // A fixed Db id (a new Db draws a random one), so the seeds are the same on every run:
    // the catalog and every WAL log header carry it.
    mem.create_dir_all(Path::new("/db"))
        .expect("MemFs makes directories");
    regionkv_fs::write_atomic(
        &mem,
        Path::new("/db/REGIONKV"),
        b"regionkv\nformat 1\nid 5eed5eed5eed5eed5eed5eed5eed5eed\n",
    )
    .expect("MemFs writes files");
    let db = Db::open("/db", opts()).expect("a Db on MemFs opens");
    let mut cf = ColumnFamilyDescriptor::new(b"cf").expect("valid family");
    cf.block_size = 1024;
    let mut desc = TableDescriptor::new("t", vec![cf]).expect("valid table");
    desc.set_attribute("DURABILITY", "FSYNC_WAL")
        .expect("valid attribute");
    db.admin().create_table(&desc).expect("create");
    let t = db.table("t").expect("table");
    for i in 0..40u32 {
        let p = Put::new(format!("row{i:03}"))
            .add_column(b"cf", b"q", format!("value-{i}-{}", "v".repeat(60)))
            .ttl(if i % 7 == 0 { 60_000 } else { i64::MAX });
        t.put(&p).expect("put");
    }
    t.delete(&Delete::new("row005")).expect("delete");
    grab(&mem, "written");
    db.admin().flush("t").expect("flush");
    db.admin().split_at("t", b"row020").expect("split");
    grab(&mem, "split");
    db.admin().major_compact("t").expect("compact");
    grab(&mem, "compacted");
    drop(db);
    (wals, manifests, catalogs)
}

/// Seeds for `wal_read`: logs of a Db (edits with and without tags, a delete).
pub fn seed_wals() -> Vec<(String, Vec<u8>)> {
    dedup(seed_db_files().0)
}

/// Seeds for `manifest_decode`: manifests of a table's region, its daughters (with
/// references) and after their compaction.
pub fn seed_manifests() -> Vec<(String, Vec<u8>)> {
    dedup(seed_db_files().1)
}

/// Seeds for `catalog_decode`.
pub fn seed_catalogs() -> Vec<(String, Vec<u8>)> {
    dedup(seed_db_files().2)
}

/// Seeds for `shell_parse`: the golden shell scripts' kind of input.
pub fn seed_shell() -> Vec<(String, Vec<u8>)> {
    [
        (
            "create",
            "create 't', 'cf', {NAME => 'cg', VERSIONS => 3, TTL => 60}\n",
        ),
        (
            "put",
            "put 't', 'r1', 'cf:q', 'v', 1234, {TTL => 1000}\nget 't', 'r1'\n",
        ),
        (
            "scan",
            "scan 't', {STARTROW => 'a', STOPROW => 'z', COLUMNS => ['cf:q'], LIMIT => 10, \
             FILTER => \"PrefixFilter('r') AND ValueFilter(=, 'binary:v')\"}\n",
        ),
        (
            "multi",
            "incr 't', 'c', 'cf:n', 5\nappend 't', 'r', 'cf:q', 'x'\n# comment\nexit\n",
        ),
        ("open", "create 't', {NAME => 'cf',\n  VERSIONS => 2\n"),
        ("strings", "put 't', \"r\\x00\\xff\", 'cf:q', 'it''s'\n"),
        (
            "splits",
            "create 't', 'cf', SPLITS => ['a', 'm', 'x']\nsplit 't', 'q'\n",
        ),
    ]
    .into_iter()
    .map(|(n, s)| (n.to_string(), s.as_bytes().to_vec()))
    .collect()
}

fn dedup(mut v: Vec<(String, Vec<u8>)>) -> Vec<(String, Vec<u8>)> {
    let mut seen = std::collections::HashSet::new();
    v.retain(|(_, b)| seen.insert(b.clone()));
    v.sort();
    v
}

// ---------------------------------------------------------------------------------------
// `op_sequence`: operation sequences against a reference model, with an I/O fault
// countdown and power cuts (RELIABILITY.md §3 T5 `fuzz_ops`, the redb design).

/// The most operations one `op_sequence` input runs (two bytes each after the header).
pub const OP_SEQUENCE_MAX_OPS: usize = 64;
/// The header's length: countdown kind, countdown (two bytes), crash byte.
pub const OP_SEQUENCE_HEADER_LEN: usize = 4;
/// The countdown is counted in file-system operations after the table's creation, modulo
/// this: a put does 2, a flush ~30–50, a compaction ~45–95, a split ~65–95, a reopen
/// ~30–110, so a 64-step sequence does up to about two thousand and most countdowns fire.
const OP_SEQUENCE_COUNTDOWN_MOD: u16 = 1 << 11;
const SEQ_ROWS: u8 = 32;
const SEQ_FAMILIES: [&[u8]; 2] = [b"cf", b"cg"];
const SEQ_QUALIFIERS: [&[u8]; 4] = [b"a", b"b", b"c", b"d"];
const SEQ_TABLE: &str = "t";

/// `(row, family, qualifier) -> value` of every visible cell: the reference model.
type SeqModel = BTreeMap<(Vec<u8>, Vec<u8>, Vec<u8>), Vec<u8>>;

/// What the countdown does when it reaches zero.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Countdown {
    /// Nothing: only the sequence's own `CrashNow` steps cut the power.
    Off,
    /// `FaultFs::fail_at`: the first operation of the kind's class from then on fails.
    Fault(FaultKind, Persistence),
    /// `FaultFs::halt_at`: the process dies just before that operation (every operation
    /// from then on fails).
    Halt,
}

/// The first [`OP_SEQUENCE_HEADER_LEN`] bytes of an `op_sequence` input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SeqHeader {
    /// What fires at the countdown.
    pub countdown: Countdown,
    /// File-system operations after the table's creation before it fires (below 2048).
    pub at: u16,
    /// Bit 7: close the Db (flushing its memstores) before each power cut instead of
    /// dying without a word. Bits 0–6: `% 5` picks the crash mode of every power cut
    /// (`CrashMode::all`), and seed the random ones.
    pub crash: u8,
}

impl SeqHeader {
    /// Byte 0: the countdown, `% 12`: 0–4 a transient fault of `FaultKind::ALL[i]`, 5–9
    /// a persistent one, 10 a halt, 11 none. Bytes 1–2: `at`, little-endian, modulo 2048.
    /// Byte 3: `crash`.
    pub fn decode(b: [u8; OP_SEQUENCE_HEADER_LEN]) -> Self {
        let countdown = match b[0] % 12 {
            k @ 0..=4 => Countdown::Fault(FaultKind::ALL[usize::from(k)], Persistence::Transient),
            k @ 5..=9 => {
                Countdown::Fault(FaultKind::ALL[usize::from(k - 5)], Persistence::Persistent)
            }
            10 => Countdown::Halt,
            _ => Countdown::Off,
        };
        SeqHeader {
            countdown,
            at: u16::from_le_bytes([b[1], b[2]]) % OP_SEQUENCE_COUNTDOWN_MOD,
            crash: b[3],
        }
    }

    /// The inverse of [`decode`](Self::decode) (for `at` below 2048).
    pub fn encode(self) -> [u8; OP_SEQUENCE_HEADER_LEN] {
        let kind = |k: FaultKind| FaultKind::ALL.iter().position(|x| *x == k).unwrap_or(0) as u8;
        let b0 = match self.countdown {
            Countdown::Fault(k, Persistence::Transient) => kind(k),
            Countdown::Fault(k, Persistence::Persistent) => 5 + kind(k),
            Countdown::Halt => 10,
            Countdown::Off => 11,
        };
        let [lo, hi] = self.at.to_le_bytes();
        [b0, lo, hi, self.crash]
    }

    /// A `crash` byte: crash mode `CrashMode::all(..)[mode]` (0..5), `variant` (0..25)
    /// picks among the seeds of the random modes.
    pub fn crash_byte(mode: u8, variant: u8, clean_close: bool) -> u8 {
        ((variant % 25) * 5 + mode % 5) | if clean_close { 0x80 } else { 0 }
    }

    fn clean_close(&self) -> bool {
        self.crash & 0x80 != 0
    }

    /// The crash mode of the `n`th power cut of a run.
    fn crash_mode(&self, n: u64) -> CrashMode {
        let low = self.crash & 0x7f;
        CrashMode::all(u64::from(low) * 1000 + n)[usize::from(low % 5)]
    }
}

/// One step of an `op_sequence` input (two bytes: a code, then row/family/qualifier).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeqOp {
    /// A put of one column, or of the same qualifier in both families.
    Put {
        /// The row, `0..32` (`row00`..`row31`).
        row: u8,
        /// The family: 0 `cf`, 1 `cg`.
        family: u8,
        /// The qualifier: 0–3 for `a`–`d`.
        qualifier: u8,
        /// Put the same qualifier in both families.
        both_families: bool,
    },
    /// `Delete.addColumns`: every version of one column.
    DeleteColumn {
        /// The row, `0..32` (`row00`..`row31`).
        row: u8,
        /// The family: 0 `cf`, 1 `cg`.
        family: u8,
        /// The qualifier: 0–3 for `a`–`d`.
        qualifier: u8,
    },
    /// `Delete.addFamily`.
    DeleteFamily {
        /// The row, `0..32` (`row00`..`row31`).
        row: u8,
        /// The family: 0 `cf`, 1 `cg`.
        family: u8,
    },
    /// A whole-row delete.
    DeleteRow {
        /// The row, `0..32` (`row00`..`row31`).
        row: u8,
    },
    /// An atomic `RowMutations`: a put of one column and a delete of another.
    Mutate {
        /// The row, `0..32` (`row00`..`row31`).
        row: u8,
        /// The family: 0 `cf`, 1 `cg`.
        family: u8,
        /// The qualifier: 0–3 for `a`–`d`.
        qualifier: u8,
        /// The family of the deleted column: 0 `cf`, 1 `cg`.
        del_family: u8,
        /// The qualifier of the deleted column: 0–3 for `a`–`d` (never the put's column).
        del_qualifier: u8,
    },
    /// `Admin::flush` of the table.
    Flush,
    /// A user minor compaction (two files suffice: `min_files` is 2).
    Compact,
    /// A user major compaction.
    MajorCompact,
    /// `Admin::split_at(row)`; a refusal (`SplitRefused`) is a no-op.
    Split {
        /// The row, `0..32` (`row00`..`row31`).
        row: u8,
    },
    /// Power cut (in the header's crash mode), reopen, compare with the model, go on.
    CrashNow,
    /// Scan the live table and compare it with the model.
    Check,
}

impl SeqOp {
    /// Code byte `% 16`: 0–3 put (bit 4: both families), 4–5 delete column, 6 delete
    /// family, 7 delete row, 8–9 row mutation (bit 4: the deleted family, bits 5–6: the
    /// deleted qualifier, moved on by one if it is the put's column), 10 flush, 11
    /// compact, 12 major compact, 13 split, 14 crash now, 15 check. Argument byte: bits
    /// 0–4 the row, bit 5 the family, bits 6–7 the qualifier.
    pub fn decode(code: u8, arg: u8) -> Self {
        let row = arg % SEQ_ROWS;
        let family = (arg >> 5) & 1;
        let qualifier = arg >> 6;
        let extra = code >> 4;
        match code & 0x0f {
            0..=3 => SeqOp::Put {
                row,
                family,
                qualifier,
                both_families: extra & 1 != 0,
            },
            4 | 5 => SeqOp::DeleteColumn {
                row,
                family,
                qualifier,
            },
            6 => SeqOp::DeleteFamily { row, family },
            7 => SeqOp::DeleteRow { row },
            8 | 9 => {
                let del_family = extra & 1;
                let mut del_qualifier = (extra >> 1) & 3;
                if (del_family, del_qualifier) == (family, qualifier) {
                    del_qualifier = (del_qualifier + 1) % 4;
                }
                SeqOp::Mutate {
                    row,
                    family,
                    qualifier,
                    del_family,
                    del_qualifier,
                }
            }
            10 => SeqOp::Flush,
            11 => SeqOp::Compact,
            12 => SeqOp::MajorCompact,
            13 => SeqOp::Split { row },
            14 => SeqOp::CrashNow,
            _ => SeqOp::Check,
        }
    }

    /// Two bytes that [`decode`](Self::decode) to `self` (for valid field values).
    pub fn encode(self) -> [u8; 2] {
        let arg = |row: u8, family: u8, qualifier: u8| {
            (row % SEQ_ROWS) | ((family & 1) << 5) | ((qualifier & 3) << 6)
        };
        match self {
            SeqOp::Put {
                row,
                family,
                qualifier,
                both_families,
            } => [u8::from(both_families) << 4, arg(row, family, qualifier)],
            SeqOp::DeleteColumn {
                row,
                family,
                qualifier,
            } => [4, arg(row, family, qualifier)],
            SeqOp::DeleteFamily { row, family } => [6, arg(row, family, 0)],
            SeqOp::DeleteRow { row } => [7, arg(row, 0, 0)],
            SeqOp::Mutate {
                row,
                family,
                qualifier,
                del_family,
                del_qualifier,
            } => [
                8 | ((del_family & 1) << 4) | ((del_qualifier & 3) << 5),
                arg(row, family, qualifier),
            ],
            SeqOp::Flush => [10, 0],
            SeqOp::Compact => [11, 0],
            SeqOp::MajorCompact => [12, 0],
            SeqOp::Split { row } => [13, arg(row, 0, 0)],
            SeqOp::CrashNow => [14, 0],
            SeqOp::Check => [15, 0],
        }
    }

    /// Puts, deletes and row mutations: what a failed WAL fsync must make the engine
    /// refuse afterwards.
    fn is_write(self) -> bool {
        matches!(
            self,
            SeqOp::Put { .. }
                | SeqOp::DeleteColumn { .. }
                | SeqOp::DeleteFamily { .. }
                | SeqOp::DeleteRow { .. }
                | SeqOp::Mutate { .. }
        )
    }
}

/// An `op_sequence` input: the header, then two bytes per op.
pub fn encode_op_sequence(header: SeqHeader, ops: &[SeqOp]) -> Vec<u8> {
    let mut out = header.encode().to_vec();
    for op in ops {
        out.extend_from_slice(&op.encode());
    }
    out
}

/// Decodes an `op_sequence` input; `None` when it is shorter than the header. Trailing
/// odd bytes and ops beyond [`OP_SEQUENCE_MAX_OPS`] are ignored.
pub fn decode_op_sequence(data: &[u8]) -> Option<(SeqHeader, Vec<SeqOp>)> {
    let (header, body) = data.split_first_chunk::<OP_SEQUENCE_HEADER_LEN>()?;
    let ops = body
        .chunks_exact(2)
        .take(OP_SEQUENCE_MAX_OPS)
        .map(|c| SeqOp::decode(c[0], c[1]))
        .collect();
    Some((SeqHeader::decode(*header), ops))
}

fn seq_row(i: u8) -> Vec<u8> {
    format!("row{i:02}").into_bytes()
}

fn seq_family(f: u8) -> &'static [u8] {
    SEQ_FAMILIES[usize::from(f & 1)]
}

fn seq_qualifier(q: u8) -> &'static [u8] {
    SEQ_QUALIFIERS[usize::from(q & 3)]
}

/// The value step `step` writes to a column: unique per step and column, ~64 bytes so a
/// few dozen cells fill several 1 KiB blocks.
fn seq_value(step: usize, row: u8, family: u8, qualifier: u8) -> Vec<u8> {
    let mut v = format!(
        "step{step:03}/row{row:02}/{}:{}/",
        String::from_utf8_lossy(seq_family(family)),
        String::from_utf8_lossy(seq_qualifier(qualifier))
    )
    .into_bytes();
    v.resize(64, b'.');
    v
}

fn seq_key(row: u8, family: u8, qualifier: u8) -> (Vec<u8>, Vec<u8>, Vec<u8>) {
    (
        seq_row(row),
        seq_family(family).to_vec(),
        seq_qualifier(qualifier).to_vec(),
    )
}

/// What `op` at step `step` does to the model, if it is acknowledged.
fn seq_apply(model: &mut SeqModel, step: usize, op: SeqOp) {
    match op {
        SeqOp::Put {
            row,
            family,
            qualifier,
            both_families,
        } => {
            model.insert(
                seq_key(row, family, qualifier),
                seq_value(step, row, family, qualifier),
            );
            if both_families {
                let other = family ^ 1;
                model.insert(
                    seq_key(row, other, qualifier),
                    seq_value(step, row, other, qualifier),
                );
            }
        }
        SeqOp::DeleteColumn {
            row,
            family,
            qualifier,
        } => {
            model.remove(&seq_key(row, family, qualifier));
        }
        SeqOp::DeleteFamily { row, family } => {
            let (r, f) = (seq_row(row), seq_family(family));
            model.retain(|(kr, kf, _), _| !(*kr == r && kf.as_slice() == f));
        }
        SeqOp::DeleteRow { row } => {
            let r = seq_row(row);
            model.retain(|(kr, _, _), _| *kr != r);
        }
        SeqOp::Mutate {
            row,
            family,
            qualifier,
            del_family,
            del_qualifier,
        } => {
            model.insert(
                seq_key(row, family, qualifier),
                seq_value(step, row, family, qualifier),
            );
            model.remove(&seq_key(row, del_family, del_qualifier));
        }
        SeqOp::Flush
        | SeqOp::Compact
        | SeqOp::MajorCompact
        | SeqOp::Split { .. }
        | SeqOp::CrashNow
        | SeqOp::Check => {}
    }
}

/// Runs a data or admin op on the Db (not `CrashNow` / `Check`).
fn seq_run(db: &Db, step: usize, op: SeqOp) -> regionkv::Result<()> {
    let t = db.table(SEQ_TABLE)?;
    let admin = db.admin();
    match op {
        SeqOp::Put {
            row,
            family,
            qualifier,
            both_families,
        } => {
            let mut p = Put::new(seq_row(row)).add_column(
                seq_family(family),
                seq_qualifier(qualifier),
                seq_value(step, row, family, qualifier),
            );
            if both_families {
                let other = family ^ 1;
                p = p.add_column(
                    seq_family(other),
                    seq_qualifier(qualifier),
                    seq_value(step, row, other, qualifier),
                );
            }
            t.put(&p)
        }
        SeqOp::DeleteColumn {
            row,
            family,
            qualifier,
        } => t.delete(
            &Delete::new(seq_row(row)).add_columns(seq_family(family), seq_qualifier(qualifier)),
        ),
        SeqOp::DeleteFamily { row, family } => {
            t.delete(&Delete::new(seq_row(row)).add_family(seq_family(family)))
        }
        SeqOp::DeleteRow { row } => t.delete(&Delete::new(seq_row(row))),
        SeqOp::Mutate {
            row,
            family,
            qualifier,
            del_family,
            del_qualifier,
        } => t.mutate_row(
            &RowMutations::new(seq_row(row))
                .add_mutation(Put::new(seq_row(row)).add_column(
                    seq_family(family),
                    seq_qualifier(qualifier),
                    seq_value(step, row, family, qualifier),
                ))
                .add_mutation(
                    Delete::new(seq_row(row))
                        .add_columns(seq_family(del_family), seq_qualifier(del_qualifier)),
                ),
        ),
        SeqOp::Flush => admin.flush(SEQ_TABLE),
        SeqOp::Compact => admin.compact(SEQ_TABLE),
        SeqOp::MajorCompact => admin.major_compact(SEQ_TABLE),
        SeqOp::Split { row } => admin.split_at(SEQ_TABLE, &seq_row(row)).map(|_| ()),
        SeqOp::CrashNow | SeqOp::Check => Ok(()),
    }
}

/// Every visible cell of the table, through a full scan (across regions).
fn seq_dump(db: &Db) -> regionkv::Result<SeqModel> {
    let mut m = SeqModel::new();
    for r in db.table(SEQ_TABLE)?.scan(&Scan::new())? {
        for c in r?.cells() {
            m.insert(
                (
                    c.row().to_vec(),
                    c.family().to_vec(),
                    c.qualifier().to_vec(),
                ),
                c.value().to_vec(),
            );
        }
    }
    Ok(m)
}

/// The first difference between the table and the model, for failure messages.
fn seq_diff(got: &SeqModel, want: &SeqModel) -> String {
    let show = |k: &(Vec<u8>, Vec<u8>, Vec<u8>)| {
        format!(
            "{}/{}:{}",
            String::from_utf8_lossy(&k.0),
            String::from_utf8_lossy(&k.1),
            String::from_utf8_lossy(&k.2)
        )
    };
    for (k, v) in want {
        match got.get(k) {
            None => return format!("missing {}", show(k)),
            Some(g) if g != v => {
                return format!(
                    "{}: got {:?}, want {:?}",
                    show(k),
                    String::from_utf8_lossy(g),
                    String::from_utf8_lossy(v)
                );
            }
            _ => {}
        }
    }
    for (k, v) in got {
        if !want.contains_key(k) {
            return format!("unexpected {} = {:?}", show(k), String::from_utf8_lossy(v));
        }
    }
    "equal".into()
}

/// A running Db and the switch that cuts its power: every file-system call the Db makes
/// goes through `power`, which `halt_at` stops dead.
struct SeqProcess {
    power: Arc<FaultFs>,
    db: Db,
}

/// One `op_sequence` run: the file system, the countdown layer and the model.
struct SeqRun {
    header: SeqHeader,
    /// The ops, for failure messages.
    what: String,
    mem: MemFs,
    /// The countdown layer over `mem`, under every process until the run stops.
    fault: Arc<FaultFs>,
    clock: ManualClock,
    crashes: u64,
    /// The crash mode of the last power cut.
    last_crash: Option<CrashMode>,
}

impl SeqRun {
    /// Opens the Db on a fresh power switch over `base`.
    fn start(&mut self, base: Arc<dyn Fs>) -> regionkv::Result<SeqProcess> {
        let power = Arc::new(FaultFs::new(base));
        let mut options = DbOptions::default()
            .background(false)
            .clock(Arc::new(self.clock.clone()))
            .fs(power.clone());
        // Minor compactions of two files, so that `Compact` compacts.
        options.region.compaction.min_files = 2;
        let db = match Db::open("/db", options.clone()) {
            Err(
                regionkv::Error::Corrupt { what: "WAL", .. }
                | regionkv::Error::UnreadableFile { what: "WAL", .. },
            ) if matches!(self.last_crash, Some(CrashMode::TornPage { .. })) => {
                // A torn page can leave a complete-length WAL record with a bad checksum
                // at the tail, which the default recovery mode refuses as corruption
                // (RELIABILITY.md §0; regionkv-wal's tests/durability.rs). The salvage
                // (`repair`) must then keep every acknowledged write: the checks after
                // this reopen see to that.
                regionkv::repair::repair("/db", options.clone())?;
                Db::open("/db", options)?
            }
            other => other?,
        };
        Ok(SeqProcess { power, db })
    }

    /// Cuts the power under `p` (after closing the Db, with `clean_close`) in the
    /// header's crash mode.
    fn power_cut(&mut self, p: Option<SeqProcess>) {
        if let Some(p) = p {
            if !self.header.clean_close() {
                // The process dies: nothing it does from here on reaches the disk.
                p.power.halt_at(p.power.op_count());
            }
            drop(p);
        }
        let mode = self.header.crash_mode(self.crashes);
        self.crashes += 1;
        self.last_crash = Some(mode);
        self.mem.crash(mode);
    }

    /// Power cut, then a reopen on the bare file system, which must succeed.
    fn crash_and_recover(&mut self, p: Option<SeqProcess>, when: &str) -> SeqProcess {
        self.power_cut(p);
        let base = Arc::new(self.mem.clone());
        // tests/fuzz_replay.rs `regression_split_catalog_rollback`: a split whose catalog
        // commit failed at the directory fsync once made this reopen fail.
        self.start(base).unwrap_or_else(|e| {
            panic!(
                "{when}: reopen after a power cut failed: {e}\n{}",
                self.what
            )
        })
    }
}

/// `op_sequence`: decodes a fault countdown, a crash mode and up to 64 operations (see
/// [`SeqHeader`] and [`SeqOp`]), runs them on a `Db` over a `FaultFs` over a `MemFs`
/// (FSYNC_WAL, a `ManualClock` one millisecond further at each step, no background
/// threads), and keeps a model of the acknowledged operations. Asserted:
/// * a `CrashNow` (power cut, reopen) and a `Check` give exactly the model;
/// * an operation fails only after an injected fault (a refused split is a no-op); the
///   run then stops, as a client whose server gave up would;
/// * after a failed WAL fsync, writes are refused until the Db is reopened;
/// * after a failed flush or compaction, a live scan errs or gives the model;
/// * at the end (or after the failure), a power cut and a reopen on the bare file system
///   succeed and give the model, or the model plus the one failed op, whole. The one
///   refusal allowed: after a `TornPage` crash, WAL corruption (a garbled tail record
///   with a complete length is corruption by the project's rules), which `repair` must
///   then salvage without losing an acknowledged write;
/// * recovering again gives the same table, and a write after recovery lands on top of
///   the recovered cells and survives another power cut.
pub fn op_sequence(data: &[u8]) {
    let Some((header, ops)) = decode_op_sequence(data) else {
        return;
    };
    let mem = MemFs::new();
    let mut run = SeqRun {
        header,
        what: format!("{header:?}, ops {ops:?}"),
        fault: Arc::new(FaultFs::new(Arc::new(mem.clone()))),
        mem,
        clock: ManualClock::new(1_700_000_000_000),
        crashes: 0,
        last_crash: None,
    };
    let mut p = Some(
        run.start(run.fault.clone())
            .expect("a Db opens on an empty MemFs"),
    );
    if let Some(p) = &p {
        seq_create(&p.db).expect("the table is created before any fault is armed");
    }
    let at = run.fault.op_count() + u64::from(header.at);
    match header.countdown {
        Countdown::Off => {}
        Countdown::Fault(kind, persistence) => run.fault.fail_at(at, kind, persistence),
        Countdown::Halt => run.fault.halt_at(at),
    }

    let mut model = SeqModel::new();
    // The op that failed, if one did: the run stops there.
    let mut failed: Option<(usize, SeqOp)> = None;
    // False once the run stopped early after an injected fault.
    let mut completed = true;
    for (step, &op) in ops.iter().enumerate() {
        run.clock.advance(1);
        let injected_before = run.fault.faults_injected();
        let injected_now = |run: &SeqRun| run.fault.faults_injected() > injected_before;
        let Some(cur) = p.as_ref() else { break };
        match op {
            SeqOp::CrashNow | SeqOp::Check => {
                if op == SeqOp::CrashNow {
                    run.power_cut(p.take());
                    match run.start(run.fault.clone()) {
                        Ok(next) => p = Some(next),
                        Err(e) => {
                            // Only an injected fault may fail recovery; the final reopen
                            // on the bare file system below must then succeed.
                            assert!(
                                injected_now(&run),
                                "step {step}: reopen after a power cut failed without an \
                                 injected fault: {e}\n{}",
                                run.what
                            );
                            completed = false;
                            break;
                        }
                    }
                }
                let Some(cur) = p.as_ref() else { break };
                match seq_dump(&cur.db) {
                    Ok(got) => assert!(
                        got == model,
                        "step {step} {op:?}: the table is not the acknowledged state: {}\n{}",
                        seq_diff(&got, &model),
                        run.what
                    ),
                    Err(e) => {
                        assert!(
                            run.fault.faults_injected() > 0,
                            "step {step} {op:?}: scan failed without an injected fault: {e}\n{}",
                            run.what
                        );
                        completed = false;
                        break;
                    }
                }
            }
            _ => match seq_run(&cur.db, step, op) {
                Ok(()) => seq_apply(&mut model, step, op),
                // The engine may refuse a split (at a region's start key, of a region
                // that still has references); nothing changes.
                Err(regionkv::Error::SplitRefused(_)) if matches!(op, SeqOp::Split { .. }) => {}
                Err(e) => {
                    assert!(
                        run.fault.faults_injected() > 0,
                        "step {step} {op:?} failed without an injected fault: {e}\n{}",
                        run.what
                    );
                    if injected_now(&run)
                        && op.is_write()
                        && matches!(header.countdown, Countdown::Fault(FaultKind::EioOnSync, _))
                    {
                        // A failed WAL fsync is never retried: writes are refused until
                        // the Db is reopened, even once the disk works again.
                        run.fault.clear_faults();
                        let later = cur.db.table(SEQ_TABLE).and_then(|t| {
                            t.put(&Put::new(seq_row(0)).add_column(b"cf", b"a", b"refused"))
                        });
                        assert!(
                            later.is_err(),
                            "step {step} {op:?}: a write after a failed WAL fsync was \
                             accepted\n{}",
                            run.what
                        );
                    }
                    if !op.is_write() {
                        // A failed flush, compaction or split changes no data: reads fail
                        // or see exactly the acknowledged state. (A split's region that
                        // stays closed is offline: reads of it fail at once.)
                        if let Ok(got) = seq_dump(&cur.db) {
                            assert!(
                                got == model,
                                "step {step}: after the failed {op:?} ({e}), a live scan \
                                 is not the acknowledged state: {}\n{}",
                                seq_diff(&got, &model),
                                run.what
                            );
                        }
                    }
                    failed = Some((step, op));
                    completed = false;
                    break;
                }
            },
        }
    }
    if completed && let Some(cur) = p.as_ref() {
        match seq_dump(&cur.db) {
            Ok(got) => assert!(
                got == model,
                "end: the live table is not the acknowledged state: {}\n{}",
                seq_diff(&got, &model),
                run.what
            ),
            Err(e) => assert!(
                run.fault.faults_injected() > 0,
                "end: scan failed without an injected fault: {e}\n{}",
                run.what
            ),
        }
    }

    // Power cut; recovery on the bare file system must succeed and hold the acknowledged
    // state, or it plus the failed op, whole.
    let p = run.crash_and_recover(p, "final");
    let exists = p.db.admin().table_exists(SEQ_TABLE);
    assert!(
        matches!(exists, Ok(true)),
        "final: the table vanished ({exists:?})\n{}",
        run.what
    );
    let got = seq_dump(&p.db)
        .unwrap_or_else(|e| panic!("final: scan after recovery failed: {e}\n{}", run.what));
    let with_failed = failed.map(|(step, op)| {
        let mut m = model.clone();
        seq_apply(&mut m, step, op);
        m
    });
    assert!(
        got == model || with_failed.as_ref() == Some(&got),
        "final: after {failed:?} the recovered table is neither the acknowledged state nor \
         it plus the failed op: {}\n{}",
        seq_diff(&got, &model),
        run.what
    );
    // Recovery is idempotent: cut the power again (nothing new was written) and reopen.
    let p = run.crash_and_recover(Some(p), "second recovery");
    let again = seq_dump(&p.db)
        .unwrap_or_else(|e| panic!("second recovery: scan failed: {e}\n{}", run.what));
    assert!(
        again == got,
        "a second recovery changed the table: {}\n{}",
        seq_diff(&again, &got),
        run.what
    );
    // The recovered Db takes writes, and they land after the recovered cells.
    run.clock.advance(1);
    let mut want = got;
    let after = SeqOp::Put {
        row: 0,
        family: 0,
        qualifier: 0,
        both_families: true,
    };
    seq_run(&p.db, ops.len(), after)
        .unwrap_or_else(|e| panic!("write after recovery: {e}\n{}", run.what));
    seq_apply(&mut want, ops.len(), after);
    let live = seq_dump(&p.db)
        .unwrap_or_else(|e| panic!("scan after the write after recovery: {e}\n{}", run.what));
    assert!(
        live == want,
        "the write after recovery is not visible over the recovered cells: {}\n{}",
        seq_diff(&live, &want),
        run.what
    );
    let p = run.crash_and_recover(Some(p), "after the write after recovery");
    let last =
        seq_dump(&p.db).unwrap_or_else(|e| panic!("last recovery: scan failed: {e}\n{}", run.what));
    assert!(
        last == want,
        "an acknowledged write after recovery was lost: {}\n{}",
        seq_diff(&last, &want),
        run.what
    );
}

/// Creates the table: families cf and cg (1 KiB blocks, so that files have several),
/// FSYNC_WAL.
fn seq_create(db: &Db) -> regionkv::Result<()> {
    let mut families = Vec::new();
    for f in SEQ_FAMILIES {
        let mut cf = ColumnFamilyDescriptor::new(f)?;
        cf.block_size = 1024;
        families.push(cf);
    }
    let mut d = TableDescriptor::new(SEQ_TABLE, families)?;
    d.set_attribute("DURABILITY", "FSYNC_WAL")?;
    db.admin().create_table(&d)
}

/// Seeds of `op_sequence`: hand-written sequences that cross flushes, compactions, splits
/// and power cuts, each with a countdown aimed (for the engine's I/O pattern when they
/// were written) at the middle of one of them. Names are file names for `seeds/`.
pub fn seed_op_sequence() -> Vec<(String, Vec<u8>)> {
    use SeqOp::*;
    let put = |row: u8, family: u8, qualifier: u8| Put {
        row,
        family,
        qualifier,
        both_families: false,
    };
    let put2 = |row: u8, qualifier: u8| Put {
        row,
        family: 0,
        qualifier,
        both_families: true,
    };
    let mutate = |row: u8, family: u8, qualifier: u8, del_family: u8, del_qualifier: u8| Mutate {
        row,
        family,
        qualifier,
        del_family,
        del_qualifier,
    };
    // Rows over the whole keyspace, both families: enough for several 1 KiB blocks.
    let fill = |ops: &mut Vec<SeqOp>, first: u8, step: u8, n: u8| {
        for i in 0..n {
            let row = (first + i * step) % SEQ_ROWS;
            ops.push(if i % 3 == 0 {
                put2(row, i % 4)
            } else {
                put(row, i & 1, i % 4)
            });
        }
    };
    let header = |countdown: Countdown, at: u16, mode: u8, clean: bool| SeqHeader {
        countdown,
        at,
        crash: SeqHeader::crash_byte(mode, 0, clean),
    };
    // CrashMode::all order.
    const DROP_UNSYNCED: u8 = 0;
    const RANDOM_PREFIX: u8 = 1;
    const TORN_PAGE: u8 = 2;
    const DIR_ENTRIES: u8 = 3;
    const KEEP_RENAMES: u8 = 4;
    let transient = |k: FaultKind| Countdown::Fault(k, Persistence::Transient);
    let persistent = |k: FaultKind| Countdown::Fault(k, Persistence::Persistent);

    // The long workload: flush, compaction, split, power cuts, a second split.
    let mut long = Vec::new();
    fill(&mut long, 0, 2, 12);
    long.push(Flush);
    fill(&mut long, 1, 3, 8);
    long.extend([
        DeleteRow { row: 4 },
        mutate(7, 1, 0, 0, 1),
        Flush,
        Compact,
        Split { row: 16 },
        put(20, 1, 2),
        put(3, 0, 2),
        CrashNow,
        DeleteFamily { row: 19, family: 0 },
        MajorCompact,
        Check,
        Split { row: 8 },
        Split { row: 24 },
        put(9, 1, 2),
        DeleteColumn {
            row: 25,
            family: 0,
            qualifier: 1,
        },
        CrashNow,
        Flush,
        MajorCompact,
        Check,
    ]);

    // Deletes of every kind, then flushes and a major compaction that drops the markers:
    // nothing deleted may come back, before or after a power cut.
    let mut deletes = Vec::new();
    fill(&mut deletes, 0, 1, 16);
    deletes.extend([
        Flush,
        DeleteColumn {
            row: 0,
            family: 0,
            qualifier: 0,
        },
        DeleteFamily { row: 3, family: 0 },
        DeleteRow { row: 6 },
        mutate(9, 0, 1, 1, 1),
        Flush,
        put(6, 1, 3),
        CrashNow,
        Compact,
        DeleteRow { row: 12 },
        put2(3, 0),
        MajorCompact,
        CrashNow,
        Check,
        Split { row: 6 },
        DeleteRow { row: 7 },
        put(6, 0, 0),
        CrashNow,
    ]);

    // Power cuts between single writes: many WAL replays.
    let mut choppy = Vec::new();
    for i in 0..6u8 {
        choppy.extend([
            put(i * 5, i & 1, i % 4),
            mutate(i * 5 + 1, 0, i % 4, 1, (i + 1) % 4),
            CrashNow,
            DeleteColumn {
                row: i * 5,
                family: i & 1,
                qualifier: i % 4,
            },
        ]);
        if i % 2 == 1 {
            choppy.push(Flush);
        }
        if i == 3 {
            choppy.extend([Split { row: 15 }, CrashNow, Compact]);
        }
    }
    choppy.push(Check);

    // Where the countdowns land (file-system operations after the table's creation, for
    // the engine these seeds were written with): in `long`, put 5 does ops 10–11, the
    // second flush 76–107, the minor compaction 108–153 and the first split 154–221; in
    // `choppy`, the reopen of the first power cut does 4–35 and put 9 113–114; in
    // `deletes`, the major compaction does 206–247.
    let seeds = [
        (
            "no_fault_long_drop_unsynced",
            header(Countdown::Off, 0, DROP_UNSYNCED, false),
            &long,
        ),
        (
            "no_fault_long_clean_close_keep_renames",
            header(Countdown::Off, 0, KEEP_RENAMES, true),
            &long,
        ),
        (
            "no_fault_deletes_torn_page",
            header(Countdown::Off, 0, TORN_PAGE, false),
            &deletes,
        ),
        (
            "no_fault_choppy_random_prefix",
            header(Countdown::Off, 0, RANDOM_PREFIX, false),
            &choppy,
        ),
        (
            "halt_mid_flush",
            header(Countdown::Halt, 90, DROP_UNSYNCED, false),
            &long,
        ),
        (
            "halt_mid_compaction_random_prefix",
            header(Countdown::Halt, 130, RANDOM_PREFIX, false),
            &long,
        ),
        (
            "halt_mid_split_dir_entries",
            header(Countdown::Halt, 190, DIR_ENTRIES, false),
            &long,
        ),
        (
            "eio_sync_on_put_is_refused",
            header(transient(FaultKind::EioOnSync), 10, DROP_UNSYNCED, false),
            &long,
        ),
        (
            "short_write_on_put_torn_page",
            header(transient(FaultKind::ShortWrite), 113, TORN_PAGE, false),
            &choppy,
        ),
        (
            "enospc_during_flush",
            header(persistent(FaultKind::NoSpace), 90, DROP_UNSYNCED, false),
            &long,
        ),
        (
            "rename_failure_during_major_compaction",
            header(transient(FaultKind::RenameFailure), 206, DIR_ENTRIES, false),
            &deletes,
        ),
        (
            "eio_write_during_recovery",
            header(transient(FaultKind::EioOnWrite), 10, DROP_UNSYNCED, false),
            &choppy,
        ),
    ];
    seeds
        .into_iter()
        .map(|(name, h, ops)| (name.to_string(), encode_op_sequence(h, ops)))
        .collect()
}

/// The Thrift1 gateway every `thrift_message` input is served by: one per process, over a
/// Db on a `MemFs` with a table `t` (families `cf`, `cg`), so calls reach real handlers.
fn thrift_service() -> &'static regionkv_gateway::thrift1::ThriftService {
    static SERVICE: std::sync::OnceLock<regionkv_gateway::thrift1::ThriftService> =
        std::sync::OnceLock::new();
    SERVICE.get_or_init(|| {
        let mem = MemFs::new();
        let options = DbOptions::default()
            .background(false)
            .clock(Arc::new(ManualClock::new(1_700_000_000_000)))
            .fs(Arc::new(mem));
        let db = Db::open("/db", options).expect("a Db on MemFs opens");
        let families = vec![
            ColumnFamilyDescriptor::new(b"cf").expect("valid family"),
            ColumnFamilyDescriptor::new(b"cg").expect("valid family"),
        ];
        let desc = TableDescriptor::new("t", families).expect("valid table");
        db.admin().create_table(&desc).expect("create");
        let config = regionkv_gateway::GatewayConfig {
            limits: regionkv_gateway::Limits {
                max_thrift_message: 1 << 20,
                max_scanners: 64,
                ..regionkv_gateway::Limits::default()
            },
            ..regionkv_gateway::GatewayConfig::default()
        };
        regionkv_gateway::thrift1::ThriftService::new(db, &config)
    })
}

/// `thrift_message`: `data` as everything a client sent on one connection to the Thrift1
/// gateway (any wire: the first bytes choose buffered or framed, binary or compact). The
/// server may answer anything or close, but must not panic, hang or allocate without bound
/// (messages and frames are limited to 1 MiB here).
pub fn thrift_message(data: &[u8]) {
    let _ = thrift_service().serve_bytes(data);
}

/// Seeds for `thrift_message`: a connection's worth of calls (create, mutate, get, scan,
/// increment, append, checkAndPut, an unknown method) encoded by the generated client, in
/// each of the four wires.
pub fn seed_thrift() -> Vec<(String, Vec<u8>)> {
    use regionkv_gateway::thrift1::generated::{
        ColumnDescriptor, HbaseSyncClient, Mutation, TAppend, THbaseSyncClient, TScan,
    };
    use std::cell::RefCell;
    use std::io::Write;
    use std::rc::Rc;
    use thrift::protocol::{
        TBinaryInputProtocol, TBinaryOutputProtocol, TCompactInputProtocol, TCompactOutputProtocol,
        TInputProtocol, TOutputProtocol,
    };
    use thrift::transport::TFramedWriteTransport;

    #[derive(Clone, Default)]
    struct Sink(Rc<RefCell<Vec<u8>>>);
    impl Write for Sink {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.borrow_mut().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut seeds = Vec::new();
    for (name, framed, compact) in [
        ("buffered_binary", false, false),
        ("buffered_compact", false, true),
        ("framed_binary", true, false),
        ("framed_compact", true, true),
    ] {
        let sink = Sink::default();
        let writer: Box<dyn Write> = if framed {
            Box::new(TFramedWriteTransport::new(sink.clone()))
        } else {
            Box::new(sink.clone())
        };
        // Replies are never read: every call fails after writing its request.
        let empty: &'static [u8] = &[];
        let (input, output): (Box<dyn TInputProtocol>, Box<dyn TOutputProtocol>) = if compact {
            (
                Box::new(TCompactInputProtocol::new(empty)),
                Box::new(TCompactOutputProtocol::new(writer)),
            )
        } else {
            (
                Box::new(TBinaryInputProtocol::new(empty, true)),
                Box::new(TBinaryOutputProtocol::new(writer, true)),
            )
        };
        let mut c = HbaseSyncClient::new(input, output);
        let attrs = BTreeMap::new;
        let put = |col: &str, v: &str| Mutation {
            is_delete: Some(false),
            column: Some(col.as_bytes().to_vec()),
            value: Some(v.as_bytes().to_vec()),
            write_to_w_a_l: Some(true),
        };
        let cd = ColumnDescriptor {
            name: Some(b"cf:".to_vec()),
            max_versions: Some(3),
            compression: Some("NONE".into()),
            in_memory: Some(false),
            bloom_filter_type: Some("ROW".into()),
            bloom_filter_vector_size: Some(0),
            bloom_filter_nb_hashes: Some(0),
            block_cache_enabled: Some(true),
            time_to_live: Some(-1),
        };
        let _ = c.create_table(b"u".to_vec(), vec![cd]);
        let _ = c.mutate_row(
            b"t".to_vec(),
            b"r1".to_vec(),
            vec![put("cf:a", "1"), put("cg:b", "2")],
            attrs(),
        );
        let _ = c.mutate_row_ts(
            b"t".to_vec(),
            b"r2".to_vec(),
            vec![put("cf:a", "x")],
            1000,
            attrs(),
        );
        let _ =
            c.get_row_with_columns(b"t".to_vec(), b"r1".to_vec(), vec![b"cf".to_vec()], attrs());
        let _ = c.get_ver_ts(
            b"t".to_vec(),
            b"r2".to_vec(),
            b"cf:a".to_vec(),
            2000,
            3,
            attrs(),
        );
        let scan = TScan {
            start_row: Some(b"r".to_vec()),
            stop_row: Some(b"s".to_vec()),
            timestamp: None,
            columns: Some(vec![b"cf:a".to_vec()]),
            caching: Some(10),
            filter_string: Some(b"PrefixFilter('r') AND KeyOnlyFilter()".to_vec()),
            batch_size: None,
            sort_columns: Some(true),
            reversed: Some(false),
            cache_blocks: None,
        };
        let _ = c.scanner_open_with_scan(b"t".to_vec(), scan, attrs());
        let _ = c.scanner_get_list(0, 10);
        let _ = c.scanner_close(0);
        let _ = c.atomic_increment(b"t".to_vec(), b"n".to_vec(), b"cf:c".to_vec(), 5);
        let _ = c.append(TAppend {
            table: Some(b"t".to_vec()),
            row: Some(b"r1".to_vec()),
            columns: Some(vec![b"cf:a".to_vec()]),
            values: Some(vec![b"z".to_vec()]),
        });
        let _ = c.check_and_put(
            b"t".to_vec(),
            b"r1".to_vec(),
            b"cf:a".to_vec(),
            b"1z".to_vec(),
            put("cf:a", "3"),
            attrs(),
        );
        let _ = c.delete_all_row_ts(b"t".to_vec(), b"r2".to_vec(), 1000, attrs());
        let _ = c.get_table_regions(b"t".to_vec());
        let bytes = sink.0.borrow().clone();
        seeds.push((format!("session_{name}"), bytes));
    }
    seeds
}
