#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| lustre_dne_intent::fuzzing::model_check(data));
