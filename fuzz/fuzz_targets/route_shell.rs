//! libFuzzer entry of [`netpress_fuzz::route_shell`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| netpress_fuzz::route_shell::fuzz(data));
