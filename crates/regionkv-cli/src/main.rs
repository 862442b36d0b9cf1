//! The `regionkv` binary (placeholder during workspace setup).
fn main() {}
