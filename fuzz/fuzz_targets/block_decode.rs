//! libFuzzer target `block_decode`: see `regionkv_fuzzing::block_decode` for what it checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| regionkv_fuzzing::block_decode(data));
