//! The fuzz targets of `fuzz/` (storefile reader, block decoder, storefile round trip, WAL
//! reader, manifest and catalog decoders, shell parser, operation sequences against a model
//! with a fault countdown and power cuts), whose bodies are the `regionkv-fuzzing` crate
//! (crates/regionkv-fuzzing), replayed by a plain
//! `cargo test` on the stable toolchain: every committed seed under `fuzz/seeds/<target>/`,
//! every saved corpus input or crash artifact that exists locally, and a fixed-seed batch
//! of mutated seeds (bit flips, truncations, random bytes). Coverage-guided fuzzing itself
//! needs nightly and runs from `fuzz/` (see fuzz/README.md); what it finds is saved under
//! `fuzz/artifacts/` and replayed here.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

type Target = fn(&[u8]);

const TARGETS: [(&str, Target); 10] = [
    ("storefile_open", regionkv_fuzzing::storefile_open),
    (
        "storefile_open_crc_fixed",
        regionkv_fuzzing::storefile_open_crc_fixed,
    ),
    ("block_decode", regionkv_fuzzing::block_decode),
    ("storefile_roundtrip", regionkv_fuzzing::storefile_roundtrip),
    ("wal_read", regionkv_fuzzing::wal_read),
    ("manifest_decode", regionkv_fuzzing::manifest_decode),
    ("catalog_decode", regionkv_fuzzing::catalog_decode),
    ("shell_parse", regionkv_fuzzing::shell_parse),
    ("op_sequence", regionkv_fuzzing::op_sequence),
    ("thrift_message", regionkv_fuzzing::thrift_message),
];

/// Committed seeds that reproduce an engine bug still open, by target and file name. They
/// are left out of the replay and of the mutation batch, so that the suite stays green, and
/// each is run by its own `#[ignore]`d regression test below, which fails until the bug is
/// fixed. Once it is: delete the entry and the test's `ignore`.
const OPEN_BUGS: [(&str, &str); 0] = [];

fn is_open_bug(target: &str, path: &Path) -> bool {
    OPEN_BUGS
        .iter()
        .any(|(t, name)| *t == target && path.file_name().is_some_and(|n| n == *name))
}

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| e.path())
                .filter(|p| p.is_file())
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

fn fuzz_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fuzz")
}

#[test]
fn committed_seeds_and_saved_inputs_replay_without_panicking() {
    for (target, run) in TARGETS {
        let seeds = files_under(&fuzz_dir().join("seeds").join(target));
        assert!(!seeds.is_empty(), "{target}: no committed seeds");
        let mut n = 0;
        for dir in ["seeds", "corpus", "artifacts"] {
            for path in files_under(&fuzz_dir().join(dir).join(target)) {
                if is_open_bug(target, &path) {
                    continue;
                }
                run(&std::fs::read(&path).unwrap());
                n += 1;
            }
        }
        eprintln!("{target}: {n} inputs replayed");
    }
}

#[test]
fn the_committed_seeds_are_what_the_generators_write() {
    // A format change must regenerate the seeds (`cargo run --example gen_seeds` in fuzz/),
    // or the replay would exercise stale bytes.
    let sets = [
        ("block_decode", regionkv_fuzzing::seed_blocks()),
        ("storefile_open", regionkv_fuzzing::seed_storefiles()),
        ("storefile_roundtrip", regionkv_fuzzing::seed_roundtrip()),
        ("shell_parse", regionkv_fuzzing::seed_shell()),
        ("catalog_decode", regionkv_fuzzing::seed_catalogs()),
        ("op_sequence", regionkv_fuzzing::seed_op_sequence()),
    ];
    for (target, seeds) in sets {
        for (name, bytes) in seeds {
            let path = fuzz_dir().join("seeds").join(target).join(&name);
            let on_disk = std::fs::read(&path)
                .unwrap_or_else(|e| panic!("{}: {e} (regenerate the seeds)", path.display()));
            assert_eq!(
                on_disk,
                bytes,
                "{} is stale (regenerate the seeds)",
                path.display()
            );
        }
    }
}

#[test]
fn mutated_seeds_do_not_panic() {
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for (target, run) in TARGETS {
        let seeds: Vec<Vec<u8>> = files_under(&fuzz_dir().join("seeds").join(target))
            .iter()
            .filter(|p| !is_open_bug(target, p))
            .map(|p| std::fs::read(p).unwrap())
            .collect();
        for round in 0..200 {
            let mut input = seeds[round % seeds.len()].clone();
            let len = input.len().max(1) as u64;
            match next() % 4 {
                0 | 1 => {
                    for _ in 0..=next() % 4 {
                        let at = (next() % len) as usize;
                        if let Some(b) = input.get_mut(at) {
                            *b ^= 1 << (next() % 8);
                        }
                    }
                }
                2 => input.truncate((next() % (len + 1)) as usize),
                _ => input = (0..next() % 2048).map(|_| next() as u8).collect(),
            }
            run(&input);
        }
    }
}

/// Trailer bytes `[len - 60, len - 52)`: the data block count (trailer offset 40..48).
const DATA_BLOCK_COUNT_FIELD: std::ops::Range<usize> = 40..48;

fn none_row_3() -> Vec<u8> {
    regionkv_fuzzing::seed_storefiles()
        .into_iter()
        .find(|(name, _)| name == "none_row_3")
        .expect("the none_row_3 seed")
        .1
}

#[test]
fn crc_fixed_byte_changes_reach_the_parsers_without_panicking() {
    // Every single-byte change of a small valid file, with checksums fixed: an exhaustive
    // sweep of the parsers behind the checksums for one shape.
    let file = none_row_3();
    for at in 0..file.len() {
        for x in [0x01u8, 0x80, 0xff] {
            let mut input = file.clone();
            input[at] ^= x;
            regionkv_fuzzing::storefile_open_crc_fixed(&input);
        }
    }
}

/// Regression, found by `storefile_open_crc_fixed`: `StoreFileReader::from_file` sized its
/// per-block "checksum verified" state from the trailer's data block count without
/// bounding it by the file's length, so a trailer with a valid CRC and a large count made
/// it allocate up to 2^61 bytes and abort the process. The trailer now bounds the count by
/// the data section's size, and opening such a file is a corruption error.
#[test]
fn regression_trailer_data_block_count_allocation() {
    let file = none_row_3();
    let mut input = file.clone();
    // Most significant byte of the count: 1 → 2^56 blocks → a 2^53-byte bitmap.
    input[file.len() - 100 + DATA_BLOCK_COUNT_FIELD.start] ^= 0x01;
    regionkv_fuzzing::storefile_open_crc_fixed(&input);
}

/// Regression, found by `op_sequence` (minimized to its seed
/// `regression-split-catalog-rollback`: a transient EIO on fsync armed at file-system
/// operation 28 after the table's creation, which the catalog's directory fsync is the
/// first sync to reach; a clean close, then a crash that keeps every rename
/// (`KeepRenamesDropData`); and one op, `split_at("t", b"row16")` of the empty table).
///
/// The split's commit point is the catalog's atomic replace (write `CATALOG.tmp`, fsync
/// it, rename it over `CATALOG`, fsync the directory). When the directory fsync failed the
/// rename had already happened, but the split rolled back: it deleted the daughters'
/// directories that the `CATALOG` in place named, so the next open failed with "the region
/// directory has no manifest". A failed commit now reads the catalog back: unchanged → roll
/// back; the new one → retry the directory fsync, and if that fails too the commit is
/// uncertain (`Error::CatalogUncertain`): nothing is deleted, the regions stay offline and
/// the next open settles which catalog survived.
#[test]
fn regression_split_catalog_rollback() {
    let path = fuzz_dir()
        .join("seeds")
        .join("op_sequence")
        .join("regression-split-catalog-rollback");
    regionkv_fuzzing::op_sequence(&std::fs::read(path).unwrap());
}
