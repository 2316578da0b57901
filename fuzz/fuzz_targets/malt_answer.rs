//! libFuzzer entry of [`netpress_fuzz::malt_answer`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| netpress_fuzz::malt_answer::fuzz(data));
