//! What a value validated once (`PrepareRequest::validated`, `PrepareReply::validated`) writes
//! without validating again: the golden messages of `testdata/` (made by `gen_vectors.py`, not
//! by this crate) in their own byte order, and in the other order the message that decodes to
//! the same value; every encoder of the proof writes the same bytes; and a value that breaks a
//! rule gets no proof, with the error the decoder's rules give.

use crate::common::golden_messages;
use lustre_dne_intent::intent::{PrepareReply, PrepareRequest, ReplyView, RequestView};
use lustre_dne_intent::wire::{LockMode, PtlrpcMsgType};
use lustre_dne_intent::{EncodeError, Endian, ErrorKind};

fn vectors(kind: &str) -> Vec<(String, Vec<u8>)> {
    golden_messages()
        .into_iter()
        .filter(|(name, _)| name.contains(kind))
        .collect()
}

/// Every encoder of one proof, in one order: `encode_into` (checked against the size and
/// against writing past the end), `to_bytes` and `put` give the same bytes.
fn encodings(
    name: &str,
    wire_len: usize,
    order: Endian,
    encode_into: impl Fn(Endian, &mut [u8]) -> Result<usize, EncodeError>,
    to_bytes: impl Fn(Endian) -> Vec<u8>,
    put: impl Fn(Endian, &mut Vec<u8>),
) -> Vec<u8> {
    let mut out = vec![0xa5u8; wire_len + 16];
    let n = encode_into(order, &mut out).expect("fits");
    assert_eq!(n, wire_len, "{name} in {order}");
    assert!(out[n..].iter().all(|&b| b == 0xa5), "{name}: past the end");
    out.truncate(n);
    assert_eq!(to_bytes(order), out, "{name}: to_bytes in {order}");
    let mut put_out = Vec::new();
    put(order, &mut put_out);
    assert_eq!(put_out, out, "{name}: put in {order}");
    assert_eq!(
        encode_into(order, &mut vec![0; n - 1]),
        Err(EncodeError::BufferTooSmall {
            need: n,
            have: n - 1
        }),
        "{name}"
    );
    out
}

#[test]
fn a_validated_request_writes_the_golden_bytes() {
    let all = vectors("_request");
    assert!(all.len() >= 5, "golden requests: {}", all.len());
    for (name, bytes) in &all {
        let view = RequestView::parse(bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        let value = view.to_value();
        let proof = value.validated().expect("valid");
        assert_eq!(proof.operation(), view.operation(), "{name}");
        assert_eq!(proof.request(), &value, "{name}");
        for order in [Endian::Little, Endian::Big] {
            let out = encodings(
                name,
                proof.wire_len(),
                order,
                |o, b| proof.encode_into(o, b),
                |o| proof.to_bytes(o).to_vec(),
                |o, b| proof.put(o, b),
            );
            if order == view.order() {
                assert_eq!(out, *bytes, "{name}: the golden bytes");
            } else {
                let back = RequestView::parse(&out).expect("decodes");
                assert_eq!(back.order(), order, "{name}");
                assert_eq!(back.to_value(), value, "{name}: the same value");
            }
            let mut checking = vec![0; out.len()];
            value
                .encode_into(order, &mut checking)
                .expect("the validating encoder agrees");
            assert_eq!(checking, out, "{name} in {order}");
        }
    }
}

#[test]
fn a_validated_reply_writes_the_golden_bytes() {
    let all = vectors("_reply");
    assert!(all.len() >= 9, "golden replies: {}", all.len());
    for (name, bytes) in &all {
        let view = ReplyView::parse(bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        let value = view.to_value();
        let proof = value.validated(None).expect("valid");
        assert_eq!(proof.reply(), &value, "{name}");
        for order in [Endian::Little, Endian::Big] {
            let out = encodings(
                name,
                proof.wire_len(),
                order,
                |o, b| proof.encode_into(o, b),
                |o| proof.to_bytes(o).to_vec(),
                |o, b| proof.put(o, b),
            );
            // Every golden reply is canonical up to its byte order (the big-endian one is the
            // canonical form but for the order, WIRE.md §11), so its own order gives it back.
            if order == view.order() {
                assert_eq!(out, *bytes, "{name}: the golden bytes");
            }
            let back = ReplyView::parse(&out).expect("decodes");
            assert_eq!(back.order(), order, "{name}");
            assert_eq!(back.to_value(), value, "{name}: the same value");
        }
    }
}

#[test]
fn a_request_that_breaks_a_rule_gets_no_proof() {
    let bytes = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/testdata/mkdir_request.bin"
    ))
    .expect("read");
    let mut value: PrepareRequest = RequestView::parse(&bytes).expect("valid").to_value();
    value.ldlm.lock_desc.req_mode = LockMode::NONE;
    let e = value
        .validated()
        .expect_err("LCK_MINMODE (0) is no lock mode");
    assert_eq!(value.validate(), Err(e));
    assert_eq!(e.at.field, "lock_desc.l_req_mode", "{e}");
    assert_eq!(
        value.encode_into(Endian::Little, &mut [0; 1024]),
        Err(EncodeError::Invalid(e))
    );
}

#[test]
fn a_reply_that_breaks_a_rule_gets_no_proof() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata");
    let request_bytes = std::fs::read(format!("{dir}/mkdir_request.bin")).expect("read");
    let reply_bytes = std::fs::read(format!("{dir}/mkdir_reply_complete.bin")).expect("read");
    let ctx = RequestView::parse(&request_bytes)
        .expect("valid")
        .reply_context();
    let good: PrepareReply = ReplyView::parse_for(&reply_bytes, &ctx)
        .expect("the reply to that request")
        .to_value();
    assert!(good.validated(Some(&ctx)).is_ok());

    // A rule of the reply alone: a failed enqueue is never a prepare answer (W7.1).
    let mut err_reply = good.clone();
    err_reply.ptlrpc.msg_type = PtlrpcMsgType::ERR;
    err_reply.ptlrpc.status = -2;
    let e = err_reply.validated(None).expect_err("an error reply");
    assert_eq!(err_reply.validate(None), Err(e));
    assert_eq!(e.at.field, "pb_status", "{e}");
    assert!(e.to_string().contains("[W7.1]"), "{e}");
    assert_eq!(
        err_reply.to_bytes(Endian::Little),
        Err(EncodeError::Invalid(e))
    );

    // A rule that needs the request (W7.4): the proof is only as good as what it was given.
    let mut other_lock = good.clone();
    assert_ne!(ctx.lock.req_mode, LockMode::EX);
    other_lock.ldlm.lock_desc.req_mode = LockMode::EX;
    other_lock.ldlm.lock_desc.granted_mode = LockMode::EX;
    assert!(
        other_lock.validated(None).is_ok(),
        "alone it is a valid reply"
    );
    let e = other_lock
        .validated(Some(&ctx))
        .expect_err("not the lock that was asked for");
    assert_eq!(
        e.kind,
        ErrorKind::LockNotAsRequested {
            got: LockMode::EX.0.into(),
            expected: ctx.lock.req_mode.0.into()
        },
        "{e}"
    );
    assert_eq!(e.at.field, "lock_desc.l_granted_mode", "{e}");
}
