//! The reply (WIRE.md §7, §8).

use super::*;

#[test]
fn reply_enqueue_failed() {
    let mut p = RepParts::mkdir();
    p.ptlrpc.msg_type = PtlrpcMsgType::ERR;
    p.ptlrpc.status = -71;
    let e = rep_err(&p);
    assert!(
        matches!(e.kind, ErrorKind::EnqueueFailed { status: -71, .. }),
        "{e}"
    );
    assert!(e.to_string().contains("EPROTO"), "{e}");
}

#[test]
fn reply_wrong_msg_type() {
    let mut p = RepParts::mkdir();
    p.ptlrpc.msg_type = PtlrpcMsgType::REQUEST;
    let e = rep_err(&p);
    assert_eq!(
        e.kind,
        ErrorKind::WrongMessageType {
            got: 4711,
            expected: "a reply"
        },
        "{e}"
    );
    at(&e, "ptlrpc_body", "pb_type");
    assert_eq!(e.at.offset, 72 + 8);
}

#[test]
fn reply_ldlm_too_short() {
    let mut p = RepParts::mkdir();
    p.raw[1] = Some(vec![0; 111]);
    let e = rep_err(&p);
    assert!(
        matches!(e.kind, ErrorKind::BufferTooShort { len: 111, min: 112 }),
        "{e}"
    );
}

#[test]
fn reply_not_ibits() {
    let mut p = RepParts::mkdir();
    p.ldlm.lock_desc.lr_type = LockType::EXTENT;
    let e = rep_err(&p);
    at(&e, "ldlm_reply", "lock_desc.l_resource.lr_type");
}

#[test]
fn reply_without_it_execd() {
    let mut p = RepParts::mkdir();
    p.ldlm.policy_res1 = DispFlags::LOOKUP_EXECD | DispFlags::LOOKUP_NEG;
    let e = rep_err(&p);
    assert!(
        matches!(e.kind, ErrorKind::MissingBits { required: 1, .. }),
        "{e}"
    );
}

#[test]
fn reply_policy_res2_not_zero() {
    let mut p = RepParts::mkdir();
    p.ldlm.policy_res2 = 5;
    let e = rep_err(&p);
    at(&e, "ldlm_reply", "lock_policy_res2");
}

#[test]
fn reply_dispositions_inconsistent() {
    let base = DispFlags::IT_EXECD | DispFlags::LOOKUP_EXECD;
    for disp in [
        base | DispFlags::LOOKUP_POS | DispFlags::LOOKUP_NEG,
        DispFlags::IT_EXECD | DispFlags::LOOKUP_NEG,
        base,
        DispFlags::IT_EXECD,
        base | DispFlags::LOOKUP_POS,
    ] {
        let mut p = RepParts::mkdir();
        p.ldlm.policy_res1 = disp;
        let e = rep_err(&p);
        assert!(
            matches!(e.kind, ErrorKind::DispositionMismatch { .. }),
            "{disp}: {e}"
        );
    }
}

#[test]
fn reply_body_too_short() {
    let mut p = RepParts::mkdir();
    p.raw[2] = Some(vec![0; 40]);
    let e = rep_err(&p);
    assert!(
        matches!(e.kind, ErrorKind::BufferTooShort { len: 40, min: 80 }),
        "{e}"
    );
}

#[test]
fn reply_positive_status() {
    let mut p = RepParts::mkdir();
    body(&mut p).status = 17;
    let e = rep_err(&p);
    assert!(
        matches!(e.kind, ErrorKind::PositiveStatus { got: 17 }),
        "{e}"
    );
}

#[test]
fn reply_pos_without_done() {
    let mut p = RepParts::mkdir();
    let b = body(&mut p);
    b.flags = McppFlags::LOOKUP_POS;
    b.fid = LuFid::new(0x2_0000_0401, 7, 0);
    let e = rep_err(&p);
    assert!(matches!(e.kind, ErrorKind::LookupPosWithoutDone), "{e}");
}

#[test]
fn reply_fid_and_lookup_disagree() {
    let mut p = RepParts::mkdir();
    body(&mut p).fid = LuFid::new(0x2_0000_0401, 7, 0);
    let e = rep_err(&p);
    assert!(
        matches!(
            e.kind,
            ErrorKind::FidLookupMismatch {
                state: "not positive",
                ..
            }
        ),
        "{e}"
    );
    let mut p = RepParts::mkdir();
    let b = body(&mut p);
    b.flags = McppFlags::LOOKUP_DONE | McppFlags::LOOKUP_POS;
    let e = rep_err(&p);
    assert!(
        matches!(
            e.kind,
            ErrorKind::FidLookupMismatch {
                state: "positive",
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn reply_lookup_flags_disagree_with_dispositions() {
    let mut p = RepParts::mkdir();
    body(&mut p).flags = McppFlags::PERM_DONE;
    let e = rep_err(&p);
    assert!(
        matches!(e.kind, ErrorKind::DispositionMismatch { .. }),
        "{e}"
    );
}

#[test]
fn reply_reserved_result_bits() {
    let mut p = RepParts::mkdir();
    body(&mut p).valid.0 |= 1 << 6;
    let e = rep_err(&p);
    assert!(
        matches!(e.kind, ErrorKind::ReservedResultBits { bits: 0x40 }),
        "{e}"
    );
    at(&e, "md_create_prepare_rep", "mcpp_valid");
    let mut p = RepParts::mkdir();
    body(&mut p).truncated.0 |= 1 << 31;
    let e = rep_err(&p);
    at(&e, "md_create_prepare_rep", "mcpp_truncated");
}

#[test]
fn reply_valid_and_truncated() {
    let mut p = RepParts::mkdir();
    body(&mut p).truncated |= ResultMask::DEF_ACL;
    let e = rep_err(&p);
    assert!(
        matches!(e.kind, ErrorKind::ValidAndTruncated { both } if both == ResultMask::DEF_ACL),
        "{e}"
    );
}

#[test]
fn reply_derived_needs_success_and_create() {
    let mut p = RepParts::mkdir();
    body(&mut p).status = -13;
    let e = rep_err(&p);
    assert!(
        matches!(
            e.kind,
            ErrorKind::DerivedNotCreate {
                why: "the status is not 0"
            }
        ),
        "{e}"
    );

    let mut req = mkdir_request();
    req.opc = IntentOpc::DNE_UNLINK_PREPARE;
    req.body.child_mode = 0;
    let ctx = req.reply_context().expect("valid unlink request");
    let e = ReplyView::parse_for(&RepParts::mkdir().encode(), &ctx).unwrap_err();
    assert!(
        matches!(
            e.kind,
            ErrorKind::DerivedNotCreate {
                why: "the request is not a create"
            }
        ),
        "{e}"
    );
}

#[test]
fn reply_child_mode_after_lookup_is_a_type() {
    let mut p = RepParts::mkdir();
    p.ldlm.policy_res1 = DispFlags::IT_EXECD | DispFlags::LOOKUP_EXECD | DispFlags::LOOKUP_POS;
    let b = body(&mut p);
    b.status = -17;
    b.flags = McppFlags::LOOKUP_DONE | McppFlags::LOOKUP_POS | McppFlags::PERM_DONE;
    b.fid = LuFid::new(0x2_0000_0401, 9, 0);
    b.child_mode = 0o040_755;
    let e = rep_err(&p);
    assert!(
        matches!(e.kind, ErrorKind::ChildModeNotType { got: 0o040_755 }),
        "{e}"
    );
    body(&mut p).child_mode = 0o040_000;
    ReplyView::parse(&p.encode()).expect("a bare type is fine");
}

#[test]
fn reply_result_size_mismatch() {
    let mut p = RepParts::mkdir();
    body(&mut p).buf_size[2] = 13;
    let e = rep_err(&p);
    assert!(
        matches!(e.kind, ErrorKind::ResultSizeMismatch { len: 12, size: 13 }),
        "{e}"
    );
    at(&e, "md_create_prepare_rep", "mcpp_buf_size[2]");
}

#[test]
fn reply_pattr_not_an_mdt_body() {
    let mut p = RepParts::mkdir();
    p.results[0].truncate(200);
    body(&mut p).buf_size[0] = 200;
    let e = rep_err(&p);
    assert!(
        matches!(e.kind, ErrorKind::PattrNotMdtBody { len: 200 }),
        "{e}"
    );
    at(&e, "MLI_BUF_PATTR", "");
}

#[test]
fn reply_result_over_xattr_max() {
    let mut p = RepParts::mkdir();
    p.results[1] = vec![0; XATTR_SIZE_MAX + 1];
    body(&mut p).buf_size[1] = (XATTR_SIZE_MAX + 1) as u32;
    let e = rep_err(&p);
    assert!(
        matches!(e.kind, ErrorKind::OverLimit { max: 65536, .. }),
        "{e}"
    );
}

#[test]
fn reply_buffer_without_valid() {
    let mut p = RepParts::mkdir();
    p.results[5] = b"junk".to_vec();
    let e = rep_err(&p);
    assert!(
        matches!(e.kind, ErrorKind::BufferWithoutValid { len: 4 }),
        "{e}"
    );
    at(&e, "MLI_BUF_DEF_LMV", "");
    // The empty result carries no result either.
    let mut p = RepParts::mkdir();
    p.body = None;
    let e = rep_err(&p);
    assert!(
        matches!(e.kind, ErrorKind::BufferWithoutValid { len: 216 }),
        "{e}"
    );
}

#[test]
fn reply_truncated_that_fits() {
    let mut p = RepParts::mkdir();
    body(&mut p).buf_size[4] = 0;
    let e = rep_err(&p);
    assert!(
        matches!(e.kind, ErrorKind::TruncatedButFits { size: 0, limit: 0 }),
        "{e}"
    );
    let mut p = RepParts::mkdir();
    body(&mut p).buf_size[4] = 4096;
    let e = rep_err_for(&p);
    assert!(
        matches!(
            e.kind,
            ErrorKind::TruncatedButFits {
                size: 4096,
                limit: 4096
            }
        ),
        "{e}"
    );
}

#[test]
fn reply_result_not_requested() {
    let mut req = mkdir_request();
    req.body.buf_limit[2] = 0;
    req.header.repsize = req.required_repsize();
    let ctx = req.reply_context().expect("valid");
    let e = ReplyView::parse_for(&RepParts::mkdir().encode(), &ctx).unwrap_err();
    assert!(
        matches!(e.kind, ErrorKind::ResultNotRequested { extra } if extra == ResultMask::PIN),
        "{e}"
    );
}

#[test]
fn reply_result_over_limit() {
    let mut p = RepParts::mkdir();
    p.results[2] = vec![b'x'; 300];
    body(&mut p).buf_size[2] = 300;
    let e = rep_err_for(&p);
    assert!(
        matches!(
            e.kind,
            ErrorKind::ResultOverLimit {
                size: 300,
                limit: 256
            }
        ),
        "{e}"
    );
}

#[test]
fn reply_lock_not_as_requested() {
    let mut p = RepParts::mkdir();
    p.ldlm.lock_desc.resource.name[3] ^= 1;
    let e = rep_err_for(&p);
    assert!(
        matches!(e.kind, ErrorKind::LockNotAsRequested { .. }),
        "{e}"
    );
    at(&e, "ldlm_reply", "lock_desc.l_resource.lr_name.name[3]");
    // A lock granted as its reply says it was asked for, but not as the request asked.
    let mut p = RepParts::mkdir();
    p.ldlm.lock_desc.req_mode = LockMode::EX;
    p.ldlm.lock_desc.granted_mode = LockMode::EX;
    let e = rep_err_for(&p);
    assert_eq!(
        e.kind,
        ErrorKind::LockNotAsRequested {
            got: 1,
            expected: 2
        }
    );
    assert_eq!(e.rule(), "W7.4");
    at(&e, "ldlm_reply", "lock_desc.l_granted_mode");
}

#[test]
fn reply_granted_mode_differs_from_its_req_mode() {
    let mut p = RepParts::mkdir();
    p.ldlm.lock_desc.granted_mode = LockMode::EX;
    let e = rep_err(&p);
    assert_eq!(
        e.kind,
        ErrorKind::LockNotAsRequested {
            got: 1,
            expected: 2
        }
    );
    assert_eq!(e.rule(), "W7.4");
    at(&e, "ldlm_reply", "lock_desc.l_granted_mode");
    assert!(
        mkdir_reply_with(|r| r.ldlm.lock_desc.granted_mode = LockMode::EX).is_err(),
        "the encoder refuses it too"
    );
}

#[test]
fn reply_over_repsize() {
    let ctx = mkdir_request().reply_context().expect("valid");
    let bytes = RepParts::mkdir().encode();
    let mut small = ctx;
    small.repsize = bytes.len() as u32 - 1;
    let e = ReplyView::parse_for(&bytes, &small).unwrap_err();
    assert!(
        matches!(e.kind, ErrorKind::ReplyOverRepsize { size, .. } if size == bytes.len()),
        "{e}"
    );
    small.repsize = bytes.len() as u32;
    ReplyView::parse_for(&bytes, &small).expect("a reply exactly lm_repsize long fits");
}

#[test]
fn reply_empty_result_forms() {
    let mut p = RepParts::mkdir();
    p.body = None;
    p.results = Default::default();
    let bytes = p.encode();
    let v = ReplyView::parse(&bytes).expect("9 buffers, buffer 2 empty");
    assert!(v.is_empty_result());
    assert_eq!(
        v.result(MliBuf::Pattr),
        PrepResult::Unknown(UnknownReason::EmptyResult)
    );
    p.bufcount = 2;
    let bytes = p.encode();
    let v = ReplyView::parse(&bytes).expect("bufcount 2");
    assert!(v.is_empty_result());
    assert_eq!(v.bufcount(), 2);
}

#[test]
fn encoders_refuse_what_decoders_reject() {
    let mut req = mkdir_request();
    req.body.umask = 0o7777;
    let mut buf = [0u8; 1024];
    assert!(req.encode_into(Endian::Little, &mut buf).is_err());
    let mut rep = mkdir_reply();
    rep.outcome.as_mut().expect("outcome").body.status = 1;
    assert!(rep.to_bytes(Endian::Little).is_err());
    let ok = mkdir_request();
    let e = ok.encode_into(Endian::Little, &mut buf[..10]).unwrap_err();
    assert_eq!(
        e,
        lustre_dne_intent::EncodeError::BufferTooSmall {
            need: ok.wire_len(),
            have: 10
        }
    );
}

#[test]
fn hand_built_names_obey_the_same_rules() {
    let e = EntryName::new(b"a\0b").unwrap_err();
    assert!(matches!(e.kind, ErrorKind::NameHasNul { index: 1 }), "{e}");
    assert!(matches!(
        EntryName::new(b"..").unwrap_err().kind,
        ErrorKind::NameIsDot { dots: ".." }
    ));
    assert!(matches!(
        EntryName::new(b"").unwrap_err().kind,
        ErrorKind::NameEmpty
    ));
}

#[test]
fn lock_intent_limit_past_its_buffer_names_the_buffer() {
    let mut bufs = [[0u8; 8]; 6];
    let [a, b, c, d, e, f] = &mut bufs;
    let mut intent = MdLockIntent::new(
        Operation::Create,
        mkdir_body(),
        Some(b"x"),
        [a, b, c, d, e, f],
    );
    intent.reply_buf[MliBuf::Lov.index()].len = 9;
    let err = intent.limits().unwrap_err();
    assert_eq!(err.at.field, "mli_reply_buf[MLI_BUF_LOV].lb_len");
    assert!(
        matches!(err.kind, ErrorKind::OverLimit { value: 9, max: 8 }),
        "{err}"
    );
}
