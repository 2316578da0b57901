//! libFuzzer entry of [`netpress_fuzz::env_protocol`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| netpress_fuzz::env_protocol::fuzz(data));
