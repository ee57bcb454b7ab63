//! The owned baseline: a decoder for the same messages and xattrs written the way a typical user
//! of `bytes` would write one. It reads with [`bytes::Buf`] into plain structs that own their
//! data (`Vec`, `String`), copies every buffer out of the message, and checks what such code
//! usually checks (magics, versions, lengths, counts, the buffers lying inside the input) rather
//! than every rule of docs/spec/WIRE.md.
//!
//! It is what the benchmarks compare the crate's zero-copy views against, and
//! `tests/api/baseline.rs` proves it reads every vector the same way the crate does.
#![allow(dead_code)]

use bytes::Buf;

/// A decoding failure, as a typical hand-written decoder reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnedError(pub String);

type Result<T> = std::result::Result<T, OwnedError>;

fn fail<T>(msg: impl Into<String>) -> Result<T> {
    Err(OwnedError(msg.into()))
}

fn need(buf: &[u8], n: usize, what: &str) -> Result<()> {
    if buf.remaining() < n {
        return fail(format!("{what}: need {n} bytes, have {}", buf.remaining()));
    }
    Ok(())
}

/// Byte order of a message (xattrs are always little-endian).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Order {
    /// True for little-endian.
    pub le: bool,
}

impl Order {
    fn u16(self, b: &mut &[u8]) -> u16 {
        if self.le { b.get_u16_le() } else { b.get_u16() }
    }
    fn u32(self, b: &mut &[u8]) -> u32 {
        if self.le { b.get_u32_le() } else { b.get_u32() }
    }
    fn i32(self, b: &mut &[u8]) -> i32 {
        if self.le { b.get_i32_le() } else { b.get_i32() }
    }
    fn u64(self, b: &mut &[u8]) -> u64 {
        if self.le { b.get_u64_le() } else { b.get_u64() }
    }
    fn i64(self, b: &mut &[u8]) -> i64 {
        if self.le { b.get_i64_le() } else { b.get_i64() }
    }
}

const LE: Order = Order { le: true };

// ---------------------------------------------------------------- framing

/// `lustre_msg_v2` with its buffers copied out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnedMsg {
    pub order: Order,
    pub secflvr: u32,
    pub repsize: u32,
    pub cksum: u32,
    pub flags: u32,
    pub opc: u32,
    pub buffers: Vec<Vec<u8>>,
}

pub fn decode_msg(input: &[u8]) -> Result<OwnedMsg> {
    need(input, 32, "lustre_msg_v2")?;
    let order = match input[8..12] {
        [0xd3, 0x0b, 0xd0, 0x0b] => Order { le: true },
        [0x0b, 0xd0, 0x0b, 0xd3] => Order { le: false },
        _ => return fail("bad lm_magic"),
    };
    let mut b = input;
    let bufcount = order.u32(&mut b) as usize;
    if bufcount == 0 || bufcount > 32 {
        return fail("bad lm_bufcount");
    }
    let secflvr = order.u32(&mut b);
    let _magic = order.u32(&mut b);
    let repsize = order.u32(&mut b);
    let cksum = order.u32(&mut b);
    let flags = order.u32(&mut b);
    let opc = order.u32(&mut b);
    let _pad = order.u32(&mut b);
    need(b, 4 * bufcount, "lm_buflens")?;
    let mut lens = Vec::with_capacity(bufcount);
    for _ in 0..bufcount {
        lens.push(order.u32(&mut b) as usize);
    }
    let mut pos = (32 + 4 * bufcount + 7) & !7;
    let mut buffers = Vec::with_capacity(bufcount);
    for len in lens {
        if len > 1 << 20 {
            return fail("buffer too large");
        }
        if pos + len > input.len() {
            return fail("buffer past the end of the message");
        }
        buffers.push(input[pos..pos + len].to_vec());
        pos += (len + 7) & !7;
    }
    Ok(OwnedMsg {
        order,
        secflvr,
        repsize,
        cksum,
        flags,
        opc,
        buffers,
    })
}

// ---------------------------------------------------------------- fixed structures

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct OwnedFid {
    pub seq: u64,
    pub oid: u32,
    pub ver: u32,
}

fn fid(o: Order, b: &mut &[u8]) -> OwnedFid {
    OwnedFid {
        seq: o.u64(b),
        oid: o.u32(b),
        ver: o.u32(b),
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnedPtlrpc {
    pub handle: [u8; 8],
    pub msg_type: u32,
    pub version: u32,
    pub opc: u32,
    pub status: i32,
    pub last_xid: u64,
    pub tag: u16,
    pub projid: u32,
    pub last_committed: u64,
    pub transno: u64,
    pub flags: u32,
    pub op_flags: u32,
    pub conn_cnt: u32,
    pub timeout: u32,
    pub service_time: u32,
    pub limit: u32,
    pub slv: u64,
    pub pre_versions: Vec<u64>,
    pub mbits: u64,
    pub uid: u32,
    pub gid: u32,
    /// `pb_jobid` up to its first NUL; `None` for a 152-byte v2 body.
    pub jobid: Option<String>,
}

fn ptlrpc(o: Order, buf: &[u8]) -> Result<OwnedPtlrpc> {
    need(buf, 152, "ptlrpc_body")?;
    let mut b = buf;
    let mut handle = [0u8; 8];
    b.copy_to_slice(&mut handle);
    let msg_type = o.u32(&mut b);
    let version = o.u32(&mut b);
    let opc = o.u32(&mut b);
    let status = o.i32(&mut b);
    let last_xid = o.u64(&mut b);
    let tag = o.u16(&mut b);
    let _pad = o.u16(&mut b);
    let projid = o.u32(&mut b);
    let last_committed = o.u64(&mut b);
    let transno = o.u64(&mut b);
    let flags = o.u32(&mut b);
    let op_flags = o.u32(&mut b);
    let conn_cnt = o.u32(&mut b);
    let timeout = o.u32(&mut b);
    let service_time = o.u32(&mut b);
    let limit = o.u32(&mut b);
    let slv = o.u64(&mut b);
    let pre_versions = (0..4).map(|_| o.u64(&mut b)).collect();
    let mbits = o.u64(&mut b);
    let _pad0 = o.u64(&mut b);
    let _pad1 = o.u64(&mut b);
    let uid = o.u32(&mut b);
    let gid = o.u32(&mut b);
    let jobid = if b.remaining() >= 32 {
        let raw = b.copy_to_bytes(32);
        let end = raw.iter().position(|&c| c == 0).unwrap_or(32);
        Some(String::from_utf8_lossy(&raw[..end]).into_owned())
    } else {
        None
    };
    Ok(OwnedPtlrpc {
        handle,
        msg_type,
        version,
        opc,
        status,
        last_xid,
        tag,
        projid,
        last_committed,
        transno,
        flags,
        op_flags,
        conn_cnt,
        timeout,
        service_time,
        limit,
        slv,
        pre_versions,
        mbits,
        uid,
        gid,
        jobid,
    })
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnedLockDesc {
    pub lr_type: u32,
    pub name: Vec<u64>,
    pub req_mode: u32,
    pub granted_mode: u32,
    pub bits: u64,
    pub try_bits: u64,
    pub li_gid: u64,
    pub li_initiator_id: u32,
}

fn lock_desc(o: Order, b: &mut &[u8]) -> OwnedLockDesc {
    let lr_type = o.u32(b);
    let _pad = o.u32(b);
    let name = (0..4).map(|_| o.u64(b)).collect();
    let req_mode = o.u32(b);
    let granted_mode = o.u32(b);
    let bits = o.u64(b);
    let try_bits = o.u64(b);
    let li_gid = o.u64(b);
    let _pad = o.u32(b);
    let li_initiator_id = o.u32(b);
    OwnedLockDesc {
        lr_type,
        name,
        req_mode,
        granted_mode,
        bits,
        try_bits,
        li_gid,
        li_initiator_id,
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnedLdlmRequest {
    pub lock_flags: u32,
    pub lock_count: u32,
    pub desc: OwnedLockDesc,
    pub handles: Vec<[u8; 8]>,
}

fn ldlm_request(o: Order, buf: &[u8]) -> Result<OwnedLdlmRequest> {
    need(buf, 104, "ldlm_request")?;
    if !(buf.len() - 88).is_multiple_of(8) {
        return fail("ldlm_request: partial lock handle");
    }
    let mut b = buf;
    let lock_flags = o.u32(&mut b);
    let lock_count = o.u32(&mut b);
    let desc = lock_desc(o, &mut b);
    let mut handles = Vec::new();
    while b.has_remaining() {
        let mut h = [0u8; 8];
        b.copy_to_slice(&mut h);
        handles.push(h);
    }
    Ok(OwnedLdlmRequest {
        lock_flags,
        lock_count,
        desc,
        handles,
    })
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnedLdlmReply {
    pub lock_flags: u32,
    pub desc: OwnedLockDesc,
    pub handle: [u8; 8],
    pub policy_res1: u64,
    pub policy_res2: u64,
}

fn ldlm_reply(o: Order, buf: &[u8]) -> Result<OwnedLdlmReply> {
    need(buf, 112, "ldlm_reply")?;
    let mut b = buf;
    let lock_flags = o.u32(&mut b);
    let _pad = o.u32(&mut b);
    let desc = lock_desc(o, &mut b);
    let mut handle = [0u8; 8];
    b.copy_to_slice(&mut handle);
    Ok(OwnedLdlmReply {
        lock_flags,
        desc,
        handle,
        policy_res1: o.u64(&mut b),
        policy_res2: o.u64(&mut b),
    })
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnedPrepReq {
    pub fid: OwnedFid,
    pub flags: u32,
    pub fsuid: u32,
    pub fsgid: u32,
    pub umask: u32,
    pub cap: u64,
    pub child_mode: u32,
    pub buf_limit: Vec<u32>,
}

fn prep_req(o: Order, buf: &[u8]) -> Result<OwnedPrepReq> {
    need(buf, 80, "md_create_prepare_req")?;
    let mut b = buf;
    let fid = fid(o, &mut b);
    let flags = o.u32(&mut b);
    let fsuid = o.u32(&mut b);
    let fsgid = o.u32(&mut b);
    let umask = o.u32(&mut b);
    let cap = o.u64(&mut b);
    let child_mode = o.u32(&mut b);
    let _pad = o.u32(&mut b);
    let buf_limit: Vec<u32> = (0..6).map(|_| o.u32(&mut b)).collect();
    if buf_limit.iter().any(|&l| l > 65536) {
        return fail("mcpr_buf_limit over XATTR_SIZE_MAX");
    }
    Ok(OwnedPrepReq {
        fid,
        flags,
        fsuid,
        fsgid,
        umask,
        cap,
        child_mode,
        buf_limit,
    })
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnedPrepRep {
    pub status: i32,
    pub flags: u32,
    pub valid: u32,
    pub truncated: u32,
    pub fid: OwnedFid,
    pub child_mode: u32,
    pub child_gid: u32,
    pub child_projid: u32,
    pub child_flags: u32,
    pub buf_size: Vec<u32>,
}

fn prep_rep(o: Order, buf: &[u8]) -> Result<OwnedPrepRep> {
    need(buf, 80, "md_create_prepare_rep")?;
    let mut b = buf;
    Ok(OwnedPrepRep {
        status: o.i32(&mut b),
        flags: o.u32(&mut b),
        valid: o.u32(&mut b),
        truncated: o.u32(&mut b),
        fid: fid(o, &mut b),
        child_mode: o.u32(&mut b),
        child_gid: o.u32(&mut b),
        child_projid: o.u32(&mut b),
        child_flags: o.u32(&mut b),
        buf_size: (0..6).map(|_| o.u32(&mut b)).collect(),
    })
}

// ---------------------------------------------------------------- messages

/// A prepare request, fully owned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnedRequest {
    pub msg: OwnedMsg,
    pub ptlrpc: OwnedPtlrpc,
    pub ldlm: OwnedLdlmRequest,
    pub opc: u64,
    pub body: OwnedPrepReq,
    pub name: Option<String>,
    pub groups: Vec<u32>,
}

pub fn decode_request(input: &[u8]) -> Result<OwnedRequest> {
    let msg = decode_msg(input)?;
    let o = msg.order;
    if msg.buffers.len() < 4 {
        return fail("request: fewer than 4 buffers");
    }
    let ptlrpc = ptlrpc(o, &msg.buffers[0])?;
    if ptlrpc.msg_type != 4711 || ptlrpc.opc != 101 {
        return fail("not an LDLM_ENQUEUE request");
    }
    let ldlm = ldlm_request(o, &msg.buffers[1])?;
    need(&msg.buffers[2], 8, "ldlm_intent")?;
    let opc = o.u64(&mut &msg.buffers[2][..]);
    if !matches!(opc, 0x1_0000 | 0x2_0000 | 0x4_0000) {
        return fail("not a prepare intent");
    }
    let body = prep_req(o, &msg.buffers[3])?;
    let name = match msg.buffers.get(4) {
        Some(n) if !n.is_empty() => {
            let Some(nul) = n.iter().position(|&c| c == 0) else {
                return fail("name without NUL");
            };
            if nul == 0 || nul > 255 || n[..nul].contains(&b'/') {
                return fail("bad name");
            }
            Some(String::from_utf8_lossy(&n[..nul]).into_owned())
        }
        _ => None,
    };
    let groups = match msg.buffers.get(5) {
        Some(g) => {
            if !g.len().is_multiple_of(4) || g.len() > 4 * 128 {
                return fail("bad groups buffer");
            }
            let mut b = &g[..];
            let mut v = Vec::with_capacity(g.len() / 4);
            while b.has_remaining() {
                v.push(o.u32(&mut b));
            }
            v
        }
        None => Vec::new(),
    };
    Ok(OwnedRequest {
        msg,
        ptlrpc,
        ldlm,
        opc,
        body,
        name,
        groups,
    })
}

/// A prepare reply, fully owned. `results[i]` is `Some(bytes)` when result i is known (empty
/// bytes: known absent) and `None` when it is unknown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnedReply {
    pub msg: OwnedMsg,
    pub ptlrpc: OwnedPtlrpc,
    pub ldlm: OwnedLdlmReply,
    pub body: Option<OwnedPrepRep>,
    pub results: Vec<Option<Vec<u8>>>,
}

pub fn decode_reply(input: &[u8]) -> Result<OwnedReply> {
    let msg = decode_msg(input)?;
    let o = msg.order;
    if msg.buffers.len() < 2 {
        return fail("reply: fewer than 2 buffers");
    }
    let ptlrpc = ptlrpc(o, &msg.buffers[0])?;
    if ptlrpc.msg_type != 4713 || ptlrpc.status != 0 || ptlrpc.opc != 101 {
        return fail("not a successful LDLM_ENQUEUE reply");
    }
    let ldlm = ldlm_reply(o, &msg.buffers[1])?;
    let body = match msg.buffers.get(2) {
        Some(b) if !b.is_empty() => Some(prep_rep(o, b)?),
        _ => None,
    };
    let mut results = Vec::with_capacity(6);
    for i in 0..6 {
        let data = msg.buffers.get(3 + i).cloned().unwrap_or_default();
        let valid = body.as_ref().is_some_and(|b| b.valid & (1 << i) != 0);
        if valid {
            if data.len() != body.as_ref().map_or(0, |b| b.buf_size[i] as usize) {
                return fail("result length differs from mcpp_buf_size");
            }
            results.push(Some(data));
        } else {
            if !data.is_empty() {
                return fail("result buffer without its valid bit");
            }
            results.push(None);
        }
    }
    Ok(OwnedReply {
        msg,
        ptlrpc,
        ldlm,
        body,
        results,
    })
}

// ---------------------------------------------------------------- typed results

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnedMdtBody {
    pub fid1: OwnedFid,
    pub fid2: OwnedFid,
    pub open_handle: [u8; 8],
    pub valid: u64,
    pub size: u64,
    pub mtime: i64,
    pub atime: i64,
    pub ctime: i64,
    pub blocks: u64,
    pub version: u64,
    pub t_state: u64,
    /// fsuid, fsgid, capability, mode, uid, gid, flags, rdev, nlink, layout_gen, suppgid,
    /// eadatasize, aclsize, max_mdsize, unused3, uid_h, gid_h, projid, in wire order.
    pub words: Vec<u32>,
    pub dom_size: u64,
    pub dom_blocks: u64,
    pub btime: u64,
    pub xattr_absent: u64,
}

pub fn decode_mdt_body(o: Order, buf: &[u8]) -> Result<OwnedMdtBody> {
    if buf.len() != 216 {
        return fail("mdt_body must be 216 bytes");
    }
    let mut b = buf;
    let fid1 = fid(o, &mut b);
    let fid2 = fid(o, &mut b);
    let mut open_handle = [0u8; 8];
    b.copy_to_slice(&mut open_handle);
    Ok(OwnedMdtBody {
        fid1,
        fid2,
        open_handle,
        valid: o.u64(&mut b),
        size: o.u64(&mut b),
        mtime: o.i64(&mut b),
        atime: o.i64(&mut b),
        ctime: o.i64(&mut b),
        blocks: o.u64(&mut b),
        version: o.u64(&mut b),
        t_state: o.u64(&mut b),
        words: (0..18).map(|_| o.u32(&mut b)).collect(),
        dom_size: o.u64(&mut b),
        dom_blocks: o.u64(&mut b),
        btime: o.u64(&mut b),
        xattr_absent: o.u64(&mut b),
    })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OwnedAclEntry {
    pub tag: u16,
    pub perm: u16,
    pub id: u32,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnedAcl {
    pub version: u32,
    pub entries: Vec<OwnedAclEntry>,
}

pub fn decode_acl(buf: &[u8]) -> Result<OwnedAcl> {
    need(buf, 4, "posix_acl_xattr_header")?;
    if !(buf.len() - 4).is_multiple_of(8) || buf.len() > 65536 {
        return fail("bad ACL length");
    }
    let mut b = buf;
    let version = b.get_u32_le();
    if version != 2 {
        return fail("unsupported ACL version");
    }
    let mut entries = Vec::new();
    while b.has_remaining() {
        let e = OwnedAclEntry {
            tag: b.get_u16_le(),
            perm: b.get_u16_le(),
            id: b.get_u32_le(),
        };
        if !matches!(e.tag, 0x01 | 0x02 | 0x04 | 0x08 | 0x10 | 0x20) || e.perm > 7 {
            return fail("bad ACL entry");
        }
        entries.push(e);
    }
    Ok(OwnedAcl { version, entries })
}

fn pool_name(b: &mut &[u8]) -> Result<String> {
    let raw = b.copy_to_bytes(16);
    let Some(end) = raw.iter().position(|&c| c == 0) else {
        return fail("pool name without NUL");
    };
    Ok(String::from_utf8_lossy(&raw[..end]).into_owned())
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnedForeign {
    pub magic: u32,
    pub foreign_type: u32,
    pub flags: u32,
    pub value: Vec<u8>,
}

fn decode_foreign(buf: &[u8]) -> Result<OwnedForeign> {
    need(buf, 16, "foreign layout")?;
    let mut b = buf;
    let magic = b.get_u32_le();
    let len = b.get_u32_le() as usize;
    let foreign_type = b.get_u32_le();
    let flags = b.get_u32_le();
    if b.remaining() != len {
        return fail("lfm_length does not match");
    }
    Ok(OwnedForeign {
        magic,
        foreign_type,
        flags,
        value: b.to_vec(),
    })
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnedLmvMd {
    pub magic: u32,
    pub stripe_count: u32,
    pub master_mdt_index: u32,
    pub hash_type: u32,
    pub layout_version: u32,
    pub migrate_offset: u32,
    pub migrate_hash: u32,
    pub pool_name: String,
    pub stripe_fids: Vec<OwnedFid>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OwnedLmv {
    Md(OwnedLmvMd),
    Foreign(OwnedForeign),
}

pub fn decode_lmv(buf: &[u8]) -> Result<OwnedLmv> {
    need(buf, 4, "trusted.lmv")?;
    let magic = (&buf[..4]).get_u32_le();
    match magic {
        0x0CD2_0CD0 | 0x0CD4_0CD0 => {}
        0x0CD5_0CD0 => return decode_foreign(buf).map(OwnedLmv::Foreign),
        _ => return fail("bad LMV magic"),
    }
    need(buf, 56, "lmv_mds_md_v1")?;
    let mut b = buf;
    let magic = b.get_u32_le();
    let stripe_count = b.get_u32_le();
    let master_mdt_index = b.get_u32_le();
    let hash_type = b.get_u32_le();
    let layout_version = b.get_u32_le();
    let migrate_offset = b.get_u32_le();
    let migrate_hash = b.get_u32_le();
    b.advance(12);
    let pool_name = pool_name(&mut b)?;
    if stripe_count > 2000 {
        return fail("too many stripes");
    }
    let n = if b.remaining() == 16 * stripe_count as usize {
        stripe_count as usize
    } else if magic == 0x0CD4_0CD0 && !b.has_remaining() {
        0
    } else {
        return fail("LMV size does not match its stripe count");
    };
    let stripe_fids = (0..n).map(|_| fid(LE, &mut b)).collect();
    Ok(OwnedLmv::Md(OwnedLmvMd {
        magic,
        stripe_count,
        master_mdt_index,
        hash_type,
        layout_version,
        migrate_offset,
        migrate_hash,
        pool_name,
        stripe_fids,
    }))
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnedDmv {
    pub magic: u32,
    pub stripe_count: i32,
    pub stripe_offset: u32,
    pub hash_type: u32,
    pub lum_type: u32,
    pub max_inherit: u8,
    pub max_inherit_rr: u8,
    pub pool_name: String,
    /// `(fid, mds)` of each SPECIFIC object.
    pub objects: Vec<(OwnedFid, u32)>,
}

pub fn decode_dmv(buf: &[u8]) -> Result<OwnedDmv> {
    need(buf, 48, "lmv_user_md_v1")?;
    let mut b = buf;
    let magic = b.get_u32_le();
    if magic != 0x0CD3_0CD0 && magic != 0x0CD4_0CD0 {
        return fail("bad default LMV magic");
    }
    let stripe_count = b.get_i32_le();
    let stripe_offset = b.get_u32_le();
    let hash_type = b.get_u32_le();
    let lum_type = b.get_u32_le();
    let max_inherit = b.get_u8();
    let max_inherit_rr = b.get_u8();
    b.advance(10);
    let pool_name = pool_name(&mut b)?;
    let n = if magic == 0x0CD4_0CD0 {
        stripe_count.max(0) as usize
    } else {
        0
    };
    if b.remaining() != 24 * n {
        return fail("default LMV size does not match");
    }
    let mut objects = Vec::with_capacity(n);
    for _ in 0..n {
        let f = fid(LE, &mut b);
        let _pad = b.get_u32_le();
        objects.push((f, b.get_u32_le()));
    }
    Ok(OwnedDmv {
        magic,
        stripe_count,
        stripe_offset,
        hash_type,
        lum_type,
        max_inherit,
        max_inherit_rr,
        pool_name,
        objects,
    })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OwnedOst {
    pub oi_id: u64,
    pub oi_seq: u64,
    pub ost_gen: u32,
    pub ost_idx: u32,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnedLovMd {
    pub magic: u32,
    pub pattern: u32,
    pub oi_id: u64,
    pub oi_seq: u64,
    pub stripe_size: u32,
    pub stripe_count: u16,
    pub stripe_offset: u16,
    pub pool_name: Option<String>,
    pub objects: Vec<OwnedOst>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnedComponent {
    pub id: u32,
    pub flags: u32,
    pub extent_start: u64,
    pub extent_end: u64,
    pub layout_gen: u32,
    pub time_and_id: u64,
    pub dstripe_count: u8,
    pub cstripe_count: u8,
    pub compr_type: u8,
    pub compr_bits: u8,
    pub blob: OwnedLov,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnedLovComp {
    pub layout_gen: u32,
    pub flags: u16,
    pub mirror_count: u16,
    pub ec_count: u8,
    pub components: Vec<OwnedComponent>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OwnedLov {
    Md(OwnedLovMd),
    Comp(OwnedLovComp),
    Foreign(OwnedForeign),
}

fn decode_lov_md(buf: &[u8]) -> Result<OwnedLovMd> {
    need(buf, 32, "lov_user_md")?;
    let mut b = buf;
    let magic = b.get_u32_le();
    let pattern = b.get_u32_le();
    let oi_id = b.get_u64_le();
    let oi_seq = b.get_u64_le();
    let stripe_size = b.get_u32_le();
    let stripe_count = b.get_u16_le();
    let stripe_offset = b.get_u16_le();
    let pool_name = if magic == 0x0BD1_0BD0 {
        None
    } else {
        need(b, 16, "lmm_pool_name")?;
        Some(pool_name(&mut b)?)
    };
    let objects = if !b.has_remaining() {
        Vec::new()
    } else {
        if stripe_count >= 0xffe0 || b.remaining() != 24 * stripe_count as usize {
            return fail("LOV size does not match its stripe count");
        }
        let mut v = Vec::with_capacity(stripe_count as usize);
        for _ in 0..stripe_count {
            v.push(OwnedOst {
                oi_id: b.get_u64_le(),
                oi_seq: b.get_u64_le(),
                ost_gen: b.get_u32_le(),
                ost_idx: b.get_u32_le(),
            });
        }
        v
    };
    Ok(OwnedLovMd {
        magic,
        pattern,
        oi_id,
        oi_seq,
        stripe_size,
        stripe_count,
        stripe_offset,
        pool_name,
        objects,
    })
}

fn decode_lov_comp(buf: &[u8]) -> Result<OwnedLovComp> {
    need(buf, 32, "lov_comp_md_v1")?;
    let mut b = buf;
    let _magic = b.get_u32_le();
    let size = b.get_u32_le() as usize;
    if size != buf.len() {
        return fail("lcm_size does not match");
    }
    let layout_gen = b.get_u32_le();
    let flags = b.get_u16_le();
    let count = b.get_u16_le() as usize;
    let mirror_count = b.get_u16_le();
    let ec_count = b.get_u8();
    b.advance(13);
    if count == 0 {
        return fail("composite layout without components");
    }
    need(b, 48 * count, "lov_comp_md_entry_v1 table")?;
    let mut components = Vec::with_capacity(count);
    for _ in 0..count {
        let id = b.get_u32_le();
        let flags = b.get_u32_le();
        let extent_start = b.get_u64_le();
        let extent_end = b.get_u64_le();
        let offset = b.get_u32_le() as usize;
        let size = b.get_u32_le() as usize;
        let layout_gen = b.get_u32_le();
        let time_and_id = b.get_u64_le();
        let dstripe_count = b.get_u8();
        let cstripe_count = b.get_u8();
        let compr_type = b.get_u8();
        let compr_bits = b.get_u8();
        if offset < 32 + 48 * count || offset + size > buf.len() {
            return fail("component outside the layout");
        }
        let blob = decode_lov_blob(&buf[offset..offset + size])?;
        components.push(OwnedComponent {
            id,
            flags,
            extent_start,
            extent_end,
            layout_gen,
            time_and_id,
            dstripe_count,
            cstripe_count,
            compr_type,
            compr_bits,
            blob,
        });
    }
    Ok(OwnedLovComp {
        layout_gen,
        flags,
        mirror_count,
        ec_count,
        components,
    })
}

fn decode_lov_blob(buf: &[u8]) -> Result<OwnedLov> {
    need(buf, 4, "component blob")?;
    match (&buf[..4]).get_u32_le() {
        0x0BD1_0BD0 | 0x0BD3_0BD0 | 0x0BD5_0BD0 => decode_lov_md(buf).map(OwnedLov::Md),
        0x0BD7_0BD0 => decode_foreign(buf).map(OwnedLov::Foreign),
        _ => fail("bad component magic"),
    }
}

pub fn decode_lov(buf: &[u8]) -> Result<OwnedLov> {
    need(buf, 4, "trusted.lov")?;
    if buf.len() > 65536 {
        return fail("trusted.lov too large");
    }
    match (&buf[..4]).get_u32_le() {
        0x0BD6_0BD0 => decode_lov_comp(buf).map(OwnedLov::Comp),
        _ => decode_lov_blob(buf),
    }
}

/// Every result of a reply, typed: what a coordinator needs from the whole message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnedResults {
    pub pattr: Option<OwnedMdtBody>,
    pub def_acl: Option<OwnedAcl>,
    pub pin: Option<String>,
    pub lmv: Option<OwnedLmv>,
    pub lov: Option<OwnedLov>,
    pub def_lmv: Option<OwnedDmv>,
}

fn present(r: &OwnedReply, i: usize) -> Option<&[u8]> {
    r.results[i].as_deref().filter(|d| !d.is_empty())
}

/// A reply and every one of its present results, decoded into owned values.
pub fn decode_reply_whole(input: &[u8]) -> Result<(OwnedReply, OwnedResults)> {
    let reply = decode_reply(input)?;
    let o = reply.msg.order;
    let results = OwnedResults {
        pattr: present(&reply, 0)
            .map(|d| decode_mdt_body(o, d))
            .transpose()?,
        def_acl: present(&reply, 1).map(decode_acl).transpose()?,
        pin: present(&reply, 2).map(|d| String::from_utf8_lossy(d).into_owned()),
        lmv: present(&reply, 3).map(decode_lmv).transpose()?,
        lov: present(&reply, 4).map(decode_lov).transpose()?,
        def_lmv: present(&reply, 5).map(decode_dmv).transpose()?,
    };
    Ok((reply, results))
}
