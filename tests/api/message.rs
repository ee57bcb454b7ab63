//! `MessageView`/`Message`, the one entry point for a message of either kind, and the
//! `pb_type`-first rule of the single-kind decoders: over every golden vector, each parses as the
//! kind its `.md` (written by the independent generator) says, and fails through the other view
//! with `WrongMessageType` at the `pb_type` offset the `.md` gives.

use crate::common::*;
use lustre_dne_intent::intent::*;
use lustre_dne_intent::wire::PtlrpcMsgType;
use lustre_dne_intent::{DecodeError, Endian, ErrorKind};
use std::path::Path;

/// A message vector with what its `.md` says of `ptlrpc_body.pb_type`.
struct Vector {
    name: String,
    bytes: Vec<u8>,
    pb_type: u32,
    pb_type_offset: usize,
}

/// Every `testdata/*.bin` that is a message (not an xattr payload), with the `pb_type` row of
/// its field table: `| 0 | <offset> | pb_type | <value> | ... |`.
fn vectors() -> Vec<Vector> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata");
    let mut out = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("testdata/") {
        let path = entry.expect("entry").path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if !name.ends_with(".bin") || name.starts_with("xattr_") {
            continue;
        }
        let md =
            std::fs::read_to_string(path.with_extension("md")).expect("every vector has a .md");
        let row: Vec<&str> = md
            .lines()
            .map(|l| l.split('|').map(str::trim).collect::<Vec<_>>())
            .find(|cells| cells.len() > 4 && cells[3] == "pb_type")
            .unwrap_or_else(|| panic!("{name}: no pb_type row"))
            .into_iter()
            .collect();
        out.push(Vector {
            bytes: std::fs::read(&path).expect("readable"),
            pb_type: row[4].parse().expect("pb_type value"),
            pb_type_offset: row[2].parse().expect("pb_type offset"),
            name,
        });
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

#[test]
fn the_vectors_are_all_here() {
    let v = vectors();
    let requests = v.iter().filter(|v| v.pb_type == 4711).count();
    let replies = v.iter().filter(|v| v.pb_type == 4713).count();
    assert_eq!((requests, replies, v.len()), (5, 9, 14));
    for v in &v {
        // The file names agree with the .md.
        assert_eq!(v.name.contains("_request"), v.pb_type == 4711, "{}", v.name);
    }
}

#[test]
fn every_vector_parses_as_its_kind() {
    for v in vectors() {
        let m = MessageView::parse(&v.bytes).unwrap_or_else(|e| panic!("{}: {e}", v.name));
        assert_eq!(m.ptlrpc().msg_type.0, v.pb_type, "{}", v.name);
        assert_eq!(m.is_request(), v.pb_type == 4711, "{}", v.name);
        assert_eq!(m.is_reply(), v.pb_type == 4713, "{}", v.name);
        let be = v.name.ends_with("_be.bin");
        assert_eq!(m.order(), if be { Endian::Big } else { Endian::Little });
        // The same as the single-kind decoder gives.
        match m {
            MessageView::Request(r) => {
                let direct = RequestView::parse(&v.bytes).expect("a request");
                assert_eq!(r.to_value(), direct.to_value(), "{}", v.name);
                assert!(m.reply().is_none());
                assert_eq!(m.request().map(|r| r.operation()), Some(r.operation()));
            }
            MessageView::Reply(r) => {
                let direct = ReplyView::parse(&v.bytes).expect("a reply");
                assert_eq!(r.to_value(), direct.to_value(), "{}", v.name);
                assert_eq!(r.results(), direct.results(), "{}", v.name);
                assert!(m.request().is_none());
            }
        }
        // The owned message encodes back to the same bytes, in the sender's order.
        let owned = m.to_value();
        assert_eq!(owned.is_request(), m.is_request());
        owned
            .validate()
            .unwrap_or_else(|e| panic!("{}: {e}", v.name));
        assert_eq!(owned.wire_len(), v.bytes.len(), "{}", v.name);
        assert_eq!(
            owned.to_bytes(m.order()).expect("valid"),
            v.bytes,
            "{}",
            v.name
        );
        let mut buf = vec![0u8; v.bytes.len()];
        assert_eq!(owned.encode_into(m.order(), &mut buf), Ok(v.bytes.len()));
        assert_eq!(buf, v.bytes, "{}", v.name);
        let mut appended = Vec::new();
        owned.put(m.order(), &mut appended).expect("valid");
        assert_eq!(appended, v.bytes, "{}", v.name);
    }
}

fn wrong_type(e: &DecodeError, got: u32, offset: usize, expected: &'static str) {
    assert_eq!(e.kind, ErrorKind::WrongMessageType { got, expected }, "{e}");
    assert_eq!(
        (e.at.structure, e.at.field, e.at.offset),
        ("ptlrpc_body", "pb_type", offset),
        "{e}"
    );
}

#[test]
fn every_vector_fails_through_the_other_view() {
    for v in vectors() {
        if v.pb_type == 4711 {
            let e = ReplyView::parse(&v.bytes).expect_err(&v.name);
            wrong_type(&e, 4711, v.pb_type_offset, "a reply");
            assert_eq!(
                e.to_string(),
                format!(
                    "ptlrpc_body.pb_type at offset {}: pb_type 4711 (request): expected a reply [W2.3]",
                    v.pb_type_offset
                )
            );
            // Also against a known request: pb_type comes before the request-dependent rules.
            let ctx = mkdir_request().reply_context().expect("valid");
            let e = ReplyView::parse_for(&v.bytes, &ctx).expect_err(&v.name);
            wrong_type(&e, 4711, v.pb_type_offset, "a reply");
        } else {
            let e = RequestView::parse(&v.bytes).expect_err(&v.name);
            wrong_type(&e, 4713, v.pb_type_offset, "a request");
            assert_eq!(
                e.to_string(),
                format!(
                    "ptlrpc_body.pb_type at offset {}: pb_type 4713 (reply): expected a request [W2.3]",
                    v.pb_type_offset
                )
            );
        }
    }
}

/// pb_type is read before anything else: even a message broken everywhere after buffer 0 is
/// refused for its type, and a bad status does not hide a wrong type.
#[test]
fn pb_type_comes_before_every_other_rule() {
    // A request whose ldlm_request is garbage and whose status is an error.
    let mut p = ReqParts::mkdir();
    p.ptlrpc.status = -71;
    p.raw[1] = Some(vec![0xff; 3]);
    let e = ReplyView::parse(&p.encode()).unwrap_err();
    wrong_type(&e, 4711, 64, "a reply");
    // A 2-buffer reply (the empty result) is too few buffers for a request, but its type is
    // what is wrong.
    let mut r = RepParts::mkdir();
    r.bufcount = 2;
    let bytes = r.encode();
    assert!(
        ReplyView::parse(&bytes)
            .expect("the empty result")
            .is_empty_result()
    );
    let e = RequestView::parse(&bytes).unwrap_err();
    // 2 buffers: a 40-byte header, so pb_type is at 48.
    wrong_type(&e, 4713, 48, "a request");
}

#[test]
fn an_error_message_goes_to_the_reply_rules() {
    let mut p = RepParts::mkdir();
    p.ptlrpc.msg_type = PtlrpcMsgType::ERR;
    p.ptlrpc.status = -71;
    let bytes = p.encode();
    let e = MessageView::parse(&bytes).unwrap_err();
    assert!(
        matches!(e.kind, ErrorKind::EnqueueFailed { status: -71, .. }),
        "{e}"
    );
    assert_eq!(e, ReplyView::parse(&bytes).unwrap_err());
    let e = RequestView::parse(&bytes).unwrap_err();
    wrong_type(&e, 4712, 80, "a request");
    assert_eq!(
        e.to_string(),
        "ptlrpc_body.pb_type at offset 80: pb_type 4712 (error): expected a request [W2.3]"
    );
}

#[test]
fn an_unknown_pb_type_is_neither() {
    for got in [0, 4710, 4714, u32::MAX] {
        let mut p = ReqParts::mkdir();
        p.ptlrpc.msg_type = PtlrpcMsgType(got);
        let bytes = p.encode();
        let e = MessageView::parse(&bytes).unwrap_err();
        wrong_type(&e, got, 64, "a request or a reply");
        assert_eq!(
            e.to_string(),
            format!(
                "ptlrpc_body.pb_type at offset 64: pb_type {got} (unknown): expected a request or a reply [W2.3]"
            )
        );
        wrong_type(
            &RequestView::parse(&bytes).unwrap_err(),
            got,
            64,
            "a request",
        );
        wrong_type(&ReplyView::parse(&bytes).unwrap_err(), got, 64, "a reply");
    }
}

/// Framing errors come before pb_type: there is no buffer 0 to read it from.
#[test]
fn framing_errors_come_first() {
    let e = MessageView::parse(&[0u8; 16]).unwrap_err();
    assert!(
        matches!(e.kind, ErrorKind::Truncated { need: 32, have: 16 }),
        "{e}"
    );
    let mut p = ReqParts::mkdir();
    p.raw[0] = Some(vec![0; 100]);
    let e = MessageView::parse(&p.encode()).unwrap_err();
    assert_eq!(e.at.structure, "ptlrpc_body", "{e}");
    assert!(
        matches!(e.kind, ErrorKind::BufferTooShort { len: 100, .. }),
        "{e}"
    );
}

/// The owned encoders refuse a wrong pb_type with the decoder's error, at the same offset.
#[test]
fn owned_values_refuse_the_wrong_type_as_the_decoders_do() {
    let mut req = mkdir_request();
    req.ptlrpc.msg_type = PtlrpcMsgType::REPLY;
    let e = req.validate().unwrap_err();
    wrong_type(&e, 4713, 64, "a request");
    let bytes = ReqParts::from_value(&req, Endian::Little).encode();
    assert_eq!(RequestView::parse(&bytes).unwrap_err(), e);
    let msg = Message::from(req);
    assert_eq!(msg.validate(), Err(e));
    assert!(msg.to_bytes(Endian::Little).is_err());

    let mut rep = mkdir_reply();
    rep.ptlrpc.msg_type = PtlrpcMsgType::REQUEST;
    rep.ptlrpc.status = -2;
    let e = rep.validate(None).unwrap_err();
    wrong_type(&e, 4711, 80, "a reply");
    let bytes = RepParts::from_value(&rep, Endian::Little).encode();
    assert_eq!(ReplyView::parse(&bytes).unwrap_err(), e);
    assert_eq!(Message::from(rep).validate(), Err(e));
}

#[test]
fn owned_messages_round_trip_through_the_entry_point() {
    for order in [Endian::Little, Endian::Big] {
        for msg in [Message::from(mkdir_request()), Message::from(mkdir_reply())] {
            let bytes = msg.to_bytes(order).expect("valid");
            assert_eq!(bytes.len(), msg.wire_len());
            let view = MessageView::parse(&bytes).expect("decodes");
            assert_eq!(view.is_request(), msg.is_request());
            assert_eq!(view.order(), order);
            assert_eq!(view.to_value(), msg);
            // Too small a buffer is refused before anything is written.
            let mut short = vec![0u8; msg.wire_len() - 1];
            assert!(msg.encode_into(order, &mut short).is_err());
            assert!(short.iter().all(|&b| b == 0));
        }
    }
    // The views convert into the entry point's enum.
    let req = mkdir_request().to_bytes(Endian::Little).expect("valid");
    let view: MessageView<'_> = RequestView::parse(&req).expect("valid").into();
    assert!(view.is_request());
    assert_eq!(view.ptlrpc().msg_type, PtlrpcMsgType::REQUEST);
}

/// With `serde`, a message is `{"request": …}` or `{"reply": …}` around the value's own form,
/// and every vector survives the JSON round trip byte for byte.
#[cfg(feature = "serde")]
#[test]
fn messages_serialize_under_their_kind() {
    for v in vectors() {
        let msg = MessageView::parse(&v.bytes).expect("valid").to_value();
        let json = serde_json::to_value(&msg).expect("serializes");
        let (kind, inner) = match &msg {
            Message::Request(r) => ("request", serde_json::to_value(r).expect("serializes")),
            Message::Reply(r) => ("reply", serde_json::to_value(r).expect("serializes")),
        };
        assert_eq!(json, serde_json::json!({ kind: inner }), "{}", v.name);
        let back: Message = serde_json::from_str(&json.to_string()).expect("deserializes");
        assert_eq!(back, msg, "{}", v.name);
        let order = if v.name.ends_with("_be.bin") {
            Endian::Big
        } else {
            Endian::Little
        };
        assert_eq!(back.to_bytes(order).expect("valid"), v.bytes, "{}", v.name);
    }
    let err = serde_json::from_str::<Message>(r#"{"error": {}}"#).unwrap_err();
    assert!(err.to_string().contains("unknown variant `error`"), "{err}");
}

/// The request views are lazy: the input, its byte order, a few offsets and the small facts
/// (operation, name, groups), so that returning one from `parse` moves a few words, not the
/// decoded structures (they were about 700 bytes).
#[test]
fn request_views_are_small() {
    use lustre_dne_intent::wire::MsgView;
    use std::mem::size_of;
    assert!(
        size_of::<MsgView<'_>>() <= 24,
        "{}",
        size_of::<MsgView<'_>>()
    );
    assert!(
        size_of::<RequestView<'_>>() <= 80,
        "{}",
        size_of::<RequestView<'_>>()
    );
}

/// `RequestView::parse` frames and checks a request in one pass; `MessageView::parse` frames it
/// first, reads buffer 0, then hands it on. Over every byte of every request vector flipped
/// three ways, and every truncation, both give the same view or the same error (the entry
/// point's own wording of a wrong `pb_type` aside).
#[test]
fn both_request_paths_agree_on_every_mutation() {
    let agree =
        |name: &str, bytes: &[u8]| match (RequestView::parse(bytes), MessageView::parse(bytes)) {
            (Ok(a), Ok(MessageView::Request(b))) => {
                assert_eq!(a.to_value(), b.to_value(), "{name}");
                assert_eq!(
                    a.msg().buflens().collect::<Vec<_>>(),
                    b.msg().buflens().collect::<Vec<_>>()
                );
                1
            }
            (Err(a), Err(b)) if !matches!(a.kind, ErrorKind::WrongMessageType { .. }) => {
                assert_eq!(a, b, "{name}");
                1
            }
            (Err(a), _) if matches!(a.kind, ErrorKind::WrongMessageType { .. }) => 0,
            (a, b) => panic!("{name}: {a:?} against {b:?}"),
        };
    let mut compared = 0;
    for v in vectors().into_iter().filter(|v| v.pb_type == 4711) {
        for at in 0..v.bytes.len() {
            for flip in [0x01u8, 0x80, 0xff] {
                let mut m = v.bytes.clone();
                m[at] ^= flip;
                compared += agree(&v.name, &m);
            }
        }
        for len in 0..v.bytes.len() {
            compared += agree(&v.name, &v.bytes[..len]);
        }
    }
    // Five vectors of 448 to 456 bytes, four cases a byte: only a changed pb_type is skipped.
    assert!(compared > 5 * 4 * 440, "{compared}");
}

/// `ReplyView::parse` and `MessageView::parse` (which frames once for either kind and hands the
/// framing on) give the same view or the same error over every one-byte change and truncation
/// of every reply vector.
#[test]
fn both_reply_paths_agree_on_every_mutation() {
    let agree =
        |name: &str, bytes: &[u8]| match (ReplyView::parse(bytes), MessageView::parse(bytes)) {
            (Ok(a), Ok(MessageView::Reply(b))) => {
                assert_eq!(a.to_value(), b.to_value(), "{name}");
                assert_eq!(a.kind(), b.kind(), "{name}");
                assert_eq!(a.consumed_len(), b.consumed_len(), "{name}");
                1
            }
            (Err(a), Err(b)) if !matches!(a.kind, ErrorKind::WrongMessageType { .. }) => {
                assert_eq!(a, b, "{name}");
                1
            }
            (Err(a), _) if matches!(a.kind, ErrorKind::WrongMessageType { .. }) => 0,
            (a, b) => panic!("{name}: {a:?} against {b:?}"),
        };
    let mut compared = 0;
    for v in vectors().into_iter().filter(|v| v.pb_type == 4713) {
        for at in 0..v.bytes.len() {
            for flip in [0x01u8, 0x80] {
                let mut m = v.bytes.clone();
                m[at] ^= flip;
                compared += agree(&v.name, &m);
            }
        }
        for len in 0..v.bytes.len() {
            compared += agree(&v.name, &v.bytes[..len]);
        }
    }
    assert!(compared > 9 * 3 * 300, "{compared}");
}

/// The entry point frames for nine buffers: a request's first non-empty buffer past its sixth
/// may be its 7th to 9th (inside that framing) or a later one. Both paths name the same buffer
/// (W2.2), and accept the request when every extra buffer is empty; a reply with a 10th or 11th
/// buffer likewise.
#[test]
fn buffers_past_the_last_are_named_alike_by_both_paths() {
    use lustre_dne_intent::wire::{MsgBuilder, MsgView};
    let with_extra = |bytes: &[u8], defined: usize, extra: usize, full: Option<usize>| {
        let msg = MsgView::parse(bytes).expect("vector");
        let mut b = MsgBuilder::new(msg.order(), msg.header());
        for i in 0..defined {
            b.push(msg.buffer_or_empty(i)).expect("fits");
        }
        for j in 0..extra {
            b.push(if Some(j) == full {
                &[7u8, 7, 7][..]
            } else {
                &[][..]
            })
            .expect("fits");
        }
        let mut out = vec![0u8; b.wire_len()];
        let n = b.encode_into(&mut out).expect("fits");
        out.truncate(n);
        out
    };
    let request = include_bytes!("../../testdata/mkdir_request_be.bin");
    let reply = include_bytes!("../../testdata/mkdir_reply_complete.bin");
    let mut refused = 0;
    for extra in 1..=5 {
        for full in (0..extra).map(Some).chain([None]) {
            let q = with_extra(request, 6, extra, full);
            match (RequestView::parse(&q), MessageView::parse(&q)) {
                (Ok(a), Ok(MessageView::Request(b))) if full.is_none() => {
                    assert_eq!(a.to_value(), b.to_value());
                }
                (Err(a), Err(b)) if full.is_some() => {
                    assert_eq!(a, b, "request, {extra} extra, #{full:?} full");
                    let index = 6 + full.unwrap_or(0);
                    assert!(
                        matches!(a.kind, ErrorKind::BufferPastLast { index: i, len: 3, last: 5 } if i == index),
                        "{a}"
                    );
                    refused += 1;
                }
                (a, b) => panic!("request, {extra} extra, #{full:?} full: {a:?} against {b:?}"),
            }
            let r = with_extra(reply, 9, extra, full);
            match (ReplyView::parse(&r), MessageView::parse(&r)) {
                (Ok(a), Ok(MessageView::Reply(b))) if full.is_none() => {
                    assert_eq!(a.to_value(), b.to_value());
                }
                (Err(a), Err(b)) if full.is_some() => {
                    assert_eq!(a, b, "reply, {extra} extra, #{full:?} full");
                    let index = 9 + full.unwrap_or(0);
                    assert!(
                        matches!(a.kind, ErrorKind::BufferPastLast { index: i, len: 3, last: 8 } if i == index),
                        "{a}"
                    );
                    refused += 1;
                }
                (a, b) => panic!("reply, {extra} extra, #{full:?} full: {a:?} against {b:?}"),
            }
        }
    }
    assert_eq!(refused, 2 * (1 + 2 + 3 + 4 + 5));
}
