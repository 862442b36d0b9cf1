//! Stable-toolchain replay of the fuzz targets (no libFuzzer, no instrumentation):
//!
//! 1. the seed corpus, generated in memory (the same bytes `gen_seeds` writes);
//! 2. every file under `seeds/<target>/`, `corpus/<target>/` and `artifacts/<target>/`
//!    that exists, so a crash found on a nightly machine can be replayed here;
//! 3. pseudo-random inputs: random bytes, and seed files with a few bytes flipped (raw and
//!    with checksums fixed), from a fixed-seed xorshift, so every run is the same.
//!
//! Run from `fuzz/`: `cargo test --release` (add `-- --nocapture` to see counts).

use std::path::{Path, PathBuf};

type Target = fn(&[u8]);

const TARGETS: [(&str, Target); 8] = [
    ("storefile_open", regionkv_fuzz::storefile_open),
    (
        "storefile_open_crc_fixed",
        regionkv_fuzz::storefile_open_crc_fixed,
    ),
    ("block_decode", regionkv_fuzz::block_decode),
    ("storefile_roundtrip", regionkv_fuzz::storefile_roundtrip),
    ("wal_read", regionkv_fuzz::wal_read),
    ("manifest_decode", regionkv_fuzz::manifest_decode),
    ("catalog_decode", regionkv_fuzz::catalog_decode),
    ("shell_parse", regionkv_fuzz::shell_parse),
];

struct XorShift(u64);

impl XorShift {
    fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }
}

fn seeds_of(target: &str) -> Vec<(String, Vec<u8>)> {
    match target {
        "storefile_open" | "storefile_open_crc_fixed" => regionkv_fuzz::seed_storefiles(),
        "block_decode" => regionkv_fuzz::seed_blocks(),
        "wal_read" => regionkv_fuzz::seed_wals(),
        "manifest_decode" => regionkv_fuzz::seed_manifests(),
        "catalog_decode" => regionkv_fuzz::seed_catalogs(),
        "shell_parse" => regionkv_fuzz::seed_shell(),
        _ => regionkv_fuzz::seed_roundtrip(),
    }
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

#[test]
fn seeds_and_saved_inputs_do_not_panic() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    for (target, run) in TARGETS {
        let seeds = seeds_of(target);
        assert!(!seeds.is_empty(), "{target}: no seeds");
        for (_, bytes) in &seeds {
            run(bytes);
        }
        let mut saved = 0;
        for dir in ["seeds", "corpus", "artifacts"] {
            for path in files_under(&root.join(dir).join(target)) {
                let bytes = std::fs::read(&path).expect("read a saved input");
                eprintln!("replaying {}", path.display());
                run(&bytes);
                saved += 1;
            }
        }
        println!(
            "{target}: {} generated seeds, {saved} saved inputs",
            seeds.len()
        );
    }
}

#[test]
fn mutated_seeds_do_not_panic() {
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
    for (target, run) in TARGETS {
        let seeds = seeds_of(target);
        for round in 0..300 {
            let (_, seed) = &seeds[round % seeds.len()];
            let mut input = seed.clone();
            match rng.below(4) {
                // A few flipped bytes anywhere.
                0 | 1 => {
                    for _ in 0..=rng.below(4) {
                        let at = rng.below(input.len());
                        if let Some(b) = input.get_mut(at) {
                            *b ^= 1 << rng.below(8);
                        }
                    }
                }
                // Truncated.
                2 => input.truncate(rng.below(input.len() + 1)),
                // Random bytes of a random length.
                _ => {
                    input = (0..rng.below(4096)).map(|_| rng.next_u64() as u8).collect();
                }
            }
            run(&input);
        }
        println!("{target}: 300 mutated inputs");
    }
}

/// Trailer bytes `[len - 60, len - 52)`: the data block count (trailer offset 40..48).
const DATA_BLOCK_COUNT_FIELD: std::ops::Range<usize> = 40..48;

#[test]
fn crc_fixed_byte_changes_reach_the_parsers_without_panicking() {
    // Every single-byte change of a small valid file, with checksums fixed: an exhaustive
    // sweep of the parsers behind the checksums for one shape.
    let files = regionkv_fuzz::seed_storefiles();
    let (_, file) = files
        .iter()
        .find(|(name, _)| name == "none_row_3")
        .expect("the none_row_3 seed");
    for at in 0..file.len() {
        for x in [0x01u8, 0x80, 0xff] {
            let mut input = file.clone();
            input[at] ^= x;
            regionkv_fuzz::storefile_open_crc_fixed(&input);
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
    let files = regionkv_fuzz::seed_storefiles();
    let (_, file) = files
        .iter()
        .find(|(name, _)| name == "none_row_3")
        .expect("the none_row_3 seed");
    let mut input = file.clone();
    // Most significant byte of the count: 1 → 2^56 blocks → a 2^53-byte bitmap.
    input[file.len() - 100 + DATA_BLOCK_COUNT_FIELD.start] ^= 0x01;
    regionkv_fuzz::storefile_open_crc_fixed(&input);
}
