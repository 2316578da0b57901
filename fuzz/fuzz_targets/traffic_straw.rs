//! libFuzzer entry of [`netpress_fuzz::traffic_straw`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| netpress_fuzz::traffic_straw::fuzz(data));
