//! libFuzzer target `manifest_decode`: see `regionkv_fuzzing::manifest_decode` for what it checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| regionkv_fuzzing::manifest_decode(data));
