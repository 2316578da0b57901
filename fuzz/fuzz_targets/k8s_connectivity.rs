//! libFuzzer entry of [`netpress_fuzz::k8s_connectivity`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| netpress_fuzz::k8s_connectivity::fuzz(data));
