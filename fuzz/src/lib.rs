//! The bodies of regionkv's fuzz targets, kept in a library so that the same code runs under
//! libFuzzer (`cargo +nightly fuzz run TARGET`, one thin file per target in
//! `fuzz_targets/`) and on a stable toolchain in the workspace's `tests/fuzz_replay.rs`, which replays the seed
//! corpus, any saved corpus or crash artifacts, and a few hundred pseudo-random inputs.
//!
//! The rule every target checks: a storefile reader fed arbitrary bytes may return any
//! `Err`, but must never panic, loop forever or allocate without bound. The round-trip
//! target additionally checks that what the writer writes, the reader reads back.

use regionkv_cell::{Cell, CellType, KeyValueScanner, KeyView, compare_keys};
use regionkv_fs::{Fs, MemFs};
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

#[allow(dead_code, clippy::all)]
#[path = "../../crates/regionkv-cli/src/shell/parse.rs"]
mod shell_parse_impl;

/// Parses `data` (as UTF-8, lossily) as a shell script with the shell's parser, and asks
/// whether it is complete, as the interactive shell does after every line.
pub fn shell_parse(data: &[u8]) {
    let src = String::from_utf8_lossy(data);
    let _ = shell_parse_impl::parse_program(&src, 1);
    let _ = shell_parse_impl::completeness(&src);
}

/// The files of a small Db that wrote, flushed, split and compacted, by kind: WAL logs,
/// region manifests (with region info and, for daughters, references) and catalogs.
fn seed_db_files() -> (
    Vec<(String, Vec<u8>)>,
    Vec<(String, Vec<u8>)>,
    Vec<(String, Vec<u8>)>,
) {
    use regionkv::{
        ColumnFamilyDescriptor, Db, DbOptions, Delete, ManualClock, Put, TableDescriptor,
    };
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
