//! libFuzzer entry of [`netpress_fuzz::bgp_episode`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| netpress_fuzz::bgp_episode::fuzz(data));
