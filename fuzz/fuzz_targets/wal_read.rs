//! libFuzzer target `wal_read`: see `regionkv_fuzzing::wal_read` for what it checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| regionkv_fuzzing::wal_read(data));
