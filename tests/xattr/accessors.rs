//! The typed xattr accessors of a reply.

use super::*;

fn reply_with(results: &[(MliBuf, PrepResult<Bytes>)]) -> Vec<u8> {
    let body = MdCreatePrepareReq {
        fid: LuFid::new(0x200000401, 1, 0),
        child_mode: 0o040755,
        buf_limit: [216, 65536, 65536, 65536, 65536, 65536],
        ..Default::default()
    };
    let name = EntryName::new(b"newdir").unwrap();
    let req = PrepareRequest::new(
        Operation::Create,
        body,
        Some(name),
        GroupList::new(),
        LockMode::PW,
        0x1234,
    );
    let ctx = req.reply_context().unwrap();
    let mut o = PrepareOutcome::new(MdCreatePrepareRep::default());
    for (b, s) in results {
        o.set_result(*b, s.clone());
    }
    let r = PrepareReply::granting(&ctx, LustreHandle::default(), Some(o));
    r.to_bytes(Endian::Little).unwrap().to_vec()
}

#[test]
fn reply_accessors() {
    let acl_b = Bytes::from(vector("xattr_acl_default"));
    let lov_b = Bytes::from(vector("xattr_lov_comp3"));
    let msg = reply_with(&[
        (MliBuf::DefAcl, PrepResult::Present(acl_b.clone())),
        (MliBuf::Pin, PrepResult::Absent),
        (MliBuf::Lov, PrepResult::Present(lov_b)),
        (
            MliBuf::DefLmv,
            PrepResult::Unknown(UnknownReason::Truncated { size: 70000 }),
        ),
    ]);
    let view = ReplyView::parse(&msg).unwrap();
    let PrepResult::Present(a) = view.def_acl() else {
        panic!()
    };
    assert_eq!(a.len(), 6);
    assert_eq!(view.pin().state_name(), "absent");
    assert_eq!(view.lmv().state_name(), "unknown");
    assert!(matches!(view.lov(), PrepResult::Present(LovView::Comp(_))));
    assert_eq!(view.def_lmv().state_name(), "truncated");

    // A malformed known-present payload fails the reply (WIRE.md §7), reported at its offset in
    // the message with the payload's rule; the encoder refuses it too.
    let mut msg = reply_with(&[(MliBuf::DefAcl, PrepResult::Present(acl_b.clone()))]);
    let base = ReplyView::parse(&msg)
        .unwrap()
        .result_offset(MliBuf::DefAcl);
    assert_eq!(&msg[base..base + 4], &2u32.to_le_bytes());
    msg[base + 6] = 9; // USER_OBJ e_perm
    let e = ReplyView::parse(&msg).unwrap_err();
    assert_eq!(e.kind, ErrorKind::AclBadPerm { index: 0, perm: 9 });
    assert_eq!(e.at.offset, base + 6);
    assert_eq!(e.rule(), "W9.5");
    let mut bad = acl_b.to_vec();
    bad[6] = 9;
    let mut o = PrepareOutcome::new(MdCreatePrepareRep::default());
    o.set_result(MliBuf::DefAcl, PrepResult::Present(Bytes::from(bad)));
    let mut rep = ReplyView::parse(&reply_with(&[])).unwrap().to_value();
    rep.outcome = Some(o);
    let e = rep.to_bytes(Endian::Little).unwrap_err();
    assert!(
        matches!(e, EncodeError::Invalid(d) if d.kind == ErrorKind::AclBadPerm { index: 0, perm: 9 }),
        "{e}"
    );
}
