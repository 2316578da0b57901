//! libFuzzer entry of [`netpress_fuzz::bgp_ripestat`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| netpress_fuzz::bgp_ripestat::fuzz(data));
