//! Corruption: every single-byte change anywhere in a storefile (header, data block, index
//! levels, bloom, file info, trailer) is detected as an error naming the file and an
//! offset — never a panic, never a silently wrong answer — and a file truncated at any
//! length is rejected on open.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use regionkv_cell::{Cell, KeyValueScanner, OwnedKey};
use regionkv_fs::{Fs, MemFs, ReadMode, RealFs};
use regionkv_storefile::{
    BloomType, Compression, DataBlockEncoding, Error, ReaderOptions, StoreFileBlockCache,
    StoreFileReader, StoreFileScanner, StoreFileWriter, StoreFileWriterOptions,
};
use std::path::Path;
use std::sync::Arc;

const ROWS: u32 = 60;

fn write(fs: &dyn Fs, path: &Path, options: StoreFileWriterOptions) -> Vec<Cell> {
    let tags = options.include_tags;
    let mut w = StoreFileWriter::new(fs.create_new(path).unwrap(), options).unwrap();
    let mut cells = Vec::new();
    for i in 0..ROWS {
        let c = Cell::put(
            format!("row{i:04}").as_bytes(),
            b"cf",
            b"q",
            7,
            format!("value{i}").as_bytes(),
        )
        .unwrap()
        .with_seq_id(u64::from(i));
        // In a file with tags, every third cell carries a cell TTL.
        let c = if tags && i % 3 == 0 {
            c.with_tags(regionkv_cell::tag::with_ttl(&[], Some(i64::from(i) * 1000)))
                .unwrap()
        } else {
            c
        };
        w.append(c.as_cell_ref()).unwrap();
        cells.push(c);
    }
    w.finish().unwrap();
    cells
}

/// Reads everything the file has: open, full scan, a seek per row (touching every index
/// path), blooms and the midkey. Returns the cells a full scan produced, or the first error.
fn read_everything(fs: &dyn Fs, path: &Path, cache: bool) -> Result<Vec<Cell>, Error> {
    let cache = cache.then(|| Arc::new(StoreFileBlockCache::new(1 << 20)));
    let reader = Arc::new(StoreFileReader::open(
        fs,
        path,
        1,
        cache,
        ReaderOptions::default(),
    )?);
    let mut s = StoreFileScanner::new(reader.clone());
    let mut out = Vec::new();
    s.seek_to_first()?;
    while let Some(c) = s.peek() {
        out.push(c.to_cell());
        s.advance()?;
    }
    for i in 0..ROWS {
        let row = format!("row{i:04}");
        reader.may_contain_row(row.as_bytes());
        s.seek(&OwnedKey::first_on_row(row.as_bytes()).unwrap().view())?;
    }
    reader.midkey()?;
    Ok(out)
}

fn options_matrix() -> Vec<StoreFileWriterOptions> {
    vec![
        // Tiny blocks and index blocks: several data blocks and a 3-level index.
        StoreFileWriterOptions {
            block_size: 1024,
            index_block_size: 64,
            bloom_type: BloomType::Row,
            ..Default::default()
        },
        StoreFileWriterOptions {
            block_size: 1024,
            index_block_size: 64,
            compression: Compression::Lz4,
            encoding: DataBlockEncoding::Prefix,
            bloom_type: BloomType::RowCol,
            ..Default::default()
        },
        // Format version 2: entries carry tag runs.
        StoreFileWriterOptions {
            block_size: 1024,
            index_block_size: 64,
            encoding: DataBlockEncoding::Prefix,
            bloom_type: BloomType::Row,
            include_tags: true,
            ..Default::default()
        },
        // Format version 3: LZ4 blocks in parts (each part and each part table has its own
        // checksum), with and without tags.
        StoreFileWriterOptions {
            block_size: 1024,
            part_size: 256,
            index_block_size: 64,
            compression: Compression::Lz4,
            encoding: DataBlockEncoding::Prefix,
            bloom_type: BloomType::Row,
            ..Default::default()
        },
        StoreFileWriterOptions {
            block_size: 2048,
            part_size: 256,
            index_block_size: 128,
            compression: Compression::Lz4,
            bloom_type: BloomType::RowCol,
            include_tags: true,
            ..Default::default()
        },
    ]
}

#[test]
fn every_byte_flip_is_detected_with_file_and_offset() {
    for (n, options) in options_matrix().into_iter().enumerate() {
        let fs = MemFs::new();
        let path = Path::new("/sf");
        let cells = write(&fs, path, options);
        assert_eq!(read_everything(&fs, path, false).unwrap(), cells);
        let pristine = fs.contents(path).unwrap();
        assert!(pristine.len() > 1000, "file of {} bytes", pristine.len());
        for offset in 0..pristine.len() as u64 {
            for (mask, cache) in [(0x01u8, false), (0x80, true)] {
                fs.corrupt(path, offset, mask).unwrap();
                match read_everything(&fs, path, cache) {
                    Ok(got) => panic!(
                        "options #{n}: flip {mask:#x} at {offset} went unnoticed ({} cells, equal={})",
                        got.len(),
                        got == cells
                    ),
                    Err(e) => {
                        assert!(e.is_corruption(), "options #{n} offset {offset}: {e}");
                        let msg = e.to_string();
                        assert!(msg.contains("/sf"), "no path in: {msg}");
                        assert!(msg.contains("offset"), "no offset in: {msg}");
                    }
                }
                fs.corrupt(path, offset, mask).unwrap(); // undo
            }
        }
        assert_eq!(fs.contents(path).unwrap(), pristine);
    }
}

#[test]
fn truncation_at_every_length_is_rejected_on_open() {
    let fs = MemFs::new();
    let path = Path::new("/sf");
    write(&fs, path, options_matrix().remove(0));
    let pristine = fs.contents(path).unwrap();
    for len in 0..pristine.len() {
        let cut = format!("/cut{len}");
        let mut f = fs.create_new(Path::new(&cut)).unwrap();
        f.append(&pristine[..len]).unwrap();
        drop(f);
        let r = StoreFileReader::open(&fs, Path::new(&cut), 1, None, ReaderOptions::default());
        let e = r.expect_err("a truncated file opened");
        assert!(e.is_corruption(), "len {len}: {e}");
        fs.remove_file(Path::new(&cut)).unwrap();
    }
}

#[test]
fn other_kinds_of_files_are_rejected() {
    let fs = MemFs::new();
    for (name, bytes) in [
        ("/empty", Vec::new()),
        ("/text", b"hello world, this is not a storefile at all, not even close to one .....................................".to_vec()),
        ("/zeros", vec![0u8; 4096]),
    ] {
        let mut f = fs.create_new(Path::new(name)).unwrap();
        f.append(&bytes).unwrap();
        drop(f);
        let e = StoreFileReader::open(&fs, Path::new(name), 1, None, ReaderOptions::default())
            .unwrap_err();
        assert!(matches!(e, Error::NotAStoreFile { .. }), "{name}: {e}");
    }
}

#[test]
fn corruption_is_detected_through_real_files_in_both_read_modes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sf");
    for mode in [ReadMode::Mmap, ReadMode::Pread] {
        let fs = RealFs::with_read_mode(mode);
        let _ = std::fs::remove_file(&path);
        write(&fs, &path, options_matrix().remove(0));
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[100] ^= 0x10; // inside the first data block
        std::fs::write(&path, &bytes).unwrap();
        let e = read_everything(&fs, &path, false).unwrap_err();
        assert!(
            matches!(e, Error::ChecksumMismatch { offset: 0, .. }),
            "{mode:?}: {e}"
        );
    }
}
