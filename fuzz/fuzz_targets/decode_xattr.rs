#![no_main]
libfuzzer_sys::fuzz_target!(
    |data: &[u8]| lustre_dne_intent_conformance::fuzzing::decode_xattr(data)
);
