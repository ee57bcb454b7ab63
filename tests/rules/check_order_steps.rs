//! The steps of WIRE.md's check orders (§5, §7), each with the change of a valid message that
//! breaks it: a rename request in entry mode, and the bundled complete mkdir reply.

use super::check_order::{Bufs, M, Step};
use super::*;
use M::{B, C, R, V};

/// A valid rename request in entry mode (object mode, create and unlink are one change away).
pub fn rename_request() -> PrepareRequest {
    let body = MdCreatePrepareReq {
        child_mode: 0,
        ..mkdir_body()
    };
    PrepareRequest::new(
        Operation::Rename,
        body,
        Some(EntryName::new(b"old").expect("valid name")),
        GroupList::from_slice(&[500, 600, 700]).expect("3 groups"),
        LockMode::EX,
        0xabcd,
    )
}

fn w32(b: &mut [u8], at: usize, v: u32) {
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

/// `lm_buflens[i]` of a little-endian message.
fn buflen(i: usize) -> usize {
    32 + 4 * i
}

/// The last buffer made 1 023 990 bytes long in the framing, the input grown to hold it: each buffer
/// within `PTLRPC_MAX_BUFLEN`, the message over it.
fn over_total(b: &mut Vec<u8>, last: usize) {
    let old = u32::from_le_bytes(b[buflen(last)..buflen(last) + 4].try_into().unwrap());
    w32(b, buflen(last), 1_023_990);
    let len = b.len() - (old as usize).div_ceil(8) * 8 + 1_023_992;
    b.resize(len, 0);
}

fn name(p: &mut ReqParts, n: &[u8]) {
    p.name = n.to_vec();
}

fn truncate(bufs: &mut Bufs, i: usize, len: usize) {
    if let Some(b) = bufs.get_mut(i) {
        b.truncate(len);
    }
}

/// WIRE.md §5's list.
pub fn request_steps() -> Vec<Step<ReqParts>> {
    let s = Step::<ReqParts>::new;
    vec![
        s("W0.1", "header cut", vec![R(|b| b.truncate(20))]),
        s("W1.1", "lm_magic", vec![R(|b| b[8] ^= 0xff)]),
        s("W2.1", "33 buffers", vec![R(|b| w32(b, 0, 33))]),
        s("W0.1", "lm_buflens cut", vec![R(|b| b.truncate(40))]),
        s(
            "W0.3",
            "buffer 1 over the bound",
            vec![R(|b| w32(b, buflen(1), 0x8000_0000))],
        ),
        s(
            "W0.1",
            "last buffer cut",
            vec![R(|b| b.truncate(b.len() - 4))],
        ),
        s(
            "W0.3",
            "message over the bound",
            vec![R(|b| over_total(b, 5))],
        ),
        s("W0.2", "buffer 0 short", vec![B(|b| truncate(b, 0, 100))]),
        s(
            "W2.3",
            "pb_type",
            vec![V(|p| p.ptlrpc.msg_type = PtlrpcMsgType::REPLY)],
        ),
        s("W2.1", "3 buffers", vec![V(|p| p.bufcount = 3)]),
        s("W0.2", "buffer 1 short", vec![B(|b| truncate(b, 1, 100))]),
        s(
            "W0.3",
            "33 handles",
            vec![B(|b| b[1].resize(88 + 8 * 33, 0))],
        )
        .alone(),
        s("W0.3", "lock_count", vec![V(|p| p.ldlm.lock_count = 40)]),
        s("W0.2", "buffer 2 short", vec![B(|b| truncate(b, 2, 4))]),
        s("W0.2", "buffer 3 short", vec![B(|b| truncate(b, 3, 40))]),
        s("W2.2", "a seventh buffer", vec![B(|b| b.push(vec![1; 8]))]),
        s("W0.6", "lm_secflvr", vec![V(|p| p.header.secflvr = 1)]),
        s(
            "W5.16",
            "no deadline",
            vec![V(|p| {
                p.header.flags = MSGHDR_AT_SUPPORT;
                p.ptlrpc.timeout = 0;
            })],
        ),
        s(
            "W0.4",
            "pb_version",
            vec![V(|p| p.ptlrpc.version = 0x0002_0003)],
        ),
        s("W0.4", "pb_opc", vec![V(|p| p.ptlrpc.opc = 36)]),
        s(
            "W0.5",
            "no HAS_INTENT",
            vec![V(|p| p.ldlm.lock_flags.0 &= !0x1000)],
        ),
        s("W0.6", "REPLAY", vec![V(|p| p.ldlm.lock_flags.0 |= 0x100)]),
        s(
            "W0.4",
            "lr_type",
            vec![V(|p| p.ldlm.lock_desc.lr_type = LockType::PLAIN)],
        ),
        s(
            "W0.5",
            "no UPDATE",
            vec![V(|p| p.ldlm.lock_desc.policy.bits = InodeBits::LOOKUP)],
        ),
        s(
            "W3.1",
            "name[2]",
            vec![V(|p| p.ldlm.lock_desc.resource.name[2] = 7)],
        ),
        s(
            "W3.2",
            "l_req_mode",
            vec![V(|p| p.ldlm.lock_desc.req_mode = LockMode::GROUP)],
        ),
        s("W5.1", "opc", vec![V(|p| p.opc = IntentOpc(0x0008_0000))]),
        s(
            "W5.2",
            "mcpr_fid",
            vec![V(|p| p.body.fid = LuFid::new(0x2_0000_0402, 1, 0))],
        ),
        s("W0.6", "mcpr_umask", vec![V(|p| p.body.umask = 0o1022)]),
        s(
            "W5.3",
            "object-mode create",
            vec![V(|p| {
                p.opc = IntentOpc::DNE_CREATE_PREPARE;
                p.body.flags = McprFlags::NO_LOOKUP;
            })],
        ),
        s(
            "W5.5",
            "object mode, a name",
            vec![V(|p| p.body.flags = McprFlags::NO_LOOKUP)],
        ),
        s("W5.4", "entry mode, no name", vec![V(|p| p.name.clear())]).alone(),
        s(
            "W5.6",
            "create, mode 0",
            vec![V(|p| p.opc = IntentOpc::DNE_CREATE_PREPARE)],
        ),
        s(
            "W5.7",
            "rename, a mode",
            vec![V(|p| p.body.child_mode = 0o100_644)],
        )
        .alone(),
        s(
            "W0.3",
            "limit over 65536",
            vec![V(|p| p.body.buf_limit[0] = 0x1_0001)],
        ),
        s(
            "W5.13",
            "PATTR limit 100",
            vec![V(|p| p.body.buf_limit[0] = 100)],
        )
        .alone(),
        s("W8.1", "lm_repsize", vec![V(|p| p.header.repsize = 100)]),
        s("W5.8", "no NUL", vec![V(|p| name(p, b"old"))]),
        s(
            "W5.15",
            "bytes after the NUL",
            vec![V(|p| name(p, b"old\0x"))],
        )
        .alone(),
        s("W5.9", "empty name", vec![V(|p| name(p, b"\0"))]).pair(vec![V(|p| name(p, b"\0x"))]),
        s(
            "W5.10",
            "256 bytes",
            vec![V(|p| {
                let mut n = vec![b'a'; 256];
                n.push(0);
                p.name = n;
            })],
        )
        .alone(),
        s("W5.11", "a slash", vec![V(|p| name(p, b"a/b\0"))]).pair(vec![V(|p| {
            let mut n = vec![b'a'; 256];
            n[100] = b'/';
            n.push(0);
            p.name = n;
        })]),
        s("W5.12", "a dot", vec![V(|p| name(p, b".\0"))]).alone(),
        s("W5.14", "groups not aligned", vec![B(|b| b[5].push(0))]),
        s(
            "W0.3",
            "129 groups",
            vec![V(|p| p.groups = (0..129).collect())],
        ),
    ]
}

fn body(p: &mut RepParts) -> &mut MdCreatePrepareRep {
    p.body.as_mut().expect("a body")
}

/// The complete mkdir reply with a positive lookup and no derived child.
fn positive(p: &mut RepParts) {
    p.ldlm.policy_res1 = DispFlags(0x1 | 0x2 | 0x8);
    let b = body(p);
    b.flags = McppFlags::LOOKUP_DONE | McppFlags::LOOKUP_POS;
    b.fid = LuFid::new(0x2_0000_0401, 9, 0);
    b.child_mode = 0o040_755;
}

/// MLI_BUF_LOV's index.
const LOV: usize = 4;

/// WIRE.md §7's list.
pub fn reply_steps() -> Vec<Step<RepParts>> {
    let s = Step::<RepParts>::new;
    vec![
        s("W0.1", "header cut", vec![R(|b| b.truncate(20))]),
        s("W1.1", "lm_magic", vec![R(|b| b[8] ^= 0xff)]),
        s("W2.1", "33 buffers", vec![R(|b| w32(b, 0, 33))]),
        s("W0.1", "lm_buflens cut", vec![R(|b| b.truncate(40))]),
        s(
            "W0.3",
            "buffer 1 over the bound",
            vec![R(|b| w32(b, buflen(1), 0x8000_0000))],
        ),
        s(
            "W0.1",
            "last buffer cut",
            vec![R(|b| b.truncate(b.len() - 4))],
        ),
        s(
            "W0.3",
            "message over the bound",
            vec![R(|b| over_total(b, 8))],
        ),
        s("W0.2", "buffer 0 short", vec![B(|b| truncate(b, 0, 100))]),
        s(
            "W2.3",
            "pb_type",
            vec![V(|p| p.ptlrpc.msg_type = PtlrpcMsgType::REQUEST)],
        ),
        s("W7.1", "pb_status", vec![V(|p| p.ptlrpc.status = -17)]),
        s("W2.1", "1 buffer", vec![V(|p| p.bufcount = 1)]),
        s("W0.2", "buffer 1 short", vec![B(|b| truncate(b, 1, 100))]),
        s("W0.2", "buffer 2 short", vec![B(|b| truncate(b, 2, 40))]),
        s("W2.2", "a tenth buffer", vec![B(|b| b.push(vec![1; 8]))]),
        s("W0.6", "lm_secflvr", vec![V(|p| p.header.secflvr = 1)]),
        s(
            "W0.4",
            "pb_version",
            vec![V(|p| p.ptlrpc.version = 0x0004_0002)],
        ),
        s("W0.4", "pb_opc", vec![V(|p| p.ptlrpc.opc = 36)]),
        s(
            "W0.4",
            "lr_type",
            vec![V(|p| p.ldlm.lock_desc.lr_type = LockType::PLAIN)],
        ),
        s(
            "W0.5",
            "no IT_EXECD",
            vec![V(|p| p.ldlm.policy_res1.0 &= !0x1)],
        ),
        s(
            "W0.6",
            "a disposition bit",
            vec![V(|p| p.ldlm.policy_res1.0 |= 0x100)],
        ),
        s(
            "W0.4",
            "lock_policy_res2",
            vec![V(|p| p.ldlm.policy_res2 = 1)],
        ),
        s(
            "W7.3",
            "POS and NEG",
            vec![V(|p| p.ldlm.policy_res1.0 |= 0x8)],
        ),
        s(
            "W3.1",
            "name[2]",
            vec![V(|p| p.ldlm.lock_desc.resource.name[2] = 7)],
        ),
        s(
            "W3.2",
            "l_req_mode",
            vec![V(|p| p.ldlm.lock_desc.req_mode = LockMode::GROUP)],
        ),
        s(
            "W3.2",
            "l_granted_mode",
            vec![V(|p| p.ldlm.lock_desc.granted_mode = LockMode::GROUP)],
        ),
        s(
            "W7.4",
            "granted not asked",
            vec![V(|p| p.ldlm.lock_desc.req_mode = LockMode::PR)],
        ),
        s(
            "W7.4",
            "name[3]",
            vec![V(|p| p.ldlm.lock_desc.resource.name[3] ^= 1)],
        ),
        s(
            "W7.4",
            "another mode",
            vec![V(|p| {
                p.ldlm.lock_desc.req_mode = LockMode::PR;
                p.ldlm.lock_desc.granted_mode = LockMode::PR;
            })],
        ),
        s("W8.2", "lm_repsize", vec![C(|c| c.repsize = 100)]),
        s(
            "W7.16",
            "a lookup disposition",
            vec![C(|c| c.flags.0 |= 0x1)],
        ),
        s("W7.2", "no buffer 2, results", vec![V(|p| p.body = None)]),
        s(
            "W7.15",
            "unknown mcpr_flags",
            vec![C(|c| c.flags.0 |= 0x100)],
        )
        .alone(),
        s(
            "W7.16",
            "MCPP_LOOKUP_DONE",
            vec![
                C(|c| c.flags.0 |= 0x1),
                V(|p| p.ldlm.policy_res1 = DispFlags(1)),
            ],
        ),
        s("W7.5", "mcpp_status", vec![V(|p| body(p).status = 1)]),
        s(
            "W7.6",
            "POS without DONE",
            vec![V(|p| body(p).flags = McppFlags::LOOKUP_POS)],
        ),
        s(
            "W7.7",
            "mcpp_fid",
            vec![V(|p| body(p).fid = LuFid::new(0x2_0000_0401, 9, 0))],
        )
        .pair(vec![V(|p| body(p).flags = McppFlags::LOOKUP_POS)]),
        s(
            "W7.3",
            "DONE, no EXECD",
            vec![V(|p| p.ldlm.policy_res1 = DispFlags(1))],
        ),
        s("W6.1", "mcpp_valid", vec![V(|p| body(p).valid.0 |= 0x40)]),
        s(
            "W6.1",
            "mcpp_truncated",
            vec![V(|p| body(p).truncated.0 |= 0x80)],
        ),
        s(
            "W7.8",
            "valid and truncated",
            vec![V(|p| body(p).truncated.0 |= 0x2)],
        ),
        s(
            "W6.2",
            "PATTR truncated",
            vec![V(|p| {
                let b = body(p);
                b.valid.0 &= !0x1;
                b.truncated.0 |= 0x1;
                b.buf_size[0] = 0;
                p.results[0].clear();
            })],
        ),
        s(
            "W7.13",
            "derived, status",
            vec![V(|p| body(p).status = -17)],
        ),
        s(
            "W7.13",
            "derived, a rename",
            vec![C(|c| c.op = Operation::Rename)],
        ),
        s(
            "W7.18",
            "derived mode of no type",
            vec![V(|p| body(p).child_mode = 0o176_755)],
        ),
        // A mode of no type has no requested type either: the pair is the first change.
        s(
            "W7.19",
            "mkdir deriving a file",
            vec![V(|p| body(p).child_mode = 0o100_755)],
        )
        .pair(vec![V(|p| body(p).child_mode = 0o176_755)]),
        s(
            "W7.23",
            "derived flags",
            vec![V(|p| body(p).child_flags = 0x1)],
        ),
        s("W7.14", "child_mode", vec![V(positive)]).alone(),
        s("W7.9", "not requested", vec![C(|c| c.limits[5] = 0)]),
        s("W7.10", "buf_size", vec![V(|p| body(p).buf_size[0] += 8)]),
        s(
            "W6.2",
            "PATTR of 200",
            vec![V(|p| {
                p.results[0].truncate(200);
                body(p).buf_size[0] = 200;
            })],
        )
        .pair(vec![V(|p| p.results[0].truncate(200))]),
        s(
            "W0.3",
            "LOV over 65536",
            vec![
                V(|p| {
                    p.results[LOV] = vec![0; 65_544];
                    body(p).buf_size[LOV] = 65_544;
                }),
                C(|c| c.repsize = u32::MAX),
            ],
        ),
        s("W7.11", "over the limit", vec![C(|c| c.limits[LOV] = 8)]),
        s(
            "W7.2",
            "a buffer, not valid",
            vec![V(|p| body(p).valid.0 &= !0x10)],
        )
        .alone(),
        s(
            "W7.12",
            "truncated, fits",
            vec![V(|p| {
                let b = body(p);
                b.valid.0 &= !0x10;
                b.truncated.0 |= 0x10;
                p.results[4].clear();
            })],
        )
        .pair(vec![V(|p| {
            let b = body(p);
            b.valid.0 &= !0x10;
            b.truncated.0 |= 0x10;
        })]),
        // The bundled reply derives 042755 under an SGID parent of group 600 that passes on
        // PROJINHERIT and project 1000, for a mkdir of 040755.
        s(
            "W7.20",
            "derived S_ISUID",
            vec![V(|p| body(p).child_mode = 0o046_755)],
        ),
        s(
            "W7.21",
            "no S_ISGID under an SGID parent",
            vec![V(|p| body(p).child_mode = 0o040_755)],
        )
        .pair(vec![V(|p| body(p).child_mode = 0o044_755)]),
        s(
            "W7.21",
            "gid not the parent's",
            vec![V(|p| body(p).child_gid = 500)],
        ),
        s(
            "W7.22",
            "PROJINHERIT not passed on",
            vec![V(|p| body(p).child_flags = 0)],
        ),
        s(
            "W7.22",
            "projid not the parent's",
            vec![V(|p| body(p).child_projid = 7)],
        ),
        s("W9.5", "ACL e_perm", vec![V(|p| p.results[1][6] = 8)]),
        s("W9.1", "LMV magic", vec![V(|p| p.results[3][0] ^= 0x5a)]),
        s("W9.1", "LOV magic", vec![V(|p| p.results[4][0] ^= 0x5a)]),
        s(
            "W9.1",
            "default LMV magic",
            vec![V(|p| p.results[5][0] ^= 0x5a)],
        ),
    ]
}
