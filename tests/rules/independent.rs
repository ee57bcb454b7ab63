//! Rules an independent decoder (the second implementation the vectors were checked against)
//! enforced and this one at first did not: each is now a rule of WIRE.md with its own test.

use super::*;

/// The reply to `mkdir_request()` decoded against a changed context.
fn rep_err_ctx(p: &RepParts, f: impl FnOnce(&mut ReplyContext)) -> DecodeError {
    let mut ctx = mkdir_request().reply_context().expect("valid request");
    f(&mut ctx);
    let bytes = p.encode();
    ReplyView::parse(&bytes).expect("valid without the request");
    ReplyView::parse_for(&bytes, &ctx).expect_err("the reply must be rejected against its request")
}

#[test]
fn request_resource_name2_not_zero() {
    let mut p = ReqParts::mkdir();
    p.ldlm.lock_desc.resource.name[2] = 7;
    let e = req_err(&p);
    assert_eq!(e.kind, ErrorKind::ResourceNotFid { got: 7 });
    assert_eq!(e.rule(), "W3.1");
    at(&e, "ldlm_request", "lock_desc.l_resource.lr_name.name[2]");
    let o1 = MsgView::parse(&p.encode())
        .expect("framed")
        .buffer_offset(1);
    assert_eq!(e.at.offset, o1 + 8 + 24);
    let refused = mkdir_request_with(|r| r.ldlm.lock_desc.resource.name[2] = 7).unwrap_err();
    assert!(matches!(refused, EncodeError::Invalid(d) if d.kind == e.kind));
}

#[test]
fn reply_resource_name2_not_zero() {
    let mut p = RepParts::mkdir();
    p.ldlm.lock_desc.resource.name[2] = 1 << 40;
    let e = rep_err(&p);
    assert_eq!(e.kind, ErrorKind::ResourceNotFid { got: 1 << 40 });
    assert_eq!(e.rule(), "W3.1");
    at(&e, "ldlm_reply", "lock_desc.l_resource.lr_name.name[2]");
    assert!(mkdir_reply_with(|r| r.ldlm.lock_desc.resource.name[2] = 1 << 40).is_err());
}

#[test]
fn request_lock_mode_not_a_client_mode() {
    // 0 and non-powers of two, which Lustre rejects too; GROUP 64, COS 128 and TXN 256, which
    // Lustre's enqueue takes but no inodebits intent asks for; and one past NL's range.
    for mode in [0u32, 3, 6, 33, 64, 128, 256, 512, u32::MAX] {
        let mut p = ReqParts::mkdir();
        p.ldlm.lock_desc.req_mode = LockMode(mode);
        let e = req_err(&p);
        assert_eq!(e.kind, ErrorKind::BadLockMode { got: mode }, "mode {mode}");
        assert_eq!(e.rule(), "W3.2");
        at(&e, "ldlm_request", "lock_desc.l_req_mode");
        assert!(mkdir_request_with(|r| r.ldlm.lock_desc.req_mode = LockMode(mode)).is_err());
    }
    for mode in [1u32, 2, 4, 8, 16, 32] {
        let mut p = ReqParts::mkdir();
        p.ldlm.lock_desc.req_mode = LockMode(mode);
        RequestView::parse(&p.encode()).expect("the six client modes are accepted");
    }
}

#[test]
fn reply_lock_mode_not_a_client_mode() {
    let mut p = RepParts::mkdir();
    p.ldlm.lock_desc.req_mode = LockMode::GROUP;
    p.ldlm.lock_desc.granted_mode = LockMode::GROUP;
    let e = rep_err(&p);
    assert_eq!(e.kind, ErrorKind::BadLockMode { got: 64 });
    assert_eq!(e.rule(), "W3.2");
    at(&e, "ldlm_reply", "lock_desc.l_req_mode");
}

#[test]
fn reply_dispositions_beyond_the_listed_ones() {
    for extra in [DispFlags::OPEN_CREATE.0, 0x0080_0000, 1 << 63] {
        let mut p = RepParts::mkdir();
        p.ldlm.policy_res1 = DispFlags(p.ldlm.policy_res1.0 | extra);
        let e = rep_err(&p);
        assert_eq!(
            e.kind,
            ErrorKind::ForbiddenBits {
                got: p.ldlm.policy_res1.0,
                forbidden: extra
            }
        );
        assert_eq!(e.rule(), "W0.6");
        at(&e, "ldlm_reply", "lock_policy_res1");
        assert!(
            mkdir_reply_with(|r| r.ldlm.policy_res1 = DispFlags(r.ldlm.policy_res1.0 | extra))
                .is_err()
        );
    }
}

/// A minimal access-style ACL: USER_OBJ rw-, GROUP_OBJ r--, OTHER r--.
fn acl3() -> Vec<u8> {
    let mut v = 2u32.to_le_bytes().to_vec();
    for (tag, perm) in [(0x01u16, 6u16), (0x04, 4), (0x20, 4)] {
        v.extend_from_slice(&tag.to_le_bytes());
        v.extend_from_slice(&perm.to_le_bytes());
        v.extend_from_slice(&u32::MAX.to_le_bytes());
    }
    v
}

/// The mkdir reply with result `buf` present as `bytes`.
fn with_result(buf: MliBuf, bytes: Vec<u8>) -> RepParts {
    let mut p = RepParts::mkdir();
    let b = body(&mut p);
    b.valid |= buf.bit();
    b.truncated = b.truncated.difference(buf.bit());
    b.buf_size[buf.index()] = bytes.len() as u32;
    p.results[buf.index()] = bytes;
    p
}

#[test]
fn reply_present_results_are_valid_payloads() {
    let good = with_result(MliBuf::DefAcl, acl3());
    ReplyView::parse_for(
        &good.encode(),
        &mkdir_request().reply_context().expect("valid"),
    )
    .expect("a valid default ACL");
    let mut perm8 = acl3();
    perm8[4 + 8 + 2] = 8; // GROUP_OBJ e_perm
    let mut v3 = acl3();
    v3[0] = 3;
    let mut lmv = vec![0u8; 56];
    lmv[..4].copy_from_slice(&0x0CD2_0CD1u32.to_le_bytes());
    let cases = [
        (
            MliBuf::DefAcl,
            perm8,
            ErrorKind::AclBadPerm { index: 1, perm: 8 },
            "W9.5",
            4 + 8 + 2,
        ),
        (
            MliBuf::DefAcl,
            v3,
            ErrorKind::AclUnsupportedVersion { got: 3 },
            "W9.10",
            0,
        ),
        (
            MliBuf::Lmv,
            lmv,
            ErrorKind::UnknownMagic { got: 0x0CD2_0CD1 },
            "W9.1",
            0,
        ),
    ];
    for (buf, bytes, kind, rule, rel) in cases {
        let p = with_result(buf, bytes);
        let msg = p.encode();
        let e = ReplyView::parse(&msg).unwrap_err();
        assert_eq!((e.kind, e.rule().as_str()), (kind, rule), "{e}");
        let off = MsgView::parse(&msg)
            .expect("framed")
            .buffer_offset(3 + buf.index());
        assert_eq!(e.at.offset, off + rel, "{e}");
        // The value encoder refuses the same reply.
        let refused = mkdir_reply_with(|r| {
            let o = r.outcome.as_mut().expect("outcome");
            o.set_result(
                buf,
                PrepResult::Present(p.results[buf.index()].clone().into()),
            );
        })
        .unwrap_err();
        assert!(matches!(refused, EncodeError::Invalid(d) if d.kind == kind));
    }
}

#[test]
fn reply_truncated_pattr() {
    let mut p = RepParts::mkdir();
    let b = body(&mut p);
    b.valid = b.valid.difference(ResultMask::PATTR);
    b.truncated |= ResultMask::PATTR;
    b.buf_size[0] = 216;
    p.results[0].clear();
    let e = rep_err(&p);
    assert_eq!(e.kind, ErrorKind::PattrTruncated { size: 216 });
    assert_eq!(e.rule(), "W6.2");
    at(&e, "md_create_prepare_rep", "mcpp_truncated");
    assert!(
        mkdir_reply_with(|r| r.outcome.as_mut().expect("outcome").set_result(
            MliBuf::Pattr,
            PrepResult::Unknown(UnknownReason::Truncated { size: 5000 })
        ))
        .is_err()
    );
}

#[test]
fn reply_size_for_a_result_not_requested() {
    // DEF_LMV is not provided in the mkdir reply; a request that did not ask for it gets no
    // size for it either.
    let mut p = RepParts::mkdir();
    body(&mut p).buf_size[5] = 48;
    let e = rep_err_ctx(&p, |c| c.limits[5] = 0);
    assert_eq!(
        e.kind,
        ErrorKind::ResultNotRequested {
            extra: ResultMask::DEF_LMV
        }
    );
    assert_eq!(e.rule(), "W7.9");
    at(&e, "md_create_prepare_rep", "mcpp_buf_size[5]");
    // Requested but not provided, a size is not looked at.
    ReplyView::parse_for(
        &p.encode(),
        &mkdir_request().reply_context().expect("valid"),
    )
    .expect("requested");
}

#[test]
fn reply_full_to_a_request_with_unknown_flags() {
    let p = RepParts::mkdir();
    let e = rep_err_ctx(&p, |c| c.flags = McprFlags(c.flags.0 | 0x100));
    assert_eq!(e.kind, ErrorKind::ReplyToUnknownFlags { flags: 0x100 });
    assert_eq!(e.rule(), "W7.15");
    let mut empty = RepParts::mkdir();
    empty.body = None;
    empty.results = Default::default();
    empty.ldlm.policy_res1 = DispFlags::IT_EXECD;
    let mut ctx = mkdir_request().reply_context().expect("valid");
    ctx.flags = McprFlags(ctx.flags.0 | 0x100);
    ReplyView::parse_for(&empty.encode(), &ctx).expect("the empty result is the answer");
    // A request with such a flag builds such a context.
    let mut req = mkdir_request();
    req.body.flags = McprFlags(0x100);
    let ctx = req.reply_context().expect("unknown flags are kept");
    assert!(ReplyView::parse_for(&p.encode(), &ctx).is_err());
    assert!(mkdir_reply().validate(Some(&ctx)).is_err());
}

#[test]
fn reply_lookup_in_object_mode() {
    let p = RepParts::mkdir();
    let e = rep_err_ctx(&p, |c| c.flags = McprFlags::NO_LOOKUP);
    assert_eq!(e.kind, ErrorKind::LookupInObjectMode);
    assert_eq!(e.rule(), "W7.16");
    at(&e, "ldlm_reply", "lock_policy_res1");
    // Without a lookup the same reply is fine in object mode.
    let mut p = RepParts::mkdir();
    p.ldlm.policy_res1 = DispFlags::IT_EXECD;
    body(&mut p).flags = McppFlags::PERM_DONE;
    let mut ctx = mkdir_request().reply_context().expect("valid");
    ctx.flags = McprFlags::NO_LOOKUP;
    ctx.op = Operation::Rename;
    ReplyView::parse_for(&p.encode(), &ctx).expect("no lookup in object mode");
}
