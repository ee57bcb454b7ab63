//! The reply vectors, each decoded and checked field by field (and against its request), then
//! re-encoded.

use super::*;

#[derive(Debug, Clone)]
pub(crate) enum Exp {
    /// A present PATTR, compared as a decoded `mdt_body`.
    Body(MdtBody),
    /// A present xattr payload, compared byte for byte.
    Bytes(Vec<u8>),
    Absent,
    Unknown(UnknownReason),
}

pub(crate) struct ExpRep {
    request: &'static str,
    order: Endian,
    buflens: [u32; 9],
    wire_len: usize,
    xid: u64,
    fid: LuFid,
    hash: u64,
    mode: LockMode,
    disp: u64,
    body: Option<MdCreatePrepareRep>,
    results: [Exp; 6],
}

pub(crate) const NP: Exp = Exp::Unknown(UnknownReason::NotProvided);

pub(crate) fn derived(
    flags: u32,
    valid: u32,
    truncated: u32,
    buf_size: [u32; 6],
) -> MdCreatePrepareRep {
    MdCreatePrepareRep {
        status: 0,
        flags: McppFlags(flags),
        valid: ResultMask(valid),
        truncated: ResultMask(truncated),
        fid: LuFid::ZERO,
        child_mode: 0o042755,
        child_gid: 600,
        child_projid: 1000,
        child_flags: PROJINHERIT,
        buf_size,
    }
}

pub(crate) fn exp_complete(order: Endian, request: &'static str) -> ExpRep {
    ExpRep {
        request,
        order,
        buflens: [184, 112, 80, 216, 44, 19, 88, 32, 48],
        wire_len: 904,
        xid: XID_MKDIR,
        fid: PARENT,
        hash: HASH_NEWDIR,
        mode: LockMode::PW,
        disp: 0x7, // IT_EXECD | LOOKUP_EXECD | LOOKUP_NEG
        body: Some(derived(0x15, 0x3f, 0, [216, 44, 19, 88, 32, 48])),
        results: [
            Exp::Body(parent_body()),
            Exp::Bytes(DEF_ACL.to_vec()),
            Exp::Bytes(PIN.to_vec()),
            Exp::Bytes(lmv()),
            Exp::Bytes(lov()),
            Exp::Bytes(def_lmv()),
        ],
    }
}

pub(crate) fn check_reply(name: &str, e: &ExpRep) {
    let bytes = load(name);
    assert_eq!(bytes.len(), e.wire_len, "{name}: file length");
    let req_bytes = load(e.request);
    let req = RequestView::parse(&req_bytes).unwrap_or_else(|err| panic!("{}: {err}", e.request));
    let ctx = req.reply_context();
    let bare = ReplyView::parse(&bytes).unwrap_or_else(|err| panic!("{name}: parse: {err}"));
    let v = ReplyView::parse_for(&bytes, &ctx)
        .unwrap_or_else(|err| panic!("{name}: parse_for {}: {err}", e.request));
    assert_eq!(bare.to_value(), v.to_value(), "{name}: parse vs parse_for");
    assert_eq!(v.order(), e.order, "{name}: byte order");
    assert_eq!(v.bufcount(), 9, "{name}: bufcount");
    assert_eq!(v.header(), req_header(0), "{name}: header");
    assert_eq!(v.ptlrpc(), rep_ptlrpc(e.xid), "{name}: ptlrpc_body");
    assert_eq!(
        v.ldlm(),
        rep_ldlm(e.fid, e.hash, e.mode, e.disp),
        "{name}: ldlm_reply"
    );
    assert_eq!(v.body(), e.body, "{name}: md_create_prepare_rep");
    assert_eq!(
        v.is_empty_result(),
        e.body.is_none(),
        "{name}: empty result"
    );
    // Framing, read from the raw bytes (independent of the decoder): buflens and zero padding.
    let rd = |o: usize| {
        let b = [bytes[o], bytes[o + 1], bytes[o + 2], bytes[o + 3]];
        match e.order {
            Endian::Little => u32::from_le_bytes(b),
            Endian::Big => u32::from_be_bytes(b),
        }
    };
    assert_eq!(rd(0), 9, "{name}: lm_bufcount");
    let mut off = 72; // round_up(32 + 4 * 9, 8)
    for (i, &len) in e.buflens.iter().enumerate() {
        assert_eq!(rd(32 + 4 * i), len, "{name}: lm_buflens[{i}]");
        let end = off + len as usize;
        let padded = off + (len as usize).div_ceil(8) * 8;
        assert!(
            bytes[end..padded].iter().all(|&b| b == 0),
            "{name}: padding after buffer {i}"
        );
        off = padded;
    }
    assert_eq!(off, bytes.len(), "{name}: buffers fill the file");
    for b in MliBuf::ALL {
        let got = v.result(b);
        let i = b.index();
        match &e.results[i] {
            Exp::Body(body) => {
                let PrepResult::Present(raw) = got else {
                    panic!("{name}: {b} should be present, is {got:?}");
                };
                assert_eq!(raw.len(), 216, "{name}: {b} length");
                let decoded = MdtBody::decode(raw, e.order)
                    .unwrap_or_else(|err| panic!("{name}: {b}: {err}"));
                assert_eq!(decoded, *body, "{name}: {b} mdt_body");
                // mbo_unused3 and mbo_padding_10 are zero.
                assert!(raw[160..164].iter().all(|&x| x == 0), "{name}: mbo_unused3");
                assert!(
                    raw[208..216].iter().all(|&x| x == 0),
                    "{name}: mbo_padding_10"
                );
            }
            Exp::Bytes(want) => {
                assert_eq!(got, PrepResult::Present(&want[..]), "{name}: {b} payload");
            }
            Exp::Absent => assert_eq!(got, PrepResult::Absent, "{name}: {b} absent"),
            Exp::Unknown(r) => assert_eq!(got, PrepResult::Unknown(*r), "{name}: {b} unknown"),
        }
    }
    let value = v.to_value();
    value
        .validate(Some(&ctx))
        .unwrap_or_else(|err| panic!("{name}: value validates against its request: {err}"));
    let again = value
        .to_bytes(e.order)
        .unwrap_or_else(|err| panic!("{name}: encode: {err}"));
    assert_eq!(&again[..], &bytes[..], "{name}: re-encoding differs");
}

#[test]
pub(crate) fn mkdir_reply_complete() {
    check_reply(
        "mkdir_reply_complete",
        &exp_complete(Endian::Little, "mkdir_request"),
    );
}

#[test]
pub(crate) fn mkdir_reply_be() {
    check_reply(
        "mkdir_reply_be",
        &exp_complete(Endian::Big, "mkdir_request_be"),
    );
    // The BE reply also answers the LE request: the context is byte-order free.
    let req = load("mkdir_request");
    let ctx = RequestView::parse(&req)
        .expect("mkdir_request parses")
        .reply_context();
    ReplyView::parse_for(&load("mkdir_reply_be"), &ctx).expect("BE reply for the LE request");
}

#[test]
pub(crate) fn mkdir_reply_absent() {
    check_reply(
        "mkdir_reply_absent",
        &ExpRep {
            buflens: [184, 112, 80, 216, 0, 0, 0, 32, 0],
            wire_len: 696,
            body: Some(derived(0x15, 0x3f, 0, [216, 0, 0, 0, 32, 0])),
            results: [
                Exp::Body(parent_body()),
                Exp::Absent,
                Exp::Absent,
                Exp::Absent,
                Exp::Bytes(lov()),
                Exp::Absent,
            ],
            ..exp_complete(Endian::Little, "mkdir_request")
        },
    );
}

#[test]
pub(crate) fn mkdir_reply_eexist() {
    check_reply(
        "mkdir_reply_eexist",
        &ExpRep {
            buflens: [184, 112, 80, 216, 0, 0, 0, 0, 0],
            wire_len: 664,
            disp: 0xb, // IT_EXECD | LOOKUP_EXECD | LOOKUP_POS
            body: Some(MdCreatePrepareRep {
                status: -17,
                flags: McppFlags::LOOKUP_DONE
                    .union(McppFlags::LOOKUP_POS)
                    .union(McppFlags::PERM_DONE),
                valid: ResultMask::PATTR,
                truncated: ResultMask(0),
                fid: CHILD_EXISTING,
                child_mode: 0o040000,
                child_gid: 0,
                child_projid: 0,
                child_flags: 0,
                buf_size: [216, 0, 0, 0, 0, 0],
            }),
            results: [Exp::Body(parent_body()), NP, NP, NP, NP, NP],
            ..exp_complete(Endian::Little, "mkdir_request")
        },
    );
}

#[test]
pub(crate) fn mkdir_reply_empty() {
    let empty = Exp::Unknown(UnknownReason::EmptyResult);
    check_reply(
        "mkdir_reply_empty",
        &ExpRep {
            buflens: [184, 112, 0, 0, 0, 0, 0, 0, 0],
            wire_len: 368,
            disp: 0x1, // IT_EXECD only
            body: None,
            results: [
                empty.clone(),
                empty.clone(),
                empty.clone(),
                empty.clone(),
                empty.clone(),
                empty,
            ],
            ..exp_complete(Endian::Little, "mkdir_request")
        },
    );
}

#[test]
pub(crate) fn mkdir_reply_advisory() {
    check_reply(
        "mkdir_reply_advisory",
        &ExpRep {
            request: "mkdir_request_partial",
            buflens: [184, 112, 80, 216, 44, 0, 0, 0, 0],
            wire_len: 712,
            xid: XID_PARTIAL,
            body: Some(MdCreatePrepareRep {
                status: -13,
                flags: McppFlags::LOOKUP_DONE
                    .union(McppFlags::PERM_DONE)
                    .union(McppFlags::ADVISORY),
                valid: ResultMask::ALL,
                truncated: ResultMask(0),
                fid: LuFid::ZERO,
                child_mode: 0,
                child_gid: 0,
                child_projid: 0,
                child_flags: 0,
                buf_size: [216, 44, 0, 0, 0, 0],
            }),
            results: [
                Exp::Body(parent_body()),
                Exp::Bytes(DEF_ACL.to_vec()),
                Exp::Absent,
                Exp::Absent,
                Exp::Absent,
                Exp::Absent,
            ],
            ..exp_complete(Endian::Little, "mkdir_request")
        },
    );
}

#[test]
pub(crate) fn mkdir_reply_lov_truncated() {
    check_reply(
        "mkdir_reply_lov_truncated",
        &ExpRep {
            buflens: [184, 112, 80, 216, 44, 19, 88, 0, 48],
            wire_len: 872,
            body: Some(derived(0x15, 0x2f, 0x10, [216, 44, 19, 88, 5320, 48])),
            results: [
                Exp::Body(parent_body()),
                Exp::Bytes(DEF_ACL.to_vec()),
                Exp::Bytes(PIN.to_vec()),
                Exp::Bytes(lmv()),
                Exp::Unknown(UnknownReason::Truncated { size: 5320 }),
                Exp::Bytes(def_lmv()),
            ],
            ..exp_complete(Endian::Little, "mkdir_request")
        },
    );
}

#[test]
pub(crate) fn rename_object_reply() {
    check_reply(
        "rename_object_reply",
        &ExpRep {
            request: "rename_object_request",
            order: Endian::Little,
            buflens: [184, 112, 80, 216, 0, 0, 0, 0, 0],
            wire_len: 664,
            xid: XID_RENAME,
            fid: RENAMED_OBJ,
            hash: 0,
            mode: LockMode::EX,
            disp: 0x1,
            body: Some(MdCreatePrepareRep {
                valid: ResultMask::PATTR,
                buf_size: [216, 0, 0, 0, 0, 0],
                ..Default::default()
            }),
            results: [Exp::Body(object_body()), NP, NP, NP, NP, NP],
        },
    );
}

#[test]
pub(crate) fn unlink_reply() {
    check_reply(
        "unlink_reply",
        &ExpRep {
            request: "unlink_request",
            order: Endian::Little,
            buflens: [184, 112, 80, 216, 0, 0, 88, 0, 0],
            wire_len: 752,
            xid: XID_UNLINK,
            fid: PARENT,
            hash: HASH_VICTIM,
            mode: LockMode::PW,
            disp: 0xb,
            body: Some(MdCreatePrepareRep {
                status: 0,
                flags: McppFlags::LOOKUP_DONE
                    .union(McppFlags::LOOKUP_POS)
                    .union(McppFlags::PERM_DONE),
                valid: ResultMask::PATTR.union(ResultMask::LMV),
                truncated: ResultMask(0),
                fid: VICTIM,
                child_mode: 0o100000,
                child_gid: 0,
                child_projid: 0,
                child_flags: 0,
                buf_size: [216, 0, 0, 88, 0, 0],
            }),
            results: [Exp::Body(parent_body()), NP, NP, Exp::Bytes(lmv()), NP, NP],
        },
    );
}
