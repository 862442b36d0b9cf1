//! Writes the seed corpus under `seeds/<target>/` (next to this crate's Cargo.toml):
//! valid storefiles for `storefile_open` and `storefile_open_crc_fixed`, block bodies and
//! framed blocks for `block_decode`, encoded cell lists for `storefile_roundtrip`, the WAL
//! logs, manifests and catalogs of a small Db for `wal_read`, `manifest_decode` and
//! `catalog_decode`, and shell scripts for `shell_parse`.
//! Deterministic: running it again rewrites the same bytes.
//!
//! Run (stable is fine): `cargo run --release --example gen_seeds` from `fuzz/`.

use std::path::PathBuf;

fn main() -> std::io::Result<()> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("seeds");
    let files = regionkv_fuzzing::seed_storefiles();
    let sets = [
        ("storefile_open", files.clone()),
        ("storefile_open_crc_fixed", files),
        ("block_decode", regionkv_fuzzing::seed_blocks()),
        ("storefile_roundtrip", regionkv_fuzzing::seed_roundtrip()),
        ("wal_read", regionkv_fuzzing::seed_wals()),
        ("manifest_decode", regionkv_fuzzing::seed_manifests()),
        ("catalog_decode", regionkv_fuzzing::seed_catalogs()),
        ("shell_parse", regionkv_fuzzing::seed_shell()),
        ("op_sequence", regionkv_fuzzing::seed_op_sequence()),
        ("thrift_message", regionkv_fuzzing::seed_thrift()),
    ];
    for (target, seeds) in sets {
        let dir = root.join(target);
        std::fs::create_dir_all(&dir)?;
        for (name, bytes) in &seeds {
            std::fs::write(dir.join(name), bytes)?;
        }
        println!("{}: {} seeds", dir.display(), seeds.len());
    }
    Ok(())
}
