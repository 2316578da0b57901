//! libFuzzer entry of [`netpress_fuzz::shell_tools`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| netpress_fuzz::shell_tools::fuzz(data));
