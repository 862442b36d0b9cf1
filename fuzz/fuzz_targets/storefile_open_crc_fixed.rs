//! libFuzzer target `storefile_open_crc_fixed`: see `regionkv_fuzzing::storefile_open_crc_fixed` for what it checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| regionkv_fuzzing::storefile_open_crc_fixed(data));
