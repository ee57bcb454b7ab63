//! Harness bodies shared by the cargo-fuzz targets in `fuzz/` and by `cargo test`, which replays
//! the corpus through them. Not a stable API.
//!
//! Each function takes arbitrary bytes, may see them rejected, and panics only when an invariant
//! of the crate breaks (that panic is the finding).

use core::fmt::Debug;
use lustre_dne_intent::intent::{
    MdLockIntent, MessageView, MliBuf, PrepResult, ReplyView, RequestView, UnknownReason,
};
use lustre_dne_intent::limits::MLI_BUF_MAX;
use lustre_dne_intent::wire::MsgView;
use lustre_dne_intent::xattr::{
    AclKind, AclView, Credentials, DefaultLmvView, LmvView, LovView, PinView, XattrEncode,
};
use lustre_dne_intent::{DecodeError, Endian, ErrorKind};

pub mod mutate;

/// Any bytes as a request and as a reply: errors are fine, panics are not. What decodes must
/// re-encode, and the re-encoding must decode to the same value.
pub fn decode_message(data: &[u8]) {
    let _ = MsgView::parse(data);
    if let Ok(view) = RequestView::parse(data) {
        let value = view.to_value();
        let bytes = value
            .to_bytes(view.order())
            .expect("a decoded request re-encodes");
        let again = RequestView::parse(&bytes).expect("a re-encoded request decodes");
        assert_eq!(
            again.to_value(),
            value,
            "request value changed through the wire"
        );
        let _ = view.reply_context();
    }
    if let Ok(view) = ReplyView::parse(data) {
        let value = view.to_value();
        let bytes = value
            .to_bytes(view.order())
            .expect("a decoded reply re-encodes");
        let again = ReplyView::parse(&bytes).expect("a re-encoded reply decodes");
        assert_eq!(
            again.to_value(),
            value,
            "reply value changed through the wire"
        );
        for b in MliBuf::ALL {
            let _ = view.result(b);
        }
        // The typed payload accessors parse whatever the results hold.
        let _ = view.def_acl();
        let _ = view.pin();
        let _ = view.lmv();
        let _ = view.lov();
        let _ = view.def_lmv();
    }
    message_agrees(data);
}

/// The entry point agrees with the single-kind decoders: at most one of them accepts the
/// bytes, `MessageView` is that one, and when both refuse, it gives the error of the kind
/// `pb_type` names (a `WrongMessageType` from both means neither kind).
fn message_agrees(data: &[u8]) {
    let (req, rep) = (RequestView::parse(data), ReplyView::parse(data));
    match (MessageView::parse(data), &req, &rep) {
        (Ok(MessageView::Request(m)), Ok(r), Err(_)) => {
            assert_eq!(
                m.to_value(),
                r.to_value(),
                "MessageView differs from RequestView"
            );
        }
        (Ok(MessageView::Reply(m)), Err(_), Ok(r)) => {
            assert_eq!(
                m.to_value(),
                r.to_value(),
                "MessageView differs from ReplyView"
            );
        }
        (Err(e), Err(q), Err(p)) => {
            let wrong = |d: &DecodeError| matches!(d.kind, ErrorKind::WrongMessageType { .. });
            let expected = match (wrong(q), wrong(p)) {
                (false, _) => *q,
                (true, false) => *p,
                (true, true) => {
                    assert!(wrong(&e), "neither kind, but MessageView says {e}");
                    return;
                }
            };
            assert_eq!(e, expected, "MessageView's error is not its kind's");
        }
        (m, q, p) => panic!(
            "MessageView {:?} disagrees with RequestView {:?} and ReplyView {:?}",
            m.map(|m| m.is_request()),
            q.map(|_| ()),
            p.map(|_| ())
        ),
    }
}

/// Any bytes as each xattr payload kind (POSIX ACL, pin, LMV, default LMV, LOV): errors are
/// fine, panics are not. What parses renders as text, and its owned value encodes to bytes that
/// parse again to the same value and re-encode to the same bytes.
pub fn decode_xattr(data: &[u8]) {
    if let Ok(v) = AclView::parse(data) {
        let _ = v.getfacl(AclKind::Access).to_string();
        let _ = v.getfacl(AclKind::Default).to_string();
        let _ = v.equiv_mode();
        let groups = [0, 1, 100, 1000];
        for (fsuid, fsgid) in [(0, 0), (1000, 100), (u32::MAX, u32::MAX)] {
            let cred = Credentials {
                fsuid,
                fsgid,
                groups: &groups,
            };
            let _ = v.permission(1000, 100, &cred, 7);
        }
        xattr_roundtrip(v.to_value(), |b| AclView::parse(b).map(|v| v.to_value()));
    }
    if let Ok(v) = PinView::parse(data) {
        let _ = v.to_string();
        let _ = v.entries().count();
        let _ = v.get(b"mdt");
        xattr_roundtrip(v.to_value(), |b| PinView::parse(b).map(|v| v.to_value()));
    }
    if let Ok(v) = LmvView::parse(data) {
        let _ = v.getdirstripe().to_string();
        xattr_roundtrip(v.to_value(), |b| LmvView::parse(b).map(|v| v.to_value()));
    }
    if let Ok(v) = DefaultLmvView::parse(data) {
        let _ = v.getdirstripe().to_string();
        xattr_roundtrip(v.to_value(), |b| {
            DefaultLmvView::parse(b).map(|v| v.to_value())
        });
    }
    if let Ok(v) = LovView::parse(data) {
        let _ = v.getstripe().to_string();
        xattr_roundtrip(v.to_value(), |b| LovView::parse(b).map(|v| v.to_value()));
    }
}

fn xattr_roundtrip<T: XattrEncode + PartialEq + Debug>(
    value: T,
    parse: impl Fn(&[u8]) -> Result<T, DecodeError>,
) {
    let s = T::STRUCTURE;
    let bytes = value
        .to_bytes()
        .unwrap_or_else(|e| panic!("a decoded {s} re-encodes: {e}"));
    assert_eq!(bytes.len(), value.wire_len(), "{s}: wire_len is the size");
    let again = parse(&bytes).unwrap_or_else(|e| panic!("a re-encoded {s} decodes: {e}"));
    assert_eq!(again, value, "{s} value changed through the wire");
    let rr = again.to_bytes().expect("re-encodes");
    assert_eq!(rr, bytes, "{s} encoding is not canonical");
}

/// Byte-exactness. Let R be the re-encoding of a decoded input I. Then R is canonical: decoding
/// and encoding it again gives R byte for byte. And R drops nothing but what the codec ignores:
/// header fields, and each buffer of R compared with the same buffer of I, differ only where R
/// holds a zero (padding and reserved fields, which it writes as zero), and no buffer of R is
/// longer than the one received, but a v2 `ptlrpc_body` (152 bytes), which comes back as v3 with
/// a zero job id. Buffer lengths and the buffer count are compared that way, not byte for byte:
/// a decoder accepts a fixed structure with a tail and a request without its last buffers, and
/// the encoder writes neither. And every writer agrees, in both byte orders: the validated
/// value's `encode_into` and `put`, and a reply view's `encode_into`.
pub fn roundtrip_bytes(data: &[u8]) {
    if let Ok(view) = RequestView::parse(data) {
        let value = view.to_value();
        let proof = value.validated().expect("a decoded request validates");
        for order in [Endian::Little, Endian::Big] {
            same_writes("request", order, &proof.to_bytes(order), |o| {
                proof.encode_into(order, o)
            });
            let mut put = Vec::new();
            proof.put(order, &mut put);
            assert_eq!(put, proof.to_bytes(order), "request put in {order}");
        }
        let r = view.to_value().to_bytes(view.order()).expect("re-encodes");
        let rr = RequestView::parse(&r)
            .expect("decodes")
            .to_value()
            .to_bytes(view.order())
            .expect("re-encodes");
        assert_eq!(r, rr, "request encoding is not canonical");
        assert_only_zeroed(data, &r);
    }
    if let Ok(view) = ReplyView::parse(data) {
        let value = view.to_value();
        let proof = value.validated(None).expect("a decoded reply validates");
        for order in [Endian::Little, Endian::Big] {
            let want = proof.to_bytes(order);
            // Three writers: the value's in place, the view's (copying in the received order,
            // converting in the other), and the `BufMut` one.
            same_writes("reply", order, &want, |o| proof.encode_into(order, o));
            same_writes("reply view", order, &want, |o| view.encode_into(order, o));
            let mut put = Vec::new();
            proof.put(order, &mut put);
            assert_eq!(put, want, "reply put in {order}");
        }
        let r = view.to_value().to_bytes(view.order()).expect("re-encodes");
        let rr = ReplyView::parse(&r)
            .expect("decodes")
            .to_value()
            .to_bytes(view.order())
            .expect("re-encodes");
        assert_eq!(r, rr, "reply encoding is not canonical");
        assert_only_zeroed(data, &r);
    }
}

/// `encode_into` writes `want` exactly: into a buffer with room to spare, nothing past its end;
/// into one a byte short, nothing but the size error.
fn same_writes(
    what: &str,
    order: Endian,
    want: &[u8],
    encode_into: impl Fn(&mut [u8]) -> Result<usize, lustre_dne_intent::EncodeError>,
) {
    let mut out = vec![0xa5u8; want.len() + 8];
    let n = encode_into(&mut out).expect("fits");
    assert_eq!(&out[..n], want, "{what} encode_into in {order}");
    assert!(
        out[n..].iter().all(|&b| b == 0xa5),
        "{what}: wrote past the end"
    );
    assert_eq!(
        encode_into(&mut out[..want.len() - 1]),
        Err(lustre_dne_intent::EncodeError::BufferTooSmall {
            need: want.len(),
            have: want.len() - 1
        }),
        "{what} in {order}"
    );
}

fn assert_only_zeroed(input: &[u8], reencoded: &[u8]) {
    fn only_zeroed(what: &str, i: &[u8], r: &[u8]) {
        if let Some(k) = (0..r.len()).find(|&k| i.get(k) != Some(&r[k]) && r[k] != 0) {
            panic!(
                "{what}: byte {k} changed from {:?} to {:#04x} through decode and encode",
                i.get(k),
                r[k]
            );
        }
    }
    let i = MsgView::parse(input).expect("the input decoded");
    let r = MsgView::parse(reencoded).expect("the re-encoding decodes");
    // The header after lm_bufcount, up to lm_buflens.
    only_zeroed("header", &input[4..32], &reencoded[4..32]);
    for k in 0..r.bufcount() {
        let (ib, rb) = (i.buffer_or_empty(k), r.buffer_or_empty(k));
        assert!(
            rb.len() <= ib.len(),
            "buffer {k} grew from {} to {} bytes through decode and encode",
            ib.len(),
            rb.len()
        );
        only_zeroed(&format!("buffer {k}"), ib, rb);
    }
}

/// Arbitrary limits and an arbitrary reply into `md_lock_intent` buffers: no write past a
/// buffer, and lengths and states stay consistent with the reply.
pub fn lock_intent_fill(data: &[u8]) {
    let (sizes, reply) = data.split_at(data.len().min(MLI_BUF_MAX));
    let mut storage = [[0xa5u8; 512]; MLI_BUF_MAX];
    let mut caps = [0usize; MLI_BUF_MAX];
    for (c, s) in caps.iter_mut().zip(sizes) {
        *c = (*s as usize) * 2;
    }
    let Ok(view) = ReplyView::parse(reply) else {
        return;
    };
    let [b0, b1, b2, b3, b4, b5] = &mut storage;
    let bufs = [
        &mut b0[..caps[0]],
        &mut b1[..caps[1]],
        &mut b2[..caps[2]],
        &mut b3[..caps[3]],
        &mut b4[..caps[4]],
        &mut b5[..caps[5]],
    ];
    let mut intent = MdLockIntent::new(
        lustre_dne_intent::intent::Operation::Create,
        Default::default(),
        None,
        bufs,
    );
    intent.fill(&view);
    assert_eq!(intent.replied, !view.is_empty_result());
    for b in MliBuf::ALL {
        let rb = &intent.reply_buf[b.index()];
        assert!(rb.len <= rb.buf.len(), "length past the buffer");
        match (view.result(b), rb.state) {
            (PrepResult::Present(src), PrepResult::Present(())) => assert_eq!(rb.data(), src),
            (PrepResult::Present(src), PrepResult::Unknown(UnknownReason::Truncated { size })) => {
                assert!(src.len() > rb.buf.len());
                assert_eq!(size as usize, src.len());
                assert_eq!(rb.len, 0);
            }
            (PrepResult::Absent, PrepResult::Absent) => assert_eq!(rb.len, 0),
            (PrepResult::Unknown(a), PrepResult::Unknown(c)) => {
                assert_eq!(a, c);
                assert_eq!(rb.len, 0);
            }
            (want, got) => panic!("{b}: reply says {want:?}, intent says {got:?}"),
        }
    }
    // Nothing past the destination slices was touched.
    for (i, s) in storage.iter().enumerate() {
        assert!(
            s[caps[i]..].iter().all(|&x| x == 0xa5),
            "write past buffer {i}"
        );
    }
}

/// Arbitrary values (bounded to legal ones by their `Arbitrary` implementations) encode, and
/// decode to themselves, in both byte orders: whole requests and replies, the fixed structures
/// they carry, and POSIX ACLs. The first byte picks the type.
pub fn roundtrip_value(data: &[u8]) {
    use arbitrary::{Arbitrary, Unstructured};
    use lustre_dne_intent::Endian;
    use lustre_dne_intent::intent::{
        MdCreatePrepareRep, MdCreatePrepareReq, PrepareReply, PrepareRequest, ReplyMessage,
    };
    use lustre_dne_intent::wire::{LdlmReply, LdlmRequest, MdtBody, PtlrpcBody, WireStruct};

    fn fixed<T: WireStruct + PartialEq + Debug>(v: &T) {
        for order in [Endian::Little, Endian::Big] {
            let mut out = Vec::new();
            v.put(order, &mut out);
            assert_eq!(out.len(), T::SIZE, "{}: size", T::NAME);
            let back = T::decode(&out, order)
                .unwrap_or_else(|e| panic!("an encoded {} decodes: {e}", T::NAME));
            assert_eq!(&back, v, "{} value changed through the wire", T::NAME);
        }
    }

    let mut u = Unstructured::new(data);
    let Ok(kind) = u.int_in_range(0u8..=7) else {
        return;
    };
    match kind {
        0 | 1 => {
            let Ok(v) = PrepareRequest::arbitrary(&mut u) else {
                return;
            };
            if v.validate().is_err() {
                return;
            }
            for order in [Endian::Little, Endian::Big] {
                let bytes = v.to_bytes(order).expect("a valid request encodes");
                assert_eq!(bytes.len(), v.wire_len(), "request wire_len");
                let mut slice = vec![0u8; v.wire_len()];
                let n = v
                    .encode_into(order, &mut slice)
                    .expect("encodes into a slice");
                assert_eq!(&slice[..n], &bytes[..], "encode_into and to_bytes differ");
                let view = RequestView::parse(&bytes)
                    .unwrap_or_else(|e| panic!("an encoded request decodes: {e}"));
                assert_eq!(view.order(), order);
                assert_eq!(view.to_value(), v, "request value changed through the wire");
                let ctx = v.reply_context().expect("a valid request has a context");
                assert_eq!(view.reply_context(), ctx);
            }
        }
        2 | 3 => {
            let Ok(v) = PrepareReply::arbitrary(&mut u) else {
                return;
            };
            if v.validate(None).is_err() {
                return;
            }
            for order in [Endian::Little, Endian::Big] {
                let bytes = v.to_bytes(order).expect("a valid reply encodes");
                assert_eq!(bytes.len(), v.wire_len(), "reply wire_len");
                let mut slice = vec![0u8; v.wire_len()];
                let n = v
                    .encode_into(order, &mut slice)
                    .expect("encodes into a slice");
                assert_eq!(&slice[..n], &bytes[..], "encode_into and to_bytes differ");
                let view = ReplyView::parse(&bytes)
                    .unwrap_or_else(|e| panic!("an encoded reply decodes: {e}"));
                assert_eq!(view.order(), order);
                assert_eq!(view.to_value(), v, "reply value changed through the wire");
                let msg = ReplyMessage::parse(bytes.clone()).expect("decodes as a message");
                for b in MliBuf::ALL {
                    assert_eq!(
                        msg.result(b).map(|s| s.to_vec()),
                        view.result(b).map(<[u8]>::to_vec),
                        "{b}: message and view disagree"
                    );
                }
            }
        }
        4 => {
            let (Ok(a), Ok(b)) = (
                MdCreatePrepareReq::arbitrary(&mut u),
                MdCreatePrepareRep::arbitrary(&mut u),
            ) else {
                return;
            };
            fixed(&a);
            fixed(&b);
        }
        5 => {
            let (Ok(a), Ok(b)) = (LdlmReply::arbitrary(&mut u), MdtBody::arbitrary(&mut u)) else {
                return;
            };
            fixed(&a);
            fixed(&b);
        }
        6 => {
            let (Ok(p), Ok(mut l)) = (
                PtlrpcBody::arbitrary(&mut u),
                LdlmRequest::arbitrary(&mut u),
            ) else {
                return;
            };
            l.lock_count %= l.handles.as_slice().len() as u32 + 1;
            for order in [Endian::Little, Endian::Big] {
                let mut out = Vec::new();
                p.put_buffer(order, &mut out);
                assert_eq!(out.len(), p.wire_len());
                let back = PtlrpcBody::decode_buffer(&out, order, 0).expect("decodes");
                assert_eq!(back, p, "ptlrpc_body value changed through the wire");
                out.clear();
                l.put_buffer(order, &mut out);
                assert_eq!(out.len(), l.wire_len());
                let back = LdlmRequest::decode_buffer(&out, order, 0).expect("decodes");
                assert_eq!(back, l, "ldlm_request value changed through the wire");
            }
        }
        _ => {
            let Ok(acl) = arbitrary_acl(&mut u) else {
                return;
            };
            if acl.check().is_err() {
                return;
            }
            let bytes = acl.to_bytes().expect("a checked ACL encodes");
            let back = AclView::parse(&bytes)
                .unwrap_or_else(|e| panic!("an encoded ACL decodes: {e}"))
                .to_value();
            assert_eq!(back, acl, "ACL changed through the wire");
        }
    }
}

/// A POSIX ACL in canonical order: the three base entries, named users and groups sorted and
/// unique, and a mask when anything is named (or by chance).
fn arbitrary_acl(
    u: &mut arbitrary::Unstructured<'_>,
) -> arbitrary::Result<lustre_dne_intent::xattr::Acl> {
    use lustre_dne_intent::xattr::{Acl, AclEntry, AclPerm, AclTag};
    let perm = |u: &mut arbitrary::Unstructured<'_>| -> arbitrary::Result<AclPerm> {
        Ok(AclPerm(u.int_in_range(0..=7)?))
    };
    let named = |u: &mut arbitrary::Unstructured<'_>| -> arbitrary::Result<Vec<u32>> {
        let n = u.int_in_range(0..=8)?;
        let mut ids = (0..n)
            .map(|_| u.arbitrary())
            .collect::<arbitrary::Result<Vec<u32>>>()?;
        ids.sort_unstable();
        ids.dedup();
        Ok(ids)
    };
    let users = named(u)?;
    let groups = named(u)?;
    let mut e = Vec::new();
    if u.ratio(1, 16)? {
        return Ok(Acl::new(e));
    }
    e.push(AclEntry::new(AclTag::USER_OBJ, perm(u)?, 0));
    for id in users.iter().copied() {
        e.push(AclEntry::new(AclTag::USER, perm(u)?, id));
    }
    e.push(AclEntry::new(AclTag::GROUP_OBJ, perm(u)?, 0));
    for id in groups.iter().copied() {
        e.push(AclEntry::new(AclTag::GROUP, perm(u)?, id));
    }
    if !users.is_empty() || !groups.is_empty() || u.arbitrary()? {
        e.push(AclEntry::new(AclTag::MASK, perm(u)?, 0));
    }
    e.push(AclEntry::new(AclTag::OTHER, perm(u)?, 0));
    Ok(Acl::new(e))
}
