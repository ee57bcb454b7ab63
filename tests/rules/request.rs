//! The request (WIRE.md §5): `ptlrpc_body`, `ldlm_request`, `ldlm_intent` and
//! `md_create_prepare_req`.

use super::*;

#[test]
fn request_ptlrpc_too_short() {
    let mut p = ReqParts::mkdir();
    p.raw[0] = Some(vec![0; 151]);
    let e = req_err(&p);
    assert!(
        matches!(e.kind, ErrorKind::BufferTooShort { len: 151, min: 152 }),
        "{e}"
    );
    at(&e, "ptlrpc_body", "");
}

#[test]
fn request_ptlrpc_v2_accepted() {
    let mut p = ReqParts::mkdir();
    p.ptlrpc.jobid = None;
    let bytes = p.encode();
    let v = RequestView::parse(&bytes).expect("a 152-byte ptlrpc_body_v2 is accepted");
    assert_eq!(v.ptlrpc().jobid, None);
    // A v2 body is its own value, without a job id, and re-encodes as v2 (WIRE.md W11.4).
    assert!(v.is_canonical());
    let value = v.to_value();
    assert_eq!(value.ptlrpc.jobid, None);
    assert_eq!(
        &value.to_bytes(Endian::Little).expect("encodes")[..],
        &bytes[..]
    );
    // A longer v2 body (160 bytes: not a v3 one) is written at the v2 size.
    let mut longer = ReqParts::mkdir();
    longer.ptlrpc.jobid = None;
    let mut b0 = Vec::new();
    longer.ptlrpc.put_buffer(Endian::Little, &mut b0);
    b0.resize(160, 0);
    longer.raw[0] = Some(b0);
    let longer = longer.encode();
    let v = RequestView::parse(&longer).expect("a longer v2 body is accepted");
    assert!(!v.is_canonical());
    let canonical = v.to_value().to_bytes(Endian::Little).expect("encodes");
    assert_eq!(
        MsgView::parse(&canonical).expect("framed").buflen(0),
        Some(152)
    );
    assert_eq!(&canonical[..], &bytes[..]);
}

#[test]
fn request_wrong_msg_type() {
    let mut p = ReqParts::mkdir();
    p.ptlrpc.msg_type = PtlrpcMsgType::REPLY;
    let e = req_err(&p);
    assert_eq!(
        e.kind,
        ErrorKind::WrongMessageType {
            got: 4713,
            expected: "a request"
        },
        "{e}"
    );
    at(&e, "ptlrpc_body", "pb_type");
    assert_eq!(e.at.offset, 56 + 8);
}

#[test]
fn request_wrong_version() {
    let mut p = ReqParts::mkdir();
    p.ptlrpc.version = 0x0002_0003;
    let e = req_err(&p);
    at(&e, "ptlrpc_body", "pb_version");
}

#[test]
fn request_wrong_opcode() {
    let mut p = ReqParts::mkdir();
    p.ptlrpc.opc = 36;
    let e = req_err(&p);
    assert!(
        matches!(
            e.kind,
            ErrorKind::WrongValue {
                got: 36,
                expected: 101
            }
        ),
        "{e}"
    );
    at(&e, "ptlrpc_body", "pb_opc");
}

#[test]
fn request_ldlm_too_short_and_ragged() {
    let mut p = ReqParts::mkdir();
    let full = p.bufs()[1].clone();
    p.raw[1] = Some(full[..103].to_vec());
    let e = req_err(&p);
    assert!(
        matches!(e.kind, ErrorKind::BufferTooShort { len: 103, min: 104 }),
        "{e}"
    );
    let mut ragged = full.clone();
    ragged.extend_from_slice(&[0; 4]);
    p.raw[1] = Some(ragged);
    let e = req_err(&p);
    assert!(
        matches!(e.kind, ErrorKind::BadBufferLength { len: 108, .. }),
        "{e}"
    );
    at(&e, "ldlm_request", "lock_handle");
}

#[test]
fn request_ldlm_too_many_handles() {
    let mut p = ReqParts::mkdir();
    let mut b = p.bufs()[1].clone();
    b.resize(LDLM_REQUEST_FIXED + 8 * (LDLM_REQUEST_MAX_HANDLES + 1), 0);
    p.raw[1] = Some(b);
    let e = req_err(&p);
    assert!(
        matches!(e.kind, ErrorKind::OverLimit { value: 33, max: 32 }),
        "{e}"
    );
}

#[test]
fn request_ldlm_lock_count_over_handles() {
    let mut p = ReqParts::mkdir();
    p.ldlm.lock_count = 3;
    let e = req_err(&p);
    assert!(
        matches!(e.kind, ErrorKind::OverLimit { value: 3, max: 2 }),
        "{e}"
    );
    at(&e, "ldlm_request", "lock_count");
}

#[test]
fn request_without_has_intent() {
    let mut p = ReqParts::mkdir();
    p.ldlm.lock_flags = LdlmFlags::EMPTY;
    let e = req_err(&p);
    assert!(
        matches!(
            e.kind,
            ErrorKind::MissingBits {
                required: 0x1000,
                ..
            }
        ),
        "{e}"
    );
    at(&e, "ldlm_request", "lock_flags");
}

#[test]
fn request_not_ibits() {
    let mut p = ReqParts::mkdir();
    p.ldlm.lock_desc.lr_type = LockType::PLAIN;
    let e = req_err(&p);
    assert!(
        matches!(
            e.kind,
            ErrorKind::WrongValue {
                got: 10,
                expected: 13
            }
        ),
        "{e}"
    );
}

#[test]
fn request_without_update_bit() {
    let mut p = ReqParts::mkdir();
    p.ldlm.lock_desc.policy.bits = InodeBits::LOOKUP;
    let e = req_err(&p);
    assert!(
        matches!(e.kind, ErrorKind::MissingBits { required: 2, .. }),
        "{e}"
    );
    at(&e, "ldlm_request", "lock_desc.l_policy_data.bits");
}

#[test]
fn request_intent_too_short() {
    let mut p = ReqParts::mkdir();
    p.raw[2] = Some(vec![0; 7]);
    let e = req_err(&p);
    assert!(
        matches!(e.kind, ErrorKind::BufferTooShort { len: 7, min: 8 }),
        "{e}"
    );
    at(&e, "ldlm_intent", "");
}

#[test]
fn request_unknown_intent() {
    let mut p = ReqParts::mkdir();
    p.opc = IntentOpc::GETATTR;
    let e = req_err(&p);
    assert!(
        matches!(e.kind, ErrorKind::UnknownIntent { got: 0x8 }),
        "{e}"
    );
    at(&e, "ldlm_intent", "opc");
}

// ---- the request: md_create_prepare_req ----

#[test]
fn request_body_too_short_longer_accepted() {
    let mut p = ReqParts::mkdir();
    let full = p.bufs()[3].clone();
    p.raw[3] = Some(full[..79].to_vec());
    let e = req_err(&p);
    assert!(
        matches!(e.kind, ErrorKind::BufferTooShort { len: 79, min: 80 }),
        "{e}"
    );
    let mut longer = full;
    longer.extend_from_slice(&[0xee; 16]);
    p.raw[3] = Some(longer);
    RequestView::parse(&p.encode()).expect("bytes past 80 are ignored");
}

#[test]
fn request_fid_not_resource() {
    let mut p = ReqParts::mkdir();
    p.body.fid = LuFid::new(0x2_0000_0402, 1, 0);
    let e = req_err(&p);
    assert!(matches!(e.kind, ErrorKind::FidNotResource { .. }), "{e}");
    at(&e, "md_create_prepare_req", "mcpr_fid");
}

#[test]
fn request_umask_extra_bits() {
    let mut p = ReqParts::mkdir();
    p.body.umask = 0o1022;
    let e = req_err(&p);
    assert!(
        matches!(
            e.kind,
            ErrorKind::ForbiddenBits {
                forbidden: 0o1000,
                ..
            }
        ),
        "{e}"
    );
    at(&e, "md_create_prepare_req", "mcpr_umask");
}

#[test]
fn request_object_mode_only_for_rename() {
    let mut p = ReqParts::mkdir();
    p.body.flags = McprFlags::NO_LOOKUP;
    p.name.clear();
    let e = req_err(&p);
    assert!(
        matches!(
            e.kind,
            ErrorKind::ObjectModeNotRename {
                op: "IT_DNE_CREATE_PREPARE"
            }
        ),
        "{e}"
    );
}

#[test]
fn request_object_mode_with_name() {
    let mut p = ReqParts::mkdir();
    p.opc = IntentOpc::DNE_RENAME_PREPARE;
    p.body.child_mode = 0;
    p.body.flags = McprFlags::NO_LOOKUP;
    let e = req_err(&p);
    assert!(
        matches!(e.kind, ErrorKind::NameInObjectMode { len: 7 }),
        "{e}"
    );
    p.name.clear();
    let bytes = p.encode();
    let v = RequestView::parse(&bytes).expect("object-mode rename");
    assert_eq!(v.name(), None);
}

#[test]
fn request_entry_mode_without_name() {
    for opc in [
        IntentOpc::DNE_CREATE_PREPARE,
        IntentOpc::DNE_RENAME_PREPARE,
        IntentOpc::DNE_UNLINK_PREPARE,
    ] {
        let mut p = ReqParts::mkdir();
        p.opc = opc;
        if opc != IntentOpc::DNE_CREATE_PREPARE {
            p.body.child_mode = 0;
        }
        p.name.clear();
        let e = req_err(&p);
        assert!(matches!(e.kind, ErrorKind::MissingName { .. }), "{e}");
        at(&e, "name", "");
    }
}

#[test]
fn request_create_bad_type() {
    for mode in [0o755, 0o030_755, 0o170_755] {
        let mut p = ReqParts::mkdir();
        p.body.child_mode = mode;
        let e = req_err(&p);
        assert!(matches!(e.kind, ErrorKind::BadChildType { .. }), "{e}");
        at(&e, "md_create_prepare_req", "mcpr_child_mode");
    }
}

#[test]
fn request_rename_unlink_mode_not_zero() {
    for opc in [IntentOpc::DNE_RENAME_PREPARE, IntentOpc::DNE_UNLINK_PREPARE] {
        let mut p = ReqParts::mkdir();
        p.opc = opc;
        let e = req_err(&p);
        assert!(
            matches!(e.kind, ErrorKind::ChildModeNotZero { got: 0o040_755, .. }),
            "{e}"
        );
    }
}

#[test]
fn request_limit_over_xattr_max() {
    let mut p = ReqParts::mkdir();
    p.body.buf_limit[3] = 65537;
    p.header.repsize = u32::MAX;
    let e = req_err(&p);
    assert!(
        matches!(
            e.kind,
            ErrorKind::OverLimit {
                value: 65537,
                max: 65536
            }
        ),
        "{e}"
    );
    at(&e, "md_create_prepare_req", "mcpr_buf_limit[3]");
}

#[test]
fn request_pattr_limit_too_small() {
    let mut p = ReqParts::mkdir();
    p.body.buf_limit[0] = 215;
    let e = req_err(&p);
    assert!(
        matches!(e.kind, ErrorKind::PattrLimitTooSmall { got: 215 }),
        "{e}"
    );
    at(&e, "md_create_prepare_req", "mcpr_buf_limit[0]");
}

#[test]
fn reply_size_is_the_framed_reply_at_the_limits() {
    // 72 (header, nine lengths, padded) + 184 + 112 + 80 + the limits, each padded to 8.
    assert_eq!(
        reply_size_for(&[216, 4096, 256, 4096, 4096, 48]),
        72 + 184 + 112 + 80 + 216 + 4096 + 256 + 4096 + 4096 + 48
    );
    assert_eq!(reply_size_for(&[0; 6]), 448);
    for limits in [[1, 2, 3, 4, 5, 7], [65536; 6], [0, 9, 0, 17, 0, 65535]] {
        let mut lens = vec![184, 112, 80];
        lens.extend(limits.iter().map(|&l| l as usize));
        assert_eq!(
            reply_size_for(&limits),
            lustre_dne_intent::wire::msg_size(&lens),
            "{limits:?}"
        );
    }
}

#[test]
fn request_repsize_too_small() {
    let mut p = ReqParts::mkdir();
    let need = reply_size_for(&p.body.buf_limit);
    p.header.repsize = need as u32 - 1;
    let e = req_err(&p);
    assert!(
        matches!(e.kind, ErrorKind::RepsizeTooSmall { need: n, .. } if n == need),
        "{e}"
    );
    at(&e, "lustre_msg_v2", "lm_repsize");
}

#[test]
fn request_unknown_flags_kept() {
    let mut p = ReqParts::mkdir();
    p.body.flags = McprFlags(0x8000_0004);
    let bytes = p.encode();
    let v = RequestView::parse(&bytes).expect("unknown flag bits are not an error");
    assert_eq!(v.unknown_flags(), McprFlags(0x8000_0004));
    assert_eq!(v.to_value().body.flags, McprFlags(0x8000_0004));
}
