//! `Arbitrary` replies and payloads, for fuzzing and the conformance strategies.

use super::{PrepareOutcome, PrepareReply};
use crate::intent::{McppFlags, MdCreatePrepareRep, MliBuf, PrepResult, UnknownReason};
use crate::limits::{MDT_BODY_SIZE, XATTR_SIZE_MAX};
use crate::mode;
use crate::wire::ptlrpc::{LDLM_ENQUEUE, LUSTRE_VERSION_MASK, PTLRPC_MSG_VERSION};
use crate::wire::{DispFlags, LdlmReply, LockType, MsgHeader, PtlrpcBody, PtlrpcMsgType};
use bytes::Bytes;

/// A result payload of `buf`'s kind: arbitrary bytes when they are one (always for the pin),
/// otherwise a small valid payload built from the input (a minimal ACL, a foreign LMV or LOV, a
/// default LMV without a pool).
pub fn arbitrary_payload(
    u: &mut arbitrary::Unstructured<'_>,
    buf: MliBuf,
) -> arbitrary::Result<Bytes> {
    let len = u.arbitrary_len::<u8>()?.min(XATTR_SIZE_MAX);
    let data = u.bytes(len)?;
    if super::xattrs::check_result(buf, data).is_ok() {
        return Ok(Bytes::copy_from_slice(data));
    }
    let mut v = alloc::vec::Vec::new();
    let le = |v: &mut alloc::vec::Vec<u8>, w: u32| v.extend_from_slice(&w.to_le_bytes());
    match buf {
        MliBuf::DefAcl => {
            le(&mut v, 2);
            for tag in [0x01u16, 0x04, 0x20] {
                v.extend_from_slice(&tag.to_le_bytes());
                v.extend_from_slice(&u.int_in_range(0..=7u16)?.to_le_bytes());
                le(&mut v, u32::MAX);
            }
        }
        MliBuf::DefLmv => {
            le(&mut v, crate::xattr::LMV_USER_MAGIC);
            v.extend_from_slice(&u.int_in_range(-5..=8i32)?.to_le_bytes());
            for _ in 0..3 {
                le(&mut v, u.arbitrary()?);
            }
            v.extend_from_slice(&[u.arbitrary()?, u.arbitrary()?]);
            v.resize(48, 0);
        }
        _ => {
            // lmv_foreign_md / lov_foreign_md: magic, lfm_length, lfm_type, lfm_flags, value.
            let magic = if buf == MliBuf::Lmv {
                0x0CD5_0CD0
            } else {
                crate::xattr::LOV_MAGIC_FOREIGN
            };
            let value = &data[..data.len().min(64)];
            le(&mut v, magic);
            le(&mut v, value.len() as u32);
            le(&mut v, u.arbitrary()?);
            le(&mut v, u.arbitrary()?);
            v.extend_from_slice(value);
        }
    }
    Ok(Bytes::from(v))
}

/// Legal replies, mostly: arbitrary fields with the rules of WIRE.md §7 fixed up (a granted
/// `LDLM_ENQUEUE` reply in a client mode on a FID resource, only the dispositions of the lookup,
/// a non-positive status, a FID that agrees with the lookup), and each result present (a valid
/// payload of its kind, `mdt_body`-sized for the attributes), absent (not the attributes),
/// truncated or not provided, through [`PrepareOutcome::set_result`]; one reply in five is the
/// empty result.
impl<'a> arbitrary::Arbitrary<'a> for PrepareReply {
    fn arbitrary(u: &mut arbitrary::Unstructured<'a>) -> arbitrary::Result<Self> {
        let mut header: MsgHeader = u.arbitrary()?;
        // The null flavour's policy; the rest of lm_secflvr is free.
        header.secflvr &= !crate::wire::FLVR_POLICY_MASK;
        let mut ptlrpc: PtlrpcBody = u.arbitrary()?;
        ptlrpc.msg_type = PtlrpcMsgType::REPLY;
        // A receiver checks only the low 16 bits: the high ones stay arbitrary.
        ptlrpc.version = ptlrpc.version & LUSTRE_VERSION_MASK | PTLRPC_MSG_VERSION;
        ptlrpc.opc = LDLM_ENQUEUE;
        ptlrpc.status = 0;
        let mut ldlm: LdlmReply = u.arbitrary()?;
        ldlm.lock_desc.lr_type = LockType::IBITS;
        ldlm.lock_desc.resource.name[2] = 0;
        if !ldlm.lock_desc.req_mode.is_client_mode() {
            ldlm.lock_desc.req_mode = crate::wire::LockMode(1 << u.int_in_range(0..=5u32)?);
        }
        ldlm.lock_desc.granted_mode = ldlm.lock_desc.req_mode;
        ldlm.policy_res2 = 0;
        let mut disp = DispFlags::IT_EXECD;
        let outcome = if u.ratio(1, 5)? {
            match u.int_in_range(0..=2u8)? {
                0 => {}
                1 => disp |= DispFlags::LOOKUP_EXECD | DispFlags::LOOKUP_POS,
                _ => disp |= DispFlags::LOOKUP_EXECD | DispFlags::LOOKUP_NEG,
            }
            None
        } else {
            let mut body: MdCreatePrepareRep = u.arbitrary()?;
            if body.status > 0 {
                body.status = -body.status;
            }
            let done = body.flags.contains(McppFlags::LOOKUP_DONE);
            if !done {
                body.flags = body.flags.difference(McppFlags::LOOKUP_POS);
            }
            let found = body.flags.contains(McppFlags::LOOKUP_POS);
            if !found {
                body.fid = Default::default();
            } else if body.fid.is_zero() {
                body.fid = crate::wire::LuFid::new(0x200000401, 1, 0);
            }
            if body.status != 0 {
                body.flags = body.flags.difference(McppFlags::CHILD_DERIVED);
            }
            let derived = body.flags.contains(McppFlags::CHILD_DERIVED);
            if derived {
                // A file type with permission bits (W7.18); PROJINHERIT on a directory only
                // (W7.23).
                body.child_mode &= mode::S_IFMT | 0o7777;
                if !mode::is_valid_type(body.child_mode) {
                    body.child_mode |= mode::S_IFDIR;
                    body.child_mode &= mode::S_IFDIR | 0o7777;
                }
                body.child_flags &= crate::mode::LUSTRE_PROJINHERIT_FL;
                if body.child_mode & mode::S_IFMT != mode::S_IFDIR {
                    body.child_flags = 0;
                }
            }
            if found && !derived && body.child_mode != 0 {
                body.child_mode &= mode::S_IFMT;
                if !mode::is_valid_type(body.child_mode) {
                    body.child_mode = mode::S_IFDIR;
                }
            }
            if done {
                disp |= DispFlags::LOOKUP_EXECD;
                disp |= if found {
                    DispFlags::LOOKUP_POS
                } else {
                    DispFlags::LOOKUP_NEG
                };
            }
            let sizes = body.buf_size;
            let mut o = PrepareOutcome::new(body);
            for b in MliBuf::ALL {
                let pick = match (b, u.int_in_range(0..=3u8)?) {
                    // The attributes are never absent nor truncated: present or not provided.
                    (MliBuf::Pattr, 1 | 2) => 3,
                    (_, pick) => pick,
                };
                let state = match pick {
                    0 => {
                        // Not provided: the size field is not looked at.
                        o.body.buf_size[b.index()] = sizes[b.index()];
                        continue;
                    }
                    1 => PrepResult::Absent,
                    2 => PrepResult::Unknown(UnknownReason::Truncated {
                        size: u.int_in_range(1..=u32::MAX)?,
                    }),
                    _ => {
                        let data = match b {
                            MliBuf::Pattr => {
                                // Exactly one mdt_body, zero-filled when the input runs out.
                                let mut attrs = bytes::BytesMut::zeroed(MDT_BODY_SIZE);
                                let have = u.len().min(MDT_BODY_SIZE);
                                attrs[..have].copy_from_slice(u.bytes(have)?);
                                attrs.freeze()
                            }
                            _ => arbitrary_payload(u, b)?,
                        };
                        if data.is_empty() {
                            PrepResult::Absent
                        } else {
                            PrepResult::Present(data)
                        }
                    }
                };
                o.set_result(b, state);
            }
            Some(o)
        };
        ldlm.policy_res1 = disp;
        Ok(PrepareReply {
            header,
            ptlrpc,
            ldlm,
            outcome,
        })
    }
}
