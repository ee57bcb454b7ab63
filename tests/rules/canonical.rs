//! The canonical form (WIRE.md §11).

use super::*;

#[test]
fn canonical_messages_say_so() {
    let req = ReqParts::mkdir().encode();
    assert!(RequestView::parse(&req).expect("valid").is_canonical());
    let rep = RepParts::mkdir().encode();
    assert!(ReplyView::parse(&rep).expect("valid").is_canonical());
    // Big-endian is valid, not canonical (W11.1).
    let mut be = ReqParts::mkdir();
    be.order = Endian::Big;
    let be_bytes = be.encode();
    let v = RequestView::parse(&be_bytes).expect("valid");
    assert!(!v.is_canonical());
    assert_eq!(
        &v.to_value().to_bytes(Endian::Little).expect("encodes")[..],
        &req[..]
    );
}

#[test]
fn canonical_zero_fid_and_short_forms() {
    // mcpp_fid [0x0:0x0:0x1] is zero (fid_is_zero, so no lookup is needed for it, W7.7), and
    // it keeps its f_ver: canonical as it is, in either byte order (W11.10).
    let mut r = mkdir_reply();
    r.outcome.as_mut().expect("body").body.fid = LuFid::new(0, 0, 1);
    let le = r.to_bytes(Endian::Little).expect("valid");
    for order in [Endian::Little, Endian::Big] {
        let bytes = r.to_bytes(order).expect("valid");
        let v = ReplyView::parse(&bytes).expect("a FID with only f_ver set is zero");
        assert_eq!(v.is_canonical(), order == Endian::Little);
        let value = v.to_value();
        let fid = value.outcome.as_ref().expect("body").body.fid;
        assert_eq!(fid, LuFid::new(0, 0, 1));
        assert_eq!(fid.to_string(), "[0x0:0x0:0x1]");
        assert_eq!(&value.to_bytes(order).expect("encodes")[..], &bytes[..]);
        assert_eq!(
            &value.to_bytes(Endian::Little).expect("encodes")[..],
            &le[..]
        );
        // The view's own encoder keeps it too, in the order received and in the other.
        for to in [Endian::Little, Endian::Big] {
            let mut out = vec![0u8; bytes.len()];
            let n = v.encode_into(to, &mut out).expect("fits");
            assert_eq!(&out[..n], &r.to_bytes(to).expect("valid")[..]);
        }
    }
    // The 2-buffer empty result re-encodes with 9 buffers (W11.3).
    let mut e = RepParts::mkdir();
    e.body = None;
    e.results = Default::default();
    e.ldlm.policy_res1 = DispFlags::IT_EXECD;
    let nine = e.encode();
    e.bufcount = 2;
    let e_bytes = e.encode();
    let v = ReplyView::parse(&e_bytes).expect("the short empty result");
    assert!(!v.is_canonical());
    assert_eq!(
        &v.to_value().to_bytes(Endian::Little).expect("encodes")[..],
        &nine[..]
    );
    // A 5-buffer request (no groups buffer) re-encodes with 6 (W11.3).
    let mut r = ReqParts::mkdir();
    r.groups.clear();
    let six = r.encode();
    r.bufcount = 5;
    let r_bytes = r.encode();
    let v = RequestView::parse(&r_bytes).expect("no groups buffer");
    assert!(!v.is_canonical());
    assert_eq!(
        &v.to_value().to_bytes(Endian::Little).expect("encodes")[..],
        &six[..]
    );
    // Non-zero padding after the name is dropped (W11.2).
    let mut padded = ReqParts::mkdir().encode();
    let m = MsgView::parse(&padded).expect("framed");
    let end_of_name = m.buffer_offset(4) + m.buflen(4).expect("buffer 4") as usize;
    padded[end_of_name] = 0xee;
    let v = RequestView::parse(&padded).expect("padding is ignored");
    assert!(!v.is_canonical());
    assert_eq!(
        &v.to_value().to_bytes(Endian::Little).expect("encodes")[..],
        &req_bytes()[..]
    );
}

fn req_bytes() -> Vec<u8> {
    ReqParts::mkdir().encode()
}

/// Every valid message of the conformance vectors, re-encoded in the other byte order (by the
/// view, and by its value), decodes to the same value, field by field: PATTR's `mdt_body`
/// included, which is a numeric structure in the sender's order (Lustre swabs it with
/// `lustre_swab_mdt_body`), where the xattr results are little-endian in both.
#[test]
fn every_vector_keeps_its_values_in_the_other_byte_order() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/testdata/vectors/dne_intent_vectors.json"
    ))
    .expect("vectors");
    let unhex = |s: &str| -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
            .collect()
    };
    // The vectors file is JSON; its hex fields are found without a JSON parser in this binary.
    let mut checked = [0usize; 2];
    for line in text.split("\"hex\": \"").skip(1) {
        let bytes = unhex(&line[..line.find('"').expect("closing quote")]);
        let Ok(view) = MessageView::parse(&bytes) else {
            continue;
        };
        let other = match view.order() {
            Endian::Little => Endian::Big,
            Endian::Big => Endian::Little,
        };
        let value = view.to_value();
        let out = value.to_bytes(other).expect("valid value");
        if let MessageView::Reply(v) = view {
            let mut direct = vec![0u8; out.len()];
            let n = v.encode_into(other, &mut direct).expect("fits");
            assert_eq!(
                &direct[..n],
                &out[..],
                "the view writes what its value writes"
            );
        }
        let again = MessageView::parse(&out).expect("re-encoded in the other order");
        assert_eq!(again.order(), other);
        assert_eq!(again.to_value(), value, "re-encoded in {other}");
        if let (MessageView::Reply(a), MessageView::Reply(b)) = (view, again) {
            assert_eq!(a.pattr(), b.pattr(), "PATTR's fields");
        }
        checked[usize::from(matches!(view, MessageView::Reply(_)))] += 1;
    }
    assert!(checked[0] > 50 && checked[1] > 50, "{checked:?}");
}

/// The big-endian golden reply's PATTR (mode 042775) is kept through a little-endian
/// re-encoding; it came back as 037521200000 when the body was copied unconverted.
#[test]
fn a_big_endian_pattr_is_converted() {
    let be = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/testdata/mkdir_reply_be.bin"
    ))
    .expect("vector");
    let le = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/testdata/mkdir_reply_complete.bin"
    ))
    .expect("vector");
    let v = ReplyView::parse(&be).expect("valid");
    let PrepResult::Present(attrs) = v.pattr() else {
        panic!("PATTR present")
    };
    assert_eq!(attrs.mode, 0o42775);
    // Its canonical form is the little-endian twin, byte for byte.
    assert_eq!(
        &v.to_value().to_bytes(Endian::Little).expect("valid")[..],
        &le[..]
    );
    let mut out = [0u8; 1024];
    let n = v.encode_into(Endian::Little, &mut out).expect("fits");
    assert_eq!(&out[..n], &le[..]);
    let n = ReplyView::parse(&le)
        .expect("valid")
        .encode_into(Endian::Big, &mut out)
        .expect("fits");
    assert_eq!(&out[..n], &be[..]);
}
