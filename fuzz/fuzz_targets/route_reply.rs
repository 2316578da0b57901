//! libFuzzer entry of [`netpress_fuzz::route_reply`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| netpress_fuzz::route_reply::fuzz(data));
