//! libFuzzer target `storefile_roundtrip`: see `regionkv_fuzzing::storefile_roundtrip` for what it checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| regionkv_fuzzing::storefile_roundtrip(data));
