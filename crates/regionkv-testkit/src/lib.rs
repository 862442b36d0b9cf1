//! Dev-only test kit for regionkv (never a normal dependency): helpers shared by the
//! workspace's tests. Depends on `regionkv-cell` and `regionkv-fs` only, so unit tests of
//! any crate may use it without a dependency cycle.
//!
//! Modules: [`model`] (the reference model of HBase's read semantics) and [`datadriven`]
//! (the golden-file notation: parse, compare, rewrite).

#![forbid(unsafe_code)]

pub mod datadriven;
pub mod model;

/// Every file under `dir`, recursively, in path order (tests that look for leftover or
/// damaged files in a data directory).
///
/// # Panics
///
/// When a directory cannot be read (a test's own temporary directory).
pub fn files_under(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(d) = dirs.pop() {
        let entries = std::fs::read_dir(&d)
            .unwrap_or_else(|e| panic!("reading directory {}: {e}", d.display()));
        for e in entries {
            let path = e
                .unwrap_or_else(|e| panic!("reading directory {}: {e}", d.display()))
                .path();
            if path.is_dir() {
                dirs.push(path);
            } else {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// Whether a golden-file runner should rewrite its expected outputs instead of comparing:
/// `REGIONKV_REWRITE=1`, the one flag of every golden runner in the workspace (pebble's
/// `-rewrite`). The shell's runner once read `REGIONKV_BLESS`; a run with that set fails
/// here rather than silently comparing, so an old habit cannot pass for a rewrite.
///
/// # Panics
///
/// When `REGIONKV_BLESS` is set.
pub fn rewrite_requested() -> bool {
    assert!(
        std::env::var_os("REGIONKV_BLESS").is_none(),
        "REGIONKV_BLESS was renamed: rewrite golden files with REGIONKV_REWRITE=1"
    );
    std::env::var("REGIONKV_REWRITE").is_ok_and(|v| v == "1")
}
