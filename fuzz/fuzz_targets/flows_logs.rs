//! libFuzzer entry of [`netpress_fuzz::flows_logs`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| netpress_fuzz::flows_logs::fuzz(data));
