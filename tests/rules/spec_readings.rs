//! The buffer-count rules of docs/spec/WIRE.md §5 and §7: a buffer past `lm_bufcount` reads as an
//! empty one, and buffers past the last one the protocol defines are ignored. Each test pins
//! down one sentence of the spec with the values it implies.

use crate::common::*;
use lustre_dne_intent::intent::*;
use lustre_dne_intent::wire::*;
use lustre_dne_intent::{Endian, ErrorKind};

/// `mkdir_reply()` has PATTR (216 bytes), DEF_ACL known absent, PIN present (12 bytes), LMV
/// known absent, LOV truncated and DEF_LMV not provided. Cut to `n` buffers, the reply stays
/// legal exactly while every result a cut buffer held was empty.
#[test]
fn reply_with_3_to_8_buffers_reads_missing_results_as_empty() {
    let ctx = mkdir_request().reply_context().expect("valid request");
    let mut verdicts = Vec::new();
    for n in 3..=8 {
        let mut p = RepParts::mkdir();
        p.bufcount = n;
        let bytes = p.encode();
        let got = ReplyView::parse_for(&bytes, &ctx);
        verdicts.push((n, got.is_ok()));
        match n {
            // PATTR (buffer 3) is cut: its valid bit says 216 bytes, the buffer reads as 0.
            3 => assert!(
                matches!(
                    got.as_ref().map(|_| ()).unwrap_err().kind,
                    ErrorKind::ResultSizeMismatch { len: 0, size: 216 }
                ),
                "{got:?}"
            ),
            // PIN (buffer 5) is cut: 12 bytes announced, none there.
            4 | 5 => assert!(
                matches!(
                    got.as_ref().map(|_| ()).unwrap_err().kind,
                    ErrorKind::ResultSizeMismatch { len: 0, size: 12 }
                ),
                "{n}: {got:?}"
            ),
            _ => {
                let v = got.expect("only empty buffers were cut");
                assert_eq!(v.bufcount(), n);
                assert_eq!(
                    v.result(MliBuf::Pin),
                    PrepResult::Present(&b"[pool: fast]"[..])
                );
                assert_eq!(v.result(MliBuf::Lmv), PrepResult::Absent);
                assert_eq!(
                    v.result(MliBuf::Lov),
                    PrepResult::Unknown(UnknownReason::Truncated { size: 5000 })
                );
                assert_eq!(
                    v.result(MliBuf::DefLmv),
                    PrepResult::Unknown(UnknownReason::NotProvided)
                );
            }
        }
    }
    assert_eq!(
        verdicts,
        [
            (3, false),
            (4, false),
            (5, false),
            (6, true),
            (7, true),
            (8, true)
        ]
    );
}

#[test]
fn reply_with_3_buffers_and_buffer_2_empty_is_the_empty_result() {
    let mut p = RepParts::mkdir();
    p.body = None;
    p.results = Default::default();
    p.bufcount = 3;
    let bytes = p.encode();
    let v = ReplyView::parse(&bytes).expect("the empty result");
    assert!(v.is_empty_result());
    assert_eq!(v.bufcount(), 3);
}

/// Buffers 9 and up are not part of the reply (WIRE.md §2): empty ones are accepted (they still
/// count toward the reply's size against `lm_repsize`), a non-empty one is an error (W2.2).
#[test]
fn reply_buffers_past_the_ninth_must_be_empty() {
    let p = RepParts::mkdir();
    let nine = p.encode();
    let view9 = ReplyView::parse(&nine).expect("valid");
    let extra = MsgView::parse(&nine).expect("framed");
    let ten = |more: &[&[u8]]| {
        let mut mb = MsgBuilder::new(Endian::Little, extra.header());
        for i in 0..9 {
            mb.push(extra.buffer_or_empty(i)).expect("push");
        }
        for b in more {
            mb.push(b).expect("push");
        }
        let mut out = Vec::new();
        mb.put(&mut out);
        out
    };
    let ctx = mkdir_request().reply_context().expect("valid request");
    let empty10 = ten(&[b""]);
    let view10 = ReplyView::parse_for(&empty10, &ctx).expect("an empty tenth buffer is accepted");
    assert_eq!(view10.bufcount(), 10);
    assert_eq!(view10.to_value(), view9.to_value());
    // The canonical re-encoding has 9 buffers: the bytes of the 9-buffer reply.
    assert_eq!(
        &view10.to_value().to_bytes(Endian::Little).expect("encodes")[..],
        &nine[..]
    );
    // Two empty buffers more make the header 8 bytes longer, which counts against lm_repsize.
    let empty11 = ten(&[b"", b""]);
    assert_eq!(empty11.len(), nine.len() + 8);
    let mut tight = ctx;
    tight.repsize = nine.len() as u32;
    assert!(matches!(
        ReplyView::parse_for(&empty11, &tight).unwrap_err().kind,
        ErrorKind::ReplyOverRepsize { size, .. } if size == empty11.len()
    ));
    let full10 = ten(&[b"anything at all"]);
    let e = ReplyView::parse(&full10).unwrap_err();
    assert_eq!(
        e.kind,
        ErrorKind::BufferPastLast {
            index: 9,
            len: 15,
            last: 8
        }
    );
    assert_eq!(e.rule(), "W2.2");
    assert_eq!((e.at.structure, e.at.offset), ("lustre_msg_v2", 32 + 4 * 9));
}

#[test]
fn request_buffer_count_4_to_6_and_beyond() {
    // 4 buffers: no name buffer, which entry mode needs.
    let mut p = ReqParts::mkdir();
    p.bufcount = 4;
    let e = RequestView::parse(&p.encode()).unwrap_err();
    assert!(matches!(e.kind, ErrorKind::MissingName { .. }), "{e}");
    // 5 buffers: no groups buffer, read as no supplementary groups.
    p.bufcount = 5;
    let bytes = p.encode();
    let v = RequestView::parse(&bytes).expect("groups buffer absent");
    assert_eq!(v.name(), Some(&b"newdir"[..]));
    assert_eq!(v.groups().len(), 0);
    // 7 buffers: an empty seventh is accepted and dropped on re-encoding; a non-empty one is an
    // error (W2.2).
    let six = ReqParts::mkdir().encode();
    let m = MsgView::parse(&six).expect("framed");
    let seven = |last: &[u8]| {
        let mut mb = MsgBuilder::new(Endian::Little, m.header());
        for i in 0..6 {
            mb.push(m.buffer_or_empty(i)).expect("push");
        }
        mb.push(last).expect("push");
        let mut out = Vec::new();
        mb.put(&mut out);
        out
    };
    let empty7 = seven(&[]);
    let v7 = RequestView::parse(&empty7).expect("an empty seventh buffer is accepted");
    assert_eq!(v7.msg().bufcount(), 7);
    let v6 = RequestView::parse(&six).expect("valid");
    assert_eq!(v7.to_value(), v6.to_value());
    assert_eq!(v7.groups().len(), 3);
    assert_eq!(
        &v7.to_value().to_bytes(Endian::Little).expect("encodes")[..],
        &six[..]
    );
    let e = RequestView::parse(&seven(&[0xff; 24])).unwrap_err();
    assert_eq!(
        e.kind,
        ErrorKind::BufferPastLast {
            index: 6,
            len: 24,
            last: 5
        }
    );
    assert_eq!(e.rule(), "W2.2");
}
