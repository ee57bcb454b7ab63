//! What a prepare request and a prepare reply share, as LDLM enqueues: buffer 0's head and its
//! type (W2.3), the buffers past the last (W2.2), and the lock rules (W3.1, W3.2). The request
//! and reply rules, and [`MessageView`](super::MessageView), call these; nothing here knows a
//! request from a reply beyond what the caller says.

use crate::error::{At, DecodeError, ErrorKind};
use crate::limits::PTLRPC_BODY_V2_SIZE;
use crate::wire::layout::{
    FieldAt, ldlm_inodebits, ldlm_lock_desc, ldlm_reply, ldlm_request, ldlm_res_id, lustre_msg_v2,
    ptlrpc_body as pb,
};
use crate::wire::msg::buflen_offset;
use crate::wire::raw::LdlmLockDescRaw;
use crate::wire::table::member_at;
use crate::wire::{LockMode, PtlrpcBody, PtlrpcMsgType};
use zerocopy::ByteOrder;
use zerocopy::byteorder::U32;

/// What a decoder reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Expect {
    Request,
    Reply,
}

/// The fields of buffer 0 the rules read (`pb_type`, `pb_version`, `pb_opc`, and `pb_status`
/// of a reply, `pb_timeout` of a request): a view checks them straight from the buffer, without
/// converting the whole `ptlrpc_body`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PtlrpcHead {
    pub(crate) msg_type: PtlrpcMsgType,
    pub(crate) version: u32,
    pub(crate) opc: u32,
    pub(crate) status: i32,
    pub(crate) timeout: u32,
}

impl PtlrpcHead {
    /// The fields of a decoded (or built) body.
    pub(crate) fn of(p: &PtlrpcBody) -> Self {
        PtlrpcHead {
            msg_type: p.msg_type,
            version: p.version,
            opc: p.opc,
            status: p.status,
            timeout: p.timeout,
        }
    }

    /// Checks buffer 0 at offset `base` as [`PtlrpcBody::decode_buffer`] does (a v2 body of 152
    /// bytes at least, with the same error) and reads the fields in byte order `O`.
    #[inline(always)]
    pub(crate) fn check_as<O: ByteOrder>(buf: &[u8], base: usize) -> Result<Self, DecodeError> {
        let Some(head) = buf.get(..PTLRPC_BODY_V2_SIZE) else {
            return Err(PtlrpcBody::too_short(base, buf.len()));
        };
        let word = |f: FieldAt| {
            let at = f.offset;
            U32::<O>::from_bytes([head[at], head[at + 1], head[at + 2], head[at + 3]]).get()
        };
        Ok(PtlrpcHead {
            msg_type: PtlrpcMsgType(word(pb::pb_type)),
            version: word(pb::pb_version),
            opc: word(pb::pb_opc),
            // pb_status is an __s32 on the wire.
            status: word(pb::pb_status) as i32,
            timeout: word(pb::pb_timeout),
        })
    }
}

/// Checks `pb_type` of a `ptlrpc_body` at offset `o0`. The reply decoder takes
/// `PTL_RPC_MSG_ERR` too: that is how a failed enqueue answers, and the reply rules name its
/// errno.
pub(crate) fn check_type(t: PtlrpcMsgType, o0: usize, expect: Expect) -> Result<(), DecodeError> {
    let (ok, expected) = match expect {
        Expect::Request => (t == PtlrpcMsgType::REQUEST, "a request"),
        Expect::Reply => (
            t == PtlrpcMsgType::REPLY || t == PtlrpcMsgType::ERR,
            "a reply",
        ),
    };
    if ok {
        Ok(())
    } else {
        Err(wrong_type(t, o0, expected))
    }
}

/// A `pb_type` that is not the kind of message expected (W2.3).
pub(crate) fn wrong_type(t: PtlrpcMsgType, o0: usize, expected: &'static str) -> DecodeError {
    DecodeError::new(
        pb::pb_type.at(o0),
        ErrorKind::WrongMessageType { got: t.0, expected },
    )
}

/// The error for a non-empty buffer past `last`, at its `lm_buflens` entry (named as the whole
/// member, `lm_buflens`).
pub(crate) fn past_last_error(index: usize, len: usize, last: usize) -> DecodeError {
    let lm = lustre_msg_v2::lm_buflens;
    DecodeError::new(
        At::new(lm.structure, lm.name, buflen_offset(index)),
        ErrorKind::BufferPastLast { index, len, last },
    )
}

/// Where the members of `lock_desc` that the lock rules read lie, seen from the structure
/// that embeds it (`ldlm_request` or `ldlm_reply`): the errors' places.
pub(crate) struct LockDescAt {
    pub(crate) lr_type: FieldAt,
    /// `lock_desc.l_resource.lr_name.name`, an array.
    pub(crate) name: FieldAt,
    pub(crate) req_mode: FieldAt,
    pub(crate) granted_mode: FieldAt,
    pub(crate) bits: FieldAt,
}

macro_rules! lock_desc_at {
    ($lock_desc:expr) => {
        LockDescAt {
            lr_type: member_at!($lock_desc, ldlm_lock_desc::lr_type),
            name: member_at!($lock_desc, ldlm_lock_desc::lr_name, ldlm_res_id::name),
            req_mode: member_at!($lock_desc, ldlm_lock_desc::l_req_mode),
            granted_mode: member_at!($lock_desc, ldlm_lock_desc::l_granted_mode),
            bits: member_at!(
                $lock_desc,
                ldlm_lock_desc::l_policy_data,
                ldlm_inodebits::bits
            ),
        }
    };
}

/// `ldlm_request.lock_desc`'s members.
pub(crate) const IN_REQUEST: LockDescAt = lock_desc_at!(ldlm_request::lock_desc);
/// `ldlm_reply.lock_desc`'s members.
pub(crate) const IN_REPLY: LockDescAt = lock_desc_at!(ldlm_reply::lock_desc);

/// The rules every lock of this protocol obeys, in a request (`l_req_mode`) and in a reply
/// (both modes): a FID resource (W3.1) and a client mode (W3.2). `at` places the lock
/// description in its structure, which starts at `base`. Inlined into both decoders; the
/// errors are built out of line.
#[inline(always)]
pub(crate) fn check_lock<O: ByteOrder>(
    desc: &LdlmLockDescRaw<O>,
    at: &'static LockDescAt,
    base: usize,
    granted_too: bool,
) -> Result<(), DecodeError> {
    let name2 = desc.resource().name[2];
    if name2 != 0 {
        return Err(not_fid(at, base, name2));
    }
    let req_mode = desc.req_mode();
    if !req_mode.is_client_mode() {
        return Err(bad_mode(&at.req_mode, base, req_mode));
    }
    let granted_mode = desc.granted_mode();
    if granted_too && !granted_mode.is_client_mode() {
        return Err(bad_mode(&at.granted_mode, base, granted_mode));
    }
    Ok(())
}

/// The error of a resource that is not a FID's (W3.1): `name[2]` is not 0.
#[cold]
fn not_fid(at: &LockDescAt, base: usize, got: u64) -> DecodeError {
    DecodeError::new(
        at.name.element(2).at(base),
        ErrorKind::ResourceNotFid { got },
    )
}

/// The error of a lock mode no client asks for (W3.2).
#[cold]
fn bad_mode(field: &FieldAt, base: usize, m: LockMode) -> DecodeError {
    DecodeError::new(field.at(base), ErrorKind::BadLockMode { got: m.0 })
}
