//! The rules of WIRE.md §7 and §8 a reply obeys: one set for the decoder and for
//! [`PrepareReply::validate`](super::PrepareReply::validate).

use super::{DISPOSITIONS, ReplyContext};
use crate::errno::ErrnoName;
use crate::error::{At, DecodeError, ErrorKind};
use crate::intent::enqueue::{
    Expect, IN_REPLY, PtlrpcHead, check_lock, check_type, past_last_error,
};
use crate::intent::{McppFlags, McprFlags, MliBuf, Operation, ResultMask};
use crate::limits::{MLI_BUF_MAX, REPLY_BUFCOUNT};
#[cfg(feature = "alloc")]
use crate::limits::{msg_header_len, round8};
use crate::mode;
use crate::wire::layout::md_create_prepare_rep as rep;
use crate::wire::layout::{ldlm_reply, lustre_msg_v2, ptlrpc_body as pb};
use crate::wire::msg::{FLVR_POLICY_MASK, Span};
use crate::wire::ptlrpc::{LDLM_ENQUEUE, LUSTRE_VERSION_MASK, PTLRPC_MSG_VERSION};
use crate::wire::raw::LdlmReplyRaw;
use crate::wire::raw::MdCreatePrepareRepRaw;
use crate::wire::{DispFlags, LockType, PtlrpcMsgType};
use derived::{check_derived, check_derived_for};
use results::{check_payloads, check_requested, check_results};
use zerocopy::ByteOrder;

mod derived;
mod results;

/// What the reply rules look at. `ldlm_reply` and the body are raw layouts: the received ones,
/// read in place, for the decoder; the value's, converted, for the encoder.
pub(super) struct ReplyRuleInput<'x, B, O: ByteOrder> {
    /// By reference: a copy of these four `u32`s, written one by one, would be read back with
    /// one 16-byte load that waits for the stores (a store-forwarding stall).
    pub(super) ptlrpc: &'x PtlrpcHead,
    pub(super) ldlm: &'x LdlmReplyRaw<O>,
    pub(super) body: Option<&'x MdCreatePrepareRepRaw<O>>,
    /// Where the buffers lie, and results 0..6 (buffers 3..=8).
    pub(super) bufs: B,
    pub(super) wire_len: usize,
    /// The first non-empty buffer past buffer 8, with its length (W2.2).
    pub(super) past_last: Option<(usize, usize)>,
    /// `lm_secflvr`.
    pub(super) secflvr: u32,
}

/// Where a reply's buffers lie and what its results hold, as the rules read them: from the
/// framed input for the decoder ([`ReceivedBuffers`]: nothing is sliced that a rule does not look
/// inside), from the canonical layout for the encoder ([`ValueBuffers`]).
pub(super) trait Buffers<'x> {
    /// Offset of buffer `i` (0..=8) in the message.
    fn off(&self, i: usize) -> usize;
    /// Length of result `i` (0..6, buffer 3 + i).
    fn result_len(&self, i: usize) -> usize;
    /// The bytes of result `i`.
    fn result(&self, i: usize) -> &'x [u8];
}

/// The buffers of a framed input: its spans, which the framing proved lie inside `bytes`.
#[derive(Clone, Copy)]
pub(super) struct ReceivedBuffers<'x, 's> {
    pub(super) bytes: &'x [u8],
    pub(super) spans: &'s [Span; REPLY_BUFCOUNT],
}

impl<'x> Buffers<'x> for ReceivedBuffers<'x, '_> {
    #[inline(always)]
    fn off(&self, i: usize) -> usize {
        self.spans[i].start() as usize
    }
    #[inline(always)]
    fn result_len(&self, i: usize) -> usize {
        self.spans[3 + i].len() as usize
    }
    #[inline(always)]
    fn result(&self, i: usize) -> &'x [u8] {
        self.spans[3 + i].in_bytes(self.bytes)
    }
}

/// The buffers of a value to encode: results where they live, borrowed, and the lengths of the
/// canonical layout, from which an offset is summed only when a rule asks for one (an error's
/// place, mostly). Copying the results and storing nine offsets up front cost the validating
/// encode of the complete mkdir reply 54 instructions (callgrind: 1,314 → 1,260).
#[cfg(feature = "alloc")]
#[derive(Clone, Copy)]
pub(super) struct ValueBuffers<'x> {
    pub(super) results: &'x [&'x [u8]; MLI_BUF_MAX],
    pub(super) lens: &'x [u32; REPLY_BUFCOUNT],
}

#[cfg(feature = "alloc")]
impl<'x> Buffers<'x> for ValueBuffers<'x> {
    #[inline(always)]
    fn off(&self, i: usize) -> usize {
        let before = self.lens.iter().take(i);
        before.fold(msg_header_len(REPLY_BUFCOUNT), |at, &l| {
            at + round8(l as usize)
        })
    }
    #[inline(always)]
    fn result_len(&self, i: usize) -> usize {
        self.results[i].len()
    }
    #[inline(always)]
    fn result(&self, i: usize) -> &'x [u8] {
        self.results[i]
    }
}

fn err(at: At, kind: ErrorKind) -> DecodeError {
    DecodeError::new(at, kind)
}

/// `pb_type` first (a reply, or the error message a reply can be), then the status.
#[inline(always)]
pub(super) fn check_type_and_status(p: &PtlrpcHead, o0: usize) -> Result<(), DecodeError> {
    check_type(p.msg_type, o0, Expect::Reply)?;
    check_status(p, o0)
}

/// A reply that carries an error instead of a granted lock is not a prepare reply.
fn check_status(p: &PtlrpcHead, o0: usize) -> Result<(), DecodeError> {
    if p.msg_type == PtlrpcMsgType::ERR || p.status != 0 {
        return Err(err(
            pb::pb_status.at(o0),
            ErrorKind::EnqueueFailed {
                status: p.status,
                errno: ErrnoName::of_status(p.status),
            },
        ));
    }
    Ok(())
}

/// What `lock_policy_res1` says, for the rules of the body that must agree with it.
#[derive(Clone, Copy)]
struct Disp {
    bits: DispFlags,
    /// Offset of buffer 1 (the field's place is built only for an error).
    o1: usize,
    pos: bool,
    execd: bool,
}

impl Disp {
    fn at(&self) -> At {
        disp_at(self.o1)
    }

    fn mismatch(&self, why: &'static str) -> DecodeError {
        err(
            self.at(),
            ErrorKind::DispositionMismatch {
                disp: self.bits.0,
                why,
            },
        )
    }
}

/// Every rule of WIRE.md §7 and §8 (the responder's side); those that need the request only
/// when `ctx` is given. The order of the checks is the order of the reported errors.
///
/// Always inlined, as [`check_after_status`] is, into the encoder's one caller
/// (`Wire::check_raw`): the facts are then not stored for a call and read back.
#[cfg(feature = "alloc")]
#[inline(always)]
pub(super) fn check<'x, O: ByteOrder>(
    f: &ReplyRuleInput<'x, impl Buffers<'x>, O>,
    ctx: Option<&ReplyContext>,
) -> Result<(), DecodeError> {
    check_type_and_status(f.ptlrpc, f.bufs.off(0))?;
    check_after_status(f, ctx)
}

/// [`check`] but `pb_type` and `pb_status`, which a decoder checks first of all, before it
/// looks at `lm_bufcount` (and are not checked twice).
///
/// Always inlined, with the rules it calls: the decoder then keeps the framed spans and the
/// `ReplyRuleInput` in registers instead of passing them through memory, and each rule's
/// prologue and returned `Result` go away. The price is code: one copy of the rules per decoder
/// entry point and byte order (the measurements: `docs/performance.md`).
#[inline(always)]
pub(super) fn check_after_status<'x, 'p, O: ByteOrder>(
    f: &ReplyRuleInput<'x, impl Buffers<'p>, O>,
    ctx: Option<&ReplyContext>,
) -> Result<(), DecodeError> {
    if let Some((index, len)) = f.past_last {
        return Err(past_last_error(index, len, REPLY_BUFCOUNT - 1));
    }
    check_flavour(f.secflvr)?;
    check_version_and_opc(f.ptlrpc, f.bufs.off(0))?;
    let disp = check_ldlm(f.ldlm, f.bufs.off(1))?;
    if let Some(ctx) = ctx {
        check_granted_for(f, ctx, &disp)?;
    }
    let Some(b) = f.body else {
        return check_empty_result(f);
    };
    let o2 = f.bufs.off(2);
    if let Some(ctx) = ctx {
        check_flags_for(b, o2, ctx)?;
    }
    check_body(b, o2, ctx, &disp)?;
    if let Some(ctx) = ctx {
        check_requested(b, o2, ctx)?;
    }
    check_results(f, b, ctx)?;
    if let Some(ctx) = ctx {
        check_derived_for(f, b, ctx)?;
    }
    check_payloads(f, b.valid())
}

/// The null flavour's policy: a Lustre client refuses a reply whose flavour policy is not its
/// request's (`do_cli_unwrap_reply`), and a prepare request has the null flavour (§5).
#[inline(always)]
fn check_flavour(secflvr: u32) -> Result<(), DecodeError> {
    let policy = secflvr & FLVR_POLICY_MASK;
    if policy != 0 {
        return Err(err(
            lustre_msg_v2::lm_secflvr.at(0),
            ErrorKind::ForbiddenBits {
                got: secflvr.into(),
                forbidden: policy.into(),
            },
        ));
    }
    Ok(())
}

/// `ptlrpc_body`, after its type and status: a reply of an LDLM enqueue. Of `pb_version` only
/// the low 16 bits count, as in Lustre's client (`lustre_unpack_ptlrpc_body_v2`): a Lustre
/// server writes `PTLRPC_MSG_VERSION` alone, and a reply with the request's version decodes too.
fn check_version_and_opc(p: &PtlrpcHead, o0: usize) -> Result<(), DecodeError> {
    if p.version & !LUSTRE_VERSION_MASK != PTLRPC_MSG_VERSION {
        return Err(DecodeError::new(
            pb::pb_version.at(o0),
            ErrorKind::WrongMsgVersion {
                got: p.version,
                expected: PTLRPC_MSG_VERSION,
            },
        ));
    }
    if p.opc != LDLM_ENQUEUE {
        return Err(DecodeError::wrong_value(
            pb::pb_opc.at(o0),
            p.opc.into(),
            LDLM_ENQUEUE.into(),
        ));
    }
    Ok(())
}

/// Where `lock_policy_res1` lies in a reply whose buffer 1 is at `o1`.
fn disp_at(o1: usize) -> At {
    ldlm_reply::lock_policy_res1.at(o1)
}

/// `ldlm_reply`: an inodebits lock granted as requested, with the dispositions of a prepare.
/// Inlined: called, it would write its `Disp` with small stores that the caller's 16-byte copy
/// out of the `Result` cannot forward (a store-forwarding stall).
#[inline(always)]
fn check_ldlm(l: &LdlmReplyRaw<impl ByteOrder>, o1: usize) -> Result<Disp, DecodeError> {
    let desc = &l.lock_desc;
    let lr_type = desc.lr_type();
    if lr_type != LockType::IBITS {
        return Err(DecodeError::wrong_value(
            IN_REPLY.lr_type.at(o1),
            lr_type.0.into(),
            LockType::IBITS.0.into(),
        ));
    }
    let disp = l.policy_res1();
    let disp_at = disp_at(o1);
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
    let res2 = l.policy_res2();
    if res2 != 0 {
        return Err(DecodeError::wrong_value(
            ldlm_reply::lock_policy_res2.at(o1),
            res2,
            0,
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
    check_lock(desc, &IN_REPLY, o1, true)?;
    let (granted, req) = (desc.granted_mode(), desc.req_mode());
    if granted != req {
        return Err(err(
            IN_REPLY.granted_mode.at(o1),
            ErrorKind::LockNotAsRequested {
                got: granted.0.into(),
                expected: req.0.into(),
            },
        ));
    }
    Ok(Disp {
        bits: disp,
        o1,
        pos,
        execd,
    })
}

/// The lock against the request: its resource and mode, the reply space, object mode.
fn check_granted_for<'x, 'p, O: ByteOrder>(
    f: &ReplyRuleInput<'x, impl Buffers<'p>, O>,
    ctx: &ReplyContext,
    d: &Disp,
) -> Result<(), DecodeError> {
    let (l, o1, disp_at, execd) = (f.ldlm, f.bufs.off(1), d.at(), d.execd);
    let (got, want) = (&l.lock_desc, &ctx.lock);
    let resource = got.resource();
    if let Some(k) = (0..4).find(|&k| resource.name[k] != want.resource.name[k]) {
        return Err(err(
            IN_REPLY.name.element(k).at(o1),
            ErrorKind::LockNotAsRequested {
                got: resource.name[k],
                expected: want.resource.name[k],
            },
        ));
    }
    let granted = got.granted_mode();
    if granted != want.req_mode {
        return Err(err(
            IN_REPLY.granted_mode.at(o1),
            ErrorKind::LockNotAsRequested {
                got: granted.0.into(),
                expected: want.req_mode.0.into(),
            },
        ));
    }
    if f.wire_len > ctx.repsize as usize {
        return Err(err(
            At::new(lustre_msg_v2::LAYOUT.name, "", 0),
            ErrorKind::ReplyOverRepsize {
                size: f.wire_len,
                repsize: ctx.repsize,
            },
        ));
    }
    if ctx.flags.contains(McprFlags::NO_LOOKUP) && execd {
        return Err(err(disp_at, ErrorKind::LookupInObjectMode));
    }
    Ok(())
}

/// The empty result: no result buffer may carry anything. One test of the six lengths
/// together; only a bad reply pays for the walk that names the first buffer that has bytes.
#[inline(always)]
fn check_empty_result<'x, 'p, O: ByteOrder>(
    f: &ReplyRuleInput<'x, impl Buffers<'p>, O>,
) -> Result<(), DecodeError> {
    let mut any = 0;
    for i in 0..MLI_BUF_MAX {
        any |= f.bufs.result_len(i);
    }
    if any == 0 {
        return Ok(());
    }
    let i = (0..MLI_BUF_MAX)
        .find(|&i| f.bufs.result_len(i) != 0)
        .unwrap_or(0);
    Err(err(
        At::new(MliBuf::ALL[i].name(), "", f.bufs.off(3 + i)),
        ErrorKind::BufferWithoutValid {
            len: f.bufs.result_len(i),
        },
    ))
}

/// The request's flags: known ones only, and no lookup in object mode.
fn check_flags_for(
    b: &MdCreatePrepareRepRaw<impl ByteOrder>,
    o2: usize,
    ctx: &ReplyContext,
) -> Result<(), DecodeError> {
    let unknown = ctx.flags.unknown();
    if !unknown.is_empty() {
        return Err(err(
            At::new(rep::LAYOUT.name, "", o2),
            ErrorKind::ReplyToUnknownFlags { flags: unknown.0 },
        ));
    }
    if ctx.flags.contains(McprFlags::NO_LOOKUP) && b.flags().contains(McppFlags::LOOKUP_DONE) {
        return Err(err(rep::mcpp_flags.at(o2), ErrorKind::LookupInObjectMode));
    }
    Ok(())
}

/// `md_create_prepare_rep`: status, lookup, FID, the dispositions, the masks, the derived child
/// on its own.
#[inline(always)]
fn check_body(
    b: &MdCreatePrepareRepRaw<impl ByteOrder>,
    o2: usize,
    ctx: Option<&ReplyContext>,
    d: &Disp,
) -> Result<(), DecodeError> {
    let (pos, execd) = (d.pos, d.execd);
    let mismatch = |why| d.mismatch(why);
    let (status, flags) = (b.status(), b.flags());
    if status > 0 {
        return Err(err(
            rep::mcpp_status.at(o2),
            ErrorKind::PositiveStatus { got: status },
        ));
    }
    let done = flags.contains(McppFlags::LOOKUP_DONE);
    let found = flags.contains(McppFlags::LOOKUP_POS);
    if found && !done {
        return Err(err(rep::mcpp_flags.at(o2), ErrorKind::LookupPosWithoutDone));
    }
    let fid = b.fid();
    if fid.is_zero() == found {
        let state = if found { "positive" } else { "not positive" };
        return Err(err(
            rep::mcpp_fid.at(o2),
            ErrorKind::FidLookupMismatch { fid, state },
        ));
    }
    if done != execd {
        return Err(mismatch("DISP_LOOKUP_EXECD must match MCPP_LOOKUP_DONE"));
    }
    if found != pos {
        return Err(mismatch("DISP_LOOKUP_POS must match MCPP_LOOKUP_POS"));
    }
    check_masks(b, o2)?;
    let derived = flags.contains(McppFlags::CHILD_DERIVED);
    if derived && status != 0 {
        return Err(err(
            rep::mcpp_flags.at(o2),
            ErrorKind::DerivedNotCreate {
                why: "the status is not 0",
            },
        ));
    }
    if derived && ctx.is_some_and(|c| c.op != Operation::Create) {
        return Err(err(
            rep::mcpp_flags.at(o2),
            ErrorKind::DerivedNotCreate {
                why: "the request is not a create",
            },
        ));
    }
    if derived {
        check_derived(b, o2, ctx)?;
    }
    let child_mode = b.child_mode();
    if found
        && !derived
        && child_mode != 0
        && (child_mode & !mode::S_IFMT != 0 || !mode::is_valid_type(child_mode))
    {
        return Err(err(
            rep::mcpp_child_mode.at(o2),
            ErrorKind::ChildModeNotType { got: child_mode },
        ));
    }
    Ok(())
}

/// `mcpp_valid` and `mcpp_truncated`: no reserved bit, never both, the attributes never truncated.
fn check_masks(b: &MdCreatePrepareRepRaw<impl ByteOrder>, o2: usize) -> Result<(), DecodeError> {
    let (valid, truncated) = (b.valid(), b.truncated());
    let reserved = |mask: ResultMask| ErrorKind::ReservedResultBits {
        bits: mask.reserved(),
    };
    if valid.reserved() != 0 {
        return Err(err(rep::mcpp_valid.at(o2), reserved(valid)));
    }
    if truncated.reserved() != 0 {
        return Err(err(rep::mcpp_truncated.at(o2), reserved(truncated)));
    }
    let both = ResultMask(valid.0 & truncated.0);
    if !both.is_empty() {
        return Err(err(
            rep::mcpp_valid.at(o2),
            ErrorKind::ValidAndTruncated { both },
        ));
    }
    if truncated.has(MliBuf::Pattr) {
        return Err(err(
            rep::mcpp_truncated.at(o2),
            ErrorKind::PattrTruncated {
                size: b.buf_size()[MliBuf::Pattr.index()],
            },
        ));
    }
    Ok(())
}
