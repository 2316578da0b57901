//! libFuzzer entry of [`netpress_fuzz::agent_replies`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| netpress_fuzz::agent_replies::fuzz(data));
