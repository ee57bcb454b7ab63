//! One rejection test per decoder rule (WIRE.md §2, §5, §7, §8): each breaks exactly one rule of
//! an otherwise valid message and checks the error names the right rule, structure and field.

mod common;

use common::*;
use lustre_dne_intent::intent::*;
use lustre_dne_intent::limits::*;
use lustre_dne_intent::wire::*;
use lustre_dne_intent::{DecodeError, EncodeError, Endian, ErrorKind};

fn req_err(p: &ReqParts) -> DecodeError {
    RequestView::parse(&p.encode()).expect_err("the request must be rejected")
}

fn rep_err(p: &RepParts) -> DecodeError {
    ReplyView::parse(&p.encode()).expect_err("the reply must be rejected")
}

fn rep_err_for(p: &RepParts) -> DecodeError {
    let ctx = mkdir_request().reply_context().expect("valid request");
    let bytes = p.encode();
    ReplyView::parse(&bytes).expect("valid without the request");
    ReplyView::parse_for(&bytes, &ctx).expect_err("the reply must be rejected against its request")
}

/// `mkdir_reply()` changed by `f`, through the value encoder (which must refuse what decoders
/// refuse).
fn mkdir_reply_with(f: impl FnOnce(&mut PrepareReply)) -> Result<bytes::Bytes, EncodeError> {
    let mut r = mkdir_reply();
    f(&mut r);
    r.to_bytes(Endian::Little)
}

/// `mkdir_request()` changed by `f`, through the value encoder.
fn mkdir_request_with(f: impl FnOnce(&mut PrepareRequest)) -> Result<bytes::Bytes, EncodeError> {
    let mut r = mkdir_request();
    f(&mut r);
    r.to_bytes(Endian::Little)
}

fn at(e: &DecodeError, structure: &str, field: &str) {
    assert_eq!(
        (e.at.structure, e.at.field),
        (structure, field),
        "wrong location in: {e}"
    );
}

#[test]
fn baselines_are_valid() {
    let req = ReqParts::mkdir().encode();
    let view = RequestView::parse(&req).expect("valid request");
    let ctx = view.reply_context();
    ReplyView::parse_for(&RepParts::mkdir().encode(), &ctx).expect("valid reply");
    let mut be = ReqParts::mkdir();
    be.order = Endian::Big;
    assert_eq!(
        RequestView::parse(&be.encode())
            .expect("big-endian")
            .order(),
        Endian::Big
    );
}

// ---- framing ----

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

// ---- the request: ptlrpc_body and ldlm_request ----

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
    // Not canonical: re-encoded, the body is v3 with a zero job id (WIRE.md W11.4).
    assert!(!v.is_canonical());
    let value = v.to_value();
    assert_eq!(value.ptlrpc.jobid, Some([0; 32]));
    let canonical = value.to_bytes(Endian::Little).expect("encodes");
    assert_eq!(
        MsgView::parse(&canonical).expect("framed").buflens()[0],
        184
    );
    let again = RequestView::parse(&canonical).expect("decodes");
    assert!(again.is_canonical());
    assert_eq!(again.to_value(), value);
}

#[test]
fn request_wrong_msg_type() {
    let mut p = ReqParts::mkdir();
    p.ptlrpc.msg_type = PtlrpcMsgType::REPLY;
    let e = req_err(&p);
    assert!(
        matches!(
            e.kind,
            ErrorKind::WrongValue {
                got: 4713,
                expected: 4711
            }
        ),
        "{e}"
    );
    at(&e, "ptlrpc_body", "pb_type");
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

// ---- the request: name and groups ----

fn name_err(raw: &[u8]) -> DecodeError {
    let mut p = ReqParts::mkdir();
    p.name = raw.to_vec();
    req_err(&p)
}

#[test]
fn name_not_terminated() {
    let e = name_err(b"newdir");
    assert!(
        matches!(e.kind, ErrorKind::NameNotTerminated { len: 6 }),
        "{e}"
    );
}

#[test]
fn name_empty() {
    let e = name_err(b"\0");
    assert!(matches!(e.kind, ErrorKind::NameEmpty), "{e}");
}

#[test]
fn name_too_long() {
    let mut raw = vec![b'a'; 256];
    raw.push(0);
    let e = name_err(&raw);
    assert!(matches!(e.kind, ErrorKind::NameTooLong { len: 256 }), "{e}");
    raw.drain(..1);
    let mut p = ReqParts::mkdir();
    p.name = raw;
    RequestView::parse(&p.encode()).expect("255 bytes is the longest name");
}

#[test]
fn name_with_slash() {
    let e = name_err(b"a/b\0");
    assert!(
        matches!(e.kind, ErrorKind::NameHasSlash { index: 1 }),
        "{e}"
    );
}

#[test]
fn name_dot_and_dotdot() {
    assert!(matches!(
        name_err(b".\0").kind,
        ErrorKind::NameIsDot { dots: "." }
    ));
    assert!(matches!(
        name_err(b"..\0").kind,
        ErrorKind::NameIsDot { dots: ".." }
    ));
}

#[test]
fn groups_not_aligned() {
    let mut p = ReqParts::mkdir();
    p.raw[5] = Some(vec![0; 10]);
    let e = req_err(&p);
    assert!(
        matches!(e.kind, ErrorKind::GroupsNotAligned { len: 10 }),
        "{e}"
    );
}

#[test]
fn groups_too_many() {
    let mut p = ReqParts::mkdir();
    p.groups = (0..129).collect();
    let e = req_err(&p);
    assert!(
        matches!(
            e.kind,
            ErrorKind::OverLimit {
                value: 129,
                max: 128
            }
        ),
        "{e}"
    );
    p.groups.pop();
    assert_eq!(
        RequestView::parse(&p.encode())
            .expect("128 groups")
            .groups()
            .len(),
        128
    );
}

// ---- the reply ----

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
    assert!(
        matches!(
            e.kind,
            ErrorKind::WrongValue {
                got: 4711,
                expected: 4713
            }
        ),
        "{e}"
    );
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

fn body(p: &mut RepParts) -> &mut MdCreatePrepareRep {
    p.body.as_mut().expect("the mkdir reply has a body")
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

// ---- rules an independent decoder enforced and this one did not (issue 13) ----

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

// ---- the canonical form (WIRE.md §11) ----

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
    let end_of_name = m.buffer_offset(4) + m.buflens()[4] as usize;
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
