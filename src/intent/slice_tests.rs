//! The encoders and `fill` write into the caller's slices in every configuration: without
//! `alloc` (`cargo test --no-default-features --lib`) these tests are the check of the slice
//! sink they write through (`wire::out`).

use crate::endian::Endian;
use crate::intent::{MdLockIntent, MliBuf, PrepResult, ReplyView, RequestView};

/// The golden request (written by testdata/gen_vectors.py) decodes and encodes back to the
/// same bytes through `encode_into` alone.
#[test]
fn the_golden_request_round_trips_into_a_slice() {
    let golden = include_bytes!("../../testdata/mkdir_request.bin");
    let value = RequestView::parse(golden).expect("valid").to_value();
    let mut out = [0u8; 512];
    let n = value.encode_into(Endian::Little, &mut out).expect("fits");
    assert_eq!(&out[..n], &golden[..]);
    let mut short = [0u8; 455];
    assert!(value.encode_into(Endian::Little, &mut short).is_err());
}

/// `fill` copies a present result into the caller's buffer without allocating.
#[test]
fn fill_copies_into_caller_buffers() {
    let reply = include_bytes!("../../testdata/mkdir_reply_complete.bin");
    let view = ReplyView::parse(reply).expect("valid");
    let mut bufs = [[0u8; 256]; 6];
    let [a, b, c, d, e, f] = &mut bufs;
    let mut intent = MdLockIntent::new(
        crate::intent::Operation::Create,
        Default::default(),
        Some(b"newdir"),
        [a, b, c, d, e, f],
    );
    intent.fill(&view);
    assert_eq!(
        intent.result(MliBuf::Pin),
        PrepResult::Present(&b"[hsm: 3,pool: fast]"[..])
    );
    assert_eq!(intent.result(MliBuf::Pattr), view.result(MliBuf::Pattr));
}

/// A fixed structure writes itself into a slice: the golden reply's PATTR result is an
/// `mdt_body`, and it encodes back to the same 216 bytes.
#[test]
fn a_fixed_structure_encodes_into_a_slice() {
    use crate::error::EncodeError;
    use crate::wire::{MdtBody, WireStruct};
    let reply = include_bytes!("../../testdata/mkdir_reply_complete.bin");
    let view = ReplyView::parse(reply).expect("valid");
    let PrepResult::Present(attrs) = view.result(MliBuf::Pattr) else {
        panic!("PATTR is present");
    };
    let body = MdtBody::decode(attrs, Endian::Little).expect("an mdt_body");
    let mut out = [0u8; 216];
    assert_eq!(body.encode_into(Endian::Little, &mut out), Ok(216));
    assert_eq!(&out[..], attrs);
    assert_eq!(
        body.encode_into(Endian::Little, &mut out[..215]),
        Err(EncodeError::BufferTooSmall {
            need: 216,
            have: 215
        })
    );
}
