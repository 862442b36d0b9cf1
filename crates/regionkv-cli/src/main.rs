//! The `regionkv` binary: the allocator, then [`regionkv_cli::run`], which is the whole
//! command line (see the library's docs for the subcommands).

use std::process::ExitCode;

/// mimalloc instead of the system allocator: glibc's 8-byte header and 16-byte rounding
/// cost a memstore skiplist node 8 to 16 bytes, a sixth of the index's memory
/// (`docs/benchmarks.md`, "MemStore"), and its small-object path is faster. Library users
/// choose their own allocator; the engine does not depend on this one, and neither does
/// this crate's library (so the fuzz harness linking it keeps the system allocator).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    regionkv_cli::run()
}
