//! The prepare request message (WIRE.md §5): a validated view over received bytes, an owned
//! value that encodes, and the one rule set both of them obey.
//!
//! | buffer | content |
//! |---|---|
//! | 0 | `ptlrpc_body_v3` |
//! | 1 | `ldlm_request` |
//! | 2 | `ldlm_intent` (a prepare opcode) |
//! | 3 | `md_create_prepare_req` |
//! | 4 | entry name with its NUL, or empty in object mode |
//! | 5 | supplementary groups, u32 each |

use super::McprFlags;
use super::enqueue::{Expect, IN_REQUEST, PtlrpcHead, check_lock, check_type, past_last_error};
use super::name::GroupList;
use super::{EntryName, IntentOpc, MdCreatePrepareReq, Operation};
use crate::endian::Endian;
use crate::error::{At, DecodeError, EncodeError, ErrorKind};
use crate::limits::{
    LDLM_INTENT_SIZE, LDLM_REPLY_SIZE, MDT_BODY_SIZE, MLI_BUF_MAX, PREPARE_REP_SIZE,
    PREPARE_REQ_SIZE, PTLRPC_BODY_V3_SIZE, REPLY_BUFCOUNT, REQUEST_BUFCOUNT, XATTR_SIZE_MAX,
    msg_header_len, round8,
};
use crate::mode;
use crate::wire::WireStruct;
use crate::wire::layout::md_create_prepare_req as req;
use crate::wire::layout::{ldlm_intent, ldlm_request, lustre_msg_v2, ptlrpc_body as pb};
use crate::wire::msg::{MSGHDR_AT_SUPPORT, Span, WIRE_FLVR_MASK, buffer_offsets, msg_size_u32};
use crate::wire::ptlrpc::{LDLM_ENQUEUE, LUSTRE_DLM_MSG_VERSION};
use crate::wire::raw::LdlmLockDescRaw;
use crate::wire::raw::MdCreatePrepareReqRaw;
use crate::wire::{
    InodeBits, LdlmFlags, LdlmInodebits, LdlmLockDesc, LdlmRequest, LdlmResId, LockMode, LockType,
    MsgHeader, PtlrpcBody, PtlrpcMsgType,
};
use zerocopy::{ByteOrder, LittleEndian};

/// Size of the reply a request with these limits may receive: 9 buffers, result i at its limit.
#[inline]
pub fn reply_size_for(limits: &[u32; MLI_BUF_MAX]) -> usize {
    // The header and the three fixed buffers are constant; only the results vary.
    const FIXED: usize = msg_header_len(REPLY_BUFCOUNT)
        + round8(PTLRPC_BODY_V3_SIZE)
        + round8(LDLM_REPLY_SIZE)
        + round8(PREPARE_REP_SIZE);
    limits
        .iter()
        .fold(FIXED, |size, &l| size + round8(l as usize))
}

/// What the request rules look at, gathered from a view (the lock description and the
/// body are the received structs, read in place) or from a value (its body converted to the
/// raw layout first).
struct RequestRuleInput<'x, O: ByteOrder> {
    /// `lm_secflvr`, `lm_repsize` and `lm_flags`.
    header: &'x MsgHeader,
    ptlrpc: PtlrpcHead,
    lock_flags: LdlmFlags,
    lock_desc: &'x LdlmLockDescRaw<O>,
    opc: IntentOpc,
    body: &'x MdCreatePrepareReqRaw<O>,
    name_len: usize,
    /// Where the buffers lie (the offsets only name an error's place).
    spans: &'x [Span; REQUEST_BUFCOUNT],
    /// The first non-empty buffer past buffer 5, with its length (W2.2).
    past_last: Option<(usize, usize)>,
}

/// Every semantic rule of WIRE.md §5 and §8 (the requester's side). Framing, sizes, the name and
/// the groups are checked where they are read.
#[inline(always)]
fn check<O: ByteOrder>(f: &RequestRuleInput<'_, O>) -> Result<Operation, DecodeError> {
    check_type(
        f.ptlrpc.msg_type,
        f.spans[0].start() as usize,
        Expect::Request,
    )?;
    check_after_type(f)
}

/// [`check`] but `pb_type`, which a decoder checks first of all (W2.3). The view's decode
/// calls it with the received lock description and body, which the rules read in place.
///
/// Always inlined, in the decoder too: the rules then read the framed spans and the received
/// structures where the decoder holds them (the measurements: `docs/performance.md`).
#[inline(always)]
fn check_after_type<O: ByteOrder>(f: &RequestRuleInput<'_, O>) -> Result<Operation, DecodeError> {
    let [o0, o1, o2, o3, o4, _] = f.spans.map(|s| s.start() as usize);
    if let Some((index, len)) = f.past_last {
        return Err(past_last_error(index, len, REQUEST_BUFCOUNT - 1));
    }
    check_request_header(f.header, f.ptlrpc.timeout, o0)?;
    let p = f.ptlrpc;
    if p.version != LUSTRE_DLM_MSG_VERSION {
        return Err(DecodeError::wrong_value(
            pb::pb_version.at(o0),
            p.version.into(),
            LUSTRE_DLM_MSG_VERSION.into(),
        ));
    }
    if p.opc != LDLM_ENQUEUE {
        return Err(DecodeError::wrong_value(
            pb::pb_opc.at(o0),
            p.opc.into(),
            LDLM_ENQUEUE.into(),
        ));
    }
    let (flags, desc) = (f.lock_flags, f.lock_desc);
    if !flags.contains(LdlmFlags::HAS_INTENT) {
        return Err(DecodeError::new(
            ldlm_request::lock_flags.at(o1),
            ErrorKind::MissingBits {
                got: flags.0.into(),
                required: LdlmFlags::HAS_INTENT.0.into(),
            },
        ));
    }
    let extra = flags.0 & !LdlmFlags::PREPARE_REQ_FLAGS.0;
    if extra != 0 {
        return Err(DecodeError::new(
            ldlm_request::lock_flags.at(o1),
            ErrorKind::ForbiddenBits {
                got: flags.0.into(),
                forbidden: extra.into(),
            },
        ));
    }
    let lr_type = desc.lr_type();
    if lr_type != LockType::IBITS {
        return Err(DecodeError::wrong_value(
            IN_REQUEST.lr_type.at(o1),
            lr_type.0.into(),
            LockType::IBITS.0.into(),
        ));
    }
    let bits = desc.l_policy_data.bits();
    if !bits.contains(InodeBits::UPDATE) {
        return Err(DecodeError::new(
            IN_REQUEST.bits.at(o1),
            ErrorKind::MissingBits {
                got: bits.0,
                required: InodeBits::UPDATE.0,
            },
        ));
    }
    check_lock(desc, &IN_REQUEST, o1, false)?;
    let Some(op) = Operation::of_opc(f.opc) else {
        return Err(DecodeError::new(
            ldlm_intent::opc.at(o2),
            ErrorKind::UnknownIntent { got: f.opc.0 },
        ));
    };
    let b = f.body;
    let resource = desc.resource().fid();
    let fid = b.fid();
    if fid != resource {
        return Err(DecodeError::new(
            req::mcpr_fid.at(o3),
            ErrorKind::FidNotResource { fid, resource },
        ));
    }
    let umask = b.umask();
    if umask & !0o777 != 0 {
        return Err(DecodeError::new(
            req::mcpr_umask.at(o3),
            ErrorKind::ForbiddenBits {
                got: umask.into(),
                forbidden: (umask & !0o777).into(),
            },
        ));
    }
    if b.flags().contains(McprFlags::NO_LOOKUP) {
        if op != Operation::Rename {
            return Err(DecodeError::new(
                req::mcpr_flags.at(o3),
                ErrorKind::ObjectModeNotRename { op: op.opc_name() },
            ));
        }
        if f.name_len != 0 {
            return Err(DecodeError::new(
                At::new("name", "", o4),
                ErrorKind::NameInObjectMode { len: f.name_len },
            ));
        }
    } else if f.name_len == 0 {
        return Err(DecodeError::new(
            At::new("name", "", o4),
            ErrorKind::MissingName { op: op.opc_name() },
        ));
    }
    let mode_at = req::mcpr_child_mode.at(o3);
    let child_mode = b.child_mode();
    match op {
        Operation::Create if !mode::is_valid_type(child_mode) => {
            return Err(DecodeError::new(
                mode_at,
                ErrorKind::BadChildType {
                    got: child_mode,
                    fmt: child_mode & mode::S_IFMT,
                },
            ));
        }
        Operation::Rename | Operation::Unlink if child_mode != 0 => {
            return Err(DecodeError::new(
                mode_at,
                ErrorKind::ChildModeNotZero {
                    op: op.opc_name(),
                    got: child_mode,
                },
            ));
        }
        _ => {}
    }
    let lim = &b.buf_limit();
    // One test for the usual case; only a bad request pays for the walk that names the first
    // bad limit.
    let most = lim.iter().fold(0, |m, &l| m.max(l));
    if most as usize > XATTR_SIZE_MAX || (lim[0] != 0 && (lim[0] as usize) < MDT_BODY_SIZE) {
        return Err(limit_error(lim, o3));
    }
    let need = reply_size_for(lim);
    if (f.header.repsize as usize) < need {
        return Err(DecodeError::new(
            lustre_msg_v2::lm_repsize.at(0),
            ErrorKind::RepsizeTooSmall {
                got: f.header.repsize,
                need,
            },
        ));
    }
    Ok(op)
}

/// What Lustre's service asks of a request's header before it looks at the enqueue: the null
/// flavour (`sptlrpc_svc_unwrap_request` takes `WIRE_FLVR` of `lm_secflvr`, `null_accept`
/// refuses any flavour but `SPTLRPC_FLVR_NULL`; the sender's part above it is free), and a
/// deadline when the sender asked for adaptive timeouts (`ptlrpc_server_handle_req_in`).
#[inline(always)]
fn check_request_header(h: &MsgHeader, timeout: u32, o0: usize) -> Result<(), DecodeError> {
    let flavour = h.secflvr & WIRE_FLVR_MASK;
    if flavour != 0 {
        return Err(DecodeError::new(
            lustre_msg_v2::lm_secflvr.at(0),
            ErrorKind::ForbiddenBits {
                got: h.secflvr.into(),
                forbidden: flavour.into(),
            },
        ));
    }
    if h.flags & MSGHDR_AT_SUPPORT != 0 && timeout == 0 {
        return Err(DecodeError::new(
            pb::pb_timeout.at(o0),
            ErrorKind::ZeroTimeout,
        ));
    }
    Ok(())
}

/// The error of the first bad `mcpr_buf_limit` entry of a body at `o3`: over
/// [`XATTR_SIZE_MAX`], or a PATTR limit below an `mdt_body` (W5.13).
#[cold]
fn limit_error(limits: &[u32; MLI_BUF_MAX], o3: usize) -> DecodeError {
    let at = |i: usize| req::mcpr_buf_limit.element(i).at(o3);
    for (i, &limit) in limits.iter().enumerate() {
        if limit as usize > XATTR_SIZE_MAX {
            return DecodeError::new(
                at(i),
                ErrorKind::OverLimit {
                    value: limit.into(),
                    max: XATTR_SIZE_MAX as u64,
                },
            );
        }
        if i == 0 && limit != 0 && (limit as usize) < MDT_BODY_SIZE {
            return DecodeError::new(at(i), ErrorKind::PattrLimitTooSmall { got: limit });
        }
    }
    // Unreachable when called as documented; the PATTR limit's error all the same.
    DecodeError::new(at(0), ErrorKind::PattrLimitTooSmall { got: limits[0] })
}

use super::reply::ReplyContext;

mod validated;
mod view;
pub use validated::ValidatedRequest;
pub use view::RequestView;

/// An owned prepare request: build it, validate it, encode it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct PrepareRequest {
    /// Message header fields (`lm_repsize` matters: see [`PrepareRequest::required_repsize`]).
    #[cfg_attr(feature = "serde", serde(rename = "lustre_msg_v2"))]
    pub header: MsgHeader,
    /// Buffer 0.
    #[cfg_attr(feature = "serde", serde(rename = "ptlrpc_body"))]
    pub ptlrpc: PtlrpcBody,
    /// Buffer 1: the lock asked for.
    #[cfg_attr(feature = "serde", serde(rename = "ldlm_request"))]
    pub ldlm: LdlmRequest,
    /// Buffer 2's opcode.
    #[cfg_attr(
        feature = "serde",
        serde(
            rename = "ldlm_intent",
            with = "crate::intent::serde_fields::ldlm_intent"
        )
    )]
    pub opc: IntentOpc,
    /// Buffer 3.
    #[cfg_attr(feature = "serde", serde(rename = "md_create_prepare_req"))]
    pub body: MdCreatePrepareReq,
    /// Buffer 4; `None` in object mode.
    #[cfg_attr(feature = "serde", serde(rename = "name"))]
    pub name: Option<EntryName>,
    /// Buffer 5.
    #[cfg_attr(feature = "serde", serde(rename = "groups"))]
    pub groups: GroupList,
}

impl PrepareRequest {
    /// A request for `op` with the usual enqueue around it: an `LDLM_ENQUEUE` body, an IBITS
    /// UPDATE lock in `mode` on `body.fid` with `name_hash` in `name[3]`, `HAS_INTENT`, and
    /// `lm_repsize` just large enough for the limits.
    pub fn new(
        op: Operation,
        body: MdCreatePrepareReq,
        name: Option<EntryName>,
        groups: GroupList,
        mode: LockMode,
        name_hash: u64,
    ) -> Self {
        let ldlm = LdlmRequest {
            lock_flags: LdlmFlags::HAS_INTENT,
            lock_count: 1,
            lock_desc: LdlmLockDesc {
                lr_type: LockType::IBITS,
                resource: LdlmResId::of_fid(body.fid, name_hash),
                req_mode: mode,
                granted_mode: LockMode::NONE,
                policy: LdlmInodebits {
                    bits: InodeBits::UPDATE,
                    ..Default::default()
                },
            },
            handles: Default::default(),
        };
        let mut req = PrepareRequest {
            header: MsgHeader::default(),
            ptlrpc: PtlrpcBody::enqueue(PtlrpcMsgType::REQUEST),
            ldlm,
            opc: op.opc(),
            body,
            name,
            groups,
        };
        req.header.repsize = req.required_repsize();
        req
    }

    /// The smallest `lm_repsize` the limits allow (WIRE.md §8).
    pub fn required_repsize(&self) -> u32 {
        reply_size_for(&self.body.buf_limit) as u32
    }

    pub(super) fn lens(&self) -> [u32; REQUEST_BUFCOUNT] {
        [
            // v3, or v2 for a body without a job id (WIRE.md W11.4).
            self.ptlrpc.wire_len() as u32,
            self.ldlm.wire_len() as u32,
            LDLM_INTENT_SIZE as u32,
            PREPARE_REQ_SIZE as u32,
            self.name.map_or(0, |n| n.wire_len() as u32),
            self.groups.wire_len() as u32,
        ]
    }

    /// Size of the encoded message.
    pub fn wire_len(&self) -> usize {
        msg_size_u32(&self.lens())
    }

    /// Checks every rule a decoder would; `Ok` means the encoding decodes.
    pub fn validate(&self) -> Result<Operation, DecodeError> {
        let lens = self.lens();
        let (off, _) = buffer_offsets(&lens);
        let spans = core::array::from_fn(|i| Span::new(off[i] as u32, lens[i]));
        // Checked by the decoder where it reads buffer 1 (`LdlmRequest::decode_buffer`).
        let handles = self.ldlm.handles.as_slice().len();
        if self.ldlm.lock_count as usize > handles {
            return Err(DecodeError::new(
                ldlm_request::lock_count.at(off[1]),
                ErrorKind::OverLimit {
                    value: self.ldlm.lock_count.into(),
                    max: handles as u64,
                },
            ));
        }
        // The rules read the raw layouts, as a decoder does.
        let body = self.body.to_raw::<LittleEndian>();
        let lock_desc = self.ldlm.lock_desc.to_raw::<LittleEndian>();
        check(&RequestRuleInput {
            header: &self.header,
            ptlrpc: PtlrpcHead::of(&self.ptlrpc),
            lock_flags: self.ldlm.lock_flags,
            lock_desc: &lock_desc,
            opc: self.opc,
            body: &body,
            name_len: lens[4] as usize,
            spans: &spans,
            past_last: None,
        })
    }

    /// Appends the message in `order` after validating it.
    #[cfg(feature = "alloc")]
    pub fn put<B: bytes::BufMut + ?Sized>(
        &self,
        order: Endian,
        out: &mut B,
    ) -> Result<(), EncodeError> {
        self.validated()?.put(order, out);
        Ok(())
    }

    /// Writes the message at the start of `out` after validating it; returns its size. To
    /// encode one request more than once, validate it once with [`PrepareRequest::validated`].
    pub fn encode_into(&self, order: Endian, out: &mut [u8]) -> Result<usize, EncodeError> {
        self.validated()?.encode_into(order, out)
    }

    /// The message as a new buffer, after validating it.
    #[cfg(feature = "alloc")]
    pub fn to_bytes(&self, order: Endian) -> Result<bytes::Bytes, EncodeError> {
        Ok(self.validated()?.to_bytes(order))
    }

    /// What a reply to this request must agree with.
    pub fn reply_context(&self) -> Result<ReplyContext, DecodeError> {
        let op = self.validate()?;
        Ok(ReplyContext::new(
            op,
            &self.body,
            &self.ldlm.lock_desc,
            self.header.repsize,
        ))
    }
}

/// Legal requests, mostly: arbitrary fields with the rules of WIRE.md §5 and §8 fixed up (the
/// operation's name and child mode, the umask, limits within `XATTR_SIZE_MAX`, the lock on the
/// body's FID with `HAS_INTENT` and `UPDATE` in a client mode, an `lm_repsize` that fits the
/// limits). The lock
/// count is at most the handles carried, except one time in sixteen where it is one more: a
/// value the encoder must refuse as the decoder does.
#[cfg(feature = "arbitrary")]
impl<'a> arbitrary::Arbitrary<'a> for PrepareRequest {
    fn arbitrary(u: &mut arbitrary::Unstructured<'a>) -> arbitrary::Result<Self> {
        const TYPES: [u32; 7] = [
            mode::S_IFDIR,
            mode::S_IFREG,
            mode::S_IFLNK,
            mode::S_IFCHR,
            mode::S_IFBLK,
            mode::S_IFIFO,
            mode::S_IFSOCK,
        ];
        let op: Operation = u.arbitrary()?;
        let mut body: MdCreatePrepareReq = u.arbitrary()?;
        body.umask &= 0o777;
        let object_mode = op == Operation::Rename && u.ratio(1, 4)?;
        body.flags = if object_mode {
            body.flags | McprFlags::NO_LOOKUP
        } else {
            body.flags.difference(McprFlags::NO_LOOKUP)
        };
        let name = if object_mode {
            None
        } else {
            Some(u.arbitrary::<EntryName>()?)
        };
        body.child_mode = match op {
            Operation::Create if mode::is_valid_type(body.child_mode) => body.child_mode,
            Operation::Create => *u.choose(&TYPES)? | (body.child_mode & 0o7777),
            Operation::Rename | Operation::Unlink => 0,
        };
        for (i, limit) in body.buf_limit.iter_mut().enumerate() {
            *limit = match u.int_in_range(0..=3u8)? {
                0 => 0,
                1 => u.int_in_range(1..=4096)?,
                2 => u.int_in_range(0..=XATTR_SIZE_MAX as u32)?,
                _ => *limit % (XATTR_SIZE_MAX as u32 + 1),
            };
            if i == 0 && *limit != 0 && (*limit as usize) < MDT_BODY_SIZE {
                *limit = MDT_BODY_SIZE as u32;
            }
        }
        let groups = u.arbitrary()?;
        let mut req = PrepareRequest::new(op, body, name, groups, u.arbitrary()?, u.arbitrary()?);
        let fid_name = [
            req.ldlm.lock_desc.resource.name[0],
            req.ldlm.lock_desc.resource.name[1],
        ];
        let header: MsgHeader = u.arbitrary()?;
        let slack = u32::from(u.arbitrary::<u16>()?);
        req.header = MsgHeader {
            repsize: req.required_repsize().saturating_add(slack),
            // The null flavour; the sender's part above it is free.
            secflvr: header.secflvr & !WIRE_FLVR_MASK,
            ..header
        };
        let mut ptlrpc: PtlrpcBody = u.arbitrary()?;
        ptlrpc.msg_type = PtlrpcMsgType::REQUEST;
        ptlrpc.version = LUSTRE_DLM_MSG_VERSION;
        ptlrpc.opc = LDLM_ENQUEUE;
        if req.header.flags & MSGHDR_AT_SUPPORT != 0 {
            ptlrpc.timeout = ptlrpc.timeout.max(1);
        }
        req.ptlrpc = ptlrpc;
        let mut ldlm: LdlmRequest = u.arbitrary()?;
        ldlm.lock_flags =
            LdlmFlags(ldlm.lock_flags.0 & LdlmFlags::PREPARE_REQ_FLAGS.0) | LdlmFlags::HAS_INTENT;
        let handles = ldlm.handles.as_slice().len() as u32;
        ldlm.lock_count = if u.ratio(1, 16)? {
            handles + 1
        } else {
            ldlm.lock_count % (handles + 1)
        };
        ldlm.lock_desc.lr_type = LockType::IBITS;
        ldlm.lock_desc.policy.bits |= InodeBits::UPDATE;
        ldlm.lock_desc.resource.name[..2].copy_from_slice(&fid_name);
        ldlm.lock_desc.resource.name[2] = 0;
        if !ldlm.lock_desc.req_mode.is_client_mode() {
            ldlm.lock_desc.req_mode = *u.choose(&LockMode::CLIENT)?;
        }
        req.ldlm = ldlm;
        Ok(req)
    }
}
