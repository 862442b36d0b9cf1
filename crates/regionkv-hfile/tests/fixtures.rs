//! The nine HFiles real HBase 2.4 wrote (`tests/fixtures/`, provenance in FIXTURES.md) read
//! end to end: trailer, every block's CRC32C, every index level, every cell, point lookups,
//! and lookups between blocks (where the shortened "fake" index keys of minor version 3
//! catch an off-by-one). Damaged copies are errors naming the offset, never panics.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use regionkv_fs::{Fs, MemFs, RealFs, write_atomic};
use regionkv_hfile::block::BlockType;
use regionkv_hfile::file_info::keys;
use regionkv_hfile::key::{KeyRef, compare_encoded};
use regionkv_hfile::{Compression, Error, HFileCell, HFileReader};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn open(name: &str) -> HFileReader {
    let path = fixture(name);
    assert!(path.exists(), "fixture {} missing", path.display());
    HFileReader::open(RealFs::new().open_read(&path).unwrap()).unwrap()
}

fn all_cells(r: &HFileReader) -> Vec<HFileCell> {
    let mut s = r.scanner();
    let mut out = Vec::new();
    while let Some(c) = s.next_cell().unwrap() {
        out.push(c);
    }
    out
}

/// What FIXTURES.md records of each file.
struct Expect {
    name: &'static str,
    codec: Compression,
    data_blocks: usize,
    levels: u32,
    root_entries: usize,
    cells: usize,
    rows: usize,
    mid_key_metadata: Option<(u64, u32, u32)>,
}

const FIXTURES: &[Expect] = &[
    Expect {
        name: "hudi_1_0_hbase_2_4_9_no_entry.hfile",
        codec: Compression::Gz,
        data_blocks: 0,
        levels: 1,
        root_entries: 0,
        cells: 0,
        rows: 0,
        mid_key_metadata: None,
    },
    Expect {
        name: "hudi_1_0_hbase_2_4_9_16KB_NONE_5000.hfile",
        codec: Compression::None,
        data_blocks: 18,
        levels: 1,
        root_entries: 18,
        cells: 5000,
        rows: 5000,
        mid_key_metadata: None,
    },
    Expect {
        name: "hudi_1_0_hbase_2_4_9_64KB_NONE_5000.hfile",
        codec: Compression::None,
        data_blocks: 5,
        levels: 1,
        root_entries: 5,
        cells: 5000,
        rows: 5000,
        mid_key_metadata: None,
    },
    Expect {
        name: "hudi_1_0_hbase_2_4_9_16KB_GZ_20000.hfile",
        codec: Compression::Gz,
        data_blocks: 72,
        levels: 1,
        root_entries: 72,
        cells: 20000,
        rows: 20000,
        mid_key_metadata: None,
    },
    Expect {
        name: "hudi_1_0_hbase_2_4_9_512KB_GZ_20000.hfile",
        codec: Compression::Gz,
        data_blocks: 3,
        levels: 1,
        root_entries: 3,
        cells: 20000,
        rows: 20000,
        mid_key_metadata: None,
    },
    Expect {
        name: "hudi_1_0_hbase_2_4_9_16KB_GZ_200_20_non_unique.hfile",
        codec: Compression::Gz,
        data_blocks: 16,
        levels: 1,
        root_entries: 16,
        cells: 4200,
        rows: 200,
        mid_key_metadata: None,
    },
    Expect {
        name: "hudi_1_0_hbase_2_4_13_16KB_GZ_20000_fake_first_key.hfile",
        codec: Compression::Gz,
        data_blocks: 86,
        levels: 1,
        root_entries: 86,
        cells: 20000,
        rows: 20000,
        mid_key_metadata: None,
    },
    Expect {
        name: "hudi_1_0_hbase_2_4_13_1KB_GZ_20000_large_keys.hfile",
        codec: Compression::Gz,
        data_blocks: 2858,
        levels: 2,
        root_entries: 4,
        cells: 20000,
        rows: 20000,
        mid_key_metadata: Some((273842, 9194, 535)),
    },
    Expect {
        name: "hudi_1_0_hbase_2_4_13_1KB_GZ_10000_large_keys_deep_index.hfile",
        codec: Compression::Gz,
        data_blocks: 1429,
        levels: 3,
        root_entries: 7,
        cells: 10000,
        rows: 10000,
        mid_key_metadata: Some((121427, 270, 0)),
    },
];

#[test]
fn every_fixture_reads_as_fixtures_md_records_it() {
    for e in FIXTURES {
        let r = open(e.name);
        let t = r.trailer();
        assert_eq!((t.major, t.minor), (3, 3), "{}", e.name);
        assert_eq!(t.compression, e.codec, "{}", e.name);
        assert_eq!(t.index_levels(), e.levels, "{}", e.name);
        assert_eq!(r.data_index_root().len(), e.root_entries, "{}", e.name);
        assert_eq!(
            r.mid_key_metadata()
                .map(|m| (m.leaf_offset, m.leaf_size, m.entry)),
            e.mid_key_metadata,
            "{}",
            e.name
        );
        assert!(r.includes_mvcc() && !r.includes_tags(), "{}", e.name);

        // Every data block, in file order, checksums verified.
        let blocks: Vec<_> = r.data_blocks().map(Result::unwrap).collect();
        assert_eq!(blocks.len(), e.data_blocks, "{}", e.name);
        // The index's bottom level names exactly the blocks a sequential walk meets.
        let index = r.data_index_entries().unwrap();
        assert_eq!(
            index
                .iter()
                .map(|x| (x.offset, u64::from(x.on_disk_size)))
                .collect::<Vec<_>>(),
            blocks
                .iter()
                .map(|b| (b.offset, b.header.on_disk_size()))
                .collect::<Vec<_>>(),
            "{}",
            e.name
        );

        let cells = all_cells(&r);
        assert_eq!(cells.len(), e.cells, "{}", e.name);
        assert_eq!(t.entry_count(), e.cells as u64, "{}", e.name);
        let mut rows: Vec<&[u8]> = cells.iter().map(|c| c.key_ref().unwrap().row).collect();
        rows.dedup();
        assert_eq!(rows.len(), e.rows, "{}", e.name);
        for pair in cells.windows(2) {
            assert_ne!(
                compare_encoded(&pair[0].key, &pair[1].key),
                std::cmp::Ordering::Greater,
                "{}: out of order",
                e.name
            );
        }
        for c in &cells {
            let k = c.key_ref().unwrap();
            assert!(k.row.starts_with(b"hudi-key-"), "{}", e.name);
            assert!(k.family.is_empty() && k.qualifier.is_empty());
            assert_eq!((k.timestamp, k.type_byte), (i64::MAX, 4));
            assert!(c.value.starts_with(b"hudi-value-"));
            assert_eq!(c.mvcc, 0);
        }
        match cells.first() {
            Some(first) => {
                let row = first.key_ref().unwrap().row;
                assert!(
                    row.ends_with(b"000000000") || row.starts_with(b"hudi-key-000000000"),
                    "{}: {}",
                    e.name,
                    String::from_utf8_lossy(row)
                );
                assert_eq!(
                    r.last_key(),
                    Some(cells.last().unwrap().key.as_slice()),
                    "{}",
                    e.name
                );
                // The first index entry is the real first key (HBase never shortens it).
                assert_eq!(index[0].key, first.key, "{}", e.name);
            }
            None => assert_eq!(r.last_key(), None),
        }
        // The FileInfo keys every fixture has.
        let info = r.file_info();
        assert_eq!(info.get_i32(keys::KEY_VALUE_VERSION), Some(1));
        assert_eq!(info.get_i64(keys::MAX_MEMSTORE_TS_KEY), Some(0));
        assert_eq!(info.get_i64(keys::CREATE_TIME_TS), Some(0));
        assert!(info.get_i32(keys::AVG_KEY_LEN).is_some());
        // The one META block, Hudi's bloom filter.
        assert_eq!(r.meta_index().len(), 1, "{}", e.name);
        assert!(r.meta_block(b"bloomFilter").unwrap().is_some());
        assert!(r.meta_block(b"nothing").unwrap().is_none());
    }
}

#[test]
fn point_lookups_find_every_997th_cell_and_keys_between_blocks_land_on_the_next_block() {
    for e in FIXTURES.iter().filter(|e| e.cells > 0) {
        let r = open(e.name);
        let cells = all_cells(&r);
        for c in cells.iter().step_by(997) {
            let mut s = r.scanner();
            s.seek(&c.key).unwrap();
            assert_eq!(
                s.next_cell().unwrap().as_ref().map(|x| &x.key),
                Some(&c.key),
                "{}",
                e.name
            );
        }
        // Between the last cell of each block and the first of the next: the row plus a
        // zero byte sorts after the block's last row and before the next distinct row.
        let blocks: Vec<Vec<HFileCell>> = r
            .data_blocks()
            .map(|b| r.block_cells(&b.unwrap()).unwrap())
            .collect();
        let mut checked = 0;
        for pair in blocks.windows(2) {
            let (last, next) = (pair[0].last().unwrap(), &pair[1][0]);
            let k = last.key_ref().unwrap();
            let mut row = k.row.to_vec();
            row.push(0);
            let probe = KeyRef { row: &row, ..k }.to_vec().unwrap();
            if compare_encoded(&probe, &next.key) == std::cmp::Ordering::Greater {
                continue; // the next block starts with that very row (equal-key runs)
            }
            let mut s = r.scanner();
            s.seek(&probe).unwrap();
            assert_eq!(s.next_cell().unwrap().as_ref(), Some(next), "{}", e.name);
            checked += 1;
        }
        assert!(
            checked + 1 >= blocks.len() / 2,
            "{}: {checked} boundaries checked",
            e.name
        );
        // Before everything: the first cell; after everything: nothing.
        let mut s = r.scanner();
        s.seek(
            &KeyRef {
                row: b"a",
                family: b"",
                qualifier: b"",
                timestamp: 0,
                type_byte: 4,
            }
            .to_vec()
            .unwrap(),
        )
        .unwrap();
        assert_eq!(s.next_cell().unwrap().as_ref(), cells.first());
        s.seek(
            &KeyRef {
                row: b"z",
                family: b"",
                qualifier: b"",
                timestamp: 0,
                type_byte: 4,
            }
            .to_vec()
            .unwrap(),
        )
        .unwrap();
        assert_eq!(s.next_cell().unwrap(), None);
    }
}

#[test]
fn the_fake_key_fixture_s_index_holds_shortened_keys() {
    let r = open("hudi_1_0_hbase_2_4_13_16KB_GZ_20000_fake_first_key.hfile");
    let index = r.data_index_entries().unwrap();
    let shortened = index
        .iter()
        .filter(|e| KeyRef::parse(&e.key).unwrap().type_byte == 255)
        .count();
    assert_eq!(
        shortened,
        index.len() - 1,
        "every block but the first has a fake key"
    );
    let example = index
        .iter()
        .find(|e| KeyRef::parse(&e.key).unwrap().row == b"hudi-key-00000047")
        .expect("FIXTURES.md's example fake key");
    assert_eq!(KeyRef::parse(&example.key).unwrap().timestamp, i64::MAX);
}

#[test]
fn mid_keys_are_the_middle_leaf_entries() {
    for name in [
        "hudi_1_0_hbase_2_4_13_1KB_GZ_20000_large_keys.hfile",
        "hudi_1_0_hbase_2_4_13_1KB_GZ_10000_large_keys_deep_index.hfile",
    ] {
        let r = open(name);
        let index = r.data_index_entries().unwrap();
        let mid = r.mid_key().unwrap().unwrap();
        assert_eq!(mid, index[(index.len() - 1) / 2].key, "{name}");
    }
}

#[test]
fn a_single_level_index_s_mid_key_is_root_entry_count_over_two() {
    // HBase's BlockIndexReader.midkey: blockKeys[rootCount / 2]; 18 root entries give
    // entry 9, 5 give entry 2.
    for (name, at) in [
        ("hudi_1_0_hbase_2_4_9_16KB_NONE_5000.hfile", 9),
        ("hudi_1_0_hbase_2_4_9_64KB_NONE_5000.hfile", 2),
    ] {
        let r = open(name);
        let root = r.data_index_root();
        assert_eq!(r.mid_key().unwrap().unwrap(), root[at].key, "{name}");
    }
    assert_eq!(
        open("hudi_1_0_hbase_2_4_9_no_entry.hfile")
            .mid_key()
            .unwrap(),
        None
    );
}

#[test]
fn trailers_and_file_info_re_encode_to_hbase_s_bytes() {
    for e in FIXTURES {
        let path = fixture(e.name);
        let bytes = std::fs::read(&path).unwrap();
        let r = open(e.name);
        let t = r.trailer();
        assert_eq!(
            t.encode().unwrap(),
            bytes[t.offset as usize..],
            "{}: trailer",
            e.name
        );
        let info = r
            .load_on_open_blocks()
            .iter()
            .find(|b| b.header.block_type == BlockType::FileInfo)
            .unwrap();
        let block = r.read_block(info.offset, None).unwrap();
        assert_eq!(
            r.file_info().encode(),
            block.payload,
            "{}: FileInfo",
            e.name
        );
    }
}

/// Copies a fixture into a MemFs so a test can damage it.
fn in_memory(name: &str) -> (MemFs, PathBuf, Vec<u8>) {
    let bytes = std::fs::read(fixture(name)).unwrap();
    let fs = MemFs::new();
    let path = PathBuf::from("/f.hfile");
    write_atomic(&fs, &path, &bytes).unwrap();
    (fs, path, bytes)
}

fn read_all(fs: &MemFs, path: &Path) -> Result<usize, Error> {
    let r = HFileReader::open(fs.open_read(path)?)?;
    let mut n = 0;
    let mut s = r.scanner();
    while s.next_cell()?.is_some() {
        n += 1;
    }
    r.data_index_entries()?;
    r.mid_key()?;
    for e in r.meta_index() {
        r.meta_block(&e.key)?;
    }
    Ok(n)
}

#[test]
fn a_flipped_bit_in_a_data_block_is_a_checksum_error_naming_the_block() {
    let (fs, path, mut bytes) = in_memory("hudi_1_0_hbase_2_4_9_16KB_NONE_5000.hfile");
    bytes[20_000] ^= 0x10; // inside the second data block (each is 16443 bytes on disk)
    write_atomic(&fs, &path, &bytes).unwrap();
    match read_all(&fs, &path) {
        Err(Error::ChecksumMismatch {
            offset,
            block,
            kind,
            ..
        }) => {
            assert_eq!((offset, block, kind), (16443, "DATA", "CRC32C"));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn every_single_byte_flip_of_a_small_file_is_handled_without_panic() {
    let (fs, path, bytes) = in_memory("hudi_1_0_hbase_2_4_9_no_entry.hfile");
    assert_eq!(read_all(&fs, &path).unwrap(), 0);
    let trailer_at = open("hudi_1_0_hbase_2_4_9_no_entry.hfile").trailer().offset as usize;
    let mut missed = Vec::new();
    for i in 0..bytes.len() {
        let mut damaged = bytes.clone();
        damaged[i] ^= 0xff;
        write_atomic(&fs, &path, &damaged).unwrap();
        // Every block byte is under a checksum; the trailer's protobuf fields are not, and
        // some of their values are only advisory (as in HBase).
        if read_all(&fs, &path).is_ok() && i < trailer_at {
            missed.push(i);
        }
    }
    assert!(
        missed.is_empty(),
        "undetected flips in blocks at {missed:?}"
    );
}

#[test]
fn truncated_files_are_errors() {
    let (fs, path, bytes) = in_memory("hudi_1_0_hbase_2_4_9_64KB_NONE_5000.hfile");
    for len in [0, 3, 100, 4095, bytes.len() / 2, bytes.len() - 1] {
        write_atomic(&fs, &path, &bytes[..len]).unwrap();
        assert!(read_all(&fs, &path).is_err(), "{len} bytes");
    }
    // Not an HFile at all.
    write_atomic(&fs, &path, &[0u8; 5000]).unwrap();
    assert!(matches!(
        read_all(&fs, &path),
        Err(Error::NotAnHFile { .. })
    ));
}

#[test]
fn reads_through_a_shared_file_handle() {
    // The reader holds an Arc of the file; two readers share one handle.
    let file = RealFs::new()
        .open_read(&fixture("hudi_1_0_hbase_2_4_9_64KB_NONE_5000.hfile"))
        .unwrap();
    let a = HFileReader::open(Arc::clone(&file)).unwrap();
    let b = HFileReader::open(file).unwrap();
    assert_eq!(all_cells(&a), all_cells(&b));
}

/// Rewrites `name`'s cells, meta blocks and extra FileInfo with our writer and `opts`.
fn rewrite(name: &str, opts: regionkv_hfile::HFileWriterOptions) -> (HFileReader, Vec<u8>) {
    use regionkv_hfile::HFileWriter;
    let original = open(name);
    let fs = MemFs::new();
    let path = PathBuf::from("/out.hfile");
    let mut w = HFileWriter::new(fs.create_new(&path).unwrap(), opts);
    for c in all_cells(&original) {
        w.append(&c.key, &c.value, &c.tags, c.mvcc).unwrap();
    }
    for e in original.meta_index() {
        let content = original.meta_block(&e.key).unwrap().unwrap();
        w.add_meta_block(&e.key, content);
    }
    for (k, v) in &original.file_info().entries {
        if !k.starts_with(b"hfile.")
            && k.as_slice() != keys::KEY_VALUE_VERSION
            && k.as_slice() != keys::MAX_MEMSTORE_TS_KEY
        {
            w.set_file_info(k, v.clone());
        }
    }
    let summary = w.finish().unwrap();
    let bytes = fs.contents(&path).unwrap();
    assert_eq!(summary.len, bytes.len() as u64);
    (original, bytes)
}

#[test]
fn the_writer_reproduces_hbase_s_uncompressed_files_byte_for_byte() {
    for (name, block_size) in [
        ("hudi_1_0_hbase_2_4_9_16KB_NONE_5000.hfile", 16 * 1024),
        ("hudi_1_0_hbase_2_4_9_64KB_NONE_5000.hfile", 64 * 1024),
    ] {
        let opts = regionkv_hfile::HFileWriterOptions {
            block_size,
            ..Default::default()
        };
        let (_, ours) = rewrite(name, opts);
        let theirs = std::fs::read(fixture(name)).unwrap();
        assert_eq!(ours.len(), theirs.len(), "{name}: length");
        let first_diff = ours.iter().zip(&theirs).position(|(a, b)| a != b);
        assert_eq!(first_diff, None, "{name}: first differing byte");
    }
}

/// Everything about a file that compression does not change: block boundaries, cells,
/// index keys and levels, FileInfo, the trailer's counts (uncompressed sizes included).
fn structure(r: &HFileReader) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let t = &r.trailer().proto;
    let _ = writeln!(
        out,
        "levels={:?} root={:?} meta={:?} entries={:?} index_bytes={:?} total_uncompressed={:?} codec={:?}",
        t.num_data_index_levels,
        t.data_index_count,
        t.meta_index_count,
        t.entry_count,
        t.uncompressed_data_index_size,
        t.total_uncompressed_bytes,
        t.compression_codec
    );
    let _ = writeln!(out, "mid entry={:?}", r.mid_key_metadata().map(|m| m.entry));
    for b in r.data_blocks() {
        let b = b.unwrap();
        let _ = writeln!(
            out,
            "block {} cells={}",
            b.payload.len(),
            crc32c::crc32c(&b.payload)
        );
    }
    for e in r.data_index_entries().unwrap() {
        let _ = writeln!(out, "index {}", regionkv_hfile::key::key_to_string(&e.key));
    }
    for e in r.data_index_root() {
        let _ = writeln!(out, "root {}", regionkv_hfile::key::key_to_string(&e.key));
    }
    for b in r.load_on_open_blocks() {
        let _ = writeln!(
            out,
            "load-on-open {} {}",
            b.header.block_type.name(),
            b.header.uncompressed_size_without_header
        );
    }
    for (k, v) in &r.file_info().entries {
        let _ = writeln!(out, "info {} = {v:?}", String::from_utf8_lossy(k));
    }
    out
}

#[test]
fn the_writer_gives_hbase_s_compressed_files_the_same_structure() {
    const KB: usize = 1024;
    // (file, BLOCKSIZE, hfile.index.block.max.size, hfile.index.block.min.entries)
    let cases = [
        ("hudi_1_0_hbase_2_4_9_no_entry.hfile", 64 * KB, 128 * KB, 16),
        (
            "hudi_1_0_hbase_2_4_9_16KB_GZ_20000.hfile",
            16 * KB,
            128 * KB,
            16,
        ),
        (
            "hudi_1_0_hbase_2_4_9_512KB_GZ_20000.hfile",
            512 * KB,
            128 * KB,
            16,
        ),
        (
            "hudi_1_0_hbase_2_4_9_16KB_GZ_200_20_non_unique.hfile",
            16 * KB,
            128 * KB,
            16,
        ),
        (
            "hudi_1_0_hbase_2_4_13_16KB_GZ_20000_fake_first_key.hfile",
            16 * KB,
            128 * KB,
            16,
        ),
        (
            "hudi_1_0_hbase_2_4_13_1KB_GZ_20000_large_keys.hfile",
            KB,
            128 * KB,
            16,
        ),
        // Three levels: written with a small hfile.index.block.max.size (2048, found by
        // matching the leaf count) and a hfile.index.block.min.entries below 15 (its first
        // intermediate block holds 15 entries, which the default 16 forbids).
        (
            "hudi_1_0_hbase_2_4_13_1KB_GZ_10000_large_keys_deep_index.hfile",
            KB,
            2 * KB,
            2,
        ),
    ];
    for (name, block_size, index_block_max_size, index_min_entries) in cases {
        let opts = regionkv_hfile::HFileWriterOptions {
            block_size,
            index_block_max_size,
            index_min_entries,
            compression: Compression::Gz,
            ..Default::default()
        };
        let (original, ours) = rewrite(name, opts);
        let fs = MemFs::new();
        write_atomic(&fs, Path::new("/ours"), &ours).unwrap();
        let ours = HFileReader::open(fs.open_read(Path::new("/ours")).unwrap()).unwrap();
        let (a, b) = (structure(&original), structure(&ours));
        let diff = a.lines().zip(b.lines()).find(|(x, y)| x != y);
        assert_eq!(diff, None, "{name}: first differing line");
        assert_eq!(a.lines().count(), b.lines().count(), "{name}");
        // The comparator is HBase's (the empty fixture carries Hudi's own).
        assert_eq!(
            ours.trailer().comparator(),
            "org.apache.hadoop.hbase.KeyValue$KVComparator"
        );
    }
}
