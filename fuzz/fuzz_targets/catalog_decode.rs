//! libFuzzer target `catalog_decode`: see `regionkv_fuzzing::catalog_decode` for what it checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| regionkv_fuzzing::catalog_decode(data));
