//! libFuzzer entry of [`netpress_fuzz::malt_api`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| netpress_fuzz::malt_api::fuzz(data));
