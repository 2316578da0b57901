//! libFuzzer entry of [`netpress_fuzz::bgp_mrt`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| netpress_fuzz::bgp_mrt::fuzz(data));
