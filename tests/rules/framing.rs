//! Framing (WIRE.md §2): the header, the buffer count and lengths, buffers past the end.

use super::*;

#[test]
fn framing_short_header() {
    let e = RequestView::parse(&[0u8; 31]).unwrap_err();
    assert!(
        matches!(e.kind, ErrorKind::Truncated { need: 32, have: 31 }),
        "{e}"
    );
}

#[test]
fn framing_bad_magic() {
    let mut b = ReqParts::mkdir().encode();
    b[8] ^= 0xff;
    let e = RequestView::parse(&b).unwrap_err();
    assert!(matches!(e.kind, ErrorKind::BadMagic { .. }), "{e}");
    at(&e, "lustre_msg_v2", "lm_magic");
}

#[test]
fn framing_bufcount_zero_and_too_many() {
    for n in [0u32, 33, u32::MAX] {
        let mut b = ReqParts::mkdir().encode();
        b[..4].copy_from_slice(&n.to_le_bytes());
        let e = MsgView::parse(&b).unwrap_err();
        assert!(
            matches!(
                e.kind,
                ErrorKind::OutOfRange {
                    min: 1,
                    max: 32,
                    ..
                }
            ),
            "{e}"
        );
        at(&e, "lustre_msg_v2", "lm_bufcount");
    }
}

#[test]
fn framing_buflen_over_limit() {
    let mut b = ReqParts::mkdir().encode();
    b[32 + 4 * 5..32 + 4 * 6].copy_from_slice(&((MSG_MAX_BUFLEN + 1) as u32).to_le_bytes());
    let e = RequestView::parse(&b).unwrap_err();
    assert!(
        matches!(e.kind, ErrorKind::OverLimit { max, .. } if max == MSG_MAX_BUFLEN as u64),
        "{e}"
    );
    at(&e, "lustre_msg_v2", "lm_buflens[5]");
}

#[test]
fn framing_buffer_past_end() {
    let b = ReqParts::mkdir().encode();
    let view = MsgView::parse(&b).expect("valid");
    let cut = view.buffer_offset(3) + 10;
    let e = RequestView::parse(&b[..cut]).unwrap_err();
    assert!(matches!(e.kind, ErrorKind::Truncated { .. }), "{e}");
    at(&e, "lustre_msg_v2", "buffer[3]");
}

#[test]
fn request_too_few_buffers() {
    let mut p = ReqParts::mkdir();
    p.bufcount = 3;
    let e = req_err(&p);
    assert!(
        matches!(
            e.kind,
            ErrorKind::OutOfRange {
                value: 3,
                min: 4,
                ..
            }
        ),
        "{e}"
    );
}
