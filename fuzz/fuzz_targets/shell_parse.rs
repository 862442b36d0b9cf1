//! libFuzzer target `shell_parse`: see `regionkv_fuzzing::shell_parse` for what it checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| regionkv_fuzzing::shell_parse(data));
