//! libFuzzer entry of [`netpress_fuzz::flows_api`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| netpress_fuzz::flows_api::fuzz(data));
