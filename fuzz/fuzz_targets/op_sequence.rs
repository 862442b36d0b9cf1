//! libFuzzer target `op_sequence`: see `regionkv_fuzzing::op_sequence` for what it checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| regionkv_fuzzing::op_sequence(data));
