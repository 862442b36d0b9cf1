//! libFuzzer target `block_decode`: see `regionkv_fuzz::block_decode` for what it checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| regionkv_fuzz::block_decode(data));
