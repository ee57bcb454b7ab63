#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| lustre_dne_intent_model::fuzz_check(data));
