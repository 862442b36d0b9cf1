//! libFuzzer target `thrift_message`: see `regionkv_fuzzing::thrift_message` for what it checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| regionkv_fuzzing::thrift_message(data));
