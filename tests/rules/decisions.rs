//! The readings WIRE.md had left open and now settles: longer fixed
//! structures (§3), FIDs that count as zero (§3, in the `rules` tests), a stripe LMV with a FID
//! table and a byte-swapped component magic (§9). Each test pins one decision with its values.

use crate::common::*;
use lustre_dne_intent::intent::*;
use lustre_dne_intent::wire::*;
use lustre_dne_intent::xattr::*;
use lustre_dne_intent::{Endian, ErrorKind};

fn testdata(name: &str) -> Vec<u8> {
    let path = format!("{}/testdata/{name}.bin", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// An `ldlm_intent` longer than 8 bytes is accepted as Lustre's `lustre_msg_buf` accepts it (a
/// minimum size); its tail is ignored and the canonical form writes 8 bytes.
#[test]
fn longer_ldlm_intent_is_accepted_and_canonicalised() {
    let canonical = ReqParts::mkdir().encode();
    let mut p = ReqParts::mkdir();
    let mut intent = IntentOpc::DNE_CREATE_PREPARE.0.to_le_bytes().to_vec();
    intent.extend_from_slice(&[0xaa; 8]);
    p.raw[2] = Some(intent);
    let bytes = p.encode();
    let v = RequestView::parse(&bytes).expect("a 16-byte ldlm_intent is accepted");
    assert_eq!(v.operation(), Operation::Create);
    assert_eq!(MsgView::parse(&bytes).expect("framed").buflen(2), Some(16));
    assert!(!v.is_canonical());
    assert_eq!(
        &v.to_value().to_bytes(Endian::Little).expect("encodes")[..],
        &canonical[..]
    );
}

/// An `ldlm_reply` longer than 112 bytes, and a `ptlrpc_body` longer than 184, are accepted the
/// same way.
#[test]
fn longer_ldlm_reply_and_ptlrpc_body_are_accepted_and_canonicalised() {
    let canonical = RepParts::mkdir().encode();
    let base = MsgView::parse(&canonical).expect("framed");
    for (index, extra) in [(1usize, 8usize), (0, 16)] {
        let mut p = RepParts::mkdir();
        let mut b = base.buffer_or_empty(index).to_vec();
        b.extend(std::iter::repeat_n(0x5a, extra));
        p.raw[index] = Some(b);
        let bytes = p.encode();
        let v = ReplyView::parse(&bytes)
            .unwrap_or_else(|e| panic!("buffer {index} with {extra} more bytes: {e}"));
        assert_eq!(v.ldlm().lock_handle, LustreHandle(0x1234));
        assert!(!v.is_canonical());
        assert_eq!(
            &v.to_value().to_bytes(Endian::Little).expect("encodes")[..],
            &canonical[..]
        );
    }
}

/// A LMV_MAGIC_STRIPE payload with a FID table (56 + 16·count bytes) is accepted and keeps its
/// table through a re-encoding; the 56-byte form LOD stores is accepted too.
#[test]
fn stripe_lmv_with_a_fid_table_is_accepted() {
    let mut b = testdata("xattr_lmv_striped");
    assert_eq!(b.len(), 56 + 16 * 4);
    b[..4].copy_from_slice(&LMV_MAGIC_STRIPE.to_le_bytes());
    let LmvView::Md(m) = LmvView::parse(&b).expect("a stripe LMV with a table") else {
        panic!("not an lmv_mds_md_v1")
    };
    assert!(m.is_stripe());
    assert_eq!(m.stripe_fids().len(), 4);
    let view = LmvView::parse(&b).expect("parses");
    assert_eq!(&view.to_value().to_bytes().expect("encodes")[..], &b[..]);
    LmvView::parse(&b[..56]).expect("the 56-byte stripe form");
    // Any other length is still an error.
    let e = LmvView::parse(&b[..56 + 16]).unwrap_err();
    assert!(
        matches!(e.kind, ErrorKind::PayloadSizeMismatch { .. }),
        "{e}"
    );
    assert_eq!(e.rule(), "W9.2");
}

/// A component blob whose magic reads byte-swapped is rejected as a swabbed payload (W1.2), as
/// at the top of a payload: Lustre swabs a composite layout as a whole.
#[test]
fn swabbed_component_magic_is_rejected() {
    let good = testdata("xattr_lov_comp3");
    let LovView::Comp(_) = LovView::parse(&good).expect("valid composite layout") else {
        panic!("not a composite layout")
    };
    // The first entry's lcme_offset: entry table at 32, lcme_offset at 24 within an entry.
    let off = u32::from_le_bytes(good[32 + 24..32 + 28].try_into().expect("4 bytes")) as usize;
    let mut bad = good.clone();
    bad[off..off + 4].reverse();
    let e = LovView::parse(&bad).unwrap_err();
    assert!(matches!(e.kind, ErrorKind::SwabbedMagic { .. }), "{e}");
    assert_eq!(e.rule(), "W1.2");
    assert!(e.at.offset >= off, "{e}");
}

/// The golden vectors, made by an independent generator (testdata/gen_vectors.py) from the
/// field tables, are canonical (WIRE.md §11) exactly when little-endian: the crate's canonical
/// re-encoding of each equals the bytes that generator wrote.
#[test]
fn golden_vectors_are_canonical_when_little_endian() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata");
    let mut seen = 0;
    for entry in std::fs::read_dir(dir).expect("testdata") {
        let path = entry.expect("entry").path();
        let name = path
            .file_name()
            .expect("name")
            .to_string_lossy()
            .into_owned();
        if !name.ends_with(".bin") || name.starts_with("xattr_") {
            continue;
        }
        let bytes = std::fs::read(&path).expect("readable");
        let big = name.ends_with("_be.bin");
        let canonical = if name.contains("request") {
            let v = RequestView::parse(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(v.order() == Endian::Big, big, "{name}");
            v.is_canonical()
        } else {
            let v = ReplyView::parse(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(v.order() == Endian::Big, big, "{name}");
            v.is_canonical()
        };
        assert_eq!(canonical, !big, "{name}: canonical form");
        seen += 1;
    }
    assert_eq!(seen, 14, "the golden messages of testdata/");
}
