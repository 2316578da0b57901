//! libFuzzer entry of [`netpress_fuzz::adapt_state`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| netpress_fuzz::adapt_state::fuzz(data));
