//! libFuzzer target `op_sequence`: see `regionkv_fuzz::op_sequence` for what it checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| regionkv_fuzz::op_sequence(data));
