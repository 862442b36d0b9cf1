//! Store files for HBase (what `export-hfiles` writes): the writer's store-file mode
//! (Blooms, time range, delete-family count) checked by the structural checker, read back
//! through the Blooms, and compared in shape with the real HBase fixtures, which the checker
//! also accepts.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use regionkv_cell::CellType;
use regionkv_fs::{Fs, MemFs};
use regionkv_hfile::block::BlockType;
use regionkv_hfile::bloom::{BloomType, row_col_hash_key};
use regionkv_hfile::check::check;
use regionkv_hfile::file_info::keys;
use regionkv_hfile::key::KeyRef;
use regionkv_hfile::{Compression, HFileReader, HFileWriter, HFileWriterOptions};

fn key(row: &[u8], qualifier: &[u8], ts: i64, t: CellType) -> Vec<u8> {
    KeyRef {
        row,
        family: b"cf",
        qualifier,
        timestamp: ts,
        type_byte: t.code(),
    }
    .to_vec()
    .unwrap()
}

/// Writes `rows` rows of two columns (plus a DeleteFamily every 1000th row) with `opts`.
fn write(rows: u32, opts: HFileWriterOptions) -> (MemFs, HFileReader) {
    let fs = MemFs::new();
    let path = PathBuf::from("/f");
    let mut w = HFileWriter::new(fs.create_new(&path).unwrap(), opts);
    for i in 0..rows {
        let row = format!("row{i:08}");
        if i % 1000 == 0 {
            w.append(
                &key(row.as_bytes(), b"", 50, CellType::DeleteFamily),
                b"",
                &[],
                0,
            )
            .unwrap();
        }
        for q in [&b"a"[..], b"b"] {
            w.append(
                &key(row.as_bytes(), q, 100 + i64::from(i % 7), CellType::Put),
                b"value",
                &[],
                0,
            )
            .unwrap();
        }
    }
    w.finish().unwrap();
    let r = HFileReader::open(fs.open_read(Path::new("/f")).unwrap()).unwrap();
    (fs, r)
}

fn store_opts(bloom: Option<BloomType>, compression: Compression) -> HFileWriterOptions {
    HFileWriterOptions {
        compression,
        store_file: true,
        bloom,
        delete_family_bloom: true,
        include_tags: true,
        ..HFileWriterOptions::default()
    }
}

/// 250 000 rows fill three ROW Bloom chunks (about 109 000 keys each at HBase's defaults);
/// every row is found, absent rows mostly are not, and the checker accepts the file.
#[test]
fn a_row_bloom_over_several_chunks() {
    let (_fs, r) = write(250_000, store_opts(Some(BloomType::Row), Compression::Lz4));
    let s = check(&r).unwrap();
    assert_eq!(s.general_bloom, Some(("ROW".to_string(), 3)));
    assert_eq!(s.delete_family_bloom, Some(1));
    assert_eq!(s.cells, 500_250);
    let bloom = r.load_bloom(BlockType::GeneralBloomMeta).unwrap().unwrap();
    assert_eq!(bloom.meta.total_key_count, 250_000);
    assert_eq!(bloom.meta.hash_count, 7);
    assert!(bloom.meta.comparator.is_empty());
    let fp = (0..20_000u32)
        .filter(|i| {
            let row = format!("absent{i}");
            bloom.may_contain(row.as_bytes(), row.as_bytes())
        })
        .count();
    assert!(fp < 600, "{fp} false positives of 20000 (1% expected)");
    let fi = r.file_info();
    assert_eq!(fi.get(keys::BLOOM_FILTER_TYPE), Some(&b"ROW"[..]));
    assert_eq!(fi.get(keys::LAST_BLOOM_KEY), Some(&b"row00249999"[..]));
    assert_eq!(fi.get_i64(keys::DELETE_FAMILY_COUNT), Some(250));
    // A DeleteFamily widens the time range down to 0 (HBase's TimeRangeTracker).
    let range = fi.get(keys::TIMERANGE).unwrap();
    assert_eq!(&range[..8], &0i64.to_be_bytes());
    assert_eq!(&range[8..], &106i64.to_be_bytes());
    assert_eq!(fi.get_i64(keys::EARLIEST_PUT_TS), Some(100));
    // Bloom chunks sit among the data blocks, metas after FileInfo.
    let shape = s.shape();
    assert!(shape.contains("BLOOM_CHUNK"), "{shape}");
    assert!(
        shape.ends_with("ROOT_INDEXx2 FILE_INFO GENERAL_BLOOM_META DELETE_FAMILY_BLOOM_META"),
        "{shape}"
    );
}

/// A ROWCOL Bloom: (row, qualifier) pairs, chunk keys are cell keys, no delete-family
/// Bloom (HBase writes none beside a ROWCOL one).
#[test]
fn a_rowcol_bloom() {
    let (_fs, r) = write(3000, store_opts(Some(BloomType::RowCol), Compression::Gz));
    let s = check(&r).unwrap();
    assert_eq!(s.general_bloom, Some(("ROWCOL".to_string(), 1)));
    assert_eq!(s.delete_family_bloom, None);
    let bloom = r.load_bloom(BlockType::GeneralBloomMeta).unwrap().unwrap();
    assert_eq!(
        bloom.meta.comparator,
        "org.apache.hadoop.hbase.CellComparatorImpl"
    );
    // 3000 rows × (a, b) plus the empty qualifier of each DeleteFamily row.
    assert_eq!(bloom.meta.total_key_count, 6003);
    let chunk_key = KeyRef {
        row: b"row00000010",
        family: b"cf",
        qualifier: b"b",
        timestamp: i64::MAX,
        type_byte: 255,
    }
    .to_vec()
    .unwrap();
    assert!(bloom.may_contain(&chunk_key, &row_col_hash_key(b"row00000010", b"b")));
    let last = r.file_info().get(keys::LAST_BLOOM_KEY).unwrap();
    assert_eq!(
        regionkv_hfile::key::key_to_string(last),
        "row00002999/cf:b/9223372036854775807/Maximum"
    );
}

/// Without store-file mode nothing of the store-file layer is written (the bare HFile the
/// byte-identical fixture test relies on); without a Bloom type only the delete-family
/// Bloom is.
#[test]
fn bare_and_bloomless_files() {
    let (_fs, r) = write(2000, HFileWriterOptions::default());
    let s = check(&r).unwrap();
    assert!(
        !s.file_info_keys
            .iter()
            .any(|k| k == "TIMERANGE" || k == "DELETE_FAMILY_COUNT")
    );
    assert_eq!((s.general_bloom, s.delete_family_bloom), (None, None));
    let (_fs, r) = write(2000, store_opts(None, Compression::None));
    let s = check(&r).unwrap();
    assert_eq!(
        (s.general_bloom.clone(), s.delete_family_bloom),
        (None, Some(1))
    );
    assert!(s.file_info_keys.iter().any(|k| k == "TIMERANGE"));
}

/// The checker accepts every real HBase fixture but the one whose trailer names Hudi's own
/// comparator (HBase's reader could not load that class), and our files have the fixtures'
/// shape for the same settings.
#[test]
fn the_checker_accepts_hbase_s_files_and_ours_match_their_shape() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".hfile"))
        .collect();
    names.sort();
    assert_eq!(names.len(), 9);
    let fs = regionkv_fs::RealFs::new();
    for name in &names {
        let r = HFileReader::open(fs.open_read(&dir.join(name)).unwrap()).unwrap();
        match check(&r) {
            Ok(s) => assert!(s.cells > 0, "{name}"),
            Err(e) => {
                assert!(name.contains("no_entry"), "{name}: {e}");
                assert!(e.to_string().contains("HoodieHBaseKVComparator"), "{e}");
            }
        }
    }
    // Same cells, same settings as the 16 KiB GZ fixture: the same block sequence.
    let theirs = HFileReader::open(
        fs.open_read(&dir.join("hudi_1_0_hbase_2_4_9_16KB_GZ_20000.hfile"))
            .unwrap(),
    )
    .unwrap();
    let mem = MemFs::new();
    let mut w = HFileWriter::new(
        mem.create_new(Path::new("/o")).unwrap(),
        HFileWriterOptions {
            block_size: 16 * 1024,
            compression: Compression::Gz,
            ..Default::default()
        },
    );
    let mut scanner = theirs.scanner();
    while let Some(c) = scanner.next_cell().unwrap() {
        w.append(&c.key, &c.value, &c.tags, c.mvcc).unwrap();
    }
    for e in theirs.meta_index() {
        w.add_meta_block(&e.key, theirs.meta_block(&e.key).unwrap().unwrap());
    }
    w.finish().unwrap();
    let ours = HFileReader::open(mem.open_read(Path::new("/o")).unwrap()).unwrap();
    let (a, b) = (check(&theirs).unwrap(), check(&ours).unwrap());
    assert_eq!(a.shape(), b.shape());
    assert_eq!(a.index_levels, b.index_levels);
}

/// Damage the checker catches that a plain read does not: a wrong trailer count.
#[test]
fn the_checker_catches_a_wrong_entry_count() {
    let (fs, _) = write(100, store_opts(Some(BloomType::Row), Compression::None));
    let mut bytes = fs.contents(Path::new("/f")).unwrap();
    let r = HFileReader::open(fs.open_read(Path::new("/f")).unwrap()).unwrap();
    let mut t = r.trailer().clone();
    t.proto.entry_count = Some(99);
    let trailer = t.encode().unwrap();
    let at = bytes.len() - trailer.len();
    bytes[at..].copy_from_slice(&trailer);
    let fs2 = MemFs::new();
    regionkv_fs::write_atomic(&fs2, Path::new("/g"), &bytes).unwrap();
    let r = HFileReader::open(fs2.open_read(Path::new("/g")).unwrap()).unwrap();
    let e = check(&r).unwrap_err();
    assert!(e.to_string().contains("entry count Some(99)"), "{e}");
}
