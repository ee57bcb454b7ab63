#![no_main]
// decode_message's harness with a structure-aware mutator: three mutations in four work at the
// protocol level (fields, result states, lengths, byte order); the rest, and any input that
// does not frame, go to libFuzzer's own byte-level mutation.
use libfuzzer_sys::{fuzz_mutator, fuzz_target, fuzzer_mutate};

fuzz_target!(|data: &[u8]| lustre_dne_intent_conformance::fuzzing::decode_message(data));

fuzz_mutator!(|data: &mut [u8], size: usize, max_size: usize, seed: u32| {
    if seed.is_multiple_of(4) {
        return fuzzer_mutate(data, size, max_size);
    }
    match lustre_dne_intent_conformance::fuzzing::mutate::mutate_message(data, size, max_size, seed)
    {
        0 => fuzzer_mutate(data, size, max_size),
        n => n,
    }
});
