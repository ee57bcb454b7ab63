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
    // mcpp_fid [0x0:0x0:0x1] is zero (fid_is_zero) and re-encodes as 16 zero bytes (W11.6).
    let mut p = RepParts::mkdir();
    body(&mut p).fid = LuFid::new(0, 0, 1);
    let bytes = p.encode();
    let v = ReplyView::parse(&bytes).expect("a FID with only f_ver set is zero");
    assert!(!v.is_canonical());
    assert_eq!(v.to_value().outcome.expect("body").body.fid, LuFid::ZERO);
    assert_eq!(
        &v.to_value().to_bytes(Endian::Little).expect("encodes")[..],
        &RepParts::mkdir().encode()[..]
    );
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
