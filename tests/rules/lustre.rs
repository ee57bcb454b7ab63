//! The message layer as Lustre's own code takes it (lustre-release, the files and functions
//! named on each test): what a Lustre service or client refuses, a decoder refuses with the
//! rule WIRE.md names, and what Lustre writes, a decoder takes.

use super::*;

fn req_ok(p: &ReqParts) {
    RequestView::parse(&p.encode()).expect("Lustre takes this request");
}

fn rep_ok(p: &RepParts) {
    ReplyView::parse(&p.encode()).expect("Lustre takes this reply");
}

/// `lustre_pack_reply_v2` (`lustre/ptlrpc/pack_generic.c`) writes `PTLRPC_MSG_VERSION` alone,
/// and `lustre_unpack_ptlrpc_body_v2` checks only the low 16 bits.
#[test]
fn a_reply_is_versioned_as_lustre_writes_it() {
    for version in [0x0000_0003, 0x0004_0003, 0xffff_0003] {
        let mut p = RepParts::mkdir();
        p.ptlrpc.version = version;
        rep_ok(&p);
    }
    // The crate writes what Lustre writes.
    assert_eq!(mkdir_reply().ptlrpc.version, PTLRPC_MSG_VERSION);
    assert_eq!(
        PtlrpcBody::enqueue(PtlrpcMsgType::REPLY).version,
        0x0000_0003
    );
    for version in [0x0004_0002, 0x0000_0000, 0x0003_0004] {
        let mut p = RepParts::mkdir();
        p.ptlrpc.version = version;
        let e = rep_err(&p);
        assert_eq!(
            e.kind,
            ErrorKind::WrongMsgVersion {
                got: version,
                expected: 3
            }
        );
        assert_eq!((e.rule().as_str(), e.at.field), ("W0.4", "pb_version"));
    }
}

/// A request's version is checked whole: the low bits by `lustre_unpack_ptlrpc_body_v2`, the
/// high bits against the handler's `LUSTRE_DLM_VERSION` by `tgt_request_handle`
/// (`lustre/target/tgt_handler.c`, `lustre_msg_check_version`).
#[test]
fn a_request_carries_the_dlm_version() {
    assert_eq!(ReqParts::mkdir().ptlrpc.version, 0x0004_0003);
    for version in [0x0000_0003, 0x0005_0003, 0x0004_0002] {
        let mut p = ReqParts::mkdir();
        p.ptlrpc.version = version;
        let e = req_err(&p);
        assert_eq!(
            e.kind,
            ErrorKind::WrongValue {
                got: version.into(),
                expected: 0x0004_0003
            }
        );
    }
}

/// `ldlm_handle_enqueue` (`lustre/ldlm/ldlm_lockd.c`) fails flags outside
/// `LDLM_FL_WIRE_REQ_FLAGS_MASK` with -EPROTO; with REPLAY `ldlm_lock_enqueue`
/// (`lustre/ldlm/ldlm_lock.c`) runs no intent policy, with INTENT_ONLY it destroys the lock.
#[test]
fn request_lock_flags_are_those_lustre_takes_for_a_prepare() {
    assert_eq!(LdlmFlags::WIRE_REQ_FLAGS_MASK.0, 0xe08c_131a);
    for (flags, forbidden) in [
        (0x1004u32, 0x4u32),
        (0x1_1000, 0x1_0000),
        (0x1200, 0x200),
        (0x1100, 0x100),
        (0xffff_ffff, !0xe08c_101a_u32),
        (0x1001, 0x1),
        (0x1020, 0x20),
    ] {
        let mut p = ReqParts::mkdir();
        p.ldlm.lock_flags = LdlmFlags(flags);
        let e = req_err(&p);
        assert_eq!(
            e.kind,
            ErrorKind::ForbiddenBits {
                got: flags.into(),
                forbidden: forbidden.into(),
            },
            "{flags:#x}"
        );
        assert_eq!((e.rule().as_str(), e.at.field), ("W0.6", "lock_flags"));
    }
    let mut p = ReqParts::mkdir();
    p.ldlm.lock_flags = LdlmFlags(0x1000 | 0x4_0000 | 0x80_0000 | 0x2000_0000);
    req_ok(&p);
}

/// `sptlrpc_svc_unwrap_request` (`lustre/ptlrpc/sec.c`) takes `WIRE_FLVR(lm_secflvr)`, and
/// `null_accept` (`sec_null.c`) refuses anything but `SPTLRPC_FLVR_NULL`; the top byte is the
/// sender's part (`null_encode_sec_part`, 1 for an MDT).
#[test]
fn a_request_has_the_null_flavour() {
    for secflvr in [1, 2, 0xffff_ffff, 0x0008_0000] {
        let mut p = ReqParts::mkdir();
        p.header.secflvr = secflvr;
        let e = req_err(&p);
        assert_eq!(
            e.kind,
            ErrorKind::ForbiddenBits {
                got: secflvr.into(),
                forbidden: (secflvr & 0x000f_ffff).into(),
            }
        );
        assert_eq!((e.rule().as_str(), e.at.field), ("W0.6", "lm_secflvr"));
    }
    for secflvr in [0x0100_0000, 0xfff0_0000] {
        let mut p = ReqParts::mkdir();
        p.header.secflvr = secflvr;
        req_ok(&p);
    }
}

/// `do_cli_unwrap_reply` (`lustre/ptlrpc/sec.c`) refuses a reply whose flavour policy is not the
/// request's (null).
#[test]
fn a_reply_has_the_null_policy() {
    for secflvr in [1, 2, 0xf] {
        let mut p = RepParts::mkdir();
        p.header.secflvr = secflvr;
        assert_eq!(rep_err(&p).rule().as_str(), "W0.6");
    }
    let mut p = RepParts::mkdir();
    p.header.secflvr = 0x0100_0010;
    rep_ok(&p);
}

/// `ptlrpc_server_handle_req_in` (`lustre/ptlrpc/service.c`) drops a request with
/// `MSGHDR_AT_SUPPORT` and `pb_timeout` 0 ("Dropping request with 0 timeout").
#[test]
fn an_adaptive_timeout_request_has_a_deadline() {
    let mut p = ReqParts::mkdir();
    p.header.flags = MSGHDR_AT_SUPPORT;
    p.ptlrpc.timeout = 0;
    let e = req_err(&p);
    assert_eq!(e.kind, ErrorKind::ZeroTimeout);
    assert_eq!((e.rule().as_str(), e.at.field), ("W5.16", "pb_timeout"));
    p.ptlrpc.timeout = 100;
    req_ok(&p);
    // Without adaptive timeouts the service uses its own obd_timeout.
    p.header.flags = 0;
    p.ptlrpc.timeout = 0;
    req_ok(&p);
}

/// `lustre_unpack_msg_v2` (`lustre/ptlrpc/pack_generic.c`) sums `round_up(buflen, 8)` over every
/// buffer, the last included: the mkdir request cut by 4 bytes is "len: 452, required_len 456".
#[test]
fn the_last_buffer_needs_its_padding() {
    let bytes = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/testdata/mkdir_request.bin"
    ))
    .expect("vector");
    assert_eq!(bytes.len(), 456);
    RequestView::parse(&bytes).expect("whole");
    let e = RequestView::parse(&bytes[..452]).expect_err("short of its padding");
    assert_eq!(e.kind, ErrorKind::Truncated { need: 16, have: 12 });
    assert_eq!(
        (e.rule().as_str(), e.at.field, e.at.offset),
        ("W0.1", "buffer[5]", 440)
    );
}
