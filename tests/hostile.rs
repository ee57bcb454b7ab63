//! Hostile input: every single-bit flip and every truncation of every message decodes to a value
//! or an error, never a panic; the fuzz harnesses hold over built messages and golden vectors.

mod common;

use common::*;
use lustre_dne_intent::fuzzing;

#[test]
fn every_bit_flip_and_truncation_is_survived() {
    let msgs = messages();
    assert!(msgs.len() >= 4);
    for (name, bytes) in &msgs {
        for cut in 0..bytes.len() {
            fuzzing::decode_message(&bytes[..cut]);
        }
        let mut m = bytes.clone();
        for bit in 0..m.len() * 8 {
            m[bit / 8] ^= 1 << (bit % 8);
            fuzzing::decode_message(&m);
            fuzzing::roundtrip_bytes(&m);
            m[bit / 8] ^= 1 << (bit % 8);
        }
        assert_eq!(&m, bytes, "{name}: sweep restored the input");
    }
}

#[test]
fn harnesses_hold_on_every_message() {
    for (_, bytes) in messages() {
        fuzzing::decode_message(&bytes);
        fuzzing::roundtrip_bytes(&bytes);
        for caps in [[0u8; 6], [108, 255, 4, 255, 10, 24], [255; 6]] {
            let mut input = caps.to_vec();
            input.extend_from_slice(&bytes);
            fuzzing::lock_intent_fill(&input);
        }
    }
}
