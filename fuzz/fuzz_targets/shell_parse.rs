//! libFuzzer target `shell_parse`: see `regionkv_fuzz::shell_parse` for what it checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| regionkv_fuzz::shell_parse(data));
