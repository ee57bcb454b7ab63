//! Replays the committed fuzz corpus (`fuzz/corpus/<target>/`) through the harness bodies of
//! `lustre_dne_intent_conformance::fuzzing`, without cargo-fuzz: every seed and every regression
//! input the campaigns kept must still hold (the `model_check` corpus is replayed by the model
//! crate's tests). Named regression tests for the campaign's findings follow.

#[path = "../../tests/common/mod.rs"]
mod common;

use common::*;
use lustre_dne_intent::error::{EncodeError, ErrorKind};
use lustre_dne_intent::intent::*;
use lustre_dne_intent::wire::{LockHandles, LustreHandle};
use lustre_dne_intent_conformance::fuzzing;
use std::fs;
use std::path::{Path, PathBuf};

fn corpus(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .join("fuzz/corpus")
        .join(target);
    let mut files: Vec<_> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let bytes = fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            (p, bytes)
        })
        .collect()
}

fn replay(target: &str, min_files: usize, harness: fn(&[u8])) {
    let files = corpus(target);
    assert!(
        files.len() >= min_files,
        "fuzz/corpus/{target}: {} files, expected at least {min_files}",
        files.len()
    );
    for (path, bytes) in &files {
        let r = std::panic::catch_unwind(|| harness(bytes));
        assert!(r.is_ok(), "{target}: {} fails", path.display());
    }
}

#[test]
fn corpus_decode_message() {
    replay("decode_message", 14, fuzzing::decode_message);
}

#[test]
fn corpus_decode_xattr() {
    replay("decode_xattr", 20, fuzzing::decode_xattr);
}

#[test]
fn corpus_roundtrip_bytes() {
    replay("roundtrip_bytes", 14, fuzzing::roundtrip_bytes);
}

#[test]
fn corpus_lock_intent_fill() {
    replay("lock_intent_fill", 36, fuzzing::lock_intent_fill);
}

#[test]
fn corpus_roundtrip_value() {
    replay("roundtrip_value", 24, fuzzing::roundtrip_value);
}

fn regression(target: &str, name: &str) -> Vec<u8> {
    let path = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .join("fuzz/corpus")
        .join(target)
        .join(name);
    fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

// ---- Findings of the campaign (fuzz/README.md), one test each ----

/// roundtrip_value finding 1: `PrepareRequest::validate` accepted an `ldlm_request.lock_count`
/// larger than the handles carried, which `LdlmRequest::decode_buffer` refuses; so a value that
/// encoded did not decode. The encoder now refuses it with the decoder's error.
#[test]
fn regression_lock_count_over_handles_is_refused_by_the_encoder() {
    let mut req = mkdir_request();
    req.ldlm.handles = LockHandles::from_slice(&[LustreHandle(1), LustreHandle(2)]).unwrap();
    req.ldlm.lock_count = 2;
    assert!(req.validate().is_ok(), "as many as the handles is fine");
    req.ldlm.lock_count = 3;
    let e = req.validate().expect_err("one more than the handles");
    assert_eq!(e.at.structure, "ldlm_request");
    assert_eq!(e.at.field, "lock_count");
    assert_eq!(e.kind, ErrorKind::OverLimit { value: 3, max: 2 });
    assert!(matches!(
        req.to_bytes(lustre_dne_intent::Endian::Little),
        Err(EncodeError::Invalid(d)) if d == e
    ));
    // The decoder says the same about the same bytes, at the same offset.
    let mut parts = ReqParts::from_value(&req, lustre_dne_intent::Endian::Little);
    parts.ldlm.lock_count = 3;
    let d = RequestView::parse(&parts.encode()).expect_err("decoder refuses");
    assert_eq!((d.at, d.kind), (e.at, e.kind));
    fuzzing::roundtrip_value(&regression(
        "roundtrip_value",
        "regress_lock_count_over_handles.bin",
    ));
}

/// roundtrip_bytes finding 1 (a harness finding): a name buffer with bytes after the NUL was
/// accepted then and re-encoded as name + NUL, so a buffer length shrank within its 8-byte
/// padding; the harness called that a change, and now compares buffer by buffer. Since
/// WIRE.md W5.15 (Lustre's `RMF_NAME` unpacking) the input is refused, at the first byte
/// after the NUL, and the harnesses still take it without a panic.
#[test]
fn regression_name_buffer_with_bytes_after_nul() {
    let bytes = regression("roundtrip_bytes", "regress_name_bytes_after_nul.bin");
    let msg = lustre_dne_intent::wire::MsgView::parse(&bytes).expect("framing is sound");
    let e = RequestView::parse(&bytes).expect_err("bytes after the NUL");
    assert_eq!(e.kind.rule().as_str(), "W5.15");
    assert!(
        matches!(e.kind, ErrorKind::NameTrailingBytes { nul: 1, len } if Some(len as u32) == msg.buflen(4)),
        "{e}"
    );
    fuzzing::roundtrip_bytes(&bytes);
    fuzzing::decode_message(&bytes);

    let mut parts = ReqParts::mkdir();
    parts.name = b"newdir\0junk".to_vec();
    let bytes = parts.encode();
    let e = RequestView::parse(&bytes).expect_err("bytes after the NUL");
    let junk = bytes.windows(4).position(|w| w == b"junk").unwrap();
    assert_eq!(
        (e.kind, e.at.structure, e.at.offset),
        (
            ErrorKind::NameTrailingBytes { nul: 6, len: 11 },
            "name",
            junk
        )
    );
    fuzzing::roundtrip_bytes(&bytes);
}

/// The `Arbitrary` implementations of the whole messages make mostly legal values, so that the
/// `roundtrip_value` campaign spends its time on round trips, not on rejected inputs.
#[test]
fn arbitrary_messages_are_mostly_valid() {
    use arbitrary::{Arbitrary, Unstructured};
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut noise = |n: usize| -> Vec<u8> {
        (0..n)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state as u8
            })
            .collect()
    };
    let (mut req_ok, mut rep_ok) = (0, 0);
    const N: usize = 500;
    for _ in 0..N {
        let data = noise(4096);
        let mut u = Unstructured::new(&data);
        if PrepareRequest::arbitrary(&mut u).is_ok_and(|r| r.validate().is_ok()) {
            req_ok += 1;
        }
        let mut u = Unstructured::new(&data);
        if PrepareReply::arbitrary(&mut u).is_ok_and(|r| r.validate(None).is_ok()) {
            rep_ok += 1;
        }
    }
    eprintln!("valid: {req_ok}/{N} requests, {rep_ok}/{N} replies");
    assert!(req_ok * 10 >= N * 8, "{req_ok}/{N} requests valid");
    assert!(rep_ok * 10 >= N * 8, "{rep_ok}/{N} replies valid");
}
