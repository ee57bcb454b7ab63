#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| lustre_dne_intent_fuzz::differential(data));
