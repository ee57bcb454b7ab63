//! Golden vectors: `testdata/*.bin`, written by `testdata/gen_vectors.py` (an implementation of
//! WIRE.md independent of this crate) and described field by field in `testdata/*.md`.
//!
//! For each vector: decode it, assert every field of its `.md` against values hard-coded here,
//! re-encode the decoded value and compare byte for byte, check replies against their request,
//! and sweep every truncation. `MdLockIntent` is exercised against the same vectors.

use lustre_dne_intent::Endian;
use lustre_dne_intent::intent::{
    IntentOpc, McppFlags, McprFlags, MdCreatePrepareRep, MdCreatePrepareReq, MdLockIntent, MliBuf,
    Operation, PrepResult, ReplyView, RequestView, ResultMask, UnknownReason,
};
use lustre_dne_intent::wire::{
    DispFlags, InodeBits, LdlmFlags, LdlmInodebits, LdlmLockDesc, LdlmReply, LdlmRequest,
    LdlmResId, LockHandles, LockMode, LockType, LuFid, LustreHandle, MdtBody, MdtValid, MsgFlags,
    MsgHeader, PtlrpcBody, PtlrpcMsgType, WireStruct,
};

// ---- values shared by the vectors (see testdata/*.md) ----

const PARENT: LuFid = LuFid::new(0x2_0000_0401, 0x1, 0x0);
const CHILD_EXISTING: LuFid = LuFid::new(0x2_0000_0401, 0x5, 0x0);
const VICTIM: LuFid = LuFid::new(0x2_0000_0401, 0x3, 0x0);
const RENAMED_OBJ: LuFid = LuFid::new(0x2_0000_0402, 0x1a, 0x0);
const CONN_HANDLE: u64 = 0x8d6a_3c2f_51e7_0b19;
const OWN_LOCK_HANDLE: u64 = 0x5ad1_c3e8_f0a2_4b67;
const SERVER_LOCK_HANDLE: u64 = 0x2b4e_6f80_91a3_c5d7;
const LAST_COMMITTED: u64 = 0x3_0000_04d2;
const T0: i64 = 1_767_225_600;
/// FNV-1a-64 of "newdir" and "victim": `name[3]` of the lock resource.
const HASH_NEWDIR: u64 = 0x9379_ea6c_975f_b7c0;
const HASH_VICTIM: u64 = 0x2b4f_b9b4_7183_9815;
const XID_MKDIR: u64 = 0x0005_f3c2_a1b0_0041;
const XID_PARTIAL: u64 = 0x0005_f3c2_a1b0_0051;
const XID_RENAME: u64 = 0x0005_f3c2_a1b0_0061;
const XID_UNLINK: u64 = 0x0005_f3c2_a1b0_0071;
const LIMITS_ALL: [u32; 6] = [216, 4096, 4096, 4096, 4096, 4096];
const GROUPS: [u32; 3] = [100, 600, 700];
const GROUPS_PARTIAL: [u32; 3] = [100, 700, 800];
/// OBD_MD_ FLID|FLATIME|FLMTIME|FLCTIME|FLSIZE|FLBLOCKS|FLMODE|FLTYPE|FLUID|FLGID|FLFLAGS|
/// FLNLINK|FLPROJID|FLBTIME.
const GETATTR_VALID: u64 = 0x1100_0000_0000_2fbf;
const PROJINHERIT: u32 = 0x2000_0000;

const ALL_VECTORS: [&str; 14] = [
    "mkdir_request",
    "mkdir_request_partial",
    "mkdir_reply_complete",
    "mkdir_reply_absent",
    "mkdir_reply_eexist",
    "mkdir_reply_empty",
    "mkdir_reply_advisory",
    "mkdir_reply_lov_truncated",
    "rename_object_request",
    "rename_object_reply",
    "unlink_request",
    "unlink_reply",
    "mkdir_request_be",
    "mkdir_reply_be",
];

fn load(name: &str) -> Vec<u8> {
    let path = format!("{}/testdata/{name}.bin", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("reading {path}: {e}"))
}

fn jobid(s: &[u8]) -> Option<[u8; 32]> {
    let mut j = [0u8; 32];
    j[..s.len()].copy_from_slice(s);
    Some(j)
}

fn put32(v: &mut Vec<u8>, x: u32) {
    v.extend_from_slice(&x.to_le_bytes());
}
fn put64(v: &mut Vec<u8>, x: u64) {
    v.extend_from_slice(&x.to_le_bytes());
}
fn put_fid(v: &mut Vec<u8>, f: LuFid) {
    put64(v, f.seq);
    put32(v, f.oid);
    put32(v, f.ver);
}

// ---- expected values, written out field by field ----

fn req_header(repsize: u32) -> MsgHeader {
    MsgHeader {
        secflvr: 0,
        repsize,
        cksum: 0,
        flags: 1, // MSGHDR_AT_SUPPORT
        opc: 0,
    }
}

fn req_ptlrpc(xid: u64, job: &[u8]) -> PtlrpcBody {
    PtlrpcBody {
        handle: LustreHandle(CONN_HANDLE),
        msg_type: PtlrpcMsgType::REQUEST,
        version: 0x0004_0003,
        opc: 101,
        status: 0,
        last_xid: xid - 1,
        tag: 0,
        projid: 0,
        last_committed: LAST_COMMITTED,
        transno: 0,
        flags: MsgFlags::PACK_UID_GID,
        op_flags: 0,
        conn_cnt: 1,
        timeout: 100,
        service_time: 0,
        limit: 0,
        slv: 0,
        pre_versions: [0; 4],
        mbits: xid,
        uid: 500,
        gid: 500,
        jobid: jobid(job),
    }
}

fn rep_ptlrpc(xid: u64) -> PtlrpcBody {
    PtlrpcBody {
        handle: LustreHandle(CONN_HANDLE),
        msg_type: PtlrpcMsgType::REPLY,
        version: 0x0004_0003,
        opc: 101,
        status: 0,
        last_xid: xid,
        tag: 0,
        projid: 0,
        last_committed: LAST_COMMITTED,
        transno: 0,
        flags: MsgFlags(0),
        op_flags: 0,
        conn_cnt: 1,
        timeout: 100,
        service_time: 1,
        limit: 40000,
        slv: 0x1b_2e0f,
        pre_versions: [0; 4],
        mbits: xid,
        uid: 0,
        gid: 0,
        jobid: Some([0; 32]),
    }
}

fn lock_desc(fid: LuFid, hash: u64, mode: LockMode, granted: LockMode) -> LdlmLockDesc {
    LdlmLockDesc {
        lr_type: LockType::IBITS,
        resource: LdlmResId {
            name: [
                fid.seq,
                (u64::from(fid.ver) << 32) | u64::from(fid.oid),
                0,
                hash,
            ],
        },
        req_mode: mode,
        granted_mode: granted,
        policy: LdlmInodebits {
            bits: InodeBits::UPDATE,
            try_bits: InodeBits(0),
            gid: 0,
            initiator_id: 1,
        },
    }
}

fn req_ldlm(fid: LuFid, hash: u64, mode: LockMode) -> LdlmRequest {
    LdlmRequest {
        lock_flags: LdlmFlags::HAS_INTENT,
        lock_count: 1,
        lock_desc: lock_desc(fid, hash, mode, LockMode::NONE),
        handles: LockHandles::from_slice(&[LustreHandle(OWN_LOCK_HANDLE), LustreHandle(0)])
            .expect("two handles"),
    }
}

fn rep_ldlm(fid: LuFid, hash: u64, mode: LockMode, disp: u64) -> LdlmReply {
    LdlmReply {
        lock_flags: LdlmFlags(0),
        lock_desc: lock_desc(fid, hash, mode, mode),
        lock_handle: LustreHandle(SERVER_LOCK_HANDLE),
        policy_res1: DispFlags(disp),
        policy_res2: 0,
    }
}

fn parent_body() -> MdtBody {
    MdtBody {
        fid1: PARENT,
        fid2: LuFid::ZERO,
        open_handle: LustreHandle(0),
        valid: MdtValid(GETATTR_VALID),
        size: 4096,
        mtime: T0,
        atime: T0,
        ctime: T0,
        blocks: 8,
        version: 0,
        t_state: 0,
        fsuid: 0,
        fsgid: 0,
        capability: 0,
        mode: 0o042775,
        uid: 100,
        gid: 600,
        flags: PROJINHERIT,
        rdev: 0,
        nlink: 3,
        layout_gen: 0,
        suppgid: 0,
        eadatasize: 0,
        aclsize: 0,
        max_mdsize: 0,
        uid_h: 0,
        gid_h: 0,
        projid: 1000,
        dom_size: 0,
        dom_blocks: 0,
        btime: (T0 - 86400) as u64,
        xattr_absent: 0,
    }
}

fn object_body() -> MdtBody {
    MdtBody {
        fid1: RENAMED_OBJ,
        valid: MdtValid(GETATTR_VALID),
        size: 12345,
        mtime: T0 + 60,
        atime: T0 + 60,
        ctime: T0 + 60,
        blocks: 32,
        mode: 0o100644,
        uid: 500,
        gid: 600,
        flags: 0,
        nlink: 1,
        projid: 1000,
        btime: (T0 + 60) as u64,
        ..Default::default()
    }
}

/// `system.posix_acl_default` as the Linux kernel wrote it (getfattr -e hex): user::rwx,
/// user:1000:rwx, group::r-x, mask::rwx, other::r-x.
const DEF_ACL: [u8; 44] = [
    0x02, 0x00, 0x00, 0x00, // a_version 2
    0x01, 0x00, 0x07, 0x00, 0xff, 0xff, 0xff, 0xff, // USER_OBJ rwx
    0x02, 0x00, 0x07, 0x00, 0xe8, 0x03, 0x00, 0x00, // USER 1000 rwx
    0x04, 0x00, 0x05, 0x00, 0xff, 0xff, 0xff, 0xff, // GROUP_OBJ r-x
    0x10, 0x00, 0x07, 0x00, 0xff, 0xff, 0xff, 0xff, // MASK rwx
    0x20, 0x00, 0x05, 0x00, 0xff, 0xff, 0xff, 0xff, // OTHER r-x
];
const PIN: &[u8] = b"[hsm: 3,pool: fast]";

fn lmv() -> Vec<u8> {
    let mut v = Vec::new();
    put32(&mut v, 0x0CD2_0CD0); // LMV_MAGIC_V1
    put32(&mut v, 2); // stripe count
    put32(&mut v, 0); // master mdt index
    put32(&mut v, 2); // LMV_HASH_TYPE_FNV_1A_64
    put32(&mut v, 0); // layout version
    put32(&mut v, 0); // migrate offset
    put32(&mut v, 0); // migrate hash
    put32(&mut v, 0); // padding2
    put64(&mut v, 0); // padding3
    v.extend_from_slice(&[0; 16]); // pool name
    put_fid(&mut v, LuFid::new(0x2_0000_0401, 0x2, 0));
    put_fid(&mut v, LuFid::new(0x2_4000_0401, 0x1, 0));
    assert_eq!(v.len(), 88);
    v
}

fn lov() -> Vec<u8> {
    let mut v = Vec::new();
    put32(&mut v, 0x0BD1_0BD0); // LOV_USER_MAGIC_V1
    put32(&mut v, 1); // LOV_PATTERN_RAID0
    v.extend_from_slice(&[0; 16]); // lmm_oi
    put32(&mut v, 1 << 20); // stripe size
    v.extend_from_slice(&2u16.to_le_bytes()); // stripe count
    v.extend_from_slice(&0xffffu16.to_le_bytes()); // stripe offset: default
    assert_eq!(v.len(), 32);
    v
}

fn def_lmv() -> Vec<u8> {
    let mut v = Vec::new();
    put32(&mut v, 0x0CD3_0CD0); // LMV_USER_MAGIC
    put32(&mut v, 2); // stripe count
    put32(&mut v, 0xffff_ffff); // stripe offset: default
    put32(&mut v, 2); // FNV_1A_64
    put32(&mut v, 0); // LMV_TYPE_DEFAULT
    v.extend_from_slice(&[3, 0]); // max_inherit, max_inherit_rr
    v.extend_from_slice(&[0; 2 + 4 + 4]); // padding1..3
    v.extend_from_slice(&[0; 16]); // pool name
    assert_eq!(v.len(), 48);
    v
}

// ---- requests ----

struct ExpReq {
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

fn mkdir_req(order: Endian, partial: bool) -> ExpReq {
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

fn rename_req() -> ExpReq {
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

fn unlink_req() -> ExpReq {
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

fn check_request(name: &str, e: &ExpReq) {
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
fn mkdir_request() {
    check_request("mkdir_request", &mkdir_req(Endian::Little, false));
}

#[test]
fn mkdir_request_partial() {
    check_request("mkdir_request_partial", &mkdir_req(Endian::Little, true));
}

#[test]
fn mkdir_request_be() {
    check_request("mkdir_request_be", &mkdir_req(Endian::Big, false));
}

#[test]
fn rename_object_request() {
    check_request("rename_object_request", &rename_req());
    let bytes = load("rename_object_request");
    let v = RequestView::parse(&bytes).expect("rename_object_request parses");
    assert!(v.body().object_mode(), "object mode");
    assert_eq!(v.msg().buffer(4), Some(&[][..]), "buffer 4 is empty");
}

#[test]
fn unlink_request() {
    check_request("unlink_request", &unlink_req());
}

// ---- replies ----

#[derive(Debug, Clone)]
enum Exp {
    /// A present PATTR, compared as a decoded `mdt_body`.
    Body(MdtBody),
    /// A present xattr payload, compared byte for byte.
    Bytes(Vec<u8>),
    Absent,
    Unknown(UnknownReason),
}

struct ExpRep {
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

const NP: Exp = Exp::Unknown(UnknownReason::NotProvided);

fn derived(flags: u32, valid: u32, truncated: u32, buf_size: [u32; 6]) -> MdCreatePrepareRep {
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

fn exp_complete(order: Endian, request: &'static str) -> ExpRep {
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

fn check_reply(name: &str, e: &ExpRep) {
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
fn mkdir_reply_complete() {
    check_reply(
        "mkdir_reply_complete",
        &exp_complete(Endian::Little, "mkdir_request"),
    );
}

#[test]
fn mkdir_reply_be() {
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
fn mkdir_reply_absent() {
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
fn mkdir_reply_eexist() {
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
fn mkdir_reply_empty() {
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
fn mkdir_reply_advisory() {
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
fn mkdir_reply_lov_truncated() {
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
fn rename_object_reply() {
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
fn unlink_reply() {
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

// ---- byte-level facts of the big-endian copies (read without the decoder) ----

#[test]
fn big_endian_copies_swap_numbers_not_opaque_bytes() {
    for (le_name, be_name) in [
        ("mkdir_request", "mkdir_request_be"),
        ("mkdir_reply_complete", "mkdir_reply_be"),
    ] {
        let le = load(le_name);
        let be = load(be_name);
        assert_eq!(le.len(), be.len(), "{be_name}: same length");
        assert_eq!(&le[8..12], &[0xd3, 0x0b, 0xd0, 0x0b], "{le_name}: LE magic");
        assert_eq!(&be[8..12], &[0x0b, 0xd0, 0x0b, 0xd3], "{be_name}: BE magic");
        assert_eq!(
            &le[0..4],
            &be[0..4].iter().rev().copied().collect::<Vec<_>>()[..]
        );
        let hdr = if le_name.contains("request") { 56 } else { 72 };
        // pb_handle and pb_jobid are never swapped.
        assert_eq!(&le[hdr..hdr + 8], &be[hdr..hdr + 8], "{be_name}: pb_handle");
        assert_eq!(
            &le[hdr..hdr + 8],
            &CONN_HANDLE.to_le_bytes(),
            "{le_name}: pb_handle"
        );
        assert_eq!(
            &le[hdr + 152..hdr + 184],
            &be[hdr + 152..hdr + 184],
            "{be_name}: pb_jobid"
        );
        // pb_type is swapped.
        assert_eq!(
            le[hdr + 8..hdr + 12],
            be[hdr + 8..hdr + 12]
                .iter()
                .rev()
                .copied()
                .collect::<Vec<_>>()[..]
        );
    }
    // Request: lock_handle[0] (buffer 1 at 240, +88) and the name are not swapped; groups are.
    let (le, be) = (load("mkdir_request"), load("mkdir_request_be"));
    assert_eq!(
        &be[328..336],
        &OWN_LOCK_HANDLE.to_le_bytes(),
        "lock_handle[0]"
    );
    assert_eq!(&le[328..336], &be[328..336]);
    assert_eq!(&be[432..439], b"newdir\0", "name");
    assert_eq!(&be[440..444], &100u32.to_be_bytes(), "groups[0]");
    assert_eq!(&le[440..444], &100u32.to_le_bytes(), "groups[0]");
    // Reply: lock_handle (buffer 1 at 256, +88) is not swapped; mdt_body (buffer 3 at 448) is;
    // the xattr payloads (buffers 4-8, from 664) are byte-identical.
    let (le, be) = (load("mkdir_reply_complete"), load("mkdir_reply_be"));
    assert_eq!(
        &be[344..352],
        &SERVER_LOCK_HANDLE.to_le_bytes(),
        "lock_handle"
    );
    assert_eq!(&be[448..456], &PARENT.seq.to_be_bytes(), "mbo_fid1.f_seq");
    assert_eq!(&le[448..456], &PARENT.seq.to_le_bytes(), "mbo_fid1.f_seq");
    assert_eq!(&le[664..], &be[664..], "xattr payloads are never swapped");
}

// ---- truncation sweep ----

/// Where the last buffer ends: the file length minus the last buffer's padding, which WIRE.md
/// §2 lets be absent. Computed from the raw header, not by the decoder.
fn min_len(bytes: &[u8]) -> usize {
    let big = bytes[8..12] == [0x0b, 0xd0, 0x0b, 0xd3];
    let rd = |o: usize| {
        let b = [bytes[o], bytes[o + 1], bytes[o + 2], bytes[o + 3]];
        if big {
            u32::from_be_bytes(b)
        } else {
            u32::from_le_bytes(b)
        }
    };
    let n = rd(0) as usize;
    let mut off = (32 + 4 * n).div_ceil(8) * 8;
    let mut end = off;
    for i in 0..n {
        let len = rd(32 + 4 * i) as usize;
        end = off + len;
        off += len.div_ceil(8) * 8;
    }
    assert_eq!(off, bytes.len(), "vectors are canonical");
    end
}

#[test]
fn truncation_sweep() {
    for name in ALL_VECTORS {
        let bytes = load(name);
        let is_request = name.contains("request");
        let req_name = match name {
            "mkdir_reply_advisory" => "mkdir_request_partial",
            "mkdir_reply_be" => "mkdir_request_be",
            "rename_object_reply" => "rename_object_request",
            "unlink_reply" => "unlink_request",
            _ => "mkdir_request",
        };
        let req_bytes = load(req_name);
        let ctx = RequestView::parse(&req_bytes)
            .expect("request of the sweep parses")
            .reply_context();
        let min = min_len(&bytes);
        for len in 0..bytes.len() {
            let prefix = &bytes[..len];
            let ok = if is_request {
                RequestView::parse(prefix).is_ok()
            } else {
                let a = ReplyView::parse(prefix).is_ok();
                let b = ReplyView::parse_for(prefix, &ctx).is_ok();
                assert_eq!(a, b, "{name}[..{len}]: parse and parse_for disagree");
                a
            };
            if len < min {
                assert!(
                    !ok,
                    "{name}[..{len}] decodes but ends inside a buffer (min {min})"
                );
            } else {
                assert!(
                    ok,
                    "{name}[..{len}] lacks only the last padding and must decode"
                );
            }
        }
    }
}

// ---- md_lock_intent ----

fn mkdir_intent_body() -> MdCreatePrepareReq {
    MdCreatePrepareReq {
        fid: PARENT,
        fsuid: 500,
        fsgid: 500,
        umask: 0o022,
        child_mode: 0o040755,
        // Recomputed from the reply buffers by to_request().
        buf_limit: [0; 6],
        ..Default::default()
    }
}

/// A create intent for "newdir" whose six result buffers are `store`'s.
fn mkdir_intent(store: &mut [Vec<u8>]) -> MdLockIntent<'static, '_> {
    let [b0, b1, b2, b3, b4, b5] = store else {
        panic!("six result buffers, got {}", store.len());
    };
    MdLockIntent::new(
        Operation::Create,
        mkdir_intent_body(),
        Some(b"newdir"),
        [b0, b1, b2, b3, b4, b5],
    )
}

#[test]
fn lock_intent_builds_the_mkdir_request() {
    let bytes = load("mkdir_request");
    let view = RequestView::parse(&bytes).expect("mkdir_request parses");
    let mut store: Vec<Vec<u8>> = LIMITS_ALL.iter().map(|&l| vec![0u8; l as usize]).collect();
    let intent = mkdir_intent(&mut store);
    assert_eq!(intent.limits().expect("limits fit"), LIMITS_ALL);
    let built = intent
        .to_request(&GROUPS, LockMode::PW, HASH_NEWDIR)
        .expect("intent builds a valid request");
    let want = view.to_value();
    // What the intent decides equals the vector.
    assert_eq!(built.opc, want.opc, "opc");
    assert_eq!(built.body, want.body, "md_create_prepare_req");
    assert_eq!(built.name, want.name, "name");
    assert_eq!(built.groups, want.groups, "groups");
    assert_eq!(built.header.repsize, 21144, "lm_repsize");
    assert_eq!(built.header.repsize, want.header.repsize, "lm_repsize");
    assert_eq!(built.ldlm.lock_flags, want.ldlm.lock_flags, "lock_flags");
    assert_eq!(built.ldlm.lock_count, want.ldlm.lock_count, "lock_count");
    // The transport fills in the rest: the RPC header, the lock handle, the initiator index.
    let mut patched = built;
    patched.header.flags = want.header.flags;
    patched.ptlrpc = want.ptlrpc;
    patched.ldlm.handles = want.ldlm.handles;
    patched.ldlm.lock_desc.policy.initiator_id = 1;
    assert_eq!(patched, want, "patched intent request equals the vector");
    let again = patched
        .to_bytes(Endian::Little)
        .expect("patched request encodes");
    assert_eq!(&again[..], &bytes[..], "and encodes to the vector's bytes");

    // More than 128 groups: cut to 128, MCPR_GROUPS_PARTIAL.
    let many: Vec<u32> = (1000..1200).collect();
    let partial = intent
        .to_request(&many, LockMode::PW, HASH_NEWDIR)
        .expect("partial request");
    assert_eq!(partial.groups.as_slice(), &many[..128]);
    assert!(partial.body.flags.contains(McprFlags::GROUPS_PARTIAL));
}

fn reply_view<'a>(bytes: &'a [u8], name: &str) -> ReplyView<'a> {
    let req = load("mkdir_request");
    let ctx = RequestView::parse(&req)
        .expect("mkdir_request parses")
        .reply_context();
    ReplyView::parse_for(bytes, &ctx).unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn lock_intent_fills_from_the_complete_reply() {
    let bytes = load("mkdir_reply_complete");
    let view = reply_view(&bytes, "mkdir_reply_complete");
    let mut store: Vec<Vec<u8>> = LIMITS_ALL.iter().map(|&l| vec![0xAA; l as usize]).collect();
    let mut intent = mkdir_intent(&mut store);
    intent.fill(&view);
    assert!(intent.replied);
    assert_eq!(intent.reply, view.body());
    let lens = [216, 44, 19, 88, 32, 48];
    for b in MliBuf::ALL {
        let rb = &intent.reply_buf[b.index()];
        assert_eq!(rb.state, PrepResult::Present(()), "{b} state");
        assert_eq!(rb.len, lens[b.index()], "{b} length");
        let PrepResult::Present(src) = view.result(b) else {
            panic!("{b} present in the view");
        };
        assert_eq!(rb.data(), src, "{b} bytes copied");
        assert!(
            rb.buf[rb.len..].iter().all(|&x| x == 0xAA),
            "{b}: nothing written past the result"
        );
    }
    assert_eq!(intent.reply_buf[1].data(), &DEF_ACL[..]);
    assert_eq!(intent.reply_buf[2].data(), PIN);
    assert_eq!(intent.reply_buf[3].data(), &lmv()[..]);
    assert_eq!(intent.reply_buf[4].data(), &lov()[..]);
    assert_eq!(intent.reply_buf[5].data(), &def_lmv()[..]);
    let body = MdtBody::decode(intent.reply_buf[0].data(), Endian::Little).expect("PATTR");
    assert_eq!(body, parent_body());
}

#[test]
fn lock_intent_fills_from_the_truncated_and_empty_replies() {
    let bytes = load("mkdir_reply_lov_truncated");
    let view = reply_view(&bytes, "mkdir_reply_lov_truncated");
    let mut store: Vec<Vec<u8>> = LIMITS_ALL.iter().map(|&l| vec![0xAA; l as usize]).collect();
    {
        let mut intent = mkdir_intent(&mut store);
        intent.fill(&view);
        assert!(intent.replied);
        let lov = &intent.reply_buf[MliBuf::Lov.index()];
        assert_eq!(
            lov.state,
            PrepResult::Unknown(UnknownReason::Truncated { size: 5320 })
        );
        assert_eq!(lov.len, 0);
        assert_eq!(lov.data(), &[] as &[u8]);
        let lens = [216, 44, 19, 88, 0, 48];
        for b in MliBuf::ALL.into_iter().filter(|&b| b != MliBuf::Lov) {
            let rb = &intent.reply_buf[b.index()];
            assert_eq!(rb.state, PrepResult::Present(()), "{b}");
            assert_eq!(rb.len, lens[b.index()], "{b}");
        }
    }
    assert!(store[4].iter().all(|&x| x == 0xAA), "LOV buffer untouched");

    let bytes = load("mkdir_reply_empty");
    let view = reply_view(&bytes, "mkdir_reply_empty");
    let mut intent = mkdir_intent(&mut store);
    intent.fill(&view);
    assert!(!intent.replied);
    assert_eq!(intent.reply, None);
    for rb in &intent.reply_buf {
        assert_eq!(rb.state, PrepResult::Unknown(UnknownReason::EmptyResult));
        assert_eq!(rb.len, 0);
        assert_eq!(rb.data(), &[] as &[u8]);
    }
}

#[test]
fn lock_intent_fill_into_a_too_small_buffer() {
    let bytes = load("mkdir_reply_complete");
    let view = reply_view(&bytes, "mkdir_reply_complete");
    // DEF_ACL is 44 bytes; its destination is the first 40 bytes of a larger sentinel array.
    let mut backing = [0x5Au8; 64];
    let mut others: Vec<Vec<u8>> = vec![vec![0; 216], vec![], vec![0; 4096], vec![0; 4096]];
    others.push(vec![0; 4096]);
    {
        let (small, _rest) = backing.split_at_mut(40);
        let [b0, _, b2, b3, b4] = &mut others[..] else {
            unreachable!()
        };
        let mut last = vec![0u8; 4096];
        let mut intent = MdLockIntent::new(
            Operation::Create,
            mkdir_intent_body(),
            Some(b"newdir"),
            [b0, small, b2, b3, b4, &mut last],
        );
        intent.fill(&view);
        let acl = &intent.reply_buf[MliBuf::DefAcl.index()];
        assert_eq!(
            acl.state,
            PrepResult::Unknown(UnknownReason::Truncated { size: 44 }),
            "reports the real size"
        );
        assert_eq!(acl.len, 0);
        assert_eq!(acl.data(), &[] as &[u8]);
        assert_eq!(
            intent.reply_buf[MliBuf::Pin.index()].state,
            PrepResult::Present(())
        );
    }
    assert!(
        backing.iter().all(|&x| x == 0x5A),
        "nothing written into or past the too-small buffer"
    );
}
