//! The prepare reply message (WIRE.md §7): a validated view, a `Bytes`-backed owned message, an
//! owned value that encodes, and the one rule set all of them obey.
//!
//! | buffer | content |
//! |---|---|
//! | 0 | `ptlrpc_body_v3` (`PTL_RPC_MSG_REPLY`, status 0) |
//! | 1 | `ldlm_reply`: the granted lock and the dispositions |
//! | 2 | `md_create_prepare_rep`, or empty (the empty result) |
//! | 3 + i | result i when its valid bit is set (may be empty), otherwise empty |

use super::body::rep_off;
use super::request::{check_lock, first_past_last, past_last_error, v3_body};
use super::{
    McppFlags, McprFlags, MdCreatePrepareRep, MdCreatePrepareReq, MliBuf, Operation, PrepResult,
    ResultMask, UnknownReason,
};
use crate::endian::Endian;
use crate::errno::ErrnoName;
use crate::error::{At, DecodeError, EncodeError, ErrorKind};
use crate::limits::{
    LDLM_REPLY_SIZE, MDT_BODY_SIZE, MLI_BUF_MAX, PREPARE_REP_SIZE, PTLRPC_BODY_V3_SIZE,
    REPLY_BUFCOUNT, XATTR_SIZE_MAX,
};
use crate::mode;
use crate::wire::msg::{buffer_offsets, encode_into_slice, msg_size_u32, put_header, put_padding};
use crate::wire::ptlrpc::{LDLM_ENQUEUE, LUSTRE_DLM_MSG_VERSION};
use crate::wire::{
    DispFlags, LdlmLockDesc, LdlmReply, LockType, MsgHeader, MsgView, PtlrpcBody, PtlrpcMsgType,
    WireStruct,
};
use bytes::Bytes;

const REP: &str = "md_create_prepare_rep";
/// The dispositions a prepare reply may carry in `lock_policy_res1` (WIRE.md §3, §7).
const DISPOSITIONS: DispFlags = DispFlags(
    DispFlags::IT_EXECD.0
        | DispFlags::LOOKUP_EXECD.0
        | DispFlags::LOOKUP_NEG.0
        | DispFlags::LOOKUP_POS.0,
);
const BUF_SIZE_FIELDS: [&str; MLI_BUF_MAX] = [
    "mcpp_buf_size[0]",
    "mcpp_buf_size[1]",
    "mcpp_buf_size[2]",
    "mcpp_buf_size[3]",
    "mcpp_buf_size[4]",
    "mcpp_buf_size[5]",
];

/// What a reply must agree with when its request is known: the operation, its flags, the
/// limits, the lock asked for and the reply space.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReplyContext {
    /// The operation requested.
    pub op: Operation,
    /// `mcpr_flags`: object mode gets no lookup (W7.16), unknown bits the empty result (W7.15).
    pub flags: McprFlags,
    /// `mcpr_buf_limit`.
    pub limits: [u32; MLI_BUF_MAX],
    /// The lock requested: the reply grants exactly this resource and mode.
    pub lock: LdlmLockDesc,
    /// The request's `lm_repsize`.
    pub repsize: u32,
}

impl ReplyContext {
    /// The context of a request.
    pub fn new(
        op: Operation,
        body: &MdCreatePrepareReq,
        lock: &LdlmLockDesc,
        repsize: u32,
    ) -> Self {
        ReplyContext {
            op,
            flags: body.flags,
            limits: body.buf_limit,
            lock: *lock,
            repsize,
        }
    }

    /// The results requested.
    pub fn requested(&self) -> ResultMask {
        ResultMask::requested(&self.limits)
    }
}

struct Facts<'x> {
    ptlrpc: &'x PtlrpcBody,
    ldlm: &'x LdlmReply,
    body: Option<&'x MdCreatePrepareRep>,
    /// Buffers 3..=8.
    results: [&'x [u8]; MLI_BUF_MAX],
    off: [usize; REPLY_BUFCOUNT],
    wire_len: usize,
    /// The first non-empty buffer past buffer 8, with its length (W2.2).
    past_last: Option<(usize, usize)>,
}

fn err(at: At, kind: ErrorKind) -> DecodeError {
    DecodeError::new(at, kind)
}

/// A reply that carries an error instead of a granted lock is not a prepare reply.
fn check_status(p: &PtlrpcBody, o0: usize) -> Result<(), DecodeError> {
    if p.msg_type == PtlrpcMsgType::ERR || p.status != 0 {
        return Err(err(
            At::new("ptlrpc_body", "pb_status", o0 + 20),
            ErrorKind::EnqueueFailed {
                status: p.status,
                errno: ErrnoName::of_status(p.status),
            },
        ));
    }
    Ok(())
}

/// Every rule of WIRE.md §7 and §8 (the responder's side); those that need the request only
/// when `ctx` is given.
fn check(f: &Facts<'_>, ctx: Option<&ReplyContext>) -> Result<(), DecodeError> {
    let o0 = f.off[0];
    let o1 = f.off[1];
    let o2 = f.off[2];
    if let Some((index, len)) = f.past_last {
        return Err(past_last_error(index, len, REPLY_BUFCOUNT - 1));
    }
    let p = f.ptlrpc;
    check_status(p, o0)?;
    if p.msg_type != PtlrpcMsgType::REPLY {
        return Err(err(
            At::new("ptlrpc_body", "pb_type", o0 + 8),
            ErrorKind::WrongValue {
                got: p.msg_type.0.into(),
                expected: 4713,
            },
        ));
    }
    if p.version != LUSTRE_DLM_MSG_VERSION {
        return Err(err(
            At::new("ptlrpc_body", "pb_version", o0 + 12),
            ErrorKind::WrongValue {
                got: p.version.into(),
                expected: LUSTRE_DLM_MSG_VERSION.into(),
            },
        ));
    }
    if p.opc != LDLM_ENQUEUE {
        return Err(err(
            At::new("ptlrpc_body", "pb_opc", o0 + 16),
            ErrorKind::WrongValue {
                got: p.opc.into(),
                expected: LDLM_ENQUEUE.into(),
            },
        ));
    }
    let l = f.ldlm;
    if l.lock_desc.lr_type != LockType::IBITS {
        return Err(err(
            At::new("ldlm_reply", "lock_desc.l_resource.lr_type", o1 + 8),
            ErrorKind::WrongValue {
                got: l.lock_desc.lr_type.0.into(),
                expected: 13,
            },
        ));
    }
    let disp = l.policy_res1;
    let disp_at = At::new("ldlm_reply", "lock_policy_res1", o1 + 96);
    if !disp.contains(DispFlags::IT_EXECD) {
        return Err(err(
            disp_at,
            ErrorKind::MissingBits {
                got: disp.0,
                required: DispFlags::IT_EXECD.0,
            },
        ));
    }
    let unknown_disp = disp.0 & !DISPOSITIONS.0;
    if unknown_disp != 0 {
        return Err(err(
            disp_at,
            ErrorKind::ForbiddenBits {
                got: disp.0,
                forbidden: unknown_disp,
            },
        ));
    }
    if l.policy_res2 != 0 {
        return Err(err(
            At::new("ldlm_reply", "lock_policy_res2", o1 + 104),
            ErrorKind::WrongValue {
                got: l.policy_res2,
                expected: 0,
            },
        ));
    }
    let (pos, neg, execd) = (
        disp.contains(DispFlags::LOOKUP_POS),
        disp.contains(DispFlags::LOOKUP_NEG),
        disp.contains(DispFlags::LOOKUP_EXECD),
    );
    let mismatch = |why| {
        err(
            disp_at,
            ErrorKind::DispositionMismatch { disp: disp.0, why },
        )
    };
    if pos && neg {
        return Err(mismatch("both DISP_LOOKUP_POS and DISP_LOOKUP_NEG"));
    }
    if (pos || neg) != execd {
        return Err(mismatch(
            "DISP_LOOKUP_EXECD goes with exactly one of DISP_LOOKUP_POS/NEG",
        ));
    }
    check_lock("ldlm_reply", &l.lock_desc, o1 + 8, true)?;
    if l.lock_desc.granted_mode != l.lock_desc.req_mode {
        return Err(err(
            At::new("ldlm_reply", "lock_desc.l_granted_mode", o1 + 8 + 44),
            ErrorKind::LockNotAsRequested {
                got: l.lock_desc.granted_mode.0.into(),
                expected: l.lock_desc.req_mode.0.into(),
            },
        ));
    }
    if let Some(ctx) = ctx {
        let (got, want) = (&l.lock_desc, &ctx.lock);
        if let Some(k) = (0..4).find(|&k| got.resource.name[k] != want.resource.name[k]) {
            const NAMES: [&str; 4] = [
                "lock_desc.l_resource.lr_name.name[0]",
                "lock_desc.l_resource.lr_name.name[1]",
                "lock_desc.l_resource.lr_name.name[2]",
                "lock_desc.l_resource.lr_name.name[3]",
            ];
            return Err(err(
                At::new("ldlm_reply", NAMES[k], o1 + 16 + 8 * k),
                ErrorKind::LockNotAsRequested {
                    got: got.resource.name[k],
                    expected: want.resource.name[k],
                },
            ));
        }
        if got.granted_mode != want.req_mode {
            return Err(err(
                At::new("ldlm_reply", "lock_desc.l_granted_mode", o1 + 8 + 44),
                ErrorKind::LockNotAsRequested {
                    got: got.granted_mode.0.into(),
                    expected: want.req_mode.0.into(),
                },
            ));
        }
        if f.wire_len > ctx.repsize as usize {
            return Err(err(
                At::new("lustre_msg_v2", "", 0),
                ErrorKind::ReplyOverRepsize {
                    size: f.wire_len,
                    repsize: ctx.repsize,
                },
            ));
        }
        if ctx.flags.contains(McprFlags::NO_LOOKUP) && execd {
            return Err(err(disp_at, ErrorKind::LookupInObjectMode));
        }
    }
    let result_at = |i: usize| At::new(MliBuf::ALL[i].name(), "", f.off[3 + i]);
    let Some(b) = f.body else {
        // The empty result: no result buffer may carry anything.
        if let Some(i) = f.results.iter().position(|r| !r.is_empty()) {
            return Err(err(
                result_at(i),
                ErrorKind::BufferWithoutValid {
                    len: f.results[i].len(),
                },
            ));
        }
        return Ok(());
    };
    if let Some(ctx) = ctx {
        let unknown = ctx.flags.unknown();
        if !unknown.is_empty() {
            return Err(err(
                At::new(REP, "", o2),
                ErrorKind::ReplyToUnknownFlags { flags: unknown.0 },
            ));
        }
        if ctx.flags.contains(McprFlags::NO_LOOKUP) && b.flags.contains(McppFlags::LOOKUP_DONE) {
            return Err(err(
                At::new(REP, "mcpp_flags", o2 + rep_off::FLAGS),
                ErrorKind::LookupInObjectMode,
            ));
        }
    }
    let at = |field, rel| At::new(REP, field, o2 + rel);
    if b.status > 0 {
        return Err(err(
            at("mcpp_status", rep_off::STATUS),
            ErrorKind::PositiveStatus { got: b.status },
        ));
    }
    let done = b.flags.contains(McppFlags::LOOKUP_DONE);
    let found = b.flags.contains(McppFlags::LOOKUP_POS);
    if found && !done {
        return Err(err(
            at("mcpp_flags", rep_off::FLAGS),
            ErrorKind::LookupPosWithoutDone,
        ));
    }
    if b.fid.is_zero() == found {
        let state = if found { "positive" } else { "not positive" };
        return Err(err(
            at("mcpp_fid", rep_off::FID),
            ErrorKind::FidLookupMismatch { fid: b.fid, state },
        ));
    }
    if done != execd {
        return Err(mismatch("DISP_LOOKUP_EXECD must match MCPP_LOOKUP_DONE"));
    }
    if found != pos {
        return Err(mismatch("DISP_LOOKUP_POS must match MCPP_LOOKUP_POS"));
    }
    for (mask, field, rel) in [
        (b.valid, "mcpp_valid", rep_off::VALID),
        (b.truncated, "mcpp_truncated", rep_off::TRUNCATED),
    ] {
        if mask.reserved() != 0 {
            return Err(err(
                at(field, rel),
                ErrorKind::ReservedResultBits {
                    bits: mask.reserved(),
                },
            ));
        }
    }
    let both = ResultMask(b.valid.0 & b.truncated.0);
    if !both.is_empty() {
        return Err(err(
            at("mcpp_valid", rep_off::VALID),
            ErrorKind::ValidAndTruncated { both },
        ));
    }
    if b.truncated.has(MliBuf::Pattr) {
        return Err(err(
            at("mcpp_truncated", rep_off::TRUNCATED),
            ErrorKind::PattrTruncated {
                size: b.buf_size[MliBuf::Pattr.index()],
            },
        ));
    }
    let derived = b.flags.contains(McppFlags::CHILD_DERIVED);
    if derived && b.status != 0 {
        return Err(err(
            at("mcpp_flags", rep_off::FLAGS),
            ErrorKind::DerivedNotCreate {
                why: "the status is not 0",
            },
        ));
    }
    if derived && ctx.is_some_and(|c| c.op != Operation::Create) {
        return Err(err(
            at("mcpp_flags", rep_off::FLAGS),
            ErrorKind::DerivedNotCreate {
                why: "the request is not a create",
            },
        ));
    }
    if found
        && !derived
        && b.child_mode != 0
        && (b.child_mode & !mode::S_IFMT != 0 || !mode::is_valid_type(b.child_mode))
    {
        return Err(err(
            at("mcpp_child_mode", rep_off::CHILD_MODE),
            ErrorKind::ChildModeNotType { got: b.child_mode },
        ));
    }
    if let Some(ctx) = ctx {
        let extra = b.valid.union(b.truncated).difference(ctx.requested());
        if !extra.is_empty() {
            let (field, rel) = if b.valid.intersects(extra) {
                ("mcpp_valid", rep_off::VALID)
            } else {
                ("mcpp_truncated", rep_off::TRUNCATED)
            };
            return Err(err(at(field, rel), ErrorKind::ResultNotRequested { extra }));
        }
        let requested = ctx.requested();
        if let Some(buf) = MliBuf::ALL
            .into_iter()
            .find(|&buf| !requested.has(buf) && b.buf_size[buf.index()] != 0)
        {
            let i = buf.index();
            return Err(err(
                at(BUF_SIZE_FIELDS[i], rep_off::BUF_SIZE + 4 * i),
                ErrorKind::ResultNotRequested { extra: buf.bit() },
            ));
        }
    }
    for buf in MliBuf::ALL {
        let i = buf.index();
        let len = f.results[i].len();
        let size = b.buf_size[i];
        let size_at = at(BUF_SIZE_FIELDS[i], rep_off::BUF_SIZE + 4 * i);
        let limit = ctx.map(|c| c.limits[i]);
        if b.valid.has(buf) {
            if len != size as usize {
                return Err(err(size_at, ErrorKind::ResultSizeMismatch { len, size }));
            }
            if buf == MliBuf::Pattr && len != MDT_BODY_SIZE {
                return Err(err(result_at(i), ErrorKind::PattrNotMdtBody { len }));
            }
            if len > XATTR_SIZE_MAX {
                return Err(err(
                    result_at(i),
                    ErrorKind::OverLimit {
                        value: len as u64,
                        max: XATTR_SIZE_MAX as u64,
                    },
                ));
            }
            if let Some(limit) = limit.filter(|&l| size > l) {
                return Err(err(size_at, ErrorKind::ResultOverLimit { size, limit }));
            }
        } else {
            if len != 0 {
                return Err(err(result_at(i), ErrorKind::BufferWithoutValid { len }));
            }
            if b.truncated.has(buf) && size <= limit.unwrap_or(0) {
                return Err(err(
                    size_at,
                    ErrorKind::TruncatedButFits {
                        size,
                        limit: limit.unwrap_or(0),
                    },
                ));
            }
        }
    }
    check_payloads(f, b.valid)
}

/// `md_create_prepare_rep` as the canonical form writes it: a zero `mcpp_fid` (`fid_is_zero`,
/// whatever its f_ver) as 16 zero bytes (WIRE.md W11.6).
fn canonical_rep(mut b: MdCreatePrepareRep) -> MdCreatePrepareRep {
    if b.fid.is_zero() {
        b.fid = crate::wire::LuFid::ZERO;
    }
    b
}

/// Every present result is a valid payload of its kind (WIRE.md §7, §9), reported at its offset
/// in the message. The one place a reply decode looks inside its results.
fn check_payloads(f: &Facts<'_>, valid: ResultMask) -> Result<(), DecodeError> {
    for buf in MliBuf::ALL {
        let bytes = f.results[buf.index()];
        if valid.has(buf) && !bytes.is_empty() {
            crate::xattr::check_result(buf, bytes)
                .map_err(|e| e.shifted(f.off[3 + buf.index()]))?;
        }
    }
    Ok(())
}

/// A span of the input: where a buffer starts and how long it is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Span {
    start: u32,
    len: u32,
}

/// Everything a reply view knows besides the bytes (all `Copy`): shared by the borrowing view and
/// the `Bytes`-backed message.
#[derive(Debug, Clone, Copy)]
struct Parts {
    order: Endian,
    header: MsgHeader,
    bufcount: usize,
    ptlrpc: PtlrpcBody,
    ldlm: LdlmReply,
    body: Option<MdCreatePrepareRep>,
    results: [Span; MLI_BUF_MAX],
}

fn parse_parts(bytes: &[u8], ctx: Option<&ReplyContext>) -> Result<Parts, DecodeError> {
    let msg = MsgView::parse(bytes)?;
    let order = msg.order();
    if msg.bufcount() < 2 {
        return Err(DecodeError::new(
            At::new("lustre_msg_v2", "lm_bufcount", 0),
            ErrorKind::OutOfRange {
                value: msg.bufcount() as u64,
                min: 2,
                max: 32,
            },
        ));
    }
    let end = msg.wire_len();
    let off: [usize; REPLY_BUFCOUNT] = core::array::from_fn(|i| {
        if i < msg.bufcount() {
            msg.buffer_offset(i)
        } else {
            end
        }
    });
    let ptlrpc = PtlrpcBody::decode_buffer(msg.buffer_or_empty(0), order, off[0])?;
    check_status(&ptlrpc, off[0])?;
    let lbuf = msg.buffer_or_empty(1);
    if lbuf.len() < LDLM_REPLY_SIZE {
        return Err(DecodeError::too_short(
            "ldlm_reply",
            off[1],
            lbuf.len(),
            LDLM_REPLY_SIZE,
        ));
    }
    let ldlm = LdlmReply::decode(lbuf, order)?;
    let bbuf = msg.buffer_or_empty(2);
    let body = match bbuf.len() {
        0 => None,
        n if n < PREPARE_REP_SIZE => {
            return Err(DecodeError::too_short(REP, off[2], n, PREPARE_REP_SIZE));
        }
        _ => Some(MdCreatePrepareRep::decode(bbuf, order)?),
    };
    let result_bufs: [&[u8]; MLI_BUF_MAX] = core::array::from_fn(|i| msg.buffer_or_empty(3 + i));
    let results: [Span; MLI_BUF_MAX] = core::array::from_fn(|i| Span {
        start: off[3 + i] as u32,
        len: result_bufs[i].len() as u32,
    });
    check(
        &Facts {
            ptlrpc: &ptlrpc,
            ldlm: &ldlm,
            body: body.as_ref(),
            results: result_bufs,
            off,
            wire_len: end,
            past_last: first_past_last(&msg, REPLY_BUFCOUNT - 1),
        },
        ctx,
    )?;
    Ok(Parts {
        order,
        header: *msg.header(),
        bufcount: msg.bufcount(),
        ptlrpc,
        ldlm,
        body,
        results,
    })
}

impl Parts {
    fn result_state(&self, buf: MliBuf) -> PrepResult<Span> {
        let Some(b) = &self.body else {
            return PrepResult::Unknown(UnknownReason::EmptyResult);
        };
        let i = buf.index();
        if b.valid.has(buf) {
            let span = self.results[i];
            if span.len == 0 {
                PrepResult::Absent
            } else {
                PrepResult::Present(span)
            }
        } else if b.truncated.has(buf) {
            PrepResult::Unknown(UnknownReason::Truncated {
                size: b.buf_size[i],
            })
        } else {
            PrepResult::Unknown(UnknownReason::NotProvided)
        }
    }
}

/// A received prepare reply, validated against WIRE.md §7 (and, with [`ReplyView::parse_for`],
/// against its request). Results are borrowed slices of the input.
#[derive(Debug, Clone, Copy)]
pub struct ReplyView<'a> {
    bytes: &'a [u8],
    parts: Parts,
}

impl<'a> ReplyView<'a> {
    /// Decodes and validates a reply without knowing its request, every present result's payload
    /// included (WIRE.md §7, §9).
    pub fn parse(bytes: &'a [u8]) -> Result<Self, DecodeError> {
        Ok(ReplyView {
            bytes,
            parts: parse_parts(bytes, None)?,
        })
    }

    /// Decodes and validates a reply against its request's limits, lock and reply space.
    pub fn parse_for(bytes: &'a [u8], ctx: &ReplyContext) -> Result<Self, DecodeError> {
        Ok(ReplyView {
            bytes,
            parts: parse_parts(bytes, Some(ctx))?,
        })
    }

    /// The byte order the sender used.
    pub fn order(&self) -> Endian {
        self.parts.order
    }
    /// Header fields.
    pub fn header(&self) -> &MsgHeader {
        &self.parts.header
    }
    /// `lm_bufcount` as received.
    pub fn bufcount(&self) -> usize {
        self.parts.bufcount
    }
    /// Buffer 0.
    pub fn ptlrpc(&self) -> &PtlrpcBody {
        &self.parts.ptlrpc
    }
    /// Buffer 1: the granted lock.
    pub fn ldlm(&self) -> &LdlmReply {
        &self.parts.ldlm
    }
    /// Buffer 2; `None` for the empty result.
    pub fn body(&self) -> Option<&MdCreatePrepareRep> {
        self.parts.body.as_ref()
    }
    /// True for the empty result: the lock is granted, every result is unknown.
    pub fn is_empty_result(&self) -> bool {
        self.parts.body.is_none()
    }
    /// Result `buf`: present (a slice of the input), absent, or unknown.
    pub fn result(&self, buf: MliBuf) -> PrepResult<&'a [u8]> {
        let bytes = self.bytes;
        self.parts.result_state(buf).map(|s| {
            bytes
                .get(s.start as usize..(s.start + s.len) as usize)
                .unwrap_or(&[])
        })
    }
    /// All six results, in index order.
    pub fn results(&self) -> [PrepResult<&'a [u8]>; MLI_BUF_MAX] {
        MliBuf::ALL.map(|b| self.result(b))
    }
    /// Offset of result `buf`'s buffer in the message, for tools that point at bytes.
    pub fn result_offset(&self, buf: MliBuf) -> usize {
        self.parts.results[buf.index()].start as usize
    }
    /// True when the input is this message's canonical form (WIRE.md §11): little-endian, nine
    /// buffers, a v3 `ptlrpc_body`, each structure at its own size, zero padding, a zero
    /// `mcpp_fid` as 16 zero bytes. A non-canonical reply that obeys every rule is valid; its
    /// canonical bytes are `to_value().to_bytes(Endian::Little)`.
    pub fn is_canonical(&self) -> bool {
        self.to_value()
            .to_bytes(Endian::Little)
            .is_ok_and(|b| b[..] == *self.bytes)
    }

    /// An owned copy (the results are copied). Its encoding is the canonical form of this
    /// message (WIRE.md §11): the same bytes exactly when the input was canonical.
    pub fn to_value(&self) -> PrepareReply {
        PrepareReply {
            header: self.parts.header,
            ptlrpc: v3_body(self.parts.ptlrpc),
            ldlm: self.parts.ldlm,
            outcome: self.parts.body.map(|body| PrepareOutcome {
                body: canonical_rep(body),
                results: MliBuf::ALL.map(|b| match self.result(b) {
                    PrepResult::Present(s) => Bytes::copy_from_slice(s),
                    _ => Bytes::new(),
                }),
            }),
        }
    }
}

/// A validated reply that owns its bytes and hands out results as zero-copy `Bytes` slices.
#[derive(Debug, Clone)]
pub struct ReplyMessage {
    bytes: Bytes,
    parts: Parts,
}

impl ReplyMessage {
    /// Validates `bytes` as a reply (see [`ReplyView::parse`]).
    pub fn parse(bytes: Bytes) -> Result<Self, DecodeError> {
        let parts = parse_parts(&bytes, None)?;
        Ok(ReplyMessage { bytes, parts })
    }
    /// Validates `bytes` as the reply to a known request.
    pub fn parse_for(bytes: Bytes, ctx: &ReplyContext) -> Result<Self, DecodeError> {
        let parts = parse_parts(&bytes, Some(ctx))?;
        Ok(ReplyMessage { bytes, parts })
    }
    /// A borrowing view (no re-validation).
    pub fn view(&self) -> ReplyView<'_> {
        ReplyView {
            bytes: &self.bytes,
            parts: self.parts,
        }
    }
    /// Result `buf` as a slice sharing this message's allocation.
    pub fn result(&self, buf: MliBuf) -> PrepResult<Bytes> {
        self.parts.result_state(buf).map(|s| {
            self.bytes
                .slice(s.start as usize..(s.start + s.len) as usize)
        })
    }
    /// The whole message.
    pub fn bytes(&self) -> &Bytes {
        &self.bytes
    }
}

/// The prepare outcome of a reply: the body and the six result buffers.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PrepareOutcome {
    /// `md_create_prepare_rep`.
    pub body: MdCreatePrepareRep,
    /// Buffers 3..=8: a result's bytes when present; empty when absent or unknown.
    pub results: [Bytes; MLI_BUF_MAX],
}

impl PrepareOutcome {
    /// An outcome with this body and every result unknown.
    pub fn new(body: MdCreatePrepareRep) -> Self {
        let mut o = PrepareOutcome {
            body,
            results: Default::default(),
        };
        o.body.valid = ResultMask::EMPTY;
        o.body.truncated = ResultMask::EMPTY;
        o.body.buf_size = [0; MLI_BUF_MAX];
        o
    }

    /// Sets result `buf`, keeping `mcpp_valid`, `mcpp_truncated` and `mcpp_buf_size` coherent.
    pub fn set_result(&mut self, buf: MliBuf, state: PrepResult<Bytes>) {
        let i = buf.index();
        let bit = buf.bit();
        self.body.valid = self.body.valid.difference(bit);
        self.body.truncated = self.body.truncated.difference(bit);
        self.body.buf_size[i] = 0;
        self.results[i] = Bytes::new();
        match state {
            PrepResult::Present(v) => {
                self.body.valid |= bit;
                self.body.buf_size[i] = v.len() as u32;
                self.results[i] = v;
            }
            PrepResult::Absent => self.body.valid |= bit,
            PrepResult::Unknown(UnknownReason::Truncated { size }) => {
                self.body.truncated |= bit;
                self.body.buf_size[i] = size;
            }
            PrepResult::Unknown(_) => {}
        }
    }

    /// The state of result `buf`.
    pub fn result(&self, buf: MliBuf) -> PrepResult<&[u8]> {
        let i = buf.index();
        if self.body.valid.has(buf) {
            if self.results[i].is_empty() {
                PrepResult::Absent
            } else {
                PrepResult::Present(&self.results[i])
            }
        } else if self.body.truncated.has(buf) {
            PrepResult::Unknown(UnknownReason::Truncated {
                size: self.body.buf_size[i],
            })
        } else {
            PrepResult::Unknown(UnknownReason::NotProvided)
        }
    }
}

/// An owned prepare reply: build it, validate it, encode it. Always encodes 9 buffers.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PrepareReply {
    /// Header fields.
    pub header: MsgHeader,
    /// Buffer 0.
    pub ptlrpc: PtlrpcBody,
    /// Buffer 1.
    pub ldlm: LdlmReply,
    /// Buffers 2..=8; `None` is the empty result.
    pub outcome: Option<PrepareOutcome>,
}

impl PrepareReply {
    /// A reply granting the lock of `ctx` (resource and mode as requested) with the
    /// dispositions of the outcome's lookup, or the empty result when `outcome` is `None`.
    pub fn granting(
        ctx: &ReplyContext,
        handle: crate::wire::LustreHandle,
        outcome: Option<PrepareOutcome>,
    ) -> Self {
        let mut disp = DispFlags::IT_EXECD;
        if let Some(o) = &outcome
            && o.body.flags.contains(McppFlags::LOOKUP_DONE)
        {
            disp |= DispFlags::LOOKUP_EXECD;
            disp |= if o.body.flags.contains(McppFlags::LOOKUP_POS) {
                DispFlags::LOOKUP_POS
            } else {
                DispFlags::LOOKUP_NEG
            };
        }
        let mut lock_desc = ctx.lock;
        lock_desc.granted_mode = ctx.lock.req_mode;
        PrepareReply {
            header: MsgHeader::default(),
            ptlrpc: PtlrpcBody::enqueue(PtlrpcMsgType::REPLY),
            ldlm: LdlmReply {
                lock_desc,
                lock_handle: handle,
                policy_res1: disp,
                ..Default::default()
            },
            outcome,
        }
    }

    fn lens(&self) -> [u32; REPLY_BUFCOUNT] {
        let mut lens = [0u32; REPLY_BUFCOUNT];
        lens[0] = PTLRPC_BODY_V3_SIZE as u32;
        lens[1] = LDLM_REPLY_SIZE as u32;
        if let Some(o) = &self.outcome {
            lens[2] = PREPARE_REP_SIZE as u32;
            for (l, r) in lens[3..].iter_mut().zip(&o.results) {
                *l = r.len() as u32;
            }
        }
        lens
    }

    /// Size of the encoded message.
    pub fn wire_len(&self) -> usize {
        msg_size_u32(&self.lens())
    }

    /// Checks every rule a decoder would (with `ctx`, also those that need the request).
    pub fn validate(&self, ctx: Option<&ReplyContext>) -> Result<(), DecodeError> {
        let lens = self.lens();
        let (off, wire_len) = buffer_offsets(&lens);
        let results: [&[u8]; MLI_BUF_MAX] = match &self.outcome {
            Some(o) => core::array::from_fn(|i| &o.results[i][..]),
            None => [&[]; MLI_BUF_MAX],
        };
        check_status(&self.ptlrpc, off[0])?;
        check(
            &Facts {
                ptlrpc: &self.ptlrpc,
                ldlm: &self.ldlm,
                body: self.outcome.as_ref().map(|o| &o.body),
                results,
                off,
                wire_len,
                past_last: None,
            },
            ctx,
        )
    }

    /// Appends the message in `order` after validating it.
    pub fn put<B: bytes::BufMut + ?Sized>(
        &self,
        order: Endian,
        out: &mut B,
    ) -> Result<(), EncodeError> {
        self.validate(None)?;
        self.put_unchecked(order, out);
        Ok(())
    }

    fn put_unchecked<B: bytes::BufMut + ?Sized>(&self, order: Endian, out: &mut B) {
        let lens = self.lens();
        put_header(order, &self.header, &lens, out);
        // The canonical form, WIRE.md §11: always a v3 body, a zero mcpp_fid as zeros.
        self.ptlrpc.put(order, out);
        self.ldlm.put(order, out);
        if let Some(o) = &self.outcome {
            canonical_rep(o.body).put(order, out);
            for r in &o.results {
                out.put_slice(r);
                put_padding(r.len(), out);
            }
        }
    }

    /// Writes the message at the start of `out`; returns its size.
    pub fn encode_into(&self, order: Endian, out: &mut [u8]) -> Result<usize, EncodeError> {
        self.validate(None)?;
        encode_into_slice(self.wire_len(), out, |w| self.put_unchecked(order, w))
    }

    /// The message as a new buffer.
    pub fn to_bytes(&self, order: Endian) -> Result<Bytes, EncodeError> {
        self.validate(None)?;
        let mut out = bytes::BytesMut::with_capacity(self.wire_len());
        self.put_unchecked(order, &mut out);
        Ok(out.freeze())
    }
}

/// A result payload of `buf`'s kind: arbitrary bytes when they are one (always for the pin),
/// otherwise a small valid payload built from the input (a minimal ACL, a foreign LMV or LOV, a
/// default LMV without a pool).
#[cfg(feature = "arbitrary")]
fn arbitrary_payload(u: &mut arbitrary::Unstructured<'_>, buf: MliBuf) -> arbitrary::Result<Bytes> {
    let len = u.arbitrary_len::<u8>()?.min(XATTR_SIZE_MAX);
    let data = u.bytes(len)?;
    if crate::xattr::check_result(buf, data).is_ok() {
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
#[cfg(feature = "arbitrary")]
impl<'a> arbitrary::Arbitrary<'a> for PrepareReply {
    fn arbitrary(u: &mut arbitrary::Unstructured<'a>) -> arbitrary::Result<Self> {
        let header: MsgHeader = u.arbitrary()?;
        let mut ptlrpc: PtlrpcBody = u.arbitrary()?;
        ptlrpc.jobid.get_or_insert([0; crate::limits::JOBID_SIZE]);
        ptlrpc.msg_type = PtlrpcMsgType::REPLY;
        ptlrpc.version = LUSTRE_DLM_MSG_VERSION;
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
