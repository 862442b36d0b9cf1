//! libFuzzer target `storefile_open`: see `regionkv_fuzzing::storefile_open` for what it checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| regionkv_fuzzing::storefile_open(data));
