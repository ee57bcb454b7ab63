//! The request vectors, each decoded and checked field by field, then re-encoded.

use super::*;

pub(crate) struct ExpReq {
    order: Endian,
    buflens: [u32; 6],
    wire_len: usize,
    repsize: u32,
    xid: u64,
    jobid: &'static [u8],
    op: Operation,
    opc: IntentOpc,
    hash: u64,
    mode: LockMode,
    body: MdCreatePrepareReq,
    name: Option<&'static [u8]>,
    groups: [u32; 3],
}

pub(crate) fn mkdir_req(order: Endian, partial: bool) -> ExpReq {
    ExpReq {
        order,
        buflens: [184, 104, 8, 80, 7, 12],
        wire_len: 456,
        repsize: 21144,
        xid: if partial { XID_PARTIAL } else { XID_MKDIR },
        jobid: b"mkdir.500",
        op: Operation::Create,
        opc: IntentOpc::DNE_CREATE_PREPARE,
        hash: HASH_NEWDIR,
        mode: LockMode::PW,
        body: MdCreatePrepareReq {
            fid: PARENT,
            flags: if partial {
                McprFlags::GROUPS_PARTIAL
            } else {
                McprFlags(0)
            },
            fsuid: 500,
            fsgid: 500,
            umask: 0o022,
            cap: 0,
            child_mode: 0o040755,
            buf_limit: LIMITS_ALL,
        },
        name: Some(b"newdir"),
        groups: if partial { GROUPS_PARTIAL } else { GROUPS },
    }
}

pub(crate) fn rename_req() -> ExpReq {
    ExpReq {
        order: Endian::Little,
        buflens: [184, 104, 8, 80, 0, 12],
        wire_len: 448,
        repsize: 664,
        xid: XID_RENAME,
        jobid: b"mv.500",
        op: Operation::Rename,
        opc: IntentOpc::DNE_RENAME_PREPARE,
        hash: 0,
        mode: LockMode::EX,
        body: MdCreatePrepareReq {
            fid: RENAMED_OBJ,
            flags: McprFlags::NO_LOOKUP,
            fsuid: 500,
            fsgid: 500,
            umask: 0o022,
            cap: 0,
            child_mode: 0,
            buf_limit: [216, 0, 0, 0, 0, 0],
        },
        name: None,
        groups: GROUPS,
    }
}

pub(crate) fn unlink_req() -> ExpReq {
    ExpReq {
        order: Endian::Little,
        buflens: [184, 104, 8, 80, 7, 12],
        wire_len: 456,
        repsize: 4760,
        xid: XID_UNLINK,
        jobid: b"rm.500",
        op: Operation::Unlink,
        opc: IntentOpc::DNE_UNLINK_PREPARE,
        hash: HASH_VICTIM,
        mode: LockMode::PW,
        body: MdCreatePrepareReq {
            fid: PARENT,
            flags: McprFlags(0),
            fsuid: 500,
            fsgid: 500,
            umask: 0o022,
            cap: 0,
            child_mode: 0,
            buf_limit: [216, 0, 0, 4096, 0, 0],
        },
        name: Some(b"victim"),
        groups: GROUPS,
    }
}

pub(crate) fn check_request(name: &str, e: &ExpReq) {
    let bytes = load(name);
    assert_eq!(bytes.len(), e.wire_len, "{name}: file length");
    let v = RequestView::parse(&bytes).unwrap_or_else(|err| panic!("{name}: parse: {err}"));
    assert_eq!(v.order(), e.order, "{name}: byte order");
    assert_eq!(v.msg().bufcount(), 6, "{name}: bufcount");
    assert_eq!(
        v.msg().buflens().collect::<Vec<_>>(),
        e.buflens,
        "{name}: buflens"
    );
    assert_eq!(v.msg().wire_len(), e.wire_len, "{name}: wire_len");
    assert_eq!(v.msg().header(), req_header(e.repsize), "{name}: header");
    assert_eq!(
        v.ptlrpc(),
        req_ptlrpc(e.xid, e.jobid),
        "{name}: ptlrpc_body"
    );
    assert_eq!(v.ptlrpc().jobid_bytes(), e.jobid, "{name}: jobid");
    assert_eq!(
        v.ldlm(),
        req_ldlm(e.body.fid, e.hash, e.mode),
        "{name}: ldlm_request"
    );
    assert_eq!(
        v.ldlm().lock_desc.resource.fid(),
        e.body.fid,
        "{name}: res fid"
    );
    assert_eq!(v.operation(), e.op, "{name}: operation");
    assert_eq!(v.opc(), e.opc, "{name}: opc");
    assert_eq!(v.body(), e.body, "{name}: md_create_prepare_req");
    assert_eq!(v.unknown_flags(), McprFlags(0), "{name}: unknown flags");
    assert_eq!(v.name(), e.name, "{name}: name");
    assert_eq!(
        v.groups().iter().collect::<Vec<_>>(),
        e.groups.to_vec(),
        "{name}: groups"
    );
    assert_eq!(
        v.requested(),
        ResultMask::requested(&e.body.buf_limit),
        "{name}: requested"
    );
    // Padding bytes are zero (checked on the raw bytes, independently of the decoder).
    let mut off = 56; // round_up(32 + 4 * 6, 8)
    for &len in &e.buflens {
        let end = off + len as usize;
        let padded = off + (len as usize).div_ceil(8) * 8;
        assert!(
            bytes[end..padded].iter().all(|&b| b == 0),
            "{name}: padding after buffer at {off}"
        );
        off = padded;
    }
    // Re-encode: byte for byte.
    let value = v.to_value();
    let again = value
        .to_bytes(e.order)
        .unwrap_or_else(|err| panic!("{name}: encode: {err}"));
    assert_eq!(&again[..], &bytes[..], "{name}: re-encoding differs");
    assert_eq!(
        value.required_repsize(),
        e.repsize,
        "{name}: required repsize"
    );
}

#[test]
pub(crate) fn mkdir_request() {
    check_request("mkdir_request", &mkdir_req(Endian::Little, false));
}

#[test]
pub(crate) fn mkdir_request_partial() {
    check_request("mkdir_request_partial", &mkdir_req(Endian::Little, true));
}

#[test]
pub(crate) fn mkdir_request_be() {
    check_request("mkdir_request_be", &mkdir_req(Endian::Big, false));
}

#[test]
pub(crate) fn rename_object_request() {
    check_request("rename_object_request", &rename_req());
    let bytes = load("rename_object_request");
    let v = RequestView::parse(&bytes).expect("rename_object_request parses");
    assert!(v.body().object_mode(), "object mode");
    assert_eq!(v.msg().buffer(4), Some(&[][..]), "buffer 4 is empty");
}

#[test]
pub(crate) fn unlink_request() {
    check_request("unlink_request", &unlink_req());
}
