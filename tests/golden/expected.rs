//! The values the vectors share and the expected structures, written out field by field
//! (see `testdata/*.md`).

use super::*;

pub(crate) const PARENT: LuFid = LuFid::new(0x2_0000_0401, 0x1, 0x0);
pub(crate) const CHILD_EXISTING: LuFid = LuFid::new(0x2_0000_0401, 0x5, 0x0);
pub(crate) const VICTIM: LuFid = LuFid::new(0x2_0000_0401, 0x3, 0x0);
pub(crate) const RENAMED_OBJ: LuFid = LuFid::new(0x2_0000_0402, 0x1a, 0x0);
pub(crate) const CONN_HANDLE: u64 = 0x8d6a_3c2f_51e7_0b19;
pub(crate) const OWN_LOCK_HANDLE: u64 = 0x5ad1_c3e8_f0a2_4b67;
pub(crate) const SERVER_LOCK_HANDLE: u64 = 0x2b4e_6f80_91a3_c5d7;
pub(crate) const LAST_COMMITTED: u64 = 0x3_0000_04d2;
pub(crate) const T0: i64 = 1_767_225_600;
/// FNV-1a-64 of "newdir" and "victim": `name[3]` of the lock resource.
pub(crate) const HASH_NEWDIR: u64 = 0x9379_ea6c_975f_b7c0;
pub(crate) const HASH_VICTIM: u64 = 0x2b4f_b9b4_7183_9815;
pub(crate) const XID_MKDIR: u64 = 0x0005_f3c2_a1b0_0041;
pub(crate) const XID_PARTIAL: u64 = 0x0005_f3c2_a1b0_0051;
pub(crate) const XID_RENAME: u64 = 0x0005_f3c2_a1b0_0061;
pub(crate) const XID_UNLINK: u64 = 0x0005_f3c2_a1b0_0071;
pub(crate) const LIMITS_ALL: [u32; 6] = [216, 4096, 4096, 4096, 4096, 4096];
pub(crate) const GROUPS: [u32; 3] = [100, 600, 700];
pub(crate) const GROUPS_PARTIAL: [u32; 3] = [100, 700, 800];
/// OBD_MD_ FLID|FLATIME|FLMTIME|FLCTIME|FLSIZE|FLBLOCKS|FLMODE|FLTYPE|FLUID|FLGID|FLFLAGS|
/// FLNLINK|FLPROJID|FLBTIME.
pub(crate) const GETATTR_VALID: u64 = 0x1100_0000_0000_2fbf;
pub(crate) const PROJINHERIT: u32 = 0x2000_0000;

pub(crate) const ALL_VECTORS: [&str; 14] = [
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

pub(crate) fn load(name: &str) -> Vec<u8> {
    let path = format!("{}/testdata/{name}.bin", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("reading {path}: {e}"))
}

pub(crate) fn jobid(s: &[u8]) -> Option<[u8; 32]> {
    let mut j = [0u8; 32];
    j[..s.len()].copy_from_slice(s);
    Some(j)
}

pub(crate) fn put32(v: &mut Vec<u8>, x: u32) {
    v.extend_from_slice(&x.to_le_bytes());
}
pub(crate) fn put64(v: &mut Vec<u8>, x: u64) {
    v.extend_from_slice(&x.to_le_bytes());
}
pub(crate) fn put_fid(v: &mut Vec<u8>, f: LuFid) {
    put64(v, f.seq);
    put32(v, f.oid);
    put32(v, f.ver);
}

// ---- expected values, written out field by field ----

pub(crate) fn req_header(repsize: u32) -> MsgHeader {
    MsgHeader {
        secflvr: 0,
        repsize,
        cksum: 0,
        flags: 1, // MSGHDR_AT_SUPPORT
        opc: 0,
    }
}

pub(crate) fn req_ptlrpc(xid: u64, job: &[u8]) -> PtlrpcBody {
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

pub(crate) fn rep_ptlrpc(xid: u64) -> PtlrpcBody {
    PtlrpcBody {
        handle: LustreHandle(CONN_HANDLE),
        msg_type: PtlrpcMsgType::REPLY,
        // What a Lustre server writes (lustre_pack_reply_v2): PTLRPC_MSG_VERSION alone.
        version: 0x0000_0003,
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

pub(crate) fn lock_desc(fid: LuFid, hash: u64, mode: LockMode, granted: LockMode) -> LdlmLockDesc {
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

pub(crate) fn req_ldlm(fid: LuFid, hash: u64, mode: LockMode) -> LdlmRequest {
    LdlmRequest {
        lock_flags: LdlmFlags::HAS_INTENT,
        lock_count: 1,
        lock_desc: lock_desc(fid, hash, mode, LockMode::NONE),
        handles: LockHandles::from_slice(&[LustreHandle(OWN_LOCK_HANDLE), LustreHandle(0)])
            .expect("two handles"),
    }
}

pub(crate) fn rep_ldlm(fid: LuFid, hash: u64, mode: LockMode, disp: u64) -> LdlmReply {
    LdlmReply {
        lock_flags: LdlmFlags(0),
        lock_desc: lock_desc(fid, hash, mode, mode),
        lock_handle: LustreHandle(SERVER_LOCK_HANDLE),
        policy_res1: DispFlags(disp),
        policy_res2: 0,
    }
}

pub(crate) fn parent_body() -> MdtBody {
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

pub(crate) fn object_body() -> MdtBody {
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
pub(crate) const DEF_ACL: [u8; 44] = [
    0x02, 0x00, 0x00, 0x00, // a_version 2
    0x01, 0x00, 0x07, 0x00, 0xff, 0xff, 0xff, 0xff, // USER_OBJ rwx
    0x02, 0x00, 0x07, 0x00, 0xe8, 0x03, 0x00, 0x00, // USER 1000 rwx
    0x04, 0x00, 0x05, 0x00, 0xff, 0xff, 0xff, 0xff, // GROUP_OBJ r-x
    0x10, 0x00, 0x07, 0x00, 0xff, 0xff, 0xff, 0xff, // MASK rwx
    0x20, 0x00, 0x05, 0x00, 0xff, 0xff, 0xff, 0xff, // OTHER r-x
];
pub(crate) const PIN: &[u8] = b"[hsm: 3,pool: fast]";

pub(crate) fn lmv() -> Vec<u8> {
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

pub(crate) fn lov() -> Vec<u8> {
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

pub(crate) fn def_lmv() -> Vec<u8> {
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
