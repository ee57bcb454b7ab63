//! Hostile input: every single-bit flip and every truncation of every message decodes to a value
//! or an error, never a panic; the fuzz harnesses hold over built messages and golden vectors,
//! and every flip and truncation of every xattr vector survives `decode_xattr`.

#[path = "../../tests/common/mod.rs"]
mod common;

use common::*;
use lustre_dne_intent_conformance::fuzzing;

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

#[test]
fn every_bit_flip_and_truncation_of_every_payload_is_survived() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../testdata");
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .expect("testdata")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("xattr_"))
                && p.extension().is_some_and(|e| e == "bin")
        })
        .collect();
    paths.sort();
    assert!(paths.len() >= 20, "the xattr vectors");
    for p in paths {
        let mut m = std::fs::read(&p).expect("readable vector");
        fuzzing::decode_xattr(&m);
        for cut in 0..m.len() {
            fuzzing::decode_xattr(&m[..cut]);
        }
        // Every bit of the headers and first entries, and of the tail: the middle of the large
        // ACL vector is more of the same entries, and flipping it all takes seconds in debug.
        let len = m.len();
        for byte in (0..len).filter(|&b| b < 512 || b + 64 >= len) {
            for bit in 0..8 {
                m[byte] ^= 1 << bit;
                fuzzing::decode_xattr(&m);
                m[byte] ^= 1 << bit;
            }
        }
    }
}
