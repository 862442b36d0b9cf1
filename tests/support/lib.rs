//! Shared helpers for regionkv's workspace-level integration tests and benchmarks.
//!
//! The root package exists to own `tests/` and `benches/`; this library is deliberately
//! small so that test files stay self-describing.
