//! libFuzzer entry of [`netpress_fuzz::ui_link`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| netpress_fuzz::ui_link::fuzz(data));
