//! libFuzzer entry of [`netpress_fuzz::worker_protocol`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| netpress_fuzz::worker_protocol::fuzz(data));
