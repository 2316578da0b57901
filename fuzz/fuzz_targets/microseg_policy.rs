//! libFuzzer entry of [`netpress_fuzz::microseg_policy`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| netpress_fuzz::microseg_policy::fuzz(data));
